//! `fix.jsonl` (docs/fix.md): one line per record whose value, bounds or a link
//! score changed, in file order, written as the book is, so that it never
//! sits in memory.

use crate::board::{Board, Move};
use crate::book::RecordId;
use crate::output::placed::Placer;
use crate::output::print::{push_int, push_pair};
use crate::output::LineStyle;
use crate::symmetry::Symmetry;
use smallvec::SmallVec;
use std::io::{self, Write};

/// A number before and after the fix.
pub(super) type Before<T> = [T; 2];

/// What changed in one record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Change {
    pub value: Option<Before<i16>>,
    pub lower: Option<Before<i16>>,
    pub upper: Option<Before<i16>>,
    /// Links whose score changed, in the order the book being read stores
    /// them: the move (stored coordinates) and its score before and after.
    pub links: SmallVec<[(Move, Before<i8>); 4]>,
}

impl Change {
    /// Whether the record gets a line.
    pub fn is_change(&self) -> bool {
        self.value.is_some() || self.lower.is_some() || self.upper.is_some() || !self.links.is_empty()
    }
}

/// The receipt's lines, made in memory a chunk of records at a time and
/// then handed to the file in order.
pub(super) struct Receipt<'a> {
    out: Vec<u8>,
    placer: Placer<'a>,
    text: String,
}

impl<'a> Receipt<'a> {
    pub fn new(format: &'a LineStyle) -> Receipt<'a> {
        Receipt { out: Vec::new(), placer: Placer::new(format), text: String::new() }
    }

    /// Writes the line of record `id`, whose stored board is `stored`,
    /// first arrived at by `line`, where `symmetry` maps its stored board
    /// onto the position reached.
    pub fn write(&mut self, id: RecordId, stored: &Board, first: (&[Move], Symmetry), change: &Change) {
        let text = &mut self.text;
        text.clear();
        text.push_str("{\"record\":");
        push_int(id.0.into(), text);
        let frame = self.placer.push(stored, first, text);
        for (key, pair) in [("value", change.value), ("lower", change.lower), ("upper", change.upper)] {
            if let Some([old, new]) = pair {
                push_pair(key, old.into(), new.into(), text);
            }
        }
        let links = change.links.iter().map(|&(mv, [old, new])| (mv, [Some(old.into()), Some(new.into())]));
        frame.push_links(links, text);
        text.push_str("}\n");
        self.out.extend_from_slice(text.as_bytes());
    }

    /// Writes the lines made so far to `out`, and forgets them.
    pub fn drain_into(&mut self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.out)?;
        self.out.clear();
        Ok(())
    }
}
