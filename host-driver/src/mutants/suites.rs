//! The cosimulation suites the mutants run against: each drives one
//! module's emitted Verilog (a model built with every mutant in it, one
//! selected) and fails on the first difference from the golden model or
//! the reference it checks against.
use super::SuiteFailure;
use ditto_hw::config::{Config, CU, LARGE};
use ditto_hw::index::model::IndexModel;
use ditto_sim::ditto_core::{CoreSetup, CoreSim, HostTraffic};
use ditto_sim::hasher::{sha1_of, HasherSim, Page, Stalls};
use ditto_sim::index::{IndexSetup, IndexSim, MemTiming, Traffic};
use ditto_sim::Model;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

fn port(model: &Model, name: &str) -> Result<ditto_sim::PortId, SuiteFailure> {
    Ok(model.port(name)?)
}

/// A word for a FIFO or a byte stream: zeros and ones as often as random.
fn skewed_word(rng: &mut ChaCha8Rng, bits: u32) -> u64 {
    let all = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    match rng.gen_range(0..10) {
        0..=2 => 0,
        3..=4 => all,
        5 => 0x5555_5555_5555_5555 & all,
        6 => 1 << rng.gen_range(0..bits),
        _ => rng.gen::<u64>() & all,
    }
}

/// The FIFO against a queue, as `hw/formal/fifo.v` states it: a word
/// written is visible a clock later; full at four words; overflow and
/// underflow sticky, raised by a refused access (tried in the last phase).
pub(super) fn fifo_suite(mut model: Model, seed: u64) -> Result<(), SuiteFailure> {
    const DEPTH: usize = 4;
    let [read, data_out, empty, almost_empty, underflow, write, data_in, full, almost_full, overflow] = [
        "read",
        "data_out",
        "empty",
        "almost_empty",
        "underflow",
        "write",
        "data_in",
        "full",
        "almost_full",
        "overflow",
    ]
    .map(|n| port(&model, n));
    let (read, data_out, empty, almost_empty, underflow) = (read?, data_out?, empty?, almost_empty?, underflow?);
    let (write, data_in, full, almost_full, overflow) = (write?, data_in?, full?, almost_full?, overflow?);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut queue: VecDeque<u64> = VecDeque::new();
    let (mut wrote_last, mut overflowed, mut underflowed) = (false, false, false);
    for cycle in 0..4_000u64 {
        // Phases: filling, draining, balanced, then misuse allowed.
        let (p_write, p_read) = [(0.9, 0.2), (0.2, 0.9), (0.6, 0.6), (0.7, 0.7)][(cycle / 500 % 4) as usize];
        let misuse = cycle >= 3_000;
        model.eval();
        let differs = |what: String| Err(SuiteFailure::Differs { cycle, what });
        let (is_empty, is_full) = (model.get(empty) == 1, model.get(full) == 1);
        if is_full != (queue.len() == DEPTH) {
            return differs(format!("full is {is_full} with {} words", queue.len()));
        }
        if is_empty != (queue.len() - wrote_last as usize == 0) {
            return differs(format!("empty is {is_empty} with {} words", queue.len()));
        }
        // rust-hdl's levels with a block of one word: almost empty when the
        // read side sees no word, almost full from three words on the
        // write side (which sees a word written a clock late) or when full.
        if (model.get(almost_empty) == 1) != is_empty {
            return differs(format!("almost_empty is {} while empty is {is_empty}", model.get(almost_empty)));
        }
        let want_almost_full = is_full || queue.len() - wrote_last as usize >= DEPTH - 1;
        if (model.get(almost_full) == 1) != want_almost_full {
            return differs(format!("almost_full is {} with {} words", model.get(almost_full), queue.len()));
        }
        if (model.get(overflow) == 1, model.get(underflow) == 1) != (overflowed, underflowed) {
            return differs(format!("flags differ: want overflow {overflowed}, underflow {underflowed}"));
        }
        let do_write = rng.gen_bool(p_write) && (misuse || !is_full);
        let do_read = rng.gen_bool(p_read) && (misuse || !is_empty);
        if do_read && !is_empty && model.get(data_out) != queue[0] {
            return differs(format!("read {:#x}, want {:#x}", model.get(data_out), queue[0]));
        }
        let word = skewed_word(&mut rng, 32);
        model.set(write, do_write as u64);
        model.set(read, do_read as u64);
        model.set(data_in, word);
        model.tick();
        if do_read && !is_empty {
            queue.pop_front();
        }
        underflowed |= do_read && is_empty;
        overflowed |= do_write && is_full;
        wrote_last = do_write && !is_full;
        if wrote_last {
            queue.push_back(word);
        }
    }
    Ok(())
}

/// The UART link: skewed bytes, with gaps and back to back, arrive in order,
/// without framing errors, each within the bound the proof states (9.5 bit
/// periods + 3 clocks of being accepted); a corrupted line raises framing
/// errors; 12 idle bit periods restore sync.
pub(super) fn uart_suite(mut model: Model, seed: u64) -> Result<(), SuiteFailure> {
    const PERIOD: u64 = 4;
    const LATENCY: u64 = 19 * PERIOD / 2 + 3;
    let [reset, data, valid, ready, glitch, rx_data, rx_valid, rx_error] =
        ["reset", "data", "valid", "ready", "glitch", "rx_data", "rx_valid", "rx_framing_error"]
            .map(|n| port(&model, n));
    let (reset, data, valid, ready, glitch) = (reset?, data?, valid?, ready?, glitch?);
    let (rx_data, rx_valid, rx_error) = (rx_data?, rx_valid?, rx_error?);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    model.set(reset, 1);
    model.set(valid, 0);
    model.set(glitch, 0);
    model.tick();
    model.tick();
    model.set(reset, 0);
    // Two clean phases around a corrupted one.
    let mut framing_errors_while_corrupt = 0;
    for phase in 0..3 {
        let corrupt = phase == 1;
        let mut to_send: VecDeque<u8> =
            (0..if corrupt { 120 } else { 60 }).map(|_| skewed_word(&mut rng, 8) as u8).collect();
        let mut in_flight: VecDeque<(u8, u64)> = VecDeque::new();
        let mut offering = false;
        let mut gap = 0u32;
        let mut quiet = 0u64;
        let start = model.cycles();
        while !to_send.is_empty() || !in_flight.is_empty() || quiet < 16 * PERIOD * 10 {
            let cycle = model.cycles();
            if cycle - start > 200_000 {
                return Err(SuiteFailure::Differs { cycle, what: "the link stopped moving bytes".into() });
            }
            // Back to back, or after a gap of up to 200 clocks.
            if !offering && !to_send.is_empty() {
                if gap == 0 {
                    offering = true;
                    gap = if rng.gen_bool(0.6) { 0 } else { rng.gen_range(1..200) };
                } else {
                    gap -= 1;
                }
            }
            model.set(valid, offering as u64);
            model.set(data, *to_send.front().unwrap_or(&0) as u64);
            model.set(glitch, (corrupt && rng.gen_bool(0.03)) as u64);
            model.eval();
            if model.get(rx_valid) == 1 || model.get(rx_error) == 1 {
                let (got, error) = (model.get(rx_data) as u8, model.get(rx_error) == 1);
                if corrupt {
                    framing_errors_while_corrupt += error as usize;
                } else {
                    let differs = |what: String| Err(SuiteFailure::Differs { cycle, what });
                    let Some((want, sent)) = in_flight.pop_front() else {
                        return differs(format!("byte {got:#04x} received, none sent"));
                    };
                    if error || got != want {
                        return differs(format!("received {got:#04x} (framing error {error}), sent {want:#04x}"));
                    }
                    // Counted from the clock that accepted the byte, which
                    // the proof's latency counter does not count.
                    if cycle - sent > LATENCY + 1 {
                        return differs(format!("byte took {} clocks, bound {}", cycle - sent, LATENCY + 1));
                    }
                }
            }
            if offering && model.get(ready) == 1 {
                in_flight.push_back((to_send.pop_front().expect("offered"), cycle));
                offering = false;
            }
            model.tick();
            if corrupt {
                in_flight.clear();
            }
            quiet = if to_send.is_empty() && in_flight.is_empty() { quiet + 1 } else { 0 };
        }
        if !corrupt && !in_flight.is_empty() {
            return Err(SuiteFailure::Differs { cycle: model.cycles(), what: "bytes sent never arrived".into() });
        }
    }
    if framing_errors_while_corrupt == 0 {
        return Err(SuiteFailure::Differs {
            cycle: model.cycles(),
            what: "a corrupted line never raised a framing error".into(),
        });
    }
    // Noise on an idle line: a low pulse shorter than half a bit is no
    // start bit, so it must give neither a byte (0xff, were it taken for
    // one) nor a framing error; then a byte still goes through.
    model.set(valid, 0);
    for pulse in 0..40 {
        for clock in 0..16 * PERIOD {
            model.set(glitch, (clock == 0 && pulse < 39) as u64);
            model.eval();
            if model.get(rx_valid) == 1 || model.get(rx_error) == 1 {
                return Err(SuiteFailure::Differs {
                    cycle: model.cycles(),
                    what: format!("a one-clock glitch on an idle line gave byte {:#04x}", model.get(rx_data)),
                });
            }
            model.tick();
        }
    }
    model.set(data, 0x5a);
    model.set(valid, 1);
    let offered = model.cycles();
    loop {
        model.eval();
        if model.get(ready) == 1 {
            model.tick();
            break;
        }
        model.tick();
        if model.cycles() - offered > 16 * PERIOD {
            return Err(SuiteFailure::Differs {
                cycle: model.cycles(),
                what: "the sender stopped taking bytes".into(),
            });
        }
    }
    model.set(valid, 0);
    let taken = model.cycles();
    loop {
        model.eval();
        if model.get(rx_valid) == 1 || model.get(rx_error) == 1 {
            if model.get(rx_error) == 1 || model.get(rx_data) != 0x5a {
                return Err(SuiteFailure::Differs {
                    cycle: model.cycles(),
                    what: format!("after idle noise, received {:#04x} for 0x5a", model.get(rx_data)),
                });
            }
            return Ok(());
        }
        model.tick();
        if model.cycles() - taken > LATENCY + 2 {
            return Err(SuiteFailure::Differs {
                cycle: model.cycles(),
                what: "after idle noise, a byte never arrived".into(),
            });
        }
    }
}

/// The index workloads of `sim/tests/index_random.rs`, shortened, against
/// the golden model: duplicate-rich, same-fingerprint races, all new to
/// past full, hot buckets, DEREF churn; then live entries dereferenced by
/// number and looked up.
fn index_workloads(mut model: Model, config: &Config, seed: u64, scale: usize) -> Result<(), SuiteFailure> {
    use ditto_sim::index::workload;
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    for bloom in [true, false] {
        let mut setup = IndexSetup::new(config);
        setup.bloom = bloom;
        setup.table = MemTiming { latency: r.gen_range(1..=6), ready: 0.8 };
        setup.fingerprints = MemTiming { latency: r.gen_range(1..=6), ready: 0.8 };
        let mut golden = IndexModel::new(config.index_bucket_bits, bloom);
        let mut sim = IndexSim::attach(&mut model, config, setup)?;
        let capacity = config.index_entries();
        let bb = config.index_bucket_bits;
        let phases = [
            workload::absent_lookups(&mut r, 1100),
            workload::hot_counts(&mut r, 4, 300, bb),
            workload::duplicate_rich(&mut r, 12 * scale, capacity),
            workload::same_fp_races(&mut r, 6 * scale),
            workload::all_new(&mut r, capacity * 5 / 4),
            workload::hot_buckets(&mut r, 6 * scale, bb),
            workload::deref_churn(&mut r, 12 * scale, capacity),
        ];
        for commands in phases {
            let traffic =
                Traffic { cmd_valid: r.gen_range(0.5..=1.0), rsp_ready: r.gen_range(0.5..=1.0), seed: r.gen() };
            sim.run_checked(&mut golden, &commands, traffic)?;
        }
        // Last, dereferences of live entries by number, each checked by a
        // lookup (made from the model's state, so every one hits).
        let commands = workload::deref_live(&mut r, &golden, 4 * scale);
        let traffic = Traffic { cmd_valid: 0.9, rsp_ready: 0.9, seed: r.gen() };
        sim.run_checked(&mut golden, &commands, traffic)?;
    }
    Ok(())
}

pub(super) fn lock_table_suite(model: Model, seed: u64) -> Result<(), SuiteFailure> {
    let config = Config { index_fsms: 2, index_bucket_bits: 2, index_table_on_chip: false, ..LARGE };
    index_workloads(model, &config, seed, 20)
}

pub(super) fn index_suite(model: Model, seed: u64) -> Result<(), SuiteFailure> {
    index_workloads(model, &Config { index_fsms: 4, ..CU }, seed, 40)
}

/// Pages whose digests the sha1 crate knows: zeros, ones, one bit, a
/// pattern, random pages and a repeat, hashed without and with stalls.
pub(super) fn hasher_suite(model: Model, seed: u64) -> Result<(), SuiteFailure> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let mut pages: Vec<Page> = vec![[0u8; 4096], [0xFF; 4096]];
    let mut one_bit = [0u8; 4096];
    one_bit[r.gen_range(0..4096)] = 1 << r.gen_range(0..8);
    pages.push(one_bit);
    pages.push(std::array::from_fn(|i| (i % 251) as u8));
    for _ in 0..3 {
        pages.push(std::array::from_fn(|_| r.gen()));
    }
    pages.push(pages[4]);
    let mut sim = HasherSim::attach(model, &CU)?;
    for stalls in [Stalls::NONE, Stalls { word_valid: 0.7, digest_ready: 0.4, seed: r.gen() }] {
        let run = sim.hash(&pages, stalls, None)?;
        for (i, page) in pages.iter().enumerate() {
            let want = sha1_of(page);
            if run.digests.get(i) != Some(&want) {
                return Err(SuiteFailure::Differs { cycle: run.cycles, what: format!("digest of page {i} differs") });
            }
        }
    }
    Ok(())
}

/// Two of `sim/tests/core_random.rs`'s runs, shortened, one at high
/// reference counts and one past the flash: mixed
/// jobs with hot contents past the reference-count limit, every response,
/// table and counter checked, then every LPA read back. First one device,
/// GC-heavy, array-wide dedup; then eight devices, each deduplicating on
/// its own (the index fingerprint carries the home device), a count limit
/// of 2; then 1,280 LPAs, nearly all one content, under the largest limit,
/// so its count passes 1,024 (every bit but the top one) and comes down
/// again; then more LPAs than the flash holds, so writes are refused
/// (`device full`, with a fresh index entry queued for the cleaner) while
/// memory stalls; then 256 blocks of two pages, so a device's free-block
/// count starts with its top bits set (255) and GC runs it down and up
/// through them; then the largest flash the controller takes (8,192
/// blocks of 256 pages: 2^21 pages), so every bit of a page id is one the
/// masks keep (a corrupted high bit of a small pid reads back as another
/// page); and last a 16-page flash whose few page ids are freed hundreds
/// of times each, so every bit of their versions is set and they wrap
/// (a PAGE word with a version bit moved into a bit no field owns is an
/// error of the FTL memory). The memory
/// answers after the seed's latency in one run and after a different one in
/// the next, one of them at least 2 clocks, so a controller that takes a
/// response before it comes is seen.
pub(super) fn ftl_suite(mut model: Model, config: &Config, seed: u64) -> Result<(), SuiteFailure> {
    use ditto_hw::ftl::flash::Geometry;
    use ditto_hw::ftl::REFCOUNT_MAX;
    use ditto_sim::ditto_core::workload;
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let first_latency = r.gen_range(1..=4);
    let second_latency = if first_latency >= 2 { 1 } else { r.gen_range(2..=6) };
    let geometry = |devices, blocks_per_device, pages_per_block| Geometry {
        devices,
        blocks_per_device,
        pages_per_block,
        reserve_blocks: 1,
    };
    let mixed = |jobs, contents, full_pages| FtlWorkload::Mixed { jobs, contents, full_pages };
    let runs = [
        (geometry(1, 16, 8), 96, true, 3, first_latency, mixed(700, 150, 10)),
        (geometry(8, 8, 4), 160, false, 2, second_latency, mixed(500, 150, 10)),
        (geometry(1, 16, 8), 1280, true, REFCOUNT_MAX, first_latency, FtlWorkload::HighCount),
        (geometry(1, 8, 4), 64, true, 3, second_latency, mixed(400, 300, 0)),
        (geometry(1, 256, 2), 320, true, 3, first_latency, mixed(1200, 400, 10)),
        (geometry(1, 8192, 256), 320, true, 3, second_latency, mixed(500, 150, 10)),
        (geometry(1, 4, 4), 6, true, 3, first_latency, FtlWorkload::VersionChurn { jobs: 3000 }),
    ];
    for (geometry, lpas, array_wide, refcount_max, latency, workload) in runs {
        let setup = CoreSetup {
            lpas,
            geometry,
            array_wide,
            bloom: true,
            refcount_max,
            memory: MemTiming { latency, ready: 0.8 },
            nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
        };
        let mut sim = CoreSim::attach(&mut model, config, setup)?;
        let traffic = HostTraffic { cmd_valid: 0.8, page_valid: 0.9, rsp_ready: 0.8, mv_ready: 0.8, seed };
        let mut golden = sim.golden();
        let (jobs, first_pass) = match workload {
            FtlWorkload::Mixed { jobs, contents, full_pages } => {
                (workload::mixed(&mut r, jobs, lpas, contents, full_pages), None)
            }
            FtlWorkload::HighCount => (high_count_jobs(&mut r, lpas), Some(lpas as usize)),
            FtlWorkload::VersionChurn { jobs } => (workload::version_churn(&mut r, jobs, lpas, 1_000_000), None),
        };
        // The high-count run checks that it got there, after its first pass.
        let first_pass = first_pass.unwrap_or(jobs.len());
        sim.run_checked(&mut golden, &jobs[..first_pass], traffic)?;
        if first_pass < jobs.len() {
            let highest = (0..geometry.pages()).map(|pid| golden.page_record(pid).1).max().unwrap_or(0);
            if highest <= 1024 {
                return Err(SuiteFailure::Differs {
                    cycle: sim.cycles(),
                    what: format!("the high-count run's hot page reached only {highest} references"),
                });
            }
        }
        sim.run_checked(&mut golden, &jobs[first_pass..], traffic)?;
        let reads = workload::read_all(lpas, jobs.len());
        sim.run_checked(&mut golden, &reads, traffic)?;
    }
    Ok(())
}

/// What one of [`ftl_suite`]'s runs sends.
#[derive(Clone, Copy)]
enum FtlWorkload {
    /// `workload::mixed`: `jobs` commands over `contents` cold contents,
    /// `full_pages` of every 1,000 writes full-page `WRITE`s.
    Mixed { jobs: usize, contents: u32, full_pages: u32 },
    /// [`high_count_jobs`]: one content past 1,024 references and back.
    HighCount,
    /// `workload::version_churn`: a few page ids freed hundreds of times
    /// each, so their versions use every bit and wrap.
    VersionChurn { jobs: usize },
}

/// Every LPA written in a random order, 19 in 20 with the one hot content
/// (the first `lpas` jobs); then a third of them trimmed, a third
/// rewritten cold, and half of those made hot again.
fn high_count_jobs(r: &mut ChaCha8Rng, lpas: u32) -> Vec<ditto_sim::ditto_core::Job> {
    use ditto_hw::ftl::Op;
    use ditto_sim::ditto_core::workload;
    let mut order: Vec<u32> = (0..lpas).collect();
    order.shuffle(r);
    let mut jobs = Vec::new();
    for &lpa in &order {
        let content = if r.gen_ratio(19, 20) { 0 } else { 3 + r.gen_range(0..20) };
        jobs.push(workload::job(Op::WriteFp, jobs.len() as u8, lpa, content));
    }
    order.shuffle(r);
    for (i, &lpa) in order.iter().enumerate().take(2 * lpas as usize / 3) {
        let (op, content) = match i % 6 {
            0 | 1 => (Op::Trim, 0),
            2 | 3 => (Op::WriteFp, 3 + r.gen_range(0..20)),
            _ => (Op::WriteFp, 0),
        };
        jobs.push(workload::job(op, jobs.len() as u8, lpa, content));
    }
    jobs
}

pub(super) fn ftl_cu_suite(model: Model, seed: u64) -> Result<(), SuiteFailure> {
    ftl_suite(model, &CU, seed)
}

pub(super) fn ftl_large_suite(model: Model, seed: u64) -> Result<(), SuiteFailure> {
    ftl_suite(model, &LARGE, seed)
}
