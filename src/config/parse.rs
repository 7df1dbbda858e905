//! The parsers the keys share: a key's value as text (a flag's, or a
//! config file's value taken as text) checked and made typed. Each key's
//! own parser, where it has one, is with its definition (`keys/`).

use bookminer::choice::Choice;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use std::path::PathBuf;

/// A value a key cannot take, and what it can.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadValue(pub String);

/// A path: any text but the empty one.
pub fn parse_path(text: &str) -> Result<PathBuf, BadValue> {
    match text {
        "" => Err(BadValue("expected a path, got \"\"".into())),
        _ => Ok(PathBuf::from(text)),
    }
}

/// Text as given.
pub fn parse_text(text: &str) -> Result<String, BadValue> {
    Ok(text.to_string())
}

/// A whole number in `range`, for the keys that take one.
pub fn parse_count<T: TryFrom<u64> + Copy>(text: &str, range: std::ops::RangeInclusive<u64>) -> Result<T, BadValue> {
    let bad = || BadValue(format!("expected a whole number from {} to {}, got {text:?}", range.start(), range.end()));
    let n = text.trim().parse::<u64>().map_err(|_| bad())?;
    range.contains(&n).then(|| T::try_from(n).ok()).flatten().ok_or_else(bad)
}

/// A real number from 0 up, no larger than `max`.
pub fn parse_real(text: &str, max: f64) -> Result<f64, BadValue> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=max).contains(&x) => Ok(x),
        _ => Err(BadValue(format!("expected a number from 0 to {max}, got {text:?}"))),
    }
}

/// true or false, in any case.
pub fn parse_bool(text: &str) -> Result<bool, BadValue> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(BadValue(format!("expected true or false, got {text:?}"))),
    }
}

/// One of a [`Choice`]'s names, in any case.
pub fn parse_named<T: Choice>(text: &str) -> Result<T, BadValue> {
    T::named(text.trim()).ok_or_else(|| BadValue(format!("no value {text:?}")))
}

/// The values of an enumerated key, quoted, for messages.
pub fn allowed<T: Choice>() -> String {
    let names = T::ALL.iter().map(|v| format!("\"{}\"", v.name()));
    names.collect::<Vec<_>>().join(", ")
}

/// An enumerated flag's values, each with its help, as `--help` lists them.
pub fn possible_values<T: Choice>() -> Vec<PossibleValue> {
    let values = T::ALL.iter().map(|&v| match v.help() {
        Some(help) => PossibleValue::new(v.name()).help(help),
        None => PossibleValue::new(v.name()),
    });
    values.collect()
}

/// The parser of an enumerated flag: its values, each with its help, as
/// `--help` lists them.
pub fn choice<T: Choice>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(possible_values::<T>())
        .try_map(|name| T::named(&name).ok_or(BadValue(format!("no value {name:?}"))))
}
