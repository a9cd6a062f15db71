//! `FpIndex<M>`: the fingerprint index, `M` lookup FSMs behind one command
//! port, with a lock table and the two memory ports (see the module docs of
//! [`crate::index`] for the table layout and the ports' ordering contract).
//!
//! Command port: `cmd` is taken when `cmd.valid & cmd.ready`. A command goes
//! to any idle FSM with a sequence number; responses (`rsp`) are collected by sequence
//! number, so **responses leave in command order**; each also carries its
//! command's tag.
//! `cmd.ready` is low during `reset` and while the table's metadata is being
//! cleared after it (one write per bucket).
//!
//! Lock table: each FSM publishes `{active, bucket, seq}`. An FSM may start on
//! its bucket only when no *older* active command (by sequence number, counted
//! from the oldest response not yet collected) holds or waits for the same
//! bucket, so
//! commands on one bucket run one at a time and in command order: two INSERTs
//! of one fingerprint in flight together make one entry, as in the model.
//!
//! Memory ports: `tbl` and `fp` requests are tagged with the FSM number;
//! the FSM with the highest number wins when several ask in one cycle.
//! Responses are routed back by tag and always accepted.
//!
//! `fsm_limit_log2` (change it only during reset) puts only the first
//! `2^fsm_limit_log2` FSMs to work (capped at `M`): one build measures 1, 2,
//! 4, ... FSMs. `bloom_enable` low makes every lookup walk its
//! bucket (to measure what the filters buy); change it only during reset.
//!
//! `stats` count the responses that have left: commands, Bloom negatives,
//! false positives, rebuilds that cleared stale bits, signature misses, and
//! entries in use (one clock after a response leaves, they count it).
use super::fsm::LookupFsm;
use super::{MAX_BUCKET_BITS, MEM_TAG_BITS, STAT_BITS, TABLE_ADDR_BITS};
use crate::ports::{FpStoreController, IndexCommandSink, IndexCounters, IndexResponseSource, TableController};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct FpIndex<const M: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub bloom_enable: Signal<In, Bit>,
    pub fsm_limit_log2: Signal<In, Bits<3>>,

    pub cmd: IndexCommandSink,
    pub rsp: IndexResponseSource,
    pub tbl: TableController,
    pub fp: FpStoreController,
    pub stats: IndexCounters,

    fsms: [LookupFsm; M],
    dispatch_seq: DFF<Bits<6>>,
    collect_seq: DFF<Bits<6>>,
    clearing: DFF<Bit>,
    clear_bucket: DFF<Bits<MAX_BUCKET_BITS>>,
    commands: DFF<Bits<STAT_BITS>>,
    bloom_negatives: DFF<Bits<STAT_BITS>>,
    false_positives: DFF<Bits<STAT_BITS>>,
    rebuilds: DFF<Bits<STAT_BITS>>,
    signature_misses: DFF<Bits<STAT_BITS>>,
    entries_used: DFF<Bits<STAT_BITS>>,
    /// A response was taken on the last clock, and what it counts in the
    /// statistics (its flags; new entry; freed entry): the counters follow a
    /// clock after the handshake, off its path.
    stat_taken: DFF<Bit>,
    stat_flags: DFF<Bits<4>>,
    stat_new: DFF<Bit>,
    stat_freed: DFF<Bit>,

    fsm_mask: Signal<Local, Bits<4>>,
    positions: [Signal<Local, Bits<6>>; M],
    free_any: Signal<Local, Bit>,
    /// What `entries_used` counts by: +1 for a new entry, -1 (all ones) for
    /// a freed one.
    entries_step: Signal<Local, Bits<STAT_BITS>>,
    free_sel: Signal<Local, Bits<MEM_TAG_BITS>>,
    tbl_any: Signal<Local, Bit>,
    tbl_sel: Signal<Local, Bits<MEM_TAG_BITS>>,
    fp_any: Signal<Local, Bit>,
    fp_sel: Signal<Local, Bits<MEM_TAG_BITS>>,
    taken: Signal<Local, Bit>,

    ids: [Constant<Bits<MEM_TAG_BITS>>; M],
    one4: Constant<Bits<4>>,
    max_mask: Constant<Bits<4>>,
    bucket_mask: Constant<Bits<MAX_BUCKET_BITS>>,
    meta_region: Constant<Bits<TABLE_ADDR_BITS>>,
}

impl<const M: usize> FpIndex<M> {
    /// An index of `M` FSMs over `2^bucket_bits` buckets of eight ways.
    pub fn new(bucket_bits: usize) -> Self {
        assert!(M.is_power_of_two() && M <= 16, "FSMs: a power of two up to 16, got {M}");
        assert!((1..=MAX_BUCKET_BITS).contains(&bucket_bits), "bucket bits: 1..={MAX_BUCKET_BITS}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            bloom_enable: Default::default(),
            fsm_limit_log2: Default::default(),
            cmd: Default::default(),
            rsp: Default::default(),
            tbl: Default::default(),
            fp: Default::default(),
            stats: Default::default(),
            fsms: core::array::from_fn(|_| LookupFsm::default()),
            dispatch_seq: Default::default(),
            collect_seq: Default::default(),
            clearing: Default::default(),
            clear_bucket: Default::default(),
            commands: Default::default(),
            bloom_negatives: Default::default(),
            false_positives: Default::default(),
            rebuilds: Default::default(),
            signature_misses: Default::default(),
            entries_used: Default::default(),
            stat_taken: Default::default(),
            stat_flags: Default::default(),
            stat_new: Default::default(),
            stat_freed: Default::default(),
            fsm_mask: Default::default(),
            positions: core::array::from_fn(|_| Default::default()),
            free_any: Default::default(),
            entries_step: Default::default(),
            free_sel: Default::default(),
            tbl_any: Default::default(),
            tbl_sel: Default::default(),
            fp_any: Default::default(),
            fp_sel: Default::default(),
            taken: Default::default(),
            ids: core::array::from_fn(|i| Constant::new(bits(i as u64))),
            one4: Constant::new(bits(1)),
            max_mask: Constant::new(bits(M as u64 - 1)),
            bucket_mask: Constant::new(bits((1u64 << bucket_bits) - 1)),
            meta_region: Constant::new(bits(super::META_REGION as u64)),
        }
    }
}

impl<const M: usize> Logic for FpIndex<M> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            dispatch_seq,
            collect_seq,
            clearing,
            clear_bucket,
            commands,
            bloom_negatives,
            false_positives,
            rebuilds,
            signature_misses,
            entries_used,
            stat_taken,
            stat_flags,
            stat_new,
            stat_freed
        );
        self.fsm_mask.next = ((self.one4.val() << self.fsm_limit_log2.val()) - 1) & self.max_mask.val();
        self.stats.commands.next = self.commands.q.val();
        self.stats.bloom_negatives.next = self.bloom_negatives.q.val();
        self.stats.false_positives.next = self.false_positives.q.val();
        self.stats.rebuilds.next = self.rebuilds.q.val();
        self.stats.signature_misses.next = self.signature_misses.q.val();
        self.stats.entries_used.next = self.entries_used.q.val();

        // --- Dispatch, collection and the FSMs' common inputs ----------------
        self.rsp.valid.next = false;
        self.rsp.tag.next = 0.into();
        self.rsp.status.next = 0.into();
        self.rsp.entry.next = 0.into();
        self.rsp.refcount.next = 0.into();
        self.rsp.flags.next = 0.into();
        self.free_any.next = false;
        self.free_sel.next = 0.into();
        for i in 0..M {
            self.fsms[i].clock.next = self.clock.val();
            self.fsms[i].reset.next = self.reset.val();
            self.fsms[i].bloom_enable.next = self.bloom_enable.val();
            self.fsms[i].bucket_mask.next = self.bucket_mask.val();
            self.fsms[i].cmd_op.next = self.cmd.op.val();
            self.fsms[i].cmd_fp.next = self.cmd.fp.val();
            self.fsms[i].cmd_entry.next = self.cmd.entry.val();
            self.fsms[i].cmd_tag.next = self.cmd.tag.val();
            self.fsms[i].cmd_seq.next = self.dispatch_seq.q.val();
            self.fsms[i].tbl_rsp_rdata.next = self.tbl.rsp_rdata.val();
            self.fsms[i].fp_rsp_rdata.next = self.fp.rsp_rdata.val();
            self.fsms[i].tbl_rsp_valid.next = self.tbl.rsp_valid.val() & (self.tbl.rsp_tag.val() == self.ids[i].val());
            self.fsms[i].fp_rsp_valid.next = self.fp.rsp_valid.val() & (self.fp.rsp_tag.val() == self.ids[i].val());
            // Dispatch to an idle FSM among those at work (the highest numbered).
            if self.fsms[i].idle.val() & ((self.ids[i].val() & !self.fsm_mask.val()) == 0) {
                self.free_any.next = true;
                self.free_sel.next = self.ids[i].val();
            }
            // Collection: the held response with the oldest sequence number.
            if self.fsms[i].rsp_valid.val() & (self.fsms[i].held_seq.val() == self.collect_seq.q.val()) {
                self.rsp.valid.next = true;
                self.rsp.tag.next = self.fsms[i].rsp_tag.val();
                self.rsp.status.next = self.fsms[i].rsp_status.val();
                self.rsp.entry.next = self.fsms[i].rsp_entry.val();
                self.rsp.refcount.next = self.fsms[i].rsp_refcount.val();
                self.rsp.flags.next = self.fsms[i].rsp_flags.val();
            }
            // Age order: sequence number counted from the oldest not collected.
            self.positions[i].next = self.fsms[i].seq.val() - self.collect_seq.q.val();
        }
        self.cmd.ready.next = self.free_any.val() & !self.clearing.q.val() & !self.reset.val();
        for i in 0..M {
            self.fsms[i].start.next =
                self.cmd.valid.val() & self.cmd.ready.val() & (self.free_sel.val() == self.ids[i].val());
            self.fsms[i].rsp_taken.next = self.rsp.valid.val()
                & self.rsp.ready.val()
                & self.fsms[i].rsp_valid.val()
                & (self.fsms[i].held_seq.val() == self.collect_seq.q.val());
            // The lock table.
            self.fsms[i].blocked.next = false;
            for j in 0..M {
                if self.fsms[j].active.val()
                    & (self.fsms[j].bucket.val() == self.fsms[i].bucket.val())
                    & (self.positions[j].val() < self.positions[i].val())
                {
                    self.fsms[i].blocked.next = true;
                }
            }
        }
        if self.cmd.valid.val() & self.cmd.ready.val() {
            self.dispatch_seq.d.next = self.dispatch_seq.q.val() + 1;
        }
        self.taken.next = self.rsp.valid.val() & self.rsp.ready.val();
        if self.taken.val() {
            self.collect_seq.d.next = self.collect_seq.q.val() + 1;
        }
        self.stat_taken.d.next = self.taken.val();
        self.stat_flags.d.next = self.rsp.flags.val();
        self.stat_new.d.next = self.rsp.status.val() == 0;
        self.stat_freed.d.next = self.rsp.status.val() == 5;
        self.entries_step.next = 1.into();
        if self.stat_freed.q.val() {
            self.entries_step.next = !bits::<STAT_BITS>(0);
        }
        if self.stat_taken.q.val() {
            self.commands.d.next = self.commands.q.val() + 1;
            if self.stat_flags.q.val().get_bit(0) {
                self.bloom_negatives.d.next = self.bloom_negatives.q.val() + 1;
            }
            if self.stat_flags.q.val().get_bit(1) {
                self.false_positives.d.next = self.false_positives.q.val() + 1;
            }
            if self.stat_flags.q.val().get_bit(2) {
                self.rebuilds.d.next = self.rebuilds.q.val() + 1;
            }
            if self.stat_flags.q.val().get_bit(3) {
                self.signature_misses.d.next = self.signature_misses.q.val() + 1;
            }
            // One adder for both directions: +1, or -1 (all ones).
            if self.stat_new.q.val() | self.stat_freed.q.val() {
                self.entries_used.d.next = self.entries_used.q.val() + self.entries_step.val();
            }
        }

        // --- Memory port arbitration (highest FSM number first) --------------
        // With no request the port carries FSM 0's address and data (they
        // mean nothing then): a single FSM's request reaches the memory
        // without a gate on its valid.
        self.tbl_any.next = false;
        self.tbl_sel.next = 0.into();
        self.tbl.req_write.next = self.fsms[0].tbl_req_write.val();
        self.tbl.req_addr.next = self.fsms[0].tbl_req_addr.val();
        self.tbl.req_wdata.next = self.fsms[0].tbl_req_wdata.val();
        self.fp_any.next = false;
        self.fp_sel.next = 0.into();
        self.fp.req_write.next = self.fsms[0].fp_req_write.val();
        self.fp.req_addr.next = self.fsms[0].fp_req_entry.val();
        self.fp.req_wdata.next = self.fsms[0].fp_req_wdata.val();
        for i in 0..M {
            if self.fsms[i].tbl_req_valid.val() {
                self.tbl_any.next = true;
                self.tbl_sel.next = self.ids[i].val();
                self.tbl.req_write.next = self.fsms[i].tbl_req_write.val();
                self.tbl.req_addr.next = self.fsms[i].tbl_req_addr.val();
                self.tbl.req_wdata.next = self.fsms[i].tbl_req_wdata.val();
            }
            if self.fsms[i].fp_req_valid.val() {
                self.fp_any.next = true;
                self.fp_sel.next = self.ids[i].val();
                self.fp.req_write.next = self.fsms[i].fp_req_write.val();
                self.fp.req_addr.next = self.fsms[i].fp_req_entry.val();
                self.fp.req_wdata.next = self.fsms[i].fp_req_wdata.val();
            }
        }
        self.tbl.req_valid.next = self.tbl_any.val();
        self.tbl.req_tag.next = self.tbl_sel.val();
        self.fp.req_valid.next = self.fp_any.val();
        self.fp.req_tag.next = self.fp_sel.val();
        for i in 0..M {
            // The selected FSM is granted when the port is ready. An FSM only
            // looks at its grant while it requests, and the selection is the
            // highest requesting FSM, so the grant needs no term of the
            // FSM's own request (which keeps the handshake off the critical
            // path). No FSM has a command while the metadata is being cleared.
            self.fsms[i].tbl_grant.next = self.tbl.req_ready.val() & (self.tbl_sel.val() == self.ids[i].val());
            self.fsms[i].fp_grant.next = self.fp.req_ready.val() & (self.fp_sel.val() == self.ids[i].val());
        }

        // --- Clearing the metadata after reset --------------------------------
        if self.clearing.q.val() {
            self.tbl.req_valid.next = true;
            self.tbl.req_write.next = true;
            self.tbl.req_addr.next =
                self.meta_region.val() | bit_cast::<TABLE_ADDR_BITS, MAX_BUCKET_BITS>(self.clear_bucket.q.val());
            self.tbl.req_wdata.next = 0.into();
            self.tbl.req_tag.next = 0.into();
            if self.tbl.req_ready.val() {
                self.clear_bucket.d.next = self.clear_bucket.q.val() + 1;
                if self.clear_bucket.q.val() == self.bucket_mask.val() {
                    self.clearing.d.next = false;
                }
            }
        }
        if self.reset.val() {
            self.clearing.d.next = true;
            self.clear_bucket.d.next = 0.into();
            self.dispatch_seq.d.next = 0.into();
            self.collect_seq.d.next = 0.into();
            self.commands.d.next = 0.into();
            self.bloom_negatives.d.next = 0.into();
            self.false_positives.d.next = 0.into();
            self.rebuilds.d.next = 0.into();
            self.signature_misses.d.next = 0.into();
            self.entries_used.d.next = 0.into();
            self.stat_taken.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{index_verilog, CU, LARGE};

    #[test]
    fn cu_index_is_synthesizable_with_its_table_in_block_ram() {
        let stats = ditto_synth::check_synthesizable(&index_verilog(&CU), "top").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.ebrs, 25, "{stats:?}");
    }

    #[test]
    fn large_index_is_synthesizable() {
        let stats = ditto_synth::check_synthesizable(&index_verilog(&LARGE), "top").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.ebrs, 0, "the table is behind the memory port: {stats:?}");
        assert!(stats.dffs > 8 * 400, "eight FSMs survive synthesis: {stats:?}");
    }
}
