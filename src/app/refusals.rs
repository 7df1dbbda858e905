//! The refusals made before any work, from the files a command names and
//! its command line alone.

use crate::app::error::AppError;
use crate::app::run::{Files, Run};
use crate::config::Config;
use std::path::{Path, PathBuf};

/// Refuses, before anything is read, the clashes only the command line
/// sees: a log file among the command's files, an output over the config
/// file. (A book read, and the outputs among themselves, are the library's
/// to check, each command's own way.)
pub fn check_files(command: &dyn Run, config_file: Option<&Path>, config: &Config) -> Result<(), AppError> {
    command.refuse()?;
    let mut files = command.files(config);
    let book = files.read.first().cloned();
    files.read.splice(0..0, config_file.map(Path::to_path_buf));
    check_log_file(&files, config)?;
    check_config_file(&files, config_file)?;
    check_journals_and_held(&files, config)?;
    check_named_outputs(&files, book.as_deref(), config)
}

/// Refuses, whatever the command, any file it would write (OUT, receipt,
/// mining's files and manifest, the log) that is extend's journal, or that
/// another live run holds: a journal replaced by a book, or cut into a log,
/// loses every answer, and the next extend refuses what is left. The
/// command's own journal ([`Files::own_journal`]) is the journal's to
/// check, which refuses one in use naming its run.
fn check_journals_and_held(files: &Files, config: &Config) -> Result<(), AppError> {
    use bookminer::files::existing::{Found, Holds};
    let own_journal = &files.own_journal;
    let is_own =
        |path: &Path| own_journal.as_deref().is_some_and(|own| bookminer::files::input::same_destination(own, path));
    for path in files.written.iter().chain(&config.log.log_file).filter(|path| !is_own(path)) {
        if let Ok(Found::File(Holds::Journal)) = Found::at(path) {
            return Err(AppError::IsJournal { path: path.clone() });
        }
        if let Some(holder) = bookminer::growth::holder_of(path) {
            return Err(AppError::Held { path: path.clone(), holder });
        }
    }
    Ok(())
}

/// Refuses, before any work, a file named to be written that exists and
/// that the command did not write: a book can be days of engine time. It
/// is replaced (atomically, as any output) only with --force (`force` in
/// the config). Something that is no regular file (a folder, a device) is
/// never written over. A named output that is a book read is left to the
/// command's own refusal, which says so. An output that is a book while
/// the `book` to read does not exist (`fix out.dat b.dat`) is said to be
/// the arguments swapped, as `add` and `check` say it, not met with --force.
fn check_named_outputs(files: &Files, book: Option<&Path>, config: &Config) -> Result<(), AppError> {
    use bookminer::files::existing::Found;
    for output in &files.named {
        // (`--config /dev/null` is read, but is no book an output could be over.)
        let over_input = |input: &PathBuf| input.is_file() && bookminer::files::input::same_destination(input, output);
        if files.read.iter().any(over_input) {
            continue;
        }
        let output = output.clone();
        match Found::at(&output) {
            Ok(Found::Nothing) | Err(_) => {}
            Ok(Found::NotAFile(what)) => {
                return Err(AppError::Io { path: output, source: bookminer::files::input::NotAFile::error(what) })
            }
            // A journal is never replaced: --force is no remedy.
            Ok(Found::File(holds)) if holds.is_journal() => return Err(AppError::IsJournal { path: output }),
            Ok(Found::File(_)) if config.write.force => {}
            Ok(Found::File(holds)) => match book.filter(|book| !book.exists() && holds.is_book()) {
                Some(book) => return Err(AppError::SwappedOut { input: book.to_path_buf(), output, holds }),
                None => return Err(AppError::Exists { path: output, holds }),
            },
        }
    }
    Ok(())
}

/// Refuses an output that is the config file by any path: the config is
/// read whole before the run, so nothing in the run would notice, and the
/// user's settings would be replaced by a book or lines. Only a regular
/// file can be lost so (`--config /dev/null` is no clash).
fn check_config_file(files: &Files, config_file: Option<&Path>) -> Result<(), AppError> {
    let Some(file) = config_file.filter(|file| file.is_file()) else { return Ok(()) };
    let written: Vec<&Path> = files.written.iter().map(PathBuf::as_path).collect();
    match bookminer::files::input::output_over_input(file, &written) {
        Ok(Some(output)) => Err(AppError::OverConfig { output: output.to_path_buf(), config: file.to_path_buf() }),
        _ => Ok(()),
    }
}

/// Refuses a log file that is one of the command's inputs or outputs, by
/// any path (a hard or symbolic link, `./x`): creating it would destroy an
/// input, and a failed run would leave a log where an output was. Only a
/// regular file can be lost so: reading the config from `/dev/null` and
/// logging to it too is fine.
fn check_log_file(files: &Files, config: &Config) -> Result<(), AppError> {
    let Some(log) = &config.log.log_file else { return Ok(()) };
    let clash =
        |other: &PathBuf, role: &'static str| AppError::LogFile { log: log.clone(), other: other.clone(), role };
    let clashes = |input: &&PathBuf| input.is_file() && bookminer::files::input::same_destination(input, log);
    if let Some(input) = files.read.iter().find(clashes) {
        return Err(clash(input, "read"));
    }
    if let Some(output) = files.written.iter().find(|output| bookminer::files::input::same_destination(output, log)) {
        return Err(clash(output, "write"));
    }
    Ok(())
}

/// Refuses a game file where the book goes when a book is among the game
/// files (`check WTH_2015.wtb b.dat`): the arguments swapped, said so for
/// `add` and `check` alike, with the order `usage` gives.
pub fn refuse_swapped(command: &str, book: &Path, games: &[PathBuf], usage: &str) -> Result<(), AppError> {
    let Some(format) = bookminer::games::GameFormat::of_path(book) else { return Ok(()) };
    let Some(other) = games.iter().find(|game| is_book(game)) else { return Ok(()) };
    Err(AppError::Usage(format!(
        "{}: {command}'s first argument is the book, and this name is a game file's (.{}), while {} is a book: \
         the arguments are swapped; {usage}",
        book.display(),
        format.extension(),
        other.display()
    )))
}

/// Whether `path` names an existing file that starts as a book does, or
/// is named `.egbk` (a format without magic).
pub fn is_book(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    let mut start = Vec::new();
    let read =
        std::fs::File::open(path).and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 16), &mut start));
    let magic = read.is_ok() && bookminer::book::Format::has_magic(&start);
    let magicless = bookminer::book::Format::named_by(path).is_some_and(|named| !named.starts_with_magic());
    magic || magicless
}

/// Refuses a window (deviation, error, max_ply) for a policy that has its
/// own rule for where it goes, `instead` saying what that rule is.
pub fn refuse_window(config: &Config, command: &str, instead: &str) -> Result<(), AppError> {
    match config.walk.window == bookminer::window::Window::NONE {
        true => Ok(()),
        false => Err(AppError::Usage(format!("{command} takes no window (deviation, error, max_ply): {instead}"))),
    }
}
