//! Arbitrary bytes as a book file, Edax or Egaroucid's .egbk3, .egbk2 or .egbk
//! (the seeds hold all four, and the format is told by the first bytes and,
//! for .egbk, the size): loading, the walk with every mismatch rule, `verify`
//! and `stats` must never panic, and must agree with each other on what they
//! accept (SPEC §7, §8, §8.1).

#![no_main]

use bookminer::board::Board;
use bookminer::level::Level;
use bookminer::book::verify::verify;
use bookminer::book::{Book, Format as BookFormat, Problem, ReadOptions};
use bookminer::rules::mismatch::{Found, Recorder};
use bookminer::rules::modes::{Linkless, Mode, Rules};
use bookminer::output::print::LineText;
use bookminer::output::{LineStyle, Orientation, RecordFormat};
use bookminer::stats::book_stats;
use bookminer::symmetry::normalize;
use bookminer::walk::{walk, Arrival, Start, Visitor, Walkable, WalkError};
use libfuzzer_sys::fuzz_target;
use std::convert::Infallible;

/// Judges every arrival under all four modes, as `mine` does, prints the
/// records it would write in every format, and checks that each arrival's
/// line really reaches the child it reports.
struct Judge {
    recorder: Recorder,
    format: LineStyle,
    text: String,
    printed: String,
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
        assert_eq!(reached, arrival.board(), "the arrival's board is the one its line reaches");

        let (format, text, printed) = (&self.format, &mut self.text, &mut self.printed);
        self.recorder.arrival(arrival, |found| {
            if let Found::Record { record, .. } = found {
                text.clear();
                let symmetry = format.render(record.line, text);
                let line = LineText { kifu: text, symmetry };
                for f in RecordFormat::ALL {
                    printed.clear();
                    f.printer().print(record, &line, printed);
                    assert!(printed.ends_with('\n') && printed.matches('\n').count() == 1 + text.matches('\n').count());
                }
            }
            Ok(())
        })
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
            | Problem::TooManyRecords { .. }
            | Problem::UnreadableValue { .. }
            | Problem::TrailingBytes { .. }
            | Problem::EgbkSize { .. }
            | Problem::Egbk3Version { .. }
    )
}

fuzz_target!(|data: &[u8]| {
    let report = verify(data);
    for problem in &report.problems {
        let _ = problem.to_string();
    }

    // The .egbk level from the data, so that merges at every level are tried.
    let options = ReadOptions { egbk_level: data.last().map_or(ReadOptions::EGBK_LEVEL, |b| Level::saturating(i32::from(b % 61))) };
    let book = match Book::from_bytes_with("fuzz.dat", data.to_vec(), &options) {
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
    assert_eq!(book.format(), BookFormat::of(data), "the book says what the file is");
    let counts = book.counts();
    let file_records = counts.records + counts.merged;
    assert_eq!(report.records, file_records, "verify and load count the same records");
    assert_eq!(report.merged.len() as u64, counts.merged, "verify lists every record merged away");
    for record in book.records() {
        let place = book.file().place_of(&record);
        assert!((1..=file_records).contains(&place.number) && place.offset < data.len() as u64);
    }
    assert!(counts.positions <= counts.records);
    assert_eq!(book_stats(&book).positions, counts.positions);

    let visitor = Judge {
        recorder: Recorder::new(&Mode::ALL, Rules { min_gap: 1, linkless: Linkless::Report }),
        format: LineStyle { orientation: Orientation::F5, pass_token: "PS".into() },
        text: String::new(),
        printed: String::new(),
    };
    match Walkable::new(book, &Start::initial()).map_err(WalkError::from).and_then(|w| walk(&w, visitor)) {
        Ok((stats, _)) => assert!(stats.arrivals <= stats.edges),
        Err(e) => {
            let _ = e.to_string();
            assert!(!report.is_clean(), "verify passes a book whose walk fails: {e}");
        }
    }
});
