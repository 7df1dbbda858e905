//! `mine`: the book walked, and the lines where it disagrees with itself
//! written (modes 1–4). With no command, bookminer mines too
//! ([`super::implied`]), with the flags given before any command.

use crate::app::book::book_and_positions;
use crate::app::book::{book_of, open_book};
use crate::app::control::with_control_of;
use crate::app::ending::{end, end_on_stderr};
use crate::app::error::AppError;
use crate::app::interrupt::{cancel, stop_on_interrupt};
use crate::app::options::line_style;
use crate::app::run::{Files, Run};
use crate::config::{
    BookKeys, Config, LineKeys, LogKeys, MineKeys, MiningModeParser, ProgressKeys, ReadKeys, Settings, WalkKeys,
    WriteKeys, WrittenKeys, MINING_MODE_HELP,
};
use crate::progress::Progress;
use crate::summary::{secs, text};
use bookminer::mine::{mine, MineError, MineOptions, MineReport, OneOutput};
use bookminer::rules::modes::Rules;
use bookminer::run::{Interrupted, Left, RunError};
use clap::Args;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Walk the book and write the lines where it disagrees with itself.
///
/// Writes out_dir/mode{N}.txt (kifu; .jsonl and .obf with --format) for
/// the chosen mode (1–4, or all four from one walk), each file complete
/// or not at all. Needs a book (Edax .dat, Egaroucid .egbk3, .egbk2 or
/// .egbk). A window (--deviation, --error, --max-ply) limits the moves
/// the walk follows. With one mode and one format, -o FILE writes that
/// file instead, and -o - (or --stdout) writes the lines on standard
/// output as they come, the summary on standard error.
#[derive(Args, Debug)]
pub struct Mine {
    /// The book to mine; default: --book, or the config's book.
    #[arg(value_name = "BOOK")]
    path: Option<PathBuf>,
    #[command(flatten)]
    args: MineArgs,
    /// Where mining writes instead of out_dir, when named before the
    /// command (`bookminer -o FILE mine`).
    #[arg(skip)]
    before: Option<OneOutput>,
}

/// The flags of mining (relative paths: from the working directory); each
/// overrides its config key.
#[derive(Args, Debug, Default, Clone)]
pub struct MineArgs {
    #[command(flatten)]
    pub book: BookKeys,
    #[command(flatten)]
    pub read: ReadKeys,
    #[command(flatten)]
    pub mine: MineKeys,
    #[command(flatten)]
    pub written: WrittenKeys,
    #[command(flatten)]
    pub line: LineKeys,
    #[command(flatten)]
    pub walk: WalkKeys,
    #[command(flatten)]
    pub log: LogKeys,
    #[command(flatten)]
    pub progress: ProgressKeys,
    #[command(flatten)]
    pub output: MineOutputArgs,
    #[command(flatten)]
    pub write: WriteKeys,
}

impl MineArgs {
    /// The config keys these flags set.
    pub fn settings(&self) -> Settings {
        Settings {
            book: self.book.clone(),
            read: self.read.clone(),
            mine: self.mine.clone(),
            written: self.written.clone(),
            line: self.line.clone(),
            walk: self.walk.clone(),
            log: self.log.clone(),
            progress: self.progress.clone(),
            write: self.write.clone(),
            ..Settings::default()
        }
    }
}

/// Where a run of one mode and one format writes its lines instead of
/// out_dir (no config key: a file named for one run).
#[derive(Args, Debug, Default, Clone)]
pub struct MineOutputArgs {
    /// Write the lines to FILE instead of {out_dir}/mode{N}.{txt,jsonl,obf},
    /// for a run of one mode and one format; `-`: on standard output, as
    /// they come (the summary then goes to standard error).
    #[arg(short, long, display_order = 17, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The lines on standard output: the same as -o -.
    #[arg(long, display_order = 17, conflicts_with = "output")]
    pub stdout: bool,
}

impl MineOutputArgs {
    /// The output these flags name, if any.
    pub fn named(&self) -> Option<OneOutput> {
        match (self.stdout, &self.output) {
            (true, _) => Some(OneOutput::Stdout),
            (false, Some(name)) => Some(OneOutput::named(name)),
            (false, None) => None,
        }
    }
}

impl Mine {
    /// Where mining writes its lines instead of out_dir (`-o`,
    /// `--stdout`): this command's flag, else the one given before it.
    fn output(&self) -> Option<OneOutput> {
        self.args.output.named().or_else(|| self.before.clone())
    }
}

impl Run for Mine {
    fn settings(&self) -> Settings {
        self.args.settings()
    }

    fn files(&self, config: &Config) -> Files {
        let read = book_and_positions(self.path.as_deref(), config);
        Files { read, ..files(config, self.output()) }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        run_mine(book_of(self.path.as_deref(), config)?, config, self.output())
    }

    fn given_before(&mut self, output: Option<OneOutput>) {
        self.before = output;
    }
}

/// What mining writes (`output`: the one file or standard output named
/// instead of out_dir), and the one file the command line names.
pub fn files(config: &Config, output: Option<OneOutput>) -> Files {
    let named = match &output {
        Some(OneOutput::File(path)) => vec![path.clone()],
        Some(OneOutput::Stdout) | None => Vec::new(),
    };
    Files { written: mine_options(config, output).outputs(), named, ..Files::default() }
}

/// Mines the book at `book_path` into out_dir's files, or into the one
/// `output` names (a file, or standard output as the lines come).
pub fn run_mine(book_path: &Path, config: &Config, output: Option<OneOutput>) -> Result<u8, AppError> {
    let options = mine_options(config, output);
    if options.modes.is_empty() {
        return Err(AppError::Usage(
            "mode 5 inspects positions: run `bookminer inspect`, or set mode to 1-4 or \"all\"".into(),
        ));
    }
    // Before loading: a refusal should not wait for a large book.
    options.check_outputs(book_path)?;
    stop_on_interrupt("no output file will be changed");
    let shown = RefCell::new(Progress::default());
    let book = open_book(book_path, config, &mut shown.borrow_mut())?;
    if cancel().is_set() {
        return Err(AppError::Mine(RunError::interrupted(Left::Outputs)(Interrupted).into()));
    }
    let streamed = options.output == Some(OneOutput::Stdout);
    let (counts, format) = (book.counts(), book.format());
    let report = with_control_of(counts, format, "the files out", &shown, |control| {
        mine(book, &config.walk.start, &options, control).map_err(|e| match e {
            // Whoever read the lines stopped reading (`| head`): no failure.
            MineError::Run(RunError::Io { source, .. })
                if streamed && source.kind() == std::io::ErrorKind::BrokenPipe =>
            {
                AppError::StdoutClosed
            }
            e => AppError::Mine(e),
        })
    });
    let report = report?;
    match &options.output {
        None => end(report.to_string(), || json(&report), Some(&config.lines.out_dir))?,
        Some(OneOutput::File(path)) => end(report.to_string(), || json(&report), Some(path))?,
        Some(OneOutput::Stdout) => end_on_stderr(report.to_string(), || json(&report)),
    }
    Ok(0)
}

/// What the config asks mining to do; no mode at all for mode 5. `output`:
/// the one file (or standard output) named instead of out_dir.
pub fn mine_options(config: &Config, output: Option<OneOutput>) -> MineOptions {
    MineOptions {
        modes: config.mine.mode.mining_modes(),
        rules: Rules { min_gap: config.mine.min_gap, linkless: config.mine.mode1_linkless },
        style: line_style(config),
        formats: config.lines.format,
        bom: config.lines.bom,
        unique_lines: config.lines.unique_lines,
        out_dir: config.lines.out_dir.clone(),
        output,
        window: config.walk.window,
    }
}

/// `mine`'s summary as one JSON object (`--summary json`).
fn json(report: &MineReport) -> Value {
    let modes: Vec<Value> = report
        .modes
        .iter()
        .map(|m| {
            let files: Vec<Value> = m
                .files
                .iter()
                .map(|f| json!({"format": f.format.name(), "path": text(&f.path), "lines": f.lines}))
                .collect();
            json!({
                "mode": m.mode.number(),
                "above": m.above,
                "below": m.below,
                "lines_written": m.lines_written,
                "duplicates_dropped": m.duplicates_dropped,
                "files": files,
            })
        })
        .collect();
    json!({
        "command": "mine",
        "positions_loaded": report.positions_loaded,
        "positions_walked": report.walk.positions,
        "edges": report.walk.edges,
        "arrivals": report.walk.arrivals,
        "modes": modes,
        "removed": report.replaced.removed.iter().map(|p| text(p)).collect::<Vec<_>>(),
        "kept": report.replaced.kept.iter().map(|(p, why)| json!({"path": text(p), "why": why})).collect::<Vec<_>>(),
        "walk_seconds": secs(report.walk_time),
        "elapsed_seconds": secs(report.elapsed),
    })
}

/// The command line's definition with `mine --mode` offering only what
/// `mine` does (1–4, all: mode 5 is `inspect`), where the top level's
/// `--mode`, the same key, offers 5 too.
pub fn only_mining_modes(cli: clap::Command) -> clap::Command {
    cli.mut_subcommand("mine", |mine| {
        mine.mut_arg("mode", |mode| mode.value_parser(MiningModeParser).help(MINING_MODE_HELP))
    })
}

/// A few command lines for mine's manual page (`bookminer man mine`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("Modes 1 to 4 in one walk: out/mode1.txt to out/mode4.txt.", "bookminer mine book.dat --mode all"),
    ("Only near the best line, 20 plies deep.", "bookminer mine book.dat --mode all --deviation 2 --max-ply 20"),
];
