//! Directed tests of the whole core, each checked against the golden model
//! and with its own expectations spelled out; each runs on `core_large` and
//! on `core_cu` (whose FTL controller stages its memory requests).
use ditto_hw::config::{Config, CU, LARGE};
use ditto_hw::ftl::flash::Geometry;
use ditto_hw::ftl::model::{CoreModel, Response};
use ditto_hw::ftl::{flag, Op, Stat, Status};
use ditto_sim::ditto_core::{workload, CoreRun, CoreSetup, CoreSim, HostTraffic, Job};
use ditto_sim::hasher::sha1_of;
use ditto_sim::index::MemTiming;
use ditto_sim::testkit::cosim;

fn setup(devices: u32, blocks: u32, pages: u32, lpas: u32, array_wide: bool) -> CoreSetup {
    CoreSetup {
        lpas,
        geometry: Geometry { devices, blocks_per_device: blocks, pages_per_block: pages, reserve_blocks: 1 },
        array_wide,
        bloom: true,
        refcount_max: ditto_hw::ftl::REFCOUNT_MAX,
        memory: MemTiming::fixed(2),
        nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
    }
}

/// Runs `body` as a cosimulation of `core_large` and of `core_cu`.
fn on_both(label: &str, body: impl Fn(&mut ditto_sim::Model, &Config)) {
    for config in [&LARGE, &CU] {
        cosim(&format!("{label}_{}", config.name), &format!("core_{}", config.name), |model| body(model, config));
    }
}

/// Builds jobs with tags counting up.
struct Script(Vec<Job>);

impl Script {
    fn new() -> Self {
        Script(Vec::new())
    }
    fn add(&mut self, op: Op, lpa: u32, content: u32) -> usize {
        let n = self.0.len();
        self.0.push(workload::job(op, n as u8, lpa, content));
        n
    }
    fn with_fp(&mut self, lpa: u32, fp: [u8; 20]) -> usize {
        let n = self.0.len();
        let mut job = workload::job(Op::WriteFp, n as u8, lpa, 0);
        job.cmd.fp = fp;
        self.0.push(job);
        n
    }
}

/// Runs the script at full speed (no idle gap, so the cleaner runs only
/// after the last response or in `SYNC`), checked against `golden`.
fn run(sim: &mut CoreSim<&mut ditto_sim::Model>, golden: &mut CoreModel, script: &Script) -> CoreRun {
    sim.run_checked(golden, &script.0, HostTraffic::FULL_SPEED).unwrap_or_else(|e| panic!("{e}"))
}

fn status(run: &CoreRun, i: usize) -> (Status, u8) {
    (run.responses[i].status, run.responses[i].flags)
}

fn rsp(run: &CoreRun, i: usize) -> Response {
    run.responses[i]
}

#[test]
fn a_stale_fingerprint_is_never_deduplicated() {
    on_both("core_stale_fingerprint", |model, config| {
        let mut sim = CoreSim::attach(model, config, setup(1, 8, 8, 64, true)).unwrap();
        let mut golden = sim.golden();
        let mut s = Script::new();
        let first = s.add(Op::WriteFp, 0, 1);
        s.add(Op::Trim, 0, 0); // content 1's page id is freed, its version bumped
        let other = s.add(Op::WriteFp, 5, 2); // content 2 reuses that page id
        let again = s.add(Op::WriteFp, 1, 1); // content 1's entry is stale
        let third = s.add(Op::WriteFp, 2, 1); // the re-pointed entry is live again
        let r = run(&mut sim, &mut golden, &s);
        assert_eq!(status(&r, first), (Status::Unique, 0));
        assert_eq!(status(&r, other), (Status::Unique, 0));
        assert_eq!(status(&r, again), (Status::Unique, flag::STALE), "stored again, not shared");
        assert_ne!(rsp(&r, again).value, rsp(&r, other).value, "never mapped onto content 2's page");
        assert_eq!(status(&r, third), (Status::Duplicate, 0));
        assert_eq!(rsp(&r, third).value, rsp(&r, again).value);
        assert_eq!(sim.counters()[Stat::StaleHits as usize], 1);
    });
}

#[test]
fn an_overwrite_of_the_last_reference_frees_the_page() {
    on_both("core_overwrite_last_reference", |model, config| {
        let mut sim = CoreSim::attach(model, config, setup(1, 8, 8, 64, true)).unwrap();
        let mut golden = sim.golden();
        let mut s = Script::new();
        let a = s.add(Op::WriteFp, 0, 1);
        let b = s.add(Op::WriteFp, 0, 2);
        let read = s.add(Op::Read, 0, 0);
        let live = s.add(Op::Stats, Stat::LivePages as u32, 0);
        let shared = s.add(Op::WriteFp, 1, 2);
        s.add(Op::Sync, 0, 0);
        let cleaned = s.add(Op::Stats, Stat::Cleaned as u32, 0);
        let r = run(&mut sim, &mut golden, &s);
        assert_eq!(status(&r, a).0, Status::Unique);
        assert_eq!(status(&r, b).0, Status::Unique);
        assert_eq!((rsp(&r, read).status, rsp(&r, read).value), (Status::Mapped, rsp(&r, b).value));
        assert_eq!(rsp(&r, live).value, 1, "content 1's page is free");
        assert_eq!((rsp(&r, shared).status, rsp(&r, shared).value), (Status::Duplicate, rsp(&r, b).value));
        assert_eq!(rsp(&r, cleaned).value, 1, "SYNC released content 1's index entry");
    });
}

#[test]
fn gc_moves_a_page_shared_by_several_lpas_for_all_of_them() {
    on_both("core_gc_shared_page", |model, config| {
        let mut sim = CoreSim::attach(model, config, setup(1, 8, 4, 64, true)).unwrap();
        let mut golden = sim.golden();
        let mut s = Script::new();
        let first = s.add(Op::WriteFp, 0, 7);
        for lpa in 1..5 {
            s.add(Op::WriteFp, lpa, 7);
        }
        // Churn other LPAs with new contents until GC must collect the block
        // that holds content 7.
        for i in 0..400 {
            s.add(Op::WriteFp, 10 + i % 24, 1_000 + i);
        }
        let r = run(&mut sim, &mut golden, &s);
        let shared = rsp(&r, first).value;
        assert!((1..5).all(|i| rsp(&r, first + i)
            == Response { tag: (first + i) as u8, status: Status::Duplicate, value: shared, flags: 0 }));
        // Follow the page through every relocation.
        let (mut at, mut moves) = (shared, 0);
        for m in r.moves.iter().flatten() {
            if m.from == at {
                (at, moves) = (m.to, moves + 1);
            }
        }
        assert!(moves >= 1, "content 7's block was collected");
        let mut reads = Script::new();
        for lpa in 0..5 {
            reads.add(Op::Read, lpa, 0);
        }
        let r2 = run(&mut sim, &mut golden, &reads);
        for i in 0..5 {
            assert_eq!((rsp(&r2, i).status, rsp(&r2, i).value), (Status::Mapped, at), "lpa {i} followed the moves");
        }
    });
}

#[test]
fn a_full_device_refuses_new_pages_and_keeps_serving() {
    on_both("core_device_full", |model, config| {
        let s0 = setup(1, 8, 4, 64, true);
        let usable = s0.geometry.usable_pages_per_device();
        let mut sim = CoreSim::attach(model, config, s0).unwrap();
        let mut golden = sim.golden();
        let mut s = Script::new();
        for lpa in 0..usable {
            s.add(Op::WriteFp, lpa, 100 + lpa);
        }
        let refused = s.add(Op::WriteFp, usable, 999);
        let refused_unique = s.add(Op::WriteUnique, usable + 1, 998);
        let dup = s.add(Op::WriteFp, usable + 2, 100);
        let overwrite = s.add(Op::WriteFp, 3, 555);
        let unmapped = s.add(Op::Read, usable, 0);
        let r = run(&mut sim, &mut golden, &s);
        assert!((0..usable as usize).all(|i| status(&r, i).0 == Status::Unique));
        assert_eq!(status(&r, refused).0, Status::ErrDeviceFull);
        assert_eq!(status(&r, refused_unique).0, Status::ErrDeviceFull);
        assert_eq!(status(&r, dup).0, Status::Duplicate, "a duplicate needs no room");
        assert_eq!(status(&r, overwrite).0, Status::Unique, "the overwritten last reference makes room");
        assert_eq!(status(&r, unmapped).0, Status::Unmapped, "a refused write maps nothing");
        // Nothing acknowledged was lost.
        run(&mut sim, &mut golden, &Script(workload::read_all(64, 0)));
    });
}

#[test]
fn every_error_status_and_the_core_keeps_serving() {
    on_both("core_error_statuses", |model, config| {
        let lpas = 64;
        let mut sim = CoreSim::attach(model, config, setup(2, 8, 4, lpas, true)).unwrap();
        let mut golden = sim.golden();
        let mut s = Script::new();
        let errors = [
            s.add(Op::WriteFp, lpas, 1),
            s.add(Op::WriteUnique, lpas + 1, 1),
            s.add(Op::Read, lpas + 2, 0),
            s.add(Op::Trim, 1 << 23, 0),
            s.add(Op::Stats, 12, 0),
            s.add(Op::Write, lpas, 5),
        ];
        let ok = s.add(Op::WriteFp, lpas - 1, 1);
        let count = s.add(Op::Stats, Stat::Errors as u32, 0);
        let r = run(&mut sim, &mut golden, &s);
        for i in errors {
            assert_eq!(status(&r, i).0, Status::ErrRange, "command {i}");
        }
        assert_eq!(status(&r, ok).0, Status::Unique);
        assert_eq!(rsp(&r, count).value, errors.len() as u32);
        // The rejected WRITE's page was still consumed: the next WRITE pairs
        // with its own page.
        let mut s2 = Script::new();
        let w = s2.add(Op::Write, 3, 6);
        let r2 = run(&mut sim, &mut golden, &s2);
        assert_eq!(status(&r2, w).0, Status::Unique);
        // ErrDeviceFull: `a_full_device_refuses_new_pages_and_keeps_serving`.
        // ErrMalformed cannot reach the core: its 3-bit opcode has no unused
        // value (the status is for the link's framing).
    });
}

#[test]
fn a_written_page_is_hashed_by_the_lanes_like_software_sha1() {
    on_both("core_full_page_write", |model, config| {
        let mut sim = CoreSim::attach(model, config, setup(1, 8, 8, 64, true)).unwrap();
        let mut golden = sim.golden();
        let mut s = Script::new();
        let w = s.add(Op::Write, 0, 42);
        let fp = s.with_fp(1, sha1_of(&workload::page_of(42)));
        let w2 = s.add(Op::Write, 2, 42);
        let r = run(&mut sim, &mut golden, &s);
        assert_eq!(status(&r, w).0, Status::Unique);
        assert_eq!((status(&r, fp).0, rsp(&r, fp).value), (Status::Duplicate, rsp(&r, w).value));
        assert_eq!((status(&r, w2).0, rsp(&r, w2).value), (Status::Duplicate, rsp(&r, w).value));
    });
}

/// A fingerprint in bucket 5 of the large index (4,096 buckets) with signature `sig`.
fn bucket5(sig: u8) -> [u8; 20] {
    let mut fp = [sig; 20];
    fp[16..20].copy_from_slice(&((sig as u32) << 16 | 5).to_be_bytes());
    fp
}

#[test]
fn a_full_bucket_and_a_saturated_refcount_store_unshared() {
    on_both("core_index_full_saturated", |model, config| {
        let lpas = 4_200;
        let mut sim = CoreSim::attach(model, config, setup(1, 16, 16, lpas, true)).unwrap();
        let mut golden = sim.golden();
        let mut s = Script::new();
        for i in 0..8 {
            s.with_fp(i, bucket5(i as u8 + 1));
        }
        let ninth = s.with_fp(8, bucket5(9));
        let ninth_again = s.with_fp(9, bucket5(9));
        let r = run(&mut sim, &mut golden, &s);
        assert_eq!(status(&r, ninth), (Status::Unique, flag::INDEX_FULL));
        assert_eq!(status(&r, ninth_again), (Status::Unique, flag::INDEX_FULL), "not indexed, so not shared");
        // 4,095 references are the most one page takes; the copy stored
        // next becomes the index's target, so the write after it is shared.
        let mut s = Script::new();
        for lpa in 10..10 + 4_097 {
            s.add(Op::WriteFp, lpa, 77);
        }
        let r = run(&mut sim, &mut golden, &s);
        assert_eq!(status(&r, 0).0, Status::Unique);
        assert!((1..4_095).all(|i| status(&r, i).0 == Status::Duplicate));
        assert_eq!(status(&r, 4_095), (Status::Unique, flag::SATURATED));
        assert_eq!(status(&r, 4_096), (Status::Duplicate, 0));
        assert_eq!(rsp(&r, 4_096).value, rsp(&r, 4_095).value, "shares the new copy");
    });
}

#[test]
fn reset_empties_the_map_and_the_counters() {
    on_both("core_reset", |model, config| {
        let mut sim = CoreSim::attach(model, config, setup(2, 8, 4, 64, true)).unwrap();
        let mut golden = sim.golden();
        let mut s = Script::new();
        for lpa in 0..20 {
            s.add(Op::WriteFp, lpa, lpa % 7);
        }
        let reset = s.add(Op::Reset, 0, 0);
        let read = s.add(Op::Read, 3, 0);
        let writes = s.add(Op::Stats, Stat::Writes as u32, 0);
        let again = s.add(Op::WriteFp, 3, 3);
        let r = run(&mut sim, &mut golden, &s);
        assert_eq!(status(&r, reset).0, Status::Done);
        assert_eq!(status(&r, read).0, Status::Unmapped);
        assert_eq!(rsp(&r, writes).value, 0);
        assert_eq!(status(&r, again).0, Status::Unique, "the index was emptied too");
    });
}

#[test]
fn array_wide_dedup_shares_across_devices_and_device_local_does_not() {
    for array_wide in [true, false] {
        on_both(&format!("core_dedup_scope_{array_wide}"), |model, config| {
            let mut sim = CoreSim::attach(model, config, setup(4, 8, 4, 64, array_wide)).unwrap();
            let mut golden = sim.golden();
            let mut s = Script::new();
            for lpa in 0..8 {
                s.add(Op::WriteFp, lpa, 9); // homes: devices 0, 1, 2, 3, 0, 1, 2, 3
            }
            let r = run(&mut sim, &mut golden, &s);
            let unique = r.responses.iter().filter(|r| r.status == Status::Unique).count();
            assert_eq!(unique, if array_wide { 1 } else { 4 });
        });
    }
}

/// 50,000 writes of one content to distinct LPAs at the full reference-count
/// limit store ceil(50,000 / 4,095) = 13 copies: each saturated copy hands
/// the index entry to the next (as VDO does), so hot content stays shared.
#[test]
fn fifty_thousand_writes_of_one_hot_page_store_thirteen_copies() {
    on_both("core_hot_page", |model, config| {
        let n = 50_000u32;
        let mut sim = CoreSim::attach(
            model,
            config,
            CoreSetup { refcount_max: ditto_hw::ftl::REFCOUNT_MAX, ..setup(1, 1024, 64, n, true) },
        )
        .unwrap();
        let mut golden = sim.golden();
        let jobs: Vec<Job> = (0..n).map(|lpa| workload::job(Op::WriteFp, lpa as u8, lpa, 7)).collect();
        let r = sim.run_checked(&mut golden, &jobs, HostTraffic::FULL_SPEED).unwrap_or_else(|e| panic!("{e}"));
        let unique = r.responses.iter().filter(|r| r.status == Status::Unique).count() as u32;
        let saturated = r.responses.iter().filter(|r| r.flags & flag::SATURATED != 0).count() as u32;
        let copies = n.div_ceil(ditto_hw::ftl::REFCOUNT_MAX);
        assert_eq!(unique, copies, "{n} writes of one page");
        assert_eq!(saturated, copies - 1);
        assert_eq!(sim.counters()[Stat::UniqueWrites as usize], copies);
    });
}

/// The controller initialises its tables after reset (and on `RESET`) with a
/// write per LPA: on `cu` about 21 clocks each, on `large` one. The first
/// command waits in the slot meanwhile, and the cosimulation once took that
/// for a hang ("no progress for 200000 cycles") above about 9,100 LPAs on
/// `cu` and 191,764 on `large`. Both sizes here pass that boundary; a
/// `RESET` in the middle of the run crosses it again.
#[test]
fn a_core_initialising_more_lpas_than_the_watchdog_window_is_not_a_hang() {
    on_both("core_long_initialisation", |model, config| {
        let lpas = if config.name == "cu" { 12_000 } else { 230_000 };
        let mut sim = CoreSim::attach(model, config, setup(1, 8, 64, lpas, true)).unwrap();
        let mut golden = sim.golden();
        let mut s = Script::new();
        let first = s.add(Op::Write, lpas - 1, 1);
        s.add(Op::Reset, 0, 0);
        let read = s.add(Op::Read, lpas - 1, 0);
        let again = s.add(Op::WriteFp, 0, 2);
        let r = run(&mut sim, &mut golden, &s);
        assert_eq!(status(&r, first).0, Status::Unique);
        assert_eq!(status(&r, read).0, Status::Unmapped, "RESET emptied the map");
        assert_eq!(status(&r, again).0, Status::Unique);
    });
}
