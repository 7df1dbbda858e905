//! How a run ends on standard output: the human summary (unchanged by
//! this module), nothing (`-q/--quiet`), or one JSON object
//! (`--summary json`, with `-q` or without) holding the summary's counts
//! and times, for scripts.
//!
//! Every JSON summary has `"command"` first; times are in seconds, paths
//! as text. The keys of each command are the ones the functions below
//! write, in that order (the README lists them).

use crate::cli::SummaryFormat;
use bookminer::book::verify::VerifyReport;
use bookminer::book::{Book, Details};
use bookminer::check::CheckReport;
use bookminer::choice::Choice;
use bookminer::convert::ConvertReport;
use bookminer::cut::CutReport;
use bookminer::diff::DiffReport;
use bookminer::extend::add::AddReport;
use bookminer::extend::deepen::DeepenReport;
use bookminer::extend::deviate::DeviateReport;
use bookminer::extend::enhance::EnhanceReport;
use bookminer::extend::fill::FillReport;
use bookminer::extend::grow::GrowReport;
use bookminer::extend::link::LinkReport;
use bookminer::extend::new_book::NewReport;
use bookminer::extend::{ExtendReport, SearchTally, TakenFrom};
use bookminer::fix::FixReport;
use bookminer::inspect::line::JudgedAt;
use bookminer::inspect::report::{Found, Report, Turned};
use bookminer::merge::MergeReport;
use bookminer::mine::MineReport;
use bookminer::output::text::push_board;
use bookminer::position::Colour;
use bookminer::stats::BookStats;
use bookminer::symmetry::Symmetry;
use bookminer::synth::SynthReport;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

/// How this run ends, set once from the command line before it runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ending {
    pub quiet: bool,
    pub summary: SummaryFormat,
}

static ENDING: OnceLock<Ending> = OnceLock::new();

/// Sets how the run ends; the first call counts.
pub fn set(ending: Ending) {
    let _ = ENDING.set(ending);
}

/// How the run ends.
pub fn ending() -> Ending {
    ENDING.get().copied().unwrap_or_default()
}

/// What to print at the end: the JSON object when it is asked for, quiet or
/// not (a script asked for it: `-q` silences the human summary and the
/// progress, not what a pipe reads), else the human text unless quiet;
/// `json` is made only when it is printed.
pub fn choose(human: String, json: impl FnOnce() -> Value) -> Option<String> {
    let ending = ending();
    match (ending.quiet, ending.summary) {
        (_, SummaryFormat::Json) => Some(json().to_string()),
        (true, SummaryFormat::Human) => None,
        (false, SummaryFormat::Human) => Some(human),
    }
}

/// Whether the human summary is printed: neither quiet nor JSON.
pub fn shows_human() -> bool {
    let ending = ending();
    !ending.quiet && ending.summary == SummaryFormat::Human
}

fn secs(duration: Duration) -> f64 {
    // Milliseconds are all a script needs; fewer digits read better.
    (duration.as_secs_f64() * 1000.0).round() / 1000.0
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

pub fn mine(report: &MineReport) -> Value {
    let modes: Vec<Value> = report
        .modes
        .iter()
        .map(|m| {
            let files: Vec<Value> = m
                .files
                .iter()
                .map(|f| json!({"format": f.format.name(), "path": text(&f.path), "lines": f.lines}))
                .collect();
            json!({
                "mode": m.mode.number(),
                "above": m.above,
                "below": m.below,
                "lines_written": m.lines_written,
                "duplicates_dropped": m.duplicates_dropped,
                "files": files,
            })
        })
        .collect();
    json!({
        "command": "mine",
        "positions_loaded": report.positions_loaded,
        "positions_walked": report.walk.positions,
        "edges": report.walk.edges,
        "arrivals": report.walk.arrivals,
        "modes": modes,
        "removed": report.replaced.removed.iter().map(|p| text(p)).collect::<Vec<_>>(),
        "kept": report.replaced.kept.iter().map(|(p, why)| json!({"path": text(p), "why": why})).collect::<Vec<_>>(),
        "walk_seconds": secs(report.walk_time),
        "elapsed_seconds": secs(report.elapsed),
    })
}

pub fn check(report: &CheckReport) -> Value {
    let sets: Vec<Value> = report
        .sets
        .iter()
        .map(|set| {
            let files: Vec<Value> = set
                .files
                .iter()
                .map(|f| json!({"format": f.format.name(), "path": text(&f.path), "lines": f.lines}))
                .collect();
            json!({
                "lines": set.stem.name(),
                "lines_written": set.lines_written,
                "duplicates_dropped": set.duplicates_dropped,
                "files": files,
            })
        })
        .collect();
    let c = &report.counts;
    json!({
        "command": "check",
        "book": text(&report.book),
        "games": report.games.iter().map(|g| text(g)).collect::<Vec<_>>(),
        "n_empties": report.depth.n_empties,
        "moves_a_game": report.depth.moves(),
        "games_read": report.games_read,
        "games_skipped": report.games_skipped,
        "games_cut_short": report.games_cut_short,
        "missing": c.missing,
        "good": c.good,
        "bad": c.bad,
        "bad_percent": c.bad_percent(),
        "unscored": c.unscored,
        "sets": sets,
        "elapsed_seconds": secs(report.elapsed),
    })
}

pub fn fix(report: &FixReport) -> Value {
    let c = &report.changes;
    json!({
        "command": "fix",
        "input": text(&report.input),
        "output": text(&report.output),
        "receipt": text(&report.receipt),
        "positions_loaded": report.positions_loaded,
        "positions_negamaxed": report.reachable,
        "records_changed": c.records,
        "values_changed": c.values,
        "link_scores_changed": c.link_scores,
        "counts_changed": c.counts,
        "links_reordered": c.reordered,
        "elapsed_seconds": secs(report.elapsed),
    })
}

pub fn extend(report: &ExtendReport) -> Value {
    joined([
        json!({
            "command": "extend",
            "input": text(&report.input),
            "output": text(&report.output),
            "journal": text(&report.journal),
            "positions_loaded": report.positions_loaded,
            "rounds": report.rounds,
            "candidates": report.candidates,
            "expanded": report.expanded,
            "positions_added": report.added,
        }),
        searches(&report.searches),
        json!({
            "engines": engines(&report.searches.engines),
            "stopped_early": report.stopped_early,
            "records_written": report.records_written,
            "elapsed_seconds": secs(report.elapsed),
        }),
    ])
}

/// `play`'s summary: extend's keys, its candidates the positions without links.
pub fn play(report: &ExtendReport) -> Value {
    let mut value = extend(report);
    value["command"] = json!("play");
    value
}

pub fn fill(report: &FillReport) -> Value {
    joined([
        json!({
            "command": "fill",
            "input": text(&report.input),
            "output": text(&report.output),
            "journal": text(&report.journal),
            "positions_loaded": report.positions_loaded,
            "depth": report.depth,
            "rounds": report.rounds,
            "positions_added": report.added,
            "links_added": report.links_added,
        }),
        searches(&report.searches),
        json!({
            "engines": engines(&report.searches.engines),
            "stopped_early": report.ended.map(|e| e.name()),
            "records_written": report.records_written,
            "elapsed_seconds": secs(report.elapsed),
        }),
    ])
}

pub fn new_book(report: &NewReport) -> Value {
    joined([
        json!({
            "command": "new",
            "output": text(&report.output),
            "journal": text(&report.journal),
            "level": report.level,
            "n_empties": report.n_empties,
            "leaf_move": report.leaf_move.map(|m| m.to_string()),
            "leaf_score": report.leaf_score,
        }),
        searches(&report.searches),
        json!({
            "engines": engines(&report.searches.engines),
            "records_written": 1,
            "elapsed_seconds": secs(report.elapsed),
        }),
    ])
}

pub fn add(report: &AddReport) -> Value {
    joined([
        json!({
            "command": "add",
            "input": text(&report.input),
            "output": text(&report.output),
            "journal": text(&report.journal),
            "positions_loaded": report.positions_loaded,
            "games_read": report.games_read,
            "games_skipped": report.skipped,
            "games_cut_short": report.cut_short,
            "cut_short": report.cuts,
            "positions_met": report.positions_met,
            "positions_added": report.added,
            "links_added": report.links_added,
        }),
        searches(&report.searches),
        json!({
            "engines": engines(&report.searches.engines),
            "records_written": report.records_written,
            "reachable": report.reachable,
            "elapsed_seconds": secs(report.elapsed),
        }),
    ])
}

pub fn deviate(report: &DeviateReport) -> Value {
    let e = &report.extend;
    joined([
        json!({
            "command": "deviate",
            "input": text(&e.input),
            "output": text(&e.output),
            "journal": text(&e.journal),
            "positions_loaded": e.positions_loaded,
            "relative": report.relative,
            "absolute": report.absolute,
            "rounds": e.rounds,
            "marked": e.candidates,
            "expanded": e.expanded,
            "positions_added": e.added,
        }),
        searches(&e.searches),
        json!({
            "engines": engines(&e.searches.engines),
            "stopped_early": e.stopped_early,
            "records_written": e.records_written,
            "elapsed_seconds": secs(e.elapsed),
        }),
    ])
}

pub fn enhance(report: &EnhanceReport) -> Value {
    let e = &report.extend;
    joined([
        json!({
            "command": "enhance",
            "input": text(&e.input),
            "output": text(&e.output),
            "journal": text(&e.journal),
            "positions_loaded": e.positions_loaded,
            "midgame_error": report.errors.midgame,
            "endgame_error": report.errors.endcut,
            "max_rounds": report.max_rounds,
            "rounds": e.rounds,
            "marked": e.candidates,
            "expanded": e.expanded,
            "positions_added": e.added,
        }),
        searches(&e.searches),
        json!({
            "engines": engines(&e.searches.engines),
            "stopped_early": e.stopped_early,
            "records_written": e.records_written,
            "elapsed_seconds": secs(e.elapsed),
        }),
    ])
}

pub fn link(report: &LinkReport) -> Value {
    joined([
        json!({
            "command": "fix",
            "link": true,
            "input": text(&report.input),
            "output": text(&report.output),
            "journal": text(&report.journal),
            "positions_loaded": report.positions_loaded,
            "records_linked": report.records_linked,
            "links_added": report.links_added,
            "leaves_searched_again": report.leaves,
        }),
        searches(&report.searches),
        json!({
            "engines": engines(&report.searches.engines),
            "reachable": report.reachable,
            "records_written": report.records_written,
            "elapsed_seconds": secs(report.elapsed),
        }),
    ])
}

/// A book `merge` converted, as `convert`'s summary says it, but for the
/// command and the file it was written to (the run's own, removed).
fn converted(report: &ConvertReport) -> Value {
    let mut value = convert(report);
    if let Some(keys) = value.as_object_mut() {
        keys.shift_remove("command");
        keys.shift_remove("output");
    }
    value
}

pub fn merge(report: &MergeReport) -> Value {
    let t = &report.tally;
    json!({
        "command": "merge",
        "a": text(&report.a),
        "b": text(&report.b),
        "output": text(&report.output),
        "receipt": text(&report.receipt),
        "positions_a": report.positions[0],
        "positions_b": report.positions[1],
        "converted_a": report.converted[0].as_ref().map(converted),
        "converted_b": report.converted[1].as_ref().map(converted),
        "boards_a_alone": t.only_a,
        "boards_b_alone": t.only_b,
        "boards_alike": t.same,
        "conflicts": t.conflicts(),
        "conflicts_by_level": t.by_level,
        "conflicts_by_leaf": t.by_leaf,
        "conflicts_to_a": t.first,
        "kept_from_a": t.kept_a,
        "kept_from_b": t.kept_b,
        "links_joined": t.links_joined,
        "links_added": t.links_added,
        "stale_leaves": t.stale,
        "stale_searched": report.asked.searched,
        "stale_from_journal": report.asked.from_journal,
        "journal_answers_by": taken_from(&report.taken_from),
        "journal_set_aside": report.journal_set_aside.as_deref().map(text),
        "stale_known": t.stale_known,
        "stale_emptied": t.stale_emptied,
        "engine_seconds": secs(report.asked.engine_time),
        "engines": engines(&report.engines),
        "records_written": report.records_written,
        "elapsed_seconds": secs(report.elapsed),
    })
}

pub fn grow(report: &GrowReport) -> Value {
    let e = &report.extend;
    joined([
        json!({
            "command": "grow",
            "input": text(&e.input),
            "output": text(&e.output),
            "journal": text(&e.journal),
            "positions_loaded": e.positions_loaded,
            "expanded": e.expanded,
            "positions_added": e.added,
            "ended_by": report.ended.name(),
            "largest_expanded": report.largest_expanded,
            "least_priority_left": report.least_left,
        }),
        searches(&e.searches),
        json!({
            "engine_utilisation": report.utilisation,
            "engines": engines(&e.searches.engines),
            "records_written": e.records_written,
            "elapsed_seconds": secs(e.elapsed),
        }),
    ])
}

pub fn deepen(report: &DeepenReport) -> Value {
    let e = &report.extend;
    joined([
        json!({
            "command": "deepen",
            "input": text(&e.input),
            "output": text(&e.output),
            "journal": text(&e.journal),
            "positions_loaded": e.positions_loaded,
            "level": report.level,
            "needed_deepening": report.needed,
            "deepened": report.deepened,
            "ended_by": report.ended.name(),
            "leaf_moves_changed": report.moves_changed,
            "leaf_scores_changed": report.scores_changed,
            "largest_leaf_score_change": report.largest_score_change,
            "values_changed": report.values_changed,
            "header_level_set": report.header_level_set,
        }),
        searches(&e.searches),
        json!({
            "engines": engines(&e.searches.engines),
            "records_written": e.records_written,
            "elapsed_seconds": secs(e.elapsed),
        }),
    ])
}

/// What every command that asks the engines says of its searches, up to
/// the engines' seconds (each engine's own line follows apart: `grow`
/// puts its utilisation between).
fn searches(t: &SearchTally) -> Value {
    json!({
        "searches": t.searched,
        "searches_from_journal": t.from_journal,
        "journal_answers_by": taken_from(&t.taken_from),
        "journal_set_aside": t.journal_set_aside.as_deref().map(text),
        "engine_seconds": secs(t.engine_time),
    })
}

/// The keys of `parts`, objects each, in order: one summary whose keys
/// come from more than one place.
fn joined<const N: usize>(parts: [Value; N]) -> Value {
    let mut keys = serde_json::Map::new();
    for part in parts {
        if let Value::Object(part) = part {
            keys.extend(part);
        }
    }
    Value::Object(keys)
}

/// The answers taken from the journal, by the engine command that gave
/// them, and whether it is one of this run's.
fn taken_from(taken: &[TakenFrom]) -> Value {
    let each = |t: &TakenFrom| json!({"engine": t.engine, "protocol": t.protocol.name(), "answers": t.answers, "this_run": t.this_run});
    Value::Array(taken.iter().map(each).collect())
}

/// Each engine of a fleet, as extend and grow report it.
fn engines(engines: &[bookminer::engine::fleet::EngineReport]) -> Vec<Value> {
    let engine = |e: &bookminer::engine::fleet::EngineReport| {
        json!({
            "command": e.label,
            "protocol": e.protocol.name(),
            "workers": e.workers,
            "searches": e.searches,
            "faults": e.faults,
            "retired": e.retired,
            "busy_seconds": secs(e.busy),
        })
    };
    engines.iter().map(engine).collect()
}

pub fn convert(report: &ConvertReport) -> Value {
    json!({
        "command": "convert",
        "from": report.from.map(|f| f.title()),
        "to": report.to.map(|t| t.to_string()),
        "output": text(&report.out),
        "records_read": report.read,
        "records_written": report.written,
        "reached": report.reached,
        "pass_records_added": report.passes_added,
        "not_in_book": report.not_in_book,
        "left_out_value": report.left_out_value,
        "left_out_pass": report.left_out_pass,
        "link_scores_lost": report.links_lost,
        "link_scores_differing": report.links_differing,
        "bounds_lost": report.bounds_lost,
        "elapsed_seconds": secs(report.elapsed),
    })
}

pub fn cut(report: &CutReport) -> Value {
    json!({
        "command": "cut",
        "output": text(&report.out),
        "records_read": report.read,
        "records_kept": report.kept,
        "links_pruned": report.links_pruned,
        "leaves_replaced": report.leaves_replaced,
        "elapsed_seconds": secs(report.elapsed),
    })
}

pub fn diff(report: &DiffReport) -> Value {
    let c = &report.counts;
    json!({
        "command": "diff",
        "old": text(&report.old),
        "new": text(&report.new),
        "output": text(&report.output),
        "old_positions": report.old_positions,
        "new_positions": report.new_positions,
        "only_old": c.only_old,
        "only_new": c.only_new,
        "changed": c.changed,
        "values": c.values,
        "bounds": c.bounds,
        "levels": c.levels,
        "leaves": c.leaves,
        "links": c.links,
        "link_scores": c.link_scores,
        "lines": c.lines(),
        "elapsed_seconds": secs(report.elapsed),
    })
}

pub fn synth(path: &Path, report: &SynthReport, elapsed: Duration) -> Value {
    json!({
        "command": "synth",
        "output": text(path),
        "positions": report.positions,
        "links": report.links,
        "leaves": report.leaves,
        "passes": report.passes,
        "perturbed": report.perturbed,
        "elapsed_seconds": secs(elapsed),
    })
}

/// `stats`: the book, its format and header count, the counts of
/// [`bookminer::stats::StatsJson`] in its order, and the problems `verify`
/// would list.
pub fn stats(path: &Path, book: &Book, stats: &BookStats, problems: usize) -> Value {
    let header_count = book.header().claimed_records();
    let mut object = json!({
        "command": "stats",
        "book": text(path),
        "format": book.format().title(),
        "header_count": header_count,
    });
    let counts = serde_json::to_value(stats.to_json()).expect("counts serialize");
    if let (Some(object), Value::Object(counts)) = (object.as_object_mut(), counts) {
        object.extend(counts);
        object.insert("problems".into(), problems.into());
    }
    object
}

/// `verify`: the book, its records, and each problem and merged pair as
/// the human output words it.
pub fn verify(path: &Path, report: &VerifyReport) -> Value {
    let words = |items: &mut dyn Iterator<Item = String>| items.collect::<Vec<_>>();
    json!({
        "command": "verify",
        "book": text(path),
        "records": report.records,
        "problems": words(&mut report.problems.iter().map(|p| p.to_string())),
        "merged": words(&mut report.merged.iter().map(|p| p.to_string())),
    })
}

/// `inspect`: the book, each position read as fields (those the book does
/// not hold too, `"in_book":false`), and how many positions could not be
/// reported in full, malformed or not in the book (their errors go to
/// stderr).
pub fn inspect(book: &Path, reports: &[&Report], failed: usize) -> Value {
    json!({
        "command": "inspect",
        "book": text(book),
        "reports": reports.iter().map(|r| inspect_report(r)).collect::<Vec<_>>(),
        "failed": failed,
    })
}

/// One position inspect reports, in the fields its text gives: where it
/// was written, the mode that judged it, the board and side, then the
/// record (each `null` when the book does not hold it, or its format does
/// not store that field), its links and leaf with their scores.
pub fn inspect_report(report: &Report) -> Value {
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

/// A record's fields in an inspect report (see [`inspect_report`]).
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
        "links": found.links().map(scored).collect::<Vec<_>>(),
        "leaf": found.leaf().map(scored),
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
