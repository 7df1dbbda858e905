//! The Egaroucid `.egbk3` reader (docs/formats.md, Egaroucid books): a 14-byte header, then 25-byte
//! records holding a board, its value and its leaf. Links are not stored:
//! they are the board's legal moves whose child is in the book, found here
//! through the book's index.
//!
//! Egaroucid numbers squares from the other corner (its bit 63 is A1), so
//! its boards read in our bit order are their 180° rotations: one of the
//! eight symmetries, under which normalization and legality are unchanged.
//! Boards and the leaf move are therefore read as they are, in the stored
//! board's coordinates, exactly as Edax's are.

use crate::board::{Board, Move, Square};
use crate::format::edax::read::board_problems;
use crate::record::problem::{FormatError, Problem};
use crate::record::{Details, Link, Record, RecordId, Score};
use crate::symmetry::{normalize, Normalized, Placement};
use smallvec::SmallVec;

/// The bytes every Egaroucid book starts with.
pub const MAGIC: &[u8; 9] = b"DICUORAGE";
/// The header's size.
pub const HEADER_LEN: usize = 14;
/// A record's size.
pub const RECORD_LEN: usize = 25;
/// Where a record's value is (i8).
pub const VALUE_AT: usize = 16;
/// Where a record's level is (i8).
pub const LEVEL_AT: usize = 17;
/// Where a record's leaf is: its value (i8), move and level (i8).
pub const LEAF_AT: usize = 22;
/// The version bookminer reads and writes.
pub const VERSION: u8 = 3;
/// Values outside this range mean "no value": the record is not part of the
/// book, and a leaf with such a value does not exist.
const VALUE_RANGE: std::ops::RangeInclusive<i32> = -64..=64;
/// The leaf move and value Egaroucid writes for "no leaf".
pub const NO_LEAF_MOVE: u8 = 125;
/// The value Egaroucid writes for "no value".
pub const NO_VALUE: i8 = -126;

/// The file header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The version stored.
    pub version: u8,
    /// What the header claims; the records in the file are what count.
    pub n_boards: i32,
}

/// True when the bytes start like an Egaroucid book.
pub fn is_egaroucid(file: &[u8]) -> bool {
    file.starts_with(MAGIC)
}

/// Where the header's record count starts.
pub const N_BOARDS_AT: usize = 10;

/// Reads the header, checking size, magic and version.
pub fn parse_header(file: &[u8]) -> Result<Header, FormatError> {
    let at = |offset, problem| FormatError { record: None, offset, problem };
    if file.len() < HEADER_LEN {
        return Err(at(0, Problem::ShortHeader { len: file.len() as u64, needed: HEADER_LEN as u64 }));
    }
    if !is_egaroucid(file) {
        return Err(at(0, Problem::BadMagic { found: file[..MAGIC.len()].to_vec(), len: file.len() as u64 }));
    }
    let count = &file[N_BOARDS_AT..N_BOARDS_AT + 4];
    let header = Header { version: file[9], n_boards: i32::from_le_bytes(count.try_into().expect("4 bytes")) };
    if header.version != VERSION {
        return Err(at(9, Problem::BadVersion { found: header.version, expected: VERSION }));
    }
    Ok(header)
}

/// A record read in place: always exactly [`RECORD_LEN`] bytes.
#[derive(Clone, Copy, Debug)]
pub struct RawRecord<'a> {
    bytes: &'a [u8; RECORD_LEN],
}

impl<'a> RawRecord<'a> {
    /// The record's bytes, as stored.
    #[inline]
    pub fn bytes(&self) -> &'a [u8; RECORD_LEN] {
        self.bytes
    }

    #[inline]
    /// The board, as the record's bytes hold it.
    pub fn board(&self) -> Board {
        let word = |at: usize| u64::from_le_bytes(self.bytes[at..at + 8].try_into().expect("8 bytes"));
        Board::new(word(0), word(8))
    }

    /// The stored value, which may be out of range (see [`RawRecord::is_in_book`]).
    #[inline]
    pub fn raw_value(&self) -> i32 {
        (self.bytes[VALUE_AT] as i8).into()
    }

    /// Whether the record counts: its value is within −64..64.
    #[inline]
    pub fn is_in_book(&self) -> bool {
        VALUE_RANGE.contains(&self.raw_value())
    }

    #[inline]
    /// Its level.
    pub fn level(&self) -> i8 {
        self.bytes[LEVEL_AT] as i8
    }

    #[inline]
    /// Its `n_lines` field.
    pub fn n_lines(&self) -> u32 {
        u32::from_le_bytes(self.bytes[18..22].try_into().expect("4 bytes"))
    }

    /// The leaf as stored: its move and value, if it exists.
    #[inline]
    pub fn leaf(&self) -> Option<Link> {
        let value: i32 = (self.bytes[LEAF_AT] as i8).into();
        let mv = Move::from_code(self.bytes[LEAF_AT + 1])?;
        VALUE_RANGE.contains(&value).then_some(Link::new(Score(value), mv))
    }

    #[inline]
    fn leaf_level(&self) -> i8 {
        self.bytes[LEAF_AT + 2] as i8
    }

    /// The format-neutral view, with links found by `lookup` (docs/formats.md, Egaroucid books).
    pub fn to_record(&self, id: RecordId, lookup: &impl Lookup) -> Record {
        self.with_links(id, links_of(&self.board(), lookup), self.leaf_then_pass())
    }

    /// Whether the side to move must pass after the leaf's move: false
    /// without a leaf, or with an illegal one.
    pub fn leaf_then_pass(&self) -> bool {
        let board = self.board();
        self.leaf().is_some_and(|leaf| board.after(leaf.mv).is_some_and(|child| child.must_pass()))
    }

    /// The format-neutral view, given the record's links (see [`links_of`])
    /// and [`RawRecord::leaf_then_pass`].
    pub fn with_links(&self, id: RecordId, links: SmallVec<[Link; 8]>, leaf_then_pass: bool) -> Record {
        let board = self.board();
        // A leaf whose move is linked is not followed a second time.
        let leaf = self
            .leaf()
            .filter(|leaf| !links.iter().any(|l| l.mv == leaf.mv))
            .map(|leaf| Link { then_pass: leaf_then_pass, ..leaf });
        Record {
            id,
            offset: offset_of(id),
            board,
            value: Score(self.raw_value()),
            level: self.level().into(),
            links,
            leaf,
            details: Details::Egaroucid {
                n_lines: self.n_lines(),
                stored_leaf: self.leaf(),
                leaf_level: self.leaf_level(),
            },
        }
    }

    /// The checks `mine` makes on every record at load (docs/formats.md, Egaroucid books).
    pub fn load_problems(&self, problems: &mut Vec<Problem>) {
        board_problems(&self.board(), problems);
    }
}

/// Where a record starts.
#[inline]
pub fn offset_of(id: RecordId) -> u64 {
    HEADER_LEN as u64 + RECORD_LEN as u64 * u64::from(id.0)
}

/// The record with this id, if the file holds it whole.
#[inline]
pub fn record_at(file: &[u8], id: RecordId) -> Option<RawRecord<'_>> {
    let at = usize::try_from(offset_of(id)).ok()?;
    let bytes = file.get(at..at.checked_add(RECORD_LEN)?)?;
    Some(RawRecord { bytes: bytes.try_into().expect("RECORD_LEN bytes") })
}

/// The whole records after the header, each with its id and byte offset,
/// ending with an error if the file ends inside a record.
pub fn records(file: &[u8]) -> impl Iterator<Item = Result<(RecordId, usize, RawRecord<'_>), FormatError>> {
    let body = file.get(HEADER_LEN..).unwrap_or_default();
    let whole = body.chunks_exact(RECORD_LEN);
    let left = whole.remainder().len();
    let count = whole.len() as u64;
    let records = whole.enumerate().map(|(i, bytes)| {
        let id = u32::try_from(i).map_err(|_| FormatError {
            record: Some(i as u64 + 1),
            offset: (HEADER_LEN + i * RECORD_LEN) as u64,
            problem: Problem::TooManyRecords { limit: RecordId::MAX_RECORDS },
        })?;
        Ok((
            RecordId(id),
            HEADER_LEN + i * RECORD_LEN,
            RawRecord { bytes: bytes.try_into().expect("RECORD_LEN bytes") },
        ))
    });
    let truncated = (left > 0).then(|| {
        Err(FormatError {
            record: Some(count + 1),
            offset: HEADER_LEN as u64 + count * RECORD_LEN as u64,
            problem: Problem::Truncated { needed: RECORD_LEN as u64, left: left as u64 },
        })
    });
    records.chain(truncated)
}

/// How the reader asks the book about other positions. A lookup runs in
/// stages, so that the cache misses of many lookups overlap: every probe is
/// started, then every probe's next stage is asked for, then the values are
/// read.
pub trait Lookup {
    /// What a started lookup carries from stage to stage.
    type Probe;
    /// How the caller names the record a lookup finds.
    type Found: Copy;
    /// Starts looking up a stored (normalized) board: works out what the
    /// later stages need and starts loading what they will read first.
    fn start(&self, stored: &Board) -> Self::Probe;
    /// Starts loading what [`Lookup::find`] will read next, once what
    /// [`Lookup::start`] asked for has had time to arrive.
    fn prefetch_next(&self, _probe: &Self::Probe) {}
    /// The board's record and its value, if it is in the book.
    fn find(&self, probe: &Self::Probe) -> Option<(Self::Found, Score)>;
}

/// A link, and the record its child is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoundLink<F> {
    /// The link, in the record's coordinates.
    pub link: Link,
    /// The child's record.
    pub child: F,
    /// How the child's stored board lies on the position the link reaches
    /// (after the pass, if one follows), in the record's coordinates.
    pub placement: Placement,
}

/// A legal move of a stored board (or its pass), with the child to look up
/// for it (docs/formats.md, Egaroucid books).
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    /// The move.
    pub mv: Move,
    /// The position right after the move.
    after: Board,
    /// The child as the book would store it: the position after the move,
    /// or after its pass when its side to move must pass; normalized.
    pub child: Normalized,
    then_pass: bool,
    /// Neither side can move after the move.
    game_over: bool,
}

impl Candidate {
    /// The child to look up when [`Candidate::child`] is not in the book:
    /// when the game is over after the move, the final position as stored
    /// from the other side.
    #[inline]
    pub fn other_child(&self) -> Option<Normalized> {
        self.game_over.then(|| normalize(&self.after.swapped()))
    }

    /// The link to [`Candidate::child`], found in the book with `value`.
    #[inline]
    pub fn link<F>(&self, child: F, value: Score) -> FoundLink<F> {
        self.scored(child, value, self.then_pass, self.child.placement())
    }

    /// The link to [`Candidate::other_child`] (`other`), found in the book
    /// with `value`: the line gets a pass after the move.
    #[inline]
    pub fn link_to_other<F>(&self, child: F, value: Score, other: &Normalized) -> FoundLink<F> {
        self.scored(child, value, true, other.placement())
    }

    /// A link scored by its child's value: negated, unless a pass follows
    /// the move and the child's side to move is this record's.
    #[inline]
    fn scored<F>(&self, child: F, value: Score, then_pass: bool, placement: Placement) -> FoundLink<F> {
        let score = if then_pass { value } else { Score(-value.0) };
        FoundLink { link: Link { score, mv: self.mv, then_pass }, child, placement }
    }
}

/// The children a board's legal moves lead to (a pass, if it must pass), in
/// increasing square number, each normalized for its lookup.
#[inline]
pub fn candidates(board: &Board) -> impl Iterator<Item = Candidate> + '_ {
    let legal = board.legal_moves();
    Candidates { board, legal, pass: legal == 0 && board.must_pass() }
}

/// [`candidates`]: a loop of its own rather than iterator adaptors, so
/// that the walk's resolving, which runs it for every record, has it
/// inlined.
struct Candidates<'a> {
    board: &'a Board,
    /// The legal moves not yet tried.
    legal: u64,
    /// The pass is still to try.
    pass: bool,
}

impl Iterator for Candidates<'_> {
    type Item = Candidate;

    #[inline]
    fn next(&mut self) -> Option<Candidate> {
        loop {
            let mv = if self.legal != 0 {
                let square = Square::new(self.legal.trailing_zeros() as u8)?;
                self.legal &= self.legal - 1;
                Move::Play(square)
            } else if std::mem::take(&mut self.pass) {
                Move::Pass
            } else {
                return None;
            };
            if let Some(candidate) = candidate(self.board, mv) {
                return Some(candidate);
            }
        }
    }
}

/// The child a move leads to, if the move is legal.
#[inline]
fn candidate(board: &Board, mv: Move) -> Option<Candidate> {
    let after = board.after(mv)?;
    let (then_pass, game_over) = if after.has_moves() {
        (false, false)
    } else {
        let replies = after.swapped().has_moves();
        (replies, !replies)
    };
    let child = normalize(&if then_pass { after.swapped() } else { after });
    Some(Candidate { mv, after, child, then_pass, game_over })
}

/// The links of a stored board (docs/formats.md, Egaroucid books): its legal moves, in increasing
/// square number, whose child is in the book, each scored by the child's
/// value (negated unless a pass follows the move). A board whose side to
/// move must pass has at most one link, the pass. The lookups run stage by
/// stage, all candidates together, so that their cache misses overlap.
pub fn links_of(board: &Board, lookup: &impl Lookup) -> SmallVec<[Link; 8]> {
    found_links_of(board, lookup).into_iter().map(|found| found.link).collect()
}

/// [`links_of`], each link with the record its child is and how it lies.
pub fn found_links_of<L: Lookup>(board: &Board, lookup: &L) -> SmallVec<[FoundLink<L::Found>; 8]> {
    let started: SmallVec<[_; 16]> = candidates(board).map(|c| (lookup.start(&c.child.board), c)).collect();
    for (probe, _) in &started {
        lookup.prefetch_next(probe);
    }
    let mut links = SmallVec::new();
    for (probe, candidate) in &started {
        let found = match lookup.find(probe) {
            Some((child, value)) => Some(candidate.link(child, value)),
            None => candidate.other_child().and_then(|other| {
                let (child, value) = lookup.find(&lookup.start(&other.board))?;
                Some(candidate.link_to_other(child, value, &other))
            }),
        };
        links.extend(found);
    }
    links
}
