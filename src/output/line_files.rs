//! One set of lines' output files (docs/modes.md, output): a mining mode's,
//! or one of `check`'s. The kifu file decides which records are written
//! (`unique_lines` drops a line already in it), and every format asked for
//! writes those records and no others, in the same order.

use super::print::{LineText, Lined, RecordFormat, RecordFormats};
use super::seen::{Fingerprint, SeenLines};
use super::stdout::{STDOUT, STDOUT_NAME};
use super::text::{LineStyle, BOM};
use crate::files::{AtomicFile, FinishedFile};
use crate::rules::modes::Mode;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How a run writes its files.
#[derive(Clone, Debug)]
pub struct FileSettings {
    /// How lines are written (orientation, pass token).
    pub style: LineStyle,
    /// The formats each set is written in.
    pub formats: RecordFormats,
    /// Kifu files start with a byte-order mark.
    pub bom: bool,
    /// A line already written to the mode's kifu is not written again.
    pub unique_lines: bool,
}

/// Which lines a set of files holds, and so the name of each of its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stem {
    /// A mining mode's lines: `mode{N}`.
    Mode(Mode),
    /// `check`'s lines to a move the book scores below its best: `check-bad`.
    CheckBad,
    /// `check`'s lines to a position the book has not: `check-missing`.
    CheckMissing,
}

impl Stem {
    /// Every set bookminer writes into `out_dir`.
    pub fn all() -> impl Iterator<Item = Stem> {
        Mode::ALL.into_iter().map(Stem::Mode).chain([Stem::CheckBad, Stem::CheckMissing])
    }

    /// The files' name before the extension.
    pub fn name(self) -> String {
        match self {
            Stem::Mode(mode) => format!("mode{}", mode.number()),
            Stem::CheckBad => "check-bad".to_string(),
            Stem::CheckMissing => "check-missing".to_string(),
        }
    }
}

impl From<Mode> for Stem {
    fn from(mode: Mode) -> Stem {
        Stem::Mode(mode)
    }
}

/// Where a set's file of one format goes: `out_dir/mode{N}.{txt,jsonl,obf}`,
/// `out_dir/check-bad.txt`, ...
pub fn output_path(out_dir: &Path, stem: impl Into<Stem>, format: RecordFormat) -> PathBuf {
    out_dir.join(format!("{}.{}", stem.into().name(), format.extension()))
}

/// The mode whose file `name` is, when it is named as [`output_path`]
/// names a mode's file of some format (`mode3.obf`).
pub fn mode_of_file_name(name: &str) -> Option<Mode> {
    Mode::ALL.into_iter().find(|&mode| {
        RecordFormat::ALL.iter().any(|&format| output_path(Path::new(""), mode, format).as_os_str() == name)
    })
}

/// Where a set's lines go.
pub enum Place {
    /// A file per format in this folder (see [`output_path`]).
    Folder(PathBuf),
    /// The one format asked for, to this file.
    File(PathBuf),
    /// The one format asked for, to a stream (standard output) as the
    /// lines come. A kifu file kept only to drop repeats is then an
    /// unnamed file in `scratch`.
    Stream {
        /// The stream.
        to: Box<dyn Write + Send>,
        /// The folder of the unnamed kifu file.
        scratch: PathBuf,
    },
}

impl Place {
    /// Begins the file of `format` for `stem`: the one `-o` names is the
    /// user's ([`AtomicFile::create_named`]), the others bookminer's own.
    fn begin(&self, stem: Stem, format: RecordFormat) -> Result<AtomicFile, (PathBuf, io::Error)> {
        let path = self.path(stem, format);
        let begun = match self {
            Place::File(_) => AtomicFile::create_named(&path),
            Place::Folder(_) | Place::Stream { .. } => AtomicFile::create(&path),
        };
        begun.map_err(|e| (path, e))
    }

    /// The file of `format` for `stem`: in a stream's case, the scratch
    /// kifu file's.
    fn path(&self, stem: Stem, format: RecordFormat) -> PathBuf {
        match self {
            Place::Folder(dir) => output_path(dir, stem, format),
            Place::File(path) => path.clone(),
            Place::Stream { scratch, .. } => scratch.join(format!("bookminer-{}.{}", stem.name(), format.extension())),
        }
    }
}

/// Where one format's lines are written.
enum Sink {
    /// A file put in place when the run succeeds.
    File(AtomicFile),
    /// A stream, written as the lines come.
    Stream(Box<dyn Write + Send>),
}

impl Sink {
    /// The file, as messages name it.
    fn path(&self) -> PathBuf {
        match self {
            Sink::File(file) => file.path().to_path_buf(),
            Sink::Stream(_) => PathBuf::from(STDOUT_NAME),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Sink::File(file) => file.write_all(bytes),
            Sink::Stream(stream) => stream.write_all(bytes),
        }
    }
}

/// Kifu lines, each written once unless repeats are wanted.
pub struct KifuFile {
    file: AtomicFile,
    /// Lines written so far, when repeats are dropped.
    seen: Option<SeenLines>,
    /// Bytes written so far: where the next line starts.
    len: u64,
    /// Lines written.
    pub lines_written: u64,
    /// Lines not written because the file held them already.
    pub duplicates_dropped: u64,
    /// The byte-order mark, still to be written before the first line.
    bom_due: bool,
}

/// When a kifu file asked to start with the byte-order mark gets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Never.
    None,
    /// At once: an empty file is the mark alone (mining's sets).
    Always,
    /// With its first line: an empty file has no byte (check's sets, as
    /// an empty receipt of `fix`).
    WithFirstLine,
}

impl KifuFile {
    /// A kifu file at `path`, appearing whole or not at all; with
    /// `unique_lines` a line is written once, with `bom` the file starts
    /// with the byte-order mark.
    pub fn create(path: &Path, unique_lines: bool, bom: bool) -> io::Result<KifuFile> {
        let mark = if bom { Mark::Always } else { Mark::None };
        KifuFile::in_file(AtomicFile::create(path)?, unique_lines, mark)
    }

    /// Kifu lines written into `file`, begun already.
    fn in_file(mut file: AtomicFile, unique_lines: bool, mark: Mark) -> io::Result<KifuFile> {
        let mut len = 0;
        if mark == Mark::Always {
            file.write_all(BOM)?;
            len = BOM.len() as u64;
        }
        let seen = unique_lines.then(SeenLines::default);
        let bom_due = mark == Mark::WithFirstLine;
        Ok(KifuFile { file, seen, len, lines_written: 0, duplicates_dropped: 0, bom_due })
    }

    /// The file's final name.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The fingerprint of a line that is to be checked against the lines
    /// written before it (none when repeats are kept), its table slot asked
    /// for: written with [`KifuFile::write_checked`] a few lines later, the
    /// check finds the slot in cache.
    pub fn ask_for(&self, text: &str) -> Option<Fingerprint> {
        let seen = self.seen.as_ref()?;
        let print = Fingerprint::of(text.as_bytes());
        seen.prefetch(print);
        Some(print)
    }

    /// Writes one line (without its line end), unless it was written before
    /// and repeats are dropped; says whether it was written.
    pub fn write_line(&mut self, text: &str) -> io::Result<bool> {
        let print = self.ask_for(text);
        self.write_checked(text, print)
    }

    /// [`KifuFile::write_line`], given what [`KifuFile::ask_for`] said of `text`.
    pub fn write_checked(&mut self, text: &str, print: Option<Fingerprint>) -> io::Result<bool> {
        if std::mem::take(&mut self.bom_due) {
            self.file.write_all(BOM)?;
            self.len += BOM.len() as u64;
        }
        if let Some(seen) = &mut self.seen {
            let print = print.unwrap_or_else(|| Fingerprint::of(text.as_bytes()));
            let file = &mut self.file;
            if !seen.insert(print, self.len, |earlier| file.holds_line(earlier, text.as_bytes()))? {
                self.duplicates_dropped += 1;
                return Ok(false);
            }
        }
        self.file.write_all(text.as_bytes())?;
        self.file.write_all(b"\n")?;
        self.len += text.len() as u64 + 1;
        self.lines_written += 1;
        Ok(true)
    }

    /// Puts the file in place.
    pub fn commit(self) -> io::Result<()> {
        self.file.commit()
    }

    /// See [`AtomicFile::finish`].
    pub fn finish(self) -> io::Result<FinishedFile> {
        self.file.finish()
    }
}

/// A JSONL or OBF file, or any format's stream: one line per record the
/// kifu file wrote (every record, without one).
struct RecordFile {
    format: RecordFormat,
    file: Sink,
}

/// What one file of a set holds once written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// The file's format.
    pub format: RecordFormat,
    /// The file; `-` ([`STDOUT`]) for standard output.
    pub path: PathBuf,
    /// Lines written to it.
    pub lines: u64,
}

/// A set's files, fed records.
pub struct LineFiles {
    stem: Stem,
    style: LineStyle,
    /// Decides which records are written. When kifu is not asked for but
    /// repeats are dropped, it is still written, to a temporary file that is
    /// never renamed into place, so that all formats drop the same lines.
    kifu: Option<KifuFile>,
    kifu_wanted: bool,
    others: Vec<RecordFile>,
    /// Records printed but not yet written, oldest first (see [`LOOKAHEAD`]).
    pending: VecDeque<Pending>,
    /// Written records' buffers, to print the next ones into.
    spare: Vec<Pending>,
    /// Records that passed the kifu file (all of them without one).
    records: u64,
}

/// Records printed ahead of the one being written. Whether a line was
/// written before is a lookup in a table far larger than the cache; the
/// slot it reads is asked for when the record is printed, and read this
/// many records later, when it has arrived.
const LOOKAHEAD: usize = 16;

/// A record printed in every format, waiting to be written.
struct Pending {
    kifu: String,
    /// What [`KifuFile::ask_for`] said of `kifu`.
    print: Option<Fingerprint>,
    /// The record in each of [`LineFiles::others`]' formats.
    printed: Vec<String>,
}

/// What a set's files hold once written out.
pub struct Written {
    /// The files, to be renamed into place.
    pub files: Vec<FinishedFile>,
    /// What each file holds.
    pub reports: Vec<FileReport>,
    /// Lines written to each file of the set.
    pub lines_written: u64,
    /// Lines not written because they were written before.
    pub duplicates_dropped: u64,
}

impl LineFiles {
    /// The files of `stem` at `place`, which takes one format only when it
    /// is one file or a stream (a caller's mistake otherwise: it panics).
    pub fn create(
        place: Place,
        stem: impl Into<Stem>,
        settings: &FileSettings,
    ) -> Result<LineFiles, (PathBuf, io::Error)> {
        let stem = stem.into();
        let one = !matches!(place, Place::Folder(_));
        assert!(!one || settings.formats.iter().count() == 1, "one file, or a stream, takes one format");
        let open = |format: RecordFormat| place.begin(stem, format);
        // A stream takes kifu lines as it takes any other format's; a kifu
        // file is then kept only to drop repeats.
        let streamed = matches!(place, Place::Stream { .. });
        let kifu_wanted = settings.formats.contains(RecordFormat::Kifu) && !streamed;
        let kifu = if kifu_wanted || settings.unique_lines {
            let file = place.begin(stem, RecordFormat::Kifu)?;
            let path = file.path().to_path_buf();
            let mark = match (settings.bom, stem) {
                (false, _) => Mark::None,
                (true, Stem::Mode(_)) => Mark::Always,
                (true, Stem::CheckBad | Stem::CheckMissing) => Mark::WithFirstLine,
            };
            Some(KifuFile::in_file(file, settings.unique_lines, mark).map_err(|e| (path, e))?)
        } else {
            None
        };
        let mut others = Vec::new();
        if !streamed {
            for format in settings.formats.iter().filter(|&f| f != RecordFormat::Kifu) {
                others.push(RecordFile { format, file: Sink::File(open(format)?) });
            }
        }
        if let Place::Stream { mut to, .. } = place {
            let format = settings.formats.iter().next().expect("one format");
            if format == RecordFormat::Kifu && settings.bom {
                to.write_all(BOM).map_err(|e| (PathBuf::from(STDOUT_NAME), e))?;
            }
            others.push(RecordFile { format, file: Sink::Stream(to) });
        }
        Ok(LineFiles {
            stem,
            style: settings.style.clone(),
            kifu,
            kifu_wanted,
            others,
            pending: VecDeque::with_capacity(LOOKAHEAD + 1),
            spare: Vec::new(),
            records: 0,
        })
    }

    /// Which set.
    pub fn stem(&self) -> Stem {
        self.stem
    }

    /// Writes a record to every format, unless its kifu line was written before
    /// and repeats are dropped. The record is printed now and written
    /// [`LOOKAHEAD`] records later (or by [`LineFiles::finish`]). On error,
    /// names the file that failed.
    pub fn write(&mut self, record: &dyn Lined) -> Result<(), (PathBuf, io::Error)> {
        let others = self.others.len();
        let mut entry = self.spare.pop().unwrap_or_else(|| Pending {
            kifu: String::new(),
            print: None,
            printed: vec![String::new(); others],
        });
        entry.kifu.clear();
        let symmetry = self.style.render(record.line(), &mut entry.kifu);
        let line = LineText { kifu: &entry.kifu, symmetry };
        for (other, printed) in self.others.iter().zip(&mut entry.printed) {
            printed.clear();
            other.format.printer().print(record, &line, printed);
        }
        entry.print = self.kifu.as_ref().and_then(|kifu| kifu.ask_for(&entry.kifu));
        self.pending.push_back(entry);
        if self.pending.len() > LOOKAHEAD {
            self.write_oldest()?;
        }
        Ok(())
    }

    /// Writes the oldest pending record, unless its line was written before.
    fn write_oldest(&mut self) -> Result<(), (PathBuf, io::Error)> {
        let Some(entry) = self.pending.pop_front() else { return Ok(()) };
        let written = self.write_pending(&entry);
        self.spare.push(entry);
        written
    }

    fn write_pending(&mut self, entry: &Pending) -> Result<(), (PathBuf, io::Error)> {
        if let Some(kifu) = &mut self.kifu {
            match kifu.write_checked(&entry.kifu, entry.print) {
                Ok(true) => {}
                Ok(false) => return Ok(()),
                Err(e) => return Err((kifu.path().to_path_buf(), e)),
            }
        }
        self.records += 1;
        for (other, printed) in self.others.iter_mut().zip(&entry.printed) {
            other.file.write_all(printed.as_bytes()).map_err(|e| (other.file.path(), e))?;
        }
        Ok(())
    }

    /// Writes the pending records, then every file out (see
    /// [`AtomicFile::finish`]) without renaming any; a kifu file kept only
    /// to find repeats is dropped here.
    pub fn finish(mut self) -> Result<Written, (PathBuf, io::Error)> {
        while !self.pending.is_empty() {
            self.write_oldest()?;
        }
        let mut files = Vec::new();
        let mut reports = Vec::new();
        let lines = self.records;
        let duplicates_dropped = self.kifu.as_ref().map_or(0, |k| k.duplicates_dropped);
        if let Some(kifu) = self.kifu.filter(|_| self.kifu_wanted) {
            let path = kifu.path().to_path_buf();
            files.push(kifu.finish().map_err(|e| (path.clone(), e))?);
            reports.push(FileReport { format: RecordFormat::Kifu, path, lines });
        }
        for other in self.others {
            let path = other.file.path();
            let path = match other.file {
                Sink::File(file) => {
                    files.push(file.finish().map_err(|e| (path.clone(), e))?);
                    path
                }
                Sink::Stream(mut stream) => {
                    stream.flush().map_err(|e| (path, e))?;
                    PathBuf::from(STDOUT)
                }
            };
            reports.push(FileReport { format: other.format, path, lines });
        }
        Ok(Written { files, reports, lines_written: lines, duplicates_dropped })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Move, Square};
    use crate::book::Score;
    use crate::output::{LineStyle, Orientation, RecordFormat, RecordFormats};
    use crate::rules::mismatch::Mismatch;
    use crate::rules::modes::{Branch, Mode, Target};
    use std::fs;

    fn record(line: &[Move]) -> Mismatch<'_> {
        Mismatch {
            mode: Mode::ValueVsBest,
            branch: Branch::Below,
            target: Target::Child,
            mv: None,
            score: None,
            p: Score(0),
            v: Score(0),
            l: None,
            f: None,
            m: None,
            empties: 60,
            line,
            board: Board::INITIAL,
        }
    }

    #[test]
    fn records_are_written_in_order_per_mode_and_repeats_are_dropped_from_every_format() {
        let dir = tempfile::tempdir().unwrap();
        let settings = FileSettings {
            style: LineStyle { orientation: Orientation::AsWalked, pass_token: "PS".into() },
            formats: RecordFormats::of(&[RecordFormat::Kifu, RecordFormat::Obf]),
            bom: true,
            unique_lines: true,
        };
        let mut files: Vec<LineFiles> = [Mode::LeafVsLinks, Mode::ValueVsBest]
            .iter()
            .map(|&mode| LineFiles::create(Place::Folder(dir.path().to_path_buf()), mode, &settings).unwrap())
            .collect();
        let mut expected = [String::new(), String::new()];
        for i in 0..20_000u32 {
            let number = (i % 3 == 0) as usize;
            let n = i % 7000;
            let line = [
                Move::Play(Square::new((n % 64) as u8).unwrap()),
                Move::Pass,
                Move::Play(Square::new((n / 64 % 64) as u8).unwrap()),
            ];
            let mut text = String::new();
            settings.style.render(&line, &mut text);
            text.push('\n');
            if !expected[number].contains(&text) {
                expected[number].push_str(&text);
            }
            files[number].write(&record(&line)).unwrap();
        }
        for files in files {
            let Stem::Mode(mode) = files.stem() else { panic!("mining's files") };
            let expected_lines = expected[mode.number() as usize - 1].lines().count() as u64;
            let written = files.finish().unwrap();
            assert_eq!(written.lines_written, expected_lines);
            for file in written.files {
                file.commit().unwrap();
            }
        }
        for (n, expected) in expected.iter().enumerate() {
            let text = std::fs::read_to_string(dir.path().join(format!("mode{}.txt", n + 1))).unwrap();
            assert_eq!(text.trim_start_matches('\u{feff}'), expected);
            let obf = std::fs::read_to_string(dir.path().join(format!("mode{}.obf", n + 1))).unwrap();
            let kifu_of_obf: Vec<&str> = obf.lines().map(|l| l.split_once(" % ").unwrap().1).collect();
            assert_eq!(kifu_of_obf, expected.lines().collect::<Vec<_>>());
        }
    }

    #[test]
    fn repeats_closer_than_the_lookahead_are_dropped_and_the_order_kept() {
        let dir = tempfile::tempdir().unwrap();
        let settings = FileSettings {
            style: LineStyle { orientation: Orientation::AsWalked, pass_token: String::new() },
            formats: RecordFormats::of(&[RecordFormat::Jsonl]),
            bom: false,
            unique_lines: true,
        };
        let mut files =
            LineFiles::create(Place::Folder(dir.path().to_path_buf()), Mode::ValueVsBest, &settings).unwrap();
        // Lines 0, 0, 1, 0, 1, 2, ...: every line comes back at once and
        // then within a few records, inside the lookahead.
        let lines: Vec<[Move; 1]> = (0..LOOKAHEAD as u8 * 2).map(|i| [Move::Play(Square::new(i).unwrap())]).collect();
        let mut order = Vec::new();
        for n in 0..lines.len() {
            order.extend([n, n]);
            order.extend(n.saturating_sub(3)..n);
        }
        for &n in &order {
            files.write(&record(&lines[n])).unwrap();
        }
        let written = files.finish().unwrap();
        assert_eq!(
            (written.lines_written, written.duplicates_dropped),
            (lines.len() as u64, (order.len() - lines.len()) as u64)
        );
        for file in written.files {
            file.commit().unwrap();
        }
        let jsonl = std::fs::read_to_string(dir.path().join("mode2.jsonl")).unwrap();
        let kifus: Vec<String> = jsonl.lines().map(|l| l.split('"').nth(3).unwrap().to_string()).collect();
        let expected: Vec<String> = lines.iter().map(|l| l[0].to_string()).collect();
        assert_eq!(kifus, expected);
        assert!(!dir.path().join("mode2.txt").exists(), "the kifu file kept only to find repeats is not left");
    }

    #[test]
    fn kifu_file_has_a_bom_drops_duplicates_and_appears_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mode1.txt");
        let mut file = KifuFile::create(&path, true, true).unwrap();
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
    fn without_a_bom_repeats_are_still_found() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mode1.txt");
        let mut file = KifuFile::create(&path, true, false).unwrap();
        let written: Vec<bool> = ["F5", "F5D6", "F5", "F5D6"].iter().map(|t| file.write_line(t).unwrap()).collect();
        assert_eq!(written, [true, true, false, false]);
        file.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"F5\nF5D6\n");
    }

    #[test]
    fn an_uncommitted_file_leaves_the_previous_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mode2.txt");
        fs::write(&path, "old").unwrap();
        let mut file = KifuFile::create(&path, false, true).unwrap();
        file.write_line("F5D6").unwrap();
        file.write_line("F5D6").unwrap();
        assert_eq!(file.lines_written, 2);
        drop(file);
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
