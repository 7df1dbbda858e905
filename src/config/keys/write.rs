//! Whether a file the command line names may be replaced: `force`.

use crate::config::group::{group, values};
use crate::config::key::{File, Flag, Key, Land};
use crate::config::parse::parse_bool;

values!(
    /// Whether a file the command line names may be replaced: `config.write`.
    Write {
        /// A file named to be written (OUT, `-o FILE`) may replace one that
        /// exists (never a journal).
        force: bool = false,
    }
);

/// `force`: whether a file named to be written may replace one
pub static FORCE: Key<bool, Write> = Key {
    name: "force",
    long: "force",
    short: None,
    value_name: "BOOL",
    order: 26,
    help: "Replace OUT (or the -o file) if it exists; without it an existing file is refused (status 2) before any \
          work, naming what it holds. Never replaces an extend journal [config: force]",
    default: "`false`",
    doc: "a file the command line names to write (OUT, `-o FILE`) may replace one already there (`--force`; never \
         `extend`'s journal)",
    flag: Flag::Switch,
    file: File::ScalarSaid("true or false", |v| format!("expected true or false, got {v}")),
    parse: parse_bool,
    land: Land::Set(|c, force, _| c.force = force),
};

group!(
    /// Whether a file the command line names to write (OUT, `-o FILE`) may
    /// replace a file already there: every command that writes one.
    WriteKeys of Write: FORCE
);

#[cfg(test)]
mod tests {
    use crate::config::file::parse;
    use crate::config::given::Flags;
    use clap::Parser;

    #[test]
    fn force_is_a_flag_alone_or_with_a_value_and_a_file_key() {
        assert!(!parse("").unwrap().write.force, "nothing is replaced unasked");
        assert!(parse("force = true").unwrap().write.force);
        let given = |args: &[&str]| {
            Flags::try_parse_from(args).map(|f| f.settings.write.given.texts("force").map(<[String]>::to_vec))
        };
        assert_eq!(given(&["--force"]).unwrap(), Some(vec!["true".to_string()]));
        assert_eq!(given(&["--force=false"]).unwrap(), Some(vec!["false".to_string()]));
        assert_eq!(given(&[]).unwrap(), None);
        assert!(given(&["--force=maybe"]).is_err());
        let mut c = parse("force = true").unwrap();
        c.set_from_command_line("force", "false").unwrap();
        assert!(!c.write.force, "the flag overrides the file");
    }
}
