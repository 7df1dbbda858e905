//! The receipt, `{out_dir}/merge.jsonl` (docs/merge.md): one line for each
//! record of the merged book whose board the books disagreed on, or whose
//! leaf went stale, in the merged book's order.

use super::compose::{Entry, Held};
use super::rule::Kept;
use crate::board::{Board, Move};
use crate::book::Leaf;
use crate::output::text::{push_board, push_square, side_char};
use crate::symmetry::Symmetry;
use std::fmt::Write as _;

/// The receipt's name in the output folder.
pub const RECEIPT: &str = "merge.jsonl";

/// The line of one entry, newline included. Keys in this order, no spaces:
/// `record`, `board`, `side`, then for a conflict `kept`, `by`, `a`, `b`,
/// then for a stale leaf `stale` and `leaf`.
pub fn line(entry: &Entry) -> String {
    let mut line = String::with_capacity(200);
    let black = entry.board.empties().is_multiple_of(2);
    let _ = write!(
        line,
        "{{\"record\":{},\"board\":\"{}\",\"side\":\"{}\"",
        entry.record,
        board_text(&entry.board, black),
        side_char(black)
    );
    if let Some(c) = &entry.conflict {
        let kept = match c.kept {
            Kept::A => "A",
            Kept::B => "B",
        };
        let _ =
            write!(line, ",\"kept\":\"{kept}\",\"by\":\"{}\",\"a\":{},\"b\":{}", c.why.word(), held(&c.a), held(&c.b));
    }
    if let Some(s) = &entry.stale {
        let _ = write!(line, ",\"stale\":{}", scored(s.was.score.discs(), s.was.mv));
        match s.now {
            Some(now) => {
                let _ = write!(line, ",\"leaf\":{}", new_leaf(now));
            }
            None => line.push_str(",\"leaf\":null"),
        }
    }
    line.push_str("}\n");
    line
}

/// `board side`, as a line of the receipt gives them.
pub fn board_and_side(board: &Board) -> String {
    let black = board.empties().is_multiple_of(2);
    format!("{} {}", board_text(board, black), side_char(black))
}

fn board_text(board: &Board, black: bool) -> String {
    let mut text = String::with_capacity(64);
    push_board(board, black, Symmetry::IDENTITY, &mut text);
    text
}

/// `{"level":L,"value":V,"leaf":["F5",3]}` (`"leaf":null` without one).
fn held(held: &Held) -> String {
    let leaf = held.leaf.map_or("null".to_string(), |leaf| scored(leaf.score.discs(), leaf.mv));
    format!("{{\"level\":{},\"value\":{},\"leaf\":{leaf}}}", held.level, held.value)
}

/// What replaced a stale leaf: a leaf as [`scored`] writes it; none as
/// `[null,-127]`, no move and minus infinity, the score the negamax takes
/// no part of (docs/merge.md).
fn new_leaf(leaf: Option<Leaf>) -> String {
    match leaf {
        Some(leaf) => scored(leaf.score.discs(), leaf.mv),
        None => scored((-crate::negamax::SCORE_INF).discs(), None),
    }
}

/// `["F5",3]`; the pass is `"pass"`, no move `null`.
fn scored(score: i32, mv: Option<Move>) -> String {
    let mv = match mv {
        Some(Move::Play(square)) => {
            let mut text = String::from("\"");
            push_square(square, &mut text);
            text.push('"');
            text
        }
        Some(Move::Pass) => "\"pass\"".to_string(),
        None => "null".to_string(),
    };
    format!("[{mv},{score}]")
}
