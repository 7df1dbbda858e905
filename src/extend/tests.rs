//! The growing book without engine processes: expansions answered by a
//! script, and the negamax carried up after each one checked against a
//! whole negamax from the start (the slow reference).

use super::candidates::{candidates, Gates};
use super::solved::Solved;
use super::store::{Flavor, LeafPlan, NodeId, Store};
use crate::book::{Book, Header};
use crate::negamax::{Negamaxed, SearchErrors};
use crate::symmetry::normalize;
use crate::synth::{book_bytes, SynthOptions};
use crate::window::Window;
use std::collections::HashMap;

/// A synthetic Edax book of `positions` positions, some scores perturbed.
fn book(positions: usize, seed: u64) -> Book {
    Book::from_bytes("synthetic", book_bytes(&SynthOptions { positions, seed, perturb: 0.2 })).unwrap()
}

fn edax_flavor(book: &Book) -> Flavor {
    match book.header() {
        Header::Edax(h) => Flavor::Edax(SearchErrors::of(&h)),
        _ => unreachable!("synth writes Edax books"),
    }
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
        let (score, mv) = match store.leaf_plan(at).unwrap() {
            LeafPlan::Known { score, mv } => (score, mv),
            LeafPlan::Search { query, through_pass } => {
                let allowed = query.board.legal_moves() & !query.excluded;
                let square = crate::board::Square::iter(allowed).last().unwrap();
                match through_pass {
                    true => (-answer, Some(crate::board::Move::Pass)),
                    false => (answer, Some(crate::board::Move::Play(square))),
                }
            }
        };
        store.set_leaf(at, score, mv);
    }
    changed
}

/// Expands the candidates `picks` chooses, one at a time, in a 3,000-position
/// book of `seed`, and checks after each that the negamax carried up from
/// what changed holds, for every position below the start, what a whole
/// negamax computes.
fn check_carried_negamax(seed: u64, picks: &[(usize, i8)]) {
    let book = book(3000, seed);
    let flavor = edax_flavor(&book);
    let mut store = Store::new(&book, flavor);
    let root = store.find(&normalize(&crate::board::Board::INITIAL).board).unwrap();
    let mut solved = Solved::new(book.counts().records as usize);
    solved.solve_from(&mut store, root).unwrap();
    let gates = Gates { window: Window::NONE, min_empties: 0 };
    for (step, &(pick, answer)) in picks.iter().enumerate() {
        let found = candidates(&store, &solved, root, gates).unwrap();
        if found.is_empty() {
            break;
        }
        let changed = expand(&mut store, &solved, found[pick % found.len()], answer);
        solved.update(&mut store, &changed).unwrap();
        let carried = values_below(&store, &solved, root);
        let mut whole = Solved::new(book.counts().records as usize);
        whole.solve_from(&mut store, root).unwrap();
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
        picks in proptest::collection::vec((0usize..10_000, -64i8..=64), 1..12),
    ) {
        check_carried_negamax(seed, &picks);
    }
}

/// A case the property once found: a position whose value depends on a
/// child reached again through another parent after an expansion.
#[test]
fn the_negamax_carried_up_holds_in_a_case_once_found() {
    check_carried_negamax(695, &[(69, 0), (77, 0), (3500, 0), (2681, 0)]);
}

#[test]
fn candidates_are_the_positions_whose_leaf_is_as_good_as_their_value_in_walk_order() {
    let book = book(2000, 3);
    let mut store = Store::new(&book, edax_flavor(&book));
    let root = store.find(&normalize(&crate::board::Board::INITIAL).board).unwrap();
    let mut solved = Solved::new(book.counts().records as usize);
    solved.solve_from(&mut store, root).unwrap();
    let found = candidates(&store, &solved, root, Gates { window: Window::NONE, min_empties: 0 }).unwrap();
    assert!(!found.is_empty(), "a perturbed book has candidates");
    for &id in &found {
        assert!(i16::from(store.leaf(id).unwrap().score) >= solved.value(&store, id), "{id:?}");
    }
    // Every position reached over links that is not listed is no candidate.
    let reached = values_below(&store, &solved, root);
    let listed: std::collections::HashSet<_> = found.iter().copied().collect();
    for (id, value) in reached {
        let board = store.board(id);
        if !listed.contains(&id) && !board.is_game_over() {
            assert!(i16::from(store.leaf(id).unwrap().score) < value.value, "{id:?} missed");
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
        let mut store = Store::new(&book, edax_flavor(&book));
        let root = store.find(&normalize(&crate::board::Board::INITIAL).board).unwrap();
        let mut solved = Solved::new(book.counts().records as usize);
        solved.note_candidates(min_empties);
        solved.solve_from(&mut store, root).unwrap();
        let noted = solved.take_candidates();
        let walked = candidates(&store, &solved, root, Gates { window: Window::NONE, min_empties }).unwrap();
        proptest::prop_assert_eq!(noted, walked);
    }
}
