//! The book formats, one folder each: [`edax`] (Edax's `book.dat`) and
//! [`egaroucid`] (`.egbk3`, and the older `.egbk2` and `.egbk` read into
//! its layout). Each reads its files in place and encodes its records and
//! header; the rest of the crate asks what differs between formats through
//! [`Format`] (a book read) and [`OutFormat`] (a book written).

pub mod edax;
pub mod egaroucid;
mod entry;

use crate::choice::Choice;
use egaroucid::older;
use std::fmt;
use std::path::Path;

/// The file formats bookminer reads, told apart by their first bytes (and,
/// for `.egbk`, which has no magic, by the file's size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Edax's `book.dat` (docs/formats.md, Edax books).
    Edax,
    /// Egaroucid's `.egbk3` (docs/formats.md, Egaroucid books).
    Egbk3,
    /// Egaroucid's `.egbk2`, up to Egaroucid 6.5 (docs/formats.md, older Egaroucid books).
    Egbk2,
    /// Egaroucid's `.egbk`, up to Egaroucid 6.2 (docs/formats.md, older Egaroucid books).
    Egbk,
}

impl Choice for Format {
    const ALL: &'static [Format] = &[Format::Edax, Format::Egbk3, Format::Egbk2, Format::Egbk];

    fn name(self) -> &'static str {
        match self {
            Format::Edax => "edax",
            Format::Egbk3 => "egbk3",
            Format::Egbk2 => "egbk2",
            Format::Egbk => "egbk",
        }
    }

    fn help(self) -> Option<&'static str> {
        Some(match self {
            Format::Edax => "Edax's book.dat",
            Format::Egbk3 => "Egaroucid's .egbk3",
            Format::Egbk2 => "Egaroucid's .egbk2 (up to Egaroucid 6.5)",
            Format::Egbk => "Egaroucid's .egbk (up to Egaroucid 6.2)",
        })
    }
}

impl Format {
    /// The format a file's first bytes announce (docs/formats.md, older Egaroucid books): `DICUORAGE`
    /// then version 2 is an `.egbk2`, any other version (or a file too short
    /// to have one) an `.egbk3`; Edax's magic is Edax's; a file with neither
    /// is an `.egbk` when its size is exactly what its count says. Anything
    /// else is read as Edax's, whose reader names what is wrong with it.
    pub fn of(bytes: &[u8]) -> Format {
        let shorter_than_magic = !bytes.is_empty() && egaroucid::MAGIC.starts_with(bytes);
        if older::is_egbk2(bytes) {
            Format::Egbk2
        } else if egaroucid::is_egaroucid(bytes) || shorter_than_magic {
            Format::Egbk3
        } else if !edax::is_edax(bytes) && older::is_egbk(bytes) {
            Format::Egbk
        } else {
            Format::Edax
        }
    }

    /// True for the older Egaroucid books, read by translating them into
    /// the `.egbk3` layout: the bytes the book holds are not the file's.
    pub fn is_translated(self) -> bool {
        match self {
            Format::Edax | Format::Egbk3 => false,
            Format::Egbk2 | Format::Egbk => true,
        }
    }

    /// True if the file stores links (Edax's); Egaroucid's are found
    /// from the legal moves while walking, about one per position.
    pub fn stores_links(self) -> bool {
        match self {
            Format::Edax => true,
            Format::Egbk3 | Format::Egbk2 | Format::Egbk => false,
        }
    }

    /// The layout family the format's records are read in: Edax's, or
    /// the `.egbk3`'s (an older Egaroucid book is translated into it).
    pub fn family(self) -> Family {
        match self {
            Format::Edax => Family::Edax,
            Format::Egbk3 | Format::Egbk2 | Format::Egbk => Family::Egaroucid,
        }
    }

    /// The format a book read in this one is written in when it keeps its
    /// own (cut, fix): an `.egbk2` or `.egbk` as an `.egbk3`.
    pub fn kept_as(self) -> OutFormat {
        match self {
            Format::Edax => OutFormat::Edax,
            Format::Egbk3 | Format::Egbk2 | Format::Egbk => OutFormat::Egbk3,
        }
    }

    /// The format a file's name says (`.dat`, `.egbk3`, `.egbk2`, `.egbk`,
    /// in any case); none for any other name.
    pub fn named_by(path: &Path) -> Option<Format> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "dat" => Some(Format::Edax),
            "egbk3" => Some(Format::Egbk3),
            "egbk2" => Some(Format::Egbk2),
            "egbk" => Some(Format::Egbk),
            _ => None,
        }
    }

    /// Whether bytes start with a book's magic (Edax's or Egaroucid's; an
    /// `.egbk` has none).
    pub fn has_magic(bytes: &[u8]) -> bool {
        edax::is_edax(bytes) || egaroucid::is_egaroucid(bytes)
    }

    /// Whether a file of this format starts with a magic
    /// ([`Format::has_magic`]): only its name tells an `.egbk`.
    pub fn starts_with_magic(self) -> bool {
        match self {
            Format::Edax | Format::Egbk3 | Format::Egbk2 => true,
            Format::Egbk => false,
        }
    }

    /// The format's usual name, for messages ("Edax book.dat"; the name a
    /// user types is [`Choice::name`]).
    pub fn title(self) -> &'static str {
        match self {
            Format::Edax => "Edax book.dat",
            Format::Egbk3 => "Egaroucid .egbk3",
            Format::Egbk2 => "Egaroucid .egbk2",
            Format::Egbk => "Egaroucid .egbk",
        }
    }
}

/// A book's header, as its format has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Header {
    /// An Edax book's.
    Edax(edax::Header),
    /// An `.egbk3`'s.
    Egbk3(egaroucid::Header),
    /// An `.egbk2`'s.
    Egbk2(older::Egbk2Header),
    /// An `.egbk`'s.
    Egbk(older::EgbkHeader),
}

impl Header {
    /// The number of records the header claims (the records in the file
    /// are what count; `verify` and `stats` tell both).
    pub fn claimed_records(&self) -> i64 {
        match self {
            Header::Edax(h) => i64::from(h.n_nodes),
            Header::Egbk3(h) => i64::from(h.n_boards),
            Header::Egbk2(h) => i64::from(h.n_boards),
            Header::Egbk(h) => i64::from(h.n_boards),
        }
    }

    /// An Edax book's header, which says how its values were searched
    /// ([`edax::Header::search_errors`]) and how deep it is grown; none for
    /// Egaroucid's, whose headers say neither.
    pub fn edax(&self) -> Option<&edax::Header> {
        match self {
            Header::Edax(h) => Some(h),
            Header::Egbk3(_) | Header::Egbk2(_) | Header::Egbk(_) => None,
        }
    }

    /// The header of a book of `records` records written in the format it
    /// was read in ([`Format::kept_as`]; cut, extend, merge): an Edax book keeps
    /// its own header but for the count; an Egaroucid book, whatever its
    /// version, gets an `.egbk3` one.
    pub fn kept(&self, records: u64) -> Vec<u8> {
        match self {
            Header::Edax(header) => edax::header_from(header, records).to_vec(),
            Header::Egbk3(_) | Header::Egbk2(_) | Header::Egbk(_) => egaroucid::header(records).to_vec(),
        }
    }
}

/// The two ways books lay out their records: Edax's (links stored, records
/// of any length) and Egaroucid's (`.egbk3` records of one size, links
/// found from the legal moves). What a conversion keeps and loses depends
/// on the families alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Edax's `book.dat`.
    Edax,
    /// Egaroucid's `.egbk3`, and the older formats read into its layout.
    Egaroucid,
}

/// The formats bookminer writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutFormat {
    /// Edax's `book.dat`.
    Edax,
    /// Egaroucid's `.egbk3`.
    Egbk3,
}

impl Choice for OutFormat {
    const ALL: &'static [OutFormat] = &[OutFormat::Edax, OutFormat::Egbk3];

    fn name(self) -> &'static str {
        match self {
            OutFormat::Edax => "edax",
            OutFormat::Egbk3 => "egbk3",
        }
    }

    fn help(self) -> Option<&'static str> {
        Some(match self {
            OutFormat::Edax => "Edax's book.dat",
            OutFormat::Egbk3 => "Egaroucid's .egbk3",
        })
    }
}

impl OutFormat {
    /// The format a file name asks for: `.dat` Edax's, `.egbk3` Egaroucid's.
    pub fn of_path(path: &Path) -> Option<OutFormat> {
        Format::named_by(path).and_then(OutFormat::of)
    }

    /// The written format that is `format`: none for the older Egaroucid
    /// formats, which bookminer reads but does not write.
    pub fn of(format: Format) -> Option<OutFormat> {
        match format {
            Format::Edax => Some(OutFormat::Edax),
            Format::Egbk3 => Some(OutFormat::Egbk3),
            Format::Egbk2 | Format::Egbk => None,
        }
    }

    /// The format a book written so is read as.
    pub fn format(self) -> Format {
        match self {
            OutFormat::Edax => Format::Edax,
            OutFormat::Egbk3 => Format::Egbk3,
        }
    }

    /// The layout family of a book written so.
    pub fn family(self) -> Family {
        match self {
            OutFormat::Edax => Family::Edax,
            OutFormat::Egbk3 => Family::Egaroucid,
        }
    }

    /// The (score, move) byte pair that stores `leaf` in a record written
    /// so: how each format says "no leaf" is its own ([`edax::leaf_pair`],
    /// [`egaroucid::leaf_pair`]).
    pub fn leaf_pair(self, leaf: Option<crate::record::Leaf>) -> (i8, u8) {
        match self {
            OutFormat::Edax => edax::leaf_pair(leaf),
            OutFormat::Egbk3 => egaroucid::leaf_pair(leaf),
        }
    }

    /// The extension a file of this format is named with.
    pub fn extension(self) -> &'static str {
        match self {
            OutFormat::Edax => "dat",
            OutFormat::Egbk3 => "egbk3",
        }
    }

    /// The bytes kept for the header at the start of a book written in
    /// this format.
    pub fn header_len(self) -> usize {
        match self {
            OutFormat::Edax => edax::HEADER_LEN,
            OutFormat::Egbk3 => egaroucid::HEADER_LEN,
        }
    }
}

impl fmt::Display for OutFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OutFormat::Edax => "Edax book.dat",
            OutFormat::Egbk3 => "Egaroucid .egbk3",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_is_told_by_the_first_bytes() {
        assert_eq!(Format::of(b"DICUORAGE\x03\0\0\0\0"), Format::Egbk3);
        assert_eq!(Format::of(b"DICUORAGE\x02\0\0\0\0"), Format::Egbk2);
        assert_eq!(Format::of(b"DICUORAGE\x07\0\0\0\0"), Format::Egbk3);
        assert_eq!(Format::of(b"DICUORAGE\x02"), Format::Egbk2);
        assert_eq!(Format::of(b"DICUORAGE"), Format::Egbk3);
        assert_eq!(Format::of(b"DICUORAG"), Format::Egbk3);
        assert_eq!(Format::of(b"XADEKOOB"), Format::Edax);
        assert_eq!(Format::of(b""), Format::Edax);
        assert_eq!(Format::of(b"DICX"), Format::Edax);
    }

    #[test]
    fn a_file_with_no_magic_is_an_egbk_when_its_size_is_what_its_count_says() {
        let egbk = |n: i32, len: usize| {
            let mut bytes = n.to_le_bytes().to_vec();
            bytes.resize(len, 0);
            Format::of(&bytes)
        };
        assert_eq!(egbk(0, 4), Format::Egbk);
        assert_eq!(egbk(2, 4 + 34), Format::Egbk);
        assert_eq!(egbk(2, 4 + 33), Format::Edax);
        assert_eq!(egbk(2, 4 + 35), Format::Edax);
        assert_eq!(egbk(-1, 4), Format::Edax);
        assert_eq!(Format::of(&[0, 0, 0]), Format::Edax);
    }
}
