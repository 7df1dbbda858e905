//! `fill`: Put in the positions between positions of the book, as Edax's `book fill D` does.

use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::{begin_growth, Growing, GrowthFront, OnInterrupt};
use crate::app::run::{Files, Run};
use crate::config::{Config, GrowKeys, Settings, StopKeys};
use crate::summary::{grown_ending, joined, searches, text};
use bookminer::growth::policies::fill::{self, FillOptions, Filled};
use bookminer::growth::{Engines, GrowthReport};
use clap::Args;
use serde_json::{json, Value};
use std::path::Path;

/// Put in the positions between positions of the book, as Edax's `book fill D` does.
///
/// Each round looks, from every position of IN with at least
/// min_empties empty squares, at every sequence of --depth plies (a
/// forced pass is one) that ends on a position of IN, and puts each
/// position after the first into the book: a new one at the book's
/// level, its leaf searched by the engine; each linked to its children
/// in the book (docs/policies.md). Rounds go on until one adds nothing
/// (or --max-positions are added, or --max-seconds passed). OUT, in
/// IN's format, holds IN's records, then the new ones, negamaxed as
/// `fix` does. The engines, the journal ({out_dir}/extend.jsonl, shared
/// with extend) and the statuses are extend's.
#[derive(Args, Debug)]
pub struct Fill {
    /// Plies of a sequence between two positions of the book
    #[arg(long, default_value_t = 1, value_name = "D",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(bookminer::growth::policies::fill::MAX_DEPTH)))]
    depth: u32,
    #[command(flatten)]
    front: GrowthFront,
    #[command(flatten)]
    stop: StopKeys,
}

impl Run for Fill {
    fn settings(&self) -> Settings {
        Settings {
            // Only grow's time budget: fill has no priorities to weigh.
            grow: GrowKeys { stop: self.stop.clone(), ..GrowKeys::default() },
            ..self.front.settings()
        }
    }

    fn files(&self, config: &Config) -> Files {
        self.front.files(config)
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_fill(config, (&self.front.input, &self.front.output), self.front.fresh, self.depth)
    }
}

/// `fill IN OUT`: extend's steps over the whole book, the depth and the
/// time budget.
fn run_fill(config: &Config, (input, output): (&Path, &Path), fresh: bool, depth: u32) -> Result<u8, AppError> {
    if config.growth.max_priority.is_some() {
        return Err(AppError::Usage(
            "fill takes no max_priority: --max-positions and --max-seconds are its budget".into(),
        ));
    }
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "fill", OnInterrupt::Stop)?;
    let options = FillOptions { growth: options, depth, max_seconds: config.growth.max_seconds };
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(fill::Fill { book, options: &options }, &paths, Engines::Named, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `fill`'s summary: the depth, rounds, positions and links added, and
/// the searches.
fn json(report: &GrowthReport<Filled>) -> Value {
    joined([
        json!({
            "command": "fill",
            "input": text(&report.input),
            "output": text(&report.output),
            "journal": text(&report.journal),
            "positions_loaded": report.positions_loaded,
            "depth": report.adds.depth,
            "rounds": report.rounds,
            "positions_added": report.added,
            "links_added": report.adds.links_added,
        }),
        searches(&report.searches),
        grown_ending(
            &report.searches.engines,
            report.adds.ended.map(|e| e.name()),
            report.records_written,
            report.elapsed,
        ),
    ])
}

/// A few command lines for fill's manual page (`bookminer man fill`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[(
    "The positions two plies between positions of the book put in, as Edax's book fill 2 does.",
    "bookminer fill book.dat filled.dat --depth 2 --engine \"edax -n 1 -eval-file data/eval.dat\"",
)];
