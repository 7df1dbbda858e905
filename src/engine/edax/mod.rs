//! Edax 4.6's console as a protocol (docs/extend.md says why this
//! protocol and how each search is asked).
//!
//! Framing: the console echoes each command it reads (`echo on`), and a
//! comment line `# bookminer-sync N` sent after a command comes back as
//! its echo once everything before it is done. What lies between a
//! command's echo and the marker's is that command's output, whatever
//! prompts and blank lines the console prints around it.
//!
//! Exclusions: Edax's `hint` lists the moves its book holds for a position
//! and searches the others, so each worker keeps a small book of its own
//! ([`exclusions`]) that it loads before a search that leaves moves out.

mod exclusions;

use super::console::{Console, WorkerFiles, PROBE_MARKER};
use super::process::{quoted, shown, unprompted, Process, Until};
use super::search::{Answer, Fault, Query};
use crate::board::Square;
use crate::level::Level;
use crate::run::Cancel;
use std::path::PathBuf;

/// The comment whose echo ends a command's output.
const MARKER: &str = "# bookminer-sync";

/// Whether `line` is Edax's console answering the greeting's probe: the
/// probe's comment echoed.
pub fn answers_probe(line: &str) -> bool {
    unprompted(line) == PROBE_MARKER
}

/// One worker's conversation with Edax's console.
pub struct EdaxConsole {
    /// The small book that tells the engine a search's exclusions: the
    /// engine's own, written again before each search that leaves moves out.
    exclusions: PathBuf,
    next_marker: u64,
    /// What the console was last told, so that it is told again only on a change.
    level: Option<Level>,
    book_on: Option<bool>,
}

impl EdaxConsole {
    /// The console of one worker, its exclusions book
    /// `engine-E-W.dat` in the run's scratch folder.
    pub fn new(files: &WorkerFiles) -> EdaxConsole {
        let exclusions = files.scratch.join(format!("engine-{}-{}.dat", files.engine, files.worker));
        EdaxConsole { exclusions, next_marker: 1, level: None, book_on: None }
    }

    /// Sends a marker and returns every line the engine printed before its
    /// echo.
    fn sync(&mut self, process: &mut Process, stop: Cancel<'_>) -> Result<Vec<String>, Fault> {
        let marker = format!("{MARKER} {}", self.next_marker);
        self.next_marker += 1;
        process.send(&marker)?;
        let wait = process.timeout();
        process.read_until(wait, stop, |line| if unprompted(line) == marker { Until::End } else { Until::More })
    }
}

impl Console for EdaxConsole {
    /// The user's command with `-book-file BOOK` after it. Edax loads its
    /// book at start, and without one it makes a new book by searching the
    /// initial position (at level 21: seconds to minutes) and saves it to
    /// `data/book.dat` on leaving; given an empty book of ours it does
    /// neither.
    fn start_line(&mut self, command: &str) -> Result<String, Fault> {
        std::fs::write(&self.exclusions, exclusions::book_of(std::iter::empty())).map_err(Fault::Spawn)?;
        Ok(format!("exec {command} -book-file {}", quoted(&self.exclusions.to_string_lossy())))
    }

    /// Echo on, and the first marker's echo.
    fn greet(&mut self, process: &mut Process, stop: Cancel<'_>) -> Result<(), Fault> {
        process.send("echo on")?;
        process.send("verbose 0")?;
        self.sync(process, stop).map(drop)
    }

    /// Its exclusions are told through the engine's book: a record for the
    /// query's board whose links are the excluded moves (Edax's `hint`
    /// lists a position's book moves first and searches the others).
    fn search(&mut self, process: &mut Process, query: &Query, stop: Cancel<'_>) -> Result<Answer, Fault> {
        let excluded = query.excluded.len();
        if excluded > 0 {
            std::fs::write(&self.exclusions, exclusions::book_of(std::iter::once(query))).map_err(Fault::Spawn)?;
            process.send(&format!("book load {}", self.exclusions.display()))?;
        }
        let book_on = excluded > 0;
        if self.book_on != Some(book_on) {
            process.send(if book_on { "book on" } else { "book off" })?;
            self.book_on = Some(book_on);
        }
        if self.level != Some(query.level) {
            process.send(&format!("level {}", query.level))?;
            self.level = Some(query.level);
        }
        process.send(&format!("setboard {} {}", query.board_text(), query.side()))?;
        let hint = format!("hint {}", excluded + 1);
        process.send(&hint)?;
        let output = self.sync(process, stop)?;
        read_hint(&output, &hint, query)
    }

    fn quit(&mut self, process: &mut Process) {
        process.quit_with("q");
    }
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
            // A pass is no answer where moves exist (the only positions
            // searched): said so, not as a line that does not read.
            let unread = if answers_a_pass(&words) { "a pass, where the position has moves" } else { "a search line" };
            answer = Some(read_result(&words).ok_or_else(|| garbage(unread))?);
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

/// Whether a search line's best move is a pass (`PS` in Edax's lines,
/// `--` or `pa` in others').
fn answers_a_pass(words: &[&str]) -> bool {
    let after_time = words.iter().position(|w| w.contains(':')).map_or(words.len(), |at| at + 1);
    let mv = words[after_time..].iter().find(|w| !w.bytes().all(|b| b.is_ascii_digit()));
    mv.is_some_and(|mv| ["ps", "pa", "pass", "--"].contains(&mv.to_ascii_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_answered_where_moves_exist_is_said_to_be_one() {
        // Issue 64, point 7: it was "a search line".
        let out = lines("> hint 1\n   22   -04        0:00.918      24403093   26582890 PS\n>");
        let fault = read_hint(&out, "hint 1", &query(&[])).unwrap_err().to_string();
        assert!(fault.contains("a pass, where the position has moves (after `hint 1`"), "{fault}");
        let out = lines("> hint 1\n   22   -04        0:00.918      24403093   26582890 Z9\n>");
        let fault = read_hint(&out, "hint 1", &query(&[])).unwrap_err().to_string();
        assert!(fault.contains("a search line (after `hint 1`"), "{fault}");
    }

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
        assert!(answers_probe("> # bookminer-hello\n") && !answers_probe("# bookminer-sync 1"));
    }
}
