//! The walk on a second core: a thread that walks the same book ahead of
//! the walk, reading only where each position's moves lead, and says in
//! which order the walk will enter positions, so that the walk asks for
//! each position's memory before it needs it.
//!
//! A walk's reads are a chain: where a position's children are is known
//! only once the position is read, and the walk stops for each new
//! position, one trip to memory. The runner takes that chain on itself:
//! it reads a position's targets alone (no record made, no arrival judged),
//! keeps its own visited bits, and writes each position it enters, in
//! order, into a ring. The walk, entering its n-th position, reads the
//! ring a few entries further on and asks for those positions' records,
//! targets and visited bits; by the time it gets there they are in its
//! cache, and what it does at each position is work, not waiting.
//!
//! Nothing the walk writes depends on the runner: the walk reads the book,
//! keeps its visited bits and decides every arrival as it does alone. The
//! runner only tells it what to ask for early. The two walks enter the
//! same positions in the same order (the same rules over the same
//! targets: [`crate::book::ResolvedBook::children`]), and the walk checks
//! each entry against the ring: where they part (a visitor that declines
//! to enter a position, a book changed under the run), the walk stops the
//! runner and goes on alone.

use super::scouts::Scouts;
use super::visited::Visited;
use crate::book::index::Located;
use crate::book::{RecordId, ResolvedBook};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Entries the ring holds: how far the runner may be ahead of the walk.
/// Far enough to ride out the walk's pauses (a batch handed to the judge),
/// near enough that what it read is still in the shared cache.
const RING: u64 = 1 << 12;
/// How many entries ahead of its own the walk asks for memory.
const DISTANCE: u64 = 24;
/// How often the walk says how far it has come (every this many entries):
/// a counter written at every entry would bounce between the two cores.
const REPORT_EVERY: u64 = 64;

/// What the runner and the walk share.
pub(super) struct Ahead {
    /// The positions the runner entered, the n-th at `n % RING`: the id in
    /// the low 32 bits, the hint in the high.
    ring: Box<[AtomicU64]>,
    /// How many entries the runner has written.
    written: AtomicU64,
    /// How many the walk has passed, as last reported.
    passed: AtomicU64,
    /// Set when the walk no longer reads the ring: it ended, or parted
    /// from the runner.
    stopped: AtomicBool,
}

fn pack(at: Located) -> u64 {
    u64::from(at.id.0) | u64::from(at.hint) << 32
}

fn unpack(word: u64) -> Located {
    Located { id: RecordId(word as u32), hint: (word >> 32) as u32 }
}

impl Ahead {
    pub(super) fn new() -> Ahead {
        Ahead {
            ring: (0..RING).map(|_| AtomicU64::new(0)).collect(),
            written: AtomicU64::new(0),
            passed: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
        }
    }

    /// Tells the runner to stop.
    pub(super) fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }

    /// Writes the runner's next entry, `n`, waiting while the ring is full;
    /// false if the walk has stopped reading it.
    fn write(&self, n: u64, at: Located) -> bool {
        let mut spins = 0u32;
        while n >= self.passed.load(Ordering::Acquire) + RING - REPORT_EVERY {
            if self.stopped.load(Ordering::Relaxed) {
                return false;
            }
            // Spin a little (the walk is near), then give the core away:
            // on a machine with fewer cores than threads, the walk may be
            // the one waiting for it. A full ring is a few hundred
            // microseconds of the walk's work, refilled in one go after.
            spins += 1;
            match spins {
                0..64 => std::hint::spin_loop(),
                64..72 => std::thread::yield_now(),
                _ => std::thread::sleep(std::time::Duration::from_micros(20)),
            }
        }
        self.ring[(n % RING) as usize].store(pack(at), Ordering::Relaxed);
        self.written.store(n + 1, Ordering::Release);
        !self.stopped.load(Ordering::Relaxed)
    }
}

/// Walks `book` from `root` as the walk does without a window (its links,
/// and its leaves when `leaves`, each position entered once), writing each
/// position entered into `ahead`'s ring, until the walk ends or stops it.
/// Its reads are asked for as the walk's are: every child of a position
/// entered at once, and the subtrees waiting on the stack walked ahead by
/// scouts.
pub(super) fn run(book: &ResolvedBook, root: Located, leaves: bool, ahead: &Ahead) {
    let mut visited = Visited::new(book.counts().records, 1);
    visited.insert_in(root.id, 0);
    let mut scouts = Scouts::new();
    // The children of every position on the stack, the top one's last, and
    // per position where its children start and how many it has followed.
    let mut children: Vec<Located> = Vec::new();
    let mut stack: Vec<(usize, usize)> = Vec::with_capacity(64);
    let mut entered = 0u64;
    enter(book, root, leaves, &mut children, &mut scouts);
    stack.push((0, 0));
    while let Some(&mut (first, ref mut followed)) = stack.last_mut() {
        let at = first + *followed;
        if at == children.len() {
            stack.pop();
            children.truncate(first);
            continue;
        }
        *followed += 1;
        let child = children[at];
        if !visited.insert_in(child.id, 0) {
            continue;
        }
        if !ahead.write(entered, child) {
            return;
        }
        entered += 1;
        let first = children.len();
        enter(book, child, leaves, &mut children, &mut scouts);
        stack.push((first, 0));
    }
}

/// Appends the children of `at` to `children`, asking for each one's
/// memory and sending scouts down all but the first.
fn enter(book: &ResolvedBook, at: Located, leaves: bool, children: &mut Vec<Located>, scouts: &mut Scouts) {
    let first = children.len();
    scouts.advance(|at| book.first_child(at), |at| book.prefetch(at));
    book.children(at, leaves, children);
    for (i, &child) in children[first..].iter().enumerate() {
        book.prefetch(child);
        if i > 0 {
            scouts.start(child);
        }
    }
}

/// The walk's side of the ring: which of its entries it has reached.
pub(super) struct Follower<'a> {
    ahead: &'a Ahead,

    /// The walk's entries so far (the start aside).
    entered: u64,
}

/// What the ring says at one of the walk's entries.
pub(super) enum Said {
    /// The same position the runner entered; and, if the runner has got
    /// there, the one the walk will enter [`DISTANCE`] entries on.
    Same(Option<Located>),
    /// Not the one the runner entered: the walks have parted.
    Parted,
}

impl<'a> Follower<'a> {
    pub(super) fn new(ahead: &'a Ahead) -> Follower<'a> {
        Follower { ahead, entered: 0 }
    }

    /// Stops the runner: the walk reads the ring no more.
    pub(super) fn stop(&self) {
        self.ahead.stop();
    }

    /// The walk enters `at`, its next entry: checked against the ring, and
    /// the entry to ask for next read from it.
    #[inline]
    pub(super) fn enter(&mut self, at: Located) -> Said {
        let n = self.entered;
        self.entered += 1;
        if n.is_multiple_of(REPORT_EVERY) {
            self.ahead.passed.store(n, Ordering::Release);
        }
        let written = self.ahead.written.load(Ordering::Acquire);
        let slot = |k: u64| self.ahead.ring[(k % RING) as usize].load(Ordering::Relaxed);
        // The runner behind the walk: nothing to check or ask for yet.
        if n >= written {
            return Said::Same(None);
        }
        if unpack(slot(n)).id != at.id {
            return Said::Parted;
        }
        Said::Same((n + DISTANCE < written).then(|| unpack(slot(n + DISTANCE))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::Book;
    use crate::format::Format;
    use crate::synth::{book_bytes, synthesize_as, SynthOptions};
    use crate::walk::{walk, Arrival, Start, Visitor, Walkable};
    use std::convert::Infallible;

    /// The positions a one-thread walk enters, in order.
    #[derive(Default)]
    struct Entries(Vec<Located>);

    impl Visitor for Entries {
        type Error = Infallible;
        fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Infallible> {
            if arrival.first_time {
                let id = arrival.child.id;
                self.0.push(Located { id, hint: 0 });
            }
            Ok(())
        }
    }

    /// Every entry the runner writes, read as the walk reads them: each
    /// waited for, then checked against the one-thread walk's entries.
    fn runner_agrees(walkable: &Walkable, leaves: bool) {
        let (_, Entries(expected)) = walk(walkable, Entries::default()).unwrap();
        let shared = Ahead::new();
        std::thread::scope(|scope| {
            scope.spawn(|| run(walkable.book(), walkable.root(), leaves, &shared));
            let mut follower = Follower::new(&shared);
            for (n, &at) in expected.iter().enumerate() {
                while shared.written.load(Ordering::Acquire) <= n as u64 {
                    std::thread::yield_now();
                }
                assert!(matches!(follower.enter(at), Said::Same(_)), "entry {n}: record {} differs", at.id.0);
            }
            // Nothing past the walk's last entry: the runner has ended.
            follower.stop();
        });
        assert_eq!(shared.written.load(Ordering::Acquire), expected.len() as u64);
    }

    #[test]
    fn the_runner_enters_the_positions_the_walk_enters_in_its_order() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let options = SynthOptions { positions: 20_000, seed: 5, perturb: 0.05 };
        let mut egbk3 = Vec::new();
        synthesize_as(Format::Egbk3, &SynthOptions { positions: 6_000, ..options }, &mut egbk3).unwrap();
        let (board, line) = crate::kifu::parse_and_play("f5d6").unwrap();
        let books = [
            (Book::from_bytes("synth", book_bytes(&options)).unwrap(), Start::initial()),
            (Book::from_bytes("synth", book_bytes(&options)).unwrap(), Start { board, line }),
            (Book::from_bytes("synth.egbk3", egbk3).unwrap(), Start::initial()),
            (
                Book::open(&repo.join("tests/data/books/edax46-l2-small.dat"), &Default::default()).unwrap(),
                Start::initial(),
            ),
        ];
        for (book, start) in books {
            let walkable = Walkable::new(book, &start).unwrap();
            runner_agrees(&walkable, true);
            runner_agrees(&walkable.links_only(), false);
        }
    }
}
