//! `SimpleRam<D, N>`: a block RAM (one clock, one read port, one write
//! port) for users that never depend on what a read returns when it hits
//! the address being written in the same clock.
//!
//! rust-hdl's `RAM` leaves that case to synthesis, and Yosys then builds
//! logic to emulate it on the iCE40 (whose block RAMs leave it undefined):
//! a flip-flop per data bit, an address comparator and a multiplexer on
//! the read data, in front of whatever logic reads it. This RAM's Verilog
//! marks the memory `no_rw_check`, so Yosys maps it to bare block RAM.
//!
//! Ports:
//! - `read_address` is sampled at each rising edge; `read_data` shows that
//!   word from the clock after. If the same address is written at that
//!   edge, `read_data` is undefined: the user must not use it (the contract
//!   this block exists for).
//! - `write_address`, `write_data`, `write_enable`: written at the rising
//!   edge when `write_enable` is high.
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

#[derive(LogicBlock, Default)]
pub struct SimpleRam<D: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<N>>,
    pub read_data: Signal<Out, D>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    /// The contents, for rust-hdl's own simulator (Ditto simulates the
    /// Verilog under Verilator; this keeps the block usable in both).
    _contents: BTreeMap<Bits<N>, D>,
}

impl<D: Synth, const N: usize> Logic for SimpleRam<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.read_data.next = *self._contents.get(&self.read_address.val()).unwrap_or(&D::default());
            if self.write_enable.val() {
                self._contents.insert(self.write_address.val(), self.write_data.val());
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* no_rw_check *) reg[{top_bit}:0] mem[{last_word}:0];

always @(posedge clock) begin
   read_data <= mem[read_address];
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
            top_bit = D::BITS - 1,
            last_word = (1usize << N) - 1,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16-word RAM alone: Yosys maps it to two block RAMs and (nearly)
    /// nothing else, where rust-hdl's `RAM` costs a flip-flop per data bit.
    #[test]
    fn maps_to_bare_block_ram() {
        let verilog = crate::verilog::top_verilog(SimpleRam::<Bits<32>, 4>::default());
        assert!(verilog.contains("(* no_rw_check *)"), "{verilog}");
        let stats = ditto_synth::check_synthesizable(&verilog, "top").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.ebrs, 2, "{stats:?}");
        assert!(stats.dffs == 0 && stats.luts <= 2, "no collision logic: {stats:?}");
    }
}
