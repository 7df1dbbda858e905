//! Files that appear complete or not at all (SPEC §4): written beside their
//! final name and renamed into place once the whole run has succeeded.
//!
//! An output name that is a symbolic link is written through: the file the
//! link leads to is replaced (written beside it, in its own folder, and
//! renamed over it), and the link is kept. An output that exists and is not
//! a regular file (a device such as `/dev/null`, a FIFO, a socket) is
//! refused ([`NotAFile`]): renaming over it would replace the device itself.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file written beside its final name and renamed into place on
/// [`AtomicFile::commit`]; dropped uncommitted, it is removed and the previous
/// file under the final name is untouched.
pub struct AtomicFile {
    writer: BufWriter<tempfile::NamedTempFile>,
    /// The name given, for messages.
    path: PathBuf,
    /// The file replaced at commit: `path` with every symbolic link followed.
    target: PathBuf,
    /// Bytes written so far, and how many of them the kernel has been asked
    /// to start writing to disk (see [`AtomicFile::start_writeback`]).
    written: u64,
    written_back: u64,
}

/// How much a file grows between two requests to start writing it to disk.
const WRITEBACK_EVERY: u64 = 16 << 20;

impl AtomicFile {
    /// Fails at once when a directory holds the final name: the rename at
    /// [`AtomicFile::commit`] could never succeed, and finding that out only
    /// after a long walk (perhaps with other outputs already renamed) is worse.
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        let target = through_links(path)?;
        refuse_unless_replaceable(&target)?;
        let dir = folder_of(&target);
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // A temporary file is private (0600); the finished file should be as
        // readable as any other the user creates, so ask for 0666 less umask.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let temp = builder.tempfile_in(dir)?;
        Ok(AtomicFile {
            writer: BufWriter::with_capacity(1 << 16, temp),
            path: path.to_path_buf(),
            target,
            written: 0,
            written_back: 0,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `line` and its line end were written at byte `at`: compared
    /// in the write buffer if they are still there (repeats are often
    /// close), else read back from the file once the buffer is written out.
    pub(super) fn holds_line(&mut self, at: u64, line: &[u8]) -> io::Result<bool> {
        let holds = |earlier: &[u8]| {
            earlier.len() == line.len() + 1 && earlier[..line.len()] == *line && earlier[line.len()] == b'\n'
        };
        let buffered = self.writer.buffer();
        if let Some(start) = at.checked_sub(self.written - buffered.len() as u64) {
            let start = start as usize;
            return Ok(buffered.get(start..start + line.len() + 1).is_some_and(holds));
        }
        self.writer.flush()?;
        let mut earlier = vec![0; line.len() + 1];
        match read_exact_at(self.writer.get_ref(), &mut earlier, at) {
            Ok(()) => Ok(holds(&earlier)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Asks the kernel to start writing to disk what the file holds beyond
    /// the last such request, without waiting for it. Left alone, the kernel
    /// would keep a run's output (1.6 GB for all formats of a 10M-position
    /// book) in memory until [`AtomicFile::finish`] syncs it, and the run
    /// would then wait seconds for the disk; asked along the way, the disk
    /// works while the walk does. On Linux, `POSIX_FADV_DONTNEED` starts
    /// writeback of the range's dirty pages (and lets go of those already
    /// written); elsewhere nothing is asked and the sync does it all.
    fn start_writeback(&mut self) {
        let handed_over = self.written - self.writer.buffer().len() as u64;
        #[cfg(target_os = "linux")]
        if let Some(len) = std::num::NonZeroU64::new(handed_over - self.written_back) {
            let file = self.writer.get_ref().as_file();
            // Only advice: a refusal costs the time it would have saved.
            let _ = rustix::fs::fadvise(file, self.written_back, Some(len), rustix::fs::Advice::DontNeed);
        }
        self.written_back = handed_over;
    }

    /// Writes `bytes` over the start of the file, for a header whose
    /// counts are known only once the rest is written.
    pub fn write_start(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.writer.flush()?;
        write_all_at(self.writer.get_ref(), bytes, 0)
    }

    /// Flushes, syncs and renames the file into place.
    pub fn commit(self) -> io::Result<()> {
        self.finish()?.commit()
    }

    /// Flushes and syncs the file without renaming it, so that several files
    /// can all be written out (where a full disk shows) before any replaces
    /// its previous version.
    pub fn finish(self) -> io::Result<FinishedFile> {
        let temp = self.writer.into_inner().map_err(|e| e.into_error())?;
        temp.as_file().sync_all()?;
        Ok(FinishedFile { temp, path: self.path, target: self.target })
    }
}

#[cfg(unix)]
fn read_exact_at(temp: &tempfile::NamedTempFile, buf: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(temp.as_file(), buf, at)
}

/// Elsewhere a positioned read may move the shared cursor the writes go
/// through, so read through a handle of its own.
#[cfg(not(unix))]
fn read_exact_at(temp: &tempfile::NamedTempFile, buf: &mut [u8], at: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut reader = temp.reopen()?;
    reader.seek(SeekFrom::Start(at))?;
    reader.read_exact(buf)
}

#[cfg(unix)]
fn write_all_at(temp: &tempfile::NamedTempFile, buf: &[u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(temp.as_file(), buf, at)
}

/// Elsewhere through a handle of its own, as [`read_exact_at`].
#[cfg(not(unix))]
fn write_all_at(temp: &tempfile::NamedTempFile, buf: &[u8], at: u64) -> io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut writer = temp.reopen()?;
    writer.seek(SeekFrom::Start(at))?;
    writer.write_all(buf)
}

/// An [`AtomicFile`] written out in full, waiting to be renamed into place;
/// dropped, it is removed like an uncommitted one.
pub struct FinishedFile {
    temp: tempfile::NamedTempFile,
    path: PathBuf,
    target: PathBuf,
}

impl FinishedFile {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the file into place.
    pub fn commit(self) -> io::Result<()> {
        self.temp.persist(&self.target).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.writer.write(buf)?;
        self.written += n as u64;
        if self.written - self.written_back >= WRITEBACK_EVERY {
            self.start_writeback();
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

/// An output that exists and is not a regular file: never replaced.
#[derive(Debug, thiserror::Error)]
#[error("{0}, not a regular file: an output is never written over one; name a file")]
pub struct NotAFile(&'static str);

/// Whether an error is the refusal of an output that is not a regular file
/// (bad arguments, not a failure to write).
pub fn is_not_a_file(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|inner| inner.is::<NotAFile>())
}

/// Fails at once when something other than a regular file holds the final
/// name: a directory (the rename at commit could never succeed, and finding
/// that out only after a long walk, perhaps with other outputs already
/// renamed, is worse), or a device, FIFO or socket ([`NotAFile`]).
fn refuse_unless_replaceable(target: &Path) -> io::Result<()> {
    let kind = match fs::symlink_metadata(target) {
        Ok(metadata) => metadata.file_type(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if kind.is_dir() {
        return Err(io::Error::other("a directory is in the way of this output file"));
    }
    if !kind.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, NotAFile(crate::input::describe(kind))));
    }
    Ok(())
}

/// `path` with every symbolic link in its last component followed (the
/// folders on the way are left to the system): the file an output named
/// `path` replaces. A link to a missing file leads to where it points.
fn through_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    // As many links as the system itself follows before giving up (ELOOP).
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.file_type().is_symlink() => path = folder_of(&path).join(fs::read_link(&path)?),
            _ => return Ok(path),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The folder a file named `path` is in: its parent, or `.` for a bare name.
pub fn folder_of(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Creates `dir` (and its parents) if it is missing.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() {
        return Ok(());
    }
    fs::create_dir_all(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `holds_line` says of the first two lines, asked at their own
    /// offsets and at each other's.
    fn answers(file: &mut AtomicFile) -> [bool; 5] {
        [
            file.holds_line(0, b"F5D6").unwrap(),
            file.holds_line(5, b"F5F6").unwrap(),
            file.holds_line(5, b"F5D6").unwrap(),
            file.holds_line(0, b"F5").unwrap(),
            file.holds_line(0, b"F5D6C3").unwrap(),
        ]
    }

    #[test]
    fn a_line_is_recognised_in_the_write_buffer_and_in_the_file_alike() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = AtomicFile::create(&dir.path().join("mode1.txt")).unwrap();
        file.write_all(b"F5D6\nF5F6\n").unwrap();
        assert!(file.writer.buffer().len() == 10, "both lines still buffered");
        let expected = [true, true, false, false, false];
        assert_eq!(answers(&mut file), expected);
        // Enough after them that they are out of the buffer and in the file.
        for i in 0..20_000 {
            writeln!(file, "C4{i}").unwrap();
        }
        assert!(file.written - file.writer.buffer().len() as u64 > 10, "both lines written out");
        assert_eq!(answers(&mut file), expected);
        assert!(file.holds_line(10, b"C40").unwrap());
    }
}
