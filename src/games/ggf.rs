//! GGF files (`.ggf`), the Generic Game Format of GGS archives: each game
//! is `(;` … `;)` around `TAG[value]` pairs. `GM` must say Othello and
//! `BO` be the standard 8×8 start with black to move, else the game is
//! skipped; `B[..]` and `W[..]` are moves, a square in either case or `PA`
//! (a pass), with anything after a `/` (an evaluation, a time) ignored.
//! The colour of a move is not checked: passes a file leaves out are found
//! by the replay. Other tags are ignored. Between games only blanks and a
//! number (the count of a synchro match, `2 (;…;)(;…;)`) may stand.
//!
//! The file is read a byte at a time, keeping no more of a value than a
//! move or a board needs.

use super::error::{ReadError, Where};
use super::reader::{Entry, Game, GamePlace, Reader, SkipReason, Skipped};
use crate::board::{Move, Square};
use crate::kifu::MAX_MOVES;
use std::io::BufRead;

/// The part of a value kept: more than a move with its evaluation and
/// time, or a board, ever takes.
const KEPT_VALUE: usize = 256;
/// The longest tag name read.
const MAX_TAG: usize = 16;

/// The standard start as `BO` writes it, after the board size: the 64
/// squares row by row (`*` black, `O` white), then black (`*`) to move.
const STANDARD_START: &str = "---------------------------O*------*O---------------------------*";

pub struct GgfReader<R> {
    source: R,
    offset: u64,
    /// The line the next byte is on, from 1.
    line: u64,
    /// Games read so far.
    games: u64,
}

/// What a game's tags say, as they are read.
#[derive(Default)]
struct Tags {
    moves: Vec<Move>,
    unreadable: Option<String>,
    /// `GM`, when it names another game.
    other_game: Option<String>,
    /// `BO` names another start.
    other_start: bool,
}

impl<R: BufRead> GgfReader<R> {
    /// A reader of the GGF games of `source`, from its start.
    pub fn new(source: R) -> GgfReader<R> {
        GgfReader { source, offset: 0, line: 1, games: 0 }
    }

    /// The next byte, left where it is; none at the end of the file.
    fn peek(&mut self) -> Result<Option<u8>, ReadError> {
        Ok(self.source.fill_buf()?.first().copied())
    }

    /// Moves past the byte [`GgfReader::peek`] saw.
    fn bump(&mut self, byte: u8) {
        self.source.consume(1);
        self.offset += 1;
        if byte == b'\n' {
            self.line += 1;
        }
    }

    /// The next byte, taken.
    fn take(&mut self) -> Result<Option<u8>, ReadError> {
        let byte = self.peek()?;
        if let Some(byte) = byte {
            self.bump(byte);
        }
        Ok(byte)
    }

    /// Moves past blanks; the byte after them, peeked.
    fn skip_blanks(&mut self) -> Result<Option<u8>, ReadError> {
        loop {
            match self.peek()? {
                Some(byte) if byte.is_ascii_whitespace() => self.bump(byte),
                other => return Ok(other),
            }
        }
    }

    /// Damage at the byte the reader has come to.
    fn damaged(&self, game: Option<u64>, what: String) -> ReadError {
        ReadError::Damaged { at: Where { game, line: Some(self.line), byte: self.offset }, what }
    }

    /// Finds the `(;` that opens the next game, past blanks and synchro
    /// counts; false at the end of the file.
    fn open_game(&mut self) -> Result<bool, ReadError> {
        loop {
            match self.skip_blanks()? {
                None => return Ok(false),
                Some(b'0'..=b'9') => {
                    while let Some(digit @ b'0'..=b'9') = self.peek()? {
                        self.bump(digit);
                    }
                    if !matches!(self.peek()?, None | Some(b'(') | Some(b' ' | b'\t' | b'\r' | b'\n')) {
                        return Err(self.damaged(None, "a number between games followed by more than blanks".into()));
                    }
                }
                Some(b'(') => {
                    self.bump(b'(');
                    return match self.peek()? {
                        Some(b';') => {
                            self.bump(b';');
                            Ok(true)
                        }
                        _ => Err(self.damaged(None, "`(` not followed by `;`: not the start of a game".into())),
                    };
                }
                Some(other) => {
                    return Err(
                        self.damaged(None, format!("{} between games, where a game `(;` should start", shown(other)))
                    )
                }
            }
        }
    }

    /// Reads a tag's name, its first letter peeked, up to its `[`.
    fn tag_name(&mut self, game: u64) -> Result<String, ReadError> {
        let mut name = String::new();
        while let Some(letter @ b'A'..=b'Z') = self.peek()? {
            if name.len() == MAX_TAG {
                return Err(self.damaged(Some(game), format!("a tag name longer than {MAX_TAG} letters")));
            }
            self.bump(letter);
            name.push(letter as char);
        }
        match self.peek()? {
            Some(b'[') => {
                self.bump(b'[');
                Ok(name)
            }
            Some(other) => Err(self.damaged(Some(game), format!("tag {name} followed by {}, not `[`", shown(other)))),
            None => Err(self.damaged(Some(game), format!("the file ends in tag {name}"))),
        }
    }

    /// Reads a value up to its `]` (`\` escapes the next byte), keeping
    /// its first [`KEPT_VALUE`] bytes.
    fn value(&mut self, game: u64, tag: &str) -> Result<String, ReadError> {
        let mut kept = Vec::new();
        loop {
            let byte = match self.take()? {
                Some(b']') => return Ok(String::from_utf8_lossy(&kept).into_owned()),
                Some(b'\\') => self.take()?,
                other => other,
            };
            match byte {
                Some(byte) if kept.len() < KEPT_VALUE => kept.push(byte),
                Some(_) => {}
                None => return Err(self.damaged(Some(game), format!("the file ends in the value of tag {tag}"))),
            }
        }
    }

    /// Reads a game's tags up to its `;)`.
    fn tags(&mut self, game: u64, start: (u64, u64)) -> Result<Tags, ReadError> {
        let mut tags = Tags::default();
        loop {
            match self.skip_blanks()? {
                Some(b';') => {
                    self.bump(b';');
                    return match self.peek()? {
                        Some(b')') => {
                            self.bump(b')');
                            Ok(tags)
                        }
                        _ => Err(self.damaged(Some(game), "`;` not followed by `)`: not the end of a game".into())),
                    };
                }
                Some(b'A'..=b'Z') => {
                    let name = self.tag_name(game)?;
                    let value = self.value(game, &name)?;
                    tags.take(&name, &value);
                }
                Some(other) => {
                    return Err(self
                        .damaged(Some(game), format!("{} where a tag or the game's end `;)` should be", shown(other))))
                }
                None => {
                    let (line, byte) = start;
                    return Err(self.damaged(
                        Some(game),
                        format!(
                            "the file ends inside the game that starts on line {line} at byte {byte}, before its `;)`"
                        ),
                    ));
                }
            }
        }
    }
}

impl Tags {
    /// Takes what one tag says.
    fn take(&mut self, name: &str, value: &str) {
        match name {
            "GM" if !value.trim().eq_ignore_ascii_case("othello") => self.other_game = Some(value.trim().to_string()),
            "BO" => self.other_start = !is_standard_start(value),
            "B" | "W" if self.unreadable.is_none() && self.moves.len() <= MAX_MOVES => match move_of(value) {
                Some(mv) => self.moves.push(mv),
                None => self.unreadable = Some(value.to_string()),
            },
            _ => {}
        }
    }
}

/// A move's value: what comes before a `/`, a square or a pass.
fn move_of(value: &str) -> Option<Move> {
    let written = value.split('/').next().unwrap_or_default().trim();
    if ["pa", "ps", "pass"].iter().any(|pass| written.eq_ignore_ascii_case(pass)) {
        return Some(Move::Pass);
    }
    Square::parse(written).map(Move::Play)
}

/// Whether `BO` gives the standard 8×8 start, black to move.
fn is_standard_start(value: &str) -> bool {
    let mut words = value.split_whitespace();
    let size = words.next();
    let rest: String = words.collect();
    size == Some("8") && rest.eq_ignore_ascii_case(STANDARD_START)
}

/// A byte as a message shows it.
fn shown(byte: u8) -> String {
    match byte {
        b' '..=b'~' => format!("`{}`", byte as char),
        _ => format!("byte 0x{byte:02x}"),
    }
}

impl<R: BufRead> Reader for GgfReader<R> {
    fn next_entry(&mut self) -> Result<Option<Entry>, ReadError> {
        if !self.open_game()? {
            return Ok(None);
        }
        self.games += 1;
        let start = (self.line, self.offset - 2);
        let place = GamePlace { number: self.games, line: Some(start.0), offset: start.1 };
        let tags = self.tags(self.games, start)?;
        Ok(Some(match (tags.other_game, tags.other_start) {
            (Some(game), _) => Entry::Skipped(Skipped { place, why: SkipReason::NotOthello(game) }),
            (None, true) => Entry::Skipped(Skipped { place, why: SkipReason::OtherStart }),
            (None, false) => Entry::Game(Game { place, moves: tags.moves, unreadable: tags.unreadable }),
        }))
    }

    fn offset(&self) -> u64 {
        self.offset
    }
}

#[cfg(test)]
mod tests {
    use super::super::{reader_of, GameFormat};
    use super::*;

    const BO: &str = "BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]";

    fn square(text: &str) -> Move {
        Move::Play(Square::parse(text).unwrap())
    }

    #[test]
    fn moves_in_either_case_with_evaluations_and_passes() {
        let text = format!("(;GM[Othello]PC[x]{BO}B[F5/-3.00/0.5]W[d6]B[PA]W[c3//];)\n");
        let found = reader_of(GameFormat::Ggf, text.as_bytes());
        let Ok(Entry::Game(game)) = &found[0] else { panic!("{found:?}") };
        assert_eq!(game.moves, [square("F5"), square("D6"), Move::Pass, square("C3")]);
        assert_eq!(game.place, GamePlace { number: 1, line: Some(1), offset: 0 });
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn another_start_or_game_is_skipped_and_a_synchro_count_read_past() {
        let other = BO.replace("---O*---", "--*O*---");
        let text = format!(
            "(;GM[Othello]{other}B[c3];)\n(;GM[Chess]{BO};)\n2 (;GM[othello]{BO}B[f5];)(;{BO}B[e6];)\n(;BO[10 ----];)"
        );
        let found = reader_of(GameFormat::Ggf, text.as_bytes());
        let kinds: Vec<String> = found
            .iter()
            .map(|e| match e {
                Ok(Entry::Game(g)) => format!("game {} {}", g.place.number, g.moves[0]),
                Ok(Entry::Skipped(s)) => format!("skipped {}: {}", s.place.number, s.why),
                Err(e) => e.clone(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "skipped 1: not from the standard start with black to move",
                "skipped 2: a game of \"Chess\", not Othello",
                "game 3 F5",
                "game 4 E6",
                "skipped 5: not from the standard start with black to move",
            ]
        );
    }

    #[test]
    fn a_move_that_is_no_move_ends_the_game_there() {
        let text = format!("(;{BO}B[f5]W[zz]B[c3];)");
        let found = reader_of(GameFormat::Ggf, text.as_bytes());
        let Ok(Entry::Game(game)) = &found[0] else { panic!("{found:?}") };
        assert_eq!((game.moves.clone(), game.unreadable.clone()), (vec![square("F5")], Some("zz".to_string())));
    }

    #[test]
    fn damage_says_the_game_the_line_and_the_byte() {
        let cases: [(&str, &str); 6] = [
            ("(;GM[Othello]", "test: game 1, line 1, byte 13: the file ends inside the game that starts on line 1 at byte 0, before its `;)`"),
            ("(;GM[Oth", "test: game 1, line 1, byte 8: the file ends in the value of tag GM"),
            ("\n\nx(;;)", "test: line 3, byte 2: `x` between games, where a game `(;` should start"),
            ("(;;)\n(;gm[x];)", "test: game 2, line 2, byte 7: `g` where a tag or the game's end `;)` should be"),
            ("(;GM Othello;)", "test: game 1, line 1, byte 4: tag GM followed by ` `, not `[`"),
            ("12x", "test: line 1, byte 2: a number between games followed by more than blanks"),
        ];
        for (text, message) in cases {
            let found = reader_of(GameFormat::Ggf, text.as_bytes());
            assert_eq!(found.last().unwrap().as_ref().unwrap_err(), message, "{text:?}");
        }
    }

    #[test]
    fn a_long_value_is_kept_only_in_part_and_moves_past_a_legal_game_s_length_are_not_kept() {
        let long = "x".repeat(1 << 20);
        let moves = "B[f5]".repeat(500);
        let text = format!("(;C[{long}]{BO}{moves};)");
        let found = reader_of(GameFormat::Ggf, text.as_bytes());
        let Ok(Entry::Game(game)) = &found[0] else { panic!("{found:?}") };
        assert_eq!(game.moves.len(), MAX_MOVES + 1);
    }
}
