//! The commands of `bookminer`, a file each: the file's type is the
//! command's flags (clap's derive; its doc comment is the command's help)
//! and implements [`Run`]: the flags it takes over config keys, the files
//! it reads and writes, how it runs, and its summary, human and JSON.
//! [`Command`] and [`Command::into_run`] are the one place that lists them
//! (docs/architecture.md: how to add a command).

use crate::app::{book_of, AppError, Files, Run};
use crate::config::{Config, RunMode, Settings};
use bookminer::mine::OneOutput;
use clap::Subcommand;

pub mod add;
pub mod check;
pub mod completions;
pub mod convert;
pub mod cut;
pub mod deepen;
pub mod deviate;
pub mod diff;
pub mod enhance;
pub mod extend;
pub mod fill;
pub mod fix;
pub mod grow;
pub mod inspect;
pub mod learn;
pub mod man;
pub mod merge;
pub mod mine;
pub mod new;
pub mod play;
pub mod recalculate;
pub mod serve;
pub mod stats;
pub mod synth;
pub mod verify;

/// The commands, in the order `--help` lists them.
#[derive(Subcommand, Debug)]
pub enum Command {
    Mine(mine::Mine),
    Inspect(inspect::Inspect),
    Verify(verify::Verify),
    Synth(synth::Synth),
    Convert(convert::Convert),
    Cut(cut::Cut),
    Fix(fix::Fix),
    Extend(extend::Extend),
    Deviate(deviate::Deviate),
    Learn(learn::Learn),
    Recalculate(recalculate::Recalculate),
    Play(play::Play),
    Fill(fill::Fill),
    Enhance(enhance::Enhance),
    Grow(grow::Grow),
    Deepen(deepen::Deepen),
    Merge(merge::Merge),
    Diff(diff::Diff),
    Check(check::Check),
    New(new::New),
    Add(add::Add),
    Completions(completions::Completions),
    Man(man::Man),
    Stats(stats::Stats),
    Serve(serve::Serve),
}

impl Command {
    /// The command named, to run.
    pub fn into_run(self) -> Box<dyn Run> {
        match self {
            Command::Mine(c) => Box::new(c),
            Command::Inspect(c) => Box::new(c),
            Command::Verify(c) => Box::new(c),
            Command::Synth(c) => Box::new(c),
            Command::Convert(c) => Box::new(c),
            Command::Cut(c) => Box::new(c),
            Command::Fix(c) => Box::new(c),
            Command::Extend(c) => Box::new(c),
            Command::Deviate(c) => Box::new(c),
            Command::Learn(c) => Box::new(c),
            Command::Recalculate(c) => Box::new(c),
            Command::Play(c) => Box::new(c),
            Command::Fill(c) => Box::new(c),
            Command::Enhance(c) => Box::new(c),
            Command::Grow(c) => Box::new(c),
            Command::Deepen(c) => Box::new(c),
            Command::Merge(c) => Box::new(c),
            Command::Diff(c) => Box::new(c),
            Command::Check(c) => Box::new(c),
            Command::New(c) => Box::new(c),
            Command::Add(c) => Box::new(c),
            Command::Completions(c) => Box::new(c),
            Command::Man(c) => Box::new(c),
            Command::Stats(c) => Box::new(c),
            Command::Serve(c) => Box::new(c),
        }
    }
}

/// What runs with no command named: mining, with the flags given before
/// where it writes (-o, --stdout), or inspect when the config's mode is 5.
pub fn implied() -> Box<dyn Run> {
    Box::new(Implied { output: None })
}

/// No command named ([`implied`]).
struct Implied {
    /// Where mining writes its lines instead of out_dir (-o, --stdout).
    output: Option<OneOutput>,
}

impl Run for Implied {
    /// The flags before any command are the top level's, applied first.
    fn settings(&self) -> Settings {
        Settings::default()
    }

    /// Mining's files, and the book and positions file as the config names them.
    fn files(&self, config: &Config) -> Files {
        let read = config.book.iter().chain(&config.positions_file).cloned().collect();
        Files { read, ..mine::files(config, self.output.clone()) }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        match config.mode {
            RunMode::Inspect => inspect::run_inspect(config, None, &[], None, None),
            _ => mine::run_mine(book_of(None, config)?, config, self.output.clone()),
        }
    }

    fn given_before(&mut self, output: Option<OneOutput>) {
        self.output = output;
    }
}
