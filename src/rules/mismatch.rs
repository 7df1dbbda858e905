//! Mismatch records (docs/modes.md, the rules and the JSONL record): what the rules found at one arrival, as
//! data. The walk reports arrivals, [`crate::rules::modes`] judges them, this module
//! turns each line a verdict asks for into a [`Mismatch`], and the printers of
//! [`crate::output`] write records as text. Nothing here knows of text or files.

use crate::board::{Board, Move};
use crate::book::Score;
use crate::rules::modes::{fired, judge, ArrivalScores, Branch, Letters, Mode, Rules, Target};
use crate::symmetry::Symmetry;
use crate::walk::Arrival;
use smallvec::SmallVec;

/// One line a mode asks for, with everything the output formats say about it.
/// Moves and boards are in the walk's own coordinates; the printers orient them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch<'a> {
    /// The mode whose rule fired.
    pub mode: Mode,
    /// Which way the observed score missed the expected one.
    pub branch: Branch,
    /// The judged child, or one of its moves (links in stored order, then the leaf).
    pub target: Target,
    /// For a move target: the child's move the line ends with.
    pub mv: Option<Move>,
    /// For a move target: the child's stored score of that move.
    pub score: Option<Score>,
    /// P: the parent's score for the move that reached the child.
    pub p: Score,
    /// V, L, F, M of the judged child (docs/modes.md); L, F, M absent without links,
    /// leaf, or both.
    pub v: Score,
    /// L: the child's best link score.
    pub l: Option<Score>,
    /// F: the child's leaf score.
    pub f: Option<Score>,
    /// M: the child's best move score, links and leaf.
    pub m: Option<Score>,
    /// Empty squares of the judged child.
    pub empties: u32,
    /// Moves from the initial position to the end of the line, passes included.
    pub line: &'a [Move],
    /// The position at the end of the line; `player` is the side to move.
    pub board: Board,
}

/// One arrival as records are made from it, whatever the book it came from.
#[derive(Clone, Debug)]
pub struct ArrivalFacts<'a> {
    /// Moves from the initial position to the child, in the walk's coordinates.
    pub line: &'a [Move],
    /// The child on the walk's board.
    pub board: Board,
    /// The scores the rules read.
    pub scores: ArrivalScores<'a>,
    /// The child's stored moves, numbered as [`Target::Move`] numbers them:
    /// links in stored order, then the leaf.
    pub moves: &'a [Move],
    /// Maps the child's stored moves onto the walk's board.
    pub symmetry: Symmetry,
}

/// What judging one arrival finds, in order: for each mode whose rule fires,
/// the firing, then a record for every line the verdict asks for.
#[derive(Clone, Copy, Debug)]
pub enum Found<'r> {
    /// The rule of `modes[index]` fired on `branch` (counted even if it writes no line).
    Fired {
        /// The mode's place among those judged.
        index: usize,
        /// Which way.
        branch: Branch,
    },
    /// A line for `modes[index]`.
    Record {
        /// The mode's place among those judged.
        index: usize,
        /// The line's record.
        record: &'r Mismatch<'r>,
    },
}

/// Judges arrivals under a set of modes and makes their records, reusing its
/// buffers from one arrival to the next.
#[derive(Clone, Debug)]
pub struct Recorder {
    modes: Vec<Mode>,
    rules: Rules,
    scores: SmallVec<[Score; 32]>,
    moves: SmallVec<[Move; 32]>,
    line: Vec<Move>,
}

impl Recorder {
    /// A recorder judging under `modes` with `rules`.
    pub fn new(modes: &[Mode], rules: Rules) -> Recorder {
        Recorder { modes: modes.to_vec(), rules, scores: SmallVec::new(), moves: SmallVec::new(), line: Vec::new() }
    }

    /// The modes it judges under.
    pub fn modes(&self) -> &[Mode] {
        &self.modes
    }

    /// Judges one arrival of the walk; `each` sees what is found, and an
    /// error from it stops the judging and is returned.
    pub fn arrival<E>(&mut self, arrival: &Arrival<'_>, each: impl FnMut(Found<'_>) -> Result<(), E>) -> Result<(), E> {
        let Recorder { modes, rules, scores, moves, line } = self;
        with_facts(arrival, scores, moves, |facts| judge_facts(modes, rules, facts, line, each))
    }

    /// Whether the rule of any of the modes fires at this arrival of the
    /// walk. Where none does, judging it would find nothing: no record, no
    /// count.
    pub fn fires(&self, arrival: &Arrival<'_>) -> bool {
        let child = arrival.child;
        let best_link = child.links().map(|l| l.score).max();
        let leaf = child.leaf().map(|l| l.score);
        let letters = Letters::new(arrival.parent_score, arrival.via_pass, child.value(), best_link, leaf);
        self.modes.iter().any(|&mode| fired(mode, &self.rules, &letters).is_some())
    }

    /// Hands `use_facts` the facts of one arrival of the walk: what
    /// [`Recorder::arrival`] judges.
    pub fn arrival_facts<R>(&mut self, arrival: &Arrival<'_>, use_facts: impl FnOnce(&ArrivalFacts<'_>) -> R) -> R {
        with_facts(arrival, &mut self.scores, &mut self.moves, use_facts)
    }

    /// Judges an arrival described by its facts (a walk of another book than
    /// [`crate::Book`], such as the benchmark's baseline).
    pub fn facts<E>(
        &mut self,
        facts: &ArrivalFacts<'_>,
        each: impl FnMut(Found<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        judge_facts(&self.modes, &self.rules, facts, &mut self.line, each)
    }
}

/// The facts of an arrival, the child's link scores and moves gathered in
/// `scores` and `moves`, handed to `use_facts`.
fn with_facts<R>(
    arrival: &Arrival<'_>,
    scores: &mut SmallVec<[Score; 32]>,
    moves: &mut SmallVec<[Move; 32]>,
    use_facts: impl FnOnce(&ArrivalFacts<'_>) -> R,
) -> R {
    let child = &arrival.child;
    scores.clear();
    moves.clear();
    for link in child.links() {
        scores.push(link.score);
        moves.push(link.mv);
    }
    let leaf = child.leaf();
    moves.extend(leaf.map(|l| l.mv));
    let facts = ArrivalFacts {
        line: arrival.line,
        board: arrival.board(),
        scores: ArrivalScores {
            parent: arrival.parent_score,
            via_pass: arrival.via_pass,
            value: child.value(),
            links: scores,
            leaf: leaf.map(|l| l.score),
        },
        moves,
        symmetry: arrival.child_symmetry,
    };
    use_facts(&facts)
}

#[inline]
fn judge_facts<E>(
    modes: &[Mode],
    rules: &Rules,
    facts: &ArrivalFacts<'_>,
    line: &mut Vec<Move>,
    mut each: impl FnMut(Found<'_>) -> Result<(), E>,
) -> Result<(), E> {
    let scores = &facts.scores;
    let letters = scores.letters();
    for (index, &mode) in modes.iter().enumerate() {
        let Some(verdict) = judge(mode, rules, scores) else { continue };
        each(Found::Fired { index, branch: verdict.branch })?;
        for &target in &verdict.targets {
            line.clear();
            line.extend_from_slice(facts.line);
            let (mv, score, board) = match target {
                Target::Child => (None, None, facts.board),
                Target::Move(i) => {
                    let mv = facts.symmetry.apply_move(facts.moves[i]);
                    let score = scores.links.get(i).copied().or(scores.leaf);
                    line.push(mv);
                    // An illegal move fails the walk when it is followed, right
                    // after this arrival, so whatever board stands in is never kept.
                    (Some(mv), score, facts.board.after(mv).unwrap_or(facts.board))
                }
            };
            let record = Mismatch {
                mode,
                branch: verdict.branch,
                target,
                mv,
                score,
                p: scores.parent,
                v: scores.value,
                l: letters.best_link,
                f: scores.leaf,
                m: letters.best_move(),
                empties: facts.board.empties(),
                line: &line[..],
                board,
            };
            each(Found::Record { index, record: &record })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kifu::parse_and_play;
    use std::convert::Infallible;

    /// A record's mode, line, board and score.
    type Written = (Mode, Vec<Move>, Board, Option<Score>);

    fn found(modes: &[Mode], facts: &ArrivalFacts<'_>) -> (Vec<(usize, Branch)>, Vec<Written>) {
        let mut fired = Vec::new();
        let mut records = Vec::new();
        let mut recorder = Recorder::new(modes, Rules::default());
        recorder
            .facts(facts, |f| {
                match f {
                    Found::Fired { index, branch } => fired.push((index, branch)),
                    Found::Record { record, .. } => {
                        records.push((record.mode, record.line.to_vec(), record.board, record.score))
                    }
                }
                Ok::<(), Infallible>(())
            })
            .unwrap();
        (fired, records)
    }

    #[test]
    fn a_move_target_ends_the_line_with_the_move_and_the_board_after_it() {
        let (board, line) = parse_and_play("F5D6").unwrap();
        let links = [Score(1)];
        // stored moves are mapped by the symmetry: C3 as stored is C3 here
        let moves = [Move::Play(crate::Square::parse("C3").unwrap()), Move::Play(crate::Square::parse("C5").unwrap())];
        let facts = ArrivalFacts {
            line: &line,
            board,
            scores: ArrivalScores {
                parent: Score(0),
                via_pass: false,
                value: Score(1),
                links: &links,
                leaf: Some(Score(4)),
            },
            moves: &moves,
            symmetry: Symmetry::IDENTITY,
        };
        let (fired, records) = found(&[Mode::LeafVsLinks, Mode::ParentVsValue], &facts);
        assert_eq!(fired, vec![(0, Branch::Above), (1, Branch::Above)]);
        let (after, played) = parse_and_play("F5D6C5").unwrap();
        assert_eq!(records[0], (Mode::LeafVsLinks, played.clone(), after, Some(Score(4))));
        // mode 3: -P = 0 < V = 1, so every move over 0 is written: C3 (1) and the leaf C5 (4)
        assert_eq!(records.len(), 3);
        assert_eq!(records[2].1, played);
    }

    #[test]
    fn a_child_target_is_the_line_to_the_child() {
        let (board, line) = parse_and_play("F5").unwrap();
        let facts = ArrivalFacts {
            line: &line,
            board,
            scores: ArrivalScores { parent: Score(3), via_pass: false, value: Score(0), links: &[], leaf: None },
            moves: &[],
            symmetry: Symmetry::IDENTITY,
        };
        let (fired, records) = found(&[Mode::ValueVsBest, Mode::ParentVsValue], &facts);
        assert_eq!(fired, vec![(1, Branch::Above)]);
        assert!(records.is_empty(), "a child without moves has no move to write");
        let facts = ArrivalFacts { scores: ArrivalScores { parent: Score(-3), ..facts.scores }, ..facts };
        let (fired, records) = found(&[Mode::ParentVsValue], &facts);
        assert_eq!(fired, vec![(0, Branch::Below)]);
        assert_eq!(records, vec![(Mode::ParentVsValue, line, board, None)]);
    }

    /// Asks [`Recorder::fires`] at every arrival and checks it against what
    /// judging the arrival finds.
    struct Sieve {
        recorder: Recorder,
        judged: Recorder,
        firing: u64,
    }

    impl crate::walk::Visitor for Sieve {
        type Error = Infallible;
        fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Infallible> {
            let mut fired = false;
            self.judged.arrival(arrival, |found| {
                fired |= matches!(found, Found::Fired { .. });
                Ok::<(), Infallible>(())
            })?;
            assert_eq!(self.recorder.fires(arrival), fired, "{:?}", arrival.line);
            self.firing += u64::from(fired);
            Ok(())
        }
    }

    #[test]
    fn an_arrival_fires_exactly_when_judging_it_finds_a_rule_firing() {
        let synth = crate::synth::book_bytes(&crate::synth::SynthOptions { positions: 5000, seed: 3, perturb: 0.05 });
        let book = crate::book::Book::from_bytes("synth", synth).unwrap();
        let walkable = crate::walk::Walkable::new(book, &crate::walk::Start::initial()).unwrap();
        let all = Mode::ALL.map(|m| vec![m]);
        for modes in all.iter().map(Vec::as_slice).chain([&Mode::ALL[..], &[Mode::ParentVsValue, Mode::LeafVsLinks]]) {
            for rules in [Rules::default(), Rules { min_gap: 2, linkless: crate::rules::modes::Linkless::Report }] {
                let sieve =
                    Sieve { recorder: Recorder::new(modes, rules), judged: Recorder::new(modes, rules), firing: 0 };
                let (stats, sieve) = crate::walk::walk(&walkable, sieve).unwrap();
                assert!(sieve.firing > 0 && sieve.firing < stats.arrivals, "{modes:?} {rules:?}: {}", sieve.firing);
            }
        }
    }
}
