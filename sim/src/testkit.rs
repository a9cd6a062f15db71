//! Helpers for seeded random tests: every random test takes its seed from
//! [`seed`], which prints it, so any failure can be replayed.
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The seed of a random test: `DITTO_SEED` if set, otherwise a fresh one.
/// Always printed, so any failure can be replayed with `DITTO_SEED=<seed>`.
pub fn seed(test: &str) -> u64 {
    let seed = match std::env::var("DITTO_SEED") {
        Ok(s) => s.parse().expect("DITTO_SEED must be an unsigned integer"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
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
