//! Cosimulation of the fingerprint index: [`IndexSim`] drives a
//! configuration's index model (`index_<config>`) with commands, serves its
//! memory ports from Rust memory models of configurable latency and
//! back-pressure, and collects its responses; [`IndexSim::run_checked`]
//! compares every response and the statistics with the golden model
//! ([`ditto_hw::index::model::IndexModel`]) and the fingerprint store with
//! the model's entries.
use crate::hasher::digest_from_words;
use crate::{Model, PortId, SimError};
use ditto_hw::index::model::{Command, IndexModel, IndexStats, Response};
use ditto_hw::index::{Fingerprint, Status, TABLE_ADDR_BITS};
use ditto_hw::Config;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Timing of one memory port's Rust model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemTiming {
    /// Cycles from a read's acceptance to its response (at least 1).
    pub latency: u64,
    /// Probability that the port accepts a request on a given cycle.
    pub ready: f64,
}

impl MemTiming {
    /// Fixed latency, always ready.
    pub fn fixed(latency: u64) -> Self {
        MemTiming { latency, ready: 1.0 }
    }
}

/// Handshake behaviour of the command side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Traffic {
    /// Probability that the next command is offered on a given cycle.
    pub cmd_valid: f64,
    /// Probability that a response is taken on a given cycle.
    pub rsp_ready: f64,
    /// Seed of the stall patterns (and of the memory ports' back-pressure).
    pub seed: u64,
}

impl Traffic {
    /// No stalls on either side.
    pub const FULL_SPEED: Traffic = Traffic { cmd_valid: 1.0, rsp_ready: 1.0, seed: 0 };
}

/// How the index is set up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexSetup {
    pub bloom: bool,
    /// FSMs at work: `2^fsm_limit_log2`, capped at the configuration's.
    pub fsm_limit_log2: u32,
    /// The table port's memory (configurations with an external table).
    pub table: MemTiming,
    /// The fingerprint store's memory.
    pub fingerprints: MemTiming,
}

impl IndexSetup {
    /// Bloom filters on, every FSM, single-cycle memories.
    pub fn new(config: &Config) -> Self {
        IndexSetup {
            bloom: true,
            fsm_limit_log2: config.index_fsms.trailing_zeros(),
            table: MemTiming::fixed(1),
            fingerprints: MemTiming::fixed(1),
        }
    }
}

/// A run's result.
#[derive(Clone, Debug)]
pub struct IndexRun {
    pub responses: Vec<Response>,
    /// Cycles from the first command offered to the last response taken.
    pub cycles: u64,
    /// Cycle (from the run's start) each command was taken on.
    pub taken_at: Vec<u64>,
    /// Cycle (from the run's start) each response left on.
    pub answered_at: Vec<u64>,
}

/// A cosimulation failure.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error(
        "the index made no progress for {idle} cycles at cycle {cycle} ({sent} commands in, {received} responses out)"
    )]
    Hang { cycle: u64, idle: u64, sent: usize, received: usize },
    #[error("response {index} has the unknown status code {code}")]
    BadStatus { index: usize, code: u8 },
    #[error("response {index} to {cmd:?}: hardware {got:?}, golden model {want:?}")]
    Mismatch { index: usize, cmd: Command, got: Response, want: Response },
    #[error("statistics after the run: hardware {got:?}, golden model {want:?}")]
    Stats { got: IndexStats, want: IndexStats },
    #[error("entry {entry}: the fingerprint store holds {got}, the golden model {want}")]
    Store { entry: u32, got: String, want: String },
    #[error("a response came out at cycle {cycle}, after the last of {commands} commands")]
    ExtraResponse { cycle: u64, commands: usize },
    #[error("the {port} port got a request for address {addr:#x}, beyond its memory")]
    BadAddress { port: &'static str, addr: u64 },
}

/// Cycles without a handshake after which a run is declared hung.
const HANG_CYCLES: u64 = 100_000;
/// Cycles watched after a run's last response for a spurious extra one.
const QUIET_CYCLES: u64 = 64;

/// The Rust model of one memory port: applies requests in the order it
/// accepts them and answers reads after `latency` cycles, in order.
pub(crate) struct MemPort {
    timing: MemTiming,
    rng: ChaCha8Rng,
    words: Vec<[u32; 5]>,
    queue: VecDeque<(u64, u64, [u32; 5])>,
    req_ready: bool,
    presenting: bool,
}

impl MemPort {
    pub(crate) fn new(timing: MemTiming, words: usize, seed: u64) -> Self {
        assert!(timing.latency >= 1, "a memory answers one cycle after a read at the earliest");
        MemPort {
            timing,
            rng: ChaCha8Rng::seed_from_u64(seed),
            words: vec![[0; 5]; words],
            queue: VecDeque::new(),
            req_ready: false,
            presenting: false,
        }
    }
}

impl MemPort {
    /// Drives the port's inputs for this cycle: back-pressure and the oldest
    /// due read response.
    pub(crate) fn drive(&mut self, model: &mut Model, pins: &MemPins, now: u64) {
        self.req_ready = self.timing.ready >= 1.0 || self.rng.gen_bool(self.timing.ready);
        model.set(pins.req_ready, self.req_ready as u64);
        self.presenting = false;
        match self.queue.front() {
            Some(&(due, tag, data)) if due <= now => {
                model.set(pins.rsp_valid, 1);
                model.set(pins.rsp_tag, tag);
                model.set_words(pins.rsp_rdata, &data);
                self.presenting = true;
            }
            _ => model.set(pins.rsp_valid, 0),
        }
    }

    /// After `eval`: retires the response presented this cycle and takes the
    /// request the port accepts, if any.
    pub(crate) fn take(
        &mut self,
        model: &mut Model,
        pins: &MemPins,
        now: u64,
        name: &'static str,
    ) -> Result<(), IndexError> {
        if self.presenting {
            self.queue.pop_front();
        }
        if !(self.req_ready && model.get(pins.req_valid) == 1) {
            return Ok(());
        }
        let addr = model.get(pins.req_addr);
        if addr as usize >= self.words.len() {
            return Err(IndexError::BadAddress { port: name, addr });
        }
        if model.get(pins.req_write) == 1 {
            let mut data = [0u32; 5];
            let words = model.get_words(pins.req_wdata);
            data[..words.len()].copy_from_slice(words);
            self.words[addr as usize] = data;
        } else {
            let tag = model.get(pins.req_tag);
            self.queue.push_back((now + self.timing.latency, tag, self.words[addr as usize]));
        }
        Ok(())
    }

    /// Forgets reads in flight (on reset).
    pub(crate) fn clear_queue(&mut self) {
        self.queue.clear();
    }

    /// Sets the port's back-pressure generator.
    pub(crate) fn reseed(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    /// The 160-bit word at `addr` as a fingerprint (zeros if never written).
    pub(crate) fn fingerprint(&self, addr: usize) -> Fingerprint {
        digest_from_words(&self.words[addr])
    }

    /// Word `addr` of the memory, its low 64 bits.
    pub(crate) fn word64(&self, addr: usize) -> u64 {
        let w = self.words[addr];
        w[0] as u64 | ((w[1] as u64) << 32)
    }
}

/// Port handles of one memory port on the model.
pub(crate) struct MemPins {
    req_valid: PortId,
    req_ready: PortId,
    req_write: PortId,
    req_addr: PortId,
    req_wdata: PortId,
    req_tag: PortId,
    rsp_valid: PortId,
    rsp_tag: PortId,
    rsp_rdata: PortId,
}

impl MemPins {
    pub(crate) fn find(model: &Model, prefix: &str) -> Result<Self, SimError> {
        Ok(MemPins {
            req_valid: model.port(&format!("{prefix}$req_valid"))?,
            req_ready: model.input(&format!("{prefix}$req_ready"))?,
            req_write: model.port(&format!("{prefix}$req_write"))?,
            req_addr: model.port(&format!("{prefix}$req_addr"))?,
            req_wdata: model.port(&format!("{prefix}$req_wdata"))?,
            req_tag: model.port(&format!("{prefix}$req_tag"))?,
            rsp_valid: model.input(&format!("{prefix}$rsp_valid"))?,
            rsp_tag: model.input(&format!("{prefix}$rsp_tag"))?,
            rsp_rdata: model.input(&format!("{prefix}$rsp_rdata"))?,
        })
    }
}

/// The index of one configuration under Verilator.
pub struct IndexSim<'m> {
    model: &'m mut Model,
    config: Config,
    setup: IndexSetup,
    reset: PortId,
    bloom_enable: PortId,
    fsm_limit: PortId,
    cmd_valid: PortId,
    cmd_ready: PortId,
    cmd_op: PortId,
    cmd_fp: PortId,
    cmd_entry: PortId,
    cmd_tag: PortId,
    rsp_valid: PortId,
    rsp_ready: PortId,
    rsp_tag: PortId,
    rsp_status: PortId,
    rsp_entry: PortId,
    rsp_refcount: PortId,
    rsp_flags: PortId,
    stat_ports: [PortId; 6],
    table: Option<(MemPins, MemPort)>,
    fps: (MemPins, MemPort),
}

/// The model name of a configuration's index.
pub fn model_name(config: &Config) -> String {
    format!("index_{}", config.name)
}

/// A fingerprint as the five 32-bit words of the 160-bit port (word 0 = bits 31..0).
pub fn fp_words(fp: &Fingerprint) -> [u32; 5] {
    core::array::from_fn(|i| u32::from_be_bytes(fp[16 - 4 * i..20 - 4 * i].try_into().unwrap()))
}

impl<'m> IndexSim<'m> {
    /// Attaches to `model` (which must be `index_<config>`), resets the index
    /// with `setup` and waits until it takes commands.
    pub fn attach(model: &'m mut Model, config: &Config, setup: IndexSetup) -> Result<Self, SimError> {
        let table = if config.index_table_on_chip {
            None
        } else {
            let pins = MemPins::find(model, "tbl")?;
            Some((pins, MemPort::new(setup.table, 1 << TABLE_ADDR_BITS, 0)))
        };
        let fps = (MemPins::find(model, "fp")?, MemPort::new(setup.fingerprints, config.index_entries(), 0));
        let stat = |n: &str| model.port(&format!("stats${n}"));
        let mut sim = IndexSim {
            reset: model.input("reset")?,
            bloom_enable: model.input("bloom_enable")?,
            fsm_limit: model.input("fsm_limit_log2")?,
            cmd_valid: model.input("cmd$valid")?,
            cmd_ready: model.port("cmd$ready")?,
            cmd_op: model.input("cmd$op")?,
            cmd_fp: model.input("cmd$fp")?,
            cmd_entry: model.input("cmd$entry")?,
            cmd_tag: model.input("cmd$tag")?,
            rsp_valid: model.port("rsp$valid")?,
            rsp_ready: model.input("rsp$ready")?,
            rsp_tag: model.port("rsp$tag")?,
            rsp_status: model.port("rsp$status")?,
            rsp_entry: model.port("rsp$entry")?,
            rsp_refcount: model.port("rsp$refcount")?,
            rsp_flags: model.port("rsp$flags")?,
            stat_ports: [
                stat("commands")?,
                stat("bloom_negatives")?,
                stat("false_positives")?,
                stat("rebuilds")?,
                stat("signature_misses")?,
                stat("entries_used")?,
            ],
            table,
            fps,
            model,
            config: *config,
            setup,
        };
        sim.reset()?;
        Ok(sim)
    }

    /// The configuration simulated.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The setup in force.
    pub fn setup(&self) -> IndexSetup {
        self.setup
    }

    /// Changes the memories' timing from now on (contents are kept).
    pub fn set_memory_timing(&mut self, table: MemTiming, fingerprints: MemTiming) {
        self.setup.table = table;
        self.setup.fingerprints = fingerprints;
        if let Some((_, port)) = &mut self.table {
            port.timing = table;
        }
        self.fps.1.timing = fingerprints;
    }

    /// Pulses reset (applying the setup's Bloom and FSM choices) and waits
    /// until the index has cleared its table and takes commands.
    pub fn reset(&mut self) -> Result<(), SimError> {
        // Reads in flight are forgotten with the index's state.
        if let Some((_, port)) = &mut self.table {
            port.queue.clear();
        }
        self.fps.1.queue.clear();
        let m = &mut *self.model;
        m.set(self.cmd_valid, 0);
        m.set(self.rsp_ready, 0);
        m.set(self.bloom_enable, self.setup.bloom as u64);
        m.set(self.fsm_limit, self.setup.fsm_limit_log2 as u64);
        m.set(self.reset, 1);
        m.eval();
        m.tick();
        m.set(self.reset, 0);
        let limit = 4 * self.config.index_entries() as u64 + 1_000;
        for _ in 0..limit {
            self.serve_memories();
            self.model.eval();
            self.accept_memory_requests().map_err(|e| SimError::Protocol(e.to_string()))?;
            if self.model.get(self.cmd_ready) == 1 {
                return Ok(());
            }
            self.model.tick();
        }
        Err(SimError::Protocol(format!("{} did not leave reset in {limit} cycles", model_name(&self.config))))
    }

    /// The hardware's statistics counters.
    pub fn stats(&mut self) -> IndexStats {
        self.model.eval();
        let s: Vec<u32> = self.stat_ports.iter().map(|p| self.model.get(*p) as u32).collect();
        IndexStats {
            commands: s[0],
            bloom_negatives: s[1],
            false_positives: s[2],
            rebuilds: s[3],
            signature_misses: s[4],
            entries_used: s[5],
        }
    }

    /// The full fingerprint the store holds for `entry` (zeros if never written).
    pub fn stored_fingerprint(&self, entry: u32) -> Fingerprint {
        self.fps.1.fingerprint(entry as usize)
    }

    /// A word of the external table memory (configurations whose table is
    /// behind the port), e.g. a bucket's metadata at `META_REGION | bucket`.
    pub fn table_word(&self, addr: u32) -> Option<u64> {
        self.table.as_ref().map(|(_, port)| port.word64(addr as usize))
    }

    /// Cycles since the model was created.
    pub fn cycles(&self) -> u64 {
        self.model.cycles()
    }

    /// Drives the memory ports' inputs for this cycle: back-pressure and the
    /// oldest due read response.
    fn serve_memories(&mut self) {
        let now = self.model.cycles();
        let model = &mut *self.model;
        for (pins, port) in self.table.iter_mut().chain(std::iter::once(&mut self.fps)) {
            port.drive(model, pins, now);
        }
    }

    /// After `eval`: takes the memory requests the ports accept this cycle.
    fn accept_memory_requests(&mut self) -> Result<(), IndexError> {
        let now = self.model.cycles();
        let model = &mut *self.model;
        if let Some((pins, port)) = self.table.as_mut() {
            port.take(model, pins, now, "table")?;
        }
        self.fps.1.take(model, &self.fps.0, now, "fingerprint")
    }

    /// Sends `commands` with the given traffic pattern and returns the
    /// responses, in the order they left.
    pub fn run(&mut self, commands: &[Command], traffic: Traffic) -> Result<IndexRun, IndexError> {
        let mut cmd_rng = ChaCha8Rng::seed_from_u64(traffic.seed);
        let mut rsp_rng = ChaCha8Rng::seed_from_u64(traffic.seed ^ 0x9e37_79b9_7f4a_7c15);
        if let Some((_, port)) = &mut self.table {
            port.rng = ChaCha8Rng::seed_from_u64(traffic.seed ^ 1);
        }
        self.fps.1.rng = ChaCha8Rng::seed_from_u64(traffic.seed ^ 2);
        let start = self.model.cycles();
        let (mut sent, mut last_progress) = (0usize, start);
        let mut loaded = None;
        let mut responses = Vec::with_capacity(commands.len());
        let (mut taken_at, mut answered_at) = (Vec::with_capacity(commands.len()), Vec::with_capacity(commands.len()));
        while responses.len() < commands.len() {
            let now = self.model.cycles();
            let offer = sent < commands.len() && (traffic.cmd_valid >= 1.0 || cmd_rng.gen_bool(traffic.cmd_valid));
            let take = traffic.rsp_ready >= 1.0 || rsp_rng.gen_bool(traffic.rsp_ready);
            // A command's fields are driven once; they stay while it waits.
            if offer && loaded != Some(sent) {
                loaded = Some(sent);
                let c = &commands[sent];
                self.model.set(self.cmd_op, c.op as u64);
                self.model.set_words(self.cmd_fp, &fp_words(&c.fp));
                self.model.set(self.cmd_entry, c.entry as u64);
                self.model.set(self.cmd_tag, c.tag as u64);
            }
            self.model.set(self.cmd_valid, offer as u64);
            self.model.set(self.rsp_ready, take as u64);
            self.serve_memories();
            self.model.eval();
            if offer && self.model.get(self.cmd_ready) == 1 {
                taken_at.push(now - start);
                sent += 1;
                last_progress = now;
            }
            if take && self.model.get(self.rsp_valid) == 1 {
                let code = self.model.get(self.rsp_status) as u8;
                let status = Status::from_code(code).ok_or(IndexError::BadStatus { index: responses.len(), code })?;
                responses.push(Response {
                    tag: self.model.get(self.rsp_tag) as u8,
                    status,
                    entry: self.model.get(self.rsp_entry) as u16,
                    refcount: self.model.get(self.rsp_refcount) as u8,
                    flags: self.model.get(self.rsp_flags) as u8,
                });
                answered_at.push(now - start);
                last_progress = now;
            }
            self.accept_memory_requests()?;
            self.model.tick();
            if now - last_progress > HANG_CYCLES {
                return Err(IndexError::Hang { cycle: now, idle: HANG_CYCLES, sent, received: responses.len() });
            }
        }
        let cycles = self.model.cycles() - start;
        // No response may follow the last one.
        self.model.set(self.cmd_valid, 0);
        self.model.set(self.rsp_ready, 0);
        for _ in 0..QUIET_CYCLES {
            self.serve_memories();
            self.model.eval();
            if self.model.get(self.rsp_valid) == 1 {
                return Err(IndexError::ExtraResponse { cycle: self.model.cycles() - start, commands: commands.len() });
            }
            self.accept_memory_requests()?;
            self.model.tick();
        }
        Ok(IndexRun { responses, cycles, taken_at, answered_at })
    }

    /// Runs `commands` and checks every response against `golden` (which
    /// executes them too), then the statistics and every allocated entry's
    /// full fingerprint in the store.
    pub fn run_checked(
        &mut self,
        golden: &mut IndexModel,
        commands: &[Command],
        traffic: Traffic,
    ) -> Result<IndexRun, IndexError> {
        let run = self.run(commands, traffic)?;
        for (index, (cmd, got)) in commands.iter().zip(&run.responses).enumerate() {
            let want = golden.execute(cmd);
            if *got != want {
                return Err(IndexError::Mismatch { index, cmd: *cmd, got: *got, want });
            }
        }
        self.check_state(golden)?;
        Ok(run)
    }

    /// Checks the statistics and the fingerprint store against `golden`.
    pub fn check_state(&mut self, golden: &IndexModel) -> Result<(), IndexError> {
        let (got, want) = (self.stats(), golden.stats());
        if got != want {
            return Err(IndexError::Stats { got, want });
        }
        for entry in 0..golden.capacity() as u32 {
            if let Some(fp) = golden.fingerprint(entry) {
                let stored = self.stored_fingerprint(entry);
                if stored != fp {
                    return Err(IndexError::Store {
                        entry,
                        got: crate::hasher::hex(&stored),
                        want: crate::hasher::hex(&fp),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Command streams for tests and benchmarks. Tags count up from 0 (mod 256).
pub mod workload {
    use super::*;
    use ditto_hw::index::Op;
    use rand::seq::SliceRandom;

    /// A random fingerprint.
    pub fn random_fp(rng: &mut ChaCha8Rng) -> Fingerprint {
        rng.gen()
    }

    /// A random fingerprint with the given bucket (low `bucket_bits` bits) and signature.
    pub fn fp_with(rng: &mut ChaCha8Rng, bucket: u32, sig: u32, bucket_bits: usize) -> Fingerprint {
        let mut fp = random_fp(rng);
        let low = u32::from_be_bytes(fp[16..20].try_into().unwrap());
        let mask = (1u32 << bucket_bits) - 1;
        let sig_mask = ((1u32 << ditto_hw::index::SIG_BITS) - 1) << 16;
        let low = (low & !mask & !sig_mask) | (bucket & mask) | ((sig << 16) & sig_mask);
        fp[16..20].copy_from_slice(&low.to_be_bytes());
        fp
    }

    /// Numbers the commands' tags 0, 1, 2, ... (mod 256).
    pub fn tag(mut commands: Vec<Command>) -> Vec<Command> {
        for (i, c) in commands.iter_mut().enumerate() {
            c.tag = i as u8;
        }
        commands
    }

    fn pick(rng: &mut ChaCha8Rng, pool: &[Fingerprint]) -> Fingerprint {
        pool[rng.gen_range(0..pool.len())]
    }

    /// A mix over a pool of fingerprints: `weights` of INSERT, LOOKUP,
    /// DEREF_FP, DEREF_ENTRY (any entry number, some beyond the table),
    /// malformed opcodes and PUT.
    pub fn mix(
        rng: &mut ChaCha8Rng,
        n: usize,
        pool: &[Fingerprint],
        capacity: usize,
        weights: [u32; 6],
    ) -> Vec<Command> {
        let total: u32 = weights.iter().sum();
        let commands = (0..n)
            .map(|_| {
                let mut r = rng.gen_range(0..total);
                let mut kind = 0;
                while r >= weights[kind] {
                    r -= weights[kind];
                    kind += 1;
                }
                match kind {
                    0 => Command::with_fp(Op::Insert, pick(rng, pool), 0),
                    1 => Command::with_fp(Op::Lookup, pick(rng, pool), 0),
                    2 => Command::with_fp(Op::DerefFp, pick(rng, pool), 0),
                    3 => Command::deref_entry(rng.gen_range(0..(capacity + capacity / 16).min(1 << 16)) as u16, 0),
                    4 => Command { op: rng.gen_range(5..8), fp: random_fp(rng), entry: rng.gen(), tag: 0 },
                    _ => Command::with_fp(Op::Put, pick(rng, pool), 0),
                }
            })
            .collect();
        tag(commands)
    }

    /// Mostly INSERTs over a pool a quarter of the table's size: duplicates
    /// everywhere, with lookups, dereferences and some malformed commands.
    pub fn duplicate_rich(rng: &mut ChaCha8Rng, n: usize, capacity: usize) -> Vec<Command> {
        let pool: Vec<_> = (0..capacity / 4).map(|_| random_fp(rng)).collect();
        mix(rng, n, &pool, capacity, [50, 15, 15, 8, 2, 10])
    }

    /// `LOOKUP`s of fingerprints never inserted: into an empty index, each
    /// is a Bloom negative, so `n` past 1,024 carries that counter into
    /// its eleventh bit.
    pub fn absent_lookups(rng: &mut ChaCha8Rng, n: usize) -> Vec<Command> {
        tag((0..n).map(|_| Command::with_fp(Op::Lookup, random_fp(rng), 0)).collect())
    }

    /// `inserts_each` INSERTs of each of `keys` fingerprints (in one
    /// bucket, so they fill its first ways), shuffled, with a LOOKUP of one
    /// of them after every fourth: their counts climb through every bit to
    /// the limit ([`ditto_hw::index::REFCOUNT_MAX`]), where further INSERTs
    /// are refused, and every hit reports the count.
    pub fn hot_counts(rng: &mut ChaCha8Rng, keys: usize, inserts_each: usize, bucket_bits: usize) -> Vec<Command> {
        let bucket = rng.gen_range(0..1u32 << bucket_bits);
        let pool: Vec<_> = (0..keys)
            .map(|_| {
                let sig = rng.gen_range(0..1u32 << ditto_hw::index::SIG_BITS);
                fp_with(rng, bucket, sig, bucket_bits)
            })
            .collect();
        let mut inserts: Vec<Fingerprint> = pool.iter().flat_map(|fp| std::iter::repeat_n(*fp, inserts_each)).collect();
        inserts.shuffle(rng);
        let mut commands = Vec::with_capacity(inserts.len() * 5 / 4);
        for (i, fp) in inserts.into_iter().enumerate() {
            commands.push(Command::with_fp(Op::Insert, fp, 0));
            if i % 4 == 3 {
                commands.push(Command::with_fp(Op::Lookup, pick(rng, &pool), 0));
            }
        }
        tag(commands)
    }

    /// INSERTs of new fingerprints only.
    pub fn all_new(rng: &mut ChaCha8Rng, n: usize) -> Vec<Command> {
        tag((0..n).map(|_| Command::with_fp(Op::Insert, random_fp(rng), 0)).collect())
    }

    /// As many DEREFs as INSERTs over a pool half the table's size.
    pub fn deref_churn(rng: &mut ChaCha8Rng, n: usize, capacity: usize) -> Vec<Command> {
        let pool: Vec<_> = (0..capacity / 2).map(|_| random_fp(rng)).collect();
        mix(rng, n, &pool, capacity, [40, 5, 40, 10, 0, 5])
    }

    /// Three hot buckets, fingerprints sharing few signatures (so signature
    /// misses happen), four times more fingerprints than the buckets hold:
    /// full chains, and the lock table serializing every command on a bucket.
    pub fn hot_buckets(rng: &mut ChaCha8Rng, n: usize, bucket_bits: usize) -> Vec<Command> {
        let buckets: Vec<u32> = (0..3).map(|_| rng.gen_range(0..1u32 << bucket_bits)).collect();
        let sigs: Vec<u32> = (0..6).map(|_| rng.gen_range(0..1u32 << ditto_hw::index::SIG_BITS)).collect();
        let pool: Vec<_> =
            (0..96).map(|i| fp_with(rng, buckets[i % 3], sigs[(i / 3) % sigs.len()], bucket_bits)).collect();
        let capacity = ditto_hw::index::WAYS << bucket_bits;
        let mut commands = mix(rng, n, &pool, capacity, [40, 20, 25, 5, 0, 10]);
        // DEREF_ENTRY on the hot buckets' ways.
        for c in commands.iter_mut().filter(|c| c.op == Op::DerefEntry as u8) {
            c.entry = (buckets[rng.gen_range(0..3)] * ditto_hw::index::WAYS as u32 + rng.gen_range(0..8)) as u16;
        }
        commands
    }

    /// `DEREF_ENTRY` of up to `n` entries the model holds, each followed by
    /// a `LOOKUP` of the fingerprint it held and an `INSERT` that takes the
    /// reference back: an index that drops a reference of the wrong entry
    /// answers the lookup differently. Every other entry gets an `INSERT`
    /// first, so its dereference leaves it live: the way is written back
    /// with the signature the FSM read (a dereference by number does not
    /// know the key), and the lookup after it checks that signature.
    pub fn deref_live(rng: &mut ChaCha8Rng, golden: &IndexModel, n: usize) -> Vec<Command> {
        let mut live: Vec<(u16, Fingerprint)> = (0..golden.capacity() as u32)
            .filter_map(|entry| golden.fingerprint(entry).map(|fp| (entry as u16, fp)))
            .collect();
        live.shuffle(rng);
        let mut commands = Vec::new();
        for (i, (entry, fp)) in live.into_iter().take(n).enumerate() {
            if i % 2 == 0 {
                commands.push(Command::with_fp(Op::Insert, fp, 0));
            }
            commands.push(Command::deref_entry(entry, 0));
            commands.push(Command::with_fp(Op::Lookup, fp, 0));
            commands.push(Command::with_fp(Op::Insert, fp, 0));
        }
        tag(commands)
    }

    /// Bursts of two to eight commands on one fingerprint back to back,
    /// mostly INSERTs and PUTs: races between FSMs on the same fingerprint.
    pub fn same_fp_races(rng: &mut ChaCha8Rng, n: usize) -> Vec<Command> {
        let mut commands = Vec::with_capacity(n);
        while commands.len() < n {
            let fp = random_fp(rng);
            for _ in 0..rng.gen_range(2..=8) {
                let op = match rng.gen_range(0..8) {
                    0..=3 => Op::Insert,
                    4 | 5 => Op::Put,
                    _ => Op::DerefFp,
                };
                commands.push(Command::with_fp(op, fp, 0));
            }
        }
        commands.truncate(n);
        tag(commands)
    }
}
