//! The folder of the round books, the small books that tell engines which
//! moves to leave out (docs/extend.md says why): a hidden folder, made
//! fresh by each run and removed at its end, whose name carries a tag of
//! the journal's path, so that a run holding the journal's lock knows
//! which folders left by runs killed before it (SIGKILL: nothing removed
//! them) are its journal's, and removes them.
//!
//! An engine is told a round book on a console line (`book load PATH`),
//! which Edax reads up to the first blank: the folder's path must have
//! none. It is beside the journal (so that engines on other machines find
//! it where out_dir is shared), else in the temporary folder, else the run
//! is refused.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

/// How the folder's name begins; the journal's tag and six random
/// characters follow.
const PREFIX: &str = ".bookminer-extend-";

/// Why no folder can be found for the round books.
#[derive(Debug, thiserror::Error)]
#[error("{}: neither out_dir nor the temporary folder ({}) can hold the round books: an engine reads a book's path on a console line, up to its first blank, and both paths have a blank or a control character; name an out_dir without one, or set TMPDIR to a folder without one", beside.display(), temp.display())]
pub struct NoFolder {
    /// The folder beside the journal (out_dir).
    pub beside: PathBuf,
    /// The temporary folder.
    pub temp: PathBuf,
}

/// The folder the round books of `journal` go in: beside it, or in the
/// temporary folder, whichever path an engine's console can read first.
pub fn folder_for(journal: &Path) -> Result<PathBuf, NoFolder> {
    let beside = parent(journal);
    let absolute = |dir: &Path| std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    // Absolute, not canonical: other machines see out_dir by the path the
    // user gave, not by this machine's mounts.
    let (beside, temp) = (absolute(beside), absolute(&std::env::temp_dir()));
    if console_reads(&beside) {
        return Ok(beside);
    }
    if console_reads(&temp) {
        tracing::info!(
            "{}: its path has a blank, which an engine's console cannot read: the round books go in {}",
            beside.display(),
            temp.display()
        );
        return Ok(temp);
    }
    Err(NoFolder { beside, temp })
}

/// Whether a console line can name `path` (and a file in it): UTF-8
/// without blanks or control characters.
fn console_reads(path: &Path) -> bool {
    path.to_str().is_some_and(|text| !text.chars().any(|c| c.is_whitespace() || c.is_control()))
}

/// Makes the run's folder in `folder`, first removing the folders that
/// runs on the same journal left there when killed. Called only with the
/// journal locked: no run that could still use them is alive.
pub fn make(folder: &Path, journal: &Path) -> io::Result<tempfile::TempDir> {
    let prefix = format!("{PREFIX}{:016x}-", tag(journal));
    let beside = crate::files::input::resolved(folder) == crate::files::input::resolved(parent(journal));
    remove_left(folder, &prefix, beside);
    tempfile::Builder::new().prefix(&prefix).tempdir_in(folder)
}

/// The folder a file is in (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// A tag of the journal's path, the same by any path to it: FNV-1a of its
/// folder resolved, and its name.
fn tag(journal: &Path) -> u64 {
    let path = crate::files::input::resolved(parent(journal)).join(journal.file_name().unwrap_or(OsStr::new("")));
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// Removes the folders in `folder` whose names are `prefix` and six
/// characters, or, `beside` the journal, the untagged prefix of earlier
/// versions and six characters: their round books, then the folder.
/// Anything else in one is left, and the folder with it, said in the log.
fn remove_left(folder: &Path, prefix: &str, beside: bool) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = |prefix: &str| {
            name.strip_prefix(prefix).is_some_and(|r| r.len() == 6 && r.bytes().all(|b| b.is_ascii_alphanumeric()))
        };
        if !(ours(prefix) || beside && ours(PREFIX)) || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let path = entry.path();
        match remove_round_books(&path) {
            Ok(n) => {
                tracing::info!("{}: left by a run killed before this one; removed ({n} round books)", path.display())
            }
            Err(e) => tracing::warn!("{}: left by a run killed before this one; not removed: {e}", path.display()),
        }
    }
}

/// Whether a file of a run's folder is one a run makes there: an engine's
/// exclusions (`engine-E-W.dat`; `round-*.dat` of earlier versions), or the
/// book grown before its final negamax (`grown-*`).
fn is_ours(name: &str) -> bool {
    let book = |prefix: &str| name.starts_with(prefix) && name.ends_with(".dat");
    book("round-") || book("engine-") || name.starts_with("grown-")
}

/// Removes a folder of round books: the files a run makes there
/// ([`is_ours`]), then the folder, which fails if anything else is in it.
/// The count removed.
fn remove_round_books(dir: &Path) -> io::Result<usize> {
    let mut removed = 0;
    for entry in std::fs::read_dir(dir)?.filter_map(Result::ok) {
        let name = entry.file_name();
        let round_book = name.to_str().is_some_and(is_ours);
        if round_book && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    std::fs::remove_dir(dir)?;
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_runs_folder_of_this_journal_is_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join(crate::engine::journal::JOURNAL);
        let made = |name: &str, files: &[&str]| {
            let path = dir.path().join(name);
            std::fs::create_dir(&path).unwrap();
            for file in files {
                std::fs::write(path.join(file), b"").unwrap();
            }
            path
        };
        let own = format!("{PREFIX}{:016x}-", tag(&journal));
        let killed = made(&format!("{own}aB3xY9"), &["round-1-0.dat", "round-2-1.dat"]);
        let older = made(&format!("{PREFIX}Qz81kL"), &["round-4-0.dat"]);
        let other_journal = made(&format!("{PREFIX}0123456789abcdef-aB3xY9"), &["round-1-0.dat"]);
        let with_more = made(&format!("{own}zzzzzz"), &["round-1-0.dat", "notes.txt"]);
        let not_ours = made(".bookminer-extend-notes", &["round-1-0.dat"]);
        let run = make(dir.path(), &journal).unwrap();
        assert!(!killed.exists() && !older.exists(), "the killed runs' folders are removed");
        assert!(other_journal.exists() && not_ours.exists(), "another journal's, or not a run's, are left");
        assert!(with_more.join("notes.txt").exists(), "a file not a round book is never removed");
        assert!(run.path().file_name().unwrap().to_str().unwrap().starts_with(&own));
        // By another path to the same journal, the same tag.
        let dotted = dir.path().join(".").join(crate::engine::journal::JOURNAL);
        assert_eq!(tag(&dotted), tag(&journal));
    }

    #[test]
    fn a_folder_is_one_a_console_reads() {
        assert!(console_reads(Path::new("/work/run/out")));
        assert!(!console_reads(Path::new("/work/my run")));
        assert!(!console_reads(Path::new("/work/a\nbook load x")));
    }
}
