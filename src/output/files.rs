//! One mode's output files (SPEC §4): the kifu file decides which records are
//! written (`unique_lines` drops a line already in it), and every format asked
//! for writes those records and no others, in the same order.

use super::atomic::{AtomicFile, FinishedFile};
use super::print::{Format, Formats, LineText};
use super::seen::SeenLines;
use super::text::KifuFormat;
use super::BOM;
use crate::mismatch::Mismatch;
use crate::modes::Mode;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How a run writes its files.
#[derive(Clone, Debug)]
pub struct FileSettings {
    pub text: KifuFormat,
    pub formats: Formats,
    /// Kifu files start with a byte-order mark.
    pub bom: bool,
    /// A line already written to the mode's kifu is not written again.
    pub unique_lines: bool,
}

/// Where a mode's file of one format goes: `out_dir/mode{N}.{txt,jsonl,obf}`.
pub fn output_path(out_dir: &Path, mode: Mode, format: Format) -> PathBuf {
    out_dir.join(format!("mode{}.{}", mode.number(), format.extension()))
}

/// Kifu lines, each written once unless repeats are wanted.
pub struct KifuFile {
    file: AtomicFile,
    /// Lines written so far, when repeats are dropped.
    seen: Option<SeenLines>,
    /// Bytes written so far: where the next line starts.
    len: u64,
    pub lines_written: u64,
    pub duplicates_dropped: u64,
}

impl KifuFile {
    pub fn create(path: &Path, unique_lines: bool, bom: bool) -> io::Result<KifuFile> {
        let mut file = AtomicFile::create(path)?;
        let mut len = 0;
        if bom {
            file.write_all(BOM)?;
            len = BOM.len() as u64;
        }
        Ok(KifuFile { file, seen: unique_lines.then(SeenLines::default), len, lines_written: 0, duplicates_dropped: 0 })
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Writes one line (without its line end), unless it was written before
    /// and repeats are dropped; says whether it was written.
    pub fn write_line(&mut self, text: &str) -> io::Result<bool> {
        if let Some(seen) = &mut self.seen {
            let file = &mut self.file;
            if !seen.insert(text.as_bytes(), self.len, |earlier| file.holds_line(earlier, text.as_bytes()))? {
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

    pub fn commit(self) -> io::Result<()> {
        self.file.commit()
    }

    /// See [`AtomicFile::finish`].
    pub fn finish(self) -> io::Result<FinishedFile> {
        self.file.finish()
    }
}

/// A JSONL or OBF file: one line per record the kifu file wrote.
struct RecordFile {
    format: Format,
    file: AtomicFile,
}

/// What one file of a mode holds once written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    pub format: Format,
    pub path: PathBuf,
    pub lines: u64,
}

/// A mode's files, fed mismatch records.
pub struct ModeFiles {
    mode: Mode,
    text: KifuFormat,
    /// Decides which records are written. When kifu is not asked for but
    /// repeats are dropped, it is still written, to a temporary file that is
    /// never renamed into place, so that all formats drop the same lines.
    kifu: Option<KifuFile>,
    kifu_wanted: bool,
    others: Vec<RecordFile>,
    /// Records that passed the kifu file (all of them without one).
    records: u64,
    /// Reused: the kifu of the record, and the line of the other formats.
    kifu_text: String,
    printed: String,
}

impl ModeFiles {
    pub fn create(out_dir: &Path, mode: Mode, settings: &FileSettings) -> Result<ModeFiles, (PathBuf, io::Error)> {
        let open = |format: Format| {
            let path = output_path(out_dir, mode, format);
            AtomicFile::create(&path).map_err(|e| (path, e))
        };
        let kifu_wanted = settings.formats.contains(Format::Kifu);
        let kifu = if kifu_wanted || settings.unique_lines {
            let path = output_path(out_dir, mode, Format::Kifu);
            Some(KifuFile::create(&path, settings.unique_lines, settings.bom).map_err(|e| (path, e))?)
        } else {
            None
        };
        let mut others = Vec::new();
        for format in settings.formats.iter().filter(|&f| f != Format::Kifu) {
            others.push(RecordFile { format, file: open(format)? });
        }
        Ok(ModeFiles {
            mode,
            text: settings.text.clone(),
            kifu,
            kifu_wanted,
            others,
            records: 0,
            kifu_text: String::new(),
            printed: String::new(),
        })
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Writes a record to every format, unless its kifu line was written before
    /// and repeats are dropped. On error, names the file that failed.
    pub fn write(&mut self, record: &Mismatch<'_>) -> Result<(), (PathBuf, io::Error)> {
        self.kifu_text.clear();
        let symmetry = self.text.render(record.line, &mut self.kifu_text);
        if let Some(kifu) = &mut self.kifu {
            match kifu.write_line(&self.kifu_text) {
                Ok(true) => {}
                Ok(false) => return Ok(()),
                Err(e) => return Err((kifu.path().to_path_buf(), e)),
            }
        }
        self.records += 1;
        let line = LineText { kifu: &self.kifu_text, symmetry };
        for other in &mut self.others {
            self.printed.clear();
            other.format.printer().print(record, &line, &mut self.printed);
            other.file.write_all(self.printed.as_bytes()).map_err(|e| (other.file.path().to_path_buf(), e))?;
        }
        Ok(())
    }

    /// Lines written to each file of the mode.
    pub fn lines_written(&self) -> u64 {
        self.records
    }

    /// Lines not written because they were written before.
    pub fn duplicates_dropped(&self) -> u64 {
        self.kifu.as_ref().map_or(0, |k| k.duplicates_dropped)
    }

    /// Writes every file out (see [`AtomicFile::finish`]) without renaming any;
    /// a kifu file kept only to find repeats is dropped here.
    pub fn finish(self) -> Result<(Vec<FinishedFile>, Vec<FileReport>), (PathBuf, io::Error)> {
        let mut finished = Vec::new();
        let mut reports = Vec::new();
        let lines = self.records;
        if let Some(kifu) = self.kifu.filter(|_| self.kifu_wanted) {
            let path = kifu.path().to_path_buf();
            finished.push(kifu.finish().map_err(|e| (path.clone(), e))?);
            reports.push(FileReport { format: Format::Kifu, path, lines });
        }
        for other in self.others {
            let path = other.file.path().to_path_buf();
            finished.push(other.file.finish().map_err(|e| (path.clone(), e))?);
            reports.push(FileReport { format: other.format, path, lines });
        }
        Ok((finished, reports))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Move, Square};
    use crate::book::Score;
    use crate::modes::{Branch, Mode, Target};
    use crate::output::{Format, Formats, KifuFormat, Orientation};
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
            text: KifuFormat { orientation: Orientation::AsWalked, pass_token: "PS".into() },
            formats: Formats::of(&[Format::Kifu, Format::Obf]),
            bom: true,
            unique_lines: true,
        };
        let mut files: Vec<ModeFiles> = [Mode::LeafVsLinks, Mode::ValueVsBest]
            .iter()
            .map(|&mode| ModeFiles::create(dir.path(), mode, &settings).unwrap())
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
            settings.text.render(&line, &mut text);
            text.push('\n');
            if !expected[number].contains(&text) {
                expected[number].push_str(&text);
            }
            files[number].write(&record(&line)).unwrap();
        }
        for files in files {
            assert_eq!(files.lines_written(), expected[files.mode().number() as usize - 1].lines().count() as u64);
            for file in files.finish().unwrap().0 {
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
