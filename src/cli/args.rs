//! Command-line syntax: the top level (the global flags, and mining's
//! before any command); each command's flags are its own, in its file of
//! src/commands/. The flags that override config keys are declared with
//! the keys themselves, in `crate::config::Settings`.

use crate::app::run::Run;
use crate::commands::mine::MineArgs;
use crate::commands::{implied, Command};
use crate::config::{InspectKeys, Settings};
use crate::summary::SummaryFormat;
use clap::Parser;
use std::path::{Path, PathBuf};

/// Walks an Othello opening book (Edax's book.dat, or Egaroucid's .egbk3,
/// .egbk2 or .egbk, told by its first bytes and size) and writes the kifu
/// of the places where it disagrees with itself: leaves that beat every
/// link, links whose score disagrees with the position they lead to. Feed the kifu to an engine to
/// re-search them.
///
/// With no command, does what the config file says (mode 1–4 or "all": mine;
/// mode 5: inspect). Exit status: 0 done; 1 problems found (verify) or
/// positions missing or malformed (inspect); 2 bad config, book (for verify:
/// a file that is no book at all), game file or arguments (an output that is
/// the input, or exists and is not a regular file; an OUT or -o file that
/// exists, without --force); 3 a file could not be read or written;
/// 130 interrupted (Ctrl-C, SIGTERM or SIGHUP), nothing changed.
///
/// Outputs are written beside their final name and renamed into place when
/// complete. A file the command line names (OUT, -o FILE) that exists is
/// refused before any work, naming what it holds, unless --force says to
/// replace it; the files of out_dir are bookminer's own, replaced by each
/// run. An output named by a symbolic link replaces the file the link leads
/// to, and the link is kept.
#[derive(Parser, Debug)]
#[command(name = "bookminer", version, max_term_width = 100)]
pub struct Cli {
    /// Config file (TOML). Default: ./config.toml if it exists, else built-in
    /// defaults. Relative paths in it are taken from its own folder (from
    /// the working directory for one that is no regular file, such as
    /// /dev/null).
    #[arg(short, long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// No human summary and no progress (--summary json is printed all the
    /// same); warnings and errors still go to stderr (and everything to the
    /// log file, as log_level says).
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// More on stderr, which shows warnings and errors only: -v adds what a
    /// run did (info), -vv debug, -vvv trace. The log file gets log_level's
    /// whatever this says.
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,

    /// The summary at the end: human (text), or json (one JSON object on
    /// standard output: the command, its counts, paths, and times in
    /// seconds; for scripts).
    #[arg(long, global = true, value_enum, value_name = "FORMAT", default_value_t, ignore_case = true)]
    pub summary: SummaryFormat,

    /// With no command: the flags of `mine`, and mode 5's positions file.
    /// A book must be given: `mine BOOK`, --book FILE, or `book` in the
    /// config file.
    #[command(flatten)]
    pub mine: MineArgs,
    #[command(flatten)]
    pub inspect: InspectKeys,

    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The flags given: those before the command (the top level's), then
    /// the command's own, which override them.
    pub fn settings(&self, command: &dyn Run) -> [Settings; 2] {
        let top = Settings { inspect: self.inspect.clone(), ..self.mine.settings() };
        [top, command.settings()]
    }

    /// The config file read: the one given, else ./config.toml if present.
    pub fn config_file(&self) -> Option<PathBuf> {
        let default_file = Path::new("config.toml");
        self.config.clone().or_else(|| default_file.is_file().then(|| default_file.to_path_buf()))
    }
}

/// The command line's definition: the derived one, with `mine --mode`
/// offering only what `mine` does (1–4, all: mode 5 is `inspect`).
/// `--help`, the shell completions and the manual pages are made from it.
pub fn command() -> clap::Command {
    crate::commands::mine::only_mining_modes(<Cli as clap::CommandFactory>::command())
}

/// The command line parsed, and the command to run (with none named:
/// mining, or inspect as the config's mode says). A board written as `inspect` takes it (OBF's
/// 64 squares and the side to move) may start with `-`, which clap would
/// take for a flag: such an argument after `inspect` is handed to clap
/// with its leading `-` written `.` (the same empty squares), and given
/// back as written once parsed. No flag is 65 squares long. A mistake
/// clap reports ends the run, with a tip where bookminer has one.
pub fn parse() -> (Cli, Box<dyn Run>) {
    let (args, given) = crate::commands::inspect::boards_dotted(std::env::args_os());
    let mut cli = command()
        .try_get_matches_from(args)
        .and_then(|matches| <Cli as clap::FromArgMatches>::from_arg_matches(&matches))
        .unwrap_or_else(|error| with_tip(error).exit());
    let mut command = cli.command.take().map_or_else(implied, Command::into_run);
    command.given_before(cli.mine.output.named());
    command.written_as(&given);
    (cli, command)
}

/// A parse error, with a tip for a command that is a file: `bookminer
/// book.dat` means `bookminer mine book.dat`.
fn with_tip(mut error: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::String(word)) = error.get(ContextKind::InvalidSubcommand) else { return error };
    if error.kind() != clap::error::ErrorKind::InvalidSubcommand || !std::path::Path::new(word).is_file() {
        return error;
    }
    let tip = format!("'{word}' is a file, not a command: to mine it, run `bookminer mine {word}`");
    let mut tips = match error.get(ContextKind::Suggested) {
        Some(ContextValue::StyledStrs(tips)) => tips.clone(),
        _ => Vec::new(),
    };
    tips.insert(0, tip.into());
    error.insert(ContextKind::Suggested, ContextValue::StyledStrs(tips));
    error
}
