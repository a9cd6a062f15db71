//! Board-level wrappers: the UART link and the tops that the pin files name.
pub mod core_top;
pub mod crc32;
pub mod protocol;
pub mod uart;

pub use core_top::{BoardSetup, CoreBoardTop};
pub use uart::{UartRx, UartTx};
