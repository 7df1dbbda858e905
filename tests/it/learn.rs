//! `learn` and `recalculate` (SPEC §19, docs/learn.md) with the
//! repository's solver on `.egbk3` books of one record: with no error
//! allowed, Egaroucid's book deviate grows exactly the lines on which both
//! sides play only best moves, every position valued as plain negamax
//! values it; `recalculate` searches again exactly the leaves below the
//! level; killed and run again, `learn` writes the same book and searches
//! nothing twice.

use crate::common::run_json as run;
use crate::common::{assert_each_search_once, journal, minimax, solver, RUN_TAG};
use crate::common::{best_lines, bin, killed_and_run_again_into, position};
use bookminer::board::{Board, Move, Square};
use bookminer::book::{Link, Score};
use bookminer::format::egaroucid::{encode_record, header};
use bookminer::symmetry::normalize;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

/// A book of one record: `root` (normalized), at `level`, its leaf its
/// best move as plain negamax scores it (or none); as `in.egbk3` in `dir`.
fn one_record_book(dir: &Path, root: Board, level: i8, leaf: bool) {
    let (score, square) = Square::iter(root.legal_moves())
        .map(|s| (-minimax(&root.after(Move::Play(s)).unwrap()), s))
        .max_by_key(|&(score, _)| score)
        .unwrap();
    let normalized = normalize(&root);
    let mv = normalized.to_original.inverse().apply_move(Move::Play(square));
    let mut bytes = header(1).to_vec();
    let leaf = leaf.then(|| Link::new(Score::new(score), mv));
    encode_record(&mut bytes, &normalized.board, score as i8, level, 0, leaf);
    std::fs::write(dir.join("in.egbk3"), bytes).unwrap();
}

/// Every record of an `.egbk3` book: board → (value, level, leaf value, leaf move, leaf level).
fn records(path: &Path) -> HashMap<Board, (i8, i8, i8, u8, i8)> {
    let bytes = std::fs::read(path).unwrap();
    let word = |r: &[u8], at: usize| u64::from_le_bytes(r[at..at + 8].try_into().unwrap());
    bytes[14..]
        .chunks(25)
        .map(|r| (Board::new(word(r, 0), word(r, 8)), (r[16] as i8, r[17] as i8, r[22] as i8, r[23], r[24] as i8)))
        .collect()
}

/// `bookminer learn|recalculate in.egbk3 OUT` with the solver, one worker.
fn learning(dir: &Path, command: &str, out: &str, extra: &[&str]) -> Command {
    learning_from(dir, command, ("in.egbk3", out), extra)
}

/// `bookminer learn|recalculate IN OUT` with the solver, one worker.
fn learning_from(dir: &Path, command: &str, (input, out): (&str, &str), extra: &[&str]) -> Command {
    let mut c = bin();
    c.current_dir(dir).env(RUN_TAG, dir);
    c.args(["--config", "/dev/null", command, input, out, "--workers", "1"]);
    c.args(["--out-dir", "o", "--log-file", "o/log", "--summary", "json", "-q", "--engine"]).arg(solver());
    c.args(extra);
    c
}

/// The positions on the lines of best moves from `root`, as an Egaroucid
/// book stores them: a side that must pass after its pass.
fn stored_best_lines(root: &Board) -> HashSet<Board> {
    let mut lines = HashSet::new();
    best_lines(root, &mut lines);
    lines.into_iter().map(|b| normalize(&if b.must_pass() { b.swapped() } else { b }).board).collect()
}

#[test]
fn with_no_error_allowed_learn_grows_every_line_of_best_moves_valued_exactly() {
    for seed in [5, 23] {
        let (root, line) = position(9, 0x9e37_79b9_7f4a_7c15 ^ seed);
        let dir = tempfile::tempdir().unwrap();
        one_record_book(dir.path(), root, 60, true);
        let errors = ["--error-per-move", "0", "--error-sum", "0", "--leaf-error", "0", "--start", &line];
        let summary = run(&mut learning(dir.path(), "learn", "out.egbk3", &errors));
        let book = records(&dir.path().join("out.egbk3"));
        let boards: HashSet<Board> = book.keys().copied().collect();
        assert_eq!(boards, stored_best_lines(&root), "seed {seed}: {summary}");
        for (board, &(value, level, ..)) in &book {
            assert_eq!(i32::from(value), minimax(board), "seed {seed}: {board:?}");
            assert_eq!(level, 60, "seed {seed}: the level of the book's start record");
        }
        assert_eq!(summary["level"], 60, "{summary}");
        assert_eq!(summary["level_from_book"], true, "{summary}");
        assert_eq!(summary["positions_added"].as_u64(), Some(book.len() as u64 - 1), "{summary}");
        assert_each_search_once(&journal(dir.path()));
    }
}

#[test]
fn recalculate_searches_again_the_leaves_below_the_level_and_only_those() {
    let (root, line) = position(8, 0x2545_f491_4f6c_dd1d);
    let dir = tempfile::tempdir().unwrap();
    // The start at level 10, its leaf absent: illegal, and below 12.
    one_record_book(dir.path(), root, 10, false);
    let summary = run(&mut learning(dir.path(), "recalculate", "out.egbk3", &["--level", "12", "--start", &line]));
    assert_eq!(summary["leaves_searched_again"], serde_json::json!([1]), "{summary}");
    let book = records(&dir.path().join("out.egbk3"));
    let (value, level, leaf_value, leaf_move, leaf_level) = book[&normalize(&root).board];
    // The value and level stay; the leaf is the best move, searched at 12.
    assert_eq!((value, level, leaf_level), (value, 10, 12), "{summary}");
    assert_eq!(i32::from(leaf_value), minimax(&root), "{summary}");
    let stored = normalize(&root).board;
    let child = stored.after(Move::Play(Square::new(leaf_move).unwrap())).unwrap();
    assert_eq!(-minimax(&child), minimax(&root), "the leaf is a best move");
    // At its own level now, the leaf is left alone.
    std::fs::rename(dir.path().join("out.egbk3"), dir.path().join("in.egbk3")).unwrap();
    let again = run(&mut learning(dir.path(), "recalculate", "again.egbk3", &["--level", "12", "--start", &line]));
    assert_eq!(again["leaves_searched_again"], serde_json::json!([0]), "{again}");
    assert_eq!(again["searches"], 0, "{again}");
}

#[test]
fn learn_killed_and_run_again_writes_the_same_book_searching_nothing_twice() {
    let (root, line) = position(10, 0x51_7cc1_b727_220a);
    let whole = tempfile::tempdir().unwrap();
    one_record_book(whole.path(), root, 60, true);
    let args = ["--start", line.as_str()];
    let once = run(&mut learning(whole.path(), "learn", "out.egbk3", &args));
    let searches = once["searches"].as_u64().unwrap() as usize;
    let repeated = once["searches_from_journal"].as_u64().unwrap() as usize;
    assert!(searches >= 10, "{once}");
    let expected = std::fs::read(whole.path().join("out.egbk3")).unwrap();
    killed_and_run_again_into(
        "out.egbk3",
        |dir| one_record_book(dir, root, 60, true),
        |dir| learning(dir, "learn", "out.egbk3", &["--start", &line]),
        (searches, repeated),
        &expected,
        |_| {},
    );
}

#[test]
fn learn_reads_an_edax_book_and_writes_the_format_out_s_name_says() {
    let (root, line) = position(9, 0x9e37_79b9_7f4a_7c15 ^ 5);
    let dir = tempfile::tempdir().unwrap();
    crate::common::one_record_book(dir.path(), root);
    let errors = ["--error-per-move", "0", "--error-sum", "0", "--leaf-error", "0", "--start", &line];
    let learned = |input: &str, out: &str| run(&mut learning_from(dir.path(), "learn", (input, out), &errors));
    // Edax in, .egbk3 out: the lines of best moves, each valued exactly.
    let summary = learned("in.dat", "out.egbk3");
    assert_eq!(summary["converted_in"]["records_written"], 1, "{summary}");
    assert!(summary["converted_out"].is_null(), "{summary}");
    assert_eq!(summary["level"], 60, "the Edax record's level: {summary}");
    let book = records(&dir.path().join("out.egbk3"));
    let boards: HashSet<Board> = book.keys().copied().collect();
    assert_eq!(boards, stored_best_lines(&root), "{summary}");
    for (board, &(value, ..)) in &book {
        assert_eq!(i32::from(value), minimax(board), "{board:?}");
    }
    // The same bytes as learn on the book `convert` makes of it.
    let converted =
        bin().current_dir(dir.path()).args(["--config", "/dev/null", "-q", "convert", "in.dat", "in.egbk3"]).status();
    assert!(converted.unwrap().success());
    run(&mut learning(dir.path(), "learn", "ref.egbk3", &errors));
    let bytes = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    assert_eq!(bytes("out.egbk3"), bytes("ref.egbk3"));
    // Edax in, Edax out: every position of the lines, valued exactly.
    let summary = learned("in.dat", "out.dat");
    assert_eq!(summary["searches"], 0, "every answer in the journal: {summary}");
    assert_eq!(summary["converted_out"]["records_written"], summary["records_written"], "{summary}");
    let edax = bookminer::book::Book::open(&dir.path().join("out.dat"), &Default::default()).unwrap();
    assert_eq!(edax.format(), bookminer::format::Format::Edax);
    for board in stored_best_lines(&root) {
        let record = edax.find(&board).unwrap_or_else(|| panic!("{board:?} in out.dat: {summary}"));
        assert_eq!(record.value.discs(), minimax(&board), "{board:?}");
    }
}

#[test]
fn learn_refuses_an_out_whose_name_says_no_format_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (root, _) = position(9, 7);
    crate::common::one_record_book(dir.path(), root);
    let mut c = bin();
    c.current_dir(dir.path()).args(["--config", "/dev/null", "learn", "in.dat", "out.txt", "--engine"]).arg(solver());
    let output = c.output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("out.txt: cannot tell the format to write from the name"), "{stderr}");
}
