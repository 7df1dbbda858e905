//! Where the walk first arrived at each record, kept in six bytes a record
//! so that a file written in file order long after the walk (`fix`'s
//! receipt, `diff`'s lines) can name each record's line: the record it was first arrived at from (its
//! parent on the walk's stack, whose own first-arrival line the walk was
//! on), the move played, a pass after it, and how its stored board lies on
//! the position reached. A line is rebuilt by following parents up to the
//! start: a 100M-position book's lines never sit in memory.
//!
//! Following a parent is a read from anywhere in the table, and a line is
//! dozens of them, each waiting for the one before. So lines are rebuilt
//! many at a time ([`FirstArrivals::lines`]): one step of every chain in
//! turn, each asking for its next entry a round before reading it, so that
//! the reads of different chains overlap.

use crate::board::Move;
use crate::book::RecordId;
use crate::symmetry::Symmetry;
use std::ops::Range;

/// No parent: the record is the walk's start.
const START: u32 = u32::MAX;
/// Bits 0–6: the move's code (0–64); bit 7: a pass follows it (docs/formats.md, Egaroucid books).
const MOVE_BITS: u16 = 0x7f;
const THEN_PASS: u16 = 1 << 7;
const SYMMETRY_SHIFT: u16 = 8;
/// Longer than any line: 60 moves, each with a pass after it.
const MAX_STEPS: usize = 128;

/// One record's first arrival: its parent's id, then its step (the flags
/// above), little-endian. Bytes, not a struct of a u32 and a u16: six
/// bytes a record instead of eight, and one read brings both.
type Entry = [u8; 6];

fn parent_of(entry: &Entry) -> u32 {
    u32::from_le_bytes([entry[0], entry[1], entry[2], entry[3]])
}

fn step_of(entry: &Entry) -> u16 {
    u16::from_le_bytes([entry[4], entry[5]])
}

fn entry(parent: u32, step: u16) -> Entry {
    let (p, s) = (parent.to_le_bytes(), step.to_le_bytes());
    [p[0], p[1], p[2], p[3], s[0], s[1]]
}

/// First arrivals, by record id.
pub struct FirstArrivals {
    entries: Vec<Entry>,
}

/// Lines rebuilt together: each one's moves, from the initial position,
/// passes included, and the symmetry mapping its record's stored board
/// onto the position it reaches.
#[derive(Default)]
pub struct Lines {
    moves: Vec<Move>,
    lines: Vec<(Range<usize>, Symmetry)>,
    /// Where each chain has got to, and its moves so far (backwards).
    cursors: Vec<(usize, usize)>,
    backwards: Vec<Move>,
}

impl Lines {
    /// The `i`-th line asked for, and its symmetry.
    pub fn get(&self, i: usize) -> (&[Move], Symmetry) {
        let (range, symmetry) = &self.lines[i];
        (&self.moves[range.clone()], *symmetry)
    }
}

impl FirstArrivals {
    /// Room for `records` records, none reached. Zeroed memory is taken
    /// from the system as it is first written, so records the walk never
    /// reaches cost nothing.
    pub fn new(records: usize) -> FirstArrivals {
        let mut entries = vec![[0; 6]; records];
        crate::os::advise_huge_pages(&mut entries);
        FirstArrivals { entries }
    }

    /// Notes the walk's start, whose stored board `symmetry` maps onto the
    /// initial position.
    pub fn start(&mut self, id: RecordId, symmetry: Symmetry) {
        self.entries[id.index()] = entry(START, u16::from(symmetry.index()) << SYMMETRY_SHIFT);
    }

    /// Notes the first arrival at `id`: from `parent`, by `mv` (and a pass
    /// if `then_pass`), its stored board mapped onto the position by `symmetry`.
    pub fn note(&mut self, id: RecordId, parent: RecordId, mv: Move, then_pass: bool, symmetry: Symmetry) {
        let step = u16::from(mv.code())
            | if then_pass { THEN_PASS } else { 0 }
            | u16::from(symmetry.index()) << SYMMETRY_SHIFT;
        self.entries[id.index()] = entry(parent.0, step);
    }

    /// Asks for the memory [`FirstArrivals::lines`] reads first for `id`.
    pub fn prefetch(&self, id: RecordId) {
        prefetch_index::prefetch_index(&self.entries, id.index());
    }

    /// The lines of the first arrivals at `ids` (records the walk reached:
    /// any other reads as garbage), into
    /// `lines` (`lines.get(i)` is the line of `ids[i]`).
    pub fn lines(&self, ids: &[RecordId], lines: &mut Lines) {
        let Lines { moves, lines: done, cursors, backwards } = lines;
        moves.clear();
        done.clear();
        cursors.clear();
        backwards.clear();
        backwards.resize(ids.len() * MAX_STEPS, Move::Pass);
        for (i, id) in ids.iter().enumerate() {
            let step = step_of(&self.entries[id.index()]);
            let symmetry = Symmetry::new((step >> SYMMETRY_SHIFT) as u8 & 7).expect("three bits");
            done.push((0..0, symmetry));
            cursors.push((id.index(), i * MAX_STEPS));
        }
        // One step of every unfinished chain per round; a chain is at its
        // start when its entry has no parent (or, should the table be
        // damaged, when it is longer than any line).
        let mut active: Vec<usize> = (0..ids.len()).collect();
        while !active.is_empty() {
            active.retain(|&i| {
                let (at, written) = &mut cursors[i];
                let entry = &self.entries[*at];
                let limit = (i + 1) * MAX_STEPS;
                if parent_of(entry) == START || *written + 2 > limit {
                    return false;
                }
                let step = step_of(entry);
                if step & THEN_PASS != 0 {
                    backwards[*written] = Move::Pass;
                    *written += 1;
                }
                backwards[*written] = Move::from_code((step & MOVE_BITS) as u8).unwrap_or(Move::Pass);
                *written += 1;
                *at = parent_of(entry) as usize;
                prefetch_index::prefetch_index(&self.entries, *at);
                true
            });
        }
        for (i, (_, written)) in cursors.iter().enumerate() {
            let from = moves.len();
            moves.extend(backwards[i * MAX_STEPS..*written].iter().rev());
            done[i].0 = from..moves.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;

    fn play(name: &str) -> Move {
        Move::Play(Square::parse(name).unwrap())
    }

    #[test]
    fn lines_are_rebuilt_from_the_parents_up_to_the_start() {
        let mut first = FirstArrivals::new(6);
        let s = |i| Symmetry::new(i).unwrap();
        first.start(RecordId(4), s(0));
        first.note(RecordId(2), RecordId(4), play("F5"), false, s(5));
        first.note(RecordId(0), RecordId(2), play("D6"), true, s(3));
        first.note(RecordId(5), RecordId(0), Move::Pass, false, s(7));
        let mut lines = Lines::default();
        first.lines(&[RecordId(5), RecordId(4), RecordId(0), RecordId(5), RecordId(2)], &mut lines);
        let expected: [(&[Move], Symmetry); 5] = [
            (&[play("F5"), play("D6"), Move::Pass, Move::Pass], s(7)),
            (&[], s(0)),
            (&[play("F5"), play("D6"), Move::Pass], s(3)),
            (&[play("F5"), play("D6"), Move::Pass, Move::Pass], s(7)),
            (&[play("F5")], s(5)),
        ];
        for (i, want) in expected.iter().enumerate() {
            assert_eq!(lines.get(i), *want, "line {i}");
        }
        // The buffers are reused.
        first.lines(&[RecordId(2)], &mut lines);
        assert_eq!(lines.get(0), (&[play("F5")][..], s(5)));
    }
}
