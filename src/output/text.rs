//! Text of lines and boards (docs/modes.md, output): move names, the orientation a line is
//! turned to, passes, and the 64-character board of JSONL and OBF.

use crate::board::{Board, Move, Square};
use crate::choice::Choice;
use crate::symmetry::Symmetry;

/// How lines are turned before they are written (each value's
/// [`Choice::help`] says what it does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Orientation {
    #[default]
    /// Turned so that its first move is F5.
    F5,
    /// In the walk's own coordinates.
    AsWalked,
}

impl Choice for Orientation {
    const ALL: &'static [Orientation] = &[Orientation::F5, Orientation::AsWalked];

    fn name(self) -> &'static str {
        match self {
            Orientation::F5 => "f5",
            Orientation::AsWalked => "as-walked",
        }
    }

    fn help(self) -> Option<&'static str> {
        Some(match self {
            Orientation::F5 => "Map the line by the symmetry of the initial position that sends its first move to F5",
            Orientation::AsWalked => "Keep the walk's own coordinates",
        })
    }
}

/// The symmetry of the initial position that sends an opening move to F5:
/// F5 itself, E6 by transposition, D3 by the anti-diagonal, C4 by the
/// half-turn. Any other first move (only possible from a non-initial start)
/// is left as it is. Each of the four is its own inverse.
fn to_f5(first: Option<&Move>) -> Symmetry {
    let index = match first.map(|m| m.code()) {
        Some(44) => 4, // E6
        Some(19) => 7, // D3
        Some(26) => 3, // C4
        _ => 0,
    };
    Symmetry::new(index).expect("0..8")
}

/// Renders move lines as kifu text.
#[derive(Clone, Debug, Default)]
pub struct LineStyle {
    /// How lines are turned.
    pub orientation: Orientation,
    /// Written for a pass; empty leaves passes out.
    pub pass_token: String,
}

impl LineStyle {
    /// The symmetry a line is written under: the same for its moves and for
    /// the board at its end.
    pub fn symmetry(&self, line: &[Move]) -> Symmetry {
        match self.orientation {
            Orientation::F5 => to_f5(line.first()),
            Orientation::AsWalked => Symmetry::IDENTITY,
        }
    }

    /// Appends the text of `line` (no line end) to `out` and returns the
    /// symmetry it was written under. Each move is one lookup, the name of
    /// the square the symmetry sends it to, gathered in a buffer on the
    /// stack and appended to `out` whole.
    pub fn render(&self, line: &[Move], out: &mut String) -> Symmetry {
        let symmetry = self.symmetry(line);
        let names = &NAMES_UNDER[symmetry.index() as usize];
        let mut buffer = [0u8; 128];
        let mut len = 0;
        for &mv in line {
            match mv {
                Move::Play(square) if len + 2 <= buffer.len() => {
                    buffer[len..len + 2].copy_from_slice(&names[usize::from(square.index())]);
                    len += 2;
                }
                _ => {
                    flush(&buffer[..len], out);
                    len = 0;
                    match mv {
                        Move::Play(square) => flush(&names[usize::from(square.index())], out),
                        Move::Pass => out.push_str(&self.pass_token),
                    }
                }
            }
        }
        flush(&buffer[..len], out);
        symmetry
    }
}

/// Appends square names (ASCII) to `out`.
fn flush(names: &[u8], out: &mut String) {
    out.push_str(std::str::from_utf8(names).expect("square names are ASCII"));
}

/// `NAMES_UNDER[s][x]`: the name, upper case, of the square symmetry `s`
/// sends square `x` to.
const NAMES_UNDER: [[[u8; 2]; 64]; 8] = {
    let mut table = [[[0u8; 2]; 64]; 8];
    let mut s = 0;
    while s < 8 {
        let mut x = 0;
        while x < 64 {
            let to = Symmetry::ALL[s].square_index(x as u8);
            table[s][x] = [b'A' + to % 8, b'1' + to / 8];
            x += 1;
        }
        s += 1;
    }
    table
};

/// Appends a square as an upper-case letter and digit: `F5`.
pub fn push_square(square: Square, out: &mut String) {
    out.push((b'A' + square.column()) as char);
    out.push((b'1' + square.row()) as char);
}

/// Appends a move as written in JSONL: its square, or `PS` for a pass.
pub fn push_move(mv: Move, out: &mut String) {
    match mv {
        Move::Play(square) => push_square(square, out),
        Move::Pass => out.push_str("PS"),
    }
}

/// `X` for black, `O` for white.
pub fn side_char(black: bool) -> char {
    if black {
        'X'
    } else {
        'O'
    }
}

/// Eight `-`, as the bytes of a little-endian word.
const EMPTY_ROW: u64 = u64::from_le_bytes([b'-'; 8]);

/// For each byte of a bitboard, a word whose byte i is bit i of it.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut bits = 0;
    while bits < 256 {
        let mut i = 0;
        while i < 8 {
            table[bits] |= ((bits as u64 >> i) & 1) << (8 * i);
            i += 1;
        }
        bits += 1;
    }
    table
};

/// Appends the 64 squares A1…H8 row by row, `X` black, `O` white, `-` empty,
/// of `board` (`player` to move, black if `black_to_move`) turned by `symmetry`.
pub fn push_board(board: &Board, black_to_move: bool, symmetry: Symmetry, out: &mut String) {
    let turned = symmetry.board(board);
    let (black, white) =
        if black_to_move { (turned.player, turned.opponent) } else { (turned.opponent, turned.player) };
    // A row at a time, without branches: each byte of SPREAD[bits] is 0 or 1,
    // so multiplying by a byte difference changes exactly the squares set.
    let mut squares = [0u8; 64];
    for (row, chunk) in squares.chunks_exact_mut(8).enumerate() {
        let (b, w) = (SPREAD[(black >> (8 * row)) as u8 as usize], SPREAD[(white >> (8 * row)) as u8 as usize]);
        let text = EMPTY_ROW ^ (b * u64::from(b'-' ^ b'X')) ^ (w * u64::from(b'-' ^ b'O'));
        chunk.copy_from_slice(&text.to_le_bytes());
    }
    out.push_str(std::str::from_utf8(&squares).expect("ASCII"));
}

/// The UTF-8 byte-order mark kifu files (unless `bom = false`) and the log start with.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Vec<Move> {
        crate::kifu::parse_moves(text).unwrap()
    }

    fn render(format: &LineStyle, text: &str) -> String {
        let mut out = String::new();
        format.render(&line(text), &mut out);
        out
    }

    #[test]
    fn the_rendering_tables_agree_with_mapping_and_naming_each_square() {
        for s in Symmetry::ALL {
            for i in 0..64 {
                let mut slow = String::new();
                push_square(s.square(Square::new(i).unwrap()), &mut slow);
                assert_eq!(NAMES_UNDER[s.index() as usize][usize::from(i)], slow.as_bytes());
            }
        }
    }

    #[test]
    fn long_lines_and_long_pass_tokens_are_rendered_whole() {
        let moves: Vec<Move> = (0..200).map(|i| Move::Play(Square::new((i * 7 % 64) as u8).unwrap())).collect();
        let mut text = String::new();
        let f = LineStyle { orientation: Orientation::AsWalked, pass_token: "pass-".repeat(40) };
        f.render(&moves, &mut text);
        let slow: String = moves.iter().map(|m| m.to_string()).collect();
        assert_eq!(text, slow);
        let mut with_passes = moves.clone();
        with_passes.insert(100, Move::Pass);
        text.clear();
        f.render(&with_passes, &mut text);
        assert_eq!(text, format!("{}{}{}", &slow[..200], f.pass_token, &slow[200..]));
    }

    #[test]
    fn every_opening_is_turned_to_f5() {
        let f = LineStyle::default();
        assert_eq!(render(&f, "F5D6"), "F5D6");
        assert_eq!(render(&f, "E6F4"), "F5D6");
        assert_eq!(render(&f, "D3C5"), "F5D6");
        assert_eq!(render(&f, "C4E3"), "F5D6");
    }

    #[test]
    fn as_walked_keeps_coordinates_and_passes_use_the_token() {
        let f = LineStyle { orientation: Orientation::AsWalked, pass_token: String::new() };
        assert_eq!(render(&f, "C4E3PSA1"), "C4E3A1");
        let f = LineStyle { orientation: Orientation::F5, pass_token: "PS".into() };
        assert_eq!(render(&f, "C4E3PSA1"), "F5D6PSH8");
    }

    #[test]
    fn the_board_is_written_under_the_line_symmetry() {
        let (board, moves) = crate::kifu::parse_and_play("C4").unwrap();
        let mut walked = String::new();
        push_board(&board, moves.len() % 2 == 0, Symmetry::IDENTITY, &mut walked);
        assert_eq!(&walked[24..40], "--XXX------XO---", "C4 D4 E4 and D5 black, E5 white");
        let mut turned = String::new();
        let symmetry = LineStyle::default().symmetry(&moves);
        push_board(&board, false, symmetry, &mut turned);
        let (f5, _) = crate::kifu::parse_and_play("F5").unwrap();
        let mut expected = String::new();
        push_board(&f5, false, Symmetry::IDENTITY, &mut expected);
        assert_eq!(turned, expected);
    }
}
