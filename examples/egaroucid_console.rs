//! A small exact endgame solver that speaks Egaroucid for Console's
//! protocol as bookminer uses it (docs/extend.md, as measured on Egaroucid
//! for Console 7.8), so that
//! the Egaroucid protocol can be run and tested with an engine built from
//! this repository alone:
//!
//!     bookminer extend in.dat out.dat --engine "target/release/examples/egaroucid_console"
//!
//! Every search is solved to the end of the game, whatever the level. As
//! Egaroucid's console under `-quiet`, it prints its `> ` prompts on
//! standard error and nothing at start, and knows `setboard BOARD SIDE`
//! (blanks ignored; X, B, * or 0 black, O, W or 1 white, - or . empty),
//! `level N` (1 to 60: noted, shown in the rows), `hint K` and
//! `quit`/`exit`:
//!
//! * `hint K` prints a header, then min(K, legal moves) rows, each the
//!   best of the moves not yet listed (the first of equal scores in square
//!   order), `|  60|  10@100%|  f4|  -2|  000:00:00.000|  N|  0|`. A side
//!   that must pass, or a finished game, gets the header alone.
//! * A command it does not know: ``[ERROR] command `X` not found``; a bad
//!   board or level: an `[ERROR]` line; all on standard output.
//! * At the end of its input it prints the unknown-command error again
//!   and again, for ever, as Egaroucid's console does: it must be told to
//!   quit, or killed.
//!
//! For tests, `EGAROUCID_FAULT` makes it misbehave on its first `hint`:
//! `exit` (ends), `hang` (never answers), `error` (an `[ERROR]` line
//! instead of rows), `fewer` (one row less than asked).

use bookminer::board::{Board, Move, Square};
use exact::Search;
use std::io::{BufRead, Write};

#[path = "exact/mod.rs"]
mod exact;

const HEADER: &str =
    "|          Level|          Depth|           Move|          Score|           Time|          Nodes|            NPS|";

fn main() {
    let mut console = Console { board: Board::INITIAL, black: true, level: 21, hints: 0 };
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        eprint!("> ");
        let Some(Ok(line)) = lines.next() else { break };
        if !console.command(line.trim()) {
            return;
        }
        let _ = std::io::stdout().flush();
    }
    // Its input ended: as Egaroucid's console, complain for ever.
    loop {
        println!("[ERROR] command `` not found");
        let _ = std::io::stdout().flush();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

struct Console {
    /// The position, the side to move's discs first.
    board: Board,
    /// Whether black is to move (for nothing but its own consistency).
    black: bool,
    level: u32,
    hints: u32,
}

impl Console {
    /// Carries out one command; false to quit.
    fn command(&mut self, line: &str) -> bool {
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        match command {
            "" => {}
            "quit" | "exit" => return false,
            "setboard" => self.set_board(rest),
            "level" => match rest.trim().parse::<u32>() {
                Ok(level) if (1..=60).contains(&level) => self.level = level,
                Ok(_) => println!("[ERROR] level out of range"),
                Err(_) => println!("[ERROR] invalid level"),
            },
            "hint" => self.hint(rest.trim().parse().unwrap_or(1)),
            _ => println!("[ERROR] command `{command}` not found"),
        }
        true
    }

    fn set_board(&mut self, text: &str) {
        let squares: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        if squares.chars().count() != 65 {
            println!("[ERROR] invalid argument got length {} expected 65", squares.chars().count());
            return;
        }
        let (board, side) = squares.split_at(64);
        let black = matches!(side, "X" | "B" | "*" | "0" | "x" | "b");
        let mut player = 0u64;
        let mut opponent = 0u64;
        for (i, c) in board.chars().enumerate() {
            let bit = 1u64 << i;
            match c {
                'X' | 'B' | '*' | '0' | 'x' | 'b' => *(if black { &mut player } else { &mut opponent }) |= bit,
                'O' | 'W' | '1' | 'o' | 'w' => *(if black { &mut opponent } else { &mut player }) |= bit,
                '-' | '.' => {}
                _ => {
                    println!("[ERROR] invalid board character {c}");
                    return;
                }
            }
        }
        self.board = Board { player, opponent };
        self.black = black;
    }

    fn hint(&mut self, k: usize) {
        self.hints += 1;
        if self.hints == 1 {
            match std::env::var("EGAROUCID_FAULT").as_deref() {
                Ok("exit") => std::process::exit(0),
                Ok("hang") => loop {
                    std::thread::sleep(std::time::Duration::from_secs(60));
                },
                Ok("error") => {
                    println!("[ERROR] something went wrong");
                    return;
                }
                _ => {}
            }
        }
        let fewer = std::env::var("EGAROUCID_FAULT").as_deref() == Ok("fewer") && self.hints == 1;
        println!("{HEADER}");
        let mut left: Vec<Square> = Square::iter(self.board.legal_moves()).collect();
        let rows = k.min(left.len()) - usize::from(fewer && !left.is_empty());
        let empties = self.board.empties();
        let mut search = Search::default();
        for _ in 0..rows {
            let before = search.nodes;
            let mut best: Option<(usize, i32)> = None;
            for (i, &square) in left.iter().enumerate() {
                let child = self.board.after(Move::Play(square)).expect("a legal move");
                let alpha = best.map_or(-65, |(_, score)| score);
                let score = search.move_score(&child, alpha);
                if best.is_none_or(|(_, b)| score > b) {
                    best = Some((i, score));
                }
            }
            let Some((i, score)) = best else { break };
            let square = left.remove(i);
            println!(
                "|{:>15}|{:>15}|{:>15}|{:>15}|{:>15}|{:>15}|{:>15}|",
                self.level,
                format!("{empties}@100%"),
                square.to_string().to_lowercase(),
                format!("{score:+}"),
                "000:00:00.000",
                search.nodes - before,
                0
            );
        }
    }
}
