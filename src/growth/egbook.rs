//! An Egaroucid book as Egaroucid's own learning changes it (docs/egaroucid.md):
//! the book read where it lies, plus an overlay of the records changed and
//! the positions added, each a raw `.egbk3` record of 25 bytes, so that
//! every field Egaroucid writes (its value, level, line count, and the
//! leaf's value, move and level, "undefined" included) is kept as it is
//! set. `learn` and `recalculate` read and change the book through it, and
//! write OUT from it: IN's records in IN's order, the changed ones as they
//! now are, then the positions added in the order added. No negamax: a
//! value is what Egaroucid's functions left in it.

use crate::board::{Board, Move, Square};
use crate::book::{Book, RecordId};
use crate::format::egaroucid::{self, RECORD_LEN};
use crate::score::Score;
use crate::symmetry::normalize;
use std::collections::HashMap;
use std::io::{self, Write};

/// Egaroucid's "no value" (a leaf without one).
pub(crate) const SCORE_UNDEFINED: Score = Score::new(-126);
/// Egaroucid's "no move" leaf: every legal move is a link.
pub(crate) const MOVE_NOMOVE: u8 = 65;
/// Egaroucid's "undefined" leaf move.
pub(crate) const MOVE_UNDEFINED: u8 = 125;
/// Egaroucid's "undefined" level.
pub(crate) const LEVEL_UNDEFINED: i8 = -1;

/// One position's record, field by field as `.egbk3` stores it. The board
/// is the stored (normalized) one, the leaf's move a square of it; the
/// values are scores a byte holds (`SCORE_UNDEFINED` among them), the
/// levels the bytes as stored (−1: undefined, which no [`crate::level::Level`] is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Elem {
    pub(crate) board: Board,
    pub(crate) value: Score,
    pub(crate) level: i8,
    pub(crate) n_lines: u32,
    pub(crate) leaf_value: Score,
    pub(crate) leaf_move: u8,
    pub(crate) leaf_level: i8,
}

impl Elem {
    /// A position registered with a value and level, its leaf undefined (as
    /// Egaroucid's `Book::change` registers one).
    pub(crate) fn registered(board: Board, value: Score, level: i8) -> Elem {
        Elem {
            board,
            value,
            level,
            n_lines: 0,
            leaf_value: SCORE_UNDEFINED,
            leaf_move: MOVE_UNDEFINED,
            leaf_level: LEVEL_UNDEFINED,
        }
    }

    fn from_bytes(bytes: &[u8; RECORD_LEN]) -> Elem {
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        Elem {
            board: Board::new(word(0), word(8)),
            value: Score::from(bytes[16] as i8),
            level: bytes[17] as i8,
            n_lines: u32::from_le_bytes(bytes[18..22].try_into().expect("4 bytes")),
            leaf_value: Score::from(bytes[22] as i8),
            leaf_move: bytes[23],
            leaf_level: bytes[24] as i8,
        }
    }

    fn to_bytes(self) -> [u8; RECORD_LEN] {
        let mut out = [0u8; RECORD_LEN];
        out[0..8].copy_from_slice(&self.board.player.to_le_bytes());
        out[8..16].copy_from_slice(&self.board.opponent.to_le_bytes());
        out[16] = self.value.stored_byte() as u8;
        out[17] = self.level as u8;
        out[18..22].copy_from_slice(&self.n_lines.to_le_bytes());
        out[22] = self.leaf_value.stored_byte() as u8;
        out[23] = self.leaf_move;
        out[24] = self.leaf_level as u8;
        out
    }

    /// The leaf's move, if it is a square (Egaroucid's `is_valid_policy`).
    pub(crate) fn leaf_square(&self) -> Option<Square> {
        (self.leaf_move < 64).then(|| Square::new(self.leaf_move).expect("below 64"))
    }
}

/// Where a position is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Read(RecordId),
    Added(u32),
}

/// A move of a stored board whose child the book holds, and its value for
/// the side to move (Egaroucid's `get_all_moves_with_value`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Link {
    pub(crate) square: Square,
    pub(crate) value: Score,
}

/// The book read plus what learning changed.
pub(crate) struct EgBook<'b> {
    book: &'b Book,
    changed: HashMap<RecordId, Elem>,
    added: Vec<Elem>,
    added_ids: HashMap<Board, u32>,
}

impl<'b> EgBook<'b> {
    /// The book as read, nothing changed.
    pub(crate) fn new(book: &'b Book) -> EgBook<'b> {
        EgBook { book, changed: HashMap::new(), added: Vec::new(), added_ids: HashMap::new() }
    }

    /// The positions added, in the order added.
    pub(crate) fn added(&self) -> usize {
        self.added.len()
    }

    /// Where the position `board` (any orientation) is held.
    pub(crate) fn find(&self, board: &Board) -> Option<Key> {
        self.find_stored(&normalize(board).board)
    }

    /// Where the stored (normalized) board is held.
    pub(crate) fn find_stored(&self, stored: &Board) -> Option<Key> {
        if let Some(&k) = self.added_ids.get(stored) {
            return Some(Key::Added(k));
        }
        self.book.locate(stored).map(|at| Key::Read(at.id))
    }

    /// A position's record as it now stands.
    pub(crate) fn get(&self, key: Key) -> Elem {
        match key {
            Key::Added(k) => self.added[k as usize],
            Key::Read(id) => match self.changed.get(&id) {
                Some(elem) => *elem,
                None => {
                    let raw = egaroucid::record_at(self.book.file().bytes(), id).expect("a record the index found");
                    Elem::from_bytes(raw.bytes())
                }
            },
        }
    }

    /// Replaces a position's record.
    pub(crate) fn put(&mut self, key: Key, elem: Elem) {
        match key {
            Key::Added(k) => self.added[k as usize] = elem,
            Key::Read(id) => {
                self.changed.insert(id, elem);
            }
        }
    }

    /// Adds a position not held yet (its board normalized).
    pub(crate) fn add(&mut self, elem: Elem) -> Key {
        let k = u32::try_from(self.added.len()).expect("fewer positions added than a book holds");
        self.added_ids.insert(elem.board, k);
        self.added.push(elem);
        Key::Added(k)
    }

    /// The value of the position `board` (any orientation), if held.
    pub(crate) fn value_of(&self, board: &Board) -> Option<Score> {
        self.find(board).map(|key| self.get(key).value)
    }

    /// The moves of `board` whose child the book holds, in increasing
    /// square order, each with its value for the side to move: minus the
    /// child's, or plus it where the child is stored after a pass; a move
    /// that ends the game leads to whichever side of it the book holds.
    pub(crate) fn links(&self, board: &Board) -> Vec<Link> {
        let mut links = Vec::new();
        for square in Square::iter(board.legal_moves()) {
            let child = board.after(Move::Play(square)).expect("a legal move");
            let value = if child.is_game_over() {
                match self.value_of(&child) {
                    Some(v) => Some(-v),
                    None => self.value_of(&child.swapped()),
                }
            } else if child.must_pass() {
                self.value_of(&child.swapped())
            } else {
                self.value_of(&child).map(|v| -v)
            };
            if let Some(value) = value {
                links.push(Link { square, value });
            }
        }
        links
    }

    /// Egaroucid's `Book::change`: the position `board` (with its side to
    /// move, `value` for it) given `value` and `level`, registered if the
    /// book does not hold it. A finished game is changed on whichever side
    /// the book holds, else registered as given; a side that must pass is
    /// stored after its pass.
    pub(crate) fn change(&mut self, board: Board, value: Score, level: i8) {
        let (board, value) = match board.must_pass() {
            true if !board.is_game_over() => (board.swapped(), -value),
            _ => (board, value),
        };
        let (at, value) = match (self.find(&board), board.is_game_over()) {
            (Some(key), _) => (Some(key), value),
            (None, true) => match self.find(&board.swapped()) {
                Some(key) => (Some(key), -value),
                None => (None, value),
            },
            (None, false) => (None, value),
        };
        let value = value.clamp(Score::new(-64), Score::new(64));
        match at {
            Some(key) => {
                let elem = Elem { value, level, ..self.get(key) };
                self.put(key, elem);
            }
            None => {
                // Registered as given, on the side given.
                self.add(Elem::registered(normalize(&board).board, value, level));
            }
        }
    }

    /// Writes the book: the header, IN's records in IN's order (the
    /// changed ones as they now are), then the positions added. Returns the
    /// records written.
    pub(crate) fn write(&self, out: &mut impl Write) -> io::Result<u64> {
        let read = self.book.counts().records;
        let records = read + self.added.len() as u64;
        out.write_all(&self.book.header().kept(records))?;
        let bytes = self.book.file().bytes();
        for id in 0..read {
            let id = RecordId(u32::try_from(id).expect("a book's records are numbered by u32"));
            match self.changed.get(&id) {
                Some(elem) => out.write_all(&elem.to_bytes())?,
                None => {
                    let raw = egaroucid::record_at(bytes, id).expect("a record of the book read");
                    out.write_all(raw.bytes())?;
                }
            }
        }
        for elem in &self.added {
            out.write_all(&elem.to_bytes())?;
        }
        Ok(records)
    }
}
