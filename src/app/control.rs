//! A long run under the one `run::Control`: Ctrl-C's flag, and its stages
//! and progress shown as spinners and bars.

use crate::app::error::AppError;
use crate::app::interrupt::cancel;
use crate::progress::Progress;
use bookminer::book::Format;
use bookminer::run;
use bookminer::run::{Control, Phase};
use bookminer::wording::count;
use std::cell::RefCell;

/// Runs a book-writing command (or diff) with a spinner per stage and the
/// walk's bar; `writing` names what its last stage writes.
pub fn with_control_of<T>(
    counts: bookminer::book::BookCounts,
    format: Format,
    writing: &str,
    shown: &RefCell<Progress>,
    run: impl FnOnce(Control<'_>) -> Result<T, AppError>,
) -> Result<T, AppError> {
    with_control(Some(Walks { counts, format, writing }), shown, run)
}

/// The book a command walks, for its stages' display: its counts and
/// format, and what its last stage writes.
pub struct Walks<'w> {
    pub counts: bookminer::book::BookCounts,
    pub format: Format,
    pub writing: &'w str,
}

/// About how many edges the walk of a book of `counts` follows: an
/// Egaroucid book stores no links, and about one per position is found
/// walking.
pub fn walk_edges(counts: &bookminer::book::BookCounts, format: Format) -> u64 {
    let links = if format.stores_links() { counts.links } else { counts.positions };
    links + counts.leaves
}

/// Runs a long command under the one [`Control`]: Ctrl-C's flag, and what
/// it shows of each stage on `shown`. A walk's stages get a spinner each
/// and the walk its bar, when `walks` names the book walked (without, as
/// in extend's and grow's final negamax, the last display stays as it
/// is); a counted stage's bar appears with its first count, an extend
/// round's last bar is taken away as the round starts (its log line
/// follows), and grow's figures replace its spinner as they come.
pub fn with_control<T>(
    walks: Option<Walks<'_>>,
    shown: &RefCell<Progress>,
    run: impl FnOnce(Control<'_>) -> Result<T, AppError>,
) -> Result<T, AppError> {
    // The counted stage whose bar waits for its first count.
    let waiting = std::cell::Cell::new(None);
    let walk_total = walks.as_ref().map(|Walks { counts, format, .. }| walk_edges(counts, *format));
    let heartbeat = crate::heartbeat::Heartbeat::start(walk_total);
    let show_phase = |phase: Phase| match (phase, &walks) {
        (Phase::Resolving, Some(Walks { counts, .. })) => shown
            .borrow_mut()
            .stage(format!("resolving the moves of {}", count(counts.positions, "position", "positions"))),
        (Phase::Walking, Some(Walks { counts, format, .. })) => {
            shown.borrow_mut().start_walk(walk_edges(counts, *format))
        }
        (Phase::Writing, Some(Walks { writing, .. })) => shown.borrow_mut().stage(format!("writing {writing}")),
        (Phase::Resolving | Phase::Walking | Phase::Writing, None) | (Phase::Growing, _) => {}
        (Phase::Adding { games }, _) => shown.borrow_mut().adding(games),
        (Phase::Round { .. }, _) => {
            shown.borrow_mut().clear();
            waiting.set(Some(phase));
        }
        (Phase::Counting { .. } | Phase::StaleLeaves { .. } | Phase::Deepening { .. }, _) => waiting.set(Some(phase)),
    };
    let mut phase = |phase: Phase| {
        heartbeat.phase(phase);
        show_phase(phase)
    };
    let walked = walks.is_some();
    let show_progress = |progress: run::Progress<'_>| match progress {
        run::Progress::Walked(stats) if walked => shown.borrow().walked(stats),
        run::Progress::Walked(_) => {}
        run::Progress::Counted(done) => {
            let mut shown = shown.borrow_mut();
            match waiting.take() {
                Some(Phase::Counting { what, total }) => shown.count(what, total),
                Some(Phase::Round { round, candidates, searches }) => {
                    shown.searching(round, candidates, searches as u64)
                }
                Some(Phase::StaleLeaves { searches }) => shown.searching_stale(searches as u64),
                Some(Phase::Deepening { records }) => shown.count("deepening leaves", records as u64),
                _ => {}
            }
            shown.counted(done);
        }
        run::Progress::Grown { added, searched, reached, spent } => {
            shown.borrow_mut().growing(added, searched, reached, spent)
        }
        run::Progress::Added { games, added, searched, searches } => {
            shown.borrow().added(games, added, (searched, searches))
        }
        run::Progress::Left { .. } | run::Progress::EnginesBusy(_) => {}
    };
    let mut progress = |progress: run::Progress<'_>| {
        heartbeat.progress(&progress);
        show_progress(progress)
    };
    let control = Control { cancel: cancel(), phase: &mut phase, progress: &mut progress };
    let result = run(control);
    shown.borrow_mut().clear();
    result
}
