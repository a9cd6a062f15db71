//! Board-level wrappers: the UART link and the tops that the pin files name.
//!
//! The whole-core top ([`CoreBoardTop`]) is built of widgets, each with its
//! own test (`sim/tests/board_widgets.rs`): the UART ([`UartRx`],
//! [`UartTx`]), the receive framer ([`FrameReceiver`]), the page assembler
//! ([`PageAssembler`]), the request decoder ([`RequestDecoder`]: what each
//! whole frame asks for) and the response encoder and transmit framer
//! ([`FrameTransmitter`]). The top itself latches the core's responses and
//! keeps the one request to the host under way.
pub mod core_top;
pub mod crc32;
pub mod frame_rx;
pub mod frame_tx;
pub mod page_assembler;
pub mod protocol;
pub mod request_decoder;
pub mod uart;

pub use core_top::{BoardSetup, CoreBoardTop};
pub use frame_rx::FrameReceiver;
pub use frame_tx::{FrameTransmitter, HostRequest};
pub use page_assembler::PageAssembler;
pub use request_decoder::RequestDecoder;
pub use uart::{UartRx, UartTx};
