//! A growth run's error ([`GrowthError`]): the growing book's, the
//! engines' and the journal's as the run says them, and the final negamax's.

use crate::book::BookError;
use crate::engine::journal::JournalError;
use crate::engine::{scratch, EngineError};
use crate::failure::ErrorKind;
use crate::files::input::OverInput;
use crate::fix::FixError;
use crate::growth::growing::error::GrowingError;
use crate::run::{Interrupted, Left, RunError, Stopped};
use std::path::{Path, PathBuf};

/// Why a growth command (`extend`, `grow`, `deepen`, `add`, `new`)
/// failed, or the searches `merge` asks of the engines.
#[derive(Debug, thiserror::Error)]
pub enum GrowthError {
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

/// The engines' error as the run's: a stop or a file's failure as every
/// run says them, the rest as the engines say it.
impl From<EngineError> for GrowthError {
    fn from(error: EngineError) -> GrowthError {
        match error {
            EngineError::Journal(e) => GrowthError::Journal(e),
            EngineError::Run(e) => GrowthError::Run(e),
            EngineError::Interrupted(e) => GrowthError::Interrupted(e),
            e => GrowthError::Engine(e),
        }
    }
}

impl GrowthError {
    /// A stop (Ctrl-C): the journal keeps every answer so far.
    pub fn interrupted(journal: &Path) -> impl Fn(Interrupted) -> GrowthError + '_ {
        let stopped = Stopped::leaving(Left::Journal(journal.to_path_buf()));
        move |stop| GrowthError::Interrupted(stopped(stop))
    }

    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            GrowthError::OverInput(_)
            | GrowthError::BookIsJournal { .. }
            | GrowthError::NoScratch(_)
            | GrowthError::StartMissing { .. }
            | GrowthError::NeedsEngine { .. } => ErrorKind::BadInput,
            GrowthError::Damaged { source } => source.kind(),
            GrowthError::Growing(e) => e.kind(),
            GrowthError::Run(e) => e.kind(),
            GrowthError::Journal(e) => e.kind(),
            GrowthError::Engine(e) => e.kind(),
            GrowthError::Fix(e) => e.kind(),
            GrowthError::Games(e) => e.kind(),
            GrowthError::Convert(e) => e.kind(),
            GrowthError::Grown { .. } => ErrorKind::Internal,
            GrowthError::Interrupted(e) => e.kind(),
        }
    }

    /// The start `book` does not hold, and where its line leaves the book.
    pub(crate) fn start_missing(book: &Path, missing: crate::walk::StartMissing) -> GrowthError {
        let start = crate::walk::describe_line(&missing.line);
        GrowthError::StartMissing { book: book.to_path_buf(), start, leaves: missing.leaves }
    }

    /// `book`'s first record that `verify` refuses, if any (the book
    /// changed meanwhile said as such).
    pub(crate) fn check_records(book: &crate::book::Book) -> Result<(), GrowthError> {
        crate::book::verify::first_damage(book).map_err(|source| match source {
            BookError::Changed { path } => GrowthError::book_changed(&path),
            source => GrowthError::Damaged { source: Box::new(source) },
        })
    }

    /// The book changed while it was being read: nothing was written.
    pub fn book_changed(book: &Path) -> GrowthError {
        GrowthError::Run(RunError::BookChanged { book: book.to_path_buf(), left: Left::Nothing })
    }
}
