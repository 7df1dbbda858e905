//! inspect's report as JSON (`inspect --summary json`, docs/modes.md):
//! the one object the command prints and the explorer (src/serve/) gives
//! at `/api/inspect` and draws its page from, so that both say the same.

use super::line::JudgedAt;
use super::report::{Found, Report, Turned};
use crate::book::Details;
use crate::output::text::push_board;
use crate::position::Colour;
use crate::symmetry::Symmetry;
use serde_json::{json, Value};
use std::path::Path;

/// `inspect`: the book, each position read as fields (those the book does
/// not hold too, `"in_book":false`), and how many positions could not be
/// reported in full, malformed or not in the book (their errors go to
/// stderr).
pub fn document(book: &Path, reports: &[&Report], failed: usize) -> Value {
    json!({
        "command": "inspect",
        "book": book.display().to_string(),
        "reports": reports.iter().map(|r| report(r)).collect::<Vec<_>>(),
        "failed": failed,
    })
}

/// One position inspect reports, in the fields its text gives: where it
/// was written, the mode that judged it, the board and side, then the
/// record (each `null` when the book does not hold it, or its format does
/// not store that field), its links and leaf with their scores.
pub fn report(report: &Report) -> Value {
    let black_to_move = report.position.to_move != Some(Colour::White);
    let mut board = String::with_capacity(64);
    push_board(&report.position.board, black_to_move, Symmetry::IDENTITY, &mut board);
    let side = report.position.to_move.map(|c| if c == Colour::Black { "X" } else { "O" });
    let judged = report.judged.map(|judged| match judged.at {
        JudgedAt::End => json!({"mode": judged.mode.number(), "at": "line_end", "last_move": null}),
        JudgedAt::BeforeLastMove(mv) => {
            json!({"mode": judged.mode.number(), "at": "before_last_move", "last_move": mv.to_string()})
        }
    });
    let mut fields = json!({
        "origin": report.origin,
        "text": report.text,
        "judged": judged,
        "line": report.kifu(),
        "board": board,
        "side": side,
        "empties": report.position.board.empties(),
        "in_book": report.found.is_some(),
    });
    let record = report.found.as_ref().map_or_else(no_record, found_fields);
    if let (Some(fields), Value::Object(record)) = (fields.as_object_mut(), record) {
        fields.extend(record);
    }
    fields
}

/// A record's fields in an inspect report (see [`report`]).
fn found_fields(found: &Found) -> Value {
    let record = &found.record;
    let (bounds, counts, leaf_level, lines) = match (record.details, found.leafless_format) {
        (Details::Edax { counts: [w, d, l, lines], lower, upper }, _) => {
            (Some((lower.discs(), upper.discs())), Some((w, d, l)), None, Some(lines))
        }
        (Details::Egaroucid { .. }, Some(_)) => (None, None, None, None),
        (Details::Egaroucid { n_lines, leaf_level, .. }, None) => (None, None, Some(leaf_level), Some(n_lines)),
    };
    let scored = |t: Turned| {
        json!({"move": t.actual.to_string(), "stored": t.stored.mv.to_string(), "score": t.stored.score.discs(),
               "then_pass": t.stored.then_pass})
    };
    let stored = record.board();
    json!({
        "record": found.place.number,
        "offset": found.place.offset,
        "stored_player": format!("{:#018x}", stored.player),
        "stored_opponent": format!("{:#018x}", stored.opponent),
        "symmetry": found.symmetry.index(),
        "value": record.value().discs(),
        "lower": bounds.map(|b| b.0),
        "upper": bounds.map(|b| b.1),
        "level": record.level,
        "leaf_level": leaf_level,
        "wins": counts.map(|c| c.0),
        "draws": counts.map(|c| c.1),
        "losses": counts.map(|c| c.2),
        "lines": lines,
        "links": found
            .links()
            .zip(&found.grades)
            .map(|(t, grade)| {
                let mut link = scored(t);
                link["accuracy"] = json!(grade.map(|g| g.name()));
                link
            })
            .collect::<Vec<_>>(),
        "leaf": found.leaf().map(|t| {
            let mut leaf = scored(t);
            leaf["accuracy"] = Value::Null;
            leaf
        }),
    })
}

/// The record's fields of an inspect report for a position the book does
/// not hold: each `null`, no link.
fn no_record() -> Value {
    json!({
        "record": null, "offset": null, "stored_player": null, "stored_opponent": null, "symmetry": null,
        "value": null, "lower": null, "upper": null, "level": null, "leaf_level": null,
        "wins": null, "draws": null, "losses": null, "lines": null, "links": [], "leaf": null,
    })
}
