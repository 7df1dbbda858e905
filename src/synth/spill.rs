//! What a synthetic book keeps on disk while it is made, in files that are
//! never linked into a folder (so nothing is left behind, even when the
//! process is killed): the boards of every level, and the finished records
//! in buckets by their place in the book, sorted one bucket at a time as the
//! book is written. Memory holds a level or a bucket, never the book.

use super::error::SynthError;
use crate::board::Board;
use crate::run::Interrupted;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Bytes of a board on disk: player then opponent, little-endian.
const BOARD_LEN: usize = 16;
/// Boards read or written at a time.
const BOARDS_AT_ONCE: usize = 1 << 16;

/// The boards of every level, each level a stretch of one temporary file.
pub(super) struct LevelFile {
    file: BufWriter<File>,
    /// Each level's (first byte, boards); a level written again gets a new stretch.
    stretches: Vec<(u64, usize)>,
    end: u64,
}

impl LevelFile {
    pub fn create(dir: &Path) -> io::Result<LevelFile> {
        Ok(LevelFile { file: BufWriter::new(tempfile::tempfile_in(dir)?), stretches: Vec::new(), end: 0 })
    }

    /// Number of levels written.
    pub fn levels(&self) -> usize {
        self.stretches.len()
    }

    /// Writes level `level` (the next one, or one written before, which it replaces).
    pub fn write(&mut self, level: usize, boards: &[Board]) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(self.end))?;
        for board in boards {
            self.file.write_all(&board.player.to_le_bytes())?;
            self.file.write_all(&board.opponent.to_le_bytes())?;
        }
        let stretch = (self.end, boards.len());
        self.end += (boards.len() * BOARD_LEN) as u64;
        match level.cmp(&self.stretches.len()) {
            std::cmp::Ordering::Less => self.stretches[level] = stretch,
            std::cmp::Ordering::Equal => self.stretches.push(stretch),
            std::cmp::Ordering::Greater => unreachable!("levels are written in order"),
        }
        Ok(())
    }

    /// The boards of level `level`, in the order they were written.
    pub fn read(&mut self, level: usize) -> io::Result<Vec<Board>> {
        let (from, count) = self.stretches[level];
        self.file.flush()?;
        let file = self.file.get_mut();
        file.seek(SeekFrom::Start(from))?;
        let mut reader = BufReader::new(file);
        let mut boards = Vec::with_capacity(count);
        let mut bytes = vec![0; BOARDS_AT_ONCE * BOARD_LEN];
        while boards.len() < count {
            let n = (count - boards.len()).min(BOARDS_AT_ONCE);
            reader.read_exact(&mut bytes[..n * BOARD_LEN])?;
            boards.extend(bytes[..n * BOARD_LEN].chunks_exact(BOARD_LEN).map(|b| {
                let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
                Board::new(word(0), word(8))
            }));
        }
        Ok(boards)
    }
}

/// The finished records, each with the key that sets its place in the book
/// (records are written in increasing key), in buckets by the key's top
/// bits: each bucket holds a range of keys, so sorting each bucket and
/// writing the buckets in order writes the whole book in key order.
pub(super) struct Buckets {
    files: Vec<BufWriter<File>>,
    /// The key's top bits that name its bucket (0: one bucket).
    bits: u32,
}

/// Records in a bucket, about: a bucket is sorted in memory.
const RECORDS_A_BUCKET: u64 = 1 << 20;
/// The most buckets (each an open file).
const MAX_BUCKETS: u64 = 128;
/// Bucket buffers, small: there may be many of them.
const BUCKET_BUFFER: usize = 1 << 16;

impl Buckets {
    /// Buckets for a book of `records` records.
    pub fn create(dir: &Path, records: u64) -> io::Result<Buckets> {
        let wanted = records.div_ceil(RECORDS_A_BUCKET).clamp(1, MAX_BUCKETS).next_power_of_two();
        Buckets::with_bits(dir, wanted.trailing_zeros())
    }

    /// `2^bits` buckets.
    pub fn with_bits(dir: &Path, bits: u32) -> io::Result<Buckets> {
        let files = (0..1u32 << bits)
            .map(|_| Ok(BufWriter::with_capacity(BUCKET_BUFFER, tempfile::tempfile_in(dir)?)))
            .collect::<io::Result<_>>()?;
        Ok(Buckets { files, bits })
    }

    fn bucket_of(&self, key: u64) -> usize {
        if self.bits == 0 {
            0
        } else {
            (key >> (64 - self.bits)) as usize
        }
    }

    /// Keeps a record (at most 255 bytes) until the book is written.
    pub fn push(&mut self, key: u64, record: &[u8]) -> io::Result<()> {
        let len = u8::try_from(record.len()).expect("a record of at most 255 bytes");
        let bucket = self.bucket_of(key);
        let file = &mut self.files[bucket];
        file.write_all(&key.to_le_bytes())?;
        file.write_all(&[len])?;
        file.write_all(record)
    }

    /// Writes every record to `out` in increasing key (equal keys: by the
    /// record's bytes), a bucket at a time, telling `written` the records
    /// written after each bucket; stops when it answers false.
    pub fn write_sorted(self, out: &mut impl Write, mut written: impl FnMut(u64) -> bool) -> Result<(), SynthError> {
        let mut done = 0;
        for file in self.files {
            let bytes = read_back(file).map_err(SynthError::Spill)?;
            let mut records = entries(&bytes);
            records.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
            for (_, record) in &records {
                out.write_all(record).map_err(SynthError::Write)?;
            }
            done += records.len() as u64;
            if !written(done) {
                return Err(Interrupted.into());
            }
        }
        Ok(())
    }
}

/// Everything written to a bucket.
fn read_back(file: BufWriter<File>) -> io::Result<Vec<u8>> {
    let mut file = file.into_inner().map_err(|e| e.into_error())?;
    file.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A bucket's (key, record) entries, in the order they were pushed.
fn entries(bytes: &[u8]) -> Vec<(u64, &[u8])> {
    let mut entries = Vec::new();
    let mut rest = bytes;
    while let Some((head, tail)) = rest.split_first_chunk::<9>() {
        let key = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
        let (record, tail) = tail.split_at(usize::from(head[8]));
        entries.push((key, record));
        rest = tail;
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_back_as_written_and_a_level_written_again_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = LevelFile::create(dir.path()).unwrap();
        let level = |n: u64, base: u64| (0..n).map(|i| Board::new(base + i, i << 32)).collect::<Vec<_>>();
        file.write(0, &level(1, 7)).unwrap();
        file.write(1, &level(70_000, 100)).unwrap();
        file.write(2, &level(0, 0)).unwrap();
        file.write(1, &level(3, 5)).unwrap();
        assert_eq!(file.read(0).unwrap(), level(1, 7));
        assert_eq!(file.read(1).unwrap(), level(3, 5));
        assert_eq!(file.read(2).unwrap(), vec![]);
        assert_eq!(file.levels(), 3);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the file has no name");
    }

    #[test]
    fn records_come_out_in_key_order_whatever_the_number_of_buckets() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = super::super::rng::Rng(5);
        let records: Vec<(u64, Vec<u8>)> =
            (0..5000u64).map(|i| ((rng.next() >> 55) << 55, vec![i as u8; 1 + (i % 200) as usize])).collect();
        let mut expected = records.clone();
        expected.sort();
        let expected: Vec<u8> = expected.iter().flat_map(|(_, r)| r.clone()).collect();
        for bits in [0, 1, 4, 7] {
            let mut buckets = Buckets::with_bits(dir.path(), bits).unwrap();
            for (key, record) in &records {
                buckets.push(*key, record).unwrap();
            }
            let mut out = Vec::new();
            let mut told = Vec::new();
            buckets
                .write_sorted(&mut out, |n| {
                    told.push(n);
                    true
                })
                .unwrap();
            assert_eq!(out, expected, "{bits} bits");
            assert_eq!(told.len(), 1 << bits);
            assert_eq!(told.last(), Some(&5000));
        }
    }
}
