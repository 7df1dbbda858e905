//! `synth`: writes a realistic Edax book of a chosen size, for the sample
//! book, tests and benchmarks.
//!
//! The book is grown the way books are built: lines are played from positions
//! already in the book, choosing each move by a cheap evaluation plus seeded
//! noise, and some lines are played to the end of the game (so the book has
//! endgame positions and passes). Then every legal move whose child is in the
//! book becomes a link (so transpositions and the four symmetric first moves
//! are linked), the best remaining move becomes the leaf, scored as a level-2
//! Edax search scores it. Each record is then what Edax 4.6's `book negamax`
//! would leave (SPEC §1, §11): Edax's own leaves where no move is left
//! unlinked, and value, bounds, counts and link scores computed children
//! first by [`crate::negamax`] (the computation `fix` uses) with the errors
//! the header states. Last, a seeded fraction of scores is perturbed so every
//! mode finds mismatches. The same options always give the same bytes.

use crate::board::{legal_moves, Bitboard, Board, Move, Square};
use crate::book::index::hash_board;
use crate::book::older_egaroucid as older;
use crate::book::{edax, egaroucid, Format, Link, Score};
use crate::negamax::{self, Counts, EdaxPosition, Negamaxed, SearchErrors};
use crate::symmetry::{normalize, Symmetry};
use crate::write::entries as writer;
use hashbrown::HashTable;
use smallvec::SmallVec;
use std::io::{self, Write};

/// The most positions a book may hold: the header counts them in an i32.
pub const MAX_POSITIONS: usize = i32::MAX as usize;
/// The level of every record and of the header: Edax's level table says
/// how deep that searches a leaf (2 plies: the move, then the best reply,
/// and to the end of the game from 4 empty squares), and the leaves are
/// scored that way.
const LEVEL: u8 = 2;
/// Chance that a new line is played to the end of the game.
const END_LINE_CHANCE: f64 = 0.08;
/// Other lines are 1..=MAX_LINE plies long.
const MAX_LINE: u64 = 12;
/// Noise added to the evaluation when choosing a line's next move.
const CHOICE_NOISE: u64 = 6;
/// Scores are clamped to the disc range.
const SCORE_LIMIT: i32 = 64;

/// What to synthesize.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SynthOptions {
    pub positions: usize,
    pub seed: u64,
    /// Fraction of positions (0..=1) with one score changed after scoring.
    pub perturb: f64,
}

/// What a synthesized book holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SynthReport {
    pub positions: u64,
    pub links: u64,
    pub leaves: u64,
    pub passes: u64,
    pub perturbed: u64,
}

/// A deterministic generator (SplitMix64): the sample book must come out the
/// same on every machine and with every version of every dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// The book under construction: normalized boards, found by hash.
struct Positions {
    boards: Vec<Board>,
    index: HashTable<u32>,
}

impl Positions {
    fn new(capacity: usize) -> Positions {
        Positions { boards: Vec::with_capacity(capacity), index: HashTable::with_capacity(capacity) }
    }

    fn find(&self, board: &Board) -> Option<u32> {
        self.index.find(hash_board(board), |&id| self.boards[id as usize] == *board).copied()
    }

    /// Adds a normalized board if it is new; true when it was.
    fn insert(&mut self, board: Board) -> bool {
        let hash = hash_board(&board);
        if self.index.find(hash, |&id| self.boards[id as usize] == board).is_some() {
            return false;
        }
        let id = self.boards.len() as u32;
        let boards = &self.boards;
        self.index.insert_unique(hash, id, |&other| hash_board(&boards[other as usize]));
        self.boards.push(board);
        true
    }
}

const CORNERS: Bitboard = 0x8100_0000_0000_0081;
/// The squares diagonally next to the corners: bad while the corner is empty.
const X_SQUARES: Bitboard = 0x0042_0000_0000_4200;

/// A cheap evaluation in discs for the side to move: mobility and corners.
fn evaluate(board: &Board) -> i32 {
    let mobility = legal_moves(board.player, board.opponent).count_ones() as i32
        - legal_moves(board.opponent, board.player).count_ones() as i32;
    let count =
        |bits: Bitboard| (bits & board.player).count_ones() as i32 - (bits & board.opponent).count_ones() as i32;
    let open_x = X_SQUARES & !spread_corners(board.player | board.opponent);
    (3 * mobility + 8 * count(CORNERS) - 4 * count(open_x)).clamp(-SCORE_LIMIT + 2, SCORE_LIMIT - 2)
}

/// The X-squares next to occupied corners.
fn spread_corners(occupied: Bitboard) -> Bitboard {
    let corners = occupied & CORNERS;
    ((corners & 0x01) << 9) | ((corners & 0x80) << 7) | ((corners >> 7) & (1 << 49)) | ((corners >> 9) & (1 << 54))
}

/// The final score of a finished game: disc difference, empties to the winner.
fn final_score(board: &Board) -> i32 {
    let diff = board.player.count_ones() as i32 - board.opponent.count_ones() as i32;
    let empties = board.empties() as i32;
    match diff.signum() {
        1 => diff + empties,
        -1 => diff - empties,
        _ => 0,
    }
}

/// Plain negamax to `depth` plies with [`evaluate`] at the horizon.
fn negamax(board: &Board, depth: u32) -> i32 {
    let moves = board.legal_moves();
    if moves == 0 {
        if legal_moves(board.opponent, board.player) == 0 {
            return final_score(board);
        }
        return if depth == 0 { evaluate(board) } else { -negamax(&board.swapped(), depth - 1) };
    }
    if depth == 0 {
        return evaluate(board);
    }
    Square::iter(moves).map(|sq| -negamax(&after(board, Move::Play(sq)), depth - 1)).max().expect("a legal move")
}

/// The exact score of a position: [`negamax`] to the end of the game.
fn solve(board: &Board) -> i32 {
    let moves = board.legal_moves();
    if moves == 0 {
        return if board.must_pass() { -solve(&board.swapped()) } else { final_score(board) };
    }
    Square::iter(moves).map(|sq| -solve(&after(board, Move::Play(sq)))).max().expect("a legal move")
}

/// The score of a move (or pass) for the side to move, searched as a
/// record of [`LEVEL`] is: solved where the level table solves.
fn score_move(board: &Board, mv: Move) -> i32 {
    let empties = board.empties() as u8;
    let search = negamax::search_level(LEVEL, empties);
    let child = after(board, mv);
    if search.solves(empties) {
        -solve(&child)
    } else {
        -negamax(&child, u32::from(search.depth).saturating_sub(1))
    }
}

/// The board after a move the caller knows is legal.
fn after(board: &Board, mv: Move) -> Board {
    board.after(mv).expect("a legal move")
}

/// Picks the next move of a growing line: best by evaluation plus noise.
fn choose_move(board: &Board, rng: &mut Rng) -> Option<Move> {
    let moves = board.legal_moves();
    if moves == 0 {
        return board.must_pass().then_some(Move::Pass);
    }
    Square::iter(moves)
        .map(|sq| (-evaluate(&after(board, Move::Play(sq))) + rng.below(CHOICE_NOISE) as i32, sq))
        .max_by_key(|&(score, sq)| (score, std::cmp::Reverse(sq.index())))
        .map(|(_, sq)| Move::Play(sq))
}

/// Grows the book to `target` positions by playing lines from positions
/// already in it, favouring early (shallow) ones.
fn grow(target: usize, rng: &mut Rng) -> Positions {
    let mut book = Positions::new(target);
    book.insert(normalize(&Board::INITIAL).board);
    while book.boards.len() < target {
        let pick = rng.unit().powi(2) * book.boards.len() as f64;
        let mut board = book.boards[pick as usize];
        let plies = if rng.chance(END_LINE_CHANCE) { 64 } else { 1 + rng.below(MAX_LINE) };
        for _ in 0..plies {
            let Some(mv) = choose_move(&board, rng) else { break };
            board = normalize(&after(&board, mv)).board;
            if book.insert(board) && book.boards.len() == target {
                break;
            }
        }
    }
    book
}

/// One position's moves: links to positions in the book, the best other move.
#[derive(Clone, Debug, Default)]
struct Moves {
    /// (move, child id) in square order.
    links: SmallVec<[(Move, u32); 3]>,
    /// The best unlinked move and its searched score.
    leaf: Option<(Move, i32)>,
}

/// Links every move whose child is in the book and scores the best other one.
fn moves_of(book: &Positions, board: &Board) -> Moves {
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
        let next = normalize(&after(board, mv)).board;
        match book.find(&next) {
            Some(id) => moves.links.push((mv, id)),
            None => {
                let score = score_move(board, mv);
                if moves.leaf.is_none_or(|(_, best)| score > best) {
                    moves.leaf = Some((mv, score));
                }
            }
        }
    }
    moves
}

/// [`moves_of`] for every position, on every core (the result does not
/// depend on how the work is split).
fn all_moves(book: &Positions) -> Vec<Moves> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let chunk = book.boards.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = book
            .boards
            .chunks(chunk)
            .map(|boards| scope.spawn(move || boards.iter().map(|b| moves_of(book, b)).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a scoring thread")).collect()
    })
}

/// The leaf as stored: the best unlinked move and its score; else move 65
/// with the score Edax gives it (SPEC §1): a finished game's final score, or
/// −127 when every legal move is linked.
fn stored_leaf(board: &Board, moves: &Moves) -> (Option<Link>, i8) {
    match moves.leaf {
        Some((mv, score)) => (Some(Link::new(Score(score), mv)), score as i8),
        None if board.is_game_over() => (None, final_score(board) as i8),
        None => (None, -(negamax::SCORE_INF as i8)),
    }
}

/// What Edax's `book negamax` makes of each position, computed children
/// first: more discs first, and a position that must pass after the one its
/// pass leads to (same discs).
fn negamaxed(book: &Positions, moves: &[Moves], errors: SearchErrors) -> Vec<Negamaxed> {
    let mut order: Vec<u32> = (0..book.boards.len() as u32).collect();
    order.sort_by_key(|&id| {
        let board = &book.boards[id as usize];
        (board.empties(), board.must_pass())
    });
    let unknown = Negamaxed { value: 0, lower: 0, upper: 0, counts: Counts::default() };
    let mut done = vec![unknown; book.boards.len()];
    for id in order {
        let id = id as usize;
        let board = &book.boards[id];
        let (_, leaf_score) = stored_leaf(board, &moves[id]);
        let position = EdaxPosition { empties: board.empties() as u8, level: LEVEL, leaf_score };
        let children = moves[id].links.iter().map(|&(_, child)| Some(done[child as usize]));
        done[id] = negamax::edax_position(&position, errors, children);
    }
    done
}

/// One position as Edax's negamax leaves it: its computed value, bounds and
/// counts, each link scored by its child, the links in Edax's sorted order.
fn entry_of(board: Board, moves: &Moves, done: &[Negamaxed], id: usize) -> writer::Entry {
    let own = &done[id];
    let mut entry = writer::Entry::new(board, own.value.into());
    (entry.lower, entry.upper) = (Score(own.lower.into()), Score(own.upper.into()));
    let c = own.counts;
    entry.counts = [c.wins, c.draws, c.losses, c.lines];
    entry.level = LEVEL;
    entry.links = moves
        .links
        .iter()
        .map(|&(mv, child)| Link::new(Score(negamax::edax_link_score(&done[child as usize]).into()), mv))
        .collect();
    negamax::sort_links(&mut entry.links, |l| l.score.0 as i8);
    (entry.leaf, entry.no_leaf_score) = stored_leaf(&board, moves);
    entry
}

/// Changes one score of the entry by a few discs: its value, a link or the leaf.
fn perturb(entry: &mut writer::Entry, rng: &mut Rng) {
    let delta = (2 + rng.below(7) as i32) * if rng.chance(0.5) { 1 } else { -1 };
    let shift = |s: &mut Score| s.0 = (s.0 + delta).clamp(-SCORE_LIMIT, SCORE_LIMIT);
    let n_links = entry.links.len() as u64;
    match rng.below(3) {
        1 if n_links > 0 => shift(&mut entry.links[rng.below(n_links) as usize].score),
        2 if entry.leaf.is_some() => shift(&mut entry.leaf.as_mut().expect("a leaf").score),
        _ => shift(&mut entry.value),
    }
}

/// Grows, links, scores and perturbs a book, then writes it to `out` in
/// Edax's format with its records in a seeded random order (as a hash-table
/// dump would have them).
pub fn synthesize(options: &SynthOptions, out: &mut impl Write) -> io::Result<SynthReport> {
    synthesize_as(Format::Edax, options, out)
}

/// A synthetic Edax book written to memory (tests, benchmarks).
pub fn book_bytes(options: &SynthOptions) -> Vec<u8> {
    let mut bytes = Vec::new();
    synthesize(options, &mut bytes).expect("writing to memory does not fail");
    bytes
}

/// Appends one position in a format's layout. An Egaroucid record keeps the
/// value and, in an `.egbk3`, the leaf; its links are the moves whose child
/// is in the book. The older Egaroucid formats store the board in one of its
/// symmetric images, as Egaroucid did (picked by the board's hash), and an
/// `.egbk2` the links and leaf as its pairs, which are no links to a reader.
fn encode_entry(format: Format, bytes: &mut Vec<u8>, entry: &writer::Entry) {
    let value = entry.value.0.clamp(-SCORE_LIMIT, SCORE_LIMIT) as i8;
    // The older formats' image, and the pairs' moves turned with it.
    let turn = Symmetry::ALL[(hash_board(&entry.board) >> 61) as usize];
    let image = turn.board(&entry.board);
    match format {
        Format::Edax => writer::encode_entry(bytes, entry),
        Format::Egbk3 => {
            egaroucid::encode_record(bytes, &entry.board, value, entry.level as i8, entry.counts[3], entry.leaf)
        }
        Format::Egbk2 => {
            let pair = |l: &Link| (l.score.0 as i8, turn.apply_move(l.mv).code());
            let pairs: Vec<(i8, u8)> = entry.links.iter().chain(&entry.leaf).map(pair).collect();
            older::encode_egbk2_record(bytes, &image, value, entry.level as i8, &pairs)
        }
        Format::Egbk => older::encode_egbk_record(bytes, &image, value),
    }
}

/// [`synthesize`], writing the book in the given format.
pub fn synthesize_as(format: Format, options: &SynthOptions, out: &mut impl Write) -> io::Result<SynthReport> {
    let mut rng = Rng(options.seed);
    let target = options.positions.clamp(1, MAX_POSITIONS);
    let began = std::time::Instant::now();
    let book = grow(target, &mut rng);
    tracing::info!("grew {} positions in {:.1} s", book.boards.len(), began.elapsed().as_secs_f64());
    let moves = all_moves(&book);
    tracing::info!("linked and searched in {:.1} s", began.elapsed().as_secs_f64());
    let n = book.boards.len();
    let header = writer::header(n, LEVEL.into());
    // The negamax reads the errors the header states, as Edax does.
    let errors = SearchErrors { midgame: header.midgame_error, endcut: header.endcut_error };
    let done = negamaxed(&book, &moves, errors);
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut report = SynthReport { positions: n as u64, ..SynthReport::default() };
    let mut bytes = Vec::with_capacity(1 << 20);
    match format {
        Format::Edax => edax::encode_header(&mut bytes, &header),
        Format::Egbk3 => egaroucid::encode_header(&mut bytes, n),
        Format::Egbk2 => older::encode_egbk2_header(&mut bytes, n),
        Format::Egbk => older::encode_egbk_header(&mut bytes, n),
    }
    for id in order {
        let id = id as usize;
        let mut entry = entry_of(book.boards[id], &moves[id], &done, id);
        if rng.chance(options.perturb) {
            perturb(&mut entry, &mut rng);
            report.perturbed += 1;
        }
        report.links += entry.links.len() as u64;
        report.leaves += u64::from(entry.leaf.is_some());
        report.passes += entry.links.iter().chain(&entry.leaf).filter(|l| l.mv == Move::Pass).count() as u64;
        encode_entry(format, &mut bytes, &entry);
        if bytes.len() >= 1 << 20 {
            out.write_all(&bytes)?;
            bytes.clear();
        }
    }
    out.write_all(&bytes)?;
    tracing::info!("scored and wrote in {:.1} s", began.elapsed().as_secs_f64());
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::verify::verify;
    use crate::book::Details;
    use crate::symmetry::Symmetry;
    use std::collections::HashMap;

    fn book(positions: usize, seed: u64, perturb: f64) -> (Vec<u8>, SynthReport) {
        let mut bytes = Vec::new();
        let report = synthesize(&SynthOptions { positions, seed, perturb }, &mut bytes).unwrap();
        (bytes, report)
    }

    #[test]
    fn the_same_options_give_the_same_bytes() {
        assert_eq!(book(500, 7, 0.1), book(500, 7, 0.1));
        assert_ne!(book(500, 7, 0.1).0, book(500, 8, 0.1).0);
    }

    #[test]
    fn a_synthesized_book_verifies_clean_and_has_what_was_asked() {
        let (bytes, report) = book(3000, 3, 0.05);
        let verified = verify(&bytes);
        assert!(verified.is_clean(), "{:?}", &verified.problems[..verified.problems.len().min(5)]);
        assert_eq!(verified.records, 3000);
        assert_eq!(report.positions, 3000);
        assert!(report.passes > 0, "{report:?}");
        assert!(report.perturbed > 50, "{report:?}");
    }

    #[test]
    fn an_unperturbed_book_is_consistent() {
        let (bytes, _) = book(2000, 5, 0.0);
        let book = crate::book::Book::from_bytes("synth", bytes).unwrap();
        for record in book.records() {
            let board = record.board();
            let scores: Vec<i32> = record.moves().map(|l| l.score.0).collect();
            if let Some(best) = scores.iter().max() {
                assert_eq!(record.value().0, *best, "value is the best move's score");
            }
            for link in record.links() {
                let child = normalize(&board.after(link.mv).unwrap()).board;
                let child = book.find(&child).expect("a link's child is in the book");
                assert_eq!(link.score.0, -child.value().0, "a link's score is minus its child's value");
            }
        }
    }

    /// Edax's `book negamax` run as Edax runs it (SPEC §11): from the initial
    /// position, depth first, each record computed once after its children,
    /// by src/negamax.rs. Returns what it computed, by board.
    fn edax_negamax(book: &crate::book::Book, bytes: &[u8]) -> HashMap<Board, Negamaxed> {
        let header = edax::parse_header(bytes).unwrap();
        let errors = SearchErrors { midgame: header.midgame_error, endcut: header.endcut_error };
        let mut done = HashMap::new();
        visit(book, bytes, errors, normalize(&Board::INITIAL).board, &mut done);
        done
    }

    fn visit(
        book: &crate::book::Book,
        bytes: &[u8],
        errors: SearchErrors,
        board: Board,
        done: &mut HashMap<Board, Negamaxed>,
    ) -> Negamaxed {
        if let Some(&known) = done.get(&board) {
            return known;
        }
        let record = book.find(&board).expect("a linked position is in the book");
        // The stored leaf score, whatever its move (65 included).
        let leaf_score = bytes[record.offset as usize + 40 + 2 * record.n_links()] as i8;
        let position = EdaxPosition { empties: board.empties() as u8, level: record.level as u8, leaf_score };
        let children: Vec<_> = record
            .links()
            .map(|l| Some(visit(book, bytes, errors, normalize(&board.after(l.mv).unwrap()).board, done)))
            .collect();
        let out = negamax::edax_position(&position, errors, children);
        done.insert(board, out);
        out
    }

    #[test]
    fn an_unperturbed_book_is_what_edax_s_negamax_makes_of_it() {
        for (positions, seed) in [(3000, 1), (20_000, 4)] {
            let (bytes, _) = book(positions, seed, 0.0);
            let book = crate::book::Book::from_bytes("synth", bytes.clone()).unwrap();
            let done = edax_negamax(&book, &bytes);
            assert_eq!(done.len(), positions, "every record is reachable from the initial position");
            for record in book.records() {
                let board = record.board();
                let own = done[&board];
                let Details::Edax { counts, lower, upper } = record.details else { panic!("an Edax record") };
                let stored = (record.value().0, lower.0, upper.0, counts);
                let c = own.counts;
                let computed =
                    (own.value.into(), own.lower.into(), own.upper.into(), [c.wins, c.draws, c.losses, c.lines]);
                assert_eq!(stored, computed, "{board:?}");
                let scores: Vec<i32> = record.links().map(|l| l.score.0).collect();
                assert!(scores.windows(2).all(|w| w[0] >= w[1]), "links sorted as Edax sorts them: {scores:?}");
                for link in record.links() {
                    let child = done[&normalize(&board.after(link.mv).unwrap()).board];
                    assert_eq!(link.score.0, i32::from(negamax::edax_link_score(&child)));
                }
            }
        }
    }

    #[test]
    fn leaves_are_stored_as_edax_stores_them() {
        let (bytes, _) = book(20_000, 2, 0.0);
        let book = crate::book::Book::from_bytes("synth", bytes.clone()).unwrap();
        let (mut all_linked, mut finished) = (0, 0);
        for record in book.records().filter(|r| r.leaf().is_none()) {
            let board = record.board();
            let leaf_score = bytes[record.offset as usize + 40 + 2 * record.n_links()] as i8;
            if board.is_game_over() {
                assert_eq!(i32::from(leaf_score), final_score(&board));
                assert_eq!(record.value().0, final_score(&board));
                finished += 1;
            } else {
                assert_eq!(leaf_score, -127, "every legal move is linked");
                all_linked += 1;
            }
        }
        assert!(all_linked > 0 && finished > 0, "{all_linked} {finished}");
    }

    #[test]
    fn the_egaroucid_book_has_the_edax_book_s_values() {
        let options = SynthOptions { positions: 2000, seed: 6, perturb: 0.0 };
        let (mut edax_bytes, mut egbk3_bytes) = (Vec::new(), Vec::new());
        synthesize_as(Format::Edax, &options, &mut edax_bytes).unwrap();
        synthesize_as(Format::Egbk3, &options, &mut egbk3_bytes).unwrap();
        let edax_book = crate::book::Book::from_bytes("synth.dat", edax_bytes).unwrap();
        let egbk3_book = crate::book::Book::from_bytes("synth.egbk3", egbk3_bytes).unwrap();
        let lines = |r: &crate::book::Record| match r.details {
            Details::Edax { counts, .. } => counts[3],
            Details::Egaroucid { n_lines, .. } => n_lines,
        };
        for (a, b) in edax_book.records().zip(egbk3_book.records()) {
            assert_eq!((a.board(), a.value(), lines(&a)), (b.board(), b.value(), lines(&b)));
            assert_eq!(a.leaf().map(|l| (l.mv, l.score)), b.leaf().map(|l| (l.mv, l.score)));
        }
    }

    #[test]
    fn the_root_links_all_four_symmetric_first_moves() {
        let (bytes, _) = book(100, 1, 0.0);
        let book = crate::book::Book::from_bytes("synth", bytes).unwrap();
        let root = book.find(&normalize(&Board::INITIAL).board).unwrap();
        assert_eq!(root.n_links(), 4);
        assert!(root.leaf().is_none());
    }

    #[test]
    fn negamax_sees_the_end_of_the_game() {
        // A1 against B1: playing C1 takes the last white disc, a 64-0 win.
        let board = Board::new(0b001, 0b010);
        assert_eq!(negamax(&board, 1), 64);
        assert_eq!(final_score(&Board::new(0b111, 0b1000)), 2 + 60);
    }

    #[test]
    fn the_corner_x_squares_follow_their_corners() {
        for s in Symmetry::ALL {
            let corner = s.bits(1);
            let x = s.bits(1 << 9);
            assert_eq!(spread_corners(corner), x, "symmetry {s:?}");
        }
    }
}
