//! Block-level FIPS 180 vectors through the emitted Verilog of one engine.
//!
//! The engine hashes whole 4 KiB pages, but its `chain` port shows the chaining
//! value after every data block. A message of up to 63 padded blocks placed at
//! the start of a page therefore has its SHA-1 in `chain` after its last
//! block, whatever follows it in the page.
use ditto_sim::hasher::{hex, sha1_of};
use ditto_sim::testkit as common;
use ditto_sim::Model;

/// Standard SHA-1 padding of `msg` into 64-byte blocks.
fn padded(msg: &[u8]) -> Vec<u8> {
    let mut m = msg.to_vec();
    m.push(0x80);
    while m.len() % 64 != 56 {
        m.push(0);
    }
    m.extend_from_slice(&((msg.len() as u64) * 8).to_be_bytes());
    m
}

/// Runs one page through a `sha1_engine` model; returns the chaining value
/// after every data block and the page digest.
fn engine_run(m: &mut Model, page: &[u8; 4096]) -> (Vec<[u8; 20]>, [u8; 20]) {
    let (reset, word_in, word_valid, word_ready) = (
        m.input("reset").unwrap(),
        m.input("page$word").unwrap(),
        m.input("page$valid").unwrap(),
        m.port("page$ready").unwrap(),
    );
    let (digest, digest_valid, digest_ready) =
        (m.port("digest").unwrap(), m.port("digest_valid").unwrap(), m.input("digest_ready").unwrap());
    let (chain, chain_valid) = (m.port("chain").unwrap(), m.port("chain_valid").unwrap());
    let to_bytes = |words: &[u32]| {
        let mut out = [0u8; 20];
        for (i, w) in words.iter().rev().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&w.to_be_bytes());
        }
        out
    };
    m.set(reset, 1);
    m.tick();
    m.set(reset, 0);
    m.set(digest_ready, 1);
    let (mut word, mut chains) = (0, Vec::new());
    for _ in 0..20_000 {
        m.set(word_valid, (word < 1024) as u64);
        if word < 1024 {
            m.set(word_in, u32::from_be_bytes(page[4 * word..4 * word + 4].try_into().unwrap()) as u64);
        }
        m.eval();
        if m.get(chain_valid) == 1 {
            chains.push(to_bytes(m.get_words(chain)));
        }
        if m.get(digest_valid) == 1 {
            return (chains, to_bytes(m.get_words(digest)));
        }
        if word < 1024 && m.get(word_ready) == 1 {
            word += 1;
        }
        m.tick();
    }
    panic!("no digest within 20,000 cycles");
}

fn check_vector(label: &str, msg: &[u8], want_hex: &str) {
    let blocks = padded(msg);
    let mut rng = common::rng(common::seed(label));
    let mut page = common::random_page(&mut rng);
    page[..blocks.len()].copy_from_slice(&blocks);
    common::cosim(label, "sha1_engine", |m| {
        let (chains, digest) = engine_run(m, &page);
        assert_eq!(chains.len(), 64, "one chaining value per data block");
        assert_eq!(hex(&chains[blocks.len() / 64 - 1]), want_hex, "message {:?}", String::from_utf8_lossy(msg));
        assert_eq!(digest, sha1_of(&page), "the page digest is still the page's SHA-1");
    });
}

#[test]
fn fips_180_abc_one_block() {
    check_vector("fips_180_abc_one_block", b"abc", "a9993e364706816aba3e25717850c26c9cd0d89d");
}

#[test]
fn fips_180_448_bit_message_two_blocks() {
    check_vector(
        "fips_180_448_bit_message_two_blocks",
        b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
    );
}

#[test]
fn fips_180_896_bit_message_two_blocks() {
    check_vector(
        "fips_180_896_bit_message_two_blocks",
        b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
        "a49b2446a02c645bf419f995b67091253a04a259",
    );
}

#[test]
fn empty_message_one_padding_block() {
    check_vector("empty_message_one_padding_block", b"", "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

#[test]
fn thousand_a_sixteen_blocks() {
    // Not a FIPS vector: a 16-block message checked against the sha1 crate.
    use sha1::Digest;
    let msg = vec![b'a'; 1000];
    check_vector("thousand_a_sixteen_blocks", &msg, &hex(&sha1::Sha1::digest(&msg)));
}
