//! Cosimulation of a SHA-1 hasher: a configuration's (a 32-bit page
//! stream) or a wide one (`ditto_hw::sha1::wide`, a 256-bit stream, built
//! at run time for any lane count): feeds pages through the emitted
//! Verilog, collects digests, and accounts cycles.
use crate::built::BuiltModel;
use crate::model::{Model, PortId, SimError};
use crate::stream::PageStream;
use ditto_hw::sha1::PAGE_BYTES;
use ditto_hw::Config;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

/// One 4 KiB page.
pub type Page = [u8; PAGE_BYTES];

/// How often the testbench holds back on each handshake.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stalls {
    /// Probability that the source offers a word on a given cycle (1.0 = always).
    pub word_valid: f64,
    /// Probability that the sink takes a digest on a given cycle (1.0 = always).
    pub digest_ready: f64,
    /// Seed of the stall pattern.
    pub seed: u64,
}

impl Stalls {
    /// A source and sink that never stall: steady-state throughput.
    pub const NONE: Stalls = Stalls { word_valid: 1.0, digest_ready: 1.0, seed: 0 };
}

/// When a page crossed the hasher, in cycles since the start of the run
/// ([`HasherSim::hash`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageTiming {
    /// The cycle the page's first word (or beat) was taken.
    pub first_word: u64,
    /// The cycle the page's last word (or beat) was taken.
    pub last_word: u64,
    /// The cycle its digest was taken.
    pub digest: u64,
}

/// Result of hashing a sequence of pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HashRun {
    pub digests: Vec<[u8; 20]>,
    pub timing: Vec<PageTiming>,
    /// Cycles from the start of the run to the last digest taken.
    pub cycles: u64,
}

impl HashRun {
    /// Each page's share of the stream: from the previous page's digest to
    /// this one's (the first page: from its first word).
    pub fn page_cycles(&self) -> Vec<u64> {
        self.timing
            .iter()
            .enumerate()
            .map(|(i, t)| if i == 0 { t.digest - t.first_word } else { t.digest - self.timing[i - 1].digest })
            .collect()
    }
}

/// A cosimulation failure: what went wrong and the waveform that shows it.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("the hasher made no progress for {idle_cycles} cycles at cycle {cycle} ({words} words in, {digests} digests out)")]
    Hang { cycle: u64, idle_cycles: u64, words: usize, digests: usize },
    #[error("a wide hasher has a multiple of four lanes from 4 to 64, not {lanes}")]
    WideLanes { lanes: usize },
    #[error("page {page}: hardware digest {got} differs from the sha1 crate's {want}; waveform: {waveform}")]
    Mismatch { page: usize, got: String, want: String, waveform: String },
    #[error("a digest came out at cycle {cycle} before page {page} had gone in")]
    UnexpectedDigest { cycle: u64, page: usize },
    #[error("a digest came out at cycle {cycle}, after the last page's ({pages} pages)")]
    ExtraDigest { cycle: u64, pages: usize },
}

/// Which waveform a checked run writes.
#[derive(Clone, Copy, Debug)]
pub enum Recording<'a> {
    /// None unless a digest is wrong: then the run is replayed on a fresh model
    /// and recorded around the failing page into `waveform_dir()/<label>.vcd`.
    OnFailure { label: &'a str },
    /// The whole run, into this VCD file.
    Whole(&'a Path),
}

/// Cycles without any handshake after which a run is declared hung.
const HANG_CYCLES: u64 = 200_000;
/// Cycles watched after the last digest for a spurious extra one (more than a
/// page's hashing time).
const QUIET_CYCLES: u64 = 6_000;

/// Which hasher a model is, for its traced replay.
#[derive(Clone, Copy, Debug)]
enum Origin {
    /// A configuration's, compiled in (or a mutant of it).
    Config(Config),
    /// A wide hasher built at run time (already traced).
    Wide { lanes: usize, built: BuiltModel },
}

/// A hasher under Verilator.
pub struct HasherSim {
    model: Model,
    origin: Origin,
    /// The page stream's data input (32-bit words or 256-bit beats).
    stream: PageStream,
    /// Clocks after reset within which the stream must be ready.
    reset_clocks: usize,
    reset: PortId,
    word_valid: PortId,
    word_ready: PortId,
    digest: PortId,
    digest_valid: PortId,
    digest_ready: PortId,
}

impl HasherSim {
    /// Builds the hasher model of `config`, reset and ready for pages.
    pub fn new(config: &Config) -> Result<Self, SimError> {
        Self::attach(Model::new(&format!("hasher_{}", config.name))?, config)
    }

    /// [`HasherSim::new`] on a model that can write waveforms
    /// ([`Model::traced`]), for a run recorded whole.
    pub fn new_traced(config: &Config) -> Result<Self, SimError> {
        Self::attach(Model::traced(&format!("hasher_{}", config.name))?, config)
    }

    /// Drives `model`, a hasher of `config`'s shape (a built one: a mutant),
    /// reset and ready for pages.
    pub fn attach(model: Model, config: &Config) -> Result<Self, SimError> {
        Self::attach_origin(model, Origin::Config(*config), 4 * config.lane_fifo_words() + 16)
    }

    /// A wide hasher of `lanes` lanes (a multiple of four, 4 to 64), reset
    /// and ready for pages. Its model is Verilated with tracing on the
    /// first call for a lane count (a minute or more: eight SHA-1 engines
    /// a minute or so), and kept for the rest of the process.
    pub fn wide(lanes: usize) -> Result<Self, HashError> {
        let verilog = ditto_hw::sha1::wide::wide_hasher_verilog(lanes).ok_or(HashError::WideLanes { lanes })?;
        let name = format!("wide_hasher_{lanes}");
        let ports = crate::shim::parse_ports(&verilog).ok_or_else(|| SimError::Build {
            model: name.clone(),
            step: "reading its ports".into(),
            detail: "no `module top`".into(),
        })?;
        let model = BuiltModel::cached(&name, &verilog, &ports)?;
        Ok(Self::attach_origin(model.instance(), Origin::Wide { lanes, built: model }, 16)?)
    }

    fn attach_origin(model: Model, origin: Origin, reset_clocks: usize) -> Result<Self, SimError> {
        let mut sim = Self {
            reset: model.input("reset")?,
            stream: PageStream::find(&model)?,
            reset_clocks,
            word_valid: model.input("page$valid")?,
            word_ready: model.port("page$ready")?,
            digest: model.port("digest")?,
            digest_valid: model.port("digest_valid")?,
            digest_ready: model.input("digest_ready")?,
            model,
            origin,
        };
        sim.reset();
        Ok(sim)
    }

    /// 32-bit words a handshake of the page stream moves.
    pub fn words_per_beat(&self) -> usize {
        self.stream.words_per_transfer()
    }

    /// A fresh hasher like this one on a model that writes waveforms.
    fn traced_twin(&self) -> Result<HasherSim, SimError> {
        match self.origin {
            Origin::Config(config) => HasherSim::new_traced(&config),
            Origin::Wide { built, .. } => Self::attach_origin(built.instance(), self.origin, self.reset_clocks),
        }
    }

    /// The model's name, for messages.
    fn name(&self) -> String {
        match self.origin {
            Origin::Config(config) => format!("hasher_{}", config.name),
            Origin::Wide { lanes, .. } => format!("wide_hasher_{lanes}"),
        }
    }

    /// The underlying model (for waveforms and cycle counts).
    pub fn model_mut(&mut self) -> &mut Model {
        &mut self.model
    }

    /// Pulses reset and waits until the hasher accepts words again.
    pub fn reset(&mut self) {
        self.model.set(self.word_valid, 0);
        self.model.set(self.digest_ready, 0);
        self.model.set(self.reset, 1);
        self.model.eval();
        self.model.tick();
        self.model.set(self.reset, 0);
        for _ in 0..self.reset_clocks {
            self.model.eval();
            if self.model.get(self.word_ready) == 1 {
                return;
            }
            self.model.tick();
        }
        panic!("{} did not leave reset", self.name());
    }

    /// Hashes `pages` with the given stall pattern, then watches the digest
    /// port for a while to make sure no extra digest follows. When `waveform`
    /// is given, cycles from `waveform.1` on are recorded into the VCD file
    /// `waveform.0`, until the digest of page `waveform.2` (if any).
    pub fn hash(
        &mut self,
        pages: &[Page],
        stalls: Stalls,
        waveform: Option<(&Path, u64, Option<usize>)>,
    ) -> Result<HashRun, HashError> {
        let start = self.model.cycles();
        if let Some((path, from, _)) = waveform {
            self.model.start_waveform_at(path, start + from)?;
        }
        // One generator per handshake, so each side's pattern does not depend
        // on how long the other side runs.
        let mut word_rng = ChaCha8Rng::seed_from_u64(stalls.seed);
        let mut digest_rng = ChaCha8Rng::seed_from_u64(stalls.seed ^ 0x9e37_79b9_7f4a_7c15);
        let page_beats = self.stream.transfers_per_page();
        let total_beats = pages.len() * page_beats;
        let (mut beat, mut last_progress) = (0usize, 0u64);
        let mut digests = Vec::with_capacity(pages.len());
        let mut timing = Vec::with_capacity(pages.len());
        while digests.len() < pages.len() {
            let now = self.model.cycles() - start;
            let offer = beat < total_beats && (stalls.word_valid >= 1.0 || word_rng.gen_bool(stalls.word_valid));
            let take = stalls.digest_ready >= 1.0 || digest_rng.gen_bool(stalls.digest_ready);
            if offer {
                self.stream.load(&mut self.model, &pages[beat / page_beats], beat % page_beats);
            }
            self.model.set(self.word_valid, offer as u64);
            self.model.set(self.digest_ready, take as u64);
            self.model.eval();
            if offer && self.model.get(self.word_ready) == 1 {
                match beat % page_beats {
                    0 => timing.push(PageTiming { first_word: now, last_word: 0, digest: 0 }),
                    b if b == page_beats - 1 => timing[beat / page_beats].last_word = now,
                    _ => {}
                }
                beat += 1;
                last_progress = now;
            }
            if take && self.model.get(self.digest_valid) == 1 {
                if digests.len() >= timing.len() {
                    self.model.finish_waveform();
                    return Err(HashError::UnexpectedDigest { cycle: now, page: digests.len() });
                }
                let digest = digest_from_words(self.model.get_words(self.digest));
                timing[digests.len()].digest = now;
                digests.push(digest);
                last_progress = now;
                if let Some((_, _, Some(until))) = waveform {
                    if digests.len() > until {
                        self.model.set_waveform_recording(false);
                    }
                }
            }
            self.model.tick();
            if now - last_progress > HANG_CYCLES {
                self.model.finish_waveform();
                return Err(HashError::Hang {
                    cycle: now,
                    idle_cycles: HANG_CYCLES,
                    words: beat * self.stream.words_per_transfer(),
                    digests: digests.len(),
                });
            }
        }
        self.model.set(self.word_valid, 0);
        self.model.set(self.digest_ready, 1);
        for _ in 0..QUIET_CYCLES {
            self.model.eval();
            if self.model.get(self.digest_valid) == 1 {
                self.model.finish_waveform();
                return Err(HashError::ExtraDigest { cycle: self.model.cycles() - start, pages: pages.len() });
            }
            self.model.tick();
        }
        self.model.set(self.digest_ready, 0);
        self.model.finish_waveform();
        let cycles = timing.last().map_or(0, |t| t.digest + 1);
        Ok(HashRun { digests, timing, cycles })
    }

    /// Hashes `pages` and checks every digest against the `sha1` crate; see
    /// [`HasherSim::hash_checked`]. A failure writes `waveform_dir()/<label>.vcd`.
    pub fn hash_verified(&mut self, pages: &[Page], stalls: Stalls, label: &str) -> Result<HashRun, HashError> {
        self.hash_verified_recording(pages, stalls, Recording::OnFailure { label })
    }

    /// [`HasherSim::hash_verified`] with a choice of waveform.
    pub fn hash_verified_recording(
        &mut self,
        pages: &[Page],
        stalls: Stalls,
        recording: Recording,
    ) -> Result<HashRun, HashError> {
        let reference: Vec<[u8; 20]> = pages.iter().map(sha1_of).collect();
        self.hash_checked(pages, &reference, stalls, recording)
    }

    /// Resets the hasher, hashes `pages` and checks each digest against
    /// `expected`; a mismatch is an error naming the waveform (see
    /// [`Recording`]). For [`Recording::OnFailure`], the failing run is
    /// repeated on a fresh model (so, from the same state) and recorded from
    /// shortly before the failing page to its digest.
    pub fn hash_checked(
        &mut self,
        pages: &[Page],
        expected: &[[u8; 20]],
        stalls: Stalls,
        recording: Recording,
    ) -> Result<HashRun, HashError> {
        assert_eq!(pages.len(), expected.len(), "one expected digest per page");
        self.reset();
        let whole = match recording {
            Recording::Whole(path) => Some((path, 0, None)),
            Recording::OnFailure { .. } => None,
        };
        let run = self.hash(pages, stalls, whole)?;
        let Some(bad) = first_mismatch(&run, expected) else {
            return Ok(run);
        };
        let waveform = match recording {
            Recording::Whole(path) => path.display().to_string(),
            Recording::OnFailure { label } => {
                let path = waveform_path(label);
                let from = run.timing[bad].first_word.saturating_sub(2_000);
                let mut replay = self.traced_twin()?;
                match replay.hash(pages, stalls, Some((&path, from, Some(bad)))) {
                    Err(HashError::Sim(e)) => format!("(could not be written: {e})"),
                    _ => path.display().to_string(),
                }
            }
        };
        Err(HashError::Mismatch { page: bad, got: hex(&run.digests[bad]), want: hex(&expected[bad]), waveform })
    }
}

/// A digest as bytes from the port's 32-bit words (least significant first).
pub fn digest_from_words(words: &[u32]) -> [u8; 20] {
    assert_eq!(words.len(), 5, "a digest is five words");
    let mut digest = [0u8; 20];
    for (i, w) in words.iter().rev().enumerate() {
        digest[4 * i..4 * i + 4].copy_from_slice(&w.to_be_bytes());
    }
    digest
}

/// The first page whose digest in `run` differs from `expected`.
pub fn first_mismatch(run: &HashRun, expected: &[[u8; 20]]) -> Option<usize> {
    run.digests.iter().zip(expected).position(|(got, want)| got != want)
}

/// SHA-1 of a page by the `sha1` crate: the software reference.
pub fn sha1_of(page: &Page) -> [u8; 20] {
    use sha1::Digest;
    sha1::Sha1::digest(page).into()
}

/// Lowercase hex of a digest.
pub fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where a failing test's waveform goes, for a given label.
pub fn waveform_path(label: &str) -> PathBuf {
    crate::model::waveform_dir().join(format!("{label}.vcd"))
}
