//! The words a summary says of the engines and the journal: the answers
//! taken from the journal and by whom, the journal set aside, the fleet's
//! size and each engine's work. Every growth command and `merge` say them
//! alike.

use super::fleet::EngineReport;
use super::journal::TakenFrom;
use crate::wording::count;
use std::fmt;
use std::path::Path;

/// A summary's line for each engine command whose answers were taken from
/// the journal, saying those of another command than this run's.
pub fn write_taken(f: &mut fmt::Formatter<'_>, taken: &[TakenFrom]) -> fmt::Result {
    for t in taken {
        let other = if t.this_run { "" } else { " (not an engine of this run)" };
        writeln!(f, "  from the journal   {} given by `{}`{other}", t.answers, t.engine)?;
    }
    Ok(())
}

/// A summary's line for the journal of earlier runs set aside (`--fresh`).
pub fn write_set_aside(f: &mut fmt::Formatter<'_>, aside: Option<&Path>) -> fmt::Result {
    match aside {
        Some(aside) => writeln!(f, "journal set aside    {} (--fresh: every search made anew)", aside.display()),
        None => Ok(()),
    }
}

/// The command lines of a fleet's engines.
pub fn labels(engines: &[EngineReport]) -> Vec<&str> {
    engines.iter().map(|e| e.label.as_str()).collect()
}

/// How large the fleet was, as the summary's lines on each engine count
/// it: "2 workers on 1 engine".
pub fn fleet_size(engines: &[EngineReport]) -> String {
    let workers: usize = engines.iter().map(|e| e.workers).sum();
    format!("{} on {}", count(workers, "worker", "workers"), count(engines.len(), "engine", "engines"))
}

/// A summary's line for each engine of the fleet: its command, protocol, workers,
/// searches, faults, and whether it was retired.
pub fn write_engines(f: &mut fmt::Formatter<'_>, engines: &[EngineReport]) -> fmt::Result {
    for (i, engine) in engines.iter().enumerate() {
        let retired = if engine.retired { ", retired" } else { "" };
        writeln!(
            f,
            "engine {:<13} {} ({}): {}, {}, {}{retired}",
            i + 1,
            engine.label,
            crate::choice::Choice::name(engine.protocol),
            count(engine.workers, "worker", "workers"),
            count(engine.searches, "search", "searches"),
            count(engine.faults, "fault", "faults"),
        )?;
    }
    Ok(())
}
