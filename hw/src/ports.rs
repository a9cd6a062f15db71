//! The signal groups that Ditto's modules speak to each other, declared
//! once as rust-hdl interfaces: the index's command and response streams,
//! the FTL's, the page stream, the relocation stream, and the three memory
//! ports.
//!
//! Each group's fields are listed once, with their directions as one half
//! drives them; `signal_group!` writes both halves from that list.
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
use crate::ftl::{
    ADDR_BITS, MEM_ADDR_BITS, MEM_DATA_BITS, MOVE_ADDR_BITS, NVM_SLOT_BITS, REFCOUNT_BITS as FTL_REFCOUNT_BITS,
};
use crate::index::{
    CMD_TAG_BITS, ENTRY_BITS, MEM_TAG_BITS, REFCOUNT_BITS as INDEX_REFCOUNT_BITS, STAT_BITS, TABLE_ADDR_BITS,
    TABLE_DATA_BITS,
};
use rust_hdl::prelude::*;

/// Declares a signal group's two halves from one list of its fields, each
/// field with the direction in which the first half drives it (`Out` or
/// `In`): the second half has every direction flipped. Each half names the
/// other in its `#[join = "..."]` (a derive attribute takes a literal).
macro_rules! signal_group {
    (
        $(#[$first_meta:meta])*
        pub struct $first:ident $(<$(const $param:ident: usize),+>)?;
        $(#[$second_meta:meta])*
        pub struct $second:ident;
        {
            $($(#[$field_meta:meta])* $field:ident: $dir:ident $ty:ty,)+
        }
    ) => {
        #[derive(LogicInterface, Default)]
        $(#[$first_meta])*
        pub struct $first $(<$(const $param: usize),+>)? {
            $($(#[$field_meta])* pub $field: Signal<$dir, $ty>,)+
        }

        #[derive(LogicInterface, Default)]
        $(#[$second_meta])*
        pub struct $second $(<$(const $param: usize),+>)? {
            $($(#[$field_meta])* pub $field: Signal<flipped!($dir), $ty>,)+
        }
    };
}

/// The direction of a signal as the other half of its group sees it.
macro_rules! flipped {
    (Out) => {
        In
    };
    (In) => {
        Out
    };
}

signal_group! {
    /// A tagged memory port, from the side that asks: requests (`req_*`, a
    /// write carries `req_wdata`, a read is answered) and the answers to reads
    /// (`rsp_*`, with the read's tag). `A` address bits, `D` data bits.
    #[join = "TaggedMemResponder"]
    pub struct TaggedMemController<const A: usize, const D: usize>;
    /// The answering half of [`TaggedMemController`].
    #[join = "TaggedMemController"]
    pub struct TaggedMemResponder;
    {
        req_valid: Out Bit,
        req_ready: In Bit,
        req_write: Out Bit,
        req_addr: Out Bits<A>,
        req_wdata: Out Bits<D>,
        req_tag: Out Bits<MEM_TAG_BITS>,
        rsp_valid: In Bit,
        rsp_tag: In Bits<MEM_TAG_BITS>,
        rsp_rdata: In Bits<D>,
    }
}

/// The index's table port (bucket metadata and ways), from the index.
pub type TableController = TaggedMemController<TABLE_ADDR_BITS, TABLE_DATA_BITS>;
/// The table port, from the memory that serves it.
pub type TableResponder = TaggedMemResponder<TABLE_ADDR_BITS, TABLE_DATA_BITS>;
/// The index's full-fingerprint port (address = entry), from the index.
pub type FpStoreController = TaggedMemController<ENTRY_BITS, 160>;
/// The full-fingerprint port, from the memory that serves it.
pub type FpStoreResponder = TaggedMemResponder<ENTRY_BITS, 160>;

signal_group! {
    /// The FTL's memory port, from the controller: 64-bit words at 32-bit
    /// addresses, answered in order (no tags).
    #[join = "FtlMemResponder"]
    pub struct FtlMemController;
    /// The answering half of [`FtlMemController`].
    #[join = "FtlMemController"]
    pub struct FtlMemResponder;
    {
        req_valid: Out Bit,
        req_ready: In Bit,
        req_write: Out Bit,
        req_addr: Out Bits<MEM_ADDR_BITS>,
        req_wdata: Out Bits<MEM_DATA_BITS>,
        rsp_valid: In Bit,
        rsp_rdata: In Bits<MEM_DATA_BITS>,
    }
}

signal_group! {
    /// Commands to the index ([`crate::index::Op`] in `op`), from the side that
    /// sends them; `tag` comes back with the response.
    #[join = "IndexCommandSink"]
    pub struct IndexCommandSource;
    /// The index's half of [`IndexCommandSource`].
    #[join = "IndexCommandSource"]
    pub struct IndexCommandSink;
    {
        valid: Out Bit,
        ready: In Bit,
        op: Out Bits<3>,
        fp: Out Bits<160>,
        entry: Out Bits<ENTRY_BITS>,
        tag: Out Bits<CMD_TAG_BITS>,
    }
}

signal_group! {
    /// The index's responses, one per command, from the index.
    #[join = "IndexResponseSink"]
    pub struct IndexResponseSource;
    /// The receiving half of [`IndexResponseSource`].
    #[join = "IndexResponseSource"]
    pub struct IndexResponseSink;
    {
        valid: Out Bit,
        ready: In Bit,
        tag: Out Bits<CMD_TAG_BITS>,
        status: Out Bits<4>,
        entry: Out Bits<ENTRY_BITS>,
        refcount: Out Bits<INDEX_REFCOUNT_BITS>,
        flags: Out Bits<4>,
    }
}

signal_group! {
    /// The index's event counters, as it drives them.
    #[join = "IndexCountersSink"]
    pub struct IndexCounters;
    /// The reading half of [`IndexCounters`].
    #[join = "IndexCounters"]
    pub struct IndexCountersSink;
    {
        commands: Out Bits<STAT_BITS>,
        bloom_negatives: Out Bits<STAT_BITS>,
        false_positives: Out Bits<STAT_BITS>,
        rebuilds: Out Bits<STAT_BITS>,
        signature_misses: Out Bits<STAT_BITS>,
        entries_used: Out Bits<STAT_BITS>,
    }
}

signal_group! {
    /// Commands to the FTL ([`crate::ftl::Op`] in `op`), from the host's side;
    /// `tag` comes back with the response.
    #[join = "FtlCommandSink"]
    pub struct FtlCommandSource;
    /// The FTL's half of [`FtlCommandSource`].
    #[join = "FtlCommandSource"]
    pub struct FtlCommandSink;
    {
        valid: Out Bit,
        ready: In Bit,
        op: Out Bits<3>,
        tag: Out Bits<CMD_TAG_BITS>,
        lpa: Out Bits<ADDR_BITS>,
        fp: Out Bits<160>,
    }
}

signal_group! {
    /// The FTL's responses, one per command, from the FTL.
    #[join = "FtlResponseSink"]
    pub struct FtlResponseSource;
    /// The receiving half of [`FtlResponseSource`].
    #[join = "FtlResponseSource"]
    pub struct FtlResponseSink;
    {
        valid: Out Bit,
        ready: In Bit,
        tag: Out Bits<CMD_TAG_BITS>,
        status: Out Bits<4>,
        value: Out Bits<32>,
        flags: Out Bits<3>,
    }
}

signal_group! {
    /// Relocations (garbage collection moved physical page `from` to `to`),
    /// from the FTL.
    #[join = "MoveSink"]
    pub struct MoveSource;
    /// The receiving half of [`MoveSource`].
    #[join = "MoveSource"]
    pub struct MoveSink;
    {
        valid: Out Bit,
        ready: In Bit,
        from: Out Bits<MOVE_ADDR_BITS>,
        to: Out Bits<MOVE_ADDR_BITS>,
    }
}

signal_group! {
    /// Page data, 32-bit big-endian words, from the side that has the pages.
    #[join = "PageWordSink"]
    pub struct PageWordSource;
    /// The receiving half of [`PageWordSource`].
    #[join = "PageWordSource"]
    pub struct PageWordSink;
    {
        word: Out Bits<32>,
        valid: Out Bit,
        ready: In Bit,
    }
}

signal_group! {
    /// The 256-bit page stream of [`crate::sha1::wide::Sha1WideHasher`]:
    /// 128 beats a page, the page's first byte in bits 255..248 of its
    /// first beat.
    #[join = "PageBeatSink"]
    pub struct PageBeatSource;
    /// The receiving half of [`PageBeatSource`].
    #[join = "PageBeatSource"]
    pub struct PageBeatSink;
    {
        beat: Out Bits<256>,
        valid: Out Bit,
        ready: In Bit,
    }
}

signal_group! {
    /// The FTL's geometry and limits (their contract is the controller's
    /// `cfg_*` in [`crate::ftl::controller`]), held steady while the FTL
    /// runs: the FTL's half. [`crate::ftl::settings`] computes the values.
    #[join = "FtlSettingsSource"]
    pub struct FtlSettings;
    /// The half that sets them (a board's constants).
    #[join = "FtlSettings"]
    pub struct FtlSettingsSource;
    {
        /// log2 of the flash devices.
        dev_bits: In Bits<2>,
        /// log2 of the blocks per device.
        block_bits: In Bits<4>,
        /// log2 of the pages per block.
        page_bits: In Bits<4>,
        /// Blocks per device kept back for garbage collection.
        reserve: In Bits<16>,
        /// Logical pages served.
        lpas: In Bits<ADDR_BITS>,
        /// A duplicate may map to a copy on any device (else only on its own).
        array_wide: In Bit,
        /// The largest reference count a page may reach.
        refcount_max: In Bits<FTL_REFCOUNT_BITS>,
        /// NVM write-cache slots, at most 2^24 (0: no cache; a controller
        /// built without the cache ignores it).
        nvm_slots: In Bits<NVM_SLOT_BITS>,
        /// Garbage collection drops the pages cached in the NVM.
        nvm_cooperative: In Bit,
    }
}
