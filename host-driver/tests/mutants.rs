//! `ditto mutants` judges mutants as it says: the FIFO's suite kills every
//! mutant that is not proven equivalent; with the suite taken away, the
//! FIFO's proof still kills mutants and the miter shows the rest differ;
//! and a suite that fails on the design itself is refused, since it would
//! "kill" every mutant.
use ditto_host::mutants::{run, run_target, targets, Fate, MutantsRequest, Target};

fn request(count: u32, waveforms: &std::path::Path) -> MutantsRequest {
    MutantsRequest {
        only: vec!["fifo".to_owned()],
        count,
        mutants: Vec::new(),
        seed: 1,
        equivalence_depth: 6,
        equivalence_seconds: 60,
        jobs: 2,
        waveform_dir: waveforms.to_owned(),
    }
}

fn fifo() -> Target {
    targets().into_iter().find(|t| t.name == "fifo").expect("the fifo target")
}

#[test]
fn the_fifo_suite_kills_every_mutant_not_proven_equivalent() {
    let waves = tempfile::tempdir().unwrap();
    let reports = run(&request(12, waves.path()), |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let [report] = reports.as_slice() else { panic!("one report for one module: {reports:?}") };
    for line in ditto_host::mutants::lines(report) {
        println!("{line}");
    }
    assert_eq!(report.mutants, 12);
    assert_eq!(report.killed_by_suite + report.killed_by_proof + report.survived, 12);
    assert!(report.killed_by_suite >= 6, "{report:#?}");
    for outcome in &report.outcomes {
        assert!(outcome.killed() || outcome.equivalent(), "a survivor that is not proven equivalent: {outcome:#?}");
    }
    assert_eq!(report.score_percent, 100.0);
}

#[test]
fn without_a_suite_the_proof_kills_mutants_and_the_miter_finds_the_rest() {
    let waves = tempfile::tempdir().unwrap();
    let no_suite = Target { suite: |_, _| Ok(()), suite_about: "nothing", ..fifo() };
    let report = run_target(&no_suite, &request(8, waves.path()), &|_| {}).unwrap_or_else(|e| panic!("{e}"));
    for line in ditto_host::mutants::lines(&report) {
        println!("{line}");
    }
    assert_eq!(report.killed_by_suite, 0);
    assert!(report.killed_by_proof >= 3, "the fifo-4 proof should kill most mutants: {report:#?}");
    for outcome in &report.outcomes {
        match &outcome.fate {
            Fate::KilledByProof { proof, properties, .. } => {
                assert_eq!(proof, "fifo-4");
                assert!(!properties.is_empty(), "{outcome:#?}");
            }
            Fate::Survived { equivalence, decided_by } => {
                println!("survivor: {} ({equivalence}, {decided_by})", outcome.description)
            }
            Fate::KilledBySuite { .. } => unreachable!("the suite does nothing"),
        }
    }
    // Without the suite the same mutants are judged by less, so fewer die.
    assert!(report.killed_by_proof < report.mutants, "every mutant killed by the proof alone: {report:#?}");
}

#[test]
fn a_suite_that_fails_on_the_design_is_refused() {
    let waves = tempfile::tempdir().unwrap();
    let failing = Target {
        suite: |_, _| Err(ditto_host::mutants::SuiteFailure::Differs { cycle: 0, what: "always".to_owned() }),
        ..fifo()
    };
    let err = run_target(&failing, &request(2, waves.path()), &|_| {}).unwrap_err().to_string();
    assert!(err.contains("fails on the design itself"), "{err}");
}

#[test]
fn bad_requests_are_refused_before_any_work() {
    let waves = tempfile::tempdir().unwrap();
    let err = run(&MutantsRequest { count: 0, ..request(1, waves.path()) }, |_| {}).unwrap_err().to_string();
    assert!(err.contains("--count 0"), "{err}");
    let err = run(&MutantsRequest { count: 70_000, ..request(1, waves.path()) }, |_| {}).unwrap_err().to_string();
    assert!(err.contains("--count 70000"), "{err}");
    let err = run(&MutantsRequest { only: vec!["nope".to_owned()], ..request(1, waves.path()) }, |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("no module named \"nope\""), "{err}");
    let err = run(&MutantsRequest { mutants: vec![2], ..request(1, waves.path()) }, |_| {}).unwrap_err();
    assert!(matches!(err, ditto_host::HostError::OutOfRange { option: "--mutant", value: 2, .. }), "{err}");
    assert!(err.to_string().contains("--mutant 2: give 1 to 1 (the sample of --count 1)"), "{err}");
}
