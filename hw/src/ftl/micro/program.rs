//! The FTL remap controller as a program for the sequencer.
//!
//! It makes the decisions, in the same order, and writes the same table
//! words as [`crate::ftl::controller::FtlController`]; the golden model
//! ([`crate::ftl::model::CoreModel`]) checks both. Two differences in
//! traffic, neither visible in the results: a write's `PUT` goes to the index
//! before its `L2P` and `PAGE` reads (so the command can leave the core's
//! slot early, see [`super::cpu`]), and after a garbage-collection relocation
//! the program reads the moved page's `PAGE` word a second time instead of
//! keeping it.
use super::isa::{Asm, Field, InPort, OutPort, Reg, Shift};
use crate::ftl::region::{BLK, DEV, DEVV, ENTRY, FREE, L2P, PAGE, PIDS, REV, STALE};
use crate::ftl::Stat;
use crate::index::Op as IndexOp;
use std::sync::OnceLock;

// Registers. `ZERO` and `ONE` hold their constants; `T*` are scratch.
const ZERO: Reg = Reg(0);
const ONE: Reg = Reg(1);
const T0: Reg = Reg(2);
const T1: Reg = Reg(3);
const T2: Reg = Reg(4);
const T3: Reg = Reg(5);
/// Return addresses: of `release`, `program_page`, and the leaf subroutines.
const LINK_R: Reg = Reg(6);
const LINK_P: Reg = Reg(7);
const LINK_H: Reg = Reg(8);
/// Where `j` puts its (unused) return address.
const JUNK: Reg = Reg(9);
// Geometry, computed from the `cfg_*` inputs at reset and at `RESET`.
const PPB: Reg = Reg(10);
const BPD: Reg = Reg(11);
const DEVICES: Reg = Reg(12);
const USABLE: Reg = Reg(13);
const RESERVE: Reg = Reg(14);
const LPAS: Reg = Reg(15);
const PPB_M1: Reg = Reg(16);
const BPD_M1: Reg = Reg(17);
const DEV_M1: Reg = Reg(18);
const M16: Reg = Reg(19);
// The command.
const OP: Reg = Reg(20);
const LPA: Reg = Reg(21);
const HOME: Reg = Reg(22);
const HOME_BASE: Reg = Reg(23);
const STATUS: Reg = Reg(24);
const FLAGS: Reg = Reg(25);
// A write's state.
const OLD_VALID: Reg = Reg(26);
const OLD_PID: Reg = Reg(27);
const OLD_RC: Reg = Reg(28);
const OLD_PPA: Reg = Reg(29);
const ENTRY_NO: Reg = Reg(30);
const HAS_ENTRY: Reg = Reg(31);
const STALE_HIT: Reg = Reg(32);
const E_VALID: Reg = Reg(33);
const E_QUEUED: Reg = Reg(34);
const E_PID: Reg = Reg(35);
const E_VER: Reg = Reg(36);
const H_RC: Reg = Reg(37);
const H_PPA: Reg = Reg(38);
const PID: Reg = Reg(39);
const VERSION: Reg = Reg(40);
// Releasing one reference.
const REL_PID: Reg = Reg(41);
const REL_PPA: Reg = Reg(42);
const REL_HAS_ENTRY: Reg = Reg(43);
const REL_ENTRY: Reg = Reg(44);
// The home device's record.
const DEV_OPEN: Reg = Reg(45);
const DEV_WRITTEN: Reg = Reg(46);
const DEV_FREE: Reg = Reg(47);
const DEV_HEAD: Reg = Reg(48);
// Programming a page, and garbage collection.
const PROG_OWNER: Reg = Reg(49);
const PROG_PPA: Reg = Reg(50);
const SCAN: Reg = Reg(51);
const HAVE_VICTIM: Reg = Reg(52);
const VICTIM: Reg = Reg(53);
const VICTIM_VALID: Reg = Reg(54);
const GC_PAGE: Reg = Reg(55);
const GC_PID: Reg = Reg(56);
const GC_PPA: Reg = Reg(57);
// Allocators and the cleaner's ring.
const PID_SP: Reg = Reg(58);
const NEXT_FRESH: Reg = Reg(59);
const STALE_HEAD: Reg = Reg(60);
const STALE_TAIL: Reg = Reg(61);
const RESETTING: Reg = Reg(62);
const SYNCING: Reg = Reg(63);

/// The assembled program (built once).
pub fn program() -> &'static [u32] {
    static PROGRAM: OnceLock<Vec<u32>> = OnceLock::new();
    PROGRAM.get_or_init(assemble)
}

fn j(a: &mut Asm, target: &'static str) {
    a.jal(JUNK, target);
}

/// `dst = value << bits` (bits read from `port`), by the `shift_left` subroutine.
fn shifted(a: &mut Asm, dst: Reg, value: Reg, port: InPort) {
    a.input(T0, port);
    a.mov(T1, value);
    a.jal(LINK_H, "shift_left");
    a.mov(dst, T1);
}

/// Queues index entry `entry` for the cleaner.
fn push_stale(a: &mut Asm, entry: Reg) {
    a.and(T0, STALE_TAIL, M16);
    a.clear_word();
    a.setf(Field::W16, entry);
    a.mwr(STALE, T0);
    a.addi(STALE_TAIL, STALE_TAIL, 1);
    a.inc(Stat::CleanerBacklog);
}

fn assemble() -> Vec<u32> {
    let mut asm = Asm::default();
    let a = &mut asm;

    // --- Power-on reset --------------------------------------------------------
    a.li(ZERO, 0);
    a.li(ONE, 1);
    a.mov(RESETTING, ZERO);
    a.label("setup");
    a.mov(SYNCING, ZERO);
    a.mov(PID_SP, ZERO);
    a.mov(NEXT_FRESH, ZERO);
    a.mov(STALE_HEAD, ZERO);
    a.mov(STALE_TAIL, ZERO);
    a.mov(T2, ZERO);
    a.label("clear_counters");
    a.clear_counter(T2);
    a.addi(T2, T2, 1);
    a.subi(T1, T2, crate::ftl::STATS as u32);
    a.bnz(T1, "clear_counters");
    shifted(a, PPB, ONE, InPort::PageBits);
    shifted(a, BPD, ONE, InPort::BlockBits);
    shifted(a, DEVICES, ONE, InPort::DevBits);
    a.input(RESERVE, InPort::Reserve);
    a.input(LPAS, InPort::Lpas);
    a.subi(PPB_M1, PPB, 1);
    a.subi(BPD_M1, BPD, 1);
    a.subi(DEV_M1, DEVICES, 1);
    // usable = (bpd - reserve) << page_bits
    a.sub(T2, BPD, RESERVE);
    shifted(a, USABLE, T2, InPort::PageBits);
    a.li(T0, 0xff);
    a.shift(M16, T0, Shift::Left8);
    a.or(M16, M16, T0);

    // --- Tables: L2P, BLK, FREE, DEV, DEVV --------------------------------------
    a.clear_word();
    a.mov(T1, ZERO);
    a.label("i_l2p");
    a.mwr(L2P, T1);
    a.addi(T1, T1, 1);
    a.sltu(T2, T1, LPAS);
    a.bnz(T2, "i_l2p");
    // Every global block {d, b}: BLK = 0, FREE slot = the block after it.
    a.mov(T1, ZERO); // d
    a.label("i_dev");
    a.shift(T3, T1, Shift::Left13); // d << 13
    a.mov(T2, ZERO); // b
    a.label("i_blk");
    a.or(T0, T3, T2);
    a.clear_word();
    a.mwr(BLK, T0);
    a.addi(T0, T0, 1);
    a.setf(Field::W24, T0);
    a.subi(T0, T0, 1);
    a.mwr(FREE, T0);
    a.addi(T2, T2, 1);
    a.sub(T0, T2, BPD);
    a.bnz(T0, "i_blk");
    // DEV[d] = {open = block 0 of d, written 0, free bpd - 1, head 0}; DEVV[d] = 0.
    a.clear_word();
    a.setf(Field::Open, T3);
    a.setf(Field::Free, BPD_M1);
    a.mwr(DEV, T1);
    a.clear_word();
    a.mwr(DEVV, T1);
    a.addi(T1, T1, 1);
    a.sub(T0, T1, DEVICES);
    a.bnz(T0, "i_dev");
    // The index clears its own table.
    a.label("i_index");
    a.input(T0, InPort::IdxReady);
    a.bz(T0, "i_index");
    a.bz(RESETTING, "idle_loop");
    a.mov(RESETTING, ZERO);
    a.li(STATUS, crate::ftl::Status::Done as u32);
    a.mov(FLAGS, ZERO);
    a.out(OutPort::Value, ZERO);
    j(a, "respond");

    // --- Waiting: a command, else a cleaner step; `idle` once neither ----------------
    a.label("idle_loop");
    a.poll("no_command");
    j(a, "decode");
    a.label("no_command");
    a.input(T0, InPort::Hold);
    a.bnz(T0, "set_idle");
    a.sub(T0, STALE_TAIL, STALE_HEAD);
    a.bz(T0, "set_idle");
    a.out(OutPort::Idle, ZERO);
    a.mov(SYNCING, ZERO);
    j(a, "clean_step");
    a.label("set_idle");
    a.out(OutPort::Idle, ONE);
    j(a, "idle_loop");

    // --- Decode --------------------------------------------------------------------
    a.label("decode");
    a.input(OP, InPort::Op);
    a.input(LPA, InPort::Lpa);
    a.and(HOME, LPA, DEV_M1);
    a.out(OutPort::Home, HOME);
    a.shift(HOME_BASE, HOME, Shift::Left13);
    // WRITE and WRITE_FP in range: the key to the index first (PUT), then
    // the command is taken; its answer is read in `write`.
    a.li(T0, 2);
    a.sltu(T1, OP, T0);
    a.sltu(T2, LPA, LPAS);
    a.and(T1, T1, T2);
    a.bz(T1, "d_take");
    a.idx(IndexOp::Put, ZERO);
    a.label("d_take");
    a.take();
    a.out(OutPort::Value, ZERO);
    a.mov(FLAGS, ZERO);
    a.mov(OLD_VALID, ZERO);
    a.mov(HAS_ENTRY, ZERO);
    a.mov(STALE_HIT, ZERO);
    a.li(STATUS, crate::ftl::Status::ErrMalformed as u32);
    a.li(T0, 5);
    a.sltu(T1, OP, T0);
    a.bz(T1, "d_not_lpa");
    a.sltu(T1, LPA, LPAS);
    a.bnz(T1, "d_in_range");
    a.li(STATUS, crate::ftl::Status::ErrRange as u32);
    j(a, "respond");
    a.label("d_in_range");
    a.li(T0, 3);
    a.sltu(T1, OP, T0);
    a.bnz(T1, "write");
    a.sub(T1, OP, T0);
    a.bz(T1, "read");
    j(a, "trim");
    a.label("d_not_lpa");
    a.subi(T1, OP, 5);
    a.bnz(T1, "d_not_stats");
    a.li(T0, crate::ftl::STATS as u32);
    a.sltu(T1, LPA, T0);
    a.bnz(T1, "d_stats");
    a.li(STATUS, crate::ftl::Status::ErrRange as u32);
    j(a, "respond");
    a.label("d_stats");
    a.li(STATUS, crate::ftl::Status::Done as u32);
    a.counter_value(LPA);
    j(a, "respond");
    a.label("d_not_stats");
    a.subi(T1, OP, 6);
    a.bnz(T1, "d_reset");
    a.mov(SYNCING, ONE);
    j(a, "sync_loop");
    a.label("d_reset");
    a.mov(RESETTING, ONE);
    a.pulse_index_reset();
    j(a, "setup");

    // --- Respond, counting -------------------------------------------------------------
    a.label("respond");
    a.out(OutPort::Status, STATUS);
    a.out(OutPort::Flags, FLAGS);
    a.rsp();
    a.li(T0, 8);
    a.sltu(T1, STATUS, T0);
    a.bnz(T1, "r_ok");
    a.inc(Stat::Errors);
    j(a, "idle_loop");
    a.label("r_ok");
    a.bnz(STATUS, "r_not_unique");
    a.inc(Stat::Writes);
    a.inc(Stat::UniqueWrites);
    j(a, "idle_loop");
    a.label("r_not_unique");
    a.subi(T1, STATUS, 1);
    a.bnz(T1, "idle_loop");
    a.inc(Stat::Writes);
    a.inc(Stat::DuplicateWrites);
    j(a, "idle_loop");

    // --- WRITE / WRITE_FP / WRITE_UNIQUE ------------------------------------------------
    a.label("write");
    a.mrd(L2P, LPA);
    a.getf(OLD_VALID, Field::B24);
    a.getf(OLD_PID, Field::W24);
    a.bz(OLD_VALID, "w_no_old");
    a.mrd(PAGE, OLD_PID);
    a.getf(OLD_RC, Field::Rc);
    a.getf(OLD_PPA, Field::W24);
    a.label("w_no_old");
    a.subi(T0, OP, 2);
    a.bz(T0, "w_unique");
    a.input(ENTRY_NO, InPort::IdxEntry);
    a.input(T0, InPort::IdxStatus);
    a.bnz(T0, "w_put_not_new");
    a.mov(HAS_ENTRY, ONE);
    j(a, "w_unique");
    a.label("w_put_not_new");
    a.subi(T1, T0, 2);
    a.bz(T1, "w_hit");
    a.li(FLAGS, crate::ftl::flag::INDEX_FULL as u32);
    a.inc(Stat::IndexFull);
    j(a, "w_unique");
    a.label("w_hit");
    a.mrd(ENTRY, ENTRY_NO);
    a.getf(E_VALID, Field::B40);
    a.getf(E_QUEUED, Field::B41);
    a.getf(E_PID, Field::W24);
    a.getf(E_VER, Field::EVer);
    a.bnz(E_VALID, "w_read_hit");
    // A stale hit: stored again, the entry re-pointed.
    a.label("w_stale");
    a.li(FLAGS, crate::ftl::flag::STALE as u32);
    a.inc(Stat::StaleHits);
    a.label("w_repoint");
    a.mov(STALE_HIT, ONE);
    a.mov(HAS_ENTRY, ONE);
    j(a, "w_unique");
    a.label("w_read_hit");
    a.mrd(PAGE, E_PID);
    a.getf(H_RC, Field::Rc);
    a.getf(H_PPA, Field::W24);
    a.jal(LINK_H, "hit_live");
    a.bz(T0, "w_stale");
    a.input(T0, InPort::RcMax);
    // Below the limit, add one; at it (or above it, which a count that
    // memory kept never is) store a new copy, so a count never wraps.
    a.sltu(T1, H_RC, T0);
    a.bnz(T1, "w_write_hit");
    // Saturated: the new copy becomes the entry's target (re-pointed as a
    // stale hit is); the old copy keeps its references until released.
    a.li(FLAGS, crate::ftl::flag::SATURATED as u32);
    j(a, "w_repoint");
    a.label("w_write_hit");
    a.copy_word();
    a.addi(T0, H_RC, 1);
    a.setf(Field::Rc, T0);
    a.mwr(PAGE, E_PID);
    a.bz(OLD_VALID, "w_map_dup");
    a.mov(REL_PID, OLD_PID);
    a.jal(LINK_R, "release");
    a.label("w_map_dup");
    a.clear_word();
    a.setf(Field::W24, E_PID);
    a.setf(Field::B24, ONE);
    a.mwr(L2P, LPA);
    a.bnz(OLD_VALID, "w_dup_counted");
    a.inc(Stat::MappedLpas);
    a.label("w_dup_counted");
    a.li(STATUS, crate::ftl::Status::Duplicate as u32);
    a.out(OutPort::Value, H_PPA);
    j(a, "respond");

    // Room on the home device, counting the page this overwrite frees?
    a.label("w_unique");
    a.mrd(DEVV, HOME);
    a.getf(T0, Field::W24);
    a.mov(T1, ZERO);
    a.bz(OLD_VALID, "wu_limit");
    a.subi(T2, OLD_RC, 1);
    a.bnz(T2, "wu_limit");
    a.shift(T2, OLD_PPA, Shift::Right8);
    a.shift(T2, T2, Shift::Right13);
    a.sub(T2, T2, HOME);
    a.bnz(T2, "wu_limit");
    a.mov(T1, ONE);
    a.label("wu_limit");
    a.add(T1, USABLE, T1);
    a.sltu(T2, T0, T1);
    a.bnz(T2, "wu_room");
    a.li(STATUS, crate::ftl::Status::ErrDeviceFull as u32);
    a.mov(FLAGS, ZERO);
    a.bz(HAS_ENTRY, "respond");
    a.bnz(STALE_HIT, "respond");
    // The entry just allocated points at nothing: queue it for the cleaner.
    a.clear_word();
    a.setf(Field::B41, ONE);
    a.mwr(ENTRY, ENTRY_NO);
    push_stale(a, ENTRY_NO);
    j(a, "respond");
    a.label("wu_room");
    // A saturated hit's copy lets go of its entry, which moves to the new
    // copy: freeing the old copy later must not queue an entry that is no
    // longer its own.
    a.subi(T0, FLAGS, crate::ftl::flag::SATURATED as u32);
    a.bnz(T0, "wu_release_old");
    a.mrd(PAGE, E_PID);
    a.copy_word();
    a.setf(Field::B40, ZERO);
    a.mwr(PAGE, E_PID);
    a.label("wu_release_old");
    a.bz(OLD_VALID, "a_pid");
    a.mov(REL_PID, OLD_PID);
    a.jal(LINK_R, "release");
    // A page id: a freed one, else a fresh one.
    a.label("a_pid");
    a.bz(PID_SP, "a_fresh");
    a.subi(PID_SP, PID_SP, 1);
    a.mrd(PIDS, PID_SP);
    a.getf(PID, Field::W24);
    j(a, "a_read_page");
    a.label("a_fresh");
    a.mov(PID, NEXT_FRESH);
    a.addi(NEXT_FRESH, NEXT_FRESH, 1);
    a.label("a_read_page");
    a.mrd(PAGE, PID);
    a.getf(VERSION, Field::PVer);
    a.mrd(DEV, HOME);
    a.getf(DEV_OPEN, Field::Open);
    a.getf(DEV_WRITTEN, Field::Written);
    a.getf(DEV_FREE, Field::Free);
    a.getf(DEV_HEAD, Field::W16);
    // The open block is full and only the reserve is left: collect.
    a.label("f_check");
    a.sub(T0, DEV_WRITTEN, PPB);
    a.bnz(T0, "f_program");
    a.sltu(T0, RESERVE, DEV_FREE);
    a.bnz(T0, "f_program");
    j(a, "gc");
    a.label("f_program");
    a.mov(PROG_OWNER, PID);
    a.jal(LINK_P, "program_page");
    a.mrd(DEVV, HOME);
    a.getf(T0, Field::W24);
    a.addi(T0, T0, 1);
    a.clear_word();
    a.setf(Field::W24, T0);
    a.mwr(DEVV, HOME);
    a.clear_word();
    a.setf(Field::Open, DEV_OPEN);
    a.setf(Field::Written, DEV_WRITTEN);
    a.setf(Field::Free, DEV_FREE);
    a.setf(Field::W16, DEV_HEAD);
    a.mwr(DEV, HOME);
    a.clear_word();
    a.setf(Field::Rc, ONE);
    a.setf(Field::PVer, VERSION);
    a.setf(Field::B40, HAS_ENTRY);
    a.setf(Field::PEntry, ENTRY_NO);
    a.setf(Field::W24, PROG_PPA);
    a.mwr(PAGE, PID);
    a.bz(HAS_ENTRY, "w_map_new");
    a.clear_word();
    a.and(T0, STALE_HIT, E_QUEUED);
    a.setf(Field::B41, T0);
    a.setf(Field::B40, ONE);
    a.setf(Field::EVer, VERSION);
    a.setf(Field::W24, PID);
    a.mwr(ENTRY, ENTRY_NO);
    a.label("w_map_new");
    a.clear_word();
    a.setf(Field::W24, PID);
    a.setf(Field::B24, ONE);
    a.mwr(L2P, LPA);
    a.bnz(OLD_VALID, "w_new_counted");
    a.inc(Stat::MappedLpas);
    a.label("w_new_counted");
    a.inc(Stat::LivePages);
    a.li(STATUS, crate::ftl::Status::Unique as u32);
    a.out(OutPort::Value, PROG_PPA);
    j(a, "respond");

    // --- Programming one page for PROG_OWNER into the open block; returns via LINK_P ----------
    a.label("program_page");
    a.sub(T0, DEV_WRITTEN, PPB);
    a.bnz(T0, "p_read_blk");
    a.jal(LINK_H, "open_next_block");
    a.label("p_read_blk");
    a.mrd(BLK, DEV_OPEN);
    a.getf(T0, Field::W16);
    a.addi(T0, T0, 1);
    a.clear_word();
    a.setf(Field::W16, T0);
    a.addi(T1, DEV_WRITTEN, 1);
    a.sub(T1, T1, PPB);
    a.bnz(T1, "p_not_last");
    a.setf(Field::B16, ONE);
    a.label("p_not_last");
    a.mwr(BLK, DEV_OPEN);
    a.shift(T0, DEV_OPEN, Shift::Left8);
    a.or(T0, T0, DEV_WRITTEN);
    a.clear_word();
    a.setf(Field::W24, PROG_OWNER);
    a.mwr(REV, T0);
    a.mov(PROG_PPA, T0);
    a.addi(DEV_WRITTEN, DEV_WRITTEN, 1);
    a.jr(LINK_P);

    // --- Garbage collection on the home device: greedy, lowest block on ties ----------------
    a.label("gc");
    a.mov(SCAN, ZERO);
    a.mov(HAVE_VICTIM, ZERO);
    a.label("g_scan");
    a.or(T0, HOME_BASE, SCAN);
    a.mrd(BLK, T0);
    a.getf(T1, Field::B16);
    a.bz(T1, "g_scan_next");
    a.getf(T1, Field::W16);
    a.sltu(T2, T1, PPB);
    a.bz(T2, "g_scan_next");
    a.bz(HAVE_VICTIM, "g_take");
    a.sltu(T2, T1, VICTIM_VALID);
    a.bz(T2, "g_scan_next");
    a.label("g_take");
    a.mov(HAVE_VICTIM, ONE);
    a.mov(VICTIM, T0);
    a.mov(VICTIM_VALID, T1);
    a.label("g_scan_next");
    a.sub(T2, SCAN, BPD_M1);
    a.addi(SCAN, SCAN, 1);
    a.bnz(T2, "g_scan");
    a.mov(GC_PAGE, ZERO);
    a.bnz(HAVE_VICTIM, "g_have");
    // Cannot happen below the usable pages (checked first).
    a.li(STATUS, crate::ftl::Status::ErrDeviceFull as u32);
    j(a, "respond");
    a.label("g_have");
    a.sub(T0, VICTIM, DEV_OPEN);
    a.bnz(T0, "g_rev");
    a.jal(LINK_H, "open_next_block");
    a.label("g_rev");
    a.shift(T0, VICTIM, Shift::Left8);
    a.or(GC_PPA, T0, GC_PAGE);
    a.mrd(REV, GC_PPA);
    a.getf(GC_PID, Field::W24);
    a.mrd(PAGE, GC_PID);
    a.getf(T0, Field::Rc);
    a.bz(T0, "g_next");
    a.getf(T1, Field::W24);
    a.sub(T1, T1, GC_PPA);
    a.bnz(T1, "g_next");
    a.mov(PROG_OWNER, GC_PID);
    a.jal(LINK_P, "program_page");
    a.mrd(PAGE, GC_PID);
    a.copy_word();
    a.setf(Field::W24, PROG_PPA);
    a.mwr(PAGE, GC_PID);
    a.out(OutPort::MvFrom, GC_PPA);
    a.out(OutPort::MvTo, PROG_PPA);
    a.mv();
    a.inc(Stat::Relocations);
    a.label("g_next");
    a.sub(T0, GC_PAGE, PPB_M1);
    a.bz(T0, "g_erase");
    a.addi(GC_PAGE, GC_PAGE, 1);
    j(a, "g_rev");
    a.label("g_erase");
    a.clear_word();
    a.mwr(BLK, VICTIM);
    a.add(T0, DEV_HEAD, DEV_FREE);
    a.and(T0, T0, BPD_M1);
    a.or(T0, T0, HOME_BASE);
    a.setf(Field::W16, VICTIM);
    a.mwr(FREE, T0);
    a.addi(DEV_FREE, DEV_FREE, 1);
    a.inc(Stat::Erases);
    j(a, "f_check");

    // --- Releasing one reference to REL_PID; returns via LINK_R -----------------------------
    a.label("release");
    a.mrd(PAGE, REL_PID);
    a.getf(T0, Field::Rc);
    a.getf(REL_PPA, Field::W24);
    a.getf(REL_HAS_ENTRY, Field::B40);
    a.getf(REL_ENTRY, Field::PEntry);
    a.copy_word();
    a.sltu(T1, ONE, T0);
    a.bz(T1, "r_free");
    a.subi(T0, T0, 1);
    a.setf(Field::Rc, T0);
    a.mwr(PAGE, REL_PID);
    a.jr(LINK_R);
    // The last reference: refcount 0, version + 1, the page invalid.
    a.label("r_free");
    a.setf(Field::Rc, ZERO);
    a.getf(T1, Field::PVer);
    a.addi(T1, T1, 1);
    a.setf(Field::PVer, T1);
    a.mwr(PAGE, REL_PID);
    a.dec(Stat::LivePages);
    a.shift(T2, REL_PPA, Shift::Right8);
    a.mrd(BLK, T2);
    a.clear_word();
    a.getf(T1, Field::B16);
    a.setf(Field::B16, T1);
    a.getf(T1, Field::W16);
    a.subi(T1, T1, 1);
    a.setf(Field::W16, T1);
    a.mwr(BLK, T2);
    a.shift(T2, T2, Shift::Right13);
    a.mrd(DEVV, T2);
    a.getf(T1, Field::W24);
    a.subi(T1, T1, 1);
    a.clear_word();
    a.setf(Field::W24, T1);
    a.mwr(DEVV, T2);
    a.clear_word();
    a.setf(Field::W24, REL_PID);
    a.mwr(PIDS, PID_SP);
    a.addi(PID_SP, PID_SP, 1);
    a.bz(REL_HAS_ENTRY, "r_done");
    a.mrd(ENTRY, REL_ENTRY);
    a.getf(T1, Field::B41);
    a.bnz(T1, "r_done");
    a.copy_word();
    a.setf(Field::B41, ONE);
    a.mwr(ENTRY, REL_ENTRY);
    push_stale(a, REL_ENTRY);
    a.label("r_done");
    a.jr(LINK_R);

    // --- open_next_block: opens the home device's next free block; returns via LINK_H ----
    a.label("open_next_block");
    a.or(T0, HOME_BASE, DEV_HEAD);
    a.mrd(FREE, T0);
    a.getf(DEV_OPEN, Field::W16);
    a.addi(DEV_HEAD, DEV_HEAD, 1);
    a.and(DEV_HEAD, DEV_HEAD, BPD_M1);
    a.subi(DEV_FREE, DEV_FREE, 1);
    a.mov(DEV_WRITTEN, ZERO);
    a.jr(LINK_H);

    // --- shift_left: T1 <<= T0; returns via LINK_H -----------------------------------------
    a.label("shift_left");
    a.bz(T0, "shift_done");
    a.add(T1, T1, T1);
    a.subi(T0, T0, 1);
    j(a, "shift_left");
    a.label("shift_done");
    a.jr(LINK_H);

    // --- hit_live: is the PAGE word just read the live copy ENTRY_NO points at? T0 = 1/0 ------
    a.label("hit_live");
    a.getf(T1, Field::Rc);
    a.bz(T1, "hl_no");
    a.getf(T1, Field::PVer);
    a.sub(T1, T1, E_VER);
    a.bnz(T1, "hl_no");
    a.getf(T1, Field::B40);
    a.bz(T1, "hl_no");
    a.getf(T1, Field::PEntry);
    a.sub(T1, T1, ENTRY_NO);
    a.bnz(T1, "hl_no");
    a.mov(T0, ONE);
    a.jr(LINK_H);
    a.label("hl_no");
    a.mov(T0, ZERO);
    a.jr(LINK_H);

    // --- READ and TRIM --------------------------------------------------------------------------
    a.label("read");
    a.mrd(L2P, LPA);
    a.getf(T0, Field::B24);
    a.getf(T1, Field::W24);
    a.bnz(T0, "rd_page");
    a.li(STATUS, crate::ftl::Status::Unmapped as u32);
    j(a, "respond");
    a.label("rd_page");
    a.mrd(PAGE, T1);
    a.getf(T0, Field::W24);
    a.li(STATUS, crate::ftl::Status::Mapped as u32);
    a.out(OutPort::Value, T0);
    j(a, "respond");

    a.label("trim");
    a.mrd(L2P, LPA);
    a.getf(T0, Field::B24);
    a.getf(REL_PID, Field::W24);
    a.bnz(T0, "t_release");
    a.li(STATUS, crate::ftl::Status::Unmapped as u32);
    j(a, "respond");
    a.label("t_release");
    a.jal(LINK_R, "release");
    a.clear_word();
    a.mwr(L2P, LPA);
    a.dec(Stat::MappedLpas);
    a.li(STATUS, crate::ftl::Status::Trimmed as u32);
    j(a, "respond");

    // --- SYNC and the cleaner: one queued entry per step --------------------------------------
    a.label("sync_loop");
    a.sub(T0, STALE_TAIL, STALE_HEAD);
    a.bnz(T0, "clean_step");
    a.mov(SYNCING, ZERO);
    a.li(STATUS, crate::ftl::Status::Done as u32);
    j(a, "respond");

    a.label("clean_step");
    a.and(T0, STALE_HEAD, M16);
    a.mrd(STALE, T0);
    a.getf(ENTRY_NO, Field::W16);
    a.addi(STALE_HEAD, STALE_HEAD, 1);
    a.dec(Stat::CleanerBacklog);
    a.mrd(ENTRY, ENTRY_NO);
    a.getf(E_VALID, Field::B40);
    a.getf(E_PID, Field::W24);
    a.getf(E_VER, Field::EVer);
    a.copy_word();
    a.setf(Field::B41, ZERO);
    a.mov(STALE_HIT, ONE);
    a.bz(E_VALID, "c_write");
    a.mrd(PAGE, E_PID);
    a.jal(LINK_H, "hit_live");
    a.sub(STALE_HIT, ONE, T0);
    a.label("c_write");
    a.mwr(ENTRY, ENTRY_NO);
    a.bz(STALE_HIT, "c_done");
    a.idx(IndexOp::DerefEntry, ENTRY_NO);
    a.inc(Stat::Cleaned);
    a.label("c_done");
    a.bnz(SYNCING, "sync_loop");
    a.pulse_cleaned();
    j(a, "idle_loop");

    asm.finish()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_program_assembles_into_the_rom() {
        let p = super::program();
        assert!(p.len() <= super::super::isa::PROGRAM_WORDS);
        assert!(p.iter().all(|w| *w < 1 << super::super::isa::INSN_BITS));
        println!("{} instructions", p.len());
    }
}
