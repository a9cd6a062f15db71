//! `Crc32Byte`: one byte's step of the board link's CRC (CRC-32/MPEG-2:
//! polynomial 0x04C11DB7, most significant bit first), combinational. The
//! eight bit steps are unrolled; synthesis flattens them into one XOR
//! network per CRC bit (at most three LUT levels on the iCE40).
//!
//! Ports: `crc` the CRC so far and `data_in` the next byte (`byte` is a
//! SystemVerilog keyword); `crc_out` the CRC
//! after it, the same clock. [`super::protocol::crc32_update`] is its model.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Crc32Byte {
    /// The CRC so far.
    pub crc: Signal<In, Bits<32>>,
    /// The byte it takes.
    pub data_in: Signal<In, Bits<8>>,
    /// The CRC after `byte`.
    pub crc_out: Signal<Out, Bits<32>>,
    /// The CRC after each bit step (`step0`: the byte XORed in at the top).
    step0: Signal<Local, Bits<32>>,
    step1: Signal<Local, Bits<32>>,
    step2: Signal<Local, Bits<32>>,
    step3: Signal<Local, Bits<32>>,
    step4: Signal<Local, Bits<32>>,
    step5: Signal<Local, Bits<32>>,
    step6: Signal<Local, Bits<32>>,
    step7: Signal<Local, Bits<32>>,
}

impl Logic for Crc32Byte {
    #[hdl_gen]
    fn update(&mut self) {
        // A step: shift left, and XOR the polynomial in when the bit
        // shifted out is set. (Named steps: rust-hdl takes only a loop
        // variable as an index, and no signal may feed itself.)
        self.step0.next = self.crc.val() ^ (bit_cast::<32, 8>(self.data_in.val()) << 24);
        self.step1.next = self.step0.val() << 1;
        if self.step0.val().get_bit(31) {
            self.step1.next = (self.step0.val() << 1) ^ bits::<32>(0x04c1_1db7);
        }
        self.step2.next = self.step1.val() << 1;
        if self.step1.val().get_bit(31) {
            self.step2.next = (self.step1.val() << 1) ^ bits::<32>(0x04c1_1db7);
        }
        self.step3.next = self.step2.val() << 1;
        if self.step2.val().get_bit(31) {
            self.step3.next = (self.step2.val() << 1) ^ bits::<32>(0x04c1_1db7);
        }
        self.step4.next = self.step3.val() << 1;
        if self.step3.val().get_bit(31) {
            self.step4.next = (self.step3.val() << 1) ^ bits::<32>(0x04c1_1db7);
        }
        self.step5.next = self.step4.val() << 1;
        if self.step4.val().get_bit(31) {
            self.step5.next = (self.step4.val() << 1) ^ bits::<32>(0x04c1_1db7);
        }
        self.step6.next = self.step5.val() << 1;
        if self.step5.val().get_bit(31) {
            self.step6.next = (self.step5.val() << 1) ^ bits::<32>(0x04c1_1db7);
        }
        self.step7.next = self.step6.val() << 1;
        if self.step6.val().get_bit(31) {
            self.step7.next = (self.step6.val() << 1) ^ bits::<32>(0x04c1_1db7);
        }
        self.crc_out.next = self.step7.val() << 1;
        if self.step7.val().get_bit(31) {
            self.crc_out.next = (self.step7.val() << 1) ^ bits::<32>(0x04c1_1db7);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::protocol::crc32_update;

    /// The widget in rust-hdl's simulator against the software CRC, on
    /// every byte value from a few CRCs.
    #[test]
    fn crc32_byte_matches_the_software_crc() {
        let mut uut = Crc32Byte::default();
        uut.connect_all();
        for crc in [0u32, 0xffff_ffff, 0x8000_0001, 0x1234_5678] {
            for byte in 0..=255u8 {
                uut.crc.next = bits(crc as u64);
                uut.data_in.next = bits(byte as u64);
                assert!(simulate(&mut uut, 20), "the steps settle");
                assert_eq!(uut.crc_out.val().index() as u32, crc32_update(crc, byte), "crc {crc:#x} byte {byte:#x}");
            }
        }
    }

    #[test]
    fn crc32_byte_is_synthesizable() {
        let verilog = crate::verilog::top_verilog(Crc32Byte::default());
        let stats = ditto_synth::check_synthesizable(&verilog, "top").unwrap_or_else(|e| panic!("{e}"));
        assert!(stats.luts > 32, "a XOR network per CRC bit: {stats:?}");
    }
}
