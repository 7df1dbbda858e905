//! What can be wrong in a book file, and where: the errors both readers
//! and `verify` give.

use crate::board::{Move, Square};
use std::fmt;

/// What is wrong in a book file, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct FormatError {
    /// 1-based record number, when the problem is in a record.
    pub record: Option<u64>,
    /// Byte offset of the record (or of the header field).
    pub offset: u64,
    /// What is wrong there.
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
    /// The link of this index in the record, from 0.
    Link(usize),
    /// The leaf.
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

/// What is wrong with one of the (score, move) pairs an `.egbk2` record
/// stores. They are no links (docs/formats.md, older Egaroucid books), so nothing reads them; only
/// `verify` looks at them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairFault {
    /// The code is no move (0-63, or 64 for a pass).
    NotAMove,
    /// The move is not legal on the record's board.
    Illegal,
    /// An earlier pair of the record has the same move.
    Repeated,
}

/// Says what is wrong with a pair.
fn pair_fault(code: u8, fault: PairFault) -> String {
    match (fault, Move::from_code(code)) {
        (PairFault::Illegal, Some(mv)) => format!("move {mv} is illegal on this board"),
        (PairFault::Repeated, Some(mv)) => format!("repeats move {mv}"),
        _ => format!("has move code {code}, which is no move (valid: 0-63, 64 pass)"),
    }
}

/// Why a file that starts with neither magic is no `.egbk` either: its size.
fn egbk_size(found: &[u8], len: u64) -> String {
    let Some(count) = found.get(..4) else {
        return format!("{len} bytes is shorter than the 4-byte header of an .egbk");
    };
    let n_boards = i32::from_le_bytes(count.try_into().expect("4 bytes"));
    match u64::try_from(n_boards) {
        Ok(n) => format!("as an .egbk its {n_boards} boards would take {} bytes, not {len}", 4 + 17 * n),
        Err(_) => format!("as an .egbk it would count {n_boards} boards"),
    }
}

/// What an older Egaroucid record's value is, and why it stops the book.
fn unreadable_value(value: i32, raw: Option<u8>) -> String {
    let from = match raw {
        Some(raw) => format!(" (64 minus the stored byte {raw}, which reads as {})", raw as i8),
        None => String::new(),
    };
    format!("value {value}{from} is outside -64..64, which makes the whole book unreadable (as it does for Egaroucid)")
}

fn squares(bits: u64) -> String {
    Square::iter(bits).map(|s| s.to_string()).collect::<Vec<_>>().join(" ")
}

/// The kinds of damage a book can have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The file ends before its header does.
    #[error("file is {len} bytes, shorter than the {needed}-byte header")]
    ShortHeader {
        /// The file's size.
        len: u64,
        /// The header's size.
        needed: u64,
    },
    /// `found`: the file's first bytes (up to 9); `len`: its size, which
    /// is not that of an `.egbk` either.
    #[error(
        "not an Edax or Egaroucid book: starts with {:?}, expected \"XADEKOOB\" (Edax) or \"DICUORAGE\" \
         (Egaroucid .egbk3, .egbk2), and {}",
        String::from_utf8_lossy(found),
        egbk_size(found, *len)
    )]
    BadMagic {
        /// The file's first bytes.
        found: Vec<u8>,
        /// The file's size.
        len: u64,
    },
    /// The header names a version bookminer does not read.
    #[error("book version {found} is not supported (expected {expected})")]
    BadVersion {
        /// The version stored.
        found: u8,
        /// The version read.
        expected: u8,
    },
    /// Version 2 (.egbk2) in a file that does not read as an .egbk2 and has
    /// exactly the size of an .egbk3 of its count.
    #[error(
        "book version {found} announces an .egbk2, but the file does not read as one and has exactly the size of an .egbk3 of its count: an .egbk3 needs version 3"
    )]
    Egbk3Version {
        /// The version stored (2).
        found: u8,
    },
    /// The file ends inside a record.
    #[error("truncated record: needs {needed} bytes, the file has {left} left")]
    Truncated {
        /// The bytes the record needs.
        needed: u64,
        /// The bytes the file has left.
        left: u64,
    },
    /// A move code that names no move.
    #[error("{slot} has move code {code} (valid: 0-63, 64 pass, 65 none)")]
    BadMoveCode {
        /// Which of the record's moves.
        slot: MoveSlot,
        /// The code stored.
        code: u8,
    },
    /// A link whose code says "no move".
    #[error("{slot} has move code 65 (no move), which only a leaf may have")]
    NoMoveLink {
        /// The link.
        slot: MoveSlot,
    },
    /// Squares where both sides have a disc.
    #[error("both sides have a disc on {}", squares(*squares_hit))]
    Overlap {
        /// Those squares.
        squares_hit: u64,
    },
    /// Centre squares with no disc, which no game reaches.
    #[error("centre square {} is empty", squares(*squares_hit))]
    EmptyCentre {
        /// Those squares.
        squares_hit: u64,
    },
    /// A board stored twice.
    #[error("same position as record {first_record} at byte {first_offset}")]
    Duplicate {
        /// The number of the record that stores it first, from 1.
        first_record: u64,
        /// The byte that record starts at.
        first_offset: u64,
    },
    /// A board not stored as the least of its images.
    #[error("board is not in normalized (least symmetric) form")]
    NotNormalized,
    /// A stored move that is not legal on the record's board.
    #[error("{slot} move {mv} is illegal on this board")]
    IllegalMove {
        /// Which of the record's moves.
        slot: MoveSlot,
        /// The move.
        mv: Move,
    },
    /// A move the record stores twice.
    #[error("{slot} repeats move {mv}")]
    RepeatedMove {
        /// The second time it is stored.
        slot: MoveSlot,
        /// The move.
        mv: Move,
    },
    /// The header's count is not the records the file holds.
    #[error("header says {}, the file holds {records}", crate::wording::count(*header, "position", "positions"))]
    CountMismatch {
        /// The count the header stores.
        header: i64,
        /// The records the file holds.
        records: u64,
    },
    /// The book lacks the initial position.
    #[error("the initial position is not in the book")]
    MissingInitial,
    /// A value no game can end with.
    #[error("value {value} is outside -64..64, so the record is not part of the book")]
    ValueOutOfRange {
        /// The value stored.
        value: i32,
    },
    /// More records than a book read can number.
    #[error("the file holds more than {limit} records")]
    TooManyRecords {
        /// The most records a book may hold.
        limit: u64,
    },
    /// An `.egbk2` or `.egbk` value out of range (docs/formats.md, older Egaroucid books); `raw` is the
    /// `.egbk` byte the value was worked out from.
    #[error("{}", unreadable_value(*value, *raw))]
    UnreadableValue {
        /// The value worked out.
        value: i32,
        /// The `.egbk` byte it comes from, if any.
        raw: Option<u8>,
    },
    /// A stored pair of an `.egbk2` record; `pair` counts from 0.
    #[error("stored pair {} {}", pair + 1, pair_fault(*code, *fault))]
    BadPair {
        /// Which pair, from 0.
        pair: usize,
        /// Its move code.
        code: u8,
        /// What is wrong with it.
        fault: PairFault,
    },
    /// An `.egbk2` whose header's count of records ends before the file does.
    /// `counted` as the header has it: below 0 counts no record.
    #[error(
        "the header counts {counted} records{} and they end here, {left} bytes before the end of the file",
        if *counted < 0 { " (none, as Egaroucid reads it)" } else { "" }
    )]
    TrailingBytes {
        /// The header's count.
        counted: i32,
        /// The bytes after the records counted.
        left: u64,
    },
    /// A file read as `.egbk` whose size does not follow from its count.
    #[error("an .egbk of {n_boards} boards takes 4 + 17 × n_boards bytes; the file has {len}")]
    EgbkSize {
        /// The header's count of boards.
        n_boards: i32,
        /// The file's size.
        len: u64,
    },
}
