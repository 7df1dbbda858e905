//! How a run ends on standard output: the human summary (unchanged by
//! this module), nothing (`-q/--quiet`), or one JSON object
//! (`--summary json`, with `-q` or without) holding the summary's counts
//! and times, for scripts.
//!
//! Every JSON summary has `"command"` first; times are in seconds, paths
//! as text. Each command writes its own (its `json` function in
//! src/commands/, the keys in the order the README lists them), from the
//! parts every growth command shares, here.

use bookminer::choice::Choice;
use bookminer::growth::{SearchTally, TakenFrom};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

/// How the summary at the end of a run is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SummaryFormat {
    /// Text, as the README shows it
    #[default]
    Human,
    /// One JSON object on one line
    Json,
}

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

pub fn secs(duration: Duration) -> f64 {
    // Milliseconds are all a script needs; fewer digits read better.
    (duration.as_secs_f64() * 1000.0).round() / 1000.0
}

pub fn text(path: &Path) -> String {
    path.display().to_string()
}

/// What every command that asks the engines says of its searches, up to
/// the engines' seconds (each engine's own line follows apart: `grow`
/// puts its utilisation between).
pub fn searches(t: &SearchTally) -> Value {
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
pub fn joined<const N: usize>(parts: [Value; N]) -> Value {
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
pub fn taken_from(taken: &[TakenFrom]) -> Value {
    let each = |t: &TakenFrom| json!({"engine": t.engine, "protocol": t.protocol.name(), "answers": t.answers, "this_run": t.this_run});
    Value::Array(taken.iter().map(each).collect())
}

/// How a growth run that can stop early ends its summary (extend and the
/// policies over its session): the engines, what stopped it early if
/// anything did, the records written and the time.
pub fn grown_ending(
    fleet: &[bookminer::engine::fleet::EngineReport],
    stopped_early: impl serde::Serialize,
    records_written: u64,
    elapsed: Duration,
) -> Value {
    json!({
        "engines": engines(fleet),
        "stopped_early": stopped_early,
        "records_written": records_written,
        "elapsed_seconds": secs(elapsed),
    })
}

/// Each engine of a fleet, as extend and grow report it.
pub fn engines(engines: &[bookminer::engine::fleet::EngineReport]) -> Vec<Value> {
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
