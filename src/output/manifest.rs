//! A run's output files as one set (docs/modes.md, output): `mine` and
//! `check`, writing into `out_dir`, record there what they wrote (`manifest.json`: the
//! command, the book, the settings, and each file with its line count,
//! size and modification time), and replaces the previous run's set whole.
//!
//! The order is what keeps it safe: the run's own files are all committed
//! first, then the new manifest is committed, and only then is each file
//! the previous manifest names and this run did not write removed. A run
//! that fails or is interrupted before that removes nothing and leaves the
//! old manifest. A file is removed only when
//! * its name is one `mine` or `check` writes (`mode{N}.{txt,jsonl,obf}`,
//!   `check-bad.*`, `check-missing.*`), in `out_dir` itself: a manifest
//!   someone edited cannot reach any other file (a book, `extend`'s
//!   journal, `fix`'s receipt), and
//! * it is a regular file (not a link) whose size and modification time
//!   are still the ones the manifest recorded: a file the user has since
//!   replaced or edited is kept, and the log says so, and
//! * a run of the same command wrote it: `mine` never removes the lines
//!   `check` wrote there, nor `check` mining's. The manifest says whose
//!   each file is: another command's files stay listed, with their command.
//!
//! A manifest that does not read (missing fields, garbage, another tool's
//! file) is ignored with a warning naming it, and nothing is removed
//! because of it.

use super::{output_path, RecordFormat, Stem};
use crate::files::AtomicFile;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// The lock a mining run holds on `out_dir` (the folder itself, so that
/// nothing is left in it) while it puts its files in place, writes its
/// manifest and removes the previous run's files: another run into the
/// same folder waits until that is done, so that each run replaces the
/// other's set whole, and none removes files another is still recording.
pub struct FolderLock {
    _folder: fs::File,
}

impl FolderLock {
    /// Takes `out_dir`'s lock, waiting (and warning that it waits) while
    /// another run holds it.
    pub fn take(out_dir: &Path) -> io::Result<FolderLock> {
        let folder = fs::File::open(out_dir)?;
        match folder.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                tracing::warn!(
                    "{}: another run is putting its files in place there; waiting for it to be done",
                    out_dir.display()
                );
                folder.lock()?;
            }
            Err(fs::TryLockError::Error(e)) => return Err(e),
        }
        Ok(FolderLock { _folder: folder })
    }
}

/// The manifest's name in `out_dir`.
pub const MANIFEST: &str = "manifest.json";

/// What the manifest says it is, so that another tool's `manifest.json`
/// is not mistaken for one.
const WRITTEN_BY: &str = "bookminer";

/// What one run wrote into its folder.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// What wrote the file: bookminer's own name for its manifests, so
    /// that another tool's file is not taken for one.
    pub written_by: String,
    /// The version of bookminer that wrote it.
    pub version: String,
    /// The command run.
    pub command: String,
    /// The files read (the book), as given.
    pub inputs: Vec<String>,
    /// The settings that decide what the files hold.
    pub settings: serde_json::Map<String, serde_json::Value>,
    /// The files written.
    pub files: Vec<ManifestFile>,
}

/// One file of a run's set, as it was when the run committed it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// Its name in the folder.
    pub name: String,
    /// Records written to it.
    pub lines: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Last modified, in nanoseconds since 1970 (none when the system does
    /// not say): with the size, how a file replaced since is told.
    pub modified_ns: Option<u64>,
    /// The command that wrote it, when not the manifest's: a file another
    /// command's run left in the folder (`check`'s lines beside `mine`'s),
    /// kept in the list so that only a run of its own command removes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// Why a manifest could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct ManifestError {
    /// The manifest.
    pub path: PathBuf,
    #[source]
    /// Why.
    pub source: io::Error,
}

/// What replacing the previous set did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replaced {
    /// Files of the previous run removed.
    pub removed: Vec<PathBuf>,
    /// Files of the previous run kept, and why.
    pub kept: Vec<(PathBuf, String)>,
}

/// A file's size and modification time as the manifest records them;
/// none unless `path` itself (not a link's target) is a regular file.
fn stamp(path: &Path) -> io::Result<Option<(u64, Option<u64>)>> {
    let metadata = fs::symlink_metadata(path)?;
    if !metadata.file_type().is_file() {
        return Ok(None);
    }
    let modified = metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| u64::try_from(d.as_nanos()).ok());
    Ok(Some((metadata.len(), modified)))
}

/// Whether `name` is a file `mine` or `check` writes into its folder.
fn is_set_file(name: &str) -> bool {
    Stem::all().any(|stem| {
        RecordFormat::ALL.iter().any(|&format| output_path(Path::new(""), stem, format).as_os_str() == name)
    })
}

impl Manifest {
    /// A manifest of `command` reading `inputs` with `settings`; files are
    /// added once committed ([`Manifest::add`]).
    pub fn new(command: &str, inputs: &[&Path], settings: serde_json::Map<String, serde_json::Value>) -> Manifest {
        Manifest {
            written_by: WRITTEN_BY.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: command.into(),
            inputs: inputs.iter().map(|p| p.display().to_string()).collect(),
            settings,
            files: Vec::new(),
        }
    }

    /// Makes the files just committed in `out_dir` (each with its lines)
    /// the folder's set: records them in a manifest of `command` reading
    /// `inputs` with `settings`, commits it, then removes the previous
    /// set's files this one did not write ([`Manifest::replace`]). Called
    /// only once every output is in place: a run that failed before
    /// removes nothing and leaves the old manifest.
    pub fn make_set<'a>(
        out_dir: &Path,
        command: &str,
        inputs: &[&Path],
        settings: serde_json::Map<String, serde_json::Value>,
        files: impl IntoIterator<Item = (&'a Path, u64)>,
    ) -> Result<Replaced, ManifestError> {
        let previous = Manifest::previous(out_dir);
        let mut manifest = Manifest::new(command, inputs, settings);
        for (path, lines) in files {
            manifest.add(path, lines)?;
        }
        if let Some(previous) = &previous {
            manifest.carry_others(previous, out_dir);
        }
        manifest.commit(out_dir)?;
        Ok(previous.map(|previous| manifest.replace(&previous, out_dir)).unwrap_or_default())
    }

    /// Records `path` (in `out_dir`), committed with `lines` lines, as it is now.
    pub fn add(&mut self, path: &Path, lines: u64) -> Result<(), ManifestError> {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let stamp = stamp(path).map_err(|source| ManifestError { path: path.to_path_buf(), source })?;
        // A link or anything else not a plain file: recorded with no
        // stamp, so that it is never taken for bookminer's own.
        let (size, modified_ns) = stamp.unwrap_or((0, None));
        let modified_ns = stamp.and(modified_ns);
        self.files.push(ManifestFile { name, lines, size, modified_ns, command: None });
        Ok(())
    }

    /// The manifest in `out_dir` left by the previous run, if one reads.
    /// One that is missing is none; one that does not read is none too,
    /// with a warning naming it, so that nothing is removed because of it.
    pub fn previous(out_dir: &Path) -> Option<Manifest> {
        let path = out_dir.join(MANIFEST);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
            Err(e) => {
                tracing::warn!("{}: {e}; ignored, no file of an earlier run is removed", path.display());
                return None;
            }
        };
        match serde_json::from_slice::<Manifest>(&bytes) {
            Ok(manifest) if manifest.written_by == WRITTEN_BY => Some(manifest),
            Ok(manifest) => {
                tracing::warn!(
                    "{}: written by `{}`, not bookminer; ignored, no file of an earlier run is removed",
                    path.display(),
                    manifest.written_by
                );
                None
            }
            Err(e) => {
                tracing::warn!(
                    "{}: not a bookminer manifest ({e}); ignored, no file of an earlier run is removed",
                    path.display()
                );
                None
            }
        }
    }

    /// Writes the manifest into `out_dir`, complete or not at all.
    pub fn commit(&self, out_dir: &Path) -> Result<(), ManifestError> {
        let path = out_dir.join(MANIFEST);
        let io = |source| ManifestError { path: path.clone(), source };
        let mut text = serde_json::to_string_pretty(self).map_err(|e| io(io::Error::other(e)))?;
        text.push('\n');
        let mut file = AtomicFile::create(&path).map_err(io)?;
        file.write_all(text.as_bytes()).map_err(io)?;
        file.commit().map_err(io)
    }

    /// The command that wrote `file` of this manifest.
    fn writer_of<'a>(&'a self, file: &'a ManifestFile) -> &'a str {
        file.command.as_deref().unwrap_or(&self.command)
    }

    /// Lists, as theirs, the files of `previous` that another command
    /// than this one wrote and that this run did not write again, as long
    /// as they are there: they stay, and the manifest still says whose
    /// they are.
    fn carry_others(&mut self, previous: &Manifest, out_dir: &Path) {
        for file in &previous.files {
            let writer = previous.writer_of(file);
            let rewritten = self.files.iter().any(|f| f.name == file.name);
            if writer == self.command || rewritten || fs::symlink_metadata(out_dir.join(&file.name)).is_err() {
                continue;
            }
            self.files.push(ManifestFile { command: Some(writer.to_string()), ..file.clone() });
        }
    }

    /// Removes from `out_dir` each file `previous` names that this manifest
    /// does not, when a run of this manifest's command wrote it (another
    /// command's files are not this run's to replace) and nobody has
    /// changed it since; says in the log what was removed, and what was
    /// kept and why.
    pub fn replace(&self, previous: &Manifest, out_dir: &Path) -> Replaced {
        let mut replaced = Replaced::default();
        for file in &previous.files {
            if self.files.iter().any(|f| f.name == file.name) || previous.writer_of(file) != self.command {
                continue;
            }
            let path = out_dir.join(&file.name);
            match self.why_kept(file, &path) {
                None => match fs::remove_file(&path) {
                    Ok(()) => {
                        tracing::info!(
                            "{}: removed, a file of the previous run this one did not write",
                            path.display()
                        );
                        replaced.removed.push(path);
                    }
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => {
                        tracing::warn!(
                            "{}: a file of the previous run, kept: it could not be removed ({e})",
                            path.display()
                        );
                        replaced.kept.push((path, e.to_string()));
                    }
                },
                Some(why) => {
                    tracing::warn!("{}: a file of the previous run, kept: {why}", path.display());
                    replaced.kept.push((path, why));
                }
            }
        }
        replaced
    }

    /// Why `file` of the previous manifest, at `path`, must stay; none
    /// when it may be removed. A file already gone needs nothing said.
    fn why_kept(&self, file: &ManifestFile, path: &Path) -> Option<String> {
        if !is_set_file(&file.name) {
            return Some(format!("{MANIFEST} names it, but bookminer never writes a file of that name"));
        }
        let now = match stamp(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
            Err(e) => return Some(format!("it cannot be looked at ({e})")),
            Ok(None) => return Some("it is not a regular file (a link, a folder or a device)".into()),
            Ok(Some(now)) => now,
        };
        match (file.modified_ns, now) {
            (Some(modified), (size, Some(now_modified))) if size == file.size && now_modified == modified => None,
            (None, _) => Some(format!("{MANIFEST} has no modification time for it")),
            _ => {
                Some(format!("it changed since bookminer wrote it (size or modification time differ from {MANIFEST})"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_mine_and_check_write_are_their_own() {
        for name in ["mode1.txt", "mode4.obf", "mode2.jsonl", "check-bad.txt", "check-missing.jsonl"] {
            assert!(is_set_file(name), "{name}");
        }
        for name in ["mode5.txt", "book.dat", "../mode1.txt", "fix.jsonl", "manifest.json", "mode1.txt/"] {
            assert!(!is_set_file(name), "{name}");
        }
    }
}
