//! Two files of a run that are one file once written: compared where they
//! really land (a folder not made yet, a link, `..` after a missing
//! folder), not by their text. Each is refused with status 2, naming both,
//! before anything is made or written; the book read is left as it was.

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::common::{bin, edax46, names_in, run_in as run, sample, stderr};

/// A fresh folder holding a copy of the Edax 4.6 book as `in.dat`, and the
/// book's bytes.
fn folder_with_book() -> (tempfile::TempDir, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let bytes = fs::read(edax46()).unwrap();
    fs::write(dir.path().join("in.dat"), &bytes).unwrap();
    (dir, bytes)
}

/// Asserts a refusal: status 2, every one of `named` in the message.
fn refused(out: &Output, args: &[&str], named: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.lines().any(|l| l.starts_with("error: ")) && !err.contains("panicked"), "{args:?}: {err}");
    for name in named {
        assert!(err.contains(name), "{args:?}: the message names {name}: {err}");
    }
}

#[cfg(unix)]
fn symlink(target: &str, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// `fix in.dat $PWD/rc/fix.jsonl --out-dir rc` with no `rc` yet: the book
/// and the receipt are one file, though the two texts differ. It was
/// written, then the receipt over it, and the run said "fixed book written".
#[test]
fn fix_s_book_and_receipt_in_a_folder_not_made_yet_are_refused() {
    let (dir, _) = folder_with_book();
    let absolute = dir.path().join("rc/fix.jsonl").display().to_string();
    let args = ["fix", "in.dat", &absolute, "--out-dir", "rc"];
    let out = run(dir.path(), &args);
    refused(&out, &args, &[&absolute, "rc/fix.jsonl"]);
    assert_eq!(names_in(dir.path()), ["in.dat"], "no folder made, nothing written");
    // The other way round, and through `..` after a folder not made yet.
    let args = ["fix", "in.dat", "rc/fix.jsonl", "--out-dir", "new/../rc"];
    refused(&run(dir.path(), &args), &args, &["rc/fix.jsonl", "new/../rc/fix.jsonl"]);
    assert_eq!(names_in(dir.path()), ["in.dat"]);
}

/// `o/fix.jsonl` a link to `../f.dat`, not written yet: `fix BOOK f.dat
/// --out-dir o` left f.dat holding the receipt. A link as OUT to the
/// receipt's place is the same clash.
#[cfg(unix)]
#[test]
fn fix_s_book_and_receipt_through_a_dangling_link_are_refused() {
    let (dir, _) = folder_with_book();
    fs::create_dir(dir.path().join("o")).unwrap();
    symlink("../f.dat", &dir.path().join("o/fix.jsonl"));
    let args = ["fix", "in.dat", "f.dat", "--out-dir", "o"];
    refused(&run(dir.path(), &args), &args, &["f.dat", "o/fix.jsonl"]);
    assert_eq!(names_in(dir.path()), ["in.dat", "o"], "f.dat was not written");
    assert_eq!(names_in(&dir.path().join("o")), ["fix.jsonl"], "the link is kept");
    symlink("r/fix.jsonl", &dir.path().join("link.dat"));
    let args = ["fix", "in.dat", "link.dat", "--out-dir", "r"];
    refused(&run(dir.path(), &args), &args, &["link.dat", "r/fix.jsonl"]);
    assert!(!dir.path().join("r").exists(), "no folder made");
}

/// `m/mode2.txt` a link to `mode1.txt`: mining with every mode reported
/// mode 1's lines and left `m/mode1.txt` holding mode 2's. A mode's file
/// in another format is refused the same way.
#[cfg(unix)]
#[test]
fn mining_s_files_that_are_one_file_through_a_link_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let book = sample().display().to_string();
    fs::create_dir(dir.path().join("m")).unwrap();
    symlink("mode1.txt", &dir.path().join("m/mode2.txt"));
    let args = ["mine", &book, "--mode", "all", "--out-dir", "m"];
    refused(&run(dir.path(), &args), &args, &["m/mode1.txt", "m/mode2.txt"]);
    assert_eq!(names_in(&dir.path().join("m")), ["mode2.txt"], "nothing written");
    fs::create_dir(dir.path().join("j")).unwrap();
    symlink("mode1.txt", &dir.path().join("j/mode1.jsonl"));
    let args = ["mine", &book, "--format", "kifu,jsonl", "--out-dir", "j"];
    refused(&run(dir.path(), &args), &args, &["j/mode1.txt", "j/mode1.jsonl"]);
    assert_eq!(names_in(&dir.path().join("j")), ["mode1.jsonl"], "nothing written");
}

/// A mode's file that is the book being mined, by a link: the book was
/// replaced by the mode's lines.
#[cfg(unix)]
#[test]
fn a_mining_file_that_is_the_book_is_refused_and_the_book_kept() {
    let (dir, bytes) = folder_with_book();
    fs::create_dir(dir.path().join("o")).unwrap();
    symlink("../in.dat", &dir.path().join("o/mode1.txt"));
    let args = ["mine", "in.dat", "--out-dir", "o"];
    refused(&run(dir.path(), &args), &args, &["o/mode1.txt", "in.dat"]);
    assert_eq!(fs::read(dir.path().join("in.dat")).unwrap(), bytes, "the book is intact");
}

/// `--log-file $PWD/new/x.dat` with OUT `new/x.dat`, no `new` yet: one
/// file, two texts. So is a log file named as one of mining's files.
#[test]
fn a_log_file_that_is_an_output_in_a_folder_not_made_yet_is_refused() {
    let (dir, _) = folder_with_book();
    let log = dir.path().join("new/x.dat").display().to_string();
    for command in ["fix", "cut", "convert"] {
        let args = ["--out-dir", "r", command, "in.dat", "new/x.dat", "--log-file", &log];
        refused(&run(dir.path(), &args), &args, &[&log, "new/x.dat"]);
        assert_eq!(names_in(dir.path()), ["in.dat"], "{command}: no folder made, nothing written");
    }
    let book = sample().display().to_string();
    let args = ["mine", &book, "--out-dir", "o", "--log-file", "o/../o/mode1.txt"];
    refused(&run(dir.path(), &args), &args, &["o/../o/mode1.txt", "o/mode1.txt"]);
    assert_eq!(names_in(dir.path()), ["in.dat"]);
}

/// An output named through a folder not made yet and `..` back out of it
/// (`new/../in.dat`) is the book being read: the folder is made, and the
/// book written over.
#[test]
fn an_output_over_the_book_through_a_folder_not_made_yet_is_refused() {
    let (dir, bytes) = folder_with_book();
    let runs: [&[&str]; 4] = [
        &["fix", "in.dat", "new/../in.dat", "--out-dir", "r"],
        &["cut", "in.dat", "new/../in.dat"],
        &["convert", "in.dat", "new/../in.dat", "--to", "edax"],
        &["extend", "in.dat", "new/../in.dat", "--out-dir", "r", "--engine", "/bin/false"],
    ];
    for args in runs {
        refused(&run(dir.path(), args), args, &["new/../in.dat", "(in.dat)"]);
        assert_eq!(fs::read(dir.path().join("in.dat")).unwrap(), bytes, "{args:?}: the book is intact");
        assert_eq!(names_in(dir.path()), ["in.dat"], "{args:?}: no folder made");
    }
    // diff's lines over a book it reads, named so.
    fs::rename(dir.path().join("in.dat"), dir.path().join("diff.jsonl")).unwrap();
    let other = edax46().display().to_string();
    let args = ["diff", "diff.jsonl", &other, "--out-dir", "new/.."];
    refused(&run(dir.path(), &args), &args, &["new/../diff.jsonl", "(diff.jsonl)"]);
    assert_eq!(fs::read(dir.path().join("diff.jsonl")).unwrap(), bytes, "the book is intact");
    assert_eq!(names_in(dir.path()), ["diff.jsonl"]);
}

/// extend's OUT and journal in a folder not made yet, by two texts.
#[test]
fn extend_s_book_and_journal_in_a_folder_not_made_yet_are_refused() {
    let (dir, _) = folder_with_book();
    let absolute = dir.path().join("o/extend.jsonl").display().to_string();
    let args = ["extend", "in.dat", &absolute, "--out-dir", "o", "--engine", "/bin/false"];
    refused(&run(dir.path(), &args), &args, &[&absolute, "journal"]);
    assert_eq!(names_in(dir.path()), ["in.dat"], "no folder made, nothing written");
}

/// An output that is the config file, by any path: the config, read whole
/// before the run, was replaced by the book or the lines.
#[cfg(unix)]
#[test]
fn an_output_that_is_the_config_file_is_refused_and_the_config_kept() {
    let (dir, _) = folder_with_book();
    let settings = "mode = 1\n";
    fs::write(dir.path().join("config.toml"), settings).unwrap();
    let in_dir = |args: &[&str]| bin().current_dir(dir.path()).args(args).output().unwrap();
    // ./config.toml, read when no --config is given.
    let args = ["fix", "in.dat", "config.toml", "--out-dir", "r"];
    refused(&in_dir(&args), &args, &["config.toml: is the config file (config.toml)"]);
    let args = ["--config", "config.toml", "cut", "in.dat", "new/../config.toml"];
    refused(&in_dir(&args), &args, &["new/../config.toml", "(config.toml)"]);
    fs::create_dir(dir.path().join("o")).unwrap();
    symlink("../config.toml", &dir.path().join("o/mode1.txt"));
    let args = ["mine", "in.dat", "--out-dir", "o"];
    refused(&in_dir(&args), &args, &["o/mode1.txt", "(config.toml)"]);
    assert_eq!(fs::read_to_string(dir.path().join("config.toml")).unwrap(), settings, "the config is intact");
    assert_eq!(names_in(dir.path()), ["config.toml", "in.dat", "o"], "nothing else made");
}
