//! The board link, host side. [`LinkTransport`] speaks the framed protocol
//! of [`ditto_hw::board::protocol`] to a whole-core board top through a
//! [`BytePipe`]: the Alchitry Cu's USB UART ([`SerialPipe`]) or the
//! cosimulated top's UART pins, driven bit by bit ([`CosimUartPipe`]).
//!
//! The host keeps what the board has no room for: the FTL memory and the
//! index's full fingerprints. It serves the board's requests from them as
//! they come, in any order with its own commands.
//!
//! Every response is checked against the golden model. The board reports
//! how many background-cleaner steps it took before each command, and the
//! host replays them in the model.
//!
//! Recovery:
//! - a command the board rejected (`E`) is sent again;
//! - a response that does not come is asked for again (`A`);
//! - a damaged answer of ours is repeated when the board asks again.
//!
//! Sending a command again is safe. The board answers a repeated tag from
//! its latched response and does not run the command twice.
use crate::driver::{Completion, DriverError, Transport};
use ditto_hw::board::protocol::{error as code, kind, Deframer, Frame, INDEX_STATS_BASE, MORE};
use ditto_hw::board::BoardSetup;
use ditto_hw::config::Config;
use ditto_hw::ftl::flash::Relocation;
use ditto_hw::ftl::model::{Command, CoreConfig, CoreModel, Response};
use ditto_hw::ftl::{Op, Status};
use ditto_hw::index::model::IndexStats;
use ditto_sim::ditto_core::Job;
use std::collections::{HashMap, VecDeque};

/// A byte stream to and from a board.
pub trait BytePipe {
    /// Sends `bytes` (one frame) and waits until they are on their way.
    fn send(&mut self, bytes: &[u8]) -> Result<(), DriverError>;
    /// Appends the bytes that arrive within the pipe's patience to `into`;
    /// false when none did.
    fn recv(&mut self, into: &mut Vec<u8>) -> Result<bool, DriverError>;
    /// Clock cycles simulated so far (0 for a real board).
    fn cycles(&self) -> u64 {
        0
    }
    /// What the pipe reaches.
    fn name(&self) -> String;
}

/// Link events so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub frames_sent: u64,
    pub frames_received: u64,
    /// `E` frames: frames of ours the board rejected.
    pub rejected_by_board: u64,
    /// Frames (or partial frames) from the board that failed the host's checks.
    pub bad_frames: u64,
    /// Commands sent again.
    pub commands_resent: u64,
    /// `A` frames sent.
    pub again_requests: u64,
    /// Requests the board sent again. They are answered again; a write is
    /// not applied twice.
    pub repeated_requests: u64,
}

/// A command's response from the board, the relocations (`from`, `to`)
/// before it, and the board's count of cleaner steps before the command.
type BoardAnswer = (Response, Vec<(u32, u32)>, u16);

/// Silent patience periods before the host asks for the response again.
const SILENCES_BEFORE_AGAIN: u32 = 2;
/// `A`s in a row without a frame from the board before it is given up on.
const MAX_AGAINS: u32 = 25;

/// The golden model's parameters for the board of `config` built with `setup`.
pub fn board_core_config(config: &Config, setup: &BoardSetup) -> CoreConfig {
    CoreConfig {
        lpas: setup.lpas,
        geometry: setup.geometry,
        index_bucket_bits: config.index_bucket_bits,
        bloom: true,
        array_wide: setup.array_wide,
        refcount_max: setup.refcount_max,
    }
}

/// A whole-core board top reached over a framed byte link, checked against
/// the golden model.
pub struct LinkTransport<P: BytePipe> {
    pipe: P,
    rx: Deframer,
    queue: VecDeque<Frame>,
    golden: CoreModel,
    memory: HashMap<u32, u64>,
    fingerprints: HashMap<u16, [u8; 20]>,
    next_tag: u8,
    last_request: Option<u8>,
    clean_seen: u16,
    stats: LinkStats,
    trace: bool,
}

/// Frames as one line of text, for `DITTO_LINK_TRACE=1`.
fn describe(f: &Frame) -> String {
    let shown = &f.payload[..f.payload.len().min(24)];
    format!("{} tag {:3} len {:4} {:02x?}", f.kind as char, f.tag, f.payload.len(), shown)
}

impl<P: BytePipe> LinkTransport<P> {
    /// Connects to the board of `config` built with `setup` and `RESET`s its
    /// core (its tables live here, so a new host starts them afresh).
    pub fn connect(pipe: P, config: &Config, setup: BoardSetup) -> Result<Self, DriverError> {
        let golden = CoreModel::new(board_core_config(config, &setup));
        let mut link = LinkTransport {
            pipe,
            rx: Deframer::new(false),
            queue: VecDeque::new(),
            golden,
            memory: HashMap::new(),
            fingerprints: HashMap::new(),
            next_tag: 0,
            last_request: None,
            clean_seen: 0,
            stats: LinkStats::default(),
            trace: std::env::var_os("DITTO_LINK_TRACE").is_some(),
        };
        // Learn the tag of the board's last response (a new tag must differ
        // from it), serving whatever the board asks meanwhile.
        link.send(&Frame::new(kind::AGAIN, 0, vec![]))?;
        // A board still initialising after power-on keeps asking: its
        // requests are served here and, after a few, during the RESET.
        let (mut silences, mut frames) = (0, 0);
        let mut ignored = Vec::new();
        while silences < SILENCES_BEFORE_AGAIN && frames < 64 {
            match link.next_frame()? {
                None => silences += 1,
                Some(f) if f.kind == kind::RESPONSE => {
                    link.next_tag = f.tag.wrapping_add(1);
                    break;
                }
                Some(f) if f.kind == kind::ERROR => frames += 1,
                Some(f) => {
                    frames += 1;
                    link.serve(f, &mut ignored)?;
                }
            }
        }
        let reset = Command::new(Op::Reset, 0, 0, [0; 20]);
        let (rsp, _, cleaned) = link.command(&reset, None, false)?;
        if rsp.status != Status::Done {
            return Err(DriverError::Core(format!("the board answered {:?} to RESET", rsp.status)));
        }
        link.golden.execute(&reset);
        link.clean_seen = cleaned;
        Ok(link)
    }

    /// The link's events so far.
    pub fn link_stats(&self) -> LinkStats {
        self.stats
    }

    /// The pipe (for a test's fault injection).
    pub fn pipe(&mut self) -> &mut P {
        &mut self.pipe
    }

    fn send(&mut self, frame: &Frame) -> Result<(), DriverError> {
        self.stats.frames_sent += 1;
        if self.trace {
            eprintln!("{:>12} host  -> {}", self.pipe.cycles(), describe(frame));
        }
        self.pipe.send(&frame.encode())
    }

    /// The next whole frame from the board, or `None` after a silent period.
    fn next_frame(&mut self) -> Result<Option<Frame>, DriverError> {
        loop {
            if let Some(f) = self.queue.pop_front() {
                self.stats.frames_received += 1;
                if self.trace {
                    eprintln!("{:>12} board -> {}", self.pipe.cycles(), describe(&f));
                }
                return Ok(Some(f));
            }
            let mut bytes = Vec::new();
            if !self.pipe.recv(&mut bytes)? {
                if self.rx.in_frame() {
                    self.rx.abandon();
                    self.stats.bad_frames += 1;
                }
                return Ok(None);
            }
            for b in bytes {
                match self.rx.push(b) {
                    Some(Ok(f)) => self.queue.push_back(f),
                    Some(Err(e)) => {
                        self.stats.bad_frames += 1;
                        if self.trace {
                            eprintln!("{:>12} board -> damaged: {e}", self.pipe.cycles());
                        }
                    }
                    None => {}
                }
            }
        }
    }

    /// Serves one request from the board; relocations are collected in `moves`.
    fn serve(&mut self, f: Frame, moves: &mut Vec<(u32, u32)>) -> Result<(), DriverError> {
        let repeat = self.last_request == Some(f.tag);
        if repeat {
            self.stats.repeated_requests += 1;
        }
        let answer = match f.kind {
            kind::MEM_READ => {
                let data = self.memory.get(&(f.field(0, 4) as u32)).copied().unwrap_or(0);
                Frame::new(kind::MEM_DATA, f.tag, data.to_be_bytes().to_vec())
            }
            kind::MEM_WRITE => {
                if !repeat {
                    self.memory.insert(f.field(0, 4) as u32, f.field(4, 8));
                }
                Frame::new(kind::ACK, f.tag, vec![])
            }
            kind::FP_READ => {
                let fp = self.fingerprints.get(&(f.field(0, 2) as u16)).copied().unwrap_or([0; 20]);
                Frame::new(kind::FP_DATA, f.tag, fp.to_vec())
            }
            kind::FP_WRITE => {
                if !repeat {
                    let fp: [u8; 20] = f.payload[2..22].try_into().expect("a W frame has 22 bytes");
                    self.fingerprints.insert(f.field(0, 2) as u16, fp);
                }
                Frame::new(kind::ACK, f.tag, vec![])
            }
            kind::MOVE => {
                if !repeat {
                    moves.push((f.field(0, 3) as u32, f.field(3, 3) as u32));
                }
                Frame::new(kind::ACK, f.tag, vec![])
            }
            other => return Err(DriverError::Core(format!("the board sent an unexpected {:?} frame", other as char))),
        };
        self.last_request = Some(f.tag);
        self.send(&answer)
    }

    /// Runs one command on the board: its response, the relocations before
    /// it, and the board's count of cleaner steps before it.
    fn command(&mut self, cmd: &Command, page: Option<&[u8; 4096]>, more: bool) -> Result<BoardAnswer, DriverError> {
        let tag = self.next_tag;
        self.next_tag = tag.wrapping_add(1);
        let op = cmd.op | if more { MORE } else { 0 };
        let frame = Frame::command(op, tag, cmd.lpa, &cmd.fp, page);
        self.send(&frame)?;
        let mut moves = Vec::new();
        let (mut silences, mut agains) = (0, 0);
        loop {
            let Some(f) = self.next_frame()? else {
                silences += 1;
                if self.trace {
                    eprintln!("{:>12} silence", self.pipe.cycles());
                }
                if silences >= SILENCES_BEFORE_AGAIN {
                    silences = 0;
                    agains += 1;
                    if agains > MAX_AGAINS {
                        return Err(DriverError::Backend(format!(
                            "{}: no response to command {tag} (op {} of LPA {}) after {MAX_AGAINS} requests for it \
                             (does the board run the whole-core board top of `ditto synth --config cu`?)",
                            self.pipe.name(),
                            cmd.op,
                            cmd.lpa
                        )));
                    }
                    self.stats.again_requests += 1;
                    self.send(&Frame::new(kind::AGAIN, 0, vec![]))?;
                }
                continue;
            };
            // Any frame is progress: the count of unanswered `A`s restarts.
            (silences, agains) = (0, 0);
            match f.kind {
                kind::RESPONSE if f.tag == tag => {
                    let status = Status::from_u8(f.payload[0]).ok_or_else(|| {
                        DriverError::Core(format!("the board answered command {tag} with status {}", f.payload[0]))
                    })?;
                    let rsp = Response { tag, status, value: f.field(1, 4) as u32, flags: f.payload[5] };
                    return Ok((rsp, moves, f.field(6, 2) as u16));
                }
                kind::RESPONSE => {
                    // The board's last response is an earlier command's: ours
                    // never arrived whole.
                    self.stats.commands_resent += 1;
                    self.send(&frame)?;
                }
                kind::ERROR => {
                    self.stats.rejected_by_board += 1;
                    // Our command was damaged: send it again. Otherwise an
                    // answer of ours was, and the board will ask again; or it
                    // is busy with our command (a copy crossed it).
                    if f.tag == tag && f.payload[1] == kind::COMMAND && f.payload[0] != code::BUSY {
                        self.stats.commands_resent += 1;
                        self.send(&frame)?;
                    }
                }
                _ => self.serve(f, &mut moves)?,
            }
        }
    }

    /// Runs one job and checks it against the golden model.
    fn run_checked(&mut self, job: &Job, more: bool) -> Result<Completion, DriverError> {
        let (rsp, moves, cleaned) = self.command(&job.cmd, job.page.as_deref(), more)?;
        let steps = cleaned.wrapping_sub(self.clean_seen);
        self.clean_seen = cleaned;
        for step in 0..steps {
            if !self.golden.clean_step() {
                return Err(self.diverged(format!(
                    "the board took {steps} cleaner steps before command {}, the model had only {step} to take",
                    rsp.tag
                )));
            }
        }
        let (want, want_moves) = self.golden.execute(&job.model_command());
        let want_pairs: Vec<(u32, u32)> = want_moves.iter().map(|m| (m.from, m.to)).collect();
        if (rsp.status, rsp.value, rsp.flags) != (want.status, want.value, want.flags) || moves != want_pairs {
            return Err(self.diverged(format!(
                "op {} of LPA {}: the board answered {:?} {} flags {} after moves {moves:?}; the model {:?} {} flags {} after {want_pairs:?}",
                job.cmd.op,
                job.cmd.lpa,
                rsp.status,
                rsp.value,
                rsp.flags,
                want.status,
                want.value,
                want.flags
            )));
        }
        let rsp = Response { tag: job.cmd.tag, ..rsp };
        Ok((rsp, want_moves.into_iter().map(|m| Relocation { owner: 0, ..m }).collect()))
    }

    fn diverged(&self, what: String) -> DriverError {
        DriverError::Core(format!("{} diverged from the golden model: {what}", self.pipe.name()))
    }
}

impl<P: BytePipe> Transport for LinkTransport<P> {
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, DriverError> {
        // The cleaner is held through the batch; a SYNC at its end drains
        // it, as the other transports' idle gap does.
        let mut out = Vec::with_capacity(jobs.len());
        for job in jobs {
            out.push(self.run_checked(job, true)?);
        }
        let sync = Job { cmd: Command::new(Op::Sync, 0, 0, [0; 20]), page: None };
        let (rsp, _) = self.run_checked(&sync, false)?;
        if rsp.status != Status::Done {
            return Err(DriverError::Core(format!("the board answered {:?} to SYNC", rsp.status)));
        }
        Ok(out)
    }

    fn index_stats(&mut self) -> Result<IndexStats, DriverError> {
        let mut v = [0u32; 6];
        for (i, value) in v.iter_mut().enumerate() {
            let cmd = Command::new(Op::Stats, 0, INDEX_STATS_BASE + i as u32, [0; 20]);
            let (rsp, _, _) = self.command(&cmd, None, false)?;
            if rsp.status != Status::Done {
                return Err(DriverError::Core(format!("the board answered {:?} to index STATS {i}", rsp.status)));
            }
            *value = rsp.value;
        }
        let got = IndexStats {
            commands: v[0],
            bloom_negatives: v[1],
            false_positives: v[2],
            rebuilds: v[3],
            signature_misses: v[4],
            entries_used: v[5],
        };
        let want = self.golden.index_stats();
        if got != want {
            return Err(self.diverged(format!("index counters {got:?}, the model's {want:?}")));
        }
        Ok(got)
    }

    fn cycles(&self) -> u64 {
        self.pipe.cycles()
    }

    fn name(&self) -> String {
        self.pipe.name()
    }
}

/// The Alchitry Cu's FTDI UART (8N1 at the board's baud rate).
pub struct SerialPipe {
    port: Box<dyn serialport::SerialPort>,
    path: String,
}

impl SerialPipe {
    /// Opens `path` at `baud`; a read waits up to 20 ms.
    pub fn open(path: &str, baud: u32) -> Result<Self, DriverError> {
        let port = serialport::new(path, baud)
            .timeout(std::time::Duration::from_millis(20))
            .open()
            .map_err(|e| DriverError::Backend(format!("serial port {path}: {e}")))?;
        // Bytes left from before (a board's power-on requests) are stale.
        port.clear(serialport::ClearBuffer::All)
            .map_err(|e| DriverError::Backend(format!("serial port {path}: {e}")))?;
        Ok(SerialPipe { port, path: path.to_string() })
    }
}

impl BytePipe for SerialPipe {
    fn send(&mut self, bytes: &[u8]) -> Result<(), DriverError> {
        use std::io::Write;
        self.port
            .write_all(bytes)
            .and_then(|_| self.port.flush())
            .map_err(|e| DriverError::Backend(format!("serial port {}: {e}", self.path)))
    }

    fn recv(&mut self, into: &mut Vec<u8>) -> Result<bool, DriverError> {
        let mut buf = [0u8; 256];
        match self.port.read(&mut buf) {
            Ok(0) => Ok(false),
            Ok(n) => {
                into.extend_from_slice(&buf[..n]);
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => Ok(false),
            Err(e) => Err(DriverError::Backend(format!("serial port {}: {e}", self.path))),
        }
    }

    fn name(&self) -> String {
        format!("serial:{}", self.path)
    }
}

/// Damage done to the link in a cosimulation, drawn from a seed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Faults {
    /// Per frame to the board: chance of one flipped bit.
    pub flip: f64,
    /// Per frame to the board: chance of one byte lost.
    pub drop: f64,
    /// Per frame to the board: chance of random bytes before it.
    pub garbage: f64,
    /// Per frame to the board: chance that it stops short (the rest never sent).
    pub truncate: f64,
    /// Per byte to the host: chance of one flipped bit.
    pub flip_to_host: f64,
    pub seed: u64,
}

/// One deliberate damage to the next frame sent to the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Damage {
    /// Flip bit `bit` of byte `at`.
    Flip { at: usize, bit: u8 },
    /// Lose byte `at`.
    Drop { at: usize },
    /// Send only the first `keep` bytes.
    Truncate { keep: usize },
    /// Send these bytes first.
    Garbage(Vec<u8>),
}

/// The cosimulated whole-core board top (Verilator model `board_cu_core`),
/// reached through its UART pins by a bit-level UART peer.
pub struct CosimUartPipe<M: std::borrow::BorrowMut<ditto_sim::Model>> {
    model: M,
    peer: ditto_sim::uart::UartPeer,
    usb_rx: ditto_sim::PortId,
    usb_tx: ditto_sim::PortId,
    taken: usize,
    patience: u64,
    faults: Faults,
    rng: rand::rngs::StdRng,
    next_damage: Option<(usize, Damage)>,
    flip_from_board: Option<usize>,
    trace: bool,
}

/// The cosimulation model of the Cu's whole-core board top.
pub const BOARD_MODEL: &str = "board_cu_core";

impl<M: std::borrow::BorrowMut<ditto_sim::Model>> CosimUartPipe<M> {
    /// Attaches to a fresh `board_cu_core` model (built with
    /// [`BoardSetup::COSIM`]) and runs its power-on reset.
    pub fn attach(mut model: M) -> Result<Self, DriverError> {
        let m = model.borrow_mut();
        let err = |e: ditto_sim::SimError| DriverError::Core(e.to_string());
        let (usb_rx, usb_tx, rst_n) =
            (m.input("usb_rx").map_err(err)?, m.port("usb_tx").map_err(err)?, m.input("rst_n").map_err(err)?);
        m.set(rst_n, 1);
        m.set(usb_rx, 1);
        let setup = BoardSetup::COSIM;
        let mut pipe = CosimUartPipe {
            model,
            peer: ditto_sim::uart::UartPeer::new(setup.cycles_per_bit as u64),
            usb_rx,
            usb_tx,
            taken: 0,
            // A silence is a few of the board's byte times longer than its
            // receive timeout (so its `E` for a truncated frame comes first).
            patience: setup.rx_timeout as u64 * 3,
            faults: Faults::default(),
            rng: rand::SeedableRng::seed_from_u64(0),
            next_damage: None,
            flip_from_board: None,
            trace: std::env::var_os("DITTO_LINK_TRACE").is_some(),
        };
        for _ in 0..64 {
            pipe.step();
        }
        Ok(pipe)
    }

    /// Damages the link from now on.
    pub fn set_faults(&mut self, faults: Faults) {
        self.faults = faults;
        self.rng = rand::SeedableRng::seed_from_u64(faults.seed);
    }

    /// Damages the next frame sent to the board, once.
    pub fn damage_next(&mut self, damage: Damage) {
        self.damage_frame(0, damage);
    }

    /// Damages the `n`th frame (from 0) sent to the board from now, once.
    pub fn damage_frame(&mut self, n: usize, damage: Damage) {
        self.next_damage = Some((n, damage));
    }

    /// Flips the lowest bit of the `n`th byte (from 0) the board sends from now.
    pub fn flip_from_board(&mut self, n: usize) {
        self.flip_from_board = Some(self.taken + n);
    }

    /// The model (for a test's own probing).
    pub fn model(&mut self) -> &mut ditto_sim::Model {
        self.model.borrow_mut()
    }

    /// Runs `cycles` clock cycles.
    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    fn step(&mut self) {
        let m = self.model.borrow_mut();
        m.eval();
        let tx = m.get(self.usb_tx) == 1;
        let rx = self.peer.step(tx);
        m.set(self.usb_rx, rx as u64);
        m.tick();
    }
}

impl<M: std::borrow::BorrowMut<ditto_sim::Model>> BytePipe for CosimUartPipe<M> {
    fn send(&mut self, bytes: &[u8]) -> Result<(), DriverError> {
        use rand::Rng;
        let f = self.faults;
        let original = bytes.len();
        let mut bytes = bytes.to_vec();
        if self.rng.gen_bool(f.garbage) {
            let n = self.rng.gen_range(1..8);
            let garbage: Vec<u8> = (0..n).map(|_| self.rng.gen()).collect();
            bytes.splice(0..0, garbage);
        }
        if self.rng.gen_bool(f.flip) {
            let at = self.rng.gen_range(0..bytes.len());
            bytes[at] ^= 1 << self.rng.gen_range(0..8);
            if self.trace {
                eprintln!("{:>12} damage: byte {at} of {original} flipped", self.cycles());
            }
        }
        if self.rng.gen_bool(f.drop) {
            let at = self.rng.gen_range(0..bytes.len());
            bytes.remove(at);
        }
        if self.rng.gen_bool(f.truncate) {
            let keep = self.rng.gen_range(1..bytes.len());
            bytes.truncate(keep);
        }
        if self.trace && bytes.len() != original {
            eprintln!("{:>12} damage: {} bytes sent as {}", self.cycles(), original, bytes.len());
        }
        let damage = match self.next_damage.take() {
            Some((0, damage)) => Some(damage),
            Some((n, damage)) => {
                self.next_damage = Some((n - 1, damage));
                None
            }
            None => None,
        };
        match damage {
            None => {}
            Some(Damage::Flip { at, bit }) => bytes[at] ^= 1 << bit,
            Some(Damage::Drop { at }) => {
                bytes.remove(at);
            }
            Some(Damage::Truncate { keep }) => bytes.truncate(keep),
            Some(Damage::Garbage(garbage)) => {
                bytes.splice(0..0, garbage);
            }
        }
        self.peer.send(&bytes);
        Ok(())
    }

    fn recv(&mut self, into: &mut Vec<u8>) -> Result<bool, DriverError> {
        use rand::Rng;
        let mut idle = 0;
        while self.peer.received.len() == self.taken {
            self.step();
            if !self.peer.sending() {
                idle += 1;
                if idle >= self.patience {
                    return Ok(false);
                }
            }
        }
        for (i, &b) in self.peer.received.iter().enumerate().skip(self.taken) {
            let mut b = b;
            if self.flip_from_board == Some(i) {
                b ^= 1;
            }
            if self.rng.gen_bool(self.faults.flip_to_host) {
                b ^= 1 << self.rng.gen_range(0..8);
            }
            into.push(b);
        }
        self.taken = self.peer.received.len();
        Ok(true)
    }

    fn cycles(&self) -> u64 {
        self.model.borrow().cycles()
    }

    fn name(&self) -> String {
        format!("board-cosim ({BOARD_MODEL} over its UART pins)")
    }
}
