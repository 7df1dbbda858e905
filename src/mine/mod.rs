//! Mining: one walk, the chosen modes' rules at every arrival, and each
//! record handed to a [`Findings`] as it is made ([`mine_into`]); [`mine`]
//! hands them to each mode's files, in every format asked for, committed only
//! when the whole walk succeeds.

mod arrivals;
pub mod judging;

use crate::book::{Book, ResolvedBook};
use crate::choice::Choice;
use crate::failure::ErrorKind;
use crate::files::input::{first_on_one_file, OverInput, Writer};
use crate::files::{ensure_dir, folder_of};
use crate::mine::arrivals::Packer;
use crate::mine::judging::{Findings, Judge, WriteFailure};
use crate::output::manifest::{FolderLock, Manifest, ManifestError, Replaced, MANIFEST};
use crate::output::{output_path, FileReport, FileSettings, LineFiles, LineStyle, Place, RecordFormat, RecordFormats};
use crate::rules::mismatch::{Mismatch, Recorder};
use crate::rules::modes::{Mode, Rules};
use crate::run::{Control, Left, Phase, RunError};
use crate::walk::{walk, Arrival, Start, Visitor, WalkStats, Walkable};
use crate::window::Window;
use crate::wording::count;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to mine and how to write it.
#[derive(Clone, Debug)]
pub struct MineOptions {
    /// The modes mined, each with its files.
    pub modes: Vec<Mode>,
    /// Settings shared by the rules.
    pub rules: Rules,
    /// How lines are rendered (orientation, pass token).
    pub style: LineStyle,
    /// The files written for each mode.
    pub formats: RecordFormats,
    /// Kifu files start with a byte-order mark.
    pub bom: bool,
    /// A line already in a kifu file is not written again.
    pub unique_lines: bool,
    /// The folder the files are written in.
    pub out_dir: PathBuf,
    /// The one file of a run of one mode and one format, instead of
    /// `out_dir/mode{N}.{ext}` (`-o`): none for the files in `out_dir`.
    pub output: Option<OneOutput>,
    /// Which moves the walk follows (docs/walk.md, windows).
    pub window: Window,
}

/// Where a run of one mode and one format writes its lines instead of
/// `out_dir`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OneOutput {
    /// This file, put in place when the run succeeds.
    File(PathBuf),
    /// Standard output, as the lines come.
    Stdout,
}

/// How a report and `-o` name standard output.
pub use crate::output::STDOUT;

impl OneOutput {
    /// `-` is standard output, any other name a file.
    pub fn named(name: &Path) -> OneOutput {
        match name.as_os_str() == STDOUT {
            true => OneOutput::Stdout,
            false => OneOutput::File(name.to_path_buf()),
        }
    }

    /// The output, as messages name it.
    pub fn name(&self) -> &Path {
        match self {
            OneOutput::File(path) => path,
            OneOutput::Stdout => Path::new("standard output"),
        }
    }
}

impl MineOptions {
    /// What the walk looks for.
    pub fn sought(&self) -> Sought<'_> {
        Sought { modes: &self.modes, rules: self.rules, window: self.window }
    }

    /// Where a mode's kifu go: `out_dir/mode{N}.txt`.
    pub fn output_path(&self, mode: Mode) -> PathBuf {
        output_path(&self.out_dir, mode, RecordFormat::Kifu)
    }

    /// The files a run puts in place: each mode's file in each format asked
    /// for (a kifu file kept only to drop repeats is never put in place) and
    /// the manifest listing them, or the one file `-o` names (none for
    /// standard output).
    pub fn outputs(&self) -> Vec<PathBuf> {
        match &self.output {
            Some(OneOutput::File(path)) => return vec![path.clone()],
            Some(OneOutput::Stdout) => return Vec::new(),
            None => {}
        }
        let file = |mode| self.formats.iter().map(move |format| output_path(&self.out_dir, mode, format));
        let mut outputs: Vec<PathBuf> = self.modes.iter().flat_map(|&mode| file(mode)).collect();
        if !outputs.is_empty() {
            outputs.push(self.out_dir.join(MANIFEST));
        }
        outputs
    }

    /// Refuses `-o` for a run that writes more than one file: several
    /// modes, or several formats.
    pub fn check_one_output(&self) -> Result<(), MineError> {
        let Some(output) = &self.output else { return Ok(()) };
        let formats = self.formats.iter().count();
        if self.modes.len() == 1 && formats == 1 {
            return Ok(());
        }
        Err(MineError::NotOneFile { output: output.name().to_path_buf(), modes: self.modes.len(), formats })
    }

    /// Refuses, before anything is made, an output that is the book by some
    /// path or another output (a link in the output folder): compared where
    /// each really lands ([`crate::files::input::Landing`]), so that a run never
    /// writes over its book, nor says it wrote two files when one was lost.
    /// A book that cannot be asked about is left to loading, which says why.
    pub fn check_outputs(&self, book: &Path) -> Result<(), MineError> {
        self.check_one_output()?;
        let outputs = self.outputs();
        let outputs: Vec<&Path> = outputs.iter().map(PathBuf::as_path).collect();
        if let Ok(Some(over)) = OverInput::find(book, &outputs, Writer::Mine) {
            return Err(RunError::from(over).into());
        }
        match first_on_one_file(&outputs) {
            Some((first, second)) => {
                Err(RunError::OneFile { first: first.to_path_buf(), second: second.to_path_buf() }.into())
            }
            None => Ok(()),
        }
    }

    /// The settings that decide what the files hold, as the manifest
    /// records them.
    fn settings(&self, start: &Start) -> serde_json::Map<String, serde_json::Value> {
        serde_json::json!({
            "modes": self.modes.iter().map(|m| m.number()).collect::<Vec<_>>(),
            "formats": self.formats.iter().map(|f| f.name()).collect::<Vec<_>>(),
            "min_gap": self.rules.min_gap,
            "mode1_linkless": self.rules.linkless.name(),
            "orientation": self.style.orientation.name(),
            "pass_token": self.style.pass_token,
            "bom": self.bom,
            "unique_lines": self.unique_lines,
            "start": start.line.iter().map(|m| m.to_string()).collect::<String>(),
            "window": {
                "deviation": self.window.deviation,
                "error": self.window.error,
                "max_ply": self.window.max_ply,
            },
        })
        .as_object()
        .cloned()
        .unwrap_or_default()
    }

    fn file_settings(&self) -> FileSettings {
        FileSettings {
            style: self.style.clone(),
            formats: self.formats,
            bom: self.bom,
            unique_lines: self.unique_lines,
        }
    }
}

/// What a walk looks for: the modes, their rules, and which moves it follows.
#[derive(Clone, Copy, Debug)]
pub struct Sought<'a> {
    /// The modes.
    pub modes: &'a [Mode],
    /// Their rules' settings.
    pub rules: Rules,
    /// Which moves the walk follows (docs/walk.md, windows).
    pub window: Window,
}

/// What [`mine_into`] found, before any file is finished.
pub struct Mined<F> {
    /// Positions the book holds.
    pub positions_loaded: u64,
    /// What the walk counted.
    pub walk: WalkStats,
    /// Where every record went.
    pub findings: F,
    /// Per mode: arrivals where the rule fired above and below.
    pub fired: Vec<(u64, u64)>,
    /// The walk alone, judging included.
    pub walk_time: Duration,
}

/// Why mining failed: as every walking command can, or `-o` named one
/// file for a run that writes several.
#[derive(Debug, thiserror::Error)]
pub enum MineError {
    /// `-o` names one file, and the run would write more than one.
    #[error(
        "{}: -o and --stdout take the lines of one mode in one format, and this run asks for {} and {}: give one --mode (1-4) and one --format, or leave out -o",
        output.display(),
        count(*modes as u64, "mode", "modes"),
        count(*formats as u64, "format", "formats")
    )]
    NotOneFile {
        /// The file `-o` names.
        output: PathBuf,
        /// The modes asked for.
        modes: usize,
        /// The formats asked for.
        formats: usize,
    },
    #[error(transparent)]
    /// The walk, the files or a stop failed the run.
    Run(#[from] RunError),
}

impl MineError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            MineError::NotOneFile { .. } => ErrorKind::BadInput,
            MineError::Run(e) => e.kind(),
        }
    }
}

/// What a failed run leaves: the files of an earlier run, as they were.
const LEFT: Left = Left::Outputs;

/// One mode's results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeReport {
    /// The mode.
    pub mode: Mode,
    /// Arrivals where observed > expected.
    pub above: u64,
    /// Arrivals where observed < expected.
    pub below: u64,
    /// Lines written to each of the mode's files.
    pub lines_written: u64,
    /// Lines not written because a kifu file held them already.
    pub duplicates_dropped: u64,
    /// The files written, one per format.
    pub files: Vec<FileReport>,
}

/// What a run did, for the summary.
#[derive(Clone, Debug)]
pub struct MineReport {
    /// Positions the book holds.
    pub positions_loaded: u64,
    /// What the walk counted.
    pub walk: WalkStats,
    /// Each mode's results, in the order asked.
    pub modes: Vec<ModeReport>,
    /// The walk alone, judging and writing included.
    pub walk_time: Duration,
    /// The walk and the files written out.
    pub elapsed: Duration,
    /// The files of the previous run in `out_dir` this one removed, or
    /// kept and why (docs/modes.md, one run, one set of files).
    pub replaced: Replaced,
}

impl fmt::Display for MineReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions loaded   {}", self.positions_loaded)?;
        writeln!(f, "positions walked   {}", self.walk.positions)?;
        let rate = self.walk.edges as f64 / self.walk_time.as_secs_f64().max(1e-9);
        writeln!(
            f,
            "edges followed     {} in {:.3} s ({:.2}M edges/s)",
            self.walk.edges,
            self.walk_time.as_secs_f64(),
            rate / 1e6
        )?;
        writeln!(f, "arrivals           {}", self.walk.arrivals)?;
        for m in &self.modes {
            let (observed, expected) = m.mode.letters();
            write!(f, "{}: {} with {observed} > {expected}", m.mode, m.above)?;
            if m.mode != Mode::LeafVsLinks {
                // mode 1 has no "less" branch
                write!(f, ", {} with {observed} < {expected}", m.below)?;
            }
            for (i, file) in m.files.iter().enumerate() {
                let lead = if i == 0 { "; " } else { ", " };
                write!(f, "{lead}{} written to ", count(file.lines, "line", "lines"))?;
                match file.path.as_os_str() == STDOUT {
                    true => write!(f, "standard output")?,
                    false => write!(f, "{}", file.path.display())?,
                }
            }
            if m.duplicates_dropped > 0 {
                write!(f, " ({} dropped)", count(m.duplicates_dropped, "repeated line", "repeated lines"))?;
            }
            writeln!(f)?;
        }
        write_replaced(f, &self.replaced)?;
        write!(f, "elapsed            {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// The summary's lines on the previous run's files: those removed, in one
/// line, then each kept with why.
fn write_replaced(f: &mut fmt::Formatter<'_>, replaced: &Replaced) -> fmt::Result {
    if !replaced.removed.is_empty() {
        let names: Vec<String> = replaced.removed.iter().map(|p| p.display().to_string()).collect();
        let files = if names.len() == 1 { "file" } else { "files" };
        writeln!(f, "removed            {} (the previous run's {files}, not written by this one)", names.join(", "))?;
    }
    for (path, why) in &replaced.kept {
        writeln!(f, "kept               {} (the previous run's file: {why})", path.display())?;
    }
    Ok(())
}

/// Arrivals copied before they are handed to the judge: enough to make the
/// hand-over rare, few enough that a batch stays in the second core's cache.
const BATCH_ARRIVALS: usize = 4096;

/// The walk's visitor: copies each arrival where a chosen mode's rule
/// fires into a batch for the judging thread, which judges it under every
/// chosen mode and writes the records.
struct Miner<'c, F> {
    /// Tells the arrivals where a chosen mode fires: only those are copied.
    sieve: Recorder,
    packer: Packer,
    /// Taken out when the judge fails, to learn why.
    judge: Option<Judge<F>>,
    control: Control<'c>,
}

impl<F: Findings> Visitor for Miner<'_, F> {
    type Error = RunError;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), RunError> {
        // Most arrivals fire no rule (three in four on a 10M-position
        // book): the judge need not see them.
        if !self.sieve.fires(arrival) {
            self.packer.skip(arrival);
            return Ok(());
        }
        self.packer.push(arrival);
        if self.packer.len() >= BATCH_ARRIVALS {
            self.hand_over()?;
        }
        Ok(())
    }

    fn progress(&mut self, stats: &WalkStats) -> Result<(), RunError> {
        self.control.walked(stats).map_err(RunError::interrupted(LEFT))
    }
}

impl<F: Findings> Miner<'_, F> {
    /// Hands the arrivals copied so far to the judge.
    fn hand_over(&mut self) -> Result<(), RunError> {
        let judge = self.judge.as_mut().expect("the judge is taken out only when the walk stops");
        let batch = self.packer.take(judge.empty_batch());
        judge.send(batch).map_err(|_| self.judge_failure())
    }

    /// Why the judging thread stopped, waiting for it to say: a file it
    /// could not write. It stops early for no other reason (a panic there
    /// is resumed here), so any other answer is bookminer's own fault.
    fn judge_failure(&mut self) -> RunError {
        match self.judge.take().map(Judge::finish) {
            Some(Err(failure)) => write_failed(failure),
            Some(Ok(_)) | None => {
                RunError::Internal { what: "the judging thread stopped before the walk ended", left: LEFT }
            }
        }
    }
}

/// A file that could not be written, as the run's failure.
fn write_failed((path, source): WriteFailure) -> RunError {
    RunError::Io { path, source }
}

/// Each mode's files, fed records in the walk's order.
impl Findings for Vec<LineFiles> {
    fn take(&mut self, index: usize, record: &Mismatch<'_>) -> Result<(), WriteFailure> {
        self[index].write(record)
    }
}

/// Walks the book from `start` and writes one kifu file per mode. Nothing
/// under the final names changes unless the whole walk succeeds. The book
/// is resolved for the walk (see [`Book::resolve`]), which drops its index.
pub fn mine(book: Book, start: &Start, options: &MineOptions, control: Control<'_>) -> Result<MineReport, MineError> {
    let began = Instant::now();
    options.check_outputs(book.path())?;
    let folder = match &options.output {
        None => Some(options.out_dir.as_path()),
        Some(OneOutput::File(path)) => Some(folder_of(path)),
        Some(OneOutput::Stdout) => None,
    };
    if let Some(folder) = folder {
        ensure_dir(folder).map_err(RunError::io(folder))?;
    }
    let settings = options.file_settings();
    let mut files = Vec::with_capacity(options.modes.len());
    for &mode in &options.modes {
        let place = match &options.output {
            None => Place::Folder(options.out_dir.clone()),
            Some(OneOutput::File(path)) => Place::File(path.clone()),
            Some(OneOutput::Stdout) => Place::Stream {
                to: Box::new(std::io::BufWriter::with_capacity(1 << 16, std::io::stdout())),
                scratch: std::env::temp_dir(),
            },
        };
        files.push(LineFiles::create(place, mode, &settings).map_err(write_failed)?);
    }
    let book_path = book.path().to_path_buf();
    let (mined, book) = mine_walked(book, start, options.sought(), files, control)?;
    // Write every file out before renaming any, so a failure (a full disk)
    // leaves all previous outputs as they were, not some of them.
    let mut modes = Vec::new();
    let mut finished = Vec::new();
    for ((mode_files, &(above, below)), &mode) in mined.findings.into_iter().zip(&mined.fired).zip(&options.modes) {
        let written = mode_files.finish().map_err(write_failed)?;
        finished.extend(written.files);
        modes.push(ModeReport {
            mode,
            above,
            below,
            lines_written: written.lines_written,
            duplicates_dropped: written.duplicates_dropped,
            files: written.reports,
        });
    }
    // Last look before any output replaces its previous version.
    if book.file().changed() {
        return Err(RunError::BookChanged { book: book_path, left: LEFT }.into());
    }
    // The set of out_dir is replaced under its lock, files, manifest and
    // removals together: another run into it waits (docs/modes.md).
    let _folder = match options.output {
        None => Some(FolderLock::take(&options.out_dir).map_err(RunError::io(&options.out_dir))?),
        Some(_) => None,
    };
    for file in finished {
        let path = file.path().to_path_buf();
        file.commit().map_err(RunError::io(&path))?;
    }
    let replaced = match options.output {
        None => replace_set(options, start, &book_path, &modes)?,
        Some(_) => Replaced::default(),
    };
    Ok(MineReport {
        positions_loaded: mined.positions_loaded,
        walk: mined.walk,
        modes,
        walk_time: mined.walk_time,
        elapsed: began.elapsed(),
        replaced,
    })
}

/// Records the files just committed in `out_dir`'s manifest, then removes
/// the previous run's files this run did not write (see
/// [`crate::output::manifest`]), and says which. Runs only once every
/// output is in place: a run that failed before removes nothing and leaves
/// the old manifest.
fn replace_set(options: &MineOptions, start: &Start, book: &Path, modes: &[ModeReport]) -> Result<Replaced, RunError> {
    let files = modes.iter().flat_map(|m| &m.files).map(|f| (f.path.as_path(), f.lines));
    Manifest::make_set(&options.out_dir, "mine", &[book], options.settings(start), files)
        .map_err(|e: ManifestError| RunError::Io { path: e.path, source: e.source })
}

/// Walks the book from `start` and hands every record the sought modes make
/// to `findings`, in the walk's order, on a second thread. The book is
/// resolved for the walk (see [`Book::resolve`]), which drops its index.
pub fn mine_into<F: Findings>(
    book: Book,
    start: &Start,
    sought: Sought<'_>,
    findings: F,
    control: Control<'_>,
) -> Result<Mined<F>, RunError> {
    mine_walked(book, start, sought, findings, control).map(|(mined, _)| mined)
}

/// [`mine_into`], and the book walked, for a last look at its file.
fn mine_walked<F: Findings>(
    book: Book,
    start: &Start,
    sought: Sought<'_>,
    findings: F,
    control: Control<'_>,
) -> Result<(Mined<F>, ResolvedBook), RunError> {
    let judge = Judge::spawn(sought.modes, sought.rules, findings)
        .map_err(|source| RunError::Io { path: PathBuf::from("<judging thread>"), source })?;
    let sieve = Recorder::new(sought.modes, sought.rules);
    let miner = Miner { sieve, packer: Packer::default(), judge: Some(judge), control };
    let book_path = book.path().to_path_buf();
    let positions_loaded = book.counts().positions;
    let resolving = Instant::now();
    (miner.control.phase)(Phase::Resolving);
    let walkable = Walkable::new(book, start).map_err(RunError::start_missing(&book_path))?.within(sought.window);
    (miner.control.phase)(Phase::Walking);
    let book = walkable.book();
    book.log_resolved(&book_path, resolving);
    let walk_began = Instant::now();
    let walked = walk(&walkable, miner);
    // Whatever the walk read from a book that changed under it means nothing.
    if book.file().changed() {
        return Err(RunError::BookChanged { book: book_path, left: LEFT });
    }
    let (stats, mut miner) = walked.map_err(|error| RunError::of_walk(&book_path, error, |stop| stop))?;
    let walk_time = walk_began.elapsed();
    miner.control.cancel.check().map_err(RunError::interrupted(LEFT))?;
    if !miner.packer.is_empty() {
        miner.hand_over()?;
    }
    (miner.control.phase)(Phase::Writing);
    let judged =
        miner.judge.expect("the judge is taken out only when the walk fails").finish().map_err(write_failed)?;
    let mined = Mined { positions_loaded, walk: stats, findings: judged.findings, fired: judged.fired, walk_time };
    Ok((mined, walkable.into_book()))
}
