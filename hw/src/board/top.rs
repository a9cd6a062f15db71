//! `BoardTop<L, NB, FB, FBP1>`: a configuration's hasher wrapped for a board with a
//! USB UART (the Alchitry Cu: `constraints/alchitry-cu.pcf`).
//!
//! Ports (the names the pin file uses):
//! - `clock`: the board oscillator (100 MHz on the Cu).
//! - `rst_n`: reset button, active low, asynchronous (synchronized here). A
//!   power-on reset is generated as well, so the button is never required.
//! - `usb_rx` (in) / `usb_tx` (out): the FTDI UART, 8N1 at the configuration's
//!   `uart_baud` (1,000,000 baud for `cu`).
//! - `led[7:0]`: `led[0]` heartbeat, `led[1]` a page is in flight, `led[2]`
//!   sticky UART framing error, `led[3]` sticky input overflow, `led[7:4]` the
//!   low four bits of the count of digests sent.
//!
//! Link protocol (interim, until the dedup core's framed protocol replaces it):
//! the host sends pages as raw bytes, 4,096 per page; the board answers each
//! page with its 20-byte SHA-1 digest, first byte first. Four received bytes
//! make one big-endian word for the hasher; bytes are assembled apart from the
//! word on offer, which is replaced only when the next word is complete. If
//! the previous word is still waiting then, it is dropped and `led[3]` lights:
//! at 1 Mbaud a word takes 4,000 cycles to arrive, while the hasher takes one
//! within 80 cycles, or within about 19,000 while the previous digest's 20
//! bytes go out, which a 4 KiB page (about 4 M cycles) always outlasts. The
//! link has no framing: a lost or corrupted byte misaligns the words that
//! follow until reset (the framed protocol of issue #5 resynchronises).
use super::uart::{UartRx, UartTx};
use crate::sha1::Sha1Hasher;
use crate::Config;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BoardTop<const L: usize, const NB: usize, const FB: usize, const FBP1: usize> {
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
    uart_rx: UartRx,
    uart_tx: UartTx,
    rst_sync0: DFF<Bit>,
    rst_sync1: DFF<Bit>,
    por_count: DFF<Bits<5>>,
    reset: DFF<Bit>,
    word: DFF<Bits<32>>,
    assembly: DFF<Bits<24>>,
    byte_count: DFF<Bits<2>>,
    word_pending: DFF<Bit>,
    digest_byte: DFF<Bits<5>>,
    heartbeat: DFF<Bits<26>>,
    digests_sent: DFF<Bits<4>>,
    in_flight: DFF<Bit>,
    framing_seen: DFF<Bit>,
    overflow_seen: DFF<Bit>,
}

impl<const L: usize, const NB: usize, const FB: usize, const FBP1: usize> BoardTop<L, NB, FB, FBP1> {
    /// The board top of `config`; its hasher type must match the configuration.
    pub fn new(config: &Config) -> Self {
        assert_eq!(config.lanes, L, "configuration {} has {} lanes", config.name, config.lanes);
        let cycles_per_bit = config.uart_cycles_per_bit();
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            usb_rx: Default::default(),
            usb_tx: Default::default(),
            led: Default::default(),
            hasher: Default::default(),
            uart_rx: UartRx::new(cycles_per_bit),
            uart_tx: UartTx::new(cycles_per_bit),
            rst_sync0: Default::default(),
            rst_sync1: Default::default(),
            por_count: Default::default(),
            reset: Default::default(),
            word: Default::default(),
            assembly: Default::default(),
            byte_count: Default::default(),
            word_pending: Default::default(),
            digest_byte: Default::default(),
            heartbeat: Default::default(),
            digests_sent: Default::default(),
            in_flight: Default::default(),
            framing_seen: Default::default(),
            overflow_seen: Default::default(),
        }
    }
}

impl<const L: usize, const NB: usize, const FB: usize, const FBP1: usize> Logic for BoardTop<L, NB, FB, FBP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rst_sync0, rst_sync1, por_count, reset, word, assembly, byte_count, word_pending,
            digest_byte, heartbeat, digests_sent, in_flight, framing_seen, overflow_seen
        );
        clock!(self, clock, hasher, uart_rx, uart_tx);
        // Reset: power-on (flip-flops start at zero) or the button, synchronized.
        self.rst_sync0.d.next = self.rst_n.val();
        self.rst_sync1.d.next = self.rst_sync0.q.val();
        if !self.por_count.q.val().all() {
            self.por_count.d.next = self.por_count.q.val() + 1;
        }
        // Registered: the reset fans out to every flip-flop's enable logic.
        self.reset.d.next = !self.por_count.q.val().all() | !self.rst_sync1.q.val();
        self.hasher.reset.next = self.reset.q.val();
        self.uart_rx.reset.next = self.reset.q.val();
        self.uart_tx.reset.next = self.reset.q.val();

        // Bytes in -> big-endian words -> hasher.
        self.uart_rx.rx.next = self.usb_rx.val();
        self.hasher.word_in.next = self.word.q.val();
        self.hasher.word_valid.next = self.word_pending.q.val();
        if self.word_pending.q.val() & self.hasher.word_ready.val() {
            self.word_pending.d.next = false;
        }
        if self.uart_rx.valid.val() {
            self.assembly.d.next = (self.assembly.q.val() << 8) | bit_cast::<24, 8>(self.uart_rx.data.val());
            self.byte_count.d.next = self.byte_count.q.val() + 1;
            if self.byte_count.q.val() == 3 {
                self.word.d.next = (bit_cast::<32, 24>(self.assembly.q.val()) << 8)
                    | bit_cast::<32, 8>(self.uart_rx.data.val());
                self.word_pending.d.next = true;
                self.in_flight.d.next = true;
                if self.word_pending.q.val() & !self.hasher.word_ready.val() {
                    self.overflow_seen.d.next = true;
                }
            }
        }
        if self.uart_rx.framing_error.val() {
            self.framing_seen.d.next = true;
        }

        // Digest -> 20 bytes out, first byte first.
        self.uart_tx.valid.next = self.hasher.digest_valid.val();
        self.hasher.digest_ready.next = false;
        self.uart_tx.data.next = 0.into();
        match self.digest_byte.q.val().index() {
            0 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(152);
            }
            1 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(144);
            }
            2 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(136);
            }
            3 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(128);
            }
            4 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(120);
            }
            5 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(112);
            }
            6 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(104);
            }
            7 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(96);
            }
            8 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(88);
            }
            9 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(80);
            }
            10 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(72);
            }
            11 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(64);
            }
            12 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(56);
            }
            13 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(48);
            }
            14 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(40);
            }
            15 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(32);
            }
            16 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(24);
            }
            17 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(16);
            }
            18 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(8);
            }
            19 => {
                self.uart_tx.data.next = self.hasher.digest.val().get_bits::<8>(0);
            }
            _ => {}
        }
        if self.hasher.digest_valid.val() & self.uart_tx.ready.val() {
            if self.digest_byte.q.val() == 19 {
                self.digest_byte.d.next = 0.into();
                self.hasher.digest_ready.next = true;
                self.digests_sent.d.next = self.digests_sent.q.val() + 1;
                self.in_flight.d.next = false;
            } else {
                self.digest_byte.d.next = self.digest_byte.q.val() + 1;
            }
        }
        self.usb_tx.next = self.uart_tx.tx.val();

        self.heartbeat.d.next = self.heartbeat.q.val() + 1;
        self.led.next = (bit_cast::<8, 4>(self.digests_sent.q.val()) << 4)
            | (bit_cast::<8, 1>(self.overflow_seen.q.val().into()) << 3)
            | (bit_cast::<8, 1>(self.framing_seen.q.val().into()) << 2)
            | (bit_cast::<8, 1>(self.in_flight.q.val().into()) << 1)
            | bit_cast::<8, 1>(self.heartbeat.q.val().get_bit(25).into());

        if self.reset.q.val() {
            self.word_pending.d.next = false;
            self.byte_count.d.next = 0.into();
            self.digest_byte.d.next = 0.into();
            self.in_flight.d.next = false;
            self.framing_seen.d.next = false;
            self.overflow_seen.d.next = false;
            self.digests_sent.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{board_verilog, CU};

    #[test]
    fn cu_board_top_is_synthesizable() {
        let stats = ditto_synth::check_synthesizable(&board_verilog(&CU), "top").unwrap_or_else(|e| panic!("{e}"));
        // The engine alone has about 1,050 flip-flops: none of it may be optimized away.
        assert!(stats.luts > 1_000 && stats.dffs > 1_000, "the whole engine survives synthesis: {stats:?}");
        assert_eq!(stats.ebrs, 0, "the cu board top leaves every block RAM free: {stats:?}");
    }
}
