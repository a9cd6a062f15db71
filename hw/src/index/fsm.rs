//! `LookupFsm`: one of the index's lookup state machines. It serves one
//! command at a time, from dispatch to response.
//!
//! Sequence: take the command (`start`), wait until the lock table clears it
//! (`blocked` low: no older command on the same bucket is in flight), read the
//! bucket's metadata, and if the Bloom filter says "maybe" read every occupied
//! way (all requests back to back, so a walk costs one memory latency, not
//! one per entry), OR-ing their Bloom bits into a rebuilt filter and marking
//! the ways whose signature matches. Candidates are confirmed one at a time
//! with a read of the full fingerprint. Then it writes what changed (the way,
//! the full fingerprint of a new entry, the metadata) and moves the response
//! to its held slot, where it waits to be collected, as soon as that slot is
//! free; it is then idle and can take the next command. Once its writes are
//! done it is no longer `active`: its bucket is free.
//!
//! Ports: the command fields are sampled on `start`. `tbl_req_*`/`fp_req_*`
//! are requests held until `*_grant`; their address, data and write flag
//! follow the state alone, so they are meaningful only while `*_req_valid`
//! (which is where the conditions are: no data path waits on a verdict);
//! `tbl_rsp_valid`/`fp_rsp_valid` are this
//! FSM's responses (already selected by tag), always accepted. `rsp_*` is the
//! held slot, kept until `rsp_taken`. `active`, `bucket` feed the lock table.
use super::{
    BLOOM_BITS, CMD_TAG_BITS, ENTRY_BITS, MAX_BUCKET_BITS, REFCOUNT_BITS, SIG_BITS, TABLE_ADDR_BITS, TABLE_DATA_BITS,
};
use crate::state_reg::OneHotState;
use rust_hdl::prelude::*;

/// The machine's states. Their codes (in this order, from 0) are the bit
/// numbers the formal properties (`hw/formal/bloom.v`, `lock_table.v`)
/// decode the state with.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
enum State {
    /// No command; the next is taken on `start`.
    Idle,
    /// Waiting for older commands on the same bucket to finish.
    Lock,
    /// Reading the bucket's metadata word.
    MetaReq,
    MetaWait,
    /// The Bloom filter and the command decide what to read.
    Classify,
    /// Every occupied way read back to back; candidates by signature.
    Walk,
    /// One candidate's full fingerprint read and compared.
    VerifyReq,
    VerifyWait,
    /// The fingerprint is present.
    Hit,
    /// The fingerprint is absent.
    Miss,
    /// The writes of what changed: the way, the full fingerprint, the
    /// bucket's metadata.
    WriteWay,
    WriteFp,
    WriteMeta,
    /// The response moves to the held slot when it is free.
    Done,
    /// What a hit does to the reference count and the bucket.
    HitDecide,
    /// The lock table's verdict on the bucket settles (registered twice).
    LockSettle,
}

#[derive(LogicBlock)]
pub struct LookupFsm {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub bloom_enable: Signal<In, Bit>,
    /// The bucket mask of the configuration (`2^bucket_bits - 1`).
    pub bucket_mask: Signal<In, Bits<MAX_BUCKET_BITS>>,

    pub start: Signal<In, Bit>,
    pub cmd_op: Signal<In, Bits<3>>,
    pub cmd_fp: Signal<In, Bits<160>>,
    pub cmd_entry: Signal<In, Bits<ENTRY_BITS>>,
    pub cmd_tag: Signal<In, Bits<CMD_TAG_BITS>>,
    /// Dispatch sequence number of the command (mod 64).
    pub cmd_seq: Signal<In, Bits<6>>,
    pub idle: Signal<Out, Bit>,
    /// Sequence number of the current command and of the held response.
    pub seq: Signal<Out, Bits<6>>,
    pub held_seq: Signal<Out, Bits<6>>,

    pub active: Signal<Out, Bit>,
    pub bucket: Signal<Out, Bits<MAX_BUCKET_BITS>>,
    pub blocked: Signal<In, Bit>,

    pub tbl_req_valid: Signal<Out, Bit>,
    pub tbl_req_write: Signal<Out, Bit>,
    pub tbl_req_addr: Signal<Out, Bits<TABLE_ADDR_BITS>>,
    pub tbl_req_wdata: Signal<Out, Bits<TABLE_DATA_BITS>>,
    pub tbl_grant: Signal<In, Bit>,
    pub tbl_rsp_valid: Signal<In, Bit>,
    pub tbl_rsp_rdata: Signal<In, Bits<TABLE_DATA_BITS>>,

    pub fp_req_valid: Signal<Out, Bit>,
    pub fp_req_write: Signal<Out, Bit>,
    pub fp_req_entry: Signal<Out, Bits<ENTRY_BITS>>,
    pub fp_req_wdata: Signal<Out, Bits<160>>,
    pub fp_grant: Signal<In, Bit>,
    pub fp_rsp_valid: Signal<In, Bit>,
    pub fp_rsp_rdata: Signal<In, Bits<160>>,

    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_tag: Signal<Out, Bits<CMD_TAG_BITS>>,
    pub rsp_status: Signal<Out, Bits<4>>,
    pub rsp_entry: Signal<Out, Bits<ENTRY_BITS>>,
    pub rsp_refcount: Signal<Out, Bits<REFCOUNT_BITS>>,
    pub rsp_flags: Signal<Out, Bits<4>>,
    pub rsp_taken: Signal<In, Bit>,

    /// Encoded one-hot by synthesis: each state's logic is guarded by
    /// one flip-flop.
    state: OneHotState<State>,
    // The lock table's verdict, registered: it is first read two clocks after
    // `start`, so it always reflects this command's bucket.
    blocked_r: DFF<Bit>,
    op: DFF<Bits<3>>,
    fp: DFF<Bits<160>>,
    tag: DFF<Bits<CMD_TAG_BITS>>,
    seq_r: DFF<Bits<6>>,
    entry_r: DFF<Bits<ENTRY_BITS>>,
    held_seq_r: DFF<Bits<6>>,
    bucket_r: DFF<Bits<MAX_BUCKET_BITS>>,
    // One-hot way named by a DEREF_ENTRY command.
    entry_way: DFF<Bits<8>>,
    bloom: DFF<Bits<BLOOM_BITS>>,
    occupied: DFF<Bits<8>>,
    to_issue: DFF<Bits<8>>,
    to_receive: DFF<Bits<8>>,
    candidates: DFF<Bits<8>>,
    rebuilt: DFF<Bits<BLOOM_BITS>>,
    walked: DFF<Bit>,
    refcounts: [DFF<Bits<REFCOUNT_BITS>>; 8],
    read_sig: DFF<Bits<SIG_BITS>>,
    // The write plan and the response.
    target_way: DFF<Bits<8>>,
    hit_rc: DFF<Bits<REFCOUNT_BITS>>,
    write_way: DFF<Bit>,
    write_fp: DFF<Bit>,
    write_meta: DFF<Bit>,
    way_word: DFF<Bits<20>>,
    meta_word: DFF<Bits<TABLE_DATA_BITS>>,
    status: DFF<Bits<4>>,
    out_refcount: DFF<Bits<REFCOUNT_BITS>>,
    flags: DFF<Bits<4>>,
    // The key's Bloom bits, registered (the fingerprint is steady from the
    // clock after `start`, and they are first needed three clocks later).
    key_bits_r: DFF<Bits<BLOOM_BITS>>,
    // The bucket's filter covers the key: set with the metadata.
    bloom_covers: DFF<Bit>,
    // The lowest candidate, one-hot, registered for the hit decision (the
    // candidates are steady for a clock before a hit).
    hit_onehot: DFF<Bits<8>>,
    // Ways still to request (to_issue is not empty).
    issue_more: DFF<Bit>,
    // More than one candidate remains (registered; the candidates are steady
    // while a verify read is out).
    more_candidates: DFF<Bit>,
    // The rebuilt filter would clear stale bits (with or without the key),
    // registered from the walk's result for the MISS decision.
    stale_with_key: DFF<Bit>,
    stale_without_key: DFF<Bit>,
    // A full-fingerprint response and whether it matched, registered (the
    // 160-bit compare takes most of a clock).
    fp_seen: DFF<Bit>,
    fp_equal: DFF<Bit>,
    // The response waiting to be collected.
    held_valid: DFF<Bit>,
    held_tag: DFF<Bits<CMD_TAG_BITS>>,
    held_status: DFF<Bits<4>>,
    held_entry: DFF<Bits<ENTRY_BITS>>,
    held_refcount: DFF<Bits<REFCOUNT_BITS>>,
    held_flags: DFF<Bits<4>>,

    key_sig: Signal<Local, Bits<SIG_BITS>>,
    key_bits: Signal<Local, Bits<BLOOM_BITS>>,
    rsp_sig: Signal<Local, Bits<SIG_BITS>>,
    rsp_bits: Signal<Local, Bits<BLOOM_BITS>>,
    issue_prefix: [Signal<Local, Bits<8>>; 3],
    receive_prefix: [Signal<Local, Bits<8>>; 3],
    candidate_prefix: [Signal<Local, Bits<8>>; 3],
    issue_onehot: Signal<Local, Bits<8>>,
    issue_way: Signal<Local, Bits<3>>,
    receive_onehot: Signal<Local, Bits<8>>,
    candidate_onehot: Signal<Local, Bits<8>>,
    candidate_way: Signal<Local, Bits<3>>,
    free_onehot: Signal<Local, Bits<8>>,
    target_way_no: Signal<Local, Bits<3>>,
    target_entry: Signal<Local, Bits<ENTRY_BITS>>,
    hit_refcount: Signal<Local, Bits<REFCOUNT_BITS>>,
    miss_base: Signal<Local, Bits<BLOOM_BITS>>,
    miss_bloom: Signal<Local, Bits<BLOOM_BITS>>,
    write_sig: Signal<Local, Bits<SIG_BITS>>,
    entry_bucket: Signal<Local, Bits<ENTRY_BITS>>,
    // INSERT or PUT: a miss allocates an entry.
    allocates: Signal<Local, Bit>,

    one32: Constant<Bits<BLOOM_BITS>>,
    one8: Constant<Bits<8>>,
    way_numbers: [Constant<Bits<3>>; 8],
    meta_region: Constant<Bits<TABLE_ADDR_BITS>>,
    refcount_max: Constant<Bits<REFCOUNT_BITS>>,
}

impl Default for LookupFsm {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            bloom_enable: Default::default(),
            bucket_mask: Default::default(),
            start: Default::default(),
            cmd_op: Default::default(),
            cmd_fp: Default::default(),
            cmd_entry: Default::default(),
            cmd_tag: Default::default(),
            cmd_seq: Default::default(),
            idle: Default::default(),
            seq: Default::default(),
            held_seq: Default::default(),
            active: Default::default(),
            bucket: Default::default(),
            blocked: Default::default(),
            tbl_req_valid: Default::default(),
            tbl_req_write: Default::default(),
            tbl_req_addr: Default::default(),
            tbl_req_wdata: Default::default(),
            tbl_grant: Default::default(),
            tbl_rsp_valid: Default::default(),
            tbl_rsp_rdata: Default::default(),
            fp_req_valid: Default::default(),
            fp_req_write: Default::default(),
            fp_req_entry: Default::default(),
            fp_req_wdata: Default::default(),
            fp_grant: Default::default(),
            fp_rsp_valid: Default::default(),
            fp_rsp_rdata: Default::default(),
            rsp_valid: Default::default(),
            rsp_tag: Default::default(),
            rsp_status: Default::default(),
            rsp_entry: Default::default(),
            rsp_refcount: Default::default(),
            rsp_flags: Default::default(),
            rsp_taken: Default::default(),
            state: Default::default(),
            blocked_r: Default::default(),
            op: Default::default(),
            fp: Default::default(),
            tag: Default::default(),
            seq_r: Default::default(),
            entry_r: Default::default(),
            held_seq_r: Default::default(),
            bucket_r: Default::default(),
            entry_way: Default::default(),
            bloom: Default::default(),
            occupied: Default::default(),
            to_issue: Default::default(),
            to_receive: Default::default(),
            candidates: Default::default(),
            rebuilt: Default::default(),
            walked: Default::default(),
            refcounts: core::array::from_fn(|_| Default::default()),
            read_sig: Default::default(),
            target_way: Default::default(),
            hit_rc: Default::default(),
            write_way: Default::default(),
            write_fp: Default::default(),
            write_meta: Default::default(),
            way_word: Default::default(),
            meta_word: Default::default(),
            status: Default::default(),
            out_refcount: Default::default(),
            flags: Default::default(),
            key_bits_r: Default::default(),
            bloom_covers: Default::default(),
            hit_onehot: Default::default(),
            issue_more: Default::default(),
            more_candidates: Default::default(),
            stale_with_key: Default::default(),
            stale_without_key: Default::default(),
            fp_seen: Default::default(),
            fp_equal: Default::default(),
            held_valid: Default::default(),
            held_tag: Default::default(),
            held_status: Default::default(),
            held_entry: Default::default(),
            held_refcount: Default::default(),
            held_flags: Default::default(),
            key_sig: Default::default(),
            key_bits: Default::default(),
            rsp_sig: Default::default(),
            rsp_bits: Default::default(),
            issue_prefix: Default::default(),
            receive_prefix: Default::default(),
            candidate_prefix: Default::default(),
            issue_onehot: Default::default(),
            issue_way: Default::default(),
            receive_onehot: Default::default(),
            candidate_onehot: Default::default(),
            candidate_way: Default::default(),
            free_onehot: Default::default(),
            target_way_no: Default::default(),
            target_entry: Default::default(),
            hit_refcount: Default::default(),
            miss_base: Default::default(),
            miss_bloom: Default::default(),
            write_sig: Default::default(),
            entry_bucket: Default::default(),
            allocates: Default::default(),
            one32: Constant::new(bits(1)),
            one8: Constant::new(bits(1)),
            way_numbers: core::array::from_fn(|w| Constant::new(bits(w as u64))),
            meta_region: Constant::new(bits(super::META_REGION as u64)),
            refcount_max: Constant::new(bits(super::REFCOUNT_MAX as u64)),
        }
    }
}

// Each state's logic sits in one `if` on the state, so the machine reads
// state by state, even where that logic is a single condition.
#[allow(clippy::collapsible_if)]
impl Logic for LookupFsm {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            blocked_r,
            op,
            fp,
            tag,
            seq_r,
            entry_r,
            held_seq_r,
            bucket_r,
            entry_way,
            bloom,
            occupied,
            to_issue,
            to_receive,
            candidates,
            rebuilt,
            walked,
            read_sig,
            target_way,
            hit_rc,
            write_way,
            write_fp,
            write_meta,
            way_word,
            meta_word,
            status,
            out_refcount,
            flags,
            key_bits_r,
            bloom_covers,
            hit_onehot,
            issue_more,
            more_candidates,
            stale_with_key,
            stale_without_key,
            fp_seen,
            fp_equal,
            held_valid,
            held_tag,
            held_status,
            held_entry,
            held_refcount,
            held_flags
        );
        for w in 0..8 {
            self.refcounts[w].clock.next = self.clock.val();
            self.refcounts[w].d.next = self.refcounts[w].q.val();
        }

        // --- Combinational helpers ------------------------------------------
        self.key_sig.next = self.fp.q.val().get_bits::<SIG_BITS>(16);
        self.key_bits.next = (self.one32.val() << self.key_sig.val().get_bits::<5>(0))
            | (self.one32.val() << self.key_sig.val().get_bits::<5>(5))
            | (self.one32.val() << (self.key_sig.val().get_bits::<5>(7) ^ self.key_sig.val().get_bits::<5>(0)));
        self.key_bits_r.d.next = self.key_bits.val();
        self.blocked_r.d.next = self.blocked.val();
        self.fp_seen.d.next = self.fp_rsp_valid.val();
        self.stale_with_key.d.next = (self.bloom.q.val() & !(self.rebuilt.q.val() | self.key_bits_r.q.val())) != 0;
        self.stale_without_key.d.next = (self.bloom.q.val() & !self.rebuilt.q.val()) != 0;
        self.fp_equal.d.next = self.fp_rsp_rdata.val() == self.fp.q.val();
        self.rsp_sig.next = self.tbl_rsp_rdata.val().get_bits::<SIG_BITS>(0);
        self.rsp_bits.next = (self.one32.val() << self.rsp_sig.val().get_bits::<5>(0))
            | (self.one32.val() << self.rsp_sig.val().get_bits::<5>(5))
            | (self.one32.val() << (self.rsp_sig.val().get_bits::<5>(7) ^ self.rsp_sig.val().get_bits::<5>(0)));
        // Lowest set bit of a mask, one-hot: the mask without every bit above
        // a set one, from a prefix OR in three shift stages (LUTs only, no
        // carry chain, which was too slow here).
        self.issue_prefix[0].next = self.to_issue.q.val() | (self.to_issue.q.val() << 1);
        self.receive_prefix[0].next = self.to_receive.q.val() | (self.to_receive.q.val() << 1);
        self.candidate_prefix[0].next = self.candidates.q.val() | (self.candidates.q.val() << 1);
        self.issue_prefix[1].next = self.issue_prefix[0].val() | (self.issue_prefix[0].val() << 2);
        self.receive_prefix[1].next = self.receive_prefix[0].val() | (self.receive_prefix[0].val() << 2);
        self.candidate_prefix[1].next = self.candidate_prefix[0].val() | (self.candidate_prefix[0].val() << 2);
        self.issue_prefix[2].next = self.issue_prefix[1].val() | (self.issue_prefix[1].val() << 4);
        self.receive_prefix[2].next = self.receive_prefix[1].val() | (self.receive_prefix[1].val() << 4);
        self.candidate_prefix[2].next = self.candidate_prefix[1].val() | (self.candidate_prefix[1].val() << 4);
        self.issue_onehot.next = self.to_issue.q.val() & !(self.issue_prefix[2].val() << 1);
        self.receive_onehot.next = self.to_receive.q.val() & !(self.receive_prefix[2].val() << 1);
        self.candidate_onehot.next = self.candidates.q.val() & !(self.candidate_prefix[2].val() << 1);
        self.hit_onehot.d.next = self.candidate_onehot.val();
        self.more_candidates.d.next = (self.candidates.q.val() & (self.candidates.q.val() - 1)) != 0;
        // Lowest clear bit of the occupancy: the way a new entry takes.
        self.free_onehot.next = !self.occupied.q.val() & (self.occupied.q.val() + 1);
        self.issue_way.next = 0.into();
        self.candidate_way.next = 0.into();
        self.target_way_no.next = 0.into();
        self.hit_refcount.next = 0.into();
        for w in 0..8 {
            if self.issue_onehot.val().get_bit(w) {
                self.issue_way.next = self.way_numbers[w].val();
            }
            if self.candidate_onehot.val().get_bit(w) {
                self.candidate_way.next = self.way_numbers[w].val();
            }
            if self.hit_onehot.q.val().get_bit(w) {
                self.hit_refcount.next = self.refcounts[w].q.val();
            }
            if self.target_way.q.val().get_bit(w) {
                self.target_way_no.next = self.way_numbers[w].val();
            }
        }
        self.entry_bucket.next = bit_cast::<ENTRY_BITS, MAX_BUCKET_BITS>(self.bucket_r.q.val()) << 3;
        self.target_entry.next = self.entry_bucket.val() | bit_cast::<ENTRY_BITS, 3>(self.target_way_no.val());
        self.allocates.next = (self.op.q.val() == 0) | (self.op.q.val() == 4);
        // After a walk the filter is rebuilt from the ways read; without Bloom
        // filters (or without a walk) it is kept.
        if self.walked.q.val() & self.bloom_enable.val() {
            self.miss_base.next = self.rebuilt.q.val();
        } else {
            self.miss_base.next = self.bloom.q.val();
        }
        if self.allocates.val() & (self.occupied.q.val() != 0xff) {
            self.miss_bloom.next = self.miss_base.val() | self.key_bits_r.q.val();
        } else {
            self.miss_bloom.next = self.miss_base.val();
        }
        if self.op.q.val() == 3 {
            self.write_sig.next = self.read_sig.q.val();
        } else {
            self.write_sig.next = self.key_sig.val();
        }

        // --- Outputs ---------------------------------------------------------
        self.idle.next = self.state.q.val() == State::Idle;
        self.active.next = (self.state.q.val() != State::Idle) & (self.state.q.val() != State::Done);
        self.bucket.next = self.bucket_r.q.val();
        self.seq.next = self.seq_r.q.val();
        self.held_seq.next = self.held_seq_r.q.val();
        self.tbl_req_valid.next = false;
        self.tbl_req_write.next = false;
        self.tbl_req_addr.next = 0.into();
        self.tbl_req_wdata.next = 0.into();
        self.fp_req_valid.next = false;
        self.fp_req_write.next = false;
        self.fp_req_entry.next = 0.into();
        self.fp_req_wdata.next = self.fp.q.val();
        self.rsp_valid.next = self.held_valid.q.val();
        self.rsp_tag.next = self.held_tag.q.val();
        self.rsp_status.next = self.held_status.q.val();
        self.rsp_entry.next = self.held_entry.q.val();
        self.rsp_refcount.next = self.held_refcount.q.val();
        self.rsp_flags.next = self.held_flags.q.val();
        if self.rsp_taken.val() {
            self.held_valid.d.next = false;
        }

        // --- The state machine ---------------------------------------------
        if self.state.q.val() == State::Idle {
            // Only the command is captured here (the start strobe comes
            // through the dispatcher late in the clock); everything else
            // is prepared in LOCK_SETTLE.
            if self.start.val() {
                self.op.d.next = self.cmd_op.val();
                self.fp.d.next = self.cmd_fp.val();
                self.tag.d.next = self.cmd_tag.val();
                self.seq_r.d.next = self.cmd_seq.val();
                self.entry_r.d.next = self.cmd_entry.val();
                if self.cmd_op.val() == 3 {
                    self.bucket_r.d.next = self.cmd_entry.val().get_bits::<MAX_BUCKET_BITS>(3);
                } else {
                    self.bucket_r.d.next = self.cmd_fp.val().get_bits::<MAX_BUCKET_BITS>(0) & self.bucket_mask.val();
                }
                self.state.d.next = State::LockSettle;
            }
        }
        if self.state.q.val() == State::LockSettle {
            self.flags.d.next = 0.into();
            self.out_refcount.d.next = 0.into();
            self.target_way.d.next = 0.into();
            self.walked.d.next = false;
            self.write_way.d.next = false;
            self.write_fp.d.next = false;
            self.write_meta.d.next = false;
            self.entry_way.d.next = self.one8.val() << self.entry_r.q.val().get_bits::<3>(0);
            self.state.d.next = State::Lock;
            if (self.op.q.val() > 4)
                | ((self.op.q.val() == 3)
                    & ((self.entry_r.q.val().get_bits::<MAX_BUCKET_BITS>(3) & !self.bucket_mask.val()) != 0))
            {
                self.status.d.next = 11.into();
                self.state.d.next = State::Done;
            }
        }
        if self.state.q.val() == State::Lock {
            if !self.blocked_r.q.val() {
                self.state.d.next = State::MetaReq;
            }
        }
        if self.state.q.val() == State::MetaReq {
            self.tbl_req_valid.next = true;
            self.tbl_req_addr.next =
                self.meta_region.val() | bit_cast::<TABLE_ADDR_BITS, MAX_BUCKET_BITS>(self.bucket_r.q.val());
            if self.tbl_grant.val() {
                self.state.d.next = State::MetaWait;
            }
        }
        if self.state.q.val() == State::MetaWait {
            if self.tbl_rsp_valid.val() {
                self.bloom.d.next = self.tbl_rsp_rdata.val().get_bits::<BLOOM_BITS>(0);
                self.occupied.d.next = self.tbl_rsp_rdata.val().get_bits::<8>(32);
                self.bloom_covers.d.next = (self.tbl_rsp_rdata.val().get_bits::<BLOOM_BITS>(0)
                    & self.key_bits_r.q.val())
                    == self.key_bits_r.q.val();
                self.state.d.next = State::Classify;
            }
        }
        if self.state.q.val() == State::Classify {
            self.rebuilt.d.next = 0.into();
            self.candidates.d.next = 0.into();
            if self.op.q.val() == 3 {
                if (self.occupied.q.val() & self.entry_way.q.val()) == 0 {
                    self.status.d.next = 9.into();
                    self.state.d.next = State::Done;
                } else {
                    self.to_issue.d.next = self.entry_way.q.val();
                    self.issue_more.d.next = true;
                    self.to_receive.d.next = self.entry_way.q.val();
                    self.state.d.next = State::Walk;
                }
            } else if self.bloom_enable.val() & !self.bloom_covers.q.val() {
                self.flags.d.next = 1.into();
                self.state.d.next = State::Miss;
            } else {
                self.walked.d.next = true;
                self.to_issue.d.next = self.occupied.q.val();
                self.issue_more.d.next = self.occupied.q.val() != 0;
                self.to_receive.d.next = self.occupied.q.val();
                self.state.d.next = State::Walk;
            }
        }
        if self.state.q.val() == State::Walk {
            self.tbl_req_addr.next = bit_cast::<TABLE_ADDR_BITS, ENTRY_BITS>(
                self.entry_bucket.val() | bit_cast::<ENTRY_BITS, 3>(self.issue_way.val()),
            );
            if self.issue_more.q.val() {
                self.tbl_req_valid.next = true;
                if self.tbl_grant.val() {
                    self.to_issue.d.next = self.to_issue.q.val() & !self.issue_onehot.val();
                    self.issue_more.d.next = (self.to_issue.q.val() & !self.issue_onehot.val()) != 0;
                }
            }
            if self.tbl_rsp_valid.val() {
                self.to_receive.d.next = self.to_receive.q.val() & !self.receive_onehot.val();
                self.rebuilt.d.next = self.rebuilt.q.val() | self.rsp_bits.val();
                self.read_sig.d.next = self.rsp_sig.val();
                if (self.rsp_sig.val() == self.key_sig.val()) | (self.op.q.val() == 3) {
                    self.candidates.d.next = self.candidates.q.val() | self.receive_onehot.val();
                }
                for w in 0..8 {
                    if self.receive_onehot.val().get_bit(w) {
                        self.refcounts[w].d.next = self.tbl_rsp_rdata.val().get_bits::<REFCOUNT_BITS>(12);
                    }
                }
            }
            if !self.issue_more.q.val() & (self.to_receive.q.val() == 0) {
                if self.candidates.q.val() == 0 {
                    self.state.d.next = State::Miss;
                } else if self.op.q.val() == 3 {
                    self.state.d.next = State::Hit;
                } else {
                    self.state.d.next = State::VerifyReq;
                }
            }
        }
        if self.state.q.val() == State::VerifyReq {
            self.fp_req_valid.next = true;
            self.fp_req_entry.next = self.entry_bucket.val() | bit_cast::<ENTRY_BITS, 3>(self.candidate_way.val());
            if self.fp_grant.val() {
                self.state.d.next = State::VerifyWait;
            }
        }
        if self.state.q.val() == State::VerifyWait {
            if self.fp_seen.q.val() {
                if self.fp_equal.q.val() {
                    self.state.d.next = State::Hit;
                } else {
                    self.flags.d.next = self.flags.q.val() | 8;
                    self.candidates.d.next = self.candidates.q.val() & !self.candidate_onehot.val();
                    if !self.more_candidates.q.val() {
                        self.state.d.next = State::Miss;
                    } else {
                        self.state.d.next = State::VerifyReq;
                    }
                }
            }
        }
        if self.state.q.val() == State::Hit {
            // The way is the lowest remaining candidate; registered here,
            // decided on the next clock (the one-hot and its refcount mux
            // would not fit one clock with the decision at 100 MHz).
            self.target_way.d.next = self.hit_onehot.q.val();
            self.hit_rc.d.next = self.hit_refcount.val();
            self.state.d.next = State::HitDecide;
        }
        if self.state.q.val() == State::HitDecide {
            self.way_word.d.next = (bit_cast::<20, REFCOUNT_BITS>(self.hit_rc.q.val() + 1) << 12)
                | bit_cast::<20, SIG_BITS>(self.write_sig.val());
            self.out_refcount.d.next = self.hit_rc.q.val();
            // The bucket's word without the way, written only when the last
            // reference goes (`write_meta`, clear since LOCK_SETTLE), but
            // built always: the decision below then only sets flags.
            self.meta_word.d.next = (bit_cast::<TABLE_DATA_BITS, 8>(self.occupied.q.val() & !self.target_way.q.val())
                << 32)
                | bit_cast::<TABLE_DATA_BITS, BLOOM_BITS>(self.bloom.q.val());
            self.state.d.next = State::WriteWay;
            if self.op.q.val() == 0 {
                if self.hit_rc.q.val() == self.refcount_max.val() {
                    self.status.d.next = 10.into();
                    self.state.d.next = State::Done;
                } else {
                    self.status.d.next = 1.into();
                    self.out_refcount.d.next = self.hit_rc.q.val() + 1;
                    self.write_way.d.next = true;
                }
            } else if (self.op.q.val() == 1) | (self.op.q.val() == 4) {
                self.status.d.next = 2.into();
                self.state.d.next = State::Done;
            } else if self.hit_rc.q.val() == 1 {
                self.status.d.next = 5.into();
                self.out_refcount.d.next = 0.into();
                self.write_meta.d.next = true;
            } else {
                self.status.d.next = 4.into();
                self.out_refcount.d.next = self.hit_rc.q.val() - 1;
                self.write_way.d.next = true;
                self.way_word.d.next = (bit_cast::<20, REFCOUNT_BITS>(self.hit_rc.q.val() - 1) << 12)
                    | bit_cast::<20, SIG_BITS>(self.write_sig.val());
            }
        }
        if self.state.q.val() == State::Miss {
            if self.walked.q.val() & self.bloom_enable.val() {
                // (The rebuilt filter is the walked bits, plus the key
                // when a way is allocated.)
                self.flags.d.next = self.flags.q.val() | 2;
                if self.allocates.val() & (self.occupied.q.val() != 0xff) {
                    if self.stale_with_key.q.val() {
                        self.flags.d.next = self.flags.q.val() | 6;
                    }
                } else if self.stale_without_key.q.val() {
                    self.flags.d.next = self.flags.q.val() | 6;
                }
                // The rebuilt filter is written back.
                self.write_meta.d.next = true;
            }
            self.meta_word.d.next = (bit_cast::<TABLE_DATA_BITS, 8>(self.occupied.q.val()) << 32)
                | bit_cast::<TABLE_DATA_BITS, BLOOM_BITS>(self.miss_bloom.val());
            self.state.d.next = State::WriteWay;
            if self.allocates.val() {
                if self.occupied.q.val() == 0xff {
                    self.status.d.next = 8.into();
                } else {
                    self.status.d.next = 0.into();
                    self.out_refcount.d.next = 1.into();
                    self.target_way.d.next = self.free_onehot.val();
                    self.way_word.d.next = (bits::<20>(1) << 12) | bit_cast::<20, SIG_BITS>(self.key_sig.val());
                    self.meta_word.d.next =
                        (bit_cast::<TABLE_DATA_BITS, 8>(self.occupied.q.val() | self.free_onehot.val()) << 32)
                            | bit_cast::<TABLE_DATA_BITS, BLOOM_BITS>(self.miss_bloom.val());
                    self.write_way.d.next = true;
                    self.write_fp.d.next = true;
                    self.write_meta.d.next = true;
                }
            } else if self.op.q.val() == 1 {
                self.status.d.next = 3.into();
            } else {
                self.status.d.next = 9.into();
            }
        }
        if self.state.q.val() == State::WriteWay {
            self.tbl_req_write.next = true;
            self.tbl_req_addr.next = bit_cast::<TABLE_ADDR_BITS, ENTRY_BITS>(self.target_entry.val());
            self.tbl_req_wdata.next = bit_cast::<TABLE_DATA_BITS, 20>(self.way_word.q.val());
            if self.write_way.q.val() {
                self.tbl_req_valid.next = true;
                if self.tbl_grant.val() {
                    self.state.d.next = State::WriteFp;
                }
            } else {
                self.state.d.next = State::WriteFp;
            }
        }
        if self.state.q.val() == State::WriteFp {
            self.fp_req_write.next = true;
            self.fp_req_entry.next = self.target_entry.val();
            if self.write_fp.q.val() {
                self.fp_req_valid.next = true;
                if self.fp_grant.val() {
                    self.state.d.next = State::WriteMeta;
                }
            } else {
                self.state.d.next = State::WriteMeta;
            }
        }
        if self.state.q.val() == State::WriteMeta {
            self.tbl_req_write.next = true;
            self.tbl_req_addr.next =
                self.meta_region.val() | bit_cast::<TABLE_ADDR_BITS, MAX_BUCKET_BITS>(self.bucket_r.q.val());
            self.tbl_req_wdata.next = self.meta_word.q.val();
            if self.write_meta.q.val() {
                self.tbl_req_valid.next = true;
                if self.tbl_grant.val() {
                    self.state.d.next = State::Done;
                }
            } else {
                self.state.d.next = State::Done;
            }
        }
        if self.state.q.val() == State::Done {
            // The response moves to the held slot as soon as the previous
            // one has been collected; the FSM is then free for the next
            // command while its response waits for its turn to leave.
            if !self.held_valid.q.val() | self.rsp_taken.val() {
                self.held_valid.d.next = true;
                self.held_tag.d.next = self.tag.q.val();
                self.held_seq_r.d.next = self.seq_r.q.val();
                self.held_status.d.next = self.status.q.val();
                self.held_entry.d.next = 0.into();
                if self.target_way.q.val() != 0 {
                    self.held_entry.d.next = self.target_entry.val();
                }
                self.held_refcount.d.next = self.out_refcount.q.val();
                self.held_flags.d.next = self.flags.q.val();
                self.state.d.next = State::Idle;
            }
        }
        if self.reset.val() {
            self.state.d.next = State::Idle;
            self.held_valid.d.next = false;
            self.issue_more.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn lookup_fsm_is_synthesizable() {
        let verilog = crate::verilog::top_verilog(super::LookupFsm::default());
        let stats = ditto_synth::check_synthesizable(&verilog, "top").unwrap_or_else(|e| panic!("{e}"));
        // The command's fingerprint alone is 160 flip-flops.
        assert!(stats.dffs > 400 && stats.luts > 300, "{stats:?}");
    }
}
