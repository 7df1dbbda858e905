//! Egaroucid's older book formats (docs/formats.md, older Egaroucid books): `.egbk2` (Egaroucid up to
//! 6.5) and `.egbk` (up to 6.2). Both store boards in Egaroucid's bit order
//! (read in ours, a half turn, as in `.egbk3`), each in any of its eight
//! symmetric images, with a value and no leaf; an `.egbk2` record adds a
//! level and (score, move) pairs that are not links.
//!
//! Such a book is read once, checked, and translated into the `.egbk3`
//! layout in memory: boards normalized, the records of one position merged
//! as Egaroucid merges them, no leaf, no line count. The rest of bookminer
//! then reads it exactly as it reads an `.egbk3`, so the walk has one path
//! for every Egaroucid book; the [`Origin`] keeps which format the file was
//! and where in it each record was read.

use crate::board::{hash_board, Board, Move};
use crate::format::edax::read::board_problems;
use crate::format::egaroucid;
use crate::record::problem::{FormatError, PairFault, Problem};
use crate::record::{FilePlace, RecordId};
use crate::symmetry::normalize;
use hashbrown::HashTable;
use std::ops::RangeInclusive;

/// The version an `.egbk2` header stores.
pub const EGBK2_VERSION: u8 = 2;
/// An `.egbk2` header's size.
pub const EGBK2_HEADER_LEN: usize = 14;
/// An `.egbk2` record without pairs: board, value, level and pair count.
pub const EGBK2_RECORD_MIN_LEN: usize = 19;
/// Where an `.egbk2` record's pair count is.
const N_PAIRS_AT: usize = 18;
/// An `.egbk` header's size: the count alone.
pub const EGBK_HEADER_LEN: usize = 4;
/// An `.egbk` record's size.
pub const EGBK_RECORD_LEN: usize = 17;
/// The values Egaroucid accepts: any other makes it refuse the whole book.
const VALUE_RANGE: RangeInclusive<i32> = -64..=64;

/// An `.egbk2` header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Egbk2Header {
    /// The version stored.
    pub version: u8,
    /// How many records follow; the file must end where they do. Below 0,
    /// none (Egaroucid reads none either).
    pub n_boards: i32,
}

/// An `.egbk` header: only the count, which the file's size must match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EgbkHeader {
    /// How many records follow.
    pub n_boards: i32,
}

/// The header of an older Egaroucid book; which one it is tells the format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OlderHeader {
    /// An `.egbk2`'s.
    Egbk2(Egbk2Header),
    /// An `.egbk`'s.
    Egbk(EgbkHeader),
}

/// A value as an older format stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoredValue {
    /// `.egbk2` stores the value itself.
    Value(i8),
    /// `.egbk` stores a byte the value is 64 minus (the byte read as i8, so
    /// one above 127 gives a value above 64).
    Egbk(u8),
}

impl StoredValue {
    /// The value, in range or not.
    pub fn value(self) -> i32 {
        match self {
            StoredValue::Value(value) => value.into(),
            StoredValue::Egbk(raw) => 64 - i32::from(raw as i8),
        }
    }

    /// The value, or the problem it is when Egaroucid would refuse it.
    pub fn checked(self) -> Result<i8, Problem> {
        let value = self.value();
        let raw = match self {
            StoredValue::Value(_) => None,
            StoredValue::Egbk(raw) => Some(raw),
        };
        match VALUE_RANGE.contains(&value) {
            true => Ok(value as i8),
            false => Err(Problem::UnreadableValue { value, raw }),
        }
    }
}

/// A record as an older file stores it, read in place.
#[derive(Clone, Copy, Debug)]
pub struct OlderRecord<'a> {
    /// The board as stored: any of its symmetric images.
    pub stored: Board,
    /// Its value.
    pub value: StoredValue,
    /// The `.egbk2` level; an `.egbk` stores none.
    pub level: Option<i8>,
    /// The `.egbk2` (score, move code) pairs, two bytes each.
    pairs: &'a [u8],
}

impl OlderRecord<'_> {
    /// The stored (score, move code) pairs: not links (docs/formats.md, older Egaroucid books).
    pub fn pairs(&self) -> impl Iterator<Item = (i8, u8)> + '_ {
        self.pairs.chunks_exact(2).map(|pair| (pair[0] as i8, pair[1]))
    }

    /// What `verify` checks of the stored pairs besides: each is a legal
    /// move of the stored board, and no move comes twice.
    pub fn pair_problems(&self, problems: &mut Vec<Problem>) {
        // Bit c: move code c was seen (codes 0..=64).
        let mut seen = 0u128;
        for (pair, (_, code)) in self.pairs().enumerate() {
            let fault = |fault| Problem::BadPair { pair, code, fault };
            let Some(mv) = Move::from_code(code) else {
                problems.push(fault(PairFault::NotAMove));
                continue;
            };
            if self.stored.check_move(mv).is_none() {
                problems.push(fault(PairFault::Illegal));
            }
            if seen & (1 << code) != 0 {
                problems.push(fault(PairFault::Repeated));
            }
            seen |= 1 << code;
        }
    }
}

/// A record read from an older file: its id (its place in the file's
/// order), its byte offset, and the record.
pub type Item<'a> = Result<(RecordId, usize, OlderRecord<'a>), FormatError>;

fn header_error(offset: u64, problem: Problem) -> FormatError {
    FormatError { record: None, offset, problem }
}

fn record_error(number: u64, offset: usize, problem: Problem) -> FormatError {
    FormatError { record: Some(number), offset: offset as u64, problem }
}

fn board_at(bytes: &[u8]) -> Board {
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    Board::new(word(0), word(8))
}

/// True when the bytes start like an `.egbk2`: Egaroucid's magic, then version 2.
pub fn is_egbk2(file: &[u8]) -> bool {
    egaroucid::is_egaroucid(file) && file.get(egaroucid::MAGIC.len()) == Some(&EGBK2_VERSION)
}

/// Reads an `.egbk2` header, checking size, magic and version.
pub fn egbk2_header(file: &[u8]) -> Result<Egbk2Header, FormatError> {
    if file.len() < EGBK2_HEADER_LEN {
        let problem = Problem::ShortHeader { len: file.len() as u64, needed: EGBK2_HEADER_LEN as u64 };
        return Err(header_error(0, problem));
    }
    if !egaroucid::is_egaroucid(file) {
        let found = file[..egaroucid::MAGIC.len()].to_vec();
        return Err(header_error(0, Problem::BadMagic { found, len: file.len() as u64 }));
    }
    let header =
        Egbk2Header { version: file[9], n_boards: i32::from_le_bytes(file[10..14].try_into().expect("4 bytes")) };
    if header.version != EGBK2_VERSION {
        return Err(header_error(9, Problem::BadVersion { found: header.version, expected: EGBK2_VERSION }));
    }
    Ok(header)
}

/// The version problem of a file that announces an `.egbk2` but does not
/// read as one, when its size is exactly that of an `.egbk3` of its count:
/// most likely an `.egbk3` whose version byte is wrong, and then its version
/// is what to report, not the boards misread as an `.egbk2`'s.
pub fn misversioned_egbk3(file: &[u8]) -> Option<FormatError> {
    let header = egbk2_header(file).ok()?;
    let records = u64::try_from(header.n_boards).ok()?;
    let egbk3_len = egaroucid::HEADER_LEN as u64 + egaroucid::RECORD_LEN as u64 * records;
    (file.len() as u64 == egbk3_len).then(|| header_error(9, Problem::Egbk3Version { found: header.version }))
}

/// The records of an `.egbk2`: as many as its header counts, ending with
/// an error where one is cut short or where bytes follow the last.
pub fn egbk2_records<'a>(file: &'a [u8], header: &Egbk2Header) -> impl Iterator<Item = Item<'a>> {
    let counted = header.n_boards;
    let count = u32::try_from(counted).unwrap_or(0);
    let mut offset = EGBK2_HEADER_LEN.min(file.len());
    let mut next = 0u32;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let number = u64::from(next) + 1;
        if next == count {
            done = true;
            let left = file.len() - offset;
            let problem = Problem::TrailingBytes { counted, left: left as u64 };
            return (left > 0).then(|| Err(record_error(number, offset, problem)));
        }
        match egbk2_record(file, offset) {
            Ok(record) => {
                let at = offset;
                offset += EGBK2_RECORD_MIN_LEN + record.pairs.len();
                next += 1;
                Some(Ok((RecordId(next - 1), at, record)))
            }
            Err(problem) => {
                done = true;
                Some(Err(record_error(number, offset, problem)))
            }
        }
    })
}

/// The `.egbk2` record at `offset`, or the truncation that stops it.
fn egbk2_record(file: &[u8], offset: usize) -> Result<OlderRecord<'_>, Problem> {
    let bytes = &file[offset..];
    let truncated = |needed: usize| Problem::Truncated { needed: needed as u64, left: bytes.len() as u64 };
    if bytes.len() < EGBK2_RECORD_MIN_LEN {
        return Err(truncated(EGBK2_RECORD_MIN_LEN));
    }
    let len = EGBK2_RECORD_MIN_LEN + 2 * usize::from(bytes[N_PAIRS_AT]);
    if bytes.len() < len {
        return Err(truncated(len));
    }
    Ok(OlderRecord {
        stored: board_at(bytes),
        value: StoredValue::Value(bytes[16] as i8),
        level: Some(bytes[17] as i8),
        pairs: &bytes[EGBK2_RECORD_MIN_LEN..len],
    })
}

/// True when a file that starts with neither Edax's nor Egaroucid's magic
/// is an `.egbk`: its size is exactly what its count says (docs/formats.md, older Egaroucid books).
pub fn is_egbk(file: &[u8]) -> bool {
    egbk_header(file).is_ok()
}

/// Reads an `.egbk` header: the count, which the file's size must match.
pub fn egbk_header(file: &[u8]) -> Result<EgbkHeader, FormatError> {
    let Some(count) = file.get(..EGBK_HEADER_LEN) else {
        let problem = Problem::ShortHeader { len: file.len() as u64, needed: EGBK_HEADER_LEN as u64 };
        return Err(header_error(0, problem));
    };
    let n_boards = i32::from_le_bytes(count.try_into().expect("4 bytes"));
    let fits = u64::try_from(n_boards)
        .is_ok_and(|n| (EGBK_HEADER_LEN as u64 + EGBK_RECORD_LEN as u64 * n) == file.len() as u64);
    match fits {
        true => Ok(EgbkHeader { n_boards }),
        false => Err(header_error(0, Problem::EgbkSize { n_boards, len: file.len() as u64 })),
    }
}

/// The records of an `.egbk` whose header has been read (so its size fits).
pub fn egbk_records(file: &[u8]) -> impl Iterator<Item = Item<'_>> {
    let body = file.get(EGBK_HEADER_LEN..).unwrap_or_default();
    body.chunks_exact(EGBK_RECORD_LEN).enumerate().map(|(i, bytes)| {
        let offset = EGBK_HEADER_LEN + i * EGBK_RECORD_LEN;
        // The count is an i32, so every id fits.
        let id = u32::try_from(i).map_err(|_| {
            let problem = Problem::TooManyRecords { limit: RecordId::MAX_RECORDS };
            record_error(i as u64 + 1, offset, problem)
        })?;
        let record =
            OlderRecord { stored: board_at(bytes), value: StoredValue::Egbk(bytes[16]), level: None, pairs: &[] };
        Ok((RecordId(id), offset, record))
    })
}

/// An older book in the `.egbk3` layout, and where its records came from.
#[derive(Debug)]
pub struct Translated {
    /// A whole `.egbk3` file: header, then one record per position.
    pub bytes: Vec<u8>,
    /// Where its records came from.
    pub origin: Origin,
}

/// What an older book was before it was translated: its header, and for
/// each record of the translation the place in the file whose fields it holds.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The older book's header.
    pub header: OlderHeader,
    /// By [`RecordId`] of the translation.
    places: Vec<FilePlace>,
    /// Records of the file merged into an earlier one of the same position.
    pub merged: u64,
}

impl Origin {
    /// Where the translation's record `id` was read from.
    pub fn place(&self, id: RecordId) -> Option<FilePlace> {
        self.places.get(id.index()).copied()
    }
}

/// Checks an `.egbk2` as `mine` does at load and translates it.
pub fn translate_egbk2(file: &[u8]) -> Result<Translated, FormatError> {
    let header = egbk2_header(file)?;
    // Each record takes at least 19 bytes: the file bounds the count.
    let room = (file.len() - EGBK2_HEADER_LEN) / EGBK2_RECORD_MIN_LEN;
    let capacity = usize::try_from(header.n_boards).unwrap_or(0).min(room);
    let records = egbk2_records(file, &header);
    translate(OlderHeader::Egbk2(header), capacity, records, 0).map_err(|e| misversioned_egbk3(file).unwrap_or(e))
}

/// Checks an `.egbk` as `mine` does at load and translates it, every record
/// at `level` (docs/formats.md, older Egaroucid books: the file stores none).
pub fn translate_egbk(file: &[u8], level: i8) -> Result<Translated, FormatError> {
    let header = egbk_header(file)?;
    let capacity = (file.len() - EGBK_HEADER_LEN) / EGBK_RECORD_LEN;
    translate(OlderHeader::Egbk(header), capacity, egbk_records(file), level)
}

/// Checks every record, stopping at the first problem, and merges them
/// into the translation; `level` is for records that store none. The
/// caller bounds `capacity` by the file's size.
fn translate<'a>(
    header: OlderHeader,
    capacity: usize,
    records: impl Iterator<Item = Item<'a>>,
    level: i8,
) -> Result<Translated, FormatError> {
    let mut merger = Merger::with_capacity(capacity);
    let mut problems = Vec::new();
    for item in records {
        let (id, offset, record) = item?;
        // The checks `mine` makes at load (docs/formats.md, older Egaroucid books): the board's discs, then the value.
        board_problems(&record.stored, &mut problems);
        let value = match problems.drain(..).next() {
            Some(problem) => Err(problem),
            None => record.value.checked(),
        };
        let value = value.map_err(|problem| record_error(id.number(), offset, problem))?;
        let fields = Fields { value, level: record.level.unwrap_or(level) };
        merger.add(normalize(&record.stored).board, fields, FilePlace::of(id, offset as u64));
    }
    Ok(merger.finish(header))
}

/// What a translated record holds besides its board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fields {
    value: i8,
    level: i8,
}

/// Builds the translation: one `.egbk3` record per position, in the order
/// each position first came, with the fields of the record that won its merge.
struct Merger {
    bytes: Vec<u8>,
    places: Vec<FilePlace>,
    /// Each position's board, the number of its record and that record's level.
    positions: HashTable<(Board, u32, i8)>,
    merged: u64,
}

impl Merger {
    fn with_capacity(records: usize) -> Merger {
        let mut bytes = Vec::with_capacity(egaroucid::HEADER_LEN + records * egaroucid::RECORD_LEN);
        egaroucid::encode_header(&mut bytes, 0);
        Merger { bytes, places: Vec::with_capacity(records), positions: HashTable::with_capacity(records), merged: 0 }
    }

    /// Adds a record of a normalized board read at `place`. A position seen
    /// before takes the later record's fields when its level is at least
    /// the earlier's, and keeps its place in the order (Egaroucid's merge).
    fn add(&mut self, board: Board, fields: Fields, place: FilePlace) {
        let hash = hash_board(&board);
        let Some((_, number, level)) = self.positions.find_mut(hash, |&(b, _, _)| b == board) else {
            let number = self.places.len() as u32;
            self.positions.insert_unique(hash, (board, number, fields.level), |(b, _, _)| hash_board(b));
            encode(&mut self.bytes, &board, fields);
            self.places.push(place);
            return;
        };
        self.merged += 1;
        if fields.level < *level {
            return;
        }
        *level = fields.level;
        let at = egaroucid::offset_of(RecordId(*number)) as usize;
        let mut replaced = Vec::with_capacity(egaroucid::RECORD_LEN);
        encode(&mut replaced, &board, fields);
        self.bytes[at..at + egaroucid::RECORD_LEN].copy_from_slice(&replaced);
        self.places[*number as usize] = place;
    }

    /// The translation, its header counting the records it holds.
    fn finish(mut self, header: OlderHeader) -> Translated {
        let mut counted = Vec::with_capacity(egaroucid::HEADER_LEN);
        egaroucid::encode_header(&mut counted, self.places.len());
        self.bytes[..egaroucid::HEADER_LEN].copy_from_slice(&counted);
        let origin = Origin { header, places: self.places, merged: self.merged };
        Translated { bytes: self.bytes, origin }
    }
}

/// A translated record: no line count, no leaf (docs/formats.md, writing an .egbk3 book), the leaf level
/// the record's.
fn encode(out: &mut Vec<u8>, board: &Board, fields: Fields) {
    egaroucid::encode_record(out, board, fields.value, fields.level, 0, None);
}

/// Appends an `.egbk2` header for `n_boards` records.
pub fn encode_egbk2_header(out: &mut Vec<u8>, n_boards: usize) {
    out.extend_from_slice(egaroucid::MAGIC);
    out.push(EGBK2_VERSION);
    out.extend_from_slice(&i32::try_from(n_boards).unwrap_or(i32::MAX).to_le_bytes());
}

/// Appends an `.egbk2` record with the given (score, move) pairs (at most 255).
pub fn encode_egbk2_record(out: &mut Vec<u8>, stored: &Board, value: i8, level: i8, pairs: &[(i8, u8)]) {
    out.extend_from_slice(&stored.player.to_le_bytes());
    out.extend_from_slice(&stored.opponent.to_le_bytes());
    out.extend_from_slice(&[value as u8, level as u8, u8::try_from(pairs.len()).expect("at most 255 pairs")]);
    for &(score, code) in pairs {
        out.extend_from_slice(&[score as u8, code]);
    }
}

/// Appends an `.egbk` header for `n_boards` records.
pub fn encode_egbk_header(out: &mut Vec<u8>, n_boards: usize) {
    out.extend_from_slice(&i32::try_from(n_boards).unwrap_or(i32::MAX).to_le_bytes());
}

/// Appends an `.egbk` record. The format stores 64 − value in a byte read
/// as i8, so it holds values −63..=64 only: others are clamped to them.
pub fn encode_egbk_record(out: &mut Vec<u8>, stored: &Board, value: i8) {
    out.extend_from_slice(&stored.player.to_le_bytes());
    out.extend_from_slice(&stored.opponent.to_le_bytes());
    out.push((64 - i32::from(value).clamp(-63, 64)) as u8);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;
    use crate::format::egaroucid::RawRecord;
    use crate::symmetry::{is_normalized, Symmetry};

    fn play(name: &str) -> Move {
        Move::Play(Square::parse(name).unwrap())
    }

    fn after(line: &[&str]) -> Board {
        line.iter().fold(Board::INITIAL, |board, mv| board.after(play(mv)).unwrap())
    }

    /// An image of the board that is not its normalized form.
    fn unnormalized(board: &Board) -> Board {
        Symmetry::ALL.iter().map(|s| s.board(board)).find(|b| !is_normalized(b)).unwrap()
    }

    /// An `.egbk2` of (board, value, level) records without pairs.
    fn egbk2(records: &[(Board, i8, i8)]) -> Vec<u8> {
        let mut bytes = Vec::new();
        encode_egbk2_header(&mut bytes, records.len());
        for (board, value, level) in records {
            encode_egbk2_record(&mut bytes, board, *value, *level, &[]);
        }
        bytes
    }

    /// An `.egbk` of (board, stored byte) records.
    fn egbk(records: &[(Board, u8)]) -> Vec<u8> {
        let mut bytes = Vec::new();
        encode_egbk_header(&mut bytes, records.len());
        for (board, raw) in records {
            bytes.extend_from_slice(&board.player.to_le_bytes());
            bytes.extend_from_slice(&board.opponent.to_le_bytes());
            bytes.push(*raw);
        }
        bytes
    }

    /// The translation's records: board, value and level, in its order.
    fn read(translated: &Translated) -> Vec<(Board, i32, i8)> {
        let bytes = &translated.bytes;
        let header = egaroucid::parse_header(bytes).unwrap();
        let records: Vec<RawRecord<'_>> = egaroucid::records(bytes).map(|r| r.unwrap().2).collect();
        assert_eq!(header.n_boards as usize, records.len());
        records
            .iter()
            .map(|r| {
                let record = r.with_links(RecordId(0), Default::default(), false);
                assert_eq!(record.leaf(), None, "no leaf");
                assert_eq!(
                    record.details,
                    crate::record::Details::Egaroucid { n_lines: 0, stored_leaf: None, leaf_level: record.level as i8 }
                );
                (record.board, record.value.0, record.level as i8)
            })
            .collect()
    }

    fn error(result: Result<Translated, FormatError>) -> FormatError {
        result.expect_err("the book is refused")
    }

    #[test]
    fn a_board_stored_in_another_image_is_read_normalized() {
        let board = after(&["F5", "D6"]);
        let stored = unnormalized(&board);
        let translated = translate_egbk2(&egbk2(&[(stored, 3, 7)])).unwrap();
        assert_eq!(read(&translated), [(normalize(&board).board, 3, 7)]);
        assert_eq!(translated.origin.place(RecordId(0)), Some(FilePlace { number: 1, offset: 14 }));
        let translated = translate_egbk(&egbk(&[(stored, 61)]), 9).unwrap();
        assert_eq!(read(&translated), [(normalize(&board).board, 3, 9)]);
        assert_eq!(translated.origin.place(RecordId(0)), Some(FilePlace { number: 1, offset: 4 }));
    }

    #[test]
    fn a_later_record_of_a_position_replaces_the_earlier_in_its_place_when_its_level_is_at_least_as_high() {
        let (a, b) = (after(&["F5"]), after(&["F5", "D6"]));
        let image = unnormalized(&a);
        // The later record at a higher, then the same level: it replaces.
        for level in [3, 2] {
            let translated = translate_egbk2(&egbk2(&[(a, 1, 2), (b, -2, 2), (image, 4, level)])).unwrap();
            let a = normalize(&a).board;
            assert_eq!(read(&translated), [(a, 4, level), (normalize(&b).board, -2, 2)]);
            assert_eq!(translated.origin.merged, 1);
            let third = FilePlace { number: 3, offset: 14 + 2 * 19 };
            assert_eq!(translated.origin.place(RecordId(0)), Some(third));
            assert_eq!(translated.origin.place(RecordId(1)), Some(FilePlace { number: 2, offset: 14 + 19 }));
            assert_eq!(translated.origin.place(RecordId(2)), None);
        }
    }

    #[test]
    fn a_later_record_of_a_position_at_a_lower_level_is_left_out() {
        let a = after(&["F5"]);
        let translated = translate_egbk2(&egbk2(&[(a, 1, 2), (unnormalized(&a), -3, 1)])).unwrap();
        assert_eq!(read(&translated), [(normalize(&a).board, 1, 2)]);
        assert_eq!(translated.origin.merged, 1);
        assert_eq!(translated.origin.place(RecordId(0)), Some(FilePlace { number: 1, offset: 14 }));
    }

    #[test]
    fn in_an_egbk_the_later_record_of_a_position_always_replaces_the_earlier() {
        let a = after(&["F5"]);
        let translated = translate_egbk(&egbk(&[(a, 63), (Board::INITIAL, 64), (unnormalized(&a), 68)]), 5).unwrap();
        let initial = normalize(&Board::INITIAL).board;
        assert_eq!(read(&translated), [(normalize(&a).board, -4, 5), (initial, 0, 5)]);
        assert_eq!(translated.origin.merged, 1);
        assert_eq!(translated.origin.place(RecordId(0)), Some(FilePlace { number: 3, offset: 4 + 2 * 17 }));
    }

    #[test]
    fn an_egbk_value_is_64_minus_the_stored_byte_read_as_i8() {
        for (raw, value) in [(0u8, 64), (64, 0), (60, 4), (127, -63), (128, 192), (200, 120), (255, 65)] {
            assert_eq!(StoredValue::Egbk(raw).value(), value, "byte {raw}");
        }
        assert_eq!(StoredValue::Egbk(127).checked(), Ok(-63));
        assert_eq!(StoredValue::Egbk(0).checked(), Ok(64));
        for raw in [128u8, 255] {
            let value = StoredValue::Egbk(raw).value();
            assert_eq!(StoredValue::Egbk(raw).checked(), Err(Problem::UnreadableValue { value, raw: Some(raw) }));
        }
        // Written back, every value the format holds reads as itself.
        for value in -63..=64i8 {
            let mut bytes = Vec::new();
            encode_egbk_record(&mut bytes, &Board::INITIAL, value);
            assert_eq!(StoredValue::Egbk(bytes[16]).checked(), Ok(value));
        }
    }

    #[test]
    fn a_value_out_of_range_makes_the_book_unreadable_naming_the_record_and_byte() {
        let ok = after(&["F5"]);
        for value in [65i8, -65, -126, 127] {
            let e = error(translate_egbk2(&egbk2(&[(ok, 0, 1), (Board::INITIAL, value, 1)])));
            assert_eq!((e.record, e.offset), (Some(2), 14 + 19));
            assert_eq!(e.problem, Problem::UnreadableValue { value: value.into(), raw: None });
        }
        let e = error(translate_egbk(&egbk(&[(ok, 64), (Board::INITIAL, 200)]), 1));
        assert_eq!((e.record, e.offset), (Some(2), 4 + 17));
        assert_eq!(e.problem, Problem::UnreadableValue { value: 120, raw: Some(200) });
        assert!(
            e.to_string()
                .starts_with("record 2 at byte 21: value 120 (64 minus the stored byte 200, which reads as -56)"),
            "{e}"
        );
    }

    #[test]
    fn boards_with_overlapping_discs_or_an_empty_centre_are_refused() {
        let overlap = Board::new(Board::INITIAL.player | 1, Board::INITIAL.opponent | 1);
        let e = error(translate_egbk2(&egbk2(&[(Board::INITIAL, 0, 1), (overlap, 0, 1)])));
        assert_eq!((e.record, e.offset), (Some(2), 33));
        assert!(matches!(e.problem, Problem::Overlap { .. }));
        let hollow = Board::new(Board::INITIAL.player, 0);
        let e = error(translate_egbk(&egbk(&[(hollow, 64)]), 1));
        assert_eq!((e.record, e.offset), (Some(1), 4));
        assert!(matches!(e.problem, Problem::EmptyCentre { .. }));
    }

    #[test]
    fn a_short_or_cut_egbk2_is_refused_where_it_ends() {
        let whole = egbk2(&[(Board::INITIAL, 0, 1), (after(&["F5"]), 0, 1)]);
        let e = error(translate_egbk2(&whole[..12]));
        assert_eq!((e.record, e.problem), (None, Problem::ShortHeader { len: 12, needed: 14 }));
        let e = error(translate_egbk2(&whole[..whole.len() - 1]));
        assert_eq!((e.record, e.offset), (Some(2), 33));
        assert_eq!(e.problem, Problem::Truncated { needed: 19, left: 18 });
        // Pairs counted past the end.
        let mut cut = whole.clone();
        cut[33 + N_PAIRS_AT] = 3;
        let e = error(translate_egbk2(&cut));
        assert_eq!(e.problem, Problem::Truncated { needed: 25, left: 19 });
        // The header counts fewer records than the file holds.
        let mut long = whole.clone();
        long[10..14].copy_from_slice(&1i32.to_le_bytes());
        let e = error(translate_egbk2(&long));
        assert_eq!((e.record, e.offset), (Some(2), 33));
        assert_eq!(e.problem, Problem::TrailingBytes { counted: 1, left: 19 });
    }

    #[test]
    fn a_huge_or_negative_count_is_bounded_by_the_file() {
        let mut bytes = egbk2(&[(Board::INITIAL, 0, 1)]);
        bytes[10..14].copy_from_slice(&i32::MAX.to_le_bytes());
        let e = error(translate_egbk2(&bytes));
        assert_eq!((e.record, e.problem), (Some(2), Problem::Truncated { needed: 19, left: 0 }));
        // Below 0 counts no record, as Egaroucid reads it: the file must end there.
        bytes[10..14].copy_from_slice(&(-1i32).to_le_bytes());
        bytes[10..14].copy_from_slice(&(-7i32).to_le_bytes());
        let e = error(translate_egbk2(&bytes));
        assert_eq!(e.problem, Problem::TrailingBytes { counted: -7, left: 19 });
        assert!(e.to_string().contains("the header counts -7 records (none"), "{e}");
        let translated = translate_egbk2(&bytes[..14]).unwrap();
        assert!(read(&translated).is_empty());
    }

    #[test]
    fn an_egbk_is_a_file_whose_size_its_count_gives() {
        let whole = egbk(&[(Board::INITIAL, 64), (after(&["F5"]), 63)]);
        assert!(is_egbk(&whole) && is_egbk(&0i32.to_le_bytes()));
        for cut in [0, 3, 5, whole.len() - 1] {
            assert!(!is_egbk(&whole[..cut]), "cut at {cut}");
            assert!(translate_egbk(&whole[..cut], 1).is_err());
        }
        let mut longer = whole.clone();
        longer.push(0);
        assert_eq!(error(translate_egbk(&longer, 1)).problem, Problem::EgbkSize { n_boards: 2, len: 39 });
        assert_eq!(error(translate_egbk(&whole[..3], 1)).problem, Problem::ShortHeader { len: 3, needed: 4 });
        assert!(!is_egbk(&(-1i32).to_le_bytes()));
    }

    #[test]
    fn stored_pairs_are_checked_for_a_legal_unrepeated_move_and_otherwise_ignored() {
        let mut bytes = Vec::new();
        encode_egbk2_header(&mut bytes, 1);
        let pairs = [(1, play("F5").code()), (2, play("A1").code()), (3, play("F5").code()), (4, 65), (5, 64)];
        encode_egbk2_record(&mut bytes, &Board::INITIAL, 0, 1, &pairs);
        let (_, _, record) = egbk2_records(&bytes, &egbk2_header(&bytes).unwrap()).next().unwrap().unwrap();
        let mut problems = Vec::new();
        record.pair_problems(&mut problems);
        let fault = |pair, code, fault| Problem::BadPair { pair, code, fault };
        assert_eq!(
            problems,
            [
                fault(1, 0, PairFault::Illegal),
                fault(2, 37, PairFault::Repeated),
                fault(3, 65, PairFault::NotAMove),
                fault(4, 64, PairFault::Illegal)
            ]
        );
        assert_eq!(read(&translate_egbk2(&bytes).unwrap()), [(normalize(&Board::INITIAL).board, 0, 1)]);
    }
}
