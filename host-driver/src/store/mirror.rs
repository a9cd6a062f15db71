//! The store's metadata in memory: which copy each LPA maps to, and each
//! copy's PPA, fingerprint and references, kept in step with the core by
//! applying the [`Event`]s its responses imply. It is what the journal and
//! the checkpoints record, what every read is checked against, and what a
//! recovery rebuilds the core from.
use super::PAGE;
use ditto_hw::index::Fingerprint;
use std::collections::HashMap;

/// A copy stored by `WRITE_UNIQUE` (after a hash collision): never shared.
pub const UNSHARED: u8 = 1;
/// A copy written by `WRITE_FP`: the core knows its fingerprint, but no data
/// was ever stored for it (a trace replay).
pub const NO_DATA: u8 = 2;

/// One change of the metadata, as the core's responses imply it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `lpa` maps to the copy at `ppa`: a new copy (`fresh`, the core stored
    /// it on a free page) with `fingerprint` and `flags`, or an existing one
    /// (a duplicate, whose fingerprint must be `fingerprint`).
    Map { lpa: u32, ppa: u32, fresh: bool, flags: u8, fingerprint: Fingerprint },
    /// `lpa` maps to nothing (trimmed).
    Unmap { lpa: u32 },
    /// Garbage collection moved the copy at `from` to `to`.
    Move { from: u32, to: u32 },
}

/// A stored copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy {
    pub ppa: u32,
    pub fingerprint: Fingerprint,
    pub refs: u32,
    pub flags: u8,
}

/// Why an event cannot follow the metadata as it is (the core and the store
/// disagree, or a journal is not this store's).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MirrorError {
    #[error("LPA {lpa} is beyond the store's {lpas} pages")]
    LpaRange { lpa: u32, lpas: u32 },
    #[error("a new copy at PPA {ppa}, which already holds one")]
    Occupied { ppa: u32 },
    #[error("LPA {lpa} shares PPA {ppa}, which holds no copy")]
    NoCopy { lpa: u32, ppa: u32 },
    #[error("LPA {lpa} shares PPA {ppa}, whose fingerprint differs")]
    OtherFingerprint { lpa: u32, ppa: u32 },
    #[error("a move from PPA {from}, which holds no copy, to {to}")]
    MoveFromEmpty { from: u32, to: u32 },
    #[error("a move from PPA {from} to {to}, which already holds a copy")]
    MoveOntoCopy { from: u32, to: u32 },
}

const NONE: u32 = u32::MAX;

/// LPA -> copy, copy -> PPA (a move changes one entry however many LPAs
/// share the copy).
#[derive(Clone, Debug)]
pub struct Mirror {
    l2p: Vec<u32>,
    copies: Vec<Option<Copy>>,
    free_ids: Vec<u32>,
    by_ppa: HashMap<u32, u32>,
}

impl Mirror {
    /// Nothing mapped, `lpas` logical pages.
    pub fn new(lpas: u32) -> Self {
        Mirror { l2p: vec![NONE; lpas as usize], copies: Vec::new(), free_ids: Vec::new(), by_ppa: HashMap::new() }
    }

    pub fn lpas(&self) -> u32 {
        self.l2p.len() as u32
    }

    /// The copy `lpa` maps to.
    pub fn lookup(&self, lpa: u32) -> Option<&Copy> {
        match self.l2p.get(lpa as usize) {
            Some(&id) if id != NONE => self.copies[id as usize].as_ref(),
            _ => None,
        }
    }

    /// The copy stored at `ppa`.
    pub fn copy_at(&self, ppa: u32) -> Option<&Copy> {
        self.by_ppa.get(&ppa).and_then(|&id| self.copies[id as usize].as_ref())
    }

    /// Stored copies.
    pub fn live_pages(&self) -> u64 {
        self.by_ppa.len() as u64
    }

    /// LPAs that map to a copy.
    pub fn mapped_lpas(&self) -> u64 {
        self.l2p.iter().filter(|&&id| id != NONE).count() as u64
    }

    /// Every mapped LPA with its copy, in LPA order.
    pub fn mapped(&self) -> impl Iterator<Item = (u32, &Copy)> + '_ {
        self.l2p.iter().enumerate().filter(|(_, &id)| id != NONE).filter_map(|(lpa, &id)| {
            let copy = self.copies[id as usize].as_ref()?;
            Some((lpa as u32, copy))
        })
    }

    /// Every copy with the LPAs that share it, in PPA order.
    pub fn copies_with_lpas(&self) -> Vec<(Copy, Vec<u32>)> {
        let mut lpas: HashMap<u32, Vec<u32>> = HashMap::new();
        for (lpa, &id) in self.l2p.iter().enumerate() {
            if id != NONE {
                lpas.entry(id).or_default().push(lpa as u32);
            }
        }
        let mut out: Vec<(Copy, Vec<u32>)> = self
            .by_ppa
            .values()
            .filter_map(|&id| Some((self.copies[id as usize]?, lpas.remove(&id).unwrap_or_default())))
            .collect();
        out.sort_by_key(|(c, _)| c.ppa);
        out
    }

    /// Whether `other` maps every LPA to the same PPA with the same flags.
    pub fn same_layout(&self, other: &Mirror) -> bool {
        self.lpas() == other.lpas()
            && (0..self.lpas()).all(|lpa| match (self.lookup(lpa), other.lookup(lpa)) {
                (None, None) => true,
                (Some(a), Some(b)) => a.ppa == b.ppa && a.flags == b.flags && a.fingerprint == b.fingerprint,
                _ => false,
            })
    }

    fn check_lpa(&self, lpa: u32) -> Result<(), MirrorError> {
        if lpa >= self.lpas() {
            return Err(MirrorError::LpaRange { lpa, lpas: self.lpas() });
        }
        Ok(())
    }

    /// Drops one reference of copy `id`; returns its PPA if that freed it.
    fn release(&mut self, id: u32) -> Option<u32> {
        let copy = self.copies[id as usize].as_mut().expect("a mapped LPA's copy exists");
        copy.refs -= 1;
        if copy.refs > 0 {
            return None;
        }
        let ppa = copy.ppa;
        self.copies[id as usize] = None;
        self.free_ids.push(id);
        self.by_ppa.remove(&ppa);
        Some(ppa)
    }

    /// Applies `event`; returns the PPA it freed, if any (a copy's last
    /// reference gone, or the page a copy moved away from). On an error
    /// nothing changed.
    pub fn apply(&mut self, event: &Event) -> Result<Option<u32>, MirrorError> {
        match *event {
            Event::Map { lpa, ppa, fresh, flags, fingerprint } => {
                self.check_lpa(lpa)?;
                let id = if fresh {
                    if self.by_ppa.contains_key(&ppa) {
                        return Err(MirrorError::Occupied { ppa });
                    }
                    let copy = Copy { ppa, fingerprint, refs: 0, flags };
                    let id = match self.free_ids.pop() {
                        Some(id) => {
                            self.copies[id as usize] = Some(copy);
                            id
                        }
                        None => {
                            self.copies.push(Some(copy));
                            (self.copies.len() - 1) as u32
                        }
                    };
                    self.by_ppa.insert(ppa, id);
                    id
                } else {
                    let id = *self.by_ppa.get(&ppa).ok_or(MirrorError::NoCopy { lpa, ppa })?;
                    if self.copies[id as usize].expect("indexed").fingerprint != fingerprint {
                        return Err(MirrorError::OtherFingerprint { lpa, ppa });
                    }
                    id
                };
                self.copies[id as usize].as_mut().expect("just found").refs += 1;
                let old = std::mem::replace(&mut self.l2p[lpa as usize], id);
                Ok(if old == NONE { None } else { self.release(old) })
            }
            Event::Unmap { lpa } => {
                self.check_lpa(lpa)?;
                let old = std::mem::replace(&mut self.l2p[lpa as usize], NONE);
                Ok(if old == NONE { None } else { self.release(old) })
            }
            Event::Move { from, to } => {
                if self.by_ppa.contains_key(&to) {
                    return Err(MirrorError::MoveOntoCopy { from, to });
                }
                let id = self.by_ppa.remove(&from).ok_or(MirrorError::MoveFromEmpty { from, to })?;
                self.by_ppa.insert(to, id);
                self.copies[id as usize].as_mut().expect("indexed").ppa = to;
                Ok(Some(from))
            }
        }
    }
}

/// Whether `data` is the page whose fingerprint is `fingerprint`.
pub fn holds(data: &[u8; PAGE], fingerprint: &Fingerprint) -> bool {
    ditto_sim::hasher::sha1_of(data) == *fingerprint
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(lpa: u32, ppa: u32, fresh: bool, fp: u8) -> Event {
        Event::Map { lpa, ppa, fresh, flags: 0, fingerprint: [fp; 20] }
    }

    #[test]
    fn shared_copies_are_freed_with_their_last_reference_and_moves_carry_every_lpa() {
        let mut m = Mirror::new(8);
        assert_eq!(m.apply(&map(0, 10, true, 1)), Ok(None));
        assert_eq!(m.apply(&map(1, 10, false, 1)), Ok(None));
        assert_eq!(m.apply(&Event::Move { from: 10, to: 20 }), Ok(Some(10)));
        assert_eq!(m.lookup(1).unwrap().ppa, 20);
        assert_eq!(m.apply(&Event::Unmap { lpa: 0 }), Ok(None));
        assert_eq!(m.apply(&map(1, 30, true, 2)), Ok(Some(20)), "the overwrite frees the moved copy");
        assert_eq!(m.live_pages(), 1);
        assert_eq!(m.mapped_lpas(), 1);
    }

    #[test]
    fn events_that_contradict_the_metadata_are_refused_and_change_nothing() {
        let mut m = Mirror::new(4);
        m.apply(&map(0, 5, true, 1)).unwrap();
        assert_eq!(m.apply(&map(1, 5, true, 2)), Err(MirrorError::Occupied { ppa: 5 }));
        assert_eq!(m.apply(&map(1, 6, false, 1)), Err(MirrorError::NoCopy { lpa: 1, ppa: 6 }));
        assert_eq!(m.apply(&map(1, 5, false, 9)), Err(MirrorError::OtherFingerprint { lpa: 1, ppa: 5 }));
        assert_eq!(m.apply(&map(4, 7, true, 1)), Err(MirrorError::LpaRange { lpa: 4, lpas: 4 }));
        assert_eq!(m.apply(&Event::Move { from: 9, to: 10 }), Err(MirrorError::MoveFromEmpty { from: 9, to: 10 }));
        assert_eq!(m.mapped_lpas(), 1);
        assert_eq!(m.lookup(0).unwrap().refs, 1);
    }
}
