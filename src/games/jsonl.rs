//! JSON lines bookminer wrote (`.jsonl`: mining's `mode{N}.jsonl`,
//! `check`'s lines): each line is an object whose `kifu` is a game, read
//! as a text file's line is. Blank lines are no games; any other line that
//! is not such an object is damage.

use super::error::{ReadError, Where};
use super::lines::Lines;
use super::reader::{Entry, Game, GamePlace, Reader};
use crate::kifu::read_moves;
use std::io::BufRead;

pub struct JsonlReader<R> {
    lines: Lines<R>,
    /// Games read so far.
    games: u64,
}

impl<R: BufRead> JsonlReader<R> {
    /// A reader of the JSON lines of `source`, from its start.
    pub fn new(source: R) -> JsonlReader<R> {
        JsonlReader { lines: Lines::new(source), games: 0 }
    }
}

impl<R: BufRead> Reader for JsonlReader<R> {
    fn next_entry(&mut self) -> Result<Option<Entry>, ReadError> {
        while let Some(line) = self.lines.next_line()? {
            if line.text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.games += 1;
            let at = Where { game: Some(self.games), line: Some(line.number), byte: line.offset };
            let kifu = kifu_of(line.text).map_err(|what| ReadError::Damaged { at, what })?;
            let read = read_moves(&kifu);
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

/// The `kifu` of a JSON line, or what is wrong with the line.
fn kifu_of(text: &[u8]) -> Result<String, String> {
    let value: serde_json::Value =
        serde_json::from_slice(text).map_err(|e| format!("not a JSON line ({e}): each line holds a \"kifu\""))?;
    match value.get("kifu") {
        Some(serde_json::Value::String(kifu)) => Ok(kifu.clone()),
        Some(_) => Err("its \"kifu\" is not text".to_string()),
        None => Err("a JSON line without \"kifu\": not a line bookminer wrote".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{reader_of, GameFormat};
    use super::*;

    #[test]
    fn each_line_s_kifu_is_a_game() {
        let bytes = b"{\"kifu\":\"F5D6C3\",\"mode\":2}\n\n{\"kifu\":\"F5F6\",\"board\":\"x\"}\n";
        let found = reader_of(GameFormat::Jsonl, bytes);
        let moves: Vec<usize> = found
            .iter()
            .map(|e| match e {
                Ok(Entry::Game(game)) => game.moves.len(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(moves, [3, 2]);
    }

    #[test]
    fn a_line_that_is_not_one_bookminer_wrote_is_damage_named_by_line_and_byte() {
        let found = reader_of(GameFormat::Jsonl, b"{\"kifu\":\"F5\"}\nF5D6\n");
        assert!(matches!(found[0], Ok(Entry::Game(_))));
        let error = found[1].as_ref().unwrap_err();
        assert!(error.starts_with("test: game 2, line 2, byte 14: not a JSON line"), "{error}");
        let found = reader_of(GameFormat::Jsonl, b"{\"kifu\":null}\n");
        assert_eq!(found[0].as_ref().unwrap_err(), "test: game 1, line 1, byte 0: its \"kifu\" is not text");
        let found = reader_of(GameFormat::Jsonl, b"[1,2]\n");
        assert!(found[0].as_ref().unwrap_err().ends_with("a JSON line without \"kifu\": not a line bookminer wrote"));
    }
}
