//! The binary as a user runs it: config files, overrides, the files it writes,
//! inspect, stats and the exit statuses.

use crate::common;

use common::{bin, edax46, pipe_nobody_reads, sample};
use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};

/// The books these tests read, both in the repository.
fn book(name: &str) -> String {
    match name {
        "sample" => sample(),
        "edax46" => edax46(),
        _ => panic!("no book {name}"),
    }
    .display()
    .to_string()
}

fn run(dir: &Path, args: &[&str]) -> Output {
    bin().current_dir(dir).args(args).output().expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn mode_all_writes_four_files_with_a_bom_and_prints_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["--book", &book("sample"), "--mode", "all", "--out-dir", "o", "--log-file", "o/log"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for n in 1..=4 {
        let path = dir.path().join(format!("o/mode{n}.txt"));
        let bytes = fs::read(&path).unwrap();
        assert!(bytes.starts_with(b"\xEF\xBB\xBF"), "{} has a BOM", path.display());
        assert!(bytes.len() > 3, "{} has lines", path.display());
    }
    let summary = text(&out.stdout);
    for word in ["positions loaded", "edges followed", "arrivals", "mode 4", "elapsed"] {
        assert!(summary.contains(word), "summary lacks {word}: {summary}");
    }
    let log = fs::read(dir.path().join("o/log")).unwrap();
    assert!(log.starts_with(b"\xEF\xBB\xBF"), "the log file starts with a BOM");
}

#[test]
fn command_line_flags_override_the_config_file_and_paths_follow_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let conf_dir = dir.path().join("conf");
    fs::create_dir(&conf_dir).unwrap();
    fs::write(conf_dir.join("c.toml"), format!("book = {:?}\nMODE = 2\nout_dir = \"res\"\n", book("edax46"))).unwrap();
    let out = run(dir.path(), &["--config", "conf/c.toml", "--mode", "3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(conf_dir.join("res/mode3.txt").is_file(), "out_dir is relative to the config file's folder");
    assert!(!conf_dir.join("res/mode2.txt").exists(), "--mode overrides the file");
}

#[test]
fn a_config_that_is_no_regular_file_leaves_the_default_paths_in_the_working_directory() {
    // `--config /dev/null` means "no config": fix's receipt goes to ./out,
    // not to /dev/out.
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["--config", "/dev/null", "fix", &book("edax46"), "fixed.dat"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.path().join("out/fix.jsonl").is_file(), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("out/fix.jsonl") && !text(&out.stdout).contains("/dev/"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn bad_config_values_name_the_key_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("config.toml"), "mode = \"seven\"\n").unwrap();
    let out = run(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("config.toml") && err.contains("`mode`") && err.contains("\"all\""), "{err}");
    let out = run(dir.path(), &["--config", "missing.toml"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
}

#[test]
fn a_start_line_not_in_the_book_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["--book", &book("edax46"), "--start", "f5d6c3d3c4f4f6f3e6e7", "--out-dir", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("F5D6C3D3C4F4F6F3E6E7"), "{}", text(&out.stderr));
    let out = run(dir.path(), &["--book", &book("edax46"), "--start", "f5f5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("illegal"), "{}", text(&out.stderr));
}

/// Issue 40 item 8: a start line that leaves the book says the first move
/// after which it does, and what the book holds at the last position in it
/// (links and leaf, in the line's coordinates), for mining and `cut` alike.
#[test]
fn a_start_line_that_leaves_the_book_says_where_and_what_the_book_holds_there() {
    let dir = tempfile::tempdir().unwrap();
    let lines = |text: &[&str]| -> Vec<Vec<bookminer::board::Move>> {
        text.iter().map(|t| bookminer::kifu::parse_moves(t).unwrap()).collect()
    };
    let entries = common::book_from_lines(&lines(&["F5D6C3D3C4", "F5F6E6F4"]));
    let path = dir.path().join("lines.dat");
    fs::write(&path, bookminer::format::edax::entries::encode(&entries, 1)).unwrap();
    let path = path.to_str().unwrap();
    for args in [
        vec!["mine", path, "--start", "f5d6c4d3", "--out-dir", "o"],
        vec!["cut", path, "cut.dat", "--start", "f5d6c4d3"],
    ] {
        let out = run(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let said = text(&out.stderr);
        assert!(
            said.contains("is not in the book: the line leaves the book at move 3, C4; after \"F5D6\" the book holds the link C3 +0 and no leaf"),
            "{args:?}: {said}"
        );
    }
    // Out at the last move: the position before it is a leaf position.
    let out = run(dir.path(), &["mine", path, "--start", "f5d6c3d3c4f4", "--out-dir", "o"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(
            "the line leaves the book at move 6, F4; after \"F5D6C3D3C4\" the book holds no link and the leaf "
        ),
        "{}",
        text(&out.stderr)
    );
}

/// Issue 40 item 6: `inspect` reads what mining writes: each line of mode
/// N's OBF, JSONL and kifu files is a position (the same one for the same
/// line), and a board starting with `-` is a position, not a flag.
#[test]
fn inspect_reads_the_lines_mining_writes_and_a_board_starting_with_a_dash() {
    let dir = tempfile::tempdir().unwrap();
    let mined =
        run(dir.path(), &["mine", &book("sample"), "--mode", "3", "--format", "kifu,jsonl,obf", "--out-dir", "o"]);
    assert!(mined.status.success(), "{}", text(&mined.stderr));
    let (obf, obf_failed) = inspected(dir.path(), "o/mode3.obf");
    let (jsonl, jsonl_failed) = inspected(dir.path(), "o/mode3.jsonl");
    let (kifu, kifu_failed) = inspected(dir.path(), "o/mode3.txt");
    let lines = fs::read_to_string(dir.path().join("o/mode3.obf")).unwrap().lines().count();
    assert!(obf.len() > 10, "{obf:?}");
    assert_eq!(obf.len(), lines, "every line a position, in the book or not");
    let (obf, jsonl, kifu) = (same_position(&obf), same_position(&jsonl), same_position(&kifu));
    assert!(obf == jsonl && obf_failed == jsonl_failed, "the OBF and JSONL lines are the same positions");
    assert!(obf == kifu && obf_failed == kifu_failed, "and the kifu lines too");

    let first = fs::read_to_string(dir.path().join("o/mode3.obf")).unwrap().lines().next().unwrap().to_string();
    assert!(first.starts_with('-'), "the test needs an OBF board starting with -: {first}");
    for args in
        [vec!["inspect", &book("sample"), &first, "-q"], vec!["inspect", "--book", &book("sample"), "-q", &first]]
    {
        let out = run(dir.path(), &args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stdout).starts_with(&format!("argument 1 {first}\n")), "as written: {}", text(&out.stdout));
        assert!(text(&out.stdout).contains("in book: yes"), "{}", text(&out.stdout));
    }
}

/// `inspect BOOK -f FILE --summary json -q` in `dir`: each position's
/// report (those the book lacks too) and how many failed.
fn inspected(dir: &Path, file: &str) -> (Vec<serde_json::Value>, u64) {
    let out = run(dir, &["inspect", &book("sample"), "-f", file, "--summary", "json", "-q"]);
    let said = text(&out.stderr);
    assert!(!said.contains("is not a position"), "{file}: {said}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (summary["reports"].as_array().unwrap().clone(), summary["failed"].as_u64().unwrap())
}

/// The fields of reports that say which position they are and what the
/// book holds there, without where the position was written.
fn same_position(reports: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let keys = ["judged", "board", "side", "in_book", "record", "value", "lower", "upper", "level", "links", "leaf"];
    reports.iter().map(|r| keys.iter().map(|k| r[*k].clone()).collect()).collect()
}

/// Issue 47 item 2: every line of every file a mode writes is reported, at
/// the position the mode judged: the position before the last move for a
/// line to one of its moves (mode 1's leaf, moves above the expected
/// score), saying so, and in fields under --summary json. The mode's JSONL
/// says independently what it judged there: its target, and the judged
/// position's V, L and F.
#[test]
fn inspect_reports_every_line_of_every_mode_where_the_mode_judged_it() {
    let dir = tempfile::tempdir().unwrap();
    let mined = run(
        dir.path(),
        &["mine", &book("sample"), "--mode", "all", "--format", "kifu,jsonl,obf", "--out-dir", "o", "--bom", "false"],
    );
    assert!(mined.status.success(), "{}", text(&mined.stderr));
    let mut targets = std::collections::BTreeSet::new();
    for mode in 1..=4 {
        let records: Vec<serde_json::Value> = fs::read_to_string(dir.path().join(format!("o/mode{mode}.jsonl")))
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert!(!records.is_empty(), "the sample book gives every mode lines");
        let (reports, failed) = inspected(dir.path(), &format!("o/mode{mode}.jsonl"));
        assert_eq!((reports.len(), failed), (records.len(), 0), "mode {mode}: every line reported");
        for (record, report) in records.iter().zip(&reports) {
            let target = record["target"].as_str().unwrap();
            targets.insert((mode, target.to_string()));
            let judged = &report["judged"];
            assert_eq!(judged["mode"], mode, "{report}");
            match target {
                "move" => {
                    assert_eq!(judged["at"], "before_last_move", "{record}\n{report}");
                    assert_eq!(judged["last_move"], record["move"], "{record}\n{report}");
                }
                _ => {
                    assert_eq!(judged["at"], "line_end", "{record}\n{report}");
                    assert_eq!((&report["board"], &report["side"]), (&record["board"], &record["side"]));
                }
            }
            let links: Vec<i64> =
                report["links"].as_array().unwrap().iter().map(|l| l["score"].as_i64().unwrap()).collect();
            let best_link = links.iter().max().map_or(serde_json::Value::Null, |&l| l.into());
            assert_eq!(
                (&report["value"], &best_link, &report["leaf"]["score"]),
                (&record["v"], &record["l"], &record["f"]),
                "the judged position's V, L, F\n{record}\n{report}"
            );
            let line = report["line"].as_str().unwrap().replace("PS", "");
            assert!(record["kifu"].as_str().unwrap().starts_with(&line), "{record}\n{report}");
        }
        let expected = same_position(&reports);
        for format in ["obf", "txt"] {
            let (others, failed) = inspected(dir.path(), &format!("o/mode{mode}.{format}"));
            assert_eq!(failed, 0, "mode{mode}.{format}");
            assert!(same_position(&others) == expected, "mode{mode}.{format}: the positions the JSONL names");
        }
    }
    assert!(targets.contains(&(3, "move".into())) && targets.contains(&(3, "child".into())), "{targets:?}");
    let out = run(dir.path(), &["inspect", &book("sample"), "-f", "o/mode1.obf"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("mode 1 judged the position before the line's last move ")
            && text(&out.stdout).contains(" (its leaf): shown below\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn inspect_reports_positions_and_fails_on_missing_ones_after_all_lines() {
    let dir = tempfile::tempdir().unwrap();
    let l1 = book("edax46");
    let out = run(
        dir.path(),
        &["inspect", "--book", &l1, "--log-file", "log", "F5F6", "0x0000000810000000 0x0000001008000000"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("in book: yes") && report.contains("byte offset ") && report.contains("leaf"), "{report}");
    let log = text(&fs::read(dir.path().join("log")).unwrap());
    assert!(log.contains("in book: yes"), "the report is also in the log");

    fs::write(dir.path().join("p.txt"), "# comment\nF5Z9\nF5F6\n0x1 0x1\n").unwrap();
    let out = run(dir.path(), &["inspect", "--book", &l1, "--file", "p.txt"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("p.txt:2:") && err.contains("p.txt:4:"), "{err}");
    assert!(text(&out.stdout).contains("p.txt:3"), "good lines are still reported");
}

#[test]
fn verify_and_stats_describe_a_good_book() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["verify", &book("edax46")]);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("7814 positions, no problems"));
    let out = run(dir.path(), &["stats", &book("edax46")]);
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert!(s.contains("positions  7814") && s.contains("version 4.6"), "{s}");
    // The book may be named as mining names it, by --book or in the config.
    let named = run(dir.path(), &["stats", "--book", &book("edax46")]);
    assert!(named.status.success(), "{}", text(&named.stderr));
    assert_eq!(text(&named.stdout), s);
    fs::write(dir.path().join("c.toml"), format!("book = {:?}\n", book("edax46"))).unwrap();
    let configured = run(dir.path(), &["verify", "--config", "c.toml"]);
    assert!(text(&configured.stdout).contains("7814 positions, no problems"), "{}", text(&configured.stderr));
}

#[test]
fn help_lists_the_commands_and_exit_statuses() {
    let out = run(Path::new("."), &["--help"]);
    // Words, wherever the help's lines are wrapped.
    let help = text(&out.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    for word in ["mine", "inspect", "verify", "stats", "--config", "--min-gap", "130 interrupted"] {
        assert!(help.contains(word), "--help lacks {word}");
    }
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    // The reader is gone before the binary starts, so its first write to
    // stdout meets the closed pipe whatever the scheduling (`| head` that
    // has already exited).
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "--book", &book("sample"), "--log-file", "log", "inspect", "F5F6"])
        .stdout(pipe_nobody_reads(dir.path()))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("error"), "{stderr}");
    assert!(out.status.success(), "status {:?}: {stderr}", out.status);
    let log = text(&fs::read(dir.path().join("log")).unwrap());
    assert!(log.contains("positions loaded"), "the run got as far as the report: {log}");
}

#[test]
fn a_closed_stderr_does_not_turn_errors_into_panics() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bad.toml"), "mode = 9\n").unwrap();
    for (args, expected) in [
        (vec!["--config", "bad.toml"], 2),
        (vec!["--config", "/dev/null", "--book", "missing.dat", "--log-file", "log"], 3),
    ] {
        // Closed before the binary starts, as for stdout above.
        let stderr = pipe_nobody_reads(dir.path());
        let status = bin().current_dir(dir.path()).args(&args).stdout(Stdio::null()).stderr(stderr).status().unwrap();
        fs::remove_file(dir.path().join("closed-pipe")).unwrap();
        assert_eq!(status.code(), Some(expected), "{args:?}");
    }
}

#[test]
fn synth_writes_either_book_format_and_both_verify_and_mine() {
    // The same seed gives the same positions, values and leaves in either
    // format; an Egaroucid book's links are worked out, not stored.
    let dir = tempfile::tempdir().unwrap();
    for (format, name) in [("edax", "b.dat"), ("EGBK3", "b.egbk3"), ("egbk2", "b.egbk2"), ("egbk", "b.egbk")] {
        let out = run(dir.path(), &["synth", "--book-format", format, "--positions", "400", "--seed", "9", name]);
        assert!(out.status.success(), "synth {format}: {}", text(&out.stderr));
        let out = run(dir.path(), &["verify", name]);
        assert!(out.status.success(), "verify {name}: {}{}", text(&out.stdout), text(&out.stderr));
    }
    assert!(fs::read(dir.path().join("b.egbk3")).unwrap().starts_with(b"DICUORAGE\x03"));
    assert!(fs::read(dir.path().join("b.egbk2")).unwrap().starts_with(b"DICUORAGE\x02"));
    assert_eq!(fs::read(dir.path().join("b.egbk")).unwrap().len(), 4 + 17 * 400);
    for name in ["b.dat", "b.egbk3"] {
        let out_dir = format!("out-{name}");
        let out = run(
            dir.path(),
            &["--config", "/dev/null", "--book", name, "--mode", "1", "--out-dir", &out_dir, "--log-file", "log"],
        );
        assert!(out.status.success(), "mine {name}: {}", text(&out.stderr));
    }
    let lines = |name: &str| {
        fs::read_to_string(dir.path().join(format!("out-{name}")).join("mode1.txt")).unwrap().lines().count()
    };
    assert!(lines("b.dat") > 10 && lines("b.egbk3") > 10, "mode 1 finds leaves above links in both");
}

/// `mine -o -` (or `--stdout`) for scripts, as `diff -o -`: one mode's lines
/// in one format on standard output, byte for byte what the file would
/// hold (repeats dropped the same way), the summary on standard error, and
/// nothing in out_dir; `-o FILE` writes that file instead. With several
/// modes or formats there is no one file: refused, status 2.
#[test]
fn mine_dash_o_dash_writes_one_mode_s_lines_on_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    // A book where every mode drops repeated lines.
    let book = common::data("books/edax-ray-l1-mut1.dat").display().to_string();
    let ran = |args: &[&str]| {
        let out = run(dir.path(), &[&["--config", "/dev/null"][..], args].concat());
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        out
    };
    for (mode, format, extension) in [("1", "kifu", "txt"), ("2", "jsonl", "jsonl"), ("4", "obf", "obf")] {
        for unique in ["true", "false"] {
            let shared = ["--mode", mode, "--format", format, "--unique-lines", unique];
            let file = format!("out/mode{mode}.{extension}");
            let summary =
                text(&ran(&[&["mine", &book, "--out-dir", "out", "--summary", "json"][..], &shared].concat()).stdout);
            let expected = fs::read(dir.path().join(&file)).unwrap();
            assert!(!expected.is_empty(), "{file}");
            if unique == "true" {
                assert!(!summary.contains("\"duplicates_dropped\":0"), "mode {mode} drops repeats: {summary}");
            }
            for (i, stdout) in [&["-o", "-"][..], &["--stdout"]].into_iter().enumerate() {
                // As the command, and before it with no command.
                let args = match i {
                    0 => [&["mine", &book, "--out-dir", "none"][..], stdout, &shared].concat(),
                    _ => [&["--book", &book, "--out-dir", "none"][..], stdout, &shared].concat(),
                };
                let out = ran(&args);
                assert!(out.stdout == expected, "{args:?}: the lines, byte for byte as {file}");
                let stderr = text(&out.stderr);
                assert!(stderr.contains("written to standard output"), "{args:?}: the summary: {stderr}");
                assert!(!dir.path().join("none").exists(), "{args:?}: nothing in out_dir");
            }
            let named = format!("named/{mode}-{unique}.{extension}");
            let out = ran(&[&["mine", &book, "--out-dir", "none", "-o", &named][..], &shared].concat());
            assert_eq!(fs::read(dir.path().join(&named)).unwrap(), expected, "-o {named}");
            assert!(text(&out.stdout).contains(&format!("written to {named}")), "{}", text(&out.stdout));
            assert!(!dir.path().join("none").exists(), "-o {named}: nothing in out_dir");
        }
    }
    // Several modes or formats: no one file to write.
    let refused: [&[&str]; 4] = [
        &["mine", &book, "--mode", "all", "-o", "-"],
        &["mine", &book, "--mode", "1", "--format", "kifu,jsonl", "--stdout"],
        &["--book", &book, "--mode", "all", "--stdout"],
        &["mine", &book, "--mode", "all", "-o", "lines.txt"],
    ];
    for args in refused {
        let out = run(dir.path(), &[&["--config", "/dev/null", "--out-dir", "refused"][..], args].concat());
        let message = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {message}");
        assert!(message.contains("one mode in one format") && message.contains("--mode"), "{args:?}: {message}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!dir.path().join("refused").exists() && !dir.path().join("lines.txt").exists(), "{args:?}");
    }
    // -o over the book is refused as out_dir over it is.
    fs::copy(&book, dir.path().join("in.dat")).unwrap();
    let out = run(dir.path(), &["--config", "/dev/null", "mine", "in.dat", "--mode", "1", "-o", "./in.dat"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(fs::read(dir.path().join("in.dat")).unwrap(), fs::read(&book).unwrap());
    // A reader that stops reading (`| head`) is no failure.
    let closed = pipe_nobody_reads(dir.path());
    let status = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "mine", &book, "--mode", "1", "-o", "-"])
        .stdout(closed)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

/// Without --book-format, synth writes the format OUT's name says (Edax's
/// for a name that says none); with it, a name that says another format is
/// refused as the other writers refuse one: status 2, nothing written.
#[test]
fn synth_writes_the_format_out_s_name_says_and_refuses_a_name_for_another() {
    use bookminer::book::Format;
    let dir = tempfile::tempdir().unwrap();
    let synth = |extra: &[&str], name: &str| {
        let args = [&["synth", "--positions", "300", "--seed", "4"][..], extra, &[name]].concat();
        let out = run(dir.path(), &args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        fs::read(dir.path().join(name)).unwrap()
    };
    for (name, format) in [("n.dat", "edax"), ("n.EGBK3", "egbk3"), ("n.egbk2", "egbk2"), ("n.egbk", "egbk")] {
        let by_name = synth(&[], name);
        let asked = synth(&["--book-format", format], &format!("{format}.bin"));
        assert!(by_name == asked, "{name}: the format the name says, as --book-format {format} writes it");
        assert_eq!(Format::of(&by_name), Format::named_by(Path::new(name)).unwrap(), "{name}");
    }
    // A name that says no format needs --book-format, as convert's needs --to (issue 47 item 8).
    let out = run(dir.path(), &["synth", "--positions", "10", "plain.bin"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("plain.bin: cannot tell the format") && text(&out.stderr).contains("--book-format")
    );
    assert!(!dir.path().join("plain.bin").exists());
    for (format, name) in [("edax", "r.egbk3"), ("egbk3", "r.dat"), ("egbk2", "r.egbk")] {
        let out = run(dir.path(), &["synth", "--positions", "10", "--book-format", format, name]);
        let message = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{format} {name}: {message}");
        assert!(message.contains(name) && message.contains("the name says"), "{message}");
        assert!(message.contains("leave out --book-format"), "{message}");
        assert!(!dir.path().join(name).exists(), "{name}");
    }
}

/// Every enumerated setting's values are found by their names, in any case,
/// and no two values share a name.
#[test]
fn every_choice_is_found_by_its_name() {
    use bookminer::choice::Choice;
    use bookminer::convert::OutFormat;
    use bookminer::output::Orientation;
    use bookminer::rules::modes::Linkless;

    fn names_are_distinct_and_found<T: Choice + PartialEq + std::fmt::Debug>() {
        for &value in T::ALL {
            assert_eq!(T::named(value.name()), Some(value));
            assert_eq!(T::named(&value.name().to_ascii_uppercase()), Some(value));
            assert_eq!(T::ALL.iter().filter(|v| v.name() == value.name()).count(), 1);
            assert_eq!(value.name(), value.name().to_ascii_lowercase());
        }
        assert_eq!(T::named("no such value"), None);
    }

    names_are_distinct_and_found::<Orientation>();
    names_are_distinct_and_found::<Linkless>();
    names_are_distinct_and_found::<OutFormat>();
    names_are_distinct_and_found::<bookminer::book::Format>();
}

/// Issue 40 item 10: OUT named for a format bookminer reads but does not
/// write is refused saying so, and naming the formats it writes.
#[test]
fn convert_to_a_format_only_read_says_so_and_names_the_formats_written() {
    let dir = tempfile::tempdir().unwrap();
    for extra in [&[][..], &["--to", "egbk3"][..]] {
        let out = bin()
            .current_dir(dir.path())
            .args(["--config", "/dev/null", "convert", &book("sample"), "book.egbk2"])
            .args(extra)
            .output()
            .unwrap();
        let message = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{message}");
        assert!(message.contains(".egbk2") && message.contains("but does not write"), "{extra:?}: {message}");
        assert!(message.contains(".dat") && message.contains(".egbk3"), "the formats written: {message}");
        assert!(!message.contains("give --to the format the name says"), "{message}");
        assert!(!dir.path().join("book.egbk2").exists());
    }
}

/// Issue 40 item 10: a mistyped config key gets the key meant, not every key.
#[test]
fn a_config_typo_gets_did_you_mean_and_not_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    fs::write(&config, "devation = 2\n").unwrap();
    let out =
        bin().current_dir(dir.path()).arg("--config").arg(&config).arg("stats").arg(book("sample")).output().unwrap();
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("did you mean `deviation`?"), "{message}");
    assert!(!message.contains("known keys") && !message.contains("min_gap"), "not every key: {message}");
    fs::write(&config, "colour = 1\n").unwrap();
    let out =
        bin().current_dir(dir.path()).arg("--config").arg(&config).arg("stats").arg(book("sample")).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("known keys: book,"), "no key near: every key");
}

/// Issue 40 item 10: fix's log says in plain words what records "set aside"
/// are (the sample book has one).
#[test]
fn fix_says_plainly_what_records_kept_in_full_are() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "fix", &book("sample"), "fixed.dat", "-v"])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains(
            "1 of them with counts or bounds too large to pack into 8 bytes, so kept in full: the result is the same"
        ),
        "{log}"
    );
    assert!(!log.contains("kept aside"), "{log}");
}

/// Issue 47 item 7: a book given as the command (`bookminer book.dat`)
/// gets a tip naming `mine`; a word that is no file gets clap's answer
/// alone.
#[test]
fn a_file_given_as_the_command_is_told_to_mine() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(book("edax46"), dir.path().join("book.dat")).unwrap();
    let out = run(dir.path(), &["book.dat"]);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("unrecognized subcommand 'book.dat'"), "{said}");
    assert!(
        said.contains("tip: 'book.dat' is a file, not a command: to mine it, run `bookminer mine book.dat`"),
        "{said}"
    );
    let out = run(dir.path(), &["nosuch.dat"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!text(&out.stderr).contains("tip: 'nosuch.dat'"), "{}", text(&out.stderr));
}

/// Issue 47 item 7: `inspect` finds its book among its arguments wherever
/// it is (`inspect F5D6 book.dat` said "no book given"); the positions keep
/// their order, numbered without the book; two books are refused.
#[test]
fn inspect_finds_its_book_among_its_arguments_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    let book = book("edax46");
    for args in [["F5", &book, "F5D6"], [&book, "F5", "F5D6"], ["F5", "F5D6", &book]] {
        let out = run(dir.path(), &[&["inspect", "-q"][..], &args].concat());
        let said = text(&out.stdout);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let first = said.lines().filter(|l| l.starts_with("argument ")).collect::<Vec<_>>();
        assert_eq!(first, ["argument 1 F5", "argument 2 F5D6"], "{args:?}");
        assert_eq!(said.matches("in book: yes").count(), 2, "{args:?}: {said}");
    }
    let out = run(dir.path(), &["inspect", "F5", &book, &book]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("both books"), "{}", text(&out.stderr));
}

/// Issue 47 item 7: `mine --help` offers the modes mine runs, not mode 5,
/// which it refuses (that is `inspect`); with no command, mode 5 is
/// inspect and is offered.
#[test]
fn mine_offers_only_the_modes_it_runs() {
    let help = |args: &[&str]| text(&run(Path::new("."), args).stdout);
    let mine = help(&["mine", "--help"]);
    assert!(mine.contains("[possible values: 1, 2, 3, 4, all]") && !mine.contains("5 inspect"), "{mine}");
    let top = help(&["--help"]);
    assert!(top.contains("[possible values: 1, 2, 3, 4, 5, all]"), "{top}");
    let out = run(Path::new("."), &["mine", &book("edax46"), "--mode", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("mode 5 is `bookminer inspect`"), "{}", text(&out.stderr));
}

/// Issue 47 item 7: standard error shows warnings and errors; what a run
/// did (`info:`) goes to the log file, and to stderr only when -v asks.
#[test]
fn stderr_shows_warnings_and_errors_unless_v_asks_for_more() {
    let dir = tempfile::tempdir().unwrap();
    let edax46 = book("edax46");
    let mine = |extra: &[&str]| {
        fs::create_dir_all(dir.path().join("o")).unwrap();
        // A manifest that does not read: a warning.
        fs::write(dir.path().join("o/manifest.json"), "not json").unwrap();
        let args = [&["mine", &edax46, "--out-dir", "o", "--log-file", "o/log"][..], extra].concat();
        let out = run(dir.path(), &args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (text(&out.stderr), text(&fs::read(dir.path().join("o/log")).unwrap()))
    };
    let (said, log) = mine(&[]);
    assert!(said.contains("warn: ") && said.contains("manifest.json") && said.contains("ignored"), "{said}");
    assert!(!said.contains("info: "), "{said}");
    assert!(log.contains("positions loaded in"), "the log file still gets info: {log}");
    let (said, _) = mine(&["-v"]);
    assert!(said.contains("warn: ") && said.contains("info: ") && said.contains("positions loaded in"), "{said}");
    let out = run(dir.path(), &["mine", &book("edax46"), "--out-dir", "o", "-q", "-v"]);
    assert_eq!(out.status.code(), Some(2), "-q and -v ask for opposites");
}
