//! `Sha1Hasher<L, NB, FB, FBP1>`: `L` SHA-1 lanes behind one page stream,
//! digests returned in page order.
//!
//! Ports: the same contract as [`Sha1Engine`](super::engine::Sha1Engine)
//! (`clock`, `reset`, the page stream `page`, 1,024 words a page,
//! `digest`/`digest_valid`/`digest_ready`).
//!
//! Page `n` goes to lane `n mod L`; digests are collected from the lanes in the
//! same round-robin order, so they leave in page order. With `NB = L`, each
//! lane has a FIFO of `2^FB` words in block RAM in front of it, so that the stream can fill one
//! lane at up to one word per clock and move on to the next while the first is
//! still hashing: with a page buffer per lane (`FB = 10`), throughput grows
//! linearly with `L` until the 32-bit port itself is the limit (a page is
//! 1,024 words and an engine needs 5,200 cycles for it, so five lanes nearly
//! saturate one word per clock, 1,040 cycles a page, and a sixth is idle part
//! of the time). With `NB = 0` (one lane only) the engine takes the
//! stream directly: its own input register is all a single lane needs, and no
//! block RAM is spent.
//!
//! A lane keeps its finished digest in its chaining registers until it is
//! collected; it can hash the next page up to round 77 of its first block
//! meanwhile. A consumer that takes digests within 74 cycles of their
//! appearance therefore never slows the hasher down.
//!
//! `page.ready` is low while `reset` is high. `reset` also empties the lane
//! FIFOs: `page.ready` stays low while they drain, `2^FB + 3` cycles after
//! `reset` falls (7 cycles without FIFOs, where the same sequence holds the
//! engine in reset).
use super::engine::Sha1Engine;
use crate::ports::PageWordSink;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Sha1Hasher<const L: usize, const NB: usize, const FB: usize, const FBP1: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// The page stream (big-endian words; a word moves when `valid & ready`).
    pub page: PageWordSink,
    /// Digest of the oldest page not yet returned, `H0` in the top bits.
    pub digest: Signal<Out, Bits<160>>,
    /// `digest` is valid.
    pub digest_valid: Signal<Out, Bit>,
    /// The consumer takes `digest` on this clock if `digest_valid`.
    pub digest_ready: Signal<In, Bit>,

    engines: [Sha1Engine; L],
    buffers: [SynchronousFIFO<Bits<32>, FB, FBP1, 1>; NB],
    write_lane: DFF<Bits<8>>,
    /// `write_lane` one-hot, so the lane handshake starts at a flip-flop.
    write_sel: DFF<Bits<64>>,
    word_count: DFF<Bits<10>>,
    read_lane: DFF<Bits<8>>,
    /// `read_lane` one-hot (bit `i` for lane `i`), so a lane's digest
    /// handshake starts at a flip-flop, not at a comparator.
    read_sel: DFF<Bits<64>>,
    flushing: DFF<Bit>,
    // Registered reset of the engines: `reset` or a flush in progress.
    engine_reset: DFF<Bit>,
    flush_count: DFF<Bits<12>>,
    flush_cycles: Constant<Bits<12>>,
    last_lane: Constant<Bits<8>>,
    /// `L == 1`: the only lane is always the one written and read, a
    /// constant that synthesis folds (the lane registers cannot be proven
    /// constant, and would sit in the handshake paths otherwise).
    one_lane: Constant<Bit>,
}

impl<const L: usize, const NB: usize, const FB: usize, const FBP1: usize> Default for Sha1Hasher<L, NB, FB, FBP1> {
    fn default() -> Self {
        assert!((1..=64).contains(&L), "lanes must be 1..=64, got {L}");
        assert_eq!(FBP1, FB + 1, "FBP1 must be FB + 1");
        assert!((2..=11).contains(&FB), "lane FIFO of 2^{FB} words is out of range");
        assert!(NB == L || (NB == 0 && L == 1), "lane FIFOs: one per lane, or none for a single lane");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            page: Default::default(),
            digest: Default::default(),
            digest_valid: Default::default(),
            digest_ready: Default::default(),
            engines: core::array::from_fn(|_| Sha1Engine::default()),
            buffers: core::array::from_fn(|_| Default::default()),
            write_lane: Default::default(),
            write_sel: Default::default(),
            word_count: Default::default(),
            read_lane: Default::default(),
            read_sel: Default::default(),
            flushing: Default::default(),
            engine_reset: Default::default(),
            flush_count: Default::default(),
            // A FIFO drains at one word per clock: its depth plus its read latency.
            flush_cycles: Constant::new(bits::<12>((1u64 << FB) + 2)),
            last_lane: Constant::new(bits::<8>((L - 1) as u64)),
            one_lane: Constant::new(L == 1),
        }
    }
}

impl<const L: usize, const NB: usize, const FB: usize, const FBP1: usize> Logic for Sha1Hasher<L, NB, FB, FBP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            write_lane,
            write_sel,
            word_count,
            read_lane,
            read_sel,
            flushing,
            engine_reset,
            flush_count
        );
        self.engine_reset.d.next = self.reset.val() | self.flushing.q.val();
        self.page.ready.next = false;
        self.digest.next = 0.into();
        self.digest_valid.next = false;
        for i in 0..L {
            self.engines[i].clock.next = self.clock.val();
            self.engines[i].reset.next = self.engine_reset.q.val();
            // The stream goes straight to the lane unless it has a FIFO (below).
            self.engines[i].page.word.next = self.page.word.val();
            self.engines[i].page.valid.next = self.page.valid.val() & !self.flushing.q.val();
            if self.one_lane.val() | self.write_sel.q.val().get_bit(i) {
                self.page.ready.next = self.engines[i].page.ready.val() & !self.flushing.q.val() & !self.reset.val();
            }
            // Lane output, collected round-robin.
            self.engines[i].digest_ready.next = false;
            if self.one_lane.val() | self.read_sel.q.val().get_bit(i) {
                self.digest.next = self.engines[i].digest.val();
                self.digest_valid.next = self.engines[i].digest_valid.val();
                self.engines[i].digest_ready.next = self.digest_ready.val();
            }
        }
        for i in 0..NB {
            // Lane input through its FIFO, drained without a consumer while flushing.
            self.buffers[i].clock.next = self.clock.val();
            self.buffers[i].data_in.next = self.page.word.val();
            self.buffers[i].write.next = false;
            self.engines[i].page.word.next = self.buffers[i].data_out.val();
            self.engines[i].page.valid.next = !self.buffers[i].empty.val() & !self.flushing.q.val();
            self.buffers[i].read.next =
                !self.buffers[i].empty.val() & (self.engines[i].page.ready.val() | self.flushing.q.val());
            if self.one_lane.val() | self.write_sel.q.val().get_bit(i) {
                self.page.ready.next = !self.buffers[i].full.val() & !self.flushing.q.val() & !self.reset.val();
                self.buffers[i].write.next = self.page.valid.val() & self.page.ready.val();
            }
        }
        if self.page.valid.val() & self.page.ready.val() {
            self.word_count.d.next = self.word_count.q.val() + 1;
            if self.word_count.q.val() == 1023 {
                if self.write_lane.q.val() == self.last_lane.val() {
                    self.write_lane.d.next = 0.into();
                    self.write_sel.d.next = 1.into();
                } else {
                    self.write_lane.d.next = self.write_lane.q.val() + 1;
                    self.write_sel.d.next = self.write_sel.q.val() << 1;
                }
            }
        }
        if self.digest_valid.val() & self.digest_ready.val() {
            if self.read_lane.q.val() == self.last_lane.val() {
                self.read_lane.d.next = 0.into();
                self.read_sel.d.next = 1.into();
            } else {
                self.read_lane.d.next = self.read_lane.q.val() + 1;
                self.read_sel.d.next = self.read_sel.q.val() << 1;
            }
        }
        if self.flushing.q.val() {
            self.flush_count.d.next = self.flush_count.q.val() + 1;
            if self.flush_count.q.val() == self.flush_cycles.val() {
                self.flushing.d.next = false;
            }
        }
        if self.reset.val() {
            self.flushing.d.next = true;
            self.flush_count.d.next = 0.into();
            self.write_lane.d.next = 0.into();
            self.write_sel.d.next = 1.into();
            self.word_count.d.next = 0.into();
            self.read_lane.d.next = 0.into();
            self.read_sel.d.next = 1.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{hasher_verilog, CU, LARGE};

    #[test]
    fn cu_hasher_is_synthesizable() {
        let stats = ditto_synth::check_synthesizable(&hasher_verilog(&CU), "top").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.ebrs, 0, "one lane takes the stream directly, with no FIFO: {stats:?}");
    }

    /// `large`'s hasher is the wide one, built for the ECP5: one block RAM
    /// per column of each group's page buffer.
    #[test]
    fn large_hasher_is_synthesizable_on_the_ecp5() {
        use crate::sha1::wide::{BEAT_WORDS, GROUP_LANES};
        let stats = ditto_synth::check_synthesizable_on(ditto_synth::Device::Lfe5u85f, &hasher_verilog(&LARGE), "top")
            .unwrap_or_else(|e| panic!("{e}"));
        let groups = LARGE.lanes / GROUP_LANES;
        assert_eq!(stats.ebrs, (groups * BEAT_WORDS) as u64, "{groups} groups of eight column RAMs: {stats:?}");
    }
}
