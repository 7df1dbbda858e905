//! What a run logs, and how a long run says how far it has come: `log_level`, `log_file`, `progress_seconds`.

use crate::config::group::{group, values};
use crate::config::key::{File, Flag, Key, Land};
use crate::config::parse::{allowed, parse_named, parse_path, parse_real, possible_values};
use bookminer::choice::Choice;
use std::path::PathBuf;

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

values!(
    /// What a run logs, and how often a long run says how far it has come: `config.log`.
    Log {
        /// How much is logged.
        log_level: LogLevel = LogLevel::Info,
        /// The log file, only when one was asked for (flag or config key): a
        /// run writes no file the user did not name or expect.
        log_file: Option<PathBuf> = None,
        /// Seconds between a long run's progress lines; 0: none.
        progress_seconds: f64 = 30.0,
    }
);

/// `log_level`: how much is logged
pub static LOG_LEVEL: Key<LogLevel, Log> = Key {
    name: "log_level",
    long: "log-level",
    short: None,
    value_name: "LEVEL",
    order: 10,
    help: "How much to log [config: log_level]",
    default: "`\"info\"`",
    doc: "`error`, `warn`, `info`, `debug`, `trace`: what the log file gets; standard error shows warnings and \
         errors (errors alone at `error`), and `-v` more",
    flag: Flag::Named(possible_values::<LogLevel>),
    file: File::Named(allowed::<LogLevel>),
    parse: parse_named,
    land: Land::Set(|c, level, _| c.log_level = level),
};

/// `log_file`: the log file, only when one is named
pub static LOG_FILE: Key<PathBuf, Log> = Key {
    name: "log_file",
    long: "log-file",
    short: None,
    value_name: "FILE",
    order: 11,
    help: "Log file, UTF-8 with BOM, time-stamped lines; none unless given. Created once the inputs are read and \
          found good; never one of the run's inputs or outputs [config: log_file]",
    default: "none",
    doc: "a time-stamped copy of the log (UTF-8 with BOM), written only when this key or `--log-file` names it, and \
         created only once the command's inputs have been read and found good (a run that fails at once leaves no \
         file); a file the command reads or writes (book, config, positions file, OUT, `fix.jsonl`, mining's \
         `mode{N}.*`, by any path) is refused (status 2); a device or pipe is written to, not replaced",
    flag: Flag::Path,
    file: File::Text("a path"),
    parse: parse_path,
    land: Land::Set(|c, path, base| c.log_file = Some(base.join(path))),
};

/// `progress_seconds`: seconds between a long run's progress lines
pub static PROGRESS_SECONDS: Key<f64, Log> = Key {
    name: "progress_seconds",
    long: "progress-seconds",
    short: None,
    value_name: "SECONDS",
    order: 12,
    help: "Seconds between the progress lines of a long run (counts, rate, engines' use), written to the log and, \
          when it is not a terminal, to standard error; 0: none [config: progress_seconds]",
    default: "30",
    doc: "seconds between the progress lines of a long run (extend, grow, merge, the walk of mine, fix, cut, \
         convert, synth): the stage, its counts, rate and share done, the engines' use and, for grow, the least \
         priority left and how many frontier positions lie at or under `max_priority`; written to the log file \
         and, when standard error is not a terminal (where the bar shows), to standard error (`-q` keeps them off \
         it); `kill -USR1 PID` asks for one at once; 0: none",
    flag: Flag::Value,
    file: File::Number,
    parse: |text| parse_real(text, 1e9),
    land: Land::Set(|c, seconds, _| c.progress_seconds = seconds),
};

group!(
    /// Logging: every command.
    LogKeys of Log: LOG_LEVEL, LOG_FILE
);

group!(
    /// How a long run (a walk, a book written, engines searching) says how
    /// far it has come where no bar is drawn.
    ProgressKeys of Log: PROGRESS_SECONDS
);
