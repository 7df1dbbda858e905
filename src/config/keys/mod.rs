//! Every key, defined once (`key::Key`), in the groups the commands take:
//! a file a theme, each key with its name, flag, help, parser, reading
//! from the config file, docs row and where it lands, and their tests.

mod books;
mod engines;
mod growth;
mod lines;
mod log;
mod mine;
mod walk;
mod write;

use crate::config::key::AnyKey;

pub use books::{BookKeys, ReadKeys};
pub use engines::EngineKeys;
pub use growth::{DeepenKeys, ExtendKeys, GamesKeys, GrowKeys, StopKeys};
pub use lines::{LineKeys, WrittenKeys};
pub use log::{LogKeys, ProgressKeys};
pub use mine::{InspectKeys, MineKeys, MiningModeParser, MINING_MODE_HELP};
pub use walk::WalkKeys;
pub use write::WriteKeys;

/// Every key, in the order the documentation lists them (the flags'
/// display order): what "known keys" names, and docs/usage.md's table.
pub static ALL: &[&dyn AnyKey] = &[
    &books::BOOK,
    &mine::MODE,
    &walk::START,
    &lines::OUT_DIR,
    &mine::MIN_GAP,
    &lines::ORIENTATION,
    &lines::PASS_TOKEN,
    &lines::UNIQUE_LINES,
    &mine::MODE1_LINKLESS,
    &mine::POSITIONS_FILE,
    &log::LOG_LEVEL,
    &log::LOG_FILE,
    &log::PROGRESS_SECONDS,
    &lines::FORMAT,
    &lines::BOM,
    &walk::DEVIATION,
    &walk::ERROR,
    &walk::MAX_PLY,
    &books::EGBK_LEVEL,
    &books::THREADS,
    &engines::ENGINE,
    &engines::WORKERS,
    &engines::ENGINE_PROTOCOL,
    &engines::ENGINE_TIMEOUT,
    &growth::MIN_EMPTIES,
    &growth::MAX_POSITIONS,
    &growth::ERROR_WEIGHT,
    &growth::MAX_PRIORITY,
    &growth::MAX_SECONDS,
    &growth::LEVEL,
    &write::FORCE,
    &growth::DEPTH,
];

/// The names of the keys, in the order the documentation lists them.
#[cfg_attr(not(test), allow(dead_code))] // the tests' and the config fuzz target's
pub fn keys() -> Vec<String> {
    ALL.iter().map(|key| key.name().to_string()).collect()
}

/// docs/usage.md's key table, made from the definitions.
#[cfg(test)]
pub fn table() -> String {
    let rows = ALL.iter().map(|key| key.row());
    ["| key | default | meaning |".to_string(), "|---|---|---|".to_string()]
        .into_iter()
        .chain(rows)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::file::parse;

    #[test]
    fn every_key_is_a_flag_and_a_file_key() {
        let keys = keys();
        assert_eq!(keys.len(), 32, "{keys:?}");
        assert_eq!(&keys[..3], ["book", "mode", "start"]);
        for key in &keys {
            let e = parse(&format!("{key} = []")).unwrap_err();
            assert_eq!(e.key(), Some(key.as_str()), "{e}");
        }
        let flags = <crate::config::given::Flags as clap::CommandFactory>::command();
        let mut declared: Vec<_> =
            flags.get_arguments().map(|a| (a.get_display_order(), a.get_id().to_string())).collect();
        declared.sort_by_key(|(order, _)| *order);
        let declared: Vec<String> = declared.into_iter().map(|(_, id)| id).collect();
        assert_eq!(declared, keys, "each key a flag, in the flags' display order");
    }

    #[test]
    fn each_flag_is_its_key_with_dashes() {
        for key in ALL {
            assert_eq!(key.long(), key.name().replace('_', "-"));
        }
    }

    /// docs/usage.md's table of keys is the one the definitions make.
    #[test]
    fn the_docs_key_table_is_made_from_the_definitions() {
        let usage = include_str!("../../../docs/usage.md");
        assert!(usage.contains(&format!("\n{}\n\n", table())), "docs/usage.md's key table is not:\n{}", table());
    }
}
