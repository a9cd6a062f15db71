//! Helpers for seeded random tests: every random test takes its seed from
//! [`seed`], which prints it, so any failure can be replayed.
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The seed of a random test: `DITTO_SEED` if set, otherwise a fresh one.
/// Always printed, so any failure can be replayed with `DITTO_SEED=<seed>`.
pub fn seed(test: &str) -> u64 {
    let seed = match std::env::var("DITTO_SEED") {
        Ok(s) => s.parse().expect("DITTO_SEED must be an unsigned integer"),
        Err(_) => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64,
    };
    println!("{test}: seed {seed} (replay with DITTO_SEED={seed})");
    seed
}

/// The generator every random test draws from.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A page of random bytes.
pub fn random_page(rng: &mut ChaCha8Rng) -> [u8; 4096] {
    let mut page = [0u8; 4096];
    rng.fill(&mut page[..]);
    page
}

/// Hashes `pages` pages through `sim` in batches of 1 to `max_batch`
/// pages, each made by `make` (from the test's seeded generator) and run
/// with its own stall profile on both handshakes, including long digest
/// back-pressure; every digest is checked against the `sha1` crate, and a
/// failure panics naming the seed, the batch and its waveform.
pub fn hash_in_stall_batches(
    sim: &mut crate::hasher::HasherSim,
    pages: usize,
    max_batch: usize,
    test: &str,
    mut make: impl FnMut(&mut ChaCha8Rng, usize) -> Vec<[u8; 4096]>,
) {
    let seed = seed(test);
    let mut rng = rng(seed);
    let profiles = [(1.0, 1.0), (0.9, 0.9), (0.5, 0.5), (0.05, 1.0), (1.0, 0.001), (0.3, 0.02)];
    let mut done = 0;
    while done < pages {
        let n = rng.gen_range(1..=max_batch).min(pages - done);
        let batch = make(&mut rng, n);
        let (word_valid, digest_ready) = profiles[rng.gen_range(0..profiles.len())];
        let stalls = crate::hasher::Stalls { word_valid, digest_ready, seed: rng.gen() };
        let label = format!("{test}_seed{seed}_page{done}");
        if let Err(e) = sim.hash_verified(&batch, stalls, &label) {
            panic!("{test} (seed {seed}, pages {done}..{}, stalls {stalls:?}): {e}", done + n);
        }
        done += n;
    }
}

/// Cycles of waveform kept before the failing cycle when a test is replayed.
pub const WAVEFORM_WINDOW: u64 = 50_000;

/// Runs a cosimulation test body on a fresh instance of `model`. If the body
/// panics, it is run again on another fresh instance, deterministically (its
/// randomness must come from a seed), with a VCD waveform recorded over the
/// last [`WAVEFORM_WINDOW`] cycles before the failure; the test then fails
/// with the original message and the waveform's path.
pub fn cosim(label: &str, model: &str, body: impl Fn(&mut crate::Model)) {
    use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
    let mut first = crate::Model::new(model).unwrap_or_else(|e| panic!("{e}"));
    let failure = match catch_unwind(AssertUnwindSafe(|| body(&mut first))) {
        Ok(()) => return,
        Err(panic) => panic,
    };
    let failed_at = first.cycles();
    drop(first);
    let path = crate::waveform_dir().join(format!("{label}.vcd"));
    let mut replay = crate::Model::traced(model).unwrap_or_else(|e| panic!("{e}"));
    let where_ = match replay.start_waveform_at(&path, failed_at.saturating_sub(WAVEFORM_WINDOW)) {
        Ok(()) => {
            let _ = catch_unwind(AssertUnwindSafe(|| body(&mut replay)));
            replay.finish_waveform();
            format!("waveform of cycles {}..{failed_at}: {}", failed_at.saturating_sub(WAVEFORM_WINDOW), path.display())
        }
        Err(e) => format!("no waveform: {e}"),
    };
    eprintln!("{label}: cosimulation failed at cycle {failed_at}; {where_}");
    resume_unwind(failure)
}
