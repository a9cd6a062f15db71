//! `Sha1WideHasher<G>`: `4 G` SHA-1 lanes behind a 256-bit page stream,
//! digests returned in page order.
//!
//! Ports:
//! - `clock`, `reset` (synchronous, active high): reset drops every page in
//!   progress and every digest not yet taken; `page.ready` is low while
//!   `reset` is high and for two clocks after (the registered reset reaches
//!   the lanes).
//! - `page` (`beat`, `valid`, `ready`): the page stream, 128 beats of 256
//!   bits a page. A beat holds eight big-endian 32-bit words, the page's
//!   bytes `32 b .. 32 b + 31` for beat `b`, its first byte in bits
//!   255..248 (so the beat's first word is in bits 255..224). A beat moves
//!   when `valid && ready`; `ready` does not depend on `valid` and comes
//!   from flip-flops through a small multiplexer.
//! - `digest` / `digest_valid` / `digest_ready`: one 160-bit digest per page
//!   in page order, `H0` in bits 159..128 (the engine's contract). The
//!   digest sits in an output register: `digest_valid` does not depend on
//!   `digest_ready`, and at most one digest leaves every three clocks (a
//!   page takes 128 to stream).
//!
//! Page `n` goes to group `n mod G`, to its lane `(n div G) mod 4`, so
//! consecutive pages go to different groups. The lanes come in groups of four
//! ([`WideLaneGroup`]) that share a four-page buffer: eight block RAMs of
//! 512 x 32 bits, one per word of a beat (a column), so a beat is written
//! in one clock whatever the number of lanes. Each lane reads its page a
//! word a clock through a 16-word FIFO in distributed RAM, and the four
//! lanes of a group never read the same column on the same clock: lane `j`
//! may read column `(t + 2 j) mod 8` on clock `t`, so a lane that reads
//! its page's words in order reads one a clock once aligned, and every
//! column block RAM has one read port and no arbiter. The block RAMs'
//! outputs are registered. A lane starts on a page as soon as its first
//! two beats are in (the input and the lane overlap), and its slot takes
//! the next page once the lane has read the last word of this one.
//!
//! Digests are collected in two registered steps, so that no path crosses
//! from every lane to one register in a clock: each group moves its lanes'
//! digests, in their order, into its own output register; the hasher
//! registers the digest of the group whose turn it is, and moves it to
//! its output; the group hears a clock later that it was taken.
//!
//! Throughput: a lane needs 5,200 clocks a page and the input 128, so
//! with `4G` lanes a page every `max(128, 5200 / 4G)` clocks in steady
//! state: 40 lanes (`G = 10`) keep up with one beat a clock.
use super::engine::Sha1Engine;
use crate::ports::PageBeatSink;
use crate::ram::{LutFifo, SimpleRam};
use rust_hdl::prelude::*;

/// Bits of a page-stream beat.
pub const BEAT_BITS: usize = 256;
/// 32-bit words of a beat.
pub const BEAT_WORDS: usize = BEAT_BITS / 32;
/// Beats of a 4 KiB page.
pub const PAGE_BEATS: usize = crate::sha1::PAGE_WORDS / BEAT_WORDS;
/// Lanes in a [`WideLaneGroup`].
pub const GROUP_LANES: usize = 4;
/// Log2 of the words of a lane's FIFO between the buffer and its engine.
const LANE_FIFO_BITS: usize = 4;
// The lane's column multiplexer and the group's digest multiplexer are
// written out as trees for eight columns and four lanes.
const _: () = assert!(BEAT_WORDS == 8 && GROUP_LANES == 4);

/// Four SHA-1 lanes and their shared four-page buffer (see
/// [`Sha1WideHasher`] for the scheme).
///
/// Ports (driven from the hasher's registers):
/// - `reset`: as the hasher's, already registered.
/// - `write`, `write_slot` (one-hot of the four lanes), `write_address`
///   (the slot's number in bits 8..7, the beat's number in its page in
///   bits 6..0), `beat`: store a beat into a lane's slot. The hasher
///   writes a slot's rows in order, `0..=127`, and starts a slot only
///   while `open` says it is open.
/// - `open_slot` (one-hot), `open`: `open` is high unless the slot
///   `open_slot` selects holds a whole page its lane has not read to the
///   end.
/// - `digest`, `digest_valid`: the group's output register, its lanes'
///   digests in their order (lane 0 first); `digest_taken` (a one-clock pulse
///   while `digest_valid` is high) empties it.
#[derive(LogicBlock)]
pub struct WideLaneGroup {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    pub write_slot: Signal<In, Bits<GROUP_LANES>>,
    pub write_address: Signal<In, Bits<9>>,
    pub beat: Signal<In, Bits<BEAT_BITS>>,
    pub open_slot: Signal<In, Bits<GROUP_LANES>>,
    pub open: Signal<Out, Bit>,
    pub digest: Signal<Out, Bits<160>>,
    pub digest_valid: Signal<Out, Bit>,
    pub digest_taken: Signal<In, Bit>,

    engines: [Sha1Engine; GROUP_LANES],
    /// The lane whose digest is next, one-hot: its `digest_ready`.
    digest_slot: DFF<Bits<GROUP_LANES>>,
    /// The same lane as a number, kept in step with `digest_slot`: the
    /// select of the digest multiplexer.
    digest_lane: DFF<Bits<2>>,
    out_digest: DFF<Bits<160>>,
    out_valid: DFF<Bit>,
    lane_digest: Signal<Local, Bits<160>>,
    lane_digest_valid: Signal<Local, Bit>,
    fifos: [LutFifo<Bits<32>, LANE_FIFO_BITS>; GROUP_LANES],
    /// Column `c` holds word `c` of every beat: slot `j`, row `r` at `128 j + r`.
    columns: [SimpleRam<Bits<32>, 9>; BEAT_WORDS],
    /// The columns' read data, registered.
    column_data: [DFF<Bits<32>>; BEAT_WORDS],
    /// Rows written of the page in each slot (128: all of it).
    rows: [DFF<Bits<8>>; GROUP_LANES],
    /// The next word each lane reads: its slot's number in bits 11..10,
    /// the word's in bits 9..0 (so bits 11..3 are its column's address).
    read_word: [DFF<Bits<12>>; GROUP_LANES],
    /// `read_word`'s column, one-hot.
    want_column: [DFF<Bits<BEAT_WORDS>>; GROUP_LANES],
    /// The column each lane may read on this clock, one-hot; all rotate
    /// together, two apart.
    turn_column: [DFF<Bits<BEAT_WORDS>>; GROUP_LANES],
    /// The column each lane read two clocks ago, whose word is in
    /// `column_data` now, as a number: the select of the lane's 8:1
    /// multiplexer, a binary tree (four LUT4s a bit on the ECP5, where a
    /// one-hot select costs seven).
    arrive_column: [DFF<Bits<3>>; GROUP_LANES],
    /// Words read and not yet taken from the FIFO by the engine (in flight
    /// or in the FIFO), at most the FIFO's depth.
    pending: [DFF<Bits<5>>; GROUP_LANES],
    issued_1: [DFF<Bit>; GROUP_LANES],
    issued_2: [DFF<Bit>; GROUP_LANES],
    issue: [Signal<Local, Bit>; GROUP_LANES],
    take: [Signal<Local, Bit>; GROUP_LANES],
    first_turn: [Constant<Bits<BEAT_WORDS>>; GROUP_LANES],
    first_arrival: [Constant<Bits<3>>; GROUP_LANES],
    /// `read_word` at the start of each slot's page.
    slot_base: [Constant<Bits<12>>; GROUP_LANES],
    fifo_depth: Constant<Bits<5>>,
    last_word: Constant<Bits<10>>,
    whole_page: Constant<Bits<8>>,
}

impl Default for WideLaneGroup {
    fn default() -> Self {
        let rotl = |bits: u64, by: usize| ((bits << (by % 8)) | (bits >> ((8 - by % 8) % 8))) & 0xff;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            write: Default::default(),
            write_slot: Default::default(),
            write_address: Default::default(),
            beat: Default::default(),
            open_slot: Default::default(),
            open: Default::default(),
            digest: Default::default(),
            digest_valid: Default::default(),
            digest_taken: Default::default(),
            engines: core::array::from_fn(|_| Default::default()),
            digest_slot: Default::default(),
            digest_lane: Default::default(),
            out_digest: Default::default(),
            out_valid: Default::default(),
            lane_digest: Default::default(),
            lane_digest_valid: Default::default(),
            fifos: core::array::from_fn(|_| Default::default()),
            columns: core::array::from_fn(|_| Default::default()),
            column_data: core::array::from_fn(|_| Default::default()),
            rows: core::array::from_fn(|_| Default::default()),
            read_word: core::array::from_fn(|_| Default::default()),
            want_column: core::array::from_fn(|_| Default::default()),
            turn_column: core::array::from_fn(|_| Default::default()),
            arrive_column: core::array::from_fn(|_| Default::default()),
            pending: core::array::from_fn(|_| Default::default()),
            issued_1: core::array::from_fn(|_| Default::default()),
            issued_2: core::array::from_fn(|_| Default::default()),
            issue: core::array::from_fn(|_| Default::default()),
            take: core::array::from_fn(|_| Default::default()),
            first_turn: core::array::from_fn(|j| Constant::new(bits::<BEAT_WORDS>(rotl(1, 2 * j)))),
            // Two clocks before: the turn's column less two.
            first_arrival: core::array::from_fn(|j| Constant::new(bits::<3>(((2 * j + 6) % BEAT_WORDS) as u64))),
            slot_base: core::array::from_fn(|j| Constant::new(bits::<12>((j * crate::sha1::PAGE_WORDS) as u64))),
            fifo_depth: Constant::new(bits::<5>(1 << LANE_FIFO_BITS)),
            last_word: Constant::new(bits::<10>((crate::sha1::PAGE_WORDS - 1) as u64)),
            whole_page: Constant::new(bits::<8>(PAGE_BEATS as u64)),
        }
    }
}

impl Logic for WideLaneGroup {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, digest_slot, digest_lane, out_digest, out_valid);
        for c in 0..BEAT_WORDS {
            self.columns[c].clock.next = self.clock.val();
            self.column_data[c].clock.next = self.clock.val();
            self.column_data[c].d.next = self.columns[c].read_data.val();
            // Word `c` of the beat: the first word is in the top bits.
            self.columns[c].write_data.next = self.beat.val().get_bits::<32>(224 - 32 * c);
            self.columns[c].write_enable.next = false;
            self.columns[c].write_address.next = self.write_address.val();
            self.columns[c].read_address.next = 0.into();
        }
        self.open.next = false;
        // The next lane's digest: a 4:1 multiplexer on the lane's number.
        if self.digest_lane.q.val().get_bit(1) {
            if self.digest_lane.q.val().get_bit(0) {
                self.lane_digest.next = self.engines[3].digest.val();
                self.lane_digest_valid.next = self.engines[3].digest_valid.val();
            } else {
                self.lane_digest.next = self.engines[2].digest.val();
                self.lane_digest_valid.next = self.engines[2].digest_valid.val();
            }
        } else if self.digest_lane.q.val().get_bit(0) {
            self.lane_digest.next = self.engines[1].digest.val();
            self.lane_digest_valid.next = self.engines[1].digest_valid.val();
        } else {
            self.lane_digest.next = self.engines[0].digest.val();
            self.lane_digest_valid.next = self.engines[0].digest_valid.val();
        }
        for j in 0..GROUP_LANES {
            self.engines[j].clock.next = self.clock.val();
            self.engines[j].reset.next = self.reset.val();
            self.fifos[j].clock.next = self.clock.val();
            self.fifos[j].reset.next = self.reset.val();
            self.rows[j].clock.next = self.clock.val();
            self.read_word[j].clock.next = self.clock.val();
            self.want_column[j].clock.next = self.clock.val();
            self.turn_column[j].clock.next = self.clock.val();
            self.arrive_column[j].clock.next = self.clock.val();
            self.pending[j].clock.next = self.clock.val();
            self.issued_1[j].clock.next = self.clock.val();
            self.issued_2[j].clock.next = self.clock.val();

            // The slot's page in the buffer.
            if self.write.val() & self.write_slot.val().get_bit(j) {
                for c in 0..BEAT_WORDS {
                    self.columns[c].write_enable.next = true;
                }
            }
            if self.open_slot.val().get_bit(j) & (self.rows[j].q.val() != self.whole_page.val()) {
                self.open.next = true;
            }

            // The reader: the next word, on the lane's turn at its column,
            // once its row is written and the FIFO has room for it.
            // (`rows` is at most 128: its bit 7 means every row is in.)
            self.issue[j].next = (self.want_column[j].q.val() == self.turn_column[j].q.val())
                & (self.rows[j].q.val().get_bit(7)
                    | (self.read_word[j].q.val().get_bits::<7>(3) < self.rows[j].q.val().get_bits::<7>(0)))
                & (self.pending[j].q.val() != self.fifo_depth.val());
            self.take[j].next = !self.fifos[j].empty.val() & self.engines[j].page.ready.val();
            self.turn_column[j].d.next = (self.turn_column[j].q.val() << 1) | (self.turn_column[j].q.val() >> 7);
            self.arrive_column[j].d.next = self.arrive_column[j].q.val() + 1;
            self.issued_1[j].d.next = self.issue[j].val();
            self.issued_2[j].d.next = self.issued_1[j].q.val();
            self.rows[j].d.next = self.rows[j].q.val();
            self.read_word[j].d.next = self.read_word[j].q.val();
            self.want_column[j].d.next = self.want_column[j].q.val();
            if self.issue[j].val() {
                self.read_word[j].d.next = self.read_word[j].q.val() + 1;
                self.want_column[j].d.next = (self.want_column[j].q.val() << 1) | (self.want_column[j].q.val() >> 7);
            }
            if self.issue[j].val() & !self.take[j].val() {
                self.pending[j].d.next = self.pending[j].q.val() + 1;
            } else if !self.issue[j].val() & self.take[j].val() {
                self.pending[j].d.next = self.pending[j].q.val() - 1;
            } else {
                self.pending[j].d.next = self.pending[j].q.val();
            }
            if self.write.val() & self.write_slot.val().get_bit(j) {
                self.rows[j].d.next = self.rows[j].q.val() + 1;
            }
            // The last word read frees the slot (the writer is past it: all
            // its rows are in).
            if self.issue[j].val() & (self.read_word[j].q.val().get_bits::<10>(0) == self.last_word.val()) {
                self.rows[j].d.next = 0.into();
                self.read_word[j].d.next = self.slot_base[j].val();
            }

            // The word read two clocks ago, into the FIFO; the FIFO feeds
            // the engine.
            // (A tree of 2:1 multiplexers on the column number's bits.)
            if self.arrive_column[j].q.val().get_bit(2) {
                if self.arrive_column[j].q.val().get_bit(1) {
                    if self.arrive_column[j].q.val().get_bit(0) {
                        self.fifos[j].data_in.next = self.column_data[7].q.val();
                    } else {
                        self.fifos[j].data_in.next = self.column_data[6].q.val();
                    }
                } else if self.arrive_column[j].q.val().get_bit(0) {
                    self.fifos[j].data_in.next = self.column_data[5].q.val();
                } else {
                    self.fifos[j].data_in.next = self.column_data[4].q.val();
                }
            } else if self.arrive_column[j].q.val().get_bit(1) {
                if self.arrive_column[j].q.val().get_bit(0) {
                    self.fifos[j].data_in.next = self.column_data[3].q.val();
                } else {
                    self.fifos[j].data_in.next = self.column_data[2].q.val();
                }
            } else if self.arrive_column[j].q.val().get_bit(0) {
                self.fifos[j].data_in.next = self.column_data[1].q.val();
            } else {
                self.fifos[j].data_in.next = self.column_data[0].q.val();
            }
            self.fifos[j].write.next = self.issued_2[j].q.val();
            self.fifos[j].read.next = self.take[j].val();
            self.engines[j].page.word.next = self.fifos[j].data_out.val();
            self.engines[j].page.valid.next = !self.fifos[j].empty.val();

            // The next lane's digest, into the output register when empty.
            self.engines[j].digest_ready.next = !self.out_valid.q.val() & self.digest_slot.q.val().get_bit(j);

            if self.reset.val() {
                self.rows[j].d.next = 0.into();
                self.read_word[j].d.next = self.slot_base[j].val();
                self.want_column[j].d.next = 1.into();
                self.turn_column[j].d.next = self.first_turn[j].val();
                self.arrive_column[j].d.next = self.first_arrival[j].val();
                self.pending[j].d.next = 0.into();
                self.issued_1[j].d.next = false;
                self.issued_2[j].d.next = false;
            }
        }
        if !self.out_valid.q.val() & self.lane_digest_valid.val() {
            self.out_digest.d.next = self.lane_digest.val();
            self.out_valid.d.next = true;
            self.digest_slot.d.next = (self.digest_slot.q.val() << 1) | (self.digest_slot.q.val() >> 3);
            self.digest_lane.d.next = self.digest_lane.q.val() + 1;
        }
        if self.digest_taken.val() {
            self.out_valid.d.next = false;
        }
        self.digest.next = self.out_digest.q.val();
        self.digest_valid.next = self.out_valid.q.val();
        if self.reset.val() {
            self.digest_slot.d.next = 1.into();
            self.digest_lane.d.next = 0.into();
            self.out_valid.d.next = false;
        }
        // Each column is read by the lane whose turn it is (at most one).
        for c in 0..BEAT_WORDS {
            for j in 0..GROUP_LANES {
                if self.turn_column[j].q.val().get_bit(c) {
                    self.columns[c].read_address.next = self.read_word[j].q.val().get_bits::<9>(3);
                }
            }
        }
    }
}

/// `4 G` SHA-1 lanes behind a 256-bit page stream; see the module header.
#[derive(LogicBlock)]
pub struct Sha1WideHasher<const G: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub page: PageBeatSink,
    pub digest: Signal<Out, Bits<160>>,
    pub digest_valid: Signal<Out, Bit>,
    pub digest_ready: Signal<In, Bit>,

    groups: [WideLaneGroup; G],
    /// The reset, registered once for its fan-out to every lane.
    lanes_reset: DFF<Bit>,
    /// The accepted beat, registered for its fan-out to every group.
    beat: DFF<Bits<BEAT_BITS>>,
    beat_valid: DFF<Bit>,
    beat_address: DFF<Bits<9>>,
    beat_slot: DFF<Bits<GROUP_LANES>>,
    beat_group: DFF<Bits<64>>,
    /// The lane the next beat goes to (its group one-hot, its slot
    /// one-hot) and where in the group's buffer: the slot's number in
    /// bits 8..7 and the beat's in its page in bits 6..0.
    write_address: DFF<Bits<9>>,
    write_slot: DFF<Bits<GROUP_LANES>>,
    write_group: DFF<Bits<64>>,
    /// The group whose digest is next (one-hot), its output register as
    /// seen a clock ago, and the groups told they were taken from.
    read_group: DFF<Bits<64>>,
    group_digest: DFF<Bits<160>>,
    group_digest_valid: DFF<Bit>,
    taken: DFF<Bits<64>>,
    /// Clocks since a collection, while `group_digest_valid` may still
    /// show the digest just taken: its group hears of the take a clock
    /// later and empties a clock after that.
    settling: DFF<Bits<2>>,
    out_digest: DFF<Bits<160>>,
    out_valid: DFF<Bit>,
    slot_open: Signal<Local, Bit>,
    collect: Signal<Local, Bit>,
    first_group: Constant<Bits<64>>,
    last_group: Constant<Bits<64>>,
}

impl<const G: usize> Default for Sha1WideHasher<G> {
    fn default() -> Self {
        assert!((1..=16).contains(&G), "lane groups must be 1..=16 (4 to 64 lanes), got {G}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            page: Default::default(),
            digest: Default::default(),
            digest_valid: Default::default(),
            digest_ready: Default::default(),
            groups: core::array::from_fn(|_| Default::default()),
            lanes_reset: Default::default(),
            beat: Default::default(),
            beat_valid: Default::default(),
            beat_address: Default::default(),
            beat_slot: Default::default(),
            beat_group: Default::default(),
            write_address: Default::default(),
            write_slot: Default::default(),
            write_group: Default::default(),
            read_group: Default::default(),
            group_digest: Default::default(),
            group_digest_valid: Default::default(),
            taken: Default::default(),
            settling: Default::default(),
            out_digest: Default::default(),
            out_valid: Default::default(),
            slot_open: Default::default(),
            collect: Default::default(),
            first_group: Constant::new(bits::<64>(1)),
            last_group: Constant::new(bits::<64>(1 << (G - 1))),
        }
    }
}

impl<const G: usize> Logic for Sha1WideHasher<G> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            lanes_reset,
            beat,
            beat_valid,
            beat_address,
            beat_slot,
            beat_group,
            write_address,
            write_slot,
            write_group,
            read_group,
            group_digest,
            group_digest_valid,
            taken,
            settling,
            out_digest,
            out_valid
        );
        self.lanes_reset.d.next = self.reset.val();
        self.slot_open.next = false;
        self.group_digest.d.next = 0.into();
        self.group_digest_valid.d.next = false;
        for g in 0..G {
            self.groups[g].clock.next = self.clock.val();
            self.groups[g].reset.next = self.lanes_reset.q.val();
            self.groups[g].write.next = self.beat_valid.q.val() & self.beat_group.q.val().get_bit(g);
            self.groups[g].write_slot.next = self.beat_slot.q.val();
            self.groups[g].write_address.next = self.beat_address.q.val();
            self.groups[g].beat.next = self.beat.q.val();
            self.groups[g].open_slot.next = self.write_slot.q.val();
            if self.write_group.q.val().get_bit(g) & self.groups[g].open.val() {
                self.slot_open.next = true;
            }
            if self.read_group.q.val().get_bit(g) {
                self.group_digest.d.next = self.groups[g].digest.val();
                self.group_digest_valid.d.next = self.groups[g].digest_valid.val();
            }
            self.groups[g].digest_taken.next = self.taken.q.val().get_bit(g);
        }

        // Input: a beat is taken into the lane's slot while it is open.
        self.page.ready.next = self.slot_open.val() & !self.reset.val() & !self.lanes_reset.q.val();
        self.beat.d.next = self.page.beat.val();
        self.beat_valid.d.next = self.page.valid.val() & self.page.ready.val();
        self.beat_address.d.next = self.write_address.q.val();
        self.beat_slot.d.next = self.write_slot.q.val();
        self.beat_group.d.next = self.write_group.q.val();
        if self.page.valid.val() & self.page.ready.val() {
            self.write_address.d.next = self.write_address.q.val() + 1;
            // A page's last beat: the next page goes to the next group, at
            // the same slot, or round to the first group at the next slot
            // (the address's slot number counts up with it, past the row).
            if self.write_address.q.val().get_bits::<7>(0).all() {
                if self.write_group.q.val() == self.last_group.val() {
                    self.write_group.d.next = self.first_group.val();
                    self.write_slot.d.next = (self.write_slot.q.val() << 1) | (self.write_slot.q.val() >> 3);
                } else {
                    self.write_group.d.next = self.write_group.q.val() << 1;
                    self.write_address.d.next = self.write_address.q.val() - 127;
                }
            }
        }

        // Output: the next group's digest into the output register. A
        // group's digests are its lanes' in order, and pages go round the
        // groups a lane at a time: lane `j` of every group, then lane
        // `j + 1`, so the groups take turns digest by digest.
        self.collect.next = !self.out_valid.q.val() & self.group_digest_valid.q.val() & (self.settling.q.val() == 0);
        self.taken.d.next = 0.into();
        self.settling.d.next = self.settling.q.val() >> 1;
        if self.collect.val() {
            self.out_digest.d.next = self.group_digest.q.val();
            self.out_valid.d.next = true;
            self.taken.d.next = self.read_group.q.val();
            self.settling.d.next = 3.into();
            if self.read_group.q.val() == self.last_group.val() {
                self.read_group.d.next = self.first_group.val();
            } else {
                self.read_group.d.next = self.read_group.q.val() << 1;
            }
        }
        if self.out_valid.q.val() & self.digest_ready.val() {
            self.out_valid.d.next = false;
        }
        self.digest.next = self.out_digest.q.val();
        self.digest_valid.next = self.out_valid.q.val();

        if self.reset.val() {
            self.beat_valid.d.next = false;
            self.write_address.d.next = 0.into();
            self.write_slot.d.next = 1.into();
            self.write_group.d.next = self.first_group.val();
            self.read_group.d.next = self.first_group.val();
            self.taken.d.next = 0.into();
            self.settling.d.next = 0.into();
            self.out_valid.d.next = false;
        }
    }
}

/// Whether a wide hasher of `lanes` lanes can be built: a multiple of four
/// from 4 to 64.
pub fn lanes_supported(lanes: usize) -> bool {
    lanes % GROUP_LANES == 0 && (GROUP_LANES..=64).contains(&lanes)
}

/// Verilog of a wide hasher with `lanes` lanes (top module `top`), or
/// `None` unless [`lanes_supported`].
pub fn wide_hasher_verilog(lanes: usize) -> Option<String> {
    // One function per size, boxed: a frame holding every size's hasher
    // at once (the match's arms share one) overflows a thread's stack.
    #[inline(never)]
    fn verilog_of<const G: usize>() -> String {
        let mut hasher = Box::<Sha1WideHasher<G>>::default();
        hasher.connect_all();
        generate_verilog(hasher.as_ref())
    }
    macro_rules! by_groups {
        ($($g:literal),+) => {
            match lanes {
                $(l if l == 4 * $g => Some(verilog_of::<$g>()),)+
                _ => None,
            }
        };
    }
    by_groups!(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_counts_outside_the_groups_are_refused() {
        assert!(wide_hasher_verilog(0).is_none());
        assert!(wide_hasher_verilog(6).is_none());
        assert!(wide_hasher_verilog(68).is_none());
        assert!(!lanes_supported(6) && lanes_supported(40) && lanes_supported(64));
    }

    #[test]
    fn one_group_writes_verilog_with_its_block_rams_and_lane_fifos() {
        let verilog = wide_hasher_verilog(4).expect("four lanes are one group");
        assert_eq!(verilog.matches("(* no_rw_check *)").count(), BEAT_WORDS, "one column RAM per beat word");
        assert!(verilog.contains("page$beat"), "the 256-bit stream port");
    }

    /// On the ECP5 each lane's FIFO is distributed RAM (eight 16 x 4
    /// cells for 16 x 32 bits, not 512 flip-flops) and each column one
    /// block RAM.
    #[test]
    fn one_group_maps_to_distributed_and_block_ram_on_the_ecp5() {
        let verilog = wide_hasher_verilog(4).expect("four lanes are one group");
        let stats = ditto_synth::check_synthesizable_on(ditto_synth::Device::Lfe5u85f, &verilog, "top")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.ebrs, BEAT_WORDS as u64, "one 512 x 32 block RAM per column: {stats:?}");
        let lut_rams = stats.cells_by_type.get("TRELLIS_DPR16X4").copied().unwrap_or(0);
        assert_eq!(lut_rams, (GROUP_LANES * 32 / 4) as u64, "a 16 x 32 FIFO per lane: {stats:?}");
    }
}
