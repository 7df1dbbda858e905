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
use crate::book::edax::board_problems;
use crate::book::problem::{FormatError, Problem};
use crate::book::record::{Details, Link, Record, RecordId, Score};
use crate::symmetry::{normalize, Normalized, Placement};
use smallvec::SmallVec;

/// The bytes every Egaroucid book starts with.
pub const MAGIC: &[u8; 9] = b"DICUORAGE";
pub const HEADER_LEN: usize = 14;
pub const RECORD_LEN: usize = 25;
/// Where a record's value is (i8).
pub const VALUE_AT: usize = 16;
pub const VERSION: u8 = 3;
/// Values outside this range mean "no value": the record is not part of the
/// book, and a leaf with such a value does not exist.
const VALUE_RANGE: std::ops::RangeInclusive<i32> = -64..=64;
/// The leaf move and value Egaroucid writes for "no leaf".
pub const NO_LEAF_MOVE: u8 = 125;
pub const NO_VALUE: i8 = -126;

/// The file header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub version: u8,
    /// What the header claims; the records in the file are what count.
    pub n_boards: i32,
}

/// True when the bytes start like an Egaroucid book.
pub fn is_egaroucid(file: &[u8]) -> bool {
    file.starts_with(MAGIC)
}

/// Reads the header, checking size, magic and version.
pub fn parse_header(file: &[u8]) -> Result<Header, FormatError> {
    let at = |offset, problem| FormatError { record: None, offset, problem };
    if file.len() < HEADER_LEN {
        return Err(at(0, Problem::ShortHeader { len: file.len() as u64, needed: HEADER_LEN as u64 }));
    }
    if !is_egaroucid(file) {
        return Err(at(0, Problem::BadMagic { found: file[..MAGIC.len()].to_vec(), len: file.len() as u64 }));
    }
    let header = Header { version: file[9], n_boards: i32::from_le_bytes(file[10..14].try_into().expect("4 bytes")) };
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
    pub fn bytes(&self) -> &'a [u8; RECORD_LEN] {
        self.bytes
    }

    pub fn board(&self) -> Board {
        let word = |at: usize| u64::from_le_bytes(self.bytes[at..at + 8].try_into().expect("8 bytes"));
        Board::new(word(0), word(8))
    }

    /// The stored value, which may be out of range (see [`RawRecord::is_in_book`]).
    pub fn raw_value(&self) -> i32 {
        (self.bytes[VALUE_AT] as i8).into()
    }

    /// Whether the record counts: its value is within −64..64.
    pub fn is_in_book(&self) -> bool {
        VALUE_RANGE.contains(&self.raw_value())
    }

    pub fn level(&self) -> i8 {
        self.bytes[17] as i8
    }

    pub fn n_lines(&self) -> u32 {
        u32::from_le_bytes(self.bytes[18..22].try_into().expect("4 bytes"))
    }

    /// The leaf as stored: its move and value, if it exists.
    pub fn leaf(&self) -> Option<Link> {
        let value: i32 = (self.bytes[22] as i8).into();
        let mv = Move::from_code(self.bytes[23])?;
        VALUE_RANGE.contains(&value).then_some(Link::new(Score(value), mv))
    }

    fn leaf_level(&self) -> i8 {
        self.bytes[24] as i8
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
            details: Details::Egaroucid { n_lines: self.n_lines(), leaf_level: self.leaf_level() },
        }
    }

    /// The checks `mine` makes on every record at load (docs/formats.md, Egaroucid books).
    pub fn load_problems(&self, problems: &mut Vec<Problem>) {
        board_problems(&self.board(), problems);
    }
}

/// Where a record starts.
pub fn offset_of(id: RecordId) -> u64 {
    HEADER_LEN as u64 + RECORD_LEN as u64 * u64::from(id.0)
}

/// The record with this id, if the file holds it whole.
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
    pub link: Link,
    pub child: F,
    /// How the child's stored board lies on the position the link reaches
    /// (after the pass, if one follows), in the record's coordinates.
    pub placement: Placement,
}

/// A legal move of a stored board (or its pass), with the child to look up
/// for it (docs/formats.md, Egaroucid books).
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
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
    pub fn other_child(&self) -> Option<Normalized> {
        self.game_over.then(|| normalize(&self.after.swapped()))
    }

    /// The link to [`Candidate::child`], found in the book with `value`.
    pub fn link<F>(&self, child: F, value: Score) -> FoundLink<F> {
        self.scored(child, value, self.then_pass, self.child.placement())
    }

    /// The link to [`Candidate::other_child`] (`other`), found in the book
    /// with `value`: the line gets a pass after the move.
    pub fn link_to_other<F>(&self, child: F, value: Score, other: &Normalized) -> FoundLink<F> {
        self.scored(child, value, true, other.placement())
    }

    /// A link scored by its child's value: negated, unless a pass follows
    /// the move and the child's side to move is this record's.
    fn scored<F>(&self, child: F, value: Score, then_pass: bool, placement: Placement) -> FoundLink<F> {
        let score = if then_pass { value } else { Score(-value.0) };
        FoundLink { link: Link { score, mv: self.mv, then_pass }, child, placement }
    }
}

/// The children a board's legal moves lead to (a pass, if it must pass), in
/// increasing square number, each normalized for its lookup.
pub fn candidates(board: &Board) -> impl Iterator<Item = Candidate> + '_ {
    let legal = board.legal_moves();
    let pass = (legal == 0 && board.must_pass()).then_some(Move::Pass);
    Square::iter(legal).map(Move::Play).chain(pass).filter_map(move |mv| {
        let after = board.after(mv)?;
        let (then_pass, game_over) = if after.has_moves() {
            (false, false)
        } else {
            let replies = after.swapped().has_moves();
            (replies, !replies)
        };
        let child = normalize(&if then_pass { after.swapped() } else { after });
        Some(Candidate { mv, after, child, then_pass, game_over })
    })
}

/// The links of a stored board (docs/formats.md, Egaroucid books): its legal moves, in increasing
/// square number, whose child is in the book, each scored by the child's
/// value (negated unless a pass follows the move). A board whose side to
/// move must pass has at most one link, the pass. The lookups run stage by
/// stage, all candidates together, so that their cache misses overlap.
pub fn links_of(board: &Board, lookup: &impl Lookup) -> SmallVec<[Link; 8]> {
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
        links.extend(found.map(|f| f.link));
    }
    links
}

/// Appends one record in the `.egbk3` layout; `leaf` is written as "none"
/// when absent. Used by `synth` and tests.
pub fn encode_record(out: &mut Vec<u8>, board: &Board, value: i8, level: i8, n_lines: u32, leaf: Option<Link>) {
    out.extend_from_slice(&board.player.to_le_bytes());
    out.extend_from_slice(&board.opponent.to_le_bytes());
    out.push(value as u8);
    out.push(level as u8);
    out.extend_from_slice(&n_lines.to_le_bytes());
    match leaf {
        Some(l) => out.extend_from_slice(&[l.score.0.clamp(-64, 64) as i8 as u8, l.mv.code(), level as u8]),
        None => out.extend_from_slice(&[NO_VALUE as u8, NO_LEAF_MOVE, level as u8]),
    }
}

/// Appends the header for `n_boards` records.
pub fn encode_header(out: &mut Vec<u8>, n_boards: usize) {
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.extend_from_slice(&i32::try_from(n_boards).unwrap_or(i32::MAX).to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symmetry::Symmetry;
    use std::collections::HashMap;

    /// A book as a map from stored board to value.
    #[derive(Default)]
    struct Values(HashMap<Board, Score>);

    impl Values {
        fn with(mut self, board: Board, value: i32) -> Values {
            self.0.insert(normalize(&board).board, Score(value));
            self
        }
    }

    impl Lookup for Values {
        type Probe = Board;
        type Found = ();
        fn start(&self, stored: &Board) -> Board {
            *stored
        }
        fn find(&self, stored: &Board) -> Option<((), Score)> {
            self.0.get(stored).map(|&value| ((), value))
        }
    }

    fn square(name: &str) -> Move {
        Move::Play(Square::parse(name).unwrap())
    }

    /// One record's bytes, as Egaroucid writes them.
    fn raw(board: Board, value: i8, leaf_value: i8, leaf_move: u8) -> Vec<u8> {
        let mut bytes = Vec::new();
        encode_header(&mut bytes, 1);
        encode_record(&mut bytes, &board, value, 10, 7, None);
        bytes[HEADER_LEN + 22] = leaf_value as u8;
        bytes[HEADER_LEN + 23] = leaf_move;
        bytes
    }

    fn only_record(bytes: &[u8]) -> RawRecord<'_> {
        let mut all = records(bytes);
        let (_, offset, record) = all.next().unwrap().unwrap();
        assert_eq!(offset, HEADER_LEN);
        assert!(all.next().is_none());
        record
    }

    /// Positions reached by seeded random games, with a move that leads to
    /// a position whose side to move must pass (or to the end of the game).
    fn find_position(wanted: impl Fn(&Board) -> bool) -> (Board, Move) {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        loop {
            let mut board = Board::INITIAL;
            while !board.is_game_over() {
                let moves: Vec<Square> = Square::iter(board.legal_moves()).collect();
                if moves.is_empty() {
                    board = board.swapped();
                    continue;
                }
                for &s in &moves {
                    if wanted(&board.after(Move::Play(s)).unwrap()) {
                        return (board, Move::Play(s));
                    }
                }
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                board = board.after(Move::Play(moves[(seed >> 33) as usize % moves.len()])).unwrap();
            }
        }
    }

    #[test]
    fn boards_are_read_in_our_bit_order_so_egaroucid_s_are_turned_half_round() {
        // Egaroucid's bit 63 is A1: its bitboard of a position is ours reversed.
        let after_f5 = Board::INITIAL.after(square("F5")).unwrap();
        let theirs = Board::new(after_f5.player.reverse_bits(), after_f5.opponent.reverse_bits());
        let bytes = raw(theirs, 0, NO_VALUE, NO_LEAF_MOVE);
        let read = only_record(&bytes).board();
        let half_turn = Symmetry::new(3).unwrap();
        assert_eq!(read, half_turn.board(&after_f5));
        assert_eq!(normalize(&read).board, normalize(&after_f5).board);
    }

    #[test]
    fn the_leaf_is_its_move_and_value_unless_marked_none() {
        let bytes = raw(Board::INITIAL, 2, 5, 37);
        let record = only_record(&bytes);
        assert_eq!(record.leaf(), Some(Link::new(Score(5), square("F5"))));
        assert!(Board::INITIAL.check_move(square("F5")).is_some());
        let bytes = raw(Board::INITIAL, 2, NO_VALUE, NO_LEAF_MOVE);
        assert_eq!(only_record(&bytes).leaf(), None);
        // A move with Egaroucid's "no value" is no leaf either, and a pass leaf is one.
        assert_eq!(only_record(&raw(Board::INITIAL, 2, NO_VALUE, 37)).leaf(), None);
        assert_eq!(only_record(&raw(Board::INITIAL, 2, -3, 64)).leaf(), Some(Link::new(Score(-3), Move::Pass)));
    }

    #[test]
    fn a_value_of_minus_126_takes_the_record_out_of_the_book() {
        let bytes = raw(Board::INITIAL, NO_VALUE, NO_VALUE, NO_LEAF_MOVE);
        let record = only_record(&bytes);
        assert_eq!(record.raw_value(), -126);
        assert!(!record.is_in_book());
        assert!(only_record(&raw(Board::INITIAL, 64, 0, 37)).is_in_book());
        assert!(!only_record(&raw(Board::INITIAL, 65, 0, 37)).is_in_book());
    }

    #[test]
    fn links_are_legal_moves_with_a_child_in_the_book_in_square_order_scored_by_minus_its_value() {
        let book = Values::default().with(Board::INITIAL.after(square("F5")).unwrap(), -1);
        let links = links_of(&Board::INITIAL, &book);
        // All four opening moves reach the same stored child; D3 (19) < C4 (26) < F5 (37) < E6 (44).
        let moves: Vec<Move> = links.iter().map(|l| l.mv).collect();
        assert_eq!(moves, ["D3", "C4", "F5", "E6"].map(square));
        assert!(links.iter().all(|l| !l.then_pass && l.score == Score(1)));
        // No child in the book, no link.
        assert!(links_of(&Board::INITIAL, &Values::default().with(Board::INITIAL, 0)).is_empty());
    }

    #[test]
    fn a_move_followed_by_a_pass_links_to_the_position_after_the_pass_scored_by_its_value() {
        let (board, mv) = find_position(|after| after.must_pass());
        let after = board.after(mv).unwrap();
        // Stored after the pass: a link, with the child's value as it stands.
        let book = Values::default().with(after.swapped(), 7);
        let links = links_of(&board, &book);
        assert_eq!(links.as_slice(), &[Link { score: Score(7), mv, then_pass: true }]);
        // The position before the pass is not the child.
        assert!(links_of(&board, &Values::default().with(after, 7)).is_empty());
        // The record that must pass links the pass, scored by minus the child's value.
        let pass = links_of(&after, &Values::default().with(after.swapped(), 4));
        assert_eq!(pass.as_slice(), &[Link::new(Score(-4), Move::Pass)]);
    }

    #[test]
    fn at_the_end_of_the_game_the_child_is_the_final_position_stored_from_either_side() {
        let (board, mv) = find_position(|after| after.is_game_over());
        let end = board.after(mv).unwrap();
        let as_played = links_of(&board, &Values::default().with(end, -10));
        assert_eq!(as_played.as_slice(), &[Link { score: Score(10), mv, then_pass: false }]);
        let swapped = links_of(&board, &Values::default().with(end.swapped(), 10));
        assert_eq!(swapped.as_slice(), &[Link { score: Score(10), mv, then_pass: true }]);
    }

    #[test]
    fn a_file_that_ends_inside_a_record_is_truncated_there() {
        let mut bytes = raw(Board::INITIAL, 0, NO_VALUE, NO_LEAF_MOVE);
        bytes.extend_from_slice(&[0; 10]);
        let items: Vec<_> = records(&bytes).collect();
        assert_eq!(items.len(), 2);
        let error = items[1].as_ref().unwrap_err();
        assert_eq!(error.record, Some(2));
        assert_eq!(error.offset, (HEADER_LEN + RECORD_LEN) as u64);
        assert_eq!(error.problem, Problem::Truncated { needed: 25, left: 10 });
    }

    #[test]
    fn headers_are_checked_for_size_magic_and_version() {
        assert!(matches!(parse_header(b"DICUORAGE").unwrap_err().problem, Problem::ShortHeader { len: 9, needed: 14 }));
        let mut bytes = raw(Board::INITIAL, 0, 0, 0);
        assert_eq!(parse_header(&bytes).unwrap(), Header { version: 3, n_boards: 1 });
        bytes[9] = 2;
        assert_eq!(parse_header(&bytes).unwrap_err().problem, Problem::BadVersion { found: 2, expected: 3 });
    }
}
