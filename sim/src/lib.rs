//! Ditto's Verilator bridge.
//!
//! `build.rs` asks `ditto-hw` for the Verilog of every model, verilates it, and
//! compiles it with a small C ABI shim; [`Model`] is the safe API over it (ports
//! by name, clock ticks, VCD waveforms), [`hasher::HasherSim`] drives a
//! configuration's SHA-1 hasher page by page, and [`index::IndexSim`] its
//! fingerprint index command by command against the golden model. Nothing here needs Verilator at
//! run time.
pub mod built;
pub mod ditto_core;
pub mod hasher;
pub mod index;
pub mod model;
pub mod shim;
pub mod stream;
pub mod testkit;
pub mod uart;

pub use model::{model_names, model_verilog_lines, waveform_dir, Model, PortId, PortInfo, SimError};
