//! Logs: short `level: message` lines on stderr, and a time-stamped log file
//! (UTF-8 with BOM) when one is asked for. Stderr shows warnings and errors
//! unless `-v` asks for more, as cargo and ripgrep do: what a run did
//! (`info`) is the log file's, at `log_level`. Reports (mode 5) go to the
//! file only, since they are printed on stdout already; progress lines
//! ([`crate::heartbeat`]) go to stderr only when it is not a terminal,
//! where the bar shows, and the run is not quiet.
//!
//! The log file is created only once the command's inputs have been read
//! and found good ([`open_file`]): a run that fails at once leaves no file
//! behind, and a log file that turns out to be an input is never opened for
//! writing (the command refuses it before that). Lines logged until then are
//! kept and written first.

use crate::config::LogLevel;
use crate::heartbeat::PROGRESS;
use std::fmt;
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::Mutex;
use tracing::{Event, Subscriber};
use tracing_subscriber::filter::{filter_fn, LevelFilter};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::prelude::*;
use tracing_subscriber::registry::LookupSpan;

/// Events with this target are written to the log file only.
pub const REPORT: &str = "report";

/// `warn: message`, the way command-line tools talk (`progress: …` for a
/// progress line).
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        match event.metadata().target() {
            PROGRESS => write!(writer, "progress: ")?,
            _ => write!(writer, "{}: ", event.metadata().level().as_str().to_ascii_lowercase())?,
        }
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

/// Where the log file's lines go.
enum LogFile {
    /// No log file (none asked for, or it could not be created).
    Off,
    /// Asked for, not yet created: the lines so far.
    Waiting(Vec<u8>),
    Open(File),
}

static LOG_FILE: Mutex<LogFile> = Mutex::new(LogFile::Off);

/// The log file layer's writer: each write goes where [`LOG_FILE`] says.
struct ToLogFile;

impl Write for ToLogFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut *LOG_FILE.lock().unwrap_or_else(|e| e.into_inner()) {
            LogFile::Off => {}
            LogFile::Waiting(lines) => lines.extend_from_slice(buf),
            // A log line that cannot be written must not stop the run.
            LogFile::Open(file) => drop(file.write_all(buf)),
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How much of the log standard error shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnStderr {
    /// Warnings and errors (as `log_level` lets through): the default, and
    /// `-q`'s.
    Problems,
    /// `-v` given this many times: info, debug, trace.
    Verbose(u8),
}

impl OnStderr {
    /// The least severe level stderr shows; `level` is the config's
    /// `log_level`, which `-v` overrides.
    fn level(self, level: LogLevel) -> LogLevel {
        match self {
            OnStderr::Problems => level.min(LogLevel::Warn),
            OnStderr::Verbose(1) => LogLevel::Info,
            OnStderr::Verbose(2) => LogLevel::Debug,
            OnStderr::Verbose(_) => LogLevel::Trace,
        }
    }
}

/// Installs the logger; with `file_wanted`, lines for the log file are kept
/// until [`open_file`] creates it. The file gets `level`; stderr what
/// `on_stderr` says, and progress lines unless `quiet`.
pub fn init(level: LogLevel, file_wanted: bool, on_stderr: OnStderr, quiet: bool) {
    let on_stderr = LevelFilter::from_level(on_stderr.level(level).as_tracing());
    // Progress lines where no bar is drawn, unless quiet.
    let progress_on_stderr = !quiet && !std::io::stderr().is_terminal();
    let level = LevelFilter::from_level(level.as_tracing());
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).event_format(Plain).with_filter(
        filter_fn(move |meta| match meta.target() {
            REPORT => false,
            PROGRESS => progress_on_stderr,
            _ => *meta.level() <= on_stderr,
        }),
    );
    let file_layer = file_wanted.then(|| {
        *LOG_FILE.lock().unwrap_or_else(|e| e.into_inner()) = LogFile::Waiting(Vec::new());
        tracing_subscriber::fmt::layer()
            .with_writer(|| ToLogFile)
            .with_ansi(false)
            .with_target(false)
            .with_filter(level)
    });
    tracing_subscriber::registry().with(stderr).with(file_layer).init();
}

/// Creates the log file (and its folder), writing the BOM and the lines
/// logged so far; called once the command's inputs are known good, and
/// again harmlessly. A log file that cannot be created is reported and
/// skipped: the run itself can still succeed.
pub fn open_file(path: &Path) {
    let mut state = LOG_FILE.lock().unwrap_or_else(|e| e.into_inner());
    let LogFile::Waiting(lines) = &*state else { return };
    let opened = create(path).and_then(|mut file| {
        file.write_all(bookminer::output::BOM)?;
        file.write_all(lines)?;
        Ok(file)
    });
    match opened {
        Ok(file) => *state = LogFile::Open(file),
        Err(e) => {
            *state = LogFile::Off;
            drop(state);
            tracing::warn!("{}: cannot write the log file: {e}; logging to stderr only", path.display());
        }
    }
}

/// Opens the log file for writing, creating its folder. A device or a pipe
/// (`/dev/null`, `/dev/stderr`, a FIFO a program reads) is written to, not
/// replaced.
fn create(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    File::create(path)
}
