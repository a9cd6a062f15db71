//! End-to-end tests of the yosys / nextpnr-ice40 / icepack flow.
//!
//! These run the real tools. When a tool is missing they fail with
//! `SynthError::ToolMissing`, whose message names the Debian package to
//! install: CI installs them, so a missing tool must not pass silently.

use std::fs;
use std::path::PathBuf;

use ditto_synth::{
    check_synthesizable, run_flow, Device, FlowReport, FlowRequest, SynthError, ASC_FILE, BITSTREAM_FILE,
    NEXTPNR_LOG_FILE, REPORT_FILE,
};

/// An 8-bit accumulator: 8 LUTs, 7 carries and 8 flip-flops on the iCE40.
const ACCUMULATOR: &str = "\
module top(input clock, input [7:0] a, output reg [7:0] q);
  always @(posedge clock) q <= q + a;
endmodule
";

/// Uses every port of the Alchitry Cu PCF, so none is left unconstrained.
const BOARD_PORTS: &str = "\
module top(input clock, input rst_n, input usb_rx, output usb_tx, output [7:0] led);
  reg [26:0] count;
  always @(posedge clock)
    if (!rst_n) count <= 0;
    else count <= count + 1;
  assign led = count[26:19];
  assign usb_tx = usb_rx;
endmodule
";

/// A 9,000-stage shift register: more flip-flops than the HX8K's 7,680 cells.
const TOO_BIG: &str = "\
module top(input clock, input a, output q);
  reg [8999:0] r;
  always @(posedge clock) r <= {r[8998:0], a};
  assign q = r[8999];
endmodule
";

const REPORT_KEYS: [&str; 14] = [
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
    "seed",
    "seeds_tried",
    "yosys_version",
    "nextpnr_version",
];

fn pcf() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../constraints/alchitry-cu.pcf")
}

/// A fresh output directory for one test, holding `design.v`.
fn workspace(name: &str, verilog: &str) -> (PathBuf, PathBuf) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ditto-synth-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let design = dir.join("design.v");
    fs::write(&design, verilog).unwrap();
    (design, dir.join("out"))
}

fn request(verilog: PathBuf, out_dir: PathBuf, target_mhz: f64, seeds: Vec<u64>) -> FlowRequest {
    FlowRequest {
        verilog,
        top: "top".into(),
        device: Device::Hx8k,
        constraints: pcf(),
        out_dir,
        target_mhz,
        seeds,
        board: "alchitry-cu".into(),
        config: "test".into(),
        package: "cb132".into(),
    }
}

fn read_report(out_dir: &std::path::Path) -> (serde_json::Value, FlowReport) {
    let text = fs::read_to_string(out_dir.join(REPORT_FILE)).expect("report.json was written");
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    for key in REPORT_KEYS {
        assert!(value.get(key).is_some(), "report.json lacks `{key}`:\n{text}");
    }
    (value, serde_json::from_str(&text).unwrap())
}

#[test]
fn accumulator_synthesizes() {
    let stats = check_synthesizable(ACCUMULATOR, "top").unwrap_or_else(|e| panic!("{e}"));
    assert!(stats.luts > 0, "{stats:?}");
    assert_eq!(stats.dffs, 8, "{stats:?}");
    assert_eq!(stats.carries, 7, "{stats:?}");
    assert_eq!(stats.ebrs, 0, "{stats:?}");
}

/// A failed check keeps its work folder for the log its error names; these
/// tests fail on purpose, so they remove it once they have looked.
fn remove_work_dir(log_path: &std::path::Path) {
    let dir = log_path.parent().expect("the log is in the work folder");
    assert!(dir.file_name().unwrap().to_string_lossy().starts_with("ditto-synth-"), "{}", dir.display());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn syntax_error_is_quoted() {
    let source = "module top(input clock, output reg q);\n  always @(posedge clock) q <= ~q\nendmodule\n";
    match check_synthesizable(source, "top") {
        Err(SynthError::ToolFailed { tool, excerpt, log_path, .. }) => {
            assert_eq!(tool, "yosys");
            assert!(excerpt.contains("ERROR"), "{excerpt}");
            assert!(excerpt.contains("syntax error"), "{excerpt}");
            assert!(excerpt.contains(":3:"), "line number missing: {excerpt}");
            assert!(log_path.is_file(), "{}", log_path.display());
            remove_work_dir(&log_path);
        }
        other => panic!("expected ToolFailed from yosys, got {other:?}"),
    }
}

#[test]
fn missing_top_module_is_reported() {
    match check_synthesizable(ACCUMULATOR, "not_there") {
        Err(SynthError::ToolFailed { excerpt, log_path, .. }) => {
            assert!(excerpt.contains("not_there"), "{excerpt}");
            remove_work_dir(&log_path);
        }
        other => panic!("expected ToolFailed from yosys, got {other:?}"),
    }
}

#[test]
fn broken_hardware_is_rejected() {
    let source = "\
module top(input clock, input [3:0] a, output [3:0] z, output [1:0] l);
  wire [3:0] undriven;
  assign z = undriven + a;
  wire [1:0] lp;
  assign lp = {lp[0], a[0]} ^ {a[1], lp[1]};
  assign l = lp;
endmodule
";
    match check_synthesizable(source, "top") {
        Err(SynthError::DesignProblems { problems, log_path }) => {
            let all = problems.join("\n");
            assert!(all.contains("is used but has no driver"), "{all}");
            assert!(all.to_lowercase().contains("logic loop"), "{all}");
            remove_work_dir(&log_path);
        }
        other => panic!("expected DesignProblems, got {other:?}"),
    }
}

#[test]
fn flow_meets_100_mhz_and_writes_bitstream() {
    let (design, out) = workspace("meets", ACCUMULATOR);
    let report = run_flow(&request(design, out.clone(), 100.0, vec![1, 2])).unwrap_or_else(|e| panic!("{e}"));

    assert!(report.timing_met);
    assert!(report.fmax_mhz >= 100.0, "{report:?}");
    assert_eq!(report.seed, 1);
    assert_eq!(report.seeds_tried.len(), 1, "should stop at the first good seed");
    assert_eq!((report.dffs, report.carries), (8, 7));
    assert!(report.luts > 0);
    assert!(report.logic_cells > 0 && report.logic_cells < 100, "{report:?}");
    assert_eq!(report.logic_cells_available, 7680);
    assert_eq!(report.clocks.len(), 1);
    assert!(report.yosys_version.starts_with("Yosys"), "{}", report.yosys_version);
    assert!(report.nextpnr_version.contains("nextpnr"), "{}", report.nextpnr_version);
    // `a` and `q` are not board pins, so nextpnr placed them freely.
    assert_eq!(report.unconstrained_io.len(), 16, "{:?}", report.unconstrained_io);

    let bin = fs::metadata(out.join(BITSTREAM_FILE)).expect("ditto.bin exists");
    assert!(bin.len() > 0);
    assert_eq!(report.bitstream, Some(out.canonicalize().unwrap().join(BITSTREAM_FILE)));

    let (json, from_disk) = read_report(&out);
    assert_eq!(json["timing_met"], true);
    assert_eq!(json["board"], "alchitry-cu");
    assert_eq!(from_disk, report);
}

#[test]
fn flow_reports_timing_failure() {
    let (design, out) = workspace("fails", ACCUMULATOR);
    // Leave a stale bitstream behind, as an earlier successful run would.
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join(BITSTREAM_FILE), b"stale").unwrap();

    let err = run_flow(&request(design, out.clone(), 2000.0, vec![1, 2])).unwrap_err();
    let SynthError::TimingNotMet { fmax_mhz, target_mhz, report_path } = &err else {
        panic!("expected TimingNotMet, got {err:?}");
    };
    assert!(*fmax_mhz > 0.0 && *fmax_mhz < 2000.0, "{err}");
    assert_eq!(*target_mhz, 2000.0);
    assert!(err.to_string().contains("timing not met"), "{err}");

    let (json, report) = read_report(&out);
    assert_eq!(&out.canonicalize().unwrap().join(REPORT_FILE), report_path);
    assert_eq!(json["timing_met"], false);
    assert_eq!(report.seeds_tried.len(), 2, "every seed is tried");
    let best = report.seeds_tried.iter().map(|a| a.fmax_mhz).fold(f64::MIN, f64::max);
    assert_eq!(report.fmax_mhz, best, "the best seed is kept");
    assert!(report.bitstream.is_none());
    assert!(!out.join(BITSTREAM_FILE).exists(), "no bitstream without timing");
    assert!(out.join(ASC_FILE).is_file(), "best seed's routing is kept");
    assert!(out.join(NEXTPNR_LOG_FILE).is_file());
}

#[test]
fn board_pcf_constrains_every_board_port() {
    let (design, out) = workspace("board", BOARD_PORTS);
    let report = run_flow(&request(design, out.clone(), 100.0, vec![1, 2, 3])).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.unconstrained_io.is_empty(), "{:?}", report.unconstrained_io);
    assert_eq!(report.utilization["SB_IO"].used, 12);
    assert!(out.join(BITSTREAM_FILE).is_file());
}

#[test]
fn oversized_design_fails_placement_with_numbers() {
    let (design, out) = workspace("too-big", TOO_BIG);
    let err = run_flow(&request(design, out, 100.0, vec![1])).unwrap_err();
    match &err {
        SynthError::PlacementFailed { resource, used, available, .. } => {
            assert_eq!(resource, "ICESTORM_LC");
            assert!(*used > 9000, "{err}");
            assert_eq!(*available, 7680);
            assert!(err.to_string().contains("does not fit"), "{err}");
        }
        other => panic!("expected PlacementFailed, got {other:?}"),
    }
}

/// The accumulator with its ports declared as rust-hdl writes them, which
/// is what the pin harness reads.
const ACCUMULATOR_RUST_HDL_STYLE: &str = "\
module top(clock,a,q);
    
    // Module arguments
    input wire  clock;
    input wire  [7:0] a;
    output reg  [7:0] q;
    
    always @(posedge clock) q <= q + a;
endmodule
";

/// The ECP5 flow on a block in the pin harness: the accumulator at 150 MHz.
#[test]
fn ecp5_flow_places_a_harnessed_block_and_packs_its_bitstream() {
    let err = ditto_synth::harness::pin_harness(ACCUMULATOR, "top", "clock", &[]).unwrap_err();
    assert!(err.to_string().contains("line 2"), "ANSI ports are not read: {err}");
    let harnessed = ditto_synth::harness::pin_harness(ACCUMULATOR_RUST_HDL_STYLE, "top", "clock", &[]).unwrap();
    let (design, out) = workspace("ecp5", &harnessed);
    let lpf = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../constraints/ulx3s-85f-harness.lpf");
    let req = FlowRequest {
        top: "harness".into(),
        device: Device::Lfe5u85f,
        constraints: lpf,
        package: ditto_synth::ECP5_PACKAGE.into(),
        board: "ulx3s-85f".into(),
        ..request(design, out.clone(), 150.0, vec![1])
    };
    let report = run_flow(&req).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.timing_met, "{report:?}");
    assert_eq!(report.device, "LFE5U-85F-6");
    assert_eq!(report.logic_cells_available, 83640);
    // 8 accumulator bits, 8 shift-register bits feeding `a`, the capture
    // and fold registers and `dout`.
    assert!(report.dffs >= 16, "{report:?}");
    assert_eq!(report.carries, 4, "an 8-bit add is four CCU2Cs: {report:?}");
    assert!(report.unconstrained_io.is_empty(), "{:?}", report.unconstrained_io);
    assert!(report.seconds.nextpnr > 0.0 && report.seconds.pack > 0.0, "{:?}", report.seconds);
    let bit = out.canonicalize().unwrap().join(ditto_synth::ECP5_BITSTREAM_FILE);
    assert_eq!(report.bitstream.as_deref(), Some(bit.as_path()));
    assert!(fs::metadata(&bit).unwrap().len() > 1_000);
    assert!(out.join(ditto_synth::ECP5_CONFIG_FILE).is_file());
    let (_, from_disk) = read_report(&out);
    assert_eq!(from_disk, report);
}
