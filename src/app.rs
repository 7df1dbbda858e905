//! The commands, each a few calls into the library, and the exit status each
//! failure maps to.

use crate::cli::{Cli, Command, SummaryFormat};
use crate::config::{Config, ConfigError, RunMode};
use crate::logging::REPORT;
use crate::progress::Progress;
use crate::summary;
use bookminer::book::verify::{verify, VerifyReport};
use bookminer::book::Bytes;
use bookminer::book::{Book, BookError, Format, ReadOptions};
use bookminer::check::{check, CheckError, CheckOptions};
use bookminer::convert::{convert, ConvertError, OutFormat};
use bookminer::cut::cut;
use bookminer::diff::{diff, diff_path, DiffError, LinesOut};
use bookminer::engine::EngineNamed;
use bookminer::extend::add::{add, AddOptions};
use bookminer::extend::deepen::{deepen, DeepenOptions};
use bookminer::extend::deviate::{deviate, DeviateOptions};
use bookminer::extend::enhance::{enhance, EnhanceOptions};
use bookminer::extend::fill::{fill, FillOptions};
use bookminer::extend::grow::{grow, GrowOptions};
use bookminer::extend::link::{link, LinkOptions};
use bookminer::extend::new_book::{new_book, NewOptions};
use bookminer::extend::play::play;
use bookminer::extend::{extend, ExtendError, ExtendOptions, ExtendPaths};
use bookminer::failure::{io_kind, ErrorKind};
use bookminer::files::input::Writer;
use bookminer::files::{ensure_dir, folder_of, AtomicFile};
use bookminer::fix::{fix, FixError, FixOptions, FixPaths};
use bookminer::games::{GameFiles, GamesError};
use bookminer::inspect::picture::Picture;
use bookminer::inspect::{inspect, mismatches, InspectError, Outcome, Request};
use bookminer::merge::{merge, MergeError, MergeOptions, MergePaths};
use bookminer::mine::modes::Rules;
use bookminer::mine::{mine, MineError, MineOptions, OneOutput};
use bookminer::negamax::SearchErrors;
use bookminer::output::LineStyle;
use bookminer::run::{self, Cancel, Control, Interrupted, Left, Phase, RunError};
use bookminer::stats::{book_stats, Heading};
use bookminer::synth::{synthesize_in, SynthError, SynthOptions};
use bookminer::wording::count;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Exit statuses (also in the README and `--help`).
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
        "{}: the name says an {}, but {command} writes {} bytes here; {}",
        output.display(),
        named.title(),
        written.title(),
        out_name_remedy(command, *named)
    )]
    OutName { output: PathBuf, named: Format, written: Format, command: &'static str },
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
            AppError::Io { source, .. } | AppError::Scratch { source, .. } | AppError::SummaryLost { source, .. } => {
                io_kind(source)
            }
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

/// The config file read: the one given, else ./config.toml if present.
fn config_file(cli: &Cli) -> Option<PathBuf> {
    let default_file = Path::new("config.toml");
    cli.config.clone().or_else(|| default_file.is_file().then(|| default_file.to_path_buf()))
}

/// The config file (given, or ./config.toml if present, or defaults) with the
/// command-line flags applied over it.
pub fn settle_config(cli: &Cli) -> Result<Config, AppError> {
    let mut config = match config_file(cli) {
        Some(path) => Config::load(&path)?,
        None => Config::default(),
    };
    for settings in cli.settings() {
        config.apply_flags(&settings)?;
    }
    Ok(config)
}

/// The files a command reads and the files it writes, as far as the
/// command line and config tell.
fn files_of(cli: &Cli, config: &Config) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut read: Vec<PathBuf> = config_file(cli).into_iter().collect();
    let mut written = Vec::new();
    match &cli.command {
        Some(
            Command::Verify { path: Some(path), .. }
            | Command::Stats { path: Some(path), .. }
            | Command::Serve { path: Some(path), .. },
        ) => read.push(path.clone()),
        Some(Command::Mine { path: Some(path), .. }) => {
            read.push(path.clone());
            written.extend(mine_options(config, cli.mine_output()).outputs());
        }
        None | Some(Command::Mine { .. }) => {
            read.extend(config.book.iter().chain(&config.positions_file).cloned());
            written.extend(mine_options(config, cli.mine_output()).outputs());
        }
        Some(Command::Verify { .. } | Command::Stats { .. } | Command::Serve { .. }) => {
            read.extend(config.book.iter().chain(&config.positions_file).cloned());
        }
        Some(Command::Inspect { positions, file, .. }) => {
            let named = book_among(positions).ok().flatten().map(|(_, book)| book.to_path_buf());
            let book = named.or_else(|| config.book.clone());
            read.extend(book.into_iter().chain(file.clone()).chain(config.positions_file.clone()));
        }
        Some(Command::Convert { input, output, .. } | Command::Cut { input, output, .. }) => {
            read.push(input.clone());
            written.push(output.clone());
        }
        Some(Command::Fix { input, output, link: false, .. }) => {
            read.push(input.clone());
            written.extend([output.clone(), config.out_dir.join(bookminer::fix::RECEIPT)]);
        }
        Some(Command::Fix { input, output, link: true, .. }) => {
            read.push(input.clone());
            written.extend([output.clone(), config.out_dir.join(bookminer::extend::JOURNAL)]);
        }
        Some(
            Command::Extend { input, output, .. }
            | Command::Deviate { input, output, .. }
            | Command::Enhance { input, output, .. }
            | Command::Play { input, output, .. }
            | Command::Fill { input, output, .. }
            | Command::Grow { input, output, .. }
            | Command::Deepen { input, output, .. },
        ) => {
            read.push(input.clone());
            written.extend([output.clone(), config.out_dir.join(bookminer::extend::JOURNAL)]);
        }
        Some(Command::New { output, .. }) => {
            written.extend([output.clone(), config.out_dir.join(bookminer::extend::JOURNAL)]);
        }
        Some(Command::Add { input, games, output, .. }) => {
            read.push(input.clone());
            read.extend(games.iter().cloned());
            written.extend([output.clone(), config.out_dir.join(bookminer::extend::JOURNAL)]);
        }
        Some(Command::Diff { old, new, output, stdout, .. }) => {
            read.extend([old.clone(), new.clone()]);
            let output = Command::diff_output(output, *stdout, &config.out_dir);
            if output.as_os_str() != bookminer::diff::STDOUT {
                written.push(output);
            }
        }
        Some(Command::Synth { path, .. }) => written.push(path.clone()),
        Some(Command::Check { book, games, .. }) => {
            read.push(book.clone());
            read.extend(games.iter().cloned());
            written.extend(check_options(config).outputs());
        }
        Some(Command::Merge { a, b, output, .. }) => {
            read.extend([a.clone(), b.clone()]);
            written.extend([output.clone(), config.out_dir.join(bookminer::merge::RECEIPT)]);
            if !config.engines.is_empty() {
                written.push(config.out_dir.join(bookminer::extend::JOURNAL));
            }
        }
        Some(Command::Completions { .. } | Command::Man { .. }) => {}
    }
    // The pictures and charts: never drawn over the config or the log.
    match &cli.command {
        Some(Command::Inspect { svg: Some(svg), .. }) => written.push(svg.clone()),
        Some(Command::Stats { svg, html, .. }) => written.extend(svg.iter().chain(html).cloned()),
        _ => {}
    }
    (read, written)
}

/// Refuses, before anything is read, the clashes only the command line
/// sees: a log file among the command's files, an output over the config
/// file. (A book read, and the outputs among themselves, are the library's
/// to check, each command's own way.)
pub fn check_files(cli: &Cli, config: &Config) -> Result<(), AppError> {
    check_add_out(cli)?;
    check_log_file(cli, config)?;
    check_config_file(cli, config)?;
    check_journals_and_held(cli, config)?;
    check_named_outputs(cli, config)
}

/// Refuses an `add` whose last argument, OUT, is named as a game file is
/// (`add IN OUT GAMES`, OUT put before the games): the book would be
/// written over a game file, or under a game file's name.
fn check_add_out(cli: &Cli) -> Result<(), AppError> {
    let Some(Command::Add { output, .. }) = &cli.command else { return Ok(()) };
    match bookminer::games::GameFormat::of_path(output) {
        Some(format) => Err(AppError::Usage(format!(
            "{}: add's last argument is OUT, the book it writes, and this name is a game file's (.{}); \
             name the game files first and OUT last: bookminer add IN GAMES... OUT",
            output.display(),
            format.extension()
        ))),
        None => Ok(()),
    }
}

/// Refuses, whatever the command, any file it would write (OUT, receipt,
/// mining's files and manifest, the log) that is extend's journal, or that
/// another live run holds: a journal replaced by a book, or cut into a log,
/// loses every answer, and the next extend refuses what is left. The
/// command's own journal (extend, grow, deepen, new, add, merge with an engine) is the
/// journal's to check, which refuses one in use naming its run.
fn check_journals_and_held(cli: &Cli, config: &Config) -> Result<(), AppError> {
    use bookminer::files::existing::{Found, Holds};
    let (_, written) = files_of(cli, config);
    let own_journal = match &cli.command {
        Some(
            Command::Extend { .. }
            | Command::Deviate { .. }
            | Command::Enhance { .. }
            | Command::Play { .. }
            | Command::Fill { .. }
            | Command::Grow { .. }
            | Command::Deepen { .. }
            | Command::New { .. }
            | Command::Add { .. }
            | Command::Fix { link: true, .. },
        ) => Some(config.out_dir.join(bookminer::extend::JOURNAL)),
        Some(Command::Merge { .. }) if !config.engines.is_empty() => {
            Some(config.out_dir.join(bookminer::extend::JOURNAL))
        }
        _ => None,
    };
    let is_own =
        |path: &Path| own_journal.as_deref().is_some_and(|own| bookminer::files::input::same_destination(own, path));
    for path in written.iter().chain(&config.log_file).filter(|path| !is_own(path)) {
        if let Ok(Found::File(Holds::Journal)) = Found::at(path) {
            return Err(AppError::IsJournal { path: path.clone() });
        }
        if let Some(holder) = bookminer::extend::holder_of(path) {
            return Err(AppError::Held { path: path.clone(), holder });
        }
    }
    Ok(())
}

/// The files the command line names for the command to write: OUT, and
/// the file `-o` names (mine, diff). The files of out_dir are bookminer's
/// own, replaced by each run (README, one run, one set of files).
fn named_outputs(cli: &Cli) -> Vec<PathBuf> {
    match &cli.command {
        None | Some(Command::Mine { .. }) => match cli.mine_output() {
            Some(OneOutput::File(path)) => vec![path],
            Some(OneOutput::Stdout) | None => Vec::new(),
        },
        Some(Command::Diff { output: Some(output), stdout: false, .. })
            if output.as_os_str() != bookminer::diff::STDOUT =>
        {
            vec![output.clone()]
        }
        Some(
            Command::Convert { output, .. }
            | Command::Cut { output, .. }
            | Command::Fix { output, .. }
            | Command::Extend { output, .. }
            | Command::Deviate { output, .. }
            | Command::Enhance { output, .. }
            | Command::Play { output, .. }
            | Command::Fill { output, .. }
            | Command::Grow { output, .. }
            | Command::Deepen { output, .. }
            | Command::Merge { output, .. }
            | Command::New { output, .. },
        ) => vec![output.clone()],
        Some(Command::Add { output, .. }) => vec![output.clone()],
        Some(Command::Synth { path, .. }) => vec![path.clone()],
        Some(
            Command::Diff { .. }
            | Command::Check { .. }
            | Command::Inspect { .. }
            | Command::Verify { .. }
            | Command::Stats { .. }
            | Command::Serve { .. }
            | Command::Completions { .. }
            | Command::Man { .. },
        ) => Vec::new(),
    }
}

/// Refuses, before any work, a file named to be written that exists and
/// that the command did not write: a book can be days of engine time. It
/// is replaced (atomically, as any output) only with --force (`force` in
/// the config). Something that is no regular file (a folder, a device) is
/// never written over. A named output that is a book read is left to the
/// command's own refusal, which says so.
fn check_named_outputs(cli: &Cli, config: &Config) -> Result<(), AppError> {
    use bookminer::files::existing::Found;
    let (read, _) = files_of(cli, config);
    for output in named_outputs(cli) {
        // (`--config /dev/null` is read, but is no book an output could be over.)
        let over_input = |input: &PathBuf| input.is_file() && bookminer::files::input::same_destination(input, &output);
        if read.iter().any(over_input) {
            continue;
        }
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
fn check_config_file(cli: &Cli, config: &Config) -> Result<(), AppError> {
    let Some(file) = config_file(cli).filter(|file| file.is_file()) else { return Ok(()) };
    let (_, written) = files_of(cli, config);
    let written: Vec<&Path> = written.iter().map(PathBuf::as_path).collect();
    match bookminer::files::input::output_over_input(&file, &written) {
        Ok(Some(output)) => Err(AppError::OverConfig { output: output.to_path_buf(), config: file }),
        _ => Ok(()),
    }
}

/// Refuses a log file that is one of the command's inputs or outputs, by
/// any path (a hard or symbolic link, `./x`): creating it would destroy an
/// input, and a failed run would leave a log where an output was. Only a
/// regular file can be lost so: reading the config from `/dev/null` and
/// logging to it too is fine.
fn check_log_file(cli: &Cli, config: &Config) -> Result<(), AppError> {
    let Some(log) = &config.log_file else { return Ok(()) };
    let (read, written) = files_of(cli, config);
    let clash =
        |other: &PathBuf, role: &'static str| AppError::LogFile { log: log.clone(), other: other.clone(), role };
    let clashes = |input: &&PathBuf| input.is_file() && bookminer::files::input::same_destination(input, log);
    if let Some(input) = read.iter().find(clashes) {
        return Err(clash(input, "read"));
    }
    if let Some(output) = written.iter().find(|output| bookminer::files::input::same_destination(output, log)) {
        return Err(clash(output, "write"));
    }
    Ok(())
}

/// Creates the log file, if one was asked for: called once the command's
/// inputs have been read and found good.
fn inputs_are_good(config: &Config) {
    if let Some(log) = &config.log_file {
        crate::logging::open_file(log);
    }
}
/// Runs a command; the `u8` is the exit status when it ran to the end.
/// `output` is where mining writes its lines instead of out_dir
/// ([`Cli::mine_output`]).
pub fn run(command: Option<Command>, output: Option<OneOutput>, config: &Config) -> Result<u8, AppError> {
    match command {
        None if config.mode == RunMode::Inspect => run_inspect(config, None, &[], None, None),
        None => run_mine(book_of(None, config)?, config, output),
        Some(Command::Mine { path, .. }) => run_mine(book_of(path.as_deref(), config)?, config, output),
        Some(Command::Inspect { positions, file, svg, .. }) => match book_among(&positions)? {
            Some((at, book)) => {
                let others: Vec<String> =
                    positions.iter().enumerate().filter(|&(i, _)| i != at).map(|(_, p)| p.clone()).collect();
                run_inspect(config, Some(book), &others, file.as_deref(), svg.as_deref())
            }
            None => run_inspect(config, None, &positions, file.as_deref(), svg.as_deref()),
        },
        // The book named, else the one mining would read.
        Some(Command::Verify { path, .. }) => run_verify(book_of(path.as_deref(), config)?, config),
        Some(Command::Stats { path, svg, html, .. }) => {
            let charts = Charts { svg: svg.as_deref(), html: html.as_deref() };
            run_stats(book_of(path.as_deref(), config)?, config, charts)
        }
        Some(Command::Serve { path, address, port, .. }) => {
            run_serve(book_of(path.as_deref(), config)?, config, std::net::SocketAddr::new(address, port))
        }
        Some(Command::Convert { input, output, to, .. }) => run_convert(config, &input, &output, to),
        Some(Command::Cut { input, output, .. }) => run_cut(config, &input, &output),
        Some(Command::Fix { input, output, link: false, .. }) => run_fix(config, &input, &output),
        Some(Command::Fix { input, output, link: true, fresh, .. }) => run_fix_link(config, &input, &output, fresh),
        Some(Command::Extend { input, output, fresh, .. }) => run_extend(config, &input, &output, fresh),
        Some(Command::Grow { input, output, fresh, .. }) => run_grow(config, &input, &output, fresh),
        Some(Command::Play { input, output, fresh, .. }) => run_play(config, &input, &output, fresh),
        Some(Command::Fill { input, output, fresh, depth, .. }) => run_fill(config, (&input, &output), fresh, depth),
        Some(Command::Deviate { input, output, fresh, relative, absolute, .. }) => {
            run_deviate(config, (&input, &output), fresh, (relative, absolute))
        }
        Some(Command::Enhance { input, output, fresh, midgame_error, endgame_error, rounds, .. }) => {
            let errors = SearchErrors { midgame: midgame_error, endcut: endgame_error };
            run_enhance(config, (&input, &output), fresh, (errors, rounds))
        }
        Some(Command::Deepen { input, output, fresh, .. }) => run_deepen(config, &input, &output, fresh),
        Some(Command::Merge { a, b, output, link, fresh, .. }) => run_merge(config, (&a, &b), &output, (link, fresh)),
        Some(Command::Check { book, games, .. }) => run_check(config, &book, &games),
        Some(Command::New { output, fresh, .. }) => run_new(config, &output, fresh),
        Some(Command::Add { input, games, output, fresh, .. }) => run_add(config, &input, &games, &output, fresh),
        Some(Command::Diff { old, new, exit_code, output, stdout, .. }) => {
            run_diff(config, &old, &new, &Command::diff_output(&output, stdout, &config.out_dir), exit_code)
        }
        Some(command @ (Command::Completions { .. } | Command::Man { .. })) => {
            Ok(run_documentation(Some(&command)).unwrap_or(0))
        }
        Some(Command::Synth { positions, seed, perturb, book_format: format, path, .. }) => {
            run_synth(config, format, &SynthOptions { positions: positions as usize, seed, perturb }, &path)
        }
    }
}

/// Prints the completion script or the manual page when that is the
/// command (its exit status); none for any other command.
pub fn run_documentation(command: Option<&Command>) -> Option<u8> {
    let mut cli = crate::cli::command();
    let mut page = Vec::new();
    match command? {
        Command::Completions { shell } => clap_complete::generate(*shell, &mut cli, "bookminer", &mut page),
        Command::Man { command, dir: None } => match crate::manual::page(cli, command.as_deref()) {
            Ok(written) => page = written,
            Err(why) => return Some(said(&format!("error: man: {why}"), EXIT_BAD_INPUT)),
        },
        Command::Man { dir: Some(dir), .. } => {
            return Some(match crate::manual::write_all(cli, dir) {
                Ok(pages) => said(&format!("{} pages written into {}", pages.len(), dir.display()), 0),
                Err(e) => said(&format!("error: {}: {e}", dir.display()), EXIT_IO),
            });
        }
        _ => return None,
    }
    use std::io::Write;
    let written = std::io::stdout().lock().write_all(&page);
    Some(match written {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: <standard output>: {e}");
            EXIT_IO
        }
    })
}

/// What to do about an OUT whose name says another format than the one
/// written: for a format bookminer does not write, say so, and which it does.
fn out_name_remedy(command: &str, named: Format) -> &'static str {
    if command.starts_with("synth") {
        // synth writes every format bookminer reads.
        return "name OUT for that format, or leave out --book-format: synth then writes the format OUT's name says";
    }
    match (OutFormat::of(named), command.starts_with("convert")) {
        (None, _) => "bookminer reads that format but does not write it: name OUT .dat (Edax) or .egbk3 (Egaroucid), the formats it writes",
        (Some(_), true) => "name OUT for that format, or give --to the format the name says",
        (Some(_), false) => "name OUT for that format, or change the format with `bookminer convert`",
    }
}

/// Says `text` on standard error (a closed one is no failure) and gives
/// `status`.
fn said(text: &str, status: u8) -> u8 {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{text}");
    status
}

/// The book a command reads: the one named as its argument, else the
/// config's (`--book` or the `book` key). There is no default book.
fn book_of<'a>(named: Option<&'a Path>, config: &'a Config) -> Result<&'a Path, AppError> {
    named.or(config.book.as_deref()).ok_or(AppError::NoBook)
}

/// `inspect`'s book among its arguments, in any place, and where it is: the
/// argument that names an existing file that starts as a book does
/// (Edax's or Egaroucid's magic), or one named `.egbk` (which has no
/// magic). No position is written so, and a file is never taken for a
/// position. Two such arguments are refused: which is the book?
fn book_among(arguments: &[String]) -> Result<Option<(usize, &Path)>, AppError> {
    let mut books = arguments.iter().enumerate().filter(|(_, a)| is_book(Path::new(a)));
    match (books.next(), books.next()) {
        (Some((_, first)), Some((_, second))) => Err(AppError::Usage(format!(
            "inspect reads one book, but {first} and {second} are both books: name the book once (or with --book)"
        ))),
        (first, _) => Ok(first.map(|(i, book)| (i, Path::new(book)))),
    }
}

/// Whether `path` names an existing file that starts as a book does, or
/// is named `.egbk` (a format without magic).
fn is_book(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    let mut start = Vec::new();
    let read =
        std::fs::File::open(path).and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 16), &mut start));
    let magic = read.is_ok() && Format::has_magic(&start);
    let magicless = Format::named_by(path).is_some_and(|named| !named.starts_with_magic());
    magic || magicless
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

/// The run's stop, [`INTERRUPTED`], as every part of the run looks at it.
fn cancel() -> Cancel<'static> {
    Cancel::new(&INTERRUPTED)
}

/// How the config says books are read.
fn read_options(config: &Config) -> ReadOptions {
    ReadOptions { egbk_level: config.egbk_level }
}

/// Loads a book, a spinner turning meanwhile on a terminal.
fn open_book(path: &Path, config: &Config, shown: &mut Progress) -> Result<Book, AppError> {
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
fn run_mine(book_path: &Path, config: &Config, output: Option<OneOutput>) -> Result<u8, AppError> {
    let options = mine_options(config, output);
    if options.modes.is_empty() {
        return Err(AppError::Usage(
            "mode 5 inspects positions: run `bookminer inspect`, or set mode to 1-4 or \"all\"".into(),
        ));
    }
    // Before loading: a refusal should not wait for a large book.
    options.check_outputs(book_path)?;
    stop_on_interrupt("no output file will be changed");
    let shown = RefCell::new(Progress::default());
    let book = open_book(book_path, config, &mut shown.borrow_mut())?;
    if cancel().is_set() {
        return Err(AppError::Mine(RunError::interrupted(Left::Outputs)(Interrupted).into()));
    }
    let streamed = options.output == Some(OneOutput::Stdout);
    let (counts, format) = (book.counts(), book.format());
    let report = with_control_of(counts, format, "the files out", &shown, |control| {
        mine(book, &config.start, &options, control).map_err(|e| match e {
            // Whoever read the lines stopped reading (`| head`): no failure.
            MineError::Run(RunError::Io { source, .. })
                if streamed && source.kind() == std::io::ErrorKind::BrokenPipe =>
            {
                AppError::StdoutClosed
            }
            e => AppError::Mine(e),
        })
    });
    let report = report?;
    match &options.output {
        None => end(report.to_string(), || summary::mine(&report), Some(&config.out_dir))?,
        Some(OneOutput::File(path)) => end(report.to_string(), || summary::mine(&report), Some(path))?,
        Some(OneOutput::Stdout) => end_on_stderr(report.to_string(), || summary::mine(&report)),
    }
    Ok(0)
}

/// What the config asks mining to do; no mode at all for mode 5. `output`:
/// the one file (or standard output) named instead of out_dir.
fn mine_options(config: &Config, output: Option<OneOutput>) -> MineOptions {
    MineOptions {
        modes: config.mode.mining_modes(),
        rules: Rules { min_gap: config.min_gap, linkless: config.mode1_linkless },
        style: line_style(config),
        formats: config.format,
        bom: config.bom,
        unique_lines: config.unique_lines,
        out_dir: config.out_dir.clone(),
        output,
        window: config.window,
    }
}

/// Installs the Ctrl-C handler that sets [`INTERRUPTED`].
fn stop_on_interrupt(what: &'static str) {
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
fn with_control_of<T>(
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
struct Walks<'w> {
    counts: bookminer::book::BookCounts,
    format: Format,
    writing: &'w str,
}

/// About how many edges the walk of a book of `counts` follows: an
/// Egaroucid book stores no links, and about one per position is found
/// walking.
fn walk_edges(counts: &bookminer::book::BookCounts, format: Format) -> u64 {
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
fn with_control<T>(
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
        run::Progress::Added { games, added, searched } => shown.borrow().added(games, added, searched),
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

fn run_convert(config: &Config, input: &Path, output: &Path, to: Option<OutFormat>) -> Result<u8, AppError> {
    let to = match to.or_else(|| OutFormat::of_path(output)) {
        Some(to) => {
            check_out_name(output, to, "convert --to")?;
            to
        }
        None => return Err(unnamed_format(output, "bookminer writes", ", or give --to edax|egbk3")),
    };
    stop_on_interrupt("nothing will be written");
    let shown = RefCell::new(Progress::default());
    let book = open_book(input, config, &mut shown.borrow_mut())?;
    let report = with_control_of(book.counts(), book.format(), "the book", &shown, |control| {
        Ok(convert(book, to, output, control)?)
    })?;
    end(report.to_string(), || summary::convert(&report), Some(output))?;
    Ok(0)
}

/// The refusal of an OUT whose name says no format bookminer writes: no
/// book's extension, or one of a format only read (.egbk2, .egbk).
/// `writes` says who writes, `remedy` what else the user can do.
fn unnamed_format(output: &Path, writes: &str, remedy: &str) -> AppError {
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
fn check_out_named(output: &Path, command: &'static str) -> Result<(), AppError> {
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
fn check_out_name(output: &Path, written: OutFormat, command: &'static str) -> Result<(), AppError> {
    let Some(named) = Format::named_by(output) else { return Ok(()) };
    if OutFormat::of(named) == Some(written) {
        return Ok(());
    }
    Err(AppError::OutName { output: output.to_path_buf(), named, written: written.format(), command })
}

fn run_cut(config: &Config, input: &Path, output: &Path) -> Result<u8, AppError> {
    check_out_named(output, "cut")?;
    stop_on_interrupt("nothing will be written");
    let shown = RefCell::new(Progress::default());
    let book = open_book(input, config, &mut shown.borrow_mut())?;
    check_out_name(output, book.format().kept_as(), "cut")?;
    let report = with_control_of(book.counts(), book.format(), "the book", &shown, |control| {
        Ok(cut(book, &config.start, config.window, output, control)?)
    })?;
    end(report.to_string(), || summary::cut(&report), Some(output))?;
    Ok(0)
}

fn run_fix(config: &Config, input: &Path, output: &Path) -> Result<u8, AppError> {
    // Before anything is loaded: a refusal should not wait for a large book.
    let paths = FixPaths::new(input, output, &config.out_dir)?;
    check_out_named(output, "fix")?;
    stop_on_interrupt("nothing will be written");
    let shown = RefCell::new(Progress::default());
    let book = open_book(input, config, &mut shown.borrow_mut())?;
    fix_read(config, book, &paths, &shown)
}

/// `fix` of a book read, into the paths checked.
fn fix_read(config: &Config, book: Book, paths: &FixPaths, shown: &RefCell<Progress>) -> Result<u8, AppError> {
    let output = paths.output();
    if cancel().is_set() {
        return Err(AppError::Fix(Interrupted.into()));
    }
    check_out_name(output, book.format().kept_as(), "fix")?;
    let options = FixOptions { style: line_style(config) };
    let report = with_control_of(book.counts(), book.format(), "the book", shown, |control| {
        Ok(fix(book, paths, &options, control)?)
    })?;
    end(report.to_string(), || summary::fix(&report), Some(output))?;
    Ok(0)
}

/// `fix --link IN OUT`: the engines, when given, greeted before the book
/// is read; an Egaroucid book, whose links are implicit, fixed as `fix`
/// fixes it.
fn run_fix_link(config: &Config, input: &Path, output: &Path, fresh: bool) -> Result<u8, AppError> {
    let engines = if config.engines.is_empty() { Vec::new() } else { engine_commands(config, "fix --link")? };
    let paths = ExtendPaths::new(input, output, &config.out_dir)?.fresh(fresh);
    check_out_named(output, "fix")?;
    stop_on_interrupt("the journal is kept; OUT will not be written");
    let engine_timeout = std::time::Duration::from_secs(config.engine_timeout);
    let engines = match engines.is_empty() {
        true => Vec::new(),
        false => bookminer::extend::greet(&paths, &engines, engine_timeout, cancel())?,
    };
    let options = LinkOptions { engines, engine_timeout };
    let shown = RefCell::new(Progress::default());
    let book = open_book(input, config, &mut shown.borrow_mut())?;
    check_out_name(output, book.format().kept_as(), "fix")?;
    if book.header().edax().is_none() {
        tracing::warn!("--link changes nothing in an Egaroucid book: its links are the moves whose child it holds");
        drop(paths);
        return fix_read(config, book, &FixPaths::new(input, output, &config.out_dir)?, &shown);
    }
    let report = with_control(None, &shown, |control| Ok(link(book, &paths, &options, control)?))?;
    end(report.to_string(), || summary::link(&report), Some(output))?;
    Ok(0)
}

/// Makes Ctrl-C set [`WIND_DOWN`] the first time (what is under way is
/// finished, then the book written) and [`INTERRUPTED`] the second.
fn wind_down_on_interrupt() {
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
static WIND_DOWN: AtomicBool = AtomicBool::new(false);

/// The engines the config names, each with its workers and protocol if said.
fn engine_commands(config: &Config, command: &str) -> Result<Vec<EngineNamed>, AppError> {
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
fn extend_options(config: &Config) -> ExtendOptions {
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
struct Growing {
    paths: ExtendPaths,
    options: ExtendOptions,
    book: Book,
    shown: RefCell<Progress>,
}

/// How a growth command stops on Ctrl-C.
#[derive(Clone, Copy)]
enum OnInterrupt {
    /// The first finishes what is under way and writes OUT (grow, deepen).
    WindDown,
    /// The first stops at once, the journal kept (extend, add).
    Stop,
}

/// The steps every growth command takes before its own work, in this
/// order: refusals first (a refusal should not wait for a large book), the
/// engines greeted before the book is read (one that cannot start says so
/// at once), then the book.
fn begin_growth(
    config: &Config,
    (input, output): (&Path, &Path),
    fresh: bool,
    command: &'static str,
    on_interrupt: OnInterrupt,
) -> Result<Growing, AppError> {
    begin_growth_reading(config, (input, &[], output), fresh, command, on_interrupt)
}

/// [`begin_growth`] for a command that reads `also_read` beside its book
/// (add's game files): OUT and the journal are refused over any of them.
fn begin_growth_reading(
    config: &Config,
    (input, also_read, output): (&Path, &[PathBuf], &Path),
    fresh: bool,
    command: &'static str,
    on_interrupt: OnInterrupt,
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
    check_out_name(output, book.format().kept_as(), command)?;
    Ok(Growing { paths, options, book, shown })
}

/// The config's `error_weight`, checked.
fn error_weight(config: &Config) -> Result<bookminer::extend::priority::ErrorWeight, AppError> {
    bookminer::extend::priority::ErrorWeight::new(config.error_weight)
        .map_err(|e| AppError::Usage(format!("error_weight: {e}")))
}

fn run_grow(config: &Config, input: &Path, output: &Path, fresh: bool) -> Result<u8, AppError> {
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "grow", OnInterrupt::WindDown)?;
    let options = GrowOptions {
        extend: options,
        error_weight: error_weight(config)?,
        max_priority: config.max_priority,
        max_seconds: config.max_seconds,
    };
    let report =
        with_control(None, &shown, |control| Ok(grow(book, &paths, &options, Cancel::new(&WIND_DOWN), control)?))?;
    end(report.to_string(), || summary::grow(&report), Some(output))?;
    Ok(0)
}

fn run_deepen(config: &Config, input: &Path, output: &Path, fresh: bool) -> Result<u8, AppError> {
    let Some(level) = config.level else {
        return Err(AppError::Usage(
            "deepen needs a level: --level L (Edax's, 0 to 60; or the config key level)".into(),
        ));
    };
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "deepen", OnInterrupt::WindDown)?;
    let options = DeepenOptions {
        extend: options,
        level,
        error_weight: error_weight(config)?,
        max_priority: config.max_priority,
        max_seconds: config.max_seconds,
    };
    let report =
        with_control(None, &shown, |control| Ok(deepen(book, &paths, &options, Cancel::new(&WIND_DOWN), control)?))?;
    end(report.to_string(), || summary::deepen(&report), Some(output))?;
    Ok(0)
}

fn run_extend(config: &Config, input: &Path, output: &Path, fresh: bool) -> Result<u8, AppError> {
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "extend", OnInterrupt::Stop)?;
    let report = with_control(None, &shown, |control| Ok(extend(book, &paths, &options, control)?))?;
    end(report.to_string(), || summary::extend(&report), Some(output))?;
    Ok(0)
}

/// `deviate IN OUT`: extend's steps, no window, the two errors.
fn run_deviate(
    config: &Config,
    (input, output): (&Path, &Path),
    fresh: bool,
    (relative, absolute): (i32, i32),
) -> Result<u8, AppError> {
    if config.window != bookminer::window::Window::NONE {
        return Err(AppError::Usage(
            "deviate takes no window (deviation, error, max_ply): --relative and --absolute are its window".into(),
        ));
    }
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "deviate", OnInterrupt::Stop)?;
    let options = DeviateOptions { extend: options, relative, absolute };
    let report = with_control(None, &shown, |control| Ok(deviate(book, &paths, &options, control)?))?;
    end(report.to_string(), || summary::deviate(&report), Some(output))?;
    Ok(0)
}

/// `play IN OUT`: extend's steps, no window.
fn run_play(config: &Config, input: &Path, output: &Path, fresh: bool) -> Result<u8, AppError> {
    if config.window != bookminer::window::Window::NONE {
        return Err(AppError::Usage(
            "play takes no window (deviation, error, max_ply): it expands every position without a link".into(),
        ));
    }
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "play", OnInterrupt::Stop)?;
    let report = with_control(None, &shown, |control| Ok(play(book, &paths, &options, control)?))?;
    end(report.to_string(), || summary::play(&report), Some(output))?;
    Ok(0)
}

/// `fill IN OUT`: extend's steps over the whole book, the depth and the
/// time budget.
fn run_fill(config: &Config, (input, output): (&Path, &Path), fresh: bool, depth: u32) -> Result<u8, AppError> {
    if config.max_priority.is_some() {
        return Err(AppError::Usage(
            "fill takes no max_priority: --max-positions and --max-seconds are its budget".into(),
        ));
    }
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "fill", OnInterrupt::Stop)?;
    let options = FillOptions { extend: options, depth, max_seconds: config.max_seconds };
    let report = with_control(None, &shown, |control| Ok(fill(book, &paths, &options, control)?))?;
    end(report.to_string(), || summary::fill(&report), Some(output))?;
    Ok(0)
}

/// `enhance IN OUT`: extend's steps, no window, the errors and rounds.
fn run_enhance(
    config: &Config,
    (input, output): (&Path, &Path),
    fresh: bool,
    (errors, rounds): (SearchErrors, Option<u64>),
) -> Result<u8, AppError> {
    if config.window != bookminer::window::Window::NONE {
        return Err(AppError::Usage(
            "enhance takes no window (deviation, error, max_ply): the bounds say where it goes".into(),
        ));
    }
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "enhance", OnInterrupt::Stop)?;
    if book.header().edax().is_none() {
        return Err(AppError::Usage(format!(
            "{}: enhance reads an Edax book (its header holds the errors, its records the bounds); \
             this one is an Egaroucid book",
            input.display()
        )));
    }
    let options = EnhanceOptions { extend: options, errors, rounds };
    let report = with_control(None, &shown, |control| Ok(enhance(book, &paths, &options, control)?))?;
    end(report.to_string(), || summary::enhance(&report), Some(output))?;
    Ok(0)
}

/// `new OUT`: the engines greeted, the initial position's leaf searched,
/// the book written.
fn run_new(config: &Config, output: &Path, fresh: bool) -> Result<u8, AppError> {
    let engines = engine_commands(config, "new")?;
    let Some(to) = OutFormat::of_path(output) else { return Err(unnamed_format(output, "new writes", "")) };
    let paths = ExtendPaths::without_input(output, &config.out_dir)?.fresh(fresh);
    stop_on_interrupt("the journal is kept; OUT will not be written");
    let timeout = std::time::Duration::from_secs(config.engine_timeout);
    let engines = bookminer::extend::greet(&paths, &engines, timeout, cancel())?;
    inputs_are_good(config);
    let options = NewOptions {
        engines,
        engine_timeout: std::time::Duration::from_secs(config.engine_timeout),
        level: config.level.unwrap_or(bookminer::extend::add::DEFAULT_LEVEL),
        depth: config.depth.unwrap_or(bookminer::extend::new_book::DEFAULT_DEPTH),
        to,
    };
    let shown = RefCell::new(Progress::default());
    let report = with_control(None, &shown, |control| Ok(new_book(&paths, &options, control)?))?;
    end(report.to_string(), || summary::new_book(&report), Some(output))?;
    Ok(0)
}

/// `add IN GAMES... OUT`: every game file told a format by its name and
/// the engines greeted before the book is read.
fn run_add(config: &Config, input: &Path, games: &[PathBuf], output: &Path, fresh: bool) -> Result<u8, AppError> {
    let files = GameFiles::new(games)?;
    let Growing { paths, options, book, shown } =
        begin_growth_reading(config, (input, games, output), fresh, "add", OnInterrupt::Stop)?;
    let options = AddOptions {
        engines: options.engines,
        engine_timeout: options.engine_timeout,
        level: config.level,
        depth: config.depth,
    };
    let report = with_control(None, &shown, |control| Ok(add(book, &files, &paths, &options, control)?))?;
    end(report.to_string(), || summary::add(&report), Some(output))?;
    Ok(0)
}

/// `merge A B OUT`: the engines, when given, greeted before either book is read.
/// `link`: --link; `fresh`: the journal set aside.
fn run_merge(
    config: &Config,
    (a, b): (&Path, &Path),
    output: &Path,
    (link, fresh): (bool, bool),
) -> Result<u8, AppError> {
    let Some(to) = OutFormat::of_path(output) else { return Err(unnamed_format(output, "merge writes", "")) };
    let with_engines = !config.engines.is_empty();
    // Before anything is loaded: a refusal should not wait for a large book.
    let mut paths = MergePaths::new(a, b, output, &config.out_dir, with_engines)?;
    paths.engines = paths.engines.map(|p| p.fresh(fresh));
    stop_on_interrupt(if with_engines {
        "the journal is kept; OUT will not be written"
    } else {
        "nothing will be written"
    });
    let named = if with_engines { engine_commands(config, "merge")? } else { Vec::new() };
    let mut engine_options = extend_options(config);
    if let Some(engine_paths) = &paths.engines {
        engine_options.engines =
            bookminer::extend::greet(engine_paths, &named, engine_options.engine_timeout, cancel())?;
    }
    if link && to == OutFormat::Egbk3 {
        tracing::warn!("--link changes nothing in an .egbk3 book: Egaroucid links every move whose child it holds");
    }
    let shown = RefCell::new(Progress::default());
    let book_a = open_book(a, config, &mut shown.borrow_mut())?;
    let book_b = open_book(b, config, &mut shown.borrow_mut())?;
    if cancel().is_set() {
        return Err(AppError::Merge(MergeError::interrupted()));
    }
    let engines = with_engines.then_some(|scratch: &Path| bookminer::extend::process_engines(&engine_options, scratch));
    let options = MergeOptions { to, link };
    let (counts, format) = (book_a.counts(), book_a.format());
    let report = with_control_of(counts, format, "the merged book", &shown, |control| {
        Ok(merge(book_a, book_b, &paths, &options, engines, control)?)
    })?;
    end(report.to_string(), || summary::merge(&report), Some(output))?;
    Ok(0)
}

/// `check BOOK GAMES...`: every game file told a format by its name
/// before the book is read.
fn run_check(config: &Config, book: &Path, games: &[PathBuf]) -> Result<u8, AppError> {
    let games = GameFiles::new(games)?;
    let options = check_options(config);
    let mut inputs = vec![book];
    inputs.extend(games.paths().iter().map(PathBuf::as_path));
    // Before anything is loaded: a refusal should not wait for a large book.
    options.check_outputs(&inputs)?;
    stop_on_interrupt("no output file will be changed");
    let shown = RefCell::new(Progress::default());
    let book = open_book(book, config, &mut shown.borrow_mut())?;
    if cancel().is_set() {
        return Err(AppError::Check(RunError::interrupted(Left::Outputs)(Interrupted).into()));
    }
    let report = with_control(None, &shown, |control| Ok(check(book, &games, &options, control)?))?;
    end(report.to_string(), || summary::check(&report), Some(&config.out_dir))?;
    Ok(0)
}

/// How the config says `check` writes its lines.
fn check_options(config: &Config) -> CheckOptions {
    CheckOptions {
        style: line_style(config),
        formats: config.format,
        bom: config.bom,
        unique_lines: config.unique_lines,
        out_dir: config.out_dir.clone(),
    }
}

/// `output`: the lines' file, or `-` for standard output; `exit_code`:
/// status 1 when the books differ.
fn run_diff(config: &Config, old: &Path, new: &Path, output: &Path, exit_code: bool) -> Result<u8, AppError> {
    let streamed = output.as_os_str() == bookminer::diff::STDOUT;
    // Before anything is loaded: a refusal should not wait for a large book.
    if !streamed {
        diff_path(old, new, output)?;
    }
    stop_on_interrupt("nothing will be written");
    let shown = RefCell::new(Progress::default());
    let old_book = open_book(old, config, &mut shown.borrow_mut())?;
    let new_book = open_book(new, config, &mut shown.borrow_mut())?;
    if cancel().is_set() {
        return Err(AppError::Diff(Interrupted.into()));
    }
    let format = line_style(config);
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let out = match streamed {
        true => LinesOut::Stream(&mut stdout),
        false => LinesOut::File(output),
    };
    let report = with_control_of(old_book.counts(), old_book.format(), "the differences", &shown, |control| {
        diff(old_book, new_book, out, &format, control).map_err(|e| match e {
            DiffError::Run(RunError::Io { source, .. })
                if streamed && source.kind() == std::io::ErrorKind::BrokenPipe =>
            {
                AppError::StdoutClosed
            }
            e => AppError::Diff(e),
        })
    })?;
    drop(stdout);
    match streamed {
        true => end_on_stderr(report.to_string(), || summary::diff(&report)),
        false => end(report.to_string(), || summary::diff(&report), Some(output))?,
    }
    Ok(if exit_code && report.counts.lines() > 0 { EXIT_DIFFERENT } else { 0 })
}

/// How lines are written (mining's files, fix's receipt, diff's lines).
fn line_style(config: &Config) -> LineStyle {
    LineStyle { orientation: config.orientation, pass_token: config.pass_token.clone() }
}

/// Ends a run once its outputs (`written`) are in place: its summary into
/// the log file, and on standard output as `--quiet` and `--summary` say.
/// Standard output failing now (a full disk, `>/dev/full`) loses the
/// summary only: the message says so.
fn end(human: String, json: impl FnOnce() -> serde_json::Value, written: Option<&Path>) -> Result<(), AppError> {
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
fn end_on_stderr(human: String, json: impl FnOnce() -> serde_json::Value) {
    use std::io::Write;
    log_report(&human);
    if let Some(text) = summary::choose(human, json) {
        // Not eprintln!: a closed stderr must not turn a finished run into a panic.
        let _ = writeln!(std::io::stderr(), "{text}");
    }
}

/// Copies a report into the log file, one time-stamped line per line.
fn log_report(report: &str) {
    for line in report.lines() {
        tracing::info!(target: REPORT, "{line}");
    }
}

fn run_inspect(
    config: &Config,
    book: Option<&Path>,
    positions: &[String],
    file: Option<&Path>,
    svg: Option<&Path>,
) -> Result<u8, AppError> {
    let book_path = book_of(book, config)?;
    let positions_file = file.or(config.positions_file.as_deref()).filter(|_| positions.is_empty());
    let requests = if positions.is_empty() {
        let path = positions_file.ok_or(AppError::NoPositions)?;
        let bytes = bookminer::files::input::read_bounded(path, POSITIONS_LIMIT)
            .map_err(|source| AppError::Io { path: path.to_path_buf(), source })?;
        Request::from_file(path, &bytes)
    } else {
        positions.iter().enumerate().map(|(i, text)| Ok(Request::argument(i + 1, text))).collect()
    };
    let book = open_book(book_path, config, &mut Progress::default())?;
    let rules = Rules { min_gap: config.min_gap, linkless: config.mode1_linkless };
    let outcomes = inspect(&book, &rules, &requests);
    if let Some(svg) = svg {
        let inputs: Vec<&Path> = [Some(book_path), positions_file].into_iter().flatten().collect();
        draw_positions(&book, &rules, &outcomes, svg, &inputs)?;
    }
    let json = summary::ending().summary == SummaryFormat::Json;
    // With --summary json every position read is gathered into one object,
    // those the book lacks too.
    let mut gathered = Vec::new();
    for outcome in &outcomes {
        match outcome {
            Ok(report) if json => {
                log_report(&report.to_string());
                gathered.push(report);
            }
            Ok(report) => {
                let text = report.to_string();
                say!("{text}")?;
                log_report(&text);
            }
            Err(error) => {
                tracing::error!("{error}");
                if let InspectError::NotInBook { report, .. } = error {
                    gathered.push(report);
                }
            }
        }
    }
    let failed = outcomes.iter().filter(|outcome| outcome.is_err()).count();
    if json {
        say!("{}", summary::inspect(book.path(), &gathered, failed))?;
    }
    if failed > 0 {
        tracing::error!("{failed} of {} could not be reported", count(requests.len(), "position", "positions"));
        return Ok(EXIT_PROBLEMS);
    }
    Ok(0)
}

fn run_verify(path: &Path, config: &Config) -> Result<u8, AppError> {
    let bytes = Bytes::open(path).map_err(BookError::from)?;
    let mut shown = Progress::default();
    shown.stage(format!("verifying {}", path.display()));
    let report = verify(bytes.as_slice());
    shown.clear();
    if let Some(error) = report.not_a_book() {
        // Nothing to verify: bad input (status 2), not a book with problems (1).
        return Err(AppError::Book(BookError::Format { path: path.to_path_buf(), error: error.clone() }));
    }
    inputs_are_good(config);
    let json = summary::ending().summary == SummaryFormat::Json;
    let listed = report.problems.len() + report.merged.len();
    if !json && listed > 0 {
        say!("{}", report.listing(path))?;
    }
    if json {
        say!("{}", summary::verify(path, &report))?;
    }
    if report.is_clean() {
        if summary::shows_human() {
            say!("{}", report.verdict(path))?;
        }
        Ok(0)
    } else {
        tracing::error!("{}", report.verdict(path));
        Ok(EXIT_PROBLEMS)
    }
}

/// The explorer (docs/pictures.md): the book opened, then served until
/// Ctrl-C (status 0); Ctrl-C during the load serves nothing (status 130).
fn run_serve(book_path: &Path, config: &Config, address: std::net::SocketAddr) -> Result<u8, AppError> {
    stop_on_interrupt("the server stops");
    let rules = Rules { min_gap: config.min_gap, linkless: config.mode1_linkless };
    let book = open_book(book_path, config, &mut Progress::default())?;
    if cancel().is_set() {
        return Ok(EXIT_INTERRUPTED);
    }
    crate::serve::run(&book, &rules, address, cancel())
        .map_err(|source| AppError::Io { path: book_path.to_path_buf(), source })
}

/// Writes the picture of each position reported (docs/pictures.md): the
/// file named for one position, else the name's stem with the position's
/// number among those asked (`pos.svg`: `pos-1.svg`, `pos-2.svg`). A
/// malformed position has no picture; one the book lacks is drawn bare.
fn draw_positions(
    book: &Book,
    rules: &Rules,
    outcomes: &[Outcome],
    svg: &Path,
    inputs: &[&Path],
) -> Result<(), AppError> {
    for (i, outcome) in outcomes.iter().enumerate() {
        let report = match outcome {
            Ok(report) => report,
            Err(InspectError::NotInBook { report, .. }) => report,
            Err(_) => continue,
        };
        let path = picture_name(svg, i + 1, outcomes.len());
        let found = mismatches::at_position(book, rules, report);
        write_view(inputs, &path, Picture { report, mismatches: &found }.to_string().as_bytes())?;
    }
    Ok(())
}

/// The picture of the `number`th of `of` positions: `svg` itself for one.
fn picture_name(svg: &Path, number: usize, of: usize) -> PathBuf {
    if of == 1 {
        return svg.to_path_buf();
    }
    let stem = svg.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let extension = svg.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    svg.with_file_name(format!("{stem}-{number}{extension}"))
}

/// Writes a picture or chart whole (or not at all), never over a file the
/// command reads (the book, the positions file), by any path.
fn write_view(inputs: &[&Path], path: &Path, bytes: &[u8]) -> Result<(), AppError> {
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

/// Where `stats` draws its charts, if anywhere.
struct Charts<'a> {
    svg: Option<&'a Path>,
    html: Option<&'a Path>,
}

fn run_stats(path: &Path, config: &Config, charts: Charts<'_>) -> Result<u8, AppError> {
    let book = open_book(path, config, &mut Progress::default())?;
    let ending = summary::ending();
    if !ending.quiet && ending.summary == SummaryFormat::Human {
        say!("{}", Heading { path, book: &book, egbk_level: config.egbk_level })?;
    }
    let mut shown = Progress::default();
    shown.stage("counting what the records hold".to_string());
    let stats = book_stats(&book);
    shown.clear();
    let drawn = bookminer::charts::Charts { name: &path.display().to_string(), stats: &stats };
    if let Some(svg) = charts.svg {
        write_view(&[path], svg, drawn.to_string().as_bytes())?;
    }
    if let Some(html) = charts.html {
        write_view(&[path], html, drawn.html().as_bytes())?;
    }
    let problems = verify_file(&book)?.problems.len();
    end(stats.to_string().trim_end().to_string(), || summary::stats(path, &book, &stats, problems), None)?;
    // Counts of a damaged book are no answer on their own: say so, and fail.
    if problems > 0 {
        tracing::error!("{}: {problems} problem(s) found; `bookminer verify` lists them", path.display());
        return Ok(EXIT_PROBLEMS);
    }
    Ok(0)
}

/// [`verify`] of the file a book was read from. An older Egaroucid book is
/// read into another layout, so its file is read again.
fn verify_file(book: &Book) -> Result<VerifyReport, AppError> {
    match book.format().is_translated() {
        false => Ok(verify(book.file().bytes())),
        true => Ok(verify(Bytes::open(book.path()).map_err(BookError::from)?.as_slice())),
    }
}

/// The format `synth` writes: the one asked for, else the one OUT's name
/// says (`.dat`, `.egbk3`, `.egbk2`, `.egbk`). A name that says another
/// format than the one asked for is refused, as the other writers refuse
/// it, and so is a name that says none without --book-format, as `convert`
/// refuses one without --to.
fn synth_format(path: &Path, asked: Option<Format>) -> Result<Format, AppError> {
    let named = Format::named_by(path);
    match (asked, named) {
        (Some(written), Some(named)) if written != named => {
            Err(AppError::OutName { output: path.to_path_buf(), named, written, command: "synth --book-format" })
        }
        (Some(format), _) | (None, Some(format)) => Ok(format),
        (None, None) => Err(AppError::Usage(format!(
            "{}: cannot tell the format to write from the name; synth writes Edax books (.dat) and Egaroucid's (.egbk3, .egbk2, .egbk): name OUT so, or give --book-format edax|egbk3|egbk2|egbk",
            path.display()
        ))),
    }
}

fn run_synth(config: &Config, asked: Option<Format>, options: &SynthOptions, path: &Path) -> Result<u8, AppError> {
    let began = Instant::now();
    let format = synth_format(path, asked)?;
    let io = |source| AppError::Io { path: path.to_path_buf(), source };
    let folder = folder_of(path);
    ensure_dir(folder).map_err(io)?;
    stop_on_interrupt("nothing will be written");
    let mut file = AtomicFile::create_named(path).map_err(io)?;
    inputs_are_good(config);
    let shown = RefCell::new(Progress::default());
    let report = with_control(None, &shown, |control| {
        synthesize_in(format, options, &mut file, folder, control).map_err(|e| match e {
            SynthError::Write(source) => io(source),
            SynthError::Spill(source) => {
                AppError::Scratch { output: path.to_path_buf(), dir: folder.to_path_buf(), source }
            }
            other => AppError::Synth(other),
        })
    })?;
    file.commit().map_err(io)?;
    let elapsed = began.elapsed();
    let human = report.written(path, elapsed).to_string();
    end(human, || summary::synth(path, &report, elapsed), Some(path))?;
    Ok(0)
}
