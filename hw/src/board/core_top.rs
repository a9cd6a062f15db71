//! `CoreBoardTop<L, NB, FB, FBP1, M, WAB, MAB>`: the whole core
//! ([`DittoCore`]: SHA-1 lanes, fingerprint index with its table in block
//! RAM, the FTL remap controller) behind a board's USB UART, speaking the framed
//! protocol of [`super::protocol`]. The host holds what does not fit on the
//! chip: the index's full fingerprints and the FTL memory (both reached by
//! requests over the link), and the pages themselves.
//!
//! Ports (the names the pin file uses):
//! - `clock`: the board oscillator (100 MHz on the Cu).
//! - `rst_n`: reset button, active low, asynchronous (synchronized here); a
//!   power-on reset is generated as well.
//! - `usb_rx` (in) / `usb_tx` (out): the FTDI UART, 8N1, at the bit period
//!   of the [`BoardSetup`] the top was built with.
//! - `led[7:0]`: `led[0]` heartbeat, `led[1]` a command is being served,
//!   `led[2]` sticky UART framing error, `led[3]` sticky link error (an `E`
//!   frame was sent), `led[7:4]` the low four bits of the responses sent.
//!
//! Link behaviour (see [`super::protocol`] for the frames):
//! - A command frame is checked whole before the core sees it; a `WRITE`'s
//!   page streams into the SHA-1 lane as it arrives, and a page whose frame
//!   fails (CRC, truncation, a busy core, a malformed command) is completed
//!   with zero words if need be and its digest discarded (`page_drop`).
//! - One request to the host is outstanding at a time (relocation, FTL
//!   memory read or write, fingerprint read or write), tagged with a
//!   sequence number and resent every `resend` cycles until answered; an
//!   answer with another tag, or one arriving while the request is being
//!   resent, is ignored.
//! - A frame left incomplete for `rx_timeout` cycles is abandoned with an `E`
//!   (`TRUNCATED`); bytes between frames are skipped.
//! - A command with the tag of the last response is not run again: that
//!   response is sent again (a host resends a command whose response it
//!   did not get).
//! - A command whose op byte has bit 7 set holds the background cleaner
//!   until the next command (a host's batch runs back to back); the next
//!   command without it releases the hold.
//! - The geometry (`cfg_*` of the core) is fixed by the [`BoardSetup`].
//!
//! Inside: the UART ([`UartRx`], [`UartTx`]); the receive framer
//! ([`FrameReceiver`]: frames, header and CRC checks, the receive timeout);
//! the page assembler ([`PageAssembler`]: a `WRITE`'s page into the lane,
//! padding and dropping); the request decoder ([`RequestDecoder`]: what each
//! whole frame asks for: run a command, answer it here, send a response
//! again, complete a request, reject it); the response encoder and transmit
//! framer ([`FrameTransmitter`]: `E`, `R` and the requests, with their CRC).
//! This file wires them, latches the core's responses, and keeps the one
//! request to the host under way.
use super::frame_rx::FrameReceiver;
use super::frame_tx::{FrameTransmitter, HostRequest};
use super::page_assembler::PageAssembler;
use super::request_decoder::RequestDecoder;
use super::uart::{UartRx, UartTx};
use crate::ftl::ditto_core::DittoCore;
use crate::ftl::flash::Geometry;
use crate::ftl::settings::{FtlSettingsConstant, FtlSettingsValues};
use crate::ftl::{ADDR_BITS, MEM_ADDR_BITS, MEM_DATA_BITS, MOVE_ADDR_BITS};
use crate::index::table::BlockRamTable;
use crate::ports::{FtlSettingsSource, IndexCounters, PageWordSource, TableController};
use rust_hdl::prelude::*;

/// What a board top is built with: the FTL geometry and the link's timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardSetup {
    /// Logical pages the core serves.
    pub lpas: u32,
    /// The flash geometry (devices, blocks and pages as powers of two).
    pub geometry: Geometry,
    /// Array-wide (true) or device-local dedup.
    pub array_wide: bool,
    /// A page's reference-count limit (`cfg_refcount_max`).
    pub refcount_max: u32,
    /// UART bit period in clock cycles.
    pub cycles_per_bit: u32,
    /// Cycles without a byte after which a partial frame is abandoned.
    pub rx_timeout: u32,
    /// Cycles after which an unanswered request is sent again.
    pub resend: u32,
}

impl BoardSetup {
    /// The Alchitry Cu bitstream's: 4,096 logical pages (the index's
    /// entries) on one device of 128 blocks of 64 pages, two in reserve;
    /// 1,000,000 baud at 100 MHz; a partial frame is dropped after 1 ms of
    /// silence, a request resent after 50 ms (the FTDI's USB latency is up
    /// to 16 ms).
    pub const CU: BoardSetup = BoardSetup {
        lpas: 4096,
        geometry: Geometry { devices: 1, blocks_per_device: 128, pages_per_block: 64, reserve_blocks: 2 },
        array_wide: true,
        refcount_max: crate::ftl::REFCOUNT_MAX,
        cycles_per_bit: 100,
        rx_timeout: 100_000,
        resend: 5_000_000,
    };

    /// The cosimulation's build of the same top: fewer pages (its table
    /// initialisation crosses the link), a 4-cycle bit and short timeouts.
    pub const COSIM: BoardSetup = BoardSetup {
        lpas: 64,
        geometry: Geometry { devices: 1, blocks_per_device: 8, pages_per_block: 64, reserve_blocks: 2 },
        array_wide: true,
        refcount_max: crate::ftl::REFCOUNT_MAX,
        cycles_per_bit: 4,
        rx_timeout: 2_000,
        resend: 20_000,
    };

    /// What the core's FTL settings port carries on this board: no NVM
    /// slots (the board top builds its core without the cache; the README
    /// says why), so every move is between PPAs.
    pub fn ftl_settings(&self) -> FtlSettingsValues {
        FtlSettingsValues::new(&self.geometry, self.lpas, self.array_wide, self.refcount_max)
    }
}

#[derive(LogicBlock)]
pub struct CoreBoardTop<
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
    core: DittoCore<L, NB, FB, FBP1, M>,
    ftl_settings: FtlSettingsConstant,
    block_ram: BlockRamTable<WAB, MAB>,
    uart_rx: UartRx,
    uart_tx: UartTx,
    receiver: FrameReceiver,
    pages: PageAssembler,
    decoder: RequestDecoder,
    transmitter: FrameTransmitter,
    rst_sync0: DFF<Bit>,
    rst_sync1: DFF<Bit>,
    por_count: DFF<Bits<5>>,
    reset: DFF<Bit>,
    cmd_go: DFF<Bit>,
    cmd_busy: DFF<Bit>,
    hold: DFF<Bit>,
    r_tag: DFF<Bits<8>>,
    r_status: DFF<Bits<4>>,
    r_value: DFF<Bits<32>>,
    r_flags: DFF<Bits<3>>,
    r_clean: DFF<Bits<16>>,
    r_ever: DFF<Bit>,
    rsp_pending: DFF<Bit>,
    clean_count: DFF<Bits<16>>,
    /// An error frame raised on the last clock, and its code (the error is
    /// recorded a clock after it is decided).
    raise_r: DFF<Bit>,
    raise_code_r: DFF<Bits<8>>,
    err_pending: DFF<Bit>,
    err_code: DFF<Bits<8>>,
    err_kind: DFF<Bits<8>>,
    err_tag: DFF<Bits<8>>,
    req_kind: DFF<HostRequest>,
    /// No request is under way (`req_kind` is 0), kept as a flip-flop of
    /// its own so the request slot's enable starts at one.
    req_idle: DFF<Bit>,
    seq: DFF<Bits<8>>,
    req_due: DFF<Bit>,
    req_timer: DFF<Bits<24>>,
    req_fp_tag: DFF<Bits<4>>,
    /// The FTL memory request, captured as its frame is decided, so the
    /// transmitter's byte multiplexers start from registers, not from the
    /// controller's request multiplexers (the request is held until taken).
    req_mem_addr: DFF<Bits<MEM_ADDR_BITS>>,
    req_mem_wdata: DFF<Bits<MEM_DATA_BITS>>,
    comp_kind: DFF<HostRequest>,
    mem_rsp_next: DFF<Bit>,
    fp_rsp_next: DFF<Bit>,
    /// A request is due and may start (see `req_go` below).
    req_go: DFF<Bit>,
    heartbeat: DFF<Bits<26>>,
    responses_sent: DFF<Bits<4>>,
    framing_seen: DFF<Bit>,
    link_error_seen: DFF<Bit>,
    raise: Signal<Local, Bit>,
    raise_code: Signal<Local, Bits<8>>,
    k_rx_timeout: Constant<Bits<24>>,
    k_resend: Constant<Bits<24>>,
}

impl<
        const L: usize,
        const NB: usize,
        const FB: usize,
        const FBP1: usize,
        const M: usize,
        const WAB: usize,
        const MAB: usize,
    > CoreBoardTop<L, NB, FB, FBP1, M, WAB, MAB>
{
    /// The board top of `config` built with `setup`.
    pub fn new(config: &crate::Config, setup: &BoardSetup) -> Self {
        assert_eq!(config.lanes, L, "configuration {} has {} lanes", config.name, config.lanes);
        assert_eq!(config.index_fsms, M, "configuration {} has {} index FSMs", config.name, config.index_fsms);
        assert_eq!(config.index_bucket_bits, MAB, "configuration {} index buckets", config.name);
        assert_eq!(WAB, MAB + 3, "eight ways per bucket");
        let g = &setup.geometry;
        // `ftl_settings()` below refuses what does not fit the settings port.
        assert!(g.devices <= 4 && g.reserve_blocks >= 1 && setup.lpas >= 1);
        assert!(setup.rx_timeout > 12 * setup.cycles_per_bit, "the receive timeout must outlast a byte");
        assert!(setup.resend < 1 << 24 && setup.rx_timeout < 1 << 24);
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            usb_rx: Default::default(),
            usb_tx: Default::default(),
            led: Default::default(),
            // Without the NVM cache's logic: the board gives it no slots
            // (`BoardSetup::ftl_settings`; the README says why).
            core: DittoCore::for_config(&crate::Config { ftl_nvm_cache: false, ..*config }),
            ftl_settings: FtlSettingsConstant::new(setup.ftl_settings()),
            block_ram: Default::default(),
            uart_rx: UartRx::new(setup.cycles_per_bit),
            uart_tx: UartTx::new(setup.cycles_per_bit),
            receiver: Default::default(),
            pages: Default::default(),
            decoder: Default::default(),
            transmitter: Default::default(),
            rst_sync0: Default::default(),
            rst_sync1: Default::default(),
            por_count: Default::default(),
            reset: Default::default(),
            cmd_go: Default::default(),
            cmd_busy: Default::default(),
            hold: Default::default(),
            r_tag: Default::default(),
            r_status: Default::default(),
            r_value: Default::default(),
            r_flags: Default::default(),
            r_clean: Default::default(),
            r_ever: Default::default(),
            rsp_pending: Default::default(),
            clean_count: Default::default(),
            raise_r: Default::default(),
            raise_code_r: Default::default(),
            err_pending: Default::default(),
            err_code: Default::default(),
            err_kind: Default::default(),
            err_tag: Default::default(),
            req_kind: Default::default(),
            req_idle: Default::default(),
            seq: Default::default(),
            req_due: Default::default(),
            req_timer: Default::default(),
            req_fp_tag: Default::default(),
            req_mem_addr: Default::default(),
            req_mem_wdata: Default::default(),
            comp_kind: Default::default(),
            mem_rsp_next: Default::default(),
            fp_rsp_next: Default::default(),
            req_go: Default::default(),
            heartbeat: Default::default(),
            responses_sent: Default::default(),
            framing_seen: Default::default(),
            link_error_seen: Default::default(),
            raise: Default::default(),
            raise_code: Default::default(),
            k_rx_timeout: Constant::new(bits::<24>(setup.rx_timeout as u64)),
            k_resend: Constant::new(bits::<24>(setup.resend as u64)),
        }
    }
}

// `#[hdl_gen]` cannot translate match guards, so each `match` arm keeps its `if`.
#[allow(clippy::collapsible_match)]
impl<
        const L: usize,
        const NB: usize,
        const FB: usize,
        const FBP1: usize,
        const M: usize,
        const WAB: usize,
        const MAB: usize,
    > Logic for CoreBoardTop<L, NB, FB, FBP1, M, WAB, MAB>
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
            cmd_go,
            cmd_busy,
            hold,
            r_tag,
            r_status,
            r_value,
            r_flags,
            r_clean,
            r_ever,
            rsp_pending,
            clean_count,
            raise_r,
            raise_code_r,
            err_pending,
            err_code,
            err_kind,
            err_tag,
            req_kind,
            req_idle,
            seq,
            req_due,
            req_timer,
            req_fp_tag,
            req_mem_addr,
            req_mem_wdata,
            comp_kind,
            mem_rsp_next,
            fp_rsp_next,
            req_go,
            heartbeat,
            responses_sent,
            framing_seen,
            link_error_seen
        );
        clock!(self, clock, core, block_ram, uart_rx, uart_tx, receiver, pages, decoder, transmitter);
        // Reset: power-on (flip-flops start at zero) or the button, synchronized.
        self.rst_sync0.d.next = self.rst_n.val();
        self.rst_sync1.d.next = self.rst_sync0.q.val();
        if !self.por_count.q.val().all() {
            self.por_count.d.next = self.por_count.q.val() + 1;
        }
        self.reset.d.next = !self.por_count.q.val().all() | !self.rst_sync1.q.val();
        self.core.reset.next = self.reset.q.val();
        self.uart_rx.reset.next = self.reset.q.val();
        self.uart_tx.reset.next = self.reset.q.val();
        self.receiver.reset.next = self.reset.q.val();
        self.pages.reset.next = self.reset.q.val();
        self.decoder.reset.next = self.reset.q.val();
        self.transmitter.reset.next = self.reset.q.val();

        // --- The core: fixed geometry, the table in block RAM ---------------
        self.core.cleaner_hold.next = self.hold.q.val();
        self.core.bloom_enable.next = true;
        self.core.fsm_limit_log2.next = 7.into();
        FtlSettingsSource::join(&mut self.ftl_settings.cfg, &mut self.core.cfg);
        TableController::join(&mut self.core.tbl, &mut self.block_ram.port);

        // Commands from the decoder; pages and answers from the receiver.
        self.core.cmd.valid.next = self.cmd_go.q.val();
        self.core.cmd.op.next = self.decoder.op.val();
        self.core.cmd.tag.next = self.receiver.tag.val();
        self.core.cmd.lpa.next = self.decoder.lpa.val();
        self.core.cmd.fp.next = self.decoder.fp.val();
        if self.cmd_go.q.val() & self.core.cmd.ready.val() {
            self.cmd_go.d.next = false;
        }
        PageWordSource::join(&mut self.pages.page, &mut self.core.page);
        self.core.page_drop.next = self.pages.page_drop.val();
        self.core.mem.rsp_valid.next = self.mem_rsp_next.q.val();
        self.core.mem.rsp_rdata.next = self.receiver.payload.val().get_bits::<64>(0);
        self.core.fp.rsp_valid.next = self.fp_rsp_next.q.val();
        self.core.fp.rsp_tag.next = self.req_fp_tag.q.val();
        self.core.fp.rsp_rdata.next = self.receiver.payload.val().get_bits::<160>(0);

        // Responses: latched (for `A`), with the cleaner steps before them.
        if self.core.cleaned.val() {
            self.clean_count.d.next = self.clean_count.q.val() + 1;
        }
        self.core.rsp.ready.next = !self.rsp_pending.q.val();
        if self.core.rsp.valid.val() & !self.rsp_pending.q.val() {
            self.r_tag.d.next = self.core.rsp.tag.val();
            self.r_status.d.next = self.core.rsp.status.val();
            self.r_value.d.next = self.core.rsp.value.val();
            self.r_flags.d.next = self.core.rsp.flags.val();
            self.r_clean.d.next = self.clean_count.q.val();
            self.r_ever.d.next = true;
            self.rsp_pending.d.next = true;
            self.cmd_busy.d.next = false;
        }

        // --- Receiver: frames from the UART's bytes, pages into the lanes ---
        // An error frame to send (`raise`: the receiver's, or the decoder's
        // below, which comes later and wins) is recorded once, below.
        self.uart_rx.rx.next = self.usb_rx.val();
        if self.uart_rx.framing_error.val() {
            self.framing_seen.d.next = true;
        }
        self.receiver.data.next = self.uart_rx.data.val();
        self.receiver.data_valid.next = self.uart_rx.valid.val();
        self.receiver.timeout.next = self.k_rx_timeout.val();
        self.receiver.page_begun.next = self.pages.begun.val();
        self.receiver.pad_done.next = self.pages.pad_done.val();
        // A page streams into the lane only when no command is being
        // served (its digest would be out of turn).
        self.pages.start.next = self.receiver.frame_start.val() | self.receiver.header_done.val();
        self.pages.open.next =
            self.receiver.header_done.val() & self.receiver.header_page.val() & !self.cmd_busy.q.val();
        self.pages.data.next = self.uart_rx.data.val();
        self.pages.page_byte.next = self.receiver.page_byte.val();
        self.pages.pad.next = self.receiver.padding.val();
        self.raise.next = self.receiver.raise.val();
        self.raise_code.next = self.receiver.raise_code.val();

        // --- Request decoder: what each whole frame asks for ---------------
        self.decoder.done.next = self.receiver.done.val();
        self.decoder.good.next = self.receiver.good.val();
        self.decoder.tag.next = self.receiver.tag.val();
        self.decoder.payload.next = self.receiver.payload.val();
        self.decoder.page_frame.next = self.receiver.page_frame.val();
        self.decoder.is_command.next = self.receiver.is_command.val();
        self.decoder.is_again.next = self.receiver.is_again.val();
        self.decoder.is_fp_data.next = self.receiver.is_fp_data.val();
        self.decoder.is_mem_data.next = self.receiver.is_mem_data.val();
        self.decoder.is_ack.next = self.receiver.is_ack.val();
        self.decoder.core_busy.next = self.cmd_busy.q.val();
        self.decoder.response_pending.next = self.rsp_pending.q.val();
        self.decoder.page_open.next = self.pages.active.val();
        self.decoder.answered.next = self.r_ever.q.val();
        self.decoder.answered_tag.next = self.r_tag.q.val();
        self.decoder.request.next = self.req_kind.q.val();
        self.decoder.request_tag.next = self.seq.q.val();
        self.decoder.request_sending.next = self.transmitter.sending_request.val();
        IndexCounters::join(&mut self.core.idx_stats, &mut self.decoder.counters);
        if self.decoder.reject.val() {
            self.raise.next = true;
            self.raise_code.next = self.decoder.reject_code.val();
        }
        if self.decoder.run.val() {
            self.cmd_go.d.next = true;
            self.cmd_busy.d.next = true;
            self.hold.d.next = self.decoder.more.val();
        }
        if self.decoder.resend.val() {
            self.rsp_pending.d.next = true;
        }
        // The frame's page is dropped when a decision says so.
        self.pages.drop.next = self.decoder.drop_page.val();

        // The frame's kind and tag are unchanged a clock later (the next
        // frame's kind is bytes away).
        self.raise_r.d.next = self.raise.val();
        self.raise_code_r.d.next = self.raise_code.val();
        if self.raise_r.q.val() & !self.err_pending.q.val() {
            self.err_pending.d.next = true;
            self.err_code.d.next = self.raise_code_r.q.val();
            self.err_kind.d.next = self.receiver.kind.val();
            self.err_tag.d.next = self.receiver.tag.val();
        }
        // A response the decoder gives itself (no core response can arrive
        // meanwhile: the core is idle).
        if self.decoder.answer_here.val() {
            self.r_tag.d.next = self.receiver.tag.val();
            self.r_status.d.next = self.decoder.answer_status.val();
            self.r_value.d.next = self.decoder.answer_value.val();
            self.r_flags.d.next = 0.into();
            self.r_clean.d.next = self.clean_count.q.val();
            self.r_ever.d.next = true;
            self.rsp_pending.d.next = true;
        }

        // --- Requests to the host: one at a time, resent until answered ----
        // One of each [`HostRequest`] kind; a relocation first, then the FTL
        // memory, then the fingerprint store.
        self.comp_kind.d.next = self.req_kind.q.val();
        self.core.mv.ready.next = self.decoder.complete.val() & (self.comp_kind.q.val() == HostRequest::Move);
        self.core.mem.req_ready.next = self.decoder.complete.val()
            & ((self.comp_kind.q.val() == HostRequest::MemRead) | (self.comp_kind.q.val() == HostRequest::MemWrite));
        self.core.fp.req_ready.next = self.decoder.complete.val()
            & ((self.comp_kind.q.val() == HostRequest::FpRead) | (self.comp_kind.q.val() == HostRequest::FpWrite));
        self.mem_rsp_next.d.next = self.decoder.complete.val() & (self.comp_kind.q.val() == HostRequest::MemRead);
        self.fp_rsp_next.d.next = self.decoder.complete.val() & (self.comp_kind.q.val() == HostRequest::FpRead);
        if self.decoder.complete.val() {
            self.req_kind.d.next = HostRequest::None;
            self.req_idle.d.next = true;
            self.seq.d.next = self.seq.q.val() + 1;
        } else if self.req_idle.q.val() {
            self.req_due.d.next = true;
            self.req_timer.d.next = 0.into();
            self.req_idle.d.next = false;
            self.req_mem_addr.d.next = self.core.mem.req_addr.val();
            self.req_mem_wdata.d.next = self.core.mem.req_wdata.val();
            if self.core.mv.valid.val() {
                self.req_kind.d.next = HostRequest::Move;
            } else if self.core.mem.req_valid.val() {
                if self.core.mem.req_write.val() {
                    self.req_kind.d.next = HostRequest::MemWrite;
                } else {
                    self.req_kind.d.next = HostRequest::MemRead;
                }
            } else if self.core.fp.req_valid.val() {
                self.req_fp_tag.d.next = self.core.fp.req_tag.val();
                if self.core.fp.req_write.val() {
                    self.req_kind.d.next = HostRequest::FpWrite;
                } else {
                    self.req_kind.d.next = HostRequest::FpRead;
                }
            } else {
                self.req_due.d.next = false;
                self.req_idle.d.next = true;
            }
        } else if !self.req_due.q.val() & !self.transmitter.sending_request.val() {
            self.req_timer.d.next = self.req_timer.q.val() + 1;
            if self.req_timer.q.val() == self.k_resend.val() {
                self.req_due.d.next = true;
                self.req_timer.d.next = 0.into();
            }
        }

        // --- Transmitter: errors, then responses, then requests ------------
        self.transmitter.err_pending.next = self.err_pending.q.val();
        self.transmitter.err_tag.next = self.err_tag.q.val();
        self.transmitter.err_code.next = self.err_code.q.val();
        self.transmitter.err_kind.next = self.err_kind.q.val();
        self.transmitter.rsp_pending.next = self.rsp_pending.q.val();
        self.transmitter.rsp_tag.next = self.r_tag.q.val();
        self.transmitter.rsp_status.next = self.r_status.q.val();
        self.transmitter.rsp_value.next = self.r_value.q.val();
        self.transmitter.rsp_flags.next = self.r_flags.q.val();
        self.transmitter.rsp_cleaned.next = self.r_clean.q.val();
        // A request may go out: registered, with the live `complete` and the
        // receiver's `done` (an answer being taken) checked as it starts.
        self.req_go.d.next = self.req_due.q.val() & !self.req_idle.q.val() & !self.decoder.complete.val();
        self.transmitter.request_ready.next =
            self.req_go.q.val() & !self.decoder.complete.val() & !self.receiver.done.val();
        self.transmitter.request.next = self.req_kind.q.val();
        self.transmitter.seq.next = self.seq.q.val();
        // PPAs only: the board's settings give the FTL no NVM slots (see
        // `BoardSetup::ftl_settings`), so no move names one (bit 24).
        self.transmitter.mv_from.next = bit_cast::<ADDR_BITS, MOVE_ADDR_BITS>(self.core.mv.from.val());
        self.transmitter.mv_to.next = bit_cast::<ADDR_BITS, MOVE_ADDR_BITS>(self.core.mv.to.val());
        self.transmitter.mem_addr.next = self.req_mem_addr.q.val();
        self.transmitter.mem_wdata.next = self.req_mem_wdata.q.val();
        self.transmitter.fp_addr.next = self.core.fp.req_addr.val();
        self.transmitter.fp_wdata.next = self.core.fp.req_wdata.val();
        if self.transmitter.request_started.val() {
            self.req_due.d.next = false;
            self.req_timer.d.next = 0.into();
        }
        if self.transmitter.error_sent.val() {
            self.err_pending.d.next = false;
            self.link_error_seen.d.next = true;
        }
        if self.transmitter.response_sent.val() {
            self.rsp_pending.d.next = false;
            self.responses_sent.d.next = self.responses_sent.q.val() + 1;
        }
        self.uart_tx.data.next = self.transmitter.data.val();
        self.uart_tx.valid.next = self.transmitter.valid.val();
        self.transmitter.ready.next = self.uart_tx.ready.val();
        self.usb_tx.next = self.uart_tx.tx.val();

        self.heartbeat.d.next = self.heartbeat.q.val() + 1;
        self.led.next = (bit_cast::<8, 4>(self.responses_sent.q.val()) << 4)
            | (bit_cast::<8, 1>(self.link_error_seen.q.val().into()) << 3)
            | (bit_cast::<8, 1>(self.framing_seen.q.val().into()) << 2)
            | (bit_cast::<8, 1>(self.cmd_busy.q.val().into()) << 1)
            | bit_cast::<8, 1>(self.heartbeat.q.val().get_bit(25).into());

        if self.reset.q.val() {
            self.cmd_go.d.next = false;
            self.cmd_busy.d.next = false;
            self.hold.d.next = false;
            self.r_ever.d.next = false;
            self.rsp_pending.d.next = false;
            self.clean_count.d.next = 0.into();
            self.err_pending.d.next = false;
            self.raise_r.d.next = false;
            self.req_kind.d.next = HostRequest::None;
            self.req_idle.d.next = true;
            self.req_due.d.next = false;
            self.seq.d.next = 0.into();
            self.mem_rsp_next.d.next = false;
            self.fp_rsp_next.d.next = false;
            self.req_go.d.next = false;
            self.framing_seen.d.next = false;
            self.link_error_seen.d.next = false;
            self.responses_sent.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BoardSetup;
    use crate::config::{core_board_verilog, CU};

    #[test]
    fn the_cu_whole_core_board_top_is_synthesizable() {
        let verilog = core_board_verilog(&CU, &BoardSetup::CU).expect("the cu index is on chip");
        let stats = ditto_synth::check_synthesizable(&verilog, "top").unwrap_or_else(|e| panic!("{e}"));
        // The hasher has about 1,100 flip-flops, the index about 750 and the
        // controller about 600: none of it may be optimized away.
        assert!(stats.dffs > 3_000 && stats.luts > 4_500, "the whole core survives synthesis: {stats:?}");
        assert_eq!(
            stats.ebrs, 27,
            "the index table: 20 EBRs of ways, 5 of bucket metadata; the controller: 2 of counters: {stats:?}"
        );
    }
}
