//! The fingerprint index: for each page's SHA-1 fingerprint, "seen before:
//! here is its entry" or "new: remember it", with reference counts.
//!
//! # Organisation
//! - **Buckets of [`WAYS`] entries.** A fingerprint's bucket is its low bits;
//!   entry `e` is way `e mod 8` of bucket `e / 8`, so an entry needs no next
//!   pointer and its number names the slot it lives in (the chain limit is
//!   eight). Each way holds a [`SIG_BITS`]-bit *signature* (more bits of the
//!   fingerprint) and a [`REFCOUNT_BITS`]-bit reference count.
//! - **Bucket metadata**: a [`BLOOM_BITS`]-bit Bloom filter (k = 3, indices
//!   taken from the signature, so a filter can be rebuilt from the ways alone)
//!   and an occupancy mask of the eight ways.
//! - **Full fingerprints** are kept apart, one per entry, behind their own
//!   port (ChunkStash's idea): a signature match is confirmed with one read of
//!   the full 160 bits, so two different fingerprints are never confused.
//!
//! # Memory ports
//! The table (metadata and ways) sits behind a tagged request/response port
//! of any latency ([`TABLE_ADDR_BITS`] address bits, [`TABLE_DATA_BITS`] data
//! bits): the `cu` configuration binds it to block RAM, `large` exposes it.
//! The full fingerprints sit behind a second port of the same kind.
//! Both ports must apply requests in the order they accept them (a read sees
//! every write accepted before it) and answer reads in that order, one
//! response per read and none per write, tagged with the request's tag, at
//! least one clock after the read was accepted (any latency from 1 up).
//!
//! The [`model`] module is the plain-Rust golden model of this behaviour.
pub mod fp_index;
pub mod fsm;
pub mod index_response_stage;
pub mod mem_request_stage;
pub mod model;
pub mod onchip;
pub mod table;

/// Ways (entries) per bucket: the chain limit.
pub const WAYS: usize = 8;
/// Signature bits kept on chip per entry.
pub const SIG_BITS: usize = 12;
/// Reference-count bits per entry.
pub const REFCOUNT_BITS: usize = 8;
/// The largest reference count; an `INSERT` past it is refused.
pub const REFCOUNT_MAX: u32 = (1 << REFCOUNT_BITS) - 1;
/// Bits of a bucket's Bloom filter.
pub const BLOOM_BITS: usize = 32;
/// Bits of an entry number on the ports.
pub const ENTRY_BITS: usize = 16;
/// The most bucket bits a configuration may use (entries fit [`ENTRY_BITS`]).
pub const MAX_BUCKET_BITS: usize = ENTRY_BITS - 3;
/// Address bits of the table port: bit 16 set selects bucket metadata
/// (address = bucket), clear selects a way (address = entry).
pub const TABLE_ADDR_BITS: usize = 17;
/// Data bits of the table port: metadata is `{occupancy[39:32], bloom[31:0]}`,
/// a way is `{refcount[19:12], signature[11:0]}`.
pub const TABLE_DATA_BITS: usize = 40;
/// Table address bit that selects the metadata region.
pub const META_REGION: u32 = 1 << 16;
/// Bits of a memory request tag (an FSM number): at most 16 FSMs.
pub const MEM_TAG_BITS: usize = 4;
/// Bits of a command tag, returned with its response.
pub const CMD_TAG_BITS: usize = 8;
/// Bits of a statistics counter.
pub const STAT_BITS: usize = 32;

/// Command opcodes (`cmd_op`, 3 bits). Other values are malformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// Present: count one more reference. Absent: allocate an entry.
    Insert = 0,
    /// Present or not, changing nothing.
    Lookup = 1,
    /// Drop one reference of the entry holding this fingerprint.
    DerefFp = 2,
    /// Drop one reference of entry `cmd_entry`.
    DerefEntry = 3,
    /// Present: report it, changing nothing (`Found`). Absent: allocate an
    /// entry (`New`). For users that keep their own reference counts.
    Put = 4,
}

/// Response status codes (`rsp_status`, 4 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Status {
    /// `INSERT` or `PUT`: the fingerprint was absent; `entry` was allocated, refcount 1.
    New = 0,
    /// `INSERT`: the fingerprint was present at `entry`; `refcount` is the new count.
    Duplicate = 1,
    /// `LOOKUP` or `PUT`: present at `entry` with `refcount`.
    Found = 2,
    /// `LOOKUP`: absent.
    Absent = 3,
    /// `DEREF`: one reference dropped; `refcount` remain.
    Kept = 4,
    /// `DEREF`: the last reference dropped; `entry` is free again.
    Freed = 5,
    /// `INSERT` or `PUT` of a new fingerprint whose bucket is full (the index
    /// is full for it): nothing changed.
    ErrFull = 8,
    /// `DEREF` of a fingerprint that is absent or an entry that is free.
    ErrUnknown = 9,
    /// `INSERT` of a fingerprint whose count is already [`REFCOUNT_MAX`].
    ErrSaturated = 10,
    /// Unknown opcode, or an entry number beyond the table.
    ErrMalformed = 11,
}

impl Status {
    /// The status with hardware code `code`, if any.
    pub fn from_code(code: u8) -> Option<Status> {
        use Status::*;
        [New, Duplicate, Found, Absent, Kept, Freed, ErrFull, ErrUnknown, ErrSaturated, ErrMalformed]
            .into_iter()
            .find(|s| *s as u8 == code)
    }
    /// True for the error statuses.
    pub fn is_error(self) -> bool {
        self as u8 >= 8
    }
}

/// Response flag bits (`rsp_flags`).
pub mod flag {
    /// The Bloom filter said "absent": no way was read.
    pub const BLOOM_NEGATIVE: u8 = 1;
    /// The Bloom filter said "present" but the walk found no match.
    pub const FALSE_POSITIVE: u8 = 2;
    /// That false positive's rebuild cleared at least one stale filter bit.
    pub const REBUILT: u8 = 4;
    /// A signature matched but the full fingerprint did not (one wasted read).
    pub const SIGNATURE_MISS: u8 = 8;
}

/// A fingerprint: a SHA-1 digest, big-endian (`H0` first). In hardware it is
/// a 160-bit value with byte 0 in bits 159..152.
pub type Fingerprint = [u8; 20];

/// The bucket of `fp` in a table of `2^bucket_bits` buckets: fingerprint bits
/// `bucket_bits-1..0`.
pub fn bucket_of(fp: &Fingerprint, bucket_bits: usize) -> u32 {
    u32::from_be_bytes([fp[16], fp[17], fp[18], fp[19]]) & ((1 << bucket_bits) - 1)
}

/// The on-chip signature of `fp`: fingerprint bits 27..16, disjoint from
/// every bucket number.
pub fn signature_of(fp: &Fingerprint) -> u32 {
    (u32::from_be_bytes([fp[16], fp[17], fp[18], fp[19]]) >> 16) & ((1 << SIG_BITS) - 1)
}

/// The Bloom filter bits of a signature: k = 3 indices of 5 bits,
/// `sig[4:0]`, `sig[9:5]` and `sig[11:7] ^ sig[4:0]`.
pub fn bloom_bits(sig: u32) -> u32 {
    let i0 = sig & 31;
    let i1 = (sig >> 5) & 31;
    let i2 = ((sig >> 7) ^ sig) & 31;
    (1 << i0) | (1 << i1) | (1 << i2)
}

/// Entry number of way `way` of `bucket`.
pub fn entry_of(bucket: u32, way: u32) -> u32 {
    bucket * WAYS as u32 + way
}
