//! The book a command reads, named and opened, and the log file opened
//! once the inputs are good.

use crate::app::error::AppError;
use crate::config::Config;
use crate::progress::Progress;
use bookminer::book::{Book, BookError, ReadOptions};
use bookminer::wording::count;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Creates the log file, if one was asked for: called once the command's
/// inputs have been read and found good.
pub fn inputs_are_good(config: &Config) {
    if let Some(log) = &config.log.log_file {
        crate::logging::open_file(log);
    }
}

/// The book a command reads: the one named as its argument, else the
/// config's (`--book` or the `book` key). There is no default book.
pub fn book_of<'a>(named: Option<&'a Path>, config: &'a Config) -> Result<&'a Path, AppError> {
    named.or(config.books.book.as_deref()).ok_or(AppError::NoBook)
}

/// What mining reads: the book named (then only it), else the config's
/// book and its positions file, which mode 5 reads (`bookminer` with no
/// command runs inspect when the config says mode 5; `mine` refuses it).
pub fn book_and_positions(named: Option<&Path>, config: &Config) -> Vec<PathBuf> {
    match named {
        Some(path) => vec![path.to_path_buf()],
        None => config.books.book.iter().chain(&config.mine.positions_file).cloned().collect(),
    }
}

/// How the config says books are read.
pub fn read_options(config: &Config) -> ReadOptions {
    ReadOptions { egbk_level: config.books.egbk_level }
}

/// Loads a book, a spinner turning meanwhile on a terminal.
pub fn open_book(path: &Path, config: &Config, shown: &mut Progress) -> Result<Book, AppError> {
    let options = read_options(config);
    shown_loading(path, config, shown, || timed_open(path, &options))
}

/// A book loading on a thread of its own while the run does something
/// else first (greets its engines): [`PendingBook::wait`] has it.
/// Dropped unwaited (the run stopped first), the thread is left to end
/// with the process, its book unused.
pub struct PendingBook {
    path: PathBuf,
    /// None: no thread could be started; the book is loaded when waited for.
    loading: Option<JoinHandle<(Result<Book, BookError>, Duration)>>,
}

/// Starts loading the book at `path`, as the config says books are read,
/// on a thread of its own.
pub fn load_beside(path: &Path, config: &Config) -> PendingBook {
    let (owned, options) = (path.to_path_buf(), read_options(config));
    let loading = std::thread::Builder::new().name("load".to_string()).spawn(move || timed_open(&owned, &options));
    PendingBook { path: path.to_path_buf(), loading: loading.ok() }
}

impl PendingBook {
    /// The book, once loaded (a spinner turning meanwhile on a terminal),
    /// as [`open_book`] gives it.
    pub fn wait(self, config: &Config, shown: &mut Progress) -> Result<Book, AppError> {
        let Some(loading) = self.loading else { return open_book(&self.path, config, shown) };
        let join = || loading.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        shown_loading(&self.path, config, shown, join)
    }
}

/// The book at `path` read with `options`, and how long that took.
fn timed_open(path: &Path, options: &ReadOptions) -> (Result<Book, BookError>, Duration) {
    let began = Instant::now();
    (Book::open(path, options), began.elapsed())
}

/// The book at `path` that `load` gives, a spinner turning meanwhile:
/// its error, or the book, its size logged with the time its own load took
/// (the log file opened once its inputs are found good).
fn shown_loading(
    path: &Path,
    config: &Config,
    shown: &mut Progress,
    load: impl FnOnce() -> (Result<Book, BookError>, Duration),
) -> Result<Book, AppError> {
    shown.stage(format!("loading {}", path.display()));
    let (book, took) = load();
    shown.clear();
    let book = book?;
    inputs_are_good(config);
    tracing::info!(
        "{}: {} loaded in {:.3} s (index {} MB)",
        path.display(),
        count(book.counts().positions, "position", "positions"),
        took.as_secs_f64(),
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
