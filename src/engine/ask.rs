//! A batch of searches answered: what the journal holds is taken, the rest
//! is asked of the fleet, each answer written to the journal before it is
//! used. Every growth command and `merge`'s stale leaves ask this way.

use super::fleet::{Answered, EngineSet, Fleet};
use super::journal::Journal;
use super::search::{Answer, Query};
use super::EngineError;
use crate::run::Cancel;
use std::collections::HashMap;
use std::time::Duration;

/// What the journal answers of a batch, what is left to ask, and what is
/// asked twice ([`Answerers::in_journal`]).
type InJournal = (Vec<Option<Answer>>, Vec<(usize, Query)>, Vec<(usize, usize)>);

/// What a batch cost: searches the engines did, answers the journal held,
/// and the engines' time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Asked {
    /// Searches the engines did.
    pub searched: u64,
    /// Answers taken from the journal.
    pub from_journal: u64,
    /// Time the engines spent answering, summed over engines.
    pub engine_time: Duration,
}

/// Who answers: the journal first, then the fleet's engines.
pub struct Answerers<'r, 'f> {
    /// The journal, asked first and written each answer.
    pub journal: &'r mut Journal,
    /// The fleet that searches what the journal does not hold.
    pub fleet: &'r Fleet<'f>,
    /// The fleet's engines, for their command lines.
    pub engines: &'r [EngineSet],
    /// Set to stop the run (Ctrl-C).
    pub cancel: Cancel<'r>,
}

impl Answerers<'_, '_> {
    /// The answer to every search asked (`None` where none is), counted
    /// into `asked`; `done` hears how many of the searches are answered so
    /// far, and the share of the engines' time spent searching. A stop, or
    /// a fleet that gives up, is the run's error: the journal keeps every
    /// answer given.
    pub fn answer(
        &mut self,
        queries: &[Option<Query>],
        asked: &mut Asked,
        done: &mut dyn FnMut(usize, f64),
    ) -> Result<Vec<Option<Answer>>, EngineError> {
        let (mut answers, to_ask, again) = self.in_journal(queries, asked);
        let searches = queries.iter().filter(|q| q.is_some()).count();
        let mut answered = searches - to_ask.len();
        done(answered, self.fleet.utilisation());
        for &(index, query) in &to_ask {
            self.fleet.submit(index, query);
        }
        for _ in 0..to_ask.len() {
            let Some(next) = self.fleet.next_done() else { break };
            let gave_up = |gave_up| EngineError::gave_up(gave_up, self.cancel, self.journal.path());
            let Answered { id, query, answer, engine, took } = next.map_err(gave_up)?;
            self.journal.record(&query, answer, self.engines[engine].identity(), took)?;
            asked.searched += 1;
            asked.engine_time += took;
            answers[id] = Some(answer);
            answered += 1;
            done(answered, self.fleet.utilisation());
        }
        // A search asked twice in one batch is searched once; the second
        // takes the answer the journal now holds.
        for &(index, first) in &again {
            answers[index] = answers[first];
        }
        if answers.iter().zip(queries).any(|(a, q)| a.is_none() && q.is_some()) {
            return Err(EngineError::stopped(self.journal.path().to_path_buf()));
        }
        Ok(answers)
    }

    /// The answers to the searches that the journal already holds, the
    /// searches left to ask (their index and query), and the searches asked
    /// again in the batch (their index, and that of the first, which is
    /// asked): counted as taken from the journal, as a search asked again
    /// in a later batch is.
    fn in_journal(&mut self, queries: &[Option<Query>], asked: &mut Asked) -> InJournal {
        let mut answers: Vec<Option<Answer>> = vec![None; queries.len()];
        let (mut to_ask, mut again) = (Vec::new(), Vec::new());
        let mut first: HashMap<Query, usize> = HashMap::new();
        for (i, query) in queries.iter().enumerate().filter_map(|(i, q)| q.as_ref().map(|q| (i, q))) {
            if let Some(&at) = first.get(query) {
                again.push((i, at));
                asked.from_journal += 1;
                continue;
            }
            match self.journal.take(query) {
                Some(answer) => {
                    answers[i] = Some(answer);
                    asked.from_journal += 1;
                }
                None => {
                    first.insert(*query, i);
                    to_ask.push((i, *query));
                }
            }
        }
        (answers, to_ask, again)
    }
}
