//! The SHA-1 page-hashing pipeline: one engine per lane, the multi-lane hasher behind a 32-bit stream, and the wide one behind a
//! 256-bit stream.
pub mod engine;
pub mod hasher;
pub mod wide;

pub use engine::{Sha1Engine, BLOCKS_PER_PAGE, CYCLES_PER_PAGE, PAGE_BYTES, PAGE_WORDS, SHA1_IV, SHA1_K};
pub use hasher::Sha1Hasher;
pub use wide::Sha1WideHasher;
