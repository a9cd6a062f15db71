//! Opening a device as the commands' arguments say (its store, its size
//! checked against the limits first) and reporting what it did.
use crate::cli::DeviceArgs;
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

/// A device as the commands open it: over any transport.
pub(crate) type OpenDevice = ditto_host::driver::Device<Box<dyn ditto_host::transport::Transport>>;

/// How many pages a command needs its device to have.
#[derive(Clone, Copy)]
pub(crate) enum Pages {
    /// Exactly this many (`serve --size`).
    Exactly(u64),
    /// At least this many (what `ingest` and `replay` write), or the
    /// store's size if it is larger.
    AtLeast(u64),
    /// The store's size (`serve` without `--size`), else this many.
    StoreOr(u64),
}

/// A device as `args` say: its store in `--store` (opened and recovered if
/// it exists, else created), or a fresh temporary store removed when the
/// command ends, however it ends; with the store's folder and the limits
/// the size was checked against.
pub(crate) fn open_device(
    args: &DeviceArgs,
    pages: Pages,
    verify: bool,
) -> Result<(OpenDevice, PathBuf, ditto_host::limits::Limits, Option<ditto_hw::ftl::model::CoreConfig>)> {
    use ditto_host::driver::{setup_for_backend, BackingStore, Device};
    use ditto_host::store::format::StoreSpec;
    use ditto_hw::ftl::nvm::NvmConfig;
    let existing = match &args.store {
        Some(dir) => BackingStore::spec_of(dir)?,
        None => None,
    };
    let cfg = match (&existing, &args.config) {
        (Some(spec), None) => ditto_hw::by_name(&spec.config)?,
        _ => args.config()?,
    };
    let devices = args.devices.or(existing.as_ref().map(|s| s.devices)).unwrap_or(1);
    let nvm = match (args.nvm_slots, &existing) {
        (None, _) if args.nvm_cooperative => bail!("--nvm-cooperative needs --nvm-slots"),
        (Some(0), _) if args.nvm_cooperative => bail!("--nvm-cooperative needs a cache: --nvm-slots 0 has none"),
        (Some(slots), _) => NvmConfig { slots, cooperative: args.nvm_cooperative },
        (None, Some(spec)) => spec.nvm(),
        (None, None) => NvmConfig::OFF,
    };
    let pages = match (pages, &existing) {
        (Pages::Exactly(n), _) => n,
        (Pages::AtLeast(n), Some(spec)) if n <= spec.lpas as u64 => spec.lpas as u64,
        (Pages::AtLeast(n), Some(spec)) => bail!(
            "store {} holds {} pages of 4 KiB; this needs {n}",
            args.store.as_ref().expect("an existing store").display(),
            spec.lpas
        ),
        (Pages::AtLeast(n), None) => n,
        (Pages::StoreOr(_), Some(spec)) => spec.lpas as u64,
        (Pages::StoreOr(n), None) => n,
    };
    // Every limit is checked before any work starts.
    let limits = ditto_host::limits::Limits::of(&cfg, &args.backend)?;
    limits.check(pages, devices)?;
    let lpas = u32::try_from(pages).with_context(|| format!("{pages} pages are more than a device can address"))?;
    if nvm.slots > lpas {
        bail!("--nvm-slots {}: a cache larger than the device's {lpas} pages would never fill", nvm.slots);
    }
    let setup = setup_for_backend(&args.backend, &cfg, lpas, devices, nvm)?;
    let spec = StoreSpec::of(cfg.name, &setup);
    let verify_flag = verify;
    let started = std::time::Instant::now();
    let (store, recovered) = match &args.store {
        Some(dir) => BackingStore::open_or_create(dir, &spec)?,
        None => (BackingStore::temporary(&spec)?, None),
    };
    let dir = store.dir().to_path_buf();
    let transport = args.backend.open(&cfg, setup, args.check)?;
    // A device that starts empty is one the golden model can follow.
    let fresh_core = recovered.is_none().then(|| setup.core_config(&cfg));
    let device = match recovered {
        None => Device::new(transport, store, verify_flag)?,
        Some(recovered) => {
            let read_seconds = started.elapsed().as_secs_f64();
            let (device, mut report) = Device::open(transport, store, recovered, verify_flag)?;
            report.read_seconds = read_seconds;
            eprintln!("ditto: opened store {}:", dir.display());
            for line in report.lines() {
                eprintln!("  {line}");
            }
            device
        }
    };
    Ok((device, dir, limits, fresh_core))
}

/// A progress bar of `len` steps on stderr, its message the step under
/// way, ticking so a long step still shows life (hidden when stderr is not
/// a terminal).
pub(crate) fn steps(len: u64, first: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] step {pos}/{len}: {msg}")
            .expect("a valid template"),
    );
    bar.set_message(first.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// Says once, on stderr, that writes found their index bucket full (stored
/// unshared), and what would hold them.
pub(crate) fn warn_index_full(index_full: u64, limits: &ditto_host::limits::Limits, pages: u64) {
    if index_full > 0 {
        let hint = limits.index_hint(pages).unwrap_or_else(|| {
            "some buckets filled before the index did (see `ditto bench index`'s all-new-90 run)".into()
        });
        eprintln!(
            "ditto: warning: {index_full} writes were stored unshared because their index bucket was full: {hint}"
        );
    }
}

/// The dedup statistics of a device, as JSON.
pub(crate) fn stats_value<T: ditto_host::transport::Transport>(
    dev: &mut ditto_host::driver::Device<T>,
) -> Result<serde_json::Value, ditto_host::driver::DriverError> {
    use ditto_hw::ftl::Stat;
    let c = dev.stats()?;
    let d = dev.driver_stats();
    Ok(serde_json::json!({
        "writes": c[Stat::Writes as usize],
        "unique_writes": c[Stat::UniqueWrites as usize],
        "duplicate_writes": c[Stat::DuplicateWrites as usize],
        "live_pages": c[Stat::LivePages as usize],
        "mapped_lpas": c[Stat::MappedLpas as usize],
        "relocations": c[Stat::Relocations as usize],
        "collisions_caught": d.collisions_caught,
        // Every page the host moved for the core: GC's relocations, and with
        // the NVM cache its write-backs and GC's drops into slots.
        "pages_moved": d.relocations,
    }))
}

/// A store command's report: one JSON object, or its lines under the
/// store's folder.
pub(crate) fn print_store_report(
    json: bool,
    store: &std::path::Path,
    report: &impl serde::Serialize,
    lines: Vec<String>,
) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        println!("store              {}", store.display());
        for line in lines {
            println!("{line}");
        }
    }
    Ok(())
}

pub(crate) fn configs(name: &str) -> Result<Vec<ditto_hw::Config>> {
    if name == "all" {
        return Ok(ditto_hw::CONFIGS.to_vec());
    }
    Ok(vec![ditto_hw::by_name(name)?])
}
