//! `verify`: every record of a book checked, every problem listed.

use crate::app::book::{book_of, inputs_are_good};
use crate::app::ending::say;
use crate::app::error::{AppError, EXIT_PROBLEMS};
use crate::app::run::{Files, Run};
use crate::config::{BookKeys, Config, LogKeys, ReadKeys, Settings};
use crate::progress::Progress;
use crate::summary::{self, text, SummaryFormat};
use bookminer::book::verify::{verify, VerifyReport};
use bookminer::book::{BookError, Bytes};
use clap::Args;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Check every record of a book and list every problem; exit 1 if any,
/// 2 if the file is not a book at all.
#[derive(Args, Debug)]
pub struct Verify {
    /// The book file; default: --book, or the config's book.
    #[arg(value_name = "BOOK")]
    path: Option<PathBuf>,
    #[command(flatten)]
    book: BookKeys,
    #[command(flatten)]
    read: ReadKeys,
    #[command(flatten)]
    log: LogKeys,
}

impl Run for Verify {
    fn settings(&self) -> Settings {
        Settings { book: self.book.clone(), read: self.read.clone(), log: self.log.clone(), ..Settings::default() }
    }

    fn files(&self, config: &Config) -> Files {
        // The book alone: a positions file is inspect's.
        let read = book_of(self.path.as_deref(), config).map(Path::to_path_buf).into_iter().collect();
        Files { read, ..Files::default() }
    }

    /// The book named, else the one mining would read.
    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_verify(book_of(self.path.as_deref(), config)?, config)
    }
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
    let as_json = summary::ending().summary == SummaryFormat::Json;
    let listed = report.problems.len() + report.merged.len();
    if !as_json && listed > 0 {
        say!("{}", report.listing(path))?;
    }
    if as_json {
        say!("{}", json(path, &report))?;
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

/// `verify`: the book, its records, and each problem and merged pair as
/// the human output words it.
fn json(path: &Path, report: &VerifyReport) -> Value {
    let words = |items: &mut dyn Iterator<Item = String>| items.collect::<Vec<_>>();
    json!({
        "command": "verify",
        "book": text(path),
        "records": report.records,
        "problems": words(&mut report.problems.iter().map(|p| p.to_string())),
        "merged": words(&mut report.merged.iter().map(|p| p.to_string())),
    })
}

/// A few command lines for verify's manual page (`bookminer man verify`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[("Every problem of every record.", "bookminer verify book.dat")];
