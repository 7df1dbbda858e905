//! The hash index from each stored board to its record: a table of our own,
//! so that the walk can ask for the memory a lookup will touch before it
//! makes the lookup.
//!
//! Layout and probing: the index is split in two halves by one bit of the
//! board's hash, so that loading builds both at once, one per core. Each
//! half is an open-addressing table of `n` groups of seven buckets, each
//! group one 64-byte cache line: seven control bytes (0 = empty; else a
//! tag from bits 48–55 of the hash, 1..=255) and the seven buckets'
//! [`Located`] (id and reader hint, 8 bytes).
//! A lookup starts at the first bucket of group `(low 32 bits of hash × n) >> 32`
//! (the hash's low half scaled to `0..n`, so `n` need not be a power of two
//! and the table is sized to the book, not doubled past it) and runs on
//! bucket by bucket (linear probing, on into the next group) until an
//! empty bucket; a board is inserted at the first empty bucket of its run.
//! A group's seven control bytes are tested at once, as one word: the
//! buckets whose tag matches before the group's first empty bucket, then
//! the next group if it has none. Only buckets whose tag matches have their
//! record's board compared, so a lookup of an absent board rarely reads the
//! file, and it usually touches one cache line, which the walk prefetches.
//! Building compares those boards after each chunk of inserts, many at a
//! time (see `Chunk::insert_into`).
//! Tables are sized to be 3/4 full and never fill past 7/8, so every probe
//! ends.

use super::access_order::{RegionOrder, AHEAD};
use super::filter::{Filter, INDEXED_BITS};
use crate::board::Board;
use crate::record::RecordId;

/// Where a record is: its id, and a hint from the reader that finds its
/// bytes without a second lookup (for Edax, its distance from a nearby
/// record whose offset is kept; unused for fixed-size records).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Located {
    /// The record.
    pub id: RecordId,
    /// The reader's hint (see above).
    pub hint: u32,
}

/// Where a board's entry sits in the index. Valid while the index is not rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    half: usize,
    bucket: usize,
}

/// The index is built in this many halves, one per thread.
pub(super) const HALVES: usize = 2;

const EMPTY: u8 = 0;

/// Which half of the index a hash belongs to: bit 56, used neither by the
/// tag (bits 48–55) nor by the bucket (bits 0–31).
pub(super) fn half_of(hash: u64) -> usize {
    (hash >> 56) as usize & (HALVES - 1)
}

/// The control byte of a board with this hash: never [`EMPTY`]. Of the
/// buckets a lookup passes, only those with the same tag have their record's
/// board read, about one in 255.
fn tag_of(hash: u64) -> u8 {
    ((hash >> 48) as u8 % 255) + 1
}

/// What indexing needs of one record, noted when the records are first
/// read, so that building the index reads neither the file nor a board
/// again: in one word, the bits of its board's hash that the index uses
/// (bits 0–31 place it, 48–55 tag it, 56 picks its half), moved to bits
/// 0–40, and the reader's hint (22 bits, 41–62); or [`IndexKey::NOT_INDEXED`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Zeroable)]
#[repr(transparent)]
pub(super) struct IndexKey(u64);

/// Hints a key holds (the readers' hints stay below 2^22: see `book::loaded`).
pub(super) const KEY_HINT_BITS: u32 = 22;

impl IndexKey {
    /// A record whose board the index leaves out (an Egaroucid record that
    /// is not a position of the book).
    pub const NOT_INDEXED: IndexKey = IndexKey(u64::MAX);

    pub fn new(hash: u64, hint: u32) -> IndexKey {
        debug_assert!(hint < 1 << KEY_HINT_BITS, "hint {hint} does not fit");
        let hint = u64::from(hint & ((1 << KEY_HINT_BITS) - 1));
        IndexKey((hash & 0xffff_ffff) | ((hash >> 48) & 0x1ff) << 32 | hint << 41)
    }

    /// A hash with the bits the index reads as the board's own: the rest are 0.
    fn hash(self) -> u64 {
        (self.0 & 0xffff_ffff) | ((self.0 >> 32) & 0x1ff) << 48
    }

    fn hint(self) -> u32 {
        (self.0 >> 41) as u32 & ((1 << KEY_HINT_BITS) - 1)
    }
}

/// Buckets per group: a group is one cache line.
const GROUP: usize = 7;

/// Groups in 2 MiB, a huge page (see [`PositionIndex::region`]).
const GROUPS_PER_REGION: usize = (2 << 20) / 64;

/// Seven buckets in one cache line.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Group {
    control: [u8; 8],
    located: [Located; GROUP],
}

/// One half of the index.
struct Table {
    groups: Vec<Group>,
    len: usize,
    /// Says of most boards not held that they are not, without a probe.
    filter: Filter,
}

impl Table {
    /// A table for `count` boards, 3/4 full: fuller tables make longer
    /// probes (measured: at 7/8 the walk of a 10M-position book took 15%
    /// longer), emptier ones cost memory. Inserting stops at 7/8 full, so
    /// every probe ends at an empty bucket.
    fn with_room_for(count: usize) -> Table {
        let buckets = count + count / 3 + 1;
        let n = buckets.div_ceil(GROUP).max(2);
        let mut groups = Vec::with_capacity(n);
        crate::os::advise_huge_pages(&mut groups);
        groups.resize(n, Group::default());
        Table { groups, len: 0, filter: Filter::with_room_for(count) }
    }

    /// The group a probe for `hash` starts in.
    #[inline]
    fn group_of(&self, hash: u64) -> usize {
        (((hash & 0xffff_ffff) * self.groups.len() as u64) >> 32) as usize
    }

    fn buckets(&self) -> usize {
        self.groups.len() * GROUP
    }

    fn capacity(&self) -> usize {
        self.buckets() - self.buckets() / 8
    }

    /// The group after `group`, wrapping round at the end of the table.
    #[inline]
    fn next_group(&self, group: usize) -> usize {
        if group + 1 == self.groups.len() {
            0
        } else {
            group + 1
        }
    }

    #[inline]
    fn located(&self, bucket: usize) -> Located {
        self.groups[bucket / GROUP].located[bucket % GROUP]
    }

    #[inline]
    fn prefetch(&self, hash: u64) {
        prefetch_index::prefetch_index(&self.groups, self.group_of(hash));
    }

    /// The region (2 MiB of groups) a probe for `hash` starts in.
    #[inline]
    fn region(&self, hash: u64) -> u32 {
        (self.group_of(hash) / GROUPS_PER_REGION) as u32
    }

    fn regions(&self) -> usize {
        self.groups.len().div_ceil(GROUPS_PER_REGION)
    }

    /// The buckets a probe for `tag` passes through, group by group from
    /// `hash`'s first: for each group, its index, the buckets holding `tag`
    /// before the group's first empty bucket, and whether it has an empty
    /// bucket (where the probe ends).
    #[inline]
    fn probe(&self, hash: u64, tag: u8) -> impl Iterator<Item = (usize, ByteMask, bool)> + '_ {
        let mut group = self.group_of(hash);
        let mut ended = false;
        std::iter::from_fn(move || {
            if ended {
                return None;
            }
            let control = ControlWord::of(&self.groups[group]);
            let empty = control.matching(EMPTY);
            let visited = (group, control.matching(tag).before_first(empty), !empty.is_empty());
            ended = visited.2;
            group = self.next_group(group);
            Some(visited)
        })
    }

    /// The bucket holding `board`, comparing the boards `boards` holds
    /// only where the tag matches.
    #[inline]
    fn find(&self, hash: u64, board: &Board, boards: &impl StoredBoards) -> Option<usize> {
        self.probe(hash, tag_of(hash)).find_map(|(group, matches, _)| {
            matches.buckets().map(|i| group * GROUP + i).find(|&bucket| boards.board(self.located(bucket)) == *board)
        })
    }

    /// The first entry whose tag matches: the likeliest to be `hash`'s.
    /// The probe of [`Table::probe`], written out: it runs for every
    /// lookup the resolver makes.
    #[inline]
    fn first_candidate(&self, hash: u64) -> Option<Located> {
        let tag = tag_of(hash);
        let mut group = self.group_of(hash);
        loop {
            let control = ControlWord::of(&self.groups[group]);
            let empty = control.matching(EMPTY);
            if let Some(i) = control.matching(tag).before_first(empty).buckets().next() {
                return Some(self.groups[group].located[i]);
            }
            if !empty.is_empty() {
                return None;
            }
            group = self.next_group(group);
        }
    }

    /// The first empty bucket of `hash`'s run, if the table has one.
    fn first_empty(&self, hash: u64) -> Option<usize> {
        let mut group = self.group_of(hash);
        for _ in 0..self.groups.len() {
            if let Some(i) = ControlWord::of(&self.groups[group]).matching(EMPTY).buckets().next() {
                return Some(group * GROUP + i);
            }
            group = self.next_group(group);
        }
        None
    }

    /// Adds the board of the record `at`, noting in `suspects` every entry
    /// its probe passes whose tag matches: the only entries that can hold
    /// the same board. Whether one does is left to the caller, who reads
    /// both boards later, many at a time (see [`Chunk::insert_into`]); a
    /// board stored twice is in the table twice until then. Once
    /// `suspects` is full, the boards are compared here, read by `boards`,
    /// and a board an entry holds already is refused with that entry.
    /// Refused too when the table is full (the file changed between
    /// counting and indexing).
    fn insert(
        &mut self,
        hash: u64,
        at: Located,
        suspects: &mut Suspects,
        boards: &impl StoredBoards,
    ) -> Result<(), Refused> {
        let mut held = None;
        'probe: for (group, matches, _) in self.probe(hash, tag_of(hash)) {
            for entry in matches.buckets().map(|i| self.located(group * GROUP + i)) {
                if !suspects.note(Suspect { at, entry }) && same_board(boards, at, entry) {
                    held = Some(entry);
                    break 'probe;
                }
            }
        }
        if let Some(entry) = held {
            return Err(Refused::Duplicate(entry));
        }
        if self.len >= self.capacity() {
            return Err(Refused::Full);
        }
        let bucket = self.first_empty(hash).ok_or(Refused::Full)?;
        let group = &mut self.groups[bucket / GROUP];
        group.control[bucket % GROUP] = tag_of(hash);
        group.located[bucket % GROUP] = at;
        self.len += 1;
        self.filter.insert(hash & INDEXED_BITS);
        Ok(())
    }
}

/// Whether the records `at` and `entry` hold the same board: for an
/// insert past the bound of [`Suspects`], which a real book never reaches.
#[cold]
#[inline(never)]
fn same_board(boards: &impl StoredBoards, at: Located, entry: Located) -> bool {
    boards.board(at) == boards.board(entry)
}

/// An entry whose tag a board met on its way to its own bucket: the
/// record of the same board (none in a sound book), or another board with
/// the same tag (about one insert in 80 meets one at 215M positions).
#[derive(Clone, Copy, Debug)]
struct Suspect {
    /// The record inserted.
    at: Located,
    /// The entry its probe passed.
    entry: Located,
}

/// Suspects noted for later, up to a bound: a book made so that every
/// probe passes many entries of one tag cannot make the list grow without
/// end; past the bound, an insert compares its suspects' boards itself.
struct Suspects {
    noted: Vec<Suspect>,
    max: usize,
}

/// Suspects noted at most: 1 MiB, where a chunk of a real book notes
/// hundreds.
const MAX_SUSPECTS: usize = 1 << 16;

impl Suspects {
    fn new(max: usize) -> Suspects {
        Suspects { noted: Vec::new(), max }
    }

    /// Notes `suspect` unless the list is full: false then.
    #[inline]
    fn note(&mut self, suspect: Suspect) -> bool {
        let room = self.noted.len() < self.max;
        if room {
            self.noted.push(suspect);
        }
        room
    }
}

/// A group's control bytes as one word, byte `i` (from the least
/// significant) for bucket `i`; the eighth byte is padding.
#[derive(Clone, Copy)]
struct ControlWord(u64);

/// A set of a group's buckets: the high bit of byte `i` for bucket `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ByteMask(u64);

const LOW_SEVEN_BITS: u64 = 0x7f7f_7f7f_7f7f_7f7f;
/// The high bit of each of the seven buckets' bytes.
const BUCKET_BITS: u64 = 0x0080_8080_8080_8080;

impl ControlWord {
    fn of(group: &Group) -> ControlWord {
        ControlWord(u64::from_le_bytes(group.control))
    }

    /// The buckets whose control byte is `byte`, exactly: for each byte,
    /// adding 0x7f to its low seven bits carries into the high bit unless
    /// they are all zero, and the byte's own high bit is or-ed in; no carry
    /// crosses into the next byte.
    fn matching(self, byte: u8) -> ByteMask {
        let x = self.0 ^ (u64::from(byte) * 0x0101_0101_0101_0101);
        let nonzero = ((x & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | x;
        ByteMask(!nonzero & BUCKET_BITS)
    }
}

impl ByteMask {
    fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The buckets of `self` that come before the first bucket of `stop`.
    fn before_first(self, stop: ByteMask) -> ByteMask {
        let first_stop = stop.0 & stop.0.wrapping_neg();
        ByteMask(self.0 & first_stop.wrapping_sub(1))
    }

    /// The buckets, in increasing order.
    fn buckets(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            let bucket = (bits != 0).then(|| bits.trailing_zeros() as usize / 8);
            bits &= bits.wrapping_sub(1);
            bucket
        })
    }
}

/// Why a board was not added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// The board is there already, at this record.
    Duplicate(Located),
    /// More boards than counted.
    Full,
}

/// Finds records by board.
pub struct PositionIndex {
    halves: [Table; HALVES],
}

impl PositionIndex {
    /// Asks the CPU to start loading what a lookup of `hash` reads first,
    /// so that the lookup, made a little later, does not wait for it.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        self.halves[half_of(hash)].prefetch(hash);
    }

    /// Where a stored board's entry is, the records' boards read from `boards`.
    #[inline]
    pub(super) fn find(&self, hash: u64, board: &Board, boards: &impl StoredBoards) -> Option<Slot> {
        let half = half_of(hash);
        self.halves[half].find(hash, board, boards).map(|bucket| Slot { half, bucket })
    }

    /// The record an entry points to.
    #[inline]
    pub fn located(&self, place: Slot) -> Located {
        self.halves[place.half].located(place.bucket)
    }

    /// Where in memory a lookup of `hash` starts, to a 2 MiB region (a huge
    /// page): lookups made in order of region stay within few pages at a
    /// time, which the TLB holds, where lookups in any order would miss it
    /// nearly every time once the index is larger than its reach. Regions
    /// are numbered across both halves.
    #[inline]
    pub fn region(&self, hash: u64) -> u32 {
        let half = half_of(hash);
        let before = if half == 0 { 0 } else { self.halves[0].regions() as u32 };
        before + self.halves[half].region(hash)
    }

    /// How many regions [`PositionIndex::region`] numbers.
    pub fn regions(&self) -> usize {
        self.halves.iter().map(Table::regions).sum()
    }

    /// The record a lookup of `hash` will most likely compare against, to
    /// prefetch its board before the lookup. `None` means no board with
    /// this hash is held: `PositionIndex::find` compares only the records
    /// this probe passes.
    #[inline]
    pub fn first_candidate(&self, hash: u64) -> Option<Located> {
        self.halves[half_of(hash)].first_candidate(hash)
    }

    /// False if no board with this hash is held (most boards not held);
    /// true if one may be, which a lookup then tells.
    #[inline]
    pub fn may_hold(&self, hash: u64) -> bool {
        self.halves[half_of(hash)].filter.may_hold(hash & INDEXED_BITS)
    }

    /// Asks for what [`PositionIndex::may_hold`] of `hash` reads.
    #[inline]
    pub fn prefetch_filter(&self, hash: u64) {
        self.halves[half_of(hash)].filter.prefetch(hash & INDEXED_BITS);
    }

    /// Boards held.
    pub fn len(&self) -> usize {
        self.halves.iter().map(|t| t.len).sum()
    }

    /// Whether no board is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the tables hold, for reports.
    pub fn allocation_size(&self) -> usize {
        self.halves.iter().map(|t| t.groups.len() * std::mem::size_of::<Group>() + t.filter.allocation_size()).sum()
    }
}

/// Boards gathered before they are inserted, in order of region (see
/// [`PositionIndex::region`]): in a chunk, about a hundred inserts land on
/// each page of a 100M-position book's index together, instead of each
/// missing the TLB.
const INSERT_CHUNK: usize = 1 << 15;

/// A record waiting for its bucket to arrive in cache.
struct Pending {
    hash: u64,
    at: Located,
}

/// A board that could not be indexed: the record that holds it and why.
pub(super) struct BuildError {
    pub at: Located,
    pub refused: Refused,
}

/// The boards the index points into, read by where each record is.
pub(super) trait StoredBoards {
    /// The board of the record `at`.
    fn board(&self, at: Located) -> Board;
    /// Asks for the memory [`StoredBoards::board`] of `at` reads.
    fn prefetch(&self, at: Located);
}

/// Builds the index from every record's key (record `i`'s at `keys[i]`),
/// which each of the two threads runs through, taking its own half.
/// `per_half` says how many boards each half gets.
pub(super) fn build(
    per_half: [usize; HALVES],
    keys: &[IndexKey],
    boards: &(impl StoredBoards + Sync),
) -> Result<PositionIndex, BuildError> {
    build_noting(per_half, keys, boards, MAX_SUSPECTS)
}

/// [`build`], each thread noting at most `max_suspects` suspects a chunk.
fn build_noting(
    per_half: [usize; HALVES],
    keys: &[IndexKey],
    boards: &(impl StoredBoards + Sync),
    max_suspects: usize,
) -> Result<PositionIndex, BuildError> {
    let built: Vec<Result<Table, BuildError>> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..HALVES)
            .map(|half| scope.spawn(move || build_half(half, per_half[half], keys, boards, max_suspects)))
            .collect();
        threads.into_iter().map(|t| t.join().expect("an index thread does not panic")).collect()
    });
    let mut halves = Vec::with_capacity(HALVES);
    let mut first_error: Option<BuildError> = None;
    for result in built {
        match result {
            Ok(table) => halves.push(table),
            // Each half stops at its own first problem; report the earlier record.
            Err(e) if first_error.as_ref().is_none_or(|f| e.at.id < f.at.id) => first_error = Some(e),
            Err(_) => {}
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let halves = halves.try_into().unwrap_or_else(|_| unreachable!("one table per half"));
    Ok(PositionIndex { halves })
}

/// Builds one half from the records whose hash falls in it, in file order,
/// prefetching each bucket a few records before the insertion so that the
/// table's cache misses overlap.
fn build_half(
    half: usize,
    count: usize,
    keys: &[IndexKey],
    boards: &impl StoredBoards,
    max_suspects: usize,
) -> Result<Table, BuildError> {
    let mut table = Table::with_room_for(count);
    let mut chunk = Chunk::new(max_suspects);
    for (id, &key) in (0..=u32::MAX).map(RecordId).zip(keys) {
        let hash = key.hash();
        if key == IndexKey::NOT_INDEXED || half_of(hash) != half {
            continue;
        }
        chunk.pending.push(Pending { hash, at: Located { id, hint: key.hint() } });
        if chunk.pending.len() == INSERT_CHUNK {
            chunk.insert_into(&mut table, boards)?;
        }
    }
    chunk.insert_into(&mut table, boards)?;
    Ok(table)
}

/// Boards waiting to be inserted, and the buffers ordering them.
struct Chunk {
    pending: Vec<Pending>,
    regions: Vec<u32>,
    order: RegionOrder,
    suspects: Suspects,
}

impl Chunk {
    fn new(max_suspects: usize) -> Chunk {
        Chunk {
            pending: Vec::new(),
            regions: Vec::new(),
            order: RegionOrder::default(),
            suspects: Suspects::new(max_suspects),
        }
    }

    /// Inserts the boards gathered, in order of region, each group asked
    /// for a few inserts ahead; the order is stable, so that of two equal
    /// boards the one earlier in the file is inserted first. Then the
    /// suspects the inserts met are compared, their boards asked for a few
    /// comparisons ahead: comparing each as it was met made the insert
    /// wait on two reads of the book at random, once in 80 inserts at
    /// 215M positions (docs/benchmarks.md). On refusals, the earliest
    /// record refused is the error.
    fn insert_into(&mut self, table: &mut Table, boards: &impl StoredBoards) -> Result<(), BuildError> {
        self.regions.clear();
        self.regions.extend(self.pending.iter().map(|p| table.region(p.hash)));
        self.order.sort(&self.regions, table.regions());
        self.suspects.noted.clear();
        let mut first_error: Option<BuildError> = None;
        for (i, ahead) in self.order.with_ahead() {
            if let Some(ahead) = ahead {
                table.prefetch(self.pending[ahead].hash);
                table.filter.prefetch(self.pending[ahead].hash & INDEXED_BITS);
            }
            let p = &self.pending[i];
            if let Err(refused) = table.insert(p.hash, p.at, &mut self.suspects, boards) {
                keep_earlier(&mut first_error, BuildError { at: p.at, refused });
            }
        }
        if let Some(duplicate) = first_duplicate(&self.suspects.noted, boards) {
            keep_earlier(&mut first_error, duplicate);
        }
        self.pending.clear();
        first_error.map_or(Ok(()), Err)
    }
}

/// Keeps in `first` whichever error is of the earlier record; of two of
/// the same record, the duplicate, which was looked for before the room.
fn keep_earlier(first: &mut Option<BuildError>, error: BuildError) {
    let earlier = first.as_ref().is_none_or(|f| {
        error.at.id < f.at.id || (error.at.id == f.at.id && matches!(error.refused, Refused::Duplicate(_)))
    });
    if earlier {
        *first = Some(error);
    }
}

/// Of the suspects whose boards are the same, the earliest record's first
/// (in the order its probe met them), as the refusal of a board stored
/// twice.
fn first_duplicate(suspects: &[Suspect], boards: &impl StoredBoards) -> Option<BuildError> {
    let mut first: Option<BuildError> = None;
    for (k, suspect) in suspects.iter().enumerate() {
        if let Some(ahead) = suspects.get(k + AHEAD) {
            boards.prefetch(ahead.at);
            boards.prefetch(ahead.entry);
        }
        let earlier = first.as_ref().is_none_or(|f| suspect.at.id < f.at.id);
        if earlier && boards.board(suspect.at) == boards.board(suspect.entry) {
            first = Some(BuildError { at: suspect.at, refused: Refused::Duplicate(suspect.entry) });
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::hash_board;
    use std::collections::HashMap;

    /// Boards with ids, read back by id: the "file" the index points into.
    fn boards(n: u64) -> Vec<Board> {
        (0..n).map(|i| Board::new(i.wrapping_mul(0x9e37_79b9_7f4a_7c15), !i)).collect()
    }

    /// Each half's count and every record's key, record `i` holding `stored[i]`.
    fn keys_of(stored: &[Board], hint: u32) -> ([usize; HALVES], Vec<IndexKey>) {
        let mut per_half = [0; HALVES];
        for b in stored {
            per_half[half_of(hash_board(b))] += 1;
        }
        (per_half, stored.iter().map(|b| IndexKey::new(hash_board(b), hint)).collect())
    }

    /// Boards held in memory, record `i` holding the `i`th.
    struct Stored<'a>(&'a [Board]);

    impl StoredBoards for Stored<'_> {
        fn board(&self, at: Located) -> Board {
            self.0[at.id.index()]
        }

        fn prefetch(&self, _at: Located) {}
    }

    fn index_of(stored: &[Board]) -> PositionIndex {
        let (per_half, keys) = keys_of(stored, 7);
        build(per_half, &keys, &Stored(stored)).ok().expect("no duplicates")
    }

    #[test]
    fn a_key_keeps_the_hash_bits_the_index_reads_and_the_hint() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for hint in [0, 1, 564_696, (1 << KEY_HINT_BITS) - 1] {
            for _ in 0..1000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let key = IndexKey::new(x, hint);
                assert_eq!(key.hint(), hint);
                let hash = key.hash();
                assert_eq!(hash & 0xffff_ffff, x & 0xffff_ffff, "the bucket's bits");
                assert_eq!(tag_of(hash), tag_of(x));
                assert_eq!(half_of(hash), half_of(x));
                assert_ne!(key, IndexKey::NOT_INDEXED);
            }
        }
    }

    #[test]
    fn records_keyed_as_not_indexed_are_left_out() {
        let stored = boards(3000);
        let (mut per_half, mut keys) = keys_of(&stored, 0);
        for i in (0..3000).step_by(3) {
            per_half[half_of(hash_board(&stored[i]))] -= 1;
            keys[i] = IndexKey::NOT_INDEXED;
        }
        let index = build(per_half, &keys, &Stored(&stored)).ok().expect("no duplicates");
        assert_eq!(index.len(), 2000);
        for (i, b) in stored.iter().enumerate() {
            let found = index.find(hash_board(b), b, &Stored(&stored)).map(|p| index.located(p).id.index());
            assert_eq!(found, (i % 3 != 0).then_some(i), "record {i}");
        }
    }

    #[test]
    fn every_stored_board_is_found_and_no_other_agreeing_with_a_hash_map() {
        let stored = boards(20_000);
        let index = index_of(&stored);
        let reference: HashMap<Board, u32> = stored.iter().enumerate().map(|(i, b)| (*b, i as u32)).collect();
        for probe in boards(40_000) {
            let hash = hash_board(&probe);
            let found = index.find(hash, &probe, &Stored(&stored)).map(|p| index.located(p).id.0);
            assert_eq!(found, reference.get(&probe).copied(), "{probe:?}");
        }
        assert_eq!(index.len(), 20_000);
    }

    #[test]
    fn tables_stay_at_most_seven_eighths_full_so_probes_end() {
        for count in [0, 1, 13, 14, 15, 16, 1000, 1 << 16] {
            let table = Table::with_room_for(count);
            assert!(table.buckets() < (count + count / 3 + 1) + GROUP || table.groups.len() == 2, "sized to the count");
            assert!(count <= table.capacity(), "{count} boards in {} buckets", table.buckets());
            assert!(table.capacity() < table.buckets());
        }
    }

    /// Why indexing `stored` (record `i` holding `stored[i]`), each half
    /// sized to the boards it gets, fails.
    fn build_error(stored: &[Board]) -> BuildError {
        let (per_half, keys) = keys_of(stored, 0);
        build(per_half, &keys, &Stored(stored)).err().expect("boards stored twice")
    }

    #[test]
    fn a_board_stored_twice_is_refused_with_the_first_record() {
        let mut stored = boards(100);
        stored.push(stored[40]);
        let error = build_error(&stored);
        assert_eq!(error.at.id, RecordId(100));
        assert_eq!(error.refused, Refused::Duplicate(Located { id: RecordId(40), hint: 0 }));
    }

    #[test]
    fn of_several_boards_stored_twice_the_earliest_refused_is_reported_whatever_the_insert_order() {
        let mut stored = boards(3000);
        // Refused in file order: record 3000 (a repeat of 2500), then 3001, 3002.
        stored.extend([stored[2500], stored[7], stored[1200]]);
        let error = build_error(&stored);
        assert_eq!(error.at.id, RecordId(3000));
        assert_eq!(error.refused, Refused::Duplicate(Located { id: RecordId(2500), hint: 0 }));
    }

    /// The first record whose board an earlier record holds, and that
    /// record: what a hash map of the boards seen so far finds.
    fn first_repeat(stored: &[Board]) -> Option<(u32, u32)> {
        let mut seen: HashMap<Board, u32> = HashMap::new();
        stored.iter().zip(0..).find_map(|(b, i)| match seen.get(b) {
            Some(&first) => Some((i, first)),
            None => {
                seen.insert(*b, i);
                None
            }
        })
    }

    /// Boards whose hashes all carry one tag: nearly every entry a probe
    /// among them passes is a suspect to compare.
    fn boards_of_one_tag(count: usize) -> Vec<Board> {
        boards(1 << 20).into_iter().filter(|b| tag_of(hash_board(b)) == 7).take(count).collect()
    }

    #[test]
    fn boards_sharing_one_tag_are_inserted_with_the_entries_they_pass_as_suspects() {
        let stored = boards_of_one_tag(1000);
        let mut table = Table::with_room_for(stored.len());
        let mut suspects = Suspects::new(usize::MAX);
        for (i, b) in stored.iter().enumerate() {
            let at = Located { id: RecordId(i as u32), hint: 0 };
            table.insert(hash_board(b), at, &mut suspects, &Stored(&stored)).unwrap();
        }
        let noted = &suspects.noted;
        assert!(noted.len() > stored.len(), "{} suspects", noted.len());
        assert!(noted.iter().all(|s| s.entry.id < s.at.id), "only entries inserted before");
        for (i, b) in stored.iter().enumerate() {
            assert_eq!(table.find(hash_board(b), b, &Stored(&stored)).map(|p| table.located(p).id.index()), Some(i));
        }
    }

    #[test]
    fn boards_stored_twice_among_suspects_are_refused_as_a_hash_map_finds_them() {
        let distinct = boards_of_one_tag(1500);
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |below: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % below as u64) as usize
        };
        for trial in 0..60 {
            let mut stored: Vec<Board> = distinct[..1000 + next(500)].to_vec();
            for _ in 0..trial % 4 {
                let from = next(stored.len());
                let to = from + 1 + next(stored.len() - from);
                stored.insert(to, stored[from]);
            }
            let (per_half, keys) = keys_of(&stored, 0);
            // Every suspect noted, none (each compared by its insert), and
            // the list full part of the way.
            for max_suspects in [MAX_SUSPECTS, 0, 40] {
                let built = build_noting(per_half, &keys, &Stored(&stored), max_suspects);
                let refused = built.err().map(|e| match e.refused {
                    Refused::Duplicate(first) => (e.at.id.0, first.id.0),
                    Refused::Full => panic!("trial {trial}: room for every board"),
                });
                assert_eq!(refused, first_repeat(&stored), "trial {trial}, {max_suspects} suspects at most");
            }
        }
    }

    #[test]
    fn more_boards_than_counted_are_refused_not_looped_on() {
        let stored = boards(200);
        let (_, keys) = keys_of(&stored, 0);
        let error = build([1, 1], &keys, &Stored(&stored)).err().expect("too many");
        assert_eq!(error.refused, Refused::Full);
    }

    #[test]
    fn control_words_match_bytes_exactly_as_a_byte_by_byte_scan() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Bytes drawn from a few values, so that matches, zeros and
            // 0x80 (a high bit alone) are all common.
            let control: [u8; 8] = std::array::from_fn(|i| [0, 1, 0x80, 0xff, 0x7f][(x >> (5 * i)) as usize % 5]);
            let group = Group { control, ..Group::default() };
            for byte in [0u8, 1, 0x7f, 0x80, 0xff] {
                let slow: Vec<usize> = (0..GROUP).filter(|&i| control[i] == byte).collect();
                let fast: Vec<usize> = ControlWord::of(&group).matching(byte).buckets().collect();
                assert_eq!(fast, slow, "{control:?} {byte:#x}");
                let empty = ControlWord::of(&group).matching(EMPTY);
                let first_empty = (0..GROUP).find(|&i| control[i] == EMPTY).unwrap_or(GROUP);
                let before: Vec<usize> = ControlWord::of(&group).matching(byte).before_first(empty).buckets().collect();
                let slow_before: Vec<usize> = slow.into_iter().filter(|&i| i < first_empty).collect();
                assert_eq!(before, slow_before, "{control:?} {byte:#x}");
            }
        }
    }

    #[test]
    fn a_group_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Group>(), 64);
        assert_eq!(std::mem::align_of::<Group>(), 64);
    }

    #[test]
    fn probes_run_on_past_a_full_group_and_wrap_around_the_table() {
        // Boards whose hashes all start at the table's last group: the
        // eighth and later must be found in the first group, past the end.
        let mut table = Table::with_room_for(9);
        let last = table.groups.len() - 1;
        let stored = boards(4000);
        let crowded: Vec<Board> =
            stored.iter().copied().filter(|b| table.group_of(hash_board(b)) == last).take(10).collect();
        assert_eq!(crowded.len(), 10);
        let id = |b: &Board| Located { id: RecordId(stored.iter().position(|s| s == b).unwrap() as u32), hint: 0 };
        let mut suspects = Suspects::new(MAX_SUSPECTS);
        for b in &crowded {
            table.insert(hash_board(b), id(b), &mut suspects, &Stored(&stored)).unwrap();
        }
        for b in &crowded {
            let bucket = table.find(hash_board(b), b, &Stored(&stored)).expect("found");
            assert_eq!(table.located(bucket), id(b));
        }
        assert_eq!(table.groups.len(), 2);
        assert_eq!(table.groups[0].control.iter().filter(|&&c| c != EMPTY).count(), 3, "three wrapped round");
    }
}
