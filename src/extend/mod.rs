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

use crate::board::Move;
use crate::book::{Book, RecordId};
use crate::engine::ask::Answerers;
use crate::engine::fleet::{EngineReport, EngineSet, Fleet, GaveUp, Room};
use crate::engine::journal::Journal;
use crate::engine::search::Answer;
use crate::engine::{scratch, EngineCommand, EngineError};
use crate::failure::ErrorKind;
use crate::files::ensure_dir;
use crate::files::input::{OverInput, Writer};
use crate::fix::FixError;
use crate::growing::candidates::Gates;
use crate::growing::leaf_plan::LeafPlan;
use crate::growing::solved::Solved;
use crate::growing::store::{Flavor, NodeId, Store};
use crate::growing::view::Stop;
use crate::run::{Control, Interrupted, Left, Phase, RunError};
use crate::walk::Start;
use crate::window::Window;
use crate::wording::count;
use session::{Held, Policy};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why `extend` failed.
#[derive(Debug, thiserror::Error)]
pub enum ExtendError {
    /// OUT or the journal would be written over the book being read.
    #[error(transparent)]
    OverInput(#[from] OverInput),
    /// A file could not be read or written, or the book changed under the run.
    #[error(transparent)]
    Run(#[from] RunError),
    #[error("{}: the book written cannot also be the journal; name another file or out_dir", path.display())]
    /// OUT is the journal (by any path).
    BookIsJournal {
        /// OUT.
        path: PathBuf,
    },
    /// The journal could not be taken, read or written.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// No folder whose path an engine's console reads, for the round books.
    #[error(transparent)]
    NoScratch(#[from] scratch::NoFolder),
    #[error("{}: the start position ({start}) is not in the book{}", book.display(), leaves.as_ref().map_or(String::new(), |l| format!(": {l}")))]
    /// The start position is not in the book.
    StartMissing {
        /// The book read.
        book: PathBuf,
        /// The start, as its line from the initial position.
        start: String,
        /// Where the start's line leaves the book (none if the book changed meanwhile).
        leaves: Option<Box<crate::walk::LeavesBook>>,
    },
    #[error("{}: {}: the move {mv} is not legal on its board", book.display(), origin_text(*origin))]
    /// A link or leaf move of a position is not legal on its board.
    IllegalMove {
        /// The book read.
        book: PathBuf,
        /// The position's record; `None` for a position the run added.
        origin: Option<RecordId>,
        /// The move.
        mv: Move,
    },
    /// A record to expand already holds the most links a record can (255,
    /// of repeated moves: a position has at most 33).
    #[error("{}: {}: holds 255 links already, which leaves no room for the link its leaf would become (`bookminer verify` lists its repeated moves)", book.display(), origin_text(*origin))]
    NoRoomForLink {
        /// The book read.
        book: PathBuf,
        /// The record to expand; `None` for a position the run added.
        origin: Option<RecordId>,
    },
    /// The engines could not answer (`crate::engine`).
    #[error(transparent)]
    Engine(EngineError),
    /// The book grown could not be negamaxed and written (`fix`'s error).
    #[error(transparent)]
    Fix(#[from] FixError),
    /// A game file that cannot be read on (`add`).
    #[error(transparent)]
    Games(#[from] crate::games::GamesError),
    /// The book grown does not read back: a fault of bookminer's, not of the book.
    #[error("the book grown does not read back ({0}); please report this")]
    Grown(String),
    #[error("{stop}; the journal {} keeps every answer so far, OUT was not written", journal.display())]
    /// A stop (Ctrl-C): OUT was not written.
    Interrupted {
        /// The stop asked for.
        stop: Interrupted,
        /// The journal, which keeps every answer so far.
        journal: PathBuf,
    },
}

/// Where a position of the store came from, for messages: its record in
/// the book read, or none for a position the run added.
fn origin_text(origin: Option<RecordId>) -> String {
    origin.map_or("a position added".to_string(), |id| id.to_string())
}

/// The engines' error as the run's: a stop or a file's failure as every
/// run says them, the rest as the engines say it.
impl From<EngineError> for ExtendError {
    fn from(error: EngineError) -> ExtendError {
        match error {
            EngineError::Journal(e) => ExtendError::Journal(e),
            EngineError::Run(e) => ExtendError::Run(e),
            EngineError::Interrupted { stop, journal } => ExtendError::Interrupted { stop, journal },
            e => ExtendError::Engine(e),
        }
    }
}

impl ExtendError {
    /// A stop (Ctrl-C): the journal keeps every answer so far.
    pub fn interrupted(journal: &Path) -> impl Fn(Interrupted) -> ExtendError + '_ {
        move |stop| ExtendError::Interrupted { stop, journal: journal.to_path_buf() }
    }

    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ExtendError::OverInput(_)
            | ExtendError::BookIsJournal { .. }
            | ExtendError::NoScratch(_)
            | ExtendError::StartMissing { .. }
            | ExtendError::IllegalMove { .. }
            | ExtendError::NoRoomForLink { .. } => ErrorKind::BadInput,
            ExtendError::Run(e) => e.kind(),
            ExtendError::Journal(e) => e.kind(),
            ExtendError::Engine(e) => e.kind(),
            ExtendError::Fix(e) => e.kind(),
            ExtendError::Games(e) => e.kind(),
            ExtendError::Grown(_) => ErrorKind::Internal,
            ExtendError::Interrupted { .. } => ErrorKind::Interrupted,
        }
    }

    /// The start `book` does not hold, and where its line leaves the book.
    pub(crate) fn start_missing(book: &Path, missing: crate::walk::StartMissing) -> ExtendError {
        let start = crate::walk::describe_line(&missing.line);
        ExtendError::StartMissing { book: book.to_path_buf(), start, leaves: missing.leaves }
    }

    /// The book changed while it was being read: nothing was written.
    pub fn book_changed(book: &Path) -> ExtendError {
        ExtendError::Run(RunError::BookChanged { book: book.to_path_buf(), left: Left::Nothing })
    }
}

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

/// Where `extend` reads and writes, checked before anything is read, and
/// the journal taken for the run.
#[derive(Clone, Debug)]
pub struct ExtendPaths {
    /// IN, the book read (empty for `new`, which reads none).
    pub input: PathBuf,
    /// OUT, the book written.
    pub output: PathBuf,
    /// The journal of every answer, in out_dir.
    pub journal: PathBuf,
    /// Where the run's folder of round books is made (scratch.rs).
    pub scratch: PathBuf,
    /// The journal of earlier runs set aside, and everything searched anew.
    pub fresh: bool,
    /// The journal, locked for the run from the moment its paths are
    /// checked: no engine is started and no folder a killed run left is
    /// removed before the run holds it, so a second run is refused at once
    /// and never touches the first's (issue 47 item 11).
    taken: Arc<crate::engine::journal::Taken>,
}

impl ExtendPaths {
    /// Refuses an OUT or a journal that is IN by any path, an OUT that is
    /// the journal, folders whose paths no engine's console reads, and a
    /// journal that is not a regular file or that another run holds (named);
    /// then takes the journal for this run (out_dir made if need be).
    pub fn new(input: &Path, output: &Path, out_dir: &Path) -> Result<ExtendPaths, ExtendError> {
        let journal = out_dir.join(JOURNAL);
        let over = OverInput::find(input, &[output, &journal], Writer::Extend).map_err(RunError::io(input))?;
        if let Some(over) = over {
            return Err(over.into());
        }
        if crate::files::input::same_destination(output, &journal) {
            return Err(ExtendError::BookIsJournal { path: output.to_path_buf() });
        }
        let scratch = scratch::folder_for(&journal)?;
        if let Some(dir) = journal.parent() {
            ensure_dir(dir).map_err(RunError::io(dir))?;
        }
        let taken = Arc::new(Journal::lock_for_run(&journal)?);
        Ok(ExtendPaths {
            input: input.to_path_buf(),
            output: output.to_path_buf(),
            journal,
            scratch,
            fresh: false,
            taken,
        })
    }

    /// The paths of `new`, which reads no book: OUT, and the journal and
    /// scratch folder of `out_dir`, refused as [`ExtendPaths::new`]
    /// refuses them.
    pub fn without_input(output: &Path, out_dir: &Path) -> Result<ExtendPaths, ExtendError> {
        let journal = out_dir.join(JOURNAL);
        if crate::files::input::same_destination(output, &journal) {
            return Err(ExtendError::BookIsJournal { path: output.to_path_buf() });
        }
        let scratch = scratch::folder_for(&journal)?;
        if let Some(dir) = journal.parent() {
            ensure_dir(dir).map_err(RunError::io(dir))?;
        }
        let taken = Arc::new(Journal::lock_for_run(&journal)?);
        Ok(ExtendPaths { input: PathBuf::new(), output: output.to_path_buf(), journal, scratch, fresh: false, taken })
    }

    /// The same paths, the journal of earlier runs set aside when `fresh`.
    pub fn fresh(self, fresh: bool) -> ExtendPaths {
        ExtendPaths { fresh, ..self }
    }
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

/// A summary's line for each engine command whose answers were taken from
/// the journal, saying those of another command than this run's.
pub fn write_taken(f: &mut fmt::Formatter<'_>, taken: &[TakenFrom]) -> fmt::Result {
    for t in taken {
        let other = if t.this_run { "" } else { " (not an engine of this run)" };
        writeln!(f, "  from the journal   {} given by `{}`{other}", t.answers, t.engine)?;
    }
    Ok(())
}

/// A summary's line for the journal of earlier runs set aside (`--fresh`).
pub fn write_set_aside(f: &mut fmt::Formatter<'_>, aside: Option<&Path>) -> fmt::Result {
    match aside {
        Some(aside) => writeln!(f, "journal set aside    {} (--fresh: every search made anew)", aside.display()),
        None => Ok(()),
    }
}

/// The command lines of a fleet's engines.
fn labels(engines: &[EngineReport]) -> Vec<&str> {
    engines.iter().map(|e| e.label.as_str()).collect()
}

/// How large the fleet was, as the summary's lines on each engine count
/// it: "2 workers on 1 engine".
pub fn fleet_size(engines: &[EngineReport]) -> String {
    let workers: usize = engines.iter().map(|e| e.workers).sum();
    format!("{} on {}", count(workers, "worker", "workers"), count(engines.len(), "engine", "engines"))
}

/// A summary's line for each engine of the fleet: its command, workers,
/// searches, faults, and whether it was retired.
fn write_engines(f: &mut fmt::Formatter<'_>, engines: &[EngineReport]) -> fmt::Result {
    for (i, engine) in engines.iter().enumerate() {
        let retired = if engine.retired { ", retired" } else { "" };
        writeln!(
            f,
            "engine {:<13} {}: {}, {}, {}{retired}",
            i + 1,
            engine.label,
            count(engine.workers, "worker", "workers"),
            count(engine.searches, "search", "searches"),
            count(engine.faults, "fault", "faults"),
        )?;
    }
    Ok(())
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
    let scratch = session::scratch_dir(paths)?;
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
/// [`extend_with`]): how `merge` searches its stale leaves. `done` hears
/// how many searches are answered so far.
pub fn answer_leaves(
    plans: &[LeafPlan],
    paths: &ExtendPaths,
    engines: impl FnOnce(&Path) -> Vec<EngineSet>,
    done: &mut dyn FnMut(usize, f64),
    cancel: &AtomicBool,
) -> Result<LeavesAnswered, ExtendError> {
    let mut journal = Journal::read_for_run(&paths.taken, paths.fresh)?;
    let scratch = session::scratch_dir(paths)?;
    let engines = &engines(scratch.path());
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
