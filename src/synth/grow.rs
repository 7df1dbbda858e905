//! Growing a synthetic book's positions, a level of discs at a time.
//!
//! Each level gets a share of the positions still to be grown, more for the
//! deeper levels of the middle game and fewer towards the end, and is filled
//! with children of the level before it: in rounds, every position there
//! (in a seeded order) adds its best move's child not yet held, then its
//! second best, and so on, until the level has its share. So most positions
//! continue their line by one move and some branch, as books grow by lines;
//! a child whose side to move must pass comes with the position after the
//! pass, in the same level (the same discs), unless its line stops there. When the deep levels cannot
//! take their share (near the end of the game few moves are left), the
//! levels before them are topped up with more children, from the deepest
//! up, so the book has exactly the positions asked for.

use super::error::SynthError;
use super::level::Level;
use super::play::ranked_moves;
use super::rng::{Rng, Salt};
use super::spill::LevelFile;
use crate::board::{Board, Move};
use crate::run::Cancel;
use crate::symmetry::normalize;

/// Chance that a line stops at a position whose side to move must pass.
const STOP_BEFORE_PASS: f64 = 0.1;

/// The deepest level: every square filled.
pub(super) const LAST_LEVEL: usize = 60;

/// A level's weight in the shares of what is still to be grown: growing
/// with the level to the 50th move, then falling by a tenth a level.
pub(super) fn weight(level: usize) -> u64 {
    const PEAK: usize = 50;
    if level <= PEAK {
        1000 * level as u64
    } else {
        (PEAK + 1..=level).fold(1000 * PEAK as u64, |w, _| w * 9 / 10)
    }
}

/// The share of `remaining` positions that level `level` is asked for: in
/// proportion to its weight among the levels still to come, at least one.
fn share(remaining: u64, level: usize, weight: &impl Fn(usize) -> u64) -> u64 {
    let rest: u64 = (level..=LAST_LEVEL).map(weight).sum();
    let share = (u128::from(remaining) * u128::from(weight(level)) + u128::from(rest) / 2) / u128::from(rest.max(1));
    (share as u64).clamp(remaining.min(1), remaining)
}

/// Grows `target` positions from the initial position, level by level into
/// `levels` (level k: the positions with 4 + k discs), shares set by `weight`.
pub(super) fn grow(
    target: u64,
    seed: u64,
    weight: impl Fn(usize) -> u64,
    levels: &mut LevelFile,
    cancel: Cancel<'_>,
    grown: &mut dyn FnMut(u64),
) -> Result<(), SynthError> {
    let root = normalize(&Board::INITIAL).board;
    levels.write(0, &[root]).map_err(SynthError::Spill)?;
    let mut remaining = target - 1;
    let mut parents = vec![root];
    for depth in 1..=LAST_LEVEL {
        cancel.check()?;
        let goal = share(remaining, depth, &weight);
        let mut level = Level::with_capacity(goal as usize);
        if goal > 0 {
            sort_for_growing(&mut parents, seed);
            fill(&mut level, &parents, goal as usize, seed);
        }
        remaining -= level.len() as u64;
        levels.write(depth, level.boards()).map_err(SynthError::Spill)?;
        grown(target - remaining);
        parents = level.into_boards();
    }
    top_up(target, remaining, seed, levels, cancel, grown)
}

/// Adds the positions the deep levels could not take to the levels before
/// them, from the deepest up, as children of the level above each; again,
/// while positions are missing, so that what one round added has children
/// in the next.
fn top_up(
    target: u64,
    mut remaining: u64,
    seed: u64,
    levels: &mut LevelFile,
    cancel: Cancel<'_>,
    grown: &mut dyn FnMut(u64),
) -> Result<(), SynthError> {
    while remaining > 0 {
        let before = remaining;
        for depth in (1..=LAST_LEVEL).rev() {
            if remaining == 0 {
                break;
            }
            cancel.check()?;
            let mut parents = levels.read(depth - 1).map_err(SynthError::Spill)?;
            sort_for_growing(&mut parents, seed);
            let mut level = Level::of(levels.read(depth).map_err(SynthError::Spill)?);
            let held = level.len();
            fill(&mut level, &parents, held + remaining as usize, seed);
            if level.len() > held {
                remaining -= (level.len() - held) as u64;
                levels.write(depth, level.boards()).map_err(SynthError::Spill)?;
                grown(target - remaining);
            }
        }
        if remaining == before {
            return Err(SynthError::TooLarge { asked: target, grown: target - remaining });
        }
    }
    Ok(())
}

/// The order in which a level's positions add children: seeded, so which
/// lines branch and which end is spread over the level.
fn sort_for_growing(parents: &mut [Board], seed: u64) {
    parents.sort_by_cached_key(|board| (Rng::for_board(seed, Salt::Growing, board).next(), *board));
}

/// Fills `level` to `goal` positions (or as many as the parents' moves
/// give) with children of `parents`, in rounds: round r adds each parent's
/// r-th ranked move's child, if new.
fn fill(level: &mut Level, parents: &[Board], goal: usize, seed: u64) {
    for round in 0.. {
        let mut tried = false;
        for parent in parents {
            if level.len() >= goal {
                return;
            }
            let ranked = ranked_moves(parent, &mut Rng::for_board(seed, Salt::Ranking, parent));
            let Some(&square) = ranked.get(round) else { continue };
            tried = true;
            let child = normalize(&super::play::after(parent, Move::Play(square))).board;
            if level.insert(child) && child.must_pass() && level.len() < goal && goes_on_after_pass(&child, seed) {
                level.insert(normalize(&child.swapped()).board);
            }
        }
        if !tried {
            return;
        }
    }
}

/// Whether a line that reaches a position whose side must pass goes on
/// past the pass (the position after it joins the level); some lines stop
/// there, and the pass is then the position's leaf.
fn goes_on_after_pass(board: &Board, seed: u64) -> bool {
    !Rng::for_board(seed, Salt::Passing, board).chance(STOP_BEFORE_PASS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_what_is_asked_and_every_level_gets_one_while_any_is_left() {
        for target in [1u64, 2, 5, 61, 62, 1000, 123_457, 215_000_000] {
            let mut remaining = target - 1;
            for level in 1..=LAST_LEVEL {
                let share = share(remaining, level, &weight);
                assert!(share <= remaining);
                assert!(share >= 1 || remaining == 0, "{target}: level {level}");
                remaining -= share;
            }
            assert_eq!(remaining, 0, "{target}: the last level takes what is left");
        }
    }

    #[test]
    fn weights_grow_to_the_middle_game_and_fall_to_the_end() {
        assert_eq!(weight(1), 1000);
        assert_eq!(weight(50), 50_000);
        assert_eq!(weight(51), 45_000);
        assert!(weight(60) > 0 && weight(60) < weight(59));
    }
}
