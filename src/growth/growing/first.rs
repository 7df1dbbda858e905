//! The negamax below the start, made once as a run begins, by the one walk
//! ([`mod@crate::walk`]) over links only, as Edax's negamax goes: each position
//! reached over links, when the walk leaves it for good (after everything
//! below it), by [`crate::negamax`]. On the way it notes the first round's
//! candidates (docs/extend.md; `play`'s, the positions without a link, when
//! asked): the positions the candidate walk meets (a position the gates
//! keep out lies below none they let in: it has fewer empty squares), in
//! the order a round expands them (an Edax book's by bucket, each bucket
//! worked out as the walk leaves the position; an Egaroucid book's in the
//! order the walk enters them, the candidate walk's).
//!
//! The book's index is kept through the walk for the lookups growth makes
//! after it. An Edax book's links, resolved for the walk, stay for the
//! rest of the run (both ways, [`super::store`]). An Egaroucid book's
//! change as positions are added (they are its legal moves whose child it
//! holds): the walk notes who links to whom, to carry changes up, and
//! growth finds each position's links again as it goes.

use super::first_walk::{Entered, Event, Teller, BATCHES_IN_FLIGHT, BATCH_EVENTS};
use super::marks::Marks;
use super::position::{negamax_of, Child, Position};
use super::store::{Flavor, NodeId};
use crate::bits::Bits;
use crate::book::index::Located;
use crate::book::{Book, LinkTargets, Parents, RecordId, ResolvedBook};
use crate::fix::solutions::EdaxSolutions;
use crate::format::edax::bucket;
use crate::growth::error::GrowthError;
use crate::negamax::{self, EdaxPosition, Negamaxed};
use crate::parallel::Batches;
use crate::run::{Cancel, Interrupted, RunError};
use crate::walk::{walk, Start, WalkError, WalkStats, Walkable};
use smallvec::SmallVec;
use std::convert::Infallible;
use std::path::Path;
use std::time::Instant;

/// What the first negamax computed.
pub struct FirstNegamax {
    /// The negamax of each record reached over links from the start.
    pub words: EdaxSolutions,
    /// The records reached over links from the start.
    pub solved: Bits,
    /// The first round's candidates, in the order a round expands them
    /// ([`in_edax_order`]'s; none when not kept).
    ///
    /// [`in_edax_order`]: crate::growth::edax_order::in_edax_order
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
/// candidates the positions of at least `min_empties` empty squares that
/// `kept` marks, kept (without marks, extend's candidates are only
/// counted: a policy that does not read them is spared 12 bytes a
/// candidate). A stop asked for through `cancel` ends it, the run's
/// `journal` kept.
pub fn prepare(
    book: Book,
    start: &Start,
    (min_empties, kept): (u32, Option<Marks>),
    journal: &Path,
    cancel: Cancel<'_>,
) -> Result<Prepared, GrowthError> {
    let flavor = match book.header().edax() {
        Some(header) => Flavor::Edax(header.search_errors()),
        None => Flavor::Egaroucid,
    };
    let path = book.path().to_path_buf();
    let began = Instant::now();
    let walkable = Walkable::keeping_index(book, start)
        .map_err(|missing| GrowthError::start_missing(&path, missing))?
        .links_only();
    walkable.book().log_resolved(&path, began);
    let began = Instant::now();
    let mut negamaxer = Negamaxer::new(walkable.book(), walkable.root(), flavor, min_empties);
    negamaxer.keep_candidates = kept.is_some();
    negamaxer.marks = kept.unwrap_or(Marks::LeafAtLeastValue);
    let ((walked, negamaxer), parents) =
        beside_parents(&walkable, || walk_and_negamax(&walkable, negamaxer, cancel)).map_err(RunError::io(&path))?;
    if walkable.book().file().changed() {
        return Err(GrowthError::book_changed(&path));
    }
    let stats = walked.map_err(|error| match error {
        crate::walk::WalkError::Visitor(stop) => GrowthError::interrupted(journal)(stop),
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
    match (targets, parents) {
        (Some(targets), Some(Some(parents))) => {
            Ok(Prepared { book, links: Some((targets, parents)), first: Some(first) })
        }
        // Too many links to turn round: growth finds each position's
        // parents by negamaxing again.
        (Some(_), _) => Ok(Prepared { book, links: None, first: None }),
        (None, _) => Ok(Prepared { book, links: None, first: Some(first) }),
    }
}

/// `work` on this thread and, beside it, an Edax book's links turned round
/// (`None` for an Egaroucid book; `Some(None)` for too many links): the
/// walk and its negamax leave the cores part of the time, which turning
/// the links round takes. The thread could not be started: an error of
/// the system's.
fn beside_parents<T>(
    walkable: &Walkable,
    work: impl FnOnce() -> std::io::Result<T>,
) -> std::io::Result<(T, Option<Option<Parents>>)> {
    let book = walkable.book();
    std::thread::scope(|scope| {
        let turning = match book.link_children() {
            Some(children) => {
                Some(std::thread::Builder::new().name("parents".to_string()).spawn_scoped(scope, move || {
                    let began = Instant::now();
                    let parents = Parents::of(book.file(), children);
                    tracing::debug!(
                        "{}: links turned round in {:.3} s",
                        book.path().display(),
                        began.elapsed().as_secs_f64()
                    );
                    parents
                })?)
            }
            None => None,
        };
        let done = work()?;
        let parents = turning.map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        Ok((done, parents))
    })
}

/// The walk from the start over links, on this thread, and the negamax
/// of what it reaches, on another: what the walk found, and the negamax.
/// The thread could not be started: an error of the system's.
fn walk_and_negamax<'b>(
    walkable: &'b Walkable,
    negamaxer: Negamaxer<'b>,
    cancel: Cancel<'_>,
) -> std::io::Result<(Result<WalkStats, WalkError<Interrupted>>, Negamaxer<'b>)> {
    let (events, batches) = crate::parallel::batches(BATCH_EVENTS, BATCHES_IN_FLIGHT);
    let teller = Teller::new(walkable.book(), events, cancel);
    std::thread::scope(|scope| {
        let negamaxing = std::thread::Builder::new()
            .name("negamax".to_string())
            .spawn_scoped(scope, move || negamaxer.run(batches))?;
        // The walk's end, or its failure, lets the teller and its channel
        // go: the negamax finishes what it was told and ends.
        let walked = walk(walkable, teller).map(|(stats, teller)| {
            teller.finish();
            stats
        });
        let negamaxer = negamaxing.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok((walked, negamaxer))
    })
}

/// A link of a position left, as the negamax reads it: the record it leads
/// to, if the book holds it, and whether a pass follows.
type Link = (Option<RecordId>, bool);

/// The negamax, on a thread of its own: the positions on the walk's
/// stack, each solved as the walk leaves it.
struct Negamaxer<'b> {
    book: &'b ResolvedBook,
    flavor: Flavor,
    words: EdaxSolutions,
    solved: Bits,
    stack: Vec<Entered>,
    min_empties: u32,
    /// The candidates kept, each with its key in the order a round
    /// expands them: an Edax book's by its bucket, an Egaroucid book's by
    /// when the walk entered it.
    candidates: Vec<(u32, Located)>,
    /// Whether candidates are kept, or only counted (`met`).
    keep_candidates: bool,
    /// Which positions are candidates.
    marks: Marks,
    met: u64,
    parents: Vec<(u32, u32)>,
}

impl<'b> Negamaxer<'b> {
    fn new(book: &'b ResolvedBook, root: Located, flavor: Flavor, min_empties: u32) -> Negamaxer<'b> {
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
            candidates,
            keep_candidates: true,
            marks: Marks::LeafAtLeastValue,
            met: 0,
            parents,
        }
    }

    /// What was computed, the candidates in the order a round expands
    /// them: by key, then (where buckets tie) by record, as
    /// [`in_edax_order`] orders them.
    ///
    /// [`in_edax_order`]: crate::growth::edax_order::in_edax_order
    fn finish(mut self) -> FirstNegamax {
        self.candidates.sort_unstable_by_key(|&(key, at)| (u64::from(key) << 32) | u64::from(at.id.0));
        // Collected where they lie (12 bytes each either way): a copy
        // would be the run's largest moment.
        let candidates = self.candidates.into_iter().map(|(_, at)| NodeId::Book(at)).collect();
        FirstNegamax { words: self.words, solved: self.solved, candidates, met: self.met, parents: self.parents }
    }

    /// A position's negamax from its children's, `links` as the walk left it.
    fn negamax(&mut self, entered: &Entered, record: RecordId, links: &[Link]) -> Negamaxed {
        let mut children: SmallVec<[Child; 8]> = SmallVec::new();
        for &(child, then_pass) in links {
            if let (Some(id), Flavor::Egaroucid) = (child, self.flavor) {
                // Its links change as positions are added: who links to
                // whom is noted, to carry changes up.
                self.parents.push((id.0, record.0));
            }
            children.push(Child { solved: child.map(|id| self.words.get(id)), then_pass });
        }
        let position =
            Position { edax: EdaxPosition { empties: entered.empties, level: entered.level, leaf: entered.leaf } };
        let now = || Ok::<_, Infallible>(entered.value);
        let Ok(solved) = negamax_of(self.flavor, &position, &children, now);
        solved
    }

    /// A candidate's key in the order a round expands it: an Edax
    /// record's bucket ([`in_edax_order`]), its board read again as the
    /// walk leaves it (often still in the cache: most positions have
    /// little below them); an Egaroucid record's rank. Worked out after
    /// the walk, the buckets were a wait on memory for each of millions
    /// of boards strewn over the book.
    ///
    /// [`in_edax_order`]: crate::growth::edax_order::in_edax_order
    fn expansion_key(&self, entered: &Entered, offset: u64) -> u32 {
        match self.flavor {
            Flavor::Edax(_) => u32::from(bucket(&self.book.file().board_at(offset))),
            Flavor::Egaroucid => entered.rank,
        }
    }

    /// Takes the walk's events, batch by batch, until the walk is over,
    /// handing each batch back to be filled again.
    fn run(mut self, batches: Batches<Event>) -> Self {
        let mut links: SmallVec<[Link; 16]> = SmallVec::new();
        batches.each_batch(|batch| {
            for &event in batch {
                match event {
                    Event::Arrive { child, entered } => self.arrive(child, entered),
                    Event::Link { child, then_pass } => links.push((child, then_pass)),
                    Event::Leave { record, offset } => {
                        self.leave(record, offset, &links);
                        links.clear();
                    }
                }
            }
        });
        self
    }

    /// The walk arrived at `child`, entering it if `entered` says what it
    /// read of it.
    fn arrive(&mut self, child: RecordId, entered: Option<Entered>) {
        // Read when the walk leaves the parent: asked for now whether the
        // walk enters the child or has been there already.
        self.words.prefetch(child);
        if let Some(entered) = entered {
            // Set when the walk leaves it, after what lies below it.
            self.solved.prefetch(child);
            self.stack.push(entered);
        }
    }

    /// The walk left `id` (at `offset`) for good, by `links`: its negamax.
    fn leave(&mut self, id: RecordId, offset: u64, links: &[Link]) {
        let Some(entered) = self.stack.pop() else { return };
        let solved = self.negamax(&entered, id, links);
        self.words.set(id, solved);
        self.solved.insert(id);
        let gated = u32::from(entered.empties) >= self.min_empties && !entered.game_over;
        let marked = match self.marks {
            Marks::LeafAtLeastValue => negamax::leaf_score(entered.leaf) >= solved.value,
            // Every link the position has was told, a child the book
            // lacks too (as the growing book's edges list it).
            Marks::NoLinks => links.is_empty(),
        };
        if gated && marked {
            self.met += 1;
            if self.keep_candidates {
                let file = self.book.file();
                self.candidates.push((self.expansion_key(&entered, offset), file.located(id, offset)));
            }
        }
    }
}
