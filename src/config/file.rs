//! The config file read: TOML, each key's value taken through the key's
//! own definition (the flag's parser), relative paths from the file's
//! folder; an unknown key gets the nearest one suggested.

use super::error::ConfigError;
use super::given::{all, keys};
use super::values::Config;
use std::path::Path;

/// Mode 5's positions file when a config file names none, beside it.
const DEFAULT_POSITIONS: &str = "positions.txt";

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
        let every = all();
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
            // Each value through its key's own parser, as the flag's text.
            let key = every.iter().find(|k| k.name() == lower).expect("a known key");
            key.read(&mut config, value, base).map_err(bad)?;
            seen.push(lower);
        }
        Ok(config)
    }

    /// The default paths of a config file in `base`: its out_dir, and mode
    /// 5's positions.txt beside it (without a config file there is none).
    fn rebased(mut self, base: &Path) -> Config {
        self.lines.out_dir = base.join(&self.lines.out_dir);
        self.mine.positions_file = Some(base.join(DEFAULT_POSITIONS));
        self
    }
}

/// Config text read as a file in /base names it, for the keys' tests.
#[cfg(test)]
pub fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::from_toml(text, "test.toml", Path::new("/base"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::keys::RunMode;
    use bookminer::rules::modes::Mode;
    use std::path::PathBuf;

    #[test]
    fn a_long_offending_line_is_clipped_in_the_message() {
        let text = format!("mode = \"{}é\"\n", "x".repeat(100_000));
        let e = Config::from_toml(&text, "big.toml", Path::new(".")).unwrap_err().to_string();
        assert!(e.starts_with("big.toml: key `mode`: "), "{e}");
        assert!(e.len() < 600, "{} bytes", e.len());
        assert!(e.ends_with("more bytes)"), "{e}");
    }

    #[test]
    fn defaults_take_paths_from_the_file_folder() {
        let c = parse("").unwrap();
        assert_eq!(c.books.book, None, "no book unless one is given");
        assert_eq!(c.mine.mode, RunMode::Mine(Mode::LeafVsLinks));
        assert_eq!(c.log.log_file, None);
        assert_eq!(parse("log_file = \"l.log\"").unwrap().log.log_file, Some(PathBuf::from("/base/l.log")));
        assert_eq!(parse("").unwrap().mine.positions_file, Some(PathBuf::from("/base/positions.txt")));
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key_and_the_choices() {
        let e = parse("colour = 1").unwrap_err();
        assert_eq!(e.key(), Some("colour"));
        assert!(e.message().contains("known keys: book, mode,"), "{e}");
        let e = parse("mode = 6").unwrap_err();
        assert!(e.to_string().contains("key `mode`") && e.message().contains("\"all\""), "{e}");
        let e = parse("orientation = \"f6\"").unwrap_err();
        assert!(e.message().contains("\"as-walked\""), "{e}");
        assert!(parse("min_gap = 0").is_err());
        assert!(parse("unique_lines = \"maybe\"").is_err());
        assert!(parse("mode = 1\nMODE = 2").unwrap_err().message().contains("twice"));
        assert!(parse("mode = ").unwrap_err().to_string().contains("TOML"));
    }

    #[test]
    fn a_mistyped_key_gets_the_nearest_one_suggested() {
        let e = parse("devation = 2").unwrap_err();
        assert_eq!(e.message(), "unknown key; did you mean `deviation`?", "{e}");
        assert!(parse("Min_Gapp = 2").unwrap_err().message().contains("did you mean `min_gap`?"));
        assert!(!parse("colour = 1").unwrap_err().message().contains("did you mean"));
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
    fn a_date_is_taken_as_its_text() {
        assert_eq!(parse("book = 2026-01-01").unwrap().books.book, Some(PathBuf::from("/base/2026-01-01")));
        let e = parse("min_gap = 2026-01-01").unwrap_err();
        assert_eq!(
            e.to_string(),
            "test.toml: key `min_gap`: expected a whole number from 1 to 128, got \"2026-01-01\""
        );
    }
}
