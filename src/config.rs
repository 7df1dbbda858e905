//! The run's settings (README.md, configuration): `config.toml`, then command-line flags over it.
//!
//! Every key is declared once, in [`Settings`]: the same field is a flag of
//! the same name (clap) and a key of the file (serde), and both read its value
//! with the same parser. Keys and enumerated values are case-insensitive;
//! every value is checked here, so the rest of the program works with a typed
//! [`Config`].

use bookminer::book::ReadOptions;
use bookminer::choice::Choice;
use bookminer::engine::Protocol;
use bookminer::failure::{io_kind, ErrorKind};
use bookminer::kifu;
use bookminer::level::Level;
use bookminer::output::{Orientation, RecordFormats};
use bookminer::rules::modes::{Linkless, Mode};
use bookminer::walk::Start;
use bookminer::window::Window;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, CommandFactory, Parser};
use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use std::io;
use std::path::{Path, PathBuf};

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
    pub fn mining_modes(self) -> Vec<Mode> {
        match self {
            RunMode::Mine(mode) => vec![mode],
            RunMode::All => Mode::ALL.to_vec(),
            RunMode::Inspect => Vec::new(),
        }
    }
}

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

/// The settings as given, each key once: a flag (`--min-gap 2`) and a key of
/// config.toml (`min_gap = 2`). `None`: not given. The keys come in groups,
/// so that each command takes (and its `--help` shows) only the ones it
/// uses; `display_order` keeps the order the keys were first listed in.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct Settings {
    #[command(flatten)]
    #[serde(flatten)]
    pub book: BookKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub read: ReadKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub log: LogKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub progress: ProgressKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub mine: MineKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub written: WrittenKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub line: LineKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub walk: WalkKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub inspect: InspectKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub engines: EngineKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub extend: ExtendKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub grow: GrowKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub deepen: DeepenKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub write: WriteKeys,
    #[command(flatten)]
    #[serde(flatten)]
    pub games: GamesKeys,
}

/// The book mining, inspect, verify and stats read (the book commands that
/// write name theirs as arguments).
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct BookKeys {
    /// Book to read: Edax book.dat, Egaroucid .egbk3, .egbk2 or .egbk [config: book]
    #[arg(long, display_order = 0, value_name = "FILE", value_parser = parse_path)]
    #[serde(default, deserialize_with = "de::path")]
    pub book: Option<PathBuf>,
}

/// How a book is read: every command that reads one.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct ReadKeys {
    /// Level given to every record of an .egbk book, which stores none, 0 to 60 [config: egbk_level]
    #[arg(long, display_order = 17, value_name = "N", value_parser = parse_egbk_level)]
    #[serde(default, deserialize_with = "de::egbk_level")]
    pub egbk_level: Option<Level>,
    /// Threads to work on (the walk, resolving, writing books); with 3 or
    /// more a thread walks ahead of the walk; 0: every core [config: threads]
    #[arg(long, display_order = 18, value_name = "N", value_parser = parse_threads)]
    #[serde(default, deserialize_with = "de::threads")]
    pub threads: Option<usize>,
}

/// Logging: every command.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct LogKeys {
    /// How much to log [config: log_level]
    #[arg(long, display_order = 10, value_name = "LEVEL", value_parser = choice::<LogLevel>(), ignore_case = true)]
    #[serde(default, deserialize_with = "de::choice")]
    pub log_level: Option<LogLevel>,
    /// Log file, UTF-8 with BOM, time-stamped lines; none unless given.
    /// Created once the inputs are read and found good; never one of the
    /// run's inputs or outputs [config: log_file]
    #[arg(long, display_order = 11, value_name = "FILE", value_parser = parse_path)]
    #[serde(default, deserialize_with = "de::path")]
    pub log_file: Option<PathBuf>,
}

/// How a long run (a walk, a book written, engines searching) says how far
/// it has come where no bar is drawn.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct ProgressKeys {
    /// Seconds between the progress lines of a long run (counts, rate,
    /// engines' use), written to the log and, when it is not a terminal, to
    /// standard error; 0: none [config: progress_seconds]
    #[arg(long, display_order = 12, value_name = "SECONDS", value_parser = parse_progress_seconds)]
    #[serde(default, deserialize_with = "de::progress_seconds")]
    pub progress_seconds: Option<f64>,
}

/// What mining looks for.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct MineKeys {
    /// 1 leaf vs links, 2 value vs best move, 3 parent vs value, 4 parent vs
    /// best move, 5 inspect, or "all" (1–4 in one walk) [config: mode]
    #[arg(short, long, display_order = 1, value_name = "MODE", value_parser = RunModeParser)]
    #[serde(default, deserialize_with = "de::run_mode")]
    pub mode: Option<RunMode>,
    /// Smallest score difference that counts as a mismatch, 1 to 128 [config: min_gap]
    #[arg(long, display_order = 4, value_name = "N", value_parser = parse_min_gap)]
    #[serde(default, deserialize_with = "de::min_gap")]
    pub min_gap: Option<i32>,
    /// Mode 1, child with a leaf but no links [config: mode1_linkless]
    #[arg(long, display_order = 8, value_name = "HOW", value_parser = choice::<Linkless>(), ignore_case = true)]
    #[serde(default, deserialize_with = "de::choice")]
    pub mode1_linkless: Option<Linkless>,
}

/// Which files of lines are written, and how: mining's and `check`'s.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct WrittenKeys {
    /// Files to write per set of lines: kifu (.txt), jsonl, obf, or a list
    /// such as kifu,jsonl,obf [config: format]
    #[arg(long, display_order = 12, value_name = "LIST", value_parser = parse_formats)]
    #[serde(default, deserialize_with = "de::formats")]
    pub format: Option<RecordFormats>,
    /// false: kifu files without the byte-order mark (for Edax's `book add`) [config: bom]
    #[arg(long, display_order = 13, value_name = "BOOL", value_parser = parse_bool)]
    #[serde(default, deserialize_with = "de::boolean")]
    pub bom: Option<bool>,
    /// true: write each line once per set (a mode's, check-bad, check-missing); false: every line [config: unique_lines]
    #[arg(long, display_order = 7, value_name = "BOOL", value_parser = parse_bool)]
    #[serde(default, deserialize_with = "de::boolean")]
    pub unique_lines: Option<bool>,
}

/// How a line and its position are written (mining's files, fix's receipt), and where.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct LineKeys {
    /// Folder for the output files [config: out_dir]
    #[arg(long, display_order = 3, value_name = "DIR", value_parser = parse_path)]
    #[serde(default, deserialize_with = "de::path")]
    pub out_dir: Option<PathBuf>,
    /// Turn every line to start with F5, or keep the walk's coordinates [config: orientation]
    #[arg(long, display_order = 5, value_name = "HOW", value_parser = choice::<Orientation>(), ignore_case = true)]
    #[serde(default, deserialize_with = "de::choice")]
    pub orientation: Option<Orientation>,
    /// Text written for a pass, e.g. PS; empty leaves passes out [config: pass_token]
    #[arg(long, display_order = 6, value_name = "TEXT")]
    #[serde(default, deserialize_with = "de::text")]
    pub pass_token: Option<String>,
}

/// Where the walk starts and which moves it follows (mining, cut).
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct WalkKeys {
    /// Walk only below the position this kifu reaches, e.g. f5d6 [config: start]
    #[arg(long, display_order = 2, value_name = "KIFU")]
    #[serde(default, deserialize_with = "de::text")]
    pub start: Option<String>,
    /// Window: follow a move only if it scores at least the position's best
    /// move minus N; -1: no limit [config: deviation]
    #[arg(long, display_order = 14, value_name = "N", value_parser = parse_limit, allow_hyphen_values = true)]
    #[serde(default, deserialize_with = "de::limit")]
    pub deviation: Option<Limit>,
    /// Window: follow a move only if its score is within N of the start
    /// position's value (negated at odd plies); -1: no limit [config: error]
    #[arg(long, display_order = 15, value_name = "N", value_parser = parse_limit, allow_hyphen_values = true)]
    #[serde(default, deserialize_with = "de::limit")]
    pub error: Option<Limit>,
    /// Window: follow moves only this many plies below the start; -1: no limit [config: max_ply]
    #[arg(long, display_order = 16, value_name = "N", value_parser = parse_limit, allow_hyphen_values = true)]
    #[serde(default, deserialize_with = "de::limit")]
    pub max_ply: Option<Limit>,
}

/// Mode 5's positions.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct InspectKeys {
    /// Mode 5: file with one position per line [config: positions_file]
    #[arg(long, display_order = 9, value_name = "FILE", value_parser = parse_path)]
    #[serde(default, deserialize_with = "de::path")]
    pub positions_file: Option<PathBuf>,
}

/// The engines `extend`, `grow` and `merge` search with.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct EngineKeys {
    /// Engine command line, run by sh -c: Edax 4.6 or anything that speaks
    /// its console (see docs/extend.md), e.g. "edax -eval-file /opt/edax/data/eval.dat";
    /// give it again for another engine (a machine: "ssh host edax …"). In the
    /// config file a command, or a list of them, each a command or a table
    /// { command = "…", workers = K, protocol = "edax" } [config: engine]
    #[arg(long, display_order = 18, value_name = "COMMAND", value_parser = parse_engine)]
    #[serde(default, deserialize_with = "de::engine")]
    pub engine: Vec<EngineEntry>,
    /// Searches each engine runs at once; default: the number of cores (Egaroucid's: no more than
    /// the available memory holds, 1.4 GB each) [config: workers]
    #[arg(long, display_order = 19, value_name = "K", value_parser = parse_workers)]
    #[serde(default, deserialize_with = "de::workers")]
    pub workers: Option<usize>,
    /// The protocol the engines speak, unless one says otherwise; default: told from each engine's
    /// answer to its greeting [config: engine_protocol]
    #[arg(long, display_order = 19, value_name = "NAME", value_parser = choice::<Protocol>(), ignore_case = true)]
    #[serde(default, deserialize_with = "de::choice")]
    pub engine_protocol: Option<Protocol>,
    /// Longest wait for one answer, in seconds, before the engine is restarted [config: engine_timeout]
    #[arg(long, display_order = 20, value_name = "SECONDS", value_parser = parse_timeout)]
    #[serde(default, deserialize_with = "de::engine_timeout")]
    pub engine_timeout: Option<u64>,
}

/// Where `extend` and `grow` expand, and when they stop.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct ExtendKeys {
    /// Expand only positions with at least this many empty squares; default:
    /// an Edax book's header n_empties, 0 for an Egaroucid book [config: min_empties]
    #[arg(long, display_order = 21, value_name = "N", value_parser = parse_min_empties)]
    #[serde(default, deserialize_with = "de::min_empties")]
    pub min_empties: Option<u32>,
    /// Stop once this many positions have been added [config: max_positions]
    #[arg(long, display_order = 22, value_name = "N", value_parser = parse_max_positions)]
    #[serde(default, deserialize_with = "de::max_positions")]
    pub max_positions: Option<u64>,
}

/// How `grow` weighs errors and when it stops (docs/grow.md).
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct GrowKeys {
    /// Plies one disc of error along a line counts as, a number from 0 up; 0 grows by depth alone;
    /// default 1 [config: error_weight]
    #[arg(long, display_order = 23, value_name = "W", value_parser = parse_error_weight)]
    #[serde(default, deserialize_with = "de::error_weight")]
    pub error_weight: Option<f64>,
    /// Grow until every frontier position's priority is above C [config: max_priority]
    #[arg(long, display_order = 24, value_name = "C", value_parser = parse_max_priority)]
    #[serde(default, deserialize_with = "de::max_priority")]
    pub max_priority: Option<f64>,
    #[command(flatten)]
    #[serde(flatten)]
    pub stop: StopKeys,
}

/// When a growth run that can take long begins nothing new: `grow`,
/// `deepen` and `fill`, one declaration.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct StopKeys {
    /// Begin nothing new after this many seconds (grow: an expansion, deepen: a search, fill: a round);
    /// what is under way is finished [config: max_seconds]
    #[arg(long, display_order = 25, value_name = "SECONDS", value_parser = parse_max_seconds)]
    #[serde(default, deserialize_with = "de::max_seconds")]
    pub max_seconds: Option<f64>,
}

/// The level `deepen` searches leaves again at (docs/deepen.md), `new`
/// starts a book at, and `add` gives an Egaroucid book's new positions.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct DeepenKeys {
    /// Edax's level, 0 to 60: `deepen`, that every record shallower at
    /// its empty squares is given and its leaf searched again at; `new`,
    /// the book's (default 21, as Edax's `book new`); `add`, that of an
    /// Egaroucid book's new positions (an Edax book's header says its
    /// own) [config: level]
    #[arg(long, display_order = 26, value_name = "L", value_parser = parse_level)]
    #[serde(default, deserialize_with = "de::level")]
    pub level: Option<Level>,
}

/// Whether a file the command line names to write (OUT, `-o FILE`) may
/// replace a file already there: every command that writes one.
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct WriteKeys {
    /// Replace OUT (or the -o file) if it exists; without it an existing
    /// file is refused (status 2) before any work, naming what it holds.
    /// Never replaces an extend journal [config: force]
    #[arg(
        long,
        display_order = 26,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        value_parser = parse_bool
    )]
    #[serde(default, deserialize_with = "de::boolean")]
    pub force: Option<bool>,
}

/// The depth of a book made from games (`new`; `add` into an Egaroucid
/// book, whose header holds none).
#[derive(Args, Deserialize, Debug, Default, Clone)]
pub struct GamesKeys {
    /// The book's depth, 1 to 60; `new`: its header's n_empties is 61 - D
    /// (default 36, as Edax's `book new`), and `add` plays D - 1 moves of
    /// a game; `add`: for an Egaroucid book only, the moves of a game
    /// played (default 60) [config: depth]
    #[arg(long, display_order = 28, value_name = "D", value_parser = parse_depth)]
    #[serde(default, deserialize_with = "de::depth")]
    pub depth: Option<u32>,
}

/// The settings alone as a command line, to check one flag at a time.
#[derive(Parser, Debug)]
#[command(name = "bookminer", no_binary_name = true, disable_help_flag = true)]
struct Flags {
    #[command(flatten)]
    settings: Settings,
}

/// The names of the keys, in the order the documentation lists them.
pub fn keys() -> Vec<String> {
    let mut args: Vec<_> = Flags::command().get_arguments().cloned().collect();
    args.sort_by_key(|a| a.get_display_order());
    args.iter().map(|a| a.get_id().to_string()).collect()
}

/// A value a key cannot take, and what it can.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadValue(String);

fn parse_path(text: &str) -> Result<PathBuf, BadValue> {
    match text {
        "" => Err(BadValue("expected a path, got \"\"".into())),
        _ => Ok(PathBuf::from(text)),
    }
}

/// `--mode`'s parser: [`parse_run_mode`], and the values it takes named,
/// so that shells complete them (`--mode <TAB>`: 1 2 3 4 5 all).
#[derive(Clone)]
struct RunModeParser;

impl clap::builder::TypedValueParser for RunModeParser {
    type Value = RunMode;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<RunMode, clap::Error> {
        parse_run_mode.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let values = ["1", "2", "3", "4", "5", "all"].into_iter().map(clap::builder::PossibleValue::new);
        Some(Box::new(values))
    }
}

/// `mine --mode`'s parser: [`RunModeParser`] without mode 5, which `mine`
/// refuses (it is `inspect`), so that `mine --help` and the shells offer
/// only what `mine` does.
#[derive(Clone)]
pub struct MiningModeParser;

impl clap::builder::TypedValueParser for MiningModeParser {
    type Value = RunMode;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<RunMode, clap::Error> {
        parse_mining_mode.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let values = ["1", "2", "3", "4", "all"].into_iter().map(clap::builder::PossibleValue::new);
        Some(Box::new(values))
    }
}

/// `mine --mode`'s help: [`MineKeys::mode`]'s without mode 5.
pub const MINING_MODE_HELP: &str =
    "1 leaf vs links, 2 value vs best move, 3 parent vs value, 4 parent vs best move, or \"all\" (1–4 in one walk) [config: mode]";

/// A mode `mine` runs: 1–4 or all.
fn parse_mining_mode(text: &str) -> Result<RunMode, BadValue> {
    match parse_run_mode(text)? {
        RunMode::Inspect => Err(BadValue("mode 5 is `bookminer inspect`; mine takes 1, 2, 3, 4 or \"all\"".into())),
        mode => Ok(mode),
    }
}

fn parse_run_mode(text: &str) -> Result<RunMode, BadValue> {
    let t = text.trim();
    match t.parse::<u8>() {
        Ok(5) => Ok(RunMode::Inspect),
        Ok(n) if (1..=4).contains(&n) => Ok(RunMode::Mine(Mode::from_number(n).expect("1..=4"))),
        _ if t.eq_ignore_ascii_case("all") => Ok(RunMode::All),
        _ => Err(BadValue(format!("{text:?} is not a mode; allowed values: 1, 2, 3, 4, 5, \"all\""))),
    }
}

fn parse_min_gap(text: &str) -> Result<i32, BadValue> {
    parse_count(text, 1..=128)
}

/// A window limit as given: `None` for -1, no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit(Option<u32>);

impl Limit {
    /// The bound checked, or none for no limit.
    pub fn bound(self) -> Option<u32> {
        self.0
    }
}

/// A window limit (docs/walk.md, windows): a whole number from 0 up, or -1 for none.
fn parse_limit(text: &str) -> Result<Limit, BadValue> {
    match text.trim().parse::<i64>() {
        Ok(-1) => Ok(Limit(None)),
        Ok(n) if (0..=i64::from(LIMIT_MAX)).contains(&n) => Ok(Limit(Some(n as u32))),
        _ => Err(BadValue(format!("expected -1 (no limit) or a whole number from 0 to {LIMIT_MAX}, got {text:?}"))),
    }
}

/// The largest window limit taken: scores span 256 values and a game 120
/// plies at most, so anything above is the same as no limit but written
/// with a number.
const LIMIT_MAX: u32 = 1000;

fn parse_egbk_level(text: &str) -> Result<Level, BadValue> {
    parse_count(text, 0..=60)
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

fn parse_engine(text: &str) -> Result<EngineEntry, BadValue> {
    match text.trim() {
        "" => Err(BadValue("expected an engine command line, got \"\"".into())),
        command => Ok(EngineEntry { command: command.to_string(), workers: None, protocol: None }),
    }
}

/// A whole number in `range`, for the keys that take one.
fn parse_count<T: TryFrom<u64> + Copy>(text: &str, range: std::ops::RangeInclusive<u64>) -> Result<T, BadValue> {
    let bad = || BadValue(format!("expected a whole number from {} to {}, got {text:?}", range.start(), range.end()));
    let n = text.trim().parse::<u64>().map_err(|_| bad())?;
    range.contains(&n).then(|| T::try_from(n).ok()).flatten().ok_or_else(bad)
}

fn parse_workers(text: &str) -> Result<usize, BadValue> {
    parse_count(text, 1..=1024)
}

fn parse_threads(text: &str) -> Result<usize, BadValue> {
    parse_count(text, 0..=1024)
}

fn parse_timeout(text: &str) -> Result<u64, BadValue> {
    parse_count(text, 1..=u64::from(u32::MAX))
}

fn parse_min_empties(text: &str) -> Result<u32, BadValue> {
    parse_count(text, 0..=60)
}

/// A real number from 0 up, no larger than `max`.
fn parse_real(text: &str, max: f64) -> Result<f64, BadValue> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=max).contains(&x) => Ok(x),
        _ => Err(BadValue(format!("expected a number from 0 to {max}, got {text:?}"))),
    }
}

fn parse_error_weight(text: &str) -> Result<f64, BadValue> {
    parse_real(text, bookminer::extend::priority::ErrorWeight::MAX)
}

fn parse_max_priority(text: &str) -> Result<f64, BadValue> {
    parse_real(text, 1e12)
}

pub(crate) fn parse_max_seconds(text: &str) -> Result<f64, BadValue> {
    parse_real(text, 1e9)
}

fn parse_progress_seconds(text: &str) -> Result<f64, BadValue> {
    parse_real(text, 1e9)
}

fn parse_max_positions(text: &str) -> Result<u64, BadValue> {
    parse_count(text, 0..=u64::from(u32::MAX))
}

fn parse_level(text: &str) -> Result<Level, BadValue> {
    parse_count(text, 0..=60)
}

fn parse_depth(text: &str) -> Result<u32, BadValue> {
    parse_count(text, 1..=60)
}

fn parse_bool(text: &str) -> Result<bool, BadValue> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(BadValue(format!("expected true or false, got {text:?}"))),
    }
}

fn parse_formats(text: &str) -> Result<RecordFormats, BadValue> {
    text.parse().map_err(|e: bookminer::output::print::RecordFormatsError| BadValue(e.to_string()))
}

/// The values of an enumerated key, quoted, for messages.
fn allowed<T: Choice>() -> String {
    let names = T::ALL.iter().map(|v| format!("\"{}\"", v.name()));
    names.collect::<Vec<_>>().join(", ")
}

/// The parser of an enumerated flag: its values, each with its help, as
/// `--help` lists them.
pub fn choice<T: Choice>() -> impl TypedValueParser<Value = T> {
    let values = T::ALL.iter().map(|&v| match v.help() {
        Some(help) => PossibleValue::new(v.name()).help(help),
        None => PossibleValue::new(v.name()),
    });
    PossibleValuesParser::new(values).try_map(|name| T::named(&name).ok_or(BadValue(format!("no value {name:?}"))))
}

/// Reading the file's values with the flags' parsers: a TOML value is taken
/// as its text where the flag would take text (`mode = 4` as "4").
mod de {
    use super::*;

    fn value<'de, D: Deserializer<'de>>(d: D) -> Result<toml::Value, D::Error> {
        toml::Value::deserialize(d)
    }

    /// A string, or an integer or boolean as its text; `what` otherwise.
    fn scalar_text<E: serde::de::Error>(v: &toml::Value, what: &str) -> Result<String, E> {
        match v {
            toml::Value::String(s) => Ok(s.clone()),
            toml::Value::Integer(i) => Ok(i.to_string()),
            toml::Value::Boolean(b) => Ok(b.to_string()),
            other => Err(E::custom(format!("expected {what}, got {other}"))),
        }
    }

    fn string<E: serde::de::Error>(v: toml::Value, what: &str) -> Result<String, E> {
        match v {
            toml::Value::String(s) => Ok(s),
            other => Err(E::custom(format!("expected {what}, got {other}"))),
        }
    }

    pub fn path<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
        let text = string(value(d)?, "a path")?;
        parse_path(&text).map(Some).map_err(D::Error::custom)
    }

    pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        string(value(d)?, "a string").map(Some)
    }

    pub fn run_mode<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RunMode>, D::Error> {
        let v = value(d)?;
        let text = scalar_text(&v, "1, 2, 3, 4, 5 or \"all\"")?;
        parse_run_mode(&text)
            .map(Some)
            .map_err(|_| D::Error::custom(format!("{v} is not a mode; allowed values: 1, 2, 3, 4, 5, \"all\"")))
    }

    pub fn min_gap<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i32>, D::Error> {
        let v = value(d)?;
        let text = scalar_text(&v, "a whole number from 1 to 128")?;
        parse_min_gap(&text)
            .map(Some)
            .map_err(|_| D::Error::custom(format!("expected a whole number from 1 to 128, got {v}")))
    }

    pub fn limit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Limit>, D::Error> {
        let v = value(d)?;
        let text = scalar_text(&v, "-1 or a whole number from 0 up")?;
        parse_limit(&text).map(Some).map_err(D::Error::custom)
    }

    pub fn egbk_level<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Level>, D::Error> {
        let v = value(d)?;
        let text = scalar_text(&v, "a whole number from 0 to 60")?;
        parse_egbk_level(&text).map(Some).map_err(D::Error::custom)
    }

    /// A command line, or a list of engines, each a command line or a
    /// table with `command` and `workers`.
    pub fn engine<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<EngineEntry>, D::Error> {
        match value(d)? {
            toml::Value::Array(list) if list.is_empty() => {
                Err(D::Error::custom("expected at least one engine, got []"))
            }
            toml::Value::Array(list) => list.into_iter().map(engine_entry).collect(),
            single => Ok(vec![engine_entry(single)?]),
        }
    }

    fn engine_entry<E: serde::de::Error>(v: toml::Value) -> Result<EngineEntry, E> {
        const WHAT: &str = "an engine command line or a table { command = \"…\", workers = K, protocol = \"edax\" }";
        let toml::Value::Table(mut table) = v else {
            return parse_engine(&string(v, WHAT)?).map_err(E::custom);
        };
        let command = table.remove("command").ok_or_else(|| E::custom(format!("expected {WHAT}: no command")))?;
        let mut entry = parse_engine(&string(command, "an engine command line")?).map_err(E::custom)?;
        if let Some(workers) = table.remove("workers") {
            let text = scalar_text(&workers, "a whole number")?;
            entry.workers = Some(parse_workers(&text).map_err(E::custom)?);
        }
        if let Some(protocol) = table.remove("protocol") {
            let text = string(protocol.clone(), &format!("one of {}", allowed::<Protocol>()))?;
            let bad =
                || format!("an engine's protocol {protocol} is not allowed; allowed values: {}", allowed::<Protocol>());
            entry.protocol = Some(Protocol::named(text.trim()).ok_or_else(|| E::custom(bad()))?);
        }
        match table.keys().next() {
            Some(key) => {
                Err(E::custom(format!("an engine has no key {key:?}; its keys are command, workers and protocol")))
            }
            None => Ok(entry),
        }
    }

    /// A whole number read with `parse`, given as a number or as text.
    fn count<'de, D: Deserializer<'de>, T>(
        d: D,
        parse: fn(&str) -> Result<T, BadValue>,
    ) -> Result<Option<T>, D::Error> {
        let text = scalar_text(&value(d)?, "a whole number")?;
        parse(&text).map(Some).map_err(D::Error::custom)
    }

    pub fn workers<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
        count(d, parse_workers)
    }

    pub fn threads<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
        count(d, parse_threads)
    }

    pub fn engine_timeout<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        count(d, parse_timeout)
    }

    pub fn min_empties<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        count(d, parse_min_empties)
    }

    pub fn max_positions<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        count(d, parse_max_positions)
    }

    pub fn depth<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        count(d, parse_depth)
    }

    /// A real number read with `parse`, given as a number or as text.
    fn real<'de, D: Deserializer<'de>>(
        d: D,
        parse: fn(&str) -> Result<f64, BadValue>,
    ) -> Result<Option<f64>, D::Error> {
        let text = match value(d)? {
            toml::Value::Float(x) => x.to_string(),
            other => scalar_text(&other, "a number")?,
        };
        parse(&text).map(Some).map_err(D::Error::custom)
    }

    pub fn error_weight<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        real(d, parse_error_weight)
    }

    pub fn max_priority<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        real(d, parse_max_priority)
    }

    pub fn level<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Level>, D::Error> {
        let v = value(d)?;
        let text = scalar_text(&v, "a whole number from 0 to 60")?;
        parse_level(&text).map(Some).map_err(D::Error::custom)
    }

    pub fn max_seconds<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        real(d, parse_max_seconds)
    }

    pub fn progress_seconds<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        real(d, parse_progress_seconds)
    }

    pub fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        let v = value(d)?;
        let text = scalar_text(&v, "true or false")?;
        parse_bool(&text).map(Some).map_err(|_| D::Error::custom(format!("expected true or false, got {v}")))
    }

    pub fn choice<'de, D: Deserializer<'de>, T: Choice>(d: D) -> Result<Option<T>, D::Error> {
        let v = value(d)?;
        let text = string(v.clone(), &format!("one of {}", allowed::<T>()))?;
        T::named(text.trim())
            .map(Some)
            .ok_or_else(|| D::Error::custom(format!("{v} is not allowed; allowed values: {}", allowed::<T>())))
    }

    pub fn formats<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RecordFormats>, D::Error> {
        let text = string(value(d)?, "\"kifu\", \"jsonl\", \"obf\" or a comma-separated list of them")?;
        parse_formats(&text).map(Some).map_err(D::Error::custom)
    }
}

/// Mode 5's positions file when a config file names none, beside it.
const DEFAULT_POSITIONS: &str = "positions.txt";

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

/// A setting that cannot be used, with where it came from.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file could not be read at all.
    #[error("{}: cannot read: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{origin}: not valid UTF-8 text (line {line}, byte {byte})")]
    NotUtf8 {
        origin: String,
        line: usize,
        byte: usize,
        #[source]
        source: std::string::FromUtf8Error,
    },
    #[error("{origin}: not valid TOML: {}", clip(message, MESSAGE_LIMIT))]
    Syntax {
        origin: String,
        message: String,
        #[source]
        source: Box<toml::de::Error>,
    },
    /// One key's value (or the key itself) is bad.
    #[error("{origin}: key `{}`: {}", clip(key, 80), clip(message, MESSAGE_LIMIT))]
    Key {
        /// The config file, or "command line".
        origin: String,
        /// As written (a flag: `--min-gap`).
        key: String,
        message: String,
    },
}

impl ConfigError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            ConfigError::Unreadable { source, .. } => io_kind(source),
            ConfigError::NotUtf8 { .. } | ConfigError::Syntax { .. } | ConfigError::Key { .. } => ErrorKind::BadInput,
        }
    }

    /// The key (or flag) the problem is about, if it is one key's.
    #[cfg_attr(not(test), allow(dead_code))] // its tests' and the config fuzz target's
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Key { key, .. } => Some(key),
            _ => None,
        }
    }
}

/// A TOML error on one line: where (line and column, from 1) and what,
/// without the parser's drawing of the line.
fn syntax_message(text: &str, error: &toml::de::Error) -> String {
    let what = error.message().split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(at) = error.span().map(|span| span.start.min(text.len())) else { return what };
    let before = &text.as_bytes()[..at];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let column = 1 + String::from_utf8_lossy(&before[line_start..]).chars().count();
    format!("line {line}, column {column}: {what}")
}

/// The known key closest to a mistyped one (at most a third of its letters
/// off, and at least one), for "did you mean".
fn nearest<'k>(key: &str, known: &'k [String]) -> Option<&'k str> {
    let limit = (key.chars().count() / 3).max(1);
    let (distance, best) = known.iter().map(|k| (edit_distance(key, k), k)).min()?;
    (distance <= limit).then_some(best.as_str())
}

/// Levenshtein distance: letters inserted, removed or replaced.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let replaced = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = replaced.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// The most of a message that is shown: a message quotes the offending
/// text, and a line of a megabyte should not become a megabyte of error.
const MESSAGE_LIMIT: usize = 400;

/// `text`, cut to at most `limit` bytes (at a character boundary) with the
/// number of bytes left out said at the end.
fn clip(text: &str, limit: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= limit {
        return text.into();
    }
    let end = (0..=limit).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    format!("{}… ({} more bytes)", &text[..end], text.len() - end).into()
}

/// The folder a config file's relative paths, and its default `out_dir`
/// and positions file, are taken from: a regular file's own folder. Any
/// other (`/dev/null` for "no config", a pipe from `<(...)`) has no folder
/// of its own, so they are taken from the working directory, as without a
/// config; else `--config /dev/null` would write into `/dev/out`.
fn base_of(path: &Path) -> &Path {
    match path.parent() {
        Some(folder) if path.is_file() => folder,
        _ => Path::new(""),
    }
}

/// The largest config file read: a config is a few hundred bytes.
const CONFIG_LIMIT: u64 = 1 << 20;

impl Config {
    /// Reads a config file; relative paths in it are taken from its folder.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let bytes = bookminer::files::input::read_bounded(path, CONFIG_LIMIT)
            .map_err(|source| ConfigError::Unreadable { path: path.to_path_buf(), source })?;
        let origin = path.display().to_string();
        // Text that is not UTF-8 is a bad config (status 2), not a read failure
        // (3): say where it goes wrong so it can be fixed.
        let text = String::from_utf8(bytes).map_err(|source| {
            let byte = source.utf8_error().valid_up_to();
            let line = 1 + source.as_bytes()[..byte].iter().filter(|&&b| b == b'\n').count();
            ConfigError::NotUtf8 { origin: origin.clone(), line, byte, source }
        })?;
        Config::from_toml(&text, &origin, base_of(path))
    }

    /// Reads config text; `origin` names it in errors, `base` anchors relative paths.
    pub fn from_toml(text: &str, origin: &str, base: &Path) -> Result<Config, ConfigError> {
        let table: toml::Table = text.parse().map_err(|source: toml::de::Error| ConfigError::Syntax {
            origin: origin.to_string(),
            message: syntax_message(text, &source),
            source: Box::new(source),
        })?;
        let mut config = Config::default().rebased(base);
        let known = keys();
        let mut seen: Vec<String> = Vec::new();
        for (key, value) in table {
            let bad = |message: String| ConfigError::Key { origin: origin.to_string(), key: key.clone(), message };
            let lower = key.to_ascii_lowercase();
            if seen.contains(&lower) {
                return Err(bad("given twice (keys ignore case)".into()));
            }
            if !known.contains(&lower) {
                // The nearest key when one is near; every key only when none is.
                return Err(bad(match nearest(&lower, &known) {
                    Some(key) => format!("unknown key; did you mean `{key}`?"),
                    None => format!("unknown key; known keys: {}", known.join(", ")),
                }));
            }
            // One key at a time, so that an error is that key's.
            let mut single = toml::Table::new();
            single.insert(lower.clone(), value);
            let settings: Settings =
                single.try_into().map_err(|e: toml::de::Error| bad(e.message().trim().to_string()))?;
            config.apply(&settings, base).map_err(|e| bad(e.to_string()))?;
            seen.push(lower);
        }
        Ok(config)
    }

    /// Applies the flags given; their relative paths stay relative to the
    /// working directory. Clap has checked every value but `start`'s play.
    pub fn apply_flags(&mut self, settings: &Settings) -> Result<(), ConfigError> {
        self.apply(settings, Path::new("")).map_err(|e| ConfigError::Key {
            origin: "command line".into(),
            key: "--start".into(),
            message: e.to_string(),
        })
    }

    /// Applies one flag given as text (`key` as in the file), checked by the
    /// same parser as the command line.
    #[cfg_attr(not(test), allow(dead_code))] // its tests' and the config fuzz target's
    pub fn set_from_command_line(&mut self, key: &str, text: &str) -> Result<(), ConfigError> {
        let flag = format!("--{}", key.replace('_', "-"));
        let bad = |message: String| ConfigError::Key { origin: "command line".into(), key: flag.clone(), message };
        let flags = Flags::try_parse_from([format!("{flag}={text}")]).map_err(|e| {
            let rendered = e.render().to_string();
            bad(rendered.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string())
        })?;
        self.apply_flags(&flags.settings)
    }

    /// The default paths of a config file in `base`: its out_dir, and mode
    /// 5's positions.txt beside it (without a config file there is none).
    fn rebased(mut self, base: &Path) -> Config {
        self.out_dir = base.join(&self.out_dir);
        self.positions_file = Some(base.join(DEFAULT_POSITIONS));
        self
    }

    /// Stores the settings given, paths taken from `base`. Only `start` can
    /// still fail here: it is played to find the position.
    fn apply(&mut self, s: &Settings, base: &Path) -> Result<(), BadValue> {
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| base.join(p));
        if let Some(text) = &s.walk.start {
            self.start = start_of(text)?;
        }
        self.book = path(&s.book.book).or(self.book.take());
        self.out_dir = path(&s.line.out_dir).unwrap_or(std::mem::take(&mut self.out_dir));
        self.positions_file = path(&s.inspect.positions_file).or(self.positions_file.take());
        self.log_file = path(&s.log.log_file).or(self.log_file.take());
        self.progress_seconds = s.progress.progress_seconds.unwrap_or(self.progress_seconds);
        self.mode = s.mine.mode.unwrap_or(self.mode);
        self.min_gap = s.mine.min_gap.unwrap_or(self.min_gap);
        self.orientation = s.line.orientation.unwrap_or(self.orientation);
        self.pass_token = s.line.pass_token.clone().unwrap_or(std::mem::take(&mut self.pass_token));
        self.unique_lines = s.written.unique_lines.unwrap_or(self.unique_lines);
        self.mode1_linkless = s.mine.mode1_linkless.unwrap_or(self.mode1_linkless);
        self.log_level = s.log.log_level.unwrap_or(self.log_level);
        self.format = s.written.format.unwrap_or(self.format);
        self.bom = s.written.bom.unwrap_or(self.bom);
        self.window.deviation = s.walk.deviation.map_or(self.window.deviation, Limit::bound);
        self.window.error = s.walk.error.map_or(self.window.error, Limit::bound);
        self.window.max_ply = s.walk.max_ply.map_or(self.window.max_ply, Limit::bound);
        self.egbk_level = s.read.egbk_level.unwrap_or(self.egbk_level);
        self.threads = s.read.threads.unwrap_or(self.threads);
        if !s.engines.engine.is_empty() {
            self.engines = s.engines.engine.clone();
        }
        self.workers = s.engines.workers.or(self.workers);
        self.protocol = s.engines.engine_protocol.or(self.protocol);
        self.engine_timeout = s.engines.engine_timeout.unwrap_or(self.engine_timeout);
        self.min_empties = s.extend.min_empties.or(self.min_empties);
        self.max_positions = s.extend.max_positions.or(self.max_positions);
        self.error_weight = s.grow.error_weight.unwrap_or(self.error_weight);
        self.max_priority = s.grow.max_priority.or(self.max_priority);
        self.max_seconds = s.grow.stop.max_seconds.or(self.max_seconds);
        self.level = s.deepen.level.or(self.level);
        self.force = s.write.force.unwrap_or(self.force);
        self.depth = s.games.depth.or(self.depth);
        Ok(())
    }
}

/// The start position: the initial one for an empty kifu, else where the
/// kifu leads (passes inserted where forced).
fn start_of(text: &str) -> Result<Start, BadValue> {
    if text.trim().is_empty() {
        return Ok(Start::initial());
    }
    let (board, line) = kifu::parse_and_play(text).map_err(|e| BadValue(format!("{text:?}: {e}")))?;
    Ok(Start { board, line })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bookminer::output::RecordFormat;

    #[test]
    fn a_long_offending_line_is_clipped_in_the_message() {
        let text = format!("mode = \"{}é\"\n", "x".repeat(100_000));
        let e = Config::from_toml(&text, "big.toml", Path::new(".")).unwrap_err().to_string();
        assert!(e.starts_with("big.toml: key `mode`: "), "{e}");
        assert!(e.len() < 600, "{} bytes", e.len());
        assert!(e.ends_with("more bytes)"), "{e}");
    }

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::from_toml(text, "test.toml", Path::new("/base"))
    }

    fn message(e: &ConfigError) -> &str {
        match e {
            ConfigError::Key { message, .. } | ConfigError::Syntax { message, .. } => message,
            _ => "",
        }
    }

    #[test]
    fn defaults_take_paths_from_the_file_folder() {
        let c = parse("").unwrap();
        assert_eq!(c.book, None, "no book unless one is given");
        assert_eq!(c.mode, RunMode::Mine(Mode::LeafVsLinks));
        assert_eq!(c.log_file, None);
        assert_eq!((c.format, c.bom), (RecordFormats::KIFU, true));
        assert_eq!(parse("log_file = \"l.log\"").unwrap().log_file, Some(PathBuf::from("/base/l.log")));
    }

    #[test]
    fn keys_and_values_ignore_case() {
        let c = parse(
            "MODE = \"ALL\"\nOrientation = \"As-Walked\"\nLOG_LEVEL = \"Info\"\nMin_Gap = 2\nbook = \"/abs/B.dat\"",
        )
        .unwrap();
        assert_eq!(c.mode, RunMode::All);
        assert_eq!(c.orientation, Orientation::AsWalked);
        assert_eq!(c.min_gap, 2);
        assert_eq!(c.book, Some(PathBuf::from("/abs/B.dat")));
        assert_eq!(parse("pass_token = \"Ps\"").unwrap().pass_token, "Ps");
        assert_eq!(parse("MODE = 4\nOrientation = \"F5\"").unwrap().mode, RunMode::Mine(Mode::ParentVsBest));
        assert_eq!(parse("Mode1_Linkless = \"REPORT\"").unwrap().mode1_linkless, Linkless::Report);
    }

    #[test]
    fn format_takes_one_name_or_a_list_in_any_case() {
        let all = RecordFormats::of(&[RecordFormat::Kifu, RecordFormat::Jsonl, RecordFormat::Obf]);
        assert_eq!(parse("format = \"JSONL\"").unwrap().format, RecordFormats::of(&[RecordFormat::Jsonl]));
        assert_eq!(parse("Format = \"jsonl,obf,kifu\"").unwrap().format, all);
        assert_eq!(
            parse("format = \" Obf , KIFU,obf \"").unwrap().format,
            RecordFormats::of(&[RecordFormat::Kifu, RecordFormat::Obf])
        );
        for bad in ["\"\"", "\"kifu,\"", "\"csv\"", "\"kifu;jsonl\"", "1", "[\"kifu\"]"] {
            let e = parse(&format!("format = {bad}")).unwrap_err();
            assert_eq!(e.key(), Some("format"), "{bad}");
            assert!(e.to_string().contains("\"jsonl\"") && e.to_string().contains("\"obf\""), "{bad}: {e}");
        }
        let mut c = parse("").unwrap();
        c.set_from_command_line("format", "Kifu,JSONL").unwrap();
        assert_eq!(c.format, RecordFormats::of(&[RecordFormat::Kifu, RecordFormat::Jsonl]));
        let e = c.set_from_command_line("format", "").unwrap_err();
        assert_eq!(e.key(), Some("--format"));
    }

    #[test]
    fn bom_is_a_boolean() {
        assert!(!parse("bom = false").unwrap().bom);
        assert!(!parse("BOM = \"False\"").unwrap().bom);
        assert!(parse("bom = true").unwrap().bom);
        let e = parse("bom = \"no\"").unwrap_err();
        assert!(e.key() == Some("bom") && message(&e).contains("true or false"), "{e}");
        let mut c = Config::default();
        c.set_from_command_line("bom", "false").unwrap();
        assert!(!c.bom);
        assert!(c.set_from_command_line("bom", "0").is_err());
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key_and_the_choices() {
        let e = parse("colour = 1").unwrap_err();
        assert_eq!(e.key(), Some("colour"));
        assert!(message(&e).contains("known keys: book, mode,"), "{e}");
        let e = parse("mode = 6").unwrap_err();
        assert!(e.to_string().contains("key `mode`") && message(&e).contains("\"all\""), "{e}");
        let e = parse("orientation = \"f6\"").unwrap_err();
        assert!(message(&e).contains("\"as-walked\""), "{e}");
        assert!(parse("min_gap = 0").is_err());
        assert!(parse("unique_lines = \"maybe\"").is_err());
        assert!(message(&parse("mode = 1\nMODE = 2").unwrap_err()).contains("twice"));
        assert!(parse("mode = ").unwrap_err().to_string().contains("TOML"));
    }

    #[test]
    fn a_mistyped_key_gets_the_nearest_one_suggested() {
        let e = parse("devation = 2").unwrap_err();
        assert_eq!(message(&e), "unknown key; did you mean `deviation`?", "{e}");
        assert!(message(&parse("Min_Gapp = 2").unwrap_err()).contains("did you mean `min_gap`?"));
        assert!(!message(&parse("colour = 1").unwrap_err()).contains("did you mean"));
        assert_eq!(edit_distance("devation", "deviation"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_toml_error_is_one_line_naming_line_and_column() {
        let e = parse("mode = 1\nbook = [\n").unwrap_err().to_string();
        assert!(!e.contains('\n') && !e.contains('|') && !e.contains('^'), "{e}");
        assert!(e.starts_with("test.toml: not valid TOML: line 2, column "), "{e}");
        let e = parse("mode = 1\nstart = \"é\" x\n").unwrap_err().to_string();
        assert!(e.starts_with("test.toml: not valid TOML: line 2, column 13: "), "{e}");
    }

    #[test]
    fn window_limits_take_minus_one_for_none_and_refuse_other_negatives() {
        let c = parse("deviation = 2\nerror = \"0\"\nmax_ply = -1").unwrap();
        assert_eq!(c.window, Window { deviation: Some(2), error: Some(0), max_ply: None });
        for bad in ["deviation = -3", "max_ply = \"x\"", "error = 1.5", "deviation = 1001"] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.key(), bad.split(' ').next(), "{bad}: {e}");
            assert!(message(&e).contains("-1"), "{bad}: {e}");
        }
        let mut c = Config::default();
        c.set_from_command_line("max_ply", "-1").unwrap();
        c.set_from_command_line("deviation", "4").unwrap();
        assert_eq!(c.window, Window { deviation: Some(4), error: None, max_ply: None });
        assert_eq!(c.set_from_command_line("error", "-2").unwrap_err().key(), Some("--error"));
    }

    #[test]
    fn deepen_level_is_a_level() {
        assert_eq!(parse("").unwrap().level, None);
        assert_eq!(parse("LEVEL = 60").unwrap().level, Some(Level::MAX));
        assert_eq!(parse("level = 61").unwrap_err().key(), Some("level"));
    }

    #[test]
    fn egbk_level_is_a_level() {
        assert_eq!(parse("").unwrap().egbk_level, Level::new(1).unwrap());
        assert_eq!(parse("EGBK_LEVEL = 60").unwrap().egbk_level, Level::MAX);
        assert_eq!(parse("egbk_level = 61").unwrap_err().key(), Some("egbk_level"));
    }

    #[test]
    fn extend_keys_are_checked_once_for_file_and_flag() {
        let c =
            parse("engine = \"edax -q\"\nworkers = 3\nengine_timeout = \"30\"\nmin_empties = 14\nmax_positions = 0")
                .unwrap();
        assert_eq!(c.engines, [EngineEntry { command: "edax -q".into(), workers: None, protocol: None }]);
        assert_eq!((c.workers, c.engine_timeout, c.min_empties, c.max_positions), (Some(3), 30, Some(14), Some(0)));
        assert_eq!(parse("").unwrap().workers, None, "each protocol's default");
        for bad in ["engine = \" \"", "workers = 0", "engine_timeout = 0", "min_empties = 61", "max_positions = -1"] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.key(), bad.split(' ').next(), "{bad}: {e}");
        }
        let c = parse("engine = [\"a\", { command = \"ssh b edax\", workers = 8 }]").unwrap();
        assert_eq!(c.engines[1], EngineEntry { command: "ssh b edax".into(), workers: Some(8), protocol: None });
        assert_eq!(c.engines[0].workers, None);
        for bad in [
            "engine = []",
            "engine = [{ workers = 2 }]",
            "engine = [{ command = \"a\", workers = 0 }]",
            "engine = [{ command = \"a\", cores = 2 }]",
            "engine = 3",
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.key(), Some("engine"), "{bad}: {e}");
        }
        let mut c = Config::default();
        c.set_from_command_line("workers", "2").unwrap();
        assert_eq!(c.workers, Some(2));
        assert_eq!(c.set_from_command_line("workers", "x").unwrap_err().key(), Some("--workers"));
    }

    #[test]
    fn the_engines_protocol_is_told_unless_named_and_an_unknown_one_is_refused() {
        assert_eq!(parse("").unwrap().protocol, None);
        assert_eq!(parse("engine_protocol = \"Edax\"").unwrap().protocol, Some(Protocol::EdaxConsole));
        assert_eq!(parse("engine_protocol = \"egaroucid\"").unwrap().protocol, Some(Protocol::EgaroucidConsole));
        let c = parse("engine = [{ command = \"a\", protocol = \"egaroucid\" }]").unwrap();
        assert_eq!(c.engines[0].protocol, Some(Protocol::EgaroucidConsole));
        let e = parse("engine_protocol = \"uci\"").unwrap_err();
        assert!(e.key() == Some("engine_protocol") && message(&e).contains("allowed values: \"edax\""), "{e}");
        let e = parse("engine = [{ command = \"a\", protocol = \"uci\" }]").unwrap_err();
        assert!(e.key() == Some("engine") && message(&e).contains("allowed values: \"edax\""), "{e}");
        let mut c = Config::default();
        c.set_from_command_line("engine_protocol", "egaroucid").unwrap();
        assert_eq!(c.protocol, Some(Protocol::EgaroucidConsole));
        let e = c.set_from_command_line("engine_protocol", "uci").unwrap_err();
        assert_eq!(e.key(), Some("--engine-protocol"));
    }

    #[test]
    fn start_is_played_when_the_config_is_read() {
        let c = parse("start = \"f5d6\"").unwrap();
        assert_eq!(c.start.line.len(), 2);
        let e = parse("start = \"f5f5\"").unwrap_err();
        assert!(e.key() == Some("start") && e.to_string().contains("illegal"), "{e}");
        assert_eq!(parse("start = \"  \"").unwrap().start, Start::initial());
    }

    #[test]
    fn command_line_overrides_are_checked_the_same_way() {
        let mut c = parse("mode = 1").unwrap();
        c.set_from_command_line("mode", "all").unwrap();
        c.set_from_command_line("min_gap", "3").unwrap();
        c.set_from_command_line("unique_lines", "false").unwrap();
        c.set_from_command_line("out_dir", "rel").unwrap();
        c.set_from_command_line("log_level", "DEBUG").unwrap();
        assert_eq!((c.mode, c.min_gap, c.unique_lines), (RunMode::All, 3, false));
        assert_eq!(c.out_dir, PathBuf::from("rel"));
        assert_eq!(c.log_level, LogLevel::Debug);
        let e = c.set_from_command_line("mode", "x").unwrap_err();
        assert_eq!(e.key(), Some("--mode"));
        assert!(c.set_from_command_line("colour", "1").is_err());
    }

    #[test]
    fn force_is_a_flag_alone_or_with_a_value_and_a_file_key() {
        assert!(!parse("").unwrap().force, "nothing is replaced unasked");
        assert!(parse("force = true").unwrap().force);
        let given = |args: &[&str]| Flags::try_parse_from(args).map(|f| f.settings.write.force);
        assert_eq!(given(&["--force"]).unwrap(), Some(true));
        assert_eq!(given(&["--force=false"]).unwrap(), Some(false));
        assert_eq!(given(&[]).unwrap(), None);
        assert!(given(&["--force=maybe"]).is_err());
        let mut c = parse("force = true").unwrap();
        c.set_from_command_line("force", "false").unwrap();
        assert!(!c.force, "the flag overrides the file");
    }

    #[test]
    fn every_key_is_a_flag_and_a_file_key() {
        let keys = keys();
        assert_eq!(keys.len(), 32, "{keys:?}");
        assert_eq!(&keys[..3], ["book", "mode", "start"]);
        for key in &keys {
            let e = parse(&format!("{key} = []")).unwrap_err();
            assert_eq!(e.key(), Some(key.as_str()), "{e}");
        }
    }
}
