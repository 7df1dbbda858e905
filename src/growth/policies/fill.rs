//! `fill` (docs/policies.md, SPEC §17.4): Edax's `book fill D` as a policy
//! of the growth session. A round looks, from every position of the book
//! with at least `min_empties` empty squares, at every sequence of D plies
//! (a forced pass is a ply) that ends on a position of the book, and puts
//! each position after the first of such a sequence into the book (those
//! with at least `min_empties − 1` empty squares): a new one at the book's
//! level, linked to its children in the book, its leaf searched excluding
//! them; one the book holds linked the same way, its leaf searched again
//! if it became a link. Rounds go on until one adds no position and no
//! link.
//!
//! A round sees the book as it was when the round began: the positions it
//! adds are looked at by the next round, not by the rest of this one, so
//! what a round does does not depend on the order the book is read in.
//! Its searches are asked all at once; its values are then raised deepest
//! position first (a child before its parents), each by its new links and
//! its leaf, as Edax's `position_add_link` and `position_search` raise
//! them.

use crate::board::{Board, Move};
use crate::book::{Book, Leaf};
use crate::engine::ask::{Answerers, Asked};
use crate::engine::fleet::Fleet;
use crate::growth::error::GrowthError;
use crate::growth::growing::candidates::Marks;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::growth::growing::store::{Flavor, Node, NodeId, Store};
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::policy::Engines;
use crate::growth::report::GrowthReport;
use crate::growth::session::{self, Grower, Held};
use crate::level::Level;
use crate::negamax::{new_link_score, SCORE_INF};
use crate::run::{Cancel, Control, Phase};
use crate::symmetry::normalize;
use crate::wording::count;
use hashbrown::{HashMap, HashSet};
use smallvec::SmallVec;
use std::fmt;
use std::path::Path;

/// The most plies a sequence may have: each ply multiplies a round's work
/// by the number of legal moves, about ten.
pub const MAX_DEPTH: u32 = 6;

/// Start positions looked at between two looks at the stop.
const STARTS_A_STEP: usize = 256;

/// What `fill` is asked to do.
#[derive(Clone, Debug)]
pub struct FillOptions {
    /// The engines, `min_empties` and `max_positions` (the run starts from
    /// the whole book: its start and window are not read).
    pub growth: GrowthOptions,
    /// The plies of a sequence, 1 to [`MAX_DEPTH`].
    pub depth: u32,
    /// Begin no round after this many seconds.
    pub max_seconds: Option<f64>,
}

/// Why a run stopped before a round added nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// `max_positions` were added.
    MaxPositions,
    /// `max_seconds` passed.
    MaxSeconds,
}

impl Ended {
    /// The budget's name, as the config key says it.
    pub fn name(self) -> &'static str {
        match self {
            Ended::MaxPositions => "max_positions",
            Ended::MaxSeconds => "max_seconds",
        }
    }
}

/// What `fill` adds to its [`GrowthReport`] (`adds`), for the summary.
#[derive(Clone, Debug, Default)]
pub struct Filled {
    /// The plies of a sequence.
    pub depth: u32,
    /// Links added, to the positions added and to those held.
    pub links_added: u64,
    /// The budget that stopped the run, if one did.
    pub ended: Option<Ended>,
}

impl fmt::Display for GrowthReport<Filled> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions loaded     {}", self.positions_loaded)?;
        writeln!(f, "depth                {}", count(self.adds.depth, "ply", "plies"))?;
        writeln!(f, "rounds               {}", self.rounds)?;
        writeln!(f, "positions added      {}", self.added)?;
        writeln!(f, "links added          {}", self.adds.links_added)?;
        self.searches.write(&self.journal, f)?;
        if let Some(ended) = self.adds.ended {
            writeln!(f, "stopped early        {} reached: sequences may be left to fill", ended.name())?;
        }
        self.write_ending(f)
    }
}

/// The session `fill` runs in: the whole book, from the initial position,
/// no window; the engines, `min_empties` and `max_positions` as given.
fn session_options(options: &FillOptions) -> GrowthOptions {
    let e = &options.growth;
    GrowthOptions {
        min_empties: e.min_empties,
        max_positions: e.max_positions,
        ..GrowthOptions::whole_book(&e.engines, e.engine_timeout)
    }
}

/// `fill`: `book` filled as Edax's `book fill` fills it.
pub struct Fill<'a> {
    /// The book read (IN).
    pub book: Book,
    /// What `fill` is asked.
    pub options: &'a FillOptions,
}

impl crate::growth::policy::Policy for Fill<'_> {
    type Report = GrowthReport<Filled>;

    fn run(
        self,
        paths: &GrowthPaths,
        engines: Engines<'_>,
        control: Control<'_>,
    ) -> Result<GrowthReport<Filled>, GrowthError> {
        let Fill { book, options } = self;
        let session = session_options(options);
        let engines = |scratch: &Path| engines.start(&session, scratch);
        let depth = options.depth.clamp(1, MAX_DEPTH);
        let report = GrowthReport { adds: Filled { depth, ..Filled::default() }, ..GrowthReport::new(paths, 0) };
        let mut filler = Filler { options, report };
        let ran = session::grow_book(book, paths, &session_options(options), engines, &mut filler, control)?;
        let mut report = filler.report;
        report.positions_loaded = ran.positions_loaded;
        ran.fleet.fill(&mut report.searches);
        report.records_written = ran.records_written;
        report.elapsed = ran.elapsed;
        Ok(report)
    }
}

/// `fill` as a policy of the growth session: rounds over the book as read
/// (nothing negamaxed first: Edax's `book fill` negamaxes nothing before).
struct Filler<'o> {
    options: &'o FillOptions,
    report: GrowthReport<Filled>,
}

impl Grower for Filler<'_> {
    fn negamaxes_first(&self) -> bool {
        false
    }

    fn candidates(&self) -> Option<Marks> {
        None
    }

    fn grow(&mut self, held: Held<'_, '_>, fleet: &Fleet<'_>, control: &mut Control<'_>) -> Result<(), GrowthError> {
        let Held { store, journal, engines, cancel, min_empties, began, .. } = held;
        let level = new_level(store);
        let mut answerers = Answerers { journal, fleet, engines, cancel };
        loop {
            let out_of_time = self.options.max_seconds.is_some_and(|s| began.elapsed().as_secs_f64() >= s);
            if out_of_time {
                self.report.adds.ended = Some(Ended::MaxSeconds);
                return Ok(());
            }
            let round = self.report.rounds + 1;
            let found = Sequences::find(store, self.report.adds.depth, min_empties, cancel, answerers.journal.path())?;
            let left = self.options.growth.max_positions.map(|n| n.saturating_sub(self.report.added));
            let mut round_run = Round { store, report: &mut self.report, level };
            let changed = round_run.run(found, left, round, &mut answerers, control)?;
            if !changed {
                return Ok(());
            }
            self.report.rounds = round;
            if self.report.adds.ended.is_some() {
                return Ok(());
            }
        }
    }
}

/// The level of the positions a run adds: an Edax book's header level.
/// An Egaroucid book's header holds none: each new position takes the
/// highest level of the positions its sequences start from (`None`).
fn new_level(store: &Store<'_>) -> Option<Level> {
    store.book().header().edax().map(|h| Level::saturating(h.level))
}

/// What one round's look at the book found: the positions to put in
/// (new ones, and those the book holds), in the order first found.
#[derive(Default)]
struct Sequences {
    /// Boards (stored, normalized) the book does not hold, each with the
    /// highest level of the positions whose sequences reach it.
    new: Vec<(Board, u8)>,
    new_at: HashMap<Board, usize>,
    /// Positions the book holds that sequences pass or end on.
    held: Vec<NodeId>,
    held_seen: HashSet<NodeId>,
}

/// One look from one start position.
struct Look<'a, 'b> {
    store: &'a Store<'b>,
    /// The fewest empty squares of a position put in.
    least_empties: i64,
    /// The start's level.
    level: u8,
}

impl Sequences {
    /// Every position after the first of every sequence of `depth` plies
    /// from a position of at least `min_empties` empty squares (records of
    /// the book read in file order, then the positions added) to a
    /// position of the book, as the book stands.
    fn find(
        store: &Store<'_>,
        depth: u32,
        min_empties: u32,
        cancel: Cancel<'_>,
        journal: &Path,
    ) -> Result<Sequences, GrowthError> {
        let mut found = Sequences::default();
        let starts = store.book().file().every_record().map(NodeId::Book);
        let added = (0..store.added().len()).map(|k| NodeId::Added(k as u32));
        for (i, id) in starts.chain(added).enumerate() {
            if i % STARTS_A_STEP == 0 {
                cancel.check().map_err(GrowthError::interrupted(journal))?;
            }
            let board = store.board(id);
            if board.empties() < min_empties {
                continue;
            }
            let look = Look { store, least_empties: i64::from(min_empties) - 1, level: store.level(id)? };
            look.reach(&board, depth, &mut found);
        }
        Ok(found)
    }

    /// Notes a position a sequence passes or ends on.
    fn note(&mut self, store: &Store<'_>, board: &Board, level: u8) {
        let board = normalize(board).board;
        match store.find(&board) {
            Some(id) => {
                if self.held_seen.insert(id) {
                    self.held.push(id);
                }
            }
            None => match self.new_at.get(&board) {
                Some(&k) => self.new[k].1 = self.new[k].1.max(level),
                None => {
                    self.new_at.insert(board, self.new.len());
                    self.new.push((board, level));
                }
            },
        }
    }
}

impl Look<'_, '_> {
    /// Whether a sequence of `plies` from `board` ends on a position of
    /// the book; notes each position after `board` on such sequences.
    fn reach(&self, board: &Board, plies: u32, found: &mut Sequences) -> bool {
        if plies == 0 {
            return self.store.find(&normalize(board).board).is_some();
        }
        let mut reached = false;
        for (_, child) in board.children() {
            if self.reach(&child, plies - 1, found) {
                reached = true;
                if i64::from(child.empties()) >= self.least_empties {
                    found.note(self.store, &child, self.level);
                }
            }
        }
        reached
    }
}

/// A position a round puts in, and the leaf it searches, if any.
struct Put {
    id: NodeId,
    added: bool,
    plan: Option<LeafPlan>,
}

/// One round, at work on the store.
struct Round<'r, 'b> {
    store: &'r mut Store<'b>,
    report: &'r mut GrowthReport<Filled>,
    /// An Edax book's level for new positions.
    level: Option<Level>,
}

impl Round<'_, '_> {
    /// Puts in what `found` holds (at most `left` new positions), searches
    /// the leaves and sets the values; whether a position or a link was
    /// added.
    fn run(
        &mut self,
        found: Sequences,
        left: Option<u64>,
        round: u32,
        answerers: &mut Answerers<'_, '_>,
        control: &mut Control<'_>,
    ) -> Result<bool, GrowthError> {
        let mut new = found.new;
        if let Some(left) = left.filter(|&n| (new.len() as u64) > n) {
            new.truncate(left as usize);
            self.report.adds.ended = Some(Ended::MaxPositions);
        }
        let puts = self.put_in(&new, &found.held)?;
        tracing::info!(
            "round {round}: {} to add, {} held to link",
            count(new.len(), "position", "positions"),
            count(found.held.len(), "position", "positions"),
        );
        let mut answers = self.search(&puts, round, answerers, control)?.into_iter();
        let links_before = self.report.adds.links_added;
        for put in &puts {
            let answer = put.plan.map(|plan| plan.leaf(answers.next().flatten()));
            self.put(put, answer)?;
        }
        self.report.added += new.len() as u64;
        Ok(!new.is_empty() || self.report.adds.links_added > links_before)
    }

    /// Adds the `new` boards, each at its level (the book's, for an Edax
    /// book); returns them and the `held` positions in the order their
    /// values are set, each with the leaf it searches. Deepest first, a
    /// position that must pass after its pass child: each child's value is
    /// set before its parents' links read it.
    fn put_in(&mut self, new: &[(Board, u8)], held: &[NodeId]) -> Result<Vec<Put>, GrowthError> {
        let mut puts = Vec::with_capacity(new.len() + held.len());
        for &(board, level) in new {
            let level = self.level.map_or(level, Level::to_u8);
            let mut node = Node::new(board, level, None);
            node.solved.upper = SCORE_INF;
            puts.push(Put { id: self.store.add(node), added: true, plan: None });
        }
        puts.extend(held.iter().map(|&id| Put { id, added: false, plan: None }));
        puts.sort_by_cached_key(|p| {
            let board = self.store.board(p.id);
            (board.empties(), board.must_pass())
        });
        for put in &mut puts {
            put.plan = self.plan(put)?;
        }
        Ok(puts)
    }

    /// The answers to the searches the `puts` plan, in their order: from
    /// the journal, or from the engines all at once, each journaled as it
    /// comes.
    fn search(
        &mut self,
        puts: &[Put],
        round: u32,
        answerers: &mut Answerers<'_, '_>,
        control: &mut Control<'_>,
    ) -> Result<Vec<Option<crate::engine::search::Answer>>, GrowthError> {
        let plans: Vec<LeafPlan> = puts.iter().filter_map(|p| p.plan).collect();
        let searches = plans.iter().filter(|p| p.query().is_some()).count();
        control.phase(Phase::Round { round, candidates: puts.len(), searches });
        tracing::info!("round {round}: {} to search", count(searches, "leaf", "leaves"));
        let mut asked = Asked::default();
        let known = plans.len() - searches;
        let answers = answerers.answer(&LeafPlan::queries(&plans), &mut asked, &mut |done, busy| {
            control.counted((known + done) as u64);
            control.engines_busy(busy);
        })?;
        self.report.searches.count(&asked);
        Ok(answers)
    }

    /// The leaf `put` searches once linked: a new position's always (as
    /// Edax's `position_search` decides it); a held one's only when it has
    /// no leaf move then and a move is left to search.
    fn plan(&self, put: &Put) -> Result<Option<LeafPlan>, GrowthError> {
        let id = put.id;
        let facts = self.store.facts(id)?;
        let level = Level::saturating(facts.level.into());
        if put.added {
            return Ok(Some(LeafPlan::of(&facts.board, self.linkable(&facts.board), level)));
        }
        if let Flavor::Egaroucid = self.store.flavor() {
            return Ok(None);
        }
        let mut linked: SmallVec<[Move; 16]> = self.store.links(id)?.iter().map(|&(_, mv)| mv).collect();
        let before = linked.len();
        linked.extend(self.linkable(&facts.board).filter(|mv| !linked[..before].contains(mv)).collect::<Vec<_>>());
        let leaf_gone = facts.leaf.and_then(|leaf| leaf.mv).is_none_or(|mv| linked[before..].contains(&mv));
        let moves = facts.board.legal_moves().count_ones() as usize;
        let search = linked.len() < moves || (linked.is_empty() && moves == 0 && self.store.value(id)? == -SCORE_INF);
        Ok((leaf_gone && search).then(|| LeafPlan::of(&facts.board, linked.iter().copied(), level)))
    }

    /// The moves of `board` (stored) whose child the book holds.
    fn linkable<'s>(&'s self, board: &Board) -> impl Iterator<Item = Move> + 's {
        let children = board.children();
        children.into_iter().filter(|(_, child)| self.store.find(&normalize(child).board).is_some()).map(|(mv, _)| mv)
    }

    /// Links `put` to its children in the book (scored by their values as
    /// they now are, its value raised to each new link's score), then sets
    /// its leaf, if searched, raising its value to the leaf's score.
    fn put(&mut self, put: &Put, leaf: Option<Option<Leaf>>) -> Result<(), GrowthError> {
        let id = put.id;
        match (self.store.flavor(), put.added) {
            (Flavor::Edax(_), true) => self.link_new(id)?,
            (Flavor::Edax(_), false) => self.report.adds.links_added += self.store.link_held(id)?,
            (Flavor::Egaroucid, true) => self.store.value_from_children(id)?,
            (Flavor::Egaroucid, false) => {}
        }
        if let Some(leaf) = leaf {
            self.store.touch(id)?;
            self.store.set_leaf(id, leaf);
            let node = self.store.node_mut(id).expect("touched");
            node.solved.value = node.solved.value.max(crate::negamax::leaf_score(leaf));
        }
        Ok(())
    }

    /// A new Edax position's links: each move whose child the book holds,
    /// scored −value of the child, the value the best of them.
    fn link_new(&mut self, id: NodeId) -> Result<(), GrowthError> {
        let board = self.store.board(id);
        let mut links = SmallVec::new();
        for (mv, child) in board.children() {
            if let Some(child) = self.store.find(&normalize(&child).board) {
                links.push((new_link_score(self.store.value(child)?), mv));
            }
        }
        self.report.adds.links_added += links.len() as u64;
        let node = self.store.node_mut(id).expect("added");
        for &(score, _) in &links {
            node.solved.value = node.solved.value.max(score);
        }
        node.links = links;
        Ok(())
    }
}
