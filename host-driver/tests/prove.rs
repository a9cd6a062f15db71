//! Every formal proof holds on the emitted Verilog, every cover is reached,
//! and every planted bug makes one of the properties it names fail: all of
//! `ditto prove --planted`, through the one place that judges them.
use ditto_host::prove::{lines, run, ProveRequest};

#[test]
fn every_proof_holds_every_cover_is_reached_and_every_planted_bug_is_caught() {
    let waves = tempfile::tempdir().unwrap();
    let request = ProveRequest { only: Vec::new(), planted: true, waveform_dir: waves.path().to_owned(), jobs: 2 };
    let outcomes = run(&request, |outcome| {
        for line in lines(outcome) {
            println!("{line}");
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outcomes.len(), ditto_host::prove::names().len());
    let mut failures = Vec::new();
    for outcome in &outcomes {
        let name = &outcome.report.name;
        assert!(!outcome.report.covers.is_empty(), "{name}: a proof needs covers");
        assert!(!outcome.planted.is_empty(), "{name}: a proof needs planted bugs");
        if !outcome.passed() {
            failures.push(format!("{name}: {outcome:?}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
