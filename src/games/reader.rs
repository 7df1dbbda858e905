//! What each format's reader finds in its file: games, and games passed
//! over, each with its place; and the [`Reader`] every format implements.

use super::error::ReadError;
use crate::board::Move;
use std::fmt;

/// Where a game is in its file, as messages name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GamePlace {
    /// Which game of the file, from 1.
    pub number: u64,
    /// The line it is on (text and JSONL) or starts on (GGF, PGN, SGF);
    /// none in a binary file.
    pub line: Option<u64>,
    /// The byte it starts at.
    pub offset: u64,
}

impl fmt::Display for GamePlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "game {} (line {line})", self.number),
            None => write!(f, "game {} at byte {}", self.number, self.offset),
        }
    }
}

/// A game as its file writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// Where it is in its file.
    pub place: GamePlace,
    /// Squares and the passes written, in order.
    pub moves: Vec<Move>,
    /// What is written where the next move should be, if it is no move at
    /// all: it ends the game as a move that is not legal does.
    pub unreadable: Option<String>,
}

/// A game a reader passes over, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Where it is in its file.
    pub place: GamePlace,
    /// Why it is passed over.
    pub why: SkipReason,
}

/// Why a game is passed over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// A GGF or SGF game of another game than Othello (`GM`).
    NotOthello(String),
    /// A game from another position than the standard start with black to
    /// move (GGF's `BO`, PGN's `FEN`, SGF's `AB`, `AW`, `AE`, `PL`), or on
    /// another board.
    OtherStart,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::NotOthello(game) => write!(f, "a game of \"{}\", not Othello", game.escape_default()),
            SkipReason::OtherStart => f.write_str("not from the standard start with black to move"),
        }
    }
}

/// What a reader finds next in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A game to replay.
    Game(Game),
    /// A game passed over.
    Skipped(Skipped),
}

/// One format's reader over an open file.
pub(super) trait Reader {
    /// The next game or skipped game; none at the end of the file.
    fn next_entry(&mut self) -> Result<Option<Entry>, ReadError>;
    /// The bytes read so far.
    fn offset(&self) -> u64;
}
