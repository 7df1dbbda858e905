//! `learn` and `recalculate` (docs/egaroucid.md, SPEC §19): Egaroucid's book
//! deviate (`book_deviate`) and leaf recalculation (`book_recalculate_leaf`)
//! over the engines, the fleet and the journal every growth command uses.
//!
//! Both read and change the book as Egaroucid's own functions do
//! ([`crate::growth::egbook`]): the values stored, never negamaxed on the way or at
//! the end; a position seen once per walk (Egaroucid's `seen` flags),
//! its moves in increasing square order of the stored board (Egaroucid's
//! representative board is the same pair of numbers: docs/formats.md).
//! Where Egaroucid searches one line after another in the order of a hash
//! set, `learn` takes every line of a loop a step at a time, each step's
//! searches one batch for the fleet, the answers applied in the order the
//! lines were found: the same for any number of workers, and again the
//! same when run again on its journal.

use crate::board::{Board, Move, Square, Squares};
use crate::book::{Book, ReadOptions};
use crate::convert::{convert, ConvertReport};
use crate::engine::ask::{Answerers, Asked};
use crate::engine::fleet::EngineSet;
use crate::engine::search::{Answer, Query};
use crate::format::{Format, OutFormat};
use crate::growth::egbook::{EgBook, Elem, Link, MOVE_NOMOVE, SCORE_UNDEFINED};
use crate::growth::error::GrowthError;
use crate::growth::options::GrowthOptions;
use crate::growth::paths::GrowthPaths;
use crate::growth::policy::Engines;
use crate::growth::report::GrowthReport;
use crate::growth::session::{run_fleet, Opened};
use crate::level::Level;
use crate::run::{Cancel, Control, Phase, RunError};
use crate::score::Score;
use crate::symmetry::{normalize, Symmetry};
use std::collections::HashSet;
use std::fmt;
use std::io::{BufWriter, Write};
use std::path::Path;

/// The errors of Egaroucid's learning, in discs.
#[derive(Clone, Copy, Debug)]
pub struct Errors {
    /// How far below its position's value a move followed may score.
    pub per_move: i32,
    /// How far the moves of a line may score below, summed.
    pub sum: i32,
    /// How far below its position's value a leaf expanded may score (learn).
    pub leaf: i32,
}

/// What `learn` or `recalculate` is asked to do.
#[derive(Clone, Debug)]
pub struct LearnOptions {
    /// The engines, the start, `max_positions`.
    pub growth: GrowthOptions,
    /// The level new positions and leaves are searched at; `None`: the
    /// start position's record's.
    pub level: Option<Level>,
    /// Positions up to this many moves from the initial position (60: no limit).
    pub depth: u32,
    /// The errors.
    pub errors: Errors,
    /// At most this many loops (learn).
    pub loops: u32,
    /// The format OUT is written in (its name's, as `convert` decides).
    pub to: OutFormat,
}

/// What `learn` and `recalculate` add to their [`GrowthReport`] (`adds`), for the summary.
#[derive(Clone, Debug, Default)]
pub struct Learned {
    /// `learn` or `recalculate`.
    pub command: &'static str,
    /// The level searched at, and whether it is the start record's.
    pub level: u8,
    /// The level is the start record's (no `--level`).
    pub level_from_book: bool,
    /// Loops done (one for `recalculate`).
    pub loops: u32,
    /// Leaves to expand, loop by loop (learn's todo).
    pub todo: Vec<u64>,
    /// Leaves searched again, loop by loop.
    pub recalculated: Vec<u64>,
    /// Positions the book holds more than IN.
    pub new_records: u64,
    /// IN as `convert` made it an `.egbk3` book for the run, if it was not one.
    pub converted_in: Option<ConvertReport>,
    /// The book learned as `convert` wrote it into OUT, if OUT is not an `.egbk3` book.
    pub converted_out: Option<ConvertReport>,
}

impl fmt::Display for GrowthReport<Learned> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let from = if self.adds.level_from_book { " (the start position's record)" } else { "" };
        writeln!(f, "positions loaded     {}", self.positions_loaded)?;
        if let Some(c) = &self.adds.converted_in {
            writeln!(f, "IN converted         to Egaroucid .egbk3 for the run: {}", converted(c))?;
        }
        writeln!(f, "level                {}{from}", self.adds.level)?;
        if self.adds.command == "learn" {
            writeln!(f, "loops                {}", self.adds.loops)?;
            writeln!(f, "leaves to expand     {} ({})", self.adds.todo.iter().sum::<u64>(), per_loop(&self.adds.todo))?;
        }
        writeln!(
            f,
            "leaves searched again {} ({})",
            self.adds.recalculated.iter().sum::<u64>(),
            per_loop(&self.adds.recalculated)
        )?;
        writeln!(f, "positions added      {}", self.adds.new_records)?;
        self.searches.write(&self.journal, f)?;
        if self.stopped_early {
            writeln!(f, "stopped early        max_positions reached: leaves may be left")?;
        }
        if let Some(c) = &self.adds.converted_out {
            writeln!(f, "OUT converted        from Egaroucid .egbk3: {}", converted(c))?;
        }
        self.write_ending(f)
    }
}

/// What a conversion of the run wrote, left out and lost, in a line.
fn converted(c: &ConvertReport) -> String {
    let left_out = c.not_in_book + c.left_out_value + c.left_out_pass;
    format!(
        "{} records written, {} added (pass records), {left_out} left out, {} link scores lost",
        c.written, c.passes_added, c.links_lost
    )
}

/// Counts by loop, as "3, 1, 0".
fn per_loop(counts: &[u64]) -> String {
    let shown: Vec<String> = counts.iter().map(u64::to_string).collect();
    format!("by loop: {}", shown.join(", "))
}

/// `learn` or `recalculate`: Egaroucid's book deviate, or its leaf
/// recalculation, of `book`.
pub struct Learn<'a> {
    /// The book read (IN).
    pub book: Book,
    /// What the run is asked.
    pub options: &'a LearnOptions,
    /// Which of Egaroucid's two runs.
    pub which: Which,
}

impl crate::growth::policy::Policy for Learn<'_> {
    type Report = GrowthReport<Learned>;

    fn run(
        self,
        paths: &GrowthPaths,
        engines: Engines<'_>,
        control: Control<'_>,
    ) -> Result<GrowthReport<Learned>, GrowthError> {
        let Learn { book, options, which } = self;
        let engines = |scratch: &Path| engines.start(&options.growth, scratch);
        run(book, paths, options, engines, control, which)
    }
}

/// The level a run searches at: `--level`, else the start record's.
pub fn level_of(book: &Book, options: &LearnOptions) -> Result<(Level, bool), GrowthError> {
    let at = options.growth.start.locate_in(book).map_err(|m| GrowthError::start_missing(book.path(), m))?;
    if let Some(level) = options.level {
        return Ok((level, false));
    }
    // Any format's record level: what `convert` writes into the .egbk3 record.
    let level = book.record(at.id).map_or(0, |record| record.level);
    Ok((Level::saturating(level), true))
}

/// Which of Egaroucid's two learning runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Which {
    /// `learn`: Egaroucid's book deviate.
    Learn,
    /// `recalculate`: Egaroucid's leaf recalculation.
    Recalculate,
}

fn run(
    book: Book,
    paths: &GrowthPaths,
    options: &LearnOptions,
    engines: impl FnOnce(&Path) -> Vec<EngineSet>,
    mut control: Control<'_>,
    which: Which,
) -> Result<GrowthReport<Learned>, GrowthError> {
    let cancel = control.cancel;
    GrowthError::check_records(&book)?;
    let (level, level_from_book) = level_of(&book, options)?;
    let command = match which {
        Which::Learn => "learn",
        Which::Recalculate => "recalculate",
    };
    let from = if level_from_book { "the start position's record's" } else { "asked" };
    tracing::info!("{command}: searching at level {} ({from})", level.to_i32());
    let learned = Learned { command, level: level.to_i32() as u8, level_from_book, ..Learned::default() };
    let mut report = GrowthReport { adds: learned, ..GrowthReport::new(paths, book.counts().positions) };
    let Opened { out, mut journal, scratch } = Opened::open(paths)?;
    let (book, converted_in) = as_egbk3(book, scratch.path(), &mut control)?;
    report.adds.converted_in = converted_in;
    let engines = &engines(scratch.path());
    let mut eg = EgBook::new(&book);
    let root = options.growth.start.board;
    let player = (options.growth.start.line.len() % 2) as u8;
    let (done, ran) = run_fleet(engines, &mut journal, paths, cancel, |journal, fleet| {
        let answerers = Answerers { journal, fleet, engines, cancel };
        let mut learner =
            Learner { eg: &mut eg, answerers, options, level, report: &mut report, control: &mut control };
        match which {
            Which::Learn => learner.deviate(root, player),
            Which::Recalculate => {
                let e = options.errors;
                let todo = learner.recalculate_todo(root, player, (level, options.depth), (e.per_move, e.sum), false);
                learner.report.adds.loops = 1;
                learner.recalculate_leaves(&todo, level)
            }
        }
    });
    done?;
    ran.fill(&mut report.searches);
    report.adds.new_records = eg.added() as u64;
    match options.to {
        OutFormat::Egbk3 => report.records_written = write_out(&eg, out, paths, cancel)?,
        OutFormat::Edax => {
            drop(out);
            let learned = scratch.path().join("learned.egbk3");
            write_learned(&eg, &learned)?;
            drop(eg);
            drop(book);
            let converted = into_out(&learned, &paths.output, &mut control)?;
            report.records_written = converted.written;
            report.adds.converted_out = Some(converted);
        }
    }
    report.elapsed = paths.began.elapsed();
    Ok(report)
}

/// The book the run learns on: `book` if it is an `.egbk3` one, else `book`
/// as `convert` makes it one, in the run's scratch folder (its report kept).
fn as_egbk3(
    book: Book,
    scratch: &Path,
    control: &mut Control<'_>,
) -> Result<(Book, Option<ConvertReport>), GrowthError> {
    if book.format() == Format::Egbk3 {
        return Ok((book, None));
    }
    let name = book.path().display().to_string();
    let path = scratch.join("in.egbk3");
    let report = convert(book, OutFormat::Egbk3, &path, control.reborrow())?;
    tracing::info!("{name}: converted to Egaroucid .egbk3 for the run ({} records)", report.written);
    let read = |e| GrowthError::Grown { read: name.clone(), source: Box::new(e) };
    let converted =
        Book::open_as(&path, &format!("{name} (converted to .egbk3)"), &ReadOptions::default()).map_err(read)?;
    Ok((converted, Some(report)))
}

/// The book learned, written whole into `path` (of the run's scratch folder).
fn write_learned(eg: &EgBook<'_>, path: &Path) -> Result<(), GrowthError> {
    let file = std::fs::File::create(path).map_err(RunError::io(path))?;
    let mut buffered = BufWriter::with_capacity(1 << 20, file);
    eg.write(&mut buffered).and_then(|_| buffered.flush()).map_err(RunError::io(path))?;
    Ok(())
}

/// OUT, an Edax book: the book learned (`learned`, an `.egbk3` file) as
/// `convert` writes it, whole or not at all.
fn into_out(learned: &Path, out: &Path, control: &mut Control<'_>) -> Result<ConvertReport, GrowthError> {
    // Opened by its own path, not a name for messages: convert checks the
    // file it reads against OUT, and for changes, by that path.
    let read = |e| GrowthError::Grown { read: learned.display().to_string(), source: Box::new(e) };
    let book = Book::open(learned, &ReadOptions::default()).map_err(read)?;
    let report = convert(book, OutFormat::Edax, out, control.reborrow())?;
    Ok(report)
}

/// Writes OUT from the book learned, and makes it appear unless the run was stopped.
fn write_out(
    eg: &EgBook<'_>,
    mut out: crate::files::AtomicFile,
    paths: &GrowthPaths,
    cancel: Cancel<'_>,
) -> Result<u64, GrowthError> {
    let path = &paths.output;
    let mut buffered = BufWriter::with_capacity(1 << 20, &mut out);
    let records = eg.write(&mut buffered).and_then(|n| buffered.flush().map(|_| n)).map_err(RunError::io(path))?;
    drop(buffered);
    let out = out.finish().map_err(RunError::io(path))?;
    cancel.check().map_err(GrowthError::interrupted(&paths.journal))?;
    out.commit().map_err(RunError::io(path))?;
    Ok(records)
}

/// A todo entry: a stored board, and what is left of its line's error sum.
#[derive(Clone, Copy, Debug)]
struct Todo {
    board: Board,
    remaining: i32,
}

/// A set in the order entries came, an entry per board (the first kept).
#[derive(Default)]
struct TodoSet {
    entries: Vec<Todo>,
    boards: HashSet<Board>,
}

impl TodoSet {
    fn contains(&self, board: &Board) -> bool {
        self.boards.contains(board)
    }

    fn insert(&mut self, todo: Todo) {
        if self.boards.insert(todo.board) {
            self.entries.push(todo);
        }
    }
}

/// A line being played out from a leaf expanded (Egaroucid's `expand_leaf`).
struct Line {
    /// The position to search next (stored).
    board: Board,
    /// The value of the position before it.
    prev_value: Score,
    remaining: i32,
}

/// A run's work and what it needs at hand.
struct Learner<'r, 'j, 'f, 'b, 'c> {
    eg: &'r mut EgBook<'b>,
    answerers: Answerers<'j, 'f>,
    options: &'r LearnOptions,
    level: Level,
    report: &'r mut GrowthReport<Learned>,
    control: &'r mut Control<'c>,
}

/// The number of discs on a board.
fn discs(board: &Board) -> u32 {
    64 - board.empties()
}

impl Learner<'_, '_, '_, '_, '_> {
    /// `book_deviate`: loops of illegal leaves searched again, the todo
    /// collected in two passes, its leaves expanded; until a loop adds
    /// nothing, `loops` are done, or `max_positions` are added.
    fn deviate(&mut self, root: Board, player: u8) -> Result<(), GrowthError> {
        let (level, depth, e) = (self.level, self.options.depth, self.options.errors);
        let l = level.to_i32();
        let recalc_level = Level::saturating((20 + (l & 1)).min((l - 2).max(1)));
        let recalc_depth = depth.saturating_sub(1).max(1);
        while self.report.adds.loops < self.options.loops {
            self.answerers.cancel.check().map_err(GrowthError::interrupted(self.answerers.journal.path()))?;
            self.report.adds.loops += 1;
            let todo = self.recalculate_todo(root, player, (recalc_level, recalc_depth), (e.per_move, e.sum), true);
            self.recalculate_leaves(&todo, recalc_level)?;
            let mut todo = TodoSet::default();
            for best_only in [0, 1] {
                let mut walk =
                    DeviateWalk { eg: self.eg, todo: &mut todo, seen: HashSet::new(), depth, errors: e, best_only };
                walk.visit(Symmetry::new(3).expect("the half turn").board(&root), player, e.sum);
            }
            self.report.adds.todo.push(todo.entries.len() as u64);
            tracing::info!("loop {}: {} leaves to expand", self.report.adds.loops, todo.entries.len());
            let added = self.expand(&todo.entries)?;
            self.report.added += added;
            if added == 0 || self.report.stopped_early {
                return Ok(());
            }
        }
        Ok(())
    }

    /// `get_book_recalculate_leaf_todo`: the positions reached within the
    /// errors whose leaf is illegal (or, unless `only_illegal`, below `level`).
    fn recalculate_todo(
        &mut self,
        root: Board,
        player: u8,
        (level, depth): (Level, u32),
        (per_move, sum): (i32, i32),
        only_illegal: bool,
    ) -> Vec<Board> {
        let mut walk = RecalcWalk {
            eg: self.eg,
            todo: TodoSet::default(),
            seen: HashSet::new(),
            depth,
            level: level.to_i32(),
            per_move,
            only_illegal,
        };
        walk.visit(root, player, sum);
        walk.todo.entries.into_iter().map(|t| t.board).collect()
    }

    /// `book_recalculate_leaves`: each position's leaf searched again at
    /// `level`, its links excluded (none left: "no move").
    fn recalculate_leaves(&mut self, todo: &[Board], level: Level) -> Result<(), GrowthError> {
        self.report.adds.recalculated.push(todo.len() as u64);
        if todo.is_empty() {
            return Ok(());
        }
        let queries: Vec<Option<Query>> = todo
            .iter()
            .map(|board| {
                let excluded = link_squares(&self.eg.links(board));
                let remaining = board.legal_moves() & !excluded;
                (remaining != 0).then(|| Query { board: *board, excluded: Squares::of(excluded), level })
            })
            .collect();
        let answers = self.ask(&queries, todo.len())?;
        for (board, answer) in todo.iter().zip(answers) {
            let key = self.eg.find_stored(board).expect("a position of the todo is held");
            let (value, mv) = match answer {
                Some(a) => (Score::from(a.score), a.mv.index()),
                None => (SCORE_UNDEFINED, MOVE_NOMOVE),
            };
            let elem = Elem { leaf_value: value, leaf_move: mv, leaf_level: level.to_i8(), ..self.eg.get(key) };
            self.eg.put(key, elem);
        }
        Ok(())
    }

    /// The searches of a batch answered, by the journal or the fleet.
    fn ask(&mut self, queries: &[Option<Query>], positions: usize) -> Result<Vec<Option<Answer>>, GrowthError> {
        let searches = queries.iter().filter(|q| q.is_some()).count();
        let round = self.report.adds.loops;
        self.control.phase(Phase::Round { round, candidates: positions, searches });
        let mut asked = Asked::default();
        let known = positions - searches;
        let control = &mut *self.control;
        let answers = self.answerers.answer(queries, &mut asked, &mut |done, busy| {
            control.counted((known + done) as u64);
            control.engines_busy(busy);
        })?;
        self.report.searches.count(&asked);
        Ok(answers)
    }

    /// `expand_leaves`: every todo leaf played out, the lines a step at a
    /// time. Returns Egaroucid's count of positions registered.
    fn expand(&mut self, todo: &[Todo]) -> Result<u64, GrowthError> {
        let mut added = 0;
        let mut lines = Vec::new();
        for t in todo {
            let elem = self.eg.get(self.eg.find_stored(&t.board).expect("a todo position is held"));
            let square = elem.leaf_square().expect("a todo leaf is a move");
            let child = t.board.after(Move::Play(square)).expect("a todo leaf is legal");
            if child.is_game_over() {
                self.eg.change(child, Score::new(child.final_score()), 60);
                added += 1;
                continue;
            }
            let child = if child.has_moves() { child } else { child.swapped() };
            lines.push(Line { board: normalize(&child).board, prev_value: elem.value, remaining: t.remaining });
        }
        let max = self.options.growth.max_positions;
        loop {
            lines.retain(|line| self.goes_on(line));
            if lines.is_empty() {
                return Ok(added);
            }
            if max.is_some_and(|n| self.eg.added() as u64 >= n) {
                self.report.stopped_early = true;
                return Ok(added);
            }
            let queries: Vec<Option<Query>> = lines.iter().map(|line| self.line_query(&line.board)).collect();
            let answers = self.ask(&queries, lines.len())?;
            let mut next = Vec::with_capacity(lines.len());
            for (line, answer) in lines.into_iter().zip(answers) {
                if !self.goes_on(&line) {
                    continue;
                }
                let (step, registered) = self.step(line, answer);
                added += registered;
                next.extend(step);
            }
            lines = next;
        }
    }

    /// Whether a line searches its position: within the depth, a position
    /// the book does not hold yet.
    fn goes_on(&self, line: &Line) -> bool {
        discs(&line.board) <= self.options.depth + 4
            && self.eg.find_stored(&line.board).is_none()
            && line.remaining >= 0
    }

    /// What a line's position asks: the best of the moves whose child the
    /// book does not hold (Egaroucid's search, consulting its book first,
    /// compares it with the best of those it holds); none if it holds all.
    fn line_query(&self, board: &Board) -> Option<Query> {
        let excluded = link_squares(&self.eg.links(board));
        (board.legal_moves() & !excluded != 0).then(|| Query {
            board: *board,
            excluded: Squares::of(excluded),
            level: self.level,
        })
    }

    /// A line's position registered with its value, then the line played on
    /// along its best move, or ended with that move as its leaf. Returns
    /// the line going on, if it does, and the positions registered.
    fn step(&mut self, mut line: Line, answer: Option<Answer>) -> (Option<Line>, u64) {
        let (depth, e) = (self.options.depth, self.options.errors);
        let level = self.level.to_i8();
        let (value, square) = best_of(&self.eg.links(&line.board), answer);
        self.eg.change(line.board, value, level);
        let mut registered = 1;
        let error = match line.prev_value == SCORE_UNDEFINED {
            true => 0,
            false => (-line.prev_value).discs() - value.discs(),
        };
        line.prev_value = value;
        if !(discs(&line.board) < depth + 4 && error <= e.per_move && error <= line.remaining) {
            let key = self.eg.find_stored(&line.board).expect("just registered");
            let elem =
                // The leaf's `char` takes the `int` as C++ converts it.
                Elem { leaf_value: value.wrapped_to_byte(), leaf_move: square.index(), leaf_level: level, ..self.eg.get(key) };
            self.eg.put(key, elem);
            return (None, registered);
        }
        let mut next = line.board.after(Move::Play(square)).expect("a legal move");
        if !next.has_moves() {
            if next.is_game_over() {
                self.eg.change(next, Score::new(next.final_score()), 60);
                registered += 1;
                return (None, registered);
            }
            next = next.swapped();
            line.prev_value = -line.prev_value;
        }
        line.board = normalize(&next).board;
        (Some(line), registered)
    }
}

/// The squares of `links`, as a bitboard.
fn link_squares(links: &[Link]) -> u64 {
    links.iter().fold(0, |bits, link| bits | link.square.bit())
}

/// The move a line plays and its value: the best link (the first of equal
/// ones) unless the search found a move scoring more.
fn best_of(links: &[Link], answer: Option<Answer>) -> (Score, Square) {
    let book = links.iter().fold(None::<&Link>, |best, l| match best {
        Some(b) if b.value >= l.value => Some(b),
        _ => Some(l),
    });
    match (book, answer) {
        (Some(b), Some(a)) if Score::from(a.score) <= b.value => (b.value, b.square),
        (_, Some(a)) => (Score::from(a.score), a.mv),
        (Some(b), None) => (b.value, b.square),
        (None, None) => unreachable!("a line's position has a legal move"),
    }
}

/// The walk of `get_book_recalculate_leaf_todo`.
struct RecalcWalk<'a, 'b> {
    eg: &'a EgBook<'b>,
    todo: TodoSet,
    seen: HashSet<Board>,
    depth: u32,
    level: i32,
    per_move: i32,
    only_illegal: bool,
}

impl RecalcWalk<'_, '_> {
    fn visit(&mut self, board: Board, player: u8, remaining: i32) {
        let Some((board, player)) = playable(board, player) else { return };
        if discs(&board) > self.depth + 4 {
            return;
        }
        let board = normalize(&board).board;
        if self.todo.contains(&board) {
            return;
        }
        let Some(key) = self.eg.find_stored(&board) else { return };
        if !self.seen.insert(board) {
            return;
        }
        let elem = self.eg.get(key);
        let links = self.eg.links(&board);
        let remaining_legal = board.legal_moves() & !link_squares(&links);
        let illegal = match remaining_legal {
            0 => elem.leaf_move != MOVE_NOMOVE,
            _ => elem.leaf_square().is_none_or(|s| remaining_legal & s.bit() == 0),
        };
        if illegal || (!self.only_illegal && i32::from(elem.leaf_level) < self.level) {
            self.todo.insert(Todo { board, remaining });
        }
        for link in &links {
            let child = board.after(Move::Play(link.square)).expect("a link is legal");
            let mut value = link.value;
            // Egaroucid reads the child as the move leaves it (before any pass).
            if let Some(child_value) = self.eg.value_of(&child) {
                if value < -child_value {
                    value = child_value;
                }
            }
            let error = elem.value.discs() - value.discs();
            if error <= self.per_move && error <= remaining {
                self.visit(child, player ^ 1, remaining - error.max(0));
            }
        }
    }
}

/// The board and side to move once a forced pass is played; `None` when
/// the game is over.
fn playable(board: Board, player: u8) -> Option<(Board, u8)> {
    if board.has_moves() {
        return Some((board, player));
    }
    let passed = board.swapped();
    passed.has_moves().then_some((passed, player ^ 1))
}

/// The walk of `get_book_deviate_todo`, one pass: `best_only` (0 Black,
/// 1 White) follows only its best moves.
struct DeviateWalk<'a, 'b> {
    eg: &'a EgBook<'b>,
    todo: &'a mut TodoSet,
    seen: HashSet<Board>,
    depth: u32,
    errors: Errors,
    best_only: u8,
}

impl DeviateWalk<'_, '_> {
    fn visit(&mut self, board: Board, player: u8, remaining: i32) {
        let Some((board, player)) = playable(board, player) else { return };
        if discs(&board) >= self.depth + 4 {
            return;
        }
        // Egaroucid asks its todo set before turning the board to its
        // representative: only a board that already is one is found.
        if self.todo.contains(&board) {
            return;
        }
        let board = normalize(&board).board;
        let Some(key) = self.eg.find_stored(&board) else { return };
        if !self.seen.insert(board) {
            return;
        }
        let elem = self.eg.get(key);
        let links = self.eg.links(&board);
        let (value, leaf_value) = (elem.value, elem.leaf_value);
        let best_only = player == self.best_only;
        let best = match best_only {
            true => {
                let mut best = links.iter().map(|l| l.value).fold(Score::new(-64), Score::max);
                if (Score::new(-64)..=Score::new(64)).contains(&leaf_value) && elem.leaf_square().is_some() {
                    best = best.max(leaf_value);
                }
                Some(best)
            }
            false => None,
        };
        if best.is_none_or(|best| leaf_value >= best) && value.discs() - leaf_value.discs() <= self.errors.leaf {
            let takes = elem
                .leaf_square()
                .is_some_and(|s| board.legal_moves() & s.bit() != 0 && !links.iter().any(|l| l.square == s));
            if takes {
                self.todo.insert(Todo { board, remaining });
            }
        }
        if discs(&board) + 1 >= self.depth + 4 {
            return;
        }
        for link in &links {
            if best.is_some_and(|best| link.value != best) {
                continue;
            }
            let error = value.discs() - link.value.discs();
            if error <= self.errors.per_move && error <= remaining {
                let child = board.after(Move::Play(link.square)).expect("a link is legal");
                self.visit(child, player ^ 1, remaining - error.max(0));
            }
        }
    }
}
