//! The host driver: Ditto as a block device of 4 KiB logical pages.
//!
//! One device API ([`Device`]: `write`, `read`, `trim`, `flush`, `stats`)
//! over any [`Transport`] (see [`crate::transport`]: the golden model, the
//! cosimulated core, a board over its link).
//!
//! The physical pages live in a [`BackingStore`] (see [`crate::store`]): one
//! file per device, laid out by the flash geometry, with the metadata's
//! journal and checkpoint beside them. The driver writes each unique page
//! where the core says, moves data as its garbage collection directs,
//! journals what each response changed, and serves reads from it, each
//! checked against its copy's fingerprint. **Collision safety** (on by default): when the core answers that a
//! page duplicates a stored one, the driver compares its bytes with the
//! stored copy before acknowledging it; on a mismatch (two different pages
//! with one SHA-1) the LPA is remapped to a page of its own with
//! `WRITE_UNIQUE`.
//!
//! A store outlives the process: [`Device::open`] rebuilds a fresh core from
//! the metadata a store recovers (`LAYOUT.md` in `src/store/` states the
//! durability contract).
use ditto_hw::ftl::flash::{Geometry, Relocation};
use ditto_hw::ftl::model::{Command, Response};
use ditto_hw::ftl::nvm::{self, NvmConfig};
use ditto_hw::ftl::{flag, Op, Status, REFCOUNT_MAX, STATS};
use ditto_sim::ditto_core::{CoreSetup, Job};
use ditto_sim::index::MemTiming;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::store::format::Entry;
use crate::store::mirror::{self, Copy, Event, Mirror, MirrorError, NO_DATA, UNSHARED};
pub use crate::store::BackingStore;
use crate::store::{Recovered, RecoveryLog, StoreError};
pub use crate::transport::{Backend, Completion, Transport, TransportError};
use ditto_hw::Config;

/// Bytes in a logical (and physical) page.
pub use crate::store::PAGE;

/// Everything the driver can fail with.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("LPA {lpa} is beyond the device's {lpas} pages")]
    OutOfRange { lpa: u32, lpas: u32 },
    #[error("device {device} is full: no room for a new page (LPA {lpa} keeps its previous content)")]
    DeviceFull { lpa: u32, device: u32 },
    #[error("the core answered {status:?} to {op:?} of LPA {lpa}")]
    Unexpected { op: Op, lpa: u32, status: Status },
    #[error("LPA {lpa} collided with another page's fingerprint and could not be stored unshared ({source}); {}", if *trimmed { "it was trimmed and reads as zeros" } else { "trimming it failed too" })]
    CollisionNotStored { lpa: u32, source: Box<DriverError>, trimmed: bool },
    #[error("{pages} pages on {devices} device(s): at most {max} pages per device fit the PPA's fields")]
    TooLarge { pages: u64, devices: u32, max: u64 },
    #[error(transparent)]
    Transport(#[from] TransportError),
    #[error("the core's answer contradicts the store's metadata: {0}")]
    Contradiction(#[source] MirrorError),
    #[error("the core answered with tag {got} to command tag {sent}")]
    TagMismatch { got: u8, sent: u8 },
    #[error("the core maps LPA {lpa} to {core:?}; the store's metadata to {store:?}")]
    MapDisagrees { lpa: u32, core: Option<u32>, store: Option<u32> },
    #[error("backing store {path}: {source}")]
    Store { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Persist(#[from] StoreError),
    /// A stored page that does not match its fingerprint: the read fails
    /// rather than return wrong bytes.
    #[error("LPA {lpa}: the page at PPA {ppa} does not match its fingerprint (corrupt); `ditto scrub` lists every LPA it affects")]
    Corrupt { lpa: u32, ppa: u32 },
    #[error("LPA {lpa} was written by fingerprint alone (WRITE_FP): it has no data to read")]
    NoData { lpa: u32 },
    #[error("rebuilding the core: it answered {status:?} to LPA {lpa}'s write")]
    Rebuild { lpa: u32, status: Status },
}

/// Driver-side counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DriverStats {
    /// Duplicates whose bytes differed from the stored copy (stored unshared).
    pub collisions_caught: u64,
    /// Duplicates compared byte for byte.
    pub verified: u64,
    /// Pages moved for the core: GC's relocations, and with the NVM cache
    /// its write-backs and GC's drops into slots.
    pub relocations: u64,
    /// Pages the core put on the flash: new copies stored there, and moves
    /// onto it (GC's relocations, NVM write-backs).
    pub flash_programs: u64,
    /// Writes stored unshared because their fingerprint's index bucket was
    /// full (a bigger index would have shared them).
    pub index_full_writes: u64,
    /// Writes of a content whose copy was at its reference-count limit,
    /// stored as a new copy (which later duplicates share).
    pub saturated_writes: u64,
    /// Reads refused (EIO) because the stored page did not match its
    /// fingerprint.
    pub corrupt_reads: u64,
    /// Commits (flushes, and the writes that had to wait for one).
    pub commits: u64,
    /// Checkpoints taken while running (the journal had grown past
    /// [`Device::set_checkpoint_min`] and four times the checkpoint's size).
    pub checkpoints: u64,
}

/// What [`Device::open`] did to bring a store back.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct OpenReport {
    /// The metadata's recovery from the checkpoint and the journal.
    #[serde(flatten)]
    pub recovery: RecoveryLog,
    /// LPAs written into the core again (by fingerprint).
    pub rebuilt_lpas: u64,
    /// Copies the rebuilt core stores.
    pub live_pages: u64,
    /// Whether the data was copied into a new generation (when the rebuilt
    /// core's layout differs from the recovered one, as after overwrites or
    /// garbage collection since the last open). Otherwise, if the journal
    /// held operations, they are checkpointed in place.
    pub compacted: bool,
    /// Pages copied into the new generation.
    pub pages_copied: u64,
    /// LPAs whose page did not match its fingerprint when copied (they
    /// read as EIO, as before).
    pub corrupt_lpas: Vec<u32>,
    /// The generation the store is at now.
    pub generation: u64,
    /// Wall-clock time of each phase.
    pub read_seconds: f64,
    pub rebuild_seconds: f64,
    pub copy_seconds: f64,
}

impl OpenReport {
    pub fn lines(&self) -> Vec<String> {
        let r = &self.recovery;
        vec![
            format!("checkpoint LPAs    {} (generation {})", r.checkpoint_lpas, r.generation),
            format!(
                "journal            {} entries: {} operations committed, {} recovered after the last commit, {} discarded, {} torn bytes",
                r.journal_entries, r.committed_operations, r.recovered_operations, r.discarded_operations, r.torn_bytes
            ),
            format!("rebuilt            {} LPAs, {} stored copies", self.rebuilt_lpas, self.live_pages),
            format!(
                "data               {}",
                if self.compacted {
                    format!("{} pages copied into generation {}", self.pages_copied, self.generation)
                } else {
                    "in place (the rebuilt layout is the stored one)".into()
                }
            ),
            format!("corrupt LPAs       {}", self.corrupt_lpas.len()),
            format!(
                "time               {:.3} s (metadata {:.3} s, core {:.3} s, data {:.3} s)",
                self.read_seconds + self.rebuild_seconds + self.copy_seconds,
                self.read_seconds,
                self.rebuild_seconds,
                self.copy_seconds
            ),
        ]
    }
}

/// Ditto as a block device: the core (through a transport) and a store.
///
/// Every response of the core is applied to the store's metadata (a
/// [`Mirror`]) as [`Event`]s; each device operation's events go to the
/// journal as one entry, and [`flush`](Self::flush) commits. A page the
/// last commit still maps is never overwritten before a commit: when the
/// core reuses one (garbage collection freed it since), its new data goes
/// into the journal entry itself and is written in place after that entry
/// is durable. Every read is checked against its copy's fingerprint.
pub struct Device<T: Transport> {
    transport: T,
    store: BackingStore,
    mirror: Mirror,
    lpas: u32,
    verify: bool,
    stats: DriverStats,
    next_tag: u8,
    /// Pages freed since the last commit: the durable metadata may still
    /// map them.
    freed: HashSet<u32>,
    /// The operation under way: its events, and its pages that wait for
    /// their entry to be durable.
    events: Vec<Event>,
    deferred: HashMap<u32, Box<[u8; PAGE]>>,
    /// The journal may grow to at least this many bytes before a flush
    /// checkpoints the metadata.
    checkpoint_min: u64,
}

/// Journal bytes below which a flush never checkpoints.
pub const CHECKPOINT_MIN: u64 = 4 << 20;

/// Result of one write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    Unique {
        ppa: u32,
    },
    Duplicate {
        ppa: u32,
    },
    /// Two different pages with one fingerprint: stored unshared.
    Collision {
        ppa: u32,
    },
}

/// Commands per batch when a core is rebuilt from a store's metadata.
const REBUILD_BATCH: usize = 256;

impl<T: Transport> Device<T> {
    /// A device over a new, empty store (from [`BackingStore::create`] or
    /// [`BackingStore::temporary`]).
    pub fn new(transport: T, store: BackingStore, verify: bool) -> Result<Self, DriverError> {
        let lpas = store.spec().lpas;
        let recovered = Recovered { mirror: Mirror::new(lpas), redo: HashMap::new(), report: RecoveryLog::default() };
        Ok(Device::open(transport, store, recovered, verify)?.0)
    }

    /// A device over a store opened with [`BackingStore::open`]: the core
    /// (fresh, on any transport) is rebuilt by writing every recovered LPA
    /// again by fingerprint, in LPA order, so its map, reference counts,
    /// index and Bloom filters hold everything recovered. When the rebuilt
    /// layout differs from the recovered one, the data is copied into a new
    /// generation (each page checked against its fingerprint on the way)
    /// and the store switches to it; the journal starts empty.
    pub fn open(
        transport: T,
        store: BackingStore,
        recovered: Recovered,
        verify: bool,
    ) -> Result<(Self, OpenReport), DriverError> {
        let lpas = store.spec().lpas;
        let mut dev = Device {
            transport,
            store,
            mirror: Mirror::new(lpas),
            lpas,
            verify,
            stats: DriverStats::default(),
            next_tag: 0,
            freed: HashSet::new(),
            events: Vec::new(),
            deferred: HashMap::new(),
            checkpoint_min: CHECKPOINT_MIN,
        };
        let mut report = OpenReport { recovery: recovered.report.clone(), ..OpenReport::default() };
        let start = std::time::Instant::now();
        let entries: Vec<(u32, Copy)> = recovered.mirror.mapped().map(|(lpa, c)| (lpa, *c)).collect();
        let mut log: Vec<(u32, Completion)> = Vec::with_capacity(entries.len());
        for chunk in entries.chunks(REBUILD_BATCH) {
            let jobs = chunk
                .iter()
                .map(|(lpa, c)| {
                    let op = if c.flags & UNSHARED != 0 { Op::WriteUnique } else { Op::WriteFp };
                    Job { cmd: Command::new(op, 0, *lpa, c.fingerprint), page: None }
                })
                .collect();
            for ((lpa, copy), (rsp, moves)) in chunk.iter().zip(dev.submit(jobs)?) {
                for m in &moves {
                    dev.mirror.apply(&Event::Move { from: m.from, to: m.to }).map_err(DriverError::Contradiction)?;
                }
                let fresh = match rsp.status {
                    Status::Unique => true,
                    Status::Duplicate => false,
                    status => return Err(DriverError::Rebuild { lpa: *lpa, status }),
                };
                let event =
                    Event::Map { lpa: *lpa, ppa: rsp.value, fresh, flags: copy.flags, fingerprint: copy.fingerprint };
                dev.mirror.apply(&event).map_err(DriverError::Contradiction)?;
                log.push((*lpa, (rsp, moves)));
            }
        }
        report.rebuilt_lpas = entries.len() as u64;
        report.live_pages = dev.mirror.live_pages();
        report.rebuild_seconds = start.elapsed().as_secs_f64();
        let start = std::time::Instant::now();
        let operations = report.recovery.committed_operations + report.recovery.recovered_operations;
        if dev.mirror.same_layout(&recovered.mirror) && recovered.redo.is_empty() {
            // The data lies where the rebuilt core has it: checkpoint the
            // metadata (if the journal changed it) without copying.
            if operations > 0 {
                dev.store.checkpoint(&dev.mirror)?;
            } else if report.recovery.journal_entries > 0 || report.recovery.torn_bytes > 0 {
                dev.store.reset_journal()?;
            }
        } else {
            let files = dev.store.next_generation()?;
            for (lpa, (rsp, moves)) in &log {
                for m in moves {
                    let moved = files.read(m.from)?;
                    files.write(m.to, &moved)?;
                }
                if rsp.status != Status::Unique {
                    continue;
                }
                let old = recovered.mirror.lookup(*lpa).expect("every rebuilt LPA was recovered");
                let data = match recovered.redo.get(&old.ppa) {
                    Some(page) => page.clone(),
                    None => dev.store.read(old.ppa)?,
                };
                if old.flags & NO_DATA == 0 && !mirror::holds(&data, &old.fingerprint) {
                    report.corrupt_lpas.push(*lpa);
                }
                files.write(rsp.value, &data)?;
                report.pages_copied += 1;
            }
            dev.store.switch_generation(files, &dev.mirror)?;
            report.compacted = true;
        }
        report.copy_seconds = start.elapsed().as_secs_f64();
        report.generation = dev.store.generation();
        Ok((dev, report))
    }

    pub fn transport(&mut self) -> &mut T {
        &mut self.transport
    }
    pub fn driver_stats(&self) -> DriverStats {
        self.stats
    }
    pub fn lpas(&self) -> u32 {
        self.lpas
    }
    /// Sets the journal size below which a flush never checkpoints (default
    /// [`CHECKPOINT_MIN`]).
    pub fn set_checkpoint_min(&mut self, bytes: u64) {
        self.checkpoint_min = bytes;
    }

    /// The store's metadata as it is now.
    pub fn mirror(&self) -> &Mirror {
        &self.mirror
    }
    pub fn store(&self) -> &BackingStore {
        &self.store
    }
    pub fn store_mut(&mut self) -> &mut BackingStore {
        &mut self.store
    }

    /// Tags `jobs` (their tags count on from the last batch), runs them, and
    /// checks that every response carries its command's tag.
    fn submit(&mut self, mut jobs: Vec<Job>) -> Result<Vec<Completion>, DriverError> {
        for job in &mut jobs {
            job.cmd.tag = self.next_tag;
            self.next_tag = self.next_tag.wrapping_add(1);
        }
        let completions = self.transport.execute(&jobs)?;
        for (job, (rsp, _)) in jobs.iter().zip(&completions) {
            if rsp.tag != job.cmd.tag {
                return Err(DriverError::TagMismatch { got: rsp.tag, sent: job.cmd.tag });
            }
            if job.cmd.op <= Op::WriteUnique as u8 && !rsp.status.is_error() {
                self.stats.index_full_writes += (rsp.flags & flag::INDEX_FULL != 0) as u64;
                self.stats.saturated_writes += (rsp.flags & flag::SATURATED != 0) as u64;
            }
        }
        Ok(completions)
    }

    /// Applies one event of the operation under way to the metadata.
    fn event(&mut self, event: Event) -> Result<(), DriverError> {
        if let Some(freed) = self.mirror.apply(&event).map_err(DriverError::Contradiction)? {
            self.freed.insert(freed);
        }
        self.events.push(event);
        Ok(())
    }

    /// Stores a page's data: in place, or, on a page freed since the last
    /// commit, held back for the operation's journal entry.
    fn put(&mut self, ppa: u32, data: &[u8; PAGE]) -> Result<(), DriverError> {
        if self.freed.contains(&ppa) {
            self.deferred.insert(ppa, Box::new(*data));
        } else {
            self.deferred.remove(&ppa);
            self.store.write(ppa, data)?;
        }
        Ok(())
    }

    /// A stored page's data, as the operation under way left it.
    fn get(&self, ppa: u32) -> Result<Box<[u8; PAGE]>, DriverError> {
        match self.deferred.get(&ppa) {
            Some(page) => Ok(page.clone()),
            None => Ok(self.store.read(ppa)?),
        }
    }

    /// Ends a device operation: its events go to the journal as one entry.
    /// With pages held back, the entry is committed at once and then they
    /// are written in place.
    fn finish(&mut self) -> Result<(), DriverError> {
        if self.events.is_empty() && self.deferred.is_empty() {
            return Ok(());
        }
        let mut redo: Vec<(u32, Box<[u8; PAGE]>)> = self.deferred.drain().collect();
        redo.sort_by_key(|(ppa, _)| *ppa);
        let events = std::mem::take(&mut self.events);
        if redo.is_empty() {
            self.store.append(&Entry::Ops { events, redo })?;
            return Ok(());
        }
        self.store.append(&Entry::Ops { events, redo: redo.clone() })?;
        self.commit()?;
        for (ppa, data) in &redo {
            self.store.write(*ppa, data)?;
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<(), DriverError> {
        self.store.commit()?;
        self.freed.clear();
        self.stats.commits += 1;
        Ok(())
    }

    /// Runs `f` as one device operation: whatever it did reaches the
    /// journal, also when it fails.
    fn operation<R>(&mut self, f: impl FnOnce(&mut Self) -> Result<R, DriverError>) -> Result<R, DriverError> {
        let result = f(self);
        let finished = self.finish();
        let value = result?;
        finished?;
        Ok(value)
    }

    /// A write the core stored as a new copy released the LPA's old copy
    /// before anything else (as the core does), so its page may be reused
    /// by the relocations and the new copy that follow it (an evicted NVM
    /// slot's write-back, the slot the new copy takes): the old copy is
    /// unmapped first, in the same operation.
    fn release_overwritten(&mut self, lpa: u32, status: Status) -> Result<(), DriverError> {
        if status == Status::Unique && self.mirror.lookup(lpa).is_some() {
            self.event(Event::Unmap { lpa })?;
        }
        Ok(())
    }

    /// Counts a new copy the core stored on the flash (not in an NVM slot).
    fn count_new_copy(&mut self, rsp: &Response) {
        if rsp.status == Status::Unique && nvm::slot_of(rsp.value).is_none() {
            self.stats.flash_programs += 1;
        }
    }

    /// Moves data for one completion's relocations.
    fn relocate(&mut self, moves: &[Relocation]) -> Result<(), DriverError> {
        self.stats.relocations += moves.len() as u64;
        for m in moves {
            self.stats.flash_programs += nvm::slot_of(m.to).is_none() as u64;
            self.event(Event::Move { from: m.from, to: m.to })?;
            let data = self.get(m.from)?;
            self.put(m.to, &data)?;
        }
        Ok(())
    }

    fn check_range(&self, lpa: u32) -> Result<(), DriverError> {
        if lpa >= self.lpas {
            return Err(DriverError::OutOfRange { lpa, lpas: self.lpas });
        }
        Ok(())
    }

    /// Writes one page; a duplicate is compared with the stored copy first
    /// (unless verification is off).
    pub fn write(&mut self, lpa: u32, data: &[u8; PAGE]) -> Result<Written, DriverError> {
        self.write_batch(&[(lpa, data)]).map(|mut w| w.remove(0))
    }

    /// Writes pages to distinct LPAs in one batch (the core streams them).
    /// Every completion is applied to the store in order (relocations,
    /// unique pages) before any error is returned, so a page that fails never
    /// leaves another page's data behind; duplicates are compared with their
    /// stored copy, and colliding ones stored unshared after the batch.
    pub fn write_batch(&mut self, pages: &[(u32, &[u8; PAGE])]) -> Result<Vec<Written>, DriverError> {
        for (lpa, _) in pages {
            self.check_range(*lpa)?;
        }
        self.operation(|dev| dev.write_pages(pages))
    }

    fn write_pages(&mut self, pages: &[(u32, &[u8; PAGE])]) -> Result<Vec<Written>, DriverError> {
        let jobs = pages
            .iter()
            .map(|(lpa, data)| Job { cmd: Command::new(Op::Write, 0, *lpa, [0; 20]), page: Some(Box::new(**data)) })
            .collect();
        let completions = self.submit(jobs)?;
        let mut out: Vec<Option<Written>> = Vec::with_capacity(pages.len());
        let mut first_error: Option<DriverError> = None;
        let mut collided = Vec::new();
        for (i, ((lpa, data), (rsp, moves))) in pages.iter().zip(completions).enumerate() {
            if let Err(e) = self.release_overwritten(*lpa, rsp.status).and_then(|_| self.relocate(&moves)) {
                first_error.get_or_insert(e);
            }
            self.count_new_copy(&rsp);
            // A duplicate maps to the stored copy as it is (under a core
            // whose fingerprints are weaker than SHA-1 its bytes may differ:
            // the byte check below catches that).
            let fingerprint = match rsp.status {
                Status::Duplicate => self.mirror.copy_at(rsp.value).map(|c| c.fingerprint),
                _ => None,
            }
            .unwrap_or_else(|| ditto_sim::hasher::sha1_of(data));
            let map = |fresh| Event::Map { lpa: *lpa, ppa: rsp.value, fresh, flags: 0, fingerprint };
            let written = match rsp.status {
                Status::Unique => self
                    .event(map(true))
                    .and_then(|_| self.put(rsp.value, data))
                    .map(|_| Some(Written::Unique { ppa: rsp.value })),
                Status::Duplicate => self.event(map(false)).and_then(|_| {
                    if !self.verify {
                        return Ok(Some(Written::Duplicate { ppa: rsp.value }));
                    }
                    self.stats.verified += 1;
                    let stored = self.get(rsp.value)?;
                    if *stored == **data {
                        Ok(Some(Written::Duplicate { ppa: rsp.value }))
                    } else {
                        collided.push(i);
                        Ok(None)
                    }
                }),
                Status::ErrDeviceFull => {
                    Err(DriverError::DeviceFull { lpa: *lpa, device: lpa % self.geometry().devices })
                }
                status => Err(DriverError::Unexpected { op: Op::Write, lpa: *lpa, status }),
            };
            match written {
                Ok(w) => out.push(w),
                Err(e) => {
                    first_error.get_or_insert(e);
                    out.push(None);
                }
            }
        }
        for i in collided {
            // Same SHA-1, different bytes: the LPA gets a page of its own.
            self.stats.collisions_caught += 1;
            let (lpa, data) = pages[i];
            match self.store_unshared(lpa, data) {
                Ok(ppa) => out[i] = Some(Written::Collision { ppa }),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(out.into_iter().map(|w| w.expect("every page was handled")).collect()),
        }
    }

    fn geometry(&self) -> Geometry {
        self.store.geometry()
    }

    /// Stores a colliding page unshared (`WRITE_UNIQUE`). If that fails, the
    /// LPA is trimmed, so that it never reads another page's bytes.
    fn store_unshared(&mut self, lpa: u32, data: &[u8; PAGE]) -> Result<u32, DriverError> {
        let fingerprint = ditto_sim::hasher::sha1_of(data);
        let stored = self.run_ops(&[(Op::WriteUnique, lpa, fingerprint)]).and_then(|mut rsp| {
            let rsp = rsp.remove(0);
            match rsp.status {
                Status::Unique => self.put(rsp.value, data).map(|_| rsp.value),
                Status::ErrDeviceFull => Err(DriverError::DeviceFull { lpa, device: lpa % self.geometry().devices }),
                status => Err(DriverError::Unexpected { op: Op::WriteUnique, lpa, status }),
            }
        });
        stored.map_err(|e| {
            let trimmed = self.run_ops(&[(Op::Trim, lpa, [0; 20])]).is_ok();
            DriverError::CollisionNotStored { lpa, source: Box::new(e), trimmed }
        })
    }

    /// Runs commands that carry no page (`WRITE_FP`, `READ`, `TRIM`, ...) in
    /// one batch, moving data as relocations say; returns the responses.
    /// (A `WRITE_FP` stores a fingerprint with no data: reading its LPA is
    /// an error, and a scrub skips it.)
    pub fn batch(&mut self, ops: &[(Op, u32, ditto_hw::index::Fingerprint)]) -> Result<Vec<Response>, DriverError> {
        for (op, lpa, _) in ops {
            if *op != Op::Stats && *op != Op::Sync {
                self.check_range(*lpa)?;
            }
        }
        self.operation(|dev| dev.run_ops(ops))
    }

    /// [`batch`](Self::batch) inside the operation under way.
    fn run_ops(&mut self, ops: &[(Op, u32, ditto_hw::index::Fingerprint)]) -> Result<Vec<Response>, DriverError> {
        let jobs = ops.iter().map(|(op, lpa, fp)| Job { cmd: Command::new(*op, 0, *lpa, *fp), page: None }).collect();
        let mut out = Vec::with_capacity(ops.len());
        for ((op, lpa, fingerprint), (rsp, moves)) in ops.iter().zip(self.submit(jobs)?) {
            if matches!(op, Op::WriteFp | Op::WriteUnique) {
                self.release_overwritten(*lpa, rsp.status)?;
                self.count_new_copy(&rsp);
            }
            self.relocate(&moves)?;
            let map = |fresh, flags| Event::Map { lpa: *lpa, ppa: rsp.value, fresh, flags, fingerprint: *fingerprint };
            match (*op, rsp.status) {
                (Op::WriteFp, Status::Unique) => self.event(map(true, NO_DATA))?,
                (Op::WriteFp, Status::Duplicate) => self.event(map(false, 0))?,
                (Op::WriteUnique, Status::Unique) => self.event(map(true, UNSHARED))?,
                (Op::Trim, Status::Trimmed) => self.event(Event::Unmap { lpa: *lpa })?,
                (Op::Read, Status::Mapped) if self.mirror.lookup(*lpa).map(|c| c.ppa) != Some(rsp.value) => {
                    return Err(DriverError::MapDisagrees {
                        lpa: *lpa,
                        core: Some(rsp.value),
                        store: self.mirror.lookup(*lpa).map(|c| c.ppa),
                    })
                }
                (Op::Read, Status::Unmapped) if self.mirror.lookup(*lpa).is_some() => {
                    return Err(DriverError::MapDisagrees {
                        lpa: *lpa,
                        core: None,
                        store: self.mirror.lookup(*lpa).map(|c| c.ppa),
                    })
                }
                _ => {}
            }
            out.push(rsp);
        }
        Ok(out)
    }

    /// Reads one page (zeros where nothing was written).
    pub fn read(&mut self, lpa: u32) -> Result<Box<[u8; PAGE]>, DriverError> {
        Ok(self.read_batch(&[lpa])?.remove(0))
    }

    /// Reads pages in one batch; each is checked against its copy's
    /// fingerprint (a mismatch is [`DriverError::Corrupt`], never data).
    pub fn read_batch(&mut self, lpas: &[u32]) -> Result<Vec<Box<[u8; PAGE]>>, DriverError> {
        let ops: Vec<_> = lpas.iter().map(|&lpa| (Op::Read, lpa, [0; 20])).collect();
        let responses = self.batch(&ops)?;
        lpas.iter()
            .zip(responses)
            .map(|(&lpa, rsp)| match rsp.status {
                Status::Mapped => {
                    let copy = *self.mirror.lookup(lpa).expect("checked against the core's answer");
                    if copy.flags & NO_DATA != 0 {
                        return Err(DriverError::NoData { lpa });
                    }
                    let data = self.store.read(rsp.value)?;
                    if !mirror::holds(&data, &copy.fingerprint) {
                        self.stats.corrupt_reads += 1;
                        return Err(DriverError::Corrupt { lpa, ppa: rsp.value });
                    }
                    Ok(data)
                }
                Status::Unmapped => Ok(Box::new([0; PAGE])),
                status => Err(DriverError::Unexpected { op: Op::Read, lpa, status }),
            })
            .collect()
    }

    /// Unmaps one page.
    pub fn trim(&mut self, lpa: u32) -> Result<(), DriverError> {
        match self.batch(&[(Op::Trim, lpa, [0; 20])])?[0].status {
            Status::Trimmed | Status::Unmapped => Ok(()),
            status => Err(DriverError::Unexpected { op: Op::Trim, lpa, status }),
        }
    }

    /// Unmaps pages in one batch.
    pub fn trim_batch(&mut self, lpas: &[u32]) -> Result<(), DriverError> {
        let ops: Vec<_> = lpas.iter().map(|&lpa| (Op::Trim, lpa, [0; 20])).collect();
        for (lpa, rsp) in lpas.iter().zip(self.batch(&ops)?) {
            if !matches!(rsp.status, Status::Trimmed | Status::Unmapped) {
                return Err(DriverError::Unexpected { op: Op::Trim, lpa: *lpa, status: rsp.status });
            }
        }
        Ok(())
    }

    /// Completes everything in flight (`SYNC`, which also drains the
    /// cleaner) and commits: every write acknowledged before it survives a
    /// crash from now on. When the journal has grown past
    /// [`set_checkpoint_min`](Self::set_checkpoint_min) and four times what
    /// a checkpoint of the metadata takes, the metadata is checkpointed (in
    /// place: no data is copied) and the journal starts empty, so the
    /// journal, and the time to recover it, stay bounded.
    pub fn flush(&mut self) -> Result<(), DriverError> {
        match self.batch(&[(Op::Sync, 0, [0; 20])])?[0].status {
            Status::Done => self.commit()?,
            status => return Err(DriverError::Unexpected { op: Op::Sync, lpa: 0, status }),
        }
        let checkpoint_bytes = 29 * self.mirror.mapped_lpas() + 64;
        if self.store.journal_bytes() > self.checkpoint_min.max(4 * checkpoint_bytes) {
            self.store.checkpoint(&self.mirror)?;
            self.stats.checkpoints += 1;
        }
        Ok(())
    }

    /// The core's counters (by [`Stat`](ditto_hw::ftl::Stat) number), in one batch.
    pub fn stats(&mut self) -> Result<[u32; STATS], DriverError> {
        let ops: Vec<_> = (0..STATS as u32).map(|i| (Op::Stats, i, [0; 20])).collect();
        let mut out = [0; STATS];
        for (i, rsp) in self.batch(&ops)?.into_iter().enumerate() {
            if rsp.status != Status::Done {
                return Err(DriverError::Unexpected { op: Op::Stats, lpa: i as u32, status: rsp.status });
            }
            out[i] = rsp.value;
        }
        Ok(out)
    }
}

/// Most pages per device [`geometry_for`] supports: 8,192 blocks of 64
/// pages (the PPA's fields), less the reserve and the spare.
pub const MAX_PAGES_PER_DEVICE: u64 = (8_192 - 2) * 64 * 4 / 5;

/// A geometry with room for `pages` pages on `devices` devices (64-page
/// blocks, two reserve blocks per device, a quarter spare). With array-wide
/// dedup a device may also hold copies that other devices' LPAs share, so a
/// workload that overwrites unevenly can still fill one device first.
pub fn geometry_for(pages: u32, devices: u32) -> Result<Geometry, DriverError> {
    let per_device = pages.div_ceil(devices).max(1);
    if per_device as u64 > MAX_PAGES_PER_DEVICE {
        return Err(DriverError::TooLarge { pages: pages as u64, devices, max: MAX_PAGES_PER_DEVICE });
    }
    let blocks = ((per_device + per_device / 4).div_ceil(64) + 2).next_power_of_two().max(8);
    Ok(Geometry { devices, blocks_per_device: blocks, pages_per_block: 64, reserve_blocks: 2 })
}

/// The core setup for a device of `lpas` pages on `devices` devices with
/// the NVM cache `nvm` through `backend`: [`setup_for`], or the board's own
/// geometry, which must hold the device; refused if the backend's core has
/// no NVM cache and `nvm` asks for one.
pub fn setup_for_backend(
    backend: &Backend,
    config: &Config,
    lpas: u32,
    devices: u32,
    nvm: NvmConfig,
) -> Result<CoreSetup, DriverError> {
    let setup = match backend.board_core_setup(config, lpas, devices)? {
        Some(setup) => setup,
        None => setup_for(lpas, devices)?,
    };
    let setup = CoreSetup { nvm, ..setup };
    backend.check_nvm(config, &setup)?;
    Ok(setup)
}

/// The core setup for a device of `lpas` pages on `devices` devices.
pub fn setup_for(lpas: u32, devices: u32) -> Result<CoreSetup, DriverError> {
    Ok(CoreSetup {
        lpas,
        geometry: geometry_for(lpas, devices)?,
        array_wide: true,
        bloom: true,
        refcount_max: REFCOUNT_MAX,
        memory: MemTiming::fixed(2),
        nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
    })
}
