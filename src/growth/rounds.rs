//! Extend's policy: rounds that expand every candidate the walk finds and
//! search the new leaves, until no candidate is left.

use super::edax_order::Found;
use super::options::GrowthOptions;
use super::report::GrowthReport;
use super::session::{Grower, Held};
use crate::book::Book;
use crate::engine::ask::{Answerers, Asked};
use crate::engine::fleet::{EngineSet, Fleet};
use crate::engine::journal::Journal;
use crate::engine::search::Answer;
use crate::growth::error::GrowthError;
use crate::growth::growing::candidates::{Gates, Marks};
use crate::growth::growing::error::GrowingError;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::growth::growing::solved::Solved;
use crate::growth::growing::store::{Flavor, NodeId, Store};
use crate::growth::growing::view::Stop;
use crate::growth::paths::GrowthPaths;
use crate::run::{Cancel, Control, Phase};
use crate::window::Window;
use crate::wording::count;
use std::path::Path;
use std::time::Instant;

/// Extend's policy: rounds of every candidate, until none is left (or
/// `max_rounds` were done); `play`'s, whose candidates are the positions
/// without links; and `enhance`'s, whose marking walk is its own.
pub(crate) struct Rounds<'o> {
    pub(crate) options: &'o GrowthOptions,
    pub(crate) report: GrowthReport,
    pub(crate) marks: Choice,
    pub(crate) max_rounds: Option<u64>,
}

/// Grows `book` in rounds that find their leaves as `marks` says, at most
/// `max_rounds` of them, with the fleet `engines` makes: the one run of
/// extend, play and enhance, which differ only in these two.
pub(crate) fn grow_in_rounds(
    book: Book,
    paths: &GrowthPaths,
    options: &GrowthOptions,
    (marks, max_rounds): (Choice, Option<u64>),
    engines: impl FnOnce(&Path) -> Vec<EngineSet>,
    control: Control<'_>,
) -> Result<GrowthReport, GrowthError> {
    let mut rounds = Rounds { options, report: GrowthReport::new(paths, 0), marks, max_rounds };
    let ran = super::session::grow_book(book, paths, options, engines, &mut rounds, control)?;
    ran.fill(&mut rounds.report);
    Ok(rounds.report)
}

/// How a round finds the positions whose leaves it expands.
#[derive(Clone, Copy)]
pub(crate) enum Choice {
    /// The candidate walk, marking as told (extend's, play's).
    Walk(Marks),
    /// A policy's own marking walk from the start, entering positions of
    /// at least so many empty squares.
    Own(OwnMarks),
}

/// A policy's own marking walk: the positions to expand, in its order.
pub(crate) type OwnMarks = fn(&Store<'_>, &Solved, NodeId, u32) -> Result<Vec<NodeId>, GrowingError>;

impl Grower for Rounds<'_> {
    fn grow(&mut self, held: Held<'_, '_>, fleet: &Fleet<'_>, control: &mut Control<'_>) -> Result<(), GrowthError> {
        let Held { store, solved, journal, engines, cancel, root, min_empties, candidates, .. } = held;
        let mut run = Run { store, solved, journal, report: &mut self.report, engines, cancel };
        let gates = Gates { window: self.options.window, min_empties };
        let limits = (self.options.max_positions, self.max_rounds);
        run.rounds(root, candidates, fleet, limits, (gates, self.marks), control)
    }

    /// The first negamax notes the candidates of extend and play (the
    /// first round's, when there is no window); enhance's walk is its own.
    fn candidates(&self) -> Option<Marks> {
        match self.marks {
            Choice::Walk(marks) => Some(marks),
            Choice::Own(_) => None,
        }
    }
}

/// The rounds, and what they need at hand.
struct Run<'r, 's, 'b> {
    store: &'s mut Store<'b>,
    solved: &'r mut Solved,
    journal: &'r mut Journal,
    report: &'r mut GrowthReport,
    engines: &'r [EngineSet],
    cancel: Cancel<'r>,
}

impl Run<'_, '_, '_> {
    fn rounds(
        &mut self,
        root: NodeId,
        first_candidates: Option<Found>,
        fleet: &Fleet,
        (max_positions, max_rounds): (Option<u64>, Option<u64>),
        (gates, marks): (Gates, Choice),
        control: &mut Control<'_>,
    ) -> Result<(), GrowthError> {
        // Without a window the negamax's walk is the first candidate walk.
        let mut first_walk = first_candidates.filter(|_| gates.window == Window::NONE);
        loop {
            let began = Instant::now();
            let candidates = match first_walk.take() {
                Some(found) => found,
                None => Found::InWalkOrder(match marks {
                    Choice::Walk(marks) => {
                        let stop = Stop { cancel: self.cancel, journal: self.journal.path() };
                        crate::growth::growing::candidates::marked(self.store, self.solved, root, (gates, marks), stop)?
                    }
                    Choice::Own(marked) => marked(self.store, self.solved, root, gates.min_empties)?,
                }),
            };
            tracing::info!("candidates found in {:.3} s", began.elapsed().as_secs_f64());
            let round = self.report.rounds + 1;
            let candidates_found = candidates.ids().len();
            self.report.candidates += candidates_found as u64;
            let left = max_positions.map(|n| n.saturating_sub(self.report.added));
            let to_search = self.expand(&candidates, left)?;
            if to_search.is_empty() {
                return Ok(());
            }
            self.report.rounds = round;
            let plans = to_search.iter().map(|&id| self.store.leaf_plan(id)).collect::<Result<Vec<_>, _>>()?;
            control.phase(Phase::Round { round, candidates: candidates_found, searches: plans.len() });
            tracing::info!(
                "round {round}: {}, {} added so far, {} to search",
                count(candidates_found, "candidate", "candidates"),
                count(self.report.added, "position", "positions"),
                count(to_search.len(), "leaf", "leaves"),
            );
            let answers = self.search(&plans, fleet, control)?;
            for ((&id, plan), answer) in to_search.iter().zip(&plans).zip(answers) {
                self.store.set_leaf(id, plan.leaf(answer));
            }
            let stop = Stop { cancel: self.cancel, journal: self.journal.path() };
            self.solved.after_change(self.store, &to_search, stop)?;
            if self.report.stopped_early || max_rounds.is_some_and(|n| u64::from(round) >= n) {
                return Ok(());
            }
        }
    }

    /// Expands the candidates in Edax's order
    /// ([`Found::in_expansion_order`]); returns the positions whose leaves
    /// are to be searched: each new position, then its parent, in turn.
    fn expand(&mut self, candidates: &Found, mut left: Option<u64>) -> Result<Vec<NodeId>, GrowthError> {
        let mut to_search = Vec::new();
        let edax = matches!(self.store.flavor(), Flavor::Edax(_));
        for id in candidates.in_expansion_order(self.store) {
            if left == Some(0) {
                self.report.stopped_early = true;
                break;
            }
            if self.store.leaf(id)?.and_then(|leaf| leaf.mv).is_none() {
                continue;
            }
            let solved = &*self.solved;
            match self.store.expand(id, |store, child| solved.get(store, child))? {
                None => continue,
                Some((child, added)) => {
                    self.report.expanded += 1;
                    if added {
                        self.report.added += 1;
                        left = left.map(|n| n - 1);
                        to_search.push(child);
                        // Linked at once, as Edax links it: to the positions
                        // added before it in this order, not those after.
                        if edax {
                            let solved = &*self.solved;
                            self.store.link_new(child, |store, c| solved.value(store, c));
                        }
                    }
                    to_search.push(id);
                }
            }
        }
        Ok(to_search)
    }

    /// The answers to every search the plans ask for: from the journal, or
    /// from the engines, written to the journal as they come.
    fn search(
        &mut self,
        plans: &[LeafPlan],
        fleet: &Fleet,
        control: &mut Control<'_>,
    ) -> Result<Vec<Option<Answer>>, GrowthError> {
        let mut asked = Asked::default();
        let mut answerers = Answerers { journal: self.journal, fleet, engines: self.engines, cancel: self.cancel };
        let known = plans.iter().filter(|p| p.query().is_none()).count();
        // Searches of this round done, by an engine or from the journal.
        let answers = answerers.answer(&LeafPlan::queries(plans), &mut asked, &mut |done, busy| {
            control.counted((known + done) as u64);
            control.engines_busy(busy);
        });
        self.report.searches.count(&asked);
        Ok(answers?)
    }
}
