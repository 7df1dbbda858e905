//! Which records link to each record of an Edax book: its links, resolved
//! ([`LinkTargets`]), turned round. For work that carries a change up from a
//! position to every position linking to it, without a lookup or a walk.
//!
//! Kept as one list of parents sorted by child and, for each record, where
//! its run in that list starts: 4 bytes a record and 4 a link.

use super::file::BookFile;
use super::record::RecordId;
use super::resolved::LinkTargets;
use crate::format::edax;

/// The records that link to each record.
pub struct Parents {
    /// Where each record's parents start in `list`; one more entry, the end.
    starts: Vec<u32>,
    list: Vec<u32>,
}

impl Parents {
    /// The parents of every record of `file`, from its links' targets
    /// (resolved from `file`); `None` when the book stores more links to
    /// records than 32 bits count.
    pub fn of(file: &BookFile, targets: &LinkTargets) -> Option<Parents> {
        let records = file.counts().records as usize;
        // Each record's count first, then each run's end: a record's parents
        // are filled from the end of its run backwards.
        let mut starts = vec![0u32; records + 1];
        for child in targets.children().flatten() {
            let count = starts.get_mut(child.index())?;
            *count = count.checked_add(1)?;
        }
        let mut total = 0u32;
        for entry in &mut starts[..records] {
            total = total.checked_add(*entry)?;
            *entry = total;
        }
        starts[records] = total;
        let mut list = vec![0u32; total as usize];
        let mut children = targets.children();
        for record in edax::records(file.bytes()) {
            let Ok((parent, _, raw)) = record else { break };
            for child in children.by_ref().take(raw.n_links()).flatten() {
                let end = &mut starts[child.index()];
                *end -= 1;
                list[*end as usize] = parent.0;
            }
        }
        Some(Parents { starts, list })
    }

    /// The records with a link to `child`.
    pub fn of_record(&self, child: RecordId) -> impl Iterator<Item = RecordId> + '_ {
        let (from, to) = match (self.starts.get(child.index()), self.starts.get(child.index() + 1)) {
            (Some(&from), Some(&to)) => (from as usize, to as usize),
            _ => (0, 0),
        };
        self.list.get(from..to).unwrap_or_default().iter().map(|&p| RecordId(p))
    }

    /// Bytes the table takes, for reports.
    pub fn allocation_size(&self) -> usize {
        (self.starts.len() + self.list.len()) * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::Book;
    use crate::symmetry::normalize;
    use crate::synth::{book_bytes, SynthOptions};
    use std::collections::{BTreeSet, HashMap};

    /// Against the slow reference: every record's links played and looked up
    /// one at a time, the parents gathered by child.
    #[test]
    fn the_parents_are_the_records_whose_links_lead_to_each_record() {
        let book = Book::from_bytes("s", book_bytes(&SynthOptions { positions: 3000, seed: 5, perturb: 0.1 })).unwrap();
        let Ok((book, targets)) = book.resolve_keeping_index().into_book() else { panic!("an Edax book") };
        let parents = Parents::of(book.file(), &targets).unwrap();
        // A record may link twice to one child (two moves to symmetric
        // positions): it is listed once for each link.
        let mut expected: HashMap<RecordId, Vec<RecordId>> = HashMap::new();
        for record in book.records() {
            for link in &record.links {
                let child = normalize(&record.board.after(link.mv).unwrap()).board;
                if let Some(at) = book.locate(&child) {
                    expected.entry(at.id).or_default().push(record.id);
                }
            }
        }
        assert!(expected.values().any(|p| p.iter().collect::<BTreeSet<_>>().len() > 1), "the book has transpositions");
        for id in (0..book.counts().records as u32).map(RecordId) {
            let mut found: Vec<RecordId> = parents.of_record(id).collect();
            let mut wanted = expected.remove(&id).unwrap_or_default();
            found.sort();
            wanted.sort();
            assert_eq!(found, wanted, "{id:?}");
        }
    }
}
