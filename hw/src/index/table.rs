//! `BlockRamTable<WAB, MAB>`: the index's table port bound to on-chip block
//! RAM: `2^WAB` ways of 20 bits and `2^MAB` bucket metadata words of 40 bits.
//!
//! Ports: `port`, the table-port contract of [`crate::index`]: always ready, one
//! request per clock; a read's response (with its tag) comes three clocks
//! later. Requests are registered before the block RAM (the FSMs form them
//! combinationally), and its output is registered once more (its
//! clock-to-out delay on the iCE40 leaves too little of a 10 ns clock for the
//! signature compare behind it). Table address bit 16 selects the metadata RAM. The RAMs power up
//! cleared on an FPGA; the index clears the metadata itself after reset.
use super::{MEM_TAG_BITS, TABLE_ADDR_BITS, TABLE_DATA_BITS};
use crate::ports::TableResponder;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BlockRamTable<const WAB: usize, const MAB: usize> {
    pub clock: Signal<In, Clock>,
    pub port: TableResponder,

    ways: RAM<Bits<20>, WAB>,
    meta: RAM<Bits<TABLE_DATA_BITS>, MAB>,
    req_valid_r: DFF<Bit>,
    req_write_r: DFF<Bit>,
    req_addr_r: DFF<Bits<TABLE_ADDR_BITS>>,
    req_wdata_r: DFF<Bits<TABLE_DATA_BITS>>,
    req_tag_r: DFF<Bits<MEM_TAG_BITS>>,
    read_pending: DFF<Bit>,
    read_tag: DFF<Bits<MEM_TAG_BITS>>,
    read_meta: DFF<Bit>,
    out_valid: DFF<Bit>,
    out_tag: DFF<Bits<MEM_TAG_BITS>>,
    out_data: DFF<Bits<TABLE_DATA_BITS>>,
}

impl<const WAB: usize, const MAB: usize> Default for BlockRamTable<WAB, MAB> {
    fn default() -> Self {
        assert!(WAB <= 16 && MAB <= 16);
        Self {
            clock: Default::default(),
            port: Default::default(),
            ways: Default::default(),
            meta: Default::default(),
            req_valid_r: Default::default(),
            req_write_r: Default::default(),
            req_addr_r: Default::default(),
            req_wdata_r: Default::default(),
            req_tag_r: Default::default(),
            read_pending: Default::default(),
            read_tag: Default::default(),
            read_meta: Default::default(),
            out_valid: Default::default(),
            out_tag: Default::default(),
            out_data: Default::default(),
        }
    }
}

impl<const WAB: usize, const MAB: usize> Logic for BlockRamTable<WAB, MAB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            req_valid_r,
            req_write_r,
            req_addr_r,
            req_wdata_r,
            req_tag_r,
            read_pending,
            read_tag,
            read_meta,
            out_valid,
            out_tag,
            out_data
        );
        self.ways.read_clock.next = self.clock.val();
        self.ways.write_clock.next = self.clock.val();
        self.meta.read_clock.next = self.clock.val();
        self.meta.write_clock.next = self.clock.val();
        self.req_valid_r.d.next = self.port.req_valid.val();
        self.req_write_r.d.next = self.port.req_write.val();
        self.req_addr_r.d.next = self.port.req_addr.val();
        self.req_wdata_r.d.next = self.port.req_wdata.val();
        self.req_tag_r.d.next = self.port.req_tag.val();
        self.ways.read_address.next = self.req_addr_r.q.val().get_bits::<WAB>(0);
        self.ways.write_address.next = self.req_addr_r.q.val().get_bits::<WAB>(0);
        self.ways.write_data.next = self.req_wdata_r.q.val().get_bits::<20>(0);
        self.meta.read_address.next = self.req_addr_r.q.val().get_bits::<MAB>(0);
        self.meta.write_address.next = self.req_addr_r.q.val().get_bits::<MAB>(0);
        self.meta.write_data.next = self.req_wdata_r.q.val();
        self.ways.write_enable.next =
            self.req_valid_r.q.val() & self.req_write_r.q.val() & !self.req_addr_r.q.val().get_bit(16);
        self.meta.write_enable.next =
            self.req_valid_r.q.val() & self.req_write_r.q.val() & self.req_addr_r.q.val().get_bit(16);
        self.port.req_ready.next = true;
        self.read_pending.d.next = self.req_valid_r.q.val() & !self.req_write_r.q.val();
        self.read_tag.d.next = self.req_tag_r.q.val();
        self.read_meta.d.next = self.req_addr_r.q.val().get_bit(16);
        self.out_valid.d.next = self.read_pending.q.val();
        self.out_tag.d.next = self.read_tag.q.val();
        if self.read_meta.q.val() {
            self.out_data.d.next = self.meta.read_data.val();
        } else {
            self.out_data.d.next = bit_cast::<TABLE_DATA_BITS, 20>(self.ways.read_data.val());
        }
        self.port.rsp_valid.next = self.out_valid.q.val();
        self.port.rsp_tag.next = self.out_tag.q.val();
        self.port.rsp_rdata.next = self.out_data.q.val();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn block_ram_table_maps_to_block_ram() {
        let verilog = crate::verilog::top_verilog(super::BlockRamTable::<12, 9>::default());
        let stats = ditto_synth::check_synthesizable(&verilog, "top").unwrap_or_else(|e| panic!("{e}"));
        // 4,096 x 20 bits of ways (20 EBRs) and 512 x 40 bits of metadata (5).
        assert_eq!(stats.ebrs, 25, "{stats:?}");
    }
}
