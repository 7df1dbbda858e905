//! `add`: games' positions added to a book, as Edax's `book add` does.

use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::{begin_growth_reading, Growing, OnInterrupt};
use crate::app::run::{Files, Run};
use crate::config::{
    Config, DeepenKeys, EngineKeys, GamesKeys, LineKeys, LogKeys, ProgressKeys, ReadKeys, Settings, WriteKeys,
};
use crate::summary::{engines, joined, searches, secs, text};
use bookminer::games::GameFiles;
use bookminer::growth::policies::add::{self, AddOptions, Added};
use bookminer::growth::{Engines, GrowthReport};
use clap::Args;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Add games' positions to a book, as Edax's `book add` does.
///
/// Reads IN and the game files, each told by its extension (as
/// `check` reads them: .wtb, .ggf, .pgn, .sgf, .txt, .jsonl), and
/// plays each game, in order, for at most 60 - n_empties moves (an Edax book's header;
/// for an Egaroucid book, --depth plies, default 60), a pass where the
/// side to move has none. Then, last position first, each position
/// with at least n_empties - 1 empty squares is added: one the book
/// has gets a link for each move whose child the book has, and its
/// best move not linked searched if it has none; a new one gets the
/// book's level (an Egaroucid book: its initial position's record's
/// level, 21 if it has none, unless --level says otherwise, named
/// before the first search), its links, and its best move not linked searched by the
/// engine. OUT, in IN's format,
/// holds IN's records, then the new ones in the order added,
/// negamaxed as `fix` does. A game from another start is skipped; a
/// move that is not legal ends its game there.
///
/// The engines, the journal ({out_dir}/extend.jsonl, which a run
/// killed and started again takes its answers from), the greeting and
/// the exit statuses are extend's.
#[derive(Args, Debug)]
#[command(mut_arg("level", |arg| arg.help(
    "An Egaroucid book's level for the positions added (default: its initial position's record's) [config: level]"
)))]
pub struct Add {
    /// The book to read.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The game files, read in this order.
    #[arg(value_name = "GAMES", required = true, num_args = 1..)]
    games: Vec<PathBuf>,
    /// The book to write (whole or not at all; an existing one only with --force).
    #[arg(value_name = "OUT", required = true)]
    output: PathBuf,
    /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
    /// deleted) and search everything anew, as after a change of engine
    #[arg(long)]
    fresh: bool,
    #[command(flatten)]
    level: DeepenKeys,
    #[command(flatten)]
    games_keys: GamesKeys,
    #[command(flatten)]
    engines: EngineKeys,
    #[command(flatten)]
    line: LineKeys,
    #[command(flatten)]
    read: ReadKeys,
    #[command(flatten)]
    log: LogKeys,
    #[command(flatten)]
    progress: ProgressKeys,
    #[command(flatten)]
    write: WriteKeys,
}

impl Run for Add {
    fn settings(&self) -> Settings {
        Settings {
            deepen: self.level.clone(),
            games: self.games_keys.clone(),
            engines: self.engines.clone(),
            line: self.line.clone(),
            read: self.read.clone(),
            log: self.log.clone(),
            progress: self.progress.clone(),
            write: self.write.clone(),
            ..Settings::default()
        }
    }

    fn files(&self, config: &Config) -> Files {
        let mut files = Files::growth(&self.input, &self.output, config);
        files.read.extend(self.games.iter().cloned());
        files
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_add(config, &self.input, &self.games, &self.output, self.fresh)
    }

    /// Refuses an `add` whose last argument, OUT, is named as a game file
    /// is (`add IN OUT GAMES`, OUT put before the games): the book would
    /// be written over a game file, or under a game file's name.
    fn refuse(&self) -> Result<(), AppError> {
        crate::app::refusals::refuse_swapped("add", &self.input, &self.games, "bookminer add IN GAMES... OUT")?;
        match bookminer::games::GameFormat::of_path(&self.output) {
            Some(format) => Err(AppError::Usage(format!(
                "{}: add's last argument is OUT, the book it writes, and this name is a game file's (.{}); \
                 name the game files first and OUT last: bookminer add IN GAMES... OUT",
                self.output.display(),
                format.extension()
            ))),
            None => Ok(()),
        }
    }
}

/// `add IN GAMES... OUT`: every game file told a format by its name and
/// the engines greeted while the book is read.
fn run_add(config: &Config, input: &Path, games: &[PathBuf], output: &Path, fresh: bool) -> Result<u8, AppError> {
    let files = GameFiles::new(games)?;
    let Growing { paths, options, book, shown } =
        begin_growth_reading(config, (input, games, output), fresh, "add", OnInterrupt::Stop)?;
    let level = config.growth.level.or_else(|| egaroucid_level(&book));
    let options =
        AddOptions { engines: options.engines, engine_timeout: options.engine_timeout, level, depth: config.growth.depth };
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(
            add::Add { book, games: &files, options: &options },
            &paths,
            Engines::Named,
            control,
        )?)
    })?;
    // Said once: by the human summary, else as a warning.
    let ending = crate::summary::ending();
    let human = !ending.quiet && ending.summary == crate::summary::SummaryFormat::Human;
    if let Some(advice) = report.unreachable().filter(|_| !human) {
        tracing::warn!("{}: {advice}", report.output.display());
    }
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// An Egaroucid book's level, named before the first search: its
/// initial position's record's (21 when it has none); `None` for an Edax
/// book, whose header says it.
fn egaroucid_level(book: &bookminer::book::Book) -> Option<bookminer::level::Level> {
    if book.header().edax().is_some() {
        return None;
    }
    let initial = bookminer::board::Board::INITIAL;
    let held = book.find(&bookminer::symmetry::normalize(&initial).board).map(|r| r.level);
    let level = held.map_or(bookminer::growth::policies::add::DEFAULT_LEVEL, bookminer::level::Level::saturating);
    let from = if held.is_some() { "the initial position's record's" } else { "none in the book: the default" };
    let said = format!("add: new positions searched at level {} ({from}; --level to change it)", level.to_i32());
    tracing::info!("{said}");
    if !crate::summary::ending().quiet {
        eprintln!("{said}");
    }
    Some(level)
}

/// `add`'s summary as one JSON object (`--summary json`).
fn json(report: &GrowthReport<Added>) -> Value {
    joined([
        json!({
            "command": "add",
            "input": text(&report.input),
            "output": text(&report.output),
            "journal": text(&report.journal),
            "positions_loaded": report.positions_loaded,
            "games_read": report.adds.games_read,
            "games_skipped": report.adds.skipped,
            "games_cut_short": report.adds.cut_short,
            "cut_short": report.adds.cuts,
            "positions_met": report.adds.positions_met,
            "positions_added": report.added,
            "links_added": report.adds.links_added,
        }),
        searches(&report.searches),
        json!({
            "engines": engines(&report.searches.engines),
            "records_written": report.records_written,
            "reachable": report.adds.reachable,
            "elapsed_seconds": secs(report.elapsed),
        }),
    ])
}

/// A few command lines for add's manual page (`bookminer man add`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "A year of WTHOR games added as Edax's book add adds them.",
        "bookminer add book.dat WTH_2021.wtb bigger.dat --engine \"edax -n 1 -eval-file data/eval.dat\"",
    ),
    (
        "The lines mining found put back in.",
        "bookminer add book.dat out/mode1.txt again.dat --engine \"edax -n 1 -eval-file data/eval.dat\"",
    ),
];
