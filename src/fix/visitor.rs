//! The one walk `fix` makes (docs/walk.md, from the initial position), told to
//! the solving thread ([`super::solver`]) as compact events: the walk's
//! own thread only walks and copies, and the negamax and the notes for the
//! receipt, whose reads land anywhere in memory, run on the other core.

use crate::board::Move;
use crate::book::{Destination, Leaf, RecordId, ResolvedBook};
use crate::format::{edax, egaroucid, Family};
use crate::level::Level;
use crate::parallel::Batcher;
use crate::run::{Control, Interrupted};
use crate::symmetry::Symmetry;
use crate::walk::{Arrival, Departure, Visitor, WalkStats};

/// Events handed over at a time: enough to make the hand-over rare, few
/// enough that a batch stays in cache between the two cores.
pub(super) const BATCH_EVENTS: usize = 8192;

/// What a record's own negamax reads of itself, besides its children,
/// noted as the walk enters it (its bytes are then in cache).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Own {
    pub empties: u8,
    /// Edax: the level of its searches.
    pub level: Level,
    /// Edax: its leaf, whatever its move.
    pub leaf: Option<Leaf>,
    /// Egaroucid: the stored value, kept by a record with neither leaf nor
    /// link.
    pub value: i8,
}

impl Own {
    /// Reads a record's own fields; a record that no longer reads (the
    /// book changed, which is found when the walk ends) gives zeros.
    pub fn read(book: &ResolvedBook, id: RecordId, offset: u64) -> Own {
        let bytes = book.file().bytes();
        match book.file().format().family() {
            Family::Edax => edax::record_at(bytes, offset as usize).map_or(Own::default(), |raw| Own {
                empties: raw.board().empties() as u8,
                level: Level::saturating(raw.level().into()),
                leaf: raw.leaf(),
                value: 0,
            }),
            Family::Egaroucid => egaroucid::record_at(bytes, id)
                .map_or(Own::default(), |raw| Own { value: raw.raw_value() as i8, ..Own::default() }),
        }
    }
}

/// One thing the walk did, in walk order.
#[derive(Clone, Copy, Debug)]
pub(super) enum Event {
    /// A move followed from the position on top of the walk's stack,
    /// `parent`, to `child` (at `offset` in the file).
    Arrive {
        child: RecordId,
        parent: RecordId,
        offset: u64,
        /// The move played, in the line's coordinates, and whether a pass followed it.
        mv: Move,
        via_pass: bool,
        /// Maps the child's stored board onto the position reached.
        symmetry: Symmetry,
        by_leaf: bool,
        /// The walk enters the child now (it goes on top of the stack).
        first_time: bool,
        /// The child's own fields, when it is entered.
        own: Own,
    },
    /// A link of the position being left, in stored order, and the record
    /// it leads to (none: not in the book).
    Link { child: Option<RecordId>, then_pass: bool },
    /// The position on top of the stack is left for good, after its links;
    /// its leaf's score as the walk has it (docs/formats.md, Egaroucid books: none when its move is
    /// also a link's).
    Leave { leaf: Option<i8> },
}

/// The walk's visitor: copies what the walk does into batches of events
/// for the solving thread.
pub(super) struct Fixer<'b, 'c> {
    book: &'b ResolvedBook,
    pub control: Control<'c>,
    events: Batcher<Event>,
}

impl<'b, 'c> Fixer<'b, 'c> {
    pub fn new(book: &'b ResolvedBook, events: Batcher<Event>, control: Control<'c>) -> Self {
        Fixer { book, control, events }
    }

    fn push(&mut self, event: Event) {
        self.events.push(event);
    }

    /// Hands over the last events; the solver ends once it has them.
    pub fn finish(self) -> Control<'c> {
        self.events.finish();
        self.control
    }
}

impl Visitor for Fixer<'_, '_> {
    type Error = Interrupted;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Interrupted> {
        let child = arrival.child;
        let own = match arrival.first_time {
            true => Own::read(self.book, child.id, child.offset),
            false => Own::default(),
        };
        // The line ends with the move played, and its pass if one follows.
        let mv = arrival.line[arrival.line.len() - 1 - usize::from(arrival.via_pass)];
        self.push(Event::Arrive {
            child: child.id,
            parent: arrival.parent,
            offset: child.offset,
            mv,
            via_pass: arrival.via_pass,
            symmetry: arrival.child_symmetry,
            by_leaf: arrival.by_leaf,
            first_time: arrival.first_time,
            own,
        });
        Ok(())
    }

    fn leave(&mut self, departure: &Departure<'_>) -> Result<(), Interrupted> {
        for link in departure.links {
            let child = match link.target {
                Destination::Child(at, _) => Some(at.id),
                Destination::Absent | Destination::Illegal => None,
            };
            self.push(Event::Link { child, then_pass: link.link.then_pass });
        }
        self.push(Event::Leave { leaf: departure.leaf.map(|leaf| leaf.link.score.stored_byte()) });
        Ok(())
    }

    fn progress(&mut self, stats: &WalkStats) -> Result<(), Interrupted> {
        self.control.walked(stats)
    }
}
