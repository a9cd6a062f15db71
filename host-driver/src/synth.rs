//! `ditto synth`: a configuration's board top through Yosys, nextpnr and icepack.
use crate::HostError;
use ditto_hw::Config;
use ditto_synth::{run_ice40_flow, FlowReport, FlowRequest};
use std::path::Path;

/// The Alchitry Cu pin file, built in so the command works from any directory.
pub const ALCHITRY_CU_PCF: &str = include_str!("../../constraints/alchitry-cu.pcf");

/// Default nextpnr seeds: tried in order until one meets timing.
pub const DEFAULT_SEEDS: &[u64] = &[1, 2, 3, 4, 5];

/// What to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Block {
    /// The whole-core board top ([`ditto_hw::board::CoreBoardTop`] built
    /// with [`ditto_hw::board::BoardSetup::CU`]): the product's top, and the
    /// bitstream the Cu runs.
    Core,
    /// The configuration's bare SHA-1 hasher (lanes and their input FIFOs),
    /// placed on the HX8K's ct256 package (its 198 ports outnumber the Cu's
    /// pins) only to measure its own logic cells and Fmax.
    Hasher,
}

/// Writes `out/ditto.v` and the pin file, then runs the flow on `block` of
/// `config` for `board`.
pub fn synth_block(
    board: &str,
    config: &Config,
    block: Block,
    out: &Path,
    seeds: &[u64],
) -> Result<FlowReport, HostError> {
    if board != "alchitry-cu" {
        return Err(HostError::UnknownBoard(board.to_string()));
    }
    std::fs::create_dir_all(out).map_err(|source| HostError::Write { path: out.into(), source })?;
    let verilog = out.join("ditto.v");
    let (source, pins, package) = match block {
        Block::Core => (
            ditto_hw::config::core_board_verilog(config, &ditto_hw::board::BoardSetup::CU)
                .ok_or(HostError::NoBoardTop(config.name))?,
            ALCHITRY_CU_PCF,
            ditto_synth::PACKAGE,
        ),
        Block::Hasher => {
            (ditto_hw::config::hasher_verilog(config), "# Block measurement: no pins are constrained.\n", "ct256")
        }
    };
    std::fs::write(&verilog, source).map_err(|source| HostError::Write { path: verilog.clone(), source })?;
    let pcf = out.join("pins.pcf");
    std::fs::write(&pcf, pins).map_err(|source| HostError::Write { path: pcf.clone(), source })?;
    let report = run_ice40_flow(&FlowRequest {
        verilog,
        top: "top".into(),
        pcf,
        out_dir: out.into(),
        target_mhz: config.clock_mhz as f64,
        seeds: seeds.to_vec(),
        board: match block {
            Block::Core => board.into(),
            Block::Hasher => format!("{board} (hasher block alone, HX8K ct256)"),
        },
        config: config.name.into(),
        package: package.into(),
    })?;
    Ok(report)
}
