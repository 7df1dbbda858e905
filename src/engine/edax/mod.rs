//! One engine process, spoken to through Edax's console (docs/extend.md says
//! why this protocol and how each search is asked).
//!
//! The engine's own command line is run by `sh -c`, in a process group of
//! its own ([`EngineGroup`]): bookminer ends the whole group itself (Ctrl-C
//! included) and reaps the engine, and the group's watchdog ends it if
//! bookminer is killed, so no engine, nor anything it started, outlives the
//! run. Every wait has a deadline.
//!
//! Framing: the console echoes each command it reads (`echo on`), and a
//! comment line `# bookminer-sync N` sent after a command comes back as
//! its echo once everything before it is done. What lies between a
//! command's echo and the marker's is that command's output, whatever
//! prompts and blank lines the console prints around it.

mod exclusions;

use super::search::{Answer, Fault, Launcher, Query, Searcher};
use crate::board::Square;
use crate::level::Level;
use crate::os::EngineGroup;
use crate::run::Cancel;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often a wait looks at the flags that stop it.
const POLL: Duration = Duration::from_millis(50);

/// The longest line read from an engine; anything longer is garbage.
const LINE_LIMIT: usize = 64 << 10;

/// The most an engine may print in answer to one command: a search prints
/// a few lines; an engine that floods is answering something else.
const OUTPUT_LIMIT: usize = 1 << 20;

/// How long an engine asked to quit is given before it is killed.
const QUIT_GRACE: Duration = Duration::from_secs(2);

/// The comment whose echo ends a command's output.
const MARKER: &str = "# bookminer-sync";

/// How many of an engine's last lines of standard error a fault quotes.
const LAST_WORDS: usize = 5;

/// How engines are started and waited for.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// The command line, run by `sh -c`.
    pub command: String,
    /// The longest wait for one answer.
    pub timeout: Duration,
}

/// The command line an engine is started with: the user's, with
/// `-book-file BOOK` after it. Edax loads its book at start, and without
/// one it makes a new book by searching the initial position (at level
/// 21: seconds to minutes) and saves it to `data/book.dat` on leaving;
/// given an empty book of ours it does neither.
fn startup_line(command: &str, book: &Path) -> String {
    let quoted = book.to_string_lossy().replace('\'', "'\\''");
    format!("exec {command} -book-file '{quoted}'")
}

/// A running engine.
pub struct Engine {
    /// A name for the log: `engine 1.2` is engine 1's worker 2.
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
    timeout: Duration,
    next_marker: u64,
    /// The small book that tells the engine a search's exclusions: the
    /// engine's own, written again before each search that leaves moves out.
    exclusions: PathBuf,
    /// What the console was last told, so that it is told again only on a change.
    level: Option<Level>,
    book_on: Option<bool>,
    /// How the engine ended, once it is reaped.
    status: Option<ExitStatus>,
}

impl Engine {
    /// Starts the engine and waits until its console answers; `exclusions`
    /// is the file it is told each search's exclusions in (empty for now).
    pub fn start(spec: &EngineSpec, exclusions: PathBuf, id: String, stop: Cancel<'_>) -> Result<Engine, Fault> {
        std::fs::write(&exclusions, exclusions::book_of(std::iter::empty())).map_err(Fault::Spawn)?;
        let mut command = Command::new("sh");
        command.arg("-c").arg(startup_line(&spec.command, &exclusions));
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let group = EngineGroup::start().map_err(Fault::Spawn)?;
        let mut child = group.spawn(&mut command).map_err(Fault::Spawn)?;
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = (stdin, stdout, stderr) else {
            unreachable!("all three streams were asked to be piped");
        };
        let (sender, lines) = mpsc::channel();
        // The output, into lines a wait can time out on; standard error,
        // into the log, its last lines kept for a fault to quote.
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
        let mut engine = Engine {
            id,
            child,
            group,
            stdin,
            lines,
            said,
            said_all,
            timeout: spec.timeout,
            next_marker: 1,
            exclusions,
            level: None,
            book_on: None,
            status: None,
        };
        match engine.greet(stop) {
            Ok(()) => {
                tracing::debug!("engine {}: started ({})", engine.id, spec.command);
                Ok(engine)
            }
            Err(fault) => Err(engine.in_its_words(fault)),
        }
    }

    /// The console's first exchange: echo on, and the first marker's echo.
    fn greet(&mut self, stop: Cancel<'_>) -> Result<(), Fault> {
        self.send("echo on")?;
        self.send("verbose 0")?;
        self.sync(stop).map(drop)
    }

    /// `fault` with the engine's last lines of standard error, if it wrote
    /// any: an engine that ended is given a moment to finish saying why
    /// (`sh: 1: exec: edax: not found`, `Cannot open data/eval.dat`).
    fn in_its_words(&mut self, fault: Fault) -> Fault {
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

    /// Asks for the best move of `query`. Its exclusions are told through
    /// the engine's book: a record for the query's board whose links are
    /// the excluded moves (Edax's `hint` lists a position's book moves
    /// first and searches the others).
    pub fn ask(&mut self, query: &Query, stop: Cancel<'_>) -> Result<Answer, Fault> {
        let excluded = query.excluded.len();
        if excluded > 0 {
            std::fs::write(&self.exclusions, exclusions::book_of(std::iter::once(query))).map_err(Fault::Spawn)?;
            self.send(&format!("book load {}", self.exclusions.display()))?;
        }
        let book_on = excluded > 0;
        if self.book_on != Some(book_on) {
            self.send(if book_on { "book on" } else { "book off" })?;
            self.book_on = Some(book_on);
        }
        if self.level != Some(query.level) {
            self.send(&format!("level {}", query.level))?;
            self.level = Some(query.level);
        }
        self.send(&format!("setboard {} {}", query.board_text(), query.side()))?;
        let hint = format!("hint {}", excluded + 1);
        self.send(&hint)?;
        let output = self.sync(stop)?;
        read_hint(&output, &hint, query)
    }

    /// Asks the engine to quit, then ends it whatever it does.
    pub fn quit(mut self) {
        let _ = self.stdin.write_all(b"q\n").and_then(|()| self.stdin.flush());
        // Its output closes as it leaves; what is left is ended by Drop.
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline && !matches!(self.lines.recv_timeout(POLL), Err(RecvTimeoutError::Disconnected))
        {
        }
    }

    fn send(&mut self, line: &str) -> Result<(), Fault> {
        let written = self.stdin.write_all(line.as_bytes()).and_then(|()| self.stdin.write_all(b"\n"));
        written.and_then(|()| self.stdin.flush()).map_err(|_| self.ended())
    }

    /// Sends a marker and returns every line the engine printed before its
    /// echo.
    fn sync(&mut self, stop: Cancel<'_>) -> Result<Vec<String>, Fault> {
        let marker = format!("{MARKER} {}", self.next_marker);
        self.next_marker += 1;
        self.send(&marker)?;
        let deadline = Instant::now() + self.timeout;
        let mut output: Vec<String> = Vec::new();
        let mut printed = 0;
        loop {
            if stop.is_set() {
                return Err(Fault::Stopped);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Fault::Hung { seconds: self.timeout.as_secs() });
            }
            match self.lines.recv_timeout(left.min(POLL)) {
                Ok(line) if unprompted(&line) == marker => return Ok(output),
                Ok(line) => {
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
            self.status = loop {
                match self.child.try_wait() {
                    Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
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

impl Searcher for Engine {
    fn search(&mut self, query: &Query, stop: Cancel<'_>) -> Result<Answer, Fault> {
        self.ask(query, stop).map_err(|fault| self.in_its_words(fault))
    }

    fn quit(self: Box<Self>) {
        Engine::quit(*self);
    }
}

/// An engine command's processes: each worker starts its own, with its own
/// exclusions file in the run's scratch folder.
pub struct ProcessLauncher {
    /// How the engine is started and waited for.
    pub spec: EngineSpec,
    /// The engine's number in the fleet (from 1), for the log and its files.
    pub number: usize,
    /// The run's scratch folder, where each worker's exclusions file is.
    pub scratch: PathBuf,
}

impl Launcher for ProcessLauncher {
    fn launch(&self, worker: usize, stop: Cancel<'_>) -> Result<Box<dyn Searcher>, Fault> {
        let exclusions = self.scratch.join(format!("engine-{}-{worker}.dat", self.number));
        let id = format!("{}.{worker}", self.number);
        Ok(Box::new(Engine::start(&self.spec, exclusions, id, stop)?))
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.end();
    }
}

/// A console line without the prompts (`>`) and blanks around it.
fn unprompted(line: &str) -> &str {
    line.trim().trim_start_matches('>').trim()
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

/// Reads what `hint` printed: one `book` line per excluded move (Edax lists
/// a position's book moves first, and leaves them out of its search), then
/// the search's line: depth, score, time, nodes, speed, best line.
fn read_hint(output: &[String], hint: &str, query: &Query) -> Result<Answer, Fault> {
    let garbage = |why: &str| Fault::Garbage { text: format!("{why} (after `{hint}` on {query}): {}", shown(output)) };
    let start = output.iter().position(|l| unprompted(l) == hint).ok_or_else(|| garbage("no echo of the command"))?;
    let mut book_moves = crate::board::Squares::NONE;
    let mut answer = None;
    for line in output[start + 1..].iter().map(|l| unprompted(l)).filter(|l| !l.is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "book" {
            let mv = words.iter().skip(2).find_map(|w| Square::parse(w)).ok_or_else(|| garbage("a book line"))?;
            book_moves = book_moves.with(mv);
        } else if answer.is_none() {
            answer = Some(read_result(&words).ok_or_else(|| garbage("a search line"))?);
        } else {
            return Err(garbage("more than one search line"));
        }
    }
    if book_moves != query.excluded {
        return Err(garbage("the moves left out are not the position's links"));
    }
    let answer = answer.ok_or_else(|| garbage("no search line"))?;
    if !query.accepts(&answer) {
        return Err(garbage("a move that is illegal, excluded, or scored beyond ±64"));
    }
    Ok(answer)
}

/// A search line: `22 -04 0:00.918 24403093 26582890 g4 A1 h3…` (the depth
/// may read `21@73%`, the score may carry a bound, `<` or `>`).
fn read_result(words: &[&str]) -> Option<Answer> {
    let (depth, score) = (words.first()?, words.get(1)?);
    depth.split('@').next()?.parse::<u8>().ok()?;
    let score: i8 = score.trim_start_matches(['<', '>', '?']).parse().ok()?;
    // After the time (`m:ss.fff`) come counts (digits) and then the line.
    let after_time = words.iter().position(|w| w.contains(':'))? + 1;
    let mv = words[after_time..].iter().find(|w| !w.bytes().all(|b| b.is_ascii_digit()))?;
    Some(Answer { mv: Square::parse(mv)?, score })
}

/// An engine's output for a message: its lines joined, clipped.
fn shown(output: &[String]) -> String {
    let text = output.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" | ");
    clipped(&text, 300)
}

/// `text`'s first `chars` characters, and `…` if there were more.
fn clipped(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// Starts one process of the engine `spec`, greets its console and asks it
/// to quit: whether the engine can start at all, before a run loads its
/// book. `exclusions` is its start-up book's path (seen where the engine
/// runs, as its workers' are).
pub fn greet(spec: &EngineSpec, exclusions: PathBuf, number: usize, stop: Cancel<'_>) -> Result<(), Fault> {
    Engine::start(spec, exclusions, format!("{number} (greeting)"), stop).map(Engine::quit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    fn query(excluded: &[&str]) -> Query {
        let (board, _) = crate::kifu::parse_and_play("f5d6c3").unwrap();
        let excluded = excluded.iter().fold(crate::board::Squares::NONE, |set, s| set.with(Square::parse(s).unwrap()));
        Query { board, excluded, level: Level::MAX }
    }

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn a_hint_with_book_moves_reads_the_search_after_them() {
        // As Edax 4.6 prints it, prompts and echoes included.
        let out = lines(
            "> hint 2\n\nbook    +0                                          d3\n   22   -04        0:00.918      24403093   26582890 f4 A1 h3\n>",
        );
        let q = query(&["d3"]);
        assert_eq!(q.board, crate::kifu::parse_and_play("f5d6c3").unwrap().0);
        let answer = read_hint(&out, "hint 2", &q).unwrap();
        assert_eq!(answer, Answer { mv: Square::parse("f4").unwrap(), score: -4 });
    }

    #[test]
    fn the_startup_book_is_quoted_for_the_shell() {
        let line = startup_line("edax -q", Path::new("/tmp/o'k $x/b.dat"));
        assert_eq!(line, "exec edax -q -book-file '/tmp/o'\\''k $x/b.dat'");
        let echoed = Command::new("sh").arg("-c").arg(line.replace("exec edax -q -book-file", "printf %s")).output();
        assert_eq!(String::from_utf8(echoed.unwrap().stdout).unwrap(), "/tmp/o'k $x/b.dat");
    }

    proptest::proptest! {
        /// Whatever an engine prints, reading it gives an answer the query
        /// accepts or a fault, never a panic.
        #[test]
        fn any_output_is_an_accepted_answer_or_garbage(
            lines in proptest::collection::vec("[ -~]{0,60}", 0..6),
            words in proptest::collection::vec("(book|[0-9]{1,2}(@[0-9]{2}%)?|[<>?]?[+-][0-9]{2}|0:00\\.[0-9]{3}|[0-9]{1,9}|[a-hA-H][1-8]|--|pa)", 0..8),
        ) {
            let q = query(&["d3"]);
            let mut output: Vec<String> = vec!["> hint 2\n".to_string()];
            output.extend(lines.iter().map(|l| format!("{l}\n")));
            output.push(words.join(" "));
            match read_hint(&output, "hint 2", &q) {
                Ok(answer) => proptest::prop_assert!(q.accepts(&answer)),
                Err(fault) => proptest::prop_assert!(matches!(fault, Fault::Garbage { .. }), "{}", fault),
            }
        }
    }

    #[test]
    fn a_selective_depth_and_a_bound_are_read() {
        let words: Vec<&str> = "21@73% >+12 0:19.109 349166739 18272371 d3 C3".split_whitespace().collect();
        assert_eq!(read_result(&words), Some(Answer { mv: Square::parse("d3").unwrap(), score: 12 }));
        let words: Vec<&str> = "8 -02 0:00.000 d3".split_whitespace().collect();
        assert_eq!(read_result(&words), Some(Answer { mv: Square::parse("d3").unwrap(), score: -2 }));
    }

    #[test]
    fn answers_that_break_the_rules_are_garbage() {
        let q = query(&["d3"]);
        for text in [
            "> hint 2\n 22 -04 0:00.9 1 1 f4\n",             // the excluded move was not listed
            "> hint 2\nbook +0 d3\n 22 -04 0:00.9 1 1 d3\n", // the excluded move itself
            "> hint 2\nbook +0 d3\n 22 -04 0:00.9 1 1 a1\n", // an illegal move
            "> hint 2\nbook +0 d3\n 22 +99 0:00.9 1 1 f4\n", // no game ends so
            "> hint 2\nbook +0 d3\n",                        // no search line
            "> hint 2\nbook +0 d3\nWelcome!\n",              // not a search line
            "nothing at all\n",                              // no echo
            "> hint 2\nbook +0 d3\n 22 -04 0:00.9 1 1 f4\n 9 +0 0:0.1 e3\n", // two search lines
        ] {
            assert!(matches!(read_hint(&lines(text), "hint 2", &q), Err(Fault::Garbage { .. })), "{text}");
        }
        assert_eq!(unprompted(">> # bookminer-sync 3\n"), "# bookminer-sync 3");
        let _ = Board::INITIAL;
    }
}
