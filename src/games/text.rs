//! Text game files (`.txt`): one game a line, its moves as squares in
//! either case, with or without spaces, passes written (`PA`, `PS`) or
//! left for the replay to find. A UTF-8 byte-order mark at the start of
//! the file is not part of the first game (kifu files `mine` writes with
//! `bom = true` read whole); empty lines and lines starting with `#` are
//! no games. A file that is not text (a NUL byte, bytes that are not
//! UTF-8) is refused at the first such byte: it is no game file, whatever
//! its name says, and its bytes are never read as moves.

use super::error::{ReadError, Where};
use super::lines::Lines;
use super::reader::{Entry, Game, GamePlace, Reader};
use crate::kifu::read_moves;
use std::io::BufRead;

pub struct TextReader<R> {
    lines: Lines<R>,
    /// Games read so far.
    games: u64,
}

impl<R: BufRead> TextReader<R> {
    /// A reader of the lines of `source`, from its start.
    pub fn new(source: R) -> TextReader<R> {
        TextReader { lines: Lines::new(source), games: 0 }
    }
}

impl<R: BufRead> Reader for TextReader<R> {
    fn next_entry(&mut self) -> Result<Option<Entry>, ReadError> {
        while let Some(line) = self.lines.next_line()? {
            let text = match as_text(line.text) {
                Ok(text) => text.trim(),
                Err((at, what)) => {
                    let at = Where { game: None, line: Some(line.number), byte: line.text_at + at as u64 };
                    return Err(ReadError::Damaged { at, what });
                }
            };
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            self.games += 1;
            let read = read_moves(text);
            let place = GamePlace { number: self.games, line: Some(line.number), offset: line.offset };
            let unreadable = read.unreadable.map(|u| u.text);
            return Ok(Some(Entry::Game(Game { place, moves: read.moves, unreadable })));
        }
        Ok(None)
    }

    fn offset(&self) -> u64 {
        self.lines.offset()
    }
}

/// A line as text, or where it stops being text (its byte from the line's
/// start) and how.
fn as_text(bytes: &[u8]) -> Result<&str, (usize, String)> {
    let valid = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    };
    let not_text = "not text: a .txt game file is UTF-8 text, one game a line";
    if let Some(at) = bytes[..valid].iter().position(|&b| b == 0) {
        return Err((at, format!("a NUL byte, {not_text}")));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(_) => Err((valid, format!("byte 0x{:02X} is not UTF-8, {not_text}", bytes[valid]))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{reader_of, GameFormat};
    use super::*;
    use crate::board::{Move, Square};

    fn games(bytes: &[u8]) -> Vec<Game> {
        reader_of(GameFormat::Text, bytes)
            .into_iter()
            .map(|e| match e {
                Ok(Entry::Game(game)) => game,
                other => panic!("a text file holds games only: {other:?}"),
            })
            .collect()
    }

    fn square(text: &str) -> Move {
        Move::Play(Square::parse(text).unwrap())
    }

    #[test]
    fn a_line_is_a_game_and_comments_and_blank_lines_are_none() {
        let found = games(b"\xEF\xBB\xBFf5D6 c3\n# a comment\n\n  \nF5 PS d6\r\nf5zz\n");
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].moves, [square("F5"), square("D6"), square("C3")]);
        assert_eq!(found[0].place, GamePlace { number: 1, line: Some(1), offset: 0 });
        assert_eq!(found[1].moves, [square("F5"), Move::Pass, square("D6")]);
        assert_eq!(found[1].place, GamePlace { number: 2, line: Some(5), offset: 27 });
        assert_eq!((found[2].moves.clone(), found[2].unreadable.clone()), (vec![square("F5")], Some("zz".to_string())));
    }

    #[test]
    fn bytes_that_are_not_text_are_refused_where_they_are() {
        let read = |bytes: &[u8]| reader_of(GameFormat::Text, bytes).last().cloned().unwrap().unwrap_err();
        assert_eq!(
            read(b"f5d6\nc3\x00d3\n"),
            "test: line 2, byte 7: a NUL byte, not text: a .txt game file is UTF-8 text, one game a line"
        );
        assert_eq!(
            read(b"\xEF\xBB\xBFf5\xff\n"),
            "test: line 1, byte 5: byte 0xFF is not UTF-8, not text: a .txt game file is UTF-8 text, one game a line"
        );
    }
}
