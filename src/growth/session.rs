//! What every growth policy shares: a growth session. It checks
//! the start, begins OUT, opens the journal, makes the book ready to grow
//! (negamaxed below the start), starts the fleet, hands all of it to a
//! [`Grower`] (extend's rounds, grow's best-first, deepen's leaves), then
//! writes the book grown, negamaxed as `fix` does, into OUT and says what
//! the engines did.

use super::options::GrowthOptions;
use super::report::{GrowthReport, SearchTally};
use crate::book::{Book, Header, LinkTargets, MovesFound, Parents, ReadOptions};
use crate::engine::fleet::{identities, EngineReport, EngineSet, Fleet, Room};
use crate::engine::journal::{Journal, TakenFrom};
use crate::engine::summary::labels;
use crate::files::{ensure_dir, AtomicFile};
use crate::fix::{fix_rescored_into, FixError, FixOptions, Rescored};
use crate::growth::edax_order::Found;
use crate::growth::error::GrowthError;
use crate::growth::growing::candidates::Marks;
use crate::growth::growing::first::{self, FirstNegamax, Prepared};
use crate::growth::growing::solved::Solved;
use crate::growth::growing::store::{Flavor, NodeId, Store};
use crate::growth::growing::view::Stop;
use crate::growth::growing::write;
use crate::growth::paths::scratch_dir;
use crate::growth::paths::GrowthPaths;
use crate::run::{Cancel, Control, RunError, Stopped};
use crate::symmetry::normalize;
use crate::walk::Start;
use crate::wording::count;
use crate::write::pipeline::SinkFailure;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a policy is handed to grow the book with: the growing book and its
/// negamax, the journal, the engines, and the gates the session found.
pub(crate) struct Held<'s, 'b> {
    pub(crate) store: &'s mut Store<'b>,
    pub(crate) solved: &'s mut Solved,
    pub(crate) journal: &'s mut Journal,
    pub(crate) engines: &'s [EngineSet],
    pub(crate) cancel: Cancel<'s>,
    /// The start position's node.
    pub(crate) root: NodeId,
    /// The fewest empty squares growth enters (`min_empties`, else the
    /// book's default).
    pub(crate) min_empties: u32,
    /// The first candidate walk's candidates, as the policy's
    /// [`Grower::candidates`] marks them; none when not noted.
    pub(crate) candidates: Option<Found>,
    /// When the run began.
    pub(crate) began: Instant,
}

/// How a session grows its book: what the growth policies differ in (a
/// policy's steps; its entry is `crate::growth::Policy`). The fleet is
/// running while [`Grower::grow`] runs; the book it leaves is written once
/// it returns `Ok`.
pub(crate) trait Grower {
    /// Grows the book `held` holds, with the searches answered by the
    /// journal or `fleet`, telling `control` how it goes.
    fn grow(&mut self, held: Held<'_, '_>, fleet: &Fleet<'_>, control: &mut Control<'_>) -> Result<(), GrowthError>;

    /// Whether the policy grows the book negamaxed below the start (and
    /// keeps [`Held::solved`] up to date), as extend and grow do; else it
    /// grows the book as read, as `add` does (Edax's `book add` negamaxes
    /// nothing first), [`Held::solved`] holding nothing, and the book is
    /// negamaxed only as it is written.
    fn negamaxes_first(&self) -> bool {
        true
    }

    /// Which positions the policy reads as [`Held::candidates`] (extend's
    /// candidates for extend and grow, those without links for `play`);
    /// none: extend's are only counted (on a book of millions of
    /// positions, kept, they take tens of megabytes).
    fn candidates(&self) -> Option<Marks> {
        Some(Marks::LeafAtLeastValue)
    }

    /// Where the stored moves of the book read lead, if the policy looked
    /// every one up as it grew (`fix --link`): taken by the final negamax
    /// of a book grown that keeps the book read's layout, instead of
    /// resolving it again.
    fn moves_found(&mut self) -> Option<MovesFound> {
        None
    }
}

/// What a session did beside its policy's own work, for the summary.
pub(crate) struct Ran {
    pub(crate) positions_loaded: u64,
    /// What the fleet did.
    pub(crate) fleet: FleetRan,
    pub(crate) records_written: u64,
    /// Records of the book written reachable over links from the initial
    /// position, where its final negamax counted them (a book set aside
    /// before it).
    pub(crate) reachable: Option<u64>,
    pub(crate) elapsed: Duration,
}

impl Ran {
    /// Puts what the session did into a run's report.
    pub(crate) fn fill<A>(self, report: &mut GrowthReport<A>) {
        report.positions_loaded = self.positions_loaded;
        self.fleet.fill(&mut report.searches);
        report.records_written = self.records_written;
        report.elapsed = self.elapsed;
    }
}

/// Grows `book` (read from `paths.input`) into `paths.output` as `policy`
/// does, with the searches answered by the journal or by the fleet
/// `engines` makes (given a folder of the run's own, removed at its end).
/// OUT appears only when whole; the journal keeps every answer whatever
/// happens. `control` hears the policy's stages, then the final negamax's.
pub(crate) fn grow_book(
    book: Book,
    paths: &GrowthPaths,
    options: &GrowthOptions,
    engines: impl FnOnce(&Path) -> Vec<EngineSet>,
    policy: &mut impl Grower,
    mut control: Control<'_>,
) -> Result<Ran, GrowthError> {
    let began = Instant::now();
    let cancel = control.cancel;
    // Refused before anything is written, every record of IN first.
    GrowthError::check_records(&book)?;
    let (flavor, min_empties) = gates_of(&book, options)?;
    let book = checked_from_initial(book, &options.start, min_empties, paths, cancel)?;
    let Opened { out, mut journal, scratch } = Opened::open(paths)?;
    let negamaxed = policy.negamaxes_first();
    let (book, links, first) = match negamaxed {
        true => {
            let Prepared { book, links, first } =
                first::prepare(book, &options.start, (min_empties, policy.candidates()), &paths.journal, cancel)?;
            (book, links, first)
        }
        // The policy grows the book as read, with no first walk: what that
        // walk would refuse before any search, a link that is no legal
        // move, the check of every record above has refused already.
        false => (book, None, None),
    };
    let stop = Stop { cancel, journal: &paths.journal };
    let Growing { mut store, root, mut solved, candidates } = match negamaxed {
        true => growing(&book, flavor, links, first, options, (min_empties, policy.candidates()), stop)?,
        false => Growing::as_read(&book, flavor, options)?,
    };
    let positions_loaded = book.counts().positions;
    let engines = &engines(scratch.path());
    let (grown, ran) = run_fleet(engines, &mut journal, paths, cancel, |journal, fleet| {
        let held = Held {
            store: &mut store,
            solved: &mut solved,
            journal,
            engines,
            cancel,
            root,
            min_empties,
            candidates,
            began,
        };
        policy.grow(held, fleet, &mut control)
    });
    grown?;
    let grown = (store, solved, root);
    let (records_written, reachable) = match write_grown(grown, negamaxed, &book, out, scratch.path(), paths, cancel)? {
        Written::Out(records) => (records, None),
        Written::SetAside(unfixed, out) => {
            let (records, reachable) = unfixed.write(book, *out, paths, control)?;
            (records, Some(reachable))
        }
        Written::AsRead(rescored, out) => {
            let book = match policy.moves_found() {
                Some(found) => book.with_moves_found(found),
                None => book,
            };
            let (records, reachable) = fix_out(book, &rescored, *out, paths, control)?;
            (records, Some(reachable))
        }
    };
    Ok(Ran { positions_loaded, fleet: ran, records_written, reachable, elapsed: paths.began.elapsed() })
}

/// What a session's fleet did, for the summary: each engine's searches
/// and faults, the answers taken from the journal by the engine that gave
/// them, and where the journal of earlier runs was set aside.
pub(crate) struct FleetRan {
    pub(crate) engines: Vec<EngineReport>,
    pub(crate) taken_from: Vec<TakenFrom>,
    pub(crate) journal_set_aside: Option<PathBuf>,
}

impl FleetRan {
    /// Puts what the fleet did into a run's searches.
    pub(crate) fn fill(self, searches: &mut SearchTally) {
        searches.engines = self.engines;
        searches.taken_from = self.taken_from;
        searches.journal_set_aside = self.journal_set_aside;
    }
}

/// Runs `work` with the journal and the fleet of `engines` started (and
/// stopped when it returns): what it returns, and what the fleet did.
pub(crate) fn run_fleet<T>(
    engines: &[EngineSet],
    journal: &mut Journal,
    paths: &GrowthPaths,
    cancel: Cancel<'_>,
    work: impl FnOnce(&mut Journal, &Fleet<'_>) -> Result<T, GrowthError>,
) -> (Result<T, GrowthError>, FleetRan) {
    let room = Room::new(engines);
    journal.serve(identities(engines));
    let done = std::thread::scope(|scope| {
        let fleet = Fleet::start(scope, &room, engines, cancel).map_err(RunError::io(&paths.output))?;
        work(journal, &fleet)
    });
    let engines = room.reports();
    let taken_from = journal.taken_from(&labels(&engines));
    let journal_set_aside = journal.set_aside_as().map(Path::to_path_buf);
    (done, FleetRan { engines, taken_from, journal_set_aside })
}

/// `book`, walked first from the initial position when the run starts
/// elsewhere: OUT is then negamaxed from the initial position as `fix`
/// does, over records the run's own walk from `start` never entered, so a
/// link there that is no legal move is refused now, naming IN and the
/// record, before any search (not once the book grown is set aside,
/// naming a file of the run's own). A book without the initial position
/// is not walked from it.
fn checked_from_initial(
    book: Book,
    start: &Start,
    min_empties: u32,
    paths: &GrowthPaths,
    cancel: Cancel<'_>,
) -> Result<Book, GrowthError> {
    let initial = Start::initial();
    if start.board == initial.board || initial.locate_in(&book).is_err() {
        return Ok(book);
    }
    let Prepared { book, .. } = first::prepare(book, &initial, (min_empties, None), &paths.journal, cancel)?;
    Ok(book)
}

/// How `book` grows, and the fewest empty squares growth enters
/// (`min_empties`, else the book's default); a start the book does not
/// hold is refused.
fn gates_of(book: &Book, options: &GrowthOptions) -> Result<(Flavor, u32), GrowthError> {
    let (flavor, header_empties) = flavor_of(&book.header());
    start_node(book, &options.start)?;
    Ok((flavor, options.min_empties.unwrap_or(header_empties)))
}

/// A run's growing book, negamaxed below its start.
struct Growing<'b> {
    store: Store<'b>,
    root: NodeId,
    solved: Solved,
    /// The first round's candidates, if noted.
    candidates: Option<Found>,
}

impl<'b> Growing<'b> {
    /// The growing book over `book` as read, nothing negamaxed.
    fn as_read(book: &'b Book, flavor: Flavor, options: &GrowthOptions) -> Result<Growing<'b>, GrowthError> {
        let store = Store::with_links(book, flavor, None);
        let root = start_node(book, &options.start)?;
        Ok(Growing { store, root, solved: Solved::new(0), candidates: None })
    }
}

/// The growing book over `book` as [`first::prepare`] made it ready:
/// negamaxed below the start by the walk, or, where that was not made (an
/// Edax book with too many links to turn round), here. The candidates of
/// at least `min_empties` empty squares that `marks` marks are noted either
/// way, but for `play`'s here (its first round walks for them).
fn growing<'b>(
    book: &'b Book,
    flavor: Flavor,
    links: Option<(LinkTargets, Parents)>,
    first: Option<FirstNegamax>,
    options: &GrowthOptions,
    (min_empties, marks): (u32, Option<Marks>),
    stop: Stop<'_>,
) -> Result<Growing<'b>, GrowthError> {
    let mut store = Store::with_links(book, flavor, links);
    let root = start_node(book, &options.start)?;
    if let Some(mut first) = first {
        let candidates = marks.map(|_| Found::InExpansionOrder(std::mem::take(&mut first.candidates)));
        return Ok(Growing { store, root, solved: Solved::from_first(first), candidates });
    }
    let began = Instant::now();
    let mut solved = Solved::new(book.counts().records as usize);
    let noting = marks == Some(Marks::LeafAtLeastValue);
    if noting {
        solved.note_candidates(min_empties);
    }
    solved.solve_from(&mut store, root, stop)?;
    let candidates = noting.then(|| Found::InWalkOrder(solved.take_candidates()));
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

/// The start position's node.
fn start_node(book: &Book, start: &Start) -> Result<NodeId, GrowthError> {
    let root = start.locate_in(book).map_err(|missing| GrowthError::start_missing(book.path(), missing))?;
    Ok(NodeId::Book(root))
}

/// What a growth run holds open: OUT begun beside its final name, the
/// journal (locked), and the run's scratch folder.
pub(crate) struct Opened {
    pub(crate) out: AtomicFile,
    pub(crate) journal: Journal,
    pub(crate) scratch: tempfile::TempDir,
}

impl Opened {
    /// Makes the folders, begins OUT, opens the journal and makes the
    /// scratch folder: what a growth run does once the start is known.
    pub(crate) fn open(paths: &GrowthPaths) -> Result<Opened, GrowthError> {
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
    /// The book set aside would be the book read, byte for byte, but for
    /// some links' scores (none: nothing changed), so `fix` writes the
    /// book read so rescored into OUT ([`fix_out`]), with nothing set
    /// aside and read again.
    AsRead(Rescored, Box<AtomicFile>),
}

/// Writes OUT, the book grown, negamaxed as `fix` does, and makes it
/// appear unless the run was stopped. Written straight from what the run
/// computed when the run negamaxed what `fix` would (an Edax book grown
/// from the initial position, `negamaxed` as it grew); else set aside in
/// `folder`.
fn write_grown(
    (store, solved, root): (Store<'_>, Solved, NodeId),
    negamaxed: bool,
    book: &Book,
    mut out: AtomicFile,
    folder: &Path,
    paths: &GrowthPaths,
    cancel: Cancel<'_>,
) -> Result<Written, GrowthError> {
    let initial = store.find(&normalize(&Start::initial().board).board);
    if !negamaxed || !matches!(store.flavor(), Flavor::Edax(_)) || initial != Some(root) {
        drop(solved);
        if let Some(rescored) = write::rescoring(&store) {
            tracing::debug!(
                "{}: the book grown is the book read with {} rescored",
                book.path().display(),
                count(rescored.len(), "record", "records")
            );
            return Ok(Written::AsRead(rescored, Box::new(out)));
        }
        return Ok(Written::SetAside(set_aside(store, book, folder, paths)?, Box::new(out)));
    }
    let interrupted = GrowthError::interrupted(&paths.journal);
    let path = &paths.output;
    let began = Instant::now();
    let records = write::write_fixed(&store, &solved, &mut out, cancel).map_err(|failure| match failure {
        SinkFailure::Io(source) => RunError::Io { path: path.clone(), source }.into(),
        SinkFailure::Interrupted(stop) => interrupted(stop),
        SinkFailure::Own(error) => error.into(),
    })?;
    if book.file().changed() {
        return Err(GrowthError::book_changed(&paths.input));
    }
    let out = out.finish().map_err(RunError::io(path))?;
    cancel.check().map_err(&interrupted)?;
    out.commit().map_err(RunError::io(path))?;
    tracing::info!("{}: written negamaxed in {:.3} s", path.display(), began.elapsed().as_secs_f64());
    Ok(Written::Out(records))
}

/// Streams the book `store` grew into `folder` and lets the store go;
/// refused if the book read changed meanwhile.
fn set_aside(store: Store<'_>, book: &Book, folder: &Path, paths: &GrowthPaths) -> Result<SetAside, GrowthError> {
    if book.file().changed() {
        return Err(GrowthError::book_changed(&paths.input));
    }
    let io = RunError::io;
    let mut file = tempfile::Builder::new().prefix("grown-").tempfile_in(folder).map_err(io(folder))?;
    let path = file.path().to_path_buf();
    let mut buffered = io::BufWriter::with_capacity(1 << 20, file.as_file_mut());
    write::write_unfixed(&store, &mut buffered).and_then(|_| buffered.flush()).map_err(io(&path))?;
    drop(buffered);
    drop(store);
    if book.file().changed() {
        return Err(GrowthError::book_changed(&paths.input));
    }
    Ok(SetAside { file, name: book.path().display().to_string() })
}

impl SetAside {
    /// Writes OUT: the book set aside negamaxed as `fix` does (no receipt:
    /// every change is the run's own), under the run's `control`, then made
    /// to appear under its name unless the run was stopped. Returns the
    /// records written, and those reachable over links from the initial
    /// position. The book read is let go first: the run never holds both.
    fn write(
        self,
        book: Book,
        out: AtomicFile,
        paths: &GrowthPaths,
        control: Control<'_>,
    ) -> Result<(u64, u64), GrowthError> {
        drop(book);
        let shown_as = format!("{} (grown, before its negamax)", paths.output.display());
        let grown = Book::open_as(self.file.path(), &shown_as, &ReadOptions::default())
            .map_err(|e| GrowthError::Grown { read: self.name, source: Box::new(e) })?;
        let written = fix_out(grown, &Rescored::default(), out, paths, control);
        drop(self.file);
        written
    }
}

/// Writes `book`, its links scored as `rescored` says, into OUT negamaxed
/// as `fix` does (no receipt: every change is the run's own), under the
/// run's `control`, then makes OUT appear unless the run was stopped.
/// Returns the records written, and those reachable over links from the
/// initial position.
fn fix_out(
    book: Book,
    rescored: &Rescored,
    mut out: AtomicFile,
    paths: &GrowthPaths,
    control: Control<'_>,
) -> Result<(u64, u64), GrowthError> {
    let cancel = control.cancel;
    let path = &paths.output;
    let records = book.counts().records;
    let sink = Path::new("(no receipt)");
    // A stop while the book is written is the run's stop: the journal
    // keeps every answer, as at any other moment.
    let interrupted = GrowthError::interrupted(&paths.journal);
    let run_error = |error| match error {
        FixError::Run(RunError::Interrupted(Stopped { stop, .. })) => interrupted(stop),
        error => error.into(),
    };
    let done =
        fix_rescored_into(book, rescored, &FixOptions::default(), (&mut out, path), (&mut io::sink(), sink), control);
    let counts = done.and_then(|done| done.checked()).map_err(run_error)?;
    let out = out.finish().map_err(RunError::io(path))?;
    cancel.check().map_err(&interrupted)?;
    out.commit().map_err(RunError::io(path))?;
    Ok((records, counts.reachable))
}
