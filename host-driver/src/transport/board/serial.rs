//! The Alchitry Cu's USB UART as a byte pipe (the `serialport` crate).
use super::BytePipe;
use crate::transport::TransportError;
use std::path::{Path, PathBuf};

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
    fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        use std::io::Write;
        self.port
            .write_all(bytes)
            .and_then(|_| self.port.flush())
            .map_err(|source| TransportError::SerialIo { path: self.path.clone(), source })
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
