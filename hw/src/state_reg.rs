//! `OneHotState<T>`: a state machine's state register, whose Verilog asks
//! synthesis to encode the states one-hot.
//!
//! rust-hdl's `DFF` gives its register an `initial` value, and Yosys does
//! not extract a register with an initial value as a state machine: a
//! machine of dozens of states then stays binary-coded, and every state's
//! decode is a wide comparator in front of the logic it enables. This
//! register has no initial value and is marked `fsm_encoding = "one-hot"`,
//! so Yosys recodes it and each state's decode is one flip-flop.
//!
//! Ports (those of `DFF`):
//! - `d` is taken at each rising edge of `clock`; `q` shows it from then.
//! - `q` is undefined until the first edge that takes a defined `d`: the
//!   machine must be reset before it is used. (Every user resets; on the
//!   boards, flip-flops start at zero and a power-on reset follows.)
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct OneHotState<T: Synth> {
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    pub clock: Signal<In, Clock>,
}

impl<T: Synth> Logic for OneHotState<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = self.d.val();
        }
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* fsm_encoding = \"one-hot\" *) reg [{top_bit}:0] state;

always @(posedge clock) begin
   state <= d;
end

always @(*) begin
   q = state;
end
",
            top_bit = T::BITS - 1,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
    enum Step {
        Rest,
        One,
        Two,
        Three,
        Four,
        Five,
        Six,
        Seven,
    }

    /// A machine of eight states that branches on two inputs.
    #[derive(LogicBlock, Default)]
    struct Walker {
        clock: Signal<In, Clock>,
        reset: Signal<In, Bit>,
        a: Signal<In, Bit>,
        b: Signal<In, Bit>,
        last: Signal<Out, Bit>,
        step: OneHotState<Step>,
    }

    // `#[hdl_gen]` cannot translate match guards, so each arm keeps its `if`.
    #[allow(clippy::collapsible_match)]
    impl Logic for Walker {
        #[hdl_gen]
        fn update(&mut self) {
            self.step.clock.next = self.clock.val();
            self.step.d.next = self.step.q.val();
            self.last.next = self.step.q.val() == Step::Seven;
            match self.step.q.val() {
                Step::Rest => {
                    if self.a.val() {
                        self.step.d.next = Step::One;
                    }
                }
                Step::One => {
                    if self.b.val() {
                        self.step.d.next = Step::Two;
                    } else if self.a.val() {
                        self.step.d.next = Step::Five;
                    }
                }
                Step::Two => {
                    if self.a.val() & self.b.val() {
                        self.step.d.next = Step::Three;
                    }
                }
                Step::Three => {
                    if !self.a.val() {
                        self.step.d.next = Step::Four;
                    }
                }
                Step::Four => {
                    if self.b.val() {
                        self.step.d.next = Step::Seven;
                    }
                }
                Step::Five => {
                    if self.a.val() {
                        self.step.d.next = Step::Six;
                    } else {
                        self.step.d.next = Step::Rest;
                    }
                }
                Step::Six => self.step.d.next = Step::Seven,
                Step::Seven => {
                    if self.a.val() | self.b.val() {
                        self.step.d.next = Step::Rest;
                    }
                }
                _ => {}
            }
            if self.reset.val() {
                self.step.d.next = Step::Rest;
            }
        }
    }

    /// Eight states, binary-coded in three bits, come out of Yosys as
    /// eight flip-flops: the register was recoded one-hot (a `DFF` stays
    /// at three).
    #[test]
    fn synthesizes_one_flip_flop_per_state() {
        let verilog = crate::verilog::top_verilog(Walker::default());
        assert!(verilog.contains("(* fsm_encoding = \"one-hot\" *)"), "{verilog}");
        let stats = ditto_synth::check_synthesizable(&verilog, "top").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.dffs, 8, "{stats:?}");
    }
}
