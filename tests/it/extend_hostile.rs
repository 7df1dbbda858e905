//! `extend` tried as a hostile user would (issue 37): a journal in use, a
//! journal path that is OUT, the log, a FIFO or a device, runs killed
//! with SIGKILL, engines whose children outlive their shell, folders whose
//! paths hold a blank. Each test runs the real binary with the solver
//! example as the engine; every wait is bounded.

use crate::extend::{book, extend, stderr};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The longest a test waits for a run that should end at once.
const PROMPTLY: Duration = Duration::from_secs(30);

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
