//! Golden model of the whole core: the fingerprint index, the FTL remap
//! controller and the flash, one command at a time, making exactly the
//! decisions the hardware makes (which page id and PPA are allocated, which
//! GC victim, which relocations in which order, what the cleaner releases)
//! and keeping the same counters. A `WRITE` of a page is a `WRITE_FP` of its
//! SHA-1 here; the cosimulation hashes pages with [`sha1_of`] helpers of its
//! own.
//!
//! The cleaner runs when the hardware is idle, which depends on timing the
//! model does not see: the caller replays the hardware's cleaner steps with
//! [`CoreModel::clean_step`] (the core reports each one), and `SYNC` drains
//! the rest, so both agree command by command.
use super::flash::{Dropped, Flash, Geometry, Media, MediaOp, Relocation};
use super::nvm::{self, NvmCache, NvmConfig, NvmStats};
use super::{flag, Op, Stat, Status, REFCOUNT_MAX, STATS, VERSION_BITS};
use crate::index::model::{Command as IndexCommand, IndexModel, IndexStats};
use crate::index::{Fingerprint, Op as IndexOp, Status as IndexStatus};
use std::collections::VecDeque;

/// Parameters of a core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoreConfig {
    /// Logical pages.
    pub lpas: u32,
    /// Flash geometry (every dimension a power of two in the hardware).
    pub geometry: Geometry,
    /// log2 of the index's buckets.
    pub index_bucket_bits: usize,
    pub bloom: bool,
    /// Dedup across all devices (else only within an LPA's home device).
    pub array_wide: bool,
    /// A page's reference-count limit (1 to [`REFCOUNT_MAX`]; the hardware's
    /// `cfg_refcount_max`): a duplicate of a page at the limit is stored as a
    /// new copy, which becomes the index's target for later duplicates.
    pub refcount_max: u32,
    /// The NVM write cache in front of the flash ([`nvm`]; off in the
    /// hardware so far).
    pub nvm: NvmConfig,
}

/// One command for the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// Raw opcode (see [`Op`]); other values are malformed.
    pub op: u8,
    pub tag: u8,
    /// LPA, or the counter selector of `STATS`.
    pub lpa: u32,
    /// Fingerprint (`WRITE_FP`; for `WRITE` the SHA-1 of the page).
    pub fp: Fingerprint,
}

impl Command {
    pub fn new(op: Op, tag: u8, lpa: u32, fp: Fingerprint) -> Self {
        Command { op: op as u8, tag, lpa, fp }
    }
}

/// The core's answer to one command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response {
    pub tag: u8,
    pub status: Status,
    /// The PPA (writes, reads) or the counter (`STATS`); 0 otherwise.
    pub value: u32,
    /// [`flag`] bits.
    pub flags: u8,
}

/// One page id's record.
#[derive(Clone, Copy, Debug, Default)]
struct PageRec {
    ppa: u32,
    refcount: u32,
    version: u8,
    entry: Option<u16>,
    /// The NVM slot that holds this page: its original when `ppa` is the
    /// slot's address, else a clean copy of the flash page at `ppa`.
    slot: Option<u32>,
}

/// One index entry's record.
#[derive(Clone, Copy, Debug, Default)]
struct EntryRec {
    pid: u32,
    version: u8,
    valid: bool,
    queued: bool,
}

/// The golden model.
#[derive(Clone, Debug)]
pub struct CoreModel {
    config: CoreConfig,
    index: IndexModel,
    flash: Flash,
    nvm: NvmCache,
    /// The media operations of the last command.
    ops: Vec<MediaOp>,
    l2p: Vec<Option<u32>>,
    pages: Vec<PageRec>,
    entries: Vec<EntryRec>,
    free_pids: Vec<u32>,
    next_fresh_pid: u32,
    stale: VecDeque<u16>,
    counters: [u32; STATS],
}

impl CoreModel {
    pub fn new(config: CoreConfig) -> Self {
        let g = config.geometry;
        assert!(
            [g.devices, g.blocks_per_device, g.pages_per_block].iter().all(|x| x.is_power_of_two()),
            "geometry must be powers of two: {g:?}"
        );
        assert!(g.devices <= 8, "at most 8 devices (3 key bits)");
        assert!(config.lpas >= 1 && g.reserve_blocks >= 1, "at least one LPA and one reserve block: {config:?}");
        assert!(
            (1..=REFCOUNT_MAX).contains(&config.refcount_max),
            "a reference-count limit from 1 to {REFCOUNT_MAX}: {config:?}"
        );
        let index = IndexModel::new(config.index_bucket_bits, config.bloom);
        let entries = index.capacity();
        CoreModel {
            config,
            index,
            flash: Flash::new(g),
            nvm: NvmCache::new(config.nvm, g.devices),
            ops: Vec::new(),
            l2p: vec![None; config.lpas as usize],
            pages: vec![PageRec::default(); g.pages() as usize],
            entries: vec![EntryRec::default(); entries],
            free_pids: Vec::new(),
            next_fresh_pid: 0,
            stale: VecDeque::new(),
            counters: [0; STATS],
        }
    }

    pub fn config(&self) -> CoreConfig {
        self.config
    }
    /// The counters, by [`Stat`] number.
    pub fn counters(&self) -> [u32; STATS] {
        let mut c = self.counters;
        c[Stat::CleanerBacklog as usize] = self.stale.len() as u32;
        c
    }
    pub fn counter(&self, stat: Stat) -> u32 {
        self.counters()[stat as usize]
    }
    pub fn index_stats(&self) -> IndexStats {
        self.index.stats()
    }
    /// The fingerprint (the index's key) that index `entry` holds, if it is
    /// in use.
    pub fn entry_fingerprint(&self, entry: u32) -> Option<Fingerprint> {
        self.index.fingerprint(entry)
    }
    pub fn flash(&self) -> &Flash {
        &self.flash
    }
    pub fn nvm_stats(&self) -> NvmStats {
        self.nvm.stats()
    }
    /// The NVM's dirty pages that belong to `device` (the hardware counts
    /// them in the device's `DEVV` record, with its valid flash pages).
    pub fn nvm_dirty_on(&self, device: u32) -> u32 {
        self.nvm.dirty_on(device)
    }
    /// The media operations the last command did, in order (GC's reads,
    /// programs and erases, write-backs, NVM accesses, a read's page read).
    pub fn last_ops(&self) -> &[MediaOp] {
        &self.ops
    }
    /// The device page id `pid`'s copy belongs to.
    fn device_of_page(&self, pid: u32) -> u32 {
        let ppa = self.pages[pid as usize].ppa;
        match nvm::slot_of(ppa) {
            Some(slot) => self.nvm.device_of(slot),
            None => self.config.geometry.device_of(ppa),
        }
    }
    /// Where `lpa` maps (its PPA), if anywhere.
    pub fn ppa_of(&self, lpa: u32) -> Option<u32> {
        self.l2p[lpa as usize].map(|pid| self.pages[pid as usize].ppa)
    }
    /// The page id `lpa` maps to, if any.
    pub fn pid_of(&self, lpa: u32) -> Option<u32> {
        self.l2p[lpa as usize]
    }
    /// Page id `pid`'s record: `(ppa, refcount, version, index entry)`.
    pub fn page_record(&self, pid: u32) -> (u32, u32, u8, Option<u16>) {
        let p = &self.pages[pid as usize];
        (p.ppa, p.refcount, p.version, p.entry)
    }
    /// The index key of a fingerprint written to `lpa`.
    pub fn key(&self, lpa: u32, fp: &Fingerprint) -> Fingerprint {
        let mut key = *fp;
        if !self.config.array_wide {
            key[0] ^= ((lpa % self.config.geometry.devices) as u8) << 5;
        }
        key
    }

    /// Checks the model's own invariants: reference counts equal the LPAs
    /// that map to each page, live pages are valid in flash and owned by
    /// their pid, and the counters agree with the tables.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut refs = vec![0u32; self.pages.len()];
        for pid in self.l2p.iter().flatten() {
            refs[*pid as usize] += 1;
        }
        let (mut live, mut in_nvm_only, mut cached) = (0, 0, 0);
        for (pid, p) in self.pages.iter().enumerate() {
            if p.refcount != refs[pid] {
                return Err(format!("pid {pid}: refcount {} but {} LPAs map to it", p.refcount, refs[pid]));
            }
            if p.refcount == 0 {
                if p.slot.is_some() {
                    return Err(format!("pid {pid} is free but holds NVM slot {:?}", p.slot));
                }
                continue;
            }
            live += 1;
            let original_in_nvm = nvm::slot_of(p.ppa).is_some();
            if let Some(slot) = p.slot {
                cached += 1;
                if self.nvm.slot(slot) != Some((pid as u32, original_in_nvm)) {
                    return Err(format!("pid {pid} at {:#x}: its slot {slot} holds {:?}", p.ppa, self.nvm.slot(slot)));
                }
                if original_in_nvm && p.ppa != nvm::address(slot) {
                    return Err(format!("pid {pid} maps to {:#x}, not its slot {slot}", p.ppa));
                }
            } else if original_in_nvm {
                return Err(format!("pid {pid} maps to NVM address {:#x} but holds no slot", p.ppa));
            }
            if original_in_nvm {
                in_nvm_only += 1;
            } else if self.flash.owner(p.ppa) != Some(pid as u32) {
                return Err(format!("pid {pid}: its page {} is owned by {:?}", p.ppa, self.flash.owner(p.ppa)));
            }
        }
        let in_use = (0..self.config.nvm.slots).filter(|&s| self.nvm.slot(s).is_some()).count() as u32;
        if in_use != cached || self.nvm.dirty() != in_nvm_only {
            return Err(format!(
                "{in_use} NVM slots in use ({} dirty) but {cached} live pids cached ({in_nvm_only} only there)",
                self.nvm.dirty()
            ));
        }
        let g = self.config.geometry;
        let valid: u32 = (0..g.devices).map(|d| self.flash.valid_pages(d)).sum();
        if valid + in_nvm_only != live {
            return Err(format!("{valid} valid flash pages and {in_nvm_only} only in NVM but {live} live pids"));
        }
        for d in 0..g.devices {
            let owed = self.flash.valid_pages(d) + self.nvm.dirty_on(d);
            if owed > g.usable_pages_per_device() {
                return Err(format!("device {d}: {owed} pages owed, {} usable", g.usable_pages_per_device()));
            }
        }
        if self.counter(Stat::LivePages) != live {
            return Err(format!("live-pages counter {} but {live}", self.counter(Stat::LivePages)));
        }
        let mapped = self.l2p.iter().flatten().count() as u32;
        if self.counter(Stat::MappedLpas) != mapped {
            return Err(format!("mapped counter {} but {mapped}", self.counter(Stat::MappedLpas)));
        }
        Ok(())
    }

    /// Executes one command; returns its response and the relocations done
    /// before it (the host moves the data of each, in order).
    pub fn execute(&mut self, cmd: &Command) -> (Response, Vec<Relocation>) {
        let mut moves = Vec::new();
        self.flash.clear_ops();
        let mut rsp = Response { tag: cmd.tag, status: Status::ErrMalformed, value: 0, flags: 0 };
        let in_range = cmd.lpa < self.config.lpas;
        match cmd.op {
            0..=2 if !in_range => rsp.status = Status::ErrRange,
            0..=2 => self.write(cmd, &mut rsp, &mut moves),
            3 | 4 if !in_range => rsp.status = Status::ErrRange,
            3 => match self.l2p[cmd.lpa as usize] {
                Some(pid) => {
                    rsp.status = Status::Mapped;
                    let p = self.pages[pid as usize];
                    if let Some(slot) = p.slot {
                        self.nvm.read_hit(slot);
                        self.flash.log(Media::NvmRead, 0);
                    } else {
                        let device = self.config.geometry.device_of(p.ppa);
                        self.flash.log(Media::FlashRead, device);
                        if self.config.nvm.enabled() {
                            self.cache_read(pid, device, &mut moves);
                        }
                    }
                    // Where the page is once the relocations (which come
                    // before the response) are done: the fill's eviction
                    // may have written back a page whose GC moved this one.
                    rsp.value = self.pages[pid as usize].ppa;
                }
                None => rsp.status = Status::Unmapped,
            },
            4 => match self.l2p[cmd.lpa as usize].take() {
                Some(pid) => {
                    self.release(pid);
                    self.counters[Stat::MappedLpas as usize] -= 1;
                    rsp.status = Status::Trimmed;
                }
                None => rsp.status = Status::Unmapped,
            },
            5 if cmd.lpa as usize >= STATS => rsp.status = Status::ErrRange,
            5 => {
                rsp.status = Status::Done;
                rsp.value = self.counters()[cmd.lpa as usize];
            }
            6 => {
                while self.clean_step() {}
                rsp.status = Status::Done;
            }
            7 => {
                // Versions live in the page records, which reset does not clear.
                let versions: Vec<u8> = self.pages.iter().map(|p| p.version).collect();
                *self = CoreModel::new(self.config);
                for (p, v) in self.pages.iter_mut().zip(versions) {
                    p.version = v;
                }
                rsp.status = Status::Done;
            }
            _ => {}
        }
        if rsp.status.is_error() {
            self.counters[Stat::Errors as usize] += 1;
        }
        self.ops = self.flash.take_ops();
        (rsp, moves)
    }

    fn write(&mut self, cmd: &Command, rsp: &mut Response, moves: &mut Vec<Relocation>) {
        let lpa = cmd.lpa;
        let g = self.config.geometry;
        let home = lpa % g.devices;
        let old = self.l2p[lpa as usize];
        // The dedup decision: a live copy to share, or an entry to point at
        // the new copy. `reused`: the entry is already allocated (stale, or
        // live but its copy saturated) and is re-pointed at the new copy.
        let mut hit = None;
        let mut entry = None;
        let mut reused = false;
        // The saturated copy whose entry moves to the new copy.
        let mut saturated = None;
        if cmd.op != Op::WriteUnique as u8 {
            let key = self.key(lpa, &cmd.fp);
            let r = self.index.execute(&IndexCommand::with_fp(IndexOp::Put, key, 0));
            match r.status {
                IndexStatus::New => entry = Some(r.entry),
                IndexStatus::Found => {
                    let e = self.entries[r.entry as usize];
                    let live = e.valid && {
                        let p = &self.pages[e.pid as usize];
                        p.refcount > 0 && p.version == e.version && p.entry == Some(r.entry)
                    };
                    if !live {
                        rsp.flags |= flag::STALE;
                        self.counters[Stat::StaleHits as usize] += 1;
                        entry = Some(r.entry);
                        reused = true;
                    } else if self.pages[e.pid as usize].refcount >= self.config.refcount_max {
                        // Saturated (as VDO does): the new copy becomes the
                        // index's target; the old one keeps its references
                        // until they are released.
                        rsp.flags |= flag::SATURATED;
                        entry = Some(r.entry);
                        reused = true;
                        saturated = Some(e.pid);
                    } else {
                        hit = Some(e.pid);
                    }
                }
                IndexStatus::ErrFull => {
                    rsp.flags |= flag::INDEX_FULL;
                    self.counters[Stat::IndexFull as usize] += 1;
                }
                s => unreachable!("PUT answered {s:?}"),
            }
        }
        if let Some(pid) = hit {
            self.pages[pid as usize].refcount += 1;
            if let Some(slot) = self.pages[pid as usize].slot {
                self.nvm.touch(slot);
            }
            if let Some(o) = old {
                self.release(o);
            }
            self.map(lpa, old, pid);
            rsp.status = Status::Duplicate;
            rsp.value = self.pages[pid as usize].ppa;
            self.counters[Stat::Writes as usize] += 1;
            self.counters[Stat::DuplicateWrites as usize] += 1;
            return;
        }
        // A new copy on the home device: is there room, counting the page
        // this overwrite frees?
        // Pages owed to the home device: its valid flash pages and the
        // NVM's dirty pages that will be written back to it.
        let frees_home = old.is_some_and(|o| self.pages[o as usize].refcount == 1 && self.device_of_page(o) == home);
        let owed = self.flash.valid_pages(home) + self.nvm.dirty_on(home);
        if owed - frees_home as u32 >= g.usable_pages_per_device() {
            if let Some(e) = entry.filter(|_| !reused) {
                // A new entry that points at nothing: stale from birth.
                self.entries[e as usize] = EntryRec { valid: false, queued: true, ..Default::default() };
                self.stale.push_back(e);
            }
            rsp.status = Status::ErrDeviceFull;
            rsp.flags = 0;
            return;
        }
        if let Some(s) = saturated {
            // The saturated copy lets go of the entry (its `PAGE` record's
            // entry link is cleared), so freeing it later does not queue an
            // entry that is no longer its own: the cleaner would release
            // the entry twice, the second time perhaps another
            // fingerprint's.
            self.pages[s as usize].entry = None;
        }
        if let Some(o) = old {
            self.release(o);
        }
        let pid = self.free_pids.pop().unwrap_or_else(|| {
            self.next_fresh_pid += 1;
            self.next_fresh_pid - 1
        });
        let (ppa, slot) = if self.config.nvm.enabled() {
            if !self.nvm.has_free() {
                let victim = self.nvm.victim();
                self.evict(victim, moves);
            }
            let slot = self.nvm.fill(pid, home);
            self.flash.log(Media::NvmWrite, 0);
            (nvm::address(slot), Some(slot))
        } else {
            (self.flash_write(home, pid, moves), None)
        };
        let version = self.pages[pid as usize].version;
        self.pages[pid as usize] = PageRec { ppa, refcount: 1, version, entry, slot };
        if let Some(e) = entry {
            let queued = reused && self.entries[e as usize].queued;
            self.entries[e as usize] = EntryRec { pid, version, valid: true, queued };
        }
        self.counters[Stat::LivePages as usize] += 1;
        self.map(lpa, old, pid);
        rsp.status = Status::Unique;
        rsp.value = ppa;
        self.counters[Stat::Writes as usize] += 1;
        self.counters[Stat::UniqueWrites as usize] += 1;
    }

    /// Writes `pid`'s page to `device`'s flash, with (cooperative) GC;
    /// applies and reports GC's moves; returns the page's PPA.
    fn flash_write(&mut self, device: u32, pid: u32, moves: &mut Vec<Relocation>) -> u32 {
        let (pages, cache, cooperative) = (&self.pages, &self.nvm, self.config.nvm.cooperative);
        // A page with a clean copy in the NVM may be dropped by GC.
        let cached = |owner: u32| {
            cooperative && pages[owner as usize].slot.is_some_and(|s| cache.slot(s).is_some_and(|(_, dirty)| !dirty))
        };
        let written = self
            .flash
            .write_cooperative(device, pid, &cached)
            .expect("a device below its usable pages always has a GC victim");
        for r in &written.relocations {
            self.pages[r.owner as usize].ppa = r.to;
        }
        for d in &written.dropped {
            let slot = self.pages[d.owner as usize].slot.expect("a dropped page is cached");
            self.nvm.take_over(slot);
            self.pages[d.owner as usize].ppa = nvm::address(slot);
        }
        self.counters[Stat::Relocations as usize] += written.relocations.len() as u32;
        self.counters[Stat::Erases as usize] = self.flash.stats().erases as u32;
        // In the order GC met the pages. A dropped page's data is in its
        // slot already: the host's copy of the flash page into the slot is
        // a no-op that keeps its map right.
        let pages = &self.pages;
        let drop_move = |d: &Dropped| Relocation { owner: d.owner, from: d.from, to: pages[d.owner as usize].ppa };
        let mut drops = written.dropped.iter().peekable();
        for (i, r) in written.relocations.iter().enumerate() {
            moves.extend(std::iter::from_fn(|| drops.next_if(|d| d.after == i)).map(drop_move));
            moves.push(*r);
        }
        moves.extend(drops.map(drop_move));
        written.ppa
    }

    /// Writes the dirty page in `slot` back to its home device (the slot
    /// keeps a clean copy until the caller empties it).
    fn write_back(&mut self, slot: u32, moves: &mut Vec<Relocation>) {
        let (owner, dirty) = self.nvm.slot(slot).expect("a slot in use");
        assert!(dirty, "only a dirty slot is written back");
        self.flash.log(Media::NvmRead, 0);
        let ppa = self.flash_write(self.nvm.device_of(slot), owner, moves);
        moves.push(Relocation { owner, from: nvm::address(slot), to: ppa });
        self.pages[owner as usize].ppa = ppa;
        self.nvm.written_back(slot);
    }

    /// Brings a clean copy of `pid`'s flash page (just read) into the NVM,
    /// in the background.
    fn cache_read(&mut self, pid: u32, device: u32, moves: &mut Vec<Relocation>) {
        self.flash.set_background(true);
        if !self.nvm.has_free() {
            let victim = self.nvm.victim();
            self.evict(victim, moves);
        }
        let slot = self.nvm.fill_clean(pid, device);
        self.pages[pid as usize].slot = Some(slot);
        self.flash.log(Media::NvmWrite, 0);
        self.flash.set_background(false);
    }

    /// Empties `slot` for a new page, writing its page back first if dirty.
    fn evict(&mut self, slot: u32, moves: &mut Vec<Relocation>) {
        if self.nvm.slot(slot).is_some_and(|(_, dirty)| dirty) {
            self.write_back(slot, moves);
        }
        let owner = self.nvm.evict(slot);
        self.pages[owner as usize].slot = None;
    }

    fn map(&mut self, lpa: u32, old: Option<u32>, pid: u32) {
        if old.is_none() {
            self.counters[Stat::MappedLpas as usize] += 1;
        }
        self.l2p[lpa as usize] = Some(pid);
    }

    /// Drops one reference to `pid`; its last frees it (version bumped, page
    /// invalidated, index entry queued for the cleaner).
    fn release(&mut self, pid: u32) {
        let p = &mut self.pages[pid as usize];
        p.refcount -= 1;
        if p.refcount > 0 {
            return;
        }
        p.version = p.version.wrapping_add(1) & ((1u16 << VERSION_BITS) - 1) as u8;
        let (ppa, entry, slot) = (p.ppa, p.entry, p.slot.take());
        match slot {
            Some(slot) => {
                // A dirty page is only in the slot: it never reached the flash.
                if !self.nvm.take(slot).1 {
                    self.flash.invalidate(ppa);
                }
            }
            None => self.flash.invalidate(ppa),
        }
        self.free_pids.push(pid);
        self.counters[Stat::LivePages as usize] -= 1;
        if let Some(e) = entry {
            let rec = &mut self.entries[e as usize];
            if !rec.queued {
                rec.queued = true;
                self.stale.push_back(e);
            }
        }
    }

    /// One step of the cleaner: takes the oldest queued entry and releases
    /// it from the index if it is still stale. False when the queue is empty.
    pub fn clean_step(&mut self) -> bool {
        let Some(e) = self.stale.pop_front() else { return false };
        let rec = self.entries[e as usize];
        let live = rec.valid && {
            let p = &self.pages[rec.pid as usize];
            p.refcount > 0 && p.version == rec.version && p.entry == Some(e)
        };
        self.entries[e as usize].queued = false;
        if !live {
            let r = self.index.execute(&IndexCommand::deref_entry(e, 0));
            assert_eq!(r.status, IndexStatus::Freed, "a stale entry is allocated once, by PUT");
            self.counters[Stat::Cleaned as usize] += 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::Op;

    fn config(devices: u32, array_wide: bool) -> CoreConfig {
        CoreConfig {
            lpas: 64,
            geometry: Geometry { devices, blocks_per_device: 8, pages_per_block: 4, reserve_blocks: 1 },
            index_bucket_bits: 4,
            bloom: true,
            array_wide,
            refcount_max: REFCOUNT_MAX,
            nvm: NvmConfig::OFF,
        }
    }
    fn fp(n: u32) -> Fingerprint {
        let mut f = [0u8; 20];
        f[12..16].copy_from_slice(&n.wrapping_mul(0x9e37_79b9).to_be_bytes());
        f[16..20].copy_from_slice(&n.to_be_bytes());
        f
    }
    fn write(m: &mut CoreModel, lpa: u32, n: u32) -> Response {
        let (r, _) = m.execute(&Command::new(Op::WriteFp, 0, lpa, fp(n)));
        m.check_invariants().unwrap();
        r
    }

    #[test]
    fn duplicates_share_one_page_and_the_last_reference_frees_it() {
        let mut m = CoreModel::new(config(1, true));
        let a = write(&mut m, 0, 7);
        let b = write(&mut m, 1, 7);
        assert_eq!((a.status, b.status, a.value), (Status::Unique, Status::Duplicate, b.value));
        assert_eq!(m.counter(Stat::LivePages), 1);
        write(&mut m, 0, 8); // overwrite: one reference left
        assert_eq!(m.ppa_of(1), Some(a.value));
        assert_eq!(m.execute(&Command::new(Op::Trim, 0, 1, [0; 20])).0.status, Status::Trimmed);
        assert_eq!(m.counter(Stat::LivePages), 1, "only content 8 is left");
        assert_eq!(m.counter(Stat::CleanerBacklog), 1, "content 7's entry waits for the cleaner");
    }

    #[test]
    fn a_stale_entry_is_not_deduplicated_and_is_cleaned() {
        let mut m = CoreModel::new(config(1, true));
        write(&mut m, 0, 7);
        m.execute(&Command::new(Op::Trim, 0, 0, [0; 20]));
        let r = write(&mut m, 1, 7);
        assert_eq!((r.status, r.flags), (Status::Unique, flag::STALE));
        // The revived entry is live again: the cleaner keeps it.
        assert!(m.clean_step());
        assert_eq!(m.counter(Stat::Cleaned), 0);
        assert_eq!(write(&mut m, 2, 7).status, Status::Duplicate);
    }

    #[test]
    fn device_local_dedup_keeps_a_copy_per_device() {
        let mut wide = CoreModel::new(config(2, true));
        let mut local = CoreModel::new(config(2, false));
        for lpa in 0..8 {
            write(&mut wide, lpa, 1);
            write(&mut local, lpa, 1);
        }
        assert_eq!(wide.counter(Stat::UniqueWrites), 1);
        assert_eq!(local.counter(Stat::UniqueWrites), 2);
    }

    #[test]
    fn a_full_device_refuses_new_pages_but_takes_overwrites_and_duplicates() {
        let mut m = CoreModel::new(config(1, true));
        let usable = m.config().geometry.usable_pages_per_device();
        for lpa in 0..usable {
            assert_eq!(write(&mut m, lpa, 100 + lpa).status, Status::Unique);
        }
        let r = write(&mut m, usable, 999);
        assert_eq!(r.status, Status::ErrDeviceFull);
        assert_eq!(m.ppa_of(usable), None);
        assert_eq!(write(&mut m, usable, 100).status, Status::Duplicate);
        // Overwriting the last reference of a page makes room for its successor.
        assert_eq!(write(&mut m, 5, 555).status, Status::Unique);
        for lpa in (0..usable).filter(|&l| l != 5) {
            assert!(m.ppa_of(lpa).is_some());
        }
    }

    #[test]
    fn n_writes_of_one_hot_page_store_ceil_n_over_the_limit_copies() {
        // 50,000 writes of one content to distinct LPAs, at the full limit.
        let n = 50_000;
        let mut m = CoreModel::new(CoreConfig {
            lpas: n,
            geometry: Geometry { devices: 1, blocks_per_device: 1024, pages_per_block: 64, reserve_blocks: 2 },
            ..config(1, true)
        });
        let mut saturated = 0;
        for lpa in 0..n {
            let (r, _) = m.execute(&Command::new(Op::WriteFp, 0, lpa, fp(7)));
            assert!(!r.status.is_error(), "write {lpa}: {r:?}");
            saturated += (r.flags & flag::SATURATED != 0) as u32;
        }
        m.check_invariants().unwrap();
        let copies = n.div_ceil(REFCOUNT_MAX);
        assert_eq!(m.counter(Stat::UniqueWrites), copies);
        assert_eq!(saturated, copies - 1, "each copy after the first is a saturated write");
    }

    #[test]
    fn a_saturated_page_hands_the_index_to_its_new_copy_and_keeps_its_references() {
        let mut m = CoreModel::new(CoreConfig { refcount_max: 2, ..config(1, true) });
        let first = write(&mut m, 0, 7);
        assert_eq!(write(&mut m, 1, 7).status, Status::Duplicate);
        let second = write(&mut m, 2, 7);
        assert_eq!((second.status, second.flags), (Status::Unique, flag::SATURATED));
        assert_eq!(write(&mut m, 3, 7).value, second.value, "later duplicates share the new copy");
        assert_eq!((m.ppa_of(0), m.ppa_of(1)), (Some(first.value), Some(first.value)));
        // Releasing the old copy's references frees it but not the entry,
        // which the cleaner keeps (it points at the live new copy).
        write(&mut m, 0, 8);
        m.execute(&Command::new(Op::Trim, 0, 1, [0; 20]));
        while m.clean_step() {}
        assert_eq!(m.counter(Stat::Cleaned), 0);
        assert_eq!(write(&mut m, 4, 7).status, Status::Unique, "the new copy is saturated too");
        assert_eq!(write(&mut m, 5, 7).status, Status::Duplicate);
    }

    /// Once a bug: the saturated copy kept its link to the entry, so after
    /// the new copy was freed and the entry cleaned, freeing the old copy
    /// queued the entry again and the cleaner released it a second time
    /// (another fingerprint's, had it been allocated again meanwhile).
    #[test]
    fn freeing_a_saturated_copy_after_its_successor_cleans_the_entry_once() {
        let mut m = CoreModel::new(CoreConfig { refcount_max: 2, ..config(1, true) });
        write(&mut m, 0, 7);
        write(&mut m, 1, 7);
        assert_eq!(write(&mut m, 2, 7).flags, flag::SATURATED);
        m.execute(&Command::new(Op::Trim, 0, 2, [0; 20])); // the new copy goes
        while m.clean_step() {}
        assert_eq!(m.counter(Stat::Cleaned), 1);
        for lpa in [0, 1] {
            m.execute(&Command::new(Op::Trim, 0, lpa, [0; 20])); // then the old one
        }
        assert_eq!(m.counter(Stat::CleanerBacklog), 0, "the old copy no longer owns the entry");
        while m.clean_step() {}
        assert_eq!(m.counter(Stat::Cleaned), 1);
        assert_eq!(write(&mut m, 3, 7).status, Status::Unique);
        assert_eq!(write(&mut m, 4, 7).status, Status::Duplicate);
        m.check_invariants().unwrap();
    }

    fn with_nvm(slots: u32, cooperative: bool, base: CoreConfig) -> CoreConfig {
        CoreConfig { nvm: NvmConfig { slots, cooperative }, ..base }
    }

    #[test]
    fn a_new_copy_lands_in_the_nvm_and_is_read_from_there() {
        let mut m = CoreModel::new(with_nvm(4, true, config(1, true)));
        let r = write(&mut m, 0, 7);
        assert_eq!((r.status, nvm::slot_of(r.value)), (Status::Unique, Some(0)));
        assert_eq!(m.last_ops(), [MediaOp { media: Media::NvmWrite, device: 0, background: false }]);
        assert_eq!(write(&mut m, 1, 7).value, r.value, "a duplicate shares the NVM copy");
        let (read, _) = m.execute(&Command::new(Op::Read, 0, 1, [0; 20]));
        assert_eq!((read.status, read.value), (Status::Mapped, r.value));
        assert_eq!(m.nvm_stats().read_hits, 1);
        assert_eq!(m.flash().stats().host_writes, 0, "nothing reached the flash yet");
    }

    #[test]
    fn eviction_writes_back_a_dirty_page_and_a_read_brings_it_back_clean() {
        let mut m = CoreModel::new(with_nvm(2, true, config(1, true)));
        write(&mut m, 0, 100);
        write(&mut m, 1, 101);
        // The third page evicts one (CLOCK: every bit set, so slot 0 after
        // a sweep) and writes it back to flash.
        let (r, moves) = m.execute(&Command::new(Op::WriteFp, 0, 2, fp(102)));
        m.check_invariants().unwrap();
        assert_eq!((nvm::slot_of(r.value), m.nvm_stats().evictions, m.nvm_stats().writebacks), (Some(0), 1, 1));
        let flash_ppa = m.ppa_of(0).unwrap();
        assert_eq!(nvm::slot_of(flash_ppa), None, "LPA 0 maps to flash now");
        assert_eq!(moves, [Relocation { owner: 0, from: nvm::address(0), to: flash_ppa }]);
        assert!(m.last_ops().iter().any(|o| o.media == Media::FlashProgram && !o.background));
        // Reading it brings a clean copy back (evicting LPA 1's page), in
        // the background; the map keeps the flash page.
        let (read, _) = m.execute(&Command::new(Op::Read, 0, 0, [0; 20]));
        m.check_invariants().unwrap();
        assert_eq!((read.value, m.nvm_stats().read_fills), (flash_ppa, 1));
        assert_eq!(m.last_ops()[0], MediaOp { media: Media::FlashRead, device: 0, background: false });
        assert!(m.last_ops()[1..].iter().all(|o| o.background));
        m.execute(&Command::new(Op::Read, 0, 0, [0; 20]));
        assert_eq!(m.nvm_stats().read_hits, 1);
    }

    #[test]
    fn a_dirty_page_overwritten_in_the_nvm_never_reaches_the_flash() {
        let mut m = CoreModel::new(with_nvm(8, true, config(1, true)));
        write(&mut m, 0, 1);
        write(&mut m, 0, 2);
        write(&mut m, 0, 3);
        assert_eq!(m.nvm_stats().absorbed, 2);
        assert_eq!(m.flash().stats().host_writes, 0);
    }

    /// Hot pages overwritten and read among cold ones on a small, nearly
    /// full device: cooperative GC drops cached pages instead of copying
    /// them out.
    #[test]
    fn cooperative_gc_copies_out_fewer_pages_than_a_plain_cache() {
        let base = CoreConfig {
            lpas: 96,
            geometry: Geometry { devices: 1, blocks_per_device: 32, pages_per_block: 4, reserve_blocks: 2 },
            ..config(1, true)
        };
        let run = |nvm: NvmConfig| {
            let mut m = CoreModel::new(CoreConfig { nvm, ..base });
            let mut state = 99u64;
            let mut content = 1_000;
            for lpa in 0..96 {
                write(&mut m, lpa, lpa);
            }
            for _ in 0..3_000 {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let r = (state >> 33) as u32;
                // 80% of the requests to the first 16 LPAs; a third are
                // reads (which bring clean copies into the cache).
                let lpa = if r % 10 < 8 { r / 10 % 16 } else { 16 + r / 10 % 80 };
                if r % 3 == 0 {
                    m.execute(&Command::new(Op::Read, 0, lpa, [0; 20]));
                    continue;
                }
                content += 1;
                assert!(!write(&mut m, lpa, content).status.is_error());
            }
            (m.flash().stats(), m.nvm_stats())
        };
        let (off, _) = run(NvmConfig::OFF);
        let (plain, plain_nvm) = run(NvmConfig { slots: 8, cooperative: false });
        let (coop, coop_nvm) = run(NvmConfig { slots: 8, cooperative: true });
        assert_eq!(plain_nvm.gc_drops, 0);
        assert!(coop_nvm.gc_drops > 0, "{coop_nvm:?}");
        assert!(coop.relocations < plain.relocations, "{coop:?} against {plain:?}");
        assert!(plain.relocations < off.relocations, "{plain:?} against {off:?}");
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// A command as proptest draws it: an opcode (8 and 9 malformed),
        /// an LPA (some past the end), a content (0 to 2 hot, skewed), and
        /// whether the cleaner takes a step before it.
        fn command() -> impl Strategy<Value = (u8, u32, u32, bool)> {
            (0u8..10, 0u32..70, prop_oneof![3 => 0u32..3, 1 => 3u32..40], any::<bool>())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
            /// Any sequence of commands keeps the model's invariants (every
            /// reference count equals the LPAs mapped to its page, live pages
            /// are valid in flash and owned by their page id, the counters
            /// agree with the tables), at any reference-count limit.
            #[test]
            fn any_command_sequence_keeps_the_models_invariants(
                commands in proptest::collection::vec(command(), 1..300),
                limit in 1u32..6,
                devices in prop_oneof![Just(1u32), Just(2), Just(4)],
                array_wide in any::<bool>(),
                nvm_slots in prop_oneof![Just(0u32), 1u32..3, 3u32..12],
                cooperative in any::<bool>(),
            ) {
                let base = CoreConfig { refcount_max: limit, ..config(devices, array_wide) };
                let mut m = CoreModel::new(with_nvm(nvm_slots, cooperative, base));
                // The same commands without the cache: it moves pages, never
                // changes what is stored, shared or refused.
                let mut plain = CoreModel::new(base);
                for (op, lpa, content, clean) in commands {
                    if clean {
                        m.clean_step();
                        plain.clean_step();
                    }
                    let errors = m.counter(Stat::Errors);
                    let (r, _) = m.execute(&Command { op, tag: 0, lpa, fp: fp(content) });
                    let (p, _) = plain.execute(&Command { op, tag: 0, lpa, fp: fp(content) });
                    prop_assert_eq!((r.status, r.flags), (p.status, p.flags), "op {} lpa {}", op, lpa);
                    let moved_by_gc = [Stat::Relocations as u32, Stat::Erases as u32].contains(&lpa);
                    if op == Op::Stats as u8 && !moved_by_gc {
                        prop_assert_eq!(r.value, p.value, "counter {}", lpa);
                    }
                    if op != Op::Reset as u8 {
                        prop_assert_eq!(m.counter(Stat::Errors), errors + r.status.is_error() as u32, "op {}", op);
                    }
                    if let Err(e) = m.check_invariants() {
                        return Err(TestCaseError::fail(format!("after op {op} lpa {lpa}: {e}")));
                    }
                }
                while m.clean_step() {}
                prop_assert!(m.check_invariants().is_ok());
                prop_assert_eq!(m.counter(Stat::CleanerBacklog), 0);
            }
        }
    }
}
