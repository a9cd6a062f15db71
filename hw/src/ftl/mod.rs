//! The FTL remap controller and the whole core's command set.
//!
//! # One mapping, through page ids
//! The controller keeps the only logical-to-physical mapping in the system,
//! through one level of indirection:
//! - `L2P[lpa]` names a *page id* (pid): one stored copy of one content.
//! - `PAGE[pid]` holds that copy's physical page (PPA), its reference count
//!   (how many LPAs map to it), its *version* and the index entry of its
//!   fingerprint (if it has one).
//! - `ENTRY[e]` holds, for index entry `e`, the pid and version it points at.
//! - `REV[ppa]` holds the pid a physical page was written for, for garbage
//!   collection; a page is live when that pid still points back at it.
//!
//! Garbage collection moves a shared page by rewriting one `PAGE` record, for
//! every LPA that shares it.
//!
//! # Versioned fingerprints, cleaned lazily
//! When a pid's last reference goes, it is freed at once: its version is
//! bumped and its physical page invalidated. Its index entry is left in the
//! index and queued for the **cleaner**. A later hit on such an entry sees
//! that the version (or the pid's back-pointer, which closes the version's
//! wrap-around) no longer matches, and is not deduplicated: the page is stored
//! again and the entry re-pointed at the new copy. The cleaner takes one
//! queued entry at a time, only when no command is waiting, and releases the
//! index entry (`DEREF_ENTRY`) if it is still stale. `SYNC` drains the queue.
//!
//! # Flash and garbage collection
//! See [`flash`]: `D` devices of erase blocks, written out of place through
//! one open block per device; greedy GC (fewest valid pages, lowest block on
//! ties) when a device is down to its reserve of free blocks. Geometry is a
//! power of two in every dimension in the hardware.
//!
//! # Array-wide or device-local dedup
//! An LPA's home device is `lpa mod D`; unique pages are written there. In
//! array-wide mode a duplicate may map to a copy on any device; in
//! device-local mode the index key is the fingerprint with the home device
//! XOR-ed into its top three bits, so only copies on the home device match.
//!
//! [`model`] is the golden model of the whole core.
pub mod controller;
pub mod counters;
pub mod ditto_core;
pub mod flash;
pub mod layout;
pub mod model;
pub mod nvm;
pub mod settings;

/// Core opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// `WRITE(lpa, page)`: the page is hashed by the core's SHA-1 lanes.
    Write = 0,
    /// `WRITE_FP(lpa, fingerprint)`: the host computed the fingerprint.
    WriteFp = 1,
    /// `WRITE_UNIQUE(lpa)`: store without sharing (after a hash collision).
    WriteUnique = 2,
    Read = 3,
    Trim = 4,
    /// `STATS(selector)`: the counter named by the `lpa` field (see [`Stat`]).
    Stats = 5,
    /// Completes everything in flight, including the cleaner's backlog.
    Sync = 6,
    /// Empties the map, the index and the flash.
    Reset = 7,
}

/// Core response statuses; 8 and up are errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Status {
    /// Stored: the host writes the data to the returned PPA.
    Unique = 0,
    /// Remapped to an existing copy at the returned PPA; nothing to write.
    Duplicate = 1,
    /// `READ`: the LPA maps to the returned PPA.
    Mapped = 2,
    /// `READ`/`TRIM` of an LPA that maps to nothing.
    Unmapped = 3,
    /// `TRIM` done.
    Trimmed = 4,
    /// `STATS` (value = the counter), `SYNC`, `RESET` done.
    Done = 5,
    /// LPA (or statistics selector) out of range.
    ErrRange = 8,
    /// The home device has no room for a new page; nothing changed.
    ErrDeviceFull = 9,
    /// Unknown opcode.
    ErrMalformed = 10,
}

impl Status {
    pub fn from_u8(v: u8) -> Option<Status> {
        use Status::*;
        [Unique, Duplicate, Mapped, Unmapped, Trimmed, Done, ErrRange, ErrDeviceFull, ErrMalformed]
            .into_iter()
            .find(|s| *s as u8 == v)
    }
    pub fn is_error(self) -> bool {
        self as u8 >= 8
    }
}

/// Response flag bits (writes only).
pub mod flag {
    /// The fingerprint's bucket was full: stored unshared, not indexed.
    pub const INDEX_FULL: u8 = 1;
    /// A stale index entry (version mismatch) was found and re-pointed.
    pub const STALE: u8 = 2;
    /// The copy's reference count is at its limit: stored unshared.
    pub const SATURATED: u8 = 4;
}

/// Statistics counters, by `STATS` selector (and the `stat_*` ports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Stat {
    /// Writes acknowledged (`unique` or `duplicate`).
    Writes = 0,
    /// Pages stored (flash page writes for the host).
    UniqueWrites = 1,
    DuplicateWrites = 2,
    /// Live pages moved by garbage collection.
    Relocations = 3,
    Erases = 4,
    /// Hits on stale index entries (not deduplicated).
    StaleHits = 5,
    /// Stale entries the cleaner released from the index.
    Cleaned = 6,
    /// Live page ids (stored copies).
    LivePages = 7,
    /// LPAs that map to a page.
    MappedLpas = 8,
    /// Writes stored unshared because the index bucket was full.
    IndexFull = 9,
    /// Commands answered with an error status.
    Errors = 10,
    /// Index entries waiting for the cleaner.
    CleanerBacklog = 11,
}

/// Number of statistics counters.
pub const STATS: usize = 12;

/// Bits of an LPA, a PPA and a page id on the ports and in the tables.
pub const ADDR_BITS: usize = 24;
/// Bits of a relocation's page addresses on the `mv` port: a PPA, or an
/// NVM slot with bit 24 set ([`nvm::address`]).
pub const MOVE_ADDR_BITS: usize = ADDR_BITS + 1;
/// Bits of the count of NVM slots (up to [`nvm::NvmConfig::MAX_SLOTS`]).
pub const NVM_SLOT_BITS: usize = ADDR_BITS + 1;
/// Bits of a global block number.
pub const BLOCK_BITS: usize = 16;
/// Bits of a page's reference count; at the limit a write is stored unshared.
pub const REFCOUNT_BITS: usize = 12;
pub const REFCOUNT_MAX: u32 = (1 << REFCOUNT_BITS) - 1;
/// Bits of a page id's version.
pub const VERSION_BITS: usize = 8;
/// Data bits of the FTL memory port.
pub const MEM_DATA_BITS: usize = 64;
/// Address bits of the FTL memory port: `{region[31:28], index[27:0]}`.
pub const MEM_ADDR_BITS: usize = 32;

/// Region numbers of the FTL memory (address bits 31..28); their words are
/// defined in [`layout`].
pub mod region {
    use super::layout;
    pub const L2P: u32 = layout::l2p::REGION.number;
    pub const PAGE: u32 = layout::page::REGION.number;
    pub const ENTRY: u32 = layout::entry::REGION.number;
    pub const REV: u32 = layout::rev::REGION.number;
    pub const BLK: u32 = layout::blk::REGION.number;
    pub const DEV: u32 = layout::dev::REGION.number;
    pub const DEVV: u32 = layout::devv::REGION.number;
    pub const FREE: u32 = layout::free::REGION.number;
    pub const STALE: u32 = layout::stale::REGION.number;
    pub const PIDS: u32 = layout::pids::REGION.number;
    pub const SLOT: u32 = layout::slot::REGION.number;
    pub const SFREE: u32 = layout::sfree::REGION.number;
    pub const PSLOT: u32 = layout::pslot::REGION.number;
}

/// The FTL memory address of word `index` of `region`.
pub fn mem_addr(region: u32, index: u32) -> u32 {
    layout::REGIONS[region as usize].addr(index)
}
