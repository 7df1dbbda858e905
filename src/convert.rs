//! `convert` (docs/convert.md): any book bookminer reads, written as an Edax or an
//! Egaroucid book in walk order (§9), with a count of everything that was
//! added, left out or lost on the way.

use crate::board::Board;
use crate::book::index::Located;
use crate::book::{Book, BookError, Destination, Header, ResolvedBook};
use crate::failure::ErrorKind;
use crate::format::edax;
use crate::format::egaroucid::encode as egbk3;
use crate::format::Family;
pub use crate::format::{Format, OutFormat};
use crate::level::Level;
use crate::run::{Control, Interrupted, Left, Phase, RunError};
use crate::symmetry::normalize;
use crate::walk::{FromInitial, WalkError, Walkable};
use crate::wording::count;
use crate::write::order::{walk_order, PassThrough, WalkOrder};
use crate::write::pipeline::{self, Chunk, Sink};
use crate::write::{BookOut, WriteError};
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Why a book could not be converted (or cut).
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error(transparent)]
    /// The book cannot be read.
    Book(#[from] BookError),
    #[error(transparent)]
    /// OUT cannot be written.
    Write(#[from] WriteError),
    #[error(transparent)]
    /// The walk, the files or a stop failed the run.
    Run(#[from] RunError),
}

impl ConvertError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ConvertError::Book(e) => e.kind(),
            ConvertError::Write(e) => e.kind(),
            ConvertError::Run(e) => e.kind(),
        }
    }
}

/// What a failed conversion (or cut) leaves: no book.
pub(crate) const LEFT: Left = Left::Nothing;

/// What a conversion did, for the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvertReport {
    /// The format read.
    pub from: Option<Format>,
    /// The format written.
    pub to: Option<OutFormat>,
    /// The book written.
    pub out: PathBuf,
    /// Records in the file read.
    pub read: u64,
    /// Records written, pass records included.
    pub written: u64,
    /// Records the walk from the initial position reached.
    pub reached: u64,
    /// Pass records added (Egaroucid to Edax, docs/formats.md, writing an Edax book).
    pub passes_added: u64,
    /// Records that are not part of the book read (an .egbk3 value out of
    /// range), so not written.
    pub not_in_book: u64,
    /// Edax records whose value Egaroucid cannot hold (outside −64..64).
    pub left_out_value: u64,
    /// Edax records whose side to move must pass (Egaroucid keeps the
    /// position after the pass).
    pub left_out_pass: u64,
    /// Edax link scores not stored in an .egbk3 book.
    pub links_lost: u64,
    /// Of those, the ones whose score differs from what the child says.
    pub links_differing: u64,
    /// Edax records written to .egbk3: their bounds and win/draw/loss
    /// counts are lost.
    pub bounds_lost: u64,
    /// How long the run took.
    pub elapsed: Duration,
}

impl fmt::Display for ConvertReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let from = self.from.map_or("book", Format::title);
        let to = self.to.map_or(String::new(), |t| t.to_string());
        writeln!(f, "records read       {} ({from})", self.read)?;
        writeln!(
            f,
            "records written    {} to {} ({to}), {} reached from the initial position first, in walk order",
            self.written,
            self.out.display(),
            self.reached
        )?;
        writeln!(f, "pass records added {}", self.passes_added)?;
        writeln!(f, "left out           {} not part of the book read (value out of range)", self.not_in_book)?;
        if self.from.zip(self.to).is_some_and(|(from, to)| Pair::of(from, to).loses()) {
            writeln!(
                f,
                "                   {} with a value outside -64..64, {} whose side to move must pass",
                self.left_out_value, self.left_out_pass
            )?;
            writeln!(
                f,
                "lost               {} ({} from minus the child's value), the bounds and win/draw/loss counts of {}",
                count(self.links_lost, "link score", "link scores"),
                count(self.links_differing, "differs", "differ"),
                count(self.bounds_lost, "record", "records")
            )?;
        } else {
            writeln!(f, "lost               0")?;
        }
        write!(f, "elapsed            {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// The date a new Edax header gets: `SOURCE_DATE_EPOCH` when set (so that
/// tests are reproducible), else now; UTC.
pub fn header_date() -> time::OffsetDateTime {
    let given = std::env::var("SOURCE_DATE_EPOCH").ok();
    match given.as_deref().map(|text| text.trim().parse::<i64>().map(time::OffsetDateTime::from_unix_timestamp)) {
        Some(Ok(Ok(date))) => date,
        Some(_) => {
            tracing::warn!(
                "SOURCE_DATE_EPOCH={:?} is not a time in seconds; dating the book now",
                given.unwrap_or_default()
            );
            time::OffsetDateTime::now_utc()
        }
        None => time::OffsetDateTime::now_utc(),
    }
}

/// Converts `book` into `out` in the format `to`. The file appears under
/// its name only when complete; it is never the book read.
pub fn convert(book: Book, to: OutFormat, out: &Path, mut control: Control<'_>) -> Result<ConvertReport, ConvertError> {
    let began = Instant::now();
    let header_len = to.header_len();
    let book_path = book.path().to_path_buf();
    let sink = BookOut::create(out, &book_path, header_len)?;
    let mut report = ConvertReport {
        from: Some(book.format()),
        to: Some(to),
        out: out.to_path_buf(),
        read: book.counts().records,
        not_in_book: book.counts().records - book.counts().positions,
        ..ConvertReport::default()
    };
    let header = book.header();
    // Edax needs a record for each position before a pass unless the book
    // stores it; Egaroucid books store such positions only by accident.
    let pair = Pair::of(book.format(), to);
    let stored_passes = match pair.adds_passes() {
        true => boards_that_must_pass(&book),
        false => HashSet::new(),
    };
    (control.phase)(Phase::Resolving);
    // A book without the initial position (an empty one) has no walk:
    // every record is written in file order.
    let ready = FromInitial::new(book).map_err(|_| RunError::BookChanged { book: book_path.clone(), left: LEFT })?;
    let (resolved, order, mut sink, mut tally) = match ready {
        FromInitial::Walkable(walkable) => {
            (control.phase)(Phase::Walking);
            let (order, sink, tally) = walk_and_write(&walkable, pair, sink, &mut control)?;
            (walkable.into_book(), order, sink, tally)
        }
        FromInitial::Unwalkable(resolved) => {
            let order = WalkOrder::new(resolved.counts().records);
            (resolved, order, sink, Tally::default())
        }
    };
    report.reached = order.reached;
    tracing::debug!("{}: resolved and walked in {:.3} s", book_path.display(), began.elapsed().as_secs_f64());
    (control.phase)(Phase::Writing);
    let writing = Instant::now();
    tally.add(&write_unreached(&resolved, &order, pair, &mut sink, &control)?);
    if pair.adds_passes() {
        let passes = passes_to_add(&order, std::mem::take(&mut tally.passes), &stored_passes);
        report.passes_added = passes.len() as u64;
        let added = write_passes(&resolved, &passes, &mut sink, &control)?;
        tally.add(&added);
    }
    report.written = sink.records();
    report.note_losses(&tally, &order, pair);
    let finished = sink.finish(&header_written(&header, to, &tally, report.written))?;
    tracing::debug!("{}: written and synced in {:.3} s", out.display(), writing.elapsed().as_secs_f64());
    if resolved.file().changed() || tally.unreadable {
        return Err(RunError::BookChanged { book: book_path, left: LEFT }.into());
    }
    finished.commit().map_err(|source| WriteError::Io { path: out.to_path_buf(), source })?;
    report.elapsed = began.elapsed();
    Ok(report)
}

impl ConvertReport {
    /// Notes what writing the records left out or lost, as `tally` counted.
    fn note_losses(&mut self, tally: &Tally, order: &WalkOrder, pair: Pair) {
        self.left_out_value = tally.left_out_value;
        self.left_out_pass = tally.left_out_pass;
        self.bounds_lost = tally.bounds_lost;
        self.links_lost = tally.links_lost;
        if pair.loses() {
            // The walk compared every link of the records it reached with
            // the child's value as it arrived; the writer the others'.
            self.links_differing = order.stale_links + tally.links_differing;
        }
    }
}

/// The header of a book of `n` records written in `to` from a book with
/// header `read`: an Edax header kept but for its count, or a new one.
fn header_written(read: &Header, to: OutFormat, tally: &Tally, n: u64) -> Vec<u8> {
    match (read.edax(), to) {
        (Some(header), OutFormat::Edax) => edax::header_from(header, n).to_vec(),
        (None, OutFormat::Edax) => edax::new_header(header_date(), tally.level, tally.empties, n).to_vec(),
        (_, OutFormat::Egbk3) => egbk3::header(n).to_vec(),
    }
}

/// A stop by Ctrl-C, for a command that writes a book: nothing was written.
impl From<Interrupted> for ConvertError {
    fn from(stop: Interrupted) -> ConvertError {
        RunError::interrupted(LEFT)(stop).into()
    }
}

/// Why the walk of `book` stopped early.
pub(crate) fn walk_error(book: &Path, error: WalkError<Interrupted>) -> ConvertError {
    RunError::of_walk(book, error, RunError::interrupted(LEFT)).into()
}

/// The stored boards whose side to move must pass while the opponent can
/// move.
fn boards_that_must_pass(book: &Book) -> HashSet<Board> {
    let file = book.file();
    file.every_record().map(|at| file.board_of(at)).filter(|board| board.must_pass()).collect()
}

/// Which writer a conversion needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pair {
    EdaxToEdax,
    EdaxToEgbk3,
    EgaroucidToEdax,
    EgaroucidToEgbk3,
}

impl Pair {
    fn of(from: Format, to: OutFormat) -> Pair {
        match (from.family(), to.family()) {
            (Family::Edax, Family::Edax) => Pair::EdaxToEdax,
            (Family::Edax, Family::Egaroucid) => Pair::EdaxToEgbk3,
            (Family::Egaroucid, Family::Edax) => Pair::EgaroucidToEdax,
            (Family::Egaroucid, Family::Egaroucid) => Pair::EgaroucidToEgbk3,
        }
    }

    /// Whether the book written needs a record before each pass that the
    /// book read may not store: Edax's does; Egaroucid books store such
    /// positions only by accident.
    fn adds_passes(self) -> bool {
        match self {
            Pair::EgaroucidToEdax => true,
            Pair::EdaxToEdax | Pair::EdaxToEgbk3 | Pair::EgaroucidToEgbk3 => false,
        }
    }

    /// Whether the format written stores less than the one read: an
    /// `.egbk3` has no link scores, bounds or win/draw/loss counts.
    fn loses(self) -> bool {
        match self {
            Pair::EdaxToEgbk3 => true,
            Pair::EdaxToEdax | Pair::EgaroucidToEdax | Pair::EgaroucidToEgbk3 => false,
        }
    }
}

/// What writing some records counted.
#[derive(Clone, Debug)]
struct Tally {
    left_out_value: u64,
    left_out_pass: u64,
    bounds_lost: u64,
    links_lost: u64,
    /// Links of records the walk did not reach whose score is not minus
    /// their child's value.
    links_differing: u64,
    /// The highest level and fewest empty squares written (for a new Edax header).
    level: Level,
    empties: i32,
    /// Positions before a pass met on the links of records the walk did
    /// not reach, in order (duplicates included).
    passes: Vec<PassThrough>,
    /// A record no longer read: the book changed since it was loaded.
    unreadable: bool,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            left_out_value: 0,
            left_out_pass: 0,
            bounds_lost: 0,
            links_lost: 0,
            links_differing: 0,
            level: Level::new(1).expect("1 is a level"),
            empties: 60,
            passes: Vec::new(),
            unreadable: false,
        }
    }
}

impl Tally {
    /// Notes an Edax record written at `level` (its byte) for `board`, for the new header.
    fn note_edax(&mut self, level: u8, board: &Board) {
        self.level = self.level.max(Level::saturating(level.into()));
        self.empties = self.empties.min(board.empties() as i32);
    }

    fn add(&mut self, other: &Tally) {
        self.left_out_value += other.left_out_value;
        self.left_out_pass += other.left_out_pass;
        self.bounds_lost += other.bounds_lost;
        self.links_lost += other.links_lost;
        self.links_differing += other.links_differing;
        self.level = self.level.max(other.level);
        self.empties = self.empties.min(other.empties);
        self.passes.extend_from_slice(&other.passes);
        self.unreadable |= other.unreadable;
    }
}

/// Records converted at a time on one core.
const CHUNK: usize = crate::book::CHUNK_RECORDS;

/// How many records ahead of the one converted ask for their bytes.
const LOOKAHEAD: usize = 16;

/// Some records converted: their bytes, how many, what they counted, and
/// room reused from part to part.
#[derive(Default)]
struct Part {
    bytes: Vec<u8>,
    records: u64,
    tally: Tally,
    at: Vec<Located>,
    targets: Vec<Destination>,
}

impl Chunk for Part {
    fn clear(&mut self) {
        self.bytes.clear();
        self.records = 0;
        self.tally = Tally::default();
        self.at.clear();
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn records(&self) -> u64 {
        self.records
    }
}

impl Part {
    /// Appends the part's records to `sink` and adds what they counted to `tally`.
    fn write_to(&self, sink: &mut BookOut, tally: &mut Tally) -> Result<(), ConvertError> {
        sink.append(&self.bytes, self.records)?;
        tally.add(&self.tally);
        Ok(())
    }
}

/// Writes `parts` parts, each made by `make(k, part)` on every core from
/// an empty part, in turn; returns what they counted.
fn write_parts(
    parts: usize,
    make: impl Fn(usize, &mut Part) + Sync,
    sink: &mut BookOut,
    control: &Control<'_>,
) -> Result<Tally, ConvertError> {
    let convert = |k: usize, part: &mut Part| {
        make(k, part);
        Ok::<(), ConvertError>(())
    };
    let mut tally = Tally::default();
    let then = |part: &mut Part| {
        tally.add(&part.tally);
        Ok(())
    };
    pipeline::write_chunks(parts, Part::default, convert, sink, control.cancel, then)?;
    Ok(tally)
}

/// Record batches on their way to the writing thread at most.
const BATCHES_IN_FLIGHT: usize = 4;

/// Walks the book and writes the records it reaches as it reaches them
/// (docs/formats.md, record order), on a thread of its own: the walk's thread only
/// walks. Returns what the walk found, the book being written and what
/// the records written counted.
fn walk_and_write(
    walkable: &Walkable,
    pair: Pair,
    mut sink: BookOut,
    control: &mut Control<'_>,
) -> Result<(WalkOrder, BookOut, Tally), ConvertError> {
    let book = walkable.book();
    let book_path = book.path().to_path_buf();
    let (to_writer, batches) = mpsc::sync_channel::<Vec<Located>>(BATCHES_IN_FLIGHT);
    let (recycle, recycled) = mpsc::channel::<Vec<Located>>();
    std::thread::scope(|scope| {
        let write = move || -> Result<(BookOut, Tally), ConvertError> {
            let (mut part, mut tally) = (Part::default(), Tally::default());
            for batch in batches {
                part.clear();
                part.at.extend_from_slice(&batch);
                let _ = recycle.send(batch);
                convert_part(book, true, pair, &mut part);
                part.write_to(&mut sink, &mut tally)?;
            }
            Ok((sink, tally))
        };
        let writer = std::thread::Builder::new()
            .name("writer".to_string())
            .spawn_scoped(scope, write)
            .map_err(|source| WriteError::Io { path: book_path.clone(), source })?;
        // The writer stops early only on an error, which joining it tells.
        let mut hand_over = move |reached: &[Located]| {
            let mut batch = recycled.try_recv().unwrap_or_default();
            batch.clear();
            batch.extend_from_slice(reached);
            to_writer.send(batch).map_err(|_| Interrupted)
        };
        let walked = walk_order(walkable, control.cancel, control.progress, &mut hand_over);
        drop(hand_over);
        let (sink, tally) = writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        let (order, _) = walked.map_err(|error| walk_error(&book_path, error))?;
        Ok((order, sink, tally))
    })
}

/// Writes the records the walk did not reach, in file order: a chunk of
/// ids at a time converted on every core, written in turn. Returns what
/// they counted.
fn write_unreached(
    book: &ResolvedBook,
    order: &WalkOrder,
    pair: Pair,
    sink: &mut BookOut,
    control: &Control<'_>,
) -> Result<Tally, ConvertError> {
    let records = book.counts().records as usize;
    if order.reached == records as u64 {
        return Ok(Tally::default());
    }
    let make = |k: usize, part: &mut Part| {
        let ids = k * CHUNK..((k + 1) * CHUNK).min(records);
        part.at.extend(book.file().records_in(ids).filter(|at| !order.is_reached(at.id)));
        convert_part(book, false, pair, part);
    };
    write_parts(records.div_ceil(CHUNK), make, sink, control)
}

/// Converts the records `part.at` into `part`; `reached`: the walk
/// reached them.
fn convert_part(book: &ResolvedBook, reached: bool, pair: Pair, part: &mut Part) {
    let Part { bytes, records, tally, at, targets } = part;
    for (i, &here) in at.iter().enumerate() {
        if let Some(&ahead) = at.get(i + LOOKAHEAD) {
            book.file().prefetch(ahead);
        }
        let written = match pair {
            Pair::EdaxToEdax => match book.file().edax_record(here) {
                Some(raw) => {
                    bytes.extend_from_slice(raw.bytes());
                    true
                }
                None => unreadable(tally),
            },
            Pair::EgaroucidToEgbk3 => match book.file().egaroucid_record(here) {
                Some(raw) => {
                    bytes.extend_from_slice(raw.bytes());
                    true
                }
                None => unreadable(tally),
            },
            Pair::EgaroucidToEdax => to_edax(book, here, !reached, Written { targets, bytes, tally }),
            Pair::EdaxToEgbk3 => to_egbk3(book, here, !reached, Written { targets, bytes, tally }),
        };
        *records += u64::from(written);
    }
}

/// Notes a record that no longer reads (the book changed since it was
/// loaded, which the writer then reports); nothing is written for it.
fn unreadable(tally: &mut Tally) -> bool {
    tally.unreadable = true;
    false
}

/// Where a record converted goes, and the room its conversion reuses.
struct Written<'p> {
    targets: &'p mut Vec<Destination>,
    bytes: &'p mut Vec<u8>,
    tally: &'p mut Tally,
}

/// An Egaroucid record made an Edax one (docs/formats.md, writing an Edax book), noting the passes on
/// its links if the walk did not reach it.
fn to_edax(book: &ResolvedBook, at: Located, unreached: bool, out: Written<'_>) -> bool {
    let Written { targets, bytes, tally } = out;
    let Some(stored) = book.file().egaroucid_record(at) else { return unreadable(tally) };
    targets.clear();
    let record = book.read(at, targets);
    if unreached {
        for (link, target) in record.links().zip(targets.iter()) {
            if let (true, Destination::Child(child, _)) = (link.then_pass, target) {
                if let Some(before) = record.board().after(link.mv) {
                    tally.passes.push(PassThrough { board: normalize(&before).board, child: *child });
                }
            }
        }
    }
    let converted = edax::from_egaroucid(&record, stored.leaf());
    tally.note_edax(converted.level, &record.board());
    converted.encode(bytes);
    true
}

/// What an .egbk3 record can hold of an Edax record (docs/formats.md, writing an .egbk3 book); false if
/// it is left out. Counts what is lost, and for a record the walk did not
/// reach, its links whose score is not minus their child's value.
fn to_egbk3(book: &ResolvedBook, at: Located, unreached: bool, out: Written<'_>) -> bool {
    let Written { targets, bytes, tally } = out;
    let Some(raw) = book.file().edax_record(at) else { return unreadable(tally) };
    match egbk3::from_edax(&raw) {
        Ok(record) => {
            bytes.extend_from_slice(&record);
            tally.bounds_lost += 1;
            tally.links_lost += raw.n_links() as u64;
            if unreached {
                tally.links_differing += stale_links_of(book, at, targets);
            }
            true
        }
        Err(egbk3::LeftOut::ValueOutOfRange) => {
            tally.left_out_value += 1;
            false
        }
        Err(egbk3::LeftOut::MustPass) => {
            tally.left_out_pass += 1;
            false
        }
    }
}

/// How many links of a record score other than minus their child's value.
fn stale_links_of(book: &ResolvedBook, at: Located, targets: &mut Vec<Destination>) -> u64 {
    targets.clear();
    let record = book.read(at, targets);
    let stale = record.links().zip(targets.iter()).filter(|(link, target)| match target {
        Destination::Child(child, _) => link.score.0 != -book.file().value_of(*child).0,
        _ => false,
    });
    stale.count() as u64
}

/// The pass records Edax needs (docs/formats.md, writing an Edax book): the walk's first, then those
/// met on the links of records it never reached, each board once, less
/// the boards the book stores itself.
fn passes_to_add(order: &WalkOrder, unreached: Vec<PassThrough>, stored: &HashSet<Board>) -> Vec<PassThrough> {
    let mut seen: HashSet<Board> = order.passes.iter().map(|p| p.board).collect();
    let later = unreached.into_iter().filter(|p| seen.insert(p.board));
    order.passes.iter().copied().chain(later).filter(|p| !stored.contains(&p.board)).collect()
}

/// Writes a pass record for each of `passes`, on every core.
fn write_passes(
    book: &ResolvedBook,
    passes: &[PassThrough],
    sink: &mut BookOut,
    control: &Control<'_>,
) -> Result<Tally, ConvertError> {
    let make = |k: usize, part: &mut Part| {
        for pass in &passes[k * CHUNK..((k + 1) * CHUNK).min(passes.len())] {
            part.targets.clear();
            let child = book.read(pass.child, &mut part.targets);
            let added = edax::pass_record(pass.board, &child);
            part.tally.note_edax(added.level, &pass.board);
            added.encode(&mut part.bytes);
            part.records += 1;
        }
    };
    write_parts(passes.len().div_ceil(CHUNK), make, sink, control)
}
