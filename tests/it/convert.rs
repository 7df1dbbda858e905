//! Books written by `convert` and `cut`, read back: round trips keep every
//! board, value and level (SPEC §9 says what is lost), a cut keeps exactly
//! what the windowed walk reaches (§12), and the binary refuses what it
//! must (its own input as output, a format it cannot tell).

use bookminer::board::{Board, Move};
use bookminer::book::{Book, Destination, Details, Format};
use bookminer::convert::{convert, OutFormat};
use bookminer::cut::cut;
use bookminer::run::{Cancel, Control, Phase};
use bookminer::walk::{walk, Arrival, Start, Visitor, Walkable};
use bookminer::window::Window;
use proptest::prelude::*;
use std::collections::HashMap;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::common;

static NEVER: AtomicBool = AtomicBool::new(false);

/// Runs `f` with a control that never cancels and shows nothing.
fn quietly<T>(f: impl FnOnce(Control<'_>) -> T) -> T {
    let mut phase = |_: Phase| {};
    let mut progress = |_: bookminer::run::Progress<'_>| {};
    f(Control { cancel: Cancel::new(&NEVER), phase: &mut phase, progress: &mut progress })
}

fn converted(input: &Path, to: OutFormat, out: &Path) -> PathBuf {
    let book = Book::open(input, &Default::default()).unwrap();
    quietly(|c| convert(book, to, out, c)).unwrap();
    out.to_path_buf()
}

/// What a record says that both formats hold: value, level (as the target
/// clamps it) and line count, by board.
fn facts(path: &Path) -> HashMap<Board, (i32, i32, u32)> {
    let book = Book::open(path, &Default::default()).unwrap();
    book.records()
        .map(|r| {
            let lines = match r.details {
                Details::Edax { counts, .. } => counts[3],
                Details::Egaroucid { n_lines, .. } => n_lines,
            };
            (r.board(), (r.value().discs(), r.level, lines))
        })
        .collect()
}

#[test]
fn edax_to_egbk3_and_back_keeps_every_board_value_and_level() {
    let dir = tempfile::tempdir().unwrap();
    let synth = dir.path().join("synth.dat");
    let options = bookminer::synth::SynthOptions { positions: 30_000, seed: 5, perturb: 0.0 };
    std::fs::write(&synth, bookminer::synth::book_bytes(&options)).unwrap();
    round_trip_through_egbk3(&common::edax46(), dir.path(), false);
    round_trip_through_egbk3(&synth, dir.path(), true);
}

fn round_trip_through_egbk3(edax: &Path, dir: &Path, has_passes: bool) {
    let edax = edax.to_path_buf();
    let egbk3 = converted(&edax, OutFormat::Egbk3, &dir.join("a.egbk3"));
    let back = converted(&egbk3, OutFormat::Edax, &dir.join("b.dat"));
    let (original, middle, last) = (facts(&edax), facts(&egbk3), facts(&back));
    let mut passes = 0;
    for (board, &(value, level, lines)) in &original {
        // What §9.2 leaves out: positions whose side must pass; those whose
        // position after the pass is in the book come back as pass records
        // (§9.1), valued minus the child.
        if board.must_pass() {
            assert!(!middle.contains_key(board));
            if let Some(&(back, ..)) = last.get(board) {
                assert_eq!(back, value, "pass record {board:?}");
                passes += 1;
            }
            continue;
        }
        assert_eq!(middle[board], (value, level.clamp(0, 60), lines), "{board:?}");
        assert_eq!(last[board], (value, level.clamp(1, 60), lines), "{board:?}");
    }
    assert_eq!(passes > 0, has_passes, "{}: pass records", edax.display());
    // A position before a pass that the Edax book did not store comes in as
    // a pass record where Egaroucid's link goes through it.
    let added: Vec<_> = last.keys().filter(|b| !original.contains_key(b)).collect();
    assert!(added.iter().all(|b| b.must_pass()), "only pass records are added");
    assert_eq!(last.len(), middle.len() + passes + added.len(), "every position comes back");
}

#[test]
fn egbk3_to_edax_and_back_keeps_every_record_but_the_added_passes() {
    let dir = tempfile::tempdir().unwrap();
    let egbk3 = common::data("books/egbk3/edax46-l2-small-perturbed.egbk3");
    let edax = converted(&egbk3, OutFormat::Edax, &dir.path().join("a.dat"));
    let back = converted(&edax, OutFormat::Egbk3, &dir.path().join("b.egbk3"));
    let (original, middle, last) = (facts(&egbk3), facts(&edax), facts(&back));
    assert_eq!(original, last, "values, levels and line counts come back whole");
    let added: Vec<_> = middle.keys().filter(|b| !original.contains_key(b)).collect();
    assert!(added.iter().all(|b| b.must_pass()), "only pass records are added");
}

#[test]
fn a_book_converted_to_its_own_format_holds_the_same_records_in_walk_order() {
    let dir = tempfile::tempdir().unwrap();
    for (input, to, name) in [
        (common::edax46(), OutFormat::Edax, "same.dat"),
        (common::data("books/egbk3/edax46-l2-small.egbk3"), OutFormat::Egbk3, "same.egbk3"),
    ] {
        let out = converted(&input, to, &dir.path().join(name));
        assert_eq!(facts(&input), facts(&out), "{name}");
        assert_eq!(std::fs::metadata(&input).unwrap().len(), std::fs::metadata(&out).unwrap().len(), "{name}");
        // In walk order, a walk reads the file front to back: the first
        // arrival at each record is in increasing record order.
        let order = first_arrivals(&out, &Start::initial(), Window::NONE);
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{name}: walk order");
    }
}

/// The records of first arrivals, in walk order.
fn first_arrivals(path: &Path, start: &Start, window: Window) -> Vec<u32> {
    #[derive(Default)]
    struct Firsts(Vec<u32>, std::collections::HashSet<u32>);
    impl Visitor for Firsts {
        type Error = Infallible;
        fn arrive(&mut self, a: &Arrival<'_>) -> Result<(), Infallible> {
            if self.1.insert(a.child.id.index() as u32) {
                self.0.push(a.child.id.index() as u32);
            }
            Ok(())
        }
    }
    let walkable = Walkable::new(Book::open(path, &Default::default()).unwrap(), start).unwrap().within(window);
    walk(&walkable, Firsts::default()).unwrap().1 .0
}

/// Every arrival's line and the child's board, in walk order.
fn arrivals(path: &Path, start: &Start, window: Window) -> Vec<(Vec<Move>, Board)> {
    struct All(Vec<(Vec<Move>, Board)>);
    impl Visitor for All {
        type Error = Infallible;
        fn arrive(&mut self, a: &Arrival<'_>) -> Result<(), Infallible> {
            self.0.push((a.line.to_vec(), a.child.board()));
            Ok(())
        }
    }
    let walkable = Walkable::new(Book::open(path, &Default::default()).unwrap(), start).unwrap().within(window);
    walk(&walkable, All(Vec::new())).unwrap().1 .0
}

/// The boards `book` holds of the positions on `start`'s line before the
/// start, found by replaying the line and asking the book board by board.
fn held_on_the_line(book: &std::path::Path, start: &Start) -> Vec<Board> {
    let whole = Book::open(book, &Default::default()).unwrap();
    let held: std::collections::HashSet<Board> = whole.records().map(|r| r.board()).collect();
    let mut board = Board::INITIAL;
    let mut found = Vec::new();
    for &mv in &start.line {
        let normal = bookminer::symmetry::normalize(&board).board;
        if held.contains(&normal) {
            found.push(normal);
        }
        board = board.after(mv).unwrap();
    }
    found
}

fn limit(n: i32) -> Option<u32> {
    u32::try_from(n).ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// SPEC §12: a cut holds the records of the start line before the
    /// start, the start's record and the records the windowed walk arrives
    /// at; every Edax link leads into it; it is walked from the initial
    /// position as any book; and the
    /// windowed walk over it arrives as over the whole book.
    #[test]
    fn a_cut_keeps_what_the_windowed_walk_reaches(
        book in 0usize..3,
        deviation in -1i32..5,
        error in -1i32..8,
        max_ply in -1i32..16,
        start in prop::sample::select(vec!["", "f5", "f5d6", "f5f6e6"]),
    ) {
        let input = common::data(["books/edax46-l2-small.dat", "books/egbk3/edax46-l2-small.egbk3",
            "books/egbk3/edax46-l2-small-perturbed.egbk3"][book]);
        let window = Window { deviation: limit(deviation), error: limit(error), max_ply: limit(max_ply) };
        let (board, line) = bookminer::kifu::parse_and_play(start).unwrap();
        let start = Start { board, line };
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("cut.bin");
        let whole = Book::open(&input, &Default::default()).unwrap();
        let is_edax = whole.format() == Format::Edax;
        quietly(|c| cut(whole, &start, window, &out, c)).unwrap();

        let before = arrivals(&input, &start, window);
        let mut expected: Vec<Board> = vec![bookminer::symmetry::normalize(&start.board).board];
        expected.extend(before.iter().map(|(_, b)| *b));
        expected.extend(held_on_the_line(&input, &start));
        expected.sort();
        expected.dedup();
        let kept = Book::open(&out, &Default::default()).unwrap();
        let mut held: Vec<Board> = kept.records().map(|r| r.board()).collect();
        held.sort();
        prop_assert_eq!(&held, &expected, "the cut holds exactly what the walk reached");

        let initial = Start { board: Board::INITIAL, line: Vec::new() };
        prop_assert!(Walkable::new(Book::open(&out, &Default::default()).unwrap(), &initial).is_ok(),
            "the cut book holds the initial position");
        if is_edax {
            let resolved = Walkable::new(Book::open(&out, &Default::default()).unwrap(), &start).unwrap();
            let book = resolved.book();
            for at in book.file().every_record() {
                let mut targets = Vec::new();
                let record = book.read(at, &mut targets);
                for (i, target) in targets.iter().take(record.n_links()).enumerate() {
                    prop_assert!(matches!(target, Destination::Child(..)), "{:?}: link {} leads nowhere", record.board(), i);
                }
            }
        }
        // The exception SPEC §12 names for Egaroucid books: a best move that
        // fails `error` is no longer a link, so a deviation measured from it
        // moves. And one it does not name: a stored leaf on a linked move is
        // not a move of its own (§8), but where the cut drops that link, the
        // leaf is one again, with its own score, which can raise M.
        let egaroucid_exception = !is_edax
            && window.deviation.is_some()
            && (window.error.is_some() || leaf_comes_back(&input, &out));
        if !egaroucid_exception {
            let after = arrivals(&out, &start, window);
            let first_difference = after.iter().zip(&before).position(|(a, b)| a != b);
            prop_assert!(
                after == before,
                "{window:?}: {} arrivals against {}, first difference at {first_difference:?}: {:?} against {:?}",
                after.len(),
                before.len(),
                first_difference.map(|i| &after[i]),
                first_difference.map(|i| &before[i])
            );
        }
    }
}

/// True if a record of the cut book has a leaf that, in the whole book,
/// was the move of one of its links.
fn leaf_comes_back(whole: &Path, cut: &Path) -> bool {
    let whole = Book::open(whole, &Default::default()).unwrap();
    Book::open(cut, &Default::default())
        .unwrap()
        .records()
        .any(|r| r.leaf().is_some() && whole.find(&r.board()).is_some_and(|w| w.leaf().is_none()))
}

fn run(args: &[&str]) -> std::process::Output {
    common::bin().args(args).args(["--config", "/dev/null", "--log-file", "/dev/null"]).output().unwrap()
}

#[test]
fn convert_refuses_to_write_over_its_input_by_any_path() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.dat");
    std::fs::copy(common::edax46(), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let link = dir.path().join("link.dat");
    std::fs::hard_link(&input, &link).unwrap();
    for out in [&input, &link] {
        for command in ["convert", "cut"] {
            let output = run(&[command, input.to_str().unwrap(), out.to_str().unwrap()]);
            assert_eq!(output.status.code(), Some(2), "{command} {}", out.display());
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains("the book being read"), "{stderr}");
        }
    }
    assert_eq!(std::fs::read(&input).unwrap(), before, "the input is untouched");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "nothing temporary is left: {names:?}");
}

#[test]
fn convert_needs_a_format_it_can_tell() {
    let dir = tempfile::tempdir().unwrap();
    let edax = common::edax46();
    let out = dir.path().join("book.bin");
    let output = run(&["convert", edax.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--to"), "the message says how");
    assert!(!out.exists());
    let output = run(&["convert", edax.to_str().unwrap(), out.to_str().unwrap(), "--to", "zip"]);
    assert_eq!(output.status.code(), Some(2));
    let output = run(&["convert", edax.to_str().unwrap(), out.to_str().unwrap(), "--to", "EGBK3"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(Book::open(&out, &Default::default()).unwrap().format(), Format::Egbk3);
    let summary = String::from_utf8_lossy(&output.stdout);
    for word in ["records read", "records written", "pass records added", "left out", "lost"] {
        assert!(summary.contains(word), "the summary says {word}: {summary}");
    }
}

#[test]
fn cut_names_the_key_of_a_bad_window() {
    let dir = tempfile::tempdir().unwrap();
    let edax = common::edax46();
    let out = dir.path().join("cut.dat");
    for (flag, value) in [("--deviation", "-3"), ("--max-ply", "x"), ("--error", "1.5")] {
        let output = run(&["cut", edax.to_str().unwrap(), out.to_str().unwrap(), flag, value]);
        assert_eq!(output.status.code(), Some(2), "{flag} {value}");
        assert!(String::from_utf8_lossy(&output.stderr).contains(flag), "{flag} {value}");
    }
    assert!(!out.exists());
}
