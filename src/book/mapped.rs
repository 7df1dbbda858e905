//! A book's bytes: the file memory-mapped (or owned, for books built in
//! memory). The `unsafe` that mapping needs lives here and nowhere else.

use super::problem::BookError;
use std::fs::File;
use std::path::Path;

/// The bytes of a book: mapped from a file, or owned (books built in memory).
pub enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

/// Below this size a file is read rather than mapped (an empty file cannot
/// be mapped at all, and a header alone gains nothing from it).
const MAP_FROM: u64 = 64;

impl Bytes {
    fn map(file: &File) -> std::io::Result<Bytes> {
        // SAFETY: the map is read-only and lives as long as the `Bytes`.
        // Every access goes through bounds-checked slices of the mapped
        // length. If another program truncates the file while it is mapped,
        // reads past the new end fault (SIGBUS).
        let map = unsafe { memmap2::MmapOptions::new().populate().map(file)? };
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::WillNeed);
        Ok(Bytes::Mapped(map))
    }

    /// Maps a book file (reads it, when very short), naming the file in errors.
    pub fn open(path: &Path) -> Result<Bytes, BookError> {
        let io = |source| BookError::Io { path: path.to_path_buf(), source };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len < MAP_FROM {
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
