//! `ditto bench peer`: Ditto against the CPU it would replace.
//!
//! The peer is the same dedup job in software on one core of this machine:
//! each 4 KiB page's SHA-1 (the `sha1` crate, which uses the CPU's SHA
//! instructions where it has them) and a hash map from fingerprint to the
//! page that first held it. Its rate is wall-clock, so it depends on the
//! machine: the best of several timed passes over one page set, each with
//! a fresh map.
//!
//! Ditto's rate is exact: the whole core's steady-state cycles per page,
//! cosimulated and checked against the golden model (`ditto bench core`'s
//! `all-unique` and `all-duplicate` streams, the slower of the two), at a
//! clock: the configuration's own, or the Fmax a synthesis report gives.
//!
//! The page set is skewed as real data is: one page in four is one of a
//! few hot contents, the rest are unique, so the map sees both hits and
//! inserts.
use crate::core_bench::bench_stream;
use crate::HostError;
use ditto_hw::sha1::PAGE_BYTES;
use ditto_hw::Config;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use sha1::{Digest, Sha1};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Hot contents in the page set; one page in four is one of them.
const HOT_CONTENTS: usize = 8;
/// Timed passes of the software peer; the best is reported.
const PASSES: usize = 5;
/// The fewest pages a software pass may time (shorter passes are noise).
pub const MIN_PAGES: usize = 1_024;
/// The most pages the command takes (4 GiB of page data in memory).
pub const MAX_PAGES: usize = 1 << 20;

/// Where the clock of Ditto's rate came from.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockSource {
    /// The configuration's own clock (`ditto configs`).
    Configuration,
    /// The Fmax of a `ditto synth` report.
    SynthesisReport { path: PathBuf, board: String, seed: u64 },
}

/// The software peer's figures.
#[derive(Clone, Debug, Serialize)]
pub struct SoftwarePeer {
    pub pages: usize,
    /// Distinct contents the map ended with (checked equal on every pass).
    pub unique_pages: usize,
    pub passes: usize,
    /// The best pass.
    pub seconds: f64,
    pub pages_per_second: f64,
    pub gigabytes_per_second: f64,
}

/// Ditto's figures at the clock it was given.
#[derive(Clone, Debug, Serialize)]
pub struct HardwareRate {
    pub config: String,
    pub lanes: usize,
    /// Steady-state cycles per page, the slower of all-unique and all-duplicate.
    pub cycles_per_page: f64,
    pub clock_mhz: f64,
    pub clock_source: ClockSource,
    pub pages_per_second: f64,
    pub gigabytes_per_second: f64,
}

/// One comparison.
#[derive(Clone, Debug, Serialize)]
pub struct PeerBench {
    pub software: SoftwarePeer,
    pub ditto: HardwareRate,
    /// Ditto's pages per second over the software peer's.
    pub ditto_over_software: f64,
}

/// `pages` pages, skewed: one in four is one of [`HOT_CONTENTS`] contents.
pub fn skewed_pages(pages: usize, seed: u64) -> Vec<Box<[u8; PAGE_BYTES]>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let hot: Vec<[u8; PAGE_BYTES]> = (0..HOT_CONTENTS)
        .map(|_| {
            let mut page = [0u8; PAGE_BYTES];
            rng.fill(&mut page[..]);
            page
        })
        .collect();
    (0..pages)
        .map(|_| {
            let mut page = Box::new([0u8; PAGE_BYTES]);
            if rng.gen_ratio(1, 4) {
                page.copy_from_slice(&hot[rng.gen_range(0..HOT_CONTENTS)]);
            } else {
                rng.fill(&mut page[..]);
            }
            page
        })
        .collect()
}

/// One software dedup pass: the number of distinct contents.
fn software_pass(pages: &[Box<[u8; PAGE_BYTES]>]) -> usize {
    let mut first_holder: HashMap<[u8; 20], u32> = HashMap::with_capacity(pages.len());
    for (i, page) in pages.iter().enumerate() {
        let digest: [u8; 20] = Sha1::digest(&page[..]).into();
        first_holder.entry(digest).or_insert(i as u32);
    }
    first_holder.len()
}

/// The software peer over `pages`: the best of [`PASSES`] timed passes.
pub fn software_peer(pages: &[Box<[u8; PAGE_BYTES]>]) -> SoftwarePeer {
    let mut best = f64::INFINITY;
    let mut unique = None;
    for _ in 0..PASSES {
        let start = Instant::now();
        let found = std::hint::black_box(software_pass(std::hint::black_box(pages)));
        best = best.min(start.elapsed().as_secs_f64());
        assert!(unique.is_none_or(|u| u == found), "a dedup pass found {found} contents, another {unique:?}");
        unique = Some(found);
    }
    let pages_per_second = pages.len() as f64 / best;
    SoftwarePeer {
        pages: pages.len(),
        unique_pages: unique.unwrap_or(0),
        passes: PASSES,
        seconds: best,
        pages_per_second,
        gigabytes_per_second: pages_per_second * PAGE_BYTES as f64 / 1e9,
    }
}

/// The clock of a `ditto synth` report at `path`, which must be of `config`.
fn report_clock(path: &Path, config: &Config) -> Result<(f64, ClockSource), HostError> {
    let text = std::fs::read_to_string(path).map_err(|source| HostError::Read { path: path.into(), source })?;
    let bad = |detail: String| HostError::BadReport { path: path.into(), detail };
    let report: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let field = |key: &str| report.get(key).ok_or_else(|| bad(format!("no `{key}`")));
    let of_config = field("config")?.as_str().ok_or_else(|| bad("`config` is not a string".into()))?;
    if of_config != config.name {
        return Err(bad(format!("it is of configuration `{of_config}`, not `{}`", config.name)));
    }
    if field("timing_met")?.as_bool() != Some(true) {
        return Err(bad("its timing was not met: its Fmax is no clock to run at".into()));
    }
    let fmax = field("fmax_mhz")?.as_f64().filter(|f| f.is_finite() && *f > 0.0);
    let fmax = fmax.ok_or_else(|| bad("`fmax_mhz` is not a positive number".into()))?;
    let board = field("board")?.as_str().unwrap_or_default().to_string();
    let seed = field("seed")?.as_u64().unwrap_or_default();
    Ok((fmax, ClockSource::SynthesisReport { path: path.into(), board, seed }))
}

/// Ditto's `config` against the software peer on `pages` skewed pages.
/// `report` names a `ditto synth` report whose Fmax is Ditto's clock
/// (default: the configuration's). `stream_pages` full pages make each
/// cosimulated stream.
pub fn bench_peer(
    config: &Config,
    pages: usize,
    stream_pages: usize,
    report: Option<&Path>,
    seed: u64,
) -> Result<PeerBench, HostError> {
    if !(MIN_PAGES..=MAX_PAGES).contains(&pages) {
        return Err(HostError::OutOfRange {
            option: "--pages",
            value: pages as u64,
            allowed: format!("{MIN_PAGES} to {MAX_PAGES}"),
        });
    }
    let (clock_mhz, clock_source) = match report {
        Some(path) => report_clock(path, config)?,
        None => (config.clock_mhz as f64, ClockSource::Configuration),
    };
    let unique = bench_stream(config, true, stream_pages, 2)?;
    let duplicate = bench_stream(config, false, stream_pages, 2)?;
    let cycles_per_page = unique.cycles_per_page.max(duplicate.cycles_per_page);
    let hw_pages_per_second = clock_mhz * 1e6 / cycles_per_page;
    let software = software_peer(&skewed_pages(pages, seed));
    Ok(PeerBench {
        ditto_over_software: hw_pages_per_second / software.pages_per_second,
        software,
        ditto: HardwareRate {
            config: config.name.into(),
            lanes: config.lanes,
            cycles_per_page,
            clock_mhz,
            clock_source,
            pages_per_second: hw_pages_per_second,
            gigabytes_per_second: hw_pages_per_second * PAGE_BYTES as f64 / 1e9,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_set_is_skewed_and_a_pass_counts_its_contents() {
        let pages = skewed_pages(2_000, 7);
        let mut distinct: Vec<&[u8; PAGE_BYTES]> = pages.iter().map(|p| &**p).collect();
        distinct.sort();
        distinct.dedup();
        // About 500 of the pages are one of eight hot contents.
        let hot_copies = pages.len() - distinct.len();
        assert!((400..600).contains(&hot_copies), "{hot_copies} hot copies");
        assert_eq!(software_pass(&pages), distinct.len());
    }

    #[test]
    fn a_report_of_another_config_or_unmet_timing_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        let cu = &ditto_hw::config::by_name("cu").unwrap();
        let write = |json: &str| std::fs::write(&path, json).unwrap();
        write(r#"{"config": "large", "timing_met": true, "fmax_mhz": 90.0, "board": "x", "seed": 1}"#);
        let err = report_clock(&path, cu).unwrap_err().to_string();
        assert!(err.contains("of configuration `large`"), "{err}");
        write(r#"{"config": "cu", "timing_met": false, "fmax_mhz": 90.0, "board": "x", "seed": 1}"#);
        let err = report_clock(&path, cu).unwrap_err().to_string();
        assert!(err.contains("timing was not met"), "{err}");
        write(r#"{"config": "cu", "timing_met": true, "fmax_mhz": 104.5, "board": "alchitry-cu", "seed": 5}"#);
        let (mhz, source) = report_clock(&path, cu).unwrap();
        assert_eq!(mhz, 104.5);
        assert!(matches!(source, ClockSource::SynthesisReport { seed: 5, .. }));
        write("{");
        assert!(report_clock(&path, cu).unwrap_err().to_string().contains("not JSON"));
    }

    #[test]
    fn a_page_count_outside_the_limits_is_refused_before_any_work() {
        let cu = &ditto_hw::config::by_name("cu").unwrap();
        for pages in [0, MIN_PAGES - 1, MAX_PAGES + 1] {
            let err = bench_peer(cu, pages, 8, None, 1).unwrap_err();
            assert!(matches!(err, HostError::OutOfRange { option: "--pages", .. }), "{err}");
        }
    }
}
