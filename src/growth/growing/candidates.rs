//! §13's candidates: from the start, over links only (a window lets through
//! only the links that pass it), each position once, the positions whose
//! leaf scores at least their value, in the order the walk first reaches
//! them. Positions with fewer than `min_empties` empty squares, and
//! finished games, are neither candidates nor walked through.
//!
//! The walk is the one walk ([`mod@crate::walk`]) over the growing book
//! ([`super::view`]), its links scored by what the run computed below them.

use super::error::GrowingError;
pub use super::marks::Marks;
use super::solved::Solved;
use super::store::{NodeId, Store};
use super::view::{walk_growing, GrowingPositions, Stop};
use crate::board::Board;
use crate::book::Record;
use crate::negamax;
use crate::walk::{Arrival, Visitor};
use crate::window::Window;

/// Where the walk goes: its window, the start's value, the fewest empty
/// squares it enters.
#[derive(Clone, Copy, Debug)]
pub struct Gates {
    pub window: Window,
    pub min_empties: u32,
}

impl Gates {
    /// Whether the walk enters a position with this board.
    pub fn enter(&self, board: &Board) -> bool {
        board.empties() >= self.min_empties && !board.is_game_over()
    }
}

/// The candidates below `root`, in walk order (extend's [`marked`]).
#[cfg(test)]
pub fn candidates(
    store: &Store<'_>,
    solved: &Solved,
    root: NodeId,
    gates: Gates,
    stop: Stop<'_>,
) -> Result<Vec<NodeId>, GrowingError> {
    marked(store, solved, root, (gates, Marks::LeafAtLeastValue), stop)
}

/// The positions below `root` that `marks` finds, in walk order, the walk
/// going where `gates` let it.
pub fn marked(
    store: &Store<'_>,
    solved: &Solved,
    root: NodeId,
    (gates, marks): (Gates, Marks),
    stop: Stop<'_>,
) -> Result<Vec<NodeId>, GrowingError> {
    let board = store.board(root);
    if !gates.enter(&board) {
        return Ok(Vec::new());
    }
    let walkable = GrowingPositions::new(store, Some(solved)).walk_from(root).within(gates.window).each_position_once();
    let mut finder = Finder { positions: walkable.positions(), solved, gates, marks, found: Vec::new() };
    finder.consider(root, &walkable.positions().record_of(root))?;
    Ok(walk_growing(&walkable, finder, stop)?.found)
}

/// The walk's visitor: the candidates, as the walk first enters them.
struct Finder<'a, 's, 'b> {
    positions: &'a GrowingPositions<'s, 'b>,
    solved: &'a Solved,
    gates: Gates,
    marks: Marks,
    found: Vec<NodeId>,
}

impl Finder<'_, '_, '_> {
    /// Notes `id`, read as `record`, if it is a candidate: its leaf, with
    /// or without a move, scores at least its value.
    fn consider(&mut self, id: NodeId, record: &Record) -> Result<(), GrowingError> {
        let found = match self.marks {
            Marks::LeafAtLeastValue => {
                let leaf = self.positions.leaf(id, record)?;
                negamax::leaf_score(leaf) >= self.solved.value(self.positions.store(), id)
            }
            Marks::NoLinks => self.positions.store().facts(id)?.edges.is_empty(),
        };
        if found {
            self.found.push(id);
        }
        Ok(())
    }
}

impl Visitor for Finder<'_, '_, '_> {
    type Error = GrowingError;

    fn enters(&mut self, child: &Record) -> bool {
        self.gates.enter(&child.board)
    }

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), GrowingError> {
        if arrival.first_time {
            let id = self.positions.node_at(arrival.child.id, arrival.child.offset);
            self.consider(id, arrival.child)?;
        }
        Ok(())
    }
}
