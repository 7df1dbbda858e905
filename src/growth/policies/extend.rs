//! `extend` (docs/extend.md): the book grows itself, as Edax's `book
//! extend` grows it, with engine processes doing the searches, several at
//! once, and a journal that loses no search.
//!
//! A round negamaxes the book below the start ([`crate::growth::growing::store`]), walks its links
//! for candidates (positions whose leaf is as good as their value), expands
//! each (the leaf's child joins the book, the leaf becomes a link), and has
//! the engines ([`crate::engine`]) search the new positions' leaves and
//! the candidates' new ones, each answer written to the journal as it
//! comes. Rounds go on until no candidate is left to expand
//! ([`crate::growth::rounds`]). The book is then written
//! ([`crate::growth::growing::write`]) and negamaxed as `fix` does it, into OUT.

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

/// `extend`: `book` grown in rounds, each expanding every candidate (a
/// position whose leaf is as good as its value). `control` hears each
/// round ([`crate::run::Phase::Round`]) and its searches counted.
pub struct Extend<'a> {
    /// The book read (IN).
    pub book: Book,
    /// What `extend` is asked.
    pub options: &'a GrowthOptions,
}

impl crate::growth::policy::Policy for Extend<'_> {
    type Report = GrowthReport;

    fn run(self, paths: &GrowthPaths, engines: Engines<'_>, control: Control<'_>) -> Result<GrowthReport, GrowthError> {
        let Extend { book, options } = self;
        let engines = |scratch: &Path| engines.start(options, scratch);
        let marks = (Choice::Walk(Marks::LeafAtLeastValue), None);
        grow_in_rounds(book, paths, options, marks, engines, control)
    }
}
