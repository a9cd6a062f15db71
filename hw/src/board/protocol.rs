//! The board link's framed protocol, in software: what
//! [`CoreBoardTop`](super::CoreBoardTop) speaks over the USB UART, and what
//! the host driver and the cosimulation tests speak to it.
//!
//! Every frame, both ways: `SYNC kind tag len_hi len_lo payload[len]
//! crc[4]`. The CRC is CRC-32/MPEG-2 (Ethernet's polynomial 0x04C11DB7,
//! most significant bit first, initial value 0xFFFFFFFF, no final XOR) over
//! `kind` to the end of the payload, sent big-endian: over a whole frame,
//! CRC included, it leaves 0. It detects every error of up to three bits in
//! frames as long as a `WRITE`'s 33,000 bits (a CRC-16 misses two-bit
//! errors 32,767 bits apart, its period). Multi-byte fields are
//! big-endian. A receiver hunts for `SYNC`, checks that the kind is known and
//! the length is the kind's, and then the CRC; on any failure it drops what
//! it has and hunts again, so it resynchronises after garbage or a lost
//! byte. The board also abandons a frame left incomplete for its receive
//! timeout.
//!
//! Host to board:
//! - `C` command, tag = the command's tag: `op lpa[3] fp[20]` (24 bytes),
//!   and for `WRITE` the page after it (4,120 bytes). Bit 7 of `op`
//!   ([`MORE`]) holds the background cleaner until the next command.
//! - `F` fingerprint (answer to `Q`), `D` FTL memory word (answer to `M`),
//!   `K` acknowledgement (of `W`, `N`, `V`): tag = the request's sequence tag.
//! - `A` again: send the last response once more (tag unused).
//!
//! A command with the tag of the board's last response is not run again:
//! the board sends that response again. So a host may resend a command
//! whose response it missed; it must not reuse the last tag for a new one.
//!
//! Board to host:
//! - `R` response, tag = the command's: `status value[4] flags cleaned[2]`,
//!   where `cleaned` counts (mod 2^16) the background cleaner's steps
//!   before this command, so a host can replay them in the golden model.
//! - Requests, one at a time, each with the next sequence tag and resent
//!   until answered: `V` relocation `from[3] to[3]`; `Q` fingerprint read
//!   `entry[2]`; `W` fingerprint write `entry[2] fp[20]`; `M` FTL memory read
//!   `addr[4]`; `N` FTL memory write `addr[4] data[8]`. A resent request
//!   carries the same tag; applying a write twice is harmless.
//! - `E` error `code kind`, tag = the rejected frame's: see [`error`]. A
//!   rejected command is not executed (a `WRITE`'s page is discarded).
//!
//! `STATS` selectors 12 to 17 read the index's counters (in the order of
//! [`crate::index::model::IndexStats`]); a command the core cannot take
//! (an opcode above 7, or a page with a non-`WRITE` or none with a `WRITE`) is answered `R` with
//! status `ErrMalformed`.
pub const SYNC: u8 = 0xA5;

/// Frame kinds.
pub mod kind {
    pub const COMMAND: u8 = b'C';
    pub const FP_DATA: u8 = b'F';
    pub const MEM_DATA: u8 = b'D';
    pub const ACK: u8 = b'K';
    pub const AGAIN: u8 = b'A';
    pub const RESPONSE: u8 = b'R';
    pub const MOVE: u8 = b'V';
    pub const FP_READ: u8 = b'Q';
    pub const FP_WRITE: u8 = b'W';
    pub const MEM_READ: u8 = b'M';
    pub const MEM_WRITE: u8 = b'N';
    pub const ERROR: u8 = b'E';
}

/// The codes of an `E` frame.
pub mod error {
    /// The frame's CRC did not match.
    pub const CHECKSUM: u8 = 1;
    /// Unknown kind, or a length the kind does not have.
    pub const HEADER: u8 = 2;
    /// The frame stopped arriving before its end (receive timeout).
    pub const TRUNCATED: u8 = 3;
    /// A command arrived while another was still being served.
    pub const BUSY: u8 = 4;
}

/// Op-byte flag: more commands of this batch follow (hold the cleaner).
pub const MORE: u8 = 0x80;
/// Payload length of a command frame without a page.
pub const COMMAND_LEN: usize = 24;
/// Payload length of a `WRITE` command frame.
pub const WRITE_COMMAND_LEN: usize = COMMAND_LEN + 4096;
/// First `STATS` selector that reads the index's counters.
pub const INDEX_STATS_BASE: u32 = 12;

/// The payload lengths a kind may have, host to board (`from_host`) or board
/// to host; `None` for a kind that direction does not carry.
pub fn payload_lens(frame_kind: u8, from_host: bool) -> Option<&'static [usize]> {
    use kind::*;
    Some(match (frame_kind, from_host) {
        (COMMAND, true) => &[COMMAND_LEN, WRITE_COMMAND_LEN],
        (FP_DATA, true) => &[20],
        (MEM_DATA, true) => &[8],
        (ACK | AGAIN, true) => &[0],
        (RESPONSE, false) => &[8],
        (MOVE, false) => &[6],
        (FP_READ, false) => &[2],
        (FP_WRITE, false) => &[22],
        (MEM_READ, false) => &[4],
        (MEM_WRITE, false) => &[12],
        (ERROR, false) => &[2],
        _ => return None,
    })
}

/// The payload length of a kind that has only one, host to board
/// (`from_host`) or board to host. Panics for a kind that direction does
/// not carry, or that has two lengths (a command): a hardware constant is
/// being built from it.
pub fn single_payload_len(frame_kind: u8, from_host: bool) -> usize {
    match payload_lens(frame_kind, from_host) {
        Some([len]) => *len,
        other => panic!("kind {} has no single length this way: {other:?}", frame_kind as char),
    }
}

/// The CRC's polynomial (IEEE 802.3), most significant bit first.
pub const CRC32_POLY: u32 = 0x04C1_1DB7;
/// Bytes of the CRC at a frame's end.
pub const CRC_BYTES: usize = 4;

/// One CRC-32/MPEG-2 step over a byte, a bit at a time from the most
/// significant (the hardware unrolls the same eight steps).
pub fn crc32_update(crc: u32, byte: u8) -> u32 {
    let mut crc = crc ^ ((byte as u32) << 24);
    for _ in 0..8 {
        crc = if crc & 0x8000_0000 != 0 { (crc << 1) ^ CRC32_POLY } else { crc << 1 };
    }
    crc
}

/// CRC-32/MPEG-2 of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0xffff_ffff, |crc, &b| crc32_update(crc, b))
}

/// One frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub kind: u8,
    pub tag: u8,
    pub payload: Vec<u8>,
}

impl Frame {
    pub fn new(kind: u8, tag: u8, payload: Vec<u8>) -> Self {
        Frame { kind, tag, payload }
    }

    /// The frame's bytes on the wire.
    pub fn encode(&self) -> Vec<u8> {
        let len = self.payload.len() as u16;
        let mut out = Vec::with_capacity(self.payload.len() + 5 + CRC_BYTES);
        out.extend_from_slice(&[SYNC, self.kind, self.tag, (len >> 8) as u8, len as u8]);
        out.extend_from_slice(&self.payload);
        let crc = crc32(&out[1..]);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    /// A command frame: `op lpa fp`, then the page for a `WRITE`.
    pub fn command(op: u8, tag: u8, lpa: u32, fp: &[u8; 20], page: Option<&[u8; 4096]>) -> Self {
        let mut payload = Vec::with_capacity(WRITE_COMMAND_LEN);
        payload.push(op);
        payload.extend_from_slice(&lpa.to_be_bytes()[1..]);
        payload.extend_from_slice(fp);
        if let Some(page) = page {
            payload.extend_from_slice(page);
        }
        Frame::new(kind::COMMAND, tag, payload)
    }

    /// The big-endian number in payload bytes `at..at + n`.
    pub fn field(&self, at: usize, n: usize) -> u64 {
        self.payload[at..at + n].iter().fold(0, |acc, &b| (acc << 8) | b as u64)
    }
}

/// Why a receiver dropped what it had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("frame header with unknown kind {kind:#04x} or a length ({len}) it does not have")]
    Header { kind: u8, len: usize },
    #[error("frame {kind:?} (tag {tag}) failed its CRC")]
    Checksum { kind: char, tag: u8 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RxState {
    Hunt,
    Kind,
    Tag,
    LenHi,
    LenLo,
    Payload,
    /// The CRC's bytes; the count taken so far.
    Crc(usize),
}

/// A byte-at-a-time frame receiver with the board's rules (hunt for `SYNC`,
/// check kind and length, then the CRC).
pub struct Deframer {
    from_host: bool,
    state: RxState,
    kind: u8,
    tag: u8,
    len: usize,
    payload: Vec<u8>,
    /// The CRC over what has arrived since `SYNC`.
    crc: u32,
    /// Bytes skipped while hunting for `SYNC`.
    pub skipped: u64,
}

impl Deframer {
    /// A receiver of frames sent by the host (`from_host`) or by the board.
    pub fn new(from_host: bool) -> Self {
        Deframer { from_host, state: RxState::Hunt, kind: 0, tag: 0, len: 0, payload: Vec::new(), crc: 0, skipped: 0 }
    }

    /// True between a frame's `SYNC` and its last byte.
    pub fn in_frame(&self) -> bool {
        self.state != RxState::Hunt
    }

    /// True between a good header and the frame's last byte.
    pub fn header_taken(&self) -> bool {
        matches!(self.state, RxState::Payload | RxState::Crc(_))
    }

    /// The frame under way is a `WRITE` command with its page (its header
    /// is taken and says so).
    pub fn expecting_page(&self) -> bool {
        self.header_taken() && self.kind == kind::COMMAND && self.len == WRITE_COMMAND_LEN
    }

    /// Drops a partial frame (a receive timeout).
    pub fn abandon(&mut self) {
        self.state = RxState::Hunt;
    }

    /// Takes one byte; returns a frame (or why one was dropped) when one ends.
    pub fn push(&mut self, byte: u8) -> Option<Result<Frame, FrameError>> {
        if self.state != RxState::Hunt {
            self.crc = crc32_update(self.crc, byte);
        }
        match self.state {
            RxState::Hunt => {
                if byte == SYNC {
                    self.state = RxState::Kind;
                    self.crc = 0xffff_ffff;
                } else {
                    self.skipped += 1;
                }
            }
            RxState::Kind => {
                self.kind = byte;
                self.state = RxState::Tag;
            }
            RxState::Tag => {
                self.tag = byte;
                self.state = RxState::LenHi;
            }
            RxState::LenHi => {
                self.len = (byte as usize) << 8;
                self.state = RxState::LenLo;
            }
            RxState::LenLo => {
                self.len |= byte as usize;
                if !payload_lens(self.kind, self.from_host).is_some_and(|lens| lens.contains(&self.len)) {
                    self.state = RxState::Hunt;
                    return Some(Err(FrameError::Header { kind: self.kind, len: self.len }));
                }
                self.payload.clear();
                self.state = if self.len == 0 { RxState::Crc(0) } else { RxState::Payload };
            }
            RxState::Payload => {
                self.payload.push(byte);
                if self.payload.len() == self.len {
                    self.state = RxState::Crc(0);
                }
            }
            RxState::Crc(n) if n + 1 < CRC_BYTES => self.state = RxState::Crc(n + 1),
            RxState::Crc(_) => {
                self.state = RxState::Hunt;
                // The CRC's own bytes bring a good frame's CRC to 0.
                if self.crc != 0 {
                    return Some(Err(FrameError::Checksum { kind: self.kind as char, tag: self.tag }));
                }
                return Some(Ok(Frame::new(self.kind, self.tag, std::mem::take(&mut self.payload))));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_mpeg2() {
        // The standard check value of CRC-32/MPEG-2.
        assert_eq!(crc32(b"123456789"), 0x0376_e6e7);
    }

    /// CRC-16/CCITT-FALSE, the link's CRC before: kept here to show the
    /// error it missed.
    fn crc16(bytes: &[u8]) -> u16 {
        bytes.iter().fold(0xffff, |crc: u16, &b| {
            let mut x = ((crc >> 8) ^ b as u16) & 0xff;
            x ^= x >> 4;
            (crc << 8) ^ (x << 12) ^ (x << 5) ^ x
        })
    }

    /// Once a bug: a CRC-16 has period 32,767, so two flipped bits 32,767
    /// apart in a 32,992-bit `WRITE` frame left it unchanged.
    #[test]
    fn two_bit_errors_32767_bits_apart_in_a_write_frame_are_caught() {
        let page: [u8; 4096] = core::array::from_fn(|i| (i * 7 % 251) as u8);
        let wire = Frame::command(0, 9, 77, &[3; 20], Some(&page)).encode();
        let covered = 8 * (wire.len() - 1 - CRC_BYTES);
        assert!(covered > 32_767 + 100);
        let flip = |bytes: &mut [u8], bit: usize| bytes[1 + bit / 8] ^= 0x80 >> (bit % 8);
        // Past the header (kind, tag, length: bits 0..32), which is checked on its own.
        for first in [32, 45, 200, covered - 32_768] {
            let mut bad = wire.clone();
            flip(&mut bad, first);
            flip(&mut bad, first + 32_767);
            let body = &bad[1..bad.len() - CRC_BYTES];
            assert_eq!(crc16(body), crc16(&wire[1..wire.len() - CRC_BYTES]), "the old CRC-16 misses it");
            let mut rx = Deframer::new(true);
            let got: Vec<_> = bad.iter().filter_map(|&b| rx.push(b)).collect();
            assert_eq!(got, vec![Err(FrameError::Checksum { kind: 'C', tag: 9 })], "bits {first} and +32767");
        }
    }

    #[test]
    fn frames_round_trip_and_resynchronise_after_garbage_and_corruption() {
        let a = Frame::new(kind::RESPONSE, 7, vec![5, 0, 0, 1, 2, 0, 0, 4]);
        let b = Frame::new(kind::MEM_READ, 8, vec![0x10, 0, 0, 4]);
        for f in [&a, &b] {
            assert!(!f.encode()[1..].contains(&SYNC), "no SYNC inside these frames (else a receiver may start there)");
        }
        let run = |wire: Vec<u8>| {
            let mut rx = Deframer::new(false);
            let got: Vec<_> = wire.iter().filter_map(|&byte| rx.push(byte)).collect();
            (got, rx.skipped)
        };
        // Garbage without a SYNC is skipped.
        let (got, skipped) = run([&[0x00, 0x13, 0x43][..], &a.encode(), &b.encode()].concat());
        assert_eq!((got, skipped), (vec![Ok(a.clone()), Ok(b.clone())], 3));
        // A stray SYNC with a header no frame has: dropped, then the next frame.
        let (got, _) = run([&[SYNC, 0x99, 0x13, 0x00, 0x01][..], &a.encode()].concat());
        assert_eq!(got, vec![Err(FrameError::Header { kind: 0x99, len: 1 }), Ok(a.clone())]);
        // A flipped bit anywhere after the SYNC: a checksum (or header)
        // error, then the next frame comes through.
        for at in 1..a.encode().len() {
            let mut bad = a.encode();
            bad[at] ^= 0x10;
            let (got, _) = run([bad, b.encode()].concat());
            assert!(got.len() == 2 && got[0].is_err() && got[1] == Ok(b.clone()), "flip at {at}: {got:?}");
        }
    }

    #[test]
    fn a_command_frame_lays_out_op_lpa_fp_and_page() {
        let page = [0x5a; 4096];
        let f = Frame::command(0, 3, 0x012345, &[9; 20], Some(&page));
        assert_eq!(f.payload.len(), WRITE_COMMAND_LEN);
        assert_eq!(f.field(0, 1), 0);
        assert_eq!(f.field(1, 3), 0x012345);
        assert_eq!(&f.encode()[..5], &[SYNC, b'C', 3, 0x10, 0x18]);
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Any bytes: the deframer never panics, and a frame it passes
            /// is one whose own encoding stands in the input (garbage does
            /// not make a good CRC out of thin air, short of a 2^-32 chance).
            #[test]
            fn any_bytes_give_only_frames_that_were_sent(
                noise in proptest::collection::vec(any::<u8>(), 0..600),
                payload in proptest::collection::vec(any::<u8>(), 8..=8),
                at in 0usize..600,
                from_host in any::<bool>(),
            ) {
                let frame = Frame::new(if from_host { kind::MEM_DATA } else { kind::RESPONSE }, 7, payload);
                let mut wire = noise.clone();
                let at = at.min(wire.len());
                wire.splice(at..at, frame.encode());
                let mut rx = Deframer::new(from_host);
                let mut good = Vec::new();
                for &b in &wire {
                    if let Some(Ok(f)) = rx.push(b) {
                        good.push(f);
                    }
                }
                for f in &good {
                    let bytes = f.encode();
                    prop_assert!(wire.windows(bytes.len()).any(|w| w == &bytes[..]), "a frame nobody sent: {f:?}");
                }
            }
        }
    }
}
