//! The test engines' exact search (examples/exact, behind `solver` and
//! `egaroucid_console`) against the plainest reference there is: negamax
//! over every line to the end of the game, with no pruning, no table and no
//! ordering. Its tricks (a table of bounds, null windows, the moves of the
//! last empty squares tried by square) must change nothing but its speed:
//! within a window a score is exact, outside it a bound on the right side.

use bookminer::board::{Board, Move, Square};
use proptest::prelude::*;

#[path = "../../examples/exact/mod.rs"]
mod exact;

use exact::Search;

/// The exact score of `board` for its side to move, every line searched.
fn negamax(board: &Board) -> i32 {
    let moves = board.legal_moves();
    if moves == 0 {
        let passed = board.swapped();
        return if passed.has_moves() { -negamax(&passed) } else { board.final_score() };
    }
    Square::iter(moves).map(|s| -negamax(&board.after(Move::Play(s)).expect("a legal move"))).max().expect("a move")
}

/// The position a random game reaches once `empties` squares are left
/// (each choice picks one of the legal moves), or `None` if it ends first.
fn position(choices: &[u8], empties: u32) -> Option<Board> {
    let mut board = Board::INITIAL;
    for &choice in choices {
        if board.empties() == empties {
            return Some(board);
        }
        let moves: Vec<Square> = Square::iter(board.legal_moves()).collect();
        if moves.is_empty() {
            board = board.swapped();
            if !board.has_moves() {
                return None;
            }
            continue;
        }
        board = board.after(Move::Play(moves[usize::from(choice) % moves.len()]))?;
    }
    (board.empties() == empties).then_some(board)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Full window: the exact score; any window: exact within it, a bound
    /// on the side it falls outside it; and what the table kept from the
    /// first search changes none of it.
    #[test]
    fn the_search_scores_as_plain_negamax_does(
        choices in proptest::collection::vec(any::<u8>(), 70),
        empties in 8u32..=10,
        alpha in -64i32..=63,
        width in 1i32..=20,
    ) {
        let Some(board) = position(&choices, empties) else { return Ok(()) };
        let exact = negamax(&board);
        let mut search = Search::default();
        prop_assert_eq!(search.solve(&board, -65, 65), exact);
        let beta = (alpha + width).min(64);
        for mut search in [Search::default(), search] {
            let score = search.solve(&board, alpha, beta);
            if score <= alpha {
                prop_assert!(exact <= score, "fail low {} above the exact {}", score, exact);
            } else if score >= beta {
                prop_assert!(exact >= score, "fail high {} below the exact {}", score, exact);
            } else {
                prop_assert_eq!(score, exact);
            }
        }
    }

    /// A move's score as `hint` asks it: exact when it beats the best so
    /// far, at most that best otherwise.
    #[test]
    fn a_move_is_scored_exactly_when_it_beats_the_best_so_far(
        choices in proptest::collection::vec(any::<u8>(), 70),
        empties in 8u32..=10,
        alpha in -65i32..=63,
    ) {
        let Some(board) = position(&choices, empties) else { return Ok(()) };
        let exact = -negamax(&board);
        let score = Search::default().move_score(&board, alpha);
        if exact > alpha {
            prop_assert_eq!(score, exact);
        } else {
            prop_assert!(score <= alpha && exact <= score, "{} for the exact {} under {}", score, exact, alpha);
        }
    }
}
