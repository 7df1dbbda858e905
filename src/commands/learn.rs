//! `learn`: Grow an Egaroucid book as Egaroucid's "Book deviate" does.

use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::{begin_growth_into, Growing, GrowthFront, OnInterrupt};
use crate::app::refusals::refuse_window;
use crate::app::run::{Files, Run};
use crate::config::{Config, DeepenKeys, Settings, WalkKeys};
use crate::summary::{grown_ending, joined, searches, text};
use bookminer::convert::ConvertReport;
use bookminer::growth::policies::learn::{self, level_of, Errors, LearnOptions, Learned, Which};
use bookminer::growth::{Engines, GrowthReport};
use clap::Args;
use serde_json::{json, Value};
use std::path::Path;

/// Grow an Egaroucid book as Egaroucid's "Book deviate" does (docs/egaroucid.md).
///
/// Egaroucid's book_deviate from --start (the initial position by
/// default), in loops: the leaves within the errors that are illegal or
/// a link's move searched again; then the leaves to expand collected in
/// two passes (Black playing only best moves, then White), a link
/// followed while its error is within --error-per-move and the line's
/// sum within --error-sum, a leaf taken when within --leaf-error, each
/// taken leaf played out, every new position searched at the level and
/// its best move played while within the errors, until a position the
/// book holds, a finished game or --depth (moves from the initial position). Loops go on until one adds
/// nothing, or --loops (N) are done. The level is the start position's record's
/// unless --level says otherwise, and is named before the first search.
/// OUT holds IN's records, then the new ones, values as Egaroucid's
/// function leaves them (no negamax: `fix` does it). IN of another format
/// than .egbk3 is converted first, and OUT named .dat is converted last, as
/// `convert` does. The
/// engines, the journal ({out_dir}/extend.jsonl) and the statuses are
/// extend's.
#[derive(Args, Debug)]
#[command(mut_arg("input", |a| a.help("The book to read, of any format bookminer reads (not .egbk3: converted first, as `convert` does)")))]
#[command(mut_arg("output", |a| a.help("The book to write, in the format its name says (.egbk3 or .dat); whole or not at all, an existing one only with --force")))]
#[command(mut_arg("level", |arg| arg.help(
    "Search new positions at level L (default: the level of the start position's record) [config: level]"
)))]
pub struct Learn {
    #[command(flatten)]
    learn: LearnFlags,
    /// How many loops at most
    #[arg(long, default_value_t = 1000, value_name = "N")]
    loops: u32,
    /// How far below the position's value a leaf expanded may score, in discs
    #[arg(long, default_value_t = 2, value_name = "F", allow_negative_numbers = true,
          value_parser = clap::value_parser!(i32).range(-129..=129))]
    leaf_error: i32,
    #[command(flatten)]
    front: GrowthFront,
    #[command(flatten)]
    level: DeepenKeys,
    #[command(flatten)]
    walk: WalkKeys,
}

/// The flags `learn` and `recalculate` share: the depth and the errors of a line.
#[derive(Args, Debug, Clone)]
pub struct LearnFlags {
    /// Positions up to D moves from the initial position (60: no limit)
    #[arg(long, default_value_t = 60, value_name = "D", value_parser = clap::value_parser!(u32).range(0..=60))]
    pub depth: u32,
    /// How far below its position's value a move followed may score, in discs
    #[arg(long, default_value_t = 2, value_name = "E", allow_negative_numbers = true,
          value_parser = clap::value_parser!(i32).range(-129..=129))]
    pub error_per_move: i32,
    /// How far the moves of a line may score below, summed, in discs
    #[arg(long, default_value_t = 4, value_name = "S", allow_negative_numbers = true,
          value_parser = clap::value_parser!(i32).range(-129..=129))]
    pub error_sum: i32,
}

impl Run for Learn {
    fn settings(&self) -> Settings {
        Settings { deepen: self.level.clone(), walk: self.walk.clone(), ..self.front.settings() }
    }

    fn files(&self, config: &Config) -> Files {
        self.front.files(config)
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        let flags = &self.learn;
        let errors = Errors { per_move: flags.error_per_move, sum: flags.error_sum, leaf: self.leaf_error };
        let asked = Asked { depth: flags.depth, errors, loops: self.loops };
        run_learning(config, (&self.front.input, &self.front.output), self.front.fresh, asked, ("learn", Which::Learn))
    }
}

/// What a learning command was asked, beside its files and config.
pub struct Asked {
    pub depth: u32,
    pub errors: Errors,
    pub loops: u32,
}

/// `learn IN OUT` or `recalculate IN OUT`: refusals, the book read, the
/// level named, the run, the summary.
pub fn run_learning(
    config: &Config,
    (input, output): (&Path, &Path),
    fresh: bool,
    asked: Asked,
    (command, which): (&'static str, Which),
) -> Result<u8, AppError> {
    refuse_window(config, command, "the errors are its window")?;
    let (Growing { paths, mut options, book, shown }, to) =
        begin_growth_into(config, (input, output), fresh, command, OnInterrupt::Stop)?;
    options.min_empties = None;
    let options = LearnOptions {
        growth: options,
        level: config.growth.level,
        depth: asked.depth,
        errors: asked.errors,
        loops: asked.loops,
        to,
    };
    let (level, from_book) = level_of(&book, &options)?;
    let from = if from_book { " (the start position's record's; --level to change it)" } else { "" };
    tracing::info!("{command}: searching at level {}{from}", level.to_i32());
    if !crate::summary::ending().quiet {
        eprintln!("{command}: searching at level {}{from}", level.to_i32());
    }
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(learn::Learn { book, options: &options, which }, &paths, Engines::Named, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// The summary as one JSON object (`--summary json`).
fn json(report: &GrowthReport<Learned>) -> Value {
    joined([
        json!({
            "command": report.adds.command,
            "input": text(&report.input),
            "output": text(&report.output),
            "journal": text(&report.journal),
            "positions_loaded": report.positions_loaded,
            "level": report.adds.level,
            "level_from_book": report.adds.level_from_book,
            "loops": report.adds.loops,
            "todo": report.adds.todo,
            "leaves_searched_again": report.adds.recalculated,
            "positions_added": report.adds.new_records,
            "converted_in": report.adds.converted_in.as_ref().map(converted),
            "converted_out": report.adds.converted_out.as_ref().map(converted),
        }),
        searches(&report.searches),
        grown_ending(&report.searches.engines, report.stopped_early, report.records_written, report.elapsed),
    ])
}

/// A book the run converted, as `convert`'s summary says it, but for the
/// command and the file it was written to (the run's own, or OUT).
fn converted(report: &ConvertReport) -> Value {
    let mut value = crate::commands::convert::json(report);
    if let Some(keys) = value.as_object_mut() {
        keys.shift_remove("command");
        keys.shift_remove("output");
    }
    value
}

/// The manual page's examples: what each is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "Egaroucid's book deviate at the book's level, 2 workers.",
        "bookminer learn book.egbk3 learned.egbk3 --engine \"Egaroucid_for_Console.out -nobook -quiet -t 1\" --workers 2",
    ),
    (
        "At level 21, no deeper than move 40, errors 1/2/1.",
        "bookminer learn book.egbk3 learned.egbk3 --level 21 --depth 40 --error-per-move 1 --error-sum 2 --leaf-error 1",
    ),
];
