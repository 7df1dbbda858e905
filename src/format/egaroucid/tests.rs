//! The `.egbk3` reader on records the encoder wrote.

use super::encode::*;
use super::read::*;
use crate::board::{Board, Move, Square};
use crate::record::problem::Problem;
use crate::record::{Link, Score};
use crate::symmetry::normalize;
use crate::symmetry::Symmetry;
use std::collections::HashMap;

/// A book as a map from stored board to value.
#[derive(Default)]
struct Values(HashMap<Board, Score>);

impl Values {
    fn with(mut self, board: Board, value: i32) -> Values {
        self.0.insert(normalize(&board).board, Score(value));
        self
    }
}

impl Lookup for Values {
    type Probe = Board;
    type Found = ();
    fn start(&self, stored: &Board) -> Board {
        *stored
    }
    fn find(&self, stored: &Board) -> Option<((), Score)> {
        self.0.get(stored).map(|&value| ((), value))
    }
}

fn square(name: &str) -> Move {
    Move::Play(Square::parse(name).unwrap())
}

/// One record's bytes, as Egaroucid writes them.
fn raw(board: Board, value: i8, leaf_value: i8, leaf_move: u8) -> Vec<u8> {
    let mut bytes = Vec::new();
    encode_header(&mut bytes, 1);
    encode_record(&mut bytes, &board, value, 10, 7, None);
    bytes[HEADER_LEN + 22] = leaf_value as u8;
    bytes[HEADER_LEN + 23] = leaf_move;
    bytes
}

fn only_record(bytes: &[u8]) -> RawRecord<'_> {
    let mut all = records(bytes);
    let (_, offset, record) = all.next().unwrap().unwrap();
    assert_eq!(offset, HEADER_LEN);
    assert!(all.next().is_none());
    record
}

/// Positions reached by seeded random games, with a move that leads to
/// a position whose side to move must pass (or to the end of the game).
fn find_position(wanted: impl Fn(&Board) -> bool) -> (Board, Move) {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    loop {
        let mut board = Board::INITIAL;
        while !board.is_game_over() {
            let moves: Vec<Square> = Square::iter(board.legal_moves()).collect();
            if moves.is_empty() {
                board = board.swapped();
                continue;
            }
            for &s in &moves {
                if wanted(&board.after(Move::Play(s)).unwrap()) {
                    return (board, Move::Play(s));
                }
            }
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            board = board.after(Move::Play(moves[(seed >> 33) as usize % moves.len()])).unwrap();
        }
    }
}

#[test]
fn boards_are_read_in_our_bit_order_so_egaroucid_s_are_turned_half_round() {
    // Egaroucid's bit 63 is A1: its bitboard of a position is ours reversed.
    let after_f5 = Board::INITIAL.after(square("F5")).unwrap();
    let theirs = Board::new(after_f5.player.reverse_bits(), after_f5.opponent.reverse_bits());
    let bytes = raw(theirs, 0, NO_VALUE, NO_LEAF_MOVE);
    let read = only_record(&bytes).board();
    let half_turn = Symmetry::new(3).unwrap();
    assert_eq!(read, half_turn.board(&after_f5));
    assert_eq!(normalize(&read).board, normalize(&after_f5).board);
}

#[test]
fn the_leaf_is_its_move_and_value_unless_marked_none() {
    let bytes = raw(Board::INITIAL, 2, 5, 37);
    let record = only_record(&bytes);
    assert_eq!(record.leaf(), Some(Link::new(Score(5), square("F5"))));
    assert!(Board::INITIAL.check_move(square("F5")).is_some());
    let bytes = raw(Board::INITIAL, 2, NO_VALUE, NO_LEAF_MOVE);
    assert_eq!(only_record(&bytes).leaf(), None);
    // A move with Egaroucid's "no value" is no leaf either, and a pass leaf is one.
    assert_eq!(only_record(&raw(Board::INITIAL, 2, NO_VALUE, 37)).leaf(), None);
    assert_eq!(only_record(&raw(Board::INITIAL, 2, -3, 64)).leaf(), Some(Link::new(Score(-3), Move::Pass)));
}

#[test]
fn a_value_of_minus_126_takes_the_record_out_of_the_book() {
    let bytes = raw(Board::INITIAL, NO_VALUE, NO_VALUE, NO_LEAF_MOVE);
    let record = only_record(&bytes);
    assert_eq!(record.raw_value(), -126);
    assert!(!record.is_in_book());
    assert!(only_record(&raw(Board::INITIAL, 64, 0, 37)).is_in_book());
    assert!(!only_record(&raw(Board::INITIAL, 65, 0, 37)).is_in_book());
}

#[test]
fn links_are_legal_moves_with_a_child_in_the_book_in_square_order_scored_by_minus_its_value() {
    let book = Values::default().with(Board::INITIAL.after(square("F5")).unwrap(), -1);
    let links = links_of(&Board::INITIAL, &book);
    // All four opening moves reach the same stored child; D3 (19) < C4 (26) < F5 (37) < E6 (44).
    let moves: Vec<Move> = links.iter().map(|l| l.mv).collect();
    assert_eq!(moves, ["D3", "C4", "F5", "E6"].map(square));
    assert!(links.iter().all(|l| !l.then_pass && l.score == Score(1)));
    // No child in the book, no link.
    assert!(links_of(&Board::INITIAL, &Values::default().with(Board::INITIAL, 0)).is_empty());
}

#[test]
fn a_move_followed_by_a_pass_links_to_the_position_after_the_pass_scored_by_its_value() {
    let (board, mv) = find_position(|after| after.must_pass());
    let after = board.after(mv).unwrap();
    // Stored after the pass: a link, with the child's value as it stands.
    let book = Values::default().with(after.swapped(), 7);
    let links = links_of(&board, &book);
    assert_eq!(links.as_slice(), &[Link { score: Score(7), mv, then_pass: true }]);
    // The position before the pass is not the child.
    assert!(links_of(&board, &Values::default().with(after, 7)).is_empty());
    // The record that must pass links the pass, scored by minus the child's value.
    let pass = links_of(&after, &Values::default().with(after.swapped(), 4));
    assert_eq!(pass.as_slice(), &[Link::new(Score(-4), Move::Pass)]);
}

#[test]
fn at_the_end_of_the_game_the_child_is_the_final_position_stored_from_either_side() {
    let (board, mv) = find_position(|after| after.is_game_over());
    let end = board.after(mv).unwrap();
    let as_played = links_of(&board, &Values::default().with(end, -10));
    assert_eq!(as_played.as_slice(), &[Link { score: Score(10), mv, then_pass: false }]);
    let swapped = links_of(&board, &Values::default().with(end.swapped(), 10));
    assert_eq!(swapped.as_slice(), &[Link { score: Score(10), mv, then_pass: true }]);
}

#[test]
fn a_file_that_ends_inside_a_record_is_truncated_there() {
    let mut bytes = raw(Board::INITIAL, 0, NO_VALUE, NO_LEAF_MOVE);
    bytes.extend_from_slice(&[0; 10]);
    let items: Vec<_> = records(&bytes).collect();
    assert_eq!(items.len(), 2);
    let error = items[1].as_ref().unwrap_err();
    assert_eq!(error.record, Some(2));
    assert_eq!(error.offset, (HEADER_LEN + RECORD_LEN) as u64);
    assert_eq!(error.problem, Problem::Truncated { needed: 25, left: 10 });
}

#[test]
fn headers_are_checked_for_size_magic_and_version() {
    assert!(matches!(parse_header(b"DICUORAGE").unwrap_err().problem, Problem::ShortHeader { len: 9, needed: 14 }));
    let mut bytes = raw(Board::INITIAL, 0, 0, 0);
    assert_eq!(parse_header(&bytes).unwrap(), Header { version: 3, n_boards: 1 });
    bytes[9] = 2;
    assert_eq!(parse_header(&bytes).unwrap_err().problem, Problem::BadVersion { found: 2, expected: 3 });
}

/// Every leaf pair a record can hold, read and written again: a leaf comes
/// back as the same two bytes; anything else reads as none and is written
/// as Egaroucid's none, which itself reads as none (docs/formats.md:
/// a leaf exists when its move is 0..64 and its value within ±64).
#[test]
fn a_leaf_read_is_written_back_as_the_same_bytes_and_anything_else_as_none() {
    let none = leaf_pair(None);
    assert_eq!(none, (-126, 125), "Egaroucid's own none");
    for value in i8::MIN..=i8::MAX {
        for code in 0..=u8::MAX {
            let bytes = raw(Board::INITIAL, 0, value, code);
            let leaf = only_record(&bytes).leaf().map(crate::record::Leaf::of);
            let is_leaf = code <= 64 && (-64..=64).contains(&value);
            assert_eq!(leaf.is_some(), is_leaf, "({value}, {code})");
            let written = if is_leaf { (value, code) } else { none };
            assert_eq!(leaf_pair(leaf), written, "({value}, {code})");
        }
    }
    // What the rule leaves out: a leaf without a move (an Edax finished
    // game's), and one scored beyond a byte, are stored as none.
    assert_eq!(leaf_pair(Some(crate::record::Leaf::new(Score(12), None))), none);
    assert_eq!(leaf_pair(Some(crate::record::Leaf::new(Score(300), Some(square("D3"))))), none);
}
