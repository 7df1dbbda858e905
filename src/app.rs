//! The commands, each a few calls into the library, and the exit status each
//! failure maps to.

use crate::cli::{Cli, Command};
use crate::logging::REPORT;
use crate::progress::Progress;
use bookminer::book::verify::verify;
use bookminer::book::Bytes;
use bookminer::book::{Book, BookError, Format, Header};
use bookminer::config::{Config, ConfigError, RunMode};
use bookminer::fix::{fix, FixError, FixOptions, FixPaths};
use bookminer::inspect::{inspect, Request};
use bookminer::mine::{mine, Control, MineError, MineOptions, Phase};
use bookminer::modes::Rules;
use bookminer::output::{ensure_dir, AtomicFile, KifuFormat};
use bookminer::stats::book_stats;
use bookminer::synth::{synthesize_as, SynthOptions};
use bookminer::walk::WalkStats;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Exit statuses (also in the README and `--help`).
pub const EXIT_PROBLEMS: u8 = 1;
pub const EXIT_BAD_INPUT: u8 = 2;
pub const EXIT_IO: u8 = 3;
pub const EXIT_INTERRUPTED: u8 = 130;

/// Everything that stops a command.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Book(#[from] BookError),
    #[error(transparent)]
    Mine(#[from] MineError),
    #[error(transparent)]
    Fix(#[from] FixError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Usage(String),
    /// Whoever read standard output stopped reading (`bookminer stats | head`):
    /// not a failure, so nothing is said.
    #[error("standard output closed")]
    StdoutClosed,
}

impl AppError {
    pub fn exit_code(&self) -> u8 {
        match self {
            AppError::Book(BookError::Io { .. } | BookError::Changed { .. })
            | AppError::Io { .. }
            | AppError::Mine(MineError::Io { .. } | MineError::BookChanged { .. }) => EXIT_IO,
            AppError::Mine(MineError::Interrupted) => EXIT_INTERRUPTED,
            AppError::Fix(e) => match e {
                FixError::Io { .. } | FixError::BookChanged { .. } => EXIT_IO,
                FixError::Interrupted => EXIT_INTERRUPTED,
                FixError::SameFile { .. } | FixError::BookIsReceipt { .. } | FixError::Walk { .. } => EXIT_BAD_INPUT,
            },
            AppError::StdoutClosed => 0,
            AppError::Config(ConfigError::Unreadable { .. }) => EXIT_IO,
            _ => EXIT_BAD_INPUT,
        }
    }
}

/// The config file (given, or ./config.toml if present, or defaults) with the
/// command-line flags applied over it.
pub fn settle_config(cli: &Cli) -> Result<Config, AppError> {
    let default_file = Path::new("config.toml");
    let mut config = match &cli.config {
        Some(path) => Config::load(path)?,
        None if default_file.is_file() => Config::load(default_file)?,
        None => Config::default(),
    };
    config.apply_flags(&cli.settings)?;
    Ok(config)
}

/// The log file a command writes: the one asked for (config key or flag), or
/// the default for the commands that write files anyway. Read-only commands
/// (verify, stats, inspect of positions given as arguments) create nothing
/// unless asked to.
pub fn log_file<'c>(command: Option<&Command>, config: &'c Config) -> Option<&'c Path> {
    let read_only = match command {
        Some(Command::Verify { .. } | Command::Stats { .. }) => true,
        Some(Command::Inspect { positions, .. }) => !positions.is_empty(),
        Some(Command::Mine | Command::Synth { .. } | Command::Fix { .. }) | None => false,
    };
    (config.log_file_given || !read_only).then_some(config.log_file.as_path())
}

/// Runs a command; the `u8` is the exit status when it ran to the end.
pub fn run(command: Option<Command>, config: &Config) -> Result<u8, AppError> {
    match command {
        None if config.mode == RunMode::Inspect => run_inspect(config, &[], None),
        None | Some(Command::Mine) => run_mine(config),
        Some(Command::Inspect { positions, file }) => run_inspect(config, &positions, file.as_deref()),
        // The book named, else the one mining would read.
        Some(Command::Verify { path }) => run_verify(path.as_deref().unwrap_or(&config.book)),
        Some(Command::Stats { path }) => run_stats(path.as_deref().unwrap_or(&config.book)),
        Some(Command::Fix { input, output }) => run_fix(config, &input, &output),
        Some(Command::Synth { positions, seed, perturb, book_format: format, path }) => {
            run_synth(format.into(), &SynthOptions { positions: positions as usize, seed, perturb }, &path)
        }
    }
}

/// Writes one line to standard output, turning a closed pipe into
/// [`AppError::StdoutClosed`] instead of a panic.
macro_rules! say {
    ($($arg:tt)*) => { crate::app::write_stdout(format_args!($($arg)*)) };
}

pub fn write_stdout(text: std::fmt::Arguments) -> Result<(), AppError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_fmt(text).and_then(|()| out.write_all(b"\n")).map_err(|source| match source.kind() {
        std::io::ErrorKind::BrokenPipe => AppError::StdoutClosed,
        _ => AppError::Io { path: PathBuf::from("<standard output>"), source },
    })
}

/// The largest positions file read (mode 5): a few million positions, each
/// of which gets a report of a few hundred bytes.
const POSITIONS_LIMIT: u64 = 256 << 20;

/// Set by Ctrl-C; the walk checks it and stops, leaving no output changed.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Loads a book, a spinner turning meanwhile on a terminal.
fn open_book(path: &Path, shown: &mut Progress) -> Result<Book, AppError> {
    let began = Instant::now();
    shown.stage(format!("loading {}", path.display()));
    let book = Book::open(path);
    shown.clear();
    let book = book?;
    tracing::info!(
        "{}: {} positions loaded in {:.3} s (index {} MB)",
        path.display(),
        book.counts().positions,
        began.elapsed().as_secs_f64(),
        book.index().allocation_size() >> 20
    );
    Ok(book)
}

/// Makes Ctrl-C set [`INTERRUPTED`]. Installed before loading, so that
/// Ctrl-C at any point ends the run the same way (status 130, no output
/// changed); a load is not interrupted but is short next to the walk. The
/// handler runs on a thread of its own, so it can say at once that the
/// signal was seen.
fn stop_on_interrupt() {
    let on_interrupt = || {
        INTERRUPTED.store(true, Ordering::Relaxed);
        tracing::warn!("interrupted: stopping; no output file will be changed");
    };
    if let Err(e) = ctrlc::set_handler(on_interrupt) {
        tracing::warn!("Ctrl-C will not stop the walk cleanly: {e}");
    }
}

fn run_mine(config: &Config) -> Result<u8, AppError> {
    let modes = config.mode.mining_modes();
    if modes.is_empty() {
        return Err(AppError::Usage(
            "mode 5 inspects positions: run `bookminer inspect`, or set mode to 1-4 or \"all\"".into(),
        ));
    }
    stop_on_interrupt();
    let shown = RefCell::new(Progress::default());
    let book = open_book(&config.book, &mut shown.borrow_mut())?;
    if INTERRUPTED.load(Ordering::Relaxed) {
        return Err(AppError::Mine(MineError::Interrupted));
    }
    let options = MineOptions {
        modes,
        rules: Rules { min_gap: config.min_gap, linkless: config.mode1_linkless },
        format: KifuFormat { orientation: config.orientation, pass_token: config.pass_token.clone() },
        formats: config.format,
        bom: config.bom,
        unique_lines: config.unique_lines,
        out_dir: config.out_dir.clone(),
    };
    let counts = book.counts();
    // Egaroucid books store no links: about one per position is found walking.
    let links = match book.format() {
        Format::Edax => counts.links,
        Format::Egaroucid => counts.positions,
    };
    let mut phase = |phase: Phase| match phase {
        Phase::Resolving => shown.borrow_mut().stage(format!("resolving the moves of {} positions", counts.positions)),
        Phase::Walking => shown.borrow_mut().start_walk(links + counts.leaves),
        Phase::Writing => shown.borrow_mut().stage("writing the files out".to_string()),
    };
    let mut progress = |stats: &WalkStats| shown.borrow().walked(stats);
    let control = Control { cancel: &INTERRUPTED, phase: &mut phase, progress: &mut progress };
    let report = mine(book, &config.start, &options, control);
    shown.borrow_mut().clear();
    let report = report?;
    say!("{report}")?;
    log_report(&report.to_string());
    Ok(0)
}

fn run_fix(config: &Config, input: &Path, output: &Path) -> Result<u8, AppError> {
    // Before anything is loaded: a refusal should not wait for a large book.
    let paths = FixPaths::new(input, output, &config.out_dir)?;
    stop_on_interrupt();
    let shown = RefCell::new(Progress::default());
    let book = open_book(input, &mut shown.borrow_mut())?;
    if INTERRUPTED.load(Ordering::Relaxed) {
        return Err(AppError::Fix(FixError::Interrupted));
    }
    let counts = book.counts();
    let links = match book.format() {
        Format::Edax => counts.links,
        Format::Egaroucid => counts.positions,
    };
    let mut phase = |phase: Phase| match phase {
        Phase::Resolving => shown.borrow_mut().stage(format!("resolving the moves of {} positions", counts.positions)),
        Phase::Walking => shown.borrow_mut().start_walk(links + counts.leaves),
        Phase::Writing => shown.borrow_mut().stage(format!("writing {}", output.display())),
    };
    let mut progress = |stats: &WalkStats| shown.borrow().walked(stats);
    let control = Control { cancel: &INTERRUPTED, phase: &mut phase, progress: &mut progress };
    let options =
        FixOptions { format: KifuFormat { orientation: config.orientation, pass_token: config.pass_token.clone() } };
    let report = fix(book, &paths, &options, control);
    shown.borrow_mut().clear();
    let report = report?;
    say!("{report}")?;
    log_report(&report.to_string());
    Ok(0)
}

/// Copies a report into the log file, one time-stamped line per line.
fn log_report(report: &str) {
    for line in report.lines() {
        tracing::info!(target: REPORT, "{line}");
    }
}

fn run_inspect(config: &Config, positions: &[String], file: Option<&Path>) -> Result<u8, AppError> {
    let requests = if positions.is_empty() {
        let path = file.unwrap_or(&config.positions_file);
        let bytes = bookminer::input::read_bounded(path, POSITIONS_LIMIT)
            .map_err(|source| AppError::Io { path: path.to_path_buf(), source })?;
        Request::from_bytes(&path.display().to_string(), &bytes)
    } else {
        positions
            .iter()
            .enumerate()
            .map(|(i, text)| Ok(Request { origin: format!("argument {}", i + 1), text: text.clone() }))
            .collect()
    };
    let book = open_book(&config.book, &mut Progress::default())?;
    let mut failed = 0;
    for outcome in inspect(&book, &requests) {
        match outcome {
            Ok(report) => {
                say!("{report}")?;
                log_report(&report);
            }
            Err(error) => {
                failed += 1;
                tracing::error!("{error}");
            }
        }
    }
    if failed > 0 {
        tracing::error!("{failed} of {} positions could not be reported", requests.len());
        return Ok(EXIT_PROBLEMS);
    }
    Ok(0)
}

fn run_verify(path: &Path) -> Result<u8, AppError> {
    let bytes = Bytes::open(path)?;
    let mut shown = Progress::default();
    shown.stage(format!("verifying {}", path.display()));
    let report = verify(bytes.as_slice());
    shown.clear();
    if let Some(error) = report.not_a_book() {
        // Nothing to verify: bad input (status 2), not a book with problems (1).
        return Err(AppError::Book(BookError::Format { path: path.to_path_buf(), error: error.clone() }));
    }
    for problem in &report.problems {
        say!("{}: {problem}", path.display())?;
    }
    if report.is_clean() {
        say!("{}: {} positions, no problems", path.display(), report.records)?;
        Ok(0)
    } else {
        let n = report.problems.len();
        let plural = if n == 1 { "" } else { "s" };
        tracing::error!("{}: {n} problem{plural} in {} positions", path.display(), report.records);
        Ok(EXIT_PROBLEMS)
    }
}

fn run_stats(path: &Path) -> Result<u8, AppError> {
    let book = open_book(path, &mut Progress::default())?;
    say!("{}", path.display())?;
    match book.header() {
        Header::Edax(h) => {
            let (y, mo, d, hh, mi, s) = h.date;
            say!(
                "Edax book, version {}.{}, written {y:04}-{mo:02}-{d:02} {hh:02}:{mi:02}:{s:02}",
                h.version,
                h.release
            )?;
            say!(
                "level {}, n_empties {}, midgame error {}, endcut error {}",
                h.level,
                h.n_empties,
                h.midgame_error,
                h.endcut_error
            )?;
            say!("header count {}", h.n_nodes)?;
        }
        Header::Egaroucid(h) => {
            say!("Egaroucid book (.egbk3), version {}", h.version)?;
            say!("header count {}", h.n_boards)?;
            let out_of_book = book.counts().records - book.counts().positions;
            say!("records {} ({out_of_book} without a value, not part of the book)", book.counts().records)?;
        }
    }
    let mut shown = Progress::default();
    shown.stage("counting what the records hold".to_string());
    let stats = book_stats(&book);
    shown.clear();
    say!("{}", stats.to_string().trim_end())?;
    // Counts of a damaged book are no answer on their own: say so, and fail.
    let problems = verify(book.file().bytes()).problems.len();
    if problems > 0 {
        tracing::error!("{}: {problems} problem(s) found; `bookminer verify` lists them", path.display());
        return Ok(EXIT_PROBLEMS);
    }
    Ok(0)
}

fn run_synth(format: Format, options: &SynthOptions, path: &Path) -> Result<u8, AppError> {
    let began = Instant::now();
    let io = |source| AppError::Io { path: path.to_path_buf(), source };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        ensure_dir(dir).map_err(io)?;
    }
    let mut file = AtomicFile::create(path).map_err(io)?;
    let report = synthesize_as(format, options, &mut file).map_err(io)?;
    file.commit().map_err(io)?;
    say!(
        "{}: {} positions, {} links, {} leaves, {} passes, {} perturbed, in {:.1} s",
        path.display(),
        report.positions,
        report.links,
        report.leaves,
        report.passes,
        report.perturbed,
        began.elapsed().as_secs_f64()
    )?;
    Ok(0)
}
