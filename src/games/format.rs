//! The game file formats read, told by a file's extension.

use std::path::Path;

/// A game file's format, told by its extension in any case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameFormat {
    /// `.wtb`: the French federation's WTHOR database, a year a file.
    Wthor,
    /// `.ggf`: the Generic Game Format of GGS archives.
    Ggf,
    /// `.pgn`: Portable Game Notation, tag pairs then moves.
    Pgn,
    /// `.sgf`: the Smart Game Format, game trees of `B[..]`/`W[..]` moves.
    Sgf,
    /// `.txt`: one game a line, its moves as squares.
    Text,
    /// `.jsonl`: lines `mine` (or `check`) wrote, each line's kifu a game.
    Jsonl,
}

impl GameFormat {
    /// Every format read, in the order messages list them.
    pub const ALL: [GameFormat; 6] =
        [GameFormat::Wthor, GameFormat::Ggf, GameFormat::Pgn, GameFormat::Sgf, GameFormat::Text, GameFormat::Jsonl];

    /// The extension that names the format, without its dot.
    pub fn extension(self) -> &'static str {
        match self {
            GameFormat::Wthor => "wtb",
            GameFormat::Ggf => "ggf",
            GameFormat::Pgn => "pgn",
            GameFormat::Sgf => "sgf",
            GameFormat::Text => "txt",
            GameFormat::Jsonl => "jsonl",
        }
    }

    /// The format a file's extension names, in any case.
    pub fn of_path(path: &Path) -> Option<GameFormat> {
        let extension = path.extension()?.to_str()?;
        GameFormat::ALL.into_iter().find(|f| f.extension().eq_ignore_ascii_case(extension))
    }

    /// The formats read, as messages list them.
    pub fn listing() -> &'static str {
        ".wtb (WTHOR), .ggf (GGF), .pgn (PGN), .sgf (SGF), .txt (one game a line), .jsonl (lines bookminer wrote)"
    }
}
