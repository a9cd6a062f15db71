//! `ditto bench lanes`: what the wide hasher ([`ditto_hw::sha1::wide`])
//! hashes per second on the ULX3S as its lanes grow, against the software
//! peer on this machine.
//!
//! For each lane count: `ditto synth --board ulx3s-85f --block wide-hasher
//! --lanes N` (in a pin harness, one nextpnr seed) gives the Fmax, and a
//! cosimulation of the same Verilog (every digest checked against the
//! `sha1` crate) gives the exact steady cycles per page; pages/s is the
//! one over the other. The software peer ([`software_peer`]: the `sha1`
//! crate and a hash map of fingerprints) runs over a skewed page set on
//! one core and on every core. The plot draws the hardware's pages/s
//! against lanes, and the two software rates as lines.
use crate::peer_bench::{skewed_pages, software_peer, SoftwareRate};
use crate::synth::{synth_report, Block, Board, SynthTarget};
use crate::HostError;
use ditto_synth::FlowReport;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One lane count's figures.
#[derive(Clone, Debug, Serialize)]
pub struct LanePoint {
    pub lanes: usize,
    /// The synthesis (its Fmax, cells, target and whether it was met).
    pub report: FlowReport,
    /// Steady-state cycles per page, cosimulated.
    pub cycles_per_page: f64,
    /// `report.fmax_mhz` over `cycles_per_page`.
    pub pages_per_second: f64,
    pub gigabytes_per_second: f64,
}

/// The whole sweep.
#[derive(Clone, Debug, Serialize)]
pub struct LanesBench {
    pub points: Vec<LanePoint>,
    /// Pages of the software peer's set (25% duplicates).
    pub software_pages: usize,
    pub software_one_core: SoftwareRate,
    pub software_every_core: SoftwareRate,
    /// The plot, when one was drawn.
    pub plot: Option<PathBuf>,
}

/// What `ditto bench lanes` runs.
#[derive(Clone, Debug)]
pub struct LanesOptions<'a> {
    pub lanes: &'a [usize],
    /// Each synthesis goes to `out/wide-<lanes>`; the plot to `out`.
    pub out: &'a Path,
    /// The harness's target clock.
    pub target_mhz: u32,
    /// The nextpnr seed.
    pub seed: u64,
    /// Use `out/wide-<lanes>/report.json` where one exists, of the same
    /// lanes and target, instead of synthesizing again.
    pub reuse: bool,
    /// Pages of the software peer's set.
    pub software_pages: usize,
}

/// The plot's file name in `out`.
pub const PLOT_FILE: &str = "pages-per-second-vs-lanes.svg";

/// A report from an earlier run, if it is one of this design and target.
fn earlier_report(path: &Path, lanes: usize, target_mhz: u32) -> Option<FlowReport> {
    let report: FlowReport = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    (report.config == wide_label(lanes) && report.target_mhz == f64::from(target_mhz)).then_some(report)
}

/// What a wide hasher's report names as its configuration.
fn wide_label(lanes: usize) -> String {
    format!("wide-{lanes}")
}

/// Runs the sweep; `progress` hears each step.
pub fn bench_lanes(options: &LanesOptions, mut progress: impl FnMut(&str)) -> Result<LanesBench, HostError> {
    if options.lanes.is_empty() {
        return Err(HostError::Usage("--lanes: give at least one lane count".into()));
    }
    crate::synth::check_wide_lanes(options.lanes)?;
    let pages = options.software_pages;
    if !(crate::peer_bench::MIN_PAGES..=crate::peer_bench::MAX_PAGES).contains(&pages) {
        return Err(HostError::Usage(format!(
            "--pages: from {} to {}, not {pages}",
            crate::peer_bench::MIN_PAGES,
            crate::peer_bench::MAX_PAGES
        )));
    }
    std::fs::create_dir_all(options.out).map_err(|source| HostError::Write { path: options.out.into(), source })?;
    let large = ditto_hw::config::LARGE;
    let mut points = Vec::new();
    for &lanes in options.lanes {
        let dir = options.out.join(wide_label(lanes));
        let earlier =
            options.reuse.then(|| earlier_report(&dir.join(ditto_synth::REPORT_FILE), lanes, options.target_mhz));
        let report = match earlier.flatten() {
            Some(report) => {
                progress(&format!("{lanes} lanes: the report in {}", dir.display()));
                report
            }
            None => {
                progress(&format!(
                    "ditto synth --board ulx3s-85f --block wide-hasher --lanes {lanes} --mhz {} --seeds {} --out {}",
                    options.target_mhz,
                    options.seed,
                    dir.display()
                ));
                let target = SynthTarget {
                    board: Board::Ulx3s85f,
                    config: &large,
                    block: Block::WideHasher,
                    target_mhz: Some(options.target_mhz),
                    lanes: Some(lanes),
                };
                synth_report(&target, &dir, &[options.seed])?
            }
        };
        progress(&format!("ditto bench wide --lanes {lanes}"));
        let cosim = crate::bench::bench_wide_hasher(lanes, 4 * lanes + 16, 1)?;
        let pages_per_second = report.fmax_mhz * 1e6 / cosim.steady_cycles_per_page;
        points.push(LanePoint {
            lanes,
            report,
            cycles_per_page: cosim.steady_cycles_per_page,
            pages_per_second,
            gigabytes_per_second: pages_per_second * ditto_hw::sha1::PAGE_BYTES as f64 / 1e9,
        });
    }
    progress("the software peer");
    let set = skewed_pages(pages, 25, 1);
    let (software_one_core, _) = software_peer(&set, 1);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (software_every_core, _) = software_peer(&set, threads);
    let mut bench = LanesBench { points, software_pages: pages, software_one_core, software_every_core, plot: None };
    if bench.points.len() > 1 {
        let path = options.out.join(PLOT_FILE);
        plot(&bench, &path)?;
        bench.plot = Some(path);
    }
    Ok(bench)
}

fn plot(bench: &LanesBench, path: &Path) -> Result<(), HostError> {
    let xs: Vec<f64> = bench.points.iter().map(|p| p.lanes as f64).collect();
    let (x0, x1) = (xs.iter().copied().fold(f64::INFINITY, f64::min), xs.iter().copied().fold(0.0, f64::max));
    let hardware: Vec<(f64, f64)> = bench.points.iter().map(|p| (p.lanes as f64, p.pages_per_second / 1e3)).collect();
    let flat = |rate: &SoftwareRate| vec![(x0, rate.pages_per_second / 1e3), (x1, rate.pages_per_second / 1e3)];
    let one_core = format!("software, 1 core ({} pages, 25% duplicates)", bench.software_pages);
    let every_core = format!("software, {} threads", bench.software_every_core.threads);
    crate::plots::line_plot(
        path,
        "Wide SHA-1 hasher on the ULX3S (ECP5-85F) against software",
        ("SHA-1 lanes", crate::plots::XAxis::Continuous),
        "thousand pages per second",
        &[
            ("Ditto: ECP5 Fmax / cosimulated cycles per page", hardware),
            (&one_core, flat(&bench.software_one_core)),
            (&every_core, flat(&bench.software_every_core)),
        ],
    )
}

/// The sweep as a Markdown table.
pub fn render(bench: &LanesBench) -> String {
    use std::fmt::Write as _;
    let one = bench.software_one_core.pages_per_second;
    let mut out = String::from(
        "| lanes | LUT4 | flip-flops | block RAMs | Fmax | target | cycles/page | pages/s | GB/s | / 1 core |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for p in &bench.points {
        let r = &p.report;
        let met = if r.timing_met { "met" } else { "not met" };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.2} MHz | {} MHz ({met}) | {:.1} | {:.0} | {:.2} | {:.2} |",
            p.lanes,
            r.luts,
            r.dffs,
            r.ebrs,
            r.fmax_mhz,
            r.target_mhz,
            p.cycles_per_page,
            p.pages_per_second,
            p.gigabytes_per_second,
            p.pages_per_second / one
        );
    }
    let _ = writeln!(
        out,
        "\nSoftware peer ({} pages, 25% duplicates): {:.0} pages/s on 1 core ({:.2} GB/s), {:.0} on {} threads.",
        bench.software_pages,
        one,
        bench.software_one_core.gigabytes_per_second,
        bench.software_every_core.pages_per_second,
        bench.software_every_core.threads
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lane counts and the software set's size are checked before any
    /// synthesis starts: nothing is written.
    #[test]
    fn bad_options_are_refused_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("lanes");
        let options = |lanes: &'static [usize], software_pages| LanesOptions {
            lanes,
            out: &out,
            target_mhz: 100,
            seed: 1,
            reuse: false,
            software_pages,
        };
        for (opts, why) in [
            (options(&[], 65_536), "no lane count"),
            (options(&[4, 6], 65_536), "six lanes"),
            (options(&[72], 65_536), "72 lanes"),
            (options(&[4], 10), "ten software pages"),
            (options(&[4], (1 << 20) + 1), "more software pages than the peer takes"),
        ] {
            let err = bench_lanes(&opts, |_| panic!("{why}: work started")).unwrap_err();
            assert!(matches!(err, HostError::Usage(_)), "{why}: {err}");
            assert!(!out.exists(), "{why}: the output folder was made");
        }
    }
}
