//! The store: a folder that holds a Ditto device's data and the metadata
//! that makes it a disk, so it survives a restart, `kill -9` and a power cut.
//! The layout and the durability contract are in `LAYOUT.md` beside this
//! file.
//!
//! - [`BackingStore`]: the device files of the current generation, the
//!   journal, the lock; [`BackingStore::open`] reads the checkpoint and the
//!   journal and recovers the metadata ([`Recovered`]), which
//!   [`Device::open`](crate::driver::Device::open) rebuilds the core from.
//! - [`mirror`]: the metadata in memory; [`format`]: its records on disk.
//! - [`scrub`]: checks every stored page against its fingerprint.
pub mod format;
pub mod mirror;

use ditto_hw::ftl::flash::Geometry;
use ditto_hw::ftl::nvm;
use ditto_hw::index::Fingerprint;
use format::{Entry, FormatError, StoreSpec, Superblock};
use mirror::{Event, Mirror, MirrorError, NO_DATA};
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Bytes in a page, logical and physical.
pub const PAGE: usize = 4096;

/// The superblock's file name.
pub const SUPERBLOCK: &str = "ditto-store.json";
const LOCK: &str = "lock";

/// Everything opening, writing or recovering a store can fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("store {dir} is in use by another process (it is locked while open); nothing was changed")]
    Locked { dir: PathBuf },
    #[error("{dir} already holds a Ditto store")]
    Exists { dir: PathBuf },
    #[error("{dir} holds no Ditto store (no {SUPERBLOCK})")]
    NotAStore { dir: PathBuf },
    #[error("{dir} holds files but no Ditto store ({SUPERBLOCK} is missing): refusing to overwrite them")]
    NotEmpty { dir: PathBuf },
    #[error("{path}: {source}")]
    Format { path: PathBuf, source: FormatError },
    #[error("store {dir} was made with {field} {store}, not {wanted} as this command asks (leave the option out to use the store's)")]
    Mismatch { dir: PathBuf, field: &'static str, store: String, wanted: String },
    #[error("{path}: journal entry {seq} does not follow the metadata before it: {source}")]
    Journal { path: PathBuf, seq: u64, source: MirrorError },
    #[error("{path} is {found} bytes, not the {expected} of its geometry")]
    Size { path: PathBuf, found: u64, expected: u64 },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io { path: path.to_path_buf(), source }
}

/// One write or sync the store made, as a crash-consistency test records
/// them (file names are relative to the store's folder).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IoEvent {
    Write { file: String, offset: u64, data: Vec<u8> },
    Sync { file: String },
}

/// The record of a store's writes and syncs, in order.
pub type IoLog = Arc<Mutex<Vec<IoEvent>>>;

fn record(log: &Option<IoLog>, event: impl FnOnce() -> IoEvent) {
    if let Some(log) = log {
        log.lock().expect("the I/O log's lock").push(event());
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn device_file(d: u32, generation: u64) -> String {
    format!("device{d}.g{generation}.img")
}
fn nvm_file(generation: u64) -> String {
    format!("nvm.g{generation}.img")
}

/// The data files of a generation of a store shaped as `spec`: one per
/// device, then the NVM cache's if it has one.
fn data_files(spec: &StoreSpec, generation: u64) -> Vec<String> {
    let mut names: Vec<String> = (0..spec.devices).map(|d| device_file(d, generation)).collect();
    if spec.nvm_slots > 0 {
        names.push(nvm_file(generation));
    }
    names
}

fn checkpoint_file(generation: u64) -> String {
    format!("checkpoint.g{generation}")
}
fn journal_file(generation: u64) -> String {
    format!("journal.g{generation}")
}

/// The data files of one generation: page `p` of block `b` of a device at
/// byte `(b * pages_per_block + p) * 4096` of its file; NVM slot `s` at
/// byte `s * 4096` of the NVM file.
pub struct DataFiles {
    geometry: Geometry,
    /// The devices' files, then the NVM's.
    files: Vec<(PathBuf, File)>,
    log: Option<IoLog>,
}

impl DataFiles {
    fn open(dir: &Path, spec: &StoreSpec, generation: u64, create: bool) -> Result<Self, StoreError> {
        let geometry = spec.geometry();
        let device_bytes = geometry.blocks_per_device as u64 * geometry.pages_per_block as u64 * PAGE as u64;
        let mut files = Vec::new();
        for (i, name) in data_files(spec, generation).into_iter().enumerate() {
            let expected =
                if i < geometry.devices as usize { device_bytes } else { spec.nvm_slots as u64 * PAGE as u64 };
            let path = dir.join(name);
            if create {
                // A new inode: a file left under this name (say, a link a
                // checkpoint made before a crash) may share the current
                // generation's data, which truncating it would destroy.
                match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io_err(&path)(e)),
                    _ => {}
                }
            }
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(create)
                .truncate(create)
                .open(&path)
                .map_err(io_err(&path))?;
            if create {
                file.set_len(expected).map_err(io_err(&path))?;
            } else {
                let found = file.metadata().map_err(io_err(&path))?.len();
                if found != expected {
                    return Err(StoreError::Size { path, found, expected });
                }
            }
            files.push((path, file));
        }
        Ok(DataFiles { geometry, files, log: None })
    }

    fn place(&self, ppa: u32) -> (usize, u64) {
        let g = &self.geometry;
        if let Some(slot) = nvm::slot_of(ppa) {
            return (g.devices as usize, slot as u64 * PAGE as u64);
        }
        let device = g.device_of(ppa);
        let (block, page) = g.locate(ppa);
        let in_device = (block - device * g.blocks_per_device) * g.pages_per_block + page;
        (device as usize, in_device as u64 * PAGE as u64)
    }

    /// The device a PPA is on (`None` for an NVM slot).
    pub fn device_of(&self, ppa: u32) -> Option<u32> {
        nvm::slot_of(ppa).is_none().then(|| self.geometry.device_of(ppa))
    }

    pub fn read(&self, ppa: u32) -> Result<Box<[u8; PAGE]>, StoreError> {
        let (d, offset) = self.place(ppa);
        let mut page = Box::new([0u8; PAGE]);
        let (path, file) = &self.files[d];
        file.read_exact_at(&mut page[..], offset).map_err(io_err(path))?;
        Ok(page)
    }

    pub fn write(&self, ppa: u32, data: &[u8; PAGE]) -> Result<(), StoreError> {
        let (d, offset) = self.place(ppa);
        let (path, file) = &self.files[d];
        record(&self.log, || IoEvent::Write { file: file_name(path), offset, data: data.to_vec() });
        file.write_all_at(data, offset).map_err(io_err(path))
    }

    /// Flushes every device file's data to disk.
    pub fn sync(&self) -> Result<(), StoreError> {
        for (path, file) in &self.files {
            record(&self.log, || IoEvent::Sync { file: file_name(path) });
            file.sync_data().map_err(io_err(path))?;
        }
        Ok(())
    }
}

/// The journal being written: entries appended at its end.
struct Journal {
    path: PathBuf,
    file: File,
    len: u64,
    next_seq: u64,
    log: Option<IoLog>,
}

impl Journal {
    /// An empty journal at `path`, replacing any there atomically.
    fn create(path: PathBuf, generation: u64) -> Result<Self, StoreError> {
        let header = format::journal_header(generation);
        let dir = path.parent().expect("a journal is in its store's folder");
        replace_file(dir, &file_name(&path), &header)?;
        let file = OpenOptions::new().read(true).write(true).open(&path).map_err(io_err(&path))?;
        Ok(Journal { path, file, len: header.len() as u64, next_seq: 0, log: None })
    }

    fn append(&mut self, entry: &Entry) -> Result<(), StoreError> {
        let bytes = format::encode_entry(self.next_seq, entry);
        record(&self.log, || IoEvent::Write { file: file_name(&self.path), offset: self.len, data: bytes.clone() });
        self.file.write_all_at(&bytes, self.len).map_err(io_err(&self.path))?;
        self.len += bytes.len() as u64;
        self.next_seq += 1;
        Ok(())
    }

    fn sync(&self) -> Result<(), StoreError> {
        record(&self.log, || IoEvent::Sync { file: file_name(&self.path) });
        self.file.sync_data().map_err(io_err(&self.path))
    }
}

/// Writes `bytes` to `dir/name` durably and atomically: a temporary file,
/// fsynced, renamed over the old one, then the folder fsynced.
fn replace_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
    let tmp = dir.join(format!("{name}.tmp"));
    let path = dir.join(name);
    let file = File::create(&tmp).map_err(io_err(&tmp))?;
    file.write_all_at(bytes, 0).map_err(io_err(&tmp))?;
    file.sync_all().map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io_err(&path))?;
    sync_dir(dir)
}

fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(io_err(dir))
}

/// Takes the store's lock (an exclusive `flock` on `dir/lock`, released
/// when the file closes, also when the process dies).
fn lock(dir: &Path) -> Result<File, StoreError> {
    let path = dir.join(LOCK);
    let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io_err(&path))?;
    // SAFETY: flock on a file descriptor this function owns.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc != 0 {
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
            return Err(StoreError::Locked { dir: dir.to_path_buf() });
        }
        return Err(StoreError::Io { path, source: err });
    }
    Ok(file)
}

/// An open store: its spec, the current generation's device files and
/// journal, and its lock.
pub struct BackingStore {
    spec: StoreSpec,
    dir: PathBuf,
    generation: u64,
    data: DataFiles,
    journal: Journal,
    log: Option<IoLog>,
    _lock: File,
    /// A store in a temporary folder removes it when dropped (declared
    /// last, so the files are closed first).
    temporary: Option<tempfile::TempDir>,
}

/// What [`BackingStore::open`] recovered: the metadata as of the last
/// durable state, and how it got there.
pub struct Recovered {
    /// The metadata: the checkpoint with the journal's accepted entries.
    pub mirror: Mirror,
    /// Pages whose newest data is in the journal (written in place only
    /// after their entry was durable), by PPA.
    pub redo: HashMap<u32, Box<[u8; PAGE]>>,
    pub report: RecoveryLog,
}

/// How a store's metadata was recovered from its checkpoint and journal.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RecoveryLog {
    pub generation: u64,
    /// LPAs the checkpoint maps.
    pub checkpoint_lpas: u64,
    /// Whole entries in the journal (operations and commits).
    pub journal_entries: u64,
    /// Operations up to the last commit: durable, applied as they are.
    pub committed_operations: u64,
    /// Operations after the last commit whose pages all held their data:
    /// applied.
    pub recovered_operations: u64,
    /// Operations after the last commit dropped because a page they wrote
    /// did not hold its data (never acknowledged as durable): their LPAs
    /// keep their older content.
    pub discarded_operations: u64,
    /// Bytes after the journal's last whole entry (a torn write).
    pub torn_bytes: u64,
    /// Pages read to check the operations after the last commit.
    pub pages_checked: u64,
}

impl BackingStore {
    /// A new store in a fresh temporary folder (`ditto-store-*` under the
    /// system's temporary directory), removed when the store is dropped
    /// (and, in `ditto`, on a signal: see [`crate::scratch`]).
    pub fn temporary(spec: &StoreSpec) -> Result<Self, StoreError> {
        let folder = tempfile::Builder::new()
            .prefix("ditto-store-")
            .tempdir()
            .map_err(|source| StoreError::Io { path: std::env::temp_dir(), source })?;
        let mut store = BackingStore::create(folder.path(), spec)?;
        store.temporary = Some(folder);
        Ok(store)
    }

    /// A new, empty store in `dir` (created if absent; it must hold no
    /// store and no other files).
    pub fn create(dir: &Path, spec: &StoreSpec) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let lock = lock(dir)?;
        if dir.join(SUPERBLOCK).exists() {
            return Err(StoreError::Exists { dir: dir.to_path_buf() });
        }
        let others = std::fs::read_dir(dir).map_err(io_err(dir))?.filter_map(|e| e.ok()).any(|e| e.file_name() != LOCK);
        if others {
            return Err(StoreError::NotEmpty { dir: dir.to_path_buf() });
        }
        let data = DataFiles::open(dir, spec, 0, true)?;
        data.sync()?;
        let checkpoint = dir.join(checkpoint_file(0));
        replace_file(dir, &checkpoint_file(0), &format::encode_checkpoint(0, &Mirror::new(spec.lpas)))?;
        let journal = Journal::create(dir.join(journal_file(0)), 0)?;
        debug_assert!(checkpoint.exists());
        replace_file(dir, SUPERBLOCK, &Superblock::new(spec.clone(), 0).encode())?;
        Ok(BackingStore {
            spec: spec.clone(),
            dir: dir.to_path_buf(),
            generation: 0,
            data,
            journal,
            log: None,
            _lock: lock,
            temporary: None,
        })
    }

    /// Opens the store in `dir` and recovers its metadata: the checkpoint,
    /// then the journal's operations up to its last commit, then those after
    /// it whose pages hold their data (see [`RecoveryLog`]). Nothing in the
    /// folder is changed; [`Device::open`](crate::driver::Device::open)
    /// goes on from here.
    pub fn open(dir: &Path) -> Result<(Self, Recovered), StoreError> {
        if !dir.join(SUPERBLOCK).exists() {
            return Err(StoreError::NotAStore { dir: dir.to_path_buf() });
        }
        let lock = lock(dir)?;
        let sb_path = dir.join(SUPERBLOCK);
        let sb_bytes = std::fs::read(&sb_path).map_err(io_err(&sb_path))?;
        let sb = Superblock::decode(&sb_bytes).map_err(|source| StoreError::Format { path: sb_path, source })?;
        let spec = sb.spec.clone();
        let generation = sb.generation;
        let data = DataFiles::open(dir, &spec, generation, false)?;

        let cp_path = dir.join(checkpoint_file(generation));
        let cp = std::fs::read(&cp_path).map_err(io_err(&cp_path))?;
        let mirror = format::decode_checkpoint(&cp, generation, &spec)
            .map_err(|source| StoreError::Format { path: cp_path.clone(), source })?;

        let j_path = dir.join(journal_file(generation));
        let j_bytes = std::fs::read(&j_path).map_err(io_err(&j_path))?;
        let read = format::decode_journal(&j_bytes, generation)
            .map_err(|source| StoreError::Format { path: j_path.clone(), source })?;
        let recovered = recover(mirror, &read, &data, &j_path, &spec, generation)?;
        let file = OpenOptions::new().read(true).write(true).open(&j_path).map_err(io_err(&j_path))?;
        let journal = Journal {
            path: j_path,
            file,
            len: read.valid_bytes as u64,
            next_seq: read.entries.len() as u64,
            log: None,
        };
        Ok((
            BackingStore {
                spec,
                dir: dir.to_path_buf(),
                generation,
                data,
                journal,
                log: None,
                _lock: lock,
                temporary: None,
            },
            recovered,
        ))
    }

    /// Opens the store in `dir` if it holds one (refusing it if its spec is
    /// not `spec`), or creates it.
    pub fn open_or_create(dir: &Path, spec: &StoreSpec) -> Result<(Self, Option<Recovered>), StoreError> {
        if !dir.join(SUPERBLOCK).exists() {
            return Ok((BackingStore::create(dir, spec)?, None));
        }
        let (store, recovered) = BackingStore::open(dir)?;
        if let Some((field, store_value, wanted)) = store.spec.difference(spec) {
            return Err(StoreError::Mismatch { dir: dir.to_path_buf(), field, store: store_value, wanted });
        }
        Ok((store, Some(recovered)))
    }

    /// The spec of the store in `dir`, read from its superblock (without
    /// opening or locking it).
    pub fn spec_of(dir: &Path) -> Result<Option<StoreSpec>, StoreError> {
        let path = dir.join(SUPERBLOCK);
        if !path.exists() {
            return Ok(None);
        }
        let bytes = std::fs::read(&path).map_err(io_err(&path))?;
        Ok(Some(Superblock::decode(&bytes).map_err(|source| StoreError::Format { path, source })?.spec))
    }

    pub fn spec(&self) -> &StoreSpec {
        &self.spec
    }
    pub fn geometry(&self) -> Geometry {
        self.spec.geometry()
    }
    /// The store's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    pub fn generation(&self) -> u64 {
        self.generation
    }
    /// Whether the store lives in a temporary folder.
    pub fn is_temporary(&self) -> bool {
        self.temporary.is_some()
    }
    /// Bytes of the current journal.
    pub fn journal_bytes(&self) -> u64 {
        self.journal.len
    }

    /// Records every write and sync from now on (for crash-consistency
    /// tests).
    pub fn record_io(&mut self) -> IoLog {
        let log: IoLog = Arc::default();
        self.log = Some(log.clone());
        self.data.log = Some(log.clone());
        self.journal.log = Some(log.clone());
        log
    }

    pub fn read(&self, ppa: u32) -> Result<Box<[u8; PAGE]>, StoreError> {
        self.data.read(ppa)
    }
    pub fn write(&self, ppa: u32, data: &[u8; PAGE]) -> Result<(), StoreError> {
        self.data.write(ppa, data)
    }
    pub fn device_of(&self, ppa: u32) -> Option<u32> {
        self.data.device_of(ppa)
    }

    /// Appends an entry to the journal (in the page cache: durable at the
    /// next [`commit`](Self::commit)).
    pub fn append(&mut self, entry: &Entry) -> Result<(), StoreError> {
        self.journal.append(entry)
    }

    /// Makes everything so far durable: the device files' data, then a
    /// commit entry, then the journal.
    pub fn commit(&mut self) -> Result<(), StoreError> {
        self.data.sync()?;
        self.journal.append(&Entry::Commit)?;
        self.journal.sync()
    }

    /// Empties the journal (its operations are in the checkpoint already).
    pub fn reset_journal(&mut self) -> Result<(), StoreError> {
        let mut journal = Journal::create(self.journal.path.clone(), self.generation)?;
        journal.log = self.log.clone();
        self.journal = journal;
        Ok(())
    }

    /// Device files for the next generation, empty.
    pub fn next_generation(&self) -> Result<DataFiles, StoreError> {
        let mut files = DataFiles::open(&self.dir, &self.spec, self.generation + 1, true)?;
        files.log = self.log.clone();
        Ok(files)
    }

    /// Makes `files` (holding the data as `mirror` maps it) the current
    /// generation: they are fsynced, the checkpoint of `mirror` and an
    /// empty journal written, then the superblock switched atomically; the
    /// old generation's files are removed. A crash at any point leaves
    /// either the old generation or the new one whole.
    pub fn switch_generation(&mut self, files: DataFiles, mirror: &Mirror) -> Result<(), StoreError> {
        let next = self.generation + 1;
        files.sync()?;
        replace_file(&self.dir, &checkpoint_file(next), &format::encode_checkpoint(next, mirror))?;
        let mut journal = Journal::create(self.dir.join(journal_file(next)), next)?;
        journal.log = self.log.clone();
        sync_dir(&self.dir)?;
        replace_file(&self.dir, SUPERBLOCK, &Superblock::new(self.spec.clone(), next).encode())?;
        let old = self.generation;
        self.generation = next;
        self.data = files;
        self.journal = journal;
        self.remove_other_generations(old);
        Ok(())
    }

    /// Checkpoints `mirror` (the metadata of the data as it lies) as the
    /// next generation without copying data: the device files are linked
    /// under the next generation's names, then the checkpoint, an empty
    /// journal and the superblock are written as in
    /// [`switch_generation`](Self::switch_generation).
    pub fn checkpoint(&mut self, mirror: &Mirror) -> Result<(), StoreError> {
        let next = self.generation + 1;
        self.data.sync()?;
        for (old, new) in data_files(&self.spec, self.generation).into_iter().zip(data_files(&self.spec, next)) {
            let (old, new) = (self.dir.join(old), self.dir.join(new));
            let _ = std::fs::remove_file(&new);
            std::fs::hard_link(&old, &new).map_err(io_err(&new))?;
        }
        let mut files = DataFiles::open(&self.dir, &self.spec, next, false)?;
        files.log = self.log.clone();
        self.switch_generation(files, mirror)
    }

    /// Removes the files of generation `old` (best effort: a file left
    /// behind is ignored by later opens).
    fn remove_other_generations(&self, old: u64) {
        for name in data_files(&self.spec, old) {
            let _ = std::fs::remove_file(self.dir.join(name));
        }
        let _ = std::fs::remove_file(self.dir.join(checkpoint_file(old)));
        let _ = std::fs::remove_file(self.dir.join(journal_file(old)));
    }
}

/// Recovers the metadata: the checkpoint `mirror`, the journal's entries up
/// to its last commit, then the longest run of entries after it that leaves
/// every page they wrote (and still map) holding its data.
fn recover(
    mut mirror: Mirror,
    read: &format::JournalRead,
    data: &DataFiles,
    path: &Path,
    spec: &StoreSpec,
    generation: u64,
) -> Result<Recovered, StoreError> {
    // Every page an entry names must be one of the store's.
    for (seq, entry) in read.entries.iter().enumerate() {
        if let Entry::Ops { events, redo } = entry {
            let ppas = events.iter().flat_map(|e| match *e {
                Event::Map { ppa, .. } => vec![ppa],
                Event::Move { from, to } => vec![from, to],
                Event::Unmap { .. } => vec![],
            });
            if let Some(ppa) = ppas.chain(redo.iter().map(|(p, _)| *p)).find(|&p| !spec.holds_ppa(p)) {
                return Err(StoreError::Format {
                    path: path.to_path_buf(),
                    source: FormatError::Entry {
                        seq: seq as u64,
                        offset: 0,
                        what: format!("PPA {ppa} is not a page of the store"),
                    },
                });
            }
        }
    }
    let mut report = RecoveryLog {
        generation,
        checkpoint_lpas: mirror.mapped_lpas(),
        journal_entries: read.entries.len() as u64,
        torn_bytes: read.torn_bytes as u64,
        ..RecoveryLog::default()
    };
    let last_commit = read.entries.iter().rposition(|e| *e == Entry::Commit).map_or(0, |i| i + 1);
    let mut redo: HashMap<u32, Box<[u8; PAGE]>> = HashMap::new();
    let journal_err = |seq: usize| {
        let path = path.to_path_buf();
        move |source| StoreError::Journal { path, seq: seq as u64, source }
    };
    for (seq, entry) in read.entries[..last_commit].iter().enumerate() {
        if let Entry::Ops { events, redo: pages } = entry {
            for e in events {
                mirror.apply(e).map_err(journal_err(seq))?;
                if let Some(ppa) = written_page(e) {
                    redo.remove(&ppa);
                }
            }
            for (ppa, page) in pages {
                redo.insert(*ppa, page.clone());
            }
            report.committed_operations += 1;
        }
    }

    // After the last commit: find the longest prefix whose written pages
    // all hold their data (the data files may have lost writes the journal
    // kept, or the other way round).
    let tail = &read.entries[last_commit..];
    let mut trial = mirror.clone();
    let mut trial_redo = redo.clone();
    let mut on_disk: HashMap<u32, Fingerprint> = HashMap::new();
    let mut written: HashSet<u32> = HashSet::new();
    let mut bad: HashSet<u32> = HashSet::new();
    let mut accepted = 0;
    for (k, entry) in tail.iter().enumerate() {
        let Entry::Ops { events, redo: pages } = entry else { continue };
        let seq = last_commit + k;
        let mut touched = Vec::new();
        for e in events {
            if let Some(freed) = trial.apply(e).map_err(journal_err(seq))? {
                written.remove(&freed);
                bad.remove(&freed);
            }
            if let Some(ppa) = written_page(e) {
                trial_redo.remove(&ppa);
                written.insert(ppa);
                touched.push(ppa);
            }
        }
        for (ppa, page) in pages {
            trial_redo.insert(*ppa, page.clone());
            touched.push(*ppa);
        }
        for ppa in touched {
            let Some(copy) = trial.copy_at(ppa) else { continue };
            if !written.contains(&ppa) || copy.flags & NO_DATA != 0 {
                continue;
            }
            let holds = match trial_redo.get(&ppa) {
                Some(page) => mirror::holds(page, &copy.fingerprint),
                None => {
                    let fp = match on_disk.get(&ppa) {
                        Some(fp) => *fp,
                        None => {
                            report.pages_checked += 1;
                            let fp = ditto_sim::hasher::sha1_of(&*data.read(ppa)?);
                            on_disk.insert(ppa, fp);
                            fp
                        }
                    };
                    fp == copy.fingerprint
                }
            };
            if holds {
                bad.remove(&ppa);
            } else {
                bad.insert(ppa);
            }
        }
        if bad.is_empty() {
            accepted = k + 1;
        }
    }
    let operations = |entries: &[Entry]| entries.iter().filter(|e| matches!(e, Entry::Ops { .. })).count() as u64;
    for (k, entry) in tail[..accepted].iter().enumerate() {
        if let Entry::Ops { events, redo: pages } = entry {
            for e in events {
                mirror.apply(e).map_err(journal_err(last_commit + k))?;
                if let Some(ppa) = written_page(e) {
                    redo.remove(&ppa);
                }
            }
            for (ppa, page) in pages {
                redo.insert(*ppa, page.clone());
            }
        }
    }
    report.recovered_operations = operations(&tail[..accepted]);
    report.discarded_operations = operations(&tail[accepted..]);
    Ok(Recovered { mirror, redo, report })
}

/// The page an event stores data on: a new copy's, or a move's target.
fn written_page(e: &Event) -> Option<u32> {
    match *e {
        Event::Map { ppa, fresh: true, .. } => Some(ppa),
        Event::Move { to, .. } => Some(to),
        _ => None,
    }
}

/// A stored page that does not hold its data.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BadPage {
    pub ppa: u32,
    /// The device it is on (`None`: a slot of the NVM cache).
    pub device: Option<u32>,
    /// The logical addresses that read it (each read of them is EIO).
    pub lpas: Vec<u32>,
}

/// What [`scrub`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ScrubReport {
    pub generation: u64,
    /// Stored copies checked against their fingerprints.
    pub pages_checked: u64,
    /// Copies with a fingerprint but no data (written by `WRITE_FP`).
    pub fingerprint_only: u64,
    pub mapped_lpas: u64,
    pub bad_pages: Vec<BadPage>,
    /// How the metadata was recovered first (nothing is changed).
    pub recovery: RecoveryLog,
}

impl ScrubReport {
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![
            format!("generation         {}", self.generation),
            format!("mapped LPAs        {}", self.mapped_lpas),
            format!("pages checked      {}", self.pages_checked),
            format!("fingerprint only   {} (no data to check)", self.fingerprint_only),
            format!("bad pages          {}", self.bad_pages.len()),
        ];
        for b in &self.bad_pages {
            let shown: Vec<String> = b.lpas.iter().take(16).map(|l| l.to_string()).collect();
            let more = if b.lpas.len() > 16 { format!(" and {} more", b.lpas.len() - 16) } else { String::new() };
            let place = match (b.device, nvm::slot_of(b.ppa)) {
                (Some(device), _) => format!("device {device}"),
                (None, slot) => format!("NVM slot {}", slot.unwrap_or_default()),
            };
            out.push(format!("  PPA {} ({place}): LPAs {}{more}", b.ppa, shown.join(", ")));
        }
        out
    }
}

/// Checks every stored page of the store in `dir` against its fingerprint
/// and lists the LPAs of each bad one. The store is locked while it runs
/// and nothing in it is changed.
pub fn scrub(dir: &Path) -> Result<ScrubReport, StoreError> {
    let (store, recovered) = BackingStore::open(dir)?;
    let mut report = ScrubReport {
        generation: store.generation,
        mapped_lpas: recovered.mirror.mapped_lpas(),
        recovery: recovered.report.clone(),
        ..ScrubReport::default()
    };
    for (copy, lpas) in recovered.mirror.copies_with_lpas() {
        if copy.flags & NO_DATA != 0 {
            report.fingerprint_only += 1;
            continue;
        }
        report.pages_checked += 1;
        let page = match recovered.redo.get(&copy.ppa) {
            Some(p) => p.clone(),
            None => store.read(copy.ppa)?,
        };
        if !mirror::holds(&page, &copy.fingerprint) {
            report.bad_pages.push(BadPage { ppa: copy.ppa, device: store.device_of(copy.ppa), lpas });
        }
    }
    Ok(report)
}
