//! The board top's widgets, each in its emitted Verilog against its model:
//! the receive framer against the protocol's `Deframer`, the transmit framer
//! against `Frame::encode`, the page assembler against the page's bytes, the
//! request decoder against the protocol's rules for each frame.
//! Seeded streams, skewed as a link's traffic is (mostly the common frames,
//! with damaged, abandoned and maximal ones among them).
//! One file for the four widgets' suites (about 200 lines each), so that
//! they share one frame generator (`host_frame`) and its skew.
use ditto_hw::board::protocol::{
    error, kind, payload_lens, Deframer, Frame, FrameError, COMMAND_LEN, SYNC, WRITE_COMMAND_LEN,
};
use ditto_sim::testkit::{self as common, cosim};
use ditto_sim::{Model, PortId};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The receive framer's timeout in these runs (clocks without a byte).
const RX_TIMEOUT: u64 = 300;

/// The port `name` of `m`.
fn port(m: &Model, name: &str) -> PortId {
    m.port(name).unwrap_or_else(|e| panic!("{e}"))
}

/// The bits of a wide port as bytes, most significant first.
fn wide_bytes(words: &[u32], n_bytes: usize) -> Vec<u8> {
    let mut all: Vec<u8> = words.iter().rev().flat_map(|w| w.to_be_bytes()).collect();
    all.drain(..all.len() - n_bytes);
    all
}

/// A frame a host could send, drawn as a host's traffic is: mostly commands
/// (some with their page), answers to the board's requests, acknowledgements.
fn host_frame(rng: &mut ChaCha8Rng, with_page: bool) -> Frame {
    let tag = rng.gen();
    if with_page {
        let mut payload = vec![0u8; WRITE_COMMAND_LEN];
        rng.fill(&mut payload[..]);
        return Frame::new(kind::COMMAND, tag, payload);
    }
    let k = match rng.gen_range(0..100) {
        0..=54 => kind::COMMAND,
        55..=69 => kind::MEM_DATA,
        70..=79 => kind::FP_DATA,
        80..=94 => kind::ACK,
        _ => kind::AGAIN,
    };
    let mut payload = vec![0u8; payload_lens(k, true).expect("a host's kind")[0]];
    // Fields at their extremes now and then (all ones, all zeros).
    match rng.gen_range(0..10) {
        0 => payload.fill(0xff),
        1 => {}
        _ => rng.fill(&mut payload[..]),
    }
    Frame::new(k, tag, payload)
}

/// What the receive framer reported, in order.
#[derive(Debug, PartialEq)]
enum RxEvent {
    Frame { kind: u8, tag: u8, head: Vec<u8>, page: Vec<u8> },
    BadCrc,
    Raise(u8),
}

struct RxPorts {
    reset: PortId,
    data: PortId,
    data_valid: PortId,
    timeout: PortId,
    page_begun: PortId,
    pad_done: PortId,
    frame_start: PortId,
    header_done: PortId,
    header_page: PortId,
    page_byte: PortId,
    padding: PortId,
    done: PortId,
    good: PortId,
    kind: PortId,
    tag: PortId,
    payload: PortId,
    page_frame: PortId,
    is_command: PortId,
    raise: PortId,
    raise_code: PortId,
}

impl RxPorts {
    fn of(m: &Model) -> Self {
        let p = |n: &str| m.port(n).unwrap_or_else(|e| panic!("{e}"));
        RxPorts {
            reset: p("reset"),
            data: p("data"),
            data_valid: p("data_valid"),
            timeout: p("timeout"),
            page_begun: p("page_begun"),
            pad_done: p("pad_done"),
            frame_start: p("frame_start"),
            header_done: p("header_done"),
            header_page: p("header_page"),
            page_byte: p("page_byte"),
            padding: p("padding"),
            done: p("done"),
            good: p("good"),
            kind: p("kind"),
            tag: p("tag"),
            payload: p("payload"),
            page_frame: p("page_frame"),
            is_command: p("is_command"),
            raise: p("raise"),
            raise_code: p("raise_code"),
        }
    }
}

/// Drives the receive framer one clock at a time, recording its events and
/// standing in for the page assembler (`page_begun`, `pad_done`).
struct RxBench<'m> {
    m: &'m mut Model,
    p: RxPorts,
    events: Vec<RxEvent>,
    page: Vec<u8>,
    /// Clocks spent padding so far (the stand-in completes a page after 7).
    padding_for: u32,
    headers: usize,
    page_headers: usize,
    starts: usize,
}

impl RxBench<'_> {
    /// One clock with `byte` (or none) on the input.
    fn clock(&mut self, byte: Option<u8>) {
        let (m, p) = (&mut *self.m, &self.p);
        m.set(p.data_valid, byte.is_some() as u64);
        m.set(p.data, byte.unwrap_or(0) as u64);
        m.set(p.page_begun, !self.page.is_empty() as u64);
        let padding = m.get(p.padding) == 1;
        self.padding_for = if padding { self.padding_for + 1 } else { 0 };
        m.set(p.pad_done, (self.padding_for == 7) as u64);
        m.eval();
        assert!(!(padding && byte.is_some()), "the bench sends nothing while the framer pads");
        if m.get(p.frame_start) == 1 {
            self.starts += 1;
            self.page.clear();
        }
        if m.get(p.header_done) == 1 {
            self.headers += 1;
            self.page_headers += m.get(p.header_page) as usize;
            self.page.clear();
        }
        if m.get(p.page_byte) == 1 {
            self.page.push(byte.expect("a page byte is the byte on the input"));
        }
        if m.get(p.raise) == 1 {
            self.events.push(RxEvent::Raise(m.get(p.raise_code) as u8));
            if self.padding_for == 7 {
                self.page.clear();
            }
        }
        if m.get(p.done) == 1 {
            if m.get(p.good) == 1 {
                let kind = m.get(p.kind) as u8;
                let tag = m.get(p.tag) as u8;
                // The framer holds the first 24 payload bytes (a command's).
                let len = payload_lens(kind, true).expect("a host's kind")[0];
                let head = wide_bytes(m.get_words(p.payload), len);
                let page_frame = m.get(p.page_frame) == 1;
                assert_eq!(m.get(p.is_command) == 1, kind == kind::COMMAND, "the kind's flag");
                let page = std::mem::take(&mut self.page);
                assert_eq!(page_frame, !page.is_empty(), "a page frame is one with page bytes");
                self.events.push(RxEvent::Frame { kind, tag, head, page });
            } else {
                self.events.push(RxEvent::BadCrc);
                self.page.clear();
            }
        }
        m.tick();
    }
}

#[test]
fn the_receive_framer_finds_what_the_deframer_finds() {
    let seed = common::seed("the_receive_framer_finds_what_the_deframer_finds");
    cosim("frame_rx", "frame_rx", |m| {
        let mut rng = common::rng(seed);
        let p = RxPorts::of(m);
        m.set(p.timeout, RX_TIMEOUT);
        m.set(p.reset, 1);
        m.tick();
        m.set(p.reset, 0);
        let mut bench = RxBench {
            m,
            p,
            events: Vec::new(),
            page: Vec::new(),
            padding_for: 0,
            headers: 0,
            page_headers: 0,
            starts: 0,
        };
        let mut model = Deframer::new(true);
        let mut expected = Vec::new();
        let (mut expected_headers, mut expected_page_headers, mut expected_starts) = (0, 0, 0);
        for n in 0..400 {
            // Every run has the largest frame, and pages now and then.
            let with_page = n == 3 || rng.gen_ratio(1, 25);
            let frame = host_frame(&mut rng, with_page);
            let mut bytes = frame.encode();
            // Damage, as a link does, to one frame in four.
            let mut truncated = false;
            match rng.gen_range(0..40) {
                0..=3 => {
                    let at = rng.gen_range(1..bytes.len());
                    bytes[at] ^= 1 << rng.gen_range(0..8);
                }
                4 => {
                    // A length the kind does not have.
                    bytes[4] = bytes[4].wrapping_add(rng.gen_range(1..=255));
                }
                5 => bytes[1] = rng.gen(),
                6..=7 => {
                    let garbage: Vec<u8> = (0..rng.gen_range(1..12)).map(|_| rng.gen()).collect();
                    bytes.splice(0..0, garbage);
                }
                8..=9 => {
                    let keep = rng.gen_range(1..bytes.len());
                    bytes.truncate(keep);
                    truncated = true;
                }
                _ => {}
            }
            for &byte in &bytes {
                let hunting = !model.in_frame();
                if hunting && byte == SYNC {
                    expected_starts += 1;
                }
                let before = model.header_taken();
                let out = model.push(byte);
                match out {
                    Some(Ok(f)) => {
                        let head_len = f.payload.len().min(COMMAND_LEN);
                        let page = if f.payload.len() == WRITE_COMMAND_LEN {
                            f.payload[COMMAND_LEN..].to_vec()
                        } else {
                            Vec::new()
                        };
                        expected.push(RxEvent::Frame {
                            kind: f.kind,
                            tag: f.tag,
                            head: f.payload[..head_len].to_vec(),
                            page,
                        });
                    }
                    Some(Err(FrameError::Checksum { .. })) => expected.push(RxEvent::BadCrc),
                    Some(Err(FrameError::Header { .. })) => expected.push(RxEvent::Raise(error::HEADER)),
                    None => {}
                }
                // A good header: the deframer is now in the payload or the CRC.
                if !before && model.header_taken() {
                    expected_headers += 1;
                    expected_page_headers += model.expecting_page() as usize;
                }
                bench.clock(Some(byte));
                for _ in 0..rng.gen_range(2..10) {
                    bench.clock(None);
                }
            }
            if truncated && model.in_frame() {
                // Silence past the timeout: the frame is abandoned.
                model.abandon();
                expected.push(RxEvent::Raise(error::TRUNCATED));
                for _ in 0..RX_TIMEOUT + 20 {
                    bench.clock(None);
                }
            }
        }
        // A frame still under way at the end (a damaged length can make one
        // long) is abandoned in the silence that ends the run.
        if model.in_frame() {
            model.abandon();
            expected.push(RxEvent::Raise(error::TRUNCATED));
        }
        for _ in 0..RX_TIMEOUT + 20 {
            bench.clock(None);
        }
        for (i, (got, want)) in bench.events.iter().zip(&expected).enumerate() {
            assert_eq!(got, want, "event {i} of {}", expected.len());
        }
        assert_eq!(bench.events.len(), expected.len(), "as many events as the deframer's");
        assert_eq!(bench.starts, expected_starts, "every SYNC taken while hunting starts a frame");
        assert_eq!(bench.headers, expected_headers, "every good header is reported");
        assert_eq!(bench.page_headers, expected_page_headers, "every page command's header says so");
        assert!(expected.iter().any(|e| matches!(e, RxEvent::Frame { page, .. } if page.len() == 4096)));
        assert!(expected.contains(&RxEvent::BadCrc) && expected.contains(&RxEvent::Raise(error::TRUNCATED)));
    });
}

/// A frame for the transmit framer to send, with the fields it is sent from.
#[derive(Clone, Debug)]
enum TxJob {
    Error {
        tag: u8,
        code: u8,
        kind: u8,
    },
    Response {
        tag: u8,
        status: u8,
        value: u32,
        flags: u8,
        cleaned: u16,
    },
    /// `request` as [`ditto_hw::board::HostRequest`] numbers it (1..=5).
    Request {
        request: u64,
        seq: u8,
        from: u32,
        to: u32,
        addr: u32,
        wdata: u64,
        entry: u16,
        fp: [u8; 20],
    },
}

impl TxJob {
    /// The frame `Frame::encode` makes of it: what the wire must carry.
    fn frame(&self) -> Frame {
        match *self {
            TxJob::Error { tag, code, kind: k } => Frame::new(kind::ERROR, tag, vec![code, k]),
            TxJob::Response { tag, status, value, flags, cleaned } => {
                let mut p = vec![status];
                p.extend_from_slice(&value.to_be_bytes());
                p.push(flags);
                p.extend_from_slice(&cleaned.to_be_bytes());
                Frame::new(kind::RESPONSE, tag, p)
            }
            TxJob::Request { request, seq, from, to, addr, wdata, entry, fp } => {
                let (k, p) = match request {
                    1 => (kind::MOVE, [&from.to_be_bytes()[1..], &to.to_be_bytes()[1..]].concat()),
                    2 => (kind::MEM_READ, addr.to_be_bytes().to_vec()),
                    3 => (kind::MEM_WRITE, [&addr.to_be_bytes()[..], &wdata.to_be_bytes()[..]].concat()),
                    4 => (kind::FP_READ, entry.to_be_bytes().to_vec()),
                    _ => (kind::FP_WRITE, [&entry.to_be_bytes()[..], &fp[..]].concat()),
                };
                Frame::new(k, seq, p)
            }
        }
    }

    /// A job as the board's traffic draws them: mostly FTL memory requests,
    /// then responses, fingerprint requests, relocations and errors; fields
    /// at their widest now and then.
    fn draw(rng: &mut ChaCha8Rng) -> TxJob {
        let ones = rng.gen_ratio(1, 8);
        let mut fp = [0u8; 20];
        rng.fill(&mut fp);
        if ones {
            fp = [0xff; 20];
        }
        let pick = |rng: &mut ChaCha8Rng, max: u64| if ones { max } else { rng.gen_range(0..=max) };
        match rng.gen_range(0..100) {
            0..=44 => TxJob::Request {
                request: if rng.gen_bool(0.6) { 2 } else { 3 },
                seq: rng.gen(),
                from: 0,
                to: 0,
                addr: pick(rng, u32::MAX as u64) as u32,
                wdata: pick(rng, u64::MAX),
                entry: 0,
                fp,
            },
            45..=69 => TxJob::Response {
                tag: rng.gen(),
                status: pick(rng, 15) as u8,
                value: pick(rng, u32::MAX as u64) as u32,
                flags: pick(rng, 7) as u8,
                cleaned: pick(rng, u16::MAX as u64) as u16,
            },
            70..=84 => TxJob::Request {
                request: if rng.gen_bool(0.5) { 4 } else { 5 },
                seq: rng.gen(),
                from: 0,
                to: 0,
                addr: 0,
                wdata: 0,
                entry: pick(rng, u16::MAX as u64) as u16,
                fp,
            },
            85..=94 => TxJob::Request {
                request: 1,
                seq: rng.gen(),
                from: pick(rng, (1 << 24) - 1) as u32,
                to: pick(rng, (1 << 24) - 1) as u32,
                addr: 0,
                wdata: 0,
                entry: 0,
                fp,
            },
            _ => TxJob::Error { tag: rng.gen(), code: rng.gen_range(1..=4), kind: rng.gen() },
        }
    }
}

#[test]
fn the_transmit_framer_sends_what_the_protocol_encodes() {
    let seed = common::seed("the_transmit_framer_sends_what_the_protocol_encodes");
    cosim("frame_tx", "frame_tx", |m| {
        let mut rng = common::rng(seed);
        let p = |n: &str| port(m, n);
        let (reset, ready, valid, data, busy) = (p("reset"), p("ready"), p("valid"), p("data"), p("busy"));
        let (err_pending, rsp_pending, request_ready) = (p("err_pending"), p("rsp_pending"), p("request_ready"));
        let (error_sent, response_sent, request_started, sending_request) =
            (p("error_sent"), p("response_sent"), p("request_started"), p("sending_request"));
        m.set(reset, 1);
        m.tick();
        m.set(reset, 0);
        let mut wire = Vec::new();
        let mut sent_in_order = Vec::new();
        for round in 0..300 {
            // One to three frames at once, each of another kind, so the order
            // (errors, responses, requests) is tested; the wire must carry
            // each of them once, in that order.
            let mut jobs: Vec<TxJob> = Vec::new();
            for _ in 0..rng.gen_range(1..=3) {
                let job = TxJob::draw(&mut rng);
                let same = |a: &TxJob, b: &TxJob| std::mem::discriminant(a) == std::mem::discriminant(b);
                if !jobs.iter().any(|j| same(j, &job)) {
                    jobs.push(job);
                }
            }
            for job in &jobs {
                match *job {
                    TxJob::Error { tag, code, kind: k } => {
                        m.set(err_pending, 1);
                        m.set(port(m, "err_tag"), tag as u64);
                        m.set(port(m, "err_code"), code as u64);
                        m.set(port(m, "err_kind"), k as u64);
                    }
                    TxJob::Response { tag, status, value, flags, cleaned } => {
                        m.set(rsp_pending, 1);
                        m.set(port(m, "rsp_tag"), tag as u64);
                        m.set(port(m, "rsp_status"), status as u64);
                        m.set(port(m, "rsp_value"), value as u64);
                        m.set(port(m, "rsp_flags"), flags as u64);
                        m.set(port(m, "rsp_cleaned"), cleaned as u64);
                    }
                    TxJob::Request { request, seq, from, to, addr, wdata, entry, fp } => {
                        m.set(request_ready, 1);
                        m.set(port(m, "request"), request);
                        m.set(port(m, "seq"), seq as u64);
                        m.set(port(m, "mv_from"), from as u64);
                        m.set(port(m, "mv_to"), to as u64);
                        m.set(port(m, "mem_addr"), addr as u64);
                        m.set(port(m, "mem_wdata"), wdata);
                        m.set(port(m, "fp_addr"), entry as u64);
                        let words: Vec<u32> =
                            fp.rchunks(4).map(|c| u32::from_be_bytes(c.try_into().unwrap())).collect();
                        m.set_words(port(m, "fp_wdata"), &words);
                    }
                }
            }
            let mut order = jobs.clone();
            order.sort_by_key(|j| match j {
                TxJob::Error { .. } => 0,
                TxJob::Response { .. } => 1,
                TxJob::Request { .. } => 2,
            });
            // The UART takes a byte, then is busy for a while.
            let mut uart_busy = 0u32;
            let mut request_on_wire = false;
            let mut cycles = 0;
            while m.get(err_pending) + m.get(rsp_pending) + m.get(request_ready) != 0 || m.get(busy) == 1 {
                m.set(ready, (uart_busy == 0) as u64);
                m.eval();
                if m.get(valid) == 1 && uart_busy == 0 {
                    wire.push(m.get(data) as u8);
                    uart_busy = rng.gen_range(0..6);
                } else {
                    uart_busy = uart_busy.saturating_sub(1);
                }
                let (error_out, response_out, request_out) =
                    (m.get(error_sent) == 1, m.get(response_sent) == 1, m.get(request_started) == 1);
                assert_eq!(m.get(sending_request) == 1, request_on_wire && m.get(busy) == 1, "round {round}");
                m.tick();
                // The top's flags change at the clock edge the pulses act on.
                if error_out {
                    m.set(err_pending, 0);
                }
                if response_out {
                    m.set(rsp_pending, 0);
                }
                if request_out {
                    assert!(!request_on_wire, "one request frame per request");
                    request_on_wire = true;
                    m.set(request_ready, 0);
                }
                cycles += 1;
                assert!(cycles < 10_000, "round {round}: the frames go out");
            }
            sent_in_order.extend(order);
        }
        let mut deframer = Deframer::new(false);
        let frames: Vec<Frame> = wire
            .iter()
            .filter_map(|&b| deframer.push(b))
            .map(|r| r.unwrap_or_else(|e| panic!("the board's frames decode: {e}")))
            .collect();
        for (i, (got, job)) in frames.iter().zip(&sent_in_order).enumerate() {
            assert_eq!(*got, job.frame(), "frame {i}: {job:?}");
        }
        assert_eq!(deframer.skipped, 0, "nothing between frames");
        assert_eq!(frames.len(), sent_in_order.len(), "one frame per job");
        let expected_wire: Vec<u8> = sent_in_order.iter().flat_map(|j| j.frame().encode()).collect();
        assert!(wire == expected_wire, "byte for byte");
    });
}

#[test]
fn the_page_assembler_makes_words_pads_and_drops() {
    let seed = common::seed("the_page_assembler_makes_words_pads_and_drops");
    cosim("page_assembler", "page_assembler", |m| {
        let mut rng = common::rng(seed);
        let p = |n: &str| m.port(n).unwrap_or_else(|e| panic!("{e}"));
        let (reset, start, open, data, page_byte, pad, drop) =
            (p("reset"), p("start"), p("open"), p("data"), p("page_byte"), p("pad"), p("drop"));
        let (word, word_valid, word_ready) = (p("page$word"), p("page$valid"), p("page$ready"));
        let (page_drop, active, begun, pad_done) = (p("page_drop"), p("active"), p("begun"), p("pad_done"));
        m.set(reset, 1);
        m.tick();
        m.set(reset, 0);
        // One clock: returns the word taken (if any) and whether `page_drop`
        // and `pad_done` pulsed.
        let clock = |m: &mut Model, rng: &mut ChaCha8Rng, words: &mut Vec<u32>, drops: &mut usize| -> bool {
            // The lane takes a word within a few clocks (well within a byte).
            m.set(word_ready, rng.gen_ratio(2, 3) as u64);
            m.eval();
            if m.get(word_valid) == 1 && m.get(word_ready) == 1 {
                words.push(m.get(word) as u32);
            }
            *drops += m.get(page_drop) as usize;
            let done = m.get(pad_done) == 1;
            m.tick();
            m.set(start, 0);
            m.set(page_byte, 0);
            m.set(drop, 0);
            done
        };
        for round in 0..60 {
            let mut page = [0u8; 4096];
            match rng.gen_range(0..4) {
                0 => page.fill(0xff),
                _ => rng.fill(&mut page[..]),
            }
            let taken = rng.gen_ratio(4, 5);
            let (mut words, mut drops) = (Vec::new(), 0);
            // The header: the page is taken (a WRITE the core can take) or not.
            m.set(start, 1);
            m.set(open, taken as u64);
            clock(m, &mut rng, &mut words, &mut drops);
            // The first page byte is a byte's time later.
            for _ in 0..rng.gen_range(2..12) {
                clock(m, &mut rng, &mut words, &mut drops);
            }
            assert_eq!(m.get(active) == 1, taken, "round {round}");
            // All the page, or part of it (an abandoned frame).
            let abandoned = rng.gen_ratio(1, 4);
            let sent = if abandoned { rng.gen_range(0..4096) } else { 4096 };
            for &b in &page[..sent] {
                m.set(data, b as u64);
                m.set(page_byte, 1);
                clock(m, &mut rng, &mut words, &mut drops);
                for _ in 0..rng.gen_range(4..12) {
                    clock(m, &mut rng, &mut words, &mut drops);
                }
            }
            for _ in 0..8 {
                clock(m, &mut rng, &mut words, &mut drops);
            }
            assert_eq!(m.get(begun) == 1, taken && sent > 0, "round {round}: begun");
            let whole = sent / 4;
            let expected: Vec<u32> = if taken {
                page[..whole * 4].chunks(4).map(|c| u32::from_be_bytes(c.try_into().unwrap())).collect()
            } else {
                Vec::new()
            };
            assert_eq!(words.len(), expected.len(), "round {round}: the words");
            if let Some(i) = (0..words.len()).find(|&i| words[i] != expected[i]) {
                panic!("round {round}: word {i} is {:#010x}, not {:#010x}", words[i], expected[i]);
            }
            if abandoned && taken && sent > 0 {
                // Padded with zero words to 1,024, then dropped.
                m.set(pad, 1);
                let mut padded = 0;
                while !clock(m, &mut rng, &mut words, &mut drops) {
                    padded += 1;
                    assert!(padded < 20_000, "round {round}: padding ends");
                }
                m.set(pad, 0);
                clock(m, &mut rng, &mut words, &mut drops);
                // A partial word is finished with zero bytes.
                let mut full = page[..sent].to_vec();
                full.resize(4096, 0);
                let expected: Vec<u32> = full.chunks(4).map(|c| u32::from_be_bytes(c.try_into().unwrap())).collect();
                assert_eq!(words.len(), 1024, "round {round}: a whole page");
                let partial = sent % 4 != 0;
                for (i, (got, want)) in words.iter().zip(&expected).enumerate() {
                    if partial && i == whole {
                        // The abandoned partial word is not sent; a zero word
                        // stands in its place.
                        assert_eq!(*got, 0, "round {round}: word {i}");
                    } else {
                        assert_eq!(got, want, "round {round}: word {i}");
                    }
                }
                assert_eq!(drops, 1, "round {round}: the padded page is dropped once");
            } else {
                // The frame ends; half of the whole pages are not claimed.
                let dropped = rng.gen_bool(0.5);
                m.set(drop, dropped as u64);
                clock(m, &mut rng, &mut words, &mut drops);
                clock(m, &mut rng, &mut words, &mut drops);
                assert_eq!(drops, (dropped && taken) as usize, "round {round}: a page is dropped only if taken");
            }
        }
    });
}

/// One frame as the request decoder sees it, with the board's state.
#[derive(Clone, Debug)]
struct DecoderCase {
    good: bool,
    /// The frame's kind ([`kind::COMMAND`], `AGAIN`, `FP_DATA`, `MEM_DATA`, `ACK`).
    kind: u8,
    tag: u8,
    op: u8,
    lpa: u32,
    fp: [u8; 20],
    page_frame: bool,
    core_busy: bool,
    response_pending: bool,
    page_open: bool,
    answered: Option<u8>,
    /// The request under way as [`ditto_hw::board::HostRequest`] numbers it
    /// (0 for none), and its tag.
    request: u64,
    request_tag: u8,
    request_sending: bool,
}

/// What the board does with a frame, as the protocol says.
#[derive(Debug, PartialEq)]
enum Decision {
    Nothing,
    Reject(u8),
    Resend,
    Run { op: u8, more: bool, lpa: u32, fp: [u8; 20] },
    Answer { status: u8, value: u32 },
    Complete,
}

impl DecoderCase {
    /// The protocol's answer, and whether the frame's page is dropped.
    fn decide(&self, counters: &[u32; 6]) -> (Decision, bool) {
        use ditto_hw::ftl::{Op, Status};
        if !self.good {
            return (Decision::Reject(error::CHECKSUM), true);
        }
        match self.kind {
            kind::COMMAND => {
                if self.core_busy || self.response_pending || (self.page_frame && !self.page_open) {
                    return (Decision::Reject(error::BUSY), true);
                }
                if self.answered == Some(self.tag) {
                    return (Decision::Resend, true);
                }
                let op = self.op & !ditto_hw::board::protocol::MORE;
                let takes_page = op == Op::Write as u8;
                if op > Op::Reset as u8 || takes_page != self.page_frame {
                    return (Decision::Answer { status: Status::ErrMalformed as u8, value: 0 }, true);
                }
                let base = ditto_hw::board::protocol::INDEX_STATS_BASE;
                if op == Op::Stats as u8 && (base..base + 6).contains(&self.lpa) {
                    let value = counters[(self.lpa - base) as usize];
                    return (Decision::Answer { status: Status::Done as u8, value }, false);
                }
                let more = self.op & ditto_hw::board::protocol::MORE != 0;
                (Decision::Run { op, more, lpa: self.lpa, fp: self.fp }, false)
            }
            kind::AGAIN => {
                (if self.answered.is_some() && !self.core_busy { Decision::Resend } else { Decision::Nothing }, false)
            }
            k => {
                let answers = match self.request {
                    1 | 3 | 5 => k == kind::ACK,
                    2 => k == kind::MEM_DATA,
                    4 => k == kind::FP_DATA,
                    _ => false,
                };
                let taken = answers && self.tag == self.request_tag && !self.request_sending;
                (if taken { Decision::Complete } else { Decision::Nothing }, false)
            }
        }
    }

    /// A frame drawn as a link's traffic is: mostly commands, with their
    /// selectors and opcodes near the edges the decoder tells apart (the
    /// index counters, `WRITE` with and without a page, opcodes above 7,
    /// the last response's tag), answers with the request's tag or not.
    fn draw(rng: &mut ChaCha8Rng) -> DecoderCase {
        let request_tag = rng.gen();
        let answered = if rng.gen_ratio(9, 10) { Some(rng.gen()) } else { None };
        let kind = match rng.gen_range(0..100) {
            0..=59 => kind::COMMAND,
            60..=69 => kind::AGAIN,
            70..=79 => kind::FP_DATA,
            80..=89 => kind::MEM_DATA,
            _ => kind::ACK,
        };
        let tag = match (kind, rng.gen_range(0..10)) {
            (kind::COMMAND, 0) => answered.unwrap_or(0),
            (kind::FP_DATA | kind::MEM_DATA | kind::ACK, 0..=6) => request_tag,
            _ => rng.gen(),
        };
        let op = match rng.gen_range(0..10) {
            0..=4 => rng.gen_range(0..8),
            5..=6 => 5,
            7 => rng.gen_range(8..128),
            _ => rng.gen(),
        } | if rng.gen_ratio(1, 4) { ditto_hw::board::protocol::MORE } else { 0 };
        let lpa = match rng.gen_range(0..10) {
            0..=3 => rng.gen_range(10..20),
            4 => rng.gen_range(10..20) | (1 << rng.gen_range(5..24)),
            5 => (1 << 24) - 1,
            _ => rng.gen_range(0..1 << 24),
        };
        let mut fp = [0u8; 20];
        rng.fill(&mut fp);
        let page_frame = kind == kind::COMMAND && rng.gen_ratio(1, 3);
        DecoderCase {
            good: rng.gen_ratio(15, 16),
            kind,
            tag,
            op,
            lpa,
            fp,
            page_frame,
            core_busy: rng.gen_ratio(1, 8),
            response_pending: rng.gen_ratio(1, 8),
            page_open: rng.gen_ratio(7, 8),
            answered,
            request: rng.gen_range(0..=5),
            request_tag,
            request_sending: rng.gen_ratio(1, 6),
        }
    }
}

#[test]
fn the_request_decoder_does_what_the_protocol_says() {
    let seed = common::seed("the_request_decoder_does_what_the_protocol_says");
    cosim("request_decoder", "request_decoder", |m| {
        let mut rng = common::rng(seed);
        let all_ports: std::collections::HashMap<&str, PortId> = [
            "reset",
            "done",
            "good",
            "tag",
            "payload",
            "page_frame",
            "is_command",
            "is_again",
            "is_fp_data",
            "is_mem_data",
            "is_ack",
            "core_busy",
            "response_pending",
            "page_open",
            "answered",
            "answered_tag",
            "request",
            "request_tag",
            "request_sending",
            "op",
            "more",
            "lpa",
            "fp",
            "reject",
            "reject_code",
            "drop_page",
            "run",
            "resend",
            "answer_here",
            "answer_status",
            "answer_value",
            "complete",
        ]
        .into_iter()
        .map(|n| (n, port(m, n)))
        .collect();
        let p = |n: &str| all_ports[n];
        let names = [
            "counters$commands",
            "counters$bloom_negatives",
            "counters$false_positives",
            "counters$rebuilds",
            "counters$signature_misses",
            "counters$entries_used",
        ];
        let counter_ports: Vec<PortId> = names.iter().map(|n| port(m, n)).collect();
        let (done, reject, reject_code, drop_page) = (p("done"), p("reject"), p("reject_code"), p("drop_page"));
        let (run, resend, answer_here, complete) = (p("run"), p("resend"), p("answer_here"), p("complete"));
        m.set(p("reset"), 1);
        m.tick();
        m.set(p("reset"), 0);
        let mut seen = std::collections::BTreeMap::<&str, usize>::new();
        for case_no in 0..3_000 {
            let case = DecoderCase::draw(&mut rng);
            // Counters near their extremes now and then.
            let counters: [u32; 6] = std::array::from_fn(|_| if rng.gen_ratio(1, 8) { u32::MAX } else { rng.gen() });
            for (port_id, value) in counter_ports.iter().zip(counters) {
                m.set(*port_id, value as u64);
            }
            let mut payload = vec![case.op];
            payload.extend_from_slice(&case.lpa.to_be_bytes()[1..]);
            payload.extend_from_slice(&case.fp);
            let words: Vec<u32> = payload.rchunks(4).map(|c| u32::from_be_bytes(c.try_into().unwrap())).collect();
            m.set_words(p("payload"), &words);
            m.set(p("good"), case.good as u64);
            m.set(p("tag"), case.tag as u64);
            m.set(p("page_frame"), case.page_frame as u64);
            for (name, k) in [
                ("is_command", kind::COMMAND),
                ("is_again", kind::AGAIN),
                ("is_fp_data", kind::FP_DATA),
                ("is_mem_data", kind::MEM_DATA),
                ("is_ack", kind::ACK),
            ] {
                m.set(p(name), (case.kind == k) as u64);
            }
            m.set(p("core_busy"), case.core_busy as u64);
            m.set(p("response_pending"), case.response_pending as u64);
            m.set(p("page_open"), case.page_open as u64);
            m.set(p("answered"), case.answered.is_some() as u64);
            m.set(p("answered_tag"), case.answered.unwrap_or(0) as u64);
            m.set(p("request"), case.request);
            m.set(p("request_tag"), case.request_tag as u64);
            m.set(p("request_sending"), case.request_sending as u64);
            // The frame's fields hold for its CRC's four bytes (clocks
            // apart) before `done`: three clocks let the decoder's
            // registered decodes settle.
            for _ in 0..rng.gen_range(3..7) {
                m.tick();
                m.eval();
                assert_eq!(
                    m.get(run) + m.get(resend) + m.get(reject) + m.get(drop_page),
                    0,
                    "case {case_no}: no decision without done"
                );
            }
            m.set(done, 1);
            m.eval();
            let mut got = Decision::Nothing;
            if m.get(reject) == 1 {
                got = Decision::Reject(m.get(reject_code) as u8);
            } else if m.get(resend) == 1 {
                got = Decision::Resend;
            } else if m.get(run) == 1 {
                let words = m.get_words(p("fp")).to_vec();
                let fp: Vec<u8> = wide_bytes(&words, 20);
                got = Decision::Run {
                    op: m.get(p("op")) as u8,
                    more: m.get(p("more")) == 1,
                    lpa: m.get(p("lpa")) as u32,
                    fp: fp.try_into().unwrap(),
                };
            }
            assert!(m.get(reject) + m.get(resend) + m.get(run) <= 1, "case {case_no}: one decision");
            let dropped = m.get(drop_page) == 1;
            m.tick();
            m.set(done, 0);
            m.eval();
            if m.get(answer_here) == 1 {
                assert_eq!(got, Decision::Nothing, "case {case_no}: one decision");
                got = Decision::Answer {
                    status: m.get(p("answer_status")) as u8,
                    value: m.get(p("answer_value")) as u32,
                };
            }
            if m.get(complete) == 1 {
                assert_eq!(got, Decision::Nothing, "case {case_no}: one decision");
                got = Decision::Complete;
            }
            let (expected, expected_drop) = case.decide(&counters);
            assert_eq!(got, expected, "case {case_no}: {case:?}");
            assert_eq!(dropped, expected_drop, "case {case_no}: the page is dropped: {case:?}");
            let label = match expected {
                Decision::Nothing => "nothing",
                Decision::Reject(c) if c == error::CHECKSUM => "reject checksum",
                Decision::Reject(_) => "reject busy",
                Decision::Resend => "resend",
                Decision::Run { .. } => "run",
                Decision::Answer { status, .. } if status == ditto_hw::ftl::Status::Done as u8 => "index stats",
                Decision::Answer { .. } => "malformed",
                Decision::Complete => "complete",
            };
            *seen.entry(label).or_default() += 1;
            // The pulses last one clock.
            m.tick();
            m.eval();
            assert_eq!(m.get(answer_here) + m.get(complete), 0, "case {case_no}: one clock");
        }
        println!("decisions: {seen:?}");
        assert_eq!(seen.len(), 8, "every decision is taken: {seen:?}");
    });
}
