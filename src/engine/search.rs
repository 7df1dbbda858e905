//! One search an engine is asked for, its answer, and what answers it: the
//! words the journal, the engines, the fleet and the growth commands share.
//!
//! Growth talks to engines through [`Searcher`] alone (a search in, an
//! answer or a fault out), so that the same logic runs over engine
//! processes ([`super::launch`]) or, in tests, over answers computed in
//! the process itself.

use crate::board::{Board, Square, Squares};
use crate::level::Level;
use crate::output::text::{push_board, push_square, side_char};
use crate::run::Cancel;
use crate::symmetry::Symmetry;
use std::fmt;
use std::io;

/// A search: the best move of a stored (normalized) board among its legal
/// moves that are not `excluded`, at Edax's `level`. The board's side to
/// move has a legal move that is not excluded (a position without one is
/// never searched: see [`crate::growth`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Query {
    /// The stored (normalized) board.
    pub board: Board,
    /// Squares the answer may not be: the position's links.
    pub excluded: Squares,
    /// Edax's level.
    pub level: Level,
}

/// What an engine answered: its best move among those allowed, and that
/// move's score for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The best move among those allowed.
    pub mv: Square,
    /// That move's score for the side to move, in discs.
    pub score: i8,
}

/// Why an engine gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum Fault {
    /// The engine could not be started.
    #[error("cannot be started: {0}")]
    Spawn(#[source] io::Error),
    /// The engine's output ended.
    #[error("ended ({status})")]
    Ended {
        /// How it ended: its exit status, or that it closed its output.
        status: String,
    },
    /// No answer came within engine_timeout.
    #[error("gave no answer within {seconds} s (engine_timeout)")]
    Hung {
        /// The timeout, in seconds.
        seconds: u64,
    },
    /// The engine answered what cannot be read.
    #[error("answered what cannot be read: {text}")]
    Garbage {
        /// What was wrong, and what it printed.
        text: String,
    },
    /// Greeted, the engine answered as no protocol's console does.
    #[error("speaks no protocol bookminer knows {said}")]
    NoProtocol {
        /// The protocols known, and what it printed (or that it printed
        /// nothing in time).
        said: String,
    },
    /// Greeted, the engine answered as another protocol's console than the
    /// one named for it.
    #[error("answers as {} as its protocol is named (--engine-protocol, or the config's protocol); it was started as the named protocol's console is, with `{}` appended to its command", told[0], told[1])]
    OtherProtocol {
        /// `egaroucid's console, not edax's`, and what the named
        /// protocol's console appended to the command (boxed: a fault is
        /// carried in every engine error).
        told: Box<[String; 2]>,
    },
    /// The run is stopping (Ctrl-C, or the fleet gave up).
    #[error("stopped")]
    Stopped,
    /// A fault, and the engine's last lines of standard error.
    #[error("{fault}; it said: {words}")]
    Said {
        /// The fault.
        fault: Box<Fault>,
        /// The engine's last lines of standard error.
        words: String,
    },
}

/// What answers searches, one at a time: an engine process, or logic in
/// the process itself.
pub trait Searcher: Send {
    /// The best move of `query` among those it allows, with its score;
    /// `stop` is looked at while the answer is awaited.
    fn search(&mut self, query: &Query, stop: Cancel<'_>) -> Result<Answer, Fault>;

    /// Ends the searcher at the end of a run (an engine is asked to quit
    /// before it is killed).
    fn quit(self: Box<Self>) {}
}

/// Where one engine's searchers come from: each worker of the engine
/// starts its own, and starts another after a fault.
pub trait Launcher: Send + Sync {
    /// Starts the searcher of the engine's worker `worker` (from 1).
    fn launch(&self, worker: usize, stop: Cancel<'_>) -> Result<Box<dyn Searcher>, Fault>;
}

impl Query {
    /// The side to move is shown as black when the number of empty squares
    /// is even, as on a line without passes: the colour changes nothing for
    /// an engine, and the board reads as it would in a game.
    pub fn black_to_move(&self) -> bool {
        self.board.empties().is_multiple_of(2)
    }

    /// The 64 squares A1…H8 (`X` black, `O` white, `-` empty), as Edax's
    /// `setboard`, OBF and the journal write them.
    pub fn board_text(&self) -> String {
        let mut text = String::with_capacity(64);
        push_board(&self.board, self.black_to_move(), Symmetry::IDENTITY, &mut text);
        text
    }

    /// `X` or `O`: who moves.
    pub fn side(&self) -> char {
        side_char(self.black_to_move())
    }

    /// The excluded squares, in increasing order.
    pub fn excluded_squares(&self) -> impl Iterator<Item = Square> {
        self.excluded.iter()
    }

    /// Whether `answer` can be the answer: a legal move, not excluded, and
    /// a score a game can end with.
    pub fn accepts(&self, answer: &Answer) -> bool {
        let legal = self.board.legal_moves() & answer.mv.bit() != 0;
        legal && !self.excluded.contains(answer.mv) && (-64..=64).contains(&answer.score)
    }
}

impl fmt::Display for Query {
    /// `--OX… X, level 60, excluding A5 G4`: the position as a user can
    /// paste it into Edax (`setboard`) or `bookminer inspect`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}, level {}", self.board_text(), self.side(), self.level)?;
        if !self.excluded.is_empty() {
            let mut squares = String::new();
            for square in self.excluded_squares() {
                squares.push(' ');
                push_square(square, &mut squares);
            }
            write!(f, ", excluding{squares}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_reads_as_a_position_edax_and_inspect_take() {
        let query = Query {
            board: Board::INITIAL,
            excluded: Squares::NONE.with(Square::parse("f5").unwrap()),
            level: Level::MAX,
        };
        let text = query.to_string();
        assert!(text.starts_with("---------------------------OX------XO--------------------------- X"), "{text}");
        assert!(text.ends_with(", level 60, excluding F5"), "{text}");
        let back = crate::position::parse(&format!("{} {}", query.board_text(), query.side())).unwrap();
        assert_eq!(back.board, Board::INITIAL);
    }

    #[test]
    fn only_legal_moves_not_excluded_with_a_game_score_are_accepted() {
        let f5 = Square::parse("f5").unwrap();
        let query = Query { board: Board::INITIAL, excluded: Squares::NONE.with(f5), level: Level::new(1).unwrap() };
        assert!(query.accepts(&Answer { mv: Square::parse("d3").unwrap(), score: 0 }));
        assert!(!query.accepts(&Answer { mv: f5, score: 0 }), "excluded");
        assert!(!query.accepts(&Answer { mv: Square::parse("a1").unwrap(), score: 0 }), "illegal");
        assert!(!query.accepts(&Answer { mv: Square::parse("d3").unwrap(), score: 65 }), "no game ends so");
    }
}
