//! Mutants of emitted Verilog, as YosysHQ's MCY makes them: Yosys's
//! `mutate` picks small changes to the design's cells (a bit inverted, tied
//! to 0 or 1, or swapped for a neighbour) by an even sampling across the
//! design, and writes them as commands. A test suite that passes on the
//! design and fails on a mutant *kills* it; a mutant no test kills shows a
//! behaviour nobody checks, unless the mutant is equivalent to the design.
//!
//! Every step reads the design the same way (`design.v`; `hierarchy`,
//! `proc`, `flatten`, `opt_clean`), so a mutation's cell names, taken from
//! [`list`], mean the same cell in [`with_selector`], [`with_one`] and
//! [`equivalence`].
use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::error::SynthError;
use crate::formal::{last_induction_length, read, run_yosys, run_yosys_for, write};
use crate::tools::YOSYS;

/// How every step reads the design (the cell names depend on it).
const READ_DESIGN: &str = "read_verilog design.v; hierarchy -check -top top; proc; flatten; opt_clean";

/// The input [`with_selector`] adds: mutant `k` is active while it is `k`;
/// 0 is the design itself.
pub const SELECTOR: &str = "mutant_select";

/// Width of [`SELECTOR`]: at most 65,535 mutants in one design.
pub const SELECTOR_WIDTH: u32 = 16;

/// One mutation, as `mutate -list` wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mutation {
    /// Its number in the list, from 1 (the selector value that activates it).
    pub id: u32,
    /// `inv`, `const0`, `const1`, `cnot0`, `cnot1`.
    pub mode: String,
    /// The flattened cell mutated.
    pub cell: String,
    /// The cell's port and bit.
    pub port: String,
    pub portbit: u32,
    /// The bit of the same port the `cnot` modes combine it with.
    pub ctrlbit: Option<u32>,
    /// The wire on that bit, when it has a name.
    pub wire: Option<String>,
    pub wirebit: Option<u32>,
    /// Where the cell comes from in `design.v` (`line.col-line.col`).
    pub sources: Vec<String>,
}

impl Mutation {
    /// Parses one line of `mutate -list`'s output.
    fn parse(id: u32, line: &str) -> Option<Self> {
        let mut words = line.split_whitespace();
        if words.next()? != "mutate" {
            return None;
        }
        let (mut mode, mut cell, mut port, mut portbit) = (None, None, None, None);
        let (mut ctrlbit, mut wire, mut wirebit, mut sources) = (None, None, None, Vec::new());
        while let Some(option) = words.next() {
            let value = words.next()?;
            match option {
                "-mode" => mode = Some(value.to_owned()),
                "-module" if value != "top" => return None,
                "-module" => {}
                "-cell" => cell = Some(value.to_owned()),
                "-port" => port = Some(value.to_owned()),
                "-portbit" => portbit = value.parse().ok(),
                "-ctrlbit" => ctrlbit = value.parse().ok(),
                "-wire" => wire = Some(value.to_owned()),
                "-wirebit" => wirebit = value.parse().ok(),
                "-src" => sources.push(value.trim_start_matches("design.v:").to_owned()),
                _ => return None,
            }
        }
        Some(Mutation { id, mode: mode?, cell: cell?, port: port?, portbit: portbit?, ctrlbit, wire, wirebit, sources })
    }

    /// The `mutate` options that apply it.
    fn apply_options(&self) -> String {
        let ctrl = self.ctrlbit.map(|b| format!(" -ctrlbit {b}")).unwrap_or_default();
        format!(
            "-mode {} -module top -cell {} -port {} -portbit {}{ctrl}",
            self.mode, self.cell, self.port, self.portbit
        )
    }

    /// The instance path of the mutated cell (`write_logic.dff_overflow`),
    /// empty for a cell of the top module itself.
    pub fn instance(&self) -> String {
        let name = self.cell.trim_start_matches("$flatten").trim_start_matches('\\');
        match name.rfind(".$").or_else(|| name.rfind('.')) {
            Some(end) if !name.starts_with('$') => name[..end].replace(".\\", "."),
            _ => String::new(),
        }
    }

    /// The mutated signal, in words: the wire when it has a name, else the
    /// cell's port.
    pub fn signal(&self) -> String {
        match (&self.wire, self.wirebit) {
            (Some(wire), Some(bit)) => format!("{wire}[{bit}]"),
            _ => format!("{}.{}[{}]", self.cell.rsplit('$').nth(1).unwrap_or("cell"), self.port, self.portbit),
        }
    }
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.mode.as_str() {
            "inv" => "inverted".to_owned(),
            "const0" => "tied to 0".to_owned(),
            "const1" => "tied to 1".to_owned(),
            "cnot0" => format!("XOR'd with NOT bit {}", self.ctrlbit.unwrap_or(0)),
            "cnot1" => format!("XOR'd with bit {}", self.ctrlbit.unwrap_or(0)),
            other => other.to_owned(),
        };
        let instance = self.instance();
        let at = if instance.is_empty() { "top".to_owned() } else { instance };
        write!(f, "#{} {} {what} (in {at}", self.id, self.signal())?;
        match self.sources.last() {
            Some(src) => write!(f, ", design.v:{src})"),
            None => write!(f, ")"),
        }
    }
}

fn work_dir(what: &str) -> Result<tempfile::TempDir, SynthError> {
    tempfile::Builder::new()
        .prefix(&format!("ditto-mutants-{what}-"))
        .tempdir()
        .map_err(|err| SynthError::io("could not create a work directory", err))
}

/// `count` mutations of `design` (rust-hdl Verilog, top module `top`),
/// sampled by `seed` among the cells in `selection` (a Yosys selection of
/// the flattened top, `*` for all of it).
pub fn list(design: &str, count: u32, seed: u64, selection: &str) -> Result<Vec<Mutation>, SynthError> {
    YOSYS.ensure_installed()?;
    if count == 0 || count >= 1 << SELECTOR_WIDTH {
        return Err(SynthError::InvalidRequest(format!(
            "{count} mutants: ask for 1 to {}",
            (1u32 << SELECTOR_WIDTH) - 1
        )));
    }
    let work = work_dir("list")?;
    let dir = work.path();
    write(&dir.join("design.v"), design)?;
    run_yosys(
        dir,
        "list.log",
        // A memory's initial contents must stay constant, so its
        // `$meminit` cells are never mutated.
        &format!("{READ_DESIGN}; mutate -list {count} -seed {seed} -o list.txt top/{selection} top/t:$meminit* %d"),
    )?;
    let text = read(&dir.join("list.txt"))?;
    let mut mutations = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let id = mutations.len() as u32 + 1;
        let mutation = Mutation::parse(id, line).ok_or_else(|| SynthError::Parse {
            path: dir.join("list.txt"),
            detail: format!("unexpected mutation {line:?}"),
        })?;
        mutations.push(mutation);
    }
    if mutations.is_empty() {
        return Err(SynthError::InvalidRequest(format!("no cell of the design matches the selection `{selection}`")));
    }
    Ok(mutations)
}

/// The design with every mutation in it, each behind the input
/// [`SELECTOR`] (mutant `k` active while it is `k`, none at 0): one model,
/// built once, runs every mutant. Yosys writes the result (flattened).
pub fn with_selector(design: &str, mutations: &[Mutation]) -> Result<String, SynthError> {
    let applied: String = mutations
        .iter()
        .map(|m| format!("mutate -ctrl {SELECTOR} {SELECTOR_WIDTH} {} {}\n", m.id, m.apply_options()))
        .collect();
    rewrite(design, "selector", &applied)
}

/// The design with one mutation, always active (flattened).
pub fn with_one(design: &str, mutation: &Mutation) -> Result<String, SynthError> {
    rewrite(design, "one", &format!("mutate {}\n", mutation.apply_options()))
}

fn rewrite(design: &str, what: &str, commands: &str) -> Result<String, SynthError> {
    YOSYS.ensure_installed()?;
    let work = work_dir(what)?;
    let dir = work.path();
    write(&dir.join("design.v"), design)?;
    write(&dir.join("mutate.ys"), commands)?;
    run_yosys(
        dir,
        "mutate.log",
        &format!("{READ_DESIGN}; script mutate.ys; opt_clean; write_verilog -noattr mutant.v"),
    )?;
    read(&dir.join("mutant.v"))
}

/// Whether a mutant behaves as the design does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "equivalence", rename_all = "snake_case")]
pub enum Equivalence {
    /// Proven: every signal of the mutant that the design also has (its
    /// registers among them) equals the design's, by Yosys's
    /// `equiv_simple` and `equiv_induct`. Such a mutant changes nothing a
    /// test could see.
    Proven,
    /// The outputs differ `step` cycles after the initial state: the mutant
    /// is not equivalent, so a test could kill it.
    Differs { step: u32 },
    /// Neither: no difference at the outputs within `depth` cycles.
    Bounded { depth: u32 },
}

impl fmt::Display for Equivalence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Equivalence::Proven => write!(f, "equivalent (proven)"),
            Equivalence::Differs { step } => write!(f, "not equivalent (outputs differ at step {step})"),
            Equivalence::Bounded { depth } => write!(f, "no difference within {depth} steps (not proven)"),
        }
    }
}

/// Reads the design and its mutant side by side (`gold`, `gate`).
fn pair_script() -> String {
    format!("{READ_DESIGN}; copy top gold; script mutate.ys; rename top gate; memory -nomap; memory_map; opt_clean")
}

fn pair_dir(design: &str, mutation: &Mutation, what: &str) -> Result<tempfile::TempDir, SynthError> {
    YOSYS.ensure_installed()?;
    let work = work_dir(what)?;
    write(&work.path().join("design.v"), design)?;
    write(&work.path().join("mutate.ys"), &format!("mutate {}\n", mutation.apply_options()))?;
    Ok(work)
}

/// Whether the mutant is proven equivalent: first by [`same_next_state`],
/// then signal by signal (`equiv_make`, `equiv_simple`, `equiv_induct`).
/// True for a mutant whose change is masked or never reaches a register.
/// False when neither proves it within `seconds` each.
pub fn proven_equivalent(design: &str, mutation: &Mutation, seconds: u32) -> Result<bool, SynthError> {
    if same_next_state(design, mutation, seconds)? {
        return Ok(true);
    }
    let work = pair_dir(design, mutation, "equiv")?;
    let script = format!(
        "{}; equiv_make gold gate equiv; hierarchy -top equiv; equiv_simple -seq 4; equiv_induct -seq 4; equiv_status",
        pair_script()
    );
    match run_yosys_for(work.path(), "equiv.log", &script, secs(seconds)) {
        // As in [`output_difference`]: a mutant Yosys cannot pair is not proven.
        Err(SynthError::ToolFailed { .. }) => Ok(false),
        other => Ok(other?.is_some_and(|log| log.contains("Equivalence successfully proven!"))),
    }
}

/// Whether the mutant computes, from every state and every input, the
/// same outputs and the same next state as the design: a proof by
/// induction that holds for every state, reachable or not, so it
/// needs one SAT call and no unrolling. Every flip-flop is cut into an
/// input (its output, shared by both) and an output (its next value,
/// compared); every memory is cut the same way, its read data an input
/// shared by both and everything it takes (addresses, write data and
/// enables) compared. With the state equal at the start, as it is (the
/// mutation changes no initial value), it stays equal, so the mutant
/// behaves as the design does. Bits the design leaves undefined (`x`) are
/// free in the mutant. A flip-flop that drives an output port directly
/// is not cut (Yosys exposes no port twice): in both it stays a free
/// value, the same one only if the two flip-flops merge (same next value),
/// so it can hide no difference. False when not proven within `seconds`,
/// or when the cut does not line the two up (a mutation on a cut signal
/// renames it, so the two have different ports): then nothing is claimed.
pub fn same_next_state(design: &str, mutation: &Mutation, seconds: u32) -> Result<bool, SynthError> {
    // A mutated port of a memory cell itself may become a constant, which
    // the cut, comparing the memory's inputs by their wires, would miss.
    // After `proc` those cells are named for what made them: `$memrd$…`
    // (read_verilog), `$auto$proc_memwr…` (proc), `$meminit$…`.
    if ["$memrd$", "$memwr$", "proc_memwr", "$meminit$", "$mem$", "$mem_v2$"]
        .iter()
        .any(|kind| mutation.cell.contains(kind))
    {
        return Ok(false);
    }
    let work = pair_dir(design, mutation, "cut")?;
    let script = format!(
        "{READ_DESIGN}; copy top gold; script mutate.ys; rename top gate; memory -nomap gold gate; opt_clean; \
         autoname t:$mem_v2 %ci t:$mem_v2 %d; autoname t:$*ff* %co t:$*ff* %d; expose -dff -evert-dff gold gate; \
         expose -cut t:$mem_v2 %co t:$mem_v2 %d; expose t:$mem_v2 %ci t:$mem_v2 %d; delete t:$mem_v2; \
         select -assert-none t:$mem*; \
         miter -equiv -flatten gate gold ports_match; delete ports_match; \
         miter -equiv -flatten -make_assert -ignore_gold_x gold gate miter; hierarchy -top miter; opt -full -fast; \
         sat -prove-asserts -set-def-inputs miter"
    );
    let Some(output) = YOSYS.run_for(["-q", "-l", "cut.log", "-p", &script], Some(work.path()), secs(seconds))? else {
        return Ok(false);
    };
    Ok(output.status.success() && read(&work.path().join("cut.log"))?.contains("no model found: SUCCESS!"))
}

fn secs(seconds: u32) -> Duration {
    Duration::from_secs(seconds.into())
}

/// Searches for a difference at the outputs by a miter (both from their
/// initial values, memories zero, the same inputs), `depth` cycles deep,
/// stopped after `seconds`: [`Equivalence::Differs`] or
/// [`Equivalence::Bounded`] with the cycles cleared.
pub fn output_difference(
    design: &str,
    mutation: &Mutation,
    depth: u32,
    seconds: u32,
) -> Result<Equivalence, SynthError> {
    let work = pair_dir(design, mutation, "miter")?;
    let script = format!(
        "{}; miter -equiv -flatten -make_outputs -ignore_gold_x gold gate miter; hierarchy -top miter; \
         sat -tempinduct -tempinduct-baseonly -prove trigger 0 -set-init-zero -seq 1 -maxsteps {depth} miter",
        pair_script()
    );
    let outcome = match run_yosys_for(work.path(), "miter.log", &script, secs(seconds)) {
        // Yosys cannot build every mutant's miter (a mutated memory enable
        // trips an assertion in its memory passes): nothing is decided.
        Err(SynthError::ToolFailed { .. }) => return Ok(Equivalence::Bounded { depth: 0 }),
        other => other?,
    };
    let log = read(&work.path().join("miter.log"))?;
    let steps_tried = last_induction_length(&log).unwrap_or(1);
    if log.contains("model found for base case: FAIL!") {
        return Ok(Equivalence::Differs { step: steps_tried });
    }
    match outcome {
        Some(_) => Ok(Equivalence::Bounded { depth }),
        None => Ok(Equivalence::Bounded { depth: steps_tried.saturating_sub(1) }),
    }
}

/// [`proven_equivalent`], else [`output_difference`].
pub fn equivalence(design: &str, mutation: &Mutation, depth: u32, seconds: u32) -> Result<Equivalence, SynthError> {
    if proven_equivalent(design, mutation, seconds)? {
        return Ok(Equivalence::Proven);
    }
    output_difference(design, mutation, depth, seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `q` is `a | (a & b)`, which is `a`: the AND is redundant, so any
    /// change to its input `b` leaves the design's behaviour alone.
    const DESIGN: &str = "module top(clock,a,b,q);\n    input wire clock;\n    input wire a;\n    input wire b;\n\
                          output reg q;\n    initial begin q = 1'h0; end\n\
                          always @(posedge clock) begin q <= a | (a & b); end\nendmodule\n";

    #[test]
    fn listed_mutations_are_applied_behind_the_selector() {
        let mutations = list(DESIGN, 6, 1, "*").unwrap();
        assert!(!mutations.is_empty() && mutations.len() <= 6, "{mutations:?}");
        for (i, m) in mutations.iter().enumerate() {
            assert_eq!(m.id as usize, i + 1);
            assert!(m.to_string().starts_with(&format!("#{} ", m.id)), "{m}");
        }
        let selected = with_selector(DESIGN, &mutations).unwrap();
        assert!(selected.contains(&format!("input [{}:0] {SELECTOR};", SELECTOR_WIDTH - 1)), "{selected}");
        let one = with_one(DESIGN, &mutations[0]).unwrap();
        assert!(!one.contains(SELECTOR));
    }

    #[test]
    fn a_mutant_that_changes_the_output_differs_and_one_of_a_redundant_cell_is_equivalent() {
        let all = list(DESIGN, 64, 1, "*").unwrap();
        let on_q = all.iter().find(|m| m.wire.as_deref() == Some("q") && m.mode == "inv").expect("q is mutated");
        assert!(matches!(equivalence(DESIGN, on_q, 4, 60).unwrap(), Equivalence::Differs { .. }), "{on_q}");
        let on_b = all.iter().find(|m| m.cell.contains("$and") && m.port == "B").expect("the AND's b is mutated");
        assert!(matches!(equivalence(DESIGN, on_b, 4, 60).unwrap(), Equivalence::Proven), "{on_b}");
    }

    /// A memory written through an enable and read through a register,
    /// and a register that only later reaches the output.
    const MEMORY_DESIGN: &str = "module top(clock,we,wa,wd,ra,q);\n    input wire clock;\n    input wire we;\n\
                                 input wire [1:0] wa;\n    input wire [3:0] wd;\n    input wire [1:0] ra;\n\
                                 output reg [3:0] q;\n    reg [3:0] mem [0:3];\n    reg [3:0] late;\n\
                                 initial begin q = 4'h0; late = 4'h0; end\n\
                                 always @(posedge clock) begin if (we) mem[wa] <= wd & 4'h7; \
                                 late <= mem[ra]; q <= late | {3'h0, ra[0] & 1'h0}; end\nendmodule\n";

    #[test]
    fn the_cut_proves_no_mutant_that_a_miter_shows_to_differ() {
        let all = list(MEMORY_DESIGN, 200, 1, "*").unwrap();
        let (mut proven, mut differ) = (0, 0);
        for m in &all {
            let cut = same_next_state(MEMORY_DESIGN, m, 60).unwrap();
            let difference = output_difference(MEMORY_DESIGN, m, 6, 60).unwrap();
            if matches!(difference, Equivalence::Differs { .. }) {
                differ += 1;
                assert!(!cut, "{m} was proven equivalent, but the miter finds a difference: {difference}");
            }
            proven += cut as usize;
        }
        // The masked bits (bit 3 of the written data, the AND with 0)
        // are proven; the enable, addresses and data bits are not.
        assert!(proven > 0 && differ > 0, "{proven} proven, {differ} shown to differ, of {}", all.len());
    }

    #[test]
    fn an_empty_selection_is_a_typed_error() {
        let err = list(DESIGN, 4, 1, "c:nonesuch").unwrap_err();
        assert!(matches!(err, SynthError::InvalidRequest(_)), "{err}");
    }
}
