//! The negamax below the start, made once as a run begins, by the one walk
//! ([`crate::walk`]) over links only, as Edax's negamax goes: each position
//! reached over links, when the walk leaves it for good (after everything
//! below it), by [`crate::negamax`]. On the way it notes the first round's
//! candidates (docs/extend.md) in the order the candidate walk meets them:
//! the walk enters positions in that order, and a position the gates keep
//! out lies below none it lets in (it has fewer empty squares).
//!
//! The book's index is kept through the walk for the lookups growth makes
//! after it. An Edax book's links, resolved for the walk, stay for the
//! rest of the run (both ways, [`super::store`]). An Egaroucid book's
//! change as positions are added (they are its legal moves whose child it
//! holds): the walk notes who links to whom, to carry changes up, and
//! growth finds each position's links again as it goes.

use super::error::ExtendError;
use super::position::{negamax_of, Child, Position};
use super::store::{Flavor, NodeId};
use crate::bits::Bits;
use crate::board::Board;
use crate::book::index::Located;
use crate::book::{Book, Destination, LinkTargets, Parents, RecordId, ResolvedBook};
use crate::fix::solutions::EdaxSolutions;
use crate::format::{edax, egaroucid, Family};
use crate::negamax::{self, EdaxPosition, Negamaxed};
use crate::run::{Interrupted, RunError};
use crate::walk::{self, walk, Arrival, Departure, Start, Visitor, WalkStats, Walkable};
use smallvec::SmallVec;
use std::convert::Infallible;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What the first negamax computed.
pub struct FirstNegamax {
    /// The negamax of each record reached over links from the start.
    pub words: EdaxSolutions,
    /// The records reached over links from the start.
    pub solved: Bits,
    /// The first round's candidates, in the candidate walk's order (none
    /// when not kept).
    pub candidates: Vec<NodeId>,
    /// How many candidates the walk met, kept or not.
    pub met: u64,
    /// (child record, parent record) for each link walked, when the book
    /// read says none (an Egaroucid book's links are its legal moves).
    pub parents: Vec<(u32, u32)>,
}

/// The book read, ready to grow, negamaxed below the start: an Edax book
/// with its links resolved both ways; an Egaroucid book with the links
/// the walk went by turned round (its links change as positions are
/// added: they are found again as growth goes).
pub struct Prepared {
    pub book: Book,
    pub links: Option<(LinkTargets, Parents)>,
    pub first: Option<FirstNegamax>,
}

/// Makes `book` ready to grow from `start` (which it holds), noting as
/// candidates the positions of at least `min_empties` empty squares, kept
/// if `kept` (else only counted: a policy that does not read them is spared
/// 12 bytes a candidate). A stop asked for through `cancel` ends it, the
/// run's `journal` kept.
pub fn prepare(
    book: Book,
    start: &Start,
    (min_empties, kept): (u32, bool),
    journal: &Path,
    cancel: &AtomicBool,
) -> Result<Prepared, ExtendError> {
    let flavor = match book.header().edax() {
        Some(header) => Flavor::Edax(header.search_errors()),
        None => Flavor::Egaroucid,
    };
    let path = book.path().to_path_buf();
    let began = Instant::now();
    let walkable = Walkable::keeping_index(book, start)
        .map_err(|missing| ExtendError::start_missing(&path, missing))?
        .links_only();
    walkable.book().log_resolved(&path, began);
    let began = Instant::now();
    let mut negamaxer = Negamaxer::new(walkable.book(), walkable.root(), flavor, min_empties, cancel);
    negamaxer.keep_candidates = kept;
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
        first.met
    );
    let Ok((book, targets)) = walkable.into_book().into_book() else {
        unreachable!("a book resolved with its index kept")
    };
    let Some(targets) = targets else {
        return Ok(Prepared { book, links: None, first: Some(first) });
    };
    match Parents::of(book.file(), &targets) {
        Some(parents) => Ok(Prepared { book, links: Some((targets, parents)), first: Some(first) }),
        // Too many links to turn round: growth finds each position's
        // parents by negamaxing again.
        None => Ok(Prepared { book, links: None, first: None }),
    }
}

/// What the negamax reads of a position besides its children, noted as
/// the walk enters it.
struct Entered {
    empties: u8,
    /// Edax: the level byte as stored.
    level: u8,
    /// The leaf's score as stored, whatever its move (−127: no leaf).
    leaf_score: i8,
    /// Egaroucid: whether the leaf has a move (it counts only then), and
    /// the value stored, kept by a record with neither leaf nor link.
    leaf_move: bool,
    value: i8,
    game_over: bool,
    /// The order the walk entered it in.
    rank: u32,
}

impl Entered {
    /// The fields of the record `id` at `offset`; a record that no longer
    /// reads (the book changed, which is found when the walk ends) gives
    /// no leaf.
    fn read(book: &ResolvedBook, id: RecordId, offset: u64, rank: u32) -> Entered {
        let bytes = book.file().bytes();
        let none = negamax::NO_LEAF;
        let unread =
            Entered { empties: 0, level: 0, leaf_score: none, leaf_move: false, value: 0, game_over: true, rank };
        let entered = |board: Board, level, leaf_score, leaf_move, value| Entered {
            empties: board.empties() as u8,
            level,
            leaf_score,
            leaf_move,
            value,
            game_over: board.is_game_over(),
            rank,
        };
        match book.file().format().family() {
            Family::Edax => edax::record_at(bytes, offset as usize)
                .map_or(unread, |raw| entered(raw.board(), raw.level(), raw.leaf_score(), false, 0)),
            Family::Egaroucid => egaroucid::record_at(bytes, id).map_or(unread, |raw| {
                let leaf = raw.leaf();
                let leaf_score = leaf.map_or(none, |leaf| leaf.score.stored_byte());
                entered(raw.board(), 0, leaf_score, leaf.is_some(), raw.raw_value() as i8)
            }),
        }
    }
}

/// The walk's visitor: the positions on the walk's stack, each solved as
/// the walk leaves it.
struct Negamaxer<'b, 'c> {
    book: &'b ResolvedBook,
    flavor: Flavor,
    words: EdaxSolutions,
    solved: Bits,
    stack: Vec<Entered>,
    min_empties: u32,
    entered: u32,
    candidates: Vec<(u32, Located)>,
    /// Whether candidates are kept, or only counted (`met`).
    keep_candidates: bool,
    met: u64,
    parents: Vec<(u32, u32)>,
    cancel: &'c AtomicBool,
}

impl<'b, 'c> Negamaxer<'b, 'c> {
    fn new(
        book: &'b ResolvedBook,
        root: Located,
        flavor: Flavor,
        min_empties: u32,
        cancel: &'c AtomicBool,
    ) -> Negamaxer<'b, 'c> {
        let records = book.counts().records as usize;
        let stack = vec![Entered::read(book, root.id, book.file().offset(root), 0)];
        let (words, solved) = (EdaxSolutions::new(records), Bits::new(records));
        let (candidates, parents) = (Vec::new(), Vec::new());
        Negamaxer {
            book,
            flavor,
            words,
            solved,
            stack,
            min_empties,
            entered: 1,
            candidates,
            keep_candidates: true,
            met: 0,
            parents,
            cancel,
        }
    }

    /// What was computed, the candidates in the order they were entered.
    fn finish(mut self) -> FirstNegamax {
        self.candidates.sort_unstable_by_key(|&(rank, _)| rank);
        // Collected where they lie (12 bytes each either way): a copy
        // would be the run's largest moment.
        let candidates = self.candidates.into_iter().map(|(_, at)| NodeId::Book(at)).collect();
        FirstNegamax { words: self.words, solved: self.solved, candidates, met: self.met, parents: self.parents }
    }

    /// A position's negamax from its children's, `links` as the walk left it.
    fn negamax(&mut self, entered: &Entered, record: RecordId, links: &[walk::Child]) -> Negamaxed {
        let mut children: SmallVec<[Child; 8]> = SmallVec::new();
        for link in links {
            let child = match link.target {
                Destination::Child(child, _) => Some(child.id),
                Destination::Absent | Destination::Illegal => None,
            };
            if let (Some(id), Flavor::Egaroucid) = (child, self.flavor) {
                // Its links change as positions are added: who links to
                // whom is noted, to carry changes up.
                self.parents.push((id.0, record.0));
            }
            children.push(Child { solved: child.map(|id| self.words.get(id)), then_pass: link.link.then_pass });
        }
        let edax = EdaxPosition { empties: entered.empties, level: entered.level, leaf_score: entered.leaf_score };
        let position = Position { edax, leaf_has_move: entered.leaf_move };
        let now = || Ok::<_, Infallible>(entered.value.into());
        let Ok(solved) = negamax_of(self.flavor, &position, &children, now);
        solved
    }
}

impl Visitor for Negamaxer<'_, '_> {
    type Error = Interrupted;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Interrupted> {
        // Read when the walk leaves the parent: asked for now whether the
        // walk enters the child or has been there already.
        self.words.prefetch(arrival.child.id);
        if arrival.first_time {
            // Set when the walk leaves it, after what lies below it.
            self.solved.prefetch(arrival.child.id);
            self.stack.push(Entered::read(self.book, arrival.child.id, arrival.child.offset, self.entered));
            self.entered += 1;
        }
        Ok(())
    }

    fn leave(&mut self, departure: &Departure<'_>) -> Result<(), Interrupted> {
        let Some(entered) = self.stack.pop() else { return Ok(()) };
        let id = departure.record;
        let solved = self.negamax(&entered, id, departure.links);
        self.words.set(id, solved);
        self.solved.insert(id);
        let gated = u32::from(entered.empties) >= self.min_empties && !entered.game_over;
        if gated && i16::from(entered.leaf_score) >= solved.value {
            self.met += 1;
            if !self.keep_candidates {
                return Ok(());
            }
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
