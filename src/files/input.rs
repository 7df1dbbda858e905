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

/// Where a file named by `path` really is, or will be once written: the
/// path with every folder that exists resolved (links, `.`, `..`), the
/// folders still missing appended as they will be made, and a link at any
/// step followed, a dangling one too (an output written through it lands
/// where it points, relative to the link's folder); and, where the file
/// exists, its device and inode, which tell a hard link. Comparing path
/// text alone misses two names of one file: `rc/x` and `$PWD/rc/x` before
/// `rc` is made, a link to a file not yet written.
#[derive(Clone, Debug)]
pub struct Landing {
    path: PathBuf,
    id: Option<(u64, u64)>,
}

/// Links followed in one path before giving up, as the system does (ELOOP):
/// a path that loops is left as it is, and writing it fails.
const MAX_LINKS: u32 = 40;

impl Landing {
    /// Where `path` lands, resolved from the current folder. Nothing is
    /// made: a folder that does not exist yet is taken as it will be made.
    pub fn of(path: &Path) -> Landing {
        let base = std::env::current_dir().unwrap_or_default();
        let mut links = MAX_LINKS;
        let path = resolve(&base, path, &mut links);
        let id = file_id(&path);
        Landing { path, id }
    }

    /// Whether two landings are one file: one path, or one inode.
    pub fn is(&self, other: &Landing) -> bool {
        self.path == other.path || (self.id.is_some() && self.id == other.id)
    }
}

/// `path` resolved from `base`, a folder resolved already: each existing
/// step replaced by its real path, each missing one kept as named (a
/// folder made later is a plain folder, so `..` after it goes back up).
fn resolve(base: &Path, path: &Path, links: &mut u32) -> PathBuf {
    let mut at = base.to_path_buf();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => at.push(component),
            Component::CurDir => {}
            Component::ParentDir => {
                at.pop();
            }
            Component::Normal(name) => at = step(at.join(name), links),
        }
    }
    at
}

/// `at`, whose folder is resolved, with its last step resolved: the real
/// path of what exists, where a dangling link leads, or `at` itself.
fn step(at: PathBuf, links: &mut u32) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(&at) {
        return real;
    }
    match std::fs::read_link(&at) {
        Ok(target) if *links > 0 => {
            *links -= 1;
            let folder = at.parent().unwrap_or(&at).to_path_buf();
            resolve(&folder, &target, links)
        }
        _ => at,
    }
}

/// The device and inode of the file at `path`, if it exists.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    let metadata = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((metadata.dev(), metadata.ino()))
    }
    // Elsewhere only the resolved paths tell (a hard link is then missed).
    #[cfg(not(unix))]
    {
        let _ = metadata;
        None
    }
}

/// Whether two paths, which need not exist, name one file once written:
/// where each really lands ([`Landing`]) is one path or one inode.
pub fn same_destination(a: &Path, b: &Path) -> bool {
    Landing::of(a).is(&Landing::of(b))
}

/// The first two of `paths` that name one file once written
/// ([`same_destination`]): one of them would be lost to the other.
pub fn first_on_one_file<'a>(paths: &[&'a Path]) -> Option<(&'a Path, &'a Path)> {
    let landings: Vec<Landing> = paths.iter().map(|path| Landing::of(path)).collect();
    for (j, later) in landings.iter().enumerate() {
        if let Some(i) = landings[..j].iter().position(|earlier| earlier.is(later)) {
            return Some((paths[i], paths[j]));
        }
    }
    None
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
/// symbolic link, `./x`, a folder not made yet): writing it would destroy
/// what is being read. An error when `input` cannot be asked about.
pub fn output_over_input<'a>(input: &Path, outputs: &[&'a Path]) -> io::Result<Option<&'a Path>> {
    std::fs::metadata(input)?;
    let input = Landing::of(input);
    Ok(outputs.iter().copied().find(|output| Landing::of(output).is(&input)))
}

/// The command that refuses an output over its input, for the refusal's
/// words ([`OverInput`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// `fix`'s book and receipt.
    Fix,
    /// A growth command's book and journal, in the command's name
    /// (extend, grow, deepen).
    Growth(&'static str),
    /// `add`'s book and journal, beside a book and the game files read.
    Add,
    /// `merge`'s book and receipt.
    Merge,
    /// Mining's files.
    Mine,
    /// `diff`'s lines.
    Diff,
    /// `check`'s lines, beside a book and the game files read.
    Check,
    /// Any book written (`write::BookOut`): convert, cut, and the
    /// others' last guard.
    Book,
}

/// An output that is, by some path, a book the run reads: writing it would
/// destroy the book. The one refusal of every command, in its words.
#[derive(Debug, thiserror::Error)]
#[error("{}: {} ({}); {}", output.display(), self.is(), input.display(), self.advice())]
pub struct OverInput {
    /// The output, as the command line names it.
    pub output: PathBuf,
    /// The input it would be written over.
    pub input: PathBuf,
    /// The command that refuses it.
    pub writer: Writer,
}

impl OverInput {
    /// The first of `outputs` that is `input` by some path
    /// ([`output_over_input`]), refused in `writer`'s words; an error when
    /// `input` cannot be asked about.
    pub fn find(input: &Path, outputs: &[&Path], writer: Writer) -> io::Result<Option<OverInput>> {
        let over = output_over_input(input, outputs)?;
        Ok(over.map(|output| OverInput { output: output.to_path_buf(), input: input.to_path_buf(), writer }))
    }

    fn is(&self) -> &'static str {
        match self.writer {
            Writer::Fix | Writer::Growth(_) | Writer::Mine => "is the book being read",
            Writer::Diff | Writer::Merge => "is a book being read",
            Writer::Check | Writer::Add => "is a file being read (the book or a game file)",
            Writer::Book => "this is the book being read",
        }
    }

    fn advice(&self) -> String {
        let never = |command: &str| format!("{command} never writes over its input");
        match self.writer {
            Writer::Fix => never("fix"),
            Writer::Growth(command) => never(command),
            Writer::Add => never("add"),
            Writer::Merge => never("merge"),
            Writer::Mine => "name another out_dir (or -o file)".into(),
            Writer::Diff | Writer::Check => "name another out_dir".into(),
            Writer::Book => "write the result to another file".into(),
        }
    }
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

    /// The refusal, as an I/O error, of an output that is `what` ([`describe`]'s words).
    pub fn error(what: &'static str) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, NotAFile(what))
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
        let over = |output: &Path| output_over_input(&book, &[output]).unwrap().is_some();
        for other in [&book, &hard, &soft, &dotted] {
            assert!(over(other), "{}", other.display());
        }
        assert!(!over(&copy), "a copy is another file");
        assert!(!over(&dir.path().join("missing.dat")));
        assert!(output_over_input(&dir.path().join("missing.dat"), &[&book]).is_err());
    }

    /// Two names land on one file however they get there: through a folder
    /// not made yet (by path text that differs), a link to a file not
    /// written yet, `..` after a missing folder, a linked folder.
    #[cfg(unix)]
    #[test]
    fn where_a_file_lands_is_known_before_its_folder_or_file_exists() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name);
        let relative = |name: &str| at(".").join("x/..").join(name);
        std::fs::create_dir(at("o")).unwrap();
        std::os::unix::fs::symlink("../f.dat", at("o/fix.jsonl")).unwrap();
        std::os::unix::fs::symlink("o", at("linked")).unwrap();
        std::os::unix::fs::symlink("loop", at("loop")).unwrap();
        let one_file = [
            (at("new/x.dat"), relative("new/x.dat")),
            (at("new/x.dat"), at("new/sub/../x.dat")),
            (at("o/fix.jsonl"), at("f.dat")),
            (at("linked/fix.jsonl"), at("f.dat")),
            (at("linked/y"), at("o/y")),
            (at("o/../new/y"), at("new/y")),
        ];
        for (a, b) in &one_file {
            assert!(same_destination(a, b), "{} and {}", a.display(), b.display());
            assert!(same_destination(b, a), "{} and {}", b.display(), a.display());
        }
        for (a, b) in [(at("new/x.dat"), at("new/y.dat")), (at("o/fix.jsonl"), at("o/f.dat")), (at("loop"), at("o"))] {
            assert!(!same_destination(&a, &b), "{} and {}", a.display(), b.display());
        }
        assert!(!at("new").exists(), "nothing is made");
        let paths = [at("a"), at("o/fix.jsonl"), at("b"), at("f.dat")];
        let paths: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        assert_eq!(first_on_one_file(&paths), Some((paths[1], paths[3])));
        assert_eq!(first_on_one_file(&paths[..3]), None);
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
