//! `extend` (docs/extend.md): the book grows itself, as Edax's `book
//! extend` grows it, with engine processes doing the searches, several at
//! once, and a journal that loses no search.
//!
//! A round negamaxes the book below the start ([`store`]), walks its links
//! for candidates (positions whose leaf is as good as their value), expands
//! each (the leaf's child joins the book, the leaf becomes a link), and has
//! the engines ([`pool`], [`engine`]) search the new positions' leaves and
//! the candidates' new ones, each answer written to the [`journal`] as it
//! comes. Rounds go on until no candidate is left to expand. The book is
//! then written ([`write`]) and negamaxed as `fix` does it, into OUT.

mod ask;
mod candidates;
pub mod engine;
mod exclusions;
mod first;
pub mod fleet;
pub mod grow;
mod journal;
mod position;
pub mod priority;
mod scratch;
pub mod search;
mod solved;
mod store;
mod view;
mod write;

pub use ask::Asked;
pub use journal::{holder_of, starts_as_journal, JournalError, TakenFrom, JOURNAL};

use crate::board::Move;
use crate::book::{Book, Header, LinkTargets, Parents, ReadOptions, RecordId};
use crate::failure::ErrorKind;
use crate::fix::{fix_into, FixError, FixOptions};
use crate::input::{OverInput, Writer};
use crate::output::{ensure_dir, AtomicFile};
use crate::run::{Control, Interrupted, Left, Phase, RunError};
use crate::symmetry::normalize;
use crate::walk::Start;
use crate::window::Window;
use crate::wording::count;
use ask::Answerers;
use candidates::Gates;
use engine::{EngineSpec, ProcessLauncher};
use first::{FirstNegamax, Prepared};
use fleet::{EngineReport, EngineSet, Fleet, GaveUp, Room};
use journal::Journal;
use search::LeafPlan;
use search::{Answer, Fault, Query};
use solved::Solved;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use store::{Flavor, NodeId, Store};
use view::Stop;

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
    BookIsJournal { path: PathBuf },
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// No folder whose path an engine's console reads, for the round books.
    #[error(transparent)]
    NoScratch(#[from] scratch::NoFolder),
    #[error("{}: the start position ({start}) is not in the book{}", book.display(), leaves.as_ref().map_or(String::new(), |l| format!(": {l}")))]
    StartMissing { book: PathBuf, start: String, leaves: Option<Box<crate::walk::LeavesBook>> },
    #[error("{}: {}: the move {mv} is not legal on its board", book.display(), origin_text(*origin))]
    IllegalMove { book: PathBuf, origin: Option<RecordId>, mv: Move },
    /// A record to expand already holds the most links a record can (255,
    /// of repeated moves: a position has at most 33).
    #[error("{}: {}: holds 255 links already, which leaves no room for the link its leaf would become (`bookminer verify` lists its repeated moves)", book.display(), origin_text(*origin))]
    NoRoomForLink { book: PathBuf, origin: Option<RecordId> },
    /// No engine of the fleet could be started and greeted, before the book
    /// was read: each engine's command and its words.
    #[error("no engine could be started{}", started_text(failed))]
    NoEngineStarts { failed: Vec<(String, Fault)> },
    /// Every engine was retired: each failed too many times in a row.
    #[error("no engine left: engine `{engine}`, the last, failed {} times in a row, the last time on {query}: {fault}; the journal {} keeps every answer so far", fleet::RETIRE_AFTER, journal.display())]
    NoEngineLeft { engine: String, query: Query, fault: Fault, journal: PathBuf },
    /// One position failed on several engines: the position, not the engines, is at fault.
    #[error("{query}: failed on {} engines ({}), last: {fault}; the journal {} keeps every answer so far", engines.len(), engines.join(", "), journal.display())]
    Position { query: Query, engines: Vec<String>, fault: Fault, journal: PathBuf },
    #[error(transparent)]
    Fix(#[from] FixError),
    /// The book grown does not read back: a fault of bookminer's, not of the book.
    #[error("the book grown does not read back ({0}); please report this")]
    Grown(String),
    #[error("{stop}; the journal {} keeps every answer so far, OUT was not written", journal.display())]
    Interrupted { stop: Interrupted, journal: PathBuf },
}

/// Where a position of the store came from, for messages: its record in
/// the book read, or none for a position the run added.
fn origin_text(origin: Option<RecordId>) -> String {
    origin.map_or("a position added".to_string(), |id| id.to_string())
}

/// Each engine that could not be started, and why.
fn started_text(failed: &[(String, Fault)]) -> String {
    failed.iter().map(|(command, fault)| format!("; engine `{command}`: {fault}")).collect()
}

impl ExtendError {
    /// A stop (Ctrl-C): the journal keeps every answer so far.
    pub fn interrupted(journal: &Path) -> impl Fn(Interrupted) -> ExtendError + '_ {
        move |stop| ExtendError::Interrupted { stop, journal: journal.to_path_buf() }
    }

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
            ExtendError::NoEngineStarts { .. } | ExtendError::NoEngineLeft { .. } | ExtendError::Position { .. } => {
                ErrorKind::Engine
            }
            ExtendError::Fix(e) => e.kind(),
            ExtendError::Grown(_) => ErrorKind::Internal,
            ExtendError::Interrupted { .. } => ErrorKind::Interrupted,
        }
    }

    /// The book changed while it was being read: nothing was written.
    /// The start `book` does not hold, and where its line leaves the book.
    pub(crate) fn start_missing(book: &Path, missing: crate::walk::StartMissing) -> ExtendError {
        let start = crate::walk::describe_line(&missing.line);
        ExtendError::StartMissing { book: book.to_path_buf(), start, leaves: missing.leaves }
    }

    pub fn book_changed(book: &Path) -> ExtendError {
        ExtendError::Run(RunError::BookChanged { book: book.to_path_buf(), left: Left::Nothing })
    }
}

/// An engine of the fleet as the user names it: a command line, run
/// `workers` times at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCommand {
    pub command: String,
    pub workers: usize,
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
    pub start: Start,
    pub window: Window,
}

/// Where `extend` reads and writes, checked before anything is read, and
/// the journal taken for the run.
#[derive(Clone, Debug)]
pub struct ExtendPaths {
    pub input: PathBuf,
    pub output: PathBuf,
    pub journal: PathBuf,
    /// Where the run's folder of round books is made (scratch.rs).
    pub scratch: PathBuf,
    /// The journal of earlier runs set aside, and everything searched anew.
    pub fresh: bool,
    /// The journal, locked for the run from the moment its paths are
    /// checked: no engine is started and no folder a killed run left is
    /// removed before the run holds it, so a second run is refused at once
    /// and never touches the first's (issue 47 item 11).
    taken: Arc<journal::Taken>,
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
        if crate::input::same_destination(output, &journal) {
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

    /// The same paths, the journal of earlier runs set aside when `fresh`.
    pub fn fresh(self, fresh: bool) -> ExtendPaths {
        ExtendPaths { fresh, ..self }
    }
}

/// What a run did, for the summary.
#[derive(Clone, Debug, Default)]
pub struct ExtendReport {
    pub input: PathBuf,
    pub output: PathBuf,
    pub journal: PathBuf,
    pub positions_loaded: u64,
    pub rounds: u32,
    /// Candidates found, over all rounds (a position is counted in each
    /// round that finds it), and how many had a leaf to expand.
    pub candidates: u64,
    pub expanded: u64,
    pub added: u64,
    /// Searches the engines did, and answers taken from the journal.
    pub searched: u64,
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
    pub records_written: u64,
    pub elapsed: Duration,
}

impl fmt::Display for ExtendReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions loaded     {}", self.positions_loaded)?;
        writeln!(f, "rounds               {}", self.rounds)?;
        writeln!(f, "candidates           {} ({} expanded)", self.candidates, self.expanded)?;
        writeln!(f, "positions added      {}", self.added)?;
        writeln!(
            f,
            "searches             {} by the engines, {} taken from {}",
            self.searched,
            self.from_journal,
            self.journal.display()
        )?;
        write_taken(f, &self.taken_from)?;
        write_set_aside(f, self.journal_set_aside.as_deref())?;
        writeln!(f, "engine time          {:.3} s ({})", self.engine_time.as_secs_f64(), fleet_size(&self.engines))?;
        write_engines(f, &self.engines)?;
        if self.stopped_early {
            writeln!(f, "stopped early        max_positions reached: candidates may be left")?;
        }
        writeln!(f, "book written         {} ({} records)", self.output.display(), self.records_written)?;
        write!(f, "elapsed              {:.3} s", self.elapsed.as_secs_f64())
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

/// Starts one process of each engine `options` names, greets its console
/// and lets it go, all at once, before a run reads its book: an engine that
/// cannot start (not found, no evaluation file) is known at once, in its
/// own words. When none starts the run stops here (status 3, as any
/// engine's failure); an engine that alone fails is said in the log and
/// left to the fleet, which retires it if it keeps failing.
pub fn greet(
    paths: &ExtendPaths,
    options: &ExtendOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(), ExtendError> {
    let scratch = scratch_dir(paths)?;
    let faults: Vec<Option<Fault>> = std::thread::scope(|scope| {
        let greetings: Vec<_> = options
            .engines
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let spec = EngineSpec { command: e.command.clone(), timeout: options.engine_timeout };
                let exclusions = scratch.path().join(format!("engine-{}-0.dat", i + 1));
                scope.spawn(move || engine::greet(&spec, exclusions, i + 1, stop).err())
            })
            .collect();
        greetings.into_iter().map(|g| g.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    drop(scratch);
    if stop() || faults.iter().any(|f| matches!(f, Some(Fault::Stopped))) {
        // No search was made yet: the journal holds nothing of this run.
        return Err(RunError::Interrupted { stop: Interrupted, left: Left::Nothing }.into());
    }
    let failed: Vec<(String, Fault)> = options
        .engines
        .iter()
        .zip(faults)
        .filter_map(|(e, fault)| fault.map(|fault| (e.command.clone(), fault)))
        .collect();
    if failed.len() == options.engines.len() {
        return Err(ExtendError::NoEngineStarts { failed });
    }
    for (command, fault) in &failed {
        tracing::warn!("engine `{command}` could not be started: {fault}; the others go on");
    }
    Ok(())
}

/// The fleet of engine processes `options` names, each with its exclusions
/// files in `scratch`.
pub fn process_engines(options: &ExtendOptions, scratch: &Path) -> Vec<EngineSet> {
    let engine = |(i, e): (usize, &EngineCommand)| EngineSet {
        label: e.command.clone(),
        workers: e.workers,
        launcher: Box::new(ProcessLauncher {
            spec: EngineSpec { command: e.command.clone(), timeout: options.engine_timeout },
            number: i + 1,
            scratch: scratch.to_path_buf(),
        }),
    };
    options.engines.iter().enumerate().map(engine).collect()
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
    mut control: Control<'_>,
) -> Result<ExtendReport, ExtendError> {
    let began = Instant::now();
    let cancel = control.cancel;
    let io = RunError::io;
    // Refused before anything is written.
    let (flavor, min_empties) = gates_of(&book, options)?;
    let Opened { out, mut journal, scratch } = Opened::open(paths)?;
    let Prepared { book, links, first } = first::prepare(book, &options.start, min_empties, &paths.journal, cancel)?;
    let Growing { mut store, root, mut solved, candidates } =
        growing(&book, flavor, links, first, options, min_empties, Stop { cancel, journal: &paths.journal })?;
    let mut report = ExtendReport::new(paths, book.counts().positions);
    let engines = &engines(scratch.path());
    let room = Room::new(engines);
    let mut run =
        Run { store: &mut store, solved: &mut solved, journal: &mut journal, report: &mut report, engines, cancel };
    let gates = Gates { window: options.window, min_empties };
    let grown = std::thread::scope(|scope| {
        let fleet = Fleet::start(scope, &room, engines, cancel).map_err(io(&paths.output))?;
        run.rounds(root, candidates, &fleet, options.max_positions, gates, &mut control)
    });
    report.engines = room.reports();
    report.taken_from = journal.taken_from(&labels(&report.engines));
    report.journal_set_aside = journal.set_aside_as().map(Path::to_path_buf);
    grown?;
    report.records_written = match write_grown((store, solved, root), &book, out, scratch.path(), paths, cancel)? {
        Written::Out(records) => records,
        Written::SetAside(unfixed, out) => unfixed.write(book, *out, paths, control)?,
    };
    report.elapsed = began.elapsed();
    Ok(report)
}

/// What a batch of leaf searches came to: the answers, in the plans'
/// order (`None` where a plan asks no search), what they cost, and what
/// each engine did.
pub struct LeavesAnswered {
    pub answers: Vec<Option<Answer>>,
    pub asked: Asked,
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
    let scratch = scratch_dir(paths)?;
    let engines = &engines(scratch.path());
    let room = Room::new(engines);
    let mut asked = Asked::default();
    let answers = std::thread::scope(|scope| {
        let fleet = Fleet::start(scope, &room, engines, cancel).map_err(RunError::io(&paths.journal))?;
        Answerers { journal: &mut journal, fleet: &fleet, engines, cancel }.answer(plans, &mut asked, done)
    })?;
    let engines = room.reports();
    let taken_from = journal.taken_from(&labels(&engines));
    let journal_set_aside = journal.set_aside_as().map(Path::to_path_buf);
    Ok(LeavesAnswered { answers, asked, engines, taken_from, journal_set_aside })
}

/// How `book` grows, and the fewest empty squares growth enters
/// (`min_empties`, else the book's default); a start the book does not
/// hold is refused.
fn gates_of(book: &Book, options: &ExtendOptions) -> Result<(Flavor, u32), ExtendError> {
    let (flavor, header_empties) = flavor_of(&book.header());
    start_node(book, &options.start)?;
    Ok((flavor, options.min_empties.unwrap_or(header_empties)))
}

/// A run's growing book, negamaxed below its start.
struct Growing<'b> {
    store: Store<'b>,
    root: NodeId,
    solved: Solved,
    /// The first round's candidates, in the candidate walk's order.
    candidates: Vec<NodeId>,
}

/// The growing book over `book` as [`first::prepare`] made it ready:
/// negamaxed below the start by the walk, or, where that was not made (an
/// Edax book with too many links to turn round), here.
fn growing<'b>(
    book: &'b Book,
    flavor: Flavor,
    links: Option<(LinkTargets, Parents)>,
    first: Option<FirstNegamax>,
    options: &ExtendOptions,
    min_empties: u32,
    stop: Stop<'_>,
) -> Result<Growing<'b>, ExtendError> {
    let mut store = Store::with_links(book, flavor, links);
    let root = start_node(book, &options.start)?;
    if let Some(mut first) = first {
        let candidates = std::mem::take(&mut first.candidates);
        return Ok(Growing { store, root, solved: Solved::from_first(first), candidates });
    }
    let began = Instant::now();
    let mut solved = Solved::new(book.counts().records as usize);
    solved.note_candidates(min_empties);
    solved.solve_from(&mut store, root, stop)?;
    let candidates = solved.take_candidates();
    let seconds = began.elapsed().as_secs_f64();
    tracing::info!("{}: negamaxed below the start in {seconds:.3} s", book.path().display());
    Ok(Growing { store, root, solved, candidates })
}

/// How a book's positions are grown, as its header says: an Edax book's
/// searches and the fewest empty squares it expands (its `n_empties`), or
/// Egaroucid's, which expands any.
fn flavor_of(header: &Header) -> (Flavor, u32) {
    match header.edax() {
        Some(h) => (Flavor::Edax(h.search_errors()), h.n_empties.clamp(0, 60) as u32),
        None => (Flavor::Egaroucid, 0),
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

/// The run's folder of round books, the journal locked: what runs killed
/// before it left there is removed first (scratch.rs).
fn scratch_dir(paths: &ExtendPaths) -> Result<tempfile::TempDir, ExtendError> {
    let made = scratch::make(&paths.scratch, &paths.journal);
    made.map_err(|source| RunError::Io { path: paths.scratch.clone(), source }.into())
}

/// The start position's node.
fn start_node(book: &Book, start: &Start) -> Result<NodeId, ExtendError> {
    let root = start.locate_in(book).map_err(|missing| ExtendError::start_missing(book.path(), missing))?;
    Ok(NodeId::Book(root))
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
                    candidates::candidates(self.store, self.solved, root, gates, stop)?
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
        let answers = answerers.answer(plans, &mut asked, &mut |done, busy| {
            control.counted((known + done) as u64);
            control.engines_busy(busy);
        });
        self.report.searched += asked.searched;
        self.report.from_journal += asked.from_journal;
        self.report.engine_time += asked.engine_time;
        answers
    }
}

/// The run's error for a fleet that gave up: a stop asked for, or engines
/// that kept failing; the journal keeps every answer either way.
fn gave_up_error(gave_up: GaveUp, cancel: &AtomicBool, journal: &Path) -> ExtendError {
    let journal = journal.to_path_buf();
    match gave_up {
        _ if cancel.load(Ordering::Relaxed) => ExtendError::Interrupted { stop: Interrupted, journal },
        GaveUp::NoEngineLeft { query, engine, fault } => ExtendError::NoEngineLeft { engine, query, fault, journal },
        GaveUp::Position { query, engines, fault } => ExtendError::Position { query, engines, fault, journal },
    }
}

/// What a growth run holds open: OUT begun beside its final name, the
/// journal (locked), and the run's scratch folder.
struct Opened {
    out: AtomicFile,
    journal: Journal,
    scratch: tempfile::TempDir,
}

impl Opened {
    /// Makes the folders, begins OUT, opens the journal and makes the
    /// scratch folder: what extend and grow do once the start is known.
    fn open(paths: &ExtendPaths) -> Result<Opened, ExtendError> {
        let io = RunError::io;
        for path in [&paths.output, &paths.journal] {
            if let Some(dir) = path.parent() {
                ensure_dir(dir).map_err(io(dir))?;
            }
        }
        let out = AtomicFile::create_named(&paths.output).map_err(io(&paths.output))?;
        let journal = Journal::read_for_run(&paths.taken, paths.fresh)?;
        if !journal.is_empty() {
            tracing::info!(
                "{}: {} answers of earlier runs, taken instead of searching again",
                paths.journal.display(),
                journal.len()
            );
        }
        let scratch = scratch_dir(paths)?;
        Ok(Opened { out, journal, scratch })
    }
}

/// The book growth made, before its final negamax, in a file of the run's
/// scratch folder (removed when dropped, and with the folder by the next
/// run on the journal if this one is killed).
struct SetAside {
    file: tempfile::NamedTempFile,
    /// The book read's name, for messages.
    name: String,
}

/// What [`write_grown`] did.
enum Written {
    /// OUT written, with this many records.
    Out(u64),
    /// The book grown set aside, for `fix` to write into OUT
    /// ([`SetAside::write`]) once the book read is let go (boxed: a
    /// begun file is large beside a count).
    SetAside(SetAside, Box<AtomicFile>),
}

/// Writes OUT, the book grown, negamaxed as `fix` does, and makes it
/// appear unless the run was stopped. Written straight from what the run
/// computed when the run negamaxed what `fix` would (an Edax book grown
/// from the initial position); else set aside in `folder`.
fn write_grown(
    (store, solved, root): (Store<'_>, Solved, NodeId),
    book: &Book,
    mut out: AtomicFile,
    folder: &Path,
    paths: &ExtendPaths,
    cancel: &AtomicBool,
) -> Result<Written, ExtendError> {
    let initial = store.find(&normalize(&Start::initial().board).board);
    if !matches!(store.flavor(), Flavor::Edax(_)) || initial != Some(root) {
        drop(solved);
        return Ok(Written::SetAside(set_aside(store, book, folder, paths)?, Box::new(out)));
    }
    let interrupted = ExtendError::interrupted(&paths.journal);
    let path = &paths.output;
    let began = Instant::now();
    let records = write::write_fixed(&store, &solved, &mut out, cancel).map_err(|failure| match failure {
        write::WriteFailure::Io(source) => RunError::Io { path: path.clone(), source }.into(),
        write::WriteFailure::Interrupted(stop) => interrupted(stop),
        write::WriteFailure::Run(error) => error,
    })?;
    if book.file().changed() {
        return Err(ExtendError::book_changed(&paths.input));
    }
    let out = out.finish().map_err(RunError::io(path))?;
    Interrupted::check(cancel).map_err(&interrupted)?;
    out.commit().map_err(RunError::io(path))?;
    tracing::info!("{}: written negamaxed in {:.3} s", path.display(), began.elapsed().as_secs_f64());
    Ok(Written::Out(records))
}

/// Streams the book `store` grew into `folder` and lets the store go;
/// refused if the book read changed meanwhile.
fn set_aside(store: Store<'_>, book: &Book, folder: &Path, paths: &ExtendPaths) -> Result<SetAside, ExtendError> {
    if book.file().changed() {
        return Err(ExtendError::book_changed(&paths.input));
    }
    let io = RunError::io;
    let mut file = tempfile::Builder::new().prefix("grown-").tempfile_in(folder).map_err(io(folder))?;
    let path = file.path().to_path_buf();
    let mut buffered = io::BufWriter::with_capacity(1 << 20, file.as_file_mut());
    write::write_unfixed(&store, &mut buffered).and_then(|_| buffered.flush()).map_err(io(&path))?;
    drop(buffered);
    drop(store);
    if book.file().changed() {
        return Err(ExtendError::book_changed(&paths.input));
    }
    Ok(SetAside { file, name: book.path().display().to_string() })
}

impl SetAside {
    /// Writes OUT: the book set aside negamaxed as `fix` does (no receipt:
    /// every change is the run's own), under the run's `control`, then made
    /// to appear under its name unless the run was stopped. Returns the
    /// records written. The book read is let go first: the run never holds
    /// both.
    fn write(
        self,
        book: Book,
        mut out: AtomicFile,
        paths: &ExtendPaths,
        control: Control<'_>,
    ) -> Result<u64, ExtendError> {
        drop(book);
        let cancel = control.cancel;
        let path = &paths.output;
        let shown_as = format!("{} (grown, before its negamax)", paths.output.display());
        let grown = Book::open_as(self.file.path(), &shown_as, &ReadOptions::default())
            .map_err(|e| ExtendError::Grown(format!("{} grown: {e}", self.name)))?;
        let records = grown.counts().records;
        let sink = Path::new("(no receipt)");
        // A stop while the book is written is the run's stop: the journal
        // keeps every answer, as at any other moment.
        let interrupted = ExtendError::interrupted(&paths.journal);
        let run_error = |error| match error {
            FixError::Run(RunError::Interrupted { stop, .. }) => interrupted(stop),
            error => error.into(),
        };
        let done = fix_into(grown, &FixOptions::default(), (&mut out, path), (&mut io::sink(), sink), control);
        done.and_then(|done| done.checked()).map_err(run_error)?;
        drop(self.file);
        let out = out.finish().map_err(RunError::io(path))?;
        Interrupted::check(cancel).map_err(&interrupted)?;
        out.commit().map_err(RunError::io(path))?;
        Ok(records)
    }
}

#[cfg(test)]
mod tests;
