//! Positions made by hand written in Edax's layout: for `synth` and tests
//! that need a book made by hand.

use super::leaf::leaf_pair;
use crate::board::Board;
use crate::format::edax::{self as format, Header};
use crate::record::{Leaf, Link, Score};

/// One position to write. `board` must already be normalized and the moves
/// given in its coordinates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The board, normalized.
    pub board: Board,
    /// Its value.
    pub value: Score,
    /// The lower bound of its value.
    pub lower: Score,
    /// The upper bound of its value.
    pub upper: Score,
    /// Its level.
    pub level: u8,
    /// wins, draws, losses, lines
    pub counts: [u32; 4],
    /// Its links.
    pub links: Vec<Link>,
    /// Its leaf, if it has one.
    pub leaf: Option<Link>,
    /// The score stored beside move 65 when there is no leaf: Edax writes
    /// −127 when every legal move is linked and a finished game's score when
    /// no move is left (docs/formats.md, Edax books), and its negamax reads it.
    pub no_leaf_score: i8,
}

impl Entry {
    /// A position with a value and nothing else; bounds are the full range.
    pub fn new(board: Board, value: i32) -> Entry {
        Entry {
            board,
            value: Score(value),
            lower: Score(-64),
            upper: Score(64),
            level: 1,
            counts: [0; 4],
            links: Vec::new(),
            leaf: None,
            no_leaf_score: 0,
        }
    }
}

impl Entry {
    /// Gives it `leaf`, stored as Edax stores it ([`super::leaf`]): a leaf
    /// with a move as its leaf; a leaf without one, or none, as the score
    /// beside move 65.
    pub fn set_leaf(&mut self, leaf: Option<Leaf>) {
        self.leaf = leaf.and_then(Leaf::link);
        self.no_leaf_score = leaf_pair(leaf).0;
    }
}

/// The header a written book gets: version 4, release 4, the given level.
pub fn header(n_nodes: usize, level: i32) -> Header {
    Header {
        version: format::VERSION,
        release: 4,
        date: (2026, 1, 1, 0, 0, 0),
        level,
        n_empties: 60,
        midgame_error: 2,
        endcut_error: 1,
        verbosity: 1,
        n_nodes: i32::try_from(n_nodes).unwrap_or(i32::MAX),
    }
}

fn clamp16(score: Score) -> i16 {
    score.0.clamp(i16::MIN.into(), i16::MAX.into()) as i16
}

/// Encodes a whole book: header, then the entries in the order given.
pub fn encode(entries: &[Entry], level: i32) -> Vec<u8> {
    let mut out = Vec::with_capacity(format::HEADER_LEN + entries.len() * 48);
    format::encode_header(&mut out, &header(entries.len(), level));
    for e in entries {
        encode_entry(&mut out, e);
    }
    out
}

/// Appends one record.
pub fn encode_entry(out: &mut Vec<u8>, e: &Entry) {
    let values = [clamp16(e.value), clamp16(e.lower), clamp16(e.upper)];
    format::encode_record(out, &e.board, e.counts, values, e.level, &e.links, e.leaf);
    if e.leaf.is_none() {
        // The record ends with the leaf's (score, move 65).
        let at = out.len() - 2;
        out[at] = e.no_leaf_score as u8;
    }
}
