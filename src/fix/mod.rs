//! `fix` (docs/fix.md): the book made to agree with itself as Edax 4.6's `book
//! negamax` leaves it, written beside the book being read, and a receipt of
//! what changed.
//!
//! One walk from the initial position (docs/walk.md) does it all: the walk's
//! thread tells what it does ([`visitor`]) to a second thread ([`solver`]),
//! which solves each position by [`crate::negamax`] as the walk leaves it,
//! after everything below it, and notes each record's first arrival for the
//! receipt. Then the book is written in file order, chunks of records fixed
//! on every core and written in turn ([`mod@write`]), with the receipt beside
//! it. What is held besides the mapped book and its resolved moves is about
//! fourteen bytes a record ([`crate::walk::first_arrivals`], [`solutions`]).

mod fixed;
mod receipt;
mod rescored;
pub(crate) mod solutions;
mod solver;
mod visitor;
mod write;

pub use rescored::Rescored;
pub(crate) use write::fix_edax_record;
pub use write::Changes;

use crate::book::Book;
use crate::failure::ErrorKind;
use crate::files::input::{OverInput, Writer};
use crate::files::{ensure_dir, AtomicFile};
use crate::format::Format;
use crate::negamax::SearchErrors;
use crate::output::LineStyle;
use crate::run::{Control, Interrupted, Left, Phase, RunError};
use crate::symmetry::normalize;
use crate::walk::{walk, FromInitial, Start, WalkStats};
use crate::wording::count;
use crate::write::pipeline::SinkFailure;
use fixed::{Fixed, Solutions};
use solver::Solver;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use visitor::{Fixer, BATCH_EVENTS};
use write::Broken;

/// Batches of the walk's events on their way to the solver at most: the
/// walk runs ahead of it by no more than these.
const BATCHES_IN_FLIGHT: usize = 4;

/// The receipt's name in the output folder.
pub const RECEIPT: &str = "fix.jsonl";

/// Why `fix` failed.
#[derive(Debug, thiserror::Error)]
pub enum FixError {
    /// The book or the receipt would be written over the book being read.
    #[error(transparent)]
    OverInput(#[from] OverInput),
    /// The fixed book and the receipt would be one file (by any path).
    #[error("{}: the fixed book cannot also be the receipt ({}); name another file or out_dir", output.display(), receipt.display())]
    BookIsReceipt {
        /// OUT.
        output: PathBuf,
        /// The receipt.
        receipt: PathBuf,
    },
    #[error(transparent)]
    /// The walk, the files or a stop failed the run.
    Run(#[from] RunError),
}

impl FixError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            FixError::OverInput(_) | FixError::BookIsReceipt { .. } => ErrorKind::BadInput,
            FixError::Run(e) => e.kind(),
        }
    }

    /// The book changed while it was being read: nothing was written.
    pub fn book_changed(book: PathBuf) -> FixError {
        FixError::Run(RunError::BookChanged { book, left: Left::Nothing })
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> FixError + '_ {
    move |source| FixError::Run(RunError::Io { path: path.to_path_buf(), source })
}

/// Where `fix` reads and writes, checked: the book written is neither the
/// book read nor the receipt.
#[derive(Clone, Debug)]
pub struct FixPaths {
    input: PathBuf,
    output: PathBuf,
    receipt: PathBuf,
}

impl FixPaths {
    /// Checks the paths before anything is read or written: any path to
    /// the input (a hard link, a symbolic link) is refused as an output,
    /// and the book and receipt must land on two files, compared where they
    /// really land ([`crate::files::input::Landing`]), not by their text.
    pub fn new(input: &Path, output: &Path, out_dir: &Path) -> Result<FixPaths, FixError> {
        let receipt = out_dir.join(RECEIPT);
        if let Some(over) = OverInput::find(input, &[output, &receipt], Writer::Fix).map_err(io_error(input))? {
            return Err(over.into());
        }
        if crate::files::input::same_destination(output, &receipt) {
            return Err(FixError::BookIsReceipt { output: output.to_path_buf(), receipt });
        }
        Ok(FixPaths { input: input.to_path_buf(), output: output.to_path_buf(), receipt })
    }

    /// The book read (IN).
    pub fn input(&self) -> &Path {
        &self.input
    }

    /// The book written (OUT).
    pub fn output(&self) -> &Path {
        &self.output
    }

    /// The receipt, fix.jsonl in out_dir.
    pub fn receipt(&self) -> &Path {
        &self.receipt
    }
}

/// How the receipt writes lines (orientation, pass token).
#[derive(Clone, Debug, Default)]
pub struct FixOptions {
    /// How the receipt's lines are written.
    pub style: LineStyle,
}

/// What a run did, for the summary.
#[derive(Clone, Debug)]
pub struct FixReport {
    /// The book read (IN).
    pub input: PathBuf,
    /// IN's format: an .egbk2 or .egbk is written as an .egbk3.
    pub input_format: Format,
    /// The book written (OUT).
    pub output: PathBuf,
    /// The receipt.
    pub receipt: PathBuf,
    /// Positions the book read holds.
    pub positions_loaded: u64,
    /// Records reachable from the initial position over links: the ones
    /// the negamax computes.
    pub reachable: u64,
    /// What the walk counted.
    pub walk: WalkStats,
    /// What the negamax changed.
    pub changes: Changes,
    /// How long the run took.
    pub elapsed: Duration,
}

impl fmt::Display for FixReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.changes;
        writeln!(f, "positions loaded     {}", self.positions_loaded)?;
        writeln!(f, "positions negamaxed  {} (reachable over links from the initial position)", self.reachable)?;
        writeln!(f, "records changed      {} (lines written to {})", c.records, self.receipt.display())?;
        writeln!(f, "values changed       {}", c.values)?;
        writeln!(f, "link scores changed  {}", c.link_scores)?;
        writeln!(f, "counts changed       {}", c.counts)?;
        writeln!(f, "links reordered      {}", c.reordered)?;
        let (output, input) = (self.output.display(), self.input.display());
        match self.input_format.is_translated() {
            false => writeln!(f, "fixed book written   {output} (the size of {input})")?,
            true => writeln!(f, "fixed book written   {output} (the records of {input} as an .egbk3)")?,
        }
        write!(f, "elapsed              {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// Fixes `book` (read from `paths.input()`) into `paths.output()` and writes
/// the receipt. Nothing appears under either name unless both are written
/// whole; a run interrupted through `control.cancel` leaves nothing behind.
pub fn fix(book: Book, paths: &FixPaths, options: &FixOptions, control: Control<'_>) -> Result<FixReport, FixError> {
    let began = Instant::now();
    let (output, receipt) = (paths.output(), paths.receipt());
    for path in [output, receipt] {
        if let Some(dir) = path.parent() {
            ensure_dir(dir).map_err(io_error(dir))?;
        }
    }
    // Made before the long part, so that an output that cannot be written
    // is known at once.
    let mut book_file = AtomicFile::create_named(output).map_err(io_error(output))?;
    let mut receipt_file = AtomicFile::create(receipt).map_err(io_error(receipt))?;
    let input_format = book.format();
    let positions_loaded = book.counts().positions;
    let done = fix_into(book, options, (&mut book_file, output), (&mut receipt_file, receipt), control)?;
    // Both written out before either is renamed into place: a full disk
    // leaves neither.
    let book_file = book_file.finish().map_err(io_error(output))?;
    let receipt_file = receipt_file.finish().map_err(io_error(receipt))?;
    let done = done.checked()?;
    book_file.commit().map_err(io_error(output))?;
    receipt_file.commit().map_err(io_error(receipt))?;
    Ok(FixReport {
        input: paths.input().to_path_buf(),
        input_format,
        output: output.to_path_buf(),
        receipt: receipt.to_path_buf(),
        positions_loaded,
        reachable: done.reachable,
        walk: done.walk,
        changes: done.changes,
        elapsed: began.elapsed(),
    })
}

/// What [`fix_into`] did, to be checked before its output is used: its
/// counts come only through [`FixedInto::checked`].
pub struct FixedInto<'c> {
    counts: FixCounts,
    book: FromInitial,
    control: Control<'c>,
}

/// What [`fix_into`] counted.
#[derive(Clone, Copy, Debug)]
pub struct FixCounts {
    /// What the negamax changed.
    pub changes: Changes,
    /// What the walk counted.
    pub walk: WalkStats,
    /// Records reachable from the initial position over links.
    pub reachable: u64,
}

/// The run was stopped (Ctrl-C): nothing was written.
impl From<Interrupted> for FixError {
    fn from(stop: Interrupted) -> FixError {
        FixError::Run(RunError::interrupted(Left::Nothing)(stop))
    }
}

impl FixedInto<'_> {
    /// The counts, once it is known that the output is whole and right:
    /// the run was not stopped while writing (else the output is not
    /// whole), and the book read did not change under it (else nothing
    /// written is right).
    pub fn checked(self) -> Result<FixCounts, FixError> {
        self.control.cancel.check()?;
        let book = self.book.book();
        if book.file().changed() {
            return Err(FixError::book_changed(book.path().to_path_buf()));
        }
        Ok(self.counts)
    }
}

/// Negamaxes `book` (docs/fix.md) and writes the fixed book into `out` and
/// the receipt's lines into `receipt`, in file order. The caller makes the
/// files appear, once [`FixedInto`] says nothing went wrong meanwhile.
pub fn fix_into<'c>(
    book: Book,
    options: &FixOptions,
    out: (&mut impl io::Write, &Path),
    receipt: (&mut impl io::Write, &Path),
    control: Control<'c>,
) -> Result<FixedInto<'c>, FixError> {
    fix_rescored_into(book, &Rescored::default(), options, out, receipt, control)
}

/// [`fix_into`] of the Edax book `book` with some records' links given
/// other scores first, as `rescored` says: what `fix_into` writes of the
/// book so rescored.
pub fn fix_rescored_into<'c>(
    book: Book,
    rescored: &Rescored,
    options: &FixOptions,
    (out, out_path): (&mut impl io::Write, &Path),
    (receipt, receipt_path): (&mut impl io::Write, &Path),
    control: Control<'c>,
) -> Result<FixedInto<'c>, FixError> {
    let book_path = book.path().to_path_buf();
    let errors = book.header().edax().map(|h| h.search_errors());
    (control.phase)(Phase::Resolving);
    let Walked { book, fixed, stats, control } = solve(book, errors, control)?;
    let resolved = book.book();
    if resolved.file().changed() {
        return Err(FixError::book_changed(book_path));
    }
    (control.phase)(Phase::Writing);
    let writing = Instant::now();
    let written = write::write_fixed(resolved, &fixed, rescored, &options.style, out, receipt, control.cancel);
    let changes = written.map_err(|failure| match failure {
        SinkFailure::Io(source) => io_error(out_path)(source),
        SinkFailure::Own(Broken::Receipt(source)) => io_error(receipt_path)(source),
        SinkFailure::Interrupted(stop) => stop.into(),
        SinkFailure::Own(Broken::BookChanged) => FixError::book_changed(book_path.clone()),
    })?;
    tracing::info!("{}: fixed in {:.3} s", book_path.display(), writing.elapsed().as_secs_f64());
    let counts = FixCounts { changes, walk: stats, reachable: fixed.linked.count() };
    Ok(FixedInto { counts, book, control })
}

/// The book walked and solved: walked from the initial position, or, when
/// the initial position is not in it, resolved without a walk.
struct Walked<'c> {
    book: FromInitial,
    fixed: Fixed,
    stats: WalkStats,
    control: Control<'c>,
}

/// Resolves the book and walks it from the initial position, solving every
/// position reached. A book without the initial position has nothing
/// reachable: nothing is solved, and only its links are sorted.
fn solve(book: Book, errors: Option<SearchErrors>, control: Control<'_>) -> Result<Walked<'_>, FixError> {
    let book_path = book.path().to_path_buf();
    let resolving = Instant::now();
    let walkable = match FromInitial::new(book).map_err(RunError::start_missing(&book_path))? {
        FromInitial::Walkable(walkable) => walkable,
        FromInitial::Unwalkable(book) => {
            tracing::warn!("{}: the initial position is not in the book: nothing to negamax", book_path.display());
            let fixed = Fixed::new(&book, Solutions::for_book(&book, errors));
            return Ok(Walked { book: FromInitial::Unwalkable(book), fixed, stats: WalkStats::default(), control });
        }
    };
    let resolved = walkable.book();
    resolved.log_resolved(&book_path, resolving);
    (control.phase)(Phase::Walking);
    let fixed = Fixed::new(resolved, Solutions::for_book(resolved, errors));
    let root = walkable.root();
    let to_original = normalize(&Start::initial().board).to_original;
    let solver = Solver::new(resolved, fixed, root.id, resolved.file().offset(root), to_original);
    let walk_began = Instant::now();
    let (events, batches) = crate::parallel::batches(BATCH_EVENTS, BATCHES_IN_FLIGHT);
    let (walked, fixed) = std::thread::scope(|scope| {
        let solving = std::thread::Builder::new()
            .name("negamax".to_string())
            .spawn_scoped(scope, move || solver.run(batches))
            .map_err(io_error(&book_path))?;
        let walked =
            walk(&walkable, Fixer::new(resolved, events, control)).map(|(stats, fixer)| (stats, fixer.finish()));
        // The walk's end (or its failure) dropped the solver's channel: it
        // finishes what it was handed and ends.
        let fixed = solving.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok::<_, FixError>((walked, fixed))
    })?;
    let (stats, control) = match walked {
        Ok(done) => done,
        Err(_) if resolved.file().changed() => return Err(FixError::book_changed(book_path)),
        Err(error) => {
            return Err(RunError::of_walk(&book_path, error, RunError::interrupted(Left::Nothing)).into());
        }
    };
    log_walked(&book_path, &stats, walk_began, &fixed);
    Ok(Walked { book: FromInitial::Walkable(walkable), fixed, stats, control })
}

/// Logs what the walk begun at `began` solved.
fn log_walked(book_path: &Path, stats: &WalkStats, began: Instant, fixed: &Fixed) {
    let set_aside = match &fixed.solutions {
        Solutions::Edax { solved, .. } if solved.set_aside() > 0 => {
            // Said plainly (issue 40): what "set aside" is, and that it changes nothing.
            let n = solved.set_aside();
            format!(" ({n} of them with counts or bounds too large to pack into 8 bytes, so kept in full: the result is the same)")
        }
        _ => String::new(),
    };
    tracing::info!(
        "{}: walked {} in {:.3} s, {} negamaxed{set_aside}",
        book_path.display(),
        count(stats.edges, "edge", "edges"),
        began.elapsed().as_secs_f64(),
        count(fixed.linked.count(), "position", "positions"),
    );
}
