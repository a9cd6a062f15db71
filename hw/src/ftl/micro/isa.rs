//! The sequencer's instruction set, and an assembler for it.
//!
//! A 24-bit datapath (LPAs, page ids and PPAs are 24-bit in the tables),
//! 64 registers, twelve 32-bit counters, 24-bit instructions, a 9-bit
//! program counter. Every instruction takes five clocks (fetch, read `ra`,
//! read `rb`, latch it, execute; the register write lands during the next
//! fetch); the I/O instructions stay in their execute clock until their
//! handshake completes.
//!
//! Encoding: `op[23:19]`, `X[18:13]`, `Y[12:7]`, `Z[6:1]`, `imm7 = [6:0]`,
//! `imm13 = [12:0]`.
//! - Register operands: `rd = X`, `ra = Y`, `rb = Z`.
//! - Jump targets (`JAL`, `POLL`): `[8:0]`. Branch targets (`BZ`, `BNZ`,
//!   which read `ra = Y`): `{X, [2:0]}`.
//!
//! The FTL memory's 64-bit words are read into a read-word register and
//! written from a write-word register; `GETF`/`SETF` move one of the
//! table fields of [`Field`] between those and a register (a field is a
//! fixed bit range, so no shifter is needed).

use crate::ftl::layout;

/// Bits of an instruction.
pub const INSN_BITS: usize = 24;
/// Bits of the program counter (program size 512).
pub const PC_BITS: usize = 9;
/// Bits of a register number.
pub const REG_BITS: usize = 6;
/// Bits of a register.
pub const WORD_BITS: usize = 24;
/// Instructions the program ROM holds.
pub const PROGRAM_WORDS: usize = 1 << PC_BITS;

/// Opcodes (`op[23:19]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Opc {
    /// `rd = ra + rb`
    Add = 0,
    /// `rd = ra - rb`
    Sub = 1,
    /// `rd = ra & rb`
    And = 2,
    /// `rd = ra | rb`
    Or = 3,
    /// `rd = ra + imm7`
    Addi = 4,
    /// `rd = ra - imm7`
    Subi = 5,
    /// `rd = ra << 8`, `>> 8`, `<< 13`, `>> 13` (`imm[1:0]`, see [`Shift`]).
    Shift = 6,
    /// `rd = (ra < rb) as unsigned`
    Sltu = 7,
    /// `rd = imm13`
    Li = 8,
    /// branch if `ra == 0`
    Bz = 9,
    /// branch if `ra != 0`
    Bnz = 10,
    /// `rd = pc + 1; pc = target`
    Jal = 11,
    /// `pc = ra`
    Jr = 12,
    /// `rd = port imm[3:0]` (see [`InPort`])
    In = 13,
    /// `rd = read_word.field` (field `imm[3:0]`)
    Getf = 14,
    /// `write_word.field = ra` (field `imm[3:0]`)
    Setf = 15,
    /// `write_word = 0` (`imm[0]` clear) or `= read_word` (set)
    Word = 16,
    /// `read_word = MEM[{region imm[3:0], ra}]`, waiting for the data
    Mrd = 17,
    /// `MEM[{region imm[3:0], ra}] = write_word`, waiting until accepted
    Mwr = 18,
    /// `port imm[3:0] = ra` (see [`OutPort`])
    Out = 19,
    /// counters: `imm[5:4]` = 0 increment counter `imm[3:0]`, 1 decrement
    /// it, 2 response value = counter `ra`, 3 clear counter `ra`
    Cnt = 20,
    /// a waiting command: latch its op, tag and lpa and go on (it stays
    /// offered, with its fingerprint, until `TAKE`); none: jump to `target`
    Poll = 21,
    /// index command `imm[2:0]` on entry `ra` (and the offered command's
    /// key), then wait for its response (status and entry latched for `IN`)
    Idx = 22,
    /// present the response (tag, status, value, flags) until it is taken
    Rsp = 23,
    /// present the relocation (`MV_FROM` -> `MV_TO`) until it is taken
    Mv = 24,
    /// one-clock pulse: `imm[0]` = 0 `cleaned`, 1 the index's reset
    Pulse = 25,
    /// take the offered command (`cmd_ready` for one clock)
    Take = 26,
}

/// `SHIFT` amounts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Shift {
    Left8 = 0,
    Right8 = 1,
    Left13 = 2,
    Right13 = 3,
}

/// `IN` ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum InPort {
    /// The accepted command's op.
    Op = 0,
    /// The accepted command's LPA.
    Lpa = 1,
    DevBits = 2,
    BlockBits = 3,
    PageBits = 4,
    Reserve = 5,
    Lpas = 6,
    /// `cleaner_hold`
    Hold = 7,
    /// The last index response's status.
    IdxStatus = 8,
    /// The last index response's entry.
    IdxEntry = 9,
    /// The index takes commands (it has finished clearing after a reset).
    IdxReady = 10,
    /// `cfg_refcount_max`: a page's reference-count limit.
    RcMax = 11,
}

/// `OUT` ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum OutPort {
    Status = 0,
    Value = 1,
    Flags = 2,
    MvFrom = 3,
    MvTo = 4,
    /// The command's home device, XOR-ed into the index key in device-local mode.
    Home = 5,
    /// The `idle` output (bit 0). `POLL` clears it when it accepts a command.
    Idle = 6,
}

/// Fields of the FTL memory's words (see [`crate::ftl::region`]):
/// `(offset, width)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Field {
    /// `[23:0]`: a pid, a PPA, a device's valid pages.
    W24 = 0,
    /// `[24]`: `L2P` mapped.
    B24 = 1,
    /// `[63:52]`: `PAGE` refcount.
    Rc = 2,
    /// `[51:44]`: `PAGE` version.
    PVer = 3,
    /// `[40]`: `PAGE` has-entry, `ENTRY` valid.
    B40 = 4,
    /// `[39:24]`: `PAGE` entry.
    PEntry = 5,
    /// `[41]`: `ENTRY` queued.
    B41 = 6,
    /// `[39:32]`: `ENTRY` version.
    EVer = 7,
    /// `[16]`: `BLK` full.
    B16 = 8,
    /// `[15:0]`: `BLK` valid, `DEV` head, a `FREE` block, a `STALE` entry.
    W16 = 9,
    /// `[63:48]`: `DEV` open block.
    Open = 10,
    /// `[47:32]`: `DEV` pages written in the open block.
    Written = 11,
    /// `[31:16]`: `DEV` free blocks.
    Free = 12,
}

impl Field {
    pub const ALL: [Field; 13] = [
        Field::W24,
        Field::B24,
        Field::Rc,
        Field::PVer,
        Field::B40,
        Field::PEntry,
        Field::B41,
        Field::EVer,
        Field::B16,
        Field::W16,
        Field::Open,
        Field::Written,
        Field::Free,
    ];
    /// The table field it moves ([`crate::ftl::layout`] defines them; a
    /// field shared by several regions is named by one of them, and a test
    /// checks the others agree).
    pub const fn layout(self) -> layout::Field {
        match self {
            Field::W24 => layout::l2p::PID,
            Field::B24 => layout::l2p::MAPPED,
            Field::Rc => layout::page::REFCOUNT,
            Field::PVer => layout::page::VERSION,
            Field::B40 => layout::page::HAS_ENTRY,
            Field::PEntry => layout::page::ENTRY,
            Field::B41 => layout::entry::QUEUED,
            Field::EVer => layout::entry::VERSION,
            Field::B16 => layout::blk::FULL,
            Field::W16 => layout::blk::VALID,
            Field::Open => layout::dev::OPEN,
            Field::Written => layout::dev::WRITTEN,
            Field::Free => layout::dev::FREE,
        }
    }
    /// `(offset, width)` in the 64-bit word.
    pub const fn span(self) -> (u32, u32) {
        let f = self.layout();
        (f.offset as u32, f.width as u32)
    }
    pub fn get(self, word: u64) -> u32 {
        let (off, width) = self.span();
        ((word >> off) & ((1u64 << width) - 1)) as u32
    }
    pub fn set(self, word: u64, value: u32) -> u64 {
        let (off, width) = self.span();
        let mask = ((1u64 << width) - 1) << off;
        (word & !mask) | (((value as u64) << off) & mask)
    }
}

/// A register number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reg(pub u8);

/// One decoded instruction (the fields every format shares).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn(pub u32);

impl Insn {
    pub fn op(self) -> u8 {
        (self.0 >> 19) as u8 & 0x1f
    }
    pub fn x(self) -> usize {
        (self.0 >> 13) as usize & 0x3f
    }
    pub fn y(self) -> usize {
        (self.0 >> 7) as usize & 0x3f
    }
    pub fn z(self) -> usize {
        (self.0 >> 1) as usize & 0x3f
    }
    pub fn imm7(self) -> u32 {
        self.0 & 0x7f
    }
    pub fn imm13(self) -> u32 {
        self.0 & 0x1fff
    }
    /// `JAL`/`POLL` target.
    pub fn jump_target(self) -> usize {
        self.0 as usize & 0x1ff
    }
    /// `BZ`/`BNZ` target.
    pub fn branch_target(self) -> usize {
        (self.x() << 3) | (self.0 as usize & 7)
    }
}

#[derive(Clone, Copy)]
enum Fix {
    Jump,
    Branch,
}

/// The assembler: one method per instruction, labels resolved by
/// [`Asm::finish`].
#[derive(Default)]
pub struct Asm {
    code: Vec<u32>,
    labels: std::collections::HashMap<&'static str, usize>,
    fixups: Vec<(usize, &'static str, Fix)>,
}

fn enc(op: Opc, x: u32, y: u32, low7: u32) -> u32 {
    assert!(x < 64 && y < 64 && low7 < 128);
    ((op as u32) << 19) | (x << 13) | (y << 7) | low7
}

impl Asm {
    pub fn label(&mut self, name: &'static str) {
        assert!(self.labels.insert(name, self.code.len()).is_none(), "label {name} defined twice");
    }
    fn emit(&mut self, word: u32) {
        self.code.push(word);
    }
    fn rrr(&mut self, op: Opc, rd: Reg, ra: Reg, rb: Reg) {
        self.emit(enc(op, rd.0 as u32, ra.0 as u32, (rb.0 as u32) << 1));
    }
    pub fn add(&mut self, rd: Reg, ra: Reg, rb: Reg) {
        self.rrr(Opc::Add, rd, ra, rb)
    }
    pub fn sub(&mut self, rd: Reg, ra: Reg, rb: Reg) {
        self.rrr(Opc::Sub, rd, ra, rb)
    }
    pub fn and(&mut self, rd: Reg, ra: Reg, rb: Reg) {
        self.rrr(Opc::And, rd, ra, rb)
    }
    pub fn or(&mut self, rd: Reg, ra: Reg, rb: Reg) {
        self.rrr(Opc::Or, rd, ra, rb)
    }
    pub fn sltu(&mut self, rd: Reg, ra: Reg, rb: Reg) {
        self.rrr(Opc::Sltu, rd, ra, rb)
    }
    pub fn addi(&mut self, rd: Reg, ra: Reg, imm: u32) {
        self.emit(enc(Opc::Addi, rd.0 as u32, ra.0 as u32, imm))
    }
    pub fn subi(&mut self, rd: Reg, ra: Reg, imm: u32) {
        self.emit(enc(Opc::Subi, rd.0 as u32, ra.0 as u32, imm))
    }
    pub fn shift(&mut self, rd: Reg, ra: Reg, kind: Shift) {
        self.emit(enc(Opc::Shift, rd.0 as u32, ra.0 as u32, kind as u32))
    }
    pub fn li(&mut self, rd: Reg, imm: u32) {
        assert!(imm < 1 << 13);
        self.emit(((Opc::Li as u32) << 19) | ((rd.0 as u32) << 13) | imm)
    }
    /// `rd = ra`
    pub fn mov(&mut self, rd: Reg, ra: Reg) {
        self.addi(rd, ra, 0)
    }
    fn branch(&mut self, op: Opc, ra: Reg, target: &'static str) {
        self.fixups.push((self.code.len(), target, Fix::Branch));
        self.emit(enc(op, 0, ra.0 as u32, 0))
    }
    pub fn bz(&mut self, ra: Reg, target: &'static str) {
        self.branch(Opc::Bz, ra, target)
    }
    pub fn bnz(&mut self, ra: Reg, target: &'static str) {
        self.branch(Opc::Bnz, ra, target)
    }
    pub fn jal(&mut self, rd: Reg, target: &'static str) {
        self.fixups.push((self.code.len(), target, Fix::Jump));
        self.emit(enc(Opc::Jal, rd.0 as u32, 0, 0))
    }
    pub fn jr(&mut self, ra: Reg) {
        self.emit(enc(Opc::Jr, 0, ra.0 as u32, 0))
    }
    pub fn input(&mut self, rd: Reg, port: InPort) {
        self.emit(enc(Opc::In, rd.0 as u32, 0, port as u32))
    }
    pub fn getf(&mut self, rd: Reg, field: Field) {
        self.emit(enc(Opc::Getf, rd.0 as u32, 0, field as u32))
    }
    pub fn setf(&mut self, field: Field, ra: Reg) {
        self.emit(enc(Opc::Setf, 0, ra.0 as u32, field as u32))
    }
    /// `write_word = 0`
    pub fn clear_word(&mut self) {
        self.emit(enc(Opc::Word, 0, 0, 0))
    }
    /// `write_word = read_word`
    pub fn copy_word(&mut self) {
        self.emit(enc(Opc::Word, 0, 0, 1))
    }
    pub fn mrd(&mut self, region: u32, ra: Reg) {
        assert!(region < 16);
        self.emit(enc(Opc::Mrd, 0, ra.0 as u32, region))
    }
    pub fn mwr(&mut self, region: u32, ra: Reg) {
        assert!(region < 16);
        self.emit(enc(Opc::Mwr, 0, ra.0 as u32, region))
    }
    pub fn out(&mut self, port: OutPort, ra: Reg) {
        self.emit(enc(Opc::Out, 0, ra.0 as u32, port as u32))
    }
    pub fn inc(&mut self, stat: crate::ftl::Stat) {
        self.emit(enc(Opc::Cnt, 0, 0, stat as u32))
    }
    pub fn dec(&mut self, stat: crate::ftl::Stat) {
        self.emit(enc(Opc::Cnt, 0, 0, 0x10 | stat as u32))
    }
    /// Response value = counter number `ra`.
    pub fn counter_value(&mut self, ra: Reg) {
        self.emit(enc(Opc::Cnt, 0, ra.0 as u32, 0x20))
    }
    /// Counter number `ra` = 0.
    pub fn clear_counter(&mut self, ra: Reg) {
        self.emit(enc(Opc::Cnt, 0, ra.0 as u32, 0x30))
    }
    pub fn poll(&mut self, none: &'static str) {
        self.fixups.push((self.code.len(), none, Fix::Jump));
        self.emit(enc(Opc::Poll, 0, 0, 0))
    }
    pub fn idx(&mut self, op: crate::index::Op, entry: Reg) {
        self.emit(enc(Opc::Idx, 0, entry.0 as u32, op as u32))
    }
    pub fn take(&mut self) {
        self.emit(enc(Opc::Take, 0, 0, 0))
    }
    pub fn rsp(&mut self) {
        self.emit(enc(Opc::Rsp, 0, 0, 0))
    }
    pub fn mv(&mut self) {
        self.emit(enc(Opc::Mv, 0, 0, 0))
    }
    pub fn pulse_cleaned(&mut self) {
        self.emit(enc(Opc::Pulse, 0, 0, 0))
    }
    pub fn pulse_index_reset(&mut self) {
        self.emit(enc(Opc::Pulse, 0, 0, 1))
    }

    /// The program, with every label resolved.
    pub fn finish(mut self) -> Vec<u32> {
        for (at, name, fix) in std::mem::take(&mut self.fixups) {
            let target = *self.labels.get(name).unwrap_or_else(|| panic!("label {name} is not defined"));
            assert!(target < PROGRAM_WORDS);
            self.code[at] |= match fix {
                Fix::Jump => target as u32,
                Fix::Branch => (((target >> 3) as u32) << 13) | (target as u32 & 7),
            };
        }
        assert!(self.code.len() <= PROGRAM_WORDS, "program of {} instructions > {PROGRAM_WORDS}", self.code.len());
        self.code
    }
}

#[cfg(test)]
mod tests {
    use super::Field;
    use crate::ftl::layout;

    /// A field the program uses for several regions sits where each of
    /// them has it.
    #[test]
    fn shared_fields_sit_where_every_region_has_them() {
        for (field, others) in [
            (
                Field::W24,
                [layout::page::PPA, layout::entry::PID, layout::rev::PID, layout::devv::VALID, layout::pids::PID]
                    .as_slice(),
            ),
            (Field::B40, &[layout::entry::VALID]),
            (Field::W16, &[layout::dev::HEAD, layout::free::BLOCK, layout::stale::ENTRY]),
        ] {
            for other in others {
                let f = field.layout();
                assert_eq!((f.offset, f.width), (other.offset, other.width), "{field:?} and {}", other.name);
            }
        }
    }
}
