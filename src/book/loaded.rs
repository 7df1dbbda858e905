//! A book ready to walk, whatever its format: the file's bytes, the reader
//! for its layout, every record checked, and the index built.

use super::file::{BookCounts, BookFile, IndexLookup, Layout, ReadOptions};
use super::index::{build, half_of, IndexKey, Located, PositionIndex, HALVES, KEY_HINT_BITS};
use super::problem::BookError;
use super::resolved::{LinkTargets, MovesFound, ResolvedBook, Targets};
use crate::board::{hash_board, Board};
use crate::format::edax::{self, Starts, STARTS_EVERY};
use crate::format::egaroucid;
use crate::format::egaroucid::older::{self as older, OlderHeader, Origin};
use crate::format::Format;
use crate::format::Header;
use crate::os::Bytes;
use crate::parallel::on_runs_of;
use crate::record::problem::FormatError;
use crate::record::{Record, RecordId};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A book read: its file checked (docs/formats.md), and every board indexed to its record.
pub struct Book {
    file: BookFile,
    index: PositionIndex,
    /// Where an Edax book's stored moves lead, when a caller found it
    /// already ([`Book::with_moves_found`]).
    found: Option<MovesFound>,
}

/// A book ready to walk.
impl Book {
    /// Maps and indexes a book file, failing on any problem docs/formats.md
    /// (what is checked) lists for `mine`. A wrong header count is only a warning.
    pub fn open(path: &Path, options: &ReadOptions) -> Result<Book, BookError> {
        Book::build(path.to_path_buf(), Bytes::open(path)?, options)
    }

    /// [`Book::open`] of a book a run made for itself (a book composed or
    /// grown before its negamax, in a hidden folder), named `shown_as` in
    /// messages and the log: the user knows it by what it becomes.
    pub fn open_as(path: &Path, shown_as: &str, options: &ReadOptions) -> Result<Book, BookError> {
        Book::build(PathBuf::from(shown_as), Bytes::open(path)?, options)
    }

    /// Indexes a book held in memory, read with the default
    /// [`ReadOptions`]; `name` stands for the path in messages.
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Book, BookError> {
        Book::from_bytes_with(name, bytes, &ReadOptions::default())
    }

    /// [`Book::from_bytes`] with the given options.
    pub fn from_bytes_with(name: &str, bytes: Vec<u8>, options: &ReadOptions) -> Result<Book, BookError> {
        Book::build(PathBuf::from(name), Bytes::owned(bytes), options)
    }

    fn build(path: PathBuf, bytes: Bytes, options: &ReadOptions) -> Result<Book, BookError> {
        let began = std::time::Instant::now();
        let (bytes, Checked { layout, counts, per_half, keys }) = check(&path, bytes, options)?;
        tracing::debug!("{}: records checked in {:.3} s", path.display(), began.elapsed().as_secs_f64());
        let claimed = match &layout {
            Layout::Edax { header, .. } => i64::from(header.n_nodes),
            Layout::Egaroucid { header, .. } => i64::from(header.n_boards),
        };
        if claimed != counts.records as i64 {
            tracing::warn!(
                "{}: header says {}, the file holds {}; using the records",
                path.display(),
                crate::wording::count(claimed, "position", "positions"),
                counts.records
            );
        }
        let file = BookFile { path, bytes, layout, counts };
        let began = std::time::Instant::now();
        let index = build(per_half, &keys, &file).map_err(|e| file.build_error(e))?;
        drop(keys);
        if file.changed() {
            return Err(BookError::Changed { path: file.path });
        }
        tracing::debug!("{}: index built in {:.3} s", file.path.display(), began.elapsed().as_secs_f64());
        Ok(Book { file, index, found: None })
    }

    /// The file and its records.
    pub fn file(&self) -> &BookFile {
        &self.file
    }

    /// The file, as named.
    pub fn path(&self) -> &Path {
        &self.file.path
    }

    /// What the book holds, counted at load.
    pub fn counts(&self) -> BookCounts {
        self.file.counts
    }

    /// The format it was read in.
    pub fn format(&self) -> Format {
        self.file.format()
    }

    /// Has an Edax book's header say `errors` from now on, for every
    /// negamax of it and every book written from it (`enhance` stores its
    /// errors so); false, and nothing changed, for an Egaroucid book, whose
    /// header holds none.
    pub fn set_search_errors(&mut self, errors: crate::negamax::SearchErrors) -> bool {
        match &mut self.file.layout {
            Layout::Edax { header, .. } => {
                (header.midgame_error, header.endcut_error) = (errors.midgame, errors.endcut);
                true
            }
            Layout::Egaroucid { .. } => false,
        }
    }

    /// The file's header, in its own format (an older Egaroucid book's,
    /// not its translation's).
    pub fn header(&self) -> Header {
        match &self.file.layout {
            Layout::Edax { header, .. } => Header::Edax(header.clone()),
            Layout::Egaroucid { header, origin: None } => Header::Egbk3(header.clone()),
            Layout::Egaroucid { origin: Some(origin), .. } => match &origin.header {
                OlderHeader::Egbk2(header) => Header::Egbk2(header.clone()),
                OlderHeader::Egbk(header) => Header::Egbk(header.clone()),
            },
        }
    }

    /// The index board → record.
    pub fn index(&self) -> &PositionIndex {
        &self.index
    }

    /// The book's boards looked up stage by stage, as the Egaroucid
    /// reader finds a record's links.
    pub fn lookup(&self) -> IndexLookup<'_> {
        IndexLookup { file: &self.file, index: &self.index }
    }

    /// Where the record of a stored (normalized) board is.
    pub fn locate(&self, board: &Board) -> Option<Located> {
        self.file.find(&self.index, board).map(|place| self.index.located(place))
    }

    /// [`Book::locate`] of several boards, their lookups overlapped: every
    /// probe is asked for before any is read, so that their cache misses
    /// come together instead of one after another.
    pub fn locate_all(&self, boards: &[Board], found: &mut Vec<Option<Located>>) {
        let hashes: smallvec::SmallVec<[u64; 16]> = boards.iter().map(hash_board).collect();
        for &hash in &hashes {
            self.index.prefetch_filter(hash);
            self.index.prefetch(hash);
        }
        for &hash in &hashes {
            if self.index.may_hold(hash) {
                self.file.prefetch_candidate(&self.index, hash);
            }
        }
        found.extend(boards.iter().zip(&hashes).map(|(board, &hash)| {
            let held = self.index.may_hold(hash);
            held.then(|| self.file.find_hashed(&self.index, board, hash)).flatten().map(|p| self.index.located(p))
        }));
    }

    /// An [`ImageFilter`](super::ImageFilter) of every board the book
    /// holds: built on each call (a byte a position) on every core, for
    /// work that asks about many boards the book mostly does not hold.
    pub fn image_filter(&self) -> super::filter::ImageFilter {
        let file = &self.file;
        let (count, records) = (file.counts.positions as usize, file.counts.records as usize);
        let parts = crate::parallel::workers();
        super::filter::ImageFilter::build_in_parts(count, records, parts, |ids| {
            file.records_in(ids).map(|at| file.board_of(at))
        })
    }

    /// A [`Locator`](super::Locator): boards looked up many at a time.
    pub fn locator(&self) -> super::resolve::Locator<'_> {
        super::resolve::Locator::new(&self.file, &self.index)
    }

    /// Resolves every stored move to the record its child is, on every
    /// core, and drops the index: the book as a walk reads it.
    pub fn resolve(self) -> ResolvedBook {
        self.resolve_or_keep(false)
    }

    /// [`Book::resolve`], the index kept: [`ResolvedBook::into_book`]
    /// gives the book back once the walks are done.
    pub fn resolve_keeping_index(self) -> ResolvedBook {
        self.resolve_or_keep(true)
    }

    fn resolve_or_keep(self, keep_index: bool) -> ResolvedBook {
        let Book { file, index, found } = self;
        match found {
            Some(MovesFound(targets)) => {
                tracing::debug!("{}: where its moves lead was found before", file.path.display());
                ResolvedBook::new(file, Targets::Edax(targets), keep_index.then_some(index))
            }
            None => super::resolve::resolve(file, index, keep_index),
        }
    }

    /// The book with where its stored moves lead found already, for
    /// [`Book::resolve`] to take instead of looking its moves up: `found`
    /// holds every record of this Edax book, in file order, as resolving
    /// finds them (else it is let go, and the book resolved as any other).
    pub fn with_moves_found(self, found: MovesFound) -> Book {
        let whole = matches!(self.file.layout(), Layout::Edax { .. }) && found.links() as u64 == self.file.counts.links;
        if !whole {
            tracing::debug!("{}: where its moves lead was not found whole; resolved", self.file.path.display());
        }
        Book { found: whole.then_some(found), ..self }
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

impl ResolvedBook {
    /// The book again, indexed, and where an Edax book's links lead (the
    /// leaves' targets dropped; none for an Egaroucid book, whose links
    /// change as positions are added); the resolved book itself back for a
    /// book whose index was not kept.
    pub fn into_book(self) -> Result<(Book, Option<LinkTargets>), Box<ResolvedBook>> {
        let (file, index, targets) = self.into_parts()?;
        Ok((Book { file, index, found: None }, targets))
    }
}

/// What the first pass over a book found.
struct Checked {
    layout: Layout,
    counts: BookCounts,
    /// How many boards each half of the index gets.
    per_half: [usize; HALVES],
    /// Every record's [`IndexKey`], by record id. In the small pages the
    /// system gives by default, not huge ones: the keys are written in
    /// order and read in order, so huge pages would spare no TLB misses,
    /// and where the kernel has to gather each fresh huge page first, they
    /// cost several times as much to touch (docs/benchmarks.md, fresh
    /// memory: loading the 100M book's 800 MB of keys took 2 to 6 s longer).
    keys: Vec<IndexKey>,
}

/// The first pass over a book in whichever format it is: the bytes the
/// book is read from (an older Egaroucid book's translation, else the
/// file's) and what was found in them.
fn check(path: &Path, bytes: Bytes, options: &ReadOptions) -> Result<(Bytes, Checked), BookError> {
    // A problem found in bytes that changed meanwhile says nothing of the book.
    let fail = |bytes: &Bytes, error| match bytes.changed() {
        true => BookError::Changed { path: path.to_path_buf() },
        false => BookError::Format { path: path.to_path_buf(), error },
    };
    let translated = match Format::of(bytes.as_slice()) {
        Format::Edax => {
            let checked = check_edax(bytes.as_slice()).map_err(|e| fail(&bytes, e))?;
            return Ok((bytes, checked));
        }
        Format::Egbk3 => {
            let checked = check_egaroucid(bytes.as_slice(), None).map_err(|e| fail(&bytes, e))?;
            return Ok((bytes, checked));
        }
        Format::Egbk2 => older::translate_egbk2(bytes.as_slice()),
        Format::Egbk => older::translate_egbk(bytes.as_slice(), options.egbk_level.to_i8()),
    };
    let translated = translated.map_err(|e| fail(&bytes, e))?;
    // Nothing is read from the file after this, so no later change reaches the book.
    if bytes.changed() {
        return Err(BookError::Changed { path: path.to_path_buf() });
    }
    let owned = Bytes::owned(translated.bytes);
    let checked = check_egaroucid(owned.as_slice(), Some(Box::new(translated.origin))).map_err(|e| fail(&owned, e))?;
    Ok((owned, checked))
}

/// First pass over an Edax book: every record whole and passing the load
/// checks; counts them (and each half of the index's share) so the index is
/// sized by what the file holds, never by the header, and notes each
/// record's key, so that building the index does not read the file again.
fn check_edax(bytes: &[u8]) -> Result<Checked, FormatError> {
    check_edax_in(bytes, crate::parallel::workers())
}

/// [`check_edax`] in `parts` runs of records, each on a thread of its own:
/// where every record starts is found first, reading a byte a record, then
/// the runs are checked and hashed side by side (a 100M-position book's
/// pass took one thread 1.3–1.7 s). Whatever the runs, the counts, the keys
/// and the first problem in file order are those of one pass through the file.
fn check_edax_in(bytes: &[u8], parts: usize) -> Result<Checked, FormatError> {
    let header = edax::parse_header(bytes)?;
    let whole = edax::whole_records(bytes);
    // Zeroed by the kernel as each run's thread writes its keys, in the
    // small pages the system gives by default (see [`Checked::keys`]).
    let mut keys: Vec<IndexKey> = bytemuck::zeroed_vec(whole.count);
    let tallies =
        on_runs_of(&mut keys, parts.max(1), STARTS_EVERY, |run, keys| check_edax_run(bytes, &whole.starts, run, keys));
    let mut tally = Tally::default();
    // The runs are in file order, and each stops at its own first problem.
    for run in tallies {
        tally.add(&run?);
    }
    let mut starts = whole.starts;
    // What follows the whole records: nothing, or the record cut short
    // whose problem one pass through the file would report.
    let rest = edax::records_from(bytes, whole.end, RecordId(whole.count as u32));
    for item in rest {
        let (id, offset, raw) = item?;
        starts.note(id, offset as u64);
        keys.push(tally.check(id, offset, &raw, &starts)?);
    }
    let Tally { counts, per_half, .. } = tally;
    Ok(Checked { layout: Layout::Edax { header, starts }, counts, per_half, keys })
}

/// Checks the records `run` (whole, starting where `starts` says) into their keys.
fn check_edax_run(
    bytes: &[u8],
    starts: &Starts,
    run: Range<usize>,
    keys: &mut [IndexKey],
) -> Result<Tally, FormatError> {
    let mut tally = Tally::default();
    let first = RecordId(run.start as u32);
    let records = edax::records_from(bytes, starts.offset(first, 0) as usize, first).take(run.len());
    for (item, key) in records.zip(keys) {
        let (id, offset, raw) = item?;
        *key = tally.check(id, offset, &raw, starts)?;
    }
    Ok(tally)
}

// An Edax record's hint, its distance from the last kept start, fits in a key.
const _: () = assert!(edax::HINT_END <= 1 << KEY_HINT_BITS);

/// What a run of an Edax book's records added up to.
#[derive(Default)]
struct Tally {
    counts: BookCounts,
    per_half: [usize; HALVES],
    /// Problems of the record in hand, kept for the next.
    problems: Vec<crate::record::problem::Problem>,
}

impl Tally {
    /// Checks one record, counts it, and gives its key.
    fn check(
        &mut self,
        id: RecordId,
        offset: usize,
        raw: &edax::RawRecord<'_>,
        starts: &Starts,
    ) -> Result<IndexKey, FormatError> {
        raw.load_problems(&mut self.problems);
        if let Some(problem) = self.problems.drain(..).next() {
            return Err(FormatError { record: Some(id.number()), offset: offset as u64, problem });
        }
        self.counts.records += 1;
        self.counts.positions += 1;
        self.counts.links += raw.n_links() as u64;
        self.counts.leaves += u64::from(raw.has_leaf());
        let hash = hash_board(&raw.board());
        self.per_half[half_of(hash)] += 1;
        Ok(IndexKey::new(hash, starts.hint(id, offset as u64)))
    }

    /// Adds a later run's counts.
    fn add(&mut self, run: &Tally) {
        self.counts.records += run.counts.records;
        self.counts.positions += run.counts.positions;
        self.counts.links += run.counts.links;
        self.counts.leaves += run.counts.leaves;
        for (half, n) in self.per_half.iter_mut().zip(run.per_half) {
            *half += n;
        }
    }
}

/// First pass over a book in the `.egbk3` layout, as [`check_edax`]; `origin`
/// is what it was translated from, if it was.
fn check_egaroucid(bytes: &[u8], origin: Option<Box<Origin>>) -> Result<Checked, FormatError> {
    let header = egaroucid::parse_header(bytes)?;
    let mut counts = BookCounts::default();
    let mut per_half = [0; HALVES];
    let mut problems = Vec::new();
    let mut keys = Vec::with_capacity(bytes.len() / egaroucid::RECORD_LEN);
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
    counts.merged = origin.as_ref().map_or(0, |origin| origin.merged);
    Ok(Checked { layout: Layout::Egaroucid { header, origin }, counts, per_half, keys })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::{book_bytes, SynthOptions};

    /// What the first pass finds, as compared.
    type Found = Result<(BookCounts, [usize; HALVES], Vec<IndexKey>, String), FormatError>;

    /// The slow reference: one pass through the file, record after record.
    fn in_one_pass(bytes: &[u8]) -> Found {
        edax::parse_header(bytes)?;
        let (mut counts, mut per_half, mut keys) = (BookCounts::default(), [0; HALVES], Vec::new());
        let (mut starts, mut problems) = (Starts::default(), Vec::new());
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
        Ok((counts, per_half, keys, format!("{starts:?}")))
    }

    fn in_runs(bytes: &[u8], parts: usize) -> Found {
        let checked = check_edax_in(bytes, parts)?;
        let Layout::Edax { starts, .. } = checked.layout else { panic!("an Edax book") };
        Ok((checked.counts, checked.per_half, checked.keys, format!("{starts:?}")))
    }

    /// Where each record of a book starts, and its length.
    fn records_of(bytes: &[u8]) -> Vec<(usize, usize)> {
        edax::records(bytes).map(|r| r.unwrap()).map(|(_, offset, raw)| (offset, raw.byte_len())).collect()
    }

    /// The first pass in runs, on every core, finds what one pass through
    /// the file finds: the same counts, keys and starts in a whole book,
    /// the same first problem in a damaged one, wherever the damage lies
    /// among the runs (a book of 13,000 records: runs of 4,096 or more).
    #[test]
    fn the_first_pass_in_runs_finds_what_one_pass_finds() {
        let book = book_bytes(&SynthOptions { positions: 13_000, seed: 9, perturb: 0.1 });
        let records = records_of(&book);
        assert_eq!(records.len(), 13_000);
        let mut damaged: Vec<(&str, Vec<u8>)> = vec![("whole", book.clone())];
        for (k, what) in [(11_000, "leaf move code"), (100, "leaf move code"), (6000, "overlap")] {
            let mut bytes = book.clone();
            let (offset, len) = records[k];
            match what {
                "overlap" => bytes.copy_within(offset + 8..offset + 16, offset),
                _ => bytes[offset + len - 1] = 0xff,
            }
            damaged.push((what, bytes));
        }
        // Two problems: the earlier one, in an earlier run, is the one reported.
        let mut two = book.clone();
        for k in [9000, 3000] {
            let (offset, len) = records[k];
            two[offset + len - 1] = 0xff;
        }
        damaged.push(("two problems", two));
        // A record's length changed: every record after it is read from elsewhere.
        let mut shifted = book.clone();
        shifted[records[5000].0 + edax::N_LINK_AT] ^= 1;
        damaged.push(("a length changed", shifted));
        // Cut short in the last record, in the middle, and just after the header.
        for cut in [book.len() - 3, records[7000].0 + 10, edax::HEADER_LEN + 5] {
            damaged.push(("cut short", book[..cut].to_vec()));
        }
        // The last record said to be longer than what is left.
        let mut longer = book.clone();
        longer[records[12_999].0 + edax::N_LINK_AT] = 255;
        damaged.push(("the last too long", longer));
        for (what, bytes) in &damaged {
            let expected = in_one_pass(bytes);
            if *what != "whole" {
                assert!(expected.is_err(), "{what}: damaged");
            }
            for parts in [1, 2, 3, 5] {
                assert!(in_runs(bytes, parts) == expected, "{what}, in {parts} runs");
            }
        }
    }
}
