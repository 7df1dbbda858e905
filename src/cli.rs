//! Command-line syntax. The flags that override config keys are declared with
//! the keys themselves, in `crate::config::Settings`.

use crate::config::{
    choice, parse_max_seconds, BookKeys, DeepenKeys, EngineKeys, ExtendKeys, GamesKeys, GrowKeys, InspectKeys,
    LineKeys, LogKeys, MineKeys, MiningModeParser, ProgressKeys, ReadKeys, Settings, WalkKeys, WriteKeys, WrittenKeys,
    MINING_MODE_HELP,
};
use bookminer::book::Format;
use bookminer::convert::OutFormat;
use bookminer::mine::OneOutput;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Walks an Othello opening book (Edax's book.dat, or Egaroucid's .egbk3,
/// .egbk2 or .egbk, told by its first bytes and size) and writes the kifu
/// of the places where it disagrees with itself: leaves that beat every
/// link, links whose score disagrees with the position they lead to. Feed the kifu to an engine to
/// re-search them.
///
/// With no command, does what the config file says (mode 1–4 or "all": mine;
/// mode 5: inspect). Exit status: 0 done; 1 problems found (verify) or
/// positions missing or malformed (inspect); 2 bad config, book (for verify:
/// a file that is no book at all), game file or arguments (an output that is
/// the input, or exists and is not a regular file; an OUT or -o file that
/// exists, without --force); 3 a file could not be read or written;
/// 130 interrupted (Ctrl-C, SIGTERM or SIGHUP), nothing changed.
///
/// Outputs are written beside their final name and renamed into place when
/// complete. A file the command line names (OUT, -o FILE) that exists is
/// refused before any work, naming what it holds, unless --force says to
/// replace it; the files of out_dir are bookminer's own, replaced by each
/// run. An output named by a symbolic link replaces the file the link leads
/// to, and the link is kept.
#[derive(Parser, Debug)]
#[command(name = "bookminer", version, max_term_width = 100)]
pub struct Cli {
    /// Config file (TOML). Default: ./config.toml if it exists, else built-in
    /// defaults. Relative paths in it are taken from its own folder (from
    /// the working directory for one that is no regular file, such as
    /// /dev/null).
    #[arg(short, long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// No human summary and no progress (--summary json is printed all the
    /// same); warnings and errors still go to stderr (and everything to the
    /// log file, as log_level says).
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// More on stderr, which shows warnings and errors only: -v adds what a
    /// run did (info), -vv debug, -vvv trace. The log file gets log_level's
    /// whatever this says.
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,

    /// The summary at the end: human (text), or json (one JSON object on
    /// standard output: the command, its counts, paths, and times in
    /// seconds; for scripts).
    #[arg(long, global = true, value_enum, value_name = "FORMAT", default_value_t, ignore_case = true)]
    pub summary: SummaryFormat,

    /// With no command: the flags of `mine`, and mode 5's positions file.
    /// A book must be given: `mine BOOK`, --book FILE, or `book` in the
    /// config file.
    #[command(flatten)]
    pub mine: MineArgs,
    #[command(flatten)]
    pub inspect: InspectKeys,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The flags of mining (relative paths: from the working directory); each
/// overrides its config key.
#[derive(Args, Debug, Default, Clone)]
pub struct MineArgs {
    #[command(flatten)]
    pub book: BookKeys,
    #[command(flatten)]
    pub read: ReadKeys,
    #[command(flatten)]
    pub mine: MineKeys,
    #[command(flatten)]
    pub written: WrittenKeys,
    #[command(flatten)]
    pub line: LineKeys,
    #[command(flatten)]
    pub walk: WalkKeys,
    #[command(flatten)]
    pub log: LogKeys,
    #[command(flatten)]
    pub progress: ProgressKeys,
    #[command(flatten)]
    pub output: MineOutputArgs,
    #[command(flatten)]
    pub write: WriteKeys,
}

/// Where a run of one mode and one format writes its lines instead of
/// out_dir (no config key: a file named for one run).
#[derive(Args, Debug, Default, Clone)]
pub struct MineOutputArgs {
    /// Write the lines to FILE instead of {out_dir}/mode{N}.{txt,jsonl,obf},
    /// for a run of one mode and one format; `-`: on standard output, as
    /// they come (the summary then goes to standard error).
    #[arg(short, long, display_order = 17, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The lines on standard output: the same as -o -.
    #[arg(long, display_order = 17, conflicts_with = "output")]
    pub stdout: bool,
}

impl MineOutputArgs {
    /// The output these flags name, if any.
    fn named(&self) -> Option<OneOutput> {
        match (self.stdout, &self.output) {
            (true, _) => Some(OneOutput::Stdout),
            (false, Some(name)) => Some(OneOutput::named(name)),
            (false, None) => None,
        }
    }
}

impl Cli {
    /// Where mining writes its lines instead of out_dir (`-o`, `--stdout`):
    /// the `mine` command's flag, else the one given before it; none for
    /// the other commands.
    pub fn mine_output(&self) -> Option<OneOutput> {
        match &self.command {
            None => self.mine.output.named(),
            Some(Command::Mine { args, .. }) => args.output.named().or_else(|| self.mine.output.named()),
            Some(_) => None,
        }
    }

    /// The flags given: those before the command (the top level's), then
    /// the command's own, which override them.
    pub fn settings(&self) -> [Settings; 2] {
        let top = Settings { inspect: self.inspect.clone(), ..Self::mine_settings(&self.mine) };
        [top, self.command_settings()]
    }

    fn mine_settings(args: &MineArgs) -> Settings {
        Settings {
            book: args.book.clone(),
            read: args.read.clone(),
            mine: args.mine.clone(),
            written: args.written.clone(),
            line: args.line.clone(),
            walk: args.walk.clone(),
            log: args.log.clone(),
            progress: args.progress.clone(),
            write: args.write.clone(),
            ..Settings::default()
        }
    }

    /// The flags the command took after its name.
    fn command_settings(&self) -> Settings {
        match &self.command {
            None => Settings::default(),
            Some(Command::Mine { args, .. }) => Self::mine_settings(args),
            Some(
                Command::Inspect { book, read, log, .. }
                | Command::Verify { book, read, log, .. }
                | Command::Stats { book, read, log, .. }
                | Command::Serve { book, read, log, .. },
            ) => Settings { book: book.clone(), read: read.clone(), log: log.clone(), ..Settings::default() },
            Some(Command::Convert { read, log, progress, write, .. }) => Settings {
                read: read.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(Command::Cut { read, walk, log, progress, write, .. }) => Settings {
                read: read.clone(),
                walk: walk.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(Command::Fix { engines, line, read, log, progress, write, .. }) => Settings {
                engines: engines.clone(),
                line: line.clone(),
                read: read.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(Command::Diff { line, read, log, progress, write, .. }) => Settings {
                line: line.clone(),
                read: read.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(Command::Synth { log, progress, write, .. }) => {
                Settings { log: log.clone(), progress: progress.clone(), write: write.clone(), ..Settings::default() }
            }
            Some(Command::Check { written, line, read, log, progress, .. }) => Settings {
                written: written.clone(),
                line: line.clone(),
                read: read.clone(),
                log: log.clone(),
                progress: progress.clone(),
                ..Settings::default()
            },
            Some(Command::Merge { engines, line, read, log, progress, write, .. }) => Settings {
                engines: engines.clone(),
                line: line.clone(),
                read: read.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(Command::Extend { engines, extend, walk, line, read, log, progress, write, .. }) => Settings {
                engines: engines.clone(),
                extend: extend.clone(),
                walk: walk.clone(),
                line: line.clone(),
                read: read.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(
                Command::Deviate { engines, extend, walk, line, read, log, progress, write, .. }
                | Command::Enhance { engines, extend, walk, line, read, log, progress, write, .. }
                | Command::Play { engines, extend, walk, line, read, log, progress, write, .. },
            ) => Settings {
                engines: engines.clone(),
                extend: extend.clone(),
                walk: walk.clone(),
                line: line.clone(),
                read: read.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(Command::Fill { engines, extend, max_seconds, line, read, log, progress, write, .. }) => Settings {
                engines: engines.clone(),
                extend: extend.clone(),
                grow: GrowKeys { max_seconds: *max_seconds, ..GrowKeys::default() },
                line: line.clone(),
                read: read.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(Command::Grow { engines, extend, grow, walk, line, read, log, progress, write, .. }) => Settings {
                engines: engines.clone(),
                extend: extend.clone(),
                grow: grow.clone(),
                walk: walk.clone(),
                line: line.clone(),
                read: read.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(Command::Deepen { engines, extend, grow, deepen, walk, line, read, log, progress, write, .. }) => {
                Settings {
                    engines: engines.clone(),
                    extend: extend.clone(),
                    grow: grow.clone(),
                    deepen: deepen.clone(),
                    walk: walk.clone(),
                    line: line.clone(),
                    read: read.clone(),
                    log: log.clone(),
                    progress: progress.clone(),
                    write: write.clone(),
                    ..Settings::default()
                }
            }
            Some(Command::New { level, games, engines, line, log, progress, write, .. }) => Settings {
                deepen: level.clone(),
                games: games.clone(),
                engines: engines.clone(),
                line: line.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(Command::Add { level, games_keys, engines, line, read, log, progress, write, .. }) => Settings {
                deepen: level.clone(),
                games: games_keys.clone(),
                engines: engines.clone(),
                line: line.clone(),
                read: read.clone(),
                log: log.clone(),
                progress: progress.clone(),
                write: write.clone(),
                ..Settings::default()
            },
            Some(Command::Completions { .. } | Command::Man { .. }) => Settings::default(),
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Walk the book and write the lines where it disagrees with itself.
    ///
    /// Writes out_dir/mode{N}.txt (kifu; .jsonl and .obf with --format) for
    /// the chosen mode (1–4, or all four from one walk), each file complete
    /// or not at all. Needs a book (Edax .dat, Egaroucid .egbk3, .egbk2 or
    /// .egbk). A window (--deviation, --error, --max-ply) limits the moves
    /// the walk follows. With one mode and one format, -o FILE writes that
    /// file instead, and -o - (or --stdout) writes the lines on standard
    /// output as they come, the summary on standard error.
    Mine {
        /// The book to mine; default: --book, or the config's book.
        #[arg(value_name = "BOOK")]
        path: Option<PathBuf>,
        #[command(flatten)]
        args: MineArgs,
    },
    /// Print everything the book knows about positions (mode 5).
    ///
    /// A position is two 64-bit numbers (player opponent, hex 0x… or
    /// decimal), a kifu from the initial position (F5D6C3), or 64 squares
    /// (X/* black, O white, -/. empty, A1..H8) and the side to move (X or O).
    ///
    /// The lines bookminer writes read as positions too: an OBF line (the
    /// board and side before its `;`), a JSON line with "board" and "side"
    /// (fix.jsonl, diff.jsonl), a kifu line. A line of a mode's file
    /// (modeN.txt, .jsonl, .obf) is reported at the position the mode
    /// judged: for a line ending with one of its moves (mode 1's leaf), the
    /// position before that move, and the report says so. A position
    /// starting with `-` (an OBF board) is a position, not a flag.
    ///
    /// The book is the argument, first or not, that names an existing file
    /// that starts as a book does (Edax's or Egaroucid's magic, or an .egbk
    /// name); else --book, or the config's book.
    Inspect {
        /// [BOOK] and the positions to inspect, in any order; no positions: read the file.
        #[arg(value_name = "[BOOK] POSITION")]
        positions: Vec<String>,
        /// File with one position per line [config: positions_file]
        #[arg(short, long, value_name = "FILE")]
        file: Option<PathBuf>,
        /// Also draw each position as SVG into FILE: one position, FILE
        /// itself; several, FILE's stem, `-` and the position's number
        /// among those asked (pos.svg: pos-1.svg, pos-2.svg...). A file
        /// there is replaced; the book never is.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        #[command(flatten)]
        book: BookKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
    },
    /// Check every record of a book and list every problem; exit 1 if any,
    /// 2 if the file is not a book at all.
    Verify {
        /// The book file; default: --book, or the config's book.
        #[arg(value_name = "BOOK")]
        path: Option<PathBuf>,
        #[command(flatten)]
        book: BookKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
    },
    /// Write a realistic book of N positions (for tests, benchmarks and the
    /// sample book); the same options always give the same file.
    ///
    /// The format is the one OUT's name says (.dat Edax's; .egbk3, .egbk2,
    /// .egbk Egaroucid's), or the one --book-format names (which a name
    /// that says no format needs).
    ///
    /// Lines are grown from the initial position a level of discs at a time,
    /// by a cheap evaluation with seeded noise, down to the end of the game;
    /// every move whose child is in the book is linked, the best other move
    /// is the leaf (2-ply negamax), each record is what Edax's `book
    /// negamax` makes of it (value, bounds, counts, link scores), then a
    /// fraction of scores is changed so that every mode finds mismatches.
    /// Memory grows with the largest level of discs (a small fraction of
    /// the book; two levels are held at a time); the rest waits in unnamed
    /// temporary files beside OUT, about twice the book's size, gone when
    /// synth ends.
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
        /// leaves only: its links are the moves whose child is in the book),
        /// .egbk2 or .egbk (values only, boards in any symmetric image).
        /// Default: the format OUT's name says (.dat, .egbk3, .egbk2,
        /// .egbk); a name that says another format than this one is
        /// refused.
        #[arg(long, value_parser = choice::<Format>(), value_name = "FORMAT", ignore_case = true)]
        book_format: Option<Format>,
        /// The book file to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT")]
        path: PathBuf,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Write any book bookminer reads as an Edax or an Egaroucid book.
    ///
    /// Writes OUT (Edax book.dat or Egaroucid .egbk3) with IN's records in
    /// walk order: the initial position first, then each record as the walk
    /// first reaches it, then the records it never reaches in file order.
    /// Egaroucid to Edax adds a record for each position before a pass and
    /// gives every position the leaf Edax needs; Edax to Egaroucid loses link
    /// scores, bounds and win/draw/loss counts (the summary counts each).
    /// OUT appears only when complete and is never IN. Reads the config's
    /// egbk_level (for .egbk books), log_level and log_file.
    Convert {
        /// The book to read (Edax .dat, Egaroucid .egbk3, .egbk2 or .egbk).
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The book to write.
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// The format to write; default: from OUT's extension (.dat Edax, .egbk3 Egaroucid).
        #[arg(long, value_parser = choice::<OutFormat>(), value_name = "FORMAT", ignore_case = true)]
        to: Option<OutFormat>,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Keep the part of a book that the walk under a window reaches.
    ///
    /// Writes OUT, in IN's format (an .egbk2 or .egbk book as .egbk3): the
    /// start position's record and every record the walk from `start` arrives
    /// at under the window (deviation, error, max_ply), in walk order. In an
    /// Edax book, links to records not kept are removed, the best of them
    /// becoming the leaf when it beats the leaf (as Edax's `book prune`).
    /// OUT appears only when complete and is never IN; an OUT named for
    /// another format (.dat, .egbk3, .egbk2, .egbk) than the one written, or
    /// for none, is refused (status 2): `convert` changes formats.
    Cut {
        /// The book to read.
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The book to write.
        #[arg(value_name = "OUT")]
        output: PathBuf,
        #[command(flatten)]
        walk: WalkKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Repair a book as Edax's `book negamax` does, and say what changed.
    ///
    /// Reads IN (an Edax book.dat or an Egaroucid .egbk3, .egbk2 or .egbk,
    /// told by its first bytes) and writes OUT: IN with every record reachable over links
    /// from the initial position made to agree with its children, exactly as
    /// Edax 4.6's `book negamax` and `book sort` leave it (value, bounds by
    /// Edax's level table, win/draw/loss and line counts, link scores, links
    /// sorted best first); an Egaroucid book gets its values only. Records,
    /// their order and sizes and the header are kept: OUT has IN's size, and
    /// unreachable records and leaves are not touched.
    ///
    /// Also writes {out_dir}/fix.jsonl: one JSON line per record whose value,
    /// bounds or a link score changed, in file order, with the line of the
    /// walk's first arrival at it (orientation and pass_token apply), its
    /// board and side to move, and each changed number as [old,new]. A
    /// summary follows on standard output.
    ///
    /// Needs the book and room for OUT beside its final name (it is written
    /// there and renamed when complete, so OUT is whole or not written); OUT
    /// may never be IN, by any path, nor be named for another format (.dat,
    /// .egbk3, .egbk2, .egbk) than the one written, nor for none: `convert`
    /// changes formats. Uses about the book's size in memory
    /// plus 24 bytes a position. Exit status 2 if OUT is IN or IN is no
    /// book it reads, 3 if a file cannot be read or written, 130 if
    /// interrupted: nothing is written then.
    ///
    /// With --link, first as Edax's `book fix` (docs/policies.md): every
    /// record of an Edax book gets a link for each legal move (or the pass)
    /// whose child the book holds, and a record whose leaf move became a
    /// link has its leaf searched again by the engine (--engine, needed
    /// only when there is such a leaf; the journal {out_dir}/extend.jsonl,
    /// shared with extend). OUT is then the book linked, negamaxed; no
    /// receipt. An Egaroucid book's links are implicit: --link changes
    /// nothing there.
    Fix {
        /// The book to read.
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The fixed book to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// Link every legal move whose child the book holds, as Edax's `book fix` does
        #[arg(long)]
        link: bool,
        /// With --link, set the journal of earlier runs aside ({out_dir}/extend.N.jsonl,
        /// never deleted) and search everything anew
        #[arg(long, requires = "link")]
        fresh: bool,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Grow a book with an engine, as Edax's `book extend` does.
    ///
    /// Walks IN's links from `start` (a window limits them) for candidates:
    /// positions with at least min_empties empty squares whose leaf scores
    /// at least their value. Each candidate's leaf becomes a link to a new
    /// position, whose best move not linked is searched by the engine, and
    /// the candidate's next best move is searched too; rounds go on until
    /// no candidate is left (or --max-positions are added). OUT, in IN's
    /// format (.egbk2 and .egbk as .egbk3), holds IN's records, then the new
    /// ones, negamaxed as `fix` does.
    ///
    /// The engine is a command line (Edax 4.6: "edax -eval-file
    /// PATH/eval.dat"), run --workers times at once; a wrapper (ssh, a
    /// cluster's launcher) runs it elsewhere. Every answer goes to
    /// {out_dir}/extend.jsonl as it comes; a run that finds that journal
    /// takes its answers, whichever engine gave them, instead of searching
    /// again, so an interrupted run loses only the searches under way. One
    /// run at a time: a second run on a journal in use is refused (status
    /// 2), naming the process that holds it. Each engine is started and
    /// greeted before the book is read: when none answers (not found, no
    /// eval file), the run stops at once (status 3), quoting what each
    /// wrote on its standard error. An engine that crashes, hangs past
    /// engine_timeout or answers nonsense is restarted and asked twice
    /// more, then the run stops (status 3). Status 130 if interrupted: the
    /// journal is kept, OUT is not written.
    Extend {
        /// The book to read.
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The book to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
        /// deleted) and search everything anew, as after a change of engine
        #[arg(long)]
        fresh: bool,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        extend: ExtendKeys,
        #[command(flatten)]
        walk: WalkKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Grow every line near the best, as Edax's `book deviate R A` does.
    ///
    /// Each round fixes the start's value S, then marks, in two passes,
    /// the leaves of the lines below `start` whose moves score within
    /// --relative of the best for one side (the side to move at the start
    /// first, then the other; the other side plays only best moves) and
    /// whose scores stay within --absolute of S; each marked leaf becomes a
    /// link to a new position, searched by the engine as `extend` does
    /// (docs/policies.md). Rounds go on until one marks nothing (or
    /// --max-positions are added). OUT, in IN's format, holds IN's records,
    /// then the new ones, negamaxed as `fix` does. The engines, the journal
    /// ({out_dir}/extend.jsonl, shared with extend) and the statuses are
    /// extend's; a window is not taken (the errors are the window).
    Deviate {
        /// The book to read.
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The book to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// How far below the best move a move of the deviating side may score, in discs
        #[arg(long, default_value_t = 2, allow_negative_numbers = true, value_name = "R",
              value_parser = clap::value_parser!(i32).range(-129..=129))]
        relative: i32,
        /// How far from the start's value the scores of a line may go, in discs
        #[arg(long, default_value_t = 4, value_name = "A", value_parser = clap::value_parser!(i32).range(0..=65))]
        absolute: i32,
        /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
        /// deleted) and search everything anew, as after a change of engine
        #[arg(long)]
        fresh: bool,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        extend: ExtendKeys,
        #[command(flatten)]
        walk: WalkKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Expand every position without a link, as Edax 4.6's `book play` does.
    ///
    /// Each round walks IN's links below `start` (positions with at least
    /// min_empties empty squares, the game going on) for the positions
    /// that have no link at all, and expands each one's leaf as `extend`
    /// expands a candidate (docs/policies.md); rounds go on until no such
    /// position is left (or --max-positions are added). OUT, in IN's
    /// format, holds IN's records, then the new ones, negamaxed as `fix`
    /// does. The engines, the journal ({out_dir}/extend.jsonl, shared with
    /// extend) and the statuses are extend's; a window is not taken.
    Play {
        /// The book to read.
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The book to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
        /// deleted) and search everything anew, as after a change of engine
        #[arg(long)]
        fresh: bool,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        extend: ExtendKeys,
        #[command(flatten)]
        walk: WalkKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Put in the positions between positions of the book, as Edax's `book fill D` does.
    ///
    /// Each round looks, from every position of IN with at least
    /// min_empties empty squares, at every sequence of --depth plies (a
    /// forced pass is one) that ends on a position of IN, and puts each
    /// position after the first into the book: a new one at the book's
    /// level, its leaf searched by the engine; each linked to its children
    /// in the book (docs/policies.md). Rounds go on until one adds nothing
    /// (or --max-positions are added, or --max-seconds passed). OUT, in
    /// IN's format, holds IN's records, then the new ones, negamaxed as
    /// `fix` does. The engines, the journal ({out_dir}/extend.jsonl, shared
    /// with extend) and the statuses are extend's.
    Fill {
        /// The book to read.
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The book to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// Plies of a sequence between two positions of the book
        #[arg(long, default_value_t = 1, value_name = "D",
              value_parser = clap::value_parser!(u32).range(1..=i64::from(bookminer::extend::fill::MAX_DEPTH)))]
        depth: u32,
        /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
        /// deleted) and search everything anew, as after a change of engine
        #[arg(long)]
        fresh: bool,
        /// Begin no round after this many seconds; the round under way is finished [config: max_seconds]
        #[arg(long, display_order = 25, value_name = "SECONDS", value_parser = parse_max_seconds)]
        max_seconds: Option<f64>,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        extend: ExtendKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Grow where the bounds say more is to find, as Edax's `book enhance M E` does.
    ///
    /// --midgame-error and --endgame-error become the header's errors, and
    /// so the bounds `fix` gives every leaf. Each round walks from `start`
    /// over the links whose child's bounds reach the position's own, and
    /// expands the leaf of each position whose leaf's bounds reach its own,
    /// as `extend` expands a candidate (docs/policies.md). Rounds go on
    /// until one adds nothing (or --rounds were done, or --max-positions
    /// added): Edax 4.6 does one round, --rounds 1. OUT, in IN's format (an
    /// Edax book), holds IN's records, then the new ones, negamaxed as
    /// `fix` does. The engines, the journal ({out_dir}/extend.jsonl, shared
    /// with extend) and the statuses are extend's; a window is not taken.
    Enhance {
        /// The book to read (an Edax book: its header holds the errors).
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The book to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// The midgame search's error, in discs, stored in the header
        #[arg(long, default_value_t = 2, value_name = "M", value_parser = clap::value_parser!(i32).range(0..=129))]
        midgame_error: i32,
        /// The endgame search's error, in discs, stored in the header
        #[arg(long, default_value_t = 4, value_name = "E", value_parser = clap::value_parser!(i32).range(0..=129))]
        endgame_error: i32,
        /// At most this many rounds (1: what Edax 4.6 does); by default, until one adds nothing
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        rounds: Option<u64>,
        /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
        /// deleted) and search everything anew, as after a change of engine
        #[arg(long)]
        fresh: bool,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        extend: ExtendKeys,
        #[command(flatten)]
        walk: WalkKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Grow a book best-first under a budget: Lincke's drop-out expansion.
    ///
    /// Spends the engines' time where play is likely to go: near the best
    /// lines, shallow first. A frontier position (entered over links from
    /// `start`, its leaf a move) has priority D + 1 + W * (value - leaf
    /// score), where D is the cheapest line of links from the start, each
    /// link costing 1 + W * (value of its position - its score), W being
    /// --error-weight. The least priority is expanded next, as `extend`
    /// expands a candidate, as soon as an engine is free (docs/grow.md).
    ///
    /// Stops when no frontier position is left, or every one is above
    /// --max-priority, or --max-positions were added, or --max-seconds
    /// passed; what is under way is finished and OUT written (IN's format,
    /// negamaxed as `fix` does). Ctrl-C once does the same; twice stops at
    /// once (status 130, OUT not written). The engines, the journal
    /// ({out_dir}/extend.jsonl, shared with extend) and the statuses are
    /// extend's.
    Grow {
        /// The book to read.
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The book to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
        /// deleted) and search everything anew, as after a change of engine
        #[arg(long)]
        fresh: bool,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        extend: ExtendKeys,
        #[command(flatten)]
        grow: GrowKeys,
        #[command(flatten)]
        walk: WalkKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Search leaves again at a higher level (docs/deepen.md).
    ///
    /// Every record whose level, at its number of empty squares, searches
    /// less deeply than --level L in Edax's level table (a smaller depth,
    /// or the same with a lower selectivity; a solved record never) is
    /// given level L and its leaf searched again at L, its links excluded;
    /// OUT is IN with those levels and leaves, negamaxed as `fix` does (an
    /// Edax book's header says L once no record of OUT needs deepening to
    /// L any more, and its level is never lowered). Which records: every one, in file
    /// order; with --start or a window, only what extend's walk enters;
    /// with a budget (--max-positions records deepened, --max-seconds,
    /// --max-priority) they are taken in grow's priority order, least
    /// first, so that a run stopped early has deepened the lines play
    /// reaches first. Ctrl-C once finishes what is under way and writes
    /// OUT; twice stops at once (status 130, OUT not written). The
    /// engines, the journal ({out_dir}/extend.jsonl, shared with extend
    /// and grow) and the statuses are extend's.
    #[command(mut_arg("max_positions", |arg| arg.help(
        "Deepen this many records at most, those of least priority first [config: max_positions]"
    )))]
    #[command(mut_arg("max_priority", |arg| arg.help(
        "Deepen no record whose priority is above C [config: max_priority]"
    )))]
    Deepen {
        /// The book to read.
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The book to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
        /// deleted) and search everything anew, as after a change of engine
        #[arg(long)]
        fresh: bool,
        #[command(flatten)]
        deepen: DeepenKeys,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        extend: ExtendKeys,
        #[command(flatten)]
        grow: GrowKeys,
        #[command(flatten)]
        walk: WalkKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Merge two books, of any formats bookminer reads, into one.
    ///
    /// OUT holds every board of A or B once, in the format its name says
    /// (.dat: Edax; .egbk3: Egaroucid); a book of another format is first
    /// converted as `convert` does, what it cannot carry counted. A board in
    /// both keeps the record of the higher level; at equal levels, the one
    /// whose leaf is not a link of the merged book; else A's. An Edax
    /// record's links are those of both books (A's, then B's others); with
    /// --link also every legal move whose child the merged book holds, as
    /// Edax's `book link` does. A leaf whose move became a link is stale:
    /// with --engine it is searched again as `extend` searches a leaf (the
    /// same journal, {out_dir}/extend.jsonl, so a rerun searches nothing
    /// twice); without one it is left with no score (in an Edax book, score
    /// -127 on a move not linked, as Edax wants a leaf move wherever one is
    /// left) and counted. The book is then negamaxed as `fix` does
    /// (docs/merge.md).
    ///
    /// Also writes {out_dir}/merge.jsonl: one JSON line per conflict decided
    /// and per stale leaf. OUT is whole or not written, and never A or B by
    /// any path (status 2). Status 130 if interrupted (the journal kept), 3
    /// if the engines fail as in `extend`.
    Merge {
        /// The first book: its records come first, and it wins ties.
        #[arg(value_name = "A")]
        a: PathBuf,
        /// The second book.
        #[arg(value_name = "B")]
        b: PathBuf,
        /// The book to write: .dat (Edax) or .egbk3 (Egaroucid).
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// Also link every legal move whose child the merged book holds (an Edax book).
        #[arg(long)]
        link: bool,
        /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
        /// deleted) and search every stale leaf anew, as after a change of engine
        #[arg(long)]
        fresh: bool,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Say what differs between two books, of any formats bookminer reads.
    ///
    /// Writes {out_dir}/diff.jsonl (whole, or not at all): one JSON line
    /// per board only in OLD, only in NEW, or in both with a different
    /// value, level, leaf (as stored), or, when both books are Edax's,
    /// bounds or link scores (links matched by move): an Egaroucid book
    /// stores no bounds and no links (its links' scores are its children's
    /// values). The lines come in OLD's file order, then NEW's
    /// boards that OLD lacks in NEW's file order. Each names its record by
    /// the line of the first arrival at it on the walk of the book that
    /// holds it (OLD's when both do), as fix's
    /// receipt does: orientation and pass_token apply. Keys, in this order,
    /// each difference only when there is one:
    /// {"diff":"old"|"new"|"changed","old":N|null,"new":N|null,"kifu":"F5D6"|null,
    /// "board":"…","side":"X","value":[old,new],"lower":[old,new],"upper":[old,new],
    /// "level":[old,new],"leaf":[["C4",score]|null,…],"links":[["D3",old|null,new|null],…]}
    /// ("old" and "new" are record numbers from 0 in each file; a board only
    /// one book holds has "value" with null on the other side; a board no
    /// walk reaches has "kifu":null and its stored board with the side to
    /// move as X). Win/draw/loss and line counts, an Egaroucid leaf's
    /// level, and the order of links, are not compared. A summary counting each kind follows on standard
    /// output. -o FILE writes the lines to FILE instead; -o - (or --stdout)
    /// writes them on standard output as they come, and the summary on
    /// standard error. Exit status 0 whether or not the books differ; with
    /// --exit-code, 1 when they differ (as git diff's flag of that name,
    /// and cmp).
    Diff {
        /// The first book (Edax .dat, Egaroucid .egbk3, .egbk2 or .egbk).
        #[arg(value_name = "OLD")]
        old: PathBuf,
        /// The second book, compared with the first.
        #[arg(value_name = "NEW")]
        new: PathBuf,
        /// Exit with status 1 when the books differ (any line written), 0
        /// when they do not; a failure keeps its own status (2, 3, 130).
        #[arg(long)]
        exit_code: bool,
        /// Write the lines to FILE instead of {out_dir}/diff.jsonl; `-`:
        /// on standard output, as they come (the summary then goes to
        /// standard error).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// The lines on standard output: the same as -o -.
        #[arg(long, conflicts_with = "output")]
        stdout: bool,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Measure a book against games, as Edax's `book check` does.
    ///
    /// Reads BOOK (Edax .dat, Egaroucid .egbk3, .egbk2 or .egbk) and the
    /// game files, each told by its extension: .wtb (WTHOR), .ggf (GGF),
    /// .pgn (PGN), .sgf (SGF, each variation a game), .txt (one game a
    /// line, a byte-order mark allowed, # comments), .jsonl
    /// (lines bookminer wrote, each line's kifu a game); a name of another
    /// format is refused (status 2) before anything is read. Each game is
    /// played from the initial position for at most 61 - n_empties moves
    /// (an Edax book's header; for an Egaroucid book the fewest empty
    /// squares of a record, as Edax checks the book `convert` makes of
    /// it); then,
    /// last move first, each position and move played not met before in
    /// the run is judged: good when the book scores the move (a link, or
    /// the leaf) as its best, bad when below it, missing when the book has
    /// not the position (not counted when the book has no score for the
    /// move). A game from another start is skipped; a move that is not
    /// legal ends its game there (the first few are named). Prints Edax's
    /// line, "Positions : M missing, G good, B bad (P% bad)", with the
    /// games read, skipped and cut short (--summary json: missing, good,
    /// bad, bad_percent, ...).
    ///
    /// Writes {out_dir}/check-bad.txt (each game line up to and including
    /// a bad move) and {out_dir}/check-missing.txt (each line up to the
    /// first position the book has not), .jsonl (with the move's score and
    /// the best) and .obf too with --format, a line written once, as
    /// mining writes its lines: the files one set, complete or not at all,
    /// replacing the previous set in out_dir (manifest.json). Exit status
    /// 2 for a game file or book that is damaged or of no format read, 3 if
    /// a file cannot be read or written, 130 if interrupted (no file
    /// changed).
    Check {
        /// The book to measure.
        #[arg(value_name = "BOOK")]
        book: PathBuf,
        /// The game files, read in this order.
        #[arg(value_name = "GAMES", required = true)]
        games: Vec<PathBuf>,
        #[command(flatten)]
        written: WrittenKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
    },
    /// Start a book from the initial position, as Edax's `book new L D` does.
    ///
    /// Writes OUT (an Edax book, or an Egaroucid one for a .egbk3 name)
    /// holding one position, the initial one, at level --level, its best
    /// move searched by the engine (the leaf); an Edax book's header says
    /// the level and n_empties 61 - --depth, the fewest empty squares
    /// `add` takes positions at and `extend` expands. Then `bookminer add`
    /// puts games in, `extend` or `grow` grow it. The engine, its journal
    /// ({out_dir}/extend.jsonl) and the exit statuses are extend's.
    New {
        /// The book to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
        /// deleted) and search everything anew, as after a change of engine
        #[arg(long)]
        fresh: bool,
        #[command(flatten)]
        level: DeepenKeys,
        #[command(flatten)]
        games: GamesKeys,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Add games' positions to a book, as Edax's `book add` does.
    ///
    /// Reads IN and the game files, each told by its extension (as
    /// `check` reads them: .wtb, .ggf, .pgn, .sgf, .txt, .jsonl), and
    /// plays each game, in order, for at most 60 - n_empties moves (an Edax book's header;
    /// for an Egaroucid book, --depth plies, default 60), a pass where the
    /// side to move has none. Then, last position first, each position
    /// with at least n_empties - 1 empty squares is added: one the book
    /// has gets a link for each move whose child the book has, and its
    /// best move not linked searched if it has none; a new one gets the
    /// book's level (an Egaroucid book: --level), its links, and its best
    /// move not linked searched by the engine. OUT, in IN's format,
    /// holds IN's records, then the new ones in the order added,
    /// negamaxed as `fix` does. A game from another start is skipped; a
    /// move that is not legal ends its game there.
    ///
    /// The engines, the journal ({out_dir}/extend.jsonl, which a run
    /// killed and started again takes its answers from), the greeting and
    /// the exit statuses are extend's.
    Add {
        /// The book to read.
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The game files, read in this order.
        #[arg(value_name = "GAMES", required = true, num_args = 1..)]
        games: Vec<PathBuf>,
        /// The book to write (whole or not at all; an existing one only with --force).
        #[arg(value_name = "OUT", required = true)]
        output: PathBuf,
        /// Set the journal of earlier runs aside ({out_dir}/extend.N.jsonl, never
        /// deleted) and search everything anew, as after a change of engine
        #[arg(long)]
        fresh: bool,
        #[command(flatten)]
        level: DeepenKeys,
        #[command(flatten)]
        games_keys: GamesKeys,
        #[command(flatten)]
        engines: EngineKeys,
        #[command(flatten)]
        line: LineKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
        #[command(flatten)]
        progress: ProgressKeys,
        #[command(flatten)]
        write: WriteKeys,
    },
    /// Print a shell completion script to standard output.
    ///
    /// bash: `bookminer completions bash > ~/.local/share/bash-completion/completions/bookminer`;
    /// zsh: `bookminer completions zsh > ~/.zfunc/_bookminer` (with ~/.zfunc in fpath);
    /// fish: `bookminer completions fish > ~/.config/fish/completions/bookminer.fish`.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum, ignore_case = true)]
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff) to standard output, or write every page
    /// into a folder.
    ///
    /// `bookminer man | man -l -`: bookminer's page; `bookminer man extend`:
    /// extend's (bookminer-extend); `bookminer man --dir
    /// ~/.local/share/man/man1`: bookminer.1 and a bookminer-COMMAND.1 for
    /// each command, the folder made if need be (then `man bookminer-extend`).
    Man {
        /// The command whose page to print (bookminer's own without one).
        #[arg(value_name = "COMMAND", conflicts_with = "dir")]
        command: Option<String>,
        /// Write every page into DIR (made if need be) instead of printing one.
        #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
        dir: Option<std::path::PathBuf>,
    },
    /// Print a book's header and what its records hold.
    ///
    /// Counts links, leaves and passes, then the positions by empty
    /// squares, by value, by level and by number of links, and the leaf
    /// minus the best link for positions with both (what mode 1 finds:
    /// those above 0). With --summary json, the same counts as one JSON
    /// object, each distribution a list of [value, positions] pairs.
    Stats {
        /// The book file; default: --book, or the config's book.
        #[arg(value_name = "BOOK")]
        path: Option<PathBuf>,
        /// Also draw the distributions as bar charts into FILE (SVG); a
        /// file there is replaced, the book never is.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// The same charts in an HTML page, into FILE.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        #[command(flatten)]
        book: BookKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
    },
    /// Explore a book in the browser: the board, each move's score, the
    /// leaf, level, counts and the mismatches of every mode at each position.
    ///
    /// Opens the book (any format bookminer reads), indexes it, then serves
    /// a page on http://127.0.0.1:PORT/ and prints that address: click a
    /// move to play it, paste a kifu or an OBF board to go there;
    /// /line/F5D6C3 opens that line, /api/inspect/F5D6C3 gives what
    /// `inspect --summary json` gives for it. Listens on 127.0.0.1 only,
    /// unless --address names another. Reads nothing but the book; Ctrl-C
    /// stops it (exit status 0).
    Serve {
        /// The book file; default: --book, or the config's book.
        #[arg(value_name = "BOOK")]
        path: Option<PathBuf>,
        /// The port to listen on; 0 takes a free one (the address printed says which).
        #[arg(long, value_name = "PORT", default_value_t = 8046)]
        port: u16,
        /// The address to listen on: 127.0.0.1 unless another is named
        /// (0.0.0.0 offers the book to every machine that can reach this one).
        #[arg(long, value_name = "IP", default_value = "127.0.0.1")]
        address: std::net::IpAddr,
        #[command(flatten)]
        book: BookKeys,
        #[command(flatten)]
        read: ReadKeys,
        #[command(flatten)]
        log: LogKeys,
    },
}

/// The command line's definition: the derived one, with `mine --mode`
/// offering only what `mine` does (1–4, all: mode 5 is `inspect`).
/// `--help`, the shell completions and the manual pages are made from it.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command().mut_subcommand("mine", |mine| {
        mine.mut_arg("mode", |mode| mode.value_parser(MiningModeParser).help(MINING_MODE_HELP))
    })
}

/// The command line parsed. A board written as `inspect` takes it (OBF's
/// 64 squares and the side to move) may start with `-`, which clap would
/// take for a flag: such an argument after `inspect` is handed to clap
/// with its leading `-` written `.` (the same empty squares), and given
/// back as written once parsed. No flag is 65 squares long. A mistake
/// clap reports ends the run, with a tip where bookminer has one.
pub fn parse() -> Cli {
    let mut given = Vec::new();
    let mut after_inspect = false;
    let mut after_dashes = false;
    let args: Vec<std::ffi::OsString> = std::env::args_os()
        .map(|arg| {
            let text = arg.to_str().unwrap_or_default();
            after_dashes |= after_inspect && text == "--";
            if after_inspect && !after_dashes && text.starts_with('-') && bookminer::position::is_board(text) {
                let dotted = format!(
                    "{}{}",
                    ".".repeat(text.len() - text.trim_start_matches('-').len()),
                    text.trim_start_matches('-')
                );
                given.push((dotted.clone(), text.to_string()));
                return dotted.into();
            }
            after_inspect |= text == "inspect";
            arg
        })
        .collect();
    let mut cli = command()
        .try_get_matches_from(args)
        .and_then(|matches| <Cli as clap::FromArgMatches>::from_arg_matches(&matches))
        .unwrap_or_else(|error| with_tip(error).exit());
    if let Some(Command::Inspect { positions, .. }) = &mut cli.command {
        for position in positions {
            if let Some((_, written)) = given.iter().find(|(dotted, _)| dotted == position) {
                *position = written.clone();
            }
        }
    }
    cli
}

/// A parse error, with a tip for a command that is a file: `bookminer
/// book.dat` means `bookminer mine book.dat`.
fn with_tip(mut error: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::String(word)) = error.get(ContextKind::InvalidSubcommand) else { return error };
    if error.kind() != clap::error::ErrorKind::InvalidSubcommand || !std::path::Path::new(word).is_file() {
        return error;
    }
    let tip = format!("'{word}' is a file, not a command: to mine it, run `bookminer mine {word}`");
    let mut tips = match error.get(ContextKind::Suggested) {
        Some(ContextValue::StyledStrs(tips)) => tips.clone(),
        _ => Vec::new(),
    };
    tips.insert(0, tip.into());
    error.insert(ContextKind::Suggested, ContextValue::StyledStrs(tips));
    error
}

/// How the summary at the end of a run is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SummaryFormat {
    /// Text, as the README shows it
    #[default]
    Human,
    /// One JSON object on one line
    Json,
}

/// A number from 0 to 1.
fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("expected a number from 0 to 1, found \"{text}\"")),
    }
}

impl Command {
    /// Where `diff` writes its lines: -o FILE, `-` (or --stdout) for
    /// standard output, else `{out_dir}/diff.jsonl`.
    pub fn diff_output(output: &Option<PathBuf>, stdout: bool, out_dir: &std::path::Path) -> PathBuf {
        match (output, stdout) {
            (_, true) => PathBuf::from(bookminer::diff::STDOUT),
            (Some(path), false) => path.clone(),
            (None, false) => out_dir.join(bookminer::diff::DIFF_FILE),
        }
    }
}
