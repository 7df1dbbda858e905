//! `enhance`: Grow where the bounds say more is to find, as Edax's `book enhance` does.

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
use bookminer::growth::policies::enhance::{self, EnhanceOptions, Enhanced};
use bookminer::growth::{Engines, GrowthReport};
use bookminer::negamax::SearchErrors;
use clap::Args;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Grow where the bounds say more is to find, as Edax's `book enhance M E` does.
///
/// --midgame-error and --endgame-error become the header's errors, and
/// so the bounds `fix` gives every leaf. Each round walks from `start`
/// over the links whose child's bounds reach the position's own, and
/// expands the leaf of each position whose leaf's bounds reach its own,
/// as `extend` expands a candidate (docs/policies.md). Rounds go on
/// until one adds nothing (or --rounds were done, or --max-positions
/// added): Edax 4.6 does one round, --rounds 1. OUT, in IN's format (an
/// Edax book), holds IN's records, then the new ones, negamaxed as
/// `fix` does. The engines, the journal ({out_dir}/extend.jsonl, shared
/// with extend) and the statuses are extend's; a window is not taken.
#[derive(Args, Debug)]
pub struct Enhance {
    /// The book to read (an Edax book: its header holds the errors).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The book to write (whole or not at all; an existing one only with --force).
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// The midgame search's error, in discs, stored in the header
    #[arg(long, default_value_t = 2, value_name = "M", value_parser = clap::value_parser!(i32).range(0..=129))]
    midgame_error: i32,
    /// The endgame search's error, in discs, stored in the header
    #[arg(long, default_value_t = 4, value_name = "E", value_parser = clap::value_parser!(i32).range(0..=129))]
    endgame_error: i32,
    /// At most this many rounds (1: what Edax 4.6 does); by default, until one adds nothing
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    rounds: Option<u64>,
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

impl Run for Enhance {
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
        let errors = SearchErrors { midgame: self.midgame_error, endcut: self.endgame_error };
        run_enhance(config, (&self.input, &self.output), self.fresh, (errors, self.rounds))
    }
}

/// `enhance IN OUT`: extend's steps, no window, the errors and rounds.
fn run_enhance(
    config: &Config,
    (input, output): (&Path, &Path),
    fresh: bool,
    (errors, rounds): (SearchErrors, Option<u64>),
) -> Result<u8, AppError> {
    refuse_window(config, "enhance", "the bounds say where it goes")?;
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "enhance", OnInterrupt::Stop)?;
    if book.header().edax().is_none() {
        return Err(AppError::Usage(format!(
            "{}: enhance reads an Edax book (its header holds the errors, its records the bounds); \
             this one is an Egaroucid book",
            input.display()
        )));
    }
    let options = EnhanceOptions { growth: options, errors, rounds };
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(enhance::Enhance { book, options: &options }, &paths, Engines::Named, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `enhance`'s summary as one JSON object (`--summary json`).
fn json(report: &GrowthReport<Enhanced>) -> Value {
    let e = report;
    joined([
        json!({
            "command": "enhance",
            "input": text(&e.input),
            "output": text(&e.output),
            "journal": text(&e.journal),
            "positions_loaded": e.positions_loaded,
            "midgame_error": report.adds.errors.midgame,
            "endgame_error": report.adds.errors.endcut,
            "max_rounds": report.adds.max_rounds,
            "rounds": e.rounds,
            "marked": e.candidates,
            "expanded": e.expanded,
            "positions_added": e.added,
        }),
        searches(&e.searches),
        grown_ending(&e.searches.engines, e.stopped_early, e.records_written, e.elapsed),
    ])
}

/// A few command lines for enhance's manual page (`bookminer man enhance`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("Grown where the bounds say more is to find, until a round adds nothing.", "bookminer enhance book.dat enhanced.dat --midgame-error 2 --endgame-error 4 --engine \"edax -n 1 -eval-file data/eval.dat\""),
    ("One round only, as Edax 4.6's book enhance does.", "bookminer enhance book.dat enhanced.dat --rounds 1 --engine \"edax -n 1 -eval-file data/eval.dat\""),
];
