//! The whole core under Verilator against the golden model: seeded random
//! command streams, response by response, relocation by relocation, then the
//! counters, and the data (every LPA reads back its last content).
use ditto_hw::config::LARGE;
use ditto_hw::ftl::flash::Geometry;
use ditto_hw::ftl::{Op, Stat, Status};
use ditto_sim::ditto_core::{workload, CoreRun, CoreSetup, CoreSim, HostTraffic, Job};
use ditto_sim::index::MemTiming;
use ditto_sim::testkit::{cosim, rng, seed};
use rand::Rng;
use std::collections::HashSet;

fn setup(devices: u32, blocks: u32, pages: u32, lpas: u32, array_wide: bool) -> CoreSetup {
    CoreSetup {
        lpas,
        geometry: Geometry { devices, blocks_per_device: blocks, pages_per_block: pages, reserve_blocks: 1 },
        array_wide,
        bloom: true,
        memory: MemTiming::fixed(1),
    }
}

/// Runs `jobs` then reads every LPA back; returns the run of the jobs.
fn check(sim: &mut CoreSim, jobs: &[Job], traffic: HostTraffic) -> CoreRun {
    let mut golden = sim.golden();
    let run = sim.run_checked(&mut golden, jobs, traffic).unwrap_or_else(|e| panic!("{e}"));
    let reads = workload::read_all(sim.setup().lpas, jobs.len());
    sim.run_checked(&mut golden, &reads, traffic).unwrap_or_else(|e| panic!("read-back: {e}"));
    run
}

#[test]
fn random_commands_with_gc_on_one_device_match_the_golden_model() {
    let seed = seed("core_random_d1");
    cosim("core_random_d1", "core_large", |model| {
        let mut r = rng(seed);
        let s = setup(1, 16, 8, 96, true);
        let mut sim = CoreSim::attach(model, &LARGE, s).unwrap();
        let jobs = workload::mixed(&mut r, 20_000, s.lpas, 150, 20);
        let traffic = HostTraffic { cmd_valid: 0.7, page_valid: 0.9, rsp_ready: 0.7, mv_ready: 0.6, seed };
        let run = check(&mut sim, &jobs, traffic);
        let statuses: HashSet<Status> = run.responses.iter().map(|r| r.status).collect();
        println!("statuses {statuses:?}, counters {:?}", sim.counters());
        let c = sim.counters();
        assert!(c[Stat::Relocations as usize] > 0 && c[Stat::Erases as usize] > 0, "GC ran: {c:?}");
    });
}
