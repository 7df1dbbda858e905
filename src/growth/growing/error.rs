//! The growing book's errors ([`GrowingError`]): why it could not be read
//! or changed, whatever policy grows it.

use crate::board::Move;
use crate::book::RecordId;
use crate::failure::ErrorKind;
use crate::run::{Interrupted, Left, RunError, Stopped};
use std::path::{Path, PathBuf};

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
