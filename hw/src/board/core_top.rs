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
use super::crc32::Crc32Byte;
use super::uart::{UartRx, UartTx};
use crate::ftl::ditto_core::DittoCore;
use crate::ftl::flash::Geometry;
use crate::ftl::{MEM_ADDR_BITS, MEM_DATA_BITS};
use crate::index::table::BlockRamTable;
use crate::ports::TableController;
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

    fn log2(n: u32, what: &str) -> u64 {
        assert!(n.is_power_of_two(), "{what} ({n}) must be a power of two");
        n.trailing_zeros() as u64
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
    block_ram: BlockRamTable<WAB, MAB>,
    uart_rx: UartRx,
    uart_tx: UartTx,
    rst_sync0: DFF<Bit>,
    rst_sync1: DFF<Bit>,
    por_count: DFF<Bits<5>>,
    reset: DFF<Bit>,
    rx_state: DFF<Bits<4>>,
    rx_kind: DFF<Bits<8>>,
    rx_tag: DFF<Bits<8>>,
    rx_len: DFF<Bits<13>>,
    rx_count: DFF<Bits<13>>,
    /// The CRC-32 over the frame so far (its own four bytes included, a
    /// good frame's ends at 0).
    rx_crc: DFF<Bits<32>>,
    /// CRC bytes still to come after the one in hand, in state 6.
    rx_crc_left: DFF<Bits<2>>,
    /// The frame's last byte was taken a clock ago (its CRC is in
    /// `rx_crc`): `rx_done` and `rx_good` follow from flip-flops.
    rx_last: DFF<Bit>,
    rx_shift: DFF<Bits<192>>,
    rx_gap: DFF<Bits<24>>,
    rx_page: DFF<Bit>,
    rx_done: DFF<Bit>,
    rx_good: DFF<Bit>,
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
    page_drop: DFF<Bit>,
    cmd_go: DFF<Bit>,
    cmd_busy: DFF<Bit>,
    hold: DFF<Bit>,
    r_tag: DFF<Bits<8>>,
    r_status: DFF<Bits<4>>,
    r_value: DFF<Bits<32>>,
    r_flags: DFF<Bits<3>>,
    r_clean: DFF<Bits<16>>,
    r_ever: DFF<Bit>,
    /// The received command is not one the core takes (`ErrMalformed`).
    c_malformed: DFF<Bit>,
    /// The received command is `STATS` of an index counter (answered here).
    c_index_stats: DFF<Bit>,
    /// The LPA field's bits 23..5 are all zero (a clock ahead of
    /// `c_index_stats`, which needs bits 4..0 in 12..17 as well).
    lpa_hi_zero: DFF<Bit>,
    rsp_pending: DFF<Bit>,
    /// `local_rsp`, a clock later.
    local_rsp_r: DFF<Bit>,
    /// Decoded a clock after what they decode is set, for the frame-end
    /// decision (the header is complete bytes before the frame ends): the
    /// frame is a whole page command; the next payload byte falls in the
    /// 24-byte command (`rx_in_command`) or is the payload's last
    /// (`rx_at_last`); its kind is `C`, `A`, `F`, `D`, `K`; its tag is that
    /// of the last response; it answers the request.
    page_frame: DFF<Bit>,
    rx_in_command: DFF<Bit>,
    rx_at_last: DFF<Bit>,
    rx_is_c: DFF<Bit>,
    rx_is_a: DFF<Bit>,
    rx_is_f: DFF<Bit>,
    rx_is_d: DFF<Bit>,
    rx_is_k: DFF<Bit>,
    tag_again: DFF<Bit>,
    tag_answers: DFF<Bit>,
    /// The low bits of a `STATS` selector of an index counter.
    idx_sel: DFF<Bits<5>>,
    clean_count: DFF<Bits<16>>,
    /// An error frame raised on the last clock, and its code (the error is
    /// recorded a clock after it is decided).
    raise_r: DFF<Bit>,
    raise_code_r: DFF<Bits<8>>,
    /// `rx_gap` reached the receive timeout on the last clock.
    rx_timed_out: DFF<Bit>,
    err_pending: DFF<Bit>,
    err_code: DFF<Bits<8>>,
    err_kind: DFF<Bits<8>>,
    err_tag: DFF<Bits<8>>,
    req_kind: DFF<Bits<3>>,
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
    complete: DFF<Bit>,
    comp_kind: DFF<Bits<3>>,
    mem_rsp_next: DFF<Bit>,
    fp_rsp_next: DFF<Bit>,
    tx_kind: DFF<Bits<8>>,
    /// A frame is on its way out (`tx_kind` is not zero).
    tx_busy: DFF<Bit>,
    /// A request is due and may start (see `req_go` below).
    req_go: DFF<Bit>,
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
    heartbeat: DFF<Bits<26>>,
    responses_sent: DFF<Bits<4>>,
    framing_seen: DFF<Bit>,
    link_error_seen: DFF<Bit>,
    rx_byte: Signal<Local, Bits<8>>,
    rx_crc_next: Signal<Local, Bits<32>>,
    tx_crc_next: Signal<Local, Bits<32>>,
    /// One CRC-32 byte step each for the receiver and the transmitter.
    rx_crc32: Crc32Byte,
    tx_crc32: Crc32Byte,
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
    lpa: Signal<Local, Bits<24>>,
    op: Signal<Local, Bits<8>>,
    answer_ok: Signal<Local, Bit>,
    idx_value: Signal<Local, Bits<32>>,
    raise: Signal<Local, Bit>,
    raise_code: Signal<Local, Bits<8>>,
    local_rsp: Signal<Local, Bit>,
    hdr_page: Signal<Local, Bit>,
    hdr_payload: Signal<Local, Bit>,
    hdr_empty: Signal<Local, Bit>,
    k_dev_bits: Constant<Bits<2>>,
    k_block_bits: Constant<Bits<4>>,
    k_page_bits: Constant<Bits<4>>,
    k_reserve: Constant<Bits<16>>,
    k_lpas: Constant<Bits<24>>,
    k_array_wide: Constant<Bit>,
    k_refcount_max: Constant<Bits<{ crate::ftl::REFCOUNT_BITS }>>,
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
        assert!(g.devices <= 4 && g.reserve_blocks >= 1 && setup.lpas >= 1 && setup.lpas < 1 << 24);
        assert!(setup.rx_timeout > 12 * setup.cycles_per_bit, "the receive timeout must outlast a byte");
        assert!(setup.resend < 1 << 24 && setup.rx_timeout < 1 << 24);
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            usb_rx: Default::default(),
            usb_tx: Default::default(),
            led: Default::default(),
            core: DittoCore::for_config(config),
            block_ram: Default::default(),
            uart_rx: UartRx::new(setup.cycles_per_bit),
            uart_tx: UartTx::new(setup.cycles_per_bit),
            rst_sync0: Default::default(),
            rst_sync1: Default::default(),
            por_count: Default::default(),
            reset: Default::default(),
            rx_state: Default::default(),
            rx_kind: Default::default(),
            rx_tag: Default::default(),
            rx_len: Default::default(),
            rx_count: Default::default(),
            rx_crc: Default::default(),
            rx_crc_left: Default::default(),
            rx_last: Default::default(),
            rx_shift: Default::default(),
            rx_gap: Default::default(),
            rx_page: Default::default(),
            rx_done: Default::default(),
            rx_good: Default::default(),
            assembly: Default::default(),
            byte_in_word: Default::default(),
            word: Default::default(),
            word_pending: Default::default(),
            page_words: Default::default(),
            word_end: Default::default(),
            page_full: Default::default(),
            page_drop: Default::default(),
            cmd_go: Default::default(),
            cmd_busy: Default::default(),
            hold: Default::default(),
            r_tag: Default::default(),
            r_status: Default::default(),
            r_value: Default::default(),
            r_flags: Default::default(),
            r_clean: Default::default(),
            r_ever: Default::default(),
            c_malformed: Default::default(),
            c_index_stats: Default::default(),
            lpa_hi_zero: Default::default(),
            rsp_pending: Default::default(),
            local_rsp_r: Default::default(),
            page_frame: Default::default(),
            rx_in_command: Default::default(),
            rx_at_last: Default::default(),
            rx_is_c: Default::default(),
            rx_is_a: Default::default(),
            rx_is_f: Default::default(),
            rx_is_d: Default::default(),
            rx_is_k: Default::default(),
            tag_again: Default::default(),
            tag_answers: Default::default(),
            idx_sel: Default::default(),
            clean_count: Default::default(),
            raise_r: Default::default(),
            raise_code_r: Default::default(),
            rx_timed_out: Default::default(),
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
            complete: Default::default(),
            comp_kind: Default::default(),
            mem_rsp_next: Default::default(),
            fp_rsp_next: Default::default(),
            tx_kind: Default::default(),
            tx_busy: Default::default(),
            req_go: Default::default(),
            tx_tag: Default::default(),
            tx_len: Default::default(),
            tx_index: Default::default(),
            tx_at: Default::default(),
            tx_crc: Default::default(),
            tx_data: Default::default(),
            tx_b_hdr: Default::default(),
            tx_b_r: Default::default(),
            tx_b_v: Default::default(),
            tx_b_qw: Default::default(),
            tx_b_w: Default::default(),
            tx_b_mn: Default::default(),
            tx_b_n: Default::default(),
            tx_b_e: Default::default(),
            tx_pre: Default::default(),
            tx_fresh_a: Default::default(),
            tx_fresh_b: Default::default(),
            tx_fresh: Default::default(),
            tx_in_crc: Default::default(),
            tx_at_crc_last: Default::default(),
            tx_is_e: Default::default(),
            tx_is_m: Default::default(),
            tx_is_n: Default::default(),
            tx_is_q: Default::default(),
            tx_is_r: Default::default(),
            tx_is_v: Default::default(),
            tx_is_w: Default::default(),
            tx_crc_at: Default::default(),
            tx_crc_last_at: Default::default(),
            tx_is_req: Default::default(),
            heartbeat: Default::default(),
            responses_sent: Default::default(),
            framing_seen: Default::default(),
            link_error_seen: Default::default(),
            rx_byte: Default::default(),
            rx_crc_next: Default::default(),
            tx_crc_next: Default::default(),
            rx_crc32: Default::default(),
            tx_crc32: Default::default(),
            m_r: Default::default(),
            m_v: Default::default(),
            m_qw: Default::default(),
            m_mn: Default::default(),
            m_e: Default::default(),
            m_w: Default::default(),
            m_n: Default::default(),
            at: Default::default(),
            tx_accept: Default::default(),
            lpa: Default::default(),
            op: Default::default(),
            answer_ok: Default::default(),
            idx_value: Default::default(),
            raise: Default::default(),
            raise_code: Default::default(),
            local_rsp: Default::default(),
            hdr_page: Default::default(),
            hdr_payload: Default::default(),
            hdr_empty: Default::default(),
            k_dev_bits: Constant::new(bits::<2>(BoardSetup::log2(g.devices, "devices"))),
            k_block_bits: Constant::new(bits::<4>(BoardSetup::log2(g.blocks_per_device, "blocks per device"))),
            k_page_bits: Constant::new(bits::<4>(BoardSetup::log2(g.pages_per_block, "pages per block"))),
            k_reserve: Constant::new(bits::<16>(g.reserve_blocks as u64)),
            k_lpas: Constant::new(bits::<24>(setup.lpas as u64)),
            k_array_wide: Constant::new(setup.array_wide),
            k_refcount_max: Constant::new(bits(setup.refcount_max as u64)),
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
            rx_state,
            rx_kind,
            rx_tag,
            rx_len,
            rx_count,
            rx_crc,
            rx_crc_left,
            rx_last,
            rx_shift,
            rx_gap,
            rx_page,
            rx_done,
            rx_good,
            assembly,
            byte_in_word,
            word,
            word_pending,
            page_words,
            word_end,
            page_full,
            page_drop,
            cmd_go,
            cmd_busy,
            hold,
            r_tag,
            r_status,
            r_value,
            r_flags,
            r_clean,
            r_ever,
            c_malformed,
            c_index_stats,
            lpa_hi_zero,
            rsp_pending,
            local_rsp_r,
            page_frame,
            rx_in_command,
            rx_at_last,
            rx_is_c,
            rx_is_a,
            rx_is_f,
            rx_is_d,
            rx_is_k,
            tag_again,
            tag_answers,
            idx_sel,
            clean_count,
            raise_r,
            raise_code_r,
            rx_timed_out,
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
            complete,
            comp_kind,
            mem_rsp_next,
            fp_rsp_next,
            tx_kind,
            tx_busy,
            req_go,
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
            tx_is_req,
            heartbeat,
            responses_sent,
            framing_seen,
            link_error_seen
        );
        clock!(self, clock, core, block_ram, uart_rx, uart_tx);
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

        // --- The core: fixed geometry, the table in block RAM ---------------
        self.core.cleaner_hold.next = self.hold.q.val();
        self.core.bloom_enable.next = true;
        self.core.fsm_limit_log2.next = 7.into();
        self.core.cfg.dev_bits.next = self.k_dev_bits.val();
        self.core.cfg.block_bits.next = self.k_block_bits.val();
        self.core.cfg.page_bits.next = self.k_page_bits.val();
        self.core.cfg.reserve.next = self.k_reserve.val();
        self.core.cfg.lpas.next = self.k_lpas.val();
        self.core.cfg.array_wide.next = self.k_array_wide.val();
        self.core.cfg.refcount_max.next = self.k_refcount_max.val();
        TableController::join(&mut self.core.tbl, &mut self.block_ram.port);

        // Commands, pages and answers from the receiver.
        self.op.next = self.rx_shift.q.val().get_bits::<8>(184);
        self.lpa.next = self.rx_shift.q.val().get_bits::<24>(160);
        self.core.cmd.valid.next = self.cmd_go.q.val();
        self.core.cmd.op.next = self.rx_shift.q.val().get_bits::<3>(184);
        self.core.cmd.tag.next = self.rx_tag.q.val();
        self.core.cmd.lpa.next = self.lpa.val();
        self.core.cmd.fp.next = self.rx_shift.q.val().get_bits::<160>(0);
        if self.cmd_go.q.val() & self.core.cmd.ready.val() {
            self.cmd_go.d.next = false;
        }
        self.core.page.word.next = self.word.q.val();
        self.core.page.valid.next = self.word_pending.q.val();
        if self.word_pending.q.val() & self.core.page.ready.val() {
            self.word_pending.d.next = false;
        }
        self.page_drop.d.next = false;
        self.core.page_drop.next = self.page_drop.q.val();
        self.core.mem.rsp_valid.next = self.mem_rsp_next.q.val();
        self.core.mem.rsp_rdata.next = self.rx_shift.q.val().get_bits::<64>(0);
        self.core.fp.rsp_valid.next = self.fp_rsp_next.q.val();
        self.core.fp.rsp_tag.next = self.req_fp_tag.q.val();
        self.core.fp.rsp_rdata.next = self.rx_shift.q.val().get_bits::<160>(0);

        // The index's counters, read by STATS selectors 12..17.
        self.idx_sel.d.next = self.lpa.val().get_bits::<5>(0);
        self.idx_value.next = 0.into();
        if self.idx_sel.q.val() == 12 {
            self.idx_value.next = self.core.idx_stats.commands.val();
        } else if self.idx_sel.q.val() == 13 {
            self.idx_value.next = self.core.idx_stats.bloom_negatives.val();
        } else if self.idx_sel.q.val() == 14 {
            self.idx_value.next = self.core.idx_stats.false_positives.val();
        } else if self.idx_sel.q.val() == 15 {
            self.idx_value.next = self.core.idx_stats.rebuilds.val();
        } else if self.idx_sel.q.val() == 16 {
            self.idx_value.next = self.core.idx_stats.signature_misses.val();
        } else if self.idx_sel.q.val() == 17 {
            self.idx_value.next = self.core.idx_stats.entries_used.val();
        }

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

        // --- Receiver -------------------------------------------------------
        // An error frame to send (`raise`), and a response the top gives
        // itself (`local_rsp`): each recorded once, below.
        self.raise.next = false;
        self.raise_code.next = 0.into();
        self.local_rsp.next = false;
        // States: 0 hunt, 1 kind, 2 tag, 3 length high, 4 length low,
        // 5 payload, 6 the CRC's first three bytes, 7 its last, 8 padding an
        // abandoned page.
        self.rx_byte.next = self.uart_rx.data.val();
        self.uart_rx.rx.next = self.usb_rx.val();
        if self.uart_rx.framing_error.val() {
            self.framing_seen.d.next = true;
        }
        // CRC-32/MPEG-2, one byte per step (the CRC's own bytes too).
        self.rx_crc32.crc.next = self.rx_crc.q.val();
        self.rx_crc32.data_in.next = self.rx_byte.val();
        self.rx_crc_next.next = self.rx_crc32.crc_out.val();
        // A frame's last byte: done a clock later, its CRC from flip-flops.
        self.rx_last.d.next = false;
        self.rx_good.d.next = self.rx_crc.q.val() == 0;
        if self.rx_state.q.val() != 6 {
            self.rx_crc_left.d.next = 2.into();
        }
        self.page_frame.d.next = self.rx_len.q.val() == 4120;
        self.word_end.d.next = self.byte_in_word.q.val() == 3;
        self.page_full.d.next = self.page_words.q.val() == 1024;
        // Where the next payload byte falls (registered: bytes are many
        // clocks apart): in the 24-byte command, and the payload's last.
        self.rx_in_command.d.next = self.rx_count.q.val() < 24;
        self.rx_at_last.d.next = (self.rx_count.q.val() + 1) == self.rx_len.q.val();
        self.rx_is_c.d.next = self.rx_kind.q.val() == 0x43;
        self.rx_is_a.d.next = self.rx_kind.q.val() == 0x41;
        self.rx_is_f.d.next = self.rx_kind.q.val() == 0x46;
        self.rx_is_d.d.next = self.rx_kind.q.val() == 0x44;
        self.rx_is_k.d.next = self.rx_kind.q.val() == 0x4b;
        self.tag_again.d.next = self.r_ever.q.val() & (self.rx_tag.q.val() == self.r_tag.q.val());
        self.tag_answers.d.next = self.rx_tag.q.val() == self.seq.q.val();
        // The header's last byte is on `rx_byte`: is the length the kind's?
        self.hdr_page.next = self.rx_is_c.q.val() & (self.rx_len.q.val() == 0x1000) & (self.rx_byte.val() == 0x18);
        self.hdr_payload.next = self.hdr_page.val()
            | ((self.rx_len.q.val() == 0)
                & ((self.rx_is_c.q.val() & (self.rx_byte.val() == 24))
                    | (self.rx_is_f.q.val() & (self.rx_byte.val() == 20))
                    | (self.rx_is_d.q.val() & (self.rx_byte.val() == 8))));
        self.hdr_empty.next =
            (self.rx_is_k.q.val() | self.rx_is_a.q.val()) & (self.rx_len.q.val() == 0) & (self.rx_byte.val() == 0);
        self.rx_done.d.next = self.rx_last.q.val();
        if (self.rx_state.q.val() == 0) | (self.rx_state.q.val() == 8) | self.uart_rx.valid.val() {
            self.rx_gap.d.next = 0.into();
        } else {
            self.rx_gap.d.next = self.rx_gap.q.val() + 1;
        }
        if self.uart_rx.valid.val() {
            match self.rx_state.q.val().index() {
                0 => {
                    if self.rx_byte.val() == 0xa5 {
                        self.rx_state.d.next = 1.into();
                        self.rx_crc.d.next = 0xffff_ffff_u64.into();
                        // Nothing of this frame is in the lane yet (an
                        // abandoned header must not pad the last frame's page).
                        self.rx_page.d.next = false;
                        self.page_words.d.next = 0.into();
                        self.byte_in_word.d.next = 0.into();
                    }
                }
                1 => {
                    self.rx_kind.d.next = self.rx_byte.val();
                    self.rx_crc.d.next = self.rx_crc_next.val();
                    self.rx_state.d.next = 2.into();
                }
                2 => {
                    self.rx_tag.d.next = self.rx_byte.val();
                    self.rx_crc.d.next = self.rx_crc_next.val();
                    self.rx_state.d.next = 3.into();
                }
                3 => {
                    self.rx_len.d.next = bit_cast::<13, 8>(self.rx_byte.val()) << 8;
                    self.rx_crc.d.next = self.rx_crc_next.val();
                    self.rx_state.d.next = 4.into();
                }
                4 => {
                    self.rx_len.d.next = self.rx_len.q.val() | bit_cast::<13, 8>(self.rx_byte.val());
                    self.rx_crc.d.next = self.rx_crc_next.val();
                    self.rx_count.d.next = 0.into();
                    self.page_words.d.next = 0.into();
                    self.byte_in_word.d.next = 0.into();
                    // A page streams into the lane only when no command is
                    // being served (its digest would be out of turn).
                    self.rx_page.d.next = self.hdr_page.val() & !self.cmd_busy.q.val();
                    if self.hdr_payload.val() {
                        self.rx_state.d.next = 5.into();
                    } else if self.hdr_empty.val() {
                        self.rx_state.d.next = 6.into();
                    } else {
                        self.rx_state.d.next = 0.into();
                        self.raise.next = true;
                        self.raise_code.next = 2.into();
                    }
                }
                5 => {
                    self.rx_crc.d.next = self.rx_crc_next.val();
                    self.rx_count.d.next = self.rx_count.q.val() + 1;
                    if self.rx_in_command.q.val() {
                        self.rx_shift.d.next = (self.rx_shift.q.val() << 8) | bit_cast::<192, 8>(self.rx_byte.val());
                    } else if self.rx_page.q.val() {
                        self.assembly.d.next = (self.assembly.q.val() << 8) | bit_cast::<24, 8>(self.rx_byte.val());
                        self.byte_in_word.d.next = self.byte_in_word.q.val() + 1;
                        if self.word_end.q.val() {
                            self.word.d.next = (bit_cast::<32, 24>(self.assembly.q.val()) << 8)
                                | bit_cast::<32, 8>(self.rx_byte.val());
                            self.word_pending.d.next = true;
                            self.page_words.d.next = self.page_words.q.val() + 1;
                        }
                    }
                    if self.rx_at_last.q.val() {
                        self.rx_state.d.next = 6.into();
                    }
                }
                6 => {
                    // The CRC's first three bytes.
                    self.rx_crc.d.next = self.rx_crc_next.val();
                    self.rx_crc_left.d.next = self.rx_crc_left.q.val() - 1;
                    if self.rx_crc_left.q.val() == 0 {
                        self.rx_state.d.next = 7.into();
                    }
                }
                7 => {
                    // Its last: the frame is complete.
                    self.rx_crc.d.next = self.rx_crc_next.val();
                    self.rx_state.d.next = 0.into();
                    self.rx_last.d.next = true;
                }
                _ => {}
            }
        }
        // A frame that stops arriving is abandoned; a page already begun is
        // completed with zero words so the lane stays in step.
        self.rx_timed_out.d.next = self.rx_gap.q.val() == self.k_rx_timeout.val();
        if self.rx_timed_out.q.val() & (self.rx_state.q.val() != 8) {
            // The error goes out once the page is padded: the host's resent
            // frame must not arrive while the receiver still pads.
            self.rx_state.d.next = 0.into();
            if self.rx_page.q.val() & ((self.page_words.q.val() != 0) | (self.byte_in_word.q.val() != 0)) {
                self.rx_state.d.next = 8.into();
            } else {
                self.raise.next = true;
                self.raise_code.next = 3.into();
            }
        }
        if (self.rx_state.q.val() == 8) & !self.word_pending.q.val() {
            if self.page_full.q.val() {
                self.page_drop.d.next = true;
                self.rx_state.d.next = 0.into();
                self.raise.next = true;
                self.raise_code.next = 3.into();
            } else {
                self.word.d.next = 0.into();
                self.word_pending.d.next = true;
                self.page_words.d.next = self.page_words.q.val() + 1;
            }
        }

        // What a command frame asks for, decided from its payload (registered,
        // in two steps: the payload is complete two bytes before the frame
        // ends). Opcodes 1..7 from bits (no comparator); `STATS` 12..17 from
        // the LPA field's zero top and its low five bits.
        self.c_malformed.d.next = !(((self.op.val().get_bits::<7>(0) == 0) & self.page_frame.q.val())
            | ((self.op.val().get_bits::<4>(3) == 0)
                & (self.op.val().get_bits::<3>(0) != 0)
                & !self.page_frame.q.val()));
        self.lpa_hi_zero.d.next = self.lpa.val().get_bits::<19>(5) == 0;
        self.c_index_stats.d.next = (self.op.val().get_bits::<7>(0) == 5)
            & self.lpa_hi_zero.q.val()
            & ((self.lpa.val().get_bits::<3>(2) == 3) | (self.lpa.val().get_bits::<4>(1) == 8));

        // A whole frame: act on it (the clock after its last byte).
        self.answer_ok.next = self.tag_answers.q.val() & !self.tx_is_req.q.val();
        self.complete.d.next = false;
        if self.rx_done.q.val() {
            if !self.rx_good.q.val() {
                self.raise.next = true;
                self.raise_code.next = 1.into();
                self.page_drop.d.next = self.rx_page.q.val();
            } else if self.rx_is_c.q.val() {
                if self.cmd_busy.q.val() | self.rsp_pending.q.val() | (self.page_frame.q.val() & !self.rx_page.q.val())
                {
                    self.raise.next = true;
                    self.raise_code.next = 4.into();
                    self.page_drop.d.next = self.rx_page.q.val();
                } else if self.tag_again.q.val() {
                    // A command sent again after its response was lost: it
                    // is not run twice; its response goes out again.
                    self.rsp_pending.d.next = true;
                    self.page_drop.d.next = self.rx_page.q.val();
                } else if self.c_malformed.q.val() {
                    // Not a command the core can take: ErrMalformed.
                    self.local_rsp.next = true;
                    self.page_drop.d.next = self.rx_page.q.val();
                } else if self.c_index_stats.q.val() {
                    self.local_rsp.next = true;
                } else {
                    self.cmd_go.d.next = true;
                    self.cmd_busy.d.next = true;
                    self.hold.d.next = self.op.val().get_bit(7);
                }
            } else if self.rx_is_a.q.val() {
                if self.r_ever.q.val() & !self.cmd_busy.q.val() {
                    self.rsp_pending.d.next = true;
                }
            } else if self.answer_ok.val() {
                // `F` answers a fingerprint read, `D` a memory read, `K` a write.
                if (self.rx_is_f.q.val() & (self.req_kind.q.val() == 4))
                    | (self.rx_is_d.q.val() & (self.req_kind.q.val() == 2))
                    | (self.rx_is_k.q.val()
                        & ((self.req_kind.q.val() == 1) | (self.req_kind.q.val() == 3) | (self.req_kind.q.val() == 5)))
                {
                    self.complete.d.next = true;
                }
            }
        }

        // The frame's kind and tag are unchanged a clock later (the next
        // frame's kind is bytes away).
        self.raise_r.d.next = self.raise.val();
        self.raise_code_r.d.next = self.raise_code.val();
        if self.raise_r.q.val() & !self.err_pending.q.val() {
            self.err_pending.d.next = true;
            self.err_code.d.next = self.raise_code_r.q.val();
            self.err_kind.d.next = self.rx_kind.q.val();
            self.err_tag.d.next = self.rx_tag.q.val();
        }
        // A response the top gives itself is recorded a clock after it is
        // decided (no core response can arrive meanwhile: the core is idle),
        // from what decided it (unchanged until the next frame's payload).
        self.local_rsp_r.d.next = self.local_rsp.val();
        if self.local_rsp_r.q.val() {
            self.r_tag.d.next = self.rx_tag.q.val();
            if self.c_malformed.q.val() {
                self.r_status.d.next = 10.into();
                self.r_value.d.next = 0.into();
            } else {
                self.r_status.d.next = 5.into();
                self.r_value.d.next = self.idx_value.val();
            }
            self.r_flags.d.next = 0.into();
            self.r_clean.d.next = self.clean_count.q.val();
            self.r_ever.d.next = true;
            self.rsp_pending.d.next = true;
        }

        // --- Requests to the host: one at a time, resent until answered ----
        // Kinds: 1 relocation, 2 memory read, 3 memory write, 4 fingerprint
        // read, 5 fingerprint write.
        self.comp_kind.d.next = self.req_kind.q.val();
        self.core.mv.ready.next = self.complete.q.val() & (self.comp_kind.q.val() == 1);
        self.core.mem.req_ready.next =
            self.complete.q.val() & ((self.comp_kind.q.val() == 2) | (self.comp_kind.q.val() == 3));
        self.core.fp.req_ready.next =
            self.complete.q.val() & ((self.comp_kind.q.val() == 4) | (self.comp_kind.q.val() == 5));
        self.mem_rsp_next.d.next = self.complete.q.val() & (self.comp_kind.q.val() == 2);
        self.fp_rsp_next.d.next = self.complete.q.val() & (self.comp_kind.q.val() == 4);
        if self.complete.q.val() {
            self.req_kind.d.next = 0.into();
            self.req_idle.d.next = true;
            self.seq.d.next = self.seq.q.val() + 1;
        } else if self.req_idle.q.val() {
            self.req_due.d.next = true;
            self.req_timer.d.next = 0.into();
            self.req_idle.d.next = false;
            self.req_mem_addr.d.next = self.core.mem.req_addr.val();
            self.req_mem_wdata.d.next = self.core.mem.req_wdata.val();
            if self.core.mv.valid.val() {
                self.req_kind.d.next = 1.into();
            } else if self.core.mem.req_valid.val() {
                if self.core.mem.req_write.val() {
                    self.req_kind.d.next = 3.into();
                } else {
                    self.req_kind.d.next = 2.into();
                }
            } else if self.core.fp.req_valid.val() {
                self.req_fp_tag.d.next = self.core.fp.req_tag.val();
                if self.core.fp.req_write.val() {
                    self.req_kind.d.next = 5.into();
                } else {
                    self.req_kind.d.next = 4.into();
                }
            } else {
                self.req_due.d.next = false;
                self.req_idle.d.next = true;
            }
        } else if !self.req_due.q.val() & !self.tx_is_req.q.val() {
            self.req_timer.d.next = self.req_timer.q.val() + 1;
            if self.req_timer.q.val() == self.k_resend.val() {
                self.req_due.d.next = true;
                self.req_timer.d.next = 0.into();
            }
        }

        // --- Transmitter: errors, then responses, then requests ------------
        self.tx_crc32.crc.next = self.tx_crc.q.val();
        self.tx_crc32.data_in.next = self.tx_data.q.val();
        self.tx_crc_next.next = self.tx_crc32.crc_out.val();
        // `tx_fresh` implies a frame under way (both clear on its last byte).
        self.uart_tx.valid.next = self.tx_fresh.q.val();
        self.tx_accept.next = self.uart_tx.valid.val() & self.uart_tx.ready.val();
        // Registered: `tx_index` changed at least two clocks before the next
        // accept. The low CRC byte is the frame's last.
        self.tx_in_crc.d.next = self.tx_index.q.val() >= self.tx_crc_at.q.val();
        self.tx_at_crc_last.d.next = self.tx_index.q.val() == self.tx_crc_last_at.q.val();
        self.tx_fresh_a.d.next = self.tx_busy.q.val();
        // A request may go out: registered, with the live `complete` and
        // `rx_done` (an answer being taken) checked as it starts.
        self.req_go.d.next = self.req_due.q.val() & !self.req_idle.q.val() & !self.complete.q.val();
        self.tx_fresh_b.d.next = self.tx_fresh_a.q.val();
        self.tx_fresh.d.next = self.tx_fresh_b.q.val();
        if !self.tx_busy.q.val() {
            self.tx_index.d.next = 0.into();
            self.tx_at.d.next = 1.into();
            self.tx_crc.d.next = 0xffff_ffff_u64.into();
            if self.err_pending.q.val() {
                self.tx_kind.d.next = 0x45.into();
                self.tx_busy.d.next = true;
                self.tx_tag.d.next = self.err_tag.q.val();
                self.tx_len.d.next = 2.into();
            } else if self.rsp_pending.q.val() {
                self.tx_kind.d.next = 0x52.into();
                self.tx_busy.d.next = true;
                self.tx_tag.d.next = self.r_tag.q.val();
                self.tx_len.d.next = 8.into();
            } else if self.req_go.q.val() & !self.complete.q.val() & !self.rx_done.q.val() {
                self.tx_busy.d.next = true;
                self.tx_tag.d.next = self.seq.q.val();
                self.tx_is_req.d.next = true;
                self.req_due.d.next = false;
                self.req_timer.d.next = 0.into();
                if self.req_kind.q.val() == 1 {
                    self.tx_kind.d.next = 0x56.into();
                    self.tx_len.d.next = 6.into();
                } else if self.req_kind.q.val() == 2 {
                    self.tx_kind.d.next = 0x4d.into();
                    self.tx_len.d.next = 4.into();
                } else if self.req_kind.q.val() == 3 {
                    self.tx_kind.d.next = 0x4e.into();
                    self.tx_len.d.next = 12.into();
                } else if self.req_kind.q.val() == 4 {
                    self.tx_kind.d.next = 0x51.into();
                    self.tx_len.d.next = 2.into();
                } else {
                    self.tx_kind.d.next = 0x57.into();
                    self.tx_len.d.next = 22.into();
                }
            }
        } else if self.tx_accept.val() {
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
                self.tx_busy.d.next = false;
                self.tx_is_req.d.next = false;
                if self.tx_is_e.q.val() {
                    self.err_pending.d.next = false;
                    self.link_error_seen.d.next = true;
                } else if self.tx_is_r.q.val() {
                    self.rsp_pending.d.next = false;
                    self.responses_sent.d.next = self.responses_sent.q.val() + 1;
                }
            }
        }
        // The frame's kind and CRC positions, decoded a clock after they are
        // set (the first byte that depends on them is several bytes later),
        // so the byte multiplexer below starts from flip-flops.
        self.tx_is_e.d.next = self.tx_kind.q.val() == 0x45;
        self.tx_is_m.d.next = self.tx_kind.q.val() == 0x4d;
        self.tx_is_n.d.next = self.tx_kind.q.val() == 0x4e;
        self.tx_is_q.d.next = self.tx_kind.q.val() == 0x51;
        self.tx_is_r.d.next = self.tx_kind.q.val() == 0x52;
        self.tx_is_v.d.next = self.tx_kind.q.val() == 0x56;
        self.tx_is_w.d.next = self.tx_kind.q.val() == 0x57;
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
        self.tx_b_hdr.d.next = (bits::<8>(0xa5) & self.at[0].val())
            | (self.tx_kind.q.val() & self.at[1].val())
            | (self.tx_tag.q.val() & self.at[2].val())
            | (bit_cast::<8, 5>(self.tx_len.q.val()) & self.at[4].val());
        self.tx_b_r.d.next = (bit_cast::<8, 4>(self.r_status.q.val()) & self.at[5].val())
            | (self.r_value.q.val().get_bits::<8>(24) & self.at[6].val())
            | (self.r_value.q.val().get_bits::<8>(16) & self.at[7].val())
            | (self.r_value.q.val().get_bits::<8>(8) & self.at[8].val())
            | (self.r_value.q.val().get_bits::<8>(0) & self.at[9].val())
            | (bit_cast::<8, 3>(self.r_flags.q.val()) & self.at[10].val())
            | (self.r_clean.q.val().get_bits::<8>(8) & self.at[11].val())
            | (self.r_clean.q.val().get_bits::<8>(0) & self.at[12].val());
        self.tx_b_v.d.next = (self.core.mv.from.val().get_bits::<8>(16) & self.at[5].val())
            | (self.core.mv.from.val().get_bits::<8>(8) & self.at[6].val())
            | (self.core.mv.from.val().get_bits::<8>(0) & self.at[7].val())
            | (self.core.mv.to.val().get_bits::<8>(16) & self.at[8].val())
            | (self.core.mv.to.val().get_bits::<8>(8) & self.at[9].val())
            | (self.core.mv.to.val().get_bits::<8>(0) & self.at[10].val());
        self.tx_b_qw.d.next = (self.core.fp.req_addr.val().get_bits::<8>(8) & self.at[5].val())
            | (self.core.fp.req_addr.val().get_bits::<8>(0) & self.at[6].val());
        self.tx_b_w.d.next = (self.core.fp.req_wdata.val().get_bits::<8>(152) & self.at[7].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(144) & self.at[8].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(136) & self.at[9].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(128) & self.at[10].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(120) & self.at[11].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(112) & self.at[12].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(104) & self.at[13].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(96) & self.at[14].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(88) & self.at[15].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(80) & self.at[16].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(72) & self.at[17].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(64) & self.at[18].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(56) & self.at[19].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(48) & self.at[20].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(40) & self.at[21].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(32) & self.at[22].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(24) & self.at[23].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(16) & self.at[24].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(8) & self.at[25].val())
            | (self.core.fp.req_wdata.val().get_bits::<8>(0) & self.at[26].val());
        self.tx_b_mn.d.next = (self.req_mem_addr.q.val().get_bits::<8>(24) & self.at[5].val())
            | (self.req_mem_addr.q.val().get_bits::<8>(16) & self.at[6].val())
            | (self.req_mem_addr.q.val().get_bits::<8>(8) & self.at[7].val())
            | (self.req_mem_addr.q.val().get_bits::<8>(0) & self.at[8].val());
        self.tx_b_n.d.next = (self.req_mem_wdata.q.val().get_bits::<8>(56) & self.at[9].val())
            | (self.req_mem_wdata.q.val().get_bits::<8>(48) & self.at[10].val())
            | (self.req_mem_wdata.q.val().get_bits::<8>(40) & self.at[11].val())
            | (self.req_mem_wdata.q.val().get_bits::<8>(32) & self.at[12].val())
            | (self.req_mem_wdata.q.val().get_bits::<8>(24) & self.at[13].val())
            | (self.req_mem_wdata.q.val().get_bits::<8>(16) & self.at[14].val())
            | (self.req_mem_wdata.q.val().get_bits::<8>(8) & self.at[15].val())
            | (self.req_mem_wdata.q.val().get_bits::<8>(0) & self.at[16].val());
        self.tx_b_e.d.next = (self.err_code.q.val() & self.at[5].val()) | (self.err_kind.q.val() & self.at[6].val());
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
        self.uart_tx.data.next = self.tx_data.q.val();
        self.usb_tx.next = self.uart_tx.tx.val();

        self.heartbeat.d.next = self.heartbeat.q.val() + 1;
        self.led.next = (bit_cast::<8, 4>(self.responses_sent.q.val()) << 4)
            | (bit_cast::<8, 1>(self.link_error_seen.q.val().into()) << 3)
            | (bit_cast::<8, 1>(self.framing_seen.q.val().into()) << 2)
            | (bit_cast::<8, 1>(self.cmd_busy.q.val().into()) << 1)
            | bit_cast::<8, 1>(self.heartbeat.q.val().get_bit(25).into());

        if self.reset.q.val() {
            self.rx_state.d.next = 0.into();
            self.rx_done.d.next = false;
            self.word_pending.d.next = false;
            self.page_drop.d.next = false;
            self.cmd_go.d.next = false;
            self.cmd_busy.d.next = false;
            self.hold.d.next = false;
            self.r_ever.d.next = false;
            self.rsp_pending.d.next = false;
            self.local_rsp_r.d.next = false;
            self.clean_count.d.next = 0.into();
            self.err_pending.d.next = false;
            self.raise_r.d.next = false;
            self.rx_timed_out.d.next = false;
            self.req_kind.d.next = 0.into();
            self.req_idle.d.next = true;
            self.req_due.d.next = false;
            self.seq.d.next = 0.into();
            self.complete.d.next = false;
            self.mem_rsp_next.d.next = false;
            self.fp_rsp_next.d.next = false;
            self.tx_kind.d.next = 0.into();
            self.tx_busy.d.next = false;
            self.req_go.d.next = false;
            self.tx_fresh_a.d.next = false;
            self.tx_fresh_b.d.next = false;
            self.tx_fresh.d.next = false;
            self.tx_is_req.d.next = false;
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
