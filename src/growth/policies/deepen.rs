//! `deepen` (docs/deepen.md, SPEC §16): leaves searched again at a higher
//! level. Each record whose level, at its empty squares, searches less
//! deeply than the level asked for takes that level, and its leaf is
//! searched again at it, its links excluded; the book is then negamaxed as
//! `fix` does. Which records, and in which order: every record in file
//! order; with a start or a window, the positions extend's walk enters;
//! with a budget, grow's priority order, least first, so that a run
//! stopped early has deepened the lines play reaches first.
//!
//! The growth session ([`crate::growth::session`]) opens, prepares and writes;
//! this is its policy. The order is worked out once, on the book read
//! (negamaxed): a leaf searched deeper changes values, not which lines
//! the book holds, and a fixed order is what makes a run stopped by its
//! budget say, from the book read alone, what it deepened.

use crate::book::Book;
use crate::engine::fleet::{Answered, EngineSet, Fleet};
use crate::engine::journal::Journal;
use crate::engine::search::Answer;
use crate::growth::engines::gave_up_error;
use crate::growth::error::GrowthError;
use crate::growth::graph::View;
use crate::growth::growing::candidates::Marks;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::growth::growing::solved::Solved;
use crate::growth::growing::store::{Flavor, NodeId, Store};
use crate::growth::growing::view::Stop;
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::policy::Engines;
use crate::growth::priority::{self, ErrorWeight, LinkGraph, ParentLinks};
use crate::growth::report::GrowthReport;
use crate::growth::session::{self, Grower, Held};
use crate::level::Level;
use crate::negamax::{self, search_level};
use crate::run::{Cancel, Control, Interrupted, Phase};
use crate::walk::Start;
use crate::window::Window;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;
use std::time::Instant;

/// What `deepen` is asked to do.
#[derive(Clone, Debug)]
pub struct DeepenOptions {
    /// The engines, the start, the window, `min_empties`, `max_positions`
    /// (here: records deepened).
    pub growth: GrowthOptions,
    /// The level every record is deepened to.
    pub level: Level,
    /// The priority's weight of a disc of error (grow's).
    pub error_weight: ErrorWeight,
    /// Deepen no record whose priority is above this.
    pub max_priority: Option<f64>,
    /// Dispatch nothing new once this long has passed.
    pub max_seconds: Option<f64>,
}

impl DeepenOptions {
    /// A budget is given: the records are taken in priority order.
    fn budgeted(&self) -> bool {
        self.growth.max_positions.is_some() || self.max_priority.is_some() || self.max_seconds.is_some()
    }

    /// A start other than the initial position, or a window: only what
    /// the walk enters is deepened.
    fn walked(&self) -> bool {
        self.growth.start.board != Start::initial().board || self.growth.window != Window::NONE
    }
}

/// Whether a record of level `level` with `empties` empty squares needs
/// deepening to `to`: Edax's level table gives its level a smaller depth
/// at those empty squares, or the same depth with a lower selectivity. A
/// solved record never does. A record's stored level is taken as
/// [`Level::saturating`] makes it: the table reads a byte above 60 as 60.
pub fn needs_deepening(level: Level, empties: u32, to: Level) -> bool {
    let empties = empties.min(60) as u8;
    let (have, want) = (search_level(level, empties), search_level(to, empties));
    !have.solves(empties) && (have.depth, have.selectivity) < (want.depth, want.selectivity)
}

/// Why a run stopped deepening.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ended {
    /// Every record that needed it was deepened.
    #[default]
    AllDeepened,
    /// The records left have a priority above `max_priority`.
    MaxPriority,
    /// `max_positions` records were deepened.
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
            Ended::AllDeepened => "all deepened",
            Ended::MaxPriority => "max_priority",
            Ended::MaxPositions => "max_positions",
            Ended::MaxSeconds => "max_seconds",
            Ended::Asked => "asked to stop",
        }
    }
}

/// What `deepen` adds to its [`GrowthReport`] (`adds`), for the summary.
#[derive(Clone, Debug, Default)]
pub struct Deepened {
    /// The level the records were deepened to.
    pub level: Level,
    /// Records that needed deepening, among those the run looks at.
    pub needed: u64,
    /// Records given the level, their leaves searched again.
    pub deepened: u64,
    /// Leaves whose move changed, and whose score changed.
    pub moves_changed: u64,
    /// Leaves whose score changed.
    pub scores_changed: u64,
    /// The largest change of a leaf's score, in discs (leaves that had a
    /// score before and after).
    pub largest_score_change: u32,
    /// Positions below the start whose negamaxed value is not the book read's.
    pub values_changed: u64,
    /// Why the run stopped deepening.
    pub ended: Ended,
    /// The header's level was set to the level (an Edax book, the level
    /// above IN's, no record left that needs deepening to it).
    pub header_level_set: bool,
    /// The level OUT's header says (an Edax book's; none for Egaroucid's).
    pub header_level: Option<i32>,
}

impl fmt::Display for GrowthReport<Deepened> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self;
        writeln!(f, "positions loaded     {}", e.positions_loaded)?;
        writeln!(f, "level                {}", self.adds.level)?;
        writeln!(f, "needed deepening     {}", self.adds.needed)?;
        writeln!(f, "deepened             {}", self.adds.deepened)?;
        writeln!(f, "ended by             {}", self.adds.ended.name())?;
        writeln!(f, "leaf moves changed   {}", self.adds.moves_changed)?;
        writeln!(
            f,
            "leaf scores changed  {} (by {} at most)",
            self.adds.scores_changed, self.adds.largest_score_change
        )?;
        writeln!(f, "values changed       {}", self.adds.values_changed)?;
        e.searches.write(&e.journal, f)?;
        let header = match (self.adds.header_level, self.adds.header_level_set) {
            (Some(level), true) => format!(", its header's level set to {level}"),
            (Some(level), false) => format!(", its header's level kept at {level}"),
            (None, _) => String::new(),
        };
        writeln!(f, "book written         {} ({} records{header})", e.output.display(), e.records_written)?;
        write!(f, "elapsed              {:.3} s", e.elapsed.as_secs_f64())
    }
}

/// `deepen`: the leaves of `book` shallower than the level asked searched
/// again at it.
pub struct Deepen<'a> {
    /// The book read (IN).
    pub book: Book,
    /// What `deepen` is asked.
    pub options: &'a DeepenOptions,
    /// Deepen's wind-down: once set, nothing new is dispatched, what is under
    /// way is finished and OUT written.
    pub wind_down: Cancel<'a>,
}

impl crate::growth::policy::Policy for Deepen<'_> {
    type Report = GrowthReport<Deepened>;

    fn run(
        self,
        paths: &GrowthPaths,
        engines: Engines<'_>,
        control: Control<'_>,
    ) -> Result<GrowthReport<Deepened>, GrowthError> {
        let Deepen { book, options, wind_down } = self;
        let engines = |scratch: &Path| engines.start(&options.growth, scratch);
        let report = GrowthReport {
            adds: Deepened { level: options.level, ..Deepened::default() },
            ..GrowthReport::new(paths, 0)
        };
        let mut leaves = Leaves { options, wind_down, report };
        let ran = session::grow_book(book, paths, &options.growth, engines, &mut leaves, control)?;
        ran.fill(&mut leaves.report);
        Ok(leaves.report)
    }
}

/// Deepen's policy: the records' leaves searched again, in order.
struct Leaves<'o> {
    options: &'o DeepenOptions,
    wind_down: Cancel<'o>,
    report: GrowthReport<Deepened>,
}

impl Grower for Leaves<'_> {
    fn grow(&mut self, held: Held<'_, '_>, fleet: &Fleet<'_>, control: &mut Control<'_>) -> Result<(), GrowthError> {
        let Held { store, solved, journal, engines, cancel, root, min_empties, began, .. } = held;
        let options = self.options;
        let (chosen, needed, ended) = {
            let none_hidden = HashSet::new();
            let view = View::new(store, solved, root, (options.growth.window, min_empties), &none_hidden);
            to_deepen(&Needing { view: &view, store, solved, level: options.level }, root, options)?
        };
        self.report.adds.needed = needed;
        let mut run = Deepening {
            store,
            journal,
            engines,
            options,
            began,
            wind_down: self.wind_down,
            report: &mut self.report,
            changed: Vec::new(),
        };
        control.phase(Phase::Deepening { records: chosen.len() });
        let stopped = run.run(&chosen, fleet, control)?;
        let Deepening { store, changed, .. } = run;
        self.report.adds.ended = stopped.or(ended).unwrap_or_default();
        let reached: Vec<NodeId> = changed.into_iter().filter(|&id| solved.is_solved(id)).collect();
        let stop = Stop { cancel, journal: journal.path() };
        let carried = Instant::now();
        solved.after_change(store, &reached, stop)?;
        tracing::debug!("changes carried up in {:.3} s", carried.elapsed().as_secs_f64());
        let counted = Instant::now();
        self.report.adds.values_changed = values_changed(store, solved)?;
        tracing::debug!("values changed counted in {:.3} s", counted.elapsed().as_secs_f64());
        // SPEC §16 step 4: never lowered, since `add` and `extend` search
        // new positions at the header's level.
        let read = store.book().header().edax().map(|h| h.level);
        self.report.adds.header_level = read;
        if read.is_some_and(|read| options.level.to_i32() > read) && !any_needs_deepening(store, options.level)? {
            store.set_header_level(options.level);
            self.report.adds.header_level_set = true;
            self.report.adds.header_level = Some(options.level.to_i32());
        }
        Ok(())
    }

    /// Deepen orders the records itself: the candidates are only counted.
    fn candidates(&self) -> Option<Marks> {
        None
    }
}

/// The records to deepen, in order, how many needed it, and the budget
/// that cut the list short, if one did (max_positions, max_priority).
fn to_deepen(
    graph: &Needing<'_, '_, '_>,
    root: NodeId,
    options: &DeepenOptions,
) -> Result<(Vec<NodeId>, u64, Option<Ended>), GrowthError> {
    if options.budgeted() {
        return Ok(by_priority(graph, root, options));
    }
    let chosen = if options.walked() { walk_order(graph, root) } else { file_order(graph)? };
    let needed = chosen.len() as u64;
    Ok((chosen, needed, None))
}

/// The records to deepen under a budget, in §14's priority order, as
/// [`to_deepen`] gives them. A budget of positions or of priority asks
/// only for the least priorities ([`priority::least`], which settles no
/// more of the book than they need): on a book of millions of records the
/// whole order would cost more than the deepening. A budget of seconds
/// alone may reach every record, and orders them all.
fn by_priority(
    graph: &Needing<'_, '_, '_>,
    root: NodeId,
    options: &DeepenOptions,
) -> (Vec<NodeId>, u64, Option<Ended>) {
    let w = options.error_weight;
    let began = Instant::now();
    let needed = needed_count(graph, root, options.growth.window);
    tracing::debug!("records needing deepening counted in {:.3} s", began.elapsed().as_secs_f64());
    let began = Instant::now();
    let by_positions = options.growth.max_positions.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let by_priority = options.max_priority.map(|c| priority::count_at_most(graph, root, w, c));
    let by_priority = by_priority.map(|k| usize::try_from(k).unwrap_or(usize::MAX));
    let limit = match (by_positions, by_priority) {
        (None, None) => {
            return (priority::frontier(graph, root, w).into_iter().map(|f| f.node).collect(), needed, None)
        }
        (n, k) => n.unwrap_or(usize::MAX).min(k.unwrap_or(usize::MAX)),
    };
    // One more than the budget: whether it cut the order short, and which.
    let mut chosen: Vec<NodeId> =
        priority::least(graph, root, w, |_| false, limit.saturating_add(1)).into_iter().map(|f| f.node).collect();
    tracing::debug!("the least priorities found in {:.3} s", began.elapsed().as_secs_f64());
    if chosen.len() <= limit {
        return (chosen, needed, None);
    }
    chosen.truncate(limit);
    let ended = match by_positions {
        Some(n) if n == limit => Ended::MaxPositions,
        _ => Ended::MaxPriority,
    };
    (chosen, needed, Some(ended))
}

/// Every record of the book read that needs deepening, in file order.
fn file_order(graph: &Needing<'_, '_, '_>) -> Result<Vec<NodeId>, GrowthError> {
    let book = graph.store.book();
    let mut chosen = Vec::new();
    for at in book.file().records_in(0..book.counts().records as usize) {
        let id = NodeId::Book(at);
        if graph.needs(id)? {
            chosen.push(id);
        }
    }
    Ok(chosen)
}

/// The positions extend's walk enters from `root` that need deepening, in
/// the order it first enters them: depth first over the links it follows,
/// in stored order, each position once.
fn walk_order(graph: &Needing<'_, '_, '_>, root: NodeId) -> Vec<NodeId> {
    let mut chosen = Vec::new();
    // A flag a record of the book read (on a book of millions, hashing
    // each position entered cost more than the rest of the walk), a set
    // for the positions added.
    let mut seen_record = vec![false; graph.store.book().counts().records as usize];
    let mut seen_added = HashSet::new();
    let mut first_time = |node: NodeId| match node {
        NodeId::Book(at) => !std::mem::replace(&mut seen_record[at.id.index()], true),
        NodeId::Added(_) => seen_added.insert(node),
    };
    let mut stack = vec![root];
    let mut links = Vec::new();
    while let Some(node) = stack.pop() {
        if !graph.entered(node) || !first_time(node) {
            continue;
        }
        if graph.leaf(node).is_some() {
            chosen.push(node);
        }
        links.clear();
        graph.links(node, &mut links);
        stack.extend(links.iter().rev().map(|&(_, child)| child));
    }
    chosen
}

/// How many positions [`walk_order`] gives, without walking where the
/// count is the same: in file order, over the records the first negamax
/// reached, for an Edax book as read under no window. On a book of
/// millions of records, the walk's reads, each where the links lead, took
/// longer than `fix` of the book.
fn needed_count(graph: &Needing<'_, '_, '_>, root: NodeId, window: Window) -> u64 {
    match in_file_order(graph, root, window) {
        Some(needed) => needed,
        None => walk_order(graph, root).len() as u64,
    }
}

/// [`needed_count`] in file order, where it is the walk's; `None` where it
/// may not be (a window, positions added or changed, an Egaroucid book).
///
/// The walk enters the positions reached from `root` over links through
/// entered positions only. The first negamax reached every position below
/// `root` over the same links. Every position on a line of links to an
/// entered position is entered too: a link is a legal move, so the
/// position it leaves is no finished game and has more empty squares than
/// the child. So, `root` entered, the walk enters exactly the positions
/// negamaxed that are entered. A record that cannot be read counts as no
/// leaf to deepen, as in the walk.
fn in_file_order(graph: &Needing<'_, '_, '_>, root: NodeId, window: Window) -> Option<u64> {
    let store = graph.store;
    let as_read = store.changed().is_empty() && store.added().is_empty();
    if window != Window::NONE || !matches!(store.flavor(), Flavor::Edax(_)) || !as_read {
        return None;
    }
    if !graph.entered(root) {
        return Some(0);
    }
    let file = store.book().file();
    let needed = summed_over_records::<std::convert::Infallible>(store.book(), |records| {
        let mut needed = 0;
        for at in file.records_in(records) {
            let id = NodeId::Book(at);
            if !graph.solved.is_solved(id) || !graph.entered(id) {
                continue;
            }
            let Some(raw) = file.edax_record(at) else { continue };
            needed +=
                u64::from(needs_deepening(Level::saturating(raw.level().into()), raw.board().empties(), graph.level));
        }
        Ok(needed)
    });
    let Ok(needed) = needed;
    Some(needed)
}

/// `count` summed over the records of `book`, each core counting a run of
/// them: on a book of millions, one pass over the file costs a second on
/// one core. The error is the first in file order, as one pass finds it.
fn summed_over_records<E: Send>(
    book: &Book,
    count: impl Fn(std::ops::Range<usize>) -> Result<u64, E> + Sync,
) -> Result<u64, E> {
    let records = book.counts().records as usize;
    let run = records.div_ceil(crate::parallel::workers()).max(1);
    std::thread::scope(|scope| {
        let count = &count;
        let runs = (0..records).step_by(run).map(|from| from..(from + run).min(records));
        let threads: Vec<_> = runs.map(|records| scope.spawn(move || count(records))).collect();
        threads.into_iter().map(|t| t.join().expect("a thread counting records does not panic")).sum()
    })
}

/// The growing book as deepen orders it: grow's view, with the records
/// that need deepening as its frontier, each scored by its leaf (−127, the
/// least, for a leaf that is no move).
struct Needing<'v, 'a, 'b> {
    view: &'v View<'a, 'b>,
    store: &'v Store<'b>,
    /// What the first negamax reached.
    solved: &'v Solved,
    level: Level,
}

impl Needing<'_, '_, '_> {
    /// Whether the position needs deepening.
    fn needs(&self, id: NodeId) -> Result<bool, GrowthError> {
        // The level alone: a position's facts would resolve its links too.
        let level = self.store.level(id)?;
        Ok(needs_deepening(Level::saturating(level.into()), self.store.board(id).empties(), self.level))
    }
}

impl LinkGraph for Needing<'_, '_, '_> {
    type Node = NodeId;

    fn entered(&self, node: NodeId) -> bool {
        self.view.entered(node)
    }

    fn value(&self, node: NodeId) -> i32 {
        self.view.value(node)
    }

    fn leaf(&self, node: NodeId) -> Option<i32> {
        let leaf = self.store.leaf(node).ok()?.filter(|leaf| leaf.mv.is_some());
        let score = crate::negamax::leaf_score(leaf).discs();
        self.needs(node).ok()?.then_some(score)
    }

    fn links(&self, node: NodeId, out: &mut Vec<(i32, NodeId)>) {
        self.view.links(node, out)
    }
}

impl ParentLinks for Needing<'_, '_, '_> {
    fn parents(&self, node: NodeId, out: &mut Vec<NodeId>) {
        self.view.parents(node, out)
    }
}

/// The deepening under way, and what it needs at hand.
struct Deepening<'r, 's, 'b> {
    store: &'s mut Store<'b>,
    journal: &'r mut Journal,
    engines: &'r [EngineSet],
    options: &'r DeepenOptions,
    began: Instant,
    wind_down: Cancel<'r>,
    report: &'r mut GrowthReport<Deepened>,
    /// The positions deepened, in the order their leaves were set.
    changed: Vec<NodeId>,
}

impl Deepening<'_, '_, '_> {
    /// Deepens `chosen` in order, as many searches under way as the fleet
    /// has workers, each answer journaled first; returns why it stopped
    /// before the end, if it did.
    fn run(
        &mut self,
        chosen: &[NodeId],
        fleet: &Fleet<'_>,
        control: &mut Control<'_>,
    ) -> Result<Option<Ended>, GrowthError> {
        let mut pending: HashMap<usize, (NodeId, LeafPlan)> = HashMap::new();
        let mut next = 0;
        let mut stopped = None;
        loop {
            while stopped.is_none() && next < chosen.len() && pending.len() < fleet.workers().max(1) {
                stopped = self.budget_spent();
                if stopped.is_some() {
                    break;
                }
                let id = chosen[next];
                self.store.set_level(id, self.options.level)?;
                let plan = self.store.leaf_plan(id)?;
                let answer = plan.query().and_then(|query| self.journal.take(query));
                match (plan, answer) {
                    (LeafPlan::Search { query, .. }, None) => {
                        fleet.submit(next, query);
                        pending.insert(next, (id, plan));
                    }
                    (_, answer) => {
                        self.report.searches.from_journal += u64::from(answer.is_some());
                        self.set_leaf(id, plan, answer)?;
                        control.counted(self.report.adds.deepened);
                    }
                }
                next += 1;
            }
            if pending.is_empty() {
                return Ok(stopped);
            }
            let Some(done) = fleet.next_done() else {
                return Err(GrowthError::interrupted(self.journal.path())(Interrupted));
            };
            let Answered { id, query, answer, engine, took } =
                done.map_err(|gave_up| gave_up_error(gave_up, control.cancel, self.journal.path()))?;
            self.journal.record(&query, answer, self.engines[engine].identity(), took)?;
            self.report.searches.searched += 1;
            self.report.searches.engine_time += took;
            let (node, plan) = pending.remove(&id).expect("an answer belongs to a search under way");
            self.set_leaf(node, plan, Some(answer))?;
            control.counted(self.report.adds.deepened);
            control.engines_busy(fleet.utilisation());
        }
    }

    /// Which budget is spent, if one is (max_positions and max_priority
    /// cut the list before the run).
    fn budget_spent(&self) -> Option<Ended> {
        if self.wind_down.is_set() {
            return Some(Ended::Asked);
        }
        match self.options.max_seconds {
            Some(limit) if self.began.elapsed().as_secs_f64() >= limit => Some(Ended::MaxSeconds),
            _ => None,
        }
    }

    /// Sets a position's leaf searched again, and counts what changed.
    fn set_leaf(&mut self, id: NodeId, plan: LeafPlan, answer: Option<Answer>) -> Result<(), GrowthError> {
        let before = self.store.leaf(id)?;
        let leaf = plan.leaf(answer);
        let report = &mut *self.report;
        report.adds.deepened += 1;
        report.adds.moves_changed += u64::from(leaf.and_then(|l| l.mv) != before.and_then(|l| l.mv));
        if negamax::leaf_score(leaf) != negamax::leaf_score(before) {
            report.adds.scores_changed += 1;
            // The change between two scores the negamax takes.
            if let (Some(now), Some(was)) = (negamax::taken_leaf_score(leaf), negamax::taken_leaf_score(before)) {
                let by = (now.discs() - was.discs()).unsigned_abs();
                report.adds.largest_score_change = report.adds.largest_score_change.max(by);
            }
        }
        self.store.set_leaf(id, leaf);
        self.changed.push(id);
        Ok(())
    }
}

/// How many records of the book read the negamax reached whose value is
/// not the one the book read holds.
fn values_changed(store: &Store<'_>, solved: &Solved) -> Result<u64, GrowthError> {
    let book = store.book();
    summed_over_records(book, |records| {
        let mut changed = 0;
        for at in book.file().records_in(records) {
            let id = NodeId::Book(at);
            if solved.is_solved(id) {
                changed += u64::from(solved.get(store, id)?.value != store.stored_negamax(at)?.value);
            }
        }
        Ok(changed)
    })
}

/// Whether any record of the book written, reachable or not, still needs
/// deepening to `level`: the header may say `level` only when none does.
fn any_needs_deepening(store: &Store<'_>, level: Level) -> Result<bool, GrowthError> {
    let needs = |level_byte: u8, board: crate::board::Board| {
        needs_deepening(Level::saturating(level_byte.into()), board.empties(), level)
    };
    for node in store.added() {
        if needs(node.level, node.board) {
            return Ok(true);
        }
    }
    let book = store.book();
    let needing = summed_over_records(book, |records| {
        let mut needing = 0;
        for at in book.file().records_in(records) {
            let id = NodeId::Book(at);
            needing += u64::from(needs(store.level(id)?, store.board(id)));
        }
        Ok::<u64, GrowthError>(needing)
    })?;
    Ok(needing > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::growth::growing::first::{self, Prepared};
    use crate::symmetry::normalize;
    use crate::synth::{book_bytes, SynthOptions};
    use std::path::Path;
    use std::sync::atomic::AtomicBool;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// The records needing deepening, counted in file order, are as
        /// many as the walk enters, whatever the gate of empty squares
        /// (61: not even the start) and the level.
        #[test]
        fn needed_in_file_order_is_the_walk_s(seed in 0u64..1000, min_empties in 0u32..62, level in 0u8..40) {
            let level = Level::new(level).unwrap();
            let options = SynthOptions { positions: 3000, seed, perturb: 0.2 };
            let read = Book::from_bytes("synthetic", book_bytes(&options)).unwrap();
            let flavor = Flavor::Edax(read.header().edax().unwrap().search_errors());
            let cancel = AtomicBool::new(false);
            let start = Start::initial();
            let prepared = first::prepare(read, &start, (min_empties, None), Path::new("journal"), Cancel::new(&cancel));
            let Prepared { book, links, first } = prepared.unwrap();
            let store = Store::with_links(&book, flavor, links);
            let root = store.find(&normalize(&start.board).board).unwrap();
            let solved = Solved::from_first(first.unwrap());
            let hidden = HashSet::new();
            let view = View::new(&store, &solved, root, (Window::NONE, min_empties), &hidden);
            let graph = Needing { view: &view, store: &store, solved: &solved, level };
            let walked = walk_order(&graph, root).len() as u64;
            proptest::prop_assert_eq!(in_file_order(&graph, root, Window::NONE), Some(walked));
        }
    }
}
