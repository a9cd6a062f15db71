//! A Verilated model behind a safe API: ports by name, one clock, waveforms.
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::{Path, PathBuf};

/// One port of a model's top module.
#[derive(Clone, Copy, Debug)]
pub struct PortInfo {
    pub name: &'static str,
    pub width: u32,
    pub input: bool,
}

#[derive(Clone, Copy)]
pub(crate) struct ModelFns {
    pub(crate) new: unsafe extern "C" fn() -> *mut c_void,
    pub(crate) free: unsafe extern "C" fn(*mut c_void),
    pub(crate) set: unsafe extern "C" fn(*mut c_void, u32, *const u32),
    pub(crate) get: unsafe extern "C" fn(*mut c_void, u32, *mut u32),
    pub(crate) eval: unsafe extern "C" fn(*mut c_void),
    pub(crate) tick: unsafe extern "C" fn(*mut c_void),
    pub(crate) trace_open: unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int,
    pub(crate) trace_dumping: unsafe extern "C" fn(*mut c_void, c_int),
    pub(crate) trace_close: unsafe extern "C" fn(*mut c_void),
}

pub(crate) struct ModelEntry {
    pub(crate) name: &'static str,
    /// The Verilog the model was built from (compiled-in models), for a
    /// traced twin built at run time.
    pub(crate) verilog: Option<&'static str>,
    /// Built with `--trace`: it can write waveforms.
    pub(crate) traced: bool,
    pub(crate) verilog_lines: usize,
    pub(crate) ports: &'static [PortInfo],
    pub(crate) fns: ModelFns,
}

include!(concat!(env!("OUT_DIR"), "/models.rs"));

/// Errors of the simulation bridge.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("no model `{name}` is compiled into ditto-sim: it was built without its `verilator` feature")]
    NoModels { name: String },
    #[error("no model `{name}` is compiled into ditto-sim; models: {known}")]
    UnknownModel { name: String, known: String },
    #[error("model `{model}` has no port `{port}`")]
    UnknownPort { model: String, port: String },
    #[error("port `{port}` of model `{model}` is an output and cannot be driven")]
    NotAnInput { model: String, port: String },
    #[error("cannot write waveform {path}: {reason}")]
    Waveform { path: PathBuf, reason: String },
    #[error("{0}")]
    Protocol(String),
    #[error("cannot build model `{model}`: {step} failed: {detail}")]
    Build { model: String, step: String, detail: String },
}

/// The compiled-in model `name`.
fn compiled_entry(name: &str) -> Result<&'static ModelEntry, SimError> {
    if MODELS.is_empty() {
        return Err(SimError::NoModels { name: name.to_string() });
    }
    MODELS
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| SimError::UnknownModel { name: name.to_string(), known: model_names().join(", ") })
}

/// Names of the models compiled into this crate.
pub fn model_names() -> Vec<&'static str> {
    MODELS.iter().map(|m| m.name).collect()
}

/// Lines of Verilog the model was built from.
pub fn model_verilog_lines(name: &str) -> Option<usize> {
    MODELS.iter().find(|m| m.name == name).map(|m| m.verilog_lines)
}

/// Index of a port, resolved once by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortId(u32);

/// One instance of a Verilated model. The clock is the port `clock`, driven by
/// [`Model::tick`]; every other input is set with [`Model::set`].
pub struct Model {
    entry: &'static ModelEntry,
    handle: *mut c_void,
    cycles: u64,
    waveform: Option<PathBuf>,
    record_from: Option<u64>,
    scratch: [u32; 32],
}

impl Model {
    /// Instantiates the model `name` (e.g. `hasher_cu`).
    pub fn new(name: &str) -> Result<Self, SimError> {
        Ok(Self::of_entry(compiled_entry(name)?))
    }

    /// A fresh instance of the model `name` that can write waveforms: the
    /// compiled-in models are built without tracing (which makes them
    /// faster), so the first call for a name Verilates a twin of it with
    /// `--trace` from the same Verilog (a minute or so for the largest),
    /// kept for the rest of the process.
    pub fn traced(name: &str) -> Result<Self, SimError> {
        let entry = compiled_entry(name)?;
        if entry.traced {
            return Ok(Self::of_entry(entry));
        }
        let verilog = entry.verilog.ok_or_else(|| SimError::Build {
            model: name.into(),
            step: "finding its Verilog".into(),
            detail: "the model carries none".into(),
        })?;
        let ports: Vec<crate::shim::Port> = entry
            .ports
            .iter()
            .map(|p| crate::shim::Port { name: p.name.into(), width: p.width, input: p.input })
            .collect();
        Ok(crate::built::BuiltModel::cached(&format!("{name}_traced"), verilog, &ports)?.instance())
    }

    /// Whether this model can write waveforms (see [`Model::traced`]).
    pub fn can_trace(&self) -> bool {
        self.entry.traced
    }

    /// A fresh instance of a compiled-in or built model.
    pub(crate) fn of_entry(entry: &'static ModelEntry) -> Self {
        // SAFETY: the shim allocates a fresh instance; it is freed exactly once in Drop.
        let handle = unsafe { (entry.fns.new)() };
        assert!(!handle.is_null());
        Self { entry, handle, cycles: 0, waveform: None, record_from: None, scratch: [0; 32] }
    }

    /// Lines of the Verilog the model was built from.
    pub fn verilog_lines(&self) -> usize {
        self.entry.verilog_lines
    }

    /// The model's name.
    pub fn name(&self) -> &'static str {
        self.entry.name
    }

    /// The model's ports.
    pub fn ports(&self) -> &'static [PortInfo] {
        self.entry.ports
    }

    /// Resolves a port by name.
    pub fn port(&self, name: &str) -> Result<PortId, SimError> {
        self.entry
            .ports
            .iter()
            .position(|p| p.name == name)
            .map(|i| PortId(i as u32))
            .ok_or_else(|| SimError::UnknownPort { model: self.entry.name.into(), port: name.into() })
    }

    /// Resolves an input port by name.
    pub fn input(&self, name: &str) -> Result<PortId, SimError> {
        let id = self.port(name)?;
        if !self.entry.ports[id.0 as usize].input {
            return Err(SimError::NotAnInput { model: self.entry.name.into(), port: name.into() });
        }
        Ok(id)
    }

    /// Name of a port.
    pub fn port_name(&self, port: PortId) -> &'static str {
        self.entry.ports[port.0 as usize].name
    }

    fn check_input(&self, port: PortId) {
        assert!(self.entry.ports[port.0 as usize].input, "port {} is an output", self.port_name(port));
    }

    /// Width of a port in bits.
    pub fn width(&self, port: PortId) -> u32 {
        self.entry.ports[port.0 as usize].width
    }

    /// Drives an input of up to 64 bits (wider ones: [`Model::set_words`]).
    pub fn set(&mut self, port: PortId, value: u64) {
        self.check_input(port);
        let width = self.width(port);
        assert!(width <= 64, "port {} is wider than 64 bits: use set_words", self.port_name(port));
        // Verilator expects the bits above a port's width to be zero.
        let value = if width == 64 { value } else { value & ((1u64 << width) - 1) };
        let words = [value as u32, (value >> 32) as u32];
        // SAFETY: the port is at most 64 bits, so the shim reads at most two words.
        unsafe { (self.entry.fns.set)(self.handle, port.0, words.as_ptr()) }
    }

    /// Drives a wide input from 32-bit words, least significant first.
    pub fn set_words(&mut self, port: PortId, words: &[u32]) {
        self.check_input(port);
        let needed = self.width(port).div_ceil(32) as usize;
        assert!(words.len() >= needed, "port needs {needed} words");
        let spare = self.width(port) % 32;
        assert!(spare == 0 || words[needed - 1] >> spare == 0, "value wider than port {}", self.port_name(port));
        // SAFETY: `words` holds at least as many words as the port has.
        unsafe { (self.entry.fns.set)(self.handle, port.0, words.as_ptr()) }
    }

    /// Reads a port of up to 64 bits (wider ones: [`Model::get_words`]).
    pub fn get(&mut self, port: PortId) -> u64 {
        assert!(self.width(port) <= 64, "port {} is wider than 64 bits: use get_words", self.port_name(port));
        let mut words = [0u32; 2];
        // SAFETY: the port is at most 64 bits, so the shim writes at most two words.
        unsafe { (self.entry.fns.get)(self.handle, port.0, words.as_mut_ptr()) }
        words[0] as u64 | ((words[1] as u64) << 32)
    }

    /// Reads a wide port as 32-bit words, least significant first.
    pub fn get_words(&mut self, port: PortId) -> &[u32] {
        let n = self.width(port).div_ceil(32) as usize;
        assert!(n <= self.scratch.len(), "port wider than 1024 bits");
        // SAFETY: the scratch buffer holds 32 words; the shim writes `n` of them.
        unsafe { (self.entry.fns.get)(self.handle, port.0, self.scratch.as_mut_ptr()) }
        &self.scratch[..n]
    }

    /// Settles combinational logic after inputs changed.
    pub fn eval(&mut self) {
        // SAFETY: handle is live.
        unsafe { (self.entry.fns.eval)(self.handle) }
    }

    /// One clock cycle (rising then falling edge).
    pub fn tick(&mut self) {
        if self.record_from == Some(self.cycles) {
            self.record_from = None;
            self.set_waveform_recording(true);
        }
        // SAFETY: handle is live.
        unsafe { (self.entry.fns.tick)(self.handle) }
        self.cycles += 1;
    }

    /// Clock cycles since the model was created.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Starts writing a VCD waveform to `path` (recording from now on, until
    /// [`Model::set_waveform_recording`] turns it off or the model is dropped).
    pub fn start_waveform(&mut self, path: &Path) -> Result<(), SimError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| SimError::Waveform { path: path.into(), reason: e.to_string() })?;
        }
        let c_path = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|e| SimError::Waveform { path: path.into(), reason: e.to_string() })?;
        // SAFETY: handle is live; the shim copies the path.
        let rc = unsafe { (self.entry.fns.trace_open)(self.handle, c_path.as_ptr()) };
        if rc != 0 {
            return Err(SimError::Waveform {
                path: path.into(),
                reason: match rc {
                    1 => "a waveform is already open".into(),
                    3 => format!("model `{}` is built without tracing: use `Model::traced`", self.entry.name),
                    _ => "open failed".into(),
                },
            });
        }
        self.waveform = Some(path.into());
        self.set_waveform_recording(true);
        Ok(())
    }

    /// Opens a VCD waveform at `path` that starts recording at cycle `from`
    /// (counted like [`Model::cycles`]), so that a long run records only its end.
    pub fn start_waveform_at(&mut self, path: &Path, from: u64) -> Result<(), SimError> {
        self.start_waveform(path)?;
        if from > self.cycles {
            self.set_waveform_recording(false);
            self.record_from = Some(from);
        }
        Ok(())
    }

    /// Pauses or resumes recording into the open waveform.
    pub fn set_waveform_recording(&mut self, on: bool) {
        // SAFETY: handle is live.
        unsafe { (self.entry.fns.trace_dumping)(self.handle, on as c_int) }
    }

    /// Closes the waveform, if one is open, and returns its path.
    pub fn finish_waveform(&mut self) -> Option<PathBuf> {
        // SAFETY: handle is live.
        unsafe { (self.entry.fns.trace_close)(self.handle) }
        self.waveform.take()
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: handle was created by `new` and is freed once; this also closes any waveform.
        unsafe { (self.entry.fns.free)(self.handle) }
    }
}

/// Where failing cosimulations write their waveforms: `$DITTO_WAVEFORM_DIR`,
/// or `target/waveforms` under the workspace.
pub fn waveform_dir() -> PathBuf {
    std::env::var_os("DITTO_WAVEFORM_DIR").map(PathBuf::from).unwrap_or_else(|| {
        let sim_crate = Path::new(env!("CARGO_MANIFEST_DIR"));
        sim_crate.parent().unwrap_or(sim_crate).join("target").join("waveforms")
    })
}
