//! Micro-benchmarks of the operations the walk repeats for every edge:
//! flips and legal moves, normalization (and the check that a board is
//! normalized, which a growth run asks of every record), the index lookup,
//! and the check of every record of a book a growth run makes first.
//!
//! `cargo bench --bench core`

use bookminer::board::{Board, Move, Square};
use bookminer::book::verify::first_damage;
use bookminer::book::Book;
use bookminer::symmetry::{is_normalized, normalize};
use bookminer::synth::{book_bytes, SynthOptions};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

/// Boards from a few hundred pseudo-random games, every stage of the game.
fn sample_boards() -> Vec<Board> {
    let mut boards = Vec::new();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..300 {
        let mut board = Board::INITIAL;
        loop {
            boards.push(board);
            let moves: Vec<Square> = Square::iter(board.legal_moves()).collect();
            let next = if moves.is_empty() {
                if board.is_game_over() {
                    break;
                }
                Move::Pass
            } else {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                Move::Play(moves[(x % moves.len() as u64) as usize])
            };
            board = board.after(next).expect("a legal move");
        }
    }
    boards
}

/// The synthetic book of `positions` positions (seed 7), loaded.
fn synthetic_book(positions: usize) -> Book {
    let bytes = book_bytes(&SynthOptions { positions, seed: 7, perturb: 0.0 });
    Book::from_bytes("bench.dat", bytes).expect("a synthesized book loads")
}

fn board_ops(c: &mut Criterion) {
    let boards = sample_boards();
    let mut group = c.benchmark_group("board");
    group.throughput(Throughput::Elements(boards.len() as u64));
    group.bench_function("legal_moves", |b| {
        b.iter(|| boards.iter().fold(0u64, |acc, board| acc ^ black_box(board).legal_moves()))
    });
    let moves: Vec<(Board, Square)> =
        boards.iter().flat_map(|&board| Square::iter(board.legal_moves()).map(move |sq| (board, sq))).collect();
    group.throughput(Throughput::Elements(moves.len() as u64));
    group.bench_function("flips", |b| {
        b.iter(|| moves.iter().fold(0u64, |acc, (board, sq)| acc ^ black_box(board).flips(*sq)))
    });
    group.throughput(Throughput::Elements(boards.len() as u64));
    group.bench_function("normalize", |b| {
        b.iter(|| boards.iter().fold(0u64, |acc, board| acc ^ normalize(black_box(board)).board.player))
    });
    // As a book stores them: the damage check asks this of every record.
    let stored: Vec<Board> = boards.iter().map(|board| normalize(board).board).collect();
    group.bench_function("is_normalized", |b| {
        b.iter(|| stored.iter().filter(|board| is_normalized(black_box(board))).count())
    });
    group.finish();
}

fn index_lookup(c: &mut Criterion) {
    let book = synthetic_book(200_000);
    // Every stored board, in record order, and as many boards not in the book.
    let stored: Vec<Board> = book.records().map(|r| r.board()).collect();
    let absent: Vec<Board> = sample_boards()
        .into_iter()
        .map(|b| normalize(&b).board)
        .filter(|b| book.file().find(book.index(), b).is_none())
        .take(stored.len())
        .collect();
    let mut group = c.benchmark_group("index");
    group.throughput(Throughput::Elements(stored.len() as u64));
    group.bench_function("find (in the book)", |b| {
        b.iter(|| stored.iter().filter(|board| book.file().find(book.index(), black_box(board)).is_some()).count())
    });
    group.throughput(Throughput::Elements(absent.len() as u64));
    group.bench_function("find (not in the book)", |b| {
        b.iter(|| absent.iter().filter(|board| book.file().find(book.index(), black_box(board)).is_some()).count())
    });
    group.finish();
}

/// The check every command that searches makes of every record of its
/// book (issue 64), on every core: a record's normalization, the legality
/// of its moves, and moves stored twice.
fn damage_check(c: &mut Criterion) {
    let book = synthetic_book(1_000_000);
    let mut group = c.benchmark_group("book");
    group.throughput(Throughput::Elements(book.file().counts().records));
    group.sample_size(20);
    group.bench_function("first_damage (every record)", |b| b.iter(|| first_damage(black_box(&book)).is_ok()));
    group.finish();
}

criterion_group!(benches, board_ops, index_lookup, damage_check);
criterion_main!(benches);
