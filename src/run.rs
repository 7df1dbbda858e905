//! Running a command: the hooks every long run is given ([`Control`]: a
//! flag that stops it, its stages, how far each has come), the one way a run learns
//! it was asked to stop ([`Cancel`]), the stop itself ([`Interrupted`]) and how it is
//! said ([`Stopped`]), and the failures every walking command shares ([`RunError`]).

use crate::failure::{io_kind, ErrorKind};
use crate::files::input::OverInput;
use crate::walk::{StartMissing, WalkError, WalkStats};
use std::convert::Infallible;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The run was stopped (Ctrl-C) before it was done: the one stop, which
/// every command's error says as a [`Stopped`] (what it left).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// Whether a stop was asked: the one way every part of a run learns it,
/// a borrowed view of the run's flag (set by Ctrl-C, or by a test), copied
/// freely to the threads and loops that look. A look is a relaxed load, so
/// hot loops may look often.
#[derive(Clone, Copy, Debug)]
pub struct Cancel<'a> {
    /// The run's flag.
    run: &'a AtomicBool,
    /// A part of the run that halts on its own, as the engines' fleet does
    /// when it gives up or is dropped: its workers stop for either flag.
    part: Option<&'a AtomicBool>,
}

impl<'a> Cancel<'a> {
    /// A view of `flag`, the run's, where it is made (Ctrl-C's handler,
    /// a test).
    pub fn new(flag: &'a AtomicBool) -> Cancel<'a> {
        Cancel { run: flag, part: None }
    }

    /// This stop, or `part`'s halt: what the workers of a part that halts
    /// on its own (the engines' fleet) look at while they wait.
    pub fn or(self, part: &'a AtomicBool) -> Cancel<'a> {
        debug_assert!(self.part.is_none(), "a stop has one part's halt at most");
        Cancel { run: self.run, part: Some(part) }
    }

    /// Whether a stop was asked.
    pub fn is_set(self) -> bool {
        self.run.load(Ordering::Relaxed) || self.part.is_some_and(|part| part.load(Ordering::Relaxed))
    }

    /// [`Interrupted`] once a stop was asked.
    pub fn check(self) -> Result<(), Interrupted> {
        match self.is_set() {
            true => Err(Interrupted),
            false => Ok(()),
        }
    }
}

/// A stage of a run long enough to be shown while it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Every stored move is resolved to the record it leads to
    /// ([`crate::Book::resolve`]): seconds on a large book, with nothing to count.
    Resolving,
    /// The walk, which [`Progress::Walked`] then reports on.
    Walking,
    /// The walk is done; what it found is finished and every file is
    /// written out to disk before any is renamed into place.
    Writing,
    /// A stage of `total` steps, named as a user reads it (`synth`'s
    /// "growing positions"), counted by [`Progress::Counted`].
    Counting {
        /// The stage's name.
        what: &'static str,
        /// Its steps.
        total: u64,
    },
    /// A round of `extend`: its candidates, and the searches of their
    /// leaves, counted by [`Progress::Counted`].
    Round {
        /// The round's number, from 1.
        round: u32,
        /// Its candidates.
        candidates: usize,
        /// The searches it asks.
        searches: usize,
    },
    /// `merge`'s searches of its stale leaves, counted by [`Progress::Counted`].
    StaleLeaves {
        /// The searches asked.
        searches: usize,
    },
    /// `grow`'s best-first growth, which [`Progress::Grown`] reports on.
    Growing,
    /// `add`'s games, `games` of them to read (games and games passed
    /// over), which [`Progress::Added`] reports on.
    Adding {
        /// The games to read, in all the files.
        games: u64,
    },
    /// `deepen`'s leaves searched again, `records` of them at most,
    /// counted by [`Progress::Counted`].
    Deepening {
        /// The records to deepen, at most.
        records: usize,
    },
}

/// How far the stage under way has come: what a run's progress hook hears.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Progress<'s> {
    /// The walk's counts ([`Phase::Walking`]).
    Walked(&'s WalkStats),
    /// Steps of a counted stage done ([`Phase::Counting`], [`Phase::Round`],
    /// [`Phase::StaleLeaves`], [`Phase::Deepening`]).
    Counted(u64),
    /// Where `grow` is ([`Phase::Growing`]): positions added, searches by
    /// the engines, the largest priority expanded (how far the growth has
    /// come) and, with a budget, how much of it is spent (0 to 1).
    Grown {
        /// Positions added.
        added: u64,
        /// Searches by the engines.
        searched: u64,
        /// The largest priority expanded.
        reached: Option<f64>,
        /// The share of the budget spent (0 to 1), with a budget.
        spent: Option<f64>,
    },
    /// Where `add` is ([`Phase::Adding`]): games read and added (or passed
    /// over), positions added, and searches answered of those asked, which
    /// move within a game (a batch of games is searched before its
    /// positions are added).
    Added {
        /// Games done: read and their positions added, or passed over.
        games: u64,
        /// Positions added.
        added: u64,
        /// Searches answered, by the engines or the journal.
        searched: u64,
        /// Searches asked so far: those answered and those under way.
        searches: u64,
    },
    /// What is left to `grow`: the least priority of the frontier (none
    /// left: `None`) and, with `max_priority`, how many frontier positions
    /// are at or under it, as last counted.
    Left {
        /// The least priority of the frontier; none when it is empty.
        least: Option<f64>,
        /// The frontier positions at or under `max_priority`, with one.
        at_most: Option<u64>,
    },
    /// The share of the engines' time spent searching so far (0 to 1).
    EnginesBusy(f64),
}

/// Hooks for a long run, every command's alike: a flag that stops it
/// (Ctrl-C), the stage it is in, and how far that stage has come.
pub struct Control<'a> {
    /// Set when the run is asked to stop (Ctrl-C).
    pub cancel: Cancel<'a>,
    /// Told as each stage starts, before anything is logged about it.
    pub phase: &'a mut dyn FnMut(Phase),
    /// Told how far the stage under way has come.
    pub progress: &'a mut dyn FnMut(Progress<'_>),
}

impl Control<'_> {
    /// Whether the run was asked to stop.
    pub fn interrupted(&self) -> bool {
        self.cancel.is_set()
    }

    /// The same hooks, lent to a part of the run (a `convert` or `fix`
    /// inside another command) and given back when it is done.
    pub fn reborrow(&mut self) -> Control<'_> {
        Control { cancel: self.cancel, phase: &mut *self.phase, progress: &mut *self.progress }
    }

    /// Tells the stage starting.
    pub fn phase(&mut self, phase: Phase) {
        (self.phase)(phase)
    }

    /// A walk's progress report: stops the walk when the run was asked to,
    /// else passes the counts on.
    pub fn walked(&mut self, stats: &WalkStats) -> Result<(), Interrupted> {
        walked(self.cancel, self.progress, stats)
    }

    /// `done` steps of the counted stage under way are done.
    pub fn counted(&mut self, done: u64) {
        (self.progress)(Progress::Counted(done))
    }

    /// The engines have spent this share of their time searching (0 to 1).
    pub fn engines_busy(&mut self, share: f64) {
        (self.progress)(Progress::EnginesBusy(share))
    }
}

/// A walk's progress report to a cancel flag and a progress hook held apart
/// (a walk on another thread than its run's [`Control`]): stops the walk
/// when the run was asked to, else passes the counts on.
pub fn walked(
    cancel: Cancel<'_>,
    progress: &mut dyn FnMut(Progress<'_>),
    stats: &WalkStats,
) -> Result<(), Interrupted> {
    cancel.check()?;
    progress(Progress::Walked(stats));
    Ok(())
}

/// What a failed run says it left as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Left {
    /// Mining: the files of an earlier run stay as they were.
    Outputs,
    /// A command that writes new files: none appeared.
    Nothing,
    /// A run that searches with engines (growth, `merge`'s stale leaves):
    /// its journal, here, keeps every answer so far; OUT did not appear.
    Journal(PathBuf),
}

impl fmt::Display for Left {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Left::Outputs => f.write_str("no output file was changed"),
            Left::Nothing => f.write_str("nothing was written"),
            Left::Journal(journal) => {
                write!(f, "the journal {} keeps every answer so far, OUT was not written", journal.display())
            }
        }
    }
}

/// A run stopped (Ctrl-C), and what it left as it was: what every layer's
/// error holds for a stop, so that a stop is said in one way, wherever it
/// was met, and has one kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{stop}; {left}")]
pub struct Stopped {
    /// The stop.
    pub stop: Interrupted,
    /// What the run left as it was.
    pub left: Left,
}

impl Stopped {
    /// A stop of a run that leaves `left` as it was.
    pub fn leaving(left: Left) -> impl Fn(Interrupted) -> Stopped {
        move |stop| Stopped { stop, left: left.clone() }
    }

    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::Interrupted
    }
}

/// How a walking command (mine, convert, cut, fix, diff) fails beside the
/// failures of its own.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The book cannot be walked: its start is missing, or a stored move is illegal.
    #[error("{}: {error}", book.display())]
    Walk {
        /// The book walked.
        book: PathBuf,
        /// Why the walk stopped.
        #[source]
        error: WalkError<Infallible>,
    },
    /// The run was stopped (Ctrl-C).
    #[error(transparent)]
    Interrupted(#[from] Stopped),
    /// The book file changed while it was being read: nothing read can be trusted.
    #[error("{}: the book changed while it was being read (rewritten by another program?); {left}", book.display())]
    BookChanged {
        /// The book.
        book: PathBuf,
        /// What the run left as it was.
        left: Left,
    },
    /// An output is, by some path, the book being read (mining's files):
    /// writing it would destroy the book.
    #[error(transparent)]
    OverInput(#[from] OverInput),
    /// Two outputs are one file by some path (a link in the output folder):
    /// one would be lost to the other, and the run would say both were written.
    #[error("{}: is also {}, another output of this run; name another out_dir", second.display(), first.display())]
    OneFile {
        /// The output named first.
        first: PathBuf,
        /// The output that is the same file.
        second: PathBuf,
    },
    /// A part of the run stopped without saying why: bookminer's own fault.
    #[error("{what}; {left}; please report this")]
    Internal {
        /// The part that stopped.
        what: &'static str,
        /// What the run left as it was.
        left: Left,
    },
}

impl RunError {
    /// A stop (Ctrl-C), saying what the run left as it was.
    pub fn interrupted(left: Left) -> impl Fn(Interrupted) -> RunError {
        let stopped = Stopped::leaving(left);
        move |stop| RunError::Interrupted(stopped(stop))
    }

    /// An I/O failure on `path`.
    pub fn io(path: &Path) -> impl FnOnce(io::Error) -> RunError + '_ {
        move |source| RunError::Io { path: path.to_path_buf(), source }
    }

    /// A walk of `book` whose start is not in it.
    pub fn start_missing(book: &Path) -> impl FnOnce(StartMissing) -> RunError + '_ {
        move |missing| RunError::Walk { book: book.to_path_buf(), error: missing.into() }
    }

    /// Why a walk of `book` stopped early: the visitor's reason, made a
    /// run error by `visitor`, or the book's.
    pub fn of_walk<E>(book: &Path, error: WalkError<E>, visitor: impl FnOnce(E) -> RunError) -> RunError {
        let error = match error {
            WalkError::Visitor(reason) => return visitor(reason),
            WalkError::StartMissing(missing) => WalkError::StartMissing(missing),
            WalkError::IllegalMove { place, stored, actual, board, line } => {
                WalkError::IllegalMove { place, stored, actual, board, line }
            }
        };
        RunError::Walk { book: book.to_path_buf(), error }
    }

    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            RunError::Io { source, .. } => io_kind(source),
            RunError::Walk { .. } | RunError::OverInput(_) | RunError::OneFile { .. } => ErrorKind::BadInput,
            RunError::Interrupted(e) => e.kind(),
            RunError::BookChanged { .. } => ErrorKind::BookChanged,
            RunError::Internal { .. } => ErrorKind::Internal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_flag_stops_the_run_and_an_unset_one_does_not() {
        let flag = AtomicBool::new(false);
        let cancel = Cancel::new(&flag);
        assert_eq!(cancel.check(), Ok(()));
        assert!(!cancel.is_set());
        flag.store(true, Ordering::Relaxed);
        assert_eq!(cancel.check(), Err(Interrupted));
        assert!(cancel.is_set());
    }

    #[test]
    fn a_part_that_halts_stops_its_workers_but_not_the_run() {
        let (run, halt) = (AtomicBool::new(false), AtomicBool::new(false));
        let cancel = Cancel::new(&run);
        let workers = cancel.or(&halt);
        assert!(!workers.is_set());
        halt.store(true, Ordering::Relaxed);
        assert!(workers.is_set() && !cancel.is_set());
        assert_eq!(workers.check(), Err(Interrupted));
        let (run, halt) = (AtomicBool::new(true), AtomicBool::new(false));
        assert!(Cancel::new(&run).or(&halt).is_set());
    }
}
