//! The lines of a game file written as text (`.txt`, `.jsonl`), one at a
//! time, each within a bound: a file without line ends is refused at the
//! bound, not read whole into memory.

use super::error::{ReadError, Where};
use crate::output::BOM;
use std::io::BufRead;

/// The longest line read. A game's moves take 120 characters, 360 with a
/// space and a pass between each; a line of `mine`'s JSONL a few hundred.
pub const MAX_LINE: usize = 1 << 16;

/// A file's lines, counted from 1, with the byte each starts at.
pub struct Lines<R> {
    source: R,
    /// Bytes read so far.
    offset: u64,
    /// Lines read so far.
    number: u64,
    buffer: Vec<u8>,
}

/// One line, without its line end (`\n` or `\r\n`) and, on the first
/// line, without a UTF-8 byte-order mark.
pub struct Line<'a> {
    pub number: u64,
    pub offset: u64,
    /// The byte of the file `text` starts at (after a byte-order mark).
    pub text_at: u64,
    pub text: &'a [u8],
}

impl<R: BufRead> Lines<R> {
    /// The lines of `source`, from its start.
    pub fn new(source: R) -> Lines<R> {
        Lines { source, offset: 0, number: 0, buffer: Vec::new() }
    }

    /// Bytes read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The next line; none at the end of the file.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, ReadError> {
        self.buffer.clear();
        let start = self.offset;
        let mut ended = false;
        while !ended {
            let available = self.source.fill_buf()?;
            if available.is_empty() {
                break;
            }
            let (taken, end) = match available.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            if self.buffer.len() + taken - usize::from(end) > MAX_LINE {
                let at = Where { game: None, line: Some(self.number + 1), byte: start };
                return Err(ReadError::Damaged {
                    at,
                    what: format!("a line longer than {MAX_LINE} bytes: not a line of games"),
                });
            }
            self.buffer.extend_from_slice(&available[..taken]);
            self.source.consume(taken);
            self.offset += taken as u64;
            ended = end;
        }
        if self.buffer.is_empty() {
            return Ok(None);
        }
        self.number += 1;
        let mut text = self.buffer.as_slice();
        let mut text_at = start;
        if self.number == 1 {
            if let Some(rest) = text.strip_prefix(BOM) {
                (text, text_at) = (rest, start + BOM.len() as u64);
            }
        }
        text = text.strip_suffix(b"\n").unwrap_or(text);
        text = text.strip_suffix(b"\r").unwrap_or(text);
        Ok(Some(Line { number: self.number, offset: start, text_at, text }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<(u64, u64, Vec<u8>)> {
        let mut lines = Lines::new(std::io::Cursor::new(bytes.to_vec()));
        let mut found = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            found.push((line.number, line.offset, line.text.to_vec()));
        }
        found
    }

    #[test]
    fn lines_lose_their_ends_and_the_first_its_bom() {
        let found = lines(b"\xEF\xBB\xBFf5d6\r\n\nc3");
        assert_eq!(found, [(1, 0, b"f5d6".to_vec()), (2, 9, Vec::new()), (3, 10, b"c3".to_vec())]);
        assert_eq!(lines(b"a\n\xEF\xBB\xBFb\n")[1].2, b"\xEF\xBB\xBFb", "a BOM is only the file's first bytes");
        assert!(lines(b"").is_empty());
    }

    #[test]
    fn a_line_past_the_bound_is_refused_where_it_starts() {
        let mut bytes = b"f5\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'a', MAX_LINE + 1));
        let mut lines = Lines::new(std::io::Cursor::new(bytes));
        assert!(lines.next_line().unwrap().is_some());
        match lines.next_line() {
            Err(ReadError::Damaged { at, .. }) => assert_eq!(at, Where { game: None, line: Some(2), byte: 3 }),
            _ => panic!("a line past the bound is damage"),
        }
        let mut exact = vec![b'a'; MAX_LINE];
        exact.push(b'\n');
        assert_eq!(Lines::new(std::io::Cursor::new(exact)).next_line().unwrap().unwrap().text.len(), MAX_LINE);
    }
}
