//! `extend` end to end, with a real engine built from this repository: the
//! exact solver of `examples/solver.rs`, which speaks the part of Edax's
//! console `extend` uses (and is checked against plain negamax in its own
//! tests).
//!
//! The book is `tests/data/books/endgames-extend.dat`: an endgame book at
//! level 60 (every search exact) whose leaves at 14 to 22 empty squares
//! were scored 4 above their values, so that extending it has work to do.
//! `endgames-extend-18.edax.dat` is what Edax 4.6 made of it: its own
//! `book extend` from [`START`] (18 empty squares), then its own `book
//! negamax` (which SPEC §13 step 4's final negamax stands for): the
//! expected boards and values, from the real engine.

use crate::common::{
    assert_each_search_once, assert_no_engine_left, bin, book, data, extend, journal, minimax, near_end, repo, run,
    solver, solvers_running, stderr, summary, START,
};
use bookminer::board::{Board, Move, Square};
use bookminer::book::Book;
use bookminer::format::edax;
use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Board → (value, lower, upper, level) of every record of an Edax book.
fn values(path: &Path) -> HashMap<Board, (i32, i32, i32, u8)> {
    let bytes = std::fs::read(path).unwrap();
    edax::records(&bytes)
        .map(Result::unwrap)
        .map(|(_, _, raw)| {
            let (lower, upper) = raw.bounds();
            (raw.board(), (raw.value().discs(), lower.discs(), upper.discs(), raw.level()))
        })
        .collect()
}

#[test]
fn the_solver_answers_what_plain_negamax_says() {
    // Positions with 8 to 10 empty squares, reached by seeded random play.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut boards = Vec::new();
    while boards.len() < 30 {
        let mut board = Board::INITIAL;
        while board.empties() > 8 + (state % 3) as u32 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let moves: Vec<Square> = Square::iter(board.legal_moves()).collect();
            board = match moves.len() {
                0 if board.swapped().has_moves() => board.swapped(),
                0 => break,
                n => board.after(Move::Play(moves[(state % n as u64) as usize])).unwrap(),
            };
        }
        if board.has_moves() {
            boards.push(board);
        }
    }
    let mut input = String::from("echo on\n");
    for board in &boards {
        let query = bookminer::engine::search::Query {
            board: *board,
            excluded: bookminer::board::Squares::NONE,
            level: bookminer::level::Level::MAX,
        };
        input.push_str(&format!("setboard {} {}\nhint 1\n", query.board_text(), query.side()));
    }
    input.push_str("q\n");
    let mut child = Command::new(solver()).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // The search lines: depth, score, time, nodes, speed, move.
    let answers: Vec<(i32, Square)> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 6 && w[2].contains(':'))
        .map(|w| (w[1].parse().unwrap(), Square::parse(w[5]).unwrap()))
        .collect();
    assert_eq!(answers.len(), boards.len(), "{text}");
    for (board, (score, square)) in boards.iter().zip(answers) {
        assert_eq!(score, minimax(board), "{board:?}");
        assert_eq!(-minimax(&board.after(Move::Play(square)).unwrap()), score, "the move named scores so");
    }
}

#[test]
fn the_book_grown_holds_what_edax_grew_with_the_same_values() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(extend(dir.path(), &book(), "out.dat", &[]));
    assert!(out.status.success(), "{}", stderr(&out));
    let grown = values(&dir.path().join("out.dat"));
    let expected = values(&data("books/endgames-extend-18.edax.dat"));
    assert_eq!(grown.len(), expected.len(), "the same number of positions");
    for (board, fields) in &expected {
        assert_eq!(grown.get(board), Some(fields), "{board:?}");
    }
    assert_eq!(summary(&out, "positions added"), "positions added      46");
    assert!(summary(&out, "searches").starts_with("searches             92 by the engines, 0 taken"));
    // Issue 47 item 9: the engine time counts the fleet as the engine's own line does.
    assert!(summary(&out, "engine time").ends_with(" s (2 workers on 1 engine)"), "{}", summary(&out, "engine time"));
    assert!(summary(&out, "engine 1").contains(": 2 workers, 92 searches"), "{}", summary(&out, "engine 1"));
    // Nothing left to do: a second run adds nothing, and the book agrees
    // with itself (fix changes no record).
    let again =
        run(extend(dir.path(), &dir.path().join("out.dat"), "again.dat", &["--out-dir", "o2", "--log-file", "o2/log"]));
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(summary(&again, "positions added"), "positions added      0");
    let fixed = run({
        let mut c = bin();
        c.current_dir(dir.path()).args(["--config", "/dev/null", "fix", "out.dat", "fixed.dat", "--out-dir", "f"]);
        c.args(["--log-file", "f/log"]);
        c
    });
    assert!(fixed.status.success(), "{}", stderr(&fixed));
    assert_eq!(std::fs::read(dir.path().join("f/fix.jsonl")).unwrap(), b"", "fix finds nothing to change");
    assert_diff_lists_what_grew(dir.path(), &values(&book()), &grown);
    assert_no_engine_left(dir.path());
}

/// `diff IN OUT` lists exactly the boards added and the values changed.
fn assert_diff_lists_what_grew(
    dir: &Path,
    before: &HashMap<Board, (i32, i32, i32, u8)>,
    after: &HashMap<Board, (i32, i32, i32, u8)>,
) {
    let out = run({
        let mut c = bin();
        c.current_dir(dir).args(["--config", "/dev/null", "diff"]).arg(book());
        c.args(["out.dat", "--out-dir", "d", "--log-file", "d/log"]);
        c
    });
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.join("d/diff.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let kind = |k: &str| lines.iter().filter(|l| l["diff"] == k).count();
    let added = after.keys().filter(|b| !before.contains_key(b)).count();
    assert_eq!((kind("old"), kind("new")), (0, added));
    let revalued = before.iter().filter(|(b, v)| after.get(b).is_some_and(|a| a.0 != v.0)).count();
    let with_value = lines.iter().filter(|l| l["diff"] == "changed" && !l["value"].is_null()).count();
    assert_eq!(with_value, revalued, "every value changed, and no other");
}

/// Starts a run and waits until its journal holds `n` answers.
fn start_until_journaled(dir: &Path, n: usize, extra: &[&str]) -> std::process::Child {
    let mut command = extend(dir, &book(), "out.dat", extra);
    let mut child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while journal(dir).len() < n {
        assert!(Instant::now() < deadline, "the journal never reached {n} answers");
        assert!(child.try_wait().unwrap().is_none(), "the run ended before {n} answers");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

#[test]
fn a_run_killed_and_run_again_writes_the_book_of_a_run_never_interrupted() {
    let start = near_end();
    let near = ["--start", start.as_str()];
    let whole = tempfile::tempdir().unwrap();
    assert!(run(extend(whole.path(), &book(), "out.dat", &near)).status.success());
    let expected = std::fs::read(whole.path().join("out.dat")).unwrap();
    for n in [1, 8, 16] {
        let dir = tempfile::tempdir().unwrap();
        let mut child = start_until_journaled(dir.path(), n, &near);
        assert!(solvers_running(dir.path()) > 0, "the engines of a run under way are seen");
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        assert_no_engine_left(dir.path());
        assert!(!dir.path().join("out.dat").exists(), "no OUT from a killed run");
        let before = journal(dir.path()).len();
        let again = run(extend(dir.path(), &book(), "out.dat", &near));
        assert!(again.status.success(), "{}", stderr(&again));
        assert_eq!(std::fs::read(dir.path().join("out.dat")).unwrap(), expected, "killed after {n} answers");
        let taken = summary(&again, "searches");
        assert!(taken.contains(&format!(" {before} taken from")), "{taken} (journal held {before})");
        let lines = journal(dir.path());
        assert_eq!(lines.len(), 22);
        assert_each_search_once(&lines);
    }
}

#[test]
fn ctrl_c_keeps_the_journal_and_writes_no_book() {
    let dir = tempfile::tempdir().unwrap();
    let child = start_until_journaled(dir.path(), 10, &[]);
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(!dir.path().join("out.dat").exists());
    let lines = journal(dir.path());
    assert!(lines.len() >= 10);
    assert_each_search_once(&lines);
    let left: Vec<_> = std::fs::read_dir(dir.path().join("o")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 2, "the journal and the log only: {left:?}");
    assert_no_engine_left(dir.path());
}

/// A run whose engine misbehaves (`SOLVER_FAULT`) after a first run left
/// some answers in the journal, both from near the end (what is checked is
/// the fault and the journal, whatever the book).
fn faulty_run(fault: &str, extra: &[&str]) -> (tempfile::TempDir, Output, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let start = near_end();
    let first = run(extend(dir.path(), &book(), "first.dat", &["--max-positions", "3", "--start", &start]));
    assert!(first.status.success(), "{}", stderr(&first));
    let kept = std::fs::read_to_string(dir.path().join("o/extend.jsonl")).unwrap();
    let mut command = extend(dir.path(), &book(), "out.dat", &[extra, &["--start", &start]].concat());
    command.env("SOLVER_FAULT", fault);
    let out = run(command);
    assert_no_engine_left(dir.path());
    (dir, out, kept.lines().map(String::from).collect())
}

#[test]
fn an_engine_that_fails_every_time_stops_the_run_with_status_3_and_the_journal_intact() {
    for (fault, extra, says) in [
        ("exit", &[][..], &["ended (exit status: 3)"][..]),
        ("garbage", &[][..], &["answered what cannot be read"][..]),
        // What the engine wrote on its standard error, quoted even under
        // -q (issue 40 item 7). One run: each hang costs the timeout.
        (
            "hang",
            &["--engine-timeout", "1", "-q"][..],
            &["gave no answer within 1 s", "it said: hanging (SOLVER_FAULT=hang)"][..],
        ),
    ] {
        let (dir, out, kept) = faulty_run(fault, extra);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{fault}: {message}");
        for says in says {
            assert!(message.contains(says), "{fault}: {message}");
        }
        assert!(message.contains(&format!("engine `{}`", solver().display())), "{fault}: {message}");
        assert!(message.contains(", level 60"), "names the position: {message}");
        assert!(!message.contains("panicked"), "{message}");
        assert!(!dir.path().join("out.dat").exists());
        let now: Vec<String> =
            std::fs::read_to_string(dir.path().join("o/extend.jsonl")).unwrap().lines().map(String::from).collect();
        assert_eq!(now, kept, "{fault}: the journal holds what it held");
    }
}

#[test]
fn a_sleeping_engine_and_a_flooding_one_are_stopped_with_status_3() {
    for (engine, says) in
        [("sh -c 'sleep 100'", "it printed nothing in 1 s"), ("sh -c 'yes garbage'", "it printed: garbage")]
    {
        let dir = tempfile::tempdir().unwrap();
        let out = run(extend(dir.path(), &book(), "out.dat", &["--engine", engine, "--engine-timeout", "1"]));
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{engine}: {message}");
        assert!(message.contains(&format!("engine `{engine}`")) && message.contains(says), "{message}");
        assert!(!dir.path().join("out.dat").exists());
    }
}

/// Issue 40 item 7: an engine that cannot start (not found, no evaluation
/// file) is greeted before the book is used (read beside the greeting), and
/// the run stops at once with status 3 in the engine's own words, even
/// under `-q`, whatever the book: no restarts.
#[test]
fn an_engine_that_cannot_start_fails_at_once_in_its_own_words_before_the_book_is_used() {
    let dir = tempfile::tempdir().unwrap();
    // Not a book: a run that read it first would refuse it (status 2).
    let not_a_book = dir.path().join("not-a-book.dat");
    std::fs::write(&not_a_book, "not a book").unwrap();
    let no_eval = "sh -c 'echo Cannot open data/eval.dat >&2; exit 1' sh";
    for (engines, says) in [
        (&["no-such-engine-here -q"][..], &["engine `no-such-engine-here -q`", "not found"][..]),
        (&[no_eval][..], &["Cannot open data/eval.dat", "exit status: 1"][..]),
        (&["no-such-engine-here", no_eval][..], &["not found", "Cannot open data/eval.dat"][..]),
    ] {
        let mut extra = vec!["-q"];
        for engine in engines {
            extra.extend(["--engine", engine]);
        }
        let began = Instant::now();
        let out = run(extend(dir.path(), &not_a_book, "out.dat", &extra));
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{message}");
        assert!(message.contains("no engine could be started"), "{message}");
        for words in says {
            assert!(message.contains(words), "{words}: {message}");
        }
        assert!(!message.contains("restarting") && !message.contains("starting it again"), "{message}");
        assert_eq!(message.lines().count(), 1, "one error, nothing else: {message}");
        assert!(began.elapsed() < Duration::from_secs(10), "at once: {:?}", began.elapsed());
        assert!(!dir.path().join("out.dat").exists());
    }
}

#[test]
fn a_window_that_leaves_no_candidate_writes_the_book_fixed() {
    // The start's leaf made worse than its link: the start is no candidate,
    // and max_ply 0 follows none of its links.
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(book()).unwrap();
    let (start, _) = bookminer::kifu::parse_and_play(START).unwrap();
    let stored = bookminer::symmetry::normalize(&start).board;
    let at = Book::from_bytes("b", bytes.clone()).unwrap().find(&stored).unwrap().offset as usize;
    let len = edax::next_record(&bytes, at).unwrap().byte_len();
    bytes[at + len - 2] = (-64i8) as u8;
    let input = dir.path().join("in.dat");
    std::fs::write(&input, &bytes).unwrap();
    let out = run(extend(dir.path(), &input, "out.dat", &["--max-ply", "0"]));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(summary(&out, "positions added"), "positions added      0");
    assert_eq!(summary(&out, "candidates"), "candidates           0 (0 expanded)");
    let json = run(extend(dir.path(), &input, "out2.dat", &["--max-ply", "0", "--summary", "json", "--out-dir", "o3"]));
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON object");
    assert_eq!((json["command"].as_str(), json["positions_added"].as_u64()), (Some("extend"), Some(0)));
    let fixed = run({
        let mut c = bin();
        c.current_dir(dir.path()).args(["--config", "/dev/null", "fix", "in.dat", "fixed.dat", "--out-dir", "f"]);
        c.args(["--log-file", "f/log"]);
        c
    });
    assert!(fixed.status.success(), "{}", stderr(&fixed));
    assert_eq!(
        std::fs::read(dir.path().join("out.dat")).unwrap(),
        std::fs::read(dir.path().join("fixed.dat")).unwrap()
    );
}

#[test]
fn an_egaroucid_book_grows_to_the_same_boards_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let converted = run({
        let mut c = bin();
        c.current_dir(dir.path()).args(["--config", "/dev/null", "convert"]).arg(book());
        c.args(["in.egbk3", "--log-file", "log"]);
        c
    });
    assert!(converted.status.success(), "{}", stderr(&converted));
    let out = run(extend(dir.path(), &dir.path().join("in.egbk3"), "out.egbk3", &["--min-empties", "14"]));
    assert!(out.status.success(), "{}", stderr(&out));
    let grown = Book::open(&dir.path().join("out.egbk3"), &Default::default()).unwrap();
    let expected = values(&data("books/endgames-extend-18.edax.dat"));
    // Every board of the Edax run, but those whose side to move must pass
    // (an Egaroucid book holds the position after the pass instead).
    let mut held = 0;
    for (board, &(value, ..)) in &expected {
        match grown.find(board) {
            Some(record) => {
                assert_eq!(record.value().discs(), value, "{board:?}");
                held += 1;
            }
            None => assert!(board.must_pass(), "{board:?} is missing"),
        }
    }
    assert_eq!(held as u64, grown.counts().positions, "no board the Edax run lacks");
}

#[test]
fn extend_refuses_what_it_cannot_do_before_loading() {
    let dir = tempfile::tempdir().unwrap();
    let no_engine = run({
        let mut c = bin();
        c.current_dir(dir.path()).args(["--config", "/dev/null", "extend"]).arg(book()).arg("out.dat");
        c
    });
    assert_eq!(no_engine.status.code(), Some(2));
    assert!(stderr(&no_engine).contains("--engine"), "{}", stderr(&no_engine));
    let over = run(extend(dir.path(), &book(), book().to_str().unwrap(), &[]));
    assert_eq!(over.status.code(), Some(2), "{}", stderr(&over));
    let wrong = run(extend(dir.path(), &book(), "out.egbk3", &[]));
    assert_eq!(wrong.status.code(), Some(2), "{}", stderr(&wrong));
    assert!(stderr(&wrong).contains("convert"), "{}", stderr(&wrong));
    assert!(!dir.path().join("out.egbk3").exists());
    let copy = dir.path().join("copy.dat");
    std::fs::copy(book(), &copy).unwrap();
    let log = run(extend(dir.path(), &copy, "out.dat", &["--out-dir", "o", "--log-file", "copy.dat"]));
    assert_eq!(log.status.code(), Some(2), "{}", stderr(&log));
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(book()).unwrap(), "the book read is intact");
    let journal = run(extend(dir.path(), &book(), "o/extend.jsonl", &[]));
    assert_eq!(journal.status.code(), Some(2), "{}", stderr(&journal));
    assert!(stderr(&journal).contains("journal"), "{}", stderr(&journal));
    let missing = run(extend(dir.path(), &book(), "out.dat", &["--start", "f5f6e6f4"]));
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert!(
        stderr(&missing).contains("F5F6E6F4")
            && stderr(&missing).contains("not in the book: the line leaves the book at move "),
        "{}",
        stderr(&missing)
    );
    assert!(!dir.path().join("out.dat").exists() && !dir.path().join("o/extend.jsonl").exists());
    let _ = repo();
}

/// A record of 255 links (the most a record holds; here one move repeated,
/// which the loader lets through and `verify` lists) has no room for the
/// link its leaf would become: extend refuses the book, naming the record,
/// instead of failing to encode it; since issue 64 before any search, as
/// `verify` lists it (its moves repeated).
#[test]
fn a_record_with_no_room_for_another_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (start, line) = bookminer::kifu::parse_and_play(START).unwrap();
    let legal: Vec<Square> = Square::iter(start.legal_moves()).collect();
    assert!(legal.len() >= 2, "the start has a move to link and one to leave");
    let mut through = line.clone();
    through.push(Move::Play(legal[0]));
    let mut entries = crate::common::book_from_lines(&[through]);
    let stored = bookminer::symmetry::normalize(&start);
    let at_start = entries.iter_mut().find(|e| e.board == stored.board).unwrap();
    let turn = stored.to_original.inverse();
    let linked = at_start.links[0];
    at_start.links = vec![linked; 255];
    let leaf = turn.apply_move(Move::Play(legal[1]));
    at_start.leaf = Some(bookminer::book::Link::new(bookminer::book::Score::new(64), leaf));
    let input = dir.path().join("full.dat");
    std::fs::write(&input, bookminer::format::edax::entries::encode(&entries, 60)).unwrap();
    let out = run(extend(dir.path(), &input, "out.dat", &["--min-empties", "0"]));
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("full.dat: record ") && message.contains("repeats move"), "{message}");
    assert!(message.contains("nothing was searched"), "{message}");
    assert!(!dir.path().join("out.dat").exists());
}

#[test]
fn a_fleet_retires_an_engine_that_keeps_dying_and_grows_the_same_book_with_the_others() {
    let dir = tempfile::tempdir().unwrap();
    // Killed as it starts, every time: it never answers.
    let dying = "sh -c 'kill -KILL $$'";
    let good = solver().display().to_string();
    let extra = ["--engine", dying, "--engine", &good, "--summary", "json"];
    let out = run(extend(dir.path(), &book(), "out.dat", &extra));
    assert!(out.status.success(), "{}", stderr(&out));
    let grown = values(&dir.path().join("out.dat"));
    assert_eq!(grown, values(&data("books/endgames-extend-18.edax.dat")), "the values Edax grew");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let engines = json["engines"].as_array().unwrap();
    assert_eq!(engines.len(), 2, "{json}");
    assert_eq!((engines[0]["command"].as_str(), engines[0]["retired"].as_bool()), (Some(dying), Some(true)));
    assert_eq!(engines[0]["searches"], 0);
    // Its two workers may both be failing when the third fault retires it.
    assert!(engines[0]["faults"].as_u64().is_some_and(|n| (3..=4).contains(&n)), "{json}");
    assert_eq!((engines[1]["retired"].as_bool(), engines[1]["searches"].as_u64()), (Some(false), Some(92)));
    assert!(stderr(&out).contains("retired"), "said on stderr: {}", stderr(&out));
    assert_no_engine_left(dir.path());
}

/// SPEC §18: an answer is taken again only from the engine command, the
/// protocol and the level it came from; each run says, by command, what it
/// took (text and JSON).
#[test]
fn answers_are_taken_from_the_journal_only_for_the_engine_that_gave_them() {
    let start = near_end();
    let dir = tempfile::tempdir().unwrap();
    let first = run(extend(dir.path(), &book(), "out.dat", &["--start", &start]));
    assert!(first.status.success(), "{}", stderr(&first));
    // The same solver under another command line: searched anew.
    let ours = solver().display().to_string();
    let other = format!("sh -c 'exec \"$0\" \"$@\"' {ours}");
    let again = run(extend(dir.path(), &book(), "again.dat", &["--start", &start, "--engine", &other]));
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(summary(&again, "searches").starts_with("searches             22 by the engines, 0 taken"));
    let bytes = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    assert_eq!(bytes("out.dat"), bytes("again.dat"));
    // Each command again: every answer its own, counted by command.
    let third = run(extend(dir.path(), &book(), "third.dat", &["--start", &start, "--engine", &other]));
    assert!(third.status.success(), "{}", stderr(&third));
    assert_eq!(summary(&third, "  from the journal"), format!("  from the journal   22 given by `{other}`"));
    let json = run(extend(dir.path(), &book(), "fourth.dat", &["--start", &start, "--summary", "json"]));
    assert!(json.status.success(), "{}", stderr(&json));
    let summary: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let by = serde_json::json!([{"engine": ours, "protocol": "edax", "answers": 22, "this_run": true}]);
    assert_eq!(summary["journal_answers_by"], by);
    assert_eq!(summary["searches"], 0);
}

/// Issue 47 item 3: `--fresh` sets the journal aside, renamed and whole,
/// and searches everything anew, to the same book.
#[test]
fn fresh_sets_the_journal_aside_and_searches_everything_anew() {
    let start = near_end();
    let dir = tempfile::tempdir().unwrap();
    let first = run(extend(dir.path(), &book(), "out.dat", &["--start", &start]));
    assert!(first.status.success(), "{}", stderr(&first));
    let journal = dir.path().join("o/extend.jsonl");
    let before = std::fs::read(&journal).unwrap();
    for (n, name) in [(1, "fresh.dat"), (2, "fresher.dat")] {
        let fresh = run(extend(dir.path(), &book(), name, &["--start", &start, "--fresh"]));
        assert!(fresh.status.success(), "{}", stderr(&fresh));
        assert!(summary(&fresh, "searches").starts_with("searches             22 by the engines, 0 taken"));
        let aside = format!("o/extend.{n}.jsonl");
        assert_eq!(
            summary(&fresh, "journal set aside"),
            format!("journal set aside    {aside} (--fresh: every search made anew)")
        );
        assert_eq!(std::fs::read(dir.path().join(&aside)).unwrap().len(), before.len(), "{aside} is whole");
    }
    assert_eq!(std::fs::read(dir.path().join("o/extend.1.jsonl")).unwrap(), before, "the first journal, as it was");
    let bytes = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    assert_eq!(bytes("out.dat"), bytes("fresh.dat"));
    assert_eq!(bytes("out.dat"), bytes("fresher.dat"));
}

/// Issue 40 item 10: the "interrupted" warning is said once, however many
/// signals come while the run stops.
#[test]
fn interrupted_twice_the_warning_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let child = start_until_journaled(dir.path(), 5, &[]);
    for _ in 0..2 {
        let sent = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        assert!(sent.success());
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let log = std::fs::read_to_string(dir.path().join("o/log")).unwrap();
    assert_eq!(log.matches("interrupted: stopping").count(), 1, "{log}");
    assert_no_engine_left(dir.path());
}
