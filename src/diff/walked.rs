//! One book's walk from the initial position (docs/walk.md), noting the first
//! arrival at each record, so that its lines can be written afterwards as
//! `fix`'s receipt writes them.

use crate::bits::Bits;
use crate::book::{Book, ResolvedBook};
use crate::run::{walked, Cancel, Interrupted, Progress};
use crate::symmetry::normalize;
use crate::walk::first_arrivals::FirstArrivals;
use crate::walk::{walk, Arrival, FromInitial, Start, StartMissing, Visitor, WalkError, WalkStats};

/// A book resolved, and where its walk first arrived at each record.
pub struct Walked {
    book: FromInitial,
    pub first: FirstArrivals,
    /// Records the walk stood on, the start included.
    pub reached: Bits,
}

impl Walked {
    pub fn book(&self) -> &ResolvedBook {
        self.book.book()
    }
}

/// A book resolved, ready to walk from the initial position (or, without
/// it, with nothing to walk).
pub struct Ready {
    book: FromInitial,
    symmetry: crate::symmetry::Symmetry,
}

/// Resolves a book for its walk. A book without the initial position is
/// resolved all the same: none of its records is reached.
pub fn ready(book: Book) -> Result<Ready, StartMissing> {
    let path = book.path().to_path_buf();
    let book = FromInitial::new(book)?;
    if let FromInitial::Unwalkable(_) = book {
        tracing::warn!("{}: the initial position is not in the book: no record has a line", path.display());
    }
    Ok(Ready { book, symmetry: normalize(&Start::initial().board).to_original })
}

impl Ready {
    pub fn book(&self) -> &ResolvedBook {
        self.book.book()
    }

    /// Walks the book, noting first arrivals; `progress` is told how the
    /// walk goes, and `cancel` stops it.
    pub fn walk(
        self,
        cancel: Cancel<'_>,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Walked, WalkError<Interrupted>> {
        let records = self.book().counts().records as usize;
        let mut noter = Noter { first: FirstArrivals::new(records), reached: Bits::new(records), cancel, progress };
        if let FromInitial::Walkable(walkable) = &self.book {
            let root = walkable.root().id;
            noter.first.start(root, self.symmetry);
            noter.reached.insert(root);
            noter = walk(walkable, noter)?.1;
        }
        Ok(Walked { book: self.book, first: noter.first, reached: noter.reached })
    }
}

/// The walk's visitor: notes each record's first arrival.
struct Noter<'a> {
    first: FirstArrivals,
    reached: Bits,
    cancel: Cancel<'a>,
    progress: &'a mut dyn FnMut(Progress<'_>),
}

impl Visitor for Noter<'_> {
    type Error = Interrupted;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Interrupted> {
        if arrival.first_time {
            let child = arrival.child.id;
            // The line ends with the move played, and its pass if one follows.
            let mv = arrival.line[arrival.line.len() - 1 - usize::from(arrival.via_pass)];
            self.first.note(child, arrival.parent, mv, arrival.via_pass, arrival.child_symmetry);
            self.reached.insert(child);
        }
        Ok(())
    }

    fn progress(&mut self, stats: &WalkStats) -> Result<(), Interrupted> {
        walked(self.cancel, self.progress, stats)
    }
}
