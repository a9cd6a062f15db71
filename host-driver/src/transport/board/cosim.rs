//! The cosimulated whole-core board top as a byte pipe: a bit-level UART
//! peer on its pins (the `verilator` feature).
use super::BytePipe;
use crate::transport::TransportError;
use ditto_hw::board::BoardSetup;

/// The cosimulated whole-core board top (Verilator model `board_cu_core`),
/// reached through its UART pins by a bit-level UART peer.
pub struct CosimUartPipe<M: std::borrow::BorrowMut<ditto_sim::Model>> {
    model: M,
    peer: ditto_sim::uart::UartPeer,
    usb_rx: ditto_sim::PortId,
    usb_tx: ditto_sim::PortId,
    taken: usize,
    patience: u64,
}

/// The cosimulation model of the Cu's whole-core board top.
pub const BOARD_MODEL: &str = "board_cu_core";

impl<M: std::borrow::BorrowMut<ditto_sim::Model>> CosimUartPipe<M> {
    /// Attaches to a fresh `board_cu_core` model (built with
    /// [`BoardSetup::COSIM`]) and runs its power-on reset.
    pub fn attach(mut model: M) -> Result<Self, TransportError> {
        let m = model.borrow_mut();
        let (usb_rx, usb_tx, rst_n) = (m.input("usb_rx")?, m.port("usb_tx")?, m.input("rst_n")?);
        m.set(rst_n, 1);
        m.set(usb_rx, 1);
        let setup = BoardSetup::COSIM;
        let mut pipe = CosimUartPipe {
            model,
            peer: ditto_sim::uart::UartPeer::new(setup.cycles_per_bit as u64),
            usb_rx,
            usb_tx,
            taken: 0,
            // A silence is a few of the board's byte times longer than its
            // receive timeout (so its `E` for a truncated frame comes first).
            patience: setup.rx_timeout as u64 * 3,
        };
        for _ in 0..64 {
            pipe.step();
        }
        Ok(pipe)
    }

    /// The model (for a test's own probing).
    pub fn model(&mut self) -> &mut ditto_sim::Model {
        self.model.borrow_mut()
    }

    /// Runs `cycles` clock cycles.
    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    fn step(&mut self) {
        let m = self.model.borrow_mut();
        m.eval();
        let tx = m.get(self.usb_tx) == 1;
        let rx = self.peer.step(tx);
        m.set(self.usb_rx, rx as u64);
        m.tick();
    }
}

impl<M: std::borrow::BorrowMut<ditto_sim::Model>> BytePipe for CosimUartPipe<M> {
    fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        self.peer.send(bytes);
        Ok(())
    }

    fn recv(&mut self, into: &mut Vec<u8>) -> Result<bool, TransportError> {
        let mut idle = 0;
        while self.peer.received.len() == self.taken {
            self.step();
            if !self.peer.sending() {
                idle += 1;
                if idle >= self.patience {
                    return Ok(false);
                }
            }
        }
        into.extend_from_slice(&self.peer.received[self.taken..]);
        self.taken = self.peer.received.len();
        Ok(true)
    }

    fn cycles(&self) -> u64 {
        self.model.borrow().cycles()
    }

    fn name(&self) -> String {
        format!("board-cosim ({BOARD_MODEL} over its UART pins)")
    }
}
