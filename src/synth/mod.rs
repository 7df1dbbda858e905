//! `synth`: writes a realistic book of a chosen size, in any format
//! bookminer reads, for the sample book, tests and benchmarks, in bounded
//! memory whatever its size.
//!
//! The book is grown the way books are built, by lines from the initial
//! position: a level of discs at a time, each position's moves tried best
//! first by a cheap evaluation plus seeded noise, most positions continuing
//! their line and some branching, down to the end of the game
//! ([`grow`]). Then, from the deepest level up, every legal move whose child
//! is in the book becomes a link (so transpositions and the four symmetric
//! first moves are linked), the best other move becomes the leaf, scored as
//! a level-2 Edax search scores it, and each record is what Edax 4.6's `book
//! negamax` would leave (docs/formats.md, Edax books; docs/fix.md): Edax's own leaves where no move is
//! left unlinked, and value, bounds, counts and link scores computed children
//! first by [`crate::negamax`] (the computation `fix` uses) with the errors
//! the header states ([`records`]). A seeded fraction of records gets one
//! score changed so every mode finds mismatches. The records are written in
//! a seeded order, as a hash table's dump would have them.
//!
//! Memory holds two levels at a time (about 45 bytes a position of the
//! largest level, a thirtieth of the book) and a bucket of finished records
//! ([`spill`]); the rest waits in temporary files that have no name, so
//! nothing is left behind even when the process is killed. Every random
//! choice is seeded by the position it is about, so the same options give
//! the same bytes on every machine, whatever the number of threads.

mod error;
mod grow;
mod level;
mod options;
mod play;
mod records;
mod rng;
mod spill;

use crate::format::edax::entries as writer;
use crate::format::Format;
use crate::run::{Cancel, Control, Phase};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;

pub use error::SynthError;
pub use options::{SummaryLine, SynthOptions, SynthReport, MAX_POSITIONS};

/// The stages of a synthesis, as a user reads them, each a
/// [`Phase::Counting`] of the book's positions: grown, then linked,
/// searched and negamaxed, then written as records.
pub const STAGES: [&str; 3] = [GROWING, SCORING, WRITING];
const GROWING: &str = "growing positions";
const SCORING: &str = "linking, searching and negamaxing positions";
const WRITING: &str = "writing records";

/// Grows, links, scores and perturbs a book and writes it to `out` in
/// Edax's format, its temporary files in the system's temporary folder.
pub fn synthesize(options: &SynthOptions, out: &mut impl Write) -> io::Result<SynthReport> {
    synthesize_as(Format::Edax, options, out)
}

/// A synthetic Edax book written to memory (tests, benchmarks).
pub fn book_bytes(options: &SynthOptions) -> Vec<u8> {
    let mut bytes = Vec::new();
    synthesize(options, &mut bytes).expect("writing to memory does not fail");
    bytes
}

/// [`synthesize`], writing the book in the given format.
pub fn synthesize_as(format: Format, options: &SynthOptions, out: &mut impl Write) -> io::Result<SynthReport> {
    let never = AtomicBool::new(false);
    let control = Control { cancel: Cancel::new(&never), phase: &mut |_| {}, progress: &mut |_| {} };
    synthesize_in(format, options, out, &std::env::temp_dir(), control).map_err(|e| match e {
        SynthError::Spill(e) | SynthError::Write(e) => e,
        other => io::Error::other(other),
    })
}

/// Synthesizes a book into `out` in `format`: grown, scored and written as
/// the module's documentation says, its temporary files in `spill_dir` (a
/// folder with room for about twice the book; the files have no name).
/// `control` stops it and hears each of its [`STAGES`] counted.
pub fn synthesize_in(
    format: Format,
    options: &SynthOptions,
    out: &mut impl Write,
    spill_dir: &Path,
    control: Control<'_>,
) -> Result<SynthReport, SynthError> {
    synthesize_with(format, options, out, (spill_dir, control), grow::weight)
}

/// [`synthesize_in`] with the levels' weights given (tests).
fn synthesize_with(
    format: Format,
    options: &SynthOptions,
    out: &mut impl Write,
    (spill_dir, mut control): (&Path, Control<'_>),
    weight: impl Fn(usize) -> u64,
) -> Result<SynthReport, SynthError> {
    let cancel = control.cancel;
    let total = options.positions.clamp(1, MAX_POSITIONS) as u64;
    let began = std::time::Instant::now();
    let mut levels = spill::LevelFile::create(spill_dir).map_err(SynthError::Spill)?;
    control.phase(Phase::Counting { what: GROWING, total });
    grow::grow(total, options.seed, weight, &mut levels, cancel, &mut |done| control.counted(done))?;
    tracing::info!("grew {total} positions in {:.1} s", began.elapsed().as_secs_f64());
    let header = writer::header(total as usize, play::LEVEL.to_i32());
    // The negamax reads the errors the header states, as Edax does.
    let errors = header.search_errors();
    let mut buckets = spill::Buckets::create(spill_dir, total).map_err(SynthError::Spill)?;
    let scoring = records::Scoring { format, options, errors, cancel };
    control.phase(Phase::Counting { what: SCORING, total });
    let report = records::score(&mut levels, &scoring, &mut buckets, &mut |done| control.counted(done))?;
    drop(levels);
    tracing::info!("linked, searched and negamaxed in {:.1} s", began.elapsed().as_secs_f64());
    let mut head = Vec::new();
    format.encode_entries_header(&mut head, total as usize, &header);
    out.write_all(&head).map_err(SynthError::Write)?;
    control.phase(Phase::Counting { what: WRITING, total });
    buckets.write_sorted(out, |done| {
        control.counted(done);
        !control.interrupted()
    })?;
    tracing::info!("wrote in {:.1} s", began.elapsed().as_secs_f64());
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::book::verify::verify;
    use crate::book::Details;
    use crate::format::edax;
    use crate::negamax::{self, EdaxPosition, Negamaxed};
    use crate::run::Progress;
    use crate::symmetry::normalize;
    use std::collections::HashMap;

    fn book(positions: usize, seed: u64, perturb: f64) -> (Vec<u8>, SynthReport) {
        let mut bytes = Vec::new();
        let report = synthesize(&SynthOptions { positions, seed, perturb }, &mut bytes).unwrap();
        (bytes, report)
    }

    #[test]
    fn the_same_options_give_the_same_bytes() {
        assert_eq!(book(500, 7, 0.1), book(500, 7, 0.1));
        assert_ne!(book(500, 7, 0.1).0, book(500, 8, 0.1).0);
    }

    #[test]
    fn a_synthesized_book_verifies_clean_and_has_what_was_asked() {
        let (bytes, report) = book(3000, 3, 0.05);
        let verified = verify(&bytes);
        assert!(verified.is_clean(), "{:?}", &verified.problems[..verified.problems.len().min(5)]);
        assert_eq!(verified.records, 3000);
        assert_eq!(report.positions, 3000);
        assert!(report.passes > 0, "{report:?}");
        assert!(report.perturbed > 50, "{report:?}");
    }

    #[test]
    fn an_unperturbed_book_is_consistent() {
        let (bytes, _) = book(2000, 5, 0.0);
        let book = crate::book::Book::from_bytes("synth", bytes).unwrap();
        for record in book.records() {
            let board = record.board();
            let scores: Vec<i32> = record.moves().map(|l| l.score.0).collect();
            if let Some(best) = scores.iter().max() {
                assert_eq!(record.value().0, *best, "value is the best move's score");
            }
            for link in record.links() {
                let child = normalize(&board.after(link.mv).unwrap()).board;
                let child = book.find(&child).expect("a link's child is in the book");
                assert_eq!(link.score.0, -child.value().0, "a link's score is minus its child's value");
            }
        }
    }

    /// Edax's `book negamax` run as Edax runs it (docs/fix.md): from the initial
    /// position, depth first, each record computed once after its children,
    /// by src/negamax.rs. Returns what it computed, by board.
    fn edax_negamax(book: &crate::book::Book, bytes: &[u8]) -> HashMap<Board, Negamaxed> {
        let header = edax::parse_header(bytes).unwrap();
        let errors = header.search_errors();
        let mut done = HashMap::new();
        visit(book, bytes, errors, normalize(&Board::INITIAL).board, &mut done);
        done
    }

    fn visit(
        book: &crate::book::Book,
        bytes: &[u8],
        errors: crate::negamax::SearchErrors,
        board: Board,
        done: &mut HashMap<Board, Negamaxed>,
    ) -> Negamaxed {
        if let Some(&known) = done.get(&board) {
            return known;
        }
        let record = book.find(&board).expect("a linked position is in the book");
        // The stored leaf, whatever its move (65 included).
        let leaf = crate::format::edax::record_at(bytes, record.offset as usize).expect("a record").leaf();
        let position =
            EdaxPosition { empties: board.empties() as u8, level: crate::level::Level::saturating(record.level), leaf };
        let children: Vec<_> = record
            .links()
            .map(|l| Some(visit(book, bytes, errors, normalize(&board.after(l.mv).unwrap()).board, done)))
            .collect();
        let out = negamax::edax_position(&position, errors, children);
        done.insert(board, out);
        out
    }

    #[test]
    fn an_unperturbed_book_is_what_edax_s_negamax_makes_of_it() {
        for (positions, seed) in [(3000, 1), (20_000, 4)] {
            let (bytes, _) = book(positions, seed, 0.0);
            let book = crate::book::Book::from_bytes("synth", bytes.clone()).unwrap();
            let done = edax_negamax(&book, &bytes);
            assert_eq!(done.len(), positions, "every record is reachable from the initial position");
            for record in book.records() {
                let board = record.board();
                let own = done[&board];
                let Details::Edax { counts, lower, upper } = record.details else { panic!("an Edax record") };
                let stored = (record.value(), lower, upper, counts);
                let c = own.counts;
                let computed = (own.value, own.lower, own.upper, [c.wins, c.draws, c.losses, c.lines]);
                assert_eq!(stored, computed, "{board:?}");
                let scores: Vec<i32> = record.links().map(|l| l.score.0).collect();
                assert!(scores.windows(2).all(|w| w[0] >= w[1]), "links sorted as Edax sorts them: {scores:?}");
                for link in record.links() {
                    let child = done[&normalize(&board.after(link.mv).unwrap()).board];
                    assert_eq!(link.score, negamax::edax_link_score(&child));
                }
            }
        }
    }

    #[test]
    fn leaves_are_stored_as_edax_stores_them() {
        let (bytes, _) = book(20_000, 2, 0.0);
        let book = crate::book::Book::from_bytes("synth", bytes.clone()).unwrap();
        let (mut all_linked, mut finished) = (0, 0);
        for record in book.records().filter(|r| r.leaf().is_none()) {
            let board = record.board();
            let leaf_score = bytes[record.offset as usize + 40 + 2 * record.n_links()] as i8;
            if board.is_game_over() {
                assert_eq!(i32::from(leaf_score), board.final_score());
                assert_eq!(record.value().0, board.final_score());
                finished += 1;
            } else {
                assert_eq!(leaf_score, -127, "every legal move is linked");
                all_linked += 1;
            }
        }
        assert!(all_linked > 0 && finished > 0, "{all_linked} {finished}");
    }

    #[test]
    fn the_egaroucid_book_has_the_edax_book_s_values() {
        let options = SynthOptions { positions: 2000, seed: 6, perturb: 0.0 };
        let (mut edax_bytes, mut egbk3_bytes) = (Vec::new(), Vec::new());
        synthesize_as(Format::Edax, &options, &mut edax_bytes).unwrap();
        synthesize_as(Format::Egbk3, &options, &mut egbk3_bytes).unwrap();
        let edax_book = crate::book::Book::from_bytes("synth.dat", edax_bytes).unwrap();
        let egbk3_book = crate::book::Book::from_bytes("synth.egbk3", egbk3_bytes).unwrap();
        let lines = |r: &crate::book::Record| match r.details {
            Details::Edax { counts, .. } => counts[3],
            Details::Egaroucid { n_lines, .. } => n_lines,
        };
        for (a, b) in edax_book.records().zip(egbk3_book.records()) {
            assert_eq!((a.board(), a.value(), lines(&a)), (b.board(), b.value(), lines(&b)));
            assert_eq!(a.leaf().map(|l| (l.mv, l.score)), b.leaf().map(|l| (l.mv, l.score)));
        }
    }

    #[test]
    fn the_root_links_all_four_symmetric_first_moves() {
        let (bytes, _) = book(100, 1, 0.0);
        let book = crate::book::Book::from_bytes("synth", bytes).unwrap();
        let root = book.find(&normalize(&Board::INITIAL).board).unwrap();
        assert_eq!(root.n_links(), 4);
        assert!(root.leaf().is_none());
    }

    /// Every position of a book, reached from the initial position over
    /// links, by a plain depth-first search.
    fn reachable(book: &crate::book::Book) -> usize {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![normalize(&Board::INITIAL).board];
        while let Some(board) = stack.pop() {
            if !seen.insert(board) {
                continue;
            }
            let record = book.find(&board).expect("a linked position is in the book");
            stack.extend(record.links().map(|l| normalize(&board.after(l.mv).unwrap()).board));
        }
        seen.len()
    }

    #[test]
    fn a_book_has_exactly_the_positions_asked_for_all_reachable_over_links() {
        for positions in [1, 2, 3, 5, 17, 61, 62, 100, 999, 4321] {
            let (bytes, report) = book(positions, 9, 0.02);
            let verified = verify(&bytes);
            assert!(verified.is_clean(), "{positions}: {:?}", &verified.problems[..verified.problems.len().min(3)]);
            assert_eq!((verified.records, report.positions), (positions as u64, positions as u64));
            let book = crate::book::Book::from_bytes("synth", bytes).unwrap();
            assert_eq!(reachable(&book), positions, "{positions}: every position is reached");
        }
    }

    #[test]
    fn levels_that_cannot_take_their_share_are_made_up_for_above_them() {
        // Nearly everything asked of the last levels, which few moves reach.
        let end_heavy = |level: usize| if level >= 58 { 1_000_000 } else { 1 };
        let options = SynthOptions { positions: 3000, seed: 4, perturb: 0.0 };
        let never = AtomicBool::new(false);
        let mut bytes = Vec::new();
        let control = Control { cancel: Cancel::new(&never), phase: &mut |_| {}, progress: &mut |_| {} };
        let spill_dir = std::env::temp_dir();
        let report = synthesize_with(Format::Edax, &options, &mut bytes, (&spill_dir, control), end_heavy).unwrap();
        assert_eq!(report.positions, 3000);
        let book = crate::book::Book::from_bytes("synth", bytes.clone()).unwrap();
        assert_eq!(reachable(&book), 3000);
        let done = edax_negamax(&book, &bytes);
        assert_eq!(done.len(), 3000);
    }

    #[test]
    fn a_cancelled_synthesis_stops_and_writes_nothing() {
        let options = SynthOptions { positions: 5000, seed: 1, perturb: 0.0 };
        let cancel = AtomicBool::new(false);
        // The stage under way, and each count it heard.
        let stage = std::cell::Cell::new("");
        let mut counts = Vec::new();
        let mut bytes = Vec::new();
        let mut phase = |phase: Phase| {
            let Phase::Counting { what, total } = phase else { panic!("a counted stage: {phase:?}") };
            assert_eq!(total, 5000);
            stage.set(what);
        };
        let mut progress = |progress: Progress<'_>| {
            let Progress::Counted(done) = progress else { panic!("a count: {progress:?}") };
            counts.push((stage.get(), done));
            if stage.get() == SCORING {
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        };
        let control = Control { cancel: Cancel::new(&cancel), phase: &mut phase, progress: &mut progress };
        let result = synthesize_in(Format::Edax, &options, &mut bytes, &std::env::temp_dir(), control);
        assert!(matches!(result, Err(SynthError::Interrupted(_))), "{result:?}");
        assert!(bytes.is_empty());
        assert!(counts.contains(&(GROWING, 5000)), "{counts:?}");
    }

    #[test]
    fn progress_counts_every_stage_up_to_the_book() {
        let options = SynthOptions { positions: 2500, seed: 2, perturb: 0.1 };
        let never = AtomicBool::new(false);
        let stage = std::cell::Cell::new("");
        let mut last = HashMap::new();
        let mut bytes = Vec::new();
        let mut phase = |phase: Phase| {
            let Phase::Counting { what, total } = phase else { panic!("a counted stage: {phase:?}") };
            assert_eq!(total, 2500);
            stage.set(what);
        };
        let mut progress = |progress: Progress<'_>| {
            let Progress::Counted(done) = progress else { panic!("a count: {progress:?}") };
            let name = stage.get();
            let before = last.insert(name, done).unwrap_or(0);
            assert!(done >= before, "{name}: {before} then {done}");
        };
        let control = Control { cancel: Cancel::new(&never), phase: &mut phase, progress: &mut progress };
        synthesize_in(Format::Edax, &options, &mut bytes, &std::env::temp_dir(), control).unwrap();
        assert_eq!(last, STAGES.map(|name| (name, 2500)).into_iter().collect::<HashMap<_, _>>());
    }
}
