//! The errors of a growth run: the growing book's own ([`GrowingError`]),
//! and the run's ([`ExtendError`]): the growing book's, the engines' and the
//! journal's as the run says them, and the final negamax's.

use crate::board::Move;
use crate::book::{BookError, RecordId};
use crate::engine::journal::JournalError;
use crate::engine::{scratch, EngineError};
use crate::failure::ErrorKind;
use crate::files::input::OverInput;
use crate::fix::FixError;
use crate::run::{Interrupted, Left, RunError, Stopped};
use std::path::{Path, PathBuf};

/// Why a growth command (`extend`, `grow`, `deepen`, `add`, `new`)
/// failed, or the searches `merge` asks of the engines.
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
    /// A record of the book read that `verify` refuses (a move not legal
    /// on its board, stored twice, a board not normalized), found before
    /// any search, wherever it lies: OUT would hold it.
    #[error("{source}; OUT would hold it, so nothing was searched (`bookminer verify` lists every problem)")]
    Damaged {
        /// The book, its record and the problem.
        #[source]
        source: Box<BookError>,
    },
    /// The growing book could not be read or changed.
    #[error(transparent)]
    Growing(#[from] GrowingError),
    /// The engines could not answer (`crate::engine`).
    #[error(transparent)]
    Engine(EngineError),
    /// The book grown could not be negamaxed and written (`fix`'s error).
    #[error(transparent)]
    Fix(#[from] FixError),
    /// IN could not be made an `.egbk3` book, or the book learned an Edax one (`learn`).
    #[error(transparent)]
    Convert(#[from] crate::convert::ConvertError),
    /// A game file that cannot be read on (`add`).
    #[error(transparent)]
    Games(#[from] crate::games::GamesError),
    /// The book grown does not read back: a fault of bookminer's, not of the book.
    #[error("the book grown does not read back ({read} grown: {source}); please report this")]
    Grown {
        /// The book read, as messages name it.
        read: String,
        /// Why the book grown does not read.
        #[source]
        source: Box<BookError>,
    },
    /// Leaves are to be searched and no engine was given (`fix --link`).
    #[error("{}: {leaves} leaves whose moves became links are to be searched again, and no engine was given: add --engine \"edax -eval-file PATH/eval.dat\" (or the config key engine)", book.display())]
    NeedsEngine {
        /// The book read.
        book: PathBuf,
        /// The leaves to search.
        leaves: u64,
    },
    /// A stop (Ctrl-C): OUT was not written, the journal keeps every answer so far.
    #[error(transparent)]
    Interrupted(#[from] Stopped),
}

/// Why the growing book (the book read where it lies plus what growth
/// changed) could not be read or changed: what its store, its walks, its
/// negamax and its writing fail with, whatever policy grows it.
#[derive(Debug, thiserror::Error)]
pub enum GrowingError {
    /// The book read changed under the run.
    #[error(transparent)]
    Run(#[from] RunError),
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
    /// A stop (Ctrl-C) asked for during a walk of the growing book.
    #[error(transparent)]
    Interrupted(#[from] Stopped),
}

impl GrowingError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            GrowingError::Run(e) => e.kind(),
            GrowingError::IllegalMove { .. } | GrowingError::NoRoomForLink { .. } => ErrorKind::BadInput,
            GrowingError::Interrupted(e) => e.kind(),
        }
    }

    /// The book read changed while it was being read: nothing was written.
    pub fn book_changed(book: &Path) -> GrowingError {
        GrowingError::Run(RunError::BookChanged { book: book.to_path_buf(), left: Left::Nothing })
    }

    /// A stop (Ctrl-C): the journal keeps every answer so far.
    pub fn interrupted(journal: &Path) -> impl Fn(Interrupted) -> GrowingError + '_ {
        let stopped = Stopped::leaving(Left::Journal(journal.to_path_buf()));
        move |stop| GrowingError::Interrupted(stopped(stop))
    }
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
            EngineError::Interrupted(e) => ExtendError::Interrupted(e),
            e => ExtendError::Engine(e),
        }
    }
}

impl ExtendError {
    /// A stop (Ctrl-C): the journal keeps every answer so far.
    pub fn interrupted(journal: &Path) -> impl Fn(Interrupted) -> ExtendError + '_ {
        let stopped = Stopped::leaving(Left::Journal(journal.to_path_buf()));
        move |stop| ExtendError::Interrupted(stopped(stop))
    }

    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ExtendError::OverInput(_)
            | ExtendError::BookIsJournal { .. }
            | ExtendError::NoScratch(_)
            | ExtendError::StartMissing { .. }
            | ExtendError::NeedsEngine { .. } => ErrorKind::BadInput,
            ExtendError::Damaged { source } => source.kind(),
            ExtendError::Growing(e) => e.kind(),
            ExtendError::Run(e) => e.kind(),
            ExtendError::Journal(e) => e.kind(),
            ExtendError::Engine(e) => e.kind(),
            ExtendError::Fix(e) => e.kind(),
            ExtendError::Games(e) => e.kind(),
            ExtendError::Convert(e) => e.kind(),
            ExtendError::Grown { .. } => ErrorKind::Internal,
            ExtendError::Interrupted(e) => e.kind(),
        }
    }

    /// The start `book` does not hold, and where its line leaves the book.
    pub(crate) fn start_missing(book: &Path, missing: crate::walk::StartMissing) -> ExtendError {
        let start = crate::walk::describe_line(&missing.line);
        ExtendError::StartMissing { book: book.to_path_buf(), start, leaves: missing.leaves }
    }

    /// `book`'s first record that `verify` refuses, if any (the book
    /// changed meanwhile said as such).
    pub(crate) fn check_records(book: &crate::book::Book) -> Result<(), ExtendError> {
        crate::book::verify::first_damage(book).map_err(|source| match source {
            BookError::Changed { path } => ExtendError::book_changed(&path),
            source => ExtendError::Damaged { source: Box::new(source) },
        })
    }

    /// The book changed while it was being read: nothing was written.
    pub fn book_changed(book: &Path) -> ExtendError {
        ExtendError::Run(RunError::BookChanged { book: book.to_path_buf(), left: Left::Nothing })
    }
}
