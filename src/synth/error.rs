//! Why a book could not be synthesized.

use crate::failure::{io_kind, ErrorKind};
use crate::run::{Interrupted, Left, Stopped};
use std::io;

/// Why a book could not be synthesized.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// The temporary files that hold the levels and the finished records.
    #[error("temporary files: {0}")]
    Spill(#[source] io::Error),
    /// Writing the book itself.
    #[error(transparent)]
    Write(io::Error),
    /// The run was stopped (Ctrl-C).
    #[error(transparent)]
    Interrupted(Stopped),
    /// Every move of every position was tried and the book is still smaller.
    #[error("only {grown} positions could be grown of the {asked} asked for")]
    TooLarge {
        /// The positions asked for.
        asked: u64,
        /// The positions grown.
        grown: u64,
    },
}

impl SynthError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SynthError::Spill(source) | SynthError::Write(source) => io_kind(source),
            SynthError::Interrupted(e) => e.kind(),
            SynthError::TooLarge { .. } => ErrorKind::BadInput,
        }
    }
}

/// A stop: nothing was written.
impl From<Interrupted> for SynthError {
    fn from(stop: Interrupted) -> SynthError {
        SynthError::Interrupted(Stopped { stop, left: Left::Nothing })
    }
}
