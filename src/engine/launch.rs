//! An engine process with the console of its protocol: the searcher each
//! worker of the fleet starts, and starts again after a fault.

use super::console::{Console, WorkerFiles};
use super::process::Process;
use super::protocol::Protocol;
use super::search::{Answer, Fault, Launcher, Query, Searcher};
use crate::run::Cancel;
use std::path::PathBuf;
use std::time::Duration;

/// A running engine: its process, and its protocol's console.
pub struct Engine {
    process: Process,
    console: Box<dyn Console>,
}

impl Engine {
    /// Starts `command` as `protocol`'s console needs it, and greets it.
    pub fn start(
        command: &str,
        protocol: Protocol,
        files: &WorkerFiles,
        timeout: Duration,
        stop: Cancel<'_>,
    ) -> Result<Engine, Fault> {
        let mut console = protocol.console(files);
        let line = console.start_line(command)?;
        let mut process = Process::start(&line, format!("{}.{}", files.engine, files.worker), timeout)?;
        match console.greet(&mut process, stop) {
            Ok(()) => {
                tracing::debug!("engine {}: started ({command})", process.id());
                Ok(Engine { process, console })
            }
            Err(fault) => Err(process.in_its_words(fault)),
        }
    }
}

impl Searcher for Engine {
    fn search(&mut self, query: &Query, stop: Cancel<'_>) -> Result<Answer, Fault> {
        self.console.search(&mut self.process, query, stop).map_err(|fault| self.process.in_its_words(fault))
    }

    /// Asks the engine to quit; the process, dropped, ends whatever is left.
    fn quit(mut self: Box<Self>) {
        self.console.quit(&mut self.process);
    }
}

/// An engine command's processes: each worker starts its own, with its
/// own files in the run's scratch folder.
pub struct ProcessLauncher {
    /// The command line, run by `sh -c`.
    pub command: String,
    /// The protocol it speaks.
    pub protocol: Protocol,
    /// The longest wait for one answer.
    pub timeout: Duration,
    /// The engine's number in the fleet (from 1), for the log and its files.
    pub number: usize,
    /// The run's scratch folder.
    pub scratch: PathBuf,
}

impl Launcher for ProcessLauncher {
    fn launch(&self, worker: usize, stop: Cancel<'_>) -> Result<Box<dyn Searcher>, Fault> {
        let files = WorkerFiles { scratch: self.scratch.clone(), engine: self.number, worker };
        Ok(Box::new(Engine::start(&self.command, self.protocol, &files, self.timeout, stop)?))
    }
}
