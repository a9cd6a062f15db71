//! `ditto replay`: replays a block trace in the FIU trace format (one request
//! per line: timestamp, pid, process, LBA in 512-byte sectors, size in
//! sectors, `W` or `R`, major, minor, then the MD5 of each 4 KiB block),
//! feeding writes through `WRITE_FP` with the trace's hashes.
//!
//! A 16-byte MD5 becomes a 20-byte fingerprint by repeating its first four
//! bytes at the end (the index takes its bucket from the last bytes), so two
//! fingerprints are equal exactly when the MD5s are. The trace carries no
//! data, so nothing is written to the backing store and duplicates cannot be
//! compared byte for byte.
use crate::driver::{Device, DriverError, Transport};
use crate::ingest::DedupSummary;
use ditto_hw::ftl::{Op, Status};
use ditto_hw::index::Fingerprint;
use serde::Serialize;
use std::path::Path;

/// Sectors per 4 KiB page.
const SECTORS_PER_PAGE: u64 = 8;

/// One page-sized access of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub lpa: u64,
    pub write: bool,
    pub fp: Fingerprint,
}

/// Errors of reading a trace.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}:{line}: {what}")]
    Malformed { path: String, line: usize, what: String },
    #[error(transparent)]
    Driver(#[from] DriverError),
}

fn hex16(s: &str) -> Option<[u8; 16]> {
    if s.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// The fingerprint of a block whose MD5 is `md5`.
pub fn fingerprint_of_md5(md5: [u8; 16]) -> Fingerprint {
    let mut fp = [0u8; 20];
    fp[..16].copy_from_slice(&md5);
    fp[16..].copy_from_slice(&md5[..4]);
    fp
}

/// Parses a whole trace (every line is checked before anything is replayed).
pub fn parse(path: &Path, text: &str) -> Result<Vec<Access>, TraceError> {
    let name = path.display().to_string();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bad = |what: String| TraceError::Malformed { path: name.clone(), line: i + 1, what };
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        if fields.len() < 9 {
            return Err(bad(format!(
                "{} fields, expected at least 9 (ts pid process lba size W|R major minor md5...)",
                fields.len()
            )));
        }
        let lba: u64 = fields[3].parse().map_err(|_| bad(format!("LBA `{}` is not a number", fields[3])))?;
        let size: u64 = fields[4].parse().map_err(|_| bad(format!("size `{}` is not a number", fields[4])))?;
        let write = match fields[5] {
            "W" | "w" => true,
            "R" | "r" => false,
            other => return Err(bad(format!("operation `{other}` is neither W nor R"))),
        };
        if size == 0 || size % SECTORS_PER_PAGE != 0 || lba % SECTORS_PER_PAGE != 0 {
            return Err(bad(format!("LBA {lba} / size {size} sectors are not whole 4 KiB pages")));
        }
        let pages = size / SECTORS_PER_PAGE;
        let hashes = &fields[8..];
        if hashes.len() as u64 != pages {
            return Err(bad(format!("{} MD5s for {pages} pages", hashes.len())));
        }
        for (k, h) in hashes.iter().enumerate() {
            let md5 = hex16(h).ok_or_else(|| bad(format!("`{h}` is not an MD5 (32 hex digits)")))?;
            out.push(Access { lpa: lba / SECTORS_PER_PAGE + k as u64, write, fp: fingerprint_of_md5(md5) });
        }
    }
    Ok(out)
}

/// Reads and parses a trace file.
pub fn read(path: &Path) -> Result<Vec<Access>, TraceError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| TraceError::Read { path: path.display().to_string(), source })?;
    parse(path, &text)
}

/// What a replay did.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport {
    #[serde(flatten)]
    pub dedup: DedupSummary,
    pub accesses: u64,
    pub reads: u64,
    /// Reads of pages the trace had written.
    pub reads_mapped: u64,
}

/// Replays `accesses` (LPAs already below the device's size).
pub fn replay<T: Transport>(device: &mut Device<T>, accesses: &[Access]) -> Result<ReplayReport, TraceError> {
    let start = device.transport().cycles();
    let (mut unique, mut duplicate, mut reads, mut mapped) = (0u64, 0u64, 0u64, 0u64);
    for chunk in accesses.chunks(256) {
        let ops: Vec<(Op, u32, Fingerprint)> =
            chunk.iter().map(|a| (if a.write { Op::WriteFp } else { Op::Read }, a.lpa as u32, a.fp)).collect();
        for (a, rsp) in chunk.iter().zip(device.batch(&ops)?) {
            match (a.write, rsp.status) {
                (true, Status::Unique) => unique += 1,
                (true, Status::Duplicate) => duplicate += 1,
                (false, Status::Mapped) => {
                    reads += 1;
                    mapped += 1
                }
                (false, Status::Unmapped) => reads += 1,
                (write, status) => {
                    return Err(TraceError::Driver(DriverError::Unexpected {
                        op: if write { Op::WriteFp } else { Op::Read },
                        lpa: a.lpa as u32,
                        status,
                    }))
                }
            }
        }
    }
    Ok(ReplayReport {
        dedup: DedupSummary::of(device, unique, duplicate, start)?,
        accesses: accesses.len() as u64,
        reads,
        reads_mapped: mapped,
    })
}
