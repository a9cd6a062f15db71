//! Fault injection for the board link's tests: [`FaultyPipe`] wraps any
//! byte pipe and damages what crosses it, at random from a seed
//! ([`Faults`]) or once where a test says ([`Damage`]). Built only with the
//! `fault-injection` feature, which the system tests (`tests/`) turn on:
//! `ditto` and the library's users never carry it.
use super::BytePipe;
use crate::transport::TransportError;
use rand::Rng;

/// Damage done to the link in a cosimulation, drawn from a seed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Faults {
    /// Per frame to the board: chance of one flipped bit.
    pub flip: f64,
    /// Per frame to the board: chance of one byte lost.
    pub drop: f64,
    /// Per frame to the board: chance of random bytes before it.
    pub garbage: f64,
    /// Per frame to the board: chance that it stops short (the rest never sent).
    pub truncate: f64,
    /// Per byte to the host: chance of one flipped bit.
    pub flip_to_host: f64,
    pub seed: u64,
}

/// One deliberate damage to the next frame sent to the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Damage {
    /// Flip bit `bit` of byte `at`.
    Flip { at: usize, bit: u8 },
    /// Lose byte `at`.
    Drop { at: usize },
    /// Send only the first `keep` bytes.
    Truncate { keep: usize },
    /// Send these bytes first.
    Garbage(Vec<u8>),
}

/// `inner`, damaged as its [`Faults`] and [`Damage`]s say.
pub struct FaultyPipe<P: BytePipe> {
    inner: P,
    faults: Faults,
    rng: rand::rngs::StdRng,
    next_damage: Option<(usize, Damage)>,
    /// Bytes from the board so far, and the one to flip.
    taken: usize,
    flip_from_board: Option<usize>,
    trace: bool,
}

impl<P: BytePipe> FaultyPipe<P> {
    /// `inner`, undamaged until told.
    pub fn new(inner: P) -> Self {
        FaultyPipe {
            inner,
            faults: Faults::default(),
            rng: rand::SeedableRng::seed_from_u64(0),
            next_damage: None,
            taken: 0,
            flip_from_board: None,
            trace: std::env::var_os("DITTO_LINK_TRACE").is_some(),
        }
    }

    /// Damages the link from now on.
    pub fn set_faults(&mut self, faults: Faults) {
        self.faults = faults;
        self.rng = rand::SeedableRng::seed_from_u64(faults.seed);
    }

    /// Damages the next frame sent to the board, once.
    pub fn damage_next(&mut self, damage: Damage) {
        self.damage_frame(0, damage);
    }

    /// Damages the `n`th frame (from 0) sent to the board from now, once.
    pub fn damage_frame(&mut self, n: usize, damage: Damage) {
        self.next_damage = Some((n, damage));
    }

    /// Flips the lowest bit of the `n`th byte (from 0) the board sends from now.
    pub fn flip_from_board(&mut self, n: usize) {
        self.flip_from_board = Some(self.taken + n);
    }

    /// The undamaged pipe inside.
    pub fn inner(&mut self) -> &mut P {
        &mut self.inner
    }
}

impl<P: BytePipe> BytePipe for FaultyPipe<P> {
    fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        let f = self.faults;
        let original = bytes.len();
        let mut bytes = bytes.to_vec();
        if self.rng.gen_bool(f.garbage) {
            let n = self.rng.gen_range(1..8);
            let garbage: Vec<u8> = (0..n).map(|_| self.rng.gen()).collect();
            bytes.splice(0..0, garbage);
        }
        if self.rng.gen_bool(f.flip) {
            let at = self.rng.gen_range(0..bytes.len());
            bytes[at] ^= 1 << self.rng.gen_range(0..8);
            if self.trace {
                eprintln!("{:>12} damage: byte {at} of {original} flipped", self.cycles());
            }
        }
        if self.rng.gen_bool(f.drop) {
            let at = self.rng.gen_range(0..bytes.len());
            bytes.remove(at);
        }
        if self.rng.gen_bool(f.truncate) {
            let keep = self.rng.gen_range(1..bytes.len());
            bytes.truncate(keep);
        }
        if self.trace && bytes.len() != original {
            eprintln!("{:>12} damage: {} bytes sent as {}", self.cycles(), original, bytes.len());
        }
        let damage = match self.next_damage.take() {
            Some((0, damage)) => Some(damage),
            Some((n, damage)) => {
                self.next_damage = Some((n - 1, damage));
                None
            }
            None => None,
        };
        match damage {
            None => {}
            Some(Damage::Flip { at, bit }) => bytes[at] ^= 1 << bit,
            Some(Damage::Drop { at }) => {
                bytes.remove(at);
            }
            Some(Damage::Truncate { keep }) => bytes.truncate(keep),
            Some(Damage::Garbage(garbage)) => {
                bytes.splice(0..0, garbage);
            }
        }
        self.inner.send(&bytes)
    }

    fn recv(&mut self, into: &mut Vec<u8>) -> Result<bool, TransportError> {
        let start = into.len();
        if !self.inner.recv(into)? {
            return Ok(false);
        }
        for b in &mut into[start..] {
            if self.flip_from_board == Some(self.taken) {
                *b ^= 1;
            }
            if self.rng.gen_bool(self.faults.flip_to_host) {
                *b ^= 1 << self.rng.gen_range(0..8);
            }
            self.taken += 1;
        }
        Ok(true)
    }

    fn cycles(&self) -> u64 {
        self.inner.cycles()
    }

    fn name(&self) -> String {
        self.inner.name()
    }
}
