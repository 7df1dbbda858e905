//! The folder a merge composes its book in: hidden, beside OUT (so that
//! the book composed is on OUT's disk), removed at the run's end. A run
//! killed (SIGKILL: nothing removes its folder) leaves it behind; the next
//! merge into the same folder removes it. A run holds a lock on a file in
//! its folder for as long as it lives, so a folder whose lock can be taken
//! is a dead run's, and one whose lock cannot is another run's, left alone.
//!
//! A run makes its folder and takes the folder's lock while it holds a lock
//! on the folder they are in (OUT's), and looks for dead runs' folders only
//! under that lock too: a folder without its lock file is then one a run
//! was killed in before it took it, never one a live run has just made.

use std::fs::File;
use std::io;
use std::path::Path;

/// How the folders' names begin; six random characters follow.
const PREFIX: &str = ".bookminer-merge-";

/// The file in each folder that its run holds locked.
const LOCK: &str = "lock";

/// A run's folder, and the lock that says the run is alive.
pub struct Scratch {
    folder: tempfile::TempDir,
    _lock: File,
}

impl Scratch {
    /// Makes the run's folder in `folder`, first removing the folders that
    /// killed runs left there.
    pub fn make(folder: &Path) -> io::Result<Scratch> {
        // Held while the runs' folders are looked at, and this one is made
        // and locked: other merges into `folder` wait that long.
        let beside = File::open(folder)?;
        beside.lock()?;
        remove_left(folder);
        let made = tempfile::Builder::new().prefix(PREFIX).tempdir_in(folder)?;
        let lock = File::create(made.path().join(LOCK))?;
        lock.try_lock().map_err(io::Error::from)?;
        drop(beside);
        Ok(Scratch { folder: made, _lock: lock })
    }

    pub fn path(&self) -> &Path {
        self.folder.path()
    }
}

/// Removes the folders in `folder` that are merge's, by their names, and
/// whose lock no live run holds.
fn remove_left(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let ours = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .is_some_and(|rest| rest.len() == 6 && rest.bytes().all(|b| b.is_ascii_alphanumeric()));
        if !ours || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let path = entry.path();
        // A folder without its lock file was left before the lock was
        // made: killed at once.
        let dead = match File::open(path.join(LOCK)) {
            Ok(lock) => lock.try_lock().is_ok(),
            Err(e) => e.kind() == io::ErrorKind::NotFound,
        };
        if dead {
            match std::fs::remove_dir_all(&path) {
                Ok(()) => tracing::info!("{}: left by a merge that was killed; removed", path.display()),
                Err(e) => tracing::warn!("{}: left by a merge that was killed, and not removed: {e}", path.display()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_runs_folder_is_removed_and_a_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let live = Scratch::make(dir.path()).unwrap();
        let dead = dir.path().join(format!("{PREFIX}abc123"));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("merged.dat"), b"half a book").unwrap();
        std::fs::write(dead.join(LOCK), b"").unwrap();
        let unrelated = dir.path().join(format!("{PREFIX}not-ours"));
        std::fs::create_dir(&unrelated).unwrap();
        let again = Scratch::make(dir.path()).unwrap();
        assert!(!dead.exists(), "a killed run's folder is removed");
        assert!(live.path().exists(), "a live run's folder is kept");
        assert!(unrelated.exists(), "a folder not named as merge names its own is kept");
        drop((live, again));
    }
}
