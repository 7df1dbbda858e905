//! The depth-first walk over a book's edges (SPEC §2). It reports each arrival
//! to a [`Visitor`] and knows nothing of what the visitor does with it.
//!
//! SPEC §2 keeps a visited flag per (stored position, stored move) and always
//! follows the first unvisited move, so the moves visited at a position are
//! always a prefix of its moves in stored order. A position can only be on the
//! walk's stack once (every move adds a disc, and two passes never follow each
//! other on a legal line), and when its frame is popped every move of it has
//! been followed. So one flag per position, set on the first arrival, says the
//! same thing as the flags per move: the walk keeps a bit per record, and the
//! frame keeps the prefix length.

use crate::board::{Bitboard, Board, Move};
use crate::book::index::{hash_board, Located, PositionIndex};
use crate::book::{Book, BookFile, Link, Record, RecordId, Score};
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
    /// A pass followed the parent's move (an Egaroucid link, SPEC §8): the
    /// child's side to move is the parent's, and the line ends with the pass.
    pub via_pass: bool,
    /// The child's record (stored coordinates).
    pub child: &'a Record,
    /// The child on the walk's own board (the position `line` reaches).
    pub board: Board,
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
    IllegalMove { record: RecordId, offset: u64, stored: Move, actual: Move, board: Board, line: Vec<Move> },
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
                "{record} at byte {offset}: stored move {stored} (played as {actual} {}) is illegal \
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
/// position: all of a position's children are played, normalized and looked
/// up together, so that their cache misses overlap (see [`Walker::look_up`]).
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
    /// The child's record, once looked up, if the book has the child; taken
    /// when the move is followed.
    found: Option<Record>,
}

/// How the walk reached a position, to take it back on the way out.
#[derive(Clone, Copy)]
struct Step {
    mv: Move,
    flipped: Bitboard,
    /// A pass was played after `mv`.
    then_pass: bool,
}

/// A position on the walk's stack. Its moves (links, then the leaf, in the
/// order they are followed) are `Walker::children[first..first + len]`:
/// kept in one array shared by the whole stack, not in the frame, so that
/// pushing a frame copies a few words.
struct Frame {
    record: RecordId,
    offset: u64,
    first: usize,
    len: usize,
    /// How many of the moves have been followed.
    followed: usize,
    arrived_by: Step,
}

/// Which records the walk has stood on: one bit per record, by [`RecordId`].
/// A bit array a hundredth the size of the index stays in cache where the
/// index's entries would not.
struct Visited {
    words: Vec<u64>,
}

impl Visited {
    fn new(records: u64) -> Visited {
        let words = usize::try_from(records.div_ceil(64)).expect("record ids are 32-bit");
        Visited { words: vec![0; words] }
    }

    /// Asks for the word holding a record's bit, to be read a little later.
    fn prefetch(&self, id: RecordId) {
        prefetch_index::prefetch_index(&self.words, id.index() / 64);
    }

    /// Marks a record visited; true if it was not visited before.
    fn insert(&mut self, id: RecordId) -> bool {
        let (word, bit) = (id.index() / 64, 1u64 << (id.index() % 64));
        let first_time = self.words[word] & bit == 0;
        self.words[word] |= bit;
        first_time
    }
}

/// The walk's state: one board, played forward and undone in place.
struct Walker<'b, V> {
    file: &'b BookFile,
    index: &'b PositionIndex,
    visited: Visited,
    visitor: V,
    board: Board,
    line: SmallVec<[Move; 64]>,
    stack: SmallVec<[Frame; 64]>,
    /// The moves of every frame on the stack, the top frame's last.
    children: Vec<Child>,
    stats: WalkStats,
}

/// Walks every edge reachable from `start` once, reporting arrivals to
/// `visitor`.
pub fn walk<V: Visitor>(book: &Book, start: &Start, visitor: V) -> Result<(WalkStats, V), WalkError<V::Error>> {
    let (file, index) = (book.file(), book.index());
    let normalized = normalize(&start.board);
    let Some(root) = file.find(index, &normalized.board) else {
        return Err(WalkError::StartMissing { board: start.board, line: start.line.clone() });
    };
    let root_at = index.located(root);
    let mut walker = Walker {
        file,
        index,
        visited: Visited::new(file.counts().records),
        visitor,
        board: start.board,
        line: start.line.iter().copied().collect(),
        stack: SmallVec::new(),
        children: Vec::new(),
        stats: WalkStats { positions: 1, ..WalkStats::default() },
    };
    walker.visited.insert(root_at.id);
    let record = file.record(index, root_at);
    let no_step = Step { mv: Move::Pass, flipped: 0, then_pass: false };
    walker.enter(&record, normalized.to_original, no_step);
    walker.run()?;
    Ok((walker.stats, walker.visitor))
}

impl<V: Visitor> Walker<'_, V> {
    fn run(&mut self) -> Result<(), WalkError<V::Error>> {
        while let Some(top) = self.stack.last_mut() {
            if top.followed == top.len {
                self.backtrack();
                continue;
            }
            let child = top.first + top.followed;
            top.followed += 1;
            let (record, offset) = (top.record, top.offset);
            self.follow(child, record, offset)?;
        }
        Ok(())
    }

    /// Pushes a frame for the position on the board (`record`, with
    /// `symmetry` mapping its stored moves to the board), its moves played,
    /// normalized and looked up.
    fn enter(&mut self, record: &Record, symmetry: Symmetry, arrived_by: Step) {
        let first = self.add_children(record, symmetry);
        self.push_frame(record, first, arrived_by);
    }

    /// Looks up the moves [`Walker::add_children`] added from `first` on and
    /// pushes the frame that owns them.
    fn push_frame(&mut self, record: &Record, first: usize, arrived_by: Step) {
        self.look_up(first);
        self.stack.push(Frame {
            record: record.id,
            offset: record.offset,
            first,
            len: self.children.len() - first,
            followed: 0,
            arrived_by,
        });
    }

    /// Appends the moves of the position on the board to
    /// [`Walker::children`], each played and normalized and its index group
    /// asked for; returns where they start. The lookups are
    /// [`Walker::look_up`]'s, so that other work can run while the groups
    /// arrive.
    fn add_children(&mut self, record: &Record, symmetry: Symmetry) -> usize {
        let first = self.children.len();
        let (board, index) = (self.board, self.index);
        self.children.extend(record.moves().map(|link| {
            let actual = symmetry.apply_move(link.mv);
            let flipped = board.check_move(actual);
            let mut child_board = board;
            if let Some(f) = flipped {
                child_board.play(actual, f);
                if link.then_pass {
                    child_board.play(Move::Pass, 0);
                }
            }
            let child = normalize(&child_board);
            let hash = hash_board(&child.board);
            index.prefetch(hash);
            Child { link, actual, flipped, symmetry: child.to_original, stored: child.board, hash, found: None }
        }));
        first
    }

    /// Looks up every child from `first` on at once. A lookup reads an index
    /// group and then the board of the record it points to, two cache misses
    /// in a row; made child by child, each as it is followed, a position's
    /// lookups would wait for memory one after the other, and a child followed
    /// after a deep sibling (the leaf, usually) would find its group evicted.
    /// Here the groups were asked for together, the candidate records are
    /// asked for together once the groups are in, the boards are compared,
    /// and the records found are read together (an Egaroucid record's links
    /// are lookups of their own).
    fn look_up(&mut self, first: usize) {
        let (file, index) = (self.file, self.index);
        let children = &mut self.children[first..];
        for child in children.iter().filter(|c| c.flipped.is_some()) {
            file.prefetch_candidate(index, child.hash);
        }
        // The children found (their place in `children`) and where their records are.
        let (mut found, mut places): (SmallVec<[usize; 4]>, SmallVec<[Located; 4]>) = Default::default();
        for (i, child) in children.iter().enumerate().filter(|(_, c)| c.flipped.is_some()) {
            if let Some(place) = file.find_hashed(index, &child.stored, child.hash) {
                let at = index.located(place);
                self.visited.prefetch(at.id);
                found.push(i);
                places.push(at);
            }
        }
        file.records(index, &places, |i, record| children[found[i]].found = Some(record));
    }

    /// Plays a step on the board and the line.
    fn play(&mut self, step: Step) {
        self.board.play(step.mv, step.flipped);
        self.line.push(step.mv);
        if step.then_pass {
            self.board.play(Move::Pass, 0);
            self.line.push(Move::Pass);
        }
    }

    /// Takes a step back: the same XORs, in reverse.
    fn undo(&mut self, step: Step) {
        if step.then_pass {
            self.board.undo(Move::Pass, 0);
            self.line.pop();
        }
        self.board.undo(step.mv, step.flipped);
        self.line.pop();
    }

    /// Pops the top frame, drops its moves and takes back the move that
    /// reached it.
    fn backtrack(&mut self) {
        let frame = self.stack.pop().expect("backtrack with a frame on the stack");
        self.children.truncate(frame.first);
        if !self.stack.is_empty() {
            self.undo(frame.arrived_by);
        }
    }

    /// Follows one move (`children[at]`) of the position on top of the stack
    /// (`parent`, at byte `offset`); on arrival, reports it and enters the
    /// child if it is new.
    fn follow(&mut self, at: usize, parent: RecordId, offset: u64) -> Result<(), WalkError<V::Error>> {
        self.stats.edges += 1;
        if self.stats.edges % PROGRESS_INTERVAL == 0 {
            self.visitor.progress(&self.stats).map_err(WalkError::Visitor)?;
        }
        let child = &mut self.children[at];
        let Some(flipped) = child.flipped else {
            return Err(WalkError::IllegalMove {
                record: parent,
                offset,
                stored: child.link.mv,
                actual: child.actual,
                board: self.board,
                line: self.line.to_vec(),
            });
        };
        let Some(record) = child.found.take() else { return Ok(()) };
        let (link, symmetry) = (child.link, child.symmetry);
        let step = Step { mv: child.actual, flipped, then_pass: link.then_pass };
        self.stats.arrivals += 1;
        let first_time = self.visited.insert(record.id);
        self.play(step);
        // The new position's index groups are on their way while the visitor
        // judges the arrival; the lookups come after.
        let first = first_time.then(|| self.add_children(&record, symmetry));
        let arrival = Arrival {
            line: &self.line,
            parent_score: link.score,
            via_pass: link.then_pass,
            child: &record,
            board: self.board,
            child_symmetry: symmetry,
        };
        self.visitor.arrive(&arrival).map_err(WalkError::Visitor)?;
        match first {
            Some(first) => {
                self.stats.positions += 1;
                self.push_frame(&record, first, step);
            }
            None => self.undo(step),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_visited_once_whatever_its_place_in_the_bit_array() {
        let mut visited = Visited::new(130);
        for id in [0, 63, 64, 127, 128, 129] {
            assert!(visited.insert(RecordId(id)), "record {id}: first visit");
            assert!(!visited.insert(RecordId(id)), "record {id}: second visit");
        }
        for id in [1, 62, 65, 126] {
            assert!(visited.insert(RecordId(id)), "record {id} was not marked by its neighbours");
        }
    }
}
