//! `verify`: every check of SPEC §7 on every record, listing all problems
//! rather than stopping at the first.

use super::format::{self, FormatError, Problem, Record, Slot};
use super::index::hash_board;
use crate::board::{Board, Move};
use crate::symmetry::{is_normalized, normalize};
use hashbrown::HashTable;

/// What verify found.
#[derive(Debug, Default)]
pub struct VerifyReport {
    pub records: u64,
    pub problems: Vec<FormatError>,
}

impl VerifyReport {
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// The header problem showing the file is no Edax book at all (shorter
    /// than a header, another magic) rather than a damaged one: callers treat
    /// that as bad input, the way `mine` does, not as problems found in a book.
    pub fn not_a_book(&self) -> Option<&FormatError> {
        self.problems.iter().find(|e| matches!(e.problem, Problem::ShortHeader { .. } | Problem::BadMagic { .. }))
    }
}

/// Checks a whole book file held in `bytes`.
pub fn verify(bytes: &[u8]) -> VerifyReport {
    let mut report = VerifyReport::default();
    let header = match format::parse_header(bytes) {
        Ok(header) => Some(header),
        Err(e) if matches!(e.problem, Problem::BadVersion { .. }) => {
            // The layout may still be readable: go on and report the records too.
            report.problems.push(e);
            None
        }
        Err(e) => {
            report.problems.push(e);
            return report;
        }
    };
    // (offset, record number) of each board seen; boards are read from `bytes`.
    let mut seen: HashTable<(u64, u64)> = HashTable::new();
    let board_at = |offset: u64| format::next_record(bytes, offset as usize).map(|r| r.board()).unwrap_or_default();
    for item in format::records(bytes) {
        let (number, offset, record) = match item {
            Ok(found) => found,
            Err(e) => {
                report.problems.push(e);
                break;
            }
        };
        report.records += 1;
        let at = |problem| FormatError { record: Some(number), offset: offset as u64, problem };
        let mut problems = Vec::new();
        check_record(&record, &mut problems);
        report.problems.extend(problems.into_iter().map(at));
        let board = record.board();
        let hash = hash_board(&board);
        match seen.find(hash, |e| board_at(e.0) == board) {
            Some(&(first_offset, first_record)) => {
                report.problems.push(at(Problem::Duplicate { first_record, first_offset }))
            }
            None => {
                seen.insert_unique(hash, (offset as u64, number), |e| hash_board(&board_at(e.0)));
            }
        }
    }
    let end = |problem| FormatError { record: None, offset: 0, problem };
    if let Some(header) = header {
        if i64::from(header.n_nodes) != report.records as i64 {
            report.problems.push(FormatError {
                record: None,
                offset: 38,
                problem: Problem::CountMismatch { header: header.n_nodes, records: report.records },
            });
        }
    }
    let initial = normalize(&Board::INITIAL).board;
    if seen.find(hash_board(&initial), |e| board_at(e.0) == initial).is_none() {
        report.problems.push(end(Problem::MissingInitial));
    }
    report
}

/// Every problem of one record: the load checks, normalization, legality of
/// each stored move, and moves stored twice.
fn check_record(record: &Record<'_>, problems: &mut Vec<Problem>) {
    record.load_problems(problems);
    let board = record.board();
    if !problems.is_empty() {
        return; // the board or its codes are unusable; legality means nothing
    }
    if !is_normalized(&board) {
        problems.push(Problem::NotNormalized);
    }
    let slots = (0..record.n_links()).map(Slot::Link).chain(std::iter::once(Slot::Leaf));
    let mut moves_seen: Vec<Move> = Vec::with_capacity(record.n_links() + 1);
    for (slot, link) in slots.zip(record.links().map(Some).chain(std::iter::once(record.leaf()))) {
        let Some(link) = link else { continue };
        if board.check_move(link.mv).is_none() {
            problems.push(Problem::IllegalMove { slot, mv: link.mv });
        }
        if moves_seen.contains(&link.mv) {
            problems.push(Problem::RepeatedMove { slot, mv: link.mv });
        }
        moves_seen.push(link.mv);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::format::{Link, Score};
    use crate::book::writer::{encode, Entry};
    use crate::board::Square;

    fn play(square: &str) -> Move {
        Move::Play(Square::parse(square).unwrap())
    }

    fn problems(entries: &[Entry]) -> Vec<Problem> {
        verify(&encode(entries, 1)).problems.into_iter().map(|e| e.problem).collect()
    }

    fn root() -> Entry {
        let mut e = Entry::new(normalize(&Board::INITIAL).board, 0);
        e.links.push(Link { score: Score(0), mv: play("F5") });
        e
    }

    #[test]
    fn a_consistent_book_is_clean() {
        assert_eq!(problems(&[root()]), []);
    }

    #[test]
    fn every_problem_of_a_record_is_listed() {
        let mut e = root();
        e.links.push(Link { score: Score(0), mv: play("F5") });
        e.links.push(Link { score: Score(0), mv: play("A1") });
        e.leaf = Some(Link { score: Score(0), mv: Move::Pass });
        let found = problems(&[e]);
        assert!(found.contains(&Problem::RepeatedMove { slot: Slot::Link(1), mv: play("F5") }), "{found:?}");
        assert!(found.contains(&Problem::IllegalMove { slot: Slot::Link(2), mv: play("A1") }), "{found:?}");
        assert!(found.contains(&Problem::IllegalMove { slot: Slot::Leaf, mv: Move::Pass }), "{found:?}");
    }

    #[test]
    fn unnormalized_boards_duplicates_and_a_missing_root_are_found() {
        let after_f5 = Board::INITIAL.after(play("F5")).unwrap();
        let not_least = crate::symmetry::Symmetry::ALL
            .iter()
            .map(|s| s.board(&after_f5))
            .find(|b| !is_normalized(b))
            .unwrap();
        let found = problems(&[Entry::new(not_least, 0), Entry::new(not_least, 0)]);
        assert!(found.contains(&Problem::NotNormalized));
        assert!(found.iter().any(|p| matches!(p, Problem::Duplicate { first_record: 1, .. })));
        assert!(found.contains(&Problem::MissingInitial));
    }

    #[test]
    fn a_wrong_header_count_is_a_problem() {
        let mut bytes = encode(&[root()], 1);
        bytes[38] = 7;
        let report = verify(&bytes);
        assert_eq!(report.problems.len(), 1);
        assert_eq!(report.problems[0].problem, Problem::CountMismatch { header: 7, records: 1 });
    }
}
