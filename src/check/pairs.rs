//! The (position, move) pairs `check` has met in a run, each judged once,
//! told apart as Edax 4.6's `book check` tells them apart.
//!
//! Edax keys a pair by the position in its stored form and the move
//! turned by the symmetry that gave that form. Where several symmetries
//! give it (the position is its own image), Edax takes the first in the
//! order its vector code tries them (0, 4, 1, 6, 2, 5, 3, 7, by the
//! numbering of [`crate::symmetry`]); so two games that reach images of
//! one such position and play images of one move may make two pairs, or
//! one, as they make in Edax. A move and its own image on one board (F5
//! and E6 from the initial position) are always two pairs.

use crate::board::{Board, Move};
use crate::symmetry::Symmetry;
use std::collections::HashSet;

/// The order Edax's vector code (the build its book commands run in on
/// x86-64 with AVX2) tries the symmetries in: the first that gives the
/// least image is the one a pair is keyed by.
const EDAX_ORDER: [u8; 8] = [0, 4, 1, 6, 2, 5, 3, 7];

/// The pairs met so far.
#[derive(Default)]
pub struct Pairs {
    met: HashSet<(Board, u8)>,
}

impl Pairs {
    /// Whether the pair is met for the first time in the run (it is then
    /// noted as met).
    pub fn first_time(&mut self, board: &Board, mv: Move) -> bool {
        self.met.insert(key(board, mv))
    }
}

/// A pair's key: the least image of the board, and the move's code under
/// the first symmetry in [`EDAX_ORDER`] that gives that image.
fn key(board: &Board, mv: Move) -> (Board, u8) {
    let mut least = (*board, Symmetry::IDENTITY);
    for index in &EDAX_ORDER[1..] {
        let symmetry = Symmetry::new(*index).expect("0..8");
        let image = symmetry.board(board);
        if image < least.0 {
            least = (image, symmetry);
        }
    }
    (least.0, least.1.apply_move(mv).code())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kifu::parse_and_play;
    use crate::symmetry::normalize;

    fn after(kifu: &str) -> Board {
        parse_and_play(kifu).unwrap().0
    }

    fn square(text: &str) -> Move {
        crate::kifu::parse_moves(text).unwrap()[0]
    }

    #[test]
    fn a_pair_is_the_stored_board_and_the_move_turned_with_it() {
        for kifu in ["f5", "f5d6c3", "f5f6e6f4g5"] {
            let board = after(kifu);
            let (stored, code) = key(&board, Move::Pass);
            assert_eq!(stored, normalize(&board).board, "{kifu}");
            assert_eq!(code, Move::PASS_CODE);
        }
        let mut pairs = Pairs::default();
        assert!(pairs.first_time(&Board::INITIAL, square("f5")));
        assert!(!pairs.first_time(&Board::INITIAL, square("f5")));
        assert!(pairs.first_time(&Board::INITIAL, square("e6")), "a move's own image on one board is another pair");
    }

    /// Edax 4.6 counts 3 good moves for the games f5d6 and e6f4 on a book
    /// that holds them all (edax-book-check.sh): the second move of each
    /// is one pair, the first moves two.
    #[test]
    fn images_of_a_pair_reached_from_images_of_a_position_are_one_pair_as_in_edax() {
        let mut pairs = Pairs::default();
        let mut first = 0;
        for (before, mv) in [("", "f5"), ("f5", "d6"), ("", "e6"), ("e6", "f4")] {
            let board = if before.is_empty() { Board::INITIAL } else { after(before) };
            first += usize::from(pairs.first_time(&board, square(mv)));
        }
        assert_eq!(first, 3);
    }

    /// Whether the last pairs of two lines are one pair.
    fn same_last_pair(a: &str, b: &str) -> bool {
        let last = |kifu: &str| {
            let moves = crate::kifu::parse_moves(kifu).unwrap();
            let before = crate::kifu::replay(&moves[..moves.len() - 1]).board();
            key(&before, moves[moves.len() - 1])
        };
        last(a) == last(b)
    }

    /// Two pairs of lines whose last pairs Edax 4.6 (x86-64-v3) tells
    /// apart, and does not: `book check` of both lines together, on
    /// wthor1977-l10.edax.dat, says 3 missing for the first two (2 for each
    /// alone, one pair shared before the last), 2 for the second two (2 and
    /// 2 alone). The order 0..8 of Edax's plain C code would say the
    /// opposite of each.
    #[test]
    fn the_symmetry_a_self_symmetric_board_is_keyed_by_is_the_one_edax_s_vector_code_finds_first() {
        assert!(!same_last_pair("d3c3f5f6b3", "e6f6c4c3g6"));
        assert!(same_last_pair("d3c3f5f6b3", "c4c3e6f6c2"));
    }
}
