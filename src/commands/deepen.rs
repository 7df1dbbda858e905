//! `deepen`: Search leaves again at a higher level (docs/deepen.md).

use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::{begin_growth, Growing, GrowthFront, OnInterrupt};
use crate::app::interrupt::WIND_DOWN;
use crate::app::options::error_weight;
use crate::app::run::{Files, Run};
use crate::config::{Config, DeepenKeys, GrowKeys, Settings, WalkKeys};
use crate::summary::{engines, joined, searches, secs, text};
use bookminer::growth::policies::deepen::{self, DeepenOptions, Deepened};
use bookminer::growth::{Engines, GrowthReport};
use bookminer::run::Cancel;
use clap::Args;
use serde_json::{json, Value};
use std::path::Path;

/// Search leaves again at a higher level (docs/deepen.md).
///
/// Every record whose level, at its number of empty squares, searches
/// less deeply than --level L in Edax's level table (a smaller depth,
/// or the same with a lower selectivity; a solved record never) is
/// given level L and its leaf searched again at L, its links excluded;
/// OUT is IN with those levels and leaves, negamaxed as `fix` does (an
/// Edax book's header says L once no record of OUT needs deepening to
/// L any more, and its level is never lowered). Which records: every one, in file
/// order; with --start or a window, only what extend's walk enters;
/// with a budget (--max-positions records deepened, --max-seconds,
/// --max-priority) they are taken in grow's priority order, least
/// first, so that a run stopped early has deepened the lines play
/// reaches first. Ctrl-C once finishes what is under way and writes
/// OUT; twice stops at once (status 130, OUT not written). The
/// engines, the journal ({out_dir}/extend.jsonl, shared with extend
/// and grow) and the statuses are extend's.
#[derive(Args, Debug)]
#[command(mut_arg("max_positions", |arg| arg.help(
    "Deepen this many records at most, those of least priority first [config: max_positions]"
)))]
#[command(mut_arg("max_priority", |arg| arg.help(
    "Deepen no record whose priority is above C [config: max_priority]"
)))]
pub struct Deepen {
    #[command(flatten)]
    front: GrowthFront,
    #[command(flatten)]
    deepen: DeepenKeys,
    #[command(flatten)]
    grow: GrowKeys,
    #[command(flatten)]
    walk: WalkKeys,
}

impl Run for Deepen {
    fn settings(&self) -> Settings {
        Settings {
            grow: self.grow.clone(),
            deepen: self.deepen.clone(),
            walk: self.walk.clone(),
            ..self.front.settings()
        }
    }

    fn files(&self, config: &Config) -> Files {
        self.front.files(config)
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_deepen(config, &self.front.input, &self.front.output, self.front.fresh)
    }
}

fn run_deepen(config: &Config, input: &Path, output: &Path, fresh: bool) -> Result<u8, AppError> {
    let Some(level) = config.growth.level else {
        return Err(AppError::Usage(
            "deepen needs a level: --level L (Edax's, 0 to 60; or the config key level)".into(),
        ));
    };
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "deepen", OnInterrupt::WindDown)?;
    let options = DeepenOptions {
        growth: options,
        level,
        error_weight: error_weight(config)?,
        max_priority: config.growth.max_priority,
        max_seconds: config.growth.max_seconds,
    };
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(
            deepen::Deepen { book, options: &options, wind_down: Cancel::new(&WIND_DOWN) },
            &paths,
            Engines::Named,
            control,
        )?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `deepen`'s summary as one JSON object (`--summary json`).
fn json(report: &GrowthReport<Deepened>) -> Value {
    let e = report;
    joined([
        json!({
            "command": "deepen",
            "input": text(&e.input),
            "output": text(&e.output),
            "journal": text(&e.journal),
            "positions_loaded": e.positions_loaded,
            "level": report.adds.level,
            "needed_deepening": report.adds.needed,
            "deepened": report.adds.deepened,
            "ended_by": report.adds.ended.name(),
            "leaf_moves_changed": report.adds.moves_changed,
            "leaf_scores_changed": report.adds.scores_changed,
            "largest_leaf_score_change": report.adds.largest_score_change,
            "values_changed": report.adds.values_changed,
            "header_level_set": report.adds.header_level_set,
        }),
        searches(&e.searches),
        json!({
            "engines": engines(&e.searches.engines),
            "records_written": e.records_written,
            "elapsed_seconds": secs(e.elapsed),
        }),
    ])
}

/// A few command lines for deepen's manual page (`bookminer man deepen`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("Every leaf shallower than level 24 searched again at 24.", "bookminer deepen book.dat deep.dat --level 24 --engine \"edax -n 1 -eval-file data/eval.dat\""),
    ("The lines play reaches first, for an hour.", "bookminer deepen book.dat deep.dat --level 24 --max-seconds 3600 --engine \"edax -n 1 -eval-file data/eval.dat\""),
];
