//! Ditto's hardware, written with RustHDL: the SHA-1 page-hashing pipeline and
//! the named configurations. Every module here is exported as Verilog (see
//! [`verilog`]) and that Verilog is what is simulated (under Verilator, by the
//! `ditto-sim` crate) and synthesized (by Yosys and nextpnr, `ditto-synth`).
pub mod block;
pub mod board;
pub mod config;
pub mod formal;
pub mod ftl;
pub mod index;
pub mod ports;
pub mod ram;
pub mod sha1;
pub mod state_reg;
pub mod verilog;

pub use config::{by_name, Config, ALL as CONFIGS};
