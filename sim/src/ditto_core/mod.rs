//! Cosimulation of the whole core (`core_<config>`): [`CoreSim`] sends
//! commands and streams the pages of `WRITE`s into the SHA-1 lanes, serves
//! the index's two memory ports and the FTL memory from Rust models, takes
//! the relocations and responses, and keeps a **backing store** (what each
//! physical page holds) by doing what a host must: write a unique page's data
//! at its PPA and move data as relocations say.
//!
//! [`CoreSim::run_checked`] compares each response, the relocations before it
//! and the counters with the golden model ([`CoreModel`]), replaying the
//! hardware's background-cleaner steps into the model where they happened,
//! and checks the data: a duplicate's PPA must hold the content written, and
//! every LPA must read back its last content.
use crate::hasher::hex;
use crate::index::{fp_words, IndexError, MemPins, MemPort, MemTiming};
use crate::stream::PageStream;
use crate::{Model, PortId, SimError};
use ditto_hw::ftl::flash::Relocation;
use ditto_hw::ftl::model::{Command, CoreModel, Response};
use ditto_hw::ftl::{layout, region, Op, Status, STATS};
use ditto_hw::index::model::IndexStats;
use ditto_hw::index::{Fingerprint, TABLE_ADDR_BITS};
use ditto_hw::Config;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::borrow::BorrowMut;
use std::collections::{HashMap, VecDeque};

mod types;
pub mod workload;

pub use types::{CoreRun, CoreSetup, HostTraffic, Job, Page};

/// A cosimulation failure.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error(transparent)]
    Memory(#[from] IndexError),
    #[error(
        "the core made no progress for {idle} cycles at cycle {cycle} ({sent} commands in, {received} responses out)"
    )]
    Hang { cycle: u64, idle: u64, sent: usize, received: usize },
    #[error(
        "the core kept busy for {busy} cycles without answering, at cycle {cycle} ({sent} commands in, {received} responses out): a livelock"
    )]
    Livelock { cycle: u64, busy: u64, sent: usize, received: usize },
    #[error("response {index} has the unknown status code {code}")]
    BadStatus { index: usize, code: u8 },
    #[error("command {index} {cmd:?}: hardware answered {got:?}, the golden model {want:?}; before it:\n{context}")]
    Mismatch { index: usize, cmd: Command, got: Response, want: Response, context: String },
    #[error("command {index} {cmd:?}: hardware relocated {got:?}, the golden model {want:?}")]
    Moves { index: usize, cmd: Command, got: Vec<Relocation>, want: Vec<Relocation> },
    #[error("the golden model has no queued entry for the hardware's cleaner step before command {index}")]
    Cleaner { index: usize },
    #[error("counters after the run: hardware {got:?}, golden model {want:?}")]
    Counters { got: [u32; STATS], want: [u32; STATS] },
    #[error("index counters after the run: hardware {got:?}, golden model {want:?}")]
    IndexCounters { got: IndexStats, want: IndexStats },
    #[error("tables: {0}")]
    Tables(String),
    #[error("data: {0}")]
    Data(String),
    #[error("the FTL memory got a request for {addr:#x}, beyond its region")]
    BadAddress { addr: u32 },
    #[error("the FTL memory got {word:#018x} for {addr:#x}, a `{region}` word, with bits {stray:#018x} that no field of it owns")]
    StrayBits { addr: u32, region: &'static str, word: u64, stray: u64 },
    #[error("golden model invariant: {0}")]
    Invariant(String),
}

const HANG_CYCLES: u64 = 200_000;
/// Cycles the core may stay busy (moves, memory traffic) without a
/// response while it owes one: past this, a livelock. As long as the
/// cleaner's drain: the first command after reset waits for the tables to
/// be initialised, over 1,000,000 cycles for 50,000 LPAs.
const LIVELOCK_CYCLES: u64 = 64 * HANG_CYCLES;
/// Cycles the cleaner may take to drain its backlog after a run.
const DRAIN_CYCLES: u64 = 64 * HANG_CYCLES;

/// The FTL memory: one 64-bit word per address, regions bounded.
struct FtlMemory {
    timing: MemTiming,
    rng: ChaCha8Rng,
    words: HashMap<u32, u64>,
    limits: [u32; 16],
    /// Per region, the bits its fields own (`layout.rs`): a word written
    /// with any other bit set is an error.
    owned: [(u64, &'static str); 16],
    queue: VecDeque<(u64, u64)>,
    req_ready: bool,
    presenting: bool,
    /// Requests accepted so far: the controller at work (initialising its
    /// tables after a reset takes a write per LPA) is not a hang.
    accepted: u64,
}

impl FtlMemory {
    fn new(timing: MemTiming, setup: &CoreSetup, entries: u32) -> Self {
        let g = setup.geometry;
        let mut limits = [0u32; 16];
        limits[region::L2P as usize] = setup.lpas;
        limits[region::PAGE as usize] = g.pages();
        limits[region::ENTRY as usize] = entries;
        // PPAs and global blocks are bit fields (see `Geometry::ppa`).
        limits[region::REV as usize] = 1 << 24;
        limits[region::BLK as usize] = 1 << 16;
        limits[region::DEV as usize] = g.devices;
        limits[region::DEVV as usize] = g.devices;
        limits[region::FREE as usize] = 1 << 16;
        limits[region::STALE as usize] = 1 << 16;
        limits[region::PIDS as usize] = g.pages();
        limits[region::SLOT as usize] = setup.nvm.slots;
        limits[region::SFREE as usize] = setup.nvm.slots;
        limits[region::PSLOT as usize] = g.pages();
        let mut owned = [(0, "none"); 16];
        for r in ditto_hw::ftl::layout::REGIONS {
            let bits = r.fields.iter().fold(0u64, |m, f| m | (u64::MAX >> (64 - f.width)) << f.offset);
            owned[r.number as usize] = (bits, r.name);
        }
        FtlMemory {
            timing,
            rng: ChaCha8Rng::seed_from_u64(0),
            words: HashMap::new(),
            limits,
            owned,
            queue: VecDeque::new(),
            req_ready: false,
            presenting: false,
            accepted: 0,
        }
    }
}

/// The whole core of one configuration under Verilator.
pub struct CoreSim<M: BorrowMut<Model>> {
    model: M,
    /// Compare the controller's tables with the model after each checked run.
    check_tables: bool,
    /// Check the model's invariants and compare the counters after each
    /// checked run (else only in [`CoreSim::check_state`]).
    check_each_run: bool,
    config: Config,
    setup: CoreSetup,
    pins: Pins,
    /// The page stream's data input (32-bit words or 256-bit beats).
    stream: PageStream,
    cleaner_hold: PortId,
    idx_stat_ports: Vec<PortId>,
    tbl: (MemPins, MemPort),
    fps: (MemPins, MemPort),
    mem: FtlMemory,
    /// What each physical page holds (the fingerprint of its content).
    store: HashMap<u32, Fingerprint>,
    /// The content each LPA was last written with (by acknowledged writes).
    content: HashMap<u32, Fingerprint>,
}

struct Pins {
    reset: PortId,
    bloom_enable: PortId,
    fsm_limit: PortId,
    cfg_dev_bits: PortId,
    cfg_block_bits: PortId,
    cfg_page_bits: PortId,
    cfg_reserve: PortId,
    cfg_lpas: PortId,
    cfg_array_wide: PortId,
    cfg_refcount_max: PortId,
    cfg_nvm_slots: PortId,
    cfg_nvm_cooperative: PortId,
    cmd_valid: PortId,
    cmd_ready: PortId,
    cmd_op: PortId,
    cmd_tag: PortId,
    cmd_lpa: PortId,
    cmd_fp: PortId,
    page_valid: PortId,
    page_ready: PortId,
    rsp_valid: PortId,
    rsp_ready: PortId,
    rsp_tag: PortId,
    rsp_status: PortId,
    rsp_value: PortId,
    rsp_flags: PortId,
    mv_valid: PortId,
    mv_ready: PortId,
    mv_from: PortId,
    mv_to: PortId,
    cleaned: PortId,
    idle: PortId,
    mem_req_valid: PortId,
    mem_req_ready: PortId,
    mem_req_write: PortId,
    mem_req_addr: PortId,
    mem_req_wdata: PortId,
    mem_rsp_valid: PortId,
    mem_rsp_rdata: PortId,
}

/// The model name of a configuration's whole core.
pub fn model_name(config: &Config) -> String {
    format!("core_{}", config.name)
}

impl<M: BorrowMut<Model>> CoreSim<M> {
    /// Attaches to `model` (`core_<config>`), resets the core with `setup`
    /// and waits until it takes commands.
    pub fn attach(mut model: M, config: &Config, setup: CoreSetup) -> Result<Self, SimError> {
        let model_ref: &mut Model = model.borrow_mut();
        let p = |n: &str| model_ref.port(n);
        let i = |n: &str| model_ref.input(n);
        let pins = Pins {
            reset: i("reset")?,
            bloom_enable: i("bloom_enable")?,
            fsm_limit: i("fsm_limit_log2")?,
            cfg_dev_bits: i("cfg$dev_bits")?,
            cfg_block_bits: i("cfg$block_bits")?,
            cfg_page_bits: i("cfg$page_bits")?,
            cfg_reserve: i("cfg$reserve")?,
            cfg_lpas: i("cfg$lpas")?,
            cfg_array_wide: i("cfg$array_wide")?,
            cfg_refcount_max: i("cfg$refcount_max")?,
            cfg_nvm_slots: i("cfg$nvm_slots")?,
            cfg_nvm_cooperative: i("cfg$nvm_cooperative")?,
            cmd_valid: i("cmd$valid")?,
            cmd_ready: p("cmd$ready")?,
            cmd_op: i("cmd$op")?,
            cmd_tag: i("cmd$tag")?,
            cmd_lpa: i("cmd$lpa")?,
            cmd_fp: i("cmd$fp")?,
            page_valid: i("page$valid")?,
            page_ready: p("page$ready")?,
            rsp_valid: p("rsp$valid")?,
            rsp_ready: i("rsp$ready")?,
            rsp_tag: p("rsp$tag")?,
            rsp_status: p("rsp$status")?,
            rsp_value: p("rsp$value")?,
            rsp_flags: p("rsp$flags")?,
            mv_valid: p("mv$valid")?,
            mv_ready: i("mv$ready")?,
            mv_from: p("mv$from")?,
            mv_to: p("mv$to")?,
            cleaned: p("cleaned")?,
            idle: p("idle")?,
            mem_req_valid: p("mem$req_valid")?,
            mem_req_ready: i("mem$req_ready")?,
            mem_req_write: p("mem$req_write")?,
            mem_req_addr: p("mem$req_addr")?,
            mem_req_wdata: p("mem$req_wdata")?,
            mem_rsp_valid: i("mem$rsp_valid")?,
            mem_rsp_rdata: i("mem$rsp_rdata")?,
        };
        let stream = PageStream::find(model_ref)?;
        let cleaner_hold = i("cleaner_hold")?;
        let idx_stat_ports = ["commands", "bloom_negatives", "false_positives", "rebuilds", "signature_misses"]
            .iter()
            .chain(&["entries_used"])
            .map(|n| p(&format!("idx_stats${n}")))
            .collect::<Result<Vec<_>, _>>()?;
        let tbl = (MemPins::find(model_ref, "tbl")?, MemPort::new(setup.memory, 1 << TABLE_ADDR_BITS, 0));
        let fps = (MemPins::find(model_ref, "fp")?, MemPort::new(setup.memory, config.index_entries(), 0));
        let mem = FtlMemory::new(setup.memory, &setup, config.index_entries() as u32);
        let mut sim = CoreSim {
            model,
            check_tables: true,
            check_each_run: true,
            config: *config,
            setup,
            pins,
            stream,
            cleaner_hold,
            idx_stat_ports,
            tbl,
            fps,
            mem,
            store: HashMap::new(),
            content: HashMap::new(),
        };
        sim.reset()?;
        Ok(sim)
    }

    pub fn config(&self) -> &Config {
        &self.config
    }
    /// Whether [`Self::run_checked`] compares the controller's tables with
    /// the model (on by default; a scan of every LPA and page id).
    pub fn set_table_checks(&mut self, on: bool) {
        self.check_tables = on;
    }
    /// Whether [`Self::run_checked`] ends with the whole-state checks of
    /// [`Self::check_state`] (on by default). They scan every LPA and page
    /// (and on a core without counter ports read the counters with twelve
    /// `STATS` commands), so a host that sends one request at a time turns
    /// them off and calls [`Self::check_state`] at its flushes; every
    /// response and relocation is still compared as it comes.
    pub fn set_checks_after_each_run(&mut self, on: bool) {
        self.check_each_run = on;
    }
    pub fn setup(&self) -> CoreSetup {
        self.setup
    }
    /// The golden model of this setup, empty.
    pub fn golden(&self) -> CoreModel {
        CoreModel::new(self.setup.core_config(&self.config))
    }
    pub fn cycles(&self) -> u64 {
        self.model.borrow().cycles()
    }

    /// Pulses reset and waits until the core has initialised its tables.
    pub fn reset(&mut self) -> Result<(), SimError> {
        self.tbl.1.clear_queue();
        self.fps.1.clear_queue();
        self.mem.queue.clear();
        self.store.clear();
        self.content.clear();
        let cfg = self.setup.ftl_settings();
        let (pins, m) = (&self.pins, self.model.borrow_mut());
        for (port, value) in [
            (pins.cmd_valid, 0),
            (pins.page_valid, 0),
            (pins.rsp_ready, 0),
            (pins.mv_ready, 0),
            (pins.bloom_enable, self.setup.bloom as u64),
            (pins.fsm_limit, self.config.index_fsms.trailing_zeros() as u64),
            (pins.cfg_dev_bits, cfg.dev_bits),
            (pins.cfg_block_bits, cfg.block_bits),
            (pins.cfg_page_bits, cfg.page_bits),
            (pins.cfg_reserve, cfg.reserve),
            (pins.cfg_lpas, cfg.lpas),
            (pins.cfg_array_wide, cfg.array_wide as u64),
            (pins.cfg_refcount_max, cfg.refcount_max),
            (pins.cfg_nvm_slots, cfg.nvm_slots),
            (pins.cfg_nvm_cooperative, cfg.nvm_cooperative as u64),
            (pins.reset, 1),
        ] {
            m.set(port, value);
        }
        m.eval();
        m.tick();
        m.set(pins.reset, 0);
        // The controller initialises its tables now; a command offered
        // meanwhile simply waits (its memory traffic counts as progress).
        self.drive_memories();
        self.model.borrow_mut().eval();
        self.take_memory_requests().map_err(|e| SimError::Protocol(e.to_string()))?;
        Ok(())
    }

    /// The core's counters (by [`Stat`] number), read with `STATS`
    /// commands, the cleaner held meanwhile (so the golden model sees no
    /// step).
    pub fn counters(&mut self) -> [u32; STATS] {
        let jobs: Vec<Job> = (0..STATS as u32).map(|k| workload::job(Op::Stats, k as u8, k, 0)).collect();
        self.model.borrow_mut().set(self.cleaner_hold, 1);
        let run = self.run(&jobs, HostTraffic::FULL_SPEED);
        self.model.borrow_mut().set(self.cleaner_hold, 0);
        let run = run.unwrap_or_else(|e| panic!("reading the counters with STATS: {e}"));
        assert_eq!(run.trailing_cleaner_steps + run.cleaner_steps.iter().sum::<u32>(), 0, "the cleaner was held");
        core::array::from_fn(|i| {
            let r = run.responses[i];
            assert_eq!(r.status, Status::Done, "STATS {i}");
            r.value
        })
    }

    /// The index's counters.
    pub fn index_stats(&mut self) -> IndexStats {
        self.model.borrow_mut().eval();
        let s: Vec<u32> = self.idx_stat_ports.iter().map(|p| self.model.borrow_mut().get(*p) as u32).collect();
        IndexStats {
            commands: s[0],
            bloom_negatives: s[1],
            false_positives: s[2],
            rebuilds: s[3],
            signature_misses: s[4],
            entries_used: s[5],
        }
    }

    fn drive_memories(&mut self) {
        let now = self.model.borrow_mut().cycles();
        let m = self.model.borrow_mut();
        self.tbl.1.drive(m, &self.tbl.0, now);
        self.fps.1.drive(m, &self.fps.0, now);
        let mem = &mut self.mem;
        mem.req_ready = mem.timing.ready >= 1.0 || mem.rng.gen_bool(mem.timing.ready);
        m.set(self.pins.mem_req_ready, mem.req_ready as u64);
        mem.presenting = false;
        match mem.queue.front() {
            Some(&(due, data)) if due <= now => {
                m.set(self.pins.mem_rsp_valid, 1);
                m.set(self.pins.mem_rsp_rdata, data);
                mem.presenting = true;
            }
            _ => m.set(self.pins.mem_rsp_valid, 0),
        }
    }

    fn take_memory_requests(&mut self) -> Result<(), CoreError> {
        let now = self.model.borrow_mut().cycles();
        let m = self.model.borrow_mut();
        self.tbl.1.take(m, &self.tbl.0, now, "table")?;
        self.fps.1.take(m, &self.fps.0, now, "fingerprint")?;
        let mem = &mut self.mem;
        if mem.presenting {
            mem.queue.pop_front();
        }
        if mem.req_ready && m.get(self.pins.mem_req_valid) == 1 {
            mem.accepted += 1;
            let addr = m.get(self.pins.mem_req_addr) as u32;
            if addr & 0x0fff_ffff >= mem.limits[(addr >> 28) as usize] {
                return Err(CoreError::BadAddress { addr });
            }
            if m.get(self.pins.mem_req_write) == 1 {
                let word = m.get(self.pins.mem_req_wdata);
                let (owned, region) = mem.owned[(addr >> 28) as usize];
                if word & !owned != 0 {
                    return Err(CoreError::StrayBits { addr, region, word, stray: word & !owned });
                }
                mem.words.insert(addr, word);
            } else {
                mem.queue.push_back((now + mem.timing.latency, mem.words.get(&addr).copied().unwrap_or(0)));
            }
        }
        Ok(())
    }

    /// Sends `jobs` (streaming the pages of `WRITE`s as fast as the lanes and
    /// `traffic` allow) and collects the responses and relocations.
    pub fn run(&mut self, jobs: &[Job], traffic: HostTraffic) -> Result<CoreRun, CoreError> {
        let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
        self.tbl.1.reseed(traffic.seed ^ 1);
        self.fps.1.reseed(traffic.seed ^ 2);
        self.mem.rng = ChaCha8Rng::seed_from_u64(traffic.seed ^ 3);
        let pages: Vec<usize> = (0..jobs.len()).filter(|&j| jobs[j].page.is_some()).collect();
        let (mut next_page, mut word) = (0usize, 0usize);
        let start = self.model.borrow_mut().cycles();
        let (mut sent, mut last_progress, mut last_answer) = (0usize, start, start);
        let mut loaded = None;
        let mut run = CoreRun { page_done_at: vec![None; jobs.len()], ..Default::default() };
        let mut moves = Vec::new();
        let mut steps = 0u32;
        while run.responses.len() < jobs.len() {
            let now = self.model.borrow_mut().cycles();
            let p = &self.pins;
            // A command once offered stays offered until it is taken (the
            // core reads it where it is); stalls only delay an offer.
            let offer = sent < jobs.len()
                && (loaded == Some(sent) || traffic.cmd_valid >= 1.0 || rng.gen_bool(traffic.cmd_valid));
            if offer && loaded != Some(sent) {
                loaded = Some(sent);
                let c = &jobs[sent].cmd;
                self.model.borrow_mut().set(p.cmd_op, c.op as u64);
                self.model.borrow_mut().set(p.cmd_tag, c.tag as u64);
                self.model.borrow_mut().set(p.cmd_lpa, c.lpa as u64);
                self.model.borrow_mut().set_words(p.cmd_fp, &fp_words(&c.fp));
            }
            self.model.borrow_mut().set(p.cmd_valid, offer as u64);
            let page_offer = next_page < pages.len() && (traffic.page_valid >= 1.0 || rng.gen_bool(traffic.page_valid));
            if page_offer {
                let page = jobs[pages[next_page]].page.as_ref().unwrap();
                self.stream.load(self.model.borrow_mut(), &page[..], word);
            }
            self.model.borrow_mut().set(p.page_valid, page_offer as u64);
            let take = traffic.rsp_ready >= 1.0 || rng.gen_bool(traffic.rsp_ready);
            let take_mv = traffic.mv_ready >= 1.0 || rng.gen_bool(traffic.mv_ready);
            self.model.borrow_mut().set(p.rsp_ready, take as u64);
            self.model.borrow_mut().set(p.mv_ready, take_mv as u64);
            self.drive_memories();
            self.model.borrow_mut().eval();
            let p = &self.pins;
            if offer && self.model.borrow_mut().get(p.cmd_ready) == 1 {
                run.taken_at.push(now - start);
                sent += 1;
                last_progress = now;
            }
            if page_offer && self.model.borrow_mut().get(p.page_ready) == 1 {
                word += 1;
                if word == self.stream.transfers_per_page() {
                    run.page_done_at[pages[next_page]] = Some(now - start);
                    word = 0;
                    next_page += 1;
                }
                last_progress = now;
            }
            if self.model.borrow_mut().get(p.cleaned) == 1 {
                steps += 1;
            }
            if take_mv && self.model.borrow_mut().get(p.mv_valid) == 1 {
                let (from, to) =
                    (self.model.borrow_mut().get(p.mv_from) as u32, self.model.borrow_mut().get(p.mv_to) as u32);
                moves.push(Relocation { owner: 0, from, to });
                last_progress = now;
            }
            if take && self.model.borrow_mut().get(p.rsp_valid) == 1 {
                let code = self.model.borrow_mut().get(p.rsp_status) as u8;
                let index = run.responses.len();
                let status = Status::from_u8(code).ok_or(CoreError::BadStatus { index, code })?;
                run.responses.push(Response {
                    tag: self.model.borrow_mut().get(p.rsp_tag) as u8,
                    status,
                    value: self.model.borrow_mut().get(p.rsp_value) as u32,
                    flags: self.model.borrow_mut().get(p.rsp_flags) as u8,
                });
                run.moves.push(std::mem::take(&mut moves));
                run.cleaner_steps.push(std::mem::take(&mut steps));
                run.answered_at.push(now - start);
                last_progress = now;
                last_answer = now;
            }
            let accepted = self.mem.accepted;
            self.take_memory_requests()?;
            if self.mem.accepted != accepted {
                last_progress = now;
            }
            self.model.borrow_mut().tick();
            if now - last_progress > HANG_CYCLES {
                return Err(CoreError::Hang { cycle: now, idle: HANG_CYCLES, sent, received: run.responses.len() });
            }
            // Owing nothing, the core may idle; owing a response, it may
            // be busy only so long after its last one.
            if run.responses.len() >= sent {
                last_answer = now;
            } else if now - last_answer > LIVELOCK_CYCLES {
                return Err(CoreError::Livelock {
                    cycle: now,
                    busy: LIVELOCK_CYCLES,
                    sent,
                    received: run.responses.len(),
                });
            }
        }
        run.cycles = self.model.borrow_mut().cycles() - start;
        // Let the cleaner work in the idle gap that follows, as a host that
        // pauses would, and stop between two of its steps; its steps are
        // replayed into the model.
        self.model.borrow_mut().set(self.pins.cmd_valid, 0);
        self.model.borrow_mut().set(self.pins.page_valid, 0);
        self.model.borrow_mut().set(self.pins.rsp_ready, 0);
        // A cleaner step is progress: a long backlog is not a hang.
        let mut quiet = 0u64;
        for cycle in 0.. {
            self.drive_memories();
            self.model.borrow_mut().eval();
            if cycle >= 256 && self.model.borrow_mut().get(self.pins.idle) == 1 {
                // `idle` also says the cleaner has nothing left (the
                // controller's contract), so it ends a drain too.
                break;
            }
            if cycle > DRAIN_CYCLES {
                return Err(CoreError::Livelock {
                    cycle: self.model.borrow_mut().cycles(),
                    busy: DRAIN_CYCLES,
                    sent,
                    received: jobs.len(),
                });
            }
            if quiet > HANG_CYCLES {
                return Err(CoreError::Hang {
                    cycle: self.model.borrow_mut().cycles(),
                    idle: HANG_CYCLES,
                    sent,
                    received: jobs.len(),
                });
            }
            if self.model.borrow_mut().get(self.pins.rsp_valid) == 1
                || self.model.borrow_mut().get(self.pins.mv_valid) == 1
            {
                return Err(CoreError::Data("a response or relocation came after the last response".into()));
            }
            quiet += 1;
            if self.model.borrow_mut().get(self.pins.cleaned) == 1 {
                steps += 1;
                quiet = 0;
            }
            self.take_memory_requests()?;
            self.model.borrow_mut().tick();
        }
        run.trailing_cleaner_steps = steps;
        Ok(run)
    }

    /// Runs `jobs` and checks every response and relocation against
    /// `golden`, the backing store's data, and afterwards the counters.
    pub fn run_checked(
        &mut self,
        golden: &mut CoreModel,
        jobs: &[Job],
        traffic: HostTraffic,
    ) -> Result<CoreRun, CoreError> {
        let run = self.run(jobs, traffic)?;
        for (index, job) in jobs.iter().enumerate() {
            for _ in 0..run.cleaner_steps[index] {
                if !golden.clean_step() {
                    return Err(CoreError::Cleaner { index });
                }
            }
            let cmd = job.model_command();
            let (want, want_moves) = golden.execute(&cmd);
            let got = run.responses[index];
            if got != want {
                let context = (index.saturating_sub(12)..index)
                    .map(|i| {
                        let c = jobs[i].model_command();
                        format!(
                            "  {i}: op {} lpa {} fp {} -> {:?} after {} cleaner steps, moves {:?}",
                            c.op,
                            c.lpa,
                            crate::hasher::hex(&c.fp[..4]),
                            run.responses[i],
                            run.cleaner_steps[i],
                            run.moves[i]
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
                    + &format!("\n  its relocations: hardware {:?}, golden model {:?}", run.moves[index], want_moves);
                return Err(CoreError::Mismatch { index, cmd, got, want, context });
            }
            let want_moves: Vec<Relocation> =
                want_moves.into_iter().map(|r| Relocation { owner: 0, from: r.from, to: r.to }).collect();
            if run.moves[index] != want_moves {
                return Err(CoreError::Moves { index, cmd, got: run.moves[index].clone(), want: want_moves });
            }
            self.apply_to_store(&cmd, &got, &run.moves[index])
                .map_err(|e| CoreError::Data(format!("command {index}: {e}")))?;
        }
        for _ in 0..run.trailing_cleaner_steps {
            if !golden.clean_step() {
                return Err(CoreError::Cleaner { index: jobs.len() });
            }
        }
        if self.check_each_run {
            self.check_state(golden)?;
        }
        Ok(run)
    }

    /// The whole-state checks: the model's own invariants, the core's and
    /// the index's counters against the model's, and (if on) the tables.
    pub fn check_state(&mut self, golden: &CoreModel) -> Result<(), CoreError> {
        golden.check_invariants().map_err(CoreError::Invariant)?;
        self.check_counters(golden)?;
        if self.check_tables {
            self.check_tables(golden)?;
        }
        Ok(())
    }

    /// Word `index` of `region` of the FTL memory (0 if never written).
    pub fn ftl_word(&self, region: u32, index: u32) -> u64 {
        self.mem.words.get(&ditto_hw::ftl::mem_addr(region, index)).copied().unwrap_or(0)
    }

    /// Compares the controller's tables in FTL memory with `golden`: every
    /// LPA's mapping, and every live page's record (PPA, reference count,
    /// version, index entry), so the hardware's reference counts add up;
    /// and every index entry in use holds the model's fingerprint, so a
    /// core that stores its keys altered (however consistently) is seen.
    pub fn check_tables(&self, golden: &CoreModel) -> Result<(), CoreError> {
        for lpa in 0..self.setup.lpas {
            let word = self.ftl_word(region::L2P, lpa);
            let got = (layout::l2p::MAPPED.get(word) == 1).then_some(layout::l2p::PID.get(word) as u32);
            if got != golden.pid_of(lpa) {
                return Err(CoreError::Tables(format!(
                    "L2P[{lpa}]: hardware {got:?}, golden model {:?}",
                    golden.pid_of(lpa)
                )));
            }
        }
        for pid in 0..self.setup.geometry.pages() {
            let (ppa, rc, version, entry) = golden.page_record(pid);
            if rc == 0 {
                continue;
            }
            let w = self.ftl_word(region::PAGE, pid);
            let got = (
                layout::page::PPA.get(w) as u32 | (layout::page::IN_NVM.get(w) as u32) << 24,
                layout::page::REFCOUNT.get(w) as u32,
                layout::page::VERSION.get(w) as u8,
                (layout::page::HAS_ENTRY.get(w) == 1).then_some(layout::page::ENTRY.get(w) as u16),
            );
            if got != (ppa, rc, version, entry) {
                return Err(CoreError::Tables(format!(
                    "PAGE[{pid}] (ppa, refcount, version, entry): hardware {got:?}, golden model {:?}",
                    (ppa, rc, version, entry)
                )));
            }
        }
        // Each device's record: its free blocks and the pages it owes room
        // for, its valid ones and the NVM's dirty ones (what garbage
        // collection and a write's room decide by).
        let flash = golden.flash();
        for device in 0..self.setup.geometry.devices {
            let free = layout::dev::FREE.get(self.ftl_word(region::DEV, device));
            let valid = layout::devv::VALID.get(self.ftl_word(region::DEVV, device));
            let owed = flash.valid_pages(device) + golden.nvm_dirty_on(device);
            let want = (flash.free_blocks(device) as u64, owed as u64);
            if (free, valid) != want {
                return Err(CoreError::Tables(format!(
                    "device {device} (free blocks, valid pages): hardware {:?}, golden model {want:?}",
                    (free, valid)
                )));
            }
        }
        for entry in 0..self.config.index_entries() as u32 {
            let Some(want) = golden.entry_fingerprint(entry) else { continue };
            let stored = self.fps.1.fingerprint(entry as usize);
            if stored != want {
                return Err(CoreError::Tables(format!(
                    "index entry {entry}'s fingerprint: hardware {}, golden model {}",
                    hex(&stored),
                    hex(&want)
                )));
            }
        }
        Ok(())
    }

    /// Compares the core's and the index's counters with `golden`.
    pub fn check_counters(&mut self, golden: &CoreModel) -> Result<(), CoreError> {
        let (got, want) = (self.counters(), golden.counters());
        if got != want {
            return Err(CoreError::Counters { got, want });
        }
        let (got, want) = (self.index_stats(), golden.index_stats());
        if got != want {
            return Err(CoreError::IndexCounters { got, want });
        }
        Ok(())
    }

    /// Does what the host does with a response: moves data as relocated,
    /// stores a unique page's data, and checks that a duplicate's or a
    /// read's PPA holds the LPA's content.
    fn apply_to_store(&mut self, cmd: &Command, rsp: &Response, moves: &[Relocation]) -> Result<(), String> {
        // Moves happen in order; a page's old copy stays readable until its
        // block is rewritten, which no later move of the same batch does.
        for m in moves {
            let data = *self.store.get(&m.from).ok_or(format!("relocation from {} which holds nothing", m.from))?;
            self.store.insert(m.to, data);
        }
        match rsp.status {
            Status::Unique => {
                self.store.insert(rsp.value, cmd.fp);
                self.content.insert(cmd.lpa, cmd.fp);
            }
            Status::Duplicate => {
                let held = self.store.get(&rsp.value);
                if held != Some(&cmd.fp) {
                    return Err(format!(
                        "duplicate of lpa {} mapped to ppa {} which holds other data",
                        cmd.lpa, rsp.value
                    ));
                }
                self.content.insert(cmd.lpa, cmd.fp);
            }
            Status::Mapped => {
                let want = self
                    .content
                    .get(&cmd.lpa)
                    .ok_or(format!("lpa {} reads as mapped but was never written", cmd.lpa))?;
                if self.store.get(&rsp.value) != Some(want) {
                    return Err(format!(
                        "lpa {} reads ppa {} which does not hold its last content",
                        cmd.lpa, rsp.value
                    ));
                }
            }
            Status::Unmapped if cmd.op == Op::Read as u8 && self.content.contains_key(&cmd.lpa) => {
                return Err(format!("lpa {} was written but reads as unmapped", cmd.lpa));
            }
            Status::Trimmed => {
                self.content.remove(&cmd.lpa);
            }
            Status::Done if cmd.op == Op::Reset as u8 => {
                self.content.clear();
                self.store.clear();
            }
            _ => {}
        }
        Ok(())
    }
}
