//! Cosimulation of the wide hasher (`ditto_hw::sha1::wide`, a 256-bit page
//! stream and lanes in groups of four) against the `sha1` crate: a skewed
//! page mix (hot pages among cold ones) under random stalls on both
//! handshakes, the steady state at one page a lane per 5,200 cycles, reset
//! in the middle of a page, and lane counts it cannot build.
use ditto_sim::hasher::{first_mismatch, sha1_of, HashError, HasherSim, Stalls};
use ditto_sim::testkit as common;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Lanes of the hasher these tests build: two groups, so that beats go to
/// more than one group's buffer and digests come back across groups.
const LANES: usize = 8;

/// A page mix with hot pages among cold: a quarter of the pages are one of
/// four hot contents (all zeros, all ones, a counting pattern, one random
/// page), the rest are random.
fn skewed_pages(rng: &mut ChaCha8Rng, n: usize) -> Vec<[u8; 4096]> {
    let mut counting = [0u8; 4096];
    for (i, b) in counting.iter_mut().enumerate() {
        *b = i as u8;
    }
    let hot = [[0u8; 4096], [0xff; 4096], counting, common::random_page(rng)];
    (0..n)
        .map(|_| if rng.gen_bool(0.25) { hot[rng.gen_range(0..hot.len())] } else { common::random_page(rng) })
        .collect()
}

#[test]
fn skewed_pages_with_stalls_hash_like_the_sha1_crate() {
    skewed_pages_with_stalls(LANES, "wide_skewed_pages_with_stalls");
}

/// One group: its digests are the only ones, and the hasher takes them
/// back to back from the same group's output register.
#[test]
fn one_group_of_four_lanes() {
    skewed_pages_with_stalls(4, "wide4_skewed_pages_with_stalls");
}

/// Three groups: the groups' turn wraps at a count that is no power of two.
#[test]
fn three_groups_of_four_lanes() {
    skewed_pages_with_stalls(12, "wide12_skewed_pages_with_stalls");
}

fn skewed_pages_with_stalls(lanes: usize, test: &str) {
    let mut sim = HasherSim::wide(lanes).unwrap_or_else(|e| panic!("{e}"));
    // Batches of up to five rounds of the lanes, so slots are reused.
    common::hash_in_stall_batches(&mut sim, 600, 5 * lanes, test, skewed_pages);
}

#[test]
fn steady_state_is_5200_cycles_per_page_per_lane() {
    let mut sim = HasherSim::wide(LANES).unwrap_or_else(|e| panic!("{e}"));
    let pages = vec![[7u8; 4096]; 6 * LANES];
    let run = sim.hash_verified(&pages, Stalls::NONE, "wide_steady_state").unwrap();
    let cycles = run.page_cycles();
    // After the lanes have filled, every `LANES` pages take exactly 5,200
    // cycles: the lanes never wait for a word.
    for window in cycles[2 * LANES..].chunks_exact(LANES) {
        assert_eq!(window.iter().sum::<u64>(), 5_200, "per-page cycles {cycles:?}");
    }
    // And the stream is taken at a beat a clock while a slot is free: the
    // first `LANES` pages go in back to back.
    for (i, t) in run.timing[..LANES].iter().enumerate() {
        assert_eq!(t.last_word - t.first_word, 127, "page {i}: {:?}", run.timing);
        if i > 0 {
            assert_eq!(t.first_word, run.timing[i - 1].last_word + 1, "page {i}: {:?}", run.timing);
        }
    }
}

#[test]
fn reset_mid_page_drops_the_partial_page() {
    let mut rng = common::rng(common::seed("wide_reset_mid_page"));
    let mut sim = HasherSim::wide(LANES).unwrap_or_else(|e| panic!("{e}"));
    let m = sim.model_mut();
    let (beat_in, beat_valid, reset) =
        (m.input("page$beat").unwrap(), m.input("page$valid").unwrap(), m.input("reset").unwrap());
    let beat_ready = m.port("page$ready").unwrap();
    m.set(m.input("digest_ready").unwrap(), 1);
    // A page and a half of random beats, then reset with a beat on offer.
    let mut sent = 0;
    for cycle in 0.. {
        assert!(cycle < 10_000, "only {sent} beats taken");
        if sent == 192 {
            break;
        }
        let beat: Vec<u32> = (0..8).map(|_| rng.gen()).collect();
        m.set_words(beat_in, &beat);
        m.set(beat_valid, 1);
        m.eval();
        if m.get(beat_ready) == 1 {
            sent += 1;
        }
        m.tick();
    }
    m.set(reset, 1);
    m.eval();
    assert_eq!(m.get(beat_ready), 0, "beat ready while in reset");
    m.tick();
    m.set(reset, 0);
    m.set(beat_valid, 0);
    // No further reset: the pulse alone must leave the hasher clean.
    let after = skewed_pages(&mut rng, 2 * LANES + 3);
    let run = sim.hash(&after, Stalls::NONE, None).unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<[u8; 20]> = after.iter().map(sha1_of).collect();
    assert_eq!(first_mismatch(&run, &expected), None, "a page after the reset hashed wrong");
}

#[test]
fn lane_counts_it_cannot_build_are_typed_errors() {
    for lanes in [0, 6, 68] {
        match HasherSim::wide(lanes) {
            Err(HashError::WideLanes { lanes: l }) => assert_eq!(l, lanes),
            Err(e) => panic!("{lanes} lanes: {e}"),
            Ok(_) => panic!("{lanes} lanes were built"),
        }
    }
}
