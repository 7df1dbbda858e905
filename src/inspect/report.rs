//! What inspect says of one position (docs/modes.md, inspect), as data: the
//! position, the mode that judged it when it came from a mode's line, and
//! the book's record of it. The text the report prints is its `Display`;
//! `--summary json` gives the same fields.

use super::line::{Judged, JudgedAt};
use crate::board::{Board, Square};
use crate::book::{Details, FilePlace, Record};
use crate::position::{Colour, Position};
use crate::symmetry::Symmetry;
use std::fmt::{self, Write};

/// Everything inspect says of one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Where the position was written ("positions.txt:3", "argument 2").
    pub origin: String,
    /// The text as written, trimmed.
    pub text: String,
    /// For a line a mode wrote: the mode, and where on the line it judged.
    pub judged: Option<Judged>,
    /// The position reported: the one written, or the one the mode judged.
    pub position: Position,
    /// The book's record of it; none when the book does not hold it.
    pub found: Option<Found>,
}

/// The book's record of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The record.
    pub record: Record,
    /// The record's number (from 1) and byte offset in the file.
    pub place: FilePlace,
    /// Maps the stored board and its moves onto the position reported.
    pub symmetry: Symmetry,
    /// The book's format, when it stores no leaf and no line count (an
    /// older Egaroucid book, read as an .egbk3): its title.
    pub leafless_format: Option<&'static str>,
    /// Each link's accuracy grade (Egaroucid's, of the position it leads
    /// to), in the order of [`Found::links`].
    pub grades: Vec<Option<crate::accuracy::Grade>>,
}

impl Found {
    /// The links, stored and on the position reported.
    pub fn links(&self) -> impl Iterator<Item = Turned> + '_ {
        self.record.links().map(|link| self.turned(link))
    }

    /// The leaf, stored and on the position reported.
    pub fn leaf(&self) -> Option<Turned> {
        self.record.leaf().map(|leaf| self.turned(leaf))
    }

    fn turned(&self, link: crate::book::Link) -> Turned {
        Turned { stored: link, actual: self.symmetry.apply_move(link.mv) }
    }
}

/// A record's move as stored, and the same move on the position reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turned {
    /// The move as the record stores it, with its score.
    pub stored: crate::book::Link,
    /// The same move on the position reported.
    pub actual: crate::board::Move,
}

impl Report {
    /// Whose discs are `X` and `O` on the board reported: black's and
    /// white's, or, when the notation gave no colour, the side to move's
    /// as `X`.
    pub fn black_and_white(&self) -> (u64, u64) {
        let board = &self.position.board;
        match self.position.to_move {
            Some(Colour::White) => (board.opponent, board.player),
            _ => (board.player, board.opponent),
        }
    }

    /// The kifu reaching the position, when the notation gave one.
    pub fn kifu(&self) -> Option<String> {
        self.position.line.as_ref().map(|line| line.iter().map(|m| m.to_string()).collect())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.origin, self.text)?;
        if let Some(judged) = &self.judged {
            writeln!(f, "{}", judged_line(judged, self.found.as_ref()))?;
        }
        f.write_str(&self.drawn())?;
        match &self.found {
            None => writeln!(f, "in book: no"),
            Some(found) => write_found(found, f),
        }
    }
}

/// What a mode's line says of the position reported: which mode judged it,
/// and where it lies on the line.
fn judged_line(judged: &Judged, found: Option<&Found>) -> String {
    let JudgedAt::BeforeLastMove(mv) = judged.at else {
        return format!("{} judged the position the line ends at: shown below", judged.mode);
    };
    let is = |turned: Option<Turned>| turned.is_some_and(|t| t.actual == mv);
    let which = match found {
        Some(found) if is(found.leaf()) => "its leaf",
        Some(found) if found.links().any(|link| is(Some(link))) => "one of its links",
        _ => "a move of it",
    };
    format!("{} judged the position before the line's last move {mv} ({which}): shown below", judged.mode)
}

impl Report {
    /// The board as 8×8 text, black `X`, white `O`, and `*` on the legal
    /// moves; then the side to move, and the line when there is one.
    fn drawn(&self) -> String {
        let mut out = String::new();
        let board: &Board = &self.position.board;
        let (x, o) = self.black_and_white();
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
        let side = match self.position.to_move {
            Some(Colour::Black) => "black (X)",
            Some(Colour::White) => "white (O)",
            None => "the player (X; colour not given)",
        };
        let _ = writeln!(out, "to move: {side}; {} empties; * marks legal moves", board.empties());
        if let Some(kifu) = self.kifu() {
            let _ = writeln!(out, "line: {kifu}");
        }
        out
    }
}

/// The record's lines of the report: where it is, the stored board and
/// symmetry, what the format stores, each link and the leaf.
fn write_found(found: &Found, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let Found { record, place, symmetry, leafless_format, grades } = found;
    let stored = record.board();
    writeln!(f, "in book: yes, record {} at byte offset {}", place.number, place.offset)?;
    writeln!(f, "stored board: player {:#018x} opponent {:#018x}", stored.player, stored.opponent)?;
    writeln!(f, "symmetry: {} (maps stored coordinates to this board)", symmetry.index())?;
    match (record.details, leafless_format) {
        (Details::Edax { counts: [wins, draws, losses, lines], lower, upper }, _) => {
            writeln!(f, "value {} (lower {lower}, upper {upper}), level {}", record.value(), record.level)?;
            writeln!(f, "wins {wins}, draws {draws}, losses {losses}, lines {lines}")?;
        }
        (Details::Egaroucid { .. }, Some(title)) => {
            writeln!(f, "value {}, level {}", record.value(), record.level)?;
            writeln!(f, "({title} stores no leaf and no line count)")?;
        }
        (Details::Egaroucid { n_lines, leaf_level, .. }, None) => {
            writeln!(f, "value {}, level {}, leaf level {leaf_level}", record.value(), record.level)?;
            writeln!(f, "lines {n_lines}")?;
        }
    }
    writeln!(f, "links ({}), stored -> actual:", record.n_links())?;
    for (Turned { stored, actual }, grade) in found.links().zip(grades) {
        let pass = if stored.then_pass { " (then a pass)" } else { "" };
        let grade = grade.map(|g| format!(" accuracy {}", g.name())).unwrap_or_default();
        writeln!(f, "  {:<3} -> {:<3} {}{pass}{grade}", stored.mv, actual, stored.score)?;
    }
    match found.leaf() {
        Some(Turned { stored, actual }) => writeln!(f, "leaf: {:<3} -> {:<3} {}", stored.mv, actual, stored.score),
        None => writeln!(f, "leaf: none"),
    }
}
