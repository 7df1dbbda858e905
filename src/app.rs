//! What every command shares: the contract each command of src/commands/
//! fulfils ([`Run`]), the refusals made before any work from the files it
//! names ([`check_files`]), the steps commands have in common (a book
//! loaded, Ctrl-C, the spinners, the engines greeted, the summary at the
//! end), and the exit status each failure maps to.

use crate::config::{Config, ConfigError, Settings};
use crate::logging::REPORT;
use crate::progress::Progress;
use crate::summary;
use bookminer::book::{Book, BookError, Format, ReadOptions};
use bookminer::check::CheckError;
use bookminer::convert::{ConvertError, OutFormat};
use bookminer::diff::DiffError;
use bookminer::engine::EngineNamed;
use bookminer::extend::{ExtendError, ExtendOptions, ExtendPaths};
use bookminer::failure::{io_kind, ErrorKind};
use bookminer::files::input::Writer;
use bookminer::files::{ensure_dir, folder_of, AtomicFile};
use bookminer::fix::FixError;
use bookminer::games::GamesError;
use bookminer::merge::MergeError;
use bookminer::mine::{MineError, OneOutput};
use bookminer::output::LineStyle;
use bookminer::run::{self, Cancel, Control, Phase};
use bookminer::synth::SynthError;
use bookminer::wording::count;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A command, described once in its own file of src/commands/: its flags
/// are the clap derive of the type that implements this, and this says
/// the rest (docs/architecture.md, how to add a command).
pub trait Run {
    /// The flags it took after its name, each over its config key.
    fn settings(&self) -> Settings;
    /// The files it reads and writes, as far as its command line and the
    /// config tell: what the refusals of [`check_files`] look at.
    fn files(&self, config: &Config) -> Files;
    /// Runs it; the `u8` is the exit status when it ran to the end.
    fn run(&self, config: &Config) -> Result<u8, AppError>;
    /// A refusal from its command line alone, made before any other.
    fn refuse(&self) -> Result<(), AppError> {
        Ok(())
    }
    /// For a command that prints what the command line's own definition
    /// (`cli`, and the manual pages' `examples`) makes, made before the
    /// config is read (a bad config.toml does not stop it): its exit status
    /// once printed.
    fn document(&self, _cli: fn() -> clap::Command, _examples: crate::manual::Examples) -> Option<u8> {
        None
    }
    /// Where mining writes its lines when they are named before the
    /// command (`bookminer -o FILE mine`): only `mine` takes it.
    fn given_before(&mut self, _output: Option<OneOutput>) {}
    /// The arguments clap was handed in place of those written (a board
    /// starting with `-`, handed with `.`): `(handed, written)` pairs, for
    /// the command that takes boards to put back.
    fn written_as(&mut self, _handed: &[(String, String)]) {}
}

/// The files a command reads and writes ([`Run::files`]).
#[derive(Debug, Default)]
pub struct Files {
    /// The files it reads (the config file is added by [`check_files`]).
    pub read: Vec<PathBuf>,
    /// Every file it writes: OUT, receipts, out_dir's files, the journal,
    /// pictures and charts.
    pub written: Vec<PathBuf>,
    /// The files its command line names for it to write (OUT, `-o FILE`),
    /// refused when they exist unless --force says to replace them. The
    /// files of out_dir are bookminer's own, replaced by each run (README,
    /// one run, one set of files).
    pub named: Vec<PathBuf>,
    /// Its own journal (extend's, which every growth command and merge
    /// with an engine keep): the journal's to check, which refuses one in
    /// use naming its run.
    pub own_journal: Option<PathBuf>,
}

/// Exit statuses (also in docs/usage.md and `--help`).
pub const EXIT_PROBLEMS: u8 = 1;
/// `diff --exit-code`: the books differ.
pub const EXIT_DIFFERENT: u8 = 1;
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
    Convert(#[from] ConvertError),
    #[error(transparent)]
    Fix(#[from] FixError),
    #[error(transparent)]
    Extend(#[from] ExtendError),
    #[error(transparent)]
    Diff(#[from] DiffError),
    #[error(transparent)]
    Merge(#[from] MergeError),
    #[error(transparent)]
    Check(#[from] CheckError),
    #[error(transparent)]
    Games(#[from] GamesError),
    #[error(transparent)]
    Synth(SynthError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The temporary files a book is made in (synth) failed.
    #[error("{}: the temporary files it is made in, in {} (about twice the book's size): {source}", output.display(), dir.display())]
    Scratch {
        output: PathBuf,
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `serve` could not listen on its address.
    #[error("cannot listen on {address}: {}", listen_why(source))]
    Listen {
        address: std::net::SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Usage(String),
    /// No book was named: no argument, no --book, no `book` key.
    #[error("no book given: name one (`bookminer mine BOOK`, `bookminer inspect BOOK POSITION...`, `verify BOOK`, `stats BOOK`), give --book FILE, or set book = \"FILE\" in config.toml")]
    NoBook,
    /// Mode 5 with neither positions nor a positions file.
    #[error("no positions given: name them (`bookminer inspect [BOOK] POSITION...`), give --file FILE or --positions-file FILE, or set positions_file = \"FILE\" in config.toml")]
    NoPositions,
    /// OUT's extension names another format than the one written.
    #[error(
        "{}: the name says an {}, but {command} writes {} bytes here; {remedy}",
        output.display(),
        named.title(),
        written.title()
    )]
    OutName { output: PathBuf, named: Format, written: Format, command: &'static str, remedy: &'static str },
    /// The log file named is a file the command reads or writes.
    #[error("{}: the log file is {}, which this command {role}s; name another log file", log.display(), other.display())]
    LogFile { log: PathBuf, other: PathBuf, role: &'static str },
    /// A file the command line names to be written exists, and replacing
    /// it was not asked for (--force).
    #[error("{} exists ({holds}); --force replaces it", path.display())]
    Exists { path: PathBuf, holds: bookminer::files::existing::Holds },
    /// A file the run would write is extend's journal: never written over,
    /// whatever the command, --force included.
    #[error("{}: is extend's journal (the answers of its searches), which no command writes over, --force included; name another file", path.display())]
    IsJournal { path: PathBuf },
    /// A file the run would write is held by another run that is alive.
    #[error("{}: held by another run ({}), which is writing it; name another file, or wait for that run to end", path.display(), holder.map_or("a process not listed in /proc/locks".to_string(), |pid| format!("process {pid}")))]
    Held { path: PathBuf, holder: Option<u32> },
    /// An output is the config file, by some path.
    #[error("{}: is the config file ({}); name another output", output.display(), config.display())]
    OverConfig { output: PathBuf, config: PathBuf },
    /// The outputs were written, then standard output failed.
    #[error("{} was written in full, but its summary could not be printed on standard output: {source}", written.display())]
    SummaryLost {
        written: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Whoever read standard output stopped reading (`bookminer stats | head`):
    /// not a failure, so nothing is said.
    #[error("standard output closed")]
    StdoutClosed,
}

/// Why an address cannot be listened on, and what to do: a port in use
/// is another program's (or another `serve`), which --port 0 steps around.
fn listen_why(source: &std::io::Error) -> String {
    match source.kind() {
        std::io::ErrorKind::AddrInUse => {
            "the port is in use by another program (or another serve); --port 0 takes a free one, which the address printed names".into()
        }
        std::io::ErrorKind::AddrNotAvailable => format!("{source}; the address is not one of this machine's"),
        std::io::ErrorKind::PermissionDenied => format!("{source}; ports below 1024 need privileges, --port 0 takes a free one"),
        _ => source.to_string(),
    }
}

impl AppError {
    /// The kind of failure; none when nothing failed (standard output closed).
    pub fn kind(&self) -> Option<ErrorKind> {
        Some(match self {
            AppError::Config(e) => e.kind(),
            AppError::Book(e) => e.kind(),
            AppError::Mine(e) => e.kind(),
            AppError::Convert(e) => e.kind(),
            AppError::Fix(e) => e.kind(),
            AppError::Extend(e) => e.kind(),
            AppError::Diff(e) => e.kind(),
            AppError::Merge(e) => e.kind(),
            AppError::Check(e) => e.kind(),
            AppError::Games(e) => e.kind(),
            AppError::Synth(e) => e.kind(),
            AppError::Io { source, .. }
            | AppError::Scratch { source, .. }
            | AppError::SummaryLost { source, .. }
            | AppError::Listen { source, .. } => io_kind(source),
            AppError::Usage(_)
            | AppError::NoBook
            | AppError::NoPositions
            | AppError::OutName { .. }
            | AppError::LogFile { .. }
            | AppError::Exists { .. }
            | AppError::IsJournal { .. }
            | AppError::Held { .. }
            | AppError::OverConfig { .. } => ErrorKind::BadInput,
            AppError::StdoutClosed => return None,
        })
    }

    pub fn exit_code(&self) -> u8 {
        match self.kind() {
            None => 0,
            Some(ErrorKind::BadInput) => EXIT_BAD_INPUT,
            Some(ErrorKind::Io | ErrorKind::BookChanged | ErrorKind::Engine | ErrorKind::Internal) => EXIT_IO,
            Some(ErrorKind::Interrupted) => EXIT_INTERRUPTED,
        }
    }
}

/// The config file (`config_file`: given, or ./config.toml if present;
/// none: defaults) with the command-line flags applied over it, those
/// before the command first.
pub fn settle_config(config_file: Option<&Path>, flags: [Settings; 2]) -> Result<Config, AppError> {
    let mut config = match config_file {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    for settings in flags {
        config.apply_flags(&settings)?;
    }
    Ok(config)
}

/// Refuses, before anything is read, the clashes only the command line
/// sees: a log file among the command's files, an output over the config
/// file. (A book read, and the outputs among themselves, are the library's
/// to check, each command's own way.)
pub fn check_files(command: &dyn Run, config_file: Option<&Path>, config: &Config) -> Result<(), AppError> {
    command.refuse()?;
    let mut files = command.files(config);
    files.read.splice(0..0, config_file.map(Path::to_path_buf));
    check_log_file(&files, config)?;
    check_config_file(&files, config_file)?;
    check_journals_and_held(&files, config)?;
    check_named_outputs(&files, config)
}

/// Refuses, whatever the command, any file it would write (OUT, receipt,
/// mining's files and manifest, the log) that is extend's journal, or that
/// another live run holds: a journal replaced by a book, or cut into a log,
/// loses every answer, and the next extend refuses what is left. The
/// command's own journal ([`Files::own_journal`]) is the journal's to
/// check, which refuses one in use naming its run.
fn check_journals_and_held(files: &Files, config: &Config) -> Result<(), AppError> {
    use bookminer::files::existing::{Found, Holds};
    let own_journal = &files.own_journal;
    let is_own =
        |path: &Path| own_journal.as_deref().is_some_and(|own| bookminer::files::input::same_destination(own, path));
    for path in files.written.iter().chain(&config.log_file).filter(|path| !is_own(path)) {
        if let Ok(Found::File(Holds::Journal)) = Found::at(path) {
            return Err(AppError::IsJournal { path: path.clone() });
        }
        if let Some(holder) = bookminer::extend::holder_of(path) {
            return Err(AppError::Held { path: path.clone(), holder });
        }
    }
    Ok(())
}

/// Refuses, before any work, a file named to be written that exists and
/// that the command did not write: a book can be days of engine time. It
/// is replaced (atomically, as any output) only with --force (`force` in
/// the config). Something that is no regular file (a folder, a device) is
/// never written over. A named output that is a book read is left to the
/// command's own refusal, which says so.
fn check_named_outputs(files: &Files, config: &Config) -> Result<(), AppError> {
    use bookminer::files::existing::Found;
    for output in &files.named {
        // (`--config /dev/null` is read, but is no book an output could be over.)
        let over_input = |input: &PathBuf| input.is_file() && bookminer::files::input::same_destination(input, output);
        if files.read.iter().any(over_input) {
            continue;
        }
        let output = output.clone();
        match Found::at(&output) {
            Ok(Found::Nothing) | Err(_) => {}
            Ok(Found::NotAFile(what)) => {
                return Err(AppError::Io { path: output, source: bookminer::files::input::NotAFile::error(what) })
            }
            // A journal is never replaced: --force is no remedy.
            Ok(Found::File(holds)) if holds.is_journal() => return Err(AppError::IsJournal { path: output }),
            Ok(Found::File(_)) if config.force => {}
            Ok(Found::File(holds)) => return Err(AppError::Exists { path: output, holds }),
        }
    }
    Ok(())
}

/// Refuses an output that is the config file by any path: the config is
/// read whole before the run, so nothing in the run would notice, and the
/// user's settings would be replaced by a book or lines. Only a regular
/// file can be lost so (`--config /dev/null` is no clash).
fn check_config_file(files: &Files, config_file: Option<&Path>) -> Result<(), AppError> {
    let Some(file) = config_file.filter(|file| file.is_file()) else { return Ok(()) };
    let written: Vec<&Path> = files.written.iter().map(PathBuf::as_path).collect();
    match bookminer::files::input::output_over_input(file, &written) {
        Ok(Some(output)) => Err(AppError::OverConfig { output: output.to_path_buf(), config: file.to_path_buf() }),
        _ => Ok(()),
    }
}

/// Refuses a log file that is one of the command's inputs or outputs, by
/// any path (a hard or symbolic link, `./x`): creating it would destroy an
/// input, and a failed run would leave a log where an output was. Only a
/// regular file can be lost so: reading the config from `/dev/null` and
/// logging to it too is fine.
fn check_log_file(files: &Files, config: &Config) -> Result<(), AppError> {
    let Some(log) = &config.log_file else { return Ok(()) };
    let clash =
        |other: &PathBuf, role: &'static str| AppError::LogFile { log: log.clone(), other: other.clone(), role };
    let clashes = |input: &&PathBuf| input.is_file() && bookminer::files::input::same_destination(input, log);
    if let Some(input) = files.read.iter().find(clashes) {
        return Err(clash(input, "read"));
    }
    if let Some(output) = files.written.iter().find(|output| bookminer::files::input::same_destination(output, log)) {
        return Err(clash(output, "write"));
    }
    Ok(())
}

impl Files {
    /// The files of a command that writes OUT from IN and keeps extend's
    /// journal, its own (extend and every growth command).
    pub fn growth(input: &Path, output: &Path, config: &Config) -> Files {
        let journal = config.out_dir.join(bookminer::extend::JOURNAL);
        Files {
            read: vec![input.to_path_buf()],
            written: vec![output.to_path_buf(), journal.clone()],
            named: vec![output.to_path_buf()],
            own_journal: Some(journal),
        }
    }
}

/// Prints a page a command made from the command line's definition (a
/// completion script, a manual page) on standard output: its exit status.
/// A reader that stopped reading is no failure.
pub fn print_page(page: &[u8]) -> u8 {
    use std::io::Write;
    let written = std::io::stdout().lock().write_all(page);
    match written {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: <standard output>: {e}");
            EXIT_IO
        }
    }
}

/// Creates the log file, if one was asked for: called once the command's
/// inputs have been read and found good.
pub fn inputs_are_good(config: &Config) {
    if let Some(log) = &config.log_file {
        crate::logging::open_file(log);
    }
}

/// What to do about an OUT whose name says another format than the one
/// written, by a command that writes the format of the book it reads: for
/// a format bookminer does not write, say so, and which it does. A command
/// that chooses the format itself says its own (convert's, synth's).
pub fn out_name_remedy(named: Format) -> &'static str {
    match OutFormat::of(named) {
        None => "bookminer reads that format but does not write it: name OUT .dat (Edax) or .egbk3 (Egaroucid), the formats it writes",
        Some(_) => "name OUT for that format, or change the format with `bookminer convert`",
    }
}

/// Says `text` on standard error (a closed one is no failure) and gives
/// `status`.
pub fn said(text: &str, status: u8) -> u8 {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{text}");
    status
}

/// The book a command reads: the one named as its argument, else the
/// config's (`--book` or the `book` key). There is no default book.
pub fn book_of<'a>(named: Option<&'a Path>, config: &'a Config) -> Result<&'a Path, AppError> {
    named.or(config.book.as_deref()).ok_or(AppError::NoBook)
}

/// What mining reads: the book named (then only it), else the config's
/// book and its positions file, which mode 5 reads (`bookminer` with no
/// command runs inspect when the config says mode 5; `mine` refuses it).
pub fn book_and_positions(named: Option<&Path>, config: &Config) -> Vec<PathBuf> {
    match named {
        Some(path) => vec![path.to_path_buf()],
        None => config.book.iter().chain(&config.positions_file).cloned().collect(),
    }
}

/// Writes one line to standard output, turning a closed pipe into
/// [`AppError::StdoutClosed`] instead of a panic.
macro_rules! say {
    ($($arg:tt)*) => { crate::app::write_stdout(format_args!($($arg)*)) };
}
pub(crate) use say;

pub fn write_stdout(text: std::fmt::Arguments) -> Result<(), AppError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_fmt(text).and_then(|()| out.write_all(b"\n")).map_err(|source| match source.kind() {
        std::io::ErrorKind::BrokenPipe => AppError::StdoutClosed,
        _ => AppError::Io { path: PathBuf::from("<standard output>"), source },
    })
}

/// Set by Ctrl-C; the walk checks it and stops, leaving no output changed.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The run's stop, [`INTERRUPTED`], as every part of the run looks at it.
pub fn cancel() -> Cancel<'static> {
    Cancel::new(&INTERRUPTED)
}

/// How the config says books are read.
pub fn read_options(config: &Config) -> ReadOptions {
    ReadOptions { egbk_level: config.egbk_level }
}

/// Loads a book, a spinner turning meanwhile on a terminal.
pub fn open_book(path: &Path, config: &Config, shown: &mut Progress) -> Result<Book, AppError> {
    let began = Instant::now();
    shown.stage(format!("loading {}", path.display()));
    let book = Book::open(path, &read_options(config));
    shown.clear();
    let book = book?;
    inputs_are_good(config);
    tracing::info!(
        "{}: {} loaded in {:.3} s (index {} MB)",
        path.display(),
        count(book.counts().positions, "position", "positions"),
        began.elapsed().as_secs_f64(),
        book.index().allocation_size() >> 20
    );
    if book.counts().merged > 0 {
        tracing::info!(
            "{}: {} merged into an earlier record of the same position (`bookminer verify` lists them)",
            path.display(),
            count(book.counts().merged, "record", "records")
        );
    }
    Ok(book)
}

/// Makes Ctrl-C set [`INTERRUPTED`]. Installed before loading, so that
/// Ctrl-C at any point ends the run the same way (status 130, no output
/// changed); a load is not interrupted but is short next to the walk. The
/// handler runs on a thread of its own, so it can say at once that the
/// signal was seen.
pub fn stop_on_interrupt(what: &'static str) {
    // Said once: a second Ctrl-C, or SIGTERM after SIGINT, stops nothing more.
    let on_interrupt = move || {
        if !INTERRUPTED.swap(true, Ordering::Relaxed) {
            tracing::warn!("interrupted: stopping; {what}");
        }
    };
    if let Err(e) = ctrlc::set_handler(on_interrupt) {
        tracing::warn!("Ctrl-C will not stop cleanly: {e}");
    }
}

/// Runs a book-writing command (or diff) with a spinner per stage and the
/// walk's bar; `writing` names what its last stage writes.
pub fn with_control_of<T>(
    counts: bookminer::book::BookCounts,
    format: Format,
    writing: &str,
    shown: &RefCell<Progress>,
    run: impl FnOnce(Control<'_>) -> Result<T, AppError>,
) -> Result<T, AppError> {
    with_control(Some(Walks { counts, format, writing }), shown, run)
}

/// The book a command walks, for its stages' display: its counts and
/// format, and what its last stage writes.
pub struct Walks<'w> {
    pub counts: bookminer::book::BookCounts,
    pub format: Format,
    pub writing: &'w str,
}

/// About how many edges the walk of a book of `counts` follows: an
/// Egaroucid book stores no links, and about one per position is found
/// walking.
pub fn walk_edges(counts: &bookminer::book::BookCounts, format: Format) -> u64 {
    let links = if format.stores_links() { counts.links } else { counts.positions };
    links + counts.leaves
}

/// Runs a long command under the one [`Control`]: Ctrl-C's flag, and what
/// it shows of each stage on `shown`. A walk's stages get a spinner each
/// and the walk its bar, when `walks` names the book walked (without, as
/// in extend's and grow's final negamax, the last display stays as it
/// is); a counted stage's bar appears with its first count, an extend
/// round's last bar is taken away as the round starts (its log line
/// follows), and grow's figures replace its spinner as they come.
pub fn with_control<T>(
    walks: Option<Walks<'_>>,
    shown: &RefCell<Progress>,
    run: impl FnOnce(Control<'_>) -> Result<T, AppError>,
) -> Result<T, AppError> {
    // The counted stage whose bar waits for its first count.
    let waiting = std::cell::Cell::new(None);
    let walk_total = walks.as_ref().map(|Walks { counts, format, .. }| walk_edges(counts, *format));
    let heartbeat = crate::heartbeat::Heartbeat::start(walk_total);
    let show_phase = |phase: Phase| match (phase, &walks) {
        (Phase::Resolving, Some(Walks { counts, .. })) => shown
            .borrow_mut()
            .stage(format!("resolving the moves of {}", count(counts.positions, "position", "positions"))),
        (Phase::Walking, Some(Walks { counts, format, .. })) => {
            shown.borrow_mut().start_walk(walk_edges(counts, *format))
        }
        (Phase::Writing, Some(Walks { writing, .. })) => shown.borrow_mut().stage(format!("writing {writing}")),
        (Phase::Resolving | Phase::Walking | Phase::Writing, None) | (Phase::Growing, _) => {}
        (Phase::Adding { games }, _) => shown.borrow_mut().adding(games),
        (Phase::Round { .. }, _) => {
            shown.borrow_mut().clear();
            waiting.set(Some(phase));
        }
        (Phase::Counting { .. } | Phase::StaleLeaves { .. } | Phase::Deepening { .. }, _) => waiting.set(Some(phase)),
    };
    let mut phase = |phase: Phase| {
        heartbeat.phase(phase);
        show_phase(phase)
    };
    let walked = walks.is_some();
    let show_progress = |progress: run::Progress<'_>| match progress {
        run::Progress::Walked(stats) if walked => shown.borrow().walked(stats),
        run::Progress::Walked(_) => {}
        run::Progress::Counted(done) => {
            let mut shown = shown.borrow_mut();
            match waiting.take() {
                Some(Phase::Counting { what, total }) => shown.count(what, total),
                Some(Phase::Round { round, candidates, searches }) => {
                    shown.searching(round, candidates, searches as u64)
                }
                Some(Phase::StaleLeaves { searches }) => shown.searching_stale(searches as u64),
                Some(Phase::Deepening { records }) => shown.count("deepening leaves", records as u64),
                _ => {}
            }
            shown.counted(done);
        }
        run::Progress::Grown { added, searched, reached, spent } => {
            shown.borrow_mut().growing(added, searched, reached, spent)
        }
        run::Progress::Added { games, added, searched, searches } => {
            shown.borrow().added(games, added, (searched, searches))
        }
        run::Progress::Left { .. } | run::Progress::EnginesBusy(_) => {}
    };
    let mut progress = |progress: run::Progress<'_>| {
        heartbeat.progress(&progress);
        show_progress(progress)
    };
    let control = Control { cancel: cancel(), phase: &mut phase, progress: &mut progress };
    let result = run(control);
    shown.borrow_mut().clear();
    result
}

/// The refusal of an OUT whose name says no format bookminer writes: no
/// book's extension, or one of a format only read (.egbk2, .egbk).
/// `writes` says who writes, `remedy` what else the user can do.
pub fn unnamed_format(output: &Path, writes: &str, remedy: &str) -> AppError {
    let why = match Format::named_by(output) {
        Some(named) => format!("the name says an {}, which bookminer reads but does not write", named.title()),
        None => "cannot tell the format to write from the name".to_string(),
    };
    AppError::Usage(format!(
        "{}: {why}; {writes} Edax books (.dat) and Egaroucid .egbk3 books (.egbk3): name OUT so{remedy}",
        output.display()
    ))
}

/// Refuses, before anything is read, an OUT whose name says no book format
/// (`fixed.txt`, `near`): a book no program would then take for one. The
/// one rule of every command that writes a book in the format of the book
/// it reads (fix, cut, extend, grow), as `convert` and `merge` refuse such
/// a name ([`unnamed_format`]); which format is checked once the book is
/// read ([`check_out_name`]).
pub fn check_out_named(output: &Path, command: &'static str) -> Result<(), AppError> {
    if Format::named_by(output).is_some() {
        return Ok(());
    }
    Err(AppError::Usage(format!(
        "{}: the name says no book format; {command} writes the format of the book it reads, Edax's (.dat) or Egaroucid's (.egbk3): name OUT for it (`bookminer convert` changes formats)",
        output.display()
    )))
}

/// Refuses an OUT whose extension names a format other than the one
/// `command` writes (Edax bytes in `x.egbk3`): a file no program could then
/// read for what its name says.
pub fn check_out_name(output: &Path, written: OutFormat, command: &'static str) -> Result<(), AppError> {
    check_out_name_or(output, written, command, out_name_remedy)
}

/// [`check_out_name`], the refusal saying `remedy` of the format named.
pub fn check_out_name_or(
    output: &Path,
    written: OutFormat,
    command: &'static str,
    remedy: fn(Format) -> &'static str,
) -> Result<(), AppError> {
    let Some(named) = Format::named_by(output) else { return Ok(()) };
    if OutFormat::of(named) == Some(written) {
        return Ok(());
    }
    Err(AppError::OutName {
        output: output.to_path_buf(),
        named,
        written: written.format(),
        command,
        remedy: remedy(named),
    })
}

/// Makes Ctrl-C set [`WIND_DOWN`] the first time (what is under way is
/// finished, then the book written) and [`INTERRUPTED`] the second.
pub fn wind_down_on_interrupt() {
    let on_interrupt = move || {
        if WIND_DOWN.swap(true, Ordering::Relaxed) {
            INTERRUPTED.store(true, Ordering::Relaxed);
            tracing::warn!("interrupted again: stopping now; the journal is kept, OUT will not be written");
        } else {
            tracing::warn!(
                "interrupted: finishing the searches under way, then writing OUT (Ctrl-C again to stop now)"
            );
        }
    };
    if let Err(e) = ctrlc::set_handler(on_interrupt) {
        tracing::warn!("Ctrl-C will not stop cleanly: {e}");
    }
}

/// Set by the first Ctrl-C of `grow`: dispatch nothing new.
pub static WIND_DOWN: AtomicBool = AtomicBool::new(false);

/// The engines the config names, each with its workers and protocol if said.
pub fn engine_commands(config: &Config, command: &str) -> Result<Vec<EngineNamed>, AppError> {
    if config.engines.is_empty() {
        return Err(AppError::Usage(format!(
            "{command} needs an engine: --engine \"edax -n 1 -h 14 -eval-file PATH/eval.dat\" (or the config key engine; docs/extend.md)"
        )));
    }
    let command = |e: &crate::config::EngineEntry| EngineNamed {
        command: e.command.clone(),
        workers: e.workers.or(config.workers),
        protocol: e.protocol.or(config.protocol),
    };
    Ok(config.engines.iter().map(command).collect())
}

/// extend's and grow's options from the config, but for the engines.
pub fn extend_options(config: &Config) -> ExtendOptions {
    ExtendOptions {
        engines: Vec::new(),
        engine_timeout: std::time::Duration::from_secs(config.engine_timeout),
        min_empties: config.min_empties,
        max_positions: config.max_positions,
        start: config.start.clone(),
        window: config.window,
    }
}

/// What a command that grows or searches a book (extend, grow, deepen,
/// add) has once it may begin: its paths checked and journal taken, its
/// engines greeted, its book read and found good for OUT.
pub struct Growing {
    pub paths: ExtendPaths,
    pub options: ExtendOptions,
    pub book: Book,
    pub shown: RefCell<Progress>,
}

/// How a growth command stops on Ctrl-C.
#[derive(Clone, Copy)]
pub enum OnInterrupt {
    /// The first finishes what is under way and writes OUT (grow, deepen).
    WindDown,
    /// The first stops at once, the journal kept (extend, add).
    Stop,
}

/// Refuses a game file where the book goes when a book is among the game
/// files (`check WTH_2015.wtb b.dat`): the arguments swapped, said so for
/// `add` and `check` alike, with the order `usage` gives.
pub fn refuse_swapped(command: &str, book: &Path, games: &[PathBuf], usage: &str) -> Result<(), AppError> {
    let Some(format) = bookminer::games::GameFormat::of_path(book) else { return Ok(()) };
    let Some(other) = games.iter().find(|game| is_book(game)) else { return Ok(()) };
    Err(AppError::Usage(format!(
        "{}: {command}'s first argument is the book, and this name is a game file's (.{}), while {} is a book: \
         the arguments are swapped; {usage}",
        book.display(),
        format.extension(),
        other.display()
    )))
}

/// Whether `path` names an existing file that starts as a book does, or
/// is named `.egbk` (a format without magic).
pub fn is_book(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    let mut start = Vec::new();
    let read =
        std::fs::File::open(path).and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 16), &mut start));
    let magic = read.is_ok() && bookminer::book::Format::has_magic(&start);
    let magicless = bookminer::book::Format::named_by(path).is_some_and(|named| !named.starts_with_magic());
    magic || magicless
}

/// Refuses a window (deviation, error, max_ply) for a policy that has its
/// own rule for where it goes, `instead` saying what that rule is.
pub fn refuse_window(config: &Config, command: &str, instead: &str) -> Result<(), AppError> {
    match config.window == bookminer::window::Window::NONE {
        true => Ok(()),
        false => Err(AppError::Usage(format!("{command} takes no window (deviation, error, max_ply): {instead}"))),
    }
}

/// The steps every growth command takes before its own work, in this
/// order: refusals first (a refusal should not wait for a large book), the
/// engines greeted before the book is read (one that cannot start says so
/// at once), then the book.
pub fn begin_growth(
    config: &Config,
    (input, output): (&Path, &Path),
    fresh: bool,
    command: &'static str,
    on_interrupt: OnInterrupt,
) -> Result<Growing, AppError> {
    begin_growth_reading(config, (input, &[], output), fresh, command, on_interrupt)
}

/// [`begin_growth`] for a command that writes OUT in the format its name
/// says, whatever the format of IN (`learn`, `recalculate`, as `convert`).
pub fn begin_growth_into(
    config: &Config,
    (input, output): (&Path, &Path),
    fresh: bool,
    command: &'static str,
    on_interrupt: OnInterrupt,
) -> Result<(Growing, OutFormat), AppError> {
    let Some(to) = OutFormat::of_path(output) else {
        return Err(unnamed_format(output, &format!("{command} writes"), ""));
    };
    let growing = begin(config, (input, &[], output), fresh, command, (on_interrupt, false))?;
    Ok((growing, to))
}

/// [`begin_growth`] for a command that reads `also_read` beside its book
/// (add's game files): OUT and the journal are refused over any of them.
pub fn begin_growth_reading(
    config: &Config,
    (input, also_read, output): (&Path, &[PathBuf], &Path),
    fresh: bool,
    command: &'static str,
    on_interrupt: OnInterrupt,
) -> Result<Growing, AppError> {
    begin(config, (input, also_read, output), fresh, command, (on_interrupt, true))
}

/// What [`begin_growth_reading`] does; OUT's name checked against IN's
/// format when `same_format`.
fn begin(
    config: &Config,
    (input, also_read, output): (&Path, &[PathBuf], &Path),
    fresh: bool,
    command: &'static str,
    (on_interrupt, same_format): (OnInterrupt, bool),
) -> Result<Growing, AppError> {
    let engines = engine_commands(config, command)?;
    let writer = match also_read.is_empty() {
        true => Writer::Growth(command),
        false => Writer::Add,
    };
    let paths = ExtendPaths::of_command(writer, (input, also_read), output, &config.out_dir)?.fresh(fresh);
    check_out_named(output, command)?;
    match on_interrupt {
        OnInterrupt::WindDown => wind_down_on_interrupt(),
        OnInterrupt::Stop => stop_on_interrupt("the journal is kept; OUT will not be written"),
    }
    let mut options = extend_options(config);
    // Only a second Ctrl-C stops the greeting when the first winds down:
    // after one, the run goes on, dispatches nothing and writes the book.
    options.engines = bookminer::extend::greet(&paths, &engines, options.engine_timeout, cancel())?;
    let shown = RefCell::new(Progress::default());
    let book = open_book(input, config, &mut shown.borrow_mut())?;
    if same_format {
        check_out_name(output, book.format().kept_as(), command)?;
    }
    Ok(Growing { paths, options, book, shown })
}

/// The config's `error_weight`, checked.
pub fn error_weight(config: &Config) -> Result<bookminer::extend::priority::ErrorWeight, AppError> {
    bookminer::extend::priority::ErrorWeight::new(config.error_weight)
        .map_err(|e| AppError::Usage(format!("error_weight: {e}")))
}

/// How lines are written (mining's files, fix's receipt, diff's lines).
pub fn line_style(config: &Config) -> LineStyle {
    LineStyle { orientation: config.orientation, pass_token: config.pass_token.clone() }
}

/// Ends a run once its outputs (`written`) are in place: its summary into
/// the log file, and on standard output as `--quiet` and `--summary` say.
/// Standard output failing now (a full disk, `>/dev/full`) loses the
/// summary only: the message says so.
pub fn end(human: String, json: impl FnOnce() -> serde_json::Value, written: Option<&Path>) -> Result<(), AppError> {
    log_report(&human);
    let Some(text) = summary::choose(human, json) else { return Ok(()) };
    say!("{text}").map_err(|e| match (e, written) {
        (AppError::Io { source, .. }, Some(written)) => {
            AppError::SummaryLost { written: written.to_path_buf(), source }
        }
        (other, _) => other,
    })
}

/// Ends a run whose standard output holds its output (`diff -o -`): the
/// summary goes to standard error instead, as `--quiet` and `--summary` say.
pub fn end_on_stderr(human: String, json: impl FnOnce() -> serde_json::Value) {
    use std::io::Write;
    log_report(&human);
    if let Some(text) = summary::choose(human, json) {
        // Not eprintln!: a closed stderr must not turn a finished run into a panic.
        let _ = writeln!(std::io::stderr(), "{text}");
    }
}

/// Copies a report into the log file, one time-stamped line per line.
pub fn log_report(report: &str) {
    for line in report.lines() {
        tracing::info!(target: REPORT, "{line}");
    }
}

/// Refuses, before any is written, the pictures of a run (the names given
/// and those made from them, `pos-2.svg` of `--svg pos.svg`) that land on
/// a file the run reads, on the log file, on extend's journal, or on one
/// another: the checks a named output passes, for every name written.
pub fn check_views(paths: &[PathBuf], inputs: &[&Path], config: &Config) -> Result<(), AppError> {
    use bookminer::files::existing::{Found, Holds};
    use bookminer::files::input::same_destination;
    for (i, path) in paths.iter().enumerate() {
        if let Some(input) = inputs.iter().find(|input| same_destination(input, path)) {
            return Err(AppError::Usage(format!(
                "{}: is {}, which this command reads; name another file to draw into",
                path.display(),
                input.display()
            )));
        }
        if let Some(log) = config.log_file.as_ref().filter(|log| same_destination(log, path)) {
            return Err(AppError::LogFile { log: log.clone(), other: path.clone(), role: "write" });
        }
        if let Ok(Found::File(Holds::Journal)) = Found::at(path) {
            return Err(AppError::IsJournal { path: path.clone() });
        }
        if let Some(other) = paths[..i].iter().find(|other| same_destination(other, path)) {
            return Err(AppError::Usage(format!(
                "{} and {} are one file: each picture needs a file of its own",
                other.display(),
                path.display()
            )));
        }
    }
    Ok(())
}

/// Writes a picture or chart whole (or not at all), never over a file the
/// command reads (the book, the positions file), by any path.
pub fn write_view(inputs: &[&Path], path: &Path, bytes: &[u8]) -> Result<(), AppError> {
    let io = |source| AppError::Io { path: path.to_path_buf(), source };
    if let Some(input) = inputs.iter().find(|input| bookminer::files::input::same_destination(input, path)) {
        return Err(AppError::Usage(format!(
            "{}: is {}, which this command reads; name another file to draw into",
            path.display(),
            input.display()
        )));
    }
    ensure_dir(folder_of(path)).map_err(io)?;
    let mut file = AtomicFile::create(path).map_err(io)?;
    std::io::Write::write_all(&mut file, bytes).map_err(io)?;
    file.commit().map_err(io)
}
