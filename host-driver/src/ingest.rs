//! `ditto ingest`: deduplicates a file, a directory tree or a disk image (each
//! file in 4 KiB pages, the last one zero-filled) through a [`Device`], and
//! reports what dedup did.
use crate::driver::{Device, DriverError, DriverStats, Transport, Written, PAGE};
use crate::timing::{Arrival, ResponseClock, ResponseTimes};
use ditto_hw::ftl::model::{Command, CoreModel};
use ditto_hw::ftl::{Op, Status};
use ditto_hw::index::model::IndexStats;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Errors of reading the input.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: not a regular file or directory")]
    NotAFile { path: PathBuf },
    #[error(transparent)]
    Driver(#[from] DriverError),
}

/// What to ingest: files, read a batch of pages at a time (so a disk image
/// need not fit in memory), or bytes already in memory.
pub enum Input {
    Files(Vec<(PathBuf, u64)>),
    Bytes(Vec<u8>),
}

impl Input {
    /// A file, or every regular file under a directory in name order.
    pub fn open(path: &Path) -> Result<Self, IngestError> {
        let mut files = Vec::new();
        collect(path, &mut files)?;
        let mut sized = Vec::with_capacity(files.len());
        for f in files {
            let len = std::fs::metadata(&f).map_err(|source| IngestError::Read { path: f.clone(), source })?.len();
            sized.push((f, len));
        }
        Ok(Input::Files(sized))
    }

    /// Pages in all (each file's last page zero-filled).
    pub fn pages(&self) -> u64 {
        match self {
            Input::Files(files) => files.iter().map(|(_, len)| len.div_ceil(PAGE as u64)).sum(),
            Input::Bytes(b) => (b.len() as u64).div_ceil(PAGE as u64),
        }
    }

    /// Calls `f` with each batch of up to `n` pages, in order.
    pub fn for_each_batch(
        &self,
        n: usize,
        mut f: impl FnMut(&[Box<[u8; PAGE]>]) -> Result<(), IngestError>,
    ) -> Result<(), IngestError> {
        let mut batch = Vec::with_capacity(n);
        match self {
            Input::Bytes(bytes) => {
                for chunk in split(bytes).chunks(n) {
                    f(chunk)?;
                }
                return Ok(());
            }
            Input::Files(files) => {
                for (path, len) in files {
                    let err = |source| IngestError::Read { path: path.clone(), source };
                    let mut file = std::fs::File::open(path).map_err(err)?;
                    let mut left = *len;
                    while left > 0 {
                        let mut page = Box::new([0u8; PAGE]);
                        let want = left.min(PAGE as u64) as usize;
                        std::io::Read::read_exact(&mut file, &mut page[..want]).map_err(err)?;
                        left -= want as u64;
                        batch.push(page);
                        if batch.len() == n {
                            f(&batch)?;
                            batch.clear();
                        }
                    }
                }
            }
        }
        if !batch.is_empty() {
            f(&batch)?;
        }
        Ok(())
    }
}

/// `bytes` in pages, the last one zero-filled.
pub fn split(bytes: &[u8]) -> Vec<Box<[u8; PAGE]>> {
    bytes
        .chunks(PAGE)
        .map(|chunk| {
            let mut page = Box::new([0u8; PAGE]);
            page[..chunk.len()].copy_from_slice(chunk);
            page
        })
        .collect()
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), IngestError> {
    let meta = std::fs::metadata(path).map_err(|source| IngestError::Read { path: path.into(), source })?;
    if meta.is_file() {
        files.push(path.into());
    } else if meta.is_dir() {
        let mut entries = std::fs::read_dir(path)
            .map_err(|source| IngestError::Read { path: path.into(), source })?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| IngestError::Read { path: path.into(), source })?;
        entries.sort();
        for entry in entries {
            collect(&entry, files)?;
        }
    } else {
        return Err(IngestError::NotAFile { path: path.into() });
    }
    Ok(())
}

/// Pages sent to the core per batch.
const BATCH: usize = 64;

/// What dedup did over a run of writes (shared by `ingest` and `replay`).
#[derive(Clone, Debug, Serialize)]
pub struct DedupSummary {
    pub backend: String,
    /// Pages written.
    pub pages: u64,
    pub unique_pages: u64,
    pub duplicate_pages: u64,
    /// Duplicate pages over all pages.
    pub dedup_ratio: f64,
    /// Flash page writes the duplicates did not make.
    pub flash_writes_saved: u64,
    /// Flash page writes (new copies stored on flash, GC relocations, NVM
    /// write-backs) over pages written.
    pub write_amplification: f64,
    pub bloom_negatives: u32,
    pub bloom_false_positives: u32,
    pub bloom_rebuilds: u32,
    /// Writes stored unshared because the index bucket was full.
    pub index_full_writes: u64,
    /// Writes stored as a new copy because the old one was at its
    /// reference-count limit.
    pub saturated_writes: u64,
    /// Core clock cycles (cosimulation only).
    pub cycles: Option<u64>,
    pub cycles_per_page: Option<f64>,
}

/// Where a device's counters stood when a run began: its summary counts
/// from there, not from the core's start (a store's reopening rebuilt the
/// core with writes of its own).
pub struct RunStart {
    cycles: u64,
    driver: DriverStats,
    index: IndexStats,
}

impl RunStart {
    pub fn of<T: Transport>(device: &mut Device<T>) -> Result<Self, DriverError> {
        let index = device.transport().index_stats()?;
        Ok(RunStart { cycles: device.transport().cycles(), driver: device.driver_stats(), index })
    }
}

impl DedupSummary {
    /// Flushes `device` and sums up a run that wrote `unique` + `duplicate`
    /// pages since `start`.
    pub fn of<T: Transport>(
        device: &mut Device<T>,
        unique: u64,
        duplicate: u64,
        start: &RunStart,
    ) -> Result<Self, DriverError> {
        device.flush()?;
        let index = device.transport().index_stats()?;
        let driver = device.driver_stats();
        let cycles = device.transport().cycles() - start.cycles;
        let pages = unique + duplicate;
        // Pages the run put on the flash: new copies stored there, GC's
        // relocations and (with the NVM cache) write-backs. A page still in
        // the cache, or overwritten there, is not a flash write.
        let flash_writes = driver.flash_programs - start.driver.flash_programs;
        Ok(DedupSummary {
            backend: device.transport().name(),
            pages,
            unique_pages: unique,
            duplicate_pages: duplicate,
            dedup_ratio: duplicate as f64 / pages.max(1) as f64,
            flash_writes_saved: duplicate,
            write_amplification: flash_writes as f64 / pages.max(1) as f64,
            bloom_negatives: index.bloom_negatives.wrapping_sub(start.index.bloom_negatives),
            bloom_false_positives: index.false_positives.wrapping_sub(start.index.false_positives),
            bloom_rebuilds: index.rebuilds.wrapping_sub(start.index.rebuilds),
            index_full_writes: driver.index_full_writes - start.driver.index_full_writes,
            saturated_writes: driver.saturated_writes - start.driver.saturated_writes,
            cycles: (cycles > 0).then_some(cycles),
            cycles_per_page: (cycles > 0 && pages > 0).then(|| cycles as f64 / pages as f64),
        })
    }

    /// The summary as text, a line each.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![
            format!("backend            {}", self.backend),
            format!("pages              {}", self.pages),
            format!("unique pages       {}", self.unique_pages),
            format!("duplicate pages    {}", self.duplicate_pages),
            format!("dedup ratio        {:.1}%", 100.0 * self.dedup_ratio),
            format!("flash writes saved {}", self.flash_writes_saved),
            format!("write amplification {:.3}", self.write_amplification),
            format!(
                "bloom              {} negatives, {} false positives, {} rebuilds",
                self.bloom_negatives, self.bloom_false_positives, self.bloom_rebuilds
            ),
        ];
        out.push(format!(
            "stored unshared    {} (index bucket full), {} (reference count at its limit)",
            self.index_full_writes, self.saturated_writes
        ));
        if let Some(c) = self.cycles_per_page {
            out.push(format!("cycles per page    {c:.1}"));
        }
        out
    }
}

/// What an ingest did.
#[derive(Clone, Debug, Serialize)]
pub struct IngestReport {
    #[serde(flatten)]
    pub dedup: DedupSummary,
    pub devices: u32,
    pub collisions_caught: u64,
    pub verified_duplicates: u64,
    /// What the cycles mean at the Fmax of the last `ditto synth` report.
    pub fmax_mhz: Option<f64>,
    pub throughput_mib_per_s: Option<f64>,
    /// Each page's simulated service time: one write in flight at a time
    /// (a file has no arrival times), priced from the golden model's media
    /// operations at [`crate::timing::MediaTiming::FEMU`]'s latencies;
    /// `None` when the golden model could not follow the device (see
    /// `response_times_missing`).
    pub response_times: Option<ResponseTimes>,
    pub response_times_missing: Option<String>,
}
/// Writes the pages of `input` to LPAs 0, 1, 2, ... and reports.
pub fn ingest<T: Transport>(
    device: &mut Device<T>,
    input: &Input,
    devices: u32,
    fmax_mhz: Option<f64>,
    progress: bool,
    golden: Result<CoreModel, String>,
) -> Result<IngestReport, IngestError> {
    let total = input.pages();
    let bar = if progress { ProgressBar::new(total) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} pages, {per_sec}, eta {eta}").expect("a valid template"),
    );
    let start = RunStart::of(device)?;
    let (mut unique, mut duplicate) = (0u64, 0u64);
    let mut next_lpa = 0u32;
    let mut clock = ResponseClock::new(golden);
    input.for_each_batch(BATCH, |chunk| {
        let batch: Vec<(u32, &[u8; PAGE])> =
            chunk.iter().enumerate().map(|(i, p)| (next_lpa + i as u32, &**p)).collect();
        for ((lpa, data), w) in batch.iter().zip(device.write_batch(&batch)?) {
            let got = match w {
                Written::Unique { ppa } => {
                    unique += 1;
                    (Status::Unique, ppa)
                }
                Written::Duplicate { ppa } => {
                    duplicate += 1;
                    (Status::Duplicate, ppa)
                }
                Written::Collision { .. } => {
                    unique += 1;
                    clock.stop(format!("page {lpa} collided (same SHA-1, other bytes) and was stored unshared, which the golden model does not follow"));
                    continue;
                }
            };
            let cmd = Command::new(Op::Write, 0, *lpa, ditto_sim::hasher::sha1_of(data));
            clock.follow(|| format!("page {lpa}"), &cmd, got, Arrival::AfterPrevious);
        }
        clock.idle();
        next_lpa += chunk.len() as u32;
        bar.inc(chunk.len() as u64);
        Ok(())
    })?;
    bar.finish_and_clear();
    let (response_times, response_times_missing) = clock.finish();
    let dedup = DedupSummary::of(device, unique, duplicate, &start)?;
    let d = device.driver_stats();
    let throughput_mib_per_s =
        dedup.cycles_per_page.zip(fmax_mhz).map(|(c, f)| f * 1e6 / c * PAGE as f64 / (1024.0 * 1024.0));
    Ok(IngestReport {
        dedup,
        devices,
        collisions_caught: d.collisions_caught,
        verified_duplicates: d.verified,
        fmax_mhz,
        throughput_mib_per_s,
        response_times,
        response_times_missing,
    })
}
