//! `inspect` (mode 5): everything the book knows about positions, as text
//! or one JSON object; its JSON is also what the explorer's
//! `/api/inspect` gives (src/serve/).

use crate::app::book::{book_of, open_book};
use crate::app::ending::{log_report, say};
use crate::app::error::{AppError, EXIT_PROBLEMS};
use crate::app::outputs::{check_views, write_view};
use crate::app::refusals::is_book;
use crate::app::run::{Files, Run};
use crate::config::{BookKeys, Config, LogKeys, ReadKeys, Settings};
use crate::progress::Progress;
use crate::summary::{self, SummaryFormat};
use bookminer::book::Book;
use bookminer::inspect::picture::Picture;
use bookminer::inspect::{inspect, mismatches, InspectError, Outcome, Request};
use bookminer::rules::modes::Rules;
use bookminer::wording::count;
use clap::Args;
use std::path::{Path, PathBuf};

/// Print everything the book knows about positions (mode 5).
///
/// A position is two 64-bit numbers (player opponent, hex 0x… or
/// decimal), a kifu from the initial position (F5D6C3), or 64 squares
/// (X/* black, O white, -/. empty, A1..H8) and the side to move (X or O).
///
/// The lines bookminer writes read as positions too: an OBF line (the
/// board and side before its `;`), a JSON line with "board" and "side"
/// (fix.jsonl, diff.jsonl), a kifu line. A line of a mode's file
/// (modeN.txt, .jsonl, .obf) is reported at the position the mode
/// judged: for a line ending with one of its moves (mode 1's leaf), the
/// position before that move, and the report says so. A position
/// starting with `-` (an OBF board) is a position, not a flag.
///
/// The book is the argument, first or not, that names an existing file
/// that starts as a book does (Edax's or Egaroucid's magic, or an .egbk
/// name); else --book, or the config's book.
#[derive(Args, Debug)]
pub struct Inspect {
    /// [BOOK] and the positions to inspect, in any order; no positions: read the file.
    #[arg(value_name = "[BOOK] POSITION")]
    positions: Vec<String>,
    /// File with one position per line [config: positions_file]
    #[arg(short, long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Also draw each position as SVG into FILE: one position, FILE
    /// itself; several, FILE's stem, `-` and the position's number
    /// among those asked (pos.svg: pos-1.svg, pos-2.svg...). A file
    /// there is replaced; the book never is.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    #[command(flatten)]
    book: BookKeys,
    #[command(flatten)]
    read: ReadKeys,
    #[command(flatten)]
    log: LogKeys,
}

impl Inspect {
    /// The pictures' names, as many as the positions given as arguments
    /// (the book among them left out); the name given alone otherwise.
    fn pictures(&self) -> Vec<PathBuf> {
        let Some(svg) = &self.svg else { return Vec::new() };
        let book = usize::from(book_among(&self.positions).ok().flatten().is_some());
        let asked = self.positions.len().saturating_sub(book).max(1);
        (1..=asked).map(|i| picture_name(svg, i, asked)).collect()
    }
}

impl Run for Inspect {
    fn settings(&self) -> Settings {
        Settings { book: self.book.clone(), read: self.read.clone(), log: self.log.clone(), ..Settings::default() }
    }

    fn files(&self, config: &Config) -> Files {
        let named = book_among(&self.positions).ok().flatten().map(|(_, book)| book.to_path_buf());
        let book = named.or_else(|| config.books.book.clone());
        Files {
            read: book.into_iter().chain(self.file.clone()).chain(config.mine.positions_file.clone()).collect(),
            // The pictures, each name that will be written when the
            // positions are arguments: never drawn over the config, the
            // log or a journal (a positions file's are checked once read).
            written: self.pictures(),
            ..Files::default()
        }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        let (file, svg) = (self.file.as_deref(), self.svg.as_deref());
        match book_among(&self.positions)? {
            Some((at, book)) => {
                let others: Vec<String> =
                    self.positions.iter().enumerate().filter(|&(i, _)| i != at).map(|(_, p)| p.clone()).collect();
                run_inspect(config, Some(book), &others, file, svg)
            }
            None => run_inspect(config, None, &self.positions, file, svg),
        }
    }

    fn written_as(&mut self, handed: &[(String, String)]) {
        for position in &mut self.positions {
            if let Some((_, written)) = handed.iter().find(|(dotted, _)| dotted == position) {
                *position = written.clone();
            }
        }
    }
}

/// Inspects `positions` (none: the positions file) in `book` (none: the
/// config's); with --svg, draws each.
pub fn run_inspect(
    config: &Config,
    book: Option<&Path>,
    positions: &[String],
    file: Option<&Path>,
    svg: Option<&Path>,
) -> Result<u8, AppError> {
    let book_path = book_of(book, config)?;
    let positions_file = file.or(config.mine.positions_file.as_deref()).filter(|_| positions.is_empty());
    let requests = if positions.is_empty() {
        let path = positions_file.ok_or(AppError::NoPositions)?;
        let bytes = bookminer::files::input::read_bounded(path, POSITIONS_LIMIT)
            .map_err(|source| AppError::Io { path: path.to_path_buf(), source })?;
        Request::from_file(path, &bytes)
    } else {
        positions.iter().enumerate().map(|(i, text)| Ok(Request::argument(i + 1, text))).collect()
    };
    let book = open_book(book_path, config, &mut Progress::default())?;
    let rules = Rules { min_gap: config.mine.min_gap, linkless: config.mine.mode1_linkless };
    let outcomes = inspect(&book, &rules, &requests);
    if let Some(svg) = svg {
        let inputs: Vec<&Path> = [Some(book_path), positions_file].into_iter().flatten().collect();
        draw_positions(&book, &rules, &outcomes, svg, &inputs, config)?;
    }
    let as_json = summary::ending().summary == SummaryFormat::Json;
    // With --summary json every position read is gathered into one object,
    // those the book lacks too.
    let mut gathered = Vec::new();
    for outcome in &outcomes {
        match outcome {
            Ok(report) if as_json => {
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
    if as_json {
        say!("{}", bookminer::inspect::json::document(book.path(), &gathered, failed))?;
    }
    if failed > 0 {
        tracing::error!("{failed} of {} could not be reported", count(requests.len(), "position", "positions"));
        return Ok(EXIT_PROBLEMS);
    }
    Ok(0)
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
    config: &Config,
) -> Result<(), AppError> {
    let names: Vec<PathBuf> = (1..=outcomes.len()).map(|i| picture_name(svg, i, outcomes.len())).collect();
    check_views(&names, inputs, config)?;
    for (i, outcome) in outcomes.iter().enumerate() {
        let report = match outcome {
            Ok(report) => report,
            Err(InspectError::NotInBook { report, .. }) => report,
            Err(_) => continue,
        };
        let found = mismatches::at_position(book, rules, report);
        write_view(inputs, &names[i], Picture { report, mismatches: &found }.to_string().as_bytes())?;
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

/// The largest positions file read (mode 5): a few million positions, each
/// of which gets a report of a few hundred bytes.
const POSITIONS_LIMIT: u64 = 256 << 20;

/// The command line's arguments, a board written as `inspect` takes it
/// (OBF's 64 squares and the side to move) after `inspect` with its
/// leading `-` written `.` (the same empty squares), since clap would take
/// it for a flag; and each such argument as dotted and as written, to be
/// given back once parsed. No flag is 65 squares long.
pub fn boards_dotted(
    args: impl Iterator<Item = std::ffi::OsString>,
) -> (Vec<std::ffi::OsString>, Vec<(String, String)>) {
    let mut given = Vec::new();
    let mut after_inspect = false;
    let mut after_dashes = false;
    let args = args
        .map(|arg| {
            let text = arg.to_str().unwrap_or_default();
            after_dashes |= after_inspect && text == "--";
            if after_inspect && !after_dashes && text.starts_with('-') && bookminer::position::is_board(text) {
                let dotted = format!(
                    "{}{}",
                    ".".repeat(text.len() - text.trim_start_matches('-').len()),
                    text.trim_start_matches('-')
                );
                given.push((dotted.clone(), text.to_string()));
                return dotted.into();
            }
            after_inspect |= text == "inspect";
            arg
        })
        .collect();
    (args, given)
}

/// A few command lines for inspect's manual page (`bookminer man inspect`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "What the book knows of a line and of a board.",
        "bookminer inspect book.dat F5F6 \"0x0000000810000000 0x0000001008000000\"",
    ),
    ("Two positions drawn: pos-1.svg and pos-2.svg.", "bookminer inspect book.dat F5F6E6F4 F5D6C3 --svg pos.svg"),
];
