//! The depth-first walk over a book's edges (docs/walk.md). It reports each arrival
//! to a [`Visitor`] and knows nothing of what the visitor does with it.
//!
//! The walk of docs/walk.md keeps a visited flag per (stored position, stored move) and always
//! follows the first unvisited move, so the moves visited at a position are
//! always a prefix of its moves in stored order. A position can only be on the
//! walk's stack once (every move adds a disc, and two passes never follow each
//! other on a legal line), and when its frame is popped every move of it has
//! been followed. So one flag per position, set on the first arrival, says the
//! same thing as the flags per move: the walk keeps a bit per record, and the
//! frame keeps the prefix length.
//!
//! The walk reads [`Positions`]; a book file's are a [`ResolvedBook`]: where
//! every stored move leads was worked out before it starts (on every core,
//! many lookups at a time), so a position's children are known the moment
//! its record is read. Entering a position asks for all of its children's
//! records and targets at once, and the arrival is judged while they
//! arrive: a line of positions costs one trip to memory per position, not
//! an index lookup and then a record. Where a walk starts is [`start`]'s;
//! where it first arrived at each record, kept for lines written after it
//! (`fix`'s receipt, `diff`), is `first_arrivals`'.

mod ahead;
pub(crate) mod first_arrivals;
mod scouts;
mod start;
mod visited;

pub use start::{describe_line, LeavesBook, Start, StartMissing};

use scouts::Scouts;
use visited::Visited;

use crate::board::{Board, Move};
use crate::book::index::Located;
use crate::book::{Book, Destination, FilePlace, Link, Record, RecordId, ResolvedBook, Score};
use crate::symmetry::Placement;
use crate::symmetry::{normalize, symmetry_between, Symmetry};
use crate::window::{Place, Window};
use std::fmt;

/// What a walk reads: positions by where they are, each with its moves
/// (links, then its leaf) in the order the walk follows them, and where
/// each leads. A book file's records as resolved ([`ResolvedBook`]), or a
/// book as it grows (`extend`'s): the walk is the same over either.
pub trait Positions {
    /// Every position's id is below this.
    fn ids(&self) -> u64;
    /// The position at `at`; where each of its moves leads is appended to
    /// `targets`, in the order of [`Record::moves`].
    fn read(&self, at: Located, targets: &mut Vec<Destination>) -> Record;
    /// Asks for the memory [`Positions::read`] of `at` reads, to be read a
    /// little later.
    fn prefetch(&self, _at: Located) {}
    /// Where the first link of `at` leads, if that is known without
    /// reading the position: the walk then reads ahead down first links.
    fn first_child(&self, _at: Located) -> Option<Located> {
        None
    }
    /// Where the position read as `id` at `offset` is, for messages.
    fn place(&self, id: RecordId, offset: u64) -> FilePlace;
    /// The stored board of the position read as `id` at `offset`.
    fn board_at(&self, id: RecordId, offset: u64) -> Board;
    /// These positions as a book file's resolved records, which a second
    /// thread can walk ahead of the walk (see [`ahead`]); none for others.
    fn resolved(&self) -> Option<&ResolvedBook> {
        None
    }
}

impl Positions for ResolvedBook {
    fn ids(&self) -> u64 {
        self.counts().records
    }

    #[inline]
    fn read(&self, at: Located, targets: &mut Vec<Destination>) -> Record {
        ResolvedBook::read(self, at, targets)
    }

    #[inline]
    fn prefetch(&self, at: Located) {
        ResolvedBook::prefetch(self, at)
    }

    #[inline]
    fn first_child(&self, at: Located) -> Option<Located> {
        ResolvedBook::first_child(self, at)
    }

    fn place(&self, id: RecordId, offset: u64) -> FilePlace {
        self.file().place(id, offset)
    }

    fn board_at(&self, _id: RecordId, offset: u64) -> Board {
        self.file().board_at(offset)
    }

    fn resolved(&self) -> Option<&ResolvedBook> {
        Some(self)
    }
}

/// Positions made ready for one walk: its start found, and where the walk
/// goes from there. A book file's walk reads it with every stored move
/// resolved (see [`Book::resolve`]).
pub struct Walkable<P = ResolvedBook> {
    book: P,
    start: Start,
    root: Located,
    window: Window,
    /// Whether leaves are followed too (docs/walk.md), or links only.
    leaves: bool,
    /// Whether each position is entered at most once, on its first
    /// arrival, whatever the window says of the ply (see
    /// [`Walkable::each_position_once`]).
    once: bool,
    /// The threads it may walk on (see [`Walkable::on_threads`]).
    threads: usize,
}

impl<P: Positions> Walkable<P> {
    /// A walk of `positions` from `root`, reached from the initial position
    /// by `start`'s line: over links and leaves, with no window.
    pub fn over(positions: P, start: Start, root: Located) -> Walkable<P> {
        let threads = crate::parallel::threads();
        Walkable { book: positions, start, root, window: Window::NONE, leaves: true, once: false, threads }
    }

    /// The same walk on `threads` threads at most (by default, as many as
    /// the run works on: `--threads`). With [`RUNNER_FROM`] or more, a book
    /// file's walk without a window has a thread walk ahead of it (see
    /// [`ahead`]): every arrival and every record it hands out are the
    /// same, in the same order, on any number.
    pub fn on_threads(self, threads: usize) -> Walkable<P> {
        Walkable { threads, ..self }
    }

    /// The same walk over links only: Edax's own walks (its negamax, and
    /// the candidates of its extend), which never follow a leaf.
    pub fn links_only(self) -> Walkable<P> {
        Walkable { leaves: false, ..self }
    }

    /// The same walk, following only the moves `window` lets through (docs/walk.md, windows).
    pub fn within(self, window: Window) -> Walkable<P> {
        Walkable { window, ..self }
    }

    /// The same walk entering each position once, on its first arrival,
    /// as `extend` walks for its candidates: a position first reached
    /// where the window lets none of its moves through (past `max_ply`, or
    /// at the other parity under `error`) is not entered again.
    pub fn each_position_once(self) -> Walkable<P> {
        Walkable { once: true, ..self }
    }

    /// Where the walk starts.
    pub fn root(&self) -> Located {
        self.root
    }

    /// What the walk reads.
    pub fn positions(&self) -> &P {
        &self.book
    }
}

impl Walkable {
    /// Finds the start position in the book, then resolves the book.
    pub fn new(book: Book, start: &Start) -> Result<Walkable, StartMissing> {
        Walkable::resolved(book, start, false)
    }

    /// [`Walkable::new`] of a book resolved with its index kept, to be
    /// looked up again once the walks are done
    /// ([`ResolvedBook::into_book`]).
    pub fn keeping_index(book: Book, start: &Start) -> Result<Walkable, StartMissing> {
        Walkable::resolved(book, start, true)
    }

    fn resolved(book: Book, start: &Start, keep_index: bool) -> Result<Walkable, StartMissing> {
        let root = start.locate_in(&book)?;
        let book = match keep_index {
            true => book.resolve_keeping_index(),
            false => book.resolve(),
        };
        Ok(Walkable::over(book, start.clone(), root))
    }

    /// The resolved book the walk reads.
    pub fn book(&self) -> &ResolvedBook {
        &self.book
    }

    /// The resolved book, once the walks are done.
    pub fn into_book(self) -> ResolvedBook {
        self.book
    }
}

/// A book made ready to walk from the initial position, or, when it lacks
/// that position (an empty book), resolved with nothing to walk: every
/// record is then unreached.
pub enum FromInitial {
    /// The book holds the initial position: ready to walk from it.
    Walkable(Walkable),
    /// The book lacks it: resolved, nothing to walk.
    Unwalkable(ResolvedBook),
}

impl FromInitial {
    /// Resolves `book` for a walk from the initial position. Fails only if
    /// the book changed between the two lookups of that position.
    pub fn new(book: Book) -> Result<FromInitial, StartMissing> {
        let start = Start::initial();
        match book.locate(&normalize(&start.board).board) {
            Some(_) => Ok(FromInitial::Walkable(Walkable::new(book, &start)?)),
            None => Ok(FromInitial::Unwalkable(book.resolve())),
        }
    }

    /// The resolved book, walkable or not.
    pub fn book(&self) -> &ResolvedBook {
        match self {
            FromInitial::Walkable(walkable) => walkable.book(),
            FromInitial::Unwalkable(book) => book,
        }
    }
}

/// One arrival: a move followed from a book position to a child that is in
/// the book too.
pub struct Arrival<'a> {
    /// Moves from the initial position to the child, in the walk's actual
    /// coordinates, passes included; the last one was just played.
    pub line: &'a [Move],
    /// The record the move was played from: the position on top of the
    /// walk's stack, reached by `line` less its last move (and pass).
    pub parent: RecordId,
    /// The move played is the parent's leaf, not one of its links.
    pub by_leaf: bool,
    /// The walk enters the child now: it had not stood on it before (under a
    /// window that depends on the ply's parity, not at this parity; past
    /// `max_ply` it enters nothing).
    pub first_time: bool,
    /// The score the parent's record gives the move just played.
    pub parent_score: Score,
    /// A pass followed the parent's move (an Egaroucid link, docs/formats.md, Egaroucid books): the
    /// child's side to move is the parent's, and the line ends with the pass.
    pub via_pass: bool,
    /// The child's record (stored coordinates).
    pub child: &'a Record,
    /// Maps the child's stored board and moves onto the actual board.
    pub child_symmetry: Symmetry,
}

impl Arrival<'_> {
    /// The child as the line reaches it: its stored board under
    /// [`Arrival::child_symmetry`]. Worked out when asked for, since most
    /// arrivals are never written.
    pub fn board(&self) -> Board {
        self.child_symmetry.board(&self.child.board)
    }
}

/// Counts of what a walk did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// (position, move) pairs followed, whether or not the child was in the book.
    pub edges: u64,
    /// Edges whose child is in the book.
    pub arrivals: u64,
    /// Distinct positions the walk stood on, the start included.
    pub positions: u64,
}

/// A position the walk leaves for good: every move of it has been followed,
/// and every position below it left before it (post-order).
pub struct Departure<'a> {
    /// The record of the position left.
    pub record: RecordId,
    /// Where the record starts in the file.
    pub offset: u64,
    /// Its links, in stored order, each with where it leads.
    pub links: &'a [Child],
    /// Its leaf, if it has one, and where it leads.
    pub leaf: Option<&'a Child>,
}

/// What the walk reports to.
pub trait Visitor {
    /// What stops the walk when the visitor fails ([`WalkError::Visitor`]).
    type Error;
    /// Called once for every arrival, in walk order.
    fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Self::Error>;
    /// Asked before the walk first enters a position (the start aside):
    /// whether to enter it. A visitor that knows already what lies below a
    /// position says no, and the walk goes on as if it had been there.
    #[inline(always)]
    fn enters(&mut self, _child: &Record) -> bool {
        true
    }
    /// Called once for every position walked, the start included, when the
    /// walk leaves it for good. Children are left before their parents, so
    /// a value computed here from the children's is a negamax.
    fn leave(&mut self, _departure: &Departure<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    /// Called every [`PROGRESS_INTERVAL`] edges; an error stops the walk.
    fn progress(&mut self, _stats: &WalkStats) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// How many edges pass between calls to [`Visitor::progress`].
pub const PROGRESS_INTERVAL: u64 = 1 << 16;

/// Why a walk stopped early.
#[derive(Debug)]
pub enum WalkError<E> {
    /// The start position (normalized) is not in the book.
    StartMissing(StartMissing),
    /// A stored move is not legal on the board it belongs to.
    IllegalMove {
        /// The record that stores it.
        place: FilePlace,
        /// The move as stored.
        stored: Move,
        /// The move as played on the position the walk stands on (turned
        /// as the stored board lies there).
        actual: Move,
        /// That position, on which the move is illegal.
        board: Board,
        /// The line from the start to that position.
        line: Vec<Move>,
    },
    /// The visitor stopped the walk.
    Visitor(E),
}

impl<E> From<StartMissing> for WalkError<E> {
    fn from(missing: StartMissing) -> WalkError<E> {
        WalkError::StartMissing(missing)
    }
}

impl<E: fmt::Display> fmt::Display for WalkError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WalkError::StartMissing(missing) => missing.fmt(f),
            WalkError::IllegalMove { place, stored, actual, board, line } => write!(
                f,
                "{place}: stored move {stored} (played as {actual} {}) is illegal \
                 on board player {:#018x}, opponent {:#018x}",
                describe_line(line),
                board.player,
                board.opponent
            ),
            WalkError::Visitor(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for WalkError<E> {}

/// A move of a position on the stack, and where it leads.
#[derive(Clone, Copy, Debug)]
pub struct Child {
    /// The move, with its stored score.
    pub link: Link,
    /// Where it leads, as resolved before the walk.
    pub target: Destination,
}

/// A position on the walk's stack. Its moves (links, then the leaf, in the
/// order they are followed) are `Walker::moves[first..first + len]`: kept
/// in one array shared by the whole stack, not in the frame, so that
/// pushing a frame copies a few words.
struct Frame {
    record: RecordId,
    offset: u64,
    /// Maps the record's stored moves onto the walk's board.
    symmetry: Symmetry,
    first: usize,
    len: usize,
    /// How many of the moves are links (the leaf, if any, comes after them).
    links: usize,
    /// How many of the moves have been followed.
    followed: usize,
    /// How long the line was before the move (and pass) that reached it.
    line_before: usize,
}

/// Room kept for the walk's stack from the start: a game has at most 60
/// moves (and a few passes); the vectors grow should a line need more.
const MAX_DEPTH: usize = 64;

/// The walk's state: the line played so far and the positions along it.
/// The walk keeps no board: a position is its stored board under the
/// frame's symmetry, worked out only where it is needed.
struct Walker<'b, P, V> {
    book: &'b P,
    window: Window,
    /// The start position's value, which `error` measures from.
    start_value: Score,
    /// The length of the start's own line: plies count from there.
    start_ply: usize,
    visited: Visited,
    visitor: V,
    /// Vecs, not small vectors: the stack and the line are touched at
    /// every edge, and a small vector checks where its items are each time.
    line: Vec<Move>,
    stack: Vec<Frame>,
    /// The moves of every frame on the stack, the top frame's last.
    moves: Vec<Child>,
    /// The targets of the record just read.
    targets: Vec<Destination>,
    scouts: Scouts,
    stats: WalkStats,
    /// Under a window, how many links the last [`Walker::add_moves`] kept.
    links_kept: usize,
    /// Whether leaves are followed.
    leaves: bool,
    /// Whether each position is entered once whatever the ply.
    once: bool,
    /// The ring of the runner walking ahead, while there is one and the two
    /// walks agree: it takes the scouts' place.
    follower: Option<ahead::Follower<'b>>,
}

/// The threads a walk needs before a runner walks ahead of it: one walks,
/// one does what the visitor hands off beside the walk (mining's judge,
/// `fix`'s solver, `convert`'s writer), and the runner needs a core of its
/// own: on a core shared with the walk or the judge it only takes time from
/// them (docs/benchmarks.md, the walk on every core).
pub const RUNNER_FROM: usize = 3;

/// Walks every edge reachable from the start once, reporting arrivals to
/// `visitor`. On [`RUNNER_FROM`] threads or more (see
/// [`Walkable::on_threads`]), a book file's walk without a window has a
/// thread walk ahead of it.
pub fn walk<P: Positions, V: Visitor>(
    walkable: &Walkable<P>,
    visitor: V,
) -> Result<(WalkStats, V), WalkError<V::Error>> {
    let runs_ahead = walkable.threads >= RUNNER_FROM && walkable.window.is_open();
    let Some(book) = walkable.book.resolved().filter(|_| runs_ahead) else {
        return walk_with(walkable, visitor, None);
    };
    let shared = ahead::Ahead::new();
    std::thread::scope(|scope| {
        let (root, leaves, shared) = (walkable.root, walkable.leaves, &shared);
        let runner = std::thread::Builder::new()
            .name("walk ahead".into())
            .spawn_scoped(scope, move || ahead::run(book, root, leaves, shared));
        // No thread to be had: the walk goes alone, as on one thread.
        let follower = runner.is_ok().then(|| ahead::Follower::new(shared));
        let walked = walk_with(walkable, visitor, follower);
        shared.stop();
        walked
    })
}

/// Asks for what entering the position at `at` reads first: its record
/// and targets ([`Positions::prefetch`]) and its visited bit. A parent
/// asks it for its children, a scout for each step, the runner's ring for
/// the entry ahead.
#[inline(always)]
fn ask_for_entry<P: Positions>(book: &P, visited: &Visited, at: Located) {
    book.prefetch(at);
    visited.prefetch(at.id);
}

/// [`walk`], told by `follower` which positions lie ahead, if a runner walks ahead.
fn walk_with<P: Positions, V: Visitor>(
    walkable: &Walkable<P>,
    visitor: V,
    follower: Option<ahead::Follower<'_>>,
) -> Result<(WalkStats, V), WalkError<V::Error>> {
    let (book, start) = (&walkable.book, &walkable.start);
    let contexts = if walkable.window.depends_on_parity() && !walkable.once { 2 } else { 1 };
    let mut walker = Walker {
        book,
        window: walkable.window,
        start_value: Score(0),
        start_ply: start.line.len(),
        visited: Visited::new(book.ids(), contexts),
        visitor,
        line: Vec::with_capacity(start.line.len() + 2 * MAX_DEPTH),
        stack: Vec::with_capacity(MAX_DEPTH),
        moves: Vec::new(),
        targets: Vec::new(),
        scouts: Scouts::new(),
        stats: WalkStats { positions: 1, ..WalkStats::default() },
        links_kept: 0,
        leaves: walkable.leaves,
        once: walkable.once,
        follower,
    };
    walker.line.extend_from_slice(&start.line);
    let record = book.read(walkable.root, &mut walker.targets);
    walker.start_value = record.value;
    if !walker.enter(record.id, start.line.len()) {
        return Ok((walker.stats, walker.visitor));
    }
    let first = walker.add_moves(&record, start.line.len());
    walker.push_frame(&record, normalize(&start.board).to_original, first, start.line.len());
    walker.run()?;
    Ok((walker.stats, walker.visitor))
}

impl<P: Positions, V: Visitor> Walker<'_, P, V> {
    fn run(&mut self) -> Result<(), WalkError<V::Error>> {
        while let Some(top) = self.stack.last_mut() {
            if top.followed == top.len {
                self.backtrack()?;
                continue;
            }
            let at = top.first + top.followed;
            top.followed += 1;
            self.follow(at)?;
        }
        Ok(())
    }

    /// The context a position `line_len` moves into the line is entered
    /// in (see [`Visited`]).
    fn context(&self, line_len: usize) -> usize {
        match self.visited.contexts {
            1 => 0,
            _ => (line_len - self.start_ply) % 2,
        }
    }

    /// Marks the record entered at a position `line_len` moves into the
    /// line; false if the walk is not to enter it: it was entered in this
    /// context before, or the window lets none of its moves through there.
    fn enter(&mut self, id: RecordId, line_len: usize) -> bool {
        if !self.once && !self.window.open_at(line_len - self.start_ply) {
            return false;
        }
        let context = self.context(line_len);
        self.visited.insert_in(id, context)
    }

    /// True if the window lets a move through at a position `line_len`
    /// moves into the line (its best move `best`), and the walk did not
    /// follow it when it entered the record in the other context.
    fn follows(&self, score: Score, id: RecordId, line_len: usize, best: Option<Score>) -> bool {
        let ply = line_len - self.start_ply;
        if !self.window.passes(score, Place { ply, best }, self.start_value) {
            return false;
        }
        // Entered in the other context, the record followed every move the
        // window let through at that parity (max_ply held: it was entered).
        let other = 1 - self.context(line_len);
        let other_parity = Window { max_ply: None, ..self.window };
        let followed_before = self.visited.contexts == 2
            && self.visited.contains(id, other)
            && other_parity.passes(score, Place { ply: ply + 1, best }, self.start_value);
        !followed_before
    }

    /// Appends the moves of a record just read (its targets in
    /// [`Walker::targets`]) to [`Walker::moves`], having asked for the
    /// records they lead to; returns where they start. Under a window, only
    /// the moves it lets through at a position `line_len` moves into the
    /// line are appended.
    fn add_moves(&mut self, record: &Record, line_len: usize) -> usize {
        let first = self.moves.len();
        // The children first: the walk goes down the first of them next,
        // and every step taken before its memory is asked for is a step
        // of waiting for it later.
        self.prefetch_children(record);
        if self.follower.is_none() {
            // A scout asks for the visited bit too: the walk reads it first
            // when it enters, and a bit left to the parent's request (one
            // position before) arrives after the record and targets the
            // scout asked for long before.
            let (book, visited) = (self.book, &self.visited);
            self.scouts.advance(|at| book.first_child(at), |at| ask_for_entry(book, visited, at));
        }
        if !self.window.is_open() {
            self.add_moves_within(record, line_len);
            return first;
        }
        let mut children = 0;
        let followed = self.moves_followed(record);
        // Taken out while the moves are pushed, which needs the walker whole.
        let targets = std::mem::take(&mut self.targets);
        for (link, &target) in record.moves().zip(&targets).take(followed) {
            self.push_move(link, target, &mut children);
        }
        self.targets = targets;
        first
    }

    /// Asks for what entering a child reads ([`ask_for_entry`]), for every
    /// child the moves of `record` (read into [`Walker::targets`]) lead to,
    /// to be read when the walk gets there. Under a window, those of moves
    /// it will not let through too: the window is asked after, and an
    /// unused request is only memory traffic (extend, whose walks have
    /// windows, took as long: see docs/benchmarks.md).
    #[inline(always)]
    fn prefetch_children(&self, record: &Record) {
        for target in self.targets.iter().take(self.moves_followed(record)) {
            if let Destination::Child(at, _) = *target {
                ask_for_entry(self.book, &self.visited, at);
            }
        }
    }

    /// Appends one move to [`Walker::moves`]; every child after the first
    /// sends a scout ahead. `children` counts the children pushed so far
    /// at this position.
    #[inline(always)]
    fn push_move(&mut self, link: Link, target: Destination, children: &mut usize) {
        if let Destination::Child(at, _) = target {
            if *children > 0 && self.follower.is_none() {
                self.scouts.start(at);
            }
            *children += 1;
        }
        self.moves.push(Child { link, target });
    }

    /// [`Walker::add_moves`] under a window; notes in
    /// [`Walker::links_kept`] how many of the moves kept are links.
    fn add_moves_within(&mut self, record: &Record, line_len: usize) {
        let best = record.moves().map(|link| link.score).max();
        let mut children = 0;
        self.links_kept = 0;
        let followed = self.moves_followed(record);
        let targets = std::mem::take(&mut self.targets);
        for (i, (link, &target)) in record.moves().zip(&targets).enumerate().take(followed) {
            if !self.follows(link.score, record.id, line_len, best) {
                continue;
            }
            if i < record.n_links() {
                self.links_kept += 1;
            }
            self.push_move(link, target, &mut children);
        }
        self.targets = targets;
    }

    /// How many of a record's moves (links, then its leaf) the walk follows.
    fn moves_followed(&self, record: &Record) -> usize {
        match self.leaves {
            true => usize::MAX,
            false => record.n_links(),
        }
    }

    /// Pushes the frame of the position on the board: `record`, whose
    /// moves [`Walker::add_moves`] added from `first` on, and `symmetry`
    /// maps onto the board.
    fn push_frame(&mut self, record: &Record, symmetry: Symmetry, first: usize, line_before: usize) {
        self.stack.push(Frame {
            record: record.id,
            offset: record.offset,
            symmetry,
            first,
            len: self.moves.len() - first,
            links: match self.window.is_open() {
                true => record.n_links(),
                false => self.links_kept,
            },
            followed: 0,
            line_before,
        });
    }

    /// Pops the top frame, tells the visitor, drops the frame's moves and
    /// takes back the move that reached it.
    fn backtrack(&mut self) -> Result<(), WalkError<V::Error>> {
        let frame = self.stack.pop().expect("backtrack with a frame on the stack");
        let moves = &self.moves[frame.first..frame.first + frame.len];
        let (links, leaf) = moves.split_at(frame.links.min(moves.len()));
        let departure = Departure { record: frame.record, offset: frame.offset, links, leaf: leaf.first() };
        self.visitor.leave(&departure).map_err(WalkError::Visitor)?;
        self.moves.truncate(frame.first);
        self.line.truncate(frame.line_before);
        Ok(())
    }

    /// Follows one move (`moves[at]`) of the position on top of the stack.
    fn follow(&mut self, at: usize) -> Result<(), WalkError<V::Error>> {
        self.stats.edges += 1;
        if self.stats.edges.is_multiple_of(PROGRESS_INTERVAL) {
            self.visitor.progress(&self.stats).map_err(WalkError::Visitor)?;
        }
        let Child { link, target } = self.moves[at];
        let top = self.stack.last().expect("a frame on the stack");
        let actual = top.symmetry.apply_move(link.mv);
        let by_leaf = at - top.first >= top.links;
        match target {
            Destination::Absent => Ok(()),
            Destination::Illegal => Err(self.illegal(link, actual)),
            Destination::Child(child, placement) => self.arrive(link, by_leaf, actual, child, placement),
        }
    }

    /// Plays `actual` to the child at `child`, reports the arrival, and
    /// enters the child if it is new. `placement` says how the child's
    /// stored board lies on the position the stored move reaches; composed
    /// with the parent's symmetry, it maps the child onto the board.
    fn arrive(
        &mut self,
        link: Link,
        by_leaf: bool,
        actual: Move,
        child: Located,
        placement: Placement,
    ) -> Result<(), WalkError<V::Error>> {
        let parent = self.stack.last().expect("a frame on the stack");
        let (parent_symmetry, parent) = (parent.symmetry, parent.record);
        self.stats.arrivals += 1;
        // Legal: resolving played every stored move (a book changed since
        // is found when the walk ends, and nothing it read is kept).
        let line_before = self.line.len();
        self.line.push(actual);
        if link.then_pass {
            self.line.push(Move::Pass);
        }
        self.targets.clear();
        let record = self.book.read(child, &mut self.targets);
        let line_len = self.line.len();
        let first_time = self.enter(child.id, line_len) && self.visitor.enters(&record);
        if first_time {
            self.look_ahead(child);
        }
        // The new position's children are on their way while the visitor
        // judges the arrival.
        let first = first_time.then(|| self.add_moves(&record, line_len));
        let mapping = parent_symmetry.after(placement.symmetry);
        let symmetry = match placement.symmetric {
            false => mapping,
            // Several symmetries map the child there: the smallest is the one.
            true => symmetry_between(&record.board, &mapping.board(&record.board)).unwrap_or(mapping),
        };
        let arrival = Arrival {
            line: &self.line,
            parent,
            by_leaf,
            first_time,
            parent_score: link.score,
            via_pass: link.then_pass,
            child: &record,
            child_symmetry: symmetry,
        };
        self.visitor.arrive(&arrival).map_err(WalkError::Visitor)?;
        match first {
            Some(first) => {
                self.stats.positions += 1;
                self.push_frame(&record, symmetry, first, line_before);
            }
            None => self.line.truncate(line_before),
        }
        Ok(())
    }

    /// Checks the position the walk enters, `at`, against the runner's
    /// ring, and asks for the memory of the one it will enter a few
    /// entries on. Where the two walks part, the runner is stopped and the
    /// scouts take over.
    #[inline]
    fn look_ahead(&mut self, at: Located) {
        let Some(follower) = &mut self.follower else { return };
        match follower.enter(at) {
            ahead::Said::Same(Some(next)) => ask_for_entry(self.book, &self.visited, next),
            ahead::Said::Same(None) => {}
            ahead::Said::Parted => {
                tracing::debug!("the walk parted from the runner ahead of it at record {}; it goes on alone", at.id.0);
                follower.stop();
                self.follower = None;
            }
        }
    }

    /// The error for a stored move of the top frame that is not legal.
    fn illegal(&self, link: Link, actual: Move) -> WalkError<V::Error> {
        let frame = self.stack.last().expect("a frame on the stack");
        WalkError::IllegalMove {
            place: self.book.place(frame.record, frame.offset),
            stored: link.mv,
            actual,
            board: frame.symmetry.board(&self.book.board_at(frame.record, frame.offset)),
            line: self.line.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashSet, VecDeque};

    /// Counts the arrivals through leaves and the positions entered.
    #[derive(Default)]
    struct Tally {
        by_leaf: usize,
        entered: HashSet<RecordId>,
    }

    impl Visitor for Tally {
        type Error = std::convert::Infallible;

        fn arrive(&mut self, arrival: &Arrival<'_>) -> Result<(), Self::Error> {
            self.by_leaf += usize::from(arrival.by_leaf);
            if arrival.first_time {
                self.entered.insert(arrival.child.id);
            }
            Ok(())
        }
    }

    /// A walk over links only enters every position reached from the start
    /// over links (the slow reference: a search that plays each link and
    /// looks its child up), and nothing through a leaf; the walk that also
    /// follows leaves arrives through some in this book.
    #[test]
    fn a_walk_over_links_only_enters_what_links_reach() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/books/edax46-l2-small.dat");
        let open = || Book::open(&path, &crate::book::ReadOptions::default()).unwrap();
        let book = open();
        let root = book.locate(&normalize(&Board::INITIAL).board).unwrap();
        let mut reached = HashSet::from([root.id]);
        let mut queue = VecDeque::from([book.record(root.id).unwrap()]);
        while let Some(record) = queue.pop_front() {
            for link in record.links() {
                let Some(after) = record.board.after(link.mv) else { continue };
                let child = normalize(&if link.then_pass { after.swapped() } else { after }).board;
                if let Some(found) = book.find(&child) {
                    if reached.insert(found.id) {
                        queue.push_back(found);
                    }
                }
            }
        }
        let start = Start::initial();
        let links_only = Walkable::new(open(), &start).unwrap().links_only();
        let (_, tally) = walk(&links_only, Tally::default()).unwrap();
        assert_eq!(tally.by_leaf, 0);
        let mut entered = tally.entered;
        entered.insert(root.id);
        assert_eq!(entered, reached);
        let (_, whole) = walk(&Walkable::new(open(), &start).unwrap(), Tally::default()).unwrap();
        assert!(
            whole.by_leaf > 0,
            "leaves lead into this book: {} arrivals, {} entered",
            whole.by_leaf,
            whole.entered.len()
        );
    }
}
