//! The three ways a user writes a position for inspection (docs/modes.md, inspect): two
//! 64-bit numbers, a kifu from the initial position, or a 64-square board
//! followed by the side to move.

use crate::board::{Board, Move, Square};
use crate::kifu::{self, KifuError};

/// Which colour the side to move is, when the notation says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// Black to move.
    Black,
    /// White to move.
    White,
}

/// A position as written by the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The position, the side to move as player.
    pub board: Board,
    /// The colour to move, unknown for the two-number form.
    pub to_move: Option<Colour>,
    /// The moves that reach it, for the kifu form.
    pub line: Option<Vec<Move>>,
}

/// Why a text is not a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Nothing but blanks (and a final `;`).
    #[error("empty position")]
    Empty,
    /// None of the three notations; `text` is the text as read, trimmed.
    #[error(
        "\"{text}\" is not a position: write two 64-bit numbers (player opponent), a kifu such as F5D6C3, \
         or 64 squares (X/* black, O white, -/. empty) and the side to move"
    )]
    NotAPosition {
        /// The text, as read, trimmed.
        text: String,
    },
    /// Written as a kifu, but it cannot be read or played.
    #[error("kifu {0}")]
    Kifu(#[from] KifuError),
    /// Two numbers sharing squares: `discs` holds the squares both claim.
    #[error("both sides have a disc on {}", square_list(.discs))]
    Overlap {
        /// The squares both numbers claim.
        discs: u64,
    },
    /// A 64-square board followed by something other than `X`, `*` or `O`.
    #[error("side to move must be X or O, not {side:?}")]
    SideToMove {
        /// What follows the board.
        side: char,
    },
}

/// The squares of a bitboard, "A1 B1 C1".
fn square_list(bits: &u64) -> String {
    Square::iter(*bits).map(|s| s.to_string()).collect::<Vec<_>>().join(" ")
}

/// Reads one position; the error says what is wrong with the text. Lines
/// bookminer writes read as positions too: an OBF line (the board and side
/// before its first `;`, its `%` comment and any solutions ignored), and a
/// JSON line that has a `board` and a `side` (mining's JSONL, fix's
/// receipt, diff's lines).
pub fn parse(text: &str) -> Result<Position, PositionError> {
    let text = text.trim();
    if text.starts_with('{') {
        return from_json(text);
    }
    let text = text.split(['%', ';']).next().unwrap_or_default().trim();
    if text.is_empty() {
        return Err(PositionError::Empty);
    }
    let words: Vec<&str> = text.split([' ', '\t', ',']).filter(|w| !w.is_empty()).collect();
    if let [a, b] = words[..] {
        if let (Some(player), Some(opponent)) = (parse_number(a), parse_number(b)) {
            return from_numbers(player, opponent);
        }
    }
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if squares_and_side(&compact) {
        return from_squares(&compact);
    }
    if compact.chars().all(|c| c.is_ascii_alphanumeric()) {
        let (board, line) = kifu::parse_and_play(&compact)?;
        let black = line.len() % 2 == 0;
        return Ok(Position {
            board,
            to_move: Some(if black { Colour::Black } else { Colour::White }),
            line: Some(line),
        });
    }
    Err(PositionError::NotAPosition { text: text.to_string() })
}

/// Whether `compact` (no blanks) is 64 squares and one more character, the
/// side to move.
fn squares_and_side(compact: &str) -> bool {
    compact.len() == 65 && compact.bytes().take(64).all(|c| b"XxOo*-.".contains(&c))
}

/// Whether `text` is written as a board (64 squares and the side to move,
/// an OBF line's tail allowed), whatever the side: such a text is a
/// position even when it starts with `-`, as no flag does.
pub fn is_board(text: &str) -> bool {
    let board = text.split(['%', ';']).next().unwrap_or_default();
    squares_and_side(&board.chars().filter(|c| !c.is_whitespace()).collect::<String>())
}

/// A JSON line's `board` (64 squares) and `side`, read as the 64-square
/// form.
fn from_json(text: &str) -> Result<Position, PositionError> {
    let not_one = || PositionError::NotAPosition { text: text.to_string() };
    let record: serde_json::Value = serde_json::from_str(text).map_err(|_| not_one())?;
    let (Some(board), Some(side)) = (record["board"].as_str(), record["side"].as_str()) else { return Err(not_one()) };
    let compact = format!("{board}{side}");
    match squares_and_side(&compact) {
        true => from_squares(&compact),
        false => Err(not_one()),
    }
}

fn parse_number(word: &str) -> Option<u64> {
    match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => word.parse().ok(),
    }
}

fn from_numbers(player: u64, opponent: u64) -> Result<Position, PositionError> {
    if player & opponent != 0 {
        return Err(PositionError::Overlap { discs: player & opponent });
    }
    Ok(Position { board: Board::new(player, opponent), to_move: None, line: None })
}

fn from_squares(compact: &str) -> Result<Position, PositionError> {
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
        other => Err(PositionError::SideToMove { side: other as char }),
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
        assert_eq!(parse("  ; "), Err(PositionError::Empty));
        assert!(matches!(
            parse("F5F5"),
            Err(PositionError::Kifu(KifuError { move_number: 2, reason: "illegal move in this position", .. }))
        ));
        assert!(matches!(parse("F5Z9"), Err(PositionError::Kifu(KifuError { move_number: 2, .. }))));
        assert_eq!(parse("0x1 0x1"), Err(PositionError::Overlap { discs: 1 }));
        assert_eq!(parse("0xff,0x0f"), Err(PositionError::Overlap { discs: 0x0f }));
        assert!(matches!(parse("hello world!"), Err(PositionError::NotAPosition { text }) if text == "hello world!"));
        assert_eq!(
            parse("---------------------------OX------XO--------------------------- Z"),
            Err(PositionError::SideToMove { side: 'Z' })
        );
    }

    #[test]
    fn the_lines_bookminer_writes_read_as_positions() {
        let board = "---------------------------OX------XXX-------------------------- O";
        let white = parse("F5").unwrap();
        for line in [
            format!("{board}; % F5"),
            format!("{board}; D6:+0; % F5"),
            format!("{board} % F5"),
            r#"{"kifu":"F5","mode":3,"empties":59,"board":"---------------------------OX------XXX--------------------------","side":"O"}"#.to_string(),
        ] {
            let p = parse(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!((p.board, p.to_move), (white.board, white.to_move), "{line}");
        }
        assert!(matches!(parse(r#"{"kifu":"F5"}"#), Err(PositionError::NotAPosition { .. })));
        assert!(matches!(parse(r#"{"board":"XO","side":"X"}"#), Err(PositionError::NotAPosition { .. })));
        assert!(matches!(parse("{not json"), Err(PositionError::NotAPosition { .. })));
    }

    /// The messages users read (inspect's stderr), byte for byte.
    #[test]
    fn each_error_displays_its_message() {
        let message = |text: &str| parse(text).unwrap_err().to_string();
        assert_eq!(message(""), "empty position");
        assert_eq!(
            message(" hello world! ;"),
            "\"hello world!\" is not a position: write two 64-bit numbers (player opponent), a kifu such as F5D6C3, \
             or 64 squares (X/* black, O white, -/. empty) and the side to move"
        );
        assert_eq!(message("F5F5"), "kifu move 2 \"F5\": illegal move in this position");
        assert_eq!(message("F5Z9"), "kifu move 2 \"Z9\": not a square (A1 to H8)");
        assert_eq!(message("0xff 0x0f"), "both sides have a disc on A1 B1 C1 D1");
        assert_eq!(
            message("---------------------------OX------XO--------------------------- Z"),
            "side to move must be X or O, not 'Z'"
        );
        let kifu = parse("F5F5").unwrap_err();
        assert!(std::error::Error::source(&kifu).is_some_and(|e| e.is::<KifuError>()), "the kifu error is the source");
    }
}
