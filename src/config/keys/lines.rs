//! Which files of lines are written, how a line is written, and where:
//! `format`, `bom`, `unique_lines`, `out_dir`, `orientation`, `pass_token`.

use crate::config::group::{group, values};
use crate::config::key::{File, Flag, Key, Land};
use crate::config::parse::{allowed, parse_bool, parse_named, parse_path, parse_text, possible_values, BadValue};
use bookminer::output::{Orientation, RecordFormats};
use std::path::PathBuf;

values!(
    /// Which files of lines are written, how a line is written, and where: `config.lines`.
    Lines {
        /// The files written per set of lines.
        format: RecordFormats = RecordFormats::KIFU,
        /// Kifu files start with a byte-order mark.
        bom: bool = true,
        /// Each line once per set.
        unique_lines: bool = true,
        /// The folder of the output files (the config file's folder's, once read).
        out_dir: PathBuf = "out".into(),
        /// How lines are turned.
        orientation: Orientation = Orientation::F5,
        /// The text of a pass; empty: none.
        pass_token: String = String::new(),
    }
);

/// `format`: the files written per set of lines
pub static FORMAT: Key<RecordFormats, Lines> = Key {
    name: "format",
    long: "format",
    short: None,
    value_name: "LIST",
    order: 12,
    help: "Files to write per set of lines: kifu (.txt), jsonl, obf, or a list such as kifu,jsonl,obf [config: \
          format]",
    default: "`\"kifu\"`",
    doc: "`kifu`, `jsonl`, `obf`, or a list `\"kifu,jsonl,obf\"` (mining's files and `check`'s)",
    flag: Flag::Value,
    file: File::Text("\"kifu\", \"jsonl\", \"obf\" or a comma-separated list of them"),
    parse: parse_formats,
    land: Land::Set(|c, formats, _| c.format = formats),
};

/// `bom`: whether kifu files start with a byte-order mark
pub static BOM: Key<bool, Lines> = Key {
    name: "bom",
    long: "bom",
    short: None,
    value_name: "BOOL",
    order: 13,
    help: "false: kifu files without the byte-order mark (for Edax's `book add`) [config: bom]",
    default: "`true`",
    doc: "kifu files start with a UTF-8 byte-order mark",
    flag: Flag::Value,
    file: File::ScalarSaid("true or false", |v| format!("expected true or false, got {v}")),
    parse: parse_bool,
    land: Land::Set(|c, bom, _| c.bom = bom),
};

/// `unique_lines`: each line once per set
pub static UNIQUE_LINES: Key<bool, Lines> = Key {
    name: "unique_lines",
    long: "unique-lines",
    short: None,
    value_name: "BOOL",
    order: 7,
    help: "true: write each line once per set (a mode's, check-bad, check-missing); false: every line [config: \
          unique_lines]",
    default: "`true`",
    doc: "each line once per mode (and per `check` file); `false` writes every one",
    flag: Flag::Value,
    file: File::ScalarSaid("true or false", |v| format!("expected true or false, got {v}")),
    parse: parse_bool,
    land: Land::Set(|c, unique, _| c.unique_lines = unique),
};

/// `out_dir`: the folder of the output files
pub static OUT_DIR: Key<PathBuf, Lines> = Key {
    name: "out_dir",
    long: "out-dir",
    short: None,
    value_name: "DIR",
    order: 3,
    help: "Folder for the output files [config: out_dir]",
    default: "`\"out\"`",
    doc: "where `mode{N}.*` and `check-*.*` (with `manifest.json`), `fix.jsonl` and `diff.jsonl` go (`diff -o`, and \
         `mine -o` for a run of one mode and one format, name another file, or `-` for standard output)",
    flag: Flag::Path,
    file: File::Text("a path"),
    parse: parse_path,
    land: Land::Set(|c, path, base| c.out_dir = base.join(path)),
};

/// `orientation`: how lines are turned
pub static ORIENTATION: Key<Orientation, Lines> = Key {
    name: "orientation",
    long: "orientation",
    short: None,
    value_name: "HOW",
    order: 5,
    help: "Turn every line to start with F5, or keep the walk's coordinates [config: orientation]",
    default: "`\"f5\"`",
    doc: "turn each line to start with F5; `\"as-walked\"` keeps the walk's coordinates",
    flag: Flag::Named(possible_values::<Orientation>),
    file: File::Named(allowed::<Orientation>),
    parse: parse_named,
    land: Land::Set(|c, how, _| c.orientation = how),
};

/// `pass_token`: the text of a pass
pub static PASS_TOKEN: Key<String, Lines> = Key {
    name: "pass_token",
    long: "pass-token",
    short: None,
    value_name: "TEXT",
    order: 6,
    help: "Text written for a pass, e.g. PS; empty leaves passes out [config: pass_token]",
    default: "`\"\"`",
    doc: "text written for a pass (e.g. `\"PS\"`); empty leaves passes out",
    flag: Flag::Value,
    file: File::Text("a string"),
    parse: parse_text,
    land: Land::Set(|c, token, _| c.pass_token = token),
};

group!(
    /// Which files of lines are written, and how: mining's and `check`'s.
    WrittenKeys of Lines: FORMAT, BOM, UNIQUE_LINES
);

group!(
    /// How a line and its position are written (mining's files, fix's receipt), and where.
    LineKeys of Lines: OUT_DIR, ORIENTATION, PASS_TOKEN
);

/// One format or a comma-separated list of them.
fn parse_formats(text: &str) -> Result<RecordFormats, BadValue> {
    text.parse().map_err(|e: bookminer::output::print::RecordFormatsError| BadValue(e.to_string()))
}

#[cfg(test)]
mod tests {
    use crate::config::file::parse;
    use crate::config::values::Config;
    use bookminer::output::{Orientation, RecordFormat, RecordFormats};

    #[test]
    fn format_takes_one_name_or_a_list_in_any_case() {
        let all = RecordFormats::of(&[RecordFormat::Kifu, RecordFormat::Jsonl, RecordFormat::Obf]);
        assert_eq!(parse("").unwrap().lines.format, RecordFormats::KIFU);
        assert_eq!(parse("format = \"JSONL\"").unwrap().lines.format, RecordFormats::of(&[RecordFormat::Jsonl]));
        assert_eq!(parse("Format = \"jsonl,obf,kifu\"").unwrap().lines.format, all);
        assert_eq!(
            parse("format = \" Obf , KIFU,obf \"").unwrap().lines.format,
            RecordFormats::of(&[RecordFormat::Kifu, RecordFormat::Obf])
        );
        for bad in ["\"\"", "\"kifu,\"", "\"csv\"", "\"kifu;jsonl\"", "1", "[\"kifu\"]"] {
            let e = parse(&format!("format = {bad}")).unwrap_err();
            assert_eq!(e.key(), Some("format"), "{bad}");
            assert!(e.to_string().contains("\"jsonl\"") && e.to_string().contains("\"obf\""), "{bad}: {e}");
        }
        let mut c = parse("").unwrap();
        c.set_from_command_line("format", "Kifu,JSONL").unwrap();
        assert_eq!(c.lines.format, RecordFormats::of(&[RecordFormat::Kifu, RecordFormat::Jsonl]));
        let e = c.set_from_command_line("format", "").unwrap_err();
        assert_eq!(e.key(), Some("--format"));
    }

    #[test]
    fn bom_is_a_boolean() {
        assert!(parse("").unwrap().lines.bom);
        assert!(!parse("bom = false").unwrap().lines.bom);
        assert!(!parse("BOM = \"False\"").unwrap().lines.bom);
        assert!(parse("bom = true").unwrap().lines.bom);
        let e = parse("bom = \"no\"").unwrap_err();
        assert!(e.key() == Some("bom") && e.message().contains("true or false"), "{e}");
        let mut c = Config::default();
        c.set_from_command_line("bom", "false").unwrap();
        assert!(!c.lines.bom);
        assert!(c.set_from_command_line("bom", "0").is_err());
    }

    #[test]
    fn lines_keys_ignore_case_and_land() {
        let c =
            parse("Orientation = \"As-Walked\"\npass_token = \"Ps\"\nUnique_Lines = false\nout_dir = \"o\"").unwrap();
        assert_eq!(c.lines.orientation, Orientation::AsWalked);
        assert_eq!((c.lines.pass_token.as_str(), c.lines.unique_lines), ("Ps", false));
        assert_eq!(c.lines.out_dir, std::path::PathBuf::from("/base/o"));
        assert_eq!(parse("").unwrap().lines.out_dir, std::path::PathBuf::from("/base/out"));
    }
}
