//! The journal, `{out_dir}/extend.jsonl`: one line per search, written as
//! soon as the engine answers, and read back by the next run, which takes
//! every answer it holds instead of searching again. An interrupted run
//! loses only the searches under way.
//!
//! A line: `{"board":"…","side":"X","level":60,"excluded":["A5"],"move":"G4",
//! "score":-4,"engine":"edax …","seconds":0.918}`, keys in this order. An
//! answer is taken back only for the same board, side, level, exclusions
//! and engine command line.

use super::search::{Answer, Query};
use crate::board::Square;
use crate::failure::{io_kind, ErrorKind};
use crate::output::text::push_square;
use serde::Deserialize;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The journal's name in the output folder.
pub const JOURNAL: &str = "extend.jsonl";

/// Why the journal cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: line {line}: {why}; move the file away to start a new journal", path.display())]
    BadLine { path: PathBuf, line: usize, why: String },
}

impl JournalError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            JournalError::Io { source, .. } => io_kind(source),
            JournalError::BadLine { .. } => ErrorKind::BadInput,
        }
    }
}

/// The journal file, open for appending, and the answers it held.
pub struct Journal {
    path: PathBuf,
    file: File,
    answers: HashMap<Query, Answer>,
}

/// A line as written.
#[derive(Deserialize)]
struct Line {
    board: String,
    side: String,
    level: u8,
    excluded: Vec<String>,
    #[serde(rename = "move")]
    mv: String,
    score: i8,
}

impl Journal {
    /// Opens (or starts) the journal at `path` for answers of `engine`. A
    /// last line cut short (the run was killed while writing it) is taken
    /// off; any other line that does not read is an error.
    pub fn open(path: &Path) -> Result<Journal, JournalError> {
        let io = |source| JournalError::Io { path: path.to_path_buf(), source };
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(path).map_err(io)?;
        let mut text = Vec::new();
        file.read_to_end(&mut text).map_err(io)?;
        let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if whole < text.len() {
            tracing::warn!(
                "{}: its last line was cut short (a run stopped while writing it); taken off",
                path.display()
            );
            file.set_len(whole as u64).map_err(io)?;
            file.seek(io::SeekFrom::End(0)).map_err(io)?;
        }
        let mut journal = Journal { path: path.to_path_buf(), file, answers: HashMap::new() };
        for (i, line) in text[..whole].split(|&b| b == b'\n').enumerate().filter(|(_, l)| !l.is_empty()) {
            journal.take(line).map_err(|why| JournalError::BadLine { path: path.to_path_buf(), line: i + 1, why })?;
        }
        Ok(journal)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Answers held.
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// The answer the journal holds for `query`, if any.
    pub fn answer(&self, query: &Query) -> Option<Answer> {
        self.answers.get(query).copied()
    }

    /// Writes an answer down, through to the disk, before it is used.
    pub fn record(&mut self, query: &Query, answer: Answer, engine: &str, took: Duration) -> Result<(), JournalError> {
        let line = line_of(query, answer, engine, took);
        let io = |source| JournalError::Io { path: self.path.clone(), source };
        // One write: a kill between two writes cannot leave half a line
        // followed by another line.
        self.file.write_all(line.as_bytes()).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.answers.insert(*query, answer);
        Ok(())
    }

    /// Writes down an expansion `grow` dispatched: the position expanded,
    /// its D and its priority (docs/grow.md). Read back as a note, not an
    /// answer.
    pub fn expansion(&mut self, board: &crate::board::Board, d: f64, priority: f64) -> Result<(), JournalError> {
        let query = Query { board: *board, excluded: 0, level: 0 };
        let line = format!(
            "{{\"expand\":\"{}\",\"side\":\"{}\",\"d\":{d},\"priority\":{priority}}}\n",
            query.board_text(),
            query.side()
        );
        let io = |source| JournalError::Io { path: self.path.clone(), source };
        self.file.write_all(line.as_bytes()).map_err(io)?;
        self.file.sync_data().map_err(io)
    }

    /// Reads one line into the answers.
    fn take(&mut self, bytes: &[u8]) -> Result<(), String> {
        if bytes.starts_with(b"{\"expand\":") {
            // An expansion `grow` dispatched: a note for the reader.
            return serde_json::from_slice::<serde_json::Value>(bytes)
                .map(drop)
                .map_err(|e| format!("not a journal line ({e})"));
        }
        let line: Line = serde_json::from_slice(bytes).map_err(|e| format!("not a journal line ({e})"))?;
        let position = crate::position::parse(&format!("{} {}", line.board, line.side)).map_err(|e| e.to_string())?;
        if line.level > 60 {
            return Err(format!("level {} is not a level (0 to 60)", line.level));
        }
        let mut excluded = 0;
        for square in &line.excluded {
            excluded |= Square::parse(square).ok_or_else(|| format!("\"{square}\" is not a square"))?.bit();
        }
        let mv = Square::parse(&line.mv).ok_or_else(|| format!("\"{}\" is not a square", line.mv))?;
        let query = Query { board: position.board, excluded, level: line.level };
        let answer = Answer { mv, score: line.score };
        if !query.accepts(&answer) {
            return Err(format!("{} cannot be the answer to {query}", line.mv));
        }
        self.answers.insert(query, answer);
        Ok(())
    }
}

/// One journal line, newline included.
fn line_of(query: &Query, answer: Answer, engine: &str, took: Duration) -> String {
    let mut excluded = String::new();
    for square in query.excluded_squares() {
        excluded.push_str(if excluded.is_empty() { "\"" } else { ",\"" });
        push_square(square, &mut excluded);
        excluded.push('"');
    }
    let mut mv = String::new();
    push_square(answer.mv, &mut mv);
    let engine = serde_json::to_string(engine).expect("a string is always JSON");
    format!(
        "{{\"board\":\"{}\",\"side\":\"{}\",\"level\":{},\"excluded\":[{excluded}],\"move\":\"{mv}\",\"score\":{},\"engine\":{engine},\"seconds\":{:.3}}}\n",
        query.board_text(),
        query.side(),
        query.level,
        answer.score,
        took.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    fn query() -> Query {
        let (board, _) = crate::kifu::parse_and_play("f5d6c3d3").unwrap();
        let excluded = Square::parse("c4").unwrap().bit();
        Query { board, excluded, level: 60 }
    }

    #[test]
    fn an_answer_written_is_read_back_by_the_next_run_whichever_engine_gave_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let answer = Answer { mv: Square::parse("e3").unwrap(), score: -2 };
        {
            let mut journal = Journal::open(&path).unwrap();
            assert!(journal.is_empty());
            assert!(query().accepts(&answer), "the test's own answer must be legal");
            journal.record(&query(), answer, "edax \"x\"", Duration::from_millis(5)).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let json: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(json["excluded"], serde_json::json!(["C4"]));
        assert_eq!(json["engine"], "edax \"x\"");
        assert_eq!(Journal::open(&path).unwrap().answer(&query()), Some(answer));
    }

    proptest::proptest! {
        /// A journal is untrusted input: any bytes are read, or refused
        /// naming a line, never a panic.
        #[test]
        fn any_bytes_are_read_or_refused_naming_a_line(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400),
                                                       line in 0usize..3) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(JOURNAL);
            let whole = line_of(&query(), Answer { mv: Square::parse("e3").unwrap(), score: 1 }, "e", Duration::ZERO);
            let mut text: Vec<u8> = std::iter::repeat_n(whole.as_bytes(), line).flatten().copied().collect();
            text.extend_from_slice(&bytes);
            text.push(b'\n');
            std::fs::write(&path, &text).unwrap();
            // The bad line is one of the random bytes' (they may hold newlines).
            if let Err(e) = Journal::open(&path) {
                let text = e.to_string();
                let named = text.split("line ").nth(1).and_then(|t| t.split(':').next()?.parse::<usize>().ok());
                proptest::prop_assert!(named.is_some_and(|n| n > line), "{}", text);
            }
        }
    }

    #[test]
    fn a_line_cut_short_is_taken_off_and_a_bad_line_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let whole = line_of(&query(), Answer { mv: Square::parse("e3").unwrap(), score: 1 }, "e", Duration::ZERO);
        std::fs::write(&path, format!("{whole}{}", &whole[..40])).unwrap();
        let journal = Journal::open(&path).unwrap();
        assert_eq!(journal.len(), 1);
        drop(journal);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        std::fs::write(&path, format!("{whole}{}", whole.replace("\"E3\"", "\"C4\""))).unwrap();
        let e = Journal::open(&path).err().unwrap().to_string();
        assert!(e.contains("line 2") && e.contains("cannot be the answer"), "{e}");
        std::fs::write(&path, "{\"board\":1}\n").unwrap();
        assert!(Journal::open(&path).err().unwrap().to_string().contains("line 1"));
        let _ = Board::INITIAL;
    }
}
