//! The manual pages (`bookminer man`): clap_mangen's page of a command,
//! made from the same definitions as `--help`, with the sections clap
//! knows nothing of: EXIT STATUS and EXAMPLES. A page per command
//! (`bookminer-extend.1`), printed one at a time or written all into a
//! folder.

use clap::Command;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Where a page's EXAMPLES come from: bookminer's own (no command) or a
/// command's, each kept in its command's file (`commands::examples`).
pub type Examples = fn(Option<&str>) -> &'static [(&'static str, &'static str)];

/// Every command's exit statuses (README.md, Exit status): the binary's,
/// from `ErrorKind` in `app/error.rs`.
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
fn render(command: &Command, examples: &[(&str, &str)], out: &mut dyn Write) -> io::Result<()> {
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
pub fn page(cli: Command, name: Option<&str>, examples: Examples) -> Result<Vec<u8>, String> {
    let cli = built(cli);
    let mut page = Vec::new();
    let written = match name {
        None => render(&cli, examples(None), &mut page),
        Some(name) => match cli.find_subcommand(name) {
            Some(command) => render(command, examples(Some(name)), &mut page),
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
pub fn write_all(cli: Command, dir: &Path, examples: Examples) -> io::Result<Vec<PathBuf>> {
    let cli = built(cli);
    std::fs::create_dir_all(dir)?;
    let mut pages = vec![(cli.clone(), examples(None))];
    pages.extend(cli.get_subcommands().filter(|c| !c.is_hide_set()).map(|c| (c.clone(), examples(Some(c.get_name())))));
    let mut written = Vec::new();
    for (command, examples) in pages {
        let file = command.get_display_name().unwrap_or(command.get_name()).to_string();
        let path = dir.join(format!("{file}.1"));
        let mut page = Vec::new();
        render(&command, examples, &mut page)?;
        // As every file bookminer writes: complete, or not there at all.
        let mut file = bookminer::files::AtomicFile::create(&path)?;
        file.write_all(&page)?;
        file.finish()?.commit()?;
        written.push(path);
    }
    Ok(written)
}
