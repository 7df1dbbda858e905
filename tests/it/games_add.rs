//! `new` and `add` end to end (SPEC §15.2, §15.3), with the exact solver
//! of `examples/solver.rs` as the engine, as `extend`'s tests use it.
//!
//! The book is `tests/data/books/endgames-extend.dat` (level 60, header
//! n_empties 14: a game is played for 46 squares and positions of 13
//! empty squares or more are taken). Its records lie along a few lines
//! from the initial position, [`START`] among them, so that games along
//! START that go on a few squares past it add only positions of 17 empty
//! squares or fewer, which the solver solves at once.

use crate::common::{
    assert_no_engine_left, bin, book, journal, journal_of_the_initial_position, run, solver, stderr, summary, RUN_TAG,
    START,
};
use bookminer::board::{Board, Move, Square};
use bookminer::format::edax;
use bookminer::kifu::play;
use bookminer::symmetry::normalize;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The squares of a line written as text.
fn squares(text: &str) -> Vec<Square> {
    text.as_bytes().chunks(2).map(|c| Square::parse(std::str::from_utf8(c).unwrap()).unwrap()).collect()
}

/// The board `line` reaches from the initial position.
fn board_of(line: &str) -> Board {
    play(&squares(line)).unwrap().0
}

/// `bookminer add IN GAMES OUT` in `dir` with the solver (two workers
/// unless `extra` says), journal in `o`.
fn add(dir: &Path, games: &str, out: &str, extra: &[&str]) -> Command {
    let mut command = bin();
    command.current_dir(dir).args(["--config", "/dev/null", "add"]).arg(book()).arg(games).arg(out);
    if !extra.contains(&"--workers") {
        command.args(["--workers", "2"]);
    }
    command.args(["--out-dir", "o"]).arg("--engine").arg(solver()).args(extra).env(RUN_TAG, dir);
    command
}

/// A record of an Edax book: board, value, links (score, move), leaf
/// (score, move) and level.
type Held = (Board, i32, Vec<(i32, Move)>, Option<bookminer::book::Leaf>, u8);

/// Every record of an Edax book, in file order.
fn records(path: &Path) -> Vec<Held> {
    let bytes = std::fs::read(path).unwrap();
    edax::records(&bytes)
        .map(Result::unwrap)
        .map(|(_, _, raw)| {
            let links = (0..raw.n_links())
                .filter_map(|i| raw.link_at(bookminer::book::MoveSlot::Link(i)))
                .map(|l| (l.score.discs(), l.mv))
                .collect();
            (raw.board(), raw.value().discs(), links, raw.leaf(), raw.level())
        })
        .collect()
}

/// The game's value for the side to move at `board`, by alpha-beta to
/// the end of the game: the slow reference (plain negamax is too slow at
/// 17 empty squares).
fn solved(board: &Board) -> i32 {
    alpha_beta(board, -64, 64)
}

fn alpha_beta(board: &Board, mut alpha: i32, beta: i32) -> i32 {
    let moves = board.legal_moves();
    if moves == 0 {
        let passed = board.swapped();
        return if passed.has_moves() { -alpha_beta(&passed, -beta, -alpha) } else { board.final_score() };
    }
    let mut best = -65;
    for square in Square::iter(moves) {
        let score = -alpha_beta(&board.after(Move::Play(square)).unwrap(), -beta, -alpha);
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The game `START` then `more` (squares), a line of a .txt game file.
fn game(more: &str) -> String {
    format!("{START}{more}\n")
}

#[test]
fn a_game_past_the_book_adds_its_new_positions_last_first_with_their_exact_values() {
    let dir = tempfile::tempdir().unwrap();
    // H3 leaves the book's line at START (18 empty squares); then G7.
    std::fs::write(dir.path().join("g.txt"), game("h3g7")).unwrap();
    let out = run(add(dir.path(), "g.txt", "out.dat", &[]));
    assert!(out.status.success(), "{}", stderr(&out));
    let read = records(&book());
    let written = records(&dir.path().join("out.dat"));
    assert_eq!(written.len(), read.len() + 2, "the two positions past the book");
    let boards: Vec<Board> = written.iter().map(|r| r.0).collect();
    let read_boards: Vec<Board> = read.iter().map(|r| r.0).collect();
    assert_eq!(boards[..read.len()], read_boards[..], "IN's records first, in IN's order");
    let (after_h3, after_g7) = (board_of(&format!("{START}h3")), board_of(&format!("{START}h3g7")));
    assert_eq!(boards[read.len()], normalize(&after_g7).board, "the last position first");
    assert_eq!(boards[read.len() + 1], normalize(&after_h3).board);
    // Every search exact, and P1 reached from the initial position: each
    // new value is the game's value there.
    let p2 = &written[read.len()];
    let p1 = &written[read.len() + 1];
    assert_eq!(p2.1, solved(&after_g7));
    assert_eq!(p1.1, solved(&after_h3));
    assert_eq!((p1.4, p2.4), (60, 60), "the book's level");
    assert!(p2.2.is_empty(), "no child of P2 in the book");
    assert_eq!(p1.2.len(), 1, "P1 links its child in the game");
    let g7 = normalize(&after_h3).to_original.inverse().apply_move(Move::Play(Square::parse("g7").unwrap()));
    assert_eq!(p1.2[0], (-p2.1, g7), "linked by the move played, scored by minus its child's value");
    assert_ne!(p1.3.and_then(|leaf| leaf.mv), Some(g7), "P1's leaf is another move than its link");
    // START, in the book, gets the link to P1.
    let start = normalize(&board_of(START));
    let h3 = start.to_original.inverse().apply_move(Move::Play(Square::parse("h3").unwrap()));
    let at_start = written.iter().find(|r| r.0 == start.board).unwrap();
    assert!(at_start.2.contains(&(-p1.1, h3)), "{:?}", at_start.2);
    assert_eq!(summary(&out, "positions added"), "positions added      2");
    assert_eq!(summary(&out, "links added"), "links added          2");
    // 44 squares played, each position at 16 empty squares or more.
    assert_eq!(summary(&out, "positions met"), "positions met        44");
    assert_eq!(journal(dir.path()).len(), 2, "a search for each new position");
    assert_no_engine_left(dir.path());
}

#[test]
fn a_game_that_stays_in_the_book_adds_nothing_and_searches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), game("")).unwrap();
    let out = run(add(dir.path(), "g.txt", "out.dat", &["--summary", "json"]));
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["command"], "add");
    assert_eq!(json["games_read"], 1);
    assert_eq!(json["positions_met"], 42);
    assert_eq!(json["positions_added"], 0);
    assert_eq!(json["searches"], 0);
    assert_eq!(records(&dir.path().join("out.dat")).len(), records(&book()).len());
}

/// Games along START that go on past it, each by two squares of the
/// first moves there: enough searches for a run to be killed in the
/// middle of them.
fn many_games() -> String {
    let start = board_of(START);
    let mut text = String::new();
    for first in Square::iter(start.legal_moves()) {
        let after = start.after(Move::Play(first)).unwrap();
        for second in Square::iter(after.legal_moves()).take(3) {
            text.push_str(&game(&format!("{first}{second}")));
        }
    }
    text
}

#[test]
fn a_run_killed_and_run_again_writes_the_book_of_a_run_never_interrupted() {
    let games = many_games();
    let whole = tempfile::tempdir().unwrap();
    std::fs::write(whole.path().join("g.txt"), &games).unwrap();
    let out = run(add(whole.path(), "g.txt", "out.dat", &[]));
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = std::fs::read(whole.path().join("out.dat")).unwrap();
    let searches = journal(whole.path()).len();
    assert!(searches > 20, "{searches} searches");
    for n in [1, searches / 2] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("g.txt"), &games).unwrap();
        let mut child =
            add(dir.path(), "g.txt", "out.dat", &[]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        while journal(dir.path()).len() < n {
            assert!(Instant::now() < deadline, "the journal never reached {n} answers");
            assert!(child.try_wait().unwrap().is_none(), "the run ended before {n} answers");
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        assert_no_engine_left(dir.path());
        assert!(!dir.path().join("out.dat").exists(), "no OUT from a killed run");
        let before = journal(dir.path()).len();
        let again = run(add(dir.path(), "g.txt", "out.dat", &[]));
        assert!(again.status.success(), "{}", stderr(&again));
        assert_eq!(std::fs::read(dir.path().join("out.dat")).unwrap(), expected, "killed after {n} answers");
        let taken = summary(&again, "searches");
        assert!(taken.contains(&format!(" {before} taken from")), "{taken} (journal held {before})");
        assert_eq!(journal(dir.path()).len(), searches, "no search made twice");
    }
}

#[test]
fn searches_asked_of_every_worker_at_once_write_the_book_of_one_worker() {
    let games = many_games();
    let books: Vec<(Vec<u8>, usize)> = ["1", "4"]
        .iter()
        .map(|workers| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("g.txt"), &games).unwrap();
            let out = run(add(dir.path(), "g.txt", "out.dat", &["--workers", workers]));
            assert!(out.status.success(), "{}", stderr(&out));
            (std::fs::read(dir.path().join("out.dat")).unwrap(), journal(dir.path()).len())
        })
        .collect();
    assert!(books[0].1 > 20, "{} searches", books[0].1);
    assert_eq!(books[0], books[1], "the same book, the same number of searches");
}

#[test]
fn a_level_and_depth_given_for_an_edax_book_are_left_aside_with_a_warning() {
    let books: Vec<(Vec<u8>, String)> = [&[][..], &["--level", "5", "--depth", "30"][..]]
        .iter()
        .map(|extra| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("g.txt"), game("h3")).unwrap();
            let out = run(add(dir.path(), "g.txt", "out.dat", extra));
            assert!(out.status.success(), "{}", stderr(&out));
            (std::fs::read(dir.path().join("out.dat")).unwrap(), stderr(&out))
        })
        .collect();
    assert_eq!(books[0].0, books[1].0, "the book written as without them");
    assert!(!books[0].1.contains("left aside"), "{}", books[0].1);
    let said = &books[1].1;
    assert!(said.contains("warn: level 5 left aside: an Edax book's positions take its header's level"), "{said}");
    assert!(said.contains("warn: depth 30 left aside"), "{said}");
}

#[test]
fn a_kifu_file_with_the_byte_order_mark_mine_writes_adds_every_game() {
    let games = many_games();
    let lines = games.lines().count() as u64;
    let runs: Vec<(Vec<u8>, serde_json::Value)> = ["", "\u{feff}"]
        .iter()
        .map(|mark| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("g.txt"), format!("{mark}{games}")).unwrap();
            let out = run(add(dir.path(), "g.txt", "out.dat", &["--summary", "json"]));
            assert!(out.status.success(), "{}", stderr(&out));
            (std::fs::read(dir.path().join("out.dat")).unwrap(), serde_json::from_slice(&out.stdout).unwrap())
        })
        .collect();
    let marked = &runs[1].1;
    assert_eq!(marked["games_read"].as_u64(), Some(lines), "{marked}");
    assert_eq!(marked["games_cut_short"].as_u64(), Some(0), "{marked}");
    assert_eq!(runs[0].0, runs[1].0, "the book written without the mark");
}

#[test]
fn an_existing_out_is_refused_without_force() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), game("h3")).unwrap();
    std::fs::write(dir.path().join("out.dat"), b"mine").unwrap();
    let out = run(add(dir.path(), "g.txt", "out.dat", &[]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("out.dat"), "{}", stderr(&out));
    assert_eq!(std::fs::read(dir.path().join("out.dat")).unwrap(), b"mine");
    assert!(!dir.path().join("o/extend.jsonl").exists(), "refused before any search");
    let forced = run(add(dir.path(), "g.txt", "out.dat", &["--force"]));
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert_eq!(records(&dir.path().join("out.dat")).len(), records(&book()).len() + 1);
}

#[test]
fn a_game_file_of_no_format_read_is_refused_before_the_book_is_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.edx"), game("h3")).unwrap();
    let out = run(add(dir.path(), "g.edx", "out.dat", &[]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("g.edx"), "{}", stderr(&out));
    assert!(!dir.path().join("out.dat").exists());
}

/// `bookminer new OUT` in `dir`, the solver greeted, journal in `o`.
fn new(dir: &Path, out: &str, extra: &[&str]) -> Command {
    let mut command = bin();
    command.current_dir(dir).args(["--config", "/dev/null", "new", out, "--workers", "1", "--out-dir", "o"]);
    command.arg("--engine").arg(solver()).args(extra).env(RUN_TAG, dir).env("SOURCE_DATE_EPOCH", "0");
    command
}

#[test]
fn new_writes_the_initial_position_with_its_leaf_as_edax_book_new_does() {
    let dir = tempfile::tempdir().unwrap();
    // The stored initial position: d3 is one of its four (equal) moves.
    journal_of_the_initial_position(dir.path(), 10, "D3", 2);
    let out = run(new(dir.path(), "n.dat", &["--level", "10", "--depth", "20"]));
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(dir.path().join("n.dat")).unwrap();
    let header = edax::parse_header(&bytes).unwrap();
    assert_eq!((header.version, header.release), (4, 6));
    assert_eq!(header.date, (1970, 1, 1, 0, 0, 0), "SOURCE_DATE_EPOCH");
    assert_eq!((header.level, header.n_empties), (10, 41), "n_empties 61 - depth");
    assert_eq!((header.midgame_error, header.endcut_error, header.verbosity), (2, 1, 0), "as Edax's book_new");
    assert_eq!(header.n_nodes, 1);
    let written = records(&dir.path().join("n.dat"));
    assert_eq!(written.len(), 1);
    let (board, value, links, leaf, level) = &written[0];
    assert_eq!(*board, normalize(&Board::INITIAL).board);
    assert_eq!((*value, links.len(), *level), (2, 0, 10));
    let d3 = Move::Play(Square::parse("d3").unwrap());
    assert_eq!(*leaf, Some(bookminer::book::Leaf::new(bookminer::book::Score::new(2), Some(d3))));
    let raw = edax::records(&bytes).next().unwrap().unwrap().2;
    assert_eq!(raw.counts(), [0; 4]);
    assert_eq!((raw.bounds().0.discs(), raw.bounds().1.discs()), (-127, 127), "bounds unknown until a negamax");
    assert!(summary(&out, "searches").contains(" 1 taken from"), "{}", summary(&out, "searches"));
    let again = run(new(dir.path(), "n.dat", &["--level", "10", "--depth", "20"]));
    assert_eq!(again.status.code(), Some(2), "an existing OUT is refused without --force");
}

#[test]
fn new_writes_an_egaroucid_book_for_an_egbk3_name() {
    let dir = tempfile::tempdir().unwrap();
    journal_of_the_initial_position(dir.path(), 21, "D3", 0);
    let out = run(new(dir.path(), "n.egbk3", &[]));
    assert!(out.status.success(), "{}", stderr(&out));
    let book = bookminer::book::Book::open(&dir.path().join("n.egbk3"), &Default::default()).unwrap();
    assert_eq!(book.format(), bookminer::book::Format::Egbk3);
    assert_eq!(book.counts().positions, 1);
    assert!(book.locate(&normalize(&Board::INITIAL).board).is_some());
}

/// Issue 62: an Egaroucid book's level is its initial record's: `new
/// --level` writes it there, and `add` searches new positions at it unless
/// --level says otherwise, naming it before any search.
#[test]
fn add_to_an_egaroucid_book_searches_at_the_level_new_gave_it_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    journal_of_the_initial_position(dir.path(), 3, "D3", 0);
    let out = run(new(dir.path(), "n.egbk3", &["--level", "3"]));
    assert!(out.status.success(), "{}", stderr(&out));
    let book = bookminer::book::Book::open(&dir.path().join("n.egbk3"), &Default::default()).unwrap();
    assert_eq!(book.find(&normalize(&Board::INITIAL).board).unwrap().level, 3, "new --level is in the record");
    // A game whose first move is not legal: nothing to search, the level said all the same.
    std::fs::write(dir.path().join("g.txt"), "a1\n").unwrap();
    let mut add = bin();
    add.current_dir(dir.path()).args(["--config", "/dev/null", "add", "n.egbk3", "g.txt", "n1.egbk3"]);
    add.args(["--workers", "1", "--out-dir", "o"]).arg("--engine").arg(solver()).env(RUN_TAG, dir.path());
    let out = run(add);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("add: new positions searched at level 3 (the initial position's record's"),
        "{}",
        stderr(&out)
    );
    let help = String::from_utf8(
        run({
            let mut c = bin();
            c.args(["add", "--help"]);
            c
        })
        .stdout,
    )
    .unwrap();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("(default: its initial position's record's)"), "{help}");
}
