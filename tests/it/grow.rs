//! `grow`'s priorities (SPEC §14, docs/grow.md) on a real book, through the
//! library's public API: `tests/data/books/endgames-extend.dat` negamaxed
//! by `bookminer fix`, read back with [`Book`], seen as a
//! [`LinkGraph`] with `min_empties` 14, and its frontier compared with
//! priorities worked out by hand from the records (the same numbers as
//! docs/grow.md's example).

use crate::common::{bin, data};
use bookminer::board::Board;
use bookminer::book::Book;
use bookminer::growth::priority::{any_at_most, frontier, least, Cost, ErrorWeight, LinkGraph, ParentLinks};
use bookminer::kifu::parse_and_play;
use bookminer::symmetry::normalize;
use std::collections::HashMap;
use std::path::Path;

/// The start of `tests/it/extend.rs`: 18 empty squares, on the book's line.
const START: &str = "d3c5e6e3c3f7b5b3c2c1e2f5a3c6g5h5f4g3g6c4e8a4e7f1a2f2e1f6d2f3b2h6d6b1h4b4g1h2g2c7h7a1";

/// The header's n_empties: what `grow` takes for `min_empties` by default.
const MIN_EMPTIES: u32 = 14;

/// One record, as §14 reads it.
struct Position {
    board: Board,
    value: i32,
    leaf: Option<i32>,
    links: Vec<(i32, usize)>,
    parents: Vec<usize>,
}

/// A whole book in memory, its positions numbered in file order.
struct Graph {
    positions: Vec<Position>,
    ids: HashMap<Board, usize>,
}

impl Graph {
    /// Every record of the Edax book at `path`, each link resolved to the
    /// record of its child (links to boards not in the book dropped).
    fn read(path: &Path) -> Graph {
        let book = Book::open(path, &Default::default()).unwrap();
        let mut positions: Vec<Position> = book
            .records()
            .map(|r| Position {
                board: r.board(),
                value: r.value().discs(),
                // A leaf to expand: a move (not 65) that is not the empty leaf.
                leaf: r.leaf().map(|l| l.score.discs()).filter(|&s| s > -127),
                links: Vec::new(),
                parents: Vec::new(),
            })
            .collect();
        let ids: HashMap<Board, usize> = positions.iter().enumerate().map(|(i, p)| (p.board, i)).collect();
        for (id, record) in book.records().enumerate() {
            for link in record.links() {
                let child = record.board().after(link.mv).expect("a legal link");
                if let Some(&child) = ids.get(&normalize(&child).board) {
                    positions[id].links.push((link.score.discs(), child));
                    positions[child].parents.push(id);
                }
            }
        }
        Graph { positions, ids }
    }

    /// The position a line from the initial position reaches.
    fn at(&self, line: &str) -> usize {
        let (board, _) = parse_and_play(line).unwrap();
        self.ids[&normalize(&board).board]
    }
}

impl LinkGraph for Graph {
    type Node = usize;

    fn entered(&self, node: usize) -> bool {
        let board = self.positions[node].board;
        board.empties() >= MIN_EMPTIES && !board.is_game_over()
    }

    fn value(&self, node: usize) -> i32 {
        self.positions[node].value
    }

    fn leaf(&self, node: usize) -> Option<i32> {
        self.positions[node].leaf
    }

    fn links(&self, node: usize, out: &mut Vec<(i32, usize)>) {
        out.extend_from_slice(&self.positions[node].links);
    }
}

impl ParentLinks for Graph {
    fn parents(&self, node: usize, out: &mut Vec<usize>) {
        out.extend_from_slice(&self.positions[node].parents);
    }
}

/// `endgames-extend.dat` negamaxed by `bookminer fix`, read.
fn negamaxed() -> Graph {
    let dir = tempfile::tempdir().unwrap();
    let run = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "--log-file", "/dev/null", "--out-dir", "o", "-q", "fix"])
        .arg(data("books/endgames-extend.dat"))
        .arg("fixed.dat")
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    Graph::read(&dir.path().join("fixed.dat"))
}

/// (line, D, priority) of each frontier position, in order.
fn lines(
    graph: &Graph,
    found: &[bookminer::growth::priority::Frontier<usize>],
    lines: &[&str],
) -> Vec<(usize, f64, f64)> {
    let by_line: HashMap<usize, usize> = lines.iter().enumerate().map(|(i, l)| (graph.at(l), i)).collect();
    found
        .iter()
        .map(|f| (by_line.get(&f.node).copied().unwrap_or(usize::MAX), f.d.to_f64(), f.priority.to_f64()))
        .collect()
}

#[test]
fn from_the_extend_start_the_frontier_is_the_line_down_the_book() {
    let graph = negamaxed();
    let start = graph.at(START);
    // By hand from the records, W = 1. The start: value −16, its leaf −16
    // (no error): D 0, priority 1. Its one link scores −24: a step of
    // 1 + (−16 − (−24)) = 9. Below, values 24 and −16 alternate, each leaf
    // equal to its value, each link 8 short of it: 9 a step, priority D + 1.
    // At 14 empty squares the line ends: the child has 13, not entered.
    let down = [
        START.to_string(),
        format!("{START}d7"),
        format!("{START}d7d8"),
        format!("{START}d7d8g4"),
        format!("{START}d7d8g4d1"),
    ];
    let down: Vec<&str> = down.iter().map(String::as_str).collect();
    let all = frontier(&graph, start, ErrorWeight::ONE);
    let expected = [(0, 0.0, 1.0), (1, 9.0, 10.0), (2, 18.0, 19.0), (3, 27.0, 28.0), (4, 36.0, 37.0)];
    assert_eq!(lines(&graph, &all, &down), expected);
    assert_eq!(least(&graph, start, ErrorWeight::ONE, |_| false, 2), all[..2]);
    let skip_start = least(&graph, start, ErrorWeight::ONE, |n| n == start, 1);
    assert_eq!(lines(&graph, &skip_start, &down), [(1, 9.0, 10.0)]);
    // W = 0: each step a ply.
    let by_depth = frontier(&graph, start, ErrorWeight::ZERO);
    assert_eq!(
        lines(&graph, &by_depth, &down),
        [(0, 0.0, 1.0), (1, 1.0, 2.0), (2, 2.0, 3.0), (3, 3.0, 4.0), (4, 4.0, 5.0)]
    );
    // max_priority: the start's own priority is 1.
    assert!(any_at_most(&graph, start, ErrorWeight::ONE, 1.0));
    assert!(!any_at_most(&graph, start, ErrorWeight::ONE, 0.99));
}

#[test]
fn from_the_initial_position_ties_follow_the_walk() {
    let graph = negamaxed();
    let initial = graph.at("");
    let all = frontier(&graph, initial, ErrorWeight::ONE);
    // grow-check.py: 140 frontier positions, 57 of priority 141 or less.
    assert_eq!(all.len(), 140);
    assert_eq!(all.iter().filter(|f| f.priority <= Cost::whole(141)).count(), 57);
    // The first few, by hand (docs/grow.md): the start has no leaf. D3
    // (all four first moves are one position): value −14, leaf −14, a step
    // of 1 from the start's 14: D 1, priority 2. Its links C3 (−14, a
    // step of 1) and C5 (−64, 1 + 50). D3C3: value 14, leaf 10: D 2,
    // priority 2 + 1 + 4 = 7; D3C3F5: D 3, no error, priority 4.
    let first = ["d3", "d3c3f5", "d3c3f5f6b3", "d3c3"];
    assert_eq!(lines(&graph, &all[..4], &first), [(0, 1.0, 2.0), (1, 3.0, 4.0), (2, 5.0, 6.0), (3, 2.0, 7.0)]);
    // Priority 41: D 36 before D 40.
    let forty_one = [
        "d3c3f5f6b3g5c4e3f3c5g7c2c6f2f1g1d1g3b4e7b6c1e2b5h3a3b1c7b2a1b7e1f4a4g6h6",
        "d3c3f5f6b3g5c4e3f3c5g7c2c6f2f1g1d1g3b4e7b6c1e2b5h3a3b1c7b2a1b7e1f4a4g6h6f7g4",
    ];
    let at_41: Vec<_> = all.iter().copied().filter(|f| f.priority == Cost::whole(41)).collect();
    assert_eq!(lines(&graph, &at_41, &forty_one), [(0, 36.0, 41.0), (1, 40.0, 41.0)]);
    // Priority 142, D 141 both: the walk reaches D3C5E6E3… (E6's first
    // link) before D3C5E6F5B6 (its second).
    let tied = ["d3c5e6e3c3f7b5b3c2", "d3c5e6f5b6"];
    assert_eq!(lines(&graph, &all[57..59], &tied), [(0, 141.0, 142.0), (1, 141.0, 142.0)]);
    // least agrees, the tie included, and with the first of the tie skipped.
    assert_eq!(least(&graph, initial, ErrorWeight::ONE, |_| false, 59), all[..59]);
    let first_skipped = least(&graph, initial, ErrorWeight::ONE, |n| n == all[57].node, 58);
    assert_eq!(first_skipped[57], all[58]);
    assert!(
        any_at_most(&graph, initial, ErrorWeight::ONE, 2.0) && !any_at_most(&graph, initial, ErrorWeight::ONE, 1.5)
    );
}

#[test]
fn from_the_initial_position_by_depth_alone_ties_follow_the_walk() {
    let graph = negamaxed();
    let initial = graph.at("");
    // W = 0: D is plies. D3C3 and D3C5 tie at D 2 (D3's links: C3, then
    // C5); D3C3F5, D3C5D6 and D3C5E6 at D 3, in the walk's order.
    let by_depth = ["d3", "d3c3", "d3c5", "d3c3f5", "d3c5d6", "d3c5e6"];
    let expected = [(0, 1.0, 2.0), (1, 2.0, 3.0), (2, 2.0, 3.0), (3, 3.0, 4.0), (4, 3.0, 4.0), (5, 3.0, 4.0)];
    let first = least(&graph, initial, ErrorWeight::ZERO, |_| false, 6);
    assert_eq!(lines(&graph, &first, &by_depth), expected);
    assert_eq!(first, frontier(&graph, initial, ErrorWeight::ZERO)[..6]);
}

/// The exact solver of `examples/solver.rs`, built by `cargo test`.
fn solver() -> std::path::PathBuf {
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_bookminer"));
    let path = bin.parent().unwrap().join("examples/solver");
    assert!(path.is_file(), "{} is missing: cargo test builds it (examples/solver.rs)", path.display());
    path
}

/// `bookminer grow` of the extend book from [`START`] with the solver and
/// one worker, in `dir`, its JSON summary on standard output.
fn grow(dir: &Path, out: &str, extra: &[&str]) -> serde_json::Value {
    let run = bin()
        .current_dir(dir)
        .args(["--config", "/dev/null", "grow"])
        .arg(data("books/endgames-extend.dat"))
        .arg(out)
        .args(["--start", START, "--workers", "1", "--out-dir", "o", "--log-file", "o/log"])
        .arg("--engine")
        .arg(solver())
        .args(["-q", "--summary", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    serde_json::from_slice(&run.stdout).unwrap()
}

#[test]
fn grown_to_a_priority_no_frontier_position_is_left_at_or_under_it() {
    let before = negamaxed();
    // To priority 4: 18 expansions, 36 searches (6: 57 and 113).
    assert!(any_at_most(&before, before.at(START), ErrorWeight::ONE, 4.0), "the book has work at 4");
    let dir = tempfile::tempdir().unwrap();
    let summary = grow(dir.path(), "out.dat", &["--error-weight", "1", "--max-priority", "4"]);
    assert_eq!(summary["ended_by"], "max_priority", "{summary}");
    assert!(summary["positions_added"].as_u64().unwrap() > 0, "{summary}");
    assert!(summary["largest_expanded"].as_f64().unwrap() <= 4.0, "{summary}");
    assert!(summary["least_priority_left"].as_f64().unwrap() > 4.0, "{summary}");
    let grown = Graph::read(&dir.path().join("out.dat"));
    assert!(!any_at_most(&grown, grown.at(START), ErrorWeight::ONE, 4.0), "computed from the book alone");
    // The book agrees with itself: fix changes nothing.
    let fixed = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "-q", "--out-dir", "f", "--log-file", "f/log", "fix", "out.dat", "f.dat"])
        .output()
        .unwrap();
    assert!(fixed.status.success());
    assert_eq!(std::fs::read(dir.path().join("f/fix.jsonl")).unwrap(), b"", "fix finds nothing to change");
}

#[test]
fn by_depth_alone_with_only_a_priority_the_run_ends_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    // Two plies: 109 searches (three took 885, most of the tests' time).
    let summary = grow(dir.path(), "out.dat", &["--error-weight", "0", "--max-priority", "2"]);
    assert_eq!(summary["ended_by"], "max_priority", "{summary}");
    assert!(summary["positions_added"].as_u64().unwrap() > 0, "{summary}");
    let grown = Graph::read(&dir.path().join("out.dat"));
    let w0 = ErrorWeight::new(0.0).unwrap();
    assert!(!any_at_most(&grown, grown.at(START), w0, 2.0));
    // By depth alone every priority is a whole number of plies.
    let p = summary["least_priority_left"].as_f64().unwrap();
    assert_eq!((p, p.fract()), (3.0, 0.0), "{summary}");
}

#[test]
fn a_run_stopped_short_and_run_again_with_its_journal_searches_nothing_twice_and_writes_the_same_book() {
    let whole = tempfile::tempdir().unwrap();
    // To priority 4: 18 expansions, 36 searches.
    let once = grow(whole.path(), "out.dat", &["--max-priority", "4"]);
    let dir = tempfile::tempdir().unwrap();
    let first = grow(dir.path(), "first.dat", &["--max-positions", "5"]);
    assert_eq!(first["ended_by"], "max_positions", "{first}");
    let again = grow(dir.path(), "out.dat", &["--max-priority", "4"]);
    assert_eq!(again["searches_from_journal"], first["searches"], "every answer of the first run taken");
    assert_eq!(
        again["searches"].as_u64().unwrap() + first["searches"].as_u64().unwrap(),
        once["searches"].as_u64().unwrap(),
        "no search twice"
    );
    let bytes = |d: &Path| std::fs::read(d.join("out.dat")).unwrap();
    assert_eq!(bytes(dir.path()), bytes(whole.path()), "the same book byte for byte");
    // The journal notes each expansion dispatched.
    let journal = std::fs::read_to_string(dir.path().join("o/extend.jsonl")).unwrap();
    let expansions = journal.lines().filter(|l| l.starts_with("{\"expand\":")).count() as u64;
    assert_eq!(expansions, first["expanded"].as_u64().unwrap() + again["expanded"].as_u64().unwrap());
}

/// `bookminer grow` of `input` into `out` in `dir`, as a user runs it.
fn grow_status(dir: &Path, input: &Path, out: &str) -> std::process::Output {
    bin()
        .current_dir(dir)
        .args(["--config", "/dev/null", "grow"])
        .arg(input)
        .arg(out)
        .args(["--start", START, "--workers", "1", "--out-dir", "o", "--log-file", "o/log", "--engine"])
        .arg(solver())
        .output()
        .unwrap()
}

#[test]
fn grow_refuses_what_extend_refuses_with_its_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("in.dat");
    std::fs::copy(data("books/endgames-extend.dat"), &book).unwrap();
    let over = grow_status(dir.path(), &book, "in.dat");
    assert_eq!(over.status.code(), Some(2), "OUT over IN: {}", String::from_utf8_lossy(&over.stderr));
    assert_eq!(std::fs::read(&book).unwrap(), std::fs::read(data("books/endgames-extend.dat")).unwrap());
    std::fs::write(dir.path().join("bad.dat"), b"XADEKOOB not a book").unwrap();
    let bad = grow_status(dir.path(), &dir.path().join("bad.dat"), "out.dat");
    assert_eq!(bad.status.code(), Some(2), "a bad book: {}", String::from_utf8_lossy(&bad.stderr));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("bad.dat"));
    let named = grow_status(dir.path(), &book, "out.egbk3");
    assert_eq!(named.status.code(), Some(2), "OUT of another format: {}", String::from_utf8_lossy(&named.stderr));
    assert!(!dir.path().join("out.dat").exists() && !dir.path().join("out.egbk3").exists());
}

/// Issue 40 item 7: grow greets its engines as extend does, before it uses
/// its book: one that cannot start stops the run at once, in its words.
#[test]
fn an_engine_that_cannot_start_stops_grow_at_once_in_its_own_words() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_book = dir.path().join("not-a-book.dat");
    std::fs::write(&not_a_book, "not a book").unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "-q", "grow"])
        .arg(&not_a_book)
        .args(["out.dat", "--out-dir", "o", "--log-file", "o/log", "--max-priority", "6"])
        .args(["--engine", "no-such-engine-here"])
        .output()
        .unwrap();
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{message}");
    assert!(message.contains("engine `no-such-engine-here`") && message.contains("not found"), "{message}");
    assert!(!dir.path().join("out.dat").exists());
}

#[test]
fn killed_and_run_again_with_its_journal_it_searches_nothing_twice_and_writes_the_same_book() {
    let whole = tempfile::tempdir().unwrap();
    // To priority 4: 36 searches, the run killed after 6.
    let once = grow(whole.path(), "out.dat", &["--max-priority", "4"]);
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("o/extend.jsonl");
    let answers = || {
        let text = std::fs::read_to_string(&journal).unwrap_or_default();
        text.lines().filter(|l| l.starts_with("{\"board\":") && l.ends_with('}')).count()
    };
    let mut child = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "-q", "grow"])
        .arg(data("books/endgames-extend.dat"))
        .arg("out.dat")
        .args(["--start", START, "--workers", "1", "--out-dir", "o", "--log-file", "o/log", "--max-priority", "4"])
        .arg("--engine")
        .arg(solver())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed once it has some answers (a minute at most to get them).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while answers() < 6 && std::time::Instant::now() < deadline && child.try_wait().unwrap().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = answers();
    assert!(kept >= 6, "the run was killed with {kept} answers in its journal");
    assert!(!dir.path().join("out.dat").exists(), "a killed run writes no book");
    let again = grow(dir.path(), "out.dat", &["--max-priority", "4"]);
    assert_eq!(again["searches_from_journal"].as_u64(), Some(kept as u64), "{again}");
    assert_eq!(
        again["searches"].as_u64().unwrap() + kept as u64,
        once["searches"].as_u64().unwrap(),
        "no search twice: {again}"
    );
    let bytes = |d: &Path| std::fs::read(d.join("out.dat")).unwrap();
    assert_eq!(bytes(dir.path()), bytes(whole.path()), "the same book byte for byte");
}

/// Issue 47 item 14: one Ctrl-C while grow's engines are starting is the
/// one Ctrl-C grow.md describes: nothing new is dispatched and the book is
/// written (it said "the journal keeps every answer" and ended 130, with
/// no journal at all). The engine here waits for the file `go` before it
/// starts, so the signal surely comes while it is being greeted.
#[test]
fn one_ctrl_c_while_the_engines_start_writes_the_book() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let engine = format!(
        "sh -c 'touch started; while [ ! -e go ]; do sleep 0.02; done; exec {} \"$@\"' engine",
        solver().display()
    );
    let child = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "grow"])
        .arg(data("books/endgames-extend.dat"))
        .arg("out.dat")
        .args(["--start", START, "--workers", "1", "--out-dir", "o", "--log-file", "o/log"])
        .args(["--engine", &engine, "--summary", "json", "-q"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !dir.path().join("started").exists() {
        assert!(Instant::now() < deadline, "the engine never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    let sent = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    std::fs::write(dir.path().join("go"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["ended_by"], "asked to stop", "{summary}");
    assert_eq!(summary["positions_added"], 0, "{summary}");
    assert!(dir.path().join("out.dat").is_file());
}
