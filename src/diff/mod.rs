//! `diff OLD NEW`: what differs between two books, of any formats bookminer
//! reads: the boards only one holds, and the boards both hold whose value,
//! level or stored leaf differs, or, both books Edax's, whose bounds or
//! link scores do (links matched by move). Each is written as one line of
//! `{out_dir}/diff.jsonl` ([`lines`]) with the line of the first arrival
//! at it on the walk of the book that holds it (the old book's when both
//! do), as `fix`'s receipt names its records.
//!
//! The old book's boards are found in the new book while both indexes are
//! there ([`matching`]); then the old book is walked ([`walked`]), and the
//! new one too, on a second thread, only if it holds boards the old one
//! lacks; then the records are compared in file order on every core.

mod compare;
mod lines;
mod matching;
mod walked;

pub use lines::DiffCounts;

use crate::book::Book;
use crate::failure::ErrorKind;
use crate::files::input::{OverInput, Writer};
use crate::files::{ensure_dir, AtomicFile};
use crate::output::LineStyle;
use crate::run::{Control, Interrupted, Left, Phase, RunError};
use crate::write::pipeline::SinkFailure;
use lines::{Both, NewBook};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use walked::Walked;

/// The file's name in the output folder.
pub const DIFF_FILE: &str = "diff.jsonl";

/// The name `-o` gives standard output.
pub use crate::output::STDOUT;

/// Where the lines go: a file, whole or not at all, or a stream (standard
/// output), written as they come.
pub enum LinesOut<'a> {
    /// A file, put in place when the run succeeds.
    File(&'a Path),
    /// A stream, written as the lines come.
    Stream(&'a mut dyn Write),
}

/// Why `diff` failed.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// The lines would be written over a book being read.
    #[error(transparent)]
    OverInput(#[from] OverInput),
    #[error(transparent)]
    /// The walks, the file or a stop failed the run.
    Run(#[from] RunError),
}

impl DiffError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            DiffError::OverInput(_) => ErrorKind::BadInput,
            DiffError::Run(e) => e.kind(),
        }
    }
}

/// The run was stopped (Ctrl-C): nothing was written.
impl From<Interrupted> for DiffError {
    fn from(stop: Interrupted) -> DiffError {
        DiffError::Run(RunError::interrupted(Left::Nothing)(stop))
    }
}

/// The file `diff` writes (`{out_dir}/diff.jsonl`, or one named), checked
/// before anything is read: never one of the books (by any path).
pub fn diff_path(old: &Path, new: &Path, output: &Path) -> Result<PathBuf, DiffError> {
    let output = output.to_path_buf();
    for book in [old, new] {
        let over = OverInput::find(book, &[&output], Writer::Diff).map_err(RunError::io(book))?;
        if let Some(over) = over {
            return Err(over.into());
        }
    }
    Ok(output)
}

/// What a run found, for the summary.
#[derive(Clone, Debug)]
pub struct DiffReport {
    /// The old book.
    pub old: PathBuf,
    /// The new book.
    pub new: PathBuf,
    /// Where the lines went.
    pub output: PathBuf,
    /// Positions the old book holds.
    pub old_positions: u64,
    /// Positions the new book holds.
    pub new_positions: u64,
    /// What differs, counted.
    pub counts: DiffCounts,
    /// How long the run took.
    pub elapsed: Duration,
}

impl fmt::Display for DiffReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.counts;
        writeln!(f, "old book            {} ({} positions)", self.old.display(), self.old_positions)?;
        writeln!(f, "new book            {} ({} positions)", self.new.display(), self.new_positions)?;
        writeln!(f, "only in the old     {}", c.only_old)?;
        writeln!(f, "only in the new     {}", c.only_new)?;
        writeln!(f, "changed             {}", c.changed)?;
        writeln!(f, "  values            {}", c.values)?;
        writeln!(f, "  bounds            {}", c.bounds)?;
        writeln!(f, "  levels            {}", c.levels)?;
        writeln!(f, "  leaves            {}", c.leaves)?;
        writeln!(f, "  links             {} ({} link scores)", c.links, c.link_scores)?;
        match self.output.as_os_str() == STDOUT {
            true => writeln!(f, "lines written       {} to standard output", c.lines())?,
            false => writeln!(f, "lines written       {} to {}", c.lines(), self.output.display())?,
        }
        write!(f, "elapsed             {:.3} s", self.elapsed.as_secs_f64())
    }
}

fn secs(since: Instant) -> f64 {
    since.elapsed().as_secs_f64()
}

/// The new book before the walks: resolved to be walked, or kept as loaded.
enum NewSide {
    ToWalk(walked::Ready),
    AsLoaded(Book),
}

/// Both books resolved and walked at once, each on a thread of its own,
/// noting first arrivals: the old one always, the new one if `walk_new`.
fn walk_both(old: Book, new: Book, walk_new: bool, control: &mut Control<'_>) -> Result<(Walked, NewBook), DiffError> {
    let (old_path, new_path) = (old.path().to_path_buf(), new.path().to_path_buf());
    let stage = Instant::now();
    let old = walked::ready(old).map_err(RunError::start_missing(&old_path))?;
    let new = match walk_new {
        true => NewSide::ToWalk(walked::ready(new).map_err(RunError::start_missing(&new_path))?),
        false => NewSide::AsLoaded(new),
    };
    tracing::info!("moves resolved in {:.3} s", secs(stage));
    (control.phase)(Phase::Walking);
    let stage = Instant::now();
    let (old, new) = std::thread::scope(|scope| {
        let cancel = control.cancel;
        let new_walk = scope.spawn(move || match new {
            NewSide::ToWalk(ready) => ready.walk(cancel, &mut |_| {}).map(NewBook::Walked),
            NewSide::AsLoaded(book) => Ok(NewBook::Loaded(book)),
        });
        let old = old.walk(cancel, control.progress);
        (old, new_walk.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    });
    let walk_error = |book: &Path| {
        let book = book.to_path_buf();
        move |error| RunError::of_walk(&book, error, RunError::interrupted(Left::Nothing))
    };
    let walked = (old.map_err(walk_error(&old_path))?, new.map_err(walk_error(&new_path))?);
    tracing::info!("walked in {:.3} s", secs(stage));
    Ok(walked)
}

/// Compares `old` with `new` and writes the lines to `out`: to a file
/// (from [`diff_path`]) whole, or not at all if the run fails or is
/// interrupted through `control.cancel`; to a stream as they come (the
/// report names it [`STDOUT`]).
pub fn diff(
    old: Book,
    new: Book,
    out: LinesOut<'_>,
    format: &LineStyle,
    mut control: Control<'_>,
) -> Result<DiffReport, DiffError> {
    let began = Instant::now();
    let output = match &out {
        LinesOut::File(path) => path.to_path_buf(),
        LinesOut::Stream(_) => PathBuf::from(STDOUT),
    };
    let output = output.as_path();
    // Messages name standard output in words, the report as `-`.
    let named = match output.as_os_str() == STDOUT {
        true => Path::new(crate::output::STDOUT_NAME),
        false => output,
    };
    let io_error = |source| DiffError::from(RunError::io(named)(source));
    let mut file = match out {
        LinesOut::File(path) => {
            if let Some(dir) = path.parent() {
                ensure_dir(dir).map_err(io_error)?;
            }
            Sink::File(AtomicFile::create_named(path).map_err(io_error)?)
        }
        LinesOut::Stream(stream) => Sink::Stream(stream),
    };
    let (old_path, new_path) = (old.path().to_path_buf(), new.path().to_path_buf());
    let (old_positions, new_positions) = (old.counts().positions, new.counts().positions);
    (control.phase)(Phase::Resolving);
    let stage = Instant::now();
    let matches = matching::match_boards(&old, &new, control.cancel).ok_or(Interrupted)?;
    tracing::info!("{}: boards found in {} in {:.3} s", old_path.display(), new_path.display(), secs(stage));
    // The new book is walked only for the lines of boards the old one lacks.
    let walk_new = matches.matched() < new.counts().positions;
    let (old, new) = walk_both(old, new, walk_new, &mut control)?;
    (control.phase)(Phase::Writing);
    let stage = Instant::now();
    let both = Both { old: &old, new: &new, matches: &matches };
    let counts = lines::write_lines(&both, format, file.writer(), control.cancel).map_err(|failure| match failure {
        SinkFailure::Io(source) => io_error(source),
        SinkFailure::Interrupted(stop) => stop.into(),
        SinkFailure::Own(never) => match never {},
    })?;
    tracing::info!("{}: written in {:.3} s", output.display(), secs(stage));
    for (file, path) in [(old.book().file(), &old_path), (new.file(), &new_path)] {
        if file.changed() {
            return Err(RunError::BookChanged { book: path.clone(), left: Left::Nothing }.into());
        }
    }
    control.cancel.check()?;
    match file {
        Sink::File(file) => file.commit().map_err(io_error)?,
        Sink::Stream(stream) => stream.flush().map_err(io_error)?,
    }
    Ok(DiffReport {
        old: old_path,
        new: new_path,
        output: output.to_path_buf(),
        old_positions,
        new_positions,
        counts,
        elapsed: began.elapsed(),
    })
}

/// What the lines are written to.
enum Sink<'a> {
    File(AtomicFile),
    Stream(&'a mut dyn Write),
}

impl Sink<'_> {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::File(file) => file,
            Sink::Stream(stream) => *stream,
        }
    }
}
