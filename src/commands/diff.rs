//! `diff`: what differs between two books, of any formats bookminer reads.

use crate::app::book::open_book;
use crate::app::control::with_control_of;
use crate::app::ending::{end, end_on_stderr};
use crate::app::error::AppError;
use crate::app::error::EXIT_DIFFERENT;
use crate::app::interrupt::{cancel, stop_on_interrupt};
use crate::app::options::line_style;
use crate::app::run::{Files, Run};
use crate::config::{Config, LineKeys, LogKeys, ProgressKeys, ReadKeys, Settings, WriteKeys};
use crate::progress::Progress;
use crate::summary::{secs, text};
use bookminer::diff::{diff, diff_path, DiffError, DiffReport, LinesOut};
use bookminer::run::{Interrupted, RunError};
use clap::Args;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Say what differs between two books, of any formats bookminer reads.
///
/// Writes {out_dir}/diff.jsonl (whole, or not at all): one JSON line
/// per board only in OLD, only in NEW, or in both with a different
/// value, level, leaf (as stored), or, when both books are Edax's,
/// bounds or link scores (links matched by move): an Egaroucid book
/// stores no bounds and no links (its links' scores are its children's
/// values). The lines come in OLD's file order, then NEW's
/// boards that OLD lacks in NEW's file order. Each names its record by
/// the line of the first arrival at it on the walk of the book that
/// holds it (OLD's when both do), as fix's
/// receipt does: orientation and pass_token apply. Keys, in this order,
/// each difference only when there is one:
/// {"diff":"old"|"new"|"changed","old":N|null,"new":N|null,"kifu":"F5D6"|null,
/// "board":"…","side":"X","value":[old,new],"lower":[old,new],"upper":[old,new],
/// "level":[old,new],"leaf":[["C4",score]|null,…],"links":[["D3",old|null,new|null],…]}
/// ("old" and "new" are record numbers from 0 in each file; a board only
/// one book holds has "value" with null on the other side; a board no
/// walk reaches has "kifu":null and its stored board with the side to
/// move as X). Win/draw/loss and line counts, an Egaroucid leaf's
/// level, and the order of links, are not compared. A summary counting each kind follows on standard
/// output. -o FILE writes the lines to FILE instead; -o - (or --stdout)
/// writes them on standard output as they come, and the summary on
/// standard error. Exit status 0 whether or not the books differ; with
/// --exit-code, 1 when they differ (as git diff's flag of that name,
/// and cmp).
#[derive(Args, Debug)]
pub struct Diff {
    /// The first book (Edax .dat, Egaroucid .egbk3, .egbk2 or .egbk).
    #[arg(value_name = "OLD")]
    old: PathBuf,
    /// The second book, compared with the first.
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// Exit with status 1 when the books differ (any line written), 0
    /// when they do not; a failure keeps its own status (2, 3, 130).
    #[arg(long)]
    exit_code: bool,
    /// Write the lines to FILE instead of {out_dir}/diff.jsonl; `-`:
    /// on standard output, as they come (the summary then goes to
    /// standard error).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The lines on standard output: the same as -o -.
    #[arg(long, conflicts_with = "output")]
    stdout: bool,
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

impl Diff {
    /// Where `diff` writes its lines: -o FILE, `-` (or --stdout) for
    /// standard output, else `{out_dir}/diff.jsonl`.
    fn output(&self, out_dir: &Path) -> PathBuf {
        match (&self.output, self.stdout) {
            (_, true) => PathBuf::from(bookminer::diff::STDOUT),
            (Some(path), false) => path.clone(),
            (None, false) => out_dir.join(bookminer::diff::DIFF_FILE),
        }
    }
}

impl Run for Diff {
    fn settings(&self) -> Settings {
        Settings {
            line: self.line.clone(),
            read: self.read.clone(),
            log: self.log.clone(),
            progress: self.progress.clone(),
            write: self.write.clone(),
            ..Settings::default()
        }
    }

    /// The lines' file (none on standard output); the one -o names is
    /// named.
    fn files(&self, config: &Config) -> Files {
        let output = self.output(&config.lines.out_dir);
        let streamed = output.as_os_str() == bookminer::diff::STDOUT;
        let named = match (&self.output, self.stdout) {
            (Some(output), false) if output.as_os_str() != bookminer::diff::STDOUT => vec![output.clone()],
            _ => Vec::new(),
        };
        Files {
            read: vec![self.old.clone(), self.new.clone()],
            written: (!streamed).then_some(output).into_iter().collect(),
            named,
            ..Files::default()
        }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_diff(config, &self.old, &self.new, &self.output(&config.lines.out_dir), self.exit_code)
    }
}

/// `output`: the lines' file, or `-` for standard output; `exit_code`:
/// status 1 when the books differ.
fn run_diff(config: &Config, old: &Path, new: &Path, output: &Path, exit_code: bool) -> Result<u8, AppError> {
    let streamed = output.as_os_str() == bookminer::diff::STDOUT;
    // Before anything is loaded: a refusal should not wait for a large book.
    if !streamed {
        diff_path(old, new, output)?;
    }
    stop_on_interrupt("nothing will be written");
    let shown = RefCell::new(Progress::default());
    let old_book = open_book(old, config, &mut shown.borrow_mut())?;
    let new_book = open_book(new, config, &mut shown.borrow_mut())?;
    if cancel().is_set() {
        return Err(AppError::Diff(Interrupted.into()));
    }
    let format = line_style(config);
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let out = match streamed {
        true => LinesOut::Stream(&mut stdout),
        false => LinesOut::File(output),
    };
    let report = with_control_of(old_book.counts(), old_book.format(), "the differences", &shown, |control| {
        diff(old_book, new_book, out, &format, control).map_err(|e| match e {
            DiffError::Run(RunError::Io { source, .. })
                if streamed && source.kind() == std::io::ErrorKind::BrokenPipe =>
            {
                AppError::StdoutClosed
            }
            e => AppError::Diff(e),
        })
    })?;
    drop(stdout);
    match streamed {
        true => end_on_stderr(report.to_string(), || json(&report)),
        false => end(report.to_string(), || json(&report), Some(output))?,
    }
    Ok(if exit_code && report.counts.lines() > 0 { EXIT_DIFFERENT } else { 0 })
}

/// `diff`'s summary as one JSON object (`--summary json`).
fn json(report: &DiffReport) -> Value {
    let c = &report.counts;
    json!({
        "command": "diff",
        "old": text(&report.old),
        "new": text(&report.new),
        "output": text(&report.output),
        "old_positions": report.old_positions,
        "new_positions": report.new_positions,
        "only_old": c.only_old,
        "only_new": c.only_new,
        "changed": c.changed,
        "values": c.values,
        "bounds": c.bounds,
        "levels": c.levels,
        "leaves": c.leaves,
        "links": c.links,
        "link_scores": c.link_scores,
        "lines": c.lines(),
        "elapsed_seconds": secs(report.elapsed),
    })
}

/// A few command lines for diff's manual page (`bookminer man diff`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] =
    &[("What differs between two books: out/diff.jsonl.", "bookminer diff book.dat fixed.dat")];
