//! `verify`: every check of docs/formats.md, what is checked (and its Egaroucid sections) on
//! every record, listing all problems rather than stopping at the first.

use super::{Book, BookError, BookFile, CHUNK_RECORDS};
use crate::board::{hash_board, Board};
use crate::format::edax::{self, board_problems, RawRecord};
use crate::format::egaroucid;
use crate::format::egaroucid::older::{self as older, OlderRecord};
use crate::format::{Family, Format};
use crate::record::problem::{FormatError, MoveSlot, Problem};
use crate::record::{FilePlace, RecordId};
use crate::symmetry::{is_normalized, normalize};
use crate::wording::count;
use hashbrown::HashTable;
use std::fmt;
use std::path::Path;

/// What verify found.
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Records in the file.
    pub records: u64,
    /// Every problem found, in file order.
    pub problems: Vec<FormatError>,
    /// The records of one position in an older Egaroucid book, which
    /// reading merges (docs/formats.md, older Egaroucid books): listed, but no problem.
    pub merged: Vec<MergedPair>,
}

/// Two records of one position in an older Egaroucid book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergedPair {
    /// The record whose fields the book held when the later one came.
    pub earlier: FilePlace,
    /// The record of the same position that came later.
    pub later: FilePlace,
    /// Their levels, earlier then later; an `.egbk` stores none (every
    /// record gets the same level, so the later always replaces).
    pub levels: Option<(i8, i8)>,
}

impl MergedPair {
    /// Whether the later record's fields replace the earlier's: when its
    /// level is at least the earlier's (Egaroucid's merge).
    pub fn later_replaces(&self) -> bool {
        self.levels.is_none_or(|(earlier, later)| later >= earlier)
    }
}

/// [`VerifyReport::listing`].
pub struct Listing<'a> {
    report: &'a VerifyReport,
    path: &'a Path,
}

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let problems = self.report.problems.iter().map(|p| p as &dyn fmt::Display);
        let merged = self.report.merged.iter().map(|m| m as &dyn fmt::Display);
        for (i, line) in problems.chain(merged).enumerate() {
            let end = if i == 0 { "" } else { "\n" };
            write!(f, "{end}{}: {line}", self.path.display())?;
        }
        Ok(())
    }
}

/// [`VerifyReport::verdict`].
pub struct VerdictLine<'a> {
    report: &'a VerifyReport,
    path: &'a Path,
}

impl fmt::Display for VerdictLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let VerifyReport { records, problems, merged } = self.report;
        let positions = count(*records, "position", "positions");
        if !problems.is_empty() {
            let problems = count(problems.len(), "problem", "problems");
            return write!(f, "{}: {problems} in {positions}", self.path.display());
        }
        write!(f, "{}: {positions}, no problems", self.path.display())?;
        match merged.len() {
            0 => Ok(()),
            n => write!(f, " ({})", count(n, "pair of records merged", "pairs of records merged")),
        }
    }
}

impl fmt::Display for MergedPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: same position as {}, merged: ", self.later, self.earlier)?;
        match self.levels {
            Some((earlier, later)) if later >= earlier => {
                write!(f, "its level {later} is at least that record's {earlier}, so it replaces it")
            }
            Some((earlier, later)) => {
                write!(f, "its level {later} is below that record's {earlier}, so it is left out")
            }
            None => f.write_str("it replaces that record (an .egbk gives every record the same level)"),
        }
    }
}

impl VerifyReport {
    /// Whether no problem was found.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// Every problem, then every merged pair, a line each, named by the
    /// file (`path`) they were found in; nothing after the last line.
    pub fn listing<'a>(&'a self, path: &'a Path) -> Listing<'a> {
        Listing { report: self, path }
    }

    /// One line: the file, its positions, and its problems or none.
    pub fn verdict<'a>(&'a self, path: &'a Path) -> VerdictLine<'a> {
        VerdictLine { report: self, path }
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
        Format::Egbk3 => verify_egaroucid(bytes),
        Format::Egbk2 => verify_egbk2(bytes),
        Format::Egbk => verify_egbk(bytes),
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

/// The checks made once every record is read: the header's count and
/// whether the initial position is in the book.
fn check_whole(report: &mut VerifyReport, claimed: Option<(i64, u64)>, has_initial: bool) {
    if let Some((header, count_at)) = claimed {
        if header != report.records as i64 {
            report.problems.push(FormatError {
                record: None,
                offset: count_at,
                problem: Problem::CountMismatch { header, records: report.records },
            });
        }
    }
    if !has_initial {
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

/// The records an iterator yields, up to the first that cannot be read (a
/// record cut off by the end of the file): that one is kept in `cut_off`,
/// to be listed after the problems of the records before it.
fn until_unreadable<'c, R: 'c>(
    records: impl Iterator<Item = Result<R, FormatError>> + 'c,
    cut_off: &'c mut Option<FormatError>,
) -> impl Iterator<Item = R> + 'c {
    records.map_while(move |item| item.map_err(|e| *cut_off = Some(e)).ok())
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
    let mut cut_off = None;
    for (id, offset, record) in until_unreadable(records, &mut cut_off) {
        report.records += 1;
        check(&record, &mut problems);
        if let Some(board) = in_book(&record) {
            seen.check(board, id.number(), offset, &mut problems);
        }
        report.at_record(id.number(), offset, &mut problems);
    }
    report.problems.extend(cut_off);
    check_whole(&mut report, claimed, seen.holds(&normalize(&Board::INITIAL).board));
    report
}

fn verify_edax(bytes: &[u8]) -> VerifyReport {
    let mut report = VerifyReport::default();
    let header = edax::parse_header(bytes).map(|h| (i64::from(h.n_nodes), edax::N_NODES_AT as u64));
    let Some(claimed) = read_header(&mut report, header) else { return report };
    verify_records(report, claimed, edax::records(bytes), check_edax_record, |r| Some(r.board()))
}

/// Every problem of one Edax record: the load checks, then
/// [`check_edax_moves`].
fn check_edax_record(record: &RawRecord<'_>, problems: &mut Vec<Problem>) {
    record.load_problems(problems);
    if !problems.is_empty() {
        return; // the board or its codes are unusable; legality means nothing
    }
    check_edax_moves(record, problems);
}

/// The problems of an Edax record that loading does not refuse: a board
/// not normalized, a stored move that is not legal on it, a move stored
/// twice. The record's board and codes must be usable (no load problem).
fn check_edax_moves(record: &RawRecord<'_>, problems: &mut Vec<Problem>) {
    let board = record.board();
    if !is_normalized(&board) {
        problems.push(Problem::NotNormalized);
    }
    // Read from the raw slots (their codes were found moves above), and
    // legality from the board's moves found once: this runs on every
    // record of a book before every growth run.
    let legal = board.legal_moves();
    let slots = (0..record.n_links()).map(MoveSlot::Link).chain([MoveSlot::Leaf]);
    let mut moves_seen = 0u128;
    for (slot, link) in slots.filter_map(|slot| Some((slot, record.link_at(slot)?))) {
        if !board.allows(link.mv, legal) {
            problems.push(Problem::IllegalMove { slot, mv: link.mv });
        }
        let bit = 1u128 << link.mv.code();
        if moves_seen & bit != 0 {
            problems.push(Problem::RepeatedMove { slot, mv: link.mv });
        }
        moves_seen |= bit;
    }
}

fn verify_egaroucid(bytes: &[u8]) -> VerifyReport {
    let mut report = VerifyReport::default();
    let header = egaroucid::parse_header(bytes).map(|h| (i64::from(h.n_boards), egaroucid::N_BOARDS_AT as u64));
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

fn verify_egbk2(bytes: &[u8]) -> VerifyReport {
    let mut report = VerifyReport::default();
    match older::egbk2_header(bytes) {
        Ok(header) => {
            let report = verify_older(report, older::egbk2_records(bytes, &header));
            match older::misversioned_egbk3(bytes) {
                Some(version) if !report.is_clean() => {
                    VerifyReport { problems: vec![version], ..VerifyReport::default() }
                }
                _ => report,
            }
        }
        Err(e) => {
            report.problems.push(e);
            report
        }
    }
}

fn verify_egbk(bytes: &[u8]) -> VerifyReport {
    let mut report = VerifyReport::default();
    match older::egbk_header(bytes) {
        Ok(_) => verify_older(report, older::egbk_records(bytes)),
        Err(e) => {
            report.problems.push(e);
            report
        }
    }
}

/// Checks every record of an older Egaroucid book (stopping at a cut-off
/// one) and lists the pairs of records that reading merges. A board stored
/// in any symmetric image is no problem there, nor is a position stored
/// twice; the header's count is checked by the records themselves.
fn verify_older<'a>(mut report: VerifyReport, records: impl Iterator<Item = older::Item<'a>>) -> VerifyReport {
    let mut holders = Holders::default();
    let mut problems = Vec::new();
    let mut cut_off = None;
    for (id, offset, record) in until_unreadable(records, &mut cut_off) {
        report.records += 1;
        let place = FilePlace::of(id, offset as u64);
        if let Some(pair) = check_older_record(&record, &mut problems).then(|| holders.add(&record, place)) {
            report.merged.extend(pair);
        }
        report.at_record(id.number(), offset, &mut problems);
    }
    report.problems.extend(cut_off);
    let has_initial = holders.holds(&normalize(&Board::INITIAL).board);
    check_whole(&mut report, None, has_initial);
    report
}

/// Every problem of one older record: its board, its value, and (for an
/// `.egbk2`) its stored pairs. True if the record would be read into the book.
fn check_older_record(record: &OlderRecord<'_>, problems: &mut Vec<Problem>) -> bool {
    board_problems(&record.stored, problems);
    if !problems.is_empty() {
        return false; // legality means nothing on such a board
    }
    record.pair_problems(problems);
    match record.value.checked() {
        Ok(_) => true,
        Err(problem) => {
            problems.push(problem);
            false
        }
    }
}

/// Which record holds each position of an older book so far, and its level.
#[derive(Default)]
struct Holders {
    table: HashTable<(Board, FilePlace, Option<i8>)>,
}

impl Holders {
    /// Notes a record; if its position is held already, the pair the two
    /// make, and the later takes the position over when its level allows.
    fn add(&mut self, record: &OlderRecord<'_>, place: FilePlace) -> Option<MergedPair> {
        let board = normalize(&record.stored).board;
        let hash = hash_board(&board);
        let Some((_, held, level)) = self.table.find_mut(hash, |e| e.0 == board) else {
            self.table.insert_unique(hash, (board, place, record.level), |e| hash_board(&e.0));
            return None;
        };
        let levels = level.zip(record.level);
        let pair = MergedPair { earlier: *held, later: place, levels };
        if pair.later_replaces() {
            (*held, *level) = (place, record.level);
        }
        Some(pair)
    }

    fn holds(&self, board: &Board) -> bool {
        self.table.find(hash_board(board), |e| e.0 == *board).is_some()
    }
}

/// The first problem `verify` lists in a record of `book` that loading
/// does not refuse (a board not normalized, a stored move that is not
/// legal on its board or is stored twice), in file order, as the book's
/// error naming its file and the record. Every command that searches asks
/// it before its first search: all of IN's records go into OUT, those the
/// start reaches or not, so a record found here would make an OUT that
/// `verify` refuses (issue 64). The records are checked on every core, a
/// run of records each.
pub fn first_damage(book: &Book) -> Result<(), BookError> {
    let began = std::time::Instant::now();
    let file = book.file();
    let records = file.counts().records as usize;
    let threads = crate::parallel::threads().max(1);
    let runs = crate::parallel::on_runs(records, threads, CHUNK_RECORDS, |ids| first_damage_in(file, ids));
    // The runs come in file order: the first problem of the first run that has one.
    let found = runs.into_iter().flatten().next();
    if file.changed() {
        return Err(BookError::Changed { path: file.path().to_path_buf() });
    }
    tracing::debug!(
        "{}: every record checked for damage in {:.3} s",
        file.path().display(),
        began.elapsed().as_secs_f64()
    );
    match found {
        Some(error) => Err(BookError::Format { path: file.path().to_path_buf(), error }),
        None => Ok(()),
    }
}

/// The first problem of [`first_damage`] among the records with ids in `ids`.
fn first_damage_in(file: &BookFile, ids: std::ops::Range<usize>) -> Option<FormatError> {
    let mut problems = Vec::new();
    let first_problem = |id: RecordId, offset: u64, problems: &mut Vec<Problem>| {
        let problem = problems.drain(..).next()?;
        let place = file.place(id, offset);
        Some(FormatError { record: Some(place.number), offset: place.offset, problem })
    };
    match file.format().family() {
        // Loading found every record's codes and board usable (the file
        // changed since is told apart afterwards), so only what loading
        // does not check is checked here.
        Family::Edax => file.edax_records_in(ids).find_map(|(id, offset, record)| {
            check_edax_moves(&record, &mut problems);
            first_problem(id, offset, &mut problems)
        }),
        Family::Egaroucid => {
            file.records_in(ids).map_while(|at| Some((at, file.egaroucid_record(at)?))).find_map(|(at, record)| {
                check_egaroucid_record(&record, &mut problems);
                first_problem(at.id, file.offset(at), &mut problems)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Move, Square};
    use crate::book::FilePlace as Place;
    use crate::format::edax::entries::{encode, Entry};
    use crate::record::{Link, Score};

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

    /// The book `whole` with the first link of every 997th linked record,
    /// from the `first`th linked record on, moved onto its board's first
    /// occupied square.
    fn with_links_moved(whole: &[u8], first: usize) -> Vec<u8> {
        let linked: Vec<(usize, Board)> = edax::records(whole)
            .map(|item| item.expect("a whole record"))
            .filter(|(_, _, raw)| raw.n_links() > 0)
            .map(|(_, at, raw)| (at, raw.board()))
            .collect();
        assert!(linked.len() > first, "{} linked records", linked.len());
        let mut bytes = whole.to_vec();
        for &(at, board) in linked[first..].iter().step_by(997) {
            bytes[at + edax::read::LINKS_AT + 1] = (board.player | board.opponent).trailing_zeros() as u8;
        }
        bytes
    }

    #[test]
    fn the_damage_check_names_the_first_problem_verify_lists_wherever_it_lies() {
        // `verify` reads record after record on one thread: the slow
        // reference for the check, which reads runs of records on every core.
        let whole = crate::synth::book_bytes(&crate::synth::SynthOptions { positions: 20_000, seed: 3, perturb: 0.0 });
        let clean = Book::from_bytes("clean.dat", whole.clone()).expect("a synthesized book loads");
        // Each thread checks a run of whole chunks: more than four chunks
        // give every thread of a machine with up to four cores a run.
        assert!(clean.file().counts().records as usize > 4 * CHUNK_RECORDS, "more than four chunks");
        assert!(first_damage(&clean).is_ok());
        for first in [0, 1, 2_500, 6_000, 9_000] {
            let bytes = with_links_moved(&whole, first);
            let listed = verify(&bytes).problems;
            assert!(listed.len() > 1, "damage from {first}: {listed:?}");
            let book = Book::from_bytes("damaged.dat", bytes).expect("loading does not check legality");
            match first_damage(&book) {
                Err(BookError::Format { error, .. }) => assert_eq!(error, listed[0], "damage from {first}"),
                other => panic!("damage from {first}: {other:?}"),
            }
        }
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
    /// A record to write: board, value, level and its stored pairs.
    type Egbk2Record<'a> = (Board, i8, i8, &'a [(i8, u8)]);

    /// An `.egbk2` of these records.
    fn egbk2(records: &[Egbk2Record<'_>]) -> Vec<u8> {
        let mut bytes = Vec::new();
        older::encode_egbk2_header(&mut bytes, records.len());
        for (board, value, level, pairs) in records {
            older::encode_egbk2_record(&mut bytes, board, *value, *level, pairs);
        }
        bytes
    }

    fn place(number: u64, offset: u64) -> Place {
        Place { number, offset }
    }

    #[test]
    fn an_older_book_lists_its_merged_pairs_which_are_no_problems() {
        let after_f5 = Board::INITIAL.after(play("F5")).unwrap();
        let image = crate::symmetry::Symmetry::ALL.iter().map(|s| s.board(&after_f5)).find(|b| !is_normalized(b));
        let image = image.unwrap();
        let bytes =
            egbk2(&[(Board::INITIAL, 0, 2, &[]), (after_f5, 0, 2, &[]), (image, 1, 3, &[]), (after_f5, 2, 1, &[])]);
        let report = verify(&bytes);
        assert!(report.is_clean(), "{:?}", report.problems);
        assert_eq!(report.records, 4);
        let (second, third, fourth) = (place(2, 33), place(3, 52), place(4, 71));
        let replaced = MergedPair { earlier: second, later: third, levels: Some((2, 3)) };
        let left_out = MergedPair { earlier: third, later: fourth, levels: Some((3, 1)) };
        assert_eq!(report.merged, [replaced.clone(), left_out.clone()]);
        assert!(replaced.later_replaces() && !left_out.later_replaces());
        assert!(left_out.to_string().starts_with("record 4 at byte 71: same position as record 3 at byte 52"));
        // An .egbk stores no level: the later always replaces.
        let mut egbk = Vec::new();
        older::encode_egbk_header(&mut egbk, 3);
        for (board, value) in [(Board::INITIAL, 0), (image, 1), (after_f5, -1)] {
            older::encode_egbk_record(&mut egbk, &board, value);
        }
        let report = verify(&egbk);
        assert!(report.is_clean(), "{:?}", report.problems);
        let pair = MergedPair { earlier: place(2, 21), later: place(3, 38), levels: None };
        assert!(pair.later_replaces());
        assert_eq!(report.merged, [pair]);
    }

    #[test]
    fn an_older_book_s_problems_are_listed_with_the_file_s_record_and_byte() {
        let overlap = Board::new(Board::INITIAL.player | 1, Board::INITIAL.opponent | 1);
        let pairs: &[(i8, u8)] = &[(0, play("A1").code())];
        let bytes = egbk2(&[(Board::INITIAL, 0, 1, pairs), (overlap, 0, 1, &[]), (Board::INITIAL, 70, 1, &[])]);
        let found: Vec<(Option<u64>, u64, Problem)> =
            verify(&bytes).problems.into_iter().map(|e| (e.record, e.offset, e.problem)).collect();
        let illegal = Problem::BadPair { pair: 0, code: 0, fault: crate::record::problem::PairFault::Illegal };
        assert_eq!(found[0], (Some(1), 14, illegal));
        assert!(matches!(found[1], (Some(2), 35, Problem::Overlap { .. })), "{found:?}");
        assert_eq!(found[2], (Some(3), 54, Problem::UnreadableValue { value: 70, raw: None }));
        assert_eq!(found.len(), 3, "{found:?}");
        // Without the initial position, and cut short.
        let bytes = egbk2(&[(Board::INITIAL.after(play("F5")).unwrap(), 0, 1, &[])]);
        let report = verify(&bytes[..bytes.len() - 1]);
        let found: Vec<Problem> = report.problems.into_iter().map(|e| e.problem).collect();
        assert_eq!(found, [Problem::Truncated { needed: 19, left: 18 }, Problem::MissingInitial]);
    }
}
