//! What mining looks for, and mode 5's positions: `mode`, `min_gap`, `mode1_linkless`, `positions_file`.

use crate::config::group::{group, values};
use crate::config::key::Listed;
use crate::config::key::{File, Flag, Key, Land};
use crate::config::parse::{allowed, parse_count, parse_named, parse_path, possible_values, BadValue};
use bookminer::rules::modes::{Linkless, Mode};
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

values!(
    /// What mining looks for, and mode 5's positions: `config.mine`.
    Mine {
        /// What a run does.
        mode: RunMode = RunMode::Mine(Mode::LeafVsLinks),
        /// The smallest difference that is a mismatch.
        min_gap: i32 = 1,
        /// What mode 1 does with a child that has a leaf and no links.
        mode1_linkless: Linkless = Linkless::Skip,
        /// Mode 5's positions file: the one given, else positions.txt beside
        /// the config file; none without a config file.
        positions_file: Option<PathBuf> = None,
    }
);

/// `mode`: what a run does
pub static MODE: Key<RunMode, Mine> = Key {
    name: "mode",
    long: "mode",
    short: Some('m'),
    value_name: "MODE",
    order: 1,
    help: "1 leaf vs links, 2 value vs best move, 3 parent vs value, 4 parent vs best move, 5 inspect, or \"all\" \
          (1–4 in one walk) [config: mode]",
    default: "`1`",
    doc: "1–5, or `\"all\"` (modes 1–4 in one walk)",
    flag: Flag::Listed(&["1", "2", "3", "4", "5", "all"]),
    file: File::ScalarSaid("1, 2, 3, 4, 5 or \"all\"", |v| {
        format!("{v} is not a mode; allowed values: 1, 2, 3, 4, 5, \"all\"")
    }),
    parse: parse_run_mode,
    land: Land::Set(|c, mode, _| c.mode = mode),
};

/// `min_gap`: the smallest difference that is a mismatch
pub static MIN_GAP: Key<i32, Mine> = Key {
    name: "min_gap",
    long: "min-gap",
    short: None,
    value_name: "N",
    order: 4,
    help: "Smallest score difference that counts as a mismatch, 1 to 128 [config: min_gap]",
    default: "`1`",
    doc: "smallest score difference that counts (1–128)",
    flag: Flag::Value,
    file: File::ScalarSaid("a whole number from 1 to 128", |v| {
        format!("expected a whole number from 1 to 128, got {v}")
    }),
    parse: |text| parse_count(text, 1..=128),
    land: Land::Set(|c, gap, _| c.min_gap = gap),
};

/// `mode1_linkless`: what mode 1 does with a child that has a leaf and no links
pub static MODE1_LINKLESS: Key<Linkless, Mine> = Key {
    name: "mode1_linkless",
    long: "mode1-linkless",
    short: None,
    value_name: "HOW",
    order: 8,
    help: "Mode 1, child with a leaf but no links [config: mode1_linkless]",
    default: "`\"skip\"`",
    doc: "`\"report\"`: mode 1 also writes the leaf of a position with no links",
    flag: Flag::Named(possible_values::<Linkless>),
    file: File::Named(allowed::<Linkless>),
    parse: parse_named,
    land: Land::Set(|c, how, _| c.mode1_linkless = how),
};

/// `positions_file`: mode 5's positions
pub static POSITIONS_FILE: Key<PathBuf, Mine> = Key {
    name: "positions_file",
    long: "positions-file",
    short: None,
    value_name: "FILE",
    order: 9,
    help: "Mode 5: file with one position per line [config: positions_file]",
    default: "`\"positions.txt\"` beside the config file; none without one",
    doc: "mode 5's positions",
    flag: Flag::Path,
    file: File::Text("a path"),
    parse: parse_path,
    land: Land::Set(|c, path, base| c.positions_file = Some(base.join(path))),
};

group!(
    /// What mining looks for.
    MineKeys of Mine: MODE, MIN_GAP, MODE1_LINKLESS
);

group!(
    /// Mode 5's positions.
    InspectKeys of Mine: POSITIONS_FILE
);

/// A mode: 1–5 or all.
fn parse_run_mode(text: &str) -> Result<RunMode, BadValue> {
    let t = text.trim();
    match t.parse::<u8>() {
        Ok(5) => Ok(RunMode::Inspect),
        Ok(n) if (1..=4).contains(&n) => Ok(RunMode::Mine(Mode::from_number(n).expect("1..=4"))),
        _ if t.eq_ignore_ascii_case("all") => Ok(RunMode::All),
        _ => Err(BadValue(format!("{text:?} is not a mode; allowed values: 1, 2, 3, 4, 5, \"all\""))),
    }
}

/// A mode `mine` runs: 1–4 or all.
fn parse_mining_mode(text: &str) -> Result<RunMode, BadValue> {
    match parse_run_mode(text)? {
        RunMode::Inspect => Err(BadValue("mode 5 is `bookminer inspect`; mine takes 1, 2, 3, 4 or \"all\"".into())),
        mode => Ok(mode),
    }
}

/// `mine --mode`'s parser: `--mode`'s without mode 5, which `mine`
/// refuses (it is `inspect`), so that `mine --help` and the shells offer
/// only what `mine` does.
#[derive(Clone)]
pub struct MiningModeParser;

impl clap::builder::TypedValueParser for MiningModeParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let check = |text: &str| parse_mining_mode(text).map(|_| text.to_string());
        Listed { check, values: &["1", "2", "3", "4", "all"] }.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let values = ["1", "2", "3", "4", "all"].into_iter().map(clap::builder::PossibleValue::new);
        Some(Box::new(values))
    }
}

/// `mine --mode`'s help: [`MODE`]'s without mode 5.
pub const MINING_MODE_HELP: &str =
    "1 leaf vs links, 2 value vs best move, 3 parent vs value, 4 parent vs best move, or \"all\" (1–4 in one walk) [config: mode]";

#[cfg(test)]
mod tests {
    use super::RunMode;
    use crate::config::file::parse;
    use bookminer::rules::modes::{Linkless, Mode};

    #[test]
    fn keys_and_values_ignore_case() {
        let c = parse("MODE = \"ALL\"\nLOG_LEVEL = \"Info\"\nMin_Gap = 2\nbook = \"/abs/B.dat\"").unwrap();
        assert_eq!(c.mine.mode, RunMode::All);
        assert_eq!(c.mine.min_gap, 2);
        assert_eq!(c.books.book, Some(std::path::PathBuf::from("/abs/B.dat")));
        assert_eq!(parse("MODE = 4\nOrientation = \"F5\"").unwrap().mine.mode, RunMode::Mine(Mode::ParentVsBest));
        assert_eq!(parse("mode = 5").unwrap().mine.mode, RunMode::Inspect);
        assert_eq!(parse("Mode1_Linkless = \"REPORT\"").unwrap().mine.mode1_linkless, Linkless::Report);
    }

    #[test]
    fn a_bad_mode_or_gap_is_said_as_the_file_wrote_it() {
        let e = parse("mode = 6").unwrap_err();
        assert_eq!(e.message(), "6 is not a mode; allowed values: 1, 2, 3, 4, 5, \"all\"");
        let e = parse("min_gap = 129").unwrap_err();
        assert_eq!(e.message(), "expected a whole number from 1 to 128, got 129");
        assert_eq!(
            super::parse_mining_mode("5").unwrap_err().0,
            "mode 5 is `bookminer inspect`; mine takes 1, 2, 3, 4 or \"all\""
        );
    }
}
