//! `check`: a book measured against games, as Edax's `book check` does.

use crate::app::book::open_book;
use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::interrupt::{cancel, stop_on_interrupt};
use crate::app::options::line_style;
use crate::app::run::{Files, Run};
use crate::config::{Config, LineKeys, LogKeys, ProgressKeys, ReadKeys, Settings, WrittenKeys};
use crate::progress::Progress;
use crate::summary::{secs, text};
use bookminer::check::{check, CheckOptions, CheckReport};
use bookminer::games::GameFiles;
use bookminer::run::{Interrupted, Left, RunError};
use clap::Args;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Measure a book against games, as Edax's `book check` does.
///
/// Reads BOOK (Edax .dat, Egaroucid .egbk3, .egbk2 or .egbk) and the
/// game files, each told by its extension: .wtb (WTHOR), .ggf (GGF),
/// .pgn (PGN), .sgf (SGF, each variation a game), .txt (one game a
/// line, a byte-order mark allowed, # comments), .jsonl
/// (lines bookminer wrote, each line's kifu a game); a name of another
/// format is refused (status 2) before anything is read. Each game is
/// played from the initial position for at most 61 - n_empties moves
/// (an Edax book's header; for an Egaroucid book the fewest empty
/// squares of a record, as Edax checks the book `convert` makes of
/// it); then,
/// last move first, each position and move played not met before in
/// the run is judged: good when the book scores the move (a link, or
/// the leaf) as its best, bad when below it, missing when the book has
/// not the position (not counted when the book has no score for the
/// move). A game from another start is skipped; a move that is not
/// legal ends its game there (the first few are named). Prints Edax's
/// line, "Positions : M missing, G good, B bad (P% bad)", with the
/// games read, skipped and cut short (--summary json: missing, good,
/// bad, bad_percent, ...).
///
/// Writes {out_dir}/check-bad.txt (each game line up to and including
/// a bad move) and {out_dir}/check-missing.txt (each line up to the
/// first position the book has not), .jsonl (with the move's score and
/// the best) and .obf too with --format, a line written once, as
/// mining writes its lines: the files one set, complete or not at all,
/// replacing the previous set in out_dir (manifest.json). Exit status
/// 2 for a game file or book that is damaged or of no format read, 3 if
/// a file cannot be read or written, 130 if interrupted (no file
/// changed).
#[derive(Args, Debug)]
pub struct Check {
    /// The book to measure.
    #[arg(value_name = "BOOK")]
    book: PathBuf,
    /// The game files, read in this order.
    #[arg(value_name = "GAMES", required = true)]
    games: Vec<PathBuf>,
    #[command(flatten)]
    written: WrittenKeys,
    #[command(flatten)]
    line: LineKeys,
    #[command(flatten)]
    read: ReadKeys,
    #[command(flatten)]
    log: LogKeys,
    #[command(flatten)]
    progress: ProgressKeys,
}

impl Run for Check {
    fn refuse(&self) -> Result<(), AppError> {
        crate::app::refusals::refuse_swapped("check", &self.book, &self.games, "bookminer check BOOK GAMES...")
    }

    fn settings(&self) -> Settings {
        Settings {
            written: self.written.clone(),
            line: self.line.clone(),
            read: self.read.clone(),
            log: self.log.clone(),
            progress: self.progress.clone(),
            ..Settings::default()
        }
    }

    fn files(&self, config: &Config) -> Files {
        Files {
            read: [&self.book].into_iter().chain(&self.games).cloned().collect(),
            written: check_options(config).outputs(),
            ..Files::default()
        }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_check(config, &self.book, &self.games)
    }
}

/// `check BOOK GAMES...`: every game file told a format by its name
/// before the book is read.
fn run_check(config: &Config, book: &Path, games: &[PathBuf]) -> Result<u8, AppError> {
    let games = GameFiles::new(games)?;
    let options = check_options(config);
    let mut inputs = vec![book];
    inputs.extend(games.paths().iter().map(PathBuf::as_path));
    // Before anything is loaded: a refusal should not wait for a large book.
    options.check_outputs(&inputs)?;
    stop_on_interrupt("no output file will be changed");
    let shown = RefCell::new(Progress::default());
    let book = open_book(book, config, &mut shown.borrow_mut())?;
    if cancel().is_set() {
        return Err(AppError::Check(RunError::interrupted(Left::Outputs)(Interrupted).into()));
    }
    let report = with_control(None, &shown, |control| Ok(check(book, &games, &options, control)?))?;
    end(report.to_string(), || json(&report), Some(&config.lines.out_dir))?;
    Ok(0)
}

/// How the config says `check` writes its lines.
fn check_options(config: &Config) -> CheckOptions {
    CheckOptions {
        style: line_style(config),
        formats: config.lines.format,
        bom: config.lines.bom,
        unique_lines: config.lines.unique_lines,
        out_dir: config.lines.out_dir.clone(),
    }
}

/// `check`'s summary as one JSON object (`--summary json`).
fn json(report: &CheckReport) -> Value {
    let sets: Vec<Value> = report
        .sets
        .iter()
        .map(|set| {
            let files: Vec<Value> = set
                .files
                .iter()
                .map(|f| json!({"format": f.format.name(), "path": text(&f.path), "lines": f.lines}))
                .collect();
            json!({
                "lines": set.stem.name(),
                "lines_written": set.lines_written,
                "duplicates_dropped": set.duplicates_dropped,
                "files": files,
            })
        })
        .collect();
    let c = &report.counts;
    json!({
        "command": "check",
        "book": text(&report.book),
        "games": report.games.iter().map(|g| text(g)).collect::<Vec<_>>(),
        "n_empties": report.depth.n_empties,
        "moves_a_game": report.depth.moves(),
        "games_read": report.games_read,
        "games_skipped": report.games_skipped,
        "games_cut_short": report.games_cut_short,
        "missing": c.missing,
        "good": c.good,
        "bad": c.bad,
        "bad_percent": c.bad_percent(),
        "unscored": c.unscored,
        "sets": sets,
        "elapsed_seconds": secs(report.elapsed),
    })
}

/// A few command lines for check's manual page (`bookminer man check`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "Edax's book check counts of a year of WTHOR games; out/check-bad.txt, out/check-missing.txt.",
        "bookminer check book.dat WTH_2021.wtb",
    ),
    ("The counts alone, for a script.", "bookminer check book.dat games.ggf -q --summary json | jq .bad_percent"),
];
