//! The `ditto` command end to end: `hash`, `verilog`, `prove`, and its errors.
use std::path::{Path, PathBuf};
use std::process::Command;

fn ditto(args: &[&str]) -> std::process::Output {
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_ditto"));
    assert!(bin.exists(), "{} is not built: run `cargo build -p ditto-host`", bin.display());
    Command::new(bin).args(args).env("RUST_BACKTRACE", "0").output().expect("ditto runs")
}

/// `ditto args`, which must succeed, and the JSON it printed.
fn ditto_json(args: &[&str]) -> serde_json::Value {
    let out = ditto(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON: {e}"))
}

fn sha1_hex(bytes: &[u8]) -> String {
    use sha1::Digest;
    sha1::Sha1::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A fresh folder, removed when the returned guard drops (at the test's
/// end, whether it passes or fails).
fn temp_dir(name: &str) -> TempFolder {
    TempFolder(tempfile::Builder::new().prefix(&format!("ditto-cli-{name}-")).tempdir().unwrap())
}

/// A temporary folder that reads as its path.
struct TempFolder(tempfile::TempDir);

impl std::ops::Deref for TempFolder {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        self.0.path()
    }
}

#[test]
fn hash_a_file_prints_one_line_per_page_and_totals() {
    let dir = temp_dir("hash");
    let file = dir.join("data.bin");
    // Two full pages and a partial third one, zero-filled to 4 KiB by the command.
    let mut data: Vec<u8> = (0..(2 * 4096 + 1000)).map(|i| (i * 31 % 251) as u8).collect();
    std::fs::write(&file, &data).unwrap();
    let out = ditto(&["hash", file.to_str().unwrap(), "--config", "cu"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    data.resize(3 * 4096, 0);
    for (i, page) in data.chunks(4096).enumerate() {
        let fields: Vec<&str> = lines[i].split(' ').collect();
        assert_eq!(fields.len(), 3, "line {i}: {}", lines[i]);
        assert_eq!(fields[0], i.to_string());
        assert_eq!(fields[1], sha1_hex(page));
        let cycles: u64 = fields[2].parse().unwrap();
        assert!((5_200..5_300).contains(&cycles), "page {i} took {cycles} cycles");
    }
    assert_eq!(lines[3], "pages 3");
    assert!(lines[4].starts_with("cycles "));
    assert!(lines[5].starts_with("cycles_per_page "));
    assert!(lines[6].starts_with("cycles_per_block "));
    assert!(lines[7].starts_with("latency_cycles "));
}

#[test]
fn hash_without_a_file_hashes_the_builtin_sample_as_json() {
    let out = ditto(&["hash", "--json", "--config", "large"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sample = ditto_host::sample::sample_bytes();
    let pages = report["pages"].as_array().unwrap();
    assert_eq!(pages.len(), ditto_host::sample::SAMPLE_PAGES);
    for (page, entry) in sample.chunks(4096).zip(pages) {
        assert_eq!(entry["sha1"], sha1_hex(page));
    }
    assert_eq!(report["totals"]["lanes"], ditto_hw::config::LARGE.lanes);
    assert_eq!(report["totals"]["pages"], 16);
}

#[test]
fn verilog_writes_the_board_tops_and_the_blocks() {
    let dir = temp_dir("verilog");
    let out = ditto(&["verilog", "--config", "cu", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for file in ["ditto_cu.v", "ditto_cu_hasher.v", "ditto_cu_index.v", "ditto_cu_core.v"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains("module top("), "{file}");
    }
    // `ditto_cu.v` is what `ditto synth` builds: the whole core, FTL
    // controller included, behind the board's pins.
    let board = std::fs::read_to_string(dir.join("ditto_cu.v")).unwrap();
    assert!(board.contains("usb_rx") && board.contains("usb_tx") && board.contains("rst_n"));
    assert!(board.contains("module top$core$ftl("), "the whole core's FTL controller");
    // The interim top (hasher and index without the FTL) is retired.
    assert!(!dir.join("ditto_cu_interim.v").exists());
    let written = std::fs::read_dir(&*dir).unwrap().count();
    assert_eq!(written, 4, "the board top, hasher, index and core");
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    // `ditto hash disk.img | head -c 1`: more lines than a pipe holds, and
    // the reader gone after one byte.
    let dir = temp_dir("closed-pipe");
    let image = dir.join("zeros.img");
    std::fs::write(&image, vec![0u8; 3_000 * 4096]).unwrap();
    let err = dir.join("stderr.txt");
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' hash '{}' 2>'{}' | head -c 1 >/dev/null",
            env!("CARGO_BIN_EXE_ditto"),
            image.display(),
            err.display()
        ))
        .env("RUST_BACKTRACE", "0")
        .env("TMPDIR", &*dir)
        .status()
        .unwrap();
    assert!(status.success());
    let err = std::fs::read_to_string(&err).unwrap();
    assert!(err.is_empty(), "nothing on stderr, no panic: {err}");
    // And no scratch folder left behind.
    let mut left: Vec<_> = std::fs::read_dir(&*dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    left.sort();
    assert_eq!(left, ["stderr.txt", "zeros.img"], "only the test's own files remain");
}

#[test]
fn unknown_config_is_a_clear_error() {
    let out = ditto(&["hash", "--config", "huge"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown configuration `huge`") && err.contains("cu, large"), "{err}");
}

#[test]
fn missing_file_is_a_clear_error() {
    let out = ditto(&["hash", "/nonexistent/ditto-input"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("reading /nonexistent/ditto-input"), "{err}");
}

#[test]
fn empty_file_is_a_clear_error() {
    let dir = temp_dir("empty");
    let file = dir.join("empty.bin");
    std::fs::write(&file, b"").unwrap();
    let out = ditto(&["hash", file.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is empty"));
}

#[test]
fn hash_with_waveform_records_the_run_into_a_vcd() {
    let dir = temp_dir("waveform");
    let vcd = dir.join("hash.vcd");
    let out = ditto(&["hash", "--config", "cu", "--waveform", vcd.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("waveform: {}", vcd.display())));
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(text.contains("$enddefinitions") && text.contains("digest_valid"));
    // 16 sample pages of 5,200 cycles, ten time units per cycle.
    assert!(text.contains("\n#800000\n"), "the whole run is recorded");
}

#[test]
fn large_has_no_board_top_and_says_so() {
    let dir = temp_dir("verilog-large");
    let out = ditto(&["verilog", "--config", "large", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("ditto_large_hasher.v").exists() && dir.join("ditto_large_index.v").exists());
    assert!(!dir.join("ditto_large.v").exists(), "the large index table is external: no board top");
    let index = std::fs::read_to_string(dir.join("ditto_large_index.v")).unwrap();
    assert!(index.contains("tbl$req_addr") && index.contains("fp$req_addr"), "both memory ports are at the top");
    let out = ditto(&["synth", "--board", "alchitry-cu", "--config", "large", "--out", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no board top"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn bench_index_meets_the_floors_and_prints_every_field() {
    let out = ditto(&["bench", "index", "--config", "large", "--commands", "1024", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let runs: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    for r in &runs {
        for key in ["latency_cycles", "fsms", "workload", "bloom", "commands", "cycles", "commands_per_kcycle"] {
            assert!(r.get(key).is_some(), "{key} missing from {r}");
        }
        assert_eq!(r["latency_cycles"], 64);
    }
    let rate = |w: &str, m: u64, bloom: bool| {
        runs.iter()
            .find(|r| r["workload"] == w && r["fsms"] == m && r["bloom"] == bloom)
            .unwrap_or_else(|| panic!("no run {w} {m} {bloom}"))["commands_per_kcycle"]
            .as_f64()
            .unwrap()
    };
    // Cycle counts are exact, so these floors are deterministic.
    assert!(rate("uniform", 8, true) >= 6.0 * rate("uniform", 1, true), "eight FSMs at least 6x one: {runs:?}");
    assert!(
        rate("all-new-90", 8, true) >= 0.95 * rate("duplicates-only", 8, true),
        "worst case within 0.95 of the best"
    );
    let worst = runs.iter().find(|r| r["workload"] == "all-new-90").unwrap();
    assert!(worst["fill_before"].as_f64().unwrap() >= 0.9, "the table is at least 90% full: {worst}");
    assert!(rate("all-new-90", 8, true) > rate("all-new-90", 8, false), "Bloom filters pay on the worst case");
}

#[test]
fn bench_index_rejects_bad_arguments() {
    let out = ditto(&["bench", "index", "--config", "nope"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown configuration"));
}

#[test]
fn bench_core_meets_the_sha1_limit_and_prints_every_field() {
    let out = ditto(&["bench", "core", "--config", "all", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let runs: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    for r in &runs {
        for key in ["config", "lanes", "stream", "pages", "cycles", "cycles_per_page"] {
            assert!(r.get(key).is_some(), "{key} missing from {r}");
        }
    }
    let run = |config: &str, stream: &str| {
        runs.iter()
            .find(|r| r["config"] == config && r["stream"] == stream)
            .unwrap_or_else(|| panic!("no run {config} {stream}"))
    };
    let f = |r: &serde_json::Value, key: &str| r[key].as_f64().unwrap_or_else(|| panic!("{key} in {r}"));
    for config in ["cu", "large"] {
        // Cycle counts are exact, so these floors are deterministic: the
        // index and the FTL add no stall to the SHA-1 limit (within 2%).
        for stream in ["all-unique", "all-duplicate"] {
            let r = run(config, stream);
            let limit = 5200.0 / f(r, "lanes");
            assert!(f(r, "cycles_per_page") <= 1.02 * limit, "{r}");
            assert!(f(r, "trim_latency_cycles") > 0.0 && f(r, "lone_write_latency_cycles") > 0.0);
        }
        assert!(f(run(config, "all-duplicate"), "dedup_ratio") > 0.95);
        assert_eq!(f(run(config, "all-unique"), "dedup_ratio"), 0.0);
        let (wide, local) = (run(config, "dedup-d8-array-wide"), run(config, "dedup-d8-device-local"));
        assert_eq!(f(wide, "devices"), 8.0);
        assert!(f(wide, "dedup_ratio") > 2.0 * f(local, "dedup_ratio"), "array-wide finds more: {wide} {local}");
        if config == "large" {
            // `large`'s FTL reads ahead while the index looks up, so a write
            // costs the core at most 44 cycles in either scope (38.4 before
            // the wide core registered the index's answers and memory
            // requests, 41.1 since), far below its 20 lanes' 260.
            for r in [wide, local] {
                assert!(f(r, "cycles_per_page") <= 44.0, "{r}");
            }
        }
        let gc = run(config, "gc-heavy");
        assert!(f(gc, "write_amplification") > 1.2 && f(gc, "relocations") > 0.0, "{gc}");
        let m = &run(config, "all-unique")["metadata"];
        assert!(f(&m["ditto"], "per_logical_page") < f(&m["dm_dedup_over_ftl"], "per_logical_page"));
    }
}

#[test]
fn ingest_counts_distinct_pages_exactly_on_both_backends() {
    // A directory: two copies of one file, a file sharing its first pages,
    // and a short file (zero-filled to a page).
    let dir = temp_dir("ingest");
    let mut a = Vec::new();
    for i in 0..40u32 {
        a.extend(std::iter::repeat_n((i % 13) as u8, 4096));
    }
    std::fs::write(dir.join("a.bin"), &a).unwrap();
    std::fs::write(dir.join("b.bin"), &a).unwrap();
    std::fs::write(dir.join("c.bin"), [&a[..8192], &[200u8; 4096][..]].concat()).unwrap();
    std::fs::write(dir.join("d.txt"), b"short").unwrap();
    let mut distinct = std::collections::HashSet::new();
    for name in ["a.bin", "b.bin", "c.bin", "d.txt"] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        for chunk in bytes.chunks(4096) {
            let mut page = chunk.to_vec();
            page.resize(4096, 0);
            distinct.insert(page);
        }
    }
    let mut reports = Vec::new();
    for backend in ["verilator", "model"] {
        let store = temp_dir(&format!("ingest-store-{backend}"));
        let out = ditto(&[
            "ingest",
            dir.to_str().unwrap(),
            "--backend",
            backend,
            "--devices",
            "2",
            "--store",
            store.to_str().unwrap(),
            "--json",
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["pages"], 40 + 40 + 3 + 1);
        assert_eq!(r["unique_pages"], distinct.len() as u64, "{r}");
        assert_eq!(r["duplicate_pages"], 84 - distinct.len() as u64);
        assert_eq!(r["collisions_caught"], 0);
        for key in ["dedup_ratio", "flash_writes_saved", "write_amplification", "bloom_negatives", "cycles_per_page"] {
            assert!(r.get(key).is_some(), "{key} missing from {r}");
        }
        reports.push(r);
        // The device files hold every distinct page.
        let mut held = std::collections::HashSet::new();
        for d in 0..2 {
            let bytes = std::fs::read(store.join(format!("device{d}.g0.img"))).unwrap();
            held.extend(bytes.chunks(4096).map(|c| c.to_vec()));
        }
        assert!(distinct.iter().all(|p| held.contains(p)), "{backend}: a distinct page is missing from the store");
    }
    assert!(reports[0]["cycles_per_page"].as_f64().unwrap() > 0.0, "the cosimulation counts cycles");
    assert_eq!(reports[0]["unique_pages"], reports[1]["unique_pages"]);
}

#[test]
fn ingest_of_a_missing_path_is_a_clear_error() {
    let out = ditto(&["ingest", "/nonexistent/ditto-input", "--backend", "model"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read /nonexistent/ditto-input"), "{err}");
    let out = ditto(&["ingest", "--backend", "serial:/dev/nonexistent-ditto-tty"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("serial port /dev/nonexistent-ditto-tty"), "{err}");
    // The board backends have the board's own configuration and geometry.
    let out = ditto(&["ingest", "--backend", "board-cosim", "--config", "large"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("use --config cu"), "{out:?}");
    let out = ditto(&["ingest", "--backend", "board-cosim", "--devices", "2"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("board-cosim serves 1 to 1 device,"), "{out:?}");
    // A backend is parsed before anything else: a bad one is named.
    let out = ditto(&["ingest", "--backend", "serial", "--check"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown backend `serial`"), "{out:?}");
}

#[test]
fn ingest_of_a_directory_with_an_unreadable_entry_names_it_before_writing_anything() {
    // A dangling symbolic link (root reads through any permission bits, so
    // a chmod would not do) and, in another tree, a named pipe.
    let dir = temp_dir("ingest-unreadable");
    std::fs::write(dir.join("a.bin"), [7u8; 8192]).unwrap();
    std::os::unix::fs::symlink(dir.join("gone"), dir.join("b-broken-link")).unwrap();
    let out = ditto(&["ingest", dir.to_str().unwrap(), "--backend", "model"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read") && err.contains("b-broken-link"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("pages"), "nothing was ingested");
    let fifo_dir = temp_dir("ingest-fifo");
    let fifo = fifo_dir.join("pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = ditto(&["ingest", fifo_dir.to_str().unwrap(), "--backend", "model"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("not a regular file or directory"), "{err}");
}

#[test]
fn ingest_through_the_cosimulated_board_link_counts_exactly_and_stores_every_page() {
    // 40 pages with 9 distinct contents, through the Cu's whole-core board
    // top driven bit by bit on its UART pins.
    let dir = temp_dir("ingest-board");
    let mut bytes = Vec::new();
    for i in 0..40u32 {
        bytes.extend(std::iter::repeat_n((i * i % 9) as u8 + 1, 4096));
    }
    let input = dir.join("image.bin");
    std::fs::write(&input, &bytes).unwrap();
    let store = temp_dir("ingest-board-store");
    let out = ditto(&[
        "ingest",
        input.to_str().unwrap(),
        "--backend",
        "board-cosim",
        "--store",
        store.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let distinct: std::collections::HashSet<_> = bytes.chunks(4096).collect();
    assert_eq!((r["pages"].as_u64(), r["unique_pages"].as_u64()), (Some(40), Some(distinct.len() as u64)), "{r}");
    assert!(r["backend"].as_str().unwrap().starts_with("board-cosim"), "{r}");
    let held = std::fs::read(store.join("device0.g0.img")).unwrap();
    let held: std::collections::HashSet<_> = held.chunks(4096).collect();
    assert!(distinct.iter().all(|p| held.contains(p)), "a distinct page is missing from the store");

    // The store recovers onto the board top too (its core rebuilt over the
    // link), and the same pages again are all shared.
    let out = ditto(&["recover", "--store", store.to_str().unwrap(), "--backend", "board-cosim", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rec: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((rec["rebuilt_lpas"].as_u64(), rec["live_pages"].as_u64()), (Some(40), Some(distinct.len() as u64)));
    let out = ditto(&[
        "ingest",
        input.to_str().unwrap(),
        "--backend",
        "board-cosim",
        "--store",
        store.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let again: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((again["unique_pages"].as_u64(), again["duplicate_pages"].as_u64()), (Some(0), Some(40)), "{again}");
}

/// A trace line in the FIU format for one 4 KiB page.
fn fiu_line(ts: u64, lba: u64, op: &str, md5: &str) -> String {
    format!("{ts} 4242 postgres {lba} 8 {op} 8 0 {md5}\n")
}

#[test]
fn replay_feeds_trace_hashes_and_counts_exactly() {
    let dir = temp_dir("replay");
    let md5s: Vec<String> =
        (0..10u8).map(|i| format!("{:032x}", 0x1234_5678_9abc_def0_u128.wrapping_mul(i as u128 + 1))).collect();
    let mut trace = String::new();
    let mut distinct = std::collections::HashSet::new();
    for n in 0..60u64 {
        let md5 = &md5s[(n * n % 7) as usize];
        distinct.insert(md5.clone());
        trace += &fiu_line(n, n * 8, "W", md5);
    }
    trace += &fiu_line(99, 8, "R", &md5s[0]);
    trace += &fiu_line(100, 8 * 500, "R", &md5s[0]); // never written
                                                     // A two-page request carries two MD5s.
    trace += &format!("101 1 dd {} 16 W 8 0 {} {}\n", 8 * 70, md5s[8], md5s[9]);
    distinct.insert(md5s[8].clone());
    distinct.insert(md5s[9].clone());
    let path = dir.join("trace.txt");
    std::fs::write(&path, &trace).unwrap();
    for backend in ["verilator", "model"] {
        let out = ditto(&["replay", path.to_str().unwrap(), "--backend", backend, "--json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["pages"], 62);
        assert_eq!(r["unique_pages"], distinct.len() as u64, "{r}");
        assert_eq!(r["duplicate_pages"], 62 - distinct.len() as u64);
        assert_eq!((r["reads"].as_u64(), r["reads_mapped"].as_u64()), (Some(2), Some(1)));
        // Every access arrives a nanosecond after the last: the writes queue
        // behind each other's 200 us programs on the one device.
        assert!(r["response_times_missing"].is_null(), "{r}");
        let times = &r["response_times"];
        assert!(times["max_us"].as_f64().unwrap() > 200.0 * (distinct.len() as f64 - 1.0), "{times}");
        assert!(times["p99_us"].as_f64().unwrap() >= 200.0, "{times}");
    }
    // A device opened from a store has a history the golden model did not
    // see: no response times, and the report says why.
    let store = dir.join("store");
    for _ in 0..2 {
        let r = ditto_json(&[
            "replay",
            path.to_str().unwrap(),
            "--backend",
            "model",
            "--store",
            store.to_str().unwrap(),
            "--json",
        ]);
        let reopened = r["response_times"].is_null();
        assert_eq!(
            reopened,
            r["response_times_missing"].as_str().is_some_and(|w| w.contains("opened from a store")),
            "{r}"
        );
    }
    let out = ditto(&["replay", path.to_str().unwrap(), "--backend", "model", "--store", store.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("response times     none: the device was opened from a store")
    );
}

#[test]
fn replay_of_a_malformed_trace_names_the_line() {
    let dir = temp_dir("replay-bad");
    let path = dir.join("trace.txt");
    let good = fiu_line(1, 0, "W", &format!("{:032x}", 7));
    std::fs::write(&path, format!("{good}{good}1 2 x 0 8 W 8 0 {}\n", "z".repeat(32))).unwrap();
    let out = ditto(&["replay", path.to_str().unwrap(), "--backend", "model"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("trace.txt:3:") && err.contains("is not an MD5"), "{err}");
    // Two MD5s for one page.
    std::fs::write(&path, format!("{good}1 2 x 0 8 W 8 0 {0} {0}\n", "a".repeat(32))).unwrap();
    let out = ditto(&["replay", path.to_str().unwrap(), "--backend", "model"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("trace.txt:2: 2 MD5s for 1 pages"));
}

#[test]
fn bench_plots_writes_three_svgs() {
    let dir = temp_dir("plots");
    let out = ditto(&["bench", "plots", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for name in ["cycles-per-page-vs-lanes.svg", "index-throughput-vs-fsms.svg", "dedup-ratio-vs-table-size.svg"] {
        let svg = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(svg.starts_with("<svg") && (svg.contains("<polyline") || svg.contains("<path")), "{name}");
    }
}

#[test]
fn flash_without_a_bitstream_or_a_board_says_why() {
    let out = ditto(&["flash", "--bitstream", "/nonexistent/ditto.bin"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("run `ditto synth"));
    // A bitstream but no board on this machine: iceprog's failure is reported.
    let dir = temp_dir("flash");
    std::fs::write(dir.join("ditto.bin"), [0u8; 64]).unwrap();
    let out = ditto(&["flash", "--bitstream", dir.join("ditto.bin").to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("iceprog"), "{err}");
}

/// The distinct 4 KiB page contents of `bytes` (the last page zero-filled).
fn distinct_pages(bytes: &[u8]) -> usize {
    let pages: std::collections::HashSet<Vec<u8>> = bytes
        .chunks(4096)
        .map(|c| {
            let mut p = c.to_vec();
            p.resize(4096, 0);
            p
        })
        .collect();
    pages.len()
}

/// Real data: an ext4 disk image (`mkfs.ext4 -d`) of this repository's own
/// files, ingested on the default backend (the cosimulated `large` core):
/// one stored page per distinct page content, the zero pages included.
#[test]
fn ingest_of_a_real_ext4_image_stores_each_distinct_page_once() {
    let dir = temp_dir("ext4");
    let image = dir.join("disk.img");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = dir.join("files");
    std::fs::create_dir_all(&files).unwrap();
    for sub in ["hw/src", "host-driver/src", "sim/src", "README.md"] {
        let copy = Command::new("cp").arg("-r").arg(root.join(sub)).arg(&files).status().unwrap();
        assert!(copy.success());
    }
    let mkfs = Command::new("mkfs.ext4")
        .args(["-q", "-F", "-b", "4096", "-E", "root_owner=0:0", "-d"])
        .arg(&files)
        .arg(&image)
        .arg("12M")
        .env("E2FSPROGS_FAKE_TIME", "1700000000")
        .output()
        .expect("mkfs.ext4 (e2fsprogs) runs");
    assert!(mkfs.status.success(), "{}", String::from_utf8_lossy(&mkfs.stderr));
    let bytes = std::fs::read(&image).unwrap();
    let distinct = distinct_pages(&bytes);
    let out = ditto(&["ingest", image.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["pages"], (bytes.len() / 4096) as u64);
    assert!(r["backend"].as_str().unwrap().starts_with("verilator"), "{r}");
    assert_eq!(r["unique_pages"], distinct as u64, "{r}");
    assert_eq!((r["index_full_writes"].as_u64(), r["saturated_writes"].as_u64()), (Some(0), Some(0)), "{r}");
    assert!(r["duplicate_pages"].as_u64().unwrap() > 1_000, "an ext4 image is mostly zero pages: {r}");
}

/// Hot content: 8,400 pages, nearly all zeros, on `cu`: the zero page's copy saturates at 4,095 references and hands the
/// index to a new copy, so three copies hold them all.
#[test]
fn ingest_of_hot_content_stores_ceil_n_over_4095_copies() {
    let dir = temp_dir("hot");
    let mut bytes = vec![0u8; 8_400 * 4096];
    for (i, page) in bytes.chunks_mut(4096).enumerate().filter(|(i, _)| i % 1000 == 7) {
        page[..8].copy_from_slice(&(i as u64 + 1).to_be_bytes());
    }
    let image = dir.join("hot.img");
    std::fs::write(&image, &bytes).unwrap();
    for backend in ["model", "verilator"] {
        let out = ditto(&["ingest", image.to_str().unwrap(), "--config", "cu", "--backend", backend, "--json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let zeros = 8_400 - 9;
        let copies = (zeros as u64).div_ceil(4095);
        assert_eq!(copies, 3);
        assert_eq!(r["unique_pages"], 9 + copies, "{backend}: {r}");
        assert_eq!(r["saturated_writes"], copies - 1, "{backend}: {r}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("warning"), "no index is full: {err}");
    }
}

/// A size past the configuration's limits is refused before any work, with
/// the limit named; `ditto info` prints the limits.
#[test]
fn a_size_past_the_limits_is_refused_up_front_and_info_names_them() {
    let out = ditto(&["serve", "--nbd", "127.0.0.1:1", "--size", "2G", "--backend", "model"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds at most 419328 pages"), "{err}");
    let out = ditto(&["info", "--config", "cu", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["index_entries"].as_u64(), v["max_devices"].as_u64()), (Some(4096), Some(8)), "{v}");
    let out = ditto(&["info", "--config", "cu", "--backend", "serial:/dev/ttyUSB1"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("at most 4096 per device"));
}

#[test]
fn a_store_ingested_on_one_backend_recovers_on_another_and_dedupes_against_it() {
    let store_guard = temp_dir("recover-store");
    let store = store_guard.to_str().unwrap();
    let first = ditto(&["ingest", "--backend", "model", "--store", store, "--json"]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let first: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();

    // The store keeps its config: another one is refused, naming both.
    let other = ditto(&["ingest", "--backend", "model", "--config", "cu", "--store", store]);
    assert!(!other.status.success());
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(err.contains("config large, not cu"), "{err}");

    // Recovery rebuilds the cosimulated core from the store and reports it.
    let out = ditto(&["recover", "--store", store, "--backend", "verilator", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["rebuilt_lpas"], first["pages"], "{r}");
    assert_eq!(r["live_pages"], first["unique_pages"], "{r}");
    assert_eq!(r["discarded_operations"], 0, "{r}");
    // Written once in LPA order, the data lies where the rebuilt core puts
    // it: the journal is checkpointed in place, nothing copied.
    assert_eq!((r["compacted"].as_bool(), r["pages_copied"].as_u64()), (Some(false), Some(0)), "{r}");
    assert_eq!(r["generation"], 1, "{r}");
    assert!(r["corrupt_lpas"].as_array().unwrap().is_empty(), "{r}");

    // The same data again, on the cosimulated core: every page is shared.
    let again = ditto(&["ingest", "--backend", "verilator", "--store", store, "--json"]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["unique_pages"], 0, "{again}");
    assert_eq!(again["duplicate_pages"], first["pages"], "{again}");

    let scrub = ditto(&["scrub", "--store", store, "--json"]);
    assert!(scrub.status.success(), "{}", String::from_utf8_lossy(&scrub.stderr));
    let s: serde_json::Value = serde_json::from_slice(&scrub.stdout).unwrap();
    assert_eq!(s["pages_checked"], first["unique_pages"], "{s}");
}

#[test]
fn prove_reports_a_proof_its_covers_and_its_planted_bugs_as_json() {
    let waves = temp_dir("prove");
    let out = ditto(&["prove", "--only", "fifo-4", "--planted", "--json", "--waveforms", waves.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    let proofs = report["proofs"].as_array().unwrap();
    assert_eq!(proofs.len(), 1, "{report}");
    let proof = &proofs[0];
    assert_eq!(proof["name"], "fifo-4");
    assert_eq!(proof["verdict"], "proven", "{proof}");
    let covers = proof["covers"].as_array().unwrap();
    assert!(!covers.is_empty());
    for cover in covers {
        assert_eq!(cover["verdict"], "reached", "{cover}");
        assert!(Path::new(cover["waveform"].as_str().unwrap()).exists(), "{cover}");
    }
    let planted = proof["planted"].as_array().unwrap();
    assert!(!planted.is_empty());
    for bug in planted {
        assert_eq!(bug["caught"], true, "{bug}");
        assert_eq!(bug["verdict"], "failed", "{bug}");
        assert!(Path::new(bug["waveform"].as_str().unwrap()).exists(), "{bug}");
    }
}

#[test]
fn prove_names_the_proofs_when_asked_for_an_unknown_one() {
    let out = ditto(&["prove", "--only", "no-such-proof"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no proof named \"no-such-proof\"") && err.contains("fifo-4") && err.contains("uart-link"),
        "{err}"
    );
    let listed = ditto(&["prove", "--list"]);
    assert!(listed.status.success());
    let names: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "fifo-4",
            "lock-table",
            "lock-wait",
            "uart-link",
            "frame-rx",
            "frame-tx",
            "request-decoder",
            "bloom",
            "ftl-refcount",
            "ftl-refcount-nvm",
            "ftl-refcount-staged",
            "index-response-stage",
            "mem-request-stage",
            "fifo-8"
        ]
    );
}

#[test]
fn a_mutation_table_update_that_would_not_compare_is_refused_before_any_work() {
    let dir = temp_dir("mutants-update");
    let readme = dir.join("README.md");
    let command = "ditto mutants --count 20 --seed 1 --depth 8 --equivalence-seconds 180";
    std::fs::write(
        &readme,
        format!("<!-- mutants:begin -->\n\nMutants (`{command}`):\n\n| `fifo` | 20 |\n\n<!-- mutants:end -->\n"),
    )
    .unwrap();
    let before = std::fs::read_to_string(&readme).unwrap();
    let path = readme.to_str().unwrap();
    let started = std::time::Instant::now();
    let other_count = ditto(&["mutants", "--module", "fifo", "--count", "5", "--update", path]);
    assert!(!other_count.status.success());
    let err = String::from_utf8_lossy(&other_count.stderr);
    assert!(err.contains("made by `ditto mutants --count 20") && err.contains("--count 5"), "{err}");
    // With no options an update is the table's own run (the README's
    // sample of 20), so against a table of another seed it is refused as
    // `--count 20 --seed 2`, not as some other sample.
    let other_seed = ditto(&["mutants", "--module", "fifo", "--seed", "2", "--update", path]);
    assert!(!other_seed.status.success());
    let err = String::from_utf8_lossy(&other_seed.stderr);
    assert!(err.contains("ditto mutants --count 20 --seed 2 --depth 8 --equivalence-seconds 180"), "{err}");
    let one_mutant = ditto(&["mutants", "--module", "fifo", "--count", "20", "--mutant", "3", "--update", path]);
    assert!(!one_mutant.status.success());
    assert!(String::from_utf8_lossy(&one_mutant.stderr).contains("drop --mutant"));
    // Refused up front: no model was built, the file is as it was.
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(std::fs::read_to_string(&readme).unwrap(), before);
}

#[test]
fn a_signal_stops_the_tools_and_leaves_no_temporary_file() {
    // `ditto mutants` runs Yosys and Verilator in work folders of its own;
    // SIGTERM in the middle must stop them and remove everything.
    let tmp = temp_dir("signal");
    let mut run = Command::new(env!("CARGO_BIN_EXE_ditto"))
        .args(["mutants", "--module", "fifo", "--count", "2"])
        .env("TMPDIR", &*tmp)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    let tools = loop {
        let tools = ditto_host::scratch::descendants(run.id());
        let folders = std::fs::read_dir(&*tmp).unwrap().count();
        if !tools.is_empty() && folders > 0 {
            break tools;
        }
        assert!(run.try_wait().unwrap().is_none(), "ditto mutants ended before it started a tool");
        assert!(std::time::Instant::now() < deadline, "ditto mutants started no tool in 300 s");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // SAFETY: a signal to a child this test started.
    unsafe { libc::kill(run.id() as i32, libc::SIGTERM) };
    let status = run.wait().unwrap();
    assert_eq!(status.code(), Some(130), "ditto exits as interrupted: {status}");
    for tool in tools {
        assert!(!ditto_host::scratch::is_running(tool), "tool process {tool} still runs after ditto ended");
    }
    let left: Vec<_> = std::fs::read_dir(&*tmp).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn bench_peer_sets_the_core_against_software_dedup() {
    let dir = temp_dir("peer");
    let report = dir.join("report.json");
    // A synthesis report of `cu` (as `ditto synth` writes it) gives the clock.
    std::fs::write(
        &report,
        r#"{"board": "alchitry-cu", "config": "cu", "timing_met": true, "fmax_mhz": 104.0, "seed": 5}"#,
    )
    .unwrap();
    let args = ["bench", "peer", "--config", "cu", "--pages", "1024", "--stream-pages", "12", "--json"];
    let out = ditto(&[&args[..], &["--report", report.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hw = &r["ditto"];
    // One SHA-1 lane: 65 blocks of 80 rounds per page, whatever the stream.
    assert_eq!(hw["cycles_per_page"], 5200.0);
    assert_eq!(hw["clock_mhz"], 104.0);
    assert_eq!(hw["clock_source"]["synthesis_report"]["seed"], 5);
    let hw_rate = hw["pages_per_second"].as_f64().unwrap();
    assert!((hw_rate - 104e6 / 5200.0).abs() < 1e-6, "{hw_rate}");
    let sets = r["page_sets"].as_array().unwrap();
    assert_eq!(sets.len(), 2, "random and the sample: {sets:?}");
    // One page in four is one of eight hot contents.
    assert_eq!(sets[0]["pages"], 1024);
    let distinct = sets[0]["unique_pages"].as_u64().unwrap();
    assert!((700..850).contains(&distinct), "{distinct} distinct pages of 1,024");
    assert_eq!(sets[1]["unique_pages"], 5, "the sample has five contents");
    for set in sets {
        let one = set["one_core"]["pages_per_second"].as_f64().unwrap();
        assert_eq!(set["one_core"]["threads"], 1);
        assert!(set["all_cores"]["threads"].as_u64().unwrap() >= 1);
        assert!((set["ditto_over_one_core"].as_f64().unwrap() - hw_rate / one).abs() < 1e-9);
    }
    // The ULX3S's UART: 3 Mbaud over 4,129-byte WRITE frames.
    let cap = r["link"]["pages_per_second"].as_f64().unwrap();
    assert!((72.0..73.0).contains(&cap), "{cap}");

    // A page count past the limits is refused, naming them, before any work.
    let out = ditto(&["bench", "peer", "--config", "cu", "--pages", "10"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pages 10: give 1024 to 1048576"));
}

#[test]
fn bench_nvm_refuses_bad_options_before_any_work() {
    for (args, named) in [
        (&["--requests", "999"][..], "--requests 999"),
        (&["--interarrival-us", "0"][..], "--interarrival-us 0"),
        (&["--cache-percent", "101"][..], "--cache-percent 101"),
    ] {
        let out = ditto(&[&["bench", "nvm"][..], args].concat());
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(named), "{args:?}: {err}");
    }
    let dir = temp_dir("nvm-trace");
    let bad = dir.join("bad.trace");
    std::fs::write(&bad, "12 1 p 0 8 W 8 0 not-an-md5\n").unwrap();
    let out = ditto(&["bench", "nvm", "--trace", bad.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.trace:1: field 9"), "{out:?}");
}

/// The skewed workload on the default logical space: the seed's cache cuts
/// copy-outs, the cooperation cuts them further, and the sample (five
/// contents) never makes GC work. A real trace file is replayed from its
/// own timestamps under its own name.
#[test]
fn bench_nvm_measures_each_workload_with_and_without_the_cache() {
    let dir = temp_dir("nvm");
    let trace = dir.join("tiny.trace");
    let text: String =
        (0..64u64).map(|n| format!("{} 7 p {} 8 W 8 0 {:032x}\n", 1_000 * n, 8 * (n % 16), n + 1)).collect();
    std::fs::write(&trace, text).unwrap();
    let r = ditto_json(&[
        "bench",
        "nvm",
        "--requests",
        "20000",
        "--cache-percent",
        "10",
        "--trace",
        trace.to_str().unwrap(),
        "--plots",
        dir.to_str().unwrap(),
        "--json",
    ]);
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 9, "three workloads: off, plain, cooperative");
    let run = |w: &str, mode: &str| runs.iter().find(|x| x["workload"] == w && x["mode"] == mode).unwrap().clone();
    let copy_outs = |w: &str, mode: &str| run(w, mode)["copy_outs"].as_u64().unwrap();
    assert!(copy_outs("skewed", "off") > 0);
    assert!(copy_outs("skewed", "plain") < copy_outs("skewed", "off"));
    assert!(copy_outs("skewed", "cooperative") < copy_outs("skewed", "plain"));
    assert!(run("skewed", "cooperative")["gc_drops"].as_u64().unwrap() > 0);
    for mode in ["off", "plain", "cooperative"] {
        assert_eq!(copy_outs("sample", mode), 0);
        assert!(run("sample", mode)["dedup_ratio"].as_f64().unwrap() > 0.99);
        assert_eq!(run("tiny.trace", mode)["requests"], 64);
    }
    assert!(run("skewed", "off")["response"]["p99_us"].as_f64().unwrap() >= 200.0, "a program takes 200 us");
    for plot in ["nvm-copy-outs-vs-cache-size.svg", "nvm-response-deviation-vs-cache-size.svg"] {
        assert!(std::fs::read_to_string(dir.join(plot)).unwrap().contains("<svg"));
    }
}

/// 300 pages, hot among cold (one page in three is one of three hot
/// contents), in `dir`; and the distinct pages.
fn skewed_pages(dir: &Path) -> (PathBuf, std::collections::HashSet<Vec<u8>>) {
    let mut input = Vec::new();
    let mut distinct = std::collections::HashSet::new();
    for i in 0..300u32 {
        let mut page = vec![0u8; 4096];
        let content = if i % 3 == 0 { i % 9 } else { 1000 + i };
        page[..4].copy_from_slice(&content.to_le_bytes());
        page[4096 - 4..].copy_from_slice(&content.to_le_bytes());
        distinct.insert(page.clone());
        input.extend(page);
    }
    let file = dir.join("skewed.bin");
    std::fs::write(&file, &input).unwrap();
    (file, distinct)
}

/// The RTL's cache (cosimulated, each configuration) makes the golden
/// model's decisions: the same pages in the same slots and flash pages,
/// byte for byte, and the same counts.
#[test]
fn the_rtl_cache_stores_what_the_golden_model_stores() {
    let dir = temp_dir("nvm-rtl");
    let (file, distinct) = skewed_pages(&dir);
    let ingest = |backend: &str, config: &str| {
        let store = temp_dir(&format!("nvm-rtl-{backend}-{config}"));
        let r = ditto_json(&[
            "ingest",
            file.to_str().unwrap(),
            "--backend",
            backend,
            "--config",
            config,
            "--nvm-slots",
            "16",
            "--nvm-cooperative",
            "--store",
            store.to_str().unwrap(),
            "--json",
        ]);
        let bytes = |name: &str| std::fs::read(store.join(name)).unwrap();
        (r, bytes("nvm.g0.img"), bytes("device0.g0.img"))
    };
    let (want, want_nvm, want_flash) = ingest("model", "cu");
    assert_eq!(want["unique_pages"], distinct.len() as u64, "{want}");
    for config in ["cu", "large"] {
        let (got, nvm, flash) = ingest("verilator", config);
        for key in ["unique_pages", "duplicate_pages", "write_amplification", "flash_writes_saved", "bloom_negatives"] {
            assert_eq!(got[key], want[key], "{config}: {key}: {got}");
        }
        assert!(nvm == want_nvm, "{config}: the NVM file differs from the golden model's");
        assert!(flash == want_flash, "{config}: the flash file differs from the golden model's");
    }
}

#[test]
fn ingest_with_the_nvm_cache_keeps_its_pages_in_their_own_file_and_reopens_clean() {
    let dir = temp_dir("nvm");
    let (file, distinct) = skewed_pages(&dir);
    let store = temp_dir("nvm-store");
    let store_arg = store.to_str().unwrap();
    let r = ditto_json(&[
        "ingest",
        file.to_str().unwrap(),
        "--backend",
        "model",
        "--nvm-slots",
        "16",
        "--nvm-cooperative",
        "--store",
        store_arg,
        "--json",
    ]);
    assert_eq!(r["unique_pages"], distinct.len() as u64, "{r}");
    assert_eq!(r["duplicate_pages"], 300 - distinct.len() as u64);
    // Writes land in the cache (2 us) until it fills; then most evict a
    // dirty page to the flash (200 us): the mean lies between.
    let mean = r["response_times"]["mean_us"].as_f64().unwrap();
    assert!((2.0..200.0).contains(&mean), "{r}");
    // The flash saw the written-back copies only: the last ones are still
    // in the cache.
    let unique_share = distinct.len() as f64 / 300.0;
    let amplification = r["write_amplification"].as_f64().unwrap();
    assert!(amplification < unique_share - 8.0 / 300.0, "{r}");
    // The cache's pages are in their own file, the rest in the device's.
    let nvm = std::fs::read(store.join("nvm.g0.img")).unwrap();
    assert_eq!(nvm.len(), 16 * 4096);
    let mut held: std::collections::HashSet<Vec<u8>> = nvm.chunks(4096).map(|c| c.to_vec()).collect();
    let in_nvm = distinct.iter().filter(|p| held.contains(*p)).count();
    assert!(in_nvm >= 8, "only {in_nvm} distinct pages in the NVM file");
    held.extend(std::fs::read(store.join("device0.g0.img")).unwrap().chunks(4096).map(|c| c.to_vec()));
    assert!(distinct.iter().all(|p| held.contains(p)), "a distinct page is missing from the store");
    // Reopened with its own cache (no options): everything is a duplicate,
    // and the scrub finds every page whole.
    let r = ditto_json(&["ingest", file.to_str().unwrap(), "--backend", "model", "--store", store_arg, "--json"]);
    assert_eq!((r["unique_pages"].as_u64(), r["duplicate_pages"].as_u64()), (Some(0), Some(300)), "{r}");
    // This run's own counts, not the reopening's rebuild of the core.
    assert_eq!((r["write_amplification"].as_f64(), r["bloom_negatives"].as_u64()), (Some(0.0), Some(0)), "{r}");
    assert!(r["response_times_missing"].as_str().unwrap().contains("opened from a store"), "{r}");
    let s = ditto_json(&["scrub", "--store", store_arg, "--json"]);
    assert_eq!(s["bad_pages"].as_array().map(Vec::len), Some(0), "{s}");
    assert_eq!(s["pages_checked"].as_u64(), Some(distinct.len() as u64), "{s}");
    // Refused before any work: another cache size for this store, the
    // cache on a board (whose build has none), a cooperative cache of no
    // slots, a cache larger than the device.
    let refusals: [(&[&str], &str); 3] = [
        (&["--backend", "model", "--nvm-slots", "8", "--store", store_arg], "NVM slots"),
        (&["--backend", "model", "--nvm-slots", "0", "--nvm-cooperative"], "needs a cache"),
        (&["--backend", "model", "--nvm-slots", "301"], "would never fill"),
    ];
    for (args, why) in refusals {
        let out = ditto(&[&["ingest", file.to_str().unwrap()][..], args].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(why), "{args:?}: {err}");
    }
    // On a board, even for a file its device holds.
    let small = dir.join("small.bin");
    std::fs::write(&small, &std::fs::read(&file).unwrap()[..8 * 4096]).unwrap();
    let out =
        ditto(&["ingest", small.to_str().unwrap(), "--backend", "board-cosim", "--config", "cu", "--nvm-slots", "8"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("board's build has no NVM cache"), "{err}");
}

/// `ditto luts` on a netlist yosys makes here: a 6-input XOR into one
/// register (two LUT4s at least), an AND into another (one LUT4), both
/// named, and every LUT4 of the netlist charged exactly once.
#[test]
fn luts_charges_a_real_netlist_to_its_registers() {
    let dir = temp_dir("luts");
    std::fs::write(
        dir.join("t.v"),
        "module t(input clk, input [5:0] a, output reg parity_q, output reg both_q);\n\
         always @(posedge clk) begin parity_q <= ^a; both_q <= a[0] & a[1]; end\nendmodule\n",
    )
    .unwrap();
    let yosys = Command::new("yosys")
        .current_dir(&*dir)
        .args(["-q", "-p", "read_verilog t.v; synth_ecp5 -top t; write_json t.json"])
        .output()
        .expect("yosys runs");
    assert!(yosys.status.success(), "{}", String::from_utf8_lossy(&yosys.stderr));
    let netlist = dir.join("t.json");
    let out = ditto(&["luts", netlist.to_str().unwrap(), "--lines", "0"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let charged = |name: &str| -> u64 {
        text.lines()
            .find(|l| l.trim_end().ends_with(name))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no line for {name}:\n{text}"))
    };
    assert!(charged("parity_q") >= 2, "{text}");
    assert_eq!(charged("both_q"), 1, "{text}");
    let total: u64 = text.lines().next().and_then(|l| l.split_whitespace().next()).unwrap().parse().unwrap();
    assert_eq!(total, charged("parity_q") + charged("both_q"), "{text}");
    let missing = ditto(&["luts", dir.join("none.json").to_str().unwrap()]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("none.json"));
}
