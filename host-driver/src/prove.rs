//! `ditto prove`: every formal proof of the hardware ([`ditto_hw::formal`]),
//! by k-induction on the emitted Verilog, with its covers and, on request,
//! its planted bugs (each must give a counterexample).
use std::path::{Path, PathBuf};

use ditto_hw::formal::{proofs, PlantedBug, ProofSpec};
use ditto_synth::formal::{prove, refute, Proof, ProofReport, Verdict};
use serde::Serialize;

use crate::parallel::run_in_parallel;
use crate::HostError;

/// One proof's outcome, and its planted bugs' when they were run.
#[derive(Debug, Clone, Serialize)]
pub struct ProofOutcome {
    pub module: String,
    /// The proof's parameters (`F_*`: sizes and bounds the properties
    /// state; a state numbering passed in is left out).
    pub parameters: Vec<(String, u64)>,
    #[serde(flatten)]
    pub report: ProofReport,
    pub planted: Vec<PlantedOutcome>,
}

/// Whether a planted bug was caught: a counterexample that fails one of
/// the properties the bug names.
#[derive(Debug, Clone, Serialize)]
pub struct PlantedOutcome {
    pub name: String,
    pub what: String,
    pub caught: bool,
    #[serde(flatten)]
    pub verdict: Verdict,
}

impl ProofOutcome {
    /// Proven, every cover reached, every planted bug run caught.
    pub fn passed(&self) -> bool {
        self.report.passed() && self.planted.iter().all(|p| p.caught)
    }
}

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct ProveRequest {
    /// Only the proofs of these names (all when empty).
    pub only: Vec<String>,
    /// Also run every planted bug.
    pub planted: bool,
    /// Where counterexamples and cover witnesses go.
    pub waveform_dir: PathBuf,
    /// Proofs run at once (each is one Yosys process).
    pub jobs: usize,
}

/// The proofs' names, in order.
pub fn names() -> Vec<&'static str> {
    proofs().iter().map(|p| p.name).collect()
}

/// Runs the requested proofs, `jobs` at a time; `done` is called as each
/// finishes. Outcomes come back in the proofs' order.
pub fn run(request: &ProveRequest, done: impl Fn(&ProofOutcome) + Sync) -> Result<Vec<ProofOutcome>, HostError> {
    let all = proofs();
    for name in &request.only {
        if !all.iter().any(|p| p.name == name) {
            return Err(HostError::UnknownName { kind: "proof", name: name.clone(), known: names().join(", ") });
        }
    }
    let chosen: Vec<ProofSpec> =
        all.into_iter().filter(|p| request.only.is_empty() || request.only.iter().any(|n| n == p.name)).collect();
    run_in_parallel(&chosen, request.jobs, |spec| {
        let outcome = run_one(spec, request.planted, &request.waveform_dir);
        if let Ok(outcome) = &outcome {
            done(outcome);
        }
        outcome
    })
    .into_iter()
    .collect()
}

fn run_one(spec: &ProofSpec, planted: bool, waveform_dir: &Path) -> Result<ProofOutcome, HostError> {
    let design = (spec.design)();
    let report = prove(&proof(spec, &design, spec.name), waveform_dir)?;
    let mut outcomes = Vec::new();
    if planted {
        for bug in spec.planted {
            outcomes.push(run_planted(spec, bug, &design, waveform_dir)?);
        }
    }
    let parameters = spec
        .params
        .iter()
        .filter(|(name, _)| name.starts_with("F_"))
        .map(|&(name, value)| (name.to_owned(), value))
        .collect();
    Ok(ProofOutcome { module: spec.module.to_owned(), parameters, report, planted: outcomes })
}

fn run_planted(
    spec: &ProofSpec,
    bug: &PlantedBug,
    design: &str,
    waveform_dir: &Path,
) -> Result<PlantedOutcome, HostError> {
    let buggy = bug.plant(design).map_err(HostError::PlantedBug)?;
    let name = format!("{}.planted-{}", spec.name, bug.name).replace('.', "_");
    let report = refute(&proof(spec, &buggy, &name), waveform_dir)?;
    let caught = matches!(&report.verdict,
        Verdict::Failed { properties, .. } if properties.iter().any(|p| bug.breaks.contains(&p.as_str())));
    Ok(PlantedOutcome { name: bug.name.to_owned(), what: bug.what.to_owned(), caught, verdict: report.verdict })
}

/// The proof `spec` describes, of `design` (its own, or a changed one), run as `name`.
pub(crate) fn proof<'a>(spec: &'a ProofSpec, design: &'a str, name: &'a str) -> Proof<'a> {
    Proof { name, design, properties: spec.properties, params: spec.params, max_depth: spec.max_depth }
}

/// The text report of one proof: its verdict, covers and planted bugs.
pub fn lines(outcome: &ProofOutcome) -> Vec<String> {
    let r = &outcome.report;
    let mut lines = vec![
        format!("{}: {} in {:.1} s", r.name, r.verdict, r.seconds),
        format!("  {}", outcome.module),
        format!("  properties: {}", r.properties.join(", ")),
    ];
    if !outcome.parameters.is_empty() {
        let shown: Vec<String> = outcome.parameters.iter().map(|(name, value)| format!("{name} = {value}")).collect();
        lines.insert(2, format!("  parameters: {}", shown.join(", ")));
    }
    for cover in &r.covers {
        lines.push(format!("  cover {}: {}", cover.name, cover.verdict));
    }
    for bug in &outcome.planted {
        let how = match &bug.verdict {
            Verdict::Failed { step, properties, .. } => format!("fails {} at step {step}", properties.join(", ")),
            other => other.to_string(),
        };
        lines.push(format!("  planted {}: {} ({how})", bug.name, if bug.caught { "caught" } else { "MISSED" }));
    }
    lines
}
