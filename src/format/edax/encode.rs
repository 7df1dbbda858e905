//! Encoding Edax books (docs/formats.md, writing an Edax book): the header, a record kept byte for byte
//! (or with links pruned, §12), a record made from an Egaroucid one, and
//! the pass records Edax needs where Egaroucid links through a pass.

use super::leaf::leaf_pair;
use super::read::{self as edax, Header, HEADER_LEN, LINKS_AT, MAGIC, N_LINK_AT};
use crate::board::{Board, Move, Square};
use crate::level::Level;
use crate::record::{Details, Leaf, Link, Record, Score};
use smallvec::SmallVec;

/// One record in Edax's layout, ready to encode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdaxRecord {
    /// The board, normalized.
    pub board: Board,
    /// wins, draws, losses, lines
    pub counts: [u32; 4],
    /// Its value.
    pub value: i16,
    /// The lower bound of its value.
    pub lower: i16,
    /// The upper bound of its value.
    pub upper: i16,
    /// Its level.
    pub level: u8,
    /// (score, move code) pairs.
    pub links: SmallVec<[(i8, u8); 16]>,
    /// The leaf, stored as [`super::leaf`] says.
    pub leaf: Option<Leaf>,
}

impl EdaxRecord {
    /// Appends the record's bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.board.player.to_le_bytes());
        out.extend_from_slice(&self.board.opponent.to_le_bytes());
        for c in self.counts {
            out.extend_from_slice(&c.to_le_bytes());
        }
        for v in [self.value, self.lower, self.upper] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.push(u8::try_from(self.links.len()).expect("a position has at most 33 moves"));
        out.push(self.level);
        for &(score, mv) in self.links.iter().chain([&leaf_pair(self.leaf)]) {
            out.extend_from_slice(&[score as u8, mv]);
        }
    }
}

/// A record of a book read, written again with the links and leaf another
/// book adds to it (merge: both books' links joined, docs/merge.md): its
/// board, counts, value and bounds and its level as stored, then the links
/// and the leaf given, each a (score, move code) pair.
pub struct Relinked {
    bytes: Vec<u8>,
}

impl Relinked {
    /// Starts the record `kept` with `n_links` links to come; none if more
    /// than a record counts (255).
    pub fn start(kept: &edax::RawRecord<'_>, n_links: usize) -> Option<Relinked> {
        let count = u8::try_from(n_links).ok()?;
        let mut bytes = Vec::with_capacity(LINKS_AT + 2 * (n_links + 1));
        bytes.extend_from_slice(&kept.bytes()[..N_LINK_AT]);
        bytes.push(count);
        bytes.push(kept.level());
        Some(Relinked { bytes })
    }

    /// Appends a link, as stored.
    pub fn link(&mut self, (score, code): (i8, u8)) {
        self.bytes.extend_from_slice(&[score as u8, code]);
    }

    /// Where the leaf's pair goes in the record's bytes (an engine's answer
    /// is written there later, in place).
    pub fn leaf_at(&self) -> usize {
        self.bytes.len()
    }

    /// Appends the leaf ([`super::leaf`]), ending the record: its bytes.
    pub fn leaf(mut self, leaf: Option<Leaf>) -> Vec<u8> {
        let (score, code) = leaf_pair(leaf);
        debug_assert_eq!(
            self.bytes.len(),
            LINKS_AT + 2 * usize::from(self.bytes[N_LINK_AT]),
            "every link counted given"
        );
        self.bytes.extend_from_slice(&[score as u8, code]);
        self.bytes
    }
}

/// The header of a book written from an Edax book: its own, with the
/// records written.
pub fn header_from(header: &Header, n_nodes: u64) -> [u8; HEADER_LEN] {
    header_bytes(&Header { n_nodes: count(n_nodes), ..header.clone() })
}

/// The header of a book written from another format: version 4, release
/// 6, dated `date` (UTC), the highest level and fewest empties written.
pub fn new_header(date: time::OffsetDateTime, level: Level, n_empties: i32, n_nodes: u64) -> [u8; HEADER_LEN] {
    let date = (date.year() as i16, u8::from(date.month()), date.day(), date.hour(), date.minute(), date.second());
    header_bytes(&Header {
        version: edax::VERSION,
        release: 6,
        date,
        level: i32::from(edax_level(level)),
        n_empties,
        midgame_error: 0,
        endcut_error: 0,
        verbosity: 0,
        n_nodes: count(n_nodes),
    })
}

/// The header of a book Edax's `book new` starts, dated `date` (UTC):
/// version 4, release 6, the level and n_empties given, Edax's own search
/// errors (midgame 2, endcut 1), verbosity 0, one record.
pub fn book_new_header(date: time::OffsetDateTime, level: Level, n_empties: i32) -> [u8; HEADER_LEN] {
    let date = (date.year() as i16, u8::from(date.month()), date.day(), date.hour(), date.minute(), date.second());
    header_bytes(&Header {
        version: edax::VERSION,
        release: 6,
        date,
        level: level.to_i32(),
        n_empties,
        midgame_error: 2,
        endcut_error: 1,
        verbosity: 0,
        n_nodes: 1,
    })
}

fn count(n: u64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn header_bytes(header: &Header) -> [u8; HEADER_LEN] {
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    encode_header(&mut bytes, header);
    bytes.try_into().expect("an Edax header is 42 bytes")
}

/// A level as Edax stores it in a record it makes from another format's,
/// and in the header of a book it converts: 1 to 60 (level 0 is taken as 1).
fn edax_level(level: Level) -> u8 {
    level.to_u8().max(1)
}

fn score_byte(score: Score) -> i8 {
    score.0.clamp(-128, 127) as i8
}

/// An Egaroucid record as Edax stores it (docs/formats.md, writing an Edax book). `stored_leaf` is the
/// leaf the file holds, if it exists (§8), whether or not it is linked.
pub fn from_egaroucid(record: &Record, stored_leaf: Option<Link>) -> EdaxRecord {
    let board = record.board();
    let n_lines = match record.details {
        Details::Egaroucid { n_lines, .. } => n_lines,
        Details::Edax { counts, .. } => counts[3],
    };
    let mut links: SmallVec<[(i8, u8); 16]> = record.links().map(|l| (score_byte(l.score), l.mv.code())).collect();
    let leaf = leaf_for(&board, record.value, &mut links, stored_leaf);
    EdaxRecord {
        board,
        counts: [0, 0, 0, n_lines],
        value: record.value.0 as i16,
        lower: -64,
        upper: 64,
        level: edax_level(Level::saturating(record.level)),
        links,
        leaf,
    }
}

/// The leaf of a converted record, taking it out of `links` where docs/formats.md
/// (writing an Edax book) says Edax's rules need one.
fn leaf_for(board: &Board, value: Score, links: &mut SmallVec<[(i8, u8); 16]>, stored: Option<Link>) -> Option<Leaf> {
    let linked = |code: u8| links.iter().any(|&(_, mv)| mv == code);
    let scored = |score: i8, mv: Option<Move>| Some(Leaf::new(Score::from(score), mv));
    if let Some(leaf) = stored.filter(|l| board.check_move(l.mv).is_some() && !linked(l.mv.code())) {
        return scored(score_byte(leaf.score), Some(leaf.mv));
    }
    let linked_squares =
        links.iter().filter(|&&(_, mv)| mv < Move::PASS_CODE).fold(0u64, |bits, &(_, mv)| bits | 1 << mv);
    let unlinked = board.legal_moves() & !linked_squares;
    if unlinked != 0 {
        // Edax rejects a position with an unlinked legal move and no leaf.
        return match lowest_link(links) {
            Some(i) => {
                let (score, code) = links.remove(i);
                scored(score, Move::from_code(code))
            }
            None => {
                let first = Square::iter(unlinked).next().expect("a legal move");
                scored(score_byte(value), Some(Move::Play(first)))
            }
        };
    }
    if board.is_game_over() {
        scored(score_byte(value), None)
    } else if board.must_pass() && !linked(Move::PASS_CODE) {
        scored(score_byte(value), Some(Move::Pass))
    } else {
        None
    }
}

/// The link with the lowest score, the first among equals.
fn lowest_link(links: &[(i8, u8)]) -> Option<usize> {
    let lowest = links.iter().map(|&(score, _)| score).min()?;
    links.iter().position(|&(score, _)| score == lowest)
}

/// The record Edax needs for a position whose side to move must pass,
/// where Egaroucid stores only the position after the pass (`child`).
///
/// An Egaroucid book (docs/formats.md, Egaroucid books) also links through a pass to a finished game's other side
/// (neither side can move after the move); there a PASS link would be
/// illegal, and Edax refuses the record ("passing move is wrong"), so the
/// position is stored as Edax stores a finished game (§1): no link, the
/// final score as the leaf's, move 65.
pub fn pass_record(board: Board, child: &Record) -> EdaxRecord {
    let n_lines = match child.details {
        Details::Egaroucid { n_lines, .. } => n_lines,
        Details::Edax { counts, .. } => counts[3],
    };
    pass_record_of(board, child.value, n_lines, Level::saturating(child.level))
}

/// [`pass_record`] from the child's value, line count and level.
fn pass_record_of(board: Board, child_value: Score, n_lines: u32, child_level: Level) -> EdaxRecord {
    let value = -child_value.0;
    let finished = board.is_game_over();
    EdaxRecord {
        board,
        counts: [0, 0, 0, n_lines],
        value: value as i16,
        lower: -64,
        upper: 64,
        level: edax_level(child_level),
        links: match finished {
            true => SmallVec::new(),
            false => [(score_byte(Score(value)), Move::PASS_CODE)].into_iter().collect(),
        },
        leaf: finished.then(|| Leaf::new(Score::from(score_byte(Score(value))), None)),
    }
}

/// An Edax record with the links `keep` refuses removed, the best removed
/// link becoming the leaf when it scores above the leaf (docs/convert.md, cut, as
/// Edax's `book prune`); every other byte kept. Returns the new bytes and
/// how many links were removed, and whether the leaf was replaced.
pub fn pruned(raw: &edax::RawRecord<'_>, keep: impl Fn(usize) -> bool) -> (Vec<u8>, usize, bool) {
    let bytes = raw.bytes();
    let n = raw.n_links();
    let pair = |i: usize| (bytes[40 + 2 * i] as i8, bytes[41 + 2 * i]);
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..40]);
    let mut best_removed: Option<(i8, u8)> = None;
    let mut kept = 0;
    for i in 0..n {
        if keep(i) {
            out.extend_from_slice(&[pair(i).0 as u8, pair(i).1]);
            kept += 1;
        } else if best_removed.is_none_or(|(best, _)| pair(i).0 > best) {
            best_removed = Some(pair(i));
        }
    }
    out[38] = kept as u8;
    let mut leaf = raw.raw_leaf();
    // A missing leaf counts as -127.
    let leaf_score = if leaf.1 == Move::NONE_CODE { -127 } else { leaf.0 };
    let replaced = best_removed.is_some_and(|(score, _)| score > leaf_score);
    if replaced {
        leaf = best_removed.expect("a removed link");
    }
    out.extend_from_slice(&[leaf.0 as u8, leaf.1]);
    (out, n - kept, replaced)
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
    out.extend_from_slice(&MAGIC);
    out.push(header.version);
    out.push(header.release);
    let (y, mo, d, h, mi, s) = header.date;
    out.extend_from_slice(&y.to_le_bytes());
    out.extend_from_slice(&[mo, d, h, mi, s, 0]);
    for v in
        [header.level, header.n_empties, header.midgame_error, header.endcut_error, header.verbosity, header.n_nodes]
    {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::edax::read::{next_record, LINKS_AT};
    use crate::record::RecordId;

    fn sq(name: &str) -> u8 {
        Square::parse(name).expect("a square").index()
    }

    /// A record with these links and leaf, as Edax lays it out.
    fn raw_bytes(links: &[(i8, u8)], leaf: (i8, u8)) -> Vec<u8> {
        let leaf = crate::format::edax::leaf::leaf_of_pair(leaf);
        let record = EdaxRecord {
            board: Board::INITIAL,
            counts: [1, 2, 3, 4],
            value: 5,
            lower: -6,
            upper: 7,
            level: 8,
            links: links.iter().copied().collect(),
            leaf,
        };
        let mut bytes = Vec::new();
        record.encode(&mut bytes);
        bytes
    }

    #[test]
    fn pruning_makes_the_best_removed_link_the_leaf_when_it_beats_the_leaf() {
        let links = [(3, sq("D3")), (5, sq("C4")), (1, sq("F5"))];
        let bytes = raw_bytes(&links, (2, sq("E6")));
        let raw = edax::next_record(&bytes, 0).unwrap();
        let (out, removed, replaced) = pruned(&raw, |i| i == 0);
        assert_eq!((removed, replaced), (2, true));
        assert_eq!(out, raw_bytes(&[(3, sq("D3"))], (5, sq("C4"))), "every other byte kept");
        // A leaf above every removed link stays.
        let bytes = raw_bytes(&links, (6, sq("E6")));
        let (out, _, replaced) = pruned(&edax::next_record(&bytes, 0).unwrap(), |i| i != 1);
        assert!(!replaced);
        assert_eq!(out, raw_bytes(&[(3, sq("D3")), (1, sq("F5"))], (6, sq("E6"))));
        // No leaf (move 65) counts as -127, whatever its stored score.
        let bytes = raw_bytes(&links, (100, Move::NONE_CODE));
        let (out, _, replaced) = pruned(&edax::next_record(&bytes, 0).unwrap(), |_| false);
        assert!(replaced);
        assert_eq!(out, raw_bytes(&[], (5, sq("C4"))));
    }

    /// A board whose side to move must pass, and one where the game is over.
    fn passing_and_finished() -> (Board, Board) {
        // To move: B1 alone against A1, which can take it from C1. Finished:
        // one side fills every square but H8.
        let must_pass = Board::new(0x0000_0000_0000_0001, 0x0000_0000_0000_0002).swapped();
        let finished = Board::new(!0u64 >> 1, 0);
        (must_pass, finished)
    }

    #[test]
    fn a_pass_record_links_the_pass_but_a_finished_game_stores_its_score() {
        let (must_pass, finished) = passing_and_finished();
        assert!(must_pass.must_pass() && finished.is_game_over());
        let record = pass_record_of(must_pass, Score(-12), 9, Level::saturating(70));
        assert_eq!((record.value, record.level, record.counts), (12, 60, [0, 0, 0, 9]));
        // Edax's records made from another format's are at level 1 at least.
        assert_eq!(pass_record_of(must_pass, Score(-12), 9, Level::default()).level, 1);
        assert_eq!((record.links.as_slice(), record.leaf), (&[(12, Move::PASS_CODE)][..], None));
        let record = pass_record_of(finished, Score(-12), 9, Level::saturating(70));
        assert!(record.links.is_empty());
        assert_eq!(record.leaf, Some(Leaf::new(Score(12), None)));
        // As Edax stores them: no leaf (−127, 65), and the final score with move 65.
        assert_eq!(leaf_pair(record.leaf), (12, Move::NONE_CODE));
        assert_eq!(leaf_pair(None), (-127, Move::NONE_CODE));
    }

    #[test]
    fn a_converted_record_gets_the_leaf_edax_needs() {
        let board = Board::INITIAL;
        let link = |score, name: &str| Link::new(Score(score), Move::Play(Square::parse(name).unwrap()));
        let mut links: SmallVec<[(i8, u8); 16]> = [(4, sq("D3")), (-2, sq("C4")), (-2, sq("F5"))].into_iter().collect();
        // An unlinked legal move (E6) and no usable leaf: the lowest link,
        // the first among equals, becomes the leaf.
        assert_eq!(leaf_pair(leaf_for(&board, Score(4), &mut links, Some(link(9, "D3")))), (-2, sq("C4")));
        assert_eq!(links.as_slice(), &[(4, sq("D3")), (-2, sq("F5"))]);
        // A legal stored leaf on an unlinked move is kept.
        assert_eq!(leaf_pair(leaf_for(&board, Score(4), &mut links, Some(link(1, "E6")))), (1, sq("E6")));
        // No link at all: the first legal move, scored with the value.
        let mut none = SmallVec::new();
        assert_eq!(leaf_pair(leaf_for(&board, Score(4), &mut none, None)), (4, sq("D3")));
        // Every move linked: Edax's own "no leaf".
        let mut all: SmallVec<[(i8, u8); 16]> = ["D3", "C4", "F5", "E6"].iter().map(|n| (0, sq(n))).collect();
        assert_eq!(leaf_pair(leaf_for(&board, Score(0), &mut all, None)), (-127, Move::NONE_CODE));
        let (must_pass, finished) = passing_and_finished();
        assert_eq!(leaf_pair(leaf_for(&must_pass, Score(3), &mut SmallVec::new(), None)), (3, Move::PASS_CODE));
        assert_eq!(leaf_pair(leaf_for(&finished, Score(-3), &mut SmallVec::new(), None)), (-3, Move::NONE_CODE));
    }

    #[test]
    fn a_record_keeps_the_links_whose_codes_are_moves_and_counts_the_same() {
        let play = |i| Move::Play(Square::new(i).unwrap());
        let links = [Link::new(Score(3), play(19)), Link::new(Score(-2), play(26)), Link::new(Score(0), play(37))];
        let mut bytes = Vec::new();
        encode_record(&mut bytes, &Board::INITIAL, [0; 4], [1, -64, 64], 5, &links, None);
        // The second and third links' codes: moves, "no move", out of range.
        for (second, third, kept) in [(26, 37, 3), (Move::NONE_CODE, 37, 2), (80, 200, 1)] {
            bytes[LINKS_AT + 3] = second;
            bytes[LINKS_AT + 5] = third;
            let raw = next_record(&bytes, 0).unwrap();
            assert_eq!(raw.links_that_are_moves(), kept, "codes {second}, {third}");
            let record = raw.to_record(RecordId(0), 0);
            assert_eq!(record.n_links(), kept, "codes {second}, {third}");
            assert_eq!(record.links().next(), Some(links[0]));
        }
    }
}
