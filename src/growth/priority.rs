//! `grow`'s arithmetic (docs/grow.md, SPEC §14): how far below the start
//! each position of a book lies in Lincke's drop-out measure, and which
//! frontier positions are expanded first.
//!
//! Nothing here knows how a book is stored: the book is a [`LinkGraph`]
//! (positions, their negamaxed values, leaves and links), so the same code
//! serves the book `grow` is growing, a book read from a file, and the
//! small graphs the tests make up.
//!
//! # Costs are exact
//!
//! A step along a link costs one ply plus `W` per disc of error, so every
//! D and every priority is a whole number of plies plus `W` times a whole
//! number of discs. [`Cost`] holds such a number in fixed point with 64
//! bits below the point, and [`ErrorWeight`] holds `W` the same way, which
//! is `W`'s f64 exactly for any weight a user writes (from 2⁻¹² up). Sums
//! and comparisons are then exact: two priorities tie when they are equal
//! as real numbers, whatever order the additions were made in, and W = 1
//! is whole-number arithmetic. (An f64 sum would tie or not depending on
//! the path Dijkstra happened to settle first.)
//!
//! # The walk-order tie-break
//!
//! Frontier positions of equal priority and equal D are taken in the
//! order §13's candidate walk first reaches them: depth first over links
//! in stored order, each position once. [`frontier`] runs that walk over
//! the whole book. [`least`] cannot: it stops Dijkstra as soon as the
//! answer is known, and the walk may reach a tied position first through
//! a branch Dijkstra never settles (a first link with a large error whose
//! subtree also leads there: the walk goes down it before the cheap
//! second link). Knowing the first arrival needs every line that reaches
//! the tied positions, which is what a position's parents give
//! ([`ParentLinks`]).
//!
//! So [`least`] ranks tied positions by the walk restricted to their
//! *ancestors*: the positions from which one of them can be reached. The
//! restricted walk reaches them in the same order as the whole walk,
//! because a branch the whole walk enters outside the ancestors reaches no
//! ancestor (else it would be one), so it marks nothing the restricted walk
//! looks at. This holds for any graph, cycles included, and costs the
//! ancestors of the tied positions, not the book. (Sorting by each
//! position's lexicographically least line of link indices gives the same
//! order on a graph without cycles, but needs those same ancestors.)

use std::cmp::Reverse;
// hashbrown's hasher: the search hashes every position it settles, and
// std's SipHash was a good part of its time on a book of millions.
use hashbrown::hash_map::Entry;
use hashbrown::{HashMap, HashSet};
use std::collections::BinaryHeap;
use std::fmt;
use std::hash::Hash;

/// The book as §14 sees it, whatever stores it.
///
/// Positions with fewer than `min_empties` empty squares and finished
/// games are not *entered*: they are neither walked through nor frontier.
/// Windows are the implementation's: `links` gives only the links the walk
/// follows. (This module passes no ply: a window that depends on it,
/// `error` or `max_ply`, takes the position's own, its discs more than the
/// start's, which is every line's but for lines through passes.)
///
/// The graph should be negamaxed: no link and no leaf scoring above its
/// position's value. Where one does, its error counts as zero, so that no
/// step costs less than a ply.
pub trait LinkGraph {
    /// A position of the book.
    type Node: Copy + Eq + Hash + Ord;

    /// §14's gates: at least `min_empties` empty squares and not a
    /// finished game.
    fn entered(&self, node: Self::Node) -> bool;

    /// The negamaxed value.
    fn value(&self, node: Self::Node) -> i32;

    /// The leaf's score, when the leaf is a move to expand: not Edax's
    /// move 65 and not the empty leaf (−127).
    fn leaf(&self, node: Self::Node) -> Option<i32>;

    /// Appends the links the walk follows from `node`, in stored order,
    /// each as (score, child): only links to positions of the book, and
    /// only those a window lets through.
    fn links(&self, node: Self::Node, out: &mut Vec<(i32, Self::Node)>);
}

/// A book that can say which positions link to a position: what [`least`]
/// needs to break ties in walk order without walking the whole book.
pub trait ParentLinks: LinkGraph {
    /// Appends every position whose [`LinkGraph::links`] include `node`.
    /// More is harmless (each is checked against its own links); fewer
    /// would put a tie in the wrong order.
    fn parents(&self, node: Self::Node, out: &mut Vec<Self::Node>);
}

/// One as [`Cost`] and [`ErrorWeight`] hold it: 64 bits below the point.
const ONE: u128 = 1 << 64;

/// A length in §14's measure: plies plus `W` times discs of error, held
/// exactly (see the module's documentation). Ordered as the numbers are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cost(u128);

impl Cost {
    /// No plies and no error.
    pub const ZERO: Cost = Cost(0);

    /// `plies` plies and no error.
    pub const fn whole(plies: u64) -> Cost {
        Cost((plies as u128) << 64)
    }

    /// The nearest f64, to show it.
    pub fn to_f64(self) -> f64 {
        self.0 as f64 / ONE as f64
    }

    /// Whether this cost is at most `bound`, compared exactly (not at
    /// the f64's rounding): the test of `max_priority`.
    pub fn at_most(self, bound: f64) -> bool {
        Cost::floor(bound).is_some_and(|floor| self <= floor)
    }

    /// The greatest cost at most `bound`; `None` when no cost is (a
    /// negative bound, or not a number). `bound · 2⁶⁴` is exact (a power
    /// of two) and its floor converts exactly, saturating past the top.
    fn floor(bound: f64) -> Option<Cost> {
        (bound >= 0.0).then(|| Cost((bound * ONE as f64).floor() as u128))
    }

    /// The sum; saturating, which no book comes near.
    fn plus(self, other: Cost) -> Cost {
        Cost(self.0.saturating_add(other.0))
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_f64())
    }
}

/// `W`, `error_weight`: what one disc of error costs, in plies. Held as
/// `W · 2⁶⁴` rounded to a whole number: exactly the f64 for any weight
/// from 2⁻¹² (0.000244) up, whose lowest bit is worth 2⁻⁶⁴ or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorWeight(u128);

/// A weight [`ErrorWeight::new`] refuses.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("error_weight must be a number from 0 to {max}, not {0}", max = ErrorWeight::MAX)]
pub struct WeightError(pub f64);

impl ErrorWeight {
    /// Depth alone.
    pub const ZERO: ErrorWeight = ErrorWeight(0);
    /// One disc of error costs one ply (the default).
    pub const ONE: ErrorWeight = ErrorWeight(ONE);
    /// The largest weight (2²⁰): far above any useful one, and low enough
    /// that no cost of a book comes near the fixed point's limit.
    pub const MAX: f64 = 1_048_576.0;

    /// A weight from 0 to [`ErrorWeight::MAX`].
    pub fn new(w: f64) -> Result<ErrorWeight, WeightError> {
        if !(0.0..=ErrorWeight::MAX).contains(&w) {
            return Err(WeightError(w));
        }
        Ok(ErrorWeight((w * ONE as f64).round() as u128))
    }

    /// The weight as a number.
    pub fn get(self) -> f64 {
        self.0 as f64 / ONE as f64
    }

    /// What a move scoring `score` costs at a position of `value`: a ply,
    /// plus `W` per disc it falls short. A score above the value (a book
    /// not negamaxed) falls short by nothing, so a step never costs less
    /// than a ply, which Dijkstra and [`least`]'s early stop rely on.
    fn step(self, value: i32, score: i32) -> Cost {
        let short = (i64::from(value) - i64::from(score)).max(0) as u128;
        Cost(ONE.saturating_add(self.0.saturating_mul(short)))
    }
}

impl Default for ErrorWeight {
    fn default() -> ErrorWeight {
        ErrorWeight::ONE
    }
}

/// A frontier position: entered, and its leaf a move to expand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frontier<N> {
    /// The position.
    pub node: N,
    /// The least cost of a line of links from the start.
    pub d: Cost,
    /// `D + 1 + W · (value − leaf score)`: the cost of the line through
    /// the leaf, had the leaf been a link.
    pub priority: Cost,
}

/// Every frontier position below `start`, in the order `grow` expands
/// them: least priority first, then smaller D, then the order §13's
/// candidate walk first reaches them. Settles every position the walk
/// reaches and walks them all: the reference [`least`] answers a prefix of.
pub fn frontier<G: LinkGraph>(graph: &G, start: G::Node, w: ErrorWeight) -> Vec<Frontier<G::Node>> {
    let mut search = Search::new(graph, start, w);
    let mut found = Vec::new();
    while let Some(step) = search.next() {
        if let Step::Frontier(entry) = step {
            found.push(entry);
        }
    }
    let ranks = walk_ranks(graph, start, |_| true);
    found.sort_by_key(|f| (f.priority, f.d, rank(&ranks, f.node)));
    found
}

/// The first `limit` frontier positions in [`frontier`]'s order, leaving
/// out those `skip` names (expansions under way: they still lead to
/// others). Settles only positions whose D is below the last answer's
/// priority, and walks only the ancestors of positions that tie with an
/// answer on priority and D (see the module's documentation).
pub fn least<G: ParentLinks>(
    graph: &G,
    start: G::Node,
    w: ErrorWeight,
    skip: impl Fn(G::Node) -> bool,
    limit: usize,
) -> Vec<Frontier<G::Node>> {
    let mut chosen = Vec::new();
    let mut search = Search::new(graph, start, w);
    while chosen.len() < limit {
        let Some(step) = search.next() else { break };
        let Step::Frontier(first) = step else { continue };
        let mut group = search.ties_of(first);
        group.retain(|f| !skip(f.node));
        let wanted = limit - chosen.len();
        order_ties(graph, start, &mut group, wanted);
        chosen.extend(group.into_iter().take(wanted));
    }
    chosen
}

/// Whether some frontier position has a priority of at most
/// `max_priority`: a run stopped by `max_priority` alone leaves none.
/// Settles only positions whose D is at most `max_priority`.
pub fn any_at_most<G: LinkGraph>(graph: &G, start: G::Node, w: ErrorWeight, max_priority: f64) -> bool {
    let Some(bound) = Cost::floor(max_priority) else { return false };
    let mut search = Search::new(graph, start, w);
    while let Some(cost) = search.peek() {
        if cost > bound {
            return false;
        }
        if let Some(Step::Frontier(_)) = search.next() {
            return true;
        }
    }
    false
}

/// How many frontier positions have a priority of at most `max_priority`:
/// what a budget of `max_priority` has left to expand. Settles only
/// positions whose D is at most `max_priority`.
pub fn count_at_most<G: LinkGraph>(graph: &G, start: G::Node, w: ErrorWeight, max_priority: f64) -> u64 {
    let Some(bound) = Cost::floor(max_priority) else { return 0 };
    let mut search = Search::new(graph, start, w);
    let mut count = 0;
    while let Some(cost) = search.peek() {
        if cost > bound {
            break;
        }
        if let Some(Step::Frontier(f)) = search.next() {
            count += u64::from(f.priority.at_most(max_priority));
        }
    }
    count
}

/// D of every entered position the walk from `start` reaches.
pub fn distances<G: LinkGraph>(graph: &G, start: G::Node, w: ErrorWeight) -> HashMap<G::Node, Cost> {
    let mut search = Search::new(graph, start, w);
    while search.next().is_some() {}
    search.best.into_iter().map(|(node, (d, _))| (node, d)).collect()
}

/// What the search hands out, in order of cost.
enum Step<N> {
    /// A position's D became final.
    Settled,
    /// A frontier position: every one of a lower priority came before.
    Frontier(Frontier<N>),
}

/// What a heap entry is. At equal cost frontier entries come first: a
/// position settled at that cost has a priority above it and offers no
/// entry at it, so the answer does not wait for it, and [`least`] stops
/// without settling it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Frontier,
    Position,
}

/// Dijkstra from the start over entered positions, with each frontier
/// position's entry, at its priority, in the same heap. Since a priority
/// is at least D plus a ply, when a frontier entry comes out every
/// frontier position of a priority up to its own is already in the heap.
struct Search<'g, G: LinkGraph> {
    graph: &'g G,
    w: ErrorWeight,
    heap: BinaryHeap<Reverse<(Cost, Kind, G::Node)>>,
    /// The least D found so far, and whether it is final.
    best: HashMap<G::Node, (Cost, bool)>,
    links: Vec<(i32, G::Node)>,
}

impl<'g, G: LinkGraph> Search<'g, G> {
    fn new(graph: &'g G, start: G::Node, w: ErrorWeight) -> Search<'g, G> {
        let mut search = Search { graph, w, heap: BinaryHeap::new(), best: HashMap::new(), links: Vec::new() };
        if graph.entered(start) {
            search.best.insert(start, (Cost::ZERO, false));
            search.heap.push(Reverse((Cost::ZERO, Kind::Position, start)));
        }
        search
    }

    /// The cost of the next entry (perhaps one already superseded).
    fn peek(&self) -> Option<Cost> {
        self.heap.peek().map(|Reverse((cost, _, _))| *cost)
    }

    fn next(&mut self) -> Option<Step<G::Node>> {
        let Reverse((cost, kind, node)) = self.heap.pop()?;
        Some(match kind {
            Kind::Frontier => Step::Frontier(Frontier { node, d: self.best[&node].0, priority: cost }),
            Kind::Position => {
                self.settle(node, cost);
                Step::Settled
            }
        })
    }

    /// `first` and every other frontier entry of its priority (all in the
    /// heap already, and next in it).
    fn ties_of(&mut self, first: Frontier<G::Node>) -> Vec<Frontier<G::Node>> {
        let mut group = vec![first];
        while let Some(Reverse((cost, Kind::Frontier, _))) = self.heap.peek() {
            if *cost != first.priority {
                break;
            }
            if let Some(Step::Frontier(tie)) = self.next() {
                group.push(tie);
            }
        }
        group
    }

    /// Makes `d` the position's D, unless a shorter line settled it, and
    /// offers its frontier entry and its children.
    fn settle(&mut self, node: G::Node, d: Cost) {
        let Some(best) = self.best.get_mut(&node) else { return };
        if best.1 || best.0 != d {
            return;
        }
        best.1 = true;
        let value = self.graph.value(node);
        if let Some(leaf) = self.graph.leaf(node) {
            self.heap.push(Reverse((d.plus(self.w.step(value, leaf)), Kind::Frontier, node)));
        }
        let mut links = std::mem::take(&mut self.links);
        links.clear();
        self.graph.links(node, &mut links);
        for &(score, child) in &links {
            if self.graph.entered(child) {
                self.offer(child, d.plus(self.w.step(value, score)));
            }
        }
        self.links = links;
    }

    /// A line of cost `d` to `node`: kept if it is the shortest yet.
    fn offer(&mut self, node: G::Node, d: Cost) {
        match self.best.entry(node) {
            Entry::Occupied(known) if known.get().1 || known.get().0 <= d => return,
            Entry::Occupied(mut known) => *known.get_mut() = (d, false),
            Entry::Vacant(new) => {
                new.insert((d, false));
            }
        }
        self.heap.push(Reverse((d, Kind::Position, node)));
    }
}

/// Sorts a group of equal priority by D, then those of equal D by walk
/// order; only the runs of equal D that reach into the first `wanted` are
/// put in walk order (the rest are cut off).
fn order_ties<G: ParentLinks>(graph: &G, start: G::Node, group: &mut [Frontier<G::Node>], wanted: usize) {
    group.sort_by_key(|f| f.d);
    let mut tied = Vec::new();
    let mut at = 0;
    while at < group.len().min(wanted) {
        let run = group[at..].iter().take_while(|f| f.d == group[at].d).count();
        if run > 1 {
            tied.extend(group[at..at + run].iter().map(|f| f.node));
        }
        at += run;
    }
    if tied.is_empty() {
        return;
    }
    let ancestors = ancestors(graph, start, &tied);
    let ranks = walk_ranks(graph, start, |node| ancestors.contains(&node));
    group.sort_by_key(|f| (f.d, rank(&ranks, f.node)));
}

/// `targets`, `start`, and every entered position with a link to one of
/// them, recursively, but not above `start`: a position that reaches the
/// targets only through `start` cannot change the order the walk from
/// `start` reaches them in (it is reached after `start`, if at all).
fn ancestors<G: ParentLinks>(graph: &G, start: G::Node, targets: &[G::Node]) -> HashSet<G::Node> {
    let mut found: HashSet<G::Node> = targets.iter().copied().collect();
    found.insert(start);
    let mut todo: Vec<G::Node> = targets.iter().copied().filter(|&t| t != start).collect();
    let (mut parents, mut links) = (Vec::new(), Vec::new());
    while let Some(node) = todo.pop() {
        parents.clear();
        graph.parents(node, &mut parents);
        for &parent in &parents {
            if found.contains(&parent) || !graph.entered(parent) {
                continue;
            }
            links.clear();
            graph.links(parent, &mut links);
            if links.iter().any(|&(_, child)| child == node) {
                found.insert(parent);
                todo.push(parent);
            }
        }
    }
    found
}

/// The order §13's candidate walk first reaches each position: depth
/// first from `start` over links in stored order, each entered position
/// once; only positions `within` allows are walked (all of them, or an
/// ancestor-closed set, whose order is then the whole walk's).
fn walk_ranks<G: LinkGraph>(graph: &G, start: G::Node, within: impl Fn(G::Node) -> bool) -> HashMap<G::Node, usize> {
    let mut ranks = HashMap::new();
    if !graph.entered(start) {
        return ranks;
    }
    ranks.insert(start, 0);
    // The links of every position on the stack, end to end (the top's
    // last); a frame is where its position's links start and how many of
    // them were followed.
    let mut links = Vec::new();
    graph.links(start, &mut links);
    let mut stack = vec![(0, 0)];
    while let Some((from, followed)) = stack.last_mut() {
        let Some(&(_, child)) = links.get(*from + *followed) else {
            links.truncate(*from);
            stack.pop();
            continue;
        };
        *followed += 1;
        if ranks.contains_key(&child) || !within(child) || !graph.entered(child) {
            continue;
        }
        ranks.insert(child, ranks.len());
        stack.push((links.len(), 0));
        graph.links(child, &mut links);
    }
    ranks
}

/// A position's place in the walk; last if the walk did not reach it
/// (only a [`ParentLinks`] that leaves parents out does that).
fn rank<N: Eq + Hash>(ranks: &HashMap<N, usize>, node: N) -> usize {
    ranks.get(&node).copied().unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cell::RefCell;

    /// A position of a made-up book.
    #[derive(Clone, Debug)]
    struct Toy {
        entered: bool,
        value: i32,
        leaf: Option<i32>,
        links: Vec<(i32, usize)>,
    }

    /// A made-up book: positions by number, the start is 0. Notes the
    /// positions whose leaf was asked for (the search asks when it settles
    /// them), to show how far a search went.
    #[derive(Debug, Default)]
    struct Book {
        toys: Vec<Toy>,
        /// Parents says every position, a superset [`ParentLinks`] allows.
        loose_parents: bool,
        settled: RefCell<Vec<usize>>,
    }

    impl LinkGraph for Book {
        type Node = usize;
        fn entered(&self, node: usize) -> bool {
            self.toys[node].entered
        }
        fn value(&self, node: usize) -> i32 {
            self.toys[node].value
        }
        fn leaf(&self, node: usize) -> Option<i32> {
            self.settled.borrow_mut().push(node);
            self.toys[node].leaf
        }
        fn links(&self, node: usize, out: &mut Vec<(i32, usize)>) {
            out.extend_from_slice(&self.toys[node].links);
        }
    }

    impl ParentLinks for Book {
        fn parents(&self, node: usize, out: &mut Vec<usize>) {
            let links_to = |toy: &Toy| self.loose_parents || toy.links.iter().any(|&(_, c)| c == node);
            out.extend(self.toys.iter().enumerate().filter(|(_, toy)| links_to(toy)).map(|(p, _)| p));
        }
    }

    fn book(toys: Vec<Toy>) -> Book {
        Book { toys, ..Book::default() }
    }

    /// An entered position.
    fn toy(value: i32, leaf: Option<i32>, links: &[(i32, usize)]) -> Toy {
        Toy { entered: true, value, leaf, links: links.to_vec() }
    }

    fn weight(w: f64) -> ErrorWeight {
        ErrorWeight::new(w).unwrap()
    }

    /// (position, D, priority) as numbers.
    fn plain(found: &[Frontier<usize>]) -> Vec<(usize, f64, f64)> {
        found.iter().map(|f| (f.node, f.d.to_f64(), f.priority.to_f64())).collect()
    }

    /// §14 as written, slowly: D by Bellman-Ford in f64 (exact for the
    /// weights the tests use: few bits), the walk by plain recursion, the
    /// frontier sorted by the rule.
    fn reference(book: &Book, w: f64) -> Vec<(usize, f64, f64)> {
        let toys = &book.toys;
        let d = bellman_ford(toys, w);
        let mut order = vec![None; toys.len()];
        if toys[0].entered {
            walk(toys, 0, &mut order, &mut 0);
        }
        let mut found: Vec<(usize, f64, f64)> = (0..toys.len())
            .filter_map(|p| {
                let (d, leaf) = (d[p]?, toys[p].leaf?);
                Some((p, d, d + 1.0 + w * f64::from((toys[p].value - leaf).max(0))))
            })
            .collect();
        found.sort_by(|a, b| (a.2, a.1, order[a.0]).partial_cmp(&(b.2, b.1, order[b.0])).unwrap());
        found
    }

    fn bellman_ford(toys: &[Toy], w: f64) -> Vec<Option<f64>> {
        let mut d: Vec<Option<f64>> = vec![None; toys.len()];
        if toys[0].entered {
            d[0] = Some(0.0);
        }
        for _ in 0..toys.len() {
            for (p, toy) in toys.iter().enumerate() {
                let Some(dp) = d[p] else { continue };
                for &(score, c) in toy.links.iter().filter(|&&(_, c)| toys[c].entered) {
                    let through = dp + 1.0 + w * f64::from((toy.value - score).max(0));
                    if d[c].is_none_or(|dc| through < dc) {
                        d[c] = Some(through);
                    }
                }
            }
        }
        d
    }

    /// §13's candidate walk: depth first, links in order, each entered
    /// position once.
    fn walk(toys: &[Toy], p: usize, order: &mut Vec<Option<usize>>, next: &mut usize) {
        order[p] = Some(*next);
        *next += 1;
        for &(_, c) in &toys[p].links {
            if toys[c].entered && order[c].is_none() {
                walk(toys, c, order, next);
            }
        }
    }

    /// `n` positions; links only to higher numbers if `acyclic`.
    fn toys(n: usize, acyclic: bool) -> impl Strategy<Value = Vec<Toy>> {
        let links = proptest::collection::vec((-6..6i32, 0..n), 0..4);
        let one = (proptest::bool::weighted(0.85), -6..6i32, proptest::option::weighted(0.7, -6..6i32), links)
            .prop_map(|(entered, value, leaf, links)| Toy { entered, value, leaf, links });
        proptest::collection::vec(one, n).prop_map(move |mut toys| {
            for (p, toy) in toys.iter_mut().enumerate() {
                toy.links.retain(|&(_, c)| !acyclic || c > p);
            }
            toys
        })
    }

    /// Books of up to 10 positions, with or without cycles, parents exact
    /// or loose; a weight of few bits.
    fn books() -> impl Strategy<Value = (Book, f64)> {
        let shape = (1..10usize, proptest::bool::ANY);
        let toys = shape.prop_flat_map(|(n, acyclic)| toys(n, acyclic));
        let weights = proptest::sample::select(vec![0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0]);
        (toys, proptest::bool::ANY, weights)
            .prop_map(|(toys, loose_parents, w)| (Book { toys, loose_parents, ..Book::default() }, w))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn the_frontier_is_the_rule_written_slowly((book, w) in books()) {
            prop_assert_eq!(plain(&frontier(&book, 0, weight(w))), reference(&book, w));
        }

        #[test]
        fn d_is_bellman_fords((book, w) in books()) {
            let expected = bellman_ford(&book.toys, w);
            let found = distances(&book, 0, weight(w));
            for (p, d) in expected.iter().enumerate() {
                prop_assert_eq!(found.get(&p).map(|d| d.to_f64()), *d, "position {}", p);
            }
        }

        #[test]
        fn least_is_a_prefix_of_the_frontier((book, w) in books(), skipped in proptest::bits::u16::ANY) {
            let all = frontier(&book, 0, weight(w));
            let skip = |p: usize| skipped >> p & 1 == 1;
            let kept: Vec<_> = all.iter().copied().filter(|f| !skip(f.node)).collect();
            for limit in 0..=all.len() + 1 {
                prop_assert_eq!(&least(&book, 0, weight(w), |_| false, limit)[..], &all[..limit.min(all.len())]);
                prop_assert_eq!(&least(&book, 0, weight(w), skip, limit)[..], &kept[..limit.min(kept.len())]);
            }
        }

        #[test]
        fn any_at_most_finds_a_priority_at_most_the_bound((book, w) in books()) {
            let all = reference(&book, w);
            let bounds = all.iter().flat_map(|f| [f.2, f.2 - 0.125]).chain([-1.0, 0.0, 1.0, 100.0]);
            for c in bounds {
                prop_assert_eq!(any_at_most(&book, 0, weight(w), c), all.iter().any(|f| f.2 <= c), "bound {}", c);
            }
        }

        #[test]
        fn a_weight_of_zero_orders_by_depth((book, _) in books()) {
            let found = frontier(&book, 0, ErrorWeight::ZERO);
            let depth = bellman_ford(&book.toys, 0.0);
            for f in &found {
                prop_assert_eq!(f.priority, f.d.plus(Cost::whole(1)));
                prop_assert_eq!(Some(f.d.to_f64()), depth[f.node]);
            }
            prop_assert!(found.windows(2).all(|pair| pair[0].d <= pair[1].d));
        }
    }

    /// The start (value 0) links to 1 with an error of 30, then to 2
    /// without error; 1 and 2 both link to 4, 2 to 3 before; 3 and 4 are
    /// tied (D 2, priority 3). The walk goes down the dear first link and
    /// reaches 4 first, though Dijkstra never settles 1 to answer.
    fn dear_first_branch() -> Book {
        book(vec![
            toy(0, None, &[(-30, 1), (0, 2)]),
            toy(0, None, &[(0, 4)]),
            toy(0, None, &[(0, 3), (0, 4)]),
            toy(0, Some(0), &[]),
            toy(0, Some(0), &[]),
        ])
    }

    #[test]
    fn a_tie_goes_to_the_walks_first_arrival_down_a_dear_branch() {
        let book = dear_first_branch();
        assert_eq!(plain(&least(&book, 0, ErrorWeight::ONE, |_| false, 1)), [(4, 2.0, 3.0)]);
        assert!(!book.settled.borrow().contains(&1), "1 was never settled");
        assert_eq!(plain(&frontier(&book, 0, ErrorWeight::ONE)), [(4, 2.0, 3.0), (3, 2.0, 3.0)]);
        assert_eq!(plain(&least(&book, 0, ErrorWeight::ONE, |p| p == 4, 1)), [(3, 2.0, 3.0)]);
    }

    #[test]
    fn ties_of_priority_go_to_the_smaller_d() {
        // 1: D 1, leaf 2 below its value: priority 4. 2: D 3, no error: 4.
        let book = book(vec![
            toy(0, None, &[(0, 1)]),
            toy(0, Some(-2), &[(0, 3)]),
            toy(0, Some(0), &[]),
            toy(0, None, &[(0, 2)]),
        ]);
        assert_eq!(plain(&frontier(&book, 0, ErrorWeight::ONE)), [(1, 1.0, 4.0), (2, 3.0, 4.0)]);
        assert_eq!(plain(&least(&book, 0, ErrorWeight::ONE, |_| false, 1)), [(1, 1.0, 4.0)]);
    }

    #[test]
    fn half_a_disc_of_weight_ties_exactly() {
        // W = 0.5: three plies without error, or two plies and two discs.
        let book = book(vec![
            toy(0, None, &[(0, 1), (-2, 2)]),
            toy(0, None, &[(0, 3)]),
            toy(0, Some(0), &[]),
            toy(0, Some(0), &[]),
        ]);
        let found = frontier(&book, 0, weight(0.5));
        assert_eq!(plain(&found), [(3, 2.0, 3.0), (2, 2.0, 3.0)]);
        assert_eq!(found[0].priority, found[1].priority);
    }

    #[test]
    fn least_settles_no_more_than_it_needs() {
        // The start's leaf is the answer; a long cheap-looking chain lies
        // behind a link with an error of 10.
        let mut toys = vec![toy(0, Some(0), &[(-10, 1)])];
        toys.extend((1..1000).map(|p| toy(0, Some(0), &[(0, p + 1)])));
        toys.push(toy(0, Some(0), &[]));
        let book = book(toys);
        assert_eq!(plain(&least(&book, 0, ErrorWeight::ONE, |_| false, 1)), [(0, 0.0, 1.0)]);
        assert_eq!(*book.settled.borrow(), [0], "only the start was settled");
        assert!(!any_at_most(&book, 0, ErrorWeight::ONE, 0.5));
        assert!(any_at_most(&book, 0, ErrorWeight::ONE, 1.0));
        assert_eq!(frontier(&book, 0, ErrorWeight::ONE).len(), 1001);
    }

    #[test]
    fn a_start_not_entered_has_no_frontier() {
        let mut book = dear_first_branch();
        book.toys[0].entered = false;
        assert!(frontier(&book, 0, ErrorWeight::ONE).is_empty());
        assert!(least(&book, 0, ErrorWeight::ONE, |_| false, 3).is_empty());
        assert!(!any_at_most(&book, 0, ErrorWeight::ONE, 1e9));
    }

    #[test]
    fn positions_not_entered_are_neither_walked_nor_frontier() {
        let mut book = dear_first_branch();
        book.toys[2].entered = false;
        // 3 is reached only through 2; 4 only through 1 now, at D 32.
        assert_eq!(plain(&frontier(&book, 0, ErrorWeight::ONE)), [(4, 32.0, 33.0)]);
    }

    #[test]
    fn a_score_above_the_value_costs_a_ply() {
        let book = book(vec![toy(0, Some(5), &[(3, 1)]), toy(0, Some(0), &[])]);
        assert_eq!(plain(&frontier(&book, 0, ErrorWeight::ONE)), [(0, 0.0, 1.0), (1, 1.0, 2.0)]);
    }

    #[test]
    fn weights_are_held_exactly_within_their_range() {
        assert_eq!(ErrorWeight::new(1.0), Ok(ErrorWeight::ONE));
        assert_eq!(ErrorWeight::default(), ErrorWeight::ONE);
        for w in [0.0, 0.1, 0.3, 2.5, 1e-3, 2f64.powi(-12), ErrorWeight::MAX] {
            assert_eq!(weight(w).get(), w);
        }
        for w in [-0.5, f64::NAN, f64::INFINITY, ErrorWeight::MAX * 2.0] {
            assert!(ErrorWeight::new(w).is_err(), "{w}");
        }
        assert_eq!(
            ErrorWeight::new(-1.0).unwrap_err().to_string(),
            "error_weight must be a number from 0 to 1048576, not -1"
        );
    }

    #[test]
    fn costs_compare_exactly() {
        // Ten discs at the f64 0.1 are a little more than one ply, as the
        // f64 0.1 is a little more than a tenth.
        let tenth = weight(0.1);
        assert!(tenth.step(10, 0) > Cost::whole(2));
        assert_eq!(tenth.step(3, 3), Cost::whole(1));
        assert!(Cost::whole(3).at_most(3.0) && !Cost::whole(3).at_most(2.999_999_999));
        assert!(Cost::ZERO.at_most(0.0) && !Cost::ZERO.at_most(-0.1) && !Cost::ZERO.at_most(f64::NAN));
        assert!(Cost(u128::MAX).at_most(f64::INFINITY));
        // 1 + 0.1·3 exceeds 1.3 as real numbers, and is within the f64 1.3.
        let cost = tenth.step(3, 0);
        assert!(cost.at_most(1.3) && !cost.at_most(1.3 - 1e-15));
        assert_eq!(Cost::whole(41).to_string(), "41");
        assert_eq!(weight(0.5).step(1, 0).to_string(), "1.5");
    }
}
