//! Which record a board of both books keeps (docs/merge.md, the rule): the
//! higher level; at equal levels, the record whose leaf is not a link of
//! the merged book; else A's. Two records holding the same value, level
//! and leaf are alike, no conflict.

/// One book's record of a board, as the rule sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    pub level: i32,
    /// The record's leaf move is a link of the merged book: it is stale.
    pub leaf_is_link: bool,
}

/// Which book's record is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    A,
    B,
}

/// Why it is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Only that book holds the board.
    Alone,
    /// Both records hold the same value, level and leaf: no conflict.
    Same,
    /// Its level is the higher.
    Level,
    /// At equal levels, its leaf is not a link of the merged book and the
    /// other's is.
    Leaf,
    /// Nothing told them apart: A's.
    First,
}

impl Why {
    /// The word the receipt writes.
    pub fn word(self) -> &'static str {
        match self {
            Why::Alone => "alone",
            Why::Same => "same",
            Why::Level => "level",
            Why::Leaf => "leaf",
            Why::First => "first",
        }
    }

    /// Whether the books disagreed on the board.
    pub fn is_conflict(self) -> bool {
        match self {
            Why::Level | Why::Leaf | Why::First => true,
            Why::Alone | Why::Same => false,
        }
    }
}

/// The record kept for a board of both books, `alike` when the two records
/// hold the same value, level and leaf (A's is kept: it holds what B's
/// does, and the bytes besides are A's).
pub fn choose(a: Side, b: Side, alike: bool) -> (Kept, Why) {
    if alike {
        return (Kept::A, Why::Same);
    }
    if a.level != b.level {
        let kept = if a.level > b.level { Kept::A } else { Kept::B };
        return (kept, Why::Level);
    }
    match (a.leaf_is_link, b.leaf_is_link) {
        (true, false) => (Kept::B, Why::Leaf),
        (false, true) => (Kept::A, Why::Leaf),
        (false, false) | (true, true) => (Kept::A, Why::First),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(level: i32, leaf_is_link: bool) -> Side {
        Side { level, leaf_is_link }
    }

    #[test]
    fn the_higher_level_wins_whatever_the_leaves() {
        assert_eq!(choose(side(10, true), side(9, false), false), (Kept::A, Why::Level));
        assert_eq!(choose(side(9, false), side(10, true), false), (Kept::B, Why::Level));
    }

    #[test]
    fn at_equal_levels_the_leaf_that_is_no_link_wins() {
        assert_eq!(choose(side(5, true), side(5, false), false), (Kept::B, Why::Leaf));
        assert_eq!(choose(side(5, false), side(5, true), false), (Kept::A, Why::Leaf));
    }

    #[test]
    fn otherwise_a_is_kept_and_alike_records_are_no_conflict() {
        assert_eq!(choose(side(5, false), side(5, false), false), (Kept::A, Why::First));
        assert_eq!(choose(side(5, true), side(5, true), false), (Kept::A, Why::First));
        let (kept, why) = choose(side(1, true), side(60, false), true);
        assert_eq!((kept, why.is_conflict()), (Kept::A, false));
    }
}
