//! `ditto bench core`: figures of the whole core (hasher, index, FTL) in
//! cosimulation of the emitted Verilog, every run checked response by
//! response against the golden model (a bench never reports a figure from a
//! run that went wrong).
//!
//! Runs (one JSON object each):
//! - `all-unique` / `all-duplicate`: full-page `WRITE`s streamed as fast as
//!   the core takes them; steady-state cycles per page against the SHA-1
//!   limit, write latency (last word of a page in -> response out), and
//!   the latency of a lone `TRIM` that frees its page.
//! - `dedup-d8-array-wide` / `dedup-d8-device-local`: one seeded workload of
//!   `WRITE_FP`s with shared contents on 8 devices, in both modes.
//! - `gc-heavy`: random overwrites of unique contents on a nearly full
//!   device: write amplification.
//!
//! Each object also carries the metadata bits per logical and per physical
//! page of Ditto's tables and of a dm-dedup layout over a page-mapped FTL.
use crate::HostError;
use ditto_hw::ftl::flash::Geometry;
use ditto_hw::ftl::{Op, Stat, Status};
use ditto_hw::Config;
use ditto_sim::ditto_core::{workload, CoreRun, CoreSetup, CoreSim, HostTraffic, Job};
use ditto_sim::index::MemTiming;
use rand::Rng;
use serde::Serialize;

/// Metadata bits of one design, per logical page and per physical page.
#[derive(Clone, Debug, Serialize)]
pub struct MetadataBits {
    pub per_logical_page: f64,
    pub per_physical_page: f64,
}

/// Ditto's tables against a dedup layer with its own map above an FTL.
#[derive(Clone, Debug, Serialize)]
pub struct Metadata {
    /// Flash pages per erase block (block counters are shared by a block).
    pub pages_per_block: u32,
    /// L2P; page records, reverse map, free-id stack, block counts; index
    /// entry records, index ways, full fingerprints and bucket metadata.
    pub ditto: MetadataBits,
    /// dm-dedup's key/value sizes (LBN 64 -> PBN 64; SHA-1 160 -> PBN 64;
    /// 32-bit refcount per PBN) over a page-mapped FTL (32-bit L2P and
    /// reverse map).
    pub dm_dedup_over_ftl: MetadataBits,
}

/// The metadata bits of both designs for flash blocks of `pages_per_block`.
pub fn metadata(pages_per_block: u32) -> Metadata {
    use ditto_hw::ftl::{ADDR_BITS, REFCOUNT_BITS, VERSION_BITS};
    use ditto_hw::index::{ENTRY_BITS, REFCOUNT_BITS as IDX_RC, SIG_BITS, TABLE_DATA_BITS, WAYS};
    let l2p = 1 + ADDR_BITS;
    let page = REFCOUNT_BITS + VERSION_BITS + 1 + ENTRY_BITS + ADDR_BITS;
    let rev = ADDR_BITS;
    let pid_stack = ADDR_BITS;
    let block = 17.0 / pages_per_block as f64;
    let entry = 2 + VERSION_BITS + ADDR_BITS;
    let index = SIG_BITS + IDX_RC + 160;
    let bucket = TABLE_DATA_BITS as f64 / WAYS as f64;
    Metadata {
        pages_per_block,
        ditto: MetadataBits {
            per_logical_page: l2p as f64,
            per_physical_page: (page + rev + pid_stack + entry + index) as f64 + block + bucket,
        },
        dm_dedup_over_ftl: MetadataBits {
            per_logical_page: (64 + 64 + 32) as f64,
            per_physical_page: (160 + 64 + 32 + 32) as f64,
        },
    }
}

/// One run's figures.
#[derive(Clone, Debug, Serialize)]
pub struct CoreBench {
    pub config: String,
    pub lanes: usize,
    pub stream: String,
    /// Pages (or writes) in the run.
    pub pages: usize,
    /// Cycles of the whole run.
    pub cycles: u64,
    /// Steady-state cycles per page (streams of full pages; else the run's average).
    pub cycles_per_page: f64,
    /// The SHA-1 limit of the configuration (streams of full pages).
    pub limit_cycles_per_page: Option<f64>,
    /// How far above the limit the steady state is, in percent.
    pub over_limit_percent: Option<f64>,
    /// Mean over the steady pages: last word of a page in -> response out.
    pub write_latency_cycles: Option<f64>,
    /// A lone `WRITE` (pipeline empty): last word in -> response out.
    pub lone_write_latency_cycles: Option<u64>,
    /// A lone `TRIM` of a page's last reference: command taken -> response out.
    pub trim_latency_cycles: Option<u64>,
    /// Read latency of the memories (index table, fingerprints, FTL) in cycles.
    pub memory_latency: u64,
    pub devices: u32,
    pub writes: u32,
    pub unique_writes: u32,
    pub duplicate_writes: u32,
    /// Duplicate writes over all writes (the writes dedup removed).
    pub dedup_ratio: f64,
    /// Flash page writes (stored pages and relocations) over host page writes.
    pub write_amplification: f64,
    pub relocations: u32,
    pub erases: u32,
    pub metadata: Metadata,
}

fn check(r: Result<CoreRun, ditto_sim::ditto_core::CoreError>) -> Result<CoreRun, HostError> {
    r.map_err(|e| HostError::CoreCosim(Box::new(e)))
}

fn setup(devices: u32, blocks: u32, pages: u32, reserve: u32, lpas: u32, array_wide: bool, latency: u64) -> CoreSetup {
    CoreSetup {
        lpas,
        geometry: Geometry { devices, blocks_per_device: blocks, pages_per_block: pages, reserve_blocks: reserve },
        array_wide,
        bloom: true,
        refcount_max: ditto_hw::ftl::REFCOUNT_MAX,
        memory: MemTiming::fixed(latency),
        nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
    }
}

fn with_tags(mut jobs: Vec<Job>) -> Vec<Job> {
    for (i, j) in jobs.iter_mut().enumerate() {
        j.cmd.tag = i as u8;
    }
    jobs
}

/// Runs `jobs` on a fresh core of `config`, checked; returns the run and the counters.
fn run_checked(config: &Config, s: CoreSetup, jobs: &[Job]) -> Result<(CoreRun, [u32; 12]), HostError> {
    let mut model = ditto_sim::Model::new(&ditto_sim::ditto_core::model_name(config))?;
    let mut sim = CoreSim::attach(&mut model, config, s)?;
    let mut golden = sim.golden();
    let run = check(sim.run_checked(&mut golden, jobs, HostTraffic::FULL_SPEED))?;
    Ok((run, sim.counters()))
}

fn figures(
    config: &Config,
    stream: &str,
    s: &CoreSetup,
    pages: usize,
    run: &CoreRun,
    counters: [u32; 12],
    cycles_per_page: f64,
) -> CoreBench {
    let c = |s: Stat| counters[s as usize];
    let flash_writes = c(Stat::UniqueWrites) + c(Stat::Relocations);
    CoreBench {
        config: config.name.to_string(),
        lanes: config.lanes,
        stream: stream.to_string(),
        pages,
        cycles: run.cycles,
        cycles_per_page,
        limit_cycles_per_page: None,
        over_limit_percent: None,
        write_latency_cycles: None,
        lone_write_latency_cycles: None,
        trim_latency_cycles: None,
        memory_latency: s.memory.latency,
        devices: s.geometry.devices,
        writes: c(Stat::Writes),
        unique_writes: c(Stat::UniqueWrites),
        duplicate_writes: c(Stat::DuplicateWrites),
        dedup_ratio: c(Stat::DuplicateWrites) as f64 / c(Stat::Writes).max(1) as f64,
        write_amplification: flash_writes as f64 / c(Stat::Writes).max(1) as f64,
        relocations: c(Stat::Relocations),
        erases: c(Stat::Erases),
        metadata: metadata(s.geometry.pages_per_block),
    }
}

/// Full pages a stream of `config` needs: eight rounds of its lanes and a
/// few, so its second half (the one measured) is steady.
pub fn min_stream_pages(config: &Config) -> usize {
    8 * config.lanes + 4
}

/// Full pages per stream when none are asked for: 64, or
/// [`min_stream_pages`] where that is more.
pub fn default_stream_pages(config: &Config) -> usize {
    min_stream_pages(config).max(64)
}

/// `pages` if given, else [`default_stream_pages`] of `config`.
pub fn stream_pages_or_default(pages: Option<usize>, config: &Config) -> usize {
    pages.unwrap_or_else(|| default_stream_pages(config))
}

/// Refuses a stream of `pages` too short for `config`'s lanes.
pub fn check_stream_pages(config: &Config, pages: usize) -> Result<(), HostError> {
    let min = min_stream_pages(config);
    if pages < min {
        return Err(HostError::TooFewPages { min, got: pages, why: format!("for `{}`'s lanes", config.name) });
    }
    Ok(())
}

/// A stream of `pages` full-page `WRITE`s (all different, or all the same
/// content), then a lone `WRITE` and a lone `TRIM`.
pub fn bench_stream(config: &Config, unique: bool, pages: usize, latency: u64) -> Result<CoreBench, HostError> {
    check_stream_pages(config, pages)?;
    let lpas = pages as u32 + 2;
    let s = setup(1, 64, 64, 2, lpas, true, latency);
    let content = |i: usize| if unique { i as u32 } else { 0 };
    let jobs = with_tags((0..pages).map(|i| workload::job(Op::Write, 0, i as u32, content(i))).collect());
    let mut model = ditto_sim::Model::new(&ditto_sim::ditto_core::model_name(config))?;
    let mut sim = CoreSim::attach(&mut model, config, s)?;
    let mut golden = sim.golden();
    let run = check(sim.run_checked(&mut golden, &jobs, HostTraffic::FULL_SPEED))?;
    let want = if unique { Status::Unique } else { Status::Duplicate };
    if run.responses[1..].iter().any(|r| r.status != want) {
        return Err(HostError::StreamNotAll(want));
    }
    // Steady state: the second half, over a whole number of rounds of the lanes.
    let span = ((pages - 1 - pages / 2) / config.lanes).max(1) * config.lanes;
    let skip = pages - 1 - span;
    let steady = (run.answered_at[pages - 1] - run.answered_at[skip]) as f64 / span as f64;
    let latencies: Vec<u64> =
        (skip + 1..pages).map(|i| run.answered_at[i] - run.page_done_at[i].expect("a WRITE's page")).collect();
    // A lone WRITE and a lone TRIM of the page's last reference.
    let lone = check(sim.run_checked(
        &mut golden,
        &with_tags(vec![workload::job(Op::Write, 0, lpas - 1, 1 << 20)]),
        HostTraffic::FULL_SPEED,
    ))?;
    let trim = check(sim.run_checked(
        &mut golden,
        &with_tags(vec![workload::job(Op::Trim, 0, lpas - 1, 0)]),
        HostTraffic::FULL_SPEED,
    ))?;
    let mut b =
        figures(config, if unique { "all-unique" } else { "all-duplicate" }, &s, pages, &run, sim.counters(), steady);
    let limit = config.hasher_cycles_per_page_limit();
    b.limit_cycles_per_page = Some(limit);
    b.over_limit_percent = Some((steady / limit - 1.0) * 100.0);
    b.write_latency_cycles = Some(latencies.iter().sum::<u64>() as f64 / latencies.len() as f64);
    b.lone_write_latency_cycles = Some(lone.answered_at[0] - lone.page_done_at[0].expect("a WRITE's page"));
    b.trim_latency_cycles = Some(trim.answered_at[0] - trim.taken_at[0]);
    Ok(b)
}

/// Writes with shared contents on 8 devices: array-wide, then device-local.
pub fn bench_dedup_scope(config: &Config, writes: usize, seed: u64) -> Result<Vec<CoreBench>, HostError> {
    let mut rng = ditto_sim::testkit::rng(seed);
    let lpas = writes as u32;
    // Each content is written 1 to 4 times, to random LPAs (so random homes).
    let mut contents = Vec::new();
    let mut c = 0u32;
    while contents.len() < writes {
        for _ in 0..rng.gen_range(1..=4) {
            contents.push(c);
        }
        c += 1;
    }
    contents.truncate(writes);
    let mut order: Vec<u32> = (0..lpas).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.gen_range(0..=i));
    }
    let jobs = with_tags(order.iter().zip(&contents).map(|(&lpa, &c)| workload::job(Op::WriteFp, 0, lpa, c)).collect());
    let mut out = Vec::new();
    for array_wide in [true, false] {
        let s = setup(8, 16, 64, 2, lpas, array_wide, 2);
        let (run, counters) = run_checked(config, s, &jobs)?;
        let name = if array_wide { "dedup-d8-array-wide" } else { "dedup-d8-device-local" };
        out.push(figures(config, name, &s, writes, &run, counters, run.cycles as f64 / writes as f64));
    }
    Ok(out)
}

/// Random overwrites of unique contents on one device kept 80% full.
pub fn bench_gc(config: &Config, writes: usize, seed: u64) -> Result<CoreBench, HostError> {
    let mut rng = ditto_sim::testkit::rng(seed);
    let s = setup(1, 32, 16, 2, 384, true, 2);
    let jobs =
        with_tags((0..writes).map(|i| workload::job(Op::WriteFp, 0, rng.gen_range(0..s.lpas), i as u32)).collect());
    let (run, counters) = run_checked(config, s, &jobs)?;
    Ok(figures(config, "gc-heavy", &s, writes, &run, counters, run.cycles as f64 / writes as f64))
}

/// Every run for `config`.
pub fn core_suite(config: &Config, pages: usize, latency: u64, seed: u64) -> Result<Vec<CoreBench>, HostError> {
    let mut out = vec![bench_stream(config, true, pages, latency)?, bench_stream(config, false, pages, latency)?];
    out.extend(bench_dedup_scope(config, 4_000, seed)?);
    out.push(bench_gc(config, 6_000, seed)?);
    Ok(out)
}
