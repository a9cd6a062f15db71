//! The board link, host side. [`LinkTransport`] speaks the framed protocol
//! of [`ditto_hw::board::protocol`] to a whole-core board top through a
//! [`BytePipe`]: the Alchitry Cu's USB UART ([`SerialPipe`]) or the
//! cosimulated top's UART pins, driven bit by bit ([`CosimUartPipe`], with
//! the `verilator` feature). A test damages the link with
//! `faults::FaultyPipe` (the `fault-injection` feature, which only the
//! system tests turn on): the production pipes carry no fault injection.
use super::TransportError;
use ditto_hw::board::BoardSetup;
use ditto_hw::config::Config;
use ditto_hw::ftl::model::CoreConfig;

#[cfg(feature = "verilator")]
mod cosim;
#[cfg(feature = "fault-injection")]
pub mod faults;
mod link;
mod serial;

#[cfg(feature = "verilator")]
pub use cosim::{CosimUartPipe, BOARD_MODEL};
pub use link::{LinkStats, LinkTransport};
pub use serial::SerialPipe;

/// A byte stream to and from a board.
pub trait BytePipe {
    /// Sends `bytes` (one frame) and waits until they are on their way.
    fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError>;
    /// Appends the bytes that arrive within the pipe's patience to `into`;
    /// false when none did.
    fn recv(&mut self, into: &mut Vec<u8>) -> Result<bool, TransportError>;
    /// Clock cycles simulated so far (0 for a real board).
    fn cycles(&self) -> u64 {
        0
    }
    /// What the pipe reaches.
    fn name(&self) -> String;
}

/// The golden model's parameters for the board of `config` built with `setup`.
pub fn board_core_config(config: &Config, setup: &BoardSetup) -> CoreConfig {
    CoreConfig {
        lpas: setup.lpas,
        geometry: setup.geometry,
        index_bucket_bits: config.index_bucket_bits,
        bloom: true,
        array_wide: setup.array_wide,
        refcount_max: setup.refcount_max,
        nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
    }
}
