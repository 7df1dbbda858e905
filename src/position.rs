//! The three ways a user writes a position for inspection (SPEC §5): two
//! 64-bit numbers, a kifu from the initial position, or a 64-square board
//! followed by the side to move.

use crate::board::{Board, Move, Square};
use crate::kifu;

/// Which colour the side to move is, when the notation says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    Black,
    White,
}

/// A position as written by the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub board: Board,
    /// The colour to move, unknown for the two-number form.
    pub to_move: Option<Colour>,
    /// The moves that reach it, for the kifu form.
    pub line: Option<Vec<Move>>,
}

/// Reads one position; the error says what is wrong with the text.
pub fn parse(text: &str) -> Result<Position, String> {
    let text = text.trim().trim_end_matches(';').trim();
    if text.is_empty() {
        return Err("empty position".into());
    }
    let words: Vec<&str> = text.split([' ', '\t', ',']).filter(|w| !w.is_empty()).collect();
    if let [a, b] = words[..] {
        if let (Some(player), Some(opponent)) = (parse_number(a), parse_number(b)) {
            return from_numbers(player, opponent);
        }
    }
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.len() == 65 && compact.bytes().take(64).all(|c| b"XxOo*-.".contains(&c)) {
        return from_squares(&compact);
    }
    if compact.chars().all(|c| c.is_ascii_alphanumeric()) {
        let (board, line) = kifu::parse_and_play(&compact).map_err(|e| format!("kifu {e}"))?;
        let black = line.len() % 2 == 0;
        return Ok(Position {
            board,
            to_move: Some(if black { Colour::Black } else { Colour::White }),
            line: Some(line),
        });
    }
    Err(format!(
        "\"{text}\" is not a position: write two 64-bit numbers (player opponent), a kifu such as F5D6C3, \
         or 64 squares (X/* black, O white, -/. empty) and the side to move"
    ))
}

fn parse_number(word: &str) -> Option<u64> {
    match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => word.parse().ok(),
    }
}

fn from_numbers(player: u64, opponent: u64) -> Result<Position, String> {
    if player & opponent != 0 {
        let both: Vec<String> = Square::iter(player & opponent).map(|s| s.to_string()).collect();
        return Err(format!("both sides have a disc on {}", both.join(" ")));
    }
    Ok(Position { board: Board::new(player, opponent), to_move: None, line: None })
}

fn from_squares(compact: &str) -> Result<Position, String> {
    let bytes = compact.as_bytes();
    let (mut black, mut white) = (0u64, 0u64);
    for (i, c) in bytes[..64].iter().enumerate() {
        match c.to_ascii_uppercase() {
            b'X' | b'*' => black |= 1 << i,
            b'O' => white |= 1 << i,
            _ => {}
        }
    }
    match bytes[64].to_ascii_uppercase() {
        b'X' | b'*' => Ok(Position { board: Board::new(black, white), to_move: Some(Colour::Black), line: None }),
        b'O' => Ok(Position { board: Board::new(white, black), to_move: Some(Colour::White), line: None }),
        other => Err(format!("side to move must be X or O, not {:?}", other as char)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_notations_agree_on_the_initial_position() {
        let numbers = parse("0x0000000810000000 0x0000001008000000").unwrap();
        let decimal = parse("34628173824,68853694464").unwrap();
        let squares = parse("---------------------------OX------XO--------------------------- X").unwrap();
        assert_eq!(numbers.board, Board::INITIAL);
        assert_eq!(decimal.board, Board::INITIAL);
        assert_eq!(squares.board, Board::INITIAL);
        assert_eq!(squares.to_move, Some(Colour::Black));
    }

    #[test]
    fn a_kifu_gives_the_board_and_the_side_to_move() {
        let p = parse("f5d6").unwrap();
        assert_eq!(p.to_move, Some(Colour::Black));
        assert_eq!(p.line.unwrap().len(), 2);
        let white = parse("F5").unwrap();
        assert_eq!(white.to_move, Some(Colour::White));
        let board = parse("---------------------------OX------XXX-------------------------- O").unwrap();
        assert_eq!(board.board, white.board);
    }

    #[test]
    fn malformed_positions_say_why() {
        assert!(parse("F5F5").unwrap_err().contains("illegal"));
        assert!(parse("0x1 0x1").unwrap_err().contains("both sides"));
        assert!(parse("hello world!").unwrap_err().contains("not a position"));
        assert!(parse("---------------------------OX------XO--------------------------- Z").is_err());
    }
}
