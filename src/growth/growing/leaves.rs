//! A batch of leaf searches answered outside a growth session: the journal
//! first, then a fleet started for the batch. How `merge` searches the
//! leaves whose moves became links.

use super::leaf_plan::LeafPlan;
use crate::engine::ask::{Answerers, Asked};
use crate::engine::fleet::{identities, EngineReport, EngineSet, Fleet, Room};
use crate::engine::journal::{Journal, TakenFrom};
use crate::engine::search::Answer;
use crate::engine::summary::labels;
use crate::growth::error::GrowthError;
use crate::growth::paths::{scratch_dir, GrowthPaths};
use crate::run::{Cancel, RunError};
use std::path::{Path, PathBuf};

/// What a batch of leaf searches came to: the answers, in the plans'
/// order (`None` where a plan asks no search), what they cost, and what
/// each engine did.
pub struct LeavesAnswered {
    /// The answers, one a plan, in the plans' order.
    pub answers: Vec<Option<Answer>>,
    /// The searches made, those taken from the journal, and the engines' time.
    pub asked: Asked,
    /// Each engine: its searches, faults, and whether it was retired.
    pub engines: Vec<EngineReport>,
    /// The answers taken from the journal, by the engine that gave them.
    pub taken_from: Vec<TakenFrom>,
    /// Where the journal of earlier runs was set aside (`--fresh`).
    pub journal_set_aside: Option<PathBuf>,
}

/// Answers the searches `plans` ask, the journal of `paths` first, then
/// the fleet `engines` makes (given the run's own folder, as in
/// `crate::growth::Engines::Made`): how `merge` searches its stale leaves. `done` hears
/// how many searches are answered so far.
pub fn answer_leaves(
    plans: &[LeafPlan],
    paths: &GrowthPaths,
    engines: impl FnOnce(&Path) -> Vec<EngineSet>,
    done: &mut dyn FnMut(usize, f64),
    cancel: Cancel<'_>,
) -> Result<LeavesAnswered, GrowthError> {
    let mut journal = Journal::read_for_run(&paths.taken, paths.fresh)?;
    let scratch = scratch_dir(paths)?;
    let engines = &engines(scratch.path());
    journal.serve(identities(engines));
    let room = Room::new(engines);
    let mut asked = Asked::default();
    let answers = std::thread::scope(|scope| {
        let fleet = Fleet::start(scope, &room, engines, cancel).map_err(RunError::io(&paths.journal))?;
        Answerers { journal: &mut journal, fleet: &fleet, engines, cancel }.answer(
            &LeafPlan::queries(plans),
            &mut asked,
            done,
        )
    })?;
    let engines = room.reports();
    let taken_from = journal.taken_from(&labels(&engines));
    let journal_set_aside = journal.set_aside_as().map(Path::to_path_buf);
    Ok(LeavesAnswered { answers, asked, engines, taken_from, journal_set_aside })
}
