//! Page-level cosimulation of every configuration's hasher against the `sha1`
//! crate: fixed pages, 10,000+ seeded random pages with random stalls on both
//! handshakes, reset in the middle of a page, and the waveform a failure writes.
use ditto_sim::hasher::{first_mismatch, sha1_of, HashError, HasherSim, Recording, Stalls};
use ditto_sim::stream::PageStream;
use ditto_sim::testkit as common;

#[test]
fn all_zero_and_all_ones_pages_every_config() {
    for cfg in ditto_hw::CONFIGS {
        let mut sim = HasherSim::new(cfg).unwrap();
        let pages = [[0u8; 4096], [0xff; 4096], [0u8; 4096], [0xff; 4096], [0xff; 4096]];
        let run = sim.hash_verified(&pages, Stalls::NONE, &format!("zeros_ones_{}", cfg.name)).unwrap();
        assert_eq!(run.digests[0], sha1_of(&[0u8; 4096]));
        assert_eq!(run.digests[1], sha1_of(&[0xffu8; 4096]));
    }
}

/// Hashes `pages` random pages on `config` in chunks, each chunk with its own
/// stall probabilities, including long back-pressure on the digest side.
fn random_pages_with_stalls(config: &ditto_hw::Config, pages: usize, test: &str) {
    let mut sim = HasherSim::new(config).unwrap();
    common::hash_in_stall_batches(&mut sim, pages, 400, test, |rng, n| {
        (0..n).map(|_| common::random_page(rng)).collect()
    });
}

#[test]
fn random_pages_with_stalls_cu() {
    random_pages_with_stalls(&ditto_hw::config::CU, 6_000, "random_pages_with_stalls_cu");
}

#[test]
fn random_pages_with_stalls_large() {
    random_pages_with_stalls(&ditto_hw::config::LARGE, 4_000, "random_pages_with_stalls_large");
}

#[test]
fn reset_mid_page_drops_the_partial_page() {
    for cfg in ditto_hw::CONFIGS {
        let mut rng = common::rng(common::seed("reset_mid_page_drops_the_partial_page"));
        let mut sim = HasherSim::new(cfg).unwrap();
        let first: Vec<[u8; 4096]> = (0..3).map(|_| common::random_page(&mut rng)).collect();
        // Start three pages, then reset after a page and a half has gone in.
        let m = sim.model_mut();
        let stream = PageStream::find(m).unwrap();
        let per_page = stream.transfers_per_page();
        let (word_valid, reset) = (m.input("page$valid").unwrap(), m.input("reset").unwrap());
        let word_ready = m.port("page$ready").unwrap();
        let digest_ready = m.input("digest_ready").unwrap();
        m.set(digest_ready, 1);
        let mut sent = 0;
        for cycle in 0.. {
            assert!(cycle < 100_000, "{}: only {sent} transfers taken", cfg.name);
            if sent == per_page + per_page / 2 {
                break;
            }
            stream.load(m, &first[sent / per_page], sent % per_page);
            m.set(word_valid, 1);
            m.eval();
            if m.get(word_ready) == 1 {
                sent += 1;
            }
            m.tick();
        }
        // Reset with a word on offer: none may be taken while reset is high.
        m.set(reset, 1);
        m.eval();
        assert_eq!(m.get(word_ready), 0, "{}: word_ready while in reset", cfg.name);
        m.tick();
        m.set(reset, 0);
        m.set(word_valid, 0);
        // No further reset: the pulse alone must leave the hasher clean.
        let after: Vec<[u8; 4096]> = (0..5).map(|_| common::random_page(&mut rng)).collect();
        let run = sim.hash(&after, Stalls::NONE, None).unwrap_or_else(|e| panic!("{}: {e}", cfg.name));
        let expected: Vec<[u8; 20]> = after.iter().map(sha1_of).collect();
        assert_eq!(first_mismatch(&run, &expected), None, "{}: a page after the reset hashed wrong", cfg.name);
    }
}

#[test]
fn a_failing_cosimulation_writes_a_waveform_and_names_it() {
    let pages = [[1u8; 4096], [2u8; 4096]];
    let mut expected = [sha1_of(&pages[0]), sha1_of(&pages[1])];
    expected[1][0] ^= 1; // a wrong reference forces the failure path
    let mut sim = HasherSim::new(&ditto_hw::config::CU).unwrap();
    let label = "deliberate_mismatch_waveform";
    match sim.hash_checked(&pages, &expected, Stalls::NONE, Recording::OnFailure { label }) {
        Err(HashError::Mismatch { page, waveform, .. }) => {
            assert_eq!(page, 1);
            let meta = std::fs::metadata(&waveform).unwrap_or_else(|e| panic!("{waveform}: {e}"));
            assert!(meta.len() > 10_000, "waveform {waveform} has only {} bytes", meta.len());
            let text = std::fs::read_to_string(&waveform).unwrap();
            assert!(text.contains("$enddefinitions") && text.contains("page$ready"));
            std::fs::remove_file(&waveform).unwrap();
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
}

#[test]
fn steady_state_is_5200_cycles_per_page_per_lane() {
    for cfg in ditto_hw::CONFIGS {
        let mut sim = HasherSim::new(cfg).unwrap();
        let pages = vec![[7u8; 4096]; 4 * cfg.lanes + 8];
        let run = sim.hash_verified(&pages, Stalls::NONE, &format!("steady_state_{}", cfg.name)).unwrap();
        let cycles = run.page_cycles();
        // After the lanes have filled, every `lanes` pages take exactly 5,200 cycles.
        let tail = &cycles[2 * cfg.lanes..];
        for window in tail.chunks_exact(cfg.lanes) {
            assert_eq!(window.iter().sum::<u64>(), 5_200, "{}: per-page cycles {cycles:?}", cfg.name);
        }
    }
}
