//! `fix` (SPEC §11) through the binary: what it promises, and its values
//! and link scores against a slow, obviously correct negamax over random
//! small books. (Bounds and counts follow Edax's level table; Edax itself
//! checks them, scripts/clients.sh.)

use bookminer::board::{Board, Move};
use bookminer::book::{Book, Link, Score};
use bookminer::symmetry::normalize;
use bookminer::write::entries::{encode, Entry};
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod common;

/// Runs `bookminer fix IN OUT` with the receipt in `dir`; the receipt's lines.
fn fix(input: &Path, out: &Path, dir: &Path) -> Vec<String> {
    let output = common::bin()
        .args(["fix", input.to_str().unwrap(), out.to_str().unwrap(), "--out-dir", dir.to_str().unwrap()])
        .args(["--config", "/dev/null", "--log-file", "/dev/null"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let receipt = std::fs::read_to_string(dir.join("fix.jsonl")).unwrap();
    receipt.lines().map(str::to_string).collect()
}

/// Lines mode 2 writes for a book.
fn mode2_lines(book: &Path, dir: &Path) -> usize {
    let output = common::bin()
        .args(["--config", "/dev/null", "--book", book.to_str().unwrap(), "--mode", "2", "--bom", "false"])
        .args(["--out-dir", dir.to_str().unwrap(), "--log-file", "/dev/null"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    std::fs::read_to_string(dir.join("mode2.txt")).unwrap().lines().count()
}

fn books(dir: &Path) -> Vec<PathBuf> {
    let synth = dir.join("synth.dat");
    let options = bookminer::synth::SynthOptions { positions: 20_000, seed: 11, perturb: 0.05 };
    std::fs::write(&synth, bookminer::synth::book_bytes(&options)).unwrap();
    vec![common::edax46(), common::data("books/egbk3/edax46-l2-small-perturbed.egbk3"), synth]
}

#[test]
fn the_test_books_start_out_stale() {
    let dir = tempfile::tempdir().unwrap();
    let stale = books(dir.path()).iter().filter(|b| mode2_lines(b, dir.path()) > 0).count();
    assert_eq!(stale, 2, "the perturbed .egbk3 and the synthetic book");
}

#[test]
fn after_fix_mode_2_finds_nothing_and_a_second_fix_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for input in books(dir.path()) {
        let name = input.file_name().unwrap().to_string_lossy().to_string();
        let once = dir.path().join(format!("once-{name}"));
        let twice = dir.path().join(format!("twice-{name}"));
        let first = fix(&input, &once, dir.path());
        assert_eq!(
            std::fs::metadata(&input).unwrap().len(),
            std::fs::metadata(&once).unwrap().len(),
            "{name}: the size is kept"
        );
        // Edax's own book is consistent already; the perturbed ones are not.
        if mode2_lines(&input, dir.path()) > 0 {
            assert!(!first.is_empty(), "{name}: the receipt lists what fix changed");
        }
        assert_eq!(mode2_lines(&once, dir.path()), 0, "{name}: mode 2 finds nothing after fix");
        assert_eq!(fix(&once, &twice, dir.path()), Vec::<String>::new(), "{name}: nothing left to change");
        assert_eq!(std::fs::read(&once).unwrap(), std::fs::read(&twice).unwrap(), "{name}: byte for byte");
    }
}

#[test]
fn fix_refuses_its_own_input_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.dat");
    std::fs::copy(common::edax46(), &input).unwrap();
    let link = dir.path().join("link.dat");
    std::fs::hard_link(&input, &link).unwrap();
    let before = std::fs::read(&input).unwrap();
    for out in [&input, &link] {
        let output = common::bin()
            .args(["fix", input.to_str().unwrap(), out.to_str().unwrap(), "--out-dir", dir.path().to_str().unwrap()])
            .args(["--config", "/dev/null", "--log-file", "/dev/null"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", out.display());
    }
    assert_eq!(std::fs::read(&input).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// A random book: positions along random lines, each link and leaf with a
/// random score, and a few positions no line from the start reaches.
fn random_book(seed: u64) -> Vec<Entry> {
    let mut rng = seed;
    let mut next = move |n: u64| {
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (rng >> 33) % n
    };
    let mut lines = Vec::new();
    for _ in 0..6 {
        let mut board = Board::INITIAL;
        let mut line = Vec::new();
        for _ in 0..(3 + next(6)) {
            let moves: Vec<_> = bookminer::board::Square::iter(board.legal_moves()).collect();
            if moves.is_empty() {
                break;
            }
            let mv = Move::Play(moves[next(moves.len() as u64) as usize]);
            board = board.after(mv).unwrap();
            line.push(mv);
        }
        lines.push(line);
    }
    let mut entries = common::book_from_lines(&lines);
    for e in &mut entries {
        e.value = Score(next(41) as i32 - 20);
        for link in &mut e.links {
            link.score = Score(next(41) as i32 - 20);
        }
        // Some leaves, some none.
        e.leaf = match next(3) {
            0 => None,
            _ => {
                let legal: Vec<_> = bookminer::board::Square::iter(e.board.legal_moves())
                    .filter(|s| e.links.iter().all(|l| l.mv != Move::Play(*s)))
                    .collect();
                legal.first().map(|&s| Link::new(Score(next(41) as i32 - 20), Move::Play(s)))
            }
        };
    }
    // An unreachable position: the start after a pass would be illegal, so
    // take a reachable board's sibling that no line plays.
    let orphan = normalize(&Board::INITIAL.after(Move::Play(bookminer::board::Square::parse("f5").unwrap())).unwrap())
        .board
        .after(Move::Play(bookminer::board::Square::parse("f4").unwrap()))
        .map(|b| normalize(&b).board);
    if let Some(board) = orphan.filter(|b| entries.iter().all(|e| e.board != *b)) {
        let mut e = Entry::new(board, 7);
        e.leaf =
            Some(Link::new(Score(3), Move::Play(bookminer::board::Square::iter(board.legal_moves()).next().unwrap())));
        entries.push(e);
    }
    entries
}

/// Edax's negamax value of each position reachable over links, the slow way:
/// recursion with a memo, children looked up by their normalized board.
fn reference_values(entries: &[Entry]) -> HashMap<Board, i32> {
    fn value(board: Board, by_board: &HashMap<Board, &Entry>, memo: &mut HashMap<Board, i32>) -> i32 {
        if let Some(&v) = memo.get(&board) {
            return v;
        }
        let e = by_board[&board];
        // A stored leaf counts whatever its move, when its score is above -127;
        // no leaf is written as (0, 65).
        let mut v = e.leaf.map_or(0, |l| l.score.0).max(-127);
        for link in &e.links {
            let child = normalize(&board.after(link.mv).unwrap()).board;
            if by_board.contains_key(&child) {
                v = v.max(-value(child, by_board, memo));
            }
        }
        memo.insert(board, v);
        v
    }
    let by_board: HashMap<Board, &Entry> = entries.iter().map(|e| (e.board, e)).collect();
    let mut memo = HashMap::new();
    value(normalize(&Board::INITIAL).board, &by_board, &mut memo);
    memo
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn values_and_link_scores_are_the_slow_negamax_s(seed in any::<u64>()) {
        let entries = random_book(seed);
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.dat");
        std::fs::write(&input, encode(&entries, 1)).unwrap();
        let out = dir.path().join("out.dat");
        fix(&input, &out, dir.path());
        let expected = reference_values(&entries);
        let fixed: HashMap<Board, _> =
            Book::open(&out, &Default::default()).unwrap().records().map(|r| (r.board(), r)).collect();
        for e in &entries {
            let r = &fixed[&e.board];
            prop_assert_eq!(r.leaf(), e.leaf, "leaves are never changed");
            match expected.get(&e.board) {
                Some(&v) => {
                    prop_assert_eq!(r.value().0, v);
                    for link in r.links() {
                        let child = normalize(&e.board.after(link.mv).unwrap()).board;
                        if let Some(&cv) = expected.get(&child) {
                            prop_assert_eq!(link.score.0, -cv, "link {:?}", link.mv);
                        }
                    }
                    // Sorted best first (SPEC §11 step 4).
                    let scores: Vec<i32> = r.links().map(|l| l.score.0).collect();
                    prop_assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{:?}", scores);
                }
                None => {
                    // Unreachable: the value and every link score as they were.
                    prop_assert_eq!(r.value(), e.value);
                    let mut before: Vec<_> = e.links.iter().map(|l| (l.mv.code(), l.score)).collect();
                    let mut after: Vec<_> = r.links().map(|l| (l.mv.code(), l.score)).collect();
                    before.sort();
                    after.sort();
                    prop_assert_eq!(before, after);
                }
            }
        }
    }
}
