//! The book a command reads, and how it reads one: `book`, `egbk_level`, `threads`.

use crate::config::group::{group, values};
use crate::config::key::{File, Flag, Key, Land};
use crate::config::parse::{parse_count, parse_path};
use bookminer::book::ReadOptions;
use bookminer::level::Level;
use std::path::PathBuf;

values!(
    /// The book a command reads, and how it reads one: `config.books`.
    Books {
        /// The book, if one was given (flag or config key): there is no default.
        book: Option<PathBuf> = None,
        /// The level every record of an .egbk book gets (docs/formats.md, older Egaroucid books).
        egbk_level: Level = ReadOptions::EGBK_LEVEL,
        /// Threads a run works on (`bookminer::set_threads`); 0: every core.
        threads: usize = 0,
    }
);

/// `book`: the book read, taken from the config file's folder
pub static BOOK: Key<PathBuf, Books> = Key {
    name: "book",
    long: "book",
    short: None,
    value_name: "FILE",
    order: 0,
    help: "Book to read: Edax book.dat, Egaroucid .egbk3, .egbk2 or .egbk [config: book]",
    default: "none",
    doc: "the book mining, inspect, verify and stats read (or name it as their argument)",
    flag: Flag::Path,
    file: File::Text("a path"),
    parse: parse_path,
    land: Land::Set(|c, path, base| c.book = Some(base.join(path))),
};

/// `egbk_level`: the level an .egbk book's records are given
pub static EGBK_LEVEL: Key<Level, Books> = Key {
    name: "egbk_level",
    long: "egbk-level",
    short: None,
    value_name: "N",
    order: 17,
    help: "Level given to every record of an .egbk book, which stores none, 0 to 60 [config: egbk_level]",
    default: "`1`",
    doc: "the level of every record of an `.egbk` book",
    flag: Flag::Value,
    file: File::Scalar("a whole number from 0 to 60"),
    parse: |text| parse_count(text, 0..=60),
    land: Land::Set(|c, level, _| c.egbk_level = level),
};

/// `threads`: the threads a run works on
pub static THREADS: Key<usize, Books> = Key {
    name: "threads",
    long: "threads",
    short: None,
    value_name: "N",
    order: 18,
    help: "Threads to work on (the walk, resolving, writing books); with 3 or more a thread walks ahead of the \
          walk; 0: every core [config: threads]",
    default: "`0`",
    doc: "threads a command that reads a book works on (`--threads`): the walk (3 or more: a thread walks ahead of \
         it, outputs unchanged, `docs/walk.md`), resolving, writing books; `0`: every core",
    flag: Flag::Value,
    file: File::Scalar("a whole number"),
    parse: |text| parse_count(text, 0..=1024),
    land: Land::Set(|c, threads, _| c.threads = threads),
};

group!(
    /// The book mining, inspect, verify and stats read (the book commands
    /// that write name theirs as arguments).
    BookKeys of Books: BOOK
);

group!(
    /// How a book is read: every command that reads one.
    ReadKeys of Books: EGBK_LEVEL, THREADS
);

#[cfg(test)]
mod tests {
    use crate::config::file::parse;
    use bookminer::level::Level;

    #[test]
    fn egbk_level_is_a_level() {
        assert_eq!(parse("").unwrap().books.egbk_level, Level::new(1).unwrap());
        assert_eq!(parse("EGBK_LEVEL = 60").unwrap().books.egbk_level, Level::MAX);
        assert_eq!(parse("egbk_level = 61").unwrap_err().key(), Some("egbk_level"));
    }

    #[test]
    fn threads_from_zero_for_every_core() {
        assert_eq!(parse("").unwrap().books.threads, 0);
        assert_eq!(parse("threads = \"4\"").unwrap().books.threads, 4);
        assert_eq!(parse("threads = 1025").unwrap_err().key(), Some("threads"));
    }
}
