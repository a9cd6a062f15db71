//! Every formal proof holds on the emitted Verilog, every cover is reached,
//! and every planted bug makes one of the properties it names fail.
use ditto_hw::formal::{proofs, ProofSpec};
use ditto_synth::formal::{prove, refute, Proof, ProofReport, Verdict};

fn run(spec: &ProofSpec, design: &str, waves: &std::path::Path) -> ProofReport {
    check(spec, design, waves, prove)
}

type Check = fn(&Proof<'_>, &std::path::Path) -> Result<ProofReport, ditto_synth::SynthError>;

fn check(spec: &ProofSpec, design: &str, waves: &std::path::Path, how: Check) -> ProofReport {
    let proof =
        Proof { name: spec.name, design, properties: spec.properties, params: spec.params, max_depth: spec.max_depth };
    how(&proof, waves).unwrap_or_else(|e| panic!("{}: {e}", spec.name))
}

#[test]
fn every_proof_holds_and_every_cover_is_reached() {
    let waves = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for spec in proofs() {
        let report = run(&spec, &(spec.design)(), waves.path());
        println!("{}: {} in {:.1} s", spec.name, report.verdict, report.seconds);
        for cover in &report.covers {
            println!("  cover {}: {}", cover.name, cover.verdict);
        }
        assert!(!report.covers.is_empty(), "{}: a proof needs covers", spec.name);
        if !report.passed() {
            failures.push(format!("{}: {report:?}", spec.name));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn every_planted_bug_gives_a_counterexample() {
    let waves = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for spec in proofs() {
        assert!(!spec.planted.is_empty(), "{}: a proof needs planted bugs", spec.name);
        let design = (spec.design)();
        for bug in spec.planted {
            let buggy = bug.plant(&design).unwrap_or_else(|e| panic!("{e}"));
            let report = check(&spec, &buggy, waves.path(), refute);
            println!("{} with {}: {}", spec.name, bug.name, report.verdict);
            match &report.verdict {
                Verdict::Failed { properties, .. } if properties.iter().any(|p| bug.breaks.contains(&p.as_str())) => {}
                other => failures.push(format!("{} with {} ({}): {other}", spec.name, bug.name, bug.what)),
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
