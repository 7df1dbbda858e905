//! The negamax below the start, made once as a run begins, by the one walk
//! ([`crate::walk`]) over links only, as Edax's negamax goes: each position
//! reached over links, when the walk leaves it for good (after everything
//! below it), by [`crate::negamax`]. On the way it notes the first round's
//! candidates (docs/extend.md) in the order the candidate walk meets them:
//! the walk enters positions in that order, and a position the gates keep
//! out lies below none it lets in (it has fewer empty squares).
//!
//! For an Edax book: its links, resolved for the walk, stay for the rest
//! of the run (both ways, [`super::store`]); its index is kept through the
//! walk for the lookups growth makes after it.

use super::store::NodeId;
use super::ExtendError;
use crate::bits::Bits;
use crate::book::index::Located;
use crate::book::{Book, Destination, LinkTargets, Parents, ResolvedBook};
use crate::fix::solutions::EdaxSolutions;
use crate::format::edax;
use crate::negamax::{self, EdaxPosition, SearchErrors};
use crate::run::{Interrupted, RunError};
use crate::walk::{walk, Arrival, Departure, Start, Visitor, WalkStats, Walkable};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What the first negamax computed.
pub struct FirstNegamax {
    /// The negamax of each record reached over links from the start.
    pub words: EdaxSolutions,
    /// The records reached over links from the start.
    pub solved: Bits,
    /// The first round's candidates, in the candidate walk's order.
    pub candidates: Vec<NodeId>,
}

/// The book read, ready to grow: an Edax book with its links resolved both
/// ways and negamaxed below the start; an Egaroucid book as read.
pub struct Prepared {
    pub book: Book,
    pub links: Option<(LinkTargets, Parents)>,
    pub first: Option<FirstNegamax>,
}

/// Makes `book` ready to grow from `start` (which it holds), noting as
/// candidates the positions of at least `min_empties` empty squares. A stop
/// asked for through `cancel` ends it, the run's `journal` kept.
pub fn prepare(
    book: Book,
    start: &Start,
    min_empties: u32,
    journal: &Path,
    cancel: &AtomicBool,
) -> Result<Prepared, ExtendError> {
    let Some(errors) = book.header().edax().map(|h| h.search_errors()) else {
        return Ok(Prepared { book, links: None, first: None });
    };
    let path = book.path().to_path_buf();
    let began = Instant::now();
    let walkable = Walkable::keeping_index(book, start)
        .map_err(|missing| ExtendError::start_missing(&path, missing))?
        .links_only();
    walkable.book().log_resolved(&path, began);
    let began = Instant::now();
    let negamaxer = Negamaxer::new(walkable.book(), walkable.root(), errors, min_empties, cancel);
    let walked = walk(&walkable, negamaxer);
    if walkable.book().file().changed() {
        return Err(ExtendError::book_changed(&path));
    }
    let (stats, negamaxer) = walked.map_err(|error| match error {
        crate::walk::WalkError::Visitor(stop) => ExtendError::interrupted(journal)(stop),
        other => RunError::of_walk(&path, other, |_| unreachable!("the visitor's error is matched above")).into(),
    })?;
    let first = negamaxer.finish();
    tracing::info!(
        "{}: negamaxed below the start in {:.3} s ({} positions, {} candidates)",
        path.display(),
        began.elapsed().as_secs_f64(),
        stats.positions,
        first.candidates.len()
    );
    let Ok((book, targets)) = walkable.into_book().into_book() else {
        unreachable!("an Edax book resolved with its index kept")
    };
    match Parents::of(book.file(), &targets) {
        Some(parents) => Ok(Prepared { book, links: Some((targets, parents)), first: Some(first) }),
        // Too many links to turn round: growth finds each position's
        // parents by negamaxing again, as for an Egaroucid book.
        None => Ok(Prepared { book, links: None, first: None }),
    }
}

/// What the negamax reads of a position besides its children, noted as
/// the walk enters it.
struct Entered {
    empties: u8,
    level: u8,
    leaf_score: i8,
    game_over: bool,
    /// The order the walk entered it in.
    rank: u32,
}

impl Entered {
    /// The fields of the record at `offset`; a record that no longer reads
    /// (the book changed, which is found when the walk ends) gives no leaf.
    fn read(book: &ResolvedBook, offset: u64, rank: u32) -> Entered {
        match edax::record_at(book.file().bytes(), offset as usize) {
            Some(raw) => {
                let board = raw.board();
                Entered {
                    empties: board.empties() as u8,
                    level: raw.level(),
                    leaf_score: raw.leaf_score(),
                    game_over: board.is_game_over(),
                    rank,
                }
            }
            None => Entered { empties: 0, level: 0, leaf_score: -(negamax::SCORE_INF as i8), game_over: true, rank },
        }
    }
}

/// The walk's visitor: the positions on the walk's stack, each solved as
/// the walk leaves it.
struct Negamaxer<'b, 'c> {
    book: &'b ResolvedBook,
    errors: SearchErrors,
    words: EdaxSolutions,
    solved: Bits,
    stack: Vec<Entered>,
    min_empties: u32,
    entered: u32,
    candidates: Vec<(u32, Located)>,
    cancel: &'c AtomicBool,
}

impl<'b, 'c> Negamaxer<'b, 'c> {
    fn new(
        book: &'b ResolvedBook,
        root: Located,
        errors: SearchErrors,
        min_empties: u32,
        cancel: &'c AtomicBool,
    ) -> Negamaxer<'b, 'c> {
        let records = book.counts().records as usize;
        let stack = vec![Entered::read(book, book.file().offset(root), 0)];
        let (words, solved) = (EdaxSolutions::new(records), Bits::new(records));
        Negamaxer { book, errors, words, solved, stack, min_empties, entered: 1, candidates: Vec::new(), cancel }
    }

    /// What was computed, the candidates in the order they were entered.
    fn finish(mut self) -> FirstNegamax {
        self.candidates.sort_unstable_by_key(|&(rank, _)| rank);
        // Collected where they lie (12 bytes each either way): a copy
        // would be the run's largest moment.
        let candidates = self.candidates.into_iter().map(|(_, at)| NodeId::Book(at)).collect();
        FirstNegamax { words: self.words, solved: self.solved, candidates }
    }
}

impl Visitor for Negamaxer<'_, '_> {
    type Error = Interrupted;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Interrupted> {
        if arrival.first_time {
            // Set when the walk leaves it, after what lies below it.
            self.words.prefetch(arrival.child.id);
            self.stack.push(Entered::read(self.book, arrival.child.offset, self.entered));
            self.entered += 1;
        }
        Ok(())
    }

    fn leave(&mut self, departure: &Departure<'_>) -> Result<(), Interrupted> {
        let Some(entered) = self.stack.pop() else { return Ok(()) };
        let position = EdaxPosition { empties: entered.empties, level: entered.level, leaf_score: entered.leaf_score };
        let children = departure.links.iter().map(|link| match link.target {
            Destination::Child(child, _) => Some(self.words.get(child.id)),
            Destination::Absent | Destination::Illegal => None,
        });
        let solved = negamax::edax_position(&position, self.errors, children);
        let id = departure.record;
        self.words.set(id, solved);
        self.solved.insert(id);
        let gated = u32::from(entered.empties) >= self.min_empties && !entered.game_over;
        if gated && i16::from(entered.leaf_score) >= solved.value {
            let at = self.book.file().located(id, departure.offset);
            self.candidates.push((entered.rank, at));
        }
        Ok(())
    }

    fn progress(&mut self, _stats: &WalkStats) -> Result<(), Interrupted> {
        match self.cancel.load(Ordering::Relaxed) {
            true => Err(Interrupted),
            false => Ok(()),
        }
    }
}
