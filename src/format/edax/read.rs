//! The Edax `book.dat` reader (docs/formats.md, Edax books): the 42-byte header, position records
//! read in place from the file's bytes, the checks made at load, and where
//! each record starts.

use super::leaf::leaf_of_pair;
use crate::board::{Board, Move, CENTRE};
use crate::record::problem::{FormatError, MoveSlot, Problem};
use crate::record::{Details, Leaf, Link, Record, RecordId, Score};
use smallvec::SmallVec;

/// The header's size.
pub const HEADER_LEN: usize = 42;
/// A record without links: board, counts, values, n_link, level and the leaf.
pub const RECORD_MIN_LEN: usize = 42;
/// A record's board, its first bytes: the player's discs, then the
/// opponent's (2 × u64).
pub const BOARD_LEN: usize = 16;
/// Where a record's wins, draws, losses and lines are (4 × u32): after its board.
pub const COUNTS_AT: usize = BOARD_LEN;
/// Where a record's value, lower and upper bounds are (3 × i16).
pub const VALUE_AT: usize = 32;
/// Where a record's link count is.
pub const N_LINK_AT: usize = 38;
/// Where a record's level is.
const LEVEL_AT: usize = 39;
/// Where a record's links start: (score, move code) byte pairs.
pub const LINKS_AT: usize = 40;
/// A record with the most links a record can count (255).
pub const RECORD_MAX_LEN: usize = RECORD_MIN_LEN + 2 * 255;
/// The 8 bytes an Edax book starts with: its two magic numbers, 0x45444158
/// and 0x424F4F4B, little-endian.
pub const MAGIC: [u8; 8] = *b"XADEKOOB";
/// Where the header's record count (`n_nodes`) starts.
pub const N_NODES_AT: usize = 38;
/// The version bookminer reads and writes.
pub const VERSION: u8 = 4;

/// The file header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The book format's version.
    pub version: u8,
    /// Its release.
    pub release: u8,
    /// year, month, day, hour, minute, second
    pub date: (i16, u8, u8, u8, u8, u8),
    /// The level the book was built at.
    pub level: i32,
    /// Its `n_empties` field (`check` plays `61 - n_empties` moves of a game).
    pub n_empties: i32,
    /// The midgame error of its searches.
    pub midgame_error: i32,
    /// The endcut error of its searches.
    pub endcut_error: i32,
    /// Its `verbosity` field.
    pub verbosity: i32,
    /// What the header claims; the records in the file are what count.
    pub n_nodes: i32,
}

impl Header {
    /// The search errors the header records, which widen the bounds of a
    /// position whose only knowledge is its leaf's search.
    pub fn search_errors(&self) -> crate::negamax::SearchErrors {
        crate::negamax::SearchErrors { midgame: self.midgame_error, endcut: self.endcut_error }
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

/// True when the bytes start like an Edax book.
pub fn is_edax(file: &[u8]) -> bool {
    file.starts_with(&MAGIC)
}

/// Reads the header, checking size, magic and version. A file shorter than
/// the header is called short only if it starts as an Edax book could (an
/// empty file too); other short files are no Edax book at all.
pub fn parse_header(file: &[u8]) -> Result<Header, FormatError> {
    let at_start = |problem| FormatError { record: None, offset: 0, problem };
    let begins_like_edax = MAGIC.starts_with(&file[..file.len().min(MAGIC.len())]);
    if !begins_like_edax {
        let found = file[..file.len().min(9)].to_vec();
        return Err(at_start(Problem::BadMagic { found, len: file.len() as u64 }));
    }
    if file.len() < HEADER_LEN {
        return Err(at_start(Problem::ShortHeader { len: file.len() as u64, needed: HEADER_LEN as u64 }));
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
        n_nodes: i32_at(file, N_NODES_AT),
    };
    if header.version != VERSION {
        return Err(FormatError {
            record: None,
            offset: 8,
            problem: Problem::BadVersion { found: header.version, expected: VERSION },
        });
    }
    Ok(header)
}

/// A position record, read in place. Only [`next_record`] makes one, after
/// checking its length, so the accessors index within bounds.
#[derive(Clone, Copy, Debug)]
pub struct RawRecord<'a> {
    bytes: &'a [u8],
}

impl<'a> RawRecord<'a> {
    /// The board, as stored.
    pub fn board(&self) -> Board {
        Board::new(u64_at(self.bytes, 0), u64_at(self.bytes, 8))
    }

    /// Wins, draws, losses and lines below this position.
    pub fn counts(&self) -> [u32; 4] {
        [u32_at(self.bytes, 16), u32_at(self.bytes, 20), u32_at(self.bytes, 24), u32_at(self.bytes, 28)]
    }

    /// The position's stored value.
    pub fn value(&self) -> Score {
        self.score_at(32)
    }

    fn score_at(&self, at: usize) -> Score {
        Score(i16_at(self.bytes, at).into())
    }

    /// The stored lower and upper bounds of the value.
    pub fn bounds(&self) -> (Score, Score) {
        (self.score_at(VALUE_AT + 2), self.score_at(VALUE_AT + 4))
    }

    /// The level byte as stored.
    pub fn level(&self) -> u8 {
        self.bytes[LEVEL_AT]
    }

    /// The record's bytes, as the file holds them.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The number of links, as the record's length says: the count byte
    /// was read once, when [`next_record`] measured the record, and is not
    /// read again, so a book rewritten under its map cannot make a record
    /// claim more links than its bytes hold.
    pub fn n_links(&self) -> usize {
        (self.bytes.len() - RECORD_MIN_LEN) / 2
    }

    /// The leaf: `None` for Edax's "no leaf" (−127, move 65); a leaf
    /// without a move for any other score beside move 65 (a finished
    /// game's), which Edax's negamax takes ([`super::leaf`]).
    pub fn leaf(&self) -> Option<Leaf> {
        leaf_of_pair(self.raw(MoveSlot::Leaf))
    }

    /// The leaf's (score, move code) pair as stored, move 65 included.
    pub(crate) fn raw_leaf(&self) -> (i8, u8) {
        self.raw(MoveSlot::Leaf)
    }

    /// Bytes the record takes in the file.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// Raw (score, move code) pair of a slot; codes are checked at load.
    fn raw(&self, slot: MoveSlot) -> (i8, u8) {
        let at = match slot {
            MoveSlot::Link(i) => LINKS_AT + 2 * i,
            MoveSlot::Leaf => self.bytes.len() - 2,
        };
        (self.bytes[at] as i8, self.bytes[at + 1])
    }

    /// The link or leaf in a slot, if its code is a move.
    pub fn link_at(&self, slot: MoveSlot) -> Option<Link> {
        let (score, code) = self.raw(slot);
        Move::from_code(code).map(|mv| Link::new(Score(score.into()), mv))
    }

    /// How many of the links [`RawRecord::to_record`] keeps: those whose
    /// codes are moves.
    pub fn links_that_are_moves(&self) -> usize {
        let pairs = &self.bytes[LINKS_AT..LINKS_AT + 2 * self.n_links()];
        pairs.chunks_exact(2).filter(|pair| Move::from_code(pair[1]).is_some()).count()
    }

    /// Whether the record has a leaf (its move code is not 65).
    pub fn has_leaf(&self) -> bool {
        self.link_at(MoveSlot::Leaf).is_some()
    }

    /// The format-neutral view. A link whose code is not a move is left
    /// out: [`crate::book::Book::open`] rejects books that have one, and
    /// `verify` reads codes through [`RawRecord::load_problems`] instead.
    pub fn to_record(&self, id: RecordId, offset: u64) -> Record {
        Record {
            id,
            offset,
            board: self.board(),
            value: self.value(),
            level: self.level().into(),
            links: self.links(),
            leaf: self.link_at(MoveSlot::Leaf),
            details: Details::Edax { counts: self.counts(), lower: self.bounds().0, upper: self.bounds().1 },
        }
    }

    /// The links whose codes are moves, read pair by pair: the walk reads
    /// a record at every position, so this is one pass over the bytes. (It
    /// decodes a pair as [`RawRecord::link_at`] does; sharing one helper
    /// changed how the compiler inlined the resolver's loop, +20%
    /// instructions there on the 1M book.)
    fn links(&self) -> SmallVec<[Link; 8]> {
        let pairs = &self.bytes[LINKS_AT..LINKS_AT + 2 * self.n_links()];
        let mut links = SmallVec::with_capacity(self.n_links());
        for pair in pairs.chunks_exact(2) {
            if let Some(mv) = Move::from_code(pair[1]) {
                links.push(Link::new(Score((pair[0] as i8).into()), mv));
            }
        }
        links
    }

    /// The checks `mine` makes on every record at load (docs/formats.md, what is checked): move codes,
    /// overlapping discs, empty centre squares. Problems are appended to
    /// `problems`, which the caller reuses so a clean record allocates nothing.
    pub fn load_problems(&self, problems: &mut Vec<Problem>) {
        for i in 0..self.n_links() {
            let slot = MoveSlot::Link(i);
            match self.raw(slot).1 {
                Move::NONE_CODE => problems.push(Problem::NoMoveLink { slot }),
                code if code > Move::NONE_CODE => problems.push(Problem::BadMoveCode { slot, code }),
                _ => {}
            }
        }
        let leaf_code = self.raw(MoveSlot::Leaf).1;
        if leaf_code > Move::NONE_CODE {
            problems.push(Problem::BadMoveCode { slot: MoveSlot::Leaf, code: leaf_code });
        }
        board_problems(&self.board(), problems);
    }
}

/// Overlapping discs and empty centre squares: what makes a board no
/// position at all, in either format.
pub(crate) fn board_problems(board: &Board, problems: &mut Vec<Problem>) {
    if board.player & board.opponent != 0 {
        problems.push(Problem::Overlap { squares_hit: board.player & board.opponent });
    }
    if board.empty() & CENTRE != 0 {
        problems.push(Problem::EmptyCentre { squares_hit: board.empty() & CENTRE });
    }
}

/// The record starting at `offset`, if the file holds it whole: for
/// readers of a book already checked, which need no reason.
#[inline]
pub fn record_at(file: &[u8], offset: usize) -> Option<RawRecord<'_>> {
    let bytes = file.get(offset..offset + RECORD_MIN_LEN + 2 * n_links_at(file, offset)?)?;
    Some(RawRecord { bytes })
}

/// How many links the record starting at `offset` counts, read alone.
#[inline]
pub fn n_links_at(file: &[u8], offset: usize) -> Option<usize> {
    file.get(offset + N_LINK_AT).map(|&n| usize::from(n))
}

/// The record starting at `offset`, or the truncation that stops it.
pub fn next_record(file: &[u8], offset: usize) -> Result<RawRecord<'_>, Problem> {
    let left = file.len().saturating_sub(offset);
    if left < RECORD_MIN_LEN {
        return Err(Problem::Truncated { needed: RECORD_MIN_LEN as u64, left: left as u64 });
    }
    let len = RECORD_MIN_LEN + 2 * file[offset + N_LINK_AT] as usize;
    if left < len {
        return Err(Problem::Truncated { needed: len as u64, left: left as u64 });
    }
    Ok(RawRecord { bytes: &file[offset..offset + len] })
}

/// The records of a file after its header, each with its id and byte offset,
/// ending with the truncation error if the file is cut short.
pub fn records(file: &[u8]) -> impl Iterator<Item = Result<(RecordId, usize, RawRecord<'_>), FormatError>> {
    records_from(file, HEADER_LEN, RecordId(0))
}

/// [`records`] from the record `first`, which starts at byte `offset`.
pub fn records_from(
    file: &[u8],
    offset: usize,
    first: RecordId,
) -> impl Iterator<Item = Result<(RecordId, usize, RawRecord<'_>), FormatError>> {
    let mut offset = offset;
    let mut next_id = u64::from(first.0);
    let mut done = file.len() <= offset;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let at = offset;
        let failed = |problem| FormatError { record: Some(next_id + 1), offset: at as u64, problem };
        let Ok(id) = u32::try_from(next_id) else {
            done = true;
            return Some(Err(failed(Problem::TooManyRecords { limit: RecordId::MAX_RECORDS })));
        };
        match next_record(file, offset) {
            Ok(record) => {
                next_id += 1;
                offset += record.byte_len();
                done = offset >= file.len();
                Some(Ok((RecordId(id), at, record)))
            }
            Err(problem) => {
                done = true;
                Some(Err(failed(problem)))
            }
        }
    })
}

/// The records of a file that are whole, found by reading only each one's
/// link count (its length): where each starts, how many there are, and
/// where the first that is not whole (or the end) is. Knowing where every
/// record starts lets them be checked in runs, a thread each.
pub struct WholeRecords {
    /// Where they start.
    pub starts: Starts,
    /// Records found whole, from the first; fewer than `u32::MAX`, so that
    /// the record after them has an id.
    pub count: usize,
    /// Where the record after them starts: the end of the file, or one that
    /// is cut short, which [`records_from`] there reports.
    pub end: usize,
}

/// [`WholeRecords`] of a file.
pub fn whole_records(file: &[u8]) -> WholeRecords {
    let mut starts = Starts::default();
    let (mut count, mut offset) = (0usize, HEADER_LEN);
    while count < u32::MAX as usize {
        let Ok(record) = next_record(file, offset) else { break };
        starts.note(RecordId(count as u32), offset as u64);
        offset += record.byte_len();
        count += 1;
    }
    WholeRecords { starts, count, end: offset }
}

/// How many links the records before `id`, which starts at byte `offset`,
/// store: every record takes [`RECORD_MIN_LEN`] bytes and 2 more per link.
pub fn links_before(id: RecordId, offset: u64) -> u64 {
    offset.saturating_sub(HEADER_LEN as u64 + RECORD_MIN_LEN as u64 * u64::from(id.0)) / 2
}

/// How many records share one entry of [`Starts`].
pub const STARTS_EVERY: usize = 4096;

/// Every hint [`Starts`] gives is below this: a record's distance from the
/// last kept start, past at most [`STARTS_EVERY`] records of at most
/// [`RECORD_MAX_LEN`] bytes. Where hints are stored checks it fits.
pub const HINT_END: usize = STARTS_EVERY * RECORD_MAX_LEN;

/// Where each record starts, kept compactly: the offset of every 4096th
/// record, and (in the index, beside each id) each record's distance from
/// the last of those, below [`HINT_END`] (under 2^22). Every record a walk
/// enters or asks for is found through the offsets, so they are kept few
/// enough to stay in the core's own cache: 195 KB for 100M records (780 KB
/// at every 1024th). The distance of every [`FINE_EVERY`]th record is kept
/// here too, for finding a record from its id alone.
#[derive(Debug, Default)]
pub struct Starts {
    every: Vec<u64>,
    /// The hint of every [`FINE_EVERY`]th record.
    fine: Vec<u32>,
}

/// Records whose hint [`Starts`] keeps: every this many (a divisor of
/// [`STARTS_EVERY`]). Finding a record from its id walks at most this many
/// less one: a book's parents, looked up by id, were found by walking half
/// of [`STARTS_EVERY`] records each, at 4 bytes of memory a 64 records.
const FINE_EVERY: usize = 64;
const _: () = assert!(STARTS_EVERY.is_multiple_of(FINE_EVERY));

impl Starts {
    /// Notes a record's offset while the records are read in order.
    pub fn note(&mut self, id: RecordId, offset: u64) {
        if id.index().is_multiple_of(STARTS_EVERY) {
            self.every.push(offset);
        }
        if id.index().is_multiple_of(FINE_EVERY) {
            self.fine.push(self.hint(id, offset));
        }
    }

    /// The distance of a record from the last noted start before it.
    pub fn hint(&self, id: RecordId, offset: u64) -> u32 {
        (offset - self.every[id.index() / STARTS_EVERY]) as u32
    }

    /// Where a record starts, from its id and hint.
    #[inline]
    pub fn offset(&self, id: RecordId, hint: u32) -> u64 {
        self.every[id.index() / STARTS_EVERY] + u64::from(hint)
    }

    /// Where a record starts, from its id alone: read by walking the
    /// records from the last noted fine start (at most 63 of them).
    pub fn offset_by_walking(&self, file: &[u8], id: RecordId) -> Option<u64> {
        let every = *self.every.get(id.index() / STARTS_EVERY)?;
        let mut offset = every + u64::from(*self.fine.get(id.index() / FINE_EVERY)?);
        for _ in 0..id.index() % FINE_EVERY {
            offset += next_record(file, offset as usize).ok()?.byte_len() as u64;
        }
        Some(offset)
    }
}
