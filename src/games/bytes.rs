//! A game file read a byte at a time, counting lines and bytes so that
//! damage can say where it is: the PGN and SGF readers' cursor.

use super::error::{ReadError, Where};
use crate::output::BOM;
use std::io::BufRead;

pub struct Bytes<R> {
    source: R,
    /// Bytes read so far.
    offset: u64,
    /// The line the next byte is on, from 1.
    line: u64,
}

impl<R: BufRead> Bytes<R> {
    /// The bytes of `source`, from its start.
    pub fn new(source: R) -> Bytes<R> {
        Bytes { source, offset: 0, line: 1 }
    }

    /// Bytes read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The line the next byte is on.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The next byte, left where it is; none at the end of the file.
    pub fn peek(&mut self) -> Result<Option<u8>, ReadError> {
        Ok(self.source.fill_buf()?.first().copied())
    }

    /// Moves past the byte [`Bytes::peek`] saw.
    pub fn bump(&mut self, byte: u8) {
        self.source.consume(1);
        self.offset += 1;
        if byte == b'\n' {
            self.line += 1;
        }
    }

    /// The next byte, taken.
    pub fn take(&mut self) -> Result<Option<u8>, ReadError> {
        let byte = self.peek()?;
        if let Some(byte) = byte {
            self.bump(byte);
        }
        Ok(byte)
    }

    /// Moves past blanks; the byte after them, peeked.
    pub fn skip_blanks(&mut self) -> Result<Option<u8>, ReadError> {
        loop {
            match self.peek()? {
                Some(byte) if byte.is_ascii_whitespace() => self.bump(byte),
                other => return Ok(other),
            }
        }
    }

    /// Moves past a UTF-8 byte-order mark at the start of the file, if
    /// there is one: it is not part of the first game.
    pub fn skip_bom(&mut self) -> Result<(), ReadError> {
        if self.offset == 0 && self.source.fill_buf()?.starts_with(BOM) {
            for &byte in BOM {
                self.bump(byte);
            }
        }
        Ok(())
    }

    /// Damage at the byte the cursor has come to, in `game` if one is open.
    pub fn damaged(&self, game: Option<u64>, what: String) -> ReadError {
        ReadError::Damaged { at: Where { game, line: Some(self.line), byte: self.offset }, what }
    }
}

/// A byte as a message shows it.
pub fn shown(byte: u8) -> String {
    match byte {
        b' '..=b'~' => format!("`{}`", byte as char),
        _ => format!("byte 0x{byte:02x}"),
    }
}
