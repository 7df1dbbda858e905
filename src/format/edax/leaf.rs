//! An Edax record's leaf pair, (score i8, move u8), mapped to and from the
//! [`Leaf`] everything outside the formats holds (docs/formats.md, Edax
//! books): the pair (−127, 65), Edax's "no leaf", is `None`; every other
//! pair is a leaf, its move `None` for code 65 (a finished game's score, or
//! whatever score a book stored beside it). So each pair a record can hold
//! maps to one `Option<Leaf>` and back to the same two bytes: a record
//! written from what was read is the record read. The sentinel lives here
//! alone.

use crate::board::Move;
use crate::record::{Leaf, Score};

/// Edax's "no leaf": every legal move is linked.
const NO_LEAF: (i8, u8) = (-127, Move::NONE_CODE);

/// The leaf a stored (score, move code) pair holds. A code above 65, which
/// no loaded book holds (the load refuses it), reads as no move.
pub fn leaf_of_pair((score, code): (i8, u8)) -> Option<Leaf> {
    if (score, code) == NO_LEAF {
        return None;
    }
    Some(Leaf::new(Score::from(score), Move::from_code(code)))
}

/// The (score, move code) pair that stores `leaf`: move 65 for a leaf
/// without a move, (−127, 65) for none.
///
/// # Panics
/// On a leaf scored beyond a byte: a leaf's score is read from a byte, an
/// engine's answer (within ±64) or a final score, so one would be a bug.
pub fn leaf_pair(leaf: Option<Leaf>) -> (i8, u8) {
    match leaf {
        None => NO_LEAF,
        Some(leaf) => (leaf.score.stored_byte(), leaf.mv.map_or(Move::NONE_CODE, Move::code)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;

    #[test]
    fn every_pair_a_record_can_hold_comes_back_as_it_was() {
        for score in i8::MIN..=i8::MAX {
            for code in 0..=Move::NONE_CODE {
                let leaf = leaf_of_pair((score, code));
                assert_eq!(leaf_pair(leaf), (score, code), "pair ({score}, {code}) read as {leaf:?}");
            }
        }
    }

    #[test]
    fn edax_s_own_leaves_read_as_their_meaning() {
        // Hand-derived from docs/formats.md: "no leaf" is (−127, 65) alone.
        assert_eq!(leaf_of_pair((-127, 65)), None);
        // A finished game: its final score with move 65, no move.
        assert_eq!(leaf_of_pair((-20, 65)), Some(Leaf::new(Score::new(-20), None)));
        // What no book Edax writes holds, kept as stored: −128 beside move
        // 65, and −127 beside a move (a leaf the negamax does not take).
        assert_eq!(leaf_of_pair((-128, 65)), Some(Leaf::new(Score::new(-128), None)));
        let d3 = Move::Play(Square::parse("D3").unwrap());
        assert_eq!(leaf_of_pair((-127, d3.code())), Some(Leaf::new(Score::new(-127), Some(d3))));
        assert_eq!(leaf_of_pair((5, Move::PASS_CODE)), Some(Leaf::new(Score::new(5), Some(Move::Pass))));
        assert_eq!(leaf_pair(Some(Leaf::new(Score::new(-127), None))), (-127, 65), "the same bytes as none");
    }
}
