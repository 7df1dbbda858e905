//! Encoding Egaroucid `.egbk3` books (docs/formats.md, writing an .egbk3 book): the header, a record kept
//! as read, and a record made from an Edax one.

use super::read::{HEADER_LEN, LEAF_AT, LEVEL_AT, MAGIC, NO_LEAF_MOVE, NO_VALUE, RECORD_LEN, VALUE_AT, VERSION};
use crate::board::Board;
use crate::format::edax::read as edax;
use crate::record::{Leaf, Link};

/// The header for `n_boards` records.
pub fn header(n_boards: u64) -> [u8; HEADER_LEN] {
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    encode_header(&mut bytes, usize::try_from(n_boards).unwrap_or(usize::MAX));
    bytes.try_into().expect("an .egbk3 header is 14 bytes")
}

/// Why an Edax record has no place in an `.egbk3` book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeftOut {
    /// Its value is outside −64..64: Egaroucid would skip it.
    ValueOutOfRange,
    /// Its side to move must pass: Egaroucid keeps the position after the
    /// pass, and would never reach this one.
    MustPass,
}

/// An Edax record in the `.egbk3` layout, or why it is left out.
pub fn from_edax(raw: &edax::RawRecord<'_>) -> Result<[u8; RECORD_LEN], LeftOut> {
    let value = raw.value().0;
    if !(-64..=64).contains(&value) {
        return Err(LeftOut::ValueOutOfRange);
    }
    let board = raw.board();
    if board.must_pass() {
        return Err(LeftOut::MustPass);
    }
    let bytes = raw.bytes();
    let level = bytes[39].min(60);
    let n_lines = raw.counts()[3];
    let (leaf_score, leaf_move) = raw.raw_leaf();
    let leaf = match leaf_move {
        0..=64 => (leaf_score, leaf_move),
        _ => (NO_VALUE, NO_LEAF_MOVE),
    };
    let mut out = [0u8; RECORD_LEN];
    out[..16].copy_from_slice(&bytes[..16]);
    out[16] = value as i8 as u8;
    out[17] = level;
    out[18..22].copy_from_slice(&n_lines.to_le_bytes());
    out[22] = leaf.0 as u8;
    out[23] = leaf.1;
    out[24] = level;
    Ok(out)
}

/// Appends one record in the `.egbk3` layout; `leaf` is written as "none"
/// when absent. Used by `synth` and tests.
pub fn encode_record(out: &mut Vec<u8>, board: &Board, value: i8, level: i8, n_lines: u32, leaf: Option<Link>) {
    out.extend_from_slice(&board.player.to_le_bytes());
    out.extend_from_slice(&board.opponent.to_le_bytes());
    out.push(value as u8);
    out.push(level as u8);
    out.extend_from_slice(&n_lines.to_le_bytes());
    match leaf {
        Some(l) => out.extend_from_slice(&[l.score.0.clamp(-64, 64) as i8 as u8, l.mv.code(), level as u8]),
        None => out.extend_from_slice(&[NO_VALUE as u8, NO_LEAF_MOVE, level as u8]),
    }
}

/// Puts a new value into a record's bytes (fix), leaving the rest as it is.
pub fn put_value(record: &mut [u8; RECORD_LEN], value: i8) {
    record[VALUE_AT] = value as u8;
}

/// The (value, move) pair that stores `leaf` in an `.egbk3` record: a
/// leaf with a move and a value within ±64 as it is; anything else as no
/// leaf, value −126 and move 125, as Egaroucid writes it (docs/formats.md,
/// Egaroucid books). The reader's [`super::read::RawRecord::leaf`] reads the
/// same pairs back.
pub fn leaf_pair(leaf: Option<Leaf>) -> (i8, u8) {
    let stored = leaf.and_then(|leaf| Some((i8::try_from(leaf.score.discs()).ok()?, leaf.mv?)));
    match stored {
        Some((value, mv)) if (-64..=64).contains(&value) => (value, mv.code()),
        _ => (NO_VALUE, NO_LEAF_MOVE),
    }
}

/// Puts a new leaf into a record's bytes (merge: a stale leaf replaced),
/// its level the record's, leaving the rest as it is.
pub fn put_leaf(record: &mut [u8], leaf: Option<Leaf>) {
    let (value, code) = leaf_pair(leaf);
    record[LEAF_AT] = value as u8;
    record[LEAF_AT + 1] = code;
    record[LEAF_AT + 2] = record[LEVEL_AT];
}

/// Appends the header for `n_boards` records.
pub fn encode_header(out: &mut Vec<u8>, n_boards: usize) {
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.extend_from_slice(&i32::try_from(n_boards).unwrap_or(i32::MAX).to_le_bytes());
}
