//! `deviate` (docs/policies.md, SPEC §17.2): Edax's `book deviate R A` as
//! a policy of the growth session. Each round fixes the start's value S
//! and marks, in two passes, the leaves of every line whose moves stay
//! within R of the best for one side (the side to move at the start in the
//! first pass, the other in the second; the other side plays only best
//! moves) and whose scores stay within A of S; the marked leaves are
//! expanded as `extend` expands a candidate; the book is negamaxed below
//! the start. Rounds go on until one marks nothing.
//!
//! Between a round's two passes Edax does not negamax: a position
//! expanded in the first pass holds the best of its value and the scores
//! its new link and new leaf were given, a position added holds the best
//! of its links' and leaf's, and the second pass reads those. The round's
//! [`Raised`] keeps them beside the negamax of the round's start, which
//! stays as it was until the round's end.

use crate::board::Move;
use crate::book::Book;
use crate::engine::ask::{Answerers, Asked};
use crate::engine::fleet::EngineSet;
use crate::engine::fleet::Fleet;
use crate::engine::journal::Journal;
use crate::growth::edax_order::in_edax_order;
use crate::growth::error::GrowthError;
use crate::growth::growing::candidates::Marks;
use crate::growth::growing::error::GrowingError;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::growth::growing::solved::{edge_score, Solved};
use crate::growth::growing::store::{Flavor, NodeId, Store};
use crate::growth::growing::view::Stop;
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::policy::Engines;
use crate::growth::report::GrowthReport;
use crate::growth::session::{self, Grower, Held};
use crate::negamax;
use crate::run::{Cancel, Control, Phase};
use crate::score::Score;
use crate::wording::count;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

/// What `deviate` is asked to do.
#[derive(Clone, Debug)]
pub struct DeviateOptions {
    /// The engines, the start, `min_empties`, `max_positions`.
    pub growth: GrowthOptions,
    /// How far below the best a move of the deviating side may score.
    pub relative: i32,
    /// How far from the start's value a line's scores may go.
    pub absolute: i32,
}

/// What `deviate` adds to its [`GrowthReport`] (`adds`), for the summary.
#[derive(Clone, Debug, Default)]
pub struct Deviated {
    /// The relative error asked.
    pub relative: i32,
    /// The absolute error asked.
    pub absolute: i32,
}

impl fmt::Display for GrowthReport<Deviated> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "deviation            {} relative, {} absolute", self.adds.relative, self.adds.absolute)?;
        self.write_rounds(f)
    }
}

/// `deviate`: `book` grown by rounds of Edax's `book deviate`.
pub struct Deviate<'a> {
    /// The book read (IN).
    pub book: Book,
    /// What `deviate` is asked.
    pub options: &'a DeviateOptions,
}

impl crate::growth::policy::Policy for Deviate<'_> {
    type Report = GrowthReport<Deviated>;

    fn run(
        self,
        paths: &GrowthPaths,
        engines: Engines<'_>,
        control: Control<'_>,
    ) -> Result<GrowthReport<Deviated>, GrowthError> {
        let Deviate { book, options } = self;
        let engines = |scratch: &Path| engines.start(&options.growth, scratch);
        let deviated = Deviated { relative: options.relative, absolute: options.absolute };
        let report = GrowthReport { adds: deviated, ..GrowthReport::new(paths, 0) };
        let mut deviator = Deviator { options, report };
        let ran = session::grow_book(book, paths, &options.growth, engines, &mut deviator, control)?;
        ran.fill(&mut deviator.report);
        Ok(deviator.report)
    }
}

/// `deviate` as a policy: rounds of two marking passes.
struct Deviator<'o> {
    options: &'o DeviateOptions,
    report: GrowthReport<Deviated>,
}

impl Grower for Deviator<'_> {
    fn candidates(&self) -> Option<Marks> {
        None
    }

    fn grow(&mut self, held: Held<'_, '_>, fleet: &Fleet<'_>, control: &mut Control<'_>) -> Result<(), GrowthError> {
        let Held { store, solved, journal, engines, cancel, root, min_empties, .. } = held;
        let mut run = Run { store, solved, journal, engines, cancel, fleet, report: &mut self.report };
        let (relative, absolute) = (self.options.relative, self.options.absolute);
        loop {
            let start = run.solved.value(run.store, root).discs();
            let bounds = (start - absolute, start + absolute);
            let mut raised = Raised::default();
            let mut changed = Vec::new();
            for (mine, theirs) in [(relative, 0), (0, relative)] {
                let marked =
                    Marker::new(run.store, run.solved, &raised, min_empties).marked(root, mine, theirs, bounds)?;
                run.report.candidates += marked.len() as u64;
                changed.extend(run.pass(&marked, &mut raised, self.options.growth.max_positions, control)?);
            }
            if changed.is_empty() {
                return Ok(());
            }
            run.report.rounds += 1;
            let stop = Stop { cancel, journal: run.journal.path() };
            run.solved.after_change(run.store, &changed, stop)?;
            if run.report.stopped_early {
                return Ok(());
            }
        }
    }
}

/// What a round changed before its negamax, as Edax's positions hold it
/// between the two passes: values raised, and the scores of the links
/// made.
#[derive(Default)]
struct Raised {
    values: HashMap<NodeId, Score>,
    links: HashMap<(NodeId, u8), Score>,
}

impl Raised {
    /// A position's value: as raised this round, else as negamaxed.
    fn value(&self, store: &Store<'_>, solved: &Solved, id: NodeId) -> Score {
        self.values.get(&id).copied().unwrap_or_else(|| solved.value(store, id))
    }

    /// The score of a link to `child` made this round: minus its value,
    /// held, as the other values here, in a `short` (which wraps
    /// −(−32768), a value only a book's own bytes can hold).
    fn link_to(&self, store: &Store<'_>, solved: &Solved, child: NodeId) -> Score {
        (-self.value(store, solved, child)).wrapped_to_short()
    }
}

/// The marking walk of one pass (Edax's `position_deviate`).
struct Marker<'a, 'b> {
    store: &'a Store<'b>,
    solved: &'a Solved,
    raised: &'a Raised,
    min_empties: u32,
    done: HashSet<NodeId>,
    marked: Vec<NodeId>,
}

impl<'a, 'b> Marker<'a, 'b> {
    fn new(store: &'a Store<'b>, solved: &'a Solved, raised: &'a Raised, min_empties: u32) -> Marker<'a, 'b> {
        Marker { store, solved, raised, min_empties, done: HashSet::new(), marked: Vec::new() }
    }

    /// The leaves marked from `root`, in the order the walk marks them.
    fn marked(mut self, root: NodeId, mine: i32, theirs: i32, bounds: (i32, i32)) -> Result<Vec<NodeId>, GrowingError> {
        self.visit(root, mine, theirs, bounds)?;
        Ok(self.marked)
    }

    /// Enters `id` if its value lies within `bounds`, it has enough empty
    /// squares and the game goes on there: each link within `mine` of the
    /// value and within the bounds is followed (the other side to move,
    /// the bounds turned round), then the leaf marked under the same test.
    fn visit(&mut self, id: NodeId, mine: i32, theirs: i32, (lower, upper): (i32, i32)) -> Result<(), GrowingError> {
        let facts = self.store.facts(id)?;
        let value = self.raised.value(self.store, self.solved, id).discs();
        let open = facts.board.empties() >= self.min_empties && !facts.board.is_game_over();
        if !(lower <= value && value <= upper && open && self.done.insert(id)) {
            return Ok(());
        }
        let near = |score: i32| value - score <= mine && lower <= score && score <= upper;
        for edge in &facts.edges {
            let Some(child) = edge.child else { continue };
            let score = match self.raised.links.get(&(id, edge.mv.code())) {
                Some(&score) => score,
                None => edge_score(self.store, self.solved, id, edge)?,
            }
            .discs();
            if near(score) {
                self.visit(child, theirs, mine, (-upper, -lower))?;
            }
        }
        if near(negamax::leaf_score(facts.leaf).discs()) {
            self.marked.push(id);
        }
        Ok(())
    }
}

/// A pass's work, and what it needs at hand.
struct Run<'r, 's, 'b> {
    store: &'s mut Store<'b>,
    solved: &'r mut Solved,
    journal: &'r mut Journal,
    engines: &'r [EngineSet],
    cancel: Cancel<'r>,
    fleet: &'r Fleet<'r>,
    report: &'r mut GrowthReport<Deviated>,
}

/// A leaf expanded: the position, the move that became a link, the child,
/// and whether the child is new to the book.
struct Expanded {
    parent: NodeId,
    mv: Move,
    child: NodeId,
    added: bool,
}

impl Run<'_, '_, '_> {
    /// Expands the `marked` leaves in order (within the budget), searches
    /// the new positions' leaves and the expanded positions' next ones, and
    /// raises values as Edax's expansion does; returns the positions
    /// changed.
    fn pass(
        &mut self,
        marked: &[NodeId],
        raised: &mut Raised,
        max_positions: Option<u64>,
        control: &mut Control<'_>,
    ) -> Result<Vec<NodeId>, GrowthError> {
        let expanded = self.expand(marked, max_positions)?;
        if expanded.is_empty() {
            return Ok(Vec::new());
        }
        let mut to_search = Vec::new();
        for e in &expanded {
            if e.added {
                to_search.push(e.child);
            }
            to_search.push(e.parent);
        }
        let plans = to_search.iter().map(|&id| self.store.leaf_plan(id)).collect::<Result<Vec<_>, _>>()?;
        let round = self.report.rounds + 1;
        control.phase(Phase::Round { round, candidates: marked.len(), searches: plans.len() });
        tracing::info!(
            "round {round}: {} marked, {} added so far, {} to search",
            marked.len(),
            count(self.report.added, "position", "positions"),
            count(plans.len(), "leaf", "leaves"),
        );
        let mut asked = Asked::default();
        let known = plans.iter().filter(|p| p.query().is_none()).count();
        let mut answerers =
            Answerers { journal: self.journal, fleet: self.fleet, engines: self.engines, cancel: self.cancel };
        let answers = answerers.answer(&LeafPlan::queries(&plans), &mut asked, &mut |done, busy| {
            control.counted((known + done) as u64);
            control.engines_busy(busy);
        })?;
        self.report.searches.count(&asked);
        for ((&id, plan), answer) in to_search.iter().zip(&plans).zip(answers) {
            self.store.set_leaf(id, plan.leaf(answer));
        }
        for e in &expanded {
            self.raise(e, raised)?;
        }
        Ok(to_search)
    }

    /// Expands the marked leaves in order, as many as the budget lets.
    fn expand(&mut self, marked: &[NodeId], max_positions: Option<u64>) -> Result<Vec<Expanded>, GrowthError> {
        let mut expanded = Vec::new();
        let edax = matches!(self.store.flavor(), Flavor::Edax(_));
        for parent in in_edax_order(self.store, marked) {
            if max_positions.is_some_and(|n| self.report.added >= n) {
                self.report.stopped_early = true;
                break;
            }
            let Some(mv) = self.store.leaf(parent)?.and_then(|leaf| leaf.mv) else { continue };
            let solved = &*self.solved;
            let Some((child, added)) = self.store.expand(parent, |store, id| solved.get(store, id))? else { continue };
            self.report.expanded += 1;
            self.report.added += u64::from(added);
            // Linked at once, as Edax links it: to the positions added
            // before it in this order, not those after.
            if added && edax {
                let solved = &*self.solved;
                self.store.link_new(child, |store, id| solved.value(store, id));
            }
            expanded.push(Expanded { parent, mv, child, added });
        }
        Ok(expanded)
    }

    /// Raises values as Edax's expansion leaves them: a new position holds
    /// the best of its links' and leaf's scores; the expanded position's
    /// new link is scored minus its child's value, and it holds the best of
    /// its value, that score and its new leaf's.
    fn raise(&mut self, e: &Expanded, raised: &mut Raised) -> Result<(), GrowthError> {
        let (store, solved) = (&*self.store, &*self.solved);
        if e.added {
            let facts = store.facts(e.child)?;
            let mut value = negamax::leaf_score(facts.leaf);
            for edge in &facts.edges {
                let Some(grandchild) = edge.child else { continue };
                let score = raised.link_to(store, solved, grandchild);
                raised.links.insert((e.child, edge.mv.code()), score);
                value = value.max(score);
            }
            raised.values.insert(e.child, value);
        }
        let link = raised.link_to(store, solved, e.child);
        raised.links.insert((e.parent, e.mv.code()), link);
        let leaf = negamax::leaf_score(store.leaf(e.parent)?);
        let value = raised.value(store, solved, e.parent).max(link).max(leaf);
        raised.values.insert(e.parent, value);
        Ok(())
    }
}
