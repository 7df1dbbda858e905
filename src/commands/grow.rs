//! `grow`: Grow a book best-first under a budget (Lincke's drop-out expansion).

use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::{begin_growth, Growing, GrowthFront, OnInterrupt};
use crate::app::interrupt::WIND_DOWN;
use crate::app::options::error_weight;
use crate::app::run::{Files, Run};
use crate::config::{Config, GrowKeys, Settings, WalkKeys};
use crate::summary::{engines, joined, searches, secs, text};
use bookminer::growth::policies::grow::{self, GrowOptions, Grown};
use bookminer::growth::{Engines, GrowthReport};
use bookminer::run::Cancel;
use clap::Args;
use serde_json::{json, Value};
use std::path::Path;

/// Grow a book best-first under a budget: Lincke's drop-out expansion.
///
/// Spends the engines' time where play is likely to go: near the best
/// lines, shallow first. A frontier position (entered over links from
/// `start`, its leaf a move) has priority D + 1 + W * (value - leaf
/// score), where D is the cheapest line of links from the start, each
/// link costing 1 + W * (value of its position - its score), W being
/// --error-weight. The least priority is expanded next, as `extend`
/// expands a candidate, as soon as an engine is free (docs/grow.md).
///
/// Stops when no frontier position is left, or every one is above
/// --max-priority, or --max-positions were added, or --max-seconds
/// passed; what is under way is finished and OUT written (IN's format,
/// negamaxed as `fix` does). Ctrl-C once does the same; twice stops at
/// once (status 130, OUT not written). The engines, the journal
/// ({out_dir}/extend.jsonl, shared with extend) and the statuses are
/// extend's.
#[derive(Args, Debug)]
pub struct Grow {
    #[command(flatten)]
    front: GrowthFront,
    #[command(flatten)]
    grow: GrowKeys,
    #[command(flatten)]
    walk: WalkKeys,
}

impl Run for Grow {
    fn settings(&self) -> Settings {
        Settings { grow: self.grow.clone(), walk: self.walk.clone(), ..self.front.settings() }
    }

    fn files(&self, config: &Config) -> Files {
        self.front.files(config)
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_grow(config, &self.front.input, &self.front.output, self.front.fresh)
    }
}

fn run_grow(config: &Config, input: &Path, output: &Path, fresh: bool) -> Result<u8, AppError> {
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "grow", OnInterrupt::WindDown)?;
    let options = GrowOptions {
        growth: options,
        error_weight: error_weight(config)?,
        max_priority: config.growth.max_priority,
        max_seconds: config.growth.max_seconds,
    };
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(
            grow::Grow { book, options: &options, wind_down: Cancel::new(&WIND_DOWN) },
            &paths,
            Engines::Named,
            control,
        )?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `grow`'s summary as one JSON object (`--summary json`).
fn json(report: &GrowthReport<Grown>) -> Value {
    let e = report;
    joined([
        json!({
            "command": "grow",
            "input": text(&e.input),
            "output": text(&e.output),
            "journal": text(&e.journal),
            "positions_loaded": e.positions_loaded,
            "expanded": e.expanded,
            "positions_added": e.added,
            "ended_by": report.adds.ended.name(),
            "largest_expanded": report.adds.largest_expanded,
            "least_priority_left": report.adds.least_left,
        }),
        searches(&e.searches),
        json!({
            "engine_utilisation": report.adds.utilisation,
            "engines": engines(&e.searches.engines),
            "records_written": e.records_written,
            "elapsed_seconds": secs(e.elapsed),
        }),
    ])
}

/// A few command lines for grow's manual page (`bookminer man grow`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[(
    "Best first, up to a priority.",
    "bookminer grow book.dat grown.dat --engine \"edax -n 1 -eval-file data/eval.dat\" --max-priority 12",
)];
