//! Progress lines at a steady interval: what a long run says of itself
//! where no bar can be drawn (a log file, a pipe, a batch job). Every
//! `progress_seconds` a line gives the stage, its counts, rate and share
//! done, how busy the engines are and, for `grow`, what is left; `kill
//! -USR1 PID` asks for one at once, as `dd` does.
//!
//! The lines are events of their own target ([`PROGRESS`]): the log file
//! gets them, standard error only when it is not a terminal (where the bar
//! shows the same) and the run is not quiet ([`crate::logging`]).

use bookminer::run::{Phase, Progress};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The target of progress lines.
pub const PROGRESS: &str = "progress";

/// How often the line's thread looks for a `kill -USR1`.
const ASKED_POLL: Duration = Duration::from_millis(200);

/// The interval between lines, set once from the config; none: no lines.
static INTERVAL: OnceLock<Option<Duration>> = OnceLock::new();

/// Sets the interval between progress lines (`progress_seconds`; 0: none),
/// and from now on takes `kill -USR1` as a request for a line (never as
/// the end of the process, its default).
pub fn set_interval(seconds: f64) {
    let interval = (seconds > 0.0).then(|| Duration::from_secs_f64(seconds));
    let _ = INTERVAL.set(interval);
    let _ = asked_flag();
}

/// Where a run is, as the line tells it.
#[derive(Debug)]
pub struct Beat {
    began: Instant,
    stage: Stage,
    stage_began: Instant,
    /// Steps of the stage done, when it counts them.
    done: u64,
    /// Steps done when the last line was written, and when.
    last: (u64, Instant),
    /// The engines' share of their time spent searching.
    busy: Option<f64>,
    /// `grow` and `add`: positions added and searches.
    grown: Option<(u64, u64)>,
    /// `add`: the searches asked so far.
    searches: Option<u64>,
    /// `grow`: the least priority left and the frontier at or under the budget.
    left: Option<(Option<f64>, Option<u64>)>,
}

/// The stage under way.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stage {
    Starting,
    Phase(Phase),
}

impl Beat {
    fn new(now: Instant) -> Beat {
        Beat {
            began: now,
            stage: Stage::Starting,
            stage_began: now,
            done: 0,
            last: (0, now),
            busy: None,
            grown: None,
            searches: None,
            left: None,
        }
    }

    /// A stage begins.
    pub fn phase(&mut self, phase: Phase, now: Instant) {
        (self.stage, self.stage_began, self.done, self.last) = (Stage::Phase(phase), now, 0, (0, now));
    }

    /// What the run says of the stage under way.
    pub fn progress(&mut self, progress: &Progress<'_>) {
        match *progress {
            Progress::Walked(stats) => self.done = stats.edges,
            Progress::Counted(done) => self.done = done,
            Progress::Grown { added, searched, .. } => {
                self.grown = Some((added, searched));
                self.done = searched;
            }
            Progress::Added { games, added, searched, searches } => {
                self.grown = Some((added, searched));
                self.searches = Some(searches);
                self.done = games;
            }
            Progress::Left { least, at_most } => self.left = Some((least, at_most)),
            Progress::EnginesBusy(share) => self.busy = Some(share),
        }
    }

    /// The line for `now`, the rate counted since the last line.
    pub fn line(&mut self, now: Instant, walk_total: Option<u64>) -> String {
        let rate = rate(self.done.saturating_sub(self.last.0), now.saturating_duration_since(self.last.1));
        self.last = (self.done, now);
        let mut line = self.stage_text(now, walk_total, &rate);
        if let Some(busy) = self.busy {
            let _ = write!(line, ", engines {:.0}% busy", busy * 100.0);
        }
        if let Some((least, at_most)) = self.left {
            let least = least.map_or("none".to_string(), |p| format!("{p}"));
            let _ = write!(line, ", least priority left {least}");
            if let Some(n) = at_most {
                let _ = write!(line, ", {n} frontier positions at or under max_priority");
            }
        }
        let _ = write!(line, "; {} in all", elapsed(now.saturating_duration_since(self.began)));
        line
    }

    /// The stage, its counts and rate.
    fn stage_text(&self, now: Instant, walk_total: Option<u64>, rate: &str) -> String {
        let of = |total: u64, unit: &str| {
            let share =
                if total > 0 { format!(" ({:.0}%)", 100.0 * self.done as f64 / total as f64) } else { String::new() };
            format!("{} of {total} {unit}{share}, {rate} {unit}/s", self.done)
        };
        let stage = match self.stage {
            Stage::Starting => "starting".to_string(),
            Stage::Phase(Phase::Resolving) => "resolving the moves".to_string(),
            Stage::Phase(Phase::Writing) => "writing".to_string(),
            Stage::Phase(Phase::Walking) => match walk_total {
                Some(total) => format!("walking: {}", of(total, "edges")),
                None => format!("walking: {} edges, {rate} edges/s", self.done),
            },
            Stage::Phase(Phase::Counting { what, total }) => format!("{what}: {}", of(total, "steps")),
            Stage::Phase(Phase::Round { round, candidates, searches }) => {
                format!("round {round}, {candidates} candidates: {}", of(searches as u64, "searches"))
            }
            Stage::Phase(Phase::StaleLeaves { searches }) => {
                format!("stale leaves: {}", of(searches as u64, "searches"))
            }
            Stage::Phase(Phase::Deepening { records }) => {
                format!("deepening: {}", of(records as u64, "leaves"))
            }
            Stage::Phase(Phase::Adding { games }) => {
                let (added, searched) = self.grown.unwrap_or_default();
                let searches = self.searches.unwrap_or_default();
                format!("adding: {}, {added} positions added, {searched} of {searches} searches", of(games, "games"))
            }
            Stage::Phase(Phase::Growing) => {
                let (added, searched) = self.grown.unwrap_or_default();
                format!("growing: {added} positions added, {searched} searches, {rate} searches/s")
            }
        };
        format!("{stage}, {} in this stage", elapsed(now.saturating_duration_since(self.stage_began)))
    }
}

/// A count per second, as people read it.
fn rate(steps: u64, over: Duration) -> String {
    let seconds = over.as_secs_f64();
    if seconds <= 0.0 {
        return "0".to_string();
    }
    match steps as f64 / seconds {
        r if r >= 999_500.0 => format!("{:.1}M", r / 1e6),
        r if r >= 999.5 => format!("{:.0}k", r / 1e3),
        r if r >= 10.0 => format!("{r:.0}"),
        r => format!("{r:.1}"),
    }
}

/// A duration as `1h02m03s`, `2m03s` or `4s`.
fn elapsed(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}

/// The progress lines of one run: a thread that writes the line every
/// interval, and at once when asked (`kill -USR1`), until dropped.
pub struct Heartbeat {
    beat: Arc<Mutex<Beat>>,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Heartbeat {
    /// Starts the lines of a run whose walk, if any, has about `walk_total`
    /// edges; with no interval set (or 0), the lines are not written.
    pub fn start(walk_total: Option<u64>) -> Heartbeat {
        let beat = Arc::new(Mutex::new(Beat::new(Instant::now())));
        let Some(interval) = INTERVAL.get().copied().flatten() else {
            return Heartbeat { beat, stop: None, thread: None };
        };
        let asked = asked_flag();
        let (stop, stopped) = mpsc::channel::<()>();
        let shared = Arc::clone(&beat);
        let thread = std::thread::Builder::new().name("progress lines".into()).spawn(move || {
            let mut next = Instant::now() + interval;
            loop {
                let wait = next.saturating_duration_since(Instant::now()).min(ASKED_POLL);
                match stopped.recv_timeout(wait) {
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
                let now = Instant::now();
                let asked_now = asked.as_ref().is_some_and(|a| a.swap(false, Ordering::Relaxed));
                if now >= next || asked_now {
                    let line = lock(&shared).line(now, walk_total);
                    tracing::info!(target: PROGRESS, "{line}");
                    next = now + interval;
                }
            }
        });
        match thread {
            Ok(thread) => Heartbeat { beat, stop: Some(stop), thread: Some(thread) },
            Err(e) => {
                tracing::warn!("no progress lines: cannot start their thread: {e}");
                Heartbeat { beat, stop: None, thread: None }
            }
        }
    }

    /// A stage begins.
    pub fn phase(&self, phase: Phase) {
        lock(&self.beat).phase(phase, Instant::now());
    }

    /// What the run says of the stage under way.
    pub fn progress(&self, progress: &Progress<'_>) {
        lock(&self.beat).progress(progress);
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The beat, even if a thread panicked holding it.
fn lock(beat: &Mutex<Beat>) -> std::sync::MutexGuard<'_, Beat> {
    beat.lock().unwrap_or_else(|e| e.into_inner())
}

/// The flag `kill -USR1` sets, registered once for the process.
fn asked_flag() -> Option<Arc<AtomicBool>> {
    #[cfg(unix)]
    {
        static ASKED: OnceLock<Option<Arc<AtomicBool>>> = OnceLock::new();
        ASKED
            .get_or_init(|| {
                let flag = Arc::new(AtomicBool::new(false));
                signal_hook::flag::register(signal_hook::consts::SIGUSR1, Arc::clone(&flag)).ok().map(|_| flag)
            })
            .clone()
    }
    #[cfg(not(unix))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_line_gives_counts_share_rate_and_the_engines_use() {
        let t0 = Instant::now();
        let mut beat = Beat::new(t0);
        beat.phase(Phase::Round { round: 2, candidates: 7, searches: 40 }, t0);
        beat.progress(&Progress::Counted(10));
        beat.progress(&Progress::EnginesBusy(0.95));
        let line = beat.line(t0 + Duration::from_secs(5), None);
        assert_eq!(
            line,
            "round 2, 7 candidates: 10 of 40 searches (25%), 2.0 searches/s, 5s in this stage, engines 95% busy; 5s in all"
        );
        // The rate counts from the last line.
        beat.progress(&Progress::Counted(40));
        let line = beat.line(t0 + Duration::from_secs(65), None);
        assert!(line.starts_with("round 2, 7 candidates: 40 of 40 searches (100%), 0.5 searches/s, 1m05s"), "{line}");
    }

    #[test]
    fn a_grow_line_tells_what_is_left() {
        let t0 = Instant::now();
        let mut beat = Beat::new(t0);
        beat.phase(Phase::Growing, t0);
        beat.progress(&Progress::Grown { added: 12, searched: 30, reached: Some(4.0), spent: None });
        beat.progress(&Progress::Left { least: Some(6.5), at_most: Some(120) });
        let line = beat.line(t0 + Duration::from_secs(3 * 3600 + 4), None);
        assert_eq!(
            line,
            "growing: 12 positions added, 30 searches, 0.0 searches/s, 3h00m04s in this stage, least priority left 6.5, \
             120 frontier positions at or under max_priority; 3h00m04s in all"
        );
    }

    #[test]
    fn an_add_line_gives_the_share_of_games_read() {
        let t0 = Instant::now();
        let mut beat = Beat::new(t0);
        beat.phase(Phase::Adding { games: 200 }, t0);
        beat.progress(&Progress::Added { games: 50, added: 7, searched: 9, searches: 12 });
        let line = beat.line(t0 + Duration::from_secs(2), None);
        assert_eq!(
            line,
            "adding: 50 of 200 games (25%), 25 games/s, 7 positions added, 9 of 12 searches, 2s in this stage; 2s in all"
        );
    }

    #[test]
    fn a_deepen_line_counts_the_leaves() {
        let t0 = Instant::now();
        let mut beat = Beat::new(t0);
        beat.phase(Phase::Deepening { records: 200 }, t0);
        beat.progress(&Progress::Counted(50));
        let line = beat.line(t0 + Duration::from_secs(10), None);
        assert_eq!(line, "deepening: 50 of 200 leaves (25%), 5.0 leaves/s, 10s in this stage; 10s in all");
    }

    #[test]
    fn rates_and_times_read_as_people_say_them() {
        assert_eq!(rate(2_500_000, Duration::from_secs(1)), "2.5M");
        assert_eq!(rate(830_000, Duration::from_secs(1)), "830k");
        assert_eq!(rate(45, Duration::from_secs(1)), "45");
        assert_eq!(rate(1, Duration::from_secs(4)), "0.2");
        assert_eq!(rate(5, Duration::ZERO), "0");
        assert_eq!(elapsed(Duration::from_secs(59)), "59s");
        assert_eq!(elapsed(Duration::from_secs(61)), "1m01s");
    }
}
