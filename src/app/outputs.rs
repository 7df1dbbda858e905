//! The names of outputs checked (an OUT whose name says another format, or
//! none) and pictures written, never over an input.

use crate::app::error::AppError;
use crate::config::Config;
use bookminer::book::Format;
use bookminer::convert::OutFormat;
use bookminer::files::{ensure_dir, folder_of, AtomicFile};
use std::path::{Path, PathBuf};

/// What to do about an OUT whose name says another format than the one
/// written, by a command that writes the format of the book it reads: for
/// a format bookminer does not write, say so, and which it does. A command
/// that chooses the format itself says its own (convert's, synth's).
pub fn out_name_remedy(named: Format) -> &'static str {
    match OutFormat::of(named) {
        None => "bookminer reads that format but does not write it: name OUT .dat (Edax) or .egbk3 (Egaroucid), the formats it writes",
        Some(_) => "name OUT for that format, or change the format with `bookminer convert`",
    }
}

/// The refusal of an OUT whose name says no format bookminer writes: no
/// book's extension, or one of a format only read (.egbk2, .egbk).
/// `writes` says who writes, `remedy` what else the user can do.
pub fn unnamed_format(output: &Path, writes: &str, remedy: &str) -> AppError {
    let why = match Format::named_by(output) {
        Some(named) => format!("the name says an {}, which bookminer reads but does not write", named.title()),
        None => "cannot tell the format to write from the name".to_string(),
    };
    AppError::Usage(format!(
        "{}: {why}; {writes} Edax books (.dat) and Egaroucid .egbk3 books (.egbk3): name OUT so{remedy}",
        output.display()
    ))
}

/// Refuses, before anything is read, an OUT whose name says no book format
/// (`fixed.txt`, `near`): a book no program would then take for one. The
/// one rule of every command that writes a book in the format of the book
/// it reads (fix, cut, extend, grow), as `convert` and `merge` refuse such
/// a name ([`unnamed_format`]); which format is checked once the book is
/// read ([`check_out_name`]).
pub fn check_out_named(output: &Path, command: &'static str) -> Result<(), AppError> {
    if Format::named_by(output).is_some() {
        return Ok(());
    }
    Err(AppError::Usage(format!(
        "{}: the name says no book format; {command} writes the format of the book it reads, Edax's (.dat) or Egaroucid's (.egbk3): name OUT for it (`bookminer convert` changes formats)",
        output.display()
    )))
}

/// Refuses an OUT whose extension names a format other than the one
/// `command` writes (Edax bytes in `x.egbk3`): a file no program could then
/// read for what its name says.
pub fn check_out_name(output: &Path, written: OutFormat, command: &'static str) -> Result<(), AppError> {
    check_out_name_or(output, written, command, out_name_remedy)
}

/// [`check_out_name`], the refusal saying `remedy` of the format named.
pub fn check_out_name_or(
    output: &Path,
    written: OutFormat,
    command: &'static str,
    remedy: fn(Format) -> &'static str,
) -> Result<(), AppError> {
    let Some(named) = Format::named_by(output) else { return Ok(()) };
    if OutFormat::of(named) == Some(written) {
        return Ok(());
    }
    Err(AppError::OutName {
        output: output.to_path_buf(),
        named,
        written: written.format(),
        command,
        remedy: remedy(named),
    })
}

/// Refuses, before any is written, the pictures of a run (the names given
/// and those made from them, `pos-2.svg` of `--svg pos.svg`) that land on
/// a file the run reads, on the log file, on extend's journal, or on one
/// another: the checks a named output passes, for every name written.
pub fn check_views(paths: &[PathBuf], inputs: &[&Path], config: &Config) -> Result<(), AppError> {
    use bookminer::files::existing::{Found, Holds};
    use bookminer::files::input::same_destination;
    for (i, path) in paths.iter().enumerate() {
        if let Some(input) = inputs.iter().find(|input| same_destination(input, path)) {
            return Err(AppError::Usage(format!(
                "{}: is {}, which this command reads; name another file to draw into",
                path.display(),
                input.display()
            )));
        }
        if let Some(log) = config.log.log_file.as_ref().filter(|log| same_destination(log, path)) {
            return Err(AppError::LogFile { log: log.clone(), other: path.clone(), role: "write" });
        }
        if let Ok(Found::File(Holds::Journal)) = Found::at(path) {
            return Err(AppError::IsJournal { path: path.clone() });
        }
        if let Some(other) = paths[..i].iter().find(|other| same_destination(other, path)) {
            return Err(AppError::Usage(format!(
                "{} and {} are one file: each picture needs a file of its own",
                other.display(),
                path.display()
            )));
        }
    }
    Ok(())
}

/// Writes a picture or chart whole (or not at all), never over a file the
/// command reads (the book, the positions file), by any path.
pub fn write_view(inputs: &[&Path], path: &Path, bytes: &[u8]) -> Result<(), AppError> {
    let io = |source| AppError::Io { path: path.to_path_buf(), source };
    if let Some(input) = inputs.iter().find(|input| bookminer::files::input::same_destination(input, path)) {
        return Err(AppError::Usage(format!(
            "{}: is {}, which this command reads; name another file to draw into",
            path.display(),
            input.display()
        )));
    }
    ensure_dir(folder_of(path)).map_err(io)?;
    let mut file = AtomicFile::create(path).map_err(io)?;
    std::io::Write::write_all(&mut file, bytes).map_err(io)?;
    file.commit().map_err(io)
}
