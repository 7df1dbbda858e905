//! Kifu text (SPEC §4): move names, orientation, passes, the BOM, duplicate
//! lines, and files that appear complete or not at all.

use crate::board::{Move, Square};
use crate::symmetry::Symmetry;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The UTF-8 byte-order mark every output file starts with.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How lines are turned before they are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Orientation {
    /// Map the line by the symmetry of the initial position that sends its
    /// first move to F5.
    #[default]
    F5,
    /// Keep the walk's own coordinates.
    AsWalked,
}

/// The symmetry of the initial position that sends an opening move to F5:
/// F5 itself, E6 by transposition, D3 by the anti-diagonal, C4 by the
/// half-turn. Any other first move (only possible from a non-initial start)
/// is left as it is.
fn to_f5(first: Option<&Move>) -> Symmetry {
    let index = match first.map(|m| m.code()) {
        Some(44) => 4, // E6
        Some(19) => 7, // D3
        Some(26) => 3, // C4
        _ => 0,
    };
    Symmetry::new(index).expect("0..8")
}

/// Renders move lines as kifu text.
#[derive(Clone, Debug, Default)]
pub struct KifuFormat {
    pub orientation: Orientation,
    /// Written for a pass; empty leaves passes out.
    pub pass_token: String,
}

impl KifuFormat {
    /// Appends the text of `line` (no line end) to `out`.
    pub fn render(&self, line: &[Move], out: &mut String) {
        let symmetry = match self.orientation {
            Orientation::F5 => to_f5(line.first()),
            Orientation::AsWalked => Symmetry::IDENTITY,
        };
        for &mv in line {
            match symmetry.apply_move(mv) {
                Move::Play(square) => push_square(square, out),
                Move::Pass => out.push_str(&self.pass_token),
            }
        }
    }
}

fn push_square(square: Square, out: &mut String) {
    out.push((b'A' + square.column()) as char);
    out.push((b'1' + square.row()) as char);
}

/// A file written beside its final name and renamed into place on
/// [`AtomicFile::commit`]; dropped uncommitted, it is removed and the previous
/// file under the final name is untouched.
pub struct AtomicFile {
    writer: BufWriter<tempfile::NamedTempFile>,
    path: PathBuf,
}

impl AtomicFile {
    /// Fails at once when a directory holds the final name: the rename at
    /// [`AtomicFile::commit`] could never succeed, and finding that out only
    /// after a long walk (perhaps with other outputs already renamed) is worse.
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        if path.is_dir() {
            return Err(io::Error::other("a directory is in the way of this output file"));
        }
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // A temporary file is private (0600); the finished file should be as
        // readable as any other the user creates, so ask for 0666 less umask.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let temp = builder.tempfile_in(dir)?;
        Ok(AtomicFile { writer: BufWriter::with_capacity(1 << 16, temp), path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `line` and its line end were written at byte `at`; reads the
    /// file back, so whatever is buffered is written out first.
    fn holds_line(&mut self, at: u64, line: &[u8]) -> io::Result<bool> {
        self.writer.flush()?;
        let mut earlier = vec![0; line.len() + 1];
        match read_exact_at(self.writer.get_ref(), &mut earlier, at) {
            Ok(()) => Ok(earlier[..line.len()] == *line && earlier[line.len()] == b'\n'),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(e),
        }
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
        Ok(FinishedFile { temp, path: self.path })
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

/// An [`AtomicFile`] written out in full, waiting to be renamed into place;
/// dropped, it is removed like an uncommitted one.
pub struct FinishedFile {
    temp: tempfile::NamedTempFile,
    path: PathBuf,
}

impl FinishedFile {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the file into place.
    pub fn commit(self) -> io::Result<()> {
        self.temp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

pub mod background;
mod seen;
use seen::SeenLines;

/// One mode's output file: kifu lines after a BOM, each written once unless
/// duplicates are wanted.
pub struct KifuFile {
    file: AtomicFile,
    /// Lines written so far, when duplicates are dropped.
    seen: Option<SeenLines>,
    /// Bytes written so far: where the next line starts.
    len: u64,
    pub lines_written: u64,
    pub duplicates_dropped: u64,
}

impl KifuFile {
    pub fn create(path: &Path, unique_lines: bool) -> io::Result<KifuFile> {
        let mut file = AtomicFile::create(path)?;
        file.write_all(BOM)?;
        Ok(KifuFile {
            file,
            seen: unique_lines.then(SeenLines::default),
            len: BOM.len() as u64,
            lines_written: 0,
            duplicates_dropped: 0,
        })
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Writes one line (without its line end), unless it was written before
    /// and duplicates are dropped.
    pub fn write_line(&mut self, text: &str) -> io::Result<()> {
        if let Some(seen) = &mut self.seen {
            let file = &mut self.file;
            if !seen.insert(text.as_bytes(), self.len, |earlier| file.holds_line(earlier, text.as_bytes()))? {
                self.duplicates_dropped += 1;
                return Ok(());
            }
        }
        self.file.write_all(text.as_bytes())?;
        self.file.write_all(b"\n")?;
        self.len += text.len() as u64 + 1;
        self.lines_written += 1;
        Ok(())
    }

    pub fn commit(self) -> io::Result<()> {
        self.file.commit()
    }

    /// See [`AtomicFile::finish`].
    pub fn finish(self) -> io::Result<FinishedFile> {
        self.file.finish()
    }
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

    fn line(text: &str) -> Vec<Move> {
        crate::kifu::parse_moves(text).unwrap()
    }

    fn render(format: &KifuFormat, text: &str) -> String {
        let mut out = String::new();
        format.render(&line(text), &mut out);
        out
    }

    #[test]
    fn every_opening_is_turned_to_f5() {
        let f = KifuFormat::default();
        assert_eq!(render(&f, "F5D6"), "F5D6");
        assert_eq!(render(&f, "E6F4"), "F5D6");
        assert_eq!(render(&f, "D3C5"), "F5D6");
        assert_eq!(render(&f, "C4E3"), "F5D6");
    }

    #[test]
    fn as_walked_keeps_coordinates_and_passes_use_the_token() {
        let f = KifuFormat { orientation: Orientation::AsWalked, pass_token: String::new() };
        assert_eq!(render(&f, "C4E3PSA1"), "C4E3A1");
        let f = KifuFormat { orientation: Orientation::F5, pass_token: "PS".into() };
        assert_eq!(render(&f, "C4E3PSA1"), "F5D6PSH8");
    }

    #[test]
    fn kifu_file_has_a_bom_drops_duplicates_and_appears_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mode1.txt");
        let mut file = KifuFile::create(&path, true).unwrap();
        for text in ["F5D6", "F5F6", "F5D6"] {
            file.write_line(text).unwrap();
        }
        assert!(!path.exists(), "nothing under the final name before commit");
        assert_eq!((file.lines_written, file.duplicates_dropped), (2, 1));
        file.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"\xEF\xBB\xBFF5D6\nF5F6\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    fn an_uncommitted_file_leaves_the_previous_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mode2.txt");
        fs::write(&path, "old").unwrap();
        let mut file = KifuFile::create(&path, false).unwrap();
        file.write_line("F5D6").unwrap();
        file.write_line("F5D6").unwrap();
        assert_eq!(file.lines_written, 2);
        drop(file);
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
