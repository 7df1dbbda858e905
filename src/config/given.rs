//! The settings as given on the command line, each key once: a flag
//! (`--min-gap 2`) of the group a command takes, landed in [`Config`] over
//! the config file's values.

use super::error::ConfigError;
use super::keys::{
    BookKeys, DeepenKeys, EngineKeys, ExtendKeys, GamesKeys, GrowKeys, InspectKeys, LineKeys, LogKeys, MineKeys,
    ProgressKeys, ReadKeys, WalkKeys, WriteKeys, WrittenKeys,
};
use super::values::Config;
use clap::{Args, Parser};
use std::path::Path;

/// The settings as given, each key once: a flag (`--min-gap 2`) and a key of
/// config.toml (`min_gap = 2`). The keys come in groups, so that each
/// command takes (and its `--help` shows) only the ones it uses;
/// `display_order` keeps the order the keys were first listed in.
#[derive(Args, Debug, Default, Clone)]
pub struct Settings {
    #[command(flatten)]
    pub book: BookKeys,
    #[command(flatten)]
    pub read: ReadKeys,
    #[command(flatten)]
    pub log: LogKeys,
    #[command(flatten)]
    pub progress: ProgressKeys,
    #[command(flatten)]
    pub mine: MineKeys,
    #[command(flatten)]
    pub written: WrittenKeys,
    #[command(flatten)]
    pub line: LineKeys,
    #[command(flatten)]
    pub walk: WalkKeys,
    #[command(flatten)]
    pub inspect: InspectKeys,
    #[command(flatten)]
    pub engines: EngineKeys,
    #[command(flatten)]
    pub extend: ExtendKeys,
    #[command(flatten)]
    pub grow: GrowKeys,
    #[command(flatten)]
    pub deepen: DeepenKeys,
    #[command(flatten)]
    pub write: WriteKeys,
    #[command(flatten)]
    pub games: GamesKeys,
}

impl Settings {
    /// What each group was given, in the order of the groups.
    fn given(&self) -> [&super::group::Given; 16] {
        [
            &self.walk.given,
            &self.book.given,
            &self.read.given,
            &self.log.given,
            &self.progress.given,
            &self.mine.given,
            &self.written.given,
            &self.line.given,
            &self.inspect.given,
            &self.engines.given,
            &self.extend.given,
            &self.grow.given,
            &self.grow.stop.given,
            &self.deepen.given,
            &self.write.given,
            &self.games.given,
        ]
    }
}

/// The settings alone as a command line, to check one flag at a time.
#[derive(Parser, Debug)]
#[command(name = "bookminer", no_binary_name = true, disable_help_flag = true)]
pub struct Flags {
    /// The keys, every group.
    #[command(flatten)]
    pub settings: Settings,
}

impl Config {
    /// Applies the flags given; their relative paths stay relative to the
    /// working directory. Clap has checked every value but `start`'s play.
    pub fn apply_flags(&mut self, settings: &Settings) -> Result<(), ConfigError> {
        for given in settings.given() {
            given.apply(self, Path::new("")).map_err(|(long, e)| ConfigError::Key {
                origin: "command line".into(),
                key: format!("--{long}"),
                message: e.to_string(),
            })?;
        }
        Ok(())
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
}

#[cfg(test)]
mod tests {
    use crate::config::file::parse;
    use crate::config::values::{LogLevel, RunMode};
    use std::path::PathBuf;

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
}
