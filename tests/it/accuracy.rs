//! Accuracy grades (SPEC §19.4, docs/egaroucid.md): hand-derived cases of
//! Egaroucid's `Book_accuracy` on `.egbk3` books of two records, a
//! position and one child, graded by the child's level against its empty
//! squares; `inspect --summary json` gives the grade per move and
//! `stats --accuracy` counts them.

use crate::common::bin;
use crate::common::position;
use bookminer::board::{Board, Move, Square};
use bookminer::format::egaroucid::{encode_record, header};
use bookminer::symmetry::normalize;
use std::path::Path;

/// A book of `root` (normalized, level 60, no leaf) and the child of its
/// first legal move at `level`, with no links of its own and no leaf; its
/// path, and the kifu of the move's child from `line`.
fn two_records(dir: &Path, root: Board, line: &str, level: i8) -> (std::path::PathBuf, String, u32) {
    let stored = normalize(&root);
    let square = Square::iter(root.legal_moves()).next().unwrap();
    let child = root.after(Move::Play(square)).unwrap();
    let mut bytes = header(2).to_vec();
    encode_record(&mut bytes, &stored.board, 0, 60, 0, None);
    encode_record(&mut bytes, &normalize(&child).board, 0, level, 0, None);
    let path = dir.join("two.egbk3");
    std::fs::write(&path, bytes).unwrap();
    (path, format!("{line}{square}"), child.empties())
}

/// The grade `inspect --summary json` gives the one move of `line`'s position.
fn graded(book: &Path, line: &str) -> serde_json::Value {
    let out = bin()
        .args(["--config", "/dev/null", "inspect"])
        .arg(book)
        .arg(line)
        .args(["--summary", "json", "-q"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["reports"][0]["links"][0]["accuracy"].clone()
}

#[test]
fn a_move_is_graded_by_the_level_of_what_it_reaches_as_egaroucid_grades_it() {
    // 18 empty squares after the move: level 9 solves 18 (A), level 8
    // solves 16 and searches its endgame at 16 (F); level 60 always (A).
    let (root, line) = position(19, 0x1234_5678_9abc_def1);
    let dir = tempfile::tempdir().unwrap();
    for (level, grade) in [(60, "AA"), (9, "AA"), (8, "F"), (1, "F")] {
        let (book, _, empties) = two_records(dir.path(), root, &line, level);
        assert_eq!(empties, 18);
        assert_eq!(graded(&book, &line), grade, "level {level}");
    }
}

#[test]
fn an_endgame_search_that_is_not_complete_grades_c() {
    // Level 11: complete to 21 empty squares, its endgame search from 25.
    let (root, line) = position(24, 0x0bad_cafe_f00d_0001);
    let dir = tempfile::tempdir().unwrap();
    let (book, _, empties) = two_records(dir.path(), root, &line, 11);
    assert_eq!(empties, 23);
    assert_eq!(graded(&book, &line), "C");
    let out = bin()
        .args(["--config", "/dev/null", "stats"])
        .arg(&book)
        .args(["--accuracy", "--start", &line, "--summary", "json", "-q"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The position itself (its one line graded C) and its child (C).
    assert_eq!(json["accuracy"], serde_json::json!({"C": 2}), "{json}");
}
