//! The book growth made, before its final negamax, streamed to a file:
//! the book read's records in their order (those growth changed as they
//! are now, runs of the others copied from the map as they lie), then the
//! positions added in the order they were added, in the book read's format
//! (an older Egaroucid book as .egbk3). Memory: a buffer, whatever the
//! book's size.

use super::store::{Flavor, Node, Store};
use crate::board::Move;
use crate::book::{Link, Score};
use crate::format::edax::{self, EdaxRecord};
use crate::format::egaroucid;
use crate::write::header_kept;
use std::io::{self, Write};

/// Writes the whole book into `out`; returns the records written.
pub fn write_unfixed(store: &Store<'_>, out: &mut impl Write) -> io::Result<u64> {
    let book = store.book();
    let bytes = book.file().bytes();
    let records = book.counts().records + store.added().len() as u64;
    out.write_all(&header_kept(&book.header(), records))?;
    let mut encoded = Vec::new();
    // The records read are copied in runs between the records changed.
    let mut run_from = None;
    let copy_run = |out: &mut dyn Write, from: &mut Option<usize>, to: usize| match from.take() {
        Some(from) => out.write_all(&bytes[from..to]),
        None => Ok(()),
    };
    let mut end = 0;
    match store.flavor() {
        Flavor::Edax(_) => {
            for (id, offset, raw) in edax::records(bytes).map_while(Result::ok) {
                end = offset + raw.byte_len();
                match store.changed().get(&id) {
                    Some(node) => {
                        copy_run(out, &mut run_from, offset)?;
                        encoded.clear();
                        edax_record(node).encode(&mut encoded);
                        out.write_all(&encoded)?;
                    }
                    None => {
                        run_from.get_or_insert(offset);
                    }
                }
            }
        }
        Flavor::Egaroucid => {
            // Every record of the layout read, those out of the book too.
            for (id, offset, raw) in egaroucid::records(bytes).map_while(Result::ok) {
                end = offset + raw.bytes().len();
                match store.changed().get(&id) {
                    Some(node) => {
                        copy_run(out, &mut run_from, offset)?;
                        encoded.clear();
                        egaroucid_record(node, &mut encoded);
                        out.write_all(&encoded)?;
                    }
                    None => {
                        run_from.get_or_insert(offset);
                    }
                }
            }
        }
    }
    copy_run(out, &mut run_from, end)?;
    for node in store.added() {
        encoded.clear();
        match store.flavor() {
            Flavor::Edax(_) => edax_record(node).encode(&mut encoded),
            Flavor::Egaroucid => egaroucid_record(node, &mut encoded),
        }
        out.write_all(&encoded)?;
    }
    Ok(records)
}

fn edax_record(node: &Node) -> EdaxRecord {
    let solved = node.solved;
    let counts = solved.counts;
    EdaxRecord {
        board: node.board,
        counts: [counts.wins, counts.draws, counts.losses, counts.lines],
        value: solved.value,
        lower: solved.lower,
        upper: solved.upper,
        level: node.level,
        links: node.links.iter().map(|&(score, mv)| (score, mv.code())).collect(),
        leaf: (node.leaf_score, node.leaf_move.map_or(Move::NONE_CODE, Move::code)),
    }
}

fn egaroucid_record(node: &Node, out: &mut Vec<u8>) {
    let leaf = node.leaf_move.map(|mv| Link::new(Score(node.leaf_score.into()), mv));
    let value = node.solved.value.clamp(-64, 64) as i8;
    egaroucid::encode_record(out, &node.board, value, node.level as i8, node.n_lines, leaf);
}
