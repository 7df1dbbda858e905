//! The engines: what searches a position's leaf for every command that
//! grows or mends a book (`new`, `add`, `extend`, `grow`, `deepen`,
//! `merge`), and nothing of books or of growth.
//!
//! * [`search`]: the words they share: a [`search::Query`] in, an
//!   [`search::Answer`] or a [`search::Fault`] out, through the
//!   [`search::Searcher`] and [`search::Launcher`] traits.
//! * [`fleet`]: every engine's workers at once, supervised: an engine that
//!   keeps failing is retired, a position that fails everywhere stops the
//!   run.
//! * [`journal`]: every answer kept as it comes, so that no search is made
//!   twice, across runs too.
//! * [`ask`]: a batch of searches answered, the journal first, then the
//!   fleet.
//! * [`scratch`]: the run's folder for the files its engines need.
//! * [`process`]: one engine process, whatever it speaks: its group, its
//!   streams, their limits and deadlines.
//! * [`console`]: the trait every protocol implements; [`protocol`]: the
//!   protocols, listed once; [`greeting`]: which one an engine speaks,
//!   told from its answer to a probe; [`launch`]: a worker's engine, a
//!   process and its console.
//! * [`edax`], [`egaroucid`]: the protocols, a folder each (Edax's console
//!   with its books of excluded moves; Egaroucid for Console). Another is
//!   a folder beside them and a variant of [`Protocol`].

pub mod ask;
pub mod console;
pub mod edax;
pub mod egaroucid;
pub mod fleet;
pub mod greeting;
pub mod journal;
pub mod launch;
pub mod process;
pub mod protocol;
pub mod scratch;
pub mod search;
pub mod summary;

use crate::failure::ErrorKind;
use crate::run::{Cancel, Interrupted, Left, RunError, Stopped};
use console::WorkerFiles;
use fleet::{EngineSet, GaveUp};
use journal::JournalError;
use launch::ProcessLauncher;
pub use protocol::Protocol;
use search::{Fault, Query};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An engine as the user names it: a command line, and, if said, its
/// protocol and how many of its processes run at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineNamed {
    /// The command line.
    pub command: String,
    /// How many of its processes run at once; `None`: its protocol's default.
    pub workers: Option<usize>,
    /// The protocol it speaks; `None`: told from its greeting.
    pub protocol: Option<Protocol>,
}

/// An engine of the fleet once greeted: a command line speaking
/// `protocol`, run `workers` times at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCommand {
    /// The command line.
    pub command: String,
    /// How many of its processes run at once.
    pub workers: usize,
    /// The protocol it speaks.
    pub protocol: Protocol,
}

/// Why the engines could not answer.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The journal could not be read or written.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The run's folder for the engines' files could not be made, or the
    /// greeting was stopped.
    #[error(transparent)]
    Run(#[from] RunError),
    /// No engine of the fleet could be started and greeted, before the book
    /// was read: each engine's command and its words.
    #[error("no engine could be started{}", started_text(failed))]
    NoEngineStarts {
        /// Each engine's command, and why it did not start.
        failed: Vec<(String, Fault)>,
    },
    /// Every engine was retired: each failed too many times in a row.
    #[error("no engine left: engine `{engine}`, the last, failed {} times in a row, the last time on {query}: {fault}; {}", fleet::RETIRE_AFTER, journal_text(journal, *kept))]
    NoEngineLeft {
        /// The last engine retired.
        engine: String,
        /// The search of the last fault.
        query: Query,
        /// The last fault.
        fault: Fault,
        /// The journal, which keeps every answer so far.
        journal: PathBuf,
        /// Whether the journal holds any answer (else it is left empty, or removed).
        kept: bool,
    },
    /// One position failed on several engines: the position, not the engines, is at fault.
    #[error("{query}: failed on {} engines ({}), last: {fault}; {}", engines.len(), engines.join(", "), journal_text(journal, *kept))]
    Position {
        /// The search that failed.
        query: Query,
        /// The engines it failed on.
        engines: Vec<String>,
        /// The last fault.
        fault: Fault,
        /// The journal, which keeps every answer so far.
        journal: PathBuf,
        /// Whether the journal holds any answer (else it is left empty, or removed).
        kept: bool,
    },
    /// A stop asked for while searches were under way (the journal keeps
    /// every answer given), or while the engines were greeted.
    #[error(transparent)]
    Interrupted(#[from] Stopped),
}

impl EngineError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            EngineError::Journal(e) => e.kind(),
            EngineError::Run(e) => e.kind(),
            EngineError::NoEngineStarts { .. } | EngineError::NoEngineLeft { .. } | EngineError::Position { .. } => {
                ErrorKind::Engine
            }
            EngineError::Interrupted(e) => e.kind(),
        }
    }

    /// A stop while searches were under way: the journal keeps every answer given.
    pub fn stopped(journal: PathBuf) -> EngineError {
        Stopped { stop: Interrupted, left: Left::Journal(journal) }.into()
    }

    /// The error of a fleet that gave up: a stop asked for, or engines
    /// that kept failing; the journal keeps every answer either way.
    pub fn gave_up(gave_up: GaveUp, cancel: Cancel<'_>, journal: &Path) -> EngineError {
        let journal = journal.to_path_buf();
        // Every answer is written before it is used: an empty journal
        // holds none, of this run or an earlier one.
        let kept = std::fs::metadata(&journal).is_ok_and(|m| m.len() > 0);
        match gave_up {
            _ if cancel.is_set() => EngineError::stopped(journal),
            GaveUp::NoEngineLeft { query, engine, fault } => {
                EngineError::NoEngineLeft { engine, query, fault, journal, kept }
            }
            GaveUp::Position { query, engines, fault } => {
                EngineError::Position { query, engines, fault, journal, kept }
            }
        }
    }
}

/// What a run that gave up left of its answers: the journal keeps them,
/// or there were none to keep.
fn journal_text(journal: &Path, kept: bool) -> String {
    match kept {
        true => format!("the journal {} keeps every answer so far", journal.display()),
        false => "no engine answered a search, so no answer was kept".to_string(),
    }
}

/// Each engine that could not be started, and why.
fn started_text(failed: &[(String, Fault)]) -> String {
    failed.iter().map(|(command, fault)| format!("; engine `{command}`: {fault}")).collect()
}

/// Starts one process of each engine of `engines`, greets it and lets it
/// go, all at once, before a run uses its book: the protocol each speaks
/// is told from its answer (or checked, where named), and an engine that
/// cannot start (not found, no evaluation file) is known at once, in its
/// own words. When none starts the run stops here; an engine that alone
/// fails is said in the log and left to the fleet, as the protocol named
/// or the one it was greeted as, which retires it if it keeps failing.
/// `scratch` is the folder its
/// files go in. The engines of the fleet, each with its protocol and
/// workers.
pub fn greet(
    engines: &[EngineNamed],
    timeout: Duration,
    scratch: &Path,
    stop: Cancel<'_>,
) -> Result<Vec<EngineCommand>, EngineError> {
    let told: Vec<Result<Protocol, Fault>> = std::thread::scope(|scope| {
        let greetings: Vec<_> = engines
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let files = WorkerFiles { scratch: scratch.to_path_buf(), engine: i + 1, worker: 0 };
                scope.spawn(move || greeting::tell(&e.command, e.protocol, timeout, &files, stop))
            })
            .collect();
        greetings.into_iter().map(|g| g.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    if stop.is_set() || told.iter().any(|t| matches!(t, Err(Fault::Stopped))) {
        // No search was made yet: the journal holds nothing of this run.
        return Err(Stopped { stop: Interrupted, left: Left::Nothing }.into());
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut fleet = Vec::new();
    let mut failed = Vec::new();
    for (e, told) in engines.iter().zip(told) {
        let protocol = match (told, e.protocol) {
            (Ok(protocol), _) => protocol,
            (Err(fault), named) => {
                failed.push((e.command.clone(), fault));
                named.unwrap_or(Protocol::PROBED_AS)
            }
        };
        let workers = e.workers.unwrap_or_else(|| protocol.default_workers(cores));
        fleet.push(EngineCommand { command: e.command.clone(), workers, protocol });
    }
    if failed.len() == engines.len() {
        return Err(EngineError::NoEngineStarts { failed });
    }
    for (command, fault) in &failed {
        tracing::warn!("engine `{command}` could not be started: {fault}; the others go on");
    }
    for e in &fleet {
        tracing::info!(
            "engine `{}`: {}'s console, {} workers",
            e.command,
            crate::choice::Choice::name(e.protocol),
            e.workers
        );
    }
    Ok(fleet)
}

/// The fleet of engine processes `engines` names, each started as the
/// protocol it speaks needs, waited for at most `timeout` an answer, with
/// its files in `scratch`.
pub fn processes(engines: &[EngineCommand], timeout: Duration, scratch: &Path) -> Vec<EngineSet> {
    let engine = |(i, e): (usize, &EngineCommand)| {
        let launcher = ProcessLauncher {
            command: e.command.clone(),
            protocol: e.protocol,
            timeout,
            number: i + 1,
            scratch: scratch.to_path_buf(),
        };
        EngineSet { label: e.command.clone(), protocol: e.protocol, workers: e.workers, launcher: Box::new(launcher) }
    };
    engines.iter().enumerate().map(engine).collect()
}
