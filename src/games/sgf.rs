//! SGF files (`.sgf`), the Smart Game Format as Othello programs write it
//! (`GM[2]`): a file is game trees `(;…)`, a tree nodes `;` of
//! `NAME[value]…` properties, and variations `(;…)` inside a tree. Each
//! line from a tree's root to the end of a variation is a game, in file
//! order. `B[..]` and `W[..]` are moves: a square in either case, or a
//! pass (`PA`, `PS`, `PASS` or nothing, `B[]`). `GM` other than 2 skips
//! the game (another game); `SZ` other than 8, or a setup (`AB`, `AW`,
//! `AE`, `PL`) other than the standard start with black to move, skips it
//! too (another start). Other properties are read past.
//!
//! The file is read a byte at a time; a value is kept only as far as a
//! move needs, and variations nest at most [`MAX_DEPTH`] deep.

use super::bytes::{shown, Bytes};
use super::error::ReadError;
use super::reader::{Entry, Game, GamePlace, Reader, SkipReason, Skipped};
use crate::board::{Bitboard, Board, Move, Square};
use crate::kifu::MAX_MOVES;
use std::io::BufRead;

/// The part of a value kept: more than a move or a square ever takes.
const KEPT_VALUE: usize = 256;
/// The longest property name read (SGF's old long names, `AddBlack`, fit).
const MAX_NAME: usize = 32;
/// The deepest variations nest: a game of 120 moves with a variation at
/// each is half of it.
pub const MAX_DEPTH: usize = 256;

pub struct SgfReader<R> {
    bytes: Bytes<R>,
    /// Games (and skipped games) handed on so far.
    games: u64,
    /// The variations open, the tree's root first: none between trees.
    open: Vec<Variation>,
    /// The moves from the root to where the reader is.
    moves: Vec<Move>,
    /// What else the line from the root says so far.
    said: Said,
}

/// What a line of play says besides its moves, kept to be restored when a
/// variation closes.
#[derive(Clone, Default)]
struct Said {
    /// What stands where a move should be, if it is none: no move after it is kept.
    unreadable: Option<String>,
    /// `GM`, when it names another game.
    other_game: Option<String>,
    setup: Setup,
}

/// The start a line's setup properties give.
#[derive(Clone, Copy, Default)]
struct Setup {
    /// Squares `AB` puts black discs on.
    black: Bitboard,
    /// Squares `AW` puts white discs on.
    white: Bitboard,
    /// A board other than 8×8, white to move, squares emptied (`AE`), or a
    /// setup value that is no square.
    other: bool,
}

impl Setup {
    /// Whether the line starts from the standard position, black to move:
    /// no setup, or one that sets up exactly that.
    fn is_standard(&self) -> bool {
        let none = self.black == 0 && self.white == 0;
        let standard = self.black == Board::INITIAL.player && self.white == Board::INITIAL.opponent;
        !self.other && (none || standard)
    }

    /// Adds `value`'s square to `discs`; a value that is no square makes
    /// the start one bookminer does not read.
    fn put(&mut self, value: &str, white: bool) {
        match (Square::parse(value.trim()), white) {
            (Some(square), false) => self.black |= square.bit(),
            (Some(square), true) => self.white |= square.bit(),
            (None, _) => self.other = true,
        }
    }
}

/// A variation open, or a tree.
struct Variation {
    /// The line of play where it opened, restored when it closes.
    moves_before: usize,
    said_before: Said,
    /// Where its `(` is: line and byte.
    start: (u64, u64),
    /// Whether a node has been read in it (a variation starts with one).
    has_node: bool,
    /// Whether a variation has opened inside it: then it ends no line.
    branched: bool,
}

impl<R: BufRead> SgfReader<R> {
    /// A reader of the SGF games of `source`, from its start.
    pub fn new(source: R) -> SgfReader<R> {
        SgfReader { bytes: Bytes::new(source), games: 0, open: Vec::new(), moves: Vec::new(), said: Said::default() }
    }

    /// The number of the game being read, for messages.
    fn game(&self) -> Option<u64> {
        Some(self.games + 1)
    }

    /// Opens a variation (or a tree) at the `(` just read.
    fn open_variation(&mut self) -> Result<(), ReadError> {
        if self.open.len() == MAX_DEPTH {
            return Err(self.bytes.damaged(self.game(), format!("variations nested deeper than {MAX_DEPTH}")));
        }
        if let Some(parent) = self.open.last_mut() {
            parent.branched = true;
        }
        self.open.push(Variation {
            moves_before: self.moves.len(),
            said_before: self.said.clone(),
            start: (self.bytes.line(), self.bytes.offset() - 1),
            has_node: false,
            branched: false,
        });
        Ok(())
    }

    /// Closes the innermost variation at the `)` just read: the line it
    /// ends, if it is a leaf, as a game.
    fn close_variation(&mut self) -> Option<Entry> {
        let variation = self.open.pop()?;
        let entry = (!variation.branched).then(|| {
            self.games += 1;
            let (line, offset) = variation.start;
            let place = GamePlace { number: self.games, line: Some(line), offset };
            let said = &self.said;
            match (&said.other_game, said.setup.is_standard()) {
                (Some(game), _) => Entry::Skipped(Skipped { place, why: SkipReason::NotOthello(game.clone()) }),
                (None, false) => Entry::Skipped(Skipped { place, why: SkipReason::OtherStart }),
                (None, true) => {
                    Entry::Game(Game { place, moves: self.moves.clone(), unreadable: said.unreadable.clone() })
                }
            }
        });
        self.moves.truncate(variation.moves_before);
        self.said = variation.said_before;
        entry
    }

    /// Reads a property's name, its first letter peeked, keeping its
    /// capitals (SGF's old names mix in small letters: `AddBlack` is `AB`).
    fn name(&mut self) -> Result<String, ReadError> {
        let mut name = String::new();
        let mut length = 0;
        while let Some(letter) = self.bytes.peek()?.filter(u8::is_ascii_alphabetic) {
            length += 1;
            if length > MAX_NAME {
                return Err(self.bytes.damaged(self.game(), format!("a property name longer than {MAX_NAME} letters")));
            }
            self.bytes.bump(letter);
            if letter.is_ascii_uppercase() {
                name.push(letter as char);
            }
        }
        Ok(name)
    }

    /// Reads a value after its `[`, up to its `]` (`\` escapes the next
    /// byte), keeping its first [`KEPT_VALUE`] bytes.
    fn value(&mut self, name: &str) -> Result<String, ReadError> {
        let mut kept = Vec::new();
        loop {
            let byte = match self.bytes.take()? {
                Some(b']') => return Ok(String::from_utf8_lossy(&kept).into_owned()),
                Some(b'\\') => self.bytes.take()?,
                other => other,
            };
            match byte {
                Some(byte) if kept.len() < KEPT_VALUE => kept.push(byte),
                Some(_) => {}
                None => {
                    return Err(self.bytes.damaged(self.game(), format!("the file ends in a value of property {name}")))
                }
            }
        }
    }

    /// Reads a property, its first letter peeked: its name and values.
    fn property(&mut self) -> Result<(), ReadError> {
        let name = self.name()?;
        let mut values = 0;
        while let Some(b'[') = self.bytes.skip_blanks()? {
            self.bytes.bump(b'[');
            let value = self.value(&name)?;
            self.take(&name, &value);
            values += 1;
        }
        if values == 0 {
            let next = self.bytes.peek()?.map_or("the end of the file".to_string(), shown);
            return Err(self.bytes.damaged(self.game(), format!("property {name} followed by {next}, not `[`")));
        }
        Ok(())
    }

    /// Takes what one value of property `name` says.
    fn take(&mut self, name: &str, value: &str) {
        let said = &mut self.said;
        let value = value.trim();
        match name {
            "GM" if value != "2" && said.other_game.is_none() => said.other_game = Some(format!("GM[{value}]")),
            "SZ" if value != "8" && value != "8:8" => said.setup.other = true,
            "AB" => said.setup.put(value, false),
            "AW" => said.setup.put(value, true),
            "AE" => said.setup.other = true,
            "PL" if !value.eq_ignore_ascii_case("b") => said.setup.other = true,
            "B" | "W" if said.unreadable.is_none() && self.moves.len() <= MAX_MOVES => match move_of(value) {
                Some(mv) => self.moves.push(mv),
                None => said.unreadable = Some(value.to_string()),
            },
            _ => {}
        }
    }

    /// Finds the `(` of the next tree, past blanks; false at the end of
    /// the file.
    fn open_tree(&mut self) -> Result<bool, ReadError> {
        self.bytes.skip_bom()?;
        match self.bytes.skip_blanks()? {
            None => Ok(false),
            Some(b'(') => {
                self.bytes.bump(b'(');
                self.open_variation()?;
                Ok(true)
            }
            Some(other) => {
                Err(self.bytes.damaged(None, format!("{} between games, where a game `(;` should start", shown(other))))
            }
        }
    }

    /// Reads on in the open tree up to the next `(`, `;`, property or `)`,
    /// and takes it: the game a `)` ends, if it ends one.
    fn step(&mut self) -> Result<Option<Entry>, ReadError> {
        let Some(variation) = self.open.last() else { return Ok(None) };
        let (has_node, branched, start) = (variation.has_node, variation.branched, variation.start);
        let byte = self.bytes.skip_blanks()?;
        if !has_node && byte != Some(b';') && byte.is_some() {
            return Err(self
                .bytes
                .damaged(self.game(), "`(` not followed by `;`: a variation starts with a node".into()));
        }
        match byte {
            Some(b';') if branched => {
                Err(self.bytes.damaged(self.game(), "a node `;` after a variation: nodes come before them".into()))
            }
            Some(b';') => {
                self.bytes.bump(b';');
                if let Some(variation) = self.open.last_mut() {
                    variation.has_node = true;
                }
                Ok(None)
            }
            Some(b'(') => {
                self.bytes.bump(b'(');
                self.open_variation()?;
                Ok(None)
            }
            Some(b')') => {
                self.bytes.bump(b')');
                Ok(self.close_variation())
            }
            Some(letter) if letter.is_ascii_alphabetic() => self.property().map(|()| None),
            Some(other) => Err(self
                .bytes
                .damaged(self.game(), format!("{} where a property, a node or a variation should be", shown(other)))),
            None => {
                let (line, byte) = start;
                Err(self.bytes.damaged(
                    self.game(),
                    format!(
                        "the file ends inside the variation that starts on line {line} at byte {byte}, before its `)`"
                    ),
                ))
            }
        }
    }
}

/// A move's value: a square, or a pass (written or left empty).
fn move_of(value: &str) -> Option<Move> {
    if ["", "pa", "ps", "pass"].iter().any(|pass| value.eq_ignore_ascii_case(pass)) {
        return Some(Move::Pass);
    }
    Square::parse(value).map(Move::Play)
}

impl<R: BufRead> Reader for SgfReader<R> {
    fn next_entry(&mut self) -> Result<Option<Entry>, ReadError> {
        loop {
            if self.open.is_empty() && !self.open_tree()? {
                return Ok(None);
            }
            if let Some(entry) = self.step()? {
                return Ok(Some(entry));
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
        entries_as_lines(GameFormat::Sgf, text.as_bytes())
    }

    #[test]
    fn a_game_as_edax_writes_it_with_its_setup_of_the_standard_start() {
        let text = "(;FF[4]GM[2]AP[edax:4.6]\nPC[Edax]DT[2026-01-02]\nPB[a]PW[b \\] c]\nSZ[8]AB[e4][d5]AW[d4][e5]PL[B]\nRE[B+2]\nB[f5];W[D6];\nB[pa];W[c3];)\n";
        let found = reader_of(GameFormat::Sgf, text.as_bytes());
        let Ok(Entry::Game(game)) = &found[0] else { panic!("{found:?}") };
        assert_eq!(game.moves, [square("F5"), square("D6"), Move::Pass, square("C3")]);
        assert_eq!(game.place, GamePlace { number: 1, line: Some(1), offset: 0 });
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn passes_blanks_and_several_games_in_a_file() {
        let text = "\u{feff}  (;GM[2]\r\n ;B[f5] ;W[]\t;B[PASS];W[ps])\n\n(;B [ d3 ] W[c3])(;)";
        assert_eq!(read(text), ["1 line Some(1): F5 PS PS PS", "2 line Some(4): D3 C3", "3 line Some(4): "]);
    }

    #[test]
    fn each_variation_is_a_game_from_the_root() {
        let text = "(;GM[2];B[f5](;W[d6];B[c3](;W[d3])(;W[c4]))(;W[f6]))";
        assert_eq!(
            read(text),
            ["1 line Some(1): F5 D6 C3 D3", "2 line Some(1): F5 D6 C3 C4", "3 line Some(1): F5 F6"],
            "the line to each variation's end, the moves before it each time"
        );
        let places: Vec<u64> = reader_of(GameFormat::Sgf, text.as_bytes())
            .iter()
            .map(|e| match e {
                Ok(Entry::Game(g)) => g.place.offset,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(places, [26, 34, 43], "each game starts at its variation's `(`");
    }

    #[test]
    fn another_game_board_or_start_is_skipped() {
        let text = "(;GM[1]B[f5])(;SZ[10]B[f5])(;AB[c4]B[f5])(;PL[W]W[f5])(;AE[d4])(;AB[e4][d5]AW[d4][e5]PL[b]B[f5])\
                    (;AddBlack[e4][d5]AddWhite[d4][e5]B[f5])(;GM[2];B[f5](;AB[a1])(;W[d6]))";
        assert_eq!(
            read(text),
            [
                "1 skipped: a game of \"GM[1]\", not Othello",
                "2 skipped: not from the standard start with black to move",
                "3 skipped: not from the standard start with black to move",
                "4 skipped: not from the standard start with black to move",
                "5 skipped: not from the standard start with black to move",
                "6 line Some(1): F5",
                "7 line Some(1): F5",
                "8 skipped: not from the standard start with black to move",
                "9 line Some(1): F5 D6",
            ]
        );
    }

    #[test]
    fn a_move_that_is_no_move_ends_the_game_there() {
        assert_eq!(read("(;B[f5];W[fe];B[c3])"), ["1 line Some(1): F5 then \"fe\""]);
        assert_eq!(read("(;B[f5](;W[zz])(;W[d6]))"), ["1 line Some(1): F5 then \"zz\"", "2 line Some(1): F5 D6"]);
    }

    #[test]
    fn damage_says_the_game_the_line_and_the_byte() {
        let cases: [(&str, &str); 9] = [
            ("(;GM[2]", "test: game 1, line 1, byte 7: the file ends inside the variation that starts on line 1 at byte 0, before its `)`"),
            ("(;GM[2", "test: game 1, line 1, byte 6: the file ends in a value of property GM"),
            ("\n\nx(;)", "test: line 3, byte 2: `x` between games, where a game `(;` should start"),
            ("(;)\n(B[f5])", "test: game 2, line 2, byte 5: `(` not followed by `;`: a variation starts with a node"),
            ("(;B[f5](;W[d6]);B[c3])", "test: game 2, line 1, byte 15: a node `;` after a variation: nodes come before them"),
            ("(;GM 2)", "test: game 1, line 1, byte 5: property GM followed by `2`, not `[`"),
            ("(;B[f5]*)", "test: game 1, line 1, byte 7: `*` where a property, a node or a variation should be"),
            ("(;ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGH[x])", "test: game 1, line 1, byte 34: a property name longer than 32 letters"),
            ("(;B[f5]))", "test: line 1, byte 8: `)` between games, where a game `(;` should start"),
        ];
        for (text, message) in cases {
            let found = read(text);
            assert_eq!(found.last().unwrap(), message, "{text:?}");
        }
    }

    #[test]
    fn nesting_long_values_and_long_games_are_bounded() {
        let deep = format!("{}{}", "(;".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
        let found = read(&deep);
        assert!(found[0].ends_with(&format!("variations nested deeper than {MAX_DEPTH}")), "{found:?}");
        let long = "x".repeat(1 << 20);
        let moves = ";B[f5]".repeat(500);
        let text = format!("(;C[{long}]{moves})");
        let found = reader_of(GameFormat::Sgf, text.as_bytes());
        let Ok(Entry::Game(game)) = &found[0] else { panic!("{found:?}") };
        assert_eq!(game.moves.len(), MAX_MOVES + 1);
    }
}
