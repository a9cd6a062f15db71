//! The SHA-1 page-hashing pipeline: one engine per lane, the multi-lane hasher behind a 32-bit stream, and the wide one behind a
//! 256-bit stream.
pub mod engine;
pub mod hasher;
pub mod wide;

pub use engine::{Sha1Engine, BLOCKS_PER_PAGE, CYCLES_PER_PAGE, PAGE_BYTES, PAGE_WORDS, SHA1_IV, SHA1_K};
pub use hasher::Sha1Hasher;
pub use wide::Sha1WideHasher;

/// Steady-state clock cycles per page of `lanes` lanes behind a stream a
/// page crosses in `transfers` clocks: the SHA-1 limit of 5,200 cycles per
/// page per lane, or the stream's, whichever is larger.
pub fn cycles_per_page_limit(lanes: usize, transfers: usize) -> f64 {
    (CYCLES_PER_PAGE as f64 / lanes as f64).max(transfers as f64)
}
