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
    #[error("{0}")]
    InvalidArgument(String),
    #[error(transparent)]
    Driver(#[from] crate::driver::DriverError),
    #[error(transparent)]
    Nbd(#[from] crate::nbd::NbdError),
    #[error(transparent)]
    Trace(#[from] crate::replay::TraceError),
    #[error(transparent)]
    Ingest(#[from] crate::ingest::IngestError),
    #[error("unknown board `{0}`; known boards: alchitry-cu")]
    UnknownBoard(String),
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
