//! `recalculate`: Search leaves again as Egaroucid's "Recalculate leaves" does.

use super::learn::{run_learning, Asked, LearnFlags};
use crate::app::error::AppError;
use crate::app::run::{Files, Run};
use crate::config::{
    Config, DeepenKeys, EngineKeys, ExtendKeys, LineKeys, LogKeys, ProgressKeys, ReadKeys, Settings, WalkKeys,
    WriteKeys,
};
use bookminer::growth::policies::learn::{Errors, Which};
use clap::Args;
use std::path::PathBuf;

/// Search leaves again as Egaroucid's "Recalculate leaves" does (docs/egaroucid.md).
///
/// Egaroucid's book_recalculate_leaf from --start (the initial position
/// by default): every position reached over links within
/// --error-per-move and --error-sum, up to --depth, whose leaf is
/// illegal, a link's move, or searched below the level has its leaf
/// searched again at the level, its links excluded. The level is the
/// start position's record's unless --level says otherwise, and is
/// named before the first search. `deepen` raises records; this raises
/// leaves, as Egaroucid does. OUT is IN with those leaves, no negamax.
/// IN of another format than .egbk3 is converted first, and OUT named .dat
/// is converted last, as `convert` does (an Edax book keeps no leaf's
/// level). The engines, the journal ({out_dir}/extend.jsonl) and the
/// statuses are extend's.
#[derive(Args, Debug)]
#[command(mut_arg("level", |arg| arg.help(
    "Search leaves again at level L (default: the level of the start position's record) [config: level]"
)))]
pub struct Recalculate {
    /// The book to read, of any format bookminer reads (not .egbk3: converted first, as `convert` does).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The book to write, in the format its name says (.egbk3 or .dat); whole or not at all, an existing one only with --force.
    #[arg(value_name = "OUT")]
    output: PathBuf,
    #[command(flatten)]
    learn: LearnFlags,
    /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
    /// deleted) and search everything anew, as after a change of engine
    #[arg(long)]
    fresh: bool,
    #[command(flatten)]
    level: DeepenKeys,
    #[command(flatten)]
    engines: EngineKeys,
    #[command(flatten)]
    extend: ExtendKeys,
    #[command(flatten)]
    walk: WalkKeys,
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

impl Run for Recalculate {
    fn settings(&self) -> Settings {
        Settings {
            deepen: self.level.clone(),
            engines: self.engines.clone(),
            extend: self.extend.clone(),
            walk: self.walk.clone(),
            line: self.line.clone(),
            read: self.read.clone(),
            log: self.log.clone(),
            progress: self.progress.clone(),
            write: self.write.clone(),
            ..Settings::default()
        }
    }

    fn files(&self, config: &Config) -> Files {
        Files::growth(&self.input, &self.output, config)
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        let flags = &self.learn;
        let errors = Errors { per_move: flags.error_per_move, sum: flags.error_sum, leaf: 0 };
        let asked = Asked { depth: flags.depth, errors, loops: 1 };
        run_learning(config, (&self.input, &self.output), self.fresh, asked, ("recalculate", Which::Recalculate))
    }
}

/// The manual page's examples: what each is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[(
    "Every leaf within the errors below level 21 searched at 21.",
    "bookminer recalculate book.egbk3 raised.egbk3 --level 21",
)];
