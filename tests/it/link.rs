//! `fix --link` (SPEC §17.1, docs/policies.md): Edax's `book fix`, each
//! leaf whose move became a link searched again by the repository's
//! solver. The expected books are derived by hand (the initial position's
//! four moves, all to one child) or are the book before links were taken
//! out of it: putting them back must give it again.

use crate::common::{
    assert_each_search_once, bin, data, journal, killed_and_run_again, minimax, solver, stderr, RUN_TAG,
};
use bookminer::board::{Board, Move, Square};
use bookminer::book::{Book, Link, Score};
use bookminer::format::edax;
use bookminer::format::edax::entries::{encode, Entry};
use bookminer::negamax::leaf_score;
use bookminer::symmetry::normalize;
use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::process::{Command, Output};

/// `bookminer fix --link in.dat OUT` in `dir`, with the solver when `engine`.
fn link(dir: &Path, out: &str, engine: bool) -> Command {
    let mut command = bin();
    command.current_dir(dir).env(RUN_TAG, dir);
    command.args(["--config", "/dev/null", "fix", "--link", "in.dat", out, "--workers", "1"]);
    command.args(["--out-dir", "o", "--log-file", "o/log", "--summary", "json", "-q"]);
    if engine {
        command.arg("--engine").arg(solver());
    }
    command
}

/// A run to its end: its JSON summary.
fn linked(dir: &Path, out: &str, engine: bool) -> serde_json::Value {
    let output: Output = link(dir, out, engine).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Each record of an Edax book by board: value, bounds, level, its links'
/// moves, the leaf's score.
type Fields = (i32, i32, i32, u8, BTreeSet<u8>, i32);

fn fields(path: &Path) -> std::collections::HashMap<Board, Fields> {
    let bytes = std::fs::read(path).unwrap();
    edax::records(&bytes)
        .map(Result::unwrap)
        .map(|(_, _, raw)| {
            let (lower, upper) = raw.bounds();
            let links = (0..raw.n_links()).map(|i| raw.bytes()[40 + 2 * i + 1]).collect();
            let fields =
                (raw.value().discs(), lower.discs(), upper.discs(), raw.level(), links, leaf_score(raw.leaf()).discs());
            (raw.board(), fields)
        })
        .collect()
}

/// The initial position (value 3, leaf f5, no link) and the one position
/// its four moves all lead to once normalized (value −3, a leaf), as
/// `in.dat` in `dir`; the initial position's board, as stored.
fn two_record_book(dir: &Path) -> Board {
    let initial = normalize(&Board::INITIAL).board;
    let child = normalize(&Board::INITIAL.after(Move::Play(Square::parse("f5").unwrap())).unwrap()).board;
    let reply = child.children()[0].0;
    let f5 = Board::INITIAL.children().into_iter().find(|(_, b)| normalize(b).board == child).unwrap().0;
    let mut root = Entry::new(initial, 3);
    root.leaf = Some(Link::new(Score::new(3), f5));
    let mut below = Entry::new(child, -3);
    below.leaf = Some(Link::new(Score::new(-3), reply));
    std::fs::write(dir.join("in.dat"), encode(&[root, below], 1)).unwrap();
    initial
}

#[test]
fn the_initial_position_gets_a_link_for_each_of_its_four_moves_without_an_engine() {
    // Each move becomes a link to the one child, the leaf's move among
    // them, so no leaf is left and nothing is searched.
    let dir = tempfile::tempdir().unwrap();
    let initial = two_record_book(dir.path());
    let summary = linked(dir.path(), "out.dat", false);
    assert_eq!(summary["links_added"], 4, "{summary}");
    assert_eq!(summary["records_linked"], 1, "{summary}");
    assert_eq!(summary["leaves_searched_again"], 0, "{summary}");
    assert_eq!(summary["searches"], 0, "{summary}");
    assert_eq!(summary["reachable"], 2, "{summary}");
    let book = Book::open(&dir.path().join("out.dat"), &Default::default()).unwrap();
    let root = book.find(&initial).unwrap();
    let moves: HashSet<Move> = root.links().map(|l| l.mv).collect();
    let legal: HashSet<Move> = initial.children().into_iter().map(|(mv, _)| mv).collect();
    assert_eq!(moves, legal, "every legal move linked");
    assert!(root.leaf().is_none(), "the leaf's move is a link");
    assert!(root.links().all(|l| l.score == Score::new(3)), "each link is minus the child's value");
    assert_eq!(root.value(), Score::new(3));
}

/// Issue 63 point 6: a record growth rewrites keeps its leaf's two bytes
/// as read, whatever they are, where its move is no link: the initial
/// position of [`two_record_book`], given leaves without a move (move 65)
/// that Edax writes (−127: none; a score: a finished game's) and that it
/// does not (−128, and a score beside 65 on a board with moves), gets its
/// four links and is written again; its last two bytes are the pair it had.
#[test]
fn a_rewritten_record_keeps_its_leaf_bytes_when_its_move_is_no_link() {
    for (score, code) in [(-127i8, 65u8), (-128, 65), (5, 65), (-64, 65)] {
        let dir = tempfile::tempdir().unwrap();
        let initial = two_record_book(dir.path());
        let mut bytes = std::fs::read(dir.path().join("in.dat")).unwrap();
        let root_len = 42 + 2 * usize::from(bytes[42 + 38]);
        assert_eq!(root_len, 42, "the initial position is the first record, with no link");
        (bytes[42 + 40], bytes[42 + 41]) = (score as u8, code);
        std::fs::write(dir.path().join("in.dat"), &bytes).unwrap();
        let summary = linked(dir.path(), "out.dat", false);
        assert_eq!(summary["links_added"], 4, "{summary}");
        let out = std::fs::read(dir.path().join("out.dat")).unwrap();
        let root = edax::records(&out).map(Result::unwrap).find(|(_, _, raw)| raw.board() == initial).unwrap().2;
        assert_eq!(root.n_links(), 4, "leaf ({score}, {code})");
        let pair = &root.bytes()[root.byte_len() - 2..];
        assert_eq!(pair, [score as u8, code], "leaf ({score}, {code}) written back as read");
    }
}

/// The extend book with the first link taken out of every record of 8
/// empty squares or fewer that has a link and a leaf, its move made the
/// leaf (scored 0, a wrong score), as `in.dat` in `dir`; and beside it, as
/// `whole.dat`, the extend book with those records' leaves solved by plain
/// negamax, their links kept: what putting the links back must give. Returns
/// how many links were taken out.
fn unlinked_book(dir: &Path) -> usize {
    let bytes = std::fs::read(data("books/endgames-extend.dat")).unwrap();
    let (mut cut, mut whole) = (bytes[..42].to_vec(), bytes[..42].to_vec());
    let mut taken = 0;
    for (_, _, raw) in edax::records(&bytes).map(Result::unwrap) {
        let record = raw.bytes();
        let n = raw.n_links();
        if raw.board().empties() > 8 || n == 0 || !raw.has_leaf() {
            cut.extend_from_slice(record);
            whole.extend_from_slice(record);
            continue;
        }
        taken += 1;
        cut.extend_from_slice(&record[..38]);
        cut.extend_from_slice(&[(n - 1) as u8, record[39]]);
        cut.extend_from_slice(&record[42..40 + 2 * n]);
        cut.extend_from_slice(&[0, record[41]]);
        let board = raw.board();
        let linked: Vec<u8> = (0..n).map(|i| record[41 + 2 * i]).collect();
        let (score, square) = Square::iter(board.legal_moves())
            .filter(|&s| !linked.contains(&Move::Play(s).code()))
            .map(|s| (-minimax(&board.after(Move::Play(s)).unwrap()), s))
            .max_by_key(|&(score, _)| score)
            .expect("a leaf's move is not linked");
        whole.extend_from_slice(&record[..40 + 2 * n]);
        whole.extend_from_slice(&[score as i8 as u8, Move::Play(square).code()]);
    }
    std::fs::write(dir.join("in.dat"), cut).unwrap();
    std::fs::write(dir.join("whole.dat"), whole).unwrap();
    taken
}

#[test]
fn links_taken_out_are_put_back_and_their_leaves_solved_again_as_the_book_had_them() {
    let cut = tempfile::tempdir().unwrap();
    let taken = unlinked_book(cut.path()) as u64;
    assert!(taken >= 8, "{taken} links taken out");
    let whole = tempfile::tempdir().unwrap();
    std::fs::rename(cut.path().join("whole.dat"), whole.path().join("in.dat")).unwrap();
    let reference = linked(whole.path(), "out.dat", true);
    // Without an engine: refused, saying what is missing; nothing written.
    let refused = link(cut.path(), "out.dat", false).output().unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains(&format!("{taken} leaves")), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("--engine"), "{}", stderr(&refused));
    assert!(!cut.path().join("out.dat").exists());
    let summary = linked(cut.path(), "out.dat", true);
    let more = |key: &str| summary[key].as_u64().unwrap() - reference[key].as_u64().unwrap();
    assert_eq!(more("links_added"), taken, "{summary} against {reference}");
    assert_eq!(more("leaves_searched_again"), taken, "{summary} against {reference}");
    assert_eq!(more("searches"), taken, "{summary} against {reference}");
    // The links are back, each leaf solved as Edax solved it (its move may
    // be another of the same score), every value and bound as before.
    assert_eq!(fields(&cut.path().join("out.dat")), fields(&whole.path().join("out.dat")));
    assert_each_search_once(&journal(cut.path()));
}

#[test]
fn killed_and_run_again_it_searches_nothing_twice_and_writes_the_same_book() {
    let whole = tempfile::tempdir().unwrap();
    unlinked_book(whole.path());
    let once = linked(whole.path(), "out.dat", true);
    let searches = once["searches"].as_u64().unwrap() as usize;
    let expected = std::fs::read(whole.path().join("out.dat")).unwrap();
    killed_and_run_again(
        |dir| {
            unlinked_book(dir);
        },
        |dir| link(dir, "out.dat", true),
        (searches, 0),
        &expected,
        |dir| assert_eq!(journal(dir).len(), searches),
    );
}

#[test]
fn add_says_when_what_it_wrote_is_not_reachable_from_the_initial_position_and_what_to_run() {
    // As Edax's `book add`, add links no move of the initial position (the
    // position a game starts from is not one it adds): the child the game
    // reaches stays out of the tree until `fix --link`.
    let dir = tempfile::tempdir().unwrap();
    two_record_book(dir.path());
    std::fs::write(dir.path().join("g.txt"), "f5\n").unwrap();
    let mut command = bin();
    command.current_dir(dir.path()).env(RUN_TAG, dir.path());
    command.args(["--config", "/dev/null", "add", "in.dat", "g.txt", "added.dat", "--workers", "1"]);
    command.args(["--out-dir", "o", "--log-file", "o/log", "--engine"]).arg(solver());
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text.lines().find(|l| l.starts_with("not reachable")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("1 record not reachable: no line of links from the initial position reaches them"), "{line}");
    assert!(line.contains("`bookminer fix --link added.dat LINKED.dat` links them"), "{line}");
    // Said once (issue 64, point 11): the summary says it, stderr not again.
    assert!(!stderr(&out).contains("not reachable"), "said once, in the summary: {}", stderr(&out));
    // With the summary silenced, it is a warning.
    let quiet = command.args(["-q", "--force"]).output().unwrap();
    let said = stderr(&quiet);
    assert_eq!(said.matches("1 record not reachable: no line of links").count(), 1, "{said}");
    std::fs::copy(dir.path().join("added.dat"), dir.path().join("in.dat")).unwrap();
    let summary = linked(dir.path(), "out.dat", false);
    assert_eq!(summary["reachable"], 2, "{summary}");
}

#[test]
fn add_says_what_no_line_of_an_egaroucid_book_reaches_and_names_no_command() {
    // An .egbk3 book of the initial position, its child, and, three plies
    // below it, a position whose parent it lacks, each with a leaf: a game
    // of one move meets what the book holds (nothing to search), and the
    // third position stays out of reach (Egaroucid links every move whose
    // child the book holds: no command links it, and `fix --link` changes
    // nothing in such a book).
    use bookminer::format::egaroucid::{encode_record, header};
    let dir = tempfile::tempdir().unwrap();
    let mut line = vec![Board::INITIAL];
    for square in ["f5", "d6", "c3"] {
        let next = line.last().unwrap().after(Move::Play(Square::parse(square).unwrap())).unwrap();
        line.push(next);
    }
    let mut bytes = header(3).to_vec();
    for board in [line[0], line[1], line[3]] {
        let stored = normalize(&board).board;
        let leaf = Square::iter(stored.legal_moves()).next().unwrap();
        encode_record(&mut bytes, &stored, 0, 4, 0, Some(Link::new(Score::new(0), Move::Play(leaf))));
    }
    std::fs::write(dir.path().join("in.egbk3"), bytes).unwrap();
    std::fs::write(dir.path().join("g.txt"), "f5\n").unwrap();
    let mut command = bin();
    command.current_dir(dir.path()).env(RUN_TAG, dir.path());
    command.args(["--config", "/dev/null", "add", "in.egbk3", "g.txt", "added.egbk3", "--workers", "1"]);
    command.args(["--out-dir", "o", "--log-file", "o/log", "--engine"]).arg(solver());
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let errors = stderr(&out);
    let said: Vec<&str> = text.lines().chain(errors.lines()).filter(|l| l.contains("not reachable")).collect();
    assert_eq!(said.len(), 1, "said once: {text}{errors}");
    assert!(said[0].contains("1 record not reachable: no line from the initial position reaches them"), "{text}");
    assert!(!text.contains("bookminer fix") && !errors.contains("bookminer fix"), "{text}{errors}");
}

#[test]
fn an_egaroucid_book_is_fixed_as_fix_fixes_it_and_link_says_it_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    two_record_book(dir.path());
    let run = |args: &[&str]| {
        let out = bin().current_dir(dir.path()).args(["--config", "/dev/null", "-q"]).args(args).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    run(&["convert", "in.dat", "in.egbk3"]);
    let said = run(&["fix", "--link", "in.egbk3", "linked.egbk3", "--out-dir", "a"]);
    assert!(said.contains("--link changes nothing in an Egaroucid book"), "{said}");
    run(&["fix", "in.egbk3", "fixed.egbk3", "--out-dir", "b"]);
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    assert_eq!(read("linked.egbk3"), read("fixed.egbk3"));
}

/// Issue 64, point 7: `fix --link IN IN` is refused in fix --link's words,
/// not extend's.
#[test]
fn fix_link_over_its_input_is_refused_in_its_own_words() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(data("books/endgames-extend.dat"), dir.path().join("b.dat")).unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "fix", "--link", "b.dat", "./b.dat", "--engine"])
        .arg(solver())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("fix --link never writes over its input"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("extend"), "{}", stderr(&out));
}

/// A book with nothing to link (`fix --link`'s own output, linked again) is
/// written as `fix` writes it, byte for byte, straight from the book read:
/// nothing set aside and read again (the log names no book "before its
/// negamax").
#[test]
fn a_book_with_nothing_to_link_is_written_as_fix_writes_it_with_nothing_set_aside() {
    let dir = tempfile::tempdir().unwrap();
    two_record_book(dir.path());
    let first = linked(dir.path(), "out.dat", false);
    assert_eq!(first["links_added"], 4, "{first}");
    std::fs::rename(dir.path().join("out.dat"), dir.path().join("in.dat")).unwrap();
    std::fs::remove_dir_all(dir.path().join("o")).unwrap();
    let again = linked(dir.path(), "again.dat", false);
    assert_eq!((again["links_added"].as_u64(), again["searches"].as_u64()), (Some(0), Some(0)), "{again}");
    assert_eq!(again["reachable"], 2, "{again}");
    let log = std::fs::read_to_string(dir.path().join("o/log")).unwrap();
    assert!(log.contains("in.dat"), "{log}");
    assert!(!log.contains("before its negamax"), "nothing set aside: {log}");
    let fixed = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "-q", "fix", "in.dat", "fixed.dat", "--out-dir", "f"])
        .output()
        .unwrap();
    assert!(fixed.status.success(), "{}", stderr(&fixed));
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    assert_eq!(read("again.dat"), read("fixed.dat"), "fix --link writes what fix writes");
}

/// Issue 64, point 8: the summary's elapsed counts the engines' start
/// (greeted as the run starts): an engine that takes 2 s to start
/// makes a run of at least 2 s, which said 0.003 s.
#[test]
fn the_elapsed_time_counts_the_engines_start() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(crate::common::book(), dir.path().join("in.dat")).unwrap();
    let slow = format!("sh -c 'sleep 2; exec \"$0\" \"$@\"' {}", solver().display());
    let mut command = bin();
    command.current_dir(dir.path()).env(RUN_TAG, dir.path());
    command.args(["--config", "/dev/null", "fix", "--link", "in.dat", "out.dat", "--workers", "1"]);
    command.args(["--out-dir", "o", "--log-file", "o/log", "--summary", "json", "--engine", &slow]);
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let elapsed = summary["elapsed_seconds"].as_f64().unwrap();
    assert!(elapsed >= 2.0, "the engine's 2 s start left out: {elapsed} s");
}
