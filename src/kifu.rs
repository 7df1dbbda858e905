//! Reading kifu text (`f5d6C3`) and playing it from the initial position.

use crate::board::{Board, Move, Square};
use std::fmt;

/// A kifu that cannot be read or played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KifuError {
    /// 1-based number of the move in the text.
    pub move_number: usize,
    pub text: String,
    pub reason: &'static str,
}

impl fmt::Display for KifuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} \"{}\": {}", self.move_number, self.text, self.reason)
    }
}

impl std::error::Error for KifuError {}

/// Reads moves as written: squares as letter and digit in either case, `PS`
/// or `PA` for a pass, spaces ignored. Legality is not checked.
pub fn parse_moves(text: &str) -> Result<Vec<Move>, KifuError> {
    let compact: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    compact
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| {
            let word: String = pair.iter().collect();
            if matches!(word.to_ascii_uppercase().as_str(), "PS" | "PA") {
                return Ok(Move::Pass);
            }
            Square::parse(&word).map(Move::Play).ok_or(KifuError {
                move_number: i + 1,
                text: word,
                reason: "not a square (A1 to H8)",
            })
        })
        .collect()
}

/// Reads a kifu's squares; written passes are dropped, since [`play`]
/// inserts passes where they are forced.
pub fn parse(text: &str) -> Result<Vec<Square>, KifuError> {
    let moves = parse_moves(text)?;
    Ok(moves.into_iter().filter_map(|m| if let Move::Play(s) = m { Some(s) } else { None }).collect())
}

/// Plays squares from the initial position, inserting a pass wherever the side
/// to move has none before its next move. Returns the board reached (after the
/// last square, with no pass added after it) and the moves, passes included.
pub fn play(squares: &[Square]) -> Result<(Board, Vec<Move>), KifuError> {
    let mut board = Board::INITIAL;
    let mut line = Vec::with_capacity(squares.len() + 2);
    for (i, &square) in squares.iter().enumerate() {
        if board.must_pass() {
            board = board.swapped();
            line.push(Move::Pass);
        }
        let mv = Move::Play(square);
        board = board.after(mv).ok_or(KifuError {
            move_number: i + 1,
            text: square.to_string(),
            reason: "illegal move in this position",
        })?;
        line.push(mv);
    }
    Ok((board, line))
}

/// Reads and plays a kifu.
pub fn parse_and_play(text: &str) -> Result<(Board, Vec<Move>), KifuError> {
    play(&parse(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plays_a_line_in_any_case() {
        let (board, line) = parse_and_play("f5D6c3").unwrap();
        assert_eq!(line.len(), 3);
        assert_eq!(board.empties(), 57);
        assert_eq!(parse_and_play("F5 D6 C3").unwrap().0, board);
    }

    #[test]
    fn rejects_bad_squares_and_illegal_moves() {
        assert_eq!(parse("F5Z9").unwrap_err().move_number, 2);
        assert_eq!(parse("F5D").unwrap_err().move_number, 2);
        let err = parse_and_play("F5F5").unwrap_err();
        assert_eq!((err.move_number, err.reason), (2, "illegal move in this position"));
    }

    /// The first line (depth-first, lowest squares first) that leaves the side
    /// to move without a move.
    fn first_line_to_a_pass(board: Board, depth: u32, line: &mut Vec<Square>) -> bool {
        if board.must_pass() {
            return true;
        }
        if depth == 0 {
            return false;
        }
        for square in Square::iter(board.legal_moves()) {
            line.push(square);
            if first_line_to_a_pass(board.after(Move::Play(square)).unwrap(), depth - 1, line) {
                return true;
            }
            line.pop();
        }
        false
    }

    #[test]
    fn inserts_the_passes_a_line_implies() {
        let mut squares = Vec::new();
        assert!(first_line_to_a_pass(Board::INITIAL, 9, &mut squares));
        let (stuck, line) = play(&squares).unwrap();
        assert!(stuck.must_pass());
        assert!(!line.contains(&Move::Pass), "no pass after the last move");
        let reply = Square::iter(stuck.swapped().legal_moves()).next().unwrap();
        squares.push(reply);
        let (_, line) = play(&squares).unwrap();
        assert_eq!(line[squares.len() - 1], Move::Pass);
        assert_eq!(line.len(), squares.len() + 1);
    }
}
