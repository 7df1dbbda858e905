//! The walk of the first negamax ([`super::first`]), on a thread of its
//! own: it reads what the negamax needs of each position as it enters it
//! (where the walk has just read the record) and tells the negamax, on
//! another core, in batches of events in the walk's order: arrived,
//! entered, each link of a position left, left. The negamax's own reads
//! (each child's word, anywhere in memory) then overlap the walk's, as
//! `fix`'s do.

use crate::board::Board;
use crate::book::{Destination, Leaf, RecordId, ResolvedBook};
use crate::format::{edax, egaroucid, Family};
use crate::level::Level;
use crate::parallel::Batcher;
use crate::run::{Cancel, Interrupted};
use crate::score::Score;
use crate::walk::{Arrival, Departure, Visitor, WalkStats};

/// Events handed over at once.
pub(super) const BATCH_EVENTS: usize = 8192;
/// Batches on their way to the negamax at most: the walk waits beyond.
pub(super) const BATCHES_IN_FLIGHT: usize = 4;

/// What the walk tells the negamax, in the walk's order.
#[derive(Clone, Copy)]
pub(super) enum Event {
    /// The walk arrived at `child` over a link: entered for the first
    /// time (with what it read of it), or met again.
    Arrive {
        /// The record arrived at.
        child: RecordId,
        /// What was read of it, the first time only.
        entered: Option<Entered>,
    },
    /// A link of the position left next, in stored order: the record it
    /// leads to, if the book holds it, and whether a pass follows.
    Link {
        /// The record the link leads to.
        child: Option<RecordId>,
        /// Whether the position after the move passes.
        then_pass: bool,
    },
    /// The walk leaves `record` (at `offset`) for good; its links were
    /// told just before.
    Leave {
        /// The record left.
        record: RecordId,
        /// Where it starts in the file.
        offset: u64,
    },
}

/// What the negamax reads of a position besides its children, noted as
/// the walk enters it.
#[derive(Clone, Copy)]
pub(super) struct Entered {
    /// Its empty squares.
    pub(super) empties: u8,
    /// Edax: the level of its searches.
    pub(super) level: Level,
    /// Its leaf, whatever its move (an Egaroucid leaf has one).
    pub(super) leaf: Option<Leaf>,
    /// Egaroucid: the value stored, kept by a record with neither leaf nor
    /// link.
    pub(super) value: Score,
    /// Whether neither side can move.
    pub(super) game_over: bool,
    /// The order the walk entered it in.
    pub(super) rank: u32,
}

impl Entered {
    /// The fields of the record `id` at `offset`; a record that no longer
    /// reads (the book changed, which is found when the walk ends) gives
    /// no leaf.
    pub(super) fn read(book: &ResolvedBook, id: RecordId, offset: u64, rank: u32) -> Entered {
        let bytes = book.file().bytes();
        let unread =
            Entered { empties: 0, level: Level::default(), leaf: None, value: Score::new(0), game_over: true, rank };
        let entered = |board: Board, level, leaf, value| Entered {
            empties: board.empties() as u8,
            level,
            leaf,
            value,
            game_over: board.is_game_over(),
            rank,
        };
        match book.file().format().family() {
            Family::Edax => edax::record_at(bytes, offset as usize).map_or(unread, |raw| {
                entered(raw.board(), Level::saturating(raw.level().into()), raw.leaf(), Score::new(0))
            }),
            Family::Egaroucid => egaroucid::record_at(bytes, id).map_or(unread, |raw| {
                entered(raw.board(), Level::default(), raw.leaf().map(Leaf::of), Score::new(raw.raw_value()))
            }),
        }
    }
}

/// The walk's visitor: reads each position entered and tells the negamax.
pub(super) struct Teller<'b, 'c> {
    book: &'b ResolvedBook,
    /// Positions entered so far, the start included.
    entered: u32,
    events: Batcher<Event>,
    cancel: Cancel<'c>,
}

impl<'b, 'c> Teller<'b, 'c> {
    /// A teller for a walk whose start was entered already (rank 0).
    pub(super) fn new(book: &'b ResolvedBook, events: Batcher<Event>, cancel: Cancel<'c>) -> Teller<'b, 'c> {
        Teller { book, entered: 1, events, cancel }
    }

    fn push(&mut self, event: Event) {
        self.events.push(event);
    }

    /// Hands over what is left: the walk is over.
    pub(super) fn finish(self) {
        self.events.finish();
    }
}

impl Visitor for Teller<'_, '_> {
    type Error = Interrupted;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Interrupted> {
        let child = arrival.child;
        let entered = arrival.first_time.then(|| {
            self.entered += 1;
            Entered::read(self.book, child.id, child.offset, self.entered - 1)
        });
        self.push(Event::Arrive { child: child.id, entered });
        Ok(())
    }

    fn leave(&mut self, departure: &Departure<'_>) -> Result<(), Interrupted> {
        for link in departure.links {
            let child = match link.target {
                Destination::Child(child, _) => Some(child.id),
                Destination::Absent | Destination::Illegal => None,
            };
            self.push(Event::Link { child, then_pass: link.link.then_pass });
        }
        self.push(Event::Leave { record: departure.record, offset: departure.offset });
        Ok(())
    }

    fn progress(&mut self, _stats: &WalkStats) -> Result<(), Interrupted> {
        match self.cancel.is_set() {
            true => Err(Interrupted),
            false => Ok(()),
        }
    }
}
