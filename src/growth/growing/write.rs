//! The book growth made, written out in one of two ways.
//!
//! * Before its final negamax ([`write_unfixed`]), for `fix` to negamax and
//!   write: the book read's records in their order (those growth changed as
//!   they are now, runs of the others copied from the map as they lie), then
//!   the positions added in the order they were added, in the book read's
//!   format (an older Egaroucid book as .egbk3).
//! * Negamaxed ([`write_fixed`]), the very bytes `fix` of that book writes,
//!   from what the run computed, when the run negamaxed what `fix` would:
//!   an Edax book grown from the initial position.
//!
//! Memory: a buffer, whatever the book's size.

use super::error::GrowingError;
use super::solved::Solved;
use super::store::{Flavor, Node, NodeId, Store, Stored};
use crate::book::{Leaf, RecordId};
use crate::fix::{fix_edax_record, Rescored};
use crate::format::edax::{self, patch, EdaxRecord};
use crate::format::egaroucid;
use crate::format::Format;
use crate::level::Level;
use crate::negamax;
use crate::run::Cancel;
use crate::score::Score;
use crate::write::pipeline::{self, Appended, Chunk, SinkFailure};
use smallvec::SmallVec;
use std::io::{self, Write};
use std::ops::Range;

/// Why [`write_fixed`] stopped: OUT could not be written, a stop, or the
/// book read or the run's values could not be read.
pub type WriteFailure = SinkFailure<GrowingError>;

/// Writes the whole Edax book grown into `out`, negamaxed: each record as
/// [`write_unfixed`] has it, then as `fix` of that book makes it (docs/fix.md),
/// the positions `solved` negamaxed being those `fix` reaches over links
/// from the initial position, with the values it computes (the run's
/// negamax is §11's, docs/extend.md). Chunks of records are made on every
/// core and written in order. Returns the records written.
pub fn write_fixed(
    store: &Store<'_>,
    solved: &Solved,
    out: &mut impl Write,
    cancel: Cancel<'_>,
) -> Result<u64, WriteFailure> {
    let book = store.book();
    let read = book.counts().records as usize;
    let records = read as u64 + store.added().len() as u64;
    out.write_all(&store.header_bytes(records))?;
    let read_chunks = read.div_ceil(CHUNK);
    let chunks = read_chunks + store.added().len().div_ceil(CHUNK);
    let convert = |k: usize, chunk: &mut FixedChunk| {
        let fixer = Fixer { store, solved };
        match k.checked_sub(read_chunks) {
            None => fixer.read_records(k * CHUNK..((k + 1) * CHUNK).min(read), chunk),
            Some(k) => fixer.added(k * CHUNK..((k + 1) * CHUNK).min(store.added().len()), chunk),
        }
    };
    let mut sink = Appended(out);
    pipeline::write_chunks(chunks, FixedChunk::default, convert, &mut sink, cancel, |_| Ok(()))?;
    Ok(records)
}

/// Records fixed together: their children's values are asked for before
/// any is read, so that the reads overlap.
const CHUNK: usize = crate::book::CHUNK_RECORDS;

/// A chunk of the book written, and room reused from chunk to chunk.
#[derive(Default)]
struct FixedChunk {
    bytes: Vec<u8>,
    records: u64,
    /// The chunk's positions, each with the range of its links' children.
    positions: Vec<(NodeId, Range<usize>)>,
    children: Vec<Option<NodeId>>,
    encoded: Vec<u8>,
}

impl Chunk for FixedChunk {
    fn clear(&mut self) {
        self.bytes.clear();
        self.records = 0;
        self.positions.clear();
        self.children.clear();
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn records(&self) -> u64 {
        self.records
    }
}

/// Fixes chunks of the growing book.
#[derive(Clone, Copy)]
struct Fixer<'s, 'b> {
    store: &'s Store<'b>,
    solved: &'s Solved,
}

impl Fixer<'_, '_> {
    /// Fixes the records `ids` of the book read (as growth left them).
    fn read_records(self, ids: Range<usize>, chunk: &mut FixedChunk) -> Result<(), WriteFailure> {
        let file = self.store.book().file();
        let wanted = ids.len();
        for at in file.records_in(ids) {
            self.gather(NodeId::Book(at), chunk)?;
        }
        if chunk.positions.len() != wanted {
            return Err(SinkFailure::Own(GrowingError::book_changed(self.store.book().path())));
        }
        for i in 0..chunk.positions.len() {
            let (id, range) = chunk.positions[i].clone();
            match self.store.locate(id) {
                Stored::Node(node) => self.fix_node(id, node, range, chunk)?,
                Stored::Record(at) => {
                    let raw = file.edax_record(at).ok_or_else(|| self.changed())?;
                    self.fix(id, &raw, range, chunk)?;
                }
            }
        }
        chunk.records = wanted as u64;
        Ok(())
    }

    /// Fixes the positions added `ks`.
    fn added(self, ks: Range<usize>, chunk: &mut FixedChunk) -> Result<(), WriteFailure> {
        for k in ks.clone() {
            self.gather(NodeId::Added(k as u32), chunk)?;
        }
        for i in 0..chunk.positions.len() {
            let (id, range) = chunk.positions[i].clone();
            let NodeId::Added(k) = id else { unreachable!("the chunk holds positions added") };
            self.fix_node(id, &self.store.added()[k as usize], range, chunk)?;
        }
        chunk.records = ks.len() as u64;
        Ok(())
    }

    /// Notes a position of the chunk and, if it is negamaxed, its links'
    /// children, whose values are asked for now.
    fn gather(self, id: NodeId, chunk: &mut FixedChunk) -> Result<(), WriteFailure> {
        let from = chunk.children.len();
        if self.solved.is_solved(id) {
            self.store.link_children(id, &mut chunk.children).map_err(SinkFailure::Own)?;
            for child in chunk.children[from..].iter().flatten() {
                self.store.prefetch(*child);
                self.solved.prefetch(*child);
            }
        }
        chunk.positions.push((id, from..chunk.children.len()));
        Ok(())
    }

    /// Appends a position growth changed or added, fixed, from its node.
    fn fix_node(
        self,
        id: NodeId,
        node: &Node,
        children: Range<usize>,
        chunk: &mut FixedChunk,
    ) -> Result<(), WriteFailure> {
        let mut encoded = std::mem::take(&mut chunk.encoded);
        encoded.clear();
        edax_record(node).encode(&mut encoded);
        let raw = edax::record_at(&encoded, 0).expect("a record just encoded reads");
        let fixed = self.fix(id, &raw, children, chunk);
        chunk.encoded = encoded;
        fixed
    }

    /// Appends the position `id`, `raw` as it stands before the negamax,
    /// fixed; `children` are its links' children in the chunk's list.
    fn fix(
        self,
        id: NodeId,
        raw: &edax::RawRecord<'_>,
        children: Range<usize>,
        chunk: &mut FixedChunk,
    ) -> Result<(), WriteFailure> {
        let (store, solved) = (self.store, self.solved);
        let linked = match solved.is_solved(id) {
            true => {
                let score = |child: NodeId| solved.get(store, child).map(|c| negamax::edax_link_score(&c));
                let scores = chunk.children[children].iter().map(|c| c.map(score).transpose());
                let scores: SmallVec<[Option<Score>; 16]> =
                    scores.collect::<Result<_, _>>().map_err(SinkFailure::Own)?;
                Some((solved.get(store, id).map_err(SinkFailure::Own)?, scores))
            }
            false => None,
        };
        let at = chunk.bytes.len();
        chunk.bytes.extend_from_slice(raw.bytes());
        let linked = linked.as_ref().map(|(own, scores)| (*own, scores.iter().copied()));
        fix_edax_record(&mut chunk.bytes[at..], raw, linked);
        Ok(())
    }

    /// The book read no longer reads as it did.
    fn changed(self) -> WriteFailure {
        SinkFailure::Own(GrowingError::book_changed(self.store.book().path()))
    }
}

/// The link scores that make the Edax book read into the book
/// [`write_unfixed`] would write from `store`, when nothing else differs:
/// nothing added, its header written as it lies (the count, and the level,
/// as read), its records running to the end of the file, and each record
/// growth changed written in the same bytes but for its links' scores.
/// `fix` of the book read so rescored then writes what `fix` of that book
/// would, with nothing written and read again (`fix --link` of a book with
/// nothing to link, whose linking only scored its links again). `None`
/// when something else differs.
pub fn rescoring(store: &Store<'_>) -> Option<Rescored> {
    if !matches!(store.flavor(), Flavor::Edax(_)) || !store.added().is_empty() || !laid_out_as_read(store) {
        return None;
    }
    let mut ids: Vec<RecordId> = store.changed().keys().copied().collect();
    ids.sort_unstable();
    // Each record is compared on its own: a run of them on each core.
    let runs =
        crate::parallel::on_runs(ids.len(), crate::parallel::workers(), 1, |run| link_scores_of(store, &ids[run]));
    let scored = runs.into_iter().collect::<Option<Vec<_>>>()?;
    let mut rescored = Rescored::default();
    for (&id, scores) in ids.iter().zip(scored.into_iter().flatten()) {
        rescored.push(id, scores);
    }
    Some(rescored)
}

/// The link scores of each record `ids` names that growth changed, as
/// [`rescoring`] takes them (`None` if one differs otherwise).
fn link_scores_of(store: &Store<'_>, ids: &[RecordId]) -> Option<Vec<Vec<Score>>> {
    let file = store.book().file();
    let mut encoded = Vec::new();
    let mut scores = Vec::with_capacity(ids.len());
    for &id in ids {
        let raw = file.edax_record(file.locate_id(id)?)?;
        encoded.clear();
        edax_record(store.changed_record(id)?).encode(&mut encoded);
        scores.push(link_scores_alone_differ(raw.bytes(), &encoded)?);
    }
    Some(scores)
}

/// The link scores of Edax record `new`, if it is `read` with them put
/// in (as `fix` puts scores in, [`patch`]) and nothing else changed.
fn link_scores_alone_differ(read: &[u8], new: &[u8]) -> Option<Vec<Score>> {
    let n_links = edax::next_record(new, 0).ok()?.n_links();
    let scores: Vec<Score> =
        (0..n_links).map(|i| patch::link_pair(new, i).map(|(score, _)| Score::from(score))).collect::<Option<_>>()?;
    if read.len() != new.len() {
        return None;
    }
    let mut rescored = read.to_vec();
    patch::put_stored_link_scores(&mut rescored, scores.iter().map(|score| score.stored_byte()));
    (rescored == new).then_some(scores)
}

/// Whether the Edax book [`write_unfixed`] writes from `store` has the
/// book read's layout: its header as it lies (the count, and the level, as
/// read), its records running to the end of the file.
fn laid_out_as_read(store: &Store<'_>) -> bool {
    let book = store.book();
    let file = book.file();
    let records = book.counts().records;
    let header = store.header_bytes(records);
    let end = match records.checked_sub(1) {
        None => Some(header.len() as u64),
        Some(last) => u32::try_from(last)
            .ok()
            .and_then(|last| file.locate_id(RecordId(last)))
            .and_then(|at| Some(file.offset(at) + file.edax_record(at)?.byte_len() as u64)),
    };
    let bytes = file.bytes();
    file.format() == Format::Edax && bytes.starts_with(&header) && end == Some(bytes.len() as u64)
}

/// Writes the whole book into `out`; returns the records written.
pub fn write_unfixed(store: &Store<'_>, out: &mut impl Write) -> io::Result<u64> {
    let book = store.book();
    let bytes = book.file().bytes();
    let records = book.counts().records + store.added().len() as u64;
    out.write_all(&store.header_bytes(records))?;
    let mut encoded = Vec::new();
    // The records read are copied in runs between the records changed.
    let mut run_from = None;
    let copy_run = |out: &mut dyn Write, from: &mut Option<usize>, to: usize| match from.take() {
        Some(from) => out.write_all(&bytes[from..to]),
        None => Ok(()),
    };
    let mut end = 0;
    match store.flavor() {
        Flavor::Edax(_) => {
            for (id, offset, raw) in edax::records(bytes).map_while(Result::ok) {
                end = offset + raw.byte_len();
                match store.changed_record(id) {
                    Some(node) => {
                        copy_run(out, &mut run_from, offset)?;
                        encoded.clear();
                        edax_record(node).encode(&mut encoded);
                        out.write_all(&encoded)?;
                    }
                    None => {
                        run_from.get_or_insert(offset);
                    }
                }
            }
        }
        Flavor::Egaroucid => {
            // Every record of the layout read, those out of the book too.
            for (id, offset, raw) in egaroucid::records(bytes).map_while(Result::ok) {
                end = offset + raw.bytes().len();
                match store.changed_record(id) {
                    Some(node) => {
                        copy_run(out, &mut run_from, offset)?;
                        encoded.clear();
                        egaroucid_record(node, &mut encoded);
                        out.write_all(&encoded)?;
                    }
                    None => {
                        run_from.get_or_insert(offset);
                    }
                }
            }
        }
    }
    copy_run(out, &mut run_from, end)?;
    for node in store.added() {
        encoded.clear();
        match store.flavor() {
            Flavor::Edax(_) => edax_record(node).encode(&mut encoded),
            Flavor::Egaroucid => egaroucid_record(node, &mut encoded),
        }
        out.write_all(&encoded)?;
    }
    Ok(records)
}

fn edax_record(node: &Node) -> EdaxRecord {
    let solved = node.solved;
    let counts = solved.counts;
    EdaxRecord {
        board: node.board,
        counts: [counts.wins, counts.draws, counts.losses, counts.lines],
        // The record's shorts and bytes: what the negamax computed fits them.
        value: solved.value.stored_short(),
        lower: solved.lower.stored_short(),
        upper: solved.upper.stored_short(),
        level: node.level,
        links: node.links.iter().map(|&(score, mv)| (score.stored_byte(), mv.code())).collect(),
        leaf: node.leaf,
    }
}

fn egaroucid_record(node: &Node, out: &mut Vec<u8>) {
    let leaf = node.leaf.and_then(Leaf::link);
    // An Egaroucid record's value byte holds a disc count, within ±64.
    let value = node.solved.value.clamp(Score::new(-64), Score::new(64)).stored_byte();
    // An Egaroucid node's level byte is a level's (read as one, or a
    // search's), at most 60.
    let level = Level::saturating(node.level.into()).to_i8();
    egaroucid::encode_record(out, &node.board, value, level, node.n_lines, leaf);
}
