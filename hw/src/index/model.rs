//! Golden model of the fingerprint index: plain Rust, one command at a time,
//! making exactly the decisions the hardware makes (which way is allocated,
//! which candidates are verified and in what order, when a Bloom filter is
//! rebuilt) and keeping the same statistics. Cosimulations compare the
//! hardware with it response by response.
use super::{bloom_bits, bucket_of, entry_of, flag, signature_of, Fingerprint, Op, Status, REFCOUNT_MAX, WAYS};

/// One command for the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// Raw opcode (see [`Op`]); other values are malformed.
    pub op: u8,
    /// Fingerprint (`INSERT`, `LOOKUP`, `DEREF_FP`).
    pub fp: Fingerprint,
    /// Entry number (`DEREF_ENTRY`).
    pub entry: u16,
    /// Returned with the response.
    pub tag: u8,
}

impl Command {
    /// A command on a fingerprint.
    pub fn with_fp(op: Op, fp: Fingerprint, tag: u8) -> Self {
        Command { op: op as u8, fp, entry: 0, tag }
    }
    /// `DEREF_ENTRY` of `entry`.
    pub fn deref_entry(entry: u16, tag: u8) -> Self {
        Command { op: Op::DerefEntry as u8, fp: [0; 20], entry, tag }
    }
}

/// The index's answer to one command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response {
    pub tag: u8,
    pub status: Status,
    /// The entry concerned (0 when there is none).
    pub entry: u16,
    /// Its reference count after the command (0 when there is none).
    pub refcount: u8,
    /// [`flag`] bits.
    pub flags: u8,
}

/// Counters the index keeps (the hardware's `stat_*` ports).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexStats {
    pub commands: u32,
    pub bloom_negatives: u32,
    pub false_positives: u32,
    pub rebuilds: u32,
    pub signature_misses: u32,
    pub entries_used: u32,
}

impl IndexStats {
    /// Adds one response to the counters, as the hardware does when the
    /// response leaves.
    pub fn count(&mut self, rsp: &Response) {
        self.commands = self.commands.wrapping_add(1);
        let f = rsp.flags;
        self.bloom_negatives += (f & flag::BLOOM_NEGATIVE != 0) as u32;
        self.false_positives += (f & flag::FALSE_POSITIVE != 0) as u32;
        self.rebuilds += (f & flag::REBUILT != 0) as u32;
        self.signature_misses += (f & flag::SIGNATURE_MISS != 0) as u32;
        match rsp.status {
            Status::New => self.entries_used += 1,
            Status::Freed => self.entries_used -= 1,
            _ => {}
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Way {
    refcount: u32,
    fp: Fingerprint,
}

#[derive(Clone, Debug, Default)]
struct Bucket {
    bloom: u32,
    occupied: u8,
    ways: [Way; WAYS],
}

/// The golden model.
#[derive(Clone, Debug)]
pub struct IndexModel {
    bucket_bits: usize,
    bloom_enabled: bool,
    buckets: Vec<Bucket>,
    stats: IndexStats,
}

impl IndexModel {
    /// An empty index of `2^bucket_bits` buckets, Bloom filters on or off.
    pub fn new(bucket_bits: usize, bloom_enabled: bool) -> Self {
        assert!(bucket_bits <= super::MAX_BUCKET_BITS);
        IndexModel {
            bucket_bits,
            bloom_enabled,
            buckets: vec![Bucket::default(); 1 << bucket_bits],
            stats: IndexStats::default(),
        }
    }
    /// Entries in all.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * WAYS
    }
    pub fn bucket_bits(&self) -> usize {
        self.bucket_bits
    }
    pub fn stats(&self) -> IndexStats {
        self.stats
    }
    /// The full fingerprint stored in `entry`, if it is allocated.
    pub fn fingerprint(&self, entry: u32) -> Option<Fingerprint> {
        let b = &self.buckets[(entry as usize) / WAYS];
        let w = entry as usize % WAYS;
        (b.occupied & (1 << w) != 0).then_some(b.ways[w].fp)
    }
    /// Reference count of `entry` (0 when free).
    pub fn refcount(&self, entry: u32) -> u32 {
        let b = &self.buckets[(entry as usize) / WAYS];
        let w = entry as usize % WAYS;
        if b.occupied & (1 << w) != 0 {
            b.ways[w].refcount
        } else {
            0
        }
    }
    /// The Bloom filter of `bucket`.
    pub fn bloom(&self, bucket: u32) -> u32 {
        self.buckets[bucket as usize].bloom
    }
    /// Occupancy mask of `bucket`.
    pub fn occupied(&self, bucket: u32) -> u8 {
        self.buckets[bucket as usize].occupied
    }

    /// Executes one command and returns its response.
    pub fn execute(&mut self, cmd: &Command) -> Response {
        let rsp = self.decide(cmd);
        self.stats.count(&rsp);
        rsp
    }

    fn decide(&mut self, cmd: &Command) -> Response {
        let mut rsp = Response { tag: cmd.tag, status: Status::ErrMalformed, entry: 0, refcount: 0, flags: 0 };
        let op = match cmd.op {
            0 => Op::Insert,
            1 => Op::Lookup,
            2 => Op::DerefFp,
            3 => Op::DerefEntry,
            4 => Op::Put,
            _ => return rsp,
        };
        if op == Op::DerefEntry {
            let bucket = cmd.entry as usize / WAYS;
            if bucket >= self.buckets.len() {
                return rsp;
            }
            let way = cmd.entry as usize % WAYS;
            if self.buckets[bucket].occupied & (1 << way) == 0 {
                rsp.status = Status::ErrUnknown;
                return rsp;
            }
            return self.deref(bucket, way, rsp);
        }
        let bucket_no = bucket_of(&cmd.fp, self.bucket_bits);
        let bucket = bucket_no as usize;
        let sig = signature_of(&cmd.fp);
        let key_bits = bloom_bits(sig);
        let b = &self.buckets[bucket];
        let (old_bloom, occupied) = (b.bloom, b.occupied);
        let walk = !self.bloom_enabled || old_bloom & key_bits == key_bits;
        let mut rebuilt = 0;
        if walk {
            // Every occupied way is read; candidates (signature matches) are
            // then verified against the full fingerprint in way order.
            let mut hit = None;
            for w in 0..WAYS {
                if occupied & (1 << w) == 0 {
                    continue;
                }
                let stored_sig = signature_of(&b.ways[w].fp);
                rebuilt |= bloom_bits(stored_sig);
                if hit.is_none() && stored_sig == sig {
                    if b.ways[w].fp == cmd.fp {
                        hit = Some(w);
                    } else {
                        rsp.flags |= flag::SIGNATURE_MISS;
                    }
                }
            }
            if let Some(w) = hit {
                rsp.entry = entry_of(bucket_no, w as u32) as u16;
                let rc = self.buckets[bucket].ways[w].refcount;
                return match op {
                    Op::Insert if rc == REFCOUNT_MAX => {
                        rsp.status = Status::ErrSaturated;
                        rsp.refcount = rc as u8;
                        rsp
                    }
                    Op::Insert => {
                        self.buckets[bucket].ways[w].refcount = rc + 1;
                        rsp.status = Status::Duplicate;
                        rsp.refcount = (rc + 1) as u8;
                        rsp
                    }
                    Op::Lookup | Op::Put => {
                        rsp.status = Status::Found;
                        rsp.refcount = rc as u8;
                        rsp
                    }
                    _ => self.deref(bucket, w, rsp),
                };
            }
        } else {
            rsp.flags |= flag::BLOOM_NEGATIVE;
        }
        // Not present.
        let false_positive = walk && self.bloom_enabled;
        let base = if false_positive { rebuilt } else { old_bloom };
        let full = occupied == 0xff;
        let inserts = op == Op::Insert || op == Op::Put;
        let allocate = inserts && !full;
        let new_bloom = if allocate { base | key_bits } else { base };
        if false_positive {
            rsp.flags |= flag::FALSE_POSITIVE;
            if old_bloom & !new_bloom != 0 {
                rsp.flags |= flag::REBUILT;
            }
        }
        let b = &mut self.buckets[bucket];
        b.bloom = new_bloom;
        rsp.status = match op {
            Op::Insert | Op::Put if full => Status::ErrFull,
            Op::Insert | Op::Put => {
                let w = (!occupied).trailing_zeros() as usize;
                b.occupied |= 1 << w;
                b.ways[w] = Way { refcount: 1, fp: cmd.fp };
                rsp.entry = entry_of(bucket_no, w as u32) as u16;
                rsp.refcount = 1;
                Status::New
            }
            Op::Lookup => Status::Absent,
            _ => Status::ErrUnknown,
        };
        rsp
    }

    fn deref(&mut self, bucket: usize, way: usize, mut rsp: Response) -> Response {
        let b = &mut self.buckets[bucket];
        rsp.entry = entry_of(bucket as u32, way as u32) as u16;
        let rc = b.ways[way].refcount - 1;
        b.ways[way].refcount = rc;
        if rc == 0 {
            // The Bloom bits stay: a later false positive clears them.
            b.occupied &= !(1 << way);
            rsp.status = Status::Freed;
        } else {
            rsp.status = Status::Kept;
            rsp.refcount = rc as u8;
        }
        rsp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fingerprint with chosen bucket and signature (the rest from `salt`).
    fn fp(bucket: u32, sig: u32, salt: u8) -> Fingerprint {
        let mut f = [salt; 20];
        let low = (sig << 16) | bucket;
        f[16..20].copy_from_slice(&low.to_be_bytes());
        f
    }

    #[test]
    fn insert_twice_then_deref_twice_frees_the_entry() {
        let mut m = IndexModel::new(4, true);
        let a = fp(3, 0x123, 1);
        let r = m.execute(&Command::with_fp(Op::Insert, a, 1));
        assert_eq!((r.status, r.entry, r.refcount), (Status::New, 24, 1));
        let r = m.execute(&Command::with_fp(Op::Insert, a, 2));
        assert_eq!((r.status, r.entry, r.refcount), (Status::Duplicate, 24, 2));
        assert_eq!(m.execute(&Command::with_fp(Op::DerefFp, a, 3)).status, Status::Kept);
        let r = m.execute(&Command::deref_entry(24, 4));
        assert_eq!((r.status, r.entry), (Status::Freed, 24));
        assert_eq!(m.execute(&Command::deref_entry(24, 5)).status, Status::ErrUnknown);
        assert_eq!(m.stats().entries_used, 0);
    }

    #[test]
    fn put_allocates_once_and_never_counts() {
        let mut m = IndexModel::new(4, true);
        let a = fp(2, 0x321, 9);
        assert_eq!(m.execute(&Command::with_fp(Op::Put, a, 0)).status, Status::New);
        let r = m.execute(&Command::with_fp(Op::Put, a, 0));
        assert_eq!((r.status, r.entry, r.refcount), (Status::Found, 16, 1));
        assert_eq!(m.execute(&Command::deref_entry(16, 0)).status, Status::Freed);
    }

    #[test]
    fn same_signature_different_fingerprint_is_never_merged() {
        let mut m = IndexModel::new(2, true);
        let (a, b) = (fp(1, 0x555, 1), fp(1, 0x555, 2));
        assert_eq!(m.execute(&Command::with_fp(Op::Insert, a, 0)).status, Status::New);
        let r = m.execute(&Command::with_fp(Op::Insert, b, 0));
        assert_eq!((r.status, r.entry), (Status::New, 9));
        assert_eq!(r.flags & flag::SIGNATURE_MISS, flag::SIGNATURE_MISS);
    }

    #[test]
    fn stale_bloom_bits_are_cleared_by_the_next_false_positive() {
        let mut m = IndexModel::new(2, true);
        let a = fp(0, 0x0a1, 1);
        m.execute(&Command::with_fp(Op::Insert, a, 0));
        m.execute(&Command::with_fp(Op::DerefFp, a, 0));
        assert_eq!(m.bloom(0), bloom_bits(0x0a1), "removal leaves the bits");
        let r = m.execute(&Command::with_fp(Op::Lookup, a, 0));
        assert_eq!(r.status, Status::Absent);
        assert_eq!(r.flags, flag::FALSE_POSITIVE | flag::REBUILT);
        assert_eq!(m.bloom(0), 0);
        assert_eq!(m.execute(&Command::with_fp(Op::Lookup, a, 0)).flags, flag::BLOOM_NEGATIVE);
    }
}
