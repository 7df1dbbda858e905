//! The growing book without engine processes: expansions answered by a
//! script, and the negamax carried up after each one checked against a
//! whole negamax from the start (the slow reference).

use super::candidates::{candidates, marked, Gates, Marks};
use super::first::{self, Prepared};
use super::solved::Solved;
use super::store::{Flavor, NodeId, Store};
use super::view::Stop;
use super::write::{rescoring, write_fixed, write_unfixed};
use crate::book::Book;
use crate::fix::{fix_into, fix_rescored_into, FixOptions, Rescored};
use crate::format::edax::bucket;
use crate::negamax::{self, Negamaxed};
use crate::run::{Cancel, Control, Left, Phase, Progress, Stopped};
use crate::symmetry::normalize;
use crate::synth::{book_bytes, SynthOptions};
use crate::walk::Start;
use crate::window::Window;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// A synthetic Edax book of `positions` positions, some scores perturbed.
fn book(positions: usize, seed: u64) -> Book {
    Book::from_bytes("synthetic", book_bytes(&SynthOptions { positions, seed, perturb: 0.2 })).unwrap()
}

/// [`book`] written as an `.egbk3`.
fn egbk3_book(positions: usize, seed: u64) -> Book {
    let mut bytes = Vec::new();
    let options = SynthOptions { positions, seed, perturb: 0.2 };
    crate::synth::synthesize_as(crate::format::Format::Egbk3, &options, &mut bytes).unwrap();
    Book::from_bytes("synthetic.egbk3", bytes).unwrap()
}

/// A stop never asked for.
fn never() -> Stop<'static> {
    static NEVER: AtomicBool = AtomicBool::new(false);
    Stop { cancel: Cancel::new(&NEVER), journal: Path::new("extend.jsonl") }
}

fn edax_flavor(book: &Book) -> Flavor {
    let header = book.header();
    Flavor::Edax(header.edax().expect("synth writes Edax books").search_errors())
}

/// A 3,000-position book of `seed`, an `.egbk3` if `egaroucid`, and how
/// it grows.
fn book_in(seed: u64, egaroucid: bool) -> (Book, Flavor) {
    match egaroucid {
        true => (egbk3_book(3000, seed), Flavor::Egaroucid),
        false => {
            let book = book(3000, seed);
            let flavor = edax_flavor(&book);
            (book, flavor)
        }
    }
}

/// The growing book over `book`, negamaxed whole below the initial
/// position (its node).
fn negamaxed(book: &Book, flavor: Flavor) -> (Store<'_>, NodeId, Solved) {
    let mut store = Store::with_links(book, flavor, None);
    let root = store.find(&normalize(&crate::board::Board::INITIAL).board).unwrap();
    let mut solved = Solved::new(book.counts().records as usize);
    solved.solve_from(&mut store, root, never()).unwrap();
    (store, root, solved)
}

/// Every position a whole negamax from `root` reaches, with what the run's
/// negamax holds for it.
fn values_below(store: &Store<'_>, solved: &Solved, root: NodeId) -> HashMap<NodeId, Negamaxed> {
    let mut seen = HashMap::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if seen.contains_key(&id) {
            continue;
        }
        seen.insert(id, solved.get(store, id).unwrap());
        stack.extend(store.facts(id).unwrap().edges.iter().filter_map(|e| e.child));
    }
    seen
}

/// One expansion answered by `answer` (a score for the allowed move the
/// script picks), as a round of `extend` makes it; returns what changed.
fn expand(store: &mut Store<'_>, solved: &Solved, id: NodeId, answer: i8) -> Vec<NodeId> {
    let Some((child, added)) = store.expand(id, |store, child| solved.get(store, child)).unwrap() else {
        return Vec::new();
    };
    let mut changed = vec![id];
    if added {
        store.link_new(child, |store, c| solved.value(store, c));
        changed.insert(0, child);
    }
    for &at in &changed {
        let plan = store.leaf_plan(at).unwrap();
        let answer = plan.query().map(|query| {
            let allowed = query.board.legal_moves() & !query.excluded.bits();
            crate::engine::search::Answer { mv: crate::board::Square::iter(allowed).last().unwrap(), score: answer }
        });
        store.set_leaf(at, plan.leaf(answer));
    }
    changed
}

/// Expands the candidates `picks` chooses, one at a time, in a 3,000-position
/// book of `seed` (an `.egbk3` if `egaroucid`), and checks after each that
/// the negamax carried up from what changed holds, for every position below
/// the start, what a whole negamax computes.
fn check_carried_negamax(seed: u64, egaroucid: bool, picks: &[(usize, i8)]) {
    let (book, flavor) = book_in(seed, egaroucid);
    let (mut store, root, mut solved) = negamaxed(&book, flavor);
    let gates = Gates { window: Window::NONE, min_empties: 0 };
    for (step, &(pick, answer)) in picks.iter().enumerate() {
        let found = candidates(&store, &solved, root, gates, never()).unwrap();
        if found.is_empty() {
            break;
        }
        let changed = expand(&mut store, &solved, found[pick % found.len()], answer);
        solved.after_change(&mut store, &changed, never()).unwrap();
        let carried = values_below(&store, &solved, root);
        let mut whole = Solved::new(book.counts().records as usize);
        whole.solve_from(&mut store, root, never()).unwrap();
        let reference = values_below(&store, &whole, root);
        assert_eq!(carried.len(), reference.len(), "step {step}");
        for (id, value) in &reference {
            assert_eq!(carried.get(id), Some(value), "{id:?} after step {step}");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// After every expansion, the negamax carried up from what changed
    /// holds, for every position below the start, what a whole negamax
    /// computes.
    #[test]
    fn the_negamax_carried_up_is_a_whole_negamax(
        seed in 0u64..1000,
        egaroucid: bool,
        picks in proptest::collection::vec((0usize..10_000, -64i8..=64), 1..12),
    ) {
        check_carried_negamax(seed, egaroucid, &picks);
    }
}

/// A case the property once found: a position whose value depends on a
/// child reached again through another parent after an expansion.
#[test]
fn the_negamax_carried_up_holds_in_a_case_once_found() {
    check_carried_negamax(695, false, &[(69, 0), (77, 0), (3500, 0), (2681, 0)]);
}

#[test]
fn candidates_are_the_positions_whose_leaf_is_as_good_as_their_value_in_walk_order() {
    let book = book(2000, 3);
    let mut store = Store::with_links(&book, edax_flavor(&book), None);
    let root = store.find(&normalize(&crate::board::Board::INITIAL).board).unwrap();
    let mut solved = Solved::new(book.counts().records as usize);
    solved.solve_from(&mut store, root, never()).unwrap();
    let found = candidates(&store, &solved, root, Gates { window: Window::NONE, min_empties: 0 }, never()).unwrap();
    assert!(!found.is_empty(), "a perturbed book has candidates");
    for &id in &found {
        assert!(negamax::leaf_score(store.leaf(id).unwrap()) >= solved.value(&store, id), "{id:?}");
    }
    // Every position reached over links that is not listed is no candidate.
    let reached = values_below(&store, &solved, root);
    let listed: std::collections::HashSet<_> = found.iter().copied().collect();
    for (id, value) in reached {
        let board = store.board(id);
        if !listed.contains(&id) && !board.is_game_over() {
            assert!(negamax::leaf_score(store.leaf(id).unwrap()) < value.value, "{id:?} missed");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]

    /// Without a window, the candidates the negamax meets, in the order it
    /// first enters them, are the candidate walk's.
    #[test]
    fn the_negamax_walk_gives_the_first_candidates_in_walk_order(seed in 0u64..1000, min_empties in 0u32..60) {
        let book = book(3000, seed);
        let mut store = Store::with_links(&book, edax_flavor(&book), None);
        let root = store.find(&normalize(&crate::board::Board::INITIAL).board).unwrap();
        let mut solved = Solved::new(book.counts().records as usize);
        solved.note_candidates(min_empties);
        solved.solve_from(&mut store, root, never()).unwrap();
        let noted = solved.take_candidates();
        let walked = candidates(&store, &solved, root, Gates { window: Window::NONE, min_empties }, never()).unwrap();
        proptest::prop_assert_eq!(noted, walked);
    }
}

/// `ids` in the order a round expands them, all sorted at once (the slow
/// reference): an Edax book's by the bucket of Edax's hash table, then by
/// position; an Egaroucid book's as given.
fn in_expansion_order(store: &Store<'_>, mut ids: Vec<NodeId>) -> Vec<NodeId> {
    if let Flavor::Edax(_) = store.flavor() {
        ids.sort_by_cached_key(|&id| (bucket(&store.board(id)), id));
    }
    ids
}

/// The growing book as a run makes it from `book`: negamaxed below the
/// initial position by the walk ([`super::first`]), its links resolved.
fn prepared(book: Book, min_empties: u32) -> Prepared {
    prepared_marking(book, min_empties, Marks::LeafAtLeastValue)
}

/// [`prepared`], the first round's candidates those `marks` marks.
fn prepared_marking(book: Book, min_empties: u32, marks: Marks) -> Prepared {
    let cancel = AtomicBool::new(false);
    first::prepare(book, &Start::initial(), (min_empties, Some(marks)), Path::new("journal"), Cancel::new(&cancel))
        .unwrap()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]

    /// The first negamax, made by the walk, holds for every position the
    /// store's own negamax reaches what that negamax computes (and marks
    /// no other), and its candidates are the candidate walk's, in the
    /// order a round expands them ([`in_expansion_order`]).
    #[test]
    fn the_first_negamax_by_the_walk_is_the_store_s(seed in 0u64..1000, min_empties in 0u32..60, egaroucid: bool) {
        let (read, flavor) = book_in(seed, egaroucid);
        let records = read.counts().records as usize;
        let Prepared { book, links, mut first } = prepared(read, min_empties);
        let candidates_by_walk = std::mem::take(&mut first.as_mut().expect("negamaxed by the walk").candidates);
        let mut store = Store::with_links(&book, flavor, links);
        let root = store.find(&normalize(&crate::board::Board::INITIAL).board).unwrap();
        let by_walk = Solved::from_first(first.unwrap());
        let mut reference = Solved::new(records);
        reference.solve_from(&mut store, root, never()).unwrap();
        let reached = values_below(&store, &reference, root);
        let parents = |solved: &Solved, id| {
            let mut found: Vec<NodeId> = solved.parents_of(&store, id).collect();
            found.sort_unstable();
            found.dedup();
            found
        };
        for (id, value) in &reached {
            proptest::prop_assert!(by_walk.is_solved(*id), "{:?} not negamaxed", id);
            proptest::prop_assert_eq!(&by_walk.get(&store, *id).unwrap(), value, "{:?}", id);
            proptest::prop_assert_eq!(parents(&by_walk, *id), parents(&reference, *id), "{:?}", id);
        }
        let solved_by_walk = (0..records as u32)
            .filter(|&r| store.book().file().records_in(r as usize..r as usize + 1).next().is_some_and(|at| by_walk.is_solved(NodeId::Book(at))))
            .count();
        proptest::prop_assert_eq!(solved_by_walk, reached.len());
        let walked = candidates(&store, &reference, root, Gates { window: Window::NONE, min_empties }, never()).unwrap();
        proptest::prop_assert_eq!(candidates_by_walk, in_expansion_order(&store, walked));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]

    /// `play`'s first candidates, the positions without a link noted by the
    /// first negamax's walk, are those its candidate walk over the growing
    /// book finds (the slow reference), in the order a round expands them.
    #[test]
    fn the_first_negamax_notes_play_s_candidates_as_its_walk_finds_them(
        seed in 0u64..1000,
        // Shallower gates: these books' positions without a link lie deep,
        // and below 8 empty squares each book has dozens, enough for their
        // order to tell.
        min_empties in 0u32..8,
        egaroucid: bool,
    ) {
        let (read, flavor) = book_in(seed, egaroucid);
        let Prepared { book, links, mut first } = prepared_marking(read, min_empties, Marks::NoLinks);
        let noted = std::mem::take(&mut first.as_mut().expect("negamaxed by the walk").candidates);
        let store = Store::with_links(&book, flavor, links);
        let root = store.find(&normalize(&crate::board::Board::INITIAL).board).unwrap();
        let solved = Solved::from_first(first.unwrap());
        let gates = Gates { window: Window::NONE, min_empties };
        let walked = marked(&store, &solved, root, (gates, Marks::NoLinks), never()).unwrap();
        proptest::prop_assert!(min_empties > 0 || !walked.is_empty(), "a book with leaves has some");
        proptest::prop_assert_eq!(noted, in_expansion_order(&store, walked));
    }
}

/// Grows a 3,000-position book of `seed` by the expansions `picks` chooses,
/// as [`check_carried_negamax`] does, from the growing book a run makes;
/// then checks that the book written from the run's negamax is, byte for
/// byte, `fix` of the book grown (the slow reference: a second negamax,
/// by `fix`'s own walk, of the whole book written out).
fn check_written_as_fix_writes(seed: u64, picks: &[(usize, i8)]) {
    let read = book(3000, seed);
    let flavor = edax_flavor(&read);
    let Prepared { book, links, first } = prepared(read, 0);
    let first = first.unwrap();
    let mut store = Store::with_links(&book, flavor, links);
    let root = store.find(&normalize(&crate::board::Board::INITIAL).board).unwrap();
    let mut solved = Solved::from_first(first);
    let gates = Gates { window: Window::NONE, min_empties: 0 };
    for &(pick, answer) in picks {
        let found = candidates(&store, &solved, root, gates, never()).unwrap();
        if found.is_empty() {
            break;
        }
        let changed = expand(&mut store, &solved, found[pick % found.len()], answer);
        solved.after_change(&mut store, &changed, never()).unwrap();
    }
    let cancel = AtomicBool::new(false);
    let mut direct = Vec::new();
    write_fixed(&store, &solved, &mut direct, Cancel::new(&cancel)).unwrap();
    let mut unfixed = Vec::new();
    write_unfixed(&store, &mut unfixed).unwrap();
    let grown = Book::from_bytes("grown", unfixed).unwrap();
    let (mut phase, mut walked) = (|_: Phase| {}, |_: Progress<'_>| {});
    let control = Control { cancel: Cancel::new(&cancel), phase: &mut phase, progress: &mut walked };
    let mut through_fix = Vec::new();
    let out = (&mut through_fix, Path::new("out"));
    let done = fix_into(grown, &FixOptions::default(), out, (&mut std::io::sink(), Path::new("receipt")), control);
    done.unwrap().checked().unwrap();
    assert_eq!(direct.len(), through_fix.len());
    assert!(direct == through_fix, "the book written differs from fix's");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// The book grown, written from the run's own negamax, is `fix` of it.
    #[test]
    fn the_book_written_from_the_run_s_negamax_is_fix_s(
        seed in 0u64..1000,
        picks in proptest::collection::vec((0usize..10_000, -64i8..=64), 0..12),
    ) {
        check_written_as_fix_writes(seed, &picks);
    }
}

/// `fix` of `book` with the link scores `rescored` gives, into bytes.
fn fixed_bytes(book: Book, rescored: &Rescored) -> Vec<u8> {
    let cancel = AtomicBool::new(false);
    let (mut phase, mut walked) = (|_: Phase| {}, |_: Progress<'_>| {});
    let control = Control { cancel: Cancel::new(&cancel), phase: &mut phase, progress: &mut walked };
    let mut out = Vec::new();
    let receipt = (&mut std::io::sink(), Path::new("receipt"));
    let done =
        fix_rescored_into(book, rescored, &FixOptions::default(), (&mut out, Path::new("out")), receipt, control);
    done.unwrap().checked().unwrap();
    out
}

/// Every record of a synthetic book of `seed` linked as `fix --link`
/// links it, after `edit` changed the store first; then, if the book
/// grown differs from the book read in link scores alone, `fix` of the
/// book read so rescored is checked against `fix` of the book grown
/// written out and read again (the slow reference). Returns the records
/// rescored, if the book grown is one.
fn check_rescored_as_written_out(seed: u64, edit: impl FnOnce(&mut Store<'_>)) -> Option<usize> {
    check_bytes_rescored_as_written_out(book_bytes(&SynthOptions { positions: 3000, seed, perturb: 0.2 }), edit)
}

/// [`check_rescored_as_written_out`] of the Edax book `bytes`.
fn check_bytes_rescored_as_written_out(bytes: Vec<u8>, edit: impl FnOnce(&mut Store<'_>)) -> Option<usize> {
    let read = Book::from_bytes("synthetic", bytes.clone()).unwrap();
    let mut store = Store::with_links(&read, edax_flavor(&read), None);
    edit(&mut store);
    for at in read.file().every_record() {
        store.link_held(NodeId::Book(at)).unwrap();
    }
    let rescored = rescoring(&store)?;
    let mut unfixed = Vec::new();
    write_unfixed(&store, &mut unfixed).unwrap();
    let through_file = fixed_bytes(Book::from_bytes("grown", unfixed).unwrap(), &Rescored::default());
    let from_read = fixed_bytes(Book::from_bytes("synthetic", bytes).unwrap(), &rescored);
    assert_eq!(from_read.len(), through_file.len());
    assert!(from_read == through_file, "fix of the book read rescored differs from fix of the book grown");
    Some(rescored.len())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8))]

    /// A book whose linking only scored its links again is fixed from the
    /// book read, rescored, into the very bytes of the book grown fixed.
    #[test]
    fn fix_of_the_book_read_rescored_is_fix_of_the_book_grown(seed in 0u64..1000) {
        let rescored = check_rescored_as_written_out(seed, |_| {});
        proptest::prop_assert!(rescored.is_some_and(|n| n > 0), "{rescored:?} records rescored");
    }
}

/// A synthetic book of `seed` without the record of the position after
/// the first move: the initial position's link leads out of the book, and
/// no other record is reached from it.
fn cut_after_the_first_move(seed: u64) -> Vec<u8> {
    let bytes = book_bytes(&SynthOptions { positions: 3000, seed, perturb: 0.2 });
    let read = Book::from_bytes("synthetic", bytes.clone()).unwrap();
    let (_, after) = crate::board::Board::INITIAL.children()[0];
    let cut = read.locate(&normalize(&after).board).unwrap().id;
    let records = read.counts().records - 1;
    let mut kept = read.header().kept(records);
    for (id, _, raw) in crate::format::edax::records(&bytes).map(Result::unwrap) {
        if id != cut {
            kept.extend_from_slice(raw.bytes());
        }
    }
    kept
}

/// Where the negamax reaches nearly nothing, the records linking scored
/// again keep their new scores in the book written: `fix` of the book read
/// rescored is still `fix` of the book grown.
#[test]
fn records_the_negamax_does_not_reach_keep_the_scores_linking_gave() {
    for seed in 0..4 {
        let rescored = check_bytes_rescored_as_written_out(cut_after_the_first_move(seed), |_| {});
        assert!(rescored.is_some_and(|n| n > 0), "seed {seed}: {rescored:?} records rescored");
    }
}

/// A book grown that differs from the book read in more than its link
/// scores (a leaf, a level) is not taken for the book read rescored.
#[test]
fn a_book_grown_otherwise_is_not_the_book_read_rescored() {
    let pick = |store: &Store<'_>| {
        let book = store.book();
        let at = book.file().every_record().find(|&at| book.file().edax_record(at).unwrap().n_links() > 0);
        NodeId::Book(at.unwrap())
    };
    let level = check_rescored_as_written_out(3, |store| {
        let id = pick(store);
        store.set_level(id, crate::level::Level::saturating(1)).unwrap();
    });
    assert_eq!(level, None, "a level changed");
    let leaf = check_rescored_as_written_out(3, |store| {
        let id = pick(store);
        store.touch(id).unwrap();
        store.set_leaf(id, None);
    });
    assert_eq!(leaf, None, "a leaf taken out");
}

/// The candidates written slowly, as §13 says them: from the start, over
/// links only, each position once, a link followed when the window lets
/// its score (the run's negamax of its child) through at the ply it
/// stands; a position entered when it has `min_empties` empty squares and
/// is not finished, and a candidate when its leaf scores at least its
/// value.
fn candidates_slowly(store: &Store<'_>, solved: &Solved, root: NodeId, gates: Gates) -> Vec<NodeId> {
    use crate::book::Score;
    use crate::window::Place;
    fn visit(
        (store, solved, gates, start): (&Store<'_>, &Solved, Gates, Score),
        id: NodeId,
        ply: usize,
        seen: &mut std::collections::HashSet<NodeId>,
        found: &mut Vec<NodeId>,
    ) {
        let board = store.board(id);
        if board.empties() < gates.min_empties || board.is_game_over() || !seen.insert(id) {
            return;
        }
        let facts = store.facts(id).unwrap();
        if negamax::leaf_score(facts.leaf) >= solved.value(store, id) {
            found.push(id);
        }
        let scores: Vec<Score> =
            facts.edges.iter().map(|e| super::solved::edge_score(store, solved, id, e).unwrap()).collect();
        let leaf = facts.leaf.filter(|leaf| leaf.mv.is_some()).map(|leaf| leaf.score);
        let best = scores.iter().copied().chain(leaf).max();
        for (edge, &score) in facts.edges.iter().zip(&scores) {
            let Some(child) = edge.child else { continue };
            if gates.window.passes(score, Place { ply, best }, start) {
                visit((store, solved, gates, start), child, ply + 1 + usize::from(edge.then_pass), seen, found);
            }
        }
    }
    let start = solved.value(store, root);
    let mut found = Vec::new();
    visit((store, solved, gates, start), root, 0, &mut std::collections::HashSet::new(), &mut found);
    found
}

/// A window of the candidates' walk, from three numbers (each none when
/// out of range).
fn window_of(deviation: i32, error: i32, max_ply: i32) -> Window {
    let some = |n: i32, top: i32| (0..=top).contains(&n).then_some(n as u32);
    Window { deviation: some(deviation, 8), error: some(error, 8), max_ply: some(max_ply, 12) }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// In every round, under any window, the candidates the one walk finds
    /// over the growing book are the ones written slowly, in the same
    /// order; in a book of either format.
    #[test]
    fn the_candidates_walk_is_the_slow_one_under_any_window(
        seed in 0u64..1000,
        (deviation, error, max_ply) in (-4i32..8, -4i32..8, -4i32..12),
        min_empties in 0u32..50,
        egaroucid: bool,
        picks in proptest::collection::vec((0usize..10_000, -64i8..=64), 0..6),
    ) {
        let (book, flavor) = book_in(seed, egaroucid);
        let (mut store, root, mut solved) = negamaxed(&book, flavor);
        let gates = Gates { window: window_of(deviation, error, max_ply), min_empties };
        for &(pick, answer) in &picks {
            let found = candidates(&store, &solved, root, gates, never()).unwrap();
            proptest::prop_assert_eq!(&found, &candidates_slowly(&store, &solved, root, gates));
            let Some(&id) = found.get(pick % found.len().max(1)) else { break };
            let changed = expand(&mut store, &solved, id, answer);
            solved.after_change(&mut store, &changed, never()).unwrap();
        }
        let found = candidates(&store, &solved, root, gates, never()).unwrap();
        proptest::prop_assert_eq!(found, candidates_slowly(&store, &solved, root, gates));
    }
}

/// A stop asked for ends the walks of the growing book (they ask every
/// 65,536 links: a book of 100,000 positions has more), as an interruption
/// that names the journal.
#[test]
fn a_stop_asked_for_ends_the_growing_book_s_walks() {
    let book = egbk3_book(100_000, 5);
    let mut store = Store::with_links(&book, Flavor::Egaroucid, None);
    let root = store.find(&normalize(&crate::board::Board::INITIAL).board).unwrap();
    let asked = AtomicBool::new(true);
    let stop = Stop { cancel: Cancel::new(&asked), journal: Path::new("o/extend.jsonl") };
    let mut solved = Solved::new(book.counts().records as usize);
    let stopped = solved.solve_from(&mut store, root, stop).unwrap_err();
    assert!(
        matches!(&stopped, super::error::GrowingError::Interrupted(Stopped { left: Left::Journal(journal), .. }) if journal == Path::new("o/extend.jsonl"))
    );
    let mut solved = Solved::new(book.counts().records as usize);
    solved.solve_from(&mut store, root, never()).unwrap();
    let gates = Gates { window: Window::NONE, min_empties: 0 };
    assert!(!candidates(&store, &solved, root, gates, never()).unwrap().is_empty());
    let stopped = candidates(&store, &solved, root, gates, stop).unwrap_err();
    assert!(matches!(stopped, super::error::GrowingError::Interrupted { .. }), "{stopped}");
}

/// A position added to an Egaroucid book is a link of every position that
/// can move to it, not only of the one expanded: where another position
/// of the book moves to a position added, and the link scores above all
/// it had, the negamax carried up gives it what a whole negamax gives.
#[test]
fn a_position_added_to_an_egaroucid_book_is_a_link_of_each_position_that_moves_to_it() {
    let mut transpositions = 0;
    for seed in 0..40 {
        let book = egbk3_book(3000, seed);
        let (mut store, root, mut solved) = negamaxed(&book, Flavor::Egaroucid);
        let gates = Gates { window: Window::NONE, min_empties: 0 };
        let found = candidates(&store, &solved, root, gates, never()).unwrap();
        // The first candidate whose leaf leads to a position not in the book
        // that another position reached can move to.
        let Some(&id) = found.iter().find(|&&id| {
            let facts = store.facts(id).unwrap();
            let Some(mv) = facts.leaf.and_then(|leaf| leaf.mv) else { return false };
            let Some(after) = facts.board.after(mv) else { return false };
            let child = normalize(&after).board;
            let others = child.before_moves();
            store.find(&child).is_none()
                && others
                    .iter()
                    .any(|(_, b)| store.find(&normalize(b).board).is_some_and(|p| p != id && solved.is_solved(p)))
        }) else {
            continue;
        };
        transpositions += 1;
        // Its child scores as badly as can be for its side, so that each
        // position that moves to it links it as its best move.
        let changed = expand(&mut store, &solved, id, -64);
        solved.after_change(&mut store, &changed, never()).unwrap();
        let carried = values_below(&store, &solved, root);
        let mut whole = Solved::new(book.counts().records as usize);
        whole.solve_from(&mut store, root, never()).unwrap();
        assert_eq!(carried, values_below(&store, &whole, root), "seed {seed}");
    }
    assert!(transpositions >= 3, "books with such a position: {transpositions}");
}
