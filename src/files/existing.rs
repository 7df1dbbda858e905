//! What is already at a path a command is to write: nothing, something that
//! is no regular file, or a file, and then what it holds, told from its
//! first bytes and its size (a book and its count, `extend`'s journal, text,
//! other bytes). A command refuses to replace a file it did not write
//! unless asked (README, "Files a command writes"), and says what the file
//! holds, so that the user sees what would have been lost; a journal is
//! never replaced at all.

use crate::format::edax::read as edax;
use crate::format::egaroucid::older::{EGBK_HEADER_LEN, EGBK_RECORD_LEN};
use crate::format::egaroucid::read as egaroucid;
use crate::format::Format;
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// What a path to be written holds now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// Nothing (or a symbolic link to nothing, written through).
    Nothing,
    /// Something that is no regular file (a folder, a device, a FIFO, a
    /// socket), in a few words: never written over.
    NotAFile(&'static str),
    /// A regular file, and what it holds.
    File(Holds),
}

/// What a regular file holds, as far as its first bytes and size tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holds {
    /// A book whose header reads: its format and the positions its header
    /// (or, for an `.egbk`, its size) counts.
    Book {
        /// Its format, told from its first bytes.
        format: Format,
        /// The positions it holds.
        positions: u64,
    },
    /// A file that starts as a book of `format` does and whose header does not read.
    DamagedBook {
        /// The format its first bytes name.
        format: Format,
        /// Its size.
        bytes: u64,
    },
    /// `extend`'s journal (its lines start as a journal's do).
    Journal,
    /// A file of no bytes.
    Empty,
    /// UTF-8 text without NUL bytes, as far as its first bytes go.
    Text {
        /// Its size.
        bytes: u64,
    },
    /// Any other bytes.
    Other {
        /// Its size.
        bytes: u64,
    },
}

/// How every line extend's journal (src/engine/journal.rs) writes begins:
/// a last line that begins so and does not read was cut short by a kill.
pub const JOURNAL_LINE_START: &[u8] = br#"{"board":""#;

/// How a journal line that notes an expansion `grow` dispatched begins.
pub const JOURNAL_EXPANSION_START: &[u8] = br#"{"expand":""#;

/// Whether a file's first bytes are a journal's: its first line notes an
/// answer or an expansion, as every line the journal writes begins. No
/// other file bookminer writes begins so (a receipt's lines begin with
/// their record's number, a mode's JSON lines with their kifu).
pub fn starts_as_journal(first: &[u8]) -> bool {
    [JOURNAL_LINE_START, JOURNAL_EXPANSION_START].iter().any(|start| first.starts_with(start))
}

/// The first bytes of a file read to tell what it holds.
const SNIFFED: u64 = 4096;

impl Found {
    /// What is at `path`, links followed (a link is written through, so its
    /// target is what would be replaced).
    pub fn at(path: &Path) -> io::Result<Found> {
        let metadata = match std::fs::metadata(path) {
            Ok(metadata) => metadata,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::Nothing),
            Err(e) => return Err(e),
        };
        if !metadata.is_file() {
            return Ok(Found::NotAFile(crate::files::input::describe(metadata.file_type())));
        }
        let mut first = Vec::new();
        File::open(path)?.take(SNIFFED).read_to_end(&mut first)?;
        Ok(Found::File(Holds::of(&first, metadata.len())))
    }
}

impl Holds {
    /// What a file of `size` bytes that starts with `first` holds.
    pub fn of(first: &[u8], size: u64) -> Holds {
        if size == 0 {
            return Holds::Empty;
        }
        if starts_as_journal(first) {
            return Holds::Journal;
        }
        if let Some(book) = book_of(first, size) {
            return book;
        }
        let text = match std::str::from_utf8(first) {
            Ok(_) => true,
            // Cut in the middle of a character by the sniff, or not text.
            Err(e) => e.error_len().is_none() && size > first.len() as u64,
        };
        match text && !first.contains(&0) {
            true => Holds::Text { bytes: size },
            false => Holds::Other { bytes: size },
        }
    }

    /// Whether the file is a book, damaged or not.
    pub fn is_book(&self) -> bool {
        matches!(self, Holds::Book { .. } | Holds::DamagedBook { .. })
    }

    /// Whether the file is `extend`'s journal.
    pub fn is_journal(&self) -> bool {
        matches!(self, Holds::Journal)
    }
}

/// The book a file starting with `first` is, if its first bytes say it
/// is one: told as [`Format::of`] tells it, its count from its header.
fn book_of(first: &[u8], size: u64) -> Option<Holds> {
    let damaged = |format| Some(Holds::DamagedBook { format, bytes: size });
    let counted = |format, count: i64| match u64::try_from(count) {
        Ok(positions) => Some(Holds::Book { format, positions }),
        Err(_) => damaged(format),
    };
    if edax::is_edax(first) {
        return match edax::parse_header(first) {
            Ok(header) => counted(Format::Edax, header.n_nodes.into()),
            Err(_) => damaged(Format::Edax),
        };
    }
    if egaroucid::is_egaroucid(first) {
        let format = Format::of(first);
        let count = first.get(egaroucid::N_BOARDS_AT..egaroucid::N_BOARDS_AT + 4);
        return match count {
            Some(count) => counted(format, i32::from_le_bytes(count.try_into().expect("4 bytes")).into()),
            None => damaged(format),
        };
    }
    // An .egbk has no magic: its count and its size agree.
    let count = u32::from_le_bytes(first.get(..EGBK_HEADER_LEN)?.try_into().expect("4 bytes"));
    let fits = EGBK_HEADER_LEN as u64 + EGBK_RECORD_LEN as u64 * u64::from(count) == size;
    fits.then_some(Holds::Book { format: Format::Egbk, positions: count.into() })
}

impl fmt::Display for Holds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holds::Book { format, positions } => {
                let noun = if *positions == 1 { "position" } else { "positions" };
                write!(f, "{} of {} {noun}", book_title(*format), grouped(*positions))
            }
            Holds::DamagedBook { format, bytes } => {
                let title = book_title(*format);
                write!(f, "a file of {} bytes that starts as {title} does, its header unreadable", grouped(*bytes))
            }
            Holds::Journal => write!(f, "extend's journal of searches"),
            Holds::Empty => write!(f, "an empty file"),
            Holds::Text { bytes } => write!(f, "a text file of {} bytes", grouped(*bytes)),
            Holds::Other { bytes } => write!(f, "a file of {} bytes, no book", grouped(*bytes)),
        }
    }
}

/// A book of `format`, as a message names it: "an Edax book".
fn book_title(format: Format) -> &'static str {
    match format {
        Format::Edax => "an Edax book",
        Format::Egbk3 => "an Egaroucid .egbk3 book",
        Format::Egbk2 => "an Egaroucid .egbk2 book",
        Format::Egbk => "an Egaroucid .egbk book",
    }
}

/// `n` with its thousands grouped: 7,814.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut text = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(bytes: &[u8]) -> String {
        Holds::of(bytes, bytes.len() as u64).to_string()
    }

    #[test]
    fn a_book_is_named_with_its_format_and_count() {
        let mut edax = b"XADEKOOB\x04\x06".to_vec();
        edax.resize(42, 0);
        edax[38..42].copy_from_slice(&7814i32.to_le_bytes());
        assert_eq!(holds(&edax), "an Edax book of 7,814 positions");
        edax[8] = 3;
        assert_eq!(holds(&edax), "a file of 42 bytes that starts as an Edax book does, its header unreadable");
        let mut egbk3 = b"DICUORAGE\x03".to_vec();
        egbk3.extend_from_slice(&1i32.to_le_bytes());
        assert_eq!(holds(&egbk3), "an Egaroucid .egbk3 book of 1 position");
        let mut egbk = 2u32.to_le_bytes().to_vec();
        egbk.resize(4 + 2 * 17, 7);
        assert_eq!(holds(&egbk), "an Egaroucid .egbk book of 2 positions");
    }

    #[test]
    fn anything_else_is_said_in_a_few_words() {
        assert_eq!(holds(b""), "an empty file");
        assert_eq!(holds(b"{\"board\":\"---\",\"side\":\"X\"}\n"), "extend's journal of searches");
        assert_eq!(holds("F5D6C3é\n".as_bytes()), "a text file of 9 bytes");
        assert_eq!(holds(b"\x00\x01\x02\xff"), "a file of 4 bytes, no book");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
    }

    #[test]
    fn what_is_at_a_path_is_told_without_following_it_into_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Found::at(&dir.path().join("none")).unwrap(), Found::Nothing);
        assert_eq!(Found::at(dir.path()).unwrap(), Found::NotAFile("a directory"));
        std::fs::write(dir.path().join("t.txt"), b"x\n").unwrap();
        assert_eq!(Found::at(&dir.path().join("t.txt")).unwrap(), Found::File(Holds::Text { bytes: 2 }));
    }
}
