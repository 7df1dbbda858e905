//! One position's negamax in a growing book, from what it holds itself and
//! what its children's are, by Edax's rules or Egaroucid's
//! ([`crate::negamax`]) as the book read stores links. The first negamax
//! ([`super::first`]), the walks over the growing book and the update
//! carried up ([`super::solved`]) all compute a position here.

use super::store::{Flavor, Leaf};
use crate::board::Board;
use crate::negamax::{self, EdaxPosition, Negamaxed};
use smallvec::SmallVec;

/// What one position's negamax reads of it besides its children.
pub struct Position {
    pub edax: EdaxPosition,
    /// Whether its leaf has a move (an Egaroucid leaf counts only then).
    pub leaf_has_move: bool,
}

impl Position {
    pub fn of(board: &Board, level: u8, leaf: Leaf) -> Position {
        let empties = u8::try_from(board.empties()).expect("64 squares at most");
        let edax = EdaxPosition { empties, level, leaf_score: leaf.score };
        Position { edax, leaf_has_move: leaf.mv.is_some() }
    }
}

/// An Egaroucid position's value as the byte its record stores: a leaf's
/// score, a link's, the value read, or none (−127), never beyond a byte.
pub fn egaroucid_value(solved: &Negamaxed) -> i8 {
    i8::try_from(solved.value).expect("an Egaroucid position's value is a byte's")
}

/// A child of a position, as its negamax reads it: what was computed for
/// it (`None`: an Edax link to no position), and whether its link passes.
#[derive(Clone, Copy)]
pub struct Child {
    pub solved: Option<Negamaxed>,
    pub then_pass: bool,
}

/// An Edax position's link scores, in stored order (`None`: kept as stored).
pub type LinkScores = SmallVec<[Option<i8>; 8]>;

/// One position's negamax from its children's; `now` is the value it holds
/// now, which an Egaroucid position with neither a leaf nor links keeps
/// (an Egaroucid book keeps a value alone).
pub fn negamax_of<E>(
    flavor: Flavor,
    position: &Position,
    children: &[Child],
    now: impl FnOnce() -> Result<i16, E>,
) -> Result<Negamaxed, E> {
    Ok(match flavor {
        Flavor::Edax(errors) => negamax::edax_position(&position.edax, errors, children.iter().map(|c| c.solved)),
        Flavor::Egaroucid => {
            let scores = children
                .iter()
                .filter_map(|c| c.solved.map(|s| negamax::egaroucid_link_score(egaroucid_value(&s), c.then_pass)));
            let value = match negamax::egaroucid_value(position.leaf(), scores.collect::<SmallVec<[i8; 8]>>()) {
                Some(value) => value.into(),
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
    fn leaf(&self) -> Option<i8> {
        self.leaf_has_move.then_some(self.edax.leaf_score)
    }
}
