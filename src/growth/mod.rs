//! `extend` (docs/extend.md): the book grows itself, as Edax's `book
//! extend` grows it, with engine processes doing the searches, several at
//! once, and a journal that loses no search.
//!
//! A round negamaxes the book below the start ([`crate::growth::growing::store`]), walks its links
//! for candidates (positions whose leaf is as good as their value), expands
//! each (the leaf's child joins the book, the leaf becomes a link), and has
//! the engines ([`crate::engine`]) search the new positions' leaves and
//! the candidates' new ones, each answer written to the journal as it
//! comes. Rounds go on until no candidate is left to expand. The book is
//! then written ([`crate::growth::growing::write`]) and negamaxed as `fix` does it, into OUT.

mod edax_order;
mod egbook;
mod engines;
pub mod error;
pub mod growing;
mod options;
pub mod paths;
pub mod policies;
pub mod priority;
mod report;
mod rounds;
mod session;

pub use crate::engine::ask::Asked;
pub use crate::engine::journal::{holder_of, starts_as_journal, JournalError, TakenFrom, JOURNAL};
pub use engines::{greet, process_engines};
pub use error::GrowthError;
pub use options::GrowthOptions;
pub use paths::GrowthPaths;
pub use report::{GrowthReport, SearchTally};

use crate::book::Book;
use crate::engine::fleet::EngineSet;
use crate::growth::growing::candidates::Marks;
use crate::run::Control;
use rounds::{grow_in_rounds, Choice};
use std::path::Path;

/// Extends `book` (read from `paths.input`) into `paths.output` with the
/// engine processes `options` names. OUT appears only when whole; the
/// journal keeps every answer whatever happens. `control` stops the run
/// and hears each round ([`crate::run::Phase::Round`]) and its searches counted, then
/// the final negamax's stages, as `fix` tells them.
pub fn extend(
    book: Book,
    paths: &GrowthPaths,
    options: &GrowthOptions,
    control: Control<'_>,
) -> Result<GrowthReport, GrowthError> {
    extend_with(book, paths, options, |scratch| process_engines(options, scratch), control)
}

/// Extends `book` as [`extend`] does, with the searches answered by the
/// fleet `engines` makes (whatever it is: processes, or logic in this
/// process) instead of the engines `options` names. It is given a folder of
/// the run's own, removed at its end, for the files its engines need.
pub fn extend_with(
    book: Book,
    paths: &GrowthPaths,
    options: &GrowthOptions,
    engines: impl FnOnce(&Path) -> Vec<EngineSet>,
    control: Control<'_>,
) -> Result<GrowthReport, GrowthError> {
    grow_in_rounds(book, paths, options, (Choice::Walk(Marks::LeafAtLeastValue), None), engines, control)
}
