//! Properties over many generated books: random legal games read back whole,
//! and damaged books (flipped bytes, cut files) that never panic and whose
//! load errors say where the damage is.

use bookminer::board::{Board, Move};
use bookminer::book::verify::verify;
use bookminer::book::Problem;
use bookminer::book::{Book, BookError};
use bookminer::format::edax::entries::encode;
use bookminer::symmetry::normalize;
use bookminer::synth::{synthesize, SynthOptions};
use bookminer::walk::{walk, Arrival, Start, Visitor, Walkable};
use proptest::prelude::*;

use crate::common;
use common::{boards_along, book_from_lines, game_of};
use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::OnceLock;

/// A visitor that only lets the walk count.
struct Count;

impl Visitor for Count {
    type Error = Infallible;
    fn arrive(&mut self, _: &Arrival<'_>) -> Result<(), Infallible> {
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_games_are_stored_found_verified_and_walked_whole(
        games in prop::collection::vec(prop::collection::vec(any::<u16>(), 0..=60), 1..=4)
    ) {
        let lines: Vec<Vec<Move>> = games.iter().map(|g| game_of(g)).collect();
        let entries = book_from_lines(&lines);
        let bytes = encode(&entries, 1);
        let report = verify(&bytes);
        prop_assert!(report.is_clean(), "{:?}", report.problems.iter().map(|e| e.to_string()).collect::<Vec<_>>());
        prop_assert_eq!(report.records as usize, entries.len());

        let book = Book::from_bytes("games", bytes).unwrap();
        for line in &lines {
            for board in boards_along(line) {
                let stored = normalize(&board).board;
                let found = book.find(&stored);
                prop_assert!(found.is_some(), "{:?} after {:?} is not found", board, line);
                prop_assert_eq!(found.unwrap().board(), stored);
            }
        }

        let pairs: HashSet<(Board, u8)> = entries
            .iter()
            .flat_map(|e| e.links.iter().chain(&e.leaf).map(move |l| (e.board, l.mv.code())))
            .collect();
        let (stats, _) = walk(&Walkable::new(book, &Start::initial()).unwrap(), Count).unwrap();
        prop_assert_eq!(stats.edges as usize, pairs.len(), "every stored (position, move) pair is followed once");
        prop_assert_eq!(stats.positions as usize, entries.len(), "every stored position is reached");
    }
}

/// A small synthesized book, made once.
fn small_book() -> &'static [u8] {
    static BOOK: OnceLock<Vec<u8>> = OnceLock::new();
    BOOK.get_or_init(|| {
        let mut bytes = Vec::new();
        synthesize(&SynthOptions { positions: 300, seed: 11, perturb: 0.05 }, &mut bytes).unwrap();
        bytes
    })
}

/// Problems that stop `Book::from_bytes`, as opposed to those only `verify` reports.
fn stops_a_load(problem: &Problem) -> bool {
    !matches!(
        problem,
        Problem::NotNormalized
            | Problem::IllegalMove { .. }
            | Problem::RepeatedMove { .. }
            | Problem::CountMismatch { .. }
            | Problem::MissingInitial
    )
}

/// What must hold for any bytes at all: neither loading, verifying nor
/// walking panics; a load error names the place of the damage, and verify
/// lists it too; a book that loads has none of the problems that stop a load.
fn check_damaged(bytes: Vec<u8>) -> Result<(), TestCaseError> {
    let len = bytes.len() as u64;
    let report = verify(&bytes);
    match Book::from_bytes("damaged", bytes) {
        Ok(book) => {
            let stopping: Vec<String> =
                report.problems.iter().filter(|e| stops_a_load(&e.problem)).map(|e| e.to_string()).collect();
            prop_assert!(stopping.is_empty(), "loaded, yet verify says {:?}", stopping);
            // Illegal moves and a missing start are errors, not panics.
            if let Ok(walkable) = Walkable::new(book, &Start::initial()) {
                let _ = walk(&walkable, Count);
            }
        }
        Err(BookError::Format { error, .. }) => {
            let text = error.to_string();
            prop_assert!(text.contains(&format!("byte {}", error.offset)), "no offset in {:?}", text);
            match error.record {
                // Record damage: the record's number and where it starts.
                Some(n) => {
                    prop_assert!(text.starts_with(&format!("record {n} at byte {}: ", error.offset)), "{}", text);
                    prop_assert!((42..len).contains(&error.offset), "{}", text);
                }
                // Header damage: the field's offset.
                None => match error.problem {
                    Problem::ShortHeader { .. } | Problem::BadMagic { .. } => prop_assert_eq!(error.offset, 0),
                    Problem::BadVersion { .. } => prop_assert_eq!(error.offset, 8),
                    _ => prop_assert!(false, "a load error outside any record: {}", text),
                },
            }
            prop_assert!(report.problems.contains(&error), "verify does not list {:?}", text);
        }
        Err(e) => prop_assert!(false, "a book in memory cannot fail to be read: {}", e),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn flipped_bytes_never_panic_and_load_errors_say_where(
        flips in prop::collection::vec((any::<u32>(), any::<bool>(), 1u8..=255), 1..=8)
    ) {
        let mut bytes = small_book().to_vec();
        for (at, near_start, mask) in flips {
            // Half the flips hit the header and first records, where they
            // matter most; the rest anywhere.
            let span = if near_start { 128 } else { bytes.len() };
            bytes[at as usize % span] ^= mask;
        }
        check_damaged(bytes)?;
    }

    #[test]
    fn cut_books_never_panic_and_load_errors_say_where(cut in any::<prop::sample::Index>()) {
        let book = small_book();
        let bytes = book[..cut.index(book.len())].to_vec();
        let short = bytes.len() < 42;
        let outcome = Book::from_bytes("cut", bytes.clone()).err().map(|e| e.to_string());
        if short {
            prop_assert!(outcome.as_deref().is_some_and(|t| t.contains("shorter than the 42-byte header")), "{:?}", outcome);
        } else if let Some(text) = &outcome {
            // Cut on a record boundary, the rest loads; anywhere else the last record is cut.
            prop_assert!(text.contains("truncated record"), "{}", text);
        }
        check_damaged(bytes)?;
    }
}

#[test]
fn the_small_book_is_clean_before_it_is_damaged() {
    let report = verify(small_book());
    assert!(report.is_clean(), "{:?}", report.problems);
    assert_eq!(report.records, 300, "synth writes exactly the positions asked for");
}
