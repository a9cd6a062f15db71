//! `MemRequestStage<A, D>`: a two-register skid buffer on the requests of a
//! tagged memory port ([`TaggedMemController`]), between the index and the
//! memory that serves it. Answers pass through untouched.
//!
//! In the wide core the index's port arbitration (the highest requesting
//! FSM's number, as `req_tag`) drove the core's memory port and came back
//! as every FSM's grant through `req_ready`: the placer pulled that logic
//! toward the port's far end. With this stage the arbitration ends in a
//! register beside the index, and `req_ready` comes from a flip-flop.
//!
//! Ports (all synchronous to `clock`):
//! - `reset` (in, active high): drops the requests held.
//! - `from_index` (the requesting side's port): `req_ready` is high while
//!   the skid register is empty, and comes from a flip-flop; a request
//!   moves in when `req_valid && req_ready`. `rsp_*` show the memory's.
//! - `to_memory`: the same requests, in the order they moved in, each from
//!   the clock after it did (or later, while the memory stalls), every
//!   field from a flip-flop. A request a clock, in steady state.
//!
//! The port's contract holds through the stage: the memory applies the
//! requests in the order the index made them, and answers a read at least
//! two clocks after the index handed it over (the stage's clock, then the
//! memory's own one at least).
use crate::index::MEM_TAG_BITS;
use crate::ports::{TaggedMemController, TaggedMemResponder};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct MemRequestStage<const A: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub from_index: TaggedMemResponder<A, D>,
    pub to_memory: TaggedMemController<A, D>,
    /// The request offered to the memory.
    main_valid: DFF<Bit>,
    main_write: DFF<Bit>,
    main_addr: DFF<Bits<A>>,
    main_wdata: DFF<Bits<D>>,
    main_tag: DFF<Bits<MEM_TAG_BITS>>,
    /// A request that moved in while the memory stalled the main one.
    skid_valid: DFF<Bit>,
    skid_write: DFF<Bit>,
    skid_addr: DFF<Bits<A>>,
    skid_wdata: DFF<Bits<D>>,
    skid_tag: DFF<Bits<MEM_TAG_BITS>>,
    moves_in: Signal<Local, Bit>,
    moves_out: Signal<Local, Bit>,
}

impl<const A: usize, const D: usize> Logic for MemRequestStage<A, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, main_valid, main_write, main_addr, main_wdata, main_tag, skid_valid, skid_write, skid_addr,
            skid_wdata, skid_tag
        );
        self.from_index.req_ready.next = !self.skid_valid.q.val();
        self.moves_in.next = self.from_index.req_valid.val() & !self.skid_valid.q.val();
        self.moves_out.next = self.main_valid.q.val() & self.to_memory.req_ready.val();
        // The main register refills when it is empty or its request
        // leaves: from the skid register first, which is older.
        if self.moves_out.val() | !self.main_valid.q.val() {
            if self.skid_valid.q.val() {
                self.main_valid.d.next = true;
                self.main_write.d.next = self.skid_write.q.val();
                self.main_addr.d.next = self.skid_addr.q.val();
                self.main_wdata.d.next = self.skid_wdata.q.val();
                self.main_tag.d.next = self.skid_tag.q.val();
                self.skid_valid.d.next = false;
            } else {
                self.main_valid.d.next = self.moves_in.val();
                self.main_write.d.next = self.from_index.req_write.val();
                self.main_addr.d.next = self.from_index.req_addr.val();
                self.main_wdata.d.next = self.from_index.req_wdata.val();
                self.main_tag.d.next = self.from_index.req_tag.val();
            }
        } else if self.moves_in.val() {
            self.skid_valid.d.next = true;
            self.skid_write.d.next = self.from_index.req_write.val();
            self.skid_addr.d.next = self.from_index.req_addr.val();
            self.skid_wdata.d.next = self.from_index.req_wdata.val();
            self.skid_tag.d.next = self.from_index.req_tag.val();
        }
        self.to_memory.req_valid.next = self.main_valid.q.val();
        self.to_memory.req_write.next = self.main_write.q.val();
        self.to_memory.req_addr.next = self.main_addr.q.val();
        self.to_memory.req_wdata.next = self.main_wdata.q.val();
        self.to_memory.req_tag.next = self.main_tag.q.val();
        self.from_index.rsp_valid.next = self.to_memory.rsp_valid.val();
        self.from_index.rsp_tag.next = self.to_memory.rsp_tag.val();
        self.from_index.rsp_rdata.next = self.to_memory.rsp_rdata.val();
        if self.reset.val() {
            self.main_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request is `(write, addr, wdata, tag)`.
    type Request = (bool, u64, u64, u64);

    fn request(n: u64) -> Request {
        (n % 3 == 0, (n * 13) & 0x1FFFF, n.wrapping_mul(0x9E37_79B9_7F4A_7C15), n & 0xF)
    }

    /// Requests reach the memory in order, none lost or repeated, whatever
    /// the pattern of the two sides' stalls; with neither side stalling, one
    /// passes every clock (after a clock to drain what the stalls left).
    #[test]
    fn requests_pass_in_order_at_a_clock_each_through_stalls() {
        let mut uut = MemRequestStage::<17, 64>::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<MemRequestStage<17, 64>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<MemRequestStage<17, 64>>| {
            let mut x = sim.init()?;
            x.reset.next = true;
            wait_clock_cycles!(sim, clock, x, 2);
            x.reset.next = false;
            let total = 300u64;
            let mut sent = 0u64;
            let mut received: Vec<Request> = Vec::new();
            let mut free_running_cycles = 0u64;
            for cycle in 0..1_000u64 {
                // The first 100 requests meet stalls on both sides (in
                // patterns of different periods); the rest meet none.
                let stalls = sent < 100;
                let offering = sent < total && !(stalls && cycle % 5 == 2);
                let taking = !(stalls && cycle % 3 != 0);
                let (write, addr, wdata, tag) = request(sent);
                x.from_index.req_valid.next = offering;
                x.from_index.req_write.next = write;
                x.from_index.req_addr.next = addr.into();
                x.from_index.req_wdata.next = wdata.into();
                x.from_index.req_tag.next = tag.into();
                x.to_memory.req_ready.next = taking;
                // `req_ready` and the memory side's request come from
                // flip-flops: what they show now holds at the coming edge.
                let moved_in = offering & x.from_index.req_ready.val();
                if x.to_memory.req_valid.val() & taking {
                    received.push((
                        x.to_memory.req_write.val(),
                        x.to_memory.req_addr.val().index() as u64,
                        x.to_memory.req_wdata.val().to_u64(),
                        x.to_memory.req_tag.val().index() as u64,
                    ));
                }
                if !stalls && sent < total {
                    free_running_cycles += 1;
                }
                wait_clock_cycle!(sim, clock, x);
                if moved_in {
                    sent += 1;
                }
            }
            sim_assert_eq!(sim, sent, total, x);
            // The skid register may hold a request when the stalls end:
            // it drains in a clock, then one request moves a clock.
            sim_assert!(sim, free_running_cycles <= total - 100 + 1, x);
            sim_assert_eq!(sim, received.len() as u64, total, x);
            for (n, got) in received.iter().enumerate() {
                sim_assert_eq!(sim, *got, request(n as u64), x);
            }
            sim.done(x)
        });
        sim.run(Box::new(uut), 100_000).unwrap();
    }
}
