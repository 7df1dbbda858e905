//! One engine process, whatever protocol it speaks: started by `sh -c` in
//! a process group of its own ([`EngineGroup`]), its output read a line at
//! a time on threads of their own, every wait with a deadline, and ended
//! with its whole group.
//!
//! bookminer ends the group itself (Ctrl-C included) and reaps the engine,
//! and the group's watchdog ends it if bookminer is killed, so no engine,
//! nor anything it started, outlives the run. What a protocol says to the
//! process, and how it reads the answers, is its own folder's.

use super::search::Fault;
use crate::os::EngineGroup;
use crate::run::Cancel;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often a wait looks at the flags that stop it.
pub const POLL: Duration = Duration::from_millis(50);

/// The longest line read from an engine; anything longer is garbage.
const LINE_LIMIT: usize = 64 << 10;

/// The most an engine may print in answer to one command: a search prints
/// a few lines; an engine that floods is answering something else (an
/// engine that loops printing an error once its input ends, say).
const OUTPUT_LIMIT: usize = 1 << 20;

/// How long an engine asked to quit is given before it is killed.
pub const QUIT_GRACE: Duration = Duration::from_secs(2);

/// How many of an engine's last lines of standard error a fault quotes.
const LAST_WORDS: usize = 5;

/// A running engine process.
pub struct Process {
    /// A name for the log: `1.2` is engine 1's worker 2.
    id: String,
    child: Child,
    /// Its process group, killed whole; dropped after the engine is reaped.
    group: EngineGroup,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Its last [`LAST_WORDS`] lines of standard error, quoted in its faults.
    said: Arc<Mutex<VecDeque<String>>>,
    /// Disconnected once its standard error has ended.
    said_all: Receiver<()>,
    /// The longest wait for one answer.
    timeout: Duration,
    /// How the engine ended, once it is reaped.
    status: Option<ExitStatus>,
}

/// What a wait for lines ended on.
pub enum Until {
    /// The line that ends the answer: not kept.
    End,
    /// A line of the answer: kept.
    More,
}

impl Process {
    /// Starts `line` (a shell command line, `exec` first where it can be)
    /// with its three streams piped: its output into lines a wait can time
    /// out on, its standard error into the log, the last lines kept for a
    /// fault to quote.
    pub fn start(line: &str, id: String, timeout: Duration) -> Result<Process, Fault> {
        let mut command = Command::new("sh");
        command.arg("-c").arg(line);
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let group = EngineGroup::start().map_err(Fault::Spawn)?;
        let mut child = group.spawn(&mut command).map_err(Fault::Spawn)?;
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = (stdin, stdout, stderr) else {
            unreachable!("all three streams were asked to be piped");
        };
        let (sender, lines) = mpsc::channel();
        spawn_lines(format!("engine {id} output"), stdout, move |line| sender.send(line).is_ok())?;
        let name = id.clone();
        let said = Arc::new(Mutex::new(VecDeque::with_capacity(LAST_WORDS)));
        let (still_saying, said_all) = mpsc::channel::<()>();
        let kept = Arc::clone(&said);
        spawn_lines(format!("engine {id} stderr"), stderr, move |line| {
            let _still = &still_saying;
            let text = line.trim();
            if !text.is_empty() {
                tracing::info!("engine {name} says: {text}");
                let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
                if kept.len() == LAST_WORDS {
                    kept.pop_front();
                }
                kept.push_back(text.to_string());
            }
            true
        })?;
        Ok(Process { id, child, group, stdin, lines, said, said_all, timeout, status: None })
    }

    /// Its name for the log.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The longest wait for one answer.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), Fault> {
        let written = self.stdin.write_all(line.as_bytes()).and_then(|()| self.stdin.write_all(b"\n"));
        written.and_then(|()| self.stdin.flush()).map_err(|_| self.ended())
    }

    /// The lines the engine prints until `until` says one ends the answer,
    /// waited for at most `wait`; more than [`OUTPUT_LIMIT`] bytes is
    /// garbage, an output that ends is the engine's end.
    pub fn read_until(
        &mut self,
        wait: Duration,
        stop: Cancel<'_>,
        mut until: impl FnMut(&str) -> Until,
    ) -> Result<Vec<String>, Fault> {
        let deadline = Instant::now() + wait;
        let mut output: Vec<String> = Vec::new();
        let mut printed = 0;
        loop {
            if stop.is_set() {
                return Err(Fault::Stopped);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Fault::Hung { seconds: wait.as_secs() });
            }
            match self.lines.recv_timeout(left.min(POLL)) {
                Ok(line) => {
                    if let Until::End = until(&line) {
                        return Ok(output);
                    }
                    printed += line.len();
                    if printed > OUTPUT_LIMIT {
                        let text = format!("more than {OUTPUT_LIMIT} bytes for one command: {}", shown(&output));
                        return Err(Fault::Garbage { text });
                    }
                    output.push(line);
                }
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return Err(self.ended()),
            }
        }
    }

    /// The next line within `wait`, `None` when none came in time.
    pub fn next_line(&mut self, wait: Duration) -> Result<Option<String>, Fault> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(Some(line)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(self.ended()),
        }
    }

    /// `fault` with the engine's last lines of standard error, if it wrote
    /// any: an engine that ended is given a moment to finish saying why
    /// (`sh: 1: exec: edax: not found`, `Cannot open data/eval.dat`).
    pub fn in_its_words(&mut self, fault: Fault) -> Fault {
        if matches!(fault, Fault::Stopped) {
            return fault;
        }
        if matches!(fault, Fault::Ended { .. }) {
            let deadline = Instant::now() + QUIT_GRACE;
            while Instant::now() < deadline
                && !matches!(self.said_all.recv_timeout(POLL), Err(RecvTimeoutError::Disconnected))
            {}
        }
        let said = self.said.lock().unwrap_or_else(|p| p.into_inner());
        if said.is_empty() {
            return fault;
        }
        let words = said.iter().map(|l| clipped(l, 200)).collect::<Vec<_>>().join(" | ");
        Fault::Said { fault: Box::new(fault), words }
    }

    /// Sends `line` (the protocol's way to quit), then waits a moment for
    /// the output to close as the engine leaves; what is left is ended
    /// when the process is dropped.
    pub fn quit_with(&mut self, line: &str) {
        let _ = self.stdin.write_all(format!("{line}\n").as_bytes()).and_then(|()| self.stdin.flush());
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline && !matches!(self.lines.recv_timeout(POLL), Err(RecvTimeoutError::Disconnected))
        {
        }
    }

    /// The fault of an engine whose output ended: how it ended, once it has.
    fn ended(&mut self) -> Fault {
        let status = match self.end() {
            // Killed by us: it had closed its output but not left.
            Some(status) if EngineGroup::ended_by_us(&status) => "closed its output".to_string(),
            Some(status) => status.to_string(),
            None => "closed its output".to_string(),
        };
        Fault::Ended { status }
    }

    /// Kills the engine's process group (whatever is left of it) and reaps
    /// the engine, once: its exit status, if it came within [`QUIT_GRACE`].
    fn end(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.group.end(&mut self.child);
            let deadline = Instant::now() + QUIT_GRACE;
            // Looked at again after 1 ms, then twice as long each time up to
            // POLL: an engine told to end is gone in a few milliseconds, and
            // a first pause of POLL made every greeting and every run's end
            // 50 ms longer.
            let mut pause = Duration::from_millis(1);
            self.status = loop {
                match self.child.try_wait() {
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(pause);
                        pause = (pause * 2).min(POLL);
                    }
                    Ok(status) => break status,
                    Err(_) => break None,
                }
            };
            if self.status.is_none() {
                tracing::warn!("engine {}: still running after SIGKILL; left to the system", self.id);
            }
        }
        self.status
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.end();
    }
}

/// A console line without the prompts (`>`) and blanks around it.
pub fn unprompted(line: &str) -> &str {
    line.trim().trim_start_matches('>').trim()
}

/// A shell word: `text` in single quotes, its own quotes escaped.
pub fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// Reads one of the engine's streams a line at a time (at most
/// [`LINE_LIMIT`] bytes each), on a thread of its own, handing each line to
/// `take` until the stream ends or `take` says to stop.
fn spawn_lines(
    name: String,
    stream: impl Read + Send + 'static,
    mut take: impl FnMut(String) -> bool + Send + 'static,
) -> Result<(), Fault> {
    let read = move || {
        let mut reader = BufReader::new(stream);
        let mut line = Vec::new();
        while matches!(reader.by_ref().take(LINE_LIMIT as u64).read_until(b'\n', &mut line), Ok(n) if n > 0) {
            if !take(String::from_utf8_lossy(&line).into_owned()) {
                return;
            }
            line.clear();
        }
    };
    std::thread::Builder::new().name(name).spawn(read).map(drop).map_err(Fault::Spawn)
}

/// An engine's output for a message: its lines joined, clipped.
pub fn shown(output: &[String]) -> String {
    let text = output.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" | ");
    clipped(&text, 300)
}

/// `text`'s first `chars` characters, and `…` if there were more.
pub fn clipped(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_quoted_for_the_shell() {
        let line = format!("printf %s {}", quoted("/tmp/o'k $x/b.dat"));
        let echoed = Command::new("sh").arg("-c").arg(line).output();
        assert_eq!(String::from_utf8(echoed.unwrap().stdout).unwrap(), "/tmp/o'k $x/b.dat");
        assert_eq!(unprompted(">> # bookminer-sync 3\n"), "# bookminer-sync 3");
    }

    #[test]
    fn an_engine_that_floods_is_garbage_and_one_that_ends_says_how() {
        let never = std::sync::atomic::AtomicBool::new(false);
        let mut flood = Process::start("yes", "t".into(), Duration::from_secs(5)).unwrap();
        let fault = flood.read_until(Duration::from_secs(5), Cancel::new(&never), |_| Until::More).err().unwrap();
        assert!(matches!(fault, Fault::Garbage { .. }), "{fault}");
        let mut ends = Process::start("echo bye >&2; exit 4", "t".into(), Duration::from_secs(5)).unwrap();
        let fault = ends.read_until(Duration::from_secs(5), Cancel::new(&never), |_| Until::More).err().unwrap();
        let fault = ends.in_its_words(fault).to_string();
        assert!(fault.contains("exit status: 4") && fault.contains("bye"), "{fault}");
    }
}
