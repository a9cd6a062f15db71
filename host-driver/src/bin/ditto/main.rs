//! `ditto`: Ditto's command line. Every subcommand takes `--config NAME`.
use anyhow::{bail, Context, Result};
use clap::Parser;
use ditto_host::transport::Backend;
use ditto_host::{bench, hash, sample, synth};

mod cli;
mod device;

use cli::*;
use device::*;

/// `serve` is running: a signal asks it to stop (see [`SHUTDOWN`]).
static SERVING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Set by SIGTERM or Ctrl-C while serving: flush, close the store, exit.
static SHUTDOWN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

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
            for (file, text) in core_board.into_iter().chain([
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
            let (mut dev, dir, limits, fresh_core) = open_device(&device, Pages::AtLeast(input.pages()), !no_verify)?;
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
            let golden = fresh_core.map(ditto_hw::ftl::model::CoreModel::new).ok_or_else(|| {
                "the device was opened from a store: the golden model cannot follow its history".to_string()
            });
            let fmax_mhz = fmax.as_ref().map(|f| f.0);
            let report = ditto_host::ingest::ingest(&mut dev, &input, devices, fmax_mhz, !json, golden)?;
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
                println!(
                    "{}",
                    ditto_host::timing::response_line(
                        &report.response_times,
                        &report.response_times_missing,
                        "simulated, one write in flight"
                    )
                );
                match &device.store {
                    Some(_) => println!("store              {}", dir.display()),
                    None => println!("device files       not kept (a temporary store: --store DIR keeps them)"),
                }
            }
        }
        Command::Flash { board, bitstream } => {
            let bitstream = bitstream
                .unwrap_or_else(|| std::path::PathBuf::from("out/synth").join(board.device().bitstream_file()));
            if !bitstream.is_file() {
                bail!(
                    "no bitstream at {}: run `ditto synth --board {}` first (or pass --bitstream)",
                    bitstream.display(),
                    board.name()
                );
            }
            let (tool, args, install): (&str, Vec<&std::ffi::OsStr>, &str) = match board {
                synth::Board::AlchitryCu => ("iceprog", vec![bitstream.as_os_str()], "apt-get install fpga-icestorm"),
                synth::Board::Ulx3s85f => (
                    "openFPGALoader",
                    vec!["--board".as_ref(), "ulx3s".as_ref(), bitstream.as_os_str()],
                    "apt-get install openfpgaloader",
                ),
            };
            let status = std::process::Command::new(tool)
                .args(&args)
                .status()
                .map_err(|e| anyhow::anyhow!("cannot run {tool} ({e}): install it with `{install}`"))?;
            if !status.success() {
                bail!(
                    "{tool} {} failed ({status}): is the {} plugged in, and may this user open its USB device?",
                    bitstream.display(),
                    board.name()
                );
            }
            println!("programmed the {} with {}", board.name(), bitstream.display());
        }
        Command::Replay { trace, device, dense, json } => {
            let requests = ditto_host::replay::read(&trace)?;
            let (accesses, plan) = ditto_host::replay::plan(&requests, dense);
            let pages = plan.device_pages;
            if pages == 0 {
                bail!("{}: the trace addresses no page", trace.display());
            }
            let (mut dev, _, limits, fresh_core) = open_device(&device, Pages::AtLeast(pages), false)
                .with_context(|| format!("{}: the trace's pages do not fit (try --dense)", trace.display()))?;
            let writes = accesses.iter().filter(|a| a.write).count() as u64;
            let golden = fresh_core.map(ditto_hw::ftl::model::CoreModel::new).ok_or_else(|| {
                "the device was opened from a store: the golden model cannot follow its history".to_string()
            });
            let report = ditto_host::replay::replay(&mut dev, &accesses, plan, golden)?;
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
            let (mut dev, dir, _, _) = open_device(&device, pages, !no_verify)?;
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
            let setup = setup_for_backend(&backend, &cfg, spec.lpas, spec.devices, spec.nvm())?;
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
                // With `--json`, standard output is the report alone.
                let notice = format!("updated the mutation table in {}", path.display());
                if json {
                    eprintln!("{notice}");
                } else {
                    println!("{notice}");
                }
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
        Command::Synth { board, config, out, seeds, block, mhz, lanes } => {
            let config = config.unwrap_or_else(|| board.default_config().to_string());
            let cfg = ditto_hw::by_name(&config)?;
            let target = synth::SynthTarget { board, config: &cfg, block, target_mhz: mhz, lanes };
            let seeds = if seeds.is_empty() { board.default_seeds().to_vec() } else { seeds };
            let bar = steps(1, &format!("yosys and nextpnr (seeds {seeds:?} in turn, until one meets timing)"));
            let result = synth::synth_block(&target, &out, &seeds);
            bar.finish_and_clear();
            match result {
                Ok(r) => {
                    println!(
                        "{} {}: {} of {} logic cells, {} LUTs, {} DFFs, {} block RAMs, {} DSPs, {:.2} MHz (target {} MHz, seed {}): timing met",
                        r.board, r.config, r.logic_cells, r.logic_cells_available, r.luts, r.dffs, r.ebrs, r.dsps,
                        r.fmax_mhz, r.target_mhz, r.seed
                    );
                    println!(
                        "tools: yosys {:.0} s, nextpnr {:.0} s, packing {:.0} s",
                        r.seconds.yosys, r.seconds.nextpnr, r.seconds.pack
                    );
                    if target.in_harness() {
                        println!("(a measurement in a pin harness: its bitstream is not for use on the board)");
                    }
                    println!("{}", out.join(ditto_synth::REPORT_FILE).display());
                    println!("{}", out.join(board.device().bitstream_file()).display());
                }
                Err(e) => bail!("ditto synth --board {} --config {config}: {e}", board.name()),
            }
        }
        Command::Luts { netlist, top, by_instance, lines } => {
            let text = std::fs::read_to_string(&netlist).with_context(|| format!("reading {}", netlist.display()))?;
            let charges = ditto_synth::attribution::luts_by_register(&text, top.as_deref(), !by_instance)
                .map_err(|e| anyhow::anyhow!("{}: {e}", netlist.display()))?;
            let total: u64 = charges.iter().map(|c| c.luts).sum();
            println!("{total} LUT4 in {}, by the registers they feed:", netlist.display());
            let shown = if lines == 0 { charges.len() } else { lines.min(charges.len()) };
            for charge in &charges[..shown] {
                println!(
                    "{:>7} {:>5.1}%  {}",
                    charge.luts,
                    100.0 * charge.luts as f64 / total.max(1) as f64,
                    charge.name
                );
            }
            if shown < charges.len() {
                let rest: u64 = charges[shown..].iter().map(|c| c.luts).sum();
                println!(
                    "{rest:>7} {:>5.1}%  ({} more lines)",
                    100.0 * rest as f64 / total.max(1) as f64,
                    charges.len() - shown
                );
            }
        }
        Command::Bench { what: BenchCommand::Lanes { lanes, out, mhz, seed, reuse, pages, json } } => {
            let options = ditto_host::lanes::LanesOptions {
                lanes: &lanes,
                out: &out,
                target_mhz: mhz,
                seed,
                reuse,
                software_pages: pages,
            };
            let bench = ditto_host::lanes::bench_lanes(&options, |step| eprintln!("{step}"))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&bench)?);
            } else {
                print!("{}", ditto_host::lanes::render(&bench));
                if let Some(plot) = &bench.plot {
                    println!("{}", plot.display());
                }
            }
        }
        Command::Bench { what: BenchCommand::Wide { lanes, pages, seed, json } } => {
            // Every lane count is checked before the first is built.
            synth::check_wide_lanes(&lanes)?;
            let mut results = Vec::new();
            for lanes in lanes {
                let r = bench::bench_wide_hasher(lanes, pages, seed)?;
                if !json {
                    println!(
                        "wide, {} lanes: steady {:.1} cycles/page ({:.2}/block, limit {:.1}), latency {} cycles, cosim {:.2} M cycles/s",
                        r.lanes, r.steady_cycles_per_page, r.steady_cycles_per_block,
                        r.limit_cycles_per_page, r.latency_cycles, r.sim_cycles_per_second / 1e6
                    );
                }
                results.push(r);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            }
        }
        Command::Bench { what: BenchCommand::Hasher { config, pages, seed, json } } => {
            let configs = configs(&config)?;
            let pages_of = |cfg: &ditto_hw::Config| ditto_host::core_bench::stream_pages_or_default(pages, cfg);
            for cfg in &configs {
                bench::check_hasher_pages(cfg, pages_of(cfg))?;
            }
            let mut results = Vec::new();
            for cfg in &configs {
                let r = bench::bench_hasher(cfg, pages_of(cfg), seed)?;
                if !json {
                    println!(
                        "{}: lanes {} steady {:.1} cycles/page ({:.2}/block, limit {:.1}), latency {} cycles, cosim {:.2} M cycles/s",
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
            let configs = configs(&config)?;
            let pages_of = |cfg: &ditto_hw::Config| ditto_host::core_bench::stream_pages_or_default(pages, cfg);
            for cfg in &configs {
                ditto_host::core_bench::check_stream_pages(cfg, pages_of(cfg))?;
            }
            let mut results = Vec::new();
            for cfg in &configs {
                results.extend(ditto_host::core_bench::core_suite(cfg, pages_of(cfg), latency, seed)?);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            } else {
                for r in &results {
                    println!(
                        "{} {:22} {:5} pages/writes, {:9} cycles: {:7.1} cycles/page{}, dedup {:.1}%, WA {:.3}, latency write {} lone {} trim {}",
                        r.config, r.stream, r.pages, r.cycles, r.cycles_per_page,
                        r.limit_cycles_per_page.zip(r.over_limit_percent)
                            .map_or(String::new(), |(l, o)| format!(" (limit {l:.1}, {o:+.2}%)")),
                        100.0 * r.dedup_ratio, r.write_amplification,
                        r.write_latency_cycles.map_or("-".into(), |v| format!("{v:.0}")),
                        r.lone_write_latency_cycles.map_or("-".into(), |v| v.to_string()),
                        r.trim_latency_cycles.map_or("-".into(), |v| v.to_string()),
                    );
                }
            }
        }
        Command::Bench {
            what: BenchCommand::Peer { config, pages, duplicates, file, stream_pages, report, seed, json },
        } => {
            let cfg = ditto_hw::config::by_name(&config)?;
            let options = ditto_host::peer_bench::PeerOptions {
                pages,
                duplicate_percent: duplicates,
                stream_pages: ditto_host::core_bench::stream_pages_or_default(stream_pages, &cfg),
                report: report.as_deref(),
                file: file.as_deref(),
                seed,
            };
            let r = ditto_host::peer_bench::bench_peer(&cfg, &options)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                let hw = &r.ditto;
                let clock = match &hw.clock_source {
                    ditto_host::peer_bench::ClockSource::Configuration => "the configuration's clock".to_string(),
                    ditto_host::peer_bench::ClockSource::SynthesisReport { path, board, seed } => {
                        format!("Fmax of {} ({board}, seed {seed})", path.display())
                    }
                };
                println!(
                    "ditto {} ({} lanes): {:.1} cycles/page at {:.2} MHz ({clock}): {:.0} pages/s, {:.3} GB/s",
                    hw.config, hw.lanes, hw.cycles_per_page, hw.clock_mhz, hw.pages_per_second, hw.gigabytes_per_second
                );
                for set in &r.page_sets {
                    println!("{}: {} pages, {} distinct", set.name, set.pages, set.unique_pages);
                    for (rate, ratio) in
                        [(&set.one_core, set.ditto_over_one_core), (&set.all_cores, set.ditto_over_all_cores)]
                    {
                        println!(
                            "  software on {} thread(s), best of {} passes: {:.0} pages/s, {:.2} GB/s; ditto / software {:.3}",
                            rate.threads, rate.passes, rate.pages_per_second, rate.gigabytes_per_second, ratio
                        );
                    }
                }
                println!(
                    "host link cap ({}: USB UART at {} baud, {}-byte WRITE frames): at most {:.1} pages/s",
                    r.link.board, r.link.baud, r.link.frame_bytes, r.link.pages_per_second
                );
            }
        }
        Command::Bench {
            what: BenchCommand::Nvm { requests, interarrival_us, cache_percents, trace, plots, seed, json },
        } => {
            let options = ditto_host::nvm_bench::NvmOptions { requests, interarrival_us, cache_percents, trace, seed };
            let bench = run_nvm_bench(&options)?;
            if let Some(dir) = plots {
                for path in ditto_host::nvm_bench::plots(&bench, &dir)? {
                    eprintln!("{}", path.display());
                }
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&bench)?);
            } else {
                println!("{}", ditto_host::nvm_bench::render(&bench));
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
        Command::Figures { update, out, pages, only, reuse } => {
            let parts = if only.is_empty() { FigurePart::ALL.to_vec() } else { only };
            if parts.contains(&FigurePart::Tables) {
                let markdown = figure_tables(&out, pages)?;
                match &update {
                    Some(path) => ditto_host::figures::update_file(path, &markdown)?,
                    None => println!("{markdown}\n"),
                }
            }
            if parts.contains(&FigurePart::Speed) {
                let bar = steps(5, "ECP5 syntheses");
                let speed = ditto_host::speed::measure(&out.join("speed"), reuse, |step| {
                    bar.inc(1);
                    bar.set_message(step.to_string());
                })?;
                bar.finish_and_clear();
                let markdown = ditto_host::speed::render(&speed);
                match &update {
                    Some(path) => ditto_host::figures::update_speed_file(path, &markdown)?,
                    None => println!("{markdown}\n"),
                }
            }
            if parts.contains(&FigurePart::Mutants) {
                let markdown = figure_mutants(&out)?;
                match &update {
                    Some(path) => ditto_host::figures::update_mutants_file(path, &markdown)?,
                    None => println!("{markdown}"),
                }
            }
            if parts.contains(&FigurePart::Nvm) {
                let bench = run_nvm_bench(&ditto_host::nvm_bench::NvmOptions::default())?;
                let markdown = ditto_host::nvm_bench::render(&bench);
                match &update {
                    Some(path) => {
                        let plots = path.parent().unwrap_or(std::path::Path::new(".")).join("docs/plots");
                        ditto_host::nvm_bench::plots(&bench, &plots)?;
                        ditto_host::figures::update_nvm_file(path, &markdown)?;
                    }
                    None => println!("{markdown}"),
                }
            }
            if let Some(path) = update {
                println!("updated the figures in {}", path.display());
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
                    "{:8} lanes {} on a {}-bit page stream, lane FIFO {} words, {} MHz: {}",
                    c.name,
                    c.lanes,
                    c.page_stream_bits,
                    c.lane_fifo_words(),
                    c.clock_mhz,
                    c.about
                );
            }
        }
    }
    Ok(())
}

/// The README's figure tables (`ditto figures --only tables`): the
/// cosimulation benchmarks and the Cu's two syntheses.
fn figure_tables(out: &std::path::Path, pages: Option<usize>) -> Result<String> {
    let pages_of = |cfg: &ditto_hw::Config| ditto_host::core_bench::stream_pages_or_default(pages, cfg);
    for cfg in ditto_hw::CONFIGS {
        bench::check_hasher_pages(cfg, pages_of(cfg))?;
        ditto_host::core_bench::check_stream_pages(cfg, pages_of(cfg))?;
    }
    let bar = steps(7, "hasher benchmarks");
    let hashers = ditto_hw::CONFIGS
        .iter()
        .map(|cfg| bench::bench_hasher(cfg, pages_of(cfg), 1))
        .collect::<Result<Vec<_>, _>>()?;
    let cu = ditto_hw::config::CU;
    bar.inc(1);
    bar.set_message("synthesis: the hasher alone");
    let cu_target = |block| synth::SynthTarget {
        board: synth::Board::AlchitryCu,
        config: &cu,
        block,
        target_mhz: None,
        lanes: None,
    };
    let block = synth::synth_block(&cu_target(synth::Block::Hasher), &out.join("hasher"), synth::DEFAULT_SEEDS)?;
    bar.inc(1);
    bar.set_message("synthesis: the whole-core board top");
    // Placed and routed below the target, its report still says by how
    // much (the row marks the miss).
    let core_board = match synth::synth_report(&cu_target(synth::Block::Core), &out.join("core"), synth::DEFAULT_SEEDS)
    {
        Ok(r) => ditto_host::figures::CoreBoardFit::Placed(Box::new(r)),
        Err(ditto_host::HostError::Synth(ditto_synth::SynthError::PlacementFailed { used, available, .. })) => {
            ditto_host::figures::CoreBoardFit::DoesNotFit { used, available }
        }
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
        core_runs.extend(ditto_host::core_bench::core_suite(cfg, pages_of(cfg), 2, 1)?);
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
        block: &block,
        core_board: &core_board,
        index: &index_runs,
        capacity: &capacity,
        core: &core_runs,
        fio: &fio,
    });
    Ok(markdown)
}

/// The README's mutation table (`ditto figures --only mutants`).
fn figure_mutants(out: &std::path::Path) -> Result<String> {
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
    let command = format!(
        "ditto mutants --count {FIGURES_MUTANTS} --seed 1 --depth 8 --equivalence-seconds {EQUIVALENCE_SECONDS}"
    );
    let mutants_md = ditto_host::figures::render_mutants(&reports, &command);
    Ok(mutants_md)
}

/// `ditto bench nvm` with a progress bar.
fn run_nvm_bench(options: &ditto_host::nvm_bench::NvmOptions) -> Result<ditto_host::nvm_bench::NvmBench> {
    let bar = steps(ditto_host::nvm_bench::run_count(options), "");
    let bench = ditto_host::nvm_bench::bench_nvm(options, |step| {
        bar.inc(1);
        bar.set_message(step.to_string());
    })?;
    bar.finish_and_clear();
    Ok(bench)
}
