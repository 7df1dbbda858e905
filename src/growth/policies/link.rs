//! `fix --link` (docs/policies.md): Edax's `book fix` as a policy of the
//! growth session. Every record of an Edax book gets a link for each legal
//! move (or the pass) whose child the book holds; a record whose leaf move
//! became a link, and any other left with no leaf move while a move is not
//! linked, has its leaf searched again, its links excluded, at its own
//! level. OUT is IN's records so linked, negamaxed as `fix` does.
//!
//! Nothing is added, so nothing is negamaxed first: each record is linked
//! as read, its new links scored by what its child stores, and its value
//! raised to the best of them as Edax's `position_add_link` raises it (the
//! final negamax sets every value the initial position reaches).

use crate::board::{Board, Move};
use crate::book::index::Located;
use crate::book::{Book, Destination, ImageFilter, Locator, MoveSlot, MovesFound};
use crate::engine::ask::{Answerers, Asked};
use crate::engine::fleet::Fleet;
use crate::engine::EngineCommand;
use crate::growth::error::GrowthError;
use crate::growth::growing::candidates::Marks;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::growth::growing::store::{Flavor, HeldChild, NodeId, Store};
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::policy::Engines;
use crate::growth::report::GrowthReport;
use crate::growth::session::{self, Grower, Held};
use crate::negamax::SCORE_INF;
use crate::run::{Control, Phase};
use crate::symmetry::{normalize, Placement};
use crate::wording::count;
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// Records linked between two looks at the stop and the progress, and
/// whose children one thread looks up at a time.
const RECORDS_A_STEP: usize = 4096;
/// How many records ahead of the one linked the children read are asked for.
const RECORDS_AHEAD: usize = 8;
/// How many children ahead of the one asked of the [`ImageFilter`] its
/// word is asked for.
const CHILDREN_AHEAD: usize = 16;

/// What `fix --link` is asked to do.
#[derive(Clone, Debug)]
pub struct LinkOptions {
    /// The fleet (none: the run stops, saying so, if a leaf is to be
    /// searched).
    pub engines: Vec<EngineCommand>,
    /// The longest wait for one answer.
    pub engine_timeout: Duration,
}

/// What `fix --link` adds to its [`GrowthReport`] (`adds`), for the summary.
#[derive(Clone, Debug, Default)]
pub struct Linked {
    /// Records that got at least one link.
    pub records_linked: u64,
    /// Links added.
    pub links_added: u64,
    /// Leaves searched again: their move became a link, or they had none.
    pub leaves: u64,
    /// Records reachable over links from the initial position once linked.
    pub reachable: u64,
}

impl fmt::Display for GrowthReport<Linked> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions loaded     {}", self.positions_loaded)?;
        writeln!(
            f,
            "links added          {} (to {})",
            self.adds.links_added,
            count(self.adds.records_linked, "record", "records")
        )?;
        writeln!(f, "leaves searched      {} (their moves became links)", self.adds.leaves)?;
        self.searches.write(&self.journal, f)?;
        writeln!(f, "positions negamaxed  {} (reachable over links from the initial position)", self.adds.reachable)?;
        self.write_ending(f)
    }
}

/// The session `fix --link` runs in: from the initial position, no
/// window, its engines.
fn session_options(options: &LinkOptions) -> GrowthOptions {
    GrowthOptions::whole_book(&options.engines, options.engine_timeout)
}

/// `fix --link`: every record of `book` linked as Edax's `book fix` links
/// it, the leaves whose moves became links searched again.
pub struct Link<'a> {
    /// The book read (IN).
    pub book: Book,
    /// What `fix --link` is asked.
    pub options: &'a LinkOptions,
}

impl crate::growth::policy::Policy for Link<'_> {
    type Report = GrowthReport<Linked>;

    fn run(
        self,
        paths: &GrowthPaths,
        engines: Engines<'_>,
        control: Control<'_>,
    ) -> Result<GrowthReport<Linked>, GrowthError> {
        let Link { book, options } = self;
        let session = session_options(options);
        let engines = |scratch: &Path| engines.start(&session, scratch);
        let report = GrowthReport::<Linked>::new(paths, 0);
        let mut linker = Linker { report, found: None };
        let ran = session::grow_book(book, paths, &session_options(options), engines, &mut linker, control)?;
        let mut report = linker.report;
        report.positions_loaded = ran.positions_loaded;
        ran.fleet.fill(&mut report.searches);
        report.records_written = ran.records_written;
        report.adds.reachable = ran.reachable.unwrap_or_default();
        report.elapsed = ran.elapsed;
        Ok(report)
    }
}

/// `fix --link` as a policy of the growth session: every record linked in
/// file order, then the leaves searched.
struct Linker {
    report: GrowthReport<Linked>,
    /// Where the stored moves of the book read lead, as linking found.
    found: Option<MovesFound>,
}

impl Grower for Linker {
    fn negamaxes_first(&self) -> bool {
        false
    }

    fn candidates(&self) -> Option<Marks> {
        None
    }

    fn moves_found(&mut self) -> Option<MovesFound> {
        self.found.take()
    }

    fn grow(&mut self, held: Held<'_, '_>, fleet: &Fleet<'_>, control: &mut Control<'_>) -> Result<(), GrowthError> {
        let Held { store, journal, engines, cancel, .. } = held;
        let to_search = self.link_every_record(store, control, &GrowthError::interrupted(journal.path()), cancel)?;
        let plans = to_search.iter().map(|&id| store.leaf_plan(id)).collect::<Result<Vec<_>, _>>()?;
        self.report.adds.leaves = plans.len() as u64;
        let searches = plans.iter().filter(|p| p.query().is_some()).count();
        if searches > 0 && engines.is_empty() {
            let book = store.book().path().to_path_buf();
            return Err(GrowthError::NeedsEngine { book, leaves: searches as u64 });
        }
        tracing::info!(
            "{} added to {}; {} to search again",
            count(self.report.adds.links_added, "link", "links"),
            count(self.report.adds.records_linked, "record", "records"),
            count(searches, "leaf", "leaves")
        );
        control.phase(Phase::Counting { what: "leaves searched again", total: plans.len() as u64 });
        let mut asked = Asked::default();
        let known = plans.len() - searches;
        let mut answerers = Answerers { journal, fleet, engines, cancel };
        let answers = answerers.answer(&LeafPlan::queries(&plans), &mut asked, &mut |done, busy| {
            control.counted((known + done) as u64);
            control.engines_busy(busy);
        })?;
        self.report.searches.count(&asked);
        for ((&id, plan), answer) in to_search.iter().zip(&plans).zip(answers) {
            let leaf = plan.leaf(answer);
            store.touch(id)?;
            store.set_leaf(id, leaf);
            let node = store.node_mut(id).expect("touched");
            // Edax's `position_search` raises the value to the leaf's score.
            node.solved.value = node.solved.value.max(crate::negamax::leaf_score(leaf));
        }
        Ok(())
    }
}

impl Linker {
    /// Links every record of the book read, in file order; returns those
    /// whose leaf is to be searched again.
    fn link_every_record(
        &mut self,
        store: &mut Store<'_>,
        control: &mut Control<'_>,
        interrupted: &dyn Fn(crate::run::Interrupted) -> GrowthError,
        cancel: crate::run::Cancel<'_>,
    ) -> Result<Vec<NodeId>, GrowthError> {
        let records = store.book().counts().records;
        control.phase(Phase::Counting { what: "records linked", total: records });
        let mut to_search = Vec::new();
        let before_chunk = |linked: u64| {
            cancel.check().map_err(interrupted)?;
            control.counted(linked);
            Ok(())
        };
        let each = |store: &mut Store<'_>, id: NodeId, added: u64| {
            if added > 0 {
                self.report.adds.records_linked += 1;
                self.report.adds.links_added += added;
            }
            if store.leaf(id)?.and_then(|leaf| leaf.mv).is_none() && searched_again(store, id)? {
                to_search.push(id);
            }
            Ok(())
        };
        self.found = link_in_file_order(store, each, before_chunk)?;
        control.counted(records);
        Ok(to_search)
    }
}

/// A chunk of records in file order, each with the moves whose child the
/// book holds, looked up on a thread of its own.
struct Looked<'b> {
    /// Each record, and where its moves end in `held`.
    records: Vec<(Located, u32)>,
    /// Each record's moves whose child the book holds, with that child and
    /// its stored value, in the order of [`crate::board::Board::children`].
    held: Vec<HeldChild>,
    /// Every legal move of the chunk's records, its child and the child's
    /// [`ImageFilter::key`], in file order.
    children: Vec<(Move, Board, u64)>,
    /// Each record as read, what [`MovesFound`] is told of it (`None` for
    /// every record if one no longer reads).
    read: Option<Vec<StoredMoves>>,
    /// The moves of each record's stored links, in stored order (`None`:
    /// the slot holds no move).
    stored: Vec<Option<Move>>,
    /// The moves whose child the [`ImageFilter`] passes, in the order
    /// their children are asked of `locator`, and how each child's stored
    /// board lies on it.
    moves: Vec<(Move, Placement)>,
    /// The chunk's children, looked up all at once.
    locator: Locator<'b>,
    /// Where the chunk's records' stored moves lead, as these lookups found
    /// (none if it could not be told).
    found: Option<MovesFound>,
}

/// A record of a [`Looked`] chunk as read: its board, where its children
/// end in [`Looked::children`], where its stored links' moves end in
/// [`Looked::stored`], and its leaf's move.
#[derive(Clone, Copy)]
struct StoredMoves {
    board: Board,
    children_end: u32,
    links_end: u32,
    leaf: Option<Move>,
}

impl<'b> Looked<'b> {
    fn new(book: &'b Book) -> Looked<'b> {
        Looked {
            records: Vec::new(),
            held: Vec::new(),
            children: Vec::new(),
            read: Some(Vec::new()),
            stored: Vec::new(),
            moves: Vec::new(),
            locator: book.locator(),
            found: None,
        }
    }

    /// The moves of the `k`th record whose child the book holds (none past
    /// the last record).
    fn held_by(&self, k: usize) -> &[HeldChild] {
        let Some(&(_, to)) = self.records.get(k) else { return &[] };
        let from = k.checked_sub(1).map_or(0, |j| self.records[j].1);
        &self.held[from as usize..to as usize]
    }
}

/// Links every record of the book `store` reads, in file order, exactly as
/// [`Store::link_held`] does one after another: the children of each
/// chunk of records are looked up on every core while the chunks before
/// it are linked (nothing is added while linking, so what the book read
/// holds is what the growing book holds). `each(store, id, links added)`
/// follows the linking of each record; `before_chunk(records linked so
/// far)` comes before each chunk's. Returns where the stored moves of the
/// book read lead, as those lookups found (none if it could not be told,
/// or nothing was looked up).
fn link_in_file_order(
    store: &mut Store<'_>,
    mut each: impl FnMut(&mut Store<'_>, NodeId, u64) -> Result<(), GrowthError>,
    mut before_chunk: impl FnMut(u64) -> Result<(), GrowthError>,
) -> Result<Option<MovesFound>, GrowthError> {
    let book = store.book();
    let records = book.counts().records as usize;
    let looks_up = matches!(store.flavor(), Flavor::Edax(_)) && store.added().is_empty();
    let chunks = records.div_ceil(RECORDS_A_STEP);
    let images = looks_up.then(|| book.image_filter());
    let look_up = |chunk: usize, looked: &mut Looked| {
        let ids = chunk * RECORDS_A_STEP..((chunk + 1) * RECORDS_A_STEP).min(records);
        look_up_held(book, ids, images.as_ref(), looked);
    };
    let mut linked = 0;
    let mut found = looks_up.then(|| MovesFound::with_room_for(book.counts().links as usize));
    // Children, those the image filter passed, those held: for the log.
    let mut tally = [0u64; 3];
    crate::parallel::in_order(
        chunks,
        crate::parallel::workers(),
        || Looked::new(book),
        look_up,
        |looked| {
            before_chunk(linked)?;
            for (k, &(at, _)) in looked.records.iter().enumerate() {
                // Whether growth changed the children a record a few ahead
                // reads, asked for now (their values came with them).
                for held in looked.held_by(k + RECORDS_AHEAD) {
                    store.prefetch(held.child);
                }
                let id = NodeId::Book(at);
                let added = match looks_up {
                    true => store.link_found(id, looked.held_by(k))?,
                    // An Egaroucid book's links are its moves: nothing is stored.
                    false => store.link_held(id)?,
                };
                each(store, id, added)?;
            }
            linked += looked.records.len() as u64;
            found = found.take().zip(looked.found.as_mut()).map(|(mut found, chunk)| {
                found.append(chunk);
                found
            });
            let counts = [looked.children.len(), looked.moves.len(), looked.held.len()];
            tally.iter_mut().zip(counts).for_each(|(sum, n)| *sum += n as u64);
            Ok::<(), GrowthError>(())
        },
    )?;
    let [children, passed, held] = tally;
    tracing::debug!(
        "records linked: {children} children, {passed} passed by the image filter, {held} held ({:.2}% of those not held passed)",
        100.0 * passed.saturating_sub(held) as f64 / children.saturating_sub(held).max(1) as f64
    );
    Ok(found)
}

/// The records of `book` with ids in `ids`, in file order, into `looked`,
/// each with the moves whose child the book holds if there are `images`
/// (the book's [`ImageFilter`]; none: nothing is looked up). The children
/// that filter turns away (most: the book holds about one child of ten)
/// are known absent without being normalized; the others are looked up
/// all at once. Where each record's stored moves lead is noted too
/// ([`MovesFound`]), for the book's walk to take instead of resolving.
fn look_up_held(book: &Book, ids: std::ops::Range<usize>, images: Option<&ImageFilter>, looked: &mut Looked) {
    looked.records.clear();
    looked.held.clear();
    looked.children.clear();
    looked.stored.clear();
    looked.moves.clear();
    looked.locator.clear();
    let mut read = looked.read.take().unwrap_or_default();
    read.clear();
    let mut readable = true;
    for at in book.file().records_in(ids) {
        if images.is_some() {
            let raw = book.file().edax_record(at);
            readable &= raw.is_some();
            if let Some(raw) = &raw {
                looked.stored.extend((0..raw.n_links()).map(|i| raw.link_at(MoveSlot::Link(i)).map(|l| l.mv)));
            }
            let board = raw.as_ref().map_or_else(|| book.file().board_of(at), |raw| raw.board());
            let leaf = raw.and_then(|raw| raw.link_at(MoveSlot::Leaf)).map(|l| l.mv);
            let (children, keys) = (board.each_child(), ImageFilter::keys_of_children(&board));
            looked.children.extend(children.map(|(mv, child)| (mv, child, keys.key(&child))));
            let (children_end, links_end) = (looked.children.len() as u32, looked.stored.len() as u32);
            read.push(StoredMoves { board, children_end, links_end, leaf });
        }
        // Where its moves end among those asked, once they are.
        looked.records.push((at, 0));
    }
    let Some(images) = images else { return };
    let mut from = 0;
    for (record, &StoredMoves { children_end: to, .. }) in looked.records.iter_mut().zip(&read) {
        for i in from..to as usize {
            if let Some(&(_, _, ahead)) = looked.children.get(i + CHILDREN_AHEAD) {
                images.prefetch(ahead);
            }
            let (mv, child, key) = looked.children[i];
            if images.may_hold(key) {
                let normalized = normalize(&child);
                looked.moves.push((mv, normalized.placement()));
                looked.locator.ask(normalized);
            }
        }
        record.1 = looked.moves.len() as u32;
        from = to as usize;
    }
    looked.locator.answer();
    looked.read = readable.then_some(read);
    note_moves_found(looked);
    let mut from = 0;
    for record in &mut looked.records {
        let to = record.1 as usize;
        for i in from..to {
            // The lookup read the child's value as it compared its record.
            if let Some((child, value)) = looked.locator.found_with_value(i) {
                let (mv, stored_value) = (looked.moves[i].0, Some(value));
                looked.held.push(HeldChild { mv, child: NodeId::Book(child), stored_value });
            }
        }
        record.1 = looked.held.len() as u32;
        from = to;
    }
}

/// Notes in `looked.found` where the stored moves of the chunk's records
/// lead, from its children looked up (none if a record no longer reads,
/// or stores a move that was not looked up).
fn note_moves_found(looked: &mut Looked) {
    let mut found = looked.found.take().unwrap_or_default();
    found.clear();
    let Some(read) = &looked.read else { return };
    let (mut children_from, mut links_from, mut moves_from) = (0, 0, 0);
    for (&(at, moves_to), stored) in looked.records.iter().zip(read) {
        let (children_to, links_to) = (stored.children_end as usize, stored.links_end as usize);
        let children = &looked.children[children_from..children_to];
        let asked = &looked.moves[moves_from..moves_to as usize];
        let child_of = |mv: Move| match asked.iter().position(|&(asked, _)| asked == mv) {
            Some(i) => Some(
                looked
                    .locator
                    .found(moves_from + i)
                    .map_or(Destination::Absent, |child| Destination::Child(child, asked[i].1)),
            ),
            None => children.iter().any(|c| c.0 == mv).then_some(Destination::Absent),
        };
        let links = &looked.stored[links_from..links_to];
        if !found.push_record((at.id, &stored.board), links, stored.leaf, child_of) {
            return;
        }
        (children_from, links_from, moves_from) = (children_to, links_to, moves_to as usize);
    }
    looked.found = Some(found);
}

/// Whether a position without a leaf move has its leaf searched, as
/// Edax's `position_search` decides: a legal move is not linked, or it has
/// no move, no link and no value yet.
fn searched_again(store: &Store<'_>, id: NodeId) -> Result<bool, GrowthError> {
    let moves = store.board(id).legal_moves().count_ones() as usize;
    let linked = store.edge_count(id)?;
    Ok(linked < moves || (linked == 0 && moves == 0 && store.value(id)? == -SCORE_INF))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::{book_bytes, SynthOptions};

    /// A synthetic Edax book of `positions` positions with the first link
    /// taken out of every third record that has one (its leaf kept).
    fn unlinked(positions: usize, seed: u64) -> Book {
        let bytes = book_bytes(&SynthOptions { positions, seed, perturb: 0.2 });
        let mut cut = bytes[..42].to_vec();
        for (i, (_, _, raw)) in crate::format::edax::records(&bytes).map(Result::unwrap).enumerate() {
            let (record, n) = (raw.bytes(), raw.n_links());
            if i % 3 != 0 || n == 0 {
                cut.extend_from_slice(record);
                continue;
            }
            cut.extend_from_slice(&record[..38]);
            cut.extend_from_slice(&[(n - 1) as u8, record[39]]);
            cut.extend_from_slice(&record[42..]);
        }
        Book::from_bytes("unlinked", cut).unwrap()
    }

    /// A synthetic Edax book of `positions` positions in which the leaf
    /// of every fifth record, and the first link of every seventh, is
    /// played on a square already taken: moves that resolve as illegal.
    fn with_illegal_moves(positions: usize, seed: u64) -> Vec<u8> {
        let bytes = book_bytes(&SynthOptions { positions, seed, perturb: 0.2 });
        let mut out = bytes[..42].to_vec();
        for (i, (_, _, raw)) in crate::format::edax::records(&bytes).map(Result::unwrap).enumerate() {
            let mut record = raw.bytes().to_vec();
            let board = raw.board();
            let taken = Move::from_code((board.player | board.opponent).trailing_zeros() as u8).unwrap().code();
            let n = raw.n_links();
            if i % 5 == 0 {
                record[40 + 2 * n + 1] = taken;
            }
            if i % 7 == 0 && n > 0 {
                record[41] = taken;
            }
            out.extend_from_slice(&record);
        }
        out
    }

    /// Where every move of `book` leads (links, then the leaf), record by
    /// record, as its walk reads it.
    fn targets_read(book: Book) -> Vec<Vec<Destination>> {
        let resolved = book.resolve();
        let file = resolved.file();
        let mut every = Vec::new();
        for at in file.every_record() {
            let mut targets = Vec::new();
            resolved.read(at, &mut targets);
            every.push(targets);
        }
        every
    }

    /// Where linking found the stored moves of a book lead is where
    /// resolving the book finds them (the slow reference: every stored
    /// move played and looked up), illegal moves and leaves included.
    #[test]
    fn the_moves_linking_found_are_those_resolving_finds() {
        let synthetic = |seed| book_bytes(&SynthOptions { positions: 2 * RECORDS_A_STEP + 50, seed, perturb: 0.2 });
        let books = [synthetic(1), with_illegal_moves(2 * RECORDS_A_STEP + 50, 2)];
        for (k, bytes) in books.into_iter().enumerate() {
            let read = Book::from_bytes("read", bytes.clone()).unwrap();
            let flavor = Flavor::Edax(read.header().edax().unwrap().search_errors());
            let mut store = Store::with_links(&read, flavor, None);
            let found = link_in_file_order(&mut store, |_, _, _| Ok(()), |_| Ok(())).unwrap();
            let found = found.expect("every move was looked up");
            let resolved = targets_read(Book::from_bytes("read", bytes.clone()).unwrap());
            let given = targets_read(Book::from_bytes("read", bytes.clone()).unwrap().with_moves_found(found));
            assert_eq!(given, resolved, "book {k}");
            // Moves found for no record are not the book's: it is resolved.
            let none = Book::from_bytes("read", bytes).unwrap().with_moves_found(MovesFound::default());
            assert_eq!(targets_read(none), resolved, "book {k}, nothing found");
            let illegal = resolved.iter().flatten().filter(|t| **t == Destination::Illegal).count();
            let children = resolved.iter().flatten().filter(|t| matches!(t, Destination::Child(..))).count();
            assert!(children > RECORDS_A_STEP, "book {k}: {children} children");
            assert_eq!(illegal > 100, k == 1, "book {k}: {illegal} illegal moves");
        }
    }

    /// The slow reference: each record in file order, each of its children
    /// looked up alone, then linked.
    fn linked_one_by_one(store: &mut Store<'_>) -> Vec<(NodeId, u64)> {
        let book = store.book();
        let mut added = Vec::new();
        for at in book.file().every_record() {
            let id = NodeId::Book(at);
            let held: Vec<HeldChild> = store
                .board(id)
                .children()
                .into_iter()
                .filter_map(|(mv, child)| {
                    Some(HeldChild { mv, child: store.find(&normalize(&child).board)?, stored_value: None })
                })
                .collect();
            added.push((id, store.link_found(id, &held).unwrap()));
        }
        added
    }

    /// The edges counted of each position are those [`Store::facts`] finds
    /// (the slow reference: every link's child looked up), for records as
    /// read and as linking changed them.
    #[test]
    fn the_edges_counted_are_those_the_facts_find() {
        let book = unlinked(3 * RECORDS_A_STEP, 3);
        let flavor = Flavor::Edax(book.header().edax().unwrap().search_errors());
        let mut store = Store::with_links(&book, flavor, None);
        let ids: Vec<NodeId> = book.file().every_record().map(NodeId::Book).collect();
        let linked = ids.iter().step_by(2).filter(|&&id| store.link_held(id).unwrap() > 0).count();
        assert!(linked > 100, "{linked} records linked");
        for &id in &ids {
            assert_eq!(store.edge_count(id).unwrap(), store.facts(id).unwrap().edges.len(), "{id:?}");
        }
    }

    /// Several chunks of records, looked up on every core and linked in
    /// turn, give every record the links, leaf and value linking one record
    /// after another gives (and [`Store::link_held`] too).
    #[test]
    fn linking_in_chunks_looked_up_on_every_core_is_linking_one_record_after_another() {
        for seed in 0..2 {
            let book = unlinked(3 * RECORDS_A_STEP + 100, seed);
            let flavor = Flavor::Edax(book.header().edax().unwrap().search_errors());
            let mut chunked = Store::with_links(&book, flavor, None);
            let mut added = Vec::new();
            let each = |_: &mut Store<'_>, id, n| {
                added.push((id, n));
                Ok(())
            };
            let mut chunks = 0;
            link_in_file_order(&mut chunked, each, |_| {
                chunks += 1;
                Ok(())
            })
            .unwrap();
            assert!(chunks >= 4, "{chunks} chunks");
            let mut one_by_one = Store::with_links(&book, flavor, None);
            assert_eq!(added, linked_one_by_one(&mut one_by_one));
            assert!(added.iter().filter(|&&(_, n)| n > 0).count() > 100, "links are put back");
            let mut held = Store::with_links(&book, flavor, None);
            for at in book.file().every_record() {
                let id = NodeId::Book(at);
                assert_eq!(held.link_held(id).unwrap(), added.iter().find(|&&(i, _)| i == id).unwrap().1);
                assert_eq!(chunked.links(id).unwrap(), one_by_one.links(id).unwrap());
                assert_eq!(chunked.leaf(id).unwrap(), one_by_one.leaf(id).unwrap());
                assert_eq!(chunked.value(id).unwrap(), one_by_one.value(id).unwrap());
                assert_eq!(chunked.links(id).unwrap(), held.links(id).unwrap());
            }
        }
    }
}
