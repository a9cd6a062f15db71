//! `MicroFtl`: the FTL remap controller as a sequencer running
//! [`super::program`]. Its ports and their contracts are those of
//! [`FtlController`](crate::ftl::controller::FtlController) (see there), so
//! either can sit in [`DittoCore`](crate::ftl::ditto_core); this one is a
//! fraction of the size and takes more clocks per command. Three differences:
//! - No `stat` ports: its twelve 32-bit counters live in the register
//!   file's block RAM (words 64 to 75), and `STATS` reads them.
//! - It does not copy the fingerprint: a command offered on `cmd_*` must stay
//!   offered, unchanged, until `cmd_ready` takes it (which the controller
//!   raises once it has given the key to the index), as `DittoCore`'s command
//!   slot does.
//! - `idle` is high only when the controller waits for a command and the
//!   cleaner has nothing to do (or is held).
//!
//! Inside: a 512 x 24-bit program ROM and a 128 x 32-bit register file
//! (64 registers and the counters), both in block RAM; one instruction every
//! five clocks (fetch, read `ra`, read `rb` or a counter, latch it, execute), I/O
//! instructions holding the execute clock until their handshake completes; a
//! read-word and a write-word register for the 64-bit FTL memory with fixed
//! field extract/insert ([`super::isa::Field`]). The instruction set is in
//! [`super::isa`], and [`super::emu`] is its reference.
use super::isa::{INSN_BITS, PC_BITS, REG_BITS, WORD_BITS};
use crate::ftl::{ADDR_BITS, BLOCK_BITS, MEM_ADDR_BITS, MEM_DATA_BITS};
use crate::index::{CMD_TAG_BITS, ENTRY_BITS};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

#[derive(LogicBlock)]
pub struct MicroFtl {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,

    pub cfg_dev_bits: Signal<In, Bits<2>>,
    pub cfg_block_bits: Signal<In, Bits<4>>,
    pub cfg_page_bits: Signal<In, Bits<4>>,
    pub cfg_reserve: Signal<In, Bits<BLOCK_BITS>>,
    pub cfg_lpas: Signal<In, Bits<ADDR_BITS>>,
    pub cfg_array_wide: Signal<In, Bit>,

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
    pub idle: Signal<Out, Bit>,

    rom: SyncROM<Bits<INSN_BITS>, PC_BITS>,
    /// Words 0..63: the registers (24 bits used); 64..75: the counters.
    regs: RAM<Bits<32>, { REG_BITS + 1 }>,
    /// 0 fetch (and the previous instruction's register write), 1 read
    /// `ra`, 2 read `rb`, 3 latch `rb`, 4 execute.
    phase: DFF<Bits<3>>,
    /// `rb` (or the counter), latched.
    bw: DFF<Bits<32>>,
    /// The register write of the instruction just executed, done a clock
    /// later (off the execute clock's path).
    wb_en: DFF<Bit>,
    wb_addr: DFF<Bits<{ REG_BITS + 1 }>>,
    wb_data: DFF<Bits<32>>,
    /// Handshake step inside the execute clock (request sent / waiting).
    step: DFF<Bit>,
    pc: DFF<Bits<PC_BITS>>,
    ir: DFF<Bits<INSN_BITS>>,
    a: DFF<Bits<WORD_BITS>>,
    read_word: DFF<Bits<MEM_DATA_BITS>>,
    write_word: DFF<Bits<MEM_DATA_BITS>>,
    status: DFF<Bits<4>>,
    value: DFF<Bits<32>>,
    flags: DFF<Bits<3>>,
    from: DFF<Bits<ADDR_BITS>>,
    to: DFF<Bits<ADDR_BITS>>,
    home: DFF<Bits<3>>,
    idle_r: DFF<Bit>,
    op: DFF<Bits<3>>,
    tag: DFF<Bits<CMD_TAG_BITS>>,
    lpa: DFF<Bits<ADDR_BITS>>,
    idx_status: DFF<Bits<4>>,
    idx_entry: DFF<Bits<ENTRY_BITS>>,

    // Decoded fields of `ir` and the execute clock's values.
    opc: Signal<Local, Bits<5>>,
    rd: Signal<Local, Bits<REG_BITS>>,
    imm: Signal<Local, Bits<7>>,
    b: Signal<Local, Bits<WORD_BITS>>,
    pc_next: Signal<Local, Bits<PC_BITS>>,
    result: Signal<Local, Bits<WORD_BITS>>,
    writes: Signal<Local, Bit>,
    done: Signal<Local, Bit>,
    port: Signal<Local, Bits<WORD_BITS>>,
    field: Signal<Local, Bits<WORD_BITS>>,
    counter: Signal<Local, Bits<32>>,
    w_addr: Signal<Local, Bits<{ REG_BITS + 1 }>>,
    w_data: Signal<Local, Bits<32>>,
}

impl Default for MicroFtl {
    fn default() -> Self {
        let program: BTreeMap<Bits<PC_BITS>, Bits<INSN_BITS>> = super::program::program()
            .iter()
            .enumerate()
            .map(|(i, w)| (bits::<PC_BITS>(i as u64), bits::<INSN_BITS>(*w as u64)))
            .collect();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_dev_bits: Default::default(),
            cfg_block_bits: Default::default(),
            cfg_page_bits: Default::default(),
            cfg_reserve: Default::default(),
            cfg_lpas: Default::default(),
            cfg_array_wide: Default::default(),
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
            rom: SyncROM::new(program),
            regs: Default::default(),
            phase: Default::default(),
            bw: Default::default(),
            wb_en: Default::default(),
            wb_addr: Default::default(),
            wb_data: Default::default(),
            step: Default::default(),
            pc: Default::default(),
            ir: Default::default(),
            a: Default::default(),
            read_word: Default::default(),
            write_word: Default::default(),
            status: Default::default(),
            value: Default::default(),
            flags: Default::default(),
            from: Default::default(),
            to: Default::default(),
            home: Default::default(),
            idle_r: Default::default(),
            op: Default::default(),
            tag: Default::default(),
            lpa: Default::default(),
            idx_status: Default::default(),
            idx_entry: Default::default(),
            opc: Default::default(),
            rd: Default::default(),
            imm: Default::default(),
            b: Default::default(),
            pc_next: Default::default(),
            result: Default::default(),
            writes: Default::default(),
            done: Default::default(),
            port: Default::default(),
            field: Default::default(),
            counter: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
        }
    }
}

// `#[hdl_gen]` cannot translate match guards, so each `match` arm keeps its `if`.
#[allow(clippy::collapsible_match)]
impl Logic for MicroFtl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, phase, bw, wb_en, wb_addr, wb_data, step, pc, ir, a, read_word, write_word, status, value,
            flags, from, to, home, idle_r, op, tag, lpa, idx_status, idx_entry
        );
        self.rom.clock.next = self.clock.val();
        self.regs.read_clock.next = self.clock.val();
        self.regs.write_clock.next = self.clock.val();
        self.rom.address.next = self.pc.q.val();

        // --- Decode -------------------------------------------------------------------
        self.opc.next = self.ir.q.val().get_bits::<5>(19);
        self.rd.next = self.ir.q.val().get_bits::<REG_BITS>(13);
        self.imm.next = self.ir.q.val().get_bits::<7>(0);
        self.b.next = self.bw.q.val().get_bits::<WORD_BITS>(0);
        self.counter.next = self.bw.q.val();
        // Phase 1 reads `ra`; phase 2 reads `rb`, or for `CNT` the counter
        // `imm[3:0]` (increment, decrement) or `ra` (read, clear).
        self.regs.read_address.next = bit_cast::<{ REG_BITS + 1 }, REG_BITS>(self.ir.q.val().get_bits::<REG_BITS>(1));
        if self.opc.val() == 20 {
            if self.imm.val().get_bit(5) {
                self.regs.read_address.next = bits::<{ REG_BITS + 1 }>(64)
                    | bit_cast::<{ REG_BITS + 1 }, 4>(self.regs.read_data.val().get_bits::<4>(0));
            } else {
                self.regs.read_address.next =
                    bits::<{ REG_BITS + 1 }>(64) | bit_cast::<{ REG_BITS + 1 }, 4>(self.imm.val().get_bits::<4>(0));
            }
        }
        if self.phase.q.val() == 1 {
            self.regs.read_address.next =
                bit_cast::<{ REG_BITS + 1 }, REG_BITS>(self.rom.data.val().get_bits::<REG_BITS>(7));
        }

        // --- IN ports and GETF fields ---------------------------------------------------
        self.port.next = 0.into();
        match self.imm.val().get_bits::<4>(0).index() {
            0 => self.port.next = bit_cast::<WORD_BITS, 3>(self.op.q.val()),
            1 => self.port.next = self.lpa.q.val(),
            2 => self.port.next = bit_cast::<WORD_BITS, 2>(self.cfg_dev_bits.val()),
            3 => self.port.next = bit_cast::<WORD_BITS, 4>(self.cfg_block_bits.val()),
            4 => self.port.next = bit_cast::<WORD_BITS, 4>(self.cfg_page_bits.val()),
            5 => self.port.next = bit_cast::<WORD_BITS, BLOCK_BITS>(self.cfg_reserve.val()),
            6 => self.port.next = self.cfg_lpas.val(),
            7 => self.port.next = bit_cast::<WORD_BITS, 1>(self.cleaner_hold.val().into()),
            8 => self.port.next = bit_cast::<WORD_BITS, 4>(self.idx_status.q.val()),
            9 => self.port.next = bit_cast::<WORD_BITS, ENTRY_BITS>(self.idx_entry.q.val()),
            10 => self.port.next = bit_cast::<WORD_BITS, 1>(self.idx_cmd_ready.val().into()),
            _ => {}
        }
        self.field.next = 0.into();
        match self.imm.val().get_bits::<4>(0).index() {
            0 => self.field.next = self.read_word.q.val().get_bits::<24>(0),
            1 => self.field.next = bit_cast::<WORD_BITS, 1>(self.read_word.q.val().get_bits::<1>(24)),
            2 => self.field.next = bit_cast::<WORD_BITS, 12>(self.read_word.q.val().get_bits::<12>(52)),
            3 => self.field.next = bit_cast::<WORD_BITS, 8>(self.read_word.q.val().get_bits::<8>(44)),
            4 => self.field.next = bit_cast::<WORD_BITS, 1>(self.read_word.q.val().get_bits::<1>(40)),
            5 => self.field.next = bit_cast::<WORD_BITS, 16>(self.read_word.q.val().get_bits::<16>(24)),
            6 => self.field.next = bit_cast::<WORD_BITS, 1>(self.read_word.q.val().get_bits::<1>(41)),
            7 => self.field.next = bit_cast::<WORD_BITS, 8>(self.read_word.q.val().get_bits::<8>(32)),
            8 => self.field.next = bit_cast::<WORD_BITS, 1>(self.read_word.q.val().get_bits::<1>(16)),
            9 => self.field.next = bit_cast::<WORD_BITS, 16>(self.read_word.q.val().get_bits::<16>(0)),
            10 => self.field.next = bit_cast::<WORD_BITS, 16>(self.read_word.q.val().get_bits::<16>(48)),
            11 => self.field.next = bit_cast::<WORD_BITS, 16>(self.read_word.q.val().get_bits::<16>(32)),
            12 => self.field.next = bit_cast::<WORD_BITS, 16>(self.read_word.q.val().get_bits::<16>(16)),
            _ => {}
        }

        // --- Execute ----------------------------------------------------------------------
        self.pc_next.next = self.pc.q.val() + 1;
        self.result.next = 0.into();
        self.w_addr.next = bit_cast::<{ REG_BITS + 1 }, REG_BITS>(self.rd.val());
        self.w_data.next = 0.into();
        self.writes.next = false;
        self.done.next = true;
        self.cmd_ready.next = false;
        self.rsp_valid.next = false;
        self.mv_valid.next = false;
        self.idx_cmd_valid.next = false;
        self.idx_rsp_ready.next = false;
        self.idx_reset.next = false;
        self.cleaned.next = false;
        self.mem_req_valid.next = false;
        self.mem_req_write.next = false;
        self.mem_req_addr.next = (bit_cast::<MEM_ADDR_BITS, 4>(self.imm.val().get_bits::<4>(0)) << 28)
            | bit_cast::<MEM_ADDR_BITS, WORD_BITS>(self.a.q.val());
        self.mem_req_wdata.next = self.write_word.q.val();
        self.idx_cmd_op.next = self.imm.val().get_bits::<3>(0);
        self.idx_cmd_entry.next = self.a.q.val().get_bits::<ENTRY_BITS>(0);
        if self.cfg_array_wide.val() {
            self.idx_cmd_fp.next = self.cmd_fp.val();
        } else {
            self.idx_cmd_fp.next = self.cmd_fp.val() ^ (bit_cast::<160, 3>(self.home.q.val()) << 157);
        }
        if self.phase.q.val() == 4 {
            match self.opc.val().index() {
                0 => {
                    self.result.next = self.a.q.val() + self.b.val();
                    self.writes.next = true;
                }
                1 => {
                    self.result.next = self.a.q.val() - self.b.val();
                    self.writes.next = true;
                }
                2 => {
                    self.result.next = self.a.q.val() & self.b.val();
                    self.writes.next = true;
                }
                3 => {
                    self.result.next = self.a.q.val() | self.b.val();
                    self.writes.next = true;
                }
                4 => {
                    self.result.next = self.a.q.val() + bit_cast::<WORD_BITS, 7>(self.imm.val());
                    self.writes.next = true;
                }
                5 => {
                    self.result.next = self.a.q.val() - bit_cast::<WORD_BITS, 7>(self.imm.val());
                    self.writes.next = true;
                }
                6 => {
                    match self.imm.val().get_bits::<2>(0).index() {
                        0 => self.result.next = self.a.q.val() << 8,
                        1 => self.result.next = self.a.q.val() >> 8,
                        2 => self.result.next = self.a.q.val() << 13,
                        _ => self.result.next = self.a.q.val() >> 13,
                    }
                    self.writes.next = true;
                }
                7 => {
                    if self.a.q.val() < self.b.val() {
                        self.result.next = 1.into();
                    }
                    self.writes.next = true;
                }
                8 => {
                    self.result.next = bit_cast::<WORD_BITS, 13>(self.ir.q.val().get_bits::<13>(0));
                    self.writes.next = true;
                }
                9 => {
                    if self.a.q.val() == 0 {
                        self.pc_next.next = (bit_cast::<PC_BITS, 6>(self.rd.val()) << 3)
                            | bit_cast::<PC_BITS, 3>(self.ir.q.val().get_bits::<3>(0));
                    }
                }
                10 => {
                    if self.a.q.val() != 0 {
                        self.pc_next.next = (bit_cast::<PC_BITS, 6>(self.rd.val()) << 3)
                            | bit_cast::<PC_BITS, 3>(self.ir.q.val().get_bits::<3>(0));
                    }
                }
                11 => {
                    self.result.next = bit_cast::<WORD_BITS, PC_BITS>(self.pc.q.val() + 1);
                    self.writes.next = true;
                    self.pc_next.next = self.ir.q.val().get_bits::<PC_BITS>(0);
                }
                12 => {
                    self.pc_next.next = self.a.q.val().get_bits::<PC_BITS>(0);
                }
                13 => {
                    self.result.next = self.port.val();
                    self.writes.next = true;
                }
                14 => {
                    self.result.next = self.field.val();
                    self.writes.next = true;
                }
                15 => match self.imm.val().get_bits::<4>(0).index() {
                    0 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xffff_ffff_ff00_0000_u64))
                            | bit_cast::<64, WORD_BITS>(self.a.q.val())
                    }
                    1 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xffff_ffff_feff_ffff_u64))
                            | (bit_cast::<64, 1>(self.a.q.val().get_bits::<1>(0)) << 24)
                    }
                    2 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0x000f_ffff_ffff_ffff_u64))
                            | (bit_cast::<64, 12>(self.a.q.val().get_bits::<12>(0)) << 52)
                    }
                    3 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xfff0_0fff_ffff_ffff_u64))
                            | (bit_cast::<64, 8>(self.a.q.val().get_bits::<8>(0)) << 44)
                    }
                    4 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xffff_feff_ffff_ffff_u64))
                            | (bit_cast::<64, 1>(self.a.q.val().get_bits::<1>(0)) << 40)
                    }
                    5 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xffff_ff00_00ff_ffff_u64))
                            | (bit_cast::<64, 16>(self.a.q.val().get_bits::<16>(0)) << 24)
                    }
                    6 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xffff_fdff_ffff_ffff_u64))
                            | (bit_cast::<64, 1>(self.a.q.val().get_bits::<1>(0)) << 41)
                    }
                    7 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xffff_ff00_ffff_ffff_u64))
                            | (bit_cast::<64, 8>(self.a.q.val().get_bits::<8>(0)) << 32)
                    }
                    8 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xffff_ffff_fffe_ffff_u64))
                            | (bit_cast::<64, 1>(self.a.q.val().get_bits::<1>(0)) << 16)
                    }
                    9 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xffff_ffff_ffff_0000_u64))
                            | bit_cast::<64, 16>(self.a.q.val().get_bits::<16>(0))
                    }
                    10 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0x0000_ffff_ffff_ffff_u64))
                            | (bit_cast::<64, 16>(self.a.q.val().get_bits::<16>(0)) << 48)
                    }
                    11 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xffff_0000_ffff_ffff_u64))
                            | (bit_cast::<64, 16>(self.a.q.val().get_bits::<16>(0)) << 32)
                    }
                    12 => {
                        self.write_word.d.next = (self.write_word.q.val() & bits::<64>(0xffff_ffff_0000_ffff_u64))
                            | (bit_cast::<64, 16>(self.a.q.val().get_bits::<16>(0)) << 16)
                    }
                    _ => {}
                },
                16 => {
                    if self.imm.val().get_bit(0) {
                        self.write_word.d.next = self.read_word.q.val();
                    } else {
                        self.write_word.d.next = 0.into();
                    }
                }
                17 => {
                    // MRD: the request, then its data.
                    self.done.next = false;
                    if !self.step.q.val() {
                        self.mem_req_valid.next = true;
                        if self.mem_req_ready.val() {
                            self.step.d.next = true;
                        }
                    } else if self.mem_rsp_valid.val() {
                        self.read_word.d.next = self.mem_rsp_rdata.val();
                        self.step.d.next = false;
                        self.done.next = true;
                    }
                }
                18 => {
                    self.mem_req_valid.next = true;
                    self.mem_req_write.next = true;
                    self.done.next = self.mem_req_ready.val();
                }
                19 => match self.imm.val().get_bits::<3>(0).index() {
                    0 => self.status.d.next = self.a.q.val().get_bits::<4>(0),
                    1 => self.value.d.next = bit_cast::<32, WORD_BITS>(self.a.q.val()),
                    2 => self.flags.d.next = self.a.q.val().get_bits::<3>(0),
                    3 => self.from.d.next = self.a.q.val(),
                    4 => self.to.d.next = self.a.q.val(),
                    5 => self.home.d.next = self.a.q.val().get_bits::<3>(0),
                    6 => self.idle_r.d.next = self.a.q.val().get_bit(0),
                    _ => {}
                },
                20 => {
                    self.w_addr.next =
                        bits::<{ REG_BITS + 1 }>(64) | bit_cast::<{ REG_BITS + 1 }, 4>(self.imm.val().get_bits::<4>(0));
                    self.writes.next = true;
                    match self.imm.val().get_bits::<2>(4).index() {
                        0 => self.w_data.next = self.counter.val() + 1,
                        1 => self.w_data.next = self.counter.val() - 1,
                        2 => {
                            self.value.d.next = self.counter.val();
                            self.writes.next = false;
                        }
                        _ => {
                            self.w_addr.next = bits::<{ REG_BITS + 1 }>(64)
                                | bit_cast::<{ REG_BITS + 1 }, 4>(self.a.q.val().get_bits::<4>(0));
                            self.w_data.next = 0.into();
                        }
                    }
                }
                21 => {
                    if self.cmd_valid.val() {
                        self.op.d.next = self.cmd_op.val();
                        self.tag.d.next = self.cmd_tag.val();
                        self.lpa.d.next = self.cmd_lpa.val();
                        self.idle_r.d.next = false;
                    } else {
                        self.pc_next.next = self.ir.q.val().get_bits::<PC_BITS>(0);
                    }
                }
                22 => {
                    // IDX: the command, then its response.
                    self.done.next = false;
                    if !self.step.q.val() {
                        self.idx_cmd_valid.next = true;
                        if self.idx_cmd_ready.val() {
                            self.step.d.next = true;
                        }
                    } else {
                        self.idx_rsp_ready.next = true;
                        if self.idx_rsp_valid.val() {
                            self.idx_status.d.next = self.idx_rsp_status.val();
                            self.idx_entry.d.next = self.idx_rsp_entry.val();
                            self.step.d.next = false;
                            self.done.next = true;
                        }
                    }
                }
                23 => {
                    self.rsp_valid.next = true;
                    self.done.next = self.rsp_ready.val();
                }
                24 => {
                    self.mv_valid.next = true;
                    self.done.next = self.mv_ready.val();
                }
                25 => {
                    if self.imm.val().get_bit(0) {
                        self.idx_reset.next = true;
                    } else {
                        self.cleaned.next = true;
                    }
                }
                26 => {
                    self.cmd_ready.next = true;
                    self.done.next = self.cmd_valid.val();
                }
                _ => {}
            }
        }

        // --- Sequencing and write-back ------------------------------------------------------
        if self.opc.val() != 20 {
            self.w_data.next = bit_cast::<32, WORD_BITS>(self.result.val());
        }
        self.regs.write_enable.next = self.wb_en.q.val();
        self.regs.write_address.next = self.wb_addr.q.val();
        self.regs.write_data.next = self.wb_data.q.val();
        self.wb_en.d.next = false;
        self.wb_addr.d.next = self.w_addr.val();
        self.wb_data.d.next = self.w_data.val();
        match self.phase.q.val().index() {
            0 => self.phase.d.next = 1.into(),
            1 => {
                self.ir.d.next = self.rom.data.val();
                self.phase.d.next = 2.into();
            }
            2 => {
                self.a.d.next = self.regs.read_data.val().get_bits::<WORD_BITS>(0);
                self.phase.d.next = 3.into();
            }
            3 => {
                self.bw.d.next = self.regs.read_data.val();
                self.phase.d.next = 4.into();
            }
            _ => {
                if self.done.val() {
                    self.wb_en.d.next = self.writes.val();
                    self.pc.d.next = self.pc_next.val();
                    self.phase.d.next = 0.into();
                }
            }
        }

        self.rsp_tag.next = self.tag.q.val();
        self.rsp_status.next = self.status.q.val();
        self.rsp_value.next = self.value.q.val();
        self.rsp_flags.next = self.flags.q.val();
        self.mv_from.next = self.from.q.val();
        self.mv_to.next = self.to.q.val();
        self.idle.next = self.idle_r.q.val();

        if self.reset.val() {
            self.wb_en.d.next = false;
            self.phase.d.next = 0.into();
            self.step.d.next = false;
            self.pc.d.next = 0.into();
            self.idle_r.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Yosys keeps the sequencer and maps its program ROM and register file
    /// to block RAM (a ROM or register file in flip-flops would not fit).
    #[test]
    fn micro_ftl_is_synthesizable_with_its_memories_in_block_ram() {
        let verilog = crate::verilog::top_verilog(MicroFtl::default());
        let stats = ditto_synth::check_synthesizable(&verilog, "top").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.ebrs, 5, "3 EBRs of program, 2 of registers and counters: {stats:?}");
        assert!(stats.dffs > 400 && stats.dffs < 1_200, "{stats:?}");
        assert!(stats.luts > 500 && stats.luts < 2_000, "{stats:?}");
    }
}
