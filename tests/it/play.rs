//! `play` (SPEC §17.5, docs/policies.md) with the repository's solver: a
//! book of one position without links grows, round after round, the line
//! of its best moves to the end of the game, every value on it plus or
//! minus the position's value by plain negamax; a second run adds nothing;
//! killed and run again it writes the same book and searches nothing twice.

use crate::common::{bin, killed_and_run_again, minimax, one_record_book, position, run_json, solver, RUN_TAG};
use bookminer::book::Book;
use std::path::Path;
use std::process::Command;

/// `bookminer play IN OUT` from the book's one position, with the solver.
fn play(dir: &Path, input: &str, out: &str, line: &str) -> Command {
    let mut command = bin();
    command.current_dir(dir).env(RUN_TAG, dir);
    command.args(["--config", "/dev/null", "play", input, out, "--start", line, "--min-empties", "0"]);
    command.args(["--workers", "1", "--out-dir", "o", "--log-file", "o/log", "--summary", "json", "-q", "--engine"]);
    command.arg(solver());
    command
}

#[test]
fn a_position_without_links_grows_its_line_of_best_moves_to_the_end() {
    for seed in [5, 11] {
        let (root, line) = position(10, 0x51_7cc1_b727_220a ^ seed);
        let dir = tempfile::tempdir().unwrap();
        one_record_book(dir.path(), root);
        let summary = run_json(&mut play(dir.path(), "in.dat", "out.dat", &line));
        let value = minimax(&root);
        let book = Book::open(&dir.path().join("out.dat"), &Default::default()).unwrap();
        let records: Vec<_> = book.records().collect();
        assert_eq!(summary["positions_added"].as_u64(), Some(records.len() as u64 - 1), "{summary}");
        assert!(records.len() >= 9, "the line to the end: {summary}");
        for record in &records {
            assert_eq!(record.value().discs().abs(), value.abs(), "each position of the line keeps the value");
            // Every position but the game's end has one link: the line goes on.
            let over = record.board().is_game_over();
            assert_eq!(record.links().count(), usize::from(!over), "{:?}", record.board());
        }
        assert_eq!(records.iter().filter(|r| r.board().is_game_over()).count(), 1, "the line ends the game");
        let again = run_json(&mut play(dir.path(), "out.dat", "again.dat", &line));
        assert_eq!(again["positions_added"], 0, "{again}");
    }
}

#[test]
fn one_killed_and_run_again_writes_the_same_book_searching_nothing_twice() {
    let (root, line) = position(12, 0x3c6e_f372_fe94_f82b);
    let whole = tempfile::tempdir().unwrap();
    one_record_book(whole.path(), root);
    let once = run_json(&mut play(whole.path(), "in.dat", "out.dat", &line));
    let searches = once["searches"].as_u64().unwrap() as usize;
    // A leaf asked again within the run is answered by the journal.
    let repeated = once["searches_from_journal"].as_u64().unwrap() as usize;
    assert!(searches >= 10, "{once}");
    let expected = std::fs::read(whole.path().join("out.dat")).unwrap();
    // The book as written once: plain negamax at its root is slow.
    let input = std::fs::read(whole.path().join("in.dat")).unwrap();
    killed_and_run_again(
        |dir| std::fs::write(dir.join("in.dat"), &input).unwrap(),
        |dir| play(dir, "in.dat", "out.dat", &line),
        (searches, repeated),
        &expected,
        |_| {},
    );
}
