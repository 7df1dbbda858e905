//! The book's file as the format-neutral book sees it: its bytes, the
//! format and layout its first bytes announce, and each record read by
//! number through the reader for that format.

use super::index::{BuildError, Located, PositionIndex, Refused, Slot, StoredBoards};
use super::problem::BookError;
use crate::board::{hash_board, Board};
use crate::format::edax::{self, Starts};
use crate::format::egaroucid::older::{OlderHeader, Origin};
use crate::format::egaroucid::{self, Lookup};
use crate::format::Format;
use crate::level::Level;
use crate::os::Bytes;
use crate::record::problem::{FormatError, Problem};
use crate::record::{Details, FilePlace, Record, RecordId, Score};
use std::path::{Path, PathBuf};

/// What reading a book needs besides its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// The level every record of an `.egbk` gets: the format stores none
    /// (README.md, configuration: `egbk_level`; docs/formats.md, older Egaroucid books).
    pub egbk_level: Level,
}

impl ReadOptions {
    /// The level an `.egbk` book's records get unless told otherwise.
    pub const EGBK_LEVEL: Level = Level::new(1).expect("1 is a level");
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions { egbk_level: ReadOptions::EGBK_LEVEL }
    }
}

/// Records handled together when a book is read in chunks across the cores
/// (convert, cut, fix, diff): a chunk that starts at a multiple of this id
/// is found without a scan in any layout (an Edax book keeps where every
/// [`edax::STARTS_EVERY`]th record starts; an Egaroucid record's place is
/// its id times its size).
pub const CHUNK_RECORDS: usize = edax::STARTS_EVERY;

/// How records are found in the bytes.
pub(super) enum Layout {
    Edax {
        header: edax::Header,
        starts: Starts,
    },
    /// The `.egbk3` layout: an `.egbk3` file's, or the translation of an
    /// older Egaroucid book, whose `origin` says what the file was.
    Egaroucid {
        header: egaroucid::Header,
        origin: Option<Box<Origin>>,
    },
}

/// Sizes read off the records while loading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BookCounts {
    /// Records of the book: the file's, but for an older Egaroucid book
    /// those left once the records of one position are merged.
    pub records: u64,
    /// Records of an older Egaroucid book merged into an earlier one of the
    /// same position (docs/formats.md, older Egaroucid books): the file holds `records + merged`.
    pub merged: u64,
    /// Positions in the book: records, less those an Egaroucid book marks as
    /// having no value.
    pub positions: u64,
    /// Stored links (Edax only: Egaroucid's are found while walking).
    pub links: u64,
    /// Records with a leaf.
    pub leaves: u64,
}

/// The file's bytes and how to read records from them.
pub struct BookFile {
    pub(super) path: PathBuf,
    pub(super) bytes: Bytes,
    pub(super) layout: Layout,
    pub(super) counts: BookCounts,
}

impl BookFile {
    /// The file, as named.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// What the book holds, counted at load.
    pub fn counts(&self) -> BookCounts {
        self.counts
    }

    /// True if the file changed since it was read (see [`Bytes::changed`]):
    /// nothing read from it can be trusted then.
    pub fn changed(&self) -> bool {
        self.bytes.changed()
    }

    /// The format of the file the book was read from.
    pub fn format(&self) -> Format {
        match &self.layout {
            Layout::Edax { .. } => Format::Edax,
            Layout::Egaroucid { origin: None, .. } => Format::Egbk3,
            Layout::Egaroucid { origin: Some(origin), .. } => match origin.header {
                OlderHeader::Egbk2(_) => Format::Egbk2,
                OlderHeader::Egbk(_) => Format::Egbk,
            },
        }
    }

    /// Where the record `id`, which starts at `offset` in [`BookFile::bytes`],
    /// was read from in the file: what messages and `inspect` name.
    pub fn place(&self, id: RecordId, offset: u64) -> FilePlace {
        match &self.layout {
            Layout::Egaroucid { origin: Some(origin), .. } => origin.place(id),
            Layout::Egaroucid { origin: None, .. } | Layout::Edax { .. } => None,
        }
        .unwrap_or(FilePlace::of(id, offset))
    }

    /// [`BookFile::place`] of a record.
    pub fn place_of(&self, record: &Record) -> FilePlace {
        self.place(record.id, record.offset)
    }

    pub(super) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// How the index and the resolved book name the record `id`, which
    /// starts at `offset`.
    pub fn located(&self, id: RecordId, offset: u64) -> Located {
        match &self.layout {
            Layout::Edax { starts, .. } => Located { id, hint: starts.hint(id, offset) },
            Layout::Egaroucid { .. } => Located { id, hint: 0 },
        }
    }

    /// Every record that is part of the book, in file order (an Egaroucid
    /// record whose value is out of range is not).
    pub fn every_record(&self) -> Box<dyn Iterator<Item = Located> + '_> {
        self.records_in(0..self.counts.records as usize)
    }

    /// The records with ids in `ids` that are part of the book, in file
    /// order (found from the first one's id, walking at most 63 records).
    pub fn records_in(&self, ids: std::ops::Range<usize>) -> Box<dyn Iterator<Item = Located> + '_> {
        let bytes = self.bytes();
        let (Ok(first), Ok(end)) = (u32::try_from(ids.start), u32::try_from(ids.end)) else {
            return Box::new(std::iter::empty());
        };
        match &self.layout {
            Layout::Edax { .. } => Box::new(self.edax_records_in(ids).map(|(id, offset, _)| self.located(id, offset))),
            Layout::Egaroucid { .. } => {
                let end = end.min(u32::try_from(self.counts.records).unwrap_or(u32::MAX));
                Box::new(
                    (first..end)
                        .map(RecordId)
                        .filter(|&id| egaroucid::record_at(bytes, id).is_some_and(|r| r.is_in_book()))
                        .map(|id| Located { id, hint: 0 }),
                )
            }
        }
    }

    /// An Edax book's records with ids in `ids`, in file order, each read
    /// in place with its id and where it starts: [`BookFile::records_in`]
    /// for a pass that reads every record, which would otherwise find each
    /// one again from where it is located (a check of every record before
    /// every growth run goes through these). None in the `.egbk3` layout.
    pub fn edax_records_in(
        &self,
        ids: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (RecordId, u64, edax::RawRecord<'_>)> + '_ {
        let is_edax = matches!(self.layout, Layout::Edax { .. });
        let first = u32::try_from(ids.start).ok().filter(|_| is_edax).map(RecordId);
        let start = first.and_then(|first| Some((first, self.offset_of_id(first)?)));
        start.into_iter().flat_map(move |(first, offset)| {
            edax::records_from(self.bytes(), offset as usize, first)
                .take(ids.len())
                .map_while(Result::ok)
                .map(|(id, offset, raw)| (id, offset as u64, raw))
        })
    }

    /// The record `id`, if it is part of the book: `records_in(id..id + 1)`
    /// without an iterator to make (a record's parents are found by id,
    /// one at a time).
    pub fn locate_id(&self, id: RecordId) -> Option<Located> {
        match &self.layout {
            Layout::Edax { .. } => {
                let offset = self.offset_of_id(id)?;
                edax::next_record(self.bytes(), offset as usize).ok()?;
                Some(self.located(id, offset))
            }
            Layout::Egaroucid { .. } => {
                let raw = egaroucid::record_at(self.bytes(), id).filter(|_| u64::from(id.0) < self.counts.records)?;
                raw.is_in_book().then_some(Located { id, hint: 0 })
            }
        }
    }

    /// Where a record starts in the file.
    pub fn offset(&self, at: Located) -> u64 {
        match &self.layout {
            Layout::Edax { starts, .. } => starts.offset(at.id, at.hint),
            Layout::Egaroucid { .. } => egaroucid::offset_of(at.id),
        }
    }

    /// Where the record `id` starts, found from its id alone (an Edax
    /// record by walking at most 63 records); none past the last record.
    fn offset_of_id(&self, id: RecordId) -> Option<u64> {
        match &self.layout {
            Layout::Edax { starts, .. } => starts.offset_by_walking(self.bytes(), id),
            Layout::Egaroucid { .. } => (u64::from(id.0) < self.counts.records).then(|| egaroucid::offset_of(id)),
        }
    }

    /// The board of a record, without reading the rest of it. Both layouts
    /// start a record with its board.
    #[inline]
    pub fn board_of(&self, at: Located) -> Board {
        self.board_at(self.offset(at))
    }

    /// The board of the record at `offset`.
    #[inline]
    pub fn board_at(&self, offset: u64) -> Board {
        let offset = offset as usize;
        let word = |from: usize| {
            self.bytes().get(from..from + 8).map_or(0, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        };
        Board::new(word(offset), word(offset + 8))
    }

    /// An Edax book's record, read in place; `None` if it no longer reads,
    /// which only a book changed since it was loaded can make happen.
    pub fn edax_record(&self, at: Located) -> Option<edax::RawRecord<'_>> {
        edax::record_at(self.bytes(), self.offset(at) as usize)
    }

    /// An Egaroucid book's record, read in place; `None` as for
    /// [`BookFile::edax_record`].
    pub fn egaroucid_record(&self, at: Located) -> Option<egaroucid::RawRecord<'_>> {
        egaroucid::record_at(self.bytes(), at.id)
    }

    /// The value of a record, read without the rest of it (an Egaroucid
    /// value out of range reads as it is).
    #[inline]
    pub fn value_of(&self, at: Located) -> Score {
        let value = match self.layout {
            Layout::Edax { .. } => self.edax_record(at).map(|raw| raw.value()),
            Layout::Egaroucid { .. } => self.egaroucid_record(at).map(|raw| Score(raw.raw_value())),
        };
        // Only a book changed since it was checked has no record there.
        value.unwrap_or(Score(0))
    }

    /// Asks the CPU to start loading a record's first bytes.
    #[inline]
    pub fn prefetch(&self, at: Located) {
        self.prefetch_offset(self.offset(at));
    }

    /// Asks the CPU to start loading the first bytes of the record at `offset`.
    #[inline]
    pub fn prefetch_offset(&self, offset: u64) {
        self.prefetch_span(offset, edax::RECORD_MIN_LEN);
    }

    /// Asks the CPU to start loading the board of the record at `offset`
    /// alone: its first [`edax::BOARD_LEN`] bytes.
    #[inline]
    pub fn prefetch_board(&self, offset: u64) {
        self.prefetch_span(offset, edax::BOARD_LEN);
    }

    /// Asks for the `len` bytes from `offset`: their first and last lines,
    /// the same one when they do not cross a line.
    #[inline]
    fn prefetch_span(&self, offset: u64, len: usize) {
        let offset = offset as usize;
        prefetch_index::prefetch_index(self.bytes(), offset);
        prefetch_index::prefetch_index(self.bytes(), offset + len - 1);
    }

    /// Asks the CPU to start loading the record a lookup of `hash` will
    /// most likely compare boards with: worth it once the index group that
    /// [`PositionIndex::prefetch`] asked for has had time to arrive.
    #[inline]
    pub fn prefetch_candidate(&self, index: &PositionIndex, hash: u64) {
        if let Some(candidate) = index.first_candidate(hash) {
            self.prefetch(candidate);
        }
    }

    /// Where a stored (normalized) board's entry is.
    #[inline]
    pub fn find(&self, index: &PositionIndex, board: &Board) -> Option<Slot> {
        self.find_hashed(index, board, hash_board(board))
    }

    /// [`BookFile::find`] with the board's hash already known.
    #[inline]
    pub fn find_hashed(&self, index: &PositionIndex, board: &Board, hash: u64) -> Option<Slot> {
        index.find(hash, board, self)
    }

    /// The record at a place the index holds. Should the bytes have changed
    /// since they were checked, the record reads as having no moves rather
    /// than failing here; the change itself is found by [`BookFile::changed`].
    pub fn record(&self, index: &PositionIndex, at: Located) -> Record {
        let offset = self.offset(at);
        match &self.layout {
            Layout::Edax { .. } => match edax::next_record(self.bytes(), offset as usize) {
                Ok(raw) => raw.to_record(at.id, offset),
                Err(_) => self.unreadable(at.id, offset),
            },
            Layout::Egaroucid { .. } => match egaroucid::record_at(self.bytes(), at.id) {
                Some(raw) => raw.to_record(at.id, &IndexLookup { file: self, index }),
                None => self.unreadable(at.id, offset),
            },
        }
    }

    pub(super) fn unreadable(&self, id: RecordId, offset: u64) -> Record {
        let details = match self.layout {
            Layout::Edax { .. } => Details::Edax { counts: [0; 4], lower: Score(0), upper: Score(0) },
            Layout::Egaroucid { .. } => Details::Egaroucid { n_lines: 0, stored_leaf: None, leaf_level: 0 },
        };
        Record {
            id,
            offset,
            board: Board::default(),
            value: Score(0),
            level: 0,
            links: Default::default(),
            leaf: None,
            details,
        }
    }

    /// The load error for a record the index refused.
    pub(super) fn build_error(&self, e: BuildError) -> BookError {
        if self.changed() {
            return BookError::Changed { path: self.path.clone() };
        }
        let problem = match e.refused {
            Refused::Duplicate(first) => {
                let first = self.place(first.id, self.offset(first));
                Problem::Duplicate { first_record: first.number, first_offset: first.offset }
            }
            Refused::Full => return BookError::Changed { path: self.path.clone() },
        };
        let at = self.place(e.at.id, self.offset(e.at));
        let error = FormatError { record: Some(at.number), offset: at.offset, problem };
        BookError::Format { path: self.path.clone(), error }
    }
}

impl StoredBoards for BookFile {
    #[inline]
    fn board(&self, at: Located) -> Board {
        self.board_of(at)
    }

    #[inline]
    fn prefetch(&self, at: Located) {
        BookFile::prefetch(self, at)
    }
}

/// The book as an Egaroucid record sees it when finding its links: its
/// boards looked up stage by stage, so that the lookups of one record's
/// moves overlap ([`Lookup`]).
pub struct IndexLookup<'a> {
    pub(super) file: &'a BookFile,
    pub(super) index: &'a PositionIndex,
}

impl Lookup for IndexLookup<'_> {
    /// The stored board and its hash.
    type Probe = (Board, u64);
    type Found = Located;

    fn start(&self, stored: &Board) -> (Board, u64) {
        let hash = hash_board(stored);
        self.index.prefetch(hash);
        (*stored, hash)
    }

    fn prefetch_next(&self, &(_, hash): &(Board, u64)) {
        self.file.prefetch_candidate(self.index, hash);
    }

    fn find(&self, (stored, hash): &(Board, u64)) -> Option<(Located, Score)> {
        let place = self.file.find_hashed(self.index, stored, *hash)?;
        let at = self.index.located(place);
        egaroucid::record_at(self.file.bytes(), at.id).map(|raw| (at, Score(raw.raw_value())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::Book;
    use crate::format::egaroucid::older;
    use crate::format::Header;

    #[test]
    fn an_older_book_is_read_as_its_translation_and_remembers_its_file() {
        use crate::symmetry::{normalize, Symmetry};
        let f5 = crate::board::Square::parse("F5").unwrap();
        let after_f5 = Board::INITIAL.after(crate::board::Move::Play(f5)).unwrap();
        let turned = Symmetry::ALL[3].board(&after_f5);
        let mut bytes = Vec::new();
        older::encode_egbk_header(&mut bytes, 3);
        for (board, value) in [(after_f5, -1), (Board::INITIAL, 1), (turned, -2)] {
            older::encode_egbk_record(&mut bytes, &board, value);
        }
        let book =
            Book::from_bytes_with("old.egbk", bytes, &ReadOptions { egbk_level: Level::new(7).unwrap() }).unwrap();
        assert_eq!(book.format(), Format::Egbk);
        assert_eq!(book.header(), Header::Egbk(older::EgbkHeader { n_boards: 3 }));
        let counts = book.counts();
        assert_eq!((counts.records, counts.merged, counts.positions, counts.leaves), (2, 1, 2, 0));
        let child = book.find(&normalize(&after_f5).board).unwrap();
        assert_eq!((child.value(), child.level, child.id), (Score(-2), 7, RecordId(0)));
        // Read from the third record of the file, which replaced the first.
        assert_eq!(book.file().place_of(&child), FilePlace { number: 3, offset: 4 + 2 * 17 });
        let root = book.find(&normalize(&Board::INITIAL).board).unwrap();
        assert_eq!(book.file().place_of(&root), FilePlace { number: 2, offset: 4 + 17 });
        assert_eq!(book.records().count(), 2);
    }

    /// Every record found from its id alone, and every run of records from
    /// any first id, is the one a read of the whole file in order finds.
    #[test]
    fn a_record_found_by_id_is_the_one_read_in_order() {
        use crate::synth::{book_bytes, SynthOptions};
        let bytes = book_bytes(&SynthOptions { positions: 10_000, seed: 3, perturb: 0.1 });
        let book = Book::from_bytes("synthetic", bytes).unwrap();
        let file = book.file();
        let in_order: Vec<Located> = file.every_record().collect();
        assert!(in_order.len() > 2 * edax::STARTS_EVERY, "the book spans several starts");
        for (i, &at) in in_order.iter().enumerate() {
            assert_eq!(file.locate_id(at.id), Some(at), "record {i}");
            assert_eq!(file.offset(at), file.offset(file.locate_id(at.id).unwrap()));
        }
        assert_eq!(file.locate_id(RecordId(in_order.len() as u32)), None);
        for first in [0, 1, 63, 64, 65, 1023, 1024, 1100, 4095, 4096, 4100, in_order.len() - 1] {
            let run: Vec<Located> = file.records_in(first..first + 70).collect();
            assert_eq!(run, in_order[first..(first + 70).min(in_order.len())], "from {first}");
        }
    }
}
