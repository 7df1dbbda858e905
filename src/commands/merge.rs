//! `merge`: two books, of any formats bookminer reads, into one.

use crate::app::book::open_book;
use crate::app::control::with_control_of;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::engine_commands;
use crate::app::interrupt::{cancel, stop_on_interrupt};
use crate::app::options::extend_options;
use crate::app::outputs::unnamed_format;
use crate::app::run::{Files, Run};
use crate::config::{Config, EngineKeys, LineKeys, LogKeys, ProgressKeys, ReadKeys, Settings, WriteKeys};
use crate::progress::Progress;
use crate::summary::{engines, secs, taken_from, text};
use bookminer::convert::{ConvertReport, OutFormat};
use bookminer::merge::{merge, MergeError, MergeOptions, MergePaths, MergeReport};
use clap::Args;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Merge two books, of any formats bookminer reads, into one.
///
/// OUT holds every board of A or B once, in the format its name says
/// (.dat: Edax; .egbk3: Egaroucid); a book of another format is first
/// converted as `convert` does, what it cannot carry counted. A board in
/// both keeps the record of the higher level; at equal levels, the one
/// whose leaf is not a link of the merged book; else A's. An Edax
/// record's links are those of both books (A's, then B's others); with
/// --link also every legal move whose child the merged book holds, as
/// Edax's `book link` does. A leaf whose move became a link is stale:
/// with --engine it is searched again as `extend` searches a leaf (the
/// same journal, {out_dir}/extend.jsonl, so a rerun searches nothing
/// twice); without one it is left with no score (in an Edax book, score
/// -127 on a move not linked, as Edax wants a leaf move wherever one is
/// left) and counted. The book is then negamaxed as `fix` does
/// (docs/merge.md).
///
/// Also writes {out_dir}/merge.jsonl: one JSON line per conflict decided
/// and per stale leaf. OUT is whole or not written, and never A or B by
/// any path (status 2). Status 130 if interrupted (the journal kept), 3
/// if the engines fail as in `extend`.
#[derive(Args, Debug)]
pub struct Merge {
    /// The first book: its records come first, and it wins ties.
    #[arg(value_name = "A")]
    a: PathBuf,
    /// The second book.
    #[arg(value_name = "B")]
    b: PathBuf,
    /// The book to write: .dat (Edax) or .egbk3 (Egaroucid).
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// Also link every legal move whose child the merged book holds (an Edax book).
    #[arg(long)]
    link: bool,
    /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
    /// deleted) and search every stale leaf anew, as after a change of engine
    #[arg(long)]
    fresh: bool,
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

impl Run for Merge {
    fn settings(&self) -> Settings {
        Settings {
            engines: self.engines.clone(),
            line: self.line.clone(),
            read: self.read.clone(),
            log: self.log.clone(),
            progress: self.progress.clone(),
            write: self.write.clone(),
            ..Settings::default()
        }
    }

    /// OUT and the receipt, and with an engine extend's journal, its own.
    fn files(&self, config: &Config) -> Files {
        let mut written = vec![self.output.clone(), config.lines.out_dir.join(bookminer::merge::RECEIPT)];
        let own_journal = (!config.engines.engines.is_empty()).then(|| config.lines.out_dir.join(bookminer::growth::JOURNAL));
        written.extend(own_journal.clone());
        Files { read: vec![self.a.clone(), self.b.clone()], written, named: vec![self.output.clone()], own_journal }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_merge(config, (&self.a, &self.b), &self.output, (self.link, self.fresh))
    }
}

/// `merge A B OUT`: the engines, when given, greeted before either book is read.
/// `link`: --link; `fresh`: the journal set aside.
fn run_merge(
    config: &Config,
    (a, b): (&Path, &Path),
    output: &Path,
    (link, fresh): (bool, bool),
) -> Result<u8, AppError> {
    let Some(to) = OutFormat::of_path(output) else { return Err(unnamed_format(output, "merge writes", "")) };
    let with_engines = !config.engines.engines.is_empty();
    // Before anything is loaded: a refusal should not wait for a large book.
    let mut paths = MergePaths::new(a, b, output, &config.lines.out_dir, with_engines)?;
    paths.engines = paths.engines.map(|p| p.fresh(fresh));
    stop_on_interrupt(if with_engines {
        "the journal is kept; OUT will not be written"
    } else {
        "nothing will be written"
    });
    let named = if with_engines { engine_commands(config, "merge")? } else { Vec::new() };
    let mut engine_options = extend_options(config);
    if let Some(engine_paths) = &paths.engines {
        engine_options.engines =
            bookminer::growth::greet(engine_paths, &named, engine_options.engine_timeout, cancel())?;
    }
    if link && to == OutFormat::Egbk3 {
        tracing::warn!("--link changes nothing in an .egbk3 book: Egaroucid links every move whose child it holds");
    }
    let shown = RefCell::new(Progress::default());
    let book_a = open_book(a, config, &mut shown.borrow_mut())?;
    let book_b = open_book(b, config, &mut shown.borrow_mut())?;
    if cancel().is_set() {
        return Err(AppError::Merge(MergeError::interrupted()));
    }
    let engines = with_engines.then_some(|scratch: &Path| bookminer::growth::process_engines(&engine_options, scratch));
    let options = MergeOptions { to, link };
    let (counts, format) = (book_a.counts(), book_a.format());
    let report = with_control_of(counts, format, "the merged book", &shown, |control| {
        Ok(merge(book_a, book_b, &paths, &options, engines, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// A book `merge` converted, as `convert`'s summary says it, but for the
/// command and the file it was written to (the run's own, removed).
fn converted(report: &ConvertReport) -> Value {
    let mut value = crate::commands::convert::json(report);
    if let Some(keys) = value.as_object_mut() {
        keys.shift_remove("command");
        keys.shift_remove("output");
    }
    value
}

/// `merge`'s summary as one JSON object (`--summary json`).
fn json(report: &MergeReport) -> Value {
    let t = &report.tally;
    json!({
        "command": "merge",
        "a": text(&report.a),
        "b": text(&report.b),
        "output": text(&report.output),
        "receipt": text(&report.receipt),
        "positions_a": report.positions[0],
        "positions_b": report.positions[1],
        "converted_a": report.converted[0].as_ref().map(converted),
        "converted_b": report.converted[1].as_ref().map(converted),
        "boards_a_alone": t.only_a,
        "boards_b_alone": t.only_b,
        "boards_alike": t.same,
        "conflicts": t.conflicts(),
        "conflicts_by_level": t.by_level,
        "conflicts_by_leaf": t.by_leaf,
        "conflicts_to_a": t.first,
        "kept_from_a": t.kept_a,
        "kept_from_b": t.kept_b,
        "links_joined": t.links_joined,
        "links_added": t.links_added,
        "stale_leaves": t.stale,
        "stale_searched": report.asked.searched,
        "stale_from_journal": report.asked.from_journal,
        "journal_answers_by": taken_from(&report.taken_from),
        "journal_set_aside": report.journal_set_aside.as_deref().map(text),
        "stale_known": t.stale_known,
        "stale_emptied": t.stale_emptied,
        "engine_seconds": secs(report.asked.engine_time),
        "engines": engines(&report.engines),
        "records_written": report.records_written,
        "elapsed_seconds": secs(report.elapsed),
    })
}

/// A few command lines for merge's manual page (`bookminer man merge`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "Two books one, in the format OUT's name says; out/merge.jsonl says what was decided.",
        "bookminer merge mine.dat theirs.egbk3 both.dat",
    ),
    (
        "Stale leaves searched again by Edax; Edax's unlinked moves linked.",
        "bookminer merge a.dat b.dat both.dat --link --engine \"edax -n 1 -eval-file data/eval.dat\"",
    ),
];
