//! The run's settings (README.md, configuration): `config.toml`, then command-line flags over it.
//!
//! Every key is defined once (`key::Key`, in `keys/`): its flag (clap) and
//! its config file key are made from the same definition, and both read
//! its value with the same parser; where it lands, and its default, are
//! its theme's values, declared beside it. Keys and enumerated values are
//! case-insensitive; every value is checked here, so the rest of the
//! program works with a typed [`Config`].

mod error;
mod file;
mod given;
mod group;
mod key;
mod keys;
mod parse;
mod values;

pub use error::ConfigError;
#[allow(unused_imports)] // the config fuzz target's
pub use given::keys;
pub use given::Settings;
pub use keys::{
    BookKeys, DeepenKeys, EngineEntry, EngineKeys, ExtendKeys, GamesKeys, GrowKeys, InspectKeys, LineKeys, LogKeys,
    LogLevel, MineKeys, MiningModeParser, ProgressKeys, ReadKeys, RunMode, StopKeys, WalkKeys, WriteKeys, WrittenKeys,
    MINING_MODE_HELP,
};
pub use parse::choice;
pub use values::Config;
