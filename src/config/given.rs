//! The settings as given on the command line, each key once: a flag
//! (`--min-gap 2`) of the group a command takes, landed in [`Config`] over
//! the config file's values; and every key, as the groups name them.

use super::error::ConfigError;
use super::group::Group;
use super::key::AnyKey;
use super::keys::{
    BookKeys, DeepenKeys, EngineKeys, ExtendKeys, GamesKeys, GrowKeys, InspectKeys, LineKeys, LogKeys, MineKeys,
    ProgressKeys, ReadKeys, WalkKeys, WriteKeys, WrittenKeys,
};
use super::parse::BadValue;
use super::values::{Config, Part};
use clap::{Args, Parser};
use std::path::Path;

/// Declares [`Settings`], a field a group, and [`Settings::groups`], the
/// same fields in the same order: a group is named once.
macro_rules! settings {
    ($($field:ident: $group:ty),* $(,)?) => {
        /// The settings as given, each key once: a flag (`--min-gap 2`) and a key of
        /// config.toml (`min_gap = 2`). The keys come in groups, so that each
        /// command takes (and its `--help` shows) only the ones it uses;
        /// `display_order` keeps the order the keys were first listed in.
        #[derive(Args, Debug, Default, Clone)]
        pub struct Settings {
            $(
                #[command(flatten)]
                pub $field: $group,
            )*
        }

        impl Settings {
            /// Every group, in the order of the flags' declaration (a group within
            /// one, `grow`'s `stop`, with it).
            fn groups(&self) -> Vec<&dyn Landing> {
                vec![$(&self.$field),*]
            }
        }
    };
}

settings!(
    book: BookKeys,
    read: ReadKeys,
    log: LogKeys,
    progress: ProgressKeys,
    mine: MineKeys,
    written: WrittenKeys,
    line: LineKeys,
    walk: WalkKeys,
    inspect: InspectKeys,
    engines: EngineKeys,
    extend: ExtendKeys,
    grow: GrowKeys,
    deepen: DeepenKeys,
    write: WriteKeys,
    games: GamesKeys,
);

/// A group as the whole config takes it: its keys landed in their theme's part.
trait Landing {
    /// What the command line gave of the group landed in `config`; the error names the flag.
    fn land(&self, config: &mut Config, base: &Path) -> Result<(), (&'static str, BadValue)>;
    /// The group's keys, as the whole config reads them.
    fn keys(&self) -> Vec<Box<dyn ConfigKey>>;
}

impl<G: Group> Landing for G
where
    G::Values: Part,
{
    fn land(&self, config: &mut Config, base: &Path) -> Result<(), (&'static str, BadValue)> {
        self.apply(G::Values::of(config), base)
    }

    fn keys(&self) -> Vec<Box<dyn ConfigKey>> {
        G::every_key().into_iter().map(|key| Box::new(InConfig(key)) as Box<dyn ConfigKey>).collect()
    }
}

/// A key of any theme as the whole config takes it: the config file's
/// reading, the known keys, docs/usage.md's table.
pub trait ConfigKey {
    /// The config file's key.
    fn name(&self) -> &'static str;
    /// Where `--help` and the docs' table list it.
    fn order(&self) -> usize;
    /// The flag's long name.
    #[cfg_attr(not(test), allow(dead_code))] // the tests'
    fn long(&self) -> &'static str;
    /// The config file's value landed in `config`; the message says what was wrong.
    fn read(&self, config: &mut Config, value: toml::Value, base: &Path) -> Result<(), String>;
    /// The key's row of docs/usage.md's key table.
    #[cfg(test)]
    fn row(&self) -> String;
    /// The default as docs/usage.md's key table says it.
    #[cfg(test)]
    fn default_shown(&self) -> &'static str;
}

/// A key whose values land in the theme `S`, a part of the whole config.
struct InConfig<S: 'static>(&'static dyn AnyKey<S>);

impl<S: Part> ConfigKey for InConfig<S> {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn order(&self) -> usize {
        self.0.order()
    }

    fn long(&self) -> &'static str {
        self.0.long()
    }

    fn read(&self, config: &mut Config, value: toml::Value, base: &Path) -> Result<(), String> {
        self.0.read(S::of(config), value, base)
    }

    #[cfg(test)]
    fn row(&self) -> String {
        self.0.row()
    }

    #[cfg(test)]
    fn default_shown(&self) -> &'static str {
        self.0.default_shown()
    }
}

/// Every key, each once, in the order the documentation lists them (the
/// flags' display order; a tie in the order the groups declare them): what
/// "known keys" names, and docs/usage.md's table. Made from the groups:
/// a key in no group is no key.
pub fn all() -> Vec<Box<dyn ConfigKey>> {
    let mut keys: Vec<Box<dyn ConfigKey>> = Vec::new();
    for key in Settings::default().groups().into_iter().flat_map(Landing::keys) {
        if keys.iter().all(|known| known.name() != key.name()) {
            keys.push(key);
        }
    }
    keys.sort_by_key(|key| key.order());
    keys
}

/// The names of the keys, in the order the documentation lists them.
pub fn keys() -> Vec<String> {
    all().iter().map(|key| key.name().to_string()).collect()
}

/// docs/usage.md's key table, made from the definitions.
#[cfg(test)]
pub fn table() -> String {
    let rows = all().iter().map(|key| key.row()).collect::<Vec<_>>();
    ["| key | default | meaning |".to_string(), "|---|---|---|".to_string()]
        .into_iter()
        .chain(rows)
        .collect::<Vec<_>>()
        .join("\n")
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
        for group in settings.groups() {
            group.land(self, Path::new("")).map_err(|(long, e)| ConfigError::Key {
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
    use super::*;
    use crate::config::file::parse;
    use crate::config::keys::{LogLevel, RunMode};
    use std::path::PathBuf;

    #[test]
    fn every_key_is_a_flag_and_a_file_key() {
        let keys = keys();
        assert!(keys.len() >= 32, "the keys were found: {keys:?}");
        assert_eq!(&keys[..3], ["book", "mode", "start"]);
        for key in &keys {
            let e = parse(&format!("{key} = []")).unwrap_err();
            assert_eq!(e.key(), Some(key.as_str()), "{e}");
        }
        let flags = <Flags as clap::CommandFactory>::command();
        let mut declared: Vec<_> =
            flags.get_arguments().map(|a| (a.get_display_order(), a.get_id().to_string())).collect();
        declared.sort_by_key(|(order, _)| *order);
        let declared: Vec<String> = declared.into_iter().map(|(_, id)| id).collect();
        assert_eq!(declared, keys, "each key a flag, in the flags' display order");
    }

    #[test]
    fn each_flag_is_its_key_with_dashes() {
        for key in all() {
            assert_eq!(key.long(), key.name().replace('_', "-"));
        }
    }

    /// docs/usage.md's table of keys is the one the definitions make.
    #[test]
    fn the_docs_key_table_is_made_from_the_definitions() {
        let usage = include_str!("../../docs/usage.md");
        assert!(usage.contains(&format!("\n{}\n\n", table())), "docs/usage.md's key table is not:\n{}", table());
    }

    /// Where docs/usage.md's table states a default as a value (`1`,
    /// `"out"`, 30), a config file giving that value changes nothing: the
    /// docs say the default each theme's values declare. The others say in
    /// words what an absent value means ("none", "the cores").
    #[test]
    fn each_default_the_docs_state_is_the_value_a_config_starts_with() {
        let mut stated = Vec::new();
        for key in all() {
            let shown = key.default_shown();
            let value = shown.strip_prefix('`').and_then(|s| s.strip_suffix('`')).filter(|s| !s.contains('`'));
            let Some(value) = value.or(shown.parse::<f64>().is_ok().then_some(shown)) else { continue };
            let given = parse(&format!("{} = {value}", key.name())).unwrap();
            assert_eq!(given, parse("").unwrap(), "{} = {value} is not the default", key.name());
            stated.push(key.name());
        }
        assert!(stated.len() >= 20, "the defaults were read: {stated:?}");
    }

    #[test]
    fn command_line_overrides_are_checked_the_same_way() {
        let mut c = parse("mode = 1").unwrap();
        c.set_from_command_line("mode", "all").unwrap();
        c.set_from_command_line("min_gap", "3").unwrap();
        c.set_from_command_line("unique_lines", "false").unwrap();
        c.set_from_command_line("out_dir", "rel").unwrap();
        c.set_from_command_line("log_level", "DEBUG").unwrap();
        assert_eq!((c.mine.mode, c.mine.min_gap, c.lines.unique_lines), (RunMode::All, 3, false));
        assert_eq!(c.lines.out_dir, PathBuf::from("rel"));
        assert_eq!(c.log.log_level, LogLevel::Debug);
        let e = c.set_from_command_line("mode", "x").unwrap_err();
        assert_eq!(e.key(), Some("--mode"));
        assert!(c.set_from_command_line("colour", "1").is_err());
    }
}
