//! What every growth command does before its own work: its engines
//! named and greeted, its paths and journal, its book read.

use crate::app::book::load_beside;
use crate::app::error::AppError;
use crate::app::interrupt::{cancel, stop_on_interrupt, wind_down_on_interrupt};
use crate::app::options::extend_options;
use crate::app::outputs::{check_out_name, check_out_named, unnamed_format};
use crate::app::run::Files;
use crate::config::{Config, EngineKeys, ExtendKeys, LineKeys, LogKeys, ProgressKeys, ReadKeys, Settings, WriteKeys};
use crate::progress::Progress;
use bookminer::book::Book;
use bookminer::convert::OutFormat;
use bookminer::engine::EngineNamed;
use bookminer::files::input::Writer;
use bookminer::growth::{GrowthOptions, GrowthPaths};
use clap::Args;
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// What every growth command takes (extend, deviate, enhance, play, fill,
/// grow, deepen, learn, recalculate): IN, OUT, `--fresh` and the key groups
/// of a growth run, declared once. A command flattens it beside its own
/// arguments; one whose IN or OUT says more rewords its help with `mut_arg`.
#[derive(Args, Debug)]
pub struct GrowthFront {
    /// The book to read.
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The book to write (whole or not at all; an existing one only with --force).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
    /// deleted) and search everything anew, as after a change of engine
    #[arg(long)]
    pub fresh: bool,
    #[command(flatten)]
    engines: EngineKeys,
    #[command(flatten)]
    extend: ExtendKeys,
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

impl GrowthFront {
    /// The key groups given on the command line; a command adds its own
    /// groups with `Settings { walk, ..front.settings() }`.
    pub fn settings(&self) -> Settings {
        Settings {
            engines: self.engines.clone(),
            extend: self.extend.clone(),
            line: self.line.clone(),
            read: self.read.clone(),
            log: self.log.clone(),
            progress: self.progress.clone(),
            write: self.write.clone(),
            ..Settings::default()
        }
    }

    /// The files the run reads and writes: IN, OUT and the journal.
    pub fn files(&self, config: &Config) -> Files {
        Files::growth(&self.input, &self.output, config)
    }
}

/// The engines the config names, each with its workers and protocol if said.
pub fn engine_commands(config: &Config, command: &str) -> Result<Vec<EngineNamed>, AppError> {
    if config.engines.engines.is_empty() {
        return Err(AppError::Usage(format!(
            "{command} needs an engine: --engine \"edax -n 1 -h 14 -eval-file PATH/eval.dat\" (or the config key engine; docs/extend.md)"
        )));
    }
    let command = |e: &crate::config::EngineEntry| EngineNamed {
        command: e.command.clone(),
        workers: e.workers.or(config.engines.workers),
        protocol: e.protocol.or(config.engines.protocol),
    };
    Ok(config.engines.engines.iter().map(command).collect())
}

/// What a command that grows or searches a book (extend, grow, deepen,
/// add) has once it may begin: its paths checked and journal taken, its
/// engines greeted, its book read and found good for OUT.
pub struct Growing {
    pub paths: GrowthPaths,
    pub options: GrowthOptions,
    pub book: Book,
    pub shown: RefCell<Progress>,
}

/// How a growth command stops on Ctrl-C.
#[derive(Clone, Copy)]
pub enum OnInterrupt {
    /// The first finishes what is under way and writes OUT (grow, deepen).
    WindDown,
    /// The first stops at once, the journal kept (extend, add).
    Stop,
}

/// The steps every growth command takes before its own work, in this
/// order: refusals first (a refusal should not wait for a large book), the
/// engines greeted while the book is read beside them (one that cannot
/// start says so at once, without waiting for the book), then the book.
pub fn begin_growth(
    config: &Config,
    (input, output): (&Path, &Path),
    fresh: bool,
    command: &'static str,
    on_interrupt: OnInterrupt,
) -> Result<Growing, AppError> {
    begin_growth_reading(config, (input, &[], output), fresh, command, on_interrupt)
}

/// [`begin_growth`] for a command that writes OUT in the format its name
/// says, whatever the format of IN (`learn`, `recalculate`, as `convert`).
pub fn begin_growth_into(
    config: &Config,
    (input, output): (&Path, &Path),
    fresh: bool,
    command: &'static str,
    on_interrupt: OnInterrupt,
) -> Result<(Growing, OutFormat), AppError> {
    let Some(to) = OutFormat::of_path(output) else {
        return Err(unnamed_format(output, &format!("{command} writes"), ""));
    };
    let growing = begin(config, (input, &[], output), fresh, command, (on_interrupt, false))?;
    Ok((growing, to))
}

/// [`begin_growth`] for a command that reads `also_read` beside its book
/// (add's game files): OUT and the journal are refused over any of them.
pub fn begin_growth_reading(
    config: &Config,
    (input, also_read, output): (&Path, &[PathBuf], &Path),
    fresh: bool,
    command: &'static str,
    on_interrupt: OnInterrupt,
) -> Result<Growing, AppError> {
    begin(config, (input, also_read, output), fresh, command, (on_interrupt, true))
}

/// What [`begin_growth_reading`] does; OUT's name checked against IN's
/// format when `same_format`.
fn begin(
    config: &Config,
    (input, also_read, output): (&Path, &[PathBuf], &Path),
    fresh: bool,
    command: &'static str,
    (on_interrupt, same_format): (OnInterrupt, bool),
) -> Result<Growing, AppError> {
    let engines = engine_commands(config, command)?;
    let writer = match also_read.is_empty() {
        true => Writer::Growth(command),
        false => Writer::Add,
    };
    let paths = GrowthPaths::of_command(writer, (input, also_read), output, &config.lines.out_dir)?.fresh(fresh);
    check_out_named(output, command)?;
    match on_interrupt {
        OnInterrupt::WindDown => wind_down_on_interrupt(),
        OnInterrupt::Stop => stop_on_interrupt("the journal is kept; OUT will not be written"),
    }
    let mut options = extend_options(config);
    // The book is read while the engines are greeted, each mostly on a
    // core of its own; what the greeting says comes first all the same.
    let book = load_beside(input, config);
    // Only a second Ctrl-C stops the greeting when the first winds down:
    // after one, the run goes on, dispatches nothing and writes the book.
    options.engines = bookminer::growth::greet(&paths, &engines, options.engine_timeout, cancel())?;
    let shown = RefCell::new(Progress::default());
    let book = book.wait(config, &mut shown.borrow_mut())?;
    if same_format {
        check_out_name(output, book.format().kept_as(), command)?;
    }
    Ok(Growing { paths, options, book, shown })
}
