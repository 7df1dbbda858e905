//! `convert` (SPEC §10): any book bookminer reads, written as an Edax or an
//! Egaroucid book in walk order (§9), with a count of everything that was
//! added, left out or lost on the way.

use crate::board::Board;
use crate::book::index::Located;
use crate::book::{edax as edax_format, egaroucid, Book, BookError, Format, Header, ResolvedBook, Target};
use crate::mine::{Control, Phase};
use crate::order::{walk_order, Interrupted, PassThrough, WalkOrder};
use crate::symmetry::normalize;
use crate::walk::{Start, WalkError, Walkable};
use crate::write::{edax, egbk3, BookOut, WriteError};
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The formats bookminer writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutFormat {
    /// Edax's book.dat
    Edax,
    /// Egaroucid's .egbk3
    Egbk3,
}

impl OutFormat {
    /// The format a file name asks for: `.dat` Edax's, `.egbk3` Egaroucid's.
    pub fn of_path(path: &Path) -> Option<OutFormat> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "dat" => Some(OutFormat::Edax),
            "egbk3" => Some(OutFormat::Egbk3),
            _ => None,
        }
    }
}

impl fmt::Display for OutFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OutFormat::Edax => "Edax book.dat",
            OutFormat::Egbk3 => "Egaroucid .egbk3",
        })
    }
}

/// Why a book could not be converted (or cut).
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error(transparent)]
    Book(#[from] BookError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("{}: {error}", book.display())]
    Walk {
        book: PathBuf,
        #[source]
        error: WalkError<Interrupted>,
    },
    #[error("interrupted; nothing was written")]
    Interrupted,
    #[error(
        "{}: the book changed while it was being read (rewritten by another program?); nothing was written",
        book.display()
    )]
    BookChanged { book: PathBuf },
}

/// What a conversion did, for the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvertReport {
    pub from: Option<Format>,
    pub to: Option<OutFormat>,
    pub out: PathBuf,
    /// Records in the file read.
    pub read: u64,
    /// Records written, pass records included.
    pub written: u64,
    /// Records the walk from the initial position reached.
    pub reached: u64,
    /// Pass records added (Egaroucid to Edax, SPEC §9.1).
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
    pub elapsed: Duration,
}

impl fmt::Display for ConvertReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let from = self.from.map_or("book".to_string(), |f| format!("{f:?}"));
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
        if self.to == Some(OutFormat::Egbk3) && self.from == Some(Format::Edax) {
            writeln!(
                f,
                "                   {} with a value outside -64..64, {} whose side to move must pass",
                self.left_out_value, self.left_out_pass
            )?;
            writeln!(f, "lost               {} link scores ({} differ from minus the child's value), the bounds and win/draw/loss counts of {} records", self.links_lost, self.links_differing, self.bounds_lost)?;
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
pub fn convert(book: Book, to: OutFormat, out: &Path, control: Control<'_>) -> Result<ConvertReport, ConvertError> {
    let began = Instant::now();
    let header_len = match to {
        OutFormat::Edax => edax_format::HEADER_LEN,
        OutFormat::Egbk3 => egaroucid::HEADER_LEN,
    };
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
    let stored_passes = match (book.format(), to) {
        (Format::Egbk3 | Format::Egbk2 | Format::Egbk, OutFormat::Edax) => boards_that_must_pass(&book),
        _ => HashSet::new(),
    };
    (control.phase)(Phase::Resolving);
    let initial = normalize(&Board::INITIAL).board;
    // A book without the initial position (an empty one) has no walk:
    // every record is written in file order.
    let (resolved, order) = if book.locate(&initial).is_some() {
        let walkable = Walkable::new(book, &Start::initial()).expect("the initial position was found");
        (control.phase)(Phase::Walking);
        let (order, _) =
            walk_order(&walkable, control.cancel, control.progress).map_err(|error| walk_error(&book_path, error))?;
        (walkable.into_book(), order)
    } else {
        let resolved = book.resolve();
        let order = WalkOrder::new(resolved.counts().records);
        (resolved, order)
    };
    report.reached = order.reached.len() as u64;
    tracing::debug!("{}: resolved and walked in {:.3} s", book_path.display(), began.elapsed().as_secs_f64());
    (control.phase)(Phase::Writing);
    let writing = Instant::now();
    let in_order = records_in_walk_order(&resolved, &order);
    let finished = match (report.from, to) {
        (Some(Format::Edax), OutFormat::Edax) => {
            let Header::Edax(header) = &header else { unreachable!("an Edax book has an Edax header") };
            let mut sink = sink;
            for at in in_order {
                check_cancel(&control)?;
                sink.record(edax_record(&resolved, at).bytes())?;
            }
            let n = sink.records();
            report.written = n;
            sink.finish(&edax::header_from(header, n))?
        }
        (_, OutFormat::Edax) => {
            egaroucid_to_edax(&resolved, &order, in_order, &stored_passes, sink, &mut report, &control)?
        }
        (Some(Format::Edax), OutFormat::Egbk3) => {
            edax_to_egbk3(&resolved, &order, in_order, sink, &mut report, &control)?
        }
        (_, OutFormat::Egbk3) => {
            let mut sink = sink;
            for at in in_order {
                check_cancel(&control)?;
                sink.record(egaroucid_record(&resolved, at).bytes())?;
            }
            let n = sink.records();
            report.written = n;
            sink.finish(&egbk3::header(n))?
        }
    };
    tracing::debug!("{}: written and synced in {:.3} s", out.display(), writing.elapsed().as_secs_f64());
    if resolved.file().changed() {
        return Err(ConvertError::BookChanged { book: book_path });
    }
    finished.commit().map_err(|source| WriteError::Io { path: out.to_path_buf(), source })?;
    report.elapsed = began.elapsed();
    Ok(report)
}

/// Stops when Ctrl-C was pressed.
pub(crate) fn check_cancel(control: &Control<'_>) -> Result<(), ConvertError> {
    match control.cancel.load(Ordering::Relaxed) {
        true => Err(ConvertError::Interrupted),
        false => Ok(()),
    }
}

/// The records reached, in walk order, then every other record of the
/// book in file order.
fn records_in_walk_order<'a>(book: &'a ResolvedBook, order: &'a WalkOrder) -> impl Iterator<Item = Located> + 'a {
    let unreached = book.file().every_record().filter(|at| !order.is_reached(at.id));
    order.reached.iter().copied().chain(unreached)
}

/// An Edax record, read in place.
pub(crate) fn edax_record(book: &ResolvedBook, at: Located) -> edax_format::RawRecord<'_> {
    let file = book.file();
    edax_format::record_at(file.bytes(), file.offset(at) as usize).expect("records were checked at load")
}

/// An Egaroucid record, read in place.
pub(crate) fn egaroucid_record(book: &ResolvedBook, at: Located) -> egaroucid::RawRecord<'_> {
    egaroucid::record_at(book.file().bytes(), at.id).expect("records were checked at load")
}

/// Egaroucid to Edax (SPEC §9.1): each record made an Edax one, then the
/// pass records Edax needs.
fn egaroucid_to_edax(
    book: &ResolvedBook,
    order: &WalkOrder,
    in_order: impl Iterator<Item = Located>,
    stored_passes: &HashSet<Board>,
    mut sink: BookOut,
    report: &mut ConvertReport,
    control: &Control<'_>,
) -> Result<crate::output::FinishedFile, ConvertError> {
    let mut targets = Vec::new();
    let mut bytes = Vec::new();
    let (mut level, mut empties) = (1, 60);
    // The walk's passes first; then those of records it never reached.
    let mut passes: Vec<PassThrough> = order.passes.clone();
    let mut seen: HashSet<Board> = passes.iter().map(|p| p.board).collect();
    for at in in_order {
        check_cancel(control)?;
        targets.clear();
        let record = book.read(at, &mut targets);
        if !order.is_reached(at.id) {
            for (link, target) in record.links().zip(&targets) {
                if let (true, Target::Child(child, _)) = (link.then_pass, target) {
                    let before = record.board().after(link.mv).map(|c| normalize(&c).board);
                    if let Some(board) = before.filter(|b| seen.insert(*b)) {
                        passes.push(PassThrough { board, child: *child });
                    }
                }
            }
        }
        let stored_leaf = egaroucid_record(book, at).leaf();
        let converted = edax::from_egaroucid(&record, stored_leaf);
        level = level.max(i32::from(converted.level));
        empties = empties.min(record.board().empties() as i32);
        bytes.clear();
        converted.encode(&mut bytes);
        sink.record(&bytes)?;
    }
    for pass in passes.iter().filter(|p| !stored_passes.contains(&p.board)) {
        targets.clear();
        let child = book.read(pass.child, &mut targets);
        let added = edax::pass_record(pass.board, &child);
        level = level.max(i32::from(added.level));
        empties = empties.min(pass.board.empties() as i32);
        bytes.clear();
        added.encode(&mut bytes);
        sink.record(&bytes)?;
        report.passes_added += 1;
    }
    let n = sink.records();
    report.written = n;
    Ok(sink.finish(&edax::new_header(header_date(), level, empties, n))?)
}

/// Edax to Egaroucid (SPEC §9.2): what an .egbk3 record can hold of each
/// Edax record, counting what is left out and lost.
fn edax_to_egbk3(
    book: &ResolvedBook,
    order: &WalkOrder,
    in_order: impl Iterator<Item = Located>,
    mut sink: BookOut,
    report: &mut ConvertReport,
    control: &Control<'_>,
) -> Result<crate::output::FinishedFile, ConvertError> {
    // The walk compared every link of the records it reached with the
    // child's value as it arrived; only the others are read here.
    report.links_differing = order.stale_links;
    let mut targets = Vec::new();
    for at in in_order {
        check_cancel(control)?;
        let raw = edax_record(book, at);
        match egbk3::from_edax(&raw) {
            Ok(bytes) => {
                sink.record(&bytes)?;
                report.bounds_lost += 1;
                report.links_lost += raw.n_links() as u64;
                if !order.is_reached(at.id) {
                    report.links_differing += stale_links_of(book, at, &mut targets);
                }
            }
            Err(egbk3::LeftOut::ValueOutOfRange) => report.left_out_value += 1,
            Err(egbk3::LeftOut::MustPass) => report.left_out_pass += 1,
        }
    }
    let n = sink.records();
    report.written = n;
    Ok(sink.finish(&egbk3::header(n))?)
}

/// How many links of a record score other than minus their child's value.
fn stale_links_of(book: &ResolvedBook, at: Located, targets: &mut Vec<Target>) -> u64 {
    targets.clear();
    let record = book.read(at, targets);
    let stale = record.links().zip(targets.iter()).filter(|(link, target)| match target {
        Target::Child(child, _) => link.score.0 != -book.file().value_of(*child).0,
        _ => false,
    });
    stale.count() as u64
}

fn walk_error(book: &Path, error: WalkError<Interrupted>) -> ConvertError {
    match error {
        WalkError::Visitor(Interrupted) => ConvertError::Interrupted,
        error => ConvertError::Walk { book: book.to_path_buf(), error },
    }
}

/// The stored boards whose side to move must pass while the opponent can
/// move.
fn boards_that_must_pass(book: &Book) -> HashSet<Board> {
    let file = book.file();
    file.every_record().map(|at| file.board_of(at)).filter(|board| board.must_pass()).collect()
}
