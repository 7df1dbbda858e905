//! `fill` (SPEC §17.4, docs/policies.md) with the repository's solver: on
//! books of a few late positions the boards fill must put in are derived
//! by hand (the moves between a position and one two plies below it), the
//! position a sequence starts from is not linked, a second run adds
//! nothing, one killed and run again writes the same book and searches
//! nothing twice, the budgets stop it, and an Egaroucid book grows the
//! same boards.

use crate::common::{
    assert_each_search_once, bin, boards, journal, killed_and_run_again, minimax, position, run_json, solver, RUN_TAG,
};
use bookminer::board::{Board, Move, Square};
use bookminer::book::{Book, Link, Score};
use bookminer::format::edax::entries::{encode, Entry};
use bookminer::symmetry::normalize;
use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

/// `bookminer fill IN OUT --depth D` in `dir` with the solver, every
/// position a start (`--min-empties 0`), and `more` arguments.
fn fill(dir: &Path, (input, out): (&str, &str), depth: u32, more: &[&str]) -> Command {
    let mut command = bin();
    command.current_dir(dir).env(RUN_TAG, dir);
    command.args(["--config", "/dev/null", "fill", input, out, "--depth", &depth.to_string()]);
    command.args(["--min-empties", "0", "--workers", "1"]).args(more);
    command.args(["--out-dir", "o", "--log-file", "o/log", "--summary", "json", "-q", "--engine"]).arg(solver());
    command
}

/// A record of `board` at level 60: its value and leaf its best move by
/// plain negamax (a finished game: its score, no leaf).
fn solved(board: &Board) -> Entry {
    let stored = normalize(board);
    if board.is_game_over() {
        let mut entry = Entry::new(stored.board, board.final_score());
        entry.level = 60;
        return entry;
    }
    let (score, mv) =
        board.children().into_iter().map(|(mv, child)| (-minimax(&child), mv)).max_by_key(|c| c.0).unwrap();
    let mut entry = Entry::new(stored.board, score);
    entry.level = 60;
    entry.leaf = Some(Link::new(Score::new(score), stored.to_original.inverse().apply_move(mv)));
    entry
}

/// The initial position, no link, its leaf f5 (the book's root; far from
/// the positions filled, it starts no sequence that ends in the book).
fn initial() -> Entry {
    let stored = normalize(&Board::INITIAL);
    let f5 = stored.to_original.inverse().apply_move(Move::Play(Square::parse("f5").unwrap()));
    let mut entry = Entry::new(stored.board, 0);
    entry.leaf = Some(Link::new(Score::new(0), f5));
    entry
}

/// Writes the initial position and `boards` (each once, as solved) as
/// `in.dat` in `dir`, level 60.
fn write_book(dir: &Path, boards: &[Board]) -> usize {
    let mut seen = HashSet::new();
    let mut entries = vec![initial()];
    for board in boards {
        if seen.insert(normalize(board).board) {
            entries.push(solved(board));
        }
    }
    std::fs::write(dir.join("in.dat"), encode(&entries, 60)).unwrap();
    entries.len()
}

/// Each record of a book, by board: (links, level, value).
fn records(path: &Path) -> std::collections::HashMap<Board, (Vec<Link>, i32, i32)> {
    let book = Book::open(path, &Default::default()).unwrap();
    book.records().map(|r| (r.board(), (r.links().collect(), r.level, r.value().discs()))).collect()
}

/// A position `empties` from the end, a move `a` with a reply `b` played
/// (no pass on the way): the position, the one after `a`, after `a` `b`.
fn two_plies(empties: u32, seed: u64) -> (Board, Board, Board, String) {
    for k in 0.. {
        let (root, line) = position(empties, seed ^ k);
        for (_, child) in root.children() {
            if let Some((_, grandchild)) = child.children().into_iter().find(|(mv, _)| *mv != Move::Pass) {
                if child.has_moves() {
                    return (root, child, grandchild, line);
                }
            }
        }
    }
    unreachable!()
}

/// The positions one ply after `root` that some move leads from to
/// `target` (normalized): what a sequence of two plies from `root` to
/// `target` passes.
fn between(root: &Board, target: &Board) -> HashSet<Board> {
    let target = normalize(target).board;
    let mut found = HashSet::new();
    for (_, child) in root.children() {
        if child.children().iter().any(|(_, g)| normalize(g).board == target) {
            found.insert(normalize(&child).board);
        }
    }
    found
}

#[test]
fn two_plies_put_in_the_position_between_linked_to_the_one_below_and_the_start_is_not_linked() {
    for seed in [7, 19] {
        let (root, child, grandchild, _) = two_plies(10, 0x3c6e_f372_fe94_f82b ^ seed);
        let dir = tempfile::tempdir().unwrap();
        let loaded = write_book(dir.path(), &[root, grandchild]);
        let summary = run_json(&mut fill(dir.path(), ("in.dat", "out.dat"), 2, &[]));
        let added = between(&root, &grandchild);
        assert!(added.contains(&normalize(&child).board), "the move played is one of them");
        let mut expected: HashSet<Board> = boards(&dir.path().join("in.dat"));
        expected.extend(&added);
        assert_eq!(boards(&dir.path().join("out.dat")), expected, "seed {seed}: {summary}");
        assert_eq!(summary["positions_added"].as_u64(), Some(added.len() as u64), "{summary}");
        assert_eq!(summary["records_written"].as_u64(), Some((loaded + added.len()) as u64), "{summary}");
        let out = records(&dir.path().join("out.dat"));
        let stored_child = normalize(&child).board;
        let (links, level, value) = &out[&stored_child];
        // Linked to the one position below it in the book, at the book's
        // level, its value exact: the link and the solver's leaf.
        assert_eq!(links.len(), 1, "{links:?}");
        let below = stored_child.after(links[0].mv).unwrap();
        assert_eq!(normalize(&below).board, normalize(&grandchild).board);
        assert_eq!((*level, *value), (60, minimax(&child)));
        assert!(out[&normalize(&root).board].0.is_empty(), "the start of a sequence is not linked");
        // What it wrote is where the next run stops.
        let again = run_json(&mut fill(dir.path(), ("out.dat", "again.dat"), 2, &[]));
        assert_eq!((again["positions_added"].as_u64(), again["links_added"].as_u64()), (Some(0), Some(0)), "{again}");
        assert_each_search_once(&journal(dir.path()));
    }
}

#[test]
fn one_ply_links_a_position_below_a_start_to_its_children_and_searches_its_leaf_again() {
    let (root, child, grandchild, _) = two_plies(10, 0x510e_527f_ade6_82d1);
    let dir = tempfile::tempdir().unwrap();
    // The child's leaf is the move to the grandchild: once a link, the
    // leaf is searched again among the other moves.
    let mut entries = vec![initial(), solved(&root), solved(&grandchild)];
    let stored = normalize(&child);
    let to_grandchild = child.children().into_iter().find(|(_, g)| *g == grandchild).unwrap().0;
    let score = -minimax(&grandchild);
    let mut below = Entry::new(stored.board, score);
    below.level = 60;
    below.leaf = Some(Link::new(Score::new(score), stored.to_original.inverse().apply_move(to_grandchild)));
    entries.push(below);
    std::fs::write(dir.path().join("in.dat"), encode(&entries, 60)).unwrap();
    let summary = run_json(&mut fill(dir.path(), ("in.dat", "out.dat"), 1, &[]));
    assert_eq!(summary["positions_added"], 0, "{summary}");
    assert_eq!(summary["links_added"], 1, "{summary}");
    let searches = summary["searches"].as_u64().unwrap();
    assert_eq!(searches + summary["searches_from_journal"].as_u64().unwrap(), 1, "{summary}");
    let out = records(&dir.path().join("out.dat"));
    let (links, _, value) = &out[&stored.board];
    assert_eq!(links.len(), 1, "{links:?}");
    assert_eq!(*value, minimax(&child), "the link and the new leaf give the exact value");
    assert!(out[&normalize(&root).board].0.is_empty(), "the start is not linked");
}

/// The initial position, `root` (10 empty squares), every position two
/// plies below it, and every eighth of those four plies below.
fn wide_book(dir: &Path) -> (Board, usize) {
    let (root, _) = position(10, 0x1f83_d9ab_fb41_bd6b);
    let two: Vec<Board> = root.children().iter().flat_map(|(_, c)| c.children()).map(|(_, g)| g).collect();
    let four = two.iter().flat_map(|b| b.children()).flat_map(|(_, c)| c.children()).map(|(_, g)| g);
    let four: Vec<Board> = four.filter(|b| normalize(b).board.player.is_multiple_of(8)).collect();
    let loaded = write_book(dir, &[&[root][..], &two, &four].concat());
    (root, loaded)
}

#[test]
fn a_second_run_adds_nothing_and_one_killed_writes_the_same_book_searching_nothing_twice() {
    let whole = tempfile::tempdir().unwrap();
    let (_, loaded) = wide_book(whole.path());
    let once = run_json(&mut fill(whole.path(), ("in.dat", "out.dat"), 2, &[]));
    let searches = once["searches"].as_u64().unwrap() as usize;
    let repeated = once["searches_from_journal"].as_u64().unwrap() as usize;
    assert!(searches >= 10, "{once}");
    assert_eq!(once["records_written"].as_u64(), Some(loaded as u64 + once["positions_added"].as_u64().unwrap()));
    let expected = std::fs::read(whole.path().join("out.dat")).unwrap();
    let again = run_json(&mut fill(whole.path(), ("out.dat", "again.dat"), 2, &[]));
    assert_eq!((again["positions_added"].as_u64(), again["links_added"].as_u64()), (Some(0), Some(0)), "{again}");
    killed_and_run_again(
        |dir| {
            wide_book(dir);
        },
        |dir| fill(dir, ("in.dat", "out.dat"), 2, &[]),
        (searches, repeated),
        &expected,
        |_| {},
    );
}

#[test]
fn max_positions_and_max_seconds_stop_it_with_a_whole_book() {
    let dir = tempfile::tempdir().unwrap();
    let (_, loaded) = wide_book(dir.path());
    let three = run_json(&mut fill(dir.path(), ("in.dat", "three.dat"), 2, &["--max-positions", "3"]));
    assert_eq!(three["positions_added"], 3, "{three}");
    assert_eq!(three["stopped_early"], "max_positions", "{three}");
    assert_eq!(boards(&dir.path().join("three.dat")).len(), loaded + 3);
    let none = run_json(&mut fill(dir.path(), ("in.dat", "none.dat"), 2, &["--max-seconds", "0"]));
    assert_eq!((none["positions_added"].as_u64(), none["rounds"].as_u64()), (Some(0), Some(0)), "{none}");
    assert_eq!(none["stopped_early"], "max_seconds", "{none}");
    assert_eq!(boards(&dir.path().join("none.dat")), boards(&dir.path().join("in.dat")));
    let whole = run_json(&mut fill(dir.path(), ("in.dat", "whole.dat"), 2, &[]));
    assert_eq!(whole["stopped_early"], serde_json::Value::Null, "{whole}");
    assert!(whole["positions_added"].as_u64().unwrap() > 3, "{whole}");
}

#[test]
fn an_egaroucid_book_grows_the_same_boards() {
    let dir = tempfile::tempdir().unwrap();
    wide_book(dir.path());
    run_json(&mut fill(dir.path(), ("in.dat", "out.dat"), 2, &[]));
    let mut convert = bin();
    convert.current_dir(dir.path()).args(["--config", "/dev/null", "convert", "in.dat", "in.egbk3", "-q"]);
    assert!(convert.status().unwrap().success());
    let summary = run_json(&mut fill(dir.path(), ("in.egbk3", "out.egbk3"), 2, &[]));
    assert!(summary["positions_added"].as_u64().unwrap() > 0, "{summary}");
    assert_eq!(boards(&dir.path().join("out.egbk3")), boards(&dir.path().join("out.dat")));
}
