//! A score in discs, and a position's leaf (its best move not linked and
//! that move's score): the values every stage holds, the Othello rules
//! (`negamax`) included, whatever book they were read from. The formats
//! read and write them ([`crate::record`] hands them out with the records),
//! each in its own bytes.

use crate::board::Move;
use std::fmt;
use std::ops::Neg;

/// A score in discs, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(pub(crate) i32);

impl Score {
    /// A score of `discs` discs.
    pub const fn new(discs: i32) -> Score {
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

/// The arithmetic Edax's negamax does in C: a score computed in `int`
/// and stored in a `short` (a record's value and bounds) or a `signed
/// char` (a link's score). C's conversions wrap modulo 2¹⁶ and 2⁸ on every
/// machine Edax runs on, and a book Edax negamaxed holds what they left,
/// so that these keep the wrapping where Edax's code (or Egaroucid's, in
/// the same C types) has it, under names that say so, and nowhere else.
impl Score {
    /// The score as Edax stores an `int` in a record's `short` (value,
    /// bounds): wrapped modulo 2¹⁶ into −32768..=32767.
    pub fn wrapped_to_short(self) -> Score {
        Score(i32::from(self.0 as i16))
    }

    /// The score as Edax stores an `int` in a link's `signed char`
    /// (`-child.value` in `book negamax`), and Egaroucid's learning in a
    /// leaf's `char`: wrapped modulo 2⁸ into −128..=127, so that minus a
    /// value of 200 is 56.
    pub fn wrapped_to_byte(self) -> Score {
        Score(i32::from(self.0 as i8))
    }

    /// The score held within a byte, −128..=127: where a link is made
    /// (Edax's `position_link`, `book add`) and where Egaroucid negates a
    /// value a byte holds (−(−128) is 127).
    pub fn clamped_to_byte(self) -> Score {
        Score(self.0.clamp(i8::MIN.into(), i8::MAX.into()))
    }

    /// The score moved by `discs` as Edax's `int` arithmetic moves it
    /// (a leaf's bounds, widened by a header's search errors, which a
    /// hostile header may set anywhere in 32 bits): wrapping at 32 bits,
    /// never panicking.
    pub fn wrapping_add(self, discs: i32) -> Score {
        Score(self.0.wrapping_add(discs))
    }

    /// The score moved down by `discs`, wrapping as [`Score::wrapping_add`].
    pub fn wrapping_sub(self, discs: i32) -> Score {
        Score(self.0.wrapping_sub(discs))
    }
}

impl Neg for Score {
    type Output = Score;

    /// The score for the other side. Every score held, read or computed,
    /// lies within 16 bits, so the negation is exact.
    fn neg(self) -> Score {
        Score(-self.0)
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

    /// Every `int` a test feeds the wrapping and clamping operations: each
    /// boundary of a byte and a short, both sides, and a spread between.
    fn ints() -> impl Iterator<Item = i32> {
        let edges = [i32::MIN, i32::MAX, -65_537, -65_536, 65_535, 65_536, -32_769, 32_768, -129, 128];
        (-70_000..=70_000)
            .chain(edges)
            .chain((0..1000i64).map(|k| i32::try_from(i64::from(i32::MIN) + k * 4_294_967).expect("within 32 bits")))
    }

    /// C's conversion of an `int` to an integer of `bits` bits on a two's
    /// complement machine, the slow way: the value congruent modulo 2^bits
    /// in the type's range.
    fn c_conversion(x: i32, bits: u32) -> i32 {
        let m = 1i64 << bits;
        let r = (i64::from(x) % m + m) % m;
        i32::try_from(if r >= m / 2 { r - m } else { r }).expect("within 32 bits")
    }

    #[test]
    fn storing_in_a_short_or_a_byte_wraps_as_c_converts() {
        for x in ints() {
            assert_eq!(Score::new(x).wrapped_to_short().discs(), c_conversion(x, 16), "{x}");
            assert_eq!(Score::new(x).wrapped_to_byte().discs(), c_conversion(x, 8), "{x}");
        }
        assert_eq!((-Score::new(200)).wrapped_to_byte(), Score::new(56));
        assert_eq!(Score::new(32_768).wrapped_to_short(), Score::new(-32_768));
    }

    #[test]
    fn holding_within_a_byte_clamps() {
        for x in ints() {
            // The byte's nearest value, counted out: no clamp to compare with.
            let held = (-128..=127).min_by_key(|&b: &i32| (i64::from(b) - i64::from(x)).abs()).expect("256 bytes");
            assert_eq!(Score::new(x).clamped_to_byte().discs(), held, "{x}");
        }
        // Negated within a byte as Egaroucid does, a byte's −128 gives 127.
        for byte in i8::MIN..=i8::MAX {
            assert_eq!((-Score::from(byte)).clamped_to_byte(), Score::from(byte.saturating_neg()));
        }
    }

    #[test]
    fn moving_by_an_int_wraps_at_32_bits_and_negation_is_exact() {
        for x in ints() {
            for by in [0, 1, -1, 2, 40_000, i32::MAX, i32::MIN] {
                let slow = (i64::from(x) + i64::from(by) + (1i64 << 31)).rem_euclid(1i64 << 32) - (1i64 << 31);
                assert_eq!(i64::from(Score::new(x).wrapping_add(by).discs()), slow, "{x} + {by}");
                let slow = (i64::from(x) - i64::from(by) + (1i64 << 31)).rem_euclid(1i64 << 32) - (1i64 << 31);
                assert_eq!(i64::from(Score::new(x).wrapping_sub(by).discs()), slow, "{x} - {by}");
            }
            if x != i32::MIN {
                assert_eq!((-Score::new(x)).discs(), 0 - x);
            }
        }
    }

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
