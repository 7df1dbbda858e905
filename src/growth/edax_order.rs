//! The order in which Edax expands a round's marked positions: the order of
//! its book's hash table. Edax keeps a book in 65,536 buckets, a board's
//! bucket the low 16 bits of a CRC-32C of its player's discs, then of its
//! opponent's; a bucket holds its records in the order they came in (the
//! file's order, then the positions added, in turn), and Edax writes a book
//! in that order too. Edax links a new position at once, to the positions
//! the book holds at that moment, so which of a pass's new positions link to
//! each other depends on this order; expanding in it gives the links (and so
//! the leaves searched) Edax's expansion gives.

use crate::format::edax::bucket;
use crate::growth::growing::store::{Flavor, NodeId, Store};

/// Edax's buckets.
const BUCKETS: usize = 1 << 16;
/// The fewest positions a step of [`EdaxOrder`] sorts (unless fewer are left).
const STEP_AT_LEAST: usize = 1 << 16;
/// A step sorts at least a sixteenth of the positions: at most 17 steps,
/// each a pass over the buckets.
const STEPS: usize = 16;

/// Positions in the order Edax would expand them: for an Edax book by
/// bucket, then as the book holds them (records read first, in file order,
/// then the positions added, in turn); an Egaroucid book's as given.
///
/// Handed out a few buckets at a time: a round may have millions of
/// candidates and stop after a few thousand (`--max-positions`), so only
/// each position's bucket (2 bytes) is kept for all of them, and the
/// positions of the next buckets are sorted when reached (a sixteenth of
/// them or 65,536 at most, 16 bytes each). Sorting them all at once, with
/// their keys, took 32 bytes a candidate: 69 MB at the 2.2 million of the
/// 10M synthetic book's first round.
pub(crate) struct EdaxOrder<'i> {
    ids: &'i [NodeId],
    /// Whether `ids` are sorted into Edax's buckets' order (else handed
    /// out as they are: an Egaroucid book's, or ids in that order already).
    by_bucket: bool,
    /// Each position's bucket, in `ids`' order.
    buckets: Vec<u16>,
    /// How many positions each bucket holds.
    counts: Vec<u32>,
    /// How many positions a step sorts at least.
    least: usize,
    /// The first bucket not yet sorted into `step`.
    next_bucket: usize,
    /// The positions of the buckets sorted last, in order, and how many of
    /// them were handed out (in `ids`' own order: how many of `ids`).
    step: Vec<(u16, NodeId)>,
    taken: usize,
}

impl<'i> EdaxOrder<'i> {
    /// `ids`, of the growing book `store`, to be handed out in Edax's
    /// order, at least `least` of them sorted at a time.
    fn new(store: &Store<'_>, ids: &'i [NodeId], least: usize) -> EdaxOrder<'i> {
        let by_bucket = matches!(store.flavor(), Flavor::Edax(_));
        let (mut buckets, mut counts) = (Vec::new(), Vec::new());
        if by_bucket {
            buckets = buckets_of(store, ids);
            counts = vec![0u32; BUCKETS];
            for &b in &buckets {
                counts[usize::from(b)] += 1;
            }
        }
        EdaxOrder { ids, by_bucket, buckets, counts, least, next_bucket: 0, step: Vec::new(), taken: 0 }
    }

    /// `ids` handed out as they are.
    fn as_given(ids: &'i [NodeId]) -> EdaxOrder<'i> {
        let (buckets, counts, step) = (Vec::new(), Vec::new(), Vec::new());
        EdaxOrder { ids, by_bucket: false, buckets, counts, least: 0, next_bucket: 0, step, taken: 0 }
    }

    /// Sorts the positions of the next buckets into `step`: as many buckets
    /// as hold `least` positions together (one at least). False when none
    /// is left.
    fn sort_next_step(&mut self) -> bool {
        let first = self.next_bucket;
        let mut held = 0usize;
        while self.next_bucket < BUCKETS && (held == 0 || held + self.counts[self.next_bucket] as usize <= self.least) {
            held += self.counts[self.next_bucket] as usize;
            self.next_bucket += 1;
        }
        if held == 0 {
            return false;
        }
        let within = first as u32..self.next_bucket as u32;
        self.step.clear();
        self.step.reserve(held);
        let picked = self.buckets.iter().zip(self.ids).filter(|(&b, _)| within.contains(&u32::from(b)));
        self.step.extend(picked.map(|(&b, &id)| (b, id)));
        self.step.sort_unstable();
        self.taken = 0;
        true
    }
}

impl Iterator for EdaxOrder<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        if !self.by_bucket {
            let id = self.ids.get(self.taken).copied();
            self.taken += 1;
            return id;
        }
        if self.taken == self.step.len() && !self.sort_next_step() {
            return None;
        }
        self.taken += 1;
        Some(self.step[self.taken - 1].1)
    }
}

/// The bucket of each of `ids`, in order: `ids` cut into one run a worker,
/// each run's records read on a thread of its own. A first round may have
/// tens of millions of candidates, each a read of its record from the
/// mapped book (a wait on memory), before the first one is expanded.
fn buckets_of(store: &Store<'_>, ids: &[NodeId]) -> Vec<u16> {
    let mut buckets = vec![0u16; ids.len()];
    let per_worker = ids.len().div_ceil(crate::parallel::workers().max(1)).max(1);
    std::thread::scope(|scope| {
        for (run, ids) in buckets.chunks_mut(per_worker).zip(ids.chunks(per_worker)) {
            scope.spawn(move || fill_buckets(store, ids, run));
        }
    });
    buckets
}

/// Fills `buckets` with the bucket of each of `ids`, each record asked for
/// a few positions before it is read.
fn fill_buckets(store: &Store<'_>, ids: &[NodeId], buckets: &mut [u16]) {
    const AHEAD: usize = 16;
    for (k, (&id, slot)) in ids.iter().zip(buckets.iter_mut()).enumerate() {
        if let Some(&ahead) = ids.get(k + AHEAD) {
            store.prefetch_record(ahead);
        }
        *slot = bucket(&store.board(id));
    }
}

/// `ids` in the order Edax would expand them (see [`EdaxOrder`]).
pub(crate) fn in_edax_order<'i>(store: &Store<'_>, ids: &'i [NodeId]) -> EdaxOrder<'i> {
    EdaxOrder::new(store, ids, STEP_AT_LEAST.max(ids.len() / STEPS))
}

/// The positions a round is to expand, as they were found.
pub(crate) enum Found {
    /// In the order a walk met them: [`in_edax_order`] orders them.
    InWalkOrder(Vec<NodeId>),
    /// In the order a round expands them already: the first negamax's
    /// candidates (`crate::growth::growing::first`), each bucket worked out
    /// as the walk left the position.
    InExpansionOrder(Vec<NodeId>),
}

impl Found {
    /// The positions, in the order they were found in.
    pub(crate) fn ids(&self) -> &[NodeId] {
        match self {
            Found::InWalkOrder(ids) | Found::InExpansionOrder(ids) => ids,
        }
    }

    /// The positions in the order a round expands them ([`in_edax_order`]).
    pub(crate) fn in_expansion_order<'i>(&'i self, store: &Store<'_>) -> EdaxOrder<'i> {
        match self {
            Found::InWalkOrder(ids) => in_edax_order(store, ids),
            Found::InExpansionOrder(ids) => EdaxOrder::as_given(ids),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edax writes a book bucket by bucket: a book it wrote is in
    /// nondecreasing bucket order, and one converted from Egaroucid's is not.
    #[test]
    fn a_book_edax_wrote_is_in_bucket_order() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/books");
        let buckets = |name: &str| -> Vec<u16> {
            let book = crate::book::Book::open(&data.join(name), &Default::default()).unwrap();
            book.records().map(|r| bucket(&r.board())).collect()
        };
        let edax = buckets("edax46-l2-small.dat");
        assert!(edax.len() > 7000);
        assert!(edax.windows(2).all(|w| w[0] <= w[1]));
        assert!(buckets("endgames-extend.dat").windows(2).any(|w| w[0] > w[1]));
    }

    /// Handed out a few buckets at a time, the positions come in the order
    /// of sorting them all at once by bucket, then by position, from any
    /// order given (an Edax book); an Egaroucid book's as given.
    #[test]
    fn the_order_handed_out_step_by_step_is_all_of_them_sorted_at_once() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/books");
        for name in ["edax46-l2-small.dat", "endgames-extend.dat", "egbk3/edax46-l2-small.egbk3"] {
            let book = crate::book::Book::open(&data.join(name), &Default::default()).unwrap();
            let flavor = match book.header().edax() {
                Some(header) => Flavor::Edax(header.search_errors()),
                None => Flavor::Egaroucid,
            };
            let store = Store::with_links(&book, flavor, None);
            let mut ids: Vec<NodeId> = book.file().every_record().map(NodeId::Book).collect();
            // Neither file order nor bucket order, every other one left out.
            ids.sort_by_key(|id| match id {
                NodeId::Book(at) => at.id.0.wrapping_mul(0x9e37_79b9),
                NodeId::Added(k) => *k,
            });
            ids.retain(|id| matches!(id, NodeId::Book(at) if at.id.0 % 2 == 0));
            assert!(ids.len() > 40, "{name}: {} positions", ids.len());
            let mut sorted = ids.clone();
            if let Flavor::Edax(_) = flavor {
                sorted.sort_by_cached_key(|&id| (bucket(&store.board(id)), id));
                assert_ne!(sorted, ids, "{name}: the order given is not Edax's already");
            }
            for least in [1, 7, 100, ids.len()] {
                let order: Vec<NodeId> = EdaxOrder::new(&store, &ids, least).collect();
                assert_eq!(order, sorted, "{name}, {least} at least a step");
            }
            assert_eq!(in_edax_order(&store, &ids).collect::<Vec<_>>(), sorted, "{name}");
        }
    }
}
