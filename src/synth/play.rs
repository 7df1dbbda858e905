//! The Othello a synthetic book is made of: a cheap evaluation, the order in
//! which a growing line tries its moves, and the score of a move searched as
//! a record of the book's level would be.

use super::rng::Rng;
use crate::board::{legal_moves, Bitboard, Board, Move, Square};
use crate::level::Level;
use crate::negamax;
use smallvec::SmallVec;

/// The level of every record and of the header: Edax's level table says
/// how deep that searches a leaf (2 plies: the move, then the best reply,
/// and to the end of the game from 4 empty squares), and the leaves are
/// scored that way.
pub(super) const LEVEL: Level = Level::new(2).expect("2 is a level");
/// Noise added to the evaluation when ranking a position's moves.
const CHOICE_NOISE: u64 = 6;
/// Scores are clamped to the disc range.
pub(super) const SCORE_LIMIT: i32 = 64;

const CORNERS: Bitboard = 0x8100_0000_0000_0081;
/// The squares diagonally next to the corners: bad while the corner is empty.
const X_SQUARES: Bitboard = 0x0042_0000_0000_4200;

/// A cheap evaluation in discs for the side to move: mobility and corners.
pub(super) fn evaluate(board: &Board) -> i32 {
    let mobility = legal_moves(board.player, board.opponent).count_ones() as i32
        - legal_moves(board.opponent, board.player).count_ones() as i32;
    let count =
        |bits: Bitboard| (bits & board.player).count_ones() as i32 - (bits & board.opponent).count_ones() as i32;
    let open_x = X_SQUARES & !spread_corners(board.player | board.opponent);
    (3 * mobility + 8 * count(CORNERS) - 4 * count(open_x)).clamp(-SCORE_LIMIT + 2, SCORE_LIMIT - 2)
}

/// The X-squares next to occupied corners.
fn spread_corners(occupied: Bitboard) -> Bitboard {
    let corners = occupied & CORNERS;
    ((corners & 0x01) << 9) | ((corners & 0x80) << 7) | ((corners >> 7) & (1 << 49)) | ((corners >> 9) & (1 << 54))
}

/// Beyond every score.
const INF: i32 = 1000;

/// Negamax to `depth` plies with [`evaluate`] at the horizon, or to the end
/// of the game when `depth` is `None`, with an alpha-beta window: a result
/// inside (alpha, beta) is exact, one at or below alpha says only that the
/// score is no more, one at or above beta that it is no less.
fn search(board: &Board, depth: Option<u32>, alpha: i32, beta: i32) -> i32 {
    let moves = board.legal_moves();
    let deeper = depth.map(|d| d.saturating_sub(1));
    if moves == 0 {
        if legal_moves(board.opponent, board.player) == 0 {
            return board.final_score();
        }
        return if depth == Some(0) { evaluate(board) } else { -search(&board.swapped(), deeper, -beta, -alpha) };
    }
    if depth == Some(0) {
        return evaluate(board);
    }
    let mut best = -INF;
    for square in Square::iter(moves) {
        let score = -search(&after(board, Move::Play(square)), deeper, -beta, -alpha.max(best));
        if score > best {
            best = score;
            if best >= beta {
                break;
            }
        }
    }
    best
}

/// The score of a move (or pass) for the side to move, searched as a record
/// of [`LEVEL`] is (solved where the level table solves), if it is above
/// `floor`; `None` when it is not.
pub(super) fn score_move_above(board: &Board, mv: Move, floor: Option<i32>) -> Option<i32> {
    let empties = board.empties() as u8;
    let level = negamax::search_level(LEVEL, empties);
    let depth = (!level.solves(empties)).then(|| u32::from(level.depth).saturating_sub(1));
    let floor = floor.unwrap_or(-INF);
    let score = -search(&after(board, mv), depth, -INF, -floor);
    (score > floor).then_some(score)
}

/// The board after a move the caller knows is legal.
pub(super) fn after(board: &Board, mv: Move) -> Board {
    board.after(mv).expect("a legal move")
}

/// The moves a growing line tries from `board`, best first: by evaluation
/// plus the noise `rng` gives (ties to the lower square). Empty when the
/// side to move has no move (a pass is not chosen: the position after it
/// is grown with the position before it).
pub(super) fn ranked_moves(board: &Board, rng: &mut Rng) -> SmallVec<[Square; 32]> {
    let mut scored: SmallVec<[(i32, Square); 32]> = Square::iter(board.legal_moves())
        .map(|sq| (-evaluate(&after(board, Move::Play(sq))) + rng.below(CHOICE_NOISE) as i32, sq))
        .collect();
    scored.sort_by_key(|&(score, sq)| (std::cmp::Reverse(score), sq.index()));
    scored.into_iter().map(|(_, sq)| sq).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symmetry::Symmetry;

    /// Plain negamax to `depth` plies (to the end with `None`), every move
    /// searched: the obvious reference for [`search`].
    fn negamax(board: &Board, depth: Option<u32>) -> i32 {
        let moves = board.legal_moves();
        if moves == 0 {
            if legal_moves(board.opponent, board.player) == 0 {
                return board.final_score();
            }
            return if depth == Some(0) { evaluate(board) } else { -negamax(&board.swapped(), depth.map(|d| d - 1)) };
        }
        if depth == Some(0) {
            return evaluate(board);
        }
        Square::iter(moves).map(|sq| -negamax(&after(board, Move::Play(sq)), depth.map(|d| d - 1))).max().unwrap()
    }

    #[test]
    fn negamax_sees_the_end_of_the_game() {
        // A1 against B1: playing C1 takes the last white disc, a 64-0 win.
        let board = Board::new(0b001, 0b010);
        assert_eq!(search(&board, Some(1), -INF, INF), 64);
        assert_eq!(Board::new(0b111, 0b1000).final_score(), 2 + 60);
    }

    /// Positions along random games, some near the end.
    fn positions(seed: u64) -> Vec<Board> {
        let mut rng = Rng(seed);
        let mut out = Vec::new();
        for _ in 0..60 {
            let mut board = Board::INITIAL;
            loop {
                out.push(board);
                let moves: Vec<Square> = Square::iter(board.legal_moves()).collect();
                board = match moves.len() {
                    0 if board.must_pass() => board.swapped(),
                    0 => break,
                    n => after(&board, Move::Play(moves[rng.below(n as u64) as usize])),
                };
            }
        }
        out
    }

    #[test]
    fn the_windowed_search_is_exact_inside_its_window_and_bounded_outside() {
        for board in positions(11).into_iter().step_by(7) {
            let depth = if board.empties() <= 6 { None } else { Some(2) };
            let exact = negamax(&board, depth);
            assert_eq!(search(&board, depth, -INF, INF), exact, "{board:?}");
            for (alpha, beta) in [(exact - 3, exact + 3), (exact, exact + 1), (exact + 1, INF), (-INF, exact - 1)] {
                let got = search(&board, depth, alpha, beta);
                match () {
                    _ if exact <= alpha => assert!(got <= alpha, "{board:?}: {got} for {exact} in ({alpha}, {beta})"),
                    _ if exact >= beta => assert!(got >= beta, "{board:?}: {got} for {exact} in ({alpha}, {beta})"),
                    _ => assert_eq!(got, exact, "{board:?} in ({alpha}, {beta})"),
                }
            }
        }
    }

    #[test]
    fn a_move_scores_above_a_floor_exactly_as_the_full_search_scores_it() {
        for board in positions(12).into_iter().step_by(5) {
            let empties = board.empties() as u8;
            let level = negamax::search_level(LEVEL, empties);
            let depth = (!level.solves(empties)).then(|| u32::from(level.depth) - 1);
            for square in Square::iter(board.legal_moves()) {
                let mv = Move::Play(square);
                let exact = -negamax(&after(&board, mv), depth);
                for floor in [None, Some(exact - 1), Some(exact), Some(exact + 2)] {
                    let expected = (floor.is_none_or(|f| exact > f)).then_some(exact);
                    assert_eq!(score_move_above(&board, mv, floor), expected, "{board:?} {mv:?} {floor:?}");
                }
            }
        }
    }

    #[test]
    fn the_corner_x_squares_follow_their_corners() {
        for s in Symmetry::ALL {
            let corner = s.bits(1);
            let x = s.bits(1 << 9);
            assert_eq!(spread_corners(corner), x, "symmetry {s:?}");
        }
    }

    #[test]
    fn moves_are_ranked_by_noisy_evaluation_and_every_legal_move_comes_once() {
        let board = after(&Board::INITIAL, Move::Play(Square::parse("F5").unwrap()));
        let ranked = ranked_moves(&board, &mut Rng(3));
        let mut squares: Vec<u8> = ranked.iter().map(|s| s.index()).collect();
        squares.sort_unstable();
        let legal: Vec<u8> = Square::iter(board.legal_moves()).map(|s| s.index()).collect();
        assert_eq!(squares, legal);
        // The same noise gives the same order.
        assert_eq!(ranked, ranked_moves(&board, &mut Rng(3)));
    }
}
