//! Every key, defined once (`key::Key`), in the groups the commands take:
//! a file a theme, each key with its name, flag, help, parser, reading
//! from the config file, docs row and where it lands, its theme's values
//! (with their defaults) beside it, and their tests. No list of the keys
//! is kept by hand: the groups name them (`given::all`).

mod books;
mod engines;
mod growth;
mod lines;
mod log;
mod mine;
mod walk;
mod write;

pub use books::{BookKeys, Books, ReadKeys};
pub use engines::{EngineEntry, EngineKeys, Engines};
pub use growth::{DeepenKeys, ExtendKeys, GamesKeys, GrowKeys, Growth, StopKeys};
pub use lines::{LineKeys, Lines, WrittenKeys};
pub use log::{Log, LogKeys, LogLevel, ProgressKeys};
pub use mine::{InspectKeys, Mine, MineKeys, MiningModeParser, RunMode, MINING_MODE_HELP};
pub use walk::{Walk, WalkKeys};
pub use write::{Write, WriteKeys};
