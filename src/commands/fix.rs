//! `fix`: Edax's `book negamax`, and with --link Edax's `book fix` first
//! (every legal move whose child the book holds linked).

use crate::app::book::{load_beside, open_book};
use crate::app::control::{with_control, with_control_of};
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::growth::engine_commands;
use crate::app::interrupt::cancel;
use crate::app::interrupt::stop_on_interrupt;
use crate::app::options::line_style;
use crate::app::outputs::{check_out_name, check_out_named};
use crate::app::run::{Files, Run};
use crate::config::{Config, EngineKeys, LineKeys, LogKeys, ProgressKeys, ReadKeys, Settings, WriteKeys};
use crate::progress::Progress;
use crate::summary::{engines, joined, searches, secs, text};
use bookminer::book::Book;
use bookminer::fix::{fix, FixOptions, FixPaths, FixReport};
use bookminer::growth::policies::link::{self, LinkOptions, Linked};
use bookminer::growth::{Engines, GrowthPaths, GrowthReport};
use bookminer::run::Interrupted;
use clap::Args;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Repair a book as Edax's `book negamax` does, and say what changed.
///
/// Reads IN (an Edax book.dat or an Egaroucid .egbk3, .egbk2 or .egbk,
/// told by its first bytes) and writes OUT: IN with every record reachable over links
/// from the initial position made to agree with its children, exactly as
/// Edax 4.6's `book negamax` and `book sort` leave it (value, bounds by
/// Edax's level table, win/draw/loss and line counts, link scores, links
/// sorted best first); an Egaroucid book gets its values only. Records,
/// their order and sizes and the header are kept: OUT has IN's size, and
/// unreachable records and leaves are not touched.
///
/// Also writes {out_dir}/fix.jsonl: one JSON line per record whose value,
/// bounds or a link score changed, in file order, with the line of the
/// walk's first arrival at it (orientation and pass_token apply), its
/// board and side to move, and each changed number as [old,new]. A
/// summary follows on standard output.
///
/// Needs the book and room for OUT beside its final name (it is written
/// there and renamed when complete, so OUT is whole or not written); OUT
/// may never be IN, by any path, nor be named for another format (.dat,
/// .egbk3, .egbk2, .egbk) than the one written, nor for none: `convert`
/// changes formats. Uses about the book's size in memory
/// plus 24 bytes a position. Exit status 2 if OUT is IN or IN is no
/// book it reads, 3 if a file cannot be read or written, 130 if
/// interrupted: nothing is written then.
///
/// With --link, first as Edax's `book fix` (docs/policies.md): every
/// record of an Edax book gets a link for each legal move (or the pass)
/// whose child the book holds, and a record whose leaf move became a
/// link has its leaf searched again by the engine (--engine, needed
/// only when there is such a leaf; the journal {out_dir}/extend.jsonl,
/// shared with extend). OUT is then the book linked, negamaxed; no
/// receipt. An Egaroucid book's links are implicit: --link changes
/// nothing there.
#[derive(Args, Debug)]
pub struct Fix {
    /// The book to read.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The fixed book to write (whole or not at all; an existing one only with --force).
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// Link every legal move whose child the book holds, as Edax's `book fix` does
    #[arg(long)]
    link: bool,
    /// With --link, set the journal of earlier runs aside ({out_dir}/extend.N.jsonl,
    /// never deleted) and search everything anew
    #[arg(long, requires = "link")]
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

impl Run for Fix {
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

    /// OUT and the receipt; with --link, OUT and extend's journal, its own.
    fn files(&self, config: &Config) -> Files {
        let (also, own_journal) = match self.link {
            false => (config.lines.out_dir.join(bookminer::fix::RECEIPT), None),
            true => {
                let journal = config.lines.out_dir.join(bookminer::growth::JOURNAL);
                (journal.clone(), Some(journal))
            }
        };
        Files {
            read: vec![self.input.clone()],
            written: vec![self.output.clone(), also],
            named: vec![self.output.clone()],
            own_journal,
        }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        match self.link {
            false => run_fix(config, &self.input, &self.output),
            true => run_fix_link(config, &self.input, &self.output, self.fresh),
        }
    }
}

fn run_fix(config: &Config, input: &Path, output: &Path) -> Result<u8, AppError> {
    // Before anything is loaded: a refusal should not wait for a large book.
    let paths = FixPaths::new(input, output, &config.lines.out_dir)?;
    check_out_named(output, "fix")?;
    stop_on_interrupt("nothing will be written");
    let shown = RefCell::new(Progress::default());
    let book = open_book(input, config, &mut shown.borrow_mut())?;
    fix_read(config, book, &paths, &shown)
}

/// `fix` of a book read, into the paths checked.
fn fix_read(config: &Config, book: Book, paths: &FixPaths, shown: &RefCell<Progress>) -> Result<u8, AppError> {
    let output = paths.output();
    if cancel().is_set() {
        return Err(AppError::Fix(Interrupted.into()));
    }
    check_out_name(output, book.format().kept_as(), "fix")?;
    let options = FixOptions { style: line_style(config) };
    let report = with_control_of(book.counts(), book.format(), "the book", shown, |control| {
        Ok(fix(book, paths, &options, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `fix --link IN OUT`: the engines, when given, greeted while the book
/// is read beside them (what the greeting says first); an Egaroucid book,
/// whose links are implicit, fixed as `fix` fixes it.
fn run_fix_link(config: &Config, input: &Path, output: &Path, fresh: bool) -> Result<u8, AppError> {
    let engines = if config.engines.engines.is_empty() { Vec::new() } else { engine_commands(config, "fix --link")? };
    // Refused in fix --link's words (issue 64: it said "extend").
    let writer = bookminer::files::input::Writer::Growth("fix --link");
    let paths = GrowthPaths::of_command(writer, (input, &[]), output, &config.lines.out_dir)?.fresh(fresh);
    check_out_named(output, "fix")?;
    stop_on_interrupt("the journal is kept; OUT will not be written");
    let engine_timeout = std::time::Duration::from_secs(config.engines.engine_timeout);
    let book = load_beside(input, config);
    let engines = match engines.is_empty() {
        true => Vec::new(),
        false => bookminer::growth::greet(&paths, &engines, engine_timeout, cancel())?,
    };
    let options = LinkOptions { engines, engine_timeout };
    let shown = RefCell::new(Progress::default());
    let book = book.wait(config, &mut shown.borrow_mut())?;
    check_out_name(output, book.format().kept_as(), "fix")?;
    if book.header().edax().is_none() {
        tracing::warn!("--link changes nothing in an Egaroucid book: its links are the moves whose child it holds");
        drop(paths);
        return fix_read(config, book, &FixPaths::new(input, output, &config.lines.out_dir)?, &shown);
    }
    let report = with_control(None, &shown, |control| {
        Ok(bookminer::growth::run(link::Link { book, options: &options }, &paths, Engines::Named, control)?)
    })?;
    end(report.to_string(), || link_json(&report), Some(output))?;
    Ok(0)
}

/// `fix`'s summary as one JSON object (`--summary json`).
fn json(report: &FixReport) -> Value {
    let c = &report.changes;
    json!({
        "command": "fix",
        "input": text(&report.input),
        "output": text(&report.output),
        "receipt": text(&report.receipt),
        "positions_loaded": report.positions_loaded,
        "positions_negamaxed": report.reachable,
        "records_changed": c.records,
        "values_changed": c.values,
        "link_scores_changed": c.link_scores,
        "counts_changed": c.counts,
        "links_reordered": c.reordered,
        "elapsed_seconds": secs(report.elapsed),
    })
}

/// `fix --link`'s summary as one JSON object (`--summary json`).
fn link_json(report: &GrowthReport<Linked>) -> Value {
    joined([
        json!({
            "command": "fix",
            "link": true,
            "input": text(&report.input),
            "output": text(&report.output),
            "journal": text(&report.journal),
            "positions_loaded": report.positions_loaded,
            "records_linked": report.adds.records_linked,
            "links_added": report.adds.links_added,
            "leaves_searched_again": report.adds.leaves,
        }),
        searches(&report.searches),
        json!({
            "engines": engines(&report.searches.engines),
            "reachable": report.adds.reachable,
            "records_written": report.records_written,
            "elapsed_seconds": secs(report.elapsed),
        }),
    ])
}

/// A few command lines for fix's manual page (`bookminer man fix`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("Edax's negamax; out/fix.jsonl says what changed.", "bookminer fix book.dat fixed.dat"),
    ("How many records changed.", "bookminer fix book.dat fixed.dat -q --summary json | jq .records_changed"),
    (
        "A book made from games made one tree, as Edax's book fix does: every move whose child is in the book linked.",
        "bookminer fix --link book.dat linked.dat --engine \"edax -n 1 -eval-file data/eval.dat\"",
    ),
];
