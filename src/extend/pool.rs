//! The engines at work: one thread per engine takes searches from a shared
//! queue, restarts an engine that fails and asks it again (twice at most),
//! and hands each answer back as it comes. The threads and their engines
//! live for the whole run, so an engine is started once, not per round.

use super::engine::{Engine, EngineSpec, Fault};
use super::search::{Answer, Query};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many times a search is asked again of a restarted engine.
pub const RETRIES: u32 = 2;

/// How often an idle worker looks at the flags that stop it.
const IDLE_POLL: Duration = Duration::from_millis(50);

/// One search to do, and the book that tells the engine its exclusions.
pub struct Task {
    /// The caller's number for it, handed back with the answer.
    pub index: usize,
    pub query: Query,
    pub book: Arc<PathBuf>,
}

/// A search that failed for good.
#[derive(Debug)]
pub struct GaveUp {
    pub query: Query,
    pub fault: Fault,
}

/// What became of a task.
pub struct Done {
    pub index: usize,
    pub outcome: Result<(Answer, Duration), GaveUp>,
}

/// The engines, seen from the thread that hands out the work.
pub struct Pool<'s> {
    spec: &'s EngineSpec,
    tasks: Sender<Task>,
    done: Receiver<Done>,
    /// Set to stop every engine: a search failed for good.
    halt: Arc<AtomicBool>,
}

impl<'s> Pool<'s> {
    /// Starts `workers` threads in `scope`, each of which starts its engine
    /// when its first task comes. They stop when the pool is dropped, or at
    /// once when `cancel` is set.
    pub fn start<'e>(
        scope: &'s std::thread::Scope<'s, 'e>,
        spec: &'s EngineSpec,
        workers: usize,
        cancel: &'s AtomicBool,
    ) -> std::io::Result<Pool<'s>> {
        let (tasks, queue) = mpsc::channel::<Task>();
        let (report, done) = mpsc::channel();
        let queue = Arc::new(Mutex::new(queue));
        let halt = Arc::new(AtomicBool::new(false));
        for id in 1..=workers {
            let worker =
                Worker { id, spec, queue: Arc::clone(&queue), report: report.clone(), halt: Arc::clone(&halt), cancel };
            std::thread::Builder::new().name(format!("engine {id}")).spawn_scoped(scope, move || worker.run())?;
        }
        Ok(Pool { spec, tasks, done, halt })
    }

    /// The engines' command line.
    pub fn command(&self) -> &str {
        &self.spec.command
    }

    /// Queues a search.
    pub fn submit(&self, task: Task) {
        // The workers hold the queue until the pool is dropped.
        let _ = self.tasks.send(task);
    }

    /// The next finished task; `None` once every worker has stopped.
    pub fn next_done(&self, cancel: &AtomicBool) -> Option<Done> {
        loop {
            match self.done.recv_timeout(IDLE_POLL) {
                Ok(done) => return Some(done),
                Err(RecvTimeoutError::Timeout) if !cancel.load(Ordering::Relaxed) => continue,
                Err(_) => return None,
            }
        }
    }

    /// Stops every engine now (a search failed for good): searches under
    /// way are abandoned, queued ones dropped.
    pub fn halt(&self) {
        self.halt.store(true, Ordering::Relaxed);
    }
}

struct Worker<'s> {
    id: usize,
    spec: &'s EngineSpec,
    queue: Arc<Mutex<Receiver<Task>>>,
    report: Sender<Done>,
    halt: Arc<AtomicBool>,
    cancel: &'s AtomicBool,
}

impl Worker<'_> {
    fn stopping(&self) -> bool {
        self.cancel.load(Ordering::Relaxed) || self.halt.load(Ordering::Relaxed)
    }

    fn run(self) {
        let mut engine = None;
        while let Some(task) = self.next_task() {
            let outcome = self.search(&mut engine, &task);
            if self.report.send(Done { index: task.index, outcome }).is_err() {
                break;
            }
        }
        if let Some(engine) = engine {
            engine.quit();
        }
    }

    /// The next task, or `None` when the run is over or stopping.
    fn next_task(&self) -> Option<Task> {
        loop {
            if self.stopping() {
                return None;
            }
            let next = self.queue.lock().ok()?.recv_timeout(IDLE_POLL);
            match next {
                Ok(task) => return Some(task),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Asks the task's search, restarting the engine after a fault.
    fn search(&self, engine: &mut Option<Engine>, task: &Task) -> Result<(Answer, Duration), GaveUp> {
        let stop = || self.stopping();
        let mut attempt = 0;
        loop {
            let began = Instant::now();
            let asked = match engine {
                Some(running) => running.ask(&task.query, &task.book, &stop),
                None => Engine::start(self.spec, &task.book, self.id, &stop)
                    .and_then(|started| engine.insert(started).ask(&task.query, &task.book, &stop)),
            };
            let fault = match asked {
                Ok(answer) => return Ok((answer, began.elapsed())),
                Err(fault) => fault,
            };
            // Whatever the fault, this engine is done with: the next try
            // (if any) starts another.
            *engine = None;
            if matches!(fault, Fault::Stopped) || attempt == RETRIES {
                return Err(GaveUp { query: task.query, fault });
            }
            attempt += 1;
            tracing::warn!(
                "engine {}: {fault}; restarting it to search {} again ({attempt} of {RETRIES})",
                self.id,
                task.query
            );
        }
    }
}
