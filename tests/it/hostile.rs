//! Hostile input: damaged books, unwritable outputs, interruptions, broken
//! position and config files. None may crash, hang or lose a previous output;
//! every failure names the file and, for a book record, its number and offset.

use bookminer::board::{Board, Move};
use bookminer::book::Book;
use bookminer::mine::{mine, MineError, MineOptions};
use bookminer::output::{LineStyle, RecordFormats};
use bookminer::rules::modes::{Mode, Rules};
use bookminer::run::{Cancel, Control, Phase};
use bookminer::symmetry::{is_normalized, normalize, Symmetry};
use bookminer::synth::{book_bytes, SynthOptions};
use bookminer::walk::Start;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::common;
use common::{bin, sample};

/// Runs the binary in `dir`, logging to a file inside it.
fn run(dir: &Path, args: &[&str]) -> Output {
    let log = dir.join("test.log");
    bin().current_dir(dir).arg("--log-file").arg(&log).args(args).output().expect("the binary runs")
}

/// Runs `mine` with no config file, so only the given flags count.
fn run_mine(dir: &Path, book: &Path, args: &[&str]) -> Output {
    let book = book.display().to_string();
    let mut all = vec!["--config", "/dev/null", "--book", &book];
    all.extend_from_slice(args);
    run(dir, &all)
}

/// Standard output and standard error together.
fn said(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_no_panic(out: &Output) {
    let text = said(out);
    assert!(!text.contains("panicked") && out.status.code() != Some(101), "a panic: {text}");
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else { return found };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// No temporary output was left anywhere under `dir`.
fn assert_no_temp_files(dir: &Path) {
    let temps: Vec<_> = files_under(dir).into_iter().filter(|p| p.to_string_lossy().ends_with(".tmp")).collect();
    assert!(temps.is_empty(), "temporary files left: {temps:?}");
}

fn assert_no_mode_files(out_dir: &Path) {
    let written: Vec<_> = files_under(out_dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("mode")))
        .collect();
    assert!(written.is_empty(), "outputs written: {written:?}");
}

// ---------------------------------------------------------------------------
// The book layout, read here independently of the library (SPEC §1), so the
// facts a message must state come from the file itself.

const HEADER_LEN: usize = 42;

/// One record: 1-based number, byte offset, and its bytes.
struct Rec<'a> {
    number: u64,
    offset: usize,
    bytes: &'a [u8],
}

impl Rec<'_> {
    fn board(&self) -> Board {
        let u64_at = |at: usize| u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap());
        Board::new(u64_at(0), u64_at(8))
    }

    /// Move codes: the links, then the leaf.
    fn codes(&self) -> Vec<u8> {
        let n = self.bytes[38] as usize;
        let mut codes: Vec<u8> = (0..n).map(|i| self.bytes[41 + 2 * i]).collect();
        codes.push(self.bytes[self.bytes.len() - 1]);
        codes
    }

    /// "record N at byte M", as messages give it.
    fn place(&self) -> String {
        format!("record {} at byte {}", self.number, self.offset)
    }
}

/// The whole records of a book, and (number, offset) of a cut-off last one.
fn scan(file: &[u8]) -> (Vec<Rec<'_>>, Option<(u64, usize)>) {
    let mut records = Vec::new();
    let mut offset = HEADER_LEN;
    while offset < file.len() {
        let number = records.len() as u64 + 1;
        let left = file.len() - offset;
        if left < 42 || left < 42 + 2 * file[offset + 38] as usize {
            return (records, Some((number, offset)));
        }
        let len = 42 + 2 * file[offset + 38] as usize;
        records.push(Rec { number, offset, bytes: &file[offset..offset + len] });
        offset += len;
    }
    (records, None)
}

fn header_count(file: &[u8]) -> i32 {
    i32::from_le_bytes(file[38..42].try_into().unwrap())
}

/// The damaged books, each made here from `books/sample.dat` by one edit,
/// so the tests need no file from elsewhere. Names as in the conformance
/// suite's `books/bad`.
const DAMAGED: [&str; 14] = [
    "empty.dat",
    "truncated-header.dat",
    "bad-magic.dat",
    "bad-version.dat",
    "truncated-record.dat",
    "bad-move-code.dat",
    "overlapping-discs.dat",
    "duplicate-position.dat",
    "illegal-link.dat",
    "not-normalized.dat",
    "missing-root.dat",
    "huge-nnodes.dat",
    "negative-nnodes.dat",
    "huge-and-truncated.dat",
];

/// The damaged books `mine` reads all the same: a wrong count (a warning)
/// and a board not normalized (not noticed). It must refuse the others
/// (status 2, nothing written).
const MINED_ANYWAY: [&str; 3] = ["not-normalized.dat", "huge-nnodes.dat", "negative-nnodes.dat"];

fn must_fail_mine() -> impl Iterator<Item = &'static str> {
    DAMAGED.into_iter().filter(|name| !MINED_ANYWAY.contains(name))
}

/// `name`'s bytes: the sample book with that one piece of damage.
fn damage(name: &str) -> Vec<u8> {
    let mut file = fs::read(sample()).unwrap();
    let (records, cut) = scan(&file);
    assert!(cut.is_none() && records.len() > 100, "the sample book is whole");
    let root = normalize(&Board::INITIAL).board;
    let root_at = records.iter().position(|r| r.board() == root).expect("the sample has the initial position");
    // A record far from the start, with links, for the damage inside a record.
    let inner = records.iter().skip(records.len() / 2).find(|r| r.bytes[38] > 0).expect("a record with links");
    let (offset, len) = (inner.offset, inner.bytes.len());
    let (root_offset, root_len) = (records[root_at].offset, records[root_at].bytes.len());
    let board = inner.board();
    let count = header_count(&file);
    let set_u64 = |file: &mut Vec<u8>, at: usize, value: u64| file[at..at + 8].copy_from_slice(&value.to_le_bytes());
    let set_count = |file: &mut Vec<u8>, value: i32| file[38..42].copy_from_slice(&value.to_le_bytes());
    match name {
        "empty.dat" => file.clear(),
        "truncated-header.dat" => file.truncate(20),
        "bad-magic.dat" => file[..8].copy_from_slice(b"NOTABOOK"),
        "bad-version.dat" => file[8] = 3,
        "truncated-record.dat" => file.truncate(file.len() - 5),
        // The first link's move code of one record.
        "bad-move-code.dat" => file[offset + 41] = 70,
        // The player also gets the opponent's lowest disc.
        "overlapping-discs.dat" => {
            set_u64(&mut file, offset, board.player | (board.opponent & board.opponent.wrapping_neg()))
        }
        // A copy of one record at the end, counted in the header.
        "duplicate-position.dat" => {
            let copy = file[offset..offset + len].to_vec();
            file.extend_from_slice(&copy);
            set_count(&mut file, count + 1);
        }
        // The initial position's first link played on a square of its own,
        // so the walk meets it first.
        "illegal-link.dat" => {
            let own = records[root_at].board().player.trailing_zeros() as u8;
            file[root_offset + 41] = own;
        }
        // One record stored as another of its images, moves turned with it.
        "not-normalized.dat" => {
            let s = Symmetry::ALL.into_iter().find(|s| s.board(&board) != board).expect("an asymmetric board");
            let image = s.board(&board);
            set_u64(&mut file, offset, image.player);
            set_u64(&mut file, offset + 8, image.opponent);
            let n_links = file[offset + 38] as usize;
            for at in (0..n_links).map(|i| offset + 41 + 2 * i).chain([offset + len - 1]) {
                if let Some(mv) = Move::from_code(file[at]) {
                    file[at] = s.apply_move(mv).code();
                }
            }
        }
        "missing-root.dat" => {
            file.drain(root_offset..root_offset + root_len);
            set_count(&mut file, count - 1);
        }
        "huge-nnodes.dat" => set_count(&mut file, i32::MAX),
        "negative-nnodes.dat" => set_count(&mut file, -1),
        // A count no memory could hold, and the file cut short: the count
        // must not size anything.
        "huge-and-truncated.dat" => {
            set_count(&mut file, i32::MAX);
            file.truncate(file.len() - 5);
        }
        _ => panic!("no damage called {name}"),
    }
    file
}

/// Every damaged book, written to a fresh folder.
struct Damaged(tempfile::TempDir);

impl Damaged {
    fn new() -> Damaged {
        let dir = tempfile::tempdir().unwrap();
        for name in DAMAGED {
            fs::write(dir.path().join(name), damage(name)).unwrap();
        }
        Damaged(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        assert!(DAMAGED.contains(&name), "no damaged book {name}");
        self.0.path().join(name)
    }
}

fn the_one<'a, 'b>(found: Vec<&'b Rec<'a>>, what: &str) -> &'b Rec<'a> {
    assert_eq!(found.len(), 1, "the fixture should have exactly one record with {what}");
    found[0]
}

/// What `verify` must say about one bad book: its exit status, and words
/// derived from the file's bytes.
fn expected_verify(name: &str, file: &[u8]) -> (i32, Vec<String>) {
    let (records, cut) = scan(file);
    let initial = normalize(&Board::INITIAL).board;
    match name {
        "empty.dat" | "truncated-header.dat" => {
            (2, vec![format!("file is {} bytes", file.len()), "shorter than the 42-byte header".into()])
        }
        "bad-magic.dat" => {
            (2, vec!["not an Edax or Egaroucid book".into(), String::from_utf8_lossy(&file[..8]).into_owned()])
        }
        "bad-version.dat" => (1, vec!["byte 8".into(), format!("book version {} is not supported", file[8])]),
        "truncated-record.dat" | "huge-and-truncated.dat" => {
            let (number, offset) = cut.expect("the fixture is cut inside a record");
            (1, vec![format!("record {number} at byte {offset}: truncated record")])
        }
        "bad-move-code.dat" => {
            let rec =
                the_one(records.iter().filter(|r| r.codes().iter().any(|&c| c > 65)).collect(), "a code above 65");
            let code = rec.codes().into_iter().find(|&c| c > 65).unwrap();
            (1, vec![rec.place(), format!("move code {code}")])
        }
        "overlapping-discs.dat" => {
            let rec =
                the_one(records.iter().filter(|r| r.board().player & r.board().opponent != 0).collect(), "overlap");
            (1, vec![format!("{}: both sides have a disc", rec.place())])
        }
        "duplicate-position.dat" => {
            let later = the_one(
                records
                    .iter()
                    .filter(|r| records[..r.number as usize - 1].iter().any(|e| e.board() == r.board()))
                    .collect(),
                "a board seen before",
            );
            let first = records.iter().find(|e| e.board() == later.board()).unwrap();
            (1, vec![format!("{}: same position as {}", later.place(), first.place())])
        }
        "illegal-link.dat" => {
            // (slot as messages name it, move) of the first illegal move of a record
            let illegal = |r: &Rec| -> Option<(String, Move)> {
                let codes = r.codes();
                let n_links = codes.len() - 1;
                codes.iter().enumerate().find_map(|(i, &code)| {
                    let mv = Move::from_code(code)?;
                    let slot = if i < n_links { format!("link {}", i + 1) } else { "leaf".into() };
                    r.board().check_move(mv).is_none().then_some((slot, mv))
                })
            };
            let rec = the_one(records.iter().filter(|r| illegal(r).is_some()).collect(), "an illegal move");
            let (slot, mv) = illegal(rec).unwrap();
            (1, vec![format!("{}: {slot} move {mv} is illegal", rec.place())])
        }
        "not-normalized.dat" => {
            let rec = the_one(records.iter().filter(|r| !is_normalized(&r.board())).collect(), "an unnormalized board");
            (1, vec![format!("{}: board is not in normalized", rec.place())])
        }
        "missing-root.dat" => {
            assert!(records.iter().all(|r| r.board() != initial), "the fixture lacks the initial position");
            (1, vec!["the initial position is not in the book".into()])
        }
        "huge-nnodes.dat" | "negative-nnodes.dat" => (
            1,
            vec![format!("byte 38: header says {} positions, the file holds {}", header_count(file), records.len())],
        ),
        _ => panic!("{name}: a bad book with no expectations; add it to expected_verify"),
    }
}

#[test]
fn verify_names_the_file_the_record_and_the_damage_of_every_bad_book() {
    let damaged = Damaged::new();
    let dir = tempfile::tempdir().unwrap();
    for name in DAMAGED {
        let path = damaged.path(name);
        let (status, words) = expected_verify(name, &fs::read(&path).unwrap());
        let out = run(dir.path(), &["verify", &path.display().to_string()]);
        assert_no_panic(&out);
        let text = said(&out);
        assert_eq!(out.status.code(), Some(status), "verify {name}: {text}");
        assert!(text.contains(&path.display().to_string()), "verify {name} does not name the file: {text}");
        for word in &words {
            assert!(text.contains(word.as_str()), "verify {name} does not say {word:?}: {text}");
        }
    }
}

#[test]
fn mine_fails_on_every_book_it_must_refuse_and_writes_nothing() {
    let damaged = Damaged::new();
    for name in must_fail_mine() {
        let dir = tempfile::tempdir().unwrap();
        let path = damaged.path(name);
        let out = run_mine(dir.path(), &path, &["--mode", "all", "--out-dir", "out"]);
        assert_no_panic(&out);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "mine {name} is bad input: {err}");
        assert!(err.contains(&format!("error: {}", path.display())), "mine {name} does not name the file: {err}");
        assert_no_mode_files(&dir.path().join("out"));
        assert_no_temp_files(dir.path());
    }
}

// Damaged Egaroucid books, made from the in-repository .egbk3 by one edit
// each, with what verify and mine must say worked out from the bytes.

const EGBK3_HEADER: usize = 14;
const EGBK3_RECORD: usize = 25;

fn egbk3_book() -> Vec<u8> {
    fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/books/egbk3/edax46-l2-small.egbk3")).unwrap()
}

/// The board of the `i`-th (0-based) record.
fn egbk3_board(file: &[u8], i: usize) -> Board {
    let at = EGBK3_HEADER + i * EGBK3_RECORD;
    let word = |from: usize| u64::from_le_bytes(file[from..from + 8].try_into().unwrap());
    Board::new(word(at), word(at + 8))
}

/// "record N at byte M" of the `i`-th record.
fn egbk3_place(i: usize) -> String {
    format!("record {} at byte {}", i + 1, EGBK3_HEADER + i * EGBK3_RECORD)
}

/// What `mine` does with a damaged book.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mined {
    /// Refused at load: status 2, nothing written.
    Refused,
    /// Stopped when the walk follows the damaged move: status 2, nothing written.
    Stopped,
    /// Mined, with a warning or without noticing.
    GoesOn,
}

/// Damaged .egbk3 books, and what mine does with each.
const EGBK3_DAMAGED: [(&str, Mined); 9] = [
    ("egbk3-short-header.egbk3", Mined::Refused),
    ("egbk3-bad-version.egbk3", Mined::Refused),
    ("egbk3-truncated-record.egbk3", Mined::Refused),
    ("egbk3-overlapping-discs.egbk3", Mined::Refused),
    ("egbk3-duplicate-position.egbk3", Mined::Refused),
    ("egbk3-huge-count.egbk3", Mined::GoesOn),
    ("egbk3-illegal-leaf.egbk3", Mined::Stopped),
    ("egbk3-not-normalized.egbk3", Mined::GoesOn),
    ("egbk3-no-value.egbk3", Mined::GoesOn),
];

/// A record far from the start whose board is not symmetric.
const EGBK3_INNER: usize = 1000;

/// `name`'s bytes, and the words verify must say about them.
fn egbk3_damage(name: &str) -> (Vec<u8>, Vec<String>) {
    let mut file = egbk3_book();
    let n = (file.len() - EGBK3_HEADER) / EGBK3_RECORD;
    assert!(n > EGBK3_INNER && (file.len() - EGBK3_HEADER).is_multiple_of(EGBK3_RECORD), "the book is whole");
    let i = EGBK3_INNER;
    let at = EGBK3_HEADER + i * EGBK3_RECORD;
    let board = egbk3_board(&file, i);
    let set_u64 = |file: &mut Vec<u8>, at: usize, value: u64| file[at..at + 8].copy_from_slice(&value.to_le_bytes());
    let words = match name {
        "egbk3-short-header.egbk3" => {
            file.truncate(12);
            vec!["file is 12 bytes, shorter than the 14-byte header".into()]
        }
        "egbk3-bad-version.egbk3" => {
            // Version 2 would make it an .egbk2 (SPEC §8.1), read as such.
            file[9] = 4;
            vec!["byte 9: book version 4 is not supported".into()]
        }
        "egbk3-truncated-record.egbk3" => {
            file.truncate(file.len() - 7);
            vec![format!("{}: truncated record: needs 25 bytes, the file has 18 left", egbk3_place(n - 1))]
        }
        "egbk3-overlapping-discs.egbk3" => {
            set_u64(&mut file, at, board.player | (board.opponent & board.opponent.wrapping_neg()));
            vec![format!("{}: both sides have a disc", egbk3_place(i))]
        }
        "egbk3-duplicate-position.egbk3" => {
            let copy = file[at..at + EGBK3_RECORD].to_vec();
            file.extend_from_slice(&copy);
            file[10..14].copy_from_slice(&(n as i32 + 1).to_le_bytes());
            vec![format!("{}: same position as {}", egbk3_place(n), egbk3_place(i))]
        }
        "egbk3-huge-count.egbk3" => {
            file[10..14].copy_from_slice(&i32::MAX.to_le_bytes());
            vec![format!("byte 10: header says {} positions, the file holds {n}", i32::MAX)]
        }
        "egbk3-illegal-leaf.egbk3" => {
            // The leaf on a square the side to move already holds.
            file[at + 22] = 3;
            file[at + 23] = board.player.trailing_zeros() as u8;
            let mv = Move::from_code(board.player.trailing_zeros() as u8).unwrap();
            vec![format!("{}: leaf move {mv} is illegal", egbk3_place(i))]
        }
        "egbk3-not-normalized.egbk3" => {
            let image = Symmetry::ALL.into_iter().map(|s| s.board(&board)).find(|b| *b != board).unwrap();
            set_u64(&mut file, at, image.player);
            set_u64(&mut file, at + 8, image.opponent);
            vec![format!("{}: board is not in normalized", egbk3_place(i))]
        }
        "egbk3-no-value.egbk3" => {
            file[at + 16] = (-126i8) as u8;
            vec![format!("{}: value -126 is outside -64..64", egbk3_place(i))]
        }
        _ => panic!("no damage called {name}"),
    };
    (file, words)
}

#[test]
fn verify_and_mine_treat_damaged_egaroucid_books_as_damaged_edax_books() {
    let dir = tempfile::tempdir().unwrap();
    for (name, expected) in EGBK3_DAMAGED {
        let (bytes, words) = egbk3_damage(name);
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        let out = run(dir.path(), &["verify", &path.display().to_string()]);
        assert_no_panic(&out);
        let text = said(&out);
        let status = if name == "egbk3-short-header.egbk3" { 2 } else { 1 };
        assert_eq!(out.status.code(), Some(status), "verify {name}: {text}");
        for word in &words {
            assert!(text.contains(word.as_str()), "verify {name} does not say {word:?}: {text}");
        }
        let out = run(dir.path(), &["stats", &path.display().to_string()]);
        assert_no_panic(&out);
        assert!(matches!(out.status.code(), Some(1 | 2)), "stats {name} fails: {}", said(&out));
        let mined = tempfile::tempdir().unwrap();
        let out = run_mine(mined.path(), &path, &["--mode", "all", "--out-dir", "out"]);
        assert_no_panic(&out);
        let err = stderr(&out);
        if expected == Mined::GoesOn {
            assert_eq!(out.status.code(), Some(0), "mine {name} goes on: {err}");
        } else {
            assert_eq!(out.status.code(), Some(2), "mine {name} is bad input: {err}");
            assert!(err.contains(&format!("error: {}", path.display())), "mine {name}: {err}");
            assert_no_mode_files(&mined.path().join("out"));
        }
        if expected == Mined::Stopped {
            let at = egbk3_place(EGBK3_INNER);
            assert!(err.contains(&at) && err.contains("is illegal on board"), "mine {name} names {at}: {err}");
        }
        assert_no_temp_files(mined.path());
    }
}

#[test]
fn mine_stops_at_an_illegal_stored_move_naming_its_record_and_move() {
    let damaged = Damaged::new();
    let path = damaged.path("illegal-link.dat");
    let file = fs::read(&path).unwrap();
    let (records, _) = scan(&file);
    let (rec, mv) = records
        .iter()
        .find_map(|r| {
            let mv = r.codes().into_iter().filter_map(Move::from_code).find(|&mv| r.board().check_move(mv).is_none());
            mv.map(|mv| (r, mv))
        })
        .expect("the fixture has an illegal move");
    let dir = tempfile::tempdir().unwrap();
    let out = run_mine(dir.path(), &path, &["--mode", "1", "--out-dir", "out"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{}: stored move {mv}", rec.place())) && err.contains("illegal"), "{err}");
    assert_no_mode_files(&dir.path().join("out"));
}

#[test]
fn a_wrong_header_count_is_a_warning_for_mine_and_an_error_for_verify() {
    let dir = tempfile::tempdir().unwrap();
    let mut edited = fs::read(sample()).unwrap();
    let stored = header_count(&edited);
    assert_eq!(stored as usize, scan(&edited).0.len(), "the sample book's count is right to begin with");
    edited[38..42].copy_from_slice(&(stored - 1).to_le_bytes());
    let edited_path = dir.path().join("edited-count.dat");
    fs::write(&edited_path, &edited).unwrap();

    let damaged = Damaged::new();
    for path in [damaged.path("huge-nnodes.dat"), damaged.path("negative-nnodes.dat"), edited_path] {
        let file = fs::read(&path).unwrap();
        let claim = format!("header says {} positions, the file holds {}", header_count(&file), scan(&file).0.len());

        let out = run_mine(dir.path(), &path, &["--mode", "all", "--out-dir", "out"]);
        let err = stderr(&out);
        assert!(out.status.success(), "mine {}: {err}", path.display());
        assert!(err.contains(&format!("warn: {}: {claim}", path.display())), "no warning: {err}");
        for n in 1..=4 {
            assert!(dir.path().join(format!("out/mode{n}.txt")).is_file(), "mode{n}.txt written despite the warning");
        }

        let out = run(dir.path(), &["verify", &path.display().to_string()]);
        assert_eq!(out.status.code(), Some(1), "verify {}", path.display());
        assert!(said(&out).contains(&format!("{}: byte 38: {claim}", path.display())), "{}", said(&out));
    }
}

// ---------------------------------------------------------------------------
// Outputs that cannot be written.

const PREVIOUS: &[u8] = b"\xEF\xBB\xBFprevious run\n";

#[test]
fn an_out_dir_under_a_regular_file_fails_with_status_3_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("file.txt"), "not a folder").unwrap();
    let config = format!("book = {:?}\nmode = \"all\"\nout_dir = \"file.txt/out\"\n", sample().display().to_string());
    fs::write(dir.path().join("c.toml"), config).unwrap();
    let out = run(dir.path(), &["--config", "c.toml"]);
    assert_no_panic(&out);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("file.txt/out"), "the message names the path: {err}");
    assert_eq!(fs::read(dir.path().join("file.txt")).unwrap(), b"not a folder");
    assert_no_temp_files(dir.path());
}

#[test]
fn a_directory_in_the_way_of_one_output_leaves_every_previous_output() {
    // mode1.txt would be renamed into place before mode3.txt fails, unless the
    // run refuses before writing anything.
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    fs::create_dir_all(out_dir.join("mode3.txt")).unwrap();
    fs::write(out_dir.join("mode1.txt"), PREVIOUS).unwrap();
    let out = run_mine(dir.path(), &sample(), &["--mode", "all", "--out-dir", "out"]);
    assert_no_panic(&out);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("out/mode3.txt"), "the message names the path: {err}");
    assert_eq!(fs::read(out_dir.join("mode1.txt")).unwrap(), PREVIOUS, "the previous mode1.txt is untouched");
    assert!(!out_dir.join("mode2.txt").exists() && !out_dir.join("mode4.txt").exists());
    assert_no_temp_files(dir.path());
}

#[test]
fn a_folder_that_refuses_new_files_fails_with_status_3_naming_the_output() {
    // Mode bits do not stop root, and the tests may well run as root, so a
    // folder made read-only with chmod proves nothing there. /proc refuses
    // new files to everyone, root included: an existing folder that cannot
    // be written, whoever runs the tests. (A previous output surviving a
    // failed write is checked with a folder in the way, above.)
    let dir = tempfile::tempdir().unwrap();
    let out = run_mine(dir.path(), &sample(), &["--mode", "1", "--out-dir", "/proc"]);
    assert_no_panic(&out);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("error: /proc/mode1.txt"), "the message names the output: {err}");
    assert!(!Path::new("/proc/mode1.txt").exists());
}

// ---------------------------------------------------------------------------
// Interruptions.

fn synth_bytes(positions: usize) -> Vec<u8> {
    book_bytes(&SynthOptions { positions, seed: 7, perturb: 0.02 })
}

/// Mining mode 1 alone into `out_dir`, kifu only.
fn mode1_into(out_dir: &Path) -> MineOptions {
    MineOptions {
        modes: vec![Mode::LeafVsLinks],
        rules: Rules::default(),
        style: LineStyle::default(),
        formats: RecordFormats::KIFU,
        bom: true,
        unique_lines: true,
        out_dir: out_dir.to_path_buf(),
        output: None,
        window: bookminer::window::Window::NONE,
    }
}

#[test]
fn a_cancelled_mine_leaves_the_previous_output_and_no_temp_files() {
    // Cancel is checked every PROGRESS_INTERVAL (65,536) edges: 200,000
    // positions give several times that, so the walk is cut off part-way.
    let book = Book::from_bytes("synth-200k", synth_bytes(200_000)).unwrap();
    let counts = book.counts();
    assert!(counts.links + counts.leaves > 3 * bookminer::walk::PROGRESS_INTERVAL, "the book is big enough");
    let dir = tempfile::tempdir().unwrap();
    let options = mode1_into(dir.path());
    let previous = options.output_path(Mode::LeafVsLinks);
    fs::write(&previous, PREVIOUS).unwrap();

    let cancel = AtomicBool::new(false);
    let mut calls = 0;
    let mut progress = |_: bookminer::run::Progress<'_>| {
        calls += 1;
        cancel.store(true, Ordering::Relaxed);
    };
    let result = mine(
        book,
        &Start::initial(),
        &options,
        Control { cancel: Cancel::new(&cancel), phase: &mut |_| {}, progress: &mut progress },
    );
    assert!(
        matches!(result, Err(MineError::Run(bookminer::run::RunError::Interrupted { .. }))),
        "{:?}",
        result.map(|r| r.to_string())
    );
    assert_eq!(calls, 1, "the walk stopped at the next check after the flag was set");
    assert_eq!(fs::read(&previous).unwrap(), PREVIOUS);
    assert_eq!(files_under(dir.path()), vec![previous], "nothing else is left in out_dir");
}

#[test]
fn mining_tells_its_stages_in_order_around_the_walk_s_reports() {
    let book = Book::from_bytes("synth-100k", synth_bytes(100_000)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let options = mode1_into(dir.path());
    let cancel = AtomicBool::new(false);
    let told = std::cell::RefCell::new(Vec::new());
    let mut phase = |phase: Phase| told.borrow_mut().push(format!("{phase:?}"));
    let mut progress = |_: bookminer::run::Progress<'_>| told.borrow_mut().push("progress".to_string());
    let control = Control { cancel: Cancel::new(&cancel), phase: &mut phase, progress: &mut progress };
    let report = mine(book, &Start::initial(), &options, control).unwrap();
    let told = told.into_inner();
    let reports = (report.walk.edges / bookminer::walk::PROGRESS_INTERVAL) as usize;
    assert!(reports > 0, "the book is big enough for the walk to report");
    let expected: Vec<String> = ["Resolving", "Walking"]
        .into_iter()
        .map(String::from)
        .chain(vec!["progress".to_string(); reports])
        .chain(["Writing".to_string()])
        .collect();
    assert_eq!(told, expected);
}

/// The binary interrupted in the middle of its walk, with no timing in it.
///
/// The log file is a named pipe this test reads, and the log level `trace`
/// logs every kifu line, far more than a pipe holds: the walk cannot finish
/// until the test drains the pipe. The test reads the log up to "positions
/// loaded" (the Ctrl-C handler is installed before the book is loaded), sends
/// SIGINT, and waits for the handler's own warning on stderr (a plain file,
/// so nothing holds it up): from then on the flag is set. Only then does it
/// drain the log, letting the walk go on to its next check of the flag.
/// Whatever the scheduling, the signal is seen while the walk still runs.
#[test]
fn sigint_stops_the_binary_with_status_130_and_changes_no_output() {
    signal_stops_the_binary_with_status_130_and_changes_no_output("INT");
}

/// SIGTERM (`timeout`, `kill`, job schedulers) and SIGHUP (a closed
/// terminal) stop a run as Ctrl-C does.
#[test]
fn sigterm_and_sighup_stop_the_binary_as_sigint_does() {
    for signal in ["TERM", "HUP"] {
        signal_stops_the_binary_with_status_130_and_changes_no_output(signal);
    }
}

/// SIGKILL cannot be caught: the outputs being written have no name yet
/// (Linux), so nothing is left behind all the same.
#[cfg(target_os = "linux")]
#[test]
fn sigkill_mid_walk_leaves_no_temporary_file() {
    signal_stops_the_binary_with_status_130_and_changes_no_output("KILL");
}

/// Runs `mine --mode all` over previous outputs and sends `signal` while
/// the walk runs (see above), then checks the outputs and the status.
fn signal_stops_the_binary_with_status_130_and_changes_no_output(signal: &str) {
    use std::io::{BufRead, BufReader, Read};
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("big.dat"), synth_bytes(100_000)).unwrap();
    let out_dir = dir.path().join("out");
    fs::create_dir(&out_dir).unwrap();
    for n in 1..=4 {
        fs::write(out_dir.join(format!("mode{n}.txt")), PREVIOUS).unwrap();
    }
    let log = dir.path().join("mine.log");
    assert!(Command::new("mkfifo").arg(&log).status().unwrap().success(), "mkfifo");
    let stderr_path = dir.path().join("stderr.txt");
    let mut child = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "--book", "big.dat", "--mode", "all", "--out-dir", "out"])
        .args(["--log-level", "trace", "--log-file", "mine.log"])
        .stdout(std::process::Stdio::null())
        .stderr(fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    // Waits for the binary to open the log.
    let mut log = BufReader::new(fs::File::open(&log).unwrap());
    let mut line = String::new();
    while !line.contains("positions loaded") {
        line.clear();
        assert!(log.read_line(&mut line).unwrap() > 0, "the log ended before the book was loaded");
    }

    let kill = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let began = Instant::now();
    while signal != "KILL" && !fs::read_to_string(&stderr_path).unwrap().contains("warn: interrupted") {
        assert!(began.elapsed() < Duration::from_secs(60), "the signal was never acknowledged");
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut rest = Vec::new();
    log.read_to_end(&mut rest).unwrap();
    let status = child.wait().unwrap();

    let err = fs::read_to_string(&stderr_path).unwrap();
    let tail: Vec<&str> = err.lines().rev().take(3).collect();
    if signal != "KILL" {
        assert_eq!(status.code(), Some(130), "SIG{signal}: status {status:?}: {tail:?}");
        assert!(err.contains("error: interrupted; no output file was changed"), "SIG{signal}: {tail:?}");
    }
    for n in 1..=4 {
        assert_eq!(fs::read(out_dir.join(format!("mode{n}.txt"))).unwrap(), PREVIOUS, "mode{n}.txt is untouched");
    }
    assert_no_temp_files(dir.path());
    assert_eq!(files_under(&out_dir).len(), 4, "nothing else is left in out_dir");
}

// ---------------------------------------------------------------------------
// Position files and config files.

#[test]
fn a_hostile_positions_file_reports_each_bad_line_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = Vec::new();
    file.extend_from_slice(b"F5F6\n"); // 1: fine
    file.extend_from_slice(b"hello, world\n"); // 2: garbage
    file.extend_from_slice(b"F5\xff\xfeD6\n"); // 3: not UTF-8
    file.extend_from_slice("F5".repeat(500_000).as_bytes()); // 4: a 1 MB kifu
    file.extend_from_slice(b"\n");
    file.extend_from_slice(&[b'x'; 1 << 20]); // 5: a 1 MB word
    file.extend_from_slice(b"\n0x1 0x1\n"); // 6: overlapping discs
    file.extend_from_slice(b"\0\0\0\n"); // 7: control bytes
    file.extend_from_slice(b"F5"); // 8: fine, no final line end
    fs::write(dir.path().join("p.txt"), &file).unwrap();
    let book = sample().display().to_string();
    let out = run(dir.path(), &["--book", &book, "inspect", "--file", "p.txt"]);
    assert_no_panic(&out);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for n in 2..=7 {
        assert!(err.contains(&format!("p.txt:{n}:")), "line {n} is not named: {err}");
    }
    assert!(err.contains("p.txt:3: not valid UTF-8"), "{err}");
    assert!(err.len() < 10_000, "a huge line is not echoed in full ({} bytes of messages)", err.len());
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("p.txt:1 ") && report.contains("p.txt:8 "), "good lines are reported: {report}");
}

/// Files that never end, or are no files at all, are refused at once with
/// their name: a book must be a regular file (it is mapped), and a config or
/// positions file is read only up to a size no such file needs.
#[cfg(unix)]
#[test]
fn endless_and_unmappable_inputs_are_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let book = sample().display().to_string();
    let dir_name = dir.path().display().to_string();
    let cases: [(&[&str], &str); 5] = [
        (&["--config", "/dev/null", "--book", "/dev/zero"], "error: /dev/zero: a device, not a regular file"),
        (&["--config", "/dev/null", "--book", &dir_name], "a directory, not a regular file"),
        (&["verify", "/dev/zero"], "error: /dev/zero: a device, not a regular file"),
        (&["--config", "/dev/zero"], "error: /dev/zero: cannot read: more than 1048576 bytes"),
        (&["--config", "/dev/null", "--book", &book, "inspect", "--file", "/dev/zero"], "error: /dev/zero: more than"),
    ];
    for (args, words) in cases {
        let out = run(dir.path(), args);
        assert_no_panic(&out);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert!(err.contains(words), "{args:?}: {err}");
    }
}

#[test]
fn a_broken_config_exits_2_naming_the_file_the_key_and_the_allowed_values() {
    let cases: [(&[u8], &[&str]); 5] = [
        (b"colour = \"blue\"\n", &["key `colour`", "unknown key", "known keys: book, mode, start"]),
        (b"orientation = \"f6\"\n", &["key `orientation`", "\"f5\", \"as-walked\""]),
        (b"log_level = 3\n", &["key `log_level`", "\"error\", \"warn\", \"info\", \"debug\", \"trace\""]),
        (b"mode = 1\nbook = [\n", &["not valid TOML", "line 2"]),
        (b"mode = 1\nbook = \"b\xff\xfe.dat\"\n", &["not valid UTF-8", "line 2"]),
    ];
    for (content, words) in cases {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("bad.toml"), content).unwrap();
        let out = run(dir.path(), &["--config", "bad.toml"]);
        assert_no_panic(&out);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", String::from_utf8_lossy(content));
        assert!(err.contains("error: bad.toml: "), "the message names the file: {err}");
        for word in words {
            assert!(err.contains(word), "the message lacks {word:?}: {err}");
        }
        assert_no_mode_files(dir.path());
    }
}
