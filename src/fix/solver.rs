//! The solving thread: it replays the walk's events ([`super::visitor`])
//! and does what `fix` needs of each. It notes each record's first arrival
//! (for the receipt), marks the records reachable over links (the ones the
//! negamax changes), and solves each position with [`crate::negamax`] as
//! the walk leaves it, after everything below it.
//!
//! The walk also follows leaves into the book, which Edax's negamax does
//! not: a record reached only that way is solved too but not "linked", and
//! keeps what it has.
//!
//! Each event's reads land anywhere in memory (its record's first arrival,
//! its children's solutions), so the events a little ahead ask for theirs
//! while one is handled.

use super::fixed::{Fixed, Solutions};
use super::visitor::{Event, Own};
use crate::book::index::Located;
use crate::book::{Destination, RecordId, ResolvedBook};
use crate::negamax::{self, EdaxPosition};
use crate::parallel::Batches;
use crate::score::Score;
use crate::symmetry::Symmetry;

/// How many events ahead of the one handled ask for their memory.
const LOOKAHEAD: usize = 24;

/// The positions on the walk's stack and what is being gathered of the
/// one on top.
pub(super) struct Solver<'b> {
    book: &'b ResolvedBook,
    fixed: Fixed,
    /// The walk's stack: each position's record and own fields.
    stack: Vec<(RecordId, Own)>,
    /// The links of the position being left, as [`Event::Link`] told them.
    links: Vec<(Option<RecordId>, bool)>,
    /// Room reused by [`Solver::link_closure`].
    pending: Vec<Located>,
    targets: Vec<Destination>,
}

impl<'b> Solver<'b> {
    /// A solver for a walk from `start` (at `offset`), whose stored board
    /// `symmetry` maps onto the start position.
    pub fn new(book: &'b ResolvedBook, mut fixed: Fixed, start: RecordId, offset: u64, symmetry: Symmetry) -> Self {
        fixed.first.start(start, symmetry);
        fixed.linked.insert(start);
        let stack = vec![(start, Own::read(book, start, offset))];
        Solver { book, fixed, stack, links: Vec::new(), pending: Vec::new(), targets: Vec::new() }
    }

    /// Handles batches until the walk is done, handing each back emptied.
    pub fn run(mut self, batches: Batches<Event>) -> Fixed {
        batches.each_batch(|batch| self.handle(batch));
        self.fixed
    }

    /// Handles a batch of events in order, each one's memory asked for a
    /// few events before.
    fn handle(&mut self, batch: &[Event]) {
        for event in batch.iter().take(LOOKAHEAD) {
            self.prefetch(event);
        }
        for (i, event) in batch.iter().enumerate() {
            if let Some(ahead) = batch.get(i + LOOKAHEAD) {
                self.prefetch(ahead);
            }
            match *event {
                Event::Arrive { child, parent, offset, mv, via_pass, symmetry, by_leaf, first_time, own } => {
                    if first_time {
                        self.fixed.first.note(child, parent, mv, via_pass, symmetry);
                        self.stack.push((child, own));
                    }
                    self.mark_linked(child, offset, parent, by_leaf, first_time);
                }
                Event::Link { child, then_pass } => self.links.push((child, then_pass)),
                Event::Leave { leaf } => self.leave(leaf),
            }
        }
    }

    /// Asks for what handling `event` reads and writes.
    fn prefetch(&self, event: &Event) {
        match *event {
            Event::Arrive { child, first_time, .. } => {
                self.fixed.linked.prefetch(child);
                if first_time {
                    self.fixed.first.prefetch(child);
                    self.fixed.solutions.prefetch(child);
                }
            }
            Event::Link { child: Some(child), .. } => self.fixed.solutions.prefetch(child),
            Event::Link { child: None, .. } | Event::Leave { .. } => {}
        }
    }

    /// A move from a linked parent that is itself a link makes its child
    /// linked; a child already walked (first through a leaf) passes that
    /// on to everything below it over links.
    fn mark_linked(&mut self, child: RecordId, offset: u64, parent: RecordId, by_leaf: bool, first_time: bool) {
        let linked = &mut self.fixed.linked;
        if !by_leaf && linked.contains(parent) && linked.insert(child) && !first_time {
            self.link_closure(child, offset);
        }
    }

    /// Marks every record reachable over links from `from` (at `offset`),
    /// which has just become reachable itself, and was walked (and left)
    /// before: walked first through a leaf, its links' children were not
    /// marked then.
    fn link_closure(&mut self, from: RecordId, offset: u64) {
        self.pending.push(self.book.file().located(from, offset));
        while let Some(at) = self.pending.pop() {
            self.targets.clear();
            self.book.link_targets(at, &mut self.targets);
            for target in &self.targets {
                if let Destination::Child(child, _) = *target {
                    if self.fixed.linked.insert(child.id) {
                        self.pending.push(child);
                    }
                }
            }
        }
    }

    /// Solves the position on top of the stack from its links' children.
    fn leave(&mut self, leaf: Option<i8>) {
        let Some((record, own)) = self.stack.pop() else { return };
        match &mut self.fixed.solutions {
            Solutions::Edax { solved, errors } => {
                let position = EdaxPosition { empties: own.empties, level: own.level, leaf: own.leaf };
                let children = self.links.iter().map(|&(child, _)| child.map(|child| solved.get(child)));
                let result = negamax::edax_position(&position, *errors, children);
                solved.set(record, result);
            }
            Solutions::Egaroucid(values) => {
                let scores = self.links.iter().filter_map(|&(child, then_pass)| {
                    child.map(|child| negamax::egaroucid_link_score(values[child.index()].into(), then_pass))
                });
                // Each record's value is kept in the byte its record stores.
                let value = negamax::egaroucid_value(leaf.map(Score::from), scores).map(Score::stored_byte);
                values[record.index()] = value.unwrap_or(own.value);
            }
        }
        self.links.clear();
    }
}
