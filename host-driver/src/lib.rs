//! Ditto's host side: drives the core (for now its SHA-1 hasher) in
//! cosimulation of the emitted Verilog, builds bitstreams, and measures.
pub mod bench;
pub mod core_bench;
mod error;
pub mod figures;
pub mod hash;
pub mod sample;
pub mod synth;

pub use error::HostError;
