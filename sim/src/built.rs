//! Models built at run time from Verilog the program holds (a design with
//! mutations, `ditto mutants`; the traced twin of a compiled-in model, for
//! its waveform: [`crate::Model::traced`]), where [`crate::Model::new`]
//! offers only the models `build.rs` compiled in, which cannot trace.
//! These are built with `--trace`. The steps are `build.rs`'s: Verilator
//! with the same options, the same C ABI shim, Verilator's runtime; the
//! result is a shared library, loaded once and kept for the life of the
//! process (a [`Model`] holds `'static` references into it). Its build
//! folder is a `tempfile` folder, removed as soon as the library is loaded.
//! Needs Verilator and a C++ compiler (`$CXX`, else `c++`) at run time.
use crate::model::{Model, ModelEntry, ModelFns, PortInfo, SimError};
use crate::shim::{self, Port};
use std::ffi::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A model built and loaded at run time.
#[derive(Clone, Copy)]
pub struct BuiltModel {
    entry: &'static ModelEntry,
}

impl std::fmt::Debug for BuiltModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltModel").field("name", &self.entry.name).finish()
    }
}

fn failed(model: &str, step: &str, detail: impl Into<String>) -> SimError {
    SimError::Build { model: model.into(), step: step.into(), detail: detail.into() }
}

/// Runs a build step; its output goes into the error when it fails.
fn run(model: &str, step: &str, cmd: &mut Command) -> Result<(), SimError> {
    let out = cmd.output().map_err(|e| failed(model, step, format!("cannot run {:?}: {e}", cmd.get_program())))?;
    if out.status.success() {
        return Ok(());
    }
    let mut log = String::from_utf8_lossy(&out.stderr).into_owned();
    log.push_str(&String::from_utf8_lossy(&out.stdout));
    let tail: Vec<&str> = log.lines().rev().take(20).collect();
    Err(failed(model, step, tail.into_iter().rev().collect::<Vec<_>>().join("\n")))
}

fn verilator_include(model: &str) -> Result<PathBuf, SimError> {
    if let Some(root) = std::env::var_os("VERILATOR_ROOT") {
        return Ok(Path::new(&root).join("include"));
    }
    let out = Command::new("verilator")
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .map_err(|e| failed(model, "finding Verilator", format!("{e} (Debian: apt-get install -y verilator)")))?;
    Ok(Path::new(String::from_utf8_lossy(&out.stdout).trim()).join("include"))
}

impl BuiltModel {
    /// Verilates `verilog` (top module `top`, with exactly `ports`) and
    /// loads it as the model `name` (letters, digits and `_`). `step` hears
    /// each stage, for progress output.
    pub fn build(name: &str, verilog: &str, ports: &[Port], mut step: impl FnMut(&str)) -> Result<Self, SimError> {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(failed(name, "naming", "a model name is letters, digits and `_`"));
        }
        let include = verilator_include(name)?;
        let work = tempfile::Builder::new()
            .prefix("ditto-model-")
            .tempdir()
            .map_err(|e| failed(name, "making a build folder", e.to_string()))?;
        let dir = work.path();
        let vfile = dir.join("design.v");
        std::fs::write(&vfile, verilog).map_err(|e| failed(name, "writing the Verilog", e.to_string()))?;
        let prefix = format!("V{name}");
        let mdir = dir.join("obj");
        step("verilating");
        // `-Wno-fatal`: the text comes from Yosys (`write_verilog`), not
        // rust-hdl; a lint warning about its style is no reason to stop.
        run(
            name,
            "verilator",
            Command::new("verilator")
                .args(shim::VERILATOR_ARGS)
                .arg(shim::TRACE_ARG)
                .args(["-Wno-fatal", "--build", "-j", "2", "-CFLAGS", "-fPIC", "--prefix"])
                .arg(&prefix)
                .arg("--Mdir")
                .arg(&mdir)
                .arg(&vfile),
        )?;
        let func = format!("ditto_{name}");
        let shim_path = dir.join("shim.cpp");
        std::fs::write(&shim_path, shim::shim_source(&prefix, &func, ports))
            .map_err(|e| failed(name, "writing the shim", e.to_string()))?;
        step("compiling the shim and Verilator's runtime");
        let cxx = std::env::var_os("CXX").unwrap_or_else(|| "c++".into());
        let sources = [
            shim_path,
            include.join("verilated.cpp"),
            include.join("verilated_vcd_c.cpp"),
            include.join("verilated_threads.cpp"),
        ];
        let mut objects = Vec::new();
        let mut children = Vec::new();
        for (i, source) in sources.iter().enumerate() {
            let object = dir.join(format!("part{i}.o"));
            let child = Command::new(&cxx)
                .args(["-c", "-fPIC", "-O2", "-std=c++14", "-DVM_TRACE=1", "-w"])
                .arg("-I")
                .arg(&include)
                .arg("-I")
                .arg(include.join("vltstd"))
                .arg("-I")
                .arg(&mdir)
                .arg(source)
                .arg("-o")
                .arg(&object)
                .stderr(std::process::Stdio::piped())
                .spawn()
                .map_err(|e| failed(name, "compiling", format!("cannot run {cxx:?}: {e}")))?;
            children.push((source.clone(), child));
            objects.push(object);
        }
        let mut errors = Vec::new();
        for (source, child) in children {
            match child.wait_with_output() {
                Ok(out) if out.status.success() => {}
                Ok(out) => errors.push(format!("{}: {}", source.display(), String::from_utf8_lossy(&out.stderr))),
                Err(e) => errors.push(format!("{}: {e}", source.display())),
            }
        }
        if !errors.is_empty() {
            return Err(failed(name, "compiling", errors.join("\n")));
        }
        step("linking");
        let library = dir.join(format!("lib{name}.so"));
        // `-Bsymbolic`: the library's own copy of Verilator's runtime serves
        // its model, never the copy linked into this program.
        run(
            name,
            "linking",
            Command::new(&cxx)
                .args(["-shared", "-Wl,-Bsymbolic"])
                .args(&objects)
                .arg(mdir.join(format!("{prefix}__ALL.a")))
                .args(["-lpthread", "-o"])
                .arg(&library),
        )?;
        let entry = load(name, &library, &func, ports, verilog.lines().count())?;
        drop(work);
        Ok(BuiltModel { entry })
    }

    /// [`BuiltModel::build`] once per process for each `name`: later calls
    /// for the name return the model built first (their `verilog` must be
    /// the same). Builds happen one at a time.
    pub fn cached(name: &str, verilog: &str, ports: &[Port]) -> Result<Self, SimError> {
        use std::collections::HashMap;
        use std::sync::{Mutex, OnceLock};
        static BUILT: OnceLock<Mutex<HashMap<String, BuiltModel>>> = OnceLock::new();
        // A poisoned lock only means another build panicked.
        let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        if let Some(model) = built.get(name) {
            return Ok(*model);
        }
        eprintln!("ditto-sim: Verilating `{name}` (once per process)");
        let model = Self::build(name, verilog, ports, |_| {})?;
        built.insert(name.to_string(), model);
        Ok(model)
    }

    /// A fresh instance of the model.
    pub fn instance(&self) -> Model {
        Model::of_entry(self.entry)
    }

    /// The model's name.
    pub fn name(&self) -> &'static str {
        self.entry.name
    }
}

/// Loads the library and leaks it, with the model's entry: models keep
/// `'static` references to both.
fn load(name: &str, library: &Path, func: &str, ports: &[Port], lines: usize) -> Result<&'static ModelEntry, SimError> {
    // SAFETY: the library is the one just linked from the shim and Verilator's
    // output; loading it runs only their static constructors.
    let lib = unsafe { libloading::Library::new(library) }.map_err(|e| failed(name, "loading", e.to_string()))?;
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    macro_rules! symbol {
        ($f:literal, $ty:ty) => {{
            let symbol = format!("{func}_{}\0", $f);
            // SAFETY: the shim defines the symbol with exactly this signature.
            *unsafe { lib.get::<$ty>(symbol.as_bytes()) }.map_err(|e| failed(name, "loading", e.to_string()))?
        }};
    }
    let fns = ModelFns {
        new: symbol!("new", unsafe extern "C" fn() -> *mut c_void),
        free: symbol!("free", unsafe extern "C" fn(*mut c_void)),
        set: symbol!("set", unsafe extern "C" fn(*mut c_void, u32, *const u32)),
        get: symbol!("get", unsafe extern "C" fn(*mut c_void, u32, *mut u32)),
        eval: symbol!("eval", unsafe extern "C" fn(*mut c_void)),
        tick: symbol!("tick", unsafe extern "C" fn(*mut c_void)),
        trace_open: symbol!("trace_open", unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int),
        trace_dumping: symbol!("trace_dumping", unsafe extern "C" fn(*mut c_void, c_int)),
        trace_close: symbol!("trace_close", unsafe extern "C" fn(*mut c_void)),
    };
    let ports: Vec<PortInfo> = ports
        .iter()
        .map(|p| PortInfo { name: Box::leak(p.name.clone().into_boxed_str()), width: p.width, input: p.input })
        .collect();
    Ok(Box::leak(Box::new(ModelEntry {
        name: Box::leak(name.to_string().into_boxed_str()),
        verilog: None,
        traced: true,
        verilog_lines: lines,
        ports: Box::leak(ports.into_boxed_slice()),
        fns,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counter with an enable, in rust-hdl's port style: built at run
    /// time, it counts like the Verilog says.
    #[test]
    fn a_built_model_runs_its_verilog() {
        let verilog = "module top(clock,enable,count);\n    input wire clock;\n    input wire enable;\n    output reg [7:0] count;\n\
                       initial count = 0;\nalways @(posedge clock) if (enable) count <= count + 8'd3;\nendmodule\n";
        let ports = shim::parse_ports(verilog).unwrap();
        assert_eq!(ports.len(), 3);
        let built = BuiltModel::build("counter_test", verilog, &ports, |_| {}).unwrap();
        let mut model = built.instance();
        let enable = model.input("enable").unwrap();
        let count = model.port("count").unwrap();
        model.set(enable, 1);
        for _ in 0..5 {
            model.tick();
        }
        model.set(enable, 0);
        model.tick();
        model.eval();
        assert_eq!(model.get(count), 15);
        // A second instance starts from the initial value.
        let mut second = built.instance();
        second.eval();
        assert_eq!(second.get(count), 0);
    }

    #[test]
    fn verilog_that_does_not_compile_is_a_typed_error() {
        let verilog = "module top(clock,q);\n    input wire clock;\n    output reg q;\nalways @(posedge clock) q <= nonesuch;\nendmodule\n";
        let ports = shim::parse_ports(verilog).unwrap();
        let err = BuiltModel::build("broken_test", verilog, &ports, |_| {}).unwrap_err();
        assert!(matches!(&err, SimError::Build { step, .. } if step == "verilator"), "{err}");
    }
}
