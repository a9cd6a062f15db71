//! The SHA-1 page-hashing pipeline: one engine per lane, and the multi-lane hasher.
pub mod engine;
pub mod hasher;

pub use engine::{Sha1Engine, BLOCKS_PER_PAGE, CYCLES_PER_PAGE, PAGE_BYTES, PAGE_WORDS, SHA1_IV, SHA1_K};
pub use hasher::Sha1Hasher;
