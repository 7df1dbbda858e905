//! Books made from lines of moves, shared by the walk tests and the property tests.

// Each test crate compiles this module and uses part of it.
#![allow(dead_code)]

use bookminer::board::{Board, Move, Square};
use bookminer::book::edax_writer::Entry;
use bookminer::book::{Link, Score};
use bookminer::symmetry::normalize;
use std::collections::HashMap;

/// The boards a line passes through, the initial and the last included.
pub fn boards_along(line: &[Move]) -> Vec<Board> {
    let mut boards = vec![Board::INITIAL];
    for &mv in line {
        boards.push(boards.last().unwrap().after(mv).expect("a legal line"));
    }
    boards
}

/// Stores every position along the lines, linking each move played (in the
/// stored board's coordinates), and gives a position without links a leaf on
/// its first legal move (or its pass).
pub fn book_from_lines(lines: &[Vec<Move>]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut slot: HashMap<Board, usize> = HashMap::new();
    let mut entry_of = |board: &Board, entries: &mut Vec<Entry>| {
        let stored = normalize(board).board;
        *slot.entry(stored).or_insert_with(|| {
            entries.push(Entry::new(stored, 0));
            entries.len() - 1
        })
    };
    for line in lines {
        let boards = boards_along(line);
        for (board, &mv) in boards.iter().zip(line) {
            let i = entry_of(board, &mut entries);
            let stored = normalize(board).to_original.inverse().apply_move(mv);
            let links = &mut entries[i].links;
            if !links.iter().any(|l| l.mv == stored) {
                links.push(Link::new(Score(links.len() as i32), stored));
            }
        }
        entry_of(boards.last().unwrap(), &mut entries);
    }
    for e in &mut entries {
        if e.links.is_empty() {
            let first = Square::iter(e.board.legal_moves()).next().map(Move::Play);
            e.leaf = first.or(e.board.must_pass().then_some(Move::Pass)).map(|mv| Link::new(Score(3), mv));
        }
    }
    entries
}
