//! New link scores for some records of an Edax book, put into those
//! records before `fix` writes them: a book that differs from the one read
//! in nothing but some links' scores is fixed from the book read, with
//! these beside it, instead of being written out and read again
//! (`fix --link` of a book with nothing to link). The walk and the negamax
//! never read a link's score, so only the writing changes.

use crate::book::RecordId;
use crate::format::edax::patch;

/// Records, in file order, each with the scores its links are to hold, in
/// the order it stores them (a byte each, as stored).
#[derive(Clone, Debug, Default)]
pub struct Rescored {
    ids: Vec<RecordId>,
    /// Where each record's scores end in `scores`.
    ends: Vec<usize>,
    scores: Vec<u8>,
}

impl Rescored {
    /// Gives record `id` these link scores; records come in file order.
    ///
    /// # Panics
    /// If `id` does not come after the record given last.
    pub fn push(&mut self, id: RecordId, scores: impl IntoIterator<Item = i8>) {
        assert!(self.ids.last().is_none_or(|&last| last < id), "records are rescored in file order");
        self.scores.extend(scores.into_iter().map(|score| score as u8));
        self.ids.push(id);
        self.ends.push(self.scores.len());
    }

    /// How many records are rescored.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no record is rescored.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The records from `first` on, in file order, for a reader going
    /// through the book from there.
    pub(super) fn from(&self, first: RecordId) -> Cursor<'_> {
        Cursor { rescored: self, next: self.ids.partition_point(|&id| id < first) }
    }

    /// The scores of the `k`th record rescored.
    fn scores_of(&self, k: usize) -> &[u8] {
        let from = k.checked_sub(1).map_or(0, |j| self.ends[j]);
        &self.scores[from..self.ends[k]]
    }
}

/// A reader's place among the records rescored.
pub(super) struct Cursor<'r> {
    rescored: &'r Rescored,
    next: usize,
}

impl Cursor<'_> {
    /// Puts the new scores of record `id` into `record` (its bytes), if it
    /// is rescored; records are asked about in file order.
    pub(super) fn rescore(&mut self, id: RecordId, record: &mut [u8]) {
        let ids = &self.rescored.ids;
        while ids.get(self.next).is_some_and(|&next| next < id) {
            self.next += 1;
        }
        if ids.get(self.next) != Some(&id) {
            return;
        }
        for (i, &score) in self.rescored.scores_of(self.next).iter().enumerate() {
            if patch::link_pair(record, i).is_some() {
                patch::put_link_score(record, i, score as i8);
            }
        }
        self.next += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each record rescored gets its own scores, the others none, whatever
    /// record a cursor starts from.
    #[test]
    fn each_record_gets_its_own_scores_from_any_start() {
        let mut rescored = Rescored::default();
        rescored.push(RecordId(2), [5, -3]);
        rescored.push(RecordId(7), []);
        rescored.push(RecordId(9), [-64]);
        let record = |links: usize| {
            let mut bytes = vec![0u8; crate::format::edax::read::LINKS_AT + 2 * links + 2];
            bytes.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
            bytes
        };
        for start in 0..11 {
            let mut cursor = rescored.from(RecordId(start));
            for id in start..11 {
                let mut bytes = record(2);
                let before = bytes.clone();
                cursor.rescore(RecordId(id), &mut bytes);
                let mut expected = before.clone();
                match id {
                    2 => expected[40..44].copy_from_slice(&[5, 40 + 1, -3i8 as u8, 40 + 3]),
                    9 => expected[40] = -64i8 as u8,
                    _ => {}
                }
                assert_eq!(bytes, expected, "record {id} from {start}");
            }
        }
        assert_eq!(rescored.len(), 3);
    }

    #[test]
    #[should_panic(expected = "file order")]
    fn records_out_of_file_order_are_refused() {
        let mut rescored = Rescored::default();
        rescored.push(RecordId(4), [1]);
        rescored.push(RecordId(4), [1]);
    }
}
