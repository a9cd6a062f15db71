//! Synthesis with yosys (`synth_ice40` or `synth_ecp5`), and the
//! synthesizability check.

use std::fs;
use std::path::{Path, PathBuf};

use crate::device::Device;
use crate::error::SynthError;
use crate::stats::YosysStats;
use crate::tools::{self, YOSYS};

/// Name of the yosys log inside the work directory.
pub(crate) const LOG_FILE: &str = "yosys.log";
/// Name of the `stat -json` output inside the work directory.
const STAT_FILE: &str = "yosys-stat.json";

/// Warnings of yosys' `check` pass (run by `synth_ice40`) that mean the
/// hardware is broken, matched case-insensitively.
const BROKEN_DESIGN_WARNINGS: [&str; 4] =
    ["is used but has no driver", "multiple conflicting drivers", "found logic loop", "combinational loop"];

/// What a successful yosys run produced.
pub(crate) struct Synthesis {
    pub stats: YosysStats,
    pub log_path: PathBuf,
    /// Warnings that mean broken hardware, each with its detail lines.
    pub problems: Vec<String>,
}

/// Runs `device`'s synthesis script on `verilog` with `work_dir` as the working directory,
/// writing `yosys.log`, the `stat -json` counts and, when `netlist` is given,
/// the JSON netlist under that name.
///
/// The Verilog file is handed to yosys as a command-line argument rather than
/// inside the `-p` script, and outputs are named relative to `work_dir`, so
/// paths with spaces need no quoting (yosys 0.23's `tee -o` does not unquote).
pub(crate) fn synthesize(
    device: Device,
    verilog: &Path,
    top: &str,
    work_dir: &Path,
    netlist: Option<&str>,
) -> Result<Synthesis, SynthError> {
    validate_top(top)?;
    let log_path = work_dir.join(LOG_FILE);
    let stat_path = work_dir.join(STAT_FILE);
    tools::remove_if_exists(&stat_path)?;

    let mut script = format!("{} -top {top}", device.yosys_synth());
    if let Some(name) = netlist {
        script.push_str(&format!(" -json {name}"));
    }
    script.push_str(&format!("; tee -q -o {STAT_FILE} stat -json"));

    let output = YOSYS.run(
        [
            "-q".as_ref(),
            "-l".as_ref(),
            log_path.as_os_str(),
            "-f".as_ref(),
            "verilog".as_ref(),
            verilog.as_os_str(),
            "-p".as_ref(),
            script.as_ref(),
        ],
        Some(work_dir),
    )?;
    if !output.status.success() {
        return Err(YOSYS.failed(&output, &log_path));
    }

    let stat_text = fs::read_to_string(&stat_path)
        .map_err(|err| SynthError::io(format!("yosys did not write its statistics to {}", stat_path.display()), err))?;
    let stats =
        YosysStats::from_stat_json(&stat_text).map_err(|detail| SynthError::Parse { path: stat_path, detail })?;
    let log = fs::read_to_string(&log_path)
        .map_err(|err| SynthError::io(format!("could not read {}", log_path.display()), err))?;
    Ok(Synthesis { stats, problems: broken_design_warnings(&log), log_path })
}

/// The top module's name goes into a yosys script, so it must be a plain
/// identifier (rust-hdl always calls it `top`).
fn validate_top(top: &str) -> Result<(), SynthError> {
    let plain = !top.is_empty()
        && !top.starts_with(|c: char| c.is_ascii_digit())
        && top.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain {
        Ok(())
    } else {
        Err(SynthError::InvalidRequest(format!("top module name {top:?} is not a plain Verilog identifier")))
    }
}

/// Collects the warnings that mean broken hardware, each joined with the
/// indented detail lines yosys prints below it, without repeats.
fn broken_design_warnings(log: &str) -> Vec<String> {
    let mut problems: Vec<String> = Vec::new();
    let mut lines = log.lines().peekable();
    while let Some(line) = lines.next() {
        let lower = line.to_ascii_lowercase();
        if !BROKEN_DESIGN_WARNINGS.iter().any(|w| lower.contains(w)) {
            continue;
        }
        let mut problem = line.trim_end().to_owned();
        while let Some(detail) = lines.next_if(|l| l.starts_with(char::is_whitespace) && !l.trim().is_empty()) {
            problem.push('\n');
            problem.push_str(detail.trim_end());
        }
        if !problems.contains(&problem) {
            problems.push(problem);
        }
    }
    problems
}

/// Checks that `verilog_source` synthesizes for the iCE40 with `top` as its
/// top module, and returns the cell counts.
///
/// Fails with [`SynthError::ToolFailed`] (quoting yosys' errors) when yosys
/// rejects the source, and with [`SynthError::DesignProblems`] when yosys
/// warns about wires used without a driver, conflicting drivers or
/// combinational loops. The work directory (a `tempfile` folder under the
/// system's temporary directory) is removed on success; on a failure it is
/// kept, because the error names the log in it.
pub fn check_synthesizable(verilog_source: &str, top: &str) -> Result<YosysStats, SynthError> {
    check_synthesizable_on(Device::Hx8k, verilog_source, top)
}

/// [`check_synthesizable`] for `device`'s part (`synth_ice40` or `synth_ecp5`).
pub fn check_synthesizable_on(device: Device, verilog_source: &str, top: &str) -> Result<YosysStats, SynthError> {
    validate_top(top)?;
    YOSYS.ensure_installed()?;
    let work = tempfile::Builder::new()
        .prefix("ditto-synth-")
        .tempdir()
        .map_err(|err| SynthError::io("could not create a work directory", err))?;
    let work_dir = work.path();
    let verilog = work_dir.join("design.v");
    fs::write(&verilog, verilog_source)
        .map_err(|err| SynthError::io(format!("could not write {}", verilog.display()), err))?;

    let result = synthesize(device, &verilog, top, work_dir, None).and_then(|synthesis| {
        if synthesis.problems.is_empty() {
            Ok(synthesis.stats)
        } else {
            Err(SynthError::DesignProblems { log_path: synthesis.log_path, problems: synthesis.problems })
        }
    });
    if result.is_err() {
        // The error names the log in it: keep it for the reader.
        let _ = work.keep();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_design_warnings_keep_details_and_drop_repeats() {
        let log = "\
Warning: multiple conflicting drivers for top.\\a [7]:
    module input a[3]
    module input a[7]
Warning: Wire top.\\u [3] is used but has no driver.
Warning: found logic loop in module top:
    cell $xor$bad1.v:4$2 ($xor)
    wire \\lp [0]
ABC: Warning: The network is combinational (run \"fraig\" or \"fraig_sweep\").

Warning: multiple conflicting drivers for top.\\a [7]:
    module input a[3]
    module input a[7]
";
        let problems = broken_design_warnings(log);
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(problems[0].ends_with("module input a[7]"));
        assert!(problems[2].contains("wire \\lp [0]"));
    }

    #[test]
    fn top_must_be_an_identifier() {
        assert!(validate_top("top").is_ok());
        assert!(validate_top("top$inner_1").is_ok());
        for bad in ["", "1top", "top; shell rm", "a b"] {
            assert!(validate_top(bad).is_err(), "{bad:?}");
        }
    }
}
