//! Which records link to each record of an Edax book: its links, resolved
//! ([`super::LinkTargets`]), turned round. For work that carries a change up from a
//! position to every position linking to it, without a lookup or a walk.
//!
//! Kept as one list of parents sorted by child (4 bytes a link) and, to
//! find a record's run in it, each record's count of parents in a byte
//! (counts of 255 or more in a short list beside) and where the run of
//! every 64th record starts: about 1.1 bytes a record, where a start for
//! every record would take 4.

use super::file::BookFile;
use super::resolved::LinkChildren;
use crate::format::edax;
use crate::parallel::split;
use crate::record::RecordId;
use std::collections::{HashMap, VecDeque};
use std::ops::Range;

/// Records whose runs start are kept: every this many.
const BLOCK: usize = 64;
/// A count byte of this says the count is in the list of large counts.
const MANY: u8 = u8::MAX;
/// How many links ahead the counts a link's child will touch are asked
/// for: each link's child is anywhere in the book, and waiting for its
/// counts one link at a time made turning the links round cost more than
/// reading the file.
const LOOKAHEAD: usize = 16;
/// How many links ahead the place a link's parent goes is asked for, its
/// child's counts being at hand by then.
const NEAR: usize = 8;

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
    /// records than 32 bits count. Each core takes the children of one
    /// run of records, and reads every link to find them.
    pub fn of(file: &BookFile, targets: LinkChildren<'_>) -> Option<Parents> {
        let records = file.counts().records as usize;
        let parts = split(records, crate::parallel::workers(), BLOCK);
        let mut counts = vec![0u8; records];
        let many = in_parts(&mut counts, &parts, |part, mine| {
            let mut mine = Counts { bytes: mine, from: part.start, many: HashMap::new() };
            for (child, ahead) in with_lookahead(targets) {
                if let Some(ahead) = ahead.filter(|a| part.contains(&a.index())) {
                    mine.prefetch(ahead.index());
                }
                match child {
                    Some(child) if part.contains(&child.index()) => mine.add(child.index())?,
                    _ => {}
                }
            }
            Some(mine.many)
        })?;
        let mut many: Vec<(u32, u32)> = many.into_iter().flatten().collect();
        many.sort_unstable();
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
        parents.fill(file, targets, &parts)?;
        Some(parents)
    }

    /// Puts every link's parent into its child's run, each core the runs of
    /// its part of the records, in file order of the parents.
    fn fill(&mut self, file: &BookFile, targets: LinkChildren<'_>, parts: &[Range<usize>]) -> Option<()> {
        let mut list = std::mem::take(&mut self.list);
        let mut placed = vec![0u8; self.counts.len()];
        let this = &*self;
        let list_parts: Vec<Range<usize>> = parts.iter().map(|p| this.start(p.start)..this.start(p.end)).collect();
        let runs = crate::parallel::runs_of(&mut list, list_parts.iter().map(|p| p.len()));
        let placed_runs = crate::parallel::runs_of(&mut placed, parts.iter().map(|p| p.len()));
        let filled = std::thread::scope(|scope| {
            let mut threads = Vec::with_capacity(parts.len());
            let list_from = list_parts.iter().map(|r| r.start);
            for (((part, run), list_from), mine) in parts.iter().cloned().zip(runs).zip(list_from).zip(placed_runs) {
                threads.push(scope.spawn(move || {
                    let placed = Counts { bytes: mine, from: part.start, many: HashMap::new() };
                    let mut filling = Filling { parents: this, run, list_from, placed, near: VecDeque::new() };
                    let children = links(file, targets).filter(|(_, child)| part.contains(&child.index()));
                    for (parent, child) in children {
                        filling.push(parent, child)?;
                    }
                    filling.finish()
                }));
            }
            threads.into_iter().all(|t| t.join().expect("a thread turning links round does not panic").is_some())
        });
        self.list = list;
        filled.then_some(())
    }

    /// A record's number of parents.
    fn count(&self, record: usize) -> u32 {
        match self.counts[record] {
            MANY => self.many.binary_search_by_key(&(record as u32), |&(r, _)| r).map_or(0, |i| self.many[i].1),
            count => u32::from(count),
        }
    }

    /// Where a record's run starts in the list.
    /// (`record` may be the number of records: the list's end.)
    fn start(&self, record: usize) -> usize {
        let block = record / BLOCK;
        let Some(&block_start) = self.blocks.get(block) else { return self.list.len() };
        let counts = &self.counts[block * BLOCK..record];
        let before: u32 = match counts.contains(&MANY) {
            false => counts.iter().map(|&c| u32::from(c)).sum(),
            true => (block * BLOCK..record).map(|r| self.count(r)).sum(),
        };
        (block_start + before) as usize
    }

    /// Asks for the memory [`Parents::start`] of `record` reads.
    fn prefetch_start(&self, record: usize) {
        prefetch_index::prefetch_index(&self.counts, record / BLOCK * BLOCK);
        prefetch_index::prefetch_index(&self.blocks, record / BLOCK);
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

/// Every link to a record of the book, as its parent and child, in file
/// order of the links.
fn links<'a>(file: &'a BookFile, targets: LinkChildren<'a>) -> impl Iterator<Item = (RecordId, RecordId)> + 'a {
    let records = edax::records(file.bytes()).map_while(Result::ok);
    let parents = records.flat_map(|(parent, _, raw)| std::iter::repeat_n(parent, raw.n_links()));
    parents.zip(targets.iter()).filter_map(|(parent, child)| Some((parent, child?)))
}

/// One core's part of [`Parents::fill`]: its links in file order, each
/// placed a few links after it comes in. Each child is anywhere in the
/// book: its count is asked for from memory as the link comes in, and its
/// run's place in the list [`NEAR`] links before it is written, so that
/// no link waits for memory on its own.
struct Filling<'p, 'r> {
    parents: &'p Parents,
    /// The core's part of the list, which starts at `list_from` of the whole.
    run: &'r mut [u32],
    list_from: usize,
    /// The parents placed so far in each child's run.
    placed: Counts<'r>,
    /// The links come in and not yet placed, the oldest first: parent,
    /// child, and the child run's start once known.
    near: VecDeque<(RecordId, usize, Option<usize>)>,
}

impl Filling<'_, '_> {
    /// Takes in the link from `parent` to `child`, and places the link
    /// [`LOOKAHEAD`] links before it; `None` if a run overflows.
    fn push(&mut self, parent: RecordId, child: RecordId) -> Option<()> {
        let c = child.index();
        self.parents.prefetch_start(c);
        self.placed.prefetch(c);
        self.near.push_back((parent, c, None));
        // The link NEAR links before this one: its child's counts are at hand.
        if let Some(nearer) = self.near.len().checked_sub(1 + NEAR) {
            let (_, c, start) = &mut self.near[nearer];
            let at = self.parents.start(*c);
            prefetch_index::prefetch_index(&*self.run, at.saturating_sub(self.list_from));
            *start = Some(at);
        }
        match self.near.len() > LOOKAHEAD {
            true => self.place_oldest(),
            false => Some(()),
        }
    }

    /// Places the links still to place.
    fn finish(mut self) -> Option<()> {
        while !self.near.is_empty() {
            self.place_oldest()?;
        }
        Some(())
    }

    /// Puts the oldest link's parent into its child's run.
    fn place_oldest(&mut self) -> Option<()> {
        let (parent, c, start) = self.near.pop_front()?;
        let start = start.unwrap_or_else(|| self.parents.start(c));
        let at = start + self.placed.get(c) as usize - self.list_from;
        *self.run.get_mut(at)? = parent.0;
        self.placed.add(c)
    }
}

/// Every link's child, in file order of the links, each with the child
/// [`LOOKAHEAD`] links further on (`None` past the last).
fn with_lookahead(targets: LinkChildren<'_>) -> impl Iterator<Item = (Option<RecordId>, Option<RecordId>)> + '_ {
    let ahead = targets.iter().skip(LOOKAHEAD).chain(std::iter::repeat(None));
    targets.iter().zip(ahead)
}

/// Runs `work` on every core, each on one part of `bytes` (`parts` of it,
/// in order), and gathers what each returns; `None` if any does.
fn in_parts<T: Send>(
    bytes: &mut [u8],
    parts: &[Range<usize>],
    work: impl Fn(Range<usize>, &mut [u8]) -> Option<T> + Sync,
) -> Option<Vec<T>> {
    std::thread::scope(|scope| {
        let work = &work;
        let mut threads = Vec::with_capacity(parts.len());
        for (part, mine) in parts.iter().cloned().zip(crate::parallel::runs_of(bytes, parts.iter().map(|p| p.len()))) {
            threads.push(scope.spawn(move || work(part, mine)));
        }
        threads.into_iter().map(|t| t.join().expect("a thread counting parents does not panic")).collect()
    })
}

/// A count a record of a run of records (from `from`), in a byte, the
/// large ones beside.
struct Counts<'a> {
    bytes: &'a mut [u8],
    from: usize,
    many: HashMap<u32, u32>,
}

impl Counts<'_> {
    /// Asks for the memory of `record`'s count, one of the run's.
    fn prefetch(&self, record: usize) {
        prefetch_index::prefetch_index(&*self.bytes, record - self.from);
    }

    fn get(&self, record: usize) -> u32 {
        match self.bytes[record - self.from] {
            MANY => self.many.get(&(record as u32)).copied().unwrap_or(0),
            count => u32::from(count),
        }
    }

    /// Counts one more for `record`; `None` past 32 bits.
    fn add(&mut self, record: usize) -> Option<()> {
        let byte = self.bytes.get_mut(record.checked_sub(self.from)?)?;
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
        let Ok((book, Some(targets))) = book.resolve_keeping_index().into_book() else { panic!("an Edax book") };
        let parents = Parents::of(book.file(), targets.children()).unwrap();
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
        let mut bytes = vec![0u8; 3];
        let mut counts = Counts { bytes: &mut bytes, from: 10, many: HashMap::new() };
        for _ in 0..300 {
            counts.add(11).unwrap();
        }
        for _ in 0..254 {
            counts.add(12).unwrap();
        }
        assert_eq!([counts.get(10), counts.get(11), counts.get(12)], [0, 300, 254]);
        assert!(counts.add(13).is_none() && counts.add(9).is_none(), "records out of the run");
        assert_eq!(counts.many, HashMap::from([(11, 300)]));
        assert_eq!(bytes, vec![0, MANY, 254]);
    }

    /// Runs of whole blocks, end to end, over every record.
    #[test]
    fn records_are_split_into_runs_of_whole_blocks() {
        for (records, parts) in [(0, 2), (1, 2), (64, 2), (65, 2), (1000, 3), (129, 8)] {
            let runs = split(records, parts, BLOCK);
            assert_eq!(runs.first().map_or(0, |r| r.start), 0);
            assert_eq!(runs.last().map_or(0, |r| r.end), records);
            for pair in runs.windows(2) {
                assert_eq!(pair[0].end, pair[1].start);
                assert_eq!(pair[0].end % BLOCK, 0);
            }
        }
    }
}
