//! The book as `extend` grows it: the book read (mapped and indexed, never
//! changed) and, in memory, every position the rounds have touched: those
//! read from the book as the walks reach them, and the new ones. A round
//! negamaxes what lies below the start, walks its links for candidates,
//! expands them and says which leaves to search.

use super::search::Query;
use super::ExtendError;
use crate::board::{Board, Move, Square};
use crate::book::{Book, MoveSlot, RecordId, Score};
use crate::format::edax;
use crate::format::egaroucid::{self, Lookup};
use crate::negamax::{self, Counts, EdaxPosition, Negamaxed, SearchErrors, SCORE_INF};
use crate::symmetry::normalize;
use crate::window::{Place, Window};
use smallvec::SmallVec;
use std::collections::HashMap;

/// A position's number in the store.
pub type NodeId = usize;

/// How the book read stores links, and so how values are negamaxed.
#[derive(Clone, Copy, Debug)]
pub enum Flavor {
    /// Links stored with scores; negamaxed as Edax does, with these errors.
    Edax(SearchErrors),
    /// Links are the legal moves whose child is in the book (an .egbk3,
    /// or an older Egaroucid book read as one).
    Egaroucid,
}

/// One position of the store.
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
    pub links: SmallVec<[(i8, Move); 8]>,
    /// The leaf's score (−127: no leaf) and move (`None`: Edax's 65).
    pub leaf_score: i8,
    pub leaf_move: Option<Move>,
    pub value: i16,
    pub lower: i16,
    pub upper: i16,
    pub counts: Counts,
    /// An Egaroucid record's line count, kept as read.
    pub n_lines: u32,
    /// Links or leaf changed: written from here, not copied from the book.
    pub changed: bool,
    /// The last negamax and walk (by number) that reached it.
    solved_in: u32,
    walked_in: u32,
}

/// A move of a position to its child in the store.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    pub mv: Move,
    /// A pass follows the move before the child (Egaroucid, §8 of the formats).
    pub then_pass: bool,
    /// The child; `None` for an Edax link whose child is not in the book.
    pub child: Option<NodeId>,
}

/// What a leaf becomes without a search, or the search that decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafPlan {
    Known {
        score: i8,
        mv: Option<Move>,
    },
    /// `through_pass`: the position must pass; the query is the position
    /// after the pass, and its answer's score, negated, is the leaf's.
    Search {
        query: Query,
        through_pass: bool,
    },
}

pub struct Store<'b> {
    book: &'b Book,
    flavor: Flavor,
    nodes: Vec<Node>,
    ids: HashMap<Board, NodeId>,
    /// The positions added, in the order they were added.
    added: Vec<NodeId>,
    /// Numbers the negamaxes and walks, so that none clears a flag.
    round: u32,
}

impl<'b> Store<'b> {
    pub fn new(book: &'b Book, flavor: Flavor) -> Store<'b> {
        Store { book, flavor, nodes: Vec::new(), ids: HashMap::new(), added: Vec::new(), round: 0 }
    }

    pub fn book(&self) -> &'b Book {
        self.book
    }

    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The positions added, in order.
    pub fn added(&self) -> &[NodeId] {
        &self.added
    }

    /// The position with this stored board, read from the book the first
    /// time it is asked for.
    pub fn find(&mut self, board: &Board) -> Result<Option<NodeId>, ExtendError> {
        if let Some(&id) = self.ids.get(board) {
            return Ok(Some(id));
        }
        let Some(at) = self.book.locate(board) else { return Ok(None) };
        let node = self.read(at)?;
        Ok(Some(self.insert(node)))
    }

    fn insert(&mut self, node: Node) -> NodeId {
        let id = self.nodes.len();
        self.ids.insert(node.board, id);
        self.nodes.push(node);
        id
    }

    /// A record of the book as a node.
    fn read(&self, at: crate::book::index::Located) -> Result<Node, ExtendError> {
        let file = self.book.file();
        let changed = || ExtendError::book_changed(self.book.path());
        let mut node = Node::new(file.board_of(at), 0, Some(at.id));
        match self.flavor {
            Flavor::Edax(_) => {
                let raw = edax::next_record(file.bytes(), file.offset(at) as usize).map_err(|_| changed())?;
                node.level = raw.level();
                node.links = (0..raw.n_links())
                    .filter_map(|i| raw.link_at(MoveSlot::Link(i)))
                    .map(|l| (l.score.0 as i8, l.mv))
                    .collect();
                (node.leaf_score, node.leaf_move) = (raw.leaf_score(), raw.link_at(MoveSlot::Leaf).map(|l| l.mv));
                let (lower, upper) = raw.bounds();
                (node.value, node.lower, node.upper) = (raw.value().0 as i16, lower.0 as i16, upper.0 as i16);
                let [wins, draws, losses, lines] = raw.counts();
                node.counts = Counts { wins, draws, losses, lines };
            }
            Flavor::Egaroucid => {
                let raw = file.egaroucid_record(at).ok_or_else(changed)?;
                node.level = raw.level().clamp(0, 60) as u8;
                node.value = raw.raw_value() as i16;
                node.n_lines = raw.n_lines();
                if let Some(leaf) = raw.leaf() {
                    (node.leaf_score, node.leaf_move) = (leaf.score.0 as i8, Some(leaf.mv));
                }
            }
        }
        Ok(node)
    }

    /// The moves of a position that lead to positions of the store: an
    /// Edax book's stored links (with `None` for a child not in the book),
    /// an Egaroucid book's links as its legal moves find them.
    pub fn edges(&mut self, id: NodeId) -> Result<SmallVec<[Edge; 8]>, ExtendError> {
        let board = self.nodes[id].board;
        let mut edges = SmallVec::new();
        match self.flavor {
            Flavor::Edax(_) => {
                for i in 0..self.nodes[id].links.len() {
                    let mv = self.nodes[id].links[i].1;
                    let child = board.after(mv).ok_or_else(|| self.illegal(id, mv))?;
                    edges.push(Edge { mv, then_pass: false, child: self.find(&normalize(&child).board)? });
                }
            }
            Flavor::Egaroucid => {
                let view = View { ids: &self.ids, nodes: &self.nodes, book: self.book };
                let links = egaroucid::links_of(&board, &view);
                for link in links {
                    let after = board.after(link.mv).ok_or_else(|| self.illegal(id, link.mv))?;
                    let child = if link.then_pass { after.swapped() } else { after };
                    let child = self.find(&normalize(&child).board)?;
                    edges.push(Edge { mv: link.mv, then_pass: link.then_pass, child });
                }
            }
        }
        Ok(edges)
    }

    fn illegal(&self, id: NodeId, mv: Move) -> ExtendError {
        ExtendError::IllegalMove { book: self.book.path().to_path_buf(), origin: self.nodes[id].origin, mv }
    }

    /// Negamaxes every position reachable over links from `root`, each
    /// after its children, as `fix` does (docs/fix.md).
    pub fn negamax(&mut self, root: NodeId) -> Result<(), ExtendError> {
        self.round += 1;
        self.solve(root, self.round)
    }

    fn solve(&mut self, id: NodeId, round: u32) -> Result<(), ExtendError> {
        if self.nodes[id].solved_in == round {
            return Ok(());
        }
        self.nodes[id].solved_in = round;
        let edges = self.edges(id)?;
        for child in edges.iter().filter_map(|e| e.child) {
            self.solve(child, round)?;
        }
        match self.flavor {
            Flavor::Edax(errors) => self.solve_edax(id, &edges, errors),
            Flavor::Egaroucid => self.solve_egaroucid(id, &edges),
        }
        Ok(())
    }

    fn solve_edax(&mut self, id: NodeId, edges: &[Edge], errors: SearchErrors) {
        let node = &self.nodes[id];
        let position =
            EdaxPosition { empties: node.board.empties() as u8, level: node.level, leaf_score: node.leaf_score };
        let children: SmallVec<[Option<Negamaxed>; 8]> =
            edges.iter().map(|e| e.child.map(|c| self.nodes[c].negamaxed())).collect();
        let solved = negamax::edax_position(&position, errors, children.iter().copied());
        let node = &mut self.nodes[id];
        (node.value, node.lower, node.upper, node.counts) = (solved.value, solved.lower, solved.upper, solved.counts);
        for (link, child) in node.links.iter_mut().zip(&children) {
            if let Some(child) = child {
                link.0 = negamax::edax_link_score(child);
            }
        }
    }

    fn solve_egaroucid(&mut self, id: NodeId, edges: &[Edge]) {
        let scores = edges
            .iter()
            .filter_map(|e| e.child.map(|c| negamax::egaroucid_link_score(self.nodes[c].value as i8, e.then_pass)));
        let node = &self.nodes[id];
        let leaf = node.leaf_move.map(|_| node.leaf_score);
        if let Some(value) = negamax::egaroucid_value(leaf, scores.collect::<SmallVec<[i8; 8]>>()) {
            self.nodes[id].value = value.into();
        }
    }

    /// The candidates below `root` in walk order (the order the walk over
    /// links first reaches them): positions with at least `min_empties`
    /// empty squares, not finished, whose leaf scores at least their value.
    /// Only links the window lets through are followed.
    pub fn candidates(&mut self, root: NodeId, window: Window, min_empties: u32) -> Result<Vec<NodeId>, ExtendError> {
        self.round += 1;
        let start_value = Score(self.nodes[root].value.into());
        let mut found = Vec::new();
        self.visit(root, 0, (window, start_value, min_empties), &mut found)?;
        Ok(found)
    }

    fn visit(
        &mut self,
        id: NodeId,
        ply: usize,
        walk: (Window, Score, u32),
        found: &mut Vec<NodeId>,
    ) -> Result<(), ExtendError> {
        let (window, start_value, min_empties) = walk;
        let node = &mut self.nodes[id];
        if node.walked_in == self.round || node.board.empties() < min_empties || node.board.is_game_over() {
            return Ok(());
        }
        node.walked_in = self.round;
        if i16::from(node.leaf_score) >= node.value {
            found.push(id);
        }
        let edges = self.edges(id)?;
        let node = &self.nodes[id];
        let leaf = node.leaf_move.map(|_| i32::from(node.leaf_score));
        let scores: SmallVec<[i32; 8]> = edges.iter().map(|e| self.edge_score(id, e)).collect();
        let best = scores.iter().copied().chain(leaf).max().map(Score);
        for (edge, score) in edges.iter().zip(scores) {
            let Some(child) = edge.child else { continue };
            if window.passes(Score(score), Place { ply, best }, start_value) {
                self.visit(child, ply + 1 + usize::from(edge.then_pass), walk, found)?;
            }
        }
        Ok(())
    }

    /// A link's score: stored (Edax), or found from the child (Egaroucid).
    fn edge_score(&self, id: NodeId, edge: &Edge) -> i32 {
        match (self.flavor, edge.child) {
            (Flavor::Egaroucid, Some(child)) => {
                negamax::egaroucid_link_score(self.nodes[child].value as i8, edge.then_pass).into()
            }
            _ => {
                let links = &self.nodes[id].links;
                links.iter().find(|l| l.1 == edge.mv).map_or(-i32::from(SCORE_INF), |l| l.0.into())
            }
        }
    }

    /// Expands a candidate's leaf: its child joins the store (unless it is
    /// there already) and the leaf's move becomes a link. Returns whether a
    /// position was added; `None` for a candidate without a leaf move.
    pub fn expand(&mut self, id: NodeId) -> Result<Option<bool>, ExtendError> {
        let Some(mv) = self.nodes[id].leaf_move else { return Ok(None) };
        if self.nodes[id].links.len() >= usize::from(u8::MAX) {
            return Err(ExtendError::NoRoomForLink {
                book: self.book.path().to_path_buf(),
                origin: self.nodes[id].origin,
            });
        }
        let board = self.nodes[id].board;
        let child = match self.flavor {
            Flavor::Edax(_) => board.after(mv).map(|after| normalize(&after).board),
            Flavor::Egaroucid => egaroucid::candidates(&board).find(|c| c.mv == mv).map(|c| self.egaroucid_child(&c)),
        };
        let child = child.ok_or_else(|| self.illegal(id, mv))?;
        let (child, added) = match self.find(&child)? {
            Some(existing) => (existing, false),
            None => {
                let level = self.nodes[id].level;
                let new = self.insert(Node::new(child, level, None));
                self.added.push(new);
                (new, true)
            }
        };
        if let Flavor::Edax(_) = self.flavor {
            let score = score_byte(-i32::from(self.nodes[child].value));
            self.nodes[id].links.push((score, mv));
        }
        let node = &mut self.nodes[id];
        (node.leaf_score, node.leaf_move, node.changed) = (-(SCORE_INF as i8), None, true);
        Ok(Some(added))
    }

    /// Where an Egaroucid leaf leads: the position after the move (after
    /// its pass, if one is forced), or, when the game ends there, whichever
    /// of its two sides the book holds (the one after the move, if none).
    fn egaroucid_child(&self, candidate: &egaroucid::Candidate) -> Board {
        let held = |board: &Board| self.ids.contains_key(board) || self.book.locate(board).is_some();
        match candidate.other_child() {
            Some(other) if !held(&candidate.child.board) && held(&other.board) => other.board,
            _ => candidate.child.board,
        }
    }

    /// Links a position added, as Edax's `position_link` does: each legal
    /// move (or the pass, if it must pass) whose child is in the store.
    pub fn link_new(&mut self, id: NodeId) -> Result<(), ExtendError> {
        let board = self.nodes[id].board;
        let mut links = SmallVec::new();
        let moves: SmallVec<[(Move, Board); 16]> = if board.has_moves() {
            Square::iter(board.legal_moves())
                .filter_map(|s| board.after(Move::Play(s)).map(|b| (Move::Play(s), b)))
                .collect()
        } else if board.must_pass() {
            SmallVec::from_elem((Move::Pass, board.swapped()), 1)
        } else {
            SmallVec::new()
        };
        for (mv, child) in moves {
            if let Some(child) = self.find(&normalize(&child).board)? {
                links.push((score_byte(-i32::from(self.nodes[child].value)), mv));
            }
        }
        self.nodes[id].links = links;
        Ok(())
    }

    /// What the leaf of a position becomes: known without a search (a
    /// finished game, or every legal move linked), or the search to ask.
    pub fn leaf_plan(&mut self, id: NodeId) -> Result<LeafPlan, ExtendError> {
        let board = self.nodes[id].board;
        let level = self.nodes[id].level.min(negamax::MAX_LEVEL);
        if board.is_game_over() {
            return Ok(LeafPlan::Known { score: board.final_score() as i8, mv: None });
        }
        let edges = self.edges(id)?;
        let none = LeafPlan::Known { score: -(SCORE_INF as i8), mv: None };
        if board.must_pass() {
            if edges.iter().any(|e| e.mv == Move::Pass) {
                return Ok(none);
            }
            let query = Query { board: normalize(&board.swapped()).board, excluded: 0, level };
            return Ok(LeafPlan::Search { query, through_pass: true });
        }
        let linked = edges.iter().fold(0u64, |bits, e| match e.mv {
            Move::Play(square) => bits | square.bit(),
            Move::Pass => bits,
        });
        let legal = board.legal_moves();
        if legal & !linked == 0 {
            return Ok(none);
        }
        Ok(LeafPlan::Search { query: Query { board, excluded: legal & linked, level }, through_pass: false })
    }

    /// Sets a position's leaf.
    pub fn set_leaf(&mut self, id: NodeId, score: i8, mv: Option<Move>) {
        let node = &mut self.nodes[id];
        (node.leaf_score, node.leaf_move) = (score, mv);
        if node.origin.is_none() && node.board.is_game_over() {
            // A finished game's value is its score (an Egaroucid record
            // without a leaf keeps its value through the negamax).
            node.value = score.into();
        }
    }
}

impl Node {
    fn new(board: Board, level: u8, origin: Option<RecordId>) -> Node {
        let none = -SCORE_INF;
        Node {
            board,
            origin,
            level,
            links: SmallVec::new(),
            leaf_score: none as i8,
            leaf_move: None,
            value: none,
            lower: none,
            upper: none,
            counts: Counts::default(),
            n_lines: 0,
            changed: origin.is_none(),
            solved_in: 0,
            walked_in: 0,
        }
    }

    fn negamaxed(&self) -> Negamaxed {
        Negamaxed { value: self.value, lower: self.lower, upper: self.upper, counts: self.counts }
    }
}

/// A score as a link stores it.
fn score_byte(score: i32) -> i8 {
    score.clamp(i8::MIN.into(), i8::MAX.into()) as i8
}

/// The store as the Egaroucid reader asks it about children: a position of
/// the store, or else of the book read.
struct View<'s> {
    ids: &'s HashMap<Board, NodeId>,
    nodes: &'s [Node],
    book: &'s Book,
}

impl Lookup for View<'_> {
    type Probe = Board;
    type Found = ();

    fn start(&self, stored: &Board) -> Board {
        *stored
    }

    fn find(&self, board: &Board) -> Option<((), Score)> {
        if let Some(&id) = self.ids.get(board) {
            return Some(((), Score(self.nodes[id].value.into())));
        }
        let at = self.book.locate(board)?;
        Some(((), self.book.file().value_of(at)))
    }
}
