//! The mismatch rules of docs/modes.md, as pure functions of one arrival.

use crate::book::Score;
use crate::choice::Choice;
use smallvec::SmallVec;
use std::fmt;

/// A mismatch mode (1–4): what is compared with what at each arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// 1: the child's leaf against its best link.
    LeafVsLinks,
    /// 2: the child's value against its best move.
    ValueVsBest,
    /// 3: the parent's score for the move against the child's value.
    ParentVsValue,
    /// 4: the parent's score for the move against the child's best move.
    ParentVsBest,
}

impl Mode {
    /// Every mode, by number.
    pub const ALL: [Mode; 4] = [Mode::LeafVsLinks, Mode::ValueVsBest, Mode::ParentVsValue, Mode::ParentVsBest];

    /// Its number, 1 to 4.
    pub fn number(self) -> u8 {
        match self {
            Mode::LeafVsLinks => 1,
            Mode::ValueVsBest => 2,
            Mode::ParentVsValue => 3,
            Mode::ParentVsBest => 4,
        }
    }

    /// The mode numbered `n`, if there is one.
    pub fn from_number(n: u8) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.number() == n)
    }

    /// The letters of docs/modes.md for (observed, expected): F leaf, L best link,
    /// M best move, V value, -P minus the parent's score for the move.
    pub fn letters(self) -> (&'static str, &'static str) {
        match self {
            Mode::LeafVsLinks => ("F", "L"),
            Mode::ValueVsBest => ("M", "V"),
            Mode::ParentVsValue => ("V", "-P"),
            Mode::ParentVsBest => ("M", "-P"),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mode {}", self.number())
    }
}

/// What mode 1 does with a child that has a leaf but no links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Linkless {
    #[default]
    /// Write no line for it.
    Skip,
    /// Write the line to its leaf (docs/modes.md, when a rule applies).
    Report,
}

impl Choice for Linkless {
    const ALL: &'static [Linkless] = &[Linkless::Skip, Linkless::Report];

    fn name(self) -> &'static str {
        match self {
            Linkless::Skip => "skip",
            Linkless::Report => "report",
        }
    }
}

/// Settings shared by the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// How far apart two scores must be to differ (docs/modes.md); at least 1.
    pub min_gap: i32,
    /// What mode 1 does with a child that has a leaf but no links.
    pub linkless: Linkless,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules { min_gap: 1, linkless: Linkless::Skip }
    }
}

/// What the rules read of one arrival: the parent's score for the move, and
/// the child's value, link scores (stored order) and leaf score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrivalScores<'a> {
    /// P: the parent's score for the move that reached the child.
    pub parent: Score,
    /// A pass followed the parent's move, so the child's side to move is the
    /// parent's and expects `P`, not `−P` (docs/formats.md, Egaroucid books).
    pub via_pass: bool,
    /// V: the child's value.
    pub value: Score,
    /// The child's link scores, in stored order.
    pub links: &'a [Score],
    /// F: the child's leaf score.
    pub leaf: Option<Score>,
}

impl ArrivalScores<'_> {
    /// Links in stored order, then the leaf, each with its position in that order.
    fn moves(&self) -> impl Iterator<Item = (usize, Score)> + '_ {
        self.links.iter().copied().chain(self.leaf).enumerate()
    }

    fn leaf_index(&self) -> usize {
        self.links.len()
    }

    /// The scores the rules compare.
    pub fn letters(&self) -> Letters {
        Letters::new(self.parent, self.via_pass, self.value, self.links.iter().copied().max(), self.leaf)
    }
}

/// The scores docs/modes.md names at one arrival, all a rule needs to decide
/// whether it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Letters {
    /// What the parent's score for the move says the child is worth to its
    /// side to move: `−P`, or `P` through a pass (docs/formats.md, Egaroucid books).
    pub parent_expects: Score,
    /// V: the child's value.
    pub value: Score,
    /// L: the child's best link score.
    pub best_link: Option<Score>,
    /// F: the child's leaf score.
    pub leaf: Option<Score>,
}

impl Letters {
    /// The letters of an arrival; `via_pass` as in [`ArrivalScores`].
    pub fn new(parent: Score, via_pass: bool, value: Score, best_link: Option<Score>, leaf: Option<Score>) -> Letters {
        let parent_expects = if via_pass { parent } else { Score(-parent.0) };
        Letters { parent_expects, value, best_link, leaf }
    }

    /// M: the child's best move, links and leaf.
    pub fn best_move(&self) -> Option<Score> {
        // `None` orders below every score.
        self.best_link.max(self.leaf)
    }
}

/// Which way the observed score missed the expected one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Branch {
    /// observed > expected
    Above,
    /// observed < expected
    Below,
}

/// A line to write: to the child itself, or to one of the child's moves,
/// numbered in walk order (links, then the leaf).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The child itself.
    Child,
    /// The child's move of this number.
    Move(usize),
}

/// A fired rule and the lines it writes (possibly none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Which way the observed score missed the expected one.
    pub branch: Branch,
    /// The lines it writes.
    pub targets: SmallVec<[Target; 4]>,
}

/// Which way a mode's rule fires at an arrival with these scores, if it
/// does: what [`judge`] decides, without the lines it writes (docs/modes.md).
#[inline]
pub fn fired(mode: Mode, rules: &Rules, a: &Letters) -> Option<Branch> {
    match mode {
        Mode::LeafVsLinks => leaf_fires(rules, a).then_some(Branch::Above),
        // A child with neither links nor leaf has no best move: skipped.
        Mode::ValueVsBest => compare(rules, a.value, a.best_move()?),
        Mode::ParentVsValue => compare(rules, a.parent_expects, a.value),
        Mode::ParentVsBest => compare(rules, a.parent_expects, a.best_move()?),
    }
}

/// Applies a mode's rule to one arrival; `None` when nothing fires.
pub fn judge(mode: Mode, rules: &Rules, a: &ArrivalScores<'_>) -> Option<Verdict> {
    let letters = a.letters();
    let branch = fired(mode, rules, &letters)?;
    let targets = match (mode, branch) {
        (Mode::LeafVsLinks, _) => SmallVec::from_elem(Target::Move(a.leaf_index()), 1),
        (_, Branch::Below) => SmallVec::from_elem(Target::Child, 1),
        (_, Branch::Above) => {
            let expected = match mode {
                Mode::ValueVsBest => letters.value,
                _ => letters.parent_expects,
            };
            a.moves().filter(|&(_, s)| s.0 - expected.0 >= rules.min_gap).map(|(i, _)| Target::Move(i)).collect()
        }
    };
    Some(Verdict { branch, targets })
}

/// Mode 1: the leaf beats the best link by at least the gap (or, with
/// `Linkless::Report`, there is a leaf and no link).
#[inline]
fn leaf_fires(rules: &Rules, a: &Letters) -> bool {
    let Some(leaf) = a.leaf else { return false };
    match a.best_link {
        Some(best) => leaf.0 - best.0 >= rules.min_gap,
        None => rules.linkless == Linkless::Report,
    }
}

/// Modes 2–4: which way `observed` misses `expected` by at least the gap.
#[inline]
fn compare(rules: &Rules, expected: Score, observed: Score) -> Option<Branch> {
    let gap = rules.min_gap;
    if observed.0 - expected.0 >= gap {
        Some(Branch::Above)
    } else if expected.0 - observed.0 >= gap {
        Some(Branch::Below)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(links: &[i32]) -> Vec<Score> {
        links.iter().map(|&s| Score(s)).collect()
    }

    fn arrival<'a>(parent: i32, value: i32, links: &'a [Score], leaf: Option<i32>) -> ArrivalScores<'a> {
        ArrivalScores { parent: Score(parent), via_pass: false, value: Score(value), links, leaf: leaf.map(Score) }
    }

    fn moves(indices: &[usize]) -> SmallVec<[Target; 4]> {
        indices.iter().map(|&i| Target::Move(i)).collect()
    }

    const GAP1: Rules = Rules { min_gap: 1, linkless: Linkless::Skip };

    #[test]
    fn mode1_fires_when_the_leaf_beats_every_link() {
        let links = scores(&[2, 4]);
        let v = judge(Mode::LeafVsLinks, &GAP1, &arrival(0, 4, &links, Some(5))).unwrap();
        assert_eq!(v, Verdict { branch: Branch::Above, targets: moves(&[2]) });
        assert_eq!(judge(Mode::LeafVsLinks, &GAP1, &arrival(0, 4, &links, Some(4))), None);
        assert_eq!(judge(Mode::LeafVsLinks, &GAP1, &arrival(0, 4, &links, None)), None);
    }

    #[test]
    fn mode1_linkless_children_are_skipped_unless_reported() {
        let none: Vec<Score> = vec![];
        assert_eq!(judge(Mode::LeafVsLinks, &GAP1, &arrival(0, 3, &none, Some(3))), None);
        let report = Rules { linkless: Linkless::Report, ..GAP1 };
        let v = judge(Mode::LeafVsLinks, &report, &arrival(0, 3, &none, Some(-7))).unwrap();
        assert_eq!(v.targets, moves(&[0]));
        assert_eq!(judge(Mode::LeafVsLinks, &report, &arrival(0, 3, &none, None)), None);
    }

    #[test]
    fn mode2_above_writes_every_move_over_the_value() {
        let links = scores(&[6, 1, 8]);
        let v = judge(Mode::ValueVsBest, &GAP1, &arrival(0, 5, &links, Some(7))).unwrap();
        assert_eq!(v, Verdict { branch: Branch::Above, targets: moves(&[0, 2, 3]) });
    }

    #[test]
    fn mode2_below_writes_the_child_and_skips_empty_children() {
        let links = scores(&[2]);
        let v = judge(Mode::ValueVsBest, &GAP1, &arrival(0, 5, &links, Some(3))).unwrap();
        assert_eq!(v, Verdict { branch: Branch::Below, targets: SmallVec::from_elem(Target::Child, 1) });
        assert_eq!(judge(Mode::ValueVsBest, &GAP1, &arrival(0, 5, &[], None)), None);
        assert_eq!(judge(Mode::ValueVsBest, &GAP1, &arrival(0, 5, &links, Some(5))), None);
    }

    #[test]
    fn mode3_compares_the_value_with_minus_the_parent_score() {
        let links = scores(&[-2, 3]);
        // parent says +2, so the child should be worth -2 to its mover; it is worth 3
        let v = judge(Mode::ParentVsValue, &GAP1, &arrival(2, 3, &links, Some(-1))).unwrap();
        assert_eq!(v, Verdict { branch: Branch::Above, targets: moves(&[1, 2]) });
        let v = judge(Mode::ParentVsValue, &GAP1, &arrival(2, -5, &links, None)).unwrap();
        assert_eq!(v.branch, Branch::Below);
        assert_eq!(v.targets.as_slice(), &[Target::Child]);
        assert_eq!(judge(Mode::ParentVsValue, &GAP1, &arrival(2, -2, &links, None)), None);
        // a child with no moves is still judged in mode 3
        assert!(judge(Mode::ParentVsValue, &GAP1, &arrival(2, -9, &[], None)).is_some());
    }

    #[test]
    fn mode4_compares_the_best_move_with_minus_the_parent_score() {
        let links = scores(&[0]);
        let v = judge(Mode::ParentVsBest, &GAP1, &arrival(-3, 9, &links, Some(4))).unwrap();
        assert_eq!(v, Verdict { branch: Branch::Above, targets: moves(&[1]) });
        let v = judge(Mode::ParentVsBest, &GAP1, &arrival(-3, 9, &links, Some(-4))).unwrap();
        assert_eq!(v.branch, Branch::Below);
        assert_eq!(judge(Mode::ParentVsBest, &GAP1, &arrival(3, 9, &[], None)), None);
    }

    #[test]
    fn through_a_pass_the_parent_score_is_the_child_side_s_own() {
        // The child's side to move made the parent's move: P = +3 says the
        // child is worth +3 to it, so a value of +3 agrees and -5 is below.
        let links = scores(&[3]);
        let through = |value| ArrivalScores { via_pass: true, ..arrival(3, value, &links, None) };
        assert_eq!(judge(Mode::ParentVsValue, &GAP1, &through(3)), None);
        assert_eq!(judge(Mode::ParentVsValue, &GAP1, &through(-5)).unwrap().branch, Branch::Below);
        assert_eq!(judge(Mode::ParentVsBest, &GAP1, &through(3)), None);
        assert_eq!(judge(Mode::ParentVsValue, &GAP1, &arrival(3, 3, &links, None)).unwrap().branch, Branch::Above);
    }

    #[test]
    fn min_gap_widens_what_counts_as_equal() {
        let gap3 = Rules { min_gap: 3, ..GAP1 };
        let links = scores(&[1, 3]);
        assert_eq!(judge(Mode::ParentVsBest, &gap3, &arrival(-1, 0, &links, None)), None);
        let v = judge(Mode::ParentVsBest, &gap3, &arrival(0, 0, &links, None)).unwrap();
        assert_eq!(v.targets, moves(&[1]));
        assert_eq!(judge(Mode::LeafVsLinks, &gap3, &arrival(0, 0, &links, Some(5))), None);
        assert!(judge(Mode::LeafVsLinks, &gap3, &arrival(0, 0, &links, Some(6))).is_some());
        assert!(judge(Mode::ValueVsBest, &gap3, &arrival(0, 6, &links, None)).is_some());
        assert_eq!(judge(Mode::ValueVsBest, &gap3, &arrival(0, 5, &links, None)), None);
    }

    /// docs/modes.md's table read literally, letter by letter: the reference
    /// [`fired`] and [`judge`] are checked against.
    fn spec_verdict(mode: Mode, rules: &Rules, a: &ArrivalScores<'_>) -> Option<Verdict> {
        let l = a.links.iter().map(|s| s.0).max();
        let f = a.leaf.map(|s| s.0);
        let m = match (l, f) {
            (Some(l), Some(f)) => Some(l.max(f)),
            (l, f) => l.or(f),
        };
        let (v, minus_p) = (a.value.0, if a.via_pass { a.parent.0 } else { -a.parent.0 });
        let every_move: Vec<i32> = a.links.iter().map(|s| s.0).chain(f).collect();
        let gap = rules.min_gap;
        if mode == Mode::LeafVsLinks {
            let fires = match (f, l) {
                (Some(f), Some(l)) => f - l >= gap,
                (Some(_), None) => rules.linkless == Linkless::Report,
                (None, _) => false,
            };
            let leaf = Target::Move(a.links.len());
            return fires.then(|| Verdict { branch: Branch::Above, targets: SmallVec::from_elem(leaf, 1) });
        }
        let (expected, observed) = match mode {
            Mode::ValueVsBest => (v, m?),
            Mode::ParentVsValue => (minus_p, v),
            _ => (minus_p, m?),
        };
        if observed - expected >= gap {
            let targets = (0..every_move.len()).filter(|&i| every_move[i] - expected >= gap).map(Target::Move);
            Some(Verdict { branch: Branch::Above, targets: targets.collect() })
        } else if expected - observed >= gap {
            Some(Verdict { branch: Branch::Below, targets: SmallVec::from_elem(Target::Child, 1) })
        } else {
            None
        }
    }

    #[test]
    fn every_small_arrival_is_judged_as_the_spec_s_table_says() {
        let range = -3..=3;
        // Every list of up to three link scores.
        let (mut link_sets, mut longest): (Vec<Vec<Score>>, Vec<Vec<Score>>) = (vec![vec![]], vec![vec![]]);
        for _ in 0..3 {
            longest = longest
                .iter()
                .flat_map(|set| range.clone().map(move |s| [set.as_slice(), &[Score(s)]].concat()))
                .collect();
            link_sets.extend(longest.iter().cloned());
        }
        let leaves: Vec<Option<Score>> = std::iter::once(None).chain(range.clone().map(|s| Some(Score(s)))).collect();
        let mut checked = 0;
        for links in &link_sets {
            for &leaf in &leaves {
                for (value, parent) in range.clone().flat_map(|v| range.clone().map(move |p| (v, p))) {
                    for via_pass in [false, true] {
                        let a = ArrivalScores { parent: Score(parent), via_pass, value: Score(value), links, leaf };
                        for (min_gap, linkless) in [(1, Linkless::Skip), (2, Linkless::Report), (3, Linkless::Skip)] {
                            let rules = Rules { min_gap, linkless };
                            for mode in Mode::ALL {
                                let expected = spec_verdict(mode, &rules, &a);
                                assert_eq!(
                                    fired(mode, &rules, &a.letters()),
                                    expected.as_ref().map(|v| v.branch),
                                    "{mode} {a:?}"
                                );
                                assert_eq!(judge(mode, &rules, &a), expected, "{mode} {a:?} {rules:?}");
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(link_sets.len(), 1 + 7 + 49 + 343);
        assert_eq!(checked, 400 * 8 * 49 * 2 * 3 * 4);
    }
}
