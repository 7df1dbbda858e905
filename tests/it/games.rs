//! The game readers (SPEC §15.1, docs/games.md) on the repository's game
//! files, against facts read off their bytes by hand; damaged files,
//! refused names and cut games as the binary reports them; and random
//! legal games written in each format by the test itself and read back
//! whole.

use crate::common::{data, game_of, run_in, stderr};
use bookminer::board::{Move, Square};
use bookminer::games::{Entry, GameFile, GameFiles, Read, SkipReason};
use proptest::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};

fn square(name: &str) -> Move {
    Move::Play(Square::parse(name).unwrap())
}

fn squares(names: &str) -> Vec<Move> {
    names.split_whitespace().map(square).collect()
}

/// Every entry of a file, read through the library.
fn entries(path: &Path) -> Vec<Entry> {
    let mut file = GameFile::open(path).unwrap();
    let mut found = Vec::new();
    while let Some(entry) = file.next_entry().unwrap() {
        found.push(entry);
    }
    found
}

/// The moves of each game of a file (skipped games left out).
fn games_moves(path: &Path) -> Vec<Vec<Move>> {
    entries(path)
        .into_iter()
        .filter_map(|e| match e {
            Entry::Game(game) => Some(game.moves),
            Entry::Skipped(_) => None,
        })
        .collect()
}

/// `tests/data/games/WTH_1977.wtb`: bytes 4..8 of the header are
/// `0c 00 00 00` (12 games), byte 12 is 8, and 16 + 12 × 68 = 832 is its
/// size. Game 1's move bytes start `38 40 21 24 2e 22 2b` (56, 64, 33,
/// 36, 46, 34, 43: F5 D6 C3 F3 F4 D3 C4), game 2's `38 42 41 2e 24 40 3f
/// 22` (F5 F6 E6 F4 F3 D6 C6 D3).
#[test]
fn a_wthor_year_reads_as_its_header_and_bytes_say() {
    let path = data("games/WTH_1977.wtb");
    assert_eq!(fs::metadata(&path).unwrap().len(), 16 + 12 * 68);
    let games = games_moves(&path);
    assert_eq!(games.len(), 12);
    assert_eq!(games[0][..7], squares("F5 D6 C3 F3 F4 D3 C4")[..]);
    assert_eq!(games[1][..8], squares("F5 F6 E6 F4 F3 D6 C6 D3")[..]);
    for (i, game) in games.iter().enumerate() {
        let replay = bookminer::kifu::replay(game);
        assert_eq!(replay.illegal, None, "game {} plays legally", i + 1);
    }
}

/// `tests/data/games/wthor-1980-six.ggf`: three games of WTHOR's 1980 as
/// GGF (evaluations after `/`, lower case, `PA` passes), then one from
/// another start, one behind a synchro prefix `1 (`, one with A1 played as
/// move 21, where it is not legal.
#[test]
fn ggf_games_read_with_their_passes_and_the_odd_ones_skipped_or_cut() {
    let path = data("games/wthor-1980-six.ggf");
    let found = entries(&path);
    assert_eq!(found.len(), 6);
    let Entry::Game(first) = &found[0] else { panic!("{:?}", found[0]) };
    assert_eq!(first.moves[..5], squares("F5 D6 C5 F4 E3")[..]);
    assert_eq!(first.moves.len(), 60);
    let Entry::Game(second) = &found[1] else { panic!("{:?}", found[1]) };
    assert_eq!(second.moves.iter().filter(|m| **m == Move::Pass).count(), 2, "W[PA] twice");
    assert_eq!(second.moves[second.moves.len() - 4..], squares("C8 B8 G8 H8")[..]);
    let played = bookminer::kifu::replay(&second.moves);
    assert_eq!((played.steps.len(), played.illegal), (62, None), "60 squares, 2 passes");
    assert!(played.board().is_game_over());
    let Entry::Skipped(other) = &found[3] else { panic!("{:?}", found[3]) };
    assert_eq!((other.place.number, other.place.line, &other.why), (4, Some(4), &SkipReason::OtherStart));
    let Entry::Game(synchro) = &found[4] else { panic!("{:?}", found[4]) };
    assert_eq!((synchro.place.line, synchro.moves.len()), (Some(5), 30));
    let Entry::Game(illegal) = &found[5] else { panic!("{:?}", found[5]) };
    let played = bookminer::kifu::replay(&illegal.moves);
    assert_eq!(played.illegal, Some((20, square("A1"))), "move 21, A1, ends the game");
    assert_eq!(played.steps.len(), 20);
}

/// Runs `check` of the repository's small Edax book against `games` in a
/// folder of its own; its output.
fn check(dir: &Path, games: &[&Path], extra: &[&str]) -> std::process::Output {
    let book = data("books/edax46-l2-small.dat");
    let mut args = vec!["check".to_string(), book.display().to_string()];
    args.extend(games.iter().map(|g| g.display().to_string()));
    args.extend(["--out-dir".into(), "out".into(), "-q".into(), "--summary".into(), "json".into()]);
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_in(dir, &args)
}

/// The JSON summary of a run that succeeded.
fn summary(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_kifu_file_s_byte_order_mark_is_not_part_of_its_first_game() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.txt");
    let marked = dir.path().join("marked.txt");
    fs::write(&plain, "f5d6c3d3c4\n").unwrap();
    fs::write(&marked, "\u{feff}f5d6c3d3c4\n").unwrap();
    let plain = summary(&check(dir.path(), &[&plain], &[]));
    let marked = summary(&check(dir.path(), &[&marked], &[]));
    assert_eq!((marked["games_read"].as_u64(), marked["games_cut_short"].as_u64()), (Some(1), Some(0)));
    for key in ["missing", "good", "bad", "unscored"] {
        assert_eq!(marked[key], plain[key], "{key}");
    }
    let judged: u64 = ["missing", "good", "bad", "unscored"].iter().map(|k| plain[*k].as_u64().unwrap()).sum();
    assert_eq!(judged, 5, "five moves, each a new pair, whatever the book says of them");
}

#[test]
fn a_move_that_is_not_legal_ends_its_game_counted_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.txt");
    fs::write(&games, "# two games, the second cut at its third move\nf5d6c3\n\nf5 d6 d6 c3\n").unwrap();
    let out = check(dir.path(), &[&games], &[]);
    let json = summary(&out);
    assert_eq!((json["games_read"].as_u64(), json["games_cut_short"].as_u64()), (Some(2), Some(1)));
    let said = stderr(&out);
    assert!(said.contains("games.txt: game 2 (line 4): move 3 (D6) is not legal there"), "{said}");
    let judged: u64 = ["missing", "good", "bad", "unscored"].iter().map(|k| json[*k].as_u64().unwrap()).sum();
    assert_eq!(judged, 3, "the second game's two moves were met in the first");
}

#[test]
fn a_name_of_no_format_read_is_refused_before_the_book_is_read() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("games.edx"), [0u8; 16]).unwrap();
    let out = run_in(dir.path(), &["check", "no-such-book.dat", "games.edx"]);
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(said.contains("games.edx: not a game file bookminer reads"), "{said}");
    assert!(
        said.contains(".wtb (WTHOR), .ggf (GGF), .pgn (PGN), .sgf (SGF), .txt") && !said.contains("no-such-book"),
        "{said}"
    );
    assert!(!dir.path().join("out").exists(), "nothing made");
    let upper = dir.path().join("GAMES.TXT");
    fs::write(&upper, "f5\n").unwrap();
    assert!(GameFiles::new(&[upper]).is_ok(), "extensions in any case");
}

#[test]
fn a_game_file_that_cannot_be_opened_is_refused_before_the_book_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["check", "no-such-book.dat", "missing.wtb"]);
    assert_eq!(out.status.code(), Some(3), "a file that cannot be read");
    let said = stderr(&out);
    assert!(said.contains("missing.wtb: ") && !said.contains("no-such-book"), "{said}");
    fs::create_dir(dir.path().join("folder.txt")).unwrap();
    let out = run_in(dir.path(), &["check", "no-such-book.dat", "folder.txt"]);
    // Issue 57 item 11: a folder named as a game file is a bad argument.
    assert_eq!(out.status.code(), Some(2), "a folder is no game file");
    assert!(stderr(&out).contains("folder.txt: a directory, not a game file"), "{}", stderr(&out));
}

#[test]
fn a_cut_wthor_file_is_read_to_its_last_whole_game_and_says_what_was_left() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = fs::read(data("games/WTH_1977.wtb")).unwrap();
    let cut = dir.path().join("cut.wtb");
    fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    let out = check(dir.path(), &[&cut], &[]);
    assert_eq!(summary(&out)["games_read"].as_u64(), Some(11));
    let said = stderr(&out);
    assert!(
        said.contains(
            "cut.wtb: damaged: the header says 12 games, the file holds 11 whole games of 68 bytes and 58 bytes more"
        ),
        "{said}"
    );
    let short = dir.path().join("short.wtb");
    fs::write(&short, &bytes[..15]).unwrap();
    let out = check(dir.path(), &[&short], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("short.wtb: byte 0: 15 bytes: shorter than the 16-byte WTHOR header"));
}

#[test]
fn a_damaged_ggf_pgn_sgf_or_jsonl_file_says_the_game_the_line_and_the_byte() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "open.ggf",
            "(;GM[Othello]B[f5];)\n(;GM[Othello]B[f5]",
            "open.ggf: game 2, line 2, byte 39: the file ends inside the game",
        ),
        ("junk.ggf", "(;B[f5];)\nhello", "junk.ggf: line 2, byte 10: `h` between games"),
        ("lines.jsonl", "{\"kifu\":\"F5\"}\nF5D6\n", "lines.jsonl: game 2, line 2, byte 14: not a JSON line"),
        (
            "open.pgn",
            "1. f5 *\n[Event \"x",
            "open.pgn: game 2, line 2, byte 17: the file ends in the value of tag Event",
        ),
        (
            "open.sgf",
            "(;GM[2]B[f5])\n(;B[f5]",
            "open.sgf: game 2, line 2, byte 21: the file ends inside the variation that starts on line 2 at byte 14",
        ),
    ];
    for (name, text, message) in cases {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        let out = check(dir.path(), &[&path], &[]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(stderr(&out).contains(message), "{name}: {}", stderr(&out));
        assert!(!dir.path().join("out/check-bad.txt").exists(), "{name}: nothing written");
    }
}

/// A random legal game, as the test plays it: squares and forced passes,
/// never ending on a pass.
fn random_game(choices: &[u16]) -> Vec<Move> {
    let mut line = game_of(choices);
    if line.last() == Some(&Move::Pass) {
        line.pop();
    }
    line
}

/// A move written as the formats write it: upper or lower case.
fn written(mv: Move, lower: bool, pass: &str) -> String {
    let text = match mv {
        Move::Play(square) => square.to_string(),
        Move::Pass => pass.to_string(),
    };
    if lower {
        text.to_lowercase()
    } else {
        text
    }
}

/// The games in each format, written by hand here: WTHOR (no passes), GGF
/// (colours, `PA`, an evaluation after some moves), PGN (tags, move
/// numbers, `pass` or passes left out, a comment, a result or none), SGF
/// (as Edax writes it, or bare; `PA` or `B[]` passes), text (spaces or
/// none, passes written or not), JSONL (a kifu as `mine` writes it).
fn write_formats(dir: &Path, games: &[Vec<Move>], style: u32) -> Vec<PathBuf> {
    let mut wthor = vec![0u8; 16];
    wthor[4..8].copy_from_slice(&(games.len() as u32).to_le_bytes());
    wthor[12] = 8;
    let (mut ggf, mut text, mut jsonl) = (String::new(), String::new(), String::new());
    let (mut pgn, mut sgf) = (String::new(), String::new());
    for (g, game) in games.iter().enumerate() {
        let mut record = [0u8; 68];
        let squares = game.iter().filter_map(|m| if let Move::Play(s) = m { Some(*s) } else { None });
        for (i, s) in squares.enumerate() {
            record[8 + i] = 10 * (s.row() + 1) + s.column() + 1;
        }
        wthor.extend(record);
        let lower = (style >> g) & 1 == 1;
        ggf.push_str(
            "(;GM[Othello]PC[test]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]",
        );
        let mut black = true;
        for (i, &mv) in game.iter().enumerate() {
            let evaluation = if i % 3 == 0 { "/1.50/2.0" } else { "" };
            ggf.push_str(&format!("{}[{}{evaluation}]", if black { "B" } else { "W" }, written(mv, lower, "PA")));
            black = !black;
        }
        ggf.push_str(";)\n");
        let passes = if lower { "" } else { "ps" };
        let spaced = (style >> (g + 8)) & 1 == 1;
        let moves: Vec<String> = game
            .iter()
            .filter(|m| **m != Move::Pass || !passes.is_empty())
            .map(|&m| written(m, lower, passes))
            .collect();
        text.push_str(&moves.join(if spaced { " " } else { "" }));
        text.push('\n');
        let kifu: String = game.iter().map(|&m| written(m, false, "PS")).collect();
        jsonl.push_str(&format!("{{\"kifu\":\"{kifu}\",\"mode\":1}}\n"));
        pgn.push_str(&pgn_game(game, lower, spaced));
        sgf.push_str(&sgf_game(game, lower, spaced));
    }
    let files = [
        ("games.wtb", wthor),
        ("games.ggf", ggf.into_bytes()),
        ("games.pgn", pgn.into_bytes()),
        ("games.sgf", sgf.into_bytes()),
        ("games.txt", text.into_bytes()),
        ("games.jsonl", jsonl.into_bytes()),
    ];
    files
        .into_iter()
        .map(|(name, bytes)| {
            let path = dir.join(name);
            fs::write(&path, bytes).unwrap();
            path
        })
        .collect()
}

/// A game as PGN: Edax's tags and numbered moves with `pass` and a
/// comment and result after them (`full`), or only the moves, unnumbered,
/// passes left out, and no result (the end of the file or the next game's
/// tags end it).
fn pgn_game(game: &[Move], lower: bool, full: bool) -> String {
    let mut text = String::from("[Event \"?\"]\n[Site \"test\"]\n[Black \"a\"]\n[White \"b\"]\n\n");
    for (i, &mv) in game.iter().enumerate() {
        match full {
            true if i % 2 == 0 => text.push_str(&format!("{}. {} ", i / 2 + 1, written(mv, lower, "pass"))),
            true => text.push_str(&format!("{}{}", written(mv, lower, "pass"), if i % 16 == 15 { "\n" } else { " " })),
            false if mv == Move::Pass => {}
            false => text.push_str(&format!("{}\n", written(mv, lower, ""))),
        }
    }
    text.push_str(if full { "\n{a comment 1-0} *\n\n" } else { "\n" });
    text
}

/// A game as SGF: as Edax writes it, setup of the standard start and a
/// node a move with `PA` passes (`full`), or one node of moves with `B[]`
/// passes.
fn sgf_game(game: &[Move], lower: bool, full: bool) -> String {
    let mut text = match full {
        true => String::from("(;FF[4]GM[2]PB[a]PW[b]SZ[8]AB[d5][e4]AW[d4][e5]PL[B]RE[?]\n"),
        false => String::from("( ;GM[2]\n"),
    };
    for (i, &mv) in game.iter().enumerate() {
        let colour = if i % 2 == 0 { "B" } else { "W" };
        match full {
            true => text.push_str(&format!("{colour}[{}];", written(mv, lower, "PA"))),
            false => text.push_str(&format!("{colour}[{}] ", written(mv, lower, ""))),
        }
    }
    text.push_str(")\n");
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_legal_games_written_in_each_format_read_back_whole_and_in_order(
        // A game of no move is no line of a text file (an empty line is none).
        games in prop::collection::vec(prop::collection::vec(any::<u16>(), 1..=64), 1..=6),
        style in any::<u32>(),
    ) {
        let games: Vec<Vec<Move>> = games.iter().map(|g| random_game(g)).collect();
        let dir = tempfile::tempdir().unwrap();
        let paths = write_formats(dir.path(), &games, style);
        let files = GameFiles::new(&paths).unwrap();
        let mut read = Vec::new();
        files.read(|entry, _| {
            match entry {
                Read::Played(game) => read.push((game.file, game.place.number, game.replay.steps, game.cut)),
                Read::Skipped { skipped, .. } => panic!("nothing is skipped: {skipped:?}"),
            }
            Ok::<(), bookminer::games::GamesError>(())
        }).unwrap();
        prop_assert_eq!(read.len(), games.len() * paths.len());
        for (i, (file, number, steps, cut)) in read.into_iter().enumerate() {
            let g = i % games.len();
            prop_assert_eq!((file, number), (i / games.len(), g as u64 + 1));
            prop_assert_eq!(&steps, &games[g], "{} game {}", paths[file].display(), g + 1);
            prop_assert_eq!(cut, None);
        }
    }
}

/// Issue 64, point 9: a game file where the book goes, the book among the
/// game files, is met the same way by `check` and `add`: the arguments
/// said to be swapped, with the order to give them in.
#[test]
fn swapped_arguments_are_met_evenly_by_check_and_add() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(crate::common::data("books/endgames-extend.dat"), dir.path().join("b.dat")).unwrap();
    std::fs::copy(crate::common::data("games/WTH_1977.wtb"), dir.path().join("g.wtb")).unwrap();
    for args in [&["check", "g.wtb", "b.dat"][..], &["add", "g.wtb", "b.dat", "out.dat", "--engine", "none"]] {
        let out = crate::common::bin().current_dir(dir.path()).args(["--config", "/dev/null"]).args(args).output();
        let out = out.unwrap();
        let said = crate::common::stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains("the arguments are swapped") && said.contains("b.dat is a book"), "{args:?}: {said}");
    }
    assert!(!dir.path().join("out.dat").exists());
}
