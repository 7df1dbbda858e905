//! Mode 5: everything the book knows about chosen positions, as text.

use crate::board::{Board, Square};
use crate::book::{Book, Details};
use crate::position::{self, Colour, Position, PositionError};
use crate::symmetry::normalize;
use std::fmt::Write;

/// Why a request gives no report. Each names where the position was written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InspectError {
    /// A line of a positions file that is not UTF-8 text; `byte` is the
    /// 1-based byte of the line where it stops being UTF-8.
    #[error("{file_name}:{line}: not valid UTF-8 text (byte {byte} of the line)")]
    NotUtf8 { file_name: String, line: usize, byte: usize },
    /// A text that is not a position.
    #[error("{origin}: {source}")]
    Malformed {
        origin: String,
        #[source]
        source: PositionError,
    },
    /// A position the book does not hold; `report` is what could be drawn of
    /// it (the request, the board, "in book: no").
    #[error("{origin}: {text} is not in the book\n{report}")]
    NotInBook { origin: String, text: String, report: String },
}

/// One position to inspect and where it was written ("positions.txt:3",
/// "argument 2").
#[derive(Clone, Debug)]
pub struct Request {
    pub origin: String,
    pub text: String,
}

impl Request {
    /// The non-blank, non-comment (`#`) lines of a positions file, in line
    /// order; a line that is not UTF-8 text gives an error naming it instead.
    /// One bad line must not hide the others: it is a malformed position, not
    /// an unreadable file.
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
        (!text.trim().is_empty() && !text.trim_start().starts_with('#'))
            .then(|| Request { origin: format!("{file_name}:{number}"), text: text.to_string() })
    }
}

/// The outcome for one request: a report, or why there is none.
pub type Outcome = Result<String, InspectError>;

/// Inspects each request in order; a position that is malformed or not in
/// the book gives an error naming where it was written, and a request that
/// could not be read keeps its error.
pub fn inspect(book: &Book, requests: &[Result<Request, InspectError>]) -> Vec<Outcome> {
    requests.iter().map(|r| r.as_ref().map_err(InspectError::clone).and_then(|r| inspect_one(book, r))).collect()
}

fn inspect_one(book: &Book, request: &Request) -> Outcome {
    let position = position::parse(&request.text)
        .map_err(|source| InspectError::Malformed { origin: request.origin.clone(), source })?;
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", request.origin, request.text.trim());
    draw(&position, &mut out);
    let normalized = normalize(&position.board);
    let Some(record) = book.find(&normalized.board) else {
        let _ = writeln!(out, "in book: no");
        return Err(InspectError::NotInBook {
            origin: request.origin.clone(),
            text: request.text.trim().to_string(),
            report: out,
        });
    };
    let s = normalized.to_original;
    let stored = record.board();
    let place = book.file().place_of(&record);
    let _ = writeln!(out, "in book: yes, record {} at byte offset {}", place.number, place.offset);
    let _ = writeln!(out, "stored board: player {:#018x} opponent {:#018x}", stored.player, stored.opponent);
    let _ = writeln!(out, "symmetry: {} (maps stored coordinates to this board)", s.index());
    match record.details {
        Details::Edax { counts: [wins, draws, losses, lines], lower, upper } => {
            let _ = writeln!(out, "value {} (lower {lower}, upper {upper}), level {}", record.value(), record.level);
            let _ = writeln!(out, "wins {wins}, draws {draws}, losses {losses}, lines {lines}");
        }
        Details::Egaroucid { .. } if book.format().is_translated() => {
            let _ = writeln!(out, "value {}, level {}", record.value(), record.level);
            let _ = writeln!(out, "({} stores no leaf and no line count)", book.format().title());
        }
        Details::Egaroucid { n_lines, leaf_level, .. } => {
            let _ = writeln!(out, "value {}, level {}, leaf level {leaf_level}", record.value(), record.level);
            let _ = writeln!(out, "lines {n_lines}");
        }
    }
    let _ = writeln!(out, "links ({}), stored -> actual:", record.n_links());
    for link in record.links() {
        let pass = if link.then_pass { " (then a pass)" } else { "" };
        let _ = writeln!(out, "  {:<3} -> {:<3} {}{pass}", link.mv, s.apply_move(link.mv), link.score);
    }
    match record.leaf() {
        Some(leaf) => {
            let _ = writeln!(out, "leaf: {:<3} -> {:<3} {}", leaf.mv, s.apply_move(leaf.mv), leaf.score);
        }
        None => {
            let _ = writeln!(out, "leaf: none");
        }
    }
    Ok(out)
}

/// Draws the board, black `X`, white `O`, and `*` on the legal moves. Without a
/// known colour, the side to move is drawn as `X`.
fn draw(position: &Position, out: &mut String) {
    let board: &Board = &position.board;
    let (x, o) = match position.to_move {
        Some(Colour::White) => (board.opponent, board.player),
        _ => (board.player, board.opponent),
    };
    let moves = board.legal_moves();
    out.push_str("  A B C D E F G H\n");
    for row in 0..8u8 {
        let _ = write!(out, "{}", row + 1);
        for column in 0..8u8 {
            let bit = Square::new(column + 8 * row).expect("on the board").bit();
            let c = if x & bit != 0 {
                'X'
            } else if o & bit != 0 {
                'O'
            } else if moves & bit != 0 {
                '*'
            } else {
                '.'
            };
            let _ = write!(out, " {c}");
        }
        out.push('\n');
    }
    let side = match position.to_move {
        Some(Colour::Black) => "black (X)".to_string(),
        Some(Colour::White) => "white (O)".to_string(),
        None => "the player (X; colour not given)".to_string(),
    };
    let _ = writeln!(out, "to move: {side}; {} empties; * marks legal moves", board.empties());
    if let Some(line) = &position.line {
        let kifu: String = line.iter().map(|m| m.to_string()).collect();
        let _ = writeln!(out, "line: {kifu}");
    }
}
