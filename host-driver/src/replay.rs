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
use crate::ingest::{DedupSummary, RunStart};
use crate::timing::{response_line, Arrival, ResponseClock, ResponseTimes};
use ditto_hw::ftl::model::{Command, CoreModel};
use ditto_hw::ftl::{Op, Status};
use ditto_hw::index::Fingerprint;
use serde::Serialize;
use std::path::Path;

/// Sectors per 4 KiB page.
const SECTORS_PER_PAGE: u64 = 8;

/// One page-sized access of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Its request's timestamp (the trace's unit: nanoseconds in FIU's).
    pub timestamp: u64,
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

/// 32 hex digits as 16 bytes; anything else (a sign, a non-ASCII
/// character, the wrong length) is `None`. Works on bytes, so no input can
/// split a character.
fn hex16(s: &str) -> Option<[u8; 16]> {
    let digits = s.as_bytes();
    if digits.len() != 32 {
        return None;
    }
    let nibble = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = [0u8; 16];
    for (i, b) in out.iter_mut().enumerate() {
        *b = nibble(digits[2 * i])? << 4 | nibble(digits[2 * i + 1])?;
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

/// One request of a trace, as its line says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Its line in the trace (from 1).
    pub line: usize,
    /// When it was issued (field 1; nanoseconds in the FIU traces).
    pub timestamp: u64,
    /// First sector (512 bytes).
    pub lba: u64,
    /// Length in sectors.
    pub sectors: u64,
    pub write: bool,
    /// The MD5 of each 4 KiB of the request's data, from its first sector
    /// (the last one of an unaligned length covers less).
    pub md5s: Vec<[u8; 16]>,
}

/// Parses a whole trace (every line is checked before anything is replayed).
pub fn parse(path: &Path, text: &str) -> Result<Vec<Request>, TraceError> {
    let name = path.display().to_string();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bad = |what: String| TraceError::Malformed { path: name.clone(), line: i + 1, what };
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        if fields.len() < 8 {
            return Err(bad(format!(
                "{} fields, expected at least 8 (ts pid process lba size W|R major minor md5...)",
                fields.len()
            )));
        }
        let number =
            |k: usize, name: &str| {
                let f = fields[k];
                // `u64::from_str` takes a leading `+`; a trace field never has one.
                f.bytes().all(|c| c.is_ascii_digit()).then(|| f.parse::<u64>().ok()).flatten().ok_or_else(|| {
                    bad(format!("field {}: {name} `{}` is not a decimal number", k + 1, f.escape_debug()))
                })
            };
        let timestamp = number(0, "timestamp")?;
        let lba = number(3, "LBA")?;
        let sectors = number(4, "size")?;
        let write = match fields[5] {
            "W" | "w" => true,
            "R" | "r" => false,
            other => return Err(bad(format!("field 6: operation `{}` is neither W nor R", other.escape_debug()))),
        };
        if lba.checked_add(sectors).is_none() {
            return Err(bad(format!("LBA {lba} + size {sectors} sectors passes 2^64")));
        }
        let chunks = sectors.div_ceil(SECTORS_PER_PAGE);
        let hashes = &fields[8..];
        if hashes.len() as u64 != chunks {
            return Err(bad(format!("{} MD5s for {chunks} pages", hashes.len())));
        }
        let mut md5s = Vec::with_capacity(hashes.len());
        for (k, h) in hashes.iter().enumerate() {
            md5s.push(hex16(h).ok_or_else(|| {
                bad(format!("field {}: `{}` is not an MD5 (32 hex digits)", 9 + k, h.escape_debug()))
            })?);
        }
        out.push(Request { line: i + 1, timestamp, lba, sectors, write, md5s });
    }
    Ok(out)
}

/// What turning a trace's requests into page accesses did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PlanStats {
    pub requests: u64,
    /// Requests not aligned to 4 KiB pages (start or length), replayed as
    /// page accesses with a read-modify-write of each partly written page.
    pub split: u64,
    /// Distinct trace pages given another page number by `--dense`.
    pub remapped: u64,
    /// Requests of zero length, skipped (they touch no page).
    pub skipped_zero_length: u64,
    /// Pages the device needs (the highest page accessed, plus one).
    pub device_pages: u64,
}

/// A sector's content: the sector at `offset` of a 4 KiB chunk of known
/// content `chunk` (an MD5 from the trace, or a page's fingerprint).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Sector {
    chunk: [u8; 20],
    offset: u64,
}

/// The fingerprint of a page whose eight sectors are `sectors`: a whole
/// chunk in order is that chunk's fingerprint; any other mix is a SHA-1 of
/// its parts, so the same mix always gives the same fingerprint.
fn page_of_sectors(sectors: &[Sector; 8]) -> Fingerprint {
    if sectors.iter().enumerate().all(|(i, s)| s.chunk == sectors[0].chunk && s.offset == i as u64) {
        return sectors[0].chunk;
    }
    use sha1::{Digest, Sha1};
    let mut h = Sha1::new();
    h.update(b"ditto page of sectors");
    for s in sectors {
        h.update(s.chunk);
        h.update(s.offset.to_le_bytes());
    }
    h.finalize().into()
}

/// Turns requests into page accesses: an unaligned write becomes a
/// read-modify-write of each page it touches partly (the page's new
/// fingerprint names its mix of old and new sectors, see
/// [`page_of_sectors`]); with `dense`, trace pages are numbered from 0 in
/// the order they are first touched, so a trace that addresses hundreds of
/// GiB replays on a device as large as the pages it touches.
pub fn plan(requests: &[Request], dense: bool) -> (Vec<Access>, PlanStats) {
    use std::collections::HashMap;
    let zero_page = fingerprint_of_md5(ZERO_PAGE_MD5);
    let mut stats = PlanStats { requests: requests.len() as u64, ..Default::default() };
    let mut numbers: HashMap<u64, u64> = HashMap::new();
    // What each written page's sectors hold (an unwritten page: zeros), so
    // a sector keeps its identity through any number of partial writes.
    let mut content: HashMap<u64, [Sector; 8]> = HashMap::new();
    let mut out = Vec::new();
    for r in requests {
        if r.sectors == 0 {
            stats.skipped_zero_length += 1;
            continue;
        }
        let aligned = r.lba % SECTORS_PER_PAGE == 0 && r.sectors % SECTORS_PER_PAGE == 0;
        stats.split += !aligned as u64;
        let first = r.lba / SECTORS_PER_PAGE;
        let last = (r.lba + r.sectors - 1) / SECTORS_PER_PAGE;
        for page in first..=last {
            let next = numbers.len() as u64;
            let lpa = if dense {
                *numbers.entry(page).or_insert_with(|| {
                    stats.remapped += (page != next) as u64;
                    next
                })
            } else {
                page
            };
            stats.device_pages = stats.device_pages.max(lpa + 1);
            let fp = if r.write {
                let old = content
                    .get(&page)
                    .copied()
                    .unwrap_or_else(|| core::array::from_fn(|i| Sector { chunk: zero_page, offset: i as u64 }));
                let sectors: [Sector; 8] = core::array::from_fn(|i| {
                    let sector = page * SECTORS_PER_PAGE + i as u64;
                    if (r.lba..r.lba + r.sectors).contains(&sector) {
                        let at = sector - r.lba;
                        let md5 = r.md5s[(at / SECTORS_PER_PAGE) as usize];
                        Sector { chunk: fingerprint_of_md5(md5), offset: at % SECTORS_PER_PAGE }
                    } else {
                        old[i]
                    }
                });
                content.insert(page, sectors);
                page_of_sectors(&sectors)
            } else {
                [0; 20]
            };
            out.push(Access { timestamp: r.timestamp, lpa, write: r.write, fp });
        }
    }
    (out, stats)
}

/// The MD5 of a 4 KiB page of zeros (what an unwritten page holds).
const ZERO_PAGE_MD5: [u8; 16] =
    [0x62, 0x0f, 0x0b, 0x67, 0xa9, 0x1f, 0x7f, 0x74, 0x15, 0x1b, 0xc5, 0xbe, 0x74, 0x5b, 0x71, 0x10];

/// Reads and parses a trace file.
pub fn read(path: &Path) -> Result<Vec<Request>, TraceError> {
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
    /// How the requests became page accesses.
    pub trace: PlanStats,
    /// Each access's simulated response time, from the trace's timestamps
    /// and the golden model's media operations at [`MediaTiming::FEMU`]'s
    /// latencies; `None` when the golden model could not follow the device
    /// (see `response_times_missing`).
    pub response_times: Option<ResponseTimes>,
    pub response_times_missing: Option<String>,
}

impl ReplayReport {
    /// The report as text, a line each.
    pub fn lines(&self) -> Vec<String> {
        let t = &self.trace;
        let mut out = vec![
            format!("requests           {}", t.requests),
            format!(
                "accesses           {} ({} reads, {} of them mapped)",
                self.accesses, self.reads, self.reads_mapped
            ),
        ];
        if t.split > 0 {
            out.push(format!("split              {} (not 4 KiB-aligned: read-modify-write of each page)", t.split));
        }
        if t.remapped > 0 {
            out.push(format!(
                "remapped           {} trace pages (--dense: numbered in order of first use)",
                t.remapped
            ));
        }
        if t.skipped_zero_length > 0 {
            out.push(format!("skipped            {} (zero length)", t.skipped_zero_length));
        }
        out.extend(self.dedup.lines());
        out.push(response_line(&self.response_times, &self.response_times_missing, "simulated"));
        out
    }
}

/// Replays `accesses` (LPAs already below the device's size), as [`plan`]
/// made them with `trace`'s statistics. `golden` is a fresh golden model of
/// the device's core when the device starts empty, for response times
/// (`Err` says why there is none).
pub fn replay<T: Transport>(
    device: &mut Device<T>,
    accesses: &[Access],
    trace: PlanStats,
    golden: Result<CoreModel, String>,
) -> Result<ReplayReport, TraceError> {
    let start = RunStart::of(device)?;
    let mut clock = ResponseClock::new(golden);
    let (mut unique, mut duplicate, mut reads, mut mapped) = (0u64, 0u64, 0u64, 0u64);
    for (c, chunk) in accesses.chunks(256).enumerate() {
        let ops: Vec<(Op, u32, Fingerprint)> =
            chunk.iter().map(|a| (if a.write { Op::WriteFp } else { Op::Read }, a.lpa as u32, a.fp)).collect();
        for (k, (a, rsp)) in chunk.iter().zip(device.batch(&ops)?).enumerate() {
            clock.follow(
                || format!("access {} (LPA {})", c * 256 + k, a.lpa),
                &Command::new(ops[k].0, 0, a.lpa as u32, a.fp),
                (rsp.status, rsp.value),
                Arrival::At(a.timestamp),
            );
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
        // The core's cleaner runs in the gap after each batch.
        clock.idle();
    }
    let (response_times, response_times_missing) = clock.finish();
    Ok(ReplayReport {
        dedup: DedupSummary::of(device, unique, duplicate, &start)?,
        accesses: accesses.len() as u64,
        reads,
        reads_mapped: mapped,
        trace,
        response_times,
        response_times_missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use rand::Rng;

    fn parse_text(text: &str) -> Result<Vec<Request>, TraceError> {
        parse(Path::new("t.trace"), text)
    }
    fn md5(n: u8) -> String {
        format!("{:032x}", 0x0123_4567_89ab_cdef_u128.wrapping_mul(n as u128 + 1))
    }
    fn error_of(text: &str) -> String {
        parse_text(text).expect_err(text).to_string()
    }

    #[test]
    fn a_signed_or_non_ascii_md5_is_a_malformed_field_not_a_panic() {
        // `u8::from_str_radix` takes "+f": sixteen of them were once an MD5.
        let plus = "+f".repeat(16);
        assert!(error_of(&format!("1 2 p 0 8 W 8 0 {plus}\n")).contains("t.trace:1: field 9"));
        // A two-byte character where a digit pair would be split.
        let wide = format!("{}é{}", "a".repeat(15), "b".repeat(15));
        assert_eq!(wide.len(), 32);
        assert!(error_of(&format!("1 2 p 0 8 W 8 0 {wide}\n")).contains("field 9"));
        assert!(error_of("1 2 p +8 8 W 8 0 x\n").contains("field 4: LBA"));
        assert!(error_of("1 2 p 8 ٨ W 8 0 x\n").contains("field 5: size"));
        assert!(error_of("1 2 p 8 8 Q 8 0 x\n").contains("field 6"));
        assert!(error_of(&format!("1 2 p 18446744073709551615 8 W 8 0 {}\n", md5(0))).contains("passes 2^64"));
    }

    proptest::proptest! {
        /// Any text at all: requests or a typed error, never a panic.
        #[test]
        fn any_text_parses_or_is_a_typed_error(text in "\\PC{0,300}", dense in proptest::bool::ANY) {
            if let Ok(requests) = parse_text(&text) {
                let (accesses, stats) = plan(&requests, dense);
                proptest::prop_assert!(accesses.iter().all(|a| a.lpa < stats.device_pages));
            }
        }
    }

    #[test]
    fn random_lines_give_requests_or_typed_errors_never_a_panic() {
        let mut r = ditto_sim::testkit::rng(ditto_sim::testkit::seed("trace_random_lines"));
        let alphabet: Vec<char> = "0123456789abcdefABCDEF+-WRwr é٨\t".chars().collect();
        for _ in 0..20_000 {
            let mut line = format!("{} 1 p {} {} W 8 0 ", r.gen::<u16>(), r.gen::<u16>(), 8 * r.gen_range(0..3));
            for _ in 0..r.gen_range(0..80) {
                line.push(alphabet[r.gen_range(0..alphabet.len())]);
            }
            if let Ok(requests) = parse_text(&line) {
                let (accesses, _) = plan(&requests, r.gen());
                assert!(accesses.len() <= 3);
            }
        }
    }

    #[test]
    fn an_unaligned_write_is_a_read_modify_write_of_each_page_it_touches() {
        let text =
            format!("1 1 p 4 8 W 8 0 {}\n2 1 p 4 8 W 8 0 {}\n3 1 p 0 16 R 8 0 {} {}\n", md5(1), md5(1), md5(0), md5(0));
        let requests = parse_text(&text).unwrap();
        let (a, stats) = plan(&requests, false);
        assert_eq!((stats.split, stats.device_pages), (2, 2), "the read is aligned");
        assert_eq!(a.iter().map(|a| a.lpa).collect::<Vec<_>>(), [0, 1, 0, 1, 0, 1]);
        // Page 0 holds zeros then the first half of the chunk; the second
        // write puts the same sectors in place, so the contents repeat.
        assert_ne!(a[0].fp, a[1].fp);
        assert_eq!((a[2].fp, a[3].fp), (a[0].fp, a[1].fp));
        assert!(!a[4].write && !a[5].write);
        // An aligned write of a chunk is that chunk's fingerprint, as before.
        let (b, _) = plan(&parse_text(&format!("1 1 p 8 8 W 8 0 {}\n", md5(1))).unwrap(), false);
        assert_eq!(b[0].fp, fingerprint_of_md5(hex16(&md5(1)).unwrap()));
    }

    #[test]
    fn dense_numbering_packs_a_sparse_trace_onto_a_small_device() {
        let far = 300u64 << 30 >> 9; // 300 GiB, in sectors
        let text = format!(
            "1 1 p {far} 8 W 8 0 {}\n2 1 p 0 8 W 8 0 {}\n3 1 p {far} 8 R 8 0 {}\n4 1 p 64 0 R 8 0\n",
            md5(1),
            md5(2),
            md5(1)
        );
        let (a, stats) = plan(&parse_text(&text).unwrap(), true);
        assert_eq!(a.iter().map(|a| a.lpa).collect::<Vec<_>>(), [0, 1, 0]);
        assert_eq!(stats, PlanStats { requests: 4, split: 0, remapped: 2, skipped_zero_length: 1, device_pages: 2 });
        let (_, sparse) = plan(&parse_text(&text).unwrap(), false);
        assert_eq!(sparse.device_pages, far / 8 + 1);
    }
}
