//! Writing the fixed book: the book being read, record by record in file
//! order, with each linked record's solution put in, every record's links
//! sorted as Edax sorts them, and a receipt line for each record changed.
//! Records keep their place and size, so the book keeps its size.

use super::fixed::{Fixed, Solutions};
use super::receipt::{Change, Receipt};
use super::rescored::Rescored;
use super::solutions::EdaxSolutions;
use crate::board::{Board, Move};
use crate::book::{Destination, RecordId, ResolvedBook};
use crate::format::edax::{self, patch};
use crate::format::egaroucid;
use crate::negamax::{self, Negamaxed};
use crate::output::LineStyle;
use crate::run::Cancel;
use crate::score::Score;
use crate::walk::first_arrivals::{FirstArrivals, Lines};
use crate::write::pipeline::{self, Appended, Chunk, SinkFailure};
use std::io::{self, Write};

/// What `fix` changed, for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Records whose value, bounds or a link score changed: the receipt's lines.
    pub records: u64,
    /// Records whose value changed.
    pub values: u64,
    /// Links whose score changed.
    pub link_scores: u64,
    /// Records whose win, draw, loss or line counts changed.
    pub counts: u64,
    /// Records whose links are in another order.
    pub reordered: u64,
}

impl Changes {
    /// Adds the counts of `other`.
    fn add(&mut self, other: &Changes) {
        self.records += other.records;
        self.values += other.values;
        self.link_scores += other.link_scores;
        self.counts += other.counts;
        self.reordered += other.reordered;
    }
}

/// Why writing stopped: the fixed book could not be written (the sink's
/// I/O), a stop, or a failure of `fix`'s own.
pub(super) type Failure = SinkFailure<Broken>;

/// What stops writing the fixed book beside the book's I/O and a stop.
#[derive(Debug)]
pub(super) enum Broken {
    /// The receipt could not be written.
    Receipt(io::Error),
    /// A record no longer reads: the book changed since it was checked.
    BookChanged,
}

/// Records handled together: their children's solutions and their lines'
/// first arrivals are asked for before any is read, so that the reads
/// overlap instead of waiting one after another. A chunk starts where the
/// book file keeps a record's offset, so that any chunk can be found alone.
const CHUNK: usize = crate::book::CHUNK_RECORDS;

/// A chunk's changed records, waiting for their lines: each one's id,
/// stored board and change.
#[derive(Default)]
struct Pending {
    ids: Vec<RecordId>,
    changes: Vec<(Board, Change)>,
    lines: Lines,
}

impl Pending {
    fn push(&mut self, id: RecordId, board: Board, change: Change, first: &FirstArrivals) {
        first.prefetch(id);
        self.ids.push(id);
        self.changes.push((board, change));
    }

    /// Writes the receipt's lines of the records pending, in order.
    fn write(&mut self, first: &FirstArrivals, receipt: &mut Receipt<'_>) {
        first.lines(&self.ids, &mut self.lines);
        for (i, (&id, (board, change))) in self.ids.iter().zip(&self.changes).enumerate() {
            receipt.write(id, board, self.lines.get(i), change);
        }
        self.ids.clear();
        self.changes.clear();
    }
}

/// A chunk of an Edax book's records, each with its linked children.
#[derive(Default)]
struct EdaxChunk<'a> {
    records: Vec<(RecordId, edax::RawRecord<'a>)>,
    /// For each record, the range of its links' children in `children`
    /// (empty for a record not linked, whose links keep their scores).
    ranges: Vec<std::ops::Range<usize>>,
    children: Vec<Option<RecordId>>,
    targets: Vec<Destination>,
}

impl<'a> EdaxChunk<'a> {
    /// Takes the records `ids` and asks for their children's solutions;
    /// none if they no longer read.
    fn fill(
        &mut self,
        ids: std::ops::Range<usize>,
        book: &'a ResolvedBook,
        fixed: &Fixed,
        solved: &EdaxSolutions,
    ) -> Option<()> {
        self.records.clear();
        self.ranges.clear();
        self.children.clear();
        let file = book.file();
        let wanted = ids.len();
        for at in file.records_in(ids) {
            let (id, raw) = (at.id, file.edax_record(at)?);
            let from = self.children.len();
            if fixed.linked.contains(id) {
                self.targets.clear();
                book.link_targets(at, &mut self.targets);
                for target in &self.targets {
                    let child = match *target {
                        Destination::Child(at, _) => Some(at.id),
                        Destination::Absent | Destination::Illegal => None,
                    };
                    if let Some(child) = child {
                        solved.prefetch(child);
                    }
                    self.children.push(child);
                }
            }
            self.ranges.push(from..self.children.len());
            self.records.push((id, raw));
        }
        (self.records.len() == wanted).then_some(())
    }
}

/// One chunk of the book fixed: its bytes, its receipt lines and what it
/// changed, with room reused from chunk to chunk.
struct Written<'a, 'f> {
    book: Vec<u8>,
    records: u64,
    receipt: Receipt<'f>,
    changes: Changes,
    pending: Pending,
    edax: EdaxChunk<'a>,
}

impl<'a, 'f> Written<'a, 'f> {
    fn new(format: &'f LineStyle) -> Self {
        Written {
            book: Vec::new(),
            records: 0,
            receipt: Receipt::new(format),
            changes: Changes::default(),
            pending: Pending::default(),
            edax: EdaxChunk::default(),
        }
    }
}

impl Chunk for Written<'_, '_> {
    fn clear(&mut self) {
        self.book.clear();
        self.records = 0;
        self.changes = Changes::default();
    }

    fn bytes(&self) -> &[u8] {
        &self.book
    }

    fn records(&self) -> u64 {
        self.records
    }
}

/// Writes the book's header, then its chunks in order as `fix_chunk` makes
/// them on every core, with their receipt lines; what they changed, summed.
fn write_chunks<'a, 'f>(
    header: &[u8],
    chunks: usize,
    format: &'f LineStyle,
    fix_chunk: impl Fn(usize, &mut Written<'a, 'f>) -> Result<(), Failure> + Sync,
    out: &mut impl Write,
    receipt: &mut impl Write,
    cancel: Cancel<'_>,
) -> Result<Changes, Failure> {
    out.write_all(header)?;
    let mut changes = Changes::default();
    let then = |written: &mut Written<'a, 'f>| {
        written.receipt.drain_into(receipt).map_err(|e| SinkFailure::Own(Broken::Receipt(e)))?;
        changes.add(&written.changes);
        Ok(())
    };
    let mut sink = Appended(out);
    let fresh = || Written::new(format);
    pipeline::write_chunks(chunks, fresh, fix_chunk, &mut sink, cancel, then)?;
    Ok(changes)
}

/// Writes the fixed book to `out` and its receipt: each record of the
/// book being read, in file order, with the link scores `rescored` gives
/// it and its solution put in if it is linked (an Edax record's links also
/// sorted as Edax sorts them).
pub(super) fn write_fixed<'a>(
    book: &'a ResolvedBook,
    fixed: &Fixed,
    rescored: &Rescored,
    format: &LineStyle,
    out: &mut impl Write,
    receipt: &mut impl Write,
    cancel: Cancel<'_>,
) -> Result<Changes, Failure> {
    let records = book.counts().records as usize;
    let chunk_ids = |k: usize| k * CHUNK..((k + 1) * CHUNK).min(records);
    let header_len = book.file().format().kept_as().header_len();
    let header = book.file().bytes().get(..header_len).ok_or(SinkFailure::Own(Broken::BookChanged))?;
    let fix_chunk = |k: usize, written: &mut Written<'a, '_>| {
        let fixed_all = match &fixed.solutions {
            Solutions::Edax { solved, .. } => fix_edax_chunk(chunk_ids(k), book, (fixed, rescored), solved, written),
            Solutions::Egaroucid(values) => fix_egaroucid_chunk(chunk_ids(k), book, fixed, values, written),
        };
        written.records = chunk_ids(k).len() as u64;
        fixed_all.ok_or(SinkFailure::Own(Broken::BookChanged))
    };
    write_chunks(header, records.div_ceil(CHUNK), format, fix_chunk, out, receipt, cancel)
}

/// Fixes the records `ids` of an Edax book, those `rescored` gives new
/// link scores with them, into `written`; none if they no longer read.
fn fix_edax_chunk<'a>(
    ids: std::ops::Range<usize>,
    book: &'a ResolvedBook,
    (fixed, rescored): (&Fixed, &Rescored),
    solved: &EdaxSolutions,
    written: &mut Written<'a, '_>,
) -> Option<()> {
    let Written { book: bytes, receipt, changes, pending, edax: chunk, .. } = written;
    let mut rescoring = rescored.from(RecordId(u32::try_from(ids.start).ok()?));
    chunk.fill(ids, book, fixed, solved)?;
    for ((id, raw), range) in chunk.records.iter().zip(&chunk.ranges) {
        let at = bytes.len();
        bytes.extend_from_slice(raw.bytes());
        let record = &mut bytes[at..];
        patch::put_stored_link_scores(record, rescoring.scores_of(*id).unwrap_or_default().iter().copied());
        let mut change = Change::default();
        let linked = fixed.linked.contains(*id).then(|| {
            let scores = chunk.children[range.clone()]
                .iter()
                .map(|child| child.map(|child| negamax::edax_link_score(&solved.get(child))));
            (solved.get(*id), scores)
        });
        fix_edax_bytes(record, raw, linked, &mut change, changes);
        if change.is_change() {
            changes.records += 1;
            pending.push(*id, raw.board(), change, &fixed.first);
        }
    }
    pending.write(&fixed.first, receipt);
    Some(())
}

/// Fixes one Edax record's bytes, `raw` as read: for a record reached over
/// links, its negamax and its links' scores (`None`: the child is not in
/// the book) put in; then its links sorted as Edax sorts them. Notes what
/// changed.
fn fix_edax_bytes(
    record: &mut [u8],
    raw: &edax::RawRecord<'_>,
    linked: Option<(Negamaxed, impl Iterator<Item = Option<Score>>)>,
    change: &mut Change,
    changes: &mut Changes,
) {
    if let Some((solved, scores)) = linked {
        put_solution(record, raw, &solved, change, changes);
        put_link_scores(record, scores, change);
        changes.link_scores += change.links.len() as u64;
    }
    if sort_links(record, raw.n_links()) {
        changes.reordered += 1;
    }
}

/// An Edax record as `fix` writes it ([`fix_edax_bytes`]), for writers of
/// books negamaxed otherwise: `record` holds the bytes of `raw`.
pub(crate) fn fix_edax_record(
    record: &mut [u8],
    raw: &edax::RawRecord<'_>,
    linked: Option<(Negamaxed, impl Iterator<Item = Option<Score>>)>,
) {
    fix_edax_bytes(record, raw, linked, &mut Change::default(), &mut Changes::default());
}

/// Puts a record's new counts, value and bounds into its bytes, noting what changed.
fn put_solution(
    record: &mut [u8],
    raw: &edax::RawRecord<'_>,
    new: &Negamaxed,
    change: &mut Change,
    changes: &mut Changes,
) {
    let c = new.counts;
    let counts = [c.wins, c.draws, c.losses, c.lines];
    if raw.counts() != counts {
        changes.counts += 1;
    }
    patch::put_counts(record, counts);
    let (lower, upper) = raw.bounds();
    let old = [raw.value(), lower, upper].map(Score::stored_short);
    let new = [new.value, new.lower, new.upper].map(Score::stored_short);
    for (i, slot) in [&mut change.value, &mut change.lower, &mut change.upper].into_iter().enumerate() {
        if old[i] != new[i] {
            *slot = Some([old[i], new[i]]);
        }
    }
    patch::put_scores(record, new);
    if change.value.is_some() {
        changes.values += 1;
    }
}

/// Puts each link's new score (`None`: the child is not in the book, the
/// score stays) into a record's bytes, noting those that changed.
fn put_link_scores(record: &mut [u8], scores: impl Iterator<Item = Option<Score>>, change: &mut Change) {
    for (i, score) in scores.map(|score| score.map(Score::stored_byte)).enumerate() {
        let (Some(new), Some((old, code))) = (score, patch::link_pair(record, i)) else { continue };
        if let (true, Some(mv)) = (new != old, Move::from_code(code)) {
            patch::put_link_score(record, i, new);
            change.links.push((mv, [old, new]));
        }
    }
}

/// Sorts a record's `n_links` links as Edax's `book sort` does; true if
/// their order changed. Sorted where they are, each link a (score, move)
/// pair of bytes: a list of pairs copied out byte by byte and then moved
/// is read with loads wider than those writes, which wait for them to land
/// (a tenth of writing a grown book at 100M; docs/benchmarks.md).
fn sort_links(record: &mut [u8], n_links: usize) -> bool {
    if n_links < 2 {
        return false; // one link or none: already in order
    }
    let Some(bytes) = patch::links_mut(record, n_links) else { return false };
    let (pairs, _) = bytes.as_chunks_mut::<2>();
    // A record stores at most 255 links (its count is a byte).
    let mut moves_before = [0u8; 256];
    for (before, pair) in moves_before.iter_mut().zip(pairs.iter()) {
        *before = pair[1];
    }
    negamax::sort_links(pairs, |pair| Score::from(pair[0] as i8));
    pairs.iter().zip(moves_before).any(|(pair, before)| pair[1] != before)
}

/// Fixes the records `ids` of an Egaroucid book into `written`; none if
/// they no longer read.
fn fix_egaroucid_chunk(
    ids: std::ops::Range<usize>,
    book: &ResolvedBook,
    fixed: &Fixed,
    values: &[i8],
    written: &mut Written<'_, '_>,
) -> Option<()> {
    let bytes = book.file().bytes();
    for n in ids {
        let id = RecordId(u32::try_from(n).ok()?);
        let raw = egaroucid::record_at(bytes, id)?;
        let mut record = *raw.bytes();
        let old = raw.raw_value() as i8;
        let new = values.get(n).copied().filter(|_| fixed.linked.contains(id)).unwrap_or(old);
        if new != old {
            egaroucid::put_value(&mut record, new);
            written.changes.values += 1;
            written.changes.records += 1;
            let change = Change { value: Some([old.into(), new.into()]), ..Change::default() };
            written.pending.push(id, raw.board(), change, &fixed.first);
        }
        written.book.extend_from_slice(&record);
    }
    written.pending.write(&fixed.first, &mut written.receipt);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;

    fn record_with_links(links: &[(i8, u8)]) -> Vec<u8> {
        let mut record = vec![0; edax::LINKS_AT];
        for &(score, code) in links {
            record.extend_from_slice(&[score as u8, code]);
        }
        record.extend_from_slice(&[0, 65]);
        record
    }

    #[test]
    fn links_are_sorted_in_place_and_a_new_order_is_told() {
        let mut record = record_with_links(&[(1, 19), (3, 26), (2, 37)]);
        assert!(sort_links(&mut record, 3));
        assert_eq!(record, record_with_links(&[(3, 26), (2, 37), (1, 19)]));
        assert!(!sort_links(&mut record, 3), "sorted links stay as they are");
        let mut one = record_with_links(&[(-5, 44)]);
        assert!(!sort_links(&mut one, 1));
    }

    #[test]
    fn links_sorted_in_place_agree_with_a_sorted_copy_of_them() {
        // The obvious way: the links copied out, sorted, written back, and
        // the order compared move by move.
        fn sorted_copy(record: &[u8], n_links: usize) -> (Vec<u8>, bool) {
            let at = edax::LINKS_AT..edax::LINKS_AT + 2 * n_links;
            let mut pairs: Vec<[u8; 2]> = record[at.clone()].chunks(2).map(|p| [p[0], p[1]]).collect();
            let before: Vec<u8> = pairs.iter().map(|p| p[1]).collect();
            negamax::sort_links(&mut pairs, |pair| Score::from(pair[0] as i8));
            let mut sorted = record.to_vec();
            sorted[at].copy_from_slice(pairs.concat().as_slice());
            (sorted, pairs.iter().map(|p| p[1]).ne(before))
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let counts = (0..40).chain([255]);
        for n_links in counts.flat_map(|n| std::iter::repeat_n(n, 50)) {
            // Scores from a narrow range (ties), moves that may repeat.
            let links: Vec<(i8, u8)> = (0..n_links).map(|_| ((next() % 5) as i8 - 2, (next() % 8) as u8)).collect();
            let mut record = record_with_links(&links);
            let (expected, reordered) = sorted_copy(&record, n_links);
            assert_eq!(sort_links(&mut record, n_links), reordered, "{links:?}");
            assert_eq!(record, expected, "{links:?}");
        }
    }

    #[test]
    fn new_link_scores_are_put_in_and_the_changed_ones_noted_in_stored_order() {
        let mut record = record_with_links(&[(1, 19), (3, 26), (2, 37)]);
        let mut change = Change::default();
        let scores = [Some(1), None, Some(-4)].map(|score| score.map(Score::new));
        put_link_scores(&mut record, scores.into_iter(), &mut change);
        assert_eq!(record, record_with_links(&[(1, 19), (3, 26), (-4, 37)]));
        let f5 = Move::Play(Square::parse("F5").unwrap());
        assert_eq!(change.links.as_slice(), &[(f5, [2, -4])]);
    }
}
