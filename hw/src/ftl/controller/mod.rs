//! `FtlController`: the FTL remap controller, one state machine for every
//! configuration. It serves the core's commands one at a time (see
//! [`crate::ftl`] for the tables and the policies), drives the fingerprint
//! index's command port, and keeps every table in one FTL memory behind a
//! request/response port ([`super::layout`] defines the words).
//! [`super::model::CoreModel`] is its golden model, together with the index.
//!
//! Ports (all handshakes are `valid & ready` on a rising clock edge):
//! - `cfg`: the geometry (log2 of devices, blocks per device and pages per
//!   block), the reserve of free blocks per device (at least 1), the number
//!   of LPAs (at least 1), array-wide dedup, the reference-count limit
//!   (at least 1) and the NVM cache's slots (0: off; at most the pages of
//!   a device) and whether GC cooperates with it (both ignored unless
//!   built [`FtlController::with_nvm_cache`]). They are used as they come (a board ties them to
//!   constants, so their arithmetic folds away): change them only during
//!   `reset` or before `RESET`. With a valid geometry GC always finds a
//!   victim (a write is refused first when its device holds its usable
//!   pages); the `device full` answer after a fruitless GC scan is only for
//!   an invalid one.
//! - `cmd`: a command (op, tag, lpa, fp), offered until `cmd.ready` takes
//!   it; it must not change while offered. The controller reads op, tag and
//!   lpa as soon as it is idle, and takes the command once it needs nothing
//!   more of it: a write once the index has accepted its key (the
//!   fingerprint, read from `cmd.fp` while it is offered), anything else at
//!   once. So the fingerprint is never copied: it stays in the offering slot.
//! - `rsp`: the command's one response, held until taken.
//! - `mv`: each page the host must move (`from` -> `to`): garbage
//!   collection's relocations and, with the NVM cache, write-backs (slot
//!   to flash) and cooperative drops (flash to slot, whose data the slot
//!   holds already), held until taken, before the response of the command
//!   that caused it. Addresses are 25 bits: a PPA, or an NVM slot with bit
//!   24 set ([`super::nvm::address`]).
//! - `idx_cmd`, `idx_rsp`: the fingerprint index's command and response
//!   ports, one command at a time (tag 0); `idx_reset` is a one-clock pulse
//!   on `RESET`, for the index's reset input (together with the core's).
//! - `mem`: the FTL memory, 64-bit words, address `{region, index}`. It
//!   must apply requests in order and answer each read, in order, at least
//!   one clock after accepting it; the controller has one request
//!   outstanding at a time.
//! - `cleaner_hold`: while high the background cleaner takes no new step
//!   (a board link holds it between the commands of a host's batch, so the
//!   batch runs as it would back to back); `SYNC` still drains.
//! - `cleaned`: one-clock pulse when the background cleaner finished a step
//!   it took in an idle gap (not the steps `SYNC` runs), so a test can replay
//!   the cleaner's schedule in the golden model.
//! - `idle`: high while the controller waits for a command with nothing for
//!   the cleaner to do (or the cleaner held).
//!
//! The counters of [`super::Stat`] live in a [`CounterBank`] (block RAM);
//! `STATS` reads them.
//!
//! After `reset` (and on `RESET`) the controller initialises its tables (one
//! write per LPA, two per block and two per device) and waits for the index
//! to clear its own; commands wait meanwhile.
//!
//! Inside: one state per table access. A read state holds its request until
//! the memory accepts it and moves on when the data comes back (kept in
//! `word`, so a following write can change a field of it); a write state
//! moves on when the memory accepts the write. The releasing of one
//! reference (`R*`), the programming of one page (`P*`) and garbage
//! collection (`G*`) are shared by the commands that need them, returning
//! through `ret` (programming returns to garbage collection or to the
//! write, by `prog_gc`). Each state names what it accesses rather than
//! building it: a region, an index source ([`Index`]) and, for a write, the
//! source of the field at bit 0 of the word ([`Low`]) and the region whose
//! other fields it fills; one multiplexer per output then serves every
//! state (the multiplexers were most of the logic when each state built its
//! own address and word).
//!
//! A decision on the word just read only picks the next state (the
//! registers a verdict sets are set in that state: `WStaleHit`,
//! `WSaturatedHit`), or is registered first and taken a clock later
//! (`room_full` for `WRoomJudge`, the GC scan's candidate): the read data's
//! comparators then never drive many enables in the clock they settle.
//!
//! The NVM write cache ([`FtlController::with_nvm_cache`], seed 003; the
//! policy is [`super::nvm`]'s, which the states follow step for step): a
//! unique write's copy goes to a slot (`NFill`: a never-used slot, else one
//! off the `SFREE` ring, else CLOCK's sweep over `SLOT`), a dirty victim
//! first written back through the program path on its own device (`wb`
//! switches `home`); a read of a page only in flash brings a clean copy in
//! (`RdPslot`, `NFill`), and `RdAgain` answers where the page is once any
//! write-back's GC is done; a duplicate found in a slot sets CLOCK's bit;
//! a release gives its slot back (`RPslot`); cooperative GC drops a live
//! page whose `PSLOT` says it is cached (`GPslot`, `GDrop`). A device's
//! `DEVV` count includes its dirty slots, so a write's room check is
//! unchanged.
//!
//! Reading ahead (`large`'s build, [`FtlController::reading_ahead`]): a
//! write of a fingerprint to an unmapped LPA runs `FReadDev`, `APid`,
//! `AReadPage` and `WRoom` (flag `ahead`) before `WPutWait`, and then
//! (flag `fetched`) skips them: `WRoomJudge` goes on to `FCheck`, which
//! makes `PStart`'s choice itself. A duplicate or a full device gives the
//! page id back (`give_back_pid`).
use super::counters::CounterBank;
use super::flash::{BLOCK_FIELD_BITS, PAGE_FIELD_BITS};
use super::layout::{self, blk, dev, entry, l2p, page, pids, rev, stale, Field, Region};
use super::{
    flag, Op, Stat, Status, ADDR_BITS, BLOCK_BITS, MEM_ADDR_BITS, MEM_DATA_BITS, MOVE_ADDR_BITS, NVM_SLOT_BITS,
    REFCOUNT_BITS, VERSION_BITS,
};
use crate::index::{CMD_TAG_BITS, ENTRY_BITS};
use crate::logic_block;
use crate::ports::{
    FtlCommandSink, FtlMemController, FtlResponseSource, FtlSettings, IndexCommandSource, IndexResponseSink, MoveSource,
};
use crate::state_reg::OneHotState;
use rust_hdl::prelude::*;

/// Bits of the cleaner ring's head and tail (one more than its slots'
/// index, so a full ring differs from an empty one).
const RING_BITS: usize = ENTRY_BITS + 1;
// Field widths, from the layout (the types check them against the
// registers the fields land in).
const W_L2P_PID: usize = l2p::PID.width;
const W_PAGE_REFCOUNT: usize = page::REFCOUNT.width;
const W_PAGE_VERSION: usize = page::VERSION.width;
const W_PAGE_ENTRY: usize = page::ENTRY.width;
const W_PAGE_PPA: usize = page::PPA.width;
const W_ENTRY_VERSION: usize = entry::VERSION.width;
const W_ENTRY_PID: usize = entry::PID.width;
const W_REV_PID: usize = rev::PID.width;
const W_BLK_VALID: usize = blk::VALID.width;
const W_DEV_OPEN: usize = dev::OPEN.width;
const W_DEV_WRITTEN: usize = dev::WRITTEN.width;
const W_DEV_FREE: usize = dev::FREE.width;
const W_DEV_HEAD: usize = dev::HEAD.width;
const W_DEVV_VALID: usize = layout::devv::VALID.width;
const W_FREE_BLOCK: usize = layout::free::BLOCK.width;
const W_STALE_ENTRY: usize = stale::ENTRY.width;
const W_PIDS_PID: usize = pids::PID.width;
const W_SLOT_PID: usize = layout::slot::PID.width;
const W_PSLOT_DEVICE: usize = layout::pslot::DEVICE.width;
const W_PSLOT_SLOT: usize = layout::pslot::SLOT.width;
const W_SFREE_SLOT: usize = layout::sfree::SLOT.width;
/// The low bus carries each region's field at bit 0 (`layout`'s tests
/// check every region has one, at most this wide).
const LOW_BITS: usize = 24;
const _: () = assert!(ENTRY_BITS == 16 && BLOCK_BITS == 16 && ADDR_BITS == 24 && LOW_BITS == ADDR_BITS);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum State {
    // Initialising the tables, after reset and on RESET.
    InitL2p,
    InitBlk,
    InitFree,
    InitDevSetup,
    InitDev,
    InitDevv,
    InitIndex,
    // Waiting, deciding, answering.
    Idle,
    Decode,
    Respond,
    StatsRead,
    // WRITE_FP and WRITE_UNIQUE.
    Put,
    WReadL2p,
    WReadOld,
    WPutWait,
    WReadEntry,
    WReadHit,
    WStaleHit,
    WSaturatedHit,
    WWriteHit,
    WMapDup,
    WRoom,
    WRoomJudge,
    WFullEntry,
    WFullStale,
    WUnlink,
    APid,
    APopPid,
    AReadPage,
    FReadDev,
    FCheck,
    FDevv,
    FWriteDev,
    WWritePage,
    WWriteEntry,
    WMapNew,
    // Programming one page into the home device's open block.
    PStart,
    POpen,
    PBlk,
    PWriteRev,
    // Garbage collection on the home device.
    GScan,
    GScanEnd,
    GPick,
    GRev,
    GPage,
    GMoved,
    GMove,
    GNext,
    GErase,
    GFree,
    // Releasing one reference to `old_pid`.
    RReadPage,
    RDec,
    RFree,
    RBlk,
    RDevv,
    RPushPid,
    REntry,
    RPushStale,
    // READ and TRIM.
    RdReadL2p,
    RdReadPage,
    TReadL2p,
    TUnmap,
    // SYNC and the cleaner.
    SyncLoop,
    CReadStale,
    CReadEntry,
    CReadPage,
    CWriteEntry,
    CDeref,
    CDerefWait,
    CDone,
    // The NVM write cache (`nvm_cache`; declared last so that the states
    // before keep their numbers). A slot for a new copy: a free one, else
    // CLOCK's victim, written back first if dirty.
    NFill,
    NPop,
    NSweep,
    NClear,
    NVictim,
    NVictimDev,
    WbPage,
    WbMove,
    NEvict,
    NSlot,
    NPslot,
    // A read: served from the cache, or bringing its page in.
    RdPslot,
    RdTouch,
    RdAgain,
    // A duplicate found in the cache; an overwritten copy only in the NVM.
    WHitPslot,
    WHitTouch,
    WReadOldSlot,
    // Releasing a cached copy: its slot goes back.
    RPslot,
    RPushSlot,
    // Cooperative GC: a valid page cached in the NVM is dropped.
    GPslot,
    GDrop,
    GDropMove,
}

/// The callers of releasing a reference, where it returns to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Return {
    /// A duplicate write, after its old page.
    WMapDup,
    /// A unique write, allocating its page id after its old page.
    APid,
    /// A trim.
    TUnmap,
}

/// What indexes the region a state accesses.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Index {
    /// Initialisation's LPA, block or device; the block the GC scan reads;
    /// the GC victim's page.
    Cursor,
    Lpa,
    OldPid,
    EPid,
    Pid,
    Entry,
    RelEntry,
    /// The released page's global block, and its device.
    RelBlock,
    RelDevice,
    Home,
    /// The home device's free ring: its first slot, and the slot after its last.
    FreeHead,
    FreeTail,
    DevOpen,
    Victim,
    /// The open block's next page.
    CurPpa,
    PidSp,
    StaleHead,
    StaleTail,
}

/// What indexes the region a state of the NVM cache accesses (when it
/// sets `nvm_idx_on`, over [`Index`]: a build without the cache then
/// decodes `Index` exactly as before the cache was added).
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum NvmIndex {
    /// The NVM slot being filled, touched, evicted or freed.
    Slot,
    /// CLOCK's hand.
    Hand,
    /// The freed slots' ring: its first entry, and the one after its last.
    SFreeHead,
    SFreeTail,
    /// The page id being written back or evicted.
    WbPid,
}

/// The source of the field at bit 0 of a word the NVM cache's states write
/// (when `nvm_low_on`, over [`Low`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum NvmLow {
    Slot,
    /// The slot of a page cooperative GC drops.
    DropSlot,
    WbPid,
}

/// The source of the field at bit 0 of the word a state writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Low {
    Zero,
    /// `word`'s own (a write that changes other fields).
    Word,
    /// `word`'s plus or minus one (`low_down`), of its 24 or 16 bits.
    Bump24,
    Bump16,
    Pid,
    EPid,
    OldPid,
    ProgPpa,
    Entry,
    RelEntry,
    DevHead,
    /// The next block, as initialisation fills the free rings.
    CursorNext,
    Victim,
}

/// A field's offset in a word, as the RTL's constant.
fn at(f: Field) -> Constant<Bits<8>> {
    Constant::new(bits(f.offset as u64))
}
/// A region's number, as the RTL's constant.
fn region(r: Region) -> Constant<Bits<4>> {
    Constant::new(bits(r.number as u64))
}
/// A counter's number in the counter bank.
fn event(s: Stat) -> Constant<Bits<4>> {
    Constant::new(bits(s as u64))
}
fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(bits(v))
}

logic_block! {
    #[derive(LogicBlock)]
    pub struct FtlController {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, Bit>,

        pub cfg: FtlSettings,

        pub cmd: FtlCommandSink,
        pub cleaner_hold: Signal<In, Bit>,

        pub rsp: FtlResponseSource,

        pub mv: MoveSource,

        pub idx_reset: Signal<Out, Bit>,
        pub idx_cmd: IndexCommandSource,
        pub idx_rsp: IndexResponseSink,

        pub mem: FtlMemController,

        pub cleaned: Signal<Out, Bit>,
        pub idle: Signal<Out, Bit>,

        counters: CounterBank,

        // --- Control -------------------------------------------------------------
        state: OneHotState<State>,
        /// Where releasing a reference returns to.
        ret: DFF<Return>,
        ret_state: Signal<Local, State>,
        /// Opening a block for garbage collection (it returns to the scan of
        /// the victim's pages, not to programming).
        gc_open: DFF<Bit>,
        /// A read request was accepted and its data has not come back.
        pending: DFF<Bit>,
        /// A read-modify-write state has read its word and now writes it.
        rmw_write: DFF<Bit>,
        /// The state is a read-modify-write one; its write was taken.
        rmw: Signal<Local, Bit>,
        rmw_done: Signal<Local, Bit>,
        /// A `RESET` is being served (its response comes after the tables).
        resetting: DFF<Bit>,
        /// A `SYNC` is draining the cleaner.
        syncing: DFF<Bit>,
        /// The index's reset pulse on `RESET`, from a flip-flop.
        idx_reset_r: DFF<Bit>,

        // --- The command and its answer --------------------------------------------
        op: DFF<Bits<3>>,
        tag: DFF<Bits<CMD_TAG_BITS>>,
        /// The LPA (masked to the LPAs' bits), and whether the LPA as
        /// offered is in range (as a `STATS` selector: the counter's number
        /// and whether there is one).
        lpa: DFF<Bits<ADDR_BITS>>,
        lpa_ok: DFF<Bit>,
        stat_sel: DFF<Bits<4>>,
        stat_ok: DFF<Bit>,
        status: DFF<Bits<4>>,
        value: DFF<Bits<32>>,
        flags: DFF<Bits<3>>,

        // --- A write's state ---------------------------------------------------------
        /// The LPA's mapping before the command (a write's, a trim's): the page
        /// id whose reference goes. Releasing always releases this one.
        old_valid: DFF<Bit>,
        old_pid: DFF<Bits<ADDR_BITS>>,
        /// Releasing the old page frees a page on the home device.
        old_frees_home: DFF<Bit>,
        /// The index entry of the command's key (and the cleaner's entry).
        entry: DFF<Bits<ENTRY_BITS>>,
        /// The new copy is to own `entry`.
        has_entry: DFF<Bit>,
        /// `entry` is allocated already and is re-pointed (a stale hit or a
        /// saturated copy); for the cleaner, its entry is still stale.
        stale_hit: DFF<Bit>,
        /// `ENTRY[entry]` as read: valid, queued, version and page id. Garbage
        /// collection reuses `e_pid` for the page it moves.
        e_valid: DFF<Bit>,
        e_queued: DFF<Bit>,
        e_ver: DFF<Bits<VERSION_BITS>>,
        e_pid: DFF<Bits<ADDR_BITS>>,
        /// The last word read, for a write that changes some of its fields.
        word: DFF<Bits<MEM_DATA_BITS>>,
        /// The new copy's page id and its version.
        pid: DFF<Bits<ADDR_BITS>>,
        version: DFF<Bits<VERSION_BITS>>,
        /// The released page's global block, and its index entry.
        rel_block: DFF<Bits<BLOCK_BITS>>,
        rel_has_entry: DFF<Bit>,
        rel_entry: DFF<Bits<ENTRY_BITS>>,

        // --- The home device ----------------------------------------------------------
        dev_open: DFF<Bits<BLOCK_BITS>>,
        dev_written: DFF<Bits<BLOCK_BITS>>,
        dev_free: DFF<Bits<BLOCK_BITS>>,
        dev_head: DFF<Bits<BLOCK_BITS>>,
        /// The page being programmed is garbage collection's (owner `e_pid`),
        /// else the write's (owner `pid`); where it went.
        prog_gc: DFF<Bit>,
        prog_ppa: DFF<Bits<ADDR_BITS>>,
        /// Initialisation's LPA, block or device; the GC scan's global block
        /// (`{home, b}`); the GC victim's page (its PPA).
        cursor: DFF<Bits<ADDR_BITS>>,
        /// The GC scan: a block was read the clock before (`judged`), to
        /// be judged now from `word`; the best so far.
        judge: DFF<Bit>,
        judged: DFF<Bits<BLOCK_BITS>>,
        /// The block judged the clock before is a candidate (full, not all
        /// valid): its number and valid pages, to compare with the best.
        cand: DFF<Bit>,
        cand_block: DFF<Bits<BLOCK_BITS>>,
        cand_valid: DFF<Bits<BLOCK_BITS>>,
        have_victim: DFF<Bit>,
        victim: DFF<Bits<BLOCK_BITS>>,
        victim_valid: DFF<Bits<BLOCK_BITS>>,

        // --- Allocators ------------------------------------------------------------------
        /// Freed page ids on the `PIDS` stack; the next never-used page id.
        pid_sp: DFF<Bits<ADDR_BITS>>,
        next_fresh: DFF<Bits<ADDR_BITS>>,
        /// The cleaner's ring (`STALE`).
        stale_head: DFF<Bits<RING_BITS>>,
        stale_tail: DFF<Bits<RING_BITS>>,

        // --- The NVM write cache (`nvm_cache`; see the kernel) ------------------------
        /// The cache is on: built in, and `cfg.nvm_slots` is not zero; and
        /// garbage collection is cooperative.
        nvm_on: Signal<Local, Bit>,
        coop_on: Signal<Local, Bit>,
        /// `wb`, read through `nvm_on` (so that without the cache all it
        /// drives folds away); the command is a `READ`.
        is_wb: Signal<Local, Bit>,
        is_read: Signal<Local, Bit>,
        /// The state is one of the cache's own.
        in_cache_state: Signal<Local, Bit>,
        /// The slot being filled, touched, evicted or freed.
        slot: DFF<Bits<ADDR_BITS>>,
        /// CLOCK's hand.
        hand: DFF<Bits<ADDR_BITS>>,
        /// Slots never used yet (`sfresh` up to `cfg.nvm_slots`), then the
        /// ring of freed ones (`SFREE`): its head, its tail and its length.
        sfresh: DFF<Bits<NVM_SLOT_BITS>>,
        shead: DFF<Bits<ADDR_BITS>>,
        stail: DFF<Bits<ADDR_BITS>>,
        scount: DFF<Bits<NVM_SLOT_BITS>>,
        slots_m1: Signal<Local, Bits<ADDR_BITS>>,
        has_free_slot: Signal<Local, Bit>,
        /// A dirty page is being written back: the program path works on
        /// `wb_dev` instead of the LPA's home, for page id `wb_pid`.
        wb: DFF<Bit>,
        wb_pid: DFF<Bits<ADDR_BITS>>,
        wb_dev: DFF<Bits<3>>,
        /// The `PAGE` word read last marks a copy only in the NVM (a release's,
        /// a read's).
        in_nvm: DFF<Bit>,
        /// The device of the flash page a read brings in.
        fill_dev_of: DFF<Bits<3>>,
        /// The word just read, as the NVM's fields.
        rd_in_nvm: Signal<Local, Bit>,
        rd_addr: Signal<Local, Bits<32>>,
        rd_slot: Signal<Local, Bits<ADDR_BITS>>,
        rd_sl_pid: Signal<Local, Bits<ADDR_BITS>>,
        rd_sl_ref: Signal<Local, Bit>,
        rd_ps_cached: Signal<Local, Bit>,
        rd_ps_dev: Signal<Local, Bits<3>>,
        rd_ps_slot: Signal<Local, Bits<ADDR_BITS>>,
        /// The slot's page address (`nvm::address`), for a move.
        slot_addr: Signal<Local, Bits<MOVE_ADDR_BITS>>,
        /// The slot of the page GC drops (GC may run inside a write-back,
        /// whose victim is `slot`), and its address.
        drop_slot: DFF<Bits<ADDR_BITS>>,
        drop_addr: Signal<Local, Bits<MOVE_ADDR_BITS>>,
        /// The cache's index and low-field sources (over `index` and `low`).
        nvm_idx_on: Signal<Local, Bit>,
        nvm_index: Signal<Local, NvmIndex>,
        nvm_low_on: Signal<Local, Bit>,
        nvm_low: Signal<Local, NvmLow>,
        rq_nvm_idx_on: DFF<Bit>,
        rq_nvm_index: DFF<NvmIndex>,
        rq_nvm_low_on: DFF<Bit>,
        rq_nvm_low: DFF<NvmLow>,
        u_nvm_idx_on: Signal<Local, Bit>,
        u_nvm_index: Signal<Local, NvmIndex>,
        u_nvm_low_on: Signal<Local, Bit>,
        u_nvm_low: Signal<Local, NvmLow>,
        nvm_index_value: Signal<Local, Bits<ADDR_BITS>>,
        nvm_low_value: Signal<Local, Bits<LOW_BITS>>,
        /// A write's fields of `PAGE.in_nvm`, `SLOT` and `PSLOT`.
        pg_in_nvm: Signal<Local, Bit>,
        fill_slot: Signal<Local, Bit>,
        sl_ref: Signal<Local, Bit>,
        fill_pslot: Signal<Local, Bit>,
        ps_cached: Signal<Local, Bit>,
        ps_dev: Signal<Local, Bits<3>>,
        part_slot: Signal<Local, Bits<MEM_DATA_BITS>>,
        part_pslot: Signal<Local, Bits<MEM_DATA_BITS>>,
        rq_pg_in_nvm: DFF<Bit>,
        rq_fill_slot: DFF<Bit>,
        rq_sl_ref: DFF<Bit>,
        rq_fill_pslot: DFF<Bit>,
        rq_ps_cached: DFF<Bit>,
        rq_ps_dev: DFF<Bits<3>>,
        u_pg_in_nvm: Signal<Local, Bit>,
        u_fill_slot: Signal<Local, Bit>,
        u_sl_ref: Signal<Local, Bit>,
        u_fill_pslot: Signal<Local, Bit>,
        u_ps_cached: Signal<Local, Bit>,
        u_ps_dev: Signal<Local, Bits<3>>,

        // --- Reading ahead (`read_ahead`; see `FtlController::reading_ahead`) ---------
        /// A write's unique-path reads run while the index looks up its key
        /// (`FReadDev`, `APid`, `AReadPage`, `WRoom`, in that order).
        ahead: DFF<Bit>,
        /// They are done: the home device's record is in `dev_*`, a page id
        /// is taken (`pid`, its version in `version`) and `room_full` holds
        /// the device's verdict, until the write ends.
        fetched: DFF<Bit>,
        /// The page id taken came off the `PIDS` stack (else it is the next
        /// fresh one): how to give it back when the write needs none.
        pid_popped: DFF<Bit>,
        /// The write needs no page id after all: give back the one taken.
        give_back_pid: Signal<Local, Bit>,
        /// `ahead` and `fetched`, read through `read_ahead`.
        is_ahead: Signal<Local, Bit>,
        is_fetched: Signal<Local, Bit>,

        // --- Combinational ---------------------------------------------------------------
        ppb: Signal<Local, Bits<BLOCK_BITS>>,
        bpd_m1: Signal<Local, Bits<BLOCK_BITS>>,
        dev_m1: Signal<Local, Bits<3>>,
        usable: Signal<Local, Bits<ADDR_BITS>>,
        /// Value ranges: every register keeps only the bits its values can
        /// have in this configuration (all-ones masks up to its largest
        /// value), so that a board's constant configuration folds the others
        /// away. LPAs; page ids, and counts of them; PPAs; global blocks,
        /// counts of blocks and of pages in a block; the cursor's values.
        lpa_m1: Signal<Local, Bits<ADDR_BITS>>,
        smear1: Signal<Local, Bits<ADDR_BITS>>,
        smear2: Signal<Local, Bits<ADDR_BITS>>,
        smear4: Signal<Local, Bits<ADDR_BITS>>,
        smear8: Signal<Local, Bits<ADDR_BITS>>,
        lpa_mask: Signal<Local, Bits<ADDR_BITS>>,
        pages_log2: Signal<Local, Bits<8>>,
        pid_mask: Signal<Local, Bits<ADDR_BITS>>,
        count_mask: Signal<Local, Bits<ADDR_BITS>>,
        gblock_mask: Signal<Local, Bits<BLOCK_BITS>>,
        ppa_mask: Signal<Local, Bits<ADDR_BITS>>,
        cursor_mask: Signal<Local, Bits<ADDR_BITS>>,
        cursor_next: Signal<Local, Bits<ADDR_BITS>>,
        blocks_mask: Signal<Local, Bits<BLOCK_BITS>>,
        pages_mask: Signal<Local, Bits<BLOCK_BITS>>,
        home: Signal<Local, Bits<3>>,
        home_base: Signal<Local, Bits<BLOCK_BITS>>,
        /// The cleaner's ring is not empty, as it was a clock ago (its
        /// pointers move at least two clocks before `Idle` or `SyncLoop`
        /// looks: a push or a pop is followed by another state first).
        backlog: DFF<Bit>,
        /// The open block is full (`dev_written` is the pages per block), as
        /// it was a clock ago, for `PStart`: `dev_written` moves (in
        /// `FReadDev`, `POpen` and `PWriteRev`) at least two clocks before it.
        open_full: DFF<Bit>,
        /// The home device has no room (see the kernel), judged from the
        /// word read the clock before (reading ahead: from the last word
        /// read, held while no other read is answered).
        room_full: DFF<Bit>,
        cur_ppa: Signal<Local, Bits<ADDR_BITS>>,
        ppb_m1: Signal<Local, Bits<BLOCK_BITS>>,

        /// The GC victim's first page.
        victim_page0: Signal<Local, Bits<ADDR_BITS>>,
        done: Signal<Local, Bit>,
        /// The counter event of this clock (at most one), for the bank.
        ev: Signal<Local, Bit>,
        ev_id: Signal<Local, Bits<4>>,
        ev_down: Signal<Local, Bit>,
        /// What the state accesses: a read or a write, the region, its index.
        mem_read: Signal<Local, Bit>,
        mem_write: Signal<Local, Bit>,
        region: Signal<Local, Bits<4>>,
        index: Signal<Local, Index>,
        index_value: Signal<Local, Bits<ADDR_BITS>>,
        /// A write's word: the field at bit 0 from `low`; the other fields of
        /// the region named by `fill_*` (none: zero).
        low: Signal<Local, Low>,
        low_down: Signal<Local, Bit>,
        low_value: Signal<Local, Bits<LOW_BITS>>,
        bump: Signal<Local, Bits<LOW_BITS>>,
        fill_mapped: Signal<Local, Bit>,
        fill_page: Signal<Local, Bit>,
        fill_entry: Signal<Local, Bit>,
        fill_blk: Signal<Local, Bit>,
        fill_dev: Signal<Local, Bit>,
        part_mapped: Signal<Local, Bits<MEM_DATA_BITS>>,
        part_page: Signal<Local, Bits<MEM_DATA_BITS>>,
        part_entry: Signal<Local, Bits<MEM_DATA_BITS>>,
        part_blk: Signal<Local, Bits<MEM_DATA_BITS>>,
        part_dev: Signal<Local, Bits<MEM_DATA_BITS>>,
        /// The fields of the word just read.
        rdata: Signal<Local, Bits<MEM_DATA_BITS>>,
        rd_mapped: Signal<Local, Bit>,
        rd_l2p_pid: Signal<Local, Bits<ADDR_BITS>>,
        rd_rc: Signal<Local, Bits<REFCOUNT_BITS>>,
        rd_ver: Signal<Local, Bits<VERSION_BITS>>,
        rd_has_entry: Signal<Local, Bit>,
        rd_page_entry: Signal<Local, Bits<ENTRY_BITS>>,
        rd_ppa: Signal<Local, Bits<ADDR_BITS>>,
        rd_e_queued: Signal<Local, Bit>,
        rd_e_valid: Signal<Local, Bit>,
        rd_e_ver: Signal<Local, Bits<VERSION_BITS>>,
        rd_e_pid: Signal<Local, Bits<ADDR_BITS>>,
        wd_blk_valid: Signal<Local, Bits<BLOCK_BITS>>,
        rd_devv: Signal<Local, Bits<ADDR_BITS>>,
        /// A `PAGE` word just read is the live copy `entry` points at.
        hit_live: Signal<Local, Bit>,
        /// The fields above bit 0 of the word to write, by region; they
        /// default to `word`'s.
        pg_rc: Signal<Local, Bits<REFCOUNT_BITS>>,
        pg_ver: Signal<Local, Bits<VERSION_BITS>>,
        pg_has_entry: Signal<Local, Bit>,
        pg_entry: Signal<Local, Bits<ENTRY_BITS>>,
        en_queued: Signal<Local, Bit>,
        en_valid: Signal<Local, Bit>,
        en_ver: Signal<Local, Bits<VERSION_BITS>>,
        blk_full: Signal<Local, Bit>,
        rc_bump: Signal<Local, Bits<REFCOUNT_BITS>>,

        // --- The request stage (`request_stage`; see `FtlController::staged`) ---
        /// The memory took the request on offer this clock.
        req_taken: Signal<Local, Bit>,
        /// The request on offer is the current state's (always, unstaged).
        req_ok: Signal<Local, Bit>,
        /// The state's request as it was a clock ago, unless the memory
        /// took it then (so it is not offered twice).
        rq_valid: DFF<Bit>,
        rq_write: DFF<Bit>,
        rq_region: DFF<Bits<4>>,
        rq_index: DFF<Index>,
        rq_low: DFF<Low>,
        rq_low_down: DFF<Bit>,
        rq_fill_mapped: DFF<Bit>,
        rq_fill_page: DFF<Bit>,
        rq_fill_entry: DFF<Bit>,
        rq_fill_blk: DFF<Bit>,
        rq_fill_dev: DFF<Bit>,
        rq_pg_rc: DFF<Bits<REFCOUNT_BITS>>,
        rq_pg_ver: DFF<Bits<VERSION_BITS>>,
        rq_pg_has_entry: DFF<Bit>,
        rq_pg_entry: DFF<Bits<ENTRY_BITS>>,
        rq_en_queued: DFF<Bit>,
        rq_en_valid: DFF<Bit>,
        rq_en_ver: DFF<Bits<VERSION_BITS>>,
        rq_blk_full: DFF<Bit>,
        /// The request the multiplexers build: the state's, or the staged one.
        u_valid: Signal<Local, Bit>,
        u_write: Signal<Local, Bit>,
        u_region: Signal<Local, Bits<4>>,
        u_index: Signal<Local, Index>,
        u_low: Signal<Local, Low>,
        u_low_down: Signal<Local, Bit>,
        u_fill_mapped: Signal<Local, Bit>,
        u_fill_page: Signal<Local, Bit>,
        u_fill_entry: Signal<Local, Bit>,
        u_fill_blk: Signal<Local, Bit>,
        u_fill_dev: Signal<Local, Bit>,
        u_pg_rc: Signal<Local, Bits<REFCOUNT_BITS>>,
        u_pg_ver: Signal<Local, Bits<VERSION_BITS>>,
        u_pg_has_entry: Signal<Local, Bit>,
        u_pg_entry: Signal<Local, Bits<ENTRY_BITS>>,
        u_en_queued: Signal<Local, Bit>,
        u_en_valid: Signal<Local, Bit>,
        u_en_ver: Signal<Local, Bits<VERSION_BITS>>,
        u_blk_full: Signal<Local, Bit>,
    }
    constants {
        /// Requests go out a clock after their state asks (see
        /// [`FtlController::staged`]); off by default.
        request_stage: Constant<Bit> = Constant::new(false),
        /// A write of a fingerprint to an unmapped LPA reads ahead while
        /// the index looks up (see [`FtlController::reading_ahead`]); off
        /// by default.
        read_ahead: Constant<Bit> = Constant::new(false),
        /// The NVM write cache is built in (see
        /// [`FtlController::with_nvm_cache`]); off by default.
        nvm_cache: Constant<Bit> = Constant::new(false),
        r_slot: Constant<Bits<4>> = region(layout::slot::REGION),
        r_sfree: Constant<Bits<4>> = region(layout::sfree::REGION),
        r_pslot: Constant<Bits<4>> = region(layout::pslot::REGION),
        f_page_in_nvm: Constant<Bits<8>> = at(page::IN_NVM),
        f_slot_pid: Constant<Bits<8>> = at(layout::slot::PID),
        f_slot_referenced: Constant<Bits<8>> = at(layout::slot::REFERENCED),
        f_sfree_slot: Constant<Bits<8>> = at(layout::sfree::SLOT),
        f_pslot_slot: Constant<Bits<8>> = at(layout::pslot::SLOT),
        f_pslot_device: Constant<Bits<8>> = at(layout::pslot::DEVICE),
        f_pslot_cached: Constant<Bits<8>> = at(layout::pslot::CACHED),
        nvm_bit: Constant<Bits<MOVE_ADDR_BITS>> = k(1 << ADDR_BITS),
        r_l2p: Constant<Bits<4>> = region(l2p::REGION),
        r_page: Constant<Bits<4>> = region(page::REGION),
        r_entry: Constant<Bits<4>> = region(entry::REGION),
        r_rev: Constant<Bits<4>> = region(rev::REGION),
        r_blk: Constant<Bits<4>> = region(blk::REGION),
        r_dev: Constant<Bits<4>> = region(dev::REGION),
        r_devv: Constant<Bits<4>> = region(layout::devv::REGION),
        r_free: Constant<Bits<4>> = region(layout::free::REGION),
        r_stale: Constant<Bits<4>> = region(stale::REGION),
        r_pids: Constant<Bits<4>> = region(pids::REGION),
        /// Address bit 28: the region's first.
        region_at: Constant<Bits<8>> = k(28),
        f_l2p_pid: Constant<Bits<8>> = at(l2p::PID),
        f_l2p_mapped: Constant<Bits<8>> = at(l2p::MAPPED),
        f_page_ppa: Constant<Bits<8>> = at(page::PPA),
        f_page_entry: Constant<Bits<8>> = at(page::ENTRY),
        f_page_has_entry: Constant<Bits<8>> = at(page::HAS_ENTRY),
        f_page_version: Constant<Bits<8>> = at(page::VERSION),
        f_page_refcount: Constant<Bits<8>> = at(page::REFCOUNT),
        f_entry_pid: Constant<Bits<8>> = at(entry::PID),
        f_entry_version: Constant<Bits<8>> = at(entry::VERSION),
        f_entry_valid: Constant<Bits<8>> = at(entry::VALID),
        f_entry_queued: Constant<Bits<8>> = at(entry::QUEUED),
        f_rev_pid: Constant<Bits<8>> = at(rev::PID),
        f_blk_valid: Constant<Bits<8>> = at(blk::VALID),
        f_blk_full: Constant<Bits<8>> = at(blk::FULL),
        f_dev_head: Constant<Bits<8>> = at(dev::HEAD),
        f_dev_free: Constant<Bits<8>> = at(dev::FREE),
        f_dev_written: Constant<Bits<8>> = at(dev::WRITTEN),
        f_dev_open: Constant<Bits<8>> = at(dev::OPEN),
        f_devv_valid: Constant<Bits<8>> = at(layout::devv::VALID),
        f_free_block: Constant<Bits<8>> = at(layout::free::BLOCK),
        f_stale_entry: Constant<Bits<8>> = at(stale::ENTRY),
        f_pids_pid: Constant<Bits<8>> = at(pids::PID),
        /// PPA = `{device, block, page}`: the page field's and the block field's widths.
        page_field: Constant<Bits<8>> = k(PAGE_FIELD_BITS as u64),
        block_field: Constant<Bits<8>> = k(BLOCK_FIELD_BITS as u64),
        /// The key's top three bits, where device-local dedup puts the home device.
        key_home_at: Constant<Bits<8>> = k(157),
        one16: Constant<Bits<BLOCK_BITS>> = k(1),
        one32: Constant<Bits<32>> = k(1),
        /// The index's entries less one (all ones), and the cleaner ring's
        /// head and tail range (twice the entries: a full ring is not an
        /// empty one); [`FtlController::new`] sets them for an index.
        entry_mask: Constant<Bits<ENTRY_BITS>> = k((1 << ENTRY_BITS) - 1),
        ring_mask: Constant<Bits<RING_BITS>> = k((1 << RING_BITS) - 1),
        minus_one: Constant<Bits<LOW_BITS>> = k((1 << LOW_BITS) - 1),
        rc_minus_one: Constant<Bits<REFCOUNT_BITS>> = k((1 << REFCOUNT_BITS) - 1),
        op_write_unique: Constant<Bits<3>> = k(Op::WriteUnique as u64),
        op_read: Constant<Bits<3>> = k(Op::Read as u64),
        op_trim: Constant<Bits<3>> = k(Op::Trim as u64),
        op_stats: Constant<Bits<3>> = k(Op::Stats as u64),
        op_sync: Constant<Bits<3>> = k(Op::Sync as u64),
        stats: Constant<Bits<ADDR_BITS>> = k(super::STATS as u64),
        idx_put: Constant<Bits<3>> = k(crate::index::Op::Put as u64),
        idx_deref_entry: Constant<Bits<3>> = k(crate::index::Op::DerefEntry as u64),
        idx_new: Constant<Bits<4>> = k(crate::index::Status::New as u64),
        idx_found: Constant<Bits<4>> = k(crate::index::Status::Found as u64),
        st_unique: Constant<Bits<4>> = k(Status::Unique as u64),
        st_duplicate: Constant<Bits<4>> = k(Status::Duplicate as u64),
        st_mapped: Constant<Bits<4>> = k(Status::Mapped as u64),
        st_unmapped: Constant<Bits<4>> = k(Status::Unmapped as u64),
        st_trimmed: Constant<Bits<4>> = k(Status::Trimmed as u64),
        st_done: Constant<Bits<4>> = k(Status::Done as u64),
        /// The first error status (every status from it up is one).
        st_first_error: Constant<Bits<4>> = k(Status::ErrRange as u64),
        st_range: Constant<Bits<4>> = k(Status::ErrRange as u64),
        st_device_full: Constant<Bits<4>> = k(Status::ErrDeviceFull as u64),
        st_malformed: Constant<Bits<4>> = k(Status::ErrMalformed as u64),
        fl_index_full: Constant<Bits<3>> = k(flag::INDEX_FULL as u64),
        fl_stale: Constant<Bits<3>> = k(flag::STALE as u64),
        fl_saturated: Constant<Bits<3>> = k(flag::SATURATED as u64),
        ev_writes: Constant<Bits<4>> = event(Stat::Writes),
        ev_unique_writes: Constant<Bits<4>> = event(Stat::UniqueWrites),
        ev_duplicate_writes: Constant<Bits<4>> = event(Stat::DuplicateWrites),
        ev_relocations: Constant<Bits<4>> = event(Stat::Relocations),
        ev_erases: Constant<Bits<4>> = event(Stat::Erases),
        ev_stale_hits: Constant<Bits<4>> = event(Stat::StaleHits),
        ev_cleaned: Constant<Bits<4>> = event(Stat::Cleaned),
        ev_live_pages: Constant<Bits<4>> = event(Stat::LivePages),
        ev_mapped_lpas: Constant<Bits<4>> = event(Stat::MappedLpas),
        ev_index_full: Constant<Bits<4>> = event(Stat::IndexFull),
        ev_errors: Constant<Bits<4>> = event(Stat::Errors),
        ev_backlog: Constant<Bits<4>> = event(Stat::CleanerBacklog),
    }
}

impl FtlController {
    /// The controller for an index of `2^entry_bits` entries.
    pub fn new(entry_bits: usize) -> Self {
        assert!((1..=ENTRY_BITS).contains(&entry_bits), "entry bits: 1..={ENTRY_BITS}");
        Self { entry_mask: k((1 << entry_bits) - 1), ring_mask: k((2 << entry_bits) - 1), ..Default::default() }
    }

    /// The controller with its memory requests staged: a state's request
    /// (what it accesses, and the fields of the word it writes) is
    /// registered, and the address and word are built from those registers
    /// a clock later. Every access then costs one clock more, but the
    /// request's multiplexers start at flip-flops instead of at the state
    /// decode, which is what a board whose memory is at the end of a link
    /// (the Alchitry Cu, where the host holds the tables) needs to close
    /// timing. The behaviour is otherwise the same.
    pub fn staged(self) -> Self {
        Self { request_stage: Constant::new(true), ..self }
    }

    /// The controller reading ahead: a write of a fingerprint to an
    /// unmapped LPA does the reads a unique page needs (the home device's
    /// record, a page id and its version, the device's valid pages) while
    /// the index looks up its key, instead of after the index answers. A
    /// duplicate, or a device with no room, gives the page id back (the
    /// stack pointer or the fresh counter moves back), so the tables and
    /// the page ids handed out are what they would have been: the golden
    /// model holds for both. The index's lookup (on `large`, longer than
    /// the four reads) then hides them. It costs two adders and three
    /// flags, which the Cu's build does without (its speed is the hasher's,
    /// and its logic cells are nearly all used). An overwrite waits for the
    /// index as before: its release may free the block or the page id a
    /// unique write would take, so nothing is read before it.
    pub fn reading_ahead(self) -> Self {
        Self { read_ahead: Constant::new(true), ..self }
    }

    /// The controller with the NVM write cache of seed 003 built in (see
    /// [`super::nvm`] for the policy, which the kernel follows step for
    /// step): `cfg.nvm_slots` slots (0: off), whose tables (`SLOT`,
    /// `SFREE`, `PSLOT`) are in the FTL memory; new copies are written
    /// there, CLOCK evicts, a dirty victim is written back through the
    /// program path on its own device, reads bring pages in, and with
    /// `cfg.nvm_cooperative` GC drops a valid page cached in the NVM
    /// instead of copying it out.
    pub fn with_nvm_cache(self) -> Self {
        Self { nvm_cache: Constant::new(true), ..self }
    }
}

mod kernel;
pub use kernel::{FORMAL_PARAMS, FORMAL_PARAMS_NVM};
