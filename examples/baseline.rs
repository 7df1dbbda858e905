//! The straightforward design, for the benchmark to measure bookminer against:
//! read the whole file, copy every record into a
//! `HashMap<(u64, u64), Record>` with its links in a `Vec`, and walk it
//! recursively. It turns arrivals into records with bookminer's own rules
//! (`mismatch::Recorder`) and lines with its kifu text, and writes the
//! same four files as `bookminer --mode all`, so the two runs can be compared
//! byte for byte and the difference in time is the data structures and the walk.
//!
//! `cargo run --release --example baseline -- BOOK OUT_DIR`

use bookminer::board::{Board, Move};
use bookminer::book::Score;
use bookminer::output::{LineStyle, BOM};
use bookminer::rules::mismatch::{ArrivalFacts, Found, Recorder};
use bookminer::rules::modes::{ArrivalScores, Mode, Rules};
use bookminer::symmetry::{normalize, Symmetry};
use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

/// One position, copied out of the file.
struct Record {
    value: Score,
    /// Links, then the leaf: (score, stored move).
    moves: Vec<(Score, Move)>,
    n_links: usize,
    entered: bool,
}

fn read_book(path: &Path) -> HashMap<(u64, u64), Record> {
    let bytes = std::fs::read(path).expect("read the book");
    let mut book = HashMap::new();
    let mut at = 42;
    while at + 42 <= bytes.len() {
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap());
        let n_links = bytes[at + 38] as usize;
        let value = Score::new(i16::from_le_bytes([bytes[at + 32], bytes[at + 33]]).into());
        let mut moves = Vec::new();
        for i in 0..=n_links {
            let (score, code) = (bytes[at + 40 + 2 * i] as i8, bytes[at + 41 + 2 * i]);
            if let Some(mv) = Move::from_code(code) {
                moves.push((Score::new(score.into()), mv));
            }
        }
        book.insert((u64_at(at), u64_at(at + 8)), Record { value, moves, n_links, entered: false });
        at += 42 + 2 * n_links;
    }
    book
}

struct Output {
    file: BufWriter<std::fs::File>,
    seen: HashSet<String>,
}

struct Walk {
    book: HashMap<(u64, u64), Record>,
    recorder: Recorder,
    /// One per mode, in the recorder's order.
    outputs: Vec<Output>,
    format: LineStyle,
    edges: u64,
}

impl Walk {
    fn position(&mut self, board: Board, line: &mut Vec<Move>) {
        let n = normalize(&board);
        let moves = self.book[&(n.board.player, n.board.opponent)].moves.clone();
        for (score, stored) in moves {
            self.edges += 1;
            let actual = n.to_original.apply_move(stored);
            let child = board.after(actual).expect("legal stored move");
            let c = normalize(&child);
            let Some(record) = self.book.get_mut(&(c.board.player, c.board.opponent)) else { continue };
            let first = !record.entered;
            record.entered = true;
            line.push(actual);
            self.arrive(score, (c.board.player, c.board.opponent), c.to_original, child, line);
            if first {
                self.position(child, line);
            }
            line.pop();
        }
    }

    fn arrive(&mut self, parent: Score, key: (u64, u64), symmetry: Symmetry, board: Board, line: &[Move]) {
        let record = &self.book[&key];
        let links: Vec<Score> = record.moves[..record.n_links.min(record.moves.len())].iter().map(|m| m.0).collect();
        let leaf = record.moves.get(record.n_links).map(|m| m.0);
        let moves: Vec<Move> = record.moves.iter().map(|m| m.1).collect();
        let facts = ArrivalFacts {
            line,
            board,
            scores: ArrivalScores { parent, via_pass: false, value: record.value, links: &links, leaf },
            moves: &moves,
            symmetry,
        };
        let (outputs, format) = (&mut self.outputs, &self.format);
        let mut text = String::new();
        let judged = self.recorder.facts(&facts, |found| {
            if let Found::Record { index, record } = found {
                text.clear();
                format.render(record.line, &mut text);
                let out = &mut outputs[index];
                if out.seen.insert(text.clone()) {
                    writeln!(out.file, "{text}").expect("write");
                }
            }
            Ok::<(), Infallible>(())
        });
        judged.unwrap_or_else(|never| match never {});
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, book, out_dir] = &args[..] else {
        eprintln!("usage: baseline BOOK OUT_DIR");
        std::process::exit(2);
    };
    let began = Instant::now();
    let book = read_book(Path::new(book));
    let loaded = began.elapsed();
    std::fs::create_dir_all(out_dir).expect("create the output folder");
    let outputs = Mode::ALL
        .iter()
        .map(|&mode| {
            let path = Path::new(out_dir).join(format!("mode{}.txt", mode.number()));
            let mut file = BufWriter::new(std::fs::File::create(path).expect("create an output"));
            file.write_all(BOM).expect("write");
            Output { file, seen: HashSet::new() }
        })
        .collect();
    let recorder = Recorder::new(&Mode::ALL, Rules::default());
    let mut walk = Walk { book, recorder, outputs, format: LineStyle::default(), edges: 0 };
    let root = normalize(&Board::INITIAL).board;
    walk.book.get_mut(&(root.player, root.opponent)).expect("the initial position").entered = true;
    let walk_began = Instant::now();
    walk.position(Board::INITIAL, &mut Vec::new());
    for out in &mut walk.outputs {
        out.file.flush().expect("write");
    }
    let walked = walk_began.elapsed();
    println!("baseline: {} positions loaded in {:.3} s", walk.book.len(), loaded.as_secs_f64());
    println!("baseline: {} edges walked in {:.3} s", walk.edges, walked.as_secs_f64());
}
