//! One level of a synthetic book: the normalized boards with the same number
//! of discs, in the order they were added, found by hash. A book is grown and
//! scored a level at a time, so no more than two levels are ever held.

use crate::board::{hash_board, Board};
use hashbrown::HashTable;

/// A level's boards and an index of them.
#[derive(Default)]
pub(super) struct Level {
    boards: Vec<Board>,
    index: HashTable<u32>,
}

impl Level {
    /// An empty level with room for `capacity` boards.
    pub fn with_capacity(capacity: usize) -> Level {
        Level { boards: Vec::with_capacity(capacity), index: HashTable::with_capacity(capacity) }
    }

    /// A level holding `boards` (distinct, as a level's boards always are), in that order.
    pub fn of(boards: Vec<Board>) -> Level {
        let mut index = HashTable::with_capacity(boards.len());
        for (id, board) in boards.iter().enumerate() {
            index.insert_unique(hash_board(board), id as u32, |&other| hash_board(&boards[other as usize]));
        }
        Level { boards, index }
    }

    /// The position of `board` in the level, if it is there.
    pub fn find(&self, board: &Board) -> Option<u32> {
        self.index.find(hash_board(board), |&id| self.boards[id as usize] == *board).copied()
    }

    /// Adds a board if it is new; true when it was.
    pub fn insert(&mut self, board: Board) -> bool {
        let hash = hash_board(&board);
        if self.index.find(hash, |&id| self.boards[id as usize] == board).is_some() {
            return false;
        }
        let id = self.boards.len() as u32;
        let boards = &self.boards;
        self.index.insert_unique(hash, id, |&other| hash_board(&boards[other as usize]));
        self.boards.push(board);
        true
    }

    pub fn len(&self) -> usize {
        self.boards.len()
    }

    pub fn boards(&self) -> &[Board] {
        &self.boards
    }

    /// The boards, the index dropped.
    pub fn into_boards(self) -> Vec<Board> {
        self.boards
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_finds_what_it_holds_in_the_order_it_was_added() {
        let boards: Vec<Board> = (1..200u64).map(|i| Board::new(i << 8, i)).collect();
        let mut level = Level::with_capacity(4);
        for board in &boards {
            assert!(level.insert(*board));
            assert!(!level.insert(*board), "a board is held once");
        }
        let rebuilt = Level::of(boards.clone());
        for (i, board) in boards.iter().enumerate() {
            assert_eq!(level.find(board), Some(i as u32));
            assert_eq!(rebuilt.find(board), Some(i as u32));
        }
        assert_eq!(level.find(&Board::new(1, 1 << 40)), None);
        assert_eq!(level.into_boards(), boards);
    }
}
