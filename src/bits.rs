//! One bit per record of a book: reached, linked, matched.

use crate::book::RecordId;

/// One bit per record.
#[derive(Debug)]
pub struct Bits(Vec<u64>);

impl Bits {
    pub fn new(records: usize) -> Bits {
        Bits(vec![0; records.div_ceil(64)])
    }

    pub fn contains(&self, id: RecordId) -> bool {
        self.0[id.index() / 64] & 1 << (id.index() % 64) != 0
    }

    /// Sets a record's bit; true if it was not set.
    pub fn insert(&mut self, id: RecordId) -> bool {
        let (word, bit) = (id.index() / 64, 1u64 << (id.index() % 64));
        let new = self.0[word] & bit == 0;
        self.0[word] |= bit;
        new
    }

    /// Asks for the word holding a record's bit.
    pub fn prefetch(&self, id: RecordId) {
        prefetch_index::prefetch_index(&self.0, id.index() / 64);
    }

    pub fn count(&self) -> u64 {
        self.0.iter().map(|w| u64::from(w.count_ones())).sum()
    }
}
