//! The exact endgame search the test engines share (`solver.rs`, which
//! speaks Edax's console, and `egaroucid_console.rs`, which speaks
//! Egaroucid's): not an example of its own.

use bookminer::board::{Board, Move, Square};

/// The exact score of `board` for its side to move, within (alpha, beta):
/// alpha-beta to the end of the game, moves that leave the opponent fewest
/// replies first.
pub fn solve(board: &Board, alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
    *nodes += 1;
    let moves = board.legal_moves();
    if moves == 0 {
        let passed = board.swapped();
        if passed.has_moves() {
            return -solve(&passed, -beta, -alpha, nodes);
        }
        return board.final_score();
    }
    let mut children: Vec<(u32, Board)> = Square::iter(moves)
        .map(|s| board.after(Move::Play(s)).expect("a legal move"))
        .map(|child| (child.legal_moves().count_ones(), child))
        .collect();
    children.sort_by_key(|&(replies, _)| replies);
    let mut best = -65;
    for (_, child) in children {
        let score = -solve(&child, -beta, -alpha.max(best), nodes);
        if score > best {
            best = score;
            if best >= beta {
                break;
            }
        }
    }
    best
}
