//! Egaroucid's book accuracy grade (`Book_accuracy`, docs/egaroucid.md): how
//! surely a book position's value is known, from the levels of the leaves
//! that the lines within 1 disc of the best reach. A: every such line ends
//! in a complete (exact) search; B: some in a complete one and the others
//! in endgame searches; C: all in endgame searches; D: some in a complete
//! one, others not even an endgame search; E: some in an endgame search;
//! F: none. Where the grade is A, the lines within 2 discs graded the same
//! way give AA to AF. Any book bookminer reads is graded: an Edax book's
//! leaves are searched at their record's level.

use crate::board::{Board, Move};
use crate::book::{Book, Details, Record};
use crate::symmetry::normalize;
use std::collections::HashMap;

/// A grade: A to F (0 to 5), or AA to AF where A holds within 2 discs too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Grade {
    /// 0 (A) to 5 (F).
    pub letter: u8,
    /// Graded again within 2 discs (only where `letter` is A): 0 to 5.
    pub within_two: Option<u8>,
}

impl Grade {
    /// The grade as Egaroucid shows it: "AA".."AF", "A".."F".
    pub fn name(self) -> String {
        let letter = |n: u8| char::from(b'A' + n);
        match self.within_two {
            Some(n) => format!("A{}", letter(n)),
            None => letter(self.letter).to_string(),
        }
    }
}

/// Egaroucid's levels: the depth searched completely (exact) and the depth
/// of its endgame search (complete0), by level 0 to 60.
const DEPTHS: [(u8, u8); 61] = {
    let mut d = [(0u8, 0u8); 61];
    let mut level = 1;
    while level <= 10 {
        d[level] = (2 * level as u8, 2 * level as u8);
        level += 1;
    }
    // (level, complete, endgame), from Egaroucid's level table.
    let table: [(usize, u8, u8); 50] = [
        (11, 21, 25),
        (12, 21, 25),
        (13, 21, 27),
        (14, 21, 27),
        (15, 22, 27),
        (16, 22, 27),
        (17, 22, 27),
        (18, 22, 29),
        (19, 22, 29),
        (20, 24, 30),
        (21, 24, 30),
        (22, 24, 30),
        (23, 26, 32),
        (24, 26, 32),
        (25, 26, 34),
        (26, 26, 34),
        (27, 28, 36),
        (28, 28, 36),
        (29, 30, 36),
        (30, 30, 36),
        (31, 30, 38),
        (32, 30, 38),
        (33, 32, 38),
        (34, 32, 38),
        (35, 32, 40),
        (36, 32, 40),
        (37, 34, 40),
        (38, 34, 40),
        (39, 34, 42),
        (40, 34, 42),
        (41, 36, 42),
        (42, 36, 42),
        (43, 36, 44),
        (44, 36, 44),
        (45, 38, 44),
        (46, 38, 44),
        (47, 38, 46),
        (48, 38, 46),
        (49, 40, 46),
        (50, 40, 46),
        (51, 40, 48),
        (52, 42, 50),
        (53, 46, 54),
        (54, 48, 56),
        (55, 50, 58),
        (56, 52, 60),
        (57, 54, 60),
        (58, 56, 60),
        (59, 58, 60),
        (60, 60, 60),
    ];
    let mut i = 0;
    while i < table.len() {
        d[table[i].0] = (table[i].1, table[i].2);
        i += 1;
    }
    d
};

/// The depths of a stored level: (complete, endgame); none for a level
/// below 0 (Egaroucid's "undefined"), 60 for one above 60.
fn depths(level: i32) -> Option<(u32, u32)> {
    match level {
        ..0 => None,
        61.. => Some((60, 60)),
        _ => {
            let (complete, endgame) = DEPTHS[level as usize];
            Some((complete.into(), endgame.into()))
        }
    }
}

const A: u8 = 0;
const C: u8 = 2;
const F: u8 = 5;

/// The grades of a book's positions, each worked out once.
pub struct Grader<'b> {
    book: &'b Book,
    memo: [HashMap<Board, u8>; 2],
}

impl<'b> Grader<'b> {
    /// A grader of `book`'s positions.
    pub fn new(book: &'b Book) -> Grader<'b> {
        Grader { book, memo: [HashMap::new(), HashMap::new()] }
    }

    /// The grade of the position `board` (any orientation; a side that
    /// must pass is graded after its pass); `None` if the book does not hold it.
    pub fn grade(&mut self, board: &Board) -> Option<Grade> {
        let board = if board.must_pass() { board.swapped() } else { *board };
        self.record(&board)?;
        let letter = self.search(&board, false);
        let within_two = (letter == A).then(|| self.search(&board, true));
        Some(Grade { letter, within_two })
    }

    /// The record of `board` (a finished game: of whichever side the book holds).
    fn record(&self, board: &Board) -> Option<Record> {
        let found = self.book.find(&normalize(board).board);
        match found {
            None if board.is_game_over() => self.book.find(&normalize(&board.swapped()).board),
            found => found,
        }
    }

    /// `book_accuracy_search`: the lines within 1 disc of the best (2 when
    /// `wide`), graded by the leaves they reach.
    fn search(&mut self, board: &Board, wide: bool) -> u8 {
        let board = if board.must_pass() { board.swapped() } else { *board };
        let key = normalize(&board).board;
        if let Some(&grade) = self.memo[usize::from(wide)].get(&key) {
            return grade;
        }
        let Some(record) = self.record(&board) else { return F };
        let empties = board.empties();
        let grade = match record.n_links() {
            0 => match depths(record.level) {
                Some((complete, _)) if complete >= empties => A,
                Some((_, endgame)) if endgame >= empties => C,
                _ => F,
            },
            _ => self.graded_links(&record, wide),
        };
        self.memo[usize::from(wide)].insert(key, grade);
        grade
    }

    /// The grade of a position with links, from its links' children and its leaf.
    fn graded_links(&mut self, record: &Record, wide: bool) -> u8 {
        let loss = if wide { 2 } else { 1 };
        let stored = record.board();
        let best = record.links().map(|l| l.score.0).max().expect("a link");
        let mut found = 0u32;
        for link in record.links().filter(|l| l.score.0 >= best - loss).collect::<Vec<_>>() {
            let Some(child) = stored.after(link.mv) else { continue };
            found |= 1 << self.search(&child, wide);
        }
        let (leaf_value, leaf_level) = match record.details {
            Details::Egaroucid { stored_leaf, leaf_level, .. } => (stored_leaf.map(|l| l.score.0), leaf_level.into()),
            Details::Edax { .. } => (record.leaf().filter(|l| l.mv != Move::Pass).map(|l| l.score.0), record.level),
        };
        if leaf_value.is_some_and(|v| v >= best - loss) {
            let after = stored.empties().saturating_sub(1);
            match depths(leaf_level) {
                Some((complete, _)) if after <= complete => found |= 1 << A,
                Some((_, endgame)) if after <= endgame => found |= 1 << C,
                _ => {}
            }
        }
        combined(found)
    }
}

/// How many positions reached from `start` (over links, each position
/// once) have each grade, by name, in the order AA..AF, A..F; and those
/// with none (`None`: the start is not in the book).
pub fn count_grades(book: &Book, start: &Board) -> Option<Vec<(String, u64)>> {
    let mut grader = Grader::new(book);
    let first = if start.must_pass() { start.swapped() } else { *start };
    grader.record(&first)?;
    let mut counts: std::collections::BTreeMap<Grade, u64> = std::collections::BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![first];
    while let Some(board) = stack.pop() {
        let board = if board.must_pass() { board.swapped() } else { board };
        let Some(record) = grader.record(&board) else { continue };
        if !seen.insert(record.board()) {
            continue;
        }
        if let Some(grade) = grader.grade(&board) {
            *counts.entry(grade).or_default() += 1;
        }
        let stored = record.board();
        stack.extend(record.links().filter_map(|link| stored.after(link.mv)));
    }
    let order = |g: &Grade| (g.within_two.is_none(), g.letter, g.within_two);
    let mut counted: Vec<(Grade, u64)> = counts.into_iter().collect();
    counted.sort_by_key(|(g, _)| order(g));
    Some(counted.into_iter().map(|(g, n)| (g.name(), n)).collect())
}

/// The grade of a position from the set of grades found below it
/// (bit g: grade g found), as Egaroucid combines them.
fn combined(found: u32) -> u8 {
    let has = |grade: u8| found & (1 << grade) != 0;
    let below_c = found & !0b111 != 0;
    match () {
        _ if has(A) && found & !1 == 0 => A,
        _ if (has(A) || has(1)) && !below_c => 1,
        _ if has(C) && !has(A) && !has(1) && !below_c => C,
        _ if has(A) || has(1) || has(C) => 3,
        // Only D to F: the best of them.
        _ => (3..=F).find(|&g| has(g)).unwrap_or(F),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_combine_as_egaroucid_combines_them() {
        // Hand-derived from Book_accuracy's rules.
        assert_eq!(combined(1 << A), A, "only complete lines");
        assert_eq!(combined(1 << A | 1 << 1), 1, "complete and B: B");
        assert_eq!(combined(1 << A | 1 << C), 1, "complete and endgame: B");
        assert_eq!(combined(1 << C), C, "only endgame lines");
        assert_eq!(combined(1 << 1 | 1 << C), 1, "B and C: B");
        assert_eq!(combined(1 << A | 1 << 4), 3, "complete and E: D");
        assert_eq!(combined(1 << C | 1 << F), 3, "endgame and F: D");
        assert_eq!(combined(1 << 3 | 1 << F), 3, "D and F: D");
        assert_eq!(combined(1 << 4 | 1 << F), 4, "E and F: E");
        assert_eq!(combined(1 << F), F, "only F: F");
        assert_eq!(combined(0), F, "nothing found: F");
    }

    #[test]
    fn the_level_table_is_egaroucid_s() {
        assert_eq!(depths(0), Some((0, 0)));
        assert_eq!(depths(10), Some((20, 20)));
        assert_eq!(depths(21), Some((24, 30)));
        assert_eq!(depths(60), Some((60, 60)));
        assert_eq!(depths(-1), None);
    }

    #[test]
    fn names_are_egaroucid_s() {
        assert_eq!(Grade { letter: 0, within_two: Some(0) }.name(), "AA");
        assert_eq!(Grade { letter: 0, within_two: Some(5) }.name(), "AF");
        assert_eq!(Grade { letter: 3, within_two: None }.name(), "D");
    }
}
