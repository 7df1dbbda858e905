//! What the book says about one stored position, whatever the file format:
//! the view every consumer (walk, rules, inspect, stats, verify) reads, and
//! what can be wrong in a record ([`problem`]). Below both the formats,
//! whose readers make records, and the book, which holds them.

pub mod problem;

use crate::board::{Board, Move};
pub use crate::score::{Leaf, Score};
use smallvec::SmallVec;
use std::fmt;

/// A record's number: records are numbered densely, 0, 1, 2, … in the order
/// the file stores them. Messages show it counted from 1 ("record 1").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordId(pub(crate) u32);

impl RecordId {
    /// The largest number of records a book may hold: ids are 32-bit.
    pub const MAX_RECORDS: u64 = u32::MAX as u64;

    /// The record numbered `index` from 0.
    pub fn new(index: u32) -> RecordId {
        RecordId(index)
    }

    /// Its number from 0, as an index into a table of records.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The 1-based number messages use.
    pub fn number(self) -> u64 {
        u64::from(self.0) + 1
    }
}

impl fmt::Display for RecordId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record {}", self.number())
    }
}

/// Where a record was read from in its file, as messages name it: its
/// number among the file's records, from 1, and the byte it starts at. For
/// an Edax or `.egbk3` book that is its [`RecordId`] and offset; an older
/// Egaroucid book is read into another layout, with records merged, so its
/// records' places are kept apart (see [`crate::book::BookFile::place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FilePlace {
    /// The record's number in its file, from 1.
    pub number: u64,
    /// The byte of the file it starts at.
    pub offset: u64,
}

impl FilePlace {
    /// The place of a record read where it lies.
    pub fn of(id: RecordId, offset: u64) -> FilePlace {
        FilePlace { number: id.number(), offset }
    }
}

impl fmt::Display for FilePlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record {} at byte {}", self.number, self.offset)
    }
}

/// One move of a record and its score, in the record's stored coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// The score the record stores for the move.
    pub score: Score,
    /// The move, in the record's stored coordinates.
    pub mv: Move,
    /// The move is followed by a pass before its child is reached (an
    /// Egaroucid book stores the position after the pass, docs/formats.md, Egaroucid books). The
    /// child's side to move is then this record's.
    pub then_pass: bool,
}

impl Link {
    /// A move whose child is the position right after it, as Edax stores.
    pub fn new(score: Score, mv: Move) -> Link {
        Link { score, mv, then_pass: false }
    }
}

impl Leaf {
    /// The leaf of a move stored with its score.
    pub fn of(link: Link) -> Leaf {
        Leaf { score: link.score, mv: Some(link.mv) }
    }

    /// Its move and score as a link, if it has a move.
    pub fn link(self) -> Option<Link> {
        self.mv.map(|mv| Link::new(self.score, mv))
    }
}

/// What only one format stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Details {
    /// An Edax record's.
    Edax {
        /// Wins, draws, losses and lines below this position.
        counts: [u32; 4],
        /// The lower bound of its value.
        lower: Score,
        /// The upper bound of its value.
        upper: Score,
    },
    /// An Egaroucid record's.
    Egaroucid {
        /// Its `n_lines` field, as stored.
        n_lines: u32,
        /// The leaf as stored, even when its move is linked (and so is not
        /// the record's [`Record::leaf`]).
        stored_leaf: Option<Link>,
        /// The leaf's level, as stored.
        leaf_level: i8,
    },
}

/// One stored position: the board (normalized), its value and level, its
/// links in the order the walk follows them, then its leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Its number in the book.
    pub id: RecordId,
    /// Where the record starts in the bytes it is read from: the file's,
    /// but for an older Egaroucid book the layout it was translated into.
    /// Messages and `inspect` name [`crate::book::BookFile::place`] instead.
    pub offset: u64,
    /// The position, normalized.
    pub board: Board,
    /// Its value, for the side to move.
    pub value: Score,
    /// The level of the searches it was made with.
    pub level: i32,
    pub(crate) links: SmallVec<[Link; 8]>,
    pub(crate) leaf: Option<Link>,
    /// What only its format stores.
    pub details: Details,
}

impl Record {
    /// The position, normalized.
    pub fn board(&self) -> Board {
        self.board
    }

    /// Its value, for the side to move.
    pub fn value(&self) -> Score {
        self.value
    }

    /// How many links it has.
    pub fn n_links(&self) -> usize {
        self.links.len()
    }

    /// The links in the order the walk follows them.
    pub fn links(&self) -> impl Iterator<Item = Link> + '_ {
        self.links.iter().copied()
    }

    /// The best move not linked, if the book has one.
    pub fn leaf(&self) -> Option<Link> {
        self.leaf
    }

    /// The `i`-th move in walk order (links, then the leaf).
    pub fn move_at(&self, i: usize) -> Option<Link> {
        match i.cmp(&self.links.len()) {
            std::cmp::Ordering::Less => Some(self.links[i]),
            std::cmp::Ordering::Equal => self.leaf,
            std::cmp::Ordering::Greater => None,
        }
    }

    /// Links, then the leaf: the order the walk follows them.
    pub fn moves(&self) -> impl Iterator<Item = Link> + '_ {
        self.links().chain(self.leaf)
    }

    /// The leaf as the file stores it: an Egaroucid record's even when its
    /// move is linked (then it is not [`Record::leaf`]).
    pub fn stored_leaf(&self) -> Option<Link> {
        match self.details {
            Details::Edax { .. } => self.leaf,
            Details::Egaroucid { stored_leaf, .. } => stored_leaf,
        }
    }

    /// The bounds, if the file stores them (Edax's does).
    pub fn bounds(&self) -> Option<(Score, Score)> {
        match self.details {
            Details::Edax { lower, upper, .. } => Some((lower, upper)),
            Details::Egaroucid { .. } => None,
        }
    }

    /// Whether the file stores the links and their scores (Edax's does; an
    /// Egaroucid book's are its legal moves to boards it holds, scored by
    /// their values).
    pub fn stores_links(&self) -> bool {
        match self.details {
            Details::Edax { .. } => true,
            Details::Egaroucid { .. } => false,
        }
    }
}
