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
//! instructions holding the execute clock until a clock after their handshake
//! completes; a read-word and a write-word register for the 64-bit FTL memory
//! with fixed field extract/insert ([`super::isa::Field`]). The instruction
//! set is in [`super::isa`], and [`super::emu`] is its reference.
//!
//! Timing (the Cu's 100 MHz): the opcode is decoded a clock before the
//! execute clock into one flag per instruction class (`x_*`), so every port
//! to another module, the write-back value and the enables start at a
//! flip-flop or a shallow AND-OR of flags; one adder serves `ADD`, `SUB`,
//! `ADDI`, `SUBI` and `SLT`, its operand prepared (inverted for a
//! subtraction) as `bw` is latched.
use super::isa::{INSN_BITS, PC_BITS, REG_BITS, WORD_BITS};
use crate::ftl::{ADDR_BITS, BLOCK_BITS, MEM_ADDR_BITS, MEM_DATA_BITS, REFCOUNT_BITS};
use crate::index::{CMD_TAG_BITS, ENTRY_BITS};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// The adder's second operand as latched in `bw`: a word and the carry in.
const OPERAND_BITS: usize = WORD_BITS + 1;
/// The adder's width: the operand and the borrow out (bit 25 of the sum).
const SUM_BITS: usize = WORD_BITS + 2;
// `#[hdl_gen]` takes only literal bit positions: the borrow is read as bit 25.
const _: () = assert!(SUM_BITS == 26);

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
    /// The write-back value's terms that come out of a carry chain (the
    /// adder with `SLT`, and `CNT`), each in a register of its own and ORed
    /// with `wb_data` at the register file's port, off the chains' paths.
    wb_arith: DFF<Bits<32>>,
    idx_reset_r: DFF<Bit>,
    cleaned_r: DFF<Bit>,
    wb_cnt: DFF<Bits<32>>,
    /// Handshake step inside the execute clock (request sent / waiting).
    step: DFF<Bit>,
    /// The execute clock of an instruction of these opcodes, decoded from
    /// `ir` on the clock before (phase 3) and cleared as it completes, so
    /// the handshakes, pulses and wide enables below start at a flip-flop:
    /// `SETF` (`setf_field` one-hot by field: bit `n` for field `n`, none
    /// past 12; `x_setf` for any field), `WSEL`, `MRD`, `MWR`, `PUT`, `IDX`,
    /// `RSP`, `MV`, `PULSE`, `TAKE`.
    setf_field: DFF<Bits<13>>,
    x_setf: DFF<Bit>,
    x_wsel: DFF<Bit>,
    x_mrd: DFF<Bit>,
    x_mwr: DFF<Bit>,
    x_put: DFF<Bit>,
    x_idx: DFF<Bit>,
    x_rsp: DFF<Bit>,
    x_mv: DFF<Bit>,
    x_pulse: DFF<Bit>,
    x_take: DFF<Bit>,
    /// Any of the I/O instructions above, and its handshake has completed.
    x_io: DFF<Bit>,
    io_done: DFF<Bit>,
    /// The same for the ALU's results: `ADD`/`SUB`/`ADDI`/`SUBI`, `SLT`,
    /// `AND`, `OR`, the shifts, `LI`, `JAL`, `CNT`; and whether the
    /// instruction writes a register (`IN` and `GETF`: `io_val`).
    x_arith: DFF<Bit>,
    x_slt: DFF<Bit>,
    x_and: DFF<Bit>,
    x_or: DFF<Bit>,
    x_shift: DFF<Bit>,
    x_li: DFF<Bit>,
    x_jal: DFF<Bit>,
    x_cnt: DFF<Bit>,
    x_writes: DFF<Bit>,
    /// What an `IN` or `GETF` reads, latched with the flags (zero otherwise).
    io_val: DFF<Bits<WORD_BITS>>,
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
    /// The execute clock's last: the instruction completes.
    retire: Signal<Local, Bit>,
    /// All ones when `SETF` writes field `k` (`setf_field` bit `k`).
    setf_on: [Signal<Local, Bits<64>>; 13],
    /// The write word's bits a `SETF` keeps, and the field it puts in.
    setf_keep: Signal<Local, Bits<64>>,
    setf_put: Signal<Local, Bits<64>>,
    port: Signal<Local, Bits<WORD_BITS>>,
    field: Signal<Local, Bits<WORD_BITS>>,
    counter: Signal<Local, Bits<32>>,
    /// The adder's output (its top bit is the borrow of a subtraction).
    sum: Signal<Local, Bits<SUM_BITS>>,
    below: Signal<Local, Bit>,
    t_logic: Signal<Local, Bits<WORD_BITS>>,
    t_shift: Signal<Local, Bits<WORD_BITS>>,
    t_misc: Signal<Local, Bits<WORD_BITS>>,
    t_io: Signal<Local, Bits<WORD_BITS>>,
    t_cnt: Signal<Local, Bits<32>>,
    /// The adder's second operand before it is latched: `rb` or `imm`.
    operand: Signal<Local, Bits<WORD_BITS>>,
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
            rom: SyncROM::new(program),
            regs: Default::default(),
            phase: Default::default(),
            bw: Default::default(),
            wb_en: Default::default(),
            wb_addr: Default::default(),
            wb_data: Default::default(),
            wb_arith: Default::default(),
            idx_reset_r: Default::default(),
            cleaned_r: Default::default(),
            wb_cnt: Default::default(),
            step: Default::default(),
            setf_field: Default::default(),
            x_setf: Default::default(),
            x_wsel: Default::default(),
            x_mrd: Default::default(),
            x_mwr: Default::default(),
            x_put: Default::default(),
            x_idx: Default::default(),
            x_rsp: Default::default(),
            x_mv: Default::default(),
            x_pulse: Default::default(),
            x_take: Default::default(),
            x_io: Default::default(),
            io_done: Default::default(),
            x_arith: Default::default(),
            x_slt: Default::default(),
            x_and: Default::default(),
            x_or: Default::default(),
            x_shift: Default::default(),
            x_li: Default::default(),
            x_jal: Default::default(),
            x_cnt: Default::default(),
            x_writes: Default::default(),
            io_val: Default::default(),
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
            retire: Default::default(),
            setf_on: Default::default(),
            setf_keep: Default::default(),
            setf_put: Default::default(),
            port: Default::default(),
            field: Default::default(),
            counter: Default::default(),
            sum: Default::default(),
            below: Default::default(),
            t_logic: Default::default(),
            t_shift: Default::default(),
            t_misc: Default::default(),
            t_io: Default::default(),
            t_cnt: Default::default(),
            operand: Default::default(),
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
            self,
            clock,
            phase,
            bw,
            wb_en,
            wb_addr,
            wb_data,
            wb_arith,
            wb_cnt,
            idx_reset_r,
            cleaned_r,
            step,
            setf_field,
            x_setf,
            x_wsel,
            x_mrd,
            x_mwr,
            x_put,
            x_idx,
            x_rsp,
            x_mv,
            x_pulse,
            x_take,
            x_io,
            io_done,
            x_arith,
            x_slt,
            x_and,
            x_or,
            x_shift,
            x_li,
            x_jal,
            x_cnt,
            x_writes,
            io_val,
            pc,
            ir,
            a,
            read_word,
            write_word,
            status,
            value,
            flags,
            from,
            to,
            home,
            idle_r,
            op,
            tag,
            lpa,
            idx_status,
            idx_entry
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
        self.operand.next = self.regs.read_data.val().get_bits::<WORD_BITS>(0);
        if (self.opc.val() == 4) | (self.opc.val() == 5) {
            self.operand.next = bit_cast::<WORD_BITS, 7>(self.imm.val());
        }
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
            11 => self.port.next = bit_cast::<WORD_BITS, REFCOUNT_BITS>(self.cfg_refcount_max.val()),
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
        self.w_addr.next = bit_cast::<{ REG_BITS + 1 }, REG_BITS>(self.rd.val());
        // An instruction completes on its execute clock; an I/O instruction
        // a clock after its handshake (`io_done`), so the enables of `pc`,
        // `phase` and the flags start at flip-flops, not at another
        // module's handshake.
        self.done.next = !self.x_io.q.val() | self.io_done.q.val();
        if (self.x_mrd.q.val() & self.step.q.val() & self.mem_rsp_valid.val())
            | (self.x_mwr.q.val() & self.mem_req_ready.val())
            | (self.x_idx.q.val() & self.step.q.val() & self.idx_rsp_valid.val())
            | (self.x_rsp.q.val() & self.rsp_ready.val())
            | (self.x_mv.q.val() & self.mv_ready.val())
            | (self.x_take.q.val() & self.cmd_valid.val())
        {
            self.io_done.d.next = true;
        }
        self.cmd_ready.next = false;
        self.rsp_valid.next = false;
        self.mv_valid.next = false;
        self.idx_cmd_valid.next = false;
        self.idx_rsp_ready.next = false;
        // `PULSE`'s outputs are registered (a clock after its execute
        // clock; the next instruction executes five clocks later).
        self.idx_reset.next = self.idx_reset_r.q.val();
        self.cleaned.next = self.cleaned_r.q.val();
        self.idx_reset_r.d.next = false;
        self.cleaned_r.d.next = false;
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
        // The ALU: every result is gated by its pre-decoded flag and the
        // results are ORed; the adder's and `CNT`'s are registered apart
        // (`wb_arith`, `wb_cnt`) and ORed at the register file. The adder's operand was prepared as `bw` was latched
        // (see phase 3): `a + b`, `a + imm`, or (inverted, with the carry in
        // its low bit) `a - b`, `a - imm`, and `a < b` as its borrow.
        self.sum.next = ((bit_cast::<SUM_BITS, WORD_BITS>(self.a.q.val()) << 1) | 1)
            + bit_cast::<SUM_BITS, OPERAND_BITS>(self.bw.q.val().get_bits::<OPERAND_BITS>(0));
        // `a < b`: no carry out of `a + !b + 1`. A one-bit signal of its own:
        // in Verilog a `~` inside a wider expression inverts the widened bit.
        self.below.next = !self.sum.val().get_bit(25);
        self.result.next = 0.into();
        if self.x_arith.q.val() {
            self.result.next = self.sum.val().get_bits::<WORD_BITS>(1);
        }
        if self.x_slt.q.val() {
            self.result.next = bit_cast::<WORD_BITS, 1>(self.below.val().into());
        }
        self.t_logic.next = 0.into();
        if self.x_and.q.val() {
            self.t_logic.next = self.a.q.val() & self.b.val();
        }
        if self.x_or.q.val() {
            self.t_logic.next = self.a.q.val() | self.b.val();
        }
        self.t_shift.next = 0.into();
        if self.x_shift.q.val() {
            match self.imm.val().get_bits::<2>(0).index() {
                0 => self.t_shift.next = self.a.q.val() << 8,
                1 => self.t_shift.next = self.a.q.val() >> 8,
                2 => self.t_shift.next = self.a.q.val() << 13,
                _ => self.t_shift.next = self.a.q.val() >> 13,
            }
        }
        self.t_misc.next = 0.into();
        if self.x_li.q.val() {
            self.t_misc.next = bit_cast::<WORD_BITS, 13>(self.ir.q.val().get_bits::<13>(0));
        }
        if self.x_jal.q.val() {
            self.t_misc.next = bit_cast::<WORD_BITS, PC_BITS>(self.pc.q.val() + 1);
        }
        // `IN` and `GETF` were read on the clock before (`io_val`).
        self.t_io.next = self.io_val.q.val();
        self.t_cnt.next = 0.into();
        if self.x_cnt.q.val() {
            // CNT: increment, decrement (a counter plus all ones), read, clear.
            self.w_addr.next =
                bits::<{ REG_BITS + 1 }>(64) | bit_cast::<{ REG_BITS + 1 }, 4>(self.imm.val().get_bits::<4>(0));
            if !self.imm.val().get_bit(5) {
                if self.imm.val().get_bit(4) {
                    self.t_cnt.next = self.counter.val() + bits::<32>(0xffff_ffff_u64);
                } else {
                    self.t_cnt.next = self.counter.val() + 1;
                }
            } else if !self.imm.val().get_bit(4) {
                self.value.d.next = self.counter.val();
            } else {
                self.w_addr.next =
                    bits::<{ REG_BITS + 1 }>(64) | bit_cast::<{ REG_BITS + 1 }, 4>(self.a.q.val().get_bits::<4>(0));
            }
        }
        self.w_data.next =
            bit_cast::<32, WORD_BITS>(self.t_logic.val() | self.t_shift.val() | self.t_misc.val() | self.t_io.val());
        self.writes.next = self.x_writes.q.val();
        if self.phase.q.val() == 4 {
            match self.opc.val().index() {
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
                    self.pc_next.next = self.ir.q.val().get_bits::<PC_BITS>(0);
                }
                12 => {
                    self.pc_next.next = self.a.q.val().get_bits::<PC_BITS>(0);
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
                _ => {}
            }
        }
        // SETF: the field was decoded one-hot at phase 3 (`setf_field`), so
        // the write word's next value is a flat AND-OR of flip-flops: the
        // bits outside the field are kept (`setf_keep`), the field's bits
        // come from `a` (`setf_put`), and the enable is one flag (`x_setf`).
        for k in 0..13 {
            self.setf_on[k].next = 0.into();
            if self.setf_field.q.val().get_bit(k) {
                self.setf_on[k].next = bits::<64>(0xffff_ffff_ffff_ffff_u64);
            }
        }
        self.setf_keep.next = (bits::<64>(0xffff_ffff_ff00_0000_u64) | !self.setf_on[0].val())
            & (bits::<64>(0xffff_ffff_feff_ffff_u64) | !self.setf_on[1].val())
            & (bits::<64>(0x000f_ffff_ffff_ffff_u64) | !self.setf_on[2].val())
            & (bits::<64>(0xfff0_0fff_ffff_ffff_u64) | !self.setf_on[3].val())
            & (bits::<64>(0xffff_feff_ffff_ffff_u64) | !self.setf_on[4].val())
            & (bits::<64>(0xffff_ff00_00ff_ffff_u64) | !self.setf_on[5].val())
            & (bits::<64>(0xffff_fdff_ffff_ffff_u64) | !self.setf_on[6].val())
            & (bits::<64>(0xffff_ff00_ffff_ffff_u64) | !self.setf_on[7].val())
            & (bits::<64>(0xffff_ffff_fffe_ffff_u64) | !self.setf_on[8].val())
            & (bits::<64>(0xffff_ffff_ffff_0000_u64) | !self.setf_on[9].val())
            & (bits::<64>(0x0000_ffff_ffff_ffff_u64) | !self.setf_on[10].val())
            & (bits::<64>(0xffff_0000_ffff_ffff_u64) | !self.setf_on[11].val())
            & (bits::<64>(0xffff_ffff_0000_ffff_u64) | !self.setf_on[12].val());
        self.setf_put.next = (bit_cast::<64, WORD_BITS>(self.a.q.val()) & self.setf_on[0].val())
            | ((bit_cast::<64, 1>(self.a.q.val().get_bits::<1>(0)) << 24) & self.setf_on[1].val())
            | ((bit_cast::<64, 12>(self.a.q.val().get_bits::<12>(0)) << 52) & self.setf_on[2].val())
            | ((bit_cast::<64, 8>(self.a.q.val().get_bits::<8>(0)) << 44) & self.setf_on[3].val())
            | ((bit_cast::<64, 1>(self.a.q.val().get_bits::<1>(0)) << 40) & self.setf_on[4].val())
            | ((bit_cast::<64, 16>(self.a.q.val().get_bits::<16>(0)) << 24) & self.setf_on[5].val())
            | ((bit_cast::<64, 1>(self.a.q.val().get_bits::<1>(0)) << 41) & self.setf_on[6].val())
            | ((bit_cast::<64, 8>(self.a.q.val().get_bits::<8>(0)) << 32) & self.setf_on[7].val())
            | ((bit_cast::<64, 1>(self.a.q.val().get_bits::<1>(0)) << 16) & self.setf_on[8].val())
            | (bit_cast::<64, 16>(self.a.q.val().get_bits::<16>(0)) & self.setf_on[9].val())
            | ((bit_cast::<64, 16>(self.a.q.val().get_bits::<16>(0)) << 48) & self.setf_on[10].val())
            | ((bit_cast::<64, 16>(self.a.q.val().get_bits::<16>(0)) << 32) & self.setf_on[11].val())
            | ((bit_cast::<64, 16>(self.a.q.val().get_bits::<16>(0)) << 16) & self.setf_on[12].val());
        if self.x_setf.q.val() {
            self.write_word.d.next = (self.write_word.q.val() & self.setf_keep.val()) | self.setf_put.val();
        }
        if self.x_wsel.q.val() {
            if self.imm.val().get_bit(0) {
                self.write_word.d.next = self.read_word.q.val();
            } else {
                self.write_word.d.next = 0.into();
            }
        }
        // The handshakes are offered until they complete (not while
        // `io_done` waits out the instruction's last clock).
        if self.x_mrd.q.val() & !self.io_done.q.val() {
            // MRD: the request, then its data.
            if !self.step.q.val() {
                self.mem_req_valid.next = true;
                if self.mem_req_ready.val() {
                    self.step.d.next = true;
                }
            } else if self.mem_rsp_valid.val() {
                self.read_word.d.next = self.mem_rsp_rdata.val();
                self.step.d.next = false;
            }
        }
        if self.x_mwr.q.val() & !self.io_done.q.val() {
            self.mem_req_valid.next = true;
            self.mem_req_write.next = true;
        }
        if self.x_put.q.val() {
            match self.imm.val().get_bits::<3>(0).index() {
                0 => self.status.d.next = self.a.q.val().get_bits::<4>(0),
                1 => self.value.d.next = bit_cast::<32, WORD_BITS>(self.a.q.val()),
                2 => self.flags.d.next = self.a.q.val().get_bits::<3>(0),
                3 => self.from.d.next = self.a.q.val(),
                4 => self.to.d.next = self.a.q.val(),
                5 => self.home.d.next = self.a.q.val().get_bits::<3>(0),
                6 => self.idle_r.d.next = self.a.q.val().get_bit(0),
                _ => {}
            }
        }
        if self.x_idx.q.val() & !self.io_done.q.val() {
            // IDX: the command, then its response.
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
                }
            }
        }
        if self.x_rsp.q.val() & !self.io_done.q.val() {
            self.rsp_valid.next = true;
        }
        if self.x_mv.q.val() & !self.io_done.q.val() {
            self.mv_valid.next = true;
        }
        if self.x_pulse.q.val() {
            if self.imm.val().get_bit(0) {
                self.idx_reset_r.d.next = true;
            } else {
                self.cleaned_r.d.next = true;
            }
        }
        if self.x_take.q.val() & !self.io_done.q.val() {
            self.cmd_ready.next = true;
        }

        // --- Sequencing and write-back ------------------------------------------------------
        self.regs.write_enable.next = self.wb_en.q.val();
        self.regs.write_address.next = self.wb_addr.q.val();
        self.regs.write_data.next = self.wb_data.q.val() | self.wb_arith.q.val() | self.wb_cnt.q.val();
        self.wb_en.d.next = false;
        self.wb_addr.d.next = self.w_addr.val();
        self.wb_data.d.next = self.w_data.val();
        self.wb_arith.d.next = bit_cast::<32, WORD_BITS>(self.result.val());
        self.wb_cnt.d.next = self.t_cnt.val();
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
                if (self.opc.val() == 1) | (self.opc.val() == 5) | (self.opc.val() == 7) {
                    self.bw.d.next = (bit_cast::<32, WORD_BITS>(!self.operand.val()) << 1) | 1;
                } else if (self.opc.val() == 0) | (self.opc.val() == 4) {
                    self.bw.d.next = bit_cast::<32, WORD_BITS>(self.operand.val()) << 1;
                }
                self.phase.d.next = 4.into();
                self.x_arith.d.next =
                    (self.opc.val() == 0) | (self.opc.val() == 1) | (self.opc.val() == 4) | (self.opc.val() == 5);
                self.x_slt.d.next = self.opc.val() == 7;
                self.x_and.d.next = self.opc.val() == 2;
                self.x_or.d.next = self.opc.val() == 3;
                self.x_shift.d.next = self.opc.val() == 6;
                self.x_li.d.next = self.opc.val() == 8;
                self.x_jal.d.next = self.opc.val() == 11;
                // The port or field an `IN` or `GETF` reads (`read_word` and
                // the latched ports are steady by now; a live port is sampled
                // a clock early).
                self.io_val.d.next = 0.into();
                if self.opc.val() == 13 {
                    self.io_val.d.next = self.port.val();
                } else if self.opc.val() == 14 {
                    self.io_val.d.next = self.field.val();
                }
                self.x_cnt.d.next = self.opc.val() == 20;
                self.x_writes.d.next = (self.opc.val() <= 8)
                    | (self.opc.val() == 11)
                    | (self.opc.val() == 13)
                    | (self.opc.val() == 14)
                    | ((self.opc.val() == 20) & !(self.imm.val().get_bit(5) & !self.imm.val().get_bit(4)));
                self.setf_field.d.next = 0.into();
                if self.opc.val() == 15 {
                    self.setf_field.d.next = bits::<13>(1) << bit_cast::<13, 4>(self.imm.val().get_bits::<4>(0));
                }
                self.x_setf.d.next = self.opc.val() == 15;
                self.x_wsel.d.next = self.opc.val() == 16;
                self.x_mrd.d.next = self.opc.val() == 17;
                self.x_mwr.d.next = self.opc.val() == 18;
                self.x_put.d.next = self.opc.val() == 19;
                self.x_idx.d.next = self.opc.val() == 22;
                self.x_rsp.d.next = self.opc.val() == 23;
                self.x_mv.d.next = self.opc.val() == 24;
                self.x_pulse.d.next = self.opc.val() == 25;
                self.x_take.d.next = self.opc.val() == 26;
                self.x_io.d.next = (self.opc.val() == 17)
                    | (self.opc.val() == 18)
                    | (self.opc.val() == 22)
                    | (self.opc.val() == 23)
                    | (self.opc.val() == 24)
                    | (self.opc.val() == 26);
            }
            _ => {
                if self.done.val() {
                    self.wb_en.d.next = self.writes.val();
                    self.pc.d.next = self.pc_next.val();
                    self.phase.d.next = 0.into();
                }
            }
        }

        // The decoded flags end with their instruction, or on reset.
        self.retire.next = (self.phase.q.val() == 4) & self.done.val();
        if self.retire.val() | self.reset.val() {
            self.setf_field.d.next = 0.into();
            self.x_setf.d.next = false;
            self.x_wsel.d.next = false;
            self.x_mrd.d.next = false;
            self.x_mwr.d.next = false;
            self.x_put.d.next = false;
            self.x_idx.d.next = false;
            self.x_rsp.d.next = false;
            self.x_mv.d.next = false;
            self.x_pulse.d.next = false;
            self.x_take.d.next = false;
            self.x_io.d.next = false;
            self.io_done.d.next = false;
            self.x_arith.d.next = false;
            self.x_slt.d.next = false;
            self.x_and.d.next = false;
            self.x_or.d.next = false;
            self.x_shift.d.next = false;
            self.x_li.d.next = false;
            self.x_jal.d.next = false;
            self.x_cnt.d.next = false;
            self.x_writes.d.next = false;
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
