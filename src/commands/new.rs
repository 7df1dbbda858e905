//! `new`: a book started from the initial position, as Edax's `book new`
//! does.

use crate::app::book::inputs_are_good;
use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::engine_commands;
use crate::app::interrupt::{cancel, stop_on_interrupt};
use crate::app::outputs::unnamed_format;
use crate::app::run::{Files, Run};
use crate::config::{Config, DeepenKeys, EngineKeys, GamesKeys, LineKeys, LogKeys, ProgressKeys, Settings, WriteKeys};
use crate::progress::Progress;
use crate::summary::{engines, joined, searches, secs, text};
use bookminer::convert::OutFormat;
use bookminer::growth::policies::new_book::{self, NewLeaf, NewOptions};
use bookminer::growth::{Engines, GrowthPaths, GrowthReport};
use clap::Args;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Start a book from the initial position, as Edax's `book new L D` does.
///
/// Writes OUT (an Edax book, or an Egaroucid one for a .egbk3 name)
/// holding one position, the initial one, at level --level, its best
/// move searched by the engine (the leaf); an Edax book's header says
/// the level and n_empties 61 - --depth, the fewest empty squares
/// `add` takes positions at and `extend` expands. Then `bookminer add`
/// puts games in, `extend` or `grow` grow it. The engine, its journal
/// ({out_dir}/extend.jsonl) and the exit statuses are extend's.
#[derive(Args, Debug)]
pub struct New {
    /// The book to write (whole or not at all; an existing one only with --force).
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
    /// deleted) and search everything anew, as after a change of engine
    #[arg(long)]
    fresh: bool,
    #[command(flatten)]
    level: DeepenKeys,
    #[command(flatten)]
    games: GamesKeys,
    #[command(flatten)]
    engines: EngineKeys,
    #[command(flatten)]
    line: LineKeys,
    #[command(flatten)]
    log: LogKeys,
    #[command(flatten)]
    progress: ProgressKeys,
    #[command(flatten)]
    write: WriteKeys,
}

impl Run for New {
    fn settings(&self) -> Settings {
        Settings {
            deepen: self.level.clone(),
            games: self.games.clone(),
            engines: self.engines.clone(),
            line: self.line.clone(),
            log: self.log.clone(),
            progress: self.progress.clone(),
            write: self.write.clone(),
            ..Settings::default()
        }
    }

    fn files(&self, config: &Config) -> Files {
        let journal = config.lines.out_dir.join(bookminer::growth::JOURNAL);
        Files {
            read: Vec::new(),
            written: vec![self.output.clone(), journal.clone()],
            named: vec![self.output.clone()],
            own_journal: Some(journal),
        }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_new(config, &self.output, self.fresh)
    }
}

/// `new OUT`: the engines greeted, the initial position's leaf searched,
/// the book written.
fn run_new(config: &Config, output: &Path, fresh: bool) -> Result<u8, AppError> {
    let engines = engine_commands(config, "new")?;
    let Some(to) = OutFormat::of_path(output) else { return Err(unnamed_format(output, "new writes", "")) };
    let paths = GrowthPaths::without_input(output, &config.lines.out_dir)?.fresh(fresh);
    stop_on_interrupt("the journal is kept; OUT will not be written");
    let timeout = std::time::Duration::from_secs(config.engines.engine_timeout);
    let engines = bookminer::growth::greet(&paths, &engines, timeout, cancel())?;
    inputs_are_good(config);
    let options = NewOptions {
        engines,
        engine_timeout: std::time::Duration::from_secs(config.engines.engine_timeout),
        level: config.growth.level.unwrap_or(bookminer::growth::policies::add::DEFAULT_LEVEL),
        depth: config.growth.depth.unwrap_or(bookminer::growth::policies::new_book::DEFAULT_DEPTH),
        to,
    };
    let shown = RefCell::new(Progress::default());
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(new_book::NewBook { options: &options }, &paths, Engines::Named, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `new`'s summary as one JSON object (`--summary json`).
fn json(report: &GrowthReport<NewLeaf>) -> Value {
    joined([
        json!({
            "command": "new",
            "output": text(&report.output),
            "journal": text(&report.journal),
            "level": report.adds.level,
            "n_empties": report.adds.n_empties,
            "leaf_move": report.adds.leaf.and_then(|leaf| leaf.mv).map(|m| m.to_string()),
            "leaf_score": bookminer::negamax::leaf_score(report.adds.leaf).discs(),
        }),
        searches(&report.searches),
        json!({
            "engines": engines(&report.searches.engines),
            "records_written": 1,
            "elapsed_seconds": secs(report.elapsed),
        }),
    ])
}

/// A few command lines for new's manual page (`bookminer man new`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[(
    "A book as Edax's book new 18 30 starts it.",
    "bookminer new book.dat --level 18 --depth 30 --engine \"edax -n 1 -eval-file data/eval.dat\"",
)];
