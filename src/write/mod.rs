//! Writing books: the file a book is written into, which appears complete
//! or not at all and is never the book being read (docs/formats.md,
//! writing books). The records and headers are encoded by each format
//! ([`crate::format`]); the order a book is written in, when a walk gives
//! it, is [`order`]'s, and many records are written through [`pipeline`].

pub mod order;
pub mod pipeline;

use crate::failure::{io_kind, ErrorKind};
use crate::files::input::{OverInput, Writer};
use crate::files::{AtomicFile, FinishedFile};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why a book could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The output is the input, by some path: writing would destroy the
    /// book being read.
    #[error(transparent)]
    OverInput(#[from] OverInput),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl WriteError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            WriteError::OverInput(_) => ErrorKind::BadInput,
            WriteError::Io { source, .. } => io_kind(source),
        }
    }
}

/// A book being written: a header whose counts are filled in last, then
/// records.
pub struct BookOut {
    file: AtomicFile,
    records: u64,
}

impl BookOut {
    /// Starts writing `out` beside its final name, refusing the file the
    /// book is read from; `header_len` bytes are kept for the header.
    pub fn create(out: &Path, input: &Path, header_len: usize) -> Result<BookOut, WriteError> {
        let io = |source| WriteError::Io { path: out.to_path_buf(), source };
        if let Some(over) = OverInput::find(input, &[out], Writer::Book).map_err(io)? {
            return Err(over.into());
        }
        // OUT's folder is made if missing, by every command that writes a book.
        crate::files::ensure_dir(crate::files::folder_of(out)).map_err(io)?;
        let mut file = AtomicFile::create_named(out).map_err(io)?;
        file.write_all(&vec![0; header_len]).map_err(io)?;
        Ok(BookOut { file, records: 0 })
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Appends the bytes of `records` records.
    pub fn records_bytes(&mut self, bytes: &[u8], records: u64) -> Result<(), WriteError> {
        self.records += records;
        self.file.write_all(bytes).map_err(|source| WriteError::Io { path: self.file.path().to_path_buf(), source })
    }

    /// Writes the header over the room kept for it and the file out to
    /// disk, not yet under its final name.
    pub fn finish(mut self, header: &[u8]) -> Result<FinishedFile, WriteError> {
        let path = self.file.path().to_path_buf();
        self.file.write_start(header).map_err(|source| WriteError::Io { path: path.clone(), source })?;
        self.file.finish().map_err(|source| WriteError::Io { path, source })
    }
}
