//! Opening the files a user names. A book is mapped, so it must be a
//! regular file, and anything else is refused before it is opened (a FIFO
//! would block the open until some program wrote to it). A config or
//! positions file is read whole, from wherever it comes (`/dev/null`, a
//! pipe such as `<(grep … )`), but never past a size no such file needs:
//! `/dev/zero` would otherwise fill memory.

use std::fs::{File, FileType, Metadata};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// Opens a file for reading if it is a regular file. The path is asked
/// before opening, so that a FIFO is refused instead of waited on, and the
/// file opened is asked again, in case the path changed in between.
pub fn open_regular(path: &Path) -> io::Result<(File, Metadata)> {
    refuse_unless_regular(&std::fs::metadata(path)?)?;
    let file = File::open(path)?;
    let metadata = file.metadata()?;
    refuse_unless_regular(&metadata)?;
    Ok((file, metadata))
}

/// Reads a file whole, failing once it holds more than `limit` bytes (a
/// size the caller's kind of file never needs) instead of reading on.
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("more than {limit} bytes, far more than such a file holds"),
        ));
    }
    Ok(bytes)
}

/// Whether `a` and `b` name the same file, by whatever paths (a hard link,
/// a symbolic link, `./x` and `x`): the same device and inode. False when
/// `b` does not exist; an error when `a` cannot be asked about.
pub fn same_file(a: &Path, b: &Path) -> io::Result<bool> {
    let a_metadata = std::fs::metadata(a)?;
    let b_metadata = match std::fs::metadata(b) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = (a, b);
        Ok((a_metadata.dev(), a_metadata.ino()) == (b_metadata.dev(), b_metadata.ino()))
    }
    // Elsewhere only the paths tell, once every link in them is followed
    // (a hard link is then missed).
    #[cfg(not(unix))]
    {
        let _ = (a_metadata, b_metadata);
        Ok(std::fs::canonicalize(a)? == std::fs::canonicalize(b)?)
    }
}

/// Whether two paths, which need not exist, name one file once written:
/// the same file by any path, or the same file name in the same folder
/// (folders compared by [`resolved`], so that `$PWD/run` and `run` are one
/// folder before `run` is made).
pub fn same_destination(a: &Path, b: &Path) -> bool {
    if same_file(a, b).unwrap_or(false) {
        return true;
    }
    let folder = |p: &Path| resolved(p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")));
    a.file_name() == b.file_name() && folder(a) == folder(b)
}

/// A folder's path as it will be once made: its deepest part that exists
/// with every link followed (canonicalized), then the rest, whose `.` and
/// `..` are folded by name (no part of it can be a link yet). Two paths to
/// one folder, relative or absolute, resolve alike whether or not it exists.
pub fn resolved(dir: &Path) -> PathBuf {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let (mut path, rest) = absolute
        .ancestors()
        .find_map(|known| Some((std::fs::canonicalize(known).ok()?, absolute.strip_prefix(known).ok()?)))
        .unwrap_or_else(|| (PathBuf::new(), absolute.as_path()));
    for part in rest.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                path.pop();
            }
            part => path.push(part),
        }
    }
    path
}

fn refuse_unless_regular(metadata: &Metadata) -> io::Result<()> {
    match metadata.file_type() {
        kind if kind.is_file() => Ok(()),
        kind => Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{}, not a regular file", describe(kind)))),
    }
}

/// What a file that is not a regular file is, in a few words.
pub(crate) fn describe(kind: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// The first of `outputs` that is the file `input` by some path (a hard or
/// symbolic link, `./x`): writing it would destroy what is being read.
pub fn output_over_input<'a>(input: &Path, outputs: &[&'a Path]) -> io::Result<Option<&'a Path>> {
    for &output in outputs {
        if same_file(input, output)? {
            return Ok(Some(output));
        }
    }
    Ok(None)
}

/// An output that exists and is not a regular file: never replaced.
#[derive(Debug, thiserror::Error)]
#[error("{0}, not a regular file: an output is never written over one; name a file")]
pub struct NotAFile(&'static str);

impl NotAFile {
    /// The refusal of an output whose file is of `kind`.
    pub fn new(kind: FileType) -> NotAFile {
        NotAFile(describe(kind))
    }
}

/// Whether an error is the refusal of an output that is not a regular file
/// (bad arguments, not a failure to write).
pub fn is_not_a_file(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|inner| inner.is::<NotAFile>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal<T: std::fmt::Debug>(result: io::Result<T>) -> String {
        result.expect_err("refused").to_string()
    }

    #[test]
    fn books_must_be_regular_files_and_are_refused_otherwise_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("book.dat");
        std::fs::write(&file, b"XADEKOOB").unwrap();
        assert_eq!(open_regular(&file).unwrap().1.len(), 8);
        assert_eq!(refusal(open_regular(dir.path())), "a directory, not a regular file");
        #[cfg(unix)]
        {
            assert_eq!(refusal(open_regular(Path::new("/dev/zero"))), "a device, not a regular file");
            let fifo = dir.path().join("fifo");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs").success());
            // Opened for reading, a FIFO with no writer would block here.
            assert_eq!(refusal(open_regular(&fifo)), "a named pipe (FIFO), not a regular file");
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_same_file_is_known_by_any_path_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let (book, copy) = (dir.path().join("book.dat"), dir.path().join("copy.dat"));
        std::fs::write(&book, b"XADEKOOB").unwrap();
        std::fs::write(&copy, b"XADEKOOB").unwrap();
        let hard = dir.path().join("hard.dat");
        std::fs::hard_link(&book, &hard).unwrap();
        let soft = dir.path().join("soft.dat");
        std::os::unix::fs::symlink(&book, &soft).unwrap();
        let dotted = dir.path().join(".").join("book.dat");
        for other in [&book, &hard, &soft, &dotted] {
            assert!(same_file(&book, other).unwrap(), "{}", other.display());
        }
        assert!(!same_file(&book, &copy).unwrap(), "a copy is another file");
        assert!(!same_file(&book, &dir.path().join("missing.dat")).unwrap());
        assert!(same_file(&dir.path().join("missing.dat"), &book).is_err());
    }

    #[test]
    fn one_destination_is_known_by_any_path_before_its_folder_exists() {
        let dir = tempfile::tempdir().unwrap();
        let absolute = dir.path().join("run/extend.jsonl");
        let dotted = dir.path().join("x/../run/./extend.jsonl");
        for path in [&absolute, &dotted] {
            assert!(same_destination(path, &dir.path().join("run").join("extend.jsonl")), "{}", path.display());
        }
        assert!(!same_destination(&absolute, &dir.path().join("run/other.jsonl")));
        assert!(!same_destination(&absolute, &dir.path().join("walk/extend.jsonl")));
        // Relative to the working folder, as a user types it.
        let here = std::env::current_dir().unwrap().join("not-made-yet/o/extend.jsonl");
        assert!(same_destination(&here, Path::new("not-made-yet/o/extend.jsonl")));
        assert_eq!(resolved(Path::new("not-made-yet/o")), resolved(&here.parent().unwrap().join(".")));
    }

    #[test]
    fn small_files_are_read_from_anywhere_and_endless_ones_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, b"mode = 2\n").unwrap();
        assert_eq!(read_bounded(&file, 9).unwrap(), b"mode = 2\n");
        assert!(refusal(read_bounded(&file, 8)).starts_with("more than 8 bytes"));
        #[cfg(unix)]
        {
            assert_eq!(read_bounded(Path::new("/dev/null"), 10).unwrap(), b"");
            assert!(refusal(read_bounded(Path::new("/dev/zero"), 1000)).starts_with("more than 1000 bytes"));
            // A pipe with a writer, as `--config <(…)` gives.
            let fifo = dir.path().join("fifo");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs").success());
            let writer = {
                let fifo = fifo.clone();
                std::thread::spawn(move || std::fs::write(fifo, b"mode = 3\n").unwrap())
            };
            assert_eq!(read_bounded(&fifo, 100).unwrap(), b"mode = 3\n");
            writer.join().unwrap();
        }
    }
}
