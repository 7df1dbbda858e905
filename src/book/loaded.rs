//! A book ready to walk: the file mapped, every record checked, the index built.

use super::format::{self, FormatError, Problem, Record};
use super::index::{build_index, hash_board, shard_of, PositionIndex, MAX_BOOK_LEN, SHARDS};
use super::store::{BookCounts, BookError, Bytes, RecordStore};
use crate::board::Board;
use std::path::{Path, PathBuf};

/// A book ready to walk.
pub struct Book {
    store: RecordStore,
    index: PositionIndex,
}

impl Book {
    /// Maps and indexes a book file, failing on any problem SPEC §7 lists for
    /// `mine`. A wrong header count is only a warning.
    pub fn open(path: &Path) -> Result<Book, BookError> {
        Book::build(path.to_path_buf(), Bytes::open(path)?)
    }

    /// Indexes a book held in memory; `name` stands for the path in messages.
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Book, BookError> {
        Book::build(PathBuf::from(name), Bytes::Owned(bytes))
    }

    fn build(path: PathBuf, bytes: Bytes) -> Result<Book, BookError> {
        let fail = |error| BookError::Format { path: path.clone(), error };
        let header = format::parse_header(bytes.as_slice()).map_err(fail)?;
        let len = bytes.as_slice().len() as u64;
        if len > MAX_BOOK_LEN {
            return Err(fail(FormatError { record: None, offset: 0, problem: Problem::TooLarge { len, limit: MAX_BOOK_LEN } }));
        }
        let began = std::time::Instant::now();
        let (counts, per_shard) = check_records(bytes.as_slice()).map_err(fail)?;
        tracing::debug!("{}: records checked in {:.3} s", path.display(), began.elapsed().as_secs_f64());
        if i64::from(header.n_nodes) != counts.positions as i64 {
            tracing::warn!(
                "{}: header says {} positions, the file holds {}; using the records",
                path.display(),
                header.n_nodes,
                counts.positions
            );
        }
        let store = RecordStore::new(path, bytes, header, counts);
        let began = std::time::Instant::now();
        let index = build_index(&store, per_shard).map_err(|error| BookError::Format { path: store.path().to_path_buf(), error })?;
        tracing::debug!("{}: index built in {:.3} s", store.path().display(), began.elapsed().as_secs_f64());
        Ok(Book { store, index })
    }

    pub fn store(&self) -> &RecordStore {
        &self.store
    }

    /// The store to read records from and the index to mark visits in, borrowed apart.
    pub fn parts_mut(&mut self) -> (&RecordStore, &mut PositionIndex) {
        (&self.store, &mut self.index)
    }

    pub fn index(&self) -> &PositionIndex {
        &self.index
    }

    /// The record of a stored (normalized) board, with its offset.
    pub fn find(&self, board: &Board) -> Option<(u64, Record<'_>)> {
        let offset = self.index.find(&self.store, board)?;
        Some((offset, self.store.record_at(offset)))
    }
}

/// First pass: every record whole and passing the load checks; counts them
/// (and each half of the index's share) so the index is sized by what the
/// file holds, never by the header.
fn check_records(bytes: &[u8]) -> Result<(BookCounts, [usize; SHARDS]), FormatError> {
    let mut counts = BookCounts::default();
    let mut per_shard = [0; SHARDS];
    let mut problems = Vec::new();
    for item in format::records(bytes) {
        let (number, offset, record) = item?;
        record.load_problems(&mut problems);
        if !problems.is_empty() {
            return Err(FormatError { record: Some(number), offset: offset as u64, problem: problems.swap_remove(0) });
        }
        counts.positions += 1;
        counts.links += record.n_links() as u64;
        counts.leaves += u64::from(record.leaf().is_some());
        per_shard[shard_of(hash_board(&record.board()))] += 1;
    }
    Ok((counts, per_shard))
}
