//! The manual pages (`bookminer man`): clap_mangen's page of a command,
//! made from the same definitions as `--help`, with the sections clap
//! knows nothing of: EXIT STATUS and EXAMPLES. A page per command
//! (`bookminer-extend.1`), printed one at a time or written all into a
//! folder.

use clap::Command;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Every command's exit statuses (README.md, Exit status): the binary's,
/// from `ErrorKind` in `app.rs`.
const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "done"),
    ("1", "verify or stats found problems, or inspect had positions it could not report"),
    (
        "2",
        "bad input: config, arguments, a damaged book, a game file damaged or of no format read (check), a start \
         not in the book, an output that is the input or not a regular file, an OUT (or -o file) that exists \
         without --force, a file to write that is extend's journal or held by another live run, a log file that \
         is an input or output, an extend journal in use by another run or not one",
    ),
    (
        "3",
        "a file could not be read or written, the book changed while it was read, no engine could be started, \
         or an engine failed three times (extend, grow, merge)",
    ),
    ("130", "interrupted (Ctrl-C, SIGTERM or SIGHUP alike); nothing was changed (extend, grow and merge keep their journal)"),
];

/// A few command lines for each command's page: what it is said, then the line.
fn examples(command: &str) -> &'static [(&'static str, &'static str)] {
    match command {
        "bookminer" => &[
            ("Mine as config.toml says (out/mode1.txt by default).", "bookminer"),
            ("Modes 1 to 4 in one walk, kifu, JSONL and OBF.", "bookminer --book book.dat --mode all --format kifu,jsonl,obf"),
            ("This command's page, and every page into a folder.", "bookminer man extend; bookminer man --dir ~/.local/share/man/man1"),
        ],
        "mine" => &[
            ("Modes 1 to 4 in one walk: out/mode1.txt to out/mode4.txt.", "bookminer mine book.dat --mode all"),
            ("Only near the best line, 20 plies deep.", "bookminer mine book.dat --mode all --deviation 2 --max-ply 20"),
        ],
        "inspect" => &[
            ("What the book knows of a line and of a board.", "bookminer inspect book.dat F5F6 \"0x0000000810000000 0x0000001008000000\""),
            ("Two positions drawn: pos-1.svg and pos-2.svg.", "bookminer inspect book.dat F5F6E6F4 F5D6C3 --svg pos.svg"),
        ],
        "verify" => &[("Every problem of every record.", "bookminer verify book.dat")],
        "stats" => &[
            ("The header and what the records hold, as JSON.", "bookminer stats book.dat -q --summary json"),
            ("The distributions as bar charts, in a page of their own.", "bookminer stats book.dat --html stats.html"),
        ],
        "serve" => &[
            ("Explore the book at http://127.0.0.1:8046/line/F5D6C3.", "bookminer serve book.dat"),
            ("On a port the system chooses, printed once listening.", "bookminer serve book.dat --port 0"),
        ],
        "convert" => &[
            ("Edax to Egaroucid.", "bookminer convert book.dat book.egbk3"),
            ("An Egaroucid 6 book for Edax.", "bookminer convert old.egbk2 book.dat"),
        ],
        "cut" => &[("Keep what the window reaches.", "bookminer cut book.dat near.dat --deviation 2")],
        "fix" => &[
            ("Edax's negamax; out/fix.jsonl says what changed.", "bookminer fix book.dat fixed.dat"),
            ("How many records changed.", "bookminer fix book.dat fixed.dat -q --summary json | jq .records_changed"),
            ("A book made from games made one tree, as Edax's book fix does: every move whose child is in the book linked.", "bookminer fix --link book.dat linked.dat --engine \"edax -n 1 -eval-file data/eval.dat\""),
        ],
        "diff" => &[("What differs between two books: out/diff.jsonl.", "bookminer diff book.dat fixed.dat")],
        "extend" => &[
            ("Grow the book as Edax's book extend does, one engine a core.", "bookminer extend book.dat grown.dat --engine \"edax -n 1 -eval-file data/eval.dat\""),
            ("Candidates with at least 20 empty squares; engines on two machines.", "bookminer extend book.dat grown.dat --min-empties 20 --engine \"edax -n 1 -eval-file data/eval.dat\" --engine \"ssh -T beta /opt/edax/bin/edax -n 1 -eval-file /opt/edax/data/eval.dat\""),
        ],
        "learn" => &[
            ("Egaroucid's book deviate at the book's level, 2 workers.", "bookminer learn book.egbk3 learned.egbk3 --engine \"Egaroucid_for_Console.out -nobook -quiet -t 1\" --workers 2"),
            ("At level 21, no deeper than move 40, errors 1/2/1.", "bookminer learn book.egbk3 learned.egbk3 --level 21 --depth 40 --error-per-move 1 --error-sum 2 --leaf-error 1"),
        ],
        "recalculate" => &[
            ("Every leaf within the errors below level 21 searched at 21.", "bookminer recalculate book.egbk3 raised.egbk3 --level 21"),
        ],
        "deviate" => &[
            ("Every line within 2 discs of the best for the side to move, 4 in all, as Edax's book deviate 2 4 grows them.", "bookminer deviate book.dat wide.dat --relative 2 --absolute 4 --engine \"edax -n 1 -eval-file data/eval.dat\""),
        ],
        "play" => &[("Every position without a link played on along its best move, as Edax's book play does.", "bookminer play book.dat played.dat --engine \"edax -n 1 -eval-file data/eval.dat\"")],
        "enhance" => &[
            ("Grown where the bounds say more is to find, until a round adds nothing.", "bookminer enhance book.dat enhanced.dat --midgame-error 2 --endgame-error 4 --engine \"edax -n 1 -eval-file data/eval.dat\""),
            ("One round only, as Edax 4.6's book enhance does.", "bookminer enhance book.dat enhanced.dat --rounds 1 --engine \"edax -n 1 -eval-file data/eval.dat\""),
        ],
        "fill" => &[("The positions two plies between positions of the book put in, as Edax's book fill 2 does.", "bookminer fill book.dat filled.dat --depth 2 --engine \"edax -n 1 -eval-file data/eval.dat\"")],
        "grow" => &[("Best first, up to a priority.", "bookminer grow book.dat grown.dat --engine \"edax -n 1 -eval-file data/eval.dat\" --max-priority 12")],
        "deepen" => &[
            ("Every leaf shallower than level 24 searched again at 24.", "bookminer deepen book.dat deep.dat --level 24 --engine \"edax -n 1 -eval-file data/eval.dat\""),
            ("The lines play reaches first, for an hour.", "bookminer deepen book.dat deep.dat --level 24 --max-seconds 3600 --engine \"edax -n 1 -eval-file data/eval.dat\""),
        ],
        "merge" => &[
            ("Two books one, in the format OUT's name says; out/merge.jsonl says what was decided.", "bookminer merge mine.dat theirs.egbk3 both.dat"),
            ("Stale leaves searched again by Edax; Edax's unlinked moves linked.", "bookminer merge a.dat b.dat both.dat --link --engine \"edax -n 1 -eval-file data/eval.dat\""),
        ],
        "check" => &[
            ("Edax's book check counts of a year of WTHOR games; out/check-bad.txt, out/check-missing.txt.", "bookminer check book.dat WTH_2021.wtb"),
            ("The counts alone, for a script.", "bookminer check book.dat games.ggf -q --summary json | jq .bad_percent"),
        ],
        "new" => &[
            ("A book as Edax's book new 18 30 starts it.", "bookminer new book.dat --level 18 --depth 30 --engine \"edax -n 1 -eval-file data/eval.dat\""),
        ],
        "add" => &[
            ("A year of WTHOR games added as Edax's book add adds them.", "bookminer add book.dat WTH_2021.wtb bigger.dat --engine \"edax -n 1 -eval-file data/eval.dat\""),
            ("The lines mining found put back in.", "bookminer add book.dat out/mode1.txt again.dat --engine \"edax -n 1 -eval-file data/eval.dat\""),
        ],
        "synth" => &[
            ("A realistic synthetic book of 100,000 positions.", "bookminer synth --positions 100000 test.dat"),
            ("The same as an Egaroucid book: the format the name says.", "bookminer synth --positions 100000 test.egbk3"),
        ],
        "completions" => &[("bash's completions, in a folder made if need be.", "mkdir -p ~/.local/share/bash-completion/completions && bookminer completions bash > ~/.local/share/bash-completion/completions/bookminer")],
        "man" => &[
            ("One command's page.", "bookminer man extend | man -l -"),
            ("Every page, into a folder made if need be.", "bookminer man --dir ~/.local/share/man/man1"),
        ],
        _ => &[],
    }
}

/// Text for roff: backslashes and a leading dot or quote escaped, `-` as a
/// minus (so that flags read and search as typed).
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    match escaped.starts_with(['.', '\'']) {
        true => format!("\\&{escaped}"),
        false => escaped,
    }
}

/// The page of `command` (clap's top level or one of its commands, built).
fn render(command: &Command, name: &str, out: &mut dyn Write) -> io::Result<()> {
    let man = clap_mangen::Man::new(command.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    if command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(out)?;
    }
    if command.has_subcommands() {
        man.render_subcommands_section(out)?;
    }
    if command.get_after_help().is_some() || command.get_after_long_help().is_some() {
        man.render_extra_section(out)?;
    }
    writeln!(out, ".SH \"EXIT STATUS\"")?;
    for (status, meaning) in EXIT_STATUS {
        writeln!(out, ".TP\n{status}\n{}", roff_text(meaning))?;
    }
    let examples = examples(name);
    if !examples.is_empty() {
        writeln!(out, ".SH EXAMPLES")?;
        for (said, line) in examples {
            writeln!(out, ".PP\n{}\n.RS\n.nf\n{}\n.fi\n.RE", roff_text(said), roff_text(line))?;
        }
    }
    if command.get_version().is_some() {
        man.render_version_section(out)?;
    }
    Ok(())
}

/// The command line's definition, built (each command's name on its page
/// reads `bookminer-extend`).
fn built(cli: Command) -> Command {
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    cli
}

/// The page of `name` (a command, or none: bookminer's own), or why not.
pub fn page(cli: Command, name: Option<&str>) -> Result<Vec<u8>, String> {
    let cli = built(cli);
    let mut page = Vec::new();
    let written = match name {
        None => render(&cli, "bookminer", &mut page),
        Some(name) => match cli.find_subcommand(name) {
            Some(command) => render(command, name, &mut page),
            None => {
                let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                return Err(format!("{name:?} is not a command; the commands: {}", names.join(", ")));
            }
        },
    };
    written.expect("writing to memory does not fail");
    Ok(page)
}

/// Writes every page into `dir` (made if need be): `bookminer.1` and a
/// `bookminer-COMMAND.1` each; the files written.
pub fn write_all(cli: Command, dir: &Path) -> io::Result<Vec<PathBuf>> {
    let cli = built(cli);
    std::fs::create_dir_all(dir)?;
    let mut pages = vec![(cli.clone(), "bookminer".to_string())];
    pages.extend(cli.get_subcommands().filter(|c| !c.is_hide_set()).map(|c| (c.clone(), c.get_name().to_string())));
    let mut written = Vec::new();
    for (command, name) in pages {
        let file = command.get_display_name().unwrap_or(command.get_name()).to_string();
        let path = dir.join(format!("{file}.1"));
        let mut page = Vec::new();
        render(&command, &name, &mut page)?;
        // As every file bookminer writes: complete, or not there at all.
        let mut file = bookminer::files::AtomicFile::create(&path)?;
        file.write_all(&page)?;
        file.finish()?.commit()?;
        written.push(path);
    }
    Ok(written)
}
