//! The contract each command of src/commands/ fulfils ([`Run`]), and the
//! files it reads and writes ([`Files`]).

use crate::app::error::AppError;
use crate::config::{Config, Settings};
use bookminer::mine::OneOutput;
use std::path::{Path, PathBuf};

/// A command, described once in its own file of src/commands/: its flags
/// are the clap derive of the type that implements this, and this says
/// the rest (docs/architecture.md, how to add a command).
pub trait Run {
    /// The flags it took after its name, each over its config key.
    fn settings(&self) -> Settings;
    /// The files it reads and writes, as far as its command line and the
    /// config tell: what the refusals of [`check_files`] look at.
    fn files(&self, config: &Config) -> Files;
    /// Runs it; the `u8` is the exit status when it ran to the end.
    fn run(&self, config: &Config) -> Result<u8, AppError>;
    /// A refusal from its command line alone, made before any other.
    fn refuse(&self) -> Result<(), AppError> {
        Ok(())
    }
    /// For a command that prints what the command line's own definition
    /// (`cli`, and the manual pages' `examples`) makes, made before the
    /// config is read (a bad config.toml does not stop it): its exit status
    /// once printed.
    fn document(&self, _cli: fn() -> clap::Command, _examples: crate::manual::Examples) -> Option<u8> {
        None
    }
    /// Where mining writes its lines when they are named before the
    /// command (`bookminer -o FILE mine`): only `mine` takes it.
    fn given_before(&mut self, _output: Option<OneOutput>) {}
    /// The arguments clap was handed in place of those written (a board
    /// starting with `-`, handed with `.`): `(handed, written)` pairs, for
    /// the command that takes boards to put back.
    fn written_as(&mut self, _handed: &[(String, String)]) {}
}

/// The files a command reads and writes ([`Run::files`]).
#[derive(Debug, Default)]
pub struct Files {
    /// The files it reads (the config file is added by [`check_files`]).
    pub read: Vec<PathBuf>,
    /// Every file it writes: OUT, receipts, out_dir's files, the journal,
    /// pictures and charts.
    pub written: Vec<PathBuf>,
    /// The files its command line names for it to write (OUT, `-o FILE`),
    /// refused when they exist unless --force says to replace them. The
    /// files of out_dir are bookminer's own, replaced by each run (README,
    /// one run, one set of files).
    pub named: Vec<PathBuf>,
    /// Its own journal (extend's, which every growth command and merge
    /// with an engine keep): the journal's to check, which refuses one in
    /// use naming its run.
    pub own_journal: Option<PathBuf>,
}

impl Files {
    /// The files of a command that writes OUT from IN and keeps extend's
    /// journal, its own (extend and every growth command).
    pub fn growth(input: &Path, output: &Path, config: &Config) -> Files {
        let journal = config.lines.out_dir.join(bookminer::growth::JOURNAL);
        Files {
            read: vec![input.to_path_buf()],
            written: vec![output.to_path_buf(), journal.clone()],
            named: vec![output.to_path_buf()],
            own_journal: Some(journal),
        }
    }
}
