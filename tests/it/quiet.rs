//! Read-only commands leave the disk as it was unless a log file is asked for;
//! `--format` and `--bom` reach the files.

use std::path::Path;
use std::process::{Command, Output};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bookminer")).current_dir(dir).args(args).output().expect("the binary runs")
}

fn sample() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("books/sample.dat").display().to_string()
}

#[test]
fn verify_stats_and_inspect_of_arguments_create_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let book = sample();
    for args in [vec!["verify", &book], vec!["stats", &book], vec!["inspect", "--book", &book, "F5"]] {
        let out = run(dir.path(), &args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{args:?} created files");
    }
    let out = run(dir.path(), &["stats", &book, "--log-file", "asked.log"]);
    assert!(out.status.success());
    assert!(dir.path().join("asked.log").is_file(), "a log file asked for is written");
}

#[test]
fn format_and_bom_flags_choose_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["--book", &sample(), "--format", "JSONL,kifu", "--bom", "false", "--out-dir", "o"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let kifu = std::fs::read(dir.path().join("o/mode1.txt")).unwrap();
    assert!(!kifu.starts_with(b"\xEF\xBB\xBF") && !kifu.is_empty());
    let jsonl = std::fs::read_to_string(dir.path().join("o/mode1.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), kifu.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count());
    assert!(!dir.path().join("o/mode1.obf").exists());
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("mode1.txt") && summary.contains("mode1.jsonl"), "{summary}");
    let out = run(dir.path(), &["--book", &sample(), "--format", "csv"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--format"));
}
