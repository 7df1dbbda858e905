//! `cut`: the part of a book the walk under a window reaches.

use crate::app::book::open_book;
use crate::app::control::with_control_of;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::interrupt::stop_on_interrupt;
use crate::app::outputs::{check_out_name, check_out_named};
use crate::app::run::{Files, Run};
use crate::config::{Config, LogKeys, ProgressKeys, ReadKeys, Settings, WalkKeys, WriteKeys};
use crate::progress::Progress;
use crate::summary::{secs, text};
use bookminer::cut::{cut, CutReport};
use clap::Args;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Keep the part of a book that the walk under a window reaches.
///
/// Writes OUT, in IN's format (an .egbk2 or .egbk book as .egbk3): the
/// start position's record and every record the walk from `start` arrives
/// at under the window (deviation, error, max_ply), in walk order. In an
/// Edax book, links to records not kept are removed, the best of them
/// becoming the leaf when it beats the leaf (as Edax's `book prune`).
/// OUT appears only when complete and is never IN; an OUT named for
/// another format (.dat, .egbk3, .egbk2, .egbk) than the one written, or
/// for none, is refused (status 2): `convert` changes formats.
#[derive(Args, Debug)]
pub struct Cut {
    /// The book to read.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The book to write.
    #[arg(value_name = "OUT")]
    output: PathBuf,
    #[command(flatten)]
    walk: WalkKeys,
    #[command(flatten)]
    read: ReadKeys,
    #[command(flatten)]
    log: LogKeys,
    #[command(flatten)]
    progress: ProgressKeys,
    #[command(flatten)]
    write: WriteKeys,
}

impl Run for Cut {
    fn settings(&self) -> Settings {
        Settings {
            read: self.read.clone(),
            walk: self.walk.clone(),
            log: self.log.clone(),
            progress: self.progress.clone(),
            write: self.write.clone(),
            ..Settings::default()
        }
    }

    fn files(&self, _config: &Config) -> Files {
        Files {
            read: vec![self.input.clone()],
            written: vec![self.output.clone()],
            named: vec![self.output.clone()],
            ..Files::default()
        }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_cut(config, &self.input, &self.output)
    }
}

fn run_cut(config: &Config, input: &Path, output: &Path) -> Result<u8, AppError> {
    check_out_named(output, "cut")?;
    stop_on_interrupt("nothing will be written");
    let shown = RefCell::new(Progress::default());
    let book = open_book(input, config, &mut shown.borrow_mut())?;
    check_out_name(output, book.format().kept_as(), "cut")?;
    let report = with_control_of(book.counts(), book.format(), "the book", &shown, |control| {
        Ok(cut(book, &config.walk.start, config.walk.window, output, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `cut`'s summary as one JSON object (`--summary json`).
fn json(report: &CutReport) -> Value {
    json!({
        "command": "cut",
        "output": text(&report.out),
        "records_read": report.read,
        "records_kept": report.kept,
        "links_pruned": report.links_pruned,
        "leaves_replaced": report.leaves_replaced,
        "elapsed_seconds": secs(report.elapsed),
    })
}

/// A few command lines for cut's manual page (`bookminer man cut`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] =
    &[("Keep what the window reaches.", "bookminer cut book.dat near.dat --deviation 2")];
