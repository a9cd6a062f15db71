//! The formal proofs of Ditto's hardware: for each module where a bug is
//! hardest to find by simulation, the design (emitted Verilog, as every
//! other check uses), its properties (`hw/formal/*.v`, written for
//! `ditto_synth::formal`: `[[name]]` for a flattened internal name,
//! `assert(ok_NAME)` for a property, `wire cover_NAME` for a cover), the
//! induction depth, and the planted bugs: small changes to the emitted
//! Verilog, each of which must make a named property fail. A proof that no
//! planted bug can break is not a proof.
//!
//! `ditto prove` runs them all; the tests in `hw/tests/formal.rs` prove each
//! one and check that each planted bug is caught.
use rust_hdl::prelude::*;

use crate::verilog::top_verilog;

/// One proof: what it proves, of which design, and the bugs it must catch.
#[derive(Debug, Clone, Copy)]
pub struct ProofSpec {
    /// A short, file-name-safe name (`ditto prove --only NAME`).
    pub name: &'static str,
    /// The module and instance proven, in words.
    pub module: &'static str,
    /// Emits the design's Verilog (top module `top`).
    pub design: fn() -> String,
    /// The property text.
    pub properties: &'static str,
    /// `localparam`s the property text expects.
    pub params: &'static [(&'static str, u64)],
    /// The longest induction and base case tried.
    pub max_depth: u32,
    /// Bugs the properties must catch.
    pub planted: &'static [PlantedBug],
}

/// A planted bug: `find` replaced by `replace` in the emitted Verilog (it
/// must occur exactly once), which must make one of `breaks` fail.
#[derive(Debug, Clone, Copy)]
pub struct PlantedBug {
    pub name: &'static str,
    /// What the change does, in words.
    pub what: &'static str,
    pub find: &'static str,
    pub replace: &'static str,
    /// The properties (names without `ok_`) of which at least one must fail.
    pub breaks: &'static [&'static str],
}

impl PlantedBug {
    /// The design with the bug planted, or why it cannot be planted (the
    /// text to replace is absent or ambiguous: the fixture needs updating).
    pub fn plant(&self, design: &str) -> Result<String, String> {
        match design.matches(self.find).count() {
            1 => Ok(design.replacen(self.find, self.replace, 1)),
            n => Err(format!("planted bug {}: {:?} occurs {n} times in the design, not once", self.name, self.find)),
        }
    }
}

const FIFO_PROPERTIES: &str = include_str!("../formal/fifo.v");

/// The lane FIFOs' generic code (rust-hdl's `SynchronousFIFO`, as the hasher
/// instantiates it with 32-bit words) at two small depths: the proof is of
/// the same generator, with the state space small enough to close.
fn lane_fifo_4() -> String {
    top_verilog(SynchronousFIFO::<Bits<32>, 2, 3, 1>::default())
}

fn lane_fifo_8() -> String {
    top_verilog(SynchronousFIFO::<Bits<32>, 3, 4, 1>::default())
}

const FIFO_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "pop-when-empty",
        what: "a read of an empty FIFO moves the read pointer",
        find: "if (read & ~is_empty) begin",
        replace: "if (read) begin",
        breaks: &["pointers", "empty", "order"],
    },
    PlantedBug {
        name: "read-before-write",
        what: "the read side sees a write on the clock it is made (the RAM still holds the old word)",
        find: "write_address_delayed = dff_write_address_delay$q;",
        replace: "write_address_delayed = write_address$q;",
        breaks: &["order", "memory", "empty", "pointers"],
    },
    PlantedBug {
        name: "push-when-full",
        what: "a write to a full FIFO overwrites its oldest word",
        find: "if (write & ~is_full) begin",
        replace: "if (write) begin",
        breaks: &["pointers", "count", "full", "memory", "order"],
    },
];

/// Every proof, in the order `ditto prove` runs them.
pub fn proofs() -> Vec<ProofSpec> {
    vec![
        ProofSpec {
            name: "fifo-4",
            module: "SynchronousFIFO<Bits<32>, 2, 3, 1>: a 4-word lane FIFO",
            design: lane_fifo_4,
            properties: FIFO_PROPERTIES,
            params: &[("F_AW", 2), ("F_DW", 32)],
            max_depth: 12,
            planted: FIFO_BUGS,
        },
        ProofSpec {
            name: "fifo-8",
            module: "SynchronousFIFO<Bits<32>, 3, 4, 1>: an 8-word lane FIFO",
            design: lane_fifo_8,
            properties: FIFO_PROPERTIES,
            params: &[("F_AW", 3), ("F_DW", 32)],
            max_depth: 20,
            planted: FIFO_BUGS,
        },
    ]
}
