//! The driver's one error type.
use std::path::PathBuf;

/// Everything the host driver can fail with.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(transparent)]
    Config(#[from] ditto_hw::config::ConfigError),
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cosimulation failed: {0}")]
    Cosim(#[from] ditto_sim::hasher::HashError),
    #[error("index cosimulation failed: {0}")]
    IndexCosim(Box<ditto_sim::index::IndexError>),
    #[error("core cosimulation failed: {0}")]
    CoreCosim(Box<ditto_sim::ditto_core::CoreError>),
    #[error(transparent)]
    Sim(#[from] ditto_sim::SimError),
    #[error(transparent)]
    Synth(#[from] ditto_synth::SynthError),
    /// A name (of a module, a proof, a workload) that names nothing.
    #[error("no {kind} named {name:?}; the {kind}s are {known}")]
    UnknownName { kind: &'static str, name: String, known: String },
    /// A number outside what the command takes.
    #[error("{option} {value}: give {allowed}")]
    OutOfRange { option: &'static str, value: u64, allowed: String },
    /// Fewer pages than a benchmark needs to reach its steady state.
    #[error("at least {min} pages are needed {why}, got {got}")]
    TooFewPages { min: usize, got: usize, why: String },
    #[error("configuration `{0}` keeps its index table in external memory and has no board top; use --config cu")]
    NoBoardTop(&'static str),
    /// A tool this command runs could not start.
    #[error("cannot run {tool} ({source}){hint}")]
    Tool { tool: String, hint: &'static str, source: std::io::Error },
    /// A synthesis report that cannot give what a command needs of it.
    #[error("synthesis report {path}: {detail}")]
    BadReport { path: PathBuf, detail: String },
    #[error("fio {job} failed: {output}")]
    FioFailed { job: &'static str, output: String },
    #[error("fio {job}: unreadable JSON ({source})")]
    FioJson { job: &'static str, source: serde_json::Error },
    #[error("no free loopback port: {0}")]
    NoPort(std::io::Error),
    #[error("ditto serve did not listen on {0}")]
    NotListening(String),
    #[error("drawing {path}: {detail}")]
    Plot { path: PathBuf, detail: String },
    #[error("the benchmark's stream was not all {0:?}: a benchmark that measures something else")]
    StreamNotAll(ditto_hw::ftl::Status),
    #[error("{target}: the design has no `module top`")]
    NoModuleTop { target: &'static str },
    #[error("{target}: the suite fails on the design itself (seed {seed}), so it can judge no mutant: {failure}")]
    SuiteFailsOnDesign { target: &'static str, seed: u64, failure: Box<crate::mutants::SuiteFailure> },
    #[error("{0}")]
    PlantedBug(String),
    #[error(transparent)]
    Driver(#[from] crate::driver::DriverError),
    #[error(transparent)]
    Nbd(#[from] crate::nbd::NbdError),
    #[error(transparent)]
    Trace(#[from] crate::replay::TraceError),
    #[error(transparent)]
    Ingest(#[from] crate::ingest::IngestError),
    /// Options that do not go together; the message says which and why.
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Figures(#[from] crate::figures::FiguresError),
    #[error(transparent)]
    Size(#[from] crate::limits::SizeError),
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
    #[error(transparent)]
    Transport(#[from] crate::transport::TransportError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}
