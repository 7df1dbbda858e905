//! Everything that stops a command ([`AppError`]), and the exit status each
//! failure maps to, in one exhaustive match.

use crate::config::ConfigError;
use bookminer::book::{BookError, Format};
use bookminer::check::CheckError;
use bookminer::convert::ConvertError;
use bookminer::diff::DiffError;
use bookminer::failure::{io_kind, ErrorKind};
use bookminer::fix::FixError;
use bookminer::games::GamesError;
use bookminer::growth::GrowthError;
use bookminer::merge::MergeError;
use bookminer::mine::MineError;
use bookminer::synth::SynthError;
use std::path::PathBuf;

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
    Extend(#[from] GrowthError),
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
    /// The book to read does not exist, and the file named to be written
    /// is a book: the arguments swapped.
    #[error("{}: no such file, and {}, the book to be written, is {holds}: the arguments are swapped; the book read comes first, then the book written", input.display(), output.display())]
    SwappedOut { input: PathBuf, output: PathBuf, holds: bookminer::files::existing::Holds },
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
            | AppError::SwappedOut { .. }
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
