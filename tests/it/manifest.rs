//! A mining run's files in out_dir are one set: the run records them in
//! `manifest.json` and replaces the previous run's set whole, removing only
//! what bookminer wrote and nobody has changed since.

use crate::common::{edax46, names_in, run_in as run, sample, stderr};
use std::fs;
use std::path::Path;

/// Mines `book` into `o` with `args` after it, and expects success.
fn mine(dir: &Path, book: &Path, args: &[&str]) -> String {
    let book = book.display().to_string();
    let mut all = vec!["--book", &book, "--out-dir", "o"];
    all.extend_from_slice(args);
    let out = run(dir, &all);
    assert!(out.status.success(), "{all:?}: {}", stderr(&out));
    stderr(&out)
}

/// Every file of modes 1-4 in the three formats.
fn all_files() -> Vec<String> {
    let mut names: Vec<String> =
        (1..=4).flat_map(|n| ["txt", "jsonl", "obf"].map(|ext| format!("mode{n}.{ext}"))).collect();
    names.push("manifest.json".into());
    names.sort();
    names
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(dir.join("o/manifest.json")).unwrap()).unwrap()
}

/// The names the manifest lists.
fn listed(dir: &Path) -> Vec<String> {
    let manifest = manifest(dir);
    manifest["files"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_run_replaces_the_previous_run_s_files_whole_and_leaves_the_user_s_alone() {
    let dir = tempfile::tempdir().unwrap();
    mine(dir.path(), &edax46(), &["--mode", "all", "--format", "kifu,jsonl,obf"]);
    assert_eq!(names_in(&dir.path().join("o")), all_files());
    let first = manifest(dir.path());
    assert_eq!(first["command"], "mine");
    assert_eq!(first["inputs"][0], edax46().display().to_string());
    assert_eq!(first["settings"]["modes"], serde_json::json!([1, 2, 3, 4]));
    assert_eq!(first["settings"]["formats"], serde_json::json!(["kifu", "jsonl", "obf"]));
    let mode3 = first["files"].as_array().unwrap().iter().find(|f| f["name"] == "mode3.txt").unwrap();
    let lines = fs::read_to_string(dir.path().join("o/mode3.txt")).unwrap().lines().count() as u64;
    assert_eq!(mode3["lines"].as_u64(), Some(lines));
    assert!(lines > 0);
    fs::write(dir.path().join("o/notes.txt"), "mine").unwrap();

    mine(dir.path(), &sample(), &["--mode", "1"]);
    assert_eq!(names_in(&dir.path().join("o")), ["manifest.json", "mode1.txt", "notes.txt"]);
    assert_eq!(listed(dir.path()), ["mode1.txt"]);
    assert_eq!(manifest(dir.path())["inputs"][0], sample().display().to_string());
    assert_eq!(fs::read_to_string(dir.path().join("o/notes.txt")).unwrap(), "mine");
}

#[test]
fn a_file_of_the_previous_run_changed_since_is_kept_and_the_log_says_why() {
    let dir = tempfile::tempdir().unwrap();
    mine(dir.path(), &edax46(), &["--mode", "all", "--format", "kifu,obf"]);
    fs::write(dir.path().join("o/mode3.obf"), "the user's own positions\n").unwrap();
    let said = mine(dir.path(), &sample(), &["--mode", "1"]);
    assert_eq!(names_in(&dir.path().join("o")), ["manifest.json", "mode1.txt", "mode3.obf"]);
    assert_eq!(fs::read_to_string(dir.path().join("o/mode3.obf")).unwrap(), "the user's own positions\n");
    assert!(said.contains("o/mode3.obf") && said.contains("kept") && said.contains("changed since"), "{said}");
    assert_eq!(listed(dir.path()), ["mode1.txt"]);
}

#[test]
fn a_manifest_that_does_not_read_is_named_and_removes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    mine(dir.path(), &edax46(), &["--mode", "all"]);
    for garbage in ["{not json", "{\"files\": 3}", "\u{0}\u{1}\u{2}", ""] {
        fs::write(dir.path().join("o/manifest.json"), garbage).unwrap();
        let said = mine(dir.path(), &sample(), &["--mode", "1"]);
        assert!(said.contains("o/manifest.json") && said.contains("ignored"), "{garbage:?}: {said}");
        let names = names_in(&dir.path().join("o"));
        assert_eq!(names, ["manifest.json", "mode1.txt", "mode2.txt", "mode3.txt", "mode4.txt"], "{garbage:?}");
        assert_eq!(listed(dir.path()), ["mode1.txt"], "a fresh manifest");
        // The next run knows only mode1.txt as its own: set the old one back.
        mine(dir.path(), &edax46(), &["--mode", "all"]);
    }
}

#[test]
fn an_edited_manifest_cannot_remove_a_file_bookminer_does_not_write_as_mining_output() {
    let dir = tempfile::tempdir().unwrap();
    mine(dir.path(), &edax46(), &["--mode", "all"]);
    // A name that is not a mining output, with its true size and time, and
    // a name outside out_dir.
    fs::write(dir.path().join("o/run.journal"), "precious").unwrap();
    fs::write(dir.path().join("keep.txt"), "precious").unwrap();
    let mut edited = manifest(dir.path());
    let template = edited["files"][0].clone();
    for (name, path) in [("run.journal", "o/run.journal"), ("../keep.txt", "keep.txt")] {
        let metadata = fs::metadata(dir.path().join(path)).unwrap();
        let nanos = metadata.modified().unwrap().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
        let mut file = template.clone();
        file["name"] = name.into();
        file["size"] = metadata.len().into();
        file["modified_ns"] = nanos.into();
        edited["files"].as_array_mut().unwrap().push(file);
    }
    fs::write(dir.path().join("o/manifest.json"), serde_json::to_vec(&edited).unwrap()).unwrap();
    let said = mine(dir.path(), &sample(), &["--mode", "1"]);
    assert_eq!(names_in(&dir.path().join("o")), ["manifest.json", "mode1.txt", "run.journal"]);
    assert_eq!(fs::read_to_string(dir.path().join("o/run.journal")).unwrap(), "precious");
    assert_eq!(fs::read_to_string(dir.path().join("keep.txt")).unwrap(), "precious");
    assert!(said.contains("run.journal") && said.contains("never writes"), "{said}");
}

#[test]
fn a_failed_run_removes_nothing_and_leaves_the_old_manifest() {
    let dir = tempfile::tempdir().unwrap();
    mine(dir.path(), &edax46(), &["--mode", "all", "--format", "kifu,jsonl"]);
    let before = fs::read(dir.path().join("o/manifest.json")).unwrap();
    // A folder in the way of the one file the next run writes.
    fs::remove_file(dir.path().join("o/mode2.jsonl")).unwrap();
    fs::create_dir(dir.path().join("o/mode2.jsonl")).unwrap();
    let book = sample().display().to_string();
    let out = run(dir.path(), &["--book", &book, "--out-dir", "o", "--mode", "2", "--format", "jsonl"]);
    assert!(!out.status.success(), "{}", stderr(&out));
    let mut expected = all_files();
    expected.retain(|n| !n.ends_with(".obf"));
    assert_eq!(names_in(&dir.path().join("o")), expected);
    assert_eq!(fs::read(dir.path().join("o/manifest.json")).unwrap(), before);
}

#[test]
fn a_run_into_one_file_writes_no_manifest_and_removes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    mine(dir.path(), &edax46(), &["--mode", "all"]);
    let before = fs::read(dir.path().join("o/manifest.json")).unwrap();
    mine(dir.path(), &sample(), &["--mode", "1", "-o", "o/one.txt"]);
    let names = names_in(&dir.path().join("o"));
    assert_eq!(names, ["manifest.json", "mode1.txt", "mode2.txt", "mode3.txt", "mode4.txt", "one.txt"]);
    assert_eq!(fs::read(dir.path().join("o/manifest.json")).unwrap(), before);
}

/// The manifest through a link onto one of the run's own files would
/// overwrite it: refused before anything is written, as two outputs on one
/// file are.
#[cfg(unix)]
#[test]
fn a_manifest_that_lands_on_another_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("o")).unwrap();
    std::os::unix::fs::symlink("mode1.txt", dir.path().join("o/manifest.json")).unwrap();
    let book = sample().display().to_string();
    let out = run(dir.path(), &["--book", &book, "--out-dir", "o"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("o/mode1.txt") && err.contains("o/manifest.json") && !err.contains("panicked"), "{err}");
    assert_eq!(names_in(&dir.path().join("o")), ["manifest.json"], "nothing written");
}

/// Issue 47 item 9: the manifest gives the window as JSON fields (it held
/// Rust's debug text, "Window { deviation: None, … }"), and the
/// orientation as the config key writes it.
#[test]
fn the_manifest_gives_the_window_and_orientation_as_the_config_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    mine(dir.path(), &edax46(), &["--mode", "1", "--deviation", "2", "--max-ply", "20"]);
    let settings = &manifest(dir.path())["settings"];
    assert_eq!(settings["window"], serde_json::json!({"deviation": 2, "error": null, "max_ply": 20}), "{settings}");
    assert_eq!(settings["orientation"], "f5", "{settings}");
}

/// Issue 47 item 9: the previous run's files removed, and those kept and
/// why, are said in the summary (they were said only in `info:` lines),
/// and with -q in the JSON summary a script asks for.
#[test]
fn the_summary_names_the_previous_run_s_files_removed_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    mine(dir.path(), &edax46(), &["--mode", "all", "--format", "kifu,obf"]);
    fs::write(dir.path().join("o/mode3.obf"), "the user's own positions\n").unwrap();
    let book = sample().display().to_string();
    let out = run(dir.path(), &["--book", &book, "--out-dir", "o", "--mode", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    let removed =
        ["mode1.obf", "mode2.txt", "mode2.obf", "mode3.txt", "mode4.txt", "mode4.obf"].map(|n| format!("o/{n}"));
    let line = said.lines().find(|l| l.starts_with("removed ")).unwrap_or_else(|| panic!("{said}"));
    assert_eq!(
        line,
        format!("removed            {} (the previous run's files, not written by this one)", removed.join(", "))
    );
    assert!(said.contains("kept               o/mode3.obf (the previous run's file: it changed since"), "{said}");

    mine(dir.path(), &edax46(), &["--mode", "all", "--format", "kifu,obf"]);
    let out = run(dir.path(), &["--book", &book, "--out-dir", "o", "--mode", "1", "-q", "--summary", "json"]);
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let removed: Vec<String> =
        (1..=4).flat_map(|n| ["txt", "obf"].map(|e| format!("o/mode{n}.{e}"))).filter(|p| p != "o/mode1.txt").collect();
    assert_eq!(summary["removed"], serde_json::json!(removed), "{summary}");
    assert_eq!(summary["kept"], serde_json::json!([]), "{summary}");
}

/// Issue 47 item 11: a run holds out_dir's lock before it removes anything
/// of the previous run's set, and a second run waits for it, never removing
/// files the first is still recording. The first run here is the test
/// itself, holding the folder's lock as a run does while it puts its set in
/// place: the run waits (listed waiting in /proc/locks, nothing of its set
/// in place), then, once the lock is let go, replaces the set whole.
#[cfg(target_os = "linux")]
#[test]
fn a_run_waits_for_another_that_holds_out_dir_before_it_replaces_the_set() {
    let dir = tempfile::tempdir().unwrap();
    mine(dir.path(), &edax46(), &["--mode", "all"]);
    let before = fs::read(dir.path().join("o/manifest.json")).unwrap();
    let folder = fs::File::open(dir.path().join("o")).unwrap();
    folder.lock().unwrap();
    let book = sample().display().to_string();
    let mut child = crate::common::bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "--book", &book, "--out-dir", "o", "--mode", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    crate::common::wait_until_it_waits_for_a_lock(&mut child, "the run");
    assert_eq!(fs::read(dir.path().join("o/manifest.json")).unwrap(), before, "nothing replaced while it waits");
    assert_eq!(names_in(&dir.path().join("o")), ["manifest.json", "mode1.txt", "mode2.txt", "mode3.txt", "mode4.txt"]);
    drop(folder);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("waiting for it to be done"), "{}", stderr(&out));
    assert_eq!(names_in(&dir.path().join("o")), ["manifest.json", "mode1.txt"], "the set replaced whole");
}
