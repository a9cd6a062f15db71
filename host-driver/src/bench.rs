//! `ditto bench hasher` and `ditto bench wide`: steady-state figures of
//! each configuration's hasher and of the wide hasher, measured in
//! cosimulation of the emitted Verilog.
use crate::HostError;
use ditto_hw::Config;
use ditto_sim::hasher::{HasherSim, Stalls};
use serde::Serialize;
use std::time::Instant;

/// One configuration's hasher figures.
#[derive(Clone, Debug, Serialize)]
pub struct HasherBench {
    pub config: String,
    pub lanes: usize,
    pub pages: usize,
    /// Cycles per page once every lane is busy (exact, from cycle counts).
    pub steady_cycles_per_page: f64,
    /// The same per 64-byte block hashed (65 blocks per page).
    pub steady_cycles_per_block: f64,
    /// The limit: 5,200 / lanes, or the cycles a page takes to cross the
    /// input port (1,024 words; 128 beats for the wide hasher), whichever
    /// is larger.
    pub limit_cycles_per_page: f64,
    /// First word in to digest out of the first page, pipeline empty.
    pub latency_cycles: u64,
    /// Simulated cycles per wall-clock second (machine-dependent).
    pub sim_cycles_per_second: f64,
    /// Lines of Verilog the model was built from.
    pub verilog_lines: usize,
}

/// Hashes `pages` random pages (seeded) through `config`'s hasher with no stalls.
pub fn bench_hasher(config: &Config, pages: usize, seed: u64) -> Result<HasherBench, HostError> {
    check_bench_pages(pages, config.lanes)?;
    measure_hasher(
        HasherSim::new(config)?,
        config.name,
        config.lanes,
        config.hasher_cycles_per_page_limit(),
        pages,
        seed,
    )
}

/// [`bench_hasher`] for the wide hasher of `lanes` lanes
/// ([`ditto_hw::sha1::wide`]), built at run time; its limit is 5,200 /
/// lanes or the 128 beats a page takes on the 256-bit stream.
pub fn bench_wide_hasher(lanes: usize, pages: usize, seed: u64) -> Result<HasherBench, HostError> {
    check_bench_pages(pages, lanes)?;
    let limit = ditto_hw::sha1::cycles_per_page_limit(lanes, ditto_hw::sha1::wide::PAGE_BEATS);
    measure_hasher(HasherSim::wide(lanes)?, "wide", lanes, limit, pages, seed)
}

/// Refuses a hasher benchmark of `pages` too few for `config`'s lanes.
pub fn check_hasher_pages(config: &Config, pages: usize) -> Result<(), HostError> {
    check_bench_pages(pages, config.lanes)
}

fn check_bench_pages(pages: usize, lanes: usize) -> Result<(), HostError> {
    let min_pages = 4 * lanes + 2;
    if pages < min_pages {
        return Err(HostError::TooFewPages {
            min: min_pages,
            got: pages,
            why: format!("to reach the steady state of {lanes} lane(s)"),
        });
    }
    Ok(())
}

fn measure_hasher(
    mut sim: HasherSim,
    name: &str,
    lanes: usize,
    limit: f64,
    pages: usize,
    seed: u64,
) -> Result<HasherBench, HostError> {
    let mut rng = ditto_sim::testkit::rng(seed);
    let data: Vec<[u8; 4096]> = (0..pages).map(|_| ditto_sim::testkit::random_page(&mut rng)).collect();
    let start_cycles = sim.model_mut().cycles();
    let started = Instant::now();
    let run = sim.hash_verified(&data, Stalls::NONE, &format!("bench_hasher_{name}_{lanes}"))?;
    let wall = started.elapsed().as_secs_f64();
    let simulated = sim.model_mut().cycles() - start_cycles;
    // Steady state: the second half of the run (the lanes and their FIFOs
    // have filled up by then), over a whole number of rounds of the lanes.
    let span = ((pages - 1 - pages / 2) / lanes).max(1) * lanes;
    let skip = pages - 1 - span;
    let steady = (run.timing[pages - 1].digest - run.timing[skip].digest) as f64 / (pages - 1 - skip) as f64;
    Ok(HasherBench {
        config: name.to_string(),
        lanes,
        pages,
        steady_cycles_per_page: steady,
        steady_cycles_per_block: steady / ditto_hw::sha1::BLOCKS_PER_PAGE as f64,
        limit_cycles_per_page: limit,
        latency_cycles: run.timing[0].digest - run.timing[0].first_word,
        sim_cycles_per_second: simulated as f64 / wall,
        verilog_lines: sim.model_mut().verilog_lines(),
    })
}

/// One run of the fingerprint index benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct IndexBench {
    pub config: String,
    /// Latency of both memory ports (table and full fingerprints), in cycles.
    pub latency_cycles: u64,
    /// Lookup FSMs at work.
    pub fsms: usize,
    /// `uniform` (table half full, fingerprints drawn from twice the entries
    /// present: half duplicates, half new), `all-new-90` (table at least 90%
    /// full, every fingerprint new) or `duplicates-only` (the same table, every
    /// fingerprint present).
    pub workload: String,
    pub bloom: bool,
    /// INSERT commands measured.
    pub commands: usize,
    /// Cycles from the first command offered to the last response taken.
    pub cycles: u64,
    pub commands_per_kcycle: f64,
    /// Entries in use before the measured commands, as a fraction of the table.
    pub fill_before: f64,
    /// How the measured commands were answered.
    pub statuses: std::collections::BTreeMap<String, usize>,
    /// Statistics of the measured commands alone.
    pub bloom_negatives: u32,
    pub false_positives: u32,
    pub rebuilds: u32,
    pub signature_misses: u32,
    /// Mean cycles from a command taken to its response leaving.
    pub mean_latency_cycles: f64,
}

/// The index workloads `bench_index` knows.
pub const INDEX_WORKLOADS: &[&str] = &["uniform", "all-new-90", "duplicates-only"];

/// Runs `commands` INSERTs of `workload` through `config`'s index with
/// `fsms` FSMs and memories of `latency` cycles, every response checked
/// against the golden model. The table is first filled (at latency 1, not
/// measured) to half (`uniform`) or at least 90% (the others).
pub fn bench_index(
    config: &Config,
    workload: &str,
    fsms: usize,
    bloom: bool,
    latency: u64,
    commands: usize,
    seed: u64,
) -> Result<IndexBench, HostError> {
    use ditto_hw::index::model::{Command, IndexModel};
    use ditto_hw::index::Op;
    use ditto_sim::index::{model_name, workload as wl, IndexSetup, IndexSim, MemTiming, Traffic};
    use rand::Rng;
    if !INDEX_WORKLOADS.contains(&workload) {
        return Err(HostError::UnknownName {
            kind: "workload",
            name: workload.to_string(),
            known: INDEX_WORKLOADS.join(", "),
        });
    }
    if !fsms.is_power_of_two() || fsms > config.index_fsms {
        return Err(HostError::OutOfRange {
            option: "--fsms",
            value: fsms as u64,
            allowed: format!("a power of two up to {} for `{}`", config.index_fsms, config.name),
        });
    }
    let mut rng = ditto_sim::testkit::rng(seed);
    let mut model = ditto_sim::Model::new(&model_name(config))?;
    let mut setup = IndexSetup::new(config);
    setup.bloom = bloom;
    setup.fsm_limit_log2 = fsms.trailing_zeros();
    let mut sim = IndexSim::attach(&mut model, config, setup)?;
    let mut golden = IndexModel::new(config.index_bucket_bits, bloom);
    let capacity = config.index_entries();
    let target = if workload == "uniform" { capacity / 2 } else { capacity * 9 / 10 };
    let mut present = Vec::new();
    while (golden.stats().entries_used as usize) < target {
        let batch = ((target - golden.stats().entries_used as usize) / 2).max(64);
        let fill = wl::all_new(&mut rng, batch);
        let run = sim.run_checked(&mut golden, &fill, Traffic::FULL_SPEED).map_err(index_error)?;
        present.extend(
            fill.iter()
                .zip(&run.responses)
                .filter(|(_, r)| r.status == ditto_hw::index::Status::New)
                .map(|(c, _)| c.fp),
        );
    }
    let fill_before = golden.stats().entries_used as f64 / capacity as f64;
    let fps: Vec<_> = match workload {
        "uniform" => (0..commands)
            .map(|_| if rng.gen_bool(0.5) { present[rng.gen_range(0..present.len())] } else { wl::random_fp(&mut rng) })
            .collect(),
        "all-new-90" => (0..commands).map(|_| wl::random_fp(&mut rng)).collect(),
        _ => (0..commands).map(|_| present[rng.gen_range(0..present.len())]).collect(),
    };
    let measured = wl::tag(fps.into_iter().map(|fp| Command::with_fp(Op::Insert, fp, 0)).collect());
    sim.set_memory_timing(MemTiming::fixed(latency), MemTiming::fixed(latency));
    let before = sim.stats();
    let run = sim.run_checked(&mut golden, &measured, Traffic::FULL_SPEED).map_err(index_error)?;
    let after = sim.stats();
    let mut statuses = std::collections::BTreeMap::new();
    for r in &run.responses {
        *statuses.entry(format!("{:?}", r.status)).or_insert(0) += 1;
    }
    Ok(IndexBench {
        config: config.name.to_string(),
        latency_cycles: latency,
        fsms,
        workload: workload.to_string(),
        bloom,
        commands,
        cycles: run.cycles,
        commands_per_kcycle: commands as f64 * 1000.0 / run.cycles as f64,
        fill_before,
        statuses,
        bloom_negatives: after.bloom_negatives - before.bloom_negatives,
        false_positives: after.false_positives - before.false_positives,
        rebuilds: after.rebuilds - before.rebuilds,
        signature_misses: after.signature_misses - before.signature_misses,
        mean_latency_cycles: run.answered_at.iter().zip(&run.taken_at).map(|(a, t)| (a - t) as f64).sum::<f64>()
            / commands as f64,
    })
}

fn index_error(e: ditto_sim::index::IndexError) -> HostError {
    HostError::IndexCosim(Box::new(e))
}

/// The runs behind the README's index figures: throughput against FSMs
/// (uniform, latency 64), then the worst case (all new, table 90% full) with
/// and without Bloom filters against the best case (duplicates only).
pub fn index_suite(config: &Config, latency: u64, commands: usize, seed: u64) -> Result<Vec<IndexBench>, HostError> {
    let mut runs = Vec::new();
    let mut fsms = 1;
    while fsms <= config.index_fsms {
        runs.push(bench_index(config, "uniform", fsms, true, latency, commands, seed)?);
        fsms *= 2;
    }
    let m = config.index_fsms;
    runs.push(bench_index(config, "duplicates-only", m, true, latency, commands, seed)?);
    runs.push(bench_index(config, "all-new-90", m, true, latency, commands, seed)?);
    runs.push(bench_index(config, "all-new-90", m, false, latency, commands, seed)?);
    Ok(runs)
}

/// Capacity of a configuration's fingerprint index and what its table costs.
#[derive(Clone, Debug, Serialize)]
pub struct IndexCapacity {
    pub config: String,
    /// Entries (pages) the index holds.
    pub entries: usize,
    /// Buckets of eight entries.
    pub buckets: usize,
    /// Where the table lives.
    pub table: String,
    /// The index alone (`ditto_<config>_index.v`) after Yosys `synth_ice40`.
    pub ebrs: u64,
    pub luts: u64,
    pub dffs: u64,
    /// On-chip bits per entry: signature, refcount, and the bucket's Bloom
    /// filter and occupancy shared by its eight ways.
    pub on_chip_bits_per_entry: f64,
}

/// Synthesizes `config`'s index alone with Yosys and reports its capacity.
pub fn index_capacity(config: &Config) -> Result<IndexCapacity, HostError> {
    use ditto_hw::index::{BLOOM_BITS, REFCOUNT_BITS, SIG_BITS, WAYS};
    let stats = ditto_synth::check_synthesizable(&ditto_hw::config::index_verilog(config), "top")?;
    Ok(IndexCapacity {
        config: config.name.to_string(),
        entries: config.index_entries(),
        buckets: 1 << config.index_bucket_bits,
        table: if config.index_table_on_chip { "block RAM".into() } else { "external memory port".into() },
        ebrs: stats.ebrs,
        luts: stats.luts,
        dffs: stats.dffs,
        on_chip_bits_per_entry: (SIG_BITS + REFCOUNT_BITS) as f64 + (BLOOM_BITS + WAYS) as f64 / WAYS as f64,
    })
}
