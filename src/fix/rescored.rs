//! New link scores for some records of an Edax book, put into those
//! records before `fix` writes them: a book that differs from the one read
//! in nothing but some links' scores is fixed from the book read, with
//! these beside it, instead of being written out and read again
//! (`fix --link` of a book with nothing to link). The walk and the negamax
//! never read a link's score, so only the writing changes.

use crate::book::RecordId;
use crate::score::Score;

/// Records, in file order, each with the scores its links are to hold, in
/// the order it stores them (a byte each, as a record stores them).
#[derive(Clone, Debug, Default)]
pub struct Rescored {
    ids: Vec<RecordId>,
    /// Where each record's scores end in `scores`.
    ends: Vec<usize>,
    scores: Vec<i8>,
}

impl Rescored {
    /// Gives record `id` these link scores, each one a record can store
    /// (read from one); records come in file order.
    ///
    /// # Panics
    /// If `id` does not come after the record given last, or a score does
    /// not fit a record's byte.
    pub fn push(&mut self, id: RecordId, scores: impl IntoIterator<Item = Score>) {
        assert!(self.ids.last().is_none_or(|&last| last < id), "records are rescored in file order");
        self.scores.extend(scores.into_iter().map(Score::stored_byte));
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
    fn scores_of(&self, k: usize) -> &[i8] {
        let from = k.checked_sub(1).map_or(0, |j| self.ends[j]);
        &self.scores[from..self.ends[k]]
    }
}

/// A reader's place among the records rescored.
pub(super) struct Cursor<'r> {
    rescored: &'r Rescored,
    next: usize,
}

impl<'r> Cursor<'r> {
    /// The new link scores of record `id`, as its bytes store them, if it
    /// is rescored; records are asked about in file order.
    pub(super) fn scores_of(&mut self, id: RecordId) -> Option<&'r [i8]> {
        let ids = &self.rescored.ids;
        while ids.get(self.next).is_some_and(|&next| next < id) {
            self.next += 1;
        }
        if ids.get(self.next) != Some(&id) {
            return None;
        }
        self.next += 1;
        Some(self.rescored.scores_of(self.next - 1))
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
        rescored.push(RecordId(2), [Score(5), Score(-3)]);
        rescored.push(RecordId(7), []);
        rescored.push(RecordId(9), [Score(-64)]);
        for start in 0..11 {
            let mut cursor = rescored.from(RecordId(start));
            for id in start..11 {
                let expected: Option<&[i8]> = match id {
                    2 => Some(&[5, -3]),
                    7 => Some(&[]),
                    9 => Some(&[-64]),
                    _ => None,
                };
                assert_eq!(cursor.scores_of(RecordId(id)), expected, "record {id} from {start}");
            }
        }
        assert_eq!(rescored.len(), 3);
    }

    #[test]
    #[should_panic(expected = "file order")]
    fn records_out_of_file_order_are_refused() {
        let mut rescored = Rescored::default();
        rescored.push(RecordId(4), [Score(1)]);
        rescored.push(RecordId(4), [Score(1)]);
    }
}
