//! Where a growth run (and `merge`'s searches) reads and writes: IN, OUT,
//! the journal taken for the run, and its folder of round books.

use super::error::GrowthError;
use crate::engine::journal::{Journal, JOURNAL};
use crate::engine::scratch;
use crate::files::ensure_dir;
use crate::files::input::{OverInput, Writer};
use crate::run::RunError;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a growth run reads and writes, checked before anything is read, and
/// the journal taken for the run.
#[derive(Clone, Debug)]
pub struct GrowthPaths {
    /// IN, the book read (empty for `new`, which reads none).
    pub input: PathBuf,
    /// OUT, the book written.
    pub output: PathBuf,
    /// The journal of every answer, in out_dir.
    pub journal: PathBuf,
    /// Where the run's folder of round books is made (scratch.rs).
    pub scratch: PathBuf,
    /// The journal of earlier runs set aside, and everything searched anew.
    pub fresh: bool,
    /// The journal, locked for the run from the moment its paths are
    /// checked: no engine is started and no folder a killed run left is
    /// removed before the run holds it, so a second run is refused at once
    /// and never touches the first's (issue 47 item 11).
    pub(crate) taken: Arc<crate::engine::journal::Taken>,
    /// When the run took its journal: before its engines were greeted and
    /// its book read, so that the summary's elapsed counts both (issue 64:
    /// `new` said 2.2 s of 4.3 s, the engine's start left out).
    pub began: std::time::Instant,
}

impl GrowthPaths {
    /// Refuses an OUT or a journal that is IN by any path, an OUT that is
    /// the journal, folders whose paths no engine's console reads, and a
    /// journal that is not a regular file or that another run holds (named);
    /// then takes the journal for this run (out_dir made if need be).
    /// Refused in `extend`'s words: [`GrowthPaths::of_command`] names another.
    pub fn new(input: &Path, output: &Path, out_dir: &Path) -> Result<GrowthPaths, GrowthError> {
        GrowthPaths::of_command(Writer::Growth("extend"), (input, &[]), output, out_dir)
    }

    /// [`GrowthPaths::new`] for the command `writer` names, refusing an OUT
    /// or a journal that is, by any path (a symbolic or hard link, `..`),
    /// IN or any of `also_read` (add's game files): every file the run reads.
    pub fn of_command(
        writer: Writer,
        (input, also_read): (&Path, &[PathBuf]),
        output: &Path,
        out_dir: &Path,
    ) -> Result<GrowthPaths, GrowthError> {
        let journal = out_dir.join(JOURNAL);
        for read in std::iter::once(input).chain(also_read.iter().map(PathBuf::as_path)) {
            let over = OverInput::find(read, &[output, &journal], writer).map_err(RunError::io(read))?;
            if let Some(over) = over {
                return Err(over.into());
            }
        }
        Ok(GrowthPaths { input: input.to_path_buf(), ..GrowthPaths::without_input(output, out_dir)? })
    }

    /// The paths of `new`, which reads no book: OUT, and the journal and
    /// scratch folder of `out_dir`, refused as [`GrowthPaths::new`]
    /// refuses them.
    pub fn without_input(output: &Path, out_dir: &Path) -> Result<GrowthPaths, GrowthError> {
        let began = std::time::Instant::now();
        let journal = out_dir.join(JOURNAL);
        if crate::files::input::same_destination(output, &journal) {
            return Err(GrowthError::BookIsJournal { path: output.to_path_buf() });
        }
        let scratch = scratch::folder_for(&journal)?;
        if let Some(dir) = journal.parent() {
            ensure_dir(dir).map_err(RunError::io(dir))?;
        }
        let taken = Arc::new(Journal::lock_for_run(&journal)?);
        let output = output.to_path_buf();
        Ok(GrowthPaths { input: PathBuf::new(), output, journal, scratch, fresh: false, taken, began })
    }

    /// The same paths, the journal of earlier runs set aside when `fresh`.
    pub fn fresh(self, fresh: bool) -> GrowthPaths {
        GrowthPaths { fresh, ..self }
    }
}

/// The run's folder of round books, the journal locked: what runs killed
/// before it left there is removed first (scratch.rs).
pub(crate) fn scratch_dir(paths: &GrowthPaths) -> Result<tempfile::TempDir, GrowthError> {
    let made = scratch::make(&paths.scratch, &paths.journal);
    made.map_err(|source| RunError::Io { path: paths.scratch.clone(), source }.into())
}
