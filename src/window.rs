//! Windows (docs/walk.md, windows): which moves a walk follows. A window is a filter on
//! the moves of one position, asked by the walk before it follows them; it
//! knows nothing of the walk or of the book's format.

use crate::book::Score;

/// The limits of a window; `None`: no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// Follow a move only if it scores at least the position's best move
    /// minus this.
    pub deviation: Option<u32>,
    /// Follow a move only if its score is within this of the start
    /// position's value (negated at an odd number of plies below the start).
    pub error: Option<u32>,
    /// Follow moves only at positions fewer than this many plies below the
    /// start.
    pub max_ply: Option<u32>,
}

/// Where a position lies on the walk, as far as a window cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Plies from the start (passes count).
    pub ply: usize,
    /// The position's best move score (M in docs/modes.md), if it has a move.
    pub best: Option<Score>,
}

impl Window {
    /// No limit at all: the walk of docs/walk.md.
    pub const NONE: Window = Window { deviation: None, error: None, max_ply: None };

    /// True if the window lets every move through.
    pub fn is_open(&self) -> bool {
        *self == Window::NONE
    }

    /// True if `error` makes the moves that pass depend on the parity of the
    /// ply (the start value's sign): then a position reached at an even and
    /// at an odd ply follows two different sets of moves.
    pub fn depends_on_parity(&self) -> bool {
        self.error.is_some()
    }

    /// True if any move of a position at `ply` may pass.
    pub fn open_at(&self, ply: usize) -> bool {
        self.max_ply.is_none_or(|k| ply < k as usize)
    }

    /// True if a move scoring `score` passes at `place`; `start_value` is
    /// the start position's value.
    pub fn passes(&self, score: Score, place: Place, start_value: Score) -> bool {
        if !self.open_at(place.ply) {
            return false;
        }
        if let (Some(d), Some(best)) = (self.deviation, place.best) {
            if i64::from(score.0) < i64::from(best.0) - i64::from(d) {
                return false;
            }
        }
        if let Some(e) = self.error {
            let w = if place.ply.is_multiple_of(2) { start_value.0 } else { -start_value.0 };
            if (i64::from(score.0) - i64::from(w)).abs() > i64::from(e) {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ply: usize, best: i32) -> Place {
        Place { ply, best: Some(Score(best)) }
    }

    #[test]
    fn no_window_passes_everything() {
        assert!(Window::NONE.passes(Score(-64), at(59, 64), Score(0)));
    }

    #[test]
    fn deviation_keeps_moves_within_d_of_the_best() {
        let w = Window { deviation: Some(2), ..Window::NONE };
        assert!(w.passes(Score(3), at(0, 5), Score(0)));
        assert!(!w.passes(Score(2), at(0, 5), Score(0)));
        let zero = Window { deviation: Some(0), ..Window::NONE };
        assert!(zero.passes(Score(5), at(0, 5), Score(0)) && !zero.passes(Score(4), at(0, 5), Score(0)));
    }

    #[test]
    fn error_compares_with_the_start_value_signed_by_parity() {
        let w = Window { error: Some(1), ..Window::NONE };
        assert!(w.passes(Score(3), at(0, 9), Score(2)));
        assert!(!w.passes(Score(4), at(0, 9), Score(2)));
        assert!(w.passes(Score(-3), at(1, 9), Score(2)));
        assert!(!w.passes(Score(2), at(1, 9), Score(2)));
    }

    #[test]
    fn max_ply_stops_at_the_ply() {
        let w = Window { max_ply: Some(2), ..Window::NONE };
        assert!(w.passes(Score(0), at(1, 0), Score(0)));
        assert!(!w.passes(Score(0), at(2, 0), Score(0)));
        assert!(!Window { max_ply: Some(0), ..Window::NONE }.open_at(0));
    }
}
