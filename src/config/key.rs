//! One key, defined once: its name (the config file's key, `--name` as a
//! flag), its help, how its text is parsed, how a config file's value is
//! taken as that text, and where it lands among its theme's values (`S`,
//! a part of the whole config, declared beside the key). The flag, the
//! config file's reading and the docs' key table are all made from it.

use super::parse::BadValue;
use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Arg, ArgAction};
use std::path::Path;

/// A key's definition (`keys/`: each group's keys, with their tests): a
/// value `T` that lands in its theme's values `S`.
pub struct Key<T: 'static, S: 'static> {
    /// The config file's key; the flag is the same with dashes.
    pub name: &'static str,
    /// The flag's long name: `name` with dashes (a test holds it).
    pub long: &'static str,
    /// A short flag, if it has one.
    pub short: Option<char>,
    /// What `--help` calls the value.
    pub value_name: &'static str,
    /// Where `--help` lists the flag.
    pub order: usize,
    /// The flag's help, ending with `[config: name]`.
    pub help: &'static str,
    /// The default as docs/usage.md's key table says it.
    #[cfg_attr(not(test), allow(dead_code))] // the docs table's test
    pub default: &'static str,
    /// What the key does, as docs/usage.md's key table says it.
    #[cfg_attr(not(test), allow(dead_code))] // the docs table's test
    pub doc: &'static str,
    /// How the flag takes its value.
    pub flag: Flag,
    /// How a config file's value becomes the parser's text.
    pub file: File<T>,
    /// The value's text checked and typed: the flag's and the file's.
    pub parse: fn(&str) -> Result<T, BadValue>,
    /// Where the value lands.
    pub land: Land<T, S>,
}

/// How a flag takes its value.
#[derive(Clone, Copy)]
pub enum Flag {
    /// One value, the last given.
    Value,
    /// A path, which shells complete as one.
    Path,
    /// One value that may start with `-` (-1: no limit).
    Negative,
    /// One value, whose usual values shells complete.
    Listed(&'static [&'static str]),
    /// One of the named values, any case, each with its help.
    Named(fn() -> Vec<PossibleValue>),
    /// Given again for another value.
    Repeated,
    /// Alone, true; or `--flag=BOOL`.
    Switch,
}

/// How a config file's value becomes the text the key's parser reads.
pub enum File<T: 'static> {
    /// A string alone; anything else is not `what`.
    Text(&'static str),
    /// A string, or an integer or boolean as its text.
    Scalar(&'static str),
    /// As `Scalar`, but a value the parser refuses is said by `said`.
    ScalarSaid(&'static str, fn(&toml::Value) -> String),
    /// A number (a float too), or text.
    Number,
    /// A string naming one of the values `allowed` lists.
    Named(fn() -> String),
    /// A reading of its own (a table, a list), each text through the parser.
    Own(fn(toml::Value) -> Result<Vec<T>, String>),
}

/// Where a key's value lands among its theme's values `S`.
pub enum Land<T: 'static, S: 'static> {
    /// Set from the value, relative paths taken from the folder given.
    Set(fn(&mut S, T, &Path)),
    /// Set from every value given (a flag given again adds one).
    All(fn(&mut S, Vec<T>)),
    /// Set from the value, which is checked as it lands.
    Checked(fn(&mut S, T) -> Result<(), BadValue>),
}

/// A key whatever its type: what the flags, the file and the docs ask of
/// it; its value lands in `S`, its theme's values.
pub trait AnyKey<S>: Sync {
    /// The config file's key.
    fn name(&self) -> &'static str;
    /// Where `--help` and docs/usage.md's table list it.
    fn order(&self) -> usize;
    /// The flag, as clap declares it.
    fn arg(&'static self) -> Arg;
    /// The flag's values given (its texts, clap-checked) landed in `values`.
    fn apply(&self, values: &mut S, texts: &[String], base: &Path) -> Result<(), BadValue>;
    /// The config file's value landed in `values`; the message says what was wrong.
    fn read(&self, values: &mut S, value: toml::Value, base: &Path) -> Result<(), String>;
    /// The key's row of docs/usage.md's key table.
    #[cfg(test)]
    fn row(&self) -> String;
    /// The default as docs/usage.md's key table says it.
    #[cfg(test)]
    fn default_shown(&self) -> &'static str;
    /// The flag's long name, for the test that it is the key's.
    fn long(&self) -> &'static str;
}

impl<T: 'static, S: 'static> Key<T, S> {
    fn land(&self, into: &mut S, mut values: Vec<T>, base: &Path) -> Result<(), BadValue> {
        match self.land {
            Land::Set(set) => values.pop().map(|v| set(into, v, base)).unwrap_or(()),
            Land::All(set) => set(into, values),
            Land::Checked(set) => values.pop().map_or(Ok(()), |v| set(into, v))?,
        }
        Ok(())
    }

    /// The file's value as the parser's text.
    fn text(&self, value: &toml::Value) -> Result<String, String> {
        match &self.file {
            File::Text(what) => string(value, what),
            File::Scalar(what) | File::ScalarSaid(what, _) => scalar(value, what),
            File::Number => match value {
                toml::Value::Float(x) => Ok(x.to_string()),
                _ => scalar(value, "a number"),
            },
            File::Named(allowed) => string(value, &format!("one of {}", allowed())),
            File::Own(_) => unreachable!("a key that reads its own value has no text"),
        }
    }
}

/// A string, or an integer or boolean as its text; else what was expected instead.
pub fn scalar(value: &toml::Value, what: &str) -> Result<String, String> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        other => Err(format!("expected {what}, got {other}")),
    }
}

/// A string value, or what was expected instead.
pub fn string(value: &toml::Value, what: &str) -> Result<String, String> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        other => Err(format!("expected {what}, got {other}")),
    }
}

impl<T: 'static, S: 'static> AnyKey<S> for Key<T, S> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn order(&self) -> usize {
        self.order
    }

    fn long(&self) -> &'static str {
        self.long
    }

    fn arg(&'static self) -> Arg {
        let check = move |text: &str| (self.parse)(text).map(|_| text.to_string());
        let arg = Arg::new(self.name)
            .long(self.long)
            .value_name(self.value_name)
            .help(self.help)
            .display_order(self.order)
            .required(false)
            .action(ArgAction::Set)
            .value_parser(check);
        let arg = match self.short {
            Some(short) => arg.short(short),
            None => arg,
        };
        match self.flag {
            Flag::Value => arg,
            Flag::Path => arg.value_hint(clap::ValueHint::AnyPath),
            Flag::Negative => arg.allow_hyphen_values(true),
            Flag::Listed(values) => arg.value_parser(Listed { check, values }),
            Flag::Named(values) => {
                arg.value_parser(clap::builder::PossibleValuesParser::new(values())).ignore_case(true)
            }
            Flag::Repeated => arg.action(ArgAction::Append),
            Flag::Switch => arg.num_args(0..=1).require_equals(true).default_missing_value("true"),
        }
    }

    fn apply(&self, into: &mut S, texts: &[String], base: &Path) -> Result<(), BadValue> {
        let values = texts.iter().map(|text| (self.parse)(text)).collect::<Result<Vec<T>, _>>()?;
        self.land(into, values, base)
    }

    fn read(&self, into: &mut S, value: toml::Value, base: &Path) -> Result<(), String> {
        // A date or time is taken as its text, as a string is.
        let value = match value {
            toml::Value::Datetime(at) => toml::Value::String(at.to_string()),
            value => value,
        };
        let values = match &self.file {
            File::Own(read) => read(value)?,
            File::ScalarSaid(_, said) => vec![(self.parse)(&self.text(&value)?).map_err(|_| said(&value))?],
            File::Named(allowed) => {
                let text = self.text(&value)?;
                let bad = || format!("{value} is not allowed; allowed values: {}", allowed());
                vec![(self.parse)(&text).map_err(|_| bad())?]
            }
            _ => vec![(self.parse)(&self.text(&value)?).map_err(|e| e.to_string())?],
        };
        self.land(into, values, base).map_err(|e| e.to_string())
    }

    #[cfg(test)]
    fn row(&self) -> String {
        format!("| `{}` | {} | {} |", self.name, self.default, self.doc)
    }

    #[cfg(test)]
    fn default_shown(&self) -> &'static str {
        self.default
    }
}

/// A flag's parser that names the values shells complete (`--mode <TAB>`:
/// 1 2 3 4 5 all), checking with the key's parser.
#[derive(Clone)]
pub struct Listed<F> {
    /// The key's parser, the value kept as text.
    pub check: F,
    /// The values named.
    pub values: &'static [&'static str],
}

impl<F: Fn(&str) -> Result<String, BadValue> + Clone + Send + Sync + 'static> TypedValueParser for Listed<F> {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        self.check.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values.iter().map(|&v| PossibleValue::new(v))))
    }
}
