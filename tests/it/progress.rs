//! Issue 47 item 4: a long run off a terminal says how far it has come, in
//! progress lines at a steady interval (`progress_seconds`), in its log and
//! on standard error (not with `-q`), and at once on `kill -USR1`. The run
//! is an `extend` whose engine hangs on its first search (the solver with
//! `SOLVER_FAULT=hang`), so that it stays in its first round until killed;
//! each wait is for a line that must come, bounded.

use crate::common::{book, extend, solver, tagged_processes};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Starts an extend in `dir` whose engine hangs, stderr piped (no terminal).
fn hanging_run(dir: &Path, extra: &[&str]) -> Child {
    let engine = format!("sh -c 'SOLVER_FAULT=hang {} \"$@\"' sh", solver().display());
    let mut args = vec!["--engine", &engine, "--engine-timeout", "600"];
    args.extend_from_slice(extra);
    let mut command = extend(dir, &book(), "out.dat", &args);
    command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("bookminer runs")
}

/// The progress lines in the run's log so far.
fn logged(dir: &Path) -> Vec<String> {
    let log = std::fs::read_to_string(dir.join("o/log")).unwrap_or_default();
    log.lines().filter(|l| l.contains(" progress: ") || l.contains("round 1,")).map(str::to_string).collect()
}

/// Waits (a minute at most) until the log holds `n` progress lines.
fn wait_for_lines(dir: &Path, n: usize, child: &mut Child) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let lines = logged(dir);
        if lines.len() >= n {
            return lines;
        }
        assert!(child.try_wait().unwrap().is_none(), "the run ended before {n} progress lines");
        assert!(Instant::now() < deadline, "fewer than {n} progress lines in a minute: {lines:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills the run and everything it started; its standard error.
fn kill(mut child: Child, dir: &Path) -> String {
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    for pid in tagged_processes(dir, None) {
        let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    }
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn progress_lines_come_at_the_interval_in_the_log_and_on_stderrf_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = hanging_run(dir.path(), &["--progress-seconds", "0.05"]);
    let lines = wait_for_lines(dir.path(), 3, &mut child);
    let stderr = kill(child, dir.path());
    let first = lines.iter().find(|l| l.contains("round 1,")).expect("a line of the round");
    assert!(first.contains("0 of ") && first.contains("searches/s") && first.contains("in all"), "{first}");
    let on_stderr: Vec<&str> = stderr.lines().filter(|l| l.starts_with("progress: ")).collect();
    assert!(on_stderr.len() >= 3, "the lines on stderr too: {stderr}");
    assert!(on_stderr.iter().any(|l| l.starts_with("progress: round 1, ")), "{stderr}");
}

#[test]
fn quiet_keeps_progress_lines_off_stderr_but_not_out_of_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = hanging_run(dir.path(), &["--progress-seconds", "0.05", "-q"]);
    wait_for_lines(dir.path(), 2, &mut child);
    let stderr = kill(child, dir.path());
    assert!(!stderr.contains("progress: "), "{stderr}");
}

#[test]
fn kill_usr1_asks_for_a_progress_line_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // No line would come by the interval for a day.
    let mut child = hanging_run(dir.path(), &["--progress-seconds", "86400"]);
    // The round has begun once the engine was asked its first search.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(dir.path().join("o/log")).unwrap_or_default().contains("hanging") {
        assert!(child.try_wait().unwrap().is_none(), "the run ended");
        assert!(Instant::now() < deadline, "the engine was never asked");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(logged(dir.path()).is_empty(), "no line before it is asked for");
    let asked = Command::new("kill").args(["-USR1", &child.id().to_string()]).status().unwrap();
    assert!(asked.success());
    let lines = wait_for_lines(dir.path(), 1, &mut child);
    assert!(lines[0].contains("round 1,"), "{lines:?}");
    kill(child, dir.path());
}
