//! A position made by hand ([`Entry`]: `synth`, tests) in any format's
//! record layout, and the header of a book of them: the one place that
//! picks each format's encoder for them.

use super::edax::entries::{self, Entry};
use super::edax::{self, Header};
use super::egaroucid::{self, older};
use super::Format;
use crate::record::Link;
use crate::symmetry::Symmetry;

impl Format {
    /// Appends `entry` as a record of this format. An Egaroucid record
    /// keeps the value and, in an `.egbk3`, the leaf (its links are the
    /// moves whose child is in the book). The older Egaroucid formats store
    /// the board as `image` turns it (Egaroucid stored any of its symmetric
    /// images), and an `.egbk2` the links and leaf, turned with it, as its
    /// pairs, which are no links to a reader.
    pub fn encode_entry(self, bytes: &mut Vec<u8>, entry: &Entry, image: Symmetry) {
        let value = entry.value.0.clamp(-64, 64) as i8;
        let level = entry.level as i8;
        match self {
            Format::Edax => entries::encode_entry(bytes, entry),
            Format::Egbk3 => egaroucid::encode_record(bytes, &entry.board, value, level, entry.counts[3], entry.leaf),
            Format::Egbk2 => {
                let pair = |l: &Link| (l.score.0 as i8, image.apply_move(l.mv).code());
                let pairs: Vec<(i8, u8)> = entry.links.iter().chain(&entry.leaf).map(pair).collect();
                older::encode_egbk2_record(bytes, &image.board(&entry.board), value, level, &pairs)
            }
            Format::Egbk => older::encode_egbk_record(bytes, &image.board(&entry.board), value),
        }
    }

    /// Appends the header of a book of this format holding `records`
    /// records: an Edax book's is `edax` as it is, the others' the count.
    pub fn encode_entries_header(self, head: &mut Vec<u8>, records: usize, edax: &Header) {
        match self {
            Format::Edax => edax::encode_header(head, edax),
            Format::Egbk3 => egaroucid::encode_header(head, records),
            Format::Egbk2 => older::encode_egbk2_header(head, records),
            Format::Egbk => older::encode_egbk_header(head, records),
        }
    }
}
