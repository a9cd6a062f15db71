//! The built-in sample that `ditto hash` (and later `ditto ingest`) uses when
//! no file is given: 16 pages of text with only 5 distinct page contents, so
//! that repeated pages show repeated digests.
use ditto_hw::sha1::PAGE_BYTES;

/// Pages in the sample.
pub const SAMPLE_PAGES: usize = 16;
/// Distinct page contents in the sample.
pub const SAMPLE_DISTINCT: usize = 5;

/// The sample's bytes.
pub fn sample_bytes() -> Vec<u8> {
    let mut out = Vec::with_capacity(SAMPLE_PAGES * PAGE_BYTES);
    for page in 0..SAMPLE_PAGES {
        let line = format!("Ditto sample page, content {} of {SAMPLE_DISTINCT}.\n", page % SAMPLE_DISTINCT);
        let start = out.len();
        while out.len() < start + PAGE_BYTES {
            let room = start + PAGE_BYTES - out.len();
            out.extend_from_slice(&line.as_bytes()[..line.len().min(room)]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn sample_has_the_documented_page_counts() {
        let bytes = sample_bytes();
        assert_eq!(bytes.len(), SAMPLE_PAGES * PAGE_BYTES);
        let distinct: HashSet<&[u8]> = bytes.chunks(PAGE_BYTES).collect();
        assert_eq!(distinct.len(), SAMPLE_DISTINCT);
    }
}
