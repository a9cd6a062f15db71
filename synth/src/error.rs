//! The one error type of the crate.

use std::path::PathBuf;
use std::process::ExitStatus;

/// Everything that can go wrong while synthesizing, placing, routing or
/// packing a design. Each message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// A tool of the flow is not on `PATH`.
    #[error("`{tool}` was not found on PATH; install it with `{install}` and run again")]
    ToolMissing { tool: &'static str, install: &'static str },

    /// A tool ran and exited with a failure status.
    #[error(
        "`{tool}` failed ({status}); fix the cause shown below and run again \
         (full log: {}):\n{excerpt}",
        .log_path.display()
    )]
    ToolFailed { tool: &'static str, status: ExitStatus, log_path: PathBuf, excerpt: String },

    /// Yosys synthesized the design but warned about undriven wires,
    /// conflicting drivers or combinational loops, which mean broken hardware.
    #[error(
        "yosys reported problems that mean the hardware is broken; fix the design \
         (full log: {}):\n{}",
        .log_path.display(),
        .problems.join("\n")
    )]
    DesignProblems { log_path: PathBuf, problems: Vec<String> },

    /// The design needs more of a resource than the device has.
    #[error(
        "the design does not fit the device: it needs {used} {} but only \
         {available} are available; make the configuration smaller \
         (nextpnr log: {})",
        resource_name(.resource),
        .log_path.display()
    )]
    PlacementFailed { resource: String, used: u64, available: u64, log_path: PathBuf },

    /// No nextpnr seed reached the target frequency. The report and the best
    /// seed's place-and-route outputs are kept; no bitstream is written.
    #[error(
        "timing not met: the best seed reached {fmax_mhz:.2} MHz, below the \
         {target_mhz:.2} MHz target; try more seeds, shorten the critical path \
         (see the report and nextpnr log beside it), or lower the target \
         (report: {})",
        .report_path.display()
    )]
    TimingNotMet { fmax_mhz: f64, target_mhz: f64, report_path: PathBuf },

    /// nextpnr found no clock, so there is no frequency to check.
    #[error(
        "nextpnr found no clock domain in the design, so its frequency cannot be \
         checked; make sure the top module's clock input drives registers \
         (nextpnr log: {})",
        .log_path.display()
    )]
    NoClockDomain { log_path: PathBuf },

    /// Reading or writing a file, or starting a process, failed.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },

    /// A tool's output file did not have the expected shape.
    #[error(
        "could not understand {}: {detail}; check that the tool versions match \
         those this crate supports (yosys 0.23+, nextpnr-ice40 0.4+, nextpnr-ecp5 0.11+)",
        .path.display()
    )]
    Parse { path: PathBuf, detail: String },

    /// The request itself cannot be run.
    #[error("invalid flow request: {0}")]
    InvalidRequest(String),
}

/// A nextpnr resource name with a plain-words description in front.
fn resource_name(resource: &str) -> String {
    let plain = match resource {
        "ICESTORM_LC" => "logic cells",
        "ICESTORM_RAM" => "block RAMs",
        "SB_IO" => "I/O pins",
        "SB_GB" => "global buffers",
        "ICESTORM_PLL" => "PLLs",
        "TRELLIS_COMB" => "LUTs",
        "TRELLIS_FF" => "flip-flops",
        "DP16KD" => "block RAMs",
        "MULT18X18D" => "DSP multipliers",
        "TRELLIS_IO" => "I/O pins",
        "EHXPLLL" => "PLLs",
        _ => return resource.to_owned(),
    };
    format!("{plain} ({resource})")
}

impl SynthError {
    /// Wraps an I/O error with a sentence saying what was being done.
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        SynthError::Io { context: context.into(), source }
    }
}
