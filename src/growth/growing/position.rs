//! One position's negamax in a growing book, from what it holds itself and
//! what its children's are, by Edax's rules or Egaroucid's
//! ([`crate::negamax`]) as the book read stores links. The first negamax
//! ([`super::first`]), the walks over the growing book and the update
//! carried up ([`super::solved`]) all compute a position here.

use super::store::Flavor;
use crate::board::Board;
use crate::book::Leaf;
use crate::level::Level;
use crate::negamax::{self, EdaxPosition, Negamaxed};
use crate::score::Score;
use smallvec::SmallVec;

/// What one position's negamax reads of it besides its children.
pub struct Position {
    /// Its empty squares, level and leaf (an Egaroucid leaf counts only
    /// with a move).
    pub edax: EdaxPosition,
}

impl Position {
    pub fn of(board: &Board, level: Level, leaf: Option<Leaf>) -> Position {
        let empties = u8::try_from(board.empties()).expect("64 squares at most");
        Position { edax: EdaxPosition { empties, level, leaf } }
    }
}

/// An Egaroucid position's value, which its record stores in a byte: a
/// leaf's score, a link's, the value read, or none (−127), never beyond a
/// byte (one would be a bug, and panics).
pub fn egaroucid_value(solved: &Negamaxed) -> Score {
    Score::from(solved.value.stored_byte())
}

/// A child of a position, as its negamax reads it: what was computed for
/// it (`None`: an Edax link to no position), and whether its link passes.
#[derive(Clone, Copy)]
pub struct Child {
    pub solved: Option<Negamaxed>,
    pub then_pass: bool,
}

/// An Edax position's link scores, in stored order (`None`: kept as stored).
pub type LinkScores = SmallVec<[Option<Score>; 8]>;

/// One position's negamax from its children's; `now` is the value it holds
/// now, which an Egaroucid position with neither a leaf nor links keeps
/// (an Egaroucid book keeps a value alone).
pub fn negamax_of<E>(
    flavor: Flavor,
    position: &Position,
    children: &[Child],
    now: impl FnOnce() -> Result<Score, E>,
) -> Result<Negamaxed, E> {
    Ok(match flavor {
        Flavor::Edax(errors) => negamax::edax_position(&position.edax, errors, children.iter().map(|c| c.solved)),
        Flavor::Egaroucid => {
            let scores = children
                .iter()
                .filter_map(|c| c.solved.map(|s| negamax::egaroucid_link_score(egaroucid_value(&s), c.then_pass)));
            let value = match negamax::egaroucid_value(position.leaf(), scores.collect::<SmallVec<[Score; 8]>>()) {
                Some(value) => value,
                None => now()?,
            };
            Negamaxed::value_only(value)
        }
    })
}

/// What an Edax position's links score, its children computed; none for
/// an Egaroucid book, which stores no links.
pub fn link_scores(flavor: Flavor, children: &[Child]) -> LinkScores {
    match flavor {
        Flavor::Edax(_) => children.iter().map(|c| c.solved.as_ref().map(negamax::edax_link_score)).collect(),
        Flavor::Egaroucid => LinkScores::new(),
    }
}

impl Position {
    /// The leaf's score where it counts for Egaroucid: when it has a move.
    fn leaf(&self) -> Option<Score> {
        self.edax.leaf.filter(|leaf| leaf.mv.is_some()).map(|leaf| leaf.score)
    }
}
