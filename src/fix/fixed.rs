//! What solving the book leaves behind for writing it and its receipt:
//! each record's first arrival, which records are reachable over links,
//! and each reachable record's negamax.

use super::solutions::EdaxSolutions;
use crate::bits::Bits;
use crate::book::{RecordId, ResolvedBook};
use crate::negamax::SearchErrors;
use crate::walk::first_arrivals::FirstArrivals;

/// What the negamax found, by format.
pub(super) enum Solutions {
    Edax {
        solved: EdaxSolutions,
        errors: SearchErrors,
    },
    /// Each record's new value.
    Egaroucid(Vec<i8>),
}

impl Solutions {
    /// Room for the solutions of every record of `book`: Edax's when the
    /// book has Edax's search errors, else Egaroucid's.
    pub fn for_book(book: &ResolvedBook, errors: Option<SearchErrors>) -> Solutions {
        let records = book.counts().records as usize;
        match errors {
            Some(errors) => Solutions::Edax { solved: EdaxSolutions::new(records), errors },
            None => {
                let mut values = vec![0; records];
                crate::os::advise_huge_pages(&mut values);
                Solutions::Egaroucid(values)
            }
        }
    }

    /// Asks for the memory that reading or setting `id`'s solution touches.
    pub fn prefetch(&self, id: RecordId) {
        match self {
            Solutions::Edax { solved, .. } => solved.prefetch(id),
            Solutions::Egaroucid(values) => prefetch_index::prefetch_index(values, id.index()),
        }
    }
}

/// What the walk leaves behind for writing the book and the receipt.
pub(super) struct Fixed {
    pub first: FirstArrivals,
    /// Records reachable from the start over links: the ones the negamax sets.
    pub linked: Bits,
    pub solutions: Solutions,
}

impl Fixed {
    /// Nothing reached yet, room for every record of `book`.
    pub fn new(book: &ResolvedBook, solutions: Solutions) -> Fixed {
        let records = book.counts().records as usize;
        Fixed { first: FirstArrivals::new(records), linked: Bits::new(records), solutions }
    }
}
