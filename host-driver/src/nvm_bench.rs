//! `ditto bench nvm`: the NVM write cache of seed 003 (Lee et al., ACM TOS
//! 13(2), 2017; see [`ditto_hw::ftl::nvm`]) measured on the golden model of
//! the whole core, with a timing model of the media behind it.
//!
//! Each workload is replayed with the cache off, then at several sizes (a
//! share of the logical space), as a plain write-back cache and with the
//! seed's cooperative GC. A run reports GC copy-outs, the pages GC dropped
//! instead, erases, write amplification, the dedup ratio and every request's
//! simulated response time (mean, standard deviation, 99th percentile).
//!
//! Response times come from [`crate::timing`]: the golden model logs each
//! command's media operations, and FEMU's flash latencies price them.
//!
//! # Workloads
//! - `skewed`: the logical space is written once (the warm-up, not
//!   measured), then overwritten hot and cold: 80% of the requests go to 20%
//!   of the pages, 20% of the requests are reads, 10% of the writes repeat
//!   one of 16 hot contents. Poisson arrivals.
//! - `sample`: the built-in sample's 16 pages (5 contents) tiled over the
//!   logical space, then rewritten hot and cold as `skewed`: deduplication
//!   keeps five copies, so there is nothing for GC to do.
//! - `fiu`: an FIU-format trace written by [`generate_fiu_trace`] (a fill of
//!   32 KiB writes, then 1 to 4-page requests, hot and cold, 20% reads, 15%
//!   of the written pages one of 64 hot contents), read back by
//!   [`crate::replay`]'s parser as any trace; or a trace given with
//!   `--trace`, replayed from its own timestamps.
use crate::replay;
use crate::sample::{sample_bytes, SAMPLE_PAGES};
use crate::timing::{MediaTiming, ResponseTimes, Timeline};
use crate::HostError;
use ditto_hw::ftl::flash::Geometry;
use ditto_hw::ftl::model::{Command, CoreConfig, CoreModel};
use ditto_hw::ftl::nvm::NvmConfig;
use ditto_hw::ftl::{Op, Stat, REFCOUNT_MAX};
use ditto_hw::index::Fingerprint;
use rand::Rng;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One page-sized request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub arrival_ns: u64,
    pub lpa: u32,
    pub write: bool,
    pub fp: Fingerprint,
}

/// A workload: its requests, the first `warmup` of which are not measured.
#[derive(Clone, Debug)]
pub struct Workload {
    pub name: String,
    pub lpas: u32,
    pub requests: Vec<Request>,
    pub warmup: usize,
}

/// What the bench is asked to do.
#[derive(Clone, Debug)]
pub struct NvmOptions {
    /// Measured requests of the synthetic workloads.
    pub requests: u64,
    /// Mean time between requests of the synthetic workloads.
    pub interarrival_us: u64,
    /// Cache sizes in percent of the logical space.
    pub cache_percents: Vec<u32>,
    /// A real FIU trace to replay instead of the generated one.
    pub trace: Option<PathBuf>,
    pub seed: u64,
}

impl Default for NvmOptions {
    /// `ditto bench nvm`'s defaults, which the README's figures use.
    fn default() -> Self {
        NvmOptions {
            requests: 100_000,
            interarrival_us: 200,
            cache_percents: vec![1, 2, 5, 10, 20],
            trace: None,
            seed: 1,
        }
    }
}

/// Requests a synthetic workload may have.
pub const REQUESTS: std::ops::RangeInclusive<u64> = 1_000..=5_000_000;
/// Mean interarrival times the synthetic workloads take, in microseconds.
pub const INTERARRIVAL_US: std::ops::RangeInclusive<u64> = 1..=1_000_000;
/// Logical pages of the synthetic workloads: 75% of the flash.
pub const SYNTHETIC_LPAS: u32 = 12_288;
/// The flash for `lpas` logical pages: the driver's geometry on four
/// devices (64-page blocks, two reserve blocks and a quarter spare per
/// device, rounded up to a power of two; 75% utilisation for
/// [`SYNTHETIC_LPAS`]).
pub fn geometry_for(lpas: u32) -> Result<Geometry, HostError> {
    Ok(crate::driver::geometry_for(lpas, 4)?)
}

/// Checks the options before any work starts.
pub fn check(options: &NvmOptions) -> Result<(), HostError> {
    if !REQUESTS.contains(&options.requests) {
        return Err(HostError::OutOfRange {
            option: "--requests",
            value: options.requests,
            allowed: format!("{} to {}", REQUESTS.start(), REQUESTS.end()),
        });
    }
    if !INTERARRIVAL_US.contains(&options.interarrival_us) {
        return Err(HostError::OutOfRange {
            option: "--interarrival-us",
            value: options.interarrival_us,
            allowed: format!("{} to {}", INTERARRIVAL_US.start(), INTERARRIVAL_US.end()),
        });
    }
    if let Some(&p) = options.cache_percents.iter().find(|&&p| !(1..=100).contains(&p)) {
        return Err(HostError::OutOfRange { option: "--cache-percent", value: p as u64, allowed: "1 to 100".into() });
    }
    if options.cache_percents.is_empty() {
        return Err(HostError::Usage("--cache-percent: give at least one cache size".into()));
    }
    Ok(())
}

/// Draws a Poisson process's next gap.
fn gap_ns(rng: &mut impl Rng, mean_ns: u64) -> u64 {
    let u: f64 = rng.gen_range(f64::EPSILON..1.0);
    (-u.ln() * mean_ns as f64) as u64
}

/// A hot-and-cold LPA: 80% of the draws from the first 20% of the pages.
fn skewed_lpa(rng: &mut impl Rng, lpas: u32) -> u32 {
    let hot = (lpas / 5).max(1);
    if rng.gen_bool(0.8) {
        rng.gen_range(0..hot)
    } else {
        rng.gen_range(hot.min(lpas - 1)..lpas)
    }
}

/// The fingerprint of synthetic content `n`.
fn content(n: u64) -> Fingerprint {
    use sha1::{Digest, Sha1};
    Sha1::digest(n.to_le_bytes()).into()
}

/// A synthetic workload: every LPA written once with `fill(lpa)` (the
/// warm-up), then `requests` hot-and-cold requests, a fifth of them reads,
/// each with the content `draw` picks, at Poisson arrivals.
fn synthetic(
    name: &str,
    (lpas, requests, interarrival_us, seed): (u32, u64, u64, u64),
    fill: impl Fn(u32) -> Fingerprint,
    mut draw: impl FnMut(&mut rand_chacha::ChaCha8Rng) -> Fingerprint,
) -> Workload {
    let mut rng = ditto_sim::testkit::rng(seed);
    let mean = interarrival_us * 1_000;
    let mut t = 0;
    let mut out: Vec<Request> = (0..lpas)
        .map(|lpa| {
            t += mean;
            Request { arrival_ns: t, lpa, write: true, fp: fill(lpa) }
        })
        .collect();
    for _ in 0..requests {
        t += gap_ns(&mut rng, mean);
        let lpa = skewed_lpa(&mut rng, lpas);
        let write = !rng.gen_bool(0.2);
        out.push(Request { arrival_ns: t, lpa, write, fp: draw(&mut rng) });
    }
    Workload { name: name.into(), lpas, requests: out, warmup: lpas as usize }
}

/// The `skewed` workload: fresh contents, a tenth of them one of 16 hot
/// ones.
pub fn skewed(lpas: u32, requests: u64, interarrival_us: u64, seed: u64) -> Workload {
    let mut next_content = lpas as u64;
    let draw = |rng: &mut rand_chacha::ChaCha8Rng| {
        if rng.gen_bool(0.1) {
            content(u64::MAX - rng.gen_range(0..16))
        } else {
            next_content += 1;
            content(next_content)
        }
    };
    synthetic("skewed", (lpas, requests, interarrival_us, seed), |lpa| content(lpa as u64), draw)
}

/// The `sample` workload: the sample's pages, tiled, then drawn at random.
pub fn sample(lpas: u32, requests: u64, interarrival_us: u64, seed: u64) -> Workload {
    use sha1::{Digest, Sha1};
    let pages: Vec<Fingerprint> =
        sample_bytes().chunks(ditto_hw::sha1::PAGE_BYTES).map(|p| Sha1::digest(p).into()).collect();
    let fill = |lpa: u32| pages[lpa as usize % SAMPLE_PAGES];
    let draw = |rng: &mut rand_chacha::ChaCha8Rng| pages[rng.gen_range(0..SAMPLE_PAGES)];
    synthetic("sample", (lpas, requests, interarrival_us, seed), fill, draw)
}

/// Writes an FIU-format trace (`timestamp pid process lba sectors W|R major
/// minor md5...`, timestamps in nanoseconds) of `requests` requests after a
/// fill of `lpas` pages, and returns how many of its page accesses are the
/// fill. The 16-byte hashes are the first bytes of a SHA-1 of a content
/// number: like MD5s, they name contents.
pub fn generate_fiu_trace(
    out: &mut impl std::io::Write,
    lpas: u32,
    requests: u64,
    interarrival_us: u64,
    seed: u64,
) -> std::io::Result<usize> {
    if lpas == 0 {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "a trace of no pages"));
    }
    let mut rng = ditto_sim::testkit::rng(seed ^ 0xf1u64);
    let hash = |n: u64| {
        content(n)[..16].iter().fold(String::with_capacity(32), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
    };
    let mean = interarrival_us * 1_000;
    let mut t = 1_000_000_000u64;
    let mut next_content = 0u64;
    let mut fresh = |rng: &mut rand_chacha::ChaCha8Rng| {
        if rng.gen_bool(0.15) {
            hash(u64::MAX - rng.gen_range(0..64))
        } else {
            next_content += 1;
            hash(next_content)
        }
    };
    let mut fill_pages = 0usize;
    let mut page = 0u32;
    while page < lpas {
        let n = 8.min(lpas - page);
        let md5s: Vec<String> = (0..n).map(|_| fresh(&mut rng)).collect();
        t += mean;
        writeln!(out, "{t} 1200 ditto-gen {} {} W 8 0 {}", page as u64 * 8, n * 8, md5s.join(" "))?;
        page += n;
        fill_pages += n as usize;
    }
    for _ in 0..requests {
        t += gap_ns(&mut rng, mean * 5 / 2);
        let n = rng.gen_range(1..=4u32.min(lpas));
        let start = skewed_lpa(&mut rng, lpas).min(lpas - n);
        let write = !rng.gen_bool(0.2);
        let md5s: Vec<String> = (0..n).map(|_| if write { fresh(&mut rng) } else { hash(0) }).collect();
        let op = if write { "W" } else { "R" };
        writeln!(out, "{t} 1201 ditto-gen {} {} {op} 8 0 {}", start as u64 * 8, n * 8, md5s.join(" "))?;
    }
    Ok(fill_pages)
}

/// The trace's page accesses as a workload (dense page numbers), arriving
/// at their timestamps from the first one on.
fn workload_of_trace(name: &str, path: &Path, warmup: usize) -> Result<Workload, HostError> {
    let (accesses, stats) = replay::plan(&replay::read(path)?, true);
    let lpas = u32::try_from(stats.device_pages).ok().filter(|&n| n >= 1).ok_or_else(|| HostError::OutOfRange {
        option: "trace pages",
        value: stats.device_pages,
        allowed: "1 to 2^32 - 1 distinct pages".into(),
    })?;
    geometry_for(lpas)?;
    let first = accesses.first().map_or(0, |a| a.timestamp);
    let requests = accesses
        .iter()
        .map(|a| Request { arrival_ns: a.timestamp.saturating_sub(first), lpa: a.lpa as u32, write: a.write, fp: a.fp })
        .collect();
    Ok(Workload { name: name.into(), lpas, requests, warmup })
}

/// The `fiu` workload: a generated trace (through a temporary file and the
/// replayer's parser), or the trace at `path`.
pub fn fiu(options: &NvmOptions) -> Result<Workload, HostError> {
    if let Some(path) = &options.trace {
        let name = path.file_name().map_or("trace".into(), |n| n.to_string_lossy().into_owned());
        return workload_of_trace(&name, path, 0);
    }
    let mut file = tempfile::NamedTempFile::new()
        .map_err(|source| HostError::Write { path: "a temporary trace".into(), source })?;
    // Its requests average 2.5 pages: as many page accesses as the
    // synthetic workloads' requests.
    let requests = options.requests * 2 / 5;
    let path = file.path().to_path_buf();
    let mut writer = std::io::BufWriter::new(file.as_file_mut());
    let warmup = generate_fiu_trace(&mut writer, SYNTHETIC_LPAS, requests, options.interarrival_us, options.seed)
        .and_then(|fill| std::io::Write::flush(&mut writer).map(|()| fill))
        .map_err(|source| HostError::Write { path: path.clone(), source })?;
    drop(writer);
    workload_of_trace("fiu (generated)", file.path(), warmup)
}

/// One run: a workload at one cache setting.
#[derive(Clone, Debug, Serialize)]
pub struct NvmRun {
    pub workload: String,
    /// `off`, `plain` (a write-back cache) or `cooperative` (the seed's).
    pub mode: &'static str,
    pub cache_percent: u32,
    pub slots: u32,
    /// Measured requests (after the warm-up) and their writes.
    pub requests: u64,
    pub writes: u64,
    /// Writes refused (device full); zero at 75% utilisation.
    pub refused: u64,
    pub copy_outs: u64,
    pub gc_drops: u64,
    pub erases: u64,
    /// Flash page programs: written pages, write-backs and copy-outs.
    pub flash_programs: u64,
    pub writebacks: u64,
    /// Dirty pages freed in the cache before reaching the flash.
    pub absorbed: u64,
    /// Flash programs per page the host wrote.
    pub write_amplification: f64,
    /// Writes that were duplicates.
    pub dedup_ratio: f64,
    pub response: ResponseTimes,
}

/// Replays `w` on a core with `nvm` in front of its flash.
pub fn run(w: &Workload, nvm: NvmConfig, cache_percent: u32, timing: MediaTiming) -> Result<NvmRun, HostError> {
    let geometry = geometry_for(w.lpas)?;
    let large = ditto_hw::config::LARGE;
    let mut m = CoreModel::new(CoreConfig {
        lpas: w.lpas,
        geometry,
        index_bucket_bits: large.index_bucket_bits,
        bloom: true,
        array_wide: true,
        refcount_max: REFCOUNT_MAX,
        nvm,
    });
    let mut timeline = Timeline::new(timing, geometry.devices);
    let mut times = Vec::with_capacity(w.requests.len() - w.warmup);
    let mut refused = 0;
    let mut start = None;
    for (i, r) in w.requests.iter().enumerate() {
        if i == w.warmup {
            start = Some((m.counters(), m.flash().stats(), m.nvm_stats()));
        }
        let op = if r.write { Op::WriteFp } else { Op::Read };
        let (rsp, _) = m.execute(&Command::new(op, 0, r.lpa, r.fp));
        // The cleaner runs between requests (the core is idle then).
        while m.clean_step() {}
        let done = timeline.serve(r.arrival_ns, m.last_ops());
        if i >= w.warmup {
            refused += rsp.status.is_error() as u64;
            times.push(done - r.arrival_ns);
        }
    }
    let (c0, f0, n0) = start.unwrap_or((m.counters(), m.flash().stats(), m.nvm_stats()));
    let (c, f, n) = (m.counters(), m.flash().stats(), m.nvm_stats());
    let counter = |s: Stat| (c[s as usize] - c0[s as usize]) as u64;
    let writes = w.requests[w.warmup..].iter().filter(|r| r.write).count() as u64;
    let flash_programs = (f.host_writes + f.relocations) - (f0.host_writes + f0.relocations);
    Ok(NvmRun {
        workload: w.name.clone(),
        mode: if !nvm.enabled() {
            "off"
        } else if nvm.cooperative {
            "cooperative"
        } else {
            "plain"
        },
        cache_percent,
        slots: nvm.slots,
        requests: (w.requests.len() - w.warmup) as u64,
        writes,
        refused,
        copy_outs: f.relocations - f0.relocations,
        gc_drops: f.dropped - f0.dropped,
        erases: f.erases - f0.erases,
        flash_programs,
        writebacks: n.writebacks - n0.writebacks,
        absorbed: n.absorbed - n0.absorbed,
        write_amplification: flash_programs as f64 / writes.max(1) as f64,
        dedup_ratio: counter(Stat::DuplicateWrites) as f64 / counter(Stat::Writes).max(1) as f64,
        response: ResponseTimes::of(times),
    })
}

/// The slots of a cache of `percent`% of `lpas` logical pages (at least one).
pub fn slots_for(lpas: u32, percent: u32) -> u32 {
    ((lpas as u64 * percent as u64).div_ceil(100) as u32).max(1)
}

/// The whole experiment.
#[derive(Clone, Debug, Serialize)]
pub struct NvmBench {
    pub timing: MediaTiming,
    pub interarrival_us: u64,
    pub seed: u64,
    pub runs: Vec<NvmRun>,
}

impl NvmBench {
    /// The workloads run, in order.
    pub fn workloads(&self) -> Vec<&str> {
        let mut workloads: Vec<&str> = self.runs.iter().map(|r| r.workload.as_str()).collect();
        workloads.dedup();
        workloads
    }
    /// The run of `workload` with the cache off.
    pub fn off(&self, workload: &str) -> Option<&NvmRun> {
        self.runs.iter().find(|r| r.workload == workload && r.mode == "off")
    }
    /// How much fewer copy-outs `run` did than the same workload with the
    /// cache off (a fraction; 0 when the cache-off run did none).
    pub fn copy_out_reduction(&self, run: &NvmRun) -> f64 {
        match self.off(&run.workload) {
            Some(off) if off.copy_outs > 0 => 1.0 - run.copy_outs as f64 / off.copy_outs as f64,
            _ => 0.0,
        }
    }
    /// The same for the response times' standard deviation.
    pub fn deviation_reduction(&self, run: &NvmRun) -> f64 {
        match self.off(&run.workload) {
            Some(off) if off.response.std_dev_us > 0.0 => 1.0 - run.response.std_dev_us / off.response.std_dev_us,
            _ => 0.0,
        }
    }
}

/// Runs that [`bench_nvm`] makes: each of its three workloads with the
/// cache off, then plain and cooperative at each size.
pub fn run_count(options: &NvmOptions) -> u64 {
    3 * (1 + 2 * options.cache_percents.len() as u64)
}

/// Runs every workload at every setting; `progress` hears each run's name.
pub fn bench_nvm(options: &NvmOptions, mut progress: impl FnMut(&str)) -> Result<NvmBench, HostError> {
    check(options)?;
    let fiu = fiu(options)?;
    let workloads = [
        skewed(SYNTHETIC_LPAS, options.requests, options.interarrival_us, options.seed),
        sample(SYNTHETIC_LPAS, options.requests, options.interarrival_us, options.seed),
        fiu,
    ];
    let timing = MediaTiming::FEMU;
    let mut runs = Vec::new();
    for w in &workloads {
        progress(&format!("{}: cache off", w.name));
        runs.push(run(w, NvmConfig::OFF, 0, timing)?);
        for &percent in &options.cache_percents {
            for cooperative in [false, true] {
                progress(&format!("{}: {percent}% cache{}", w.name, if cooperative { ", cooperative" } else { "" }));
                let nvm = NvmConfig { slots: slots_for(w.lpas, percent), cooperative };
                runs.push(run(w, nvm, percent, timing)?);
            }
        }
    }
    Ok(NvmBench { timing, interarrival_us: options.interarrival_us, seed: options.seed, runs })
}

/// First line of the README's NVM block.
pub const NVM_BEGIN: &str =
    "<!-- nvm:begin: generated by `ditto figures --update README.md` (`ditto bench nvm`); do not edit by hand -->";
/// Last line of the README's NVM block.
pub const NVM_END: &str = "<!-- nvm:end -->";

/// The README's NVM block.
pub fn render(b: &NvmBench) -> String {
    let mut md = String::new();
    writeln!(md, "{NVM_BEGIN}\n").unwrap();
    let t = &b.timing;
    writeln!(
        md,
        "`ditto bench nvm` (golden model; seed {}; flash read {} us, program {} us, erase {} ms per device channel, NVM read {} us, write {} us; synthetic requests every {} us on average):\n",
        b.seed,
        t.flash_read_ns / 1_000,
        t.flash_program_ns / 1_000,
        t.flash_erase_ns / 1_000_000,
        t.nvm_read_ns / 1_000,
        t.nvm_write_ns / 1_000,
        b.interarrival_us
    )
    .unwrap();
    writeln!(md, "| workload | cache | slots | requests | copy-outs | vs off | GC drops | erases | write amp. | dedup ratio | response mean | std dev | vs off | p99 |").unwrap();
    writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|").unwrap();
    for r in &b.runs {
        let cache = if r.mode == "off" { "off".to_string() } else { format!("{}% {}", r.cache_percent, r.mode) };
        let off = b.off(&r.workload);
        let vs = |x: f64, base: bool| {
            if r.mode == "off" {
                String::new()
            } else if !base {
                "-".to_string()
            } else {
                format!("{:+.1}%", -100.0 * x)
            }
        };
        writeln!(
            md,
            "| {} | {cache} | {} | {} | {} | {} | {} | {} | {:.2} | {:.1}% | {:.0} us | {:.0} us | {} | {:.0} us |",
            r.workload,
            r.slots,
            r.requests,
            r.copy_outs,
            vs(b.copy_out_reduction(r), off.is_some_and(|o| o.copy_outs > 0)),
            r.gc_drops,
            r.erases,
            r.write_amplification,
            100.0 * r.dedup_ratio,
            r.response.mean_us,
            r.response.std_dev_us,
            vs(b.deviation_reduction(r), off.is_some_and(|o| o.response.std_dev_us > 0.0)),
            r.response.p99_us,
        )
        .unwrap();
    }
    writeln!(md).unwrap();
    for line in summary(b) {
        writeln!(md, "- {line}").unwrap();
    }
    write!(md, "\n{NVM_END}").unwrap();
    md
}

/// For each workload that makes GC work: the smallest cache at which the
/// cooperative cache copies out at least 40% fewer pages than no cache, and
/// what the cooperation itself buys over the plain cache at each size.
pub fn summary(b: &NvmBench) -> Vec<String> {
    let mut lines = Vec::new();
    let workloads = b.workloads();
    for w in workloads {
        let Some(off) = b.off(w).filter(|o| o.copy_outs > 0) else {
            lines.push(format!("`{w}`: no copy-outs without a cache, so none to save."));
            continue;
        };
        let runs = |mode: &'static str| b.runs.iter().filter(move |r| r.workload == w && r.mode == mode);
        let first = runs("cooperative").find(|r| b.copy_out_reduction(r) >= 0.4);
        let reach = match first {
            Some(r) => format!(
                "copy-outs drop by {:.1}% against no cache ({} to {}) first at {}% of the logical space ({} slots), with the response time's standard deviation {:+.1}%",
                100.0 * b.copy_out_reduction(r),
                off.copy_outs,
                r.copy_outs,
                r.cache_percent,
                r.slots,
                -100.0 * b.deviation_reduction(r)
            ),
            None => "copy-outs never drop by 40% against no cache at the sizes run".to_string(),
        };
        let gains: Vec<f64> = runs("cooperative")
            .filter_map(|c| {
                let p = runs("plain").find(|p| p.cache_percent == c.cache_percent)?;
                Some(100.0 * (1.0 - c.copy_outs as f64 / p.copy_outs.max(1) as f64))
            })
            .collect();
        let (lo, hi) = gains.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &g| (lo.min(g), hi.max(g)));
        lines.push(format!(
            "`{w}`: {reach}; the cooperation itself copies out {lo:.1}% to {hi:.1}% fewer pages than the plain cache of the same size."
        ));
    }
    lines
}

/// Draws copy-outs and response-time deviation against the cache size
/// into `out`; returns the files written.
pub fn plots(b: &NvmBench, out: &Path) -> Result<Vec<PathBuf>, HostError> {
    use crate::plots::{line_plot, XAxis};
    std::fs::create_dir_all(out).map_err(|source| HostError::Write { path: out.into(), source })?;
    let workloads = b.workloads();
    let series = |value: &dyn Fn(&NvmRun) -> f64| {
        let mut all = Vec::new();
        for w in &workloads {
            let Some(off) = b.off(w) else { continue };
            if off.copy_outs == 0 {
                continue; // nothing for GC to do (the sample): a flat line
            }
            for mode in ["plain", "cooperative"] {
                let mut points = vec![(0.0, value(off))];
                points.extend(
                    b.runs
                        .iter()
                        .filter(|r| r.workload == *w && r.mode == mode)
                        .map(|r| (r.cache_percent as f64, value(r))),
                );
                all.push((format!("{w}, {mode}"), points));
            }
        }
        all
    };
    type Value = fn(&NvmRun) -> f64;
    let figures: [(&str, &str, &str, Value); 2] = [
        (
            "nvm-copy-outs-vs-cache-size.svg",
            "GC copy-outs against the NVM cache's size",
            "copy-outs per 1,000 writes",
            |r| 1_000.0 * r.copy_outs as f64 / r.writes.max(1) as f64,
        ),
        (
            "nvm-response-deviation-vs-cache-size.svg",
            "Response time's standard deviation against the NVM cache's size",
            "standard deviation (us)",
            |r| r.response.std_dev_us,
        ),
    ];
    let mut written = Vec::new();
    for (file, title, y_label, value) in figures {
        let lines = series(&value);
        let named: Vec<(&str, Vec<(f64, f64)>)> = lines.iter().map(|(n, p)| (n.as_str(), p.clone())).collect();
        let path = out.join(file);
        line_plot(&path, title, ("cache size (% of the logical space)", XAxis::Continuous), y_label, &named)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_out_of_range_are_refused_before_any_work() {
        let ok = NvmOptions { requests: 1_000, interarrival_us: 200, cache_percents: vec![5], trace: None, seed: 1 };
        assert!(check(&ok).is_ok());
        for bad in [
            NvmOptions { requests: 999, ..ok.clone() },
            NvmOptions { interarrival_us: 0, ..ok.clone() },
            NvmOptions { cache_percents: vec![0], ..ok.clone() },
            NvmOptions { cache_percents: vec![101], ..ok.clone() },
            NvmOptions { cache_percents: vec![], ..ok.clone() },
        ] {
            assert!(check(&bad).is_err(), "{bad:?}");
        }
        assert!(geometry_for(SYNTHETIC_LPAS).is_ok());
        assert!(geometry_for(u32::MAX).is_err());
    }

    #[test]
    fn the_generated_trace_reads_back_as_a_trace_of_the_logical_space() {
        let mut text = Vec::new();
        let fill = generate_fiu_trace(&mut text, 1_000, 500, 100, 7).unwrap();
        assert_eq!(fill, 1_000);
        let requests = replay::parse(Path::new("generated"), std::str::from_utf8(&text).unwrap()).unwrap();
        assert_eq!(requests.len(), 125 + 500, "125 fill writes of 8 pages, then the requests");
        assert!(requests.windows(2).all(|w| w[0].timestamp <= w[1].timestamp));
        let (accesses, stats) = replay::plan(&requests, true);
        assert_eq!(stats.device_pages, 1_000);
        assert!(accesses[fill..].iter().any(|a| !a.write) && accesses[fill..].iter().any(|a| a.write));
    }

    /// The skewed workload on a small scale: the seed's cooperative GC must
    /// copy out fewer pages than the plain cache, which copies out fewer
    /// than no cache; nothing is refused and dedup is the same in all.
    #[test]
    fn cooperative_gc_cuts_copy_outs_on_the_skewed_workload() {
        let seed = 11;
        println!("seed {seed}");
        let w = skewed(5_600, 20_000, 200, seed);
        let off = run(&w, NvmConfig::OFF, 0, MediaTiming::FEMU).unwrap();
        let slots = slots_for(w.lpas, 5);
        let plain = run(&w, NvmConfig { slots, cooperative: false }, 5, MediaTiming::FEMU).unwrap();
        let coop = run(&w, NvmConfig { slots, cooperative: true }, 5, MediaTiming::FEMU).unwrap();
        for r in [&off, &plain, &coop] {
            assert_eq!(r.refused, 0, "{r:?}");
            assert_eq!(r.dedup_ratio, off.dedup_ratio);
        }
        assert!(off.copy_outs > 1_000, "the workload must make GC work: {off:?}");
        assert!(coop.gc_drops > 0 && coop.copy_outs < plain.copy_outs, "{coop:?} against {plain:?}");
        assert!(plain.copy_outs < off.copy_outs, "{plain:?} against {off:?}");
    }
}
