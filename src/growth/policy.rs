//! The one way into growth: [`run`] a [`Policy`] (a file of
//! `src/growth/policies/`, each a value holding what it grows and what it
//! is asked) with the [`Engines`] that answer its searches.

use crate::engine::fleet::EngineSet;
use crate::growth::engines::process_engines;
use crate::growth::error::GrowthError;
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::run::Control;
use std::path::Path;

/// What makes a fleet: given a folder of the run's own, the engines' sets.
pub type MakeFleet<'e> = Box<dyn FnOnce(&Path) -> Vec<EngineSet> + 'e>;

/// The engines that answer a growth run's searches.
pub enum Engines<'e> {
    /// The engine processes the policy's options name (what the commands
    /// run).
    Named,
    /// The fleet this closure makes (whatever it is: processes, or logic in
    /// this process, as the tests' and the examples' engines are), given a
    /// folder of the run's own, removed at its end, for the files its
    /// engines need.
    Made(MakeFleet<'e>),
}

impl<'e> Engines<'e> {
    /// The fleet `make` makes.
    pub fn made(make: impl FnOnce(&Path) -> Vec<EngineSet> + 'e) -> Engines<'e> {
        Engines::Made(Box::new(make))
    }

    /// Starts the fleet in `scratch`: the processes `options` names, or
    /// what the closure makes.
    pub(crate) fn start(self, options: &GrowthOptions, scratch: &Path) -> Vec<EngineSet> {
        match self {
            Engines::Named => process_engines(options, scratch),
            Engines::Made(make) => make(scratch),
        }
    }
}

/// A growth policy: what a growth command grows or searches and how, a
/// value holding the book it grows (none for `new`) and what it is asked.
/// Each is a file of `src/growth/policies/`, its command a file of
/// `src/commands/`.
pub trait Policy {
    /// What the policy's run reports (a [`crate::growth::GrowthReport`]
    /// with the policy's own part).
    type Report;

    /// Runs the policy into `paths.output`, the searches answered by the
    /// journal or by `engines`; what [`run`] does.
    fn run(self, paths: &GrowthPaths, engines: Engines<'_>, control: Control<'_>) -> Result<Self::Report, GrowthError>;
}

/// Runs `policy` into `paths.output` (its book read from `paths.input`),
/// with the searches answered by the journal or by `engines`. OUT appears
/// only when whole; the journal keeps every answer whatever happens.
/// `control` stops the run and hears its stages (extend's rounds, grow's
/// growth...), then the final negamax's, as `fix` tells them.
pub fn run<P: Policy>(
    policy: P,
    paths: &GrowthPaths,
    engines: Engines<'_>,
    control: Control<'_>,
) -> Result<P::Report, GrowthError> {
    policy.run(paths, engines, control)
}
