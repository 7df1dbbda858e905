//! `deviate` (SPEC §17.2, docs/policies.md) with the repository's solver:
//! from a position of a few empty squares, `--relative 0 --absolute 0`
//! must grow every line on which both sides play only best moves, which
//! plain negamax finds by itself; a second run adds nothing; killed and
//! run again it writes the same book and searches nothing twice.

use crate::common::{
    assert_each_search_once, best_lines, bin, boards, journal, killed_and_run_again, one_record_book, position,
    run_json, solver, RUN_TAG,
};
use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

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

#[test]
fn with_no_error_allowed_every_line_of_best_moves_is_grown_and_nothing_else() {
    for seed in [3, 17, 29] {
        let (root, line) = position(9, 0x9e37_79b9_7f4a_7c15 ^ seed);
        let dir = tempfile::tempdir().unwrap();
        one_record_book(dir.path(), root);
        let summary = run_json(&mut deviate(dir.path(), "out.dat", ["0", "0"], &line));
        let mut expected = HashSet::new();
        best_lines(&root, &mut expected);
        assert_eq!(boards(&dir.path().join("out.dat")), expected, "seed {seed}: {summary}");
        assert_eq!(summary["positions_added"].as_u64(), Some(expected.len() as u64 - 1), "{summary}");
        // What it wrote is where the next run stops: nothing more to grow.
        std::fs::rename(dir.path().join("out.dat"), dir.path().join("in.dat")).unwrap();
        let again = run_json(&mut deviate(dir.path(), "again.dat", ["0", "0"], &line));
        assert_eq!(again["positions_added"], 0, "{again}");
        assert_each_search_once(&journal(dir.path()));
    }
}

#[test]
fn a_second_run_adds_nothing_and_one_killed_writes_the_same_book_searching_nothing_twice() {
    let (root, line) = position(10, 0x2545_f491_4f6c_dd1d);
    let whole = tempfile::tempdir().unwrap();
    one_record_book(whole.path(), root);
    // The one-record book, copied into each killed run's folder (plain
    // negamax at its root is slow, so it is made once).
    let input = std::fs::read(whole.path().join("in.dat")).unwrap();
    let once = run_json(&mut deviate(whole.path(), "out.dat", ["2", "4"], &line));
    let searches = once["searches"].as_u64().unwrap() as usize;
    // A leaf asked again within the run is answered by the journal.
    let repeated = once["searches_from_journal"].as_u64().unwrap() as usize;
    assert!(searches >= 10, "{once}");
    let expected = std::fs::read(whole.path().join("out.dat")).unwrap();
    std::fs::copy(whole.path().join("out.dat"), whole.path().join("in.dat")).unwrap();
    let again = run_json(&mut deviate(whole.path(), "again.dat", ["2", "4"], &line));
    assert_eq!(again["positions_added"], 0, "{again}");
    killed_and_run_again(
        |dir| std::fs::write(dir.join("in.dat"), &input).unwrap(),
        |dir| deviate(dir, "out.dat", ["2", "4"], &line),
        (searches, repeated),
        &expected,
        |_| {},
    );
}
