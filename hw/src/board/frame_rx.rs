//! `FrameReceiver`: the board link's receive framer. It takes the UART's
//! bytes, finds frames (`SYNC kind tag len_hi len_lo payload crc[4]`, see
//! [`super::protocol`]), checks each header's kind and length and each
//! frame's CRC, and abandons a frame that stops arriving.
//! [`super::protocol::Deframer`] is its model.
//!
//! Ports (`byte` is a SystemVerilog keyword, so a byte port is `data`):
//! - `data`/`data_valid`: a received byte, for one clock; bytes are at least
//!   a few clocks apart (a UART's), and the registered decodes below rely on
//!   it.
//! - `timeout`: clocks without a byte after which a partial frame is
//!   abandoned (at least a byte's time).
//! - `page_begun`, `pad_done` (from the page assembler): part of a page has
//!   gone into the lanes; the abandoned page has been completed. A frame
//!   abandoned with `page_begun` waits in `Padding` (its bytes ignored) until
//!   `pad_done`, so the lanes stay in step before the host resends it.
//! - `frame_start`: one clock, the `SYNC` that begins a frame was taken.
//!   `header_done`: one clock, the header's last byte was taken and the
//!   header is good; `header_page` with it when the frame is a `WRITE`
//!   command with its page.
//! - `page_byte`: one clock, a payload byte past the command's 24 bytes
//!   (a page's) is on `data`.
//! - `padding`: an abandoned page is being completed (`Padding`).
//! - `done`: one clock, two clocks after a frame's last byte; `good` with it
//!   when the frame's CRC held. `kind`, `tag`, `payload` (the first 24
//!   payload bytes, the last one taken lowest) and the kind's flags hold the
//!   frame until the next frame's header is under way. `page_frame`: the
//!   frame is as long as a `WRITE` with its page.
//! - `raise`/`raise_code`: an error frame to send, for one clock: a bad
//!   header ([`super::protocol::error::HEADER`]), or a frame that stopped
//!   arriving ([`super::protocol::error::TRUNCATED`]).
use super::crc32::Crc32Byte;
use super::protocol::{error, kind, single_payload_len, COMMAND_LEN, SYNC, WRITE_COMMAND_LEN};
use crate::logic_block;
use rust_hdl::prelude::*;

// The header check takes a length's high byte as a page command's or zero.
const _: () = assert!(COMMAND_LEN < 256 && WRITE_COMMAND_LEN >> 8 != 0 && WRITE_COMMAND_LEN < 1 << 16);

/// Where the receiver is in a frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum RxState {
    /// Skipping bytes until `SYNC`.
    Hunt,
    Kind,
    Tag,
    LengthHigh,
    LengthLow,
    Payload,
    /// The CRC's first three bytes.
    Crc,
    /// The CRC's last byte.
    CrcLast,
    /// Waiting for the page assembler to complete an abandoned page.
    Padding,
}

logic_block! {
    #[derive(LogicBlock)]
    pub struct FrameReceiver {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, Bit>,
        pub data: Signal<In, Bits<8>>,
        pub data_valid: Signal<In, Bit>,
        pub timeout: Signal<In, Bits<24>>,
        pub page_begun: Signal<In, Bit>,
        pub pad_done: Signal<In, Bit>,

        pub frame_start: Signal<Out, Bit>,
        pub header_done: Signal<Out, Bit>,
        pub header_page: Signal<Out, Bit>,
        pub page_byte: Signal<Out, Bit>,
        pub padding: Signal<Out, Bit>,
        pub done: Signal<Out, Bit>,
        pub good: Signal<Out, Bit>,
        pub kind: Signal<Out, Bits<8>>,
        pub tag: Signal<Out, Bits<8>>,
        pub payload: Signal<Out, Bits<192>>,
        pub page_frame: Signal<Out, Bit>,
        pub is_command: Signal<Out, Bit>,
        pub is_again: Signal<Out, Bit>,
        pub is_fp_data: Signal<Out, Bit>,
        pub is_mem_data: Signal<Out, Bit>,
        pub is_ack: Signal<Out, Bit>,
        pub raise: Signal<Out, Bit>,
        pub raise_code: Signal<Out, Bits<8>>,

        state: DFF<RxState>,
        rx_kind: DFF<Bits<8>>,
        rx_tag: DFF<Bits<8>>,
        /// The header's length, all 16 bits (a length the kind does not have
        /// must not alias one it has).
        len: DFF<Bits<16>>,
        /// The length's high byte is a page command's (0x10), or zero: kept
        /// as it arrives, so the header's check on its last byte compares
        /// that byte only.
        len_hi_page: DFF<Bit>,
        len_hi_zero: DFF<Bit>,
        count: DFF<Bits<13>>,
        /// The CRC-32 over the frame so far (its own four bytes included, a
        /// good frame's ends at 0).
        crc: DFF<Bits<32>>,
        /// CRC bytes still to come after the one in hand, in `Crc`.
        crc_left: DFF<Bits<2>>,
        /// The frame's last byte was taken a clock ago (its CRC is in `crc`):
        /// `done` and `good` follow from flip-flops.
        last: DFF<Bit>,
        shift: DFF<Bits<192>>,
        /// Clocks since the last byte of a frame under way.
        gap: DFF<Bits<24>>,
        /// `gap` reached `timeout` on the last clock.
        timed_out: DFF<Bit>,
        rx_done: DFF<Bit>,
        rx_good: DFF<Bit>,
        /// Decoded a clock after what they decode is set (bytes are clocks
        /// apart): the frame is a whole page command; the next payload byte
        /// falls in the 24-byte command, or is the payload's last; the kind.
        rx_page_frame: DFF<Bit>,
        in_command: DFF<Bit>,
        at_last: DFF<Bit>,
        rx_is_c: DFF<Bit>,
        rx_is_a: DFF<Bit>,
        rx_is_f: DFF<Bit>,
        rx_is_d: DFF<Bit>,
        rx_is_k: DFF<Bit>,
        crc_step: Crc32Byte,
        crc_next: Signal<Local, Bits<32>>,
        /// The header's last byte is on `data`: the length is the kind's
        /// (a page command's; any kind's with a payload; an empty one's,
        /// `K` and `A`, which carry nothing).
        hdr_page: Signal<Local, Bit>,
        hdr_payload: Signal<Local, Bit>,
        hdr_empty: Signal<Local, Bit>,
        /// The frame under way is abandoned this clock (the timeout ran out).
        abandon: Signal<Local, Bit>,
    }
    constants {
        k_sync: Constant<Bits<8>> = Constant::new(bits(SYNC as u64)),
        k_command: Constant<Bits<8>> = Constant::new(bits(kind::COMMAND as u64)),
        k_again: Constant<Bits<8>> = Constant::new(bits(kind::AGAIN as u64)),
        k_fp_data: Constant<Bits<8>> = Constant::new(bits(kind::FP_DATA as u64)),
        k_mem_data: Constant<Bits<8>> = Constant::new(bits(kind::MEM_DATA as u64)),
        k_ack: Constant<Bits<8>> = Constant::new(bits(kind::ACK as u64)),
        k_command_len: Constant<Bits<13>> = Constant::new(bits(COMMAND_LEN as u64)),
        k_page_frame_len: Constant<Bits<16>> = Constant::new(bits(WRITE_COMMAND_LEN as u64)),
        k_page_len_high: Constant<Bits<8>> = Constant::new(bits(WRITE_COMMAND_LEN as u64 >> 8)),
        k_page_len_low: Constant<Bits<8>> = Constant::new(bits(WRITE_COMMAND_LEN as u64 & 0xff)),
        k_command_len_low: Constant<Bits<8>> = Constant::new(bits(COMMAND_LEN as u64)),
        k_fp_data_len: Constant<Bits<8>> = Constant::new(bits(single_payload_len(kind::FP_DATA, true) as u64)),
        k_mem_data_len: Constant<Bits<8>> = Constant::new(bits(single_payload_len(kind::MEM_DATA, true) as u64)),
        k_header: Constant<Bits<8>> = Constant::new(bits(error::HEADER as u64)),
        k_truncated: Constant<Bits<8>> = Constant::new(bits(error::TRUNCATED as u64)),
    }
}

impl Logic for FrameReceiver {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            rx_kind,
            rx_tag,
            len,
            len_hi_page,
            len_hi_zero,
            count,
            crc,
            crc_left,
            last,
            shift,
            gap,
            timed_out,
            rx_done,
            rx_good,
            rx_page_frame,
            in_command,
            at_last,
            rx_is_c,
            rx_is_a,
            rx_is_f,
            rx_is_d,
            rx_is_k
        );
        // CRC-32/MPEG-2, one byte per step (the CRC's own bytes too).
        self.crc_step.crc.next = self.crc.q.val();
        self.crc_step.data_in.next = self.data.val();
        self.crc_next.next = self.crc_step.crc_out.val();

        self.kind.next = self.rx_kind.q.val();
        self.tag.next = self.rx_tag.q.val();
        self.payload.next = self.shift.q.val();
        self.page_frame.next = self.rx_page_frame.q.val();
        self.is_command.next = self.rx_is_c.q.val();
        self.is_again.next = self.rx_is_a.q.val();
        self.is_fp_data.next = self.rx_is_f.q.val();
        self.is_mem_data.next = self.rx_is_d.q.val();
        self.is_ack.next = self.rx_is_k.q.val();
        self.done.next = self.rx_done.q.val();
        self.good.next = self.rx_good.q.val();
        self.padding.next = self.state.q.val() == RxState::Padding;
        self.raise.next = false;
        self.raise_code.next = 0.into();
        self.frame_start.next = false;
        self.header_done.next = false;
        self.page_byte.next = false;

        // A frame's last byte: done a clock later, its CRC from flip-flops.
        self.last.d.next = false;
        self.rx_done.d.next = self.last.q.val();
        self.rx_good.d.next = self.crc.q.val() == 0;
        if self.state.q.val() != RxState::Crc {
            self.crc_left.d.next = 2.into();
        }
        self.rx_page_frame.d.next = self.len.q.val() == self.k_page_frame_len.val();
        self.in_command.d.next = self.count.q.val() < self.k_command_len.val();
        self.at_last.d.next = bit_cast::<16, 13>(self.count.q.val() + 1) == self.len.q.val();
        self.rx_is_c.d.next = self.rx_kind.q.val() == self.k_command.val();
        self.rx_is_a.d.next = self.rx_kind.q.val() == self.k_again.val();
        self.rx_is_f.d.next = self.rx_kind.q.val() == self.k_fp_data.val();
        self.rx_is_d.d.next = self.rx_kind.q.val() == self.k_mem_data.val();
        self.rx_is_k.d.next = self.rx_kind.q.val() == self.k_ack.val();
        self.hdr_page.next =
            self.rx_is_c.q.val() & self.len_hi_page.q.val() & (self.data.val() == self.k_page_len_low.val());
        self.hdr_payload.next = self.hdr_page.val()
            | (self.len_hi_zero.q.val()
                & ((self.rx_is_c.q.val() & (self.data.val() == self.k_command_len_low.val()))
                    | (self.rx_is_f.q.val() & (self.data.val() == self.k_fp_data_len.val()))
                    | (self.rx_is_d.q.val() & (self.data.val() == self.k_mem_data_len.val()))));
        self.hdr_empty.next =
            (self.rx_is_k.q.val() | self.rx_is_a.q.val()) & self.len_hi_zero.q.val() & (self.data.val() == 0);
        self.header_page.next = self.hdr_page.val();
        if (self.state.q.val() == RxState::Hunt) | (self.state.q.val() == RxState::Padding) | self.data_valid.val() {
            self.gap.d.next = 0.into();
        } else {
            self.gap.d.next = self.gap.q.val() + 1;
        }

        // A frame that stops arriving is abandoned (below); a byte that comes
        // just as it is abandoned is not taken.
        self.abandon.next =
            self.timed_out.q.val() & (self.state.q.val() != RxState::Padding) & (self.state.q.val() != RxState::Hunt);
        if self.data_valid.val() & !self.abandon.val() {
            match self.state.q.val() {
                RxState::Hunt => {
                    if self.data.val() == self.k_sync.val() {
                        self.frame_start.next = true;
                        self.crc.d.next = 0xffff_ffff_u64.into();
                        self.state.d.next = RxState::Kind;
                    }
                }
                RxState::Kind => {
                    self.rx_kind.d.next = self.data.val();
                    self.crc.d.next = self.crc_next.val();
                    self.state.d.next = RxState::Tag;
                }
                RxState::Tag => {
                    self.rx_tag.d.next = self.data.val();
                    self.crc.d.next = self.crc_next.val();
                    self.state.d.next = RxState::LengthHigh;
                }
                RxState::LengthHigh => {
                    self.len.d.next = bit_cast::<16, 8>(self.data.val()) << 8;
                    self.len_hi_page.d.next = self.data.val() == self.k_page_len_high.val();
                    self.len_hi_zero.d.next = self.data.val() == 0;
                    self.crc.d.next = self.crc_next.val();
                    self.state.d.next = RxState::LengthLow;
                }
                RxState::LengthLow => {
                    self.len.d.next = self.len.q.val() | bit_cast::<16, 8>(self.data.val());
                    self.crc.d.next = self.crc_next.val();
                    self.count.d.next = 0.into();
                    if self.hdr_payload.val() {
                        self.header_done.next = true;
                        self.state.d.next = RxState::Payload;
                    } else if self.hdr_empty.val() {
                        self.header_done.next = true;
                        self.state.d.next = RxState::Crc;
                    } else {
                        self.state.d.next = RxState::Hunt;
                        self.raise.next = true;
                        self.raise_code.next = self.k_header.val();
                    }
                }
                RxState::Payload => {
                    self.crc.d.next = self.crc_next.val();
                    self.count.d.next = self.count.q.val() + 1;
                    if self.in_command.q.val() {
                        self.shift.d.next = (self.shift.q.val() << 8) | bit_cast::<192, 8>(self.data.val());
                    } else {
                        self.page_byte.next = true;
                    }
                    if self.at_last.q.val() {
                        self.state.d.next = RxState::Crc;
                    }
                }
                RxState::Crc => {
                    self.crc.d.next = self.crc_next.val();
                    self.crc_left.d.next = self.crc_left.q.val() - 1;
                    if self.crc_left.q.val() == 0 {
                        self.state.d.next = RxState::CrcLast;
                    }
                }
                RxState::CrcLast => {
                    // The frame is complete.
                    self.crc.d.next = self.crc_next.val();
                    self.state.d.next = RxState::Hunt;
                    self.last.d.next = true;
                }
                RxState::Padding => {}
            }
        }
        // A frame that stops arriving is abandoned; the error goes out once
        // a page it began is padded (the host's resent frame must not arrive
        // while the lanes are still being padded). A frame whose last byte
        // came just as the timeout ran out is whole: it is not abandoned.
        self.timed_out.d.next = self.gap.q.val() == self.timeout.val();
        if self.abandon.val() {
            self.state.d.next = RxState::Hunt;
            if self.page_begun.val() {
                self.state.d.next = RxState::Padding;
            } else {
                self.raise.next = true;
                self.raise_code.next = self.k_truncated.val();
            }
        }
        if (self.state.q.val() == RxState::Padding) & self.pad_done.val() {
            self.state.d.next = RxState::Hunt;
            self.raise.next = true;
            self.raise_code.next = self.k_truncated.val();
        }
        if self.reset.val() {
            self.state.d.next = RxState::Hunt;
            self.last.d.next = false;
            self.rx_done.d.next = false;
            self.gap.d.next = 0.into();
            self.timed_out.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{kind, payload_lens};

    #[test]
    fn acknowledgements_and_agains_are_the_empty_kinds_the_header_check_takes() {
        for k in [kind::ACK, kind::AGAIN] {
            assert_eq!(payload_lens(k, true), Some(&[0][..]), "kind {}", k as char);
        }
    }
}
