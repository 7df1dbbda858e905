//! The engines a growth command runs: greeted before the book is read,
//! started as processes in the run's folder, and what a fleet that gave
//! up means to the run.

use super::options::ExtendOptions;
use crate::engine::fleet::{EngineSet, GaveUp};
use crate::engine::EngineError;
use crate::growing::error::ExtendError;
use crate::growing::paths::{scratch_dir, ExtendPaths};
use crate::run::Cancel;
use std::path::Path;

/// Greets the engines `options` names ([`crate::engine::greet`]), in the
/// run's scratch folder, before the run reads its book.
pub fn greet(paths: &ExtendPaths, options: &ExtendOptions, stop: Cancel<'_>) -> Result<(), ExtendError> {
    let scratch = scratch_dir(paths)?;
    crate::engine::greet(&options.engines, options.engine_timeout, scratch.path(), stop)?;
    Ok(())
}

/// The fleet of engine processes `options` names, each with its files in
/// `scratch`.
pub fn process_engines(options: &ExtendOptions, scratch: &Path) -> Vec<EngineSet> {
    crate::engine::processes(&options.engines, options.engine_timeout, scratch)
}

/// The run's error for a fleet that gave up: a stop asked for, or engines
/// that kept failing; the journal keeps every answer either way.
pub(crate) fn gave_up_error(gave_up: GaveUp, cancel: Cancel<'_>, journal: &Path) -> ExtendError {
    EngineError::gave_up(gave_up, cancel, journal).into()
}
