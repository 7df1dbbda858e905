//! A loaded book: the file's bytes (memory-mapped), and a hash index from each
//! stored board to its record's offset, with the walk's visited flag beside it.

use super::format::{self, FormatError, Header, Problem, Record, RECORD_MIN_LEN};
use crate::board::Board;
use hashbrown::HashTable;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};

/// A book file that cannot be used, with the file it is about.
#[derive(Debug)]
pub enum BookError {
    Io { path: PathBuf, source: std::io::Error },
    Format { path: PathBuf, error: FormatError },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            BookError::Format { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for BookError {}

/// The bytes of a book: mapped from a file, or owned (books built in memory).
pub enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Bytes {
    fn map(file: &File) -> std::io::Result<Bytes> {
        // SAFETY: the map is read-only and lives as long as the `Book`. If another
        // process truncates the file while it is mapped, reads past the new end
        // fault (SIGBUS); that is the documented cost of mapping, accepted
        // because books are large and this tool only reads them. Every access
        // goes through bounds-checked slices of the mapped length.
        let map = unsafe { memmap2::MmapOptions::new().populate().map(file)? };
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::WillNeed);
        Ok(Bytes::Mapped(map))
    }

    /// Maps a book file (reads it, when too short to map), naming the file in errors.
    pub fn open(path: &Path) -> Result<Bytes, BookError> {
        let io = |source| BookError::Io { path: path.to_path_buf(), source };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len < format::HEADER_LEN as u64 {
            // Too short to map usefully (an empty file cannot be mapped at all).
            return std::fs::read(path).map(Bytes::Owned).map_err(io);
        }
        Bytes::map(&file).map_err(io)
    }

    pub fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(vec) => vec,
        }
    }
}

/// Sizes read off the records while loading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BookCounts {
    pub positions: u64,
    pub links: u64,
    pub leaves: u64,
}

/// The file's bytes and header: records are read from here in place.
pub struct RecordStore {
    path: PathBuf,
    bytes: Bytes,
    header: Header,
    counts: BookCounts,
}

impl RecordStore {
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn counts(&self) -> BookCounts {
        self.counts
    }

    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// The record at an offset the index holds.
    pub fn record_at(&self, offset: u64) -> Record<'_> {
        format::next_record(self.bytes(), offset as usize).expect("the index holds offsets of whole records")
    }

    #[inline]
    fn board_at(&self, offset: u64) -> Board {
        let at = offset as usize;
        let bytes = &self.bytes()[at..at + 16];
        Board::new(
            u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes")),
        )
    }

    /// The 1-based number of the record at `offset`, found by scanning: for
    /// error messages only.
    pub fn record_number(&self, offset: u64) -> u64 {
        format::records(self.bytes())
            .filter_map(Result::ok)
            .find(|&(_, at, _)| at as u64 == offset)
            .map_or(0, |(n, _, _)| n)
    }
}

/// An index entry: the record's offset halved (records start at even
/// offsets, since the header and every record have even lengths), with the
/// top bit for the walk's visited flag. Four bytes a position instead of
/// eight, so more of the table stays in cache; the price is a 4 GiB limit on
/// the file, checked at load.
type Entry = u32;

/// Set in an index entry once the walk has arrived at its position.
const VISITED: Entry = 1 << 31;

/// The largest book the index can address.
pub const MAX_BOOK_LEN: u64 = 1 << 32;

fn entry_of(offset: usize) -> Entry {
    debug_assert!(offset % 2 == 0 && (offset as u64) < MAX_BOOK_LEN);
    (offset / 2) as Entry
}

fn offset_of(entry: Entry) -> u64 {
    u64::from(entry & !VISITED) * 2
}

/// The index is split in two by one bit of the hash, so that loading builds
/// both halves at once, one on each core.
const SHARDS: usize = 2;

/// Which half of the index a hash belongs to: a bit hashbrown uses neither
/// for its tag (the top seven) nor, in any table that fits in memory, for
/// the bucket.
fn shard_of(hash: u64) -> usize {
    (hash >> 56) as usize & (SHARDS - 1)
}

/// Finds records by board. Each entry is a record offset with the walk's
/// visited flag beside it, so one probe finds both.
pub struct PositionIndex {
    shards: [Shard; SHARDS],
}

/// One half of the index.
struct Shard {
    table: HashTable<Entry>,
    /// An occupied bucket to find other buckets' memory from, for
    /// [`Shard::prefetch`]; `None` if the layout is not the one expected.
    anchor: Option<usize>,
}

/// Where a board sits in the index: found once, then visited without
/// probing again. Valid until the index changes (it does not while walking).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    shard: usize,
    bucket: usize,
}

/// What [`PositionIndex::visit`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visit {
    pub offset: u64,
    /// False when the walk had already arrived at this position.
    pub first_time: bool,
}

/// Mixes both halves of a board into a hash whose high bits (hashbrown's tag)
/// and low bits (its bucket) both depend on every disc.
#[inline]
pub fn hash_board(board: &Board) -> u64 {
    let mut h = board.player.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ board.opponent.rotate_left(31);
    h = (h ^ (h >> 32)).wrapping_mul(0xd6e8_feb8_6659_fd93);
    h ^ (h >> 29)
}

impl PositionIndex {
    fn shard(&self, hash: u64) -> &Shard {
        &self.shards[shard_of(hash)]
    }

    /// The offset of the record for a stored (normalized) board.
    pub fn find(&self, store: &RecordStore, board: &Board) -> Option<u64> {
        let slot = self.locate(store, board)?;
        self.shards[slot.shard].table.get_bucket(slot.bucket).map(|&e| offset_of(e))
    }

    /// Where a stored board's entry is, reading its record on the way.
    #[inline]
    pub fn locate(&self, store: &RecordStore, board: &Board) -> Option<Slot> {
        self.locate_hashed(store, board, hash_board(board))
    }

    /// [`PositionIndex::locate`] with the board's hash already known.
    #[inline]
    pub fn locate_hashed(&self, store: &RecordStore, board: &Board, hash: u64) -> Option<Slot> {
        let shard = shard_of(hash);
        let bucket = self.shards[shard].table.find_bucket_index(hash, |&e| {
            let offset = offset_of(e);
            // A record often spans two cache lines: ask for the one with
            // the move count and moves while comparing the board in the first.
            prefetch_index::prefetch_index(store.bytes(), offset as usize + RECORD_MIN_LEN - 1);
            store.board_at(offset) == *board
        })?;
        Some(Slot { shard, bucket })
    }

    /// Asks the CPU to start loading what a lookup of `hash` will read
    /// first, so that the lookup, made a little later, does not wait for it.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        self.shard(hash).prefetch(hash);
    }

    /// Marks a located position visited.
    #[inline]
    pub fn visit_slot(&mut self, slot: Slot) -> Visit {
        let shard = &mut self.shards[slot.shard];
        let entry = shard.table.get_bucket_mut(slot.bucket).expect("a slot from locate on this index");
        let first_time = *entry & VISITED == 0;
        *entry |= VISITED;
        Visit { offset: offset_of(*entry), first_time }
    }

    /// Looks a stored board up and marks it visited.
    pub fn visit(&mut self, store: &RecordStore, board: &Board) -> Option<Visit> {
        let slot = self.locate(store, board)?;
        Some(self.visit_slot(slot))
    }

    /// Forgets every visit, for a new walk.
    pub fn clear_visited(&mut self) {
        for entry in self.shards.iter_mut().flat_map(|s| s.table.iter_mut()) {
            *entry &= !VISITED;
        }
    }

    /// Bytes the tables hold, for reports.
    pub fn allocation_size(&self) -> usize {
        self.shards.iter().map(|s| s.table.allocation_size()).sum()
    }
}

impl Shard {
    /// Prefetches the control bytes and entries where a probe for `hash` starts.
    ///
    /// hashbrown keeps no API for this, so the addresses come from its layout:
    /// entry `i` sits `i + 1` entries below the control bytes, and a probe
    /// starts at bucket `hash & (buckets - 1)`. [`Shard::check_layout`]
    /// checks the first against real entries; were either to change, a
    /// prefetch would only load the wrong line.
    #[inline]
    fn prefetch(&self, hash: u64) {
        let Some(anchor) = self.anchor else { return };
        let Some(entry) = self.table.get_bucket(anchor) else { return };
        let start = hash as usize & (self.table.num_buckets() - 1);
        let near = std::slice::from_ref(entry);
        // Offsets in entries from the anchor (wrapping: the target may be below it).
        prefetch_index::prefetch_index(near, anchor.wrapping_sub(start));
        prefetch_index::prefetch_index(near, anchor + 1 + start / std::mem::size_of::<Entry>());
    }

    /// Keeps the anchor only if entries lie where [`Shard::prefetch`] expects.
    fn check_layout(mut self) -> Shard {
        let table = &self.table;
        let address = |bucket: usize| table.get_bucket(bucket).map(|e| e as *const Entry as usize);
        let expected = self.anchor.and_then(|anchor| {
            let base = address(anchor)?;
            table.iter_buckets().take(64).all(|bucket| {
                let below = bucket.wrapping_sub(anchor).wrapping_mul(std::mem::size_of::<Entry>());
                address(bucket) == Some(base.wrapping_sub(below))
            })
            .then_some(anchor)
        });
        self.anchor = expected;
        self
    }
}

/// A book ready to walk.
pub struct Book {
    store: RecordStore,
    index: PositionIndex,
}

impl Book {
    /// Maps and indexes a book file, failing on any problem SPEC §7 lists for
    /// `mine`. A wrong header count is only a warning.
    pub fn open(path: &Path) -> Result<Book, BookError> {
        Book::build(path.to_path_buf(), Bytes::open(path)?)
    }

    /// Indexes a book held in memory; `name` stands for the path in messages.
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Book, BookError> {
        Book::build(PathBuf::from(name), Bytes::Owned(bytes))
    }

    fn build(path: PathBuf, bytes: Bytes) -> Result<Book, BookError> {
        let fail = |error| BookError::Format { path: path.clone(), error };
        let header = format::parse_header(bytes.as_slice()).map_err(fail)?;
        let len = bytes.as_slice().len() as u64;
        if len > MAX_BOOK_LEN {
            return Err(fail(FormatError { record: None, offset: 0, problem: Problem::TooLarge { len, limit: MAX_BOOK_LEN } }));
        }
        let began = std::time::Instant::now();
        let (counts, per_shard) = check_records(bytes.as_slice()).map_err(fail)?;
        tracing::debug!("{}: records checked in {:.3} s", path.display(), began.elapsed().as_secs_f64());
        if i64::from(header.n_nodes) != counts.positions as i64 {
            tracing::warn!(
                "{}: header says {} positions, the file holds {}; using the records",
                path.display(),
                header.n_nodes,
                counts.positions
            );
        }
        let store = RecordStore { path, bytes, header, counts };
        let began = std::time::Instant::now();
        let index = build_index(&store, per_shard).map_err(|error| BookError::Format { path: store.path.clone(), error })?;
        tracing::debug!("{}: index built in {:.3} s", store.path.display(), began.elapsed().as_secs_f64());
        Ok(Book { store, index })
    }

    pub fn store(&self) -> &RecordStore {
        &self.store
    }

    /// The store to read records from and the index to mark visits in, borrowed apart.
    pub fn parts_mut(&mut self) -> (&RecordStore, &mut PositionIndex) {
        (&self.store, &mut self.index)
    }

    pub fn index(&self) -> &PositionIndex {
        &self.index
    }

    /// The record of a stored (normalized) board, with its offset.
    pub fn find(&self, board: &Board) -> Option<(u64, Record<'_>)> {
        let offset = self.index.find(&self.store, board)?;
        Some((offset, self.store.record_at(offset)))
    }
}

/// First pass: every record whole and passing the load checks; counts them
/// (and each half of the index's share) so the index is sized by what the
/// file holds, never by the header.
fn check_records(bytes: &[u8]) -> Result<(BookCounts, [usize; SHARDS]), FormatError> {
    let mut counts = BookCounts::default();
    let mut per_shard = [0; SHARDS];
    let mut problems = Vec::new();
    for item in format::records(bytes) {
        let (number, offset, record) = item?;
        record.load_problems(&mut problems);
        if !problems.is_empty() {
            return Err(FormatError { record: Some(number), offset: offset as u64, problem: problems.swap_remove(0) });
        }
        counts.positions += 1;
        counts.links += record.n_links() as u64;
        counts.leaves += u64::from(record.leaf().is_some());
        per_shard[shard_of(hash_board(&record.board()))] += 1;
    }
    Ok((counts, per_shard))
}

/// How many records ahead of its insertion each record's slot is prefetched.
const INSERT_AHEAD: usize = 16;

/// A record waiting for its slot to arrive in cache.
struct Pending {
    number: u64,
    offset: usize,
    board: Board,
    hash: u64,
}

/// Second pass: one entry per record, refusing a position stored twice.
/// Each half of the index is built on a thread of its own.
fn build_index(store: &RecordStore, per_shard: [usize; SHARDS]) -> Result<PositionIndex, FormatError> {
    let built: Vec<Result<Shard, FormatError>> = std::thread::scope(|scope| {
        let threads: Vec<_> =
            (0..SHARDS).map(|shard| scope.spawn(move || build_shard(store, shard, per_shard[shard]))).collect();
        threads.into_iter().map(|t| t.join().expect("an index thread does not panic")).collect()
    });
    let mut shards = Vec::with_capacity(SHARDS);
    let mut first_error: Option<FormatError> = None;
    for result in built {
        match result {
            Ok(shard) => shards.push(shard.check_layout()),
            // Each half stops at its own first duplicate; report the earlier.
            Err(e) if first_error.as_ref().is_none_or(|f| e.record < f.record) => first_error = Some(e),
            Err(_) => {}
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let shards = shards.try_into().unwrap_or_else(|_| unreachable!("one table per shard"));
    Ok(PositionIndex { shards })
}

/// Builds one half of the index from the records whose hash falls in it.
/// Records are read in file order and their slots prefetched a few records
/// before the insertion, so the table's cache misses overlap.
fn build_shard(store: &RecordStore, shard: usize, count: usize) -> Result<Shard, FormatError> {
    let mut built = Shard { table: HashTable::with_capacity(count), anchor: None };
    let mut pending = std::collections::VecDeque::with_capacity(INSERT_AHEAD);
    for item in format::records(store.bytes()) {
        let (number, offset, record) = item?;
        let board = record.board();
        let hash = hash_board(&board);
        if shard_of(hash) != shard {
            continue;
        }
        built.prefetch(hash);
        pending.push_back(Pending { number, offset, board, hash });
        if pending.len() == INSERT_AHEAD {
            built.insert(store, pending.pop_front().expect("a full queue"))?;
        }
    }
    while let Some(record) = pending.pop_front() {
        built.insert(store, record)?;
    }
    Ok(built)
}

impl Shard {
    /// Adds a record's entry; its board must not be in the index already.
    fn insert(&mut self, store: &RecordStore, record: Pending) -> Result<(), FormatError> {
        let hasher = |&e: &Entry| hash_board(&store.board_at(offset_of(e)));
        match self.table.entry(record.hash, |&e| store.board_at(offset_of(e)) == record.board, hasher) {
            hashbrown::hash_table::Entry::Vacant(slot) => {
                let bucket = slot.insert(entry_of(record.offset)).bucket_index();
                // The first entry anchors prefetching for the rest (the table
                // was sized for every record, so it does not move).
                self.anchor.get_or_insert(bucket);
                Ok(())
            }
            hashbrown::hash_table::Entry::Occupied(first) => {
                let first_offset = offset_of(*first.get());
                Err(FormatError {
                    record: Some(record.number),
                    offset: record.offset as u64,
                    problem: Problem::Duplicate { first_record: store.record_number(first_offset), first_offset },
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_every_even_offset_below_the_limit_and_the_flag_apart() {
        for offset in [42usize, 84, 1 << 20, (MAX_BOOK_LEN - 2) as usize] {
            let entry = entry_of(offset);
            assert_eq!(entry & VISITED, 0, "offset {offset} reaches the flag bit");
            assert_eq!(offset_of(entry), offset as u64);
            assert_eq!(offset_of(entry | VISITED), offset as u64);
        }
    }

    #[test]
    fn prefetching_finds_the_layout_it_expects() {
        let mut bytes = Vec::new();
        crate::synth::synthesize(&crate::synth::SynthOptions { positions: 2000, seed: 3, perturb: 0.0 }, &mut bytes).unwrap();
        let book = Book::from_bytes("test.dat", bytes).unwrap();
        // Were hashbrown's layout to change, prefetching would turn itself off
        // (and this test would say so) rather than load the wrong lines.
        assert!(book.index().shards.iter().all(|s| s.anchor.is_some()));
    }
}
