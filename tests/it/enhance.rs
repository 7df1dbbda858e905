//! `enhance` (SPEC §17.3, docs/policies.md) with the repository's solver:
//! on a book of one solved position every bound is a value, so a leaf or a
//! link reaches its position's bounds only when it is a best move, and
//! `enhance` must grow every line of best moves plain negamax finds, and
//! stop there; `--rounds 1` expands the one leaf the first round marks; the
//! errors asked are in the header written; killed and run again it writes
//! the same book and searches nothing twice.

use crate::common::{
    assert_each_search_once, best_lines, bin, boards, journal, killed_and_run_again, one_record_book, position,
    run_json, solver, RUN_TAG,
};
use bookminer::book::Book;
use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

/// `bookminer enhance IN OUT` from the book's one position, with the
/// solver, the errors 3 and 5, and `more` arguments.
fn enhance(dir: &Path, (input, out): (&str, &str), line: &str, more: &[&str]) -> Command {
    let mut command = bin();
    command.current_dir(dir).env(RUN_TAG, dir);
    command.args(["--config", "/dev/null", "enhance", input, out, "--midgame-error", "3", "--endgame-error", "5"]);
    command.args(["--min-empties", "0", "--workers", "1", "--start", line]).args(more);
    command.args(["--out-dir", "o", "--log-file", "o/log", "--summary", "json", "-q", "--engine"]).arg(solver());
    command
}

/// The errors an Edax book's header holds: midgame, endcut.
fn header_errors(path: &Path) -> (i32, i32) {
    let book = Book::open(path, &Default::default()).unwrap();
    let header = book.header().edax().unwrap().clone();
    (header.midgame_error, header.endcut_error)
}

#[test]
fn rounds_go_on_until_every_line_of_best_moves_is_grown_and_one_round_does_one() {
    for seed in [3, 17, 29] {
        let (root, line) = position(9, 0x6a09_e667_f3bc_c908 ^ seed);
        let dir = tempfile::tempdir().unwrap();
        one_record_book(dir.path(), root);
        let once = run_json(&mut enhance(dir.path(), ("in.dat", "once.dat"), &line, &["--rounds", "1"]));
        assert_eq!((once["rounds"].as_u64(), once["positions_added"].as_u64()), (Some(1), Some(1)), "{once}");
        assert_eq!(header_errors(&dir.path().join("once.dat")), (3, 5));
        let summary = run_json(&mut enhance(dir.path(), ("in.dat", "out.dat"), &line, &[]));
        let mut expected = HashSet::new();
        best_lines(&root, &mut expected);
        assert_eq!(boards(&dir.path().join("out.dat")), expected, "seed {seed}: {summary}");
        assert_eq!(summary["positions_added"].as_u64(), Some(expected.len() as u64 - 1), "{summary}");
        assert_eq!(header_errors(&dir.path().join("out.dat")), (3, 5));
        // Another round on what it wrote adds nothing.
        let again = run_json(&mut enhance(dir.path(), ("out.dat", "again.dat"), &line, &[]));
        assert_eq!((again["rounds"].as_u64(), again["positions_added"].as_u64()), (Some(0), Some(0)), "{again}");
        assert_each_search_once(&journal(dir.path()));
    }
}

#[test]
fn one_killed_and_run_again_writes_the_same_book_searching_nothing_twice() {
    let (root, line) = position(10, 0xbb67_ae85_84ca_a73b);
    let whole = tempfile::tempdir().unwrap();
    one_record_book(whole.path(), root);
    let once = run_json(&mut enhance(whole.path(), ("in.dat", "out.dat"), &line, &[]));
    let searches = once["searches"].as_u64().unwrap() as usize;
    // A leaf asked again within the run is answered by the journal.
    let repeated = once["searches_from_journal"].as_u64().unwrap() as usize;
    assert!(searches >= 6, "{once}");
    let expected = std::fs::read(whole.path().join("out.dat")).unwrap();
    // The book as written once: plain negamax at its root is slow.
    let input = std::fs::read(whole.path().join("in.dat")).unwrap();
    killed_and_run_again(
        |dir| std::fs::write(dir.join("in.dat"), &input).unwrap(),
        |dir| enhance(dir, ("in.dat", "out.dat"), &line, &[]),
        (searches, repeated),
        &expected,
        |_| {},
    );
}
