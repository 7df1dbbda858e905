//! `deviate`: Grow every line near the best, as Edax's `book deviate` does.

use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::{begin_growth, Growing, OnInterrupt};
use crate::app::refusals::refuse_window;
use crate::app::run::{Files, Run};
use crate::config::{
    Config, EngineKeys, ExtendKeys, LineKeys, LogKeys, ProgressKeys, ReadKeys, Settings, WalkKeys, WriteKeys,
};
use crate::summary::{grown_ending, joined, searches, text};
use bookminer::growth::policies::deviate::{self, DeviateOptions, Deviated};
use bookminer::growth::{Engines, GrowthReport};
use clap::Args;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Grow every line near the best, as Edax's `book deviate R A` does.
///
/// Each round fixes the start's value S, then marks, in two passes,
/// the leaves of the lines below `start` whose moves score within
/// --relative of the best for one side (the side to move at the start
/// first, then the other; the other side plays only best moves) and
/// whose scores stay within --absolute of S; each marked leaf becomes a
/// link to a new position, searched by the engine as `extend` does
/// (docs/policies.md). Rounds go on until one marks nothing (or
/// --max-positions are added). OUT, in IN's format, holds IN's records,
/// then the new ones, negamaxed as `fix` does. The engines, the journal
/// ({out_dir}/extend.jsonl, shared with extend) and the statuses are
/// extend's; a window is not taken (the errors are the window).
#[derive(Args, Debug)]
pub struct Deviate {
    /// The book to read.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The book to write (whole or not at all; an existing one only with --force).
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// How far below the best move a move of the deviating side may score, in discs
    #[arg(long, default_value_t = 2, allow_negative_numbers = true, value_name = "R",
          value_parser = clap::value_parser!(i32).range(-129..=129))]
    relative: i32,
    /// How far from the start's value the scores of a line may go, in discs
    #[arg(long, default_value_t = 4, value_name = "A", value_parser = clap::value_parser!(i32).range(0..=65))]
    absolute: i32,
    /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
    /// deleted) and search everything anew, as after a change of engine
    #[arg(long)]
    fresh: bool,
    #[command(flatten)]
    engines: EngineKeys,
    #[command(flatten)]
    extend: ExtendKeys,
    #[command(flatten)]
    walk: WalkKeys,
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

impl Run for Deviate {
    fn settings(&self) -> Settings {
        Settings {
            engines: self.engines.clone(),
            extend: self.extend.clone(),
            walk: self.walk.clone(),
            line: self.line.clone(),
            read: self.read.clone(),
            log: self.log.clone(),
            progress: self.progress.clone(),
            write: self.write.clone(),
            ..Settings::default()
        }
    }

    fn files(&self, config: &Config) -> Files {
        Files::growth(&self.input, &self.output, config)
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_deviate(config, (&self.input, &self.output), self.fresh, (self.relative, self.absolute))
    }
}

/// `deviate IN OUT`: extend's steps, no window, the two errors.
fn run_deviate(
    config: &Config,
    (input, output): (&Path, &Path),
    fresh: bool,
    (relative, absolute): (i32, i32),
) -> Result<u8, AppError> {
    refuse_window(config, "deviate", "--relative and --absolute are its window")?;
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "deviate", OnInterrupt::Stop)?;
    let options = DeviateOptions { growth: options, relative, absolute };
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(deviate::Deviate { book, options: &options }, &paths, Engines::Named, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `deviate`'s summary as one JSON object (`--summary json`).
fn json(report: &GrowthReport<Deviated>) -> Value {
    let e = report;
    joined([
        json!({
            "command": "deviate",
            "input": text(&e.input),
            "output": text(&e.output),
            "journal": text(&e.journal),
            "positions_loaded": e.positions_loaded,
            "relative": report.adds.relative,
            "absolute": report.adds.absolute,
            "rounds": e.rounds,
            "marked": e.candidates,
            "expanded": e.expanded,
            "positions_added": e.added,
        }),
        searches(&e.searches),
        grown_ending(&e.searches.engines, e.stopped_early, e.records_written, e.elapsed),
    ])
}

/// A few command lines for deviate's manual page (`bookminer man deviate`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[(
    "Every line within 2 discs of the best for the side to move, 4 in all, as Edax's book deviate 2 4 grows them.",
    "bookminer deviate book.dat wide.dat --relative 2 --absolute 4 --engine \"edax -n 1 -eval-file data/eval.dat\"",
)];
