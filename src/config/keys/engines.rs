//! The engines growth and merge search with: `engine`, `workers`, `engine_protocol`, `engine_timeout`.

use crate::config::group::{group, values};
use crate::config::key::{scalar, string};
use crate::config::key::{File, Flag, Key, Land};
use crate::config::parse::{allowed, parse_count, parse_named, possible_values, BadValue};
use bookminer::choice::Choice;
use bookminer::engine::Protocol;

/// An engine as a flag or the config names it: its command line and, in
/// the config file, its own number of workers (else `workers`) and its own
/// protocol (else `protocol`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineEntry {
    pub command: String,
    pub workers: Option<usize>,
    pub protocol: Option<Protocol>,
}

values!(
    /// The engines growth and merge search with: `config.engines`.
    Engines {
        /// `extend`'s engines; none given: `extend` cannot run.
        engines: Vec<EngineEntry> = Vec::new(),
        /// Searches each engine runs at once, unless it says otherwise; `None`: its protocol's default.
        workers: Option<usize> = None,
        /// The protocol each engine speaks, unless it says otherwise; `None`: told from its greeting.
        protocol: Option<Protocol> = None,
        /// Seconds an engine is given for one answer.
        engine_timeout: u64 = 600,
    }
);

/// `engine`: the engines, a flag each or a list in the file
pub static ENGINE: Key<EngineEntry, Engines> = Key {
    name: "engine",
    long: "engine",
    short: None,
    value_name: "COMMAND",
    order: 18,
    help: "Engine command line, run by sh -c: Edax 4.6 or anything that speaks its console (see docs/extend.md), \
          e.g. \"edax -eval-file /opt/edax/data/eval.dat\"; give it again for another engine (a machine: \"ssh \
          host edax …\"). In the config file a command, or a list of them, each a command or a table { command = \
          \"…\", workers = K, protocol = \"edax\" } [config: engine]",
    default: "none",
    doc: "`extend`'s, `grow`'s and `merge`'s engine command line, run by `sh -c` (`extend.md`), or a list of them \
         (a fleet), each a command line or `{ command = \"…\", workers = K, protocol = \"edax\" }`",
    flag: Flag::Repeated,
    file: File::Own(engines),
    parse: parse_engine,
    land: Land::All(|c, engines| c.engines = engines),
};

/// `workers`: searches each engine runs at once
pub static WORKERS: Key<usize, Engines> = Key {
    name: "workers",
    long: "workers",
    short: None,
    value_name: "K",
    order: 19,
    help: "Searches each engine runs at once; default: the number of cores (Egaroucid's: no more than the available \
          memory holds, 1.4 GB each) [config: workers]",
    default: "the cores",
    doc: "searches each engine runs at once (unless its table says); Egaroucid's: no more than the available memory \
         holds, 1.4 GB each",
    flag: Flag::Value,
    file: File::Scalar("a whole number"),
    parse: parse_workers,
    land: Land::Set(|c, workers, _| c.workers = Some(workers)),
};

/// `engine_protocol`: the engines' protocol
pub static ENGINE_PROTOCOL: Key<Protocol, Engines> = Key {
    name: "engine_protocol",
    long: "engine-protocol",
    short: None,
    value_name: "NAME",
    order: 19,
    help: "The protocol the engines speak, unless one says otherwise; default: told from each engine's answer to \
          its greeting [config: engine_protocol]",
    default: "none",
    doc: "how bookminer speaks to the engines (unless an engine's table says): `edax` (Edax's console) or \
         `egaroucid` (Egaroucid for Console); none: told from each engine's answer to its greeting (`extend.md`)",
    flag: Flag::Named(possible_values::<Protocol>),
    file: File::Named(allowed::<Protocol>),
    parse: parse_named,
    land: Land::Set(|c, protocol, _| c.protocol = Some(protocol)),
};

/// `engine_timeout`: the longest wait for an answer
pub static ENGINE_TIMEOUT: Key<u64, Engines> = Key {
    name: "engine_timeout",
    long: "engine-timeout",
    short: None,
    value_name: "SECONDS",
    order: 20,
    help: "Longest wait for one answer, in seconds, before the engine is restarted [config: engine_timeout]",
    default: "`600`",
    doc: "seconds an engine has for one answer before it is restarted",
    flag: Flag::Value,
    file: File::Scalar("a whole number"),
    parse: |text| parse_count(text, 1..=u64::from(u32::MAX)),
    land: Land::Set(|c, seconds, _| c.engine_timeout = seconds),
};

group!(
    /// The engines `extend`, `grow` and `merge` search with.
    EngineKeys of Engines: ENGINE, WORKERS, ENGINE_PROTOCOL, ENGINE_TIMEOUT
);

/// An engine's command line.
fn parse_engine(text: &str) -> Result<EngineEntry, BadValue> {
    match text.trim() {
        "" => Err(BadValue("expected an engine command line, got \"\"".into())),
        command => Ok(EngineEntry { command: command.to_string(), workers: None, protocol: None }),
    }
}

/// Searches an engine runs at once.
fn parse_workers(text: &str) -> Result<usize, BadValue> {
    parse_count(text, 1..=1024)
}

/// The file's engines: a command line, or a list of engines, each a
/// command line or a table with `command`, `workers` and `protocol`, each
/// read by the flags' parsers.
fn engines(value: toml::Value) -> Result<Vec<EngineEntry>, String> {
    match value {
        toml::Value::Array(list) if list.is_empty() => Err("expected at least one engine, got []".into()),
        toml::Value::Array(list) => list.into_iter().map(engine_entry).collect(),
        single => Ok(vec![engine_entry(single)?]),
    }
}

/// One engine of the file's list.
fn engine_entry(v: toml::Value) -> Result<EngineEntry, String> {
    const WHAT: &str = "an engine command line or a table { command = \"…\", workers = K, protocol = \"edax\" }";
    let toml::Value::Table(mut table) = v else {
        return parse_engine(&string(&v, WHAT)?).map_err(|e| e.to_string());
    };
    let command = table.remove("command").ok_or_else(|| format!("expected {WHAT}: no command"))?;
    let mut entry = parse_engine(&string(&command, "an engine command line")?).map_err(|e| e.to_string())?;
    if let Some(workers) = table.remove("workers") {
        let text = scalar(&workers, "a whole number")?;
        entry.workers = Some(parse_workers(&text).map_err(|e| e.to_string())?);
    }
    if let Some(protocol) = table.remove("protocol") {
        let text = string(&protocol, &format!("one of {}", allowed::<Protocol>()))?;
        let bad =
            || format!("an engine's protocol {protocol} is not allowed; allowed values: {}", allowed::<Protocol>());
        entry.protocol = Some(Protocol::named(text.trim()).ok_or_else(bad)?);
    }
    match table.keys().next() {
        Some(key) => Err(format!("an engine has no key {key:?}; its keys are command, workers and protocol")),
        None => Ok(entry),
    }
}

#[cfg(test)]
mod tests {
    use super::EngineEntry;
    use crate::config::file::parse;
    use crate::config::values::Config;
    use bookminer::engine::Protocol;

    #[test]
    fn extend_keys_are_checked_once_for_file_and_flag() {
        let c =
            parse("engine = \"edax -q\"\nworkers = 3\nengine_timeout = \"30\"\nmin_empties = 14\nmax_positions = 0")
                .unwrap();
        assert_eq!(c.engines.engines, [EngineEntry { command: "edax -q".into(), workers: None, protocol: None }]);
        assert_eq!(
            (c.engines.workers, c.engines.engine_timeout, c.growth.min_empties, c.growth.max_positions),
            (Some(3), 30, Some(14), Some(0))
        );
        assert_eq!(parse("").unwrap().engines.workers, None, "each protocol's default");
        for bad in ["engine = \" \"", "workers = 0", "engine_timeout = 0", "min_empties = 61", "max_positions = -1"] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.key(), bad.split(' ').next(), "{bad}: {e}");
        }
        let c = parse("engine = [\"a\", { command = \"ssh b edax\", workers = 8 }]").unwrap();
        assert_eq!(
            c.engines.engines[1],
            EngineEntry { command: "ssh b edax".into(), workers: Some(8), protocol: None }
        );
        assert_eq!(c.engines.engines[0].workers, None);
        for bad in [
            "engine = []",
            "engine = [{ workers = 2 }]",
            "engine = [{ command = \"a\", workers = 0 }]",
            "engine = [{ command = \"a\", cores = 2 }]",
            "engine = 3",
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.key(), Some("engine"), "{bad}: {e}");
        }
        let mut c = Config::default();
        c.set_from_command_line("workers", "2").unwrap();
        assert_eq!(c.engines.workers, Some(2));
        assert_eq!(c.set_from_command_line("workers", "x").unwrap_err().key(), Some("--workers"));
    }

    #[test]
    fn flags_given_again_replace_the_files_engines() {
        let mut c = parse("engine = [\"a\", \"b\", \"c\"]").unwrap();
        let flags =
            <crate::config::given::Flags as clap::Parser>::try_parse_from(["--engine=x", "--engine", "y"]).unwrap();
        c.apply_flags(&flags.settings).unwrap();
        let commands: Vec<&str> = c.engines.engines.iter().map(|e| e.command.as_str()).collect();
        assert_eq!(commands, ["x", "y"]);
    }

    #[test]
    fn the_engines_protocol_is_told_unless_named_and_an_unknown_one_is_refused() {
        assert_eq!(parse("").unwrap().engines.protocol, None);
        assert_eq!(parse("engine_protocol = \"Edax\"").unwrap().engines.protocol, Some(Protocol::EdaxConsole));
        assert_eq!(
            parse("engine_protocol = \"egaroucid\"").unwrap().engines.protocol,
            Some(Protocol::EgaroucidConsole)
        );
        let c = parse("engine = [{ command = \"a\", protocol = \"egaroucid\" }]").unwrap();
        assert_eq!(c.engines.engines[0].protocol, Some(Protocol::EgaroucidConsole));
        let e = parse("engine_protocol = \"uci\"").unwrap_err();
        assert!(e.key() == Some("engine_protocol") && e.message().contains("allowed values: \"edax\""), "{e}");
        let e = parse("engine = [{ command = \"a\", protocol = \"uci\" }]").unwrap_err();
        assert!(e.key() == Some("engine") && e.message().contains("allowed values: \"edax\""), "{e}");
        let mut c = Config::default();
        c.set_from_command_line("engine_protocol", "egaroucid").unwrap();
        assert_eq!(c.engines.protocol, Some(Protocol::EgaroucidConsole));
        let e = c.set_from_command_line("engine_protocol", "uci").unwrap_err();
        assert_eq!(e.key(), Some("--engine-protocol"));
    }
}
