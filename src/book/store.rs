//! A book's bytes, memory-mapped (or owned, for books built in memory), and
//! its records read in place from them.

use super::format::{self, FormatError, Header, Record};
use crate::board::Board;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};

/// A book file that cannot be used, with the file it is about.
#[derive(Debug)]
pub enum BookError {
    Io { path: PathBuf, source: std::io::Error },
    Format { path: PathBuf, error: FormatError },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            BookError::Format { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for BookError {}

/// The bytes of a book: mapped from a file, or owned (books built in memory).
pub enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Bytes {
    fn map(file: &File) -> std::io::Result<Bytes> {
        // SAFETY: the map is read-only and lives as long as the `Book`. If another
        // process truncates the file while it is mapped, reads past the new end
        // fault (SIGBUS); that is the documented cost of mapping, accepted
        // because books are large and this tool only reads them. Every access
        // goes through bounds-checked slices of the mapped length.
        let map = unsafe { memmap2::MmapOptions::new().populate().map(file)? };
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::WillNeed);
        Ok(Bytes::Mapped(map))
    }

    /// Maps a book file (reads it, when too short to map), naming the file in errors.
    pub fn open(path: &Path) -> Result<Bytes, BookError> {
        let io = |source| BookError::Io { path: path.to_path_buf(), source };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len < format::HEADER_LEN as u64 {
            // Too short to map usefully (an empty file cannot be mapped at all).
            return std::fs::read(path).map(Bytes::Owned).map_err(io);
        }
        Bytes::map(&file).map_err(io)
    }

    pub fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(vec) => vec,
        }
    }
}

/// Sizes read off the records while loading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BookCounts {
    pub positions: u64,
    pub links: u64,
    pub leaves: u64,
}

/// The file's bytes and header: records are read from here in place.
pub struct RecordStore {
    path: PathBuf,
    bytes: Bytes,
    header: Header,
    counts: BookCounts,
}

impl RecordStore {
    /// A store over checked bytes: the header parsed and every record whole.
    pub(super) fn new(path: PathBuf, bytes: Bytes, header: Header, counts: BookCounts) -> RecordStore {
        RecordStore { path, bytes, header, counts }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn counts(&self) -> BookCounts {
        self.counts
    }

    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// The record at an offset the index holds.
    pub fn record_at(&self, offset: u64) -> Record<'_> {
        format::next_record(self.bytes(), offset as usize).expect("the index holds offsets of whole records")
    }

    /// The board of the record at `offset`, without reading the rest of it.
    #[inline]
    pub(super) fn board_at(&self, offset: u64) -> Board {
        let at = offset as usize;
        let bytes = &self.bytes()[at..at + 16];
        Board::new(
            u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes")),
        )
    }

    /// The 1-based number of the record at `offset`, found by scanning: for
    /// error messages only.
    pub fn record_number(&self, offset: u64) -> u64 {
        format::records(self.bytes())
            .filter_map(Result::ok)
            .find(|&(_, at, _)| at as u64 == offset)
            .map_or(0, |(n, _, _)| n)
    }
}
