//! Replays every fuzz harness's seeds, the corpus `scripts/fuzz` keeps in
//! `host-driver/fuzz/corpus/TARGET`, and any crashing input it saved in
//! `host-driver/fuzz/crashes/TARGET` (a crash stays a failing test until
//! it is fixed). Each input runs through the same function the fuzzer
//! drives; a failure names the file.
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use ditto_host::fuzz::{seeds, TARGETS};

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.map(|e| e.expect("a readable corpus folder").path()).collect();
    files.sort();
    files
}

#[test]
fn every_seed_corpus_input_and_saved_crash_runs_clean() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut failures = Vec::new();
    for target in TARGETS {
        let corpus = files(&fuzz.join("corpus").join(target.name));
        assert!(!corpus.is_empty(), "{}: the corpus is empty: run scripts/fuzz {}", target.name, target.name);
        let seeds = seeds(target.name);
        assert!(!seeds.is_empty(), "{}: no seeds", target.name);
        let mut inputs: Vec<(String, Vec<u8>)> =
            seeds.into_iter().enumerate().map(|(i, s)| (format!("seed {i}"), s)).collect();
        for file in corpus.iter().chain(&files(&fuzz.join("crashes").join(target.name))) {
            inputs.push((file.display().to_string(), std::fs::read(file).expect("a readable corpus file")));
        }
        let count = inputs.len();
        for (name, bytes) in inputs {
            if catch_unwind(AssertUnwindSafe(|| (target.run)(&bytes))).is_err() {
                failures.push(format!("{}: {name}", target.name));
            }
        }
        println!("{}: {count} inputs replayed", target.name);
    }
    assert!(failures.is_empty(), "inputs that break a harness:\n{}", failures.join("\n"));
}
