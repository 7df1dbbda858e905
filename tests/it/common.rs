//! What the tests share: where the repository's books are, the binary, a
//! pipe nobody reads, and books made from lines of moves.
//!
//! Every book a test reads is in the repository (`books/`, `tests/data/`) or
//! made by the test: the tests need nothing beside the repository.

use bookminer::board::{Board, Move, Square};
use bookminer::book::{Link, Score};
use bookminer::format::edax::entries::Entry;
use bookminer::symmetry::normalize;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `books/sample.dat`, the book `bookminer synth` wrote for the README.
pub fn sample() -> PathBuf {
    repo().join("books/sample.dat")
}

/// A file under `tests/data` (the books the tests and the cases use).
pub fn data(relative: &str) -> PathBuf {
    let path = repo().join("tests/data").join(relative);
    assert!(path.is_file(), "{} is missing from the repository", path.display());
    path
}

/// `tests/data/books/edax46-l2-small.dat`: 7,814 positions written by Edax 4.6.
pub fn edax46() -> PathBuf {
    data("books/edax46-l2-small.dat")
}

/// The binary cargo built for these tests.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bookminer"))
}

/// The write end of a pipe whose read end is already closed, as a child's
/// standard output: its first write fails with a broken pipe, however the
/// processes are scheduled. (A named pipe in `dir`: opened for reading and
/// writing first so that opening the write end does not wait for a reader.)
pub fn pipe_nobody_reads(dir: &Path) -> File {
    let fifo = dir.join("closed-pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", fifo.display());
    let both_ends = OpenOptions::new().read(true).write(true).open(&fifo).unwrap();
    let write_end = OpenOptions::new().write(true).open(&fifo).unwrap();
    drop(both_ends);
    write_end
}

/// The boards a line passes through, the initial and the last included.
pub fn boards_along(line: &[Move]) -> Vec<Board> {
    let mut boards = vec![Board::INITIAL];
    for &mv in line {
        boards.push(boards.last().unwrap().after(mv).expect("a legal line"));
    }
    boards
}

/// Stores every position along the lines, linking each move played (in the
/// stored board's coordinates), and gives a position without links a leaf on
/// its first legal move (or its pass).
pub fn book_from_lines(lines: &[Vec<Move>]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut slot: HashMap<Board, usize> = HashMap::new();
    let mut entry_of = |board: &Board, entries: &mut Vec<Entry>| {
        let stored = normalize(board).board;
        *slot.entry(stored).or_insert_with(|| {
            entries.push(Entry::new(stored, 0));
            entries.len() - 1
        })
    };
    for line in lines {
        let boards = boards_along(line);
        for (board, &mv) in boards.iter().zip(line) {
            let i = entry_of(board, &mut entries);
            let stored = normalize(board).to_original.inverse().apply_move(mv);
            let links = &mut entries[i].links;
            if !links.iter().any(|l| l.mv == stored) {
                links.push(Link::new(Score::new(links.len() as i32), stored));
            }
        }
        entry_of(boards.last().unwrap(), &mut entries);
    }
    for e in &mut entries {
        if e.links.is_empty() {
            let first = Square::iter(e.board.legal_moves()).next().map(Move::Play);
            e.leaf = first.or(e.board.must_pass().then_some(Move::Pass)).map(|mv| Link::new(Score::new(3), mv));
        }
    }
    entries
}

/// Runs the binary in `dir` with no config file.
pub fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    bin().current_dir(dir).args(["--config", "/dev/null"]).args(args).output().expect("the binary runs")
}

/// A run's standard error, as text.
pub fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The names in `dir` (links included, not followed), sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

/// Whether `/proc/locks` lists process `pid` waiting for a lock (`-> FLOCK`):
/// a run held at a lock the test holds, without a clock.
pub fn waits_for_a_lock(pid: u32) -> bool {
    let locks = std::fs::read_to_string("/proc/locks").unwrap_or_default();
    locks.lines().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words.get(1) == Some(&"->") && words.get(5) == Some(&pid.to_string().as_str())
    })
}
