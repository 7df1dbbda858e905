//! `deepen` (SPEC §16, docs/deepen.md): killed and run again with the
//! repository's solver, and a budgeted run's choice of records against a
//! slow reference of §14's priority order on random books.

use crate::common::{
    assert_each_search_once, assert_no_engine_left, bin, data, game_of, journal, solver, solvers_running, stderr,
    RUN_TAG, START,
};
use bookminer::board::{Board, Move, Square};
use bookminer::book::{Book, Link, Score};
use bookminer::engine::fleet::EngineSet;
use bookminer::engine::search::{Answer, Fault, Launcher, Query, Searcher};
use bookminer::engine::Protocol;
use bookminer::format::edax::entries::encode;
use bookminer::growth::policies::deepen::{Deepen, DeepenOptions};
use bookminer::growth::priority::ErrorWeight;
use bookminer::growth::{run, Engines, GrowthOptions, GrowthPaths};
use bookminer::level::Level;
use bookminer::negamax::search_level;
use bookminer::run::{Cancel, Control};
use bookminer::symmetry::normalize;
use bookminer::walk::Start;
use bookminer::window::Window;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The level the kill test deepens to: the solver solves whatever it is asked.
const LEVEL: &str = "20";

/// `bytes`, an Edax book, with every record's level (and the header's) set to `level`.
fn with_levels(bytes: &[u8], level: u8) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[18..22].copy_from_slice(&i32::from(level).to_le_bytes());
    let mut at = 42;
    while at < out.len() {
        let links = usize::from(out[at + 38]);
        out[at + 39] = level;
        at += 42 + 2 * links;
    }
    assert_eq!(at, out.len(), "a whole number of records");
    out
}

/// The extend book with every level 1, in `dir` as `in.dat`.
fn shallow_book(dir: &Path) {
    let bytes = std::fs::read(data("books/endgames-extend.dat")).unwrap();
    std::fs::write(dir.join("in.dat"), with_levels(&bytes, 1)).unwrap();
}

/// `bookminer deepen in.dat OUT` below [`START`], every position entered,
/// with the solver and one worker, in `dir`.
fn deepen(dir: &Path, out: &str) -> Command {
    let mut command = bin();
    command.current_dir(dir).env(RUN_TAG, dir);
    command.args(["--config", "/dev/null", "deepen", "in.dat", out, "--level", LEVEL]);
    command.args(["--start", START, "--min-empties", "0", "--workers", "1"]);
    command.args(["--out-dir", "o", "--log-file", "o/log", "--summary", "json", "-q", "--engine"]).arg(solver());
    command
}

/// A run to its end, its JSON summary.
fn deepened(dir: &Path, out: &str) -> (serde_json::Value, Output) {
    let output = deepen(dir, out).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    (serde_json::from_slice(&output.stdout).unwrap(), output)
}

/// Each record's level, in file order.
fn levels(path: &Path) -> Vec<u8> {
    Book::open(path, &Default::default()).unwrap().records().map(|r| r.level as u8).collect()
}

#[test]
fn a_run_deepens_what_is_shallower_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    shallow_book(dir.path());
    let (summary, _) = deepened(dir.path(), "out.dat");
    let deepened = summary["deepened"].as_u64().unwrap();
    assert!(deepened >= 10, "{summary}");
    assert_eq!(summary["needed_deepening"].as_u64(), Some(deepened), "{summary}");
    assert_eq!(summary["ended_by"], "all deepened", "{summary}");
    // Level 1 solves 2 empty squares: those records were left alone.
    let before = levels(&dir.path().join("in.dat"));
    let after = levels(&dir.path().join("out.dat"));
    let raised = before.iter().zip(&after).filter(|(b, a)| b != a).count() as u64;
    assert_eq!(raised, deepened);
    assert!(after.iter().all(|&l| l == 1 || l == 20));
    // The book agrees with itself: fix changes nothing.
    let fixed = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "-q", "--out-dir", "f", "--log-file", "f/log", "fix", "out.dat", "f.dat"])
        .output()
        .unwrap();
    assert!(fixed.status.success(), "{}", stderr(&fixed));
    assert_eq!(std::fs::read(dir.path().join("f/fix.jsonl")).unwrap(), b"", "fix finds nothing to change");
}

/// Starts a run and kills it (SIGKILL) once its journal holds `n` answers,
/// or after `delay`, whichever comes first; returns the answers it kept.
fn killed(dir: &Path, n: usize, delay: Duration) -> usize {
    let mut child = deepen(dir, "out.dat").stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let began = Instant::now();
    while journal(dir).len() < n && began.elapsed() < delay && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_no_engine_left(dir);
    journal(dir).len()
}

#[test]
fn killed_at_any_moment_and_run_again_it_searches_nothing_twice_and_writes_the_same_book() {
    let whole = tempfile::tempdir().unwrap();
    shallow_book(whole.path());
    let (once, _) = deepened(whole.path(), "out.dat");
    let searches = once["searches"].as_u64().unwrap() as usize;
    assert!(searches >= 10, "{once}");
    let expected = std::fs::read(whole.path().join("out.dat")).unwrap();
    // A few counts of answers, and moments the clock picks.
    let nanos = Instant::now().elapsed().subsec_nanos() as u64 + u64::from(std::process::id());
    let moments = [(1, Duration::MAX), (searches / 2, Duration::MAX), (usize::MAX, Duration::from_millis(nanos % 400))];
    for (n, delay) in moments {
        let dir = tempfile::tempdir().unwrap();
        shallow_book(dir.path());
        let mut kept = killed(dir.path(), n, delay);
        // Killed twice: the second run takes what the first kept.
        if kept < searches {
            kept = killed(dir.path(), kept + 3, Duration::MAX);
        }
        if !dir.path().join("out.dat").exists() {
            let (again, _) = deepened(dir.path(), "out.dat");
            assert_eq!(again["searches_from_journal"].as_u64(), Some(kept as u64), "{again}");
            assert_eq!(again["searches"].as_u64().unwrap() + kept as u64, searches as u64, "no search twice");
        }
        assert_eq!(std::fs::read(dir.path().join("out.dat")).unwrap(), expected, "killed after {kept} answers");
        let lines = journal(dir.path());
        assert_eq!(lines.len(), searches);
        assert_each_search_once(&lines);
        assert_eq!(solvers_running(dir.path()), 0);
    }
}

/// An engine in the process: the first move it may play, scored 0. What
/// it answers does not decide which records are deepened.
struct FirstMove;

impl Searcher for FirstMove {
    fn search(&mut self, query: &Query, _stop: Cancel<'_>) -> Result<Answer, Fault> {
        let allowed = query.board.legal_moves() & !query.excluded.bits();
        let mv = Square::iter(allowed).next().expect("a search has a move to play");
        Ok(Answer { mv, score: 0 })
    }
}

impl Launcher for FirstMove {
    fn launch(&self, _worker: usize, _stop: Cancel<'_>) -> Result<Box<dyn Searcher>, Fault> {
        Ok(Box::new(FirstMove))
    }
}

/// One record of a negamaxed book, as the reference reads it.
struct Node {
    board: Board,
    value: i32,
    level: u8,
    /// The leaf's score, −127 when the leaf is no move.
    leaf: i32,
    /// (score, child record), in stored order.
    links: Vec<(i32, usize)>,
}

/// Every record of the Edax book at `path`, links resolved to records.
fn nodes(path: &Path) -> Vec<Node> {
    let book = Book::open(path, &Default::default()).unwrap();
    let boards: HashMap<Board, usize> = book.records().enumerate().map(|(i, r)| (r.board(), i)).collect();
    book.records()
        .map(|r| Node {
            board: r.board(),
            value: r.value().discs(),
            level: r.level as u8,
            leaf: r.leaf().map_or(-127, |l| l.score.discs()),
            links: r
                .links()
                .filter_map(|l| {
                    let child = normalize(&r.board().after(l.mv).unwrap()).board;
                    boards.get(&child).map(|&c| (l.score.discs(), c))
                })
                .collect(),
        })
        .collect()
}

/// The `n` records a budget of `n` deepens, worked out the slow way: D by
/// relaxing every link until nothing changes, the walk's order by a plain
/// recursive walk, then every entered record that needs deepening sorted
/// by (priority, D, walk order).
fn reference(nodes: &[Node], start: usize, level: u8, w: f64, n: usize) -> HashSet<usize> {
    let entered = |i: usize| !nodes[i].board.is_game_over();
    let error = |value: i32, score: i32| f64::from((value - score).max(0));
    let mut d: Vec<Option<f64>> = vec![None; nodes.len()];
    d[start] = Some(0.0);
    let mut changed = true;
    while changed {
        changed = false;
        for (i, node) in nodes.iter().enumerate() {
            let Some(di) = d[i] else { continue };
            for &(score, child) in &node.links {
                let through = di + 1.0 + w * error(node.value, score);
                if entered(child) && d[child].is_none_or(|dc| through < dc) {
                    d[child] = Some(through);
                    changed = true;
                }
            }
        }
    }
    fn walk(nodes: &[Node], i: usize, order: &mut Vec<usize>, entered: &dyn Fn(usize) -> bool) {
        if !entered(i) || order.contains(&i) {
            return;
        }
        order.push(i);
        for &(_, child) in &nodes[i].links {
            walk(nodes, child, order, entered);
        }
    }
    let mut order = Vec::new();
    walk(nodes, start, &mut order, &entered);
    let needs = |node: &Node| {
        let e = node.board.empties() as u8;
        let at = |level: u8| Level::saturating(level.into());
        let (have, want) = (search_level(at(node.level), e), search_level(at(level), e));
        let solved = have.depth == e && have.selectivity == 5;
        !solved && (have.depth, have.selectivity) < (want.depth, want.selectivity)
    };
    let mut ranked: Vec<(f64, f64, usize, usize)> = order
        .iter()
        .enumerate()
        .filter(|&(_, &i)| needs(&nodes[i]))
        .map(|(rank, &i)| {
            let di = d[i].expect("a record the walk enters has a D");
            (di + 1.0 + w * error(nodes[i].value, nodes[i].leaf), di, rank, i)
        })
        .collect();
    ranked.sort_by(|a, b| a.partial_cmp(b).unwrap());
    ranked.into_iter().take(n).map(|(_, _, _, i)| i).collect()
}

/// A random book of `games`, its records' levels and leaf scores from
/// `levels` and `scores`, negamaxed by `bookminer fix` into `dir/in.dat`.
fn random_book(dir: &Path, games: &[Vec<u8>], levels: &[u8], scores: &[i8]) {
    let lines: Vec<Vec<Move>> = games.iter().map(|g| game_of(g)).collect();
    let mut entries = crate::common::book_from_lines(&lines);
    for (i, e) in entries.iter_mut().enumerate() {
        e.level = levels[i % levels.len()];
        let score = i32::from(scores[i % scores.len()]);
        e.leaf = e.leaf.map(|l| Link::new(Score::new(score), l.mv));
        e.no_leaf_score = -127;
    }
    std::fs::write(dir.join("raw.dat"), encode(&entries, 1)).unwrap();
    let fixed = bin()
        .current_dir(dir)
        .args(["--config", "/dev/null", "-q", "--out-dir", "f", "--log-file", "f/log", "fix", "raw.dat", "in.dat"])
        .output()
        .unwrap();
    assert!(fixed.status.success(), "{}", stderr(&fixed));
}

/// Runs deepen in the process on `dir/in.dat` with a budget of `n` records.
fn deepen_budgeted(dir: &Path, level: u8, w: f64, n: u64) {
    let book = Book::open(&dir.join("in.dat"), &Default::default()).unwrap();
    let paths = GrowthPaths::new(&dir.join("in.dat"), &dir.join("out.dat"), &dir.join("o")).unwrap();
    let options = DeepenOptions {
        growth: GrowthOptions {
            engines: Vec::new(),
            engine_timeout: Duration::from_secs(60),
            min_empties: Some(0),
            max_positions: Some(n),
            start: Start::initial(),
            window: Window::NONE,
        },
        level: Level::new(level).unwrap(),
        error_weight: ErrorWeight::new(w).unwrap(),
        max_priority: None,
        max_seconds: None,
    };
    let engines = |_: &Path| {
        vec![EngineSet {
            label: "first move".into(),
            protocol: Protocol::EdaxConsole,
            workers: 1,
            launcher: Box::new(FirstMove),
        }]
    };
    let cancel = AtomicBool::new(false);
    let control = Control { cancel: Cancel::new(&cancel), phase: &mut |_| {}, progress: &mut |_| {} };
    let never = AtomicBool::new(false);
    let deepen = Deepen { book, options: &options, wind_down: Cancel::new(&never) };
    let report = run(deepen, &paths, Engines::made(engines), control).unwrap();
    assert!(report.adds.deepened <= n);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_budget_of_n_deepens_the_n_records_of_least_priority(
        games in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..=12), 1..=5),
        levels in prop::collection::vec(0u8..=24, 1..=9),
        scores in prop::collection::vec(-64i8..=64, 1..=7),
        level in 1u8..=24,
        w in prop::sample::select(vec![0.0, 0.5, 1.0, 2.0]),
        n in 0u64..=12,
    ) {
        let dir = tempfile::tempdir().unwrap();
        random_book(dir.path(), &games, &levels, &scores);
        let before = nodes(&dir.path().join("in.dat"));
        let initial = normalize(&Board::INITIAL).board;
        let start = before.iter().position(|node| node.board == initial).unwrap();
        let expected = reference(&before, start, level, w, n as usize);
        deepen_budgeted(dir.path(), level, w, n);
        let after = nodes(&dir.path().join("out.dat"));
        let deepened: HashSet<usize> = (0..before.len()).filter(|&i| after[i].level != before[i].level).collect();
        prop_assert_eq!(&deepened, &expected);
        prop_assert!(deepened.iter().all(|&i| after[i].level == level));
    }
}
