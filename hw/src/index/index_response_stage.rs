//! `IndexResponseStage`: one register between the index's response port
//! and the controller that takes its responses.
//!
//! In the wide core the index and the FTL controller are placed apart on
//! the die, and the index's response is combinational: its collection
//! logic (the oldest sequence number's compare, then the FSMs' held
//! responses muxed) drove the controller's enables directly across it.
//! This stage cuts that path, and the one back through `ready` into the
//! FSMs' `rsp_taken`.
//!
//! Ports (all synchronous to `clock`):
//! - `reset` (in, active high): empties the stage.
//! - `from_index`: the index's responses. `from_index.ready` is high when
//!   the stage is empty, and comes from a flip-flop; a response moves in
//!   when `valid && ready`.
//! - `to_controller`: the same responses, in the same order, each from the
//!   clock after it moved in until `to_controller.ready` takes it. Every
//!   field comes from a flip-flop.
//!
//! One response passes every two clocks at most: the controller has one
//! index command out at a time and works several clocks on each answer, so
//! the stage costs it a clock an answer and never more.
use crate::index::{CMD_TAG_BITS, ENTRY_BITS, REFCOUNT_BITS};
use crate::ports::{IndexResponseSink, IndexResponseSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct IndexResponseStage {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub from_index: IndexResponseSink,
    pub to_controller: IndexResponseSource,
    full: DFF<Bit>,
    tag: DFF<Bits<CMD_TAG_BITS>>,
    status: DFF<Bits<4>>,
    entry: DFF<Bits<ENTRY_BITS>>,
    refcount: DFF<Bits<REFCOUNT_BITS>>,
    flags: DFF<Bits<4>>,
}

impl Logic for IndexResponseStage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, full, tag, status, entry, refcount, flags);
        self.from_index.ready.next = !self.full.q.val();
        if !self.full.q.val() & self.from_index.valid.val() {
            self.full.d.next = true;
            self.tag.d.next = self.from_index.tag.val();
            self.status.d.next = self.from_index.status.val();
            self.entry.d.next = self.from_index.entry.val();
            self.refcount.d.next = self.from_index.refcount.val();
            self.flags.d.next = self.from_index.flags.val();
        }
        self.to_controller.valid.next = self.full.q.val();
        self.to_controller.tag.next = self.tag.q.val();
        self.to_controller.status.next = self.status.q.val();
        self.to_controller.entry.next = self.entry.q.val();
        self.to_controller.refcount.next = self.refcount.q.val();
        self.to_controller.flags.next = self.flags.q.val();
        if self.full.q.val() & self.to_controller.ready.val() {
            self.full.d.next = false;
        }
        if self.reset.val() {
            self.full.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A response is `(tag, status, entry, refcount, flags)`: every field
    /// differs from its neighbours' in each response.
    fn response(n: u64) -> (u64, u64, u64, u64, u64) {
        (n & 0xFF, (n + 3) % 16, (n * 7) & 0xFFFF, (n * 5 + 1) & 0xFF, (n * 3 + 2) % 16)
    }

    /// Responses pass in order, every field unchanged, one every two clocks
    /// at most, and none is lost or repeated while the consumer stalls.
    #[test]
    fn responses_pass_in_order_through_a_stalling_consumer() {
        let mut uut = IndexResponseStage::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<IndexResponseStage>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<IndexResponseStage>| {
            let mut x = sim.init()?;
            x.reset.next = true;
            wait_clock_cycles!(sim, clock, x, 2);
            x.reset.next = false;
            let mut sent = 0u64;
            let mut received = Vec::new();
            for cycle in 0..400u64 {
                // Offer a new response whenever the last one went in; the
                // consumer takes only on cycles the pattern allows. Both
                // `ready` and the output's `valid` come from flip-flops, so
                // what they show now holds at the coming edge.
                let offering = sent < 100;
                let taking = cycle % 3 != 1;
                let (tag, status, entry, refcount, flags) = response(sent);
                x.from_index.valid.next = offering;
                x.from_index.tag.next = tag.into();
                x.from_index.status.next = status.into();
                x.from_index.entry.next = entry.into();
                x.from_index.refcount.next = refcount.into();
                x.from_index.flags.next = flags.into();
                x.to_controller.ready.next = taking;
                let moved_in = offering & x.from_index.ready.val();
                if x.to_controller.valid.val() & taking {
                    received.push((
                        x.to_controller.tag.val().index() as u64,
                        x.to_controller.status.val().index() as u64,
                        x.to_controller.entry.val().index() as u64,
                        x.to_controller.refcount.val().index() as u64,
                        x.to_controller.flags.val().index() as u64,
                    ));
                }
                wait_clock_cycle!(sim, clock, x);
                if moved_in {
                    sent += 1;
                }
            }
            sim_assert_eq!(sim, received.len(), 100, x);
            for (n, got) in received.iter().enumerate() {
                sim_assert_eq!(sim, *got, response(n as u64), x);
            }
            sim.done(x)
        });
        sim.run(Box::new(uut), 10_000).unwrap();
    }
}
