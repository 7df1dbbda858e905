//! The hash index from each stored board to its record's offset, with the
//! walk's visited flag beside it, in two halves built on two threads.

use super::format::{self, FormatError, Problem, RECORD_MIN_LEN};
use super::store::RecordStore;
use crate::board::Board;
use hashbrown::HashTable;

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
pub(super) const SHARDS: usize = 2;

/// Which half of the index a hash belongs to: a bit hashbrown uses neither
/// for its tag (the top seven) nor, in any table that fits in memory, for
/// the bucket.
pub(super) fn shard_of(hash: u64) -> usize {
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
        let bucket = self.shards[shard].table.find_bucket_index(hash, |&e| store.board_at(offset_of(e)) == *board)?;
        Some(Slot { shard, bucket })
    }

    /// Asks the CPU to start loading what a lookup of `hash` will read
    /// first, so that the lookup, made a little later, does not wait for it.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        self.shard(hash).prefetch(hash);
    }

    /// Prefetches the record a lookup of `hash` will most likely compare
    /// against: the first entry whose tag matches, read without comparing, so
    /// that nothing waits for the record here. A record often spans two cache
    /// lines; both are asked for.
    #[inline]
    pub fn prefetch_record(&self, store: &RecordStore, hash: u64) {
        if let Some(&entry) = self.shard(hash).table.iter_hash(hash).next() {
            let at = offset_of(entry) as usize;
            prefetch_index::prefetch_index(store.bytes(), at);
            prefetch_index::prefetch_index(store.bytes(), at + RECORD_MIN_LEN - 1);
        }
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
pub(super) fn build_index(store: &RecordStore, per_shard: [usize; SHARDS]) -> Result<PositionIndex, FormatError> {
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
    use crate::book::Book;

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
