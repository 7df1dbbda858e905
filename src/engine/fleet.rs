//! The engines at work: every engine (a command line: one machine, a
//! cluster's launcher) with its own number of workers, one thread per
//! worker, all taking searches from one queue the moment they are free.
//!
//! Supervision lives here, not in the growth logic: a worker whose search
//! fails starts another searcher and the search goes back to the front of
//! the queue, for any engine to take; an engine whose searches fail
//! [`RETIRE_AFTER`] times in a row is retired and the others go on; the
//! fleet gives up only when no engine is left, or when one position has
//! failed on [`GIVE_UP_AFTER`] different engines.

use super::search::{Answer, Fault, Launcher, Query, Searcher};
use crate::run::Cancel;
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Faults in a row after which an engine is retired.
pub const RETIRE_AFTER: u32 = 3;

/// Different engines a position may fail on before the run gives up on it.
pub const GIVE_UP_AFTER: usize = 3;

/// How often an idle worker, or the caller waiting for answers, looks at
/// the flags that stop it.
const IDLE_POLL: Duration = Duration::from_millis(50);

/// One engine of the fleet: a name for messages and the journal (its
/// command line), its workers, and where its searchers come from.
pub struct EngineSet {
    /// Its command line.
    pub label: String,
    /// The protocol it speaks, written in the journal beside its answers.
    pub protocol: super::protocol::Protocol,
    /// How many of its searchers run at once.
    pub workers: usize,
    /// Where its searchers come from.
    pub launcher: Box<dyn Launcher>,
}

impl EngineSet {
    /// Who it is in the journal: its command line and its protocol.
    pub fn identity(&self) -> (&str, super::protocol::Protocol) {
        (&self.label, self.protocol)
    }
}

/// Each engine's identity in the journal, for [`super::journal::Journal::serve`].
pub fn identities(engines: &[EngineSet]) -> Vec<(String, super::protocol::Protocol)> {
    engines.iter().map(|e| (e.label.clone(), e.protocol)).collect()
}

/// What one engine did, for the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineReport {
    /// Its command line.
    pub label: String,
    /// The protocol it speaks.
    pub protocol: super::protocol::Protocol,
    /// How many of its searchers ran at once.
    pub workers: usize,
    /// Searches answered.
    pub searches: u64,
    /// Searches that failed (a crash, a hang, an answer that does not read).
    pub faults: u64,
    /// Retired after failing [`RETIRE_AFTER`] times in a row.
    pub retired: bool,
    /// Time its workers spent searching, answered or not.
    pub busy: Duration,
}

/// An answer, and who gave it.
#[derive(Clone, Debug)]
pub struct Answered {
    /// The caller's number for the search.
    pub id: usize,
    /// The search.
    pub query: Query,
    /// The engine's answer.
    pub answer: Answer,
    /// The engine's index in the fleet.
    pub engine: usize,
    /// How long the search took.
    pub took: Duration,
}

/// Why the fleet gave up.
#[derive(Debug)]
pub enum GaveUp {
    /// Every engine was retired; the last fault was on `query`.
    NoEngineLeft {
        /// The search of the last fault.
        query: Query,
        /// The last engine retired.
        engine: String,
        /// The last fault.
        fault: Fault,
    },
    /// `query` failed on [`GIVE_UP_AFTER`] different engines; the last fault.
    Position {
        /// The search that failed.
        query: Query,
        /// The engines it failed on.
        engines: Vec<String>,
        /// The last fault.
        fault: Fault,
    },
}

/// A search waiting for a worker.
struct Task {
    id: usize,
    query: Query,
    /// Engines it failed on.
    failed_on: SmallVec<[usize; GIVE_UP_AFTER]>,
}

/// What the workers share.
struct Shared {
    queue: Mutex<VecDeque<Task>>,
    ready: Condvar,
    engines: Mutex<Vec<Health>>,
    /// Set when the fleet stops: given up, or dropped.
    halt: AtomicBool,
}

/// An engine's record as the workers keep it.
struct Health {
    report: EngineReport,
    in_a_row: u32,
    /// The searches under way: each worker's, and when it began.
    under_way: Vec<(usize, Instant)>,
}

impl Health {
    /// A worker's search is over, its time counted in the report.
    fn over(&mut self, worker: usize, took: Duration) {
        self.under_way.retain(|&(w, _)| w != worker);
        self.report.busy += took;
    }
}

/// The engines, seen from the thread that hands out the work.
pub struct Fleet<'s> {
    shared: &'s Shared,
    done: Receiver<Result<Answered, GaveUp>>,
    cancel: Cancel<'s>,
    /// When its workers were started.
    started: std::time::Instant,
}

/// Room for what the fleet's threads share; it must outlive the scope
/// they run in.
pub struct Room(Shared);

impl Room {
    /// Room for a fleet of `engines`, each with its report zeroed.
    pub fn new(engines: &[EngineSet]) -> Room {
        let health = engines
            .iter()
            .map(|e| Health {
                report: EngineReport {
                    label: e.label.clone(),
                    protocol: e.protocol,
                    workers: e.workers,
                    searches: 0,
                    faults: 0,
                    retired: false,
                    busy: Duration::ZERO,
                },
                in_a_row: 0,
                under_way: Vec::new(),
            })
            .collect();
        Room(Shared {
            queue: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
            engines: Mutex::new(health),
            halt: AtomicBool::new(false),
        })
    }

    /// What each engine did, in the fleet's order.
    pub fn reports(&self) -> Vec<EngineReport> {
        lock(&self.0.engines).iter().map(|h| h.report.clone()).collect()
    }
}

impl<'s> Fleet<'s> {
    /// Starts every engine's workers in `scope`. A worker starts its
    /// searcher when its first search comes. They stop when the fleet is
    /// dropped, at once when `cancel` is set.
    pub fn start<'e>(
        scope: &'s std::thread::Scope<'s, 'e>,
        room: &'s Room,
        engines: &'s [EngineSet],
        cancel: Cancel<'s>,
    ) -> std::io::Result<Fleet<'s>> {
        let (report, done) = mpsc::channel();
        let shared = &room.0;
        for (index, engine) in engines.iter().enumerate() {
            for worker in 1..=engine.workers {
                let stop = cancel.or(&shared.halt);
                let w = Worker { engine: index, worker, set: engine, shared, report: report.clone(), stop };
                let name = format!("engine {}.{worker}", index + 1);
                std::thread::Builder::new().name(name).spawn_scoped(scope, move || w.run())?;
            }
        }
        Ok(Fleet { shared, done, cancel, started: std::time::Instant::now() })
    }

    /// Queues a search; `id` comes back with its answer.
    pub fn submit(&self, id: usize, query: Query) {
        lock(&self.shared.queue).push_back(Task { id, query, failed_on: SmallVec::new() });
        self.shared.ready.notify_one();
    }

    /// The share of its workers' time spent on searches since the fleet
    /// started (0 to 1): the searches over, and those under way as far as
    /// they have come (issue 64: 0% while one ran 20 s).
    pub fn utilisation(&self) -> f64 {
        let engines = lock(&self.shared.engines);
        let now = Instant::now();
        let running = |h: &Health| h.under_way.iter().map(|&(_, since)| now - since).sum::<Duration>();
        let busy: Duration = engines.iter().map(|h| h.report.busy + running(h)).sum();
        let workers: usize = engines.iter().map(|h| h.report.workers).sum();
        let whole = workers.max(1) as f64 * self.started.elapsed().as_secs_f64();
        if whole > 0.0 {
            (busy.as_secs_f64() / whole).min(1.0)
        } else {
            0.0
        }
    }

    /// Workers of engines not retired: how many searches can be under way.
    pub fn workers(&self) -> usize {
        lock(&self.shared.engines).iter().filter(|h| !h.report.retired).map(|h| h.report.workers).sum()
    }

    /// The next answer, or why the fleet gave up; `None` once stopped
    /// (`cancel`) or when no worker is left to answer.
    pub fn next_done(&self) -> Option<Result<Answered, GaveUp>> {
        loop {
            match self.done.recv_timeout(IDLE_POLL) {
                Ok(done) => return Some(done),
                Err(RecvTimeoutError::Timeout) if !self.cancel.is_set() => continue,
                Err(_) => return None,
            }
        }
    }
}

impl Drop for Fleet<'_> {
    fn drop(&mut self) {
        self.shared.halt.store(true, Ordering::Relaxed);
        self.shared.ready.notify_all();
    }
}

/// A lock that a panicking thread cannot make unusable: what the fleet
/// keeps stays consistent between its statements.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct Worker<'s> {
    engine: usize,
    worker: usize,
    set: &'s EngineSet,
    shared: &'s Shared,
    report: Sender<Result<Answered, GaveUp>>,
    /// The run's stop, or the fleet's halt.
    stop: Cancel<'s>,
}

impl Worker<'_> {
    fn stopping(&self) -> bool {
        self.stop.is_set()
    }

    fn retired(&self) -> bool {
        lock(&self.shared.engines)[self.engine].report.retired
    }

    fn run(self) {
        let mut searcher = None;
        while let Some(task) = self.next_task() {
            let began = Instant::now();
            lock(&self.shared.engines)[self.engine].under_way.push((self.worker, began));
            let outcome = self.search(&mut searcher, &task.query);
            let took = began.elapsed();
            let went_on = match outcome {
                Ok(answer) => self.answered(task, answer, took),
                Err(Fault::Stopped) => {
                    lock(&self.shared.engines)[self.engine].over(self.worker, Duration::ZERO);
                    false
                }
                Err(fault) => {
                    searcher = None;
                    self.failed(task, fault, took)
                }
            };
            if !went_on {
                break;
            }
        }
        if let Some(searcher) = searcher {
            searcher.quit();
        }
    }

    /// The next search, or `None` when the run is over, stopping, or this
    /// worker's engine was retired.
    fn next_task(&self) -> Option<Task> {
        let mut queue = lock(&self.shared.queue);
        loop {
            if self.stopping() || self.retired() {
                return None;
            }
            if let Some(task) = queue.pop_front() {
                return Some(task);
            }
            queue = self.shared.ready.wait_timeout(queue, IDLE_POLL).unwrap_or_else(|p| p.into_inner()).0;
        }
    }

    /// Asks `query` of the worker's searcher, starting one if it has none.
    fn search(&self, searcher: &mut Option<Box<dyn Searcher>>, query: &Query) -> Result<Answer, Fault> {
        let running = match searcher {
            Some(running) => running,
            None => searcher.insert(self.set.launcher.launch(self.worker, self.stop)?),
        };
        running.search(query, self.stop)
    }

    /// Notes an answer and hands it on; false when nobody listens any more.
    fn answered(&self, task: Task, answer: Answer, took: Duration) -> bool {
        {
            let mut engines = lock(&self.shared.engines);
            let health = &mut engines[self.engine];
            health.in_a_row = 0;
            health.report.searches += 1;
            health.over(self.worker, took);
        }
        let answered = Answered { id: task.id, query: task.query, answer, engine: self.engine, took };
        self.report.send(Ok(answered)).is_ok()
    }

    /// Notes a fault: the search goes back to the queue, the engine may be
    /// retired, the fleet may give up. False when this worker stops.
    fn failed(&self, mut task: Task, fault: Fault, took: Duration) -> bool {
        let label = &self.set.label;
        let mut engines = lock(&self.shared.engines);
        let health = &mut engines[self.engine];
        health.report.faults += 1;
        health.over(self.worker, took);
        health.in_a_row += 1;
        if !task.failed_on.contains(&self.engine) {
            task.failed_on.push(self.engine);
        }
        let retire = health.in_a_row >= RETIRE_AFTER && !health.report.retired;
        if retire {
            health.report.retired = true;
            tracing::warn!(
                "engine {} ({label}): {fault}; failed {RETIRE_AFTER} times in a row, retired",
                self.engine + 1
            );
        } else {
            tracing::warn!("engine {}.{} ({label}): {fault}; starting it again", self.engine + 1, self.worker);
        }
        let gave_up = if task.failed_on.len() >= GIVE_UP_AFTER {
            let engines = task.failed_on.iter().map(|&e| engines[e].report.label.clone()).collect();
            Some(GaveUp::Position { query: task.query, engines, fault })
        } else if engines.iter().all(|h| h.report.retired) {
            Some(GaveUp::NoEngineLeft { query: task.query, engine: label.clone(), fault })
        } else {
            None
        };
        drop(engines);
        match gave_up {
            Some(gave_up) => {
                self.shared.halt.store(true, Ordering::Relaxed);
                self.shared.ready.notify_all();
                let _ = self.report.send(Err(gave_up));
                false
            }
            None => {
                lock(&self.shared.queue).push_front(task);
                self.shared.ready.notify_all();
                !retire
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Square};
    use crate::level::Level;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    /// When a scripted searcher fails: on this search, its `n`th.
    type FailsWhen = Arc<dyn Fn(&Query, usize) -> bool + Send + Sync>;

    /// Answers every search with its first allowed move, scored 0, or
    /// fails as `fails` says (by engine, on the nth search it is asked).
    struct Scripted {
        fails: FailsWhen,
        asked: Arc<AtomicUsize>,
    }

    impl Searcher for Scripted {
        fn search(&mut self, query: &Query, _: Cancel<'_>) -> Result<Answer, Fault> {
            let n = self.asked.fetch_add(1, Ordering::Relaxed);
            if (self.fails)(query, n) {
                return Err(Fault::Garbage { text: "scripted".into() });
            }
            let allowed = query.board.legal_moves() & !query.excluded.bits();
            Ok(Answer { mv: Square::iter(allowed).next().expect("a move"), score: 0 })
        }
    }

    struct Script {
        fails: FailsWhen,
        asked: Arc<AtomicUsize>,
    }

    impl Launcher for Script {
        fn launch(&self, _: usize, _: Cancel<'_>) -> Result<Box<dyn Searcher>, Fault> {
            Ok(Box::new(Scripted { fails: Arc::clone(&self.fails), asked: Arc::clone(&self.asked) }))
        }
    }

    /// An engine of scripted searchers, and how many searches they were asked.
    struct Made {
        set: EngineSet,
        launcher_asked: Arc<AtomicUsize>,
    }

    fn engine(label: &str, workers: usize, fails: impl Fn(&Query, usize) -> bool + Send + Sync + 'static) -> Made {
        let asked = Arc::new(AtomicUsize::new(0));
        let launcher = Script { fails: Arc::new(fails), asked: Arc::clone(&asked) };
        let protocol = crate::engine::Protocol::EdaxConsole;
        Made {
            set: EngineSet { label: label.into(), protocol, workers, launcher: Box::new(launcher) },
            launcher_asked: asked,
        }
    }

    /// `n` different positions, three plies from the start (there are 56).
    fn queries(n: usize) -> Vec<Query> {
        let mut boards = vec![Board::INITIAL];
        for _ in 0..3 {
            let after =
                |b: Board| Square::iter(b.legal_moves()).filter_map(move |s| b.after(crate::board::Move::Play(s)));
            boards = boards.into_iter().flat_map(after).collect();
        }
        boards
            .into_iter()
            .take(n)
            .map(|board| Query { board, excluded: crate::board::Squares::NONE, level: Level::new(1).unwrap() })
            .collect()
    }

    /// Runs every query through the fleet: the answers by id, or why it gave up.
    fn run(engines: &[EngineSet], queries: &[Query]) -> (Result<Vec<Answered>, GaveUp>, Vec<EngineReport>) {
        let room = Room::new(engines);
        let cancel = AtomicBool::new(false);
        let outcome = std::thread::scope(|scope| {
            let fleet = Fleet::start(scope, &room, engines, Cancel::new(&cancel)).unwrap();
            for (id, q) in queries.iter().enumerate() {
                fleet.submit(id, *q);
            }
            let mut answers = Vec::new();
            while answers.len() < queries.len() {
                match fleet.next_done().expect("the fleet answers or gives up") {
                    Ok(a) => answers.push(a),
                    Err(gave_up) => return Err(gave_up),
                }
            }
            answers.sort_by_key(|a| a.id);
            Ok(answers)
        });
        (outcome, room.reports())
    }

    #[test]
    fn a_search_under_way_counts_in_the_engines_busy_share() {
        // Issue 64, point 7: the share counted only searches over (0%
        // while one ran 20 s). The search runs until it is released.
        let release = Arc::new(AtomicBool::new(false));
        let held = Arc::clone(&release);
        let engines = [engine("slow", 1, move |_, _| {
            while !held.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(1));
            }
            false
        })
        .set];
        let room = Room::new(&engines);
        let cancel = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let fleet = Fleet::start(scope, &room, &engines, Cancel::new(&cancel)).unwrap();
            fleet.submit(0, queries(1)[0]);
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            while fleet.utilisation() == 0.0 && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            let share = fleet.utilisation();
            release.store(true, Ordering::Relaxed);
            assert!(share > 0.0, "a search under way is no busy time");
            assert!(fleet.next_done().expect("answered").is_ok());
        });
    }

    #[test]
    fn every_search_is_answered_once_by_the_engines_there_are() {
        let engines = [engine("a", 2, |_, _| false).set, engine("b", 1, |_, _| false).set];
        let (answers, reports) = run(&engines, &queries(20));
        let answers = answers.unwrap();
        assert_eq!(answers.iter().map(|a| a.id).collect::<Vec<_>>(), (0..20).collect::<Vec<_>>());
        assert_eq!(reports.iter().map(|r| r.searches).sum::<u64>(), 20);
        assert!(reports.iter().all(|r| r.faults == 0 && !r.retired));
    }

    #[test]
    fn an_engine_that_keeps_failing_is_retired_and_the_others_go_on() {
        let dying = engine("dying", 1, |_, _| true);
        let dying_asked = Arc::clone(&dying.launcher_asked);
        // The good engine answers only once the dying one has failed three
        // times (waiting a minute at most), so that it cannot answer
        // everything first.
        let good = engine("good", 1, move |_, _| {
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            while dying_asked.load(Ordering::Relaxed) < RETIRE_AFTER as usize && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            false
        });
        let engines = [dying.set, good.set];
        let (answers, reports) = run(&engines, &queries(10));
        assert_eq!(answers.unwrap().len(), 10);
        assert!(reports[0].retired && reports[0].searches == 0 && reports[0].faults == u64::from(RETIRE_AFTER));
        assert!(!reports[1].retired && reports[1].searches == 10);
    }

    #[test]
    fn a_fault_now_and_then_retires_nothing() {
        // Every third search fails: never three in a row.
        let engines = [engine("flaky", 1, |_, n| n % 3 == 2).set];
        let (answers, reports) = run(&engines, &queries(12));
        assert_eq!(answers.unwrap().len(), 12);
        assert!(!reports[0].retired && reports[0].faults > 0);
    }

    #[test]
    fn with_no_engine_left_the_fleet_gives_up_naming_the_position() {
        let engines = [engine("dying", 2, |_, _| true).set];
        let (answers, reports) = run(&engines, &queries(4));
        assert!(matches!(answers, Err(GaveUp::NoEngineLeft { .. })), "{answers:?}");
        assert!(reports[0].retired);
    }

    #[test]
    fn a_position_that_fails_on_three_engines_is_given_up() {
        let bad = queries(3)[2];
        let fails = move |q: &Query, _: usize| *q == bad;
        let engines = ["a", "b", "c", "d"].map(|label| engine(label, 1, fails).set);
        let (answers, _) = run(&engines, &queries(3));
        match answers {
            Err(GaveUp::Position { query, engines, .. }) => {
                assert_eq!(query, bad);
                assert_eq!(engines.len(), GIVE_UP_AFTER);
            }
            other => panic!("{other:?}"),
        }
    }
}
