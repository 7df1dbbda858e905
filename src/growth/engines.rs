//! The engines a growth command runs: greeted as the run starts (its book
//! read meanwhile, what the greeting says coming first),
//! started as processes in the run's folder, and what a fleet that gave
//! up means to the run.

use super::options::GrowthOptions;
use crate::engine::fleet::{EngineSet, GaveUp};
use crate::engine::{EngineCommand, EngineError, EngineNamed};
use crate::growth::error::GrowthError;
use crate::growth::paths::{scratch_dir, GrowthPaths};
use crate::run::Cancel;
use std::path::Path;
use std::time::Duration;

/// Greets the engines `named` ([`crate::engine::greet`]), in the run's
/// scratch folder, before the run uses its book: the fleet's engines,
/// each with the protocol it speaks and its workers.
pub fn greet(
    paths: &GrowthPaths,
    named: &[EngineNamed],
    timeout: Duration,
    stop: Cancel<'_>,
) -> Result<Vec<EngineCommand>, GrowthError> {
    let scratch = scratch_dir(paths)?;
    Ok(crate::engine::greet(named, timeout, scratch.path(), stop)?)
}

/// The fleet of engine processes `options` names, each with its files in
/// `scratch`.
pub fn process_engines(options: &GrowthOptions, scratch: &Path) -> Vec<EngineSet> {
    crate::engine::processes(&options.engines, options.engine_timeout, scratch)
}

/// The run's error for a fleet that gave up: a stop asked for, or engines
/// that kept failing; the journal keeps every answer either way.
pub(crate) fn gave_up_error(gave_up: GaveUp, cancel: Cancel<'_>, journal: &Path) -> GrowthError {
    EngineError::gave_up(gave_up, cancel, journal).into()
}
