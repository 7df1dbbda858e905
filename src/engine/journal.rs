//! The journal, `{out_dir}/extend.jsonl`: one line per search, written as
//! soon as the engine answers, and read back by the next run, which takes
//! every answer it holds instead of searching again. An interrupted run
//! loses only the searches under way.
//!
//! A line: `{"board":"…","side":"X","level":60,"excluded":["A5"],"move":"G4",
//! "score":-4,"engine":"edax …","protocol":"edax","seconds":0.918}`, keys
//! in this order. An answer is taken again only for the same search
//! (board, side, level, moves left out) from the same engine command
//! speaking the same protocol: another engine, or the same one spoken to
//! otherwise, may answer otherwise where a search is not exact. A line
//! without a protocol was written before there was a choice: Edax's.
//!
//! One run at a time: a run holds an exclusive lock on the journal, and
//! another is refused at once, told which process holds it. Nothing is
//! changed in the file before all of it has been read as a journal: a file
//! that is not one (a book, a log named where the journal goes) is refused
//! as it is, never cut.

use super::protocol::Protocol;
use super::search::{Answer, Query};
use crate::board::Square;
use crate::choice::Choice;
use crate::failure::{io_kind, ErrorKind};
use crate::level::Level;
use crate::output::text::push_square;
use hashbrown::HashMap;
use serde::Deserialize;
use smallvec::SmallVec;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The journal's name in the output folder.
pub const JOURNAL: &str = "extend.jsonl";

// How the journal's lines begin is told where every file is told from its
// first bytes (src/files/existing.rs), which knows nothing of engines.
pub use crate::files::existing::starts_as_journal;
use crate::files::existing::{JOURNAL_EXPANSION_START as EXPANSION_START, JOURNAL_LINE_START as LINE_START};

/// Why the journal cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The journal could not be opened, read, written or locked.
    #[error("{}: {source}", path.display())]
    Io {
        /// The journal.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// A FIFO would be waited on for ever, a device read without end.
    #[error("{}: {what}, not a regular file: the journal must be one; name another out_dir", path.display())]
    NotAFile {
        /// The journal.
        path: PathBuf,
        /// What kind of file it is.
        what: &'static str,
    },
    /// Another run holds the journal.
    #[error("{}: in use by another run ({}); a journal serves one run at a time: wait for that one to end, or name another out_dir", path.display(), holder_text(*holder))]
    Locked {
        /// The journal.
        path: PathBuf,
        /// The process that holds it, if /proc/locks names it.
        holder: Option<u32>,
    },
    /// The file's first line is not a journal's: it is left as it is.
    #[error("{}: line 1: {why}: not a journal of extend, so left as it is; name another out_dir, or move the file away", path.display())]
    NotAJournal {
        /// The file.
        path: PathBuf,
        /// Why its first line does not read.
        why: String,
    },
    /// A line after the first does not read.
    #[error("{}: line {line}: {why}; move the file away to start a new journal", path.display())]
    BadLine {
        /// The journal.
        path: PathBuf,
        /// The line, counted from 1.
        line: usize,
        /// Why it does not read.
        why: String,
    },
}

/// The process that holds a journal, for messages.
fn holder_text(holder: Option<u32>) -> String {
    match holder {
        Some(pid) => format!("process {pid}"),
        None => "a process not listed in /proc/locks: on another machine sharing the folder?".to_string(),
    }
}

impl JournalError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            JournalError::Io { source, .. } => io_kind(source),
            JournalError::NotAFile { .. }
            | JournalError::Locked { .. }
            | JournalError::NotAJournal { .. }
            | JournalError::BadLine { .. } => ErrorKind::BadInput,
        }
    }

    /// The error of line `line` (counted from 1), which does not read.
    fn bad_line(path: &Path, line: usize, why: String) -> JournalError {
        match line {
            1 => JournalError::NotAJournal { path: path.to_path_buf(), why },
            line => JournalError::BadLine { path: path.to_path_buf(), line, why },
        }
    }
}

/// The journal file, open for appending and locked, and the answers it held.
pub struct Journal {
    path: PathBuf,
    file: File,
    /// Each answer, with the engine that gave it.
    held: Held,
    /// This run's engines: only their answers are taken.
    serving: Vec<Identity>,
    /// Answers taken from the journal by this run, by engine.
    taken: Vec<u64>,
    /// Where the journal of earlier runs was set aside (`--fresh`).
    set_aside: Option<PathBuf>,
    /// The run's hold on the file: let go (and an empty journal the run
    /// made removed) only once the journal read is gone too.
    _hold: Arc<Taken>,
}

/// An engine command line of the journal and the protocol it spoke, as
/// an index of [`Held::engines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EngineId(usize);

/// Who gave an answer: an engine command line and the protocol it spoke.
pub type Identity = (String, Protocol);

/// The answers this run took from the journal that one engine command gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TakenFrom {
    /// The engine's command line, as the journal names it.
    pub engine: String,
    /// The protocol it spoke.
    pub protocol: Protocol,
    /// How many answers of that command were taken.
    pub answers: u64,
    /// Whether the command is one of this run's engines.
    pub this_run: bool,
}

/// The journal's answers: each search's, by the engine that gave each
/// (an index of `engines`), the latest last; and the engines the journal
/// names, each once.
#[derive(Default)]
struct Held {
    answers: HashMap<Query, SmallVec<[(Answer, EngineId); 1]>>,
    engines: Vec<Identity>,
}

impl Held {
    /// Keeps `answer` to `query`, given by `engine` speaking `protocol` (a
    /// later line for the same search by the same engine replaces an
    /// earlier one).
    fn insert(&mut self, (query, answer, engine, protocol): (Query, Answer, &str, Protocol)) {
        let id = match self.engines.iter().position(|(e, p)| e == engine && *p == protocol) {
            Some(i) => EngineId(i),
            None => {
                self.engines.push((engine.to_string(), protocol));
                EngineId(self.engines.len() - 1)
            }
        };
        let given = self.answers.entry(query).or_default();
        given.retain(|(_, by)| *by != id);
        given.push((answer, id));
    }
}

/// A line as written. `engine` is required (every line has it, and a line
/// without it is not ours); `protocol` is not (lines written before there
/// was a choice have none: Edax's).
#[derive(Deserialize)]
struct Line {
    board: String,
    side: String,
    level: u8,
    excluded: Vec<String>,
    #[serde(rename = "move")]
    mv: String,
    score: i8,
    engine: String,
    #[serde(default)]
    protocol: Option<String>,
}

/// What follows the journal's last newline.
enum Tail {
    Nothing,
    /// A whole line that lacks only its newline: kept, the newline added.
    Whole,
    /// A line cut short by a kill, from this byte on: taken off.
    CutShort(u64),
}

/// The journal taken for one run: its file, open and locked, from before
/// the run starts an engine or removes a folder a killed run left, until
/// the run ends ([`Journal::lock_for_run`]). The journal is read from it
/// ([`Journal::read`]); a journal the run made and never wrote to is
/// removed when the run lets it go, so that a run refused before any
/// search leaves no empty journal behind.
#[derive(Debug)]
pub struct Taken {
    path: PathBuf,
    file: File,
    /// Made by this run, and to be removed at its end if still empty.
    made: bool,
}

/// Times the path is opened again when its file was replaced between the
/// open and the lock (a run ending that removed the journal it made).
const TAKE_TRIES: usize = 8;

impl Journal {
    /// Takes (or starts) the journal at `path` for one run: it must be a
    /// regular file (or nothing yet), and is locked until the run lets the
    /// [`Taken`] go; another run that holds it is named. Nothing in it is
    /// read or changed yet.
    pub fn lock_for_run(path: &Path) -> Result<Taken, JournalError> {
        let io = |source| JournalError::Io { path: path.to_path_buf(), source };
        for _ in 0..TAKE_TRIES {
            // Asked before opening, so that a FIFO is refused, not waited on.
            match std::fs::metadata(path) {
                Ok(metadata) => refuse_unless_regular(path, &metadata)?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => refuse_link_to_nothing(path)?,
                Err(e) => return Err(io(e)),
            }
            let (file, made) = open_or_create(path).map_err(io)?;
            // And again once open, in case the path changed in between.
            refuse_unless_regular(path, &file.metadata().map_err(io)?)?;
            lock(path, &file)?;
            // A run that made the journal and removed it, empty, as it
            // ended, may have done so between the open and the lock: the
            // file locked is then no longer the journal's. Open it anew.
            if !still_named(path, &file) {
                continue;
            }
            if made {
                sync_folder(path).map_err(io)?;
            }
            return Ok(Taken { path: path.to_path_buf(), file, made });
        }
        Err(io(io::Error::other("the journal was replaced again and again while it was being opened")))
    }

    /// Opens (or starts) the journal at `path` and locks it, as
    /// [`Journal::lock_for_run`] and [`Journal::read`] do; kept when the journal
    /// is let go, empty or not (the tests' way in).
    #[cfg(test)]
    pub fn open(path: &Path) -> Result<Journal, JournalError> {
        let mut taken = Journal::lock_for_run(path)?;
        taken.made = false;
        Journal::read(&Arc::new(taken))
    }

    /// Reads the journal a run took. Every line is read before anything is
    /// changed: a last line cut short (the run was killed while writing it)
    /// is then taken off, a last line lacking only its newline given one;
    /// any other line that does not read is an error, and the file is left
    /// as it is. The journal read holds the run's lock as long as it lives.
    pub fn read(taken: &Arc<Taken>) -> Result<Journal, JournalError> {
        let path = taken.path.as_path();
        let io = |source| JournalError::Io { path: path.to_path_buf(), source };
        let mut file = taken.file.try_clone().map_err(io)?;
        let mut text = Vec::new();
        file.seek(io::SeekFrom::Start(0)).and_then(|_| file.read_to_end(&mut text)).map_err(io)?;
        let (held, tail) = read_lines(path, &text)?;
        match tail {
            Tail::Nothing => {}
            Tail::Whole => {
                file.write_all(b"\n").and_then(|()| file.sync_data()).map_err(io)?;
            }
            Tail::CutShort(at) => {
                tracing::warn!(
                    "{}: its last line was cut short (a run stopped while writing it); taken off",
                    path.display()
                );
                file.set_len(at).map_err(io)?;
                file.seek(io::SeekFrom::End(0)).map_err(io)?;
            }
        }
        let counts = vec![0; held.engines.len()];
        let hold = Arc::clone(taken);
        Ok(Journal {
            path: path.to_path_buf(),
            file,
            held,
            serving: Vec::new(),
            taken: counts,
            set_aside: None,
            _hold: hold,
        })
    }

    /// Reads the journal a run took, as [`Journal::read`] does; when
    /// `fresh`, a journal with answers is first set aside
    /// ([`Journal::set_aside`]) and a new, empty one taken in its place: a
    /// run that searches everything anew starts an empty journal.
    pub fn read_for_run(taken: &Arc<Taken>, fresh: bool) -> Result<Journal, JournalError> {
        let journal = Journal::read(taken)?;
        if !fresh || journal.is_empty() {
            return Ok(journal);
        }
        let aside = journal.set_aside()?;
        let anew = Journal::read(&Arc::new(Journal::lock_for_run(&taken.path)?))?;
        Ok(Journal { set_aside: Some(aside), ..anew })
    }

    /// Where the journal of earlier runs was set aside, if it was.
    pub fn set_aside_as(&self) -> Option<&Path> {
        self.set_aside.as_deref()
    }

    /// Sets this journal aside for a run that searches everything anew
    /// (`--fresh`): given the name `extend.N.jsonl` beside it, N the first
    /// number free, never deleted; its new path. It was read whole as a
    /// journal first, and is held, so left to no other run, until it has
    /// its new name.
    fn set_aside(&self) -> Result<PathBuf, JournalError> {
        let path = self.path.as_path();
        let io = |source| JournalError::Io { path: path.to_path_buf(), source };
        let aside = link_aside(path).map_err(io)?;
        std::fs::remove_file(path).map_err(io)?;
        sync_folder(path).map_err(io)?;
        tracing::info!("{}: set aside as {} (--fresh), {} answers", path.display(), aside.display(), self.len());
        Ok(aside)
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Answers held.
    pub fn len(&self) -> usize {
        self.held.answers.len()
    }

    /// No answer held.
    pub fn is_empty(&self) -> bool {
        self.held.answers.is_empty()
    }

    /// The latest answer the journal holds for `query`, whichever engine gave it.
    #[cfg(test)]
    pub fn answer(&self, query: &Query) -> Option<Answer> {
        self.held.answers.get(query).and_then(|given| given.last()).map(|&(answer, _)| answer)
    }

    /// Names this run's engines, each a command line and the protocol it
    /// speaks: only answers they gave are taken.
    pub fn serve(&mut self, engines: Vec<Identity>) {
        self.serving = engines;
    }

    /// The answer the journal holds for `query` from one of this run's
    /// engines (the latest written, if several gave one), counted as taken
    /// from it.
    pub fn take(&mut self, query: &Query) -> Option<Answer> {
        let given = self.held.answers.get(query)?;
        let serves = |id: &EngineId| self.serving.contains(&self.held.engines[id.0]);
        let &(answer, EngineId(engine)) = given.iter().rev().find(|(_, id)| serves(id))?;
        self.taken[engine] += 1;
        Some(answer)
    }

    /// The answers taken so far by this run, by the engine command that
    /// gave them, in the order the journal first names each engine; each
    /// said to be of this run or not (`run`: this run's engine commands;
    /// only their answers are taken, [`Journal::serve`]).
    pub fn taken_from(&self, run: &[&str]) -> Vec<TakenFrom> {
        let taken = self.held.engines.iter().zip(&self.taken).filter(|(_, &n)| n > 0);
        let taken: Vec<TakenFrom> = taken
            .map(|((engine, protocol), &answers)| TakenFrom {
                engine: engine.clone(),
                protocol: *protocol,
                answers,
                this_run: run.contains(&&**engine),
            })
            .collect();
        taken
    }

    /// Notes an expansion `grow` dispatched: the position expanded, its D
    /// and its priority (docs/grow.md). Read back as a note, not an answer.
    pub fn expansion(&mut self, board: &crate::board::Board, d: f64, priority: f64) -> Result<(), JournalError> {
        let query = Query { board: *board, excluded: crate::board::Squares::NONE, level: Level::default() };
        let (board, side) = (query.board_text(), query.side());
        let line = format!("{{\"expand\":\"{board}\",\"side\":\"{side}\",\"d\":{d},\"priority\":{priority}}}\n");
        let io = |source| JournalError::Io { path: self.path.clone(), source };
        self.file.write_all(line.as_bytes()).map_err(io)?;
        self.file.sync_data().map_err(io)
    }

    /// Writes an answer down, with the command line of the engine that
    /// gave it and the protocol it spoke, through to the disk, before it
    /// is used.
    pub fn record(
        &mut self,
        query: &Query,
        answer: Answer,
        (engine, protocol): (&str, Protocol),
        took: Duration,
    ) -> Result<(), JournalError> {
        let line = line_of(query, answer, (engine, protocol), took);
        let io = |source| JournalError::Io { path: self.path.clone(), source };
        // One write: a kill between two writes cannot leave half a line
        // followed by another line.
        self.file.write_all(line.as_bytes()).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.held.insert((*query, answer, engine, protocol));
        self.taken.resize(self.held.engines.len(), 0);
        Ok(())
    }
}

/// Gives the journal at `path` a second name, `extend.N.jsonl` beside it,
/// N the first number whose name is free (a name taken is never replaced).
fn link_aside(path: &Path) -> io::Result<PathBuf> {
    let stem = path.file_stem().map_or("extend".into(), |s| s.to_string_lossy().into_owned());
    for n in 1..=u32::MAX {
        let aside = path.with_file_name(format!("{stem}.{n}.jsonl"));
        match std::fs::hard_link(path, &aside) {
            Ok(()) => return Ok(aside),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("no free name to set the journal aside"))
}

/// Refuses a journal that exists and is not a regular file (a link to one
/// is one).
fn refuse_unless_regular(path: &Path, metadata: &std::fs::Metadata) -> Result<(), JournalError> {
    match metadata.file_type() {
        kind if kind.is_file() => Ok(()),
        kind => Err(JournalError::NotAFile { path: path.to_path_buf(), what: crate::files::input::describe(kind) }),
    }
}

/// Refuses a symbolic link to nothing: the journal would be made wherever
/// it points (OUT's name, say), not in out_dir.
fn refuse_link_to_nothing(path: &Path) -> Result<(), JournalError> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            Err(JournalError::NotAFile { path: path.to_path_buf(), what: "a symbolic link to nothing" })
        }
        _ => Ok(()),
    }
}

/// Opens the journal for reading and appending, making it if there is
/// none; true if it was made. Never waits on the open (a FIFO put in its
/// place after it was asked about is refused once open).
fn open_or_create(path: &Path) -> io::Result<(File, bool)> {
    let mut options = OpenOptions::new();
    options.read(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    match options.clone().create_new(true).open(path) {
        Ok(file) => Ok((file, true)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok((options.open(path)?, false)),
        Err(e) => Err(e),
    }
}

/// Whether another process holds the file at `path` locked, as a live run
/// holds its journal: `Some` with the process when `/proc/locks` names it.
/// None when nobody does, or when the file cannot be asked (missing, no
/// regular file: then nothing holds it the way a run does).
pub fn holder_of(path: &Path) -> Option<Option<u32>> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).ok()?;
    // Shared: it conflicts only with a run's own, exclusive, lock.
    match file.try_lock_shared() {
        Err(std::fs::TryLockError::WouldBlock) => Some(lock_holder(&file)),
        Ok(()) | Err(std::fs::TryLockError::Error(_)) => None,
    }
}

impl Drop for Taken {
    /// Removes the journal the run made if nothing was written to it, the
    /// lock still held: a run that later opens the same path and finds it
    /// gone makes a new one ([`Journal::lock_for_run`] checks it locked that one).
    fn drop(&mut self) {
        let empty = self.file.metadata().is_ok_and(|m| m.len() == 0);
        if self.made && empty && still_named(&self.path, &self.file) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether `path` still names the file open as `file` (one device and
/// inode): not removed, nor replaced, since it was opened.
fn still_named(path: &Path, file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let id = |m: std::fs::Metadata| (m.dev(), m.ino());
        match (std::fs::metadata(path), file.metadata()) {
            (Ok(named), Ok(open)) => id(named) == id(open),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (path, file);
        true
    }
}

/// Takes the journal for this run alone, or says which process has it.
fn lock(path: &Path, file: &File) -> Result<(), JournalError> {
    held_by_another(path, file, file.try_lock())
}

/// The refusal of a journal whose lock could not be taken, naming the
/// process that holds it.
fn held_by_another(path: &Path, file: &File, locked: Result<(), std::fs::TryLockError>) -> Result<(), JournalError> {
    match locked {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => {
            Err(JournalError::Locked { path: path.to_path_buf(), holder: lock_holder(file) })
        }
        Err(std::fs::TryLockError::Error(source)) => Err(JournalError::Io { path: path.to_path_buf(), source }),
    }
}

/// The process holding the lock on `file`, as `/proc/locks` lists it
/// (Linux; a lock taken on another machine sharing the folder is not
/// listed there).
fn lock_holder(file: &File) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        let metadata = file.metadata().ok()?;
        let locks = std::fs::read_to_string("/proc/locks").ok()?;
        holder_in(&locks, metadata.dev(), metadata.ino())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}

/// The process of the `flock` lock that `/proc/locks` lists for the file
/// `(dev, ino)`: `1: FLOCK  ADVISORY  WRITE 4091 fe:00:5349956 0 EOF`
/// (device as major:minor in hex, then the inode). A lock waited for
/// (`1: -> FLOCK …`) is not held. Some file systems list another device
/// than the one `stat` gives: then the inode alone tells.
#[cfg(any(target_os = "linux", test))]
fn holder_in(locks: &str, dev: u64, ino: u64) -> Option<u32> {
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0xfff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0xff);
    let held = locks.lines().filter_map(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [_, "FLOCK", _, _, pid, file, ..] = words.as_slice() else { return None };
        let mut parts = file.split(':');
        let (lock_major, lock_minor, lock_ino) = (parts.next()?, parts.next()?, parts.next()?);
        let same_device =
            u64::from_str_radix(lock_major, 16) == Ok(major) && u64::from_str_radix(lock_minor, 16) == Ok(minor);
        (lock_ino.parse() == Ok(ino)).then(|| Some((same_device, pid.parse::<u32>().ok()?)))?
    });
    let held: Vec<(bool, u32)> = held.collect();
    held.iter().find(|(same_device, _)| *same_device).or(held.first()).map(|&(_, pid)| pid)
}

/// Makes the journal's new name durable: a journal made just before a
/// crash must still be there with the answers written to it.
fn sync_folder(path: &Path) -> io::Result<()> {
    let folder = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    File::open(folder)?.sync_all()
}

/// Reads every line of the journal's bytes, changing nothing: the answers
/// (a later line for the same search replaces an earlier one), and what
/// follows the last newline. Any line that does not read is an error,
/// but for a last line that begins as the journal's lines do, which a kill
/// cut short.
fn read_lines(path: &Path, text: &[u8]) -> Result<(Held, Tail), JournalError> {
    let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut answers = Held::default();
    let lines = text[..whole].split(|&b| b == b'\n').enumerate().filter(|(_, l)| !l.is_empty());
    for (i, line) in lines {
        if let Some((query, answer, engine, protocol)) =
            read_line(line).map_err(|why| JournalError::bad_line(path, i + 1, why))?
        {
            answers.insert((query, answer, &engine, protocol));
        }
    }
    let last = &text[whole..];
    if last.is_empty() {
        return Ok((answers, Tail::Nothing));
    }
    match read_line(last) {
        Ok(read) => {
            if let Some((query, answer, engine, protocol)) = read {
                answers.insert((query, answer, &engine, protocol));
            }
            Ok((answers, Tail::Whole))
        }
        Err(_) if [LINE_START, EXPANSION_START].iter().any(|s| last.starts_with(s) || s.starts_with(last)) => {
            Ok((answers, Tail::CutShort(whole as u64)))
        }
        Err(why) => {
            let line = 1 + text[..whole].iter().filter(|&&b| b == b'\n').count();
            Err(JournalError::bad_line(path, line, why))
        }
    }
}

/// A line read: the search, its answer, the engine that gave it and the
/// protocol it spoke.
type Noted = (Query, Answer, String, Protocol);

/// One line: the search, its answer, the engine that gave it and its
/// protocol, or none for a line that notes an expansion.
fn read_line(bytes: &[u8]) -> Result<Option<Noted>, String> {
    if bytes.starts_with(EXPANSION_START) {
        return read_expansion(bytes).map(|_| None);
    }
    let line: Line = serde_json::from_slice(bytes).map_err(|e| format!("not a journal line ({e})"))?;
    let position = crate::position::parse(&format!("{} {}", line.board, line.side)).map_err(|e| e.to_string())?;
    let level = Level::new(line.level).ok_or_else(|| format!("level {} is not a level (0 to 60)", line.level))?;
    let mut excluded = crate::board::Squares::NONE;
    for square in &line.excluded {
        excluded = excluded.with(Square::parse(square).ok_or_else(|| format!("\"{square}\" is not a square"))?);
    }
    let mv = Square::parse(&line.mv).ok_or_else(|| format!("\"{}\" is not a square", line.mv))?;
    let query = Query { board: position.board, excluded, level };
    let answer = Answer { mv, score: line.score };
    if !(-64..=64).contains(&answer.score) {
        return Err(format!("score {} is not a score (-64 to 64)", answer.score));
    }
    if !query.accepts(&answer) {
        return Err(format!("{} cannot be the answer to {query}: not a legal move there, or one left out", line.mv));
    }
    let protocol = match &line.protocol {
        None => Protocol::EdaxConsole,
        Some(name) => Protocol::named(name).ok_or_else(|| format!("\"{name}\" is not a protocol"))?,
    };
    Ok(Some((query, answer, line.engine, protocol)))
}

/// An expansion `grow` dispatched, as written.
#[derive(Deserialize)]
#[allow(dead_code)] // read to check the line, not used
struct Expansion {
    expand: String,
    side: String,
    d: f64,
    priority: f64,
}

/// Checks a line that notes an expansion.
fn read_expansion(bytes: &[u8]) -> Result<(), String> {
    let line: Expansion = serde_json::from_slice(bytes).map_err(|e| format!("not a journal line ({e})"))?;
    crate::position::parse(&format!("{} {}", line.expand, line.side)).map_err(|e| e.to_string())?;
    Ok(())
}

/// One journal line, newline included.
fn line_of(query: &Query, answer: Answer, (engine, protocol): (&str, Protocol), took: Duration) -> String {
    let mut excluded = String::new();
    for square in query.excluded_squares() {
        excluded.push_str(if excluded.is_empty() { "\"" } else { ",\"" });
        push_square(square, &mut excluded);
        excluded.push('"');
    }
    let mut mv = String::new();
    push_square(answer.mv, &mut mv);
    let engine = serde_json::to_string(engine).expect("a string is always JSON");
    format!(
        "{{\"board\":\"{}\",\"side\":\"{}\",\"level\":{},\"excluded\":[{excluded}],\"move\":\"{mv}\",\"score\":{},\"engine\":{engine},\"protocol\":\"{}\",\"seconds\":{:.3}}}\n",
        query.board_text(),
        query.side(),
        query.level,
        answer.score,
        protocol.name(),
        took.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query() -> Query {
        let (board, _) = crate::kifu::parse_and_play("f5d6c3d3").unwrap();
        let excluded = crate::board::Squares::NONE.with(Square::parse("c4").unwrap());
        Query { board, excluded, level: Level::MAX }
    }

    fn answer(score: i8) -> Answer {
        Answer { mv: Square::parse("e3").unwrap(), score }
    }

    const EDAX: Protocol = Protocol::EdaxConsole;
    const EGAROUCID: Protocol = Protocol::EgaroucidConsole;

    fn serving(engines: &[(&str, Protocol)]) -> Vec<Identity> {
        engines.iter().map(|&(e, p)| (e.to_string(), p)).collect()
    }

    #[test]
    fn an_answer_is_taken_again_only_from_the_engine_and_protocol_that_gave_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        {
            let mut journal = Journal::open(&path).unwrap();
            assert!(journal.is_empty());
            assert!(query().accepts(&answer(-2)), "the test's own answer must be legal");
            journal.record(&query(), answer(-2), ("edax \"x\"", EDAX), Duration::from_millis(5)).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let keys: Vec<String> = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text.trim())
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["board", "side", "level", "excluded", "move", "score", "engine", "protocol", "seconds"]);
        let json: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(json["excluded"], serde_json::json!(["C4"]));
        assert_eq!((&json["engine"], &json["protocol"]), (&"edax \"x\"".into(), &"edax".into()));
        let mut again = Journal::open(&path).unwrap();
        again.serve(serving(&[("another", EDAX), ("edax \"x\"", EGAROUCID)]));
        assert_eq!(again.take(&query()), None, "neither the same engine nor the same protocol");
        again.serve(serving(&[("another", EDAX), ("edax \"x\"", EDAX)]));
        assert_eq!(again.take(&query()), Some(answer(-2)));
        let other_level = Query { level: Level::new(8).unwrap(), ..query() };
        assert_eq!(again.take(&other_level), None, "nor another level");
        // Another engine's answer to the same search, later: each engine's is kept.
        again.record(&query(), answer(-4), ("another", EGAROUCID), Duration::ZERO).unwrap();
        drop(again);
        let mut again = Journal::open(&path).unwrap();
        again.serve(serving(&[("another", EGAROUCID)]));
        assert_eq!(again.take(&query()), Some(answer(-4)));
        again.serve(serving(&[("edax \"x\"", EDAX)]));
        assert_eq!(again.take(&query()), Some(answer(-2)));
        again.serve(serving(&[("edax \"x\"", EDAX), ("another", EGAROUCID)]));
        assert_eq!(again.take(&query()), Some(answer(-4)), "of several, the latest written");
    }

    #[test]
    fn a_line_without_a_protocol_is_edax_and_an_unknown_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let whole = line_of(&query(), answer(1), ("e", EDAX), Duration::ZERO);
        std::fs::write(&path, whole.replace(",\"protocol\":\"edax\"", "")).unwrap();
        let mut journal = Journal::open(&path).unwrap();
        journal.serve(serving(&[("e", EGAROUCID)]));
        assert_eq!(journal.take(&query()), None);
        journal.serve(serving(&[("e", EDAX)]));
        assert_eq!(journal.take(&query()), Some(answer(1)));
        drop(journal);
        std::fs::write(&path, whole.replace("\"edax\"", "\"uci\"")).unwrap();
        let e = Journal::open(&path).err().unwrap().to_string();
        assert!(e.contains("line 1") && e.contains("\"uci\" is not a protocol"), "{e}");
    }

    #[test]
    fn a_second_open_is_refused_naming_the_process_that_holds_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let taken = Arc::new(Journal::lock_for_run(&path).expect("no journal yet: one is made"));
        let early = Journal::lock_for_run(&path).expect_err("the journal is held");
        assert!(matches!(early, JournalError::Locked { .. }), "{early}");
        let held = Journal::read(&taken).unwrap();
        drop(taken);
        let refused = Journal::open(&path).err().expect("the journal read holds the lock");
        assert_eq!(refused.kind(), ErrorKind::BadInput);
        let JournalError::Locked { holder, .. } = &refused else { panic!("{refused}") };
        #[cfg(target_os = "linux")]
        assert_eq!(*holder, Some(std::process::id()), "{refused}");
        assert!(refused.to_string().contains("in use by another run"), "{refused}");
        drop(held);
        assert!(!path.exists(), "a journal its run made and never wrote to is removed");
        Journal::open(&path).expect("free once the run is over");
        assert!(path.exists(), "a journal opened on its own is kept, empty or not");
        let written = dir.path().join("written.jsonl");
        let taken = Arc::new(Journal::lock_for_run(&written).unwrap());
        Journal::read(&taken).unwrap().record(&query(), answer(-2), ("e", EDAX), Duration::ZERO).unwrap();
        drop(taken);
        assert!(written.exists(), "a journal its run made and wrote to is kept");
    }

    #[test]
    fn the_holder_is_read_from_proc_locks_by_device_and_inode() {
        // st_dev 0xfe00 is device fe:00; 0x10300003 is 103:3 with a large minor.
        let locks = "1: -> FLOCK  ADVISORY  WRITE 7 fe:00:42 0 EOF\n\
                     2: POSIX  ADVISORY  WRITE 8 fe:00:42 0 EOF\n\
                     3: FLOCK  ADVISORY  WRITE 9 08:01:42 0 EOF\n\
                     4: FLOCK  ADVISORY  WRITE 10 fe:00:42 0 EOF\n";
        assert_eq!(holder_in(locks, 0xfe00, 42), Some(10));
        assert_eq!(holder_in(locks, 0x0801, 42), Some(9));
        assert_eq!(holder_in(locks, 0x99, 42), Some(9), "the inode alone, when no device matches");
        assert_eq!(holder_in(locks, 0xfe00, 43), None);
        assert_eq!(holder_in("1: FLOCK  ADVISORY  WRITE 5 00:1a3:7 0 EOF\n", 0x1a300, 7), Some(5));
    }

    #[test]
    fn only_a_regular_file_is_a_journal() {
        let dir = tempfile::tempdir().unwrap();
        let refused = |path: &Path| Journal::open(path).err().map(|e| (e.kind(), e.to_string()));
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs").success());
        let link = |name: &str, to: &str| {
            let path = dir.path().join(name);
            std::os::unix::fs::symlink(to, &path).unwrap();
            path
        };
        for (path, what) in [
            (fifo, "a named pipe (FIFO)"),
            (link("zero", "/dev/zero"), "a device"),
            (link("null", "/dev/null"), "a device"),
            (dir.path().to_path_buf(), "a directory"),
            (link("dangling", "nowhere/out.dat"), "a symbolic link to nothing"),
        ] {
            let early = Journal::lock_for_run(&path).err().map(|e| e.to_string());
            assert!(early.as_ref().is_some_and(|e| e.contains(what)), "{early:?}");
            let (kind, text) = refused(&path).unwrap_or_else(|| panic!("{} was taken", path.display()));
            assert_eq!(kind, ErrorKind::BadInput, "{text}");
            assert!(text.contains(what) && text.contains("not a regular file"), "{text}");
        }
        assert!(!dir.path().join("nowhere").exists(), "nothing made through the link");
        let file = dir.path().join("file.jsonl");
        std::fs::write(&file, b"").unwrap();
        Journal::open(&link("to-file", "file.jsonl")).expect("a link to a regular file is one");
    }

    proptest::proptest! {
        /// A journal is untrusted input: any bytes are read, or refused
        /// naming a line and left as they are, never a panic.
        #[test]
        fn any_bytes_are_read_or_refused_naming_a_line(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400),
                                                       line in 0usize..3) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(JOURNAL);
            let whole = line_of(&query(), answer(1), ("e", EDAX), Duration::ZERO);
            let mut text: Vec<u8> = std::iter::repeat_n(whole.as_bytes(), line).flatten().copied().collect();
            text.extend_from_slice(&bytes);
            text.push(b'\n');
            std::fs::write(&path, &text).unwrap();
            // The bad line is one of the random bytes' (they may hold newlines).
            if let Err(e) = Journal::open(&path) {
                let said = e.to_string();
                let named = said.split("line ").nth(1).and_then(|t| t.split(':').next()?.parse::<usize>().ok());
                proptest::prop_assert!(named.is_some_and(|n| n > line), "{}", said);
                proptest::prop_assert_eq!(std::fs::read(&path).unwrap(), text);
            }
        }
    }

    #[test]
    fn a_line_cut_short_is_taken_off_a_whole_one_kept_and_a_bad_line_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let whole = line_of(&query(), answer(1), ("e", EDAX), Duration::ZERO);
        std::fs::write(&path, format!("{whole}{}", &whole[..40])).unwrap();
        let journal = Journal::open(&path).unwrap();
        assert_eq!(journal.len(), 1);
        drop(journal);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        // Complete but for its newline: kept, and given one.
        std::fs::write(&path, whole.trim_end()).unwrap();
        assert_eq!(Journal::open(&path).unwrap().answer(&query()), Some(answer(1)));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        std::fs::write(&path, format!("{whole}{}", whole.replace("\"E3\"", "\"C4\""))).unwrap();
        let e = Journal::open(&path).err().unwrap().to_string();
        assert!(e.contains("line 2") && e.contains("cannot be the answer"), "{e}");
        std::fs::write(&path, "{\"board\":1}\n").unwrap();
        assert!(Journal::open(&path).err().unwrap().to_string().contains("line 1"));
    }

    #[test]
    fn a_file_that_is_not_a_journal_is_refused_and_never_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let whole = line_of(&query(), answer(1), ("e", EDAX), Duration::ZERO);
        for bytes in [
            b"XADEKOOB\x00\x01 a book, its last bytes after no newline".to_vec(),
            b"a log line\nanother, cut".to_vec(),
            format!("{whole}{whole}not a line").into_bytes(),
        ] {
            std::fs::write(&path, &bytes).unwrap();
            let e = Journal::open(&path).err().expect("refused");
            assert_eq!(e.kind(), ErrorKind::BadInput, "{e}");
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "left as it was: {e}");
        }
        let e = Journal::open(&path).err().unwrap().to_string();
        assert!(e.contains("line 3"), "{e}");
        std::fs::write(&path, b"a log line\n").unwrap();
        let e = Journal::open(&path).err().unwrap().to_string();
        assert!(e.contains("line 1") && e.contains("not a journal of extend"), "{e}");
    }
}
