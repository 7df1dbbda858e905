//! `add` (docs/games.md): games' positions put into a book as Edax's `book
//! add` puts them, with the engines, journal and faults of `extend`.
//!
//! Each game is played for the book's depth; its positions, last first,
//! are added one by one, each step seeing what every earlier step left: a
//! position the book holds gets a link for each move whose child the book
//! holds (an existing link is scored again), and its leaf searched only if
//! it has no leaf move; a new position gets the book's level, its links,
//! and its leaf searched excluding them. A value is what Edax keeps as it
//! goes: the best of the scores the position's links and leaf were given,
//! each when it was given. OUT is IN's records, changed ones as they now
//! are, then the new ones in the order added, negamaxed as `fix` does.

use crate::board::Board;
use crate::book::{Book, Header};
use crate::engine::ask::{Answerers, Asked};
use crate::engine::fleet::Fleet;
use crate::engine::search::{Answer, Query};
use crate::engine::EngineCommand;
use crate::games::{GameFiles, PlayedGame, Read};
use crate::growth::error::GrowthError;
use crate::growth::growing::leaf_plan::LeafPlan;
use crate::growth::growing::store::{Flavor, Node, NodeId, Store};
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::policy::Engines;
use crate::growth::report::GrowthReport;
use crate::growth::session::{self, Grower, Held};
use crate::level::Level;
use crate::negamax::SCORE_INF;
use crate::run::{Control, Phase, Progress};
use crate::symmetry::normalize;
use crate::wording::count;
use hashbrown::{HashMap, HashSet};
use smallvec::SmallVec;
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// The games whose cut is named in the summary and the log, at most.
const CUTS_NAMED: usize = 5;

/// The games read ahead at a time, whose new positions' searches are
/// asked of every engine at once before they are added one by one.
const GAMES_AHEAD: usize = 512;

/// What `add` is asked to do.
#[derive(Clone, Debug)]
pub struct AddOptions {
    /// The fleet: one engine or more, each with its workers.
    pub engines: Vec<EngineCommand>,
    /// The longest wait for one answer.
    pub engine_timeout: Duration,
    /// An Egaroucid book's level for the positions added (an Edax book's
    /// header says its own); `None`: Edax's default, 21.
    pub level: Option<Level>,
    /// An Egaroucid book's depth, in squares played (an Edax book's is 60 −
    /// its header's n_empties); `None`: 60.
    pub depth: Option<u32>,
}

/// What `add` adds to its [`GrowthReport`] (`adds`), for the summary.
#[derive(Clone, Debug, Default)]
pub struct Added {
    /// Games read, skipped (another start), and cut short by a move that
    /// is not legal or no move at all (the first few named).
    pub games_read: u64,
    /// Games skipped: they start from another position.
    pub skipped: u64,
    /// Games cut short by a move that is not legal or no move at all.
    pub cut_short: u64,
    /// The first games cut short (five at most), each named by its file and
    /// place and what cut it.
    pub cuts: Vec<String>,
    /// Positions the games reached that the rule takes (each time one is
    /// met), those that were new to the book, and the links added.
    pub positions_met: u64,
    /// Links added, to the positions added and to those held.
    pub links_added: u64,
    /// Records of the book written reachable over links from the initial
    /// position (Edax's `book add` links no position it held before, so a
    /// book made from games may be many trees: `fix --link` joins them).
    pub reachable: u64,
    /// OUT is an Egaroucid book: its links are the moves whose child it
    /// holds, so no command links what no line reaches.
    pub links_implicit: bool,
}

impl fmt::Display for GrowthReport<Added> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions loaded     {}", self.positions_loaded)?;
        writeln!(
            f,
            "games                {} read, {} skipped (another start), {} cut short",
            self.adds.games_read, self.adds.skipped, self.adds.cut_short
        )?;
        for cut in &self.adds.cuts {
            writeln!(f, "  cut short          {cut}")?;
        }
        writeln!(f, "positions met        {}", self.adds.positions_met)?;
        writeln!(f, "positions added      {}", self.added)?;
        writeln!(f, "links added          {}", self.adds.links_added)?;
        self.searches.write(&self.journal, f)?;
        writeln!(f, "book written         {} ({} records)", self.output.display(), self.records_written)?;
        if let Some(advice) = self.unreachable() {
            writeln!(f, "not reachable        {advice}")?;
        }
        write!(f, "elapsed              {:.3} s", self.elapsed.as_secs_f64())
    }
}

impl GrowthReport<Added> {
    /// What to say of the records the initial position does not reach
    /// over links, if any: how many, and, for an Edax book, what to run
    /// (an Egaroucid book links every move whose child it holds: no
    /// command links the rest).
    pub fn unreachable(&self) -> Option<String> {
        let left = self.records_written.checked_sub(self.adds.reachable).filter(|&n| n > 0)?;
        let records = count(left, "record", "records");
        Some(match self.adds.links_implicit {
            true => format!("{records} not reachable: no line from the initial position reaches them"),
            false => format!(
                "{records} not reachable: no line of links from the initial position reaches them; `bookminer fix --link {} LINKED.dat` links them",
                self.output.display()
            ),
        })
    }
}

/// How a book takes games: how it stores links, the level of its new
/// positions, how many squares of a game are played, and the fewest empty
/// squares of a position taken.
#[derive(Clone, Copy, Debug)]
struct Rule {
    flavor: Flavor,
    level: Level,
    squares: usize,
    least_empties: i32,
}

/// Edax's level of a new book when none is given (its `book new`'s).
pub const DEFAULT_LEVEL: Level = Level::new(21).expect("21 is a level");

impl Rule {
    /// An Edax book's rule from its header (level; depth 60 − n_empties),
    /// an Egaroucid book's from the options.
    fn of(header: &Header, options: &AddOptions) -> Rule {
        match header.edax() {
            Some(h) => {
                let n_empties = h.n_empties.clamp(0, 60);
                Rule {
                    flavor: Flavor::Edax(h.search_errors()),
                    level: Level::saturating(h.level),
                    squares: (60 - n_empties) as usize,
                    least_empties: n_empties - 1,
                }
            }
            None => {
                let depth = options.depth.unwrap_or(60).min(60);
                let n_empties = 60 - depth as i32;
                Rule {
                    flavor: Flavor::Egaroucid,
                    level: options.level.unwrap_or(DEFAULT_LEVEL),
                    squares: depth as usize,
                    least_empties: n_empties - 1,
                }
            }
        }
    }
}

impl Rule {
    /// Warns of a level or depth given for an Edax book that differs from
    /// its header's, which it keeps: the book's own depth is one more than
    /// the squares played (Edax's `book new L D` writes n_empties 61 − D).
    fn warn_of_left_aside(&self, options: &AddOptions) {
        if !matches!(self.flavor, Flavor::Edax(_)) {
            return;
        }
        if let Some(level) = options.level.filter(|&l| l != self.level) {
            tracing::warn!(
                "level {level} left aside: an Edax book's positions take its header's level, {}",
                self.level
            );
        }
        let depth = self.squares as u32 + 1;
        if let Some(given) = options.depth.filter(|&d| d != depth) {
            tracing::warn!("depth {given} left aside: an Edax book's games are played to its header's depth, {depth}");
        }
    }
}

/// The options of the session `add` runs in: from the initial position,
/// no window, its engines.
fn session_options(options: &AddOptions) -> GrowthOptions {
    GrowthOptions::whole_book(&options.engines, options.engine_timeout)
}

/// `add`: the positions of `games` put into `book` as Edax's `book add`
/// puts them.
pub struct Add<'a> {
    /// The book read (IN).
    pub book: Book,
    /// The game files, read in order.
    pub games: &'a GameFiles,
    /// What `add` is asked.
    pub options: &'a AddOptions,
}

impl crate::growth::policy::Policy for Add<'_> {
    type Report = GrowthReport<Added>;

    fn run(
        self,
        paths: &GrowthPaths,
        engines: Engines<'_>,
        control: Control<'_>,
    ) -> Result<GrowthReport<Added>, GrowthError> {
        let Add { book, games, options } = self;
        let session = session_options(options);
        let engines = |scratch: &Path| engines.start(&session, scratch);
        let rule = Rule::of(&book.header(), options);
        rule.warn_of_left_aside(options);
        // Every game file read whole before the first search: a damaged one
        // late in the list is found now, not after hours of searches.
        let cancel = control.cancel;
        let stopped = |stop| GrowthError::Interrupted(crate::run::Stopped::leaving(crate::run::Left::Nothing)(stop));
        let entries = games.check(|read| match read % 1024 {
            0 => cancel.check().map_err(stopped),
            _ => Ok(()),
        })?;
        let report = GrowthReport::<Added>::new(paths, 0);
        let mut adder = Adder { games, entries, rule, report };
        let ran = session::grow_book(book, paths, &session_options(options), engines, &mut adder, control)?;
        let mut report = adder.report;
        report.positions_loaded = ran.positions_loaded;
        ran.fleet.fill(&mut report.searches);
        report.records_written = ran.records_written;
        report.adds.reachable = ran.reachable.unwrap_or(ran.records_written);
        report.adds.links_implicit = matches!(rule.flavor, Flavor::Egaroucid);
        report.elapsed = ran.elapsed;
        Ok(report)
    }
}

/// `add` as a policy of the growth session: the games read in order, each
/// position added as its step comes, on the book as read.
struct Adder<'g> {
    games: &'g GameFiles,
    /// The games to read (games and games passed over), in all the files.
    entries: u64,
    rule: Rule,
    report: GrowthReport<Added>,
}

impl Grower for Adder<'_> {
    fn negamaxes_first(&self) -> bool {
        false
    }

    fn grow(&mut self, held: Held<'_, '_>, fleet: &Fleet<'_>, control: &mut Control<'_>) -> Result<(), GrowthError> {
        let Held { store, journal, engines, cancel, .. } = held;
        let journal_path = journal.path().to_path_buf();
        let mut answerers = Answerers { journal, fleet, engines, cancel };
        let games = self.games;
        control.phase(Phase::Adding { games: self.entries });
        let mut adding =
            Adding { store, rule: self.rule, report: &mut self.report, done: 0, searches: Searches::default() };
        let mut batch: Vec<PlayedGame> = Vec::new();
        games.read(|read, _| {
            cancel.check().map_err(GrowthError::interrupted(&journal_path))?;
            match read {
                Read::Skipped { .. } => {
                    adding.report.adds.skipped += 1;
                    adding.done += 1;
                }
                Read::Played(game) => {
                    adding.note_game(games, &game);
                    batch.push(game);
                }
            }
            if batch.len() >= GAMES_AHEAD {
                adding.batch(&std::mem::take(&mut batch), &mut answerers, control)?;
            }
            Ok::<(), GrowthError>(())
        })?;
        adding.batch(&batch, &mut answerers, control)?;
        let r = &self.report;
        tracing::info!(
            "{} read: {} met, {} added, {}",
            count(r.adds.games_read, "game", "games"),
            count(r.adds.positions_met, "position", "positions"),
            r.added,
            count(r.adds.links_added, "link added", "links added")
        );
        Ok(())
    }
}

/// The answer to the search `plan` asks (none when it asks none), from the
/// journal or an engine, and what it cost.
fn ask(answerers: &mut Answerers<'_, '_>, plan: &LeafPlan) -> Result<(Option<Answer>, Asked), GrowthError> {
    let mut asked = Asked::default();
    let answers = answerers.answer(&[plan.query().copied()], &mut asked, &mut |_, _| {})?;
    Ok((answers.into_iter().next().flatten(), asked))
}

/// The positions being added, one step at a time.
struct Adding<'r, 'b> {
    store: &'r mut Store<'b>,
    rule: Rule,
    report: &'r mut GrowthReport<Added>,
    /// Games done: their positions added, or passed over.
    done: u64,
    /// Searches answered (by the engines or the journal) and asked, for the progress.
    searches: Searches,
}

/// Searches answered and asked so far, as the progress counts them.
#[derive(Clone, Copy, Default)]
struct Searches {
    answered: u64,
    asked: u64,
}

/// Asks a leaf's search: its answer, and what it cost.
type Ask<'a> = dyn FnMut(&LeafPlan) -> Result<(Option<Answer>, Asked), GrowthError> + 'a;

impl Adding<'_, '_> {
    /// Counts a game read, and names it when a move cut it short.
    fn note_game(&mut self, games: &GameFiles, game: &PlayedGame) {
        self.report.adds.games_read += 1;
        if let Some(cut) = &game.cut {
            self.report.adds.cut_short += 1;
            if self.report.adds.cuts.len() < CUTS_NAMED {
                let named = format!("{}: {}: {cut}", games.paths()[game.file].display(), game.place);
                tracing::warn!("{named}: the game ends there");
                self.report.adds.cuts.push(named);
            }
        }
    }

    /// Adds the positions of `games`, in order, as the sequential rule
    /// does. The searches of the positions new to the book are asked of
    /// every engine at once first (they do not depend on any answer: which
    /// positions are new, and their links, follow from the games alone);
    /// the few the look-ahead cannot foresee (a position the book holds
    /// whose leaf an earlier step took away) are asked as their step comes.
    fn batch(
        &mut self,
        games: &[PlayedGame],
        answerers: &mut Answerers<'_, '_>,
        control: &mut Control<'_>,
    ) -> Result<(), GrowthError> {
        let ahead = self.answer_ahead(&self.searches_ahead(games), answerers, control)?;
        let (cancel, journal) = (answerers.cancel, answerers.journal.path().to_path_buf());
        let mut ask_in_turn = |plan: &LeafPlan| match plan.query().and_then(|q| ahead.get(q)) {
            Some(answer) => Ok((Some(*answer), Asked::default())),
            None => ask(answerers, plan),
        };
        for game in games {
            cancel.check().map_err(GrowthError::interrupted(&journal))?;
            self.game(game, &mut ask_in_turn)?;
            self.done += 1;
            self.tell(control, self.searches.answered);
        }
        Ok(())
    }

    /// Tells the progress where the run is, `answered` searches answered.
    fn tell(&self, control: &mut Control<'_>, answered: u64) {
        let (games, added, searches) = (self.done, self.report.added, self.searches.asked);
        (control.progress)(Progress::Added { games, added, searched: answered, searches });
    }

    /// The searches the positions of `games` that are new to the book will
    /// ask, each once, in the order they come: a new position's links are
    /// its moves whose child the book holds by then, so its search follows
    /// from the positions added before it.
    fn searches_ahead(&self, games: &[PlayedGame]) -> Vec<LeafPlan> {
        let mut added: HashSet<Board> = HashSet::new();
        let mut asked: HashSet<Query> = HashSet::new();
        let held = |board: &Board, added: &HashSet<Board>| {
            let board = normalize(board).board;
            added.contains(&board) || self.store.find(&board).is_some()
        };
        let mut plans = Vec::new();
        for game in games {
            for played in game.positions_to_add(self.rule.squares, self.rule.least_empties) {
                let stored = normalize(&played).board;
                if held(&stored, &added) {
                    continue;
                }
                let linked = stored.children().into_iter().filter(|(_, child)| held(child, &added)).map(|(mv, _)| mv);
                let plan = LeafPlan::of(&stored, linked, self.rule.level);
                if plan.query().is_some_and(|q| asked.insert(*q)) {
                    plans.push(plan);
                }
                added.insert(stored);
            }
        }
        plans
    }

    /// The answers to `plans`, from the journal or every engine at once,
    /// by their query; counted into the report, the progress told as they
    /// come.
    fn answer_ahead(
        &mut self,
        plans: &[LeafPlan],
        answerers: &mut Answerers<'_, '_>,
        control: &mut Control<'_>,
    ) -> Result<HashMap<Query, Answer>, GrowthError> {
        let mut asked = Asked::default();
        let queries = LeafPlan::queries(plans);
        let before = self.searches.answered;
        self.searches.asked += queries.iter().flatten().count() as u64;
        self.tell(control, before);
        let answers = answerers.answer(&queries, &mut asked, &mut |answered, _| {
            self.tell(control, before + answered as u64);
        })?;
        self.searches.answered = self.searches.asked;
        self.report.searches.count(&asked);
        let answered = plans.iter().zip(answers).filter_map(|(plan, answer)| Some((*plan.query()?, answer?)));
        Ok(answered.collect())
    }

    /// Adds a game's positions, last first.
    fn game(&mut self, game: &PlayedGame, ask: &mut Ask<'_>) -> Result<(), GrowthError> {
        for board in game.positions_to_add(self.rule.squares, self.rule.least_empties) {
            self.position(&board, ask)?;
        }
        Ok(())
    }

    /// Adds one position, `played` as the game has it (not normalized).
    fn position(&mut self, played: &Board, ask: &mut Ask<'_>) -> Result<(), GrowthError> {
        self.report.adds.positions_met += 1;
        let stored = normalize(played);
        match self.store.find(&stored.board) {
            Some(id) => {
                self.link_held(id)?;
                if self.store.leaf(id)?.and_then(|leaf| leaf.mv).is_none() {
                    self.search(id, ask)?;
                }
            }
            None => {
                let mut node = Node::new(stored.board, self.rule.level.to_u8(), None);
                node.solved.upper = SCORE_INF;
                if let Flavor::Edax(_) = self.rule.flavor {
                    // Found in the order of the board as played, then
                    // turned as the stored board lies.
                    let to_stored = stored.to_original.inverse();
                    let mut links = SmallVec::new();
                    for (mv, child) in played.children() {
                        if let Some(child) = self.store.find(&normalize(&child).board) {
                            links.push((
                                crate::negamax::new_link_score(self.store.value(child)?),
                                to_stored.apply_move(mv),
                            ));
                        }
                    }
                    for &(score, _) in &links {
                        node.solved.value = node.solved.value.max(score);
                    }
                    self.report.adds.links_added += links.len() as u64;
                    node.links = links;
                }
                let id = self.store.add(node);
                self.report.added += 1;
                if let Flavor::Egaroucid = self.rule.flavor {
                    self.store.value_from_children(id)?;
                }
                self.search(id, ask)?;
            }
        }
        Ok(())
    }

    /// Links a position the book holds ([`Store::link_held`]), counting
    /// the links added.
    fn link_held(&mut self, id: NodeId) -> Result<(), GrowthError> {
        self.report.adds.links_added += self.store.link_held(id)?;
        Ok(())
    }

    /// Searches a position's leaf as Edax's `position_search` does: when it
    /// has a legal move that is not linked, or it has no move, no link and
    /// no value yet (a pass or a finished game); the value rises to the
    /// leaf's score.
    fn search(&mut self, id: NodeId, ask: &mut Ask<'_>) -> Result<(), GrowthError> {
        let facts = self.store.facts(id)?;
        let value = self.store.value(id)?;
        let moves = facts.board.legal_moves().count_ones() as usize;
        let linked = facts.edges.len();
        if linked >= moves && !(linked == 0 && moves == 0 && value == -SCORE_INF) {
            return Ok(());
        }
        let plan = LeafPlan::of(&facts.board, facts.edges.iter().map(|e| e.mv), Level::saturating(facts.level.into()));
        let (answer, asked) = ask(&plan)?;
        self.report.searches.count(&asked);
        let answered = asked.searched + asked.from_journal;
        self.searches.asked += answered;
        self.searches.answered += answered;
        let leaf = plan.leaf(answer);
        self.store.touch(id)?;
        let node = self.store.node_mut(id).expect("touched");
        node.leaf = leaf;
        node.solved.value = node.solved.value.max(crate::negamax::leaf_score(leaf));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Move, Square};
    use crate::games::{Game, GamePlace};
    use crate::synth::{book_bytes, SynthOptions};

    /// A game of random legal moves from the initial position, `plies` long
    /// at most, passes written.
    fn random_game(seed: &mut u64, plies: usize) -> PlayedGame {
        let (mut board, mut moves) = (Board::INITIAL, Vec::new());
        while moves.len() < plies && !board.is_game_over() {
            *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let mv = match Square::iter(board.legal_moves()).collect::<Vec<_>>() {
                legal if legal.is_empty() => Move::Pass,
                // Few choices early, so that games meet each other and the book.
                legal => Move::Play(legal[(*seed >> 33) as usize % legal.len().min(3)]),
            };
            board = board.after(mv).unwrap();
            moves.push(mv);
        }
        let place = GamePlace { number: 1, line: None, offset: 0 };
        PlayedGame::of(0, Game { place, moves, unreadable: None })
    }

    /// An answer that depends on the query alone: its first square allowed,
    /// a score from its bits.
    fn answer_of(query: &Query) -> Answer {
        let allowed = query.board.legal_moves() & !query.excluded.bits();
        let mv = Square::iter(allowed).next().expect("a search has a move allowed");
        let score = ((query.board.player ^ query.board.opponent.rotate_left(7)) % 129) as i8 - 64;
        Answer { mv, score: score & !1 }
    }

    /// Every search the look-ahead names is one the one-by-one rule asks,
    /// in the same order; the rule's other searches are all of positions
    /// held already (a leaf an earlier step took away): in the book before
    /// the games, or searched once already.
    fn look_ahead_names_the_searches_of_the_rule(book: &Book, flavor: Flavor, games: &[PlayedGame]) -> usize {
        let rule = Rule { flavor, level: Level::new(10).unwrap(), squares: 24, least_empties: 0 };
        let (mut store, before) = (Store::with_links(book, flavor, None), Store::with_links(book, flavor, None));
        let mut report = GrowthReport::<Added>::default();
        let mut adding =
            Adding { store: &mut store, rule, report: &mut report, done: 0, searches: Searches::default() };
        let ahead = adding.searches_ahead(games);
        let mut asked: Vec<LeafPlan> = Vec::new();
        let mut ask = |plan: &LeafPlan| {
            asked.push(*plan);
            Ok((plan.query().map(answer_of), Asked::default()))
        };
        for game in games {
            adding.game(game, &mut ask).unwrap();
        }
        let foreseen: HashSet<Query> = ahead.iter().filter_map(|p| p.query().copied()).collect();
        let mut in_order = asked.iter().filter_map(|p| p.query()).filter(|q| foreseen.contains(*q)).collect::<Vec<_>>();
        in_order.dedup();
        let ahead_queries: Vec<&Query> = ahead.iter().filter_map(|p| p.query()).collect();
        assert_eq!(in_order, ahead_queries, "each search foreseen is asked, in order");
        let mut searched_before: HashSet<Board> = HashSet::new();
        for query in asked.iter().filter_map(|p| p.query()) {
            if !foreseen.contains(query) {
                let board = query.board;
                let held = before.find(&board).is_some() || before.find(&normalize(&board.swapped()).board).is_some();
                assert!(
                    held || searched_before.contains(&board),
                    "a search not foreseen is of a position held before the games or searched before: {query:?}"
                );
            }
            searched_before.insert(query.board);
        }
        ahead_queries.len()
    }

    #[test]
    fn the_look_ahead_foresees_every_search_of_a_new_position_in_both_formats() {
        let options = SynthOptions { positions: 3000, seed: 5, perturb: 0.2 };
        let edax = Book::from_bytes("synthetic", book_bytes(&options)).unwrap();
        let mut bytes = Vec::new();
        crate::synth::synthesize_as(crate::format::Format::Egbk3, &options, &mut bytes).unwrap();
        let egaroucid = Book::from_bytes("synthetic.egbk3", bytes).unwrap();
        let mut seed = 11;
        let games: Vec<PlayedGame> = (0..300).map(|_| random_game(&mut seed, 60)).collect();
        let flavor = Flavor::Edax(edax.header().edax().unwrap().search_errors());
        let foreseen = look_ahead_names_the_searches_of_the_rule(&edax, flavor, &games);
        assert!(foreseen > 1000, "the games reach past the book: {foreseen} searches");
        look_ahead_names_the_searches_of_the_rule(&egaroucid, Flavor::Egaroucid, &games);
    }
}
