//! A record named by the line of the walk's first arrival at it, as `fix`'s
//! receipt (docs/fix.md) and `diff` write it: `,"kifu":…,"board":…,"side":…`
//! (orientation and `pass_token` as in docs/modes.md, output; the board as
//! its JSONL record writes it), and the record's stored moves turned as
//! that line is.

use super::print::{push_int, push_json_string};
use super::text::{push_board, push_move, side_char};
use super::LineStyle;
use crate::board::{Board, Move};
use crate::symmetry::Symmetry;

/// Writes records' lines and positions, reusing its buffer.
pub struct Placer<'a> {
    format: &'a LineStyle,
    kifu: String,
}

/// How a record's stored moves are written once its line is.
#[derive(Clone, Copy)]
pub struct MoveFrame<'a> {
    format: &'a LineStyle,
    /// Maps the stored board onto the position the line reaches.
    symmetry: Symmetry,
    /// The symmetry the line was written under.
    turned: Symmetry,
    at_start: bool,
}

impl<'a> Placer<'a> {
    /// A placer writing lines in `format`'s style.
    pub fn new(format: &'a LineStyle) -> Placer<'a> {
        Placer { format, kifu: String::new() }
    }

    /// Appends `,"kifu":"…","board":"…","side":"X"` for the record whose
    /// stored board is `stored`, reached by `line`, where `symmetry` maps
    /// the stored board onto the position reached.
    pub fn push(&mut self, stored: &Board, (line, symmetry): (&[Move], Symmetry), text: &mut String) -> MoveFrame<'a> {
        text.push_str(",\"kifu\":");
        self.kifu.clear();
        let turned = self.format.render(line, &mut self.kifu);
        push_json_string(&self.kifu, text);
        let black_to_move = line.len() % 2 == 0;
        push_board_and_side(&symmetry.board(stored), black_to_move, turned, text);
        MoveFrame { format: self.format, symmetry, turned, at_start: line.is_empty() }
    }

    /// Appends `,"kifu":null,"board":"…","side":"X"` for a record no walk
    /// reaches: which colour moves is not known, so the stored board is
    /// written as it is, its side to move as `X`. Its moves are written in
    /// stored coordinates.
    pub fn push_unreached(&self, stored: &Board, text: &mut String) -> MoveFrame<'a> {
        text.push_str(",\"kifu\":null");
        push_board_and_side(stored, true, Symmetry::IDENTITY, text);
        MoveFrame { format: self.format, symmetry: Symmetry::IDENTITY, turned: Symmetry::IDENTITY, at_start: false }
    }
}

/// `,"board":"…","side":"X"`
fn push_board_and_side(board: &Board, black_to_move: bool, turned: Symmetry, text: &mut String) {
    text.push_str(",\"board\":\"");
    push_board(board, black_to_move, turned, text);
    text.push_str("\",\"side\":\"");
    text.push(side_char(black_to_move));
    text.push('"');
}

impl MoveFrame<'_> {
    /// Appends `,"links":[["D3",old,new],…]`, each move given in stored
    /// coordinates and each score `null` where there is none; nothing
    /// without links.
    pub fn push_links(&self, links: impl ExactSizeIterator<Item = (Move, [Option<i64>; 2])>, text: &mut String) {
        if links.len() == 0 {
            return;
        }
        text.push_str(",\"links\":[");
        for (i, (stored_move, scores)) in links.enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str("[\"");
            self.push_move(stored_move, text);
            text.push('"');
            for score in scores {
                text.push(',');
                match score {
                    Some(n) => push_int(n, text),
                    None => text.push_str("null"),
                }
            }
            text.push(']');
        }
        text.push(']');
    }

    /// Appends a move of the record, given in stored coordinates, as the
    /// line's orientation writes it (`PS` for a pass).
    pub fn push_move(&self, stored_move: Move, text: &mut String) {
        let actual = self.symmetry.apply_move(stored_move);
        // A line's moves are all turned as its first is; at the start, the
        // line is the move itself (each opening move reads F5).
        let turn = if self.at_start { self.format.symmetry(&[actual]) } else { self.turned };
        push_move(turn.apply_move(actual), text);
    }
}
