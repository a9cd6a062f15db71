//! `ditto hash`: pages of a file through a configuration's cosimulated SHA-1
//! hasher, every digest checked against the `sha1` crate.
use crate::HostError;
use ditto_hw::sha1::PAGE_BYTES;
use ditto_hw::Config;
use ditto_sim::hasher::{hex, HasherSim, Page, Recording, Stalls};
use serde::Serialize;
use std::path::Path;

/// One page's result.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PageDigest {
    pub index: usize,
    pub sha1: String,
    /// The page's share of the stream: cycles from the previous page's digest
    /// to this one's (the first page: from its first word).
    pub cycles: u64,
}

/// Totals of a hashing run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HashTotals {
    pub config: String,
    pub lanes: usize,
    pub pages: usize,
    /// Cycles from the first word in to the last digest out.
    pub cycles: u64,
    pub cycles_per_page: f64,
    /// Per 64-byte block hashed: 65 per page, the last one the padding block.
    pub cycles_per_block: f64,
    /// First page: first word in to digest out.
    pub latency_cycles: u64,
}

/// A hashing run's report.
#[derive(Clone, Debug, Serialize)]
pub struct HashReport {
    pub pages: Vec<PageDigest>,
    pub totals: HashTotals,
}

/// Splits `bytes` into 4 KiB pages, zero-filling the last partial page.
pub fn pages_of(bytes: &[u8]) -> Vec<Page> {
    bytes
        .chunks(PAGE_BYTES)
        .map(|chunk| {
            let mut page = [0u8; PAGE_BYTES];
            page[..chunk.len()].copy_from_slice(chunk);
            page
        })
        .collect()
}

/// Hashes `bytes` on the cosimulated hasher of `config`. A digest that differs
/// from the `sha1` crate's is an error (with a waveform of the failure). With
/// `waveform`, the whole run is recorded into that VCD file.
pub fn hash_bytes(config: &Config, bytes: &[u8], waveform: Option<&Path>) -> Result<HashReport, HostError> {
    let pages = pages_of(bytes);
    let mut sim = if waveform.is_some() { HasherSim::new_traced(config)? } else { HasherSim::new(config)? };
    let label = format!("ditto_hash_{}", config.name);
    let recording = match waveform {
        None => Recording::OnFailure { label: &label },
        Some(path) => Recording::Whole(path),
    };
    let run = sim.hash_verified_recording(&pages, Stalls::NONE, recording)?;
    let per_page = run.page_cycles();
    let cycles = run.timing.last().map_or(0, |t| t.digest - run.timing[0].first_word);
    let n = pages.len().max(1) as f64;
    Ok(HashReport {
        pages: run
            .digests
            .iter()
            .zip(per_page)
            .enumerate()
            .map(|(index, (d, cycles))| PageDigest { index, sha1: hex(d), cycles })
            .collect(),
        totals: HashTotals {
            config: config.name.to_string(),
            lanes: config.lanes,
            pages: pages.len(),
            cycles,
            cycles_per_page: cycles as f64 / n,
            cycles_per_block: cycles as f64 / n / ditto_hw::sha1::BLOCKS_PER_PAGE as f64,
            latency_cycles: run.timing.first().map_or(0, |t| t.digest - t.first_word),
        },
    })
}
