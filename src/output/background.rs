//! Output files written on a thread of their own. The walk hands mismatch
//! records over in batches; rendering them, dropping repeated lines (a hash
//! probe, sometimes a read back) and writing overlap with the walk on the
//! second core.

use super::files::ModeFiles;
use crate::board::Move;
use crate::mismatch::Mismatch;
use std::io;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

/// Records gathered for a mode before they are handed over.
const BATCH_RECORDS: usize = 4096;
/// Batches in flight before the walk waits for the writer.
const BATCHES_IN_FLIGHT: usize = 16;

/// A record on its way to the writer: its line is kept in the batch's moves.
#[derive(Clone)]
struct Queued {
    /// The record with an empty line.
    record: Mismatch<'static>,
    line: Range<u32>,
}

/// Records for one mode's files, their lines end to end.
#[derive(Default)]
struct Batch {
    moves: Vec<Move>,
    records: Vec<Queued>,
}

/// Why the writer stopped: the file it was writing and the error.
pub type WriteFailure = (PathBuf, io::Error);

/// Mode files owned by a writer thread until [`BackgroundFiles::finish`].
pub struct BackgroundFiles {
    gathering: Vec<Batch>,
    sender: Option<SyncSender<(usize, Batch)>>,
    writer: Option<JoinHandle<Result<Vec<ModeFiles>, WriteFailure>>>,
}

impl BackgroundFiles {
    /// Starts the writer thread; records are then sent by number (the
    /// position in `files`).
    pub fn spawn(files: Vec<ModeFiles>) -> io::Result<BackgroundFiles> {
        let (sender, batches) = sync_channel::<(usize, Batch)>(BATCHES_IN_FLIGHT);
        let gathering = files.iter().map(|_| Batch::default()).collect();
        let writer = std::thread::Builder::new().name("output writer".into()).spawn(move || {
            let mut files = files;
            for (number, batch) in batches {
                let file = &mut files[number];
                for queued in &batch.records {
                    let line = &batch.moves[queued.line.start as usize..queued.line.end as usize];
                    file.write(&Mismatch { line, ..queued.record })?;
                }
            }
            Ok(files)
        })?;
        Ok(BackgroundFiles { gathering, sender: Some(sender), writer: Some(writer) })
    }

    /// Queues a record for files `number`. An error means the writer has
    /// stopped; [`BackgroundFiles::finish`] says why.
    pub fn write(&mut self, number: usize, record: &Mismatch<'_>) -> Result<(), WriterStopped> {
        let batch = &mut self.gathering[number];
        let start = batch.moves.len() as u32;
        batch.moves.extend_from_slice(record.line);
        let line = start..batch.moves.len() as u32;
        batch.records.push(Queued { record: Mismatch { line: &[], ..*record }, line });
        if batch.records.len() >= BATCH_RECORDS {
            self.send(number)?;
        }
        Ok(())
    }

    fn send(&mut self, number: usize) -> Result<(), WriterStopped> {
        let batch = std::mem::take(&mut self.gathering[number]);
        let sender = self.sender.as_ref().ok_or(WriterStopped)?;
        sender.send((number, batch)).map_err(|_| WriterStopped)
    }

    /// Hands over what is left, waits for the writer, and returns the files
    /// with every record written (or the error that stopped the writer).
    pub fn finish(mut self) -> Result<Vec<ModeFiles>, WriteFailure> {
        for number in 0..self.gathering.len() {
            if self.send(number).is_err() {
                break;
            }
        }
        self.sender = None;
        let writer = self.writer.take().expect("finish runs once");
        writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

impl Drop for BackgroundFiles {
    /// Stops the writer and waits for it, so that when a walk is abandoned
    /// its temporary files are gone by the time the caller looks.
    fn drop(&mut self) {
        self.sender = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The writer thread has stopped (after an error) and takes no more records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterStopped;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Square};
    use crate::book::Score;
    use crate::modes::{Branch, Mode, Target};
    use crate::output::{FileSettings, Format, Formats, KifuFormat, Orientation};

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
    fn records_arrive_in_order_per_mode_and_repeats_are_dropped_from_every_format() {
        let dir = tempfile::tempdir().unwrap();
        let settings = FileSettings {
            text: KifuFormat { orientation: Orientation::AsWalked, pass_token: "PS".into() },
            formats: Formats::of(&[Format::Kifu, Format::Obf]),
            bom: true,
            unique_lines: true,
        };
        let files = [Mode::LeafVsLinks, Mode::ValueVsBest]
            .iter()
            .map(|&mode| ModeFiles::create(dir.path(), mode, &settings).unwrap())
            .collect();
        let mut background = BackgroundFiles::spawn(files).unwrap();
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
            background.write(number, &record(&line)).unwrap();
        }
        for files in background.finish().unwrap() {
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
}
