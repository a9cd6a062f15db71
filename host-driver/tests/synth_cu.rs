//! `ditto synth --board alchitry-cu --config cu` builds the whole-core board
//! top and meets the board's 100 MHz.
use std::process::Command;

#[test]
fn ditto_synth_cu_meets_100_mhz_and_writes_report_and_bitstream() {
    let out = tempfile::Builder::new().prefix("ditto-synth-cu-").tempdir().unwrap();
    let out_dir = out.path();
    let out = Command::new(env!("CARGO_BIN_EXE_ditto"))
        .args(["synth", "--board", "alchitry-cu", "--config", "cu", "--out", out_dir.to_str().unwrap()])
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("ditto runs");
    let report_path = out_dir.join("report.json");
    assert!(
        out.status.success(),
        "ditto synth failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    for key in [
        "board",
        "config",
        "luts",
        "dffs",
        "ebrs",
        "logic_cells",
        "logic_cells_available",
        "fmax_mhz",
        "target_mhz",
        "timing_met",
    ] {
        assert!(report.get(key).is_some(), "report.json lacks {key}");
    }
    assert_eq!(report["timing_met"], true);
    assert_eq!(report["target_mhz"], 100.0);
    assert!(report["fmax_mhz"].as_f64().unwrap() >= 100.0);
    assert_eq!(report["logic_cells_available"], 7680);
    assert_eq!(report["unconstrained_io"].as_array().map(|a| a.len()), Some(0), "every port has a pin");
    let verilog = std::fs::read_to_string(out_dir.join("ditto.v")).unwrap();
    assert!(verilog.contains("module top$core$ftl("), "the default build is the whole core, FTL controller included");
    let bitstream = std::fs::metadata(out_dir.join("ditto.bin")).unwrap();
    assert!(bitstream.len() > 100_000, "an HX8K bitstream is about 135 KB");
}
