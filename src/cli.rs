//! Command-line syntax. The flags that override config keys are declared with
//! the keys themselves, in `bookminer::config::Settings`.

use bookminer::config::Settings;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Walks an Othello opening book (Edax's book.dat or Egaroucid's .egbk3,
/// told by its first bytes) and writes the kifu of the places where it
/// disagrees with itself: leaves that beat every link, links whose score
/// disagrees with the position they lead to. Feed the kifu to an engine to
/// re-search them.
///
/// With no command, does what the config file says (mode 1–4 or "all": mine;
/// mode 5: inspect). Exit status: 0 done; 1 problems found (verify) or
/// positions missing or malformed (inspect); 2 bad config, book (for verify:
/// a file that is no book at all) or arguments; 3 a file could not be read
/// or written; 130 interrupted.
#[derive(Parser, Debug)]
#[command(name = "bookminer", version, max_term_width = 100)]
pub struct Cli {
    /// Config file (TOML). Default: ./config.toml if it exists, else built-in
    /// defaults. Relative paths in it are taken from its own folder.
    #[arg(short, long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Flags that override config keys (relative paths: from the working directory).
    #[command(flatten)]
    pub settings: Settings,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Walk the book and write mode{N}.txt (and .jsonl, .obf) for the chosen mode (1–4 or all).
    Mine,
    /// Print everything the book knows about positions (mode 5).
    ///
    /// A position is two 64-bit numbers (player opponent, hex 0x… or
    /// decimal), a kifu from the initial position (F5D6C3), or 64 squares
    /// (X/* black, O white, -/. empty, A1..H8) and the side to move (X or O).
    Inspect {
        /// Positions to inspect; none: read the file.
        positions: Vec<String>,
        /// File with one position per line [config: positions_file]
        #[arg(short, long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// Check every record of a book and list every problem; exit 1 if any,
    /// 2 if the file is not a book at all.
    Verify {
        /// The book file; default: --book, or the config's book.
        #[arg(value_name = "BOOK")]
        path: Option<PathBuf>,
    },
    /// Write a realistic book of about N positions (for tests, benchmarks and
    /// the sample book); the same options always give the same file.
    ///
    /// Lines are grown from the initial position by a cheap evaluation with
    /// seeded noise, some to the end of the game; every move whose child is in
    /// the book is linked, the best other move is the leaf (2-ply negamax),
    /// each record is what Edax's `book negamax` makes of it (value, bounds,
    /// counts, link scores), then a fraction of scores is changed so that
    /// every mode finds mismatches.
    Synth {
        /// Number of positions.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=i32::MAX as u64))]
        positions: u64,
        /// Seed of the random choices.
        #[arg(long, value_name = "S", default_value_t = 1)]
        seed: u64,
        /// Fraction of positions (0 to 1) given one wrong score.
        #[arg(long, value_name = "F", default_value_t = 0.02, value_parser = parse_fraction)]
        perturb: f64,
        /// Book format: Edax's book.dat, or Egaroucid's .egbk3 (values and
        /// leaves only: its links are the moves whose child is in the book).
        #[arg(long, value_enum, value_name = "FORMAT", default_value_t = BookFormat::Edax, ignore_case = true)]
        book_format: BookFormat,
        /// The book file to write (replaced only when complete).
        #[arg(value_name = "OUT")]
        path: PathBuf,
    },
    /// Print a book's header and what its records hold.
    Stats {
        /// The book file; default: --book, or the config's book.
        #[arg(value_name = "BOOK")]
        path: Option<PathBuf>,
    },
}

/// The book formats `synth` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BookFormat {
    /// Edax's book.dat
    Edax,
    /// Egaroucid's .egbk3
    Egbk3,
}

impl From<BookFormat> for bookminer::book::Format {
    fn from(format: BookFormat) -> bookminer::book::Format {
        match format {
            BookFormat::Edax => bookminer::book::Format::Edax,
            BookFormat::Egbk3 => bookminer::book::Format::Egaroucid,
        }
    }
}

/// A number from 0 to 1.
fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("expected a number from 0 to 1, found \"{text}\"")),
    }
}
