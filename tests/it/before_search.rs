//! Issue 64, point 5: every command that searches checks every record of
//! IN before its first search, and refuses naming IN and the record; none
//! writes a book `verify` refuses. The damage is a leaf on an occupied
//! square, in a record the run's start does not reach (above it, or the
//! file's last record): before, the walk from the start checked only the
//! links it followed, so `deviate` searched and then failed naming a file
//! of its own, and `deepen` wrote the damaged book and exited 0.

use crate::common::{bin, book, journal, near_end, run, solver, stderr, RUN_TAG};
use bookminer::board::{Board, Square};
use std::path::Path;

/// Where each record of an Edax book starts and where its leaf's move
/// code is, in file order (42 bytes of header; 42 bytes a record, then 2 a
/// link, the leaf after the links).
fn edax_leaves(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut at = 42;
    let mut found = Vec::new();
    while at < bytes.len() {
        let links = usize::from(bytes[at + 38]);
        found.push((at, at + 40 + 2 * links + 1));
        at += 42 + 2 * links;
    }
    found
}

/// Where each record of an `.egbk3` book with a leaf starts and where its
/// leaf's move is (14 bytes of header; 25 bytes a record, the leaf's value
/// at 22, within -64..64 for a leaf, and its move at 23), with its number.
fn egaroucid_leaves(bytes: &[u8]) -> Vec<(usize, (usize, usize))> {
    let leaf = |at: usize| (-64..=64).contains(&(bytes[at + 22] as i8)) && bytes[at + 23] < 64;
    (14..bytes.len())
        .step_by(25)
        .enumerate()
        .filter(|&(_, at)| leaf(at))
        .map(|(i, at)| (i + 1, (at, at + 23)))
        .collect()
}

/// The first occupied square of the board of the record starting at `at`
/// (its player's discs, then its opponent's, 8 bytes each): no move's.
fn first_occupied(bytes: &[u8], at: usize) -> u8 {
    let word = |from: usize| u64::from_le_bytes(bytes[from..from + 8].try_into().unwrap());
    let board = Board::new(word(at), word(at + 8));
    (board.player | board.opponent).trailing_zeros() as u8
}

/// The record starting at `at` with its leaf moved onto its board's
/// first occupied square: the text `verify` gives of it.
fn damage(bytes: &mut [u8], (at, leaf): (usize, usize), number: usize) -> String {
    let square = first_occupied(bytes, at);
    bytes[leaf] = square;
    let name = Square::new(square).unwrap().to_string();
    format!("record {number} at byte {at}: leaf move {name} is illegal on this board")
}

/// `bookminer ARGS` in `dir`, the solver the engine with one worker, the
/// journal and log in `o`.
fn growth(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut command = bin();
    command.current_dir(dir).args(["--config", "/dev/null"]).args(args);
    command.args(["--workers", "1", "--out-dir", "o", "--log-file", "o/log", "--engine"]).arg(solver());
    command.env(RUN_TAG, dir);
    run(command)
}

/// Each command refuses `input` (in `dir`) whose record is damaged as
/// `problem` says, naming both, before any search and writing nothing.
fn refused_before_any_search(dir: &Path, input: &str, problem: &str, commands: &[Vec<&str>]) {
    for args in commands {
        let _ = std::fs::remove_dir_all(dir.join("o"));
        let out = growth(dir, args);
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains(&format!("{input}: {problem}")), "{args:?} names IN and the record: {said}");
        assert!(said.contains("nothing was searched"), "{args:?}: {said}");
        assert!(journal(dir).is_empty(), "{args:?} searched before refusing: {said}");
        assert!(!dir.join("out.dat").exists() && !dir.join("out.egbk3").exists(), "{args:?} wrote OUT");
    }
}

#[test]
fn every_growth_command_refuses_a_damaged_leaf_its_start_never_reaches_before_any_search() {
    let whole = std::fs::read(book()).unwrap();
    let leaves = edax_leaves(&whole);
    let start = near_end();
    let game = format!("{start}\n");
    // Record 2 (58 empty squares) lies above the start; the last record on
    // none of its lines.
    for (index, place) in [(1, leaves[1]), (leaves.len() - 1, leaves[leaves.len() - 1])] {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = whole.clone();
        let problem = damage(&mut bytes, place, index + 1);
        std::fs::write(dir.path().join("in.dat"), &bytes).unwrap();
        std::fs::write(dir.path().join("g.txt"), &game).unwrap();
        let verified = run({
            let mut c = bin();
            c.current_dir(dir.path()).args(["verify", "in.dat"]);
            c
        });
        let listed = format!("{}{}", String::from_utf8_lossy(&verified.stdout), stderr(&verified));
        assert!(listed.contains(&format!("in.dat: {problem}")), "verify lists the damage: {listed}");
        let grown = |command: &'static str| vec![command, "in.dat", "out.dat", "--start", &start];
        let commands = [
            grown("extend"),
            grown("deviate"),
            grown("play"),
            grown("enhance"),
            [grown("grow"), vec!["--max-positions", "2"]].concat(),
            [grown("deepen"), vec!["--level", "20"]].concat(),
            vec!["fill", "in.dat", "out.dat", "--depth", "2"],
            vec!["fix", "--link", "in.dat", "out.dat"],
            vec!["add", "in.dat", "g.txt", "out.dat"],
        ];
        refused_before_any_search(dir.path(), "in.dat", &problem, &commands);
    }
}

#[test]
fn learn_recalculate_and_extend_refuse_a_damaged_egaroucid_leaf_before_any_search() {
    let dir = tempfile::tempdir().unwrap();
    let converted = run({
        let mut c = bin();
        c.current_dir(dir.path()).args(["--config", "/dev/null", "convert"]).arg(book()).arg("in.egbk3");
        c
    });
    assert!(converted.status.success(), "{}", stderr(&converted));
    let mut bytes = std::fs::read(dir.path().join("in.egbk3")).unwrap();
    let (number, place) = *egaroucid_leaves(&bytes).last().unwrap();
    let problem = damage(&mut bytes, place, number);
    std::fs::write(dir.path().join("in.egbk3"), &bytes).unwrap();
    let start = near_end();
    let mut commands: Vec<Vec<&str>> = ["learn", "recalculate"]
        .into_iter()
        .map(|command| vec![command, "in.egbk3", "out.egbk3", "--start", &start, "--level", "20"])
        .collect();
    // extend checks an Egaroucid book before its first walk, as an Edax one.
    commands.push(vec!["extend", "in.egbk3", "out.egbk3", "--start", &start]);
    refused_before_any_search(dir.path(), "in.egbk3", &problem, &commands);
}

/// Every link of the records of `bytes` from the `first`th on (counted
/// from 0) moved onto its board's first occupied square (42 bytes a
/// record, the link count at 38, then 2 bytes a link, the move second): a
/// link no walk can follow.
fn damage_links_after(bytes: &mut [u8], records: &[(usize, usize)], first: usize) {
    for &(at, _) in &records[first..] {
        let occupied = first_occupied(bytes, at);
        for link in 0..usize::from(bytes[at + 38]) {
            bytes[at + 40 + 2 * link + 1] = occupied;
        }
    }
}

#[test]
fn the_first_damaged_record_in_the_file_is_named_before_a_link_the_walk_cannot_follow() {
    // What the first walk would refuse (a link that is no legal move,
    // later in the file), or a start the book does not hold ("F5D6C3D3C4"
    // leaves it at C3), is not said before the first damaged record in
    // file order, whichever of the check and the walk runs first.
    let whole = std::fs::read(book()).unwrap();
    let records = edax_leaves(&whole);
    let mut bytes = whole.clone();
    let problem = damage(&mut bytes, records[1], 2);
    damage_links_after(&mut bytes, &records, 2);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.dat"), &bytes).unwrap();
    let start = crate::common::START;
    let commands = [
        vec!["extend", "in.dat", "out.dat"],
        vec!["extend", "in.dat", "out.dat", "--start", start],
        vec!["extend", "in.dat", "out.dat", "--start", "f5d6c3d3c4"],
        vec!["grow", "in.dat", "out.dat", "--max-positions", "2"],
        vec!["fix", "--link", "in.dat", "out.dat"],
    ];
    refused_before_any_search(dir.path(), "in.dat", &problem, &commands);
}
