//! The growing book as grow's measure (§14, [`crate::growth::priority`])
//! reads it: a [`LinkGraph`] of the window's links, the gates, the
//! positions under way hidden. grow and deepen both choose by it.

use crate::book::Score;
use crate::growth::growing::solved::{edge_score, Solved};
use crate::growth::growing::store::{NodeId, Store};
use crate::growth::priority::{LinkGraph, ParentLinks};
use crate::window::{Place, Window};
use smallvec::SmallVec;
use std::collections::HashSet;

/// The growing book as §14 sees it: the window's links, the gates, the
/// positions under way hidden.
pub(crate) struct View<'a, 'b> {
    store: &'a Store<'b>,
    solved: &'a Solved,
    window: Window,
    min_empties: u32,
    hidden: &'a HashSet<NodeId>,
    /// The start's empty squares and value, for the window.
    start_empties: u32,
    start_value: Score,
}

impl<'a, 'b> View<'a, 'b> {
    pub(crate) fn new(
        store: &'a Store<'b>,
        solved: &'a Solved,
        root: NodeId,
        (window, min_empties): (Window, u32),
        hidden: &'a HashSet<NodeId>,
    ) -> View<'a, 'b> {
        let start_empties = store.board(root).empties();
        let start_value = solved.value(store, root);
        View { store, solved, window, min_empties, hidden, start_empties, start_value }
    }
}

impl LinkGraph for View<'_, '_> {
    type Node = NodeId;

    fn entered(&self, node: NodeId) -> bool {
        let board = self.store.board(node);
        board.empties() >= self.min_empties && !board.is_game_over()
    }

    fn value(&self, node: NodeId) -> i32 {
        self.solved.value(self.store, node).discs()
    }

    fn leaf(&self, node: NodeId) -> Option<i32> {
        let leaf = self.store.leaf(node).ok()?.filter(|leaf| leaf.mv.is_some());
        crate::negamax::taken_leaf_score(leaf).map(|score| score.discs())
    }

    fn links(&self, node: NodeId, out: &mut Vec<(i32, NodeId)>) {
        let Ok(facts) = self.store.facts(node) else { return };
        let edges = facts.edges;
        // A link whose score cannot be had counts as minus infinity.
        let lowest = -crate::negamax::SCORE_INF;
        let scores: SmallVec<[Score; 8]> =
            edges.iter().map(|e| edge_score(self.store, self.solved, node, e).unwrap_or(lowest)).collect();
        let leaf = facts.leaf.filter(|leaf| leaf.mv.is_some()).map(|leaf| leaf.score);
        let best = scores.iter().copied().chain(leaf).max();
        // The position's own ply: its discs beyond the start's.
        let ply = self.start_empties.saturating_sub(facts.board.empties()) as usize;
        let start_value = self.start_value;
        for (edge, score) in edges.iter().zip(scores) {
            let Some(child) = edge.child else { continue };
            if self.hidden.contains(&child) {
                continue;
            }
            if self.window.passes(score, Place { ply, best }, start_value) {
                out.push((score.discs(), child));
            }
        }
    }
}

impl ParentLinks for View<'_, '_> {
    fn parents(&self, node: NodeId, out: &mut Vec<NodeId>) {
        out.extend(self.solved.parents_of(self.store, node));
    }
}
