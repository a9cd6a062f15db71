//! `RequestDecoder`: what a whole frame from the host asks of the board. It
//! reads the frame the receive framer holds ([`super::FrameReceiver`]) and
//! the board's state, and decides: run a command on the core, answer it
//! here, send the last response again, complete the request under way, or
//! reject the frame with an `E`. It also names the command's fields.
//!
//! Ports:
//! - The frame, as [`super::FrameReceiver`] holds it: `done` and `good`
//!   (one clock), `tag`, `payload` (the 24-byte command, its last byte
//!   lowest), `page_frame`, and the kind's flags `is_command`, `is_again`,
//!   `is_fp_data`, `is_mem_data`, `is_ack`. The payload, the tag and the
//!   page flag hold from three clocks before `done` until the next frame's
//!   header is under way: the decision is made from registers that follow
//!   them (the payload is complete four bytes, the CRC's, before the frame
//!   ends, and a UART's bytes are many clocks apart).
//! - The board's state: `core_busy` (a command is being served),
//!   `response_pending` (a response waits to go out), `page_open` (the
//!   frame's page went into the lane), `answered` and `answered_tag` (a
//!   response was given, and its tag), `request` and `request_tag` (the
//!   request to the host under way and its sequence tag), `request_sending`
//!   (that request's frame is on its way out). A command is refused as
//!   busy from their values a clock before `done`: a change on that clock
//!   (the core's response arriving) can only refuse a command that the live
//!   values would have run, never run one they would refuse.
//! - `counters`: the index's counters, read by `STATS` selectors
//!   [`INDEX_STATS_BASE`] to [`INDEX_STATS_BASE`]` + 5`.
//! - The command's fields, wires from the payload: `op` (the core's
//!   opcode), `more` ([`super::protocol::MORE`]), `lpa`, `fp`.
//! - Decisions, each for the one clock of `done`:
//!   - `reject` with `reject_code`: an `E` frame, `CHECKSUM` for a bad CRC,
//!     or `BUSY` for a command that came while one is served or its
//!     response waits, or whose page did not go into the lane;
//!   - `drop_page`: the frame's page (if it took one) is not to be claimed;
//!   - `run`: the core takes the command;
//!   - `resend`: the last response goes out again (a command with its tag,
//!     or `A` when there is a response and no command is being served).
//! - `answer_here`, a clock after its decision: the board answers the
//!   command itself, with `answer_status` and `answer_value`
//!   (`ErrMalformed` for an opcode the core does not take or a page where
//!   it does not belong; `Done` with the counter for an index `STATS`).
//! - `complete`, a clock after `done`: the frame answers the request under
//!   way (`F` a fingerprint read, `D` a memory read, `K` a write or a
//!   relocation, with the request's tag, while it is not being resent).
use super::frame_tx::HostRequest;
use super::protocol::{error, INDEX_STATS_BASE};
use crate::ftl::{Op, Status};
use crate::logic_block;
use crate::ports::IndexCountersSink;
use rust_hdl::prelude::*;

// The index `STATS` decode below reads selectors 12..=17 from their bits.
const _: () = assert!(INDEX_STATS_BASE == 12, "the index STATS decode is written for selectors 12..=17");

logic_block! {
    #[derive(LogicBlock)]
    pub struct RequestDecoder {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, Bit>,

        pub done: Signal<In, Bit>,
        pub good: Signal<In, Bit>,
        pub tag: Signal<In, Bits<8>>,
        pub payload: Signal<In, Bits<192>>,
        pub page_frame: Signal<In, Bit>,
        pub is_command: Signal<In, Bit>,
        pub is_again: Signal<In, Bit>,
        pub is_fp_data: Signal<In, Bit>,
        pub is_mem_data: Signal<In, Bit>,
        pub is_ack: Signal<In, Bit>,
        pub core_busy: Signal<In, Bit>,
        pub response_pending: Signal<In, Bit>,
        pub page_open: Signal<In, Bit>,
        pub answered: Signal<In, Bit>,
        pub answered_tag: Signal<In, Bits<8>>,
        pub request: Signal<In, HostRequest>,
        pub request_tag: Signal<In, Bits<8>>,
        pub request_sending: Signal<In, Bit>,
        pub counters: IndexCountersSink,

        pub op: Signal<Out, Bits<3>>,
        pub more: Signal<Out, Bit>,
        pub lpa: Signal<Out, Bits<24>>,
        pub fp: Signal<Out, Bits<160>>,
        pub reject: Signal<Out, Bit>,
        pub reject_code: Signal<Out, Bits<8>>,
        pub drop_page: Signal<Out, Bit>,
        pub run: Signal<Out, Bit>,
        pub resend: Signal<Out, Bit>,
        pub answer_here: Signal<Out, Bit>,
        pub answer_status: Signal<Out, Bits<4>>,
        pub answer_value: Signal<Out, Bits<32>>,
        pub complete: Signal<Out, Bit>,

        /// The command is not one the core takes (`ErrMalformed`).
        malformed: DFF<Bit>,
        /// The command is `STATS` of an index counter (answered here).
        index_stats: DFF<Bit>,
        /// The LPA field's bits 23..5 are all zero (a clock ahead of
        /// `index_stats`, which needs bits 4..0 in 12..17 as well).
        lpa_hi_zero: DFF<Bit>,
        /// The low bits of a `STATS` selector of an index counter.
        counter_sel: DFF<Bits<5>>,
        /// The frame's tag is the last response's.
        tag_again: DFF<Bit>,
        /// The frame's tag is the request's.
        tag_answers: DFF<Bit>,
        /// Answered here on the last clock.
        answer_next: DFF<Bit>,
        answers_request: DFF<Bit>,
        /// The command would be refused as busy; or, with nothing else
        /// against it, run (a clock ahead of `done`, so the decision to run
        /// is one gate from flip-flops: the core's command slot waits on it).
        busy_verdict: DFF<Bit>,
        run_verdict: DFF<Bit>,
        /// Refused as busy, from the live state.
        refuse_busy: Signal<Local, Bit>,
        /// The whole op byte (its bit 7 is `more`).
        op_byte: Signal<Local, Bits<8>>,
        /// The frame answers the request under way, if its kind does.
        answer_ok: Signal<Local, Bit>,
    }
    constants {
        k_stats_op: Constant<Bits<7>> = Constant::new(bits(Op::Stats as u64)),
        k_done: Constant<Bits<4>> = Constant::new(bits(Status::Done as u64)),
        k_malformed: Constant<Bits<4>> = Constant::new(bits(Status::ErrMalformed as u64)),
        k_checksum: Constant<Bits<8>> = Constant::new(bits(error::CHECKSUM as u64)),
        k_busy: Constant<Bits<8>> = Constant::new(bits(error::BUSY as u64)),
        k_commands: Constant<Bits<5>> = Constant::new(bits(INDEX_STATS_BASE as u64)),
        k_bloom_negatives: Constant<Bits<5>> = Constant::new(bits(INDEX_STATS_BASE as u64 + 1)),
        k_false_positives: Constant<Bits<5>> = Constant::new(bits(INDEX_STATS_BASE as u64 + 2)),
        k_rebuilds: Constant<Bits<5>> = Constant::new(bits(INDEX_STATS_BASE as u64 + 3)),
        k_signature_misses: Constant<Bits<5>> = Constant::new(bits(INDEX_STATS_BASE as u64 + 4)),
        k_entries_used: Constant<Bits<5>> = Constant::new(bits(INDEX_STATS_BASE as u64 + 5)),
    }
}

impl Logic for RequestDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            malformed,
            index_stats,
            lpa_hi_zero,
            counter_sel,
            tag_again,
            tag_answers,
            answer_next,
            answers_request,
            busy_verdict,
            run_verdict
        );
        // The command's fields: `op lpa[3] fp[20]`.
        self.op_byte.next = self.payload.val().get_bits::<8>(184);
        self.op.next = self.payload.val().get_bits::<3>(184);
        self.more.next = self.op_byte.val().get_bit(7);
        self.lpa.next = self.payload.val().get_bits::<24>(160);
        self.fp.next = self.payload.val().get_bits::<160>(0);

        // What a command asks for, decided from its payload (registered, in
        // two steps). Opcodes 1..7 from bits (no comparator): `WRITE` (0)
        // comes with a page, every other op without one. Index `STATS`
        // (12..17) from the LPA field's zero top and its low five bits.
        self.malformed.d.next = !(((self.op_byte.val().get_bits::<7>(0) == 0) & self.page_frame.val())
            | ((self.op_byte.val().get_bits::<4>(3) == 0)
                & (self.op_byte.val().get_bits::<3>(0) != 0)
                & !self.page_frame.val()));
        self.lpa_hi_zero.d.next = self.lpa.val().get_bits::<19>(5) == 0;
        self.index_stats.d.next = (self.op_byte.val().get_bits::<7>(0) == self.k_stats_op.val())
            & self.lpa_hi_zero.q.val()
            & ((self.lpa.val().get_bits::<3>(2) == 3) | (self.lpa.val().get_bits::<4>(1) == 8));
        self.counter_sel.d.next = self.lpa.val().get_bits::<5>(0);
        self.tag_again.d.next = self.answered.val() & (self.tag.val() == self.answered_tag.val());
        self.tag_answers.d.next = self.tag.val() == self.request_tag.val();
        self.refuse_busy.next =
            self.core_busy.val() | self.response_pending.val() | (self.page_frame.val() & !self.page_open.val());
        self.busy_verdict.d.next = self.refuse_busy.val();
        self.run_verdict.d.next =
            !self.refuse_busy.val() & !self.tag_again.q.val() & !self.malformed.q.val() & !self.index_stats.q.val();

        // The answer given here, a clock after it is decided (from what
        // decided it, which holds until the next frame's payload).
        self.answer_here.next = self.answer_next.q.val();
        if self.malformed.q.val() {
            self.answer_status.next = self.k_malformed.val();
            self.answer_value.next = 0.into();
        } else {
            self.answer_status.next = self.k_done.val();
            self.answer_value.next = 0.into();
            if self.counter_sel.q.val() == self.k_commands.val() {
                self.answer_value.next = self.counters.commands.val();
            } else if self.counter_sel.q.val() == self.k_bloom_negatives.val() {
                self.answer_value.next = self.counters.bloom_negatives.val();
            } else if self.counter_sel.q.val() == self.k_false_positives.val() {
                self.answer_value.next = self.counters.false_positives.val();
            } else if self.counter_sel.q.val() == self.k_rebuilds.val() {
                self.answer_value.next = self.counters.rebuilds.val();
            } else if self.counter_sel.q.val() == self.k_signature_misses.val() {
                self.answer_value.next = self.counters.signature_misses.val();
            } else if self.counter_sel.q.val() == self.k_entries_used.val() {
                self.answer_value.next = self.counters.entries_used.val();
            }
        }

        // A whole frame: decide (the clock after its last byte).
        self.answer_ok.next = self.tag_answers.q.val() & !self.request_sending.val();
        self.complete.next = self.answers_request.q.val();
        self.reject.next = false;
        self.reject_code.next = self.k_checksum.val();
        self.drop_page.next = false;
        self.run.next = false;
        self.resend.next = false;
        self.answer_next.d.next = false;
        self.answers_request.d.next = false;
        if self.done.val() {
            if !self.good.val() {
                self.reject.next = true;
                self.drop_page.next = true;
            } else if self.is_command.val() {
                self.run.next = self.run_verdict.q.val();
                if self.busy_verdict.q.val() {
                    self.reject.next = true;
                    self.reject_code.next = self.k_busy.val();
                    self.drop_page.next = true;
                } else if self.tag_again.q.val() {
                    // A command sent again after its response was lost: it
                    // is not run twice; its response goes out again.
                    self.resend.next = true;
                    self.drop_page.next = true;
                } else if self.malformed.q.val() {
                    self.answer_next.d.next = true;
                    self.drop_page.next = true;
                } else if self.index_stats.q.val() {
                    self.answer_next.d.next = true;
                }
            } else if self.is_again.val() {
                self.resend.next = self.answered.val() & !self.core_busy.val();
            } else if self.answer_ok.val() {
                self.answers_request.d.next = (self.is_fp_data.val() & (self.request.val() == HostRequest::FpRead))
                    | (self.is_mem_data.val() & (self.request.val() == HostRequest::MemRead))
                    | (self.is_ack.val()
                        & ((self.request.val() == HostRequest::Move)
                            | (self.request.val() == HostRequest::MemWrite)
                            | (self.request.val() == HostRequest::FpWrite)));
            }
        }
        if self.reset.val() {
            self.answer_next.d.next = false;
            self.answers_request.d.next = false;
        }
    }
}
