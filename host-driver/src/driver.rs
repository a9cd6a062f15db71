//! The host driver: Ditto as a block device of 4 KiB logical pages.
//!
//! One device API ([`Device`]: `write`, `read`, `trim`, `flush`, `stats`)
//! over a [`Transport`], one per way of reaching the core:
//! - [`CosimTransport`]: the emitted Verilog of a configuration's whole core
//!   under Verilator (every response also checked against the golden model);
//! - [`ModelTransport`]: the golden model alone (pure software);
//! - [`crate::link::LinkTransport`]: the Cu's whole-core board top over its
//!   framed UART link, on a board (`serial:PATH`) or cosimulated through its
//!   pins (`board-cosim`).
//!
//! The physical pages live in a [`BackingStore`]: one file per device, laid
//! out by the flash geometry. The driver writes each unique page where the
//! core says, moves data as its garbage collection directs, and serves reads
//! from it. **Collision safety** (on by default): when the core answers that a
//! page duplicates a stored one, the driver compares its bytes with the
//! stored copy before acknowledging it; on a mismatch (two different pages
//! with one SHA-1) the LPA is remapped to a page of its own with
//! `WRITE_UNIQUE`.
//!
//! The mapping lives in the core: the device files alone are not a
//! persistent disk, and each run starts empty.
use ditto_hw::board::BoardSetup;
use ditto_hw::ftl::flash::{Geometry, Relocation};
use ditto_hw::ftl::model::{Command, CoreConfig, CoreModel, Response};
use ditto_hw::ftl::{flag, Op, Status, REFCOUNT_MAX, STATS};
use ditto_hw::index::model::IndexStats;
use ditto_hw::Config;
use ditto_sim::ditto_core::{CoreSetup, CoreSim, HostTraffic, Job};
use ditto_sim::index::MemTiming;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes in a logical (and physical) page.
pub const PAGE: usize = 4096;

/// Everything the driver can fail with.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("LPA {lpa} is beyond the device's {lpas} pages")]
    OutOfRange { lpa: u32, lpas: u32 },
    #[error("device {device} is full: no room for a new page (LPA {lpa} keeps its previous content)")]
    DeviceFull { lpa: u32, device: u32 },
    #[error("the core answered {status:?} to {op:?} of LPA {lpa}")]
    Unexpected { op: Op, lpa: u32, status: Status },
    #[error("LPA {lpa} collided with another page's fingerprint and could not be stored unshared ({reason}); {}", if *trimmed { "it was trimmed and reads as zeros" } else { "trimming it failed too" })]
    CollisionNotStored { lpa: u32, reason: String, trimmed: bool },
    #[error("{pages} pages on {devices} device(s): at most {max} pages per device fit the PPA's fields")]
    TooLarge { pages: u64, devices: u32, max: u64 },
    #[error("{0}")]
    Backend(String),
    /// A size or count past what the configuration holds.
    #[error("{0}")]
    Limit(String),
    #[error("the core failed: {0}")]
    Core(String),
    #[error("backing store {path}: {source}")]
    Store { path: PathBuf, source: std::io::Error },
}

/// One command's outcome: the response and the relocations made before it.
pub type Completion = (Response, Vec<Relocation>);

/// A way of reaching the core. Between two calls the core is idle long
/// enough for its background cleaner to drain its backlog, on every transport,
/// so all of them give the same results.
pub trait Transport {
    /// Runs `jobs` in order and returns their completions.
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, DriverError>;
    /// The index's counters.
    fn index_stats(&mut self) -> Result<IndexStats, DriverError>;
    /// Core clock cycles spent so far (0 where there is no clock).
    fn cycles(&self) -> u64;
    /// The transport's name, as `--backend` spells it.
    fn name(&self) -> String;
}

impl<T: Transport + ?Sized> Transport for Box<T> {
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, DriverError> {
        (**self).execute(jobs)
    }
    fn index_stats(&mut self) -> Result<IndexStats, DriverError> {
        (**self).index_stats()
    }
    fn cycles(&self) -> u64 {
        (**self).cycles()
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

/// The transport `--backend` names: `verilator` (the whole core of `config`
/// cosimulated), `model`, `serial:PATH` (the Alchitry Cu over its USB UART,
/// built with [`BoardSetup::CU`]) or `board-cosim` (the Cu's board top
/// cosimulated through its UART pins, built with [`BoardSetup::COSIM`]).
/// The board backends have their own fixed geometry: see [`board_setup`].
pub fn transport(backend: &str, config: &Config, setup: CoreSetup) -> Result<Box<dyn Transport>, DriverError> {
    match backend {
        "verilator" => Ok(Box::new(CosimTransport::new(config, setup)?)),
        "model" => Ok(Box::new(ModelTransport::new(setup.core_config(config)))),
        "board-cosim" => {
            let board = board_setup(backend, config)?.expect("a board backend");
            let model =
                ditto_sim::Model::new(crate::link::BOARD_MODEL).map_err(|e| DriverError::Core(e.to_string()))?;
            let pipe = crate::link::CosimUartPipe::attach(Box::new(model))?;
            Ok(Box::new(crate::link::LinkTransport::connect(pipe, config, board)?))
        }
        other if other.starts_with("serial:") => {
            let board = board_setup(backend, config)?.expect("a board backend");
            let baud = config.clock_mhz * 1_000_000 / board.cycles_per_bit;
            let pipe = crate::link::SerialPipe::open(&other["serial:".len()..], baud)?;
            Ok(Box::new(crate::link::LinkTransport::connect(pipe, config, board)?))
        }
        other => Err(DriverError::Backend(format!(
            "unknown backend `{other}`; known: verilator, model, board-cosim, serial:PATH"
        ))),
    }
}

/// The board a backend reaches, with its fixed geometry (`None` for the
/// backends that take any geometry). Boards exist for `cu` only.
pub fn board_setup(backend: &str, config: &Config) -> Result<Option<BoardSetup>, DriverError> {
    let board = match backend {
        "board-cosim" => BoardSetup::COSIM,
        b if b.starts_with("serial:") => BoardSetup::CU,
        _ => return Ok(None),
    };
    if config.name != "cu" {
        return Err(DriverError::Backend(format!(
            "--backend {backend} reaches the Alchitry Cu's board top: use --config cu, not {}",
            config.name
        )));
    }
    Ok(Some(board))
}

/// The golden model alone.
pub struct ModelTransport {
    model: CoreModel,
}

impl ModelTransport {
    pub fn new(config: CoreConfig) -> Self {
        ModelTransport { model: CoreModel::new(config) }
    }
}

impl Transport for ModelTransport {
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, DriverError> {
        let out = jobs.iter().map(|j| self.model.execute(&j.model_command())).collect();
        // The idle gap after a call: the cleaner drains its backlog.
        while self.model.clean_step() {}
        Ok(out)
    }
    fn index_stats(&mut self) -> Result<IndexStats, DriverError> {
        Ok(self.model.index_stats())
    }
    fn cycles(&self) -> u64 {
        0
    }
    fn name(&self) -> String {
        "model".into()
    }
}

/// The whole core of a configuration under Verilator, checked against the
/// golden model as it runs.
pub struct CosimTransport {
    sim: CoreSim<Box<ditto_sim::Model>>,
    golden: CoreModel,
    cycles: u64,
}

impl CosimTransport {
    pub fn new(config: &Config, setup: CoreSetup) -> Result<Self, DriverError> {
        let model = ditto_sim::Model::new(&ditto_sim::ditto_core::model_name(config))
            .map_err(|e| DriverError::Core(e.to_string()))?;
        let mut sim = CoreSim::attach(Box::new(model), config, setup).map_err(|e| DriverError::Core(e.to_string()))?;
        sim.set_table_checks(false);
        // The whole-state checks scan the device: at flushes, not after
        // every request (each response is still checked as it comes).
        sim.set_checks_after_each_run(false);
        sim.set_drain_cleaner(true);
        let golden = sim.golden();
        Ok(CosimTransport { sim, golden, cycles: 0 })
    }
}

impl Transport for CosimTransport {
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, DriverError> {
        let run = self
            .sim
            .run_checked(&mut self.golden, jobs, HostTraffic::FULL_SPEED)
            .map_err(|e| DriverError::Core(e.to_string()))?;
        if jobs.iter().any(|j| j.cmd.op == Op::Sync as u8) {
            self.sim.check_state(&self.golden).map_err(|e| DriverError::Core(e.to_string()))?;
        }
        self.cycles += run.cycles;
        Ok(run.responses.into_iter().zip(run.moves).collect())
    }
    fn index_stats(&mut self) -> Result<IndexStats, DriverError> {
        Ok(self.sim.index_stats())
    }
    fn cycles(&self) -> u64 {
        self.cycles
    }
    fn name(&self) -> String {
        format!("verilator ({})", ditto_sim::ditto_core::model_name(self.sim.config()))
    }
}

/// The physical pages: one file per device, page `p` of block `b` at byte
/// `(b * pages_per_block + p) * 4096`.
pub struct BackingStore {
    geometry: Geometry,
    dir: PathBuf,
    files: Vec<(PathBuf, File)>,
    /// A store in a temporary folder removes it when dropped (declared
    /// after `files`, so the files are closed first).
    temporary: Option<tempfile::TempDir>,
}

/// Temporary stores that exist now, for [`remove_temporary_stores`].
static TEMPORARY_STORES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Removes every temporary store's folder: for a signal handler (Ctrl-C,
/// SIGTERM) that ends the process without running destructors.
pub fn remove_temporary_stores() {
    let dirs = TEMPORARY_STORES.lock().map(|d| d.clone()).unwrap_or_default();
    for dir in dirs {
        let _ = std::fs::remove_dir_all(dir);
    }
}

impl Drop for BackingStore {
    fn drop(&mut self) {
        if self.temporary.is_some() {
            if let Ok(mut dirs) = TEMPORARY_STORES.lock() {
                dirs.retain(|d| *d != self.dir);
            }
        }
    }
}

impl BackingStore {
    /// A store in a fresh temporary folder (`ditto-store-*` under the
    /// system's temporary directory), removed when the store is dropped or
    /// by [`remove_temporary_stores`].
    pub fn temporary(geometry: Geometry) -> Result<Self, DriverError> {
        let folder = tempfile::Builder::new()
            .prefix("ditto-store-")
            .tempdir()
            .map_err(|source| DriverError::Store { path: std::env::temp_dir(), source })?;
        if let Ok(mut dirs) = TEMPORARY_STORES.lock() {
            dirs.push(folder.path().to_path_buf());
        }
        let mut store = BackingStore::create(folder.path(), geometry)?;
        store.temporary = Some(folder);
        Ok(store)
    }

    /// The folder of the device files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates (or truncates) `dir/device<N>.img` for each device.
    pub fn create(dir: &Path, geometry: Geometry) -> Result<Self, DriverError> {
        let err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| DriverError::Store { path: path.clone(), source }
        };
        std::fs::create_dir_all(dir).map_err(err(dir))?;
        let mut files = Vec::new();
        for d in 0..geometry.devices {
            let path = dir.join(format!("device{d}.img"));
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .map_err(err(&path))?;
            file.set_len(geometry.pages_per_device() as u64 * PAGE as u64).map_err(err(&path))?;
            files.push((path, file));
        }
        Ok(BackingStore { geometry, dir: dir.to_path_buf(), files, temporary: None })
    }

    fn place(&self, ppa: u32) -> (usize, u64) {
        let device = self.geometry.device_of(ppa);
        let (block, page) = self.geometry.locate(ppa);
        let in_device = (block - device * self.geometry.blocks_per_device) * self.geometry.pages_per_block + page;
        (device as usize, in_device as u64 * PAGE as u64)
    }

    pub fn read(&self, ppa: u32) -> Result<Box<[u8; PAGE]>, DriverError> {
        let (d, offset) = self.place(ppa);
        let mut page = Box::new([0u8; PAGE]);
        let (path, file) = &self.files[d];
        file.read_exact_at(&mut page[..], offset)
            .map_err(|source| DriverError::Store { path: path.clone(), source })?;
        Ok(page)
    }

    pub fn write(&self, ppa: u32, data: &[u8; PAGE]) -> Result<(), DriverError> {
        let (d, offset) = self.place(ppa);
        let (path, file) = &self.files[d];
        file.write_all_at(data, offset).map_err(|source| DriverError::Store { path: path.clone(), source })
    }

    /// Flushes every device file to disk.
    pub fn sync(&self) -> Result<(), DriverError> {
        for (path, file) in &self.files {
            file.sync_data().map_err(|source| DriverError::Store { path: path.clone(), source })?;
        }
        Ok(())
    }

    /// Moves the data of each relocation, in order.
    pub fn relocate(&self, moves: &[Relocation]) -> Result<(), DriverError> {
        for m in moves {
            let data = self.read(m.from)?;
            self.write(m.to, &data)?;
        }
        Ok(())
    }
}

/// Driver-side counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DriverStats {
    /// Duplicates whose bytes differed from the stored copy (stored unshared).
    pub collisions_caught: u64,
    /// Duplicates compared byte for byte.
    pub verified: u64,
    /// Pages moved for garbage collection.
    pub relocations: u64,
    /// Writes stored unshared because their fingerprint's index bucket was
    /// full (a bigger index would have shared them).
    pub index_full_writes: u64,
    /// Writes of a content whose copy was at its reference-count limit,
    /// stored as a new copy (which later duplicates share).
    pub saturated_writes: u64,
}

/// Ditto as a block device.
pub struct Device<T: Transport> {
    transport: T,
    store: BackingStore,
    lpas: u32,
    verify: bool,
    stats: DriverStats,
    next_tag: u8,
}

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

impl<T: Transport> Device<T> {
    pub fn new(transport: T, store: BackingStore, lpas: u32, verify: bool) -> Self {
        Device { transport, store, lpas, verify, stats: DriverStats::default(), next_tag: 0 }
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
                return Err(DriverError::Core(format!("response tag {} for command tag {}", rsp.tag, job.cmd.tag)));
            }
            if job.cmd.op <= Op::WriteUnique as u8 && !rsp.status.is_error() {
                self.stats.index_full_writes += (rsp.flags & flag::INDEX_FULL != 0) as u64;
                self.stats.saturated_writes += (rsp.flags & flag::SATURATED != 0) as u64;
            }
        }
        Ok(completions)
    }

    /// Moves data for one completion's relocations.
    fn relocate(&mut self, moves: &[Relocation]) -> Result<(), DriverError> {
        self.stats.relocations += moves.len() as u64;
        self.store.relocate(moves)
    }

    /// One command that carries no page.
    fn one(&mut self, op: Op, lpa: u32) -> Result<Response, DriverError> {
        Ok(self.batch(&[(op, lpa, [0; 20])])?.remove(0))
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
    /// Every completion is applied to the backing store in order (relocations,
    /// unique pages) before any error is returned, so a page that fails never
    /// leaves another page's data behind; duplicates are compared with their
    /// stored copy, and colliding ones stored unshared after the batch.
    pub fn write_batch(&mut self, pages: &[(u32, &[u8; PAGE])]) -> Result<Vec<Written>, DriverError> {
        for (lpa, _) in pages {
            self.check_range(*lpa)?;
        }
        let jobs = pages
            .iter()
            .map(|(lpa, data)| Job { cmd: Command::new(Op::Write, 0, *lpa, [0; 20]), page: Some(Box::new(**data)) })
            .collect();
        let completions = self.submit(jobs)?;
        let mut out: Vec<Option<Written>> = Vec::with_capacity(pages.len());
        let mut first_error: Option<DriverError> = None;
        let mut collided = Vec::new();
        for (i, ((lpa, data), (rsp, moves))) in pages.iter().zip(completions).enumerate() {
            if let Err(e) = self.relocate(&moves) {
                first_error.get_or_insert(e);
            }
            let written = match rsp.status {
                Status::Unique => self.store.write(rsp.value, data).map(|_| Some(Written::Unique { ppa: rsp.value })),
                Status::Duplicate if self.verify => {
                    self.stats.verified += 1;
                    self.store.read(rsp.value).map(|stored| {
                        if *stored == **data {
                            Some(Written::Duplicate { ppa: rsp.value })
                        } else {
                            collided.push(i);
                            None
                        }
                    })
                }
                Status::Duplicate => Ok(Some(Written::Duplicate { ppa: rsp.value })),
                Status::ErrDeviceFull => {
                    Err(DriverError::DeviceFull { lpa: *lpa, device: lpa % self.store.geometry.devices })
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

    /// Stores a colliding page unshared (`WRITE_UNIQUE`). If that fails, the
    /// LPA is trimmed, so that it never reads another page's bytes.
    fn store_unshared(&mut self, lpa: u32, data: &[u8; PAGE]) -> Result<u32, DriverError> {
        let stored = self.one(Op::WriteUnique, lpa).and_then(|rsp| match rsp.status {
            Status::Unique => self.store.write(rsp.value, data).map(|_| rsp.value),
            Status::ErrDeviceFull => Err(DriverError::DeviceFull { lpa, device: lpa % self.store.geometry.devices }),
            status => Err(DriverError::Unexpected { op: Op::WriteUnique, lpa, status }),
        });
        stored.map_err(|e| {
            let trimmed = self.trim(lpa).is_ok();
            DriverError::CollisionNotStored { lpa, reason: e.to_string(), trimmed }
        })
    }

    /// Runs commands that carry no page (`WRITE_FP`, `READ`, `TRIM`, ...) in
    /// one batch, moving data as relocations say; returns the responses.
    /// (A `WRITE_FP` has no data for the backing store to keep.)
    pub fn batch(&mut self, ops: &[(Op, u32, ditto_hw::index::Fingerprint)]) -> Result<Vec<Response>, DriverError> {
        for (op, lpa, _) in ops {
            if *op != Op::Stats && *op != Op::Sync {
                self.check_range(*lpa)?;
            }
        }
        let jobs = ops.iter().map(|(op, lpa, fp)| Job { cmd: Command::new(*op, 0, *lpa, *fp), page: None }).collect();
        let mut out = Vec::with_capacity(ops.len());
        for (rsp, moves) in self.submit(jobs)? {
            self.relocate(&moves)?;
            out.push(rsp);
        }
        Ok(out)
    }

    /// Reads one page (zeros where nothing was written).
    pub fn read(&mut self, lpa: u32) -> Result<Box<[u8; PAGE]>, DriverError> {
        Ok(self.read_batch(&[lpa])?.remove(0))
    }

    /// Reads pages in one batch.
    pub fn read_batch(&mut self, lpas: &[u32]) -> Result<Vec<Box<[u8; PAGE]>>, DriverError> {
        let ops: Vec<_> = lpas.iter().map(|&lpa| (Op::Read, lpa, [0; 20])).collect();
        let responses = self.batch(&ops)?;
        lpas.iter()
            .zip(responses)
            .map(|(&lpa, rsp)| match rsp.status {
                Status::Mapped => self.store.read(rsp.value),
                Status::Unmapped => Ok(Box::new([0; PAGE])),
                status => Err(DriverError::Unexpected { op: Op::Read, lpa, status }),
            })
            .collect()
    }

    /// Unmaps one page.
    pub fn trim(&mut self, lpa: u32) -> Result<(), DriverError> {
        match self.one(Op::Trim, lpa)?.status {
            Status::Trimmed | Status::Unmapped => Ok(()),
            status => Err(DriverError::Unexpected { op: Op::Trim, lpa, status }),
        }
    }

    /// Completes everything in flight (`SYNC`, which also drains the
    /// cleaner) and syncs the device files.
    pub fn flush(&mut self) -> Result<(), DriverError> {
        match self.one(Op::Sync, 0)?.status {
            Status::Done => self.store.sync(),
            status => Err(DriverError::Unexpected { op: Op::Sync, lpa: 0, status }),
        }
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

/// The core setup for a device of `lpas` pages on `devices` devices through
/// `backend`: [`setup_for`], or the board's own geometry, which must hold
/// the device.
pub fn setup_for_backend(backend: &str, config: &Config, lpas: u32, devices: u32) -> Result<CoreSetup, DriverError> {
    let Some(board) = board_setup(backend, config)? else {
        return setup_for(lpas, devices);
    };
    if lpas > board.lpas || devices != board.geometry.devices {
        return Err(DriverError::Backend(format!(
            "--backend {backend}: the board serves {} pages of 4 KiB on {} device(s), not {lpas} pages on {devices}",
            board.lpas, board.geometry.devices
        )));
    }
    Ok(CoreSetup {
        lpas: board.lpas,
        geometry: board.geometry,
        array_wide: board.array_wide,
        bloom: true,
        refcount_max: board.refcount_max,
        memory: MemTiming::fixed(2),
    })
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
    })
}
