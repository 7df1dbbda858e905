//! `fix` (SPEC §11) against a slow, plain negamax written from Edax's
//! description: records parsed here, children found by playing moves and
//! looking boards up in a hash map, the recursion as Edax writes it. Random
//! books (grown by `synth`, then scrambled: levels, leaves, bounds, counts,
//! errors, links removed or turned into leaves, records dropped) must come
//! out byte for byte as the reference says, with a receipt whose every line
//! replays to its record. Then what a fixed book is: mode 2 finds nothing,
//! a link's score is minus its child's value, a second fix changes nothing.

use crate::common;

use bookminer::board::{Board, Move};
use bookminer::book::{Book, Score};
use bookminer::fix::{fix, FixError, FixOptions, FixPaths, FixReport};
use bookminer::format::egaroucid::{self, Lookup};
use bookminer::level::Level;
use bookminer::negamax::search_level;
use bookminer::output::{LineStyle, Orientation};
use bookminer::run::{Cancel, Control, Phase, RunError};
use bookminer::symmetry::normalize;
use bookminer::synth::{book_bytes, synthesize_as, SynthOptions};
use bookminer::walk::{walk, Arrival, Start, Visitor, Walkable};
use common::{bin, book_from_lines, data};
use proptest::prelude::*;
use std::collections::HashMap;
use std::convert::Infallible;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

// ---------------------------------------------------------------------------
// Edax books as this test reads and writes them (SPEC §1).

const HEADER: usize = 42;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Rec {
    player: u64,
    opponent: u64,
    counts: [u32; 4],
    value: i16,
    lower: i16,
    upper: i16,
    level: u8,
    links: Vec<(i8, u8)>,
    leaf: (i8, u8),
}

impl Rec {
    fn board(&self) -> Board {
        Board::new(self.player, self.opponent)
    }
}

fn parse(bytes: &[u8]) -> (Vec<u8>, Vec<Rec>) {
    let le = |at: usize, n: usize| bytes[at..at + n].iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
    let mut recs = Vec::new();
    let mut at = HEADER;
    while at < bytes.len() {
        let n_links = bytes[at + 38] as usize;
        let links = (0..n_links).map(|i| (bytes[at + 40 + 2 * i] as i8, bytes[at + 41 + 2 * i])).collect();
        let end = at + 40 + 2 * n_links;
        recs.push(Rec {
            player: le(at, 8),
            opponent: le(at + 8, 8),
            counts: [0, 1, 2, 3].map(|i| le(at + 16 + 4 * i, 4) as u32),
            value: le(at + 32, 2) as u16 as i16,
            lower: le(at + 34, 2) as u16 as i16,
            upper: le(at + 36, 2) as u16 as i16,
            level: bytes[at + 39],
            links,
            leaf: (bytes[end] as i8, bytes[end + 1]),
        });
        at = end + 2;
    }
    (bytes[..HEADER].to_vec(), recs)
}

fn encode(header: &[u8], recs: &[Rec]) -> Vec<u8> {
    let mut out = header.to_vec();
    out[38..42].copy_from_slice(&(recs.len() as i32).to_le_bytes());
    for r in recs {
        out.extend_from_slice(&r.player.to_le_bytes());
        out.extend_from_slice(&r.opponent.to_le_bytes());
        r.counts.iter().for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
        [r.value, r.lower, r.upper].iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        out.extend_from_slice(&[r.links.len() as u8, r.level]);
        r.links.iter().for_each(|&(s, m)| out.extend_from_slice(&[s as u8, m]));
        out.extend_from_slice(&[r.leaf.0 as u8, r.leaf.1]);
    }
    out
}

fn header_errors(header: &[u8]) -> (i32, i32) {
    let int = |at: usize| i32::from_le_bytes(header[at..at + 4].try_into().unwrap());
    (int(26), int(30))
}

// ---------------------------------------------------------------------------
// The reference: Edax's book negamax and book sort, plainly.

#[derive(Clone, Copy, Debug)]
struct Solved {
    value: i32,
    lower: i32,
    upper: i32,
    counts: [u64; 4],
}

struct Slow<'a> {
    recs: &'a [Rec],
    by_board: HashMap<Board, usize>,
    solved: Vec<Option<Solved>>,
    errors: (i32, i32),
}

impl<'a> Slow<'a> {
    fn new(header: &[u8], recs: &'a [Rec]) -> Slow<'a> {
        let by_board = recs.iter().enumerate().map(|(i, r)| (r.board(), i)).collect();
        Slow { recs, by_board, solved: vec![None; recs.len()], errors: header_errors(header) }
    }

    /// The record a stored move of record `i` leads to, if it is stored.
    fn child(&self, i: usize, code: u8) -> Option<usize> {
        let after = self.recs[i].board().after(Move::from_code(code)?)?;
        self.by_board.get(&normalize(&after).board).copied()
    }

    fn solve(&mut self, i: usize) -> Solved {
        if let Some(done) = self.solved[i] {
            return done;
        }
        let r = &self.recs[i];
        let empties = r.board().empties() as u8;
        let level = search_level(Level::saturating(r.level.into()), empties);
        let (depth, solving) = (i32::from(level.depth), level.selectivity == 5);
        let e = i32::from(empties);
        let mut s = Solved { value: -127, lower: -127, upper: -127, counts: [0; 4] };
        let leaf = i32::from(r.leaf.0);
        if leaf > -127 {
            s.value = leaf;
            let (lower, upper) = if depth == e && solving {
                s.counts[if leaf > 0 {
                    0
                } else if leaf == 0 {
                    1
                } else {
                    2
                }] += 1;
                (leaf, leaf)
            } else if depth == e {
                (leaf - self.errors.1, leaf + self.errors.1)
            } else {
                let bias = (depth & 1) - (e & 1);
                (leaf - self.errors.0 - bias, leaf + self.errors.0 - bias)
            };
            // Stored as shorts.
            s.lower = lower as i16 as i32;
            s.upper = upper as i16 as i32;
            s.counts[3] += 1;
        }
        for &(_, code) in &self.recs[i].links.clone() {
            let Some(c) = self.child(i, code) else { continue };
            let child = self.solve(c);
            let score = -child.value as i8 as i32;
            s.value = s.value.max(score);
            if -child.upper > s.lower {
                s.lower = -child.upper as i16 as i32;
            }
            if -child.lower > s.upper {
                s.upper = -child.lower as i16 as i32;
            }
            for (k, from) in [2, 1, 0, 3].into_iter().enumerate() {
                s.counts[k] += child.counts[from];
            }
        }
        s.counts = s.counts.map(|n| n.min(u64::from(u32::MAX)));
        self.solved[i] = Some(s);
        s
    }

    /// Records reachable over links from the initial position.
    fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.recs.len()];
        let mut todo: Vec<usize> = self.by_board.get(&normalize(&Board::INITIAL).board).copied().into_iter().collect();
        todo.iter().for_each(|&i| seen[i] = true);
        while let Some(i) = todo.pop() {
            for &(_, code) in &self.recs[i].links {
                if let Some(c) = self.child(i, code) {
                    if !seen[c] {
                        seen[c] = true;
                        todo.push(c);
                    }
                }
            }
        }
        seen
    }

    /// Every record as Edax's negamax and sort leave it.
    fn fixed(&mut self) -> Vec<Rec> {
        let reachable = self.reachable();
        let mut out = self.recs.to_vec();
        for i in 0..out.len() {
            if reachable[i] {
                let s = self.solve(i);
                let r = &mut out[i];
                r.value = s.value as i16;
                (r.lower, r.upper) = (s.lower as i16, s.upper as i16);
                r.counts = s.counts.map(|n| n as u32);
                for k in 0..r.links.len() {
                    if let Some(c) = self.child(i, r.links[k].1) {
                        r.links[k].0 = -self.solve(c).value as i8;
                    }
                }
            }
            let links = &mut out[i].links;
            for a in 0..links.len().saturating_sub(1) {
                let mut best = a;
                for b in a + 1..links.len() {
                    if links[b].0 > links[best].0 {
                        best = b;
                    }
                }
                links.swap(a, best);
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------
// Running fix.

struct Fixed {
    book: Vec<u8>,
    receipt: String,
    report: FixReport,
}

fn format(orientation: Orientation, pass_token: &str) -> LineStyle {
    LineStyle { orientation, pass_token: pass_token.to_string() }
}

/// Fixes `bytes` through the library, the receipt's lines as walked with PS for passes.
fn fix_bytes(bytes: &[u8], text: &LineStyle) -> Result<Fixed, FixError> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.dat");
    fs::write(&input, bytes).unwrap();
    let output = dir.path().join("out.dat");
    let paths = FixPaths::new(&input, &output, &dir.path().join("receipt")).unwrap();
    let book = Book::open(&input, &Default::default()).unwrap();
    let cancel = AtomicBool::new(false);
    let control = Control { cancel: Cancel::new(&cancel), phase: &mut |_| {}, progress: &mut |_| {} };
    let report = fix(book, &paths, &FixOptions { style: text.clone() }, control)?;
    Ok(Fixed { book: fs::read(&output).unwrap(), receipt: fs::read_to_string(paths.receipt()).unwrap(), report })
}

fn as_walked() -> LineStyle {
    format(Orientation::AsWalked, "PS")
}

/// Replays a kifu written as walked with PS for passes.
fn replay(kifu: &str) -> (Board, usize) {
    let moves = bookminer::kifu::parse_moves(kifu).unwrap();
    let board = moves.iter().fold(Board::INITIAL, |b, &mv| b.after(mv).expect("a receipt's line is legal"));
    (board, moves.len())
}

fn board_text(board: &Board, black: bool) -> String {
    let (x, o) = if black { (board.player, board.opponent) } else { (board.opponent, board.player) };
    (0..64)
        .map(|i| {
            if x >> i & 1 != 0 {
                'X'
            } else if o >> i & 1 != 0 {
                'O'
            } else {
                '-'
            }
        })
        .collect()
}

fn move_named(name: &str) -> Move {
    bookminer::kifu::parse_moves(name).unwrap()[0]
}

/// Checks every receipt line against the book before and after: one line per
/// record whose value, bounds or a link score changed, in file order, each
/// number as [old,new], the line reaching the record's position.
fn check_receipt(receipt: &str, before: &[Rec], after: &[Rec]) {
    let mut lines = receipt.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).peekable();
    for (i, (old, new)) in before.iter().zip(after).enumerate() {
        let changed_links: Vec<(u8, i8, i8)> = old
            .links
            .iter()
            .filter_map(|&(score, mv)| {
                let now = new.links.iter().find(|l| l.1 == mv).unwrap().0;
                (now != score).then_some((mv, score, now))
            })
            .collect();
        let fields =
            [("value", old.value, new.value), ("lower", old.lower, new.lower), ("upper", old.upper, new.upper)];
        let changed = fields.iter().any(|f| f.1 != f.2) || !changed_links.is_empty();
        if !changed {
            assert!(lines.peek().is_none_or(|l| l["record"] != i), "record {i} did not change");
            continue;
        }
        let line = lines.next().unwrap_or_else(|| panic!("record {i} changed and has no line"));
        assert_eq!(line["record"], i);
        let (board, plies) = replay(line["kifu"].as_str().unwrap());
        assert_eq!(normalize(&board).board, old.board(), "record {i}: the line reaches its position");
        assert_eq!(line["board"], board_text(&board, plies % 2 == 0));
        assert_eq!(line["side"], if plies % 2 == 0 { "X" } else { "O" });
        for (key, was, now) in fields {
            let want = (was != now).then(|| serde_json::json!([was, now]));
            assert_eq!(line.get(key), want.as_ref(), "record {i}: {key}");
        }
        let links = line.get("links").and_then(|l| l.as_array()).cloned().unwrap_or_default();
        assert_eq!(links.len(), changed_links.len(), "record {i}: {line}");
        for (named, &(code, was, now)) in links.iter().zip(&changed_links) {
            assert_eq!((named[1].as_i64(), named[2].as_i64()), (Some(was.into()), Some(now.into())));
            // The move as the line's position has it leads where the stored move does.
            let played = board.after(move_named(named[0].as_str().unwrap())).unwrap();
            let stored = old.board().after(Move::from_code(code).unwrap()).unwrap();
            assert_eq!(normalize(&played).board, normalize(&stored).board, "record {i}: {named}");
        }
    }
    assert!(lines.next().is_none(), "lines past the last changed record");
}

// ---------------------------------------------------------------------------
// Random books.

/// SplitMix64: the scrambling is the same for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// A synthetic book with every field a negamax reads or writes scrambled.
fn scrambled_book(positions: usize, seed: u64) -> (Vec<u8>, Vec<Rec>) {
    let (mut header, recs) = parse(&book_bytes(&SynthOptions { positions, seed, perturb: 0.1 }));
    let mut rng = Rng(seed ^ 0x5eed);
    let root = normalize(&Board::INITIAL).board;
    let mut recs: Vec<Rec> = recs.into_iter().filter(|r| r.board() == root || !rng.chance(3)).collect();
    let errors = [(2, 1), (0, 0), (3, 2), (-1, 5), (40_000, -40_000)];
    let (mid, end) = rng.pick(&errors);
    header[26..30].copy_from_slice(&i32::to_le_bytes(mid));
    header[30..34].copy_from_slice(&i32::to_le_bytes(end));
    for r in &mut recs {
        r.level = if rng.chance(5) { rng.below(256) as u8 } else { rng.below(40) as u8 };
        let small = |rng: &mut Rng| rng.below(41) as i16 - 20;
        (r.value, r.lower, r.upper) = (small(&mut rng), small(&mut rng), small(&mut rng));
        r.counts = [0; 4].map(|_| if rng.chance(3) { u32::MAX - rng.below(3) as u32 } else { rng.below(5) as u32 });
        for link in &mut r.links {
            link.0 = rng.pick(&[-128, -127, -64, -3, 0, 2, 64, 127]);
        }
        r.leaf.0 = rng.pick(&[-128, -127, -126, -10, -1, 0, 1, 5, 64, 127]);
        if rng.chance(20) {
            r.leaf.1 = 65;
        }
        // A link removed: its child may be reached no more, or only through
        // the leaf it becomes.
        if !r.links.is_empty() && rng.chance(10) {
            let gone = r.links.remove(rng.below(r.links.len() as u64) as usize);
            if rng.chance(50) {
                r.leaf = gone;
            }
        }
    }
    (header, recs)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn fix_is_the_slow_negamax_byte_for_byte(positions in 2usize..400, seed in any::<u64>()) {
        let (header, recs) = scrambled_book(positions, seed);
        let bytes = encode(&header, &recs);
        let expected = Slow::new(&header, &recs).fixed();
        let fixed = fix_bytes(&bytes, &as_walked()).unwrap();
        prop_assert_eq!(fixed.book.len(), bytes.len());
        let (_, got) = parse(&fixed.book);
        for (i, (got, want)) in got.iter().zip(&expected).enumerate() {
            prop_assert_eq!(got, want, "record {}", i);
        }
        prop_assert_eq!(&fixed.book, &encode(&header, &expected));
        check_receipt(&fixed.receipt, &recs, &expected);
        // A fixed book is left as it is.
        let again = fix_bytes(&fixed.book, &as_walked()).unwrap();
        prop_assert_eq!(&again.book, &fixed.book);
        prop_assert_eq!(again.receipt, "");
    }
}

// ---------------------------------------------------------------------------
// What a fixed book is.

/// Every arrival of a walk: whether it came through a leaf, the parent's
/// score for the move, the child's value and best stored move (SPEC §3's P,
/// V and M).
#[derive(Default)]
struct Judged {
    arrivals: Vec<(bool, i32, i32, Option<i32>)>,
}

impl Visitor for Judged {
    type Error = Infallible;
    fn arrive(&mut self, a: &Arrival<'_>) -> Result<(), Infallible> {
        let best = a.child.moves().map(|l| l.score.discs()).max();
        self.arrivals.push((a.by_leaf, a.parent_score.discs(), a.child.value().discs(), best));
        Ok(())
    }
}

fn walk_arrivals(bytes: Vec<u8>) -> Vec<(bool, i32, i32, Option<i32>)> {
    let book = Book::from_bytes("fixed", bytes).unwrap();
    walk(&Walkable::new(book, &Start::initial()).unwrap(), Judged::default()).unwrap().1.arrivals
}

/// A synthetic book whose leaves are stored as Edax stores them: a position
/// with every move linked gets (−127, 65), not synth's (0, 65).
fn edax_leaves(positions: usize, seed: u64) -> Vec<u8> {
    let (header, mut recs) = parse(&book_bytes(&SynthOptions { positions, seed, perturb: 0.05 }));
    for r in &mut recs {
        let finished = r.board().is_game_over();
        if r.leaf.1 == 65 && !finished {
            r.leaf.0 = -127;
        }
    }
    encode(&header, &recs)
}

#[test]
fn after_fix_mode_2_finds_nothing_and_only_leaves_disagree_with_their_child() {
    let books = [
        fs::read(data("books/edax46-l2-small.dat")).unwrap(),
        fs::read(data("books/edax-ray-l1-mut1.dat")).unwrap(),
        fs::read(data("books/edax-endgames-perturbed.dat")).unwrap(),
        edax_leaves(20_000, 3),
    ];
    for (n, bytes) in books.into_iter().enumerate() {
        let before = walk_arrivals(bytes.clone());
        let fixed = fix_bytes(&bytes, &LineStyle::default()).unwrap().book;
        let after = walk_arrivals(fixed);
        assert_eq!(before.len(), after.len(), "book {n}: the same arrivals");
        for &(by_leaf, p, v, m) in &after {
            if let Some(m) = m {
                assert_eq!(v, m, "book {n}: mode 2 fires (V {v}, M {m})");
            }
            if !by_leaf {
                assert_eq!(p, -v, "book {n}: a link's score is minus its child's value (modes 3 and 4)");
            }
        }
        // The perturbed books had work to do.
        let disagreeing = before.iter().filter(|&&(by_leaf, p, v, _)| !by_leaf && p != -v).count();
        assert!(n == 0 || disagreeing > 10, "book {n}: {disagreeing} links disagreed before");
    }
}

#[test]
fn unreachable_records_and_records_reached_only_through_a_leaf_keep_what_they_have() {
    let line = |text: &str| bookminer::kifu::parse_moves(text).unwrap();
    let mut entries = book_from_lines(&[line("F5D6C3D3C4"), line("F5F6E6F4E3"), line("E6F6F5F4")]);
    // Scores all wrong, so that a record the negamax reaches must change.
    for (i, e) in entries.iter_mut().enumerate() {
        e.value = Score::new(30 + i as i32);
        e.links.iter_mut().for_each(|l| l.score = Score::new(50));
    }
    let bytes = bookminer::format::edax::entries::encode(&entries, 1);
    let (header, mut recs) = parse(&bytes);
    // F5D6's position: its link C3 becomes its leaf, so what lies below is
    // walked (through the leaf) but not reachable over links.
    let stored = |text: &str| normalize(&replay(text).0);
    let at = recs.iter().position(|r| r.board() == stored("F5D6").board).unwrap();
    let c3 = stored("F5D6").to_original.inverse().apply_move(move_named("C3")).code();
    let k = recs[at].links.iter().position(|l| l.1 == c3).unwrap();
    recs[at].leaf = recs[at].links.remove(k);
    // And a position the initial position does not lead to at all.
    let island = normalize(&replay("F5F4E3").0).board;
    recs.push(Rec {
        player: island.player,
        opponent: island.opponent,
        counts: [1, 2, 3, 4],
        value: 9,
        lower: 8,
        upper: 7,
        level: 5,
        links: vec![],
        leaf: (12, 65),
    });
    let below =
        ["F5D6C3", "F5D6C3D3", "F5D6C3D3C4"].map(|t| recs.iter().position(|r| r.board() == stored(t).board).unwrap());
    let bytes = encode(&header, &recs);
    let fixed = fix_bytes(&bytes, &as_walked()).unwrap();
    let (_, after) = parse(&fixed.book);
    for i in below.into_iter().chain([recs.len() - 1]) {
        assert_eq!(after[i], recs[i], "record {i} is not reachable over links: kept");
    }
    for (i, (a, b)) in after.iter().zip(&recs).enumerate() {
        assert_eq!(a.leaf, b.leaf, "record {i}: leaves are never changed");
    }
    assert_eq!(after, Slow::new(&header, &recs).fixed());
    assert_eq!(fixed.report.reachable as usize, recs.len() - 4);
    assert!(fixed.report.changes.records > 0);
}

#[test]
fn a_book_without_the_initial_position_only_gets_its_links_sorted() {
    let line = |text: &str| bookminer::kifu::parse_moves(text).unwrap();
    let entries = book_from_lines(&[line("F5D6C3D3C4"), line("F5D6C4")]);
    let (header, recs) = parse(&bookminer::format::edax::entries::encode(&entries, 1));
    let root = normalize(&Board::INITIAL).board;
    let recs: Vec<Rec> = recs.into_iter().filter(|r| r.board() != root).collect();
    let fixed = fix_bytes(&encode(&header, &recs), &as_walked()).unwrap();
    assert_eq!(fixed.receipt, "");
    assert_eq!(fixed.report.reachable, 0);
    let (_, after) = parse(&fixed.book);
    let mut sorted = recs.clone();
    sorted.iter_mut().for_each(|r| r.links.sort_by_key(|l| std::cmp::Reverse(l.0)));
    assert_eq!(after, sorted, "link scores are distinct here, so the order is plain");
}

// ---------------------------------------------------------------------------
// Egaroucid books.

/// A book as a map from stored board to value, for finding §8's links.
struct Values(HashMap<Board, i8>);

impl Lookup for Values {
    type Probe = Board;
    type Found = Board;
    fn start(&self, stored: &Board) -> Board {
        *stored
    }
    fn find(&self, stored: &Board) -> Option<(Board, Score)> {
        self.0.get(stored).map(|&v| (*stored, Score::new(v.into())))
    }
}

/// The Egaroucid value rule, slowly: a record's value is the best of its
/// leaf (unless its move is linked) and its links, children first.
fn slow_egaroucid(bytes: &[u8]) -> Vec<u8> {
    let n = (bytes.len() - egaroucid::HEADER_LEN) / egaroucid::RECORD_LEN;
    let at = |i: usize| egaroucid::HEADER_LEN + i * egaroucid::RECORD_LEN;
    let board = |i: usize| {
        let word = |o: usize| u64::from_le_bytes(bytes[at(i) + o..at(i) + o + 8].try_into().unwrap());
        Board::new(word(0), word(8))
    };
    let value = |i: usize| bytes[at(i) + 16] as i8;
    let in_book: Vec<usize> = (0..n).filter(|&i| (-64..=64).contains(&value(i))).collect();
    let by_board: HashMap<Board, usize> = in_book.iter().map(|&i| (board(i), i)).collect();
    let old = Values(in_book.iter().map(|&i| (board(i), value(i))).collect());
    // Children first: fewer empties, and the position a pass leads to before the one passing.
    let mut order = in_book.clone();
    order.sort_by_key(|&i| (board(i).empties(), board(i).must_pass()));
    let reachable = {
        let mut seen = vec![false; n];
        let mut todo: Vec<usize> = by_board.get(&normalize(&Board::INITIAL).board).copied().into_iter().collect();
        todo.iter().for_each(|&i| seen[i] = true);
        while let Some(i) = todo.pop() {
            for link in egaroucid::links_of(&board(i), &old) {
                let child = board(i).after(link.mv).unwrap();
                let child = if link.then_pass { child.swapped() } else { child };
                let c = by_board[&normalize(&child).board];
                if !seen[c] {
                    seen[c] = true;
                    todo.push(c);
                }
            }
        }
        seen
    };
    let mut new = Values(old.0.clone());
    for &i in &order {
        if !reachable[i] {
            continue;
        }
        let links = egaroucid::links_of(&board(i), &new);
        let (leaf_value, leaf_move) = (bytes[at(i) + 22] as i8, bytes[at(i) + 23]);
        let leaf =
            (leaf_move <= 64 && (-64..=64).contains(&leaf_value) && links.iter().all(|l| l.mv.code() != leaf_move))
                .then_some(leaf_value);
        let best = links.iter().map(|l| l.score.discs() as i8).chain(leaf).max();
        if let Some(best) = best {
            new.0.insert(board(i), best);
        }
    }
    let mut out = bytes.to_vec();
    for &i in &in_book {
        out[at(i) + 16] = new.0[&board(i)] as u8;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn an_egaroucid_fix_is_the_slow_value_rule(positions in 2usize..400, seed in any::<u64>()) {
        let mut bytes = Vec::new();
        let options = SynthOptions { positions, seed, perturb: 0.3 };
        synthesize_as(bookminer::book::Format::Egbk3, &options, &mut bytes).unwrap();
        // Some values out of the book, some leaves on linked moves.
        let mut rng = Rng(seed);
        let n = (bytes.len() - egaroucid::HEADER_LEN) / egaroucid::RECORD_LEN;
        for i in 0..n {
            let at = egaroucid::HEADER_LEN + i * egaroucid::RECORD_LEN;
            if rng.chance(3) && i > 0 {
                bytes[at + 16] = (-126i8) as u8;
            }
            bytes[at + 22] = rng.pick(&[-126i8, -30, 0, 7, 64]) as u8;
        }
        let expected = slow_egaroucid(&bytes);
        let fixed = fix_bytes(&bytes, &as_walked()).unwrap();
        prop_assert!(fixed.book == expected, "the fixed book differs from the slow rule's");
        let changed = (0..n).filter(|i| fixed.book[egaroucid::HEADER_LEN + i * 25 + 16] != bytes[egaroucid::HEADER_LEN + i * 25 + 16]);
        let numbers: Vec<u64> = fixed.receipt.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["record"].as_u64().unwrap()).collect();
        prop_assert_eq!(numbers, changed.map(|i| i as u64).collect::<Vec<_>>());
    }
}

// ---------------------------------------------------------------------------
// The command: refusals, interruptions, failures.

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

#[test]
fn out_as_any_path_to_in_is_refused_with_status_2_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.dat");
    fs::copy(data("books/edax-ray-l1-mut1.dat"), &book).unwrap();
    fs::hard_link(&book, dir.path().join("hard.dat")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&book, dir.path().join("soft.dat")).unwrap();
    let before = files_in(dir.path());
    let original = fs::read(&book).unwrap();
    for out in ["book.dat", "./book.dat", "hard.dat", "soft.dat", "out/fix.jsonl"] {
        let mut args = vec!["--config", "/dev/null", "--log-file", "/dev/null", "fix", "book.dat", out];
        if out == "out/fix.jsonl" {
            args.extend(["--out-dir", "out"]);
        }
        let run = bin().current_dir(dir.path()).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{out}: {err}");
        assert!(err.contains("error: ") && !err.contains("panicked"), "{out}: {err}");
        assert_eq!(files_in(dir.path()), before, "{out}: nothing written");
        assert_eq!(fs::read(&book).unwrap(), original);
    }
    // The receipt as the input book: refused too.
    let fix_the_receipt = || {
        bin()
            .current_dir(dir.path())
            .args(["--config", "/dev/null", "--log-file", "/dev/null", "--out-dir", "."])
            .args(["fix", "fix.jsonl", "out.dat"])
            .output()
            .unwrap()
    };
    let run = fix_the_receipt();
    assert_eq!(run.status.code(), Some(3), "no such book: {}", String::from_utf8_lossy(&run.stderr));
    fs::copy(&book, dir.path().join("fix.jsonl")).unwrap();
    let run = fix_the_receipt();
    assert_eq!(run.status.code(), Some(2), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(!dir.path().join("out.dat").exists());
}

#[test]
fn the_command_writes_the_book_and_receipt_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let run = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "--log-file", "log.txt", "--out-dir", "receipts", "--pass-token", "PS"])
        .arg("fix")
        .arg(data("books/edax-endgames-perturbed.dat"))
        .arg("fixed/book.dat")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let expected = "tests/cases/fix-endgames-perturbed/expected";
    let want = |name: &str| fs::read(common::repo().join(expected).join(name)).unwrap();
    assert_eq!(fs::read(dir.path().join("fixed/book.dat")).unwrap(), want("fixed.dat"));
    assert_eq!(fs::read(dir.path().join("receipts/fix.jsonl")).unwrap(), want("fix.jsonl"));
    for words in
        ["records changed      188", "values changed", "link scores changed", "counts changed", "links reordered"]
    {
        assert!(said.contains(words), "{words:?} in {said}");
    }
    assert!(fs::read_to_string(dir.path().join("log.txt")).unwrap().contains("records changed"));
    let help = bin().args(["fix", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for words in ["book negamax", "fix.jsonl", "IN", "OUT", "Exit status"] {
        assert!(help.contains(words), "{words:?} in fix --help");
    }
}

#[test]
fn a_cancelled_fix_leaves_nothing_behind_whenever_it_is_stopped() {
    let bytes = book_bytes(&SynthOptions { positions: 100_000, seed: 5, perturb: 0.02 });
    for stop_at in ["walk", "writing"] {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.dat");
        fs::write(&input, &bytes).unwrap();
        let paths = FixPaths::new(&input, &dir.path().join("out.dat"), &dir.path().join("out")).unwrap();
        let cancel = AtomicBool::new(false);
        let mut phase = |phase: Phase| {
            if stop_at == "writing" && phase == Phase::Writing {
                cancel.store(true, Ordering::Relaxed);
            }
        };
        let mut progress = |_: bookminer::run::Progress<'_>| {
            if stop_at == "walk" {
                cancel.store(true, Ordering::Relaxed);
            }
        };
        let control = Control { cancel: Cancel::new(&cancel), phase: &mut phase, progress: &mut progress };
        let result = fix(Book::open(&input, &Default::default()).unwrap(), &paths, &FixOptions::default(), control);
        assert!(
            matches!(result, Err(FixError::Run(RunError::Interrupted { .. }))),
            "{stop_at}: {:?}",
            result.map(|r| r.to_string())
        );
        assert_eq!(files_in(dir.path()), [dir.path().join("in.dat"), dir.path().join("out")], "{stop_at}");
        assert!(files_in(&dir.path().join("out")).is_empty(), "{stop_at}: no receipt, no temporary file");
    }
}

/// A write that fails part-way, as on a full disk: the file size limit,
/// with its signal ignored so that the write returns the error.
#[cfg(unix)]
#[test]
fn a_write_that_fails_leaves_neither_file_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("big.dat"), book_bytes(&SynthOptions { positions: 20_000, seed: 2, perturb: 0.02 }))
        .unwrap();
    let fixer = env!("CARGO_BIN_EXE_bookminer");
    // 100 KiB: less than either book (the sample is 131 KB), so the write
    // of the fixed book itself fails part-way.
    for book in [common::sample(), dir.path().join("big.dat")] {
        let script = format!(
            "ulimit -f 100; trap '' XFSZ; exec {fixer} --config /dev/null --log-file /dev/null --out-dir out fix {} out/fixed.dat",
            book.display()
        );
        let run = std::process::Command::new("bash").current_dir(dir.path()).args(["-c", &script]).output().unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(3), "{}: {err}", book.display());
        assert!(err.contains("File too large") && !err.contains("panicked"), "{err}");
        assert!(files_in(&dir.path().join("out")).is_empty(), "{}: nothing left", book.display());
    }
}

/// `synth` writes each record as Edax's negamax leaves it (the issue that
/// made it do so found 72k of 200k records changed by Edax): with nothing
/// perturbed, `fix` finds nothing to change, byte for byte.
#[test]
fn an_unperturbed_synthetic_book_needs_no_fix() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("synth.dat");
    fs::write(&input, book_bytes(&SynthOptions { positions: 20_000, seed: 13, perturb: 0.0 })).unwrap();
    let out = dir.path().join("fixed.dat");
    let run = common::bin()
        .args(["fix", input.to_str().unwrap(), out.to_str().unwrap(), "--out-dir", dir.path().to_str().unwrap()])
        .args(["--config", "/dev/null", "--log-file", "/dev/null"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(fs::read_to_string(dir.path().join("fix.jsonl")).unwrap(), "", "an empty receipt");
    assert_eq!(fs::read(&input).unwrap(), fs::read(&out).unwrap(), "nothing changed, link order included");
}
