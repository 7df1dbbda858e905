//! `enhance` (docs/policies.md, SPEC §17.3): Edax's `book enhance M E` as
//! a policy of the growth session. M and E become the header's errors, so
//! every negamax of the run (and the book written) bounds a leaf with
//! them. Each round walks from the start over the links whose child's
//! bounds reach the position's own, each position once, and marks the
//! positions whose leaf's bounds reach their own; the marked leaves are
//! expanded as `extend` expands a candidate; the book is negamaxed below
//! the start. It is extend's rounds ([`crate::growth::rounds`]) with its own
//! marking walk; they go on until one adds nothing, or `--rounds` were
//! done (Edax 4.6 does one).

use crate::book::Book;
use crate::book::Leaf;
use crate::growth::error::GrowthError;
use crate::growth::growing::error::GrowingError;
use crate::growth::growing::solved::Solved;
use crate::growth::growing::store::{Flavor, NodeId, Store};
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::policy::Engines;
use crate::growth::report::GrowthReport;
use crate::growth::rounds::{grow_in_rounds, Choice};
use crate::level::Level;
use crate::negamax::{edax_position, taken_leaf_score, EdaxPosition, Negamaxed, SearchErrors};
use crate::run::Control;
use crate::score::Score;
use std::collections::HashSet;
use std::fmt;
use std::path::Path;

/// What `enhance` is asked to do.
#[derive(Clone, Debug)]
pub struct EnhanceOptions {
    /// The engines, the start, `min_empties`, `max_positions`.
    pub growth: GrowthOptions,
    /// The errors stored in the header: the midgame and the endcut error.
    pub errors: SearchErrors,
    /// At most this many rounds (`None`: until one adds nothing).
    pub rounds: Option<u64>,
}

/// What `enhance` adds to its [`GrowthReport`] (`adds`), for the summary.
#[derive(Clone, Debug, Default)]
pub struct Enhanced {
    /// The errors stored in the header.
    pub errors: SearchErrors,
    /// The rounds allowed, if limited.
    pub max_rounds: Option<u64>,
}

impl fmt::Display for GrowthReport<Enhanced> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (m, e) = (self.adds.errors.midgame, self.adds.errors.endcut);
        writeln!(f, "errors               {m} midgame, {e} endgame (stored in the header)")?;
        self.write_rounds(f)
    }
}

/// `enhance`: `book` grown by extend's rounds with Edax's
/// `position_enhance` as the marking walk.
pub struct Enhance<'a> {
    /// The book read (IN).
    pub book: Book,
    /// What `enhance` is asked.
    pub options: &'a EnhanceOptions,
}

impl crate::growth::policy::Policy for Enhance<'_> {
    type Report = GrowthReport<Enhanced>;

    fn run(
        self,
        paths: &GrowthPaths,
        engines: Engines<'_>,
        control: Control<'_>,
    ) -> Result<GrowthReport<Enhanced>, GrowthError> {
        let Enhance { mut book, options } = self;
        let engines = |scratch: &Path| engines.start(&options.growth, scratch);
        book.set_search_errors(options.errors);
        let marks = (Choice::Own(marked), options.rounds);
        let growth = grow_in_rounds(book, paths, &options.growth, marks, engines, control)?;
        Ok(growth.with(Enhanced { errors: options.errors, max_rounds: options.rounds }))
    }
}

/// The leaves a round of `enhance` expands, below `root`, in the order the
/// walk marks them (Edax's `position_enhance`); none in an Egaroucid book.
fn marked(store: &Store<'_>, solved: &Solved, root: NodeId, min_empties: u32) -> Result<Vec<NodeId>, GrowingError> {
    let Flavor::Edax(errors) = store.flavor() else { return Ok(Vec::new()) };
    let mut marker = Marker { store, solved, errors, min_empties, done: HashSet::new(), marked: Vec::new() };
    marker.visit(root)?;
    Ok(marker.marked)
}

/// The marking walk of one round.
struct Marker<'a, 'b> {
    store: &'a Store<'b>,
    solved: &'a Solved,
    errors: SearchErrors,
    min_empties: u32,
    done: HashSet<NodeId>,
    marked: Vec<NodeId>,
}

impl Marker<'_, '_> {
    /// Enters `id` if it has enough empty squares, the game goes on there
    /// and it was not entered before: follows each link whose child's
    /// bounds, turned round, reach the position's (either bound at least
    /// the position's same bound), then marks the position if its leaf's
    /// bounds reach its own the same way.
    fn visit(&mut self, id: NodeId) -> Result<(), GrowingError> {
        let facts = self.store.facts(id)?;
        let open = facts.board.empties() >= self.min_empties && !facts.board.is_game_over();
        if !(open && self.done.insert(id)) {
            return Ok(());
        }
        let own = self.solved.get(self.store, id)?;
        let reaches = |lower: Score, upper: Score| lower >= own.lower || upper >= own.upper;
        for edge in &facts.edges {
            let Some(child) = edge.child else { continue };
            let below = self.solved.get(self.store, child)?;
            if reaches(-below.upper, -below.lower) {
                self.visit(child)?;
            }
        }
        if taken_leaf_score(facts.leaf).is_some() {
            let leaf = self.leaf_bounds(facts.board.empties(), facts.level, facts.leaf);
            if reaches(leaf.lower, leaf.upper) {
                self.marked.push(id);
            }
        }
        Ok(())
    }

    /// The bounds the leaf alone gives a position: §11's step 2, with the
    /// header's errors.
    fn leaf_bounds(&self, empties: u32, level: u8, leaf: Option<Leaf>) -> Negamaxed {
        let level = Level::saturating(level.into());
        let position = EdaxPosition { empties: empties.min(60) as u8, level, leaf };
        edax_position(&position, self.errors, [])
    }
}
