//! A timing model of the media behind the core, for response times: the
//! golden model logs each command's media operations
//! ([`ditto_hw::ftl::flash::MediaOp`]), and this prices them.
//!
//! [`MediaTiming`] gives each operation a latency; [`Timeline`] gives each
//! flash device a channel that does one operation at a time (the NVM is not
//! queued: see [`Timeline::serve`]). A request's operations run one after
//! another, each once its channel is free; its response time is from its
//! arrival to the end of its last foreground operation. Background work
//! (the NVM cache's fill after a read, and the eviction it causes) holds
//! its channel, but nobody waits for it. A request that needs no medium (a
//! duplicate, a trim) completes on arrival: the controller's own time is
//! not modelled.
use ditto_hw::ftl::flash::{Media, MediaOp};
use ditto_hw::ftl::model::{Command, CoreModel};
use ditto_hw::ftl::Status;
use serde::Serialize;

/// Media latencies in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MediaTiming {
    pub flash_read_ns: u64,
    pub flash_program_ns: u64,
    pub flash_erase_ns: u64,
    pub nvm_read_ns: u64,
    pub nvm_write_ns: u64,
}

impl MediaTiming {
    /// The flash: FEMU's defaults for its black-box SSD
    /// (`hw/femu/bbssd/ftl.h`: `NAND_READ_LATENCY` 40 us,
    /// `NAND_PROG_LATENCY` 200 us, `NAND_ERASE_LATENCY` 2 ms). The NVM: an
    /// assumption, not a datasheet: 1 us to read and 2 us to write 4 KiB,
    /// the order of byte-addressable persistent memory (3D XPoint, the
    /// seed's reference) and of an on-chip region.
    pub const FEMU: MediaTiming = MediaTiming {
        flash_read_ns: 40_000,
        flash_program_ns: 200_000,
        flash_erase_ns: 2_000_000,
        nvm_read_ns: 1_000,
        nvm_write_ns: 2_000,
    };
    fn latency(&self, media: Media) -> u64 {
        match media {
            Media::FlashRead => self.flash_read_ns,
            Media::FlashProgram => self.flash_program_ns,
            Media::FlashErase => self.flash_erase_ns,
            Media::NvmRead => self.nvm_read_ns,
            Media::NvmWrite => self.nvm_write_ns,
        }
    }
}

/// When each flash device's channel is free again.
#[derive(Clone, Debug)]
pub struct Timeline {
    timing: MediaTiming,
    free_at: Vec<u64>,
}

impl Timeline {
    pub fn new(timing: MediaTiming, devices: u32) -> Self {
        Timeline { timing, free_at: vec![0; devices as usize] }
    }

    /// Serves a request that arrives at `arrival` and does `ops`; returns
    /// when it completes. A flash operation waits for its device's channel
    /// (first come, first served); an NVM access only takes its latency:
    /// the NVM's bandwidth is two orders of magnitude above the flash's,
    /// and a queue for it would make every request wait for the flash
    /// programs of the ones before it.
    pub fn serve(&mut self, arrival: u64, ops: &[MediaOp]) -> u64 {
        let mut done = arrival;
        for op in ops {
            let ready = if op.background { arrival } else { done };
            let end = match op.media {
                Media::NvmRead | Media::NvmWrite => ready + self.timing.latency(op.media),
                _ => {
                    let channel = &mut self.free_at[op.device as usize];
                    *channel = ready.max(*channel) + self.timing.latency(op.media);
                    *channel
                }
            };
            if !op.background {
                done = end;
            }
        }
        done
    }
}

/// Response times of a run, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ResponseTimes {
    pub mean_us: f64,
    pub std_dev_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

impl ResponseTimes {
    /// Summarises response times given in nanoseconds.
    pub fn of(mut ns: Vec<u64>) -> ResponseTimes {
        if ns.is_empty() {
            return ResponseTimes::default();
        }
        ns.sort_unstable();
        let n = ns.len() as f64;
        let mean = ns.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = ns.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n;
        // The nearest-rank 99th percentile.
        let p99 = ns[((0.99 * n).ceil() as usize).clamp(1, ns.len()) - 1];
        ResponseTimes {
            mean_us: mean / 1e3,
            std_dev_us: var.sqrt() / 1e3,
            p99_us: p99 as f64 / 1e3,
            max_us: *ns.last().unwrap() as f64 / 1e3,
        }
    }
}

/// When a request arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// At a trace's timestamp (nanoseconds; the first request's is time 0).
    At(u64),
    /// When the request before it completed: a closed loop of one request
    /// in flight (`ingest`, which has no arrival times), so its response
    /// time is its service time.
    AfterPrevious,
}

/// Response times of a device run, priced on the golden model: a fresh
/// model follows the device command by command, each command's media
/// operations ([`CoreModel::last_ops`]) go through a [`Timeline`] at
/// [`MediaTiming::FEMU`], and the first answer that differs from the
/// device's ends the timing (with the reason), never the run.
pub struct ResponseClock {
    follower: Option<(CoreModel, Timeline)>,
    missing: Option<String>,
    first_timestamp: Option<u64>,
    last_completion: u64,
    times: Vec<u64>,
}

impl ResponseClock {
    /// Follows a device whose core starts as `golden` (`Err`: why there is
    /// no model to follow it, say a device opened from a store).
    pub fn new(golden: Result<CoreModel, String>) -> Self {
        let (follower, missing) = match golden {
            Ok(model) => {
                let devices = model.config().geometry.devices;
                (Some((model, Timeline::new(MediaTiming::FEMU, devices))), None)
            }
            Err(why) => (None, Some(why)),
        };
        ResponseClock { follower, missing, first_timestamp: None, last_completion: 0, times: Vec::new() }
    }

    /// Runs `cmd` on the model, which must answer `got` as the device did
    /// (else the timing stops, `what` naming the command in the reason),
    /// and times it from `arrival`.
    pub fn follow(&mut self, what: impl FnOnce() -> String, cmd: &Command, got: (Status, u32), arrival: Arrival) {
        let Some((model, timeline)) = &mut self.follower else { return };
        let (want, _) = model.execute(cmd);
        if (want.status, want.value) != got {
            self.missing = Some(format!(
                "the golden model answered {} with {:?} {:#x}, the device with {:?} {:#x}",
                what(),
                want.status,
                want.value,
                got.0,
                got.1
            ));
            self.follower = None;
            return;
        }
        let arrival = match arrival {
            Arrival::At(t) => t.saturating_sub(*self.first_timestamp.get_or_insert(t)),
            Arrival::AfterPrevious => self.last_completion,
        };
        let completion = timeline.serve(arrival, model.last_ops());
        self.last_completion = completion;
        self.times.push(completion - arrival);
    }

    /// Stops the timing: the device did something the model cannot follow.
    pub fn stop(&mut self, why: String) {
        if self.follower.take().is_some() {
            self.missing = Some(why);
        }
    }

    /// The gap after a batch: the core's cleaner drains its backlog.
    pub fn idle(&mut self) {
        if let Some((model, _)) = &mut self.follower {
            while model.clean_step() {}
        }
    }

    /// The response times, or why there are none.
    pub fn finish(self) -> (Option<ResponseTimes>, Option<String>) {
        match self.follower {
            Some(_) => (Some(ResponseTimes::of(self.times)), None),
            None => (None, self.missing),
        }
    }
}

/// A report's line of response times, or why it has none.
pub fn response_line(times: &Option<ResponseTimes>, missing: &Option<String>, how: &str) -> String {
    match (times, missing) {
        (Some(t), _) => format!(
            "response times     mean {:.0} us, std dev {:.0} us, p99 {:.0} us, max {:.0} us ({how}: FEMU's flash latencies)",
            t.mean_us, t.std_dev_us, t.p99_us, t.max_us
        ),
        (None, why) => format!("response times     none: {}", why.as_deref().unwrap_or("not measured")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_waits_for_its_channel_and_background_work_holds_it() {
        let t = MediaTiming::FEMU;
        let mut tl = Timeline::new(t, 2);
        let program = |device, background| MediaOp { media: Media::FlashProgram, device, background };
        assert_eq!(tl.serve(0, &[program(0, false)]), 200_000);
        // Device 0 is busy until 200 us; device 1 is free.
        assert_eq!(tl.serve(100_000, &[program(0, false)]), 400_000);
        assert_eq!(tl.serve(100_000, &[program(1, false)]), 300_000);
        // A flush on device 1 does not delay its own request's NVM write...
        let nvm_write = MediaOp { media: Media::NvmWrite, device: 0, background: false };
        assert_eq!(tl.serve(300_000, &[program(1, true), nvm_write]), 302_000);
        // ...but the next request on device 1 waits for it.
        assert_eq!(tl.serve(310_000, &[program(1, false)]), 700_000);
        // An NVM access after a program waits for that program, but it
        // holds no channel: the next request's NVM write is not delayed.
        assert_eq!(tl.serve(700_000, &[program(0, false), nvm_write]), 902_000);
        assert_eq!(tl.serve(701_000, &[nvm_write]), 703_000);
        assert_eq!(tl.serve(700_000, &[]), 700_000, "no media: done on arrival");
    }

    fn small_core() -> CoreModel {
        use ditto_hw::ftl::flash::Geometry;
        use ditto_hw::ftl::model::CoreConfig;
        CoreModel::new(CoreConfig {
            lpas: 16,
            geometry: Geometry { devices: 1, blocks_per_device: 8, pages_per_block: 4, reserve_blocks: 1 },
            index_bucket_bits: 4,
            bloom: true,
            array_wide: true,
            refcount_max: ditto_hw::ftl::REFCOUNT_MAX,
            nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
        })
    }

    fn write(lpa: u32, n: u8) -> Command {
        Command::new(ditto_hw::ftl::Op::WriteFp, 0, lpa, [n; 20])
    }

    #[test]
    fn the_clock_prices_each_command_and_stops_at_the_first_disagreement() {
        let mut clock = ResponseClock::new(Ok(small_core()));
        // The first page goes to PPA 0, the second to PPA 1 after it; all
        // three arrive at once.
        clock.follow(|| "w0".into(), &write(0, 1), (Status::Unique, 0), Arrival::At(1_000));
        clock.follow(|| "w1".into(), &write(1, 2), (Status::Unique, 1), Arrival::At(1_000));
        clock.follow(|| "w2".into(), &write(2, 1), (Status::Duplicate, 0), Arrival::At(1_000));
        assert_eq!(clock.times, [200_000, 400_000, 0], "the second program waits for the first");
        clock.follow(|| "access 3 (LPA 3)".into(), &write(3, 3), (Status::Unique, 7), Arrival::At(2_000));
        let (times, why) = clock.finish();
        assert_eq!(times, None);
        assert!(why.unwrap().contains("access 3 (LPA 3) with Unique 0x2, the device with Unique 0x7"));
        let (times, why) = ResponseClock::new(Err("opened from a store".into())).finish();
        assert_eq!((times, why.as_deref()), (None, Some("opened from a store")));
    }

    #[test]
    fn in_a_closed_loop_each_command_arrives_as_the_one_before_completes() {
        let mut clock = ResponseClock::new(Ok(small_core()));
        clock.follow(|| "w0".into(), &write(0, 1), (Status::Unique, 0), Arrival::AfterPrevious);
        clock.follow(|| "w1".into(), &write(1, 2), (Status::Unique, 1), Arrival::AfterPrevious);
        // No queueing: each is its own service time.
        assert_eq!(clock.times, [200_000, 200_000]);
        assert_eq!(clock.last_completion, 400_000);
        let (times, _) = clock.finish();
        assert_eq!(times.map(|t| t.mean_us), Some(200.0));
    }

    #[test]
    fn response_times_summarise_mean_deviation_and_the_nearest_rank_p99() {
        let r = ResponseTimes::of((1..=100).map(|x| x * 1_000).collect());
        assert_eq!((r.mean_us, r.p99_us, r.max_us), (50.5, 99.0, 100.0));
        assert!((r.std_dev_us - 28.866).abs() < 0.01, "{r:?}");
        assert_eq!(ResponseTimes::of(Vec::new()), ResponseTimes::default());
    }
}
