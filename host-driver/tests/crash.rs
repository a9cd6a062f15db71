//! Crash consistency, as CrashMonkey and ALICE test it: a seeded, skewed
//! workload (hot contents among cold, overwrites, trims, flushes, FUA
//! writes, garbage collection) runs on a store whose every write and sync
//! is recorded; then for many crash points a crash image is built (the
//! writes before the point; a torn last write; or, as a power cut may
//! leave it, any subset of the writes since each file's last sync), the
//! store is recovered from it, and the durability contract is checked
//! against the workload's history:
//! - every write acknowledged before the last completed flush reads back;
//! - every other LPA reads as one of the contents it had since that flush
//!   (its old content or a newer one), never garbage, zeros it never had,
//!   or another address's data;
//! - the recovered store scrubs clean and deduplicates new writes against
//!   what it recovered.
use ditto_host::driver::{BackingStore, Device, Written, PAGE};
use ditto_host::store::format::StoreSpec;
use ditto_host::store::IoEvent;
use ditto_host::transport::ModelTransport;
use ditto_hw::config::LARGE;
use ditto_hw::ftl::flash::Geometry;
use ditto_hw::ftl::nvm::{NvmConfig, NvmStats};
use ditto_sim::ditto_core::CoreSetup;
use ditto_sim::testkit::{rng, seed};
use rand::Rng;
use std::collections::HashMap;
use std::path::Path;

const LPAS: u32 = 48;

/// A small device (8 blocks of 16 pages, 2 in reserve) so that garbage
/// collection runs often.
fn setup() -> CoreSetup {
    setup_with(NvmConfig::OFF)
}

/// [`setup`] with an NVM cache.
fn setup_with(nvm: NvmConfig) -> CoreSetup {
    let mut s = ditto_host::driver::setup_for(LPAS, 1).unwrap();
    s.geometry = Geometry { devices: 1, blocks_per_device: 8, pages_per_block: 16, reserve_blocks: 2 };
    s.nvm = nvm;
    s
}

fn transport() -> ModelTransport {
    transport_with(NvmConfig::OFF)
}

fn transport_with(nvm: NvmConfig) -> ModelTransport {
    ModelTransport::new(setup_with(nvm).core_config(&LARGE))
}

/// The cache of the crash tests with the cache on: 16 slots (a third of
/// the LPAs), cooperative, so that evictions, write-backs and GC drops all
/// happen in the runs.
const CACHE: NvmConfig = NvmConfig { slots: 16, cooperative: true };

/// Content 0 is the zero page; every other content is its own page.
fn page(content: u32) -> Box<[u8; PAGE]> {
    let mut p = Box::new([0u8; PAGE]);
    if content == 0 {
        return p;
    }
    for (i, b) in p.iter_mut().enumerate() {
        *b = (content as usize * 131 + i * 7) as u8;
    }
    p[..4].copy_from_slice(&content.to_le_bytes());
    p
}

#[derive(Clone, Debug)]
enum Op {
    Write {
        pages: Vec<(u32, u32)>,
        fua: bool,
    },
    Trim {
        lpa: u32,
    },
    /// Reads a run of LPAs in one batch. Changes no content, but with the
    /// NVM cache each read brings its page in, evicting (and writing back)
    /// another, and GC may then drop the cached pages.
    Read {
        lpas: std::ops::Range<u32>,
    },
    Flush,
}

/// One operation as it ran: the I/O events it made, `start..end`.
struct Ran {
    op: Op,
    start: usize,
    end: usize,
}

/// The workload: one write in three of a hot content (three of them, the
/// zero page among them), overwrites of a small LPA space, trims and
/// flushes.
fn workload(seed: u64, ops: usize) -> Vec<Op> {
    let mut r = rng(seed);
    let mut fresh = 100u32;
    (0..ops)
        .map(|_| match r.gen_range(0..100) {
            0..=5 => Op::Flush,
            6..=11 => Op::Trim { lpa: r.gen_range(0..LPAS) },
            12..=31 => {
                let first = r.gen_range(0..LPAS);
                Op::Read { lpas: first..(first + r.gen_range(1..=8)).min(LPAS) }
            }
            roll => {
                let n = r.gen_range(1..=4);
                let mut lpas: Vec<u32> = (0..n).map(|_| r.gen_range(0..LPAS)).collect();
                lpas.sort();
                lpas.dedup();
                let pages = lpas
                    .into_iter()
                    .map(|lpa| {
                        let content = if r.gen_bool(1.0 / 3.0) {
                            [0, 1, 2][r.gen_range(0..3)]
                        } else {
                            fresh += 1;
                            fresh
                        };
                        (lpa, content)
                    })
                    .collect();
                Op::Write { pages, fua: roll >= 95 }
            }
        })
        .collect()
}

/// The store's files right after it was created, and the recorded run.
struct Recording {
    nvm: NvmConfig,
    initial: HashMap<String, Vec<u8>>,
    events: Vec<IoEvent>,
    ran: Vec<Ran>,
    relocations: u64,
    /// The cache's counters at the end of the run.
    cache: NvmStats,
}

fn record(ops: &[Op], nvm: NvmConfig) -> Recording {
    let dir = tempfile::tempdir().unwrap();
    let spec = StoreSpec::of("large", &setup_with(nvm));
    let store = BackingStore::create(dir.path(), &spec).unwrap();
    let initial = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    let mut dev = Device::new(transport_with(nvm), store, true).unwrap();
    // The crash images replay writes and syncs, not a checkpoint's links
    // and renames: the run stays in one generation (checkpoints have their
    // own crash test below). With the cache it would not otherwise: most
    // writes reuse a slot freed since the last commit, so the journal
    // carries their pages (the reuse guard) and grows fast.
    dev.set_checkpoint_min(u64::MAX);
    let log = dev.store_mut().record_io();
    let mut ran = Vec::new();
    // Each LPA's content as the run goes: every read must give it.
    let mut now = vec![0u32; LPAS as usize];
    for op in ops {
        let start = log.lock().unwrap().len();
        match op {
            Op::Write { pages, fua } => {
                let data: Vec<(u32, Box<[u8; PAGE]>)> = pages.iter().map(|&(l, c)| (l, page(c))).collect();
                let refs: Vec<(u32, &[u8; PAGE])> = data.iter().map(|(l, p)| (*l, &**p)).collect();
                dev.write_batch(&refs).unwrap();
                pages.iter().for_each(|&(l, c)| now[l as usize] = c);
                if *fua {
                    dev.flush().unwrap();
                }
            }
            Op::Trim { lpa } => {
                dev.trim(*lpa).unwrap();
                now[*lpa as usize] = 0;
            }
            Op::Read { lpas } => {
                let lpas: Vec<u32> = lpas.clone().collect();
                let read =
                    dev.read_batch(&lpas).unwrap_or_else(|e| panic!("op {}: {lpas:?} do not read: {e}", ran.len()));
                for (lpa, data) in lpas.iter().zip(read) {
                    assert!(*data == *page(now[*lpa as usize]), "op {}: LPA {lpa} reads other data", ran.len());
                }
            }
            Op::Flush => dev.flush().unwrap(),
        }
        let end = log.lock().unwrap().len();
        ran.push(Ran { op: op.clone(), start, end });
    }
    let relocations = dev.driver_stats().relocations;
    let cache = dev.transport().model().nvm_stats();
    drop(dev);
    let events = log.lock().unwrap().clone();
    Recording { nvm, initial, events, ran, relocations, cache }
}

/// How a crash image keeps the writes before its crash point.
#[derive(Clone, Copy, Debug)]
enum Cut {
    /// All of them, in order (a process killed, or a disk that keeps order).
    Prefix,
    /// All of them, the last one torn after `bytes` bytes.
    Torn { bytes: usize },
    /// Writes before each file's last sync, and a seeded subset of the rest
    /// (a power cut: unsynced writes reach the disk in any order, or not).
    PowerLoss { seed: u64 },
}

fn build_image(rec: &Recording, point: usize, cut: Cut, dir: &Path) {
    for (name, bytes) in &rec.initial {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let before = &rec.events[..point];
    let mut last_sync: HashMap<&str, usize> = HashMap::new();
    for (i, e) in before.iter().enumerate() {
        if let IoEvent::Sync { file } = e {
            last_sync.insert(file, i);
        }
    }
    let mut r = rng(match cut {
        Cut::PowerLoss { seed } => seed,
        _ => 0,
    });
    let mut writes: Vec<(&str, u64, &[u8])> = Vec::new();
    for (i, e) in before.iter().enumerate() {
        if let IoEvent::Write { file, offset, data } = e {
            let synced = last_sync.get(file.as_str()).is_some_and(|&s| i < s);
            let keep = match cut {
                Cut::PowerLoss { .. } => synced || r.gen_bool(0.5),
                _ => true,
            };
            if keep {
                writes.push((file, *offset, data));
            }
        }
    }
    if let (Cut::Torn { bytes }, Some(IoEvent::Write { file, offset, data })) = (cut, rec.events.get(point)) {
        writes.push((file, *offset, &data[..bytes.min(data.len())]));
    }
    for (file, offset, data) in writes {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(dir.join(file)).unwrap();
        f.write_all_at(data, offset).unwrap();
    }
}

/// The contents each LPA may read as after a crash at `point`: its content
/// at the last flush completed before the point, and every content a write
/// or trim begun since gave it.
fn allowed(rec: &Recording, point: usize) -> Vec<Vec<u32>> {
    let mut at_flush = vec![0u32; LPAS as usize];
    let mut now = vec![0u32; LPAS as usize];
    let mut since: Vec<Vec<u32>> = vec![Vec::new(); LPAS as usize];
    for ran in rec.ran.iter().filter(|r| r.start < point) {
        let complete = ran.end <= point;
        match &ran.op {
            Op::Write { pages, fua } => {
                for &(lpa, c) in pages {
                    now[lpa as usize] = c;
                    since[lpa as usize].push(c);
                }
                if *fua && complete {
                    at_flush.clone_from(&now);
                    since.iter_mut().for_each(Vec::clear);
                }
            }
            Op::Trim { lpa } => {
                now[*lpa as usize] = 0;
                since[*lpa as usize].push(0);
            }
            Op::Read { .. } => {}
            Op::Flush if complete => {
                at_flush.clone_from(&now);
                since.iter_mut().for_each(Vec::clear);
            }
            Op::Flush => {}
        }
    }
    at_flush
        .iter()
        .zip(since)
        .map(|(&f, mut s)| {
            s.push(f);
            s
        })
        .collect()
}

/// Recovers the store of a crash image and checks the contract; with
/// `deep`, also scrubs it and checks that new writes share recovered data.
fn check(rec: &Recording, point: usize, cut: Cut, deep: bool, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    build_image(rec, point, cut, dir.path());
    let name = format!("seed {seed}, crash point {point} of {} ({cut:?})", rec.events.len());
    let (store, recovered) = BackingStore::open(dir.path()).unwrap_or_else(|e| panic!("{name}: open: {e}"));
    let (mut dev, _) = Device::open(transport_with(rec.nvm), store, recovered, true)
        .unwrap_or_else(|e| panic!("{name}: recovery: {e}"));
    let allowed = allowed(rec, point);
    let mut recovered_content = None;
    for lpa in 0..LPAS {
        let data = dev.read(lpa).unwrap_or_else(|e| panic!("{name}: LPA {lpa} does not read: {e}"));
        let content = allowed[lpa as usize].iter().find(|&&c| *page(c) == *data);
        let Some(&content) = content else {
            panic!("{name}: LPA {lpa} reads as none of the contents it may have ({:?})", allowed[lpa as usize]);
        };
        if content != 0 {
            recovered_content = Some((lpa, content));
        }
    }
    if !deep {
        return;
    }
    if let Some((lpa, content)) = recovered_content {
        let other = (lpa + 1) % LPAS;
        let w = dev.write(other, &page(content)).unwrap();
        assert!(
            matches!(w, Written::Duplicate { .. }),
            "{name}: a new write of recovered content is not shared: {w:?}"
        );
    }
    dev.flush().unwrap();
    drop(dev);
    let scrub = ditto_host::store::scrub(dir.path()).unwrap();
    assert!(scrub.bad_pages.is_empty(), "{name}: scrub found {:?}", scrub.bad_pages);
}

/// Records `ops` on a store with `nvm`; checks that the run collected
/// garbage and, with a cache, that it wrote back and filled on reads, and
/// (`drops`) that GC dropped cached pages. A drop needs a clean cached
/// copy in the very block GC picks, which about one seeded run of 900
/// operations in a hundred never brings about: such a run goes on, with
/// more of the seed's workload, up to four times its length.
fn record_checked(mut ops: Vec<Op>, nvm: NvmConfig, seed: u64, drops: bool) -> Recording {
    let first = ops.len();
    let mut rec = record(&ops, nvm);
    while drops && nvm.cooperative && rec.cache.gc_drops == 0 && ops.len() < 4 * first {
        ops.extend(workload(seed ^ ops.len() as u64, first / 2));
        rec = record(&ops, nvm);
    }
    assert!(rec.relocations > 0, "seed {seed}: the run must collect garbage");
    let c = rec.cache;
    if nvm.enabled() {
        assert!(c.writebacks > 0 && c.read_fills > 0, "seed {seed}: the run must write back and fill on reads: {c:?}");
        assert!(!drops || c.gc_drops > 0, "seed {seed}: GC must drop cached pages: {c:?}");
    }
    println!("seed {seed}, NVM {nvm:?}: {} writes and syncs, {} relocations, {c:?}", rec.events.len(), rec.relocations);
    rec
}

#[test]
fn every_crash_point_of_a_small_run_recovers_to_what_the_contract_allows() {
    every_crash_point_of_a_small_run(NvmConfig::OFF);
}

#[test]
fn every_crash_point_of_a_small_run_with_the_nvm_cache_recovers_to_what_the_contract_allows() {
    every_crash_point_of_a_small_run(CACHE);
}

/// Every crash point of a small run, with and without a torn last write.
fn every_crash_point_of_a_small_run(nvm: NvmConfig) {
    let seed = seed("every_crash_point_of_a_small_run");
    let rec = record_checked(workload(seed, 160), nvm, seed, false);
    let mut r = rng(seed ^ 1);
    for point in 0..=rec.events.len() {
        check(&rec, point, Cut::Prefix, point % 8 == 0, seed);
        if let Some(IoEvent::Write { data, .. }) = rec.events.get(point) {
            let bytes = r.gen_range(1..data.len());
            check(&rec, point, Cut::Torn { bytes }, false, seed);
        }
    }
}

#[test]
fn power_cuts_at_random_points_of_a_longer_run_recover_to_what_the_contract_allows() {
    power_cuts_at_random_points(NvmConfig::OFF);
}

#[test]
fn power_cuts_at_random_points_of_a_longer_run_with_the_nvm_cache_recover_to_what_the_contract_allows() {
    power_cuts_at_random_points(CACHE);
}

/// 150 power cuts at random points of a longer run.
fn power_cuts_at_random_points(nvm: NvmConfig) {
    let seed = seed("power_cuts_at_random_points");
    let rec = record_checked(workload(seed, 900), nvm, seed, true);
    let mut r = rng(seed ^ 2);
    for i in 0..150 {
        let point = r.gen_range(0..=rec.events.len());
        check(&rec, point, Cut::PowerLoss { seed: seed ^ (i << 8) }, i % 10 == 0, seed);
    }
}

#[test]
fn a_store_reopened_after_a_clean_close_reads_the_same_and_compacts_once() {
    let dir = tempfile::tempdir().unwrap();
    let spec = StoreSpec::of("large", &setup());
    let mut dev = Device::new(transport(), BackingStore::create(dir.path(), &spec).unwrap(), true).unwrap();
    let ops = workload(7, 300);
    let mut expect = vec![0u32; LPAS as usize];
    for op in &ops {
        match op {
            Op::Write { pages, .. } => {
                for &(lpa, c) in pages {
                    dev.write(lpa, &page(c)).unwrap();
                    expect[lpa as usize] = c;
                }
            }
            Op::Trim { lpa } => {
                dev.trim(*lpa).unwrap();
                expect[*lpa as usize] = 0;
            }
            Op::Read { lpas } => {
                for lpa in lpas.clone() {
                    assert_eq!(*dev.read(lpa).unwrap(), *page(expect[lpa as usize]), "LPA {lpa}");
                }
            }
            Op::Flush => dev.flush().unwrap(),
        }
    }
    dev.flush().unwrap();
    drop(dev);
    // The first reopen compacts into a new generation; the second finds the
    // layout its rebuild gives and copies nothing.
    for (round, compacts) in [(0, true), (1, false)] {
        let (store, recovered) = BackingStore::open(dir.path()).unwrap();
        let (mut dev, report) = Device::open(transport(), store, recovered, true).unwrap();
        assert_eq!(report.compacted, compacts, "round {round}: {report:?}");
        assert_eq!(report.recovery.discarded_operations, 0, "round {round}: a clean close discards nothing");
        for lpa in 0..LPAS {
            assert!(*dev.read(lpa).unwrap() == *page(expect[lpa as usize]), "round {round}: LPA {lpa}");
        }
    }
}

#[test]
fn a_second_opener_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let spec = StoreSpec::of("large", &setup());
    let mut dev = Device::new(transport(), BackingStore::create(dir.path(), &spec).unwrap(), true).unwrap();
    dev.write(3, &page(42)).unwrap();
    dev.flush().unwrap();
    let files = |dir: &Path| {
        let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        paths.into_iter().map(|p| (p.clone(), std::fs::read(p).unwrap())).collect::<Vec<_>>()
    };
    let before = files(dir.path());
    let err = BackingStore::open(dir.path()).err().expect("the store is locked");
    assert!(err.to_string().contains("in use by another process"), "{err}");
    assert!(BackingStore::create(dir.path(), &spec).is_err());
    assert!(before == files(dir.path()), "the refused opener changed nothing");
    assert!(*dev.read(3).unwrap() == *page(42));
}

#[test]
fn a_flipped_byte_in_a_stored_page_is_an_error_on_read_and_in_scrub_never_data() {
    let dir = tempfile::tempdir().unwrap();
    let spec = StoreSpec::of("large", &setup());
    let mut dev = Device::new(transport(), BackingStore::create(dir.path(), &spec).unwrap(), true).unwrap();
    // Three LPAs share one copy; a fourth has its own.
    for lpa in [0, 5, 9] {
        dev.write(lpa, &page(77)).unwrap();
    }
    dev.write(1, &page(78)).unwrap();
    dev.flush().unwrap();
    let shared = dev.mirror().lookup(5).unwrap().ppa;
    drop(dev);
    let (store, _) = BackingStore::open(dir.path()).unwrap();
    let mut data = store.read(shared).unwrap();
    data[1000] ^= 0x40;
    store.write(shared, &data).unwrap();
    drop(store);

    let scrub = ditto_host::store::scrub(dir.path()).unwrap();
    assert_eq!(scrub.bad_pages.len(), 1, "{scrub:?}");
    assert_eq!(scrub.bad_pages[0].lpas, vec![0, 5, 9]);
    let (store, recovered) = BackingStore::open(dir.path()).unwrap();
    let (mut dev, report) = Device::open(transport(), store, recovered, true).unwrap();
    // Reopening copies the data only if the rebuilt layout differs; a copy
    // finds the bad page (first met at LPA 0) and carries it as it is.
    assert!(report.corrupt_lpas.is_empty() || report.corrupt_lpas == [0], "{report:?}");
    for lpa in [0, 5, 9] {
        let err = dev.read(lpa).expect_err("a corrupt page is never data");
        assert!(matches!(err, ditto_host::driver::DriverError::Corrupt { .. }), "{err}");
    }
    assert!(*dev.read(1).unwrap() == *page(78), "the other page is intact");
    assert_eq!(dev.driver_stats().corrupt_reads, 3);
    // A new write of the content gets a good copy of its own, not the bad one.
    dev.write(20, &page(77)).unwrap();
    assert!(*dev.read(20).unwrap() == *page(77));
}

#[test]
fn a_store_written_in_lpa_order_reopens_without_copying_and_keeps_its_data() {
    // Written once, in LPA order: the rebuilt core lays the data out as it
    // lies, so each open checkpoints the journal's operations in place.
    let dir = tempfile::tempdir().unwrap();
    let spec = StoreSpec::of("large", &setup());
    let mut dev = Device::new(transport(), BackingStore::create(dir.path(), &spec).unwrap(), true).unwrap();
    for lpa in 0..LPAS {
        dev.write(lpa, &page(1_000 + lpa % 7)).unwrap();
    }
    dev.flush().unwrap();
    drop(dev);
    for round in 0..3 {
        let (store, recovered) = BackingStore::open(dir.path()).unwrap();
        let (mut dev, report) = Device::open(transport(), store, recovered, true).unwrap();
        assert!(!report.compacted, "round {round}: {report:?}");
        assert_eq!(report.rebuilt_lpas, LPAS as u64, "round {round}");
        for lpa in 0..LPAS {
            assert!(*dev.read(lpa).unwrap() == *page(1_000 + lpa % 7), "round {round}: LPA {lpa}");
        }
    }
}

#[test]
fn checkpoints_while_running_bound_the_journal_and_a_crash_after_them_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let spec = StoreSpec::of("large", &setup());
    let mut dev = Device::new(transport(), BackingStore::create(dir.path(), &spec).unwrap(), true).unwrap();
    dev.set_checkpoint_min(1);
    let mut expect = vec![0u32; LPAS as usize];
    let mut at_flush = expect.clone();
    let mut largest_journal = 0;
    for op in workload(11, 400) {
        match op {
            Op::Write { pages, .. } => {
                let data: Vec<(u32, Box<[u8; PAGE]>)> = pages.iter().map(|&(l, c)| (l, page(c))).collect();
                let refs: Vec<(u32, &[u8; PAGE])> = data.iter().map(|(l, p)| (*l, &**p)).collect();
                dev.write_batch(&refs).unwrap();
                pages.iter().for_each(|&(l, c)| expect[l as usize] = c);
            }
            Op::Trim { lpa } => {
                dev.trim(lpa).unwrap();
                expect[lpa as usize] = 0;
            }
            Op::Read { lpas } => {
                for lpa in lpas {
                    assert_eq!(*dev.read(lpa).unwrap(), *page(expect[lpa as usize]), "LPA {lpa}");
                }
            }
            Op::Flush => {
                dev.flush().unwrap();
                at_flush.clone_from(&expect);
            }
        }
        largest_journal = largest_journal.max(dev.store().journal_bytes());
    }
    let checkpoints = dev.driver_stats().checkpoints;
    assert!(checkpoints >= 3, "flushes past the journal's bound checkpoint: {checkpoints}");
    assert!(dev.driver_stats().relocations > 0);
    let generation = dev.store().generation();
    assert_eq!(generation, checkpoints, "each checkpoint is a generation");
    // A crash (no flush after the last writes): the last checkpoint and the
    // journal after it recover at least everything flushed.
    drop(dev);
    let (store, recovered) = BackingStore::open(dir.path()).unwrap();
    assert!(recovered.report.committed_operations + recovered.report.recovered_operations < 400);
    let (mut dev, report) = Device::open(transport(), store, recovered, true).unwrap();
    assert!(report.recovery.generation == generation, "{report:?}");
    for lpa in 0..LPAS {
        let data = dev.read(lpa).unwrap();
        let (flushed, last) = (page(at_flush[lpa as usize]), page(expect[lpa as usize]));
        assert!(*data == *flushed || *data == *last, "LPA {lpa}");
    }
    println!("{checkpoints} checkpoints, largest journal {largest_journal} bytes");
}

#[test]
fn a_checkpoint_cut_after_its_links_leaves_the_data_whole() {
    // A checkpoint links the device files under the next generation's
    // names before it switches; a crash there leaves the links behind. The
    // next open copies into that generation: into new files, not through
    // the links into the data it copies from.
    let dir = tempfile::tempdir().unwrap();
    let spec = StoreSpec::of("large", &setup());
    let mut dev = Device::new(transport(), BackingStore::create(dir.path(), &spec).unwrap(), true).unwrap();
    for lpa in (0..LPAS).rev() {
        dev.write(lpa, &page(500 + lpa)).unwrap();
    }
    dev.flush().unwrap();
    drop(dev);
    std::fs::hard_link(dir.path().join("device0.g0.img"), dir.path().join("device0.g1.img")).unwrap();
    let (store, recovered) = BackingStore::open(dir.path()).unwrap();
    let (mut dev, report) = Device::open(transport(), store, recovered, true).unwrap();
    assert!(report.compacted, "written in reverse order, the rebuild lays the pages out otherwise: {report:?}");
    assert!(report.corrupt_lpas.is_empty(), "{report:?}");
    for lpa in 0..LPAS {
        assert!(*dev.read(lpa).unwrap() == *page(500 + lpa), "LPA {lpa}");
    }
}
