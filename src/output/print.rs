//! The output formats (SPEC §4, §4.1, §4.2) and one printer for each: a
//! printer turns a mismatch record, with its line already rendered as kifu,
//! into one line of its file.

use super::text::{push_board, push_move, side_char};
use crate::book::Score;
use crate::mismatch::Mismatch;
use crate::modes::{Branch, Target};
use crate::symmetry::Symmetry;
use std::fmt;
use std::str::FromStr;

/// An output format: one file per mode in each format asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// `mode{N}.txt`: the kifu, one line each.
    Kifu,
    /// `mode{N}.jsonl`: one JSON object per line (SPEC §4.1).
    Jsonl,
    /// `mode{N}.obf`: the position at the end of each line (SPEC §4.2).
    Obf,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Kifu, Format::Jsonl, Format::Obf];

    pub fn name(self) -> &'static str {
        match self {
            Format::Kifu => "kifu",
            Format::Jsonl => "jsonl",
            Format::Obf => "obf",
        }
    }

    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Kifu => "txt",
            Format::Jsonl => "jsonl",
            Format::Obf => "obf",
        }
    }

    pub fn printer(self) -> &'static dyn Printer {
        match self {
            Format::Kifu => &KifuPrinter,
            Format::Jsonl => &JsonlPrinter,
            Format::Obf => &ObfPrinter,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of formats, never empty once parsed.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Formats(u8);

impl Formats {
    pub const KIFU: Formats = Formats(1);

    pub fn of(formats: &[Format]) -> Formats {
        Formats(formats.iter().fold(0, |bits, &f| bits | 1 << f as u8))
    }

    pub fn contains(self, format: Format) -> bool {
        self.0 & 1 << format as u8 != 0
    }

    /// The formats in the set, in [`Format::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Format> {
        Format::ALL.into_iter().filter(move |&f| self.contains(f))
    }
}

impl Default for Formats {
    fn default() -> Formats {
        Formats::KIFU
    }
}

impl fmt::Debug for Formats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for Formats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, format) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(format.name())?;
        }
        Ok(())
    }
}

/// A `format` value that names no format, or an unknown one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a format; allowed values: \"kifu\", \"jsonl\", \"obf\", or a comma-separated list of them")]
pub struct FormatsError {
    pub text: String,
}

impl FromStr for Formats {
    type Err = FormatsError;

    /// One name or a comma-separated list, in any case; repeats are harmless.
    fn from_str(text: &str) -> Result<Formats, FormatsError> {
        let bad = || FormatsError { text: text.to_string() };
        let mut bits = 0;
        for name in text.split(',') {
            let format = Format::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(name.trim())).ok_or_else(bad)?;
            bits |= 1 << format as u8;
        }
        Ok(Formats(bits))
    }
}

/// A record's line as the kifu file writes it, and the symmetry it was turned by.
#[derive(Clone, Copy, Debug)]
pub struct LineText<'a> {
    pub kifu: &'a str,
    pub symmetry: Symmetry,
}

/// Writes records in one format.
pub trait Printer: Sync {
    /// Appends the record's line of the file, line end included.
    fn print(&self, record: &Mismatch<'_>, line: &LineText<'_>, out: &mut String);
}

/// `mode{N}.txt`: the kifu.
pub struct KifuPrinter;

impl Printer for KifuPrinter {
    fn print(&self, _record: &Mismatch<'_>, line: &LineText<'_>, out: &mut String) {
        out.push_str(line.kifu);
        out.push('\n');
    }
}

/// `mode{N}.jsonl`: the keys of SPEC §4.1, in order, without spaces.
pub struct JsonlPrinter;

impl Printer for JsonlPrinter {
    fn print(&self, r: &Mismatch<'_>, line: &LineText<'_>, out: &mut String) {
        out.push_str("{\"kifu\":");
        push_json_string(line.kifu, out);
        out.push_str(",\"mode\":");
        push_int(r.mode.number().into(), out);
        out.push_str(match r.branch {
            Branch::Above => ",\"branch\":\"above\"",
            Branch::Below => ",\"branch\":\"below\"",
        });
        out.push_str(match r.target {
            Target::Child => ",\"target\":\"child\"",
            Target::Move(_) => ",\"target\":\"move\"",
        });
        out.push_str(",\"move\":");
        match r.mv {
            Some(mv) => {
                out.push('"');
                push_move(line.symmetry.apply_move(mv), out);
                out.push('"');
            }
            None => out.push_str("null"),
        }
        for (key, value) in [(",\"score\":", r.score), (",\"p\":", Some(r.p)), (",\"v\":", Some(r.v))] {
            out.push_str(key);
            push_score(value, out);
        }
        for (key, value) in [(",\"l\":", r.l), (",\"f\":", r.f), (",\"m\":", r.m)] {
            out.push_str(key);
            push_score(value, out);
        }
        out.push_str(",\"empties\":");
        push_int(r.empties.into(), out);
        out.push_str(",\"board\":\"");
        push_board(&r.board, r.black_to_move(), line.symmetry, out);
        out.push_str("\",\"side\":\"");
        out.push(side_char(r.black_to_move()));
        out.push_str("\"}\n");
    }
}

/// `mode{N}.obf`: the board, the side to move, `;`, and the kifu as a comment.
pub struct ObfPrinter;

impl Printer for ObfPrinter {
    fn print(&self, r: &Mismatch<'_>, line: &LineText<'_>, out: &mut String) {
        push_board(&r.board, r.black_to_move(), line.symmetry, out);
        out.push(' ');
        out.push(side_char(r.black_to_move()));
        out.push_str("; % ");
        out.push_str(line.kifu);
        out.push('\n');
    }
}

fn push_score(score: Option<Score>, out: &mut String) {
    match score {
        Some(s) => push_int(s.0.into(), out),
        None => out.push_str("null"),
    }
}

/// Appends an integer in decimal, without the formatting machinery.
fn push_int(n: i64, out: &mut String) {
    if n < 0 {
        out.push('-');
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(d as char);
    }
}

/// Appends `text` as a JSON string: a pass token may hold any character.
fn push_json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                out.push_str("\\u00");
                out.push(char::from_digit(c as u32 >> 4, 16).expect("a hex digit"));
                out.push(char::from_digit(c as u32 & 15, 16).expect("a hex digit"));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
