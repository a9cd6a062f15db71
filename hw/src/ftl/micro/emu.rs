//! An instruction-level emulator of the sequencer ([`super::cpu::MicroFtl`]),
//! with its ports as a trait. It runs the program in plain Rust, so the
//! program can be checked against the golden model quickly; the hardware
//! itself is checked under Verilator by the core's cosimulations.
use super::isa::{Field, InPort, Insn, Opc, OutPort, PROGRAM_WORDS, WORD_BITS};
use crate::ftl::STATS;
use crate::index::Fingerprint;

const MASK: u32 = (1 << WORD_BITS) - 1;

/// What the sequencer's ports are connected to.
pub trait MicroPorts {
    /// The offered command `(op, tag, lpa, fingerprint)`, if any (it stays
    /// offered until [`MicroPorts::take`]).
    fn command(&mut self) -> Option<(u8, u8, u32, Fingerprint)>;
    /// Takes the offered command.
    fn take(&mut self);
    fn mem_read(&mut self, addr: u32) -> u64;
    fn mem_write(&mut self, addr: u32, data: u64);
    /// One index command on `key` (or `entry`): `(status, entry)`.
    fn index(&mut self, op: u8, key: &Fingerprint, entry: u16) -> (u8, u16);
    fn index_ready(&mut self) -> bool;
    fn index_reset(&mut self);
    fn respond(&mut self, tag: u8, status: u8, value: u32, flags: u8);
    fn relocate(&mut self, from: u32, to: u32);
    fn cleaned(&mut self);
    fn cleaner_hold(&mut self) -> bool;
    /// `cfg_*`: `(dev_bits, block_bits, page_bits, reserve, lpas, array_wide)`.
    fn config(&self) -> (u32, u32, u32, u32, u32, bool);
    /// `cfg_refcount_max`.
    fn refcount_max(&self) -> u32;
}

/// The sequencer's state.
pub struct Emu {
    program: Vec<u32>,
    pub pc: usize,
    regs: [u32; 64],
    read_word: u64,
    write_word: u64,
    pub counters: [u32; STATS],
    status: u8,
    value: u32,
    flags: u8,
    mv_from: u32,
    mv_to: u32,
    home: u32,
    pub idle: bool,
    op: u8,
    tag: u8,
    lpa: u32,
    idx_status: u8,
    idx_entry: u16,
    /// Instructions executed.
    pub steps: u64,
}

impl Emu {
    /// The sequencer just out of reset, with `program`.
    pub fn new(program: &[u32]) -> Self {
        assert!(program.len() <= PROGRAM_WORDS);
        Emu {
            program: program.to_vec(),
            pc: 0,
            regs: [0; 64],
            read_word: 0,
            write_word: 0,
            counters: [0; STATS],
            status: 0,
            value: 0,
            flags: 0,
            mv_from: 0,
            mv_to: 0,
            home: 0,
            idle: false,
            op: 0,
            tag: 0,
            lpa: 0,
            idx_status: 0,
            idx_entry: 0,
            steps: 0,
        }
    }

    /// Executes one instruction (its handshakes complete at once).
    pub fn step(&mut self, io: &mut impl MicroPorts) {
        let insn = Insn(*self.program.get(self.pc).unwrap_or(&0));
        let (rd, a, b) = (insn.x(), self.regs[insn.y()], self.regs[insn.z()]);
        let imm = insn.imm7();
        let mut next = (self.pc + 1) % PROGRAM_WORDS;
        let mut write = None;
        let op = insn.op();
        self.steps += 1;
        let opc = |o: Opc| o as u8 == op;
        if opc(Opc::Add) {
            write = Some(a.wrapping_add(b));
        } else if opc(Opc::Sub) {
            write = Some(a.wrapping_sub(b));
        } else if opc(Opc::And) {
            write = Some(a & b);
        } else if opc(Opc::Or) {
            write = Some(a | b);
        } else if opc(Opc::Addi) {
            write = Some(a.wrapping_add(imm));
        } else if opc(Opc::Subi) {
            write = Some(a.wrapping_sub(imm));
        } else if opc(Opc::Shift) {
            write = Some(match imm & 3 {
                0 => a << 8,
                1 => a >> 8,
                2 => a << 13,
                _ => a >> 13,
            });
        } else if opc(Opc::Sltu) {
            write = Some((a < b) as u32);
        } else if opc(Opc::Li) {
            write = Some(insn.imm13());
        } else if opc(Opc::Bz) {
            if a == 0 {
                next = insn.branch_target();
            }
        } else if opc(Opc::Bnz) {
            if a != 0 {
                next = insn.branch_target();
            }
        } else if opc(Opc::Jal) {
            write = Some(next as u32);
            next = insn.jump_target();
        } else if opc(Opc::Jr) {
            next = a as usize % PROGRAM_WORDS;
        } else if opc(Opc::In) {
            let (dev_bits, block_bits, page_bits, reserve, lpas, _) = io.config();
            let port = imm & 0xf;
            write = Some(match port {
                p if p == InPort::Op as u32 => self.op as u32,
                p if p == InPort::Lpa as u32 => self.lpa,
                p if p == InPort::DevBits as u32 => dev_bits,
                p if p == InPort::BlockBits as u32 => block_bits,
                p if p == InPort::PageBits as u32 => page_bits,
                p if p == InPort::Reserve as u32 => reserve,
                p if p == InPort::Lpas as u32 => lpas,
                p if p == InPort::Hold as u32 => io.cleaner_hold() as u32,
                p if p == InPort::IdxStatus as u32 => self.idx_status as u32,
                p if p == InPort::IdxEntry as u32 => self.idx_entry as u32,
                p if p == InPort::IdxReady as u32 => io.index_ready() as u32,
                p if p == InPort::RcMax as u32 => io.refcount_max(),
                _ => 0,
            });
        } else if opc(Opc::Getf) {
            write = Some(Field::ALL.get(imm as usize & 0xf).map_or(0, |f| f.get(self.read_word)));
        } else if opc(Opc::Setf) {
            if let Some(f) = Field::ALL.get(imm as usize & 0xf) {
                self.write_word = f.set(self.write_word, a);
            }
        } else if opc(Opc::Word) {
            self.write_word = if imm & 1 == 1 { self.read_word } else { 0 };
        } else if opc(Opc::Mrd) {
            self.read_word = io.mem_read(((imm & 0xf) << 28) | a);
        } else if opc(Opc::Mwr) {
            io.mem_write(((imm & 0xf) << 28) | a, self.write_word);
        } else if opc(Opc::Out) {
            match imm & 0xf {
                p if p == OutPort::Status as u32 => self.status = a as u8 & 0xf,
                p if p == OutPort::Value as u32 => self.value = a,
                p if p == OutPort::Flags as u32 => self.flags = a as u8 & 7,
                p if p == OutPort::MvFrom as u32 => self.mv_from = a,
                p if p == OutPort::MvTo as u32 => self.mv_to = a,
                p if p == OutPort::Home as u32 => self.home = a & 7,
                p if p == OutPort::Idle as u32 => self.idle = a & 1 == 1,
                _ => {}
            }
        } else if opc(Opc::Cnt) {
            let k = (imm & 0xf) as usize % STATS;
            match imm >> 4 & 3 {
                0 => self.counters[k] = self.counters[k].wrapping_add(1),
                1 => self.counters[k] = self.counters[k].wrapping_sub(1),
                2 => self.value = self.counters[(a & 0xf) as usize % STATS],
                _ => self.counters[(a & 0xf) as usize % STATS] = 0,
            }
        } else if opc(Opc::Poll) {
            match io.command() {
                Some((op, tag, lpa, _)) => {
                    (self.op, self.tag, self.lpa) = (op & 7, tag, lpa & MASK);
                    self.idle = false;
                }
                None => next = insn.jump_target(),
            }
        } else if opc(Opc::Idx) {
            // The offered command's key (a `DEREF_ENTRY` of the cleaner ignores it).
            let mut key = io.command().map_or([0; 20], |c| c.3);
            if !io.config().5 {
                key[0] ^= (self.home as u8) << 5;
            }
            (self.idx_status, self.idx_entry) = io.index((imm & 7) as u8, &key, a as u16);
        } else if opc(Opc::Rsp) {
            io.respond(self.tag, self.status, self.value, self.flags);
        } else if opc(Opc::Mv) {
            io.relocate(self.mv_from, self.mv_to);
        } else if opc(Opc::Take) {
            io.take();
        } else if opc(Opc::Pulse) {
            if imm & 1 == 0 {
                io.cleaned();
            } else {
                io.index_reset();
            }
        }
        if let Some(v) = write {
            self.regs[rd] = v & MASK;
        }
        self.pc = next;
    }
}

#[cfg(test)]
mod tests {
    //! The program on the emulator against the golden model, on seeded
    //! random command streams.
    use super::*;
    use crate::ftl::flash::Geometry;
    use crate::ftl::model::{Command, CoreConfig, CoreModel, Response};
    use crate::ftl::{Op, Status};
    use crate::index::model::{Command as IndexCommand, IndexModel};
    use std::collections::HashMap;

    struct Rig {
        config: CoreConfig,
        memory: HashMap<u32, u64>,
        index: IndexModel,
        pending: Option<Command>,
        responses: Vec<Response>,
        moves: Vec<(u32, u32)>,
        cleaned: usize,
        hold: bool,
    }

    impl MicroPorts for Rig {
        fn command(&mut self) -> Option<(u8, u8, u32, Fingerprint)> {
            self.pending.map(|c| (c.op, c.tag, c.lpa, c.fp))
        }
        fn take(&mut self) {
            assert!(self.pending.take().is_some(), "TAKE without a command offered");
        }
        fn mem_read(&mut self, addr: u32) -> u64 {
            *self.memory.get(&addr).unwrap_or(&0)
        }
        fn mem_write(&mut self, addr: u32, data: u64) {
            self.memory.insert(addr, data);
        }
        fn index(&mut self, op: u8, key: &Fingerprint, entry: u16) -> (u8, u16) {
            let r = self.index.execute(&IndexCommand { op, fp: *key, entry, tag: 0 });
            (r.status as u8, r.entry)
        }
        fn index_ready(&mut self) -> bool {
            true
        }
        fn index_reset(&mut self) {
            self.index = IndexModel::new(self.config.index_bucket_bits, self.config.bloom);
        }
        fn respond(&mut self, tag: u8, status: u8, value: u32, flags: u8) {
            let status = Status::from_u8(status).unwrap_or_else(|| panic!("status {status}"));
            self.responses.push(Response { tag, status, value, flags });
        }
        fn relocate(&mut self, from: u32, to: u32) {
            self.moves.push((from, to));
        }
        fn cleaned(&mut self) {
            self.cleaned += 1;
        }
        fn cleaner_hold(&mut self) -> bool {
            self.hold
        }
        fn config(&self) -> (u32, u32, u32, u32, u32, bool) {
            let g = self.config.geometry;
            (
                g.devices.trailing_zeros(),
                g.blocks_per_device.trailing_zeros(),
                g.pages_per_block.trailing_zeros(),
                g.reserve_blocks,
                self.config.lpas,
                self.config.array_wide,
            )
        }
        fn refcount_max(&self) -> u32 {
            self.config.refcount_max
        }
    }

    /// xorshift64*: a seeded stream without a dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Runs `commands` random commands (seed printed) and compares every
    /// response, relocation, cleaner step and, at the end, the counters.
    fn compare(config: CoreConfig, seed: u64, commands: usize, contents: u64, min_stale_hits: usize) {
        println!("seed {seed:#x}: {config:?}");
        let mut r = Rng(seed | 1);
        let mut golden = CoreModel::new(config);
        let mut rig = Rig {
            config,
            memory: HashMap::new(),
            index: IndexModel::new(config.index_bucket_bits, config.bloom),
            pending: None,
            responses: Vec::new(),
            moves: Vec::new(),
            cleaned: 0,
            hold: false,
        };
        let mut emu = Emu::new(super::super::program::program());
        let run_until_idle = |emu: &mut Emu, rig: &mut Rig| {
            for _ in 0..10_000_000 {
                if emu.idle && rig.pending.is_none() {
                    return;
                }
                emu.step(rig);
            }
            panic!("seed {seed:#x}: the program never went idle (pc {})", emu.pc);
        };
        run_until_idle(&mut emu, &mut rig);
        let (mut relocations, mut cleaner_steps, mut stale_hits, mut saturated) = (0, 0, 0, 0);
        let mut seen = std::collections::HashSet::new();
        for i in 0..commands {
            let op = match r.below(1000) {
                0..=599 => Op::WriteFp as u8,
                600..=649 => Op::WriteUnique as u8,
                650..=799 => Op::Read as u8,
                800..=949 => Op::Trim as u8,
                950..=979 => Op::Stats as u8,
                980..=997 => Op::Sync as u8,
                _ => Op::Reset as u8,
            };
            let lpa = if op == Op::Stats as u8 { r.below(14) as u32 } else { r.below(config.lpas as u64 + 2) as u32 };
            // A skewed mix: one write in four is one of three hot contents,
            // so reference counts reach the limit and saturate.
            let content = if r.below(4) == 0 { r.below(3) } else { r.below(contents) };
            let mut fp = [0u8; 20];
            fp[..8].copy_from_slice(&content.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_be_bytes());
            let cmd = Command { op, tag: i as u8, lpa, fp };
            // An idle gap, in which the background cleaner may take steps.
            // The cleaner held for stretches of commands, so stale entries wait.
            if r.below(40) == 0 {
                rig.hold = !rig.hold;
            }
            rig.cleaned = 0;
            let gap = if r.below(8) == 0 { r.below(400) } else { 0 };
            for _ in 0..gap {
                emu.step(&mut rig);
            }
            rig.pending = Some(cmd);
            rig.responses.clear();
            rig.moves.clear();
            while rig.responses.is_empty() {
                emu.step(&mut rig);
                assert!(emu.steps < 1 << 40);
            }
            // Cleaner steps taken before the command was accepted come first.
            let cleaned_before = rig.cleaned;
            cleaner_steps += cleaned_before;
            for _ in 0..cleaned_before {
                assert!(golden.clean_step(), "seed {seed:#x}: command {i}: a cleaner step with nothing queued");
            }
            let (want, want_moves) = golden.execute(&cmd);
            let moves: Vec<(u32, u32)> = want_moves.iter().map(|m| (m.from, m.to)).collect();
            assert_eq!(rig.responses, vec![want], "seed {seed:#x}: command {i} {cmd:?}");
            assert_eq!(rig.moves, moves, "seed {seed:#x}: command {i} relocations");
            relocations += moves.len();
            stale_hits += (want.flags & crate::ftl::flag::STALE != 0) as usize;
            saturated += (want.flags & crate::ftl::flag::SATURATED != 0) as usize;
            seen.insert(want.status as u8);
            // Going idle, the cleaner may drain its queue first.
            rig.cleaned = 0;
            run_until_idle(&mut emu, &mut rig);
            cleaner_steps += rig.cleaned;
            for _ in 0..rig.cleaned {
                assert!(golden.clean_step(), "seed {seed:#x}: a cleaner step with nothing queued");
            }
            assert_eq!(emu.counters, golden.counters(), "seed {seed:#x}: counters after command {i}");
        }
        golden.check_invariants().unwrap();
        println!(
            "{commands} commands, {} instructions: {relocations} relocations, {cleaner_steps} background cleaner \
             steps, {stale_hits} stale hits, {saturated} saturated writes, statuses {seen:?}",
            emu.steps
        );
        if config.refcount_max <= 8 {
            assert!(saturated > 100, "{saturated} saturated writes: the hot contents reach the limit");
        }
        assert!(relocations > 100 && cleaner_steps > 100, "the workload reaches GC and the cleaner");
        assert!(stale_hits >= min_stale_hits, "{stale_hits} stale hits");
        assert!(seen.len() >= 7, "statuses seen: {seen:?}");
    }

    fn config(devices: u32, blocks: u32, pages: u32, lpas: u32, array_wide: bool) -> CoreConfig {
        CoreConfig {
            lpas,
            geometry: Geometry { devices, blocks_per_device: blocks, pages_per_block: pages, reserve_blocks: 1 },
            index_bucket_bits: 3,
            bloom: true,
            array_wide,
            refcount_max: crate::ftl::REFCOUNT_MAX,
        }
    }

    #[test]
    fn the_program_matches_the_golden_model_on_one_device() {
        compare(config(1, 16, 8, 96, true), 0x5eed_0001, 30_000, 150, 10);
    }

    #[test]
    fn the_program_matches_the_golden_model_on_four_devices() {
        compare(config(4, 8, 8, 180, true), 0x5eed_0002, 30_000, 300, 5);
    }

    #[test]
    fn the_program_matches_the_golden_model_device_local() {
        compare(config(8, 8, 4, 160, false), 0x5eed_0003, 30_000, 120, 2);
    }

    #[test]
    fn the_program_matches_the_golden_model_past_the_flash() {
        compare(config(2, 8, 8, 200, true), 0x5eed_0004, 20_000, 5_000, 0);
    }

    #[test]
    fn the_program_repoints_saturated_hot_pages_as_the_golden_model_does() {
        // A limit of 4: hot contents saturate, their new copies become the
        // index's targets, and overwrites and trims release the old copies.
        compare(CoreConfig { refcount_max: 4, ..config(1, 16, 8, 96, true) }, 0x5eed_0005, 30_000, 150, 10);
        compare(CoreConfig { refcount_max: 3, ..config(4, 8, 8, 180, false) }, 0x5eed_0006, 30_000, 300, 2);
    }
}
