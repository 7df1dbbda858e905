//! Arrivals as data: what the walk reports at an arrival, copied into
//! batches that another thread judges (see [`mod@crate::mine`]), so that the
//! walk's own thread does little more than walk. Only the arrivals where a
//! rule fires need copying; the others are noted, not copied.
//!
//! A batch keeps its arrivals' scores and moves end to end, and each line as
//! the part of the previous line copied that it keeps and the moves it
//! adds. In a depth-first walk an arrival's parent line is a prefix of the
//! line of the arrival before it (the parent was entered at its own
//! arrival, and every arrival since has been below it), so the part kept is
//! the shortest parent line since the last arrival copied.

use crate::board::{Board, Move};
use crate::book::Score;
use crate::rules::mismatch::ArrivalFacts;
use crate::rules::modes::ArrivalScores;
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

/// Copies arrivals into batches. It remembers how long the last line it
/// copied was, so its batches are to be replayed in order by one [`Replay`].
#[derive(Debug)]
pub struct Packer {
    last_line_len: usize,
    /// The shortest parent line of the arrivals since the last one copied,
    /// those left out included: what every line since then shares with it.
    shortest_parent: usize,
    batch: ArrivalBatch,
}

impl Default for Packer {
    fn default() -> Packer {
        Packer { last_line_len: 0, shortest_parent: usize::MAX, batch: ArrivalBatch::default() }
    }
}

/// How long the line to the parent of an arrival's child is.
fn parent_len(arrival: &Arrival<'_>) -> usize {
    arrival.line.len() - 1 - usize::from(arrival.via_pass)
}

impl Packer {
    /// Notes an arrival that is not copied. The next one copied can then
    /// keep less of the last line copied: in a depth-first walk, an
    /// arrival's parent line is a prefix of the line of the arrival before
    /// it, so every line since the last one copied begins with the shortest
    /// of their parent lines.
    pub fn skip(&mut self, arrival: &Arrival<'_>) {
        self.shortest_parent = self.shortest_parent.min(parent_len(arrival));
    }

    /// Copies one arrival into the batch being filled.
    pub fn push(&mut self, arrival: &Arrival<'_>) {
        let child = arrival.child;
        // What this line shares with the last one copied (nothing before
        // the first: the walk's start line has not been sent yet).
        let keep = parent_len(arrival).min(self.shortest_parent).min(self.last_line_len);
        self.shortest_parent = usize::MAX;
        let batch = &mut self.batch;
        let (scores_before, moves_before) = (batch.scores.len(), batch.moves.len());
        batch.scores.extend(child.links().map(|l| l.score));
        let leaf = child.leaf();
        batch.moves.extend(child.links().map(|l| l.mv).chain(leaf.map(|l| l.mv)));
        batch.line_moves.extend_from_slice(&arrival.line[keep..]);
        batch.packed.push(Packed {
            parent: arrival.parent_score,
            via_pass: arrival.via_pass,
            value: child.value(),
            leaf: leaf.map(|l| l.score),
            symmetry: arrival.child_symmetry,
            board: arrival.board(),
            links: (batch.scores.len() - scores_before) as u32,
            moves: (batch.moves.len() - moves_before) as u32,
            keep: keep as u32,
            adds: (arrival.line.len() - keep) as u32,
        });
        self.last_line_len = arrival.line.len();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::Book;
    use crate::rules::mismatch::Recorder;
    use crate::rules::modes::{Linkless, Mode, Rules};
    use crate::walk::{walk, Start, Visitor, Walkable};
    use std::convert::Infallible;

    /// Which arrivals a [`Pack`] copies.
    #[derive(Clone, Copy, Debug)]
    enum Copying {
        Every,
        /// Those where a rule fires, as mining copies them.
        Firing,
        /// About one in four, picked by a hash of the arrival's number.
        Scattered,
    }

    /// Packs arrivals as `copy` says, and keeps what the facts of each one
    /// copied say, unpacked, as text: the reference the replayed batches
    /// must match.
    struct Pack {
        copy: Copying,
        arrivals: u64,
        packer: Packer,
        batches: Vec<ArrivalBatch>,
        recorder: Recorder,
        expected: Vec<String>,
    }

    fn describe(facts: &ArrivalFacts<'_>) -> String {
        format!("{:?} {:?} {:?} {:?} {:?}", facts.line, facts.board, facts.scores, facts.moves, facts.symmetry)
    }

    impl Visitor for Pack {
        type Error = Infallible;
        fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Infallible> {
            self.arrivals += 1;
            let copied = match self.copy {
                Copying::Every => true,
                Copying::Firing => self.recorder.fires(arrival),
                Copying::Scattered => self.arrivals.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 62 == 0,
            };
            if !copied {
                self.packer.skip(arrival);
                return Ok(());
            }
            self.recorder.arrival_facts(arrival, |facts| self.expected.push(describe(facts)));
            self.packer.push(arrival);
            // Small batches, so that lines run across batch boundaries.
            if self.packer.len() == 7 {
                self.batches.push(self.packer.take(ArrivalBatch::default()));
            }
            Ok(())
        }
    }

    #[test]
    fn replayed_batches_give_back_every_arrival_copied_from_a_walk_in_both_formats() {
        let synth = crate::synth::book_bytes(&crate::synth::SynthOptions { positions: 5000, seed: 9, perturb: 0.05 });
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        // Below a start line too: the first arrival's line is then longer
        // than anything the packer has seen.
        let (board, line) = crate::kifu::parse_and_play("f5").unwrap();
        let walks = [
            (Book::from_bytes("synth", synth.clone()).unwrap(), Start::initial()),
            (Book::from_bytes("synth", synth).unwrap(), Start { board, line }),
            (
                Book::open(&repo.join("tests/data/books/egbk3/edax46-l2-small-perturbed.egbk3"), &Default::default())
                    .unwrap(),
                Start::initial(),
            ),
        ];
        for (book, start) in walks {
            let walkable = Walkable::new(book, &start).unwrap();
            for copy in [Copying::Every, Copying::Firing, Copying::Scattered] {
                let recorder = Recorder::new(&Mode::ALL, Rules { min_gap: 1, linkless: Linkless::Report });
                let pack = Pack {
                    copy,
                    arrivals: 0,
                    packer: Packer::default(),
                    batches: Vec::new(),
                    recorder,
                    expected: Vec::new(),
                };
                let (stats, mut pack) = walk(&walkable, pack).unwrap();
                pack.batches.push(pack.packer.take(ArrivalBatch::default()));
                let mut replayed = Vec::new();
                let mut replay = Replay::default();
                for batch in &pack.batches {
                    replay
                        .replay(batch, |facts| {
                            replayed.push(describe(facts));
                            Ok::<(), Infallible>(())
                        })
                        .unwrap();
                }
                assert_eq!(pack.arrivals, stats.arrivals);
                match copy {
                    Copying::Every => assert_eq!(replayed.len() as u64, stats.arrivals),
                    _ => assert!(replayed.len() as u64 * 2 < stats.arrivals, "{copy:?} left out most arrivals"),
                }
                assert_eq!(replayed, pack.expected, "{copy:?}");
            }
        }
    }
}
