//! The book as it grows: the book read, where it lies (mapped and indexed,
//! never changed), and beside it an overlay of what growth changed — the
//! records whose links or leaf changed, and the positions added. Every
//! other record is read from the map when it is needed; what the run
//! computed for it (its negamax) is kept in a word a record
//! ([`super::solved`]). An Edax book's links are resolved once, on every
//! core, both ways: where each leads, and which records link to each
//! record. Memory is the overlay's, those words' and tables', not the
//! book's.

use super::error::GrowingError;
use super::leaf_plan::LeafPlan;
use crate::bits::Bits;
use crate::board::{Board, Move};
use crate::book::index::Located;
use crate::book::{Book, Destination, IndexLookup, Leaf, LinkTargets, MoveSlot, Parents, RecordId, Score};
use crate::format::egaroucid::{self, Lookup};
use crate::format::{edax, Header};
use crate::level::Level;
use crate::negamax::{Counts, Negamaxed, SearchErrors, SCORE_INF};
use crate::symmetry::{normalize, Normalized, Placement};
use smallvec::SmallVec;
use std::collections::HashMap;

/// A child the growing book holds, as linking finds it: the move (or the
/// pass) that leads there, the child, and its value as the book read
/// stores it when whoever found the child read its record already (`None`:
/// [`Store::link_found`] reads it). The finder reads it while the record is
/// in its cache, so that linking in file order need not fetch it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldChild {
    /// The move (or the pass).
    pub mv: Move,
    /// The child.
    pub child: NodeId,
    /// Its value as the book read stores it, if read already.
    pub stored_value: Option<Score>,
}

/// A position of the growing book: a record of the book read, or a
/// position the run added (numbered from 0 in the order added).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeId {
    Book(Located),
    Added(u32),
}

/// Where a position of the growing book is held ([`Store::locate`]).
#[derive(Clone, Copy)]
pub enum Stored<'s> {
    /// In a node: a record growth changed, or a position it added.
    Node(&'s Node),
    /// In the book read's record, as it stands.
    Record(Located),
}

impl NodeId {
    /// The position as a number to order by: records of the book read
    /// first, by record, then the positions added, in the order added.
    fn rank(self) -> (u8, u32) {
        match self {
            NodeId::Book(at) => (0, at.id.0),
            NodeId::Added(k) => (1, k),
        }
    }
}

impl Ord for NodeId {
    fn cmp(&self, other: &NodeId) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for NodeId {
    fn partial_cmp(&self, other: &NodeId) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// How the book read stores links, and so how values are negamaxed.
#[derive(Clone, Copy, Debug)]
pub enum Flavor {
    /// Links stored with scores; negamaxed as Edax does, with these errors.
    Edax(SearchErrors),
    /// Links are the legal moves whose child is in the book (an .egbk3,
    /// or an older Egaroucid book read as one).
    Egaroucid,
}

/// A position whose record growth changed or made: all of it, as it now is.
#[derive(Clone, Debug)]
pub struct Node {
    /// The stored (normalized) board.
    pub board: Board,
    /// The book's record it was read from; `None` for a position added.
    pub origin: Option<RecordId>,
    /// The level byte, as stored (a new position takes its parent's).
    pub level: u8,
    /// An Edax book's links as stored, (score, move); links added are
    /// appended. An Egaroucid book's links are found when needed.
    pub links: SmallVec<[(Score, Move); 8]>,
    /// How many of `links` the book read stores (the first ones).
    pub stored_links: usize,
    /// Its leaf, as read or as growth set it.
    pub leaf: Option<Leaf>,
    pub solved: Negamaxed,
    /// An Egaroucid record's line count, kept as read.
    pub n_lines: u32,
}

/// A move of a position to its child.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    pub mv: Move,
    /// A pass follows the move before the child (Egaroucid, §8 of the formats).
    pub then_pass: bool,
    /// The child; `None` for an Edax link whose child is not in the book.
    pub child: Option<NodeId>,
    /// How the child's stored board lies on the position the move reaches.
    pub placement: Placement,
    /// The book read stores this link to this child, so that
    /// [`Store::stored_parents`] lists it.
    pub listed: bool,
}

/// A position as the negamax and the walks read it ([`Store::facts`]).
pub struct Facts {
    pub board: Board,
    pub level: u8,
    pub leaf: Option<Leaf>,
    pub edges: SmallVec<[Edge; 8]>,
    /// What the book read holds of its negamax; `None` for a position
    /// growth changed or added, whose node holds it.
    pub stored: Option<Negamaxed>,
}

pub struct Store<'b> {
    book: &'b Book,
    flavor: Flavor,
    /// An Edax book's links, resolved: where each leads, and who links to
    /// each record (none for an Egaroucid book, whose links change as
    /// positions are added).
    links: Option<(LinkTargets, Parents)>,
    /// Records of the book read whose links or leaf changed.
    changed: HashMap<RecordId, Node>,
    /// The records of `changed`, a bit each: asked before the map, since
    /// nearly every record asked about is not there.
    changed_ids: Bits,
    /// The positions added, in the order added, and their boards.
    added: Vec<Node>,
    added_ids: hashbrown::HashMap<Board, u32>,
    /// The level an Edax book written from the store says in its header,
    /// when not the book read's.
    header_level: Option<Level>,
}

impl<'b> Store<'b> {
    /// The book read, with its links resolved both ways (an Edax book's,
    /// from the book read), or looked up as they are met (`None`).
    pub fn with_links(book: &'b Book, flavor: Flavor, links: Option<(LinkTargets, Parents)>) -> Store<'b> {
        let changed_ids = Bits::new(book.counts().records as usize);
        Store {
            book,
            flavor,
            links,
            changed: HashMap::new(),
            changed_ids,
            added: Vec::new(),
            added_ids: hashbrown::HashMap::new(),
            header_level: None,
        }
    }

    /// The records of the book read that store a link to `child` (none
    /// without the resolved links): the parents whose edges are
    /// [`Edge::listed`].
    pub fn stored_parents(&self, child: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let records = match (child, &self.links) {
            (NodeId::Book(at), Some((_, parents))) => Some(parents.of_record(at.id)),
            _ => None,
        };
        let file = self.book.file();
        records.into_iter().flatten().filter_map(move |p| file.locate_id(p).map(NodeId::Book))
    }

    pub fn book(&self) -> &'b Book {
        self.book
    }

    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    /// The positions added, in order.
    pub fn added(&self) -> &[Node] {
        &self.added
    }

    /// The records of the book read that growth changed.
    pub fn changed(&self) -> &HashMap<RecordId, Node> {
        &self.changed
    }

    /// The record `id` of the book read as growth changed it, if it did:
    /// its bit asked first, which spares hashing the id of each record
    /// not changed (the book written whole asks of every record).
    pub fn changed_record(&self, id: RecordId) -> Option<&Node> {
        match self.changed_ids.contains(id) {
            true => self.changed.get(&id),
            false => None,
        }
    }

    /// The position with this stored board, if the growing book holds it.
    pub fn find(&self, board: &Board) -> Option<NodeId> {
        if let Some(&k) = self.added_ids.get(board) {
            return Some(NodeId::Added(k));
        }
        self.book.locate(board).map(NodeId::Book)
    }

    /// [`Store::find`] of several boards, their lookups overlapped.
    fn find_all(&self, boards: &[Board], found: &mut Vec<Option<NodeId>>) {
        let mut located = Vec::with_capacity(boards.len());
        self.book.locate_all(boards, &mut located);
        let added = |board: &Board| self.added_ids.get(board).map(|&k| NodeId::Added(k));
        found.extend(boards.iter().zip(located).map(|(b, at)| added(b).or(at.map(NodeId::Book))));
    }

    /// The position's node, if growth changed or made it.
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        match self.locate(id) {
            Stored::Node(node) => Some(node),
            Stored::Record(_) => None,
        }
    }

    /// Where the position is held: in a node (a record growth changed, or
    /// a position it added: an added position is always one), or in the
    /// book read's record as it stands.
    pub fn locate(&self, id: NodeId) -> Stored<'_> {
        match id {
            NodeId::Book(at) => self.changed_record(at.id).map_or(Stored::Record(at), Stored::Node),
            NodeId::Added(k) => Stored::Node(&self.added[k as usize]),
        }
    }

    /// Asks for the memory [`Store::node`] reads to tell whether `id`
    /// is a node.
    pub fn prefetch(&self, id: NodeId) {
        if let NodeId::Book(at) = id {
            self.changed_ids.prefetch(at.id);
        }
    }

    /// Asks for what [`Store::board`] reads of a position of the book
    /// read: whether growth changed it, and its record.
    pub fn prefetch_record(&self, id: NodeId) {
        if let NodeId::Book(at) = id {
            self.changed_ids.prefetch(at.id);
            self.book.file().prefetch(at);
        }
    }

    pub(crate) fn node_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        match id {
            NodeId::Book(at) => self.changed.get_mut(&at.id),
            NodeId::Added(k) => Some(&mut self.added[k as usize]),
        }
    }

    /// The book's record `at`, as a node: to be changed, or to be asked
    /// what the map holds.
    fn read(&self, at: Located) -> Result<Node, GrowingError> {
        let file = self.book.file();
        let changed = || GrowingError::book_changed(self.book.path());
        let mut node = Node::new(file.board_of(at), 0, Some(at.id));
        match self.flavor {
            Flavor::Edax(_) => {
                let raw = edax::next_record(file.bytes(), file.offset(at) as usize).map_err(|_| changed())?;
                node.level = raw.level();
                node.links = links_of(&raw);
                node.stored_links = node.links.len();
                node.leaf = raw.leaf();
                let (lower, upper) = raw.bounds();
                let [wins, draws, losses, lines] = raw.counts();
                node.solved =
                    Negamaxed { value: raw.value(), lower, upper, counts: Counts { wins, draws, losses, lines } };
            }
            Flavor::Egaroucid => {
                let raw = file.egaroucid_record(at).ok_or_else(changed)?;
                node.level = Level::saturating(raw.level().into()).to_u8();
                node.solved.value = Score::new(raw.raw_value());
                node.n_lines = raw.n_lines();
                node.leaf = raw.leaf().map(Leaf::of);
            }
        }
        Ok(node)
    }

    /// A position's board.
    pub fn board(&self, id: NodeId) -> Board {
        match self.locate(id) {
            Stored::Node(node) => node.board,
            Stored::Record(at) => self.book.file().board_of(at),
        }
    }

    /// A position's leaf.
    pub fn leaf(&self, id: NodeId) -> Result<Option<Leaf>, GrowingError> {
        match (self.locate(id), self.flavor) {
            (Stored::Node(node), _) => Ok(node.leaf),
            // What [`Store::read`] reads of it, the rest left unread.
            (Stored::Record(at), Flavor::Edax(_)) => Ok(self.raw_edax(at)?.leaf()),
            (Stored::Record(at), Flavor::Egaroucid) => Ok(self.read(at)?.leaf),
        }
    }

    /// The Edax record `at` of the book read.
    fn raw_edax(&self, at: Located) -> Result<edax::RawRecord<'_>, GrowingError> {
        let file = self.book.file();
        edax::next_record(file.bytes(), file.offset(at) as usize)
            .map_err(|_| GrowingError::book_changed(self.book.path()))
    }

    /// How many edges [`Store::facts`] gives a position, told without
    /// looking its children up where none need be: an Edax position has
    /// an edge for each link, its child held or not; an Egaroucid position
    /// one for each move whose child the growing book holds.
    pub fn edge_count(&self, id: NodeId) -> Result<usize, GrowingError> {
        match (self.locate(id), self.flavor) {
            (Stored::Node(node), Flavor::Edax(_)) => Ok(node.links.len()),
            (Stored::Record(at), Flavor::Edax(_)) => Ok(links_of(&self.raw_edax(at)?).len()),
            (_, Flavor::Egaroucid) => Ok(self.facts(id)?.edges.len()),
        }
    }

    /// A position's level: as the book read stores it, or as growth set it.
    pub fn level(&self, id: NodeId) -> Result<u8, GrowingError> {
        match self.locate(id) {
            Stored::Node(node) => Ok(node.level),
            Stored::Record(at) => Ok(self.read(at)?.level),
        }
    }

    /// A position's value as it now stands: as the book read stores it,
    /// or as growth left it.
    pub fn value(&self, id: NodeId) -> Result<Score, GrowingError> {
        match (self.locate(id), self.flavor) {
            (Stored::Node(node), _) => Ok(node.solved.value),
            // What [`Store::read`] reads of it, the rest left unread.
            (Stored::Record(at), Flavor::Edax(_)) => Ok(self.raw_edax(at)?.value()),
            (Stored::Record(at), Flavor::Egaroucid) => Ok(self.read(at)?.solved.value),
        }
    }

    /// [`Store::value`] of a child linking found, given what the finder
    /// read of its record (`stored`): that value stands unless growth
    /// changed the record since, and the record is not read again.
    fn value_of_held(&self, child: NodeId, stored: Option<Score>) -> Result<Score, GrowingError> {
        match (child, stored, self.flavor) {
            (NodeId::Book(at), Some(value), Flavor::Edax(_)) if !self.changed_ids.contains(at.id) => Ok(value),
            _ => self.value(child),
        }
    }

    /// What the book read holds of a record's negamax (for a record the run
    /// has not negamaxed).
    pub fn stored_negamax(&self, at: Located) -> Result<Negamaxed, GrowingError> {
        Ok(self.read(at)?.solved)
    }

    /// What the negamax and the walks read of a position, read once: its
    /// board, level and leaf, its edges, and for a record growth has not
    /// changed, what the book read holds of its negamax.
    pub fn facts(&self, id: NodeId) -> Result<Facts, GrowingError> {
        let (node, stored) = match self.locate(id) {
            Stored::Node(node) => (node.clone(), None),
            Stored::Record(at) => {
                let node = self.read(at)?;
                let stored = node.solved;
                (node, Some(stored))
            }
        };
        let edges = match (id, &self.links, stored.is_some()) {
            (NodeId::Book(at), Some((targets, _)), true) => self.resolved_edges(at, targets, &node)?,
            _ => self.edges_of(id, &node)?,
        };
        Ok(Facts { board: node.board, level: node.level, leaf: node.leaf, edges, stored })
    }

    /// The moves of a position that lead to positions of the growing book:
    /// an Edax book's stored links (with `None` for a child not in the
    /// book), an Egaroucid book's links as its legal moves find them.
    fn edges_of(&self, id: NodeId, node: &Node) -> Result<SmallVec<[Edge; 8]>, GrowingError> {
        let board = node.board;
        let mut edges = SmallVec::new();
        match self.flavor {
            Flavor::Edax(_) => {
                let mut normalized: SmallVec<[Normalized; 16]> = SmallVec::new();
                for &(_, mv) in &node.links {
                    let child = board.after(mv).ok_or_else(|| self.illegal(id, mv))?;
                    normalized.push(normalize(&child));
                }
                let children: SmallVec<[Board; 16]> = normalized.iter().map(|n| n.board).collect();
                let mut found = Vec::with_capacity(children.len());
                self.find_all(&children, &mut found);
                for (i, ((&(_, mv), child), n)) in node.links.iter().zip(found).zip(&normalized).enumerate() {
                    let listed = child.is_some_and(|child| self.is_listed(id, i, child));
                    edges.push(Edge { mv, then_pass: false, child, placement: n.placement(), listed });
                }
            }
            Flavor::Egaroucid => {
                for found in egaroucid::found_links_of(&board, &View::of(self)) {
                    let (mv, then_pass, placement) = (found.link.mv, found.link.then_pass, found.placement);
                    edges.push(Edge { mv, then_pass, child: Some(found.child), placement, listed: false });
                }
            }
        }
        Ok(edges)
    }

    /// The edges of a record of an Edax book growth has not changed, `node`
    /// as read: its links' targets as resolved; a child not in the book
    /// read may be a position added since.
    fn resolved_edges(
        &self,
        at: Located,
        targets: &LinkTargets,
        node: &Node,
    ) -> Result<SmallVec<[Edge; 8]>, GrowingError> {
        let found: SmallVec<[Destination; 8]> = targets.of(self.book.file(), at).collect();
        if found.len() != node.links.len() {
            return Err(GrowingError::book_changed(self.book.path()));
        }
        let mut edges = SmallVec::new();
        for (i, (&(_, mv), target)) in node.links.iter().zip(found).enumerate() {
            let (child, placement) = self.resolved_child(at, i, target)?.unzip();
            let placement = placement.unwrap_or_default();
            let listed = child.is_some_and(|child| self.is_listed(NodeId::Book(at), i, child));
            edges.push(Edge { mv, then_pass: false, child, placement, listed });
        }
        Ok(edges)
    }

    /// Whether link `i` of `parent`, leading to `child`, is one the book
    /// read stores and [`Store::stored_parents`] lists: a link to a record
    /// of the book read, stored by a record of it (changed or not).
    pub fn is_listed(&self, parent: NodeId, i: usize, child: NodeId) -> bool {
        if self.links.is_none() || !matches!(child, NodeId::Book(_)) {
            return false;
        }
        match self.node(parent) {
            Some(node) => i < node.stored_links,
            None => matches!(parent, NodeId::Book(_)),
        }
    }

    /// The children of an Edax position's links, in stored order (`None`:
    /// not in the growing book), appended to `out`: as resolved for a
    /// record growth has not changed, else looked up.
    pub fn link_children(&self, id: NodeId, out: &mut Vec<Option<NodeId>>) -> Result<(), GrowingError> {
        let (NodeId::Book(at), Some((targets, _)), None) = (id, &self.links, self.node(id)) else {
            out.extend(self.facts(id)?.edges.iter().map(|e| e.child));
            return Ok(());
        };
        for (i, target) in targets.of(self.book.file(), at).enumerate() {
            out.push(self.resolved_child(at, i, target)?.map(|(child, _)| child));
        }
        Ok(())
    }

    /// Where link `i` of the record `at`, which resolving found leads to
    /// `target` in the book read, leads in the growing book, and how the
    /// child lies there: a child not in the book read may be a position
    /// added since.
    fn resolved_child(
        &self,
        at: Located,
        i: usize,
        target: Destination,
    ) -> Result<Option<(NodeId, Placement)>, GrowingError> {
        match target {
            Destination::Child(child, placement) => Ok(Some((NodeId::Book(child), placement))),
            Destination::Absent if self.added_ids.is_empty() => Ok(None),
            Destination::Absent | Destination::Illegal => self.added_child(at, i),
        }
    }

    /// The position added that link `i` of the record `at` leads to, if
    /// any, and how it lies on the position the link reaches. (An illegal
    /// move is named by the move played there.)
    fn added_child(&self, at: Located, i: usize) -> Result<Option<(NodeId, Placement)>, GrowingError> {
        let file = self.book.file();
        let changed = || GrowingError::book_changed(self.book.path());
        let raw = edax::next_record(file.bytes(), file.offset(at) as usize).map_err(|_| changed())?;
        let mv = raw.link_at(MoveSlot::Link(i)).ok_or_else(changed)?.mv;
        let after = normalize(&raw.board().after(mv).ok_or_else(|| self.illegal(NodeId::Book(at), mv))?);
        Ok(self.added_ids.get(&after.board).map(|&k| (NodeId::Added(k), after.placement())))
    }

    /// An Edax position's links as stored: (score, move).
    pub fn links(&self, id: NodeId) -> Result<SmallVec<[(Score, Move); 8]>, GrowingError> {
        match self.locate(id) {
            Stored::Node(node) => Ok(node.links.clone()),
            Stored::Record(at) => Ok(links_of(&self.raw_edax(at)?)),
        }
    }

    fn illegal(&self, id: NodeId, mv: Move) -> GrowingError {
        GrowingError::IllegalMove { book: self.book.path().to_path_buf(), origin: self.origin(id), mv }
    }

    /// The record a position was read from; `None` for one added.
    pub fn origin(&self, id: NodeId) -> Option<RecordId> {
        match id {
            NodeId::Book(at) => Some(at.id),
            NodeId::Added(_) => None,
        }
    }

    /// Sets what the negamax computed for a position of the overlay.
    pub fn set_solved(&mut self, id: NodeId, solved: Negamaxed) -> bool {
        match self.node_mut(id) {
            Some(node) => {
                node.solved = solved;
                true
            }
            None => false,
        }
    }

    /// Sets an overlay position's link scores (Edax), in stored order.
    pub fn set_link_scores(&mut self, id: NodeId, scores: impl Iterator<Item = Option<Score>>) {
        if let Some(node) = self.node_mut(id) {
            for (link, score) in node.links.iter_mut().zip(scores) {
                if let Some(score) = score {
                    link.0 = score;
                }
            }
        }
    }

    /// Expands a candidate's leaf: its child joins the book (unless it is
    /// there already) and the leaf's move becomes a link. Returns the child
    /// and whether it was added; `None` for a candidate without a leaf move.
    /// `negamax` gives what the run computed for a position: the candidate
    /// enters the overlay with its own (a later change is compared with
    /// it), and the new link is scored by the child's.
    pub fn expand(
        &mut self,
        id: NodeId,
        negamax: impl Fn(&Store<'b>, NodeId) -> Result<Negamaxed, GrowingError>,
    ) -> Result<Option<(NodeId, bool)>, GrowingError> {
        if self.node(id).is_none() {
            let solved = negamax(self, id)?;
            self.touch(id)?;
            self.set_solved(id, solved);
        }
        let node = self.node(id).expect("touched");
        let Some(mv) = node.leaf.and_then(|leaf| leaf.mv) else { return Ok(None) };
        if node.links.len() >= usize::from(u8::MAX) {
            return Err(GrowingError::NoRoomForLink { book: self.book.path().to_path_buf(), origin: node.origin });
        }
        let board = node.board;
        let child = match self.flavor {
            Flavor::Edax(_) => board.after(mv).map(|after| normalize(&after).board),
            Flavor::Egaroucid => egaroucid::candidates(&board).find(|c| c.mv == mv).map(|c| self.egaroucid_child(&c)),
        };
        let child = child.ok_or_else(|| self.illegal(id, mv))?;
        let (child, added) = match self.find(&child) {
            Some(existing) => (existing, false),
            None => {
                let level = node.level;
                (self.add(Node::new(child, level, None)), true)
            }
        };
        let score = crate::negamax::new_link_score(negamax(self, child)?.value);
        let edax = matches!(self.flavor, Flavor::Edax(_));
        let node = self.node_mut(id).expect("touched");
        if edax {
            node.links.push((score, mv));
        }
        node.leaf = None;
        Ok(Some((child, added)))
    }

    /// Puts a book record into the overlay, as the map holds it, to change it.
    pub(crate) fn touch(&mut self, id: NodeId) -> Result<(), GrowingError> {
        if let NodeId::Book(at) = id {
            if !self.changed.contains_key(&at.id) {
                let node = self.read(at)?;
                self.changed.insert(at.id, node);
                self.changed_ids.insert(at.id);
            }
        }
        Ok(())
    }

    pub(crate) fn add(&mut self, node: Node) -> NodeId {
        let k = u32::try_from(self.added.len()).expect("fewer positions added than a book holds");
        self.added_ids.insert(node.board, k);
        self.added.push(node);
        NodeId::Added(k)
    }

    /// Where an Egaroucid leaf leads: the position after the move (after
    /// its pass, if one is forced), or, when the game ends there, whichever
    /// of its two sides the book holds (the one after the move, if none).
    fn egaroucid_child(&self, candidate: &egaroucid::Candidate) -> Board {
        let held = |board: &Board| self.find(board).is_some();
        match candidate.other_child() {
            Some(other) if !held(&candidate.child.board) && held(&other.board) => other.board,
            _ => candidate.child.board,
        }
    }

    /// The positions of the growing book that can move to `child`, as an
    /// Egaroucid book's links go: by a move to it, by a move to its other
    /// side (a move the pass follows, or a finished game whose other side
    /// the book holds), or by a pass. (A few more may come: a move to its
    /// other side that no pass follows. Each is worked out again, no
    /// harm.)
    pub fn positions_before(&self, child: NodeId) -> Vec<NodeId> {
        let board = self.board(child);
        let mut found = Vec::new();
        let before = [board, board.swapped()].into_iter().flat_map(|side| side.before_moves());
        for board in before.map(|(_, before)| before).chain([board.swapped()]) {
            if let Some(id) = self.find(&normalize(&board).board) {
                if !found.contains(&id) {
                    found.push(id);
                }
            }
        }
        found
    }

    /// Links a position added, as Edax's `position_link` does: each legal
    /// move (or the pass, if it must pass) whose child is in the book, each
    /// scored by `value` of the child.
    pub fn link_new(&mut self, id: NodeId, value: impl Fn(&Store<'b>, NodeId) -> Score) {
        let board = self.board(id);
        let mut links = SmallVec::new();
        for (mv, child) in board.children() {
            if let Some(child) = self.find(&normalize(&child).board) {
                links.push((crate::negamax::new_link_score(value(self, child)), mv));
            }
        }
        if let Some(node) = self.node_mut(id) {
            node.links = links;
        }
    }

    /// Sets a new Egaroucid position's value from its children as the book
    /// now holds them: the best of minus their values (add's and fill's).
    pub fn value_from_children(&mut self, id: NodeId) -> Result<(), GrowingError> {
        let edges = self.facts(id)?.edges;
        let mut value = -SCORE_INF;
        for child in edges.iter().filter_map(|e| e.child) {
            value = value.max(-self.value(child)?);
        }
        self.node_mut(id).expect("added").solved.value = value;
        Ok(())
    }

    /// Links a position the book holds, as Edax's `position_link` does:
    /// each move (or the pass) whose child the book holds becomes a link if
    /// it is not one, raising the value to its score and taking the leaf's
    /// place if it was the leaf's move; a link there already is scored
    /// again. Returns the links added. An Egaroucid book's links are its
    /// moves whose child it holds: nothing to store.
    pub fn link_held(&mut self, id: NodeId) -> Result<u64, GrowingError> {
        if let Flavor::Egaroucid = self.flavor {
            return Ok(0);
        }
        // Every child looked up at once, their cache misses overlapped.
        let (moves, children): (SmallVec<[Move; 16]>, SmallVec<[Board; 16]>) =
            self.board(id).children().into_iter().map(|(mv, child)| (mv, normalize(&child).board)).unzip();
        let mut found = Vec::with_capacity(children.len());
        self.find_all(&children, &mut found);
        let held: SmallVec<[HeldChild; 16]> = moves
            .into_iter()
            .zip(found)
            .filter_map(|(mv, child)| Some(HeldChild { mv, child: child?, stored_value: None }))
            .collect();
        self.link_found(id, &held)
    }

    /// [`Store::link_held`] with the children looked up already: `held`,
    /// each move (or the pass) whose child the growing book holds, in the
    /// order of [`Board::children`].
    pub fn link_found(&mut self, id: NodeId, held: &[HeldChild]) -> Result<u64, GrowingError> {
        if let Flavor::Egaroucid = self.flavor {
            return Ok(0);
        }
        // Only what linking changes is read: most records it leaves alone.
        let (mut links, mut value, mut leaf) = match self.locate(id) {
            Stored::Node(node) => (node.links.clone(), node.solved.value, node.leaf),
            Stored::Record(at) => {
                let raw = self.raw_edax(at)?;
                if self.stored_links_stand(&raw, held)? {
                    return Ok(0);
                }
                (links_of(&raw), raw.value(), raw.leaf())
            }
        };
        let (mut changed, mut added) = (false, 0);
        for &HeldChild { mv, child, stored_value } in held {
            let score = crate::negamax::new_link_score(self.value_of_held(child, stored_value)?);
            match links.iter_mut().find(|(_, m)| *m == mv) {
                Some(link) => {
                    changed |= link.0 != score;
                    link.0 = score;
                }
                None => {
                    links.push((score, mv));
                    (changed, added) = (true, added + 1);
                    value = value.max(score);
                    if leaf.is_some_and(|leaf| leaf.mv == Some(mv)) {
                        leaf = None;
                    }
                }
            }
        }
        if !changed {
            return Ok(0);
        }
        if links.len() > usize::from(u8::MAX) {
            return Err(GrowingError::NoRoomForLink { book: self.book.path().to_path_buf(), origin: self.origin(id) });
        }
        self.touch(id)?;
        let node = self.node_mut(id).expect("touched");
        node.links = links;
        node.solved.value = value;
        node.leaf = leaf;
        Ok(added)
    }

    /// Whether [`Store::link_found`] leaves a record of the book read as
    /// it is: each child held is the child of a stored link already, which
    /// stores the score linking gives it. Asked of the record's bytes
    /// before its links are gathered: most records are left so.
    fn stored_links_stand(&self, raw: &edax::RawRecord<'_>, held: &[HeldChild]) -> Result<bool, GrowingError> {
        for &HeldChild { mv, child, stored_value } in held {
            let score = crate::negamax::new_link_score(self.value_of_held(child, stored_value)?);
            let mut stored = (0..raw.n_links()).filter_map(|i| raw.link_at(MoveSlot::Link(i)));
            if stored.find(|link| link.mv == mv).is_none_or(|link| link.score != score) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// What the leaf of a position becomes: known without a search (a
    /// finished game, or every legal move linked), or the search to ask.
    pub fn leaf_plan(&self, id: NodeId) -> Result<LeafPlan, GrowingError> {
        let Facts { board, level, edges, .. } = self.facts(id)?;
        Ok(LeafPlan::of(&board, edges.iter().map(|e| e.mv), Level::saturating(level.into())))
    }

    /// Sets the level of a position, its leaf to be searched again at it.
    pub fn set_level(&mut self, id: NodeId, level: Level) -> Result<(), GrowingError> {
        self.touch(id)?;
        self.node_mut(id).expect("touched").level = level.to_u8();
        Ok(())
    }

    /// Has the header of the book written say `level` (an Edax book's;
    /// an Egaroucid header holds no level).
    pub fn set_header_level(&mut self, level: Level) {
        self.header_level = Some(level);
    }

    /// The header of the book written from the store, with `records`
    /// records: the book read's, with the level set, if one was.
    pub fn header_bytes(&self, records: u64) -> Vec<u8> {
        match (self.book.header(), self.header_level) {
            (Header::Edax(header), Some(level)) => {
                let header = edax::Header { level: level.to_i32(), ..header };
                Header::Edax(header).kept(records)
            }
            (header, _) => header.kept(records),
        }
    }

    /// Sets the leaf of a position growth changed or added.
    pub fn set_leaf(&mut self, id: NodeId, leaf: Option<Leaf>) {
        let node = self.node_mut(id).expect("a leaf is set only where growth changed the position");
        node.leaf = leaf;
        if node.origin.is_none() && node.board.is_game_over() {
            // A finished game's value is its score (an Egaroucid record
            // without a leaf keeps its value through the negamax).
            node.solved.value = crate::negamax::leaf_score(leaf);
        }
    }
}

/// An Edax record's links as a node holds them: score and move, in stored
/// order, a slot without a move left out.
fn links_of(raw: &edax::RawRecord<'_>) -> SmallVec<[(Score, Move); 8]> {
    (0..raw.n_links()).filter_map(|i| raw.link_at(MoveSlot::Link(i))).map(|l| (l.score, l.mv)).collect()
}

impl Node {
    pub(crate) fn new(board: Board, level: u8, origin: Option<RecordId>) -> Node {
        let none = -SCORE_INF;
        Node {
            board,
            origin,
            level,
            links: SmallVec::new(),
            leaf: None,
            stored_links: 0,
            solved: Negamaxed { value: none, lower: none, upper: none, counts: Counts::default() },
            n_lines: 0,
        }
    }
}

/// The growing book as the Egaroucid reader asks it which children exist,
/// and where: a position added, or else the book read's, whose lookups go
/// stage by stage (the value it is told is not used: links are scored by
/// the negamax).
struct View<'s, 'b>(&'s Store<'b>, IndexLookup<'b>);

impl<'s, 'b> View<'s, 'b> {
    fn of(store: &'s Store<'b>) -> View<'s, 'b> {
        View(store, store.book.lookup())
    }
}

impl Lookup for View<'_, '_> {
    type Probe = (Board, <IndexLookup<'static> as Lookup>::Probe);
    type Found = NodeId;

    fn start(&self, stored: &Board) -> Self::Probe {
        (*stored, self.1.start(stored))
    }

    fn prefetch_next(&self, (_, probe): &Self::Probe) {
        self.1.prefetch_next(probe);
    }

    fn find(&self, (board, probe): &Self::Probe) -> Option<(NodeId, Score)> {
        if let Some(&k) = self.0.added_ids.get(board) {
            return Some((NodeId::Added(k), Score(0)));
        }
        self.1.find(probe).map(|(at, _)| (NodeId::Book(at), Score(0)))
    }
}
