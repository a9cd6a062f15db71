//! The signal groups that Ditto's modules speak to each other, declared
//! once as rust-hdl interfaces: the index's command and response streams,
//! the FTL's, the page stream, the relocation stream, and the three memory
//! ports.
//!
//! A stream comes in two halves, a `*Source` (drives `valid` and the
//! payload) and a `*Sink` (drives `ready`); a word moves on a clock where
//! both are high. A memory port's halves are a `*Controller` (drives the
//! requests) and a `*Responder` (answers them). Halves of one group are
//! wired with `join` (`IndexCommandSource::join(&mut self.a.cmd, &mut
//! self.b.cmd)`); a module hands its own port to a sub-module's with `link`.
//! In the emitted Verilog a group's signals are named `<port>$<field>`
//! (`cmd$valid`), which is how the cosimulation finds them.
//!
//! The contracts (what a memory port promises about order and latency, what
//! each command does) are stated where they are served: [`crate::index`]
//! for the table and fingerprint ports and the index's commands,
//! [`crate::ftl`] and its controller for the FTL's.
use crate::ftl::{ADDR_BITS, MEM_ADDR_BITS, MEM_DATA_BITS, REFCOUNT_BITS as FTL_REFCOUNT_BITS};
use crate::index::{
    CMD_TAG_BITS, ENTRY_BITS, MEM_TAG_BITS, REFCOUNT_BITS as INDEX_REFCOUNT_BITS, STAT_BITS, TABLE_ADDR_BITS,
    TABLE_DATA_BITS,
};
use rust_hdl::prelude::*;

/// A tagged memory port, from the side that asks: requests (`req_*`, a
/// write carries `req_wdata`, a read is answered) and the answers to reads
/// (`rsp_*`, with the read's tag). `A` address bits, `D` data bits.
#[derive(LogicInterface, Default)]
#[join = "TaggedMemResponder"]
pub struct TaggedMemController<const A: usize, const D: usize> {
    pub req_valid: Signal<Out, Bit>,
    pub req_ready: Signal<In, Bit>,
    pub req_write: Signal<Out, Bit>,
    pub req_addr: Signal<Out, Bits<A>>,
    pub req_wdata: Signal<Out, Bits<D>>,
    pub req_tag: Signal<Out, Bits<MEM_TAG_BITS>>,
    pub rsp_valid: Signal<In, Bit>,
    pub rsp_tag: Signal<In, Bits<MEM_TAG_BITS>>,
    pub rsp_rdata: Signal<In, Bits<D>>,
}

/// The answering half of [`TaggedMemController`].
#[derive(LogicInterface, Default)]
#[join = "TaggedMemController"]
pub struct TaggedMemResponder<const A: usize, const D: usize> {
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_write: Signal<In, Bit>,
    pub req_addr: Signal<In, Bits<A>>,
    pub req_wdata: Signal<In, Bits<D>>,
    pub req_tag: Signal<In, Bits<MEM_TAG_BITS>>,
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_tag: Signal<Out, Bits<MEM_TAG_BITS>>,
    pub rsp_rdata: Signal<Out, Bits<D>>,
}

/// The index's table port (bucket metadata and ways), from the index.
pub type TableController = TaggedMemController<TABLE_ADDR_BITS, TABLE_DATA_BITS>;
/// The table port, from the memory that serves it.
pub type TableResponder = TaggedMemResponder<TABLE_ADDR_BITS, TABLE_DATA_BITS>;
/// The index's full-fingerprint port (address = entry), from the index.
pub type FpStoreController = TaggedMemController<ENTRY_BITS, 160>;
/// The full-fingerprint port, from the memory that serves it.
pub type FpStoreResponder = TaggedMemResponder<ENTRY_BITS, 160>;

/// The FTL's memory port, from the controller: 64-bit words at 32-bit
/// addresses, answered in order (no tags).
#[derive(LogicInterface, Default)]
#[join = "FtlMemResponder"]
pub struct FtlMemController {
    pub req_valid: Signal<Out, Bit>,
    pub req_ready: Signal<In, Bit>,
    pub req_write: Signal<Out, Bit>,
    pub req_addr: Signal<Out, Bits<MEM_ADDR_BITS>>,
    pub req_wdata: Signal<Out, Bits<MEM_DATA_BITS>>,
    pub rsp_valid: Signal<In, Bit>,
    pub rsp_rdata: Signal<In, Bits<MEM_DATA_BITS>>,
}

/// The answering half of [`FtlMemController`].
#[derive(LogicInterface, Default)]
#[join = "FtlMemController"]
pub struct FtlMemResponder {
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_write: Signal<In, Bit>,
    pub req_addr: Signal<In, Bits<MEM_ADDR_BITS>>,
    pub req_wdata: Signal<In, Bits<MEM_DATA_BITS>>,
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_rdata: Signal<Out, Bits<MEM_DATA_BITS>>,
}

/// Commands to the index ([`crate::index::Op`] in `op`), from the side that
/// sends them; `tag` comes back with the response.
#[derive(LogicInterface, Default)]
#[join = "IndexCommandSink"]
pub struct IndexCommandSource {
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
    pub op: Signal<Out, Bits<3>>,
    pub fp: Signal<Out, Bits<160>>,
    pub entry: Signal<Out, Bits<ENTRY_BITS>>,
    pub tag: Signal<Out, Bits<CMD_TAG_BITS>>,
}

/// The index's half of [`IndexCommandSource`].
#[derive(LogicInterface, Default)]
#[join = "IndexCommandSource"]
pub struct IndexCommandSink {
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub op: Signal<In, Bits<3>>,
    pub fp: Signal<In, Bits<160>>,
    pub entry: Signal<In, Bits<ENTRY_BITS>>,
    pub tag: Signal<In, Bits<CMD_TAG_BITS>>,
}

/// The index's responses, one per command, from the index.
#[derive(LogicInterface, Default)]
#[join = "IndexResponseSink"]
pub struct IndexResponseSource {
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
    pub tag: Signal<Out, Bits<CMD_TAG_BITS>>,
    pub status: Signal<Out, Bits<4>>,
    pub entry: Signal<Out, Bits<ENTRY_BITS>>,
    pub refcount: Signal<Out, Bits<INDEX_REFCOUNT_BITS>>,
    pub flags: Signal<Out, Bits<4>>,
}

/// The receiving half of [`IndexResponseSource`].
#[derive(LogicInterface, Default)]
#[join = "IndexResponseSource"]
pub struct IndexResponseSink {
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub tag: Signal<In, Bits<CMD_TAG_BITS>>,
    pub status: Signal<In, Bits<4>>,
    pub entry: Signal<In, Bits<ENTRY_BITS>>,
    pub refcount: Signal<In, Bits<INDEX_REFCOUNT_BITS>>,
    pub flags: Signal<In, Bits<4>>,
}

/// The index's event counters, as it drives them.
#[derive(LogicInterface, Default)]
pub struct IndexCounters {
    pub commands: Signal<Out, Bits<STAT_BITS>>,
    pub bloom_negatives: Signal<Out, Bits<STAT_BITS>>,
    pub false_positives: Signal<Out, Bits<STAT_BITS>>,
    pub rebuilds: Signal<Out, Bits<STAT_BITS>>,
    pub signature_misses: Signal<Out, Bits<STAT_BITS>>,
    pub entries_used: Signal<Out, Bits<STAT_BITS>>,
}

/// Commands to the FTL ([`crate::ftl::Op`] in `op`), from the host's side;
/// `tag` comes back with the response.
#[derive(LogicInterface, Default)]
#[join = "FtlCommandSink"]
pub struct FtlCommandSource {
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
    pub op: Signal<Out, Bits<3>>,
    pub tag: Signal<Out, Bits<CMD_TAG_BITS>>,
    pub lpa: Signal<Out, Bits<ADDR_BITS>>,
    pub fp: Signal<Out, Bits<160>>,
}

/// The FTL's half of [`FtlCommandSource`].
#[derive(LogicInterface, Default)]
#[join = "FtlCommandSource"]
pub struct FtlCommandSink {
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub op: Signal<In, Bits<3>>,
    pub tag: Signal<In, Bits<CMD_TAG_BITS>>,
    pub lpa: Signal<In, Bits<ADDR_BITS>>,
    pub fp: Signal<In, Bits<160>>,
}

/// The FTL's responses, one per command, from the FTL.
#[derive(LogicInterface, Default)]
#[join = "FtlResponseSink"]
pub struct FtlResponseSource {
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
    pub tag: Signal<Out, Bits<CMD_TAG_BITS>>,
    pub status: Signal<Out, Bits<4>>,
    pub value: Signal<Out, Bits<32>>,
    pub flags: Signal<Out, Bits<3>>,
}

/// The receiving half of [`FtlResponseSource`].
#[derive(LogicInterface, Default)]
#[join = "FtlResponseSource"]
pub struct FtlResponseSink {
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub tag: Signal<In, Bits<CMD_TAG_BITS>>,
    pub status: Signal<In, Bits<4>>,
    pub value: Signal<In, Bits<32>>,
    pub flags: Signal<In, Bits<3>>,
}

/// Relocations (garbage collection moved physical page `from` to `to`),
/// from the FTL.
#[derive(LogicInterface, Default)]
#[join = "MoveSink"]
pub struct MoveSource {
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
    pub from: Signal<Out, Bits<ADDR_BITS>>,
    pub to: Signal<Out, Bits<ADDR_BITS>>,
}

/// The receiving half of [`MoveSource`].
#[derive(LogicInterface, Default)]
#[join = "MoveSource"]
pub struct MoveSink {
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub from: Signal<In, Bits<ADDR_BITS>>,
    pub to: Signal<In, Bits<ADDR_BITS>>,
}

/// Page data, 32-bit big-endian words, from the side that has the pages.
#[derive(LogicInterface, Default)]
#[join = "PageWordSink"]
pub struct PageWordSource {
    pub word: Signal<Out, Bits<32>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// The receiving half of [`PageWordSource`].
#[derive(LogicInterface, Default)]
#[join = "PageWordSource"]
pub struct PageWordSink {
    pub word: Signal<In, Bits<32>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// The FTL's geometry and limits (their contract is the controller's
/// `cfg_*` in [`crate::ftl::controller`]), held steady while the FTL runs.
#[derive(LogicInterface, Default)]
pub struct FtlSettings {
    /// log2 of the flash devices.
    pub dev_bits: Signal<In, Bits<2>>,
    /// log2 of the blocks per device.
    pub block_bits: Signal<In, Bits<4>>,
    /// log2 of the pages per block.
    pub page_bits: Signal<In, Bits<4>>,
    /// Blocks per device kept back for garbage collection.
    pub reserve: Signal<In, Bits<16>>,
    /// Logical pages served.
    pub lpas: Signal<In, Bits<ADDR_BITS>>,
    /// A duplicate may map to a copy on any device (else only on its own).
    pub array_wide: Signal<In, Bit>,
    /// The largest reference count a page may reach.
    pub refcount_max: Signal<In, Bits<FTL_REFCOUNT_BITS>>,
}
