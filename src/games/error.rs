//! What goes wrong reading a game file: the error a command sees, and the
//! damage a reader finds before the file's name is put to it.

use super::format::GameFormat;
use crate::failure::{io_kind, ErrorKind};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A game file that cannot be read on.
#[derive(Debug, thiserror::Error)]
pub enum GamesError {
    /// The name says no format bookminer reads.
    #[error("{}: not a game file bookminer reads (told by the extension): it reads {}", path.display(), GameFormat::listing())]
    UnknownFormat {
        /// The file, as named.
        path: PathBuf,
    },
    /// What is named is no regular file (a folder, a FIFO, a device): a
    /// bad argument, not a failure to read.
    #[error("{}: {what}, not a game file: name a regular file", path.display())]
    NotAFile {
        /// The path, as named.
        path: PathBuf,
        /// What it is, in a few words.
        what: &'static str,
    },
    #[error("{}: {source}", path.display())]
    /// The file cannot be opened or read.
    Io {
        /// The file.
        path: PathBuf,
        #[source]
        /// Why.
        source: io::Error,
    },
    /// The file is not what its format says from `at` on.
    #[error("{}: {at}: {what}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Where in it.
        at: Where,
        /// What is wrong.
        what: String,
    },
}

impl GamesError {
    /// The kind of failure, which the exit status follows.
    pub fn kind(&self) -> ErrorKind {
        match self {
            GamesError::UnknownFormat { .. } | GamesError::NotAFile { .. } | GamesError::Damaged { .. } => {
                ErrorKind::BadInput
            }
            GamesError::Io { source, .. } => io_kind(source),
        }
    }
}

/// Where in a file something is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Where {
    /// The game, when the file is read game by game.
    pub game: Option<u64>,
    /// The line, in a text file.
    pub line: Option<u64>,
    /// The byte of the file.
    pub byte: u64,
}

impl fmt::Display for Where {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(game) = self.game {
            write!(f, "game {game}, ")?;
        }
        if let Some(line) = self.line {
            write!(f, "line {line}, ")?;
        }
        write!(f, "byte {}", self.byte)
    }
}

/// Damage found by a reader, before the file's name is put to it.
#[derive(Debug)]
pub(super) enum ReadError {
    Io(io::Error),
    Damaged { at: Where, what: String },
}

impl From<io::Error> for ReadError {
    fn from(error: io::Error) -> ReadError {
        ReadError::Io(error)
    }
}

impl ReadError {
    /// The damage, named by the file it is in.
    pub(super) fn at(self, path: &Path) -> GamesError {
        match self {
            ReadError::Io(source) => GamesError::Io { path: path.to_path_buf(), source },
            ReadError::Damaged { at, what } => GamesError::Damaged { path: path.to_path_buf(), at, what },
        }
    }
}
