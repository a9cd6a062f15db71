//! The formal proofs of Ditto's hardware: for each module where a bug is
//! hardest to find by simulation, the design (emitted Verilog, as every
//! other check uses), its properties (`hw/formal/*.v`, written for
//! `ditto_synth::formal`: `[[name]]` for a flattened internal name,
//! `assert(ok_NAME)` for a property, `wire cover_NAME` for a cover), the
//! induction depth, and the planted bugs: small changes to the emitted
//! Verilog, each of which must make a named property fail. A proof that no
//! planted bug can break is not a proof.
//!
//! `ditto prove` runs them all; `host-driver/tests/prove.rs` proves each
//! one and checks that each planted bug is caught.
use rust_hdl::prelude::*;

use crate::verilog::top_verilog;

/// One proof: what it proves, of which design, and the bugs it must catch.
#[derive(Debug, Clone, Copy)]
pub struct ProofSpec {
    /// A short, file-name-safe name (`ditto prove --only NAME`).
    pub name: &'static str,
    /// The module and instance proven, in words.
    pub module: &'static str,
    /// Emits the design's Verilog (top module `top`).
    pub design: fn() -> String,
    /// The property text.
    pub properties: &'static str,
    /// `localparam`s the property text expects.
    pub params: &'static [(&'static str, u64)],
    /// The longest induction and base case tried.
    pub max_depth: u32,
    /// Bugs the properties must catch.
    pub planted: &'static [PlantedBug],
}

/// A planted bug: `find` replaced by `replace` in the emitted Verilog (every
/// occurrence: a module's text appears once per instance; it must occur at
/// least once), which must make one of `breaks` fail.
#[derive(Debug, Clone, Copy)]
pub struct PlantedBug {
    pub name: &'static str,
    /// What the change does, in words.
    pub what: &'static str,
    pub find: &'static str,
    pub replace: &'static str,
    /// The properties (names without `ok_`) of which at least one must fail.
    pub breaks: &'static [&'static str],
}

impl PlantedBug {
    /// The design with the bug planted, or why it cannot be planted (the
    /// text to replace is absent: the fixture needs updating).
    pub fn plant(&self, design: &str) -> Result<String, String> {
        match design.matches(self.find).count() {
            0 => Err(format!("planted bug {}: {:?} is not in the design", self.name, self.find)),
            _ => Ok(design.replace(self.find, self.replace)),
        }
    }
}

const FIFO_PROPERTIES: &str = include_str!("../formal/fifo.v");
const LOCK_PROPERTIES: &str = include_str!("../formal/lock_table.v");
/// The waiting bound builds on the lock table's names and invariants.
const LOCK_WAIT_PROPERTIES: &str =
    concat!(include_str!("../formal/lock_table.v"), include_str!("../formal/lock_wait.v"));
const UART_PROPERTIES: &str = include_str!("../formal/uart_link.v");
/// The framers' shadows share their CRC step.
const FRAME_RX_PROPERTIES: &str = concat!(include_str!("../formal/crc32.v"), include_str!("../formal/frame_rx.v"));
/// The receive timeout the framer's proof runs with (clocks): short, so the
/// proof's witnesses of an abandoned frame are short.
const FRAME_RX_TIMEOUT: u64 = 6;
const FRAME_TX_PROPERTIES: &str = concat!(include_str!("../formal/crc32.v"), include_str!("../formal/frame_tx.v"));
const REQUEST_DECODER_PROPERTIES: &str = include_str!("../formal/request_decoder.v");
const BLOOM_PROPERTIES: &str = include_str!("../formal/bloom.v");
const FTL_REFCOUNT_PROPERTIES: &str = include_str!("../formal/ftl_refcount.v");
const INDEX_RESPONSE_STAGE_PROPERTIES: &str = include_str!("../formal/index_response_stage.v");
const MEM_REQUEST_STAGE_PROPERTIES: &str = include_str!("../formal/mem_request_stage.v");
/// The request stage's proof is of the same generator at a narrow width:
/// its registers only move data, so the width changes nothing it decides.
const MEM_REQUEST_STAGE_ADDR_BITS: usize = 2;
const MEM_REQUEST_STAGE_DATA_BITS: usize = 3;
const MEM_REQUEST_STAGE_PARAMS: &[(&str, u64)] =
    &[("F_AW", MEM_REQUEST_STAGE_ADDR_BITS as u64), ("F_DW", MEM_REQUEST_STAGE_DATA_BITS as u64)];

/// The lane FIFOs' generic code (rust-hdl's `SynchronousFIFO`, as the hasher
/// instantiates it with 32-bit words) at two small depths: the proof is of
/// the same generator, with the state space small enough to close.
fn lane_fifo_4() -> String {
    top_verilog(SynchronousFIFO::<Bits<32>, 2, 3, 1>::default())
}

fn lane_fifo_8() -> String {
    top_verilog(SynchronousFIFO::<Bits<32>, 3, 4, 1>::default())
}

/// The index's dispatch, collection and lock table with two lookup FSMs
/// over four buckets; the memory ports are left to the environment (any
/// latency, any data), so the lock properties hold whatever memory does.
fn index_2_fsms() -> String {
    top_verilog(crate::index::fp_index::FpIndex::<2>::new(2))
}

/// One lookup FSM on its own, every port left to the environment: the
/// Bloom filter's promises hold whatever the lock table, the arbiters and
/// memory do.
fn lookup_fsm() -> String {
    top_verilog(crate::index::fsm::LookupFsm::default())
}

/// The stage the wide core puts on the index's responses
/// ([`IndexResponseStage`]).
///
/// [`IndexResponseStage`]: crate::index::index_response_stage::IndexResponseStage
fn index_response_stage() -> String {
    top_verilog(crate::index::index_response_stage::IndexResponseStage::default())
}

/// The request stage the wide core puts on the index's memory ports
/// ([`MemRequestStage`]), at the widths of [`MEM_REQUEST_STAGE_PARAMS`].
///
/// [`MemRequestStage`]: crate::index::mem_request_stage::MemRequestStage
fn mem_request_stage() -> String {
    top_verilog(crate::index::mem_request_stage::MemRequestStage::<
        MEM_REQUEST_STAGE_ADDR_BITS,
        MEM_REQUEST_STAGE_DATA_BITS,
    >::default())
}

/// The state-machine FTL controller as the `large` core builds it
/// ([`FtlController::reading_ahead`]) on its own: commands, the index and
/// the FTL memory are left to the environment.
///
/// [`FtlController::reading_ahead`]: crate::ftl::controller::FtlController::reading_ahead
fn ftl_controller() -> String {
    top_verilog(crate::ftl::controller::FtlController::default().reading_ahead())
}

/// The controller with the NVM write cache built in
/// ([`FtlController::with_nvm_cache`]), as `large` builds it: the cache's
/// states write PAGE records too (a write-back, a cooperative drop), and a
/// release gives a slot back before it frees the pid.
///
/// [`FtlController::with_nvm_cache`]: crate::ftl::controller::FtlController::with_nvm_cache
fn ftl_controller_nvm() -> String {
    top_verilog(crate::ftl::controller::FtlController::default().reading_ahead().with_nvm_cache())
}

/// The controller as the Cu builds it ([`FtlController::staged`]): every
/// request leaves from registers a clock after its state asks.
///
/// [`FtlController::staged`]: crate::ftl::controller::FtlController::staged
fn ftl_controller_staged() -> String {
    top_verilog(crate::ftl::controller::FtlController::new(crate::index::ENTRY_BITS).staged())
}

/// The bit period of the UART proof: the shortest the UART accepts, so
/// that a byte takes 40 clocks and the proof closes in a few seconds.
const UART_PERIOD: u32 = 4;

/// The board's UART transmitter wired to its receiver through a line the
/// environment may corrupt (`glitch` flips it): what one direction of the
/// host link does, byte by byte.
#[derive(LogicBlock)]
pub struct UartLoopback {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub data: Signal<In, Bits<8>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub glitch: Signal<In, Bit>,
    pub line: Signal<Out, Bit>,
    pub rx_data: Signal<Out, Bits<8>>,
    pub rx_valid: Signal<Out, Bit>,
    pub rx_framing_error: Signal<Out, Bit>,
    tx: crate::board::uart::UartTx,
    rx: crate::board::uart::UartRx,
}

impl Logic for UartLoopback {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, tx, rx);
        self.tx.reset.next = self.reset.val();
        self.rx.reset.next = self.reset.val();
        self.tx.data.next = self.data.val();
        self.tx.valid.next = self.valid.val();
        self.ready.next = self.tx.ready.val();
        self.line.next = self.tx.tx.val() ^ self.glitch.val();
        self.rx.rx.next = self.line.val();
        self.rx_data.next = self.rx.data.val();
        self.rx_valid.next = self.rx.valid.val();
        self.rx_framing_error.next = self.rx.framing_error.val();
    }
}

/// The board link's receive framer on its own: the bytes, the timeout's
/// silences and the page assembler's answers are the environment's.
fn frame_receiver() -> String {
    top_verilog(crate::board::FrameReceiver::default())
}

/// The board link's transmit framer on its own: what is pending, the
/// fields and when the UART takes a byte are the environment's.
fn frame_transmitter() -> String {
    top_verilog(crate::board::FrameTransmitter::default())
}

/// The board link's request decoder on its own: the frame, the board's
/// state and the counters are the environment's.
fn request_decoder() -> String {
    top_verilog(crate::board::RequestDecoder::default())
}

/// The names the request decoder's properties decode with, from the
/// protocol and the core's types (so the naive decode cannot drift).
const REQUEST_DECODER_PARAMS: &[(&str, u64)] = {
    use crate::board::frame_tx::HostRequest;
    use crate::board::protocol::{error, INDEX_STATS_BASE};
    use crate::ftl::{Op, Status};
    &[
        ("F_OP_STATS", Op::Stats as u64),
        ("F_OPS", Op::Reset as u64 + 1),
        ("F_INDEX_STATS", INDEX_STATS_BASE as u64),
        ("F_CHECKSUM", error::CHECKSUM as u64),
        ("F_BUSY", error::BUSY as u64),
        ("F_DONE", Status::Done as u64),
        ("F_MALFORMED", Status::ErrMalformed as u64),
        ("F_MOVE", HostRequest::Move as u64),
        ("F_MEM_READ", HostRequest::MemRead as u64),
        ("F_MEM_WRITE", HostRequest::MemWrite as u64),
        ("F_FP_READ", HostRequest::FpRead as u64),
        ("F_FP_WRITE", HostRequest::FpWrite as u64),
    ]
};

/// The UART proof's bit period and the state values its properties read.
const UART_PARAMS: &[(&str, u64)] = {
    use crate::board::uart::{UartRxState, UartTxState};
    &[
        ("F_PERIOD", UART_PERIOD as u64),
        ("F_RX_IDLE", UartRxState::Idle as u64),
        ("F_RX_START_BIT", UartRxState::StartBit as u64),
        ("F_RX_STOP_BIT", UartRxState::StopBit as u64),
        ("F_TX_SENDING", UartTxState::Sending as u64),
    ]
};

fn uart_loopback() -> String {
    top_verilog(UartLoopback {
        clock: Default::default(),
        reset: Default::default(),
        data: Default::default(),
        valid: Default::default(),
        ready: Default::default(),
        glitch: Default::default(),
        line: Default::default(),
        rx_data: Default::default(),
        rx_valid: Default::default(),
        rx_framing_error: Default::default(),
        tx: crate::board::uart::UartTx::new(UART_PERIOD),
        rx: crate::board::uart::UartRx::new(UART_PERIOD),
    })
}

const FIFO_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "pop-when-empty",
        what: "a read of an empty FIFO moves the read pointer",
        find: "if (read & ~is_empty) begin",
        replace: "if (read) begin",
        breaks: &["pointers", "empty", "order"],
    },
    PlantedBug {
        name: "read-before-write",
        what: "the read side sees a write on the clock it is made (the RAM still holds the old word)",
        find: "write_address_delayed = dff_write_address_delay$q;",
        replace: "write_address_delayed = write_address$q;",
        breaks: &["order", "memory", "empty", "pointers"],
    },
    PlantedBug {
        name: "push-when-full",
        what: "a write to a full FIFO overwrites its oldest word",
        find: "if (write & ~is_full) begin",
        replace: "if (write) begin",
        breaks: &["pointers", "count", "full", "memory", "order"],
    },
];

const LOCK_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "lock-ignores-fsm-0",
        what: "FSM 1's lock check leaves out FSM 0",
        find: "if (fsms$0$active & (fsms$0$bucket == fsms$1$bucket) & (positions$0 < positions$1)) begin",
        replace: "if (1'b0 & (fsms$0$bucket == fsms$1$bucket) & (positions$0 < positions$1)) begin",
        breaks: &["exclusive", "holder_oldest", "lock_clear"],
    },
    PlantedBug {
        name: "younger-blocks",
        what: "FSM 0 waits for a younger command instead of an older one",
        find: "(positions$1 < positions$0)",
        replace: "(positions$1 > positions$0)",
        breaks: &["exclusive", "holder_oldest", "lock_clear", "blocked_by_older"],
    },
    PlantedBug {
        name: "release-before-last-write",
        what: "an FSM frees its bucket while it still writes the bucket's metadata",
        find: "active = (state$q != State$Idle) & (state$q != State$Done);",
        replace: "active = (state$q != State$Idle) & (state$q != State$Done) & (state$q != State$WriteMeta);",
        breaks: &["exclusive", "active", "holder_oldest", "release"],
    },
    PlantedBug {
        name: "age-off-by-one",
        what: "FSM 0's age is counted one command too old",
        find: "positions$0 = fsms$0$seq - collect_seq$q;",
        replace: "positions$0 = fsms$0$seq - collect_seq$q - 6'h1;",
        breaks: &["exclusive", "holder_oldest", "lock_clear", "blocked_by_older"],
    },
];

const UART_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "msb-first",
        what: "the receiver shifts each sampled bit in at the bottom: the byte arrives bit-reversed",
        find: "shift$d = (shift$q >> 32'h1) | (((sync1$q) & 8'hff) << 32'h7);",
        replace: "shift$d = (shift$q << 32'h1) | ((sync1$q) & 8'hff);",
        breaks: &["delivery", "rx_follows"],
    },
    PlantedBug {
        name: "skipped-bit",
        what: "the transmitter sends the frame's bit after next",
        find: "line$d = ~frame$q[32'h1];",
        replace: "line$d = ~frame$q[32'h2];",
        breaks: &["tx_follows", "delivery", "no_framing_error"],
    },
    PlantedBug {
        name: "late-sample",
        what: "the receiver samples each bit a clock before its end instead of in its middle",
        find: "localparam  half_before = 16'h0;",
        replace: "localparam  half_before = 16'h1;",
        breaks: &["rx_follows", "ranges", "latency", "delivery"],
    },
];

const FRAME_RX_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "crc-seed",
        what: "the CRC starts at 0xFFFFFFFE, not 0xFFFFFFFF: good frames fail, and some damaged ones pass",
        find: "crc$d = 64'hffffffff;",
        replace: "crc$d = 64'hfffffffe;",
        breaks: &["frames", "tracks"],
    },
    PlantedBug {
        name: "timeout-when-whole",
        what: "the timeout also fires while hunting: a frame whose last byte came just as it ran out is reported truncated",
        find: "abandon = timed_out$q & (state$q != RxState$Padding) & (state$q != RxState$Hunt);",
        replace: "abandon = timed_out$q & (state$q != RxState$Padding);",
        breaks: &["truncated", "resync"],
    },
    PlantedBug {
        name: "short-crc",
        what: "the CRC is taken as three bytes, not four",
        find: "crc_left$d = 32'h2;",
        replace: "crc_left$d = 32'h1;",
        breaks: &["frames", "tracks", "resync"],
    },
    PlantedBug {
        name: "length-aliased",
        what: "the length's high byte is checked on its low five bits (0x30 passes for 0x10: a length the kind does not have is taken as one it has)",
        find: "len_hi_page$d = data == k_page_len_high;",
        replace: "len_hi_page$d = data[4:0] == k_page_len_high[4:0];",
        breaks: &["header", "tracks"],
    },
];

const FRAME_TX_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "crc-from-sync",
        what: "the CRC also covers the SYNC byte",
        find: "else if (tx_index$q != 32'h0) begin",
        replace: "else if (1'b1) begin",
        breaks: &["bytes", "tracks"],
    },
    PlantedBug {
        name: "response-first",
        what: "a pending response goes out before a pending error",
        find: "if (err_pending) begin",
        replace: "if (err_pending & ~rsp_pending) begin",
        breaks: &["bytes", "tracks", "ends"],
    },
    PlantedBug {
        name: "short-crc",
        what: "the frame ends after three of its CRC's four bytes",
        find: "tx_crc_last_at$d = tx_len$q + 32'h8;",
        replace: "tx_crc_last_at$d = tx_len$q + 32'h7;",
        breaks: &["ends", "tracks", "bytes"],
    },
    PlantedBug {
        name: "stale-byte",
        what:
            "the offer stages start while idle: a frame's first byte is offered before its value has moved through them",
        find: "tx_fresh_a$d = state$q == FrameTxState$Sending;",
        replace: "tx_fresh_a$d = 1'b1;",
        breaks: &["bytes", "tracks"],
    },
];

const REQUEST_DECODER_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "run-over-pending-response",
        what: "a command runs while the last response still waits to go out",
        find: "refuse_busy = core_busy | response_pending | (page_frame & ~page_open);",
        replace: "refuse_busy = core_busy | (page_frame & ~page_open);",
        breaks: &["reject", "run", "drop"],
    },
    PlantedBug {
        name: "run-twice",
        what: "a command sent again after its response was lost runs again",
        find: "run_verdict$d = ~refuse_busy & ~tag_again$q & ~malformed$q & ~index_stats$q;",
        replace: "run_verdict$d = ~refuse_busy & ~malformed$q & ~index_stats$q;",
        breaks: &["run"],
    },
    PlantedBug {
        name: "stats-selector-18",
        what: "selector 18, past the index's six counters, is answered here",
        find: "(lpa[(32'h1)+:(4)] == 32'h8)",
        replace: "(lpa[(32'h1)+:(4)] == 32'h8) | (lpa[(32'h0)+:(5)] == 32'h12)",
        breaks: &["run", "answer"],
    },
    PlantedBug {
        name: "ack-completes-read",
        what: "an acknowledgement completes a fingerprint read",
        find: "(request == HostRequest$Move) | (request == HostRequest$MemWrite)",
        replace: "(request == HostRequest$Move) | (request == HostRequest$FpRead) | (request == HostRequest$MemWrite)",
        breaks: &["complete"],
    },
];

const INDEX_RESPONSE_STAGE_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "overwrite-while-full",
        what: "a response moves in while the last one still waits for the controller",
        find: "if (~full$q & from_index$valid) begin",
        replace: "if (from_index$valid) begin",
        breaks: &["order", "registers"],
    },
    PlantedBug {
        name: "kept-after-taken",
        what: "a response stays after the controller took it",
        find: "if (full$q & to_controller$ready) begin",
        replace: "if (1'b0) begin",
        breaks: &["offers", "room", "registers"],
    },
    PlantedBug {
        name: "reset-keeps-response",
        what: "a reset leaves the held response in place",
        find: "if (reset) begin\n            full$d = 1'b0;",
        replace: "if (1'b0) begin\n            full$d = 1'b0;",
        breaks: &["offers", "room", "registers"],
    },
    PlantedBug {
        name: "status-from-flags",
        what: "the held response's status is taken from the index's flags",
        find: "status$d = from_index$status;",
        replace: "status$d = from_index$flags;",
        breaks: &["order", "registers"],
    },
];

const MEM_REQUEST_STAGE_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "skid-sent-twice",
        what: "the skid register stays full after its request moved to the main register",
        find: "main_tag$d = skid_tag$q;\n                skid_valid$d = 1'b0;",
        replace: "main_tag$d = skid_tag$q;",
        breaks: &["order", "offers", "room", "registers"],
    },
    PlantedBug {
        name: "skid-tag-changed",
        what: "a request that waited in the skid register leaves with another tag",
        find: "main_tag$d = skid_tag$q;",
        replace: "main_tag$d = skid_tag$q ^ 4'h1;",
        breaks: &["order", "registers"],
    },
    PlantedBug {
        name: "accepted-while-full",
        what: "the index is told it may hand over a request while the skid register is full (and it is lost)",
        find: "from_index$req_ready = ~skid_valid$q;",
        replace: "from_index$req_ready = 1'b1;",
        breaks: &["room"],
    },
    PlantedBug {
        name: "no-skid",
        what: "a request handed over while the memory stalls is dropped",
        find: "skid_valid$d = 1'b1;",
        replace: "skid_valid$d = 1'b0;",
        breaks: &["order", "offers", "room", "registers"],
    },
    PlantedBug {
        name: "reset-keeps-skid",
        what: "a reset leaves the skid register's request in place",
        find: "main_valid$d = 1'b0;\n            skid_valid$d = 1'b0;",
        replace: "main_valid$d = 1'b0;",
        breaks: &["offers", "room", "registers"],
    },
    PlantedBug {
        name: "stale-main",
        what: "the main register stays valid after its request left with nothing behind it",
        find: "main_valid$d = moves_in;",
        replace: "main_valid$d = moves_in | main_valid$q;",
        breaks: &["order", "offers", "registers"],
    },
];

const BLOOM_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "skip-when-covered",
        what: "the walk is skipped when the filter has every bit of the key, not when it lacks one",
        find: "else if (bloom_enable & ~bloom_covers$q) begin",
        replace: "else if (bloom_enable & bloom_covers$q) begin",
        breaks: &["walks_on_maybe"],
    },
    PlantedBug {
        name: "rebuild-keeps-last-way",
        what: "the rebuilt filter holds only the bits of the last way read",
        find: "rebuilt$d = rebuilt$q | rsp_bits;",
        replace: "rebuilt$d = rsp_bits;",
        breaks: &["miss_filter", "rebuilt_registered", "miss_word"],
    },
    PlantedBug {
        name: "rebuild-not-cleared",
        what: "a rebuild starts from the previous command's bits",
        find: "rebuilt$d = 32'h0;",
        replace: "rebuilt$d = rebuilt$q;",
        breaks: &["miss_filter", "rebuilt_registered", "miss_word"],
    },
    PlantedBug {
        name: "key-not-added",
        what: "an insert leaves its key's bits out of the filter",
        find: "miss_bloom = miss_base | key_bits_r$q;",
        replace: "miss_bloom = miss_base;",
        breaks: &["miss_filter", "miss_word"],
    },
    PlantedBug {
        name: "removal-drops-filter",
        what: "a removal writes the walk's rebuild instead of the filter it read",
        find: "| ((bloom$q) & 40'hffffffffff);",
        replace: "| ((rebuilt$q) & 40'hffffffffff);",
        breaks: &["removal_keeps", "removal_word"],
    },
];

const FTL_REFCOUNT_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "count-past-limit",
        what: "a hit is saturated only at exactly the limit: a count read above it counts on, and wraps",
        find: "else if (rd_rc >= cfg$refcount_max) begin",
        replace: "else if (rd_rc == cfg$refcount_max) begin",
        breaks: &["increment", "hit_record"],
    },
    PlantedBug {
        name: "free-with-references",
        what: "a release frees a pid that still has another reference",
        find: "if (rd_rc > 32'h1) begin",
        replace: "if (rd_rc > 32'h2) begin",
        breaks: &["free_at_last", "release_record"],
    },
    PlantedBug {
        name: "release-keeps-count",
        what: "a release with references left writes the count back unchanged",
        find: "rc_bump = word$q[(f_page_refcount)+:(12)] + rc_minus_one;",
        replace: "rc_bump = word$q[(f_page_refcount)+:(12)];",
        breaks: &["decrement"],
    },
    PlantedBug {
        name: "push-wrong-pid",
        what: "the free list gets the new copy's pid instead of the one freed",
        find: "low = Low$OldPid;",
        replace: "low = Low$Pid;",
        breaks: &["push_freed"],
    },
];

/// The memory the waiting bound assumes: a port accepts a request within
/// this many clocks...
const LOCK_WAIT_READY: u64 = 2;
/// ...and answers one of an FSM's outstanding reads within this many.
const LOCK_WAIT_LATENCY: u64 = 3;

/// The clocks a command waits for its bucket at most, with that memory (the
/// derivation is `hw/formal/lock_wait.v`'s ranking function, and the proof
/// checks this bound against it). The older command's LOCK_SETTLE and LOCK,
/// its hold (the metadata read; a walk of eight ways, each request and
/// answer at most the slower of the two bounds; eight verify reads, each a
/// request, an answer and the registered compare; the hit's decision and
/// three writes), and two clocks for the registered verdict.
pub const fn lock_wait_bound() -> u64 {
    let slow = if LOCK_WAIT_READY > LOCK_WAIT_LATENCY { LOCK_WAIT_READY } else { LOCK_WAIT_LATENCY };
    let verify = LOCK_WAIT_READY + LOCK_WAIT_LATENCY + 1;
    let after_hit = 2 + 3 * LOCK_WAIT_READY;
    let classify = 2 + 16 * slow + 8 * verify + after_hit;
    let hold = LOCK_WAIT_READY + LOCK_WAIT_LATENCY + classify;
    3 + hold + 2
}

const LOCK_WAIT_PARAMS: &[(&str, u64)] =
    &[("F_READY", LOCK_WAIT_READY), ("F_LATENCY", LOCK_WAIT_LATENCY), ("F_WAIT", lock_wait_bound())];

const LOCK_WAIT_BUGS: &[PlantedBug] = &[
    PlantedBug {
        name: "sticky-block",
        what: "an FSM blocked in LOCK stays blocked after the older command releases the bucket",
        find: "blocked_r$d = blocked;",
        replace: "blocked_r$d = blocked | (blocked_r$q & (state$q == State$Lock));",
        breaks: &["progress", "wait_budget", "wait_bound"],
    },
    PlantedBug {
        name: "release-on-collect",
        what: "a finished command keeps its bucket until its response is collected, which the host may delay",
        find: "active = (state$q != State$Idle) & (state$q != State$Done);",
        replace: "active = (state$q != State$Idle);",
        breaks: &["progress", "active"],
    },
];

/// Every proof, in the order `ditto prove` runs them.
pub fn proofs() -> Vec<ProofSpec> {
    vec![
        ProofSpec {
            name: "fifo-4",
            module: "SynchronousFIFO<Bits<32>, 2, 3, 1>: a 4-word lane FIFO",
            design: lane_fifo_4,
            properties: FIFO_PROPERTIES,
            params: &[("F_AW", 2), ("F_DW", 32)],
            max_depth: 12,
            planted: FIFO_BUGS,
        },
        ProofSpec {
            name: "lock-table",
            module: "FpIndex<2> over 4 buckets: dispatch, collection and the lock table",
            design: index_2_fsms,
            properties: LOCK_PROPERTIES,
            params: &[],
            max_depth: 16,
            planted: LOCK_BUGS,
        },
        ProofSpec {
            name: "lock-wait",
            module: "FpIndex<2> over 4 buckets, memory answering within bounds: the lock's waiting bound",
            design: index_2_fsms,
            properties: LOCK_WAIT_PROPERTIES,
            params: LOCK_WAIT_PARAMS,
            max_depth: 40,
            planted: LOCK_WAIT_BUGS,
        },
        ProofSpec {
            name: "uart-link",
            module: "UartTx -> line -> UartRx at 4 clocks per bit, the line corruptible",
            design: uart_loopback,
            properties: UART_PROPERTIES,
            params: UART_PARAMS,
            max_depth: 60,
            planted: UART_BUGS,
        },
        ProofSpec {
            name: "frame-rx",
            module: "FrameReceiver: the board link's receive framer, any bytes, any silences",
            design: frame_receiver,
            properties: FRAME_RX_PROPERTIES,
            params: &[("F_TIMEOUT", FRAME_RX_TIMEOUT)],
            max_depth: 40,
            planted: FRAME_RX_BUGS,
        },
        ProofSpec {
            name: "frame-tx",
            module: "FrameTransmitter: the board link's transmit framer, any pending frames, any UART",
            design: frame_transmitter,
            properties: FRAME_TX_PROPERTIES,
            params: &[("F_SENDING", crate::board::frame_tx::FrameTxState::Sending as u64)],
            // A response frame is 17 bytes, each taken at the earliest four
            // clocks after the last: its cover's witness is 70 clocks long.
            max_depth: 80,
            planted: FRAME_TX_BUGS,
        },
        ProofSpec {
            name: "request-decoder",
            module: "RequestDecoder: what each whole frame from the host asks, against a naive decode",
            design: request_decoder,
            properties: REQUEST_DECODER_PROPERTIES,
            params: REQUEST_DECODER_PARAMS,
            max_depth: 12,
            planted: REQUEST_DECODER_BUGS,
        },
        ProofSpec {
            name: "bloom",
            module: "LookupFsm alone: the Bloom filter's check, rebuild and write-back",
            design: lookup_fsm,
            properties: BLOOM_PROPERTIES,
            params: &[],
            max_depth: 16,
            planted: BLOOM_BUGS,
        },
        ProofSpec {
            name: "ftl-refcount",
            module:
                "FtlController as `large` builds it (reading ahead) alone: the reference counts of the PAGE records",
            design: ftl_controller,
            properties: FTL_REFCOUNT_PROPERTIES,
            params: crate::ftl::controller::FORMAL_PARAMS,
            max_depth: 28,
            planted: FTL_REFCOUNT_BUGS,
        },
        ProofSpec {
            name: "ftl-refcount-nvm",
            module: "FtlController with the NVM write cache (reading ahead) alone: the same reference counts",
            design: ftl_controller_nvm,
            properties: FTL_REFCOUNT_PROPERTIES,
            params: crate::ftl::controller::FORMAL_PARAMS_NVM,
            max_depth: 28,
            planted: FTL_REFCOUNT_BUGS,
        },
        ProofSpec {
            name: "ftl-refcount-staged",
            module: "FtlController with staged memory requests (the Cu's) alone: the same reference counts",
            design: ftl_controller_staged,
            properties: FTL_REFCOUNT_PROPERTIES,
            params: crate::ftl::controller::FORMAL_PARAMS,
            max_depth: 40,
            planted: FTL_REFCOUNT_BUGS,
        },
        ProofSpec {
            name: "index-response-stage",
            module: "IndexResponseStage: the wide core's stage on the index's responses",
            design: index_response_stage,
            properties: INDEX_RESPONSE_STAGE_PROPERTIES,
            params: &[],
            max_depth: 8,
            planted: INDEX_RESPONSE_STAGE_BUGS,
        },
        ProofSpec {
            name: "mem-request-stage",
            module: "MemRequestStage<2, 3>: the wide core's stage on the index's memory requests",
            design: mem_request_stage,
            properties: MEM_REQUEST_STAGE_PROPERTIES,
            params: MEM_REQUEST_STAGE_PARAMS,
            max_depth: 8,
            planted: MEM_REQUEST_STAGE_BUGS,
        },
        ProofSpec {
            name: "fifo-8",
            module: "SynchronousFIFO<Bits<32>, 3, 4, 1>: an 8-word lane FIFO",
            design: lane_fifo_8,
            properties: FIFO_PROPERTIES,
            params: &[("F_AW", 3), ("F_DW", 32)],
            max_depth: 20,
            planted: FIFO_BUGS,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The state numbers the FTL proof is given are the emitted Verilog's.
    #[test]
    fn ftl_formal_states_match_the_emitted_numbering() {
        let design = ftl_controller();
        for (name, value) in crate::ftl::controller::FORMAL_PARAMS {
            let Some(state) = name.strip_prefix("S_") else { continue };
            let line = format!("localparam State${state} = {value};");
            assert!(design.contains(&line), "{line:?} is not in the emitted Verilog");
        }
    }

    /// Every planted bug's text is in its design (else it plants nothing).
    #[test]
    fn every_planted_bug_is_in_its_design() {
        for proof in proofs() {
            let design = (proof.design)();
            for bug in proof.planted {
                bug.plant(&design).unwrap();
            }
        }
    }
}
