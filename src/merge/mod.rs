//! `merge` (docs/merge.md): two books, of any formats bookminer reads, made
//! one, in the format OUT's name says.
//!
//! A book in another format than OUT's is first converted as `convert`
//! does ([`crate::convert`]). The merged book is then composed
//! ([`compose`]) in a file of the run's own: each board once, the record
//! the rule keeps ([`rule`]) with the links of both books; a leaf whose
//! move became a link (stale) is searched again through the engines' fleet
//! and the growth journal ([`crate::growth::growing::leaves`]), or left empty
//! without an engine. Last, the book composed
//! is negamaxed and written into OUT as `fix` does it, and the receipt
//! ([`receipt`]) says what was decided.

mod compose;
mod receipt;
mod rule;
mod scratch;

pub use compose::Tally;
pub use receipt::RECEIPT;

use crate::book::{Book, BookError, ReadOptions, RecordId};
use crate::convert::{convert, ConvertError, ConvertReport};
use crate::engine::ask::Asked;
use crate::engine::fleet::{EngineReport, EngineSet};
use crate::engine::journal::{TakenFrom, JOURNAL};
use crate::engine::summary::{fleet_size, write_set_aside, write_taken};
use crate::failure::ErrorKind;
use crate::files::input::{OverInput, Writer};
use crate::files::{ensure_dir, AtomicFile};
use crate::fix::{fix_into, FixError, FixOptions};
use crate::format::OutFormat;
use crate::growth::error::GrowthError;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::growth::growing::leaves::{answer_leaves, LeavesAnswered};
use crate::growth::paths::GrowthPaths;
use crate::run::{Cancel, Control, Interrupted, Left, Phase, RunError};
use crate::wording::count;
use crate::write::pipeline::SinkFailure;
use compose::{Composed, Composer, Pending, Unmerged};
use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Why `merge` failed.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    /// OUT or the receipt would be written over a book being read.
    OverInput(#[from] OverInput),
    /// The merged book and the receipt would be one file (by any path).
    #[error("{}: the merged book cannot also be the receipt ({}); name another file or out_dir", output.display(), receipt.display())]
    BookIsReceipt {
        /// OUT.
        output: PathBuf,
        /// The receipt.
        receipt: PathBuf,
    },
    /// A record of A or B stores a move illegal on its board, found as it
    /// is merged: named in its own book, before any search.
    #[error("{}: {place}: {problem} (`bookminer verify` lists every problem of the book); nothing was written", book.display())]
    Damaged {
        /// The book.
        book: PathBuf,
        /// The record.
        place: crate::book::FilePlace,
        /// What is wrong with it.
        problem: crate::book::Problem,
    },
    /// A and B hold more records together than a book can number.
    #[error("{} and {} hold {records} records together; a book holds at most {}", a.display(), b.display(), RecordId::MAX_RECORDS)]
    TooLarge {
        /// Book A.
        a: PathBuf,
        /// Book B.
        b: PathBuf,
        /// Their records together.
        records: u64,
    },
    /// A board whose links in both books are more than an Edax record holds.
    #[error("{} and {}: the board {} has more than 255 links in the two books together (`bookminer verify` lists the moves a book repeats); nothing was written", a.display(), b.display(), receipt::board_and_side(board))]
    TooManyLinks {
        /// Book A.
        a: PathBuf,
        /// Book B.
        b: PathBuf,
        /// The board.
        board: crate::board::Board,
    },
    /// The book composed before its negamax, in a folder of the run's own
    /// beside OUT, could not be written.
    #[error("{}: composing it in {}: {source}; nothing was written", output.display(), composed.display())]
    Composing {
        /// OUT.
        output: PathBuf,
        /// The file composed.
        composed: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The book composed could not be read back: bookminer's own fault.
    #[error("the merged book could not be read back: {0}; nothing was written; please report this")]
    Composed(#[source] Box<BookError>),
    #[error(transparent)]
    /// The walk, the files or a stop failed the run.
    Run(#[from] RunError),
    #[error(transparent)]
    /// A or B could not be converted into OUT's format.
    Convert(#[from] ConvertError),
    #[error(transparent)]
    /// The merged book could not be negamaxed into OUT.
    Fix(#[from] FixError),
    /// The engines, or the journal.
    #[error(transparent)]
    Extend(#[from] GrowthError),
}

impl MergeError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            MergeError::OverInput(_)
            | MergeError::Damaged { .. }
            | MergeError::TooManyLinks { .. }
            | MergeError::BookIsReceipt { .. }
            | MergeError::TooLarge { .. } => ErrorKind::BadInput,
            MergeError::Composed(_) => ErrorKind::Internal,
            MergeError::Composing { source, .. } => crate::failure::io_kind(source),
            MergeError::Run(e) => e.kind(),
            MergeError::Convert(e) => e.kind(),
            MergeError::Fix(e) => e.kind(),
            MergeError::Extend(e) => e.kind(),
        }
    }

    /// The run was stopped (Ctrl-C): nothing was written.
    pub fn interrupted() -> MergeError {
        MergeError::Run(RunError::interrupted(Left::Nothing)(Interrupted))
    }
}

/// Where `merge` reads and writes, checked before anything is read.
#[derive(Clone, Debug)]
pub struct MergePaths {
    /// Book A.
    pub a: PathBuf,
    /// Book B.
    pub b: PathBuf,
    /// The book written (OUT).
    pub output: PathBuf,
    /// The receipt, merge.jsonl.
    pub receipt: PathBuf,
    /// The journal and the engines' folder, when an engine searches.
    pub engines: Option<GrowthPaths>,
}

impl MergePaths {
    /// Refuses an OUT, receipt or journal that is A or B by any path, and
    /// outputs that are one file; with engines, a journal another run holds.
    pub fn new(a: &Path, b: &Path, output: &Path, out_dir: &Path, engines: bool) -> Result<MergePaths, MergeError> {
        let receipt = out_dir.join(RECEIPT);
        let journal = out_dir.join(JOURNAL);
        let written: Vec<&Path> = if engines { vec![output, &receipt, &journal] } else { vec![output, &receipt] };
        for input in [a, b] {
            if let Some(over) = OverInput::find(input, &written, Writer::Merge).map_err(RunError::io(input))? {
                return Err(over.into());
            }
        }
        if crate::files::input::same_destination(output, &receipt) {
            return Err(MergeError::BookIsReceipt { output: output.to_path_buf(), receipt });
        }
        let engines = match engines {
            true => Some(GrowthPaths::new(a, output, out_dir)?),
            false => None,
        };
        Ok(MergePaths { a: a.to_path_buf(), b: b.to_path_buf(), output: output.to_path_buf(), receipt, engines })
    }
}

/// What `merge` is asked to do.
#[derive(Clone, Copy, Debug)]
pub struct MergeOptions {
    /// OUT's format.
    pub to: OutFormat,
    /// Link every legal move whose child the merged book holds, as Edax's
    /// `book link` does (an Edax book).
    pub link: bool,
}

/// What a run did, for the summary.
#[derive(Clone, Debug, Default)]
pub struct MergeReport {
    /// Book A.
    pub a: PathBuf,
    /// Book B.
    pub b: PathBuf,
    /// The book written (OUT).
    pub output: PathBuf,
    /// The receipt.
    pub receipt: PathBuf,
    /// OUT's format, once settled.
    pub to: Option<OutFormat>,
    /// A and B as `convert` made them into OUT's format, if it had to.
    pub converted: [Option<ConvertReport>; 2],
    /// Positions A and B hold.
    pub positions: [u64; 2],
    /// What composing counted.
    pub tally: Tally,
    /// What searching the stale leaves cost: searches by the engines,
    /// answers the journal held, the engines' time.
    pub asked: Asked,
    /// Each engine: its searches, faults, and whether it was retired.
    pub engines: Vec<EngineReport>,
    /// The answers taken from the journal, by the engine that gave them.
    pub taken_from: Vec<TakenFrom>,
    /// Where the journal of earlier runs was set aside (`--fresh`).
    pub journal_set_aside: Option<PathBuf>,
    /// Records written into OUT.
    pub records_written: u64,
    /// How long the run took.
    pub elapsed: Duration,
}

/// Merges `a` and `b` into `paths.output`; stale leaves are searched by
/// the fleet `engines` makes (given a folder of the run's own), or left
/// empty when it is `None`. OUT and the receipt appear only when whole.
pub fn merge(
    a: Book,
    b: Book,
    paths: &MergePaths,
    options: &MergeOptions,
    engines: Option<impl FnOnce(&Path) -> Vec<EngineSet>>,
    mut control: Control<'_>,
) -> Result<MergeReport, MergeError> {
    let began = Instant::now();
    let to = options.to;
    let mut report = MergeReport {
        a: paths.a.clone(),
        b: paths.b.clone(),
        output: paths.output.clone(),
        receipt: paths.receipt.clone(),
        to: Some(to),
        positions: [a.counts().positions, b.counts().positions],
        ..MergeReport::default()
    };
    let folder = crate::files::folder_of(&paths.output);
    ensure_dir(folder).map_err(RunError::io(folder))?;
    let scratch = scratch::Scratch::make(folder).map_err(RunError::io(folder))?;
    let (a, converted_a) = in_format(a, to, &scratch.path().join("a"), &mut control)?;
    let (b, converted_b) = in_format(b, to, &scratch.path().join("b"), &mut control)?;
    report.converted = [converted_a, converted_b];
    let records = a.counts().positions + b.counts().positions;
    if records > RecordId::MAX_RECORDS {
        return Err(MergeError::TooLarge { a: paths.a.clone(), b: paths.b.clone(), records });
    }
    let composer = Composer { a: &a, b: &b, to, link: options.link, engines: engines.is_some() };
    let composed_path = scratch.path().join("merged").with_extension(to.extension());
    let Composed { tally, mut entries, pending } = compose_into(&composer, &composed_path, paths, control.cancel)?;
    report.tally = tally;
    drop((a, b));
    if let (false, Some(engines), Some(engine_paths)) = (pending.is_empty(), engines, &paths.engines) {
        let answered =
            search_stale((&composed_path, to), &pending, &mut entries, (engine_paths, engines), &mut control)?;
        (report.asked, report.engines) = (answered.asked, answered.engines);
        (report.taken_from, report.journal_set_aside) = (answered.taken_from, answered.journal_set_aside);
    }
    let merged = Book::open_as(
        &composed_path,
        &format!("{} (merged, before its negamax)", paths.output.display()),
        &ReadOptions::default(),
    )
    .map_err(|e| MergeError::Composed(Box::new(e)))?;
    report.records_written = merged.counts().records;
    write_out(merged, &entries, paths, control)?;
    drop(scratch);
    report.elapsed = began.elapsed();
    Ok(report)
}

/// The book in OUT's format: as it is, or converted (by `convert`, in
/// walk order) into `path`, its report kept.
fn in_format(
    book: Book,
    to: OutFormat,
    path: &Path,
    control: &mut Control<'_>,
) -> Result<(Book, Option<ConvertReport>), MergeError> {
    if book.format().kept_as() == to {
        return Ok((book, None));
    }
    let name = book.path().display().to_string();
    let path = path.with_extension(to.extension());
    let report = convert(book, to, &path, control.reborrow())?;
    tracing::info!("{name}: converted to {to} ({} records)", report.written);
    let shown_as = format!("{name} (converted to {to})");
    let converted =
        Book::open_as(&path, &shown_as, &ReadOptions::default()).map_err(|e| MergeError::Composed(Box::new(e)))?;
    Ok((converted, Some(report)))
}

/// Composes the merged book into `path`, its header last, once the
/// records are counted.
fn compose_into(
    composer: &Composer<'_>,
    path: &Path,
    paths: &MergePaths,
    cancel: Cancel<'_>,
) -> Result<Composed, MergeError> {
    let began = Instant::now();
    let io = |path: &Path| composing(&paths.output, path);
    let header_len = composer.to.header_len();
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).map_err(io(path))?);
    out.write_all(&vec![0; header_len]).map_err(io(path))?;
    let composed = composer.compose(&mut out, header_len as u64, cancel).map_err(|failure| match failure {
        SinkFailure::Io(source) => io(path)(source),
        SinkFailure::Interrupted(_) => MergeError::interrupted(),
        SinkFailure::Own(Unmerged::Changed(kept)) => changed(paths, kept),
        SinkFailure::Own(Unmerged::TooManyLinks(board)) => {
            MergeError::TooManyLinks { a: paths.a.clone(), b: paths.b.clone(), board }
        }
        SinkFailure::Own(Unmerged::Damaged { book, place, problem }) => {
            let book = match book {
                rule::Kept::A => composer.a.path(),
                rule::Kept::B => composer.b.path(),
            };
            MergeError::Damaged { book: book.to_path_buf(), place, problem }
        }
    })?;
    // A's header (an Edax one but for the count), as a book kept in its format.
    let header = composer.a.header().kept(composed.tally.records);
    let mut file = out.into_inner().map_err(|e| io(path)(e.into_error()))?;
    file.seek(SeekFrom::Start(0)).and_then(|_| file.write_all(&header)).map_err(io(path))?;
    for (book, kept) in [(composer.a, rule::Kept::A), (composer.b, rule::Kept::B)] {
        if book.file().changed() {
            return Err(changed(paths, kept));
        }
    }
    tracing::info!("merged book composed in {:.3} s", began.elapsed().as_secs_f64());
    Ok(composed)
}

/// The failure to write the book composed for `output` into `composed`.
fn composing(output: &Path, composed: &Path) -> impl FnOnce(io::Error) -> MergeError {
    let (output, composed) = (output.to_path_buf(), composed.to_path_buf());
    move |source| MergeError::Composing { output, composed, source }
}

fn changed(paths: &MergePaths, kept: rule::Kept) -> MergeError {
    let book = match kept {
        rule::Kept::A => paths.a.clone(),
        rule::Kept::B => paths.b.clone(),
    };
    MergeError::Run(RunError::BookChanged { book, left: Left::Nothing })
}

/// Searches the stale leaves left pending and writes each answer into the
/// book composed (and its receipt entry).
fn search_stale(
    (composed, to): (&Path, OutFormat),
    pending: &[Pending],
    entries: &mut [compose::Entry],
    (paths, engines): (&GrowthPaths, impl FnOnce(&Path) -> Vec<EngineSet>),
    control: &mut Control<'_>,
) -> Result<LeavesAnswered, MergeError> {
    let plans: Vec<LeafPlan> = pending.iter().map(|p| p.plan).collect();
    let searches = plans.len();
    control.phase(Phase::StaleLeaves { searches });
    tracing::info!("{} to search", count(searches, "stale leaf", "stale leaves"));
    let cancel = control.cancel;
    let mut done = |done: usize, busy: f64| {
        control.counted(done as u64);
        control.engines_busy(busy);
    };
    let answered = answer_leaves(&plans, paths, engines, &mut done, cancel)?;
    let io = |path: &Path| composing(&paths.output, path);
    let mut file = std::fs::OpenOptions::new().write(true).open(composed).map_err(io(composed))?;
    for (p, answer) in pending.iter().zip(&answered.answers) {
        let leaf = p.plan.leaf(*answer);
        let (score, code) = to.leaf_pair(leaf);
        file.seek(SeekFrom::Start(p.leaf_at))
            .and_then(|_| file.write_all(&[score as u8, code]))
            .map_err(io(composed))?;
        if let Some(stale) = &mut entries[p.entry].stale {
            stale.now = Some(leaf);
        }
    }
    file.sync_all().map_err(io(composed))?;
    Ok(answered)
}

/// Negamaxes the book composed into OUT as `fix` does, writes the receipt,
/// and makes both appear unless the run was stopped.
fn write_out(
    merged: Book,
    entries: &[compose::Entry],
    paths: &MergePaths,
    control: Control<'_>,
) -> Result<(), MergeError> {
    let io = RunError::io;
    let cancel = control.cancel;
    for path in [&paths.output, &paths.receipt] {
        if let Some(dir) = path.parent() {
            ensure_dir(dir).map_err(io(dir))?;
        }
    }
    let mut out = AtomicFile::create_named(&paths.output).map_err(io(&paths.output))?;
    let mut receipt = AtomicFile::create(&paths.receipt).map_err(io(&paths.receipt))?;
    let sink = Path::new("(no receipt)");
    let fixed = fix_into(merged, &FixOptions::default(), (&mut out, &paths.output), (&mut io::sink(), sink), control)?;
    fixed.checked()?;
    for entry in entries {
        receipt.write_all(receipt::line(entry).as_bytes()).map_err(io(&paths.receipt))?;
    }
    let out = out.finish().map_err(io(&paths.output))?;
    let receipt = receipt.finish().map_err(io(&paths.receipt))?;
    cancel.check().map_err(|_| MergeError::interrupted())?;
    out.commit().map_err(io(&paths.output))?;
    receipt.commit().map_err(io(&paths.receipt))?;
    Ok(())
}

impl fmt::Display for MergeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.tally;
        for (name, path, positions, converted) in [
            ("A", &self.a, self.positions[0], &self.converted[0]),
            ("B", &self.b, self.positions[1], &self.converted[1]),
        ] {
            writeln!(f, "book {name}               {} ({positions} positions)", path.display())?;
            if let Some(c) = converted {
                let left_out = c.not_in_book + c.left_out_value + c.left_out_pass;
                writeln!(
                    f,
                    "  converted          {} records written, {} added (pass records), {} left out, {} link scores lost",
                    c.written, c.passes_added, left_out, c.links_lost
                )?;
            }
        }
        writeln!(f, "boards of A alone    {}", t.only_a)?;
        writeln!(f, "boards of B alone    {}", t.only_b)?;
        writeln!(f, "boards alike in both {}", t.same)?;
        writeln!(
            f,
            "conflicts            {} ({} by level, {} by a stale leaf, {} to A as neither was better); kept {} of A, {} of B",
            t.conflicts(),
            t.by_level,
            t.by_leaf,
            t.first,
            t.kept_a,
            t.kept_b
        )?;
        writeln!(f, "links joined         {} from the other book, {} added by --link", t.links_joined, t.links_added)?;
        writeln!(
            f,
            "stale leaves         {} ({} searched, {} taken from the journal, {} known without a search, {} left empty)",
            t.stale, self.asked.searched, self.asked.from_journal, t.stale_known, t.stale_emptied
        )?;
        write_taken(f, &self.taken_from)?;
        write_set_aside(f, self.journal_set_aside.as_deref())?;
        if !self.engines.is_empty() {
            let fleet = fleet_size(&self.engines);
            writeln!(f, "engine time          {:.3} s ({fleet})", self.asked.engine_time.as_secs_f64())?;
        }
        writeln!(f, "receipt              {}", self.receipt.display())?;
        writeln!(f, "book written         {} ({} records)", self.output.display(), self.records_written)?;
        write!(f, "elapsed              {:.3} s", self.elapsed.as_secs_f64())
    }
}
