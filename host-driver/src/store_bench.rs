//! `ditto bench store`: what persistence costs. A temporary store of a given
//! size is filled with a skewed mix (one page in four one of four hot
//! contents, the rest distinct), a random half of it overwritten again and
//! again until garbage collection has run, flushed, and closed without a checkpoint, as a crash
//! leaves it; then it is opened twice: the first open recovers the journal,
//! rebuilds the core and copies the data into a new generation, the second
//! (after that clean close) finds the layout in place. It reports the
//! journal bytes per 4 KiB page written and the time of each open, per GiB
//! of store (wall-clock figures of this machine).
use crate::driver::{setup_for_backend, BackingStore, Device, DriverError, PAGE};
use crate::store::format::StoreSpec;
use crate::HostError;
use rand::{Rng, SeedableRng};
use serde::Serialize;

/// One open of the store.
#[derive(Clone, Debug, Serialize)]
pub struct OpenTiming {
    /// Operations in the journal it recovered.
    pub journal_operations: u64,
    pub compacted: bool,
    pub pages_copied: u64,
    pub seconds: f64,
    pub read_seconds: f64,
    pub rebuild_seconds: f64,
    pub copy_seconds: f64,
    pub seconds_per_gib: f64,
}

/// What `ditto bench store` measured.
#[derive(Clone, Debug, Serialize)]
pub struct StoreBench {
    pub backend: String,
    pub config: String,
    pub store_bytes: u64,
    pub pages_written: u64,
    pub live_pages: u64,
    pub relocations: u64,
    pub journal_bytes: u64,
    pub journal_bytes_per_page: f64,
    /// The first open: journal recovered, core rebuilt, data copied.
    pub after_crash: OpenTiming,
    /// The second open: the layout in place, nothing copied.
    pub after_clean_close: OpenTiming,
}

fn page(content: u64) -> Box<[u8; PAGE]> {
    let mut p = Box::new([0u8; PAGE]);
    let mut state = content.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for chunk in p.chunks_mut(8) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        chunk.copy_from_slice(&state.to_le_bytes());
    }
    p
}

/// Fills, overwrites and reopens a store of `bytes` bytes of `config` on
/// `backend`, with a seeded skewed mix.
pub fn run(
    config: &ditto_hw::Config,
    backend: &crate::transport::Backend,
    bytes: u64,
    seed: u64,
) -> Result<StoreBench, HostError> {
    let pages = bytes / PAGE as u64;
    let limits = crate::limits::Limits::of(config, backend)?;
    limits.check(pages, 1)?;
    let lpas = pages as u32;
    let setup = setup_for_backend(backend, config, lpas, 1, ditto_hw::ftl::nvm::NvmConfig::OFF)?;
    let spec = StoreSpec::of(config.name, &setup);
    let folder = tempfile::Builder::new()
        .prefix("ditto-bench-store-")
        .tempdir()
        .map_err(|source| HostError::Write { path: std::env::temp_dir(), source })?;
    let dir = folder.path().join("store");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut dev = Device::new(backend.open(config, setup, true)?, BackingStore::create(&dir, &spec)?, true)?;
    // The whole run stays in the journal (no checkpoint at the flush), so
    // the first open measures recovering it.
    dev.set_checkpoint_min(u64::MAX);
    let mut next_content = 100u64;
    let mut content = |rng: &mut rand::rngs::StdRng| {
        if rng.gen_bool(0.25) {
            rng.gen_range(0..4)
        } else {
            next_content += 1;
            next_content
        }
    };
    let mut written = 0u64;
    let mut write = |dev: &mut Device<_>, lpas: Vec<u32>, rng: &mut rand::rngs::StdRng| {
        for chunk in lpas.chunks(64) {
            let data: Vec<(u32, Box<[u8; PAGE]>)> = chunk.iter().map(|&l| (l, page(content(rng)))).collect();
            let refs: Vec<(u32, &[u8; PAGE])> = data.iter().map(|(l, p)| (*l, &**p)).collect();
            dev.write_batch(&refs)?;
            written += chunk.len() as u64;
        }
        Ok::<(), DriverError>(())
    };
    write(&mut dev, (0..lpas).collect(), &mut rng)?;
    // Passes over a random half until garbage collection has moved pages
    // (so the journal records moves too), then one more.
    for pass in 0..12 {
        let half: Vec<u32> = (0..lpas).filter(|_| rng.gen_bool(0.5)).collect();
        let before = dev.driver_stats().relocations;
        write(&mut dev, half, &mut rng)?;
        if before > 0 || pass == 11 {
            break;
        }
    }
    dev.flush()?;
    let journal_bytes = dev.store().journal_bytes();
    let live_pages = dev.mirror().live_pages();
    let relocations = dev.driver_stats().relocations;
    let backend_name = dev.transport().name();
    drop(dev);

    let gib = bytes as f64 / (1u64 << 30) as f64;
    let open = || -> Result<OpenTiming, HostError> {
        let started = std::time::Instant::now();
        let (store, recovered) = BackingStore::open(&dir)?;
        let read_seconds = started.elapsed().as_secs_f64();
        let journal_operations = recovered.report.committed_operations + recovered.report.recovered_operations;
        let (mut dev, report) = Device::open(backend.open(config, setup, true)?, store, recovered, true)?;
        let seconds = started.elapsed().as_secs_f64();
        dev.flush()?;
        Ok(OpenTiming {
            journal_operations,
            compacted: report.compacted,
            pages_copied: report.pages_copied,
            seconds,
            read_seconds,
            rebuild_seconds: report.rebuild_seconds,
            copy_seconds: report.copy_seconds,
            seconds_per_gib: seconds / gib,
        })
    };
    let after_crash = open()?;
    let after_clean_close = open()?;
    Ok(StoreBench {
        backend: backend_name,
        config: config.name.to_string(),
        store_bytes: bytes,
        pages_written: written,
        live_pages,
        relocations,
        journal_bytes,
        journal_bytes_per_page: journal_bytes as f64 / written as f64,
        after_crash,
        after_clean_close,
    })
}

impl StoreBench {
    pub fn lines(&self) -> Vec<String> {
        let t = |o: &OpenTiming| {
            format!(
                "{:.3} s ({:.2} s per GiB): metadata {:.3} s, core rebuilt {:.3} s, {} pages copied {:.3} s",
                o.seconds, o.seconds_per_gib, o.read_seconds, o.rebuild_seconds, o.pages_copied, o.copy_seconds
            )
        };
        vec![
            format!("backend            {} (`{}`)", self.backend, self.config),
            format!("store              {} MiB", self.store_bytes >> 20),
            format!(
                "written            {} pages ({} live, {} relocations)",
                self.pages_written, self.live_pages, self.relocations
            ),
            format!(
                "journal            {} bytes, {:.1} bytes per 4 KiB written",
                self.journal_bytes, self.journal_bytes_per_page
            ),
            format!("open after a crash {}", t(&self.after_crash)),
            format!("open after a close {}", t(&self.after_clean_close)),
        ]
    }
}
