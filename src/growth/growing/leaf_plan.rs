//! What a position's leaf becomes: known without a search, or the search
//! an engine is asked for (as Edax's `position_search` decides it).

use crate::board::{Board, Move, Squares};
use crate::book::{Leaf, Score};
use crate::engine::search::{Answer, Query};
use crate::level::Level;
use crate::symmetry::normalize;

/// What a position's leaf becomes without a search, or the search that
/// decides it (docs/extend.md, as Edax's `position_search` does it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafPlan {
    /// The leaf is known without a search: a finished game's (its final
    /// score, no move), or none when every move is linked.
    Known {
        /// The leaf.
        leaf: Option<Leaf>,
    },
    /// `through_pass`: the position must pass; the query is the position
    /// after the pass, and its answer's score, negated, is the leaf's.
    Search {
        /// The search asked of an engine.
        query: Query,
        /// The position must pass, and the query is after the pass.
        through_pass: bool,
    },
}

impl LeafPlan {
    /// The plan for the leaf of `board` (stored, normalized), whose links
    /// are `linked`, searched at `level`: a finished game's final
    /// score; none when every move is linked; else the best move not linked,
    /// searched after the pass when the side to move must pass.
    pub fn of(board: &Board, linked: impl IntoIterator<Item = Move>, level: Level) -> LeafPlan {
        if board.is_game_over() {
            return LeafPlan::Known { leaf: Some(Leaf::new(Score::new(board.final_score()), None)) };
        }
        let none = LeafPlan::Known { leaf: None };
        let (mut squares, mut pass) = (0u64, false);
        for mv in linked {
            match mv {
                Move::Play(square) => squares |= square.bit(),
                Move::Pass => pass = true,
            }
        }
        if board.must_pass() {
            if pass {
                return none;
            }
            let query = Query { board: normalize(&board.swapped()).board, excluded: Squares::NONE, level };
            return LeafPlan::Search { query, through_pass: true };
        }
        let legal = board.legal_moves();
        if legal & !squares == 0 {
            return none;
        }
        let excluded = Squares::of(legal & squares);
        LeafPlan::Search { query: Query { board: *board, excluded, level }, through_pass: false }
    }

    /// The leaf, given the answer to the plan's search, if it asks one.
    ///
    /// # Panics
    /// When a search plan is given no answer.
    pub fn leaf(&self, answer: Option<Answer>) -> Option<Leaf> {
        match (self, answer) {
            (LeafPlan::Known { leaf }, _) => *leaf,
            // An answer's score is within ±64 (the engines' readers check
            // it), so minus it is too.
            (LeafPlan::Search { through_pass: true, .. }, Some(a)) => {
                Some(Leaf::new(Score::new(-i32::from(a.score)), Some(Move::Pass)))
            }
            (LeafPlan::Search { .. }, Some(a)) => Some(Leaf::new(Score::from(a.score), Some(Move::Play(a.mv)))),
            (LeafPlan::Search { .. }, None) => panic!("a search's leaf is set only once it is answered"),
        }
    }

    /// The search each plan asks, if any, in the plans' order.
    pub fn queries(plans: &[LeafPlan]) -> Vec<Option<Query>> {
        plans.iter().map(|plan| plan.query().copied()).collect()
    }

    /// The search the plan asks, if any.
    pub fn query(&self) -> Option<&Query> {
        match self {
            LeafPlan::Search { query, .. } => Some(query),
            LeafPlan::Known { .. } => None,
        }
    }
}
