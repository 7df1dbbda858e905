//! `synth`: a realistic book of any size, the same for the same options.

use crate::app::book::inputs_are_good;
use crate::app::control::with_control;
use crate::app::ending::end;
use crate::app::error::AppError;
use crate::app::interrupt::stop_on_interrupt;
use crate::app::run::{Files, Run};
use crate::config::{choice, Config, LogKeys, ProgressKeys, Settings, WriteKeys};
use crate::progress::Progress;
use crate::summary::{secs, text};
use bookminer::book::Format;
use bookminer::files::{ensure_dir, folder_of, AtomicFile};
use bookminer::synth::{synthesize_in, SynthError, SynthOptions, SynthReport};
use clap::Args;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Write a realistic book of N positions (for tests, benchmarks and the
/// sample book); the same options always give the same file.
///
/// The format is the one OUT's name says (.dat Edax's; .egbk3, .egbk2,
/// .egbk Egaroucid's), or the one --book-format names (which a name
/// that says no format needs).
///
/// Lines are grown from the initial position a level of discs at a time,
/// by a cheap evaluation with seeded noise, down to the end of the game;
/// every move whose child is in the book is linked, the best other move
/// is the leaf (2-ply negamax), each record is what Edax's `book
/// negamax` makes of it (value, bounds, counts, link scores), then a
/// fraction of scores is changed so that every mode finds mismatches.
/// Memory grows with the largest level of discs (a small fraction of
/// the book; two levels are held at a time); the rest waits in unnamed
/// temporary files beside OUT, about twice the book's size, gone when
/// synth ends.
#[derive(Args, Debug)]
pub struct Synth {
    /// Number of positions.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=i32::MAX as u64))]
    positions: u64,
    /// Seed of the random choices.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Fraction of positions (0 to 1) given one wrong score.
    #[arg(long, value_name = "F", default_value_t = 0.02, value_parser = parse_fraction)]
    perturb: f64,
    /// Book format: Edax's book.dat, or Egaroucid's .egbk3 (values and
    /// leaves only: its links are the moves whose child is in the book),
    /// .egbk2 or .egbk (values only, boards in any symmetric image).
    /// Default: the format OUT's name says (.dat, .egbk3, .egbk2,
    /// .egbk); a name that says another format than this one is
    /// refused.
    #[arg(long, value_parser = choice::<Format>(), value_name = "FORMAT", ignore_case = true)]
    book_format: Option<Format>,
    /// The book file to write (whole or not at all; an existing one only with --force).
    #[arg(value_name = "OUT")]
    path: PathBuf,
    #[command(flatten)]
    log: LogKeys,
    #[command(flatten)]
    progress: ProgressKeys,
    #[command(flatten)]
    write: WriteKeys,
}

impl Run for Synth {
    fn settings(&self) -> Settings {
        Settings {
            log: self.log.clone(),
            progress: self.progress.clone(),
            write: self.write.clone(),
            ..Settings::default()
        }
    }

    fn files(&self, _config: &Config) -> Files {
        Files { written: vec![self.path.clone()], named: vec![self.path.clone()], ..Files::default() }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        let options = SynthOptions { positions: self.positions as usize, seed: self.seed, perturb: self.perturb };
        run_synth(config, self.book_format, &options, &self.path)
    }
}

/// A number from 0 to 1.
fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("expected a number from 0 to 1, found \"{text}\"")),
    }
}

/// The format `synth` writes: the one asked for, else the one OUT's name
/// says (`.dat`, `.egbk3`, `.egbk2`, `.egbk`). A name that says another
/// format than the one asked for is refused, as the other writers refuse
/// it, and so is a name that says none without --book-format, as `convert`
/// refuses one without --to.
fn synth_format(path: &Path, asked: Option<Format>) -> Result<Format, AppError> {
    let named = Format::named_by(path);
    match (asked, named) {
        (Some(written), Some(named)) if written != named => {
            Err(AppError::OutName {
                output: path.to_path_buf(),
                named,
                written,
                command: "synth --book-format",
                // synth writes every format bookminer reads.
                remedy: "name OUT for that format, or leave out --book-format: synth then writes the format OUT's name says",
            })
        }
        (Some(format), _) | (None, Some(format)) => Ok(format),
        (None, None) => Err(AppError::Usage(format!(
            "{}: cannot tell the format to write from the name; synth writes Edax books (.dat) and Egaroucid's (.egbk3, .egbk2, .egbk): name OUT so, or give --book-format edax|egbk3|egbk2|egbk",
            path.display()
        ))),
    }
}

fn run_synth(config: &Config, asked: Option<Format>, options: &SynthOptions, path: &Path) -> Result<u8, AppError> {
    let began = Instant::now();
    let format = synth_format(path, asked)?;
    let io = |source| AppError::Io { path: path.to_path_buf(), source };
    let folder = folder_of(path);
    ensure_dir(folder).map_err(io)?;
    stop_on_interrupt("nothing will be written");
    let mut file = AtomicFile::create_named(path).map_err(io)?;
    inputs_are_good(config);
    let shown = RefCell::new(Progress::default());
    let report = with_control(None, &shown, |control| {
        synthesize_in(format, options, &mut file, folder, control).map_err(|e| match e {
            SynthError::Write(source) => io(source),
            SynthError::Spill(source) => {
                AppError::Scratch { output: path.to_path_buf(), dir: folder.to_path_buf(), source }
            }
            other => AppError::Synth(other),
        })
    })?;
    file.commit().map_err(io)?;
    let elapsed = began.elapsed();
    let human = report.written(path, elapsed).to_string();
    end(human, || json(path, &report, elapsed), Some(path))?;
    Ok(0)
}

/// `synth`'s summary as one JSON object (`--summary json`).
fn json(path: &Path, report: &SynthReport, elapsed: Duration) -> Value {
    json!({
        "command": "synth",
        "output": text(path),
        "positions": report.positions,
        "links": report.links,
        "leaves": report.leaves,
        "passes": report.passes,
        "perturbed": report.perturbed,
        "elapsed_seconds": secs(elapsed),
    })
}

/// A few command lines for synth's manual page (`bookminer man synth`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("A realistic synthetic book of 100,000 positions.", "bookminer synth --positions 100000 test.dat"),
    ("The same as an Egaroucid book: the format the name says.", "bookminer synth --positions 100000 test.egbk3"),
];
