//! Resolving a book before it is walked: every stored move of every record
//! (every legal move, for an Egaroucid book) is played, normalized and
//! looked up once, so that the walk reads where each move leads instead of
//! looking children up one after the other (see [`ResolvedBook`]).
//!
//! A walk is a chain of dependent reads: a position's children are only
//! known once its record is read. Resolving first takes the index out of
//! that chain; the lookups themselves depend on nothing but the index, so
//! here they are made a chunk of records at a time, in the order that suits
//! memory. Each part of the book goes to a thread of its own, and within a
//! chunk every question (a child, normalized, to look up) is worked out
//! first; then the index is probed in order of where each probe lands, and
//! the boards of the candidate records are compared in order of where the
//! records are in the file. A random lookup in a book and index larger than
//! the TLB's reach misses it at every read; in that order, a chunk's reads
//! stay within a few pages at a time, and those asked for ahead arrive.
//!
//! What bounds the resolve is how many lines of memory it reads, so each
//! lookup reads only what its answer needs: the filter's word for boards
//! that may well be absent (a leaf's child, every Egaroucid candidate), not
//! for a link's child; of the candidate record, its board, and its value
//! only where the answer holds one.

use super::access_order::{RegionOrder, AHEAD};
use super::file::{BookFile, Layout};
use super::index::{Located, PositionIndex};
use super::resolved::{EdaxTargets, EgaroucidLinks, PackedTarget, RecordFacts, ResolvedBook, Slots, Targets};
use crate::board::hash_board;
use crate::format::edax::{self, Starts, STARTS_EVERY};
use crate::format::egaroucid::{self, Candidate, FoundLink, RawRecord};
use crate::parallel::{self, split};
use crate::record::problem::MoveSlot;
use crate::record::{RecordId, Score};
use crate::symmetry::{normalize, Normalized};
use smallvec::SmallVec;
use std::ops::Range;

/// Edax records resolved together (about 1.8 lookups each in a typical
/// book): enough lookups per page of the index for the order to pay (a
/// 100M-position book's index has about 600 pages), few enough that a
/// chunk's questions stay in the core's own cache.
const EDAX_CHUNK: usize = 1 << 13;
/// Egaroucid records resolved together (about ten legal moves each).
const EGAROUCID_CHUNK: usize = 1 << 11;
/// A region of the book file, for ordering reads: a huge page.
const FILE_REGION_BITS: u32 = 21;

/// Resolves every move of the book; the index is dropped, or kept
/// (`keep_index`) for work that looks positions up after its walks.
pub(super) fn resolve(file: BookFile, index: PositionIndex, keep_index: bool) -> ResolvedBook {
    let targets = match file.layout() {
        Layout::Edax { starts, .. } => Targets::Edax(resolve_edax(&file, &index, starts)),
        Layout::Egaroucid { .. } => Targets::Egaroucid(resolve_egaroucid(&file, &index)),
    };
    ResolvedBook::new(file, targets, keep_index.then_some(index))
}

/// What an answer holds besides where its record is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wanted {
    /// Where the record is: its board alone is read, to compare. An Edax
    /// record's value lies past its board, often in the next cache line.
    Record,
    /// The record's stored value too, read as its board is compared.
    RecordAndValue,
}

/// Answers questions (stored boards to look up) many at a time, in the
/// order that suits memory; keeps its buffers from one chunk to the next.
struct Answerer<'a> {
    file: &'a BookFile,
    index: &'a PositionIndex,
    wanted: Wanted,
    questions: Vec<Normalized>,
    /// How many of the first questions were asked by
    /// [`Answerer::ask_likely_held`]: the index is probed for them without
    /// asking the filter.
    likely_held: usize,
    hashes: Vec<u64>,
    /// Each question's record, once answered.
    answers: Vec<Option<Located>>,
    /// Each question's record's value (with [`Wanted::RecordAndValue`] only).
    values: Vec<Score>,
    /// The questions the index is asked: the likely held, and those the filter lets through.
    asked: Vec<u32>,
    /// Each asked question's region of the index, then of the file.
    regions: Vec<u32>,
    /// Asked questions in the order they are probed, then compared.
    order: RegionOrder,
    /// Each asked question's first candidate record.
    candidates: Vec<Option<Located>>,
    /// Where each candidate's record starts in the file.
    offsets: Vec<u64>,
}

impl<'a> Answerer<'a> {
    fn new(file: &'a BookFile, index: &'a PositionIndex, wanted: Wanted) -> Answerer<'a> {
        Answerer {
            file,
            index,
            wanted,
            questions: Vec::new(),
            likely_held: 0,
            hashes: Vec::new(),
            answers: Vec::new(),
            values: Vec::new(),
            asked: Vec::new(),
            regions: Vec::new(),
            order: RegionOrder::default(),
            candidates: Vec::new(),
            offsets: Vec::new(),
        }
    }

    /// Asks for a stored board: the next question, numbered in the order asked.
    fn ask(&mut self, question: Normalized) {
        self.questions.push(question);
    }

    /// [`Answerer::ask`], for a board most likely held (an Edax link's
    /// child): the index is probed without asking the filter, whose word
    /// would cost a read and spare none. Asked before any other question.
    fn ask_likely_held(&mut self, question: Normalized) {
        debug_assert_eq!(self.likely_held, self.questions.len(), "likely held boards are asked first");
        self.questions.push(question);
        self.likely_held += 1;
    }

    /// Answers every question asked since the last [`Answerer::clear`]:
    /// `found(i)` is then question `i`'s.
    fn answer(&mut self) {
        let (file, index) = (self.file, self.index);
        let n = self.questions.len();
        self.hashes.clear();
        self.hashes.extend(self.questions.iter().map(|q| hash_board(&q.board)));
        self.answers.clear();
        self.answers.resize(n, None);
        self.values.clear();
        if self.wanted == Wanted::RecordAndValue {
            self.values.resize(n, Score(0));
        }
        // The questions asked as likely held, then those the filter lets
        // through (most of those whose board is held, few others); the
        // rest have no record.
        self.asked.clear();
        self.asked.extend(0..self.likely_held as u32);
        for (i, &hash) in self.hashes.iter().enumerate().skip(self.likely_held) {
            if let Some(&ahead) = self.hashes.get(i + AHEAD) {
                index.prefetch_filter(ahead);
            }
            if index.may_hold(hash) {
                self.asked.push(i as u32);
            }
        }
        // Probes, in order of index region.
        let (asked, hashes) = (&self.asked, &self.hashes);
        self.regions.clear();
        self.regions.extend(asked.iter().map(|&i| index.region(hashes[i as usize])));
        self.order.sort(&self.regions, index.regions());
        self.candidates.clear();
        self.candidates.resize(asked.len(), None);
        for (k, ahead) in self.order.with_ahead() {
            if let Some(ahead) = ahead {
                index.prefetch(hashes[asked[ahead] as usize]);
            }
            self.candidates[k] = index.first_candidate(hashes[asked[k] as usize]);
        }
        // Boards compared, in order of file region. A question whose hash
        // matches no tag has no record in the book.
        self.offsets.clear();
        self.offsets.extend(self.candidates.iter().map(|c| c.map_or(0, |at| file.offset(at))));
        self.regions.clear();
        self.regions.extend(self.offsets.iter().map(|&offset| (offset >> FILE_REGION_BITS) as u32));
        let file_regions = (file.bytes().len() >> FILE_REGION_BITS) + 1;
        self.order.sort(&self.regions, file_regions);
        for (k, ahead) in self.order.with_ahead() {
            if let Some(ahead) = ahead {
                match self.wanted {
                    Wanted::Record => file.prefetch_board(self.offsets[ahead]),
                    Wanted::RecordAndValue => file.prefetch_offset(self.offsets[ahead]),
                }
            }
            let Some(candidate) = self.candidates[k] else { continue };
            let i = asked[k] as usize;
            let board = &self.questions[i].board;
            let found = match file.board_at(self.offsets[k]) == *board {
                true => Some(candidate),
                // Another record's tag: the full lookup, past it.
                false => file.find_hashed(index, board, hashes[i]).map(|place| index.located(place)),
            };
            self.answers[i] = found;
            if let (Some(at), Wanted::RecordAndValue) = (found, self.wanted) {
                self.values[i] = file.value_of(at);
            }
        }
    }

    /// Where the record of question `i` is, once answered (none: not held).
    fn found(&self, i: usize) -> Option<Located> {
        self.answers[i]
    }

    /// [`Answerer::found`], with the value that record stores: only for
    /// an answerer that reads values ([`Wanted::RecordAndValue`]).
    fn found_with_value(&self, i: usize) -> Option<(Located, Score)> {
        Some((self.answers[i]?, self.values[i]))
    }

    fn question(&self, i: usize) -> &Normalized {
        &self.questions[i]
    }

    fn clear(&mut self) {
        self.questions.clear();
        self.likely_held = 0;
    }
}

/// Stored boards looked up many at a time, as the resolver looks up its
/// moves' children: every probe asked for before it is read, the probes
/// and the boards compared in order of memory region. For a caller that
/// has a chunk of boards to look up at once (`fix --link`, every child of
/// every record): looked up a record's children at a time, their misses
/// overlap a dozen at a time, here some tens of thousands.
pub struct Locator<'a>(Answerer<'a>);

impl<'a> Locator<'a> {
    pub(super) fn new(file: &'a BookFile, index: &'a PositionIndex) -> Locator<'a> {
        Locator(Answerer::new(file, index, Wanted::RecordAndValue))
    }

    /// Asks where the record of a stored (normalized) board is: the next
    /// question, numbered in the order asked.
    pub fn ask(&mut self, board: Normalized) {
        self.0.ask(board);
    }

    /// Answers every question asked since the last [`Locator::clear`].
    pub fn answer(&mut self) {
        self.0.answer();
    }

    /// Where the record of question `i` is, once answered (none: not held).
    pub fn found(&self, i: usize) -> Option<Located> {
        self.0.found(i)
    }

    /// [`Locator::found`], with the value that record stores, read when
    /// the record was compared with the board asked.
    pub fn found_with_value(&self, i: usize) -> Option<(Located, Score)> {
        self.0.found_with_value(i)
    }

    /// Forgets the questions asked.
    pub fn clear(&mut self) {
        self.0.clear();
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
    // Zeroed memory, every target absent: its pages are mapped as the
    // resolving threads first write them, on every core at once.
    let mut links: Vec<PackedTarget> = bytemuck::zeroed_vec(counts.links as usize);
    crate::os::advise_huge_pages(&mut links);
    // Each part starts on a record whose offset `starts` keeps, and owns
    // the run of links its records store.
    let parts: Vec<(Range<usize>, u64)> = split(records, parallel::workers(), STARTS_EVERY)
        .into_iter()
        .map(|range| {
            let offset = starts.offset(RecordId(range.start as u32), 0);
            (range, offset)
        })
        .collect();
    let lens = parts.iter().enumerate().map(|(i, (range, offset))| {
        let end = match parts.get(i + 1) {
            Some((next, next_offset)) => edax::links_before(RecordId(next.start as u32), *next_offset),
            None => counts.links,
        };
        end.saturating_sub(edax::links_before(RecordId(range.start as u32), *offset)) as usize
    });
    let runs = parallel::runs_of(&mut links, lens);
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
fn resolve_edax_part(
    file: &BookFile,
    index: &PositionIndex,
    range: Range<usize>,
    offset: u64,
    links: &mut [PackedTarget],
) -> Vec<(RecordId, PackedTarget)> {
    let mut leaves = Vec::new();
    // An Edax target is where the child is: its value is read as the walk enters it.
    let mut answerer = Answerer::new(file, index, Wanted::Record);
    let mut slots: Vec<EdaxSlot> = Vec::new();
    // The leaves' children, asked after every link's (which skip the filter).
    let mut leaf_children: Vec<(Normalized, RecordId)> = Vec::new();
    let bytes = file.bytes();
    let mut offset = offset as usize;
    let mut record_links = 0usize;
    for chunk_start in range.clone().step_by(EDAX_CHUNK) {
        let chunk = chunk_start..(chunk_start + EDAX_CHUNK).min(range.end);
        answerer.clear();
        slots.clear();
        for id in chunk {
            // A record that no longer reads (the book changed since it was
            // checked) has nothing to resolve; the change is found before
            // anything is used.
            let Some(raw) = edax::record_at(bytes, offset) else { break };
            offset += raw.byte_len();
            let (id, board) = (RecordId(id as u32), raw.board());
            for slot in (0..raw.n_links()).map(MoveSlot::Link).chain([MoveSlot::Leaf]) {
                let Some(link) = raw.link_at(slot) else { continue };
                let to = match slot {
                    MoveSlot::Link(i) => EdaxSlot::Link(record_links + i),
                    MoveSlot::Leaf => EdaxSlot::Leaf(id),
                };
                match (board.after(link.mv), to) {
                    (Some(child), EdaxSlot::Link(_)) => {
                        answerer.ask_likely_held(normalize(&child));
                        slots.push(to);
                    }
                    (Some(child), EdaxSlot::Leaf(id)) => leaf_children.push((normalize(&child), id)),
                    (None, _) => write_edax(links, &mut leaves, to, PackedTarget::ILLEGAL),
                }
            }
            record_links += raw.n_links();
        }
        for (child, id) in leaf_children.drain(..) {
            answerer.ask(child);
            slots.push(EdaxSlot::Leaf(id));
        }
        answerer.answer();
        for (i, &to) in slots.iter().enumerate() {
            let target = answerer
                .found(i)
                .map_or(PackedTarget::ABSENT, |at| PackedTarget::child(at, answerer.question(i).placement()));
            write_edax(links, &mut leaves, to, target);
        }
    }
    // Illegal leaves are noted before the found ones of their chunk.
    leaves.sort_unstable_by_key(|&(id, _)| id);
    leaves
}

/// Puts a target where it goes: a link's place, or the list of leaves that
/// lead anywhere but out of the book.
fn write_edax(
    links: &mut [PackedTarget],
    leaves: &mut Vec<(RecordId, PackedTarget)>,
    to: EdaxSlot,
    target: PackedTarget,
) {
    match to {
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
    }
}

/// Finds the links of every record of an Egaroucid book.
fn resolve_egaroucid(file: &BookFile, index: &PositionIndex) -> EgaroucidLinks {
    let records = file.counts().records as usize;
    let mut slots = Vec::with_capacity(records);
    crate::os::advise_huge_pages(&mut slots);
    slots.resize(records, Slots::default());
    let lists = parallel::on_runs_of(&mut slots, parallel::workers(), 1, |range, run| {
        (range.clone(), resolve_egaroucid_part(file, index, range, run))
    });
    // Each part numbered its overflow list from 0: join them.
    let mut overflow = Vec::with_capacity(lists.iter().map(|(_, list)| list.len()).sum());
    for (range, list) in lists {
        if !overflow.is_empty() {
            slots[range].iter_mut().for_each(|s| s.shift_overflow(overflow.len()));
        }
        overflow.extend(list);
    }
    EgaroucidLinks { slots, overflow }
}

/// A record of an Egaroucid chunk and where its candidates are in the
/// chunk's list. Each candidate asks one question, in order, so a
/// candidate's place in the list is its question's number too: records and
/// candidates stay where they were put, never moved or copied.
struct Asked<'a> {
    id: RecordId,
    raw: RawRecord<'a>,
    candidates: Range<usize>,
}

/// Finds the links of the records `range` into their slots; returns their
/// overflow list, numbered from 0.
fn resolve_egaroucid_part(
    file: &BookFile,
    index: &PositionIndex,
    range: Range<usize>,
    slots: &mut [Slots],
) -> Vec<u64> {
    let mut answerer = Answerer::new(file, index, Wanted::RecordAndValue);
    let mut overflow = Vec::new();
    let mut asked: Vec<Asked<'_>> = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    let first = range.start;
    for chunk_start in range.clone().step_by(EGAROUCID_CHUNK) {
        let chunk = chunk_start..(chunk_start + EGAROUCID_CHUNK).min(range.end);
        answerer.clear();
        asked.clear();
        candidates.clear();
        for i in chunk {
            let id = RecordId(i as u32);
            // Records out of the book are not indexed, so nothing leads to them.
            let Some(raw) = egaroucid::record_at(file.bytes(), id).filter(RawRecord::is_in_book) else { continue };
            let from = candidates.len();
            for candidate in egaroucid::candidates(&raw.board()) {
                answerer.ask(candidate.child);
                candidates.push(candidate);
            }
            asked.push(Asked { id, raw, candidates: from..candidates.len() });
        }
        answerer.answer();
        for record in &asked {
            let links = links_found(record, &candidates, &answerer);
            let leaf_illegal = record.raw.leaf().is_some_and(|leaf| record.raw.board().after(leaf.mv).is_none());
            let facts = RecordFacts { links: links.len(), leaf_then_pass: record.raw.leaf_then_pass(), leaf_illegal };
            slots[record.id.index() - first] = Slots::new(facts, &links, &mut overflow);
        }
    }
    overflow
}

/// A record's links (docs/formats.md, Egaroucid books), from the answers to its candidates'
/// questions. When the game is over after a move and its child is not in
/// the book, the other child is looked up here, on its own: that is rare.
fn links_found(
    record: &Asked<'_>,
    candidates: &[Candidate],
    answerer: &Answerer<'_>,
) -> SmallVec<[FoundLink<Located>; 8]> {
    let (file, index) = (answerer.file, answerer.index);
    let mut links = SmallVec::new();
    for (i, candidate) in record.candidates.clone().zip(&candidates[record.candidates.clone()]) {
        let found = match answerer.found_with_value(i) {
            Some((child, value)) => Some(candidate.link(child, value)),
            None => candidate.other_child().and_then(|other| {
                let child = index.located(file.find(index, &other.board)?);
                Some(candidate.link_to_other(child, file.value_of(child), &other))
            }),
        };
        links.extend(found);
    }
    links
}
