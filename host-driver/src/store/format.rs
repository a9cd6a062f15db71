//! The store's on-disk records (see `LAYOUT.md` beside this file): the
//! superblock, checkpoints and journal entries, each with a CRC-32 so that a
//! torn or corrupted write is detected, never taken for metadata.
use super::mirror::{Event, Mirror};
use super::PAGE;
use ditto_hw::ftl::flash::Geometry;
use ditto_hw::ftl::nvm::{self, NvmConfig};
use serde::{Deserialize, Serialize};

/// The format's version; a store of another version is refused.
pub const VERSION: u32 = 1;

/// What a store is: fixed when it is created, checked on every open.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreSpec {
    /// The hardware configuration (`ditto configs`).
    pub config: String,
    /// Logical pages of 4 KiB.
    pub lpas: u32,
    pub devices: u32,
    pub blocks_per_device: u32,
    pub pages_per_block: u32,
    pub reserve_blocks: u32,
    pub array_wide: bool,
    pub refcount_max: u32,
    /// 4 KiB slots of the NVM cache (0: none). Left out of the JSON when 0,
    /// so a store without the cache reads, and checksums, as before it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nvm_slots: u32,
    /// GC invalidates pages cached in the NVM instead of copying them out.
    #[serde(default, skip_serializing_if = "is_false")]
    pub nvm_cooperative: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl StoreSpec {
    /// The spec of a device of `config` set up as `setup`.
    pub fn of(config: &str, setup: &ditto_sim::ditto_core::CoreSetup) -> Self {
        let g = setup.geometry;
        StoreSpec {
            config: config.to_string(),
            lpas: setup.lpas,
            devices: g.devices,
            blocks_per_device: g.blocks_per_device,
            pages_per_block: g.pages_per_block,
            reserve_blocks: g.reserve_blocks,
            array_wide: setup.array_wide,
            refcount_max: setup.refcount_max,
            nvm_slots: setup.nvm.slots,
            nvm_cooperative: setup.nvm.cooperative,
        }
    }

    /// The NVM cache the store was created with.
    pub fn nvm(&self) -> NvmConfig {
        NvmConfig { slots: self.nvm_slots, cooperative: self.nvm_cooperative }
    }

    pub fn geometry(&self) -> Geometry {
        Geometry {
            devices: self.devices,
            blocks_per_device: self.blocks_per_device,
            pages_per_block: self.pages_per_block,
            reserve_blocks: self.reserve_blocks,
        }
    }

    /// Whether `ppa` names a page of this store's geometry, or a slot of
    /// its NVM cache.
    pub fn holds_ppa(&self, ppa: u32) -> bool {
        if let Some(slot) = nvm::slot_of(ppa) {
            return slot < self.nvm_slots;
        }
        let g = self.geometry();
        let (block, page) = g.locate(ppa);
        block < g.devices * g.blocks_per_device && page < g.pages_per_block && g.ppa(block, page) == ppa
    }

    /// The first field where `self` (the store) and `wanted` (a command)
    /// differ, as (field, store's value, command's value).
    pub fn difference(&self, wanted: &StoreSpec) -> Option<(&'static str, String, String)> {
        let fields: [(&'static str, String, String); 10] = [
            ("config", self.config.clone(), wanted.config.clone()),
            ("pages", self.lpas.to_string(), wanted.lpas.to_string()),
            ("devices", self.devices.to_string(), wanted.devices.to_string()),
            ("blocks per device", self.blocks_per_device.to_string(), wanted.blocks_per_device.to_string()),
            ("pages per block", self.pages_per_block.to_string(), wanted.pages_per_block.to_string()),
            ("reserve blocks", self.reserve_blocks.to_string(), wanted.reserve_blocks.to_string()),
            ("array-wide dedup", self.array_wide.to_string(), wanted.array_wide.to_string()),
            ("reference-count limit", self.refcount_max.to_string(), wanted.refcount_max.to_string()),
            ("NVM slots", self.nvm_slots.to_string(), wanted.nvm_slots.to_string()),
            ("cooperative NVM", self.nvm_cooperative.to_string(), wanted.nvm_cooperative.to_string()),
        ];
        fields.into_iter().find(|(_, a, b)| a != b)
    }
}

/// The superblock (`ditto-store.json`): the spec and the generation whose
/// files are current. Replaced atomically (write, fsync, rename).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Superblock {
    pub format: String,
    pub version: u32,
    pub generation: u64,
    pub spec: StoreSpec,
    /// CRC-32 of this record's JSON with `crc32` set to 0.
    pub crc32: u32,
}

pub const FORMAT_NAME: &str = "ditto-store";

/// A record that is not what it should be, and where.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FormatError {
    #[error("not a Ditto store's superblock: {0}")]
    Superblock(String),
    #[error("superblock checksum {found:#010x}, computed {computed:#010x}: the superblock is corrupt")]
    SuperblockChecksum { found: u32, computed: u32 },
    #[error("format version {0}; this ditto reads version {VERSION}")]
    Version(u32),
    #[error("checkpoint: {what} at byte {offset}")]
    Checkpoint { what: String, offset: usize },
    #[error("journal entry {seq} at byte {offset}: {what}")]
    Entry { seq: u64, offset: usize, what: String },
}

impl Superblock {
    pub fn new(spec: StoreSpec, generation: u64) -> Self {
        let mut sb = Superblock { format: FORMAT_NAME.into(), version: VERSION, generation, spec, crc32: 0 };
        sb.crc32 = sb.computed_crc();
        sb
    }

    fn computed_crc(&self) -> u32 {
        let mut zeroed = self.clone();
        zeroed.crc32 = 0;
        crc32fast::hash(serde_json::to_string(&zeroed).expect("JSON of a superblock").as_bytes())
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut text = serde_json::to_string_pretty(self).expect("JSON of a superblock");
        text.push('\n');
        text.into_bytes()
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        let sb: Superblock = serde_json::from_slice(bytes).map_err(|e| FormatError::Superblock(e.to_string()))?;
        if sb.format != FORMAT_NAME {
            return Err(FormatError::Superblock(format!("format `{}`", sb.format)));
        }
        if sb.version != VERSION {
            return Err(FormatError::Version(sb.version));
        }
        let computed = sb.computed_crc();
        if computed != sb.crc32 {
            return Err(FormatError::SuperblockChecksum { found: sb.crc32, computed });
        }
        Ok(sb)
    }
}

const CHECKPOINT_MAGIC: &[u8; 8] = b"DITTOCKP";
const CHECKPOINT_HEADER: usize = 8 + 4 + 8 + 8;
const CHECKPOINT_RECORD: usize = 4 + 4 + 1 + 20;

/// A checkpoint: every mapped LPA with its copy's PPA, flags and
/// fingerprint, in LPA order, then a CRC-32 of all before it.
pub fn encode_checkpoint(generation: u64, mirror: &Mirror) -> Vec<u8> {
    let mapped: Vec<_> = mirror.mapped().collect();
    let mut out = Vec::with_capacity(CHECKPOINT_HEADER + mapped.len() * CHECKPOINT_RECORD + 4);
    out.extend(CHECKPOINT_MAGIC);
    out.extend(VERSION.to_le_bytes());
    out.extend(generation.to_le_bytes());
    out.extend((mapped.len() as u64).to_le_bytes());
    for (lpa, copy) in mapped {
        out.extend(lpa.to_le_bytes());
        out.extend(copy.ppa.to_le_bytes());
        out.push(copy.flags);
        out.extend(copy.fingerprint);
    }
    let crc = crc32fast::hash(&out);
    out.extend(crc.to_le_bytes());
    out
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// The mirror a checkpoint of `generation` records, for a store of `spec`.
pub fn decode_checkpoint(bytes: &[u8], generation: u64, spec: &StoreSpec) -> Result<Mirror, FormatError> {
    let lpas = spec.lpas;
    let bad = |what: String, offset: usize| FormatError::Checkpoint { what, offset };
    if bytes.len() < CHECKPOINT_HEADER + 4 || &bytes[..8] != CHECKPOINT_MAGIC {
        return Err(bad("no checkpoint header".into(), 0));
    }
    let body = bytes.len() - 4;
    let (found, computed) = (u32_at(bytes, body), crc32fast::hash(&bytes[..body]));
    if found != computed {
        return Err(bad(format!("checksum {found:#010x}, computed {computed:#010x}"), body));
    }
    if u32_at(bytes, 8) != VERSION {
        return Err(bad(format!("version {}", u32_at(bytes, 8)), 8));
    }
    if u64_at(bytes, 12) != generation {
        return Err(bad(format!("generation {}, the superblock says {generation}", u64_at(bytes, 12)), 12));
    }
    let count = u64_at(bytes, 20);
    if count.checked_mul(CHECKPOINT_RECORD as u64) != Some((body - CHECKPOINT_HEADER) as u64) {
        return Err(bad(format!("{count} records in {} bytes", body - CHECKPOINT_HEADER), 20));
    }
    let mut mirror = Mirror::new(lpas);
    for i in 0..count as usize {
        let at = CHECKPOINT_HEADER + i * CHECKPOINT_RECORD;
        let (lpa, ppa, flags) = (u32_at(bytes, at), u32_at(bytes, at + 4), bytes[at + 8]);
        let fingerprint: [u8; 20] = bytes[at + 9..at + 29].try_into().expect("20 bytes");
        if !spec.holds_ppa(ppa) {
            return Err(bad(format!("LPA {lpa} at PPA {ppa}, not a page of the store's geometry"), at));
        }
        if mirror.lookup(lpa).is_some() {
            return Err(bad(format!("LPA {lpa} twice"), at));
        }
        let fresh = mirror.copy_at(ppa).is_none();
        if let Some(copy) = mirror.copy_at(ppa) {
            if copy.flags != flags {
                return Err(bad(format!("PPA {ppa}'s LPAs disagree on its flags"), at));
            }
        }
        mirror.apply(&Event::Map { lpa, ppa, fresh, flags, fingerprint }).map_err(|e| bad(e.to_string(), at))?;
    }
    Ok(mirror)
}

const JOURNAL_MAGIC: &[u8; 8] = b"DITTOJNL";
/// Bytes of a journal file's header (magic, version, generation).
pub const JOURNAL_HEADER: usize = 8 + 4 + 8;
const ENTRY_MAGIC: u32 = 0x444a_4e4c;
/// Bytes an entry takes besides its payload (magic, sequence, length, CRC).
const ENTRY_OVERHEAD: usize = 4 + 8 + 4 + 4;

pub fn journal_header(generation: u64) -> Vec<u8> {
    let mut out = JOURNAL_MAGIC.to_vec();
    out.extend(VERSION.to_le_bytes());
    out.extend(generation.to_le_bytes());
    out
}

/// One journal entry: the metadata events of one device operation (all or
/// none of them recover), with the data of pages the operation wrote over a
/// page the last commit still referenced (written in place only once this
/// entry is durable), or a commit: everything before it is durable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Ops { events: Vec<Event>, redo: Vec<(u32, Box<[u8; PAGE]>)> },
    Commit,
}

const TAG_MAP: u8 = 1;
const TAG_UNMAP: u8 = 2;
const TAG_MOVE: u8 = 3;
const TAG_REDO: u8 = 4;
const KIND_OPS: u8 = 1;
const KIND_COMMIT: u8 = 2;

/// Entry `seq`, framed.
pub fn encode_entry(seq: u64, entry: &Entry) -> Vec<u8> {
    let mut payload = Vec::new();
    match entry {
        Entry::Commit => payload.push(KIND_COMMIT),
        Entry::Ops { events, redo } => {
            payload.push(KIND_OPS);
            for e in events {
                match *e {
                    Event::Map { lpa, ppa, fresh, flags, fingerprint } => {
                        payload.push(TAG_MAP);
                        payload.extend(lpa.to_le_bytes());
                        payload.extend(ppa.to_le_bytes());
                        payload.push(fresh as u8);
                        payload.push(flags);
                        payload.extend(fingerprint);
                    }
                    Event::Unmap { lpa } => {
                        payload.push(TAG_UNMAP);
                        payload.extend(lpa.to_le_bytes());
                    }
                    Event::Move { from, to } => {
                        payload.push(TAG_MOVE);
                        payload.extend(from.to_le_bytes());
                        payload.extend(to.to_le_bytes());
                    }
                }
            }
            for (ppa, data) in redo {
                payload.push(TAG_REDO);
                payload.extend(ppa.to_le_bytes());
                payload.extend(&data[..]);
            }
        }
    }
    let mut out = Vec::with_capacity(payload.len() + ENTRY_OVERHEAD);
    out.extend(ENTRY_MAGIC.to_le_bytes());
    out.extend(seq.to_le_bytes());
    out.extend((payload.len() as u32).to_le_bytes());
    out.extend(payload);
    let crc = crc32fast::hash(&out);
    out.extend(crc.to_le_bytes());
    out
}

/// A journal as read: its entries up to the first that is not whole (a
/// torn write), and how many bytes followed.
#[derive(Debug, Default)]
pub struct JournalRead {
    pub entries: Vec<Entry>,
    /// Bytes of the whole entries, from the file's start (the header
    /// included): where the next entry goes.
    pub valid_bytes: usize,
    /// Bytes after the last whole entry (a torn or corrupt tail).
    pub torn_bytes: usize,
}

/// Reads a journal of `generation`. A tail that does not frame, check or
/// follow in sequence ends the journal (reported as torn bytes); a header
/// that is not this generation's, or an entry that checks but does not
/// parse, is an error.
pub fn decode_journal(bytes: &[u8], generation: u64) -> Result<JournalRead, FormatError> {
    let header = journal_header(generation);
    if bytes.len() < JOURNAL_HEADER || bytes[..JOURNAL_HEADER] != header[..] {
        return Err(FormatError::Entry {
            seq: 0,
            offset: 0,
            what: format!("not a journal of generation {generation}"),
        });
    }
    let mut out = JournalRead { valid_bytes: JOURNAL_HEADER, ..JournalRead::default() };
    let mut at = JOURNAL_HEADER;
    loop {
        let seq = out.entries.len() as u64;
        let whole =
            bytes.len() >= at + ENTRY_OVERHEAD && u32_at(bytes, at) == ENTRY_MAGIC && u64_at(bytes, at + 4) == seq;
        let len = if whole { u32_at(bytes, at + 12) as usize } else { 0 };
        let end = at + 16 + len;
        if !whole || bytes.len() < end + 4 || u32_at(bytes, end) != crc32fast::hash(&bytes[at..end]) {
            break;
        }
        out.entries.push(decode_payload(&bytes[at + 16..end], seq, at)?);
        at = end + 4;
        out.valid_bytes = at;
    }
    out.torn_bytes = bytes.len() - out.valid_bytes;
    Ok(out)
}

fn decode_payload(p: &[u8], seq: u64, offset: usize) -> Result<Entry, FormatError> {
    let bad = |what: &str| FormatError::Entry { seq, offset, what: what.to_string() };
    match p.first() {
        Some(&KIND_COMMIT) if p.len() == 1 => return Ok(Entry::Commit),
        Some(&KIND_OPS) => {}
        _ => return Err(bad("an unknown kind of entry")),
    }
    let (mut events, mut redo) = (Vec::new(), Vec::new());
    let mut at = 1;
    let need = |at: usize, n: usize| if p.len() >= at + n { Ok(()) } else { Err(bad("an event cut short")) };
    while at < p.len() {
        let tag = p[at];
        at += 1;
        match tag {
            TAG_MAP => {
                need(at, 30)?;
                let fresh = match p[at + 8] {
                    0 => false,
                    1 => true,
                    _ => return Err(bad("a map event's `fresh` is neither 0 nor 1")),
                };
                events.push(Event::Map {
                    lpa: u32_at(p, at),
                    ppa: u32_at(p, at + 4),
                    fresh,
                    flags: p[at + 9],
                    fingerprint: p[at + 10..at + 30].try_into().expect("20 bytes"),
                });
                at += 30;
            }
            TAG_UNMAP => {
                need(at, 4)?;
                events.push(Event::Unmap { lpa: u32_at(p, at) });
                at += 4;
            }
            TAG_MOVE => {
                need(at, 8)?;
                events.push(Event::Move { from: u32_at(p, at), to: u32_at(p, at + 4) });
                at += 8;
            }
            TAG_REDO => {
                need(at, 4 + PAGE)?;
                let mut data = Box::new([0u8; PAGE]);
                data.copy_from_slice(&p[at + 4..at + 4 + PAGE]);
                redo.push((u32_at(p, at), data));
                at += 4 + PAGE;
            }
            _ => return Err(bad("an unknown event")),
        }
    }
    Ok(Entry::Ops { events, redo })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn event() -> impl Strategy<Value = Event> {
        prop_oneof![
            (any::<u32>(), any::<u32>(), any::<bool>(), 0u8..4, any::<[u8; 20]>())
                .prop_map(|(lpa, ppa, fresh, flags, fingerprint)| Event::Map { lpa, ppa, fresh, flags, fingerprint }),
            any::<u32>().prop_map(|lpa| Event::Unmap { lpa }),
            (any::<u32>(), any::<u32>()).prop_map(|(from, to)| Event::Move { from, to }),
        ]
    }

    fn entry() -> impl Strategy<Value = Entry> {
        prop_oneof![
            1 => Just(Entry::Commit),
            4 => (proptest::collection::vec(event(), 0..6), proptest::collection::vec((any::<u32>(), any::<u8>()), 0..2))
                .prop_map(|(events, redo)| Entry::Ops {
                    events,
                    redo: redo.into_iter().map(|(ppa, fill)| (ppa, Box::new([fill; PAGE]))).collect(),
                }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        /// Entries read back as written; a journal cut anywhere reads as
        /// the entries wholly before the cut, the rest counted as torn; any
        /// flipped bit in an entry ends the journal before that entry (or,
        /// in the header, refuses it): never a wrong entry.
        #[test]
        fn journals_read_back_and_a_torn_or_flipped_tail_is_never_an_entry(
            entries in proptest::collection::vec(entry(), 0..8),
            cut in any::<prop::sample::Index>(),
            flip in any::<prop::sample::Index>(),
        ) {
            let mut bytes = journal_header(7);
            let mut ends = vec![bytes.len()];
            for (i, e) in entries.iter().enumerate() {
                bytes.extend(encode_entry(i as u64, e));
                ends.push(bytes.len());
            }
            let read = decode_journal(&bytes, 7).unwrap();
            prop_assert_eq!(&read.entries, &entries);
            prop_assert_eq!(read.torn_bytes, 0);

            let cut = cut.index(bytes.len() + 1);
            if cut >= JOURNAL_HEADER {
                let read = decode_journal(&bytes[..cut], 7).unwrap();
                let whole = ends.iter().filter(|&&e| e <= cut).count() - 1;
                prop_assert_eq!(&read.entries[..], &entries[..whole]);
                prop_assert_eq!(read.valid_bytes + read.torn_bytes, cut);
            } else {
                prop_assert!(decode_journal(&bytes[..cut], 7).is_err());
            }

            let bit = flip.index(bytes.len() * 8);
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            match decode_journal(&flipped, 7) {
                Ok(read) => {
                    let before = ends.iter().filter(|&&e| e <= bit / 8).count() - 1;
                    prop_assert_eq!(&read.entries[..], &entries[..before]);
                }
                Err(_) => prop_assert!(bit / 8 < JOURNAL_HEADER, "only a bad header is an error"),
            }
        }

        /// A checkpoint reads back as the mirror it was made of; any flipped
        /// bit is an error.
        #[test]
        fn checkpoints_read_back_and_any_flipped_bit_is_refused(
            maps in proptest::collection::vec((0u32..64, 0u32..32, any::<u8>()), 0..40),
            flip in any::<prop::sample::Index>(),
        ) {
            let mut m = Mirror::new(64);
            for (lpa, ppa, fp) in maps {
                let fresh = m.copy_at(ppa).is_none();
                let fingerprint = m.copy_at(ppa).map_or([fp; 20], |c| c.fingerprint);
                m.apply(&Event::Map { lpa, ppa, fresh, flags: 0, fingerprint }).unwrap();
            }
            let bytes = encode_checkpoint(3, &m);
            let back = decode_checkpoint(&bytes, 3, &spec()).unwrap();
            prop_assert!(back.same_layout(&m));
            prop_assert_eq!(back.live_pages(), m.live_pages());
            let bit = flip.index(bytes.len() * 8);
            let mut flipped = bytes;
            flipped[bit / 8] ^= 1 << (bit % 8);
            prop_assert!(decode_checkpoint(&flipped, 3, &spec()).is_err());
        }
    }

    fn spec() -> StoreSpec {
        StoreSpec {
            config: "large".into(),
            lpas: 64,
            devices: 1,
            blocks_per_device: 8,
            pages_per_block: 64,
            reserve_blocks: 2,
            array_wide: true,
            refcount_max: 4095,
            nvm_slots: 0,
            nvm_cooperative: false,
        }
    }

    /// Entries with checksums that hold but bodies of any bytes.
    fn framed(payloads: &[Vec<u8>]) -> Vec<u8> {
        let mut bytes = journal_header(7);
        for (seq, p) in payloads.iter().enumerate() {
            let mut e = Vec::new();
            e.extend(ENTRY_MAGIC.to_le_bytes());
            e.extend((seq as u64).to_le_bytes());
            e.extend((p.len() as u32).to_le_bytes());
            e.extend(p);
            let crc = crc32fast::hash(&e);
            e.extend(crc.to_le_bytes());
            bytes.extend(e);
        }
        bytes
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
        /// Any bytes as a superblock, a checkpoint or a journal (after a
        /// good header, or framed with good checksums around any payload)
        /// give a record or a typed error, never a panic.
        #[test]
        fn any_bytes_as_store_metadata_are_a_record_or_an_error(
            bytes in proptest::collection::vec(any::<u8>(), 0..600),
            payloads in proptest::collection::vec(
                prop_oneof![
                    proptest::collection::vec(any::<u8>(), 0..80),
                    proptest::collection::vec(any::<u8>(), 0..80).prop_map(|mut v| { v.insert(0, KIND_OPS); v }),
                ],
                0..6,
            ),
        ) {
            let _ = Superblock::decode(&bytes);
            let _ = decode_checkpoint(&bytes, 3, &spec());
            let mut header = CHECKPOINT_MAGIC.to_vec();
            header.extend(&bytes);
            let _ = decode_checkpoint(&header, 3, &spec());
            let mut journal = journal_header(7);
            journal.extend(&bytes);
            let _ = decode_journal(&journal, 7);
            if let Ok(read) = decode_journal(&framed(&payloads), 7) {
                prop_assert!(read.entries.len() <= payloads.len());
                // Whatever parsed applies to a mirror as events or errors.
                let mut m = Mirror::new(64);
                for e in read.entries {
                    if let Entry::Ops { events, .. } = e {
                        for ev in events {
                            let _ = m.apply(&ev);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_superblock_reads_back_and_an_edit_is_caught_by_its_checksum() {
        let sb = Superblock::new(spec(), 2);
        assert_eq!(Superblock::decode(&sb.encode()), Ok(sb.clone()));
        let edited = String::from_utf8(sb.encode()).unwrap().replace("\"lpas\": 64", "\"lpas\": 65");
        assert!(matches!(Superblock::decode(edited.as_bytes()), Err(FormatError::SuperblockChecksum { .. })));
    }

    /// A store without the NVM cache is written as stores were before the
    /// cache existed (so their checksums still hold); one with it keeps
    /// its slots, and an NVM address is a page of it only below them.
    #[test]
    fn the_nvm_fields_appear_only_with_a_cache_and_bound_its_addresses() {
        let text = String::from_utf8(Superblock::new(spec(), 2).encode()).unwrap();
        assert!(!text.contains("nvm"), "{text}");
        let with = StoreSpec { nvm_slots: 6, nvm_cooperative: true, ..spec() };
        let sb = Superblock::new(with.clone(), 2);
        assert_eq!(Superblock::decode(&sb.encode()), Ok(sb));
        assert!(with.holds_ppa(nvm::address(5)) && !with.holds_ppa(nvm::address(6)));
        assert!(!spec().holds_ppa(nvm::address(0)));
        assert_eq!(spec().difference(&with).map(|d| d.0), Some("NVM slots"));
    }
}
