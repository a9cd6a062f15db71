//! The board link's transport: the framed protocol over a byte pipe.
//!
//! The host keeps what the board has no room for: the FTL memory and the
//! index's full fingerprints. It serves the board's requests from them as
//! they come, in any order with its own commands.
//!
//! The link does not check the board's answers: wrap it in
//! [`Checked`](crate::transport::Checked) (`--check`, every test) to compare
//! each response and relocation with the golden model. A bit in the op byte
//! holds the board's cleaner through a batch and a SYNC drains it at the
//! end, as the other transports' idle gap does, so batch by batch the board
//! answers as the model does.
//!
//! Recovery:
//! - a command the board rejected (`E`) is sent again;
//! - a response that does not come is asked for again (`A`);
//! - a damaged answer of ours is repeated when the board asks again.
//!
//! Sending a command again is safe. The board answers a repeated tag from
//! its latched response and does not run the command twice.
use super::BytePipe;
use crate::transport::{Completion, Transport, TransportError};
use ditto_hw::board::protocol::{error as code, kind, Deframer, Frame, INDEX_STATS_BASE, MORE};
use ditto_hw::ftl::flash::Relocation;
use ditto_hw::ftl::model::{Command, Response};
use ditto_hw::ftl::{Op, Status};
use ditto_hw::index::model::IndexStats;
use ditto_sim::ditto_core::Job;
use std::collections::{HashMap, VecDeque};

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

/// A command's response from the board and the relocations (`from`, `to`)
/// before it. (The response frame also counts the board's cleaner steps;
/// nothing here needs them: [`Checked`](crate::transport::Checked) drains
/// the model's cleaner at the end of each batch, as the board's `SYNC` does.)
type BoardAnswer = (Response, Vec<(u32, u32)>);

/// Silent patience periods before the host asks for the response again.
const SILENCES_BEFORE_AGAIN: u32 = 2;
/// `A`s in a row without a frame from the board before it is given up on.
const MAX_AGAINS: u32 = 25;

/// A whole-core board top reached over a framed byte link, checked against
/// the golden model.
pub struct LinkTransport<P: BytePipe> {
    pipe: P,
    rx: Deframer,
    queue: VecDeque<Frame>,
    memory: HashMap<u32, u64>,
    fingerprints: HashMap<u16, [u8; 20]>,
    next_tag: u8,
    last_request: Option<u8>,
    stats: LinkStats,
    trace: bool,
}

/// Frames as one line of text, for `DITTO_LINK_TRACE=1`.
fn describe(f: &Frame) -> String {
    let shown = &f.payload[..f.payload.len().min(24)];
    format!("{} tag {:3} len {:4} {:02x?}", f.kind as char, f.tag, f.payload.len(), shown)
}

impl<P: BytePipe> LinkTransport<P> {
    /// Connects to the board over `pipe` and `RESET`s its
    /// core (its tables live here, so a new host starts them afresh).
    pub fn connect(pipe: P) -> Result<Self, TransportError> {
        let mut link = LinkTransport {
            pipe,
            rx: Deframer::new(false),
            queue: VecDeque::new(),
            memory: HashMap::new(),
            fingerprints: HashMap::new(),
            next_tag: 0,
            last_request: None,
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
        let (rsp, _) = link.command(&reset, None, false)?;
        if rsp.status != Status::Done {
            return Err(TransportError::Refused { link: link.pipe.name(), op: Op::Reset, status: rsp.status });
        }
        Ok(link)
    }

    /// The link's events so far.
    pub fn link_stats(&self) -> LinkStats {
        self.stats
    }

    /// The pipe (for a test's fault injection, see `faults`).
    pub fn pipe(&mut self) -> &mut P {
        &mut self.pipe
    }

    fn send(&mut self, frame: &Frame) -> Result<(), TransportError> {
        self.stats.frames_sent += 1;
        if self.trace {
            eprintln!("{:>12} host  -> {}", self.pipe.cycles(), describe(frame));
        }
        self.pipe.send(&frame.encode())
    }

    /// The next whole frame from the board, or `None` after a silent period.
    fn next_frame(&mut self) -> Result<Option<Frame>, TransportError> {
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
    fn serve(&mut self, f: Frame, moves: &mut Vec<(u32, u32)>) -> Result<(), TransportError> {
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
            other => return Err(TransportError::UnexpectedFrame { link: self.pipe.name(), kind: other as char }),
        };
        self.last_request = Some(f.tag);
        self.send(&answer)
    }

    /// Runs one command on the board: its response and the relocations
    /// before it.
    fn command(&mut self, cmd: &Command, page: Option<&[u8; 4096]>, more: bool) -> Result<BoardAnswer, TransportError> {
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
                        return Err(TransportError::NoResponse {
                            link: self.pipe.name(),
                            tag,
                            op: cmd.op,
                            lpa: cmd.lpa,
                            tries: MAX_AGAINS,
                        });
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
                    let status = Status::from_u8(f.payload[0]).ok_or_else(|| TransportError::BadStatus {
                        link: self.pipe.name(),
                        tag,
                        status: f.payload[0],
                    })?;
                    let rsp = Response { tag, status, value: f.field(1, 4) as u32, flags: f.payload[5] };
                    return Ok((rsp, moves));
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

    /// Runs one job: its response (with the job's own tag) and the
    /// relocations before it.
    fn run(&mut self, job: &Job, more: bool) -> Result<Completion, TransportError> {
        let (rsp, moves) = self.command(&job.cmd, job.page.as_deref(), more)?;
        let rsp = Response { tag: job.cmd.tag, ..rsp };
        Ok((rsp, moves.into_iter().map(|(from, to)| Relocation { owner: 0, from, to }).collect()))
    }
}

impl<P: BytePipe> Transport for LinkTransport<P> {
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, TransportError> {
        // The cleaner is held through the batch; a SYNC at its end drains
        // it, as the other transports' idle gap does.
        let mut out = Vec::with_capacity(jobs.len());
        for job in jobs {
            out.push(self.run(job, true)?);
        }
        let sync = Job { cmd: Command::new(Op::Sync, 0, 0, [0; 20]), page: None };
        let (rsp, _) = self.run(&sync, false)?;
        if rsp.status != Status::Done {
            return Err(TransportError::Refused { link: self.pipe.name(), op: Op::Sync, status: rsp.status });
        }
        Ok(out)
    }

    fn index_stats(&mut self) -> Result<IndexStats, TransportError> {
        let mut v = [0u32; 6];
        for (i, value) in v.iter_mut().enumerate() {
            let cmd = Command::new(Op::Stats, 0, INDEX_STATS_BASE + i as u32, [0; 20]);
            let (rsp, _) = self.command(&cmd, None, false)?;
            if rsp.status != Status::Done {
                return Err(TransportError::Refused { link: self.pipe.name(), op: Op::Stats, status: rsp.status });
            }
            *value = rsp.value;
        }
        Ok(IndexStats {
            commands: v[0],
            bloom_negatives: v[1],
            false_positives: v[2],
            rebuilds: v[3],
            signature_misses: v[4],
            entries_used: v[5],
        })
    }

    fn cycles(&self) -> u64 {
        self.pipe.cycles()
    }

    fn name(&self) -> String {
        self.pipe.name()
    }
}
