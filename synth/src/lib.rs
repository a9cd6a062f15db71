//! Ditto's FPGA build flow for the Alchitry Cu (Lattice iCE40-HX8K, cb132).
//!
//! [`run_ice40_flow`] takes the Verilog that rust-hdl generates for Ditto's
//! top level and runs the open-source iCE40 tools on it:
//!
//! 1. `yosys` (`synth_ice40`) synthesizes a JSON netlist and counts its cells;
//! 2. `nextpnr-ice40` places and routes it, trying the given seeds in order
//!    until one meets the target clock frequency;
//! 3. `icepack` turns the result into a bitstream, only when timing is met.
//!
//! Every run whose place and route completed leaves `OUT/report.json`, a
//! [`FlowReport`] with resource use (LUTs, flip-flops, block RAMs, logic
//! cells), the achieved frequency of every clock, the seeds tried and the
//! tool versions.
//!
//! [`check_synthesizable`] is the quick check each hardware module's tests
//! run: it synthesizes a Verilog source with yosys and fails on errors and
//! on warnings that mean broken hardware.
//!
//! [`formal::prove`] proves properties of emitted Verilog by k-induction.
//!
//! The tools come from Debian's `yosys`, `nextpnr-ice40` and `fpga-icestorm`
//! packages; a missing one is reported as [`SynthError::ToolMissing`].

mod error;
mod flow;
pub mod formal;
pub mod mutants;
mod nextpnr;
mod stats;
mod tools;
mod yosys;

pub use error::SynthError;
pub use flow::{
    run_ice40_flow, FlowReport, FlowRequest, SeedAttempt, ASC_FILE, BITSTREAM_FILE, ICEPACK_LOG_FILE, NETLIST_FILE,
    NEXTPNR_LOG_FILE, NEXTPNR_REPORT_FILE, REPORT_FILE,
};
pub use nextpnr::{ClockTiming, Utilization, PACKAGE};
pub use stats::YosysStats;
pub use yosys::check_synthesizable;
