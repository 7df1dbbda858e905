//! A score in discs, and a position's leaf (its best move not linked and
//! that move's score): the values every stage holds, the Othello rules
//! (`negamax`) included, whatever book they were read from. The formats
//! read and write them ([`crate::record`] hands them out with the records),
//! each in its own bytes.

use crate::board::Move;
use std::fmt;

/// A score in discs, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(pub(crate) i32);

impl Score {
    /// A score of `discs` discs.
    pub fn new(discs: i32) -> Score {
        Score(discs)
    }

    /// The score in discs.
    pub fn discs(self) -> i32 {
        self.0
    }

    /// The score as the signed byte it was read from: an Edax link's, or a
    /// leaf's of either format (an Egaroucid leaf is read within ±64).
    ///
    /// # Panics
    /// On a score beyond a byte, which only a score computed, not read, can
    /// be: asking for one is a bug.
    pub fn stored_byte(self) -> i8 {
        i8::try_from(self.0).expect("a score read from a byte fits one")
    }

    /// The score as the `short` it was read from: an Edax record's value or
    /// bound.
    ///
    /// # Panics
    /// On a score beyond 16 bits, which only a score computed, not read, can
    /// be: asking for one is a bug.
    pub fn stored_short(self) -> i16 {
        i16::try_from(self.0).expect("a score read from 16 bits fits them")
    }
}

impl From<i8> for Score {
    /// A score read from a byte (a link's, a leaf's, an engine's answer).
    fn from(discs: i8) -> Score {
        Score(discs.into())
    }
}

impl From<i16> for Score {
    /// A score read from 16 bits (an Edax record's value or bound).
    fn from(discs: i16) -> Score {
        Score(discs.into())
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:+}", self.0)
    }
}

/// A position's leaf, as everything outside the formats holds it (an
/// `Option<Leaf>`: `None`, no leaf): the best move the book does not link
/// and its score, or, with no move, a finished game's score, which Edax
/// stores so (docs/formats.md, Edax books). How a format stores "no leaf"
/// is the format's alone: its reader and writer map its bytes to and from
/// `Option<Leaf>`, and back to the same bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// Its score, for the side to move.
    pub score: Score,
    /// Its move; `None`: no move to play (a finished game's score).
    pub mv: Option<Move>,
}

impl Leaf {
    /// A leaf scored `score`, with its move, if it has one.
    pub fn new(score: Score, mv: Option<Move>) -> Leaf {
        Leaf { score, mv }
    }
}

#[cfg(test)]
mod tests {
    use super::Score;

    #[test]
    fn a_score_read_from_a_byte_or_a_short_gives_it_back() {
        for byte in [i8::MIN, -127, -1, 0, 64, i8::MAX] {
            assert_eq!(Score::new(byte.into()).stored_byte(), byte);
        }
        for short in [i16::MIN, -129, 128, i16::MAX] {
            assert_eq!(Score::new(short.into()).stored_short(), short);
        }
    }

    #[test]
    #[should_panic(expected = "fits one")]
    fn a_score_beyond_a_byte_is_not_cut_to_one() {
        Score::new(128).stored_byte();
    }
}
