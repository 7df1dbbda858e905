//! The run's settings (SPEC §6): `config.toml`, then command-line overrides.
//! Keys and enumerated values are case-insensitive; every value is checked
//! once here, so the rest of the program works with typed settings.

use crate::modes::{Linkless, Mode};
use crate::output::Orientation;
use std::fmt;
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

/// Every setting of a run, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub book: PathBuf,
    pub mode: RunMode,
    /// Kifu prefix: walk only below the position it reaches.
    pub start: String,
    pub out_dir: PathBuf,
    pub min_gap: i32,
    pub orientation: Orientation,
    pub pass_token: String,
    pub unique_lines: bool,
    pub mode1_linkless: Linkless,
    pub positions_file: PathBuf,
    pub log_level: LogLevel,
    pub log_file: PathBuf,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            book: "books/sample.dat".into(),
            mode: RunMode::Mine(Mode::LeafVsLinks),
            start: String::new(),
            out_dir: "out".into(),
            min_gap: 1,
            orientation: Orientation::F5,
            pass_token: String::new(),
            unique_lines: true,
            mode1_linkless: Linkless::Skip,
            positions_file: "positions.txt".into(),
            log_level: LogLevel::Info,
            log_file: "out/debug.log".into(),
        }
    }
}

/// The keys, in the order the documentation lists them.
pub const KEYS: [&str; 12] = [
    "book",
    "mode",
    "start",
    "out_dir",
    "min_gap",
    "orientation",
    "pass_token",
    "unique_lines",
    "mode1_linkless",
    "positions_file",
    "log_level",
    "log_file",
];

/// A setting that cannot be used, with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The config file, or "command line".
    pub origin: String,
    /// The key, when the problem is one key's.
    pub key: Option<String>,
    pub message: String,
}

/// The most of a message that is shown: a message quotes the offending
/// text, and a line of a megabyte should not become a megabyte of error.
const MESSAGE_LIMIT: usize = 400;

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = clip(&self.message, MESSAGE_LIMIT);
        let key = self.key.as_deref().map(|k| clip(k, 80));
        match key {
            Some(key) => write!(f, "{}: key `{key}`: {message}", self.origin),
            None => write!(f, "{}: {message}", self.origin),
        }
    }
}

/// `text`, cut to at most `limit` bytes (at a character boundary) with the
/// number of bytes left out said at the end.
fn clip(text: &str, limit: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= limit {
        return text.into();
    }
    let end = (0..=limit).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    format!("{}… ({} more bytes)", &text[..end], text.len() - end).into()
}

impl std::error::Error for ConfigError {}

/// A value before it is checked: from TOML, or a command-line string.
#[derive(Clone, Debug)]
pub enum RawValue {
    Toml(toml::Value),
    Text(String),
}

impl RawValue {
    fn describe(&self) -> String {
        match self {
            RawValue::Toml(v) => v.to_string(),
            RawValue::Text(t) => format!("{t:?}"),
        }
    }

    fn as_text(&self) -> Option<&str> {
        match self {
            RawValue::Toml(toml::Value::String(s)) => Some(s),
            RawValue::Text(s) => Some(s),
            RawValue::Toml(_) => None,
        }
    }

    fn as_integer(&self) -> Option<i64> {
        match self {
            RawValue::Toml(toml::Value::Integer(i)) => Some(*i),
            RawValue::Toml(toml::Value::String(s)) | RawValue::Text(s) => s.trim().parse().ok(),
            RawValue::Toml(_) => None,
        }
    }

    fn as_bool(&self) -> Option<bool> {
        match self {
            RawValue::Toml(toml::Value::Boolean(b)) => Some(*b),
            RawValue::Toml(toml::Value::String(s)) | RawValue::Text(s) => match s.to_ascii_lowercase().as_str() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
            RawValue::Toml(_) => None,
        }
    }
}

/// Picks the choice whose name matches `value`, ignoring case.
fn choose<T: Copy>(value: &RawValue, choices: &[(&str, T)]) -> Result<T, String> {
    let allowed = || choices.iter().map(|(n, _)| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
    let text = value.as_text().ok_or_else(|| format!("expected one of {}, got {}", allowed(), value.describe()))?;
    choices
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(text.trim()))
        .map(|&(_, v)| v)
        .ok_or_else(|| format!("{} is not allowed; allowed values: {}", value.describe(), allowed()))
}

impl Config {
    /// Reads a config file; relative paths in it are taken from its folder.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let origin = path.display().to_string();
        let bytes = std::fs::read(path)
            .map_err(|e| ConfigError { origin: origin.clone(), key: None, message: format!("cannot read: {e}") })?;
        // Text that is not UTF-8 is a bad config (status 2), not a read failure
        // (3): say where it goes wrong so it can be fixed.
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let line = 1 + e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count();
            ConfigError { origin: origin.clone(), key: None, message: format!("not valid UTF-8 text (line {line}, byte {at})") }
        })?;
        let base = path.parent().unwrap_or(Path::new(""));
        Config::from_toml(&text, &origin, base)
    }

    /// Reads config text; `origin` names it in errors, `base` anchors relative paths.
    pub fn from_toml(text: &str, origin: &str, base: &Path) -> Result<Config, ConfigError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ConfigError {
            origin: origin.to_string(),
            key: None,
            message: format!("not valid TOML: {}", e.to_string().trim_end().replace('\n', " ")),
        })?;
        let mut config = Config::default().rebased(base);
        let mut seen: Vec<String> = Vec::new();
        for (key, value) in table {
            let lower = key.to_ascii_lowercase();
            if seen.contains(&lower) {
                return Err(ConfigError {
                    origin: origin.to_string(),
                    key: Some(key),
                    message: "given twice (keys ignore case)".into(),
                });
            }
            config.set(&lower, &RawValue::Toml(value), base).map_err(|message| ConfigError {
                origin: origin.to_string(),
                key: Some(key.clone()),
                message,
            })?;
            seen.push(lower);
        }
        Ok(config)
    }

    /// Applies a command-line override; relative paths stay relative to the
    /// working directory.
    pub fn set_from_command_line(&mut self, key: &str, text: &str) -> Result<(), ConfigError> {
        self.set(key, &RawValue::Text(text.to_string()), Path::new("")).map_err(|message| ConfigError {
            origin: "command line".into(),
            key: Some(format!("--{}", key.replace('_', "-"))),
            message,
        })
    }

    /// The default paths, taken from `base`.
    fn rebased(mut self, base: &Path) -> Config {
        for path in [&mut self.book, &mut self.out_dir, &mut self.positions_file, &mut self.log_file] {
            *path = base.join(&*path);
        }
        self
    }

    /// Checks and stores one key (already lower case).
    fn set(&mut self, key: &str, value: &RawValue, base: &Path) -> Result<(), String> {
        let path = |v: &RawValue| -> Result<PathBuf, String> {
            match v.as_text() {
                Some(t) if !t.is_empty() => Ok(base.join(t)),
                _ => Err(format!("expected a path, got {}", v.describe())),
            }
        };
        let text = |v: &RawValue| v.as_text().map(str::to_string).ok_or_else(|| format!("expected a string, got {}", v.describe()));
        match key {
            "book" => self.book = path(value)?,
            "mode" => self.mode = parse_mode(value)?,
            "start" => self.start = text(value)?,
            "out_dir" => self.out_dir = path(value)?,
            "min_gap" => {
                self.min_gap = value
                    .as_integer()
                    .filter(|g| (1..=128).contains(g))
                    .ok_or_else(|| format!("expected a whole number from 1 to 128, got {}", value.describe()))?
                    as i32
            }
            "orientation" => {
                self.orientation = choose(value, &[("f5", Orientation::F5), ("as-walked", Orientation::AsWalked)])?
            }
            "pass_token" => self.pass_token = text(value)?,
            "unique_lines" => {
                self.unique_lines =
                    value.as_bool().ok_or_else(|| format!("expected true or false, got {}", value.describe()))?
            }
            "mode1_linkless" => {
                self.mode1_linkless = choose(value, &[("skip", Linkless::Skip), ("report", Linkless::Report)])?
            }
            "positions_file" => self.positions_file = path(value)?,
            "log_level" => {
                self.log_level = choose(
                    value,
                    &[
                        ("error", LogLevel::Error),
                        ("warn", LogLevel::Warn),
                        ("info", LogLevel::Info),
                        ("debug", LogLevel::Debug),
                        ("trace", LogLevel::Trace),
                    ],
                )?
            }
            "log_file" => self.log_file = path(value)?,
            _ => return Err(format!("unknown key; known keys: {}", KEYS.join(", "))),
        }
        Ok(())
    }
}

fn parse_mode(value: &RawValue) -> Result<RunMode, String> {
    let bad = || format!("{} is not a mode; allowed values: 1, 2, 3, 4, 5, \"all\"", value.describe());
    if let Some(n) = value.as_integer() {
        return match n {
            5 => Ok(RunMode::Inspect),
            1..=4 => Ok(RunMode::Mine(Mode::from_number(n as u8).expect("1..=4"))),
            _ => Err(bad()),
        };
    }
    match value.as_text() {
        Some(t) if t.trim().eq_ignore_ascii_case("all") => Ok(RunMode::All),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn defaults_take_paths_from_the_file_folder() {
        let c = parse("").unwrap();
        assert_eq!(c.book, PathBuf::from("/base/books/sample.dat"));
        assert_eq!(c.mode, RunMode::Mine(Mode::LeafVsLinks));
        assert_eq!(c.log_file, PathBuf::from("/base/out/debug.log"));
    }

    #[test]
    fn keys_and_values_ignore_case() {
        let c = parse("MODE = \"ALL\"\nOrientation = \"As-Walked\"\nLOG_LEVEL = \"Info\"\nMin_Gap = 2\nbook = \"/abs/B.dat\"")
            .unwrap();
        assert_eq!(c.mode, RunMode::All);
        assert_eq!(c.orientation, Orientation::AsWalked);
        assert_eq!(c.min_gap, 2);
        assert_eq!(c.book, PathBuf::from("/abs/B.dat"));
        assert_eq!(parse("pass_token = \"Ps\"").unwrap().pass_token, "Ps");
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key_and_the_choices() {
        let e = parse("colour = 1").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("colour"));
        assert!(e.message.contains("known keys: book, mode"), "{e}");
        let e = parse("mode = 6").unwrap_err();
        assert!(e.to_string().contains("key `mode`") && e.message.contains("\"all\""), "{e}");
        let e = parse("orientation = \"f6\"").unwrap_err();
        assert!(e.message.contains("\"as-walked\""), "{e}");
        assert!(parse("min_gap = 0").is_err());
        assert!(parse("unique_lines = \"maybe\"").is_err());
        assert!(parse("mode = 1\nMODE = 2").unwrap_err().message.contains("twice"));
        assert!(parse("mode = ").unwrap_err().message.contains("TOML"));
    }

    #[test]
    fn command_line_overrides_are_checked_the_same_way() {
        let mut c = parse("mode = 1").unwrap();
        c.set_from_command_line("mode", "all").unwrap();
        c.set_from_command_line("min_gap", "3").unwrap();
        c.set_from_command_line("unique_lines", "false").unwrap();
        c.set_from_command_line("out_dir", "rel").unwrap();
        assert_eq!((c.mode, c.min_gap, c.unique_lines), (RunMode::All, 3, false));
        assert_eq!(c.out_dir, PathBuf::from("rel"));
        let e = c.set_from_command_line("mode", "x").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("--mode"));
    }
}
