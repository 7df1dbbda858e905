//! What the page shows of one position, as one JSON object: inspect's
//! fields (as `inspect --summary json` gives them), the picture, where each
//! move leads, and the mismatches the rules report there with the pages
//! that follow them.

use bookminer::board::{Board, Move, Square};
use bookminer::book::Book;
use bookminer::inspect::mismatches::{self, Judged, Mismatch};
use bookminer::inspect::picture::Picture;
use bookminer::inspect::report::Report;
use bookminer::output::text::push_board;
use bookminer::position::Colour;
use bookminer::rules::modes::{Branch, Rules};
use bookminer::symmetry::Symmetry;
use serde_json::{json, Map, Value};

/// The page's view of the position `report` is about.
pub fn of(book: &Book, rules: &Rules, report: &Report) -> Value {
    let found = mismatches::at_position(book, rules, report);
    let board = report.position.board;
    let must_pass = board.must_pass();
    // After a forced pass the other side plays: a kifu leaves the pass out.
    let movers = if must_pass { board.swapped() } else { board };
    let mut next = Map::new();
    for square in Square::iter(movers.legal_moves()) {
        next.insert(square.to_string(), Value::String(url_after(report, Move::Play(square))));
    }
    json!({
        "line": line(report),
        "board": obf(&board, report.position.to_move),
        "must_pass": must_pass,
        "inspect": bookminer::inspect::json::report(report),
        "svg": Picture { report, mismatches: &found }.to_string(),
        "next": next,
        "mismatches": found.iter().map(|m| mismatch(report, m)).collect::<Vec<_>>(),
        "book": book.path().display().to_string(),
    })
}

/// The line as a kifu of squares (the passes it implies left out), when known.
fn line(report: &Report) -> Option<String> {
    let line = report.position.line.as_ref()?;
    Some(line.iter().filter(|m| matches!(m, Move::Play(_))).map(|m| m.to_string()).collect())
}

/// A board and its side to move as 65 characters (OBF without the blank):
/// what `/position/` reads. With no colour given, `X` is the side to move.
fn obf(board: &Board, to_move: Option<Colour>) -> String {
    let black = to_move != Some(Colour::White);
    let mut text = String::with_capacity(65);
    push_board(board, black, Symmetry::IDENTITY, &mut text);
    text.push(if black { 'X' } else { 'O' });
    text
}

/// The page of the position after `mv`: the line and the move, or, for a
/// position given as a board, the board after it.
fn url_after(report: &Report, mv: Move) -> String {
    if let Some(line) = line(report) {
        return format!("/line/{line}{mv}");
    }
    let board = report.position.board;
    let (movers, colour) = match board.must_pass() {
        true => (board.swapped(), Some(other(report.position.to_move))),
        false => (board, report.position.to_move),
    };
    match movers.after(mv) {
        Some(after) => format!("/position/{}", obf(&after, Some(other(colour)))),
        None => format!("/position/{}", obf(&board, report.position.to_move)),
    }
}

/// The other colour; with none given, `X` moved, so `O`.
fn other(colour: Option<Colour>) -> Colour {
    match colour {
        Some(Colour::White) => Colour::Black,
        _ => Colour::White,
    }
}

/// One mismatch: what fired, the sentence saying it, and the pages of the
/// lines it writes (the moves it is about; the child, for a rule judged
/// there).
fn mismatch(report: &Report, m: &Mismatch) -> Value {
    let (judged, at) = match m.judged {
        Judged::Here => ("here", None),
        Judged::Child(mv) => ("child", Some(mv.to_string())),
    };
    let branch = match m.branch {
        Branch::Above => "above",
        Branch::Below => "below",
    };
    let follow: Vec<Value> =
        m.moves.iter().map(|&mv| json!({"move": mv.to_string(), "url": url_after(report, mv)})).collect();
    json!({
        "mode": m.mode.number(),
        "judged": judged,
        "child_of": at,
        "branch": branch,
        "observed": m.observed.discs(),
        "expected": m.expected.discs(),
        "text": m.to_string(),
        "follow": follow,
    })
}
