//! Every command's `--help` shows the options that command uses, and no
//! other: `verify --help` offering `--min-gap` would promise what verify
//! ignores.

use std::collections::BTreeSet;

use crate::common;

/// The long flags a help text names.
fn flags_in(help: &str) -> BTreeSet<String> {
    help.split(|c: char| c.is_whitespace() || ",[]()".contains(c))
        .filter(|word| word.starts_with("--") && word.len() > 2)
        .map(|word| {
            word.split(['=', '<']).next().unwrap_or(word).trim_end_matches("...").trim_end_matches('.').to_string()
        })
        .collect()
}

fn help_of(command: &[&str]) -> String {
    let out = common::bin().args(command).arg("--help").output().unwrap();
    assert!(out.status.success(), "{command:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The flags every command takes: the global ones, and the log's.
const GLOBAL: &[&str] = &["--help", "--config", "--quiet", "--verbose", "--summary"];
const ALWAYS: &[&str] = &["--help", "--config", "--quiet", "--verbose", "--summary", "--log-level", "--log-file"];
const WINDOW: &[&str] = &["--start", "--deviation", "--error", "--max-ply"];
const LINES: &[&str] = &["--out-dir", "--orientation", "--pass-token"];
/// Commands that search with engines.
const ENGINES: &[&str] = &["--engine", "--workers", "--engine-protocol", "--engine-timeout"];
/// Commands that run long enough to say how far they have come.
const PROGRESS: &[&str] = &["--progress-seconds"];
const MINING: &[&str] =
    &["--mode", "--min-gap", "--mode1-linkless", "--format", "--bom", "--unique-lines", "--output", "--stdout"];
/// Every command that writes a file the command line names (OUT, -o).
const NAMED: &[&str] = &["--force"];
/// What extend and the commands grown from it take.
const GROWING: &[&str] = &["--egbk-level", "--threads", "--fresh", "--min-empties", "--max-positions"];
/// grow's budget, which deepen takes too.
const GROW: &[&str] = &["--error-weight", "--max-priority", "--max-seconds"];

fn set(groups: &[&[&str]]) -> BTreeSet<String> {
    ALWAYS.iter().chain(groups.iter().flat_map(|g| g.iter())).map(|f| f.to_string()).collect()
}

#[test]
fn each_command_shows_exactly_the_options_it_uses() {
    let mine = set(&[&["--book", "--egbk-level", "--threads"], MINING, LINES, WINDOW, PROGRESS, NAMED]);
    let reading = set(&[&["--book", "--egbk-level", "--threads"]]);
    let mut top = mine.clone();
    top.extend(["--positions-file".to_string(), "--version".to_string()]);
    let cases: Vec<(&[&str], BTreeSet<String>)> = vec![
        (&[], top),
        (&["mine"], mine),
        (&["inspect"], {
            let mut s = reading.clone();
            s.extend(["--file".into(), "--svg".into()]);
            s
        }),
        (&["verify"], reading.clone()),
        (&["stats"], {
            let mut s = reading.clone();
            s.extend(["--svg".into(), "--html".into(), "--accuracy".into(), "--start".into()]);
            s
        }),
        (&["serve"], {
            let mut s = reading;
            s.extend(["--port".into(), "--address".into(), "--allow-host".into()]);
            s
        }),
        (&["convert"], set(&[&["--egbk-level", "--threads", "--to"], PROGRESS, NAMED])),
        (&["cut"], set(&[&["--egbk-level", "--threads"], WINDOW, PROGRESS, NAMED])),
        (
            &["deviate"],
            set(&[
                &[
                    "--egbk-level",
                    "--threads",
                    "--relative",
                    "--absolute",
                    "--fresh",
                    "--min-empties",
                    "--max-positions",
                ],
                ENGINES,
                WINDOW,
                LINES,
                PROGRESS,
                NAMED,
            ]),
        ),
        (
            &["enhance"],
            set(&[
                &[
                    "--egbk-level",
                    "--threads",
                    "--midgame-error",
                    "--endgame-error",
                    "--rounds",
                    "--fresh",
                    "--min-empties",
                    "--max-positions",
                ],
                ENGINES,
                WINDOW,
                LINES,
                PROGRESS,
                NAMED,
            ]),
        ),
        (
            &["play"],
            set(&[
                &["--egbk-level", "--threads", "--fresh", "--min-empties", "--max-positions"],
                ENGINES,
                WINDOW,
                LINES,
                PROGRESS,
                NAMED,
            ]),
        ),
        (
            &["fill"],
            set(&[
                &[
                    "--egbk-level",
                    "--threads",
                    "--depth",
                    "--fresh",
                    "--min-empties",
                    "--max-positions",
                    "--max-seconds",
                ],
                ENGINES,
                LINES,
                PROGRESS,
                NAMED,
            ]),
        ),
        (&["fix"], set(&[&["--egbk-level", "--threads", "--link", "--fresh"], ENGINES, LINES, PROGRESS, NAMED])),
        (&["extend"], set(&[GROWING, ENGINES, WINDOW, LINES, PROGRESS, NAMED])),
        (&["grow"], set(&[GROWING, GROW, ENGINES, WINDOW, LINES, PROGRESS, NAMED])),
        (&["deepen"], set(&[GROWING, GROW, &["--level"], ENGINES, WINDOW, LINES, PROGRESS, NAMED])),
        (&["merge"], set(&[&["--egbk-level", "--threads", "--link", "--fresh"], ENGINES, LINES, PROGRESS, NAMED])),
        (
            &["diff"],
            set(&[&["--egbk-level", "--threads", "--exit-code", "--output", "--stdout"], LINES, PROGRESS, NAMED]),
        ),
        (&["check"], set(&[&["--egbk-level", "--threads", "--format", "--bom", "--unique-lines"], LINES, PROGRESS])),
        (&["new"], set(&[&["--level", "--depth", "--fresh"], ENGINES, LINES, PROGRESS, NAMED])),
        (
            &["add"],
            set(&[&["--egbk-level", "--threads", "--level", "--depth", "--fresh"], ENGINES, LINES, PROGRESS, NAMED]),
        ),
        (
            &["learn"],
            set(&[
                &[
                    "--egbk-level",
                    "--threads",
                    "--level",
                    "--depth",
                    "--error-per-move",
                    "--error-sum",
                    "--leaf-error",
                    "--loops",
                    "--fresh",
                    "--min-empties",
                    "--max-positions",
                ],
                ENGINES,
                WINDOW,
                LINES,
                PROGRESS,
                NAMED,
            ]),
        ),
        (
            &["recalculate"],
            set(&[
                &[
                    "--egbk-level",
                    "--threads",
                    "--level",
                    "--depth",
                    "--error-per-move",
                    "--error-sum",
                    "--fresh",
                    "--min-empties",
                    "--max-positions",
                ],
                ENGINES,
                WINDOW,
                LINES,
                PROGRESS,
                NAMED,
            ]),
        ),
        (&["completions"], GLOBAL.iter().map(|f| f.to_string()).collect()),
        (&["man"], GLOBAL.iter().chain(&["--dir"]).map(|f| f.to_string()).collect()),
        (&["synth"], set(&[&["--positions", "--seed", "--perturb", "--book-format"], PROGRESS, NAMED])),
    ];
    let covered: BTreeSet<String> = cases.iter().filter_map(|(c, _)| c.first()).map(|c| c.to_string()).collect();
    assert_eq!(covered, common::commands().into_iter().collect(), "a case for each command --help lists");
    for (command, expected) in cases {
        let shown = flags_in(&help_of(command));
        assert_eq!(shown, expected, "bookminer {command:?} --help");
    }
}

#[test]
fn each_command_says_what_it_does_writes_and_needs() {
    for (command, says) in [
        (&["mine"][..], &["Writes", "Needs a book"][..]),
        (&["convert"], &["Writes OUT", "walk order", "never IN"]),
        (&["cut"], &["Writes OUT", "window", "never IN"]),
        (&["fix"], &["writes OUT", "fix.jsonl", "Needs the book"]),
        (&["diff"], &["Writes {out_dir}/diff.jsonl", "file order", "first arrival"]),
        (&["check"], &["Writes {out_dir}/check-bad.txt", "Edax's", "refused", "61 - n_empties"]),
        (&["new"], &["Writes", "Edax's", "n_empties", "journal"]),
        (&["add"], &["Edax's", "n_empties", "skipped", "journal"]),
    ] {
        let help = help_of(command);
        for words in says {
            assert!(help.contains(words), "bookminer {command:?} --help says {words:?}:\n{help}");
        }
    }
}

/// Issue 40 item 9: a page per command, with EXIT STATUS and EXAMPLES, one
/// printed or all written into a folder not made yet.
#[test]
fn each_command_has_a_manual_page_with_its_exit_statuses_and_examples() {
    let out = common::bin().args(["man", "extend"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with(".ie") || page.contains(".TH bookminer-extend 1"), "{page}");
    assert!(page.contains("engine") && page.contains(".SH \"EXIT STATUS\"") && page.contains(".SH EXAMPLES"), "{page}");
    assert!(page.contains("bookminer extend book.dat grown.dat \\-\\-engine"), "an example: {page}");
    let top = String::from_utf8(common::bin().arg("man").output().unwrap().stdout).unwrap();
    assert!(top.contains(".TH bookminer 1") && top.contains(".SH \"EXIT STATUS\""), "{top}");
    let wrong = common::bin().args(["man", "nosuch"]).output().unwrap();
    assert_eq!(wrong.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("extend"), "names the commands");

    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("fresh/share/man/man1");
    let out = common::bin().arg("man").arg("--dir").arg(&folder).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> =
        std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    for name in ["bookminer.1", "bookminer-extend.1", "bookminer-mine.1", "bookminer-grow.1", "bookminer-man.1"] {
        assert!(names.contains(&name.to_string()), "{name} in {names:?}");
    }
    let extend = std::fs::read_to_string(folder.join("bookminer-extend.1")).unwrap();
    assert_eq!(extend, page, "the same page, printed or written");
    let without: Vec<&String> = names
        .iter()
        .filter(|name| !std::fs::read_to_string(folder.join(name)).unwrap().contains(".SH EXAMPLES"))
        .collect();
    assert!(without.is_empty(), "pages with no EXAMPLES: {without:?}");
}

/// Issue 40 item 9: `--mode <TAB>` offers the modes, not file names.
#[test]
fn completions_offer_the_modes_for_mode() {
    let out = common::bin().args(["completions", "bash"]).output().unwrap();
    let script = String::from_utf8(out.stdout).unwrap();
    let after = script.split("--mode)").nth(1).expect("--mode is completed");
    let reply = after.lines().nth(1).unwrap();
    assert!(reply.contains("compgen -W \"1 2 3 4 5 all\""), "{reply}");
}

/// Every command that searches with engines says which protocol they speak,
/// the protocols there are, and that by default each engine's greeting tells.
#[test]
fn the_engine_commands_name_the_protocols_they_speak() {
    for command in ["new", "add", "extend", "grow", "deepen", "merge"] {
        let help = help_of(&[command]);
        let line = help.lines().position(|l| l.trim_start().starts_with("--engine-protocol <NAME>"));
        let Some(at) = line else { panic!("{command} --help lists --engine-protocol: {help}") };
        let text: String = help.lines().skip(at).take(8).collect::<Vec<_>>().join("\n");
        assert!(
            text.contains("greeting") && text.contains("edax:") && text.contains("egaroucid:"),
            "{command}: {text}"
        );
    }
}
