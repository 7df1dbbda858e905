//! What differs between two records of the same board, one from each book,
//! in what both files store: value, level, leaf, and when both books are
//! Edax's the bounds and the score of each link, matched by move. Both
//! books store the board normalized (docs/formats.md), so both records'
//! moves are in the same coordinates.

use crate::board::Move;
use crate::book::{Leaf, Link, Record};
use smallvec::SmallVec;

/// A number in the old record and in the new one.
pub type Pair<T> = [T; 2];

/// What differs; `None` (or no links) where the two agree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Difference {
    pub value: Option<Pair<i32>>,
    pub lower: Option<Pair<i32>>,
    pub upper: Option<Pair<i32>>,
    pub level: Option<Pair<i32>>,
    /// The leaves as stored, each with its move (an Edax record's leaf
    /// without a move, a finished game's, is not compared).
    pub leaf: Option<Pair<Option<Leaf>>>,
    /// Links whose score differs or that only one record has: the old
    /// record's links in its stored order, then the new record's others in
    /// theirs; each move (stored coordinates) with its score in each
    /// (`None`: not a link there).
    pub links: SmallVec<[(Move, Pair<Option<i32>>); 4]>,
}

impl Difference {
    /// Whether the records differ in anything compared.
    pub fn is_empty(&self) -> bool {
        *self == Difference::default()
    }
}

/// Compares two records of the same board in what both files store: the
/// value, level and leaf (as stored) always, the bounds and the links only
/// when both are Edax's. An Egaroucid book stores no bounds and no links:
/// its links' scores are its children's values, told on the children's own
/// lines.
pub fn compare(old: &Record, new: &Record) -> Difference {
    let differs = |a: i32, b: i32| (a != b).then_some([a, b]);
    let (lower, upper) = match (old.bounds(), new.bounds()) {
        (Some((l0, u0)), Some((l1, u1))) => (differs(l0.0, l1.0), differs(u0.0, u1.0)),
        _ => (None, None),
    };
    let links = match old.stores_links() && new.stores_links() {
        true => {
            compare_links(&old.links().collect::<SmallVec<[Link; 8]>>(), &new.links().collect::<SmallVec<[Link; 8]>>())
        }
        false => SmallVec::new(),
    };
    let leaf_of = |record: &Record| record.stored_leaf().map(Leaf::of);
    let (old_leaf, new_leaf) = (leaf_of(old), leaf_of(new));
    Difference {
        value: differs(old.value.0, new.value.0),
        lower,
        upper,
        level: differs(old.level, new.level),
        leaf: (old_leaf != new_leaf).then_some([old_leaf, new_leaf]),
        links,
    }
}

/// Links matched by move: those whose score differs, or that one side lacks.
fn compare_links(old: &[Link], new: &[Link]) -> SmallVec<[(Move, Pair<Option<i32>>); 4]> {
    let score_in = |links: &[Link], mv: Move| links.iter().find(|l| l.mv == mv).map(|l| l.score.0);
    let mut differing = SmallVec::new();
    for link in old {
        let other = score_in(new, link.mv);
        if other != Some(link.score.0) {
            differing.push((link.mv, [Some(link.score.0), other]));
        }
    }
    for link in new {
        if score_in(old, link.mv).is_none() {
            differing.push((link.mv, [None, Some(link.score.0)]));
        }
    }
    differing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Square};
    use crate::book::RecordId;
    use crate::book::Score;
    use crate::format::edax::{self, leaf_pair};

    fn play(name: &str) -> Move {
        Move::Play(Square::parse(name).unwrap())
    }

    fn code(name: &str) -> u8 {
        play(name).code()
    }

    fn leaf(score: i32, name: &str) -> Option<Leaf> {
        Some(Leaf::new(Score::new(score), Some(play(name))))
    }

    /// An Edax record (docs/formats.md) of the initial board, read as bookminer reads one.
    fn edax(value: i16, bounds: (i16, i16), level: u8, links: &[(i8, &str)], leaf: Option<Leaf>) -> Record {
        let mut bytes = Vec::new();
        bytes.extend(Board::INITIAL.player.to_le_bytes());
        bytes.extend(Board::INITIAL.opponent.to_le_bytes());
        bytes.extend([0; 16]);
        for n in [value, bounds.0, bounds.1] {
            bytes.extend(n.to_le_bytes());
        }
        bytes.extend([links.len() as u8, level]);
        for &(score, name) in links {
            bytes.extend([score as u8, code(name)]);
        }
        let (score, code) = leaf_pair(leaf);
        bytes.extend([score as u8, code]);
        edax::next_record(&bytes, 0).unwrap().to_record(RecordId(0), 0)
    }

    #[test]
    fn the_same_record_has_no_difference() {
        let r = edax(2, (-4, 6), 10, &[(2, "F5"), (-1, "D3")], leaf(0, "C4"));
        assert!(compare(&r, &r).is_empty());
    }

    #[test]
    fn links_are_matched_by_move_whatever_their_order() {
        let old = edax(2, (-4, 6), 10, &[(2, "F5"), (-1, "D3"), (0, "E6")], None);
        let new = edax(2, (-4, 6), 10, &[(1, "D3"), (2, "F5"), (3, "C4")], None);
        let d = compare(&old, &new);
        let expected: &[(Move, Pair<Option<i32>>)] =
            &[(play("D3"), [Some(-1), Some(1)]), (play("E6"), [Some(0), None]), (play("C4"), [None, Some(3)])];
        assert_eq!(d.links.as_slice(), expected);
        assert_eq!((d.value, d.lower, d.upper, d.level, d.leaf), (None, None, None, None, None));
    }

    #[test]
    fn value_bounds_level_and_leaf_are_each_told() {
        let old = edax(2, (-4, 6), 10, &[], leaf(0, "C4"));
        let new = edax(3, (-4, 7), 12, &[], leaf(1, "C4"));
        let d = compare(&old, &new);
        assert_eq!(d.value, Some([2, 3]));
        assert_eq!((d.lower, d.upper), (None, Some([6, 7])));
        assert_eq!(d.level, Some([10, 12]));
        assert_eq!(d.leaf, Some([leaf(0, "C4"), leaf(1, "C4")]));
        let gone = compare(&old, &edax(2, (-4, 6), 10, &[], None));
        assert_eq!(gone.leaf, Some([leaf(0, "C4"), None]));
    }
}
