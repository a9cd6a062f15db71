//! `IndexOnChip<M, WAB, MAB>`: an [`FpIndex`] with its table in block RAM
//! ([`BlockRamTable`]); the full-fingerprint port stays outside, as ChunkStash
//! keeps its full entries off the fast memory. This is the `cu` index.
//!
//! Ports: those of [`FpIndex`] without `tbl_*` (same contracts).
use super::fp_index::FpIndex;
use super::table::BlockRamTable;
use super::{CMD_TAG_BITS, ENTRY_BITS, MEM_TAG_BITS, REFCOUNT_BITS, STAT_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct IndexOnChip<const M: usize, const WAB: usize, const MAB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub bloom_enable: Signal<In, Bit>,
    pub fsm_limit_log2: Signal<In, Bits<3>>,
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_ready: Signal<Out, Bit>,
    pub cmd_op: Signal<In, Bits<3>>,
    pub cmd_fp: Signal<In, Bits<160>>,
    pub cmd_entry: Signal<In, Bits<ENTRY_BITS>>,
    pub cmd_tag: Signal<In, Bits<CMD_TAG_BITS>>,
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_ready: Signal<In, Bit>,
    pub rsp_tag: Signal<Out, Bits<CMD_TAG_BITS>>,
    pub rsp_status: Signal<Out, Bits<4>>,
    pub rsp_entry: Signal<Out, Bits<ENTRY_BITS>>,
    pub rsp_refcount: Signal<Out, Bits<REFCOUNT_BITS>>,
    pub rsp_flags: Signal<Out, Bits<4>>,
    pub fp_req_valid: Signal<Out, Bit>,
    pub fp_req_ready: Signal<In, Bit>,
    pub fp_req_write: Signal<Out, Bit>,
    pub fp_req_entry: Signal<Out, Bits<ENTRY_BITS>>,
    pub fp_req_wdata: Signal<Out, Bits<160>>,
    pub fp_req_tag: Signal<Out, Bits<MEM_TAG_BITS>>,
    pub fp_rsp_valid: Signal<In, Bit>,
    pub fp_rsp_tag: Signal<In, Bits<MEM_TAG_BITS>>,
    pub fp_rsp_rdata: Signal<In, Bits<160>>,
    pub stat_commands: Signal<Out, Bits<STAT_BITS>>,
    pub stat_bloom_negatives: Signal<Out, Bits<STAT_BITS>>,
    pub stat_false_positives: Signal<Out, Bits<STAT_BITS>>,
    pub stat_rebuilds: Signal<Out, Bits<STAT_BITS>>,
    pub stat_signature_misses: Signal<Out, Bits<STAT_BITS>>,
    pub stat_entries_used: Signal<Out, Bits<STAT_BITS>>,

    index: FpIndex<M>,
    block_ram: BlockRamTable<WAB, MAB>,
}

impl<const M: usize, const WAB: usize, const MAB: usize> IndexOnChip<M, WAB, MAB> {
    /// The index over `2^MAB` buckets (`WAB` must be `MAB + 3`).
    pub fn new() -> Self {
        assert_eq!(WAB, MAB + 3, "eight ways per bucket");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            bloom_enable: Default::default(),
            fsm_limit_log2: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            cmd_op: Default::default(),
            cmd_fp: Default::default(),
            cmd_entry: Default::default(),
            cmd_tag: Default::default(),
            rsp_valid: Default::default(),
            rsp_ready: Default::default(),
            rsp_tag: Default::default(),
            rsp_status: Default::default(),
            rsp_entry: Default::default(),
            rsp_refcount: Default::default(),
            rsp_flags: Default::default(),
            fp_req_valid: Default::default(),
            fp_req_ready: Default::default(),
            fp_req_write: Default::default(),
            fp_req_entry: Default::default(),
            fp_req_wdata: Default::default(),
            fp_req_tag: Default::default(),
            fp_rsp_valid: Default::default(),
            fp_rsp_tag: Default::default(),
            fp_rsp_rdata: Default::default(),
            stat_commands: Default::default(),
            stat_bloom_negatives: Default::default(),
            stat_false_positives: Default::default(),
            stat_rebuilds: Default::default(),
            stat_signature_misses: Default::default(),
            stat_entries_used: Default::default(),
            index: FpIndex::new(MAB),
            block_ram: Default::default(),
        }
    }
}

impl<const M: usize, const WAB: usize, const MAB: usize> Default for IndexOnChip<M, WAB, MAB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const M: usize, const WAB: usize, const MAB: usize> Logic for IndexOnChip<M, WAB, MAB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.index.clock.next = self.clock.val();
        self.index.reset.next = self.reset.val();
        self.index.bloom_enable.next = self.bloom_enable.val();
        self.index.fsm_limit_log2.next = self.fsm_limit_log2.val();
        self.index.cmd_valid.next = self.cmd_valid.val();
        self.cmd_ready.next = self.index.cmd_ready.val();
        self.index.cmd_op.next = self.cmd_op.val();
        self.index.cmd_fp.next = self.cmd_fp.val();
        self.index.cmd_entry.next = self.cmd_entry.val();
        self.index.cmd_tag.next = self.cmd_tag.val();
        self.rsp_valid.next = self.index.rsp_valid.val();
        self.index.rsp_ready.next = self.rsp_ready.val();
        self.rsp_tag.next = self.index.rsp_tag.val();
        self.rsp_status.next = self.index.rsp_status.val();
        self.rsp_entry.next = self.index.rsp_entry.val();
        self.rsp_refcount.next = self.index.rsp_refcount.val();
        self.rsp_flags.next = self.index.rsp_flags.val();
        self.fp_req_valid.next = self.index.fp_req_valid.val();
        self.index.fp_req_ready.next = self.fp_req_ready.val();
        self.fp_req_write.next = self.index.fp_req_write.val();
        self.fp_req_entry.next = self.index.fp_req_entry.val();
        self.fp_req_wdata.next = self.index.fp_req_wdata.val();
        self.fp_req_tag.next = self.index.fp_req_tag.val();
        self.index.fp_rsp_valid.next = self.fp_rsp_valid.val();
        self.index.fp_rsp_tag.next = self.fp_rsp_tag.val();
        self.index.fp_rsp_rdata.next = self.fp_rsp_rdata.val();
        self.stat_commands.next = self.index.stat_commands.val();
        self.stat_bloom_negatives.next = self.index.stat_bloom_negatives.val();
        self.stat_false_positives.next = self.index.stat_false_positives.val();
        self.stat_rebuilds.next = self.index.stat_rebuilds.val();
        self.stat_signature_misses.next = self.index.stat_signature_misses.val();
        self.stat_entries_used.next = self.index.stat_entries_used.val();

        self.block_ram.clock.next = self.clock.val();
        self.block_ram.req_valid.next = self.index.tbl_req_valid.val();
        self.index.tbl_req_ready.next = self.block_ram.req_ready.val();
        self.block_ram.req_write.next = self.index.tbl_req_write.val();
        self.block_ram.req_addr.next = self.index.tbl_req_addr.val();
        self.block_ram.req_wdata.next = self.index.tbl_req_wdata.val();
        self.block_ram.req_tag.next = self.index.tbl_req_tag.val();
        self.index.tbl_rsp_valid.next = self.block_ram.rsp_valid.val();
        self.index.tbl_rsp_tag.next = self.block_ram.rsp_tag.val();
        self.index.tbl_rsp_rdata.next = self.block_ram.rsp_rdata.val();
    }
}
