//! `inspect` (mode 5): everything the book knows about positions, as text
//! or one JSON object; its JSON is also what the explorer's
//! `/api/inspect` gives (src/serve/).

use crate::app::{
    book_of, check_views, is_book, log_report, open_book, say, write_view, AppError, Files, Run, EXIT_PROBLEMS,
};
use crate::config::{BookKeys, Config, LogKeys, ReadKeys, Settings};
use crate::progress::Progress;
use crate::summary::{self, text, SummaryFormat};
use bookminer::book::{Book, Details};
use bookminer::inspect::line::JudgedAt;
use bookminer::inspect::picture::Picture;
use bookminer::inspect::report::{Found, Report, Turned};
use bookminer::inspect::{inspect, mismatches, InspectError, Outcome, Request};
use bookminer::mine::modes::Rules;
use bookminer::output::text::push_board;
use bookminer::position::Colour;
use bookminer::symmetry::Symmetry;
use bookminer::wording::count;
use clap::Args;
use serde_json::{json, Value};
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
        let book = named.or_else(|| config.book.clone());
        Files {
            read: book.into_iter().chain(self.file.clone()).chain(config.positions_file.clone()).collect(),
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
        say!("{}", json(book.path(), &gathered, failed))?;
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

/// `inspect`: the book, each position read as fields (those the book does
/// not hold too, `"in_book":false`), and how many positions could not be
/// reported in full, malformed or not in the book (their errors go to
/// stderr).
pub fn json(book: &Path, reports: &[&Report], failed: usize) -> Value {
    json!({
        "command": "inspect",
        "book": text(book),
        "reports": reports.iter().map(|r| report_json(r)).collect::<Vec<_>>(),
        "failed": failed,
    })
}

/// One position inspect reports, in the fields its text gives: where it
/// was written, the mode that judged it, the board and side, then the
/// record (each `null` when the book does not hold it, or its format does
/// not store that field), its links and leaf with their scores.
pub fn report_json(report: &Report) -> Value {
    let black_to_move = report.position.to_move != Some(Colour::White);
    let mut board = String::with_capacity(64);
    push_board(&report.position.board, black_to_move, Symmetry::IDENTITY, &mut board);
    let side = report.position.to_move.map(|c| if c == Colour::Black { "X" } else { "O" });
    let judged = report.judged.map(|judged| match judged.at {
        JudgedAt::End => json!({"mode": judged.mode.number(), "at": "line_end", "last_move": null}),
        JudgedAt::BeforeLastMove(mv) => {
            json!({"mode": judged.mode.number(), "at": "before_last_move", "last_move": mv.to_string()})
        }
    });
    let mut fields = json!({
        "origin": report.origin,
        "text": report.text,
        "judged": judged,
        "line": report.kifu(),
        "board": board,
        "side": side,
        "empties": report.position.board.empties(),
        "in_book": report.found.is_some(),
    });
    let record = report.found.as_ref().map_or_else(no_record, found_fields);
    if let (Some(fields), Value::Object(record)) = (fields.as_object_mut(), record) {
        fields.extend(record);
    }
    fields
}

/// A record's fields in an inspect report (see [`report_json`]).
fn found_fields(found: &Found) -> Value {
    let record = &found.record;
    let (bounds, counts, leaf_level, lines) = match (record.details, found.leafless_format) {
        (Details::Edax { counts: [w, d, l, lines], lower, upper }, _) => {
            (Some((lower.discs(), upper.discs())), Some((w, d, l)), None, Some(lines))
        }
        (Details::Egaroucid { .. }, Some(_)) => (None, None, None, None),
        (Details::Egaroucid { n_lines, leaf_level, .. }, None) => (None, None, Some(leaf_level), Some(n_lines)),
    };
    let scored = |t: Turned| {
        json!({"move": t.actual.to_string(), "stored": t.stored.mv.to_string(), "score": t.stored.score.discs(),
               "then_pass": t.stored.then_pass})
    };
    let stored = record.board();
    json!({
        "record": found.place.number,
        "offset": found.place.offset,
        "stored_player": format!("{:#018x}", stored.player),
        "stored_opponent": format!("{:#018x}", stored.opponent),
        "symmetry": found.symmetry.index(),
        "value": record.value().discs(),
        "lower": bounds.map(|b| b.0),
        "upper": bounds.map(|b| b.1),
        "level": record.level,
        "leaf_level": leaf_level,
        "wins": counts.map(|c| c.0),
        "draws": counts.map(|c| c.1),
        "losses": counts.map(|c| c.2),
        "lines": lines,
        "links": found.links().map(scored).collect::<Vec<_>>(),
        "leaf": found.leaf().map(scored),
    })
}

/// The record's fields of an inspect report for a position the book does
/// not hold: each `null`, no link.
fn no_record() -> Value {
    json!({
        "record": null, "offset": null, "stored_player": null, "stored_opponent": null, "symmetry": null,
        "value": null, "lower": null, "upper": null, "level": null, "leaf_level": null,
        "wins": null, "draws": null, "losses": null, "lines": null, "links": [], "leaf": null,
    })
}
