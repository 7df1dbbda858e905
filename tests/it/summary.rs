//! How runs end: `stats`' distributions counted again from the file's
//! bytes, `--summary json` on every command (one JSON object whose counts
//! are the ones the run wrote), `-q` (nothing on stdout or stderr but
//! warnings and errors), and the completion scripts and manual page.

use crate::common::{bin, book as endgames, commands, data, journal_of_the_initial_position, sample, solver, START};
use bookminer::book::Book;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::process::Output;

fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin().current_dir(dir).args(args).output().unwrap()
}

fn json_of(out: &Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The distributions `stats` counts, from an Edax book's bytes (SPEC §1):
/// by value, level and number of links, and the leaf (move not 65) minus
/// the best link for records with both.
fn distributions(bytes: &[u8]) -> [BTreeMap<i64, u64>; 4] {
    let mut counts: [BTreeMap<i64, u64>; 4] = Default::default();
    let mut at = 42;
    while at < bytes.len() {
        let value = i16::from_le_bytes([bytes[at + 32], bytes[at + 33]]);
        let (n_links, level) = (bytes[at + 38] as usize, bytes[at + 39]);
        let links: Vec<i64> = (0..n_links).map(|i| i64::from(bytes[at + 40 + 2 * i] as i8)).collect();
        let leaf_at = at + 40 + 2 * n_links;
        let (leaf_score, leaf_move) = (i64::from(bytes[leaf_at] as i8), bytes[leaf_at + 1]);
        *counts[0].entry(value.into()).or_default() += 1;
        *counts[1].entry(level.into()).or_default() += 1;
        *counts[2].entry(n_links as i64).or_default() += 1;
        if let (Some(best), true) = (links.iter().max(), leaf_move != 65) {
            *counts[3].entry(leaf_score - best).or_default() += 1;
        }
        at = leaf_at + 2;
    }
    counts
}

fn pairs(value: &Value) -> BTreeMap<i64, u64> {
    value.as_array().unwrap().iter().map(|p| (p[0].as_i64().unwrap(), p[1].as_u64().unwrap())).collect()
}

#[test]
fn stats_counts_values_levels_links_and_the_leaf_gap_as_the_file_holds_them() {
    let dir = tempfile::tempdir().unwrap();
    for book in [sample(), data("books/edax-ray-l1-mut1.dat"), data("books/edax46-l2-small.dat")] {
        let stats = json_of(&run_in(dir.path(), &["stats", book.to_str().unwrap(), "--summary", "json"]));
        let [values, levels, links, gaps] = distributions(&fs::read(&book).unwrap());
        assert_eq!(stats["command"], "stats");
        assert_eq!(pairs(&stats["by_value"]), values, "{}", book.display());
        assert_eq!(pairs(&stats["by_level"]), levels, "{}", book.display());
        assert_eq!(pairs(&stats["by_links"]), links, "{}", book.display());
        assert_eq!(pairs(&stats["by_leaf_gap"]), gaps, "{}", book.display());
        let above: u64 = gaps.range(1..).map(|(_, n)| n).sum();
        assert_eq!(stats["leaves_above_links"], above);
        // The text says the same.
        let out = run_in(dir.path(), &["stats", book.to_str().unwrap()]);
        let text = String::from_utf8(out.stdout).unwrap();
        let with_both: u64 = gaps.values().sum();
        assert!(
            text.contains(&format!("leaf minus best link, {with_both} positions with both: {above} above")),
            "{text}"
        );
        for heading in ["  value  positions", "  level  positions", "  links  positions"] {
            assert!(text.contains(heading), "{heading}: {text}");
        }
    }
}

#[test]
fn every_command_ends_with_one_json_object_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let book = sample();
    let book = book.to_str().unwrap();
    let games = data("games/WTH_1977.wtb");
    let games = games.to_str().unwrap();
    // The growth commands from four plies below extend's start on the
    // endgame book's line (two searches at most), with the solver; `new`
    // from a journal that already holds the initial position's search.
    let endgames = endgames();
    let endgames = endgames.to_str().unwrap();
    let start = format!("{START}d7d8g4d1");
    std::fs::write(d.join("line.txt"), format!("{start}\n")).unwrap();
    journal_of_the_initial_position(&d.join("new"), 10, "D3", 2);
    let solver = solver();
    let engine = ["--engine", solver.to_str().unwrap(), "--workers", "1"];
    let grown = |command: &'static str, extra: &[&str]| {
        let out = format!("{command}.dat");
        let mut args = vec![command.to_string(), endgames.to_string()];
        args.extend(extra.iter().map(|a| a.to_string()));
        args.extend([out, "--out-dir".into(), format!("o-{command}")]);
        args.extend(engine.iter().map(|a| a.to_string()));
        (command, args)
    };
    let mut cases: Vec<(&str, Vec<String>)> =
        vec![grown("fill", &["--max-seconds", "0"]), grown("merge", &[endgames]), grown("add", &["line.txt"])];
    for (command, extra) in [
        ("extend", &[][..]),
        ("play", &[]),
        ("deviate", &["--relative", "0", "--absolute", "0"]),
        ("enhance", &["--rounds", "1"]),
        ("grow", &["--max-seconds", "0"]),
        ("deepen", &["--level", "60"]),
    ] {
        cases.push(grown(command, &[extra, &["--start", &start]].concat()));
    }
    // learn and recalculate read an Egaroucid book: the endgame book as one.
    let converted = run_in(d, &["convert", endgames, "e.egbk3"]);
    assert!(converted.status.success(), "{}", String::from_utf8_lossy(&converted.stderr));
    for command in ["learn", "recalculate"] {
        let out = format!("{command}.egbk3");
        let mut args: Vec<String> = [command, "e.egbk3", &out, "--start", &start, "--max-positions", "1"]
            .iter()
            .map(|a| a.to_string())
            .collect();
        args.extend(["--out-dir".into(), format!("o-{command}")]);
        args.extend(engine.iter().map(|a| a.to_string()));
        cases.push((command, args));
    }
    let new = ["new", "new/n.dat", "--level", "10", "--depth", "20", "--out-dir", "new/o"];
    cases.push(("new", new.iter().chain(&engine).map(|a| a.to_string()).collect()));
    let plain: [(&str, Vec<&str>); 10] = [
        ("mine", vec!["mine", "--book", book, "--mode", "all", "--out-dir", "o"]),
        ("check", vec!["check", book, games, "--out-dir", "o", "--format", "kifu,obf", "--bom", "false"]),
        ("inspect", vec!["inspect", "--book", book, "F5D6"]),
        ("verify", vec!["verify", book]),
        ("stats", vec!["stats", book]),
        ("convert", vec!["convert", book, "c.egbk3"]),
        ("cut", vec!["cut", book, "c.dat", "--deviation", "1"]),
        ("fix", vec!["fix", book, "f.dat", "--out-dir", "o"]),
        ("diff", vec!["diff", book, "f.dat", "--out-dir", "o"]),
        ("synth", vec!["synth", "--positions", "50", "s.dat"]),
    ];
    cases.extend(plain.into_iter().map(|(c, args)| (c, args.into_iter().map(String::from).collect())));
    // Every command --help lists has its case, but the three that end with
    // no summary: what they print is the document asked for (below), or
    // they serve until stopped.
    let without = ["completions", "man", "serve"];
    let covered: BTreeSet<String> = cases.iter().map(|(c, _)| c.to_string()).chain(without.map(String::from)).collect();
    assert_eq!(covered, commands().into_iter().collect(), "a case for each command --help lists");
    let records = |path: &Path| Book::open(path, &Default::default()).unwrap().records().count() as u64;
    for (command, args) in cases {
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.extend(["--summary", "json"]);
        let summary = json_of(&run_in(d, &args));
        assert_eq!(summary["command"], command, "{summary}");
        match command {
            // The counts are the files': fix's receipt and diff's lines.
            "fix" => assert_eq!(summary["records_changed"], lines_in(&d.join("o/fix.jsonl"))),
            "diff" => assert_eq!(summary["lines"], lines_in(&d.join("o/diff.jsonl"))),
            "mine" => {
                for mode in summary["modes"].as_array().unwrap() {
                    let file = &mode["files"][0];
                    assert_eq!(file["lines"], lines_in(&d.join(file["path"].as_str().unwrap())), "{mode}");
                }
            }
            "inspect" => {
                let report = &summary["reports"][0];
                assert_eq!((&report["line"], &report["in_book"]), (&"F5D6".into(), &true.into()), "{summary}");
            }
            "check" => {
                assert_eq!(summary["games_read"], 12, "{summary}");
                for set in summary["sets"].as_array().unwrap() {
                    for file in set["files"].as_array().unwrap() {
                        assert_eq!(file["lines"], lines_in(&d.join(file["path"].as_str().unwrap())), "{set}");
                    }
                }
            }
            "verify" => assert_eq!(summary["records"], records(&sample())),
            "stats" => assert_eq!(summary["positions"], records(&sample())),
            "cut" => assert_eq!(summary["records_kept"], records(&d.join("c.dat"))),
            "synth" => assert_eq!(summary["positions"], records(&d.join("s.dat"))),
            // convert, and every command that grows a book: the records OUT holds.
            _ => {
                let output = d.join(summary["output"].as_str().unwrap());
                assert_eq!(summary["records_written"], records(&output), "{summary}");
            }
        }
    }
    for document in [&["completions", "bash"][..], &["man", "verify"]] {
        let args: Vec<&str> = document.iter().copied().chain(["--summary", "json"]).collect();
        let out = run_in(d, &args);
        assert!(out.status.success() && !out.stdout.is_empty(), "{document:?}");
        assert!(serde_json::from_slice::<Value>(&out.stdout).is_err(), "{document:?}: the document alone");
    }
}

fn lines_in(path: &Path) -> u64 {
    fs::read_to_string(path).unwrap().lines().count() as u64
}

/// `--summary json` is what a script asked for: `-q` silences the human
/// summary and the progress, not it. The README's own example,
/// `bookminer fix book.dat fixed.dat -q --summary json | jq .records_changed`,
/// printed nothing and exited 0.
#[test]
fn quiet_does_not_silence_a_json_summary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let book = sample();
    let book = book.to_str().unwrap();
    let games = data("games/WTH_1977.wtb");
    let games = games.to_str().unwrap();
    let cases: [(&str, Vec<&str>); 10] = [
        ("fix", vec!["fix", book, "fixed.dat", "-q", "--summary", "json"]),
        ("check", vec!["check", book, games, "--out-dir", "o", "-q", "--summary", "json"]),
        ("mine", vec!["-q", "mine", "--book", book, "--out-dir", "o", "--summary", "json"]),
        ("inspect", vec!["inspect", "--book", book, "F5D6", "-q", "--summary", "json"]),
        ("verify", vec!["verify", book, "-q", "--summary", "json"]),
        ("stats", vec!["stats", book, "-q", "--summary", "json"]),
        ("convert", vec!["convert", book, "c.egbk3", "-q", "--summary", "json"]),
        ("cut", vec!["cut", book, "c.dat", "-q", "--summary", "json"]),
        ("diff", vec!["diff", book, "fixed.dat", "--out-dir", "o", "-q", "--summary", "json"]),
        ("synth", vec!["synth", "--positions", "50", "s.dat", "-q", "--summary", "json"]),
    ];
    for (command, args) in cases {
        let out = run_in(d, &args);
        assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let summary = json_of(&out);
        assert_eq!(summary["command"], command, "{args:?}: {summary}");
    }
    let receipt = d.join("out/fix.jsonl");
    let summary = json_of(&run_in(d, &["fix", book, "fixed.dat", "--force", "-q", "--summary", "json"]));
    assert_eq!(summary["records_changed"], lines_in(&receipt), "{summary}");
}

#[test]
fn quiet_leaves_only_warnings_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let book = sample();
    let book = book.to_str().unwrap();
    for args in [
        vec!["-q", "fix", book, "f.dat", "--out-dir", "o"],
        vec!["diff", book, "f.dat", "--out-dir", "o", "--quiet"],
        vec!["stats", book, "-q"],
        vec!["-q", "mine", "--book", book, "--out-dir", "o"],
    ] {
        let out = run_in(dir.path(), &args);
        assert!(out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // The work is done all the same, and an error is still said.
    assert!(dir.path().join("o/diff.jsonl").is_file());
    let out = run_in(dir.path(), &["-q", "stats", "no-such-book.dat"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-book.dat"));
}

#[test]
fn completions_and_the_manual_page_name_every_command() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run_in(dir.path(), &["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for command in ["mine", "fix", "diff", "stats", "summary"] {
            assert!(script.contains(command), "{shell} completes {command}");
        }
    }
    let out = run_in(dir.path(), &["man"]);
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH bookminer 1"), "{page}");
    assert!(page.contains("diff") && page.contains("completions"), "{page}");
    // A config the run could not read does not stop them.
    fs::write(dir.path().join("config.toml"), "colour = 1").unwrap();
    assert!(run_in(dir.path(), &["man"]).status.success());
    assert_eq!(run_in(dir.path(), &["stats"]).status.code(), Some(2));
}
