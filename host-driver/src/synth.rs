//! `ditto synth`: a configuration through Yosys, nextpnr and the bitstream
//! packer, for the Alchitry Cu (iCE40-HX8K) or the ULX3S (ECP5 LFE5U-85F).
use crate::HostError;
use ditto_hw::Config;
use ditto_synth::ecp5_pll::Ecp5Pll;
use ditto_synth::{run_flow, Device, FlowReport, FlowRequest};
use std::path::Path;

/// The Alchitry Cu pin file, built in so the command works from any directory.
pub const ALCHITRY_CU_PCF: &str = include_str!("../../constraints/alchitry-cu.pcf");
/// The ULX3S pin file of its shell (`ulx3s_top`).
pub const ULX3S_LPF: &str = include_str!("../../constraints/ulx3s-85f.lpf");
/// The ULX3S pin file of a block in a pin harness.
pub const ULX3S_HARNESS_LPF: &str = include_str!("../../constraints/ulx3s-85f-harness.lpf");

/// Default nextpnr seeds: tried in order until one meets timing. Seed 5
/// first: on the present netlist it is the one of 1-5 whose placement of
/// the Cu's whole core meets 100 MHz (the README's figures name the seed),
/// so a build stops after one place and route instead of five. Any change
/// to the Verilog deals the placements again, and then the others follow.
pub const DEFAULT_SEEDS: &[u64] = &[5, 1, 2, 3, 4];

/// The ULX3S's oscillator.
const ULX3S_OSCILLATOR_MHZ: u32 = 25;

/// The flash a core in a pin harness is built for: four devices of 1,024
/// blocks of 64 pages (1 GiB each), eight blocks per device kept back.
/// A board ties its FTL's settings to constants, so the harness does too:
/// timing paths from settings that never change would be no measurement.
pub const HARNESS_GEOMETRY: ditto_hw::ftl::flash::Geometry =
    ditto_hw::ftl::flash::Geometry { devices: 4, blocks_per_device: 1024, pages_per_block: 64, reserve_blocks: 8 };
/// The logical pages a core in a pin harness serves (512 MiB).
pub const HARNESS_LPAS: u32 = 1 << 17;
/// The NVM write cache a core in a pin harness has: a tenth of the logical
/// space (where `ditto bench nvm` first halves GC's copy-outs), cooperative.
/// With no slots synthesis would remove the cache's states, and the figures
/// would be of a core without the cache it is built with.
pub const HARNESS_NVM: ditto_hw::ftl::nvm::NvmConfig =
    ditto_hw::ftl::nvm::NvmConfig { slots: HARNESS_LPAS / 10, cooperative: true };

/// The inputs of a bare core that a board holds steady: the FTL's settings
/// for [`HARNESS_GEOMETRY`] with the cache [`HARNESS_NVM`], the Bloom
/// filters on, every lookup FSM in use (as the board top drives them).
fn core_static_inputs() -> Vec<(&'static str, u64)> {
    let settings = ditto_hw::ftl::settings::FtlSettingsValues::new(
        &HARNESS_GEOMETRY,
        HARNESS_LPAS,
        true,
        ditto_hw::ftl::REFCOUNT_MAX,
    )
    .with_nvm(HARNESS_NVM);
    let mut tied = settings.pins().to_vec();
    tied.extend([("bloom_enable", 1), ("fsm_limit_log2", 7)]);
    tied
}

/// The boards `ditto synth` builds for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Board {
    /// Alchitry Cu: iCE40-HX8K (cb132), 100 MHz oscillator, FTDI UART.
    #[value(name = "alchitry-cu")]
    AlchitryCu,
    /// ULX3S: ECP5 LFE5U-85F-6 (CABGA381), 25 MHz oscillator into the
    /// ECP5's PLL, FT231X UART.
    #[value(name = "ulx3s-85f")]
    Ulx3s85f,
}

impl Board {
    /// The name the command line and the reports use.
    pub fn name(self) -> &'static str {
        match self {
            Board::AlchitryCu => "alchitry-cu",
            Board::Ulx3s85f => "ulx3s-85f",
        }
    }

    /// The configuration built when none is named: the Cu's own `cu` (the
    /// only one its HX8K holds), the ULX3S's `large`.
    pub fn default_config(self) -> &'static str {
        match self {
            Board::AlchitryCu => crate::transport::BOARD_CONFIG,
            Board::Ulx3s85f => "large",
        }
    }

    /// The nextpnr seeds tried when none are named.
    pub fn default_seeds(self) -> &'static [u64] {
        match self {
            Board::AlchitryCu => DEFAULT_SEEDS,
            Board::Ulx3s85f => &[1],
        }
    }

    pub fn device(self) -> Device {
        match self {
            Board::AlchitryCu => Device::Hx8k,
            Board::Ulx3s85f => Device::Lfe5u85f,
        }
    }
}

/// What to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Block {
    /// The whole core. For a configuration whose index is on chip (`cu`):
    /// its board top ([`ditto_hw::board::CoreBoardTop`] with
    /// [`ditto_hw::board::BoardSetup::CU`]), the bitstream the board runs
    /// (on the ULX3S behind its PLL). For one whose index table and FTL
    /// memory are off chip (`large`): on the ULX3S, the core in a pin
    /// harness, a measurement of its logic and Fmax (its memory ports have
    /// no memory on the board yet), its settings tied as a board's are
    /// (see [`HARNESS_GEOMETRY`]).
    Core,
    /// The configuration's bare SHA-1 hasher (lanes and their input FIFOs),
    /// measured alone: on the Cu placed on the HX8K's ct256 package (its
    /// 198 ports outnumber the Cu's pins), on the ULX3S in a pin harness.
    Hasher,
    /// The wide hasher ([`ditto_hw::sha1::wide`]: a 256-bit page stream,
    /// `--lanes` SHA-1 lanes in groups of four around shared block-RAM
    /// page buffers), on the ULX3S in a pin harness. It needs the ECP5's
    /// distributed RAM and 16 Kbit block RAMs: the Cu refuses it.
    WideHasher,
}

/// Refuses any lane count the wide hasher cannot be built with (see
/// [`ditto_hw::sha1::wide::lanes_supported`]).
pub fn check_wide_lanes(lanes: &[usize]) -> Result<(), HostError> {
    match lanes.iter().find(|l| !ditto_hw::sha1::wide::lanes_supported(**l)) {
        Some(&bad) => Err(wide_lanes_error(bad)),
        None => Ok(()),
    }
}

fn wide_lanes_error(lanes: usize) -> HostError {
    HostError::Usage(format!("--lanes: the wide hasher has a multiple of four lanes from 4 to 64, not {lanes}"))
}

/// Lanes of the wide hasher when `--lanes` is not given: forty keep up
/// with a beat a clock (5,200 / 40 = 130 clocks a page, 128 to stream it).
pub const DEFAULT_WIDE_LANES: usize = 40;

/// What one `ditto synth` run builds.
#[derive(Clone, Copy, Debug)]
pub struct SynthTarget<'a> {
    pub board: Board,
    pub config: &'a Config,
    pub block: Block,
    /// The clock to reach, in MHz; `None` for the configuration's own. Only
    /// a block in a pin harness may set it: a board top's UART timing and
    /// PLL are built for the configuration's clock.
    pub target_mhz: Option<u32>,
    /// The wide hasher's lanes (only for [`Block::WideHasher`]; `None`:
    /// [`DEFAULT_WIDE_LANES`]).
    pub lanes: Option<usize>,
}

impl SynthTarget<'_> {
    /// Whether the block is measured in a pin harness (no product bitstream).
    pub fn in_harness(&self) -> bool {
        self.board == Board::Ulx3s85f && (self.block != Block::Core || !self.config.index_table_on_chip)
    }
}

/// What a target synthesizes: its Verilog and pins, and what its report
/// will say of it. Every refusal happens here, before anything is written.
struct Design {
    source: String,
    pins: &'static str,
    top: &'static str,
    package: &'static str,
    label: String,
    config_label: String,
    target_mhz: u32,
}

fn design(target: &SynthTarget) -> Result<Design, HostError> {
    let SynthTarget { board, config, block, target_mhz, lanes } = *target;
    if lanes.is_some() && block != Block::WideHasher {
        return Err(HostError::Usage("--lanes is for --block wide-hasher".into()));
    }
    if block == Block::WideHasher && board != Board::Ulx3s85f {
        return Err(HostError::Usage(format!(
            "the wide hasher needs the ECP5's distributed RAM and 16 Kbit block RAMs: use --board {}",
            Board::Ulx3s85f.name()
        )));
    }
    let lanes = lanes.unwrap_or(DEFAULT_WIDE_LANES);
    if block == Block::WideHasher {
        check_wide_lanes(&[lanes])?;
    }
    let wide_verilog = || ditto_hw::sha1::wide::wide_hasher_verilog(lanes).ok_or_else(|| wide_lanes_error(lanes));
    if target_mhz.is_some() && !target.in_harness() {
        return Err(HostError::Usage(format!(
            "--mhz is for a block measured in a pin harness; the {} {} block is built for its configuration's {} MHz",
            board.name(),
            config.name,
            config.clock_mhz
        )));
    }
    let target_mhz = target_mhz.unwrap_or(config.clock_mhz);
    let board_top = || {
        ditto_hw::config::core_board_verilog(config, &ditto_hw::board::BoardSetup::CU)
            .ok_or(HostError::NoBoardTop(config.name))
    };
    let (source, pins, top, package, label) = match (board, block) {
        (Board::AlchitryCu, Block::Core) => {
            (board_top()?, ALCHITRY_CU_PCF, "top", ditto_synth::PACKAGE, board.name().to_string())
        }
        (Board::AlchitryCu, Block::Hasher | Block::WideHasher) => (
            ditto_hw::config::hasher_verilog(config),
            "# Block measurement: no pins are constrained.\n",
            "top",
            "ct256",
            format!("{} (hasher block alone, HX8K ct256)", board.name()),
        ),
        (Board::Ulx3s85f, _) if target.in_harness() => {
            let (verilog, what, tied) = match block {
                Block::Hasher => (ditto_hw::config::hasher_verilog(config), "hasher".to_string(), Vec::new()),
                Block::WideHasher => (wide_verilog()?, format!("wide hasher, {lanes} lanes,"), Vec::new()),
                Block::Core => (
                    ditto_hw::config::core_verilog(config),
                    "whole core, settings tied".to_string(),
                    core_static_inputs(),
                ),
            };
            (
                ditto_synth::harness::pin_harness(&verilog, "top", "clock", &tied)?,
                ULX3S_HARNESS_LPF,
                "harness",
                ditto_synth::ECP5_PACKAGE,
                format!("{} ({what} in a pin harness)", board.name()),
            )
        }
        (Board::Ulx3s85f, _) => {
            let pll = Ecp5Pll::for_frequency(ULX3S_OSCILLATOR_MHZ, target_mhz)?;
            (
                ulx3s_shell(&board_top()?, &pll),
                ULX3S_LPF,
                ULX3S_TOP,
                ditto_synth::ECP5_PACKAGE,
                board.name().to_string(),
            )
        }
    };
    let config_label = if block == Block::WideHasher { format!("wide-{lanes}") } else { config.name.into() };
    Ok(Design { source, pins, top, package, label, config_label, target_mhz })
}

/// Writes `out/ditto.v` and the pin file, then runs the flow on the target.
pub fn synth_block(target: &SynthTarget, out: &Path, seeds: &[u64]) -> Result<FlowReport, HostError> {
    run_design(target, &design(target)?, out, seeds)
}

fn run_design(target: &SynthTarget, design: &Design, out: &Path, seeds: &[u64]) -> Result<FlowReport, HostError> {
    let board = target.board;
    std::fs::create_dir_all(out).map_err(|source| HostError::Write { path: out.into(), source })?;
    let verilog = out.join("ditto.v");
    std::fs::write(&verilog, &design.source).map_err(|source| HostError::Write { path: verilog.clone(), source })?;
    let constraints = out.join(board.device().constraints_file());
    std::fs::write(&constraints, design.pins)
        .map_err(|source| HostError::Write { path: constraints.clone(), source })?;
    let report = run_flow(&FlowRequest {
        verilog,
        top: design.top.into(),
        device: board.device(),
        constraints,
        out_dir: out.into(),
        target_mhz: f64::from(design.target_mhz),
        seeds: seeds.to_vec(),
        board: design.label.clone(),
        config: design.config_label.clone(),
        package: design.package.into(),
    })?;
    Ok(report)
}

/// The report of an earlier run of exactly this synthesis in `out`, if
/// there is one: the same Verilog and pins (byte for byte), board,
/// configuration, target and a single seed that is the report's. Anything
/// else (a changed design, another seed list, no report) is `None`.
fn earlier_run(target: &SynthTarget, design: &Design, out: &Path, seeds: &[u64]) -> Option<FlowReport> {
    let same_file = |name: &str, want: &str| std::fs::read_to_string(out.join(name)).is_ok_and(|have| have == want);
    if !same_file("ditto.v", &design.source) || !same_file(target.board.device().constraints_file(), design.pins) {
        return None;
    }
    let text = std::fs::read_to_string(out.join(ditto_synth::REPORT_FILE)).ok()?;
    let report: FlowReport = serde_json::from_str(&text).ok()?;
    let same = report.board == design.label
        && report.config == design.config_label
        && report.target_mhz == f64::from(design.target_mhz)
        && seeds == [report.seed];
    same.then_some(report)
}

/// [`synth_report`], or, with `reuse`, the report of an earlier run of
/// exactly this synthesis in `out` (see `earlier_run`); says which.
pub fn synth_report_reusing(
    target: &SynthTarget,
    out: &Path,
    seeds: &[u64],
    reuse: bool,
) -> Result<(FlowReport, bool), HostError> {
    let design = design(target)?;
    if let Some(report) = reuse.then(|| earlier_run(target, &design, out, seeds)).flatten() {
        return Ok((report, true));
    }
    Ok((synth_report_of(target, &design, out, seeds)?, false))
}

/// [`synth_block`]'s report whether or not it met timing (the report says
/// which): a placed design's figures stand either way. Any other failure
/// is an error.
pub fn synth_report(target: &SynthTarget, out: &Path, seeds: &[u64]) -> Result<FlowReport, HostError> {
    synth_report_of(target, &design(target)?, out, seeds)
}

fn synth_report_of(target: &SynthTarget, design: &Design, out: &Path, seeds: &[u64]) -> Result<FlowReport, HostError> {
    match run_design(target, design, out, seeds) {
        Err(HostError::Synth(ditto_synth::SynthError::TimingNotMet { report_path, .. })) => {
            let text = std::fs::read_to_string(&report_path)
                .map_err(|source| HostError::Read { path: report_path.clone(), source })?;
            serde_json::from_str(&text)
                .map_err(|e| HostError::BadReport { path: report_path, detail: format!("not a flow report: {e}") })
        }
        other => other,
    }
}

/// The ULX3S shell's module name.
pub const ULX3S_TOP: &str = "ulx3s_top";

/// `board_top` (rust-hdl's `top`: `clock`, `rst_n`, `usb_rx`, `usb_tx`,
/// `led`) followed by the ULX3S shell around it: the PLL makes the core's
/// clock from the 25 MHz oscillator, and the core stays in reset until the
/// PLL has locked and while the PWR button is pressed.
pub fn ulx3s_shell(board_top: &str, pll: &Ecp5Pll) -> String {
    format!(
        "{board_top}\n\
         // The ULX3S shell (ditto synth --board ulx3s-85f): {input} MHz oscillator, PLL to {output} MHz.\n\
         module {ULX3S_TOP}(\n\
         \x20   input wire clk_25mhz,\n\
         \x20   input wire btn_pwr_n,\n\
         \x20   input wire ftdi_txd,\n\
         \x20   output wire ftdi_rxd,\n\
         \x20   output wire [7:0] led\n\
         );\n\
         \x20   wire core_clock;\n\
         \x20   wire pll_locked;\n\
         {pll}\
         \x20   top core (.clock(core_clock), .rst_n(btn_pwr_n & pll_locked), .usb_rx(ftdi_txd), .usb_tx(ftdi_rxd), .led(led));\n\
         endmodule\n",
        input = pll.input_mhz,
        output = pll.output_mhz,
        pll = pll.instance("pll", "clk_25mhz", "core_clock", "pll_locked"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_harnessed_block_takes_another_clock() {
        let large = ditto_hw::config::LARGE;
        let cu = ditto_hw::config::CU;
        let target = |board, config, block| SynthTarget { board, config, block, target_mhz: Some(60), lanes: None };
        assert!(target(Board::Ulx3s85f, &large, Block::Core).in_harness());
        assert!(target(Board::Ulx3s85f, &cu, Block::Hasher).in_harness());
        assert!(!target(Board::Ulx3s85f, &cu, Block::Core).in_harness());
        assert!(!target(Board::AlchitryCu, &cu, Block::Hasher).in_harness());
        let dir = tempfile::tempdir().unwrap();
        let err = synth_block(&target(Board::Ulx3s85f, &cu, Block::Core), dir.path(), &[1]).unwrap_err();
        assert!(matches!(err, HostError::Usage(_)), "{err}");
    }

    /// A synthesis is reused only when its Verilog, pins, target and seed
    /// are exactly those of the report in its folder.
    #[test]
    fn only_an_unchanged_synthesis_is_reused() {
        let cu = ditto_hw::config::CU;
        let target =
            SynthTarget { board: Board::Ulx3s85f, config: &cu, block: Block::Hasher, target_mhz: None, lanes: None };
        let design = design(&target).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        let pins = target.board.device().constraints_file();
        let write_all = |verilog: &str, mhz: u32, seed: u64| {
            std::fs::write(out.join("ditto.v"), verilog).unwrap();
            std::fs::write(out.join(pins), design.pins).unwrap();
            let report = format!(
                r#"{{"board": {board:?}, "config": {config:?}, "device": "LFE5U-85F-6", "package": "CABGA381",
                "top": "harness", "luts": 1, "dffs": 1, "carries": 0, "ebrs": 0, "dsps": 0,
                "cells_by_type": {{}}, "design_problems": [], "logic_cells": 2, "logic_cells_available": 83640,
                "utilization": {{}}, "fmax_mhz": 150.0, "clocks": [], "target_mhz": {mhz},
                "timing_met": true, "seed": {seed}, "seeds_tried": [], "unconstrained_io": [], "bitstream": null,
                "yosys_version": "Yosys", "nextpnr_version": "nextpnr",
                "seconds": {{"yosys": 1.0, "nextpnr": 1.0, "pack": 0.0}}}}"#,
                board = design.label,
                config = design.config_label,
            );
            std::fs::write(out.join(ditto_synth::REPORT_FILE), report).unwrap();
        };
        write_all(&design.source, design.target_mhz, 1);
        let (report, reused) = synth_report_reusing(&target, out, &[1], true).unwrap();
        assert!(reused && report.fmax_mhz == 150.0, "an unchanged synthesis is reused");
        assert!(earlier_run(&target, &design, out, &[2]).is_none(), "another seed");
        assert!(earlier_run(&target, &design, out, &[1, 2]).is_none(), "more seeds than the report tried");
        write_all(&format!("{}// changed\n", design.source), design.target_mhz, 1);
        assert!(earlier_run(&target, &design, out, &[1]).is_none(), "changed Verilog");
        write_all(&design.source, design.target_mhz + 1, 1);
        assert!(earlier_run(&target, &design, out, &[1]).is_none(), "another target");
        write_all(&design.source, design.target_mhz, 1);
        std::fs::write(out.join(pins), "# other pins\n").unwrap();
        assert!(earlier_run(&target, &design, out, &[1]).is_none(), "changed pins");
    }

    /// Every wrong use of the wide hasher is refused before any tool runs
    /// (nothing is written to the output folder).
    #[test]
    fn the_wide_hasher_is_refused_where_it_cannot_be_built() {
        let large = ditto_hw::config::LARGE;
        let wide = |board, block, lanes| SynthTarget { board, config: &large, block, target_mhz: None, lanes };
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        for (target, why) in [
            (wide(Board::AlchitryCu, Block::WideHasher, Some(8)), "on the Cu"),
            (wide(Board::Ulx3s85f, Block::WideHasher, Some(6)), "six lanes"),
            (wide(Board::Ulx3s85f, Block::WideHasher, Some(68)), "68 lanes"),
            (wide(Board::Ulx3s85f, Block::Hasher, Some(8)), "--lanes on another block"),
        ] {
            let err = synth_block(&target, &out, &[1]).unwrap_err();
            assert!(matches!(err, HostError::Usage(_)), "{why}: {err}");
            assert!(!out.exists(), "{why}: the output folder was made");
        }
        assert!(wide(Board::Ulx3s85f, Block::WideHasher, None).in_harness());
    }

    #[test]
    fn the_shell_wires_the_pll_into_the_board_top() {
        let pll = Ecp5Pll::for_frequency(25, 100).unwrap();
        let text = ulx3s_shell("module top(clock,rst_n,usb_rx,usb_tx,led);\nendmodule\n", &pll);
        assert!(text.contains("module ulx3s_top("), "{text}");
        assert!(text.contains(".CLKI(clk_25mhz), .CLKOP(core_clock)"), "{text}");
        assert!(text.contains(".rst_n(btn_pwr_n & pll_locked)"), "{text}");
        for port in ["clk_25mhz", "btn_pwr_n", "ftdi_txd", "ftdi_rxd", "led[7]"] {
            assert!(ULX3S_LPF.contains(&format!("\"{port}\"")), "{port} has no site");
        }
    }
}
