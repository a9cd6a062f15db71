//! `DittoCore<L, NB, FB, FBP1, M>`: the whole core. SHA-1 lanes, the
//! fingerprint index (`M` lookup FSMs) and the FTL remap controller
//! ([`FtlController`]), behind one command port and one page stream.
//!
//! Ports:
//! - `cmd_*`: a command (op, tag, lpa, fp; see [`super::Op`]). It waits in a
//!   one-command slot; `cmd_ready` is high when the slot is empty. A `WRITE`
//!   leaves the slot for the controller (as a `WRITE_FP`) once the digest of
//!   its page is out of the hasher; other commands leave it at once.
//! - `page_*`: the pages of the `WRITE`s, in command order, 1,024 big-endian
//!   32-bit words each. Pages stream into the SHA-1 lanes independently of
//!   the command slot, so later pages are hashed while earlier ones are being
//!   decided: the lanes' FIFOs are the page buffer.
//! - `rsp_*`, `mv_*`, `cleaned`, `idle` (and no command held), `cfg_*`: as
//!   in [`FtlController`]; its counters are read with `STATS`.
//!   `idx_stat_*`: the index's counters.
//! - `tbl_*`, `fp_*`: the index's table and fingerprint memory ports; `mem_*`:
//!   the FTL memory port (contracts in [`crate::index`] and the controller).
//! - `cleaner_hold`: as the controller's (the cleaner takes no new step).
//! - `page_drop`: a one-clock pulse after the last word of a page that no
//!   `WRITE` will claim (a board link's page whose frame failed its check):
//!   its digest is discarded when it comes out of the lanes, and a `WRITE`
//!   in the slot waits until it has been.
//!
//! `RESET` resets the index and the controller's tables, not the hasher:
//! pages already streamed stay paired with the `WRITE`s that follow.
use super::controller::FtlController;
use super::{ADDR_BITS, MEM_ADDR_BITS, MEM_DATA_BITS, REFCOUNT_BITS};
use crate::index::fp_index::FpIndex;
use crate::index::ENTRY_BITS;
use crate::index::{CMD_TAG_BITS, MEM_TAG_BITS, STAT_BITS, TABLE_ADDR_BITS, TABLE_DATA_BITS};
use crate::sha1::Sha1Hasher;
use rust_hdl::prelude::*;

/// The whole core with the FTL controller ([`FtlController`]).
#[derive(LogicBlock)]
pub struct DittoCore<const L: usize, const NB: usize, const FB: usize, const FBP1: usize, const M: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub bloom_enable: Signal<In, Bit>,
    pub fsm_limit_log2: Signal<In, Bits<3>>,
    pub cfg_dev_bits: Signal<In, Bits<2>>,
    pub cfg_block_bits: Signal<In, Bits<4>>,
    pub cfg_page_bits: Signal<In, Bits<4>>,
    pub cfg_reserve: Signal<In, Bits<16>>,
    pub cfg_lpas: Signal<In, Bits<ADDR_BITS>>,
    pub cfg_array_wide: Signal<In, Bit>,
    pub cfg_refcount_max: Signal<In, Bits<REFCOUNT_BITS>>,

    pub cmd_valid: Signal<In, Bit>,
    pub cmd_ready: Signal<Out, Bit>,
    pub cmd_op: Signal<In, Bits<3>>,
    pub cmd_tag: Signal<In, Bits<CMD_TAG_BITS>>,
    pub cmd_lpa: Signal<In, Bits<ADDR_BITS>>,
    pub cmd_fp: Signal<In, Bits<160>>,
    pub page_word: Signal<In, Bits<32>>,
    pub page_valid: Signal<In, Bit>,
    pub page_ready: Signal<Out, Bit>,
    pub page_drop: Signal<In, Bit>,
    pub cleaner_hold: Signal<In, Bit>,

    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_ready: Signal<In, Bit>,
    pub rsp_tag: Signal<Out, Bits<CMD_TAG_BITS>>,
    pub rsp_status: Signal<Out, Bits<4>>,
    pub rsp_value: Signal<Out, Bits<32>>,
    pub rsp_flags: Signal<Out, Bits<3>>,
    pub mv_valid: Signal<Out, Bit>,
    pub mv_ready: Signal<In, Bit>,
    pub mv_from: Signal<Out, Bits<ADDR_BITS>>,
    pub mv_to: Signal<Out, Bits<ADDR_BITS>>,
    pub cleaned: Signal<Out, Bit>,
    pub idle: Signal<Out, Bit>,
    pub idx_stat_commands: Signal<Out, Bits<STAT_BITS>>,
    pub idx_stat_bloom_negatives: Signal<Out, Bits<STAT_BITS>>,
    pub idx_stat_false_positives: Signal<Out, Bits<STAT_BITS>>,
    pub idx_stat_rebuilds: Signal<Out, Bits<STAT_BITS>>,
    pub idx_stat_signature_misses: Signal<Out, Bits<STAT_BITS>>,
    pub idx_stat_entries_used: Signal<Out, Bits<STAT_BITS>>,

    pub tbl_req_valid: Signal<Out, Bit>,
    pub tbl_req_ready: Signal<In, Bit>,
    pub tbl_req_write: Signal<Out, Bit>,
    pub tbl_req_addr: Signal<Out, Bits<TABLE_ADDR_BITS>>,
    pub tbl_req_wdata: Signal<Out, Bits<TABLE_DATA_BITS>>,
    pub tbl_req_tag: Signal<Out, Bits<MEM_TAG_BITS>>,
    pub tbl_rsp_valid: Signal<In, Bit>,
    pub tbl_rsp_tag: Signal<In, Bits<MEM_TAG_BITS>>,
    pub tbl_rsp_rdata: Signal<In, Bits<TABLE_DATA_BITS>>,
    pub fp_req_valid: Signal<Out, Bit>,
    pub fp_req_ready: Signal<In, Bit>,
    pub fp_req_write: Signal<Out, Bit>,
    pub fp_req_entry: Signal<Out, Bits<ENTRY_BITS>>,
    pub fp_req_wdata: Signal<Out, Bits<160>>,
    pub fp_req_tag: Signal<Out, Bits<MEM_TAG_BITS>>,
    pub fp_rsp_valid: Signal<In, Bit>,
    pub fp_rsp_tag: Signal<In, Bits<MEM_TAG_BITS>>,
    pub fp_rsp_rdata: Signal<In, Bits<160>>,
    pub mem_req_valid: Signal<Out, Bit>,
    pub mem_req_ready: Signal<In, Bit>,
    pub mem_req_write: Signal<Out, Bit>,
    pub mem_req_addr: Signal<Out, Bits<MEM_ADDR_BITS>>,
    pub mem_req_wdata: Signal<Out, Bits<MEM_DATA_BITS>>,
    pub mem_rsp_valid: Signal<In, Bit>,
    pub mem_rsp_rdata: Signal<In, Bits<MEM_DATA_BITS>>,

    hasher: Sha1Hasher<L, NB, FB, FBP1>,
    index: FpIndex<M>,
    ftl: FtlController,
    held: DFF<Bit>,
    held_op: DFF<Bits<3>>,
    held_tag: DFF<Bits<CMD_TAG_BITS>>,
    held_lpa: DFF<Bits<ADDR_BITS>>,
    /// The command's fingerprint; a WRITE's is its page's digest, copied
    /// while the command waits for it.
    held_fp: DFF<Bits<160>>,
    drops: DFF<Bits<2>>,
    /// The slot's command is offered to the controller: registered, so the
    /// hasher's digest handshake is not on the controller's enables. It
    /// rises a clock after the command can leave, and falls as it leaves.
    offer: DFF<Bit>,
    /// The hasher's digest is consumed (taken by the controller with its
    /// `WRITE`, or dropped): registered, so the hasher's handshake does not
    /// loop through this slot in one clock. No decision is made on the
    /// digest while its consumption is under way.
    consume: DFF<Bit>,
    is_write: Signal<Local, Bit>,
    dropping: Signal<Local, Bit>,
}

impl<const L: usize, const NB: usize, const FB: usize, const FBP1: usize, const M: usize>
    DittoCore<L, NB, FB, FBP1, M>
{
    /// The core with an index of `2^bucket_bits` buckets.
    pub fn new(bucket_bits: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            bloom_enable: Default::default(),
            fsm_limit_log2: Default::default(),
            cfg_dev_bits: Default::default(),
            cfg_block_bits: Default::default(),
            cfg_page_bits: Default::default(),
            cfg_reserve: Default::default(),
            cfg_lpas: Default::default(),
            cfg_array_wide: Default::default(),
            cfg_refcount_max: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            cmd_op: Default::default(),
            cmd_tag: Default::default(),
            cmd_lpa: Default::default(),
            cmd_fp: Default::default(),
            page_word: Default::default(),
            page_valid: Default::default(),
            page_ready: Default::default(),
            page_drop: Default::default(),
            cleaner_hold: Default::default(),
            rsp_valid: Default::default(),
            rsp_ready: Default::default(),
            rsp_tag: Default::default(),
            rsp_status: Default::default(),
            rsp_value: Default::default(),
            rsp_flags: Default::default(),
            mv_valid: Default::default(),
            mv_ready: Default::default(),
            mv_from: Default::default(),
            mv_to: Default::default(),
            cleaned: Default::default(),
            idle: Default::default(),
            idx_stat_commands: Default::default(),
            idx_stat_bloom_negatives: Default::default(),
            idx_stat_false_positives: Default::default(),
            idx_stat_rebuilds: Default::default(),
            idx_stat_signature_misses: Default::default(),
            idx_stat_entries_used: Default::default(),
            tbl_req_valid: Default::default(),
            tbl_req_ready: Default::default(),
            tbl_req_write: Default::default(),
            tbl_req_addr: Default::default(),
            tbl_req_wdata: Default::default(),
            tbl_req_tag: Default::default(),
            tbl_rsp_valid: Default::default(),
            tbl_rsp_tag: Default::default(),
            tbl_rsp_rdata: Default::default(),
            fp_req_valid: Default::default(),
            fp_req_ready: Default::default(),
            fp_req_write: Default::default(),
            fp_req_entry: Default::default(),
            fp_req_wdata: Default::default(),
            fp_req_tag: Default::default(),
            fp_rsp_valid: Default::default(),
            fp_rsp_tag: Default::default(),
            fp_rsp_rdata: Default::default(),
            mem_req_valid: Default::default(),
            mem_req_ready: Default::default(),
            mem_req_write: Default::default(),
            mem_req_addr: Default::default(),
            mem_req_wdata: Default::default(),
            mem_rsp_valid: Default::default(),
            mem_rsp_rdata: Default::default(),
            hasher: Default::default(),
            index: FpIndex::new(bucket_bits),
            ftl: FtlController::new(bucket_bits + 3),
            held: Default::default(),
            held_op: Default::default(),
            held_tag: Default::default(),
            held_lpa: Default::default(),
            held_fp: Default::default(),
            drops: Default::default(),
            offer: Default::default(),
            consume: Default::default(),
            is_write: Default::default(),
            dropping: Default::default(),
        }
    }
}

impl<const L: usize, const NB: usize, const FB: usize, const FBP1: usize, const M: usize> Logic
    for DittoCore<L, NB, FB, FBP1, M>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, held_op, held_tag, held_lpa, held_fp, drops, offer, consume);
        self.hasher.clock.next = self.clock.val();
        self.hasher.reset.next = self.reset.val();
        self.index.clock.next = self.clock.val();
        self.index.reset.next = self.reset.val() | self.ftl.idx_reset.val();
        self.ftl.clock.next = self.clock.val();
        self.ftl.reset.next = self.reset.val();

        // Pages into the lanes.
        self.hasher.word_in.next = self.page_word.val();
        self.hasher.word_valid.next = self.page_valid.val();
        self.page_ready.next = self.hasher.word_ready.val();

        // The command slot; a WRITE leaves it with its page's digest.
        self.cmd_ready.next = !self.held.q.val();
        if !self.held.q.val() & self.cmd_valid.val() {
            self.held.d.next = true;
            self.held_op.d.next = self.cmd_op.val();
            self.held_tag.d.next = self.cmd_tag.val();
            self.held_lpa.d.next = self.cmd_lpa.val();
            self.held_fp.d.next = self.cmd_fp.val();
        }
        self.is_write.next = self.held_op.q.val() == 0;
        // A WRITE's fingerprint is its page's digest, followed until the
        // command is offered: the digest then stays put until consumed, and
        // the controller reads a register rather than the hasher's state.
        if self.held.q.val() & self.is_write.val() & !self.offer.q.val() {
            self.held_fp.d.next = self.hasher.digest.val();
        }
        // Abandoned pages' digests are discarded, in page order, before any
        // WRITE takes one.
        self.dropping.next = (self.drops.q.val() != 0) & self.hasher.digest_valid.val() & !self.consume.q.val();
        if self.page_drop.val() & !self.dropping.val() {
            self.drops.d.next = self.drops.q.val() + 1;
        } else if !self.page_drop.val() & self.dropping.val() {
            self.drops.d.next = self.drops.q.val() - 1;
        }
        // Once offered, the command stays ready to leave (the digest waits in
        // the hasher until taken; a drop is for a page streamed earlier).
        self.offer.d.next = self.held.q.val()
            & (!self.is_write.val()
                | (self.hasher.digest_valid.val() & (self.drops.q.val() == 0) & !self.consume.q.val()));
        self.ftl.cmd_valid.next = self.offer.q.val();
        self.ftl.cmd_tag.next = self.held_tag.q.val();
        self.ftl.cmd_lpa.next = self.held_lpa.q.val();
        self.ftl.cmd_fp.next = self.held_fp.q.val();
        self.ftl.cmd_op.next = self.held_op.q.val();
        if self.is_write.val() {
            self.ftl.cmd_op.next = 1.into();
        }
        self.consume.d.next =
            self.dropping.val() | (self.offer.q.val() & self.is_write.val() & self.ftl.cmd_ready.val());
        self.hasher.digest_ready.next = self.consume.q.val();
        if self.ftl.cmd_valid.val() & self.ftl.cmd_ready.val() {
            self.held.d.next = false;
            self.offer.d.next = false;
        }
        if self.reset.val() {
            self.held.d.next = false;
            self.offer.d.next = false;
            self.consume.d.next = false;
            self.drops.d.next = 0.into();
        }

        // The controller's configuration and ports.
        self.ftl.cleaner_hold.next = self.cleaner_hold.val();
        self.ftl.cfg_dev_bits.next = self.cfg_dev_bits.val();
        self.ftl.cfg_block_bits.next = self.cfg_block_bits.val();
        self.ftl.cfg_page_bits.next = self.cfg_page_bits.val();
        self.ftl.cfg_reserve.next = self.cfg_reserve.val();
        self.ftl.cfg_lpas.next = self.cfg_lpas.val();
        self.ftl.cfg_array_wide.next = self.cfg_array_wide.val();
        self.ftl.cfg_refcount_max.next = self.cfg_refcount_max.val();
        self.rsp_valid.next = self.ftl.rsp_valid.val();
        self.ftl.rsp_ready.next = self.rsp_ready.val();
        self.rsp_tag.next = self.ftl.rsp_tag.val();
        self.rsp_status.next = self.ftl.rsp_status.val();
        self.rsp_value.next = self.ftl.rsp_value.val();
        self.rsp_flags.next = self.ftl.rsp_flags.val();
        self.mv_valid.next = self.ftl.mv_valid.val();
        self.ftl.mv_ready.next = self.mv_ready.val();
        self.mv_from.next = self.ftl.mv_from.val();
        self.mv_to.next = self.ftl.mv_to.val();
        self.cleaned.next = self.ftl.cleaned.val();
        self.idle.next = self.ftl.idle.val() & !self.held.q.val();
        self.mem_req_valid.next = self.ftl.mem_req_valid.val();
        self.ftl.mem_req_ready.next = self.mem_req_ready.val();
        self.mem_req_write.next = self.ftl.mem_req_write.val();
        self.mem_req_addr.next = self.ftl.mem_req_addr.val();
        self.mem_req_wdata.next = self.ftl.mem_req_wdata.val();
        self.ftl.mem_rsp_valid.next = self.mem_rsp_valid.val();
        self.ftl.mem_rsp_rdata.next = self.mem_rsp_rdata.val();

        // The index, driven by the controller.
        self.index.bloom_enable.next = self.bloom_enable.val();
        self.index.fsm_limit_log2.next = self.fsm_limit_log2.val();
        self.index.cmd_valid.next = self.ftl.idx_cmd_valid.val();
        self.ftl.idx_cmd_ready.next = self.index.cmd_ready.val();
        self.index.cmd_op.next = self.ftl.idx_cmd_op.val();
        self.index.cmd_fp.next = self.ftl.idx_cmd_fp.val();
        self.index.cmd_entry.next = self.ftl.idx_cmd_entry.val();
        self.index.cmd_tag.next = 0.into();
        self.ftl.idx_rsp_valid.next = self.index.rsp_valid.val();
        self.index.rsp_ready.next = self.ftl.idx_rsp_ready.val();
        self.ftl.idx_rsp_status.next = self.index.rsp_status.val();
        self.ftl.idx_rsp_entry.next = self.index.rsp_entry.val();
        self.idx_stat_commands.next = self.index.stat_commands.val();
        self.idx_stat_bloom_negatives.next = self.index.stat_bloom_negatives.val();
        self.idx_stat_false_positives.next = self.index.stat_false_positives.val();
        self.idx_stat_rebuilds.next = self.index.stat_rebuilds.val();
        self.idx_stat_signature_misses.next = self.index.stat_signature_misses.val();
        self.idx_stat_entries_used.next = self.index.stat_entries_used.val();
        self.tbl_req_valid.next = self.index.tbl_req_valid.val();
        self.index.tbl_req_ready.next = self.tbl_req_ready.val();
        self.tbl_req_write.next = self.index.tbl_req_write.val();
        self.tbl_req_addr.next = self.index.tbl_req_addr.val();
        self.tbl_req_wdata.next = self.index.tbl_req_wdata.val();
        self.tbl_req_tag.next = self.index.tbl_req_tag.val();
        self.index.tbl_rsp_valid.next = self.tbl_rsp_valid.val();
        self.index.tbl_rsp_tag.next = self.tbl_rsp_tag.val();
        self.index.tbl_rsp_rdata.next = self.tbl_rsp_rdata.val();
        self.fp_req_valid.next = self.index.fp_req_valid.val();
        self.index.fp_req_ready.next = self.fp_req_ready.val();
        self.fp_req_write.next = self.index.fp_req_write.val();
        self.fp_req_entry.next = self.index.fp_req_entry.val();
        self.fp_req_wdata.next = self.index.fp_req_wdata.val();
        self.fp_req_tag.next = self.index.fp_req_tag.val();
        self.index.fp_rsp_valid.next = self.fp_rsp_valid.val();
        self.index.fp_rsp_tag.next = self.fp_rsp_tag.val();
        self.index.fp_rsp_rdata.next = self.fp_rsp_rdata.val();
    }
}

impl<const L: usize, const NB: usize, const FB: usize, const FBP1: usize, const M: usize>
    DittoCore<L, NB, FB, FBP1, M>
{
    /// The core as `config` builds it: its index's buckets, and the
    /// controller's memory requests staged ([`FtlController::staged`]) when
    /// `ftl_staged_requests` says so (a board whose FTL memory is at the
    /// end of a link).
    pub fn for_config(config: &crate::Config) -> Self {
        let core = Self::new(config.index_bucket_bits);
        if config.ftl_staged_requests {
            Self { ftl: FtlController::staged(config.index_bucket_bits + 3), ..core }
        } else {
            core
        }
    }
}
