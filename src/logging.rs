//! Logs: short `level: message` lines on stderr, and a time-stamped log file
//! (UTF-8 with BOM). Reports (mode 5) go to the file only, since they are
//! printed on stdout already.

use bookminer::config::LogLevel;
use std::fmt;
use std::fs::File;
use std::io::Write;
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

/// `warn: message`, the way command-line tools talk.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        write!(writer, "{}: ", event.metadata().level().as_str().to_ascii_lowercase())?;
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

/// Opens the log file, creating its folder, and writes the BOM.
fn open_log(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = File::create(path)?;
    file.write_all(bookminer::output::BOM)?;
    Ok(file)
}

/// Installs the logger, with a log file if one is given. A log file that
/// cannot be opened is reported and skipped: the run itself can still succeed.
/// `quiet` keeps only warnings and errors on stderr; the file still gets `level`.
pub fn init(level: LogLevel, log_file: Option<&Path>, quiet: bool) {
    let on_stderr = if quiet { level.min(LogLevel::Warn) } else { level };
    let level = LevelFilter::from_level(level.as_tracing());
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .event_format(Plain)
        .with_filter(filter_fn(|meta| meta.target() != REPORT))
        .with_filter(LevelFilter::from_level(on_stderr.as_tracing()));
    let (file, file_error) = match log_file.map(open_log) {
        Some(Ok(file)) => (Some(file), None),
        Some(Err(e)) => (None, Some(e)),
        None => (None, None),
    };
    let file_layer = file.map(|f| {
        tracing_subscriber::fmt::layer()
            .with_writer(Mutex::new(f))
            .with_ansi(false)
            .with_target(false)
            .with_filter(level)
    });
    tracing_subscriber::registry().with(stderr).with(file_layer).init();
    if let (Some(e), Some(path)) = (file_error, log_file) {
        tracing::warn!("{}: cannot write the log file: {e}; logging to stderr only", path.display());
    }
}
