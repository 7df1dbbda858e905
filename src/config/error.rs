//! A setting that cannot be used: the config file unread, not UTF-8, not
//! TOML, or one key's value bad, each naming the file (or the command
//! line), the key and what was wrong.

use bookminer::failure::{io_kind, ErrorKind};
use std::io;
use std::path::PathBuf;

/// A setting that cannot be used, with where it came from.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file could not be read at all.
    #[error("{}: cannot read: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{origin}: not valid UTF-8 text (line {line}, byte {byte})")]
    NotUtf8 {
        origin: String,
        line: usize,
        byte: usize,
        #[source]
        source: std::string::FromUtf8Error,
    },
    #[error("{origin}: not valid TOML: {}", clip(message, MESSAGE_LIMIT))]
    Syntax {
        origin: String,
        message: String,
        #[source]
        source: Box<toml::de::Error>,
    },
    /// One key's value (or the key itself) is bad.
    #[error("{origin}: key `{}`: {}", clip(key, 80), clip(message, MESSAGE_LIMIT))]
    Key {
        /// The config file, or "command line".
        origin: String,
        /// As written (a flag: `--min-gap`).
        key: String,
        message: String,
    },
}

impl ConfigError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            ConfigError::Unreadable { source, .. } => io_kind(source),
            ConfigError::NotUtf8 { .. } | ConfigError::Syntax { .. } | ConfigError::Key { .. } => ErrorKind::BadInput,
        }
    }

    /// The key (or flag) the problem is about, if it is one key's.
    #[cfg_attr(not(test), allow(dead_code))] // its tests' and the config fuzz target's
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Key { key, .. } => Some(key),
            _ => None,
        }
    }
}

#[cfg(test)]
impl ConfigError {
    /// What was wrong, without the file and the key.
    pub fn message(&self) -> &str {
        match self {
            ConfigError::Key { message, .. } | ConfigError::Syntax { message, .. } => message,
            _ => "",
        }
    }
}

/// The most of a message that is shown: a message quotes the offending
/// text, and a line of a megabyte should not become a megabyte of error.
const MESSAGE_LIMIT: usize = 400;

/// `text`, cut to at most `limit` bytes (at a character boundary) with the
/// number of bytes left out said at the end.
fn clip(text: &str, limit: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= limit {
        return text.into();
    }
    let end = (0..=limit).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    format!("{}… ({} more bytes)", &text[..end], text.len() - end).into()
}
