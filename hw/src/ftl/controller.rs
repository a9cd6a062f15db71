//! `FtlController`: the FTL remap controller. It serves the core's commands
//! one at a time (see [`crate::ftl`] for the tables and the policies), drives
//! the fingerprint index's command port, and keeps every table in one FTL
//! memory behind a request/response port. [`super::model::CoreModel`] is its
//! golden model, together with the index.
//!
//! Ports (all handshakes are `valid & ready` on a rising clock edge):
//! - `cfg_*`: the geometry (log2 of devices, blocks per device and pages per
//!   block), the reserve of free blocks per device (at least 1), the number
//!   of LPAs (at least 1) and array-wide dedup. Change them only during
//!   `reset` (or before `RESET`). With a valid geometry GC always finds a
//!   victim (a write is refused first when its device holds its usable
//!   pages); the `device full` answer after a fruitless GC scan is only for
//!   an invalid one.
//! - `cmd_*`: one command (op, tag, lpa, fp); `cmd_ready` is high only when
//!   the controller is idle. `rsp_*`: its one response, held until taken.
//! - `mv_*`: each relocation garbage collection makes (`from` -> `to`), held
//!   until taken, before the response of the write that caused it.
//! - `idx_*`: the fingerprint index's command and response ports, one command
//!   at a time; `idx_reset` is a one-clock pulse on `RESET`, for the index's
//!   reset input (together with the core's).
//! - `mem_*`: the FTL memory, 64-bit words, address `{region, index}`. It
//!   must apply requests in order and answer each read, in order, at least
//!   one clock after accepting it; the controller has one request
//!   outstanding at a time.
//! - `cleaner_hold`: while high the background cleaner takes no new step
//!   (a board link holds it between the commands of a host's batch, so the
//!   batch runs as it would back to back); `SYNC` still drains.
//! - `cleaned`: one-clock pulse when the background cleaner finished a step
//!   it took in an idle gap (not the steps `SYNC` runs), so a test can replay
//!   the cleaner's schedule in the golden model.
//! - `stat_*`: the counters of [`super::Stat`], in order.
//!
//! After `reset` (and on `RESET`) the controller initialises its tables (one
//! write per LPA, per block and per device) and waits for the index to clear
//! its own; `cmd_ready` stays low meanwhile.
use super::{ADDR_BITS, BLOCK_BITS, MEM_ADDR_BITS, MEM_DATA_BITS, REFCOUNT_BITS, STATS, VERSION_BITS};
use crate::index::{CMD_TAG_BITS, ENTRY_BITS};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
enum State {
    InitL2p,
    InitBlk,
    InitFree,
    InitDev,
    InitDevv,
    InitIndex,
    ResetPulse,
    Idle,
    Decode,
    Respond,
    // Writes.
    WReadL2p,
    WReadOld,
    WPut,
    WPutWait,
    WReadEntry,
    WReadHit,
    WWriteHit,
    WMapDup,
    WUnique,
    WFullEntry,
    WFullStale,
    WUnlinkSaturated,
    APid,
    APopPid,
    AReadPage,
    FReadDev,
    FCheck,
    FReadDevv,
    FWriteDevv,
    FWriteDev,
    WWritePage,
    WWriteEntry,
    WMapNew,
    // Programming one page into the open block.
    PStart,
    POpen,
    PReadBlk,
    PWriteBlk,
    PWriteRev,
    // Garbage collection.
    GScan,
    GPick,
    GOpenNext,
    GRev,
    GPage,
    GMoved,
    GMove,
    GNext,
    GErase,
    GFree,
    // Releasing one reference.
    RReadPage,
    RDec,
    RFree,
    RReadBlk,
    RWriteBlk,
    RReadDevv,
    RWriteDevv,
    RPushPid,
    RReadEntry,
    RWriteEntry,
    RPushStale,
    // Reads and trims.
    RdReadL2p,
    RdReadPage,
    TReadL2p,
    TUnmap,
    // The cleaner.
    SyncLoop,
    CReadStale,
    CReadEntry,
    CReadPage,
    CWriteEntry,
    CDeref,
    CDerefWait,
    CDone,
}

/// The states `hw/formal/ftl_refcount.v` names (`S_<State>`), numbered as
/// the emitted Verilog numbers them (declaration order; a unit test checks).
pub const FORMAL_STATES: &[(&str, u64)] = &[
    ("S_InitL2p", State::InitL2p as u64),
    ("S_ResetPulse", State::ResetPulse as u64),
    ("S_WWriteHit", State::WWriteHit as u64),
    ("S_WUnlinkSaturated", State::WUnlinkSaturated as u64),
    ("S_WWritePage", State::WWritePage as u64),
    ("S_GMoved", State::GMoved as u64),
    ("S_PStart", State::PStart as u64),
    ("S_POpen", State::POpen as u64),
    ("S_PReadBlk", State::PReadBlk as u64),
    ("S_PWriteBlk", State::PWriteBlk as u64),
    ("S_PWriteRev", State::PWriteRev as u64),
    ("S_RReadPage", State::RReadPage as u64),
    ("S_RDec", State::RDec as u64),
    ("S_RFree", State::RFree as u64),
    ("S_RReadBlk", State::RReadBlk as u64),
    ("S_RWriteBlk", State::RWriteBlk as u64),
    ("S_RReadDevv", State::RReadDevv as u64),
    ("S_RWriteDevv", State::RWriteDevv as u64),
    ("S_RPushPid", State::RPushPid as u64),
    ("S_RReadEntry", State::RReadEntry as u64),
    ("S_RWriteEntry", State::RWriteEntry as u64),
    ("S_RPushStale", State::RPushStale as u64),
    ("S_WMapDup", State::WMapDup as u64),
    ("S_APid", State::APid as u64),
    ("S_TUnmap", State::TUnmap as u64),
    ("S_FReadDevv", State::FReadDevv as u64),
];

#[derive(LogicBlock)]
pub struct FtlController {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,

    pub cfg_dev_bits: Signal<In, Bits<2>>,
    pub cfg_block_bits: Signal<In, Bits<4>>,
    pub cfg_page_bits: Signal<In, Bits<4>>,
    pub cfg_reserve: Signal<In, Bits<BLOCK_BITS>>,
    pub cfg_lpas: Signal<In, Bits<ADDR_BITS>>,
    pub cfg_array_wide: Signal<In, Bit>,
    pub cfg_refcount_max: Signal<In, Bits<REFCOUNT_BITS>>,

    pub cmd_valid: Signal<In, Bit>,
    pub cmd_ready: Signal<Out, Bit>,
    pub cmd_op: Signal<In, Bits<3>>,
    pub cmd_tag: Signal<In, Bits<CMD_TAG_BITS>>,
    pub cmd_lpa: Signal<In, Bits<ADDR_BITS>>,
    pub cmd_fp: Signal<In, Bits<160>>,
    pub cleaner_hold: Signal<In, Bit>,

    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_ready: Signal<In, Bit>,
    pub rsp_tag: Signal<Out, Bits<CMD_TAG_BITS>>,
    pub rsp_status: Signal<Out, Bits<4>>,
    pub rsp_value: Signal<Out, Bits<32>>,
    pub rsp_flags: Signal<Out, Bits<3>>,

    pub mv_valid: Signal<Out, Bit>,
    pub mv_ready: Signal<In, Bit>,
    pub mv_from: Signal<Out, Bits<ADDR_BITS>>,
    pub mv_to: Signal<Out, Bits<ADDR_BITS>>,

    pub idx_reset: Signal<Out, Bit>,
    pub idx_cmd_valid: Signal<Out, Bit>,
    pub idx_cmd_ready: Signal<In, Bit>,
    pub idx_cmd_op: Signal<Out, Bits<3>>,
    pub idx_cmd_fp: Signal<Out, Bits<160>>,
    pub idx_cmd_entry: Signal<Out, Bits<ENTRY_BITS>>,
    pub idx_rsp_valid: Signal<In, Bit>,
    pub idx_rsp_ready: Signal<Out, Bit>,
    pub idx_rsp_status: Signal<In, Bits<4>>,
    pub idx_rsp_entry: Signal<In, Bits<ENTRY_BITS>>,

    pub mem_req_valid: Signal<Out, Bit>,
    pub mem_req_ready: Signal<In, Bit>,
    pub mem_req_write: Signal<Out, Bit>,
    pub mem_req_addr: Signal<Out, Bits<MEM_ADDR_BITS>>,
    pub mem_req_wdata: Signal<Out, Bits<MEM_DATA_BITS>>,
    pub mem_rsp_valid: Signal<In, Bit>,
    pub mem_rsp_rdata: Signal<In, Bits<MEM_DATA_BITS>>,

    pub cleaned: Signal<Out, Bit>,
    /// High while the controller waits for a command (no cleaner step running).
    pub idle: Signal<Out, Bit>,
    pub stat: [Signal<Out, Bits<32>>; STATS],

    state: DFF<State>,
    ret: DFF<State>,
    pret: DFF<State>,
    pending: DFF<Bit>,
    resetting: DFF<Bit>,
    syncing: DFF<Bit>,
    count: DFF<Bits<32>>,

    op: DFF<Bits<3>>,
    tag: DFF<Bits<CMD_TAG_BITS>>,
    lpa: DFF<Bits<ADDR_BITS>>,
    fp: DFF<Bits<160>>,
    status: DFF<Bits<4>>,
    value: DFF<Bits<32>>,
    flags: DFF<Bits<3>>,

    old_valid: DFF<Bit>,
    old_pid: DFF<Bits<ADDR_BITS>>,
    old_rec: DFF<Bits<MEM_DATA_BITS>>,
    entry: DFF<Bits<ENTRY_BITS>>,
    has_entry: DFF<Bit>,
    stale: DFF<Bit>,
    erec: DFF<Bits<MEM_DATA_BITS>>,
    hrec: DFF<Bits<MEM_DATA_BITS>>,
    pid: DFF<Bits<ADDR_BITS>>,
    version: DFF<Bits<VERSION_BITS>>,

    rel_pid: DFF<Bits<ADDR_BITS>>,
    rel_rec: DFF<Bits<MEM_DATA_BITS>>,
    word: DFF<Bits<MEM_DATA_BITS>>,

    dev_open: DFF<Bits<BLOCK_BITS>>,
    dev_written: DFF<Bits<BLOCK_BITS>>,
    dev_free: DFF<Bits<BLOCK_BITS>>,
    dev_head: DFF<Bits<BLOCK_BITS>>,
    prog_owner: DFF<Bits<ADDR_BITS>>,
    prog_ppa: DFF<Bits<ADDR_BITS>>,
    scan: DFF<Bits<BLOCK_BITS>>,
    have_victim: DFF<Bit>,
    victim: DFF<Bits<BLOCK_BITS>>,
    victim_valid: DFF<Bits<BLOCK_BITS>>,
    gc_page: DFF<Bits<BLOCK_BITS>>,
    gc_pid: DFF<Bits<ADDR_BITS>>,
    gc_rec: DFF<Bits<MEM_DATA_BITS>>,

    pid_sp: DFF<Bits<ADDR_BITS>>,
    next_fresh: DFF<Bits<ADDR_BITS>>,
    stale_head: DFF<Bits<17>>,
    stale_tail: DFF<Bits<17>>,
    c_entry: DFF<Bits<ENTRY_BITS>>,
    counters: [DFF<Bits<32>>; STATS],

    // Combinational helpers.
    // The geometry, registered from the `cfg_*` ports.
    ppb: DFF<Bits<BLOCK_BITS>>,
    bpd: DFF<Bits<BLOCK_BITS>>,
    devices: DFF<Bits<4>>,
    usable: DFF<Bits<ADDR_BITS>>,
    home: Signal<Local, Bits<4>>,
    home_base: Signal<Local, Bits<BLOCK_BITS>>,
    key: Signal<Local, Bits<160>>,
    rdata: Signal<Local, Bits<MEM_DATA_BITS>>,
    rd_valid: Signal<Local, Bit>,
    rd_ppa: Signal<Local, Bits<ADDR_BITS>>,
    rd_rc: Signal<Local, Bits<REFCOUNT_BITS>>,
    erec_pid: Signal<Local, Bits<ADDR_BITS>>,
    hit_live: Signal<Local, Bit>,
    old_rc: Signal<Local, Bits<REFCOUNT_BITS>>,
    old_ppa: Signal<Local, Bits<ADDR_BITS>>,
    frees_home: Signal<Local, Bits<ADDR_BITS>>,
    room_limit: Signal<Local, Bits<ADDR_BITS>>,
    rel_ppa: Signal<Local, Bits<ADDR_BITS>>,
    cur_ppa: Signal<Local, Bits<ADDR_BITS>>,
    gc_ppa: Signal<Local, Bits<ADDR_BITS>>,
    backlog: Signal<Local, Bits<17>>,
    next_version: Signal<Local, Bits<VERSION_BITS>>,
    last_block: Signal<Local, Bit>,
    last_device: Signal<Local, Bit>,
    next_device: Signal<Local, Bits<32>>,
    mem_read: Signal<Local, Bit>,
    mem_write: Signal<Local, Bit>,
    done: Signal<Local, Bit>,

    rc_one: Constant<Bits<MEM_DATA_BITS>>,
    one16: Constant<Bits<BLOCK_BITS>>,
    one24: Constant<Bits<ADDR_BITS>>,
    stat_ids: [Constant<Bits<ADDR_BITS>>; STATS],
}

impl Default for FtlController {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_dev_bits: Default::default(),
            cfg_block_bits: Default::default(),
            cfg_page_bits: Default::default(),
            cfg_reserve: Default::default(),
            cfg_lpas: Default::default(),
            cfg_array_wide: Default::default(),
            cfg_refcount_max: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            cmd_op: Default::default(),
            cmd_tag: Default::default(),
            cmd_lpa: Default::default(),
            cmd_fp: Default::default(),
            cleaner_hold: Default::default(),
            rsp_valid: Default::default(),
            rsp_ready: Default::default(),
            rsp_tag: Default::default(),
            rsp_status: Default::default(),
            rsp_value: Default::default(),
            rsp_flags: Default::default(),
            mv_valid: Default::default(),
            mv_ready: Default::default(),
            mv_from: Default::default(),
            mv_to: Default::default(),
            idx_reset: Default::default(),
            idx_cmd_valid: Default::default(),
            idx_cmd_ready: Default::default(),
            idx_cmd_op: Default::default(),
            idx_cmd_fp: Default::default(),
            idx_cmd_entry: Default::default(),
            idx_rsp_valid: Default::default(),
            idx_rsp_ready: Default::default(),
            idx_rsp_status: Default::default(),
            idx_rsp_entry: Default::default(),
            mem_req_valid: Default::default(),
            mem_req_ready: Default::default(),
            mem_req_write: Default::default(),
            mem_req_addr: Default::default(),
            mem_req_wdata: Default::default(),
            mem_rsp_valid: Default::default(),
            mem_rsp_rdata: Default::default(),
            cleaned: Default::default(),
            idle: Default::default(),
            stat: core::array::from_fn(|_| Default::default()),
            state: Default::default(),
            ret: Default::default(),
            pret: Default::default(),
            pending: Default::default(),
            resetting: Default::default(),
            syncing: Default::default(),
            count: Default::default(),
            op: Default::default(),
            tag: Default::default(),
            lpa: Default::default(),
            fp: Default::default(),
            status: Default::default(),
            value: Default::default(),
            flags: Default::default(),
            old_valid: Default::default(),
            old_pid: Default::default(),
            old_rec: Default::default(),
            entry: Default::default(),
            has_entry: Default::default(),
            stale: Default::default(),
            erec: Default::default(),
            hrec: Default::default(),
            pid: Default::default(),
            version: Default::default(),
            rel_pid: Default::default(),
            rel_rec: Default::default(),
            word: Default::default(),
            dev_open: Default::default(),
            dev_written: Default::default(),
            dev_free: Default::default(),
            dev_head: Default::default(),
            prog_owner: Default::default(),
            prog_ppa: Default::default(),
            scan: Default::default(),
            have_victim: Default::default(),
            victim: Default::default(),
            victim_valid: Default::default(),
            gc_page: Default::default(),
            gc_pid: Default::default(),
            gc_rec: Default::default(),
            pid_sp: Default::default(),
            next_fresh: Default::default(),
            stale_head: Default::default(),
            stale_tail: Default::default(),
            c_entry: Default::default(),
            counters: core::array::from_fn(|_| Default::default()),
            ppb: Default::default(),
            bpd: Default::default(),
            devices: Default::default(),
            usable: Default::default(),
            home: Default::default(),
            home_base: Default::default(),
            key: Default::default(),
            rdata: Default::default(),
            rd_valid: Default::default(),
            rd_ppa: Default::default(),
            rd_rc: Default::default(),
            erec_pid: Default::default(),
            hit_live: Default::default(),
            old_rc: Default::default(),
            old_ppa: Default::default(),
            frees_home: Default::default(),
            room_limit: Default::default(),
            rel_ppa: Default::default(),
            cur_ppa: Default::default(),
            gc_ppa: Default::default(),
            backlog: Default::default(),
            next_version: Default::default(),
            last_block: Default::default(),
            last_device: Default::default(),
            next_device: Default::default(),
            mem_read: Default::default(),
            mem_write: Default::default(),
            done: Default::default(),
            rc_one: Constant::new(bits(1 << 52)),
            one16: Constant::new(bits(1)),
            one24: Constant::new(bits(1)),
            stat_ids: core::array::from_fn(|i| Constant::new(bits(i as u64))),
        }
    }
}

impl Logic for FtlController {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            ret,
            pret,
            pending,
            resetting,
            syncing,
            count,
            op,
            tag,
            lpa,
            fp,
            status,
            value,
            flags,
            old_valid,
            old_pid,
            old_rec,
            entry,
            has_entry,
            stale,
            erec,
            hrec,
            pid,
            version,
            rel_pid,
            rel_rec,
            word,
            dev_open,
            dev_written,
            dev_free,
            dev_head,
            prog_owner,
            prog_ppa,
            scan,
            have_victim,
            victim,
            victim_valid,
            gc_page,
            gc_pid,
            gc_rec,
            pid_sp,
            next_fresh,
            stale_head,
            stale_tail,
            c_entry,
            ppb,
            bpd,
            devices,
            usable
        );
        for i in 0..12 {
            self.counters[i].clock.next = self.clock.val();
            self.counters[i].d.next = self.counters[i].q.val();
        }

        // --- Geometry and decoded words ---------------------------------------
        self.ppb.d.next = self.one16.val() << self.cfg_page_bits.val();
        self.bpd.d.next = self.one16.val() << self.cfg_block_bits.val();
        self.devices.d.next = bit_cast::<4, BLOCK_BITS>(self.one16.val() << self.cfg_dev_bits.val());
        self.usable.d.next =
            bit_cast::<ADDR_BITS, BLOCK_BITS>(self.bpd.q.val() - self.cfg_reserve.val()) << self.cfg_page_bits.val();
        self.home.next = bit_cast::<4, ADDR_BITS>(self.lpa.q.val()) & (self.devices.q.val() - 1);
        // PPA = {device[23:21], block[20:8], page[7:0]}; a global block is its top 16 bits.
        self.home_base.next = bit_cast::<BLOCK_BITS, 4>(self.home.val()) << 13;
        if self.cfg_array_wide.val() {
            self.key.next = self.fp.q.val();
        } else {
            self.key.next = self.fp.q.val() ^ (bit_cast::<160, 4>(self.home.val()) << 157);
        }
        self.rdata.next = self.mem_rsp_rdata.val();
        self.rd_valid.next = self.rdata.val().get_bit(24);
        self.rd_ppa.next = self.rdata.val().get_bits::<ADDR_BITS>(0);
        self.rd_rc.next = self.rdata.val().get_bits::<REFCOUNT_BITS>(52);
        self.erec_pid.next = self.erec.q.val().get_bits::<ADDR_BITS>(0);
        // A PAGE word (just read) is the live copy an ENTRY word points at:
        // referenced, same version, and pointing back at the same entry.
        self.hit_live.next = (self.rd_rc.val() != 0)
            & (self.rdata.val().get_bits::<VERSION_BITS>(44) == self.erec.q.val().get_bits::<VERSION_BITS>(32))
            & self.rdata.val().get_bit(40)
            & (self.rdata.val().get_bits::<ENTRY_BITS>(24) == self.entry.q.val());
        self.old_rc.next = self.old_rec.q.val().get_bits::<REFCOUNT_BITS>(52);
        self.old_ppa.next = self.old_rec.q.val().get_bits::<ADDR_BITS>(0);
        self.frees_home.next = 0.into();
        if self.old_valid.q.val()
            & (self.old_rc.val() == 1)
            & (bit_cast::<4, ADDR_BITS>(self.old_ppa.val() >> 21) == self.home.val())
        {
            self.frees_home.next = 1.into();
        }
        // A new page fits while the home device's valid pages stay below the
        // usable pages plus the one this overwrite frees there.
        self.room_limit.next = self.usable.q.val() + self.frees_home.val();
        self.rel_ppa.next = self.rel_rec.q.val().get_bits::<ADDR_BITS>(0);
        self.cur_ppa.next = (bit_cast::<ADDR_BITS, BLOCK_BITS>(self.dev_open.q.val()) << 8)
            | bit_cast::<ADDR_BITS, BLOCK_BITS>(self.dev_written.q.val());
        self.gc_ppa.next = (bit_cast::<ADDR_BITS, BLOCK_BITS>(self.victim.q.val()) << 8)
            | bit_cast::<ADDR_BITS, BLOCK_BITS>(self.gc_page.q.val());
        self.backlog.next = self.stale_tail.q.val() - self.stale_head.q.val();
        // The freed page's next version, wrapping in its own width (inside a
        // wider expression Verilog would carry into the refcount field).
        self.next_version.next = self.rel_rec.q.val().get_bits::<VERSION_BITS>(44) + 1;
        // Walking every global block {device, block}: `count` is one.
        self.last_block.next = bit_cast::<BLOCK_BITS, 32>(self.count.q.val() & 0x1fff) == self.bpd.q.val() - 1;
        self.last_device.next = bit_cast::<4, 32>(self.count.q.val() >> 13) == self.devices.q.val() - 1;
        self.next_device.next = ((self.count.q.val() >> 13) + 1) << 13;
        // A read's data: only the state that issued it is waiting.
        self.done.next = self.pending.q.val() & self.mem_rsp_valid.val();

        // --- Defaults ----------------------------------------------------------
        self.cmd_ready.next = false;
        self.rsp_valid.next = false;
        self.rsp_tag.next = self.tag.q.val();
        self.rsp_status.next = self.status.q.val();
        self.rsp_value.next = self.value.q.val();
        self.rsp_flags.next = self.flags.q.val();
        self.mv_valid.next = false;
        self.mv_from.next = self.gc_ppa.val();
        self.mv_to.next = self.prog_ppa.q.val();
        self.idx_reset.next = false;
        self.idx_cmd_valid.next = false;
        self.idx_cmd_op.next = 4.into();
        self.idx_cmd_fp.next = self.key.val();
        self.idx_cmd_entry.next = self.c_entry.q.val();
        self.idx_rsp_ready.next = false;
        self.mem_read.next = false;
        self.mem_write.next = false;
        self.mem_req_addr.next = 0.into();
        self.mem_req_wdata.next = 0.into();
        self.cleaned.next = false;
        self.idle.next = false;
        for i in 0..12 {
            self.stat[i].next = self.counters[i].q.val();
        }
        self.stat[11].next = bit_cast::<32, 17>(self.backlog.val());

        // --- The state machine --------------------------------------------------
        // Each memory state sets `mem_read` or `mem_write` and the address; a
        // read's data is used when `done` (its response arrived), a write
        // moves on when `mem_req_ready`.
        match self.state.q.val() {
            State::InitL2p => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bit_cast::<32, 32>(self.count.q.val());
                if self.mem_req_ready.val() {
                    self.count.d.next = self.count.q.val() + 1;
                    if self.count.q.val() + 1 >= bit_cast::<32, ADDR_BITS>(self.cfg_lpas.val()) {
                        self.count.d.next = 0.into();
                        self.state.d.next = State::InitBlk;
                    }
                }
            }
            State::InitBlk => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x4000_0000_u64) | self.count.q.val();
                if self.mem_req_ready.val() {
                    self.count.d.next = self.count.q.val() + 1;
                    if self.last_block.val() {
                        self.count.d.next = self.next_device.val();
                        if self.last_device.val() {
                            self.count.d.next = 0.into();
                            self.state.d.next = State::InitFree;
                        }
                    }
                }
            }
            State::InitFree => {
                // Slot {d, i} of the free rings holds block {d, i + 1}: device
                // d's ring starts with its blocks 1..bpd-1 (its last slot is unused).
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x7000_0000_u64) | self.count.q.val();
                self.mem_req_wdata.next = bit_cast::<64, 32>(self.count.q.val() + 1);
                if self.mem_req_ready.val() {
                    self.count.d.next = self.count.q.val() + 1;
                    if self.last_block.val() {
                        self.count.d.next = self.next_device.val();
                        if self.last_device.val() {
                            self.count.d.next = 0.into();
                            self.state.d.next = State::InitDev;
                        }
                    }
                }
            }
            State::InitDev => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x5000_0000_u64) | self.count.q.val();
                self.mem_req_wdata.next = (bit_cast::<64, 32>(self.count.q.val() << 13) << 48)
                    | (bit_cast::<64, BLOCK_BITS>(self.bpd.q.val() - 1) << 16);
                if self.mem_req_ready.val() {
                    self.count.d.next = self.count.q.val() + 1;
                    if self.count.q.val() + 1 == bit_cast::<32, 4>(self.devices.q.val()) {
                        self.count.d.next = 0.into();
                        self.state.d.next = State::InitDevv;
                    }
                }
            }
            State::InitDevv => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x6000_0000_u64) | self.count.q.val();
                if self.mem_req_ready.val() {
                    self.count.d.next = self.count.q.val() + 1;
                    if self.count.q.val() + 1 == bit_cast::<32, 4>(self.devices.q.val()) {
                        self.count.d.next = 0.into();
                        self.state.d.next = State::InitIndex;
                    }
                }
            }
            State::InitIndex => {
                if self.idx_cmd_ready.val() {
                    if self.resetting.q.val() {
                        self.resetting.d.next = false;
                        self.status.d.next = 5.into();
                        self.value.d.next = 0.into();
                        self.flags.d.next = 0.into();
                        self.state.d.next = State::Respond;
                    } else {
                        self.state.d.next = State::Idle;
                    }
                }
            }
            State::ResetPulse => {
                self.idx_reset.next = true;
                self.state.d.next = State::InitL2p;
            }
            State::Idle => {
                self.idle.next = true;
                self.cmd_ready.next = true;
                if self.cmd_valid.val() {
                    self.op.d.next = self.cmd_op.val();
                    self.tag.d.next = self.cmd_tag.val();
                    self.lpa.d.next = self.cmd_lpa.val();
                    self.fp.d.next = self.cmd_fp.val();
                    self.state.d.next = State::Decode;
                } else if (self.backlog.val() != 0) & !self.cleaner_hold.val() {
                    self.syncing.d.next = false;
                    self.state.d.next = State::CReadStale;
                }
            }
            State::Decode => {
                self.value.d.next = 0.into();
                self.flags.d.next = 0.into();
                self.old_valid.d.next = false;
                self.has_entry.d.next = false;
                self.stale.d.next = false;
                self.state.d.next = State::Respond;
                self.status.d.next = 10.into();
                if self.op.q.val() <= 4 {
                    if self.lpa.q.val() >= self.cfg_lpas.val() {
                        self.status.d.next = 8.into();
                    } else if self.op.q.val() <= 2 {
                        self.state.d.next = State::WReadL2p;
                    } else if self.op.q.val() == 3 {
                        self.state.d.next = State::RdReadL2p;
                    } else {
                        self.state.d.next = State::TReadL2p;
                    }
                } else if self.op.q.val() == 5 {
                    if self.lpa.q.val() >= 12 {
                        self.status.d.next = 8.into();
                    } else {
                        self.status.d.next = 5.into();
                        for i in 0..12 {
                            if self.lpa.q.val() == self.stat_ids[i].val() {
                                self.value.d.next = self.counters[i].q.val();
                            }
                        }
                        if self.lpa.q.val() == 11 {
                            self.value.d.next = bit_cast::<32, 17>(self.backlog.val());
                        }
                    }
                } else if self.op.q.val() == 6 {
                    self.syncing.d.next = true;
                    self.state.d.next = State::SyncLoop;
                } else {
                    self.resetting.d.next = true;
                    self.pid_sp.d.next = 0.into();
                    self.next_fresh.d.next = 0.into();
                    self.stale_head.d.next = 0.into();
                    self.stale_tail.d.next = 0.into();
                    self.count.d.next = 0.into();
                    for i in 0..12 {
                        self.counters[i].d.next = 0.into();
                    }
                    self.state.d.next = State::ResetPulse;
                }
            }
            State::Respond => {
                self.rsp_valid.next = true;
                if self.rsp_ready.val() {
                    if self.status.q.val() >= 8 {
                        self.counters[10].d.next = self.counters[10].q.val() + 1;
                    }
                    if self.status.q.val() == 0 {
                        self.counters[0].d.next = self.counters[0].q.val() + 1;
                        self.counters[1].d.next = self.counters[1].q.val() + 1;
                    }
                    if self.status.q.val() == 1 {
                        self.counters[0].d.next = self.counters[0].q.val() + 1;
                        self.counters[2].d.next = self.counters[2].q.val() + 1;
                    }
                    self.state.d.next = State::Idle;
                }
            }

            // --- WRITE / WRITE_FP / WRITE_UNIQUE -------------------------------------
            State::WReadL2p => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bit_cast::<32, ADDR_BITS>(self.lpa.q.val());
                if self.done.val() {
                    self.old_valid.d.next = self.rd_valid.val();
                    self.old_pid.d.next = self.rd_ppa.val();
                    if self.rd_valid.val() {
                        self.state.d.next = State::WReadOld;
                    } else if self.op.q.val() == 2 {
                        self.state.d.next = State::WUnique;
                    } else {
                        self.state.d.next = State::WPut;
                    }
                }
            }
            State::WReadOld => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.old_pid.q.val());
                if self.done.val() {
                    self.old_rec.d.next = self.rdata.val();
                    if self.op.q.val() == 2 {
                        self.state.d.next = State::WUnique;
                    } else {
                        self.state.d.next = State::WPut;
                    }
                }
            }
            State::WPut => {
                self.idx_cmd_valid.next = true;
                self.idx_cmd_op.next = 4.into();
                if self.idx_cmd_ready.val() {
                    self.state.d.next = State::WPutWait;
                }
            }
            State::WPutWait => {
                self.idx_rsp_ready.next = true;
                if self.idx_rsp_valid.val() {
                    self.entry.d.next = self.idx_rsp_entry.val();
                    if self.idx_rsp_status.val() == 0 {
                        self.has_entry.d.next = true;
                        self.state.d.next = State::WUnique;
                    } else if self.idx_rsp_status.val() == 2 {
                        self.state.d.next = State::WReadEntry;
                    } else {
                        self.flags.d.next = 1.into();
                        self.counters[9].d.next = self.counters[9].q.val() + 1;
                        self.state.d.next = State::WUnique;
                    }
                }
            }
            State::WReadEntry => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x2000_0000_u64) | bit_cast::<32, ENTRY_BITS>(self.entry.q.val());
                if self.done.val() {
                    self.erec.d.next = self.rdata.val();
                    if self.rdata.val().get_bit(40) {
                        self.state.d.next = State::WReadHit;
                    } else {
                        self.stale.d.next = true;
                        self.has_entry.d.next = true;
                        self.flags.d.next = 2.into();
                        self.counters[5].d.next = self.counters[5].q.val() + 1;
                        self.state.d.next = State::WUnique;
                    }
                }
            }
            State::WReadHit => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.erec_pid.val());
                if self.done.val() {
                    self.hrec.d.next = self.rdata.val();
                    if !self.hit_live.val() {
                        self.stale.d.next = true;
                        self.has_entry.d.next = true;
                        self.flags.d.next = 2.into();
                        self.counters[5].d.next = self.counters[5].q.val() + 1;
                        self.state.d.next = State::WUnique;
                    } else if self.rd_rc.val() >= self.cfg_refcount_max.val() {
                        // Saturated: the new copy becomes the entry's target
                        // (re-pointed as a stale hit is); the old copy keeps
                        // its references until they are released. (At or
                        // above the limit: a count read above it, from a
                        // memory that was not told so, must not count on
                        // and wrap to 0; `hw/formal/ftl_refcount.v`.)
                        self.stale.d.next = true;
                        self.has_entry.d.next = true;
                        self.flags.d.next = 4.into();
                        self.state.d.next = State::WUnique;
                    } else {
                        self.state.d.next = State::WWriteHit;
                    }
                }
            }
            State::WWriteHit => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.erec_pid.val());
                self.mem_req_wdata.next = (self.hrec.q.val() & bits::<64>(0x000f_ffff_ffff_ffff_u64))
                    | (bit_cast::<64, REFCOUNT_BITS>(self.hrec.q.val().get_bits::<REFCOUNT_BITS>(52) + 1) << 52);
                if self.mem_req_ready.val() {
                    if self.old_valid.q.val() {
                        self.rel_pid.d.next = self.old_pid.q.val();
                        self.ret.d.next = State::WMapDup;
                        self.state.d.next = State::RReadPage;
                    } else {
                        self.state.d.next = State::WMapDup;
                    }
                }
            }
            State::WMapDup => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bit_cast::<32, ADDR_BITS>(self.lpa.q.val());
                self.mem_req_wdata.next = bits::<64>(0x0100_0000_u64) | bit_cast::<64, ADDR_BITS>(self.erec_pid.val());
                if self.mem_req_ready.val() {
                    if !self.old_valid.q.val() {
                        self.counters[8].d.next = self.counters[8].q.val() + 1;
                    }
                    self.status.d.next = 1.into();
                    self.value.d.next = bit_cast::<32, ADDR_BITS>(self.hrec.q.val().get_bits::<ADDR_BITS>(0));
                    self.state.d.next = State::Respond;
                }
            }
            State::WUnique => {
                // Room on the home device, counting the page this overwrite frees?
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x6000_0000_u64) | bit_cast::<32, 4>(self.home.val());
                if self.done.val() {
                    if self.rd_ppa.val() >= self.room_limit.val() {
                        self.status.d.next = 9.into();
                        self.flags.d.next = 0.into();
                        if self.has_entry.q.val() & !self.stale.q.val() {
                            self.state.d.next = State::WFullEntry;
                        } else {
                            self.state.d.next = State::Respond;
                        }
                    } else if self.flags.q.val().get_bit(2) {
                        // Flag 4: the hit's copy is saturated.
                        self.state.d.next = State::WUnlinkSaturated;
                    } else if self.old_valid.q.val() {
                        self.rel_pid.d.next = self.old_pid.q.val();
                        self.ret.d.next = State::APid;
                        self.state.d.next = State::RReadPage;
                    } else {
                        self.state.d.next = State::APid;
                    }
                }
            }
            State::WUnlinkSaturated => {
                // The saturated copy lets go of its entry (bit 40 cleared),
                // which moves to the new copy: freeing the old copy later
                // must not queue an entry that is no longer its own.
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.erec_pid.val());
                self.mem_req_wdata.next = self.hrec.q.val() & bits::<64>(0xffff_feff_ffff_ffff_u64);
                if self.mem_req_ready.val() {
                    if self.old_valid.q.val() {
                        self.rel_pid.d.next = self.old_pid.q.val();
                        self.ret.d.next = State::APid;
                        self.state.d.next = State::RReadPage;
                    } else {
                        self.state.d.next = State::APid;
                    }
                }
            }
            State::WFullEntry => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x2000_0000_u64) | bit_cast::<32, ENTRY_BITS>(self.entry.q.val());
                self.mem_req_wdata.next = bits::<64>(0x0200_0000_0000_u64);
                if self.mem_req_ready.val() {
                    self.state.d.next = State::WFullStale;
                }
            }
            State::WFullStale => {
                self.mem_write.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x8000_0000_u64) | bit_cast::<32, 16>(bit_cast::<16, 17>(self.stale_tail.q.val()));
                self.mem_req_wdata.next = bit_cast::<64, ENTRY_BITS>(self.entry.q.val());
                if self.mem_req_ready.val() {
                    self.stale_tail.d.next = self.stale_tail.q.val() + 1;
                    self.state.d.next = State::Respond;
                }
            }
            State::APid => {
                if self.pid_sp.q.val() != 0 {
                    self.state.d.next = State::APopPid;
                } else {
                    self.pid.d.next = self.next_fresh.q.val();
                    self.next_fresh.d.next = self.next_fresh.q.val() + 1;
                    self.state.d.next = State::AReadPage;
                }
            }
            State::APopPid => {
                self.mem_read.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x9000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.pid_sp.q.val() - self.one24.val());
                if self.done.val() {
                    self.pid.d.next = self.rd_ppa.val();
                    self.pid_sp.d.next = self.pid_sp.q.val() - 1;
                    self.state.d.next = State::AReadPage;
                }
            }
            State::AReadPage => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.pid.q.val());
                if self.done.val() {
                    self.version.d.next = self.rdata.val().get_bits::<VERSION_BITS>(44);
                    self.state.d.next = State::FReadDev;
                }
            }
            State::FReadDev => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x5000_0000_u64) | bit_cast::<32, 4>(self.home.val());
                if self.done.val() {
                    self.dev_open.d.next = self.rdata.val().get_bits::<BLOCK_BITS>(48);
                    self.dev_written.d.next = self.rdata.val().get_bits::<BLOCK_BITS>(32);
                    self.dev_free.d.next = self.rdata.val().get_bits::<BLOCK_BITS>(16);
                    self.dev_head.d.next = self.rdata.val().get_bits::<BLOCK_BITS>(0);
                    self.state.d.next = State::FCheck;
                }
            }
            State::FCheck => {
                // The open block is full and only the reserve is left: collect.
                if (self.dev_written.q.val() == self.ppb.q.val()) & (self.dev_free.q.val() <= self.cfg_reserve.val()) {
                    self.scan.d.next = 0.into();
                    self.have_victim.d.next = false;
                    self.state.d.next = State::GScan;
                } else {
                    self.prog_owner.d.next = self.pid.q.val();
                    self.pret.d.next = State::FReadDevv;
                    self.state.d.next = State::PStart;
                }
            }
            State::FReadDevv => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x6000_0000_u64) | bit_cast::<32, 4>(self.home.val());
                if self.done.val() {
                    self.word.d.next = bit_cast::<64, ADDR_BITS>(self.rd_ppa.val() + 1);
                    self.state.d.next = State::FWriteDevv;
                }
            }
            State::FWriteDevv => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x6000_0000_u64) | bit_cast::<32, 4>(self.home.val());
                self.mem_req_wdata.next = self.word.q.val();
                if self.mem_req_ready.val() {
                    self.state.d.next = State::FWriteDev;
                }
            }
            State::FWriteDev => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x5000_0000_u64) | bit_cast::<32, 4>(self.home.val());
                self.mem_req_wdata.next = (bit_cast::<64, BLOCK_BITS>(self.dev_open.q.val()) << 48)
                    | (bit_cast::<64, BLOCK_BITS>(self.dev_written.q.val()) << 32)
                    | (bit_cast::<64, BLOCK_BITS>(self.dev_free.q.val()) << 16)
                    | bit_cast::<64, BLOCK_BITS>(self.dev_head.q.val());
                if self.mem_req_ready.val() {
                    self.state.d.next = State::WWritePage;
                }
            }
            State::WWritePage => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.pid.q.val());
                self.mem_req_wdata.next = self.rc_one.val()
                    | (bit_cast::<64, VERSION_BITS>(self.version.q.val()) << 44)
                    | (bit_cast::<64, 1>(self.has_entry.q.val().into()) << 40)
                    | (bit_cast::<64, ENTRY_BITS>(self.entry.q.val()) << 24)
                    | bit_cast::<64, ADDR_BITS>(self.prog_ppa.q.val());
                if self.mem_req_ready.val() {
                    if self.has_entry.q.val() {
                        self.state.d.next = State::WWriteEntry;
                    } else {
                        self.state.d.next = State::WMapNew;
                    }
                }
            }
            State::WWriteEntry => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x2000_0000_u64) | bit_cast::<32, ENTRY_BITS>(self.entry.q.val());
                self.mem_req_wdata.next =
                    (bit_cast::<64, 1>((self.stale.q.val() & self.erec.q.val().get_bit(41)).into()) << 41)
                        | bits::<64>(0x0100_0000_0000_u64)
                        | (bit_cast::<64, VERSION_BITS>(self.version.q.val()) << 32)
                        | bit_cast::<64, ADDR_BITS>(self.pid.q.val());
                if self.mem_req_ready.val() {
                    self.state.d.next = State::WMapNew;
                }
            }
            State::WMapNew => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bit_cast::<32, ADDR_BITS>(self.lpa.q.val());
                self.mem_req_wdata.next = bits::<64>(0x0100_0000_u64) | bit_cast::<64, ADDR_BITS>(self.pid.q.val());
                if self.mem_req_ready.val() {
                    if !self.old_valid.q.val() {
                        self.counters[8].d.next = self.counters[8].q.val() + 1;
                    }
                    self.counters[7].d.next = self.counters[7].q.val() + 1;
                    self.status.d.next = 0.into();
                    self.value.d.next = bit_cast::<32, ADDR_BITS>(self.prog_ppa.q.val());
                    self.state.d.next = State::Respond;
                }
            }

            // --- Programming one page (owner `prog_owner`) -------------------------
            State::PStart => {
                if self.dev_written.q.val() == self.ppb.q.val() {
                    self.state.d.next = State::POpen;
                } else {
                    self.state.d.next = State::PReadBlk;
                }
            }
            State::POpen => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x7000_0000_u64)
                    | bit_cast::<32, BLOCK_BITS>(self.home_base.val() | self.dev_head.q.val());
                if self.done.val() {
                    self.dev_open.d.next = self.rdata.val().get_bits::<BLOCK_BITS>(0);
                    self.dev_head.d.next = (self.dev_head.q.val() + 1) & (self.bpd.q.val() - 1);
                    self.dev_free.d.next = self.dev_free.q.val() - 1;
                    self.dev_written.d.next = 0.into();
                    self.state.d.next = State::PReadBlk;
                }
            }
            State::GOpenNext => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x7000_0000_u64)
                    | bit_cast::<32, BLOCK_BITS>(self.home_base.val() | self.dev_head.q.val());
                if self.done.val() {
                    self.dev_open.d.next = self.rdata.val().get_bits::<BLOCK_BITS>(0);
                    self.dev_head.d.next = (self.dev_head.q.val() + 1) & (self.bpd.q.val() - 1);
                    self.dev_free.d.next = self.dev_free.q.val() - 1;
                    self.dev_written.d.next = 0.into();
                    self.gc_page.d.next = 0.into();
                    self.state.d.next = State::GRev;
                }
            }
            State::PReadBlk => {
                self.mem_read.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x4000_0000_u64) | bit_cast::<32, BLOCK_BITS>(self.dev_open.q.val());
                if self.done.val() {
                    self.word.d.next = bit_cast::<64, BLOCK_BITS>(self.rdata.val().get_bits::<BLOCK_BITS>(0) + 1);
                    if self.dev_written.q.val() + 1 == self.ppb.q.val() {
                        self.word.d.next = bits::<64>(0x1_0000_u64)
                            | bit_cast::<64, BLOCK_BITS>(self.rdata.val().get_bits::<BLOCK_BITS>(0) + 1);
                    }
                    self.state.d.next = State::PWriteBlk;
                }
            }
            State::PWriteBlk => {
                self.mem_write.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x4000_0000_u64) | bit_cast::<32, BLOCK_BITS>(self.dev_open.q.val());
                self.mem_req_wdata.next = self.word.q.val();
                if self.mem_req_ready.val() {
                    self.state.d.next = State::PWriteRev;
                }
            }
            State::PWriteRev => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x3000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.cur_ppa.val());
                self.mem_req_wdata.next = bit_cast::<64, ADDR_BITS>(self.prog_owner.q.val());
                if self.mem_req_ready.val() {
                    self.prog_ppa.d.next = self.cur_ppa.val();
                    self.dev_written.d.next = self.dev_written.q.val() + 1;
                    self.state.d.next = self.pret.q.val();
                }
            }

            // --- Garbage collection on the home device ---------------------------------
            State::GScan => {
                self.mem_read.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x4000_0000_u64) | bit_cast::<32, BLOCK_BITS>(self.home_base.val() | self.scan.q.val());
                if self.done.val() {
                    if self.rdata.val().get_bit(16)
                        & (self.rdata.val().get_bits::<BLOCK_BITS>(0) < self.ppb.q.val())
                        & (!self.have_victim.q.val()
                            | (self.rdata.val().get_bits::<BLOCK_BITS>(0) < self.victim_valid.q.val()))
                    {
                        self.have_victim.d.next = true;
                        self.victim.d.next = self.home_base.val() | self.scan.q.val();
                        self.victim_valid.d.next = self.rdata.val().get_bits::<BLOCK_BITS>(0);
                    }
                    self.scan.d.next = self.scan.q.val() + 1;
                    if self.scan.q.val() == self.bpd.q.val() - 1 {
                        self.state.d.next = State::GPick;
                    }
                }
            }
            State::GPick => {
                self.gc_page.d.next = 0.into();
                if !self.have_victim.q.val() {
                    // Cannot happen below the usable pages (checked first).
                    self.status.d.next = 9.into();
                    self.state.d.next = State::Respond;
                } else if self.victim.q.val() == self.dev_open.q.val() {
                    self.state.d.next = State::GOpenNext;
                } else {
                    self.state.d.next = State::GRev;
                }
            }
            State::GRev => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x3000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.gc_ppa.val());
                if self.done.val() {
                    self.gc_pid.d.next = self.rd_ppa.val();
                    self.state.d.next = State::GPage;
                }
            }
            State::GPage => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.gc_pid.q.val());
                if self.done.val() {
                    self.gc_rec.d.next = self.rdata.val();
                    if (self.rd_rc.val() != 0) & (self.rd_ppa.val() == self.gc_ppa.val()) {
                        self.prog_owner.d.next = self.gc_pid.q.val();
                        self.pret.d.next = State::GMoved;
                        self.state.d.next = State::PStart;
                    } else {
                        self.state.d.next = State::GNext;
                    }
                }
            }
            State::GMoved => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.gc_pid.q.val());
                self.mem_req_wdata.next = (self.gc_rec.q.val() & bits::<64>(0xffff_ffff_ff00_0000_u64))
                    | bit_cast::<64, ADDR_BITS>(self.prog_ppa.q.val());
                if self.mem_req_ready.val() {
                    self.state.d.next = State::GMove;
                }
            }
            State::GMove => {
                self.mv_valid.next = true;
                if self.mv_ready.val() {
                    self.counters[3].d.next = self.counters[3].q.val() + 1;
                    self.state.d.next = State::GNext;
                }
            }
            State::GNext => {
                if self.gc_page.q.val() == self.ppb.q.val() - 1 {
                    self.state.d.next = State::GErase;
                } else {
                    self.gc_page.d.next = self.gc_page.q.val() + 1;
                    self.state.d.next = State::GRev;
                }
            }
            State::GErase => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x4000_0000_u64) | bit_cast::<32, BLOCK_BITS>(self.victim.q.val());
                if self.mem_req_ready.val() {
                    self.state.d.next = State::GFree;
                }
            }
            State::GFree => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x7000_0000_u64)
                    | bit_cast::<32, BLOCK_BITS>(
                        self.home_base.val()
                            | ((self.dev_head.q.val() + self.dev_free.q.val()) & (self.bpd.q.val() - 1)),
                    );
                self.mem_req_wdata.next = bit_cast::<64, BLOCK_BITS>(self.victim.q.val());
                if self.mem_req_ready.val() {
                    self.dev_free.d.next = self.dev_free.q.val() + 1;
                    self.counters[4].d.next = self.counters[4].q.val() + 1;
                    self.state.d.next = State::FCheck;
                }
            }

            // --- Releasing one reference to `rel_pid`, then back to `ret` ---------------
            State::RReadPage => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.rel_pid.q.val());
                if self.done.val() {
                    self.rel_rec.d.next = self.rdata.val();
                    if self.rd_rc.val() > 1 {
                        self.state.d.next = State::RDec;
                    } else {
                        self.state.d.next = State::RFree;
                    }
                }
            }
            State::RDec => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.rel_pid.q.val());
                self.mem_req_wdata.next = (self.rel_rec.q.val() & bits::<64>(0x000f_ffff_ffff_ffff_u64))
                    | (bit_cast::<64, REFCOUNT_BITS>(self.rel_rec.q.val().get_bits::<REFCOUNT_BITS>(52) - 1) << 52);
                if self.mem_req_ready.val() {
                    self.state.d.next = self.ret.q.val();
                }
            }
            State::RFree => {
                // Refcount 0, version + 1; the rest is kept.
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.rel_pid.q.val());
                self.mem_req_wdata.next = (self.rel_rec.q.val() & bits::<64>(0x0000_0fff_ffff_ffff_u64))
                    | (bit_cast::<64, VERSION_BITS>(self.next_version.val()) << 44);
                if self.mem_req_ready.val() {
                    self.counters[7].d.next = self.counters[7].q.val() - 1;
                    self.state.d.next = State::RReadBlk;
                }
            }
            State::RReadBlk => {
                self.mem_read.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x4000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.rel_ppa.val() >> 8);
                if self.done.val() {
                    self.word.d.next = (self.rdata.val() & bits::<64>(0x1_0000_u64))
                        | bit_cast::<64, BLOCK_BITS>(self.rdata.val().get_bits::<BLOCK_BITS>(0) - 1);
                    self.state.d.next = State::RWriteBlk;
                }
            }
            State::RWriteBlk => {
                self.mem_write.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x4000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.rel_ppa.val() >> 8);
                self.mem_req_wdata.next = self.word.q.val();
                if self.mem_req_ready.val() {
                    self.state.d.next = State::RReadDevv;
                }
            }
            State::RReadDevv => {
                self.mem_read.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x6000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.rel_ppa.val() >> 21);
                if self.done.val() {
                    self.word.d.next = bit_cast::<64, ADDR_BITS>(self.rd_ppa.val() - 1);
                    self.state.d.next = State::RWriteDevv;
                }
            }
            State::RWriteDevv => {
                self.mem_write.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x6000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.rel_ppa.val() >> 21);
                self.mem_req_wdata.next = self.word.q.val();
                if self.mem_req_ready.val() {
                    self.state.d.next = State::RPushPid;
                }
            }
            State::RPushPid => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x9000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.pid_sp.q.val());
                self.mem_req_wdata.next = bit_cast::<64, ADDR_BITS>(self.rel_pid.q.val());
                if self.mem_req_ready.val() {
                    self.pid_sp.d.next = self.pid_sp.q.val() + 1;
                    if self.rel_rec.q.val().get_bit(40) {
                        self.state.d.next = State::RReadEntry;
                    } else {
                        self.state.d.next = self.ret.q.val();
                    }
                }
            }
            State::RReadEntry => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x2000_0000_u64)
                    | bit_cast::<32, ENTRY_BITS>(self.rel_rec.q.val().get_bits::<ENTRY_BITS>(24));
                if self.done.val() {
                    self.word.d.next = self.rdata.val() | bits::<64>(0x0200_0000_0000_u64);
                    if self.rdata.val().get_bit(41) {
                        self.state.d.next = self.ret.q.val();
                    } else {
                        self.state.d.next = State::RWriteEntry;
                    }
                }
            }
            State::RWriteEntry => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x2000_0000_u64)
                    | bit_cast::<32, ENTRY_BITS>(self.rel_rec.q.val().get_bits::<ENTRY_BITS>(24));
                self.mem_req_wdata.next = self.word.q.val();
                if self.mem_req_ready.val() {
                    self.state.d.next = State::RPushStale;
                }
            }
            State::RPushStale => {
                self.mem_write.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x8000_0000_u64) | bit_cast::<32, 16>(bit_cast::<16, 17>(self.stale_tail.q.val()));
                self.mem_req_wdata.next = bit_cast::<64, ENTRY_BITS>(self.rel_rec.q.val().get_bits::<ENTRY_BITS>(24));
                if self.mem_req_ready.val() {
                    self.stale_tail.d.next = self.stale_tail.q.val() + 1;
                    self.state.d.next = self.ret.q.val();
                }
            }

            // --- READ and TRIM -----------------------------------------------------------
            State::RdReadL2p => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bit_cast::<32, ADDR_BITS>(self.lpa.q.val());
                if self.done.val() {
                    self.old_pid.d.next = self.rd_ppa.val();
                    if self.rd_valid.val() {
                        self.state.d.next = State::RdReadPage;
                    } else {
                        self.status.d.next = 3.into();
                        self.state.d.next = State::Respond;
                    }
                }
            }
            State::RdReadPage => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.old_pid.q.val());
                if self.done.val() {
                    self.status.d.next = 2.into();
                    self.value.d.next = bit_cast::<32, ADDR_BITS>(self.rd_ppa.val());
                    self.state.d.next = State::Respond;
                }
            }
            State::TReadL2p => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bit_cast::<32, ADDR_BITS>(self.lpa.q.val());
                if self.done.val() {
                    self.rel_pid.d.next = self.rd_ppa.val();
                    if self.rd_valid.val() {
                        self.ret.d.next = State::TUnmap;
                        self.state.d.next = State::RReadPage;
                    } else {
                        self.status.d.next = 3.into();
                        self.state.d.next = State::Respond;
                    }
                }
            }
            State::TUnmap => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bit_cast::<32, ADDR_BITS>(self.lpa.q.val());
                if self.mem_req_ready.val() {
                    self.counters[8].d.next = self.counters[8].q.val() - 1;
                    self.status.d.next = 4.into();
                    self.state.d.next = State::Respond;
                }
            }

            // --- The cleaner: one queued entry per step -------------------------------------
            State::SyncLoop => {
                if self.backlog.val() != 0 {
                    self.state.d.next = State::CReadStale;
                } else {
                    self.syncing.d.next = false;
                    self.status.d.next = 5.into();
                    self.state.d.next = State::Respond;
                }
            }
            State::CReadStale => {
                self.mem_read.next = true;
                self.mem_req_addr.next =
                    bits::<32>(0x8000_0000_u64) | bit_cast::<32, 16>(bit_cast::<16, 17>(self.stale_head.q.val()));
                if self.done.val() {
                    self.c_entry.d.next = self.rdata.val().get_bits::<ENTRY_BITS>(0);
                    self.entry.d.next = self.rdata.val().get_bits::<ENTRY_BITS>(0);
                    self.stale_head.d.next = self.stale_head.q.val() + 1;
                    self.state.d.next = State::CReadEntry;
                }
            }
            State::CReadEntry => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x2000_0000_u64) | bit_cast::<32, ENTRY_BITS>(self.c_entry.q.val());
                if self.done.val() {
                    self.erec.d.next = self.rdata.val();
                    self.stale.d.next = true;
                    if self.rdata.val().get_bit(40) {
                        self.state.d.next = State::CReadPage;
                    } else {
                        self.state.d.next = State::CWriteEntry;
                    }
                }
            }
            State::CReadPage => {
                self.mem_read.next = true;
                self.mem_req_addr.next = bits::<32>(0x1000_0000_u64) | bit_cast::<32, ADDR_BITS>(self.erec_pid.val());
                if self.done.val() {
                    self.stale.d.next = !self.hit_live.val();
                    self.state.d.next = State::CWriteEntry;
                }
            }
            State::CWriteEntry => {
                self.mem_write.next = true;
                self.mem_req_addr.next = bits::<32>(0x2000_0000_u64) | bit_cast::<32, ENTRY_BITS>(self.c_entry.q.val());
                self.mem_req_wdata.next = self.erec.q.val() & !bits::<64>(0x0200_0000_0000_u64);
                if self.mem_req_ready.val() {
                    if self.stale.q.val() {
                        self.state.d.next = State::CDeref;
                    } else {
                        self.state.d.next = State::CDone;
                    }
                }
            }
            State::CDeref => {
                self.idx_cmd_valid.next = true;
                self.idx_cmd_op.next = 3.into();
                if self.idx_cmd_ready.val() {
                    self.state.d.next = State::CDerefWait;
                }
            }
            State::CDerefWait => {
                self.idx_rsp_ready.next = true;
                if self.idx_rsp_valid.val() {
                    self.counters[6].d.next = self.counters[6].q.val() + 1;
                    self.state.d.next = State::CDone;
                }
            }
            State::CDone => {
                self.cleaned.next = !self.syncing.q.val();
                if self.syncing.q.val() {
                    self.state.d.next = State::SyncLoop;
                } else {
                    self.state.d.next = State::Idle;
                }
            }
        }

        // --- The memory port ------------------------------------------------------
        self.mem_req_valid.next = self.mem_write.val() | (self.mem_read.val() & !self.pending.q.val());
        self.mem_req_write.next = self.mem_write.val();
        if self.mem_read.val() & !self.pending.q.val() & self.mem_req_ready.val() {
            self.pending.d.next = true;
        }
        if self.done.val() {
            self.pending.d.next = false;
        }

        if self.reset.val() {
            self.state.d.next = State::InitL2p;
            self.count.d.next = 0.into();
            self.pending.d.next = false;
            self.resetting.d.next = false;
            self.syncing.d.next = false;
            self.pid_sp.d.next = 0.into();
            self.next_fresh.d.next = 0.into();
            self.stale_head.d.next = 0.into();
            self.stale_tail.d.next = 0.into();
            for i in 0..12 {
                self.counters[i].d.next = 0.into();
            }
        }
    }
}
