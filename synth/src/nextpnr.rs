//! Place and route with nextpnr (iCE40 or ECP5), and reading its results.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::device::Device;
use crate::error::SynthError;

/// The Alchitry Cu's package.
pub const PACKAGE: &str = "cb132";
/// The ULX3S's package.
pub const ECP5_PACKAGE: &str = "CABGA381";

/// How much of one kind of device resource the design uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Utilization {
    pub used: u64,
    pub available: u64,
}

/// The frequency nextpnr achieved for one clock domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockTiming {
    /// nextpnr's name for the clock net, e.g. `clock$SB_IO_IN_$glb_clk`.
    pub name: String,
    pub fmax_mhz: f64,
    /// The frequency this clock had to reach.
    pub constraint_mhz: f64,
    pub met: bool,
}

/// The files one nextpnr run writes.
pub(crate) struct PnrOutputs {
    /// The placed and routed design: an iCE40 `.asc`, an ECP5 `.config`.
    pub placed: PathBuf,
    pub report: PathBuf,
    pub log: PathBuf,
}

/// What a completed nextpnr run achieved.
pub(crate) struct PnrResult {
    pub clocks: Vec<ClockTiming>,
    pub utilization: BTreeMap<String, Utilization>,
    /// Top-level ports the PCF does not place, which nextpnr placed anywhere.
    pub unconstrained_io: Vec<String>,
}

impl PnrResult {
    /// The slowest clock's achieved frequency, or `None` without clocks.
    pub fn fmax_mhz(&self) -> Option<f64> {
        self.clocks.iter().map(|c| c.fmax_mhz).reduce(f64::min)
    }

    /// Achieved over required frequency for the worst clock: at least 1.0
    /// when timing is met. Used to rank seeds.
    pub fn worst_ratio(&self) -> Option<f64> {
        self.clocks.iter().map(|c| c.fmax_mhz / c.constraint_mhz).reduce(f64::min)
    }

    pub fn timing_met(&self) -> bool {
        !self.clocks.is_empty() && self.clocks.iter().all(|c| c.met)
    }
}

#[derive(Deserialize)]
struct ReportJson {
    fmax: BTreeMap<String, FmaxJson>,
    utilization: BTreeMap<String, Utilization>,
}

#[derive(Deserialize)]
struct FmaxJson {
    achieved: f64,
    constraint: f64,
}

/// Places and routes the netlist `work_dir/NETLIST` for `device` in
/// `package`, with the constraints `work_dir/CONSTRAINTS`.
///
/// nextpnr runs in `work_dir` with file names relative to it (the YoWASP
/// build of nextpnr-ecp5 can open nothing else); every output in `out` must
/// be in `work_dir`. It runs with `--timing-allow-fail`, so a slow design
/// still routes and exits 0; whether timing was met is read from the
/// `--report` JSON. Ports missing from the constraints are allowed and
/// listed in the result. A design too large for the device fails with
/// [`SynthError::PlacementFailed`], read from the log's utilisation block.
#[allow(clippy::too_many_arguments)] // each is one nextpnr argument; a struct would only rename them
pub(crate) fn place_and_route(
    device: Device,
    work_dir: &Path,
    netlist: &str,
    constraints: &str,
    package: &str,
    target_mhz: f64,
    seed: u64,
    out: &PnrOutputs,
) -> Result<PnrResult, SynthError> {
    let name_in_work_dir = |path: &Path| -> Result<String, SynthError> {
        match (path.parent(), path.file_name()) {
            (Some(dir), Some(name)) if dir == work_dir => Ok(name.to_string_lossy().into_owned()),
            _ => Err(SynthError::InvalidRequest(format!(
                "nextpnr output {} is not in the work directory {}",
                path.display(),
                work_dir.display()
            ))),
        }
    };
    let mut args = device.nextpnr_args(package, constraints, &name_in_work_dir(&out.placed)?);
    args.extend([
        "--json".into(),
        netlist.into(),
        "--freq".into(),
        target_mhz.to_string(),
        "--timing-allow-fail".into(),
        "--seed".into(),
        seed.to_string(),
        "--report".into(),
        name_in_work_dir(&out.report)?,
        "--log".into(),
        name_in_work_dir(&out.log)?,
        "-q".into(),
    ]);
    let nextpnr = device.nextpnr();
    let output = nextpnr.run(&args, Some(work_dir))?;
    let log = fs::read_to_string(&out.log).unwrap_or_default();
    if !output.status.success() {
        if let Some((resource, usage)) = overused_resource(&log) {
            return Err(SynthError::PlacementFailed {
                resource,
                used: usage.used,
                available: usage.available,
                log_path: out.log.clone(),
            });
        }
        return Err(nextpnr.failed(&output, &out.log));
    }

    let report_text = fs::read_to_string(&out.report)
        .map_err(|err| SynthError::io(format!("nextpnr did not write its report {}", out.report.display()), err))?;
    let report: ReportJson = serde_json::from_str(&report_text)
        .map_err(|err| SynthError::Parse { path: out.report.clone(), detail: err.to_string() })?;
    let clocks = report
        .fmax
        .into_iter()
        .map(|(name, f)| ClockTiming {
            name,
            fmax_mhz: f.achieved,
            constraint_mhz: f.constraint,
            met: f.achieved >= f.constraint,
        })
        .collect();
    Ok(PnrResult { clocks, utilization: report.utilization, unconstrained_io: unconstrained_io(&log) })
}

/// Reads the last "Device utilisation" block of a nextpnr log, whose lines
/// look like `Info: \t ICESTORM_LC:  9001/ 7680   117%`.
fn utilisation_from_log(log: &str) -> BTreeMap<String, Utilization> {
    let mut blocks = log.split("Device utilisation:");
    blocks.next();
    let Some(block) = blocks.last() else {
        return BTreeMap::new();
    };
    block
        .lines()
        .skip(1)
        .map_while(|line| {
            let entry = line.strip_prefix("Info:")?;
            let (name, counts) = entry.split_once(':')?;
            let (used, rest) = counts.split_once('/')?;
            let available = rest.split_whitespace().next()?;
            Some((
                name.trim().to_owned(),
                Utilization { used: used.trim().parse().ok()?, available: available.parse().ok()? },
            ))
        })
        .collect()
}

/// The first resource the design needs more of than the device has.
fn overused_resource(log: &str) -> Option<(String, Utilization)> {
    utilisation_from_log(log).into_iter().find(|(_, u)| u.used > u.available)
}

/// Ports named in `Warning: IO 'q[7]' is unconstrained in PCF ...` (or
/// `... in LPF ...`) lines.
fn unconstrained_io(log: &str) -> Vec<String> {
    let mut ports: Vec<String> = log
        .lines()
        .filter(|l| l.contains("is unconstrained in PCF") || l.contains("is unconstrained in LPF"))
        .filter_map(|l| {
            let (_, rest) = l.split_once("IO '")?;
            let (port, _) = rest.split_once('\'')?;
            Some(port.to_owned())
        })
        .collect();
    ports.sort();
    ports.dedup();
    ports
}

#[cfg(test)]
mod tests {
    use super::*;

    const OVERFULL_LOG: &str = "\
Info: Packing constants..
Info: Device utilisation:
Info: \t         ICESTORM_LC:  9001/ 7680   117%
Info: \t        ICESTORM_RAM:     0/   32     0%
Info: \t               SB_IO:     3/  256     1%
Info: \t               SB_GB:     1/    8    12%
Info: \t        ICESTORM_PLL:     0/    2     0%
Info: \t         SB_WARMBOOT:     0/    1     0%

Info: Placed 3 cells based on constraints.
ERROR: Unable to place cell 'r_SB_DFF_Q_791_DFFLC', no BELs remaining to implement cell type 'ICESTORM_LC'
";

    #[test]
    fn utilisation_block_is_parsed() {
        let usage = utilisation_from_log(OVERFULL_LOG);
        assert_eq!(usage.len(), 6);
        assert_eq!(usage["ICESTORM_RAM"], Utilization { used: 0, available: 32 });
        let (resource, lc) = overused_resource(OVERFULL_LOG).unwrap();
        assert_eq!(resource, "ICESTORM_LC");
        assert_eq!(lc, Utilization { used: 9001, available: 7680 });
    }

    #[test]
    fn no_utilisation_block_means_nothing_overused() {
        assert!(overused_resource("ERROR: Loading PCF failed.\n").is_none());
    }

    #[test]
    fn unconstrained_ports_are_listed_once() {
        let log = "\
Warning: IO 'q[1]' is unconstrained in PCF and will be automatically placed
Warning: IO 'a[0]' is unconstrained in PCF and will be automatically placed
Warning: IO 'q[1]' is unconstrained in PCF and will be automatically placed
";
        assert_eq!(unconstrained_io(log), vec!["a[0]", "q[1]"]);
    }

    #[test]
    fn worst_clock_decides() {
        let clock = |name: &str, fmax: f64, constraint: f64| ClockTiming {
            name: name.into(),
            fmax_mhz: fmax,
            constraint_mhz: constraint,
            met: fmax >= constraint,
        };
        let result = PnrResult {
            clocks: vec![clock("a", 150.0, 100.0), clock("b", 90.0, 50.0)],
            utilization: BTreeMap::new(),
            unconstrained_io: Vec::new(),
        };
        assert_eq!(result.fmax_mhz(), Some(90.0));
        assert_eq!(result.worst_ratio(), Some(1.5));
        assert!(result.timing_met());
    }
}
