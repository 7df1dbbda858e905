//! The mismatches the mining rules (docs/modes.md) report at one position
//! of a report: the rules judged at the arrival by the report's line, and
//! at each of its links' children, so that a picture or the explorer can
//! mark the squares they are about. Nothing is decided here: the rules are
//! mining's own ([`judge`]), applied to the scores the book stores.

use super::line::stored_move;
use super::report::Report;
use crate::board::{Board, Move};
use crate::book::{Book, Record, Score};
use crate::kifu;
use crate::rules::modes::{judge, ArrivalScores, Branch, Letters, Mode, Rules, Target};
use crate::symmetry::normalize;
use smallvec::SmallVec;

/// Where a rule was judged, seen from the position reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judged {
    /// At the position itself, arrived at by its line's last move (modes 1
    /// and 2 need no arrival and are judged at any position).
    Here,
    /// At the child this move of the position leads to, arrived at from
    /// here: the move's score disagrees with what the child holds (modes 3
    /// and 4).
    Child(Move),
}

/// A rule that fires, and the moves of the position reported it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The mode whose rule fired.
    pub mode: Mode,
    /// Where it was judged.
    pub judged: Judged,
    /// Which way the observed score missed the expected one.
    pub branch: Branch,
    /// The observed score (mode 1: the leaf; 2 and 4: the best move; 3: the value).
    pub observed: Score,
    /// The expected score (mode 1: the best link; 2: the value; 3 and 4: minus the parent's score).
    pub expected: Score,
    /// The moves of the position reported that the rule's lines end with
    /// (on the position reported); for a rule judged at a child, the move
    /// to it. Empty when the line ends at the position itself.
    pub moves: SmallVec<[Move; 4]>,
}

/// Every rule that fires at the position `report` is about: modes 1 and 2
/// there, modes 3 and 4 at the arrival by its line's last move (when the
/// book holds the position before it), and modes 3 and 4 at each link's
/// child the book holds. Nothing for a position the book does not hold.
pub fn at_position(book: &Book, rules: &Rules, report: &Report) -> Vec<Mismatch> {
    let Some(found) = &report.found else { return Vec::new() };
    let record = &found.record;
    let actual: Vec<Move> = found.links().chain(found.leaf()).map(|t| t.actual).collect();
    let arrival = arrival(book, report);
    let mut out = Vec::new();
    for mode in Mode::ALL {
        let needs_parent = matches!(mode, Mode::ParentVsValue | Mode::ParentVsBest);
        let (parent, via_pass) = match (needs_parent, arrival) {
            (true, None) => continue,
            (_, Some(arrival)) => arrival,
            // Modes 1 and 2 do not read the parent's score.
            (false, None) => (Score::new(0), false),
        };
        if let Some(found) = judged(mode, rules, record, parent, via_pass) {
            let moves = found.1.iter().filter_map(|t| move_of(t, &actual)).collect();
            out.push(Mismatch { mode, judged: Judged::Here, moves, ..found.0 });
        }
    }
    for turned in found.links() {
        let Some((child, via_pass)) = child(book, &report.position.board, turned.actual, turned.stored.then_pass)
        else {
            continue;
        };
        for mode in [Mode::ParentVsValue, Mode::ParentVsBest] {
            if let Some((mismatch, _)) = judged(mode, rules, &child, turned.stored.score, via_pass) {
                let moves = SmallVec::from_elem(turned.actual, 1);
                out.push(Mismatch { judged: Judged::Child(turned.actual), moves, ..mismatch });
            }
        }
    }
    out
}

/// The move a target names among the record's moves (links, then the leaf).
fn move_of(target: &Target, actual: &[Move]) -> Option<Move> {
    match target {
        Target::Child => None,
        Target::Move(i) => actual.get(*i).copied(),
    }
}

/// `mode` judged at `record` arrived at with the parent's score `parent`:
/// the mismatch (its moves left to the caller) and the rule's targets.
fn judged(
    mode: Mode,
    rules: &Rules,
    record: &Record,
    parent: Score,
    via_pass: bool,
) -> Option<(Mismatch, SmallVec<[Target; 4]>)> {
    let links: SmallVec<[Score; 16]> = record.links().map(|l| l.score).collect();
    let leaf = record.leaf().map(|l| l.score);
    let scores = ArrivalScores { parent, via_pass, value: record.value(), links: &links, leaf };
    let verdict = judge(mode, rules, &scores)?;
    let (observed, expected) = compared(mode, &scores.letters())?;
    let mismatch =
        Mismatch { mode, judged: Judged::Here, branch: verdict.branch, observed, expected, moves: SmallVec::new() };
    Some((mismatch, verdict.targets))
}

/// The two scores a mode compares (docs/modes.md, the four rules):
/// observed, then expected.
fn compared(mode: Mode, letters: &Letters) -> Option<(Score, Score)> {
    match mode {
        Mode::LeafVsLinks => Some((letters.leaf?, letters.best_link?)),
        Mode::ValueVsBest => Some((letters.best_move()?, letters.value)),
        Mode::ParentVsValue => Some((letters.value, letters.parent_expects)),
        Mode::ParentVsBest => Some((letters.best_move()?, letters.parent_expects)),
    }
}

/// The parent's score for the move that reached the position by its line:
/// from the record of the position the line's last square was played on,
/// when the book holds it and stores that move. (After a pass, that is
/// the position after the pass, as an Egaroucid book stores it.)
fn arrival(book: &Book, report: &Report) -> Option<(Score, bool)> {
    let line = report.position.line.as_ref()?;
    let replay = kifu::replay(line);
    let last = replay.steps.iter().rposition(|m| matches!(m, Move::Play(_)))?;
    let (_, _, link) = stored_move(book, &replay.boards[last], replay.steps[last])?;
    Some((link.score, link.then_pass))
}

/// The record of the child `mv` leads to from `board`, and whether a pass
/// comes between: the position after the move, or after the pass that
/// follows it when the link says so or the book holds only that one.
fn child(book: &Book, board: &Board, mv: Move, then_pass: bool) -> Option<(Record, bool)> {
    let after = board.after(mv)?;
    let find = |b: &Board| book.find(&normalize(b).board);
    match then_pass || (after.must_pass() && find(&after).is_none()) {
        true => Some((find(&after.swapped())?, true)),
        false => Some((find(&after)?, false)),
    }
}

impl std::fmt::Display for Mismatch {
    /// "mode 2: best move +3 above value +1 (F3 G4)", "mode 3 at F3's
    /// child: value +1 below minus F3's score -3".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (observed, expected) = match self.mode {
            Mode::LeafVsLinks => ("leaf", "the best link"),
            Mode::ValueVsBest => ("best move", "value"),
            Mode::ParentVsValue => ("value", "minus the parent's score"),
            Mode::ParentVsBest => ("best move", "minus the parent's score"),
        };
        let way = match self.branch {
            Branch::Above => "above",
            Branch::Below => "below",
        };
        match self.judged {
            Judged::Here => {
                write!(f, "{}: {observed} {} {way} {expected} {}", self.mode, self.observed, self.expected)?
            }
            Judged::Child(mv) => {
                let expected = expected.replace("the parent's", &format!("{mv}'s"));
                write!(
                    f,
                    "{} at {mv}'s child: {observed} {} {way} {expected} {}",
                    self.mode, self.observed, self.expected
                )?
            }
        }
        if self.judged == Judged::Here && !self.moves.is_empty() {
            let moves: Vec<String> = self.moves.iter().map(|m| m.to_string()).collect();
            write!(f, " ({})", moves.join(" "))?;
        }
        Ok(())
    }
}
