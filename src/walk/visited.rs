//! Which records a walk has entered: a bit a record (and a context), kept
//! apart from the records. The walk's and the runner's walking ahead of it
//! (`ahead`) each keep their own.

use crate::book::RecordId;

/// Which records the walk has stood on: one bit per record, by [`RecordId`].
/// A bit array a sixty-fourth the size of the targets stays in cache where
/// flags beside the records would not.
///
/// Under a window whose moves depend on the parity of the ply (`error`,
/// docs/walk.md, windows), a position reached at an even and at an odd ply follows two
/// different sets of moves, so each record has a bit per parity: the
/// *context* it was entered in. Without such a window every context is 0.
pub(super) struct Visited {
    words: Vec<u64>,
    /// 1 or 2.
    pub(super) contexts: usize,
}

impl Visited {
    pub(super) fn new(records: u64, contexts: usize) -> Visited {
        let bits = records * contexts as u64;
        let words = usize::try_from(bits.div_ceil(64)).expect("record ids are 32-bit");
        Visited { words: vec![0; words], contexts }
    }

    fn bit(&self, id: RecordId, context: usize) -> (usize, u64) {
        let at = id.index() * self.contexts + context;
        (at / 64, 1u64 << (at % 64))
    }

    /// Asks for the word holding a record's bit, to be read a little later.
    pub(super) fn prefetch(&self, id: RecordId) {
        prefetch_index::prefetch_index(&self.words, id.index() * self.contexts / 64);
    }

    /// True if the record was entered in `context`.
    pub(super) fn contains(&self, id: RecordId, context: usize) -> bool {
        let (word, bit) = self.bit(id, context);
        self.words[word] & bit != 0
    }

    /// Marks a record entered in `context`; true if it was not before.
    pub(super) fn insert_in(&mut self, id: RecordId, context: usize) -> bool {
        let (word, bit) = self.bit(id, context);
        let first_time = self.words[word] & bit == 0;
        self.words[word] |= bit;
        first_time
    }

    /// Marks a record visited; true if it was not visited before.
    #[cfg(test)]
    fn insert(&mut self, id: RecordId) -> bool {
        self.insert_in(id, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_visited_once_whatever_its_place_in_the_bit_array() {
        let mut visited = Visited::new(130, 1);
        for id in [0, 63, 64, 127, 128, 129] {
            assert!(visited.insert(RecordId(id)), "record {id}: first visit");
            assert!(!visited.insert(RecordId(id)), "record {id}: second visit");
        }
        for id in [1, 62, 65, 126] {
            assert!(visited.insert(RecordId(id)), "record {id} was not marked by its neighbours");
        }
    }
}
