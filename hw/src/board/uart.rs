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
//! Each is a state machine of named states (`UartRxState`, `UartTxState`)
//! with a bit counter and a bit timer beside it.
//!
//! Both take the bit period in clock cycles as a constructor argument
//! (clock frequency / baud rate), checked to be 4..=65,535. Their bit timers
//! count up from zero and are only ever cleared, never loaded with a
//! constant: loading constants makes Yosys mix set and reset flip-flops along
//! the counter, which splits its carry chain on the iCE40 and costs 10 ns.
//! A timer is masked to the bits its period needs (7 at 100 clocks per bit):
//! the bits above are constant zero, and synthesis drops them.
use rust_hdl::prelude::*;

fn checked_period(cycles_per_bit: u32) -> u64 {
    assert!((4..=65_535).contains(&cycles_per_bit), "UART bit period {cycles_per_bit} cycles is out of range");
    cycles_per_bit as u64
}

/// The bits a bit timer of `period` clocks uses (it counts 0 to `period - 1`).
fn timer_mask(period: u64) -> Constant<Bits<16>> {
    Constant::new(bits::<16>(period.next_power_of_two() - 1))
}

/// Where the receiver is in a byte's frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum UartRxState {
    /// Waiting for the line to fall: the start of a start bit.
    Idle,
    /// Half a bit period into the start bit, it is checked to be still low.
    StartBit,
    /// Sampling the eight data bits mid-period (`bit_index` 1 to 8).
    DataBits,
    /// Sampling the stop bit: high delivers the byte, low is a framing error.
    StopBit,
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
    state: DFF<UartRxState>,
    timer: DFF<Bits<16>>,
    bit_index: DFF<Bits<4>>,
    shift: DFF<Bits<8>>,
    out_valid: DFF<Bit>,
    out_error: DFF<Bit>,
    /// The timer's value a clock before a bit period (a half period) ends.
    period_before: Constant<Bits<16>>,
    half_before: Constant<Bits<16>>,
    /// The timer's live bits.
    timer_mask: Constant<Bits<16>>,
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
            state: Default::default(),
            timer: Default::default(),
            bit_index: Default::default(),
            shift: Default::default(),
            out_valid: Default::default(),
            out_error: Default::default(),
            period_before: Constant::new(bits::<16>(period - 2)),
            half_before: Constant::new(bits::<16>(period / 2 - 2)),
            timer_mask: timer_mask(period),
            tick: Default::default(),
        }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sync0, sync1, state, timer, bit_index, shift, out_valid, out_error, tick);
        self.timer.d.next = (self.timer.q.val() + 1) & self.timer_mask.val();
        self.tick.d.next = false;
        self.sync0.d.next = self.rx.val();
        self.sync1.d.next = self.sync0.q.val();
        self.data.next = self.shift.q.val();
        self.valid.next = self.out_valid.q.val();
        self.framing_error.next = self.out_error.q.val();
        self.out_valid.d.next = false;
        self.out_error.d.next = false;
        match self.state.q.val() {
            UartRxState::Idle => {
                self.timer.d.next = 0.into();
                if !self.sync1.q.val() {
                    self.state.d.next = UartRxState::StartBit;
                    self.bit_index.d.next = 0.into();
                }
            }
            UartRxState::StartBit => {
                self.tick.d.next = !self.tick.q.val() & (self.timer.q.val() == self.half_before.val());
                if self.tick.q.val() {
                    self.timer.d.next = 0.into();
                    self.bit_index.d.next = 1.into();
                    // A glitch shorter than half a bit is ignored.
                    if self.sync1.q.val() {
                        self.state.d.next = UartRxState::Idle;
                    } else {
                        self.state.d.next = UartRxState::DataBits;
                    }
                }
            }
            UartRxState::DataBits => {
                self.tick.d.next = !self.tick.q.val() & (self.timer.q.val() == self.period_before.val());
                if self.tick.q.val() {
                    self.timer.d.next = 0.into();
                    self.bit_index.d.next = self.bit_index.q.val() + 1;
                    self.shift.d.next = (self.shift.q.val() >> 1) | (bit_cast::<8, 1>(self.sync1.q.val().into()) << 7);
                    if self.bit_index.q.val() == 8 {
                        self.state.d.next = UartRxState::StopBit;
                    }
                }
            }
            UartRxState::StopBit => {
                self.tick.d.next = !self.tick.q.val() & (self.timer.q.val() == self.period_before.val());
                if self.tick.q.val() {
                    self.timer.d.next = 0.into();
                    self.bit_index.d.next = self.bit_index.q.val() + 1;
                    self.state.d.next = UartRxState::Idle;
                    self.out_valid.d.next = self.sync1.q.val();
                    self.out_error.d.next = !self.sync1.q.val();
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = UartRxState::Idle;
            self.out_valid.d.next = false;
            self.out_error.d.next = false;
            self.tick.d.next = false;
        }
    }
}

/// Whether the transmitter has a frame on the line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum UartTxState {
    /// The line is idle (high), and a byte may be taken.
    Idle,
    /// Shifting out the frame: start bit, eight data bits, stop bit
    /// (`bit_index` 0 to 9).
    Sending,
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
    state: DFF<UartTxState>,
    timer: DFF<Bits<16>>,
    bit_index: DFF<Bits<4>>,
    frame: DFF<Bits<10>>,
    line: DFF<Bit>,
    period: Constant<Bits<16>>,
    /// The timer's live bits.
    timer_mask: Constant<Bits<16>>,
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
            state: Default::default(),
            timer: Default::default(),
            bit_index: Default::default(),
            frame: Default::default(),
            line: Default::default(),
            period: Constant::new(bits::<16>(checked_period(cycles_per_bit) - 1)),
            timer_mask: timer_mask(checked_period(cycles_per_bit)),
        }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, timer, bit_index, frame, line);
        self.timer.d.next = (self.timer.q.val() + 1) & self.timer_mask.val();
        // `line` holds the inverted line level so that its power-up value (0) is idle.
        self.tx.next = !self.line.q.val();
        self.ready.next = (self.state.q.val() == UartTxState::Idle) & !self.reset.val();
        match self.state.q.val() {
            UartTxState::Idle => {
                if self.valid.val() & !self.reset.val() {
                    self.state.d.next = UartTxState::Sending;
                    // Stop bit, data LSB first, start bit (sent first).
                    self.frame.d.next = bits::<10>(0x200) | (bit_cast::<10, 8>(self.data.val()) << 1);
                    self.timer.d.next = 0.into();
                    self.bit_index.d.next = 0.into();
                    self.line.d.next = true;
                }
            }
            UartTxState::Sending => {
                if self.timer.q.val() == self.period.val() {
                    self.timer.d.next = 0.into();
                    self.bit_index.d.next = self.bit_index.q.val() + 1;
                    self.frame.d.next = self.frame.q.val() >> 1;
                    if self.bit_index.q.val() == 9 {
                        self.state.d.next = UartTxState::Idle;
                        self.line.d.next = false;
                    } else {
                        self.line.d.next = !self.frame.q.val().get_bit(1);
                    }
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = UartTxState::Idle;
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
