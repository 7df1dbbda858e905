//! The growing book as the one walk reads it ([`crate::walk::Positions`]):
//! the book read's records and the positions added, each under one id —
//! a record's own, and after the last record, the positions added in the
//! order added. Each position reads as a record of its board, level and
//! leaf, and its links over the growing book ([`Store::facts`]), scored by
//! what the run computed below them when the walk goes by scores (a
//! window), and where each leads.
//!
//! Reading cannot fail in the walk: a position that can no longer be read
//! (the book changed under the run) or holds a move that is not legal
//! reads as having no moves, and [`walk_growing`] then gives the error,
//! once the walk is over.

use super::error::GrowingError;
use super::store::{Edge, Flavor, NodeId, Store};
use crate::board::Board;
use crate::book::index::Located;
use crate::book::{Destination, FilePlace, Leaf, Link, Record, RecordId, Score};
use crate::negamax::SCORE_INF;
use crate::record::Details;
use crate::run::Cancel;
use crate::walk::{walk, Arrival, Departure, Positions, Start, Visitor, WalkError, WalkStats, Walkable};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::path::Path;

/// What the run computed below the positions, as the walk scores by it.
pub trait Values {
    /// A position's value.
    fn value(&self, store: &Store<'_>, id: NodeId) -> Score;
    /// The score of a position's link (`edge`).
    fn link_score(&self, store: &Store<'_>, id: NodeId, edge: &Edge) -> Result<Score, GrowingError>;
}

/// The growing book, read by the walk.
pub struct GrowingPositions<'s, 'b> {
    store: &'s Store<'b>,
    /// What the run computed, to score the links by; `None` when the walk
    /// does not go by scores (the negamax's own walk, which computes them).
    values: Option<&'s dyn Values>,
    /// The book read's records: the first id of a position added.
    records: u32,
    /// How many positions the growing book holds.
    ids: u64,
    /// The first position that could not be read, if one could not.
    error: RefCell<Option<GrowingError>>,
}

impl<'s, 'b> GrowingPositions<'s, 'b> {
    /// The growing book as `store` holds it now, its links scored by
    /// `values` if given.
    pub fn new(store: &'s Store<'b>, values: Option<&'s dyn Values>) -> GrowingPositions<'s, 'b> {
        let records = store.book().counts().records;
        GrowingPositions {
            store,
            values,
            // A book holds fewer than 2^32 records (a record number is 32
            // bits), and positions are added one search each.
            records: u32::try_from(records).expect("record ids are 32-bit"),
            ids: records + store.added().len() as u64,
            error: RefCell::new(None),
        }
    }

    pub fn store(&self) -> &'s Store<'b> {
        self.store
    }

    /// Where the walk finds a position.
    pub fn located(&self, id: NodeId) -> Located {
        match id {
            NodeId::Book(at) => at,
            NodeId::Added(k) => Located { id: RecordId(self.records + k), hint: 0 },
        }
    }

    /// The position the walk found at `at`.
    pub fn node(&self, at: Located) -> NodeId {
        match at.id.0.checked_sub(self.records) {
            None => NodeId::Book(at),
            Some(k) => NodeId::Added(k),
        }
    }

    /// The position the walk read as `id` at `offset` (a record's, an
    /// arrival's or a departure's).
    pub fn node_at(&self, id: RecordId, offset: u64) -> NodeId {
        match id.0.checked_sub(self.records) {
            None => NodeId::Book(self.store.book().file().located(id, offset)),
            Some(k) => NodeId::Added(k),
        }
    }

    /// The walk of the growing book over links from `root`, with an empty
    /// line (plies count from `root`).
    pub fn walk_from(self, root: NodeId) -> Walkable<GrowingPositions<'s, 'b>> {
        let start = Start { board: self.store.board(root), line: Vec::new() };
        let at = self.located(root);
        Walkable::over(self, start, at).links_only()
    }

    /// A position's record, as the walk reads it.
    pub fn record_of(&self, id: NodeId) -> Record {
        self.read(self.located(id), &mut Vec::new())
    }

    /// The leaf of a position read as `record`: a record's leaf has a score
    /// without a move too, which the record does not say.
    pub fn leaf(&self, id: NodeId, record: &Record) -> Result<Option<Leaf>, GrowingError> {
        match record.leaf() {
            Some(leaf) => Ok(Some(Leaf::of(leaf))),
            None => self.store.leaf(id),
        }
    }

    /// The error met, if a position could not be read.
    fn check(&self) -> Result<(), GrowingError> {
        match self.error.borrow_mut().take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// The record of a position, its moves' targets appended to `targets`.
    fn record(&self, id: NodeId, at: Located, targets: &mut Vec<Destination>) -> Result<Record, GrowingError> {
        let facts = self.store.facts(id)?;
        let mut links = SmallVec::new();
        for edge in &facts.edges {
            let score = match self.values {
                Some(values) => values.link_score(self.store, id, edge)?,
                None => Score(0),
            };
            links.push(Link { score, mv: edge.mv, then_pass: edge.then_pass });
            targets.push(match edge.child {
                Some(child) => Destination::Child(self.located(child), edge.placement),
                None => Destination::Absent,
            });
        }
        let value = match (self.values, facts.stored) {
            (Some(values), _) => values.value(self.store, id),
            (None, Some(stored)) => stored.value,
            (None, None) => self.store.node(id).map_or(-SCORE_INF, |node| node.solved.value),
        };
        Ok(Record {
            id: at.id,
            offset: self.offset(id),
            board: facts.board,
            value,
            level: facts.level.into(),
            links,
            leaf: facts.leaf.and_then(Leaf::link),
            details: self.details(),
        })
    }

    /// Where a record of the book read starts in its file; 0 for a
    /// position added.
    fn offset(&self, id: NodeId) -> u64 {
        match id {
            NodeId::Book(at) => self.store.book().file().offset(at),
            NodeId::Added(_) => 0,
        }
    }

    /// What only the format of the book grown stores, which the walks of
    /// growth do not read.
    fn details(&self) -> Details {
        match self.store.flavor() {
            Flavor::Edax(_) => Details::Edax { counts: [0; 4], lower: Score(0), upper: Score(0) },
            Flavor::Egaroucid => Details::Egaroucid { n_lines: 0, stored_leaf: None, leaf_level: 0 },
        }
    }

    /// A record with no moves, for a position that could not be read.
    fn unread(&self, at: Located) -> Record {
        let board = Board { player: 0, opponent: 0 };
        let none = -SCORE_INF;
        Record {
            id: at.id,
            offset: 0,
            board,
            value: none,
            level: 0,
            links: SmallVec::new(),
            leaf: None,
            details: self.details(),
        }
    }
}

impl Positions for GrowingPositions<'_, '_> {
    fn ids(&self) -> u64 {
        self.ids
    }

    fn read(&self, at: Located, targets: &mut Vec<Destination>) -> Record {
        let first = targets.len();
        match self.record(self.node(at), at, targets) {
            Ok(record) => record,
            Err(error) => {
                targets.truncate(first);
                self.error.borrow_mut().get_or_insert(error);
                self.unread(at)
            }
        }
    }

    fn prefetch(&self, at: Located) {
        if let NodeId::Book(at) = self.node(at) {
            self.store.book().file().prefetch_offset(self.store.book().file().offset(at));
        }
    }

    fn place(&self, id: RecordId, offset: u64) -> FilePlace {
        self.store.book().file().place(id, offset)
    }

    fn board_at(&self, id: RecordId, offset: u64) -> Board {
        self.store.board(self.node_at(id, offset))
    }
}

/// What ends a walk of the growing book early: a stop asked for (Ctrl-C),
/// with the journal that keeps every answer so far, for the message.
#[derive(Clone, Copy)]
pub struct Stop<'a> {
    pub cancel: Cancel<'a>,
    pub journal: &'a Path,
}

/// Walks the growing book with `visitor`, whose errors are the run's,
/// until `stop` asks it to end; a position that could not be read fails
/// the walk once it is over.
pub fn walk_growing<V: Visitor<Error = GrowingError>>(
    walkable: &Walkable<GrowingPositions<'_, '_>>,
    visitor: V,
    stop: Stop<'_>,
) -> Result<V, GrowingError> {
    let walked = walk(walkable, Stoppable { visitor, stop });
    walkable.positions().check()?;
    match walked {
        Ok((_, stoppable)) => Ok(stoppable.visitor),
        Err(WalkError::Visitor(error)) => Err(error),
        Err(other) => unreachable!("the growing book reads no illegal move: {other}"),
    }
}

/// A visitor that also ends the walk when a stop is asked for.
struct Stoppable<'a, V> {
    visitor: V,
    stop: Stop<'a>,
}

impl<V: Visitor<Error = GrowingError>> Visitor for Stoppable<'_, V> {
    type Error = GrowingError;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), GrowingError> {
        self.visitor.arrive(arrival)
    }

    fn enters(&mut self, child: &Record) -> bool {
        self.visitor.enters(child)
    }

    fn leave(&mut self, departure: &Departure<'_>) -> Result<(), GrowingError> {
        self.visitor.leave(departure)
    }

    fn progress(&mut self, stats: &WalkStats) -> Result<(), GrowingError> {
        self.stop.cancel.check().map_err(GrowingError::interrupted(self.stop.journal))?;
        self.visitor.progress(stats)
    }
}
