//! The merged book before its negamax (docs/merge.md): A's records in A's
//! order, each the record the rule keeps for its board with the links of
//! both books, then the records of boards only B holds, in B's order. A
//! stale leaf (its move is now a link) is replaced as its plan says: at
//! once when no search decides it (or when there is no engine: left
//! empty), else later, once answered, at the place in the bytes noted
//! here.

use super::rule::{choose, Kept, Side, Why};
use crate::board::{Board, Move};
use crate::book::index::Located;
use crate::book::{Book, FilePlace, Leaf, MoveSlot, Problem};
use crate::format::edax::read::{self as edax, LINKS_AT};
use crate::format::edax::Relinked;
use crate::format::egaroucid::put_leaf;
use crate::format::egaroucid::read::{self as egaroucid, LEAF_AT};
use crate::format::OutFormat;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::level::Level;
use crate::run::Cancel;
use crate::symmetry::normalize;
use crate::write::pipeline::{write_chunks, Appended, Chunk, SinkFailure};
use smallvec::SmallVec;
use std::io::Write;

/// Records composed together, on one core.
const CHUNK: usize = 1 << 14;

/// Records composed on one core: their bytes, what they counted, and
/// their receipt entries (numbered within the part) with, for a leaf left
/// to the engines, where it is in the part's bytes and its plan.
#[derive(Default)]
struct Part {
    bytes: Vec<u8>,
    tally: Tally,
    made: Vec<(Entry, Option<(usize, LeafPlan)>)>,
}

impl Chunk for Part {
    fn clear(&mut self) {
        self.bytes.clear();
        self.tally = Tally::default();
        self.made.clear();
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn records(&self) -> u64 {
        self.tally.records
    }
}

/// A stale leaf an engine is to search: where its bytes are in the book
/// composed, and the plan whose search decides it.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    /// Its line in [`Composed::entries`].
    pub entry: usize,
    /// The byte the leaf's (score, move) pair starts at.
    pub leaf_at: u64,
    pub plan: LeafPlan,
}

/// A record the receipt has a line for: a conflict decided, a stale leaf,
/// or both.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its number in the merged book, from 0.
    pub record: u64,
    pub board: Board,
    pub conflict: Option<Conflict>,
    pub stale: Option<Stale>,
}

/// How a board both books hold differently was decided.
#[derive(Clone, Copy, Debug)]
pub struct Conflict {
    pub kept: Kept,
    pub why: Why,
    pub a: Held,
    pub b: Held,
}

/// What one book's record of a board holds, as the rule and the receipt
/// see it: two records holding the same are alike, no conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    pub level: i32,
    pub value: i32,
    /// Its leaf, if it has a move.
    pub leaf: Option<Leaf>,
}

/// A leaf that went stale, and what it became (`None` until an engine answers).
#[derive(Clone, Copy, Debug)]
pub struct Stale {
    /// The leaf that went stale (it has a move).
    pub was: Leaf,
    /// The new leaf, or none; `None` until an engine answers.
    pub now: Option<Option<Leaf>>,
}

/// What composing counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Records of the merged book.
    pub records: u64,
    /// Boards only A holds.
    pub only_a: u64,
    /// Boards only B holds.
    pub only_b: u64,
    /// Boards both books hold with the same value, level and leaf.
    pub same: u64,
    /// Conflicts decided by the higher level.
    pub by_level: u64,
    /// Conflicts decided by the leaf (equal levels).
    pub by_leaf: u64,
    /// Conflicts nothing decided: A's record kept.
    pub first: u64,
    /// Conflicts that kept A's record.
    pub kept_a: u64,
    /// Conflicts that kept B's record.
    pub kept_b: u64,
    /// Links a kept record took from the other book's record.
    pub links_joined: u64,
    /// Links `--link` added: legal moves whose child the merged book holds.
    pub links_added: u64,
    /// Leaves that are links of the merged book and not of the record's own book.
    pub stale: u64,
    /// Stale leaves decided without a search (a finished game, every move linked).
    pub stale_known: u64,
    /// Stale leaves left empty for want of an engine.
    pub stale_emptied: u64,
}

impl Tally {
    /// Adds what another part of the book counted.
    fn add(&mut self, other: &Tally) {
        let Tally {
            records,
            only_a,
            only_b,
            same,
            by_level,
            by_leaf,
            first,
            kept_a,
            kept_b,
            links_joined,
            links_added,
            stale,
            stale_known,
            stale_emptied,
        } = *other;
        self.records += records;
        self.only_a += only_a;
        self.only_b += only_b;
        self.same += same;
        self.by_level += by_level;
        self.by_leaf += by_leaf;
        self.first += first;
        self.kept_a += kept_a;
        self.kept_b += kept_b;
        self.links_joined += links_joined;
        self.links_added += links_added;
        self.stale += stale;
        self.stale_known += stale_known;
        self.stale_emptied += stale_emptied;
    }

    /// Boards both books hold and the rule decided between.
    pub fn conflicts(&self) -> u64 {
        self.by_level + self.by_leaf + self.first
    }
}

/// The merged book composed, and what is left to search.
pub struct Composed {
    pub tally: Tally,
    pub entries: Vec<Entry>,
    pub pending: Vec<Pending>,
}

/// Two books read in the format the merged book is written in.
pub struct Composer<'b> {
    pub a: &'b Book,
    pub b: &'b Book,
    pub to: OutFormat,
    /// `--link`: every legal move whose child the merged book holds becomes a link.
    pub link: bool,
    /// An engine will search stale leaves; else they are left empty.
    pub engines: bool,
}

/// Why composing stopped: the file composed could not be written (the
/// sink's I/O), a stop, or a record that could not be merged.
pub type Failure = SinkFailure<Unmerged>;

/// Why a record could not be merged.
#[derive(Debug)]
pub enum Unmerged {
    /// The book (A's or B's) changed while it was read.
    Changed(Kept),
    /// The links of both books for this board are more than a record holds
    /// (255): only a book that repeats moves can have so many.
    TooManyLinks(Board),
    /// A record of book A or B stores a move that is illegal on its board:
    /// the book is damaged (where in it, and what).
    Damaged { book: Kept, place: FilePlace, problem: Problem },
}

impl From<Unmerged> for Failure {
    fn from(unmerged: Unmerged) -> Failure {
        SinkFailure::Own(unmerged)
    }
}

/// One record composed: its bytes, and where its leaf pair starts in them.
struct Made {
    bytes: Vec<u8>,
    leaf_at: usize,
    entry: Option<Entry>,
    plan: Option<LeafPlan>,
}

impl Composer<'_> {
    /// Writes the records into `out` (after a header of `header_len`
    /// bytes, which the caller writes), in merged order: chunks of records
    /// composed on every core, appended in turn.
    pub fn compose(&self, out: &mut impl Write, header_len: u64, cancel: Cancel<'_>) -> Result<Composed, Failure> {
        let (in_a, in_b) = (self.a.counts().records as usize, self.b.counts().records as usize);
        let (chunks_a, chunks_b) = (in_a.div_ceil(CHUNK), in_b.div_ceil(CHUNK));
        let mut composed = Composed { tally: Tally::default(), entries: Vec::new(), pending: Vec::new() };
        let mut at = header_len;
        let convert = |k: usize, part: &mut Part| -> Result<(), Failure> {
            if k < chunks_a {
                let ids = k * CHUNK..((k + 1) * CHUNK).min(in_a);
                let boards =
                    self.a.file().records_in(ids).map(|at| (Some(at), self.b.locate(&self.a.file().board_of(at))));
                self.compose_part(boards, part)
            } else {
                let k = k - chunks_a;
                let ids = k * CHUNK..((k + 1) * CHUNK).min(in_b);
                let only_b =
                    self.b.file().records_in(ids).filter(|&at| self.a.locate(&self.b.file().board_of(at)).is_none());
                self.compose_part(only_b.map(|at| (None, Some(at))), part)
            }
        };
        let mut sink = Appended(out);
        let then = |part: &mut Part| -> Result<(), Failure> {
            for (mut entry, plan) in part.made.drain(..) {
                entry.record += composed.tally.records;
                if let Some((leaf_at, plan)) = plan {
                    composed.pending.push(Pending {
                        entry: composed.entries.len(),
                        leaf_at: at + leaf_at as u64,
                        plan,
                    });
                }
                composed.entries.push(entry);
            }
            composed.tally.add(&part.tally);
            at += part.bytes.len() as u64;
            Ok(())
        };
        write_chunks(chunks_a + chunks_b, Part::default, convert, &mut sink, cancel, then)?;
        Ok(composed)
    }

    /// Composes the records of `boards` (where A and B hold each) into `part`.
    fn compose_part(
        &self,
        boards: impl Iterator<Item = (Option<Located>, Option<Located>)>,
        part: &mut Part,
    ) -> Result<(), Failure> {
        for (in_a, in_b) in boards {
            let made = match self.to {
                OutFormat::Edax => self.edax(in_a, in_b, &mut part.tally)?,
                OutFormat::Egbk3 => self.egaroucid(in_a, in_b, &mut part.tally)?,
            };
            if let Some(mut entry) = made.entry {
                entry.record = part.tally.records;
                part.made.push((entry, made.plan.map(|plan| (part.bytes.len() + made.leaf_at, plan))));
            }
            part.bytes.extend_from_slice(&made.bytes);
            part.tally.records += 1;
        }
        Ok(())
    }

    /// Whether the merged book holds `board` (normalized).
    fn holds(&self, board: &Board) -> bool {
        self.a.locate(board).is_some() || self.b.locate(board).is_some()
    }

    /// Book A or B.
    fn book(&self, which: Kept) -> &Book {
        match which {
            Kept::A => self.a,
            Kept::B => self.b,
        }
    }

    /// The Edax record at `at` in book `which`, if it holds the board;
    /// refused, naming the book and the record, if one of its moves is
    /// illegal on its board (the loader does not ask: the walk does, and
    /// the merged book's walk would name the merged book instead).
    fn edax_raw(&self, which: Kept, at: Option<Located>) -> Result<Option<edax::RawRecord<'_>>, Failure> {
        let Some(at) = at else { return Ok(None) };
        let raw = self.book(which).file().edax_record(at).ok_or(Unmerged::Changed(which))?;
        let record = raw.to_record(at.id, 0);
        let slots = (0..record.n_links()).map(MoveSlot::Link).chain(record.leaf().map(|_| MoveSlot::Leaf));
        let board = raw.board();
        let illegal = slots.zip(record.moves()).find(|(_, link)| board.check_move(link.mv).is_none());
        match illegal {
            Some((slot, link)) => Err(self.damaged(which, at, Problem::IllegalMove { slot, mv: link.mv })),
            None => Ok(Some(raw)),
        }
    }

    /// The Egaroucid record at `at` in book `which`, if it holds the board;
    /// refused as [`Composer::edax_raw`] refuses one, if its leaf is illegal.
    fn egaroucid_raw(&self, which: Kept, at: Option<Located>) -> Result<Option<egaroucid::RawRecord<'_>>, Failure> {
        let Some(at) = at else { return Ok(None) };
        let raw = self.book(which).file().egaroucid_record(at).ok_or(Unmerged::Changed(which))?;
        match raw.leaf().filter(|leaf| raw.board().check_move(leaf.mv).is_none()) {
            Some(leaf) => Err(self.damaged(which, at, Problem::IllegalMove { slot: MoveSlot::Leaf, mv: leaf.mv })),
            None => Ok(Some(raw)),
        }
    }

    /// The failure of a damaged record of book `which` at `at`.
    fn damaged(&self, which: Kept, at: Located, problem: Problem) -> Failure {
        let file = self.book(which).file();
        Unmerged::Damaged { book: which, place: file.place(at.id, file.offset(at)), problem }.into()
    }

    /// An Edax record of the merged book.
    fn edax(&self, in_a: Option<Located>, in_b: Option<Located>, tally: &mut Tally) -> Result<Made, Failure> {
        let EdaxChoice { ra, rb, board, joined, added, kept, why, chosen } = self.edax_choice(in_a, in_b)?;
        let linked = |code: u8| is_linked(&joined, &added, code);
        tally.links_joined += joined.len().saturating_sub(chosen.n_links()) as u64;
        tally.links_added += added.len() as u64;
        let n_links = joined.len() + added.len();
        let mut record = Relinked::start(&chosen, n_links).ok_or(Unmerged::TooManyLinks(board))?;
        for &pair in &joined {
            record.link(pair);
        }
        for &(mv, child) in &added {
            record.link((-self.edax_value(&child)?, mv.code()));
        }
        let leaf_at = record.leaf_at();
        let leaf = chosen.leaf();
        let conflict =
            why.is_conflict().then(|| Conflict { kept, why, a: held_edax(ra.as_ref()), b: held_edax(rb.as_ref()) });
        let moves = joined.iter().map(|&(_, c)| c).chain(added.iter().map(|&(mv, _)| mv.code()));
        let links: SmallVec<[Move; 16]> = moves.filter_map(Move::from_code).collect();
        // Stale: a link now, and not one in the book the record comes from.
        let own_link = |code: u8| link_pairs(&chosen).chunks_exact(2).any(|p| p[1] == code);
        let stale = leaf.filter(|l| l.mv.is_some_and(|mv| linked(mv.code()) && !own_link(mv.code())));
        let (leaf, plan, stale) = match stale {
            None => (leaf, None, None),
            Some(was) => {
                let plan = LeafPlan::of(&board, links, Level::saturating(chosen.level().into()));
                let (now, pending) = self.stale_leaf(plan, tally);
                // Until an engine answers, the record holds no leaf.
                (now.flatten(), pending, Some(Stale { was, now }))
            }
        };
        let bytes = record.leaf(leaf);
        count_choice(tally, kept, why);
        let entry = (conflict.is_some() || stale.is_some()).then_some(Entry { record: 0, board, conflict, stale });
        Ok(Made { bytes, leaf_at, entry, plan })
    }

    /// What the merged book makes of a board A or B holds in Edax's layout:
    /// both records, both books' links (and `--link`'s), and the record kept.
    fn edax_choice(&self, in_a: Option<Located>, in_b: Option<Located>) -> Result<EdaxChoice<'_>, Failure> {
        let (ra, rb) = (self.edax_raw(Kept::A, in_a)?, self.edax_raw(Kept::B, in_b)?);
        let Some(first) = ra.or(rb) else { return Err(Unmerged::Changed(Kept::A).into()) };
        let board = first.board();
        let joined = joined_links(ra.as_ref(), rb.as_ref());
        let added = if self.link { self.linked_moves(&board, &joined) } else { SmallVec::new() };
        let linked = |code: u8| is_linked(&joined, &added, code);
        let leaf_is_link = |r: &edax::RawRecord<'_>| r.leaf().and_then(|l| l.mv).is_some_and(|mv| linked(mv.code()));
        let side = |r: &edax::RawRecord<'_>| Side { level: r.level().into(), leaf_is_link: leaf_is_link(r) };
        let alike = || held_edax(ra.as_ref()) == held_edax(rb.as_ref());
        let (kept, why) = decide(ra.as_ref().map(side), rb.as_ref().map(side), alike);
        let chosen = match kept {
            Kept::A => ra.unwrap_or(first),
            Kept::B => rb.unwrap_or(first),
        };
        Ok(EdaxChoice { ra, rb, board, joined, added, kept, why, chosen })
    }

    /// The legal moves of `board` not among `joined` whose child the merged
    /// book holds (the pass, when it must pass), each with its child.
    fn linked_moves(&self, board: &Board, joined: &[(i8, u8)]) -> SmallVec<[(Move, Board); 8]> {
        let joined_code = |code: u8| joined.iter().any(|&(_, c)| c == code);
        let mut moves: SmallVec<[(Move, Board); 8]> = SmallVec::new();
        for (mv, child) in board.children() {
            let child = normalize(&child).board;
            if !joined_code(mv.code()) && self.holds(&child) {
                moves.push((mv, child));
            }
        }
        moves
    }

    /// The value of the record the merged book keeps for `board` (which it holds).
    fn edax_value(&self, board: &Board) -> Result<i8, Failure> {
        let choice = self.edax_choice(self.a.locate(board), self.b.locate(board))?;
        Ok(i8::try_from(choice.chosen.value().discs().clamp(-64, 64)).expect("a score within ±64 fits a byte"))
    }

    /// An Egaroucid record of the merged book: its links are its legal
    /// moves whose child the merged book holds.
    fn egaroucid(&self, in_a: Option<Located>, in_b: Option<Located>, tally: &mut Tally) -> Result<Made, Failure> {
        let (ra, rb) = (self.egaroucid_raw(Kept::A, in_a)?, self.egaroucid_raw(Kept::B, in_b)?);
        let Some(first) = ra.or(rb) else { return Err(Unmerged::Changed(Kept::A).into()) };
        let board = first.board();
        let links = egaroucid_links(&board, |child| self.holds(child));
        let stale_of = |r: &egaroucid::RawRecord<'_>| r.leaf().filter(|l| links.contains(&l.mv));
        let side = |r: &egaroucid::RawRecord<'_>| Side { level: r.level().into(), leaf_is_link: stale_of(r).is_some() };
        let alike = || held_egaroucid(ra.as_ref()) == held_egaroucid(rb.as_ref());
        let (kept, why) = decide(ra.as_ref().map(side), rb.as_ref().map(side), alike);
        let chosen = match kept {
            Kept::A => ra.unwrap_or(first),
            Kept::B => rb.unwrap_or(first),
        };
        let mut bytes = chosen.bytes().to_vec();
        let conflict = why.is_conflict().then(|| Conflict {
            kept,
            why,
            a: held_egaroucid(ra.as_ref()),
            b: held_egaroucid(rb.as_ref()),
        });
        // Stale: a link now, and not one in the book the record comes from.
        let own = self.book(kept);
        let own_link = |mv: Move| egaroucid_link(&board, mv, |child| own.locate(child).is_some());
        let (plan, stale) = match stale_of(&chosen).filter(|leaf| !own_link(leaf.mv)) {
            None => (None, None),
            Some(leaf) => {
                let plan = LeafPlan::of(&board, links, Level::saturating(chosen.level().into()));
                let (now, pending) = self.stale_leaf(plan, tally);
                put_leaf(&mut bytes, now.flatten());
                (pending, Some(Stale { was: Leaf::of(leaf), now }))
            }
        };
        count_choice(tally, kept, why);
        let entry = (conflict.is_some() || stale.is_some()).then_some(Entry { record: 0, board, conflict, stale });
        Ok(Made { bytes, leaf_at: LEAF_AT, entry, plan })
    }

    /// What a stale leaf becomes now (`None`: an engine will say), and the
    /// plan to search when one will.
    fn stale_leaf(&self, plan: LeafPlan, tally: &mut Tally) -> (Option<Option<Leaf>>, Option<LeafPlan>) {
        tally.stale += 1;
        match plan {
            LeafPlan::Known { .. } => {
                tally.stale_known += 1;
                (Some(plan.leaf(None)), None)
            }
            LeafPlan::Search { .. } if self.engines => (None, Some(plan)),
            LeafPlan::Search { query, through_pass } => {
                tally.stale_emptied += 1;
                // Edax wants a leaf move wherever a legal move is not linked
                // (else it "repairs" the record): one that takes no part in
                // the negamax, −127, on the first such square (none without one).
                let unlinked = query.board.legal_moves() & !query.excluded.bits();
                let first = crate::board::Square::iter(unlinked).next().filter(|_| !through_pass).map(Move::Play);
                let untaken = -crate::negamax::SCORE_INF;
                (Some(first.map(|mv| Leaf::new(untaken, Some(mv)))), None)
            }
        }
    }
}

/// A board of the merged book in Edax's layout ([`Composer::edax_choice`]).
struct EdaxChoice<'b> {
    ra: Option<edax::RawRecord<'b>>,
    rb: Option<edax::RawRecord<'b>>,
    board: Board,
    /// Both books' links, as stored, and the moves `--link` adds.
    joined: SmallVec<[(i8, u8); 16]>,
    added: SmallVec<[(Move, Board); 8]>,
    kept: Kept,
    why: Why,
    chosen: edax::RawRecord<'b>,
}

/// An Egaroucid board's links in a book that `holds` the boards given
/// (normalized): its legal moves whose child it holds (docs/formats.md).
fn egaroucid_links(board: &Board, holds: impl Fn(&Board) -> bool) -> SmallVec<[Move; 16]> {
    egaroucid::candidates(board).filter(|c| child_held(c, &holds)).map(|c| c.mv).collect()
}

/// Whether `mv` is a link of an Egaroucid board in a book that `holds` the
/// boards given: [`egaroucid_links`] of one move.
fn egaroucid_link(board: &Board, mv: Move, holds: impl Fn(&Board) -> bool) -> bool {
    egaroucid::candidates(board).any(|c| c.mv == mv && child_held(&c, &holds))
}

/// Whether a book that `holds` the boards given holds a move's child (or,
/// when the game ends there, the final position from the other side).
fn child_held(c: &egaroucid::Candidate, holds: &impl Fn(&Board) -> bool) -> bool {
    holds(&c.child.board) || c.other_child().is_some_and(|o| holds(&o.board))
}

/// The rule's choice for a board held by one book or both; `alike` (both
/// records hold the same value, level and leaf) is asked only when both
/// hold it.
fn decide(a: Option<Side>, b: Option<Side>, alike: impl FnOnce() -> bool) -> (Kept, Why) {
    match (a, b) {
        (Some(a), Some(b)) => choose(a, b, alike()),
        (Some(_), None) | (None, None) => (Kept::A, Why::Alone),
        (None, Some(_)) => (Kept::B, Why::Alone),
    }
}

fn count_choice(tally: &mut Tally, kept: Kept, why: Why) {
    match why {
        Why::Alone if kept == Kept::A => tally.only_a += 1,
        Why::Alone => tally.only_b += 1,
        Why::Same => tally.same += 1,
        Why::Level => tally.by_level += 1,
        Why::Leaf => tally.by_leaf += 1,
        Why::First => tally.first += 1,
    }
    if why.is_conflict() {
        match kept {
            Kept::A => tally.kept_a += 1,
            Kept::B => tally.kept_b += 1,
        }
    }
}

/// The links both books hold for a board, as stored: A's in A's order (a
/// move A repeats, which only `verify` refuses, kept as stored), then B's
/// whose move is not among them, in B's order.
fn joined_links(a: Option<&edax::RawRecord<'_>>, b: Option<&edax::RawRecord<'_>>) -> SmallVec<[(i8, u8); 16]> {
    let pairs = |record: &edax::RawRecord<'_>| -> SmallVec<[(i8, u8); 16]> {
        link_pairs(record).chunks_exact(2).map(|pair| (i8::from_le_bytes([pair[0]]), pair[1])).collect()
    };
    match (a, b) {
        (Some(a), Some(b)) => {
            let mut joined = pairs(a);
            for pair in pairs(b) {
                if !joined.iter().any(|&(_, code)| code == pair.1) {
                    joined.push(pair);
                }
            }
            joined
        }
        (Some(only), None) | (None, Some(only)) => pairs(only),
        (None, None) => SmallVec::new(),
    }
}

/// An Edax record's links as stored: (score, move code) byte pairs.
fn link_pairs<'r>(record: &edax::RawRecord<'r>) -> &'r [u8] {
    &record.bytes()[LINKS_AT..LINKS_AT + 2 * record.n_links()]
}

/// Whether `code` is a move of the merged record's links: both books'
/// (`joined`) or `--link`'s (`added`).
fn is_linked(joined: &[(i8, u8)], added: &[(Move, Board)], code: u8) -> bool {
    joined.iter().any(|&(_, c)| c == code) || added.iter().any(|&(mv, _)| mv.code() == code)
}

fn held_edax(record: Option<&edax::RawRecord<'_>>) -> Held {
    let Some(r) = record else { return Held { level: 0, value: 0, leaf: None } };
    Held { level: r.level().into(), value: r.value().discs(), leaf: r.leaf().filter(|l| l.mv.is_some()) }
}

fn held_egaroucid(record: Option<&egaroucid::RawRecord<'_>>) -> Held {
    let Some(r) = record else { return Held { level: 0, value: 0, leaf: None } };
    Held { level: r.level().into(), value: r.raw_value(), leaf: r.leaf().map(Leaf::of) }
}
