//! `play` (docs/policies.md, SPEC §17.5): Edax 4.6's `book play` as a
//! policy of the growth session. Each round walks the links below the
//! start (positions with at least `min_empties` empty squares, the game
//! going on) for the positions that have no link at all, and expands the
//! leaf of each as `extend` expands a candidate; the book is negamaxed;
//! rounds go on until no such position is left. It is extend's rounds
//! ([`crate::growth::rounds`]) with another mark.

use crate::book::Book;
use crate::engine::fleet::EngineSet;
use crate::growth::engines::process_engines;
use crate::growth::error::GrowthError;
use crate::growth::growing::candidates::Marks;
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::report::GrowthReport;
use crate::growth::rounds::{grow_in_rounds, Choice};
use crate::run::Control;
use std::path::Path;

/// Plays `book` (read from `paths.input`) into `paths.output` with the
/// engine processes `options` names.
pub fn play(
    book: Book,
    paths: &GrowthPaths,
    options: &GrowthOptions,
    control: Control<'_>,
) -> Result<GrowthReport, GrowthError> {
    play_with(book, paths, options, |scratch| process_engines(options, scratch), control)
}

/// [`play`] with the searches answered by the fleet `engines` makes.
pub fn play_with(
    book: Book,
    paths: &GrowthPaths,
    options: &GrowthOptions,
    engines: impl FnOnce(&Path) -> Vec<EngineSet>,
    control: Control<'_>,
) -> Result<GrowthReport, GrowthError> {
    grow_in_rounds(book, paths, options, (Choice::Walk(Marks::NoLinks), None), engines, control)
}
