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

use super::store::{Facts, Flavor, NodeId, Store};
use super::ExtendError;
use crate::bits::Bits;
use crate::book::index::Located;
use crate::book::RecordId;
use crate::fix::solutions::EdaxSolutions;
use crate::negamax::{self, EdaxPosition, Negamaxed};
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
            noted: None,
        }
    }

    /// What the first negamax computed ([`super::first`]): every record
    /// reached over links from the start, whose parents the store lists.
    pub fn from_first(words: EdaxSolutions, solved: Bits) -> Solved {
        Solved {
            words,
            solved,
            added: HashSet::new(),
            parents: Vec::new(),
            sorted: true,
            more_parents: HashMap::new(),
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
    pub fn get(&self, store: &Store<'_>, id: NodeId) -> Result<Negamaxed, ExtendError> {
        if let Some(node) = store.node(id) {
            return Ok(node.solved);
        }
        match id {
            NodeId::Book(at) if self.solved.contains(at.id) => Ok(self.words.get(at.id)),
            NodeId::Book(at) => store.stored_negamax(at),
            NodeId::Added(_) => unreachable!("an added position is always a node"),
        }
    }

    /// Asks for the memory [`Solved::get`] of a record of the book read reads.
    pub fn prefetch(&self, id: NodeId) {
        if let NodeId::Book(at) = id {
            self.words.prefetch(at.id);
        }
    }

    /// A position's value as the run knows it (a record that cannot be read
    /// any more counts as no value; the run notices the book changed).
    pub fn value(&self, store: &Store<'_>, id: NodeId) -> i16 {
        self.get(store, id).map_or(-negamax::SCORE_INF, |n| n.value)
    }

    /// Negamaxes every position reachable over links from `root`, each
    /// after its children; a position already computed is kept as it is.
    pub fn solve_from(&mut self, store: &mut Store<'_>, root: NodeId) -> Result<(), ExtendError> {
        self.solve(store, root)?;
        if !self.sorted {
            self.parents.sort_unstable_by_key(|&(child, _)| child);
            self.sorted = true;
        }
        Ok(())
    }

    /// Forgets every value computed (an Egaroucid book's links change with
    /// every position added anywhere: it is negamaxed whole again).
    pub fn forget(&mut self) {
        self.solved = Bits::new(self.words.len());
        self.added.clear();
    }

    fn solve(&mut self, store: &mut Store<'_>, id: NodeId) -> Result<(), ExtendError> {
        if !self.mark(id) {
            return Ok(());
        }
        let rank = self.noted.as_mut().map(|noted| {
            noted.entered += 1;
            noted.entered
        });
        let facts = store.facts(id)?;
        for edge in &facts.edges {
            let Some(child) = edge.child else { continue };
            self.note_parent(child, id, edge.listed);
            self.solve(store, child)?;
        }
        self.compute(store, id, &facts)?;
        if let (Some(rank), Some(noted)) = (rank, &self.noted) {
            let entered = facts.board.empties() >= noted.min_empties && !facts.board.is_game_over();
            if entered && i16::from(facts.leaf.score) >= self.get(store, id)?.value {
                self.noted.as_mut().expect("noting").found.push((rank, id));
            }
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
        let located = move |p: u32| file.records_in(p as usize..p as usize + 1).next().map(NodeId::Book);
        let listed = store.stored_parents(child).filter(|&p| self.is_solved(p));
        sorted.iter().filter_map(move |&(_, p)| located(p)).chain(listed).chain(more)
    }

    /// Computes one position from its children, which are computed.
    fn compute(&mut self, store: &mut Store<'_>, id: NodeId, facts: &Facts) -> Result<(), ExtendError> {
        let edges = &facts.edges;
        let children: SmallVec<[Option<Negamaxed>; 8]> =
            edges.iter().map(|e| e.child.map(|c| self.get(store, c)).transpose()).collect::<Result<_, _>>()?;
        // What it holds now, which an Egaroucid record with neither a leaf
        // nor links keeps: the book read's (such a record never changes), or
        // its node's.
        let now = match facts.stored {
            Some(stored) => stored,
            None => self.get(store, id)?,
        };
        let solved = match store.flavor() {
            Flavor::Edax(errors) => {
                let leaf = facts.leaf;
                let position =
                    EdaxPosition { empties: facts.board.empties() as u8, level: facts.level, leaf_score: leaf.score };
                store.set_link_scores(id, children.iter().map(|c| c.as_ref().map(negamax::edax_link_score)));
                negamax::edax_position(&position, errors, children.iter().copied())
            }
            Flavor::Egaroucid => {
                let scores = edges
                    .iter()
                    .zip(&children)
                    .filter_map(|(e, c)| c.map(|c| negamax::egaroucid_link_score(c.value as i8, e.then_pass)));
                let leaf = facts.leaf.mv.map(|_| facts.leaf.score);
                let value = negamax::egaroucid_value(leaf, scores.collect::<SmallVec<[i8; 8]>>());
                Negamaxed { value: value.map_or(now.value, i16::from), ..now }
            }
        };
        if !store.set_solved(id, solved) {
            let NodeId::Book(at) = id else { unreachable!("an added position is always a node") };
            self.words.set(at.id, solved);
        }
        Ok(())
    }

    /// Makes the negamax right again after `changed` (positions whose links
    /// or leaf changed, or that were added): only their ancestors for an
    /// Edax book ([`Solved::update`]); an Egaroucid book whole from `root`,
    /// since a position added becomes a link of every position that can
    /// move to it.
    pub fn after_change(&mut self, store: &mut Store<'_>, root: NodeId, changed: &[NodeId]) -> Result<(), ExtendError> {
        match store.flavor() {
            Flavor::Edax(_) => self.update(store, changed),
            Flavor::Egaroucid => {
                self.forget();
                self.solve_from(store, root)
            }
        }
    }

    /// Carries the changes of `changed` (positions whose links or leaf
    /// changed, or that were added) up to every ancestor whose negamax they
    /// change, children before parents: what a whole negamax from the start
    /// would compute.
    pub fn update(&mut self, store: &mut Store<'_>, changed: &[NodeId]) -> Result<(), ExtendError> {
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
                self.solve(store, child)?;
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
