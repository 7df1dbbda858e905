//! Mining: one walk, the chosen modes' rules at every arrival, and one kifu
//! file per mode. Files are committed only when the whole walk succeeds.

use crate::board::Move;
use crate::book::{Book, Score};
use crate::modes::{judge, ArrivalScores, Branch, Mode, Rules, Target};
use crate::output::background::BackgroundFiles;
use crate::output::{ensure_dir, KifuFile, KifuFormat};
use crate::walk::{walk, Arrival, Start, Visitor, WalkError, WalkStats};
use smallvec::SmallVec;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What to mine and how to write it.
#[derive(Clone, Debug)]
pub struct MineOptions {
    pub modes: Vec<Mode>,
    pub rules: Rules,
    pub format: KifuFormat,
    pub unique_lines: bool,
    pub out_dir: PathBuf,
}

impl MineOptions {
    /// Where a mode's kifu go: `out_dir/mode{N}.txt`.
    pub fn output_path(&self, mode: Mode) -> PathBuf {
        self.out_dir.join(format!("mode{}.txt", mode.number()))
    }
}

/// Hooks for a long walk: a flag that stops it (Ctrl-C) and a progress report.
pub struct Control<'a> {
    pub cancel: &'a AtomicBool,
    pub progress: &'a mut dyn FnMut(&WalkStats),
}

/// Why mining failed.
#[derive(Debug)]
pub enum MineError {
    Io { path: PathBuf, source: io::Error },
    Walk { book: PathBuf, error: WalkError<Stop> },
    Interrupted,
    /// The book file changed while it was being read: nothing read can be trusted.
    BookChanged { book: PathBuf },
}

impl fmt::Display for MineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MineError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            MineError::Walk { book, error } => write!(f, "{}: {error}", book.display()),
            MineError::Interrupted => f.write_str("interrupted; no output file was changed"),
            MineError::BookChanged { book } => write!(
                f,
                "{}: the book changed while it was being read (rewritten by another program?); no output file was changed",
                book.display()
            ),
        }
    }
}

impl std::error::Error for MineError {}

/// Why the miner stopped the walk.
#[derive(Debug)]
pub enum Stop {
    Io { path: PathBuf, source: io::Error },
    Interrupted,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Stop::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// One mode's results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeReport {
    pub mode: Mode,
    /// Arrivals where observed > expected.
    pub above: u64,
    /// Arrivals where observed < expected.
    pub below: u64,
    pub lines_written: u64,
    pub duplicates_dropped: u64,
    pub path: PathBuf,
}

/// What a run did, for the summary.
#[derive(Clone, Debug)]
pub struct MineReport {
    pub positions_loaded: u64,
    pub walk: WalkStats,
    pub modes: Vec<ModeReport>,
    /// The walk alone, judging and writing included.
    pub walk_time: Duration,
    /// The walk and the files written out.
    pub elapsed: Duration,
}

impl fmt::Display for MineReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions loaded   {}", self.positions_loaded)?;
        writeln!(f, "positions walked   {}", self.walk.positions)?;
        let rate = self.walk.edges as f64 / self.walk_time.as_secs_f64().max(1e-9);
        writeln!(f, "edges followed     {} in {:.3} s ({:.2}M edges/s)", self.walk.edges, self.walk_time.as_secs_f64(), rate / 1e6)?;
        writeln!(f, "arrivals           {}", self.walk.arrivals)?;
        for m in &self.modes {
            let (observed, expected) = m.mode.letters();
            write!(f, "{}: {} with {observed} > {expected}", m.mode, m.above)?;
            if m.mode != Mode::LeafVsLinks {
                // mode 1 has no "less" branch
                write!(f, ", {} with {observed} < {expected}", m.below)?;
            }
            write!(f, "; {} lines written to {}", m.lines_written, m.path.display())?;
            if m.duplicates_dropped > 0 {
                write!(f, " ({} repeated lines dropped)", m.duplicates_dropped)?;
            }
            writeln!(f)?;
        }
        write!(f, "elapsed            {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// One mode's rule and counts; its file is the writer's file of the same number.
struct Sink {
    mode: Mode,
    above: u64,
    below: u64,
}

/// The walk's visitor: judges each arrival under every chosen mode.
struct Miner<'a, 'c> {
    sinks: Vec<Sink>,
    /// Taken out when the writer fails, to learn why.
    files: Option<BackgroundFiles>,
    rules: Rules,
    format: &'a KifuFormat,
    control: Control<'c>,
    /// Reused buffers: the line to a child's move, and its text.
    line: Vec<Move>,
    text: String,
}

impl Visitor for Miner<'_, '_> {
    type Error = Stop;

    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Stop> {
        let child = arrival.child;
        let links: SmallVec<[Score; 32]> = child.links().map(|l| l.score).collect();
        let scores = ArrivalScores {
            parent: arrival.parent_score,
            via_pass: arrival.via_pass,
            value: child.value(),
            links: &links,
            leaf: child.leaf().map(|l| l.score),
        };
        for (number, sink) in self.sinks.iter_mut().enumerate() {
            let Some(verdict) = judge(sink.mode, &self.rules, &scores) else { continue };
            match verdict.branch {
                Branch::Above => sink.above += 1,
                Branch::Below => sink.below += 1,
            }
            for target in verdict.targets {
                self.line.clear();
                self.line.extend_from_slice(arrival.line);
                if let Target::Move(i) = target {
                    let stored = child.move_at(i).expect("judge names moves of this child");
                    self.line.push(arrival.child_symmetry.apply_move(stored.mv));
                }
                self.text.clear();
                self.format.render(&self.line, &mut self.text);
                tracing::trace!("{}: {}", sink.mode, self.text);
                let files = self.files.as_mut().expect("the writer is taken out only when the walk stops");
                if files.write_line(number, &self.text).is_err() {
                    return Err(self.writer_failure());
                }
            }
        }
        Ok(())
    }

    fn progress(&mut self, stats: &WalkStats) -> Result<(), Stop> {
        if self.control.cancel.load(Ordering::Relaxed) {
            return Err(Stop::Interrupted);
        }
        (self.control.progress)(stats);
        Ok(())
    }
}

impl Miner<'_, '_> {
    /// Why the writer thread stopped, waiting for it to say.
    fn writer_failure(&mut self) -> Stop {
        match self.files.take().map(BackgroundFiles::finish) {
            Some(Err((path, source))) => Stop::Io { path, source },
            _ => Stop::Io { path: PathBuf::from("<kifu writer>"), source: io::Error::other("the writer thread stopped") },
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> MineError + '_ {
    move |source| MineError::Io { path: path.to_path_buf(), source }
}

/// Walks the book from `start` and writes one kifu file per mode. Nothing
/// under the final names changes unless the whole walk succeeds.
pub fn mine(book: &mut Book, start: &Start, options: &MineOptions, control: Control<'_>) -> Result<MineReport, MineError> {
    let began = Instant::now();
    ensure_dir(&options.out_dir).map_err(io_error(&options.out_dir))?;
    let mut files = Vec::with_capacity(options.modes.len());
    for &mode in &options.modes {
        let path = options.output_path(mode);
        files.push(KifuFile::create(&path, options.unique_lines).map_err(io_error(&path))?);
    }
    let files = BackgroundFiles::spawn(files).map_err(io_error(&options.out_dir))?;
    let sinks = options.modes.iter().map(|&mode| Sink { mode, above: 0, below: 0 }).collect();
    let miner = Miner {
        sinks,
        files: Some(files),
        rules: options.rules,
        format: &options.format,
        control,
        line: Vec::new(),
        text: String::new(),
    };
    let book_path = book.path().to_path_buf();
    let walk_began = Instant::now();
    let walked = walk(book, start, miner);
    // Whatever the walk read from a book that changed under it means nothing.
    if book.file().changed() {
        return Err(MineError::BookChanged { book: book_path });
    }
    let (stats, miner) = match walked {
        Ok(done) => done,
        Err(WalkError::Visitor(Stop::Interrupted)) => return Err(MineError::Interrupted),
        Err(WalkError::Visitor(Stop::Io { path, source })) => return Err(MineError::Io { path, source }),
        Err(error) => return Err(MineError::Walk { book: book_path, error }),
    };
    let walk_time = walk_began.elapsed();
    if miner.control.cancel.load(Ordering::Relaxed) {
        return Err(MineError::Interrupted);
    }
    let files = miner.files.expect("the writer is taken out only when the walk fails").finish().map_err(|(path, source)| MineError::Io { path, source })?;
    // Write every file out before renaming any, so a failure (a full disk)
    // leaves all previous outputs as they were, not some of them.
    let mut modes = Vec::new();
    let mut finished = Vec::new();
    for (sink, file) in miner.sinks.into_iter().zip(files) {
        let path = file.path().to_path_buf();
        let (lines_written, duplicates_dropped) = (file.lines_written, file.duplicates_dropped);
        finished.push(file.finish().map_err(io_error(&path))?);
        modes.push(ModeReport { mode: sink.mode, above: sink.above, below: sink.below, lines_written, duplicates_dropped, path });
    }
    // Last look before any output replaces its previous version.
    if book.file().changed() {
        return Err(MineError::BookChanged { book: book_path });
    }
    for file in finished {
        let path = file.path().to_path_buf();
        file.commit().map_err(io_error(&path))?;
    }
    Ok(MineReport { positions_loaded: book.counts().positions, walk: stats, modes, walk_time, elapsed: began.elapsed() })
}
