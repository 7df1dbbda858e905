//! §13's candidates: from the start, over links only (a window lets through
//! only the links that pass it), each position once, the positions whose
//! leaf scores at least their value, in the order the walk first reaches
//! them. Positions with fewer than `min_empties` empty squares, and
//! finished games, are neither candidates nor walked through.

use super::solved::Solved;
use super::store::{Edge, Flavor, NodeId, Store};
use super::ExtendError;
use crate::bits::Bits;
use crate::book::Score;
use crate::negamax::{self, SCORE_INF};
use crate::window::{Place, Window};
use smallvec::SmallVec;
use std::collections::HashSet;

/// Where the walk goes: its window, the start's value, the fewest empty
/// squares it enters.
#[derive(Clone, Copy, Debug)]
pub struct Gates {
    pub window: Window,
    pub min_empties: u32,
}

impl Gates {
    /// Whether the walk enters a position with this board.
    pub fn enter(&self, board: &crate::board::Board) -> bool {
        board.empties() >= self.min_empties && !board.is_game_over()
    }
}

/// The candidates below `root`, in walk order.
pub fn candidates(store: &Store<'_>, solved: &Solved, root: NodeId, gates: Gates) -> Result<Vec<NodeId>, ExtendError> {
    let mut walk = Walk {
        store,
        solved,
        gates,
        start_value: Score(solved.value(store, root).into()),
        seen: Bits::new(store.book().counts().records as usize),
        seen_added: HashSet::new(),
        found: Vec::new(),
    };
    walk.visit(root, 0)?;
    Ok(walk.found)
}

struct Walk<'a, 'b> {
    store: &'a Store<'b>,
    solved: &'a Solved,
    gates: Gates,
    start_value: Score,
    seen: Bits,
    seen_added: HashSet<u32>,
    found: Vec<NodeId>,
}

impl Walk<'_, '_> {
    /// Marks a position reached; false when it already was.
    fn first_time(&mut self, id: NodeId) -> bool {
        match id {
            NodeId::Book(at) => self.seen.insert(at.id),
            NodeId::Added(k) => self.seen_added.insert(k),
        }
    }

    fn visit(&mut self, id: NodeId, ply: usize) -> Result<(), ExtendError> {
        let board = self.store.board(id);
        if !self.gates.enter(&board) || !self.first_time(id) {
            return Ok(());
        }
        let facts = self.store.facts(id)?;
        let value = self.solved.value(self.store, id);
        let leaf = facts.leaf;
        if i16::from(leaf.score) >= value {
            self.found.push(id);
        }
        let edges = facts.edges;
        let scores: SmallVec<[i32; 8]> = edges.iter().map(|e| self.edge_score(id, e)).collect::<Result<_, _>>()?;
        let best = scores.iter().copied().chain(leaf.mv.map(|_| i32::from(leaf.score))).max().map(Score);
        for (edge, score) in edges.iter().zip(scores) {
            let Some(child) = edge.child else { continue };
            if self.gates.window.passes(Score(score), Place { ply, best }, self.start_value) {
                self.visit(child, ply + 1 + usize::from(edge.then_pass))?;
            }
        }
        Ok(())
    }

    fn edge_score(&self, id: NodeId, edge: &Edge) -> Result<i32, ExtendError> {
        edge_score(self.store, self.solved, id, edge)
    }
}

/// A link's score: its child's negamax (Edax's link score, or
/// Egaroucid's), or as stored for an Edax link to no record.
pub fn edge_score(store: &Store<'_>, solved: &Solved, id: NodeId, edge: &Edge) -> Result<i32, ExtendError> {
    let Some(child) = edge.child else {
        let links = store.links(id)?;
        return Ok(links.iter().find(|l| l.1 == edge.mv).map_or(-i32::from(SCORE_INF), |l| l.0.into()));
    };
    let child = solved.get(store, child)?;
    Ok(match store.flavor() {
        Flavor::Edax(_) => negamax::edax_link_score(&child).into(),
        Flavor::Egaroucid => negamax::egaroucid_link_score(child.value as i8, edge.then_pass).into(),
    })
}
