//! The Edax `book.dat` layout (SPEC §1): the 42-byte header, position records
//! read in place from the file's bytes, and the errors a damaged file gives.

use crate::board::{Board, Move, Square, CENTRE};
use std::fmt;

pub const HEADER_LEN: usize = 42;
/// A record without links: board, counts, values, n_link, level and the leaf.
pub const RECORD_MIN_LEN: usize = 42;
const MAGIC_EDAX: u32 = 0x4544_4158;
const MAGIC_BOOK: u32 = 0x424F_4F4B;
pub const VERSION: u8 = 4;

/// A score in discs, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(pub i32);

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:+}", self.0)
    }
}

/// The file header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub version: u8,
    pub release: u8,
    /// year, month, day, hour, minute, second
    pub date: (i16, u8, u8, u8, u8, u8),
    pub level: i32,
    pub n_empties: i32,
    pub midgame_error: i32,
    pub endcut_error: i32,
    pub verbosity: i32,
    /// What the header claims; the records in the file are what count.
    pub n_nodes: i32,
}

/// What is wrong in a book file, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// 1-based record number, when the problem is in a record.
    pub record: Option<u64>,
    /// Byte offset of the record (or of the header field).
    pub offset: u64,
    pub problem: Problem,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.record {
            Some(n) => write!(f, "record {n} at byte {}: {}", self.offset, self.problem),
            None => write!(f, "byte {}: {}", self.offset, self.problem),
        }
    }
}

impl std::error::Error for FormatError {}

/// The kinds of damage a book can have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    ShortHeader { len: u64 },
    BadMagic { found: [u8; 8] },
    BadVersion { found: u8 },
    Truncated { needed: u64, left: u64 },
    BadMoveCode { slot: Slot, code: u8 },
    NoMoveLink { slot: Slot },
    Overlap { squares: u64 },
    EmptyCentre { squares: u64 },
    Duplicate { first_record: u64, first_offset: u64 },
    NotNormalized,
    IllegalMove { slot: Slot, mv: Move },
    RepeatedMove { slot: Slot, mv: Move },
    CountMismatch { header: i32, records: u64 },
    MissingInitial,
    TooLarge { len: u64, limit: u64 },
}

/// Which move of a record a problem is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Link(usize),
    Leaf,
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::Link(i) => write!(f, "link {}", i + 1),
            Slot::Leaf => f.write_str("leaf"),
        }
    }
}

fn squares(bits: u64) -> String {
    Square::iter(bits).map(|s| s.to_string()).collect::<Vec<_>>().join(" ")
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::ShortHeader { len } => {
                write!(f, "file is {len} bytes, shorter than the {HEADER_LEN}-byte header")
            }
            Problem::BadMagic { found } => {
                write!(f, "not an Edax book: magic is {:?}, expected \"XADEKOOB\"", String::from_utf8_lossy(found))
            }
            Problem::BadVersion { found } => write!(f, "book version {found} is not supported (expected {VERSION})"),
            Problem::Truncated { needed, left } => {
                write!(f, "truncated record: needs {needed} bytes, the file has {left} left")
            }
            Problem::BadMoveCode { slot, code } => write!(f, "{slot} has move code {code} (valid: 0-63, 64 pass, 65 none)"),
            Problem::NoMoveLink { slot } => write!(f, "{slot} has move code 65 (no move), which only a leaf may have"),
            Problem::Overlap { squares: s } => write!(f, "both sides have a disc on {}", squares(*s)),
            Problem::EmptyCentre { squares: s } => write!(f, "centre square {} is empty", squares(*s)),
            Problem::Duplicate { first_record, first_offset } => {
                write!(f, "same position as record {first_record} at byte {first_offset}")
            }
            Problem::NotNormalized => f.write_str("board is not in normalized (least symmetric) form"),
            Problem::IllegalMove { slot, mv } => write!(f, "{slot} move {mv} is illegal on this board"),
            Problem::RepeatedMove { slot, mv } => write!(f, "{slot} repeats move {mv}"),
            Problem::CountMismatch { header, records } => {
                write!(f, "header says {header} positions, the file holds {records}")
            }
            Problem::MissingInitial => f.write_str("the initial position is not in the book"),
            Problem::TooLarge { len, limit } => {
                write!(f, "file is {len} bytes; books larger than {limit} bytes cannot be indexed")
            }
        }
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn i32_at(bytes: &[u8], at: usize) -> i32 {
    u32_at(bytes, at) as i32
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn i16_at(bytes: &[u8], at: usize) -> i16 {
    i16::from_le_bytes([bytes[at], bytes[at + 1]])
}

/// Reads the header, checking size, magic and version.
pub fn parse_header(file: &[u8]) -> Result<Header, FormatError> {
    let at_start = |problem| FormatError { record: None, offset: 0, problem };
    if file.len() < HEADER_LEN {
        return Err(at_start(Problem::ShortHeader { len: file.len() as u64 }));
    }
    if u32_at(file, 0) != MAGIC_EDAX || u32_at(file, 4) != MAGIC_BOOK {
        return Err(at_start(Problem::BadMagic { found: file[..8].try_into().expect("8 bytes") }));
    }
    let header = Header {
        version: file[8],
        release: file[9],
        date: (i16_at(file, 10), file[12], file[13], file[14], file[15], file[16]),
        level: i32_at(file, 18),
        n_empties: i32_at(file, 22),
        midgame_error: i32_at(file, 26),
        endcut_error: i32_at(file, 30),
        verbosity: i32_at(file, 34),
        n_nodes: i32_at(file, 38),
    };
    if header.version != VERSION {
        return Err(FormatError { record: None, offset: 8, problem: Problem::BadVersion { found: header.version } });
    }
    Ok(header)
}

/// One stored move and its score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub score: Score,
    pub mv: Move,
}

/// A position record, read in place. Only [`next_record`] makes one, after
/// checking its length, so the accessors index within bounds.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    bytes: &'a [u8],
}

impl<'a> Record<'a> {
    pub fn board(&self) -> Board {
        Board::new(u64_at(self.bytes, 0), u64_at(self.bytes, 8))
    }

    /// Wins, draws, losses and lines below this position.
    pub fn counts(&self) -> [u32; 4] {
        [u32_at(self.bytes, 16), u32_at(self.bytes, 20), u32_at(self.bytes, 24), u32_at(self.bytes, 28)]
    }

    pub fn value(&self) -> Score {
        Score(i16_at(self.bytes, 32).into())
    }

    pub fn lower(&self) -> Score {
        Score(i16_at(self.bytes, 34).into())
    }

    pub fn upper(&self) -> Score {
        Score(i16_at(self.bytes, 36).into())
    }

    pub fn n_links(&self) -> usize {
        self.bytes[38] as usize
    }

    pub fn level(&self) -> u8 {
        self.bytes[39]
    }

    /// Bytes the record takes in the file.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// Raw (score, move code) pair of a slot; codes are checked at load.
    fn raw(&self, slot: Slot) -> (i8, u8) {
        let at = match slot {
            Slot::Link(i) => 40 + 2 * i,
            Slot::Leaf => self.bytes.len() - 2,
        };
        (self.bytes[at] as i8, self.bytes[at + 1])
    }

    fn link_at(&self, slot: Slot) -> Option<Link> {
        let (score, code) = self.raw(slot);
        Move::from_code(code).map(|mv| Link { score: Score(score.into()), mv })
    }

    /// The links in stored order. A link whose code is not a move is left
    /// out: [`crate::book::Book::open`] rejects books that have one, and
    /// `verify` reads codes through [`Record::load_problems`] instead.
    pub fn links(&self) -> impl Iterator<Item = Link> + 'a {
        let this = *self;
        (0..this.n_links()).filter_map(move |i| this.link_at(Slot::Link(i)))
    }

    /// The leaf, unless its move is 65 ("no move").
    pub fn leaf(&self) -> Option<Link> {
        self.link_at(Slot::Leaf)
    }

    /// The `i`-th move in walk order (links, then the leaf).
    pub fn move_at(&self, i: usize) -> Option<Link> {
        match i.cmp(&self.n_links()) {
            std::cmp::Ordering::Less => self.link_at(Slot::Link(i)),
            std::cmp::Ordering::Equal => self.leaf(),
            std::cmp::Ordering::Greater => None,
        }
    }

    /// Links in stored order, then the leaf: the order the walk follows them.
    pub fn moves(&self) -> impl Iterator<Item = Link> + 'a {
        self.links().chain(self.leaf())
    }

    /// The checks `mine` makes on every record at load (SPEC §7): move codes,
    /// overlapping discs, empty centre squares. Problems are appended to
    /// `problems`, which the caller reuses so a clean record allocates nothing.
    pub fn load_problems(&self, problems: &mut Vec<Problem>) {
        for i in 0..self.n_links() {
            let slot = Slot::Link(i);
            match self.raw(slot).1 {
                Move::NONE_CODE => problems.push(Problem::NoMoveLink { slot }),
                code if code > Move::NONE_CODE => problems.push(Problem::BadMoveCode { slot, code }),
                _ => {}
            }
        }
        let leaf_code = self.raw(Slot::Leaf).1;
        if leaf_code > Move::NONE_CODE {
            problems.push(Problem::BadMoveCode { slot: Slot::Leaf, code: leaf_code });
        }
        let board = self.board();
        if board.player & board.opponent != 0 {
            problems.push(Problem::Overlap { squares: board.player & board.opponent });
        }
        if board.empty() & CENTRE != 0 {
            problems.push(Problem::EmptyCentre { squares: board.empty() & CENTRE });
        }
    }
}

/// The record starting at `offset`, or the truncation that stops it.
pub fn next_record(file: &[u8], offset: usize) -> Result<Record<'_>, Problem> {
    let left = file.len().saturating_sub(offset);
    if left < RECORD_MIN_LEN {
        return Err(Problem::Truncated { needed: RECORD_MIN_LEN as u64, left: left as u64 });
    }
    let len = RECORD_MIN_LEN + 2 * file[offset + 38] as usize;
    if left < len {
        return Err(Problem::Truncated { needed: len as u64, left: left as u64 });
    }
    Ok(Record { bytes: &file[offset..offset + len] })
}

/// The records of a file after its header, each with its 1-based number and
/// byte offset, ending with the truncation error if the file is cut short.
pub fn records(file: &[u8]) -> impl Iterator<Item = Result<(u64, usize, Record<'_>), FormatError>> {
    let mut offset = HEADER_LEN;
    let mut number = 0u64;
    let mut done = file.len() <= HEADER_LEN;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        number += 1;
        match next_record(file, offset) {
            Ok(record) => {
                let at = offset;
                offset += record.byte_len();
                done = offset >= file.len();
                Some(Ok((number, at, record)))
            }
            Err(problem) => {
                done = true;
                Some(Err(FormatError { record: Some(number), offset: offset as u64, problem }))
            }
        }
    })
}

/// Writes a record in the book's layout; used by the book writer and tests.
pub fn encode_record(
    out: &mut Vec<u8>,
    board: &Board,
    counts: [u32; 4],
    values: [i16; 3],
    level: u8,
    links: &[Link],
    leaf: Option<Link>,
) {
    out.extend_from_slice(&board.player.to_le_bytes());
    out.extend_from_slice(&board.opponent.to_le_bytes());
    for c in counts {
        out.extend_from_slice(&c.to_le_bytes());
    }
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.push(u8::try_from(links.len()).expect("at most 255 links"));
    out.push(level);
    let clamp = |s: Score| s.0.clamp(i8::MIN.into(), i8::MAX.into()) as i8 as u8;
    for link in links {
        out.extend_from_slice(&[clamp(link.score), link.mv.code()]);
    }
    match leaf {
        Some(l) => out.extend_from_slice(&[clamp(l.score), l.mv.code()]),
        None => out.extend_from_slice(&[0, Move::NONE_CODE]),
    }
}

/// Writes a header in the book's layout.
pub fn encode_header(out: &mut Vec<u8>, header: &Header) {
    out.extend_from_slice(&MAGIC_EDAX.to_le_bytes());
    out.extend_from_slice(&MAGIC_BOOK.to_le_bytes());
    out.push(header.version);
    out.push(header.release);
    let (y, mo, d, h, mi, s) = header.date;
    out.extend_from_slice(&y.to_le_bytes());
    out.extend_from_slice(&[mo, d, h, mi, s, 0]);
    for v in [header.level, header.n_empties, header.midgame_error, header.endcut_error, header.verbosity, header.n_nodes] {
        out.extend_from_slice(&v.to_le_bytes());
    }
}
