//! Directed cosimulation tests of the fingerprint index, each named after
//! what it pins. Every command also goes through the golden model and the two
//! must agree response by response; the asserts here say what the responses
//! must be.
use ditto_hw::config::{CU, LARGE};
use ditto_hw::index::model::{Command, IndexModel, Response};
use ditto_hw::index::{bloom_bits, flag, signature_of, Fingerprint, Op, Status, META_REGION, REFCOUNT_MAX, WAYS};
use ditto_hw::Config;
use ditto_sim::index::{model_name, workload, IndexSetup, IndexSim, MemTiming, Traffic};
use ditto_sim::testkit::{cosim, rng};

/// Runs `body` on a fresh index of `config` (every FSM, Bloom filters on,
/// memories of latency `latency`) with its golden model.
fn with_index(config: &Config, label: &str, latency: u64, body: impl Fn(&mut IndexSim, &mut IndexModel)) {
    cosim(label, &model_name(config), |model| {
        let mut setup = IndexSetup::new(config);
        setup.table = MemTiming::fixed(latency);
        setup.fingerprints = MemTiming::fixed(latency);
        let mut sim = IndexSim::attach(model, config, setup).unwrap_or_else(|e| panic!("{e}"));
        let mut golden = IndexModel::new(config.index_bucket_bits, true);
        body(&mut sim, &mut golden);
    });
}

/// Runs `commands` at full speed, checked against the golden model.
fn exec(sim: &mut IndexSim, golden: &mut IndexModel, commands: &[Command]) -> Vec<Response> {
    let commands = workload::tag(commands.to_vec());
    sim.run_checked(golden, &commands, Traffic::FULL_SPEED).unwrap_or_else(|e| panic!("{e}")).responses
}

fn insert(fp: Fingerprint) -> Command {
    Command::with_fp(Op::Insert, fp, 0)
}
fn lookup(fp: Fingerprint) -> Command {
    Command::with_fp(Op::Lookup, fp, 0)
}
fn deref(fp: Fingerprint) -> Command {
    Command::with_fp(Op::DerefFp, fp, 0)
}

/// Finds signatures in `bucket`: `a`, `b` and a `c` whose Bloom bits are all
/// among those of `a` and `b` but not all among `b`'s alone.
fn covering_signatures() -> (u32, u32, u32) {
    for a in 0..4096u32 {
        for b in (a + 1)..4096 {
            let ab = bloom_bits(a) | bloom_bits(b);
            for c in 0..4096u32 {
                if c != a && c != b && bloom_bits(c) & ab == bloom_bits(c) && bloom_bits(c) & !bloom_bits(b) != 0 {
                    return (a, b, c);
                }
            }
        }
    }
    unreachable!("32-bit filters with three bits per key are easy to cover")
}

#[test]
fn bloom_false_positive_is_detected_and_the_filter_rebuilt() {
    for config in [CU, LARGE] {
        with_index(&config, &format!("index_bloom_fp_{}", config.name), 7, |sim, golden| {
            let mut r = rng(1);
            let bb = config.index_bucket_bits;
            let (sa, sb, sc) = covering_signatures();
            let (a, b, c) = (
                workload::fp_with(&mut r, 5, sa, bb),
                workload::fp_with(&mut r, 5, sb, bb),
                workload::fp_with(&mut r, 5, sc, bb),
            );
            let rsp = exec(sim, golden, &[insert(a), insert(b), deref(a), lookup(c), insert(c), lookup(a)]);
            assert_eq!(rsp[2].status, Status::Freed);
            // c is absent, but a's stale bits and b's cover it: a false
            // positive, whose rebuild (from b alone) clears a's stale bits.
            assert_eq!((rsp[3].status, rsp[3].flags), (Status::Absent, flag::FALSE_POSITIVE | flag::REBUILT));
            // Now the filter holds b only: c is a clean Bloom negative.
            assert_eq!((rsp[4].status, rsp[4].flags), (Status::New, flag::BLOOM_NEGATIVE));
            if let Some(meta) = sim.table_word(META_REGION | 5) {
                assert_eq!(meta as u32, bloom_bits(sb) | bloom_bits(sc), "the filter in table memory");
            }
            let s = sim.stats();
            assert_eq!((s.false_positives, s.rebuilds), (golden.stats().false_positives, golden.stats().rebuilds));
            assert!(s.false_positives >= 1 && s.rebuilds >= 1);
        });
    }
}

#[test]
fn removed_entry_leaves_stale_bloom_bits_that_a_later_walk_clears() {
    with_index(&CU, "index_stale_bits", 1, |sim, golden| {
        let mut r = rng(2);
        let a = workload::fp_with(&mut r, 77, 0x5a5, CU.index_bucket_bits);
        let rsp = exec(sim, golden, &[insert(a), deref(a), lookup(a), lookup(a), deref(a)]);
        assert_eq!(rsp[1].status, Status::Freed);
        // The bits stayed after the removal: the first lookup walks (an empty
        // bucket), finds nothing, and clears them; the second needs no walk.
        assert_eq!((rsp[2].status, rsp[2].flags), (Status::Absent, flag::FALSE_POSITIVE | flag::REBUILT));
        assert_eq!((rsp[3].status, rsp[3].flags), (Status::Absent, flag::BLOOM_NEGATIVE));
        assert_eq!((rsp[4].status, rsp[4].flags), (Status::ErrUnknown, flag::BLOOM_NEGATIVE));
    });
}

#[test]
fn full_chain_is_refused_with_err_full_and_the_index_keeps_serving() {
    with_index(&LARGE, "index_full_chain", 64, |sim, golden| {
        let mut r = rng(3);
        let bb = LARGE.index_bucket_bits;
        let fps: Vec<_> = (0..=WAYS as u32).map(|i| workload::fp_with(&mut r, 9, 100 + i, bb)).collect();
        let mut cmds: Vec<_> = fps.iter().map(|f| insert(*f)).collect();
        cmds.extend([insert(fps[3]), deref(fps[0]), insert(fps[WAYS]), lookup(fps[WAYS])]);
        let rsp = exec(sim, golden, &cmds);
        for (way, r) in rsp[..WAYS].iter().enumerate() {
            assert_eq!((r.status, r.entry as usize), (Status::New, 9 * WAYS + way));
        }
        assert_eq!((rsp[WAYS].status, rsp[WAYS].entry), (Status::ErrFull, 0), "the ninth fingerprint of a bucket");
        assert_eq!((rsp[WAYS + 1].status, rsp[WAYS + 1].refcount), (Status::Duplicate, 2), "duplicates still found");
        assert_eq!(rsp[WAYS + 2].status, Status::Freed);
        assert_eq!(
            (rsp[WAYS + 3].status, rsp[WAYS + 3].entry as usize),
            (Status::New, 9 * WAYS),
            "the freed way is reused"
        );
        assert_eq!(rsp[WAYS + 4].status, Status::Found);
    });
}

#[test]
fn full_table_holds_every_entry_then_refuses_new_fingerprints() {
    with_index(&CU, "index_full_table", 1, |sim, golden| {
        let mut r = rng(4);
        let bb = CU.index_bucket_bits;
        let capacity = CU.index_entries();
        let fps: Vec<_> = (0..capacity as u32).map(|i| workload::fp_with(&mut r, i % (1 << bb), i, bb)).collect();
        let rsp = exec(sim, golden, &fps.iter().map(|f| insert(*f)).collect::<Vec<_>>());
        assert!(rsp.iter().all(|r| r.status == Status::New));
        assert_eq!(sim.stats().entries_used as usize, capacity, "the table is 100% full");
        let extra: Vec<_> = (0..64).map(|_| insert(workload::random_fp(&mut r))).collect();
        assert!(exec(sim, golden, &extra).iter().all(|r| r.status == Status::ErrFull));
        // Every entry is still there, and one freed entry takes a new one.
        let again = exec(sim, golden, &fps.iter().map(|f| lookup(*f)).collect::<Vec<_>>());
        assert!(again.iter().all(|r| r.status == Status::Found && r.refcount == 1));
        let rsp =
            exec(sim, golden, &[Command::deref_entry(1234, 0), insert(workload::fp_with(&mut r, 1234 / 8, 7, bb))]);
        assert_eq!((rsp[0].status, rsp[1].status, rsp[1].entry), (Status::Freed, Status::New, 1234));
    });
}

#[test]
fn signature_collision_is_never_merged() {
    with_index(&LARGE, "index_signature_collision", 20, |sim, golden| {
        let mut r = rng(5);
        let bb = LARGE.index_bucket_bits;
        let (a, b) = (workload::fp_with(&mut r, 3, 0x777, bb), workload::fp_with(&mut r, 3, 0x777, bb));
        assert_eq!(signature_of(&a), signature_of(&b));
        let rsp = exec(sim, golden, &[insert(a), insert(b), lookup(b), deref(a), lookup(b), lookup(a)]);
        assert_eq!((rsp[0].status, rsp[0].entry), (Status::New, 24));
        assert_eq!(
            (rsp[1].status, rsp[1].entry, rsp[1].flags & flag::SIGNATURE_MISS),
            (Status::New, 25, flag::SIGNATURE_MISS)
        );
        assert_eq!((rsp[2].status, rsp[2].entry), (Status::Found, 25));
        assert_eq!((rsp[4].status, rsp[4].entry), (Status::Found, 25));
        assert_eq!(rsp[5].status, Status::Absent);
        assert_eq!(sim.stored_fingerprint(25), b, "the full fingerprint went to the store");
    });
}

#[test]
fn same_fingerprint_inserted_by_every_fsm_at_once_makes_one_entry() {
    for config in [CU, LARGE] {
        with_index(&config, &format!("index_same_fp_{}", config.name), 64, |sim, golden| {
            let fp = workload::random_fp(&mut rng(6));
            let rsp = exec(sim, golden, &vec![insert(fp); 40]);
            assert_eq!(rsp[0].status, Status::New);
            for (i, r) in rsp.iter().enumerate().skip(1) {
                assert_eq!((r.status, r.entry, r.refcount as usize), (Status::Duplicate, rsp[0].entry, i + 1));
            }
            assert_eq!(sim.stats().entries_used, 1);
        });
    }
}

#[test]
fn hot_bucket_commands_are_serialized_in_command_order() {
    with_index(&LARGE, "index_hot_bucket", 64, |sim, golden| {
        let mut r = rng(7);
        let bb = LARGE.index_bucket_bits;
        let fps: Vec<_> = (0..6).map(|i| workload::fp_with(&mut r, 42, i, bb)).collect();
        // Insert, dereference and re-insert the same few fingerprints of one
        // bucket back to back: any reordering changes the counts and the
        // entries handed out (checked against the golden model).
        let cmds: Vec<_> = (0..34)
            .flat_map(|k| {
                let (f, g) = (fps[k % 6], fps[(k + 1) % 6]);
                [insert(f), insert(f), insert(g), deref(f), deref(f), deref(g)]
            })
            .take(200)
            .collect();
        let start = sim.cycles();
        let rsp = exec(sim, golden, &cmds);
        let cycles = sim.cycles() - start;
        let count = |s: Status| rsp.iter().filter(|r| r.status == s).count();
        let counts = [Status::New, Status::Duplicate, Status::Kept, Status::Freed].map(count);
        assert!(counts.iter().all(|&c| c >= 10), "entries counted, freed and reused: {counts:?}");
        // Serialized on one bucket, each command costs at least one memory round trip.
        assert!(cycles >= 200 * 64, "{cycles} cycles for 200 commands on one bucket at latency 64");
    });
}

#[test]
fn every_error_gets_a_status_and_the_index_keeps_serving() {
    with_index(&CU, "index_errors", 1, |sim, golden| {
        let mut r = rng(8);
        let fp = workload::random_fp(&mut r);
        let beyond = (CU.index_entries()) as u16;
        let mut cmds = vec![
            Command { op: 5, fp, entry: 0, tag: 0 },
            Command::deref_entry(beyond, 0),
            Command::deref_entry(17, 0),
            deref(fp),
        ];
        cmds.extend(std::iter::repeat_n(insert(fp), REFCOUNT_MAX as usize + 1));
        cmds.push(lookup(fp));
        let rsp = exec(sim, golden, &cmds);
        assert_eq!(rsp[0].status, Status::ErrMalformed, "unknown opcode");
        assert_eq!(rsp[1].status, Status::ErrMalformed, "entry beyond the table");
        assert_eq!(rsp[2].status, Status::ErrUnknown, "free entry");
        assert_eq!(rsp[3].status, Status::ErrUnknown, "absent fingerprint");
        assert_eq!(rsp[4 + REFCOUNT_MAX as usize - 1].refcount as u32, REFCOUNT_MAX);
        let sat = rsp[4 + REFCOUNT_MAX as usize];
        assert_eq!((sat.status, sat.refcount as u32), (Status::ErrSaturated, REFCOUNT_MAX));
        assert_eq!(rsp.last().unwrap().status, Status::Found);
    });
}

#[test]
fn reset_empties_the_index() {
    with_index(&LARGE, "index_reset", 5, |sim, golden| {
        let fp = workload::random_fp(&mut rng(9));
        exec(sim, golden, &[insert(fp)]);
        sim.reset().unwrap();
        let mut fresh = IndexModel::new(LARGE.index_bucket_bits, true);
        let rsp = exec(sim, &mut fresh, &[lookup(fp)]);
        assert_eq!((rsp[0].status, rsp[0].flags), (Status::Absent, flag::BLOOM_NEGATIVE));
        assert_eq!(sim.stats().commands, 1, "statistics restart at reset");
    });
}

#[test]
fn put_allocates_a_new_fingerprint_once_and_leaves_counts_alone() {
    for config in [CU, LARGE] {
        with_index(&config, &format!("index_put_{}", config.name), 9, |sim, golden| {
            let fp = workload::random_fp(&mut rng(10));
            let put = Command::with_fp(Op::Put, fp, 0);
            let rsp = exec(sim, golden, &[put, put, insert(fp), put, deref(fp), deref(fp), put]);
            assert_eq!((rsp[0].status, rsp[0].refcount), (Status::New, 1));
            assert_eq!((rsp[1].status, rsp[1].entry, rsp[1].refcount), (Status::Found, rsp[0].entry, 1));
            assert_eq!((rsp[2].status, rsp[2].refcount), (Status::Duplicate, 2));
            assert_eq!((rsp[3].status, rsp[3].refcount), (Status::Found, 2), "PUT never counts");
            assert_eq!((rsp[4].status, rsp[5].status), (Status::Kept, Status::Freed));
            assert_eq!(rsp[6].status, Status::New);
        });
    }
}
