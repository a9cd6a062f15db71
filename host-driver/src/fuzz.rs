//! Fuzz harnesses: one per parser of untrusted bytes. Each takes any bytes,
//! runs the parser on them, and panics only when the parser breaks a
//! promise: it panicked itself, or what it accepted does not hold up (a
//! frame nobody sent, a read that does not see the last write, a parse
//! that does not survive its own round trip). Errors are fine: bad input
//! gets a typed error.
//!
//! The same functions serve two drivers: the coverage-guided fuzzer in
//! `host-driver/fuzz` (cargo-afl with Debian's afl++, run on demand by
//! `scripts/fuzz`), and the test `tests/fuzz_corpus.rs`, which replays the
//! corpus that fuzzer keeps in the repo on every CI run.
use std::io::{Read, Write};
use std::path::Path;

use ditto_hw::board::protocol::{payload_lens, Deframer};

use crate::driver::{setup_for, BackingStore, Device};
use crate::store::format::{decode_journal, encode_entry, journal_header, StoreSpec};
use crate::transport::ModelTransport;

/// One harness.
#[derive(Clone, Copy)]
pub struct FuzzTarget {
    /// `scripts/fuzz NAME`, and the corpus folder's name.
    pub name: &'static str,
    /// What it feeds, and what it checks.
    pub about: &'static str,
    pub run: fn(&[u8]),
}

/// Every harness, in order.
pub const TARGETS: &[FuzzTarget] = &[
    FuzzTarget {
        name: "nbd",
        about: "a client's bytes to an NBD session on a model device: reads see the writes before them",
        run: nbd_session,
    },
    FuzzTarget {
        name: "uart-frames",
        about: "line bytes to the board link's deframer (first byte: direction): only frames that were sent",
        run: uart_frames,
    },
    FuzzTarget {
        name: "fiu-trace",
        about: "text to the FIU trace parser, then the replay plan: accesses within the planned device",
        run: fiu_trace,
    },
    FuzzTarget {
        name: "store-journal",
        about: "bytes to the store's journal reader: what it reads re-encodes to what it reads",
        run: store_journal,
    },
    FuzzTarget {
        name: "size",
        about: "text to the command line's size parser: a size it reads, written out, reads the same",
        run: size,
    },
];

/// Well-formed inputs for the harness called `name`, from which a corpus
/// starts (`ditto-fuzz --seeds`), and which the corpus test replays too.
pub fn seeds(name: &str) -> Vec<Vec<u8>> {
    match name {
        "nbd" => nbd_seeds(),
        "uart-frames" => uart_seeds(),
        "fiu-trace" => vec![
            b"0 1 fio 0 8 W 8 0 d41d8cd98f00b204e9800998ecf8427e\n".to_vec(),
            b"10 2 fio 8 16 R 8 0 d41d8cd98f00b204e9800998ecf8427e+0cc175b9c0f1b6a831c399e269772661\n\n\
              11 2 fio 4 4 W 8 0 900150983cd24fb0d6963f7d28e17f72\n"
                .to_vec(),
        ],
        "store-journal" => {
            use crate::store::format::Entry;
            use crate::store::mirror::Event;
            let mut journal = journal_header(1);
            let events = vec![
                Event::Map { lpa: 3, ppa: 9, fresh: true, flags: 0, fingerprint: [7; 20] },
                Event::Unmap { lpa: 2 },
            ];
            journal.extend(encode_entry(0, &Entry::Ops { events, redo: vec![(9, Box::new([0x5a; 4096]))] }));
            journal.extend(encode_entry(1, &Entry::Commit));
            let mut torn = journal.clone();
            torn.extend(&encode_entry(2, &Entry::Commit)[..7]);
            vec![journal, torn]
        }
        "size" => ["4096", "16M", "1GiB", "7 k", "18446744073709551615", "16E"].map(|s| s.as_bytes().to_vec()).to_vec(),
        _ => Vec::new(),
    }
}

fn nbd_seeds() -> Vec<Vec<u8>> {
    let mut hello = 2u32.to_be_bytes().to_vec(); // no zeroes
    hello.extend(b"IHAVEOPT");
    let option = |code: u32, data: &[u8]| {
        let mut out = b"IHAVEOPT".to_vec();
        out.extend(code.to_be_bytes());
        out.extend((data.len() as u32).to_be_bytes());
        out.extend(data);
        out
    };
    let request = |kind: u16, flags: u16, handle: u64, offset: u64, length: u32, fill: Option<u8>| {
        let mut out = 0x2560_9513u32.to_be_bytes().to_vec();
        out.extend(flags.to_be_bytes());
        out.extend(kind.to_be_bytes());
        out.extend(handle.to_be_bytes());
        out.extend(offset.to_be_bytes());
        out.extend(length.to_be_bytes());
        if let Some(fill) = fill {
            out.extend(std::iter::repeat_n(fill, length as usize));
        }
        out
    };
    // By export name (option 1), then writes, reads, a trim, zeroes, a
    // flush and a disconnect.
    let mut by_name = 2u32.to_be_bytes().to_vec();
    by_name.extend(option(1, b""));
    by_name.extend(request(NBD_WRITE, 0, 1, 4096, 4096, Some(0x11)));
    by_name.extend(request(NBD_WRITE, 1, 2, 100, 300, Some(0x22)));
    by_name.extend(request(NBD_READ, 0, 3, 0, 8192, None));
    by_name.extend(request(NBD_TRIM, 0, 4, 4096, 8192, None));
    by_name.extend(request(NBD_WRITE_ZEROES, 0, 5, 50, 100, None));
    by_name.extend(request(3, 0, 6, 0, 0, None));
    by_name.extend(request(NBD_READ, 0, 7, 0, 12288, None));
    by_name.extend(request(2, 0, 8, 0, 0, None));
    // Info, an unknown option, then go; a read past the end.
    let mut by_go = 2u32.to_be_bytes().to_vec();
    by_go.extend(option(6, &[0, 0, 0, 0, 0, 0]));
    by_go.extend(option(99, b"x"));
    by_go.extend(option(7, &[0, 0, 0, 0, 0, 0]));
    by_go.extend(request(NBD_READ, 0, 1, NBD_SIZE - 512, 1024, None));
    by_go.extend(request(NBD_WRITE, 0, 2, NBD_SIZE, 512, Some(1)));
    // Offsets whose end overflows 64 bits (the fuzzer's first find: the
    // harness itself overflowed on them).
    by_go.extend(request(NBD_WRITE, 0, 3, u64::MAX - 4095, 4096, Some(2)));
    by_go.extend(request(3, 0, 4, u64::MAX, u32::MAX, None));
    let mut aborted = 2u32.to_be_bytes().to_vec();
    aborted.extend(option(2, b""));
    vec![by_name, by_go, aborted]
}

fn uart_seeds() -> Vec<Vec<u8>> {
    use ditto_hw::board::protocol::{kind, Frame};
    let page = [0x5au8; 4096];
    let to_board = [
        Frame::command(0, 3, 0x0123, &[9; 20], Some(&page)),
        Frame::command(1, 4, 0x0007, &[0; 20], None),
        Frame::new(kind::FP_DATA, 5, vec![3; 20]),
        Frame::new(kind::MEM_DATA, 6, vec![4; 8]),
        Frame::new(kind::ACK, 7, Vec::new()),
    ];
    let from_board = [
        Frame::new(kind::RESPONSE, 1, vec![1; 8]),
        Frame::new(kind::MOVE, 2, vec![2; 6]),
        Frame::new(kind::FP_WRITE, 3, vec![3; 22]),
        Frame::new(kind::MEM_WRITE, 4, vec![4; 12]),
        Frame::new(kind::ERROR, 5, vec![1, 0]),
    ];
    let line = |direction: u8, frames: &[Frame], noise: &[u8]| {
        let mut out = vec![direction];
        for f in frames {
            out.extend(noise);
            out.extend(f.encode());
        }
        out
    };
    vec![line(1, &to_board, b""), line(0, &from_board, b""), line(1, &to_board[2..], &[0xff, 0x00, 0x42])]
}

/// The harness called `name`.
pub fn by_name(name: &str) -> Option<&'static FuzzTarget> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Bytes of the model device the NBD harness serves (16 pages).
const NBD_SIZE: u64 = 16 * 4096;
const PAGE: usize = 4096;
const NBD_READ: u16 = 0;
const NBD_WRITE: u16 = 1;
const NBD_TRIM: u16 = 4;
const NBD_WRITE_ZEROES: u16 = 6;

/// A client's bytes in, the server's out.
struct Wire<'a> {
    input: &'a [u8],
    output: Vec<u8>,
}

impl Read for Wire<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.input.read(buf)
    }
}

impl Write for Wire<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.output.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The bytes as a client's side of an NBD connection, served by a model
/// device of 16 pages. Every read that succeeds gives back the bytes of
/// the writes before it (zeros where nothing was written, trimmed or
/// zeroed); the server's hello always comes first.
pub fn nbd_session(bytes: &[u8]) {
    let setup = setup_for(16, 1).expect("a 16-page setup");
    let store = BackingStore::temporary(&StoreSpec::of("large", &setup)).expect("a temporary store");
    let mut device =
        Device::new(ModelTransport::new(setup.core_config(&ditto_hw::config::LARGE)), store, true).expect("a device");
    let mut shadow = vec![0u8; NBD_SIZE as usize];
    let mut wire = Wire { input: bytes, output: Vec::new() };
    // Any ending but a panic: the bytes may stop or go wrong anywhere.
    let _ = crate::nbd::session(&mut wire, NBD_SIZE, |request| {
        let (error, data) = crate::nbd::handle(&mut device, NBD_SIZE, &request);
        if error == 0 {
            // (Only a data request that succeeded lies inside the device:
            // the offset and length of any other may overflow.)
            let range = || request.offset as usize..(request.offset + request.length as u64) as usize;
            match request.kind {
                NBD_WRITE => shadow[range()].copy_from_slice(&request.payload),
                NBD_WRITE_ZEROES => shadow[range()].fill(0),
                // A trim drops only the pages wholly inside it (reads of
                // them give zeros); partial pages keep their bytes.
                NBD_TRIM => {
                    let range = range();
                    let first = range.start.div_ceil(PAGE) * PAGE;
                    let end = range.end / PAGE * PAGE;
                    if first < end {
                        shadow[first..end].fill(0);
                    }
                }
                NBD_READ => {
                    let range = range();
                    assert!(data == shadow[range.clone()], "a read of {range:?} that is not the writes");
                }
                _ => {}
            }
        }
        Ok((error, data))
    });
    assert_eq!(&wire.output[..8], b"NBDMAGIC", "the server's hello");
}

/// The first byte picks the direction (bit 0: frames from the host), the
/// rest is the line. Every good frame the deframer passes has a payload
/// length its kind allows and its own encoding stands in the bytes: a
/// good CRC does not come out of thin air.
pub fn uart_frames(bytes: &[u8]) {
    let Some((&direction, line)) = bytes.split_first() else { return };
    let from_host = direction & 1 == 1;
    let mut rx = Deframer::new(from_host);
    for &byte in line {
        if let Some(Ok(frame)) = rx.push(byte) {
            let lens = payload_lens(frame.kind, from_host).expect("a kind the deframer passed is known");
            assert!(
                lens.contains(&frame.payload.len()),
                "a {}-byte payload for kind {}",
                frame.payload.len(),
                frame.kind
            );
            let encoded = frame.encode();
            assert!(line.windows(encoded.len()).any(|w| w == encoded), "a frame nobody sent: {frame:?}");
        }
    }
}

/// The bytes as trace text (invalid UTF-8 replaced). A trace that parses
/// plans accesses inside the device the plan says it needs, dense or not;
/// one that does not names the file and line.
pub fn fiu_trace(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    match crate::replay::parse(Path::new("fuzz.trace"), &text) {
        Ok(requests) => {
            for dense in [false, true] {
                let (accesses, stats) = crate::replay::plan(&requests, dense);
                assert!(accesses.iter().all(|a| a.lpa < stats.device_pages), "an access past the planned device");
            }
        }
        Err(err) => assert!(err.to_string().contains("fuzz.trace"), "an error without its file: {err}"),
    }
}

/// The bytes as a journal of generation 1: what the reader accepts,
/// encoded again and read back, is the same entries, and the whole and
/// torn bytes add up to the file.
pub fn store_journal(bytes: &[u8]) {
    let Ok(read) = decode_journal(bytes, 1) else { return };
    assert_eq!(read.valid_bytes + read.torn_bytes, bytes.len());
    let mut again = journal_header(1);
    for (seq, entry) in read.entries.iter().enumerate() {
        again.extend(encode_entry(seq as u64, entry));
    }
    let reread = decode_journal(&again, 1).expect("a journal just encoded reads");
    assert_eq!(reread.entries, read.entries);
    assert_eq!((reread.valid_bytes, reread.torn_bytes), (again.len(), 0));
}

/// The bytes as a size on the command line: one it accepts, written out in
/// bytes, is accepted as the same size.
pub fn size(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    if let Ok(n) = crate::limits::parse_size(text) {
        assert_eq!(crate::limits::parse_size(&n.to_string()).ok(), Some(n), "{text:?} read as {n}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_has_a_distinct_name() {
        for (i, t) in TARGETS.iter().enumerate() {
            assert!(TARGETS[..i].iter().all(|u| u.name != t.name), "{} twice", t.name);
            assert!(by_name(t.name).is_some());
        }
        assert!(by_name("nope").is_none());
    }

    #[test]
    fn every_target_has_seeds_and_they_pass() {
        for t in TARGETS {
            let seeds = seeds(t.name);
            assert!(!seeds.is_empty(), "{}: no seeds", t.name);
            for seed in &seeds {
                (t.run)(seed);
            }
        }
    }

    #[test]
    fn well_formed_inputs_pass_every_harness() {
        // A frame that was sent passes; the same bytes claimed to be from
        // the other side are not a frame at all.
        let frame = ditto_hw::board::protocol::Frame::new(ditto_hw::board::protocol::kind::RESPONSE, 7, vec![1; 8]);
        let mut line = vec![0u8];
        line.extend(frame.encode());
        uart_frames(&line);
        // A journal of two entries round-trips.
        let mut journal = journal_header(1);
        journal.extend(encode_entry(0, &crate::store::format::Entry::Commit));
        journal.extend(encode_entry(1, &crate::store::format::Entry::Commit));
        journal.extend([1, 2, 3]);
        store_journal(&journal);
        size(b"16M");
        fiu_trace(b"1 2 p 0 8 W 8 0 x\n");
        nbd_session(&[0, 0, 0, 2]);
    }
}
