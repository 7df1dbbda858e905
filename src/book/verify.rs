//! `verify`: every check of SPEC §7 (and §8 for Egaroucid books) on every
//! record, listing all problems rather than stopping at the first.

use super::edax::{self, RawRecord};
use super::egaroucid;
use super::index::hash_board;
use super::loaded::Format;
use super::problem::{FormatError, MoveSlot, Problem};
use super::record::RecordId;
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

    /// The header problem showing the file is no book at all (shorter than
    /// a header, another magic) rather than a damaged one: callers treat
    /// that as bad input, the way `mine` does, not as problems found in a book.
    pub fn not_a_book(&self) -> Option<&FormatError> {
        self.problems.iter().find(|e| matches!(e.problem, Problem::ShortHeader { .. } | Problem::BadMagic { .. }))
    }

    fn at_record(&mut self, number: u64, offset: usize, problems: &mut Vec<Problem>) {
        let at = |problem| FormatError { record: Some(number), offset: offset as u64, problem };
        self.problems.extend(problems.drain(..).map(at));
    }
}

/// Checks a whole book file held in `bytes`, in whichever format it is.
pub fn verify(bytes: &[u8]) -> VerifyReport {
    match Format::of(bytes) {
        Format::Edax => verify_edax(bytes),
        Format::Egaroucid => verify_egaroucid(bytes),
    }
}

/// Boards seen so far, each with the record that holds it, to find
/// positions stored twice.
struct Seen {
    table: HashTable<(Board, u64, u64)>,
}

impl Seen {
    fn new() -> Seen {
        Seen { table: HashTable::new() }
    }

    /// The (record number, offset) that already holds `board`, or records it.
    fn first_holder(&mut self, board: Board, number: u64, offset: usize) -> Option<(u64, u64)> {
        let hash = hash_board(&board);
        if let Some(&(_, n, o)) = self.table.find(hash, |e| e.0 == board) {
            return Some((n, o));
        }
        self.table.insert_unique(hash, (board, number, offset as u64), |e| hash_board(&e.0));
        None
    }

    fn holds(&self, board: &Board) -> bool {
        self.table.find(hash_board(board), |e| e.0 == *board).is_some()
    }

    /// The problem a repeated board is.
    fn check(&mut self, board: Board, number: u64, offset: usize, problems: &mut Vec<Problem>) {
        if let Some((first_record, first_offset)) = self.first_holder(board, number, offset) {
            problems.push(Problem::Duplicate { first_record, first_offset });
        }
    }
}

/// The checks made once every record is read: the header's count and the
/// initial position.
fn check_whole(report: &mut VerifyReport, claimed: Option<(i64, u64)>, seen: &Seen) {
    if let Some((header, count_at)) = claimed {
        if header != report.records as i64 {
            report.problems.push(FormatError {
                record: None,
                offset: count_at,
                problem: Problem::CountMismatch { header, records: report.records },
            });
        }
    }
    if !seen.holds(&normalize(&Board::INITIAL).board) {
        report.problems.push(FormatError { record: None, offset: 0, problem: Problem::MissingInitial });
    }
}

/// The header count (and where it is) when the header reads; with another
/// version the layout may still be readable, so the records are checked
/// too. `None` when there is nothing more to read.
fn read_header(report: &mut VerifyReport, header: Result<(i64, u64), FormatError>) -> Option<Option<(i64, u64)>> {
    match header {
        Ok(claimed) => Some(Some(claimed)),
        Err(e) => {
            let readable = matches!(e.problem, Problem::BadVersion { .. });
            report.problems.push(e);
            readable.then_some(None)
        }
    }
}

/// Checks every record the iterator yields (stopping at a cut-off one):
/// `check` lists a record's own problems, and the boards `in_book` gives are
/// checked for positions stored twice.
fn verify_records<'a, R>(
    mut report: VerifyReport,
    claimed: Option<(i64, u64)>,
    records: impl Iterator<Item = Result<(RecordId, usize, R), FormatError>> + 'a,
    check: impl Fn(&R, &mut Vec<Problem>),
    in_book: impl Fn(&R) -> Option<Board>,
) -> VerifyReport {
    let mut seen = Seen::new();
    let mut problems = Vec::new();
    for item in records {
        let (id, offset, record) = match item {
            Ok(found) => found,
            Err(e) => {
                report.problems.push(e);
                break;
            }
        };
        report.records += 1;
        check(&record, &mut problems);
        if let Some(board) = in_book(&record) {
            seen.check(board, id.number(), offset, &mut problems);
        }
        report.at_record(id.number(), offset, &mut problems);
    }
    check_whole(&mut report, claimed, &seen);
    report
}

fn verify_edax(bytes: &[u8]) -> VerifyReport {
    let mut report = VerifyReport::default();
    let header = edax::parse_header(bytes).map(|h| (i64::from(h.n_nodes), 38));
    let Some(claimed) = read_header(&mut report, header) else { return report };
    verify_records(report, claimed, edax::records(bytes), check_edax_record, |r| Some(r.board()))
}

/// Every problem of one Edax record: the load checks, normalization,
/// legality of each stored move, and moves stored twice.
fn check_edax_record(record: &RawRecord<'_>, problems: &mut Vec<Problem>) {
    record.load_problems(problems);
    if !problems.is_empty() {
        return; // the board or its codes are unusable; legality means nothing
    }
    let board = record.board();
    if !is_normalized(&board) {
        problems.push(Problem::NotNormalized);
    }
    let view = record.to_record(Default::default(), 0);
    let slots = (0..view.n_links()).map(MoveSlot::Link).chain(view.leaf().map(|_| MoveSlot::Leaf));
    let mut moves_seen: Vec<Move> = Vec::with_capacity(view.n_links() + 1);
    for (slot, link) in slots.zip(view.moves()) {
        if board.check_move(link.mv).is_none() {
            problems.push(Problem::IllegalMove { slot, mv: link.mv });
        }
        if moves_seen.contains(&link.mv) {
            problems.push(Problem::RepeatedMove { slot, mv: link.mv });
        }
        moves_seen.push(link.mv);
    }
}

fn verify_egaroucid(bytes: &[u8]) -> VerifyReport {
    let mut report = VerifyReport::default();
    let header = egaroucid::parse_header(bytes).map(|h| (i64::from(h.n_boards), 10));
    let Some(claimed) = read_header(&mut report, header) else { return report };
    // A record without a value is not part of the book: it cannot repeat one that is.
    let in_book = |r: &egaroucid::RawRecord<'_>| r.is_in_book().then(|| r.board());
    verify_records(report, claimed, egaroucid::records(bytes), check_egaroucid_record, in_book)
}

/// Every problem of one Egaroucid record: the load checks, a value that
/// takes it out of the book, normalization, and the leaf's legality.
fn check_egaroucid_record(record: &egaroucid::RawRecord<'_>, problems: &mut Vec<Problem>) {
    record.load_problems(problems);
    if !problems.is_empty() {
        return;
    }
    if !record.is_in_book() {
        problems.push(Problem::ValueOutOfRange { value: record.raw_value() });
        return;
    }
    let board = record.board();
    if !is_normalized(&board) {
        problems.push(Problem::NotNormalized);
    }
    if let Some(leaf) = record.leaf() {
        if board.check_move(leaf.mv).is_none() {
            problems.push(Problem::IllegalMove { slot: MoveSlot::Leaf, mv: leaf.mv });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;
    use crate::book::edax_writer::{encode, Entry};
    use crate::book::record::{Link, Score};

    fn play(square: &str) -> Move {
        Move::Play(Square::parse(square).unwrap())
    }

    fn problems(entries: &[Entry]) -> Vec<Problem> {
        verify(&encode(entries, 1)).problems.into_iter().map(|e| e.problem).collect()
    }

    fn root() -> Entry {
        let mut e = Entry::new(normalize(&Board::INITIAL).board, 0);
        e.links.push(Link::new(Score(0), play("F5")));
        e
    }

    #[test]
    fn a_consistent_book_is_clean() {
        assert_eq!(problems(&[root()]), []);
    }

    #[test]
    fn every_problem_of_a_record_is_listed() {
        let mut e = root();
        e.links.push(Link::new(Score(0), play("F5")));
        e.links.push(Link::new(Score(0), play("A1")));
        e.leaf = Some(Link::new(Score(0), Move::Pass));
        let found = problems(&[e]);
        assert!(found.contains(&Problem::RepeatedMove { slot: MoveSlot::Link(1), mv: play("F5") }), "{found:?}");
        assert!(found.contains(&Problem::IllegalMove { slot: MoveSlot::Link(2), mv: play("A1") }), "{found:?}");
        assert!(found.contains(&Problem::IllegalMove { slot: MoveSlot::Leaf, mv: Move::Pass }), "{found:?}");
    }

    #[test]
    fn unnormalized_boards_duplicates_and_a_missing_root_are_found() {
        let after_f5 = Board::INITIAL.after(play("F5")).unwrap();
        let not_least =
            crate::symmetry::Symmetry::ALL.iter().map(|s| s.board(&after_f5)).find(|b| !is_normalized(b)).unwrap();
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
