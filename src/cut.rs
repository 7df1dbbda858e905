//! `cut` (docs/convert.md, cut): the records of the start line before the
//! start, then the start position's record and every record the windowed
//! walk arrives at, in walk order, in the book's own format (an
//! older Egaroucid book as .egbk3); an Edax record's links to records not
//! written are pruned as Edax's `book prune` does.

use crate::board::Board;
use crate::book::index::Located;
use crate::book::{Book, Destination, RecordId, ResolvedBook};
use crate::convert::{walk_error, ConvertError, LEFT};
use crate::format::{edax, OutFormat};
use crate::run::{Control, Phase, RunError};
use crate::symmetry::normalize;
use crate::walk::{Start, Walkable};
use crate::window::Window;
use crate::write::order::walk_order;
use crate::write::pipeline::{self, Chunk};
use crate::write::BookOut;
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a cut did, for the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CutReport {
    /// The book written.
    pub out: PathBuf,
    /// Records in the file read.
    pub read: u64,
    /// Records written: the start line's before the start, and those the
    /// windowed walk reached.
    pub kept: u64,
    /// Edax links removed because their child was not written.
    pub links_pruned: u64,
    /// Edax leaves replaced by the best link removed.
    pub leaves_replaced: u64,
    /// How long the run took.
    pub elapsed: Duration,
}

impl fmt::Display for CutReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "records read       {}", self.read)?;
        writeln!(f, "records kept       {} written to {}", self.kept, self.out.display())?;
        writeln!(f, "links pruned       {}", self.links_pruned)?;
        writeln!(f, "leaves replaced    {}", self.leaves_replaced)?;
        write!(f, "elapsed            {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// Records cut at a time on one core.
const CHUNK: usize = crate::book::CHUNK_RECORDS;

/// Some records cut: their bytes, how many, what pruning them removed,
/// and room reused from part to part.
#[derive(Default)]
struct Part {
    bytes: Vec<u8>,
    records: u64,
    links_pruned: u64,
    leaves_replaced: u64,
    targets: Vec<Destination>,
}

impl Chunk for Part {
    fn clear(&mut self) {
        self.bytes.clear();
        self.records = 0;
        self.links_pruned = 0;
        self.leaves_replaced = 0;
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn records(&self) -> u64 {
        self.records
    }
}

impl Part {
    /// Appends the record at `at` in `format`: an Edax record with its
    /// links to records not written (`kept` false) pruned, an .egbk3 one as
    /// it is. None if the record no longer reads as it did at load (its
    /// moves, its targets): the book was rewritten under us.
    fn push(
        &mut self,
        resolved: &ResolvedBook,
        at: Located,
        format: OutFormat,
        kept: impl Fn(RecordId) -> bool,
    ) -> Option<()> {
        match format {
            OutFormat::Edax => {
                self.targets.clear();
                let record = resolved.read(at, &mut self.targets);
                let raw = resolved.file().edax_record(at)?;
                let targets = &self.targets;
                if targets.len() != record.moves().count() || raw.n_links() > targets.len() {
                    return None;
                }
                let written = |i: usize| matches!(targets[i], Destination::Child(child, _) if kept(child.id));
                let (bytes, pruned, replaced) = edax::pruned(&raw, written);
                self.links_pruned += pruned as u64;
                self.leaves_replaced += u64::from(replaced);
                self.bytes.extend_from_slice(&bytes);
            }
            OutFormat::Egbk3 => self.bytes.extend_from_slice(resolved.file().egaroucid_record(at)?.bytes()),
        }
        self.records += 1;
        Some(())
    }
}

/// The records `book` holds of the positions on the start line before the
/// start, the initial position first, each once (§12): written ahead of the
/// walk's records so that the cut book is whole from the initial position.
fn records_before_start(book: &Book, start: &Start) -> Vec<Located> {
    let mut board = Board::INITIAL;
    let mut found: Vec<Located> = Vec::new();
    for &mv in &start.line {
        if let Some(at) = book.locate(&normalize(&board).board) {
            if !found.iter().any(|seen| seen.id == at.id) {
                found.push(at);
            }
        }
        match board.after(mv) {
            Some(next) => board = next,
            None => break,
        }
    }
    found
}

/// The start line's records, then the walk's, a record the walk also reached
/// (through a pass, the position before it) written once, in the first place.
fn start_line_first(before: Vec<Located>, reached: Vec<Located>) -> Vec<Located> {
    if before.is_empty() {
        return reached;
    }
    let ahead: HashSet<RecordId> = before.iter().map(|at| at.id).collect();
    before.into_iter().chain(reached.into_iter().filter(|at| !ahead.contains(&at.id))).collect()
}

/// Writes to `out` the part of `book` that the walk from `start` under
/// `window` reaches, after the records of the start line before it.
pub fn cut(
    book: Book,
    start: &Start,
    window: Window,
    out: &Path,
    control: Control<'_>,
) -> Result<CutReport, ConvertError> {
    let began = Instant::now();
    let book_path = book.path().to_path_buf();
    let format = book.format().kept_as();
    let header = book.header();
    let mut sink = BookOut::create(out, &book_path, format.header_len())?;
    let mut report = CutReport { out: out.to_path_buf(), read: book.counts().records, ..CutReport::default() };
    let before = records_before_start(&book, start);
    (control.phase)(Phase::Resolving);
    let walkable = Walkable::new(book, start).map_err(RunError::start_missing(&book_path))?.within(window);
    (control.phase)(Phase::Walking);
    let mut reached = Vec::new();
    let mut note = |batch: &[Located]| {
        reached.extend_from_slice(batch);
        Ok(())
    };
    let (order, _) = walk_order(&walkable, control.cancel, control.progress, &mut note)
        .map_err(|error| walk_error(&book_path, error))?;
    (control.phase)(Phase::Writing);
    let kept_before: HashSet<RecordId> = before.iter().map(|at| at.id).collect();
    let reached = start_line_first(before, reached);
    let resolved = walkable.book();
    let changed = || ConvertError::from(RunError::BookChanged { book: book_path.clone(), left: LEFT });
    let cut_chunk = |k: usize, part: &mut Part| {
        for &at in &reached[k * CHUNK..((k + 1) * CHUNK).min(reached.len())] {
            part.push(resolved, at, format, |id| order.is_reached(id) || kept_before.contains(&id))
                .ok_or_else(changed)?;
        }
        Ok::<(), ConvertError>(())
    };
    let then = |part: &mut Part| {
        report.links_pruned += part.links_pruned;
        report.leaves_replaced += part.leaves_replaced;
        Ok(())
    };
    let chunks = reached.len().div_ceil(CHUNK);
    pipeline::write_chunks(chunks, Part::default, cut_chunk, &mut sink, control.cancel, then)?;
    report.kept = sink.records();
    let finished = sink.finish(&header.kept(report.kept))?;
    if resolved.file().changed() {
        return Err(changed());
    }
    finished.commit().map_err(|source| crate::write::WriteError::Io { path: out.to_path_buf(), source })?;
    report.elapsed = began.elapsed();
    Ok(report)
}
