//! The whole flow: yosys, nextpnr over a list of seeds, icepack, report.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::SynthError;
use crate::nextpnr::{self, ClockTiming, PnrOutputs, PnrResult, Utilization};
use crate::tools::{self, ICEPACK, NEXTPNR, YOSYS};
use crate::yosys;

/// Netlist written by yosys.
pub const NETLIST_FILE: &str = "ditto.json";
/// Placed and routed design of the kept seed.
pub const ASC_FILE: &str = "ditto.asc";
/// nextpnr's JSON report for the kept seed.
pub const NEXTPNR_REPORT_FILE: &str = "nextpnr-report.json";
/// nextpnr's log for the kept seed (each seed's log is also kept as
/// `nextpnr-seed-N.log`).
pub const NEXTPNR_LOG_FILE: &str = "nextpnr.log";
/// The bitstream, written only when timing is met.
pub const BITSTREAM_FILE: &str = "ditto.bin";
/// What icepack printed.
pub const ICEPACK_LOG_FILE: &str = "icepack.log";
/// The flow's own report, a serialized [`FlowReport`].
pub const REPORT_FILE: &str = "report.json";

/// nextpnr reads its seed as a C `int`.
const MAX_SEED: u64 = i32::MAX as u64;

/// What to build and where.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRequest {
    /// One Verilog file holding the whole design.
    pub verilog: PathBuf,
    /// The top module's name (rust-hdl always calls it `top`).
    pub top: String,
    /// Pin constraints, e.g. `constraints/alchitry-cu.pcf`.
    pub pcf: PathBuf,
    /// Where every output goes; created if missing.
    pub out_dir: PathBuf,
    /// Required clock frequency in MHz.
    pub target_mhz: f64,
    /// nextpnr seeds to try in order; the flow stops at the first that
    /// meets timing. At most `i32::MAX` each.
    pub seeds: Vec<u64>,
    /// Board name, only written into the report.
    pub board: String,
    /// Hardware configuration name, only written into the report.
    pub config: String,
    /// iCE40-HX8K package: `cb132` (the Alchitry Cu), or `ct256` (206 I/Os,
    /// for measuring a block whose ports outnumber the Cu's pins).
    pub package: String,
}

/// One nextpnr seed the flow tried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedAttempt {
    pub seed: u64,
    /// The slowest clock's achieved frequency with this seed.
    pub fmax_mhz: f64,
    pub timing_met: bool,
}

/// The outcome of [`run_ice40_flow`], also written to `OUT/report.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowReport {
    pub board: String,
    pub config: String,
    /// FPGA part, e.g. `iCE40-HX8K`.
    pub device: String,
    /// FPGA package, e.g. `cb132`.
    pub package: String,
    pub top: String,

    /// `SB_LUT4` cells in the synthesized netlist.
    pub luts: u64,
    /// `SB_DFF*` cells in the synthesized netlist.
    pub dffs: u64,
    /// `SB_CARRY` cells in the synthesized netlist.
    pub carries: u64,
    /// `SB_RAM40_4K*` cells (embedded block RAMs) in the synthesized netlist.
    pub ebrs: u64,
    /// Every cell type of the synthesized netlist.
    pub cells_by_type: BTreeMap<String, u64>,
    /// Warnings from yosys that usually mean broken hardware (undriven
    /// wires, conflicting drivers, combinational loops); should be empty.
    pub design_problems: Vec<String>,

    /// Logic cells (`ICESTORM_LC`: LUT + flip-flop + carry) after packing.
    pub logic_cells: u64,
    pub logic_cells_available: u64,
    /// nextpnr's use of every device resource.
    pub utilization: BTreeMap<String, Utilization>,

    /// The kept seed's achieved frequency: the minimum over its clocks.
    pub fmax_mhz: f64,
    /// Every clock domain of the kept seed.
    pub clocks: Vec<ClockTiming>,
    pub target_mhz: f64,
    pub timing_met: bool,
    /// The seed whose outputs are kept: the first that met timing, or else
    /// the one that came closest.
    pub seed: u64,
    /// Every seed tried, in order.
    pub seeds_tried: Vec<SeedAttempt>,
    /// Top-level ports the PCF does not constrain; nextpnr placed them on
    /// arbitrary pins. Should be empty for a design meant for the board.
    pub unconstrained_io: Vec<String>,

    /// The bitstream, present only when timing was met.
    pub bitstream: Option<PathBuf>,
    /// `yosys --version`.
    pub yosys_version: String,
    /// `nextpnr-ice40 --version`.
    pub nextpnr_version: String,
}

/// Synthesizes, places and routes `req.verilog` for the iCE40-HX8K (`req.package`)
/// and, when timing is met, packs the bitstream `OUT/ditto.bin`.
///
/// Seeds are tried in order until one meets `req.target_mhz`; the best
/// seed's outputs are kept under fixed names. `OUT/report.json` is written
/// whenever nextpnr completed, whether or not timing was met. When no seed
/// meets timing the result is [`SynthError::TimingNotMet`] and no bitstream
/// exists (a stale one from an earlier run is removed first).
pub fn run_ice40_flow(req: &FlowRequest) -> Result<FlowReport, SynthError> {
    validate(req)?;
    for tool in [YOSYS, NEXTPNR, ICEPACK] {
        tool.ensure_installed()?;
    }
    let verilog = canonical(&req.verilog, "Verilog file")?;
    let pcf = canonical(&req.pcf, "PCF file")?;
    fs::create_dir_all(&req.out_dir)
        .map_err(|err| SynthError::io(format!("could not create output directory {}", req.out_dir.display()), err))?;
    let out_dir = canonical(&req.out_dir, "output directory")?;
    let out = |name: &str| out_dir.join(name);
    for stale in
        [NETLIST_FILE, ASC_FILE, NEXTPNR_REPORT_FILE, NEXTPNR_LOG_FILE, BITSTREAM_FILE, ICEPACK_LOG_FILE, REPORT_FILE]
    {
        tools::remove_if_exists(&out(stale))?;
    }

    let yosys_version = YOSYS.version()?;
    let nextpnr_version = NEXTPNR.version()?;

    let synthesis = yosys::synthesize(&verilog, &req.top, &out_dir, Some(NETLIST_FILE))?;
    let netlist = out(NETLIST_FILE);

    let kept = PnrOutputs { asc: out(ASC_FILE), report: out(NEXTPNR_REPORT_FILE), log: out(NEXTPNR_LOG_FILE) };
    let mut seeds_tried = Vec::new();
    let mut best: Option<(u64, PnrResult)> = None;
    for &seed in &req.seeds {
        let run = PnrOutputs {
            asc: out(&format!("ditto-seed-{seed}.asc")),
            report: out(&format!("nextpnr-report-seed-{seed}.json")),
            log: out(&format!("nextpnr-seed-{seed}.log")),
        };
        let result = nextpnr::place_and_route(&netlist, &pcf, &req.package, req.target_mhz, seed, &run)?;
        let (Some(fmax_mhz), Some(ratio)) = (result.fmax_mhz(), result.worst_ratio()) else {
            return Err(SynthError::NoClockDomain { log_path: run.log });
        };
        let timing_met = result.timing_met();
        seeds_tried.push(SeedAttempt { seed, fmax_mhz, timing_met });

        let improves = best.as_ref().and_then(|(_, b)| b.worst_ratio()).is_none_or(|best_ratio| ratio > best_ratio);
        if improves {
            keep(&run, &kept)?;
            best = Some((seed, result));
        } else {
            tools::remove_if_exists(&run.asc)?;
            tools::remove_if_exists(&run.report)?;
        }
        if timing_met {
            break;
        }
    }
    let (seed, pnr) = best.expect("validate() guarantees at least one seed");
    let timing_met = pnr.timing_met();

    let bitstream = out(BITSTREAM_FILE);
    let packed = if timing_met { pack(&kept.asc, &bitstream, &out(ICEPACK_LOG_FILE)) } else { Ok(()) };

    let lc = pnr.utilization.get("ICESTORM_LC").copied().ok_or_else(|| SynthError::Parse {
        path: kept.report.clone(),
        detail: "its utilization lists no ICESTORM_LC".into(),
    })?;
    let stats = synthesis.stats;
    let report = FlowReport {
        board: req.board.clone(),
        config: req.config.clone(),
        device: "iCE40-HX8K".into(),
        package: req.package.clone(),
        top: req.top.clone(),
        luts: stats.luts,
        dffs: stats.dffs,
        carries: stats.carries,
        ebrs: stats.ebrs,
        cells_by_type: stats.cells_by_type,
        design_problems: synthesis.problems,
        logic_cells: lc.used,
        logic_cells_available: lc.available,
        fmax_mhz: pnr.fmax_mhz().unwrap_or_default(),
        clocks: pnr.clocks,
        utilization: pnr.utilization,
        target_mhz: req.target_mhz,
        timing_met,
        seed,
        seeds_tried,
        unconstrained_io: pnr.unconstrained_io,
        bitstream: (timing_met && packed.is_ok()).then_some(bitstream),
        yosys_version,
        nextpnr_version,
    };
    let report_path = out(REPORT_FILE);
    write_report(&report, &report_path)?;
    packed?;

    if timing_met {
        Ok(report)
    } else {
        Err(SynthError::TimingNotMet { fmax_mhz: report.fmax_mhz, target_mhz: req.target_mhz, report_path })
    }
}

fn validate(req: &FlowRequest) -> Result<(), SynthError> {
    let invalid = |msg: String| Err(SynthError::InvalidRequest(msg));
    if req.seeds.is_empty() {
        return invalid("no nextpnr seeds given; pass at least one, e.g. `seeds: vec![1]`".into());
    }
    if let Some(seed) = req.seeds.iter().find(|&&s| s > MAX_SEED) {
        return invalid(format!("seed {seed} is too large: nextpnr takes seeds up to {MAX_SEED}"));
    }
    if !nextpnr::PACKAGES.contains(&req.package.as_str()) {
        return invalid(format!("package `{}` is not one of {}", req.package, nextpnr::PACKAGES.join(", ")));
    }
    if !(req.target_mhz.is_finite() && req.target_mhz > 0.0) {
        return invalid(format!("target frequency {} MHz is not a positive number", req.target_mhz));
    }
    Ok(())
}

fn canonical(path: &Path, what: &str) -> Result<PathBuf, SynthError> {
    path.canonicalize().map_err(|err| SynthError::io(format!("{what} {} is not accessible", path.display()), err))
}

/// Moves a seed's asc and report to the kept names and copies its log
/// (the per-seed log stays for comparison).
fn keep(run: &PnrOutputs, kept: &PnrOutputs) -> Result<(), SynthError> {
    let failed = |from: &Path, to: &Path, err| {
        SynthError::io(format!("could not keep {} as {}", from.display(), to.display()), err)
    };
    for (from, to) in [(&run.asc, &kept.asc), (&run.report, &kept.report)] {
        fs::rename(from, to).map_err(|err| failed(from, to, err))?;
    }
    fs::copy(&run.log, &kept.log).map_err(|err| failed(&run.log, &kept.log, err))?;
    Ok(())
}

/// Runs `icepack ASC BIN`, saving what it prints to `log_path`.
fn pack(asc: &Path, bitstream: &Path, log_path: &Path) -> Result<(), SynthError> {
    let output = ICEPACK.run([asc, bitstream], None)?;
    let mut log = output.stdout.clone();
    log.extend_from_slice(&output.stderr);
    fs::write(log_path, log).map_err(|err| SynthError::io(format!("could not write {}", log_path.display()), err))?;
    if output.status.success() {
        Ok(())
    } else {
        tools::remove_if_exists(bitstream)?;
        Err(ICEPACK.failed(&output, log_path))
    }
}

fn write_report(report: &FlowReport, path: &Path) -> Result<(), SynthError> {
    let mut json =
        serde_json::to_string_pretty(report).expect("a FlowReport always serializes: it has only plain fields");
    json.push('\n');
    fs::write(path, json).map_err(|err| SynthError::io(format!("could not write {}", path.display()), err))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> FlowRequest {
        FlowRequest {
            verilog: "design.v".into(),
            top: "top".into(),
            pcf: "board.pcf".into(),
            out_dir: "out".into(),
            target_mhz: 100.0,
            seeds: vec![1],
            board: "alchitry-cu".into(),
            config: "cu".into(),
            package: "cb132".into(),
        }
    }

    #[test]
    fn requests_are_validated() {
        assert!(validate(&request()).is_ok());
        let bad = [
            FlowRequest { seeds: vec![], ..request() },
            FlowRequest { seeds: vec![1, MAX_SEED + 1], ..request() },
            FlowRequest { target_mhz: 0.0, ..request() },
            FlowRequest { target_mhz: f64::NAN, ..request() },
            FlowRequest { package: "tq144".into(), ..request() },
        ];
        for req in bad {
            assert!(matches!(validate(&req), Err(SynthError::InvalidRequest(_))), "{req:?}");
        }
    }
}
