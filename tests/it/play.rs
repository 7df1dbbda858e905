//! `play` (SPEC §17.5, docs/policies.md) with the repository's solver: a
//! book of one position without links grows, round after round, the line
//! of its best moves to the end of the game, every value on it plus or
//! minus the position's value by plain negamax; a second run adds nothing.

use crate::common::bin;
use crate::deviate::{one_record_book, position};
use crate::extend::{minimax, solver, stderr, RUN_TAG};
use bookminer::book::Book;
use std::path::Path;

fn play(dir: &Path, input: &str, out: &str, line: &str) -> serde_json::Value {
    let mut command = bin();
    command.current_dir(dir).env(RUN_TAG, dir);
    command.args(["--config", "/dev/null", "play", input, out, "--start", line, "--min-empties", "0"]);
    command.args(["--workers", "1", "--out-dir", "o", "--log-file", "o/log", "--summary", "json", "-q", "--engine"]);
    let output = command.arg(solver()).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn a_position_without_links_grows_its_line_of_best_moves_to_the_end() {
    for seed in [5, 11] {
        let (root, line) = position(10, 0x51_7cc1_b727_220a ^ seed);
        let dir = tempfile::tempdir().unwrap();
        one_record_book(dir.path(), root);
        let summary = play(dir.path(), "in.dat", "out.dat", &line);
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
        let again = play(dir.path(), "out.dat", "again.dat", &line);
        assert_eq!(again["positions_added"], 0, "{again}");
    }
}
