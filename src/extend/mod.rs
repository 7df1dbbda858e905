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

pub mod engine;
mod exclusions;
mod journal;
mod pool;
mod scratch;
pub mod search;
mod store;
mod write;

pub use journal::{JournalError, JOURNAL};

use crate::board::Move;
use crate::book::{Book, Header, ReadOptions, RecordId};
use crate::failure::ErrorKind;
use crate::fix::{fix_into, FixError, FixOptions};
use crate::negamax::SearchErrors;
use crate::output::{ensure_dir, AtomicFile};
use crate::run::{Control, Left, Phase, RunError};
use crate::symmetry::normalize;
use crate::walk::{Start, WalkStats};
use crate::window::Window;
use crate::wording::count;
use engine::EngineSpec;
use journal::Journal;
use pool::{Pool, Task};
use search::{Answer, Query};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use store::{Flavor, LeafPlan, NodeId, Store};

/// Why `extend` failed.
#[derive(Debug, thiserror::Error)]
pub enum ExtendError {
    #[error("{}: is the book being read ({}); extend never writes over its input", output.display(), input.display())]
    SameFile { input: PathBuf, output: PathBuf },
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
    #[error("{}: the start position ({start}) is not in the book", book.display())]
    StartMissing { book: PathBuf, start: String },
    #[error("{}: {}: the move {mv} is not legal on its board", book.display(), origin_text(*origin))]
    IllegalMove { book: PathBuf, origin: Option<RecordId>, mv: Move },
    /// A record to expand already holds the most links a record can (255,
    /// of repeated moves: a position has at most 33).
    #[error("{}: {}: holds 255 links already, which leaves no room for the link its leaf would become (`bookminer verify` lists its repeated moves)", book.display(), origin_text(*origin))]
    NoRoomForLink { book: PathBuf, origin: Option<RecordId> },
    /// An engine failed for good: restarted and asked again, it still gave no answer.
    #[error("engine `{engine}` on {query}: {fault} (asked {} times); the journal {} keeps every answer so far", pool::RETRIES + 1, journal.display())]
    Engine { engine: String, query: Query, fault: engine::Fault, journal: PathBuf },
    #[error(transparent)]
    Fix(#[from] FixError),
    /// The book grown does not read back: a fault of bookminer's, not of the book.
    #[error("the book grown does not read back ({0}); please report this")]
    Grown(String),
    #[error("interrupted; the journal {} keeps every answer so far, OUT was not written", journal.display())]
    Interrupted { journal: PathBuf },
}

/// Where a position of the store came from, for messages: its record in
/// the book read, or none for a position the run added.
fn origin_text(origin: Option<RecordId>) -> String {
    origin.map_or("a position added".to_string(), |id| id.to_string())
}

impl ExtendError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            ExtendError::SameFile { .. }
            | ExtendError::BookIsJournal { .. }
            | ExtendError::NoScratch(_)
            | ExtendError::StartMissing { .. }
            | ExtendError::IllegalMove { .. }
            | ExtendError::NoRoomForLink { .. } => ErrorKind::BadInput,
            ExtendError::Run(e) => e.kind(),
            ExtendError::Journal(e) => e.kind(),
            ExtendError::Engine { .. } => ErrorKind::Engine,
            ExtendError::Fix(e) => e.kind(),
            ExtendError::Grown(_) => ErrorKind::Internal,
            ExtendError::Interrupted { .. } => ErrorKind::Interrupted,
        }
    }

    /// The book changed while it was being read: nothing was written.
    pub fn book_changed(book: &Path) -> ExtendError {
        ExtendError::Run(RunError::BookChanged { book: book.to_path_buf(), left: Left::Nothing })
    }
}

/// What `extend` is asked to do.
#[derive(Clone, Debug)]
pub struct ExtendOptions {
    pub engine: EngineSpec,
    /// Engines run at once.
    pub workers: usize,
    /// Candidates have at least this many empty squares; `None`: an Edax
    /// book's header n_empties, 0 for an Egaroucid book.
    pub min_empties: Option<u32>,
    /// Stop once this many positions have been added.
    pub max_positions: Option<u64>,
    pub start: Start,
    pub window: Window,
}

/// Where `extend` reads and writes, checked before anything is read.
#[derive(Clone, Debug)]
pub struct ExtendPaths {
    pub input: PathBuf,
    pub output: PathBuf,
    pub journal: PathBuf,
    /// Where the run's folder of round books is made (scratch.rs).
    pub scratch: PathBuf,
}

impl ExtendPaths {
    /// Refuses an OUT or a journal that is IN by any path, an OUT that is
    /// the journal, a journal another run holds or that is not a regular
    /// file, and folders whose paths no engine's console reads.
    pub fn new(input: &Path, output: &Path, out_dir: &Path) -> Result<ExtendPaths, ExtendError> {
        let journal = out_dir.join(JOURNAL);
        let over = crate::input::output_over_input(input, &[output, &journal]).map_err(RunError::io(input))?;
        if let Some(written) = over {
            return Err(ExtendError::SameFile { input: input.to_path_buf(), output: written.to_path_buf() });
        }
        if crate::input::same_destination(output, &journal) {
            return Err(ExtendError::BookIsJournal { path: output.to_path_buf() });
        }
        Journal::check_free(&journal)?;
        let scratch = scratch::folder_for(&journal)?;
        Ok(ExtendPaths { input: input.to_path_buf(), output: output.to_path_buf(), journal, scratch })
    }
}

/// Where a run is, for a progress display.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExtendProgress {
    pub round: u32,
    pub candidates: usize,
    /// Searches of this round done (by an engine or from the journal), and in all.
    pub done: usize,
    pub searches: usize,
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
    /// Time the engines spent answering, summed over engines.
    pub engine_time: Duration,
    pub workers: usize,
    /// Stopped because `max_positions` were added.
    pub stopped_early: bool,
    pub records_written: u64,
    pub elapsed: Duration,
}

impl fmt::Display for ExtendReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let engines = if self.workers == 1 { "1 engine".to_string() } else { format!("{} engines", self.workers) };
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
        writeln!(f, "engine time          {:.3} s ({engines})", self.engine_time.as_secs_f64())?;
        if self.stopped_early {
            writeln!(f, "stopped early        max_positions reached: candidates may be left")?;
        }
        writeln!(f, "book written         {} ({} records)", self.output.display(), self.records_written)?;
        write!(f, "elapsed              {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// Extends `book` (read from `paths.input`) into `paths.output`. OUT
/// appears only when whole; the journal keeps every answer whatever
/// happens.
pub fn extend(
    book: Book,
    paths: &ExtendPaths,
    options: &ExtendOptions,
    progress: &mut dyn FnMut(&ExtendProgress),
    cancel: &AtomicBool,
) -> Result<ExtendReport, ExtendError> {
    let began = Instant::now();
    let io = RunError::io;
    let (flavor, header_empties) = flavor_of(&book.header());
    let min_empties = options.min_empties.unwrap_or(header_empties);
    let mut store = Store::new(&book, flavor);
    // Refused before anything is written.
    let root = start_node(&mut store, &options.start)?;
    for path in [&paths.output, &paths.journal] {
        if let Some(dir) = path.parent() {
            ensure_dir(dir).map_err(io(dir))?;
        }
    }
    let mut out = AtomicFile::create(&paths.output).map_err(io(&paths.output))?;
    let mut journal = Journal::open(&paths.journal)?;
    if !journal.is_empty() {
        tracing::info!(
            "{}: {} answers of earlier runs, taken instead of searching again",
            paths.journal.display(),
            journal.len()
        );
    }
    let mut report = ExtendReport::new(paths, book.counts().positions, options.workers);
    let scratch = scratch_dir(paths)?;
    let mut run =
        Run { store: &mut store, journal: &mut journal, report: &mut report, scratch: scratch.path(), cancel };
    std::thread::scope(|scope| {
        let pool = Pool::start(scope, &options.engine, options.workers, cancel).map_err(io(&paths.output))?;
        run.rounds(root, &pool, options, min_empties, progress)
    })?;
    store.negamax(root)?;
    if book.file().changed() {
        return Err(ExtendError::book_changed(&paths.input));
    }
    report.records_written = write_out(&store, &mut out, paths, cancel)?;
    let out = out.finish().map_err(io(&paths.output))?;
    if cancel.load(Ordering::Relaxed) {
        return Err(ExtendError::Interrupted { journal: paths.journal.clone() });
    }
    if book.file().changed() {
        return Err(ExtendError::book_changed(&paths.input));
    }
    out.commit().map_err(io(&paths.output))?;
    report.elapsed = began.elapsed();
    Ok(report)
}

/// How a book's positions are grown, as its header says: an Edax book's
/// searches and the fewest empty squares it expands (its `n_empties`), or
/// Egaroucid's, which expands any.
fn flavor_of(header: &Header) -> (Flavor, u32) {
    match header {
        Header::Edax(h) => (Flavor::Edax(SearchErrors::of(h)), h.n_empties.clamp(0, 60) as u32),
        Header::Egbk3(_) | Header::Egbk2(_) | Header::Egbk(_) => (Flavor::Egaroucid, 0),
    }
}

impl ExtendReport {
    /// The report of a run just begun: its paths, the positions read, its engines.
    fn new(paths: &ExtendPaths, positions_loaded: u64, workers: usize) -> ExtendReport {
        ExtendReport {
            input: paths.input.clone(),
            output: paths.output.clone(),
            journal: paths.journal.clone(),
            positions_loaded,
            workers,
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
fn start_node(store: &mut Store<'_>, start: &Start) -> Result<NodeId, ExtendError> {
    let board = normalize(&start.board).board;
    store.find(&board)?.ok_or_else(|| ExtendError::StartMissing {
        book: store.book().path().to_path_buf(),
        start: crate::walk::describe_line(&start.line),
    })
}

/// Searches to ask, each with the caller's number for it.
type Asked = Vec<(usize, Query)>;

/// The rounds, and what they need at hand.
struct Run<'r, 's, 'b> {
    store: &'s mut Store<'b>,
    journal: &'r mut Journal,
    report: &'r mut ExtendReport,
    scratch: &'r Path,
    cancel: &'r AtomicBool,
}

impl Run<'_, '_, '_> {
    fn rounds(
        &mut self,
        root: NodeId,
        pool: &Pool,
        options: &ExtendOptions,
        min_empties: u32,
        progress: &mut dyn FnMut(&ExtendProgress),
    ) -> Result<(), ExtendError> {
        loop {
            self.store.negamax(root)?;
            let candidates = self.store.candidates(root, options.window, min_empties)?;
            let round = self.report.rounds + 1;
            self.report.candidates += candidates.len() as u64;
            let left = options.max_positions.map(|n| n.saturating_sub(self.report.added));
            let to_search = self.expand(&candidates, left)?;
            if to_search.is_empty() {
                return Ok(());
            }
            self.report.rounds = round;
            let plans = to_search.iter().map(|&id| self.store.leaf_plan(id)).collect::<Result<Vec<_>, _>>()?;
            let shown = ExtendProgress { round, candidates: candidates.len(), done: 0, searches: plans.len() };
            progress(&shown);
            tracing::info!(
                "round {round}: {}, {} added so far, {} to search",
                count(candidates.len(), "candidate", "candidates"),
                count(self.report.added, "position", "positions"),
                count(to_search.len(), "leaf", "leaves"),
            );
            let answers = self.search(&plans, pool, shown, progress)?;
            for ((&id, plan), answer) in to_search.iter().zip(&plans).zip(answers) {
                let (score, mv) = leaf_of(plan, answer);
                self.store.set_leaf(id, score, mv);
            }
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
            match self.store.expand(id)? {
                None => continue,
                Some(added) => {
                    self.report.expanded += 1;
                    if added {
                        self.report.added += 1;
                        left = left.map(|n| n - 1);
                        to_search.push(*self.store.added().last().expect("just added"));
                    }
                    to_search.push(id);
                }
            }
        }
        // Linked once every position of the round is in: a new position's
        // links may lead to another.
        for i in added_before..self.store.added().len() {
            let id = self.store.added()[i];
            if let Flavor::Edax(_) = self.store.flavor() {
                self.store.link_new(id)?;
            }
        }
        Ok(to_search)
    }

    /// The answers to every search the plans ask for: from the journal, or
    /// from the engines, written to the journal as they come.
    fn search(
        &mut self,
        plans: &[LeafPlan],
        pool: &Pool,
        mut shown: ExtendProgress,
        progress: &mut dyn FnMut(&ExtendProgress),
    ) -> Result<Vec<Option<Answer>>, ExtendError> {
        let (mut answers, asked) = self.answers_in_journal(plans);
        shown.done = shown.searches - asked.len();
        progress(&shown);
        for (book, tasks) in self.exclusion_books(&asked)? {
            for (index, query) in tasks {
                pool.submit(Task { index, query, book: Arc::clone(&book) });
            }
        }
        for _ in 0..asked.len() {
            let Some(done) = pool.next_done(self.cancel) else { break };
            match done.outcome {
                Ok((answer, took)) => {
                    let LeafPlan::Search { query, .. } = plans[done.index] else {
                        unreachable!("only searches are asked")
                    };
                    self.journal.record(&query, answer, pool.command(), took)?;
                    self.report.searched += 1;
                    self.report.engine_time += took;
                    answers[done.index] = Some(answer);
                    shown.done += 1;
                    progress(&shown);
                }
                Err(failure) => {
                    pool.halt();
                    return Err(self.failed(pool, failure));
                }
            }
        }
        if answers.iter().zip(plans).any(|(a, p)| a.is_none() && matches!(p, LeafPlan::Search { .. })) {
            return Err(self.interrupted());
        }
        Ok(answers)
    }

    /// The answers to the plans' searches that the journal already holds,
    /// and the searches left to ask (their plan's index and query).
    fn answers_in_journal(&mut self, plans: &[LeafPlan]) -> (Vec<Option<Answer>>, Vec<(usize, Query)>) {
        let mut answers: Vec<Option<Answer>> = vec![None; plans.len()];
        let mut asked = Vec::new();
        for (i, plan) in plans.iter().enumerate() {
            let LeafPlan::Search { query, .. } = plan else { continue };
            match self.journal.answer(query) {
                Some(answer) => {
                    answers[i] = Some(answer);
                    self.report.from_journal += 1;
                }
                None => asked.push((i, *query)),
            }
        }
        (answers, asked)
    }

    /// The run's error for a search the pool gave up on: a stop asked for,
    /// or an engine that kept failing.
    fn failed(&self, pool: &Pool, failure: pool::GaveUp) -> ExtendError {
        if self.cancel.load(Ordering::Relaxed) || matches!(failure.fault, engine::Fault::Stopped) {
            return self.interrupted();
        }
        ExtendError::Engine {
            engine: pool.command().to_string(),
            query: failure.query,
            fault: failure.fault,
            journal: self.journal.path().to_path_buf(),
        }
    }

    fn interrupted(&self) -> ExtendError {
        ExtendError::Interrupted { journal: self.journal.path().to_path_buf() }
    }

    /// Writes the books that hold the searches' exclusions (a record per
    /// board, its links the moves to leave out), as few as can hold them:
    /// a board searched twice with different exclusions needs a second book.
    fn exclusion_books(&mut self, asked: &[(usize, Query)]) -> Result<Vec<(Arc<PathBuf>, Asked)>, ExtendError> {
        type Boards = std::collections::HashSet<crate::board::Board>;
        let mut books: Vec<(Boards, Asked)> = Vec::new();
        for &(index, query) in asked {
            let free = books.iter().position(|(boards, _)| query.excluded == 0 || !boards.contains(&query.board));
            let k = free.unwrap_or_else(|| {
                books.push(Default::default());
                books.len() - 1
            });
            if query.excluded != 0 {
                books[k].0.insert(query.board);
            }
            books[k].1.push((index, query));
        }
        let round = self.report.rounds;
        let mut written = Vec::new();
        for (k, (_, tasks)) in books.into_iter().enumerate() {
            let path = self.scratch.join(format!("round-{round}-{k}.dat"));
            let bytes = exclusions::book_of(tasks.iter().map(|(_, q)| q));
            std::fs::write(&path, bytes).map_err(RunError::io(&path))?;
            written.push((Arc::new(path), tasks));
        }
        Ok(written)
    }
}

/// A leaf from its plan and the answer to its search, if it had one.
fn leaf_of(plan: &LeafPlan, answer: Option<Answer>) -> (i8, Option<Move>) {
    match (plan, answer) {
        (LeafPlan::Known { score, mv }, _) => (*score, *mv),
        (LeafPlan::Search { through_pass: true, .. }, Some(a)) => (-a.score, Some(Move::Pass)),
        (LeafPlan::Search { .. }, Some(a)) => (a.score, Some(Move::Play(a.mv))),
        (LeafPlan::Search { .. }, None) => unreachable!("every search is answered before leaves are set"),
    }
}

/// Writes the book: everything the rounds made, negamaxed as `fix` does
/// (no receipt: every change is the run's own). Returns the records written.
fn write_out(
    store: &Store<'_>,
    out: &mut AtomicFile,
    paths: &ExtendPaths,
    cancel: &AtomicBool,
) -> Result<u64, ExtendError> {
    let path = &paths.output;
    let bytes = write::unfixed_bytes(store);
    let name = store.book().path().display().to_string();
    let grown =
        Book::from_bytes_with(&name, bytes, &ReadOptions::default()).map_err(|e| ExtendError::Grown(e.to_string()))?;
    let records = grown.counts().records;
    let mut phase = |_: Phase| {};
    let mut walked = |_: &WalkStats| {};
    let control = Control { cancel, phase: &mut phase, progress: &mut walked };
    let sink = Path::new("(no receipt)");
    // A stop while the book is written is the run's stop: the journal keeps
    // every answer, as at any other moment.
    let interrupted = || ExtendError::Interrupted { journal: paths.journal.clone() };
    let done =
        fix_into(grown, &FixOptions::default(), (out, path), (&mut io::sink(), sink), control).map_err(|error| {
            match error {
                FixError::Run(RunError::Interrupted { .. }) => interrupted(),
                error => error.into(),
            }
        })?;
    if done.interrupted() {
        return Err(interrupted());
    }
    Ok(records)
}
