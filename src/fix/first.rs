//! Where the walk first arrived at each record, kept in six bytes a record
//! so that the receipt, written in file order long after the walk, can name
//! each changed record's line: the record it was first arrived at from (its
//! parent on the walk's stack, whose own first-arrival line the walk was
//! on), the move played, a pass after it, and how its stored board lies on
//! the position reached. A line is rebuilt by following parents up to the
//! start: a 100M-position book's lines never sit in memory.

use crate::board::Move;
use crate::book::RecordId;
use crate::symmetry::Symmetry;

/// No parent: the record is the walk's start.
const START: u32 = u32::MAX;
/// The record was arrived at (or is the start).
const REACHED: u16 = 1 << 15;
/// Bits 0–6: the move's code (0–64); bit 7: a pass follows it (SPEC §8).
const MOVE_BITS: u16 = 0x7f;
const THEN_PASS: u16 = 1 << 7;
const SYMMETRY_SHIFT: u16 = 8;
/// Longer than any line: 60 moves, each with a pass after it.
const MAX_STEPS: usize = 128;

/// First arrivals, by record id.
pub(super) struct FirstArrivals {
    parents: Vec<u32>,
    steps: Vec<u16>,
}

impl FirstArrivals {
    /// Room for `records` records, none reached. Zeroed memory is taken
    /// from the system as it is first written, so records the walk never
    /// reaches cost nothing.
    pub fn new(records: usize) -> FirstArrivals {
        FirstArrivals { parents: vec![0; records], steps: vec![0; records] }
    }

    /// Notes the walk's start, whose stored board `symmetry` maps onto the
    /// initial position.
    pub fn start(&mut self, id: RecordId, symmetry: Symmetry) {
        self.parents[id.index()] = START;
        self.steps[id.index()] = REACHED | u16::from(symmetry.index()) << SYMMETRY_SHIFT;
    }

    pub fn is_reached(&self, id: RecordId) -> bool {
        self.steps[id.index()] & REACHED != 0
    }

    /// Notes the first arrival at `id`: from `parent`, by `mv` (and a pass
    /// if `then_pass`), its stored board mapped onto the position by `symmetry`.
    pub fn note(&mut self, id: RecordId, parent: RecordId, mv: Move, then_pass: bool, symmetry: Symmetry) {
        self.parents[id.index()] = parent.0;
        self.steps[id.index()] = REACHED
            | u16::from(mv.code())
            | if then_pass { THEN_PASS } else { 0 }
            | u16::from(symmetry.index()) << SYMMETRY_SHIFT;
    }

    /// The line of the first arrival at a reached record, from the initial
    /// position, passes included, into `line`; and the symmetry that maps
    /// the record's stored board onto the position the line reaches.
    pub fn line(&self, id: RecordId, line: &mut Vec<Move>) -> Symmetry {
        line.clear();
        let step = self.steps[id.index()];
        let symmetry = Symmetry::new((step >> SYMMETRY_SHIFT) as u8 & 7).expect("three bits");
        let mut at = id.index();
        // Gathered backwards, from the record up to the start.
        for _ in 0..MAX_STEPS {
            if self.parents[at] == START {
                break;
            }
            let step = self.steps[at];
            if step & THEN_PASS != 0 {
                line.push(Move::Pass);
            }
            line.push(Move::from_code((step & MOVE_BITS) as u8).unwrap_or(Move::Pass));
            at = self.parents[at] as usize;
        }
        line.reverse();
        symmetry
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
    fn a_line_is_rebuilt_from_the_parents_up_to_the_start() {
        let mut first = FirstArrivals::new(6);
        let s = |i| Symmetry::new(i).unwrap();
        first.start(RecordId(4), s(0));
        first.note(RecordId(2), RecordId(4), play("F5"), false, s(5));
        first.note(RecordId(0), RecordId(2), play("D6"), true, s(3));
        first.note(RecordId(5), RecordId(0), Move::Pass, false, s(7));
        assert!(first.is_reached(RecordId(5)) && !first.is_reached(RecordId(1)) && !first.is_reached(RecordId(3)));
        let mut line = Vec::new();
        assert_eq!(first.line(RecordId(5), &mut line), s(7));
        assert_eq!(line, [play("F5"), play("D6"), Move::Pass, Move::Pass]);
        assert_eq!(first.line(RecordId(0), &mut line), s(3));
        assert_eq!(line, [play("F5"), play("D6"), Move::Pass]);
        assert_eq!(first.line(RecordId(4), &mut line), s(0));
        assert!(line.is_empty());
    }
}
