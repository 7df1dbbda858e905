//! `deviate` (SPEC §17.2, docs/policies.md) with the repository's solver:
//! from a position of a few empty squares, `--relative 0 --absolute 0`
//! must grow every line on which both sides play only best moves, which
//! plain negamax finds by itself; a second run adds nothing; killed and
//! run again it writes the same book and searches nothing twice.

use crate::common::bin;
use crate::extend::{assert_each_search_once, assert_no_engine_left, journal, minimax, solver, stderr, RUN_TAG};
use bookminer::board::{Board, Move, Square};
use bookminer::book::{Book, Link, Score};
use bookminer::format::edax::entries::{encode, Entry};
use bookminer::symmetry::normalize;
use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A position `empties` squares from the end, by seeded random play, the
/// game going on there, and the moves that reach it (passes left out).
pub(crate) fn position(empties: u32, mut state: u64) -> (Board, String) {
    loop {
        let (mut board, mut line) = (Board::INITIAL, String::new());
        while board.empties() > empties && !board.is_game_over() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let moves: Vec<Square> = Square::iter(board.legal_moves()).collect();
            board = match moves.len() {
                0 => board.swapped(),
                n => {
                    let square = moves[(state % n as u64) as usize];
                    line += &square.to_string();
                    board.after(Move::Play(square)).unwrap()
                }
            };
        }
        if board.empties() == empties && board.has_moves() {
            return (board, line);
        }
    }
}

/// A book of one record: `root` (normalized), level 60, its leaf its
/// best move as plain negamax scores it; as `in.dat` in `dir`.
pub(crate) fn one_record_book(dir: &Path, root: Board) {
    let (score, square) = Square::iter(root.legal_moves())
        .map(|s| (-minimax(&root.after(Move::Play(s)).unwrap()), s))
        .max_by_key(|&(score, _)| score)
        .unwrap();
    let square = normalize(&root).to_original.inverse().apply_move(Move::Play(square));
    let mut entry = Entry::new(normalize(&root).board, score);
    entry.level = 60;
    entry.leaf = Some(Link::new(Score::new(score), square));
    std::fs::write(dir.join("in.dat"), encode(&[entry], 60)).unwrap();
}

/// Every position on a line from `board` where each side plays only
/// moves that keep the value (a finished game's position included),
/// normalized.
pub(crate) fn best_lines(board: &Board, found: &mut HashSet<Board>) {
    if !found.insert(normalize(board).board) || board.is_game_over() {
        return;
    }
    let value = minimax(board);
    for (_, child) in board.children() {
        if -minimax(&child) == value {
            best_lines(&child, found);
        }
    }
}

/// `bookminer deviate in.dat OUT` from the book's one position, with the solver.
fn deviate(dir: &Path, out: &str, errors: [&str; 2], line: &str) -> Command {
    let mut command = bin();
    command.current_dir(dir).env(RUN_TAG, dir);
    command.args(["--config", "/dev/null", "deviate", "in.dat", out, "--relative", errors[0]]);
    command.args(["--absolute", errors[1], "--min-empties", "0", "--workers", "1"]);
    command.args(["--start", line]);
    command.args(["--out-dir", "o", "--log-file", "o/log", "--summary", "json", "-q", "--engine"]).arg(solver());
    command
}

pub(crate) fn run(command: &mut Command) -> serde_json::Value {
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A growth run killed at three moments (after its first answer, after
/// half of its `searches`, at a random time) and run again on the book
/// `book` writes: each time the book `expected`, byte for byte, the
/// answers journaled before the kill taken from the journal (with the
/// `repeated` ones the whole run took from its own journal), no search
/// made twice, and `also` holding of each folder.
pub(crate) fn killed_and_run_again(
    book: impl Fn(&Path),
    command: impl Fn(&Path) -> Command,
    (searches, repeated): (usize, usize),
    expected: &[u8],
    also: impl Fn(&Path),
) {
    killed_and_run_again_into("out.dat", book, command, (searches, repeated), expected, also);
}

/// [`killed_and_run_again`] for a command whose OUT is `out` (an `.egbk3`
/// book's, say).
pub(crate) fn killed_and_run_again_into(
    out: &str,
    book: impl Fn(&Path),
    command: impl Fn(&Path) -> Command,
    (searches, repeated): (usize, usize),
    expected: &[u8],
    also: impl Fn(&Path),
) {
    let nanos = u64::from(Instant::now().elapsed().subsec_nanos()) + u64::from(std::process::id());
    for (n, delay) in
        [(1, Duration::MAX), (searches / 2, Duration::MAX), (usize::MAX, Duration::from_millis(nanos % 300))]
    {
        let dir = tempfile::tempdir().unwrap();
        book(dir.path());
        let mut child = command(dir.path()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let began = Instant::now();
        while journal(dir.path()).len() < n && began.elapsed() < delay && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert_no_engine_left(dir.path());
        let kept = journal(dir.path()).len();
        if !dir.path().join(out).exists() {
            let again = run(&mut command(dir.path()));
            assert_eq!(again["searches_from_journal"].as_u64(), Some((kept + repeated) as u64), "{again}");
            assert_eq!(again["searches"].as_u64().unwrap() as usize + kept, searches, "no search twice");
        }
        assert_eq!(std::fs::read(dir.path().join(out)).unwrap(), expected, "killed after {kept} answers");
        also(dir.path());
        assert_each_search_once(&journal(dir.path()));
    }
}

/// The boards of an Edax book.
pub(crate) fn boards(path: &Path) -> HashSet<Board> {
    Book::open(path, &Default::default()).unwrap().records().map(|r| r.board()).collect()
}

#[test]
fn with_no_error_allowed_every_line_of_best_moves_is_grown_and_nothing_else() {
    for seed in [3, 17, 29] {
        let (root, line) = position(9, 0x9e37_79b9_7f4a_7c15 ^ seed);
        let dir = tempfile::tempdir().unwrap();
        one_record_book(dir.path(), root);
        let summary = run(&mut deviate(dir.path(), "out.dat", ["0", "0"], &line));
        let mut expected = HashSet::new();
        best_lines(&root, &mut expected);
        assert_eq!(boards(&dir.path().join("out.dat")), expected, "seed {seed}: {summary}");
        assert_eq!(summary["positions_added"].as_u64(), Some(expected.len() as u64 - 1), "{summary}");
        // What it wrote is where the next run stops: nothing more to grow.
        std::fs::rename(dir.path().join("out.dat"), dir.path().join("in.dat")).unwrap();
        let again = run(&mut deviate(dir.path(), "again.dat", ["0", "0"], &line));
        assert_eq!(again["positions_added"], 0, "{again}");
        assert_each_search_once(&journal(dir.path()));
    }
}

#[test]
fn a_second_run_adds_nothing_and_one_killed_writes_the_same_book_searching_nothing_twice() {
    let (root, line) = position(10, 0x2545_f491_4f6c_dd1d);
    let whole = tempfile::tempdir().unwrap();
    one_record_book(whole.path(), root);
    let once = run(&mut deviate(whole.path(), "out.dat", ["2", "4"], &line));
    let searches = once["searches"].as_u64().unwrap() as usize;
    // A leaf asked again within the run is answered by the journal.
    let repeated = once["searches_from_journal"].as_u64().unwrap() as usize;
    assert!(searches >= 10, "{once}");
    let expected = std::fs::read(whole.path().join("out.dat")).unwrap();
    std::fs::copy(whole.path().join("out.dat"), whole.path().join("in.dat")).unwrap();
    let again = run(&mut deviate(whole.path(), "again.dat", ["2", "4"], &line));
    assert_eq!(again["positions_added"], 0, "{again}");
    killed_and_run_again(
        |dir| one_record_book(dir, root),
        |dir| deviate(dir, "out.dat", ["2", "4"], &line),
        (searches, repeated),
        &expected,
        |_| {},
    );
}
