//! `convert`: any book bookminer reads, written as an Edax or an
//! Egaroucid book.

use crate::app::book::open_book;
use crate::app::control::with_control_of;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::interrupt::stop_on_interrupt;
use crate::app::outputs::{check_out_name_or, out_name_remedy, unnamed_format};
use crate::app::run::{Files, Run};
use crate::config::{choice, Config, LogKeys, ProgressKeys, ReadKeys, Settings, WriteKeys};
use crate::progress::Progress;
use crate::summary::{secs, text};
use bookminer::book::Format;
use bookminer::convert::{convert, ConvertReport, OutFormat};
use clap::Args;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Write any book bookminer reads as an Edax or an Egaroucid book.
///
/// Writes OUT (Edax book.dat or Egaroucid .egbk3) with IN's records in
/// walk order: the initial position first, then each record as the walk
/// first reaches it, then the records it never reaches in file order.
/// Egaroucid to Edax adds a record for each position before a pass and
/// gives every position the leaf Edax needs; Edax to Egaroucid loses link
/// scores, bounds and win/draw/loss counts (the summary counts each).
/// OUT appears only when complete and is never IN. Reads the config's
/// egbk_level (for .egbk books), log_level and log_file.
#[derive(Args, Debug)]
pub struct Convert {
    /// The book to read (Edax .dat, Egaroucid .egbk3, .egbk2 or .egbk).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The book to write.
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// The format to write; default: from OUT's extension (.dat Edax, .egbk3 Egaroucid).
    #[arg(long, value_parser = choice::<OutFormat>(), value_name = "FORMAT", ignore_case = true)]
    to: Option<OutFormat>,
    #[command(flatten)]
    read: ReadKeys,
    #[command(flatten)]
    log: LogKeys,
    #[command(flatten)]
    progress: ProgressKeys,
    #[command(flatten)]
    write: WriteKeys,
}

impl Run for Convert {
    fn settings(&self) -> Settings {
        Settings {
            read: self.read.clone(),
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
        run_convert(config, &self.input, &self.output, self.to)
    }
}

fn run_convert(config: &Config, input: &Path, output: &Path, to: Option<OutFormat>) -> Result<u8, AppError> {
    let to = match to.or_else(|| OutFormat::of_path(output)) {
        Some(to) => {
            check_out_name_or(output, to, "convert --to", remedy)?;
            to
        }
        None => return Err(unnamed_format(output, "bookminer writes", ", or give --to edax|egbk3")),
    };
    stop_on_interrupt("nothing will be written");
    let shown = RefCell::new(Progress::default());
    let book = open_book(input, config, &mut shown.borrow_mut())?;
    let report = with_control_of(book.counts(), book.format(), "the book", &shown, |control| {
        Ok(convert(book, to, output, control)?)
    })?;
    end(report.to_string(), || json(&report), Some(output))?;
    Ok(0)
}

/// `convert`'s summary as one JSON object (`--summary json`).
pub fn json(report: &ConvertReport) -> Value {
    json!({
        "command": "convert",
        "from": report.from.map(|f| f.title()),
        "to": report.to.map(|t| t.to_string()),
        "output": text(&report.out),
        "records_read": report.read,
        "records_written": report.written,
        "reached": report.reached,
        "pass_records_added": report.passes_added,
        "not_in_book": report.not_in_book,
        "left_out_value": report.left_out_value,
        "left_out_pass": report.left_out_pass,
        "link_scores_lost": report.links_lost,
        "link_scores_differing": report.links_differing,
        "bounds_lost": report.bounds_lost,
        "elapsed_seconds": secs(report.elapsed),
    })
}

/// What to do about an OUT whose name says another format than `--to`:
/// name OUT for it, or give --to the format the name says, if bookminer
/// writes it.
fn remedy(named: Format) -> &'static str {
    match OutFormat::of(named) {
        None => out_name_remedy(named),
        Some(_) => "name OUT for that format, or give --to the format the name says",
    }
}

/// A few command lines for convert's manual page (`bookminer man convert`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("Edax to Egaroucid.", "bookminer convert book.dat book.egbk3"),
    ("An Egaroucid 6 book for Edax.", "bookminer convert old.egbk2 book.dat"),
];
