//! PGN files (`.pgn`) as Othello programs write them: a game is tag pairs
//! `[Name "value"]`, then its moves, each a square in either case or a
//! pass (`pass`, `PA`, `PS`), with or without move numbers (`1.`, `1...`,
//! `12.f5`) and annotations (`f5!?`). Comments (`{…}`, `;` to the end of
//! the line), variations (`(…)`) and numeric annotations (`$1`) are read
//! past. A game ends at its result (`1-0`, `0-1`, `1/2-1/2`, `*`, or disc
//! counts `33-31`), at the next game's tags, or at the end of the file. A
//! `FEN` tag other than the standard start with black to move skips the
//! game (another start). Other tags are read past.
//!
//! The file is read a byte at a time, keeping no more of a tag or a word
//! than a move or a board needs.

use super::bytes::{shown, Bytes};
use super::error::ReadError;
use super::reader::{Entry, Game, GamePlace, Reader, SkipReason, Skipped};
use crate::board::{Board, Move, Square};
use crate::kifu::MAX_MOVES;
use std::io::BufRead;

/// The part of a tag's value kept: more than a board ever takes.
const KEPT_VALUE: usize = 256;
/// The longest tag name read.
const MAX_NAME: usize = 32;
/// The part of a word of the move text kept: more than a move with its
/// number and annotations takes.
const KEPT_WORD: usize = 32;

pub struct PgnReader<R> {
    bytes: Bytes<R>,
    /// Games (and skipped games) handed on so far.
    games: u64,
}

/// A game as it is read.
struct Reading {
    place: GamePlace,
    moves: Vec<Move>,
    /// What stands where a move should be, if it is none: no move after it is kept.
    unreadable: Option<String>,
    /// A `FEN` tag gives another start.
    other_start: bool,
    /// Whether its move text has begun: then a tag starts the next game.
    in_moves: bool,
}

impl Reading {
    /// The game read, or the game skipped.
    fn finish(self) -> Entry {
        match self.other_start {
            true => Entry::Skipped(Skipped { place: self.place, why: SkipReason::OtherStart }),
            false => Entry::Game(Game { place: self.place, moves: self.moves, unreadable: self.unreadable }),
        }
    }

    /// Takes one word of the move text; true when it is the result, which
    /// ends the game.
    fn word(&mut self, word: &str) -> bool {
        self.in_moves = true;
        if is_result(word) {
            return true;
        }
        let text = without_number(word).trim_end_matches(['!', '?']);
        if text.is_empty() || self.unreadable.is_some() || self.moves.len() > MAX_MOVES {
            return false;
        }
        match move_of(text) {
            Some(mv) => self.moves.push(mv),
            None => self.unreadable = Some(word.to_string()),
        }
        false
    }
}

impl<R: BufRead> PgnReader<R> {
    /// A reader of the PGN games of `source`, from its start.
    pub fn new(source: R) -> PgnReader<R> {
        PgnReader { bytes: Bytes::new(source), games: 0 }
    }

    /// The number of the game being read, for messages.
    fn game(&self) -> Option<u64> {
        Some(self.games + 1)
    }

    /// A game that starts at the byte the reader has come to.
    fn start(&self) -> Reading {
        let place = GamePlace { number: self.games + 1, line: Some(self.bytes.line()), offset: self.bytes.offset() };
        Reading { place, moves: Vec::new(), unreadable: None, other_start: false, in_moves: false }
    }

    /// Hands on the game read.
    fn finish(&mut self, reading: Reading) -> Option<Entry> {
        self.games += 1;
        Some(reading.finish())
    }

    /// Reads a tag pair after its `[`: a name, a value in quotes, `]`.
    fn tag(&mut self, reading: &mut Reading) -> Result<(), ReadError> {
        self.bytes.skip_blanks()?;
        let mut name = String::new();
        while let Some(byte) = self.bytes.peek()?.filter(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            if name.len() == MAX_NAME {
                return Err(self.bytes.damaged(self.game(), format!("a tag name longer than {MAX_NAME} characters")));
            }
            self.bytes.bump(byte);
            name.push(byte as char);
        }
        match self.bytes.skip_blanks()? {
            Some(b'"') => self.bytes.bump(b'"'),
            other => {
                let next = other.map_or("the end of the file".to_string(), shown);
                return Err(self
                    .bytes
                    .damaged(self.game(), format!("tag {name} followed by {next}, not a value in quotes")));
            }
        }
        let value = self.quoted(&name)?;
        match self.bytes.skip_blanks()? {
            Some(b']') => self.bytes.bump(b']'),
            other => {
                let next = other.map_or("the end of the file".to_string(), shown);
                return Err(self.bytes.damaged(self.game(), format!("tag {name}'s value followed by {next}, not `]`")));
            }
        }
        if name.eq_ignore_ascii_case("fen") && !is_standard_fen(&value) {
            reading.other_start = true;
        }
        Ok(())
    }

    /// Reads a value after its opening quote, up to its closing one (`\`
    /// escapes the next byte), keeping its first [`KEPT_VALUE`] bytes.
    fn quoted(&mut self, name: &str) -> Result<String, ReadError> {
        let mut kept = Vec::new();
        loop {
            let byte = match self.bytes.take()? {
                Some(b'"') => return Ok(String::from_utf8_lossy(&kept).into_owned()),
                Some(b'\\') => self.bytes.take()?,
                other => other,
            };
            match byte {
                Some(byte) if kept.len() < KEPT_VALUE => kept.push(byte),
                Some(_) => {}
                None => {
                    return Err(self.bytes.damaged(self.game(), format!("the file ends in the value of tag {name}")))
                }
            }
        }
    }

    /// Reads past a comment `{…}`, its `{` peeked.
    fn comment(&mut self) -> Result<(), ReadError> {
        let (line, byte) = (self.bytes.line(), self.bytes.offset());
        self.bytes.bump(b'{');
        loop {
            match self.bytes.take()? {
                Some(b'}') => return Ok(()),
                Some(_) => {}
                None => {
                    let what = format!("the file ends inside the comment that starts on line {line} at byte {byte}");
                    return Err(self.bytes.damaged(self.game(), what));
                }
            }
        }
    }

    /// Reads past the rest of a line, from a `;` comment.
    fn rest_of_line(&mut self) -> Result<(), ReadError> {
        while let Some(byte) = self.bytes.take()? {
            if byte == b'\n' {
                break;
            }
        }
        Ok(())
    }

    /// Reads past a variation `(…)`, its `(` peeked, with the variations
    /// and comments inside it.
    fn variation(&mut self) -> Result<(), ReadError> {
        let (line, byte) = (self.bytes.line(), self.bytes.offset());
        let mut depth = 0u64;
        loop {
            match self.bytes.peek()? {
                Some(b'{') => self.comment()?,
                Some(b';') => self.rest_of_line()?,
                Some(other) => {
                    self.bytes.bump(other);
                    match other {
                        b'(' => depth += 1,
                        b')' if depth == 1 => return Ok(()),
                        b')' => depth -= 1,
                        _ => {}
                    }
                }
                None => {
                    let what = format!("the file ends inside the variation that starts on line {line} at byte {byte}");
                    return Err(self.bytes.damaged(self.game(), what));
                }
            }
        }
    }

    /// Reads a word of the move text, its first byte peeked, keeping its
    /// first [`KEPT_WORD`] bytes.
    fn word(&mut self) -> Result<String, ReadError> {
        let mut kept = Vec::new();
        while let Some(byte) = self.bytes.peek()?.filter(|&b| !ends_word(b)) {
            self.bytes.bump(byte);
            if kept.len() < KEPT_WORD {
                kept.push(byte);
            }
        }
        Ok(String::from_utf8_lossy(&kept).into_owned())
    }
}

/// Whether a byte ends a word of the move text.
fn ends_word(byte: u8) -> bool {
    byte.is_ascii_whitespace() || b"[]{}();\"$".contains(&byte)
}

/// Whether a word is a game's result: who won (`1-0`, `0-1`,
/// `1/2-1/2`), the discs (`33-31`), or none (`*`).
fn is_result(word: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    match word.split_once('-') {
        _ if word == "*" || word == "1/2-1/2" => true,
        Some((black, white)) => digits(black) && digits(white),
        None => false,
    }
}

/// A word without the move number before it (`12.`, `12...`, or a bare
/// number).
fn without_number(word: &str) -> &str {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    match rest.len() < word.len() {
        true if rest.is_empty() || rest.starts_with('.') => rest.trim_start_matches('.'),
        _ => word,
    }
}

/// A move as PGN writes it: a square, or a pass.
fn move_of(text: &str) -> Option<Move> {
    if ["pass", "pa", "ps"].iter().any(|pass| text.eq_ignore_ascii_case(pass)) {
        return Some(Move::Pass);
    }
    Square::parse(text).map(Move::Play)
}

/// Whether a `FEN` value is the standard start, black to move: rows from
/// the 8th to the 1st, `p` a black disc, `P` a white one, a digit so many
/// empty squares, `/` between rows, then `b` (black to move).
fn is_standard_fen(value: &str) -> bool {
    let mut words = value.split_whitespace();
    let (Some(rows), Some(side)) = (words.next(), words.next()) else { return false };
    let (mut black, mut white) = (0u64, 0u64);
    let rows: Vec<&str> = rows.split('/').collect();
    if rows.len() != 8 || side != "b" {
        return false;
    }
    for (r, row) in rows.iter().enumerate() {
        let mut column = 0u32;
        for c in row.chars() {
            let bit = match column < 8 {
                true => 1u64 << (8 * (7 - r as u32) + column),
                false => return false,
            };
            match c {
                '1'..='8' => column += c as u32 - '0' as u32 - 1,
                'p' => black |= bit,
                'P' => white |= bit,
                _ => return false,
            }
            column += 1;
        }
        if column != 8 {
            return false;
        }
    }
    black == Board::INITIAL.player && white == Board::INITIAL.opponent
}

impl<R: BufRead> Reader for PgnReader<R> {
    fn next_entry(&mut self) -> Result<Option<Entry>, ReadError> {
        self.bytes.skip_bom()?;
        let mut reading: Option<Reading> = None;
        loop {
            match self.bytes.skip_blanks()? {
                None => return Ok(reading.and_then(|r| self.finish(r))),
                Some(b'[') if reading.as_ref().is_some_and(|r| r.in_moves) => {
                    return Ok(reading.and_then(|r| self.finish(r)))
                }
                Some(b'[') => {
                    let mut game = reading.take().unwrap_or_else(|| self.start());
                    self.bytes.bump(b'[');
                    self.tag(&mut game)?;
                    reading = Some(game);
                }
                Some(b'{') => self.comment()?,
                Some(b';') => self.rest_of_line()?,
                Some(b'(') => self.variation()?,
                Some(b'$') => {
                    self.bytes.bump(b'$');
                    self.word()?;
                }
                Some(stray @ (b']' | b')' | b'}' | b'"')) => {
                    return Err(self
                        .bytes
                        .damaged(self.game(), format!("{} where a tag, a move or a comment should be", shown(stray))))
                }
                Some(_) => {
                    let mut game = reading.take().unwrap_or_else(|| self.start());
                    let word = self.word()?;
                    if game.word(&word) {
                        return Ok(self.finish(game));
                    }
                    reading = Some(game);
                }
            }
        }
    }

    fn offset(&self) -> u64 {
        self.bytes.offset()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{entries_as_lines, reader_of, GameFormat};
    use super::*;

    fn square(text: &str) -> Move {
        Move::Play(Square::parse(text).unwrap())
    }

    /// Each entry of `text` as a line (see [`entries_as_lines`]).
    fn read(text: &str) -> Vec<String> {
        entries_as_lines(GameFormat::Pgn, text.as_bytes())
    }

    #[test]
    fn games_as_edax_writes_them_with_tags_numbers_passes_and_results() {
        let text =
            "[Event \"?\"]\n[Site \"edax\"]\n[Date \"2026.1.2\"]\n[Black \"a \\\"b\\\"\"]\n[Result \"1-0\"]\n\n \
                    1. f5 d6 2. C3 pass 3. d3\n{Black wins 33-31} 1-0\n\n\n[Event \"?\"]\n\n 1. e6 f4 *\n";
        let found = reader_of(GameFormat::Pgn, text.as_bytes());
        let Ok(Entry::Game(game)) = &found[0] else { panic!("{found:?}") };
        assert_eq!(game.moves, [square("F5"), square("D6"), square("C3"), Move::Pass, square("D3")]);
        assert_eq!(game.place, GamePlace { number: 1, line: Some(1), offset: 0 });
        assert_eq!(read(text)[1], "2 line Some(11): E6 F4");
        assert_eq!(found.len(), 2);
    }

    #[test]
    fn comments_variations_annotations_and_odd_spacing_are_read_past() {
        let text = "\u{feff}[Event\t\"x\" ]\r\n1.f5 {a {comment} d6; not a move\n2...f6 (2... d6 (3. c3) {x)} ) $3 3.e6!? f4? PS 12 PA\r\n";
        assert_eq!(read(text), ["1 line Some(1): F5 D6 F6 E6 F4 PS PS"], "comments do not nest");
        assert_eq!(
            read("f5 d6 1-0 c3 d3 33-31\n\n*"),
            ["1 line Some(1): F5 D6", "2 line Some(1): C3 D3", "3 line Some(3): "]
        );
        assert_eq!(read("  {only a comment}\n; and a line\n"), Vec::<String>::new(), "no game");
    }

    #[test]
    fn tags_after_moves_start_the_next_game_and_the_end_of_the_file_ends_one() {
        let text = "[Event \"a\"]\n1. f5\n[Event \"b\"]\n[Round \"1\"]\n1. d3";
        assert_eq!(read(text), ["1 line Some(1): F5", "2 line Some(3): D3"]);
    }

    #[test]
    fn a_fen_of_another_start_skips_the_game_and_of_the_standard_one_does_not() {
        let text = "[FEN \"8/8/8/3pP3/3Pp3/8/8/8 b - - 0 1\"]\n1. f5 *\n\
                    [FEN \"8/8/8/3pP3/3Pp3/8/8/8 w - - 0 1\"]\n1. f5 *\n\
                    [fen \"8/8/8/3pp3/3Pp3/8/8/8 b\"]\n1. f5 *\n[FEN \"x\"]\n*\n[SetUp \"1\"]\n1. f5 *";
        assert_eq!(
            read(text),
            [
                "1 line Some(1): F5",
                "2 skipped: not from the standard start with black to move",
                "3 skipped: not from the standard start with black to move",
                "4 skipped: not from the standard start with black to move",
                "5 line Some(9): F5",
            ]
        );
        assert!(!is_standard_fen("8/8/8/3pP3/3Pp3/8/8/9 b") && !is_standard_fen("8/8/8/3pP3/3Pp3/8/8/44p b"));
    }

    #[test]
    fn a_word_that_is_no_move_ends_the_game_there() {
        assert_eq!(read("1. f5 d6 2. Nf3 c3 1-0\n1. d3"), ["1 line Some(1): F5 D6 then \"Nf3\"", "2 line Some(2): D3"]);
    }

    #[test]
    fn damage_says_the_game_the_line_and_the_byte() {
        let cases: [(&str, &str); 7] = [
            ("[Event \"x", "test: game 1, line 1, byte 9: the file ends in the value of tag Event"),
            ("[Event x]", "test: game 1, line 1, byte 7: tag Event followed by `x`, not a value in quotes"),
            ("[Event \"x\" y]", "test: game 1, line 1, byte 11: tag Event's value followed by `y`, not `]`"),
            (
                "f5 *\n\n1. f5 {open",
                "test: game 2, line 3, byte 17: the file ends inside the comment that starts on line 3 at byte 12",
            ),
            (
                "1. f5 (1. d3 (",
                "test: game 1, line 1, byte 14: the file ends inside the variation that starts on line 1 at byte 6",
            ),
            ("1. f5 ) d6", "test: game 1, line 1, byte 6: `)` where a tag, a move or a comment should be"),
            (
                "[ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGH \"x\"]",
                "test: game 1, line 1, byte 33: a tag name longer than 32 characters",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(read(text).last().unwrap(), message, "{text:?}");
        }
    }

    #[test]
    fn long_values_words_and_games_are_bounded() {
        let long = "x".repeat(1 << 20);
        let moves = " f5".repeat(500);
        let text = format!("[Event \"{long}\"]\n{{{long}}} {long}{moves}");
        let found = reader_of(GameFormat::Pgn, text.as_bytes());
        let Ok(Entry::Game(game)) = &found[0] else { panic!("{found:?}") };
        assert_eq!((game.moves.len(), game.unreadable.as_ref().map(String::len)), (0, Some(KEPT_WORD)));
        let text = format!("1.{moves}");
        let found = reader_of(GameFormat::Pgn, text.as_bytes());
        let Ok(Entry::Game(game)) = &found[0] else { panic!("{found:?}") };
        assert_eq!(game.moves.len(), MAX_MOVES + 1);
    }
}
