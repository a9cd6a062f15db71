//! `IndexOnChip<M, WAB, MAB>`: an [`FpIndex`] with its table in block RAM
//! ([`BlockRamTable`]); the full-fingerprint port stays outside, as ChunkStash
//! keeps its full entries off the fast memory. This is the `cu` index.
//!
//! Ports: those of [`FpIndex`] without `tbl` (same contracts).
use super::fp_index::FpIndex;
use super::table::BlockRamTable;
use crate::ports::{FpStoreController, IndexCommandSink, IndexCounters, IndexResponseSource, TableController};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct IndexOnChip<const M: usize, const WAB: usize, const MAB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub bloom_enable: Signal<In, Bit>,
    pub fsm_limit_log2: Signal<In, Bits<3>>,
    pub cmd: IndexCommandSink,
    pub rsp: IndexResponseSource,
    pub fp: FpStoreController,
    pub stats: IndexCounters,

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
            cmd: Default::default(),
            rsp: Default::default(),
            fp: Default::default(),
            stats: Default::default(),
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
        IndexCommandSink::link(&mut self.cmd, &mut self.index.cmd);
        IndexResponseSource::link(&mut self.rsp, &mut self.index.rsp);
        FpStoreController::link(&mut self.fp, &mut self.index.fp);
        IndexCounters::link(&mut self.stats, &mut self.index.stats);
        self.block_ram.clock.next = self.clock.val();
        TableController::join(&mut self.index.tbl, &mut self.block_ram.port);
    }
}
