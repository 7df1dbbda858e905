//! Which records link to each record of an Edax book: its links, resolved
//! ([`LinkTargets`]), turned round. For work that carries a change up from a
//! position to every position linking to it, without a lookup or a walk.
//!
//! Kept as one list of parents sorted by child (4 bytes a link) and, to
//! find a record's run in it, each record's count of parents in a byte
//! (counts of 255 or more in a short list beside) and where the run of
//! every 64th record starts: about 1.1 bytes a record, where a start for
//! every record would take 4.

use super::file::BookFile;
use super::record::RecordId;
use super::resolved::LinkTargets;
use crate::format::edax;
use std::collections::HashMap;

/// Records whose runs start are kept: every this many.
const BLOCK: usize = 64;
/// A count byte of this says the count is in the list of large counts.
const MANY: u8 = u8::MAX;

/// The records that link to each record.
pub struct Parents {
    /// Where the run of every [`BLOCK`]th record starts in `list`.
    blocks: Vec<u32>,
    /// Each record's number of parents, [`MANY`] for 255 or more.
    counts: Vec<u8>,
    /// The counts of 255 or more, by record, sorted.
    many: Vec<(u32, u32)>,
    list: Vec<u32>,
}

impl Parents {
    /// The parents of every record of `file`, from its links' targets
    /// (resolved from `file`); `None` when the book stores more links to
    /// records than 32 bits count.
    pub fn of(file: &BookFile, targets: &LinkTargets) -> Option<Parents> {
        let records = file.counts().records as usize;
        let mut counts = Counts::new(records);
        for child in targets.children().flatten() {
            counts.add(child.index())?;
        }
        let (counts, many) = counts.finish();
        let mut parents = Parents { blocks: Vec::with_capacity(records / BLOCK + 2), counts, many, list: Vec::new() };
        let mut total = 0u32;
        for record in 0..records {
            if record % BLOCK == 0 {
                parents.blocks.push(total);
            }
            total = total.checked_add(parents.count(record))?;
        }
        parents.blocks.push(total);
        parents.list = vec![0; total as usize];
        // Each run is filled in order, a child's count of parents placed so far kept as it goes.
        let mut placed = Counts::new(records);
        let mut children = targets.children();
        for record in edax::records(file.bytes()) {
            let Ok((parent, _, raw)) = record else { break };
            for child in children.by_ref().take(raw.n_links()).flatten() {
                let at = parents.start(child.index()) + placed.get(child.index()) as usize;
                parents.list[at] = parent.0;
                placed.add(child.index())?;
            }
        }
        Some(parents)
    }

    /// A record's number of parents.
    fn count(&self, record: usize) -> u32 {
        match self.counts[record] {
            MANY => self.many.binary_search_by_key(&(record as u32), |&(r, _)| r).map_or(0, |i| self.many[i].1),
            count => u32::from(count),
        }
    }

    /// Where a record's run starts in the list.
    fn start(&self, record: usize) -> usize {
        let block = record / BLOCK;
        let before: u32 = (block * BLOCK..record).map(|r| self.count(r)).sum();
        (self.blocks[block] + before) as usize
    }

    /// The records with a link to `child`.
    pub fn of_record(&self, child: RecordId) -> impl Iterator<Item = RecordId> + '_ {
        let run = match child.index() < self.counts.len() {
            true => {
                let start = self.start(child.index());
                self.list.get(start..start + self.count(child.index()) as usize)
            }
            false => None,
        };
        run.unwrap_or_default().iter().map(|&p| RecordId(p))
    }

    /// Bytes the table takes, for reports.
    pub fn allocation_size(&self) -> usize {
        self.blocks.len() * 4 + self.counts.len() + self.many.len() * 8 + self.list.len() * 4
    }
}

/// A count a record, in a byte, the large ones beside.
struct Counts {
    bytes: Vec<u8>,
    many: HashMap<u32, u32>,
}

impl Counts {
    fn new(records: usize) -> Counts {
        Counts { bytes: vec![0; records], many: HashMap::new() }
    }

    fn get(&self, record: usize) -> u32 {
        match self.bytes[record] {
            MANY => self.many.get(&(record as u32)).copied().unwrap_or(0),
            count => u32::from(count),
        }
    }

    /// Counts one more for `record`; `None` past 32 bits.
    fn add(&mut self, record: usize) -> Option<()> {
        let byte = self.bytes.get_mut(record)?;
        match *byte {
            MANY => {
                let count = self.many.get_mut(&(record as u32))?;
                *count = count.checked_add(1)?;
            }
            count if count + 1 == MANY => {
                *byte = MANY;
                self.many.insert(record as u32, u32::from(MANY));
            }
            _ => *byte += 1,
        }
        Some(())
    }

    fn finish(self) -> (Vec<u8>, Vec<(u32, u32)>) {
        let mut many: Vec<(u32, u32)> = self.many.into_iter().collect();
        many.sort_unstable();
        (self.bytes, many)
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

    /// Counts past a byte are kept beside, exactly.
    #[test]
    fn counts_of_255_and_more_are_kept_exactly() {
        let mut counts = Counts::new(3);
        for _ in 0..300 {
            counts.add(1).unwrap();
        }
        for _ in 0..254 {
            counts.add(2).unwrap();
        }
        assert_eq!([counts.get(0), counts.get(1), counts.get(2)], [0, 300, 254]);
        let (bytes, many) = counts.finish();
        assert_eq!(bytes, vec![0, MANY, 254]);
        assert_eq!(many, vec![(1, 300)]);
    }
}
