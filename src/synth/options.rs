//! What a synthesis is asked for, and what the book it wrote holds.

use crate::wording::count;
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// The most positions a book may hold: the header counts them in an i32.
pub const MAX_POSITIONS: usize = i32::MAX as usize;

/// What to synthesize.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SynthOptions {
    /// Positions the book holds.
    pub positions: usize,
    /// The seed of the random choices: one seed, one book.
    pub seed: u64,
    /// Fraction of positions (0..=1) with one score changed after scoring.
    pub perturb: f64,
}

/// What a synthesized book holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SynthReport {
    /// Positions written.
    pub positions: u64,
    /// Links, over every position.
    pub links: u64,
    /// Positions with a leaf.
    pub leaves: u64,
    /// Passes among the links and leaves.
    pub passes: u64,
    /// Positions with a score changed after scoring.
    pub perturbed: u64,
}

impl SynthReport {
    /// The summary of the book written to `path` in `elapsed`.
    pub fn written<'a>(&'a self, path: &'a Path, elapsed: Duration) -> SummaryLine<'a> {
        SummaryLine { report: self, path, elapsed }
    }
}

/// A synthesized book's summary line ([`SynthReport::written`]).
pub struct SummaryLine<'a> {
    report: &'a SynthReport,
    path: &'a Path,
    elapsed: Duration,
}

impl fmt::Display for SummaryLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.report;
        write!(
            f,
            "{}: {}, {}, {}, {}, {} perturbed, in {:.1} s",
            self.path.display(),
            count(r.positions, "position", "positions"),
            count(r.links, "link", "links"),
            count(r.leaves, "leaf", "leaves"),
            count(r.passes, "pass", "passes"),
            r.perturbed,
            self.elapsed.as_secs_f64()
        )
    }
}
