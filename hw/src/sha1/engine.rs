//! `Sha1Engine`: one SHA-1 lane that hashes 4 KiB pages, one round per clock.
//!
//! Ports (all synchronous to `clock`):
//! - `reset` (in, active high, synchronous): drops the page in progress and any
//!   digest not yet taken; the engine then waits for the first word of a page.
//!   `page.ready` is low while `reset` is high.
//! - `page` (`word`, `valid`, `ready`): the page stream, 1,024 big-endian
//!   32-bit words per page (word `i` holds bytes `4i..4i+3`, byte `4i` in bits
//!   31..24). A word moves when `valid && ready`. `ready` does not
//!   depend on `valid`, and comes from a flip-flop: words land in a
//!   two-word input buffer first (the head `w_hold` feeds the datapath, a word
//!   that arrives while the head waits goes to `w_skid`), so a producer's
//!   block-RAM output and its handshake are never on the round's paths.
//! - `digest` / `digest_valid` / `digest_ready`: one 160-bit digest per page, in
//!   page order, `H0` in bits 159..128 (so the digest's first byte is in bits
//!   159..152). `digest_valid` stays high until `digest_ready`. The digest is
//!   held in the chaining registers themselves (no separate output register):
//!   the next page can run up to its round 77 of block 0 while the digest
//!   waits, and stalls there until the digest is taken (and H has been
//!   reloaded with the IV, one clock later).
//! - `chain` / `chain_valid`: the chaining value after each data block, for
//!   observation and tests (left unconnected in the hasher, so it costs nothing).
//!
//! The padding of the fixed 4,096-byte message (a 65th block: `0x80000000`,
//! fourteen zero words, then the bit length `0x00008000`) is generated here.
//!
//! Timing: a page takes exactly 65 x 80 = 5,200 cycles when words arrive as
//! they are asked for; blocks and pages follow each other with no idle cycle.
//! The round's critical path is kept short for the iCE40 at 100 MHz:
//! - `f` of the next round and `e + K + W` of the next round are registered one
//!   round early (`f_pre`, `ekw_pre`), so a round is `rotl5(a) + f_pre + ekw_pre`;
//! - the message schedule runs one round ahead too (`w_sched`), with its
//!   round's `K` already added (`kw_sched`); a fetched word's round always has
//!   `K0`. So `e + K + W` is `d_reg` plus one operand chosen in the carry-save
//!   stage's LUT (`e` itself is always `d_reg`: it holds the next block's `e`
//!   on round 79);
//! - the block-end additions `H += (a..e)` are folded into the pipeline:
//!   `H0` enters through `d_reg` at round 77 (so round 79's sum already includes
//!   it), `H2..H4` sums are precomputed (`pc`, `pd` in round 78, `pe` in 77), and only
//!   `H1 + a` is added in round 79, feeding a two-level mux. The first round of
//!   the next block therefore starts on the next clock;
//! - the round adder drives `a` alone: `H0` is copied from `a` on the clock
//!   after a block ends, and a page's first round masks `rotl5(a)` (the mask
//!   fits the carry-save stage's LUT) while the constant `rotl5(IV0)` rides in
//!   `ekw_pre`, so `a` never needs to be loaded with the IV.
use crate::ports::PageWordSink;
use rust_hdl::prelude::*;

/// SHA-1 initial hash value (FIPS 180-4, 5.3.1).
pub const SHA1_IV: [u32; 5] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0];
/// SHA-1 round constants for rounds 0-19, 20-39, 40-59, 60-79.
pub const SHA1_K: [u32; 4] = [0x5A82_7999, 0x6ED9_EBA1, 0x8F1B_BCDC, 0xCA62_C1D6];
/// Words of a 4 KiB page.
pub const PAGE_WORDS: usize = 1024;
/// Bytes of a page.
pub const PAGE_BYTES: usize = 4096;
/// 64-byte blocks hashed per page: 64 of data and the padding block.
pub const BLOCKS_PER_PAGE: u64 = 65;
/// Clock cycles one engine spends on a page in steady state (65 blocks x 80 rounds).
pub const CYCLES_PER_PAGE: u64 = BLOCKS_PER_PAGE * 80;

/// The engine's control state. Within `Hashing`, the step is the round and
/// block counters (80 x 65 of them, one per clock): the datapath reads its
/// round from them and from flags decoded a round ahead, not from states.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Sha1Phase {
    /// Parked at round 79 of the padding block, waiting for a page's first
    /// word (the chaining registers hold the last page's digest).
    Idle,
    /// Running the rounds of a page.
    Hashing,
}

#[derive(LogicBlock)]
pub struct Sha1Engine {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// The page stream (big-endian words; a word moves when `valid & ready`).
    pub page: PageWordSink,
    /// Digest of the oldest finished page, `H0` in the top bits.
    pub digest: Signal<Out, Bits<160>>,
    /// `digest` holds a digest not yet taken.
    pub digest_valid: Signal<Out, Bit>,
    /// The consumer takes `digest` on this clock if `digest_valid`.
    pub digest_ready: Signal<In, Bit>,
    /// Chaining value `H0..H4` (`H0` in the top bits), valid with `chain_valid`.
    pub chain: Signal<Out, Bits<160>>,
    /// High for one cycle when `chain` shows the result of a data block.
    pub chain_valid: Signal<Out, Bit>,

    // Working variables (e is folded into `ekw_pre`) and chaining value.
    a_reg: DFF<Bits<32>>,
    b_reg: DFF<Bits<32>>,
    c_reg: DFF<Bits<32>>,
    d_reg: DFF<Bits<32>>,
    h0: DFF<Bits<32>>,
    h1: DFF<Bits<32>>,
    h2: DFF<Bits<32>>,
    h3: DFF<Bits<32>>,
    h4: DFF<Bits<32>>,
    // Message schedule window: word i in bits 32i+31..32i; word 15 is the newest.
    window: DFF<Bits<512>>,
    // Values registered one round ahead (see the module comment).
    f_pre: DFF<Bits<32>>,
    ekw_pre: DFF<Bits<32>>,
    /// `K` of round t+2, on round t.
    k_ahead: DFF<Bits<32>>,
    w_sched: DFF<Bits<32>>,
    /// `w_sched + K` of its round: the `K + W` of a round whose word comes
    /// from the schedule (a fetched word's round always has `K0`).
    kw_sched: DFF<Bits<32>>,
    pc: DFF<Bits<32>>,
    pd: DFF<Bits<32>>,
    pe: DFF<Bits<32>>,
    // Control: round 0..79 within block 0..64 (64 = padding block).
    round: DFF<Bits<7>>,
    block: DFF<Bits<7>>,
    phase: DFF<Sha1Phase>,
    at_round79: DFF<Bit>,
    /// The round is 18, 38, 58 or 78: `f_sel` changes on it.
    k_step: DFF<Bit>,
    /// The round is 17, 37, 57 or 77: `k_ahead` changes on it.
    k_ahead_step: DFF<Bit>,
    /// The round is 77, or 78: `d_reg` takes `H0` folded in (77), or the
    /// next block's `e` (78).
    at_round77: DFF<Bit>,
    at_round78: DFF<Bit>,
    at_last_block: DFF<Bit>,
    fetch: DFF<Bit>,
    f_sel: DFF<Bits<2>>,
    // Round 0 of a page: `rotl5(a)` is masked, `b` takes IV0.
    page_start: DFF<Bit>,
    // Round 77 of block 0: the previous digest must be gone before H is used.
    hold_point: DFF<Bit>,
    // The clock after a block end: H0 is copied from `a`.
    h0_load: DFF<Bit>,
    h0_load_page_end: DFF<Bit>,
    chain_pulse: DFF<Bit>,
    digest_full: DFF<Bit>,
    // The digest was taken on the last clock: H returns to the IV on this one
    // (registered, so the consumer's handshake never drives 160 enables).
    iv_load: DFF<Bit>,
    // Two-word input buffer: the head (`w_hold`) and a word that arrived
    // while the head waited (`w_skid`; valid only with the head).
    w_hold: DFF<Bits<32>>,
    w_hold_valid: DFF<Bit>,
    w_skid: DFF<Bits<32>>,
    w_skid_valid: DFF<Bit>,

    // Combinational intermediates.
    a_rotl5: Signal<Local, Bits<32>>,
    round_sum: Signal<Local, Bits<32>>,
    h1_plus_a: Signal<Local, Bits<32>>,
    w_next: Signal<Local, Bits<32>>,
    b_rotl30: Signal<Local, Bits<32>>,
    f_next: Signal<Local, Bits<32>>,
    ch_next_block: Signal<Local, Bits<32>>,
    schedule_xor: Signal<Local, Bits<32>>,
    w_op: Signal<Local, Bits<32>>,
    k_fetch: Signal<Local, Bits<32>>,
    sched_word: Signal<Local, Bits<32>>,
    page_end: Signal<Local, Bit>,
    hold_stall: Signal<Local, Bit>,
    take_word: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    go_idle: Signal<Local, Bit>,
    round_lt14: Signal<Local, Bit>,
    round_ge78: Signal<Local, Bit>,

    iv0: Constant<Bits<32>>,
    iv1: Constant<Bits<32>>,
    iv2: Constant<Bits<32>>,
    iv3: Constant<Bits<32>>,
    iv4: Constant<Bits<32>>,
    k0: Constant<Bits<32>>,
    k1: Constant<Bits<32>>,
    k2: Constant<Bits<32>>,
    k3: Constant<Bits<32>>,
    // f of round 0 of a page: Ch(IV1, IV2, IV3).
    f0_iv: Constant<Bits<32>>,
    // f of round 1 of a page: Ch(IV0, rotl30(IV1), IV2).
    f1_iv: Constant<Bits<32>>,
    // e of round 0 of a page plus the masked rotl5(a): IV4 + rotl5(IV0).
    e0_iv: Constant<Bits<32>>,
    pad_first: Constant<Bits<32>>,
    pad_last: Constant<Bits<32>>,
    pad_first_k0: Constant<Bits<32>>,
    pad_last_k0: Constant<Bits<32>>,
}

impl Default for Sha1Engine {
    fn default() -> Self {
        let iv = SHA1_IV;
        let ch = |x: u32, y: u32, z: u32| (x & y) | (!x & z);
        let c32 = |x: u32| Constant::new(bits::<32>(x as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            page: Default::default(),
            digest: Default::default(),
            digest_valid: Default::default(),
            digest_ready: Default::default(),
            chain: Default::default(),
            chain_valid: Default::default(),
            a_reg: DFF::default(),
            b_reg: DFF::default(),
            c_reg: DFF::default(),
            d_reg: DFF::default(),
            h0: DFF::default(),
            h1: DFF::default(),
            h2: DFF::default(),
            h3: DFF::default(),
            h4: DFF::default(),
            window: DFF::default(),
            f_pre: DFF::default(),
            ekw_pre: DFF::default(),
            k_ahead: DFF::default(),
            w_sched: DFF::default(),
            kw_sched: DFF::default(),
            pc: DFF::default(),
            pd: DFF::default(),
            pe: DFF::default(),
            round: DFF::default(),
            block: DFF::default(),
            phase: DFF::default(),
            at_round79: DFF::default(),
            k_step: DFF::default(),
            k_ahead_step: DFF::default(),
            at_round77: DFF::default(),
            at_round78: DFF::default(),
            at_last_block: DFF::default(),
            fetch: DFF::default(),
            f_sel: DFF::default(),
            page_start: DFF::default(),
            hold_point: DFF::default(),
            h0_load: DFF::default(),
            h0_load_page_end: DFF::default(),
            chain_pulse: DFF::default(),
            digest_full: DFF::default(),
            iv_load: DFF::default(),
            w_hold: DFF::default(),
            w_hold_valid: DFF::default(),
            w_skid: DFF::default(),
            w_skid_valid: DFF::default(),
            a_rotl5: Default::default(),
            round_sum: Default::default(),
            h1_plus_a: Default::default(),
            w_next: Default::default(),
            b_rotl30: Default::default(),
            f_next: Default::default(),
            ch_next_block: Default::default(),
            schedule_xor: Default::default(),
            w_op: Default::default(),
            k_fetch: Default::default(),
            sched_word: Default::default(),
            page_end: Default::default(),
            hold_stall: Default::default(),
            take_word: Default::default(),
            advance: Default::default(),
            go_idle: Default::default(),
            round_lt14: Default::default(),
            round_ge78: Default::default(),
            iv0: c32(iv[0]),
            iv1: c32(iv[1]),
            iv2: c32(iv[2]),
            iv3: c32(iv[3]),
            iv4: c32(iv[4]),
            k0: c32(SHA1_K[0]),
            k1: c32(SHA1_K[1]),
            k2: c32(SHA1_K[2]),
            k3: c32(SHA1_K[3]),
            f0_iv: c32(ch(iv[1], iv[2], iv[3])),
            f1_iv: c32(ch(iv[0], iv[1].rotate_left(30), iv[2])),
            e0_iv: c32(iv[4].wrapping_add(iv[0].rotate_left(5))),
            pad_first: c32(0x8000_0000),
            pad_last: c32((PAGE_BYTES as u32) * 8),
            pad_first_k0: c32(0x8000_0000u32.wrapping_add(SHA1_K[0])),
            pad_last_k0: c32(((PAGE_BYTES as u32) * 8).wrapping_add(SHA1_K[0])),
        }
    }
}

impl Logic for Sha1Engine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            a_reg,
            b_reg,
            c_reg,
            d_reg,
            h0,
            h1,
            h2,
            h3,
            h4,
            window,
            f_pre,
            ekw_pre,
            k_ahead,
            w_sched,
            kw_sched,
            pc,
            pd,
            pe,
            round,
            block,
            phase,
            at_round79,
            k_step,
            k_ahead_step,
            at_round77,
            at_round78,
            at_last_block,
            fetch,
            f_sel,
            page_start,
            hold_point,
            h0_load,
            h0_load_page_end,
            chain_pulse,
            digest_full,
            iv_load,
            w_hold,
            w_hold_valid,
            w_skid,
            w_skid_valid
        );
        self.digest.next = (bit_cast::<160, 32>(self.h0.q.val()) << 128)
            | (bit_cast::<160, 32>(self.h1.q.val()) << 96)
            | (bit_cast::<160, 32>(self.h2.q.val()) << 64)
            | (bit_cast::<160, 32>(self.h3.q.val()) << 32)
            | bit_cast::<160, 32>(self.h4.q.val());
        self.digest_valid.next = self.digest_full.q.val();
        self.chain.next = self.digest.val();
        self.chain_valid.next = self.chain_pulse.q.val();

        // --- Flow control --------------------------------------------------
        // Round 79 of the padding block: the page's digest is formed on this clock.
        self.page_end.next =
            self.at_round79.q.val() & self.at_last_block.q.val() & (self.phase.q.val() == Sha1Phase::Hashing);
        self.hold_stall.next = self.hold_point.q.val() & (self.digest_full.q.val() | self.iv_load.q.val());
        self.take_word.next = self.fetch.q.val() & self.w_hold_valid.q.val() & !self.hold_stall.val();
        // A word is accepted while the skid slot is free (so the head can be
        // refilled on the clock it is taken, at one word per clock); no word
        // is taken while in reset (it would be dropped).
        self.page.ready.next = !self.w_skid_valid.q.val() & !self.reset.val();
        if self.take_word.val() {
            if self.w_skid_valid.q.val() {
                self.w_hold.d.next = self.w_skid.q.val();
                self.w_skid_valid.d.next = false;
            } else {
                self.w_hold_valid.d.next = false;
            }
        }
        if self.page.valid.val() & self.page.ready.val() {
            if !self.w_hold_valid.q.val() | self.take_word.val() {
                self.w_hold.d.next = self.page.word.val();
                self.w_hold_valid.d.next = true;
            } else {
                self.w_skid.d.next = self.page.word.val();
                self.w_skid_valid.d.next = true;
            }
        }
        // Round ranges from the bits (no comparator): 0..13, and 78..79.
        self.round_lt14.next = (self.round.q.val().get_bits::<3>(4) == 0)
            & !(self.round.q.val().get_bit(3) & self.round.q.val().get_bit(2) & self.round.q.val().get_bit(1));
        self.round_ge78.next = (self.round.q.val() == 78) | self.at_round79.q.val();
        // A page always finishes, even when the next page's first word is late.
        self.advance.next = !self.hold_stall.val() & (self.take_word.val() | !self.fetch.q.val() | self.page_end.val());
        self.go_idle.next = self.page_end.val() & !self.take_word.val();

        // --- Chaining value and digest --------------------------------------
        self.h0_load.d.next = false;
        self.chain_pulse.d.next = false;
        if self.h0_load.q.val() {
            self.h0.d.next = self.a_reg.q.val();
            if self.h0_load_page_end.q.val() {
                self.digest_full.d.next = true;
            } else {
                self.chain_pulse.d.next = true;
            }
        }
        self.iv_load.d.next = false;
        if self.digest_full.q.val() & self.digest_ready.val() {
            self.digest_full.d.next = false;
            self.iv_load.d.next = true;
        }
        if self.iv_load.q.val() {
            // The digest was taken: H starts over for the page already under way.
            self.h0.d.next = self.iv0.val();
            self.h1.d.next = self.iv1.val();
            self.h2.d.next = self.iv2.val();
            self.h3.d.next = self.iv3.val();
            self.h4.d.next = self.iv4.val();
        }

        // --- Datapath --------------------------------------------------------
        if self.page_start.q.val() {
            self.a_rotl5.next = 0.into();
        } else {
            self.a_rotl5.next = (self.a_reg.q.val() << 5) | (self.a_reg.q.val() >> 27);
        }
        self.round_sum.next = self.a_rotl5.val() + self.f_pre.q.val() + self.ekw_pre.q.val();
        self.h1_plus_a.next = self.h1.q.val() + self.a_reg.q.val();
        self.b_rotl30.next = (self.b_reg.q.val() << 30) | (self.b_reg.q.val() >> 2);
        if self.fetch.q.val() {
            self.w_next.next = self.w_hold.q.val();
        } else {
            self.w_next.next = self.w_sched.q.val();
        }
        // f of the next round, on the next round's b, c, d = a, rotl30(b), c.
        if self.f_sel.q.val() == 0 {
            self.f_next.next = (self.a_reg.q.val() & self.b_rotl30.val()) | (!self.a_reg.q.val() & self.c_reg.q.val());
        } else if self.f_sel.q.val() == 2 {
            self.f_next.next = (self.a_reg.q.val() & self.b_rotl30.val())
                | (self.a_reg.q.val() & self.c_reg.q.val())
                | (self.b_rotl30.val() & self.c_reg.q.val());
        } else {
            self.f_next.next = self.a_reg.q.val() ^ self.b_rotl30.val() ^ self.c_reg.q.val();
        }
        // W[t+2] = rotl1(W[t-1] ^ W[t-6] ^ W[t-12] ^ W[t-14]), from the window.
        self.schedule_xor.next = self.window.q.val().get_bits::<32>(448)
            ^ self.window.q.val().get_bits::<32>(288)
            ^ self.window.q.val().get_bits::<32>(96)
            ^ self.window.q.val().get_bits::<32>(32);
        // f of round 0 of the next block: Ch(H1 + a, pc, pd).
        self.ch_next_block.next = (self.h1_plus_a.val() & self.pc.q.val()) | (!self.h1_plus_a.val() & self.pd.q.val());
        // `e + K + W` of the next round, from flip-flops through one LUT into
        // the adder: `e` is `d_reg` (which holds the next block's `e` on
        // round 79); `K + W` is `kw_sched`, or the fetched word plus `K0`.
        if self.fetch.q.val() {
            self.w_op.next = self.w_hold.q.val();
            self.k_fetch.next = self.k0.val();
        } else {
            self.w_op.next = self.kw_sched.q.val();
            self.k_fetch.next = 0.into();
        }
        self.sched_word.next = (self.schedule_xor.val() << 1) | (self.schedule_xor.val() >> 31);

        if self.advance.val() {
            // Counters and the flags of the next round.
            self.page_start.d.next = false;
            self.hold_point.d.next = false;
            if self.go_idle.val() {
                self.phase.d.next = Sha1Phase::Idle;
            } else {
                self.phase.d.next = Sha1Phase::Hashing;
                if self.at_round79.q.val() {
                    self.round.d.next = 0.into();
                    if self.at_last_block.q.val() {
                        self.block.d.next = 0.into();
                        self.page_start.d.next = true;
                    } else {
                        self.block.d.next = self.block.q.val() + 1;
                    }
                    self.at_round79.d.next = false;
                    self.k_step.d.next = false;
                    self.k_ahead_step.d.next = false;
                    self.at_round77.d.next = false;
                    self.at_round78.d.next = false;
                    self.at_last_block.d.next = self.block.q.val() == 63;
                    self.fetch.d.next = self.block.q.val() != 63;
                } else {
                    self.round.d.next = self.round.q.val() + 1;
                    self.at_round79.d.next = self.round.q.val() == 78;
                    self.at_round78.d.next = self.round.q.val() == 77;
                    self.at_round77.d.next = self.round.q.val() == 76;
                    self.k_ahead_step.d.next = (self.round.q.val() == 16)
                        | (self.round.q.val() == 36)
                        | (self.round.q.val() == 56)
                        | (self.round.q.val() == 76);
                    self.k_step.d.next = (self.round.q.val() == 17)
                        | (self.round.q.val() == 37)
                        | (self.round.q.val() == 57)
                        | (self.round.q.val() == 77);
                    self.hold_point.d.next = (self.round.q.val() == 76) & (self.block.q.val() == 0);
                    if self.round.q.val() == 78 {
                        self.fetch.d.next = self.block.q.val() != 63;
                    } else if self.round_lt14.val() {
                        self.fetch.d.next = !self.at_last_block.q.val();
                    } else {
                        self.fetch.d.next = false;
                    }
                }
            }
            // Round function selector of round t+2 and `K` of round t+3:
            // they change only where a group of 20 rounds starts (equality
            // tests on the round, no comparator on this path), and are held
            // otherwise. `k_step` and `k_ahead_step` (registered: the round is
            // one of those) keep the equality tests off the enables.
            if self.k_step.q.val() {
                if self.round.q.val() == 18 {
                    self.f_sel.d.next = 1.into();
                } else if self.round.q.val() == 38 {
                    self.f_sel.d.next = 2.into();
                } else if self.round.q.val() == 58 {
                    self.f_sel.d.next = 1.into();
                } else if self.round.q.val() == 78 {
                    self.f_sel.d.next = 0.into();
                }
            }
            if self.k_ahead_step.q.val() {
                if self.round.q.val() == 17 {
                    self.k_ahead.d.next = self.k1.val();
                } else if self.round.q.val() == 37 {
                    self.k_ahead.d.next = self.k2.val();
                } else if self.round.q.val() == 57 {
                    self.k_ahead.d.next = self.k3.val();
                } else {
                    self.k_ahead.d.next = self.k0.val();
                }
            }
            // Message word for round t+2, and with its `K`: padding
            // constants (all in rounds of `K0`), or the schedule.
            if (self.round_ge78.val() & (self.block.q.val() == 63))
                | (self.round_lt14.val() & self.at_last_block.q.val())
            {
                if self.round.q.val() == 78 {
                    self.w_sched.d.next = self.pad_first.val();
                    self.kw_sched.d.next = self.pad_first_k0.val();
                } else if self.round.q.val() == 13 {
                    self.w_sched.d.next = self.pad_last.val();
                    self.kw_sched.d.next = self.pad_last_k0.val();
                } else {
                    self.w_sched.d.next = 0.into();
                    self.kw_sched.d.next = self.k0.val();
                }
            } else {
                self.w_sched.d.next = self.sched_word.val();
                self.kw_sched.d.next = self.sched_word.val() + self.k_ahead.q.val();
            }
            self.window.d.next = (self.window.q.val() >> 32) | (bit_cast::<512, 32>(self.w_next.val()) << 480);

            // Working variables; at a block end, the next block's start.
            self.a_reg.d.next = self.round_sum.val();
            self.ekw_pre.d.next = self.d_reg.q.val() + self.w_op.val() + self.k_fetch.val();
            self.pc.d.next = self.h2.q.val() + ((self.a_reg.q.val() << 30) | (self.a_reg.q.val() >> 2));
            self.pd.d.next = self.h3.q.val() + self.b_rotl30.val();
            // `H4 + e`, where `e` at the block end is round 78's `c`.
            if self.at_round77.q.val() {
                self.pe.d.next = self.h4.q.val() + self.b_rotl30.val();
            }
            if self.at_round79.q.val() {
                if self.at_last_block.q.val() {
                    self.b_reg.d.next = self.iv1.val();
                    self.c_reg.d.next = self.iv2.val();
                    // Going idle, `d_reg` waits as the next page's first `e`.
                    if self.go_idle.val() {
                        self.d_reg.d.next = self.e0_iv.val();
                    } else {
                        self.d_reg.d.next = self.iv3.val();
                    }
                    self.f_pre.d.next = self.f0_iv.val();
                } else {
                    self.b_reg.d.next = self.h1_plus_a.val();
                    self.c_reg.d.next = self.pc.q.val();
                    self.d_reg.d.next = self.pd.q.val();
                    self.f_pre.d.next = self.ch_next_block.val();
                }
                if self.phase.q.val() == Sha1Phase::Hashing {
                    // Block end: the new chaining value (H0 follows from `a`).
                    self.h1.d.next = self.h1_plus_a.val();
                    self.h2.d.next = self.pc.q.val();
                    self.h3.d.next = self.pd.q.val();
                    self.h4.d.next = self.pe.q.val();
                    self.h0_load.d.next = true;
                    self.h0_load_page_end.d.next = self.at_last_block.q.val();
                }
            } else {
                if self.page_start.q.val() {
                    self.b_reg.d.next = self.iv0.val();
                    self.f_pre.d.next = self.f1_iv.val();
                } else {
                    self.b_reg.d.next = self.a_reg.q.val();
                    self.f_pre.d.next = self.f_next.val();
                }
                self.c_reg.d.next = self.b_rotl30.val();
                // Round 78: the next block's `e` (`pe`, or a page's first).
                if self.at_round78.q.val() {
                    if self.at_last_block.q.val() {
                        self.d_reg.d.next = self.e0_iv.val();
                    } else {
                        self.d_reg.d.next = self.pe.q.val();
                    }
                } else {
                    self.d_reg.d.next = self.c_reg.q.val();
                }
            }
            // Round 77: `e` with `H0` folded in, so round 79's sum is
            // `H0 + a` (last, so the adder meets one multiplexer).
            if self.at_round77.q.val() {
                self.d_reg.d.next = self.h0.q.val() + self.c_reg.q.val();
            }
        }

        if self.reset.val() {
            self.round.d.next = 79.into();
            self.block.d.next = 64.into();
            self.phase.d.next = Sha1Phase::Idle;
            self.at_round79.d.next = true;
            self.k_step.d.next = false;
            self.k_ahead_step.d.next = false;
            self.at_round77.d.next = false;
            self.at_round78.d.next = false;
            self.at_last_block.d.next = true;
            self.fetch.d.next = true;
            self.f_sel.d.next = 0.into();
            self.k_ahead.d.next = self.k0.val();
            // Idle: the first `e` of a page waits in `d_reg`.
            self.d_reg.d.next = self.e0_iv.val();
            self.page_start.d.next = false;
            self.hold_point.d.next = false;
            self.h0_load.d.next = false;
            self.chain_pulse.d.next = false;
            self.h0.d.next = self.iv0.val();
            self.h1.d.next = self.iv1.val();
            self.h2.d.next = self.iv2.val();
            self.h3.d.next = self.iv3.val();
            self.h4.d.next = self.iv4.val();
            self.digest_full.d.next = false;
            self.iv_load.d.next = false;
            self.w_hold_valid.d.next = false;
            self.w_skid_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_engine_is_synthesizable() {
        let stats = ditto_synth::check_synthesizable(&crate::verilog::top_verilog(Sha1Engine::default()), "top")
            .unwrap_or_else(|e| panic!("{e}"));
        // The 16-word schedule window alone is 512 flip-flops; a..d, H, the
        // registered-ahead values and the input register add about 540 more.
        assert!(stats.dffs >= 1_000, "{stats:?}");
        assert_eq!(stats.ebrs, 0, "the engine uses no block RAM");
    }
}
