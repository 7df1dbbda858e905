//! Where a walk starts: a board and the line that reaches it, found in a
//! book; and where a line from the initial position leaves a book, and what
//! the book holds there, for the message when a start is not in it.

use crate::board::{Board, Move};
use crate::book::index::Located;
use crate::book::{Book, Link, Score};
use crate::symmetry::normalize;
use std::fmt;

/// Where a walk starts: a board and the line that reaches it from the initial
/// position (empty for the initial position itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// The position the walk starts from.
    pub board: Board,
    /// The moves from the initial position to it.
    pub line: Vec<Move>,
}

impl Start {
    /// The initial position, by an empty line.
    pub fn initial() -> Start {
        Start { board: Board::INITIAL, line: Vec::new() }
    }

    /// Where the start's record is in `book`, or where its line leaves the book.
    pub fn locate_in(&self, book: &Book) -> Result<Located, StartMissing> {
        book.locate(&normalize(&self.board).board).ok_or_else(|| StartMissing {
            board: self.board,
            line: self.line.clone(),
            leaves: LeavesBook::find(book, &self.line).map(Box::new),
        })
    }
}

/// The start position (normalized) is not in the book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartMissing {
    /// The start position, as the line reaches it.
    pub board: Board,
    /// The line to it.
    pub line: Vec<Move>,
    /// Where the line leaves the book (none if the book changed meanwhile).
    pub leaves: Option<Box<LeavesBook>>,
}

impl fmt::Display for StartMissing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the start position ({}; player {:#018x}, opponent {:#018x}) is not in the book",
            describe_line(&self.line),
            self.board.player,
            self.board.opponent
        )?;
        match &self.leaves {
            Some(leaves) => write!(f, ": {leaves}"),
            None => Ok(()),
        }
    }
}

/// Where a line from the initial position leaves a book: the first move
/// after which the position is not in it, and what the book holds at the
/// last position in it, in the line's coordinates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeavesBook {
    /// The book does not hold the initial position.
    AtTheInitialPosition,
    /// Move `number` (from 1) of the line, `mv`, leads out of the book.
    AtMove {
        /// The move's number in the line, from 1.
        number: usize,
        /// The move.
        mv: Move,
        /// The line's moves before it.
        before: Vec<Move>,
        /// The moves the book links at the position before it (for a book
        /// that stores no links, the legal moves whose child it holds).
        links: Vec<Link>,
        /// The leaf the book stores there, if any.
        leaf: Option<Link>,
    },
}

impl LeavesBook {
    /// Plays `line` from the initial position and finds where it leaves
    /// `book`; none if every position along it is in the book. A position
    /// whose side to move must pass is not looked for: books hold the
    /// position after the pass.
    pub fn find(book: &Book, line: &[Move]) -> Option<LeavesBook> {
        let mut board = Board::INITIAL;
        if book.locate(&normalize(&board).board).is_none() {
            return Some(LeavesBook::AtTheInitialPosition);
        }
        let mut last = (board, 0);
        for (i, &mv) in line.iter().enumerate() {
            board = board.after(mv)?;
            if line.get(i + 1) == Some(&Move::Pass) {
                continue;
            }
            if book.locate(&normalize(&board).board).is_none() {
                let (before, at) = last;
                let (links, leaf) = held_at(book, &before);
                let before = line[..at].to_vec();
                return Some(LeavesBook::AtMove { number: at + 1, mv: line[at], before, links, leaf });
            }
            last = (board, i + 1);
        }
        None
    }
}

/// The links and leaf the book holds for `board` (in the board's
/// coordinates): stored links, or for a book storing none, the legal moves
/// whose child (after a pass if its side must pass) the book holds, each
/// scored as that child's value says.
fn held_at(book: &Book, board: &Board) -> (Vec<Link>, Option<Link>) {
    let normalized = normalize(board);
    let Some(record) = book.find(&normalized.board) else { return (Vec::new(), None) };
    let s = normalized.to_original;
    let turned = |link: Link| Link { mv: s.apply_move(link.mv), ..link };
    let leaf = record.leaf().map(turned);
    if book.format().stores_links() {
        return (record.links().map(turned).collect(), leaf);
    }
    let mut links = Vec::new();
    for square in crate::board::Square::iter(board.legal_moves()) {
        let Some(child) = board.after(Move::Play(square)) else { continue };
        let passed = child.must_pass() && !child.is_game_over();
        let stored = if passed { child.swapped() } else { child };
        if let Some(held) = book.find(&normalize(&stored).board) {
            let score = if passed { held.value() } else { Score::new(-held.value().discs()) };
            links.push(Link { score, mv: Move::Play(square), then_pass: passed });
        }
    }
    (links, leaf)
}

impl fmt::Display for LeavesBook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (number, mv, before, links, leaf) = match self {
            LeavesBook::AtTheInitialPosition => return f.write_str("the book does not hold the initial position"),
            LeavesBook::AtMove { number, mv, before, links, leaf } => (number, mv, before, links, leaf),
        };
        write!(f, "the line leaves the book at move {number}, {mv}; {} the book holds ", describe_line(before))?;
        match links.as_slice() {
            [] => f.write_str("no link")?,
            links => {
                f.write_str(if links.len() == 1 { "the link " } else { "the links " })?;
                for (i, link) in links.iter().enumerate() {
                    let comma = if i == 0 { "" } else { ", " };
                    write!(f, "{comma}{} {}", link.mv, link.score)?;
                }
            }
        }
        match leaf {
            Some(leaf) => write!(f, " and the leaf {} {}", leaf.mv, leaf.score)?,
            None => f.write_str(" and no leaf")?,
        }
        Ok(())
    }
}

impl std::error::Error for StartMissing {}

/// Where a line leads, for messages.
pub fn describe_line(line: &[Move]) -> String {
    match line {
        [] => "at the initial position".to_string(),
        _ => format!("after \"{}\"", line.iter().map(|m| m.to_string()).collect::<String>()),
    }
}
