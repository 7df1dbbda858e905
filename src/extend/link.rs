//! `fix --link` (docs/policies.md): Edax's `book fix` as a policy of the
//! growth session. Every record of an Edax book gets a link for each legal
//! move (or the pass) whose child the book holds; a record whose leaf move
//! became a link, and any other left with no leaf move while a move is not
//! linked, has its leaf searched again, its links excluded, at its own
//! level. OUT is IN's records so linked, negamaxed as `fix` does.
//!
//! Nothing is added, so nothing is negamaxed first: each record is linked
//! as read, its new links scored by what its child stores, and its value
//! raised to the best of them as Edax's `position_add_link` raises it (the
//! final negamax sets every value the initial position reaches).

use super::engines::process_engines;
use super::options::ExtendOptions;
use super::report::SearchTally;
use super::session::{self, Held, Policy};
use crate::book::Book;
use crate::engine::ask::{Answerers, Asked};
use crate::engine::fleet::{EngineSet, Fleet};
use crate::engine::EngineCommand;
use crate::growing::candidates::Marks;
use crate::growing::error::ExtendError;
use crate::growing::leaf_plan::LeafPlan;
use crate::growing::paths::ExtendPaths;
use crate::growing::store::{NodeId, Store};
use crate::negamax::SCORE_INF;
use crate::run::{Control, Phase};
use crate::wording::count;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Records linked between two looks at the stop and the progress.
const RECORDS_A_STEP: usize = 4096;

/// What `fix --link` is asked to do.
#[derive(Clone, Debug)]
pub struct LinkOptions {
    /// The fleet (none: the run stops, saying so, if a leaf is to be
    /// searched).
    pub engines: Vec<EngineCommand>,
    /// The longest wait for one answer.
    pub engine_timeout: Duration,
}

/// What a run did, for the summary.
#[derive(Clone, Debug, Default)]
pub struct LinkReport {
    /// IN, the book read.
    pub input: PathBuf,
    /// OUT, the book written.
    pub output: PathBuf,
    /// The journal the searches were taken from and written to.
    pub journal: PathBuf,
    /// Positions in the book read.
    pub positions_loaded: u64,
    /// Records that got at least one link.
    pub records_linked: u64,
    /// Links added.
    pub links_added: u64,
    /// Leaves searched again: their move became a link, or they had none.
    pub leaves: u64,
    /// The searches, the journal's answers and the engines.
    pub searches: SearchTally,
    /// Records reachable over links from the initial position once linked.
    pub reachable: u64,
    /// Records in the book written.
    pub records_written: u64,
    /// Time the whole run took.
    pub elapsed: Duration,
}

impl fmt::Display for LinkReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions loaded     {}", self.positions_loaded)?;
        writeln!(
            f,
            "links added          {} (to {})",
            self.links_added,
            count(self.records_linked, "record", "records")
        )?;
        writeln!(f, "leaves searched      {} (their moves became links)", self.leaves)?;
        self.searches.write(&self.journal, f)?;
        writeln!(f, "positions negamaxed  {} (reachable over links from the initial position)", self.reachable)?;
        writeln!(f, "book written         {} ({} records)", self.output.display(), self.records_written)?;
        write!(f, "elapsed              {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// The session `fix --link` runs in: from the initial position, no
/// window, its engines.
fn session_options(options: &LinkOptions) -> ExtendOptions {
    ExtendOptions::whole_book(&options.engines, options.engine_timeout)
}

/// Links `book` (an Edax book, read from `paths.input`) into
/// `paths.output`, the leaves to search again searched by the engine
/// processes `options` names.
pub fn link(
    book: Book,
    paths: &ExtendPaths,
    options: &LinkOptions,
    control: Control<'_>,
) -> Result<LinkReport, ExtendError> {
    let session = session_options(options);
    link_with(book, paths, options, |scratch| process_engines(&session, scratch), control)
}

/// Links `book` as [`link`] does, the searches answered by the fleet
/// `engines` makes (given the run's own folder).
pub fn link_with(
    book: Book,
    paths: &ExtendPaths,
    options: &LinkOptions,
    engines: impl FnOnce(&Path) -> Vec<EngineSet>,
    control: Control<'_>,
) -> Result<LinkReport, ExtendError> {
    let report = LinkReport {
        input: paths.input.clone(),
        output: paths.output.clone(),
        journal: paths.journal.clone(),
        ..LinkReport::default()
    };
    let mut linker = Linker { report };
    let ran = session::grow_book(book, paths, &session_options(options), engines, &mut linker, control)?;
    let mut report = linker.report;
    report.positions_loaded = ran.positions_loaded;
    ran.fleet.fill(&mut report.searches);
    report.records_written = ran.records_written;
    report.reachable = ran.reachable.unwrap_or_default();
    report.elapsed = ran.elapsed;
    Ok(report)
}

/// `fix --link` as a policy of the growth session: every record linked in
/// file order, then the leaves searched.
struct Linker {
    report: LinkReport,
}

impl Policy for Linker {
    fn negamaxes_first(&self) -> bool {
        false
    }

    fn candidates(&self) -> Option<Marks> {
        None
    }

    fn grow(&mut self, held: Held<'_, '_>, fleet: &Fleet<'_>, control: &mut Control<'_>) -> Result<(), ExtendError> {
        let Held { store, journal, engines, cancel, .. } = held;
        let to_search = self.link_every_record(store, control, &ExtendError::interrupted(journal.path()), cancel)?;
        let plans = to_search.iter().map(|&id| store.leaf_plan(id)).collect::<Result<Vec<_>, _>>()?;
        self.report.leaves = plans.len() as u64;
        let searches = plans.iter().filter(|p| p.query().is_some()).count();
        if searches > 0 && engines.is_empty() {
            let book = store.book().path().to_path_buf();
            return Err(ExtendError::NeedsEngine { book, leaves: searches as u64 });
        }
        tracing::info!(
            "{} added to {}; {} to search again",
            count(self.report.links_added, "link", "links"),
            count(self.report.records_linked, "record", "records"),
            count(searches, "leaf", "leaves")
        );
        control.phase(Phase::Counting { what: "leaves searched again", total: plans.len() as u64 });
        let mut asked = Asked::default();
        let known = plans.len() - searches;
        let mut answerers = Answerers { journal, fleet, engines, cancel };
        let answers = answerers.answer(&LeafPlan::queries(&plans), &mut asked, &mut |done, busy| {
            control.counted((known + done) as u64);
            control.engines_busy(busy);
        })?;
        self.report.searches.count(&asked);
        for ((&id, plan), answer) in to_search.iter().zip(&plans).zip(answers) {
            let (score, mv) = plan.leaf(answer);
            store.touch(id)?;
            store.set_leaf(id, score, mv);
            let node = store.node_mut(id).expect("touched");
            // Edax's `position_search` raises the value to the leaf's score.
            node.solved.value = node.solved.value.max(score.into());
        }
        Ok(())
    }
}

impl Linker {
    /// Links every record of the book read, in file order; returns those
    /// whose leaf is to be searched again.
    fn link_every_record(
        &mut self,
        store: &mut Store<'_>,
        control: &mut Control<'_>,
        interrupted: &dyn Fn(crate::run::Interrupted) -> ExtendError,
        cancel: crate::run::Cancel<'_>,
    ) -> Result<Vec<NodeId>, ExtendError> {
        let book = store.book();
        let records = book.counts().records;
        control.phase(Phase::Counting { what: "records linked", total: records });
        let mut to_search = Vec::new();
        for (i, at) in book.file().every_record().enumerate() {
            if i % RECORDS_A_STEP == 0 {
                cancel.check().map_err(interrupted)?;
                control.counted(i as u64);
            }
            let id = NodeId::Book(at);
            let added = store.link_held(id)?;
            if added > 0 {
                self.report.records_linked += 1;
                self.report.links_added += added;
            }
            if store.leaf(id)?.mv.is_none() && searched_again(store, id)? {
                to_search.push(id);
            }
        }
        control.counted(records);
        Ok(to_search)
    }
}

/// Whether a position without a leaf move has its leaf searched, as
/// Edax's `position_search` decides: a legal move is not linked, or it has
/// no move, no link and no value yet.
fn searched_again(store: &Store<'_>, id: NodeId) -> Result<bool, ExtendError> {
    let facts = store.facts(id)?;
    let moves = facts.board.legal_moves().count_ones() as usize;
    let linked = facts.edges.len();
    Ok(linked < moves || (linked == 0 && moves == 0 && store.value(id)? == -SCORE_INF))
}
