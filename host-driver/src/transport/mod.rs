//! The ways of reaching a core, behind one trait ([`Transport`]), each a
//! sibling module that knows nothing of the others or of the driver above:
//! - [`model`]: the golden model alone (pure software);
//! - [`verilator`]: the emitted Verilog of a configuration's whole core
//!   under Verilator, checked against the golden model as it runs (only with
//!   the `verilator` cargo feature, on by default);
//! - [`board`]: the Cu's whole-core board top over its framed UART link, on
//!   a board (`serial:PATH`) or cosimulated through its pins (`board-cosim`).
//!
//! [`Backend`] is what `--backend` names, parsed once; [`Backend::open`]
//! makes its transport.
use ditto_hw::board::BoardSetup;
use ditto_hw::ftl::flash::Relocation;
use ditto_hw::ftl::model::Response;
use ditto_hw::ftl::{Op, Status};
use ditto_hw::index::model::IndexStats;
use ditto_hw::Config;
use ditto_sim::ditto_core::{CoreSetup, Job};
use ditto_sim::index::MemTiming;
use std::path::PathBuf;

pub mod board;
mod checked;
pub mod model;
#[cfg(feature = "verilator")]
pub mod verilator;

pub use checked::Checked;
pub use model::ModelTransport;
#[cfg(feature = "verilator")]
pub use verilator::CosimTransport;

/// One command's outcome: the response and the relocations made before it.
pub type Completion = (Response, Vec<Relocation>);

/// A way of reaching the core. Between two calls the core is idle long
/// enough for its background cleaner to drain its backlog, on every transport,
/// so all of them give the same results.
pub trait Transport {
    /// Runs `jobs` in order and returns their completions.
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, TransportError>;
    /// The index's counters.
    fn index_stats(&mut self) -> Result<IndexStats, TransportError>;
    /// Core clock cycles spent so far (0 where there is no clock).
    fn cycles(&self) -> u64;
    /// The transport's name, as `--backend` spells it.
    fn name(&self) -> String;
}

impl<T: Transport + ?Sized> Transport for Box<T> {
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, TransportError> {
        (**self).execute(jobs)
    }
    fn index_stats(&mut self) -> Result<IndexStats, TransportError> {
        (**self).index_stats()
    }
    fn cycles(&self) -> u64 {
        (**self).cycles()
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

/// What `--backend` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// `verilator`: the whole core of the configuration, cosimulated.
    Verilator,
    /// `model`: the golden model.
    Model,
    /// `board-cosim`: the Cu's board top (built with
    /// [`BoardSetup::COSIM`]) cosimulated through its UART pins.
    BoardCosim,
    /// `serial:PATH`: the Alchitry Cu over its USB UART (built with
    /// [`BoardSetup::CU`]).
    Serial(PathBuf),
}

impl std::str::FromStr for Backend {
    type Err = TransportError;
    fn from_str(s: &str) -> Result<Self, TransportError> {
        match s {
            "verilator" => Ok(Backend::Verilator),
            "model" => Ok(Backend::Model),
            "board-cosim" => Ok(Backend::BoardCosim),
            _ => match s.strip_prefix("serial:") {
                Some(path) if !path.is_empty() => Ok(Backend::Serial(PathBuf::from(path))),
                _ => Err(TransportError::UnknownBackend(s.to_string())),
            },
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backend::Verilator => f.write_str("verilator"),
            Backend::Model => f.write_str("model"),
            Backend::BoardCosim => f.write_str("board-cosim"),
            Backend::Serial(path) => write!(f, "serial:{}", path.display()),
        }
    }
}

impl serde::Serialize for Backend {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The configuration a board is built as (the only one that fits it).
pub const BOARD_CONFIG: &str = "cu";

impl Backend {
    /// True for the backends that reach a board top (with its own fixed
    /// configuration and geometry).
    pub fn is_board(&self) -> bool {
        matches!(self, Backend::BoardCosim | Backend::Serial(_))
    }

    /// The board this backend reaches, with its fixed geometry (`None` for
    /// the backends that take any geometry). Boards exist for `cu` only.
    pub fn board(&self, config: &Config) -> Result<Option<BoardSetup>, TransportError> {
        let board = match self {
            Backend::BoardCosim => BoardSetup::COSIM,
            Backend::Serial(_) => BoardSetup::CU,
            Backend::Verilator | Backend::Model => return Ok(None),
        };
        if config.name != BOARD_CONFIG {
            return Err(TransportError::BoardNeedsCu { backend: self.clone(), config: config.name });
        }
        Ok(Some(board))
    }

    /// Refuses a setup with an NVM cache on a backend whose core has none:
    /// a configuration built without it, or a board (whose build gives the
    /// FTL no slots, see the README).
    pub fn check_nvm(&self, config: &Config, setup: &CoreSetup) -> Result<(), TransportError> {
        if !setup.nvm.enabled() {
            return Ok(());
        }
        match self {
            Backend::Model => Ok(()),
            _ if self.is_board() => {
                Err(TransportError::NvmNotOnBoard { backend: self.clone(), slots: setup.nvm.slots })
            }
            _ if !config.ftl_nvm_cache => {
                Err(TransportError::NvmNotBuilt { config: config.name, slots: setup.nvm.slots })
            }
            _ => Ok(()),
        }
    }

    /// The board's core setup, for a device of `lpas` pages on `devices`
    /// devices, which its geometry must hold (`None` for the backends that
    /// take any geometry).
    pub fn board_core_setup(
        &self,
        config: &Config,
        lpas: u32,
        devices: u32,
    ) -> Result<Option<CoreSetup>, TransportError> {
        let Some(board) = self.board(config)? else {
            return Ok(None);
        };
        if lpas > board.lpas || devices != board.geometry.devices {
            return Err(TransportError::BoardGeometry {
                backend: self.clone(),
                board_lpas: board.lpas,
                board_devices: board.geometry.devices,
                lpas,
                devices,
            });
        }
        Ok(Some(CoreSetup {
            lpas: board.lpas,
            geometry: board.geometry,
            array_wide: board.array_wide,
            bloom: true,
            refcount_max: board.refcount_max,
            memory: MemTiming::fixed(2),
            nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
        }))
    }

    /// The transport to the core of `config` built with `setup` (for a
    /// board, the setup [`Backend::board_core_setup`] gave), checked
    /// against the golden model ([`Checked`]) when `check` says so and
    /// always for a cosimulation (`verilator` checks itself, finer).
    pub fn open(&self, config: &Config, setup: CoreSetup, check: bool) -> Result<Box<dyn Transport>, TransportError> {
        self.check_nvm(config, &setup)?;
        let transport = self.open_unchecked(config, setup)?;
        let wrap = match self {
            // The model is the golden model; `CoreSim` checks every command.
            Backend::Model | Backend::Verilator => false,
            // A cosimulation is always checked.
            Backend::BoardCosim => true,
            Backend::Serial(_) => check,
        };
        Ok(if wrap { Box::new(Checked::new(transport, setup.core_config(config))) } else { transport })
    }

    fn open_unchecked(&self, config: &Config, setup: CoreSetup) -> Result<Box<dyn Transport>, TransportError> {
        match self {
            Backend::Model => Ok(Box::new(ModelTransport::new(setup.core_config(config)))),
            #[cfg(feature = "verilator")]
            Backend::Verilator => Ok(Box::new(CosimTransport::new(config, setup)?)),
            #[cfg(feature = "verilator")]
            Backend::BoardCosim => {
                // The cosimulation model is built with `BoardSetup::COSIM`.
                self.board(config)?;
                let model = ditto_sim::Model::new(board::BOARD_MODEL)?;
                let pipe = board::CosimUartPipe::attach(Box::new(model))?;
                Ok(Box::new(board::LinkTransport::connect(pipe)?))
            }
            #[cfg(not(feature = "verilator"))]
            Backend::Verilator | Backend::BoardCosim => Err(TransportError::NotBuilt(self.clone())),
            Backend::Serial(path) => {
                let board = self.board(config)?.expect("a board backend");
                let baud = config.clock_mhz * 1_000_000 / board.cycles_per_bit;
                let pipe = board::SerialPipe::open(path, baud)?;
                Ok(Box::new(board::LinkTransport::connect(pipe)?))
            }
        }
    }
}

/// A response the golden model did not give: what a transport checked
/// against the model, and where they parted.
#[derive(Debug, thiserror::Error)]
pub enum Divergence {
    #[error("op {op} of LPA {lpa}: it answered {got:?} {got_value} flags {got_flags} after moves {got_moves:?}; the model {want:?} {want_value} flags {want_flags} after {want_moves:?}")]
    Response {
        op: u8,
        lpa: u32,
        got: Status,
        got_value: u32,
        got_flags: u8,
        got_moves: Vec<(u32, u32)>,
        want: Status,
        want_value: u32,
        want_flags: u8,
        want_moves: Vec<(u32, u32)>,
    },
    #[error("it answered {completions} of {jobs} commands")]
    Count { jobs: usize, completions: usize },
    #[error("index counters {got:?}, the model's {want:?}")]
    IndexStats { got: IndexStats, want: IndexStats },
}

/// Everything a transport can fail with.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("unknown backend `{0}`; known: verilator, model, board-cosim, serial:PATH")]
    UnknownBackend(String),
    #[error("--backend {backend} reaches the Alchitry Cu's board top: use --config cu, not {config}")]
    BoardNeedsCu { backend: Backend, config: &'static str },
    #[error("--backend {backend}: the board serves {board_lpas} pages of 4 KiB on {board_devices} device(s), not {lpas} pages on {devices}")]
    BoardGeometry { backend: Backend, board_lpas: u32, board_devices: u32, lpas: u32, devices: u32 },
    #[error("--backend {0} needs the `verilator` cargo feature; this ditto was built without it")]
    NotBuilt(Backend),
    #[error("--backend {backend}: the board's build has no NVM cache ({slots} slots asked for); use --backend verilator or model, or no --nvm-slots")]
    NvmNotOnBoard { backend: Backend, slots: u32 },
    #[error("--config {config} is built without the NVM cache ({slots} slots asked for); use --backend model, or no --nvm-slots")]
    NvmNotBuilt { config: &'static str, slots: u32 },
    #[error(transparent)]
    Sim(#[from] ditto_sim::SimError),
    #[error("the cosimulated core failed: {0}")]
    Cosim(Box<ditto_sim::ditto_core::CoreError>),
    #[error("serial port {path}: {source}")]
    Serial { path: PathBuf, source: serialport::Error },
    #[error("serial port {path}: {source}")]
    SerialIo { path: PathBuf, source: std::io::Error },
    #[error("{link}: no response to command {tag} (op {op} of LPA {lpa}) after {tries} requests for it (does the board run the whole-core board top of `ditto synth --config cu`?)")]
    NoResponse { link: String, tag: u8, op: u8, lpa: u32, tries: u32 },
    #[error("{link}: the board answered {status:?} to {op:?}")]
    Refused { link: String, op: Op, status: Status },
    #[error("{link}: the board sent an unexpected {kind:?} frame")]
    UnexpectedFrame { link: String, kind: char },
    #[error("{link}: the board answered command {tag} with status byte {status}, which names no status")]
    BadStatus { link: String, tag: u8, status: u8 },
    #[error("{transport} diverged from the golden model: {what}")]
    Diverged { transport: String, what: Box<Divergence> },
}

impl From<ditto_sim::ditto_core::CoreError> for TransportError {
    fn from(e: ditto_sim::ditto_core::CoreError) -> Self {
        TransportError::Cosim(Box::new(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backend_is_parsed_once_and_printed_as_it_was_given() {
        for text in ["verilator", "model", "board-cosim", "serial:/dev/ttyUSB1"] {
            let backend: Backend = text.parse().unwrap();
            assert_eq!(backend.to_string(), text);
        }
        assert_eq!("serial:/dev/x".parse::<Backend>().unwrap(), Backend::Serial("/dev/x".into()));
        for bad in ["", "Verilator", "serial:", "serial", "board"] {
            let err = bad.parse::<Backend>().unwrap_err();
            assert!(matches!(&err, TransportError::UnknownBackend(b) if b == bad), "{bad}: {err}");
        }
    }

    #[test]
    fn a_board_backend_needs_the_cu_and_holds_only_its_own_geometry() {
        use ditto_hw::config::{CU, LARGE};
        let cosim = Backend::BoardCosim;
        assert!(matches!(cosim.board(&LARGE), Err(TransportError::BoardNeedsCu { config: "large", .. })));
        assert_eq!(Backend::Model.board(&LARGE).unwrap(), None);
        let board = cosim.board(&CU).unwrap().unwrap();
        assert_eq!(Backend::Verilator.board_core_setup(&CU, 1 << 20, 8).unwrap(), None);
        let setup = cosim.board_core_setup(&CU, board.lpas, board.geometry.devices).unwrap().unwrap();
        assert_eq!((setup.lpas, setup.geometry), (board.lpas, board.geometry));
        let err = cosim.board_core_setup(&CU, board.lpas + 1, 1).unwrap_err();
        assert!(matches!(err, TransportError::BoardGeometry { lpas, .. } if lpas == board.lpas + 1), "{err}");
    }
}
