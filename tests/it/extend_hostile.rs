//! `extend` tried as a hostile user would (issue 37): a journal in use, a
//! journal path that is OUT, the log, a FIFO or a device, runs killed
//! with SIGKILL, engines whose children outlive their shell, folders whose
//! paths hold a blank. Each test runs the real binary with the solver
//! example as the engine; every wait is bounded.

use crate::common::{
    assert_each_search_once, assert_no_engine_left, book, extend, journal, near_end, run, solver, solvers_running,
    stderr, summary, tagged_processes,
};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The longest a test waits for a run that should end at once.
const PROMPTLY: Duration = Duration::from_secs(30);

/// `extend IN OUT` from [`near_end`] (22 searches in 4 rounds), for what is
/// checked whatever the book: the journal, the engines, the folders.
fn extend_near(dir: &Path, out: &str, extra: &[&str]) -> Command {
    let start = near_end();
    let mut args = extra.to_vec();
    args.extend(["--start", &start]);
    extend(dir, &book(), out, &args)
}

/// Runs `command`, killing it (and failing the test) if it has not ended
/// within `limit`: a run that hangs is a failure, not a test that hangs.
fn run_within(mut command: Command, limit: Duration) -> Output {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("bookminer runs");
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() >= deadline {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!("still running after {limit:?}, killed; it said: {}", stderr(&out));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A refusal: status 2, within [`PROMPTLY`], its message holding `says`.
fn assert_refused(command: Command, says: &str) -> String {
    let out = run_within(command, PROMPTLY);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains(says), "{message}");
    assert!(!message.contains("panicked"), "{message}");
    message
}

#[test]
fn out_or_the_log_named_as_the_journal_is_refused_even_before_its_folder_exists() {
    let dir = tempfile::tempdir().unwrap();
    let named = dir.path().join("run/extend.jsonl");
    let named = named.to_str().unwrap();
    assert_refused(extend(dir.path(), &book(), named, &["--out-dir", "run"]), "journal");
    assert!(!dir.path().join("run").exists(), "nothing made");
    let log = extend(dir.path(), &book(), "out.dat", &["--out-dir", "run", "--log-file", named]);
    assert_refused(log, "the log file");
    assert!(!dir.path().join("run").exists() && !dir.path().join("out.dat").exists(), "nothing made");
}

/// A run under way, killed if the test fails before it ends (its engines
/// die with it): a failed test leaves nothing running.
struct Running(Option<Child>);

impl Running {
    fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("running")
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Waits (a minute at most) until `file` exists in `dir`, `child` still running.
fn wait_for_file(dir: &Path, file: &str, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !dir.join(file).exists() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before {file} appeared");
        assert!(Instant::now() < deadline, "{file} never appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits (two minutes at most) for a run to end; its output.
fn finish(mut running: Running) -> Output {
    let deadline = Instant::now() + Duration::from_secs(120);
    while running.child().try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the run did not end within two minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    running.0.take().expect("running").wait_with_output().unwrap()
}

#[test]
fn a_second_run_on_a_journal_in_use_is_refused_at_once_and_the_first_finishes_unharmed() {
    let dir = tempfile::tempdir().unwrap();
    // The workers' engines wait for the file `go`: until then the first run
    // holds its journal (workers start after it is taken) and searches
    // nothing. The first start, the greeting as the run starts
    // (issue 40 item 7), goes through.
    let gated = format!(
        "sh -c 'if [ -e greeted ]; then touch waiting; while [ ! -e go ]; do sleep 0.05; done; else touch greeted; fi; exec \"$0\" \"$@\"' {}",
        solver().display()
    );
    let mut command = extend_near(dir.path(), "out.dat", &["--engine", &gated]);
    let mut first = Running(Some(command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()));
    wait_for_file(dir.path(), "waiting", first.child());
    let holder = format!("process {}", first.child().id());
    let message = assert_refused(extend(dir.path(), &book(), "second.dat", &[]), &holder);
    assert!(message.contains("o/extend.jsonl") && message.contains("in use"), "{message}");
    assert!(!dir.path().join("second.dat").exists());
    std::fs::write(dir.path().join("go"), b"").unwrap();
    let out = finish(first);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(summary(&out, "searches").starts_with("searches             22 by the engines, 0 taken"));
    let lines = journal(dir.path());
    assert_eq!(lines.len(), 22);
    assert_each_search_once(&lines);
    let log = std::fs::read_to_string(dir.path().join("o/log")).unwrap();
    assert!(log.contains("round 4") && !log.contains("in use"), "the first run's log is its own: {log}");
}

/// Issue 47 item 11: a run removed the folders "left by killed runs"
/// before it held the journal's lock, so a second run removed a live run's
/// engine folder while that run greeted its engines (and ran in its place).
/// The journal is now taken before anything is started or removed: the
/// first run's greeting is held open by its engine, which waits for `go`,
/// and the second run is refused at once, naming it, its folder untouched.
#[test]
fn a_second_run_while_the_first_greets_its_engines_is_refused_and_removes_nothing_of_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let gated = format!(
        "sh -c 'touch greeting; while [ ! -e go ]; do sleep 0.05; done; exec \"$0\" \"$@\"' {}",
        solver().display()
    );
    let mut command = extend_near(dir.path(), "out.dat", &["--engine", &gated]);
    let mut first = Running(Some(command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()));
    wait_for_file(dir.path(), "greeting", first.child());
    let folders = || -> Vec<String> {
        let names = crate::common::names_in(&dir.path().join("o"));
        names.into_iter().filter(|n| n.starts_with(".bookminer-extend-")).collect()
    };
    let greeting = folders();
    assert_eq!(greeting.len(), 1, "the first run's folder, its engine greeted in it: {greeting:?}");
    let holder = format!("process {}", first.child().id());
    let message = assert_refused(extend(dir.path(), &book(), "second.dat", &[]), &holder);
    assert!(message.contains("o/extend.jsonl") && message.contains("in use"), "{message}");
    assert_eq!(folders(), greeting, "the first run's folder is left as it was");
    assert!(!dir.path().join("second.dat").exists());
    std::fs::write(dir.path().join("go"), b"").unwrap();
    let out = finish(first);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(summary(&out, "searches").starts_with("searches             22 by the engines, 0 taken"));
}

#[test]
fn answers_of_another_engine_command_are_not_taken() {
    let dir = tempfile::tempdir().unwrap();
    let first = run(extend_near(dir.path(), "first.dat", &["--max-positions", "3"]));
    assert!(first.status.success(), "{}", stderr(&first));
    let held = journal(dir.path()).len();
    assert!(held > 0);
    // The same solver, by another command line: SPEC 18, searched anew.
    let other = format!("sh -c 'exec \"$0\" \"$@\"' {}", solver().display());
    let out = run(extend_near(dir.path(), "out.dat", &["--engine", &other]));
    assert!(out.status.success(), "{}", stderr(&out));
    let taken = summary(&out, "searches");
    assert!(taken.ends_with(" 0 taken from o/extend.jsonl"), "{taken}");
    let lines = journal(dir.path());
    assert_eq!(lines.len(), 22 + held);
    assert_eq!(lines.iter().filter(|l| l["engine"] == other.as_str()).count(), 22);
}

#[test]
fn a_file_in_the_journals_place_that_is_not_a_journal_is_refused_and_never_cut() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("o")).unwrap();
    // The book a run once wrote in the journal's place, and a log.
    let book_bytes = std::fs::read(book()).unwrap();
    for bytes in [book_bytes.clone(), b"info: a log line\ninfo: another".to_vec()] {
        std::fs::write(dir.path().join("o/extend.jsonl"), &bytes).unwrap();
        let message = assert_refused(extend(dir.path(), &book(), "out.dat", &[]), "not a journal of extend");
        assert_eq!(std::fs::read(dir.path().join("o/extend.jsonl")).unwrap(), bytes, "left as it was: {message}");
        assert!(!dir.path().join("out.dat").exists());
    }
}

#[test]
fn a_last_line_lacking_only_its_newline_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let first = run(extend_near(dir.path(), "first.dat", &["--max-positions", "3"]));
    assert!(first.status.success(), "{}", stderr(&first));
    let path = dir.path().join("o/extend.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let held = text.lines().count();
    std::fs::write(&path, text.trim_end_matches('\n')).unwrap();
    let out = run(extend_near(dir.path(), "out.dat", &[]));
    assert!(out.status.success(), "{}", stderr(&out));
    let taken = summary(&out, "searches");
    assert!(taken.ends_with(&format!(" {held} taken from o/extend.jsonl")), "{taken}");
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(now.starts_with(&text), "the lines before are as they were");
    assert_eq!(journal(dir.path()).len(), 22);
}

#[test]
fn a_journal_that_is_a_fifo_or_a_device_is_refused_before_any_search() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("o");
    std::fs::create_dir(&o).unwrap();
    let fifo = Command::new("mkfifo").arg(o.join("extend.jsonl")).status().expect("mkfifo runs");
    assert!(fifo.success());
    assert_refused(extend(dir.path(), &book(), "out.dat", &[]), "a named pipe (FIFO), not a regular file");
    for device in ["/dev/zero", "/dev/null"] {
        std::fs::remove_file(o.join("extend.jsonl")).unwrap();
        std::os::unix::fs::symlink(device, o.join("extend.jsonl")).unwrap();
        // Bounded memory, in case /dev/zero is read: a failure, not a
        // machine out of memory.
        let command = extend(dir.path(), &book(), "out.dat", &[]);
        let mut bounded = Command::new("sh");
        bounded.current_dir(dir.path()).arg("-c").arg("ulimit -v 4000000 && exec \"$0\" \"$@\"");
        bounded.arg(command.get_program()).args(command.get_args());
        bounded.envs(command.get_envs().filter_map(|(k, v)| Some((k, v?))));
        let message = assert_refused(bounded, "a device, not a regular file");
        assert!(!message.contains("round 1"), "refused before searching: {message}");
    }
    assert!(!dir.path().join("out.dat").exists());
}

/// The folders of round books in `dir`, a run's or a killed run's.
fn round_folders(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let names = entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
    names.filter(|n| n.starts_with(".bookminer-extend-")).collect()
}

/// The journal's whole lines in `out_dir`.
fn answers_in(dir: &Path, out_dir: &str) -> usize {
    let text = std::fs::read_to_string(dir.join(out_dir).join("extend.jsonl")).unwrap_or_default();
    text.split_inclusive('\n').filter(|l| l.ends_with('\n')).count()
}

#[test]
fn a_run_that_takes_the_journal_removes_the_round_books_killed_runs_left() {
    // out_dir without a blank: the round books beside the journal; with
    // one: in the temporary folder. From near the end (what is checked is
    // the round books, whatever the book), the killed run's engines each
    // answering once and then never again, so that it is killed mid-round
    // however fast they are.
    for out_dir in ["o", "o ut"] {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let command = || {
            let mut command = extend_near(dir.path(), "out.dat", &["--out-dir", out_dir, "--log-file", "log"]);
            command.env("TMPDIR", &tmp);
            command
        };
        let mut first = command();
        first.env("SOLVER_FAULT", "hang-after-1").stdout(Stdio::null()).stderr(Stdio::null());
        let mut killed = Running(Some(first.spawn().unwrap()));
        let deadline = Instant::now() + Duration::from_secs(60);
        while answers_in(dir.path(), out_dir) == 0 {
            assert!(killed.child().try_wait().unwrap().is_none(), "{out_dir}: the run ended before any answer");
            assert!(Instant::now() < deadline, "{out_dir}: no answer within a minute");
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(killed); // SIGKILL
        let books_in = if out_dir == "o" { dir.path().join(out_dir) } else { tmp.clone() };
        assert_eq!(round_folders(&books_in).len(), 1, "{out_dir}: a killed run leaves its round books");
        assert_no_engine_left(dir.path());
        let again = run_within(command(), Duration::from_secs(120));
        assert!(again.status.success(), "{out_dir}: {}", stderr(&again));
        for folder in [dir.path().join(out_dir), tmp.clone()] {
            assert_eq!(round_folders(&folder), Vec::<String>::new(), "{out_dir}: in {}", folder.display());
        }
    }
}

#[test]
fn folders_whose_paths_an_engines_console_cannot_read_are_refused_before_loading() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("t mp");
    std::fs::create_dir(&tmp).unwrap();
    let mut command = extend(dir.path(), &book(), "out.dat", &["--out-dir", "o ut", "--log-file", "log"]);
    command.env("TMPDIR", &tmp);
    let message = assert_refused(command, "TMPDIR");
    assert!(message.contains("o ut") && message.contains("t mp") && message.contains("blank"), "{message}");
    assert!(!dir.path().join("o ut").exists() && round_folders(&tmp).is_empty(), "nothing made");
}

/// Issue 47 item 14: a TMPDIR that does not exist is named, not made (it
/// was made, and left behind, when out_dir's path had a blank).
#[test]
fn a_temporary_folder_that_does_not_exist_is_named_and_not_made() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("nothing-here");
    let mut command = extend(dir.path(), &book(), "out.dat", &["--out-dir", "o ut", "--log-file", "log"]);
    command.env("TMPDIR", &tmp);
    let out = run_within(command, Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains(&tmp.display().to_string()), "{}", stderr(&out));
    assert!(!tmp.exists(), "the temporary folder was made");
    assert!(!dir.path().join("out.dat").exists());
    assert_no_engine_left(dir.path());
}

/// Kills, when dropped, whatever the test in `dir` started that is still
/// running (each by its process id): a test that fails leaves nothing behind.
struct KillLeftovers<'d>(&'d Path);

impl Drop for KillLeftovers<'_> {
    fn drop(&mut self) {
        for pid in tagged_processes(self.0, None) {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
        }
    }
}

#[test]
fn no_engine_process_nor_any_it_started_outlives_bookminer_killed() {
    let dir = tempfile::tempdir().unwrap();
    let _leftovers = KillLeftovers(dir.path());
    // A shell that starts the solver as its child, which hangs on its
    // first search: the parent-death signal reaches the shell only.
    let engine = format!("sh -c 'SOLVER_FAULT=hang {} \"$@\"; true' sh", solver().display());
    let mut command = extend(dir.path(), &book(), "out.dat", &["--engine", &engine]);
    let mut running = Running(Some(command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap()));
    // Both solvers in their search (before it, a solver would leave at the
    // end of its input, bookminer's pipe, as it should).
    let deadline = Instant::now() + Duration::from_secs(60);
    let hanging = || std::fs::read_to_string(dir.path().join("o/log")).unwrap_or_default().matches("hanging").count();
    while hanging() < 2 {
        assert!(running.child().try_wait().unwrap().is_none(), "the run ended before its engines hung");
        assert!(Instant::now() < deadline, "two engines never hung");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(solvers_running(dir.path()), 2);
    let bookminer = running.child().id();
    drop(running); // SIGKILL
    let deadline = Instant::now() + Duration::from_secs(30);
    while !tagged_processes(dir.path(), None).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<String> = tagged_processes(dir.path(), None)
        .iter()
        .map(|pid| std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default().replace('\0', " "))
        .collect();
    assert!(left.is_empty(), "30 s after bookminer ({bookminer}) was killed, still running: {left:?}");
}

/// An engine command that starts a process in a session of its own
/// (`setsid`: out of the engine's process group), then the solver.
fn engine_that_leaves_a_session_behind() -> String {
    format!("setsid sleep 100004 & exec {}", solver().display())
}

/// The processes of the test in `dir` still running after bookminer ended,
/// by command line, once they have had `limit` to go.
fn left_after(dir: &Path, limit: Duration) -> Vec<String> {
    let deadline = Instant::now() + limit;
    while !tagged_processes(dir, None).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    tagged_processes(dir, None)
        .iter()
        .map(|pid| std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default().replace('\0', " "))
        .collect()
}

/// Issue 47 item 12: what an engine started in a session of its own ends
/// with the run, on a normal end.
#[test]
fn a_process_an_engine_started_with_setsid_ends_with_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let _leftovers = KillLeftovers(dir.path());
    let engine = engine_that_leaves_a_session_behind();
    let out = run(extend_near(dir.path(), "out.dat", &["--engine", &engine]));
    assert!(out.status.success(), "{}", stderr(&out));
    let left = left_after(dir.path(), Duration::from_secs(30));
    assert!(left.is_empty(), "30 s after the run ended, still running: {left:?}");
}

/// Issue 47 item 12: and when bookminer is killed with SIGKILL.
#[test]
fn a_process_an_engine_started_with_setsid_ends_when_bookminer_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let _leftovers = KillLeftovers(dir.path());
    let engine = engine_that_leaves_a_session_behind();
    let mut command = extend(dir.path(), &book(), "out.dat", &["--engine", &engine]);
    let mut running = Running(Some(command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap()));
    let deadline = Instant::now() + Duration::from_secs(60);
    while journal(dir.path()).len() < 5 {
        assert!(running.child().try_wait().unwrap().is_none(), "the run ended before 5 answers");
        assert!(Instant::now() < deadline, "the journal never reached 5 answers");
        std::thread::sleep(Duration::from_millis(5));
    }
    let sessions = || {
        let cmdlines = tagged_processes(dir.path(), None)
            .iter()
            .map(|pid| std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default())
            .collect::<Vec<_>>();
        cmdlines.iter().filter(|c| c.starts_with("sleep\x00100004")).count()
    };
    assert!(sessions() >= 1, "the engines' sessions run");
    drop(running); // SIGKILL
    let left = left_after(dir.path(), Duration::from_secs(30));
    assert!(left.is_empty(), "30 s after bookminer was killed, still running: {left:?}");
}

#[test]
fn a_journal_score_out_of_range_is_named_as_the_score() {
    let dir = tempfile::tempdir().unwrap();
    let first = run(extend_near(dir.path(), "first.dat", &["--max-positions", "3"]));
    assert!(first.status.success(), "{}", stderr(&first));
    let path = dir.path().join("o/extend.jsonl");
    let mut lines = journal(dir.path());
    lines[0]["score"] = serde_json::json!(99);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, &text).unwrap();
    let message = assert_refused(extend_near(dir.path(), "out.dat", &[]), "line 1");
    assert!(message.contains("score 99 is not a score"), "{message}");
    assert!(!message.contains("cannot be the answer"), "{message}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "left as it was");
}
