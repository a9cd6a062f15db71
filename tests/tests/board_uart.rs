//! The `cu` board top cosimulated through its pins: pages go in over `usb_rx`
//! bit by bit from a Rust UART peer; the board hashes them, looks them up in
//! its fingerprint index, asks the host for full fingerprints ('Q'), hands it
//! new ones to keep ('W'), and answers each page ('R'). The answers must be
//! the golden model's, and every fingerprint handed over the SHA-1 of its page.
use ditto_hw::index::model::{Command, IndexModel, Response};
use ditto_hw::index::{flag, Op, Status};
use ditto_sim::hasher::sha1_of;
use ditto_sim::testkit as common;
use ditto_sim::uart::UartPeer;
use ditto_sim::Model;
use std::collections::HashMap;

/// Power-on reset (32 cycles), its registered release, the hasher's flush and
/// the index clearing its 512 buckets, with room to spare.
const POWER_ON_CYCLES: u64 = 1_000;
/// A page crosses the link in 4,097 bytes of 10 bits at 100 cycles a bit.
const PAGE_CYCLES: u64 = 4_097 * 10 * 100;

struct Board<'m> {
    model: &'m mut Model,
    peer: UartPeer,
    usb_rx: ditto_sim::PortId,
    usb_tx: ditto_sim::PortId,
    led: ditto_sim::PortId,
    /// Bytes of `peer.received` already parsed into messages.
    parsed: usize,
    /// The full fingerprints the board asked the host to keep, by entry.
    store: HashMap<u16, [u8; 20]>,
    /// The fingerprints handed over, in order.
    written: Vec<(u16, [u8; 20])>,
    /// 'Q' requests answered.
    reads: usize,
}

impl<'m> Board<'m> {
    fn new(model: &'m mut Model) -> Self {
        let cfg = ditto_hw::config::CU;
        let (usb_rx, usb_tx, led) =
            (model.input("usb_rx").unwrap(), model.port("usb_tx").unwrap(), model.port("led").unwrap());
        let rst_n = model.input("rst_n").unwrap();
        model.set(rst_n, 1);
        model.set(usb_rx, 1);
        let peer = UartPeer::new(cfg.uart_cycles_per_bit() as u64);
        let mut board =
            Self { model, peer, usb_rx, usb_tx, led, parsed: 0, store: HashMap::new(), written: Vec::new(), reads: 0 };
        board.run(POWER_ON_CYCLES);
        board
    }

    fn step(&mut self) {
        self.model.eval();
        let tx = self.model.get(self.usb_tx) == 1;
        let rx = self.peer.step(tx);
        self.model.set(self.usb_rx, rx as u64);
        self.model.tick();
    }

    fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    /// The next whole message from the board, if one has arrived.
    fn next_message(&mut self) -> Option<Vec<u8>> {
        let bytes = &self.peer.received[self.parsed..];
        let len = match *bytes.first()? {
            b'Q' => 3,
            b'W' => 23,
            b'R' => 6,
            other => panic!("unknown message type {other:#04x} from the board"),
        };
        if bytes.len() < len {
            return None;
        }
        let message = bytes[..len].to_vec();
        self.parsed += len;
        Some(message)
    }

    /// Sends one page and serves the board's fingerprint requests until the
    /// page's result arrives.
    fn ingest(&mut self, page: &[u8; 4096], tag: u8) -> Response {
        self.peer.send(b"P");
        self.peer.send(page);
        for _ in 0..3 * PAGE_CYCLES {
            self.step();
            while let Some(m) = self.next_message() {
                let entry = u16::from_be_bytes([m[1], m[2]]);
                match m[0] {
                    b'Q' => {
                        let fp = self.store.get(&entry).copied().unwrap_or([0; 20]);
                        self.peer.send(b"F");
                        self.peer.send(&fp);
                        self.reads += 1;
                    }
                    b'W' => {
                        let fp: [u8; 20] = m[3..].try_into().unwrap();
                        self.store.insert(entry, fp);
                        self.written.push((entry, fp));
                    }
                    _ => {
                        let status = Status::from_code(m[1]).unwrap_or_else(|| panic!("status code {}", m[1]));
                        let entry = u16::from_be_bytes([m[2], m[3]]);
                        return Response { tag, status, entry, refcount: m[4], flags: m[5] };
                    }
                }
            }
        }
        panic!("no result for page {tag} within {} cycles", 3 * PAGE_CYCLES);
    }

    fn leds(&mut self) -> u64 {
        self.model.eval();
        self.model.get(self.led)
    }
}

#[test]
fn board_top_dedups_pages_sent_over_the_uart() {
    let label = "board_top_dedups_pages_sent_over_the_uart";
    let mut rng = common::rng(common::seed(label));
    let a = common::random_page(&mut rng);
    let pages = [a, [0u8; 4096], a, [0u8; 4096]];
    common::cosim(label, "board_cu", |m| {
        let mut board = Board::new(m);
        let mut golden = IndexModel::new(ditto_hw::config::CU.index_bucket_bits, true);
        let mut new_entries = Vec::new();
        for (i, page) in pages.iter().enumerate() {
            let got = board.ingest(page, i as u8);
            let want = golden.execute(&Command::with_fp(Op::Insert, sha1_of(page), i as u8));
            assert_eq!(got, want, "page {i}");
            if want.status == Status::New {
                new_entries.push((want.entry, sha1_of(page)));
            }
        }
        // Two new pages (each handed over with its SHA-1), two duplicates
        // (each confirmed with one full-fingerprint read).
        assert_eq!(new_entries.len(), 2);
        assert_eq!(board.written, new_entries);
        assert_eq!(board.reads, 2, "one full-fingerprint read per duplicate");
        assert_eq!(board.peer.framing_errors, 0);
        let leds = board.leds();
        assert_eq!(leds >> 4, 4, "led[7:4] counts results sent");
        assert_eq!(leds & 0b1110, 0, "idle, no framing or protocol error");
    });
}

#[test]
fn corrupted_and_unknown_bytes_light_the_error_leds_and_the_board_keeps_serving() {
    let label = "corrupted_and_unknown_bytes_light_the_error_leds_and_the_board_keeps_serving";
    common::cosim(label, "board_cu", |m| {
        let mut board = Board::new(m);
        board.peer.send_bad_stop_bit(0x55);
        board.run(20 * 100);
        assert_eq!(board.leds() & 0b1100, 0b0100, "led[2] shows the framing error");
        board.peer.send(&[0x33]);
        board.run(20 * 100);
        assert_eq!(board.leds() & 0b1000, 0b1000, "led[3] shows the unknown message byte");
        // The bad bytes were dropped; a whole page after them is served.
        let page = [0xa5u8; 4096];
        let r = board.ingest(&page, 0);
        assert_eq!((r.status, r.refcount, r.flags), (Status::New, 1, flag::BLOOM_NEGATIVE));
        assert_eq!(board.written.len(), 1);
        assert_eq!(board.written[0].1, sha1_of(&page));
    });
}
