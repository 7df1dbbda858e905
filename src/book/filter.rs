//! A small filter in front of the index (a blocked Bloom filter): one byte
//! a board, four bits of one word set per board held. A board whose four
//! bits are not all set is not held, which the resolver learns from a
//! table a twelfth the index's size, mostly in cache, instead of a probe of
//! the index itself. An Egaroucid book asks about every legal move of every
//! record (about ten a record) and finds about one; an Edax book's leaves
//! are mostly not in the book either. About 3 in 100 boards not held pass.
//! The children of an Edax book's links are not asked: nearly all are
//! held, so the filter's word would be a read that spares none.

use crate::board::Board;
use crate::symmetry::{image_key, ChildImageKeys};

/// The bits of a board's hash that the index keeps (see
/// [`super::index::IndexKey`]): the index's filter reads no others, so
/// that it is built from the same keys as the index.
pub(super) const INDEXED_BITS: u64 = 0xffff_ffff | 0x1ff << 48;

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

    /// The word a board's bits are in, and the bits, from its key (the
    /// index's: the bits of its hash it keeps, `hash & INDEXED_BITS`).
    #[inline]
    fn bits(&self, key: u64) -> (usize, u64) {
        // The key mixed again (SplitMix64's finalizer): the word and the
        // bits in it must not follow the index's own bucket.
        let mut h = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 31;
        let word = ((h >> 32) * self.words.len() as u64) >> 32;
        let mask = (0..BITS_PER_BOARD).fold(0, |mask, i| mask | 1 << ((h >> (6 * i)) & 63));
        (word as usize, mask)
    }

    /// Notes a board held, by its key.
    pub fn insert(&mut self, key: u64) {
        let (word, mask) = self.bits(key);
        self.words[word] |= mask;
    }

    /// False if no board with this key is held; true if one may be.
    #[inline]
    pub fn may_hold(&self, key: u64) -> bool {
        let (word, mask) = self.bits(key);
        self.words[word] & mask == mask
    }

    /// Asks for the word [`Filter::may_hold`] of `key` reads.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch_index::prefetch_index(&self.words, self.bits(key).0);
    }

    /// Bytes held, for reports.
    pub fn allocation_size(&self) -> usize {
        self.words.len() * 8
    }

    /// Adds every board `other` holds: the filter of both sets of boards,
    /// when both were made with room for the same count.
    fn union(mut self, other: &Filter) -> Filter {
        self.words.iter_mut().zip(&other.words).for_each(|(word, other)| *word |= other);
        self
    }
}

/// Boards whose keys [`ImageFilter::build`] computes before inserting
/// them, each key's word asked for first: their misses overlap.
const BUILD_BATCH: usize = 32;

/// The boards a book holds, told by a key that all eight images of a board
/// share ([`image_key`]): asked before a board is normalized, it turns most
/// boards the book does not hold away for sixteen table reads and one word
/// of its own, where asking the index's filter takes the board's eight
/// images, its least, its hash and then that filter's word. A board held
/// always passes, whichever image of it is asked; of the others, those
/// with the same discs in each orbit of squares as a board held pass too
/// (measured in docs/benchmarks.md), and a few in a hundred by chance.
pub struct ImageFilter(Filter);

impl ImageFilter {
    /// The filter of `boards`, of which there are about `count`.
    pub(super) fn build(count: usize, boards: impl Iterator<Item = Board>) -> ImageFilter {
        let mut filter = Filter::with_room_for(count);
        let mut keys = [0u64; BUILD_BATCH];
        let mut boards = boards.peekable();
        while boards.peek().is_some() {
            let mut n = 0;
            for (key, board) in keys.iter_mut().zip(boards.by_ref()) {
                *key = image_key(&board);
                filter.prefetch(*key);
                n += 1;
            }
            keys[..n].iter().for_each(|&key| filter.insert(key));
        }
        ImageFilter(filter)
    }

    /// [`ImageFilter::build`] of the boards `boards` gives for `0..items`,
    /// on `parts` threads: each builds the filter of its share of the range,
    /// and the filters are put together (a board's bits are the same in
    /// each, so the union is the filter of them all).
    pub(super) fn build_in_parts<I: Iterator<Item = Board>>(
        count: usize,
        items: usize,
        parts: usize,
        boards: impl Fn(std::ops::Range<usize>) -> I + Sync,
    ) -> ImageFilter {
        let filters = crate::parallel::on_runs(items, parts.max(1), 1, |ids| ImageFilter::build(count, boards(ids)));
        let mut filters = filters.into_iter();
        let first = filters.next().unwrap_or_else(|| ImageFilter::build(count, std::iter::empty()));
        ImageFilter(filters.fold(first.0, |all, part| all.union(&part.0)))
    }

    /// The key a board is asked by ([`image_key`]), the same for each of
    /// its images.
    #[inline]
    pub fn key(board: &Board) -> u64 {
        image_key(board)
    }

    /// The keys of a board's children ([`ImageFilter::key`] of each), told
    /// from the board's own at less cost.
    #[inline]
    pub fn keys_of_children(board: &Board) -> ChildImageKeys {
        ChildImageKeys::of(board)
    }

    /// False if the book holds no image of a board with this key; true if
    /// it may hold one.
    #[inline]
    pub fn may_hold(&self, key: u64) -> bool {
        self.0.may_hold(key)
    }

    /// Asks for the word [`ImageFilter::may_hold`] of `key` reads.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        self.0.prefetch(key);
    }

    /// Bytes held, for reports.
    pub fn allocation_size(&self) -> usize {
        self.0.allocation_size()
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
        let others = hashes(100_000, 200_000);
        let passed = others.iter().filter(|&&h| filter.may_hold(h)).count();
        assert!(passed < 5_000, "{passed} of 100,000 boards not held passed");
    }

    /// The positions of `games` random games (seeded), each move drawn
    /// among the legal ones, to the end.
    fn positions_of_random_games(games: usize, seed: u64) -> Vec<Board> {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut boards = Vec::new();
        for _ in 0..games {
            let mut board = Board::INITIAL;
            loop {
                let children = board.children();
                let Some(&(_, child)) = children.get(next() as usize % children.len().max(1)) else { break };
                boards.push(child);
                board = child;
            }
        }
        boards
    }

    #[test]
    fn no_image_of_a_board_held_is_turned_away_and_most_boards_not_held_are() {
        use crate::symmetry::{normalize, Symmetry};
        let held = positions_of_random_games(400, 7);
        let filter = ImageFilter::build(held.len(), held.iter().copied());
        for board in &held {
            for s in Symmetry::ALL {
                assert!(filter.may_hold(ImageFilter::key(&s.board(board))), "{board:?}, symmetry {s:?}");
            }
        }
        // Boards of other games, none of them an image of one held, past
        // the first moves (where few discs share few orbits).
        let stored: std::collections::HashSet<Board> = held.iter().map(|b| normalize(b).board).collect();
        let others: Vec<Board> = positions_of_random_games(400, 11)
            .into_iter()
            .filter(|b| b.empties() < 50 && !stored.contains(&normalize(b).board))
            .collect();
        let passed = others.iter().filter(|b| filter.may_hold(ImageFilter::key(b))).count();
        assert!(others.len() > 10_000, "{} boards not held", others.len());
        // The filter alone lets about 3 in 100 through.
        assert!(passed * 100 < others.len() * 6, "{passed} of {} boards not held passed", others.len());
    }

    #[test]
    fn a_filter_built_in_parts_is_the_filter_built_whole() {
        let held = positions_of_random_games(300, 5);
        let whole = ImageFilter::build(held.len(), held.iter().copied());
        for parts in [1, 2, 3, 7] {
            let built = ImageFilter::build_in_parts(held.len(), held.len(), parts, |ids| held[ids].iter().copied());
            assert!(built.0.words == whole.0.words, "{parts} parts");
        }
        let none = ImageFilter::build_in_parts(10, 0, 2, |ids| held[ids].iter().copied());
        assert!(none.0.words.iter().all(|&w| w == 0));
    }

    #[test]
    fn an_empty_filter_holds_nothing() {
        let filter = Filter::with_room_for(0);
        assert!(hashes(0, 1000).iter().all(|&h| !filter.may_hold(h)));
    }
}
