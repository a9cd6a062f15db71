//! The driver's device API over its transports: the same seeded workload
//! through the cosimulated core and the golden model gives the same results
//! and the same data; collisions are caught; bad input gets typed errors.
use ditto_host::driver::{
    setup_for, BackingStore, Completion, Device, DriverError, Transport, TransportError, Written, PAGE,
};
use ditto_host::store::format::StoreSpec;
use ditto_host::transport::{CosimTransport, ModelTransport};
use ditto_hw::config::LARGE;
use ditto_hw::ftl::{Op, Stat};
use ditto_hw::index::model::IndexStats;
use ditto_sim::ditto_core::Job;
use ditto_sim::testkit::{rng, seed};
use rand::Rng;

/// A store in a temporary folder, removed with the store.
fn store(_name: &str, setup: &ditto_sim::ditto_core::CoreSetup) -> BackingStore {
    BackingStore::temporary(&StoreSpec::of("large", setup)).unwrap()
}

fn page(content: u32) -> Box<[u8; PAGE]> {
    let mut p = Box::new([0u8; PAGE]);
    for (i, b) in p.iter_mut().enumerate() {
        *b = (content as usize * 31 + i / 64) as u8;
    }
    p[0..4].copy_from_slice(&content.to_be_bytes());
    p
}

/// Runs a seeded mix of writes, overwrites, trims and reads; returns every
/// outcome (as text) and the final counters.
fn workload<T: Transport>(dev: &mut Device<T>, seed: u64) -> (Vec<String>, [u32; 12]) {
    let mut r = rng(seed);
    let mut content: Vec<Option<u32>> = vec![None; dev.lpas() as usize];
    let mut log = Vec::new();
    for _ in 0..150 {
        let lpa = r.gen_range(0..dev.lpas());
        match r.gen_range(0..10) {
            0..=5 => {
                let c = r.gen_range(0..40);
                log.push(format!("{:?}", dev.write(lpa, &page(c)).unwrap()));
                content[lpa as usize] = Some(c);
            }
            6 => {
                dev.trim(lpa).unwrap();
                content[lpa as usize] = None;
            }
            _ => {
                let got = dev.read(lpa).unwrap();
                let want = content[lpa as usize].map_or(Box::new([0; PAGE]), page);
                assert!(got == want, "lpa {lpa} reads back what was written");
            }
        }
    }
    dev.flush().unwrap();
    for lpa in 0..dev.lpas() {
        let want = content[lpa as usize].map_or(Box::new([0; PAGE]), page);
        assert!(dev.read(lpa).unwrap() == want, "lpa {lpa} reads back its last content");
    }
    (log, dev.stats().unwrap())
}

#[test]
fn the_same_workload_through_the_cosimulated_core_and_the_model_gives_the_same_results() {
    let seed = seed("driver_transports");
    let setup = setup_for(64, 2).unwrap();
    let mut cosim = Device::new(CosimTransport::new(&LARGE, setup).unwrap(), store("cosim", &setup), true).unwrap();
    let mut model = Device::new(ModelTransport::new(setup.core_config(&LARGE)), store("model", &setup), true).unwrap();
    let (a, sa) = workload(&mut cosim, seed);
    let (b, sb) = workload(&mut model, seed);
    assert_eq!(a, b, "the same outcomes, write by write");
    assert_eq!(sa, sb, "the same counters");
    assert!(sa[Stat::DuplicateWrites as usize] > 0 && sa[Stat::UniqueWrites as usize] > 0);
    assert_eq!(cosim.transport().index_stats().unwrap(), model.transport().index_stats().unwrap());
    assert!(cosim.transport().cycles() > 0);
}

/// A transport that gives pages a deliberately weak fingerprint (their first
/// byte, repeated), so different pages collide as two SHA-1-colliding pages
/// would: the core shares them, and the driver must not.
struct WeakFingerprints(ModelTransport);

impl Transport for WeakFingerprints {
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, TransportError> {
        let jobs: Vec<Job> = jobs
            .iter()
            .map(|j| match &j.page {
                Some(p) => {
                    let mut cmd = j.cmd;
                    cmd.op = Op::WriteFp as u8;
                    cmd.fp = [p[0]; 20];
                    Job { cmd, page: None }
                }
                None => j.clone(),
            })
            .collect();
        self.0.execute(&jobs)
    }
    fn index_stats(&mut self) -> Result<IndexStats, TransportError> {
        self.0.index_stats()
    }
    fn cycles(&self) -> u64 {
        0
    }
    fn name(&self) -> String {
        "weak fingerprints".into()
    }
}

#[test]
fn a_collision_is_caught_and_both_pages_read_back_intact() {
    let setup = setup_for(16, 1).unwrap();
    let mut dev =
        Device::new(WeakFingerprints(ModelTransport::new(setup.core_config(&LARGE))), store("collision", &setup), true)
            .unwrap();
    let (a, mut b) = (page(7), page(7));
    b[100] ^= 0xff; // same first byte: same weak fingerprint, different bytes
    assert!(matches!(dev.write(0, &a).unwrap(), Written::Unique { .. }));
    assert!(matches!(dev.write(1, &b).unwrap(), Written::Collision { .. }));
    assert!(matches!(dev.write(2, &a).unwrap(), Written::Duplicate { .. }), "a true duplicate is still shared");
    assert!(dev.read(0).unwrap() == a && dev.read(1).unwrap() == b && dev.read(2).unwrap() == a);
    assert_eq!(dev.driver_stats().collisions_caught, 1);

    // With verification off the collision goes unseen: the reason it is on.
    let mut trusting =
        Device::new(WeakFingerprints(ModelTransport::new(setup.core_config(&LARGE))), store("trusting", &setup), false)
            .unwrap();
    trusting.write(0, &a).unwrap();
    assert!(matches!(trusting.write(1, &b).unwrap(), Written::Duplicate { .. }));
    assert!(trusting.read(1).unwrap() == a, "merged: what verification prevents");
}

/// The first 320 bytes of `shattered-1.pdf` and `shattered-2.pdf` (SHAttered,
/// 2017; `tests/data/shattered-prefixes.hex`, one per line): different bytes
/// with the same SHA-1 state after five blocks, so any common suffix keeps
/// the collision.
fn shattered_pages() -> (Box<[u8; PAGE]>, Box<[u8; PAGE]>) {
    let text = include_str!("data/shattered-prefixes.hex");
    let prefixes: Vec<Vec<u8>> = text
        .lines()
        .map(|line| (0..line.len()).step_by(2).map(|i| u8::from_str_radix(&line[i..i + 2], 16).unwrap()).collect())
        .collect();
    let make = |prefix: &[u8]| {
        let mut p = page(99);
        p[..320].copy_from_slice(prefix);
        p
    };
    (make(&prefixes[0]), make(&prefixes[1]))
}

#[test]
fn a_real_sha1_collision_hashed_by_the_cosimulated_lanes_is_caught() {
    use sha1::{Digest, Sha1};
    let (a, b) = shattered_pages();
    assert_ne!(a, b);
    assert_eq!(Sha1::digest(&a[..]), Sha1::digest(&b[..]), "the SHAttered pages collide");
    let setup = setup_for(16, 1).unwrap();
    let transport = CosimTransport::new(&LARGE, setup).unwrap();
    let mut dev = Device::new(transport, store("shattered", &setup), true).unwrap();
    assert!(matches!(dev.write(0, &a).unwrap(), Written::Unique { .. }));
    // The hardware lanes give both pages one fingerprint: the core reports a
    // duplicate, and the driver's byte check stores the page apart.
    assert!(matches!(dev.write(1, &b).unwrap(), Written::Collision { .. }));
    assert!(dev.read(0).unwrap() == a && dev.read(1).unwrap() == b, "both pages read back intact");
    assert_eq!(dev.driver_stats().collisions_caught, 1);
    dev.flush().unwrap();

    let mut trusting =
        Device::new(CosimTransport::new(&LARGE, setup).unwrap(), store("shattered-trusting", &setup), false).unwrap();
    trusting.write(0, &a).unwrap();
    assert!(matches!(trusting.write(1, &b).unwrap(), Written::Duplicate { .. }), "the core alone merges them");
    assert!(trusting.read(1).unwrap() == a);
}

#[test]
fn bad_requests_get_typed_errors_and_lose_nothing() {
    let setup = setup_for(8, 1).unwrap();
    let usable = setup.geometry.usable_pages_per_device();
    let lpas = usable + 4;
    let mut s = setup;
    s.lpas = lpas;
    let mut dev = Device::new(ModelTransport::new(s.core_config(&LARGE)), store("errors", &s), true).unwrap();
    assert!(matches!(dev.write(lpas, &page(1)), Err(DriverError::OutOfRange { .. })));
    assert!(matches!(dev.read(lpas + 9), Err(DriverError::OutOfRange { .. })));
    for lpa in 0..usable {
        dev.write(lpa, &page(1_000 + lpa)).unwrap();
    }
    assert!(matches!(dev.write(usable, &page(5)), Err(DriverError::DeviceFull { .. })));
    for lpa in 0..usable {
        assert!(dev.read(lpa).unwrap() == page(1_000 + lpa), "lpa {lpa} kept");
    }
    assert!(dev.read(usable).unwrap() == Box::new([0; PAGE]), "the refused write mapped nothing");
}
