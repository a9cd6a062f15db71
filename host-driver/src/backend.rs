//! The backends `--backend` names, as transports: the one place that knows
//! them all (the driver's own transports and the board link's).
use crate::driver::{board_setup, CosimTransport, DriverError, ModelTransport, Transport};
use ditto_hw::Config;
use ditto_sim::ditto_core::CoreSetup;

/// The transport `--backend` names: `verilator` (the whole core of `config`
/// cosimulated), `model`, `serial:PATH` (the Alchitry Cu over its USB UART,
/// built with [`BoardSetup::CU`](ditto_hw::board::BoardSetup::CU)) or `board-cosim` (the Cu's board top
/// cosimulated through its UART pins, built with [`BoardSetup::COSIM`](ditto_hw::board::BoardSetup::COSIM)).
/// The board backends have their own fixed geometry: see [`board_setup`].
pub fn transport(backend: &str, config: &Config, setup: CoreSetup) -> Result<Box<dyn Transport>, DriverError> {
    match backend {
        "verilator" => Ok(Box::new(CosimTransport::new(config, setup)?)),
        "model" => Ok(Box::new(ModelTransport::new(setup.core_config(config)))),
        "board-cosim" => {
            let board = board_setup(backend, config)?.expect("a board backend");
            let model =
                ditto_sim::Model::new(crate::link::BOARD_MODEL).map_err(|e| DriverError::Core(e.to_string()))?;
            let pipe = crate::link::CosimUartPipe::attach(Box::new(model))?;
            Ok(Box::new(crate::link::LinkTransport::connect(pipe, config, board)?))
        }
        other if other.starts_with("serial:") => {
            let board = board_setup(backend, config)?.expect("a board backend");
            let baud = config.clock_mhz * 1_000_000 / board.cycles_per_bit;
            let pipe = crate::link::SerialPipe::open(&other["serial:".len()..], baud)?;
            Ok(Box::new(crate::link::LinkTransport::connect(pipe, config, board)?))
        }
        other => Err(DriverError::Backend(format!(
            "unknown backend `{other}`; known: verilator, model, board-cosim, serial:PATH"
        ))),
    }
}
