//! `merge` end to end (docs/merge.md): against `fix` (a book merged with
//! itself), against `extend` (a book merged with its own extension holds
//! what the extension holds), against counts published for a real Edax
//! book (the moves Edax leaves unlinked), and against books made by hand
//! for each branch of the rule. Engines are the exact solver of
//! `examples/solver.rs`.

use crate::common::{assert_no_engine_left, bin, book as extend_book, data, edax46, run_in, solver, stderr};
use bookminer::board::{Board, Move, Square};
use bookminer::book::{Book, Link, Score};
use bookminer::format::edax::entries::{encode, Entry};
use bookminer::format::edax::records;
use bookminer::symmetry::normalize;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `bookminer merge A B OUT` in `dir`, out_dir `o`, with `extra` flags.
fn merge(dir: &Path, a: &Path, b: &Path, out: &str, extra: &[&str]) -> Command {
    let mut command = bin();
    command.current_dir(dir).args(["--config", "/dev/null", "merge"]).arg(a).arg(b).arg(out);
    command.args(["--out-dir", "o", "--summary", "json"]).args(extra).env(crate::common::RUN_TAG, dir);
    command
}

fn ran(mut command: Command) -> Output {
    let out = command.output().expect("bookminer runs");
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

fn summary(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("a JSON summary")
}

fn receipt(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("o/merge.jsonl")).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Board → (value, lower, upper, level) of every record of an Edax book.
fn edax_values(path: &Path) -> HashMap<Board, (i32, i32, i32, u8)> {
    let bytes = std::fs::read(path).unwrap();
    let all = records(&bytes).map(Result::unwrap).map(|(_, _, raw)| {
        let (lower, upper) = raw.bounds();
        (raw.board(), (raw.value().discs(), lower.discs(), upper.discs(), raw.level()))
    });
    all.collect()
}

/// `extend` of the extend book from [`START`] with the solver, into `dir/name`.
fn extended(dir: &Path, name: &str) -> PathBuf {
    ran(crate::common::extend(dir, &extend_book(), name, &["--out-dir", "ox", "-q"]));
    dir.join(name)
}

#[test]
fn a_book_merged_with_itself_is_its_fix_byte_for_byte() {
    for book in [edax46(), data("books/edax-endgames-perturbed.dat"), data("books/edax-ray-l1-mut1.dat")] {
        let dir = tempfile::tempdir().unwrap();
        assert!(run_in(dir.path(), &["fix", book.to_str().unwrap(), "fixed.dat", "-q"]).status.success());
        let out = ran(merge(dir.path(), &book, &book, "merged.dat", &[]));
        let fixed = std::fs::read(dir.path().join("fixed.dat")).unwrap();
        assert_eq!(std::fs::read(dir.path().join("merged.dat")).unwrap(), fixed, "{}", book.display());
        let s = summary(&out);
        assert_eq!(s["conflicts"], 0);
        assert_eq!(s["boards_alike"], s["positions_a"]);
        assert!(receipt(dir.path()).is_empty(), "no conflict, no stale leaf");
    }
}

#[test]
fn a_book_merged_with_its_extension_holds_the_extension_in_either_format() {
    let dir = tempfile::tempdir().unwrap();
    let grown = extended(dir.path(), "grown.dat");
    let expected = edax_values(&grown);
    ran(merge(dir.path(), &extend_book(), &grown, "merged.dat", &[]));
    assert_eq!(edax_values(&dir.path().join("merged.dat")), expected);
    // B as Egaroucid stores it: converted back to Edax for the merge.
    assert!(run_in(dir.path(), &["convert", "grown.dat", "grown.egbk3", "-q"]).status.success());
    let out = ran(merge(dir.path(), &extend_book(), &dir.path().join("grown.egbk3"), "merged2.dat", &[]));
    assert!(!summary(&out)["converted_b"].is_null());
    let values = |map: HashMap<Board, (i32, i32, i32, u8)>| -> HashMap<Board, i32> {
        map.into_iter().map(|(board, v)| (board, v.0)).collect()
    };
    assert_eq!(values(edax_values(&dir.path().join("merged2.dat"))), values(expected.clone()));
    // And OUT an .egbk3: the same boards and values as B converted.
    ran(merge(dir.path(), &extend_book(), &dir.path().join("grown.egbk3"), "merged.egbk3", &[]));
    let held = |path: &Path| -> HashMap<Board, i32> {
        let book = Book::open(path, &Default::default()).unwrap();
        book.records().map(|r| (r.board(), r.value().discs())).collect()
    };
    assert_eq!(held(&dir.path().join("merged.egbk3")), held(&dir.path().join("grown.egbk3")));
}

/// Every record's level set to `level`, in a copy of an Edax book.
fn with_level(from: &Path, to: &Path, level: u8) {
    let mut bytes = std::fs::read(from).unwrap();
    let mut at = 42;
    while at < bytes.len() {
        let n_links = usize::from(bytes[at + 38]);
        bytes[at + 39] = level;
        at += 42 + 2 * n_links;
    }
    std::fs::write(to, bytes).unwrap();
}

#[test]
fn stale_leaves_searched_again_give_what_the_extension_holds() {
    let dir = tempfile::tempdir().unwrap();
    let grown = extended(dir.path(), "grown.dat");
    // B's records below A's level: A's are kept, and the leaves extend
    // linked in B are stale in them.
    with_level(&grown, &dir.path().join("low.dat"), 59);
    let out = ran(merge(
        dir.path(),
        &extend_book(),
        &dir.path().join("low.dat"),
        "merged.dat",
        &["--engine", solver().to_str().unwrap()],
    ));
    let s = summary(&out);
    assert!(s["stale_leaves"].as_u64().unwrap() > 0, "{s}");
    assert_eq!(s["stale_searched"], s["stale_leaves"]);
    assert_eq!(s["conflicts_by_level"], s["conflicts"]);
    let values = |map: HashMap<Board, (i32, i32, i32, u8)>| -> HashMap<Board, i32> {
        map.into_iter().map(|(board, v)| (board, v.0)).collect()
    };
    assert_eq!(values(edax_values(&dir.path().join("merged.dat"))), values(edax_values(&grown)));
    let stale: Vec<_> = receipt(dir.path()).into_iter().filter(|l| l.get("stale").is_some()).collect();
    assert_eq!(stale.len() as u64, s["stale_leaves"].as_u64().unwrap());
    for line in &stale {
        assert_eq!(line["kept"], "A");
        assert_eq!(line["by"], "level");
        assert_ne!(line["leaf"][0], line["stale"][0], "a new move: the old one is a link now");
    }
    assert_no_engine_left(dir.path());
}

/// Waits until `dir/o/extend.jsonl` holds `n` lines.
fn wait_for_journal(child: &mut std::process::Child, dir: &Path, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let text = std::fs::read_to_string(dir.join("o/extend.jsonl")).unwrap_or_default();
        if text.split_inclusive('\n').filter(|l| l.ends_with('\n')).count() >= n {
            return;
        }
        assert!(Instant::now() < deadline, "the journal never reached {n} answers");
        assert!(child.try_wait().unwrap().is_none(), "the run ended before {n} answers");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn killed_while_searching_stale_leaves_and_run_again_nothing_is_searched_twice() {
    let dir = tempfile::tempdir().unwrap();
    let grown = extended(dir.path(), "grown.dat");
    with_level(&grown, &dir.path().join("low.dat"), 59);
    let low = dir.path().join("low.dat");
    let solver = solver();
    let engine = ["--engine", solver.to_str().unwrap(), "--workers", "1"];
    let whole = tempfile::tempdir().unwrap();
    ran(merge(whole.path(), &extend_book(), &low, "merged.dat", &engine));
    let expected = std::fs::read(whole.path().join("merged.dat")).unwrap();
    // The engine answers two searches, then hangs: the run is killed there.
    let mut child = merge(dir.path(), &extend_book(), &low, "merged.dat", &engine)
        .env("SOLVER_FAULT", "hang-after-2")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_journal(&mut child, dir.path(), 2);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert_no_engine_left(dir.path());
    assert!(!dir.path().join("merged.dat").exists(), "no OUT from a killed run");
    let again = ran(merge(dir.path(), &extend_book(), &low, "merged.dat", &engine));
    let s = summary(&again);
    assert_eq!(s["stale_from_journal"], 2);
    assert_eq!(s["stale_searched"].as_u64().unwrap() + 2, s["stale_leaves"].as_u64().unwrap());
    assert_eq!(std::fs::read(dir.path().join("merged.dat")).unwrap(), expected);
    let journal = std::fs::read_to_string(dir.path().join("o/extend.jsonl")).unwrap();
    let searches: Vec<&str> = journal.lines().collect();
    let unique: HashSet<&str> = searches.iter().map(|l| &l[..l.find("\"move\"").unwrap_or(l.len())]).collect();
    assert_eq!(unique.len(), searches.len(), "a search journaled twice");
    let hidden: Vec<String> =
        crate::common::names_in(dir.path()).into_iter().filter(|n| n.starts_with(".bookminer")).collect();
    assert!(hidden.is_empty(), "the killed run's folder is removed by the next: {hidden:?}");
}

/// Issue 47 item 13: a merge made its `.bookminer-merge-XXXXXX` folder
/// before it locked it, and another merge into the same folder, seeing a
/// folder without its lock, removed it as a dead run's (the first then
/// failed, status 3). A merge now makes and locks its folder, and looks
/// for dead runs' folders, under the lock of the folder they are in. The
/// other merge here is the test: it holds that lock, with a folder of its
/// own made and not locked yet; the merge waits, removes nothing, and once
/// the test's folder is locked and the lock let go, leaves it and succeeds.
#[cfg(target_os = "linux")]
#[test]
fn a_merge_waits_while_another_makes_its_folder_and_never_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    let being_made = dir.path().join(".bookminer-merge-abc123");
    let folder = std::fs::File::open(dir.path()).unwrap();
    folder.lock().unwrap();
    std::fs::create_dir(&being_made).unwrap();
    let mut child = merge(dir.path(), &edax46(), &edax46(), "m.dat", &["-q"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    crate::common::wait_until_it_waits_for_a_lock(&mut child, "the merge");
    assert!(being_made.is_dir(), "a folder being made is not removed");
    let lock = std::fs::File::create(being_made.join("lock")).unwrap();
    lock.try_lock().unwrap();
    drop(folder);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(being_made.join("lock").is_file(), "a live merge's folder is left alone");
    assert!(dir.path().join("m.dat").is_file());
}

/// Each board's legal moves that its record does not link but whose child
/// the book holds: what Edax's `book link` would link.
fn unlinked_in_book(path: &Path) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    let boards: HashSet<Board> = records(&bytes).map(|r| r.unwrap().2.board()).collect();
    let mut count = 0;
    for (_, _, raw) in records(&bytes).map(Result::unwrap) {
        let board = raw.board();
        let record = raw.to_record(Default::default(), 0);
        let linked: HashSet<Move> = record.links().map(|l| l.mv).collect();
        for square in Square::iter(board.legal_moves()) {
            let child = normalize(&board.after(Move::Play(square)).unwrap()).board;
            count += u64::from(!linked.contains(&Move::Play(square)) && boards.contains(&child));
        }
    }
    count
}

#[test]
fn with_link_every_move_edax_leaves_unlinked_is_linked_and_stale_leaves_lose_their_score() {
    let dir = tempfile::tempdir().unwrap();
    let book = edax46();
    // The count the issue publishes for this book, and a slow count.
    assert_eq!(unlinked_in_book(&book), 321);
    let out = ran(merge(dir.path(), &book, &book, "linked.dat", &["--link"]));
    let s = summary(&out);
    assert_eq!(s["links_added"], 321);
    assert_eq!(unlinked_in_book(&dir.path().join("linked.dat")), 0);
    let stale = s["stale_leaves"].as_u64().unwrap();
    assert!(stale > 0);
    assert_eq!(stale, s["stale_known"].as_u64().unwrap() + s["stale_emptied"].as_u64().unwrap());
    let merged = Book::open(&dir.path().join("linked.dat"), &Default::default()).unwrap();
    for line in receipt(dir.path()) {
        let board = bookminer::position::parse(&format!(
            "{} {}",
            line["board"].as_str().unwrap(),
            line["side"].as_str().unwrap()
        ))
        .unwrap()
        .board;
        let record = merged.records().find(|r| r.board() == normalize(&board).board).expect("the board is in OUT");
        let leaf = line["leaf"].clone();
        match leaf[0].as_str() {
            // Left with no score, on a legal move no link takes.
            Some(square) => {
                assert_eq!(leaf[1], -127, "{line}");
                let mv = Move::Play(Square::parse(square).unwrap());
                assert!(!record.links().any(|l| l.mv == mv), "{line}");
                assert_eq!(record.leaf().map(|l| (l.mv, l.score)), Some((mv, Score::new(-127))), "{line}");
            }
            // Every move linked (or the game over): no leaf.
            None => assert!(record.leaf().is_none(), "{line}"),
        }
    }
    // What Edax checks as it loads a record ("nomove is wrong"): a record
    // without a leaf move links every legal move.
    for record in merged.records() {
        let linked = record.links().fold(0u64, |bits, l| match l.mv {
            Move::Play(square) => bits | square.bit(),
            Move::Pass => bits,
        });
        let unlinked = record.board().legal_moves() & !linked;
        assert!(record.leaf().is_some() || unlinked == 0, "{:?} has moves left and no leaf", record.board());
    }
}

/// Two one-line books by hand: the initial position and the one after F5,
/// each record at the given level; A's initial position has its leaf on
/// `a_leaf`, B's links F5.
fn hand_books(dir: &Path, a_level: u8, b_level: u8) -> (PathBuf, PathBuf) {
    let f5 = Move::Play(Square::parse("f5").unwrap());
    let after = normalize(&Board::INITIAL.after(f5).unwrap()).board;
    let d3 = Move::Play(Square::parse("d3").unwrap());
    let child =
        |level| Entry { level, leaf: Some(Link::new(Score::new(0), first_move(&after))), ..Entry::new(after, 0) };
    // A: the initial position's leaf is F5, scored 2; no link.
    let a_root = Entry { level: a_level, leaf: Some(Link::new(Score::new(2), f5)), ..Entry::new(Board::INITIAL, 2) };
    // B: F5 linked, the leaf D3.
    let b_root = Entry {
        level: b_level,
        links: vec![Link::new(Score::new(0), f5)],
        leaf: Some(Link::new(Score::new(-1), d3)),
        ..Entry::new(Board::INITIAL, 0)
    };
    let (a, b) = (dir.join("a.dat"), dir.join("b.dat"));
    std::fs::write(&a, encode(&[a_root], 1)).unwrap();
    std::fs::write(&b, encode(&[b_root, child(b_level)], 1)).unwrap();
    (a, b)
}

fn first_move(board: &Board) -> Move {
    Move::Play(Square::iter(board.legal_moves()).next().unwrap())
}

#[test]
fn the_rule_keeps_the_higher_level_then_the_leaf_that_is_no_link_then_a() {
    // A's leaf F5 is B's link: stale in A's record.
    for (a_level, b_level, kept, by) in [(10, 10, "B", "leaf"), (10, 9, "A", "level"), (9, 10, "B", "level")] {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = hand_books(dir.path(), a_level, b_level);
        let out = ran(merge(dir.path(), &a, &b, "m.dat", &[]));
        let lines = receipt(dir.path());
        let root = lines.iter().find(|l| l["record"] == 0).expect("the initial position's line");
        assert_eq!((root["kept"].as_str(), root["by"].as_str()), (Some(kept), Some(by)), "{a_level} {b_level}");
        let merged = Book::open(&dir.path().join("m.dat"), &Default::default()).unwrap();
        let record = merged.records().next().unwrap();
        // The links of both books: F5 from B.
        assert_eq!(record.links().map(|l| l.mv).collect::<Vec<_>>(), vec![Move::Play(Square::parse("f5").unwrap())]);
        let s = summary(&out);
        assert_eq!(s["boards_b_alone"], 1);
        if kept == "A" {
            // A's leaf F5 is a link now: stale, and without an engine it keeps no score.
            assert_eq!(root["stale"][0], "F5");
            assert_eq!(record.leaf().map(|l| l.score), Some(Score::new(-127)));
            assert_eq!(s["stale_emptied"], 1);
        } else {
            assert!(root.get("stale").is_none());
            assert_eq!(record.leaf().map(|l| l.mv), Some(Move::Play(Square::parse("d3").unwrap())));
        }
    }
}

#[test]
fn merge_refuses_an_out_over_a_book_or_named_for_no_format_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    let book = edax46();
    std::fs::copy(&book, dir.path().join("a.dat")).unwrap();
    std::os::unix::fs::symlink("a.dat", dir.path().join("link.dat")).unwrap();
    std::os::unix::fs::symlink("o/merge.jsonl", dir.path().join("receipt.dat")).unwrap();
    for (out, says) in [
        ("link.dat", "is a book being read"),
        ("a.dat", "is a book being read"),
        ("m.egbk2", "reads but does not write"),
        ("m.txt", "cannot tell the format"),
        ("receipt.dat", "cannot also be the receipt"),
    ] {
        let a = dir.path().join("a.dat");
        let out = merge(dir.path(), &a, &book, out, &[]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(says), "{says}: {}", stderr(&out));
    }
    assert_eq!(std::fs::read(dir.path().join("a.dat")).unwrap(), std::fs::read(&book).unwrap());
    let bad = dir.path().join("bad.dat");
    std::fs::write(&bad, b"XADEKOOB").unwrap();
    let out = merge(dir.path(), &bad, &book, "m.dat", &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("bad.dat"), "{}", stderr(&out));
    assert!(!dir.path().join("m.dat").exists());
    let left: Vec<String> =
        crate::common::names_in(dir.path()).into_iter().filter(|n| n.starts_with(".bookminer")).collect();
    assert!(left.is_empty(), "nothing temporary left: {left:?}");
}

#[test]
fn books_of_many_chunks_merge_in_order_with_each_receipt_line_on_its_record() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, name) in [("1", "a.dat"), ("2", "b.dat")] {
        let out = run_in(dir.path(), &["synth", "--positions", "40000", "--seed", seed, name, "-q"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let (a, b) = (dir.path().join("a.dat"), dir.path().join("b.dat"));
    let out = ran(merge(dir.path(), &a, &b, "m.dat", &[]));
    let boards = |path: &Path| -> Vec<Board> {
        let bytes = std::fs::read(path).unwrap();
        records(&bytes).map(|r| r.unwrap().2.board()).collect()
    };
    let (in_a, in_b, merged) = (boards(&a), boards(&b), boards(&dir.path().join("m.dat")));
    // A's boards in A's order, then B's others in B's order: a slow reference.
    let of_a: HashSet<Board> = in_a.iter().copied().collect();
    let expected: Vec<Board> = in_a.iter().copied().chain(in_b.iter().copied().filter(|b| !of_a.contains(b))).collect();
    assert_eq!(merged, expected);
    let s = summary(&out);
    assert!(s["conflicts"].as_u64().unwrap() > 0, "{s}");
    for line in receipt(dir.path()) {
        let record = line["record"].as_u64().unwrap() as usize;
        let text = format!("{} {}", line["board"].as_str().unwrap(), line["side"].as_str().unwrap());
        assert_eq!(bookminer::position::parse(&text).unwrap().board, merged[record], "{line}");
    }
}

#[test]
fn stale_leaves_of_an_egaroucid_book_are_searched_again_too() {
    let dir = tempfile::tempdir().unwrap();
    let grown = extended(dir.path(), "grown.dat");
    with_level(&grown, &dir.path().join("low.dat"), 59);
    for (from, to) in [(extend_book(), "a.egbk3"), (dir.path().join("low.dat"), "low.egbk3"), (grown, "grown.egbk3")] {
        let out = run_in(dir.path(), &["convert", from.to_str().unwrap(), to, "-q"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let solver = solver();
    let engine = ["--engine", solver.to_str().unwrap()];
    let (a, low) = (dir.path().join("a.egbk3"), dir.path().join("low.egbk3"));
    let s = summary(&ran(merge(dir.path(), &a, &low, "merged.egbk3", &engine)));
    assert!(s["stale_searched"].as_u64().unwrap() > 0, "{s}");
    assert_eq!(s["stale_searched"], s["stale_leaves"]);
    let held = |path: &Path| -> HashMap<Board, i32> {
        let book = Book::open(path, &Default::default()).unwrap();
        book.records().map(|r| (r.board(), r.value().discs())).collect()
    };
    assert_eq!(held(&dir.path().join("merged.egbk3")), held(&dir.path().join("grown.egbk3")));
    assert_no_engine_left(dir.path());
}

#[test]
fn a_record_that_repeats_a_move_is_kept_as_stored() {
    let dir = tempfile::tempdir().unwrap();
    let f5 = Move::Play(Square::parse("f5").unwrap());
    let after = normalize(&Board::INITIAL.after(f5).unwrap()).board;
    // F5 linked twice, which only `verify` refuses.
    let root = Entry {
        level: 4,
        links: vec![Link::new(Score::new(0), f5), Link::new(Score::new(1), f5)],
        leaf: Some(Link::new(Score::new(-2), Move::Play(Square::parse("d3").unwrap()))),
        ..Entry::new(Board::INITIAL, 0)
    };
    let child = Entry { level: 4, leaf: Some(Link::new(Score::new(0), first_move(&after))), ..Entry::new(after, 0) };
    let a = dir.path().join("a.dat");
    std::fs::write(&a, encode(&[root, child], 1)).unwrap();
    assert!(run_in(dir.path(), &["fix", "a.dat", "fixed.dat", "-q"]).status.success());
    ran(merge(dir.path(), &a, &a, "merged.dat", &[]));
    assert_eq!(
        std::fs::read(dir.path().join("merged.dat")).unwrap(),
        std::fs::read(dir.path().join("fixed.dat")).unwrap()
    );
}

#[test]
fn an_egaroucid_book_merged_with_itself_is_its_fix_byte_for_byte() {
    for name in ["edax46-l2-small.egbk3", "edax46-l2-small-perturbed.egbk3"] {
        let dir = tempfile::tempdir().unwrap();
        let book = data(&format!("books/egbk3/{name}"));
        assert!(run_in(dir.path(), &["fix", book.to_str().unwrap(), "fixed.egbk3", "-q"]).status.success());
        let s = summary(&ran(merge(dir.path(), &book, &book, "merged.egbk3", &[])));
        assert_eq!(s["stale_leaves"], 0, "a leaf its own book links did not become a link");
        let fixed = std::fs::read(dir.path().join("fixed.egbk3")).unwrap();
        assert_eq!(std::fs::read(dir.path().join("merged.egbk3")).unwrap(), fixed, "{name}");
    }
}

/// A record's value, level and leaf (score and move), as merge compares them.
type Held = (i32, i32, Option<(i32, Move)>);

/// Board → (value, level, leaf) of every record of a book, read as every
/// command reads it.
fn value_level_leaf(path: &Path) -> HashMap<Board, Held> {
    let book = Book::open(path, &bookminer::book::ReadOptions::default()).unwrap();
    let leaf = |l: Link| (l.score.discs(), l.mv);
    book.records().map(|r| (r.board, (r.value().discs(), r.level, r.leaf().map(leaf)))).collect()
}

/// Issue 47 item 6: a board both books hold with the same value, level and
/// leaf is alike, not a conflict, and has no receipt line, whatever else
/// differs. An Edax book merged with its own Egaroucid conversion (which
/// loses link scores, bounds and counts, and converted back gives some
/// records another leaf): the boards alike are those whose records, read
/// from the two books in Edax's format, agree on the three.
#[test]
fn boards_holding_the_same_value_level_and_leaf_are_alike_not_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let edax = edax46();
    for (from, to) in [(edax.to_str().unwrap(), "c.egbk3"), ("c.egbk3", "back.dat")] {
        assert!(run_in(d, &["convert", from, to, "-q"]).status.success());
    }
    let (a, b) = (value_level_leaf(&edax), value_level_leaf(&d.join("back.dat")));
    let both = a.keys().filter(|board| b.contains_key(board)).count() as u64;
    let alike = a.iter().filter(|(board, held)| b.get(board) == Some(held)).count() as u64;
    assert!(alike > 5000 && both - alike > 0, "the books agree on most boards, not all: {alike} of {both}");
    for (first, second) in [(edax.clone(), d.join("c.egbk3")), (d.join("c.egbk3"), edax.clone())] {
        // The second merge replaces the first's book: asked for.
        let s = summary(&ran(merge(d, &first, &second, "merged.dat", &["--force"])));
        assert_eq!((s["boards_alike"].as_u64(), s["conflicts"].as_u64()), (Some(alike), Some(both - alike)), "{s}");
        let lines = receipt(d);
        assert!(lines.iter().all(|line| line["a"] != line["b"]), "a conflict's records differ");
        let conflicts = lines.iter().filter(|line| line.get("kept").is_some()).count() as u64;
        assert_eq!(conflicts, both - alike, "a receipt line per conflict");
    }
}

/// Issue 47 item 14: a record of B that stores an illegal move is named in
/// B, by its record and byte (as `verify` names it), before any search;
/// it was named in the merged book before its negamax, a file the user
/// never sees.
#[test]
fn a_damaged_b_is_named_in_b_by_its_record_and_byte() {
    let dir = tempfile::tempdir().unwrap();
    let a = data("books/edax-endgames-perturbed.dat");
    let mut bytes = std::fs::read(&a).unwrap();
    let (offset, square) = records(&bytes)
        .map(Result::unwrap)
        .filter(|(_, _, raw)| raw.n_links() > 0)
        .find_map(|(_, offset, raw)| {
            let board = raw.board();
            let illegal = Square::iter(!0).find(|&s| board.check_move(Move::Play(s)).is_none())?;
            Some((offset, illegal))
        })
        .expect("a record with a link");
    bytes[offset + bookminer::format::edax::LINKS_AT + 1] = Move::Play(square).code();
    let b = dir.path().join("b.dat");
    std::fs::write(&b, &bytes).unwrap();
    // The place as verify names it, for the byte changed.
    let verified = String::from_utf8(bin().arg("verify").arg(&b).output().unwrap().stdout).unwrap();
    let place = verified.split(": ").nth(1).unwrap_or_else(|| panic!("{verified}")).to_string();
    assert!(place.ends_with(&format!(" at byte {offset}")), "{verified}");

    let out = merge(dir.path(), &a, &b, "m.dat", &[]).output().unwrap();
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains(&format!("b.dat: {place}: ")), "{said}");
    assert!(!said.contains("merged"), "{said}");
    assert!(!dir.path().join("m.dat").exists());
}
