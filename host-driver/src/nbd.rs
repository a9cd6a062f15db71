//! `ditto serve --nbd`: Ditto as a Network Block Device (fixed newstyle
//! negotiation; `READ`, `WRITE` (with `FUA`), `WRITE_ZEROES`, `TRIM`,
//! `FLUSH`, `DISCONNECT`), so that `qemu-img`, `qemu-io`, `nbdcopy` or fio
//! can write a disk image onto it and read it back. Requests that are not
//! page-aligned are served by read-modify-write of the pages they touch; a
//! request past the end gets `EINVAL` (writes `ENOSPC`) and nothing is
//! changed. Any number of clients at once, each on a thread of its own.
use crate::driver::{Device, DriverError, Transport, PAGE};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
const IHAVEOPT: u64 = 0x4948_4156_454f_5054;
const REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
const REQUEST_MAGIC: u32 = 0x2560_9513;
const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;

const FLAG_FIXED_NEWSTYLE: u16 = 1;
const FLAG_NO_ZEROES: u16 = 2;
const CLIENT_NO_ZEROES: u32 = 2;

const OPT_EXPORT_NAME: u32 = 1;
const OPT_ABORT: u32 = 2;
const OPT_INFO: u32 = 6;
const OPT_GO: u32 = 7;
const REP_ACK: u32 = 1;
const REP_INFO: u32 = 3;
const REP_ERR_UNSUP: u32 = 0x8000_0001;
const INFO_EXPORT: u16 = 0;

/// Transmission flags: has flags, can flush, honours FUA, can trim, can
/// write zeroes, and multi-conn (a flush on any connection commits every
/// connection's writes: they all reach one device).
const TRANSMISSION_FLAGS: u16 = 1 | 4 | 8 | 32 | 64 | 256;

const CMD_READ: u16 = 0;
const CMD_WRITE: u16 = 1;
const CMD_DISC: u16 = 2;
const CMD_FLUSH: u16 = 3;
const CMD_TRIM: u16 = 4;
const CMD_WRITE_ZEROES: u16 = 6;
const CMD_FLAG_FUA: u16 = 1;

const EIO: u32 = 5;
const EINVAL: u32 = 22;
const ENOSPC: u32 = 28;

/// Largest request served (32 MiB, qemu's own limit).
const MAX_REQUEST: u32 = 32 << 20;

/// Errors of the server itself (a client's bad request is an NBD error reply).
#[derive(Debug, thiserror::Error)]
pub enum NbdError {
    #[error("network: {0}")]
    Io(#[from] std::io::Error),
    #[error("protocol: {0}")]
    Protocol(String),
    #[error("the server stopped")]
    Stopped,
}

fn read_u16(s: &mut impl Read) -> std::io::Result<u16> {
    let mut b = [0; 2];
    s.read_exact(&mut b)?;
    Ok(u16::from_be_bytes(b))
}
fn read_u32(s: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0; 4];
    s.read_exact(&mut b)?;
    Ok(u32::from_be_bytes(b))
}
fn read_u64(s: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0; 8];
    s.read_exact(&mut b)?;
    Ok(u64::from_be_bytes(b))
}

fn option_reply(s: &mut impl Write, option: u32, kind: u32, data: &[u8]) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(20 + data.len());
    out.extend(REPLY_MAGIC.to_be_bytes());
    out.extend(option.to_be_bytes());
    out.extend(kind.to_be_bytes());
    out.extend((data.len() as u32).to_be_bytes());
    out.extend(data);
    s.write_all(&out)
}

/// How [`serve`] runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct ServeOptions {
    /// A client that sends no request for this long is disconnected (its
    /// connection only: others go on). `None`: never.
    pub idle_timeout: Option<Duration>,
}

/// A request as a session hands it to the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub flags: u16,
    pub kind: u16,
    pub offset: u64,
    pub length: u32,
    /// A write's data.
    pub payload: Vec<u8>,
}

/// What the device answers: an NBD error number (0: done) and a read's data.
pub type Reply = (u32, Vec<u8>);

enum Message {
    Request(Request, mpsc::Sender<Reply>),
    Done(Result<(), NbdError>),
}

/// Serves `device` (of `size` bytes) on `listener` to any number of clients
/// at once: each connection has a thread of its own that speaks NBD, and
/// this thread runs their requests on the device one at a time, so an idle
/// client blocks no one. `after_client` runs after each disconnect (e.g. to
/// report) and says whether to go on. When `shutdown` is set (SIGTERM,
/// Ctrl-C) the device is flushed and `serve` returns.
pub fn serve<T: Transport>(
    listener: TcpListener,
    device: &mut Device<T>,
    size: u64,
    options: ServeOptions,
    shutdown: &AtomicBool,
    mut after_client: impl FnMut(&mut Device<T>) -> Result<bool, DriverError>,
) -> Result<(), NbdError> {
    let (tx, rx) = mpsc::channel::<Message>();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let tx = tx.clone();
            std::thread::spawn(move || {
                let result = stream
                    .set_nodelay(true)
                    .and_then(|_| stream.set_read_timeout(options.idle_timeout))
                    .map_err(NbdError::from)
                    .and_then(|_| {
                        session(&mut stream, size, |request| {
                            let (reply_tx, reply_rx) = mpsc::channel();
                            tx.send(Message::Request(request, reply_tx)).map_err(|_| NbdError::Stopped)?;
                            reply_rx.recv().map_err(|_| NbdError::Stopped)
                        })
                    });
                let _ = tx.send(Message::Done(result));
            });
        }
    });
    loop {
        if shutdown.load(Ordering::SeqCst) {
            device.flush().map_err(|e| NbdError::Protocol(format!("flushing at shutdown: {e}")))?;
            return Ok(());
        }
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(Message::Request(request, reply)) => {
                let _ = reply.send(handle(device, size, &request));
            }
            Ok(Message::Done(result)) => {
                match result {
                    Ok(()) => {}
                    Err(NbdError::Io(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {}
                    Err(NbdError::Io(e))
                        if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) =>
                    {
                        eprintln!("ditto serve: a client was idle past --idle-timeout: disconnected")
                    }
                    Err(e) => eprintln!("ditto serve: client dropped: {e}"),
                }
                if !after_client(device).map_err(|e| NbdError::Protocol(e.to_string()))? {
                    device.flush().map_err(|e| NbdError::Protocol(format!("flushing at the end: {e}")))?;
                    return Ok(());
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
        }
    }
}

/// One client's session over `s` (a socket; any byte stream in the tests):
/// the handshake, then each request handed to `run` and its reply sent.
pub(crate) fn session(
    s: &mut (impl Read + Write),
    size: u64,
    mut run: impl FnMut(Request) -> Result<Reply, NbdError>,
) -> Result<(), NbdError> {
    // Fixed newstyle handshake.
    let mut hello = Vec::new();
    hello.extend(NBDMAGIC.to_be_bytes());
    hello.extend(IHAVEOPT.to_be_bytes());
    hello.extend((FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
    s.write_all(&hello)?;
    let client_flags = read_u32(s)?;
    let no_zeroes = client_flags & CLIENT_NO_ZEROES != 0;
    // Option haggling, until the client picks the export.
    loop {
        if read_u64(s)? != IHAVEOPT {
            return Err(NbdError::Protocol("option without IHAVEOPT".into()));
        }
        let option = read_u32(s)?;
        let len = read_u32(s)?;
        if len > 4096 {
            return Err(NbdError::Protocol(format!("option {option} of {len} bytes")));
        }
        let mut data = vec![0; len as usize];
        s.read_exact(&mut data)?;
        match option {
            OPT_EXPORT_NAME => {
                let mut out = Vec::new();
                out.extend(size.to_be_bytes());
                out.extend(TRANSMISSION_FLAGS.to_be_bytes());
                if !no_zeroes {
                    out.extend([0u8; 124]);
                }
                s.write_all(&out)?;
                break;
            }
            OPT_INFO | OPT_GO => {
                let mut info = Vec::new();
                info.extend(INFO_EXPORT.to_be_bytes());
                info.extend(size.to_be_bytes());
                info.extend(TRANSMISSION_FLAGS.to_be_bytes());
                option_reply(s, option, REP_INFO, &info)?;
                option_reply(s, option, REP_ACK, &[])?;
                if option == OPT_GO {
                    break;
                }
            }
            OPT_ABORT => {
                option_reply(s, option, REP_ACK, &[])?;
                return Ok(());
            }
            _ => option_reply(s, option, REP_ERR_UNSUP, &[])?,
        }
    }
    // Transmission.
    loop {
        if read_u32(s)? != REQUEST_MAGIC {
            return Err(NbdError::Protocol("request without its magic".into()));
        }
        let flags = read_u16(s)?;
        let kind = read_u16(s)?;
        let handle = read_u64(s)?;
        let offset = read_u64(s)?;
        let length = read_u32(s)?;
        let mut payload = Vec::new();
        if kind == CMD_WRITE {
            if length > MAX_REQUEST {
                return Err(NbdError::Protocol(format!("a write of {length} bytes")));
            }
            payload = vec![0; length as usize];
            s.read_exact(&mut payload)?;
        }
        if kind == CMD_DISC {
            return Ok(());
        }
        let (error, data) = run(Request { flags, kind, offset, length, payload })?;
        let mut out = Vec::with_capacity(16 + data.len());
        out.extend(SIMPLE_REPLY_MAGIC.to_be_bytes());
        out.extend(error.to_be_bytes());
        out.extend(handle.to_be_bytes());
        if error == 0 {
            out.extend(data);
        }
        s.write_all(&out)?;
    }
}

/// Runs one request on the device: past the end `EINVAL` (a write
/// `ENOSPC`) and nothing changed; a write or write-zeroes with `FUA` is
/// committed before its reply.
pub fn handle<T: Transport>(device: &mut Device<T>, size: u64, r: &Request) -> Reply {
    let transfer = matches!(r.kind, CMD_READ | CMD_WRITE);
    let in_range =
        r.offset.checked_add(r.length as u64).is_some_and(|end| end <= size) && (!transfer || r.length <= MAX_REQUEST);
    let writes = matches!(r.kind, CMD_WRITE | CMD_WRITE_ZEROES);
    let done = |result: Result<(), DriverError>| (result.map_or_else(|e| errno(&e), |_| 0), Vec::new());
    let fua = |device: &mut Device<T>, result: Result<(), DriverError>| {
        result.and_then(|_| if r.flags & CMD_FLAG_FUA != 0 { device.flush() } else { Ok(()) })
    };
    match r.kind {
        _ if !in_range && writes => (ENOSPC, Vec::new()),
        CMD_READ | CMD_WRITE | CMD_FLUSH | CMD_TRIM | CMD_WRITE_ZEROES if !in_range => (EINVAL, Vec::new()),
        CMD_READ => match read_bytes(device, r.offset, r.length) {
            Ok(d) => (0, d),
            Err(e) => (errno(&e), Vec::new()),
        },
        CMD_WRITE => {
            let result = write_bytes(device, r.offset, &r.payload);
            done(fua(device, result))
        }
        CMD_WRITE_ZEROES => {
            let result = zero_bytes(device, r.offset, r.length);
            done(fua(device, result))
        }
        CMD_FLUSH => done(device.flush()),
        CMD_TRIM => done(trim_bytes(device, r.offset, r.length)),
        _ => (EINVAL, Vec::new()),
    }
}

fn errno(e: &DriverError) -> u32 {
    match e {
        DriverError::DeviceFull { .. } => ENOSPC,
        DriverError::OutOfRange { .. } => EINVAL,
        _ => {
            eprintln!("ditto serve: {e}");
            EIO
        }
    }
}

/// Pages `[first, last]` touched by `offset..offset + length`.
fn pages(offset: u64, length: u32) -> std::ops::RangeInclusive<u64> {
    offset / PAGE as u64..=(offset + length as u64 - 1) / PAGE as u64
}

fn read_bytes<T: Transport>(device: &mut Device<T>, offset: u64, length: u32) -> Result<Vec<u8>, DriverError> {
    let mut out = Vec::with_capacity(length as usize);
    if length == 0 {
        return Ok(out);
    }
    let lpas: Vec<u32> = pages(offset, length).map(|p| p as u32).collect();
    for (lpa, page) in lpas.iter().zip(device.read_batch(&lpas)?) {
        let base = *lpa as u64 * PAGE as u64;
        let start = (offset.max(base) - base) as usize;
        let end = ((offset + length as u64).min(base + PAGE as u64) - base) as usize;
        out.extend_from_slice(&page[start..end]);
    }
    Ok(out)
}

fn write_bytes<T: Transport>(device: &mut Device<T>, offset: u64, data: &[u8]) -> Result<(), DriverError> {
    if data.is_empty() {
        return Ok(());
    }
    let mut batch: Vec<(u32, Box<[u8; PAGE]>)> = Vec::new();
    for p in pages(offset, data.len() as u32) {
        let base = p * PAGE as u64;
        let start = offset.max(base) - base;
        let end = (offset + data.len() as u64).min(base + PAGE as u64) - base;
        let mut page = if start == 0 && end == PAGE as u64 {
            Box::new([0u8; PAGE])
        } else {
            device.read(p as u32)? // read-modify-write of a partial page
        };
        let from = (base + start - offset) as usize;
        page[start as usize..end as usize].copy_from_slice(&data[from..from + (end - start) as usize]);
        batch.push((p as u32, page));
    }
    for chunk in batch.chunks(64) {
        let refs: Vec<(u32, &[u8; PAGE])> = chunk.iter().map(|(l, p)| (*l, &**p)).collect();
        device.write_batch(&refs)?;
    }
    Ok(())
}

/// Trims the pages wholly inside the range; partial pages are left as they
/// are (a trim is advisory).
fn trim_bytes<T: Transport>(device: &mut Device<T>, offset: u64, length: u32) -> Result<(), DriverError> {
    let first = offset.div_ceil(PAGE as u64);
    let end = (offset + length as u64) / PAGE as u64;
    let lpas: Vec<u32> = (first..end).map(|p| p as u32).collect();
    for chunk in lpas.chunks(256) {
        device.trim_batch(chunk)?;
    }
    Ok(())
}

/// Writes zeros over the range: whole pages as zero pages (which dedup
/// shares like any duplicate), partial ones by read-modify-write.
fn zero_bytes<T: Transport>(device: &mut Device<T>, offset: u64, length: u32) -> Result<(), DriverError> {
    const CHUNK: u64 = 64 * PAGE as u64;
    let zeros = vec![0u8; CHUNK as usize];
    let end = offset + length as u64;
    let mut at = offset;
    while at < end {
        let n = (end - at).min(CHUNK - at % PAGE as u64);
        write_bytes(device, at, &zeros[..n as usize])?;
        at += n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{setup_for, BackingStore};
    use crate::store::format::StoreSpec;
    use crate::transport::ModelTransport;
    use proptest::prelude::*;

    /// A client's bytes in, the server's out.
    struct Wire {
        input: std::io::Cursor<Vec<u8>>,
        output: Vec<u8>,
    }

    impl Read for Wire {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.input.read(buf)
        }
    }

    impl Write for Wire {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.output.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    const SIZE: u64 = 16 * PAGE as u64;

    fn device() -> Device<ModelTransport> {
        let setup = setup_for(16, 1).unwrap();
        let store = BackingStore::temporary(&StoreSpec::of("large", &setup)).unwrap();
        Device::new(ModelTransport::new(setup.core_config(&ditto_hw::config::LARGE)), store, true).unwrap()
    }

    /// The client's side of the handshake: fixed newstyle, no zeroes, and
    /// the export by name.
    fn handshake() -> Vec<u8> {
        let mut out = CLIENT_NO_ZEROES.to_be_bytes().to_vec();
        out.extend(IHAVEOPT.to_be_bytes());
        out.extend(OPT_EXPORT_NAME.to_be_bytes());
        out.extend(0u32.to_be_bytes());
        out
    }

    /// A request: kind (0 to 5, 5 unknown), offset and length (some past
    /// the end), and a fill byte for a write's data.
    fn request() -> impl Strategy<Value = (u16, u64, u32, u8)> {
        (
            prop_oneof![
                3 => Just(CMD_WRITE),
                3 => Just(CMD_READ),
                1 => Just(CMD_FLUSH),
                1 => Just(CMD_WRITE_ZEROES),
                1 => Just(5u16)
            ],
            prop_oneof![4 => 0u64..SIZE, 1 => SIZE - 100..SIZE + 5_000, 1 => Just(u64::MAX - 10)],
            prop_oneof![4 => 0u32..9_000, 1 => Just(u32::MAX)],
            any::<u8>(),
        )
    }

    /// An option the client may send: a code (the four the server knows,
    /// or any), its data's length (some past the server's 4,096-byte cap)
    /// and whether its IHAVEOPT magic is damaged.
    fn option() -> impl Strategy<Value = (u32, u32, bool)> {
        (
            prop_oneof![
                2 => Just(OPT_INFO),
                1 => Just(OPT_GO),
                1 => Just(OPT_EXPORT_NAME),
                1 => Just(OPT_ABORT),
                4 => any::<u32>()
            ],
            prop_oneof![8 => 0u32..64, 1 => Just(4096), 1 => 4097u32..100_000],
            proptest::bool::weighted(0.05),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
        /// Option haggling with any options, then any bytes: the server
        /// never panics; it answers every option it reads in turn (an
        /// export for EXPORT_NAME, the export's size and flags then an ACK
        /// for INFO and GO, an ACK for ABORT, "unsupported" for any other),
        /// ends the handshake exactly at EXPORT_NAME, GO or ABORT, and ends
        /// it with a protocol error, having answered nothing more, at a
        /// damaged magic or an option past 4,096 bytes.
        #[test]
        fn any_option_haggling_gets_an_answer_per_option_or_a_typed_error(
            options in proptest::collection::vec(option(), 0..12),
            tail in proptest::collection::vec(any::<u8>(), 0..32),
        ) {
            let mut input = CLIENT_NO_ZEROES.to_be_bytes().to_vec();
            for &(code, len, damaged) in &options {
                input.extend(if damaged { IHAVEOPT ^ 1 } else { IHAVEOPT }.to_be_bytes());
                input.extend(code.to_be_bytes());
                input.extend(len.to_be_bytes());
                input.extend(std::iter::repeat_n(0x5a, len.min(4096) as usize));
            }
            input.extend(&tail);
            let mut wire = Wire { input: std::io::Cursor::new(input), output: Vec::new() };
            let result = session(&mut wire, SIZE, |_| Err(NbdError::Protocol("no request expected".into())));
            let out = wire.output;
            prop_assert_eq!(&out[..8], &NBDMAGIC.to_be_bytes()[..]);
            let mut at = 18;
            let reply = |out: &[u8], at: usize, code: u32, kind: u32, len: u32| -> bool {
                out.len() >= at + 20
                    && out[at..at + 8] == REPLY_MAGIC.to_be_bytes()
                    && out[at + 8..at + 12] == code.to_be_bytes()
                    && out[at + 12..at + 16] == kind.to_be_bytes()
                    && out[at + 16..at + 20] == len.to_be_bytes()
            };
            let mut ended = None;
            for (i, &(code, len, damaged)) in options.iter().enumerate() {
                if damaged || len > 4096 {
                    ended = Some(Err(i));
                    break;
                }
                match code {
                    OPT_EXPORT_NAME => {
                        prop_assert_eq!(&out[at..at + 8], &SIZE.to_be_bytes()[..], "option {}", i);
                        at += 10;
                        ended = Some(Ok(i));
                        break;
                    }
                    OPT_INFO | OPT_GO => {
                        prop_assert!(reply(&out, at, code, REP_INFO, 12), "option {}: no info", i);
                        prop_assert!(reply(&out, at + 32, code, REP_ACK, 0), "option {}: no ack", i);
                        at += 52;
                        if code == OPT_GO {
                            ended = Some(Ok(i));
                            break;
                        }
                    }
                    OPT_ABORT => {
                        prop_assert!(reply(&out, at, code, REP_ACK, 0), "option {}: no ack", i);
                        at += 20;
                        ended = Some(Ok(i));
                        break;
                    }
                    _ => {
                        prop_assert!(reply(&out, at, code, REP_ERR_UNSUP, 0), "option {}: not refused", i);
                        at += 20;
                    }
                }
            }
            match ended {
                // A bad magic or an oversized option: a typed error, and no
                // answer to it.
                Some(Err(i)) => {
                    prop_assert!(matches!(result, Err(NbdError::Protocol(_))), "option {}: {:?}", i, result);
                    prop_assert_eq!(out.len(), at);
                }
                // ABORT ends the session cleanly; EXPORT_NAME and GO go on to
                // transmission, where the tail may end it any way but a panic.
                Some(Ok(i)) if options[i].0 == OPT_ABORT => {
                    prop_assert!(result.is_ok(), "{:?}", result);
                    prop_assert_eq!(out.len(), at);
                }
                Some(Ok(_)) => prop_assert!(out.len() >= at),
                // The tail cut the haggling short: an error, never a panic.
                None => prop_assert!(out.len() >= at),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        /// Requests with any fields, then any bytes: the server never
        /// panics, answers each request with a reply of its handle, serves
        /// only in-range requests (past the end: EINVAL, a write ENOSPC), and
        /// reads give back exactly the bytes written before them.
        #[test]
        fn any_requests_and_bytes_get_replies_and_reads_see_the_writes(
            requests in proptest::collection::vec(request(), 0..24),
            tail in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let mut input = handshake();
            let mut sent = Vec::new();
            for (i, &(kind, offset, length, fill)) in requests.iter().enumerate() {
                // A huge write is refused before its data: keep it last.
                let length = if kind == CMD_WRITE { length.min(9_000) } else { length };
                input.extend(REQUEST_MAGIC.to_be_bytes());
                // Writes alternate with and without FUA.
                input.extend(if i % 2 == 0 { 0u16 } else { CMD_FLAG_FUA }.to_be_bytes());
                input.extend(kind.to_be_bytes());
                input.extend((i as u64).to_be_bytes());
                input.extend(offset.to_be_bytes());
                input.extend(length.to_be_bytes());
                if kind == CMD_WRITE {
                    input.extend(std::iter::repeat_n(fill, length as usize));
                }
                sent.push((kind, offset, length, fill));
            }
            input.extend(&tail);
            let mut wire = Wire { input: std::io::Cursor::new(input), output: Vec::new() };
            let mut dev = device();
            // The tail may end it any way but a panic.
            let _ = session(&mut wire, SIZE, |request| Ok(handle(&mut dev, SIZE, &request)));
            // The replies, after the server's hello (18 bytes) and its
            // answer to the export name (10 bytes without zeroes).
            let out = &wire.output[28.min(wire.output.len())..];
            let mut at = 0;
            let mut shadow = vec![0u8; SIZE as usize];
            for (i, &(kind, offset, length, fill)) in sent.iter().enumerate() {
                prop_assert!(out.len() >= at + 16, "request {} got no reply", i);
                let word = |k: usize| u32::from_be_bytes(out[at + k..at + k + 4].try_into().unwrap());
                prop_assert_eq!(word(0), SIMPLE_REPLY_MAGIC);
                let error = word(4);
                prop_assert_eq!(u64::from_be_bytes(out[at + 8..at + 16].try_into().unwrap()), i as u64);
                at += 16;
                let in_range = offset.checked_add(length as u64).is_some_and(|end| end <= SIZE);
                match kind {
                    CMD_WRITE if in_range => {
                        prop_assert_eq!(error, 0);
                        shadow[offset as usize..(offset + length as u64) as usize].fill(fill);
                    }
                    CMD_WRITE | CMD_WRITE_ZEROES if !in_range => prop_assert_eq!(error, ENOSPC),
                    CMD_WRITE_ZEROES => {
                        prop_assert_eq!(error, 0);
                        shadow[offset as usize..(offset + length as u64) as usize].fill(0);
                    }
                    CMD_READ if in_range => {
                        prop_assert_eq!(error, 0);
                        let range = offset as usize..(offset + length as u64) as usize;
                        prop_assert!(out[at..at + length as usize] == shadow[range], "read {} differs", i);
                        at += length as usize;
                    }
                    CMD_FLUSH if in_range => prop_assert_eq!(error, 0),
                    _ => prop_assert_eq!(error, EINVAL),
                }
            }
        }
    }
}
