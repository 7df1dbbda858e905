//! Arbitrary bytes as a book file: loading, the walk with every mismatch
//! rule, `verify` and `stats` must never panic, and must agree with each other
//! on what they accept (SPEC §7).

#![no_main]

use bookminer::board::{Board, Move};
use bookminer::book::format::Problem;
use bookminer::book::verify::verify;
use bookminer::book::{Book, Score};
use bookminer::modes::{judge, ArrivalScores, Linkless, Mode, Rules, Target};
use bookminer::output::{KifuFormat, Orientation};
use bookminer::stats::book_stats;
use bookminer::symmetry::normalize;
use bookminer::walk::{walk, Arrival, Start, Visitor};
use libfuzzer_sys::fuzz_target;
use std::convert::Infallible;

/// Judges every arrival under all four modes, as `mine` does, renders the
/// lines it would write, and checks that each arrival's line really reaches
/// the child it reports.
struct Judge {
    rules: Rules,
    format: KifuFormat,
    text: String,
}

impl Visitor for Judge {
    type Error = Infallible;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Infallible> {
        let reached = arrival
            .line
            .iter()
            .try_fold(Board::INITIAL, |board, &mv| board.after(mv))
            .expect("an arrival's line is legal from the initial position");
        assert_eq!(normalize(&reached).board, arrival.child.board(), "the line reaches the reported child");

        let child = &arrival.child;
        let links: Vec<Score> = child.links().map(|l| l.score).collect();
        let scores =
            ArrivalScores { parent: arrival.parent_score, value: child.value(), links: &links, leaf: child.leaf().map(|l| l.score) };
        let mut line: Vec<Move> = Vec::with_capacity(arrival.line.len() + 1);
        for mode in Mode::ALL {
            let Some(verdict) = judge(mode, &self.rules, &scores) else { continue };
            for target in verdict.targets {
                line.clear();
                line.extend_from_slice(arrival.line);
                if let Target::Move(i) = target {
                    let stored = child.move_at(i).expect("a verdict names moves of its child");
                    line.push(arrival.child_symmetry.apply_move(stored.mv));
                }
                self.text.clear();
                self.format.render(&line, &mut self.text);
            }
        }
        Ok(())
    }
}

/// Problems that `Book::from_bytes` refuses a file for: a book that loads has none.
fn stops_loading(problem: &Problem) -> bool {
    matches!(
        problem,
        Problem::ShortHeader { .. }
            | Problem::BadMagic { .. }
            | Problem::BadVersion { .. }
            | Problem::Truncated { .. }
            | Problem::BadMoveCode { .. }
            | Problem::NoMoveLink { .. }
            | Problem::Overlap { .. }
            | Problem::EmptyCentre { .. }
            | Problem::Duplicate { .. }
    )
}

fuzz_target!(|data: &[u8]| {
    let report = verify(data);
    for problem in &report.problems {
        let _ = problem.to_string();
    }

    let mut book = match Book::from_bytes("fuzz.dat", data.to_vec()) {
        Ok(book) => book,
        Err(e) => {
            let _ = e.to_string();
            assert!(!report.is_clean(), "verify passes a book that does not load: {e}");
            return;
        }
    };
    if let Some(p) = report.problems.iter().find(|e| stops_loading(&e.problem)) {
        panic!("the book loads, but verify says: {p}");
    }
    let counts = book.store().counts();
    assert_eq!(report.records, counts.positions, "verify and load count the same records");
    assert_eq!(book_stats(&book).positions, counts.positions);

    let visitor = Judge {
        rules: Rules { min_gap: 1, linkless: Linkless::Report },
        format: KifuFormat { orientation: Orientation::F5, pass_token: "PS".into() },
        text: String::new(),
    };
    match walk(&mut book, &Start::initial(), visitor) {
        Ok((stats, _)) => assert!(stats.arrivals <= stats.edges),
        Err(e) => {
            let _ = e.to_string();
            assert!(!report.is_clean(), "verify passes a book whose walk fails: {e}");
        }
    }
});
