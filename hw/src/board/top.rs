//! `BoardTop<L, NB, FB, FBP1, M, WAB, MAB>`: a configuration's SHA-1 hasher
//! and fingerprint index (table in block RAM) behind a board's USB UART (the
//! Alchitry Cu: `constraints/alchitry-cu.pcf`). The host holds the index's
//! full fingerprints (its fingerprint port goes over the link).
//!
//! Ports (the names the pin file uses):
//! - `clock`: the board oscillator (100 MHz on the Cu).
//! - `rst_n`: reset button, active low, asynchronous (synchronized here). A
//!   power-on reset is generated as well, so the button is never required.
//! - `usb_rx` (in) / `usb_tx` (out): the FTDI UART, 8N1 at the configuration's
//!   `uart_baud` (1,000,000 baud for `cu`).
//! - `led[7:0]`: `led[0]` heartbeat, `led[1]` a page is in flight, `led[2]`
//!   sticky UART framing error, `led[3]` sticky protocol error (unknown
//!   message, unrequested fingerprint, or a word overrun), `led[7:4]` the low
//!   four bits of the count of results sent.
//!
//! Link protocol (interim, until the framed protocol of issue #5 replaces it;
//! it has no checksum and does not resynchronise after a lost byte):
//! - host to board: `'P'` and 4,096 bytes: a page, hashed and INSERTed into
//!   the index; `'F'` and 20 bytes: the full fingerprint the board asked for.
//! - board to host: `'Q' e1 e0`: send the fingerprint of entry `e`;
//!   `'W' e1 e0` and 20 bytes: keep this fingerprint for entry `e`;
//!   `'R' status e1 e0 refcount flags`: the page's INSERT response, in page
//!   order (codes of `crate::index::Status` and `crate::index::flag`).
//!
//! The host sends one page and answers `'Q'`s until its `'R'`: the UART has no
//! flow control, and a word the hasher has not taken when the next is
//! complete is dropped (`led[3]`).
use super::uart::{UartRx, UartTx};
use crate::index::onchip::IndexOnChip;
use crate::sha1::Sha1Hasher;
use crate::Config;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BoardTop<
    const L: usize,
    const NB: usize,
    const FB: usize,
    const FBP1: usize,
    const M: usize,
    const WAB: usize,
    const MAB: usize,
> {
    /// Board oscillator.
    pub clock: Signal<In, Clock>,
    /// Reset button, active low.
    pub rst_n: Signal<In, Bit>,
    /// UART from the host (FTDI TXD).
    pub usb_rx: Signal<In, Bit>,
    /// UART to the host (FTDI RXD).
    pub usb_tx: Signal<Out, Bit>,
    /// Status LEDs.
    pub led: Signal<Out, Bits<8>>,
    hasher: Sha1Hasher<L, NB, FB, FBP1>,
    index: IndexOnChip<M, WAB, MAB>,
    uart_rx: UartRx,
    uart_tx: UartTx,
    rst_sync0: DFF<Bit>,
    rst_sync1: DFF<Bit>,
    por_count: DFF<Bits<5>>,
    reset: DFF<Bit>,
    rx_mode: DFF<Bits<2>>,
    rx_count: DFF<Bits<12>>,
    word: DFF<Bits<32>>,
    assembly: DFF<Bits<24>>,
    byte_count: DFF<Bits<2>>,
    word_pending: DFF<Bit>,
    fp_shift: DFF<Bits<160>>,
    fp_read_pending: DFF<Bit>,
    fp_read_tag: DFF<Bits<4>>,
    fp_answer: DFF<Bit>,
    page_tag: DFF<Bits<8>>,
    tx_type: DFF<Bits<8>>,
    tx_index: DFF<Bits<5>>,
    heartbeat: DFF<Bits<26>>,
    results_sent: DFF<Bits<4>>,
    in_flight: DFF<Bit>,
    framing_seen: DFF<Bit>,
    protocol_error: DFF<Bit>,
    tx_data: DFF<Bits<8>>,
    tx_fresh: DFF<Bit>,
    word_taken: DFF<Bit>,
    overrun_check: DFF<Bit>,
    tx_last: Signal<Local, Bits<5>>,
    tx_done: Signal<Local, Bit>,
    tx_accept: Signal<Local, Bit>,
    tx_byte: Signal<Local, Bits<8>>,
}

impl<
        const L: usize,
        const NB: usize,
        const FB: usize,
        const FBP1: usize,
        const M: usize,
        const WAB: usize,
        const MAB: usize,
    > BoardTop<L, NB, FB, FBP1, M, WAB, MAB>
{
    /// The board top of `config`; its hasher and index types must match it.
    pub fn new(config: &Config) -> Self {
        assert_eq!(config.lanes, L, "configuration {} has {} lanes", config.name, config.lanes);
        assert_eq!(config.index_fsms, M, "configuration {} has {} index FSMs", config.name, config.index_fsms);
        assert_eq!(config.index_bucket_bits, MAB, "configuration {} index buckets", config.name);
        // The interim link sends one fingerprint request at a time and reads
        // its fields live while it goes out: one FSM only.
        assert_eq!(M, 1, "the interim board link serves a one-FSM index");
        let cycles_per_bit = config.uart_cycles_per_bit();
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            usb_rx: Default::default(),
            usb_tx: Default::default(),
            led: Default::default(),
            hasher: Default::default(),
            index: IndexOnChip::new(),
            uart_rx: UartRx::new(cycles_per_bit),
            uart_tx: UartTx::new(cycles_per_bit),
            rst_sync0: Default::default(),
            rst_sync1: Default::default(),
            por_count: Default::default(),
            reset: Default::default(),
            rx_mode: Default::default(),
            rx_count: Default::default(),
            word: Default::default(),
            assembly: Default::default(),
            byte_count: Default::default(),
            word_pending: Default::default(),
            fp_shift: Default::default(),
            fp_read_pending: Default::default(),
            fp_read_tag: Default::default(),
            fp_answer: Default::default(),
            page_tag: Default::default(),
            tx_type: Default::default(),
            tx_index: Default::default(),
            heartbeat: Default::default(),
            results_sent: Default::default(),
            in_flight: Default::default(),
            framing_seen: Default::default(),
            protocol_error: Default::default(),
            tx_data: Default::default(),
            tx_fresh: Default::default(),
            word_taken: Default::default(),
            overrun_check: Default::default(),
            tx_last: Default::default(),
            tx_done: Default::default(),
            tx_accept: Default::default(),
            tx_byte: Default::default(),
        }
    }
}

impl<
        const L: usize,
        const NB: usize,
        const FB: usize,
        const FBP1: usize,
        const M: usize,
        const WAB: usize,
        const MAB: usize,
    > Logic for BoardTop<L, NB, FB, FBP1, M, WAB, MAB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rst_sync0,
            rst_sync1,
            por_count,
            reset,
            rx_mode,
            rx_count,
            word,
            assembly,
            byte_count,
            word_pending,
            fp_shift,
            fp_read_pending,
            fp_read_tag,
            fp_answer,
            page_tag,
            tx_type,
            tx_index,
            heartbeat,
            results_sent,
            in_flight,
            framing_seen,
            protocol_error,
            tx_data,
            tx_fresh,
            word_taken,
            overrun_check
        );
        clock!(self, clock, hasher, index, uart_rx, uart_tx);
        // Reset: power-on (flip-flops start at zero) or the button, synchronized.
        self.rst_sync0.d.next = self.rst_n.val();
        self.rst_sync1.d.next = self.rst_sync0.q.val();
        if !self.por_count.q.val().all() {
            self.por_count.d.next = self.por_count.q.val() + 1;
        }
        // Registered: the reset fans out to every flip-flop's enable logic.
        self.reset.d.next = !self.por_count.q.val().all() | !self.rst_sync1.q.val();
        self.hasher.reset.next = self.reset.q.val();
        self.index.reset.next = self.reset.q.val();
        self.uart_rx.reset.next = self.reset.q.val();
        self.uart_tx.reset.next = self.reset.q.val();

        // --- Host to board: messages, page words, fingerprint answers --------
        self.uart_rx.rx.next = self.usb_rx.val();
        self.hasher.word_in.next = self.word.q.val();
        self.hasher.word_valid.next = self.word_pending.q.val();
        if self.word_pending.q.val() & self.hasher.word_ready.val() {
            self.word_pending.d.next = false;
        }
        self.fp_answer.d.next = false;
        self.word_taken.d.next = self.word_pending.q.val() & self.hasher.word_ready.val();
        self.overrun_check.d.next = false;
        if self.overrun_check.q.val() & !self.word_taken.q.val() {
            self.protocol_error.d.next = true;
        }
        if self.uart_rx.valid.val() {
            self.rx_count.d.next = self.rx_count.q.val() + 1;
            if self.rx_mode.q.val() == 0 {
                self.rx_count.d.next = 0.into();
                if self.uart_rx.data.val() == 0x50 {
                    self.rx_mode.d.next = 1.into();
                    self.in_flight.d.next = true;
                } else if self.uart_rx.data.val() == 0x46 {
                    self.rx_mode.d.next = 2.into();
                } else {
                    self.protocol_error.d.next = true;
                }
            } else if self.rx_mode.q.val() == 1 {
                self.assembly.d.next = (self.assembly.q.val() << 8) | bit_cast::<24, 8>(self.uart_rx.data.val());
                self.byte_count.d.next = self.byte_count.q.val() + 1;
                if self.byte_count.q.val() == 3 {
                    self.word.d.next =
                        (bit_cast::<32, 24>(self.assembly.q.val()) << 8) | bit_cast::<32, 8>(self.uart_rx.data.val());
                    self.word_pending.d.next = true;
                    // Overrun: checked on the next clock, against whether the
                    // waiting word was taken on this one (registered, to keep
                    // the hasher's handshake off this path).
                    self.overrun_check.d.next = self.word_pending.q.val();
                }
                if self.rx_count.q.val().all() {
                    self.rx_mode.d.next = 0.into();
                }
            } else {
                self.fp_shift.d.next = (self.fp_shift.q.val() << 8) | bit_cast::<160, 8>(self.uart_rx.data.val());
                if self.rx_count.q.val() == 19 {
                    self.rx_mode.d.next = 0.into();
                    if self.fp_read_pending.q.val() {
                        self.fp_answer.d.next = true;
                        self.fp_read_pending.d.next = false;
                    } else {
                        self.protocol_error.d.next = true;
                    }
                }
            }
        }
        if self.uart_rx.framing_error.val() {
            self.framing_seen.d.next = true;
        }

        // --- Hasher -> index ---------------------------------------------------
        self.index.bloom_enable.next = true;
        self.index.fsm_limit_log2.next = 7.into();
        self.index.cmd_valid.next = self.hasher.digest_valid.val();
        self.hasher.digest_ready.next = self.index.cmd_ready.val();
        self.index.cmd_op.next = 0.into();
        self.index.cmd_fp.next = self.hasher.digest.val();
        self.index.cmd_entry.next = 0.into();
        self.index.cmd_tag.next = self.page_tag.q.val();
        if self.hasher.digest_valid.val() & self.index.cmd_ready.val() {
            self.page_tag.d.next = self.page_tag.q.val() + 1;
        }
        self.index.fp_rsp_valid.next = self.fp_answer.q.val();
        self.index.fp_rsp_tag.next = self.fp_read_tag.q.val();
        self.index.fp_rsp_rdata.next = self.fp_shift.q.val();

        // --- Board to host: fingerprint requests and results -----------------
        self.index.rsp_ready.next = false;
        self.index.fp_req_ready.next = false;
        if self.tx_type.q.val() == 0x52 {
            self.tx_last.next = 5.into();
        } else if self.tx_type.q.val() == 0x51 {
            self.tx_last.next = 2.into();
        } else {
            self.tx_last.next = 22.into();
        }
        self.uart_tx.valid.next = (self.tx_type.q.val() != 0) & self.tx_fresh.q.val();
        self.tx_accept.next = self.uart_tx.valid.val() & self.uart_tx.ready.val();
        self.tx_done.next = self.tx_accept.val() & (self.tx_index.q.val() == self.tx_last.val());
        self.tx_fresh.d.next = self.tx_type.q.val() != 0;
        if self.tx_type.q.val() == 0 {
            self.tx_index.d.next = 0.into();
            if self.index.fp_req_valid.val() {
                if self.index.fp_req_write.val() {
                    self.tx_type.d.next = 0x57.into();
                } else {
                    self.tx_type.d.next = 0x51.into();
                }
            } else if self.index.rsp_valid.val() {
                self.tx_type.d.next = 0x52.into();
            }
        } else if self.tx_accept.val() {
            self.tx_index.d.next = self.tx_index.q.val() + 1;
            self.tx_fresh.d.next = false;
        }
        if self.tx_done.val() {
            self.tx_type.d.next = 0.into();
            if self.tx_type.q.val() == 0x52 {
                self.index.rsp_ready.next = true;
                self.results_sent.d.next = self.results_sent.q.val() + 1;
                self.in_flight.d.next = false;
            } else {
                self.index.fp_req_ready.next = true;
                if self.tx_type.q.val() == 0x51 {
                    self.fp_read_pending.d.next = true;
                    self.fp_read_tag.d.next = self.index.fp_req_tag.val();
                }
            }
        }
        self.tx_byte.next = 0.into();
        match self.tx_index.q.val().index() {
            0 => {
                self.tx_byte.next = self.tx_type.q.val();
            }
            1 => {
                if self.tx_type.q.val() == 0x52 {
                    self.tx_byte.next = bit_cast::<8, 4>(self.index.rsp_status.val());
                } else {
                    self.tx_byte.next = self.index.fp_req_entry.val().get_bits::<8>(8);
                }
            }
            2 => {
                if self.tx_type.q.val() == 0x52 {
                    self.tx_byte.next = self.index.rsp_entry.val().get_bits::<8>(8);
                } else {
                    self.tx_byte.next = self.index.fp_req_entry.val().get_bits::<8>(0);
                }
            }
            3 => {
                if self.tx_type.q.val() == 0x52 {
                    self.tx_byte.next = self.index.rsp_entry.val().get_bits::<8>(0);
                } else {
                    self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(152);
                }
            }
            4 => {
                if self.tx_type.q.val() == 0x52 {
                    self.tx_byte.next = self.index.rsp_refcount.val();
                } else {
                    self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(144);
                }
            }
            5 => {
                if self.tx_type.q.val() == 0x52 {
                    self.tx_byte.next = bit_cast::<8, 4>(self.index.rsp_flags.val());
                } else {
                    self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(136);
                }
            }
            6 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(128);
            }
            7 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(120);
            }
            8 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(112);
            }
            9 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(104);
            }
            10 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(96);
            }
            11 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(88);
            }
            12 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(80);
            }
            13 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(72);
            }
            14 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(64);
            }
            15 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(56);
            }
            16 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(48);
            }
            17 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(40);
            }
            18 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(32);
            }
            19 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(24);
            }
            20 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(16);
            }
            21 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(8);
            }
            22 => {
                self.tx_byte.next = self.index.fp_req_wdata.val().get_bits::<8>(0);
            }
            _ => {}
        }
        // The byte on offer is registered (the 23-way mux would not fit a
        // clock with the UART's load behind it): a byte is offered the clock
        // after its index is steady.
        self.tx_data.d.next = self.tx_byte.val();
        self.uart_tx.data.next = self.tx_data.q.val();
        self.usb_tx.next = self.uart_tx.tx.val();

        self.heartbeat.d.next = self.heartbeat.q.val() + 1;
        self.led.next = (bit_cast::<8, 4>(self.results_sent.q.val()) << 4)
            | (bit_cast::<8, 1>(self.protocol_error.q.val().into()) << 3)
            | (bit_cast::<8, 1>(self.framing_seen.q.val().into()) << 2)
            | (bit_cast::<8, 1>(self.in_flight.q.val().into()) << 1)
            | bit_cast::<8, 1>(self.heartbeat.q.val().get_bit(25).into());

        if self.reset.q.val() {
            self.rx_mode.d.next = 0.into();
            self.word_pending.d.next = false;
            self.byte_count.d.next = 0.into();
            self.fp_read_pending.d.next = false;
            self.fp_answer.d.next = false;
            self.overrun_check.d.next = false;
            self.page_tag.d.next = 0.into();
            self.tx_type.d.next = 0.into();
            self.in_flight.d.next = false;
            self.framing_seen.d.next = false;
            self.protocol_error.d.next = false;
            self.results_sent.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{board_verilog, CU};

    #[test]
    fn cu_board_top_is_synthesizable() {
        let verilog = board_verilog(&CU).expect("the cu index is on chip");
        let stats = ditto_synth::check_synthesizable(&verilog, "top").unwrap_or_else(|e| panic!("{e}"));
        // The engine alone has about 1,050 flip-flops and the index about 750:
        // none of it may be optimized away.
        assert!(stats.luts > 2_500 && stats.dffs > 1_800, "the engine and the index survive synthesis: {stats:?}");
        assert_eq!(stats.ebrs, 25, "the index table: 20 EBRs of ways, 5 of bucket metadata: {stats:?}");
    }
}
