//! Scoring a synthetic book's positions, from the deepest level up: each
//! position's links (every move whose child is in the book), its leaf (the
//! best other move, searched as a record of its level is), and its value,
//! bounds and counts as Edax's `book negamax` leaves them, computed by
//! [`crate::negamax`] (the computation `fix` uses) from its children's, which
//! are one level down (or in the same level, after a pass). Then a seeded
//! fraction of records gets one score changed, and each record is encoded in
//! the book's format and kept in its bucket until the book is written.

use super::error::SynthError;
use super::level::Level;
use super::options::{SynthOptions, SynthReport};
use super::play::{after, score_move_above, LEVEL, SCORE_LIMIT};
use super::rng::{Rng, Salt};
use super::spill::{Buckets, LevelFile};
use crate::board::{hash_board, Board, Move, Square};
use crate::book::{Leaf, Link, Score};
use crate::format::edax::entries::Entry;
use crate::format::Format;
use crate::negamax::{self, EdaxPosition, Negamaxed, SearchErrors};
use crate::run::Cancel;
use crate::symmetry::{normalize, Symmetry};
use smallvec::SmallVec;

/// Positions scored together, split among the threads.
const CHUNK: usize = 1 << 15;

/// A scored level: its boards, found by hash, and what the negamax made of each.
struct Scored {
    level: Level,
    done: Vec<Negamaxed>,
}

impl Scored {
    fn get(&self, board: &Board) -> Option<Negamaxed> {
        self.level.find(board).map(|id| self.done[id as usize])
    }
}

/// What scoring needs besides the levels.
pub(super) struct Scoring<'a> {
    pub format: Format,
    pub options: &'a SynthOptions,
    pub errors: SearchErrors,
    pub cancel: Cancel<'a>,
}

/// Scores every level, deepest first, and keeps each record in `buckets`.
pub(super) fn score(
    levels: &mut LevelFile,
    scoring: &Scoring<'_>,
    buckets: &mut Buckets,
    scored: &mut dyn FnMut(u64),
) -> Result<SynthReport, SynthError> {
    let mut report = SynthReport::default();
    let mut below: Option<Scored> = None;
    for depth in (0..levels.levels()).rev() {
        scoring.cancel.check()?;
        let level = Level::of(levels.read(depth).map_err(SynthError::Spill)?);
        let here = score_level(level, below.as_ref(), scoring, buckets, &mut report)?;
        scored(report.positions);
        below = Some(here);
    }
    Ok(report)
}

/// Scores one level: the positions that can move first, then those that
/// must pass, whose child (after the pass) is in this level.
fn score_level(
    level: Level,
    below: Option<&Scored>,
    scoring: &Scoring<'_>,
    buckets: &mut Buckets,
    report: &mut SynthReport,
) -> Result<Scored, SynthError> {
    let unknown = Negamaxed { value: Score(0), lower: Score(0), upper: Score(0), counts: Default::default() };
    let mut here = Scored { done: vec![unknown; level.len()], level };
    let (passing, moving): (Vec<u32>, Vec<u32>) = (0..u32::try_from(here.level.len())
        .expect("a level's boards are numbered in 32 bits"))
        .partition(|&id| here.level.boards()[id as usize].must_pass());
    let mut bytes = Vec::with_capacity(256);
    for ids in [moving, passing] {
        for chunk in ids.chunks(CHUNK) {
            let positions = on_every_core(chunk, |id| {
                let board = here.level.boards()[id as usize];
                position(&board, below, &here, scoring.errors)
            });
            for (&id, (solved, entry)) in chunk.iter().zip(positions) {
                here.done[id as usize] = solved;
                keep(entry, scoring, buckets, report, &mut bytes)?;
            }
        }
    }
    Ok(here)
}

/// `f` of every item, in order, the items split among the machine's cores.
fn on_every_core<T: Send>(items: &[u32], f: impl Fn(u32) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let part = items.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = items
            .chunks(part)
            .map(|part| scope.spawn(move || part.iter().map(|&id| f(id)).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a scoring thread")).collect()
    })
}

/// One position's links (with their children's results) and leaf.
#[derive(Default)]
struct Moves {
    /// (move, child) in square order.
    links: SmallVec<[(Move, Negamaxed); 4]>,
    /// The best unlinked move and its searched score.
    leaf: Option<(Move, i32)>,
}

/// Links every move whose child is in the book and scores the best other one.
fn moves_of(board: &Board, below: Option<&Scored>, here: &Scored) -> Moves {
    let mut moves = Moves::default();
    let legal = board.legal_moves();
    let candidates: SmallVec<[Move; 32]> = if legal != 0 {
        Square::iter(legal).map(Move::Play).collect()
    } else if board.must_pass() {
        smallvec::smallvec![Move::Pass]
    } else {
        return moves;
    };
    for mv in candidates {
        let child = normalize(&after(board, mv)).board;
        let found = match mv {
            Move::Pass => here.get(&child),
            Move::Play(_) => below.and_then(|b| b.get(&child)),
        };
        match found {
            Some(solved) => moves.links.push((mv, solved)),
            None => {
                // The best unlinked move, the first of equals: a move is
                // searched only as far as it takes to know it is no better.
                if let Some(score) = score_move_above(board, mv, moves.leaf.map(|(_, best)| best)) {
                    moves.leaf = Some((mv, score));
                }
            }
        }
    }
    moves
}

/// The leaf as Edax stores it (docs/formats.md, Edax books): the best
/// unlinked move and its score; else a finished game's final score, with
/// no move; else none, every legal move linked.
fn stored_leaf(board: &Board, moves: &Moves) -> Option<Leaf> {
    match moves.leaf {
        Some((mv, score)) => Some(Leaf::new(Score(score), Some(mv))),
        None if board.is_game_over() => Some(Leaf::new(Score(board.final_score()), None)),
        None => None,
    }
}

/// One position as Edax's negamax leaves it: what it computed, and the
/// record: value, bounds and counts, each link scored by its child, the
/// links in Edax's sorted order, the leaf.
fn position(board: &Board, below: Option<&Scored>, here: &Scored, errors: SearchErrors) -> (Negamaxed, Entry) {
    let moves = moves_of(board, below, here);
    let leaf = stored_leaf(board, &moves);
    let empties = u8::try_from(board.empties()).expect("64 squares at most");
    let own = EdaxPosition { empties, level: LEVEL, leaf };
    let solved = negamax::edax_position(&own, errors, moves.links.iter().map(|&(_, child)| Some(child)));
    let mut entry = Entry::new(*board, solved.value.discs());
    (entry.lower, entry.upper) = (solved.lower, solved.upper);
    let c = solved.counts;
    entry.counts = [c.wins, c.draws, c.losses, c.lines];
    entry.level = LEVEL.to_u8();
    entry.links = moves.links.iter().map(|&(mv, child)| Link::new(negamax::edax_link_score(&child), mv)).collect();
    negamax::sort_links(&mut entry.links, |l| l.score);
    entry.set_leaf(leaf);
    (solved, entry)
}

/// Perturbs (maybe), counts and encodes a record, and keeps it in its bucket.
fn keep(
    mut entry: Entry,
    scoring: &Scoring<'_>,
    buckets: &mut Buckets,
    report: &mut SynthReport,
    bytes: &mut Vec<u8>,
) -> Result<(), SynthError> {
    let seed = scoring.options.seed;
    let mut rng = Rng::for_board(seed, Salt::Perturbing, &entry.board);
    if rng.chance(scoring.options.perturb) {
        perturb(&mut entry, &mut rng);
        report.perturbed += 1;
    }
    report.positions += 1;
    report.links += entry.links.len() as u64;
    report.leaves += u64::from(entry.leaf.is_some());
    report.passes += entry.links.iter().chain(&entry.leaf).filter(|l| l.mv == Move::Pass).count() as u64;
    bytes.clear();
    encode_entry(scoring.format, bytes, &entry);
    let key = Rng::for_board(seed, Salt::Order, &entry.board).next();
    buckets.push(key, bytes).map_err(SynthError::Spill)
}

/// Changes one score of the entry by a few discs: its value, a link or the leaf.
fn perturb(entry: &mut Entry, rng: &mut Rng) {
    let delta = (2 + rng.below(7) as i32) * if rng.chance(0.5) { 1 } else { -1 };
    let shift = |s: &mut Score| s.0 = (s.0 + delta).clamp(-SCORE_LIMIT, SCORE_LIMIT);
    let n_links = entry.links.len() as u64;
    match rng.below(3) {
        1 if n_links > 0 => shift(&mut entry.links[rng.below(n_links) as usize].score),
        2 if entry.leaf.is_some() => shift(&mut entry.leaf.as_mut().expect("a leaf").score),
        _ => shift(&mut entry.value),
    }
}

/// Encodes one position in the format asked for. The older Egaroucid
/// formats store the board in one of its symmetric images, as Egaroucid
/// did: the one the board's hash picks.
fn encode_entry(format: Format, bytes: &mut Vec<u8>, entry: &Entry) {
    let image = Symmetry::ALL[(hash_board(&entry.board) >> 61) as usize];
    format.encode_entry(bytes, entry, image);
}
