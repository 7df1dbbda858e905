//! `play`: Expand every position without a link, as Edax's `book play` does.

use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::{begin_growth, Growing, OnInterrupt};
use crate::app::refusals::refuse_window;
use crate::app::run::{Files, Run};
use crate::config::{
    Config, EngineKeys, ExtendKeys, LineKeys, LogKeys, ProgressKeys, ReadKeys, Settings, WalkKeys, WriteKeys,
};
use bookminer::growth::policies::play;
use bookminer::growth::{Engines, GrowthReport};
use clap::Args;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Expand every position without a link, as Edax 4.6's `book play` does.
///
/// Each round walks IN's links below `start` (positions with at least
/// min_empties empty squares, the game going on) for the positions
/// that have no link at all, and expands each one's leaf as `extend`
/// expands a candidate (docs/policies.md); rounds go on until no such
/// position is left (or --max-positions are added). OUT, in IN's
/// format, holds IN's records, then the new ones, negamaxed as `fix`
/// does. The engines, the journal ({out_dir}/extend.jsonl, shared with
/// extend) and the statuses are extend's; a window is not taken.
#[derive(Args, Debug)]
pub struct Play {
    /// The book to read.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The book to write (whole or not at all; an existing one only with --force).
    #[arg(value_name = "OUT")]
    output: PathBuf,
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

impl Run for Play {
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
        run_play(config, &self.input, &self.output, self.fresh)
    }
}

/// `play IN OUT`: extend's steps, no window.
fn run_play(config: &Config, input: &Path, output: &Path, fresh: bool) -> Result<u8, AppError> {
    refuse_window(config, "play", "it expands every position without a link")?;
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "play", OnInterrupt::Stop)?;
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(play::Play { book, options: &options }, &paths, Engines::Named, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `play`'s summary: extend's keys, its candidates the positions without links.
fn json(report: &GrowthReport) -> Value {
    let mut value = crate::commands::extend::json(report);
    value["command"] = json!("play");
    value
}

/// A few command lines for play's manual page (`bookminer man play`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[(
    "Every position without a link played on along its best move, as Edax's book play does.",
    "bookminer play book.dat played.dat --engine \"edax -n 1 -eval-file data/eval.dat\"",
)];
