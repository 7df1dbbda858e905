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
use crate::book::index::{hash_board, PositionIndex};
use crate::book::RecordStore;
use crate::book::{Book, Link, Record, Score};
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
    /// The child on the walk's own board: the position `line` reaches.
    pub board: Board,
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

/// A move of a position on the stack, worked out when the walk entered the
/// position: all of a position's children are normalized and their index
/// slots prefetched together, so the lookups, made when each move is
/// followed, find the table in cache.
#[derive(Clone, Copy)]
struct Child {
    link: Link,
    /// The stored move on the actual board.
    actual: Move,
    /// Discs the move turns; `None` if it is illegal (reported when followed).
    flipped: Option<Bitboard>,
    /// Maps the child's stored moves to the actual board.
    symmetry: Symmetry,
    /// The child as the book would store it, and its hash in the index.
    stored: Board,
    hash: u64,
}

/// A position on the walk's stack.
struct Frame {
    offset: u64,
    /// Its moves (links, then the leaf), in the order they are followed.
    children: SmallVec<[Child; 4]>,
    /// How many of `children` have been followed.
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
    /// The last arrival, reported to the visitor only when the walk has
    /// started fetching the next child's record: the visitor's work then
    /// overlaps that fetch. Arrivals still reach the visitor in walk order.
    pending: Option<PendingArrival>,
}

/// An arrival waiting to be reported.
struct PendingArrival {
    line: SmallVec<[Move; 64]>,
    parent_score: Score,
    offset: u64,
    symmetry: Symmetry,
    board: Board,
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
        pending: None,
    };
    let root = walker.frame(root.offset, normalized.to_original, Move::Pass, 0);
    walker.stack.push(root);
    walker.run()?;
    walker.report_pending()?;
    Ok((walker.stats, walker.visitor))
}

impl<V: Visitor> Walker<'_, V> {
    fn run(&mut self) -> Result<(), WalkError<V::Error>> {
        while let Some(top) = self.stack.last_mut() {
            let Some(&child) = top.children.get(top.followed) else {
                self.backtrack();
                continue;
            };
            top.followed += 1;
            let offset = top.offset;
            self.follow(child, offset)?;
        }
        Ok(())
    }

    /// A frame for the position on the board (stored at `offset`, `symmetry`
    /// mapping its stored moves to the board), with every child played,
    /// normalized and its index slot prefetched.
    fn frame(&self, offset: u64, symmetry: Symmetry, arrived_by: Move, flipped: Bitboard) -> Frame {
        let record = self.store.record_at(offset);
        let children: SmallVec<[Child; 4]> = record
            .moves()
            .map(|link| {
                let actual = symmetry.apply_move(link.mv);
                let flipped = self.board.check_move(actual);
                let mut child_board = self.board;
                if let Some(f) = flipped {
                    child_board.play(actual, f);
                }
                let child = normalize(&child_board);
                let hash = hash_board(&child.board);
                self.index.prefetch(hash);
                Child { link, actual, flipped, symmetry: child.to_original, stored: child.board, hash }
            })
            .collect();
        Frame { offset, children, followed: 0, arrived_by, flipped }
    }

    /// Reports the arrival waiting for the visitor, if any.
    fn report_pending(&mut self) -> Result<(), WalkError<V::Error>> {
        let Some(pending) = self.pending.take() else { return Ok(()) };
        let arrival = Arrival {
            line: &pending.line,
            parent_score: pending.parent_score,
            child: self.store.record_at(pending.offset),
            child_symmetry: pending.symmetry,
            board: pending.board,
        };
        self.visitor.arrive(&arrival).map_err(WalkError::Visitor)
    }

    /// Pops the top frame and takes back the move that reached it.
    fn backtrack(&mut self) {
        let frame = self.stack.pop().expect("backtrack with a frame on the stack");
        if !self.stack.is_empty() {
            self.board.undo(frame.arrived_by, frame.flipped);
            self.line.pop();
        }
    }

    /// Follows one move of the position on top of the stack (stored at
    /// `offset`); on arrival, reports it and enters the child if it is new.
    fn follow(&mut self, child: Child, offset: u64) -> Result<(), WalkError<V::Error>> {
        self.stats.edges += 1;
        if self.stats.edges % PROGRESS_INTERVAL == 0 {
            self.visitor.progress(&self.stats).map_err(WalkError::Visitor)?;
        }
        let Some(flipped) = child.flipped else {
            self.report_pending()?;
            return Err(WalkError::IllegalMove {
                record: self.store.record_number(offset),
                offset,
                stored: child.link.mv,
                actual: child.actual,
                board: self.board,
                line: self.line.to_vec(),
            });
        };
        self.index.prefetch_record(self.store, child.hash);
        self.report_pending()?;
        let Some(slot) = self.index.locate_hashed(self.store, &child.stored, child.hash) else { return Ok(()) };
        let visit = self.index.visit_slot(slot);
        self.stats.arrivals += 1;
        self.board.play(child.actual, flipped);
        self.line.push(child.actual);
        let frame = visit.first_time.then(|| self.frame(visit.offset, child.symmetry, child.actual, flipped));
        self.pending = Some(PendingArrival {
            line: self.line.clone(),
            parent_score: child.link.score,
            offset: visit.offset,
            symmetry: child.symmetry,
            board: self.board,
        });
        match frame {
            Some(frame) => {
                self.stats.positions += 1;
                self.stack.push(frame);
            }
            None => {
                self.board.undo(child.actual, flipped);
                self.line.pop();
            }
        }
        Ok(())
    }
}
