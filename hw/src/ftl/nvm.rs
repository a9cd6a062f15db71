//! Golden model of the NVM write cache in front of the flash (seed 003: Lee,
//! Kim, Bahn, Lee, Noh, "Reducing Write Amplification of Flash Storage
//! through Cooperative Data Management with NVM", ACM TOS 13(2), 2017).
//!
//! `slots` 4 KiB slots of non-volatile memory beside the flash devices:
//! - **Writes land here.** A new stored copy takes a slot and is
//!   acknowledged there (the slot is durable, so the persistence contract
//!   holds); its page id maps to the slot's address ([`address`]) and the
//!   slot is *dirty*: it holds the only copy.
//! - **Write-back on eviction only.** A dirty page reaches the flash when
//!   CLOCK evicts it, and not before: a hot page overwritten in the cache
//!   never costs a flash write. (Flushing the oldest dirty pages early, to
//!   keep clean victims at hand, was measured with `ditto bench nvm`: it
//!   halves response times at small caches but copies out up to twice as
//!   many pages, and pages that cooperative GC drops are flushed again at
//!   once, so it was left out.)
//! - **Eviction by CLOCK.** With no free slot, the hand sweeps the slots,
//!   clearing each one's reference bit, and evicts the first whose bit is
//!   already clear; a dirty victim is written back first. CLOCK rather than
//!   LRU because it needs one bit per slot and one hand register in the
//!   hardware, against a list (or a timestamp and a search) per slot, and it
//!   approximates LRU closely on skewed workloads. A slot's bit is set when
//!   it is written, read, or found again by a duplicate.
//! - **Reads bring pages in.** A read of a page that is only in flash puts a
//!   clean copy into a slot (evicting as a write does), in the background:
//!   the NVM caches what is read as well as what is written, so pages that
//!   are still valid in old flash blocks have copies here.
//! - **Cooperative GC.** A GC victim's valid page whose page id has a clean
//!   copy in the cache is invalidated instead of copied out; the slot becomes
//!   dirty, the original again, and its page id maps to it until it is
//!   written back. A hot page that is overwritten (or trimmed) before that
//!   never costs a flash write at all. The victim is still the greedy one
//!   (fewest valid pages): choosing the block with the fewest pages to
//!   copy out (valid and not cached) was measured too, and it drops pages
//!   that are then written back on eviction, so it copied out more on a
//!   small hot device and no fewer on `ditto bench nvm`'s workloads.
//!
//! Deduplication is untouched: the index names page ids, and a page id's
//! copy is wherever its record says, in a slot or in flash.
//!
//! The cache keeps a *room* invariant with the flash: for every device, its
//! valid flash pages plus the dirty slots that belong to it never pass its
//! usable pages, so a write-back always has room.
use super::ADDR_BITS;
use std::collections::VecDeque;

/// Bit of a page address that marks an NVM slot (PPAs have [`ADDR_BITS`]).
pub const NVM_ADDRESS_BIT: u32 = 1u32 << ADDR_BITS;

/// The page address of slot `slot`.
pub fn address(slot: u32) -> u32 {
    NVM_ADDRESS_BIT | slot
}

/// The slot of a page address, if it is an NVM address.
pub fn slot_of(address: u32) -> Option<u32> {
    (address & NVM_ADDRESS_BIT != 0).then_some(address & !NVM_ADDRESS_BIT)
}

/// How the cache is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvmConfig {
    /// 4 KiB slots (0: no cache).
    pub slots: u32,
    /// GC invalidates pages cached here instead of copying them out (the
    /// seed's scheme); off, the cache is a plain write-back cache.
    pub cooperative: bool,
}

impl NvmConfig {
    /// No cache.
    pub const OFF: NvmConfig = NvmConfig { slots: 0, cooperative: false };
    /// The largest cache the page address can name.
    pub const MAX_SLOTS: u32 = NVM_ADDRESS_BIT;
    pub fn enabled(&self) -> bool {
        self.slots > 0
    }
}

/// The cache's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NvmStats {
    /// Pages written into the cache (new stored copies).
    pub writes: u64,
    /// Reads served from the cache.
    pub read_hits: u64,
    /// Reads of flash pages that brought a clean copy in.
    pub read_fills: u64,
    /// Dirty slots written back to flash (on eviction).
    pub writebacks: u64,
    /// Slots evicted by CLOCK.
    pub evictions: u64,
    /// Dirty pages freed in the cache: their flash write never happened.
    pub absorbed: u64,
    /// GC victims' pages invalidated instead of copied out.
    pub gc_drops: u64,
}

/// Counters of runs one after another (a `RESET` clears the cache's own).
impl std::ops::AddAssign for NvmStats {
    fn add_assign(&mut self, other: Self) {
        self.writes += other.writes;
        self.read_hits += other.read_hits;
        self.read_fills += other.read_fills;
        self.writebacks += other.writebacks;
        self.evictions += other.evictions;
        self.absorbed += other.absorbed;
        self.gc_drops += other.gc_drops;
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    owner: Option<u32>,
    /// The owner's home device (where a write-back goes).
    device: u32,
    dirty: bool,
    referenced: bool,
}

/// The cache's state.
#[derive(Clone, Debug)]
pub struct NvmCache {
    config: NvmConfig,
    slots: Vec<Slot>,
    /// Free slots, lowest first.
    free: VecDeque<u32>,
    hand: u32,
    dirty_per_device: Vec<u32>,
    dirty: u32,
    stats: NvmStats,
}

impl NvmCache {
    pub fn new(config: NvmConfig, devices: u32) -> Self {
        assert!(config.slots <= NvmConfig::MAX_SLOTS, "at most {} NVM slots: {config:?}", NvmConfig::MAX_SLOTS);
        NvmCache {
            config,
            slots: vec![Slot::default(); config.slots as usize],
            free: (0..config.slots).collect(),
            hand: 0,
            dirty_per_device: vec![0; devices as usize],
            dirty: 0,
            stats: NvmStats::default(),
        }
    }
    pub fn stats(&self) -> NvmStats {
        self.stats
    }
    /// Dirty slots of `device`'s pages.
    pub fn dirty_on(&self, device: u32) -> u32 {
        self.dirty_per_device[device as usize]
    }
    pub fn dirty(&self) -> u32 {
        self.dirty
    }
    /// The owner of `slot` and whether it is dirty, if it is in use.
    pub fn slot(&self, slot: u32) -> Option<(u32, bool)> {
        let s = &self.slots[slot as usize];
        s.owner.map(|o| (o, s.dirty))
    }
    /// The home device of the page in `slot`.
    pub fn device_of(&self, slot: u32) -> u32 {
        self.slots[slot as usize].device
    }
    pub fn has_free(&self) -> bool {
        !self.free.is_empty()
    }

    /// Puts `owner`'s new copy (for `device`) into a free slot, dirty.
    pub fn fill(&mut self, owner: u32, device: u32) -> u32 {
        let slot = self.occupy(owner, device);
        self.set_dirty(slot);
        self.stats.writes += 1;
        slot
    }

    /// Puts a clean copy of `owner`'s flash page (on `device`) into a free
    /// slot: a read brought it in.
    pub fn fill_clean(&mut self, owner: u32, device: u32) -> u32 {
        self.stats.read_fills += 1;
        self.occupy(owner, device)
    }

    fn occupy(&mut self, owner: u32, device: u32) -> u32 {
        let slot = self.free.pop_front().expect("a free slot: evict first");
        self.slots[slot as usize] = Slot { owner: Some(owner), device, dirty: false, referenced: true };
        slot
    }

    /// The slot CLOCK evicts next (it stays in use until [`NvmCache::take`]).
    pub fn victim(&mut self) -> u32 {
        loop {
            let h = self.hand;
            self.hand = (self.hand + 1) % self.config.slots;
            let s = &mut self.slots[h as usize];
            if s.owner.is_none() {
                continue;
            }
            if !s.referenced {
                return h;
            }
            s.referenced = false;
        }
    }

    /// Empties `slot` (its page was freed); returns its owner and whether
    /// it was dirty (then the page never reached the flash).
    pub fn take(&mut self, slot: u32) -> (u32, bool) {
        let s = self.slots[slot as usize];
        let owner = s.owner.expect("a slot in use");
        if s.dirty {
            self.dirty -= 1;
            self.dirty_per_device[s.device as usize] -= 1;
            self.stats.absorbed += 1;
        }
        self.slots[slot as usize] = Slot::default();
        self.free.push_back(slot);
        (owner, s.dirty)
    }

    /// Empties clean `slot` for another page (CLOCK chose it); returns its
    /// owner.
    pub fn evict(&mut self, slot: u32) -> u32 {
        assert!(!self.slots[slot as usize].dirty, "slot {slot} is written back before it is evicted");
        self.stats.evictions += 1;
        self.take(slot).0
    }

    /// The page in `slot` was found again by a duplicate.
    pub fn touch(&mut self, slot: u32) {
        self.slots[slot as usize].referenced = true;
    }

    /// A read was served from `slot`.
    pub fn read_hit(&mut self, slot: u32) {
        self.touch(slot);
        self.stats.read_hits += 1;
    }

    /// Cooperative GC dropped the flash page that `slot` holds a clean copy
    /// of: the slot holds the original now.
    pub fn take_over(&mut self, slot: u32) {
        self.set_dirty(slot);
        self.stats.gc_drops += 1;
    }

    /// `slot` now holds the only copy of its page.
    fn set_dirty(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        assert!(!s.dirty && s.owner.is_some(), "slot {slot} is clean and in use");
        s.dirty = true;
        self.dirty += 1;
        self.dirty_per_device[s.device as usize] += 1;
    }

    /// `slot`'s page was written back: it holds a clean copy now.
    pub fn written_back(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        assert!(s.dirty, "slot {slot} is dirty");
        s.dirty = false;
        self.dirty -= 1;
        self.dirty_per_device[s.device as usize] -= 1;
        self.stats.writebacks += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(slots: u32) -> NvmCache {
        NvmCache::new(NvmConfig { slots, cooperative: true }, 2)
    }

    #[test]
    fn addresses_of_slots_are_never_ppas() {
        assert_eq!(slot_of(address(5)), Some(5));
        assert_eq!(slot_of((1 << ADDR_BITS) - 1), None, "the highest PPA");
    }

    #[test]
    fn clock_spares_a_referenced_slot_once() {
        let mut c = cache(3);
        let slots: Vec<u32> = (0..3).map(|o| c.fill(o, 0)).collect();
        assert_eq!(slots, [0, 1, 2]);
        // Every bit is set: one sweep clears them all, then slot 0 goes.
        assert_eq!(c.victim(), 0);
        c.written_back(0);
        assert_eq!(c.evict(0), 0);
        c.fill(3, 1);
        c.touch(1);
        // Slot 1 was touched again; slot 2's bit was cleared by the sweep.
        assert_eq!(c.victim(), 2);
    }

    #[test]
    fn dirty_counts_follow_each_slot() {
        let mut c = cache(4);
        let a = c.fill(10, 0);
        let b = c.fill(11, 1);
        let r = c.fill_clean(12, 1);
        assert_eq!((c.dirty(), c.dirty_on(0), c.dirty_on(1)), (2, 1, 1));
        c.written_back(a);
        assert_eq!((c.dirty(), c.dirty_on(0)), (1, 0));
        c.take_over(r); // cooperative GC dropped its flash page
        assert_eq!((c.dirty(), c.dirty_on(1)), (2, 2));
        assert_eq!(c.take(b), (11, true));
        assert_eq!(c.take(a), (10, false));
        assert_eq!((c.dirty(), c.dirty_on(1), c.slot(r)), (1, 1, Some((12, true))));
        assert!(c.has_free());
    }
}
