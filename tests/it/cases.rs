//! The conformance cases whose books are in the repository, run through the
//! binary as the shared conformance script runs them, but from the repository
//! alone.
//!
//! Each folder under `tests/cases/` is one case: `case.toml` (SPEC §6 keys;
//! `book` relative to `tests/data/`) and `expected/mode{N}.txt|jsonl|obf`,
//! every one of which must be written byte for byte. A case with
//! `positions.txt` is a mode 5 case instead: its `expect` file says `ok`
//! (status 0 and a report on stdout) or `fail line N` (a clean failure whose
//! message names line N). A case with a `command` file runs that command
//! (`fix`, SPEC §11) instead of mining, `{data}` in it standing for
//! `tests/data` and `{out}` for the output folder; every file in `expected/`
//! must then be written to the output folder. Adding a case is adding a folder.

use crate::common;

use common::{bin, data, repo};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Every case folder, sorted by name.
fn case_dirs() -> Vec<PathBuf> {
    let root = repo().join("tests/cases");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// The case's `book`, as written in case.toml (keys are case-insensitive).
fn book_of(case: &Path) -> Result<String, String> {
    let text = fs::read_to_string(case.join("case.toml")).map_err(|e| format!("case.toml: {e}"))?;
    let table: toml::Table = text.parse().map_err(|e| format!("case.toml: {e}"))?;
    let book = table.iter().find(|(key, _)| key.eq_ignore_ascii_case("book")).map(|(_, value)| value);
    match book.and_then(|v| v.as_str()) {
        Some(book) => Ok(book.to_string()),
        None => Err("case.toml names no book".into()),
    }
}

struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs the binary with the case's config file, its book taken from
/// `tests/data/` and its outputs sent to `scratch` (flags override the file).
/// The config file's other relative paths (a mode 5 case's positions.txt)
/// are taken from the case folder, as for any config file.
fn run_case(case: &Path, scratch: &Path) -> Result<Run, String> {
    let out_dir = scratch.join("out");
    let (stdout, stderr) = (scratch.join("stdout"), scratch.join("stderr"));
    let mut command = bin();
    match fs::read_to_string(case.join("command")) {
        Ok(line) => {
            let data = repo().join("tests/data").display().to_string();
            let out = out_dir.display().to_string();
            command.args(line.split_whitespace().map(|word| word.replace("{data}", &data).replace("{out}", &out)));
        }
        Err(_) => {
            command.arg("--book").arg(data(&book_of(case)?));
        }
    }
    let mut child = command
        .current_dir(scratch)
        .arg("--config")
        .arg(case.join("case.toml"))
        .arg("--out-dir")
        .arg(&out_dir)
        .arg("--log-file")
        .arg(scratch.join("debug.log"))
        .stdin(Stdio::null())
        .stdout(File::create(&stdout).unwrap())
        .stderr(File::create(&stderr).unwrap())
        .spawn()
        .map_err(|e| format!("the binary does not start: {e}"))?;
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if began.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            return Err("still running after 120 s".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let read = |path: &Path| String::from_utf8_lossy(&fs::read(path).unwrap()).into_owned();
    Ok(Run { status, stdout: read(&stdout), stderr: read(&stderr) })
}

/// The last lines of a message, on one line.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(2)..].join(" / ")
}

/// Where two files first differ, and their line counts.
fn difference(expected: &[u8], got: &[u8]) -> String {
    let at = expected.iter().zip(got).position(|(a, b)| a != b).unwrap_or(expected.len().min(got.len()));
    let line = expected[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let lines = |bytes: &[u8]| bytes.iter().filter(|&&b| b == b'\n').count();
    format!("differ from byte {at} (line {line}); expected {} lines, got {}", lines(expected), lines(got))
}

/// Checks one case; `Err` says every way it failed.
fn check_case(case: &Path) -> Result<(), String> {
    let scratch = tempfile::tempdir().unwrap();
    let run = run_case(case, scratch.path())?;
    let code = run.status.code();
    if case.join("positions.txt").is_file() {
        let expect = fs::read_to_string(case.join("expect")).map_err(|e| format!("expect: {e}"))?;
        return match expect.trim() {
            "ok" if code == Some(0) && !run.stdout.is_empty() => Ok(()),
            "ok" => Err(format!("{}, want status 0 and a report: {}", run.status, tail(&run.stderr))),
            want => {
                let n = want.strip_prefix("fail line ").ok_or_else(|| format!("expect says {want:?}"))?;
                let said = format!("{}{}", run.stdout, run.stderr);
                let clean = matches!(code, Some(c) if c != 0 && c != 101) && !said.contains("panicked");
                let named = said.contains(&format!(":{n}:")) || said.to_lowercase().contains(&format!("line {n}"));
                if clean && named {
                    Ok(())
                } else {
                    Err(format!("{}; want a clean failure naming line {n}: {}", run.status, tail(&run.stderr)))
                }
            }
        };
    }
    if code != Some(0) {
        return Err(format!("{}: {}", run.status, tail(&run.stderr)));
    }
    let mut expected: Vec<PathBuf> = fs::read_dir(case.join("expected"))
        .map_err(|e| format!("expected/: {e}"))?
        .map(|e| e.unwrap().path())
        .collect();
    expected.sort();
    if expected.is_empty() {
        return Err("expected/ is empty".into());
    }
    let mut problems = Vec::new();
    for want in &expected {
        let name = want.file_name().unwrap().to_string_lossy().into_owned();
        match fs::read(scratch.path().join("out").join(&name)) {
            Err(_) => problems.push(format!("{name} was not written")),
            Ok(got) => {
                let want = fs::read(want).unwrap();
                if got != want {
                    problems.push(format!("{name}: {}", difference(&want, &got)));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

#[test]
fn every_case_folder_writes_its_expected_files_byte_for_byte() {
    let cases = case_dirs();
    assert!(!cases.is_empty(), "no case folders under tests/cases: nothing would be checked");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            check_case(case).err().map(|why| format!("  {name}: {why}"))
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// Egaroucid's own empty book is not empty: it holds the initial position,
/// value 0, with a leaf on D3 (move 19) scoring 0. `empty.egbk3` is that book
/// written from SPEC §8, so the case keeps its meaning.
#[test]
fn the_empty_egaroucid_book_is_the_initial_position_alone() {
    let mut book = b"DICUORAGE".to_vec();
    book.push(3);
    book.extend_from_slice(&1i32.to_le_bytes());
    book.extend_from_slice(&0x0000_0008_1000_0000u64.to_le_bytes()); // player: D5, E4
    book.extend_from_slice(&0x0000_0010_0800_0000u64.to_le_bytes()); // opponent: D4, E5
    book.extend_from_slice(&[0, 0]); // value, level
    book.extend_from_slice(&0u32.to_le_bytes()); // n_lines
    book.extend_from_slice(&[0, 19, 0]); // leaf value, move (D3), level
    assert_eq!(fs::read(data("books/egbk3/empty.egbk3")).unwrap(), book);
}
