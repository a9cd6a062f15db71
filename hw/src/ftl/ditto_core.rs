//! The whole core: SHA-1 lanes, the fingerprint index (`M` lookup FSMs)
//! and the FTL remap controller ([`FtlController`]), behind one command
//! port and one page stream. It comes in two flavours that differ only in
//! the page stream and the hasher behind it (one body serves both):
//! - `DittoCore<L, NB, FB, FBP1, M>`: a 32-bit stream into
//!   [`Sha1Hasher`] (`L` lanes with their FIFOs);
//! - `DittoWideCore<G, M>`: a 256-bit stream into
//!   [`Sha1WideHasher`] (`4 G` lanes around shared page buffers).
//!
//! Ports:
//! - `cmd`: a command (op, tag, lpa, fp; see [`super::Op`]). It waits in a
//!   one-command slot; `cmd.ready` is high when the slot is empty. A `WRITE`
//!   leaves the slot for the controller (as a `WRITE_FP`) once the digest of
//!   its page is out of the hasher; other commands leave it at once.
//! - `page`: the pages of the `WRITE`s, in command order: 1,024 big-endian
//!   32-bit words each, or 128 256-bit beats (the page's first byte in
//!   bits 255..248 of its first beat). Pages stream into the SHA-1 lanes
//!   independently of the command slot, so later pages are hashed while
//!   earlier ones are being decided: the lanes' FIFOs (or the wide
//!   hasher's page slots) are the page buffer.
//! - `rsp`, `mv`, `cleaned`, `idle` (and no command held), `cfg`: as
//!   in [`FtlController`]; its counters are read with `STATS`.
//!   `idx_stats`: the index's counters.
//! - `tbl`, `fp`: the index's table and fingerprint memory ports; `mem`:
//!   the FTL memory port (contracts in [`crate::index`] and the controller).
//! - `cleaner_hold`: as the controller's (the cleaner takes no new step).
//! - `page_drop`: a one-clock pulse after the last word of a page that no
//!   `WRITE` will claim (a board link's page whose frame failed its check):
//!   its digest is discarded when it comes out of the lanes, and a `WRITE`
//!   in the slot waits until it has been.
//!
//! `RESET` resets the index and the controller's tables, not the hasher:
//! pages already streamed stay paired with the `WRITE`s that follow.
//!
//! In `DittoWideCore` the index's reset (`reset`, or the controller's
//! `idx_reset` pulse) passes through a register first, so the index enters
//! and leaves reset a clock after the rest of the core. The reset reaches
//! every lookup FSM's dispatch logic, and from a register of its own the
//! placer can put beside the index rather than wherever the core's reset
//! comes from. Nothing is lost by the clock:
//! - after either reset the controller writes its tables (the L2P map,
//!   the block records, the free rings, the devices: several memory
//!   handshakes) before its `InitIndex` step, which waits for the index's
//!   `cmd.ready`; the index holds `cmd.ready` low while in reset and while
//!   it clears its buckets, so that wait covers the later clock;
//! - the index is idle when the controller decodes a `RESET` (the
//!   controller has one index command out at most, and has taken its
//!   answer), so in the clock before its reset it has no read and no
//!   answer in flight (its last writes may still wait in the request
//!   stages: see below);
//! - `bloom_enable` and `fsm_limit_log2` may change only during the
//!   index's reset: one changed in the core's first clock of reset reaches
//!   an index that is idle and a clock from its own reset, whose clearing
//!   then rewrites every bucket's metadata.
//!
//! The wide core also registers the index's responses on their way to the
//! controller ([`IndexResponseStage`]): the index's response collection
//! and the controller's enables sit at two ends of the die. The index
//! counts a response on the clock after the stage takes it, no later than
//! the controller takes it, so its counters are never behind what the
//! controller has seen. The stage shares the index's reset; it is empty at
//! a `RESET`, since the controller took the answer to its last command
//! before it decoded the `RESET`.
//!
//! Its index's two memory ports leave the core through request stages
//! ([`MemRequestStage`]): the index's arbitration, which drives a request's
//! tag and returns as the FSMs' grants, then ends in a register beside the
//! index rather than at the port. Those stages reset with the core only,
//! so requests they hold at an index `RESET` (writes only: an FSM makes
//! its writes before it answers) still go out, in order, before the
//! clearing writes that follow it. For the same reason the wide core's
//! `idle` says the controller and the index are done, not that the
//! index's last writes have reached a memory that stalls them.
//!
//! `DittoCore` (the Cu's) keeps the direct reset, response and memory
//! ports: its netlist stays as it is, placed at 90% of the HX8K's cells.
use super::controller::FtlController;
use super::ADDR_BITS;
use crate::index::fp_index::FpIndex;
use crate::index::index_response_stage::IndexResponseStage;
use crate::index::mem_request_stage::MemRequestStage;
use crate::index::CMD_TAG_BITS;
use crate::index::{ENTRY_BITS, TABLE_ADDR_BITS, TABLE_DATA_BITS};
use crate::ports::{
    FpStoreController, FtlCommandSink, FtlMemController, FtlResponseSource, FtlSettings, IndexCommandSource,
    IndexCounters, IndexResponseSource, MoveSource, PageBeatSink, PageWordSink, TableController,
};
use crate::sha1::wide::Sha1WideHasher;
use crate::sha1::Sha1Hasher;
use rust_hdl::prelude::*;

/// Declares one flavour of the core: its name and generics, its page
/// port and its hasher, and exactly one of `direct_index: index` (the
/// index's response and memory ports joined directly) or
/// `registered_index: ...` (the fields of the wide core's index reset
/// register and its three stages). The body is the same for every
/// flavour.
macro_rules! ditto_core {
    (
        $(#[$meta:meta])* $name:ident<$($g:ident),*>, page: $page:ident, hasher: $hasher:ty
        $(, direct_index: $direct_index:ident)?
        $(, registered_index: $index_reset:ident, $index_response:ident, $table_requests:ident, $fp_requests:ident)?
    ) => {
        $(#[$meta])*
        #[derive(LogicBlock)]
        pub struct $name<$(const $g: usize),*> {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, Bit>,
            pub bloom_enable: Signal<In, Bit>,
            pub fsm_limit_log2: Signal<In, Bits<3>>,
            pub cfg: FtlSettings,

            pub cmd: FtlCommandSink,
            pub page: $page,
            pub page_drop: Signal<In, Bit>,
            pub cleaner_hold: Signal<In, Bit>,

            pub rsp: FtlResponseSource,
            pub mv: MoveSource,
            pub cleaned: Signal<Out, Bit>,
            pub idle: Signal<Out, Bit>,
            pub idx_stats: IndexCounters,

            pub tbl: TableController,
            pub fp: FpStoreController,
            pub mem: FtlMemController,

            hasher: $hasher,
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
            $(
                /// The index's reset (the core's, or the controller's
                /// `idx_reset`), registered: see the module header.
                $index_reset: DFF<Bit>,
                /// The index's responses, registered on their way to the
                /// controller: see the module header.
                $index_response: IndexResponseStage,
                /// The index's memory requests, registered on their way
                /// out: see the module header.
                $table_requests: MemRequestStage<TABLE_ADDR_BITS, TABLE_DATA_BITS>,
                /// The same on the full-fingerprint port.
                $fp_requests: MemRequestStage<ENTRY_BITS, 160>,
            )?
            is_write: Signal<Local, Bit>,
            dropping: Signal<Local, Bit>,
        }

        impl<$(const $g: usize),*> $name<$($g),*> {
            /// The core with an index of `2^bucket_bits` buckets.
            pub fn new(bucket_bits: usize) -> Self {
                Self {
                    clock: Default::default(),
                    reset: Default::default(),
                    bloom_enable: Default::default(),
                    fsm_limit_log2: Default::default(),
                    cfg: Default::default(),
                    cmd: Default::default(),
                    page: Default::default(),
                    page_drop: Default::default(),
                    cleaner_hold: Default::default(),
                    rsp: Default::default(),
                    mv: Default::default(),
                    cleaned: Default::default(),
                    idle: Default::default(),
                    idx_stats: Default::default(),
                    tbl: Default::default(),
                    fp: Default::default(),
                    mem: Default::default(),
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
                    $(
                        $index_reset: Default::default(),
                        $index_response: Default::default(),
                        $table_requests: Default::default(),
                        $fp_requests: Default::default(),
                    )?
                    is_write: Default::default(),
                    dropping: Default::default(),
                }
            }
        }

        impl<$(const $g: usize),*> Logic for $name<$($g),*> {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, held, held_op, held_tag, held_lpa, held_fp, drops, offer, consume $(, $index_reset)?);
                self.hasher.clock.next = self.clock.val();
                self.hasher.reset.next = self.reset.val();
                self.index.clock.next = self.clock.val();
                self.index.reset.next = self.reset.val() | self.ftl.idx_reset.val();
                // The wide flavour's registered reset replaces the direct
                // one (the later assignment is the one that holds).
                $(
                    self.$index_reset.d.next = self.reset.val() | self.ftl.idx_reset.val();
                    self.index.reset.next = self.$index_reset.q.val();
                )?
                self.ftl.clock.next = self.clock.val();
                self.ftl.reset.next = self.reset.val();

                // Pages into the lanes.
                $page::link(&mut self.page, &mut self.hasher.page);

                // The command slot; a WRITE leaves it with its page's digest.
                self.cmd.ready.next = !self.held.q.val();
                if !self.held.q.val() & self.cmd.valid.val() {
                    self.held.d.next = true;
                    self.held_op.d.next = self.cmd.op.val();
                    self.held_tag.d.next = self.cmd.tag.val();
                    self.held_lpa.d.next = self.cmd.lpa.val();
                    self.held_fp.d.next = self.cmd.fp.val();
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
                self.ftl.cmd.valid.next = self.offer.q.val();
                self.ftl.cmd.tag.next = self.held_tag.q.val();
                self.ftl.cmd.lpa.next = self.held_lpa.q.val();
                self.ftl.cmd.fp.next = self.held_fp.q.val();
                self.ftl.cmd.op.next = self.held_op.q.val();
                if self.is_write.val() {
                    self.ftl.cmd.op.next = 1.into();
                }
                self.consume.d.next =
                    self.dropping.val() | (self.offer.q.val() & self.is_write.val() & self.ftl.cmd.ready.val());
                self.hasher.digest_ready.next = self.consume.q.val();
                if self.ftl.cmd.valid.val() & self.ftl.cmd.ready.val() {
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
                FtlSettings::link(&mut self.cfg, &mut self.ftl.cfg);
                FtlResponseSource::link(&mut self.rsp, &mut self.ftl.rsp);
                MoveSource::link(&mut self.mv, &mut self.ftl.mv);
                self.cleaned.next = self.ftl.cleaned.val();
                self.idle.next = self.ftl.idle.val() & !self.held.q.val();
                FtlMemController::link(&mut self.mem, &mut self.ftl.mem);

                // The index, driven by the controller.
                self.index.bloom_enable.next = self.bloom_enable.val();
                self.index.fsm_limit_log2.next = self.fsm_limit_log2.val();
                IndexCommandSource::join(&mut self.ftl.idx_cmd, &mut self.index.cmd);
                // The index's responses go to the controller, and its
                // memory requests to the core's ports, directly
                // (`direct_index`) or through register stages.
                $(IndexResponseSource::join(&mut self.$direct_index.rsp, &mut self.ftl.idx_rsp);)?
                $(
                    self.$index_response.clock.next = self.clock.val();
                    self.$index_response.reset.next = self.$index_reset.q.val();
                    IndexResponseSource::join(&mut self.index.rsp, &mut self.$index_response.from_index);
                    IndexResponseSource::join(&mut self.$index_response.to_controller, &mut self.ftl.idx_rsp);
                )?
                IndexCounters::link(&mut self.idx_stats, &mut self.index.stats);
                $(
                    TableController::link(&mut self.tbl, &mut self.$direct_index.tbl);
                    FpStoreController::link(&mut self.fp, &mut self.$direct_index.fp);
                )?
                $(
                    self.$table_requests.clock.next = self.clock.val();
                    self.$table_requests.reset.next = self.reset.val();
                    self.$fp_requests.clock.next = self.clock.val();
                    self.$fp_requests.reset.next = self.reset.val();
                    TableController::join(&mut self.index.tbl, &mut self.$table_requests.from_index);
                    TableController::link(&mut self.tbl, &mut self.$table_requests.to_memory);
                    FpStoreController::join(&mut self.index.fp, &mut self.$fp_requests.from_index);
                    FpStoreController::link(&mut self.fp, &mut self.$fp_requests.to_memory);
                )?
            }
        }

        impl<$(const $g: usize),*> $name<$($g),*> {
            /// The core as `config` builds it: its index's buckets, and the
            /// controller's memory requests staged ([`FtlController::staged`]) and
            /// its reads ahead ([`FtlController::reading_ahead`]) as
            /// `ftl_staged_requests` and `ftl_reads_ahead` say.
            pub fn for_config(config: &crate::Config) -> Self {
                let mut core = Self::new(config.index_bucket_bits);
                if config.ftl_nvm_cache {
                    core.ftl = core.ftl.with_nvm_cache();
                }
                if config.ftl_staged_requests {
                    core.ftl = core.ftl.staged();
                }
                if config.ftl_reads_ahead {
                    core.ftl = core.ftl.reading_ahead();
                }
                core
            }
        }
    };
}

ditto_core! {
    /// The whole core over a 32-bit page stream and [`Sha1Hasher`].
    DittoCore<L, NB, FB, FBP1, M>, page: PageWordSink, hasher: Sha1Hasher<L, NB, FB, FBP1>,
    direct_index: index
}

ditto_core! {
    /// The whole core over a 256-bit page stream and [`Sha1WideHasher`].
    DittoWideCore<G, M>, page: PageBeatSink, hasher: Sha1WideHasher<G>,
    registered_index: index_reset, index_response, table_requests, fp_requests
}
