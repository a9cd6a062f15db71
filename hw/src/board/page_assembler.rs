//! `PageAssembler`: turns a `WRITE` frame's page bytes into the 32-bit
//! big-endian words the SHA-1 lanes take, completes a page whose frame was
//! abandoned with zero words, and reports a page that no `WRITE` will claim.
//!
//! Ports:
//! - `start`: one clock, a frame begins or its header is taken: the
//!   assembler forgets any partial page, and takes the frame's page bytes
//!   from the clock after next on when `open` is high with it (a `WRITE`'s
//!   page that the core can take now), or none. (`start` is registered
//!   first: the header check that raises it is on the clock's longest
//!   paths.)
//! - `data`/`page_byte`: a page byte, one clock; taken only when open.
//!   Page bytes come at least two clocks apart, and two clocks after
//!   `start` (a UART's bytes are): what a byte does is decided from
//!   registers the last byte (or `start`) set.
//! - `page`: the words, one at a time, held until taken; the next word is
//!   at least a byte's time later.
//! - `pad`: the frame was abandoned; the page is completed with zero words,
//!   and when it has all its 1,024 words `pad_done` pulses and the page is
//!   dropped (see `page_drop`).
//! - `drop`: one clock, the page of the frame just received (if it took
//!   one) will not be claimed: `page_drop` pulses a clock later.
//! - `page_drop`: one clock, after the last word of a page no `WRITE` will
//!   claim (the core discards its digest).
//! - `active`: the frame's page bytes are being taken; `begun`: and some
//!   have been.
use crate::logic_block;
use crate::ports::PageWordSource;
use rust_hdl::prelude::*;

logic_block! {
    #[derive(LogicBlock)]
    pub struct PageAssembler {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, Bit>,
        pub start: Signal<In, Bit>,
        pub open: Signal<In, Bit>,
        pub data: Signal<In, Bits<8>>,
        pub page_byte: Signal<In, Bit>,
        pub pad: Signal<In, Bit>,
        pub drop: Signal<In, Bit>,

        pub page: PageWordSource,
        pub page_drop: Signal<Out, Bit>,
        pub active: Signal<Out, Bit>,
        pub begun: Signal<Out, Bit>,
        pub pad_done: Signal<Out, Bit>,

        taking: DFF<Bit>,
        /// `start` and `open`, a clock later.
        start_r: DFF<Bit>,
        open_r: DFF<Bit>,
        /// The word's first three bytes, the first highest.
        assembly: DFF<Bits<24>>,
        byte_in_word: DFF<Bits<2>>,
        word: DFF<Bits<32>>,
        word_pending: DFF<Bit>,
        page_words: DFF<Bits<11>>,
        /// Registered a clock after what they test changes (bytes and padded
        /// words are clocks apart): the next page byte completes a word; the
        /// page has all its 1,024 words.
        word_end: DFF<Bit>,
        page_full: DFF<Bit>,
        drop_r: DFF<Bit>,
    }
}

impl Logic for PageAssembler {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            taking,
            start_r,
            open_r,
            assembly,
            byte_in_word,
            word,
            word_pending,
            page_words,
            word_end,
            page_full,
            drop_r
        );
        self.page.word.next = self.word.q.val();
        self.page.valid.next = self.word_pending.q.val();
        if self.word_pending.q.val() & self.page.ready.val() {
            self.word_pending.d.next = false;
        }
        self.page_drop.next = self.drop_r.q.val();
        self.drop_r.d.next = false;
        self.active.next = self.taking.q.val();
        self.begun.next = self.taking.q.val() & ((self.page_words.q.val() != 0) | (self.byte_in_word.q.val() != 0));
        self.word_end.d.next = self.byte_in_word.q.val() == 3;
        self.page_full.d.next = self.page_words.q.val() == 1024;
        self.pad_done.next = false;

        self.start_r.d.next = self.start.val();
        self.open_r.d.next = self.open.val();
        if self.start_r.q.val() {
            self.taking.d.next = self.open_r.q.val();
            self.page_words.d.next = 0.into();
            self.byte_in_word.d.next = 0.into();
            self.word_end.d.next = false;
        }
        if self.page_byte.val() & self.taking.q.val() {
            self.assembly.d.next = (self.assembly.q.val() << 8) | bit_cast::<24, 8>(self.data.val());
            self.byte_in_word.d.next = self.byte_in_word.q.val() + 1;
            if self.word_end.q.val() {
                self.word.d.next =
                    (bit_cast::<32, 24>(self.assembly.q.val()) << 8) | bit_cast::<32, 8>(self.data.val());
                self.word_pending.d.next = true;
                self.page_words.d.next = self.page_words.q.val() + 1;
            }
        }
        if self.pad.val() & !self.word_pending.q.val() {
            if self.page_full.q.val() {
                self.drop_r.d.next = true;
                self.pad_done.next = true;
            } else {
                self.word.d.next = 0.into();
                self.word_pending.d.next = true;
                self.page_words.d.next = self.page_words.q.val() + 1;
            }
        }
        if self.drop.val() {
            self.drop_r.d.next = self.taking.q.val();
        }
        if self.reset.val() {
            self.start_r.d.next = false;
            self.word_pending.d.next = false;
            self.drop_r.d.next = false;
        }
    }
}
