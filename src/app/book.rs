//! The book a command reads, named and opened, and the log file opened
//! once the inputs are good.

use crate::app::error::AppError;
use crate::config::Config;
use crate::progress::Progress;
use bookminer::book::{Book, ReadOptions};
use bookminer::wording::count;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
