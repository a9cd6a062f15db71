//! The microcoded FTL controller: the same controller as
//! [`super::controller::FtlController`] (same ports, same tables, same
//! decisions), built as a small sequencer running a program, so that it fits
//! next to the hasher and the index on an iCE40-HX8K.
//!
//! - [`isa`]: the instruction set (24-bit instructions, a 24-bit datapath,
//!   64 registers, the I/O the controller needs as instructions) and its
//!   assembler.
//! - [`program`]: the FTL controller as a program for it.
//! - [`emu`]: an instruction-level emulator of the sequencer, for testing the
//!   program against the golden model in plain Rust.
//! - [`cpu`]: the sequencer in RustHDL, `MicroFtl`.
pub mod cpu;
pub mod emu;
pub mod isa;
pub mod program;
