//! The plain values of a core cosimulation: jobs, the setup, the host's
//! traffic and a run's result. Nothing here needs a model (they build
//! without the `verilator` feature).
use crate::hasher::sha1_of;
use crate::index::MemTiming;
use ditto_hw::ftl::flash::{Geometry, Relocation};
use ditto_hw::ftl::model::{Command, CoreConfig, Response};
use ditto_hw::ftl::nvm::NvmConfig;
use ditto_hw::ftl::settings::FtlSettingsValues;
use ditto_hw::Config;

/// A 4 KiB page.
pub type Page = [u8; 4096];

/// One command and, for a `WRITE`, its page.
#[derive(Clone, Debug)]
pub struct Job {
    pub cmd: Command,
    pub page: Option<Box<Page>>,
}

impl Job {
    /// The command as the golden model sees it (a `WRITE` carries its page's SHA-1).
    pub fn model_command(&self) -> Command {
        let mut cmd = self.cmd;
        if let Some(page) = &self.page {
            cmd.fp = sha1_of(page);
        }
        cmd
    }
}

/// How the core is set up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoreSetup {
    pub lpas: u32,
    pub geometry: Geometry,
    pub array_wide: bool,
    pub bloom: bool,
    /// A page's reference-count limit (`cfg_refcount_max`, 1 to
    /// [`ditto_hw::ftl::REFCOUNT_MAX`]).
    pub refcount_max: u32,
    /// Timing of all three memories.
    pub memory: MemTiming,
    /// The NVM write cache in front of the flash (seed 003): in the
    /// golden model, and in the RTL of a configuration built with it
    /// (`Config::ftl_nvm_cache`), through `cfg$nvm_*`.
    pub nvm: NvmConfig,
}

impl CoreSetup {
    /// The golden model's parameters for this setup on `config`.
    pub fn core_config(&self, config: &Config) -> CoreConfig {
        CoreConfig {
            lpas: self.lpas,
            geometry: self.geometry,
            index_bucket_bits: config.index_bucket_bits,
            bloom: self.bloom,
            array_wide: self.array_wide,
            refcount_max: self.refcount_max,
            nvm: self.nvm,
        }
    }

    /// What the core's FTL settings port (`cfg$*`) carries for this setup.
    pub fn ftl_settings(&self) -> FtlSettingsValues {
        FtlSettingsValues::new(&self.geometry, self.lpas, self.array_wide, self.refcount_max).with_nvm(self.nvm)
    }
}

/// Stall probabilities on the host side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostTraffic {
    pub cmd_valid: f64,
    pub page_valid: f64,
    pub rsp_ready: f64,
    pub mv_ready: f64,
    pub seed: u64,
}

impl HostTraffic {
    pub const FULL_SPEED: HostTraffic =
        HostTraffic { cmd_valid: 1.0, page_valid: 1.0, rsp_ready: 1.0, mv_ready: 1.0, seed: 0 };
}

/// A run's result.
#[derive(Clone, Debug, Default)]
pub struct CoreRun {
    pub responses: Vec<Response>,
    /// Relocations taken before each response.
    pub moves: Vec<Vec<Relocation>>,
    /// Cleaner steps (in idle gaps) finished before each command ran.
    pub cleaner_steps: Vec<u32>,
    /// Cleaner steps after the last response.
    pub trailing_cleaner_steps: u32,
    /// Cycles from the first command offered to the last response taken.
    pub cycles: u64,
    /// Cycle (from the run's start) each command was taken into the slot on.
    pub taken_at: Vec<u64>,
    /// Cycle (from the run's start) each response left on.
    pub answered_at: Vec<u64>,
    /// Cycle (from the run's start) the last word of each job's page went in.
    pub page_done_at: Vec<Option<u64>>,
}
