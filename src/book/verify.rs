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
    let mut seen: HashTable<(Board, u64, u64)> = HashTable::new();
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
        match seen.find(hash, |e| e.0 == board) {
            Some(&(_, first_record, first_offset)) => {
                report.problems.push(at(Problem::Duplicate { first_record, first_offset }))
            }
            None => {
                seen.insert_unique(hash, (board, number, offset as u64), |e| hash_board(&e.0));
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
    if seen.find(hash_board(&initial), |e| e.0 == initial).is_none() {
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
