//! `check BOOK GAMES...` (SPEC §15.4, docs/games.md) on a book made by
//! hand, whose good, bad and missing moves are worked out below from the
//! rule, and the lines it writes, as a user runs it.

use crate::common::{names_in, run_in, stderr};
use bookminer::board::{Board, Move, Square};
use bookminer::book::{Link, Score};
use bookminer::format::edax::entries::{encode, Entry};
use bookminer::kifu::{parse_and_play, parse_moves};
use bookminer::symmetry::normalize;
use std::fs;
use std::path::Path;

/// A record of `board` with its links and leaf given as played on it.
fn entry(board: Board, links: &[(Move, i32)], leaf: Option<(Move, i32)>) -> Entry {
    let normalized = normalize(&board);
    let stored = |mv: Move| normalized.to_original.inverse().apply_move(mv);
    let mut entry = Entry::new(normalized.board, 0);
    entry.links = links.iter().map(|&(mv, score)| Link::new(Score::new(score), stored(mv))).collect();
    entry.leaf = leaf.map(|(mv, score)| Link::new(Score::new(score), stored(mv)));
    entry
}

fn after(kifu: &str) -> Board {
    parse_and_play(kifu).unwrap().0
}

fn mv(name: &str) -> Move {
    parse_moves(name).unwrap()[0]
}

/// The first legal square at a board other than those named.
fn another_move(board: Board, not: &[&str]) -> Move {
    Square::iter(board.legal_moves()).map(Move::Play).find(|m| !not.iter().any(|n| mv(n) == *m)).unwrap()
}

/// The book, n_empties 56 (Edax checks 61 − 56 = 5 moves a game):
/// * the initial position links F5 (+0) only: F5 is good; E6, its image,
///   is no move the record scores on the board as it lies (Edax maps the
///   record's moves by one symmetry), so E6 is not counted;
/// * after F5 it links D6 (+0) and has the leaf F6 (+2): D6 is bad;
/// * after F5 D6 there is no record: missing;
/// * after F5 D6 C3 it links D3 (+0) alone: good;
/// * after F5 D6 C3 D3 its leaf (+3) is not C4, which it does not score:
///   C4 is not counted.
fn hand_made_book(path: &Path) {
    let entries = [
        entry(Board::INITIAL, &[(mv("F5"), 0)], None),
        entry(after("F5"), &[(mv("D6"), 0)], Some((mv("F6"), 2))),
        entry(after("F5D6C3"), &[(mv("D3"), 0)], None),
        entry(after("F5D6C3D3"), &[], Some((another_move(after("F5D6C3D3"), &["C4"]), 3))),
    ];
    let mut bytes = encode(&entries, 1);
    bytes[22..26].copy_from_slice(&56i32.to_le_bytes());
    fs::write(path, bytes).unwrap();
}

/// Four games: the whole line played on past its fifth move (positions
/// after it are not judged: they would be missing); the same game again
/// (every pair met before); E6 alone; the line cut at its fifth move, D3
/// played where it is taken.
fn games(path: &Path) -> String {
    let mut whole = "F5D6C3D3C4".to_string();
    for _ in 0..2 {
        let next = another_move(after(&whole), &[]);
        whole.push_str(&next.to_string());
    }
    fs::write(path, format!("{whole}\n{whole}\ne6\nf5d6c3d3d3\n")).unwrap();
    whole
}

fn check(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["check", "book.dat", "games.txt", "--out-dir", "out"];
    args.extend(extra);
    run_in(dir, &args)
}

#[test]
fn the_counts_are_edax_s_rule_worked_out_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    hand_made_book(&dir.path().join("book.dat"));
    games(&dir.path().join("games.txt"));
    let out = check(dir.path(), &["-q", "--summary", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let counts: Vec<u64> = ["missing", "good", "bad", "unscored"].iter().map(|k| json[*k].as_u64().unwrap()).collect();
    assert_eq!(counts, [1, 2, 1, 2]);
    assert_eq!(json["bad_percent"].as_f64(), Some(33.33));
    assert_eq!((json["n_empties"].as_i64(), json["moves_a_game"].as_u64()), (Some(56), Some(5)));
    let games: Vec<u64> =
        ["games_read", "games_skipped", "games_cut_short"].iter().map(|k| json[*k].as_u64().unwrap()).collect();
    assert_eq!(games, [4, 0, 1]);
    let human = check(dir.path(), &[]);
    let said = String::from_utf8(human.stdout).unwrap();
    assert!(said.contains("Positions : 1 missing, 2 good, 1 bad (33.33% bad)\n"), "Edax's line: {said}");
}

#[test]
fn the_lines_end_at_the_bad_move_and_at_the_first_missing_position() {
    let dir = tempfile::tempdir().unwrap();
    hand_made_book(&dir.path().join("book.dat"));
    games(&dir.path().join("games.txt"));
    let out = check(dir.path(), &["--format", "kifu,jsonl,obf", "--bom", "false"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let read = |name: &str| fs::read_to_string(dir.path().join("out").join(name)).unwrap();
    assert_eq!(read("check-bad.txt"), "F5D6\n");
    assert_eq!(read("check-missing.txt"), "F5D6\n", "one line, written once for the three games that reach it");
    let bad: serde_json::Value = serde_json::from_str(read("check-bad.jsonl").trim()).unwrap();
    assert_eq!(
        (bad["check"].as_str(), bad["move"].as_str(), bad["score"].as_i64(), bad["best"].as_i64()),
        (Some("bad"), Some("D6"), Some(0), Some(2))
    );
    let missing: serde_json::Value = serde_json::from_str(read("check-missing.jsonl").trim()).unwrap();
    assert_eq!((missing["check"].as_str(), missing["move"].is_null()), (Some("missing"), true));
    assert_eq!((missing["empties"].as_u64(), missing["side"].as_str()), (Some(58), Some("X")));
    assert!(read("check-missing.obf").ends_with(" X; % F5D6\n"));
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(said.contains("check-missing: 1 line written to"), "{said}");
    assert!(said.contains("(2 repeated lines dropped)"), "{said}");
}

/// The names `out/manifest.json` lists, each with the command that wrote
/// it (its own, else the manifest's).
fn listed(dir: &Path) -> Vec<(String, String)> {
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("out/manifest.json")).unwrap()).unwrap();
    let files = manifest["files"].as_array().unwrap().iter();
    let owner =
        |f: &serde_json::Value| f["command"].as_str().unwrap_or(manifest["command"].as_str().unwrap()).to_string();
    let mut listed: Vec<(String, String)> =
        files.map(|f| (f["name"].as_str().unwrap().to_string(), owner(f))).collect();
    listed.sort();
    listed
}

/// Issue 57 item 2: `mine` and `check` share out_dir and its manifest;
/// each run replaces the files a previous run of its own command wrote,
/// and never another command's (check's lines are what `add` reads next).
#[test]
fn mine_and_check_each_replace_only_their_own_files_in_one_folder() {
    let dir = tempfile::tempdir().unwrap();
    hand_made_book(&dir.path().join("book.dat"));
    games(&dir.path().join("games.txt"));
    let mine = |modes: &str| {
        let out = run_in(dir.path(), &["mine", "book.dat", "--mode", modes, "--out-dir", "out"]);
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    mine("1");
    let out = check(dir.path(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let both = ["check-bad.txt", "check-missing.txt", "manifest.json", "mode1.txt"];
    assert_eq!(names_in(&dir.path().join("out")), both, "check leaves mining's file");
    let said = mine("1");
    assert!(!said.contains("removed"), "{said}");
    assert_eq!(names_in(&dir.path().join("out")), both, "mine leaves check's files");
    let owners = listed(dir.path());
    assert_eq!(
        owners,
        [("check-bad.txt", "check"), ("check-missing.txt", "check"), ("mode1.txt", "mine")]
            .map(|(name, command)| (name.to_string(), command.to_string()))
    );
    // A run of the same command still replaces its own set: mode 1's file goes.
    let said = mine("2");
    assert!(said.contains("mode1.txt"), "{said}");
    let now = ["check-bad.txt", "check-missing.txt", "manifest.json", "mode2.txt"];
    assert_eq!(names_in(&dir.path().join("out")), now);
    let out = check(dir.path(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(names_in(&dir.path().join("out")), now, "check leaves mining's file again");
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.path().join("out/manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["command"], "check");
    assert_eq!(manifest["inputs"], serde_json::json!(["book.dat", "games.txt"]));
}

/// Issue 57 item 6: an empty set of check's lines is an empty file, as an
/// empty receipt of `fix` is: no byte-order mark alone.
#[test]
fn an_empty_check_file_has_no_byte() {
    let dir = tempfile::tempdir().unwrap();
    hand_made_book(&dir.path().join("book.dat"));
    fs::write(dir.path().join("games.txt"), "f5\n").unwrap();
    let out = check(dir.path(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(dir.path().join("out/check-bad.txt")).unwrap(), b"", "no bad move: no line, no byte");
    // A file with lines starts with the mark, as a kifu file `mine` writes.
    fs::write(dir.path().join("games.txt"), "f5d6\n").unwrap();
    let out = check(dir.path(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bad = fs::read(dir.path().join("out/check-bad.txt")).unwrap();
    assert!(bad.starts_with(b"\xEF\xBB\xBF") && bad.len() > 3, "{bad:?}");
}

#[test]
fn an_output_over_an_input_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    hand_made_book(&dir.path().join("book.dat"));
    fs::create_dir(dir.path().join("out")).unwrap();
    fs::write(dir.path().join("out/check-bad.txt"), "f5d6\n").unwrap();
    let out = run_in(dir.path(), &["check", "book.dat", "out/check-bad.txt", "--out-dir", "out"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("is a file being read"), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(dir.path().join("out/check-bad.txt")).unwrap(), "f5d6\n");
}

/// Issue 64, point 10: a book whose header's n_empties lets only a move
/// of each game be checked (the sample book's, 60) says so beside Edax's
/// line, which alone reads as a check that found nothing to judge.
#[test]
fn a_header_that_limits_the_check_is_said_to() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(crate::common::sample(), dir.path().join("book.dat")).unwrap();
    fs::write(dir.path().join("games.txt"), "f5d6c3d3c4\nf5f6e6f4\n").unwrap();
    let out = check(dir.path(), &[]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(said.contains("Positions : 0 missing, 1 good, 0 bad"), "{said}");
    let why = "past the header    2 games go on in the book after the 1 move checked: the header's n_empties 60 \
               ends the check there";
    assert!(said.contains(why), "{said}");
}
