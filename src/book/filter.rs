//! A small filter in front of the index (a blocked Bloom filter): one byte
//! a board, four bits of one word set per board held. A board whose four
//! bits are not all set is not held, which the resolver learns from a
//! table a twelfth the index's size, mostly in cache, instead of a probe of
//! the index itself. An Egaroucid book asks about every legal move of every
//! record (about ten a record) and finds about one; an Edax book's leaves
//! are mostly not in the book either. About 3 in 100 boards not held pass.

/// The bits of a board's hash that the index keeps (see
/// [`super::index::IndexKey`]): the filter reads no others, so that it is
/// built from the same keys as the index.
const INDEXED_BITS: u64 = 0xffff_ffff | 0x1ff << 48;

/// Bits set per board.
const BITS_PER_BOARD: u32 = 4;

pub(super) struct Filter {
    words: Vec<u64>,
}

impl Filter {
    /// Room for `count` boards, a byte each.
    pub fn with_room_for(count: usize) -> Filter {
        let mut words = vec![0; count.div_ceil(8).max(1)];
        crate::os::advise_huge_pages(&mut words);
        Filter { words }
    }

    /// The word a board's bits are in, and the bits.
    #[inline]
    fn bits(&self, hash: u64) -> (usize, u64) {
        // The index's bits, mixed again (SplitMix64's finalizer): the
        // word and the bits in it must not follow the index's own bucket.
        let mut h = (hash & INDEXED_BITS).wrapping_add(0x9e37_79b9_7f4a_7c15);
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 31;
        let word = ((h >> 32) * self.words.len() as u64) >> 32;
        let mask = (0..BITS_PER_BOARD).fold(0, |mask, i| mask | 1 << ((h >> (6 * i)) & 63));
        (word as usize, mask)
    }

    /// Notes a board held.
    pub fn insert(&mut self, hash: u64) {
        let (word, mask) = self.bits(hash);
        self.words[word] |= mask;
    }

    /// False if no board with this hash is held; true if one may be.
    #[inline]
    pub fn may_hold(&self, hash: u64) -> bool {
        let (word, mask) = self.bits(hash);
        self.words[word] & mask == mask
    }

    /// Asks for the word [`Filter::may_hold`] of `hash` reads.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        prefetch_index::prefetch_index(&self.words, self.bits(hash).0);
    }

    /// Bytes held, for reports.
    pub fn allocation_size(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct hashes for boards `from..to`, even in the bits the filter
    /// keeps (an odd multiplier keeps the low 32 bits distinct), without
    /// the index's own hash: the filter mixes them itself.
    fn hashes(from: u64, to: u64) -> Vec<u64> {
        (from..to).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect()
    }

    #[test]
    fn every_board_held_passes_and_few_others_do() {
        let held = hashes(0, 100_000);
        let mut filter = Filter::with_room_for(held.len());
        held.iter().for_each(|&h| filter.insert(h));
        assert!(held.iter().all(|&h| filter.may_hold(h)), "a board held was refused");
        // Only the index's bits count: the same board whatever the others.
        assert!(held.iter().all(|&h| filter.may_hold(h & INDEXED_BITS)));
        let others = hashes(100_000, 200_000);
        let passed = others.iter().filter(|&&h| filter.may_hold(h)).count();
        assert!(passed < 5_000, "{passed} of 100,000 boards not held passed");
    }

    #[test]
    fn an_empty_filter_holds_nothing() {
        let filter = Filter::with_room_for(0);
        assert!(hashes(0, 1000).iter().all(|&h| !filter.may_hold(h)));
    }
}
