//! The exact endgame search the test engines share (`solver.rs`, which
//! speaks Edax's console, and `egaroucid_console.rs`, which speaks
//! Egaroucid's): not an example of its own.

use bookminer::board::{Board, Move, Square};
use std::collections::HashMap;

/// From this many empty squares a position's bounds are kept in the table
/// and its moves are tried fewest replies first; below it, the sorting and
/// the table cost more than the nodes they save.
const SORTED_FROM: u32 = 6;

/// Bounds on the exact score of a position, learnt by earlier searches.
#[derive(Clone, Copy)]
struct Bounds {
    lower: i32,
    upper: i32,
}

/// An exact endgame search: alpha-beta to the end of the game, with a
/// table of the bounds already proven, kept from one call to the next (the
/// moves of one position share most of their subtrees).
#[derive(Default)]
pub struct Search {
    table: HashMap<Board, Bounds>,
    /// The positions entered so far, all calls together.
    pub nodes: u64,
}

impl Search {
    /// The exact score of `board` for its side to move when it lies within
    /// (alpha, beta); otherwise a bound on the side it falls (fail-soft):
    /// at most alpha, or at least beta.
    pub fn solve(&mut self, board: &Board, alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        let empties = board.empties();
        if empties < SORTED_FROM {
            return self.solve_shallow(board, alpha, beta);
        }
        let (mut alpha, mut beta) = (alpha, beta);
        if let Some(known) = self.table.get(board) {
            if known.lower >= beta || known.lower == known.upper {
                return known.lower;
            }
            if known.upper <= alpha {
                return known.upper;
            }
            alpha = alpha.max(known.lower);
            beta = beta.min(known.upper);
        }
        let score = self.solve_sorted(board, alpha, beta);
        self.remember(board, score, alpha, beta);
        score
    }

    /// The score of the move that leads to `child`, for the side that
    /// played it: exact when it beats `alpha`, otherwise a bound at most
    /// `alpha`. A null window first asks whether it beats `alpha` at all,
    /// as most moves do not.
    pub fn move_score(&mut self, child: &Board, alpha: i32) -> i32 {
        if alpha > -65 {
            let above = -self.solve(child, -alpha - 1, -alpha);
            if above <= alpha {
                return above;
            }
        }
        -self.solve(child, -65, -alpha)
    }

    /// Notes what a search of `board` within (alpha, beta) that returned
    /// `score` proved.
    fn remember(&mut self, board: &Board, score: i32, alpha: i32, beta: i32) {
        let known = self.table.entry(*board).or_insert(Bounds { lower: -64, upper: 64 });
        if score <= alpha {
            known.upper = known.upper.min(score);
        } else if score >= beta {
            known.lower = known.lower.max(score);
        } else {
            *known = Bounds { lower: score, upper: score };
        }
    }

    /// The moves of `board` tried fewest replies first.
    fn solve_sorted(&mut self, board: &Board, alpha: i32, beta: i32) -> i32 {
        let moves = board.legal_moves();
        if moves == 0 {
            return self.after_pass(board, alpha, beta);
        }
        let mut children = [(0u32, Board::default()); 32];
        let mut n = 0;
        for square in Square::iter(moves) {
            let child = board.after(Move::Play(square)).expect("a legal move");
            children[n] = (child.legal_moves().count_ones(), child);
            n += 1;
        }
        let children = &mut children[..n];
        children.sort_by_key(|&(replies, _)| replies);
        let mut best = -65;
        for (i, &(_, child)) in children.iter().enumerate() {
            let floor = alpha.max(best);
            // After the first move, a null window first asks only whether
            // a move does better; the few that do are searched again.
            let mut score =
                if i == 0 { -self.solve(&child, -beta, -floor) } else { -self.solve(&child, -floor - 1, -floor) };
            if i > 0 && score > floor && score < beta {
                score = -self.solve(&child, -beta, -score);
            }
            if score > best {
                best = score;
                if best >= beta {
                    break;
                }
            }
        }
        best
    }

    /// The moves of `board` tried in square order, near the end of the game:
    /// each empty square is tried as a move (one that turns nothing over is
    /// not one), which is cheaper there than listing the legal moves first.
    fn solve_shallow(&mut self, board: &Board, alpha: i32, beta: i32) -> i32 {
        let mut best = -65;
        for square in Square::iter(board.empty()) {
            let flipped = board.flips(square);
            if flipped == 0 {
                continue;
            }
            let mut child = *board;
            child.play(Move::Play(square), flipped);
            self.nodes += 1;
            let score = -self.solve_shallow(&child, -beta, -alpha.max(best));
            if score > best {
                best = score;
                if best >= beta {
                    break;
                }
            }
        }
        if best == -65 {
            return self.after_pass(board, alpha, beta);
        }
        best
    }

    /// `board`, where the side to move has no move: the opponent's score
    /// after the pass, or the final score when neither side can move.
    fn after_pass(&mut self, board: &Board, alpha: i32, beta: i32) -> i32 {
        let passed = board.swapped();
        if passed.has_moves() {
            return -self.solve(&passed, -beta, -alpha);
        }
        board.final_score()
    }
}
