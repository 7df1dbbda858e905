//! Windows (SPEC §12) against a slow reference: SPEC §2 read literally, a
//! visited flag per (stored position, move index) in a hash set, every
//! position looked up by its normalized board, and §12's three limits
//! asked of each move at the position where it stands.

use bookminer::board::{Board, Move};
use bookminer::book::Book;
use bookminer::symmetry::normalize;
use bookminer::walk::{walk, Arrival, Start, Visitor, Walkable};
use bookminer::window::{Place, Window};
use proptest::prelude::*;
use std::collections::HashSet;
use std::convert::Infallible;

use crate::common;

/// Every arrival's line, and whether the move was the parent's leaf, in
/// walk order.
#[derive(Default)]
struct Lines(Vec<(Vec<Move>, bool)>);

impl Visitor for Lines {
    type Error = Infallible;
    fn arrive(&mut self, a: &Arrival<'_>) -> Result<(), Infallible> {
        self.0.push((a.line.to_vec(), a.by_leaf));
        Ok(())
    }
}

/// SPEC §2 with §12's window, as written: the lines of every arrival, and
/// whether the move was the leaf.
fn reference(book: &Book, start: &Start, window: Window) -> Vec<(Vec<Move>, bool)> {
    struct Slow<'a> {
        book: &'a Book,
        window: Window,
        start_len: usize,
        start_value: bookminer::book::Score,
        visited: HashSet<(Board, usize)>,
        arrivals: Vec<(Vec<Move>, bool)>,
    }
    impl Slow<'_> {
        fn visit(&mut self, board: Board, line: &mut Vec<Move>) {
            let normalized = normalize(&board);
            let record = self.book.find(&normalized.board).expect("the walk stands only on stored positions");
            let best = record.moves().map(|l| l.score).max();
            let place = Place { ply: line.len() - self.start_len, best };
            loop {
                let next = record.moves().enumerate().find(|(i, l)| {
                    !self.visited.contains(&(normalized.board, *i))
                        && self.window.passes(l.score, place, self.start_value)
                });
                let Some((i, link)) = next else { return };
                self.visited.insert((normalized.board, i));
                let actual = normalized.to_original.apply_move(link.mv);
                let before = line.len();
                let mut child = board.after(actual).expect("stored moves are legal");
                line.push(actual);
                if link.then_pass {
                    child = child.after(Move::Pass).expect("a pass where one is forced");
                    line.push(Move::Pass);
                }
                if self.book.find(&normalize(&child).board).is_some() {
                    self.arrivals.push((line.clone(), i >= record.n_links()));
                    self.visit(child, line);
                }
                line.truncate(before);
            }
        }
    }
    let root = book.find(&normalize(&start.board).board).expect("the start is stored");
    let mut slow = Slow {
        book,
        window,
        start_len: start.line.len(),
        start_value: root.value(),
        visited: HashSet::new(),
        arrivals: Vec::new(),
    };
    slow.visit(start.board, &mut start.line.clone());
    slow.arrivals
}

fn fast(path: &std::path::Path, start: &Start, window: Window) -> Vec<(Vec<Move>, bool)> {
    let walkable = Walkable::new(Book::open(path, &Default::default()).unwrap(), start).unwrap().within(window);
    walk(&walkable, Lines::default()).unwrap().1 .0
}

fn limit(n: i32) -> Option<u32> {
    u32::try_from(n).ok()
}

fn start_of(kifu: &str) -> Start {
    let (board, line) = bookminer::kifu::parse_and_play(kifu).unwrap();
    Start { board, line }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The windowed walk makes exactly the reference's arrivals, by the same
    /// lines in the same order, on an Edax book and on Egaroucid books.
    #[test]
    fn a_windowed_walk_arrives_where_the_spec_says(
        book in 0usize..3,
        deviation in -1i32..5,
        error in -1i32..8,
        max_ply in -1i32..24,
        start in prop::sample::select(vec!["", "f5", "f5d6", "f5f6e6"]),
    ) {
        let path = common::data(["books/edax46-l2-small.dat", "books/egbk3/edax46-l2-small.egbk3",
            "books/egbk3/edax46-l2-small-perturbed.egbk3"][book]);
        let window = Window { deviation: limit(deviation), error: limit(error), max_ply: limit(max_ply) };
        let start = start_of(start);
        let expected = reference(&Book::open(&path, &Default::default()).unwrap(), &start, window);
        prop_assert_eq!(fast(&path, &start, window), expected);
    }
}

#[test]
fn no_window_is_the_plain_walk_and_each_limit_cuts_it_down() {
    let path = common::edax46();
    let start = Start::initial();
    let all = fast(&path, &start, Window::NONE);
    assert_eq!(all, reference(&Book::open(&path, &Default::default()).unwrap(), &start, Window::NONE));
    for window in [
        Window { deviation: Some(0), ..Window::NONE },
        Window { error: Some(2), ..Window::NONE },
        Window { max_ply: Some(4), ..Window::NONE },
    ] {
        let cut = fast(&path, &start, window);
        assert!(!cut.is_empty() && cut.len() < all.len(), "{window:?}: {} of {}", cut.len(), all.len());
    }
    assert!(fast(&path, &start, Window { max_ply: Some(0), ..Window::NONE }).is_empty());
}
