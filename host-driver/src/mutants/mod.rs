//! `ditto mutants`: how strong the tests are, measured as YosysHQ's MCY
//! measures it. For each module (a [`Target`]), Yosys mutates its emitted
//! Verilog ([`ditto_synth::mutants`]); every mutant goes behind one selector
//! input of a single Verilator model, built at run time
//! ([`ditto_sim::built`]), and is run against that module's cosimulation
//! suite (the same drivers and golden models the tests use). A mutant the
//! suite does not kill goes to the module's formal proofs; one they do not
//! kill either is compared with the design by a miter: proven equivalent,
//! shown to differ (a test could kill it: a gap), or no difference within
//! the depth.
//!
//! The suite must pass on the design itself (selector 0) first: a suite
//! that fails on everything would "kill" every mutant.
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::time::Instant;

use ditto_hw::config::{self, CU, LARGE};
use ditto_hw::formal::ProofSpec;
use ditto_sim::built::BuiltModel;
use ditto_sim::ditto_core::CoreError;
use ditto_sim::hasher::HashError;
use ditto_sim::index::IndexError;
use ditto_sim::shim::{parse_ports, Port};
use ditto_sim::{Model, SimError};
use ditto_synth::formal::{equivalent_under_properties, search_counterexample, Verdict};
use ditto_synth::mutants::{self as mutate, Equivalence, Mutation, SELECTOR, SELECTOR_WIDTH};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::parallel::run_in_parallel;
use crate::prove::proof;
use crate::HostError;

mod suites;
use suites::*;

/// Why a suite failed: what it saw differ from the golden model.
#[derive(Debug, thiserror::Error)]
pub enum SuiteFailure {
    #[error(transparent)]
    Hash(#[from] HashError),
    #[error(transparent)]
    Index(Box<IndexError>),
    #[error(transparent)]
    Core(Box<CoreError>),
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("cycle {cycle}: {what}")]
    Differs { cycle: u64, what: String },
    #[error("the suite panicked: {0}")]
    Panicked(String),
}

impl From<IndexError> for SuiteFailure {
    fn from(e: IndexError) -> Self {
        SuiteFailure::Index(Box::new(e))
    }
}

impl From<CoreError> for SuiteFailure {
    fn from(e: CoreError) -> Self {
        SuiteFailure::Core(Box::new(e))
    }
}

/// A cosimulation suite: drives a fresh instance of the target's design
/// (its selector already set) and checks it, from one seed.
pub type Suite = fn(Model, u64) -> Result<(), SuiteFailure>;

/// One module whose tests are measured.
#[derive(Clone, Copy)]
pub struct Target {
    /// `ditto mutants --module NAME`.
    pub name: &'static str,
    /// The design, in words.
    pub module: &'static str,
    /// Emits the design (rust-hdl Verilog, top `top`).
    pub design: fn() -> String,
    /// The cells mutated (a Yosys selection in the flattened top).
    pub selection: &'static str,
    /// The formal proofs of this very design (`ditto prove` names).
    pub proofs: &'static [&'static str],
    /// The cosimulation suite, and what it runs, in words.
    pub suite: Suite,
    pub suite_about: &'static str,
}

fn proof_design(name: &str) -> String {
    let spec = ditto_hw::formal::proofs().into_iter().find(|p| p.name == name).expect("the proof exists");
    (spec.design)()
}

/// Every module `ditto mutants` measures, in order.
pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "fifo",
            module: "SynchronousFIFO<Bits<32>> at 4 words (the lane FIFO's generator)",
            design: || proof_design("fifo-4"),
            selection: "*",
            proofs: &["fifo-4"],
            suite: fifo_suite,
            suite_about: "4,000 cycles of skewed push/pop against a queue, every flag checked, misuse at the end",
        },
        Target {
            name: "uart-link",
            module: "UartTx to UartRx, 4 clocks per bit, through a line the test may corrupt",
            design: || proof_design("uart-link"),
            selection: "*",
            proofs: &["uart-link"],
            suite: uart_suite,
            suite_about: "bytes in order within the latency bound; corruption raises framing errors; resync after idle",
        },
        Target {
            name: "lock-table",
            module: "FpIndex<2> over 4 buckets: dispatch, lock table, collection, FSMs",
            design: || proof_design("lock-table"),
            selection: "*",
            proofs: &["lock-table"],
            suite: lock_table_suite,
            suite_about: "the index workloads against the golden model, memory with random latency",
        },
        Target {
            name: "hasher",
            module: "the cu hasher: one SHA-1 lane taking the stream directly",
            design: || config::hasher_verilog(&CU),
            selection: "*",
            proofs: &[],
            suite: hasher_suite,
            suite_about: "edge and random pages, with and without stalls, against the sha1 crate",
        },
        Target {
            name: "index",
            module: "IndexOnChip<4, 12, 9>: 4 lookup FSMs, lock table, Bloom filters, block-RAM table",
            design: || ditto_hw::verilog::top_verilog(ditto_hw::index::onchip::IndexOnChip::<4, 12, 9>::new()),
            selection: "*",
            proofs: &[],
            suite: index_suite,
            suite_about: "the index workloads against the golden model, Bloom filters on and off",
        },
        Target {
            name: "ftl-cu",
            module: "the FTL controller with staged requests, inside the cu core",
            design: || config::core_verilog(&CU),
            selection: "c:$flatten\\ftl.*",
            proofs: &[],
            suite: ftl_cu_suite,
            suite_about: "mixed writes, trims and reads with GC and saturated counts, then every LPA read back",
        },
        Target {
            name: "ftl-large",
            module: "the FTL controller, inside the large core",
            design: || config::core_verilog(&LARGE),
            selection: "c:$flatten\\ftl.*",
            proofs: &[],
            suite: ftl_large_suite,
            suite_about: "mixed writes, trims and reads with GC and saturated counts, then every LPA read back",
        },
    ]
}

/// The targets' names, in order.
pub fn names() -> Vec<&'static str> {
    targets().iter().map(|t| t.name).collect()
}

/// What to run.
#[derive(Debug, Clone)]
pub struct MutantsRequest {
    /// Only these targets (all when empty).
    pub only: Vec<String>,
    /// Mutants per target.
    pub count: u32,
    /// Judge only these mutants of each target's sample, by number (all
    /// when empty): re-judges a survivor without the rest.
    pub mutants: Vec<u32>,
    /// Picks the mutations and seeds the suites.
    pub seed: u64,
    /// Depth of the equivalence check of a survivor, and its time limit.
    pub equivalence_depth: u32,
    pub equivalence_seconds: u32,
    /// Mutants run at once.
    pub jobs: usize,
    /// Where the proofs' counterexamples go.
    pub waveform_dir: PathBuf,
}

/// What became of one mutant.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "fate", rename_all = "snake_case")]
pub enum Fate {
    /// The cosimulation suite failed on it.
    KilledBySuite { failure: String },
    /// A proof's property failed on it.
    KilledByProof { proof: String, properties: Vec<String>, step: u32 },
    /// Nothing failed.
    Survived {
        #[serde(flatten)]
        equivalence: Equivalence,
        decided_by: Decider,
    },
}

/// What judged a survivor's equivalence with the design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decider {
    /// Yosys's `equiv_*` passes proved it equivalent.
    EquivalenceProof,
    /// A random co-run with the design: its outputs differed.
    CoRun,
    /// Induction beside the design, with a proof's properties (proven of
    /// every reachable state) assumed of the design: equivalent in every
    /// state they allow, in the proof's environment.
    PropertyInduction,
    /// The bounded miter, after the co-run found no difference.
    Miter,
}

impl std::fmt::Display for Decider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Decider::EquivalenceProof => "by the equivalence proof",
            Decider::CoRun => "in a random co-run with the design",
            Decider::PropertyInduction => "by induction beside the design, under its proof's properties",
            Decider::Miter => "by the miter, after a random co-run found no difference",
        })
    }
}

/// One mutant and its fate.
#[derive(Debug, Clone, Serialize)]
pub struct MutantOutcome {
    #[serde(flatten)]
    pub mutation: Mutation,
    pub description: String,
    #[serde(flatten)]
    pub fate: Fate,
}

impl MutantOutcome {
    pub fn killed(&self) -> bool {
        !matches!(self.fate, Fate::Survived { .. })
    }
    pub fn equivalent(&self) -> bool {
        matches!(self.fate, Fate::Survived { equivalence: Equivalence::Proven, .. })
    }
}

/// One target's mutants.
#[derive(Debug, Clone, Serialize)]
pub struct TargetReport {
    pub name: String,
    pub module: String,
    pub suite: String,
    pub proofs: Vec<String>,
    pub seed: u64,
    pub mutants: usize,
    pub killed_by_suite: usize,
    pub killed_by_proof: usize,
    pub survived: usize,
    /// Survivors proven equivalent (not counted against the score).
    pub equivalent: usize,
    /// Killed, out of the mutants not proven equivalent, in percent.
    pub score_percent: f64,
    pub build_seconds: f64,
    pub run_seconds: f64,
    pub outcomes: Vec<MutantOutcome>,
}

impl TargetReport {
    pub(crate) fn new(target: &Target, seed: u64, outcomes: Vec<MutantOutcome>, build: f64, run: f64) -> Self {
        let count = |f: fn(&Fate) -> bool| outcomes.iter().filter(|o| f(&o.fate)).count();
        let killed_by_suite = count(|f| matches!(f, Fate::KilledBySuite { .. }));
        let killed_by_proof = count(|f| matches!(f, Fate::KilledByProof { .. }));
        let equivalent = outcomes.iter().filter(|o| o.equivalent()).count();
        let killed = killed_by_suite + killed_by_proof;
        let judged = outcomes.len() - equivalent;
        TargetReport {
            name: target.name.to_owned(),
            module: target.module.to_owned(),
            suite: target.suite_about.to_owned(),
            proofs: target.proofs.iter().map(|p| p.to_string()).collect(),
            seed,
            mutants: outcomes.len(),
            killed_by_suite,
            killed_by_proof,
            survived: outcomes.len() - killed,
            equivalent,
            score_percent: if judged == 0 { 100.0 } else { 100.0 * killed as f64 / judged as f64 },
            build_seconds: build,
            run_seconds: run,
            outcomes,
        }
    }
}

/// Progress, as each stage happens.
pub enum Event<'a> {
    Stage { target: &'a str, what: &'a str },
    Mutant { target: &'a str, outcome: &'a MutantOutcome },
}

/// Runs the requested targets one after another, `jobs` mutants at a time.
pub fn run(request: &MutantsRequest, event: impl Fn(Event<'_>) + Sync) -> Result<Vec<TargetReport>, HostError> {
    let all = targets();
    for name in &request.only {
        if !all.iter().any(|t| t.name == name) {
            return Err(HostError::UnknownName { kind: "module", name: name.clone(), known: names().join(", ") });
        }
    }
    let max = (1u32 << SELECTOR_WIDTH) - 1;
    if request.count == 0 || request.count > max {
        return Err(HostError::OutOfRange {
            option: "--count",
            value: request.count.into(),
            allowed: format!("1 to {max}"),
        });
    }
    if let Some(id) = request.mutants.iter().find(|&&id| id == 0 || id > request.count) {
        return Err(HostError::OutOfRange {
            option: "--mutant",
            value: (*id).into(),
            allowed: format!("1 to {} (the sample of --count {})", request.count, request.count),
        });
    }
    let chosen = all.into_iter().filter(|t| request.only.is_empty() || request.only.iter().any(|n| n == t.name));
    let mut reports = Vec::new();
    for target in chosen {
        reports.push(run_target(&target, request, &event)?);
    }
    Ok(reports)
}

/// Runs one target, which need not be one of [`targets`] (a test may
/// pair a design with a suite of its own).
pub fn run_target(
    target: &Target,
    request: &MutantsRequest,
    event: &(impl Fn(Event<'_>) + Sync),
) -> Result<TargetReport, HostError> {
    let started = Instant::now();
    let stage = |what: &str| event(Event::Stage { target: target.name, what });
    let design = (target.design)();
    let mut ports = parse_ports(&design).ok_or(HostError::NoModuleTop { target: target.name })?;
    ports.push(Port { name: SELECTOR.to_owned(), width: SELECTOR_WIDTH, input: true });
    stage("listing mutations");
    let mutations = mutate::list(&design, request.count, request.seed, target.selection)?;
    if let Some(missing) = request.mutants.iter().find(|&&id| !mutations.iter().any(|m| m.id == id)) {
        return Err(HostError::OutOfRange {
            option: "--mutant",
            value: (*missing).into(),
            allowed: format!("1 to {} (the mutations {} has)", mutations.len(), target.name),
        });
    }
    let judged: Vec<&Mutation> =
        mutations.iter().filter(|m| request.mutants.is_empty() || request.mutants.contains(&m.id)).collect();
    stage(&format!("building one model with {} mutants", mutations.len()));
    let selected = mutate::with_selector(&design, &mutations)?;
    let name = format!("mutants_{}", target.name.replace('-', "_"));
    let built = BuiltModel::build(&name, &selected, &ports, |what| stage(what))?;
    let build_seconds = started.elapsed().as_secs_f64();
    stage("running the suite on the design itself");
    if let Err(failure) = run_suite(target, built, 0, request.seed) {
        return Err(HostError::SuiteFailsOnDesign {
            target: target.name,
            seed: request.seed,
            failure: Box::new(failure),
        });
    }
    let running = Instant::now();
    // A suite that panics on a mutant has failed, which is what a mutant is
    // for: the default hook would print every one of those panics, so a
    // silent one stands in while the mutants run.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let outcomes = run_in_parallel(&judged, request.jobs, |mutation| {
        let outcome = judge(target, built, &design, mutation, request);
        if let Ok(outcome) = &outcome {
            event(Event::Mutant { target: target.name, outcome });
        }
        outcome
    });
    std::panic::set_hook(hook);
    let outcomes = outcomes.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(TargetReport::new(target, request.seed, outcomes, build_seconds, running.elapsed().as_secs_f64()))
}

/// Runs the suite on a fresh instance with mutant `id` selected (0: none).
/// A panic in the suite is a failure, and says so.
fn run_suite(target: &Target, built: BuiltModel, id: u32, seed: u64) -> Result<(), SuiteFailure> {
    let mut model = built.instance();
    let selector = model.input(SELECTOR)?;
    model.set(selector, id as u64);
    std::panic::catch_unwind(AssertUnwindSafe(|| (target.suite)(model, seed))).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "no message".to_owned());
        Err(SuiteFailure::Panicked(message))
    })
}

fn judge(
    target: &Target,
    built: BuiltModel,
    design: &str,
    mutation: &Mutation,
    request: &MutantsRequest,
) -> Result<MutantOutcome, HostError> {
    let outcome = |fate| MutantOutcome { mutation: mutation.clone(), description: mutation.to_string(), fate };
    if let Err(failure) = run_suite(target, built, mutation.id, request.seed) {
        return Ok(outcome(Fate::KilledBySuite { failure: first_line(&failure.to_string()) }));
    }
    let (depth, seconds) = (request.equivalence_depth, request.equivalence_seconds);
    // A mutant proven equivalent needs no proof run: nothing can kill it.
    if mutate::proven_equivalent(design, mutation, seconds)? {
        return Ok(outcome(Fate::Survived { equivalence: Equivalence::Proven, decided_by: Decider::EquivalenceProof }));
    }
    let all = ditto_hw::formal::proofs();
    let specs: Vec<&ProofSpec> =
        target.proofs.iter().map(|name| all.iter().find(|p| p.name == *name).expect("the proof exists")).collect();
    let mutant = if specs.is_empty() { None } else { Some(mutate::with_one(design, mutation)?) };
    if let Some(mutant) = &mutant {
        for &spec in &specs {
            let name = format!("{}_mutant_{}", spec.name, mutation.id);
            let report = search_counterexample(&proof(spec, mutant, &name), &request.waveform_dir)?;
            if let Verdict::Failed { step, properties, .. } = report.verdict {
                return Ok(outcome(Fate::KilledByProof { proof: spec.name.to_owned(), properties, step }));
            }
        }
    }
    if let Some(cycle) = random_co_run(built, mutation.id, request.seed, CO_RUN_CYCLES)? {
        return Ok(outcome(Fate::Survived {
            equivalence: Equivalence::Differs { step: cycle as u32 },
            decided_by: Decider::CoRun,
        }));
    }
    // Equivalent in every state the design's proven properties allow: the
    // changes that only unreachable states see, which the cut cannot judge.
    if let Some(mutant) = &mutant {
        for &spec in &specs {
            if equivalent_under_properties(&proof(spec, design, spec.name), mutant, depth, seconds)? {
                return Ok(outcome(Fate::Survived {
                    equivalence: Equivalence::Proven,
                    decided_by: Decider::PropertyInduction,
                }));
            }
        }
    }
    let equivalence = mutate::output_difference(design, mutation, depth, seconds)?;
    Ok(outcome(Fate::Survived { equivalence, decided_by: Decider::Miter }))
}

/// Cycles of a survivor's random co-run with the design.
const CO_RUN_CYCLES: u64 = 20_000;
/// Sets the co-runs' random streams apart from the suites'.
const CO_RUN_STREAM: u64 = 0x636f_7275_6e00_0000;

/// Runs the design (selector 0) and mutant `id` side by side on the same
/// random inputs (reset held for the first cycles and now and then after;
/// each other input idle at zero half the time, else random bits, changed
/// on a quarter of the cycles) and compares every output after every
/// clock: the first cycle they differ at, if any. A difference shows the
/// mutant is not equivalent, so some test could kill it; none shows nothing.
fn random_co_run(built: BuiltModel, id: u32, seed: u64, cycles: u64) -> Result<Option<u64>, SimError> {
    let mut design = built.instance();
    let mut mutant = built.instance();
    let selector = design.input(SELECTOR)?;
    design.set(selector, 0);
    mutant.set(selector, id as u64);
    let ports: Vec<(ditto_sim::PortId, bool, u32, bool)> = design
        .ports()
        .iter()
        .filter(|p| p.name != "clock" && p.name != SELECTOR)
        .map(|p| -> Result<_, SimError> {
            let id = design.port(p.name)?;
            Ok((id, p.input, design.width(id), p.name.ends_with("reset")))
        })
        .collect::<Result<_, _>>()?;
    // Its own stream per mutant, apart from the suites' streams.
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (u64::from(id) << 32) ^ CO_RUN_STREAM);
    let mut words = [0u32; 32];
    for cycle in 0..cycles {
        for &(port, _, width, reset) in ports.iter().filter(|p| p.1) {
            let value_words = width.div_ceil(32) as usize;
            if reset {
                let on = u32::from(cycle < 3 || rng.gen_ratio(1, 2_000));
                words[..value_words].fill(0);
                words[0] = on;
            } else if cycle == 0 || rng.gen_ratio(1, 4) {
                let idle = rng.gen_bool(0.5);
                for (i, w) in words[..value_words].iter_mut().enumerate() {
                    let bits = (width - 32 * i as u32).min(32);
                    let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
                    *w = if idle { 0 } else { rng.gen::<u32>() & mask };
                }
            } else {
                continue;
            }
            design.set_words(port, &words[..value_words]);
            mutant.set_words(port, &words[..value_words]);
        }
        design.tick();
        mutant.tick();
        for &(port, ..) in ports.iter().filter(|p| !p.1) {
            if design.get_words(port).to_vec() != mutant.get_words(port) {
                return Ok(Some(cycle));
            }
        }
    }
    Ok(None)
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.len() > 200 {
        format!("{}...", &line[..line.char_indices().nth(200).map_or(line.len(), |(i, _)| i)])
    } else {
        line.to_owned()
    }
}

/// The text report of one target.
pub fn lines(report: &TargetReport) -> Vec<String> {
    let mut lines = vec![
        format!(
            "{}: {} mutants, {} killed by the suite, {} by proofs, {} survived ({} proven equivalent): {:.1}% killed",
            report.name,
            report.mutants,
            report.killed_by_suite,
            report.killed_by_proof,
            report.survived,
            report.equivalent,
            report.score_percent
        ),
        format!("  {}", report.module),
        format!("  suite: {}", report.suite),
        format!(
            "  seed {}; model built in {:.1} s, mutants run in {:.1} s",
            report.seed, report.build_seconds, report.run_seconds
        ),
    ];
    for o in report.outcomes.iter().filter(|o| !o.killed()) {
        if let Fate::Survived { equivalence, decided_by } = &o.fate {
            lines.push(format!("  survived {}: {equivalence}, {decided_by}", o.description));
        }
    }
    lines
}

// ---------------------------------------------------------------------------
// The suites. Each one is seeded, skewed (edge values among random ones) and
// checks every output the rest of Ditto reads.
