//! The negamax of a growing book (docs/fix.md's, position by position):
//! once whole, from the start, then, after each expansion, only where it
//! can have changed — the positions growth changed, and their ancestors,
//! children before parents, as far up as a value changes.
//!
//! A record of the book read keeps what the run computed for it in one
//! word ([`EdaxSolutions`]); a position of the overlay keeps it in its
//! node. The parents of every position the negamax reached are kept too,
//! so that a change can be carried up: those the first negamax found,
//! sorted by child, and those found later, beside them.

use super::error::GrowingError;
use super::first::FirstNegamax;
use super::position::{egaroucid_value, link_scores, negamax_of, Child, LinkScores, Position};
use super::store::{Edge, Facts, Flavor, NodeId, Store, Stored};
use super::view::{walk_growing, GrowingPositions, Stop, Values};
use crate::bits::Bits;
use crate::book::index::Located;
use crate::book::RecordId;
use crate::book::{Destination, Record};
use crate::fix::solutions::EdaxSolutions;
use crate::level::Level;
use crate::negamax::{self, Negamaxed, SCORE_INF};
use crate::score::Score;
use crate::walk::{Arrival, Departure, Visitor};
use smallvec::SmallVec;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

/// What the negamax computed, and the parents it found.
pub struct Solved {
    /// The book read's records the negamax computed, by record.
    words: EdaxSolutions,
    solved: Bits,
    /// Positions added that the negamax computed.
    added: HashSet<u32>,
    /// (child record, parent record), sorted by child once the first
    /// negamax is over; then the parents found later, by child.
    parents: Vec<(u32, u32)>,
    sorted: bool,
    more_parents: HashMap<NodeId, SmallVec<[NodeId; 2]>>,
    /// How many of the positions added the negamax has taken in as links
    /// of the positions that can move to them (an Egaroucid book's).
    added_linked: usize,
    /// The candidates met, while asked for.
    noted: Option<Noted>,
}

/// Candidates the negamax meets, each with the rank of its first entry.
struct Noted {
    min_empties: u32,
    entered: u32,
    found: Vec<(u32, NodeId)>,
}

impl Solved {
    /// Nothing computed yet, for a book of `records` records.
    pub fn new(records: usize) -> Solved {
        Solved {
            words: EdaxSolutions::new(records),
            solved: Bits::new(records),
            added: HashSet::new(),
            parents: Vec::new(),
            sorted: false,
            more_parents: HashMap::new(),
            added_linked: 0,
            noted: None,
        }
    }

    /// What the first negamax computed ([`super::first`]): every record
    /// reached over links from the start, whose parents the store lists,
    /// or `parents` as (child record, parent record).
    pub fn from_first(first: FirstNegamax) -> Solved {
        let FirstNegamax { words, solved, mut parents, .. } = first;
        parents.sort_unstable_by_key(|&(child, _)| child);
        Solved {
            words,
            solved,
            added: HashSet::new(),
            parents,
            sorted: true,
            more_parents: HashMap::new(),
            added_linked: 0,
            noted: None,
        }
    }

    /// Whether the negamax has computed the position.
    pub fn is_solved(&self, id: NodeId) -> bool {
        match id {
            NodeId::Book(at) => self.solved.contains(at.id),
            NodeId::Added(k) => self.added.contains(&k),
        }
    }

    /// A position's negamax as the run knows it: computed, or as stored.
    pub fn get(&self, store: &Store<'_>, id: NodeId) -> Result<Negamaxed, GrowingError> {
        match store.locate(id) {
            Stored::Node(node) => Ok(node.solved),
            Stored::Record(at) if self.solved.contains(at.id) => Ok(self.words.get(at.id)),
            Stored::Record(at) => store.stored_negamax(at),
        }
    }

    /// Asks for the memory [`Solved::get`] of a record of the book read reads.
    pub fn prefetch(&self, id: NodeId) {
        if let NodeId::Book(at) = id {
            self.solved.prefetch(at.id);
            self.words.prefetch(at.id);
        }
    }

    /// A position's value as the run knows it (a record that cannot be read
    /// any more counts as no value; the run notices the book changed).
    pub fn value(&self, store: &Store<'_>, id: NodeId) -> Score {
        self.get(store, id).map_or(-negamax::SCORE_INF, |n| n.value)
    }

    /// Negamaxes every position reachable over links from `root`, each
    /// after its children; a position already computed is kept as it is.
    pub fn solve_from(&mut self, store: &mut Store<'_>, root: NodeId, stop: Stop<'_>) -> Result<(), GrowingError> {
        self.solve(store, root, stop)?;
        if !self.sorted {
            self.parents.sort_unstable_by_key(|&(child, _)| child);
            self.sorted = true;
        }
        Ok(())
    }

    /// Negamaxes `root` and every position below it the negamax has not
    /// computed, each after its children, by the one walk over links
    /// ([`mod@crate::walk`]) of the growing book.
    fn solve(&mut self, store: &mut Store<'_>, root: NodeId, stop: Stop<'_>) -> Result<(), GrowingError> {
        if self.is_solved(root) {
            return Ok(());
        }
        let walkable = GrowingPositions::new(store, None).walk_from(root);
        let mut negamaxer =
            Negamaxer { positions: walkable.positions(), solved: self, stack: Vec::new(), pending: HashMap::new() };
        negamaxer.enter(root, &walkable.positions().record_of(root))?;
        let pending = walk_growing(&walkable, negamaxer, stop)?.pending;
        for (id, (solved, link_scores)) in pending {
            store.set_link_scores(id, link_scores.into_iter());
            store.set_solved(id, solved);
        }
        Ok(())
    }

    /// Notes, from now on, the candidates of extend (docs/extend.md) the
    /// negamax meets: positions with at least `min_empties` empty squares,
    /// not finished, whose leaf scores at least their value.
    pub fn note_candidates(&mut self, min_empties: u32) {
        self.noted = Some(Noted { min_empties, entered: 0, found: Vec::new() });
    }

    /// The candidates noted since [`Solved::note_candidates`], in the order
    /// the negamax first entered them (no more noting). Without a window,
    /// that is the candidate walk's order: the negamax walks the links from
    /// the same root in the same order, and a position it enters that the
    /// candidate walk would not lies below one the gates keep out (with
    /// fewer empty squares), and is kept out too.
    pub fn take_candidates(&mut self) -> Vec<NodeId> {
        let mut found = self.noted.take().map(|noted| noted.found).unwrap_or_default();
        found.sort_unstable_by_key(|&(rank, _)| rank);
        found.into_iter().map(|(_, id)| id).collect()
    }

    /// Marks a position computed (it is, once its children are); false
    /// when it already was.
    fn mark(&mut self, id: NodeId) -> bool {
        match id {
            NodeId::Book(at) => self.solved.insert(at.id),
            NodeId::Added(k) => self.added.insert(k),
        }
    }

    /// Notes that `parent` links to `child`, unless the store lists that
    /// link (`listed`): in the first negamax's list while it runs, else
    /// beside it.
    fn note_parent(&mut self, child: NodeId, parent: NodeId, listed: bool) {
        match (child, parent, self.sorted) {
            _ if listed => {}
            (NodeId::Book(c), NodeId::Book(p), false) => self.parents.push((c.id.0, p.id.0)),
            _ => {
                let list = self.more_parents.entry(child).or_default();
                if !list.contains(&parent) {
                    list.push(parent);
                }
            }
        }
    }

    /// The positions the negamax found linking to `child`.
    /// (A parent of the first negamax is kept as its record number, 4 bytes
    /// instead of 8: where it is in the file is found again when asked.)
    pub fn parents_of<'s>(&'s self, store: &'s Store<'_>, child: NodeId) -> impl Iterator<Item = NodeId> + 's {
        let sorted: &[(u32, u32)] = match child {
            NodeId::Book(at) => {
                let from = self.parents.partition_point(|&(c, _)| c < at.id.0);
                let to = self.parents.partition_point(|&(c, _)| c <= at.id.0);
                &self.parents[from..to]
            }
            NodeId::Added(_) => &[],
        };
        let more = self.more_parents.get(&child).into_iter().flatten().copied();
        let file = store.book().file();
        let located = move |p: u32| file.locate_id(RecordId(p)).map(NodeId::Book);
        let listed = store.stored_parents(child).filter(|&p| self.is_solved(p));
        sorted.iter().filter_map(move |&(_, p)| located(p)).chain(listed).chain(more)
    }

    /// Computes one position from its children, which are computed.
    fn compute(&mut self, store: &mut Store<'_>, id: NodeId, facts: &Facts) -> Result<(), GrowingError> {
        let children: SmallVec<[Child; 8]> = facts
            .edges
            .iter()
            .map(|e| Ok(Child { solved: e.child.map(|c| self.get(store, c)).transpose()?, then_pass: e.then_pass }))
            .collect::<Result<_, GrowingError>>()?;
        let position = Position::of(&facts.board, Level::saturating(facts.level.into()), facts.leaf);
        // The value it holds now, which an Egaroucid record with neither a
        // leaf nor links keeps: the book read's (such a record never
        // changes), or its node's.
        let now = || match facts.stored {
            Some(stored) => Ok(stored.value),
            None => self.get(store, id).map(|n| n.value),
        };
        let solved = negamax_of(store.flavor(), &position, &children, now)?;
        match (facts.stored, id) {
            // A record of the book read growth has not changed: its word.
            (Some(_), NodeId::Book(at)) => self.set_word(at, solved),
            _ => {
                store.set_link_scores(id, link_scores(store.flavor(), &children).into_iter());
                store.set_solved(id, solved);
            }
        }
        Ok(())
    }

    /// Sets what the negamax computed for a record of the book read that
    /// growth has not changed.
    fn set_word(&mut self, at: Located, solved: Negamaxed) {
        self.words.set(at.id, solved);
    }

    /// Makes the negamax right again after `changed` (positions whose links
    /// or leaf changed, or that were added): only their ancestors
    /// ([`Solved::update`]). In an Egaroucid book a position added is a link
    /// of every position that can move to it, so each position added since
    /// the last time brings those (the ones the negamax has computed) among
    /// the changed.
    pub fn after_change(
        &mut self,
        store: &mut Store<'_>,
        changed: &[NodeId],
        stop: Stop<'_>,
    ) -> Result<(), GrowingError> {
        let mut changed = changed.to_vec();
        if let Flavor::Egaroucid = store.flavor() {
            let added = store.added().len();
            for k in self.added_linked..added {
                let id = NodeId::Added(u32::try_from(k).expect("an added position was numbered in 32 bits"));
                changed.push(id);
                changed.extend(store.positions_before(id).into_iter().filter(|&p| self.is_solved(p)));
            }
            self.added_linked = added;
        }
        self.update(store, &changed, stop)
    }

    /// Carries the changes of `changed` (positions whose links or leaf
    /// changed, or that were added) up to every ancestor whose negamax they
    /// change, children before parents: what a whole negamax from the start
    /// would compute.
    pub fn update(&mut self, store: &mut Store<'_>, changed: &[NodeId], stop: Stop<'_>) -> Result<(), GrowingError> {
        let mut queue = BinaryHeap::new();
        let mut queued = HashSet::new();
        for &id in changed {
            if queued.insert(id) {
                queue.push(Reverse((order(store, id), Key::of(id))));
            }
        }
        while let Some(Reverse((_, key))) = queue.pop() {
            let id = key.id();
            let before = self.get(store, id)?;
            let known = self.is_solved(id);
            self.mark(id);
            let facts = store.facts(id)?;
            for edge in &facts.edges {
                let Some(child) = edge.child else { continue };
                self.note_parent(child, id, edge.listed);
                self.solve(store, child, stop)?;
            }
            self.compute(store, id, &facts)?;
            if known && self.get(store, id)? == before {
                continue;
            }
            let parents: SmallVec<[NodeId; 4]> = self.parents_of(store, id).filter(|p| self.is_solved(*p)).collect();
            for parent in parents {
                if queued.insert(parent) {
                    queue.push(Reverse((order(store, parent), Key::of(parent))));
                }
            }
        }
        Ok(())
    }
}

impl Values for Solved {
    fn value(&self, store: &Store<'_>, id: NodeId) -> Score {
        Solved::value(self, store, id)
    }

    fn link_score(&self, store: &Store<'_>, id: NodeId, edge: &Edge) -> Result<Score, GrowingError> {
        edge_score(store, self, id, edge)
    }
}

/// A link's score: its child's negamax (Edax's link score, or
/// Egaroucid's), or as stored for an Edax link to no record.
pub fn edge_score(store: &Store<'_>, solved: &Solved, id: NodeId, edge: &Edge) -> Result<Score, GrowingError> {
    let Some(child) = edge.child else {
        let links = store.links(id)?;
        return Ok(links.iter().find(|l| l.1 == edge.mv).map_or(-SCORE_INF, |l| l.0));
    };
    let child = solved.get(store, child)?;
    Ok(match store.flavor() {
        Flavor::Edax(_) => negamax::edax_link_score(&child),
        Flavor::Egaroucid => negamax::egaroucid_link_score(egaroucid_value(&child), edge.then_pass),
    })
}

/// The walk's visitor for [`Solved::solve`]: the positions on the walk's
/// stack, each computed as the walk leaves it. What it computes for a
/// position of the overlay waits beside it, and is set in the store once
/// the walk, which reads the store, is over.
struct Negamaxer<'a, 's, 'b> {
    positions: &'a GrowingPositions<'s, 'b>,
    solved: &'a mut Solved,
    stack: Vec<Entered>,
    pending: HashMap<NodeId, (Negamaxed, LinkScores)>,
}

/// A position the walk entered, as its negamax reads it.
struct Entered {
    id: NodeId,
    position: Position,
    /// Its rank among the positions entered, while candidates are noted.
    rank: Option<u32>,
    /// Its board is one the candidates' walk enters, while they are noted.
    gated: bool,
}

impl Negamaxer<'_, '_, '_> {
    /// What the run knows of a position: computed by this walk, or before.
    fn get(&self, id: NodeId) -> Result<Negamaxed, GrowingError> {
        match self.pending.get(&id) {
            Some((solved, _)) => Ok(*solved),
            None => self.solved.get(self.positions.store(), id),
        }
    }

    /// Enters a position, read as `record`: marks it computed (it is, once
    /// the walk leaves it) and notes what its negamax reads of it.
    fn enter(&mut self, id: NodeId, record: &Record) -> Result<(), GrowingError> {
        let level = Level::saturating(record.level);
        let board = record.board;
        let leaf = self.positions.leaf(id, record)?;
        self.solved.mark(id);
        let rank = self.solved.noted.as_mut().map(|noted| {
            noted.entered += 1;
            noted.entered
        });
        let gated =
            self.solved.noted.as_ref().is_some_and(|n| board.empties() >= n.min_empties && !board.is_game_over());
        self.stack.push(Entered { id, position: Position::of(&board, level, leaf), rank, gated });
        Ok(())
    }
}

impl Visitor for Negamaxer<'_, '_, '_> {
    type Error = GrowingError;

    fn enters(&mut self, child: &Record) -> bool {
        !self.solved.is_solved(self.positions.node_at(child.id, child.offset))
    }

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), GrowingError> {
        match arrival.first_time {
            true => self.enter(self.positions.node_at(arrival.child.id, arrival.child.offset), arrival.child),
            false => Ok(()),
        }
    }

    fn leave(&mut self, departure: &Departure<'_>) -> Result<(), GrowingError> {
        let Some(entered) = self.stack.pop() else { return Ok(()) };
        let store = self.positions.store();
        let id = entered.id;
        let mut children: SmallVec<[Child; 8]> = SmallVec::new();
        for (i, link) in departure.links.iter().enumerate() {
            let solved = match link.target {
                Destination::Child(at, _) => {
                    let child = self.positions.node(at);
                    self.solved.note_parent(child, id, store.is_listed(id, i, child));
                    Some(self.get(child)?)
                }
                Destination::Absent | Destination::Illegal => None,
            };
            children.push(Child { solved, then_pass: link.link.then_pass });
        }
        let stored = store.locate(id);
        let now = || match stored {
            Stored::Node(node) => Ok(node.solved.value),
            Stored::Record(at) => store.stored_negamax(at).map(|n| n.value),
        };
        let solved = negamax_of(store.flavor(), &entered.position, &children, now)?;
        match stored {
            Stored::Node(_) => {
                self.pending.insert(id, (solved, link_scores(store.flavor(), &children)));
            }
            Stored::Record(at) => self.solved.set_word(at, solved),
        }
        if let (Some(rank), true) = (entered.rank, entered.gated) {
            if negamax::leaf_score(entered.position.edax.leaf) >= solved.value {
                self.solved.noted.as_mut().expect("noting").found.push((rank, id));
            }
        }
        Ok(())
    }
}

/// Where a position comes in an update: a child always before its parents
/// (fewer empty squares; after a pass, the side that can move first).
fn order(store: &Store<'_>, id: NodeId) -> (u32, bool) {
    let board = store.board(id);
    (board.empties(), !board.has_moves())
}

/// A position as a heap orders it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key(u8, u32, u32);

impl Key {
    fn of(id: NodeId) -> Key {
        match id {
            NodeId::Book(at) => Key(0, at.id.0, at.hint),
            NodeId::Added(k) => Key(1, k, 0),
        }
    }

    fn id(self) -> NodeId {
        match self.0 {
            0 => NodeId::Book(Located { id: RecordId(self.1), hint: self.2 }),
            _ => NodeId::Added(self.1),
        }
    }
}
