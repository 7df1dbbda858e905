//! Hostile paths around the files a command writes: a log file that is an
//! input or an output, outputs that are devices or links, signals that end
//! a run. No path a command reads may ever be opened for writing, and no run
//! may leave a file the user did not ask for.

use std::fs;
use std::path::Path;

use crate::common::{bin, edax46, names_in, run_in as run, sample, stderr};

/// A copy of the Edax 4.6 book in `dir` as `in.dat`, and its bytes.
fn book_in(dir: &Path) -> Vec<u8> {
    let bytes = fs::read(edax46()).unwrap();
    fs::write(dir.join("in.dat"), &bytes).unwrap();
    bytes
}

#[cfg(unix)]
#[test]
fn a_log_file_that_is_an_input_by_any_path_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = book_in(dir.path());
    fs::hard_link(dir.path().join("in.dat"), dir.path().join("hard.dat")).unwrap();
    std::os::unix::fs::symlink("in.dat", dir.path().join("soft.dat")).unwrap();
    for log in ["in.dat", "./in.dat", "hard.dat", "soft.dat"] {
        for command in [&["fix", "in.dat", "o.dat"][..], &["convert", "in.dat", "o.egbk3"], &["cut", "in.dat", "o.dat"]]
        {
            let mut args = command.to_vec();
            args.extend(["--log-file", log]);
            let out = run(dir.path(), &args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(
                stderr(&out).contains("the log file is in.dat, which this command reads"),
                "{args:?}: {}",
                stderr(&out)
            );
            assert_eq!(fs::read(dir.path().join("in.dat")).unwrap(), bytes, "{args:?}: the book is intact");
        }
        let out = run(dir.path(), &["--book", "in.dat", "--log-file", log, "--out-dir", "o"]);
        assert_eq!(out.status.code(), Some(2), "mine --log-file {log}: {}", stderr(&out));
        let out = run(dir.path(), &["verify", "in.dat", "--log-file", log]);
        assert_eq!(out.status.code(), Some(2), "verify --log-file {log}: {}", stderr(&out));
        assert_eq!(fs::read(dir.path().join("in.dat")).unwrap(), bytes, "{log}: the book is intact");
    }
    // The config file and a positions file are inputs too.
    fs::write(dir.path().join("c.toml"), "mode = 1\n").unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["--config", "c.toml", "--log-file", "c.toml", "verify", "in.dat"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(dir.path().join("c.toml")).unwrap(), "mode = 1\n");
    fs::write(dir.path().join("p.txt"), "F5\n").unwrap();
    let out = run(dir.path(), &["--book", "in.dat", "--log-file", "p.txt", "inspect", "--file", "p.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(dir.path().join("p.txt")).unwrap(), "F5\n");
}

#[test]
fn a_log_file_that_is_an_output_is_refused_and_the_previous_output_kept() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bad.dat"), b"XADEKOOB not a book").unwrap();
    fs::write(dir.path().join("o.dat"), b"previous").unwrap();
    for input in ["bad.dat", "missing.dat"] {
        for command in ["fix", "convert", "cut"] {
            let out = run(dir.path(), &[command, input, "o.dat", "--log-file", "./o.dat"]);
            assert_eq!(out.status.code(), Some(2), "{command} {input}: {}", stderr(&out));
            assert!(stderr(&out).contains("which this command writes"), "{}", stderr(&out));
            assert_eq!(fs::read(dir.path().join("o.dat")).unwrap(), b"previous", "{command} {input}");
        }
    }
    let out = run(dir.path(), &["--out-dir", "r", "fix", "bad.dat", "o.dat", "--log-file", "r/fix.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// A run that fails at once writes nothing; the log file comes only when
/// asked for, and only once the inputs are good.
#[test]
fn no_file_is_written_that_was_not_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let book = sample().display().to_string();
    for args in [
        &["--book", "missing.dat", "--log-file", "l/run.log"][..],
        &["fix", "missing.dat", "o.dat", "--log-file", "run.log"],
    ] {
        let out = run(dir.path(), args);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        assert!(names_in(dir.path()).is_empty(), "{args:?} left {:?}", names_in(dir.path()));
    }
    // Mining writes its outputs, and no log unless asked for.
    let out = run(dir.path(), &["--book", &book, "--out-dir", "o"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(names_in(&dir.path().join("o")), ["manifest.json", "mode1.txt"]);
    assert_eq!(names_in(dir.path()), ["o"]);
    let out = run(dir.path(), &["--book", &book, "--out-dir", "o", "--log-file", "l/run.log"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let log = fs::read_to_string(dir.path().join("l/run.log")).unwrap();
    assert!(log.starts_with('\u{feff}') && log.contains("positions loaded"), "{log}");
}

/// An output that is a device, a FIFO or a socket is refused with status 2
/// and left as it is: renaming over it would replace it with a file.
#[cfg(unix)]
#[test]
fn an_output_that_is_no_regular_file_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    book_in(dir.path());
    assert!(std::process::Command::new("mkfifo").arg(dir.path().join("fifo.dat")).status().unwrap().success());
    let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("socket.dat")).unwrap();
    fs::create_dir(dir.path().join("o")).unwrap();
    std::os::unix::fs::symlink("/dev/null", dir.path().join("o/mode1.txt")).unwrap();
    let book = dir.path().join("in.dat").display().to_string();
    let runs: [&[&str]; 8] = [
        &["convert", "in.dat", "/dev/null", "--to", "edax"],
        &["cut", "in.dat", "/dev/null"],
        &["fix", "in.dat", "/dev/null"],
        &["synth", "--positions", "10", "/dev/null"],
        &["convert", "in.dat", "fifo.dat"],
        &["fix", "in.dat", "socket.dat"],
        &["synth", "--positions", "10", "fifo.dat"],
        &["--book", &book, "--out-dir", "o"],
    ];
    for args in runs {
        let out = run(dir.path(), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    assert!(fs::symlink_metadata(dir.path().join("fifo.dat")).unwrap().file_type().is_fifo());
    assert!(fs::symlink_metadata(dir.path().join("socket.dat")).unwrap().file_type().is_socket());
    assert!(names_in(dir.path()).iter().all(|n| !n.ends_with(".tmp")), "{:?}", names_in(dir.path()));
}

/// An output name that is a symbolic link is written through: the file it
/// leads to is replaced, in its own folder, and the link is kept.
#[cfg(unix)]
#[test]
fn an_output_that_is_a_symbolic_link_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    book_in(dir.path());
    fs::create_dir(dir.path().join("real")).unwrap();
    fs::write(dir.path().join("real/book.dat"), b"previous").unwrap();
    std::os::unix::fs::symlink("real/book.dat", dir.path().join("link.dat")).unwrap();
    // A link to a missing file is written through as well.
    std::os::unix::fs::symlink("real/new.dat", dir.path().join("dangling.dat")).unwrap();
    for out_name in ["link.dat", "dangling.dat"] {
        let out = run(dir.path(), &["cut", "in.dat", out_name, "--force"]);
        assert!(out.status.success(), "{out_name}: {}", stderr(&out));
        assert!(fs::symlink_metadata(dir.path().join(out_name)).unwrap().file_type().is_symlink(), "{out_name}");
    }
    assert!(run(dir.path(), &["cut", "in.dat", "plain.dat"]).status.success());
    let written = fs::read(dir.path().join("real/book.dat")).unwrap();
    assert_eq!(written, fs::read(dir.path().join("plain.dat")).unwrap(), "the linked file was replaced");
    assert_eq!(fs::read(dir.path().join("real/new.dat")).unwrap(), written);
    assert_eq!(names_in(&dir.path().join("real")), ["book.dat", "new.dat"]);
}

/// SIGTERM and SIGHUP at any moment of a `fix`, 20 runs each, sent after
/// delays spread over the run (as long as a whole run took, so that no
/// delay is spent after the run has ended): whatever moment the signal
/// lands, the run ends with 130 (or 0 if it was done, or by the signal
/// itself if it came before the run began), OUT is whole or as it was, and
/// no temporary file is left.
#[cfg(unix)]
#[test]
fn sigterm_and_sighup_at_any_moment_leave_out_whole_or_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let options = bookminer::synth::SynthOptions { positions: 50_000, seed: 4, perturb: 0.02 };
    fs::write(dir.path().join("in.dat"), bookminer::synth::book_bytes(&options)).unwrap();
    let began = std::time::Instant::now();
    let fixed = {
        let out = run(dir.path(), &["--out-dir", "r", "fix", "in.dat", "whole.dat"]);
        assert!(out.status.success(), "{}", stderr(&out));
        fs::read(dir.path().join("whole.dat")).unwrap()
    };
    // The delays' step: a whole run over the 20 runs.
    let step = began.elapsed() / 20;
    for signal in ["TERM", "HUP"] {
        for run_number in 0..20u32 {
            fs::write(dir.path().join("o.dat"), b"previous").unwrap();
            let child = bin()
                .current_dir(dir.path())
                .args(["--config", "/dev/null", "--out-dir", "r", "fix", "in.dat", "o.dat", "--force"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            std::thread::sleep(step * run_number);
            // The run may be over already: then kill finds no process.
            let _ = std::process::Command::new("kill").args([format!("-{signal}"), child.id().to_string()]).status();
            let out = child.wait_with_output().unwrap();
            let what = format!("SIG{signal} after {:?}: {}", step * run_number, stderr(&out));
            let now = fs::read(dir.path().join("o.dat")).unwrap();
            use std::os::unix::process::ExitStatusExt;
            match out.status.code() {
                Some(130) => assert_eq!(now, b"previous", "{what}"),
                // Sent before the command set its handler (while the
                // arguments are read): nothing had been written yet.
                None if out.status.signal().is_some() => assert_eq!(now, b"previous", "{what}"),
                Some(0) => assert!(now == fixed, "{what}: OUT is whole"),
                other => panic!("{what}: status {other:?}"),
            }
            let left: Vec<String> = names_in(dir.path()).into_iter().filter(|n| n.ends_with(".tmp")).collect();
            assert!(left.is_empty(), "{what}: {left:?}");
            assert!(names_in(&dir.path().join("r")).iter().all(|n| !n.ends_with(".tmp")), "{what}");
        }
    }
}

/// A write past the file size limit (`ulimit -f`) fails like a full disk:
/// status 3, nothing left (SIGXFSZ would otherwise end the process and
/// leave the temporary file).
#[cfg(unix)]
#[test]
fn the_file_size_limit_fails_the_write_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    book_in(dir.path());
    let bin = env!("CARGO_BIN_EXE_bookminer");
    for command in
        ["fix in.dat out/o.dat", "convert in.dat out/o.egbk3", "cut in.dat out/o.dat", "merge in.dat in.dat out/o.dat"]
    {
        let script = format!("ulimit -f 100; exec {bin} --config /dev/null --out-dir out {command}");
        let out = std::process::Command::new("bash").current_dir(dir.path()).args(["-c", &script]).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{command}: {err}");
        assert!(err.contains("File too large") && err.contains("error: out/o."), "{command}: {err}");
        let left = if dir.path().join("out").exists() { names_in(&dir.path().join("out")) } else { Vec::new() };
        assert!(left.is_empty(), "{command}: {left:?}");
    }
}

/// synth past the file size limit names the book it was writing (its
/// temporary files, beside it, fill first), not only their folder; status
/// 3, nothing left.
#[cfg(unix)]
#[test]
fn synth_past_the_file_size_limit_names_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_bookminer");
    for name in ["out/s.dat", "s.egbk3"] {
        let script = format!("ulimit -f 100; exec {bin} --config /dev/null synth --positions 10000 {name}");
        let out = std::process::Command::new("bash").current_dir(dir.path()).args(["-c", &script]).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{name}: {err}");
        assert!(err.contains(&format!("error: {name}: ")) && err.contains("File too large"), "{name}: {err}");
        assert!(err.contains("temporary files"), "{name}: {err}");
        assert!(!dir.path().join(name).exists(), "{name}");
    }
    assert!(names_in(&dir.path().join("out")).is_empty());
    assert_eq!(names_in(dir.path()), ["out"]);
}

/// A loop of symbolic links where an output goes is reported against that
/// output, not the book read, and says it is a loop of links; as OUT's
/// folder too (not the system's "File exists"). Status 3, the book intact.
#[cfg(unix)]
#[test]
fn a_symbolic_link_loop_at_an_output_is_named_as_that_output() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = book_in(dir.path());
    std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
    // A book's OUT is named for its format (issue 47 item 8).
    std::os::unix::fs::symlink("loop.dat", dir.path().join("loop.dat")).unwrap();
    let runs: [(&[&str], &str); 11] = [
        (&["fix", "in.dat", "loop.dat"], "loop.dat"),
        (&["convert", "in.dat", "loop", "--to", "edax"], "loop"),
        (&["cut", "in.dat", "loop.dat"], "loop.dat"),
        (&["synth", "--positions", "10", "loop.dat"], "loop.dat"),
        (&["diff", "in.dat", "in.dat", "-o", "loop"], "loop"),
        (&["fix", "in.dat", "loop/f.dat"], "loop"),
        (&["cut", "in.dat", "loop/c.dat"], "loop"),
        (&["synth", "--positions", "10", "loop/s.dat"], "loop"),
        (&["fix", "in.dat", "f.dat", "--out-dir", "loop"], "loop"),
        (&["diff", "in.dat", "in.dat", "--out-dir", "loop"], "loop"),
        (&["--book", "in.dat", "--out-dir", "loop"], "loop"),
    ];
    for (args, named) in runs {
        let out = run(dir.path(), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        let said = err.lines().find(|l| l.starts_with("error: ")).unwrap_or_else(|| panic!("{args:?}: {err}"));
        assert!(said.starts_with(&format!("error: {named}")), "{args:?}: names the output: {said}");
        assert!(!said.contains("in.dat"), "{args:?}: not the book read: {said}");
        assert!(said.to_lowercase().contains("levels of symbolic links"), "{args:?}: {said}");
        assert_eq!(fs::read(dir.path().join("in.dat")).unwrap(), bytes, "{args:?}");
    }
}

/// The small ones: what fix says of an .egbk2's OUT, OUT's missing folder,
/// a long OUT name, a summary that cannot be printed.
#[test]
fn fix_of_an_egbk2_does_not_say_out_has_in_s_size() {
    let dir = tempfile::tempdir().unwrap();
    let input = crate::common::data("books/egbk3/edax46-l2-small.egbk2").display().to_string();
    let out = run(dir.path(), &["--out-dir", "r", "fix", &input, "f.egbk3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("f.egbk3 (the records of") && summary.contains("as an .egbk3)"), "{summary}");
    assert!(!summary.contains("the size of"), "{summary}");
}

#[test]
fn every_command_that_writes_a_book_makes_out_s_missing_folder() {
    let dir = tempfile::tempdir().unwrap();
    book_in(dir.path());
    for (command, out_name) in [("fix", "a/b/f.dat"), ("convert", "c/d/c.egbk3"), ("cut", "e/f/c.dat")] {
        let out = run(dir.path(), &["--out-dir", "r", command, "in.dat", out_name]);
        assert!(out.status.success(), "{command}: {}", stderr(&out));
        assert!(dir.path().join(out_name).is_file(), "{command}");
    }
}

#[test]
fn an_out_name_of_255_bytes_is_written() {
    let dir = tempfile::tempdir().unwrap();
    book_in(dir.path());
    for len in [244, 255] {
        let name = format!("{}.dat", "x".repeat(len - 4));
        let out = run(dir.path(), &["cut", "in.dat", &name]);
        assert!(out.status.success(), "{len} bytes: {}", stderr(&out));
        assert!(dir.path().join(&name).is_file());
    }
}

/// Standard output failing after OUT was replaced: status 3, and the
/// message says OUT was written and only the summary was lost.
#[cfg(target_os = "linux")]
#[test]
fn a_summary_that_cannot_be_printed_says_out_was_written() {
    let dir = tempfile::tempdir().unwrap();
    book_in(dir.path());
    for command in [&["convert", "in.dat", "o.egbk3"][..], &["cut", "in.dat", "o.dat"], &["fix", "in.dat", "f.dat"]] {
        let full = fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = bin()
            .current_dir(dir.path())
            .args(["--config", "/dev/null", "--out-dir", "r"])
            .args(command)
            .stdout(full)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{command:?}: {err}");
        assert!(
            err.contains(&format!("{} was written in full, but its summary could not be printed", command[2])),
            "{err}"
        );
        assert!(dir.path().join(command[2]).is_file(), "{command:?}");
    }
}

/// An OUT whose extension names another format than the one written is
/// refused (status 2, nothing written), pointing to convert (or, for a
/// format bookminer does not write, saying so); so is a name with no book's
/// extension, by every command that writes a book (issue 47 item 8), but
/// where the command is told the format (convert --to).
#[test]
fn an_out_named_for_another_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    book_in(dir.path());
    let egbk2 = crate::common::data("books/egbk3/edax46-l2-small.egbk2").display().to_string();
    let refused: [&[&str]; 12] = [
        // A name that says no format, as convert refuses one without --to
        // (issue 47 item 8); before the engines are started (`false` cannot be).
        &["cut", "in.dat", "kept.bin"],
        &["cut", "in.dat", "noext"],
        &["fix", "in.dat", "fixed.txt"],
        &["extend", "in.dat", "grown.txt", "--engine", "false"],
        &["grow", "in.dat", "grown", "--engine", "false"],
        &["deepen", "in.dat", "deep", "--level", "20", "--engine", "false"],
        &["cut", "in.dat", "x.egbk3"],
        &["fix", "in.dat", "f.EGBK3"],
        &["cut", &egbk2, "y.dat"],
        &["fix", &egbk2, "y.egbk2"],
        &["cut", "in.dat", "y.egbk"],
        &["convert", "in.dat", "z.egbk3", "--to", "edax"],
    ];
    for args in refused {
        let out = run(dir.path(), &[&["--out-dir", "r"][..], args].concat());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        // A format only read (.egbk2, .egbk) is said to be one (issue 40 item 10).
        let remedy = ["bookminer convert", "--to", "does not write it"].iter().any(|r| err.contains(r));
        assert!(err.contains("the name says") && remedy, "{err}");
        assert!(!dir.path().join(args[2]).exists(), "{args:?}");
    }
    for args in [&["cut", &egbk2, "c.egbk3"][..], &["convert", "in.dat", "kept.bin", "--to", "edax"]] {
        let out = run(dir.path(), args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
}

/// Outside the repository, with no config file: no book was given, and the
/// message says so and how to give one, instead of naming a default file.
#[test]
fn with_no_book_given_the_message_says_so_and_how_to_give_one() {
    let dir = tempfile::tempdir().unwrap();
    let runs: [&[&str]; 5] = [&[], &["--mode", "all"], &["verify"], &["stats"], &["inspect", "F5"]];
    for args in runs {
        let out = bin().current_dir(dir.path()).args(args).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("no book given") && err.contains("--book"), "{args:?}: {err}");
        assert!(!err.contains("sample.dat"), "{args:?}: {err}");
    }
    let book = sample().display().to_string();
    let out = bin().current_dir(dir.path()).args(["inspect", &book]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no positions given"), "{}", stderr(&out));
    assert!(names_in(dir.path()).is_empty(), "{:?}", names_in(dir.path()));
}

/// `mine BOOK` and `inspect BOOK POSITION...` take the book as an argument;
/// `inspect POSITION...` still takes it from --book.
#[test]
fn mine_and_inspect_take_the_book_as_an_argument() {
    let dir = tempfile::tempdir().unwrap();
    let book = sample().display().to_string();
    let out = bin().current_dir(dir.path()).args(["mine", &book, "--out-dir", "o"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("o/mode1.txt").is_file());
    let by_argument = bin().current_dir(dir.path()).args(["inspect", &book, "F5", "F5D6"]).output().unwrap();
    assert!(by_argument.status.success(), "{}", stderr(&by_argument));
    let by_flag = bin().current_dir(dir.path()).args(["inspect", "--book", &book, "F5", "F5D6"]).output().unwrap();
    assert!(by_flag.status.success(), "{}", stderr(&by_flag));
    assert_eq!(by_argument.stdout, by_flag.stdout, "the same two reports");
    assert!(!by_flag.stdout.is_empty());
}

/// Summaries name formats as people do, never as the code's type names.
#[test]
fn summaries_name_formats_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let egbk2 = crate::common::data("books/egbk3/edax46-l2-small.egbk2").display().to_string();
    let out = run(dir.path(), &["convert", &egbk2, "b.dat"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("(Egaroucid .egbk2)") && !summary.contains("(Egbk2)"), "{summary}");
}

/// A config typo gets the nearest key suggested; a TOML error is one line
/// naming the file, line and column.
#[test]
fn config_mistakes_are_told_on_one_line_with_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("typo.toml"), "devation = 2\n").unwrap();
    fs::write(dir.path().join("broken.toml"), "mode = 1\nbook = [\n").unwrap();
    let out = bin().current_dir(dir.path()).args(["--config", "typo.toml", "verify"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("key `devation`: unknown key; did you mean `deviation`?"), "{}", stderr(&out));
    let out = bin().current_dir(dir.path()).args(["--config", "broken.toml", "verify"]).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: broken.toml: not valid TOML: line 2, column 9: "), "{err}");
}

/// An .egbk3 whose version byte says 2 is reported as a version problem
/// (it reads as no .egbk2 and has an .egbk3's size), not as bad boards.
#[test]
fn an_egbk3_with_a_wrong_version_is_reported_as_a_version_problem() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = fs::read(crate::common::data("books/egbk3/edax46-l2-small.egbk3")).unwrap();
    bytes[9] = 2;
    fs::write(dir.path().join("v.egbk3"), &bytes).unwrap();
    for args in [&["verify", "v.egbk3"][..], &["--book", "v.egbk3", "--out-dir", "o"]] {
        let out = run(dir.path(), args);
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert!(matches!(out.status.code(), Some(1 | 2)), "{args:?}: {text}");
        assert!(text.contains("byte 9: book version 2 announces an .egbk2"), "{args:?}: {text}");
        assert!(!text.contains("both sides") && !text.contains("centre square"), "{args:?}: {text}");
    }
}
