//! A book that cannot be used: the file it is about, and why (the
//! problems of its records are [`crate::record::problem`]'s).

use crate::failure::{io_kind, ErrorKind};
use crate::os::OsError;
use crate::record::problem::FormatError;
use std::path::PathBuf;
/// A book that cannot be used, with the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file cannot be opened, read or mapped.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a book of a format bookminer reads, or is damaged.
    #[error("{}: {error}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        #[source]
        error: FormatError,
    },
    /// The file shrank or was rewritten while it was mapped.
    #[error("{}: the book changed while it was being read (another program rewrote it?); nothing was written", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
    },
}

impl BookError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            BookError::Io { source, .. } => io_kind(source),
            BookError::Format { .. } => ErrorKind::BadInput,
            BookError::Changed { .. } => ErrorKind::BookChanged,
        }
    }
}

/// The OS layer's failure to open or map a book, named by its path.
impl From<OsError> for BookError {
    fn from(OsError { path, source }: OsError) -> BookError {
        BookError::Io { path, source }
    }
}
