//! What a growth run did, for the summary: the one report
//! ([`GrowthReport`]), what every run's session did with what its policy
//! adds (`adds`, a type of the policy's file), its searches and engines
//! ([`SearchTally`]), with the summary's lines on them.

use crate::engine::ask::Asked;
use crate::engine::fleet::EngineReport;
use crate::engine::journal::TakenFrom;
use crate::engine::summary::{fleet_size, write_engines, write_set_aside, write_taken};
use crate::growth::paths::GrowthPaths;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a growth run did, for the summary: what every policy's session
/// did, and in `adds` what the policy adds (nothing for extend and play).
#[derive(Clone, Debug, Default)]
pub struct GrowthReport<A = ()> {
    /// IN, the book read.
    pub input: PathBuf,
    /// OUT, the book written.
    pub output: PathBuf,
    /// The journal the searches were taken from and written to.
    pub journal: PathBuf,
    /// Positions in the book read.
    pub positions_loaded: u64,
    /// Rounds that searched at least one leaf.
    pub rounds: u32,
    /// Candidates found, over all rounds (a position is counted in each
    /// round that finds it), and how many had a leaf to expand.
    pub candidates: u64,
    /// Candidates expanded: those whose leaf move became a link.
    pub expanded: u64,
    /// Positions added to the book (new to it).
    pub added: u64,
    /// The searches, the journal's answers and the engines.
    pub searches: SearchTally,
    /// Stopped because `max_positions` were added.
    pub stopped_early: bool,
    /// Records in the book written.
    pub records_written: u64,
    /// Time the whole run took.
    pub elapsed: Duration,
    /// What the run's policy adds: its own counts and settings.
    pub adds: A,
}

impl fmt::Display for GrowthReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_rounds(f)
    }
}

impl<A> GrowthReport<A> {
    /// extend's summary (its rounds, candidates, positions added, searches,
    /// book written), which play's, enhance's and deviate's end with.
    pub fn write_rounds(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions loaded     {}", self.positions_loaded)?;
        writeln!(f, "rounds               {}", self.rounds)?;
        writeln!(f, "candidates           {} ({} expanded)", self.candidates, self.expanded)?;
        write!(f, "positions added      {}", self.added)?;
        // An expanded leaf whose child the book already held adds no
        // position (issue 64: "2001 expanded", "2000 positions added").
        match self.expanded.saturating_sub(self.added) {
            0 => writeln!(f)?,
            held => writeln!(f, " (the other {held} expanded led to positions the book held already)")?,
        }
        self.searches.write(&self.journal, f)?;
        if self.stopped_early {
            writeln!(f, "stopped early        max_positions reached: candidates may be left")?;
        }
        self.write_ending(f)
    }

    /// The summary's last two lines, every growth command's: the book
    /// written (its records) and the time the run took.
    pub fn write_ending(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "book written         {} ({} records)", self.output.display(), self.records_written)?;
        write!(f, "elapsed              {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// What a growth command (extend, grow, deepen, add, new) did with its
/// engines and journal: the searches, the answers the journal gave and by
/// whom, the journal set aside, the engines' time and each engine.
#[derive(Clone, Debug, Default)]
pub struct SearchTally {
    /// Searches the engines did.
    pub searched: u64,
    /// Answers taken from the journal instead of searched.
    pub from_journal: u64,
    /// The answers taken from the journal, by the engine that gave them.
    pub taken_from: Vec<TakenFrom>,
    /// Where the journal of earlier runs was set aside (`--fresh`).
    pub journal_set_aside: Option<PathBuf>,
    /// Time the engines spent answering, summed over engines.
    pub engine_time: Duration,
    /// Each engine: its searches, faults, and whether it was retired.
    pub engines: Vec<EngineReport>,
}

impl SearchTally {
    /// Counts what a batch of searches cost.
    pub(crate) fn count(&mut self, asked: &Asked) {
        self.searched += asked.searched;
        self.from_journal += asked.from_journal;
        self.engine_time += asked.engine_time;
    }

    /// The summary's lines on the searches made and taken from `journal`
    /// (by whom), and the journal set aside.
    pub fn write_counts(&self, journal: &Path, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "searches             {} by the engines, {} taken from {}",
            self.searched,
            self.from_journal,
            journal.display()
        )?;
        write_taken(f, &self.taken_from)?;
        write_set_aside(f, self.journal_set_aside.as_deref())
    }

    /// [`SearchTally::write_counts`], then the engines' time and each engine.
    pub fn write(&self, journal: &Path, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_counts(journal, f)?;
        writeln!(f, "engine time          {:.3} s ({})", self.engine_time.as_secs_f64(), fleet_size(&self.engines))?;
        write_engines(f, &self.engines)
    }
}

impl<A: Default> GrowthReport<A> {
    /// The report of a run just begun: its paths and the positions read.
    pub(crate) fn new(paths: &GrowthPaths, positions_loaded: u64) -> GrowthReport<A> {
        GrowthReport {
            input: paths.input.clone(),
            output: paths.output.clone(),
            journal: paths.journal.clone(),
            positions_loaded,
            ..GrowthReport::default()
        }
    }
}

impl<A> GrowthReport<A> {
    /// The same report with `adds` as what the policy adds.
    pub(crate) fn with<B>(self, adds: B) -> GrowthReport<B> {
        let GrowthReport {
            input,
            output,
            journal,
            positions_loaded,
            rounds,
            candidates,
            expanded,
            added,
            searches,
            stopped_early,
            records_written,
            elapsed,
            adds: _,
        } = self;
        GrowthReport {
            input,
            output,
            journal,
            positions_loaded,
            rounds,
            candidates,
            expanded,
            added,
            searches,
            stopped_early,
            records_written,
            elapsed,
            adds,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::GrowthReport;

    /// Issue 64, point 11: "2001 expanded" beside "2000 positions added"
    /// says what the other one did.
    #[test]
    fn an_expansion_that_added_no_position_is_said_beside_the_positions_added() {
        let report = GrowthReport::<()> { candidates: 2500, expanded: 2001, added: 2000, ..GrowthReport::default() };
        let text = report.to_string();
        assert!(text.contains("candidates           2500 (2001 expanded)\n"), "{text}");
        let added = "positions added      2000 (the other 1 expanded led to positions the book held already)\n";
        assert!(text.contains(added), "{text}");
        let even = GrowthReport::<()> { expanded: 7, added: 7, ..GrowthReport::default() }.to_string();
        assert!(even.contains("positions added      7\n"), "{even}");
    }
}
