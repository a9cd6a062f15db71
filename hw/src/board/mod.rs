//! Board-level wrappers: the UART link and the top that the pin files name.
pub mod top;
pub mod uart;

pub use top::BoardTop;
pub use uart::{UartRx, UartTx};
