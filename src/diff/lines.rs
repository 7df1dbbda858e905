//! `diff.jsonl`: one line per board only in the old book, only in the new
//! one, or in both with a difference; the old book's records in file order,
//! then the new book's records whose board the old book lacks, in file
//! order. Made a chunk of records at a time on every core, each chunk's
//! lines rebuilt together
//! ([`crate::walk::first_arrivals::FirstArrivals::lines`]), and handed to the
//! file in order.

use super::compare::{compare, Difference};
use super::matching::Matches;
use super::walked::Walked;
use crate::board::Board;
use crate::book::index::Located;
use crate::book::{Book, BookFile, Destination, Leaf, Record, RecordId};
use crate::output::placed::{MoveFrame, Placer};
use crate::output::print::{push_int, push_pair};
use crate::output::LineStyle;
use crate::parallel;
use crate::run::Cancel;
use crate::walk::first_arrivals::Lines;
use crate::write::pipeline::SinkFailure;
use std::convert::Infallible;
use std::io::Write;

/// Records compared together: a chunk's lines are rebuilt many at a time.
const CHUNK: usize = crate::book::CHUNK_RECORDS;

/// What the lines count, for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffCounts {
    /// Boards only the old book holds.
    pub only_old: u64,
    /// Boards only the new book holds.
    pub only_new: u64,
    /// Boards both hold with a difference.
    pub changed: u64,
    /// Of those, the records whose value differs, whose bounds do, whose
    /// level does, whose leaf does, and whose links do.
    pub values: u64,
    /// Boards whose bounds differ.
    pub bounds: u64,
    /// Boards whose level differs.
    pub levels: u64,
    /// Boards whose leaf differs.
    pub leaves: u64,
    /// Boards whose links differ.
    pub links: u64,
    /// Links whose score differs or that one record lacks.
    pub link_scores: u64,
}

impl DiffCounts {
    /// All the lines written.
    pub fn lines(&self) -> u64 {
        self.only_old + self.only_new + self.changed
    }

    fn add(&mut self, other: &DiffCounts) {
        self.only_old += other.only_old;
        self.only_new += other.only_new;
        self.changed += other.changed;
        self.values += other.values;
        self.bounds += other.bounds;
        self.levels += other.levels;
        self.leaves += other.leaves;
        self.links += other.links;
        self.link_scores += other.link_scores;
    }

    fn note(&mut self, d: &Difference) {
        self.changed += 1;
        self.values += u64::from(d.value.is_some());
        self.bounds += u64::from(d.lower.is_some() || d.upper.is_some());
        self.levels += u64::from(d.level.is_some());
        self.leaves += u64::from(d.leaf.is_some());
        self.links += u64::from(!d.links.is_empty());
        self.link_scores += d.links.len() as u64;
    }
}

/// Why writing stopped: the file written could not be written, or a stop.
pub type Failure = SinkFailure<Infallible>;

/// The new book: walked when it holds boards the old one lacks (their
/// lines come from its walk), else as loaded.
pub enum NewBook {
    Walked(Walked),
    Loaded(Book),
}

impl NewBook {
    pub fn file(&self) -> &BookFile {
        match self {
            NewBook::Walked(walked) => walked.book().file(),
            NewBook::Loaded(book) => book.file(),
        }
    }

    fn read(&self, at: Located, targets: &mut Vec<Destination>) -> Record {
        match self {
            NewBook::Walked(walked) => walked.book().read(at, targets),
            NewBook::Loaded(book) => book.file().record(book.index(), at),
        }
    }
}

/// The two books, and which boards they share.
pub struct Both<'a> {
    pub old: &'a Walked,
    pub new: &'a NewBook,
    pub matches: &'a Matches,
}

/// What a line is about.
enum Kind {
    OnlyOld { value: i32 },
    OnlyNew { value: i32 },
    Changed(Difference),
}

/// Which walk's first arrival names a record.
#[derive(Clone, Copy)]
enum LineFrom {
    /// The `i`-th line asked of the old book's walk.
    Old(usize),
    New(usize),
    Unreached,
}

/// A line waiting for its kifu.
struct Pending {
    kind: Kind,
    ids: [Option<RecordId>; 2],
    board: Board,
    from: LineFrom,
}

/// One chunk's lines and counts, with room reused from chunk to chunk.
struct Chunk<'f> {
    out: String,
    counts: DiffCounts,
    pending: Vec<Pending>,
    /// Records whose lines each walk is asked for.
    asked: [Vec<RecordId>; 2],
    lines: [Lines; 2],
    placer: Placer<'f>,
    targets: Vec<Destination>,
}

impl<'f> Chunk<'f> {
    fn new(format: &'f LineStyle) -> Self {
        Chunk {
            out: String::new(),
            counts: DiffCounts::default(),
            pending: Vec::new(),
            asked: [Vec::new(), Vec::new()],
            lines: [Lines::default(), Lines::default()],
            placer: Placer::new(format),
            targets: Vec::new(),
        }
    }

    /// Notes a line, naming its record by the first arrival of the walk
    /// of the book it is read from: the old book's walk for a board the
    /// old book holds, the new book's for one only the new book holds.
    fn push(&mut self, walked: &Walked, kind: Kind, ids: [Option<RecordId>; 2], board: Board) {
        let (side, id) = match ids {
            [Some(id), _] => (0, id),
            [None, Some(id)] => (1, id),
            [None, None] => return,
        };
        let from = match walked.reached.contains(id) {
            false => LineFrom::Unreached,
            true => {
                self.asked[side].push(id);
                let i = self.asked[side].len() - 1;
                if side == 0 {
                    LineFrom::Old(i)
                } else {
                    LineFrom::New(i)
                }
            }
        };
        self.pending.push(Pending { kind, ids, board, from });
    }

    /// Compares the old book's records `ids` with the new book's.
    fn compare_old(&mut self, ids: std::ops::Range<usize>, both: &Both<'_>) {
        let old = both.old.book();
        for at in old.file().records_in(ids) {
            self.targets.clear();
            let record = old.read(at, &mut self.targets);
            match both.matches.in_new(at.id) {
                None => {
                    self.counts.only_old += 1;
                    let kind = Kind::OnlyOld { value: record.value.0 };
                    self.push(both.old, kind, [Some(at.id), None], record.board);
                }
                Some(there) => {
                    self.targets.clear();
                    let difference = compare(&record, &both.new.read(there, &mut self.targets));
                    if !difference.is_empty() {
                        self.counts.note(&difference);
                        self.push(both.old, Kind::Changed(difference), [Some(at.id), Some(there.id)], record.board);
                    }
                }
            }
        }
    }

    /// The new book's records `ids` whose board the old book lacks.
    fn only_new(&mut self, ids: std::ops::Range<usize>, both: &Both<'_>) {
        let NewBook::Walked(new) = both.new else { return };
        for at in new.book().file().records_in(ids) {
            if !both.matches.is_matched(at.id) {
                self.targets.clear();
                let record = new.book().read(at, &mut self.targets);
                self.counts.only_new += 1;
                self.push(new, Kind::OnlyNew { value: record.value.0 }, [None, Some(at.id)], record.board);
            }
        }
    }

    /// Writes the lines noted, in order, and forgets them.
    fn write_pending(&mut self, both: &Both<'_>) {
        both.old.first.lines(&self.asked[0], &mut self.lines[0]);
        if let NewBook::Walked(new) = both.new {
            new.first.lines(&self.asked[1], &mut self.lines[1]);
        }
        for p in self.pending.drain(..) {
            let text = &mut self.out;
            text.push_str("{\"diff\":");
            text.push_str(match p.kind {
                Kind::OnlyOld { .. } => "\"old\"",
                Kind::OnlyNew { .. } => "\"new\"",
                Kind::Changed(_) => "\"changed\"",
            });
            for (key, id) in [("old", p.ids[0]), ("new", p.ids[1])] {
                text.push_str(",\"");
                text.push_str(key);
                text.push_str("\":");
                push_optional(id.map(|id| id.0.into()), text);
            }
            let frame = match p.from {
                LineFrom::Old(i) => self.placer.push(&p.board, self.lines[0].get(i), text),
                LineFrom::New(i) => self.placer.push(&p.board, self.lines[1].get(i), text),
                LineFrom::Unreached => self.placer.push_unreached(&p.board, text),
            };
            match p.kind {
                Kind::OnlyOld { value } => push_pair_with_none("value", [Some(value), None], text),
                Kind::OnlyNew { value } => push_pair_with_none("value", [None, Some(value)], text),
                Kind::Changed(d) => push_difference(&d, &frame, text),
            }
            text.push_str("}\n");
        }
        self.asked.iter_mut().for_each(Vec::clear);
    }
}

/// The keys of a difference, in their fixed order, each only when it differs.
fn push_difference(d: &Difference, frame: &MoveFrame<'_>, text: &mut String) {
    for (key, pair) in [("value", d.value), ("lower", d.lower), ("upper", d.upper), ("level", d.level)] {
        if let Some([old, new]) = pair {
            push_pair(key, old.into(), new.into(), text);
        }
    }
    if let Some(leaves) = d.leaf {
        text.push_str(",\"leaf\":[");
        for (i, leaf) in leaves.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            push_leaf(*leaf, frame, text);
        }
        text.push(']');
    }
    frame.push_links(d.links.iter().map(|&(mv, [old, new])| (mv, [old.map(i64::from), new.map(i64::from)])), text);
}

/// `["C4",3]`, or `null` without a leaf (or a move: none is compared).
fn push_leaf(leaf: Option<Leaf>, frame: &MoveFrame<'_>, text: &mut String) {
    match leaf.and_then(|leaf| Some((leaf.mv?, leaf.score))) {
        Some((mv, score)) => {
            text.push_str("[\"");
            frame.push_move(mv, text);
            text.push_str("\",");
            push_int(score.discs().into(), text);
            text.push(']');
        }
        None => text.push_str("null"),
    }
}

/// `,"key":[old,new]` where either may be `null`.
fn push_pair_with_none(key: &str, [old, new]: [Option<i32>; 2], text: &mut String) {
    text.push_str(",\"");
    text.push_str(key);
    text.push_str("\":[");
    push_optional(old.map(i64::from), text);
    text.push(',');
    push_optional(new.map(i64::from), text);
    text.push(']');
}

/// A number, or `null`.
fn push_optional(n: Option<i64>, text: &mut String) {
    match n {
        Some(n) => push_int(n, text),
        None => text.push_str("null"),
    }
}

/// Writes the lines of the two books' differences to `out`, and counts them.
pub fn write_lines(
    both: &Both<'_>,
    format: &LineStyle,
    out: &mut dyn Write,
    cancel: Cancel<'_>,
) -> Result<DiffCounts, Failure> {
    let ids = |records: u64, k: usize| k * CHUNK..((k + 1) * CHUNK).min(records as usize);
    let (old_records, new_records) = (both.old.book().counts().records, both.new.file().counts().records);
    let old_chunks = (old_records as usize).div_ceil(CHUNK);
    let new_chunks = match both.new {
        NewBook::Walked(_) => (new_records as usize).div_ceil(CHUNK),
        NewBook::Loaded(_) => 0,
    };
    let chunks = old_chunks + new_chunks;
    let work = |k: usize, chunk: &mut Chunk<'_>| {
        chunk.out.clear();
        chunk.counts = DiffCounts::default();
        match k.checked_sub(old_chunks) {
            None => chunk.compare_old(ids(old_records, k), both),
            Some(k) => chunk.only_new(ids(new_records, k), both),
        }
        chunk.write_pending(both);
    };
    let mut counts = DiffCounts::default();
    let consume = |chunk: &mut Chunk<'_>| {
        cancel.check()?;
        out.write_all(chunk.out.as_bytes())?;
        counts.add(&chunk.counts);
        Ok::<(), Failure>(())
    };
    parallel::in_order(chunks, parallel::workers(), || Chunk::new(format), work, consume)?;
    Ok(counts)
}
