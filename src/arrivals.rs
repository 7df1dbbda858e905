//! Arrivals as data: what the walk reports at each arrival, copied into
//! batches that another thread judges (see [`crate::mine`]), so that the
//! walk's own thread does little more than walk.
//!
//! A batch keeps its arrivals' scores and moves end to end, and each line as
//! the part of the previous arrival's line it keeps and the moves it adds.
//! In a depth-first walk that part is the parent's line: the parent was
//! entered at its own arrival, and every arrival since has been below it.

use crate::board::{Board, Move};
use crate::book::Score;
use crate::mismatch::ArrivalFacts;
use crate::modes::ArrivalScores;
use crate::symmetry::Symmetry;
use crate::walk::Arrival;

/// The fixed part of one arrival.
#[derive(Clone, Copy, Debug)]
struct Packed {
    parent: Score,
    via_pass: bool,
    value: Score,
    leaf: Option<Score>,
    symmetry: Symmetry,
    board: Board,
    /// The child's link scores in `scores`, and its moves (links, then the
    /// leaf) in `moves`: how many of each.
    links: u32,
    moves: u32,
    /// How much of the previous arrival's line this one keeps, and how many
    /// moves of `line_moves` it adds.
    keep: u32,
    adds: u32,
}

/// Arrivals in walk order.
#[derive(Debug, Default)]
pub struct ArrivalBatch {
    packed: Vec<Packed>,
    scores: Vec<Score>,
    moves: Vec<Move>,
    line_moves: Vec<Move>,
}

impl ArrivalBatch {
    /// Empties the batch, keeping its memory for the next one.
    pub fn clear(&mut self) {
        self.packed.clear();
        self.scores.clear();
        self.moves.clear();
        self.line_moves.clear();
    }

    pub fn len(&self) -> usize {
        self.packed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }
}

/// Copies arrivals into batches. It remembers the last line it copied, so
/// its batches are to be replayed in order by one [`Replay`].
#[derive(Debug, Default)]
pub struct Packer {
    line: Vec<Move>,
    batch: ArrivalBatch,
}

impl Packer {
    /// Copies one arrival into the batch being filled.
    pub fn push(&mut self, arrival: &Arrival<'_>) {
        let child = arrival.child;
        let parent_len = arrival.line.len() - 1 - usize::from(arrival.via_pass);
        // The parent's line, unless this is the first arrival (the walk's
        // start line has not been seen yet): then the whole line is sent.
        let keep = if self.line.len() >= parent_len { parent_len } else { 0 };
        debug_assert_eq!(self.line[..keep], arrival.line[..keep], "the parent's line is the previous line's start");
        let batch = &mut self.batch;
        let (scores_before, moves_before) = (batch.scores.len(), batch.moves.len());
        for link in child.links() {
            batch.scores.push(link.score);
            batch.moves.push(link.mv);
        }
        let leaf = child.leaf();
        batch.moves.extend(leaf.map(|l| l.mv));
        batch.line_moves.extend_from_slice(&arrival.line[keep..]);
        batch.packed.push(Packed {
            parent: arrival.parent_score,
            via_pass: arrival.via_pass,
            value: child.value(),
            leaf: leaf.map(|l| l.score),
            symmetry: arrival.child_symmetry,
            board: arrival.board,
            links: (batch.scores.len() - scores_before) as u32,
            moves: (batch.moves.len() - moves_before) as u32,
            keep: keep as u32,
            adds: (arrival.line.len() - keep) as u32,
        });
        self.line.truncate(keep);
        self.line.extend_from_slice(&arrival.line[keep..]);
    }

    /// Arrivals copied since the last [`Packer::take`].
    pub fn len(&self) -> usize {
        self.batch.len()
    }

    pub fn is_empty(&self) -> bool {
        self.batch.is_empty()
    }

    /// The batch filled so far; the next one is filled into `empty`.
    pub fn take(&mut self, empty: ArrivalBatch) -> ArrivalBatch {
        debug_assert!(empty.is_empty());
        std::mem::replace(&mut self.batch, empty)
    }
}

/// Replays batches made by one [`Packer`], in the order it made them.
#[derive(Debug, Default)]
pub struct Replay {
    line: Vec<Move>,
}

impl Replay {
    /// Hands each arrival of `batch` to `each`, in order, as the facts its
    /// records are made from; an error from `each` stops the replay.
    pub fn replay<E>(
        &mut self,
        batch: &ArrivalBatch,
        mut each: impl FnMut(&ArrivalFacts<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let (mut scores, mut moves, mut line_moves) = (0, 0, 0);
        for packed in &batch.packed {
            let (links, n_moves, adds) = (packed.links as usize, packed.moves as usize, packed.adds as usize);
            self.line.truncate(packed.keep as usize);
            self.line.extend_from_slice(&batch.line_moves[line_moves..line_moves + adds]);
            let facts = ArrivalFacts {
                line: &self.line,
                board: packed.board,
                scores: ArrivalScores {
                    parent: packed.parent,
                    via_pass: packed.via_pass,
                    value: packed.value,
                    links: &batch.scores[scores..scores + links],
                    leaf: packed.leaf,
                },
                moves: &batch.moves[moves..moves + n_moves],
                symmetry: packed.symmetry,
            };
            each(&facts)?;
            (scores, moves, line_moves) = (scores + links, moves + n_moves, line_moves + adds);
        }
        Ok(())
    }
}
