//! How a run ends: its summary logged and printed, pages and lines on
//! standard output (a closed one no failure), words on standard error.

use crate::app::error::{AppError, EXIT_IO};
use crate::logging::REPORT;
use crate::summary;
use std::path::{Path, PathBuf};

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

/// Says `text` on standard error (a closed one is no failure) and gives
/// `status`.
pub fn said(text: &str, status: u8) -> u8 {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{text}");
    status
}

/// Writes one line to standard output, turning a closed pipe into
/// [`AppError::StdoutClosed`] instead of a panic.
macro_rules! say {
    ($($arg:tt)*) => { crate::app::ending::write_stdout(format_args!($($arg)*)) };
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
