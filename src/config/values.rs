//! Every setting of a run, checked: what the rest of the binary reads.

use bookminer::book::ReadOptions;
use bookminer::choice::Choice;
use bookminer::engine::Protocol;
use bookminer::level::Level;
use bookminer::output::{Orientation, RecordFormats};
use bookminer::rules::modes::{Linkless, Mode};
use bookminer::walk::Start;
use bookminer::window::Window;
use std::path::PathBuf;

/// What a run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunMode {
    Mine(Mode),
    /// Modes 1–4 in one walk.
    All,
    /// Mode 5.
    Inspect,
}

impl RunMode {
    /// The mining modes the run takes: none for mode 5.
    pub fn mining_modes(self) -> Vec<Mode> {
        match self {
            RunMode::Mine(mode) => vec![mode],
            RunMode::All => Mode::ALL.to_vec(),
            RunMode::Inspect => Vec::new(),
        }
    }
}

/// How much is logged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

impl Choice for LogLevel {
    const ALL: &'static [LogLevel] =
        &[LogLevel::Error, LogLevel::Warn, LogLevel::Info, LogLevel::Debug, LogLevel::Trace];

    fn name(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
            LogLevel::Trace => "trace",
        }
    }
}

impl LogLevel {
    /// The level as tracing names it.
    pub fn as_tracing(self) -> tracing::Level {
        match self {
            LogLevel::Error => tracing::Level::ERROR,
            LogLevel::Warn => tracing::Level::WARN,
            LogLevel::Info => tracing::Level::INFO,
            LogLevel::Debug => tracing::Level::DEBUG,
            LogLevel::Trace => tracing::Level::TRACE,
        }
    }
}

/// An engine as a flag or the config names it: its command line and, in
/// the config file, its own number of workers (else `workers`) and its own
/// protocol (else `protocol`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineEntry {
    pub command: String,
    pub workers: Option<usize>,
    pub protocol: Option<Protocol>,
}

/// Every setting of a run, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The book, if one was given (flag or config key): there is no default.
    pub book: Option<PathBuf>,
    pub mode: RunMode,
    /// The position the `start` kifu reaches, and that kifu played (passes
    /// inserted): the walk covers only what lies below it.
    pub start: Start,
    pub out_dir: PathBuf,
    pub min_gap: i32,
    pub orientation: Orientation,
    pub pass_token: String,
    pub unique_lines: bool,
    pub mode1_linkless: Linkless,
    /// Mode 5's positions file: the one given, else positions.txt beside
    /// the config file; none without a config file.
    pub positions_file: Option<PathBuf>,
    pub log_level: LogLevel,
    /// The log file, only when one was asked for (flag or config key): a
    /// run writes no file the user did not name or expect.
    pub log_file: Option<PathBuf>,
    /// Seconds between a long run's progress lines; 0: none.
    pub progress_seconds: f64,
    pub format: RecordFormats,
    pub bom: bool,
    /// Which moves the walk follows (docs/walk.md, windows).
    pub window: Window,
    /// The level every record of an .egbk book gets (docs/formats.md, older Egaroucid books).
    pub egbk_level: Level,
    /// Threads a run works on (`bookminer::set_threads`); 0: every core.
    pub threads: usize,
    /// `extend`'s engines; none given: `extend` cannot run.
    pub engines: Vec<EngineEntry>,
    /// Searches each engine runs at once, unless it says otherwise.
    /// Searches each engine runs at once, unless it says otherwise; `None`: its protocol's default.
    pub workers: Option<usize>,
    /// The protocol each engine speaks, unless it says otherwise; `None`: told from its greeting.
    pub protocol: Option<Protocol>,
    /// Seconds an engine is given for one answer.
    pub engine_timeout: u64,
    /// `extend`'s candidates have at least this many empty squares; `None`: the book's default.
    pub min_empties: Option<u32>,
    /// `extend` stops once this many positions have been added.
    pub max_positions: Option<u64>,
    /// `grow`: plies a disc of error counts as.
    pub error_weight: f64,
    /// `grow` stops once every frontier position's priority is above this.
    pub max_priority: Option<f64>,
    /// `grow` dispatches nothing new after this many seconds.
    pub max_seconds: Option<f64>,
    /// `deepen`'s level (none given: `deepen` cannot run), `new`'s, and `add`'s for an Egaroucid book.
    pub level: Option<Level>,
    /// A file named to be written (OUT, `-o FILE`) may replace one that
    /// exists (never a journal).
    pub force: bool,
    /// `new`'s depth, and `add`'s for an Egaroucid book, in plies; `None`: the command's default.
    pub depth: Option<u32>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            book: None,
            mode: RunMode::Mine(Mode::LeafVsLinks),
            start: Start::initial(),
            out_dir: "out".into(),
            min_gap: 1,
            orientation: Orientation::F5,
            pass_token: String::new(),
            unique_lines: true,
            mode1_linkless: Linkless::Skip,
            positions_file: None,
            log_level: LogLevel::Info,
            log_file: None,
            progress_seconds: 30.0,
            format: RecordFormats::KIFU,
            bom: true,
            window: Window::NONE,
            egbk_level: ReadOptions::EGBK_LEVEL,
            threads: 0,
            engines: Vec::new(),
            workers: None,
            protocol: None,
            engine_timeout: 600,
            min_empties: None,
            max_positions: None,
            error_weight: 1.0,
            max_priority: None,
            max_seconds: None,
            level: None,
            force: false,
            depth: None,
        }
    }
}
