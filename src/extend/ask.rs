//! A batch of leaf searches answered: what the journal holds is taken, the
//! rest is asked of the fleet, each answer written to the journal before it
//! is used. `extend`'s rounds and `merge`'s stale leaves ask this way.

use super::fleet::{Answered, EngineSet, Fleet};
use super::journal::Journal;
use super::search::{Answer, LeafPlan, Query};
use super::{gave_up_error, ExtendError};
use crate::run::Interrupted;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What a batch cost: searches the engines did, answers the journal held,
/// and the engines' time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Asked {
    pub searched: u64,
    pub from_journal: u64,
    pub engine_time: Duration,
}

/// Who answers: the journal first, then the fleet's engines.
pub struct Answerers<'r, 'f> {
    pub journal: &'r mut Journal,
    pub fleet: &'r Fleet<'f>,
    pub engines: &'r [EngineSet],
    pub cancel: &'r AtomicBool,
}

impl Answerers<'_, '_> {
    /// The answer to every search the plans ask for (`None` for a plan that
    /// asks none), counted into `asked`; `done` hears how many of the
    /// plans' searches are answered so far, and the share of the engines'
    /// time spent searching. A stop, or a fleet that gives
    /// up, is the run's error: the journal keeps every answer given.
    pub fn answer(
        &mut self,
        plans: &[LeafPlan],
        asked: &mut Asked,
        done: &mut dyn FnMut(usize, f64),
    ) -> Result<Vec<Option<Answer>>, ExtendError> {
        let (mut answers, to_ask) = self.in_journal(plans, asked);
        let searches = plans.iter().filter(|p| p.query().is_some()).count();
        let mut answered = searches - to_ask.len();
        done(answered, self.fleet.utilisation());
        for &(index, query) in &to_ask {
            self.fleet.submit(index, query);
        }
        for _ in 0..to_ask.len() {
            let Some(next) = self.fleet.next_done() else { break };
            let gave_up = |gave_up| gave_up_error(gave_up, self.cancel, self.journal.path());
            let Answered { id, query, answer, engine, took } = next.map_err(gave_up)?;
            self.journal.record(&query, answer, &self.engines[engine].label, took)?;
            asked.searched += 1;
            asked.engine_time += took;
            answers[id] = Some(answer);
            answered += 1;
            done(answered, self.fleet.utilisation());
        }
        if answers.iter().zip(plans).any(|(a, p)| a.is_none() && p.query().is_some()) {
            return Err(ExtendError::interrupted(self.journal.path())(Interrupted));
        }
        Ok(answers)
    }

    /// The answers to the plans' searches that the journal already holds,
    /// and the searches left to ask (their plan's index and query).
    fn in_journal(&mut self, plans: &[LeafPlan], asked: &mut Asked) -> (Vec<Option<Answer>>, Vec<(usize, Query)>) {
        let mut answers: Vec<Option<Answer>> = vec![None; plans.len()];
        let mut to_ask = Vec::new();
        for (i, query) in plans.iter().enumerate().filter_map(|(i, p)| p.query().map(|q| (i, q))) {
            match self.journal.take(query) {
                Some(answer) => {
                    answers[i] = Some(answer);
                    asked.from_journal += 1;
                }
                None => to_ask.push((i, *query)),
            }
        }
        (answers, to_ask)
    }
}
