//! The depth-first walk over a book's edges (SPEC §2). It reports each arrival
//! to a [`Visitor`] and knows nothing of what the visitor does with it.
//!
//! SPEC §2 keeps a visited flag per (stored position, stored move) and always
//! follows the first unvisited move, so the moves visited at a position are
//! always a prefix of its moves in stored order. A position can only be on the
//! walk's stack once (every move adds a disc, and two passes never follow each
//! other on a legal line), and when its frame is popped every move of it has
//! been followed. So one flag per position, set on the first arrival, says the
//! same thing as the flags per move, and the position index can hold it in the
//! entry the walk looks up anyway; the frame keeps the prefix length.

use crate::board::{Bitboard, Board, Move};
use crate::book::index::{PositionIndex, RecordStore};
use crate::book::{Book, Record, Score};
use crate::symmetry::{normalize, Symmetry};
use smallvec::SmallVec;
use std::fmt;

/// Where a walk starts: a board and the line that reaches it from the initial
/// position (empty for the initial position itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    pub board: Board,
    pub line: Vec<Move>,
}

impl Start {
    pub fn initial() -> Start {
        Start { board: Board::INITIAL, line: Vec::new() }
    }
}

/// One arrival: a move followed from a book position to a child that is in
/// the book too.
pub struct Arrival<'a> {
    /// Moves from the initial position to the child, in the walk's actual
    /// coordinates, passes included; the last one was just played.
    pub line: &'a [Move],
    /// The score the parent's record gives the move just played.
    pub parent_score: Score,
    /// The child's record (stored coordinates).
    pub child: Record<'a>,
    /// Maps the child's stored moves onto the actual board.
    pub child_symmetry: Symmetry,
}

/// Counts of what a walk did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// (position, move) pairs followed, whether or not the child was in the book.
    pub edges: u64,
    /// Edges whose child is in the book.
    pub arrivals: u64,
    /// Distinct positions the walk stood on, the start included.
    pub positions: u64,
}

/// What the walk reports to.
pub trait Visitor {
    type Error;
    /// Called once for every arrival, in walk order.
    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Self::Error>;
    /// Called every [`PROGRESS_INTERVAL`] edges; an error stops the walk.
    fn progress(&mut self, _stats: &WalkStats) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// How many edges pass between calls to [`Visitor::progress`].
pub const PROGRESS_INTERVAL: u64 = 1 << 16;

/// Why a walk stopped early.
#[derive(Debug)]
pub enum WalkError<E> {
    /// The start position (normalized) is not in the book.
    StartMissing { board: Board, line: Vec<Move> },
    /// A stored move is not legal on the board it belongs to.
    IllegalMove { record: u64, offset: u64, stored: Move, actual: Move, board: Board, line: Vec<Move> },
    /// The visitor stopped the walk.
    Visitor(E),
}

impl<E: fmt::Display> fmt::Display for WalkError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kifu = |line: &[Move]| match line {
            [] => "at the initial position".to_string(),
            _ => format!("after \"{}\"", line.iter().map(|m| m.to_string()).collect::<String>()),
        };
        match self {
            WalkError::StartMissing { board, line } => write!(
                f,
                "the start position ({}; player {:#018x}, opponent {:#018x}) is not in the book",
                kifu(line),
                board.player,
                board.opponent
            ),
            WalkError::IllegalMove { record, offset, stored, actual, board, line } => write!(
                f,
                "record {record} at byte {offset}: stored move {stored} (played as {actual} {}) is illegal \
                 on board player {:#018x}, opponent {:#018x}",
                kifu(line),
                board.player,
                board.opponent
            ),
            WalkError::Visitor(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for WalkError<E> {}

/// A position on the walk's stack.
struct Frame {
    offset: u64,
    /// Maps this record's stored moves to the actual board.
    symmetry: Symmetry,
    /// Moves (links, then the leaf) already followed from here.
    followed: usize,
    /// The move that led here and the discs it turned, to undo it on the way back.
    arrived_by: Move,
    flipped: Bitboard,
}

/// The walk's state: one board, played forward and undone in place.
struct Walker<'b, V> {
    store: &'b RecordStore,
    index: &'b mut PositionIndex,
    visitor: V,
    board: Board,
    line: SmallVec<[Move; 64]>,
    stack: SmallVec<[Frame; 64]>,
    stats: WalkStats,
}

/// Walks every edge reachable from `start` once, reporting arrivals to
/// `visitor`. The book's visited flags are cleared first.
pub fn walk<V: Visitor>(book: &mut Book, start: &Start, visitor: V) -> Result<(WalkStats, V), WalkError<V::Error>> {
    let (store, index) = book.parts_mut();
    index.clear_visited();
    let normalized = normalize(&start.board);
    let Some(root) = index.visit(store, &normalized.board) else {
        return Err(WalkError::StartMissing { board: start.board, line: start.line.clone() });
    };
    let mut walker = Walker {
        store,
        index,
        visitor,
        board: start.board,
        line: start.line.iter().copied().collect(),
        stack: SmallVec::new(),
        stats: WalkStats { positions: 1, ..WalkStats::default() },
    };
    walker.stack.push(Frame {
        offset: root.offset,
        symmetry: normalized.to_original,
        followed: 0,
        arrived_by: Move::Pass,
        flipped: 0,
    });
    walker.run()?;
    Ok((walker.stats, walker.visitor))
}

impl<V: Visitor> Walker<'_, V> {
    fn run(&mut self) -> Result<(), WalkError<V::Error>> {
        while let Some(top) = self.stack.last_mut() {
            let record = self.store.record_at(top.offset);
            let Some(link) = record.move_at(top.followed) else {
                self.backtrack();
                continue;
            };
            top.followed += 1;
            let (symmetry, offset) = (top.symmetry, top.offset);
            self.follow(link, symmetry, offset)?;
        }
        Ok(())
    }

    /// Pops the top frame and takes back the move that reached it.
    fn backtrack(&mut self) {
        let frame = self.stack.pop().expect("backtrack with a frame on the stack");
        if !self.stack.is_empty() {
            self.board.undo(frame.arrived_by, frame.flipped);
            self.line.pop();
        }
    }

    /// Plays one stored move; on arrival, reports it and descends if the child
    /// is new, else takes the move back.
    fn follow(&mut self, link: crate::book::Link, symmetry: Symmetry, offset: u64) -> Result<(), WalkError<V::Error>> {
        self.stats.edges += 1;
        if self.stats.edges % PROGRESS_INTERVAL == 0 {
            self.visitor.progress(&self.stats).map_err(WalkError::Visitor)?;
        }
        let actual = symmetry.apply_move(link.mv);
        let Some(flipped) = self.board.check_move(actual) else {
            return Err(WalkError::IllegalMove {
                record: self.store.record_number(offset),
                offset,
                stored: link.mv,
                actual,
                board: self.board,
                line: self.line.to_vec(),
            });
        };
        self.board.play(actual, flipped);
        let child = normalize(&self.board);
        let Some(visit) = self.index.visit(self.store, &child.board) else {
            self.board.undo(actual, flipped);
            return Ok(());
        };
        self.stats.arrivals += 1;
        self.line.push(actual);
        let arrival = Arrival {
            line: &self.line,
            parent_score: link.score,
            child: self.store.record_at(visit.offset),
            child_symmetry: child.to_original,
        };
        self.visitor.arrive(&arrival).map_err(WalkError::Visitor)?;
        if visit.first_time {
            self.stats.positions += 1;
            self.stack.push(Frame {
                offset: visit.offset,
                symmetry: child.to_original,
                followed: 0,
                arrived_by: actual,
                flipped,
            });
        } else {
            self.board.undo(actual, flipped);
            self.line.pop();
        }
        Ok(())
    }
}
