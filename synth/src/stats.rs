//! Cell counts of a synthesized netlist, read from yosys' `stat -json`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Cell counts of a netlist after `synth_ice40` or `synth_ecp5`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct YosysStats {
    /// Four-input LUTs: `SB_LUT4` (iCE40), `LUT4` (ECP5).
    pub luts: u64,
    /// Flip-flops: `SB_DFF*` (iCE40), `TRELLIS_FF` (ECP5).
    pub dffs: u64,
    /// Carry cells: `SB_CARRY` (one bit, sharing a logic cell with a LUT),
    /// `CCU2C` (two bits, on the ECP5).
    pub carries: u64,
    /// Embedded block RAMs: `SB_RAM40_4K*` (4 kbit), `DP16KD` (18 kbit).
    pub ebrs: u64,
    /// DSP multipliers: `MULT18X18D` (ECP5; the HX8K has none).
    #[serde(default)]
    pub dsps: u64,
    /// Every cell type of the netlist and how many it has.
    pub cells_by_type: BTreeMap<String, u64>,
}

#[derive(Deserialize)]
struct StatJson {
    #[serde(default)]
    modules: BTreeMap<String, ModuleStat>,
    /// Totals over the hierarchy below the top module; present when yosys
    /// knows the top, which it does after `synth_ice40 -top`.
    design: Option<ModuleStat>,
}

#[derive(Deserialize)]
struct ModuleStat {
    #[serde(default)]
    num_cells_by_type: BTreeMap<String, u64>,
}

impl YosysStats {
    /// Parses the output of yosys' `stat -json` (as written by
    /// `tee -q -o FILE stat -json`). Uses the design totals when present,
    /// otherwise sums all modules (the netlist is flat after `synth_ice40`).
    pub(crate) fn from_stat_json(text: &str) -> Result<Self, String> {
        let stat: StatJson = serde_json::from_str(text).map_err(|err| err.to_string())?;
        let cells_by_type = match stat.design {
            Some(design) => design.num_cells_by_type,
            None if !stat.modules.is_empty() => {
                let mut totals = BTreeMap::new();
                for module in stat.modules.into_values() {
                    for (cell, count) in module.num_cells_by_type {
                        *totals.entry(cell).or_insert(0) += count;
                    }
                }
                totals
            }
            None => return Err("it lists no modules: did synthesis produce a netlist?".into()),
        };
        Ok(Self::from_cells(cells_by_type))
    }

    fn from_cells(cells_by_type: BTreeMap<String, u64>) -> Self {
        let count = |matches: fn(&str) -> bool| -> u64 {
            cells_by_type.iter().filter(|(cell, _)| matches(cell)).map(|(_, n)| n).sum()
        };
        YosysStats {
            luts: count(|c| c == "SB_LUT4" || c == "LUT4"),
            dffs: count(|c| c.starts_with("SB_DFF") || c == "TRELLIS_FF"),
            carries: count(|c| c == "SB_CARRY" || c == "CCU2C"),
            ebrs: count(|c| c.starts_with("SB_RAM40_4K") || c == "DP16KD"),
            dsps: count(|c| c == "MULT18X18D"),
            cells_by_type,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shape of yosys 0.23's `stat -json`, including its odd indentation.
    const STAT: &str = r#"{
   "creator": "Yosys 0.23 (git sha1 7ce5011c24b)",
   "invocation": "stat -json ",
   "modules": {
      "\\top": {
         "num_wires":         5,
         "num_cells":         23,
         "num_cells_by_type": {
            "SB_CARRY": 7,
            "SB_DFF": 8,
            "SB_LUT4": 8
         }
      }
   },
      "design": {
         "num_cells":         33,
         "num_cells_by_type": {
            "SB_CARRY": 7,
            "SB_DFF": 8,
            "SB_DFFER": 4,
            "SB_DFFSR": 2,
            "SB_LUT4": 8,
            "SB_RAM40_4K": 3,
            "SB_RAM40_4KNR": 1
         }
      }
}"#;

    #[test]
    fn design_totals_win() {
        let stats = YosysStats::from_stat_json(STAT).unwrap();
        assert_eq!(stats.luts, 8);
        assert_eq!(stats.dffs, 14);
        assert_eq!(stats.carries, 7);
        assert_eq!(stats.ebrs, 4);
        assert_eq!(stats.cells_by_type["SB_DFFER"], 4);
    }

    #[test]
    fn modules_are_summed_without_design_totals() {
        let text = r#"{"modules": {
            "\\a": {"num_cells_by_type": {"SB_LUT4": 2, "SB_DFFE": 1}},
            "\\b": {"num_cells_by_type": {"SB_LUT4": 3}}}}"#;
        let stats = YosysStats::from_stat_json(text).unwrap();
        assert_eq!((stats.luts, stats.dffs, stats.carries, stats.ebrs), (5, 1, 0, 0));
    }

    #[test]
    fn ecp5_cells_are_counted() {
        let text = r#"{"modules": {"\\top": {"num_cells_by_type":
            {"LUT4": 1211, "TRELLIS_FF": 1320, "CCU2C": 142, "DP16KD": 4, "MULT18X18D": 2, "PFUMX": 316}}}}"#;
        let stats = YosysStats::from_stat_json(text).unwrap();
        assert_eq!((stats.luts, stats.dffs, stats.carries, stats.ebrs, stats.dsps), (1211, 1320, 142, 4, 2));
        assert_eq!(stats.cells_by_type["PFUMX"], 316);
    }

    #[test]
    fn empty_or_garbage_is_an_error() {
        assert!(YosysStats::from_stat_json(r#"{"modules": {}}"#).is_err());
        assert!(YosysStats::from_stat_json("3. Printing statistics.").is_err());
    }
}
