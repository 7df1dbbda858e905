//! `stats`: a book's header and what its records hold, with charts.

use crate::app::book::{book_of, open_book};
use crate::app::ending::{end, say};
use crate::app::error::{AppError, EXIT_PROBLEMS};
use crate::app::outputs::{check_views, write_view};
use crate::app::run::{Files, Run};
use crate::config::{BookKeys, Config, LogKeys, ReadKeys, Settings};
use crate::progress::Progress;
use crate::summary::{self, text, SummaryFormat};
use bookminer::accuracy::count_grades;
use bookminer::board::Board;
use bookminer::book::verify::{verify, VerifyReport};
use bookminer::book::{Book, BookError, Bytes};
use bookminer::stats::{book_stats, BookStats, Heading};
use clap::Args;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Print a book's header and what its records hold.
///
/// Counts links, leaves and passes, then the positions by empty
/// squares, by value, by level and by number of links, and the leaf
/// minus the best link for positions with both (what mode 1 finds:
/// those above 0). With --summary json, the same counts as one JSON
/// object, each distribution a list of [value, positions] pairs.
#[derive(Args, Debug)]
pub struct Stats {
    /// The book file; default: --book, or the config's book.
    #[arg(value_name = "BOOK")]
    path: Option<PathBuf>,
    /// Also draw the distributions as bar charts into FILE (SVG); a
    /// file there is replaced, the book never is.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// The same charts in an HTML page, into FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Also count the accuracy grades (Egaroucid's AA..F) of every position
    /// the start position reaches over links
    #[arg(long)]
    accuracy: bool,
    /// The line to the start position of --accuracy, e.g. f5d6 (default: the initial position)
    #[arg(long, value_name = "LINE", requires = "accuracy")]
    start: Option<String>,
    #[command(flatten)]
    book: BookKeys,
    #[command(flatten)]
    read: ReadKeys,
    #[command(flatten)]
    log: LogKeys,
}

impl Run for Stats {
    fn settings(&self) -> Settings {
        Settings { book: self.book.clone(), read: self.read.clone(), log: self.log.clone(), ..Settings::default() }
    }

    fn files(&self, config: &Config) -> Files {
        // The book alone: a positions file is inspect's.
        let read = book_of(self.path.as_deref(), config).map(Path::to_path_buf).into_iter().collect();
        // The charts: never drawn over the config or the log.
        Files { read, written: self.svg.iter().chain(&self.html).cloned().collect(), ..Files::default() }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        let charts = Charts { svg: self.svg.as_deref(), html: self.html.as_deref() };
        let accuracy = match (self.accuracy, &self.start) {
            (false, _) => None,
            (true, None) => Some(Board::INITIAL),
            (true, Some(line)) => Some(
                bookminer::kifu::parse_and_play(line).map_err(|e| AppError::Usage(format!("--start {line:?}: {e}")))?.0,
            ),
        };
        run_stats(book_of(self.path.as_deref(), config)?, config, charts, accuracy)
    }
}

/// Where `stats` draws its charts, if anywhere.
struct Charts<'a> {
    svg: Option<&'a Path>,
    html: Option<&'a Path>,
}

fn run_stats(path: &Path, config: &Config, charts: Charts<'_>, accuracy: Option<Board>) -> Result<u8, AppError> {
    // Both charts checked before either is drawn (or the book read).
    let names: Vec<PathBuf> = charts.svg.iter().chain(&charts.html).map(|p| p.to_path_buf()).collect();
    check_views(&names, &[path], config)?;
    let book = open_book(path, config, &mut Progress::default())?;
    let ending = summary::ending();
    if !ending.quiet && ending.summary == SummaryFormat::Human {
        say!("{}", Heading { path, book: &book, egbk_level: config.books.egbk_level })?;
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
    let grades = match accuracy {
        Some(start) => Some(
            count_grades(&book, &start)
                .ok_or_else(|| AppError::Usage(format!("{}: --start is not in the book", path.display())))?,
        ),
        None => None,
    };
    let mut human = stats.to_string().trim_end().to_string();
    if let Some(grades) = &grades {
        let shown: Vec<String> = grades.iter().map(|(name, n)| format!("{name} {n}")).collect();
        human += &format!("\naccuracy             {}", shown.join(", "));
    }
    let json = || {
        let mut object = json(path, &book, &stats, problems);
        if let Some(grades) = &grades {
            let counts: serde_json::Map<String, Value> = grades.iter().map(|(k, n)| (k.clone(), (*n).into())).collect();
            object["accuracy"] = Value::Object(counts);
        }
        object
    };
    end(human, json, None)?;
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

/// `stats`: the book, its format and header count, the counts of
/// [`bookminer::stats::StatsJson`] in its order, and the problems `verify`
/// would list.
fn json(path: &Path, book: &Book, stats: &BookStats, problems: usize) -> Value {
    let header_count = book.header().claimed_records();
    let mut object = json!({
        "command": "stats",
        "book": text(path),
        "format": book.format().title(),
        "header_count": header_count,
    });
    let counts = serde_json::to_value(stats.to_json()).expect("counts serialize");
    if let (Some(object), Value::Object(counts)) = (object.as_object_mut(), counts) {
        object.extend(counts);
        object.insert("problems".into(), problems.into());
    }
    object
}

/// A few command lines for stats's manual page (`bookminer man stats`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("The header and what the records hold, as JSON.", "bookminer stats book.dat -q --summary json"),
    ("The distributions as bar charts, in a page of their own.", "bookminer stats book.dat --html stats.html"),
];
