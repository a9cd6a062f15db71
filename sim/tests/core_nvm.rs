//! The NVM write cache of seed 003 in the RTL, under Verilator, against the
//! golden model: every response (a new copy's NVM address, a read's page
//! wherever it is), every move before it (GC's copy-outs, write-backs,
//! cooperative drops) in order, the cleaner's steps, the counters, the
//! tables (`PAGE` records with their `in_nvm` bit, each device's pages owed)
//! and every LPA read back from the store the test keeps as a host does.
//!
//! The workload is an overwrite-heavy skewed mix (a few hot LPAs take most
//! writes, hot contents among cold ones) on a small flash with a cache of a
//! few slots, so that every path runs many times in one run: CLOCK sweeps,
//! dirty victims written back through GC on their own device, reads that
//! bring pages in, dirty copies overwritten in the cache, and (cooperative)
//! GC dropping cached pages. The test asserts each of those happened.
use ditto_hw::config::{Config, CU, LARGE};
use ditto_hw::ftl::flash::Geometry;
use ditto_hw::ftl::nvm::{NvmConfig, NvmStats};
use ditto_hw::ftl::Op;
use ditto_sim::ditto_core::{workload, CoreSetup, CoreSim, HostTraffic, Job};
use ditto_sim::index::MemTiming;
use ditto_sim::testkit::{cosim, rng, seed};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Overwrites skewed onto a hot eighth of the LPAs, with reads (a fifth,
/// of any LPA),
/// trims, hot contents (shared copies) among cold ones, some full pages
/// a `SYNC` now and then and a `RESET` about once in 5,000 commands.
fn skewed_overwrites(r: &mut ChaCha8Rng, n: usize, lpas: u32) -> Vec<Job> {
    let hot_lpas = (lpas / 8).max(1);
    (0..n)
        .map(|i| {
            let tag = i as u8;
            let lpa = if r.gen_ratio(3, 4) { r.gen_range(0..hot_lpas) } else { r.gen_range(0..lpas) };
            let content = if r.gen_ratio(1, 5) {
                r.gen_range(0..workload::HOT_CONTENTS)
            } else {
                workload::HOT_CONTENTS + r.gen_range(0..400)
            };
            match r.gen_range(0..100) {
                0..=1 => workload::job(Op::Write, tag, lpa, content),
                2..=66 => workload::job(Op::WriteFp, tag, lpa, content),
                67..=68 => workload::job(Op::WriteUnique, tag, lpa, content),
                // Reads anywhere: cold pages come into the cache, where
                // GC finds them.
                69..=88 => workload::job(Op::Read, tag, r.gen_range(0..lpas), 0),
                89..=97 => workload::job(Op::Trim, tag, lpa, 0),
                _ if r.gen_ratio(1, 50) => workload::job(Op::Reset, tag, 0, 0),
                _ => workload::job(Op::Sync, tag, 0, 0),
            }
        })
        .collect()
}

/// Every path of the cache ran many times.
fn busy(stats: &NvmStats, cooperative: bool) {
    assert!(stats.evictions > 50 && stats.writebacks > 50, "CLOCK evicted and wrote back: {stats:?}");
    assert!(stats.read_fills > 50 && stats.read_hits > 50, "reads brought pages in and hit: {stats:?}");
    assert!(stats.absorbed > 50, "dirty copies were overwritten in the cache: {stats:?}");
    // A drop needs a clean cached copy in the very block GC picks: the
    // fewest in 1,000 seeded runs of the golden model alone was 7.
    if cooperative {
        assert!(stats.gc_drops >= 3, "GC dropped cached pages: {stats:?}");
    } else {
        assert_eq!(stats.gc_drops, 0);
    }
}

/// Runs the skewed workload on `devices` devices of 8 blocks of 8 pages
/// (48 LPAs each) with the cache `nvm`, all checked; `expect` judges the
/// cache's counters, added up over the run.
fn run_cache(
    config: &Config,
    devices: u32,
    array_wide: bool,
    nvm: NvmConfig,
    commands: usize,
    expect: impl Fn(&NvmStats),
) {
    let label =
        format!("core_nvm_{}_{}dev_{}{}", config.name, devices, nvm.slots, if nvm.cooperative { "_coop" } else { "" });
    let seed = seed(&label);
    cosim(&label, &format!("core_{}", config.name), |model| {
        let mut r = rng(seed);
        let setup = CoreSetup {
            lpas: 48 * devices,
            geometry: Geometry { devices, blocks_per_device: 8, pages_per_block: 8, reserve_blocks: 1 },
            array_wide,
            bloom: true,
            refcount_max: r.gen_range(2..=4),
            memory: MemTiming { latency: r.gen_range(1..=6), ready: r.gen_range(0.6..=1.0) },
            nvm,
        };
        let traffic = HostTraffic {
            cmd_valid: r.gen_range(0.5..=1.0),
            page_valid: r.gen_range(0.7..=1.0),
            rsp_ready: r.gen_range(0.5..=1.0),
            mv_ready: r.gen_range(0.5..=1.0),
            seed,
        };
        let mut sim = CoreSim::attach(model, config, setup).unwrap();
        let mut golden = sim.golden();
        let jobs = skewed_overwrites(&mut r, commands, setup.lpas);
        // Run up to each `RESET` (which clears the cache's counters with
        // the rest), adding the cache's counters up as they were before it.
        let mut stats = NvmStats::default();
        let mut moves = 0;
        let mut start = 0;
        while start < jobs.len() {
            let end = jobs[start + 1..]
                .iter()
                .position(|j| j.cmd.op == Op::Reset as u8)
                .map_or(jobs.len(), |i| start + 1 + i);
            let run = sim.run_checked(&mut golden, &jobs[start..end], traffic).unwrap_or_else(|e| panic!("{e}"));
            moves += run.moves.iter().map(Vec::len).sum::<usize>();
            stats += golden.nvm_stats();
            start = end;
        }
        let reads = workload::read_all(setup.lpas, jobs.len());
        sim.run_checked(&mut golden, &reads, traffic).unwrap_or_else(|e| panic!("read-back: {e}"));
        println!("{commands} commands, {moves} moves: {stats:?}, counters {:?}", sim.counters());
        expect(&stats);
    });
}

#[test]
fn cooperative_cache_one_device_large() {
    run_cache(&LARGE, 1, true, NvmConfig { slots: 8, cooperative: true }, 12_000, |s| busy(s, true));
}

#[test]
fn cooperative_cache_one_device_cu() {
    run_cache(&CU, 1, true, NvmConfig { slots: 8, cooperative: true }, 6_000, |s| busy(s, true));
}

#[test]
fn plain_cache_four_devices_device_local_large() {
    run_cache(&LARGE, 4, false, NvmConfig { slots: 9, cooperative: false }, 12_000, |s| busy(s, false));
}

#[test]
fn cooperative_cache_four_devices_array_wide_cu() {
    run_cache(&CU, 4, true, NvmConfig { slots: 24, cooperative: true }, 12_000, |s| busy(s, true));
}

/// One slot: every new copy and every read of a flash page evicts the one
/// page in the cache, which GC may then drop or move as it writes back.
#[test]
fn one_slot_large() {
    run_cache(&LARGE, 2, true, NvmConfig { slots: 1, cooperative: true }, 8_000, |s| {
        assert!(s.evictions > 1_000 && s.writebacks > 500, "{s:?}");
    });
}

/// As many slots as the device has pages (the most `ditto` accepts): no
/// page ever needs the flash, so nothing is evicted or written back.
#[test]
fn a_slot_for_every_page_cu() {
    run_cache(&CU, 1, true, NvmConfig { slots: 64, cooperative: true }, 4_000, |s| {
        assert!(s.writes > 1_000 && s.read_hits > 200, "{s:?}");
        assert_eq!((s.evictions, s.writebacks, s.read_fills, s.gc_drops), (0, 0, 0, 0), "{s:?}");
    });
}
