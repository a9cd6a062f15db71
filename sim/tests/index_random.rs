//! Seeded random cosimulation of each configuration's fingerprint index,
//! response by response against the golden model: duplicate-rich mixes, an
//! all-new stream that fills the table to 100% and beyond, heavy DEREF churn,
//! hot buckets that make the lock table serialize, same-fingerprint races;
//! random stalls on every handshake and random memory latencies. A failure
//! prints the seed and writes a waveform of its last cycles.
use ditto_hw::config::{CU, LARGE};
use ditto_hw::index::model::IndexModel;
use ditto_hw::index::Status;
use ditto_hw::Config;
use ditto_sim::index::{model_name, workload, IndexSetup, IndexSim, MemTiming, Traffic};
use ditto_sim::testkit::{cosim, rng, seed};
use rand::Rng;
use std::collections::BTreeMap;

/// One phase: a workload, with its own stall pattern.
fn phases(
    config: &Config,
    r: &mut rand_chacha::ChaCha8Rng,
    scale: usize,
) -> Vec<(&'static str, Vec<ditto_hw::index::model::Command>)> {
    let capacity = config.index_entries();
    let bb = config.index_bucket_bits;
    vec![
        ("duplicate-rich", workload::duplicate_rich(r, 12 * scale, capacity)),
        ("same-fp-races", workload::same_fp_races(r, 6 * scale)),
        ("all-new to 100% and beyond", workload::all_new(r, capacity * 5 / 2)),
        ("hot buckets", workload::hot_buckets(r, 6 * scale, bb)),
        ("deref churn", workload::deref_churn(r, 12 * scale, capacity)),
        ("duplicate-rich again", workload::duplicate_rich(r, 6 * scale, capacity)),
    ]
}

fn random_timing(r: &mut rand_chacha::ChaCha8Rng) -> MemTiming {
    let latency = if r.gen_bool(0.3) { 1 } else { r.gen_range(2..=80) };
    let ready = if r.gen_bool(0.5) { 1.0 } else { r.gen_range(0.3..1.0) };
    MemTiming { latency, ready }
}

fn random_traffic(r: &mut rand_chacha::ChaCha8Rng) -> Traffic {
    let p = |r: &mut rand_chacha::ChaCha8Rng| if r.gen_bool(0.5) { 1.0 } else { r.gen_range(0.2..1.0) };
    Traffic { cmd_valid: p(r), rsp_ready: p(r), seed: r.gen() }
}

/// Runs every phase on one index (state carried across phases), Bloom
/// filters on, then a shorter run with them off. Returns the commands run
/// and how many responses had each status.
fn run_config(config: &Config, model_name: &str, label: &str, scale: usize) -> (usize, BTreeMap<Status, usize>) {
    let seed = seed(label);
    let total = std::sync::atomic::AtomicUsize::new(0);
    let statuses = std::sync::Mutex::new(BTreeMap::new());
    cosim(label, model_name, |model| {
        statuses.lock().unwrap().clear();
        let mut r = rng(seed);
        for bloom in [true, false] {
            let mut setup = IndexSetup::new(config);
            setup.bloom = bloom;
            // Every FSM with Bloom filters; any number of them without.
            let max = config.index_fsms.trailing_zeros();
            setup.fsm_limit_log2 = if bloom { max } else { r.gen_range(0..=max) };
            setup.table = random_timing(&mut r);
            setup.fingerprints = random_timing(&mut r);
            let mut golden = IndexModel::new(config.index_bucket_bits, bloom);
            let mut sim = IndexSim::attach(model, config, setup).unwrap_or_else(|e| panic!("{e}"));
            let phase_list = phases(config, &mut r, if bloom { scale } else { scale / 4 });
            for (name, commands) in phase_list {
                let traffic = random_traffic(&mut r);
                sim.set_memory_timing(random_timing(&mut r), random_timing(&mut r));
                let fsms = 1 << sim.setup().fsm_limit_log2;
                let run = sim.run_checked(&mut golden, &commands, traffic).unwrap_or_else(|e| {
                    panic!("{label}: phase `{name}` (bloom {bloom}, {fsms} FSMs, {traffic:?}): {e}")
                });
                let mut counts = statuses.lock().unwrap();
                for r in &run.responses {
                    *counts.entry(r.status).or_insert(0) += 1;
                }
                total.fetch_add(commands.len(), std::sync::atomic::Ordering::Relaxed);
            }
            let stats = golden.stats();
            println!("{label}: bloom {bloom}: {stats:?}");
            if bloom {
                assert!(stats.bloom_negatives > 0 && stats.false_positives > 0 && stats.rebuilds > 0, "{stats:?}");
                assert!(stats.signature_misses > 0, "the hot buckets force signature misses: {stats:?}");
            }
        }
    });
    (total.into_inner(), statuses.into_inner().unwrap())
}

/// Every status but `saturated` (a directed test's) must have come up.
fn assert_every_status(label: &str, statuses: &BTreeMap<Status, usize>) {
    use Status::*;
    println!("{label}: {statuses:?}");
    for s in [New, Duplicate, Found, Absent, Kept, Freed, ErrFull, ErrUnknown, ErrMalformed] {
        assert!(statuses.get(&s).copied().unwrap_or(0) > 0, "{label}: no {s:?} response: {statuses:?}");
    }
}

#[test]
fn cu_index_matches_the_golden_model() {
    let (n, statuses) = run_config(&CU, &model_name(&CU), "index_random_cu", 10_000);
    println!("cu: {n} commands");
    assert_every_status("cu", &statuses);
}

#[test]
fn cu_index_with_four_fsms_matches_the_golden_model() {
    // The lock table and held responses against the block-RAM table's timing.
    let config = Config { index_fsms: 4, ..CU };
    let (n, statuses) = run_config(&config, "index_cu_m4", "index_random_cu_m4", 5_000);
    println!("cu with four FSMs: {n} commands");
    assert_every_status("cu, four FSMs", &statuses);
}

#[test]
fn large_index_matches_the_golden_model() {
    let (n, statuses) = run_config(&LARGE, &model_name(&LARGE), "index_random_large", 8_000);
    println!("large: {n} commands");
    assert_every_status("large", &statuses);
}
