//! The one walk `fix` makes (SPEC §2, from the initial position) and what it
//! notes on the way: each record's first arrival (for the receipt), which
//! records are reachable over links (the ones the negamax changes), and,
//! as the walk leaves each position, its negamax from its children's.
//!
//! The walk leaves a position only after every position below it, so the
//! children of a position are solved when it is left. The walk also follows
//! leaves into the book, which Edax's negamax does not: a record reached
//! only that way is solved too but not "linked", and keeps what it has.

use super::first::FirstArrivals;
use super::solutions::EdaxSolutions;
use crate::book::index::Located;
use crate::book::{edax, egaroucid, RecordId, ResolvedBook, Target};
use crate::mine::{Control, Stop};
use crate::negamax::{self, EdaxPosition, SearchErrors};
use crate::symmetry::Symmetry;
use crate::walk::{Arrival, Departure, Visitor, WalkStats};
use std::sync::atomic::Ordering;

/// One bit per record.
pub(super) struct Bits(Vec<u64>);

impl Bits {
    pub fn new(records: usize) -> Bits {
        Bits(vec![0; records.div_ceil(64)])
    }

    pub fn contains(&self, id: RecordId) -> bool {
        self.0[id.index() / 64] & 1 << (id.index() % 64) != 0
    }

    /// Sets a record's bit; true if it was not set.
    pub fn insert(&mut self, id: RecordId) -> bool {
        let (word, bit) = (id.index() / 64, 1u64 << (id.index() % 64));
        let new = self.0[word] & bit == 0;
        self.0[word] |= bit;
        new
    }

    pub fn count(&self) -> u64 {
        self.0.iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

/// What the negamax found, by format.
pub(super) enum Solutions {
    Edax {
        solved: EdaxSolutions,
        errors: SearchErrors,
    },
    /// Each record's new value.
    Egaroucid(Vec<i8>),
}

/// What the walk leaves behind for writing the book and the receipt.
pub(super) struct Fixed {
    pub first: FirstArrivals,
    /// Records reachable from the start over links: the ones the negamax sets.
    pub linked: Bits,
    pub solutions: Solutions,
}

impl Fixed {
    /// Nothing reached yet, room for every record of `book`.
    pub fn new(book: &ResolvedBook, solutions: Solutions) -> Fixed {
        let records = book.counts().records as usize;
        Fixed { first: FirstArrivals::new(records), linked: Bits::new(records), solutions }
    }

    /// Room for the solutions of every record of `book`.
    pub fn solutions_for(book: &ResolvedBook, errors: Option<SearchErrors>) -> Solutions {
        let records = book.counts().records as usize;
        match errors {
            Some(errors) => Solutions::Edax { solved: EdaxSolutions::new(records), errors },
            None => Solutions::Egaroucid(vec![0; records]),
        }
    }
}

/// The walk's visitor.
pub(super) struct Fixer<'b, 'c> {
    book: &'b ResolvedBook,
    pub fixed: Fixed,
    pub control: Control<'c>,
    /// Room reused by [`Fixer::link_closure`].
    pending: Vec<Located>,
    targets: Vec<Target>,
}

impl<'b, 'c> Fixer<'b, 'c> {
    /// A visitor for a walk from `start`, whose stored board `symmetry` maps
    /// onto the initial position.
    pub fn new(
        book: &'b ResolvedBook,
        mut fixed: Fixed,
        start: RecordId,
        symmetry: Symmetry,
        control: Control<'c>,
    ) -> Self {
        fixed.first.start(start, symmetry);
        fixed.linked.insert(start);
        Fixer { book, fixed, control, pending: Vec::new(), targets: Vec::new() }
    }

    /// Marks every record reachable over links from `from`, which has just
    /// become reachable itself, and was walked (and left) before: walked
    /// first through a leaf, its links' children were not marked then.
    fn link_closure(&mut self, from: Located) {
        self.pending.push(from);
        while let Some(at) = self.pending.pop() {
            self.targets.clear();
            self.book.link_targets(at, &mut self.targets);
            for target in &self.targets {
                if let Target::Child(child, _) = *target {
                    if self.fixed.linked.insert(child.id) {
                        self.pending.push(child);
                    }
                }
            }
        }
    }

    /// Edax's negamax of the record being left.
    fn solve_edax(&mut self, departure: &Departure<'_>) {
        let Solutions::Edax { solved, errors } = &mut self.fixed.solutions else { return };
        // Read as stored: the leaf's score counts whatever its move.
        let Some(raw) = edax::record_at(self.book.file().bytes(), departure.offset as usize) else { return };
        let position =
            EdaxPosition { empties: raw.board().empties() as u8, level: raw.level(), leaf_score: raw.leaf_score() };
        let children = departure.links.iter().map(|link| match link.target {
            Target::Child(at, _) => Some(solved.get(at.id)),
            Target::Absent | Target::Illegal => None,
        });
        let result = negamax::edax_position(&position, *errors, children);
        solved.set(departure.record, result);
    }

    /// The Egaroucid rule of SPEC §11 for the record being left.
    fn solve_egaroucid(&mut self, departure: &Departure<'_>) {
        let Solutions::Egaroucid(values) = &mut self.fixed.solutions else { return };
        let Some(raw) = egaroucid::record_at(self.book.file().bytes(), departure.record) else { return };
        // The leaf as the walk has it: not when its move is also a link's
        // (SPEC §8), whose score is then its child's.
        let leaf = departure.leaf.map(|leaf| leaf.link.score.0 as i8);
        let scores = departure.links.iter().filter_map(|link| match link.target {
            Target::Child(at, _) => Some(negamax::egaroucid_link_score(values[at.id.index()], link.link.then_pass)),
            Target::Absent | Target::Illegal => None,
        });
        let value = negamax::egaroucid_value(leaf, scores).unwrap_or(raw.raw_value() as i8);
        values[departure.record.index()] = value;
    }
}

impl Visitor for Fixer<'_, '_> {
    type Error = Stop;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Stop> {
        let child = arrival.child.id;
        let first_time = arrival.first_time;
        if first_time {
            // Solved when the walk leaves it: ask for the word now.
            if let Solutions::Edax { solved, .. } = &self.fixed.solutions {
                solved.prefetch(child);
            }
            // The line ends with the move played, and its pass if one follows.
            let at = arrival.line.len() - 1 - usize::from(arrival.via_pass);
            let mv = arrival.line[at];
            self.fixed.first.note(child, arrival.parent, mv, arrival.via_pass, arrival.child_symmetry);
        }
        if !arrival.by_leaf
            && self.fixed.linked.contains(arrival.parent)
            && self.fixed.linked.insert(child)
            && !first_time
        {
            let at = self.book.file().located(child, arrival.child.offset);
            self.link_closure(at);
        }
        Ok(())
    }

    fn leave(&mut self, departure: &Departure<'_>) -> Result<(), Stop> {
        match self.fixed.solutions {
            Solutions::Edax { .. } => self.solve_edax(departure),
            Solutions::Egaroucid(_) => self.solve_egaroucid(departure),
        }
        Ok(())
    }

    fn progress(&mut self, stats: &WalkStats) -> Result<(), Stop> {
        if self.control.cancel.load(Ordering::Relaxed) {
            return Err(Stop::Interrupted);
        }
        (self.control.progress)(stats);
        Ok(())
    }
}
