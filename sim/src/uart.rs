//! A bit-level 8N1 UART peer for cosimulating board tops: it drives the
//! board's receive pin from a queue of bytes and decodes the board's transmit
//! pin, one clock cycle at a time.
use std::collections::VecDeque;

/// One end of a UART line, advanced once per simulated clock cycle.
pub struct UartPeer {
    period: u64,
    to_board: VecDeque<u16>,
    tx_frame: Option<(u16, u64)>,
    rx_state: Option<(u64, u8, u16)>,
    /// Bytes decoded from the board.
    pub received: Vec<u8>,
    /// Frames from the board whose stop bit was low.
    pub framing_errors: usize,
}

impl UartPeer {
    /// A peer with a bit period of `cycles_per_bit` clock cycles.
    pub fn new(cycles_per_bit: u64) -> Self {
        assert!(cycles_per_bit >= 4);
        Self {
            period: cycles_per_bit,
            to_board: VecDeque::new(),
            tx_frame: None,
            rx_state: None,
            received: Vec::new(),
            framing_errors: 0,
        }
    }

    /// Queues bytes to send, each as start bit, 8 data bits LSB first, stop bit.
    pub fn send(&mut self, bytes: &[u8]) {
        self.to_board.extend(bytes.iter().map(|&b| 0x200 | ((b as u16) << 1)));
    }

    /// Queues a byte whose stop bit is low (a corrupted frame).
    pub fn send_bad_stop_bit(&mut self, byte: u8) {
        self.to_board.push_back((byte as u16) << 1);
    }

    /// True while bytes are still queued or being sent.
    pub fn sending(&self) -> bool {
        self.tx_frame.is_some() || !self.to_board.is_empty()
    }

    /// Advances one cycle: `board_tx` is the board's transmit pin this cycle;
    /// returns the level to put on the board's receive pin.
    pub fn step(&mut self, board_tx: bool) -> bool {
        // Decode the board's output, sampling in the middle of each bit.
        match &mut self.rx_state {
            None if !board_tx => self.rx_state = Some((self.period / 2, 0, 0)),
            None => {}
            Some((wait, bit, shift)) => {
                if *wait > 0 {
                    *wait -= 1;
                } else {
                    *wait = self.period - 1;
                    if *bit == 0 && board_tx {
                        self.rx_state = None; // a glitch, not a start bit
                    } else if (1..=8).contains(bit) {
                        *shift |= (board_tx as u16) << (*bit - 1);
                        *bit += 1;
                    } else if *bit == 9 {
                        if board_tx {
                            self.received.push(*shift as u8);
                        } else {
                            self.framing_errors += 1;
                        }
                        self.rx_state = None;
                    } else {
                        *bit += 1;
                    }
                }
            }
        }
        // Drive the board's input.
        if self.tx_frame.is_none() {
            self.tx_frame = self.to_board.pop_front().map(|frame| (frame, 0));
        }
        match &mut self.tx_frame {
            None => true,
            Some((frame, cycle)) => {
                let level = (*frame >> (*cycle / self.period)) & 1 == 1;
                *cycle += 1;
                if *cycle == 10 * self.period {
                    self.tx_frame = None;
                }
                level
            }
        }
    }
}
