//! `extend` (docs/extend.md): the book grows itself, as Edax's `book
//! extend` grows it, with engine processes doing the searches, several at
//! once, and a journal that loses no search.
//!
//! A round negamaxes the book below the start ([`crate::growing::store`]), walks its links
//! for candidates (positions whose leaf is as good as their value), expands
//! each (the leaf's child joins the book, the leaf becomes a link), and has
//! the engines ([`crate::engine`]) search the new positions' leaves and
//! the candidates' new ones, each answer written to the journal as it
//! comes. Rounds go on until no candidate is left to expand. The book is
//! then written ([`crate::growing::write`]) and negamaxed as `fix` does it, into OUT.

pub mod add;
pub mod deepen;
pub mod grow;
pub mod new_book;
pub mod priority;
mod session;

pub use crate::engine::ask::Asked;
pub use crate::engine::journal::{holder_of, starts_as_journal, JournalError, TakenFrom, JOURNAL};
pub use crate::growing::error::ExtendError;
pub use crate::growing::paths::ExtendPaths;

use crate::book::Book;
use crate::engine::ask::Answerers;
use crate::engine::fleet::{EngineReport, EngineSet, Fleet, GaveUp};
use crate::engine::journal::Journal;
use crate::engine::search::Answer;
use crate::engine::summary::{fleet_size, write_engines, write_set_aside, write_taken};
use crate::engine::{EngineCommand, EngineError};
use crate::growing::candidates::Gates;
use crate::growing::leaf_plan::LeafPlan;
use crate::growing::solved::Solved;
use crate::growing::store::{Flavor, NodeId, Store};
use crate::growing::view::Stop;
use crate::run::{Control, Phase};
use crate::walk::Start;
use crate::window::Window;
use crate::wording::count;
use session::{Held, Policy};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// What `extend` is asked to do.
#[derive(Clone, Debug)]
pub struct ExtendOptions {
    /// The fleet: one engine or more, each with its workers.
    pub engines: Vec<EngineCommand>,
    /// The longest wait for one answer.
    pub engine_timeout: Duration,
    /// Candidates have at least this many empty squares; `None`: an Edax
    /// book's header n_empties, 0 for an Egaroucid book.
    pub min_empties: Option<u32>,
    /// Stop once this many positions have been added.
    pub max_positions: Option<u64>,
    /// Where the candidate walk starts (the initial position by default).
    pub start: Start,
    /// The window the candidate walk's links pass (none: every link).
    pub window: Window,
}

/// What a run did, for the summary.
#[derive(Clone, Debug, Default)]
pub struct ExtendReport {
    /// IN, the book read.
    pub input: PathBuf,
    /// OUT, the book written.
    pub output: PathBuf,
    /// The journal the searches were taken from and written to.
    pub journal: PathBuf,
    /// Positions in the book read.
    pub positions_loaded: u64,
    /// Rounds that searched at least one leaf.
    pub rounds: u32,
    /// Candidates found, over all rounds (a position is counted in each
    /// round that finds it), and how many had a leaf to expand.
    pub candidates: u64,
    /// Candidates expanded: those whose leaf move became a link.
    pub expanded: u64,
    /// Positions added to the book (new to it).
    pub added: u64,
    /// Searches the engines did, and answers taken from the journal.
    pub searched: u64,
    /// Answers taken from the journal instead of searched.
    pub from_journal: u64,
    /// The answers taken from the journal, by the engine that gave them.
    pub taken_from: Vec<TakenFrom>,
    /// Where the journal of earlier runs was set aside (`--fresh`).
    pub journal_set_aside: Option<PathBuf>,
    /// Time the engines spent answering, summed over engines.
    pub engine_time: Duration,
    /// Each engine: its searches, faults, and whether it was retired.
    pub engines: Vec<EngineReport>,
    /// Stopped because `max_positions` were added.
    pub stopped_early: bool,
    /// Records in the book written.
    pub records_written: u64,
    /// Time the whole run took.
    pub elapsed: Duration,
}

impl fmt::Display for ExtendReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions loaded     {}", self.positions_loaded)?;
        writeln!(f, "rounds               {}", self.rounds)?;
        writeln!(f, "candidates           {} ({} expanded)", self.candidates, self.expanded)?;
        writeln!(f, "positions added      {}", self.added)?;
        self.searches().write(f)?;
        if self.stopped_early {
            writeln!(f, "stopped early        max_positions reached: candidates may be left")?;
        }
        writeln!(f, "book written         {} ({} records)", self.output.display(), self.records_written)?;
        write!(f, "elapsed              {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// What a growth command's summary says of its searches and the engines
/// that made them: the lines extend, grow, deepen, add and new share.
pub struct Searches<'a> {
    /// Searches the engines did.
    pub searched: u64,
    /// Answers taken from the journal.
    pub from_journal: u64,
    /// The journal.
    pub journal: &'a Path,
    /// The answers taken from the journal, by the engine that gave them.
    pub taken_from: &'a [TakenFrom],
    /// Where the journal of earlier runs was set aside (`--fresh`).
    pub journal_set_aside: Option<&'a Path>,
    /// Time the engines spent answering, summed over engines.
    pub engine_time: Duration,
    /// Each engine: its searches, faults, and whether it was retired.
    pub engines: &'a [EngineReport],
}

impl Searches<'_> {
    /// The searches made and taken from the journal (by whom), and the
    /// journal set aside.
    pub fn write_counts(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "searches             {} by the engines, {} taken from {}",
            self.searched,
            self.from_journal,
            self.journal.display()
        )?;
        write_taken(f, self.taken_from)?;
        write_set_aside(f, self.journal_set_aside)
    }

    /// [`Searches::write_counts`], then the engines' time and each engine.
    pub fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_counts(f)?;
        writeln!(f, "engine time          {:.3} s ({})", self.engine_time.as_secs_f64(), fleet_size(self.engines))?;
        write_engines(f, self.engines)
    }
}

impl ExtendReport {
    /// What the summary says of the searches.
    pub fn searches(&self) -> Searches<'_> {
        Searches {
            searched: self.searched,
            from_journal: self.from_journal,
            journal: &self.journal,
            taken_from: &self.taken_from,
            journal_set_aside: self.journal_set_aside.as_deref(),
            engine_time: self.engine_time,
            engines: &self.engines,
        }
    }
}

/// Extends `book` (read from `paths.input`) into `paths.output` with the
/// engine processes `options` names. OUT appears only when whole; the
/// journal keeps every answer whatever happens. `control` stops the run
/// and hears each round ([`Phase::Round`]) and its searches counted, then
/// the final negamax's stages, as `fix` tells them.
pub fn extend(
    book: Book,
    paths: &ExtendPaths,
    options: &ExtendOptions,
    control: Control<'_>,
) -> Result<ExtendReport, ExtendError> {
    extend_with(book, paths, options, |scratch| process_engines(options, scratch), control)
}

/// Greets the engines `options` names ([`crate::engine::greet`]), in the
/// run's scratch folder, before the run reads its book.
pub fn greet(
    paths: &ExtendPaths,
    options: &ExtendOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(), ExtendError> {
    let scratch = crate::growing::paths::scratch_dir(paths)?;
    crate::engine::greet(&options.engines, options.engine_timeout, scratch.path(), stop)?;
    Ok(())
}

/// The fleet of engine processes `options` names, each with its files in
/// `scratch`.
pub fn process_engines(options: &ExtendOptions, scratch: &Path) -> Vec<EngineSet> {
    crate::engine::processes(&options.engines, options.engine_timeout, scratch)
}

/// Extends `book` as [`extend`] does, with the searches answered by the
/// fleet `engines` makes (whatever it is: processes, or logic in this
/// process) instead of the engines `options` names. It is given a folder of
/// the run's own, removed at its end, for the files its engines need.
pub fn extend_with(
    book: Book,
    paths: &ExtendPaths,
    options: &ExtendOptions,
    engines: impl FnOnce(&Path) -> Vec<EngineSet>,
    control: Control<'_>,
) -> Result<ExtendReport, ExtendError> {
    let report = ExtendReport::new(paths, 0);
    let mut rounds = Rounds { options, report };
    let ran = session::grow_book(book, paths, options, engines, &mut rounds, control)?;
    ran.fill(&mut rounds.report);
    Ok(rounds.report)
}

/// Extend's policy: rounds of every candidate, until none is left.
struct Rounds<'o> {
    options: &'o ExtendOptions,
    report: ExtendReport,
}

impl Policy for Rounds<'_> {
    fn grow(&mut self, held: Held<'_, '_>, fleet: &Fleet<'_>, control: &mut Control<'_>) -> Result<(), ExtendError> {
        let Held { store, solved, journal, engines, cancel, root, min_empties, candidates, .. } = held;
        let mut run = Run { store, solved, journal, report: &mut self.report, engines, cancel };
        let gates = Gates { window: self.options.window, min_empties };
        run.rounds(root, candidates, fleet, self.options.max_positions, gates, control)
    }
}

impl ExtendReport {
    /// The report of a run just begun: its paths and the positions read.
    fn new(paths: &ExtendPaths, positions_loaded: u64) -> ExtendReport {
        ExtendReport {
            input: paths.input.clone(),
            output: paths.output.clone(),
            journal: paths.journal.clone(),
            positions_loaded,
            ..ExtendReport::default()
        }
    }
}

/// The rounds, and what they need at hand.
struct Run<'r, 's, 'b> {
    store: &'s mut Store<'b>,
    solved: &'r mut Solved,
    journal: &'r mut Journal,
    report: &'r mut ExtendReport,
    engines: &'r [EngineSet],
    cancel: &'r AtomicBool,
}

impl Run<'_, '_, '_> {
    fn rounds(
        &mut self,
        root: NodeId,
        first_candidates: Vec<NodeId>,
        fleet: &Fleet,
        max_positions: Option<u64>,
        gates: Gates,
        control: &mut Control<'_>,
    ) -> Result<(), ExtendError> {
        // Without a window the negamax's walk is the first candidate walk.
        let mut first_walk = (gates.window == Window::NONE).then_some(first_candidates);
        loop {
            let began = Instant::now();
            let candidates = match first_walk.take() {
                Some(found) => found,
                None => {
                    let stop = Stop { cancel: self.cancel, journal: self.journal.path() };
                    crate::growing::candidates::candidates(self.store, self.solved, root, gates, stop)?
                }
            };
            tracing::info!("candidates found in {:.3} s", began.elapsed().as_secs_f64());
            let round = self.report.rounds + 1;
            self.report.candidates += candidates.len() as u64;
            let left = max_positions.map(|n| n.saturating_sub(self.report.added));
            let to_search = self.expand(&candidates, left)?;
            if to_search.is_empty() {
                return Ok(());
            }
            self.report.rounds = round;
            let plans = to_search.iter().map(|&id| self.store.leaf_plan(id)).collect::<Result<Vec<_>, _>>()?;
            control.phase(Phase::Round { round, candidates: candidates.len(), searches: plans.len() });
            tracing::info!(
                "round {round}: {}, {} added so far, {} to search",
                count(candidates.len(), "candidate", "candidates"),
                count(self.report.added, "position", "positions"),
                count(to_search.len(), "leaf", "leaves"),
            );
            let answers = self.search(&plans, fleet, control)?;
            for ((&id, plan), answer) in to_search.iter().zip(&plans).zip(answers) {
                let (score, mv) = plan.leaf(answer);
                self.store.set_leaf(id, score, mv);
            }
            let stop = Stop { cancel: self.cancel, journal: self.journal.path() };
            self.solved.after_change(self.store, &to_search, stop)?;
            if self.report.stopped_early {
                return Ok(());
            }
        }
    }

    /// Expands the candidates in order; returns the positions whose leaves
    /// are to be searched: each new position, then its parent, in turn.
    fn expand(&mut self, candidates: &[NodeId], mut left: Option<u64>) -> Result<Vec<NodeId>, ExtendError> {
        let mut to_search = Vec::new();
        let added_before = self.store.added().len();
        for &id in candidates {
            if left == Some(0) {
                self.report.stopped_early = true;
                break;
            }
            if self.store.leaf(id)?.mv.is_none() {
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
                    }
                    to_search.push(id);
                }
            }
        }
        // Linked once every position of the round is in: a new position's
        // links may lead to another.
        if let Flavor::Edax(_) = self.store.flavor() {
            for k in added_before..self.store.added().len() {
                let id = NodeId::Added(k as u32);
                let solved = &*self.solved;
                self.store.link_new(id, |store, child| solved.value(store, child));
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
    ) -> Result<Vec<Option<Answer>>, ExtendError> {
        let mut asked = Asked::default();
        let mut answerers = Answerers { journal: self.journal, fleet, engines: self.engines, cancel: self.cancel };
        let known = plans.iter().filter(|p| p.query().is_none()).count();
        // Searches of this round done, by an engine or from the journal.
        let answers = answerers.answer(&LeafPlan::queries(plans), &mut asked, &mut |done, busy| {
            control.counted((known + done) as u64);
            control.engines_busy(busy);
        });
        self.report.searched += asked.searched;
        self.report.from_journal += asked.from_journal;
        self.report.engine_time += asked.engine_time;
        Ok(answers?)
    }
}

/// The run's error for a fleet that gave up: a stop asked for, or engines
/// that kept failing; the journal keeps every answer either way.
fn gave_up_error(gave_up: GaveUp, cancel: &AtomicBool, journal: &Path) -> ExtendError {
    EngineError::gave_up(gave_up, cancel, journal).into()
}
