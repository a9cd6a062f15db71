//! 8N1 UART receiver and transmitter with a fixed bit period.
//!
//! `UartRx`: `rx` (in, idle high, asynchronous: synchronized here) ->
//! `data`/`valid` (out, `valid` high for one cycle per byte received with a
//! good stop bit) and `framing_error` (out, one-cycle pulse when a stop bit
//! was low: the byte is dropped). Bits are sampled mid-period, LSB first.
//!
//! `UartTx`: `data`/`valid`/`ready` (a byte moves when `valid && ready`) ->
//! `tx` (out, idle high): start bit, eight data bits LSB first, one stop bit.
//!
//! Both take the bit period in clock cycles as a constructor argument
//! (clock frequency / baud rate), checked to be 4..=65,535. Their bit timers
//! count up from zero and are only ever cleared, never loaded with a
//! constant: loading constants makes Yosys mix set and reset flip-flops along
//! the counter, which splits its carry chain on the iCE40 and costs 10 ns.
use rust_hdl::prelude::*;

fn checked_period(cycles_per_bit: u32) -> u64 {
    assert!((4..=65_535).contains(&cycles_per_bit), "UART bit period {cycles_per_bit} cycles is out of range");
    cycles_per_bit as u64
}

#[derive(LogicBlock)]
pub struct UartRx {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Serial input, idle high.
    pub rx: Signal<In, Bit>,
    /// Received byte, valid while `valid`.
    pub data: Signal<Out, Bits<8>>,
    /// One-cycle pulse: `data` holds a new byte.
    pub valid: Signal<Out, Bit>,
    /// One-cycle pulse: a byte's stop bit was low; the byte was dropped.
    pub framing_error: Signal<Out, Bit>,
    sync0: DFF<Bit>,
    sync1: DFF<Bit>,
    busy: DFF<Bit>,
    timer: DFF<Bits<16>>,
    bit_index: DFF<Bits<4>>,
    shift: DFF<Bits<8>>,
    out_valid: DFF<Bit>,
    out_error: DFF<Bit>,
    /// The timer's value a clock before a bit period (a half period) ends.
    period_before: Constant<Bits<16>>,
    half_before: Constant<Bits<16>>,
    half: DFF<Bit>,
    /// The period (or half period) ends on this clock: compared a clock
    /// ahead, so the timer's compare is not on the path to its own reset.
    tick: DFF<Bit>,
}

impl UartRx {
    pub fn new(cycles_per_bit: u32) -> Self {
        let period = checked_period(cycles_per_bit);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: Default::default(),
            data: Default::default(),
            valid: Default::default(),
            framing_error: Default::default(),
            sync0: Default::default(),
            sync1: Default::default(),
            busy: Default::default(),
            timer: Default::default(),
            bit_index: Default::default(),
            shift: Default::default(),
            out_valid: Default::default(),
            out_error: Default::default(),
            period_before: Constant::new(bits::<16>(period - 2)),
            half_before: Constant::new(bits::<16>(period / 2 - 2)),
            half: Default::default(),
            tick: Default::default(),
        }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sync0, sync1, busy, timer, half, bit_index, shift, out_valid, out_error, tick);
        self.timer.d.next = self.timer.q.val() + 1;
        self.tick.d.next = self.busy.q.val()
            & !self.tick.q.val()
            & ((self.half.q.val() & (self.timer.q.val() == self.half_before.val()))
                | (!self.half.q.val() & (self.timer.q.val() == self.period_before.val())));
        self.sync0.d.next = self.rx.val();
        self.sync1.d.next = self.sync0.q.val();
        self.data.next = self.shift.q.val();
        self.valid.next = self.out_valid.q.val();
        self.framing_error.next = self.out_error.q.val();
        self.out_valid.d.next = false;
        self.out_error.d.next = false;
        if !self.busy.q.val() {
            // Wait for a start bit; then sample in the middle of each bit.
            if !self.sync1.q.val() {
                self.busy.d.next = true;
                self.half.d.next = true;
                self.bit_index.d.next = 0.into();
            }
            self.timer.d.next = 0.into();
        } else if self.tick.q.val() {
            self.timer.d.next = 0.into();
            self.half.d.next = false;
            self.bit_index.d.next = self.bit_index.q.val() + 1;
            if self.bit_index.q.val() == 0 {
                // Middle of the start bit: a glitch shorter than half a bit is ignored.
                if self.sync1.q.val() {
                    self.busy.d.next = false;
                }
            } else if self.bit_index.q.val() < 9 {
                self.shift.d.next = (self.shift.q.val() >> 1) | (bit_cast::<8, 1>(self.sync1.q.val().into()) << 7);
            } else {
                self.busy.d.next = false;
                self.out_valid.d.next = self.sync1.q.val();
                self.out_error.d.next = !self.sync1.q.val();
            }
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.out_valid.d.next = false;
            self.out_error.d.next = false;
            self.tick.d.next = false;
        }
    }
}

#[derive(LogicBlock)]
pub struct UartTx {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Byte to send.
    pub data: Signal<In, Bits<8>>,
    /// `data` holds a byte to send.
    pub valid: Signal<In, Bit>,
    /// The transmitter takes `data` on this clock if `valid`.
    pub ready: Signal<Out, Bit>,
    /// Serial output, idle high.
    pub tx: Signal<Out, Bit>,
    busy: DFF<Bit>,
    timer: DFF<Bits<16>>,
    bit_index: DFF<Bits<4>>,
    frame: DFF<Bits<10>>,
    line: DFF<Bit>,
    period: Constant<Bits<16>>,
}

impl UartTx {
    pub fn new(cycles_per_bit: u32) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data: Default::default(),
            valid: Default::default(),
            ready: Default::default(),
            tx: Default::default(),
            busy: Default::default(),
            timer: Default::default(),
            bit_index: Default::default(),
            frame: Default::default(),
            line: Default::default(),
            period: Constant::new(bits::<16>(checked_period(cycles_per_bit) - 1)),
        }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, timer, bit_index, frame, line);
        self.timer.d.next = self.timer.q.val() + 1;
        // `line` holds the inverted line level so that its power-up value (0) is idle.
        self.tx.next = !self.line.q.val();
        self.ready.next = !self.busy.q.val() & !self.reset.val();
        if !self.busy.q.val() {
            if self.valid.val() & !self.reset.val() {
                self.busy.d.next = true;
                // Stop bit, data LSB first, start bit (sent first).
                self.frame.d.next = bits::<10>(0x200) | (bit_cast::<10, 8>(self.data.val()) << 1);
                self.timer.d.next = 0.into();
                self.bit_index.d.next = 0.into();
                self.line.d.next = true;
            }
        } else if self.timer.q.val() == self.period.val() {
            self.timer.d.next = 0.into();
            self.bit_index.d.next = self.bit_index.q.val() + 1;
            self.frame.d.next = self.frame.q.val() >> 1;
            if self.bit_index.q.val() == 9 {
                self.busy.d.next = false;
                self.line.d.next = false;
            } else {
                self.line.d.next = !self.frame.q.val().get_bit(1);
            }
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.line.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uart_rx_is_synthesizable() {
        let stats = ditto_synth::check_synthesizable(&crate::verilog::top_verilog(UartRx::new(100)), "top")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(stats.dffs > 20, "{stats:?}");
    }

    #[test]
    fn uart_tx_is_synthesizable() {
        let stats = ditto_synth::check_synthesizable(&crate::verilog::top_verilog(UartTx::new(100)), "top")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(stats.dffs > 20, "{stats:?}");
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn uart_bit_period_below_four_cycles_is_rejected() {
        let _ = UartTx::new(3);
    }
}
