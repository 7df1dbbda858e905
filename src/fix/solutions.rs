//! What the negamax computed for each record, by record id, kept compactly
//! enough that `fix` of a large book stays within the file plus 24 bytes a
//! position: an Edax record's value, bounds and counts in one word, as the
//! small numbers they nearly always are, with the rare record they do not
//! fit set aside in full; an Egaroucid record's value in a byte.

use crate::book::RecordId;
use crate::negamax::{Counts, Negamaxed};
use crate::score::Score;
use std::collections::HashMap;

/// Bounds further than this from the value, or counts above these, are set
/// aside: a bound's difference is a byte, any but −128, the byte that marks a
/// word set aside ([`SET_ASIDE`]).
const DELTA_RANGE: std::ops::RangeInclusive<i32> = -(i8::MAX as i32)..=i8::MAX as i32;
/// The lower bound's byte of a word whose record is set aside.
const SET_ASIDE: u8 = 0x80;

/// Every Edax record's [`Negamaxed`]: value (i8), lower and upper bounds as
/// differences from it (i8), lines (u16), wins, draws and losses (u8 each)
/// in one word; what does not fit is in `set_aside`, its word marked.
pub(crate) struct EdaxSolutions {
    words: Vec<u64>,
    set_aside: HashMap<u32, Negamaxed>,
}

impl EdaxSolutions {
    /// Room for `records` records (taken from the system as written).
    pub fn new(records: usize) -> EdaxSolutions {
        let mut words = vec![0; records];
        crate::os::advise_huge_pages(&mut words);
        EdaxSolutions { words, set_aside: HashMap::new() }
    }

    pub fn set(&mut self, id: RecordId, solved: Negamaxed) {
        let was_set_aside = (self.words[id.index()] >> 8) as u8 == SET_ASIDE;
        self.words[id.index()] = match pack(&solved) {
            Some(word) => {
                if was_set_aside {
                    self.set_aside.remove(&id.0);
                }
                word
            }
            None => {
                self.set_aside.insert(id.0, solved);
                u64::from(SET_ASIDE) << 8
            }
        };
    }

    /// A record's solution; only asked of records already set.
    pub fn get(&self, id: RecordId) -> Negamaxed {
        let word = self.words[id.index()];
        match (word >> 8) as u8 {
            SET_ASIDE => self.set_aside.get(&id.0).copied().unwrap_or_else(|| unpack(word)),
            _ => unpack(word),
        }
    }

    /// Asks for the memory [`EdaxSolutions::get`] of `id` reads.
    pub fn prefetch(&self, id: RecordId) {
        prefetch_index::prefetch_index(&self.words, id.index());
    }

    /// Records set aside (for the log).
    pub fn set_aside(&self) -> usize {
        self.set_aside.len()
    }
}

fn pack(n: &Negamaxed) -> Option<u64> {
    let value = i8::try_from(n.value.discs()).ok()?;
    let delta = |bound: Score| {
        let d = bound.discs() - i32::from(value);
        DELTA_RANGE.contains(&d).then_some(d as i8 as u8)
    };
    let (lower, upper) = (delta(n.lower)?, delta(n.upper)?);
    let c = n.counts;
    let lines = u16::try_from(c.lines).ok()?;
    let (wins, draws, losses) = (u8::try_from(c.wins).ok()?, u8::try_from(c.draws).ok()?, u8::try_from(c.losses).ok()?);
    Some(
        u64::from(value as u8)
            | u64::from(lower) << 8
            | u64::from(upper) << 16
            | u64::from(lines) << 24
            | u64::from(wins) << 40
            | u64::from(draws) << 48
            | u64::from(losses) << 56,
    )
}

fn unpack(word: u64) -> Negamaxed {
    let byte = |shift: u32| (word >> shift) as u8;
    let value = byte(0) as i8;
    let bound = |shift| Score::from(i16::from(value) + i16::from(byte(shift) as i8));
    Negamaxed {
        value: value.into(),
        lower: bound(8),
        upper: bound(16),
        counts: Counts {
            wins: byte(40).into(),
            draws: byte(48).into(),
            losses: byte(56).into(),
            lines: (word >> 24) as u16 as u32,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solved(value: i16, lower: i16, upper: i16, counts: [u32; 4]) -> Negamaxed {
        let [wins, draws, losses, lines] = counts;
        let [value, lower, upper] = [value, lower, upper].map(Score::from);
        Negamaxed { value, lower, upper, counts: Counts { wins, draws, losses, lines } }
    }

    #[test]
    fn every_solution_reads_back_as_it_was_set_packed_or_set_aside() {
        let cases = [
            solved(0, 0, 0, [0; 4]),
            solved(-127, -127, -127, [0, 0, 0, 0]),
            solved(127, 0, 254, [255, 255, 255, 65_535]),
            solved(-127, -254, 0, [1, 2, 3, 4]),
            // −128 fits the value's byte (the mark is in the lower bound's).
            solved(-128, -128, -128, [0; 4]),
            // Set aside: a bound too far, counts too large, a value past i8.
            solved(100, -127, 101, [0, 0, 0, 1]),
            solved(5, 4, 6, [0, 0, 256, 300]),
            solved(5, 4, 6, [0, 0, 0, 65_536]),
            solved(5, 4, 6, [u32::MAX; 4]),
            solved(i16::MIN, i16::MAX, 0, [0; 4]),
        ];
        let mut store = EdaxSolutions::new(cases.len());
        for (i, case) in cases.iter().enumerate() {
            store.set(RecordId(i as u32), *case);
        }
        for (i, case) in cases.iter().enumerate() {
            assert_eq!(store.get(RecordId(i as u32)), *case, "case {i}");
        }
        assert_eq!(store.set_aside(), 5);
        // Set again with a small solution, a record reads as packed.
        store.set(RecordId(5), cases[0]);
        assert_eq!(store.get(RecordId(5)), cases[0]);
        assert_eq!(store.set_aside(), 4);
    }
}
