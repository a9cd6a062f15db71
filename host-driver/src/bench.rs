//! `ditto bench hasher`: steady-state figures of each configuration's hasher,
//! measured in cosimulation of the emitted Verilog.
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
    /// The limit: 5,200 / lanes, or 1,024 (the 32-bit port), whichever is larger.
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
    let min_pages = 4 * config.lanes + 2;
    if pages < min_pages {
        return Err(HostError::InvalidArgument(format!(
            "at least {min_pages} pages are needed to reach the steady state of {} lane(s), got {pages}",
            config.lanes
        )));
    }
    let mut rng = ditto_sim::testkit::rng(seed);
    let data: Vec<[u8; 4096]> = (0..pages).map(|_| ditto_sim::testkit::random_page(&mut rng)).collect();
    let mut sim = HasherSim::new(config)?;
    let start_cycles = sim.model_mut().cycles();
    let started = Instant::now();
    let run = sim.hash_verified(&data, Stalls::NONE, &format!("bench_hasher_{}", config.name))?;
    let wall = started.elapsed().as_secs_f64();
    let simulated = sim.model_mut().cycles() - start_cycles;
    // Steady state: the second half of the run (the lanes and their FIFOs
    // have filled up by then), over a whole number of rounds of the lanes.
    let span = ((pages - 1 - pages / 2) / config.lanes).max(1) * config.lanes;
    let skip = pages - 1 - span;
    let steady = (run.timing[pages - 1].digest - run.timing[skip].digest) as f64 / (pages - 1 - skip) as f64;
    Ok(HasherBench {
        config: config.name.to_string(),
        lanes: config.lanes,
        pages,
        steady_cycles_per_page: steady,
        steady_cycles_per_block: steady / ditto_hw::sha1::BLOCKS_PER_PAGE as f64,
        limit_cycles_per_page: config.hasher_cycles_per_page_limit(),
        latency_cycles: run.timing[0].digest - run.timing[0].first_word,
        sim_cycles_per_second: simulated as f64 / wall,
        verilog_lines: ditto_sim::model_verilog_lines(&format!("hasher_{}", config.name)).unwrap_or(0),
    })
}
