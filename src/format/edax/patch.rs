//! An Edax record rewritten in place, as `fix` rewrites it: new counts,
//! value and bounds, link scores and link order. The record keeps its size
//! and its moves; only these fields change.

use super::read::{COUNTS_AT, LINKS_AT, VALUE_AT};

/// Puts the wins, draws, losses and lines into a record's bytes.
pub fn put_counts(record: &mut [u8], counts: [u32; 4]) {
    for (i, n) in counts.into_iter().enumerate() {
        record[COUNTS_AT + 4 * i..COUNTS_AT + 4 * i + 4].copy_from_slice(&n.to_le_bytes());
    }
}

/// Puts the value, lower bound and upper bound into a record's bytes.
pub fn put_scores(record: &mut [u8], scores: [i16; 3]) {
    for (i, score) in scores.into_iter().enumerate() {
        record[VALUE_AT + 2 * i..VALUE_AT + 2 * i + 2].copy_from_slice(&score.to_le_bytes());
    }
}

/// Link `i`'s (score, move code) pair, if the record's bytes hold it.
pub fn link_pair(record: &[u8], i: usize) -> Option<(i8, u8)> {
    let at = LINKS_AT + 2 * i;
    record.get(at..at + 2).map(|pair| (pair[0] as i8, pair[1]))
}

/// Puts a new score into link `i` (which [`link_pair`] found).
pub fn put_link_score(record: &mut [u8], i: usize, score: i8) {
    record[LINKS_AT + 2 * i] = score as u8;
}

/// Puts `scores` (a byte each, as stored) into a record's first links, in
/// order, as far as its bytes hold links.
pub fn put_stored_link_scores(record: &mut [u8], scores: impl IntoIterator<Item = i8>) {
    for (i, score) in scores.into_iter().enumerate() {
        if link_pair(record, i).is_some() {
            put_link_score(record, i, score);
        }
    }
}

/// The bytes of a record's first `n_links` links, a (score, move code)
/// pair each, to be reordered in place; none if the bytes are too short.
pub fn links_mut(record: &mut [u8], n_links: usize) -> Option<&mut [u8]> {
    record.get_mut(LINKS_AT..LINKS_AT + 2 * n_links)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Move, Square};
    use crate::format::edax::{encode_record, next_record};
    use crate::record::{Link, Score};

    fn record(counts: [u32; 4], scores: [i16; 3], links: &[Link]) -> Vec<u8> {
        let mut bytes = Vec::new();
        encode_record(&mut bytes, &Board::INITIAL, counts, scores, 7, links, None);
        bytes
    }

    /// Each field put in place reads back through the reader, and nothing
    /// else of the record changes: the patched bytes are those the encoder
    /// writes for the new fields.
    #[test]
    fn each_field_put_in_place_is_what_the_encoder_writes_for_it() {
        let mv = |s: &str| Move::Play(Square::parse(s).unwrap());
        let links = [Link::new(Score(3), mv("D3")), Link::new(Score(-2), mv("C4"))];
        let mut bytes = record([1, 2, 3, 4], [5, -6, 7], &links);
        put_counts(&mut bytes, [40, 30, 20, 10]);
        put_scores(&mut bytes, [-12, -20, 64]);
        assert_eq!(link_pair(&bytes, 1), Some((-2, mv("C4").code())));
        assert_eq!(link_pair(&bytes, 2), Some((0, 65)), "the leaf's pair follows the links");
        put_link_score(&mut bytes, 1, 9);
        let swapped = [Link::new(Score(9), mv("C4")), Link::new(Score(3), mv("D3"))];
        let order = links_mut(&mut bytes, 2).unwrap();
        let (first, second) = order.split_at_mut(2);
        first.swap_with_slice(second);
        assert_eq!(bytes, record([40, 30, 20, 10], [-12, -20, 64], &swapped));
        let read = next_record(&bytes, 0).unwrap();
        assert_eq!(read.counts(), [40, 30, 20, 10]);
        assert_eq!(read.bounds(), (Score(-20), Score(64)));
        assert!(links_mut(&mut bytes, 200).is_none());
    }
}
