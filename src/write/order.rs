//! Walk order (docs/formats.md, writing books): the order a written book's records take, found by
//! the one walk that mines (a visitor of [`mod@crate::walk`]), so that a later
//! walk of the written book reads it front to back.

use crate::bits::Bits;
use crate::board::Board;
use crate::book::index::Located;
use crate::book::{RecordId, ResolvedBook, Score};
use crate::run::{walked, Cancel, Interrupted, Progress};
use crate::symmetry::normalize;
use crate::walk::{walk, Arrival, Visitor, WalkError, WalkStats, Walkable};
use std::collections::HashSet;

/// A position the walk passed through on an Egaroucid link whose child is
/// the position after a pass (docs/formats.md, Egaroucid books): Edax needs a record of its own
/// for it (§9.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassThrough {
    /// The position before the pass, normalized: its side to move must pass.
    pub board: Board,
    /// The record after the pass.
    pub child: Located,
}

/// What the walk found. The records it reached, in order, are handed out
/// as it goes (see [`walk_order`]).
#[derive(Debug)]
pub struct WalkOrder {
    /// Records reached, the start's included.
    pub reached: u64,
    /// The positions before a pass, in the order the walk first follows a
    /// link through each.
    pub passes: Vec<PassThrough>,
    /// Arrivals by a link whose score is not what the child's value says
    /// (minus it; through a pass, the value itself).
    pub stale_links: u64,
    /// One bit per record: reached.
    reached_bits: Bits,
}

impl WalkOrder {
    /// Nothing reached yet, in a book of `records` records.
    pub fn new(records: u64) -> WalkOrder {
        let records = usize::try_from(records).expect("record ids are 32-bit");
        WalkOrder { reached: 0, passes: Vec::new(), stale_links: 0, reached_bits: Bits::new(records) }
    }

    /// True if the walk reached the record (the start included).
    pub fn is_reached(&self, id: RecordId) -> bool {
        self.reached_bits.contains(id)
    }

    /// Notes a record reached; true if it was not before.
    fn reach(&mut self, at: Located) -> bool {
        let first = self.reached_bits.insert(at.id);
        self.reached += u64::from(first);
        first
    }
}

/// Records reached handed out at a time.
const BATCH: usize = 4096;

/// The visitor that notes first arrivals and passes.
struct Orderer<'a> {
    book: &'a ResolvedBook,
    order: WalkOrder,
    /// Records reached and not yet handed out, in order.
    batch: Vec<Located>,
    reached: &'a mut dyn FnMut(&[Located]) -> Result<(), Interrupted>,
    passes_seen: HashSet<Board>,
    cancel: Cancel<'a>,
    progress: &'a mut dyn FnMut(Progress<'_>),
}

impl Orderer<'_> {
    /// Notes a record reached, handing out a full batch.
    fn reach(&mut self, at: Located) -> Result<(), Interrupted> {
        if self.order.reach(at) {
            self.batch.push(at);
            if self.batch.len() >= BATCH {
                self.hand_out()?;
            }
        }
        Ok(())
    }

    fn hand_out(&mut self) -> Result<(), Interrupted> {
        (self.reached)(&self.batch)?;
        self.batch.clear();
        Ok(())
    }
}

impl Visitor for Orderer<'_> {
    type Error = Interrupted;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Interrupted> {
        let child = self.book.file().located(arrival.child.id, arrival.child.offset);
        let derived = if arrival.via_pass { arrival.child.value } else { Score(-arrival.child.value.0) };
        self.order.stale_links += u64::from(!arrival.by_leaf && arrival.parent_score != derived);
        if arrival.via_pass {
            // The position the move reached, before the pass: the child's
            // discs with the sides swapped back.
            let before = normalize(&arrival.board().swapped()).board;
            if self.passes_seen.insert(before) {
                self.order.passes.push(PassThrough { board: before, child });
            }
        }
        self.reach(child)
    }

    fn progress(&mut self, stats: &WalkStats) -> Result<(), Interrupted> {
        walked(self.cancel, self.progress, stats)
    }
}

/// Walks the book (under the walkable's window) and returns what it
/// found. The records it reaches, the start's first, are handed to
/// `reached` in walk order, a batch at a time, as the walk finds them, so
/// that they can be written while it goes on; an error there stops the walk.
pub fn walk_order(
    walkable: &Walkable,
    cancel: Cancel<'_>,
    progress: &mut dyn FnMut(Progress<'_>),
    reached: &mut dyn FnMut(&[Located]) -> Result<(), Interrupted>,
) -> Result<(WalkOrder, WalkStats), WalkError<Interrupted>> {
    let book = walkable.book();
    let order = WalkOrder::new(book.counts().records);
    let batch = Vec::with_capacity(BATCH);
    let mut orderer = Orderer { book, order, batch, reached, passes_seen: HashSet::new(), cancel, progress };
    orderer.reach(walkable.root()).map_err(WalkError::Visitor)?;
    let (stats, mut orderer) = walk(walkable, orderer)?;
    orderer.hand_out().map_err(WalkError::Visitor)?;
    Ok((orderer.order, stats))
}
