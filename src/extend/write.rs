//! The book `extend` writes, before its final negamax: the book read's
//! records in their order (those the rounds changed as they are now, the
//! others byte for byte), then the positions added in the order they were
//! added, in the book read's format (an older Egaroucid book as .egbk3).

use super::store::{Flavor, Node, Store};
use crate::board::Move;
use crate::book::{Link, RecordId, Score};
use crate::format::edax::{self, EdaxRecord};
use crate::format::egaroucid;
use crate::write::header_kept;
use std::collections::HashMap;

/// The whole book, ready for the negamax that ends `extend`.
pub fn unfixed_bytes(store: &Store<'_>) -> Vec<u8> {
    let book = store.book();
    let changed: HashMap<RecordId, &Node> =
        store.nodes().iter().filter(|n| n.changed).filter_map(|n| Some((n.origin?, n))).collect();
    let added = store.added().iter().map(|&id| store.node(id));
    let bytes = book.file().bytes();
    let mut out = Vec::with_capacity(bytes.len() + store.added().len() * edax::RECORD_MIN_LEN);
    let records = book.counts().records + store.added().len() as u64;
    out.extend_from_slice(&header_kept(&book.header(), records));
    match store.flavor() {
        Flavor::Edax(_) => {
            for (id, _, raw) in edax::records(bytes).map_while(Result::ok) {
                match changed.get(&id) {
                    Some(node) => edax_record(node).encode(&mut out),
                    None => out.extend_from_slice(raw.bytes()),
                }
            }
            added.for_each(|node| edax_record(node).encode(&mut out));
        }
        Flavor::Egaroucid => {
            // Every record of the layout read, those out of the book too.
            for (id, _, raw) in egaroucid::records(bytes).map_while(Result::ok) {
                match changed.get(&id) {
                    Some(node) => egaroucid_record(node, &mut out),
                    None => out.extend_from_slice(raw.bytes()),
                }
            }
            added.for_each(|node| egaroucid_record(node, &mut out));
        }
    }
    out
}

fn edax_record(node: &Node) -> EdaxRecord {
    let counts = node.counts;
    EdaxRecord {
        board: node.board,
        counts: [counts.wins, counts.draws, counts.losses, counts.lines],
        value: node.value,
        lower: node.lower,
        upper: node.upper,
        level: node.level,
        links: node.links.iter().map(|&(score, mv)| (score, mv.code())).collect(),
        leaf: (node.leaf_score, node.leaf_move.map_or(Move::NONE_CODE, Move::code)),
    }
}

fn egaroucid_record(node: &Node, out: &mut Vec<u8>) {
    let leaf = node.leaf_move.map(|mv| Link::new(Score(node.leaf_score.into()), mv));
    let value = node.value.clamp(-64, 64) as i8;
    egaroucid::encode_record(out, &node.board, value, node.level as i8, node.n_lines, leaf);
}
