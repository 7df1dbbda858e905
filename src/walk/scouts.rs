//! Scouts: subtrees a walk has yet to enter, walked ahead down their first
//! paths so that their reads overlap the walk's.

use crate::book::index::Located;

/// How many subtrees are walked ahead of the walk at most.
const SCOUTS: usize = 16;
/// How far down its first path a subtree is walked ahead.
const SCOUT_STEPS: u32 = 64;

/// Subtrees the walk has yet to enter, walked ahead down their first paths
/// (the positions the walk will enter first there), each step asking for
/// what entering a position reads: its record, its targets and its visited
/// bit. A line of positions is a chain of dependent reads that no amount
/// of asking ahead shortens; the subtrees waiting on the stack are chains
/// of their own, so walking them ahead overlaps their reads with the
/// walk's. Only memory is asked for: nothing a scout does changes what the
/// walk reads.
pub(super) struct Scouts {
    scouts: [Option<Scout>; SCOUTS],
    /// Where the next scout goes: over the oldest, whose subtree, lower on
    /// the stack, the walk will enter last.
    next: usize,
    /// Which half of the scouts moves on the next call to [`Scouts::advance`].
    half: usize,
}

/// A position a scout has asked for, and how far it may still go.
#[derive(Clone, Copy)]
struct Scout {
    at: Located,
    steps_left: u32,
}

impl Scouts {
    pub(super) fn new() -> Scouts {
        Scouts { scouts: [None; SCOUTS], next: 0, half: 0 }
    }

    /// Starts walking ahead from `at`, whose record and targets have just
    /// been asked for.
    pub(super) fn start(&mut self, at: Located) {
        self.scouts[self.next] = Some(Scout { at, steps_left: SCOUT_STEPS });
        self.next = (self.next + 1) % SCOUTS;
    }

    /// Moves half of the scouts one position down their paths, by turns:
    /// each reads what it asked for two calls before, time enough for it
    /// to arrive, and asks for the next position.
    pub(super) fn advance(&mut self, first_child: impl Fn(Located) -> Option<Located>, prefetch: impl Fn(Located)) {
        self.half ^= 1;
        // An index loop: this runs at every position, and the iterator
        // adapters (skip, step_by) cost a third of it.
        let mut i = self.half;
        while i < SCOUTS {
            if let Some(scout) = self.scouts[i] {
                self.scouts[i] = match first_child(scout.at) {
                    Some(child) if scout.steps_left > 0 => {
                        prefetch(child);
                        Some(Scout { at: child, steps_left: scout.steps_left - 1 })
                    }
                    _ => None,
                };
            }
            i += 2;
        }
    }
}
