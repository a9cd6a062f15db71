//! Verilates every model the bridge offers and compiles it into this crate.
//!
//! The models are built without tracing, which makes them faster; a
//! waveform comes from a traced twin built at run time from the same
//! Verilog (kept in the crate for that), see `Model::traced`.
//!
//! For each model: ask `ditto-hw` for its Verilog, run `verilator --cc` with a
//! per-model `--prefix`, generate a C ABI shim from `csrc/model_shim.cpp.in`
//! with the port list parsed from the Verilog, and compile it all with `cc`.
//! Verilator's runtime is compiled once. The Verilog is needed only here; the
//! resulting crate has no run-time dependency on Verilator.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "src/shim.rs"]
#[allow(dead_code)] // `TRACE_ARG` is for the traced twins built at run time (src/built.rs), not here
mod shim;

/// The models this crate offers: (model name, Verilog of its top).
fn models() -> Vec<(String, String)> {
    let mut models =
        vec![("sha1_engine".to_string(), ditto_hw::verilog::top_verilog(ditto_hw::sha1::Sha1Engine::default()))];
    for cfg in ditto_hw::CONFIGS {
        models.push((format!("hasher_{}", cfg.name), ditto_hw::config::hasher_verilog(cfg)));
        models.push((format!("index_{}", cfg.name), ditto_hw::config::index_verilog(cfg)));
    }
    // The cu index with four FSMs: the lock table and the held responses
    // against the block-RAM table's timing (cu itself has one FSM).
    models.push((
        "index_cu_m4".to_string(),
        ditto_hw::verilog::top_verilog(ditto_hw::index::onchip::IndexOnChip::<4, 12, 9>::new()),
    ));
    // The whole core (hasher, index, FTL controller) of each configuration,
    // with the index's and the FTL's memories behind ports.
    for cfg in ditto_hw::CONFIGS {
        models.push((format!("core_{}", cfg.name), ditto_hw::config::core_verilog(cfg)));
    }
    // The board top's widgets, each against its own model.
    models.push(("frame_rx".to_string(), ditto_hw::verilog::top_verilog(ditto_hw::board::FrameReceiver::default())));
    models.push(("frame_tx".to_string(), ditto_hw::verilog::top_verilog(ditto_hw::board::FrameTransmitter::default())));
    models.push((
        "page_assembler".to_string(),
        ditto_hw::verilog::top_verilog(ditto_hw::board::PageAssembler::default()),
    ));
    models.push((
        "request_decoder".to_string(),
        ditto_hw::verilog::top_verilog(ditto_hw::board::RequestDecoder::default()),
    ));
    // The Cu's whole-core board top, built for cosimulation (a fast UART,
    // short timeouts, a small geometry), for tests through its UART pins.
    models.push((
        "board_cu_core".to_string(),
        ditto_hw::config::core_board_verilog(&ditto_hw::config::CU, &ditto_hw::board::BoardSetup::COSIM)
            .expect("the cu index table is on chip"),
    ));
    models
}

fn run(cmd: &mut Command) {
    let status = cmd.status().unwrap_or_else(|e| {
        panic!(
            "cannot run {:?}: {e}\nInstall Verilator 5 (Debian: `apt-get install -y verilator`), \
             or run the repository's `scripts/setup` as root.",
            cmd.get_program()
        )
    });
    assert!(status.success(), "{:?} failed with {status}", cmd);
}

/// Where the build's progress goes: cargo keeps a build script's output to
/// itself until the script ends, and this one runs for minutes, so its
/// steps are written to the terminal, when there is one (none in CI: then
/// nothing is written).
struct Progress(Option<std::fs::File>);

impl Progress {
    fn open() -> Self {
        Progress(std::fs::OpenOptions::new().write(true).open("/dev/tty").ok())
    }
    fn step(&mut self, what: &str) {
        use std::io::Write as _;
        if let Some(tty) = &mut self.0 {
            // A line of its own over cargo's progress bar ("\r", clear the
            // bar's line), which cargo draws again below it.
            let _ = writeln!(tty, "\r\x1b[K   ditto-sim: {what}");
            let _ = tty.flush();
        }
    }
}

fn verilator_include() -> PathBuf {
    if let Ok(root) = std::env::var("VERILATOR_ROOT") {
        return Path::new(&root).join("include");
    }
    let out = Command::new("verilator")
        .arg("--getenv")
        .arg("VERILATOR_ROOT")
        .output()
        .expect("verilator is installed (Debian: apt-get install -y verilator)");
    Path::new(String::from_utf8_lossy(&out.stdout).trim()).join("include")
}

fn main() {
    println!("cargo:rerun-if-changed=csrc/model_shim.cpp.in");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/shim.rs");
    println!("cargo:rerun-if-env-changed=VERILATOR_ROOT");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // Without the `verilator` feature: no models, and no Verilator needed.
    if std::env::var_os("CARGO_FEATURE_VERILATOR").is_none() {
        let none = "/// Every model compiled into this crate: none (built without the `verilator` feature).\n\
                    pub(crate) static MODELS: &[ModelEntry] = &[];\n";
        std::fs::write(out.join("models.rs"), none).unwrap();
        return;
    }
    let include = verilator_include();

    let mut rust_table = String::new();
    let mut entries = String::new();
    let mut progress = Progress::open();
    let started = std::time::Instant::now();
    let models = models();
    let count = models.len();
    for (k, (name, verilog)) in models.into_iter().enumerate() {
        let at = format!("model {}/{count} `{name}` ({} s so far)", k + 1, started.elapsed().as_secs());
        progress.step(&format!("verilating {at}"));
        let prefix = format!("V{name}");
        let vfile = out.join(format!("{name}.v"));
        std::fs::write(&vfile, &verilog).unwrap();
        let mdir = out.join(format!("obj_{name}"));
        let _ = std::fs::remove_dir_all(&mdir);
        run(Command::new("verilator")
            .args(shim::VERILATOR_ARGS)
            .arg("--prefix")
            .arg(&prefix)
            .arg("--Mdir")
            .arg(&mdir)
            .arg(&vfile));

        let ports = shim::parse_ports(&verilog).expect("rust-hdl writes `module top` with its ports");
        let func = format!("ditto_{name}");
        let shim = shim::shim_source(&prefix, &func, &ports);
        let shim_path = mdir.join(format!("{name}_shim.cpp"));
        std::fs::write(&shim_path, shim).unwrap();

        let mut fast = Vec::new();
        let mut slow = Vec::new();
        for entry in std::fs::read_dir(&mdir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "cpp") {
                let file = path.file_name().unwrap().to_string_lossy().to_string();
                if file.contains("__Slow") || file.contains("__Syms") {
                    slow.push(path);
                } else {
                    fast.push(path);
                }
            }
        }
        progress.step(&format!("compiling {at}"));
        for (files, opt, suffix) in [(fast, 2, "fast"), (slow, 0, "slow")] {
            cc::Build::new()
                .cpp(true)
                .std("c++14")
                .opt_level(opt)
                .include(&include)
                .include(include.join("vltstd"))
                .include(&mdir)
                .define("VM_TRACE", "0")
                .warnings(false)
                .files(files)
                .compile(&format!("{name}_{suffix}"));
        }

        // Rust side: the port table and the shim's functions.
        writeln!(rust_table, "extern \"C\" {{").unwrap();
        for f in shim::SHIM_FUNCTIONS {
            let sig = match f {
                "new" => "() -> *mut c_void".to_string(),
                "set" => "(h: *mut c_void, port: u32, words: *const u32)".to_string(),
                "get" => "(h: *mut c_void, port: u32, words: *mut u32)".to_string(),
                "trace_open" => "(h: *mut c_void, path: *const c_char) -> c_int".to_string(),
                "trace_dumping" => "(h: *mut c_void, on: c_int)".to_string(),
                _ => "(h: *mut c_void)".to_string(),
            };
            writeln!(rust_table, "    fn {func}_{f}{sig};").unwrap();
        }
        writeln!(rust_table, "}}").unwrap();
        let port_list: Vec<String> = ports
            .iter()
            .map(|p| format!("PortInfo {{ name: {:?}, width: {}, input: {} }}", p.name, p.width, p.input))
            .collect();
        writeln!(
            entries,
            "    ModelEntry {{ name: {name:?}, verilog: Some(include_str!(concat!(env!(\"OUT_DIR\"), \"/{name}.v\"))), traced: false, verilog_lines: {}, ports: &[{}], fns: ModelFns {{ new: {func}_new, free: {func}_free, set: {func}_set, get: {func}_get, eval: {func}_eval, tick: {func}_tick, trace_open: {func}_trace_open, trace_dumping: {func}_trace_dumping, trace_close: {func}_trace_close }} }},",
            verilog.lines().count(),
            port_list.join(", ")
        )
        .unwrap();
    }
    writeln!(
        rust_table,
        "/// Every model compiled into this crate.\npub(crate) static MODELS: &[ModelEntry] = &[\n{entries}];"
    )
    .unwrap();
    std::fs::write(out.join("models.rs"), rust_table).unwrap();

    // Verilator's runtime, once for all models, and linked after them
    // (static libraries resolve left to right).
    progress.step("compiling Verilator's runtime");
    cc::Build::new()
        .cpp(true)
        .std("c++14")
        .opt_level(2)
        .include(&include)
        .include(include.join("vltstd"))
        .define("VM_TRACE", "0")
        .warnings(false)
        .file(include.join("verilated.cpp"))
        .file(include.join("verilated_threads.cpp"))
        .compile("verilated_runtime");

    progress.step(&format!("{count} models built in {} s", started.elapsed().as_secs()));
    println!("cargo:rustc-link-lib=stdc++");
}
