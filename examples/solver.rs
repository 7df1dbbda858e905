//! A small exact endgame solver that answers the part of Edax's console
//! `bookminer extend` speaks (docs/extend.md), so that `extend` can be run
//! and tested with a real engine built from this repository alone:
//!
//!     bookminer extend in.dat out.dat --engine "target/release/examples/solver"
//!
//! Every search is solved to the end of the game, whatever the level (give
//! it books whose levels solve their positions, and positions of up to 20
//! or so empty squares). It reads commands one per line, prints a `>`
//! prompt before each, and knows: `echo on|off`, `verbose N`, `level N`
//! (noted, not used), `setboard BOARD SIDE`, `book load FILE`, `book on`,
//! `book off`, `hint N`, `# comment`, `q`. `-book-file FILE` on its command
//! line loads a book at start; other arguments are ignored.
//!
//! `hint N` prints, as Edax does, a `book` line for each move the loaded
//! book holds for the position (when the book is on), then searches the
//! other moves and prints one line: depth, score, time, nodes, speed, move.
//!
//! For tests, `SOLVER_FAULT` makes it misbehave on its first `hint`:
//! `exit` (ends), `hang` (never answers, saying so on standard error),
//! `garbage` (prints nonsense); `hang-after-N` answers N `hint`s, then
//! hangs on the next (so that a test can stop a run at a known point).

use bookminer::board::{Board, Move, Square};
use bookminer::book::Book;
use bookminer::symmetry::{normalize, symmetry_between};
use exact::Search;
use std::io::{BufRead, Write};

#[path = "exact/mod.rs"]
mod exact;

fn main() {
    let mut solver = Solver::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "-book-file" {
            solver.load(&args.next().unwrap_or_default());
        }
    }
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        print!(">");
        let _ = std::io::stdout().flush();
        let Some(Ok(line)) = lines.next() else { return };
        if solver.echo && !line.trim().is_empty() {
            println!(" {}", line.trim());
        }
        println!();
        if !solver.command(line.trim()) {
            return;
        }
    }
}

#[derive(Default)]
struct Solver {
    echo: bool,
    board: Board,
    book: Option<Book>,
    book_on: bool,
    hints: u32,
}

impl Solver {
    /// Carries out one command; false to quit.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            [comment, ..] if comment.starts_with('#') => {}
            ["q" | "quit" | "exit" | "eof"] => return false,
            ["echo", value] => self.echo = *value == "on",
            ["verbose" | "level", _] => {}
            ["setboard", board, side] => self.set_board(board, side),
            ["book", "load", file] => self.load(file),
            ["book", "on"] => self.book_on = true,
            ["book", "off"] => self.book_on = false,
            ["hint", n] => self.hint(n.parse().unwrap_or(1)),
            _ => eprintln!("WARNING: Unknown command/Illegal move: \"{line}\""),
        }
        true
    }

    fn set_board(&mut self, board: &str, side: &str) {
        match bookminer::position::parse(&format!("{board} {side}")) {
            Ok(position) => self.board = position.board,
            Err(e) => eprintln!("WARNING: bad board: {e}"),
        }
    }

    fn load(&mut self, file: &str) {
        match std::fs::read(file)
            .map_err(|e| e.to_string())
            .and_then(|b| Book::from_bytes(file, b).map_err(|e| e.to_string()))
        {
            Ok(book) => (self.book, self.book_on) = (Some(book), true),
            Err(e) => eprintln!("error: {file}: {e}"),
        }
    }

    /// The book's moves for the position, in its coordinates.
    fn book_moves(&self) -> Vec<Square> {
        let (Some(book), true) = (&self.book, self.book_on) else { return Vec::new() };
        let stored = normalize(&self.board).board;
        let Some(record) = book.find(&stored) else { return Vec::new() };
        let Some(s) = symmetry_between(&stored, &self.board) else { return Vec::new() };
        record
            .moves()
            .filter_map(|l| match s.apply_move(l.mv) {
                Move::Play(square) => Some(square),
                Move::Pass => None,
            })
            .collect()
    }

    fn hint(&mut self, n: usize) {
        self.hints += 1;
        let fault = std::env::var("SOLVER_FAULT").unwrap_or_default();
        if let Some(n) = fault.strip_prefix("hang-after-").and_then(|n| n.parse::<u32>().ok()) {
            if self.hints > n {
                eprintln!("hanging after {n} answers (SOLVER_FAULT={fault})");
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(60));
                }
            }
        }
        if self.hints == 1 {
            match std::env::var("SOLVER_FAULT").as_deref() {
                Ok("exit") => std::process::exit(3),
                Ok("hang") => {
                    // Said, so that a test knows the search under way will never end.
                    eprintln!("hanging (SOLVER_FAULT=hang)");
                    loop {
                        std::thread::sleep(std::time::Duration::from_secs(60));
                    }
                }
                Ok("garbage") => {
                    println!("?? the answer is blue");
                    return;
                }
                _ => {}
            }
        }
        let excluded = self.book_moves();
        for square in &excluded {
            println!("book    +0                                          {square}");
        }
        if excluded.len() >= n {
            return;
        }
        let allowed = Square::iter(self.board.legal_moves()).filter(|s| !excluded.contains(s));
        let mut search = Search::default();
        let mut best: Option<(Square, i32)> = None;
        for square in allowed {
            let child = self.board.after(Move::Play(square)).expect("a legal move");
            let alpha = best.map_or(-65, |(_, score)| score);
            let score = search.move_score(&child, alpha);
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((square, score));
            }
        }
        if let Some((square, score)) = best {
            let depth = self.board.empties();
            let nodes = search.nodes;
            println!(
                "   {depth:2}   {score:+03}        0:00.000 {nodes:13} {:10} {}",
                0,
                square.to_string().to_lowercase()
            );
        }
    }
}
