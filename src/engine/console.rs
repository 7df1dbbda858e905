//! What every protocol implements: [`Console`], one engine process spoken
//! to in one protocol, and the probe every engine not named is greeted
//! with, which each protocol's console answers in its own way.

use super::process::Process;
use super::search::{Answer, Fault, Query};
use crate::run::Cancel;
use std::path::PathBuf;

/// What an engine not named is sent first: each protocol's console
/// answers it in a way of its own (Edax's echoes the comment, Egaroucid's
/// names each line a command it does not know), so that its answer tells
/// which protocol the engine speaks.
pub const PROBE: [&str; 2] = ["echo on", PROBE_MARKER];

/// The probe's comment line.
pub const PROBE_MARKER: &str = "# bookminer-hello";

/// One engine process spoken to in one protocol: what the protocol adds
/// to the user's command line, its greeting, a search, and its way to
/// quit. The process itself (its group, its streams, their limits and
/// deadlines) is [`Process`]'s.
pub trait Console: Send {
    /// The shell command line that starts the engine the user names with
    /// `command`, as the protocol needs it started (with the files it is
    /// given at start written).
    fn start_line(&mut self, command: &str) -> Result<String, Fault>;

    /// The first exchange, once the process is started: the console is
    /// ready for searches when it returns.
    fn greet(&mut self, process: &mut Process, stop: Cancel<'_>) -> Result<(), Fault>;

    /// The best move of `query` among those it allows, with its score.
    fn search(&mut self, process: &mut Process, query: &Query, stop: Cancel<'_>) -> Result<Answer, Fault>;

    /// Asks the engine to quit (it is killed afterwards whatever it does).
    fn quit(&mut self, process: &mut Process);
}

/// The files a worker's console may keep: its own names in the run's
/// scratch folder.
#[derive(Clone, Debug)]
pub struct WorkerFiles {
    /// The run's scratch folder.
    pub scratch: PathBuf,
    /// The engine's number in the fleet, from 1.
    pub engine: usize,
    /// The worker's number, from 1; 0 for the greeting.
    pub worker: usize,
}
