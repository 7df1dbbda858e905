//! A book ready to walk, whatever its format: the file's bytes, the reader
//! for its layout, every record checked, and the index built.

use super::edax::{self, Starts};
use super::egaroucid::{self, Lookup};
use super::index::{build, half_of, hash_board, BuildError, IndexKey, Located, Place, PositionIndex, Refused, HALVES};
use super::mapped::Bytes;
use super::problem::{BookError, FormatError, Problem};
use super::record::{Details, Record, RecordId, Score};
use super::resolved::ResolvedBook;
use crate::board::Board;
use std::path::{Path, PathBuf};

/// The file formats bookminer reads, told apart by their first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Edax's `book.dat` (SPEC §1).
    Edax,
    /// Egaroucid's `.egbk3` (SPEC §8).
    Egaroucid,
}

impl Format {
    /// The format a file's first bytes announce. Anything that is not an
    /// Egaroucid book is read as Edax's, whose reader names what is wrong.
    pub fn of(bytes: &[u8]) -> Format {
        if egaroucid::is_egaroucid(bytes) {
            Format::Egaroucid
        } else {
            Format::Edax
        }
    }
}

/// A book's header, as its format has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Header {
    Edax(edax::Header),
    Egaroucid(egaroucid::Header),
}

/// How records are found in the bytes.
pub(super) enum Layout {
    Edax { header: edax::Header, starts: Starts },
    Egaroucid { header: egaroucid::Header },
}

/// Sizes read off the records while loading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BookCounts {
    /// Records in the file.
    pub records: u64,
    /// Positions in the book: records, less those an Egaroucid book marks as
    /// having no value.
    pub positions: u64,
    /// Stored links (Edax only: Egaroucid's are found while walking).
    pub links: u64,
    pub leaves: u64,
}

/// The file's bytes and how to read records from them.
pub struct BookFile {
    path: PathBuf,
    bytes: Bytes,
    layout: Layout,
    counts: BookCounts,
}

/// A book ready to walk.
pub struct Book {
    file: BookFile,
    index: PositionIndex,
}

impl Book {
    /// Maps and indexes a book file, failing on any problem SPEC §7 and §8
    /// list for `mine`. A wrong header count is only a warning.
    pub fn open(path: &Path) -> Result<Book, BookError> {
        Book::build(path.to_path_buf(), Bytes::open(path)?)
    }

    /// Indexes a book held in memory; `name` stands for the path in messages.
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Book, BookError> {
        Book::build(PathBuf::from(name), Bytes::owned(bytes))
    }

    fn build(path: PathBuf, bytes: Bytes) -> Result<Book, BookError> {
        let fail = |error| match bytes.changed() {
            true => BookError::Changed { path: path.clone() },
            false => BookError::Format { path: path.clone(), error },
        };
        let began = std::time::Instant::now();
        let Checked { layout, counts, per_half, keys } = match Format::of(bytes.as_slice()) {
            Format::Edax => check_edax(bytes.as_slice()).map_err(fail)?,
            Format::Egaroucid => check_egaroucid(bytes.as_slice()).map_err(fail)?,
        };
        tracing::debug!("{}: records checked in {:.3} s", path.display(), began.elapsed().as_secs_f64());
        let claimed = match &layout {
            Layout::Edax { header, .. } => i64::from(header.n_nodes),
            Layout::Egaroucid { header } => i64::from(header.n_boards),
        };
        if claimed != counts.records as i64 {
            tracing::warn!(
                "{}: header says {claimed} positions, the file holds {}; using the records",
                path.display(),
                counts.records
            );
        }
        let file = BookFile { path, bytes, layout, counts };
        let began = std::time::Instant::now();
        let index = build(per_half, &keys, &|at| file.board_of(at)).map_err(|e| file.build_error(e))?;
        drop(keys);
        if file.changed() {
            return Err(BookError::Changed { path: file.path });
        }
        tracing::debug!("{}: index built in {:.3} s", file.path.display(), began.elapsed().as_secs_f64());
        Ok(Book { file, index })
    }

    pub fn file(&self) -> &BookFile {
        &self.file
    }

    pub fn path(&self) -> &Path {
        &self.file.path
    }

    pub fn counts(&self) -> BookCounts {
        self.file.counts
    }

    pub fn format(&self) -> Format {
        self.file.format()
    }

    pub fn header(&self) -> Header {
        match &self.file.layout {
            Layout::Edax { header, .. } => Header::Edax(header.clone()),
            Layout::Egaroucid { header } => Header::Egaroucid(header.clone()),
        }
    }

    pub fn index(&self) -> &PositionIndex {
        &self.index
    }

    /// Where the record of a stored (normalized) board is.
    pub fn locate(&self, board: &Board) -> Option<Located> {
        self.file.find(&self.index, board).map(|place| self.index.located(place))
    }

    /// Resolves every stored move to the record its child is, on every
    /// core, and drops the index: the book as a walk reads it.
    pub fn resolve(self) -> ResolvedBook {
        super::resolve::resolve(self.file, self.index)
    }

    /// The record of a stored (normalized) board.
    pub fn find(&self, board: &Board) -> Option<Record> {
        let place = self.file.find(&self.index, board)?;
        Some(self.file.record(&self.index, self.index.located(place)))
    }

    /// Every record that is part of the book, in file order.
    pub fn records(&self) -> Box<dyn Iterator<Item = Record> + '_> {
        let bytes = self.file.bytes();
        match &self.file.layout {
            // Read in file order, each record's offset following from the
            // one before (finding each from its id alone walks up to 1023
            // records).
            Layout::Edax { .. } => Box::new(
                edax::records(bytes).map_while(Result::ok).map(|(id, offset, raw)| raw.to_record(id, offset as u64)),
            ),
            Layout::Egaroucid { .. } => {
                let count = u32::try_from(self.file.counts.records).unwrap_or(u32::MAX);
                Box::new((0..count).filter_map(move |id| self.record(RecordId(id))))
            }
        }
    }

    /// The record with this id, if it is part of the book.
    pub fn record(&self, id: RecordId) -> Option<Record> {
        let bytes = self.file.bytes();
        let hint = match &self.file.layout {
            Layout::Edax { starts, .. } => {
                let offset = starts.offset_by_walking(bytes, id)?;
                starts.hint(id, offset)
            }
            Layout::Egaroucid { .. } => {
                egaroucid::record_at(bytes, id).filter(|r| r.is_in_book())?;
                0
            }
        };
        Some(self.file.record(&self.index, Located { id, hint }))
    }
}

impl BookFile {
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    pub fn counts(&self) -> BookCounts {
        self.counts
    }

    /// True if the file changed since it was read (see [`Bytes::changed`]):
    /// nothing read from it can be trusted then.
    pub fn changed(&self) -> bool {
        self.bytes.changed()
    }

    pub fn format(&self) -> Format {
        match self.layout {
            Layout::Edax { .. } => Format::Edax,
            Layout::Egaroucid { .. } => Format::Egaroucid,
        }
    }

    pub(super) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// How the index and the resolved targets name the record `id`, which
    /// starts at byte `offset` (as the file's records are read in order).
    pub fn located_at(&self, id: RecordId, offset: u64) -> Located {
        match &self.layout {
            Layout::Edax { starts, .. } => Located { id, hint: starts.hint(id, offset) },
            Layout::Egaroucid { .. } => Located { id, hint: 0 },
        }
    }

    /// Where a record starts in the file.
    pub fn offset(&self, at: Located) -> u64 {
        match &self.layout {
            Layout::Edax { starts, .. } => starts.offset(at.id, at.hint),
            Layout::Egaroucid { .. } => egaroucid::offset_of(at.id),
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

    /// The value of a record, read without the rest of it (an Egaroucid
    /// value out of range reads as it is).
    #[inline]
    pub fn value_of(&self, at: Located) -> Score {
        let value = match self.layout {
            Layout::Edax { .. } => edax::record_at(self.bytes(), self.offset(at) as usize).map(|raw| raw.value()),
            Layout::Egaroucid { .. } => egaroucid::record_at(self.bytes(), at.id).map(|raw| Score(raw.raw_value())),
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
        let offset = offset as usize;
        prefetch_index::prefetch_index(self.bytes(), offset);
        prefetch_index::prefetch_index(self.bytes(), offset + edax::RECORD_MIN_LEN - 1);
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
    pub fn find(&self, index: &PositionIndex, board: &Board) -> Option<Place> {
        self.find_hashed(index, board, hash_board(board))
    }

    /// [`BookFile::find`] with the board's hash already known.
    #[inline]
    pub fn find_hashed(&self, index: &PositionIndex, board: &Board, hash: u64) -> Option<Place> {
        index.find(hash, board, |at| self.board_of(at))
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
            Layout::Egaroucid { .. } => Details::Egaroucid { n_lines: 0, leaf_level: 0 },
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
    fn build_error(&self, e: BuildError) -> BookError {
        if self.changed() {
            return BookError::Changed { path: self.path.clone() };
        }
        let problem = match e.refused {
            Refused::Duplicate(first) => {
                Problem::Duplicate { first_record: first.id.number(), first_offset: self.offset(first) }
            }
            Refused::Full => return BookError::Changed { path: self.path.clone() },
        };
        let error = FormatError { record: Some(e.at.id.number()), offset: self.offset(e.at), problem };
        BookError::Format { path: self.path.clone(), error }
    }
}

/// The book as an Egaroucid record sees it when finding its links.
struct IndexLookup<'a> {
    file: &'a BookFile,
    index: &'a PositionIndex,
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

/// What the first pass over a book found.
struct Checked {
    layout: Layout,
    counts: BookCounts,
    /// How many boards each half of the index gets.
    per_half: [usize; HALVES],
    /// Every record's [`IndexKey`], by record id.
    keys: Vec<IndexKey>,
}

/// First pass over an Edax book: every record whole and passing the load
/// checks; counts them (and each half of the index's share) so the index is
/// sized by what the file holds, never by the header, and notes each
/// record's key, so that building the index does not read the file again.
fn check_edax(bytes: &[u8]) -> Result<Checked, FormatError> {
    let header = edax::parse_header(bytes)?;
    let mut counts = BookCounts::default();
    let mut per_half = [0; HALVES];
    let mut starts = Starts::default();
    let mut problems = Vec::new();
    // As many records as the file could hold: a bound the file sets, not its header.
    let mut keys = Vec::with_capacity(bytes.len() / edax::RECORD_MIN_LEN);
    crate::memory::advise_huge_pages(&mut keys);
    for item in edax::records(bytes) {
        let (id, offset, raw) = item?;
        raw.load_problems(&mut problems);
        if let Some(problem) = problems.drain(..).next() {
            return Err(FormatError { record: Some(id.number()), offset: offset as u64, problem });
        }
        starts.note(id, offset as u64);
        counts.records += 1;
        counts.positions += 1;
        counts.links += raw.n_links() as u64;
        counts.leaves += u64::from(raw.has_leaf());
        let hash = hash_board(&raw.board());
        per_half[half_of(hash)] += 1;
        keys.push(IndexKey::new(hash, starts.hint(id, offset as u64)));
    }
    Ok(Checked { layout: Layout::Edax { header, starts }, counts, per_half, keys })
}

/// First pass over an Egaroucid book, as [`check_edax`].
fn check_egaroucid(bytes: &[u8]) -> Result<Checked, FormatError> {
    let header = egaroucid::parse_header(bytes)?;
    let mut counts = BookCounts::default();
    let mut per_half = [0; HALVES];
    let mut problems = Vec::new();
    let mut keys = Vec::with_capacity(bytes.len() / egaroucid::RECORD_LEN);
    crate::memory::advise_huge_pages(&mut keys);
    for item in egaroucid::records(bytes) {
        let (id, offset, raw) = item?;
        raw.load_problems(&mut problems);
        if let Some(problem) = problems.drain(..).next() {
            return Err(FormatError { record: Some(id.number()), offset: offset as u64, problem });
        }
        counts.records += 1;
        if !raw.is_in_book() {
            keys.push(IndexKey::NOT_INDEXED);
            continue;
        }
        counts.positions += 1;
        counts.leaves += u64::from(raw.leaf().is_some());
        let hash = hash_board(&raw.board());
        per_half[half_of(hash)] += 1;
        keys.push(IndexKey::new(hash, 0));
    }
    Ok(Checked { layout: Layout::Egaroucid { header }, counts, per_half, keys })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_is_told_by_the_first_bytes() {
        assert_eq!(Format::of(b"DICUORAGE\x03\0\0\0\0"), Format::Egaroucid);
        assert_eq!(Format::of(b"XADEKOOB"), Format::Edax);
        assert_eq!(Format::of(b"DICUORAG"), Format::Edax);
    }
}
