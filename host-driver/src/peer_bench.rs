//! `ditto bench peer`: Ditto against the CPU it would replace.
//!
//! The peer is the same dedup job in software on this machine: each 4 KiB
//! page's SHA-1 (the `sha1` crate, which uses the CPU's SHA instructions
//! where it has them) and a hash map from fingerprint to the page that
//! first held it; on one core, then on every core (each thread hashes a
//! contiguous share of the pages into a map of its own, and the maps are
//! merged, the merge timed too). Its rate is wall-clock, so it depends on
//! the machine: the best of several timed passes over one page set.
//!
//! The page sets: random pages with a set share of duplicates (each
//! duplicate one of a few hot contents, so the map sees both hits and
//! inserts), the built-in sample (`ditto hash`'s) repeated to the same
//! length, and optionally a real file.
//!
//! Ditto's rate is exact: the whole core's steady-state cycles per page,
//! cosimulated and checked against the golden model (`ditto bench core`'s
//! `all-unique` and `all-duplicate` streams, the slower of the two, which
//! bounds every mix of the two, so one rate holds for every page set), at a
//! clock: the configuration's own, or the Fmax a synthesis report gives.
//! That is the rate of a near-storage engine fed at its input width; beside
//! it stands the cap of the ULX3S's host link (its FT231X USB UART), which
//! today is the only way pages reach a board.
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

/// Hot contents of the random page set; every duplicate is one of them.
const HOT_CONTENTS: usize = 8;
/// Timed passes of the software peer; the best is reported.
const PASSES: usize = 5;
/// The fewest pages a software pass may time (shorter passes are noise).
pub const MIN_PAGES: usize = 1_024;
/// The most pages the command takes (4 GiB of page data in memory).
pub const MAX_PAGES: usize = 1 << 20;
/// The ULX3S's FT231X runs its UART at up to 3 Mbaud.
pub const ULX3S_LINK_BAUD: u64 = 3_000_000;
/// Bits on the line per byte: 8N1.
const BITS_PER_BYTE: u64 = 10;
/// A `WRITE` command frame: `SYNC kind tag len[2]`, the command and its
/// page, and the CRC.
pub const WRITE_FRAME_BYTES: u64 =
    (5 + ditto_hw::board::protocol::WRITE_COMMAND_LEN + ditto_hw::board::protocol::CRC_BYTES) as u64;

/// Where the clock of Ditto's rate came from.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockSource {
    /// The configuration's own clock (`ditto configs`).
    Configuration,
    /// The Fmax of a `ditto synth` report.
    SynthesisReport { path: PathBuf, board: String, seed: u64 },
}

/// The software peer's rate on some number of threads.
#[derive(Clone, Debug, Serialize)]
pub struct SoftwareRate {
    pub threads: usize,
    pub passes: usize,
    /// The best pass.
    pub seconds: f64,
    pub pages_per_second: f64,
    pub gigabytes_per_second: f64,
}

/// One page set through the software peer, and Ditto against it.
#[derive(Clone, Debug, Serialize)]
pub struct PageSetRun {
    /// What the pages are, e.g. `random, 25% duplicates`.
    pub name: String,
    pub pages: usize,
    /// Distinct contents (every pass, on any number of threads, found as many).
    pub unique_pages: usize,
    pub one_core: SoftwareRate,
    pub all_cores: SoftwareRate,
    /// Ditto's pages per second over the peer's on one core.
    pub ditto_over_one_core: f64,
    /// Ditto's pages per second over the peer's on every core.
    pub ditto_over_all_cores: f64,
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

/// The most pages per second a host can send a board over its USB UART.
#[derive(Clone, Debug, Serialize)]
pub struct LinkCap {
    pub board: String,
    pub baud: u64,
    /// Bytes of one `WRITE` frame (command, page, framing and CRC).
    pub frame_bytes: u64,
    /// At most: the FTL's and index's requests share the link as well.
    pub pages_per_second: f64,
}

/// One comparison.
#[derive(Clone, Debug, Serialize)]
pub struct PeerBench {
    pub ditto: HardwareRate,
    pub page_sets: Vec<PageSetRun>,
    pub link: LinkCap,
}

/// What `ditto bench peer` runs.
#[derive(Clone, Debug)]
pub struct PeerOptions<'a> {
    /// Pages of each page set, [`MIN_PAGES`] to [`MAX_PAGES`].
    pub pages: usize,
    /// The random set's share of duplicates, in percent.
    pub duplicate_percent: u32,
    /// Full pages per cosimulated stream (at least
    /// [`crate::core_bench::min_stream_pages`]).
    pub stream_pages: usize,
    /// A `ditto synth` report whose Fmax is Ditto's clock.
    pub report: Option<&'a Path>,
    /// A real file, read in 4 KiB pages (the last zero-filled), at most
    /// `pages` of them.
    pub file: Option<&'a Path>,
    pub seed: u64,
}

/// `pages` random pages, `duplicate_percent` of them (on average) one of
/// [`HOT_CONTENTS`] hot contents.
pub fn skewed_pages(pages: usize, duplicate_percent: u32, seed: u64) -> Vec<Box<[u8; PAGE_BYTES]>> {
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
            if rng.gen_ratio(duplicate_percent.min(100), 100) {
                page.copy_from_slice(&hot[rng.gen_range(0..HOT_CONTENTS)]);
            } else {
                rng.fill(&mut page[..]);
            }
            page
        })
        .collect()
}

/// The built-in sample's pages, repeated to `pages` pages.
pub fn sample_pages(pages: usize) -> Vec<Box<[u8; PAGE_BYTES]>> {
    let sample = crate::sample::sample_bytes();
    let one: Vec<&[u8]> = sample.chunks(PAGE_BYTES).collect();
    (0..pages).map(|i| Box::new(<[u8; PAGE_BYTES]>::try_from(one[i % one.len()]).expect("whole pages"))).collect()
}

/// The first `at_most` pages of the file at `path` (the last zero-filled).
pub fn file_pages(path: &Path, at_most: usize) -> Result<Vec<Box<[u8; PAGE_BYTES]>>, HostError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|source| HostError::Read { path: path.into(), source })?;
    let mut reader = std::io::BufReader::new(file).take((at_most * PAGE_BYTES) as u64);
    let mut pages = Vec::new();
    loop {
        let mut page = Box::new([0u8; PAGE_BYTES]);
        let mut filled = 0;
        while filled < PAGE_BYTES {
            match reader.read(&mut page[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(source) => return Err(HostError::Read { path: path.into(), source }),
            }
        }
        if filled == 0 {
            break;
        }
        pages.push(page);
        if filled < PAGE_BYTES {
            break;
        }
    }
    Ok(pages)
}

/// One thread's share: each distinct content and the first page holding it.
fn dedup_share(pages: &[Box<[u8; PAGE_BYTES]>], first_index: usize) -> HashMap<[u8; 20], u32> {
    let mut first_holder: HashMap<[u8; 20], u32> = HashMap::with_capacity(pages.len());
    for (i, page) in pages.iter().enumerate() {
        let digest: [u8; 20] = Sha1::digest(&page[..]).into();
        first_holder.entry(digest).or_insert((first_index + i) as u32);
    }
    first_holder
}

/// One software dedup pass on `threads` threads: the number of distinct
/// contents.
fn software_pass(pages: &[Box<[u8; PAGE_BYTES]>], threads: usize) -> usize {
    if threads <= 1 {
        return dedup_share(pages, 0).len();
    }
    let share = pages.len().div_ceil(threads);
    let maps: Vec<HashMap<[u8; 20], u32>> = std::thread::scope(|scope| {
        let handles: Vec<_> = pages
            .chunks(share)
            .enumerate()
            .map(|(k, chunk)| scope.spawn(move || dedup_share(chunk, k * share)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("a hashing thread does not panic")).collect()
    });
    let mut maps = maps.into_iter();
    let mut merged = maps.next().unwrap_or_default();
    for map in maps {
        for (digest, first) in map {
            // The shares are in page order: an earlier share's holder stays.
            merged.entry(digest).or_insert(first);
        }
    }
    merged.len()
}

/// The software peer over `pages` on `threads` threads: the best of
/// [`PASSES`] timed passes, and the distinct contents it found.
pub fn software_peer(pages: &[Box<[u8; PAGE_BYTES]>], threads: usize) -> (SoftwareRate, usize) {
    let mut best = f64::INFINITY;
    let mut unique = None;
    for _ in 0..PASSES {
        let start = Instant::now();
        let found = std::hint::black_box(software_pass(std::hint::black_box(pages), threads));
        best = best.min(start.elapsed().as_secs_f64());
        assert!(unique.is_none_or(|u| u == found), "a dedup pass found {found} contents, another {unique:?}");
        unique = Some(found);
    }
    let pages_per_second = pages.len() as f64 / best;
    let rate = SoftwareRate {
        threads,
        passes: PASSES,
        seconds: best,
        pages_per_second,
        gigabytes_per_second: pages_per_second * PAGE_BYTES as f64 / 1e9,
    };
    (rate, unique.unwrap_or(0))
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

/// Ditto's `config` against the software peer on each page set of `options`.
pub fn bench_peer(config: &Config, options: &PeerOptions) -> Result<PeerBench, HostError> {
    let pages = options.pages;
    if !(MIN_PAGES..=MAX_PAGES).contains(&pages) {
        return Err(HostError::OutOfRange {
            option: "--pages",
            value: pages as u64,
            allowed: format!("{MIN_PAGES} to {MAX_PAGES}"),
        });
    }
    if options.duplicate_percent > 100 {
        return Err(HostError::OutOfRange {
            option: "--duplicates",
            value: u64::from(options.duplicate_percent),
            allowed: "0 to 100 (percent)".into(),
        });
    }
    crate::core_bench::check_stream_pages(config, options.stream_pages)?;
    let (clock_mhz, clock_source) = match options.report {
        Some(path) => report_clock(path, config)?,
        None => (config.clock_mhz as f64, ClockSource::Configuration),
    };
    // The file is read before the long cosimulation, so a bad one fails first.
    let file = match options.file {
        Some(path) => {
            let read = file_pages(path, pages)?;
            if read.len() < MIN_PAGES {
                return Err(HostError::TooFewPages {
                    min: MIN_PAGES,
                    got: read.len(),
                    why: format!("in {} for a timed software pass (4 MiB at least)", path.display()),
                });
            }
            Some((format!("file {}", path.display()), read))
        }
        None => None,
    };
    let unique = bench_stream(config, true, options.stream_pages, 2)?;
    let duplicate = bench_stream(config, false, options.stream_pages, 2)?;
    let cycles_per_page = unique.cycles_per_page.max(duplicate.cycles_per_page);
    let hw_pages_per_second = clock_mhz * 1e6 / cycles_per_page;

    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut sets = vec![
        (
            format!("random, {}% duplicates", options.duplicate_percent),
            skewed_pages(pages, options.duplicate_percent, options.seed),
        ),
        ("built-in sample, repeated".to_string(), sample_pages(pages)),
    ];
    sets.extend(file);
    let page_sets = sets
        .into_iter()
        .map(|(name, set)| {
            let (one_core, unique_one) = software_peer(&set, 1);
            let (all_cores, unique_all) = software_peer(&set, threads);
            assert_eq!(unique_one, unique_all, "one thread and {threads} found different contents in {name}");
            PageSetRun {
                name,
                pages: set.len(),
                unique_pages: unique_one,
                ditto_over_one_core: hw_pages_per_second / one_core.pages_per_second,
                ditto_over_all_cores: hw_pages_per_second / all_cores.pages_per_second,
                one_core,
                all_cores,
            }
        })
        .collect();
    Ok(PeerBench {
        ditto: HardwareRate {
            config: config.name.into(),
            lanes: config.lanes,
            cycles_per_page,
            clock_mhz,
            clock_source,
            pages_per_second: hw_pages_per_second,
            gigabytes_per_second: hw_pages_per_second * PAGE_BYTES as f64 / 1e9,
        },
        page_sets,
        link: LinkCap {
            board: "ulx3s-85f".into(),
            baud: ULX3S_LINK_BAUD,
            frame_bytes: WRITE_FRAME_BYTES,
            pages_per_second: ULX3S_LINK_BAUD as f64 / (BITS_PER_BYTE * WRITE_FRAME_BYTES) as f64,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_set_is_skewed_and_a_pass_counts_its_contents() {
        let pages = skewed_pages(2_000, 25, 7);
        let mut distinct: Vec<&[u8; PAGE_BYTES]> = pages.iter().map(|p| &**p).collect();
        distinct.sort();
        distinct.dedup();
        // About 500 of the pages are one of eight hot contents.
        let hot_copies = pages.len() - distinct.len();
        assert!((400..600).contains(&hot_copies), "{hot_copies} hot copies");
        assert_eq!(software_pass(&pages, 1), distinct.len());
        // Shares of any size find the same contents, the last share short.
        for threads in [2, 3, 7] {
            assert_eq!(software_pass(&pages, threads), distinct.len(), "{threads} threads");
        }
        assert_eq!(skewed_pages(100, 0, 1).iter().collect::<std::collections::HashSet<_>>().len(), 100);
        assert_eq!(software_pass(&skewed_pages(1_000, 100, 1), 2), HOT_CONTENTS);
    }

    #[test]
    fn the_sample_and_a_file_are_read_in_whole_pages() {
        let sample = sample_pages(40);
        assert_eq!(software_pass(&sample, 2), crate::sample::SAMPLE_DISTINCT);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let mut bytes = vec![7u8; 2 * PAGE_BYTES + 5];
        bytes[PAGE_BYTES] = 1;
        std::fs::write(&path, &bytes).unwrap();
        let pages = file_pages(&path, 10).unwrap();
        assert_eq!(pages.len(), 3);
        assert_eq!(pages[2][..5], [7; 5]);
        assert!(pages[2][5..].iter().all(|&b| b == 0), "the last page is zero-filled");
        assert_eq!(file_pages(&path, 1).unwrap().len(), 1, "at most as many pages as asked");
        let missing = file_pages(&dir.path().join("none"), 1).unwrap_err();
        assert!(matches!(missing, HostError::Read { .. }), "{missing}");
    }

    #[test]
    fn the_link_cap_is_the_uart_over_a_write_frame() {
        // 5 + 24 + 4,096 + 4 bytes, 10 bits each, at 3 Mbaud: about 73 pages/s.
        assert_eq!(WRITE_FRAME_BYTES, 4_129);
        let cap = ULX3S_LINK_BAUD as f64 / (BITS_PER_BYTE * WRITE_FRAME_BYTES) as f64;
        assert!((72.0..73.0).contains(&cap), "{cap}");
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
        let options = |pages, duplicate_percent| PeerOptions {
            pages,
            duplicate_percent,
            stream_pages: 12,
            report: None,
            file: None,
            seed: 1,
        };
        for pages in [0, MIN_PAGES - 1, MAX_PAGES + 1] {
            let err = bench_peer(cu, &options(pages, 25)).unwrap_err();
            assert!(matches!(err, HostError::OutOfRange { option: "--pages", .. }), "{err}");
        }
        let err = bench_peer(cu, &options(MIN_PAGES, 101)).unwrap_err();
        assert!(matches!(err, HostError::OutOfRange { option: "--duplicates", .. }), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small");
        std::fs::write(&small, vec![1u8; 10 * PAGE_BYTES]).unwrap();
        let err = bench_peer(cu, &PeerOptions { file: Some(&small), ..options(MIN_PAGES, 25) }).unwrap_err();
        assert!(matches!(err, HostError::TooFewPages { got: 10, .. }), "{err}");
    }

    /// A cosimulated stream too short for the lanes to reach their steady
    /// state is refused before the page sets are made: for `large`'s
    /// twenty lanes the old default of 64 pages is too few.
    #[test]
    fn a_stream_too_short_for_the_lanes_is_refused_up_front() {
        let large = &ditto_hw::config::LARGE;
        let min = crate::core_bench::min_stream_pages(large);
        assert_eq!(min, 8 * 20 + 4);
        assert!(crate::core_bench::default_stream_pages(large) >= min);
        assert_eq!(crate::core_bench::default_stream_pages(&ditto_hw::config::CU), 64);
        let options = PeerOptions {
            pages: MIN_PAGES,
            duplicate_percent: 25,
            stream_pages: 64,
            report: None,
            file: None,
            seed: 1,
        };
        let err = bench_peer(large, &options).unwrap_err();
        assert!(matches!(err, HostError::TooFewPages { min: 164, got: 64, .. }), "{err}");
    }
}
