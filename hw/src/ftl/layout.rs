//! The FTL memory's tables, defined once: every region of the FTL memory
//! and the fields of its 64-bit words. The controller's RTL takes its field
//! offsets and region bases from here (as `Constant`s), the cosimulation
//! decodes the tables it checks with [`Field::get`], and the table in
//! `hw/src/ftl/TABLES.md` is [`markdown`]'s output (a unit test keeps it
//! so).
//!
//! An address of the FTL memory is `{region[31:28], index[27:0]}`.

/// A field of a table word: `width` bits from bit `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub offset: usize,
    pub width: usize,
    pub about: &'static str,
}

impl Field {
    /// The field's bits, in place.
    pub const fn mask(&self) -> u64 {
        (u64::MAX >> (64 - self.width)) << self.offset
    }
    /// The field's value in `word`.
    pub const fn get(&self, word: u64) -> u64 {
        (word & self.mask()) >> self.offset
    }
    /// `word` with the field set to `value` (which must fit).
    pub fn put(&self, word: u64, value: u64) -> u64 {
        assert!(value <= self.mask() >> self.offset, "{} = {value} does not fit {} bits", self.name, self.width);
        (word & !self.mask()) | (value << self.offset)
    }
}

/// A region of the FTL memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub name: &'static str,
    /// Address bits 31..28.
    pub number: u32,
    /// What indexes it.
    pub index: &'static str,
    pub about: &'static str,
    pub fields: &'static [Field],
}

impl Region {
    /// The address of word `index` of the region.
    pub fn addr(&self, index: u32) -> u32 {
        assert!(index < 1 << 28, "{} index {index} beyond 28 bits", self.name);
        (self.number << 28) | index
    }
    /// The first address of the region (its index 0).
    pub const fn base(&self) -> u32 {
        self.number << 28
    }
}

const fn field(name: &'static str, offset: usize, width: usize, about: &'static str) -> Field {
    Field { name, offset, width, about }
}

/// `L2P[lpa]`: where a logical page maps.
pub mod l2p {
    use super::*;
    pub const PID: Field = field("pid", 0, 24, "the page id the LPA maps to");
    pub const MAPPED: Field = field("mapped", 24, 1, "the LPA maps to a page");
    pub const REGION: Region =
        Region { name: "L2P", number: 0, index: "LPA", about: "the logical-to-physical map", fields: &[MAPPED, PID] };
}

/// `PAGE[pid]`: one stored copy of one content.
pub mod page {
    use super::*;
    pub const PPA: Field = field("ppa", 0, 24, "where the copy is");
    pub const ENTRY: Field = field("entry", 24, 16, "its fingerprint's index entry (if `has_entry`)");
    pub const HAS_ENTRY: Field = field("has_entry", 40, 1, "the index entry is this copy's");
    pub const VERSION: Field = field("version", 44, 8, "bumped each time the page id is freed");
    pub const REFCOUNT: Field = field("refcount", 52, 12, "LPAs mapped to it; 0 when free");
    pub const IN_NVM: Field =
        field("in_nvm", 41, 1, "the copy is only in NVM slot `ppa` (not yet written back to flash)");
    pub const REGION: Region = Region {
        name: "PAGE",
        number: 1,
        index: "page id",
        about: "one stored copy",
        fields: &[REFCOUNT, VERSION, IN_NVM, HAS_ENTRY, ENTRY, PPA],
    };
}

/// `ENTRY[e]`: what index entry `e` points at.
pub mod entry {
    use super::*;
    pub const PID: Field = field("pid", 0, 24, "the page id it points at");
    pub const VERSION: Field = field("version", 32, 8, "that page id's version when it was pointed");
    pub const VALID: Field = field("valid", 40, 1, "it points at a page id");
    pub const QUEUED: Field = field("queued", 41, 1, "it waits in the cleaner's ring");
    pub const REGION: Region = Region {
        name: "ENTRY",
        number: 2,
        index: "index entry",
        about: "the index entry's target (versioned)",
        fields: &[QUEUED, VALID, VERSION, PID],
    };
}

/// `REV[ppa]`: the page id a physical page was written for.
pub mod rev {
    use super::*;
    pub const PID: Field = field("pid", 0, 24, "the owner; the page is live while its PAGE record points back");
    pub const REGION: Region =
        Region { name: "REV", number: 3, index: "PPA", about: "reverse map, for garbage collection", fields: &[PID] };
}

/// `BLK[block]`: an erase block (a global block number: `{device, block}`).
pub mod blk {
    use super::*;
    pub const VALID: Field = field("valid", 0, 16, "its valid pages");
    pub const FULL: Field = field("full", 16, 1, "every page was written");
    pub const REGION: Region =
        Region { name: "BLK", number: 4, index: "global block", about: "an erase block", fields: &[FULL, VALID] };
}

/// `DEV[d]`: a device's write point and free blocks.
pub mod dev {
    use super::*;
    pub const HEAD: Field = field("head", 0, 16, "the free ring's first slot");
    pub const FREE: Field = field("free", 16, 16, "free blocks in the ring");
    pub const WRITTEN: Field = field("written", 32, 16, "pages written in the open block");
    pub const OPEN: Field = field("open", 48, 16, "the open block (global number)");
    pub const REGION: Region = Region {
        name: "DEV",
        number: 5,
        index: "device",
        about: "a device's write point",
        fields: &[OPEN, WRITTEN, FREE, HEAD],
    };
}

/// `DEVV[d]`: a device's valid pages.
pub mod devv {
    use super::*;
    pub const VALID: Field =
        field("valid", 0, 24, "valid pages on the device, plus the NVM's dirty pages that belong to it");
    pub const REGION: Region = Region {
        name: "DEVV",
        number: 6,
        index: "device",
        about: "the pages a device owes room for",
        fields: &[VALID],
    };
}

/// `FREE[d * 8192 + i]`: device `d`'s ring of free blocks.
pub mod free {
    use super::*;
    pub const BLOCK: Field = field("block", 0, 16, "a free block (global number)");
    pub const REGION: Region = Region {
        name: "FREE",
        number: 7,
        index: "{device, slot}",
        about: "each device's ring of free blocks",
        fields: &[BLOCK],
    };
}

/// `STALE[i]`: the cleaner's ring of queued index entries.
pub mod stale {
    use super::*;
    pub const ENTRY: Field = field("entry", 0, 16, "an index entry to check");
    pub const REGION: Region = Region {
        name: "STALE",
        number: 8,
        index: "ring slot",
        about: "the cleaner's queue (one slot per entry)",
        fields: &[ENTRY],
    };
}

/// `PIDS[i]`: the stack of freed page ids.
pub mod pids {
    use super::*;
    pub const PID: Field = field("pid", 0, 24, "a free page id");
    pub const REGION: Region =
        Region { name: "PIDS", number: 9, index: "stack slot", about: "freed page ids, reused first", fields: &[PID] };
}

/// `SLOT[s]`: NVM slot `s` of the write cache, while it is in use.
pub mod slot {
    use super::*;
    pub const PID: Field = field("pid", 0, 24, "the page id whose copy it holds");
    pub const REFERENCED: Field = field("referenced", 24, 1, "CLOCK's bit: used since the hand last passed");
    pub const REGION: Region = Region {
        name: "SLOT",
        number: 10,
        index: "NVM slot",
        about: "an NVM slot in use (the write cache)",
        fields: &[REFERENCED, PID],
    };
}

/// `SFREE[i]`: the ring of freed NVM slots (after the never-used ones).
pub mod sfree {
    use super::*;
    pub const SLOT: Field = field("slot", 0, 24, "a freed NVM slot");
    pub const REGION: Region = Region {
        name: "SFREE",
        number: 11,
        index: "ring slot",
        about: "freed NVM slots, reused oldest first",
        fields: &[SLOT],
    };
}

/// `PSLOT[pid]`: the NVM slot a page id's copy is cached in.
pub mod pslot {
    use super::*;
    pub const SLOT: Field = field("slot", 0, 24, "its slot (if `cached`)");
    pub const DEVICE: Field = field("device", 24, 3, "the device its copy belongs to (where a write-back goes)");
    pub const CACHED: Field = field("cached", 27, 1, "a slot holds its copy (the only one if `PAGE.in_nvm`)");
    pub const REGION: Region = Region {
        name: "PSLOT",
        number: 12,
        index: "page id",
        about: "a page id's NVM slot (valid while the page id is live)",
        fields: &[CACHED, DEVICE, SLOT],
    };
}

/// Every region, by number.
pub const REGIONS: [Region; 13] = [
    l2p::REGION,
    page::REGION,
    entry::REGION,
    rev::REGION,
    blk::REGION,
    dev::REGION,
    devv::REGION,
    free::REGION,
    stale::REGION,
    pids::REGION,
    slot::REGION,
    sfree::REGION,
    pslot::REGION,
];

/// The tables as a Markdown table (what `hw/src/ftl/TABLES.md` holds).
pub fn markdown() -> String {
    let mut out = String::from(
        "# The FTL memory's tables\n\n\
         Generated from `hw/src/ftl/layout.rs` (a unit test keeps this file equal to it).\n\
         An address is `{region[31:28], index[27:0]}`; words are 64 bits.\n\n\
         | region | number | index | word | what |\n|---|---|---|---|---|\n",
    );
    for r in REGIONS {
        let word = r
            .fields
            .iter()
            .map(|f| {
                if f.width == 1 {
                    format!("{}[{}]", f.name, f.offset)
                } else {
                    format!("{}[{}:{}]", f.name, f.offset + f.width - 1, f.offset)
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        out += &format!("| `{}` | {} | {} | `{{{}}}` | {} |\n", r.name, r.number, r.index, word, r.about);
    }
    out += "\nFields:\n\n";
    for r in REGIONS {
        for f in r.fields {
            out += &format!("- `{}.{}`: {}\n", r.name, f.name, f.about);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_numbered_in_order_and_fields_never_overlap() {
        for (n, r) in REGIONS.iter().enumerate() {
            assert_eq!(r.number as usize, n, "{}", r.name);
            let mut used = 0u64;
            for f in r.fields {
                assert!(f.width >= 1 && f.offset + f.width <= 64, "{}.{}", r.name, f.name);
                assert_eq!(used & f.mask(), 0, "{}.{} overlaps another field", r.name, f.name);
                used |= f.mask();
            }
        }
    }

    /// The controller writes each region's field at bit 0 from one 24-bit
    /// bus (`Low` in `controller.rs`), and the others from the region's own
    /// composition.
    #[test]
    fn every_region_has_a_field_at_bit_0_of_at_most_24_bits() {
        for r in REGIONS {
            let low = r.fields.iter().find(|f| f.offset == 0);
            assert!(low.is_some_and(|f| f.width <= 24), "{}: {low:?}", r.name);
        }
    }

    #[test]
    fn put_and_get_round_trip_and_keep_the_other_fields() {
        let w = page::REFCOUNT.put(u64::MAX, 5);
        assert_eq!(page::REFCOUNT.get(w), 5);
        assert_eq!(w | page::REFCOUNT.mask(), u64::MAX);
        assert_eq!(l2p::REGION.addr(7), 7);
        assert_eq!(pids::REGION.addr(3), 0x9000_0003);
    }

    /// `TABLES.md` is generated: `DITTO_UPDATE_DOCS=1 cargo test -p ditto-hw
    /// tables_md` rewrites it.
    #[test]
    fn tables_md_is_the_layout() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ftl/TABLES.md");
        if std::env::var_os("DITTO_UPDATE_DOCS").is_some() {
            std::fs::write(&path, markdown()).unwrap();
        }
        let doc = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            doc == markdown(),
            "{} is not the layout's table; run DITTO_UPDATE_DOCS=1 cargo test -p ditto-hw tables_md",
            path.display()
        );
    }
}
