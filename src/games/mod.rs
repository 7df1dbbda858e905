//! Game files (docs/games.md): WTHOR's `.wtb`, GGF's `.ggf`, PGN's `.pgn`,
//! SGF's `.sgf`, text with one game a line (`.txt`), and the `.jsonl` lines
//! `mine` and `check` write.
//! Each reader turns its file into games, in file order; [`GameFiles`] reads
//! the files in the order named and replays each game from the initial
//! position ([`crate::kifu::replay`]), so that a command sees every
//! position a game passes through, in order.
//!
//! Game files are untrusted input: a damaged file says where (the game or
//! line, the byte), a move that cannot be read or played ends its game
//! there, and no reader allocates by a count it has not checked.

mod bytes;
mod error;
mod format;
mod ggf;
mod jsonl;
mod lines;
mod pgn;
mod reader;
mod sgf;
mod text;
mod wthor;

use crate::board::Board;
use crate::kifu::{self, Replay};
use reader::Reader;
use std::fmt;
use std::io::{self, BufReader};
use std::path::{Path, PathBuf};

pub use error::{GamesError, Where};
pub use format::GameFormat;
pub use reader::{Entry, Game, GamePlace, SkipReason, Skipped};

/// One game file, read game by game.
pub struct GameFile {
    path: PathBuf,
    format: GameFormat,
    reader: Box<dyn Reader>,
}

impl GameFile {
    /// Opens a game file of the format its name says.
    pub fn open(path: &Path) -> Result<GameFile, GamesError> {
        let format = GameFormat::of_path(path).ok_or_else(|| GamesError::UnknownFormat { path: path.to_path_buf() })?;
        let io = |source| GamesError::Io { path: path.to_path_buf(), source };
        let (file, _) = crate::files::input::open_regular(path).map_err(io)?;
        GameFile::from_source(path, format, BufReader::with_capacity(1 << 16, file))
    }

    /// Reads games of `format` from bytes held in memory; `name` stands for
    /// the path in messages.
    pub fn from_bytes(name: &str, format: GameFormat, bytes: Vec<u8>) -> Result<GameFile, GamesError> {
        GameFile::from_source(Path::new(name), format, io::Cursor::new(bytes))
    }

    /// A reader of `format` over `source`, named `path` in messages.
    fn from_source(
        path: &Path,
        format: GameFormat,
        source: impl io::BufRead + 'static,
    ) -> Result<GameFile, GamesError> {
        let reader: Box<dyn Reader> = match format {
            GameFormat::Wthor => Box::new(wthor::WthorReader::new(path, source).map_err(|e| e.at(path))?),
            GameFormat::Ggf => Box::new(ggf::GgfReader::new(source)),
            GameFormat::Pgn => Box::new(pgn::PgnReader::new(source)),
            GameFormat::Sgf => Box::new(sgf::SgfReader::new(source)),
            GameFormat::Text => Box::new(text::TextReader::new(source)),
            GameFormat::Jsonl => Box::new(jsonl::JsonlReader::new(source)),
        };
        Ok(GameFile { path: path.to_path_buf(), format, reader })
    }

    /// The file, as named.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its format.
    pub fn format(&self) -> GameFormat {
        self.format
    }

    /// The next game or skipped game; none at the end of the file.
    pub fn next_entry(&mut self) -> Result<Option<Entry>, GamesError> {
        self.reader.next_entry().map_err(|e| e.at(&self.path))
    }

    /// The bytes read so far.
    pub fn offset(&self) -> u64 {
        self.reader.offset()
    }
}

/// The game files of a run, in the order named.
pub struct GameFiles {
    paths: Vec<PathBuf>,
    /// The entries (games and games passed over) of every file, once
    /// [`GameFiles::check`] has read them all.
    entries: std::sync::OnceLock<u64>,
}

/// A game replayed, and where it came from.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    /// Which of the files named, from 0.
    pub file: usize,
    /// Where it is in its file.
    pub place: GamePlace,
    /// Its moves played from the initial position.
    pub replay: Replay,
    /// The move that ended the game early, if one did: not legal where
    /// it came, or no move at all.
    pub cut: Option<Cut>,
}

/// The move that ended a game before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// 1-based number of the move among those the file writes.
    pub move_number: usize,
    /// The move as written (`PS` for a pass).
    pub text: String,
    /// Whether it is a move at all (else it is one not legal there).
    pub readable: bool,
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.readable {
            true => write!(f, "move {} ({}) is not legal there", self.move_number, self.text),
            false => write!(f, "move {} (\"{}\") is no square or pass", self.move_number, self.text.escape_default()),
        }
    }
}

/// What [`GameFiles::read`] hands on, in file order.
#[derive(Clone, Debug)]
pub enum Read {
    /// A game replayed.
    Played(PlayedGame),
    /// A game passed over.
    Skipped {
        /// Which of the files named, from 0.
        file: usize,
        /// The game, and why.
        skipped: Skipped,
    },
}

impl GameFiles {
    /// The files named, each told a format by its name and opened once: a
    /// name of no format read, or a file that cannot be opened (missing, a
    /// folder, a device), is refused here, before any game (or book) is
    /// read.
    pub fn new(paths: &[PathBuf]) -> Result<GameFiles, GamesError> {
        if let Some(path) = paths.iter().find(|p| GameFormat::of_path(p).is_none()) {
            return Err(GamesError::UnknownFormat { path: path.clone() });
        }
        for path in paths {
            if let Some(metadata) = std::fs::metadata(path).ok().filter(|m| !m.is_file()) {
                let what = crate::files::input::describe(metadata.file_type());
                return Err(GamesError::NotAFile { path: path.clone(), what });
            }
            crate::files::input::open_regular(path).map_err(|source| GamesError::Io { path: path.clone(), source })?;
        }
        Ok(GameFiles { paths: paths.to_vec(), entries: std::sync::OnceLock::new() })
    }

    /// Reads every file whole, before any of its games is used (before an
    /// engine's first search): a damaged file late in the list is found
    /// at once, not after hours of searches. `step` hears the entries read
    /// so far (a stop asked for ends the reading through it). A file with
    /// no game is said, as a warning. The entries (games and games passed
    /// over) of all files.
    pub fn check<E: From<GamesError>>(&self, mut step: impl FnMut(u64) -> Result<(), E>) -> Result<u64, E> {
        let mut entries = 0;
        for path in &self.paths {
            let mut file = GameFile::open(path)?;
            let before = entries;
            while file.next_entry()?.is_some() {
                entries += 1;
                step(entries)?;
            }
            if entries == before {
                warn_of_no_game(path, file.offset());
            }
        }
        let _ = self.entries.set(entries);
        Ok(entries)
    }

    /// The entries (games and games passed over) of all files, once
    /// [`GameFiles::check`] has counted them.
    pub fn entries(&self) -> Option<u64> {
        self.entries.get().copied()
    }

    /// The files named, in order.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The files' sizes together, for a progress bar (a file that cannot
    /// be asked counts 0; reading it will say why).
    pub fn total_bytes(&self) -> u64 {
        self.paths.iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum()
    }

    /// Reads every game of every file, in order, and hands each on,
    /// replayed, with `bytes` the bytes read so far in all files; an error
    /// from `each` stops the reading and is returned.
    pub fn read<E: From<GamesError>>(&self, mut each: impl FnMut(Read, u64) -> Result<(), E>) -> Result<(), E> {
        let mut done = 0;
        for (index, path) in self.paths.iter().enumerate() {
            let mut file = GameFile::open(path)?;
            let mut any = false;
            while let Some(entry) = file.next_entry()? {
                any = true;
                let read = match entry {
                    Entry::Game(game) => Read::Played(PlayedGame::of(index, game)),
                    Entry::Skipped(skipped) => Read::Skipped { file: index, skipped },
                };
                each(read, done + file.offset())?;
            }
            // Said once: by the check, when it read the files first.
            if !any && self.entries().is_none() {
                warn_of_no_game(path, file.offset());
            }
            done += file.offset();
        }
        Ok(())
    }
}

/// Warns of a game file with no game in it, `bytes` long: not an error
/// (an empty set of lines is a set), but rarely what was meant.
fn warn_of_no_game(path: &Path, bytes: u64) {
    match bytes {
        0 => tracing::warn!("{}: an empty file, no game in it", path.display()),
        _ => tracing::warn!("{}: no game in it ({bytes} bytes read)", path.display()),
    }
}

impl PlayedGame {
    /// Replays a game of the `file`-th file, noting the move that ended it
    /// early.
    pub fn of(file: usize, game: Game) -> PlayedGame {
        let replay = kifu::replay(&game.moves);
        let cut = match (&replay.illegal, game.unreadable) {
            (Some((i, mv)), _) => Some(Cut { move_number: i + 1, text: mv.to_string(), readable: true }),
            (None, Some(text)) => Some(Cut { move_number: game.moves.len() + 1, text, readable: false }),
            (None, None) => None,
        };
        PlayedGame { file, place: game.place, replay, cut }
    }

    /// The positions a book takes from the game, as Edax's `book add`
    /// takes them (docs/games.md): the game played for at most `squares`
    /// squares (a pass before a square is a step of it), then the boards
    /// it reached, last first, down to the one after the first step (the
    /// initial position is not one), each as played (not normalized);
    /// only those with at least `least_empties` empty squares.
    pub fn positions_to_add(&self, squares: usize, least_empties: i32) -> impl Iterator<Item = Board> + '_ {
        let steps = self.replay.steps_within(squares);
        self.replay.boards[1..=steps].iter().rev().copied().filter(move |b| b.empties() as i32 >= least_empties)
    }
}

/// Every entry of `bytes` read as a file of `format` named `test`, the
/// error (as its message) ending the list: for the tests of each reader.
#[cfg(test)]
fn reader_of(format: GameFormat, bytes: &[u8]) -> Vec<Result<Entry, String>> {
    let mut file = match GameFile::from_bytes("test", format, bytes.to_vec()) {
        Ok(file) => file,
        Err(e) => return vec![Err(e.to_string())],
    };
    let mut entries = Vec::new();
    loop {
        match file.next_entry() {
            Ok(Some(entry)) => entries.push(Ok(entry)),
            Ok(None) => return entries,
            Err(e) => {
                entries.push(Err(e.to_string()));
                return entries;
            }
        }
    }
}

/// Each entry of `bytes` read as a file of `format`, as a line: a game's
/// number, line and moves (and what cut it), a skip's reason, or the error.
#[cfg(test)]
fn entries_as_lines(format: GameFormat, bytes: &[u8]) -> Vec<String> {
    reader_of(format, bytes)
        .iter()
        .map(|e| match e {
            Ok(Entry::Game(g)) => {
                let moves: Vec<String> = g.moves.iter().map(crate::board::Move::to_string).collect();
                let cut = g.unreadable.as_ref().map(|u| format!(" then {u:?}")).unwrap_or_default();
                format!("{} line {:?}: {}{cut}", g.place.number, g.place.line, moves.join(" "))
            }
            Ok(Entry::Skipped(s)) => format!("{} skipped: {}", s.place.number, s.why),
            Err(e) => e.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;

    /// A game of `text` (squares, passes left implied), as a reader hands it on.
    fn game(text: &str) -> PlayedGame {
        let moves = crate::kifu::parse_moves(text).unwrap();
        PlayedGame::of(0, Game { place: GamePlace { number: 1, line: Some(1), offset: 0 }, moves, unreadable: None })
    }

    /// The board `text` reaches from the initial position.
    fn at(text: &str) -> Board {
        game(text).replay.board()
    }

    #[test]
    fn a_game_gives_its_positions_last_first_without_the_initial_one() {
        let g = game("f5d6c3d3c4");
        let all: Vec<Board> = g.positions_to_add(60, 0).collect();
        assert_eq!(all, [at("f5d6c3d3c4"), at("f5d6c3d3"), at("f5d6c3"), at("f5d6"), at("f5")]);
        let two: Vec<Board> = g.positions_to_add(2, 0).collect();
        assert_eq!(two, [at("f5d6"), at("f5")], "played for two squares only");
        assert_eq!(g.positions_to_add(0, 0).count(), 0);
    }

    #[test]
    fn positions_with_too_few_empty_squares_are_left_out() {
        // After f5 59 empty squares, after d6 58, after c3 57.
        let g = game("f5d6c3");
        let kept: Vec<Board> = g.positions_to_add(60, 58).collect();
        assert_eq!(kept, [at("f5d6"), at("f5")]);
        assert_eq!(g.positions_to_add(60, -1).count(), 3, "n_empties 0 keeps all");
    }

    #[test]
    fn a_pass_is_a_step_and_both_its_boards_are_taken() {
        let mut line = Vec::new();
        assert!(crate::kifu::first_line_to_a_pass(Board::INITIAL, 9, &mut line));
        let n = line.len();
        let stuck = at(&line.iter().map(|s| s.to_string()).collect::<String>());
        let reply = Square::iter(stuck.swapped().legal_moves()).next().unwrap();
        let text: String = line.iter().chain([&reply]).map(|s| s.to_string()).collect();
        let g = game(&text);
        let all: Vec<Board> = g.positions_to_add(60, 0).collect();
        assert_eq!(all.len(), n + 2, "the squares, and the pass");
        assert_eq!(all[1], stuck.swapped(), "the board after the pass");
        assert_eq!(all[2], stuck, "the board that must pass");
        let to_stuck: Vec<Board> = g.positions_to_add(n, 0).collect();
        assert_eq!(to_stuck[0], stuck, "no pass after the last square played");
    }
}
