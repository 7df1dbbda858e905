//! The protocol an engine speaks: told from its answer to the greeting, or
//! named by the config (`engine_protocol`, or an engine table's own
//! `protocol`) or the flag `--engine-protocol`. Two engines built from
//! this repository speak them: the exact solver of `examples/solver.rs`
//! (Edax's console) and `examples/egaroucid_console.rs` (Egaroucid for
//! Console's, as measured on Egaroucid 7.8: passes, finished games, `hint`
//! rows, `[ERROR]` lines, and its endless complaint once its input ends).
//! Both solve every search exactly, so every book below must hold the
//! values the solver alone gives, whoever searched.
//!
//! Every run starts at [`near_end`], two plies below extend's [`crate::common::START`]:
//! 22 searches of 16 empty squares instead of 92 of 18, each protocol
//! still answering many (a tenth of the time; issue 63, point 7).

use crate::common::{
    assert_no_engine_left, bin, book, extend, near_end, run, solver, stderr, tagged_processes, RUN_TAG,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The Egaroucid console example, built by `cargo test` beside the binary.
fn egaroucid() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_bookminer"));
    let path = bin.parent().unwrap().join("examples/egaroucid_console");
    assert!(path.is_file(), "{} is missing: cargo test builds it (examples/egaroucid_console.rs)", path.display());
    path
}

fn egaroucid_text() -> String {
    egaroucid().display().to_string()
}

fn solver_text() -> String {
    solver().display().to_string()
}

/// `bookminer extend IN out.dat` from [`near_end`] in `dir`, with `extra`.
fn extend_near_end(dir: &Path, extra: &[&str]) -> Command {
    let start = near_end();
    let args: Vec<&str> = ["--start", start.as_str()].into_iter().chain(extra.iter().copied()).collect();
    extend(dir, &book(), "out.dat", &args)
}

/// `bookminer --config CONFIG extend IN out.dat` from [`near_end`], in `dir`,
/// its engine and protocol named by the config file alone.
fn extend_configured(dir: &Path, config: &str) -> Output {
    std::fs::write(dir.join("c.toml"), config).unwrap();
    let mut command: Command = bin();
    command.current_dir(dir).args(["--config", "c.toml", "extend"]).arg(book()).arg("out.dat");
    command.args(["--workers", "2", "--start", &near_end(), "--out-dir", "o", "--log-file", "o/log"]).env(RUN_TAG, dir);
    run(command)
}

/// The book the solver alone grows, once per test run.
fn grown_by_the_solver() -> Vec<u8> {
    static GROWN: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    GROWN
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let out = run(extend_near_end(dir.path(), &[]));
            assert!(out.status.success(), "{}", stderr(&out));
            std::fs::read(dir.path().join("out.dat")).unwrap()
        })
        .clone()
}

/// Each journal line's engine and protocol.
fn journal_engines(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("o/extend.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["engine"].as_str().unwrap().to_string(), v["protocol"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn egaroucid_told_from_its_greeting_grows_the_very_book_the_edax_solver_grows() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(extend_near_end(dir.path(), &["--engine", &egaroucid_text()]));
    assert!(out.status.success(), "{}", stderr(&out));
    // Ties go to the first square, as the solver's do: the same bytes.
    assert!(std::fs::read(dir.path().join("out.dat")).unwrap() == grown_by_the_solver(), "the same book");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("(egaroucid): 2 workers"), "{said}");
    let engines = journal_engines(dir.path());
    assert!(!engines.is_empty() && engines.iter().all(|(e, p)| *e == egaroucid_text() && p == "egaroucid"));
    assert_no_engine_left(dir.path());
    assert_eq!(tagged_processes(dir.path(), Some(&std::fs::canonicalize(egaroucid()).unwrap())), Vec::<u32>::new());
}

#[test]
fn naming_each_protocol_grows_the_very_book_and_a_wrong_name_is_refused_naming_both() {
    let expected = grown_by_the_solver();
    for (engine, protocol) in [(solver_text(), "edax"), (egaroucid_text(), "EGAROUCID")] {
        let dir = tempfile::tempdir().unwrap();
        let out = run(extend_near_end(dir.path(), &["--engine", &engine, "--engine-protocol", protocol]));
        assert!(out.status.success(), "{protocol}: {}", stderr(&out));
        assert!(std::fs::read(dir.path().join("out.dat")).unwrap() == expected, "{protocol}: the same book");
    }
    for config in [
        format!("engine = [{{ command = {:?}, protocol = \"egaroucid\" }}]\n", egaroucid_text()),
        format!("engine_protocol = \"EDAX\"\nengine = {:?}\n", solver_text()),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = extend_configured(dir.path(), &config);
        assert!(out.status.success(), "{config}: {}", stderr(&out));
        assert!(std::fs::read(dir.path().join("out.dat")).unwrap() == expected, "{config}: the same book");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = run(extend_near_end(dir.path(), &["--engine", &egaroucid_text(), "--engine-protocol", "edax"]));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("answers as egaroucid's console, not edax's"), "{err}");
    // What was appended to the command is said (issue 64, point 7).
    assert!(err.contains("with `-book-file "), "{err}");
    assert!(err.contains("` appended to its command"), "{err}");
    assert!(!dir.path().join("out.dat").exists(), "nothing written");
    assert_no_engine_left(dir.path());
}

#[test]
fn an_engine_that_speaks_no_protocol_is_refused_within_seconds_quoting_it() {
    let dir = tempfile::tempdir().unwrap();
    // It greets, then says nothing more, its output open, for ever.
    let chatty = "sh -c 'echo Welcome to the other game; exec sleep 1000' --";
    let began = Instant::now();
    let out = run(extend_near_end(dir.path(), &["--engine", chatty]));
    let took = began.elapsed();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("speaks no protocol bookminer knows (edax, egaroucid)"), "{err}");
    assert!(err.contains("Welcome to the other game"), "quoting what it printed: {err}");
    // The refusal comes 3 s after its first words (the greeting's wait for
    // a banner to be followed by an answer), far below engine_timeout.
    assert!(took < Duration::from_secs(20), "refused after {took:?}");
    assert!(!dir.path().join("out.dat").exists());
    assert_no_engine_left(dir.path());
}

#[test]
fn a_fleet_of_both_protocols_shares_a_run_and_the_journal_names_each_answers_engine() {
    let dir = tempfile::tempdir().unwrap();
    let fleet = ["--engine", &egaroucid_text(), "--engine", &solver_text()];
    let out = run(extend_near_end(dir.path(), &fleet));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(dir.path().join("out.dat")).unwrap() == grown_by_the_solver(), "the same book");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("(egaroucid): 2 workers") && said.contains("(edax): 2 workers"), "{said}");
    let engines = journal_engines(dir.path());
    for (engine, protocol) in [(egaroucid_text(), "egaroucid"), (solver_text(), "edax")] {
        assert!(engines.iter().any(|(e, p)| *e == engine && p == protocol), "{protocol} answered: {engines:?}");
    }
    assert!(engines.iter().all(|(e, p)| (e == &solver_text()) == (p == "edax")), "{engines:?}");
    assert_no_engine_left(dir.path());
}

#[test]
fn an_answer_is_taken_again_only_from_the_engine_and_protocol_that_gave_it() {
    let dir = tempfile::tempdir().unwrap();
    let with = |engine: &str, extra: &[&str]| {
        let mut args = vec!["--engine", engine, "--summary", "json", "--force"];
        args.extend_from_slice(extra);
        let out = run(extend_near_end(dir.path(), &args));
        assert!(out.status.success(), "{}", stderr(&out));
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (summary["searches"].as_u64().unwrap(), summary["searches_from_journal"].as_u64().unwrap())
    };
    let (searched, taken) = with(&solver_text(), &[]);
    assert!(searched > 0 && taken == 0);
    // Another protocol: nothing of the solver's is taken.
    assert_eq!(with(&egaroucid_text(), &[]), (searched, 0));
    // Each engine again: every answer its own.
    assert_eq!(with(&solver_text(), &[]), (0, searched));
    assert_eq!(with(&egaroucid_text(), &["--engine-protocol", "egaroucid"]), (0, searched));
    // A journal line without a protocol (written before there was a
    // choice) is Edax's.
    let journal = dir.path().join("o/extend.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let old: String = text
        .lines()
        .filter(|l| l.contains("\"protocol\":\"edax\""))
        .map(|l| format!("{}\n", l.replace(",\"protocol\":\"edax\"", "")))
        .collect();
    std::fs::write(&journal, old).unwrap();
    assert_eq!(with(&solver_text(), &[]), (0, searched));
}

#[test]
fn an_egaroucid_console_that_fails_is_restarted_then_retired_its_words_quoted() {
    for (fault, said) in [("error", "[ERROR] something went wrong"), ("fewer", "listed"), ("exit", "ended")] {
        let dir = tempfile::tempdir().unwrap();
        let mut command = extend_near_end(dir.path(), &["--engine", &egaroucid_text()]);
        command.env("EGAROUCID_FAULT", fault);
        let out = run(command);
        // Each process it starts fails its first search: restarted twice,
        // then retired, the run stops (exit 3) saying why, in its words.
        assert_eq!(out.status.code(), Some(3), "{fault}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(said) && err.contains("failed 3 times in a row"), "{fault}: {err}");
        assert!(!dir.path().join("out.dat").exists(), "{fault}");
        assert_no_engine_left(dir.path());
    }
}

#[test]
fn an_unknown_protocol_is_refused_naming_where_and_the_protocols_known() {
    for (config, key) in [
        (format!("engine = [{{ command = {:?}, protocol = \"uci\" }}]\n", solver_text()), "`engine`"),
        (format!("engine_protocol = \"uci\"\nengine = {:?}\n", solver_text()), "`engine_protocol`"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = extend_configured(dir.path(), &config);
        assert_eq!(out.status.code(), Some(2), "{config}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("c.toml") && err.contains(key) && err.contains("\"uci\""), "{config}: {err}");
        assert!(err.contains("allowed values: \"edax\", \"egaroucid\""), "{config}: {err}");
        assert!(!dir.path().join("out.dat").exists() && !dir.path().join("o").exists(), "{config}: nothing written");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = run(extend_near_end(dir.path(), &["--engine-protocol", "uci"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--engine-protocol") && err.contains("'uci'") && err.contains("egaroucid"), "{err}");
    assert!(!dir.path().join("out.dat").exists() && !dir.path().join("o").exists(), "nothing written");
}
