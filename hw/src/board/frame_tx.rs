//! `FrameTransmitter`: the board link's response encoder and transmit
//! framer. It encodes the board's frames (`E` error, `R` response, and the
//! requests `V`, `M`, `N`, `Q`, `W`; see [`super::protocol`]) from the
//! fields the top holds, with their CRC, and offers them to the UART a byte
//! at a time. Errors go first, then responses, then requests.
//!
//! Ports:
//! - `err_pending` with `err_tag`, `err_code`, `err_kind`: an `E` frame to
//!   send; `error_sent` pulses as its last byte is taken.
//! - `rsp_pending` with `rsp_tag`, `rsp_status`, `rsp_value`, `rsp_flags`,
//!   `rsp_cleaned`: an `R` frame; `response_sent` pulses as its last byte
//!   is taken.
//! - `request_ready` with `request` ([`HostRequest`]) and `seq` (its tag):
//!   a request frame may start now; `request_started` pulses when one does.
//!   Its fields: `mv_from`/`mv_to` (`V`), `mem_addr`/`mem_wdata` (`M`,
//!   `N`), `fp_addr`/`fp_wdata` (`Q`, `W`). `sending_request` is high while
//!   a request frame is on its way out.
//! - Each frame's fields must hold while it is sent (the top's registers
//!   and the core's held requests do).
//! - `data`/`valid`/`ready`: the bytes, to the UART (taken on `valid &
//!   ready`). A byte is offered three clocks after the previous one is
//!   taken: each byte comes from flip-flops through two registered stages.
//! - `busy`: a frame is under way.
use super::crc32::Crc32Byte;
use super::protocol::kind;
use crate::ftl::{ADDR_BITS, MEM_ADDR_BITS, MEM_DATA_BITS};
use crate::index::ENTRY_BITS;
use crate::logic_block;
use rust_hdl::prelude::*;

/// The request to the host under way, if any (the board asks the host for
/// what does not fit on the chip). Each is one frame kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum HostRequest {
    None,
    /// `V`: a relocation made by garbage collection.
    Move,
    /// `M`: read an FTL memory word.
    MemRead,
    /// `N`: write an FTL memory word.
    MemWrite,
    /// `Q`: read a fingerprint.
    FpRead,
    /// `W`: write a fingerprint.
    FpWrite,
}

/// Whether a frame is on its way out.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum FrameTxState {
    /// No frame: the next (an error, a response, then a request) may start.
    Idle,
    /// A frame's bytes are offered one by one, its CRC last.
    Sending,
}

logic_block! {
    #[derive(LogicBlock)]
    pub struct FrameTransmitter {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, Bit>,

        pub err_pending: Signal<In, Bit>,
        pub err_tag: Signal<In, Bits<8>>,
        pub err_code: Signal<In, Bits<8>>,
        pub err_kind: Signal<In, Bits<8>>,
        pub rsp_pending: Signal<In, Bit>,
        pub rsp_tag: Signal<In, Bits<8>>,
        pub rsp_status: Signal<In, Bits<4>>,
        pub rsp_value: Signal<In, Bits<32>>,
        pub rsp_flags: Signal<In, Bits<3>>,
        pub rsp_cleaned: Signal<In, Bits<16>>,
        pub request_ready: Signal<In, Bit>,
        pub request: Signal<In, HostRequest>,
        pub seq: Signal<In, Bits<8>>,
        pub mv_from: Signal<In, Bits<ADDR_BITS>>,
        pub mv_to: Signal<In, Bits<ADDR_BITS>>,
        pub mem_addr: Signal<In, Bits<MEM_ADDR_BITS>>,
        pub mem_wdata: Signal<In, Bits<MEM_DATA_BITS>>,
        pub fp_addr: Signal<In, Bits<ENTRY_BITS>>,
        pub fp_wdata: Signal<In, Bits<160>>,

        pub data: Signal<Out, Bits<8>>,
        pub valid: Signal<Out, Bit>,
        pub ready: Signal<In, Bit>,
        pub busy: Signal<Out, Bit>,
        pub sending_request: Signal<Out, Bit>,
        pub request_started: Signal<Out, Bit>,
        pub error_sent: Signal<Out, Bit>,
        pub response_sent: Signal<Out, Bit>,

        tx_kind: DFF<Bits<8>>,
        /// `Sending` while a frame is on its way out (`tx_kind` is not zero).
        state: DFF<FrameTxState>,
        tx_tag: DFF<Bits<8>>,
        tx_len: DFF<Bits<5>>,
        tx_index: DFF<Bits<5>>,
        /// `tx_index` one-hot (bit `k` at byte `k`; bytes past 26 are CRC
        /// bytes, which do not need it), so each byte multiplexer below is a
        /// flat AND-OR of flip-flops, with no index decoder in front.
        tx_at: DFF<Bits<27>>,
        /// The CRC-32 of the frame on its way out; its four bytes leave from
        /// the top, shifted a byte on each.
        tx_crc: DFF<Bits<32>>,
        tx_data: DFF<Bits<8>>,
        /// The byte on offer moves through two stages after `tx_index` changes
        /// (`tx_b_*`: each kind's byte at the index; `tx_pre`: the frame's
        /// byte; `tx_data`: with the CRC put in), so the UART is offered it
        /// three clocks later (`tx_fresh_a`, `tx_fresh_b`, `tx_fresh`).
        tx_b_hdr: DFF<Bits<8>>,
        tx_b_r: DFF<Bits<8>>,
        tx_b_v: DFF<Bits<8>>,
        tx_b_qw: DFF<Bits<8>>,
        tx_b_w: DFF<Bits<8>>,
        tx_b_mn: DFF<Bits<8>>,
        tx_b_n: DFF<Bits<8>>,
        tx_b_e: DFF<Bits<8>>,
        tx_pre: DFF<Bits<8>>,
        tx_fresh_a: DFF<Bit>,
        tx_fresh_b: DFF<Bit>,
        tx_fresh: DFF<Bit>,
        /// `tx_index` is at one of the CRC's bytes, and at its last.
        tx_in_crc: DFF<Bit>,
        tx_at_crc_last: DFF<Bit>,
        tx_is_e: DFF<Bit>,
        tx_is_m: DFF<Bit>,
        tx_is_n: DFF<Bit>,
        tx_is_q: DFF<Bit>,
        tx_is_r: DFF<Bit>,
        tx_is_v: DFF<Bit>,
        tx_is_w: DFF<Bit>,
        tx_crc_at: DFF<Bits<5>>,
        tx_crc_last_at: DFF<Bits<5>>,
        tx_is_req: DFF<Bit>,
        tx_crc32: Crc32Byte,
        tx_crc_next: Signal<Local, Bits<32>>,
        /// All ones when the frame on its way out is of that kind (`q|w`, `m|n`:
        /// either), for the byte multiplexer.
        m_r: Signal<Local, Bits<8>>,
        m_v: Signal<Local, Bits<8>>,
        m_qw: Signal<Local, Bits<8>>,
        m_mn: Signal<Local, Bits<8>>,
        m_e: Signal<Local, Bits<8>>,
        m_w: Signal<Local, Bits<8>>,
        m_n: Signal<Local, Bits<8>>,
        /// All ones at byte `k` of the frame (`tx_at` bit `k`, eight times).
        at: [Signal<Local, Bits<8>>; 27],
        tx_accept: Signal<Local, Bit>,
    }
    constants {
        k_sync: Constant<Bits<8>> = Constant::new(bits(super::protocol::SYNC as u64)),
        k_error: Constant<Bits<8>> = Constant::new(bits(kind::ERROR as u64)),
        k_response: Constant<Bits<8>> = Constant::new(bits(kind::RESPONSE as u64)),
        k_move: Constant<Bits<8>> = Constant::new(bits(kind::MOVE as u64)),
        k_mem_read: Constant<Bits<8>> = Constant::new(bits(kind::MEM_READ as u64)),
        k_mem_write: Constant<Bits<8>> = Constant::new(bits(kind::MEM_WRITE as u64)),
        k_fp_read: Constant<Bits<8>> = Constant::new(bits(kind::FP_READ as u64)),
        k_fp_write: Constant<Bits<8>> = Constant::new(bits(kind::FP_WRITE as u64)),
        k_error_len: Constant<Bits<5>> = Constant::new(bits(super::protocol::single_payload_len(kind::ERROR, false) as u64)),
        k_response_len: Constant<Bits<5>> = Constant::new(bits(super::protocol::single_payload_len(kind::RESPONSE, false) as u64)),
        k_move_len: Constant<Bits<5>> = Constant::new(bits(super::protocol::single_payload_len(kind::MOVE, false) as u64)),
        k_mem_read_len: Constant<Bits<5>> = Constant::new(bits(super::protocol::single_payload_len(kind::MEM_READ, false) as u64)),
        k_mem_write_len: Constant<Bits<5>> = Constant::new(bits(super::protocol::single_payload_len(kind::MEM_WRITE, false) as u64)),
        k_fp_read_len: Constant<Bits<5>> = Constant::new(bits(super::protocol::single_payload_len(kind::FP_READ, false) as u64)),
        k_fp_write_len: Constant<Bits<5>> = Constant::new(bits(super::protocol::single_payload_len(kind::FP_WRITE, false) as u64)),
    }
}

impl Logic for FrameTransmitter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            tx_kind,
            state,
            tx_tag,
            tx_len,
            tx_index,
            tx_at,
            tx_crc,
            tx_data,
            tx_b_hdr,
            tx_b_r,
            tx_b_v,
            tx_b_qw,
            tx_b_w,
            tx_b_mn,
            tx_b_n,
            tx_b_e,
            tx_pre,
            tx_fresh_a,
            tx_fresh_b,
            tx_fresh,
            tx_in_crc,
            tx_at_crc_last,
            tx_is_e,
            tx_is_m,
            tx_is_n,
            tx_is_q,
            tx_is_r,
            tx_is_v,
            tx_is_w,
            tx_crc_at,
            tx_crc_last_at,
            tx_is_req
        );
        self.tx_crc32.crc.next = self.tx_crc.q.val();
        self.tx_crc32.data_in.next = self.tx_data.q.val();
        self.tx_crc_next.next = self.tx_crc32.crc_out.val();
        // `tx_fresh` implies a frame under way (both clear on its last byte).
        self.valid.next = self.tx_fresh.q.val();
        self.data.next = self.tx_data.q.val();
        self.busy.next = self.state.q.val() == FrameTxState::Sending;
        self.sending_request.next = self.tx_is_req.q.val();
        self.request_started.next = false;
        self.error_sent.next = false;
        self.response_sent.next = false;
        self.tx_accept.next = self.tx_fresh.q.val() & self.ready.val();
        // Registered: `tx_index` changed at least two clocks before the next
        // accept. The low CRC byte is the frame's last.
        self.tx_in_crc.d.next = self.tx_index.q.val() >= self.tx_crc_at.q.val();
        self.tx_at_crc_last.d.next = self.tx_index.q.val() == self.tx_crc_last_at.q.val();
        self.tx_fresh_a.d.next = self.state.q.val() == FrameTxState::Sending;
        self.tx_fresh_b.d.next = self.tx_fresh_a.q.val();
        self.tx_fresh.d.next = self.tx_fresh_b.q.val();
        match self.state.q.val() {
            FrameTxState::Idle => {
                self.tx_index.d.next = 0.into();
                self.tx_at.d.next = 1.into();
                self.tx_crc.d.next = 0xffff_ffff_u64.into();
                if self.err_pending.val() {
                    self.tx_kind.d.next = self.k_error.val();
                    self.state.d.next = FrameTxState::Sending;
                    self.tx_tag.d.next = self.err_tag.val();
                    self.tx_len.d.next = self.k_error_len.val();
                } else if self.rsp_pending.val() {
                    self.tx_kind.d.next = self.k_response.val();
                    self.state.d.next = FrameTxState::Sending;
                    self.tx_tag.d.next = self.rsp_tag.val();
                    self.tx_len.d.next = self.k_response_len.val();
                } else if self.request_ready.val() {
                    self.state.d.next = FrameTxState::Sending;
                    self.tx_tag.d.next = self.seq.val();
                    self.tx_is_req.d.next = true;
                    self.request_started.next = true;
                    match self.request.val() {
                        HostRequest::Move => {
                            self.tx_kind.d.next = self.k_move.val();
                            self.tx_len.d.next = self.k_move_len.val();
                        }
                        HostRequest::MemRead => {
                            self.tx_kind.d.next = self.k_mem_read.val();
                            self.tx_len.d.next = self.k_mem_read_len.val();
                        }
                        HostRequest::MemWrite => {
                            self.tx_kind.d.next = self.k_mem_write.val();
                            self.tx_len.d.next = self.k_mem_write_len.val();
                        }
                        HostRequest::FpRead => {
                            self.tx_kind.d.next = self.k_fp_read.val();
                            self.tx_len.d.next = self.k_fp_read_len.val();
                        }
                        // `FpWrite` (`request_ready` is never high with `None`).
                        _ => {
                            self.tx_kind.d.next = self.k_fp_write.val();
                            self.tx_len.d.next = self.k_fp_write_len.val();
                        }
                    }
                }
            }
            FrameTxState::Sending => {
                if self.tx_accept.val() {
                    self.tx_index.d.next = self.tx_index.q.val() + 1;
                    self.tx_at.d.next = self.tx_at.q.val() << 1;
                    self.tx_fresh_a.d.next = false;
                    self.tx_fresh_b.d.next = false;
                    self.tx_fresh.d.next = false;
                    if self.tx_in_crc.q.val() {
                        // A CRC byte left: the next one to the top.
                        self.tx_crc.d.next = self.tx_crc.q.val() << 8;
                    } else if self.tx_index.q.val() != 0 {
                        self.tx_crc.d.next = self.tx_crc_next.val();
                    }
                    if self.tx_at_crc_last.q.val() {
                        self.tx_kind.d.next = 0.into();
                        self.state.d.next = FrameTxState::Idle;
                        self.tx_is_req.d.next = false;
                        if self.tx_is_e.q.val() {
                            self.error_sent.next = true;
                        } else if self.tx_is_r.q.val() {
                            self.response_sent.next = true;
                        }
                    }
                }
            }
        }
        // The frame's kind and CRC positions, decoded a clock after they are
        // set (the first byte that depends on them is several bytes later),
        // so the byte multiplexer below starts from flip-flops.
        self.tx_is_e.d.next = self.tx_kind.q.val() == self.k_error.val();
        self.tx_is_m.d.next = self.tx_kind.q.val() == self.k_mem_read.val();
        self.tx_is_n.d.next = self.tx_kind.q.val() == self.k_mem_write.val();
        self.tx_is_q.d.next = self.tx_kind.q.val() == self.k_fp_read.val();
        self.tx_is_r.d.next = self.tx_kind.q.val() == self.k_response.val();
        self.tx_is_v.d.next = self.tx_kind.q.val() == self.k_move.val();
        self.tx_is_w.d.next = self.tx_kind.q.val() == self.k_fp_write.val();
        self.tx_crc_at.d.next = self.tx_len.q.val() + 5;
        self.tx_crc_last_at.d.next = self.tx_len.q.val() + 8;
        // The byte at `tx_index`, in two registered steps: each kind's byte
        // at the index (`tx_b_*`: an AND-OR on the one-hot index alone), then
        // those masked by the frame's (one-hot) kind and ORed, a flat AND-OR.
        for k in 0..27 {
            self.at[k].next = 0.into();
            if self.tx_at.q.val().get_bit(k) {
                self.at[k].next = 0xff.into();
            }
        }
        self.tx_b_hdr.d.next = (self.k_sync.val() & self.at[0].val())
            | (self.tx_kind.q.val() & self.at[1].val())
            | (self.tx_tag.q.val() & self.at[2].val())
            | (bit_cast::<8, 5>(self.tx_len.q.val()) & self.at[4].val());
        self.tx_b_r.d.next = (bit_cast::<8, 4>(self.rsp_status.val()) & self.at[5].val())
            | (self.rsp_value.val().get_bits::<8>(24) & self.at[6].val())
            | (self.rsp_value.val().get_bits::<8>(16) & self.at[7].val())
            | (self.rsp_value.val().get_bits::<8>(8) & self.at[8].val())
            | (self.rsp_value.val().get_bits::<8>(0) & self.at[9].val())
            | (bit_cast::<8, 3>(self.rsp_flags.val()) & self.at[10].val())
            | (self.rsp_cleaned.val().get_bits::<8>(8) & self.at[11].val())
            | (self.rsp_cleaned.val().get_bits::<8>(0) & self.at[12].val());
        self.tx_b_v.d.next = (self.mv_from.val().get_bits::<8>(16) & self.at[5].val())
            | (self.mv_from.val().get_bits::<8>(8) & self.at[6].val())
            | (self.mv_from.val().get_bits::<8>(0) & self.at[7].val())
            | (self.mv_to.val().get_bits::<8>(16) & self.at[8].val())
            | (self.mv_to.val().get_bits::<8>(8) & self.at[9].val())
            | (self.mv_to.val().get_bits::<8>(0) & self.at[10].val());
        self.tx_b_qw.d.next = (self.fp_addr.val().get_bits::<8>(8) & self.at[5].val())
            | (self.fp_addr.val().get_bits::<8>(0) & self.at[6].val());
        self.tx_b_w.d.next = (self.fp_wdata.val().get_bits::<8>(152) & self.at[7].val())
            | (self.fp_wdata.val().get_bits::<8>(144) & self.at[8].val())
            | (self.fp_wdata.val().get_bits::<8>(136) & self.at[9].val())
            | (self.fp_wdata.val().get_bits::<8>(128) & self.at[10].val())
            | (self.fp_wdata.val().get_bits::<8>(120) & self.at[11].val())
            | (self.fp_wdata.val().get_bits::<8>(112) & self.at[12].val())
            | (self.fp_wdata.val().get_bits::<8>(104) & self.at[13].val())
            | (self.fp_wdata.val().get_bits::<8>(96) & self.at[14].val())
            | (self.fp_wdata.val().get_bits::<8>(88) & self.at[15].val())
            | (self.fp_wdata.val().get_bits::<8>(80) & self.at[16].val())
            | (self.fp_wdata.val().get_bits::<8>(72) & self.at[17].val())
            | (self.fp_wdata.val().get_bits::<8>(64) & self.at[18].val())
            | (self.fp_wdata.val().get_bits::<8>(56) & self.at[19].val())
            | (self.fp_wdata.val().get_bits::<8>(48) & self.at[20].val())
            | (self.fp_wdata.val().get_bits::<8>(40) & self.at[21].val())
            | (self.fp_wdata.val().get_bits::<8>(32) & self.at[22].val())
            | (self.fp_wdata.val().get_bits::<8>(24) & self.at[23].val())
            | (self.fp_wdata.val().get_bits::<8>(16) & self.at[24].val())
            | (self.fp_wdata.val().get_bits::<8>(8) & self.at[25].val())
            | (self.fp_wdata.val().get_bits::<8>(0) & self.at[26].val());
        self.tx_b_mn.d.next = (self.mem_addr.val().get_bits::<8>(24) & self.at[5].val())
            | (self.mem_addr.val().get_bits::<8>(16) & self.at[6].val())
            | (self.mem_addr.val().get_bits::<8>(8) & self.at[7].val())
            | (self.mem_addr.val().get_bits::<8>(0) & self.at[8].val());
        self.tx_b_n.d.next = (self.mem_wdata.val().get_bits::<8>(56) & self.at[9].val())
            | (self.mem_wdata.val().get_bits::<8>(48) & self.at[10].val())
            | (self.mem_wdata.val().get_bits::<8>(40) & self.at[11].val())
            | (self.mem_wdata.val().get_bits::<8>(32) & self.at[12].val())
            | (self.mem_wdata.val().get_bits::<8>(24) & self.at[13].val())
            | (self.mem_wdata.val().get_bits::<8>(16) & self.at[14].val())
            | (self.mem_wdata.val().get_bits::<8>(8) & self.at[15].val())
            | (self.mem_wdata.val().get_bits::<8>(0) & self.at[16].val());
        self.tx_b_e.d.next = (self.err_code.val() & self.at[5].val()) | (self.err_kind.val() & self.at[6].val());
        self.m_r.next = 0.into();
        self.m_v.next = 0.into();
        self.m_qw.next = 0.into();
        self.m_mn.next = 0.into();
        self.m_e.next = 0.into();
        self.m_w.next = 0.into();
        self.m_n.next = 0.into();
        if self.tx_is_r.q.val() {
            self.m_r.next = 0xff.into();
        }
        if self.tx_is_v.q.val() {
            self.m_v.next = 0xff.into();
        }
        if self.tx_is_q.q.val() | self.tx_is_w.q.val() {
            self.m_qw.next = 0xff.into();
        }
        if self.tx_is_m.q.val() | self.tx_is_n.q.val() {
            self.m_mn.next = 0xff.into();
        }
        if self.tx_is_e.q.val() {
            self.m_e.next = 0xff.into();
        }
        if self.tx_is_w.q.val() {
            self.m_w.next = 0xff.into();
        }
        if self.tx_is_n.q.val() {
            self.m_n.next = 0xff.into();
        }
        self.tx_pre.d.next = self.tx_b_hdr.q.val()
            | (self.tx_b_r.q.val() & self.m_r.val())
            | (self.tx_b_v.q.val() & self.m_v.val())
            | (self.tx_b_qw.q.val() & self.m_qw.val())
            | (self.tx_b_w.q.val() & self.m_w.val())
            | (self.tx_b_mn.q.val() & self.m_mn.val())
            | (self.tx_b_n.q.val() & self.m_n.val())
            | (self.tx_b_e.q.val() & self.m_e.val());
        // The byte on offer: offered three clocks after its index is steady
        // (the CRC, counted as the last payload byte was accepted, is steady
        // by then).
        if self.tx_in_crc.q.val() {
            self.tx_data.d.next = self.tx_crc.q.val().get_bits::<8>(24);
        } else {
            self.tx_data.d.next = self.tx_pre.q.val();
        }
        if self.reset.val() {
            self.tx_kind.d.next = 0.into();
            self.state.d.next = FrameTxState::Idle;
            self.tx_fresh_a.d.next = false;
            self.tx_fresh_b.d.next = false;
            self.tx_fresh.d.next = false;
            self.tx_is_req.d.next = false;
        }
    }
}
