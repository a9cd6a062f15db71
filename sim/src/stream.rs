//! A model's page stream input (`page$word`, 32 bits, or `page$beat`, 256
//! bits), driven one transfer at a time from a page's bytes: the hashers'
//! and the cores' testbenches share it, so a page's bytes reach either
//! width in the same order.
use crate::model::{Model, PortId, SimError};
use ditto_hw::sha1::PAGE_BYTES;

/// The data input of a page stream and how much of a page one transfer
/// carries.
#[derive(Clone, Copy, Debug)]
pub struct PageStream {
    data: PortId,
    words_per_transfer: usize,
}

impl PageStream {
    /// Finds the stream's data input: `page$word` or `page$beat`.
    pub fn find(model: &Model) -> Result<Self, SimError> {
        let data = model.input("page$word").or_else(|_| model.input("page$beat"))?;
        let width = model.width(data) as usize;
        if width % 32 != 0 || PAGE_BYTES % (width / 8) != 0 {
            return Err(SimError::Protocol(format!(
                "page stream `{}` is {width} bits: not whole words that tile a page",
                model.port_name(data)
            )));
        }
        Ok(Self { data, words_per_transfer: width / 32 })
    }

    /// 32-bit words one transfer moves (1, or 8 for a 256-bit beat).
    pub fn words_per_transfer(&self) -> usize {
        self.words_per_transfer
    }

    /// Transfers a page takes (1,024 words, or 128 beats).
    pub fn transfers_per_page(&self) -> usize {
        PAGE_BYTES / (4 * self.words_per_transfer)
    }

    /// Puts transfer `transfer` of `page` on the data input: big-endian
    /// words, the first of a beat in its top bits.
    pub fn load(&self, model: &mut Model, page: &[u8], transfer: usize) {
        let per = self.words_per_transfer;
        let bytes = &page[transfer * 4 * per..(transfer + 1) * 4 * per];
        let word = |i: usize| u32::from_be_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
        if per == 1 {
            model.set(self.data, word(0) as u64);
        } else {
            // The port's words go least significant first.
            let words: Vec<u32> = (0..per).rev().map(word).collect();
            model.set_words(self.data, &words);
        }
    }
}
