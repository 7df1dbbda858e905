//! Nothing a user named is replaced unasked (issue 47): a file already
//! where a command would write its OUT (or `-o FILE`) is refused before
//! any work, naming what it holds, and replaced only with `--force` (or
//! `force = true`).

use crate::common::{bin, book as extend_book, edax46, names_in, run_in as run, solver, stderr, START};
use std::fs;
use std::process::Output;

/// The Edax 4.6 book's header count, as the refusal says it.
const HOLDS: &str = "(an Edax book of 7,814 positions); --force replaces it";

/// An engine that leaves `started` behind when it is started, then is the solver.
fn marking_engine() -> String {
    format!("sh -c 'touch started; exec \"$0\" \"$@\"' {}", solver().display())
}

/// Each command that writes a file the command line names, writing `old.dat`
/// (or `old.txt`, `old.jsonl` for mining's and diff's `-o`).
fn commands(engine: &str) -> Vec<(&'static str, Vec<String>)> {
    let extend_book = extend_book().display().to_string();
    let engine_flags = |book: &str, command: &str| {
        let budget = ["--max-positions", "2", "--workers", "1", "--engine", engine, "--out-dir", "o"];
        [command, book, "old.dat", "--start", START].iter().chain(&budget).map(|a| a.to_string()).collect::<Vec<_>>()
    };
    let owned = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    vec![
        ("old.dat", owned(&["convert", "in.dat", "old.dat"])),
        ("old.dat", owned(&["cut", "in.dat", "old.dat", "--deviation", "2"])),
        ("old.dat", owned(&["fix", "in.dat", "old.dat", "--out-dir", "o"])),
        ("old.dat", owned(&["synth", "--positions", "100", "old.dat"])),
        ("old.dat", owned(&["merge", "in.dat", "in.dat", "old.dat", "--out-dir", "o"])),
        ("old.txt", owned(&["mine", "in.dat", "-o", "old.txt", "--out-dir", "o"])),
        ("old.jsonl", owned(&["diff", "in.dat", "in.dat", "-o", "old.jsonl", "--out-dir", "o"])),
        ("old.dat", engine_flags(&extend_book, "extend")),
        ("old.dat", engine_flags(&extend_book, "grow")),
        ("old.dat", [engine_flags(&extend_book, "deepen"), owned(&["--level", "20"])].concat()),
    ]
}

fn arguments(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn an_existing_out_is_refused_before_any_work_naming_what_it_holds_and_force_replaces_it() {
    let engine = marking_engine();
    for (name, args) in commands(&engine) {
        let dir = tempfile::tempdir().unwrap();
        let book = fs::read(edax46()).unwrap();
        fs::write(dir.path().join("in.dat"), &book).unwrap();
        fs::write(dir.path().join(name), &book).unwrap();
        let out = run(dir.path(), &arguments(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(&format!("{name} exists {HOLDS}")), "{args:?}: {}", stderr(&out));
        assert_eq!(fs::read(dir.path().join(name)).unwrap(), book, "{args:?}: the file is as it was");
        assert_eq!(names_in(dir.path()), sorted(&["in.dat", name]), "{args:?}: nothing made, no engine started");
        let mut forced = args.clone();
        forced.push("--force".into());
        let out = run(dir.path(), &arguments(&forced));
        assert!(out.status.success(), "{forced:?}: {}", stderr(&out));
        assert_ne!(fs::read(dir.path().join(name)).unwrap(), book, "{forced:?}: replaced");
    }
}

fn sorted<'a>(names: &[&'a str]) -> Vec<&'a str> {
    let mut names = names.to_vec();
    names.sort();
    names
}

#[test]
fn what_an_existing_out_holds_is_said_in_words_and_the_config_key_forces_too() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(edax46(), dir.path().join("in.dat")).unwrap();
    let said = |out: &Output| stderr(out).lines().last().unwrap_or_default().to_string();
    fs::write(dir.path().join("notes.dat"), "my notes\n").unwrap();
    let out = run(dir.path(), &["fix", "in.dat", "notes.dat"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(said(&out), "error: notes.dat exists (a text file of 9 bytes); --force replaces it");
    fs::write(dir.path().join("empty.dat"), "").unwrap();
    let out = run(dir.path(), &["convert", "in.dat", "empty.dat"]);
    assert_eq!(said(&out), "error: empty.dat exists (an empty file); --force replaces it");
    fs::write(dir.path().join("bytes.bin"), [0u8, 1, 2, 255]).unwrap();
    let out = run(dir.path(), &["cut", "in.dat", "bytes.bin"]);
    assert_eq!(said(&out), "error: bytes.bin exists (a file of 4 bytes, no book); --force replaces it");
    let egbk3 = crate::common::data("books/egbk3/edax46-l2-small.egbk3");
    fs::copy(&egbk3, dir.path().join("b.egbk3")).unwrap();
    let out = run(dir.path(), &["convert", "in.dat", "b.egbk3"]);
    assert!(said(&out).starts_with("error: b.egbk3 exists (an Egaroucid .egbk3 book of "), "{}", said(&out));
    // `force = true` in the config file is --force.
    fs::write(dir.path().join("c.toml"), "force = true\n").unwrap();
    let out =
        bin().current_dir(dir.path()).args(["--config", "c.toml", "fix", "in.dat", "notes.dat"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // --force=false overrides the file.
    fs::write(dir.path().join("notes.dat"), "my notes\n").unwrap();
    let args = ["--config", "c.toml", "fix", "in.dat", "notes.dat", "--force=false"];
    let out = bin().current_dir(dir.path()).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(dir.path().join("notes.dat")).unwrap(), "my notes\n");
}

/// The files of out_dir are bookminer's own: a run replaces the previous
/// run's, as it always has (README, one run, one set of files).
#[test]
fn a_rerun_replaces_its_own_out_dir_files_without_force() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(edax46(), dir.path().join("in.dat")).unwrap();
    for args in [
        &["mine", "in.dat", "--mode", "all", "--out-dir", "o"][..],
        &["mine", "in.dat", "--mode", "all", "--out-dir", "o"],
        &["fix", "in.dat", "f1.dat", "--out-dir", "o"],
        &["fix", "in.dat", "f2.dat", "--out-dir", "o"],
        &["diff", "in.dat", "f1.dat", "--out-dir", "o"],
        &["diff", "in.dat", "f2.dat", "--out-dir", "o"],
    ] {
        let out = run(dir.path(), args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let names = names_in(&dir.path().join("o"));
    assert_eq!(names, ["diff.jsonl", "fix.jsonl", "manifest.json", "mode1.txt", "mode2.txt", "mode3.txt", "mode4.txt"]);
}

/// A journal of two answers, as extend writes it.
const JOURNAL: &str = concat!(
    r#"{"board":"---------------------------OX------XO---------------------------","side":"X","level":1,"excluded":[],"move":"F5","score":0,"engine":"e","seconds":0.1}"#,
    "\n",
    r#"{"board":"---------------------------OX------XO---------------------------","side":"X","level":2,"excluded":[],"move":"D3","score":0,"engine":"e","seconds":0.1}"#,
    "\n"
);

/// Issue 47 item 10: the journal's lock kept out only extend, grow and
/// merge with an engine; `fix IN o/extend.jsonl` replaced it with a book,
/// `stats --log-file o/extend.jsonl` cut it into a log. Every file a run
/// writes (OUT, receipt, log, mining's files) is refused when it is a
/// journal, whatever the command, --force included.
#[test]
fn a_journal_is_never_written_over_by_any_command_force_or_not() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(edax46(), dir.path().join("in.dat")).unwrap();
    fs::create_dir(dir.path().join("o")).unwrap();
    let journal = dir.path().join("o/extend.jsonl");
    fs::write(&journal, JOURNAL).unwrap();
    // Named for a book too: the OUT of a book writer.
    fs::write(dir.path().join("o/answers.dat"), JOURNAL).unwrap();
    let runs: [&[&str]; 9] = [
        &["fix", "in.dat", "o/answers.dat"],
        &["fix", "in.dat", "o/answers.dat", "--force"],
        &["convert", "in.dat", "o/extend.jsonl", "--to", "edax", "--force"],
        &["stats", "in.dat", "--log-file", "o/extend.jsonl"],
        &["verify", "in.dat", "--log-file", "o/extend.jsonl"],
        &["merge", "in.dat", "in.dat", "m.dat", "--log-file", "o/extend.jsonl"],
        &["mine", "in.dat", "-o", "o/extend.jsonl", "--force"],
        &["diff", "in.dat", "in.dat", "-o", "o/extend.jsonl", "--force"],
        &["fix", "in.dat", "f.dat", "--out-dir", "r", "--log-file", "o/extend.jsonl"],
    ];
    for args in runs {
        let out = run(dir.path(), args);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {message}");
        assert!(message.contains("is extend's journal") && message.contains("--force included"), "{args:?}: {message}");
        assert_eq!(fs::read_to_string(&journal).unwrap(), JOURNAL, "{args:?}: the journal is intact");
        assert_eq!(fs::read_to_string(dir.path().join("o/answers.dat")).unwrap(), JOURNAL, "{args:?}");
        assert_eq!(names_in(dir.path()), ["in.dat", "o"], "{args:?}: nothing written");
    }
}

/// Issue 47 item 10: a file another live run holds (a journal just made,
/// still empty, locked by its run) is refused as any file a run writes,
/// naming the run that holds it. The lock is the test's own, taken as a
/// run takes its journal's.
#[test]
fn a_file_another_live_run_holds_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(edax46(), dir.path().join("in.dat")).unwrap();
    let held = dir.path().join("held.dat");
    let file = fs::File::create(&held).unwrap();
    file.try_lock().unwrap();
    let holder = format!("held by another run (process {})", std::process::id());
    for args in [
        &["stats", "in.dat", "--log-file", "held.dat"][..],
        &["fix", "in.dat", "held.dat", "--force"],
        &["cut", "in.dat", "c.dat", "--log-file", "held.dat"],
    ] {
        let out = run(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(&holder), "{args:?}: {}", stderr(&out));
        assert_eq!(fs::read(&held).unwrap(), b"", "{args:?}: untouched");
    }
    drop(file);
    let out = run(dir.path(), &["stats", "in.dat", "--log-file", "held.dat"]);
    assert!(out.status.success(), "free once its run ends: {}", stderr(&out));
}

/// Issue 64, point 9: `fix out.dat b.dat` (the book read missing, the
/// book to be written there) is said to be the arguments swapped, as
/// `add` and `check` say it, not met with --force; an existing IN and OUT
/// are still met with --force.
#[test]
fn a_missing_in_and_a_book_as_out_are_said_to_be_swapped_arguments() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(extend_book(), dir.path().join("b.dat")).unwrap();
    for args in [
        &["fix", "out.dat", "b.dat"][..],
        &["cut", "out.dat", "b.dat", "--deviation", "2"],
        &["convert", "out.dat", "b.dat"],
    ] {
        let out = run(dir.path(), args);
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        assert!(
            said.contains("out.dat: no such file, and b.dat, the book to be written, is an Edax book"),
            "{args:?}: {said}"
        );
        assert!(said.contains("the arguments are swapped") && !said.contains("--force"), "{args:?}: {said}");
    }
    fs::copy(extend_book(), dir.path().join("out.dat")).unwrap();
    let out = run(dir.path(), &["fix", "out.dat", "b.dat"]);
    assert!(
        stderr(&out).contains("b.dat exists (an Edax book of 188 positions); --force replaces it"),
        "{}",
        stderr(&out)
    );
}
