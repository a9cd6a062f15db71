//! The `cu` board top cosimulated through its pins: pages go in over `usb_rx`
//! bit by bit from a Rust UART peer, digests come back on `usb_tx`.
use ditto_sim::hasher::sha1_of;
use ditto_sim::testkit as common;
use ditto_sim::uart::UartPeer;
use ditto_sim::Model;

/// Power-on reset (32 cycles), its registered release and the hasher's flush,
/// with room to spare.
const POWER_ON_CYCLES: u64 = 100;

struct Board<'m> {
    model: &'m mut Model,
    peer: UartPeer,
    usb_rx: ditto_sim::PortId,
    usb_tx: ditto_sim::PortId,
    led: ditto_sim::PortId,
}

impl<'m> Board<'m> {
    fn new(model: &'m mut Model) -> Self {
        let cfg = ditto_hw::config::CU;
        let (usb_rx, usb_tx, led) = (model.input("usb_rx").unwrap(), model.port("usb_tx").unwrap(), model.port("led").unwrap());
        let rst_n = model.input("rst_n").unwrap();
        model.set(rst_n, 1);
        model.set(usb_rx, 1);
        let peer = UartPeer::new(cfg.uart_cycles_per_bit() as u64);
        Self { model, peer, usb_rx, usb_tx, led }
    }

    /// Runs `cycles` cycles with the line idle (e.g. through power-on reset).
    fn idle(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.model.set(self.usb_rx, 1);
            self.model.tick();
        }
    }

    /// Runs until `bytes` bytes have come back or `limit` cycles pass.
    fn run_until_received(&mut self, bytes: usize, limit: u64) {
        for _ in 0..limit {
            self.model.eval();
            let tx = self.model.get(self.usb_tx) == 1;
            let rx = self.peer.step(tx);
            self.model.set(self.usb_rx, rx as u64);
            self.model.tick();
            if self.peer.received.len() >= bytes && !self.peer.sending() {
                return;
            }
        }
        panic!("only {} of {bytes} bytes came back within {limit} cycles", self.peer.received.len());
    }

    fn leds(&mut self) -> u64 {
        self.model.eval();
        self.model.get(self.led)
    }
}

#[test]
fn board_top_hashes_pages_sent_over_the_uart() {
    let label = "board_top_hashes_pages_sent_over_the_uart";
    let mut rng = common::rng(common::seed(label));
    let pages = [common::random_page(&mut rng), [0u8; 4096]];
    common::cosim(label, "board_cu", |m| {
    let mut board = Board::new(m);
    board.idle(POWER_ON_CYCLES);
    for page in &pages {
        board.peer.send(page);
    }
    board.run_until_received(40, 2 * 4096 * 10 * 100 + 200_000);
    assert_eq!(board.peer.received[..20], sha1_of(&pages[0]));
    assert_eq!(board.peer.received[20..40], sha1_of(&pages[1]));
    assert_eq!(board.peer.framing_errors, 0);
    let leds = board.leds();
    assert_eq!(leds >> 4, 2, "led[7:4] counts digests sent");
    assert_eq!(leds & 0b1100, 0, "no framing error, no overflow");
    });
}

#[test]
fn corrupted_stop_bit_lights_the_framing_led_and_the_board_keeps_serving() {
    let label = "corrupted_stop_bit_lights_the_framing_led_and_the_board_keeps_serving";
    common::cosim(label, "board_cu", |m| {
    let mut board = Board::new(m);
    board.idle(POWER_ON_CYCLES);
    board.peer.send_bad_stop_bit(0x55);
    board.run_until_received(0, 20 * 100);
    assert_eq!(board.leds() & 0b100, 0b100, "led[2] shows the framing error");
    // The corrupted byte was dropped; a whole page after it still hashes right.
    let page = [0xa5u8; 4096];
    board.peer.send(&page);
    board.run_until_received(20, 4096 * 10 * 100 + 200_000);
    assert_eq!(board.peer.received[..20], sha1_of(&page));
    });
}
