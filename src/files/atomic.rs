//! Files that appear complete or not at all (docs/modes.md, output): written beside their
//! final name and renamed into place once the whole run has succeeded.
//!
//! On Linux the file is written with no name at all (`O_TMPFILE`) in the
//! output's folder and only given one when it is committed (linked under a
//! hidden name, renamed over the output at once): a run that ends in any
//! way before that, SIGKILL and power loss included, leaves nothing behind.
//! Elsewhere, or on a file system without unnamed files, it is a hidden
//! `.NAME.XXXXXX.tmp` beside the output, removed on every way out the
//! process controls (errors, Ctrl-C, SIGTERM, SIGHUP).
//!
//! An output name that is a symbolic link is written through: the file the
//! link leads to is replaced (written beside it, in its own folder, and
//! renamed over it), and the link is kept. An output that exists and is not
//! a regular file (a device such as `/dev/null`, a FIFO, a socket) is
//! refused ([`NotAFile`]): renaming over it would replace the device itself.

use crate::files::input::NotAFile;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file written beside its final name and renamed into place on
/// [`AtomicFile::commit`]; dropped uncommitted, it is removed and the previous
/// file under the final name is untouched.
pub struct AtomicFile {
    writer: BufWriter<Temp>,
    /// The name given, for messages.
    path: PathBuf,
    /// The file replaced at commit: `path` with every symbolic link followed.
    target: PathBuf,
    /// Bytes written so far, and how many of them the kernel has been asked
    /// to start writing to disk (see [`AtomicFile::start_writeback`]).
    written: u64,
    written_back: u64,
    /// What the commit does to a file found under the final name then.
    commit: Commit,
}

/// What committing does to a file under the final name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Commit {
    /// Replaces it: a file of bookminer's own folder (mining's, a receipt).
    Replacing,
    /// Fails, the file kept: a file named by the user (OUT, `-o FILE`)
    /// where nothing was when the run began, and something appeared since.
    KeepingNewcomer,
}

/// How much a file grows between two requests to start writing it to disk.
const WRITEBACK_EVERY: u64 = 16 << 20;

impl AtomicFile {
    /// Fails at once when a directory holds the final name: the rename at
    /// [`AtomicFile::commit`] could never succeed, and finding that out only
    /// after a long walk (perhaps with other outputs already renamed) is worse.
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        AtomicFile::create_as(path, Commit::Replacing)
    }

    /// [`AtomicFile::create`] for a file the user named (OUT, `-o FILE`),
    /// whose command has refused (or been told to replace) what was there
    /// before it began: when nothing is under the name now, a file that
    /// appears there while the run writes (another program's) is never
    /// replaced; the commit fails instead, naming it.
    pub fn create_named(path: &Path) -> io::Result<AtomicFile> {
        let target = through_links(path)?;
        let commit = match fs::symlink_metadata(&target) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Commit::KeepingNewcomer,
            _ => Commit::Replacing,
        };
        AtomicFile::create_as(path, commit)
    }

    fn create_as(path: &Path, commit: Commit) -> io::Result<AtomicFile> {
        let target = through_links(path)?;
        refuse_unless_replaceable(&target)?;
        let temp = Temp::create(folder_of(&target), temp_prefix(&target))?;
        Ok(AtomicFile {
            writer: BufWriter::with_capacity(1 << 16, temp),
            path: path.to_path_buf(),
            target,
            written: 0,
            written_back: 0,
            commit,
        })
    }

    /// The final name the file takes when it is committed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `line` and its line end were written at byte `at`: compared
    /// in the write buffer if they are still there (repeats are often
    /// close), else read back from the file. The buffer is written out
    /// first only when the line runs into it: a line the kernel holds whole
    /// is read as it is, and the writes stay whole buffers.
    pub(crate) fn holds_line(&mut self, at: u64, line: &[u8]) -> io::Result<bool> {
        let holds = |earlier: &[u8]| {
            earlier.len() == line.len() + 1 && earlier[..line.len()] == *line && earlier[line.len()] == b'\n'
        };
        let buffered = self.writer.buffer();
        let handed_over = self.written - buffered.len() as u64;
        if let Some(start) = at.checked_sub(handed_over) {
            let start = start as usize;
            return Ok(buffered.get(start..start + line.len() + 1).is_some_and(holds));
        }
        if at.saturating_add(line.len() as u64 + 1) > handed_over {
            self.writer.flush()?;
        }
        let mut earlier = vec![0; line.len() + 1];
        match read_exact_at(self.writer.get_ref(), &mut earlier, at) {
            Ok(()) => Ok(holds(&earlier)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Asks the kernel to start writing to disk what the file holds beyond
    /// the last such request, without waiting for it. Left alone, the kernel
    /// would keep a run's output (gigabytes for all formats of a large
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
        Ok(FinishedFile { temp, path: self.path, target: self.target, commit: self.commit })
    }
}

/// The most bytes a file name may have (NAME_MAX on Linux and the BSDs).
const NAME_MAX: usize = 255;

/// `.NAME.`, the start of a temporary file's name (random letters and
/// `.tmp` follow): the output's name cut so that the whole fits NAME_MAX.
fn temp_prefix(target: &Path) -> String {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let room = NAME_MAX - ".".len() - ".".len() - RANDOM_LEN - ".tmp".len();
    let end = (0..=room.min(name.len())).rev().find(|&i| name.is_char_boundary(i)).unwrap_or(0);
    format!(".{}.", &name[..end])
}

/// Random letters in a temporary file's name.
const RANDOM_LEN: usize = 6;

/// The file an output is written into until it is committed.
enum Temp {
    /// A file with no name in the output's folder (Linux's `O_TMPFILE`),
    /// given one at commit.
    #[cfg(target_os = "linux")]
    Unnamed { file: fs::File, dir: PathBuf, prefix: String },
    /// A hidden file beside the output, removed when dropped.
    Named(tempfile::NamedTempFile),
}

impl Temp {
    /// A file with no name in `dir` where the system allows, else a hidden
    /// file named `prefix`, random letters and `.tmp`.
    fn create(dir: &Path, prefix: String) -> io::Result<Temp> {
        #[cfg(target_os = "linux")]
        if let Some(file) = unnamed_in(dir) {
            return Ok(Temp::Unnamed { file, dir: dir.to_path_buf(), prefix });
        }
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp").rand_bytes(RANDOM_LEN);
        // A temporary file is private (0600); the finished file should be as
        // readable as any other the user creates, so ask for 0666 less umask.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        Ok(Temp::Named(builder.tempfile_in(dir)?))
    }

    fn as_file(&self) -> &fs::File {
        match self {
            #[cfg(target_os = "linux")]
            Temp::Unnamed { file, .. } => file,
            Temp::Named(temp) => temp.as_file(),
        }
    }

    /// Puts the file under `target`'s name, replacing what was there
    /// (`Commit::Replacing`) or failing if anything is (an error of kind
    /// `AlreadyExists`). An unnamed file is linked: straight under the name
    /// when nothing may be replaced (a link never replaces), else under a
    /// hidden name beside it first, then renamed over it.
    fn persist(self, target: &Path, commit: Commit) -> io::Result<()> {
        match self {
            #[cfg(target_os = "linux")]
            Temp::Unnamed { file, dir, prefix } => {
                use std::os::fd::AsRawFd;
                let this = format!("/proc/self/fd/{}", file.as_raw_fd());
                let link = |name: &Path| {
                    let (cwd, follow) = (rustix::fs::CWD, rustix::fs::AtFlags::SYMLINK_FOLLOW);
                    rustix::fs::linkat(cwd, this.as_str(), cwd, name, follow).map_err(io::Error::from)
                };
                if commit == Commit::KeepingNewcomer {
                    return link(target);
                }
                let mut builder = tempfile::Builder::new();
                builder.prefix(&prefix).suffix(".tmp").rand_bytes(RANDOM_LEN);
                let named = builder.make_in(&dir, link)?;
                named.persist(target).map_err(|e| e.error)?;
            }
            Temp::Named(temp) if commit == Commit::KeepingNewcomer => {
                temp.persist_noclobber(target).map_err(|e| e.error)?;
            }
            Temp::Named(temp) => {
                temp.persist(target).map_err(|e| e.error)?;
            }
        }
        Ok(())
    }
}

/// A file with no name in `dir`, if the kernel and the file system make
/// one and it can be given a name later (through `/proc/self/fd`, which
/// needs no privilege, unlike `AT_EMPTY_PATH`).
#[cfg(target_os = "linux")]
fn unnamed_in(dir: &Path) -> Option<fs::File> {
    use rustix::fs::{Mode, OFlags};
    if !Path::new("/proc/self/fd").is_dir() {
        return None;
    }
    let flags = OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(rustix::fs::CWD, dir, flags, Mode::from_bits_truncate(0o666)).ok()?;
    Some(fd.into())
}

impl Write for Temp {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.as_file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(unix)]
fn read_exact_at(temp: &Temp, buf: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(temp.as_file(), buf, at)
}

/// Elsewhere a positioned read may move the shared cursor the writes go
/// through, so read through a handle of its own.
#[cfg(not(unix))]
fn read_exact_at(temp: &Temp, buf: &mut [u8], at: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let Temp::Named(temp) = temp;
    let mut reader = temp.reopen()?;
    reader.seek(SeekFrom::Start(at))?;
    reader.read_exact(buf)
}

#[cfg(unix)]
fn write_all_at(temp: &Temp, buf: &[u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(temp.as_file(), buf, at)
}

/// Elsewhere through a handle of its own, as [`read_exact_at`].
#[cfg(not(unix))]
fn write_all_at(temp: &Temp, buf: &[u8], at: u64) -> io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let Temp::Named(temp) = temp;
    let mut writer = temp.reopen()?;
    writer.seek(SeekFrom::Start(at))?;
    writer.write_all(buf)
}

/// An [`AtomicFile`] written out in full, waiting to be renamed into place;
/// dropped, it is removed like an uncommitted one.
pub struct FinishedFile {
    temp: Temp,
    path: PathBuf,
    target: PathBuf,
    commit: Commit,
}

impl FinishedFile {
    /// The final name the file takes when it is committed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the file into place. A file named by the user that another
    /// program made while the run wrote ([`AtomicFile::create_named`]) is
    /// kept, and the error says so.
    pub fn commit(self) -> io::Result<()> {
        self.temp.persist(&self.target, self.commit).map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists if self.commit == Commit::KeepingNewcomer => io::Error::new(
                io::ErrorKind::AlreadyExists,
                "a file appeared under this name while the run was writing it; it is kept, and nothing was written",
            ),
            _ => e,
        })
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
        return Err(io::Error::new(io::ErrorKind::InvalidInput, NotAFile::new(kind)));
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

/// Creates `dir` (and its parents) if it is missing. When something that
/// is no folder holds the name, the error says what: a loop of symbolic
/// links, a link to nothing, or a file (not the system's "File exists").
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() {
        return Ok(());
    }
    fs::create_dir_all(dir).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => in_the_way(dir).unwrap_or(e),
        _ => e,
    })
}

/// Why `dir`, which exists, cannot be used as a folder; none if it can.
fn in_the_way(dir: &Path) -> Option<io::Error> {
    match fs::metadata(dir) {
        Ok(metadata) if metadata.is_dir() => None,
        Ok(_) => Some(io::Error::other("a file is in the way of this folder")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Some(io::Error::other("a symbolic link to nothing is in the way of this folder"))
        }
        // A loop of links: "Too many levels of symbolic links".
        Err(e) => Some(e),
    }
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
        let buffered = file.writer.buffer().len();
        assert_eq!(answers(&mut file), expected);
        assert_eq!(file.writer.buffer().len(), buffered, "lines the kernel holds are read without a flush");
        assert!(file.holds_line(10, b"C40").unwrap());
    }

    #[test]
    fn a_line_half_in_the_write_buffer_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = AtomicFile::create(&dir.path().join("mode1.txt")).unwrap();
        // A line whose text is handed to the kernel and whose line end is
        // still buffered: BufWriter writes a chunk too big for its buffer
        // straight through.
        let long = vec![b'F'; 1 << 17];
        file.write_all(&long).unwrap();
        file.write_all(b"\n").unwrap();
        assert_eq!(file.writer.buffer(), b"\n", "the line end alone is buffered");
        assert!(file.holds_line(0, &long).unwrap());
        assert!(!file.holds_line(0, &long[1..]).unwrap());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_output_has_no_name_until_it_is_committed() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = AtomicFile::create(&dir.path().join("book.dat")).unwrap();
        file.write_all(b"bytes").unwrap();
        let finished = file.finish().unwrap();
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "nothing to leave behind if killed now");
        finished.commit().unwrap();
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["book.dat"]);
        assert_eq!(fs::read(dir.path().join("book.dat")).unwrap(), b"bytes");
    }

    #[test]
    fn a_named_output_never_replaces_a_file_that_appeared_while_it_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.dat");
        let mut file = AtomicFile::create_named(&path).unwrap();
        file.write_all(b"ours").unwrap();
        fs::write(&path, b"theirs").unwrap();
        let e = file.commit().expect_err("the newcomer is kept");
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists, "{e}");
        assert!(e.to_string().contains("appeared"), "{e}");
        assert_eq!(fs::read(&path).unwrap(), b"theirs");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "nothing left behind");
        // Named when it was there already (the command was told to replace it).
        let mut file = AtomicFile::create_named(&path).unwrap();
        file.write_all(b"ours").unwrap();
        file.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"ours");
        // Nothing there, nothing appearing: written as any output.
        let fresh = dir.path().join("fresh.dat");
        let mut file = AtomicFile::create_named(&fresh).unwrap();
        file.write_all(b"new").unwrap();
        file.commit().unwrap();
        assert_eq!(fs::read(&fresh).unwrap(), b"new");
    }

    #[test]
    fn an_output_name_of_any_allowed_length_gets_a_temporary_name_that_fits() {
        let dir = tempfile::tempdir().unwrap();
        let ascii = [5, 243, 244, 250, 255].map(|len| format!("{}.dat", "x".repeat(len - 4)));
        // 254 bytes of two-byte letters: cut at a letter's boundary.
        for name in ascii.into_iter().chain([format!("{}.dat", "é".repeat(125))]) {
            let len = name.len();
            assert!(temp_prefix(Path::new(&name)).len() + RANDOM_LEN + ".tmp".len() <= NAME_MAX, "{len} bytes");
            let path = dir.path().join(&name);
            let mut file = AtomicFile::create(&path).unwrap();
            file.write_all(b"x").unwrap();
            file.commit().unwrap_or_else(|e| panic!("{len} bytes: {e}"));
            assert_eq!(fs::read(&path).unwrap(), b"x");
        }
    }
}
