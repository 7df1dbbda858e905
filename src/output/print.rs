//! The output formats (docs/modes.md, output) and one printer for each: a
//! printer turns a mismatch record, with its line already rendered as kifu,
//! into one line of its file.

use super::text::{push_board, push_move, side_char};
use crate::board::{Board, Move};
use crate::book::Score;
use crate::rules::mismatch::Mismatch;
use crate::rules::modes::{Branch, Target};
use crate::symmetry::Symmetry;
use std::fmt;
use std::str::FromStr;

/// An output format: one file per mode in each format asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecordFormat {
    /// `mode{N}.txt`: the kifu, one line each.
    Kifu,
    /// `mode{N}.jsonl`: one JSON object per line (docs/modes.md, JSONL record).
    Jsonl,
    /// `mode{N}.obf`: the position at the end of each line (docs/modes.md, OBF record).
    Obf,
}

impl RecordFormat {
    /// Every format, in the order files are listed.
    pub const ALL: [RecordFormat; 3] = [RecordFormat::Kifu, RecordFormat::Jsonl, RecordFormat::Obf];

    /// The format's name, as `format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            RecordFormat::Kifu => "kifu",
            RecordFormat::Jsonl => "jsonl",
            RecordFormat::Obf => "obf",
        }
    }

    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            RecordFormat::Kifu => "txt",
            RecordFormat::Jsonl => "jsonl",
            RecordFormat::Obf => "obf",
        }
    }

    /// The printer that writes its lines.
    pub fn printer(self) -> &'static dyn Printer {
        match self {
            RecordFormat::Kifu => &KifuPrinter,
            RecordFormat::Jsonl => &JsonlPrinter,
            RecordFormat::Obf => &ObfPrinter,
        }
    }
}

impl fmt::Display for RecordFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of formats, never empty once parsed.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordFormats(u8);

impl RecordFormats {
    /// The kifu file alone.
    pub const KIFU: RecordFormats = RecordFormats(1);

    /// The set of `formats`.
    pub fn of(formats: &[RecordFormat]) -> RecordFormats {
        RecordFormats(formats.iter().fold(0, |bits, &f| bits | 1 << f as u8))
    }

    /// Whether the set holds `format`.
    pub fn contains(self, format: RecordFormat) -> bool {
        self.0 & 1 << format as u8 != 0
    }

    /// The formats in the set, in [`RecordFormat::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = RecordFormat> {
        RecordFormat::ALL.into_iter().filter(move |&f| self.contains(f))
    }
}

impl Default for RecordFormats {
    fn default() -> RecordFormats {
        RecordFormats::KIFU
    }
}

impl fmt::Debug for RecordFormats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for RecordFormats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, format) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(format.name())?;
        }
        Ok(())
    }
}

/// A `format` value that names no format, or an unknown one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a format; allowed values: \"kifu\", \"jsonl\", \"obf\", or a comma-separated list of them")]
pub struct RecordFormatsError {
    /// The value, as written.
    pub text: String,
}

impl FromStr for RecordFormats {
    type Err = RecordFormatsError;

    /// One name or a comma-separated list, in any case; repeats are harmless.
    fn from_str(text: &str) -> Result<RecordFormats, RecordFormatsError> {
        let bad = || RecordFormatsError { text: text.to_string() };
        let mut bits = 0;
        for name in text.split(',') {
            let format =
                RecordFormat::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(name.trim())).ok_or_else(bad)?;
            bits |= 1 << format as u8;
        }
        Ok(RecordFormats(bits))
    }
}

/// A record's line as the kifu file writes it, and the symmetry it was turned by.
#[derive(Clone, Copy, Debug)]
pub struct LineText<'a> {
    /// The line, as kifu.
    pub kifu: &'a str,
    /// The symmetry it was turned by.
    pub symmetry: Symmetry,
}

/// A record written as one line of each format: a line of moves from the
/// initial position, the position at its end, and the JSONL keys only it
/// has (a mining mode's, `check`'s).
pub trait Lined {
    /// Moves from the initial position to the end of the line, passes included.
    fn line(&self) -> &[Move];

    /// The position at the end of the line; `player` is the side to move.
    fn board(&self) -> Board;

    /// Appends the JSONL keys that come after `"kifu"` and before
    /// `"board"`, each with its leading comma; a move is turned by
    /// `symmetry`, as the line is.
    fn push_keys(&self, symmetry: Symmetry, out: &mut String);

    /// Whether black moves at the end of the line: the line starts at the
    /// initial position (black to move) and holds its passes, so its
    /// length tells.
    fn black_to_move(&self) -> bool {
        self.line().len().is_multiple_of(2)
    }
}

/// Writes records in one format.
pub trait Printer: Sync {
    /// Appends the record's line of the file, line end included.
    fn print(&self, record: &dyn Lined, line: &LineText<'_>, out: &mut String);
}

/// `mode{N}.txt`: the kifu.
pub struct KifuPrinter;

impl Printer for KifuPrinter {
    fn print(&self, _record: &dyn Lined, line: &LineText<'_>, out: &mut String) {
        out.push_str(line.kifu);
        out.push('\n');
    }
}

/// `mode{N}.jsonl`: `kifu`, the record's own keys, then `board` and `side`,
/// in order, without spaces (docs/modes.md, JSONL record).
pub struct JsonlPrinter;

impl Printer for JsonlPrinter {
    fn print(&self, r: &dyn Lined, line: &LineText<'_>, out: &mut String) {
        out.push_str("{\"kifu\":");
        push_json_string(line.kifu, out);
        r.push_keys(line.symmetry, out);
        out.push_str(",\"board\":\"");
        push_board(&r.board(), r.black_to_move(), line.symmetry, out);
        out.push_str("\",\"side\":\"");
        out.push(side_char(r.black_to_move()));
        out.push_str("\"}\n");
    }
}

/// A mining mode's keys (docs/modes.md, JSONL record): from `mode` to `empties`.
impl Lined for Mismatch<'_> {
    fn line(&self) -> &[Move] {
        self.line
    }

    fn board(&self) -> Board {
        self.board
    }

    fn push_keys(&self, symmetry: Symmetry, out: &mut String) {
        out.push_str(",\"mode\":");
        push_int(self.mode.number().into(), out);
        out.push_str(match self.branch {
            Branch::Above => ",\"branch\":\"above\"",
            Branch::Below => ",\"branch\":\"below\"",
        });
        out.push_str(match self.target {
            Target::Child => ",\"target\":\"child\"",
            Target::Move(_) => ",\"target\":\"move\"",
        });
        out.push_str(",\"move\":");
        push_json_move(self.mv, symmetry, out);
        for (key, value) in [(",\"score\":", self.score), (",\"p\":", Some(self.p)), (",\"v\":", Some(self.v))] {
            out.push_str(key);
            push_score(value, out);
        }
        for (key, value) in [(",\"l\":", self.l), (",\"f\":", self.f), (",\"m\":", self.m)] {
            out.push_str(key);
            push_score(value, out);
        }
        out.push_str(",\"empties\":");
        push_int(self.empties.into(), out);
    }
}

/// `mode{N}.obf`: the board, the side to move, `;`, and the kifu as a comment.
pub struct ObfPrinter;

impl Printer for ObfPrinter {
    fn print(&self, r: &dyn Lined, line: &LineText<'_>, out: &mut String) {
        push_board(&r.board(), r.black_to_move(), line.symmetry, out);
        out.push(' ');
        out.push(side_char(r.black_to_move()));
        out.push_str("; % ");
        out.push_str(line.kifu);
        out.push('\n');
    }
}

/// Appends a move as a JSON string, turned by `symmetry` (`"PS"` for a
/// pass), or `null`.
pub fn push_json_move(mv: Option<Move>, symmetry: Symmetry, out: &mut String) {
    match mv {
        Some(mv) => {
            out.push('"');
            push_move(symmetry.apply_move(mv), out);
            out.push('"');
        }
        None => out.push_str("null"),
    }
}

/// Appends a score, or `null`.
pub fn push_score(score: Option<Score>, out: &mut String) {
    match score {
        Some(s) => push_int(s.0.into(), out),
        None => out.push_str("null"),
    }
}

/// Appends an integer in decimal, without the formatting machinery.
pub fn push_int(n: i64, out: &mut String) {
    if n < 0 {
        out.push('-');
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(d as char);
    }
}

/// Appends `,"key":[old,new]`: a number before and after.
pub fn push_pair(key: &str, old: i64, new: i64, out: &mut String) {
    out.push_str(",\"");
    out.push_str(key);
    out.push_str("\":[");
    push_int(old, out);
    out.push(',');
    push_int(new, out);
    out.push(']');
}

/// Appends `text` as a JSON string: a pass token may hold any character.
pub fn push_json_string(text: &str, out: &mut String) {
    out.push('"');
    if !text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(text);
        out.push('"');
        return;
    }
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                out.push_str("\\u00");
                out.push(char::from_digit(c as u32 >> 4, 16).expect("a hex digit"));
                out.push(char::from_digit(c as u32 & 15, 16).expect("a hex digit"));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Move, Square};
    use crate::kifu::parse_and_play;
    use crate::output::{LineStyle, Orientation};
    use crate::rules::modes::Mode;

    /// Prints `record` in `format` with its line rendered by `text`.
    fn print(format: RecordFormat, record: &Mismatch<'_>, text: &LineStyle) -> String {
        let mut kifu = String::new();
        let symmetry = text.render(record.line, &mut kifu);
        let mut out = String::new();
        format.printer().print(record, &LineText { kifu: &kifu, symmetry }, &mut out);
        out
    }

    fn record<'a>(line: &'a [Move], board: Board) -> Mismatch<'a> {
        Mismatch {
            mode: Mode::ValueVsBest,
            branch: Branch::Above,
            target: Target::Move(1),
            mv: line.last().copied(),
            score: Some(Score(3)),
            p: Score(-1),
            v: Score(1),
            l: Some(Score(3)),
            f: None,
            m: Some(Score(3)),
            empties: 57,
            line,
            board,
        }
    }

    #[test]
    fn jsonl_keys_come_in_order_with_nulls_and_the_move_turned_like_the_line() {
        // Walked as C4 E3 F6; turned to F5 by the half-turn: F5 D6 C3.
        let (board, line) = parse_and_play("C4E3F6").unwrap();
        let r = record(&line, board);
        let json = print(RecordFormat::Jsonl, &r, &LineStyle::default());
        let (f5_board, _) = parse_and_play("F5D6C3").unwrap();
        let mut board_text = String::new();
        push_board(&f5_board, false, Symmetry::IDENTITY, &mut board_text);
        assert_eq!(
            json,
            format!(
                "{{\"kifu\":\"F5D6C3\",\"mode\":2,\"branch\":\"above\",\"target\":\"move\",\"move\":\"C3\",\"score\":3,\
                 \"p\":-1,\"v\":1,\"l\":3,\"f\":null,\"m\":3,\"empties\":57,\"board\":\"{board_text}\",\"side\":\"O\"}}\n"
            )
        );
    }

    #[test]
    fn a_child_target_has_null_move_and_score_and_absent_values_are_null() {
        let (board, line) = parse_and_play("F5").unwrap();
        let r = Mismatch {
            branch: Branch::Below,
            target: Target::Child,
            mv: None,
            score: None,
            l: None,
            f: None,
            m: None,
            ..record(&line, board)
        };
        let json = print(RecordFormat::Jsonl, &r, &LineStyle::default());
        assert!(
            json.starts_with(
                "{\"kifu\":\"F5\",\"mode\":2,\"branch\":\"below\",\"target\":\"child\",\"move\":null,\"score\":null,\
                 \"p\":-1,\"v\":1,\"l\":null,\"f\":null,\"m\":null,\"empties\":57,\"board\":\""
            ),
            "{json}"
        );
        assert!(json.ends_with("\",\"side\":\"O\"}\n"), "{json}");
    }

    #[test]
    fn a_pass_target_is_ps_in_jsonl_whatever_the_token_and_the_side_stays() {
        // A made-up line ending in a pass: the pass swaps the side to move.
        let (board, mut line) = parse_and_play("F5D6").unwrap();
        line.push(Move::Pass);
        let r = record(&line, board.swapped());
        for token in ["", "pa", "\"\\"] {
            let text = LineStyle { orientation: Orientation::F5, pass_token: token.into() };
            let json = print(RecordFormat::Jsonl, &r, &text);
            let escaped = token.replace('\\', "\\\\").replace('"', "\\\"");
            assert!(json.starts_with(&format!("{{\"kifu\":\"F5D6{escaped}\",")), "{json}");
            assert!(json.contains(",\"move\":\"PS\","), "{json}");
            assert!(json.ends_with(",\"side\":\"O\"}\n"), "three moves from the start: white to move; {json}");
        }
    }

    #[test]
    fn obf_is_the_board_the_side_and_the_kifu_as_a_comment() {
        let (board, line) = parse_and_play("D3").unwrap();
        let r = Mismatch { mode: Mode::LeafVsLinks, ..record(&line, board) };
        let walked = LineStyle { orientation: Orientation::AsWalked, pass_token: String::new() };
        let obf = print(RecordFormat::Obf, &r, &walked);
        let expected_board = "-------------------X-------XX------XO-----------------------------";
        assert_eq!(obf, format!("{} O; % D3\n", &expected_board[..64]));
        let turned = print(RecordFormat::Obf, &r, &LineStyle::default());
        assert_eq!(turned, "---------------------------OX------XXX-------------------------- O; % F5\n");
        assert_eq!(print(RecordFormat::Kifu, &r, &walked), "D3\n");
    }

    #[test]
    fn black_to_move_is_x_and_colours_follow_the_side() {
        let line = [Move::Play(Square::parse("F5").unwrap()), Move::Play(Square::parse("D6").unwrap())];
        let (board, _) = parse_and_play("F5D6").unwrap();
        let r = record(&line, board);
        let obf = print(RecordFormat::Obf, &r, &LineStyle::default());
        assert!(obf.ends_with(" X; % F5D6\n"), "{obf}");
        assert_eq!(obf[..64].matches('X').count(), 3, "{obf}");
        assert_eq!(obf[..64].matches('O').count(), 3, "{obf}");
    }

    #[test]
    fn formats_parse_in_any_case_and_refuse_unknown_names() {
        assert_eq!("JSONL".parse::<RecordFormats>().unwrap(), RecordFormats::of(&[RecordFormat::Jsonl]));
        assert_eq!("obf,Kifu,obf".parse::<RecordFormats>().unwrap().to_string(), "kifu,obf");
        for bad in ["", ",", "kifu,,obf", "txt"] {
            assert!(bad.parse::<RecordFormats>().is_err(), "{bad:?}");
        }
    }
}
