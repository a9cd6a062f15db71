//! The Alchitry Cu's USB UART as a byte pipe (the `serialport` crate).
use super::BytePipe;
use crate::transport::TransportError;
use std::path::{Path, PathBuf};

/// How long a write may make no progress before the link is declared
/// broken: far longer than any frame takes at the board's rate, so only a
/// port that stopped draining reaches it.
pub const SEND_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// The Alchitry Cu's FTDI UART (8N1 at the board's baud rate).
pub struct SerialPipe {
    port: Box<dyn serialport::SerialPort>,
    path: PathBuf,
}

impl SerialPipe {
    /// Opens `path` at `baud`; a read waits up to 20 ms.
    pub fn open(path: &Path, baud: u32) -> Result<Self, TransportError> {
        let error = |source| TransportError::Serial { path: path.to_path_buf(), source };
        let port = serialport::new(path.to_string_lossy(), baud)
            .timeout(std::time::Duration::from_millis(20))
            .open()
            .map_err(error)?;
        // Bytes left from before (a board's power-on requests) are stale.
        port.clear(serialport::ClearBuffer::All).map_err(error)?;
        Ok(SerialPipe { port, path: path.to_path_buf() })
    }
}

impl BytePipe for SerialPipe {
    /// Writes every byte. A write that times out (the port's 20 ms) while
    /// the other side drains slowly, a busy USB UART or a pseudo-terminal's
    /// full buffer, is tried again; the link fails only after
    /// [`SEND_PATIENCE`] without a byte moving.
    fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        use std::io::{ErrorKind, Write};
        let failed = |source| TransportError::SerialIo { path: self.path.clone(), source };
        let (mut sent, mut last_progress) = (0, std::time::Instant::now());
        while sent < bytes.len() {
            match self.port.write(&bytes[sent..]) {
                Ok(n) if n > 0 => {
                    sent += n;
                    last_progress = std::time::Instant::now();
                }
                Ok(_) => {}
                Err(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::Interrupted | ErrorKind::WouldBlock) => {}
                Err(source) => return Err(failed(source)),
            }
            if sent < bytes.len() && last_progress.elapsed() > SEND_PATIENCE {
                return Err(failed(std::io::Error::new(
                    ErrorKind::TimedOut,
                    format!("{} of {} bytes written, then none for {SEND_PATIENCE:?}", sent, bytes.len()),
                )));
            }
        }
        self.port.flush().map_err(failed)
    }

    fn recv(&mut self, into: &mut Vec<u8>) -> Result<bool, TransportError> {
        let mut buf = [0u8; 256];
        match self.port.read(&mut buf) {
            Ok(0) => Ok(false),
            Ok(n) => {
                into.extend_from_slice(&buf[..n]);
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => Ok(false),
            Err(source) => Err(TransportError::SerialIo { path: self.path.clone(), source }),
        }
    }

    fn name(&self) -> String {
        format!("serial:{}", self.path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::time::Duration;

    /// A send that finds the pseudo-terminal's buffer full, with a reader
    /// that starts well after the port's 20 ms write timeout: the send
    /// waits for it, and every byte arrives in order.
    #[cfg(unix)]
    #[test]
    fn a_send_into_a_full_buffer_waits_for_a_slow_reader() {
        use std::os::unix::fs::OpenOptionsExt;
        let (mut master, slave) = serialport::TTYPort::pair().expect("a pseudo-terminal pair");
        let path = serialport::SerialPort::name(&slave).expect("the slave's path");
        let mut pipe = SerialPipe::open(Path::new(&path), 1_000_000).unwrap();
        drop(slave);
        // Fill the buffer through a second, non-blocking descriptor of the
        // same terminal, until it takes no more.
        let mut filler = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(&path)
            .unwrap();
        let mut filled = 0;
        loop {
            match filler.write(&[0x55; 1024]) {
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("filling the terminal: {e}"),
            }
            assert!(filled < 1 << 24, "the terminal never filled up");
        }
        let frame: Vec<u8> = (0..8192u32).map(|i| (i * 7 + i / 256) as u8).collect();
        let len = filled + frame.len();
        let reader = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            serialport::SerialPort::set_timeout(&mut master, Duration::from_secs(5)).unwrap();
            let (mut got, mut buf) = (Vec::new(), [0u8; 4096]);
            while got.len() < len {
                let n = master.read(&mut buf).expect("the frame's bytes");
                got.extend_from_slice(&buf[..n]);
            }
            got
        });
        pipe.send(&frame).unwrap();
        let got = reader.join().unwrap();
        assert!(got[..filled].iter().all(|&b| b == 0x55), "the filler first");
        assert!(got[filled..] == frame[..], "then the frame, whole and in order");
    }
}
