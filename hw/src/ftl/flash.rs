//! Golden model of the flash behind the FTL: `D` devices of erase blocks of
//! pages, written out of place, with greedy garbage collection.
//!
//! - Physical page address (PPA): the bit fields `{device[23:21],
//!   block[20:8], page[7:0]}` (so up to 8 devices of 8,192 blocks of 256
//!   pages; with smaller geometries the PPAs have gaps). A *global block* is
//!   `{device, block}`, the PPA's top 16 bits.
//! - Each device writes into one open block, page by page. When it needs a
//!   new block and has no more free blocks than its reserve, it first
//!   collects garbage: the victim is the full block with the fewest valid
//!   pages (the lowest-numbered on ties), its valid pages are relocated into
//!   the open block (the reserve guarantees room), and it is erased.
//! - Every page written belongs to an *owner* (the FTL's page id); a
//!   relocation reports `{owner, from, to}` so the caller moves its map entry
//!   and the host moves the data.
//! - A device is full when GC cannot free a block: every full block is
//!   entirely valid.
//! - **Cooperative GC** (seed 003): [`Flash::write_cooperative`] takes a
//!   predicate naming the owners whose page has a durable copy elsewhere (in
//!   the NVM cache, see [`super::nvm`]); the victim's valid pages of those
//!   owners are invalidated instead of copied out, and reported as
//!   [`Dropped`] so the caller makes that copy the original.
//! - Every media operation (page read, page program, block erase) is logged
//!   as a [`MediaOp`], for the timing model of the host side.
use std::collections::VecDeque;

/// Flash geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub devices: u32,
    pub blocks_per_device: u32,
    pub pages_per_block: u32,
    /// Free blocks kept back for garbage collection (at least 1).
    pub reserve_blocks: u32,
}

/// Bits of a PPA's page field.
pub const PAGE_FIELD_BITS: u32 = 8;
/// Bits of a global block's block-in-device field.
pub const BLOCK_FIELD_BITS: u32 = 13;

impl Geometry {
    /// Checks the geometry fits the PPA's fields.
    pub fn check(&self) {
        assert!(self.devices >= 1 && self.devices <= 8, "1 to 8 devices: {self:?}");
        assert!(self.blocks_per_device <= 1 << BLOCK_FIELD_BITS, "at most 8,192 blocks per device: {self:?}");
        assert!(self.pages_per_block <= 1 << PAGE_FIELD_BITS, "at most 256 pages per block: {self:?}");
    }
    /// The PPA of `page` of block `block` (numbered densely across devices).
    pub fn ppa(&self, block: u32, page: u32) -> u32 {
        let (device, b) = (block / self.blocks_per_device, block % self.blocks_per_device);
        (((device << BLOCK_FIELD_BITS) | b) << PAGE_FIELD_BITS) | page
    }
    /// The dense block number and the page of a PPA.
    pub fn locate(&self, ppa: u32) -> (u32, u32) {
        let b = (ppa >> PAGE_FIELD_BITS) & ((1 << BLOCK_FIELD_BITS) - 1);
        (self.device_of(ppa) * self.blocks_per_device + b, ppa & ((1 << PAGE_FIELD_BITS) - 1))
    }
    /// Every PPA of the geometry, device by device.
    pub fn all_ppas(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.devices * self.blocks_per_device)
            .flat_map(move |b| (0..self.pages_per_block).map(move |p| self.ppa(b, p)))
    }
    pub fn pages_per_device(&self) -> u32 {
        self.blocks_per_device * self.pages_per_block
    }
    pub fn pages(&self) -> u32 {
        self.devices * self.pages_per_device()
    }
    /// The device a PPA is on.
    pub fn device_of(&self, ppa: u32) -> u32 {
        ppa >> (PAGE_FIELD_BITS + BLOCK_FIELD_BITS)
    }
    /// Index of a PPA among all pages (dense).
    fn slot(&self, ppa: u32) -> usize {
        let (block, page) = self.locate(ppa);
        (block * self.pages_per_block + page) as usize
    }
    /// Pages the host can keep valid on one device: all but the reserve.
    pub fn usable_pages_per_device(&self) -> u32 {
        (self.blocks_per_device - self.reserve_blocks) * self.pages_per_block
    }
}

/// One live page moved by garbage collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relocation {
    pub owner: u32,
    pub from: u32,
    pub to: u32,
}

/// A valid page that cooperative GC invalidated instead of copying it out:
/// `owner`'s copy elsewhere is now its original.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dropped {
    pub owner: u32,
    pub from: u32,
    /// The relocations that came before it (the hardware reports moves
    /// and drops in the order it scans the victims' pages).
    pub after: usize,
}

/// What one [`Flash::write_cooperative`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Where the page went.
    pub ppa: u32,
    /// GC's copy-outs, in order (already applied here).
    pub relocations: Vec<Relocation>,
    /// GC's invalidations of pages cached elsewhere, in order.
    pub dropped: Vec<Dropped>,
}

/// Which medium an operation touches and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Media {
    FlashRead,
    FlashProgram,
    FlashErase,
    NvmRead,
    NvmWrite,
}

/// One media operation: on `device`'s channel for flash (0 for the NVM);
/// `background` when nobody waits for it (the NVM cache's flushes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MediaOp {
    pub media: Media,
    pub device: u32,
    pub background: bool,
}

/// Flash counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlashStats {
    /// Pages written for the host.
    pub host_writes: u64,
    /// Pages written by garbage collection (copy-outs).
    pub relocations: u64,
    pub erases: u64,
    /// Valid pages cooperative GC invalidated instead of copying them out.
    pub dropped: u64,
}

impl FlashStats {
    /// Flash page writes over host page writes.
    pub fn write_amplification(&self) -> f64 {
        (self.host_writes + self.relocations) as f64 / self.host_writes.max(1) as f64
    }
}

/// Errors of the flash model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FlashError {
    #[error("device {device} is full: every block holds only valid pages")]
    DeviceFull { device: u32 },
}

#[derive(Clone, Copy, Debug, Default)]
struct Block {
    written: u32,
    valid: u32,
}

/// The flash model.
#[derive(Clone, Debug)]
pub struct Flash {
    geometry: Geometry,
    owners: Vec<Option<u32>>,
    blocks: Vec<Block>,
    free: Vec<VecDeque<u32>>,
    open: Vec<u32>,
    stats: FlashStats,
    /// Operations since the last [`Flash::take_ops`].
    ops: Vec<MediaOp>,
    /// Whether the operations logged now are background work.
    background: bool,
}

impl Flash {
    /// Erased flash; each device opens its block 0.
    pub fn new(geometry: Geometry) -> Self {
        assert!(geometry.reserve_blocks >= 1 && geometry.blocks_per_device > geometry.reserve_blocks + 1);
        assert!(geometry.pages_per_block >= 1);
        geometry.check();
        let bpd = geometry.blocks_per_device;
        Flash {
            geometry,
            owners: vec![None; geometry.pages() as usize],
            blocks: vec![Block::default(); (geometry.devices * bpd) as usize],
            free: (0..geometry.devices).map(|d| (d * bpd + 1..(d + 1) * bpd).collect()).collect(),
            open: (0..geometry.devices).map(|d| d * bpd).collect(),
            stats: FlashStats::default(),
            ops: Vec::new(),
            background: false,
        }
    }

    pub fn geometry(&self) -> Geometry {
        self.geometry
    }
    pub fn stats(&self) -> FlashStats {
        self.stats
    }
    /// The owner of the valid page at `ppa`, if it is valid.
    pub fn owner(&self, ppa: u32) -> Option<u32> {
        self.owners[self.geometry.slot(ppa)]
    }
    /// Valid pages on `device`.
    pub fn valid_pages(&self, device: u32) -> u32 {
        let bpd = self.geometry.blocks_per_device as usize;
        self.blocks[device as usize * bpd..(device as usize + 1) * bpd].iter().map(|b| b.valid).sum()
    }
    /// Free (erased, unopened) blocks on `device`.
    pub fn free_blocks(&self, device: u32) -> usize {
        self.free[device as usize].len()
    }

    /// Writes a page for `owner` on `device`, collecting garbage first when
    /// needed. Returns its PPA and the relocations done (already applied
    /// here: the caller moves its map entries and the data, in order).
    pub fn write(&mut self, device: u32, owner: u32) -> Result<(u32, Vec<Relocation>), FlashError> {
        let w = self.write_cooperative(device, owner, &|_| false)?;
        Ok((w.ppa, w.relocations))
    }

    /// [`Flash::write`] with cooperative GC: a victim's valid page whose
    /// owner `cached` names is invalidated, not copied out. The victim is
    /// chosen as without it (fewest valid pages).
    pub fn write_cooperative(
        &mut self,
        device: u32,
        owner: u32,
        cached: &dyn Fn(u32) -> bool,
    ) -> Result<Written, FlashError> {
        let mut relocations = Vec::new();
        let mut dropped = Vec::new();
        // A new block is needed and only the reserve is left: collect until
        // the open block has room again or a block beyond the reserve is free.
        while self.open_is_full(device) && self.free[device as usize].len() as u32 <= self.geometry.reserve_blocks {
            if !self.collect(device, cached, &mut relocations, &mut dropped)? {
                return Err(FlashError::DeviceFull { device });
            }
        }
        let ppa = self.program(device, owner);
        self.stats.host_writes += 1;
        Ok(Written { ppa, relocations, dropped })
    }

    /// Logs the operations that follow as background work (or not).
    pub fn set_background(&mut self, background: bool) {
        self.background = background;
    }
    /// Logs one operation (the caller's: a host read, an NVM access).
    pub fn log(&mut self, media: Media, device: u32) {
        self.ops.push(MediaOp { media, device, background: self.background });
    }
    /// The operations logged since the last call.
    pub fn take_ops(&mut self) -> Vec<MediaOp> {
        std::mem::take(&mut self.ops)
    }
    /// Forgets the operations logged so far.
    pub fn clear_ops(&mut self) {
        self.ops.clear();
    }

    /// The page at `ppa` no longer holds live data.
    pub fn invalidate(&mut self, ppa: u32) {
        let slot = self.geometry.slot(ppa);
        assert!(self.owners[slot].take().is_some(), "page {ppa} is not valid");
        self.blocks[self.geometry.locate(ppa).0 as usize].valid -= 1;
    }

    fn open_is_full(&self, device: u32) -> bool {
        self.blocks[self.open[device as usize] as usize].written == self.geometry.pages_per_block
    }

    fn open_next(&mut self, device: u32) {
        self.open[device as usize] = self.free[device as usize].pop_front().expect("a free block is kept for this");
    }

    /// Writes the next page of `device`'s open block (opening a free one if
    /// it is full).
    fn program(&mut self, device: u32, owner: u32) -> u32 {
        if self.open_is_full(device) {
            self.open_next(device);
        }
        let block = self.open[device as usize];
        let b = &mut self.blocks[block as usize];
        let ppa = self.geometry.ppa(block, b.written);
        b.written += 1;
        b.valid += 1;
        self.owners[self.geometry.slot(ppa)] = Some(owner);
        self.log(Media::FlashProgram, device);
        ppa
    }

    /// One round of greedy garbage collection on `device`; false when no
    /// block would gain anything.
    fn collect(
        &mut self,
        device: u32,
        cached: &dyn Fn(u32) -> bool,
        relocations: &mut Vec<Relocation>,
        dropped: &mut Vec<Dropped>,
    ) -> Result<bool, FlashError> {
        let (ppb, bpd) = (self.geometry.pages_per_block, self.geometry.blocks_per_device);
        // Full blocks, the open one included once it is full.
        let victim = (device * bpd..(device + 1) * bpd)
            .filter(|&b| self.blocks[b as usize].written == ppb && self.blocks[b as usize].valid < ppb)
            .min_by_key(|&b| (self.blocks[b as usize].valid, b));
        let Some(victim) = victim else { return Ok(false) };
        if victim == self.open[device as usize] {
            // Relocate into a fresh block, never into the victim itself.
            self.open_next(device);
        }
        for page in 0..ppb {
            let ppa = self.geometry.ppa(victim, page);
            if let Some(owner) = self.owners[self.geometry.slot(ppa)] {
                self.invalidate(ppa);
                if cached(owner) {
                    self.stats.dropped += 1;
                    dropped.push(Dropped { owner, from: ppa, after: relocations.len() });
                    continue;
                }
                self.log(Media::FlashRead, device);
                let to = self.program(device, owner);
                self.stats.relocations += 1;
                relocations.push(Relocation { owner, from: ppa, to });
            }
        }
        self.blocks[victim as usize] = Block::default();
        self.free[device as usize].push_back(victim);
        self.stats.erases += 1;
        self.log(Media::FlashErase, device);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn geometry() -> Geometry {
        Geometry { devices: 2, blocks_per_device: 8, pages_per_block: 4, reserve_blocks: 1 }
    }

    /// Overwrites a hot set of owners over and over, following relocations
    /// like the FTL will; every owner's page must stay where the map says.
    #[test]
    fn overwrites_force_gc_and_every_live_page_is_kept_and_found() {
        let g = geometry();
        let mut flash = Flash::new(g);
        let mut map: HashMap<u32, u32> = HashMap::new(); // owner -> ppa
        let mut state = 12345u64;
        for step in 0..4_000u32 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let owner = (state >> 33) as u32 % 20;
            let device = owner % g.devices;
            if let Some(old) = map.remove(&owner) {
                flash.invalidate(old);
            }
            let (ppa, relocations) = flash.write(device, owner).unwrap_or_else(|e| panic!("step {step}: {e}"));
            for r in relocations {
                assert_eq!(map.insert(r.owner, r.to), Some(r.from), "a relocation moves a live page");
            }
            map.insert(owner, ppa);
            for (&o, &p) in &map {
                assert_eq!(flash.owner(p), Some(o));
                assert_eq!(g.device_of(p), o % g.devices);
            }
            for d in 0..g.devices {
                assert_eq!(flash.valid_pages(d) as usize, map.values().filter(|&&p| g.device_of(p) == d).count());
            }
        }
        let s = flash.stats();
        assert!(s.erases > 100 && s.relocations > 0, "{s:?}");
        assert!(s.write_amplification() > 1.0 && s.write_amplification() < 3.0, "{s:?}");
    }

    #[test]
    fn a_device_full_of_valid_pages_refuses_more_and_keeps_them() {
        let g = geometry();
        let mut flash = Flash::new(g);
        let usable = g.usable_pages_per_device();
        for owner in 0..usable {
            flash.write(0, owner).unwrap();
        }
        assert_eq!(flash.write(0, 999), Err(FlashError::DeviceFull { device: 0 }));
        assert_eq!(flash.valid_pages(0), usable, "nothing was lost");
        // The other device is untouched, and freeing one page makes room.
        assert!(flash.write(1, 7).is_ok());
        let some_ppa = g.all_ppas().find(|&p| flash.owner(p) == Some(3)).unwrap();
        flash.invalidate(some_ppa);
        let (_, relocations) = flash.write(0, 999).unwrap();
        assert_eq!(relocations.len() as u32, g.pages_per_block - 1, "the victim's three live pages moved");
    }

    #[test]
    fn greedy_gc_picks_the_block_with_the_fewest_valid_pages() {
        let g = Geometry { devices: 1, blocks_per_device: 4, pages_per_block: 2, reserve_blocks: 1 };
        let mut flash = Flash::new(g);
        for owner in 0..6 {
            flash.write(0, owner).unwrap(); // blocks 0, 1, 2 full
        }
        flash.invalidate(g.ppa(1, 0)); // block 1: one valid page left
        flash.invalidate(g.ppa(2, 0));
        flash.invalidate(g.ppa(2, 1)); // block 2: none
        let (ppa, relocations) = flash.write(0, 6).unwrap();
        assert!(relocations.is_empty(), "block 2 had no live page: {relocations:?}");
        assert_eq!(ppa, g.ppa(3, 0), "block 3, the last free block, was opened after block 2 was erased");
        assert_eq!(flash.stats().erases, 1);
    }
}
