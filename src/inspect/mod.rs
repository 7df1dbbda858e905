//! Mode 5: everything the book knows about chosen positions (docs/modes.md,
//! inspect). A line a mode wrote is reported at the position the mode
//! judged ([`mod@line`]); each report is data ([`report`]), printed as text or
//! given as JSON fields.

pub mod json;
pub mod line;
pub mod mismatches;
pub mod picture;
pub mod report;

use crate::book::Book;
use crate::output::mode_of_file_name;
use crate::position::{self, Position, PositionError};
use crate::rules::modes::{Mode, Rules};
use crate::symmetry::normalize;
use line::ModeLine;
use report::{Found, Report};
use std::path::Path;

/// Why a request gives no report. Each names where the position was written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InspectError {
    /// A line of a positions file that is not UTF-8 text; `byte` is the
    /// 1-based byte of the line where it stops being UTF-8.
    #[error("{file_name}:{line}: not valid UTF-8 text (byte {byte} of the line)")]
    NotUtf8 {
        /// The file, as named.
        file_name: String,
        /// The line's number, from 1.
        line: usize,
        /// The byte of the line where the text stops being UTF-8, from 1.
        byte: usize,
    },
    /// A text that is not a position.
    #[error("{origin}: {source}")]
    Malformed {
        /// Where the text was written.
        origin: String,
        #[source]
        /// Why it is no position.
        source: PositionError,
    },
    /// A position the book does not hold; `report` is what could be said
    /// of it (the request, the board, "in book: no").
    #[error("{origin}: {text} is not in the book\n{report}")]
    NotInBook {
        /// Where the position was written.
        origin: String,
        /// The text, as written.
        text: String,
        /// What can be said of it.
        report: Box<Report>,
    },
}

/// One position to inspect and where it was written ("positions.txt:3",
/// "argument 2"); for a line of a file a mode wrote, which mode.
#[derive(Clone, Debug)]
pub struct Request {
    /// Where the position was written ("positions.txt:3", "argument 2").
    pub origin: String,
    /// The text, as written.
    pub text: String,
    /// The mode whose file the line comes from (told by the file's name,
    /// `mode{N}.txt`, `.jsonl`, `.obf`): a kifu or OBF line of it is a line
    /// that mode judged.
    pub written_by: Option<Mode>,
}

impl Request {
    /// A position given as the `number`th argument (from 1).
    pub fn argument(number: usize, text: &str) -> Request {
        Request { origin: format!("argument {number}"), text: text.to_string(), written_by: None }
    }

    /// The non-blank, non-comment (`#`) lines of a positions file, in line
    /// order; a line that is not UTF-8 text gives an error naming it instead.
    /// One bad line must not hide the others: it is a malformed position, not
    /// an unreadable file. A file named as a mode names its files holds
    /// that mode's lines.
    pub fn from_file(path: &Path, bytes: &[u8]) -> Vec<Result<Request, InspectError>> {
        let written_by = path.file_name().and_then(|name| mode_of_file_name(name.to_str()?));
        let mut requests = Request::from_bytes(&path.display().to_string(), bytes);
        for request in requests.iter_mut().flatten() {
            request.written_by = written_by;
        }
        requests
    }

    /// [`Request::from_file`] of a file named `file_name`, whatever its name.
    pub fn from_bytes(file_name: &str, bytes: &[u8]) -> Vec<Result<Request, InspectError>> {
        let mut requests = Vec::new();
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            match std::str::from_utf8(line) {
                Ok(text) => requests.extend(Request::from_line(file_name, i + 1, text).map(Ok)),
                Err(e) => requests.push(Err(InspectError::NotUtf8 {
                    file_name: file_name.to_string(),
                    line: i + 1,
                    byte: e.valid_up_to() + 1,
                })),
            }
        }
        requests
    }

    /// Line `number` of a file, unless it is blank or a comment.
    fn from_line(file_name: &str, number: usize, line: &str) -> Option<Request> {
        let text = line.trim_start_matches('\u{feff}');
        (!text.trim().is_empty() && !text.trim_start().starts_with('#')).then(|| Request {
            origin: format!("{file_name}:{number}"),
            text: text.to_string(),
            written_by: None,
        })
    }
}

/// The outcome for one request: a report, or why there is none.
pub type Outcome = Result<Report, InspectError>;

/// Inspects each request in order; a position that is malformed or not in
/// the book gives an error naming where it was written, and a request that
/// could not be read keeps its error. A mode's line is judged again under
/// `rules` where its file does not say where it was judged.
pub fn inspect(book: &Book, rules: &Rules, requests: &[Result<Request, InspectError>]) -> Vec<Outcome> {
    requests.iter().map(|r| r.as_ref().map_err(InspectError::clone).and_then(|r| inspect_one(book, rules, r))).collect()
}

/// What the book knows of `position`, written as `text` at `origin`: the
/// report of a position that is no mode's line, whether the book holds it
/// or not.
pub fn report_of(book: &Book, origin: &str, text: &str, position: Position) -> Report {
    let normalized = normalize(&position.board);
    let found = book.find(&normalized.board).map(|record| Found {
        place: book.file().place_of(&record),
        grades: grades(book, &record),
        record,
        symmetry: normalized.to_original,
        leafless_format: book.format().is_translated().then(|| book.format().title()),
    });
    Report { origin: origin.to_string(), text: text.to_string(), judged: None, position, found }
}

/// The accuracy grade of the position each link of `record` leads to.
fn grades(book: &Book, record: &crate::book::Record) -> Vec<Option<crate::accuracy::Grade>> {
    let mut grader = crate::accuracy::Grader::new(book);
    let stored = record.board();
    record.links().map(|link| stored.after(link.mv).and_then(|child| grader.grade(&child))).collect()
}

fn inspect_one(book: &Book, rules: &Rules, request: &Request) -> Outcome {
    let malformed = |source| InspectError::Malformed { origin: request.origin.clone(), source };
    let text = request.text.trim();
    // A mode's line whose kifu does not play is read as the position it writes.
    let judged = ModeLine::read(text, request.written_by).and_then(|line| line.judged(book, rules).ok());
    let (judged, position) = match judged {
        Some((judged, position)) => (Some(judged), position),
        None => (None, position::parse(text).map_err(malformed)?),
    };
    let report = Report { judged, ..report_of(book, &request.origin, text, position) };
    match report.found {
        Some(_) => Ok(report),
        None => Err(InspectError::NotInBook {
            origin: request.origin.clone(),
            text: text.to_string(),
            report: Box::new(report),
        }),
    }
}
