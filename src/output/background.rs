//! Kifu files written on a thread of their own. The walk hands lines over in
//! batches, and dropping repeated lines (a hash probe, sometimes a read
//! back) and writing them overlap with the walk on the second core.

use super::KifuFile;
use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

/// Bytes of text gathered for a file before they are handed over.
const BATCH_BYTES: usize = 64 << 10;
/// Batches in flight before the walk waits for the writer.
const BATCHES_IN_FLIGHT: usize = 16;

/// Lines for one file, kept with where each ends (a pass token may be any
/// text, so the lines are not split on line ends).
#[derive(Default)]
struct Batch {
    text: String,
    ends: Vec<usize>,
}

/// Why the writer stopped: the file it was writing and the error.
pub type WriteFailure = (PathBuf, io::Error);

/// Files owned by a writer thread until [`BackgroundFiles::finish`].
pub struct BackgroundFiles {
    gathering: Vec<Batch>,
    sender: Option<SyncSender<(usize, Batch)>>,
    writer: Option<JoinHandle<Result<Vec<KifuFile>, WriteFailure>>>,
}

impl BackgroundFiles {
    /// Starts the writer thread; lines are then sent by file number (the
    /// position in `files`).
    pub fn spawn(files: Vec<KifuFile>) -> io::Result<BackgroundFiles> {
        let (sender, batches) = sync_channel::<(usize, Batch)>(BATCHES_IN_FLIGHT);
        let gathering = files.iter().map(|_| Batch::default()).collect();
        let writer = std::thread::Builder::new().name("kifu writer".into()).spawn(move || {
            let mut files = files;
            for (number, batch) in batches {
                let file = &mut files[number];
                let mut start = 0;
                for &end in &batch.ends {
                    file.write_line(&batch.text[start..end]).map_err(|e| (file.path().to_path_buf(), e))?;
                    start = end;
                }
            }
            Ok(files)
        })?;
        Ok(BackgroundFiles { gathering, sender: Some(sender), writer: Some(writer) })
    }

    /// Queues a line (without its line end) for file `number`. An error means
    /// the writer has stopped; [`BackgroundFiles::finish`] says why.
    pub fn write_line(&mut self, number: usize, line: &str) -> Result<(), WriterStopped> {
        let batch = &mut self.gathering[number];
        batch.text.push_str(line);
        batch.ends.push(batch.text.len());
        if batch.text.len() >= BATCH_BYTES {
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
    /// with every line written (or the error that stopped the writer).
    pub fn finish(mut self) -> Result<Vec<KifuFile>, WriteFailure> {
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

/// The writer thread has stopped (after an error) and takes no more lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterStopped;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_arrive_in_order_per_file_and_repeats_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..2).map(|i| dir.path().join(format!("f{i}.txt"))).collect();
        let files = paths.iter().map(|p| KifuFile::create(p, true).unwrap()).collect();
        let mut background = BackgroundFiles::spawn(files).unwrap();
        let mut expected = [String::new(), String::new()];
        for i in 0..20_000u32 {
            let number = (i % 3 == 0) as usize;
            let line = format!("F5D6\nC{}", i % 7000);
            if !expected[number].contains(&format!("{line}\n")) {
                expected[number].push_str(&line);
                expected[number].push('\n');
            }
            background.write_line(number, &line).unwrap();
        }
        for file in background.finish().unwrap() {
            file.commit().unwrap();
        }
        for (path, expected) in paths.iter().zip(&expected) {
            let text = std::fs::read_to_string(path).unwrap();
            assert_eq!(text.trim_start_matches('\u{feff}'), expected);
        }
    }
}
