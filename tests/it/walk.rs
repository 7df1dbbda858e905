//! The walk on books made by hand: every edge once, one arrival per edge whose
//! child is stored, transpositions arrived at once per edge, passes followed.

use bookminer::board::{Board, Move, Square};
use bookminer::book::{Book, Link, Score};
use bookminer::book::{Destination, RecordId};
use bookminer::format::edax::entries::{encode, Entry};
use bookminer::symmetry::normalize;
use bookminer::walk::{walk, Arrival, Departure, Start, StartMissing, Visitor, WalkError, Walkable};
use std::convert::Infallible;

use crate::common;
use common::book_from_lines;

/// Parses "F5D6" or "F5PSD6" into moves.
fn line(text: &str) -> Vec<Move> {
    bookminer::kifu::parse_moves(text).unwrap()
}

/// The first line (lowest squares first) that reaches a forced pass, then the
/// pass and the reply.
fn line_through_a_pass() -> Vec<Move> {
    fn search(board: Board, depth: u32, path: &mut Vec<Move>) -> bool {
        if board.must_pass() {
            let reply = Square::iter(board.swapped().legal_moves()).next().unwrap();
            path.extend([Move::Pass, Move::Play(reply)]);
            return true;
        }
        depth > 0
            && Square::iter(board.legal_moves()).any(|s| {
                path.push(Move::Play(s));
                search(board.after(Move::Play(s)).unwrap(), depth - 1, path) || {
                    path.pop();
                    false
                }
            })
    }
    let mut path = Vec::new();
    assert!(search(Board::INITIAL, 9, &mut path));
    path
}

/// Records every arrival: the line, and the child record's offset.
#[derive(Default)]
struct Recorder {
    arrivals: Vec<(Vec<Move>, Board)>,
}

impl Visitor for Recorder {
    type Error = Infallible;
    fn arrive(&mut self, a: &Arrival<'_>) -> Result<(), Infallible> {
        self.arrivals.push((a.line.to_vec(), a.child.board()));
        Ok(())
    }
}

fn replay(line: &[Move]) -> Board {
    line.iter().fold(Board::INITIAL, |b, &mv| b.after(mv).expect("arrival lines are legal"))
}

/// Edges of the book whose child is stored: what the walk must arrive by.
fn stored_edges(entries: &[Entry]) -> usize {
    let stored: std::collections::HashSet<Board> = entries.iter().map(|e| e.board).collect();
    entries
        .iter()
        .flat_map(|e| e.links.iter().chain(e.leaf.iter()).map(move |l| e.board.after(l.mv).unwrap()))
        .filter(|child| stored.contains(&normalize(child).board))
        .count()
}

#[test]
fn every_edge_is_followed_once_through_transpositions_and_passes() {
    // F5D6C3D3C4 and F5D6C4D3C3 reach the same position; E6 and D3 openings
    // are symmetric to F5 and reach stored positions through other coordinates.
    let mut lines = vec![line("F5D6C3D3C4"), line("F5D6C4D3C3"), line("E6F4E3F6"), line("D3C5F6"), line("F5F6E6F4")];
    lines.push(line_through_a_pass());
    let entries = book_from_lines(&lines);
    let n_moves: usize = entries.iter().map(|e| e.links.len() + usize::from(e.leaf.is_some())).sum();
    let book = Book::from_bytes("hand-made", encode(&entries, 1)).unwrap();

    let (stats, recorder) = walk(&Walkable::new(book, &Start::initial()).unwrap(), Recorder::default()).unwrap();

    assert_eq!(stats.edges as usize, n_moves, "every stored move is followed exactly once");
    assert_eq!(stats.arrivals as usize, stored_edges(&entries));
    assert_eq!(recorder.arrivals.len(), stats.arrivals as usize);
    assert_eq!(stats.positions as usize, entries.len(), "every position is stood on");
    for (line, child) in &recorder.arrivals {
        assert_eq!(normalize(&replay(line)).board, *child, "the line reaches the child it reports");
    }
    let transposed = normalize(&replay(&line("F5D6C3D3C4"))).board;
    assert_eq!(recorder.arrivals.iter().filter(|(_, c)| *c == transposed).count(), 2, "one arrival per edge");
    assert!(recorder.arrivals.iter().any(|(l, _)| l.contains(&Move::Pass)), "the pass link is followed");
}

#[test]
fn symmetric_root_links_arrive_at_one_child_four_times() {
    let entries = book_from_lines(&[line("F5"), line("E6"), line("D3"), line("C4")]);
    assert_eq!(entries.len(), 2, "the four openings are one stored child");
    assert_eq!(entries[0].links.len(), 4);
    let book = Book::from_bytes("root", encode(&entries, 1)).unwrap();
    let (stats, recorder) = walk(&Walkable::new(book, &Start::initial()).unwrap(), Recorder::default()).unwrap();
    assert_eq!(stats.arrivals, 4);
    let first_moves: Vec<String> = recorder.arrivals.iter().map(|(l, _)| l[0].to_string()).collect();
    let mut sorted = first_moves.clone();
    sorted.sort();
    assert_eq!(sorted, ["C4", "D3", "E6", "F5"], "each arrival keeps its own actual move");
    // The child's leaf is followed once, from the first arrival only.
    assert_eq!(stats.edges, 5);
}

#[test]
fn a_walk_below_a_start_line_and_a_missing_start() {
    let entries = book_from_lines(&[line("F5D6C3D3C4"), line("F5F6E6F4")]);
    let book = || Book::from_bytes("start", encode(&entries, 1)).unwrap();
    let (board, moves) = bookminer::kifu::parse_and_play("f5d6").unwrap();
    let walkable = Walkable::new(book(), &Start { board, line: moves }).unwrap();
    let (stats, recorder) = walk(&walkable, Recorder::default()).unwrap();
    assert_eq!(stats.arrivals, 3);
    assert!(recorder.arrivals.iter().all(|(l, _)| l.starts_with(&line("F5D6"))));

    let (board, moves) = bookminer::kifu::parse_and_play("f5f4").unwrap();
    match Walkable::new(book(), &Start { board, line: moves }) {
        Err(StartMissing { line, .. }) => assert_eq!(line, self::line("F5F4")),
        Ok(_) => panic!("expected a missing start"),
    }
}

#[test]
fn an_illegal_stored_move_stops_the_walk_with_its_record() {
    let mut entries = book_from_lines(&[line("F5D6")]);
    entries[0].links.push(Link::new(Score::new(0), Move::Play(Square::parse("A1").unwrap())));
    let book = Book::from_bytes("illegal", encode(&entries, 1)).unwrap();
    match walk(&Walkable::new(book, &Start::initial()).unwrap(), Recorder::default()) {
        Err(e @ WalkError::IllegalMove { .. }) => {
            let text = e.to_string();
            assert!(text.contains("record 1 at byte 42") && text.contains("A1"), "{text}");
        }
        other => panic!("expected an illegal move, got {:?}", other.map(|(s, _)| s)),
    }
}

/// Checks every arrival against what it must be by definition: its line,
/// replayed, reaches its board, whose normalized form is the child's stored
/// board, and its symmetry is the smallest that maps the stored board onto
/// the board (normalization's own answer, SPEC §2 step 4).
struct Reference {
    arrivals: u64,
    symmetric_children: u64,
}

impl Visitor for Reference {
    type Error = Infallible;
    fn arrive(&mut self, a: &Arrival<'_>) -> Result<(), Infallible> {
        let reached = replay(a.line);
        assert_eq!(reached, a.board(), "the line reaches the arrival's board");
        let normalized = normalize(&reached);
        assert_eq!(normalized.board, a.child.board(), "the board is the child's");
        assert_eq!(a.child_symmetry, normalized.to_original, "after {:?}", a.line);
        self.arrivals += 1;
        self.symmetric_children += u64::from(normalized.symmetric);
        Ok(())
    }
}

#[test]
fn every_arrival_s_board_and_symmetry_agree_with_normalizing_its_line_in_both_formats() {
    let mut synth = Vec::new();
    bookminer::synth::synthesize(
        &bookminer::synth::SynthOptions { positions: 20_000, seed: 3, perturb: 0.02 },
        &mut synth,
    )
    .unwrap();
    let books = [
        Book::open(&common::edax46(), &Default::default()).unwrap(),
        Book::open(&common::data("books/egbk3/edax46-l2-small.egbk3"), &Default::default()).unwrap(),
        Book::from_bytes("synth", synth).unwrap(),
    ];
    for book in books {
        let name = book.path().display().to_string();
        let reference = Reference { arrivals: 0, symmetric_children: 0 };
        let (stats, reference) = walk(&Walkable::new(book, &Start::initial()).unwrap(), reference).unwrap();
        assert_eq!(reference.arrivals, stats.arrivals, "{name}");
        // The first move leads to a symmetric child: the slow path is taken too.
        assert!(
            reference.symmetric_children >= 1 && reference.arrivals > 1000,
            "{name}: {} symmetric of {}",
            reference.symmetric_children,
            reference.arrivals
        );
    }
}

/// Records arrivals (parent, child, by leaf) and departures in order.
#[derive(Default)]
struct Order {
    events: Vec<Event>,
}

#[derive(Debug, PartialEq, Eq)]
enum Event {
    Arrive {
        parent: RecordId,
        child: RecordId,
        by_leaf: bool,
        first_time: bool,
    },
    /// A record left, and the records its links and leaf lead to.
    Leave {
        record: RecordId,
        links: Vec<Option<RecordId>>,
        leaf: Option<Option<RecordId>>,
    },
}

fn child_of(target: Destination) -> Option<RecordId> {
    match target {
        Destination::Child(at, _) => Some(at.id),
        _ => None,
    }
}

impl Visitor for Order {
    type Error = Infallible;
    fn arrive(&mut self, a: &Arrival<'_>) -> Result<(), Infallible> {
        let event = Event::Arrive { parent: a.parent, child: a.child.id, by_leaf: a.by_leaf, first_time: a.first_time };
        self.events.push(event);
        Ok(())
    }
    fn leave(&mut self, d: &Departure<'_>) -> Result<(), Infallible> {
        let links = d.links.iter().map(|c| child_of(c.target)).collect();
        self.events.push(Event::Leave { record: d.record, links, leaf: d.leaf.map(|c| child_of(c.target)) });
        Ok(())
    }
}

#[test]
fn every_position_is_left_once_after_everything_below_it() {
    let mut lines = vec![line("F5D6C3D3C4"), line("F5D6C4D3C3"), line("E6F4E3F6"), line("F5F6E6F4")];
    lines.push(line_through_a_pass());
    let mut entries = book_from_lines(&lines);
    // A leaf that leads into the book: F5D6's position stores C3 as its leaf.
    let after_f5d6 = normalize(&replay(&line("F5D6")));
    let c3 = after_f5d6.to_original.inverse().apply_move(line("C3")[0]);
    let at = entries.iter().position(|e| e.board == after_f5d6.board).unwrap();
    entries[at].links.retain(|l| l.mv != c3);
    entries[at].leaf = Some(Link::new(Score::new(1), c3));
    let book = Book::from_bytes("order", encode(&entries, 1)).unwrap();
    let (stats, order) = walk(&Walkable::new(book, &Start::initial()).unwrap(), Order::default()).unwrap();

    let left: Vec<RecordId> = order
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Leave { record, .. } => Some(*record),
            _ => None,
        })
        .collect();
    assert_eq!(left.len() as u64, stats.positions, "every position walked is left once");
    assert_eq!(left.last(), Some(&RecordId::new(0)), "the start is left last");
    let when_left = |id: RecordId| left.iter().position(|&r| r == id).unwrap();
    let mut by_leaf = 0;
    for (i, event) in order.events.iter().enumerate() {
        match event {
            Event::Leave { record, links, leaf } => {
                for child in links.iter().chain(leaf.iter()).flatten() {
                    assert!(when_left(*child) < when_left(*record), "{child:?} is left before its parent {record:?}");
                }
                // Its moves are its record's: the links stored, then the leaf.
                let e = &entries[record.index()];
                assert_eq!(links.len(), e.links.len());
                assert_eq!(leaf.is_some(), e.leaf.is_some());
            }
            Event::Arrive { parent, child, by_leaf: leaf, first_time } => {
                let arrived_before =
                    order.events[..i].iter().any(|e| matches!(e, Event::Arrive { child: c, .. } if c == child));
                assert_eq!(*first_time, !arrived_before && *child != RecordId::new(0), "first arrival at {child:?}");
                // The parent is still being walked: it has not been left yet.
                let parent_left =
                    order.events[..i].iter().any(|e| matches!(e, Event::Leave { record, .. } if record == parent));
                assert!(!parent_left, "arrival at {child:?} from {parent:?} after leaving it");
                by_leaf += usize::from(*leaf);
            }
        }
    }
    assert_eq!(by_leaf, 1, "the one leaf into the book is reported as such");
}
