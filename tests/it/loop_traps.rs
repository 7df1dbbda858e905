//! Issue 57: the traps a new user and a hostile one met in the book
//! builder's loop (`add`, `deepen`), each run as a user runs it, with the
//! repository's solver as the engine (`examples/solver.rs`, as extend's
//! tests use it) on `tests/data/books/endgames-extend.dat`.
//!
//! `tests/data/books/damaged/illegal-link.dat` is that book with one byte changed:
//! the initial position's second link (record 1, byte 42) plays D4, a
//! square already taken, so that the book's first walk refuses it.

use crate::common::{
    assert_no_engine_left, bin, book, data, journal, repo, run, solver, stderr, tagged_processes, RUN_TAG, START,
};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `bookminer add IN FILES...` in `dir`, the solver with one worker,
/// journal and log in `o`.
fn add_in(dir: &Path, input: &Path, files: &[&str], extra: &[&str]) -> Command {
    let mut command = bin();
    command.current_dir(dir).args(["--config", "/dev/null", "add"]).arg(input).args(files);
    command.args(["--workers", "1", "--out-dir", "o", "--log-file", "o/log"]);
    if !extra.contains(&"--engine") {
        command.arg("--engine").arg(solver());
    }
    command.args(extra).env(RUN_TAG, dir);
    command
}

/// A run started in `dir`, killed with whatever it started when dropped
/// (a test that fails while it runs leaves nothing running).
struct Running<'d> {
    child: std::process::Child,
    dir: &'d Path,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for pid in tagged_processes(self.dir, None) {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
        }
    }
}

/// A game along START, then `more`: a line of a .txt game file.
fn game(more: &str) -> String {
    format!("{START}{more}\n")
}

/// What a run says on standard error, the log aside.
fn said(out: &std::process::Output) -> String {
    stderr(out)
}

// Item 8: every file a run reads, by any path, is refused as OUT or journal.

#[cfg(unix)]
#[test]
fn add_never_writes_over_a_game_file_reached_by_a_link_force_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let games = game("h3");
    std::fs::write(dir.path().join("g.txt"), &games).unwrap();
    std::os::unix::fs::symlink("g.txt", dir.path().join("soft.dat")).unwrap();
    std::fs::hard_link(dir.path().join("g.txt"), dir.path().join("hard.dat")).unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("d/up")).unwrap();
    for out in ["soft.dat", "hard.dat", "d/up/soft.dat"] {
        let refused = run(add_in(dir.path(), &book(), &["g.txt", out], &["--force"]));
        assert_eq!(refused.status.code(), Some(2), "{out}: {}", said(&refused));
        let text = said(&refused);
        assert!(text.contains("is a file being read (the book or a game file)"), "{out}: {text}");
        assert!(text.contains("add never writes over its input"), "{out}: {text}");
        assert_eq!(std::fs::read_to_string(dir.path().join("g.txt")).unwrap(), games, "{out}: the games kept");
        assert!(journal(dir.path()).is_empty(), "{out}: refused before any search");
    }
    // The journal is a file written too.
    std::fs::create_dir_all(dir.path().join("o")).unwrap();
    std::os::unix::fs::symlink("../g.txt", dir.path().join("o/extend.jsonl")).unwrap();
    let refused = run(add_in(dir.path(), &book(), &["g.txt", "out.dat"], &["--force"]));
    assert_eq!(refused.status.code(), Some(2), "{}", said(&refused));
    assert_eq!(std::fs::read_to_string(dir.path().join("g.txt")).unwrap(), games);
    assert!(!dir.path().join("out.dat").exists());
}

// Item 10: IN and every game file are checked before the first search.

#[test]
fn a_damaged_book_is_refused_before_any_search_naming_it_and_no_scratch_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), game("h3g7")).unwrap();
    let damaged = data("books/damaged/illegal-link.dat");
    let refused = run(add_in(dir.path(), &damaged, &["g.txt", "out.dat"], &[]));
    assert_eq!(refused.status.code(), Some(2), "{}", said(&refused));
    let text = said(&refused);
    assert!(text.contains(&format!("{}: record 1 at byte 42", damaged.display())), "{text}");
    assert!(!text.contains("grown") && !text.contains("out.dat"), "no scratch file named: {text}");
    assert!(journal(dir.path()).is_empty(), "nothing searched");
    assert!(!dir.path().join("out.dat").exists());
    assert_no_engine_left(dir.path());
}

#[test]
fn a_damaged_record_above_the_start_is_refused_before_any_search_naming_in() {
    // extend below START never walks the initial position, which OUT's
    // final negamax (from the initial position, as fix's) does.
    let dir = tempfile::tempdir().unwrap();
    let damaged = data("books/damaged/illegal-link.dat");
    let refused = run(crate::common::extend(dir.path(), &damaged, "out.dat", &[]));
    assert_eq!(refused.status.code(), Some(2), "{}", said(&refused));
    let text = said(&refused);
    assert!(text.contains(&format!("{}: record 1 at byte 42", damaged.display())), "{text}");
    assert!(!text.contains("grown") && !text.contains("out.dat"), "no scratch file named: {text}");
    assert!(journal(dir.path()).is_empty(), "nothing searched");
    assert_no_engine_left(dir.path());
}

#[test]
fn a_damaged_game_file_late_in_the_list_is_found_before_any_search() {
    let dir = tempfile::tempdir().unwrap();
    // More games than are read ahead at once, each asking searches.
    std::fs::write(dir.path().join("g.txt"), game("h3g7").repeat(600)).unwrap();
    let mut damaged = b"f5\n".to_vec();
    damaged.extend(std::iter::repeat_n(b'a', 70_000));
    std::fs::write(dir.path().join("late.txt"), damaged).unwrap();
    let refused = run(add_in(dir.path(), &book(), &["g.txt", "late.txt", "out.dat"], &[]));
    assert_eq!(refused.status.code(), Some(2), "{}", said(&refused));
    assert!(said(&refused).contains("late.txt: line 2, byte 3: a line longer than"), "{}", said(&refused));
    assert!(journal(dir.path()).is_empty(), "nothing searched before the damage was found");
    assert_no_engine_left(dir.path());
}

// Item 3: a file that is not text is no game file.

#[test]
fn a_txt_file_that_is_not_text_is_refused_naming_the_byte_and_printing_none_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 2] = [
        ("nul.txt", b"f5d6\nc4\x00\xff\xfe junk\n", "nul.txt: line 2, byte 7: a NUL byte, not text"),
        ("latin.txt", b"f5d6\xe9c3\n", "latin.txt: line 1, byte 4: byte 0xE9 is not UTF-8, not text"),
    ];
    for (name, bytes, expected) in cases {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        let refused = run(add_in(dir.path(), &book(), &[name, "out.dat"], &[]));
        assert_eq!(refused.status.code(), Some(2), "{name}: {}", said(&refused));
        assert!(said(&refused).contains(expected), "{name}: {}", said(&refused));
        assert!(refused.stderr.iter().all(u8::is_ascii), "{name}: raw bytes printed: {:?}", said(&refused));
        assert!(journal(dir.path()).is_empty());
    }
}

#[test]
fn a_move_that_is_no_square_is_named_with_its_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), format!("{START}h3\u{e9}\u{1b}[31m\n")).unwrap();
    let out = run(add_in(dir.path(), &book(), &["g.txt", "out.dat"], &[]));
    assert!(out.status.success(), "{}", said(&out));
    let text = said(&out);
    assert!(text.contains("(\"\\u{e9}") && text.contains("is no square or pass"), "{text}");
    assert!(out.stderr.iter().all(u8::is_ascii), "raw bytes printed: {text:?}");
}

#[test]
fn an_empty_game_file_or_one_without_a_game_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.txt"), b"").unwrap();
    std::fs::write(dir.path().join("comments.txt"), b"# no game here\n\n").unwrap();
    std::fs::write(dir.path().join("g.txt"), game("")).unwrap();
    let out = run(add_in(dir.path(), &book(), &["empty.txt", "comments.txt", "g.txt", "out.dat"], &[]));
    assert!(out.status.success(), "{}", said(&out));
    let text = said(&out);
    assert!(text.contains("warn: empty.txt: an empty file, no game in it"), "{text}");
    assert!(text.contains("warn: comments.txt: no game in it (16 bytes read)"), "{text}");
    assert!(!text.contains("g.txt: no game"), "{text}");
}

// Item 11: words, and statuses.

#[cfg(unix)]
#[test]
fn a_folder_or_a_fifo_named_as_a_game_file_is_a_bad_argument() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("folder.txt")).unwrap();
    let fifo = dir.path().join("fifo.txt");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for (name, what) in [("folder.txt", "a directory"), ("fifo.txt", "a named pipe (FIFO)")] {
        let refused = run(add_in(dir.path(), &book(), &[name, "out.dat"], &[]));
        assert_eq!(refused.status.code(), Some(2), "{name}: {}", said(&refused));
        assert!(said(&refused).contains(&format!("{name}: {what}, not a game file")), "{}", said(&refused));
    }
}

#[cfg(unix)]
#[test]
fn an_out_over_in_is_refused_in_the_command_s_own_words() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(book(), dir.path().join("in.dat")).unwrap();
    std::os::unix::fs::symlink("in.dat", dir.path().join("same.dat")).unwrap();
    std::fs::write(dir.path().join("g.txt"), game("h3")).unwrap();
    let added = run(add_in(dir.path(), Path::new("in.dat"), &["g.txt", "same.dat"], &["--force"]));
    assert_eq!(added.status.code(), Some(2));
    assert!(said(&added).contains("add never writes over its input"), "{}", said(&added));
    let mut deepen = bin();
    deepen.current_dir(dir.path()).args(["--config", "/dev/null", "deepen", "in.dat", "same.dat", "--level", "5"]);
    deepen.args(["--force", "--out-dir", "o", "--engine"]).arg(solver()).env(RUN_TAG, dir.path());
    let deepened = run(deepen);
    assert_eq!(deepened.status.code(), Some(2));
    assert!(said(&deepened).contains("deepen never writes over its input"), "{}", said(&deepened));
    assert!(!said(&deepened).contains("extend"), "{}", said(&deepened));
}

#[test]
fn engines_retired_before_any_answer_do_not_speak_of_a_journal_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), game("h3")).unwrap();
    let mut command = add_in(dir.path(), &book(), &["g.txt", "out.dat"], &[]);
    command.env("SOLVER_FAULT", "exit");
    let failed = run(command);
    assert_eq!(failed.status.code(), Some(3), "{}", said(&failed));
    let text = said(&failed);
    assert!(text.contains("no engine left"), "{text}");
    assert!(text.contains("no engine answered a search, so no answer was kept"), "{text}");
    assert!(!text.contains("keeps every answer so far"), "{text}");
    assert_no_engine_left(dir.path());
}

// Item 4: hints that point the right way.

#[test]
fn out_named_before_the_games_is_said_to_be_a_game_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), game("h3")).unwrap();
    let games = std::fs::read(dir.path().join("g.txt")).unwrap();
    let refused = run(add_in(dir.path(), &book(), &["new.dat", "g.txt"], &[]));
    assert_eq!(refused.status.code(), Some(2));
    let text = said(&refused);
    assert!(text.contains("g.txt: add's last argument is OUT, the book it writes"), "{text}");
    assert!(text.contains("bookminer add IN GAMES... OUT") && !text.contains("--force"), "{text}");
    let forced = run(add_in(dir.path(), &book(), &["new.dat", "g.txt"], &["--force"]));
    assert_eq!(forced.status.code(), Some(2), "--force is no remedy");
    assert_eq!(std::fs::read(dir.path().join("g.txt")).unwrap(), games);
}

#[test]
fn out_named_as_the_journal_offers_no_force() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), game("h3g7")).unwrap();
    let first = run(add_in(dir.path(), &book(), &["g.txt", "out.dat"], &[]));
    assert!(first.status.success(), "{}", said(&first));
    let kept = std::fs::read(dir.path().join("o/extend.jsonl")).unwrap();
    assert!(!kept.is_empty());
    let mut deepen = bin();
    deepen.current_dir(dir.path()).args(["--config", "/dev/null", "deepen", "out.dat", "o/extend.jsonl"]);
    deepen.args(["--level", "5", "--out-dir", "o", "--engine"]).arg(solver()).env(RUN_TAG, dir.path());
    let refused = run(deepen);
    assert_eq!(refused.status.code(), Some(2));
    let text = said(&refused);
    assert!(text.contains("is extend's journal") && !text.contains("--force replaces"), "{text}");
    assert_eq!(std::fs::read(dir.path().join("o/extend.jsonl")).unwrap(), kept);
}

#[test]
fn a_missing_engine_s_hint_is_the_engine_line_the_docs_recommend() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), game("h3")).unwrap();
    let mut command = bin();
    command.current_dir(dir.path()).args(["--config", "/dev/null", "add"]).arg(book()).args(["g.txt", "out.dat"]);
    let refused = run(command);
    assert_eq!(refused.status.code(), Some(2));
    let recommended = std::fs::read_to_string(repo().join("docs/extend.md")).unwrap();
    assert!(recommended.contains("edax -n 1 -h 14 -eval-file"), "docs/extend.md recommends -n 1 -h 14");
    assert!(said(&refused).contains("--engine \"edax -n 1 -h 14 -eval-file PATH/eval.dat\""), "{}", said(&refused));
}

// Item 5: add's progress is games read of games to read.

#[test]
fn add_s_progress_lines_give_the_share_of_the_games_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), game("h3g7").repeat(3)).unwrap();
    std::fs::write(dir.path().join("skip.ggf"), "(;GM[Chess]B[e4];)\n").unwrap();
    let engine = format!("sh -c 'SOLVER_FAULT=hang {} \"$@\"' sh", solver().display());
    let extra = ["--engine", &engine, "--engine-timeout", "600", "--progress-seconds", "0.05"];
    let child = add_in(dir.path(), &book(), &["skip.ggf", "g.txt", "out.dat"], &extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut running = Running { child, dir: dir.path() };
    let deadline = Instant::now() + Duration::from_secs(60);
    let line = loop {
        let log = std::fs::read_to_string(dir.path().join("o/log")).unwrap_or_default();
        // The game passed over is done; the three games wait for their search.
        if let Some(line) = log.lines().find(|l| l.contains("adding: 1 of 4 games (25%), ")) {
            break line.to_string();
        }
        assert!(running.child.try_wait().unwrap().is_none(), "the run ended before a progress line: {log}");
        assert!(Instant::now() < deadline, "no progress line of add in a minute: {log}");
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(running);
    assert!(line.contains("games/s") && !line.contains("budget"), "{line}");
}

/// Issue 62: a game's searches show in the progress while the game is
/// under way: the game's new positions are searched before any is added,
/// and the line counts the searches answered of those asked.
#[test]
fn add_s_progress_counts_the_searches_of_a_game_under_way() {
    use bookminer::board::{Board, Move, Square};
    let mut board = Board::INITIAL;
    for at in (0..START.len()).step_by(2) {
        if !board.has_moves() {
            board = board.after(Move::Pass).unwrap();
        }
        board = board.after(Move::Play(Square::parse(&START[at..at + 2]).unwrap())).unwrap();
    }
    // Five moves past the book's line: five new positions to search.
    let mut more = String::new();
    for _ in 0..5 {
        let square = Square::iter(board.legal_moves()).next().expect("the game goes on");
        more.push_str(&square.to_string());
        board = board.after(Move::Play(square)).unwrap();
        if !board.has_moves() {
            board = board.after(Move::Pass).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), game(&more)).unwrap();
    let engine = format!("sh -c 'SOLVER_FAULT=hang-after-2 {} \"$@\"' sh", solver().display());
    let extra = ["--engine", &engine, "--engine-timeout", "600", "--progress-seconds", "0.05"];
    let child = add_in(dir.path(), &book(), &["g.txt", "out.dat"], &extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut running = Running { child, dir: dir.path() };
    let deadline = Instant::now() + Duration::from_secs(60);
    let line = loop {
        let log = std::fs::read_to_string(dir.path().join("o/log")).unwrap_or_default();
        // Two searches answered, the third hangs: the game is not done.
        if let Some(line) = log.lines().find(|l| l.contains("adding: 0 of 1 games (0%), ") && l.contains(", 2 of ")) {
            break line.to_string();
        }
        assert!(running.child.try_wait().unwrap().is_none(), "the run ended before a progress line: {log}");
        assert!(Instant::now() < deadline, "no line of two searches answered in a minute: {log}");
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(running);
    let asked: u64 = line.split(", 2 of ").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
    assert!(asked >= 3 && line.contains(&format!("2 of {asked} searches")), "{line}");
}

// Item 6: words and docs.

#[test]
fn deepen_s_help_speaks_of_records_and_add_s_usage_of_its_arguments() {
    let help = |command: &str| {
        let out = bin().args([command, "--help"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let deepen = help("deepen");
    assert!(deepen.contains("Deepen this many records at most, those of least priority first"), "{deepen}");
    assert!(deepen.contains("Deepen no record whose priority is above C"), "{deepen}");
    assert!(!deepen.contains("Stop once this many positions have been added"), "{deepen}");
    assert!(!deepen.contains("Grow until every frontier position"), "{deepen}");
    let add = help("add");
    assert!(add.contains("Usage: bookminer add [OPTIONS] <IN> <GAMES>... <OUT>"), "{add}");
    assert!(!add.contains("<GAMES... OUT> <GAMES... OUT>"), "{add}");
}

#[test]
fn the_readme_lists_every_key_of_add_s_json_summary() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.txt"), game("h3")).unwrap();
    let out = run(add_in(dir.path(), &book(), &["g.txt", "out.dat"], &["--summary", "json"]));
    assert!(out.status.success(), "{}", said(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The keys' table moved from the README to docs/usage.md (issue 64).
    let usage = std::fs::read_to_string(repo().join("docs/usage.md")).unwrap();
    let row = usage.lines().find(|l| l.starts_with("| `add` |")).expect("docs/usage.md's row of add's keys");
    for key in json.as_object().unwrap().keys().filter(|k| *k != "command") {
        assert!(row.contains(&format!("`{key}`")), "docs/usage.md's row of add lacks {key}: {row}");
    }
    // The map of SPEC sections to pages says what is built.
    let docs = std::fs::read_to_string(repo().join("docs/README.md")).unwrap();
    assert!(!docs.contains("not built yet"), "docs/README.md says a built command is not built");
}

// Items 1 and 9: the level deepen writes into the header.

/// `bookminer deepen in.dat out.dat --level L` in `dir` with the solver,
/// the JSON summary; its header's level as written.
fn deepen_to(dir: &Path, level: &str, extra: &[&str]) -> (serde_json::Value, i32) {
    let mut command = bin();
    command.current_dir(dir).args(["--config", "/dev/null", "deepen", "in.dat", "out.dat", "--level", level]);
    command.args(["--workers", "1", "--out-dir", "o", "--log-file", "o/log", "--summary", "json", "-q"]);
    command.arg("--engine").arg(solver()).args(extra).env(RUN_TAG, dir);
    let out = run(command);
    assert!(out.status.success(), "{}", said(&out));
    let written = std::fs::read(dir.join("out.dat")).unwrap();
    let header = bookminer::format::edax::parse_header(&written).unwrap();
    (serde_json::from_slice(&out.stdout).unwrap(), header.level)
}

/// `deepen in.dat out.dat --level LEVEL` in `dir` with the solver: its
/// text summary.
fn deepen_text(dir: &Path, level: &str) -> (std::process::Output, String) {
    let mut command = bin();
    command.current_dir(dir).args(["--config", "/dev/null", "deepen", "in.dat", "out.dat", "--level", level]);
    command.args(["--workers", "1", "--out-dir", "o", "--log-file", "o/log"]);
    command.arg("--engine").arg(solver()).env(RUN_TAG, dir);
    let out = run(command);
    assert!(out.status.success(), "{}", said(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, text)
}

/// A book at level 1 along one line from the initial position, whose
/// initial position links nothing (as `new` then `add` leave it): no walk
/// from it reaches the others. The journal holds the initial position's
/// search at level 20 (the solver cannot solve it), as a run killed after
/// that search would leave it.
fn unlinked_book(dir: &Path) {
    use bookminer::board::{Move, Square};
    use bookminer::book::{Link, Score};
    let line: Vec<Move> = bookminer::kifu::parse_moves("f5d6c3d3c4f4").unwrap();
    let mut entries = crate::common::book_from_lines(&[line]);
    for entry in &mut entries {
        entry.level = 1;
    }
    let initial = entries[0].board;
    assert_eq!(initial, bookminer::symmetry::normalize(&bookminer::board::Board::INITIAL).board);
    let first = Square::iter(initial.legal_moves()).next().unwrap();
    entries[0].links.clear();
    entries[0].leaf = Some(Link::new(Score::new(0), Move::Play(first)));
    std::fs::write(dir.join("in.dat"), bookminer::format::edax::entries::encode(&entries, 1)).unwrap();
    crate::common::journal_of_the_initial_position(dir, 20, &first.to_string(), 0);
}

#[test]
fn deepen_claims_its_level_only_when_no_record_of_out_needs_deepening() {
    let dir = tempfile::tempdir().unwrap();
    unlinked_book(dir.path());
    let (summary, level) = deepen_to(dir.path(), "20", &["--max-positions", "5"]);
    assert_eq!(summary["deepened"], 1, "only the initial position is in reach: {summary}");
    assert_eq!(summary["searches_from_journal"], 1, "{summary}");
    assert_eq!(summary["header_level_set"], false, "six records left at level 1: {summary}");
    assert_eq!(level, 1, "the header keeps IN's level");
}

/// The test book with its header's level and every record's set to 2, as
/// `in.dat` in `dir`.
fn book_at_level_2(dir: &Path) {
    let mut bytes = std::fs::read(book()).unwrap();
    bytes[18..22].copy_from_slice(&2i32.to_le_bytes());
    let mut at = 42;
    while at < bytes.len() {
        bytes[at + 39] = 2;
        at += 42 + 2 * usize::from(bytes[at + 38]);
    }
    std::fs::write(dir.join("in.dat"), bytes).unwrap();
}

#[test]
fn deepen_to_a_lower_level_writes_it_as_spec_16_says() {
    let dir = tempfile::tempdir().unwrap();
    book_at_level_2(dir.path());
    let (summary, level) = deepen_to(dir.path(), "1", &[]);
    assert_eq!(summary["deepened"], 0, "{summary}");
    // Issue 64, point 14: SPEC §16 step 4 never lowers the header's level.
    assert_eq!(summary["header_level_set"], false, "a lower level is never set: {summary}");
    assert_eq!(level, 2, "SPEC §16 step 4: the header keeps IN's level 2");
}

/// Issue 64, point 11: deepen's text says what became of the header's level.
#[test]
fn deepen_s_text_says_the_header_kept_its_level() {
    let dir = tempfile::tempdir().unwrap();
    book_at_level_2(dir.path());
    let (_, text) = deepen_text(dir.path(), "1");
    assert!(text.contains("its header's level kept at 2"), "{text}");
}
