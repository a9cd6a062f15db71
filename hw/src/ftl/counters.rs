//! `CounterBank`: the FTL's twelve 32-bit statistics counters
//! ([`super::Stat`]) in one small block RAM, with one adder, instead of
//! twelve registers and twelve adders.
//!
//! Ports:
//! - `count`, `count_id`, `count_down`: one counter event per clock (counter
//!   `count_id` counts one up, or down). Contract: two events on the same
//!   counter are at least three clocks apart (the first's new count is
//!   written a clock before the second's counter is read, so the read sees
//!   it, and the RAM never reads an address it writes; the controller raises
//!   each counter's events from states at least three clocks apart: one
//!   per command, or states with a memory access between them).
//! - `reset`: clears every counter; that takes [`CLEAR_CLOCKS`] clocks,
//!   during which events are dropped and `value_valid` stays low.
//! - `sel` / `value` / `value_valid`: when `value_valid` is high, `value` is
//!   counter `sel` (as `sel` was the clock before), with every event up to
//!   three clocks before counted. It is high whenever the RAM's read port
//!   was free for `sel` the clock before and no count was in flight then.
//!
//! Inside: an event is registered, its counter read from the RAM the clock
//! after, the sum registered the clock after that, and written the clock
//! after that. The sum's register keeps the RAM's slow read data and the
//! adder's carry chain in one clock and the RAM's write port in the next
//! (on the iCE40 the two together missed 100 MHz).
use super::STATS;
use crate::logic_block;
use crate::ram::SimpleRam;
use rust_hdl::prelude::*;

/// Clocks a clear takes: every counter written once.
pub const CLEAR_CLOCKS: usize = 16;
const _: () = assert!(STATS <= CLEAR_CLOCKS);

logic_block! {
    #[derive(LogicBlock)]
    pub struct CounterBank {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, Bit>,
        pub count: Signal<In, Bit>,
        pub count_id: Signal<In, Bits<4>>,
        pub count_down: Signal<In, Bit>,
        pub sel: Signal<In, Bits<4>>,
        pub value: Signal<Out, Bits<32>>,
        pub value_valid: Signal<Out, Bit>,

        ram: SimpleRam<Bits<32>, 4>,
        /// The registered event, its counter being read.
        read_event: DFF<Bit>,
        read_id: DFF<Bits<4>>,
        read_down: DFF<Bit>,
        /// The event whose counter was read, its sum being registered.
        fetch_event: DFF<Bit>,
        fetch_id: DFF<Bits<4>>,
        fetch_down: DFF<Bit>,
        /// The event whose sum is registered, being written.
        write_event: DFF<Bit>,
        sum: DFF<Bits<32>>,
        /// What the event adds: 1, or all ones (minus one) for a count
        /// down, chosen by the registered `fetch_down`, so the RAM's read
        /// data goes straight into the adder.
        step: Signal<Local, Bits<32>>,
        write_id: DFF<Bits<4>>,
        /// The read port served `sel` with no count being written.
        sel_read: DFF<Bit>,
        /// Clearing: the counter being zeroed, and whether it goes on.
        clearing: DFF<Bit>,
        clear_id: DFF<Bits<4>>,
    }
    constants {
        minus_one: Constant<Bits<32>> = Constant::new(bits(u32::MAX as u64)),
    }
}

impl Logic for CounterBank {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            read_event,
            read_id,
            read_down,
            fetch_event,
            fetch_id,
            fetch_down,
            write_event,
            sum,
            write_id,
            sel_read,
            clearing,
            clear_id
        );
        self.ram.clock.next = self.clock.val();

        // Register the event; read its counter; register the sum; write it.
        self.read_event.d.next = self.count.val() & !self.clearing.q.val();
        self.read_id.d.next = self.count_id.val();
        self.read_down.d.next = self.count_down.val();
        self.fetch_event.d.next = self.read_event.q.val();
        self.fetch_id.d.next = self.read_id.q.val();
        self.fetch_down.d.next = self.read_down.q.val();
        self.write_event.d.next = self.fetch_event.q.val();
        self.write_id.d.next = self.fetch_id.q.val();
        // One adder, its second operand straight from a flip-flop (+1 or -1).
        self.step.next = 1.into();
        if self.fetch_down.q.val() {
            self.step.next = self.minus_one.val();
        }
        self.sum.d.next = self.ram.read_data.val() + self.step.val();
        self.ram.read_address.next = self.sel.val();
        if self.read_event.q.val() {
            self.ram.read_address.next = self.read_id.q.val();
        }
        self.sel_read.d.next =
            !self.read_event.q.val() & !self.fetch_event.q.val() & !self.write_event.q.val() & !self.clearing.q.val();
        self.value.next = self.ram.read_data.val();
        self.value_valid.next = self.sel_read.q.val();

        self.ram.write_address.next = self.write_id.q.val();
        self.ram.write_enable.next = self.write_event.q.val();
        self.ram.write_data.next = self.sum.q.val();
        if self.clearing.q.val() {
            self.ram.write_address.next = self.clear_id.q.val();
            self.ram.write_enable.next = true;
            self.ram.write_data.next = 0.into();
            self.clear_id.d.next = self.clear_id.q.val() + 1;
            if self.clear_id.q.val().all() {
                self.clearing.d.next = false;
            }
        }
        if self.reset.val() {
            self.clearing.d.next = true;
            self.clear_id.d.next = 0.into();
            self.read_event.d.next = false;
            self.fetch_event.d.next = false;
            self.write_event.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counter_bank_is_synthesizable_with_its_counters_in_block_ram() {
        let verilog = crate::verilog::top_verilog(super::CounterBank::default());
        let stats = ditto_synth::check_synthesizable(&verilog, "top").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.ebrs, 2, "twelve 32-bit counters: two 16-bit-wide EBRs: {stats:?}");
        assert!(stats.luts < 150, "one adder, not twelve: {stats:?}");
    }
}
