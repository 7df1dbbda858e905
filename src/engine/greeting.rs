//! An engine greeted before a run uses its book: started once, sent the
//! probe ([`PROBE`]), and told by its answer which protocol it speaks; an
//! engine named a protocol must answer as that one's console. An engine
//! that answers as none is refused within [`FIRST_WORDS_WAIT`] of its first
//! words, quoting them, and one that says nothing within
//! [`SILENCE_WAIT`] (or engine_timeout, if shorter).

use super::console::{WorkerFiles, PROBE};
use super::process::{clipped, unprompted, Process, POLL};
use super::protocol::Protocol;
use super::search::Fault;
use crate::choice::Choice;
use crate::run::Cancel;
use std::time::{Duration, Instant};

/// How long an engine that has printed something not a protocol's is
/// given to answer the probe as one (a banner first, say).
pub const FIRST_WORDS_WAIT: Duration = Duration::from_secs(3);

/// How long an engine that prints nothing is waited for: Egaroucid's
/// console takes 1.6 to 2.6 s to start on its own, more on a busy machine
/// or over ssh.
pub const SILENCE_WAIT: Duration = Duration::from_secs(30);

/// The most an engine may print before it answers the probe: one that
/// floods speaks no protocol.
const PROBE_OUTPUT_LIMIT: usize = 1 << 20;

/// How many of an engine's first lines a refusal quotes.
const QUOTED: usize = 5;

/// Starts the engine `command` (as `named`'s console, or as the probe is
/// started when no protocol is named), sends the probe and tells the
/// protocol it answers as; a named protocol is greeted in full on the same
/// process. The engine is asked to quit, and ended, before this returns.
pub fn tell(
    command: &str,
    named: Option<Protocol>,
    timeout: Duration,
    files: &WorkerFiles,
    stop: Cancel<'_>,
) -> Result<Protocol, Fault> {
    let started_as = named.unwrap_or(Protocol::PROBED_AS);
    let mut console = started_as.console(files);
    let line = console.start_line(command)?;
    let mut process = Process::start(&line, format!("{} (greeting)", files.engine), timeout)?;
    let told = probe(&mut process, timeout, stop).and_then(|speaks| match named {
        Some(named) if named != speaks => Err(Fault::OtherProtocol {
            told: Box::new([format!("{}'s console, not {}'s", speaks.name(), named.name()), appended(&line, command)]),
        }),
        _ => Ok(speaks),
    });
    match told {
        Ok(speaks) if speaks == started_as => {
            let greeted = console.greet(&mut process, stop);
            if let Err(fault) = greeted {
                return Err(process.in_its_words(fault));
            }
            console.quit(&mut process);
            Ok(speaks)
        }
        Ok(speaks) => {
            speaks.console(files).quit(&mut process);
            Ok(speaks)
        }
        Err(fault) => Err(process.in_its_words(fault)),
    }
}

/// What a console's start line added to the user's `command` (its flags,
/// as `-nobook -quiet`), said when the engine answers as another console.
fn appended(line: &str, command: &str) -> String {
    line.split_once(command).map_or(line, |(_, after)| after).trim().to_string()
}

/// Sends the probe and reads the engine's answer until a protocol's
/// console is heard, or the engine is known to speak none.
fn probe(process: &mut Process, timeout: Duration, stop: Cancel<'_>) -> Result<Protocol, Fault> {
    for line in PROBE {
        process.send(line)?;
    }
    let started = Instant::now();
    let mut first_words: Option<Instant> = None;
    let mut said: Vec<String> = Vec::new();
    let mut printed = 0;
    loop {
        if stop.is_set() {
            return Err(Fault::Stopped);
        }
        let waited_enough = match first_words {
            Some(at) => at.elapsed() >= FIRST_WORDS_WAIT.min(timeout) || printed > PROBE_OUTPUT_LIMIT,
            None => started.elapsed() >= SILENCE_WAIT.min(timeout),
        };
        if waited_enough {
            return Err(no_protocol(&said, started.elapsed()));
        }
        let Some(line) = process.next_line(POLL)? else { continue };
        if let Some(&speaks) = Protocol::ALL.iter().find(|p| p.answers_probe(&line)) {
            return Ok(speaks);
        }
        printed += line.len();
        let text = unprompted(&line);
        if !text.is_empty() {
            first_words.get_or_insert_with(Instant::now);
            if said.len() < QUOTED {
                said.push(clipped(text, 200));
            }
        }
    }
}

/// The fault of an engine that answered as no protocol's console.
fn no_protocol(said: &[String], waited: Duration) -> Fault {
    let known = Protocol::ALL.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ");
    let said = match said {
        [] => format!("it printed nothing in {} s", waited.as_secs()),
        words => format!("it printed: {}", words.join(" | ")),
    };
    Fault::NoProtocol { said: format!("({known}): {said}") }
}
