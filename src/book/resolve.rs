//! Resolving a book before it is walked: every stored move of every record
//! (every legal move, for an Egaroucid book) is played, normalized and
//! looked up once, so that the walk reads where each move leads instead of
//! looking children up one after the other (see [`ResolvedBook`]).
//!
//! A walk is a chain of dependent reads: a position's children are only
//! known once its record is read. Resolving first takes the index out of
//! that chain. The lookups themselves depend on nothing but the index, so
//! here they are made many at a time: the records are shared out between the
//! cores, and each core takes its records a batch at a time, every lookup of
//! a batch going through each stage (index group asked for, candidate record
//! asked for, boards compared) before any goes through the next, so that
//! their cache misses overlap instead of following one another.

use super::edax::{self, Starts, STARTS_EVERY};
use super::egaroucid::{self, RawRecord};
use super::index::{hash_board, Located, PositionIndex};
use super::loaded::{BookFile, IndexLookup, Layout};
use super::problem::MoveSlot;
use super::record::RecordId;
use super::resolved::{EdaxTargets, EgaroucidLinks, PackedTarget, RecordFacts, ResolvedBook, Slots, Targets};
use crate::board::Board;
use crate::symmetry::{normalize, Placement};
use smallvec::SmallVec;
use std::ops::Range;

/// Edax records whose lookups go through the stages together (about 1.8
/// moves each in a typical book): enough misses in flight to keep memory
/// busy, few enough that a batch's index groups are still in cache when
/// its boards are compared.
const EDAX_BATCH: usize = 32;
/// Egaroucid records resolved together (about ten legal moves each).
const EGAROUCID_BATCH: usize = 8;
/// Threads to share the records between, at most.
const MAX_THREADS: usize = 8;

/// Resolves every move of the book and drops the index.
pub(super) fn resolve(file: BookFile, index: PositionIndex) -> ResolvedBook {
    let targets = match file.layout() {
        Layout::Edax { starts, .. } => Targets::Edax(resolve_edax(&file, &index, starts)),
        Layout::Egaroucid { .. } => Targets::Egaroucid(resolve_egaroucid(&file, &index)),
    };
    drop(index);
    ResolvedBook::new(file, targets)
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, MAX_THREADS)
}

/// `records` shared out into `parts` runs of about equal length, each
/// starting at a multiple of `align` (but the first, at 0).
fn split(records: usize, parts: usize, align: usize) -> Vec<Range<usize>> {
    let bounds: Vec<usize> =
        (0..=parts).map(|i| if i == parts { records } else { records * i / parts / align * align }).collect();
    bounds.windows(2).map(|w| w[0]..w[1]).filter(|r| !r.is_empty()).collect()
}

/// Lookups under way, stage by stage; `S` says where each result goes.
struct Batch<S> {
    pending: Vec<Pending<S>>,
}

struct Pending<S> {
    slot: S,
    /// The child as the book would store it, and its hash.
    board: Board,
    hash: u64,
    placement: Placement,
    /// The first record whose tag matches the hash's, once its index group is in.
    candidate: Option<Located>,
}

impl<S: Copy> Batch<S> {
    fn new() -> Batch<S> {
        Batch { pending: Vec::new() }
    }

    /// Starts looking up a child: normalizes it and asks for its index group.
    fn start(&mut self, slot: S, child: &Board, index: &PositionIndex) {
        let normalized = normalize(child);
        let hash = hash_board(&normalized.board);
        index.prefetch(hash);
        let placement = normalized.placement();
        self.pending.push(Pending { slot, board: normalized.board, hash, placement, candidate: None });
    }

    /// Finishes every lookup started: asks for every candidate record, then
    /// compares boards, handing each result to `each`. A child whose hash
    /// matches no tag is not in the book; one whose first candidate holds
    /// it is found with one comparison; any other is looked up in full.
    fn finish(&mut self, file: &BookFile, index: &PositionIndex, mut each: impl FnMut(S, PackedTarget)) {
        for p in &mut self.pending {
            p.candidate = index.first_candidate(p.hash);
            if let Some(candidate) = p.candidate {
                file.prefetch(candidate);
            }
        }
        for p in self.pending.drain(..) {
            let found = match p.candidate {
                None => None,
                Some(candidate) if file.board_of(candidate) == p.board => Some(candidate),
                Some(_) => file.find_hashed(index, &p.board, p.hash).map(|place| index.located(place)),
            };
            each(p.slot, found.map_or(PackedTarget::ABSENT, |at| PackedTarget::child(at, p.placement)));
        }
    }
}

/// Where an Edax lookup's result goes.
#[derive(Clone, Copy)]
enum EdaxSlot {
    /// A link, by its place in its part's run of links.
    Link(usize),
    Leaf(RecordId),
}

/// Resolves every link and leaf of an Edax book.
fn resolve_edax(file: &BookFile, index: &PositionIndex, starts: &Starts) -> EdaxTargets {
    let counts = file.counts();
    let records = counts.records as usize;
    let mut links = Vec::with_capacity(counts.links as usize);
    super::mapped::advise_huge_pages(&mut links);
    links.resize(counts.links as usize, PackedTarget::ABSENT);
    // Each part starts on a record whose offset `starts` keeps, and owns
    // the run of links its records store.
    let parts: Vec<(Range<usize>, u64)> = split(records, threads(), STARTS_EVERY)
        .into_iter()
        .map(|range| {
            let offset = starts.offset(RecordId(range.start as u32), 0);
            (range, offset)
        })
        .collect();
    let mut runs: Vec<&mut [PackedTarget]> = Vec::with_capacity(parts.len());
    let mut rest: &mut [PackedTarget] = &mut links;
    for (i, (range, offset)) in parts.iter().enumerate() {
        let end = match parts.get(i + 1) {
            Some((next, next_offset)) => edax::links_before(RecordId(next.start as u32), *next_offset),
            None => counts.links,
        };
        let len = end.saturating_sub(edax::links_before(RecordId(range.start as u32), *offset)) as usize;
        let taken = std::mem::take(&mut rest);
        let (run, tail) = taken.split_at_mut(len.min(taken.len()));
        runs.push(run);
        rest = tail;
    }
    let leaves: Vec<Vec<(RecordId, PackedTarget)>> = std::thread::scope(|scope| {
        let threads: Vec<_> = parts
            .iter()
            .cloned()
            .zip(runs)
            .map(|((range, offset), run)| scope.spawn(move || resolve_edax_part(file, index, range, offset, run)))
            .collect();
        threads.into_iter().map(|t| t.join().expect("a resolving thread does not panic")).collect()
    });
    EdaxTargets { links, leaves: leaves.concat() }
}

/// Resolves the records `range` (the first at byte `offset`) into their
/// run of links; returns the leaves that do not lead out of the book.
#[inline(never)]
fn resolve_edax_part(
    file: &BookFile,
    index: &PositionIndex,
    range: Range<usize>,
    offset: u64,
    links: &mut [PackedTarget],
) -> Vec<(RecordId, PackedTarget)> {
    let mut leaves = Vec::new();
    let mut batch = Batch::new();
    let mut record_links = 0usize;
    let mut write = |slot, target| match slot {
        EdaxSlot::Link(at) => {
            if let Some(t) = links.get_mut(at) {
                *t = target;
            }
        }
        EdaxSlot::Leaf(id) => {
            if target != PackedTarget::ABSENT {
                leaves.push((id, target));
            }
        }
    };
    let bytes = file.bytes();
    let mut offset = offset as usize;
    for n in 0..range.len() {
        // A record that no longer reads (the book changed since it was
        // checked) ends the part; the change is found before anything is used.
        let Ok(raw) = edax::next_record(bytes, offset) else { break };
        let id = RecordId((range.start + n) as u32);
        offset += raw.byte_len();
        let board = raw.board();
        let slots = (0..raw.n_links()).map(MoveSlot::Link).chain([MoveSlot::Leaf]);
        for slot in slots {
            let Some(link) = raw.link_at(slot) else { continue };
            let to = match slot {
                MoveSlot::Link(i) => EdaxSlot::Link(record_links + i),
                MoveSlot::Leaf => EdaxSlot::Leaf(id),
            };
            match board.after(link.mv) {
                Some(child) => batch.start(to, &child, index),
                None => write(to, PackedTarget::ILLEGAL),
            }
        }
        record_links += raw.n_links();
        if (n + 1) % EDAX_BATCH == 0 {
            batch.finish(file, index, &mut write);
        }
    }
    batch.finish(file, index, &mut write);
    // Illegal leaves are noted before the found ones of their batch.
    leaves.sort_unstable_by_key(|&(id, _)| id);
    leaves
}

/// Finds the links of every record of an Egaroucid book.
fn resolve_egaroucid(file: &BookFile, index: &PositionIndex) -> EgaroucidLinks {
    let records = file.counts().records as usize;
    let mut slots = Vec::with_capacity(records);
    super::mapped::advise_huge_pages(&mut slots);
    slots.resize(records, Slots::default());
    let parts = split(records, threads(), 1);
    let mut runs: Vec<&mut [Slots]> = Vec::with_capacity(parts.len());
    let mut rest: &mut [Slots] = &mut slots;
    for range in &parts {
        let (run, tail) = std::mem::take(&mut rest).split_at_mut(range.len());
        runs.push(run);
        rest = tail;
    }
    let lists: Vec<Vec<u64>> = std::thread::scope(|scope| {
        let threads: Vec<_> = parts
            .iter()
            .cloned()
            .zip(runs)
            .map(|(range, run)| scope.spawn(move || resolve_egaroucid_part(file, index, range, run)))
            .collect();
        threads.into_iter().map(|t| t.join().expect("a resolving thread does not panic")).collect()
    });
    // Each part numbered its overflow list from 0: join them.
    let mut overflow = Vec::with_capacity(lists.iter().map(Vec::len).sum());
    for (range, list) in parts.into_iter().zip(lists) {
        if !overflow.is_empty() {
            slots[range].iter_mut().for_each(|s| s.shift_overflow(overflow.len()));
        }
        overflow.extend(list);
    }
    EgaroucidLinks { slots, overflow }
}

/// Finds the links of the records `range` into their slots; returns their
/// overflow list, numbered from 0.
#[inline(never)]
fn resolve_egaroucid_part(
    file: &BookFile,
    index: &PositionIndex,
    range: Range<usize>,
    slots: &mut [Slots],
) -> Vec<u64> {
    let lookup = IndexLookup { file, index };
    let mut overflow = Vec::new();
    let first = range.start;
    for from in range.clone().step_by(EGAROUCID_BATCH) {
        let ids = from..(from + EGAROUCID_BATCH).min(range.end);
        // Records out of the book are not indexed, so nothing leads to them.
        let raws: SmallVec<[(RecordId, RawRecord<'_>); EGAROUCID_BATCH]> = ids
            .filter_map(|i| {
                let id = RecordId(i as u32);
                egaroucid::record_at(file.bytes(), id).filter(RawRecord::is_in_book).map(|raw| (id, raw))
            })
            .collect();
        let boards: SmallVec<[Board; EGAROUCID_BATCH]> = raws.iter().map(|(_, raw)| raw.board()).collect();
        let found = egaroucid::links_of_each(&boards, &lookup);
        for ((id, raw), links) in raws.iter().zip(found) {
            let leaf_illegal = raw.leaf().is_some_and(|leaf| raw.board().after(leaf.mv).is_none());
            let facts = RecordFacts { links: links.len(), leaf_then_pass: raw.leaf_then_pass(), leaf_illegal };
            slots[id.index() - first] = Slots::new(facts, &links, &mut overflow);
        }
    }
    overflow
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_split_into_aligned_runs_that_cover_them_all() {
        for (records, parts, align) in [(0, 2, 1024), (5, 2, 1024), (10_000, 2, 1024), (10_001, 3, 1), (7, 8, 1)] {
            let runs = split(records, parts, align);
            let mut next = 0;
            for run in &runs {
                assert_eq!(run.start, next, "{records} {parts} {align}: {runs:?}");
                assert!(run.start % align == 0 && !run.is_empty());
                next = run.end;
            }
            assert_eq!(next, records);
            assert!(runs.len() <= parts);
        }
    }
}
