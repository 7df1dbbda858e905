//! `play` (docs/policies.md, SPEC §17.5): Edax 4.6's `book play` as a
//! policy of the growth session. Each round walks the links below the
//! start (positions with at least `min_empties` empty squares, the game
//! going on) for the positions that have no link at all, and expands the
//! leaf of each as `extend` expands a candidate; the book is negamaxed;
//! rounds go on until no such position is left. It is extend's rounds
//! ([`crate::growth::rounds`]) with another mark.

use crate::book::Book;
use crate::growth::error::GrowthError;
use crate::growth::growing::candidates::Marks;
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::policy::Engines;
use crate::growth::report::GrowthReport;
use crate::growth::rounds::{grow_in_rounds, Choice};
use crate::run::Control;
use std::path::Path;

/// `play`: `book` grown by extend's rounds, the positions without links
/// their candidates.
pub struct Play<'a> {
    /// The book read (IN).
    pub book: Book,
    /// What `play` is asked.
    pub options: &'a GrowthOptions,
}

impl crate::growth::policy::Policy for Play<'_> {
    type Report = GrowthReport;

    fn run(self, paths: &GrowthPaths, engines: Engines<'_>, control: Control<'_>) -> Result<GrowthReport, GrowthError> {
        let Play { book, options } = self;
        let engines = |scratch: &Path| engines.start(options, scratch);
        grow_in_rounds(book, paths, options, (Choice::Walk(Marks::NoLinks), None), engines, control)
    }
}
