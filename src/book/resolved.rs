//! The book as the walk reads it: every stored move already resolved (by
//! [`super::resolve`]) to the record its child is, so that reaching a
//! position costs one trip to memory — its record and its moves' targets,
//! both found from where the parent's target points — instead of an index
//! lookup followed by a record read.
//!
//! Each format keeps its targets in its own layout, behind [`ResolvedBook::read`]:
//!
//! * Edax stores its links, so a record's targets are one word per stored
//!   link, in file order: a record's run starts at the number of links stored
//!   before it, which its offset gives (every record is 42 bytes and 2 per
//!   link). Leaves lead out of the book nearly always; the few that do not
//!   (an illegal leaf, or one whose child is stored) are listed by record.
//! * Egaroucid stores no links: the found ones are kept, two words a record
//!   (its first two links and the record's facts), with the rest of a record
//!   that has more than two in a shared overflow list.

use super::file::{BookCounts, BookFile};
use super::index::{Located, PositionIndex};
use crate::board::{Board, Move};
use crate::format::edax;
use crate::format::egaroucid::{self, FoundLink};
use crate::record::{Link, Record, RecordId, Score};
use crate::symmetry::{Placement, Symmetry};
use smallvec::SmallVec;
use std::path::Path;

/// Where a stored move leads, as resolved before the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Destination {
    /// The child is in the book: its record, and how its stored board lies
    /// on the position the move reaches, in the record's coordinates.
    Child(Located, Placement),
    /// The child is not in the book.
    Absent,
    /// The move is not legal on its record's board; the walk fails if it follows it.
    Illegal,
}

/// A [`Destination`] in one word: a child's id in the low 32 bits, its hint in
/// the next 22 (hints stay below 2^22, see [`edax::Starts`]), then its
/// placement (3 bits of symmetry, 1 for a symmetric board), and the top bit
/// set; the two other targets are 0 and 1, which no child can be. Absent
/// is 0 so that a table of targets starts as zeroed memory, which the
/// kernel maps as it is first written, by the threads that fill it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Zeroable)]
#[repr(transparent)]
pub(super) struct PackedTarget(u64);

/// Hints a packed target can hold.
const HINT_BITS: u32 = 22;
// An Edax record's hint, its distance from the last kept start, fits.
const _: () = assert!(edax::HINT_END <= 1 << HINT_BITS);

impl PackedTarget {
    pub const ABSENT: PackedTarget = PackedTarget(0);
    pub const ILLEGAL: PackedTarget = PackedTarget(1);
    /// The bit every child's target has set.
    const CHILD: u64 = 1 << 63;

    pub fn child(at: Located, placement: Placement) -> PackedTarget {
        debug_assert!(at.hint < 1 << HINT_BITS, "hint {} does not fit", at.hint);
        PackedTarget(
            u64::from(at.id.0)
                | u64::from(at.hint & ((1 << HINT_BITS) - 1)) << 32
                | pack_placement(placement) << (32 + HINT_BITS)
                | PackedTarget::CHILD,
        )
    }

    /// The child's record, without its placement, if the target is one.
    #[inline]
    pub fn child_located(self) -> Option<Located> {
        (self.0 & PackedTarget::CHILD != 0)
            .then_some(Located { id: RecordId(self.0 as u32), hint: (self.0 >> 32) as u32 & ((1 << HINT_BITS) - 1) })
    }

    pub fn unpack(self) -> Destination {
        match (self, self.child_located()) {
            (_, Some(at)) => Destination::Child(at, unpack_placement((self.0 >> (32 + HINT_BITS)) & 0xf)),
            (PackedTarget::ILLEGAL, None) => Destination::Illegal,
            (_, None) => Destination::Absent,
        }
    }
}

/// A placement in 4 bits: the symmetry, then whether the board is symmetric.
fn pack_placement(placement: Placement) -> u64 {
    u64::from(placement.symmetry.index()) | u64::from(placement.symmetric) << 3
}

fn unpack_placement(bits: u64) -> Placement {
    Placement { symmetry: Symmetry::new((bits & 7) as u8).expect("three bits"), symmetric: bits & 8 != 0 }
}

/// An Edax book's targets.
#[derive(Default)]
pub(super) struct EdaxTargets {
    /// One per stored link, in file order.
    pub links: Vec<PackedTarget>,
    /// Leaves whose target is not [`Destination::Absent`], by record, in record order.
    pub leaves: Vec<(RecordId, PackedTarget)>,
}

impl EdaxTargets {
    /// The targets of the `n_links` links of the record `id`, which starts
    /// at byte `offset`.
    fn links_of(&self, id: RecordId, offset: u64, n_links: usize) -> Option<&[PackedTarget]> {
        let first = edax::links_before(id, offset) as usize;
        self.links.get(first..first + n_links)
    }

    fn leaf(&self, id: RecordId) -> Destination {
        match self.leaves.binary_search_by_key(&id, |&(record, _)| record) {
            Ok(i) => self.leaves[i].1.unpack(),
            Err(_) => Destination::Absent,
        }
    }
}

impl PackedTarget {
    /// A destination in one word.
    fn of(destination: Destination) -> PackedTarget {
        match destination {
            Destination::Child(at, placement) => PackedTarget::child(at, placement),
            Destination::Absent => PackedTarget::ABSENT,
            Destination::Illegal => PackedTarget::ILLEGAL,
        }
    }
}

/// Where an Edax book's stored moves lead, found record after record in
/// file order by a caller that looked up the child of every legal move of
/// every record itself (`fix --link`'s linking): what resolving the book
/// finds, so that it need not be looked up again
/// ([`super::Book::with_moves_found`]).
#[derive(Default)]
pub struct MovesFound(pub(super) EdaxTargets);

impl MovesFound {
    /// Adds the targets of the next record in file order (record `id`, of
    /// stored board `board`): its stored links' moves `links` (`None`: the
    /// slot holds no move, and leads nowhere, as resolving leaves it) and
    /// its leaf's move, as its legal moves were looked up: `child_of(mv)`
    /// is where the move leads ([`Destination::Absent`]: its child is not
    /// held), or `None` for a move that was not looked up. A stored move not
    /// looked up that is no legal move is [`Destination::Illegal`], as
    /// resolving has it; false (nothing can be told) if one is legal.
    pub fn push_record(
        &mut self,
        (id, board): (RecordId, &Board),
        links: &[Option<Move>],
        leaf: Option<Move>,
        child_of: impl Fn(Move) -> Option<Destination>,
    ) -> bool {
        let target = |mv: Move| match child_of(mv) {
            Some(destination) => Some(PackedTarget::of(destination)),
            None => board.after(mv).is_none().then_some(PackedTarget::ILLEGAL),
        };
        for &link in links {
            let Some(packed) = link.map_or(Some(PackedTarget::ABSENT), target) else { return false };
            self.0.links.push(packed);
        }
        if let Some(leaf) = leaf {
            let Some(packed) = target(leaf) else { return false };
            if packed != PackedTarget::ABSENT {
                self.0.leaves.push((id, packed));
            }
        }
        true
    }

    /// Room for `links` links' targets, in large pages where the system
    /// gives them: the walk reads a record's targets wherever it stands,
    /// as it reads those [`super::resolve`] finds.
    pub fn with_room_for(links: usize) -> MovesFound {
        let mut targets = Vec::with_capacity(links);
        crate::os::advise_huge_pages(&mut targets);
        MovesFound(EdaxTargets { links: targets, leaves: Vec::new() })
    }

    /// Adds the records of `next`, which follow these in file order, and
    /// empties it.
    pub fn append(&mut self, next: &mut MovesFound) {
        self.0.links.append(&mut next.0.links);
        self.0.leaves.append(&mut next.0.leaves);
    }

    /// Forgets every record added.
    pub fn clear(&mut self) {
        self.0.links.clear();
        self.0.leaves.clear();
    }

    /// How many links' targets are held.
    pub(super) fn links(&self) -> usize {
        self.0.links.len()
    }
}

/// A record's word in an Egaroucid book's [`EgaroucidLinks`]: in the top 8
/// bits its facts, how many links it has (bits 56–61), a pass after its
/// leaf (62), an illegal leaf (63); below them its link (52 bits, see
/// [`pack_link`]) when it has one. A record with more links keeps them all
/// in the overflow list, from the index in the low 32 bits. Nearly every
/// record of a book has one link (each position but the first is some
/// position's link; a few are several positions'), so one word a record
/// and a short overflow list hold them in about half the room of two
/// words a record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Slots(pub u64);

/// What [`Slots`] says about a record besides its links.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RecordFacts {
    pub links: usize,
    pub leaf_then_pass: bool,
    pub leaf_illegal: bool,
}

const FACTS_SHIFT: u32 = 56;
const LINKS_INLINE: usize = 1;
/// Most links a record can have: a move to every empty square.
pub(super) const MAX_LINKS: usize = 60;

impl Slots {
    /// The slots of a record with these facts and links; more than one
    /// link goes to `overflow`.
    pub fn new(facts: RecordFacts, links: &[FoundLink<Located>], overflow: &mut Vec<u64>) -> Slots {
        debug_assert!(links.len() == facts.links && facts.links <= MAX_LINKS);
        let packed = (facts.links as u64) | u64::from(facts.leaf_then_pass) << 6 | u64::from(facts.leaf_illegal) << 7;
        let word = match links {
            [] => 0,
            [link] => pack_link(link),
            _ => {
                let start = overflow.len() as u64;
                overflow.extend(links.iter().map(pack_link));
                start
            }
        };
        Slots(word | packed << FACTS_SHIFT)
    }

    pub fn facts(&self) -> RecordFacts {
        let packed = self.0 >> FACTS_SHIFT;
        RecordFacts {
            links: (packed & 0x3f) as usize,
            leaf_then_pass: packed & 0x40 != 0,
            leaf_illegal: packed & 0x80 != 0,
        }
    }

    /// Where this record's links are in the overflow list, if they are there.
    pub fn overflow_start(&self) -> Option<usize> {
        (self.facts().links > LINKS_INLINE).then_some((self.0 & 0xffff_ffff) as usize)
    }

    /// Moves this record's overflow index by `by` (lists made apart, then joined).
    pub fn shift_overflow(&mut self, by: usize) {
        if self.overflow_start().is_some() {
            self.0 += by as u64;
        }
    }

    /// The record's links, read from the slots or the overflow list.
    fn links<'a>(&'a self, overflow: &'a [u64]) -> impl Iterator<Item = FoundLink<Located>> + 'a {
        let count = self.facts().links;
        let words = match self.overflow_start() {
            Some(start) => overflow.get(start..start + count).unwrap_or_default(),
            None => std::slice::from_ref(&self.0).get(..count).unwrap_or_default(),
        };
        words.iter().map(|&word| unpack_link(word))
    }
}

/// A found link in 52 bits: the child's id (bits 0–31), the score (32–39),
/// the move's code (40–46), a pass after the move (47), the placement (48–51).
fn pack_link(found: &FoundLink<Located>) -> u64 {
    let score = found.link.score.0.clamp(i8::MIN.into(), i8::MAX.into()) as i8 as u8;
    u64::from(found.child.id.0)
        | u64::from(score) << 32
        | u64::from(found.link.mv.code()) << 40
        | u64::from(found.link.then_pass) << 47
        | pack_placement(found.placement) << 48
}

fn unpack_link(word: u64) -> FoundLink<Located> {
    let mv = Move::from_code(((word >> 40) & 0x7f) as u8).unwrap_or(Move::Pass);
    let link = Link { score: Score(i32::from((word >> 32) as u8 as i8)), mv, then_pass: word & 1 << 47 != 0 };
    let placement = unpack_placement((word >> 48) & 0xf);
    FoundLink { link, child: Located { id: RecordId(word as u32), hint: 0 }, placement }
}

/// An Egaroucid book's found links.
pub(super) struct EgaroucidLinks {
    /// By record id.
    pub slots: Vec<Slots>,
    pub overflow: Vec<u64>,
}

/// Every move's target, in the layout of the book's format.
pub(super) enum Targets {
    Edax(EdaxTargets),
    Egaroucid(EgaroucidLinks),
}

/// Every link's child record of an Edax book, in file order of the links,
/// borrowed from where the targets are kept.
#[derive(Clone, Copy)]
pub struct LinkChildren<'a>(&'a [PackedTarget]);

impl<'a> LinkChildren<'a> {
    /// Each link's child (`None`: not in the book, or an illegal move).
    pub fn iter(self) -> impl Iterator<Item = Option<RecordId>> + 'a {
        self.0.iter().map(|t| t.child_located().map(|at| at.id))
    }
}

/// Where every stored link of an Edax book leads, kept beside the index
/// ([`ResolvedBook::into_book`]): for work that both looks positions up
/// and walks the links many times over.
pub struct LinkTargets {
    links: Vec<PackedTarget>,
}

impl LinkTargets {
    pub(super) fn new(targets: EdaxTargets) -> LinkTargets {
        LinkTargets { links: targets.links }
    }

    /// The targets of the links of the record at `at` of `file` (the book
    /// they were resolved from), in stored order; none for a record that
    /// no longer reads.
    pub fn of(&self, file: &BookFile, at: Located) -> impl Iterator<Item = Destination> + '_ {
        let offset = file.offset(at);
        let stored = edax::n_links_at(file.bytes(), offset as usize).and_then(|n_links| {
            let first = edax::links_before(at.id, offset) as usize;
            self.links.get(first..first + n_links)
        });
        stored.unwrap_or_default().iter().map(|t| t.unpack())
    }

    /// Every link's child record, in file order of the links.
    pub fn children(&self) -> LinkChildren<'_> {
        LinkChildren(&self.links)
    }

    /// Bytes the targets take, for reports.
    pub fn allocation_size(&self) -> usize {
        self.links.len() * std::mem::size_of::<PackedTarget>()
    }
}

/// A book ready to walk: its file, and where every stored move leads. The
/// index is gone (the targets replace it), which leaves the memory it held
/// to the walk, unless the book was resolved to be looked up again after
/// ([`super::Book::resolve_keeping_index`]).
pub struct ResolvedBook {
    file: BookFile,
    targets: Targets,
    index: Option<PositionIndex>,
}

impl ResolvedBook {
    pub(super) fn new(file: BookFile, targets: Targets, index: Option<PositionIndex>) -> ResolvedBook {
        ResolvedBook { file, targets, index }
    }

    /// The file and its index again, and where an Edax book's links lead
    /// (the leaves' targets dropped; none for an Egaroucid book, whose links
    /// change as positions are added): what `into_book` makes a book of; the
    /// resolved book itself back for a book whose index was not kept.
    #[allow(clippy::type_complexity)]
    pub(super) fn into_parts(self) -> Result<(BookFile, PositionIndex, Option<LinkTargets>), Box<ResolvedBook>> {
        match self {
            ResolvedBook { file, targets: Targets::Edax(targets), index: Some(index) } => {
                Ok((file, index, Some(LinkTargets::new(targets))))
            }
            ResolvedBook { file, targets: Targets::Egaroucid(_), index: Some(index) } => Ok((file, index, None)),
            other => Err(Box::new(other)),
        }
    }

    /// Every link's child record, for an Edax book.
    pub fn link_children(&self) -> Option<LinkChildren<'_>> {
        match &self.targets {
            Targets::Edax(targets) => Some(LinkChildren(&targets.links)),
            Targets::Egaroucid(_) => None,
        }
    }

    /// The file and its records.
    pub fn file(&self) -> &BookFile {
        &self.file
    }

    /// The file, as named.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// What the book holds, counted at load.
    pub fn counts(&self) -> BookCounts {
        self.file.counts()
    }

    /// Logs that the moves of the book at `path` were resolved, in the time
    /// since `began`, and the room their targets take.
    pub fn log_resolved(&self, path: &Path, began: std::time::Instant) {
        let (seconds, megabytes) = (began.elapsed().as_secs_f64(), self.allocation_size() >> 20);
        tracing::info!("{}: moves resolved in {seconds:.3} s ({megabytes} MB)", path.display());
    }

    /// Bytes the targets take, for reports.
    pub fn allocation_size(&self) -> usize {
        match &self.targets {
            Targets::Edax(t) => {
                t.links.len() * std::mem::size_of::<PackedTarget>()
                    + t.leaves.len() * std::mem::size_of::<(RecordId, PackedTarget)>()
            }
            Targets::Egaroucid(t) => t.slots.len() * std::mem::size_of::<Slots>() + t.overflow.len() * 8,
        }
    }

    /// Asks the CPU to start loading what [`ResolvedBook::read`] of `at`
    /// touches: the record's first bytes and its targets.
    #[inline]
    pub fn prefetch(&self, at: Located) {
        let offset = self.file.offset(at);
        self.file.prefetch_offset(offset);
        match &self.targets {
            Targets::Edax(targets) => {
                let first = edax::links_before(at.id, offset) as usize;
                prefetch_index::prefetch_index(&targets.links, first.min(targets.links.len().saturating_sub(1)));
            }
            Targets::Egaroucid(links) => prefetch_index::prefetch_index(&links.slots, at.id.index()),
        }
    }

    /// The record the first link of `at` leads to, if it has one in the
    /// book: where a walk that enters `at` goes first. Reads what
    /// [`ResolvedBook::prefetch`] asks for; meant for walking ahead, so the
    /// leaf is not looked at.
    #[inline]
    pub fn first_child(&self, at: Located) -> Option<Located> {
        match &self.targets {
            Targets::Edax(targets) => {
                let offset = self.file.offset(at);
                let n_links = edax::n_links_at(self.file.bytes(), offset as usize)?;
                targets.links_of(at.id, offset, n_links)?.iter().find_map(|t| t.child_located())
            }
            Targets::Egaroucid(links) => {
                links.slots.get(at.id.index())?.links(&links.overflow).next().map(|link| link.child)
            }
        }
    }

    /// The record at `at`, and the targets of its moves (links in stored
    /// order, then the leaf) appended to `targets`, one for each of
    /// [`Record::moves`]. Should the bytes have changed since they were
    /// checked, the record reads as having no moves (or its moves as leading
    /// nowhere) rather than failing here; [`BookFile::changed`] finds the change.
    pub fn read(&self, at: Located, targets: &mut Vec<Destination>) -> Record {
        match &self.targets {
            Targets::Edax(edax_targets) => self.read_edax(at, edax_targets, targets),
            Targets::Egaroucid(links) => self.read_egaroucid(at, links, targets),
        }
    }

    /// The targets of the links of the record at `at`, in stored order (its
    /// leaf left out), appended to `targets`: [`ResolvedBook::read`]
    /// without making the record. A record that no longer reads (the book
    /// changed) appends nothing.
    pub fn link_targets(&self, at: Located, targets: &mut Vec<Destination>) {
        match &self.targets {
            Targets::Edax(edax_targets) => {
                let offset = self.file.offset(at);
                let Some(n_links) = edax::n_links_at(self.file.bytes(), offset as usize) else { return };
                if let Some(stored) = edax_targets.links_of(at.id, offset, n_links) {
                    targets.extend(stored.iter().map(|t| t.unpack()));
                }
            }
            Targets::Egaroucid(links) => {
                if let Some(slots) = links.slots.get(at.id.index()) {
                    targets.extend(slots.links(&links.overflow).map(|l| Destination::Child(l.child, l.placement)));
                }
            }
        }
    }

    /// The records the moves of `at` lead to, in the order of
    /// [`ResolvedBook::read`]'s targets (its links, then its leaf when
    /// `leaves`), appended to `children`: what `read` finds of them, read
    /// from the same bytes, without making the record. For a thread that
    /// walks ahead of the walk (`walk::ahead`), which needs no more.
    pub fn children(&self, at: Located, leaves: bool, children: &mut Vec<Located>) {
        match &self.targets {
            Targets::Edax(edax_targets) => {
                let offset = self.file.offset(at);
                let Some(raw) = edax::record_at(self.file.bytes(), offset as usize) else { return };
                let stored = edax_targets.links_of(at.id, offset, raw.n_links());
                if let Some(stored) = stored.filter(|_| raw.links_that_are_moves() == raw.n_links()) {
                    children.extend(stored.iter().filter_map(|t| t.child_located()));
                }
                if leaves && raw.has_leaf() {
                    if let Destination::Child(child, _) = edax_targets.leaf(at.id) {
                        children.push(child);
                    }
                }
            }
            // A leaf never leads into an Egaroucid book (docs/formats.md).
            Targets::Egaroucid(links) => {
                let (Some(_), Some(slots)) =
                    (egaroucid::record_at(self.file.bytes(), at.id), links.slots.get(at.id.index()))
                else {
                    return;
                };
                children.extend(slots.links(&links.overflow).map(|link| link.child));
            }
        }
    }

    fn read_edax(&self, at: Located, edax_targets: &EdaxTargets, targets: &mut Vec<Destination>) -> Record {
        let offset = self.file.offset(at);
        let Some(raw) = edax::record_at(self.file.bytes(), offset as usize) else {
            return self.file.unreadable(at.id, offset);
        };
        let stored = edax_targets.links_of(at.id, offset, raw.n_links());
        // A link whose move code is bad is left out of the record; only a
        // book changed since it was checked has one.
        let links = raw.links_that_are_moves();
        match stored.filter(|_| links == raw.n_links()) {
            Some(stored) => targets.extend(stored.iter().map(|t| t.unpack())),
            None => targets.extend((0..links).map(|_| Destination::Absent)),
        }
        if raw.has_leaf() {
            targets.push(edax_targets.leaf(at.id));
        }
        // Made last, as the value returned: a record is large, and one made
        // earlier was copied on the way out.
        raw.to_record(at.id, offset)
    }

    fn read_egaroucid(&self, at: Located, links: &EgaroucidLinks, targets: &mut Vec<Destination>) -> Record {
        let (Some(raw), Some(slots)) = (egaroucid::record_at(self.file.bytes(), at.id), links.slots.get(at.id.index()))
        else {
            return self.file.unreadable(at.id, self.file.offset(at));
        };
        let facts = slots.facts();
        let mut found: SmallVec<[Link; 8]> = SmallVec::new();
        for link in slots.links(&links.overflow) {
            found.push(link.link);
            targets.push(Destination::Child(link.child, link.placement));
        }
        let record = raw.with_links(at.id, found, facts.leaf_then_pass);
        if record.leaf().is_some() {
            // A leaf's child would be a link (docs/formats.md, Egaroucid books): it never leads into the book.
            targets.push(if facts.leaf_illegal { Destination::Illegal } else { Destination::Absent });
        }
        record
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_target_is_the_target_it_was_made_from() {
        let children = [
            Located { id: RecordId(0), hint: 0 },
            Located { id: RecordId(u32::MAX - 1), hint: (1 << HINT_BITS) - 1 },
            Located { id: RecordId(12345), hint: 564_696 },
        ];
        for at in children {
            for (s, symmetric) in Symmetry::ALL.into_iter().zip([false, true].into_iter().cycle()) {
                let placement = Placement { symmetry: s, symmetric };
                let packed = PackedTarget::child(at, placement);
                assert_eq!(packed.unpack(), Destination::Child(at, placement));
                assert_eq!(packed.child_located(), Some(at));
                assert!(packed != PackedTarget::ABSENT && packed != PackedTarget::ILLEGAL);
            }
        }
        assert_eq!(PackedTarget::ABSENT.unpack(), Destination::Absent);
        assert_eq!(PackedTarget::ILLEGAL.unpack(), Destination::Illegal);
        assert_eq!(PackedTarget::ABSENT.child_located(), None);
        assert_eq!(PackedTarget::ILLEGAL.child_located(), None);
    }

    /// Against the slow reference: each stored move of each record played,
    /// normalized and looked up on its own. Every seventh record of a
    /// synthetic book is left out, so that links lead out of the book too,
    /// as a stale book's do, and a fifth of the records' first links are
    /// made their leaves, which then lead into it.
    #[test]
    fn every_stored_move_leads_where_a_lookup_one_at_a_time_finds() {
        use crate::book::Book;
        use crate::format::edax::entries::{encode, Entry};
        use crate::symmetry::normalize;
        use crate::synth::{book_bytes, SynthOptions};
        let full =
            Book::from_bytes("s", book_bytes(&SynthOptions { positions: 20_000, seed: 9, perturb: 0.1 })).unwrap();
        let root = normalize(&Board::INITIAL).board;
        let kept = full.records().filter(|r| r.board == root || r.id.0 % 7 != 3).map(|r| {
            let mut entry = Entry::new(r.board, r.value.0);
            entry.links = r.links().collect();
            entry.leaf = r.leaf();
            if r.id.0 % 5 == 1 && !entry.links.is_empty() {
                entry.leaf = Some(entry.links.remove(0)); // a leaf into the book
            }
            entry
        });
        let bytes = encode(&kept.collect::<Vec<_>>(), 1);
        let reference = Book::from_bytes("r", bytes.clone()).unwrap();
        let resolved = Book::from_bytes("b", bytes).unwrap().resolve();
        let (mut targets, mut seen) = (Vec::new(), [[0usize; 3]; 2]);
        for id in (0..resolved.counts().records as u32).map(RecordId) {
            targets.clear();
            let record = resolved.read(resolved.file().locate_id(id).unwrap(), &mut targets);
            let expected: Vec<Destination> = record
                .links()
                .chain(record.leaf())
                .map(|link| match record.board.after(link.mv) {
                    None => Destination::Illegal,
                    Some(child) => {
                        let child = normalize(&child);
                        reference
                            .locate(&child.board)
                            .map_or(Destination::Absent, |at| Destination::Child(at, child.placement()))
                    }
                })
                .collect();
            assert_eq!(targets, expected, "record {id:?}");
            let n_links = record.links().count();
            for (i, target) in targets.iter().enumerate() {
                let kind = match target {
                    Destination::Child(..) => 0,
                    Destination::Absent => 1,
                    Destination::Illegal => 2,
                };
                seen[usize::from(i == n_links)][kind] += 1;
            }
        }
        assert!(seen[0][0] > 0 && seen[0][1] > 0, "links into the book and out of it: {seen:?}");
        assert!(seen[1][0] > 0 && seen[1][1] > 0, "leaves into the book and out of it: {seen:?}");
    }

    fn found(id: u32, score: i32, mv: Move, then_pass: bool) -> FoundLink<Located> {
        let placement = Placement { symmetry: Symmetry::new((id % 8) as u8).unwrap(), symmetric: id.is_multiple_of(3) };
        FoundLink {
            link: Link { score: Score(score), mv, then_pass },
            child: Located { id: RecordId(id), hint: 0 },
            placement,
        }
    }

    #[test]
    fn slots_keep_a_record_s_facts_and_links_inline_or_in_the_overflow_list() {
        let square = |i| Move::Play(crate::board::Square::new(i).unwrap());
        let links: Vec<FoundLink<Located>> = vec![
            found(u32::MAX - 1, -64, square(0), false),
            found(7, 64, Move::Pass, false),
            found(8, -1, square(63), true),
            found(9, 0, square(37), false),
        ];
        let mut overflow = vec![11, 12];
        for n in 0..=links.len() {
            for (leaf_then_pass, leaf_illegal) in [(false, false), (true, false), (false, true)] {
                let facts = RecordFacts { links: n, leaf_then_pass, leaf_illegal };
                let mut slots = Slots::new(facts, &links[..n], &mut overflow);
                assert_eq!(slots.facts(), facts);
                let read: Vec<_> = slots.links(&overflow).collect();
                assert_eq!(read, links[..n]);
                if n > LINKS_INLINE {
                    // Two lists joined: the second's indices move by the first's length.
                    let mut joined = vec![0; 5];
                    joined.extend_from_slice(&overflow);
                    slots.shift_overflow(5);
                    assert_eq!(slots.links(&joined).collect::<Vec<_>>(), links[..n]);
                    assert_eq!(slots.facts(), facts);
                }
            }
        }
    }
}
