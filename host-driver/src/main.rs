//! `ditto`: Ditto's command line. Every subcommand takes `--config NAME`.
use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use ditto_host::transport::{Backend, BOARD_CONFIG};
use ditto_host::{bench, hash, sample, synth};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "ditto", version, about = "Ditto: an open inline-deduplication core for FPGAs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the Verilog of a configuration: its whole-core board top
    /// (`ditto_<config>.v`, what `ditto synth` builds), its interim board top
    /// (`_interim.v`), hasher (`_hasher.v`), index (`_index.v`) and whole core
    /// without a board (`_core.v`, what the cosimulation runs).
    Verilog {
        /// The configuration (`ditto configs` lists them); only those whose
        /// index is on chip (`cu`) have board tops.
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: String,
        /// The folder the files go to.
        #[arg(long, default_value = "out/verilog")]
        out: PathBuf,
    },
    /// Hash FILE in 4 KiB pages through the cosimulated hardware (the last
    /// partial page zero-filled); every digest is checked against the `sha1`
    /// crate. Without FILE, a built-in sample is hashed.
    Hash {
        file: Option<PathBuf>,
        /// The configuration whose hasher runs (`ditto configs` lists them).
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Record the whole cosimulation into this VCD file.
        #[arg(long)]
        waveform: Option<PathBuf>,
    },
    /// Deduplicate a file, a directory tree (each file in 4 KiB pages) or a
    /// disk image through Ditto, store the pages in a backing store of D
    /// device files, and report. Without PATH, a built-in sample is used.
    Ingest {
        path: Option<PathBuf>,
        #[command(flatten)]
        device: DeviceArgs,
        /// Share duplicates without comparing their bytes (trusted data).
        #[arg(long)]
        no_verify: bool,
        /// The synthesis report whose Fmax turns cycles into throughput.
        #[arg(long, default_value = "out/synth/report.json")]
        synth_report: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Program a board with a bitstream from `ditto synth` (iceprog, over the
    /// board's FTDI USB interface).
    Flash {
        /// The board (today the Alchitry Cu).
        #[arg(long, default_value = "alchitry-cu")]
        board: String,
        /// The bitstream `ditto synth` wrote.
        #[arg(long, default_value = "out/synth/ditto.bin")]
        bitstream: PathBuf,
    },
    /// Replay a block trace in the FIU format (ts pid process lba size W|R
    /// major minor md5...), writes through WRITE_FP with the trace's hashes.
    Replay {
        trace: PathBuf,
        #[command(flatten)]
        device: DeviceArgs,
        /// Number the trace's pages from 0 in the order they are first
        /// touched, so a trace that addresses hundreds of GiB replays on a
        /// device as large as the pages it touches.
        #[arg(long)]
        dense: bool,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Serve Ditto as a Network Block Device (fixed newstyle; READ, WRITE
    /// with FUA, WRITE_ZEROES, TRIM, FLUSH, DISCONNECT) to any number of
    /// clients at once. With `--store DIR` the disk persists: a restart on
    /// the same folder serves it again. SIGTERM or Ctrl-C flushes and
    /// closes the store.
    Serve {
        /// Listen here, e.g. 127.0.0.1:10809.
        #[arg(long)]
        nbd: String,
        /// Device size in bytes (suffixes K, M, G: powers of 1024). Default:
        /// the store's size for an existing `--store`, else 16M.
        #[arg(long)]
        size: Option<String>,
        /// Disconnect a client that sends nothing for this many seconds
        /// (default: never; other clients are served meanwhile either way).
        #[arg(long)]
        idle_timeout: Option<u64>,
        #[command(flatten)]
        device: DeviceArgs,
        /// Share duplicates without comparing their bytes (trusted data).
        #[arg(long)]
        no_verify: bool,
        /// After each client, write the dedup statistics here (JSON).
        #[arg(long)]
        stats_json: Option<PathBuf>,
        /// Stop after this many clients.
        #[arg(long)]
        clients: Option<u32>,
    },
    /// Synthesize, place and route a configuration for a board, and pack its
    /// bitstream; writes DIR/report.json and DIR/ditto.bin. Fails when
    /// placement fails or timing is not met.
    Synth {
        /// The board (today the Alchitry Cu).
        #[arg(long, default_value = "alchitry-cu")]
        board: String,
        /// The configuration to build. Default: the board's own (`cu` for
        /// the Alchitry Cu, the only configuration that fits its
        /// iCE40-HX8K), not the `large` other commands default to.
        #[arg(long)]
        config: Option<String>,
        /// Where the report, the Verilog and the bitstream go.
        #[arg(long, default_value = "out/synth")]
        out: PathBuf,
        /// nextpnr seeds to try in order, until one meets timing.
        #[arg(long, value_delimiter = ',', default_values_t = synth::DEFAULT_SEEDS.to_vec())]
        seeds: Vec<u64>,
        /// `core` (the default) builds the whole-core board top, the Cu's
        /// bitstream; `interim` the interim board top (hasher and index,
        /// no FTL); `hasher` measures the bare hasher alone.
        #[arg(long, value_enum, default_value = "core")]
        block: synth::Block,
    },
    /// Benchmarks, measured in cosimulation of the emitted Verilog.
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
    /// Run the commands behind the README's figures and print them as
    /// Markdown, or write them into the figure block of a file with
    /// `--update README.md`: the hasher benchmark of every configuration,
    /// three Cu syntheses (whole-core board top, interim top, hasher alone),
    /// the index throughput and capacity benchmarks, the whole-core
    /// benchmark and fio against `ditto serve` (about 20 minutes).
    Figures {
        /// Replace the figure block of this Markdown file.
        #[arg(long)]
        update: Option<PathBuf>,
        /// Where the syntheses write their outputs.
        #[arg(long, default_value = "out/figures")]
        out: PathBuf,
        /// Pages per benchmark stream (hasher and whole core).
        #[arg(long, default_value_t = 64)]
        pages: usize,
    },
    /// Open a store after a crash (or a clean stop): recover its metadata
    /// from the checkpoint and the journal, rebuild a core from it on the
    /// backend, copy the data into a new generation if the layout changed,
    /// and report what it did and how long it took.
    Recover {
        /// The store's folder.
        #[arg(long)]
        store: PathBuf,
        /// The backend whose core is rebuilt (see `ditto ingest --help`).
        #[arg(long, default_value = "verilator")]
        backend: Backend,
        /// Check every response against the golden model (see `ditto
        /// ingest --help`).
        #[arg(long)]
        check: bool,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check every stored page of a store against its fingerprint and list
    /// the logical addresses each bad page affects (exit status 1 if any).
    /// Nothing in the store is changed.
    Scrub {
        /// The store's folder.
        #[arg(long)]
        store: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Prove the hardware's formal properties by k-induction on the emitted
    /// Verilog (Yosys `sat -tempinduct`) and check each proof's covers; exit
    /// status 1 if a property fails, a cover is not reached or a planted bug
    /// is missed.
    Prove {
        /// Only this proof (repeatable); the names are listed by `--list`.
        #[arg(long)]
        only: Vec<String>,
        /// Also plant each proof's bugs and check that each gives a
        /// counterexample.
        #[arg(long)]
        planted: bool,
        /// Where counterexamples and cover witnesses (VCD) are written.
        #[arg(long, default_value = "target/formal")]
        waveforms: PathBuf,
        /// List the proofs and stop.
        #[arg(long)]
        list: bool,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Measure the tests' strength: mutate each module's emitted Verilog
    /// (Yosys `mutate`, as MCY does), run every mutant against the module's
    /// cosimulation suite and proofs, and check each survivor for
    /// equivalence. A benchmark: a few minutes per module.
    Mutants {
        /// Only this module (repeatable); the names are listed by `--list`.
        #[arg(long = "module")]
        modules: Vec<String>,
        /// Mutants per module.
        #[arg(long, default_value_t = 40)]
        count: u32,
        /// Picks the mutations and seeds the suites.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Judge only this mutant of the sample, by its number (repeatable):
        /// re-runs a survivor alone.
        #[arg(long = "mutant")]
        mutants: Vec<u32>,
        /// Cycles a survivor is compared with the design for.
        #[arg(long, default_value_t = 8)]
        depth: u32,
        /// Seconds each step of a survivor's comparison may take. The cut
        /// at every register takes 70 to 100 s on the whole `large` core.
        #[arg(long, default_value_t = EQUIVALENCE_SECONDS)]
        equivalence_seconds: u32,
        /// Where the proofs' counterexamples (VCD) are written.
        #[arg(long, default_value = "target/formal")]
        waveforms: PathBuf,
        /// List the modules and stop.
        #[arg(long)]
        list: bool,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Write the table into this Markdown file's mutants block (with
        /// `--module`, only those modules' rows, in a table made with the
        /// same options).
        #[arg(long)]
        update: Option<PathBuf>,
    },
    /// List the configurations.
    Configs,
    /// What a configuration holds: index entries, the reference-count
    /// limit, devices, logical and physical pages (every command checks a
    /// size against these before it starts).
    Info {
        /// The configuration (`ditto configs` lists them).
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: String,
        /// The backend the limits are for (a board has its own geometry).
        #[arg(long, default_value = "verilator")]
        backend: Backend,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// How a command reaches a Ditto device (`ingest`, `serve`, `replay`).
#[derive(clap::Args)]
struct DeviceArgs {
    /// `verilator` (the emitted Verilog of the whole core, cosimulated and
    /// checked against the golden model), `model` (the golden model),
    /// `serial:PATH` (the Alchitry Cu over its USB UART, e.g.
    /// `serial:/dev/ttyUSB1`) or `board-cosim` (the Cu's board top
    /// cosimulated through its UART pins). The cosimulations check every
    /// response against the golden model; a board does with `--check`.
    #[arg(long, default_value = "verilator")]
    backend: Backend,
    /// Check every response, relocation and index counter against the
    /// golden model, which runs beside the device (on by itself for the
    /// cosimulated backends): a divergence stops the command with an error.
    #[arg(long)]
    check: bool,
    /// The core's configuration (`ditto configs` lists them). Default:
    /// `large`, as for every command; the board backends reach the Alchitry
    /// Cu, which is built as `cu`, so for them the default is `cu`.
    #[arg(long)]
    config: Option<String>,
    /// SSDs in the array (1, 2, 4 or 8). Default: 1, or the store's.
    #[arg(long)]
    devices: Option<u32>,
    /// The store: a folder that keeps the disk (data, journal, checkpoint)
    /// across runs. An existing store is opened (and recovered after a
    /// crash); an absent one is created. Default: a fresh temporary store,
    /// removed when the command ends.
    #[arg(long)]
    store: Option<PathBuf>,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Hasher steady-state cycles per page, latency, and cosimulation speed.
    Hasher {
        /// A configuration name, or `all`.
        #[arg(long, default_value = "all")]
        config: String,
        /// Random pages hashed.
        #[arg(long, default_value_t = 64)]
        pages: usize,
        /// Seed of the random pages and stalls.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The whole core (hasher, index, FTL): steady-state cycles per page of
    /// all-unique and all-duplicate page streams against the SHA-1 limit,
    /// write and trim latency, dedup ratio array-wide vs device-local on 8
    /// devices, write amplification under GC, and metadata bits. Every run
    /// is checked against the golden model.
    Core {
        /// A configuration name, or `all`.
        #[arg(long, default_value = "all")]
        config: String,
        /// Full pages per stream.
        #[arg(long, default_value_t = 64)]
        pages: usize,
        /// Read latency of the memories, in cycles.
        #[arg(long, default_value_t = 2)]
        latency: u64,
        /// Seed of the random pages.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// fio's 4 KiB random-write and random-read IOPS (one request at a time)
    /// against `ditto serve`, for the model and the cosimulated core
    /// (wall-clock figures: they depend on the machine).
    Fio {
        /// The configuration served.
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: String,
        /// Device size in bytes.
        #[arg(long, default_value_t = 16 << 20)]
        size: u64,
        /// Seconds per fio job.
        #[arg(long, default_value_t = 10)]
        seconds: u32,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// What persistence costs: journal bytes per 4 KiB written, and the
    /// time to open a store after a crash (journal recovered, core rebuilt,
    /// data copied) and after a clean close, per GiB (wall-clock figures).
    Store {
        /// The configuration.
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: String,
        /// The backend whose core is rebuilt.
        #[arg(long, default_value = "model")]
        backend: Backend,
        /// Store size (suffixes K, M, G).
        #[arg(long, default_value = "256M")]
        size: String,
        /// Seed of the workload.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// SVG plots: hasher cycles per page against lanes, index throughput
    /// against FSMs, dedup ratio against index size.
    Plots {
        /// The folder the SVG files go to.
        #[arg(long, default_value = "docs/plots")]
        out: PathBuf,
        /// Seed of the measured workloads.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Fingerprint index capacity: entries, and the block RAM and logic of
    /// the index alone (Yosys).
    Capacity {
        /// A configuration name, or `all`. Default `cu`: the index whose
        /// table is in block RAM, where its capacity costs the chip's EBRs.
        #[arg(long, default_value = "cu")]
        config: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Fingerprint index throughput: against FSMs (uniform workload, table
    /// half full), and the worst case (all new, table 90% full) with and
    /// without Bloom filters against the best (duplicates only). Every
    /// response is checked against the golden model.
    Index {
        /// The configuration whose index runs (default `large`: eight
        /// lookup FSMs, the one with an array of them to scale).
        #[arg(long, default_value = "large")]
        config: String,
        /// Latency of the memory ports, in cycles.
        #[arg(long, default_value_t = 64)]
        latency: u64,
        /// INSERT commands measured per run.
        #[arg(long, default_value_t = 4096)]
        commands: usize,
        /// Seed of the workloads.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

impl DeviceArgs {
    fn is_board(&self) -> bool {
        self.backend.is_board()
    }
    /// `--config`, or the default (the board's own for a board backend).
    fn config(&self) -> Result<ditto_hw::Config> {
        let name = self.config.as_deref().unwrap_or(if self.is_board() { BOARD_CONFIG } else { DEFAULT_CONFIG });
        Ok(ditto_hw::by_name(name)?)
    }
}

/// The configuration every command uses unless told otherwise.
/// Mutants per module behind the README's mutation table (`ditto figures`).
const FIGURES_MUTANTS: u32 = 20;
/// `ditto mutants`'s time for each step of a survivor's comparison.
const EQUIVALENCE_SECONDS: u32 = 180;

const DEFAULT_CONFIG: &str = "large";
/// `serve`'s size without `--size` or a store.
const DEFAULT_SERVE_BYTES: u64 = 16 << 20;

/// `serve` is running: a signal asks it to stop (see [`SHUTDOWN`]).
static SERVING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Set by SIGTERM or Ctrl-C while serving: flush, close the store, exit.
static SHUTDOWN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A device as the commands open it: over any transport.
type OpenDevice = ditto_host::driver::Device<Box<dyn ditto_host::transport::Transport>>;

/// How many pages a command needs its device to have.
#[derive(Clone, Copy)]
enum Pages {
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
fn open_device(
    args: &DeviceArgs,
    pages: Pages,
    verify: bool,
) -> Result<(OpenDevice, PathBuf, ditto_host::limits::Limits)> {
    use ditto_host::driver::{setup_for_backend, BackingStore, Device};
    use ditto_host::store::format::StoreSpec;
    let existing = match &args.store {
        Some(dir) => BackingStore::spec_of(dir)?,
        None => None,
    };
    let cfg = match (&existing, &args.config) {
        (Some(spec), None) => ditto_hw::by_name(&spec.config)?,
        _ => args.config()?,
    };
    let devices = args.devices.or(existing.as_ref().map(|s| s.devices)).unwrap_or(1);
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
    let setup = setup_for_backend(&args.backend, &cfg, lpas, devices)?;
    let spec = StoreSpec::of(cfg.name, &setup);
    let verify_flag = verify;
    let started = std::time::Instant::now();
    let (store, recovered) = match &args.store {
        Some(dir) => BackingStore::open_or_create(dir, &spec)?,
        None => (BackingStore::temporary(&spec)?, None),
    };
    let dir = store.dir().to_path_buf();
    let transport = args.backend.open(&cfg, setup, args.check)?;
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
    Ok((device, dir, limits))
}

/// A progress bar of `len` steps on stderr, its message the step under
/// way, ticking so a long step still shows life (hidden when stderr is not
/// a terminal).
fn steps(len: u64, first: &str) -> indicatif::ProgressBar {
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
fn warn_index_full(index_full: u64, limits: &ditto_host::limits::Limits, pages: u64) {
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
fn stats_value<T: ditto_host::transport::Transport>(
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
    }))
}

/// A store command's report: one JSON object, or its lines under the
/// store's folder.
fn print_store_report(
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

fn configs(name: &str) -> Result<Vec<ditto_hw::Config>> {
    if name == "all" {
        return Ok(ditto_hw::CONFIGS.to_vec());
    }
    Ok(vec![ditto_hw::by_name(name)?])
}

fn main() -> Result<()> {
    // The arguments first: clap ends the process itself on `--help` or a
    // bad argument, and must do so before the scratch folder exists.
    let cli = Cli::parse();
    // Every temporary file of this run and of the tools it starts goes into
    // one folder, removed however the run ends. Made before any thread.
    let _scratch = ditto_host::scratch::Scratch::install().context("making the scratch folder")?;
    // Rust ignores SIGPIPE, so printing into a closed pipe (`ditto hash
    // disk.img | head`) panics in `println!`. A command-line tool should
    // just stop, quietly and without leaving its scratch folder: such a
    // panic ends the run with 141 (128 + SIGPIPE), as the signal would.
    let report_panic = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if is_broken_pipe(info) {
            ditto_host::scratch::abandon();
            std::process::exit(141);
        }
        report_panic(info);
    }));
    // Ctrl-C and SIGTERM: a server stops cleanly (flushes and closes its
    // store); anything else, or a second signal, ends the process without
    // destructors, so the tools it started are stopped and the scratch
    // folder is removed first.
    ctrlc::set_handler(|| {
        use std::sync::atomic::Ordering;
        if SERVING.load(Ordering::SeqCst) && !SHUTDOWN.swap(true, Ordering::SeqCst) {
            eprintln!("ditto serve: stopping: flushing and closing the store");
            return;
        }
        ditto_host::scratch::abandon();
        std::process::exit(130);
    })
    .context("installing the Ctrl-C handler")?;
    // `_scratch` is dropped, and its folder removed, as `main` returns.
    run(cli.command)
}

/// A panic of `print!` into a pipe whose reader has gone.
fn is_broken_pipe(info: &std::panic::PanicHookInfo) -> bool {
    let message = info
        .payload()
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| info.payload().downcast_ref::<&str>().copied())
        .unwrap_or_default();
    message.starts_with("failed printing to") && message.contains("Broken pipe")
}

fn run(command: Command) -> Result<()> {
    match command {
        Command::Verilog { config, out } => {
            let cfg = ditto_hw::by_name(&config)?;
            std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
            // Board tops exist for configurations whose index table is on chip.
            let core_board = ditto_hw::config::core_board_verilog(&cfg, &ditto_hw::board::BoardSetup::CU)
                .map(|v| (format!("ditto_{}.v", cfg.name), v));
            let interim = ditto_hw::config::board_verilog(&cfg).map(|v| (format!("ditto_{}_interim.v", cfg.name), v));
            for (file, text) in core_board.into_iter().chain(interim).chain([
                (format!("ditto_{}_hasher.v", cfg.name), ditto_hw::config::hasher_verilog(&cfg)),
                (format!("ditto_{}_index.v", cfg.name), ditto_hw::config::index_verilog(&cfg)),
                (format!("ditto_{}_core.v", cfg.name), ditto_hw::config::core_verilog(&cfg)),
            ]) {
                let path = out.join(file);
                std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
                println!("{}", path.display());
            }
        }
        Command::Ingest { path, device, no_verify, synth_report, json } => {
            let input = match &path {
                Some(p) => ditto_host::ingest::Input::open(p)?,
                None => ditto_host::ingest::Input::Bytes(sample::sample_bytes()),
            };
            if input.pages() == 0 {
                bail!("nothing to ingest: {} holds no bytes", path.as_deref().unwrap_or("sample".as_ref()).display());
            }
            let (mut dev, dir, limits) = open_device(&device, Pages::AtLeast(input.pages()), !no_verify)?;
            let config = limits.config.as_str();
            // Only a report of this configuration's own build turns cycles
            // into throughput.
            let synthesized = std::fs::read_to_string(&synth_report)
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
            let fmax = synthesized
                .as_ref()
                .filter(|v| v["config"] == config)
                .and_then(|v| v["fmax_mhz"].as_f64().map(|f| (f, v["board"].as_str().unwrap_or("?").to_string())));
            let no_throughput = match &synthesized {
                None => Some(format!("no synthesis report at {} (run `ditto synth`)", synth_report.display())),
                Some(v) if fmax.is_none() => Some(format!(
                    "{} is for `{}`, not `{}`: no Fmax for `{}` to turn its cycles into throughput",
                    synth_report.display(),
                    v["config"].as_str().unwrap_or("?"),
                    config,
                    config
                )),
                Some(_) => None,
            };
            let devices = dev.store().spec().devices;
            let report = ditto_host::ingest::ingest(&mut dev, &input, devices, fmax.as_ref().map(|f| f.0), !json)?;
            warn_index_full(report.dedup.index_full_writes, &limits, input.pages());
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                for line in report.dedup.lines() {
                    println!("{line}");
                }
                println!(
                    "collisions caught  {} (of {} duplicates compared)",
                    report.collisions_caught, report.verified_duplicates
                );
                if let (Some((f, board)), Some(t)) = (&fmax, report.throughput_mib_per_s) {
                    println!(
                        "throughput         {t:.1} MiB/s at {f:.2} MHz (`{}` on {board}, {})",
                        config,
                        synth_report.display()
                    );
                } else if let Some(why) = no_throughput.filter(|_| report.dedup.cycles.is_some()) {
                    println!("throughput         {why}");
                }
                match &device.store {
                    Some(_) => println!("store              {}", dir.display()),
                    None => println!("device files       not kept (a temporary store: --store DIR keeps them)"),
                }
            }
        }
        Command::Flash { board, bitstream } => {
            if board != "alchitry-cu" {
                bail!("unknown board `{board}`; known boards: alchitry-cu");
            }
            if !bitstream.is_file() {
                bail!(
                    "no bitstream at {}: run `ditto synth --board alchitry-cu --config cu` first (or pass --bitstream)",
                    bitstream.display()
                );
            }
            let status = std::process::Command::new("iceprog").arg(&bitstream).status().map_err(|e| {
                anyhow::anyhow!("cannot run iceprog ({e}): install it with `apt-get install fpga-icestorm`")
            })?;
            if !status.success() {
                bail!("iceprog {} failed ({status}): is the Alchitry Cu plugged in, and may this user open its USB device?", bitstream.display());
            }
            println!("programmed the {board} with {}", bitstream.display());
        }
        Command::Replay { trace, device, dense, json } => {
            let requests = ditto_host::replay::read(&trace)?;
            let (accesses, plan) = ditto_host::replay::plan(&requests, dense);
            let pages = plan.device_pages;
            if pages == 0 {
                bail!("{}: the trace addresses no page", trace.display());
            }
            let (mut dev, _, limits) = open_device(&device, Pages::AtLeast(pages), false)
                .with_context(|| format!("{}: the trace's pages do not fit (try --dense)", trace.display()))?;
            let writes = accesses.iter().filter(|a| a.write).count() as u64;
            let report = ditto_host::replay::replay(&mut dev, &accesses, plan)?;
            warn_index_full(report.dedup.index_full_writes, &limits, writes);
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                for line in report.lines() {
                    println!("{line}");
                }
            }
        }
        Command::Serve { nbd, size, idle_timeout, device, no_verify, stats_json, clients } => {
            let pages = match &size {
                Some(size) => {
                    let bytes = ditto_host::limits::parse_size(size)?;
                    if bytes == 0 {
                        bail!("--size {size}: at least one byte");
                    }
                    Pages::Exactly(bytes.div_ceil(ditto_host::driver::PAGE as u64))
                }
                None => Pages::StoreOr(DEFAULT_SERVE_BYTES / ditto_host::driver::PAGE as u64),
            };
            let (mut dev, dir, _) = open_device(&device, pages, !no_verify)?;
            let bytes = match size {
                Some(size) => ditto_host::limits::parse_size(&size)?,
                None => dev.lpas() as u64 * ditto_host::driver::PAGE as u64,
            };
            let listener = std::net::TcpListener::bind(&nbd).with_context(|| format!("listening on {nbd}"))?;
            eprintln!(
                "ditto serve: {bytes} bytes on nbd://{nbd} ({}, {} device(s), {} {})",
                device.backend,
                dev.store().spec().devices,
                if dev.store().is_temporary() { "a temporary store in" } else { "store" },
                dir.display()
            );
            let options =
                ditto_host::nbd::ServeOptions { idle_timeout: idle_timeout.map(std::time::Duration::from_secs) };
            SERVING.store(true, std::sync::atomic::Ordering::SeqCst);
            let mut served = 0u32;
            ditto_host::nbd::serve(listener, &mut dev, bytes, options, &SHUTDOWN, |d| {
                let v = stats_value(d)?;
                eprintln!("ditto serve: client done: {v}");
                if let Some(path) = &stats_json {
                    std::fs::write(path, serde_json::to_string_pretty(&v).expect("JSON of counters"))
                        .map_err(|source| ditto_host::driver::DriverError::Store { path: path.clone(), source })?;
                }
                served += 1;
                Ok(clients.is_none_or(|n| served < n))
            })?;
            if SHUTDOWN.load(std::sync::atomic::Ordering::SeqCst) {
                eprintln!("ditto serve: stopped: the store is flushed and closed");
            }
        }
        Command::Recover { store, backend, check, json } => {
            use ditto_host::driver::{setup_for_backend, BackingStore, Device};
            let Some(spec) = BackingStore::spec_of(&store)? else {
                bail!("{} holds no Ditto store", store.display());
            };
            let cfg = ditto_hw::by_name(&spec.config)?;
            let setup = setup_for_backend(&backend, &cfg, spec.lpas, spec.devices)?;
            let started = std::time::Instant::now();
            let (opened, recovered) =
                BackingStore::open_or_create(&store, &ditto_host::store::format::StoreSpec::of(cfg.name, &setup))?;
            let recovered = recovered.expect("an existing store");
            let read_seconds = started.elapsed().as_secs_f64();
            let (mut dev, mut report) = Device::open(backend.open(&cfg, setup, check)?, opened, recovered, true)?;
            report.read_seconds = read_seconds;
            dev.flush()?;
            print_store_report(json, &store, &report, report.lines())?;
        }
        Command::Prove { only, planted, waveforms, list, json } => {
            use ditto_host::prove;
            if list {
                for spec in ditto_hw::formal::proofs() {
                    println!("{:<16} {}", spec.name, spec.module);
                }
                return Ok(());
            }
            let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
            let request = prove::ProveRequest { only, planted, waveform_dir: waveforms, jobs };
            let outcomes = prove::run(&request, |outcome| {
                if !json {
                    for line in prove::lines(outcome) {
                        println!("{line}");
                    }
                }
            })?;
            let failed: Vec<&str> = outcomes.iter().filter(|o| !o.passed()).map(|o| o.report.name.as_str()).collect();
            if json {
                println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "proofs": outcomes }))?);
            }
            if !failed.is_empty() {
                bail!("{} of {} proofs did not pass: {}", failed.len(), outcomes.len(), failed.join(", "));
            }
        }
        Command::Mutants {
            modules,
            count,
            seed,
            mutants: chosen,
            depth,
            equivalence_seconds,
            waveforms,
            list,
            json,
            update,
        } => {
            use ditto_host::mutants;
            if list {
                for target in mutants::targets() {
                    println!("{:<12} {}", target.name, target.module);
                }
                return Ok(());
            }
            // The table's command line, and what an update may do, checked
            // before any work: a run of some modules replaces their rows in
            // a table made with the same options; one of chosen mutants
            // makes no row at all.
            let command = format!(
                "ditto mutants --count {count} --seed {seed} --depth {depth} --equivalence-seconds {equivalence_seconds}"
            );
            let every_module = modules.is_empty() || mutants::names().iter().all(|n| modules.iter().any(|m| m == n));
            if let Some(path) = &update {
                if !chosen.is_empty() {
                    bail!("--update writes whole modules' rows: drop --mutant");
                }
                if !every_module {
                    ditto_host::figures::existing_mutants_block(path, &command)?;
                }
            }
            let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
            let request = mutants::MutantsRequest {
                only: modules,
                count,
                mutants: chosen,
                seed,
                equivalence_depth: depth,
                equivalence_seconds,
                jobs,
                waveform_dir: waveforms,
            };
            let reports = mutants::run(&request, |event| {
                if json {
                    return;
                }
                match event {
                    mutants::Event::Stage { target, what } => eprintln!("{target}: {what}"),
                    mutants::Event::Mutant { target, outcome } => {
                        let fate = match &outcome.fate {
                            mutants::Fate::KilledBySuite { .. } => "killed by the suite".to_owned(),
                            mutants::Fate::KilledByProof { proof, .. } => format!("killed by proof {proof}"),
                            mutants::Fate::Survived { equivalence, decided_by } => {
                                format!("SURVIVED: {equivalence}, {decided_by}")
                            }
                        };
                        eprintln!("{target}: {}: {fate}", outcome.description);
                    }
                }
            })?;
            if json {
                println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "modules": reports }))?);
            } else {
                for report in &reports {
                    for line in mutants::lines(report) {
                        println!("{line}");
                    }
                }
            }
            if let Some(path) = update {
                let block = if every_module {
                    ditto_host::figures::render_mutants(&reports, &command)
                } else {
                    ditto_host::figures::merge_mutants(&path, &reports, &command, &mutants::names())?
                };
                ditto_host::figures::update_mutants_file(&path, &block)?;
                println!("updated the mutation table in {}", path.display());
            }
        }
        Command::Scrub { store, json } => {
            let report = ditto_host::store::scrub(&store)?;
            print_store_report(json, &store, &report, report.lines())?;
            if !report.bad_pages.is_empty() {
                bail!("{}: {} bad pages", store.display(), report.bad_pages.len());
            }
        }
        Command::Hash { file, config, json, waveform } => {
            let cfg = ditto_hw::by_name(&config)?;
            let bytes = match &file {
                Some(path) => std::fs::read(path).with_context(|| format!("reading {}", path.display()))?,
                None => sample::sample_bytes(),
            };
            if bytes.is_empty() {
                bail!("{} is empty: there is no page to hash", file.unwrap().display());
            }
            let report = hash::hash_bytes(&cfg, &bytes, waveform.as_deref())?;
            if let Some(path) = &waveform {
                eprintln!("waveform: {}", path.display());
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                for p in &report.pages {
                    println!("{} {} {}", p.index, p.sha1, p.cycles);
                }
                let t = &report.totals;
                println!("pages {}", t.pages);
                println!("cycles {}", t.cycles);
                println!("cycles_per_page {:.1}", t.cycles_per_page);
                println!("cycles_per_block {:.2}", t.cycles_per_block);
                println!("latency_cycles {}", t.latency_cycles);
            }
        }
        Command::Synth { board, config, out, seeds, block } => {
            let config = config.unwrap_or_else(|| BOARD_CONFIG.to_string());
            let cfg = ditto_hw::by_name(&config)?;
            let bar = steps(1, &format!("yosys and nextpnr (seeds {seeds:?} in turn, until one meets timing)"));
            let result = synth::synth_block(&board, &cfg, block, &out, &seeds);
            bar.finish_and_clear();
            match result {
                Ok(r) => {
                    println!(
                        "{} {}: {} of {} logic cells, {} LUTs, {} DFFs, {} EBRs, {:.2} MHz (target {} MHz, seed {}): timing met",
                        r.board, r.config, r.logic_cells, r.logic_cells_available, r.luts, r.dffs, r.ebrs,
                        r.fmax_mhz, r.target_mhz, r.seed
                    );
                    println!("{}", out.join(ditto_synth::REPORT_FILE).display());
                    println!("{}", out.join(ditto_synth::BITSTREAM_FILE).display());
                }
                Err(e) => bail!("ditto synth --board {board} --config {config}: {e}"),
            }
        }
        Command::Bench { what: BenchCommand::Hasher { config, pages, seed, json } } => {
            let mut results = Vec::new();
            for cfg in configs(&config)? {
                let r = bench::bench_hasher(&cfg, pages, seed)?;
                if !json {
                    println!(
                        "{}: lanes {} steady {:.1} cycles/page ({:.2}/block, limit {:.0}), latency {} cycles, cosim {:.2} M cycles/s",
                        r.config, r.lanes, r.steady_cycles_per_page, r.steady_cycles_per_block,
                        r.limit_cycles_per_page, r.latency_cycles, r.sim_cycles_per_second / 1e6
                    );
                }
                results.push(r);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            }
        }
        Command::Bench { what: BenchCommand::Index { config, latency, commands, seed, json } } => {
            let cfg = ditto_hw::by_name(&config)?;
            let runs = bench::index_suite(&cfg, latency, commands, seed)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&runs)?);
            } else {
                for r in &runs {
                    println!(
                        "{} {:16} FSMs {} bloom {:5} latency {}: {} commands in {} cycles = {:.2} per kcycle, {:.0} cycles each (fill {:.1}%, {:?})",
                        r.config, r.workload, r.fsms, r.bloom, r.latency_cycles, r.commands, r.cycles,
                        r.commands_per_kcycle, r.mean_latency_cycles, 100.0 * r.fill_before, r.statuses
                    );
                }
            }
        }
        Command::Bench { what: BenchCommand::Core { config, pages, latency, seed, json } } => {
            let mut results = Vec::new();
            for cfg in configs(&config)? {
                results.extend(ditto_host::core_bench::core_suite(&cfg, pages, latency, seed)?);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            } else {
                for r in &results {
                    println!(
                        "{} {:22} {:5} pages/writes, {:9} cycles: {:7.1} cycles/page{}, dedup {:.1}%, WA {:.3}, latency write {} lone {} trim {}",
                        r.config, r.stream, r.pages, r.cycles, r.cycles_per_page,
                        r.limit_cycles_per_page.zip(r.over_limit_percent)
                            .map_or(String::new(), |(l, o)| format!(" (limit {l:.0}, {o:+.2}%)")),
                        100.0 * r.dedup_ratio, r.write_amplification,
                        r.write_latency_cycles.map_or("-".into(), |v| format!("{v:.0}")),
                        r.lone_write_latency_cycles.map_or("-".into(), |v| v.to_string()),
                        r.trim_latency_cycles.map_or("-".into(), |v| v.to_string()),
                    );
                }
            }
        }
        Command::Bench { what: BenchCommand::Plots { out, seed } } => {
            for path in ditto_host::plots::plots(&out, seed)? {
                println!("{}", path.display());
            }
        }
        Command::Bench { what: BenchCommand::Capacity { config, json } } => {
            let mut results = Vec::new();
            let cfgs = configs(&config)?;
            let bar = steps(cfgs.len() as u64, "");
            for cfg in cfgs {
                bar.set_message(format!("yosys: the `{}` index", cfg.name));
                results.push(bench::index_capacity(&cfg)?);
                bar.inc(1);
            }
            bar.finish_and_clear();
            if json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            } else {
                for c in &results {
                    println!(
                        "{}: {} entries in {} buckets ({}), index alone: {} EBRs, {} LUT4, {} flip-flops; {:.0} on-chip bits per entry",
                        c.config, c.entries, c.buckets, c.table, c.ebrs, c.luts, c.dffs, c.on_chip_bits_per_entry
                    );
                }
            }
        }
        Command::Figures { update, out, pages } => {
            let bar = steps(10, "hasher benchmarks");
            let hashers = ditto_hw::CONFIGS
                .iter()
                .map(|cfg| bench::bench_hasher(cfg, pages, 1))
                .collect::<Result<Vec<_>, _>>()?;
            let cu = ditto_hw::config::CU;
            bar.inc(1);
            bar.set_message("synthesis: the interim board top");
            let interim = synth::synth_block(
                "alchitry-cu",
                &cu,
                synth::Block::Interim,
                &out.join("interim"),
                synth::DEFAULT_SEEDS,
            )?;
            bar.inc(1);
            bar.set_message("synthesis: the hasher alone");
            let block = synth::synth_block(
                "alchitry-cu",
                &cu,
                synth::Block::Hasher,
                &out.join("hasher"),
                synth::DEFAULT_SEEDS,
            )?;
            bar.inc(1);
            bar.set_message("synthesis: the whole-core board top");
            let core_board = match synth::synth_block(
                "alchitry-cu",
                &cu,
                synth::Block::Core,
                &out.join("core"),
                synth::DEFAULT_SEEDS,
            ) {
                Ok(r) => ditto_host::figures::CoreBoardFit::Placed(Box::new(r)),
                // Placed and routed, below the target: its report still says
                // by how much (the row marks the miss).
                Err(ditto_host::HostError::Synth(ditto_synth::SynthError::TimingNotMet { report_path, .. })) => {
                    let text = std::fs::read_to_string(&report_path)
                        .with_context(|| format!("reading {}", report_path.display()))?;
                    ditto_host::figures::CoreBoardFit::Placed(Box::new(serde_json::from_str(&text)?))
                }
                Err(ditto_host::HostError::Synth(ditto_synth::SynthError::PlacementFailed {
                    used, available, ..
                })) => ditto_host::figures::CoreBoardFit::DoesNotFit { used, available },
                Err(e) => return Err(e.into()),
            };
            bar.inc(1);
            bar.set_message("index benchmarks");
            let index_runs = bench::index_suite(&ditto_hw::config::LARGE, 64, 4096, 1)?;
            let capacity = bench::index_capacity(&cu)?;
            let mut core_runs = Vec::new();
            bar.inc(1);
            bar.set_message("whole-core benchmarks");
            for cfg in ditto_hw::CONFIGS {
                core_runs.extend(ditto_host::core_bench::core_suite(cfg, 64, 2, 1)?);
            }
            bar.inc(1);
            bar.set_message("fio against ditto serve");
            let exe = std::env::current_exe().context("the path of this ditto binary")?;
            let fio = ["model", "verilator"]
                .into_iter()
                .map(|backend| ditto_host::fio_bench::bench_fio(&exe, backend, DEFAULT_CONFIG, 16 << 20, 10))
                .collect::<Result<Vec<_>, _>>()?;
            bar.inc(1);
            bar.set_message("store benchmarks");
            let large = ditto_hw::config::LARGE;
            let store = [(Backend::Model, 256u64 << 20), (Backend::Verilator, 16 << 20)]
                .into_iter()
                .map(|(backend, bytes)| ditto_host::store_bench::run(&large, &backend, bytes, 1))
                .collect::<Result<Vec<_>, _>>()?;
            bar.finish_and_clear();
            let markdown = ditto_host::figures::render(&ditto_host::figures::Measurements {
                store: &store,
                hashers: &hashers,
                interim: &interim,
                block: &block,
                core_board: &core_board,
                index: &index_runs,
                capacity: &capacity,
                core: &core_runs,
                fio: &fio,
            });
            let request = ditto_host::mutants::MutantsRequest {
                only: Vec::new(),
                count: FIGURES_MUTANTS,
                mutants: Vec::new(),
                seed: 1,
                equivalence_depth: 8,
                equivalence_seconds: EQUIVALENCE_SECONDS,
                jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
                waveform_dir: out.join("mutants"),
            };
            let reports = ditto_host::mutants::run(&request, |_| {})?;
            let command =
                format!("ditto mutants --count {FIGURES_MUTANTS} --seed 1 --depth 8 --equivalence-seconds {EQUIVALENCE_SECONDS}");
            let mutants_md = ditto_host::figures::render_mutants(&reports, &command);
            match update {
                Some(path) => {
                    ditto_host::figures::update_file(&path, &markdown)?;
                    ditto_host::figures::update_mutants_file(&path, &mutants_md)?;
                    println!("updated the figures in {}", path.display());
                }
                None => println!("{markdown}\n\n{mutants_md}"),
            }
        }
        Command::Bench { what: BenchCommand::Fio { config, size, seconds, json } } => {
            let exe = std::env::current_exe().context("the path of this ditto binary")?;
            let mut results = Vec::new();
            for backend in ["model", "verilator"] {
                let r = ditto_host::fio_bench::bench_fio(&exe, backend, &config, size, seconds)?;
                if !json {
                    println!(
                        "{backend} ({config}): 4 KiB random write {:.0} IOPS ({:.0} us), random read {:.0} IOPS ({:.0} us)",
                        r.randwrite_iops, r.randwrite_lat_us, r.randread_iops, r.randread_lat_us
                    );
                }
                results.push(r);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            }
        }
        Command::Bench { what: BenchCommand::Store { config, backend, size, seed, json } } => {
            let bytes = ditto_host::limits::parse_size(&size)?;
            let r = ditto_host::store_bench::run(&ditto_hw::by_name(&config)?, &backend, bytes, seed)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                for line in r.lines() {
                    println!("{line}");
                }
            }
        }
        Command::Info { config, backend, json } => {
            let limits = ditto_host::limits::Limits::of(&ditto_hw::by_name(&config)?, &backend)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&limits)?);
            } else {
                for line in limits.lines() {
                    println!("{line}");
                }
            }
        }
        Command::Configs => {
            for c in ditto_hw::CONFIGS {
                println!(
                    "{:8} lanes {} lane FIFO {} words, {} MHz: {}",
                    c.name,
                    c.lanes,
                    c.lane_fifo_words(),
                    c.clock_mhz,
                    c.about
                );
            }
        }
    }
    Ok(())
}
