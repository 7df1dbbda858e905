//! `extend`: Grow a book with an engine, as Edax's `book extend` does.

use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::{begin_growth, Growing, GrowthFront, OnInterrupt};
use crate::app::run::{Files, Run};
use crate::config::{Config, Settings, WalkKeys};
use crate::summary::{grown_ending, joined, searches, text};
use bookminer::growth::policies::extend;
use bookminer::growth::{Engines, GrowthReport};
use clap::Args;
use serde_json::{json, Value};
use std::path::Path;

/// Grow a book with an engine, as Edax's `book extend` does.
///
/// Walks IN's links from `start` (a window limits them) for candidates:
/// positions with at least min_empties empty squares whose leaf scores
/// at least their value. Each candidate's leaf becomes a link to a new
/// position, whose best move not linked is searched by the engine, and
/// the candidate's next best move is searched too; rounds go on until
/// no candidate is left (or --max-positions are added). OUT, in IN's
/// format (.egbk2 and .egbk as .egbk3), holds IN's records, then the new
/// ones, negamaxed as `fix` does.
///
/// The engine is a command line (Edax 4.6: "edax -eval-file
/// PATH/eval.dat"), run --workers times at once; a wrapper (ssh, a
/// cluster's launcher) runs it elsewhere. Every answer goes to
/// {out_dir}/extend.jsonl as it comes; a run that finds that journal
/// takes its answers, whichever engine gave them, instead of searching
/// again, so an interrupted run loses only the searches under way. One
/// run at a time: a second run on a journal in use is refused (status
/// 2), naming the process that holds it. Each engine is started and
/// greeted while the book is read: when none answers (not found, no
/// eval file), the run stops at once (status 3), quoting what each
/// wrote on its standard error. An engine that crashes, hangs past
/// engine_timeout or answers nonsense is restarted and asked twice
/// more, then the run stops (status 3). Status 130 if interrupted: the
/// journal is kept, OUT is not written.
#[derive(Args, Debug)]
pub struct Extend {
    #[command(flatten)]
    front: GrowthFront,
    #[command(flatten)]
    walk: WalkKeys,
}

impl Run for Extend {
    fn settings(&self) -> Settings {
        Settings { walk: self.walk.clone(), ..self.front.settings() }
    }

    fn files(&self, config: &Config) -> Files {
        self.front.files(config)
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_extend(config, &self.front.input, &self.front.output, self.front.fresh)
    }
}

fn run_extend(config: &Config, input: &Path, output: &Path, fresh: bool) -> Result<u8, AppError> {
    let Growing { paths, options, book, shown } =
        begin_growth(config, (input, output), fresh, "extend", OnInterrupt::Stop)?;
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(extend::Extend { book, options: &options }, &paths, Engines::Named, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `extend`'s summary as one JSON object (`--summary json`).
pub fn json(report: &GrowthReport) -> Value {
    joined([
        json!({
            "command": "extend",
            "input": text(&report.input),
            "output": text(&report.output),
            "journal": text(&report.journal),
            "positions_loaded": report.positions_loaded,
            "rounds": report.rounds,
            "candidates": report.candidates,
            "expanded": report.expanded,
            "positions_added": report.added,
        }),
        searches(&report.searches),
        grown_ending(&report.searches.engines, report.stopped_early, report.records_written, report.elapsed),
    ])
}

/// A few command lines for extend's manual page (`bookminer man extend`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("Grow the book as Edax's book extend does, one engine a core.", "bookminer extend book.dat grown.dat --engine \"edax -n 1 -eval-file data/eval.dat\""),
    ("Candidates with at least 20 empty squares; engines on two machines.", "bookminer extend book.dat grown.dat --min-empties 20 --engine \"edax -n 1 -eval-file data/eval.dat\" --engine \"ssh -T beta /opt/edax/bin/edax -n 1 -eval-file /opt/edax/data/eval.dat\""),
];
