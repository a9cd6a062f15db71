//! Memories that map to what the parts have.
//!
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

/// `LutFifo<D, N>`: a first-word-fall-through FIFO of `2^N` words whose
/// memory has an asynchronous read, so that Yosys builds it from
/// distributed RAM where the part has it (the ECP5's `TRELLIS_DPR16X4`:
/// sixteen 32-bit words are eight of them, where flip-flops would be 512),
/// and its pointers have a synchronous reset. It is meant for a few words
/// between a block RAM and a consumer; on the iCE40, which has no
/// distributed RAM, it becomes flip-flops.
///
/// Ports:
/// - `reset` (synchronous, active high) empties it.
/// - `write` pushes `data_in` at the rising edge. The user never pushes
///   into a full FIFO (`full`); such a push is dropped.
/// - `data_out` is the oldest word while `empty` is low; `read` pops it at
///   the rising edge (a pop of an empty FIFO is ignored). A push and a pop
///   may share a clock.
#[derive(LogicBlock, Default)]
pub struct LutFifo<D: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    pub write: Signal<In, Bit>,
    pub data_out: Signal<Out, D>,
    pub read: Signal<In, Bit>,
    pub empty: Signal<Out, Bit>,
    pub full: Signal<Out, Bit>,
    /// The contents and pointers, for rust-hdl's own simulator (as in
    /// [`SimpleRam`]).
    _contents: std::collections::VecDeque<D>,
}

impl<D: Synth, const N: usize> Logic for LutFifo<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self._contents.clear();
            } else {
                let pop = self.read.val() && !self._contents.is_empty();
                let push = self.write.val() && self._contents.len() < (1 << N);
                if pop {
                    self._contents.pop_front();
                }
                if push {
                    self._contents.push_back(self.data_in.val());
                }
            }
        }
        self.data_out.next = self._contents.front().copied().unwrap_or_default();
        self.empty.next = self._contents.is_empty();
        self.full.next = self._contents.len() == 1 << N;
    }

    fn connect(&mut self) {
        self.data_out.connect();
        self.empty.connect();
        self.full.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg[{top_bit}:0] mem[{last_word}:0];
reg[{n}:0] head;
reg[{n}:0] tail;
wire pop = read & (head != tail);
wire push = write & ((head ^ tail) != {depth_bit});

always @(*) begin
   data_out = mem[head[{ptr_top}:0]];
   empty = head == tail;
   full = (head ^ tail) == {depth_bit};
end

always @(posedge clock) begin
   if (push) begin
      mem[tail[{ptr_top}:0]] <= data_in;
   end
   if (reset) begin
      head <= 0;
      tail <= 0;
   end else begin
      if (pop) head <= head + 1;
      if (push) tail <= tail + 1;
   end
end
",
            top_bit = D::BITS - 1,
            last_word = (1usize << N) - 1,
            n = N,
            ptr_top = N - 1,
            depth_bit = format!("{}'d{}", N + 1, 1usize << N),
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
