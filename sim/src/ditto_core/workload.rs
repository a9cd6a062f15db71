//! Command streams for tests and benchmarks.
use super::{Job, Page};
use ditto_hw::ftl::model::Command;
use ditto_hw::ftl::{Op, STATS};
use ditto_hw::index::Fingerprint;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A page whose content is named by `content` (same number, same bytes).
pub fn page_of(content: u32) -> Box<Page> {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0000_0000 ^ content as u64);
    let mut page = Box::new([0u8; 4096]);
    rng.fill(&mut page[..]);
    page
}

/// A fingerprint named by `content` (for `WRITE_FP`; distinct from pages').
pub fn fp_of(content: u32) -> Fingerprint {
    let mut rng = ChaCha8Rng::seed_from_u64(0xf00d_0000_0000 ^ content as u64);
    rng.gen()
}

pub fn job(op: Op, tag: u8, lpa: u32, content: u32) -> Job {
    match op {
        Op::Write => Job { cmd: Command::new(op, tag, lpa, [0; 20]), page: Some(page_of(content)) },
        _ => Job { cmd: Command::new(op, tag, lpa, fp_of(content)), page: None },
    }
}

/// Contents `0..HOT_CONTENTS` are the hot ones of [`mixed`].
pub const HOT_CONTENTS: u32 = 3;

/// A random mix: writes rich in duplicates, skewed as real disks are
/// (one write in four is one of [`HOT_CONTENTS`] hot contents, the rest
/// from a pool of `contents` cold ones), overwrites, `WRITE_UNIQUE`s,
/// reads, trims, statistics (some out of range), out-of-range LPAs, a
/// `SYNC` now and then and a `RESET` about once in 5,000 commands.
/// `full_pages` of every 1,000 writes are full-page `WRITE`s.
pub fn mixed(rng: &mut ChaCha8Rng, n: usize, lpas: u32, contents: u32, full_pages: u32) -> Vec<Job> {
    (0..n)
        .map(|i| {
            let tag = i as u8;
            let lpa = if rng.gen_ratio(1, 200) { lpas + rng.gen_range(0..16) } else { rng.gen_range(0..lpas) };
            let content = if rng.gen_ratio(1, 4) {
                rng.gen_range(0..HOT_CONTENTS)
            } else {
                HOT_CONTENTS + rng.gen_range(0..contents)
            };
            match rng.gen_range(0..100) {
                0..=59 if rng.gen_range(0..1000) < full_pages => job(Op::Write, tag, lpa, content),
                0..=59 => job(Op::WriteFp, tag, lpa, content),
                60..=62 => job(Op::WriteUnique, tag, lpa, content),
                63..=79 => job(Op::Read, tag, lpa, 0),
                80..=96 => job(Op::Trim, tag, lpa, 0),
                97..=98 => job(Op::Stats, tag, rng.gen_range(0..STATS as u32 + 2), 0),
                _ if rng.gen_ratio(1, 50) => job(Op::Reset, tag, 0, 0),
                _ => job(Op::Sync, tag, 0, 0),
            }
        })
        .collect()
}

/// `READ` of every LPA (tags continue from `first_tag`).
pub fn read_all(lpas: u32, first_tag: usize) -> Vec<Job> {
    (0..lpas).map(|l| job(Op::Read, (first_tag + l as usize) as u8, l, 0)).collect()
}

/// Overwrites that free the same few page ids again and again, so their
/// versions run through every value and wrap: one write in four is a hot
/// content to any LPA, one command in ten a `READ`, and the rest are
/// contents never seen before written over LPA 0 or 1. On a small flash
/// each of those frees the page id the LPA had, and the free page ids are
/// a stack, so the same few come back. Contents are named from
/// `first_content` up (keep it clear of other streams' contents).
pub fn version_churn(rng: &mut ChaCha8Rng, n: usize, lpas: u32, first_content: u32) -> Vec<Job> {
    (0..n)
        .map(|i| {
            let tag = i as u8;
            match rng.gen_range(0..20) {
                0..=4 => job(Op::WriteFp, tag, rng.gen_range(0..lpas), rng.gen_range(0..HOT_CONTENTS)),
                5..=6 => job(Op::Read, tag, rng.gen_range(0..lpas), 0),
                _ => job(Op::WriteFp, tag, rng.gen_range(0..2.min(lpas)), first_content + i as u32),
            }
        })
        .collect()
}
