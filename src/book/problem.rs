//! What can be wrong in a book file, and where: the errors both readers and
//! `verify` give.

use crate::board::{Move, Square};
use std::fmt;
use std::path::PathBuf;

/// A book that cannot be used, with the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: {error}", path.display())]
    Format {
        path: PathBuf,
        #[source]
        error: FormatError,
    },
    /// The file shrank or was rewritten while it was mapped.
    #[error("{}: the book changed while it was being read (another program rewrote it?); nothing was written", path.display())]
    Changed { path: PathBuf },
}

/// What is wrong in a book file, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct FormatError {
    /// 1-based record number, when the problem is in a record.
    pub record: Option<u64>,
    /// Byte offset of the record (or of the header field).
    pub offset: u64,
    pub problem: Problem,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.record {
            Some(n) => write!(f, "record {n} at byte {}: {}", self.offset, self.problem),
            None => write!(f, "byte {}: {}", self.offset, self.problem),
        }
    }
}

/// Which move of a record a problem is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveSlot {
    Link(usize),
    Leaf,
}

impl fmt::Display for MoveSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveSlot::Link(i) => write!(f, "link {}", i + 1),
            MoveSlot::Leaf => f.write_str("leaf"),
        }
    }
}

fn squares(bits: u64) -> String {
    Square::iter(bits).map(|s| s.to_string()).collect::<Vec<_>>().join(" ")
}

/// The kinds of damage a book can have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("file is {len} bytes, shorter than the {needed}-byte header")]
    ShortHeader { len: u64, needed: u64 },
    #[error(
        "not an Edax or Egaroucid book: starts with {:?}, expected \"XADEKOOB\" (Edax) or \"DICUORAGE\" (Egaroucid)",
        String::from_utf8_lossy(found)
    )]
    BadMagic { found: Vec<u8> },
    #[error("book version {found} is not supported (expected {expected})")]
    BadVersion { found: u8, expected: u8 },
    #[error("truncated record: needs {needed} bytes, the file has {left} left")]
    Truncated { needed: u64, left: u64 },
    #[error("{slot} has move code {code} (valid: 0-63, 64 pass, 65 none)")]
    BadMoveCode { slot: MoveSlot, code: u8 },
    #[error("{slot} has move code 65 (no move), which only a leaf may have")]
    NoMoveLink { slot: MoveSlot },
    #[error("both sides have a disc on {}", squares(*squares_hit))]
    Overlap { squares_hit: u64 },
    #[error("centre square {} is empty", squares(*squares_hit))]
    EmptyCentre { squares_hit: u64 },
    #[error("same position as record {first_record} at byte {first_offset}")]
    Duplicate { first_record: u64, first_offset: u64 },
    #[error("board is not in normalized (least symmetric) form")]
    NotNormalized,
    #[error("{slot} move {mv} is illegal on this board")]
    IllegalMove { slot: MoveSlot, mv: Move },
    #[error("{slot} repeats move {mv}")]
    RepeatedMove { slot: MoveSlot, mv: Move },
    #[error("header says {header} positions, the file holds {records}")]
    CountMismatch { header: i64, records: u64 },
    #[error("the initial position is not in the book")]
    MissingInitial,
    #[error("value {value} is outside -64..64, so the record is not part of the book")]
    ValueOutOfRange { value: i32 },
    #[error("the file holds more than {limit} records")]
    TooManyRecords { limit: u64 },
}
