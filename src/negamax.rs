//! Edax 4.6's `book negamax` (and Egaroucid's equivalent), one position at a
//! time (docs/fix.md): given a record's own fields and what was computed for
//! each of its children, what the record becomes. Nothing here knows about
//! books, files or walks, so any driver that visits children before their
//! parents can use it: `fix` over a walk's post-order, a book writer over
//! positions sorted by empty squares.
//!
//! Every score here is a [`Score`]: values, bounds, link scores and leaves
//! alike. Arithmetic follows Edax's C types: scores are computed in `int`
//! and stored in `short` (value and bounds) or `signed char` (link
//! scores), wrapping as C's conversions do on every machine Edax runs on
//! ([`Score::wrapped_to_short`], [`Score::wrapped_to_byte`]); counts are
//! summed wide and saturated to 32 bits.

use crate::level::Level;
use crate::score::{Leaf, Score};

/// Edax's "minus infinity": the value and bounds of a position before
/// anything is known. The negamax takes no leaf scored at or below it.
pub const SCORE_INF: Score = Score::new(127);

/// The selectivity of an exact search (Edax's `NO_SELECTIVITY`).
pub const NO_SELECTIVITY: u8 = 5;

/// One entry of Edax's level table (`LEVEL[level][empties]`, filled in by
/// `search_global_init` in Edax's `src/search.c`): how deep, and how
/// selectively, a search at that level looks at a position with that many
/// empty squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLevel {
    /// How many empty squares deep the search looks.
    pub depth: u8,
    /// Its selectivity, as Edax numbers it ([`NO_SELECTIVITY`]: exact).
    pub selectivity: u8,
}

impl SearchLevel {
    /// The search reaches the end of the game exactly.
    pub fn solves(self, empties: u8) -> bool {
        self.depth == empties && self.selectivity == NO_SELECTIVITY
    }

    /// The search reaches the end of the game, but selectively.
    pub fn pre_solves(self, empties: u8) -> bool {
        self.depth == empties && self.selectivity != NO_SELECTIVITY
    }
}

/// Levels 11 to 35 share their rows in groups: up to each bound of empty
/// squares the search solves with the selectivity beside it; past the last
/// bound it searches `level` plies deep, selectivity 0.
const ROWS: [(u8, &[(u8, u8)]); 9] = [
    (12, &[(21, 5), (24, 3)]),
    (18, &[(21, 5), (24, 3), (27, 1)]),
    (21, &[(24, 5), (27, 3), (30, 1)]),
    (24, &[(24, 5), (27, 4), (30, 2), (33, 0)]),
    (27, &[(27, 5), (30, 3), (33, 1)]),
    (29, &[(27, 5), (30, 4), (33, 2), (36, 0)]),
    (31, &[(30, 5), (33, 3), (36, 1)]),
    (33, &[(30, 5), (33, 4), (36, 2), (39, 0)]),
    (35, &[(30, 5), (33, 4), (36, 3), (39, 1)]),
];

/// Edax's level table at (`level`, `empties`), empties clamped to 0..=60
/// (a record's level byte may hold more than 60 too, which
/// [`Level::saturating`] reads as 60: Edax would read past its table).
pub fn search_level(level: Level, empties: u8) -> SearchLevel {
    let (level, empties) = (level.to_u8(), empties.min(60));
    let solve = |selectivity| SearchLevel { depth: empties, selectivity };
    let midgame = SearchLevel { depth: level, selectivity: 0 };
    match level {
        0 => SearchLevel { depth: 0, selectivity: NO_SELECTIVITY },
        1..=10 if empties <= 2 * level => solve(NO_SELECTIVITY),
        1..=10 => SearchLevel { depth: level, selectivity: NO_SELECTIVITY },
        11..=35 => {
            let (_, bounds) = ROWS.iter().find(|(last, _)| level <= *last).expect("a row for every level to 35");
            bounds.iter().find(|(bound, _)| empties <= *bound).map_or(midgame, |&(_, s)| solve(s))
        }
        // From 36 on, the bounds follow the level: solved up to level − 6
        // empty squares, then one step of selectivity less every 3.
        36..=59 => {
            let past = i32::from(empties) - i32::from(level);
            match past {
                ..=-6 => solve(5),
                -5..=-3 => solve(4),
                -2..=0 => solve(3),
                1..=3 => solve(2),
                4..=6 => solve(1),
                7..=9 => solve(0),
                _ => midgame,
            }
        }
        _ => solve(NO_SELECTIVITY),
    }
}

/// Win, draw and loss counts of the solved lines below a position, and how
/// many lines end below it (Edax's n_wins, n_draws, n_losses, n_lines).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    /// Solved lines won below the position.
    pub wins: u32,
    /// Solved lines drawn.
    pub draws: u32,
    /// Solved lines lost.
    pub losses: u32,
    /// Lines that end below it.
    pub lines: u32,
}

/// Counts summed wide, as Edax's `GameStats` does, and saturated at the end.
#[derive(Default)]
struct Tally([u64; 4]);

impl Tally {
    fn add(&mut self, wins: u32, draws: u32, losses: u32, lines: u32) {
        for (sum, n) in self.0.iter_mut().zip([wins, draws, losses, lines]) {
            *sum += u64::from(n);
        }
    }

    fn saturated(&self) -> Counts {
        let [wins, draws, losses, lines] = self.0.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        Counts { wins, draws, losses, lines }
    }
}

/// What Edax's negamax leaves in a record: its value, its bounds and its
/// counts. (Its link scores follow from its children's: [`edax_link_score`].)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Negamaxed {
    /// Its value (within 16 bits: Edax's `short`).
    pub value: Score,
    /// The lower bound of its value (within 16 bits).
    pub lower: Score,
    /// The upper bound of its value (within 16 bits).
    pub upper: Score,
    /// Its counts.
    pub counts: Counts,
}

impl Negamaxed {
    /// A value alone, as an Egaroucid book keeps one: no bounds apart from
    /// it, no counts. (Kept so, it packs in a word: [`crate::fix`]'s
    /// solutions.)
    pub fn value_only(value: Score) -> Negamaxed {
        Negamaxed { value, lower: value, upper: value, counts: Counts::default() }
    }
}

/// What Edax's negamax reads of a record itself, besides its children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdaxPosition {
    /// Empty squares of its board.
    pub empties: u8,
    /// The level of its searches (a stored level byte above 60 reads as
    /// 60, as Edax's level table does).
    pub level: Level,
    /// Its leaf, whose score counts when above minus infinity, whatever its
    /// move ([`taken_leaf_score`]).
    pub leaf: Option<Leaf>,
}

/// A leaf's score if Edax's negamax takes it: any score above minus
/// infinity (−127), with a move or without one (Edax stores a finished
/// game's score without a move).
pub fn taken_leaf_score(leaf: Option<Leaf>) -> Option<Score> {
    leaf.map(|leaf| leaf.score).filter(|&score| score > -SCORE_INF)
}

/// A leaf's score as Edax's functions read a record's (`position_extend`
/// compares it with the value), and as a value a leaf gives: minus
/// infinity (−127) for none.
///
/// # Panics
/// On a leaf scored beyond 16 bits: a leaf's score is read from a byte or
/// an engine's answer (within ±64), so one would be a bug.
pub fn leaf_score(leaf: Option<Leaf>) -> Score {
    leaf.map_or(-SCORE_INF, |leaf| leaf.score.stored_short().into())
}

/// The errors of the searches a book's leaves come from (an Edax book's
/// header records them): they widen the bounds of a position whose only
/// knowledge is its leaf's search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchErrors {
    /// The midgame error, as the header records it.
    pub midgame: i32,
    /// The endcut error, as the header records it.
    pub endcut: i32,
}

/// A link's score once its child is computed: minus the child's value, as
/// the `signed char` a link stores.
pub fn edax_link_score(child: &Negamaxed) -> Score {
    (-child.value).wrapped_to_byte()
}

/// A new link's score, as Edax's `position_link` and `book add` set it
/// when a link is made: minus its child's value, held within the byte a
/// link stores.
pub fn new_link_score(child_value: Score) -> Score {
    (-child_value).clamped_to_byte()
}

/// Edax's `position_negamax` for one record: `children` has one item per
/// link, in stored order: the child's computed record, or `None` for a
/// link whose child is not in the book (left as it is; it takes no part).
pub fn edax_position(
    position: &EdaxPosition,
    errors: SearchErrors,
    children: impl IntoIterator<Item = Option<Negamaxed>>,
) -> Negamaxed {
    let empties = position.empties.min(60);
    let level = search_level(position.level, empties);
    let mut out = Negamaxed { value: -SCORE_INF, lower: -SCORE_INF, upper: -SCORE_INF, counts: Counts::default() };
    let mut tally = Tally::default();
    if let Some(leaf) = taken_leaf_score(position.leaf) {
        out.value = leaf.wrapped_to_short();
        let (lower, upper) = if level.solves(empties) {
            let discs = leaf.discs();
            let (win, draw, loss) = (u32::from(discs > 0), u32::from(discs == 0), u32::from(discs < 0));
            tally.add(win, draw, loss, 0);
            (leaf, leaf)
        } else if level.pre_solves(empties) {
            (leaf.wrapping_sub(errors.endcut), leaf.wrapping_add(errors.endcut))
        } else {
            // A search of odd depth from an even number of empties (or the
            // reverse) ends on the other side's move: Edax shifts the bounds.
            let bias = i32::from(level.depth & 1) - i32::from(empties & 1);
            (leaf.wrapping_sub(errors.midgame).wrapping_sub(bias), leaf.wrapping_add(errors.midgame).wrapping_sub(bias))
        };
        (out.lower, out.upper) = (lower.wrapped_to_short(), upper.wrapped_to_short());
        tally.add(0, 0, 0, 1);
    }
    for child in children.into_iter().flatten() {
        // Values and bounds within 16 bits: their negations, in `int`, are
        // exact; a bound's is stored back in a `short`, which wraps −(−32768).
        let score = edax_link_score(&child);
        if score > out.value {
            out.value = score.wrapped_to_short();
        }
        if -child.upper > out.lower {
            out.lower = (-child.upper).wrapped_to_short();
        }
        if -child.lower > out.upper {
            out.upper = (-child.lower).wrapped_to_short();
        }
        let c = child.counts;
        tally.add(c.losses, c.draws, c.wins, c.lines);
    }
    out.counts = tally.saturated();
    out
}

/// Edax's `book sort` of one record's links: a selection sort putting them
/// in decreasing score order. For each place i, the first link with the
/// highest score among those from i on is swapped into it, which need not
/// keep equal scores in their order; the result is Edax's, byte for byte.
pub fn sort_links<T>(links: &mut [T], score: impl Fn(&T) -> Score) {
    for i in 0..links.len().saturating_sub(1) {
        let mut best = i;
        for j in i + 1..links.len() {
            if score(&links[j]) > score(&links[best]) {
                best = j;
            }
        }
        links.swap(i, best);
    }
}

/// A link's score in an Egaroucid book (docs/formats.md, Egaroucid books): minus its child's value,
/// or the child's value itself when a pass follows the move (the child's
/// side to move is then the record's).
///
/// The child's value is a byte's (an Egaroucid record stores one), and its
/// negation is held within a byte, as Egaroucid's `signed char` arithmetic
/// saturates it (−(−128) is 127).
pub fn egaroucid_link_score(child_value: Score, then_pass: bool) -> Score {
    if then_pass {
        child_value
    } else {
        (-child_value).clamped_to_byte()
    }
}

/// An Egaroucid record's value after the negamax (docs/fix.md): the highest of
/// its leaf's value and its link scores; `None` when it has neither, and
/// keeps the value it has.
pub fn egaroucid_value(leaf: Option<Score>, link_scores: impl IntoIterator<Item = Score>) -> Option<Score> {
    link_scores.into_iter().chain(leaf).max()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (level, empties, depth, selectivity), read off `search_global_init`
    /// in Edax 4.6's src/search.c: each rule's first and last cell and the
    /// cells on both sides of every bound.
    const EDAX_LEVELS: &[(u8, u8, u8, u8)] = &[
        (0, 0, 0, 5),
        (0, 30, 0, 5),
        (1, 2, 2, 5),
        (1, 3, 1, 5),
        (2, 4, 4, 5),
        (2, 5, 2, 5),
        (2, 50, 2, 5),
        (10, 20, 20, 5),
        (10, 21, 10, 5),
        (11, 21, 21, 5),
        (11, 22, 22, 3),
        (12, 24, 24, 3),
        (12, 25, 12, 0),
        (13, 21, 21, 5),
        (13, 24, 24, 3),
        (13, 25, 25, 1),
        (18, 27, 27, 1),
        (18, 28, 18, 0),
        (19, 24, 24, 5),
        (19, 25, 25, 3),
        (21, 28, 28, 1),
        (21, 30, 30, 1),
        (21, 31, 21, 0),
        (22, 24, 24, 5),
        (22, 25, 25, 4),
        (24, 28, 28, 2),
        (24, 33, 33, 0),
        (24, 34, 24, 0),
        (25, 27, 27, 5),
        (25, 28, 28, 3),
        (27, 31, 31, 1),
        (27, 34, 27, 0),
        (28, 27, 27, 5),
        (28, 30, 30, 4),
        (29, 33, 33, 2),
        (29, 36, 36, 0),
        (29, 37, 29, 0),
        (30, 30, 30, 5),
        (30, 31, 31, 3),
        (31, 36, 36, 1),
        (31, 37, 31, 0),
        (32, 33, 33, 4),
        (33, 34, 34, 2),
        (33, 39, 39, 0),
        (33, 40, 33, 0),
        (34, 36, 36, 3),
        (35, 37, 37, 1),
        (35, 40, 35, 0),
        (36, 30, 30, 5),
        (36, 31, 31, 4),
        (36, 33, 33, 4),
        (36, 34, 34, 3),
        (36, 36, 36, 3),
        (36, 37, 37, 2),
        (36, 40, 40, 1),
        (36, 45, 45, 0),
        (36, 46, 36, 0),
        (50, 44, 44, 5),
        (50, 59, 59, 0),
        (50, 60, 50, 0),
        (59, 53, 53, 5),
        (59, 60, 60, 2),
        (60, 0, 0, 5),
        (60, 60, 60, 5),
    ];

    #[test]
    fn the_level_table_is_edax_s() {
        for &(level, empties, depth, selectivity) in EDAX_LEVELS {
            let at = Level::new(level).expect("a level");
            assert_eq!(search_level(at, empties), SearchLevel { depth, selectivity }, "LEVEL[{level}][{empties}]");
        }
        // Levels past the table read its last row; every cell's depth is the
        // empties (solving) or the level (a midgame search shallower than them).
        assert_eq!(search_level(Level::saturating(200), 45), search_level(Level::MAX, 45));
        for level in 0..=60 {
            for empties in 0..=60 {
                let s = search_level(Level::new(level).expect("a level"), empties);
                assert!(s.depth == empties || (s.depth == level && level < empties) || level == 0, "{level} {empties}");
                assert!(s.selectivity <= 5);
            }
        }
    }

    /// A position with a leaf scored `score` (no move: the negamax reads
    /// none of it but its score).
    fn leaf(empties: u8, level: u8, score: i32) -> EdaxPosition {
        let leaf = Some(Leaf::new(Score::new(score), None));
        EdaxPosition { empties, level: Level::new(level).expect("a level"), leaf }
    }

    const ERRORS: SearchErrors = SearchErrors { midgame: 2, endcut: 1 };

    /// A score of `discs` discs.
    fn s(discs: i32) -> Score {
        Score::new(discs)
    }

    /// A computed record's value and bounds.
    fn negamaxed(value: i32, lower: i32, upper: i32, counts: Counts) -> Negamaxed {
        Negamaxed { value: s(value), lower: s(lower), upper: s(upper), counts }
    }

    fn counts(wins: u32, draws: u32, losses: u32, lines: u32) -> Counts {
        Counts { wins, draws, losses, lines }
    }

    #[test]
    fn a_leaf_alone_sets_the_value_and_bounds_by_how_the_level_searches() {
        // Level 2, 4 empties: solved, the game's result counted.
        let solved = edax_position(&leaf(4, 2, 6), ERRORS, []);
        assert_eq!(solved, negamaxed(6, 6, 6, counts(1, 0, 0, 1)));
        assert_eq!(edax_position(&leaf(4, 2, 0), ERRORS, []).counts, counts(0, 1, 0, 1));
        assert_eq!(edax_position(&leaf(4, 2, -3), ERRORS, []).counts, counts(0, 0, 1, 1));
        // Level 12, 23 empties: depth 23, selectivity 3: the endcut error.
        let pre = edax_position(&leaf(23, 12, 6), ERRORS, []);
        assert_eq!(pre, negamaxed(6, 5, 7, counts(0, 0, 0, 1)));
        // Level 2 at 41 empties: depth 2, bias 0 − 1; at 40, no bias.
        let odd = edax_position(&leaf(41, 2, 6), ERRORS, []);
        assert_eq!((odd.lower, odd.upper), (s(6 - 2 + 1), s(6 + 2 + 1)));
        let even = edax_position(&leaf(40, 2, 6), ERRORS, []);
        assert_eq!((even.lower, even.upper), (s(4), s(8)));
        // Level 13 (depth 13) at 40 empties: bias 1 − 0.
        let biased = edax_position(&leaf(40, 13, 6), ERRORS, []);
        assert_eq!((biased.lower, biased.upper), (s(3), s(7)));
    }

    #[test]
    fn no_leaf_and_no_child_leaves_minus_infinity() {
        let no_leaf = EdaxPosition { leaf: None, ..leaf(30, 10, 0) };
        for position in [no_leaf, leaf(30, 10, -127), leaf(30, 10, -128)] {
            let none = edax_position(&position, ERRORS, [None, None]);
            assert_eq!(none, negamaxed(-127, -127, -127, Counts::default()));
        }
        // A leaf's move takes no part: scored −127 on a move, it is not taken.
        let on_a_move = Some(Leaf::new(Score::new(-127), Some(crate::board::Move::Pass)));
        assert_eq!(taken_leaf_score(on_a_move), None);
        assert_eq!(taken_leaf_score(Some(Leaf::new(Score::new(-126), None))), Some(Score::new(-126)));
        // −126 is a score like any other.
        assert_eq!(edax_position(&leaf(30, 10, -126), ERRORS, []).value, s(-126));
    }

    #[test]
    fn children_raise_the_value_and_bounds_and_add_their_counts_turned_round() {
        let a = negamaxed(-5, -7, -3, counts(1, 2, 3, 10));
        let b = negamaxed(2, 1, 9, counts(4, 0, 0, 5));
        assert_eq!(edax_link_score(&a), s(5));
        let out = edax_position(&leaf(40, 2, 1), ERRORS, [Some(a), None, Some(b)]);
        // Leaf: 1, bounds 1 ∓ 2; a: score 5, lower −(−3), upper −(−7); b: score −2.
        assert_eq!((out.value, out.lower, out.upper), (s(5), s(3), s(7)));
        assert_eq!(out.counts, counts(3, 2, 1 + 4, 1 + 10 + 5));
        // Without a leaf the bounds start at −127 too.
        let out = edax_position(&leaf(40, 2, -127), ERRORS, [Some(b)]);
        assert_eq!((out.value, out.lower, out.upper), (s(-2), s(-9), s(-1)));
    }

    #[test]
    fn counts_saturate_and_scores_wrap_as_c_converts_them() {
        let big = negamaxed(0, 0, 0, counts(u32::MAX, 0, 7, u32::MAX));
        let out = edax_position(&leaf(40, 2, -127), ERRORS, [Some(big), Some(big)]);
        assert_eq!(out.counts, counts(14, 0, u32::MAX, u32::MAX));
        // A header error far past a short: computed in int, stored in short.
        let huge = SearchErrors { midgame: 40_000, endcut: 0 };
        let out = edax_position(&leaf(40, 2, 10), huge, []);
        assert_eq!((out.lower, out.upper), (s(10 - 40_000 + 65_536), s(10 + 40_000 - 65_536)));
        // −(−32768) as a bound is 32768 in int, −32768 in short.
        let low = negamaxed(0, -32_768, -32_768, Counts::default());
        let out = edax_position(&leaf(40, 2, -127), ERRORS, [Some(low)]);
        assert_eq!((out.lower, out.upper), (s(-32_768), s(-32_768)));
        // A header error at the end of 32 bits: int arithmetic wraps there.
        let edge = SearchErrors { midgame: i32::MAX, endcut: 0 };
        let out = edax_position(&leaf(40, 2, 10), edge, []);
        assert_eq!((out.lower, out.upper), (s(11), s(9)));
    }

    #[test]
    fn links_are_sorted_as_edax_sorts_them() {
        let mut links = [(1, 'a'), (3, 'b'), (1, 'c'), (3, 'd'), (2, 'e')];
        sort_links(&mut links, |l| s(l.0));
        // i=0: the first 3 is b, swapped with a: b a c d e; i=1: d, swapped
        // with a: b d c a e; i=2: e, swapped with c: b d e a c; i=3: a and c
        // tie, nothing moves.
        assert_eq!(links.map(|l| l.1), ['b', 'd', 'e', 'a', 'c']);
        // Equal scores need not keep their order: the swap moves a behind c.
        let mut tied = [(1, 'a'), (1, 'c'), (3, 'b')];
        sort_links(&mut tied, |l| s(l.0));
        assert_eq!(tied.map(|l| l.1), ['b', 'c', 'a']);
        let mut one = [(5, 'x')];
        sort_links(&mut one, |l| s(l.0));
        sort_links(&mut [] as &mut [(i32, char)], |l| s(l.0));
    }

    #[test]
    fn an_egaroucid_value_is_the_best_of_its_leaf_and_links() {
        assert_eq!(egaroucid_link_score(s(5), false), s(-5));
        assert_eq!(egaroucid_link_score(s(5), true), s(5));
        assert_eq!(egaroucid_link_score(s(-128), false), s(127));
        assert_eq!(egaroucid_value(Some(s(3)), [s(1), s(-2)]), Some(s(3)));
        assert_eq!(egaroucid_value(Some(s(3)), [s(4)]), Some(s(4)));
        assert_eq!(egaroucid_value(None, [s(-4), s(-6)]), Some(s(-4)));
        assert_eq!(egaroucid_value(None, []), None);
    }

    /// A new link holds minus its child's value, clamped into a byte; the
    /// negamax's link score keeps instead the byte C's conversion leaves.
    #[test]
    fn a_new_link_scores_minus_its_child_held_within_a_byte() {
        for (value, link) in [(5, -5), (-64, 64), (127, -127), (128, -128), (200, -128), (-200, 127)] {
            assert_eq!(new_link_score(s(value)), s(link), "{value}");
        }
        assert_eq!(edax_link_score(&Negamaxed::value_only(s(200))), s(56));
    }
}
