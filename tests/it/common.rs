//! What the tests share: where the repository's books are, the binary, a
//! pipe nobody reads, and books made from lines of moves.
//!
//! Every book a test reads is in the repository (`books/`, `tests/data/`) or
//! made by the test: the tests need nothing beside the repository.

use bookminer::board::{Board, Move, Square};
use bookminer::book::{Book, Link, Score};
use bookminer::format::edax::entries::{encode, Entry};
use bookminer::symmetry::normalize;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The repository's root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `books/sample.dat`, the book `bookminer synth` wrote for the README.
pub fn sample() -> PathBuf {
    repo().join("books/sample.dat")
}

/// A file under `tests/data` (the books the tests and the cases use).
pub fn data(relative: &str) -> PathBuf {
    let path = repo().join("tests/data").join(relative);
    assert!(path.is_file(), "{} is missing from the repository", path.display());
    path
}

/// `tests/data/books/edax46-l2-small.dat`: 7,814 positions written by Edax 4.6.
pub fn edax46() -> PathBuf {
    data("books/edax46-l2-small.dat")
}

/// The binary cargo built for these tests.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bookminer"))
}

/// The commands `bookminer --help` lists (clap's `help` aside): the binary's
/// one list (src/commands/mod.rs), which the tests that cover every command
/// check themselves against.
pub fn commands() -> Vec<String> {
    let out = bin().arg("--help").output().expect("the binary runs");
    let help = String::from_utf8(out.stdout).unwrap();
    let listed = help.split("\nCommands:\n").nth(1).expect("--help lists the commands");
    let names = listed.lines().take_while(|l| !l.trim().is_empty());
    // A command's line starts two spaces in; its wrapped text, further.
    let names = names.filter(|l| l.starts_with("  ") && !l.starts_with("   "));
    let names: Vec<String> = names.filter_map(|l| l.split_whitespace().next()).map(String::from).collect();
    names.into_iter().filter(|n| n != "help").collect()
}

/// The write end of a pipe whose read end is already closed, as a child's
/// standard output: its first write fails with a broken pipe, however the
/// processes are scheduled. (A named pipe in `dir`: opened for reading and
/// writing first so that opening the write end does not wait for a reader.)
pub fn pipe_nobody_reads(dir: &Path) -> File {
    let fifo = dir.join("closed-pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", fifo.display());
    let both_ends = OpenOptions::new().read(true).write(true).open(&fifo).unwrap();
    let write_end = OpenOptions::new().write(true).open(&fifo).unwrap();
    drop(both_ends);
    write_end
}

/// The boards a line passes through, the initial and the last included.
pub fn boards_along(line: &[Move]) -> Vec<Board> {
    let mut boards = vec![Board::INITIAL];
    for &mv in line {
        boards.push(boards.last().unwrap().after(mv).expect("a legal line"));
    }
    boards
}

/// A game from the initial position, each choice picking one of the legal
/// moves (a forced pass is played, and uses a choice), until the choices
/// run out or neither side can move.
pub fn game_of<C: Copy + Into<usize>>(choices: &[C]) -> Vec<Move> {
    let mut board = Board::INITIAL;
    let mut line = Vec::new();
    for &choice in choices {
        if board.is_game_over() {
            break;
        }
        let mv = match board.must_pass() {
            true => Move::Pass,
            false => {
                let legal: Vec<Square> = Square::iter(board.legal_moves()).collect();
                Move::Play(legal[choice.into() % legal.len()])
            }
        };
        board = board.after(mv).expect("a legal move");
        line.push(mv);
    }
    line
}

/// Stores every position along the lines, linking each move played (in the
/// stored board's coordinates), and gives a position without links a leaf on
/// its first legal move (or its pass).
pub fn book_from_lines(lines: &[Vec<Move>]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut slot: HashMap<Board, usize> = HashMap::new();
    let mut entry_of = |board: &Board, entries: &mut Vec<Entry>| {
        let stored = normalize(board).board;
        *slot.entry(stored).or_insert_with(|| {
            entries.push(Entry::new(stored, 0));
            entries.len() - 1
        })
    };
    for line in lines {
        let boards = boards_along(line);
        for (board, &mv) in boards.iter().zip(line) {
            let i = entry_of(board, &mut entries);
            let stored = normalize(board).to_original.inverse().apply_move(mv);
            let links = &mut entries[i].links;
            if !links.iter().any(|l| l.mv == stored) {
                links.push(Link::new(Score::new(links.len() as i32), stored));
            }
        }
        entry_of(boards.last().unwrap(), &mut entries);
    }
    for e in &mut entries {
        if e.links.is_empty() {
            let first = Square::iter(e.board.legal_moves()).next().map(Move::Play);
            e.leaf = first.or(e.board.must_pass().then_some(Move::Pass)).map(|mv| Link::new(Score::new(3), mv));
        }
    }
    entries
}

/// Runs the binary in `dir` with no config file.
pub fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    bin().current_dir(dir).args(["--config", "/dev/null"]).args(args).output().expect("the binary runs")
}

/// The names in `dir` (links included, not followed), sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

/// Whether `/proc/locks` lists process `pid` waiting for a lock (`-> FLOCK`):
/// a run held at a lock the test holds, without a clock.
pub fn waits_for_a_lock(pid: u32) -> bool {
    let locks = std::fs::read_to_string("/proc/locks").unwrap_or_default();
    locks.lines().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words.get(1) == Some(&"->") && words.get(5) == Some(&pid.to_string().as_str())
    })
}

/// Waits (a minute at most) until `child`, `who` in messages, waits for a
/// lock the test holds ([`waits_for_a_lock`]); fails if it ends first.
pub fn wait_until_it_waits_for_a_lock(child: &mut std::process::Child, who: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !waits_for_a_lock(child.id()) {
        assert!(child.try_wait().unwrap().is_none(), "{who} ended without waiting for the folder's lock");
        assert!(Instant::now() < deadline, "{who} never waited for the folder's lock");
        std::thread::sleep(Duration::from_millis(20));
    }
}

// Growth runs with the repository's engines (examples/solver.rs), and the
// references their books are checked against.

/// 18 empty squares below the initial position, on the book's line.
pub const START: &str = "d3c5e6e3c3f7b5b3c2c1e2f5a3c6g5h5f4g3g6c4e8a4e7f1a2f2e1f6d2f3b2h6d6b1h4b4g1h2g2c7h7a1";

/// 16 empty squares: [`START`] and the book's next two plies on its line,
/// where extend makes 22 searches instead of 92, each a tenth as long: for
/// the tests that check what growth does whatever the book (the journal,
/// the engines, a kill), not which book Edax grows.
pub fn near_end() -> String {
    format!("{START}d7d8")
}

/// The solver example, built by `cargo test` beside the binary.
pub fn solver() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_bookminer"));
    let path = bin.parent().unwrap().join("examples/solver");
    assert!(path.is_file(), "{} is missing: cargo test builds it (examples/solver.rs)", path.display());
    path
}

/// `tests/data/books/endgames-extend.dat`, the endgame book growth is tested on
/// (tests/it/extend.rs says how it was made).
pub fn book() -> PathBuf {
    data("books/endgames-extend.dat")
}

/// `bookminer extend IN OUT` from [`START`] with the solver, in `dir`.
pub fn extend(dir: &Path, input: &Path, out: &str, extra: &[&str]) -> Command {
    let mut command = bin();
    command.current_dir(dir).arg("--config").arg("/dev/null").arg("extend").arg(input).arg(out);
    command.args(["--workers", "2"]).env(RUN_TAG, dir);
    if !extra.contains(&"--start") {
        command.args(["--start", START]);
    }
    // The defaults, unless the test gives its own.
    if !extra.contains(&"--out-dir") {
        command.args(["--out-dir", "o", "--log-file", "o/log"]);
    }
    if !extra.contains(&"--engine") {
        command.arg("--engine").arg(solver());
    }
    command.args(extra);
    command
}

/// A command run to its end, its output kept.
pub fn run(mut command: Command) -> Output {
    command.output().expect("bookminer runs")
}

/// A run's standard error, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The summary line that starts with `key`.
pub fn summary(out: &Output, key: &str) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("no {key} in: {text}")).to_string()
}

/// Set to the test's folder on each run it starts, and inherited by the
/// engines: tells a test's engines from those of tests running beside it.
pub const RUN_TAG: &str = "EXTEND_TEST_FOLDER";

/// Processes still running from the solver's file, started for the test
/// whose folder is `dir`: engines left behind.
pub fn solvers_running(dir: &Path) -> usize {
    tagged_processes(dir, Some(&std::fs::canonicalize(solver()).unwrap())).len()
}

/// The processes still running (zombies aside) that were started for the
/// test whose folder is `dir` (they inherit its [`RUN_TAG`]), from the
/// file `exe` if one is given.
pub fn tagged_processes(dir: &Path, exe: Option<&Path>) -> Vec<u32> {
    let tag = format!("{RUN_TAG}={}\0", dir.display());
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter(|e| exe.is_none_or(|exe| std::fs::read_link(e.path().join("exe")).is_ok_and(|p| p == exe)))
        .filter(|e| {
            std::fs::read(e.path().join("environ")).is_ok_and(|env| env.windows(tag.len()).any(|w| w == tag.as_bytes()))
        })
        .filter(|e| {
            // A zombie has no exe link; a process exiting may still show one.
            std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| !s.contains(") Z "))
        })
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

/// Waits (a minute at most) until no engine of the test in `dir` runs, nor
/// any process the run started (a shell, what it started, a watchdog):
/// called once bookminer itself has ended.
pub fn assert_no_engine_left(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !tagged_processes(dir, None).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(solvers_running(dir), 0, "an engine outlived its run");
    assert_eq!(tagged_processes(dir, None), Vec::<u32>::new(), "a process started for the run outlived it");
}

/// Plain negamax to the end of the game: the slow reference.
pub fn minimax(board: &Board) -> i32 {
    let moves = board.legal_moves();
    if moves == 0 {
        let passed = board.swapped();
        return if passed.has_moves() { -minimax(&passed) } else { board.final_score() };
    }
    Square::iter(moves).map(|s| -minimax(&board.after(Move::Play(s)).unwrap())).max().unwrap()
}

/// The journal's whole lines.
pub fn journal(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("o/extend.jsonl")).unwrap_or_default();
    // A line still being written (read while the run writes it) is not one yet.
    let whole = text.split_inclusive('\n').filter(|l| l.ends_with('\n'));
    whole.map(|l| serde_json::from_str(l).expect("a whole JSON line")).collect()
}

/// No search is journaled twice (the same board, side, level and moves left out).
pub fn assert_each_search_once(lines: &[serde_json::Value]) {
    let keys: HashSet<String> =
        lines.iter().map(|l| format!("{} {} {} {}", l["board"], l["side"], l["level"], l["excluded"])).collect();
    let mut seen = HashSet::new();
    let twice: Vec<String> = lines
        .iter()
        .map(|l| format!("{} {} {} {}", l["board"], l["side"], l["level"], l["excluded"]))
        .filter(|k| !seen.insert(k.clone()))
        .collect();
    assert_eq!(keys.len(), lines.len(), "a search journaled twice: {twice:?}");
}

/// A position `empties` squares from the end, by seeded random play, the
/// game going on there, and the moves that reach it (passes left out).
pub fn position(empties: u32, mut state: u64) -> (Board, String) {
    loop {
        let (mut board, mut line) = (Board::INITIAL, String::new());
        while board.empties() > empties && !board.is_game_over() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let moves: Vec<Square> = Square::iter(board.legal_moves()).collect();
            board = match moves.len() {
                0 => board.swapped(),
                n => {
                    let square = moves[(state % n as u64) as usize];
                    line += &square.to_string();
                    board.after(Move::Play(square)).unwrap()
                }
            };
        }
        if board.empties() == empties && board.has_moves() {
            return (board, line);
        }
    }
}

/// A book of one record: `root` (normalized), level 60, its leaf its
/// best move as plain negamax scores it; as `in.dat` in `dir`.
pub fn one_record_book(dir: &Path, root: Board) {
    let (score, square) = Square::iter(root.legal_moves())
        .map(|s| (-minimax(&root.after(Move::Play(s)).unwrap()), s))
        .max_by_key(|&(score, _)| score)
        .unwrap();
    let square = normalize(&root).to_original.inverse().apply_move(Move::Play(square));
    let mut entry = Entry::new(normalize(&root).board, score);
    entry.level = 60;
    entry.leaf = Some(Link::new(Score::new(score), square));
    std::fs::write(dir.join("in.dat"), encode(&[entry], 60)).unwrap();
}

/// Every position on a line from `board` where each side plays only
/// moves that keep the value (a finished game's position included),
/// normalized.
pub fn best_lines(board: &Board, found: &mut HashSet<Board>) {
    if !found.insert(normalize(board).board) || board.is_game_over() {
        return;
    }
    let value = minimax(board);
    for (_, child) in board.children() {
        if -minimax(&child) == value {
            best_lines(&child, found);
        }
    }
}

/// A growth run's JSON summary, the run having succeeded.
pub fn run_json(command: &mut Command) -> serde_json::Value {
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A growth run killed at three moments (after its first answer, after
/// half of its `searches`, at a random time) and run again on the book
/// `book` writes: each time the book `expected`, byte for byte, the
/// answers journaled before the kill taken from the journal (with the
/// `repeated` ones the whole run took from its own journal), no search
/// made twice, and `also` holding of each folder.
pub fn killed_and_run_again(
    book: impl Fn(&Path),
    command: impl Fn(&Path) -> Command,
    (searches, repeated): (usize, usize),
    expected: &[u8],
    also: impl Fn(&Path),
) {
    killed_and_run_again_into("out.dat", book, command, (searches, repeated), expected, also);
}

/// [`killed_and_run_again`] for a command whose OUT is `out` (an `.egbk3`
/// book's, say).
pub fn killed_and_run_again_into(
    out: &str,
    book: impl Fn(&Path),
    command: impl Fn(&Path) -> Command,
    (searches, repeated): (usize, usize),
    expected: &[u8],
    also: impl Fn(&Path),
) {
    let nanos = u64::from(Instant::now().elapsed().subsec_nanos()) + u64::from(std::process::id());
    for (n, delay) in
        [(1, Duration::MAX), (searches / 2, Duration::MAX), (usize::MAX, Duration::from_millis(nanos % 300))]
    {
        let dir = tempfile::tempdir().unwrap();
        book(dir.path());
        let mut child = command(dir.path()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let began = Instant::now();
        while journal(dir.path()).len() < n && began.elapsed() < delay && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert_no_engine_left(dir.path());
        let kept = journal(dir.path()).len();
        if !dir.path().join(out).exists() {
            let again = run_json(&mut command(dir.path()));
            assert_eq!(again["searches_from_journal"].as_u64(), Some((kept + repeated) as u64), "{again}");
            assert_eq!(again["searches"].as_u64().unwrap() as usize + kept, searches, "no search twice");
        }
        assert_eq!(std::fs::read(dir.path().join(out)).unwrap(), expected, "killed after {kept} answers");
        also(dir.path());
        assert_each_search_once(&journal(dir.path()));
    }
}

/// The boards of an Edax book.
pub fn boards(path: &Path) -> HashSet<Board> {
    Book::open(path, &Default::default()).unwrap().records().map(|r| r.board()).collect()
}

/// A journal holding one answer: the initial position at `level`, its best
/// move `mv` scoring `score` (the solver cannot solve it: the answer is
/// taken from the journal, as a run killed after its search would; the
/// line names the engine this run names, whose answers alone it takes
/// again, SPEC §18).
pub fn journal_of_the_initial_position(dir: &Path, level: u8, mv: &str, score: i8) {
    let query = bookminer::engine::search::Query {
        board: normalize(&Board::INITIAL).board,
        excluded: bookminer::board::Squares::NONE,
        level: bookminer::level::Level::new(level).unwrap(),
    };
    let line = format!(
        "{{\"board\":\"{}\",\"side\":\"{}\",\"level\":{level},\"excluded\":[],\"move\":\"{mv}\",\"score\":{score},\"engine\":{:?}}}\n",
        query.board_text(),
        query.side(),
        solver().display().to_string()
    );
    std::fs::create_dir_all(dir.join("o")).unwrap();
    std::fs::write(dir.join("o/extend.jsonl"), line).unwrap();
}
