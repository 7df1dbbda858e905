//! Where a growth put its positions: for the boards a grown Edax book holds
//! that the book before did not, how deep below the start each lies (plies)
//! and how much error the cheapest line of links to it makes (discs: D at
//! W = 1 less its depth, docs/grow.md), as two histograms. Used to compare
//! `extend --max-positions N` with `grow --max-positions N`
//! (docs/benchmarks.md).
//!
//!     cargo run --release --example growth_profile -- BEFORE.dat GROWN.dat START_LINE [MIN_EMPTIES]
//!
//! GROWN must be negamaxed (both commands write it so).

use bookminer::board::Board;
use bookminer::book::Book;
use bookminer::growth::priority::{distances, ErrorWeight, LinkGraph};
use bookminer::symmetry::normalize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// A book's records and links, in memory.
struct Graph {
    boards: Vec<Board>,
    values: Vec<i32>,
    links: Vec<Vec<(i32, usize)>>,
    ids: HashMap<Board, usize>,
    min_empties: u32,
}

impl Graph {
    fn read(path: &Path, min_empties: u32) -> Graph {
        let book = Book::open(path, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
        let boards: Vec<Board> = book.records().map(|r| r.board()).collect();
        let values = book.records().map(|r| r.value().discs()).collect();
        let ids: HashMap<Board, usize> = boards.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let links = book
            .records()
            .map(|r| {
                let child = |mv| r.board().after(mv).and_then(|b| ids.get(&normalize(&b).board).copied());
                r.links().filter_map(|l| Some((l.score.discs(), child(l.mv)?))).collect()
            })
            .collect();
        Graph { boards, values, links, ids, min_empties }
    }
}

impl LinkGraph for Graph {
    type Node = usize;

    fn entered(&self, node: usize) -> bool {
        self.boards[node].empties() >= self.min_empties && !self.boards[node].is_game_over()
    }

    fn value(&self, node: usize) -> i32 {
        self.values[node]
    }

    fn leaf(&self, _: usize) -> Option<i32> {
        None
    }

    fn links(&self, node: usize, out: &mut Vec<(i32, usize)>) {
        out.extend_from_slice(&self.links[node]);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [before, grown, line, rest @ ..] = args.as_slice() else {
        eprintln!("usage: growth_profile BEFORE.dat GROWN.dat START_LINE [MIN_EMPTIES]");
        std::process::exit(2);
    };
    let min_empties = rest.first().map_or(0, |m| m.parse().expect("MIN_EMPTIES: a number"));
    let old: HashSet<Board> = Graph::read(Path::new(before), 0).boards.into_iter().collect();
    let graph = Graph::read(Path::new(grown), min_empties);
    let (start, _) = bookminer::kifu::parse_and_play(line).expect("START_LINE: a line of moves");
    let start_empties = start.empties();
    let root = graph.ids[&normalize(&start).board];
    let d = distances(&graph, root, ErrorWeight::ONE);
    let (mut depths, mut errors) = (BTreeMap::new(), BTreeMap::new());
    let (mut added, mut unreached) = (0, 0);
    for (id, board) in graph.boards.iter().enumerate().filter(|(_, b)| !old.contains(b)) {
        added += 1;
        // An added position is not entered when it has too few empty
        // squares: its D is its parent's plus the step to it.
        let Some(cost) = d.get(&id).copied().or_else(|| {
            let parents = graph.links.iter().enumerate().filter(|(_, l)| l.iter().any(|&(_, c)| c == id));
            parents
                .filter_map(|(p, l)| {
                    let score = l.iter().find(|&&(_, c)| c == id)?.0;
                    Some(d.get(&p)?.to_f64() + 1.0 + f64::from((graph.values[p] - score).max(0)))
                })
                .min_by(f64::total_cmp)
                .map(|c| bookminer::growth::priority::Cost::whole(c as u64))
        }) else {
            unreached += 1;
            continue;
        };
        let depth = start_empties - board.empties();
        *depths.entry(depth).or_insert(0) += 1;
        *errors.entry((cost.to_f64() - f64::from(depth)).round() as i64).or_insert(0) += 1;
    }
    println!("positions added: {added} ({unreached} not reached over links from the start)");
    println!("depth below the start (plies): {depths:?}");
    println!("error along the cheapest line (discs): {errors:?}");
}
