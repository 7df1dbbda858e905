//! `new` (docs/games.md): the book Edax's `book new L D` starts, the
//! initial position alone, its leaf searched by the engine at level L.

use crate::board::Board;
use crate::convert::{header_date, OutFormat};
use crate::engine::ask::{Answerers, Asked};
use crate::engine::fleet::EngineSet;
use crate::engine::EngineCommand;
use crate::format::{edax, egaroucid};
use crate::growth::engines::process_engines;
use crate::growth::growing::error::ExtendError;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::growth::growing::paths::ExtendPaths;
use crate::growth::options::ExtendOptions;
use crate::growth::report::SearchTally;
use crate::growth::session::{run_fleet, Opened};
use crate::level::Level;
use crate::negamax::{self, SCORE_INF};
use crate::record::Leaf;
use crate::run::{Control, Phase, RunError};
use crate::symmetry::normalize;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Edax's depth of a new book when none is given (its `book new`'s).
pub const DEFAULT_DEPTH: u32 = 36;

/// What `new` is asked to make.
#[derive(Clone, Debug)]
pub struct NewOptions {
    /// The fleet: one engine or more, each with its workers.
    pub engines: Vec<EngineCommand>,
    /// The longest wait for one answer.
    pub engine_timeout: Duration,
    /// Edax's search level of the book.
    pub level: Level,
    /// The plies `add` plays of a game, 1 to 60: the header's n_empties is 61 − depth.
    pub depth: u32,
    /// The format of the book made.
    pub to: OutFormat,
}

/// What a run made, for the summary.
#[derive(Clone, Debug, Default)]
pub struct NewReport {
    /// OUT, the book made.
    pub output: PathBuf,
    /// The journal the search was taken from or written to.
    pub journal: PathBuf,
    /// The book's search level.
    pub level: Level,
    /// The header's n_empties (an Edax book).
    pub n_empties: Option<i32>,
    /// The initial position's leaf.
    pub leaf: Option<Leaf>,
    /// The search, the journal's answer and the engines.
    pub searches: SearchTally,
    /// Time the whole run took.
    pub elapsed: Duration,
}

impl fmt::Display for NewReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mv = self.leaf.and_then(|leaf| leaf.mv).map_or("none".to_string(), |m| m.to_string());
        let score = negamax::leaf_score(self.leaf);
        writeln!(f, "initial position     leaf {mv}, score {score}, level {}", self.level)?;
        if let Some(n_empties) = self.n_empties {
            writeln!(f, "n_empties            {n_empties} (add takes positions down to {})", n_empties - 1)?;
        }
        self.searches.write(&self.journal, f)?;
        writeln!(f, "book written         {} (1 record)", self.output.display())?;
        write!(f, "elapsed              {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// Writes the new book `options` asks into `paths.output`, searched by the
/// engine processes it names.
pub fn new_book(paths: &ExtendPaths, options: &NewOptions, control: Control<'_>) -> Result<NewReport, ExtendError> {
    let extend = ExtendOptions::whole_book(&options.engines, options.engine_timeout);
    new_book_with(paths, options, |scratch| process_engines(&extend, scratch), control)
}

/// Writes the new book as [`new_book`] does, the search answered by the
/// fleet `engines` makes (given the run's own folder).
pub fn new_book_with(
    paths: &ExtendPaths,
    options: &NewOptions,
    engines: impl FnOnce(&Path) -> Vec<EngineSet>,
    mut control: Control<'_>,
) -> Result<NewReport, ExtendError> {
    let cancel = control.cancel;
    let Opened { mut out, mut journal, scratch } = Opened::open(paths)?;
    let engines = &engines(scratch.path());
    let board = normalize(&Board::INITIAL).board;
    let plan = LeafPlan::of(&board, [], options.level);
    control.phase(Phase::Growing);
    let mut asked = Asked::default();
    let (answered, ran) = run_fleet(engines, &mut journal, paths, cancel, |journal, fleet| {
        let mut answerers = Answerers { journal, fleet, engines, cancel };
        Ok(answerers.answer(&[plan.query().copied()], &mut asked, &mut |_, _| {})?)
    });
    let mut report = NewReport {
        output: paths.output.clone(),
        journal: paths.journal.clone(),
        level: options.level,
        ..NewReport::default()
    };
    report.searches.count(&asked);
    ran.fill(&mut report.searches);
    let answer = answered?.into_iter().next().flatten();
    report.leaf = plan.leaf(answer);
    let bytes = match options.to {
        OutFormat::Edax => {
            let n_empties = 61 - options.depth.clamp(1, 60) as i32;
            report.n_empties = Some(n_empties);
            edax_book(board, options.level, n_empties, report.leaf)
        }
        OutFormat::Egbk3 => egaroucid_book(board, options.level, report.leaf),
    };
    let path = &paths.output;
    out.write_all(&bytes).map_err(RunError::io(path))?;
    let out = out.finish().map_err(RunError::io(path))?;
    cancel.check().map_err(ExtendError::interrupted(&paths.journal))?;
    out.commit().map_err(RunError::io(path))?;
    report.elapsed = paths.began.elapsed();
    Ok(report)
}

/// The value Edax gives a position with a leaf and no link.
fn value_of(leaf: Option<Leaf>) -> i16 {
    negamax::leaf_score(leaf).max(-SCORE_INF)
}

/// An Edax book of the one record, as `book_new` leaves it: no counts,
/// the value the leaf's score, the bounds unknown (−127, +127).
fn edax_book(board: Board, level: Level, n_empties: i32, leaf: Option<Leaf>) -> Vec<u8> {
    let mut bytes = edax::book_new_header(header_date(), level, n_empties).to_vec();
    let record = edax::EdaxRecord {
        board,
        counts: [0; 4],
        value: value_of(leaf),
        lower: -SCORE_INF,
        upper: SCORE_INF,
        level: level.to_u8(),
        links: Default::default(),
        leaf,
    };
    record.encode(&mut bytes);
    bytes
}

/// An Egaroucid book of the one record: its value, level and leaf.
fn egaroucid_book(board: Board, level: Level, leaf: Option<Leaf>) -> Vec<u8> {
    let mut bytes = egaroucid::header(1).to_vec();
    let value = value_of(leaf).clamp(-64, 64) as i8;
    egaroucid::encode_record(&mut bytes, &board, value, level.to_i8(), 0, leaf.and_then(Leaf::link));
    bytes
}
