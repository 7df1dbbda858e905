//! `new` (docs/games.md): the book Edax's `book new L D` starts, the
//! initial position alone, its leaf searched by the engine at level L.

use crate::board::Board;
use crate::convert::{header_date, OutFormat};
use crate::engine::ask::{Answerers, Asked};
use crate::engine::EngineCommand;
use crate::format::{edax, egaroucid};
use crate::growth::error::GrowthError;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::policy::Engines;
use crate::growth::report::GrowthReport;
use crate::growth::session::{run_fleet, Opened};
use crate::level::Level;
use crate::negamax::{self, SCORE_INF};
use crate::record::Leaf;
use crate::run::{Control, Phase, RunError};
use crate::score::Score;
use crate::symmetry::normalize;
use std::fmt;
use std::io::Write;
use std::path::Path;
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

/// What `new` adds to its [`GrowthReport`] (`adds`), for the summary.
#[derive(Clone, Debug, Default)]
pub struct NewLeaf {
    /// The book's search level.
    pub level: Level,
    /// The header's n_empties (an Edax book).
    pub n_empties: Option<i32>,
    /// The initial position's leaf.
    pub leaf: Option<Leaf>,
}

impl fmt::Display for GrowthReport<NewLeaf> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mv = self.adds.leaf.and_then(|leaf| leaf.mv).map_or("none".to_string(), |m| m.to_string());
        let score = negamax::leaf_score(self.adds.leaf);
        writeln!(f, "initial position     leaf {mv}, score {score}, level {}", self.adds.level)?;
        if let Some(n_empties) = self.adds.n_empties {
            writeln!(f, "n_empties            {n_empties} (add takes positions down to {})", n_empties - 1)?;
        }
        self.searches.write(&self.journal, f)?;
        writeln!(f, "book written         {} (1 record)", self.output.display())?;
        write!(f, "elapsed              {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// `new`: a book of the initial position alone, its leaf searched.
pub struct NewBook<'a> {
    /// What `new` is asked.
    pub options: &'a NewOptions,
}

impl crate::growth::policy::Policy for NewBook<'_> {
    type Report = GrowthReport<NewLeaf>;

    fn run(
        self,
        paths: &GrowthPaths,
        engines: Engines<'_>,
        mut control: Control<'_>,
    ) -> Result<GrowthReport<NewLeaf>, GrowthError> {
        let NewBook { options } = self;
        let session = GrowthOptions::whole_book(&options.engines, options.engine_timeout);
        let engines = |scratch: &Path| engines.start(&session, scratch);
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
        let leaf = NewLeaf { level: options.level, ..NewLeaf::default() };
        let mut report = GrowthReport { adds: leaf, ..GrowthReport::new(paths, 0) };
        report.searches.count(&asked);
        ran.fill(&mut report.searches);
        let answer = answered?.into_iter().next().flatten();
        report.adds.leaf = plan.leaf(answer);
        let bytes = match options.to {
            OutFormat::Edax => {
                let n_empties = 61 - options.depth.clamp(1, 60) as i32;
                report.adds.n_empties = Some(n_empties);
                edax_book(board, options.level, n_empties, report.adds.leaf)
            }
            OutFormat::Egbk3 => egaroucid_book(board, options.level, report.adds.leaf),
        };
        let path = &paths.output;
        out.write_all(&bytes).map_err(RunError::io(path))?;
        let out = out.finish().map_err(RunError::io(path))?;
        cancel.check().map_err(GrowthError::interrupted(&paths.journal))?;
        out.commit().map_err(RunError::io(path))?;
        report.elapsed = paths.began.elapsed();
        Ok(report)
    }
}

/// The value Edax gives a position with a leaf and no link.
fn value_of(leaf: Option<Leaf>) -> Score {
    negamax::leaf_score(leaf).max(-SCORE_INF)
}

/// An Edax book of the one record, as `book_new` leaves it: no counts,
/// the value the leaf's score, the bounds unknown (−127, +127).
fn edax_book(board: Board, level: Level, n_empties: i32, leaf: Option<Leaf>) -> Vec<u8> {
    let mut bytes = edax::book_new_header(header_date(), level, n_empties).to_vec();
    let record = edax::EdaxRecord {
        board,
        counts: [0; 4],
        value: value_of(leaf).stored_short(),
        lower: (-SCORE_INF).stored_short(),
        upper: SCORE_INF.stored_short(),
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
    // An Egaroucid record's value byte holds a disc count, within ±64.
    let value = value_of(leaf).clamp(Score::new(-64), Score::new(64)).stored_byte();
    egaroucid::encode_record(&mut bytes, &board, value, level.to_i8(), 0, leaf.and_then(Leaf::link));
    bytes
}
