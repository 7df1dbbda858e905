//! `grow` (docs/grow.md): best-first growth under a budget. The frontier
//! position of least priority ([`crate::growth::priority`]) is expanded next, as
//! `extend` expands a candidate; as soon as a worker of the fleet is free,
//! the least priority among the positions not under way is dispatched;
//! each answer goes to the journal first, then into the book, whose
//! negamax is carried up from what changed. The budget (a priority, a
//! number of positions, seconds) ends the run; what is under way is
//! finished and the book written, consistent whenever it ends.

use crate::book::Book;
use crate::engine::fleet::{Answered, EngineSet, Fleet};
use crate::engine::journal::Journal;
use crate::engine::summary::write_engines;
use crate::growth::engines::gave_up_error;
use crate::growth::error::GrowthError;
use crate::growth::graph::View;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::growth::growing::solved::Solved;
use crate::growth::growing::store::{Flavor, NodeId, Store};
use crate::growth::growing::view::Stop;
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::policy::Engines;
use crate::growth::priority::{self, ErrorWeight, Frontier};
use crate::growth::report::GrowthReport;
use crate::growth::session::{self, Grower, Held};
use crate::run::{Cancel, Control, Interrupted, Phase, Progress};
use crate::window::Window;
use smallvec::SmallVec;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

/// What `grow` is asked to do beyond what `extend` is.
#[derive(Clone, Debug)]
pub struct GrowOptions {
    /// The engines, the start, the window, `min_empties`, `max_positions`.
    pub growth: GrowthOptions,
    /// The priority's weight of a disc of error.
    pub error_weight: ErrorWeight,
    /// Grow until every frontier position's priority is above this.
    pub max_priority: Option<f64>,
    /// Dispatch nothing new once this long has passed.
    pub max_seconds: Option<f64>,
}

/// Why a run stopped growing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ended {
    /// No frontier position was left.
    #[default]
    Exhausted,
    /// Every frontier position left has a priority above `max_priority`.
    MaxPriority,
    /// `max_positions` positions were added.
    MaxPositions,
    /// `max_seconds` passed: nothing new was dispatched.
    MaxSeconds,
    /// Asked to finish (Ctrl-C once): what was under way was finished.
    Asked,
}

impl Ended {
    /// The reason as the summary's `ended by` line names it.
    pub fn name(self) -> &'static str {
        match self {
            Ended::Exhausted => "no frontier left",
            Ended::MaxPriority => "max_priority",
            Ended::MaxPositions => "max_positions",
            Ended::MaxSeconds => "max_seconds",
            Ended::Asked => "asked to stop",
        }
    }
}

/// What `grow` adds to its [`GrowthReport`] (`adds`), for the summary.
#[derive(Clone, Debug, Default)]
pub struct Grown {
    /// Why the run stopped growing.
    pub ended: Ended,
    /// The least priority of a frontier position left, if any.
    pub least_left: Option<f64>,
    /// The largest priority expanded.
    pub largest_expanded: Option<f64>,
    /// The engines' busy time over their workers' time while there was work.
    pub utilisation: f64,
    /// The time there was work for the engines.
    pub worked: Duration,
}

impl fmt::Display for GrowthReport<Grown> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self;
        let shown = |p: Option<f64>| p.map_or("none".to_string(), |p| format!("{p}"));
        writeln!(f, "positions loaded     {}", e.positions_loaded)?;
        writeln!(f, "expanded             {} ({} positions added)", e.expanded, e.added)?;
        writeln!(f, "ended by             {}", self.adds.ended.name())?;
        writeln!(f, "largest expanded     {}", shown(self.adds.largest_expanded))?;
        writeln!(f, "least priority left  {}", shown(self.adds.least_left))?;
        e.searches.write_counts(&e.journal, f)?;
        writeln!(f, "engine utilisation   {:.1}%", self.adds.utilisation * 100.0)?;
        write_engines(f, &e.searches.engines)?;
        e.write_ending(f)
    }
}

/// `grow`: `book` grown best first, the least priority expanded next.
pub struct Grow<'a> {
    /// The book read (IN).
    pub book: Book,
    /// What `grow` is asked.
    pub options: &'a GrowOptions,
    /// Grow's wind-down: once set, nothing new is dispatched, what is under
    /// way is finished and OUT written.
    pub wind_down: Cancel<'a>,
}

impl crate::growth::policy::Policy for Grow<'_> {
    type Report = GrowthReport<Grown>;

    fn run(
        self,
        paths: &GrowthPaths,
        engines: Engines<'_>,
        control: Control<'_>,
    ) -> Result<GrowthReport<Grown>, GrowthError> {
        let Grow { book, options, wind_down } = self;
        let engines = |scratch: &Path| engines.start(&options.growth, scratch);
        let report = GrowthReport::<Grown>::new(paths, 0);
        let mut best_first = BestFirst { options, wind_down, report };
        let ran = session::grow_book(book, paths, &options.growth, engines, &mut best_first, control)?;
        let mut report = best_first.report;
        ran.fill(&mut report);
        let busy: Duration = report.searches.engines.iter().map(|e| e.busy).sum();
        let workers: usize = report.searches.engines.iter().map(|e| e.workers).sum();
        report.adds.utilisation = match report.adds.worked.is_zero() {
            true => 0.0,
            false => busy.as_secs_f64() / (workers.max(1) as f64 * report.adds.worked.as_secs_f64()),
        }
        .min(1.0);
        Ok(report)
    }
}

/// Grow's policy: the frontier position of least priority first.
struct BestFirst<'o> {
    options: &'o GrowOptions,
    wind_down: Cancel<'o>,
    report: GrowthReport<Grown>,
}

impl Grower for BestFirst<'_> {
    fn grow(&mut self, held: Held<'_, '_>, fleet: &Fleet<'_>, control: &mut Control<'_>) -> Result<(), GrowthError> {
        let Held { store, solved, journal, engines, cancel, root, min_empties, began, .. } = held;
        let options = self.options;
        let mut run = Growth {
            store,
            solved,
            journal,
            report: &mut self.report,
            engines,
            cancel,
            options,
            gates: (options.growth.window, min_empties),
            root,
            began,
            pending: HashMap::new(),
            under_way: HashSet::new(),
            hidden: HashSet::new(),
            busy_since: None,
            worked: Duration::ZERO,
            least_chosen: None,
            left_told: None,
        };
        run.run(fleet, self.wind_down, control)?;
        let least = least_left(run.store, run.solved, root, options, min_empties);
        self.report.adds.least_left = least;
        Ok(())
    }
}

/// The least priority of a frontier position left in the book grown.
fn least_left(store: &Store<'_>, solved: &Solved, root: NodeId, options: &GrowOptions, min: u32) -> Option<f64> {
    let hidden = HashSet::new();
    let view = View::new(store, solved, root, (options.growth.window, min), &hidden);
    let least = priority::least(&view, root, options.error_weight, |_| false, 1);
    least.first().map(|f| f.priority.to_f64())
}

/// An expansion dispatched: the positions whose leaves it searches, each
/// with its plan, and how many answers it still waits for.
struct Expansion {
    /// (position, its leaf's plan, the answer once known).
    leaves: SmallVec<[(NodeId, LeafPlan, Option<crate::engine::search::Answer>); 2]>,
    waiting: usize,
    /// The position the expanded leaf leads to.
    child: NodeId,
}

/// The growth under way, and what it needs at hand.
struct Growth<'r, 's, 'b> {
    store: &'s mut Store<'b>,
    solved: &'r mut Solved,
    journal: &'r mut Journal,
    report: &'r mut GrowthReport<Grown>,
    engines: &'r [EngineSet],
    cancel: Cancel<'r>,
    options: &'r GrowOptions,
    gates: (Window, u32),
    root: NodeId,
    began: Instant,
    /// Expansions under way, by number; searches carry their expansion's
    /// number and leaf's index in their id.
    pending: HashMap<usize, Expansion>,
    /// Positions an expansion under way changed: never chosen meanwhile.
    under_way: HashSet<NodeId>,
    /// The children expansions under way linked: the priorities do not
    /// go through them until their values are known.
    hidden: HashSet<NodeId>,
    /// Since when an engine has had work, and how long they have had it.
    busy_since: Option<Instant>,
    worked: Duration,
    /// The priority of the last position chosen (`None` once none is left).
    least_chosen: Option<f64>,
    /// When what is left was last told.
    left_told: Option<Instant>,
}

/// How often a run tells what is left to grow.
const LEFT_EVERY: Duration = Duration::from_secs(10);

/// A search's id: its expansion's number and the leaf's index in it.
fn search_id(expansion: usize, leaf: usize) -> usize {
    expansion * 2 + leaf
}

impl Growth<'_, '_, '_> {
    fn run(&mut self, fleet: &Fleet, wind_down: Cancel<'_>, control: &mut Control<'_>) -> Result<(), GrowthError> {
        control.phase(Phase::Growing);
        let mut next = 0;
        let mut stopped: Option<Ended> = None;
        loop {
            if stopped.is_none() {
                stopped = self.budget_spent(wind_down);
            }
            let mut waiting_for: Option<Ended> = None;
            while stopped.is_none() && self.pending.len() < fleet.workers().max(1) {
                match self.dispatch(next, fleet)? {
                    Dispatch::Done => next += 1,
                    // Nothing to choose now; an expansion under way may
                    // still make a frontier position under the bound.
                    Dispatch::Stop(why @ (Ended::Exhausted | Ended::MaxPriority)) if !self.pending.is_empty() => {
                        waiting_for = Some(why);
                        break;
                    }
                    Dispatch::Stop(why) => stopped = Some(why),
                }
            }
            if self.pending.is_empty() {
                self.report.adds.ended = stopped.or(waiting_for).unwrap_or_default();
                self.note_idle();
                return Ok(());
            }
            let Some(done) = fleet.next_done() else {
                return Err(GrowthError::interrupted(self.journal.path())(Interrupted));
            };
            let answered = done.map_err(|gave_up| gave_up_error(gave_up, control.cancel, self.journal.path()))?;
            self.answered(answered)?;
            (control.progress)(self.progress());
            control.engines_busy(fleet.utilisation());
            if let Some(left) = self.left() {
                (control.progress)(left);
            }
        }
    }

    /// Which budget is spent, if one is (max_positions is checked at each
    /// expansion, max_priority at each choice).
    fn budget_spent(&self, wind_down: Cancel<'_>) -> Option<Ended> {
        if wind_down.is_set() {
            return Some(Ended::Asked);
        }
        match self.options.max_seconds {
            Some(limit) if self.began.elapsed().as_secs_f64() >= limit => Some(Ended::MaxSeconds),
            _ => None,
        }
    }

    /// Where the run is: positions added, searches, the largest priority
    /// expanded so far (how far the growth has come) and, with a budget,
    /// how much of it is spent.
    fn progress(&self) -> Progress<'static> {
        let e = &*self.report;
        let spent = match (self.options.growth.max_positions, self.options.max_seconds) {
            (Some(n), _) if n > 0 => Some(e.added as f64 / n as f64),
            (_, Some(s)) if s > 0.0 => Some(self.began.elapsed().as_secs_f64() / s),
            _ => None,
        };
        Progress::Grown {
            added: e.added,
            searched: e.searches.searched,
            reached: self.report.adds.largest_expanded,
            spent,
        }
    }

    /// What is left to grow, at most every [`LEFT_EVERY`]: the least
    /// priority chosen last and, with `max_priority`, the frontier
    /// positions at or under it (a search of the book, so not after each
    /// answer).
    fn left(&mut self) -> Option<Progress<'static>> {
        if self.left_told.is_some_and(|t| t.elapsed() < LEFT_EVERY) {
            return None;
        }
        self.left_told = Some(Instant::now());
        let at_most = self.options.max_priority.map(|c| {
            let view = View::new(self.store, self.solved, self.root, self.gates, &self.hidden);
            priority::count_at_most(&view, self.root, self.options.error_weight, c)
        });
        Some(Progress::Left { least: self.least_chosen, at_most })
    }

    /// Chooses the least priority not under way and dispatches its
    /// expansion (number `number`): the child joins the book, the leaf
    /// becomes a link, and the leaves to search go to the fleet (or come
    /// from the journal).
    fn dispatch(&mut self, number: usize, fleet: &Fleet) -> Result<Dispatch, GrowthError> {
        if self.options.growth.max_positions.is_some_and(|n| self.report.added >= n) {
            return Ok(Dispatch::Stop(Ended::MaxPositions));
        }
        let Some(chosen) = self.least() else {
            self.least_chosen = None;
            return Ok(Dispatch::Stop(Ended::Exhausted));
        };
        self.least_chosen = Some(chosen.priority.to_f64());
        if self.options.max_priority.is_some_and(|c| !chosen.priority.at_most(c)) {
            return Ok(Dispatch::Stop(Ended::MaxPriority));
        }
        let id = chosen.node;
        self.journal.expansion(&self.store.board(id), chosen.d.to_f64(), chosen.priority.to_f64())?;
        let solved = &*self.solved;
        let Some((child, added)) = self.store.expand(id, |store, c| solved.get(store, c))? else {
            unreachable!("a frontier position has a leaf move")
        };
        if added && matches!(self.store.flavor(), Flavor::Edax(_)) {
            self.store.link_new(child, |store, c| solved.value(store, c));
        }
        let largest = self.report.adds.largest_expanded.get_or_insert(0.0);
        *largest = largest.max(chosen.priority.to_f64());
        self.report.expanded += 1;
        self.report.added += u64::from(added);
        let positions: SmallVec<[NodeId; 2]> = if added { [child, id].into() } else { [id].into_iter().collect() };
        let mut expansion = Expansion { leaves: SmallVec::new(), waiting: 0, child };
        for (k, &at) in positions.iter().enumerate() {
            let plan = self.store.leaf_plan(at)?;
            let answer = match plan {
                LeafPlan::Search { query, .. } => self.journal.take(&query),
                LeafPlan::Known { .. } => None,
            };
            if let (LeafPlan::Search { query, .. }, None) = (plan, answer) {
                fleet.submit(search_id(number, k), query);
                expansion.waiting += 1;
            } else if answer.is_some() {
                self.report.searches.from_journal += 1;
            }
            expansion.leaves.push((at, plan, answer));
            self.under_way.insert(at);
        }
        self.under_way.insert(child);
        self.hidden.insert(child);
        let mut expansion = expansion;
        expansion.child = child;
        if expansion.waiting > 0 {
            self.busy_since.get_or_insert_with(Instant::now);
        }
        self.pending.insert(number, expansion);
        if self.pending[&number].waiting == 0 {
            self.finish(number)?;
        }
        Ok(Dispatch::Done)
    }

    /// The frontier position of least priority not under way.
    fn least(&self) -> Option<Frontier<NodeId>> {
        let (window, min_empties) = self.gates;
        let view = View::new(self.store, self.solved, self.root, (window, min_empties), &self.hidden);
        let skip = |n: NodeId| self.under_way.contains(&n);
        priority::least(&view, self.root, self.options.error_weight, skip, 1).into_iter().next()
    }

    /// An answer: into the journal, then, once its expansion has all its
    /// answers, into the book.
    fn answered(&mut self, answered: Answered) -> Result<(), GrowthError> {
        let Answered { id, query, answer, engine, took } = answered;
        self.journal.record(&query, answer, self.engines[engine].identity(), took)?;
        self.report.searches.searched += 1;
        self.report.searches.engine_time += took;
        let (number, k) = (id / 2, id % 2);
        let expansion = self.pending.get_mut(&number).expect("an answer belongs to an expansion under way");
        expansion.leaves[k].2 = Some(answer);
        expansion.waiting -= 1;
        if expansion.waiting == 0 {
            self.finish(number)?;
        }
        Ok(())
    }

    /// An expansion whose leaves are all known: they are set, and the
    /// negamax carried up from them.
    fn finish(&mut self, number: usize) -> Result<(), GrowthError> {
        let expansion = self.pending.remove(&number).expect("finished once");
        let mut changed: SmallVec<[NodeId; 2]> = SmallVec::new();
        for (at, plan, answer) in &expansion.leaves {
            self.store.set_leaf(*at, plan.leaf(*answer));
            changed.push(*at);
        }
        let stop = Stop { cancel: self.cancel, journal: self.journal.path() };
        self.solved.after_change(self.store, &changed, stop)?;
        self.under_way.clear();
        self.hidden.clear();
        for other in self.pending.values() {
            self.under_way.extend(other.leaves.iter().map(|l| l.0).chain([other.child]));
            self.hidden.insert(other.child);
        }
        if self.pending.values().all(|e| e.waiting == 0) {
            self.note_idle();
        }
        Ok(())
    }

    /// The engines have no work for now: the time they had it is counted.
    fn note_idle(&mut self) {
        if let Some(since) = self.busy_since.take() {
            self.worked += since.elapsed();
            self.report.adds.worked = self.worked;
        }
    }
}

/// What a dispatch did.
enum Dispatch {
    Done,
    Stop(Ended),
}
