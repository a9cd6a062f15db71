//! The whole core under Verilator against the golden model, on seeded random
//! command streams: every response, every relocation before it, the
//! background cleaner's steps where they happened, then the counters, the
//! model's own invariants (reference counts add up) and the data: every LPA
//! reads back the content last written to it from the backing store the test
//! keeps by doing what a host does with each response.
//!
//! `core_large` (twenty SHA-1 lanes on a 256-bit stream, eight lookup FSMs): about 205,000
//! commands per run, 5,000 of them full-page `WRITE`s. `core_cu` (one lane,
//! one FSM, the FTL controller's requests staged): about 45,000 commands,
//! 1,000 of them full pages.
use ditto_hw::config::{Config, CU, LARGE};
use ditto_hw::ftl::flash::Geometry;
use ditto_hw::ftl::{Op, Status};
use ditto_sim::ditto_core::{workload, CoreRun, CoreSetup, CoreSim, HostTraffic, Job};
use ditto_sim::index::MemTiming;
use ditto_sim::testkit::{cosim, rng, seed};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;

fn setup(devices: u32, blocks: u32, pages: u32, lpas: u32, array_wide: bool, r: &mut ChaCha8Rng) -> CoreSetup {
    CoreSetup {
        lpas,
        geometry: Geometry { devices, blocks_per_device: blocks, pages_per_block: pages, reserve_blocks: 1 },
        array_wide,
        bloom: true,
        // Small enough that the hot contents saturate in every run.
        refcount_max: r.gen_range(2..=4),
        memory: MemTiming { latency: r.gen_range(1..=6), ready: r.gen_range(0.6..=1.0) },
        nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
    }
}

fn traffic(r: &mut ChaCha8Rng, seed: u64) -> HostTraffic {
    HostTraffic {
        cmd_valid: r.gen_range(0.5..=1.0),
        page_valid: r.gen_range(0.7..=1.0),
        rsp_ready: r.gen_range(0.5..=1.0),
        mv_ready: r.gen_range(0.5..=1.0),
        seed,
    }
}

/// Runs `jobs`, then reads every LPA back, all checked; returns the run of
/// the jobs and the counters after it.
fn check(sim: &mut CoreSim<&mut ditto_sim::Model>, jobs: &[Job], traffic: HostTraffic) -> CoreRun {
    let mut golden = sim.golden();
    let run = sim.run_checked(&mut golden, jobs, traffic).unwrap_or_else(|e| panic!("{e}"));
    let reads = workload::read_all(sim.setup().lpas, jobs.len());
    sim.run_checked(&mut golden, &reads, traffic).unwrap_or_else(|e| panic!("read-back: {e}"));
    let full_pages = jobs.iter().filter(|j| j.page.is_some()).count();
    let statuses: HashSet<Status> = run.responses.iter().map(|r| r.status).collect();
    let saturated = run.responses.iter().filter(|r| r.flags & ditto_hw::ftl::flag::SATURATED != 0).count();
    println!(
        "{} jobs ({full_pages} full pages, refcount limit {}): statuses {statuses:?}, {saturated} saturated writes, \
         counters {:?}",
        jobs.len(),
        sim.setup().refcount_max,
        sim.counters()
    );
    assert!(saturated > 0, "the hot contents reach the reference-count limit");
    run
}

/// Relocations over the whole run (the counters restart at each `RESET`).
fn relocations(run: &CoreRun) -> usize {
    run.moves.iter().map(Vec::len).sum()
}

fn statuses(run: &CoreRun) -> HashSet<Status> {
    run.responses.iter().map(|r| r.status).collect()
}

fn one_device_gc_heavy(config: &Config, commands: usize, min_relocations: usize) {
    let label = format!("core_random_one_device_{}", config.name);
    let seed = seed(&label);
    cosim(&label, &format!("core_{}", config.name), |model| {
        let mut r = rng(seed);
        let s = setup(1, 16, 8, 96, true, &mut r);
        let mut sim = CoreSim::attach(model, config, s).unwrap();
        let jobs = workload::mixed(&mut r, commands, s.lpas, 150, 10);
        let run = check(&mut sim, &jobs, traffic(&mut r, seed));
        assert!(relocations(&run) > min_relocations, "GC relocated live pages");
        let seen = statuses(&run);
        for s in
            [Status::Unique, Status::Duplicate, Status::Mapped, Status::Unmapped, Status::Trimmed, Status::ErrRange]
        {
            assert!(seen.contains(&s), "{s:?} never seen");
        }
        assert!(run.responses.iter().any(|r| r.flags & ditto_hw::ftl::flag::STALE != 0), "a stale hit is flagged");
    });
}

#[test]
fn one_device_gc_heavy_large() {
    one_device_gc_heavy(&LARGE, 60_000, 1_000);
}

#[test]
fn one_device_gc_heavy_cu() {
    one_device_gc_heavy(&CU, 20_000, 300);
}

#[test]
fn four_devices_array_wide() {
    let seed = seed("core_random_four_devices");
    cosim("core_random_four_devices", "core_large", |model| {
        let mut r = rng(seed);
        let s = setup(4, 8, 8, 180, true, &mut r);
        let mut sim = CoreSim::attach(model, &LARGE, s).unwrap();
        let jobs = workload::mixed(&mut r, 60_000, s.lpas, 300, 10);
        let run = check(&mut sim, &jobs, traffic(&mut r, seed));
        assert!(relocations(&run) > 500, "GC relocated live pages");
    });
}

fn eight_devices_device_local(config: &Config, commands: usize) {
    let label = format!("core_random_eight_devices_local_{}", config.name);
    let seed = seed(&label);
    cosim(&label, &format!("core_{}", config.name), |model| {
        let mut r = rng(seed);
        let s = setup(8, 8, 4, 160, false, &mut r);
        let mut sim = CoreSim::attach(model, config, s).unwrap();
        let jobs = workload::mixed(&mut r, commands, s.lpas, 120, 10);
        let run = check(&mut sim, &jobs, traffic(&mut r, seed));
        assert!(relocations(&run) > 500 * commands / 60_000, "GC relocated live pages");
    });
}

#[test]
fn eight_devices_device_local_large() {
    eight_devices_device_local(&LARGE, 60_000);
}

#[test]
fn eight_devices_device_local_cu() {
    eight_devices_device_local(&CU, 24_000);
}

/// More LPAs than the flash can hold: writes past the usable pages are
/// refused with `device full` and nothing acknowledged is lost.
#[test]
fn more_lpas_than_flash_device_full() {
    let seed = seed("core_random_device_full");
    cosim("core_random_device_full", "core_large", |model| {
        let mut r = rng(seed);
        let s = setup(2, 8, 8, 200, true, &mut r);
        let mut sim = CoreSim::attach(model, &LARGE, s).unwrap();
        let jobs: Vec<Job> = workload::mixed(&mut r, 20_000, s.lpas, 5_000, 10)
            .into_iter()
            .filter(|j| j.cmd.op != Op::Trim as u8 || r.gen_ratio(1, 4))
            .collect();
        let run = check(&mut sim, &jobs, traffic(&mut r, seed));
        assert!(statuses(&run).contains(&Status::ErrDeviceFull));
    });
}

/// Mostly full-page `WRITE`s, hashed by the core's lanes.
fn full_pages(config: &Config, commands: usize, min_pages: usize) {
    let label = format!("core_random_full_pages_{}", config.name);
    let seed = seed(&label);
    cosim(&label, &format!("core_{}", config.name), |model| {
        let mut r = rng(seed);
        let s = setup(2, 8, 8, 80, true, &mut r);
        let mut sim = CoreSim::attach(model, config, s).unwrap();
        let jobs: Vec<Job> = (0..commands)
            .map(|i| {
                let (tag, lpa) = (i as u8, r.gen_range(0..s.lpas));
                match r.gen_range(0..100) {
                    // Skewed: half the pages are one of two hot contents.
                    0..=93 if r.gen_ratio(1, 2) => workload::job(Op::Write, tag, lpa, r.gen_range(0..2)),
                    0..=93 => workload::job(Op::Write, tag, lpa, r.gen_range(2..120)),
                    94..=97 => workload::job(Op::Trim, tag, lpa, 0),
                    _ => workload::job(Op::Read, tag, lpa, 0),
                }
            })
            .collect();
        let pages = jobs.iter().filter(|j| j.page.is_some()).count();
        assert!(pages >= min_pages, "{pages} full pages");
        check(&mut sim, &jobs, traffic(&mut r, seed));
    });
}

#[test]
fn full_pages_large() {
    full_pages(&LARGE, 5_400, 5_000);
}

#[test]
fn full_pages_cu() {
    full_pages(&CU, 1_100, 1_000);
}

/// A page id freed more times than its 8-bit version counts: overwrites
/// with new contents churn the same few page ids on a 16-page flash, until
/// one's version has wrapped. Checked as everywhere (every response, the
/// tables after each chunk, then every LPA read back); the frees are
/// counted from the golden model's versions after each chunk of 64
/// commands (fewer frees than a wrap, so each chunk's step is exact).
fn page_versions_wrap(config: &Config, commands: usize) {
    let label = format!("core_random_versions_wrap_{}", config.name);
    let seed = seed(&label);
    cosim(&label, &format!("core_{}", config.name), |model| {
        let mut r = rng(seed);
        let s = setup(1, 4, 4, 6, true, &mut r);
        let mut sim = CoreSim::attach(model, config, s).unwrap();
        let traffic = traffic(&mut r, seed);
        let jobs = workload::version_churn(&mut r, commands, s.lpas, 1_000_000);
        let mut golden = sim.golden();
        let pages = s.geometry.pages();
        let version = |golden: &ditto_hw::ftl::model::CoreModel, pid| golden.page_record(pid).2;
        let mut last: Vec<u8> = (0..pages).map(|pid| version(&golden, pid)).collect();
        let mut frees = vec![0u32; pages as usize];
        let mut saturated = 0;
        for chunk in jobs.chunks(64) {
            let run = sim.run_checked(&mut golden, chunk, traffic).unwrap_or_else(|e| panic!("{e}"));
            saturated += run.responses.iter().filter(|r| r.flags & ditto_hw::ftl::flag::SATURATED != 0).count();
            for pid in 0..pages {
                let now = version(&golden, pid);
                frees[pid as usize] += u32::from(now.wrapping_sub(last[pid as usize]));
                last[pid as usize] = now;
            }
        }
        let reads = workload::read_all(s.lpas, jobs.len());
        sim.run_checked(&mut golden, &reads, traffic).unwrap_or_else(|e| panic!("read-back: {e}"));
        let most = frees.iter().copied().max().unwrap_or(0);
        println!("{commands} commands: frees per page id {frees:?}, {saturated} saturated writes");
        assert!(most > 256, "a page id's version wrapped (most frees of one page id: {most})");
        assert!(saturated > 0, "the hot contents reach the reference-count limit");
    });
}

#[test]
fn page_versions_wrap_cu() {
    page_versions_wrap(&CU, 3_000);
}

#[test]
fn page_versions_wrap_large() {
    page_versions_wrap(&LARGE, 3_000);
}
