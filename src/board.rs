//! Othello boards as pairs of bitboards: squares, moves, legal-move generation,
//! flips, and playing a move.

use smallvec::SmallVec;
use std::fmt;

/// A set of squares. Bit x is square x = column + 8·row: A1 = bit 0, H1 = bit 7,
/// A8 = bit 56, H8 = bit 63. Every bitboard in this crate uses this order.
pub type Bitboard = u64;

const NOT_FILE_A: Bitboard = 0xfefe_fefe_fefe_fefe;
const NOT_FILE_H: Bitboard = 0x7f7f_7f7f_7f7f_7f7f;

/// The four centre squares D4, E4, D5, E5: never empty in a real position.
pub const CENTRE: Bitboard = (1 << 27) | (1 << 28) | (1 << 35) | (1 << 36);

/// One of the 64 squares, `column + 8·row` (see [`Bitboard`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this index, if it is on the board.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// Its index, 0 (A1) to 63 (H8), row by row.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// Its bit in a [`Bitboard`].
    pub const fn bit(self) -> Bitboard {
        1 << self.0
    }

    /// Its column, 0 (A) to 7 (H).
    pub const fn column(self) -> u8 {
        self.0 & 7
    }

    /// Its row, 0 (1) to 7 (8).
    pub const fn row(self) -> u8 {
        self.0 >> 3
    }

    /// Parses `f5` or `F5`.
    pub fn parse(text: &str) -> Option<Square> {
        match text.as_bytes() {
            [c, r] => {
                let column = c.to_ascii_lowercase().checked_sub(b'a').filter(|&c| c < 8)?;
                let row = r.checked_sub(b'1').filter(|&r| r < 8)?;
                Some(Square(column + 8 * row))
            }
            _ => None,
        }
    }

    /// The squares of a bitboard, lowest first.
    pub fn iter(mut bits: Bitboard) -> impl Iterator<Item = Square> {
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let square = Square(bits.trailing_zeros() as u8);
            bits &= bits - 1;
            Some(square)
        })
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'A' + self.column()) as char, self.row() + 1)
    }
}

/// A set of squares, as a value of its own (a [`Bitboard`] underneath): the
/// moves a search may not answer, say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Squares(Bitboard);

impl Squares {
    /// No square.
    pub const NONE: Squares = Squares(0);

    /// The squares of a bitboard.
    pub const fn of(bits: Bitboard) -> Squares {
        Squares(bits)
    }

    /// The set as a bitboard, to mask other bitboards with.
    pub const fn bits(self) -> Bitboard {
        self.0
    }

    /// Whether it holds no square.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many squares it holds.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether it holds `square`.
    pub const fn contains(self, square: Square) -> bool {
        self.0 & square.bit() != 0
    }

    /// The set with `square` in it too.
    pub const fn with(self, square: Square) -> Squares {
        Squares(self.0 | square.bit())
    }

    /// Its squares, lowest first.
    pub fn iter(self) -> impl Iterator<Item = Square> {
        Square::iter(self.0)
    }
}

/// A move as the book stores it: a square, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A disc played on a square.
    Play(Square),
    /// No disc played: the side to move has no legal move.
    Pass,
}

impl Move {
    /// The book's code for "pass".
    pub const PASS_CODE: u8 = 64;
    /// The book's code for "no move" (an absent leaf).
    pub const NONE_CODE: u8 = 65;

    /// Decodes a stored move code; `None` for 65 ("no move") and anything larger.
    pub fn from_code(code: u8) -> Option<Move> {
        match code {
            0..=63 => Some(Move::Play(Square(code))),
            Move::PASS_CODE => Some(Move::Pass),
            _ => None,
        }
    }

    /// The code the book stores for the move (0-63 a square, 64 a pass).
    pub fn code(self) -> u8 {
        match self {
            Move::Play(square) => square.0,
            Move::Pass => Move::PASS_CODE,
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Play(square) => square.fmt(f),
            Move::Pass => f.write_str("PS"),
        }
    }
}

/// A position: the discs of the side to move and of its opponent.
/// Colour is not stored; the side to move is always `player`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Board {
    /// The discs of the side to move.
    pub player: Bitboard,
    /// The discs of the side that moved last.
    pub opponent: Bitboard,
}

impl Board {
    /// The initial position, black to move.
    pub const INITIAL: Board = Board { player: 0x0000_0008_1000_0000, opponent: 0x0000_0010_0800_0000 };

    /// The board of these discs, `player` to move.
    pub const fn new(player: Bitboard, opponent: Bitboard) -> Board {
        Board { player, opponent }
    }

    /// The empty squares.
    pub const fn empty(&self) -> Bitboard {
        !(self.player | self.opponent)
    }

    /// How many squares are empty.
    pub const fn empties(&self) -> u32 {
        self.empty().count_ones()
    }

    /// The same discs with the sides swapped: the position after a pass.
    pub const fn swapped(&self) -> Board {
        Board { player: self.opponent, opponent: self.player }
    }

    /// Squares where the side to move may play.
    pub fn legal_moves(&self) -> Bitboard {
        legal_moves(self.player, self.opponent)
    }

    /// True when the side to move has a legal move.
    pub fn has_moves(&self) -> bool {
        has_moves(self.player, self.opponent)
    }

    /// True when neither side can move.
    pub fn is_game_over(&self) -> bool {
        !self.has_moves() && !self.swapped().has_moves()
    }

    /// The score of a finished game for the side to move: the disc
    /// difference, with the empty squares given to the winner.
    pub fn final_score(&self) -> i32 {
        let diff = self.player.count_ones() as i32 - self.opponent.count_ones() as i32;
        diff + diff.signum() * self.empties() as i32
    }

    /// True when passing is the only legal move. Never inlined: passes are
    /// rare, and inlined into a loop over a record's moves, both sides'
    /// legal moves were computed for every record, pass or not.
    #[inline(never)]
    pub fn must_pass(&self) -> bool {
        !self.has_moves() && self.swapped().has_moves()
    }

    /// Discs the side to move would turn over by playing `square` (0 if none).
    pub fn flips(&self, square: Square) -> Bitboard {
        flips(self.player, self.opponent, square)
    }

    /// The discs a legal move turns over, or `None` if the move is illegal here.
    /// A pass is legal only when the side to move has no move and the opponent has one.
    pub fn check_move(&self, mv: Move) -> Option<Bitboard> {
        match mv {
            Move::Pass => self.must_pass().then_some(0),
            Move::Play(square) => {
                if self.empty() & square.bit() == 0 {
                    return None;
                }
                let flipped = self.flips(square);
                (flipped != 0).then_some(flipped)
            }
        }
    }

    /// Whether `mv` is legal here, given `legal`, this board's
    /// [`Board::legal_moves`]: what [`Board::check_move`] says without the
    /// flips, for checking several moves of one board.
    pub fn allows(&self, mv: Move, legal: Bitboard) -> bool {
        match mv {
            Move::Pass => self.must_pass(),
            Move::Play(square) => legal & square.bit() != 0,
        }
    }

    /// Plays a move whose flips came from [`Board::check_move`]; sides are swapped.
    pub fn play(&mut self, mv: Move, flipped: Bitboard) {
        if let Move::Play(square) = mv {
            self.player ^= flipped | square.bit();
            self.opponent ^= flipped;
        }
        std::mem::swap(&mut self.player, &mut self.opponent);
    }

    /// The board after a legal move, or `None` if it is illegal.
    pub fn after(&self, mv: Move) -> Option<Board> {
        let flipped = self.check_move(mv)?;
        let mut next = *self;
        next.play(mv, flipped);
        Some(next)
    }

    /// Each legal move with the board after it, in increasing square order;
    /// the pass (and the board after it) when the side to move must pass;
    /// none when the game is over.
    pub fn children(&self) -> smallvec::SmallVec<[(Move, Board); 16]> {
        self.each_child().collect()
    }

    /// [`Board::children`] one at a time, nothing gathered: for a loop over
    /// the children of many boards, which would otherwise copy each
    /// board's list out of the call.
    pub fn each_child(&self) -> impl Iterator<Item = (Move, Board)> {
        let board = *self;
        let legal = board.legal_moves();
        let pass = (legal == 0 && board.must_pass()).then(|| (Move::Pass, board.swapped()));
        Square::iter(legal).filter_map(move |s| board.after(Move::Play(s)).map(|b| (Move::Play(s), b))).chain(pass)
    }

    /// Every board from which a move onto a square (not a pass) leads to
    /// this one, with that square: the opponent, who moved, put a disc
    /// there and turned, in each direction, none or a run of the discs
    /// beyond it short of one of theirs. Each choice of runs is played
    /// forward and kept only if it gives this board.
    pub fn before_moves(&self) -> Vec<(Square, Board)> {
        let (mover, other) = (self.opponent, self.player);
        let mut found = Vec::new();
        for square in Square::iter(mover) {
            // Per direction, the runs the move may have turned: none, or the
            // first k of the mover's discs beyond the square, one of the
            // mover's still beyond them.
            let runs: SmallVec<[SmallVec<[Bitboard; 8]>; 8]> =
                DIRECTIONS.iter().map(|&(dr, dc)| turnable_runs(mover, square, dr, dc)).collect();
            let mut choice = [0usize; 8];
            loop {
                let turned = runs.iter().zip(&choice).fold(0, |all, (run, &k)| all | run[k]);
                if turned != 0 {
                    let before = Board { player: mover & !square.bit() & !turned, opponent: other | turned };
                    if before.after(Move::Play(square)) == Some(*self) {
                        found.push((square, before));
                    }
                }
                // The next choice, as an odometer over the directions.
                let Some(d) = (0..8).find(|&d| choice[d] + 1 < runs[d].len()) else { break };
                choice[d] += 1;
                choice[..d].fill(0);
            }
        }
        found
    }
}

/// The eight directions, as (row, column) steps.
const DIRECTIONS: [(i8, i8); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// The runs a move onto `square` may have turned in one direction, given
/// the mover's discs after it: none (0), then each run of the first k
/// squares beyond it that are all the mover's and have a square of the
/// mover's beyond them.
fn turnable_runs(mover: Bitboard, square: Square, dr: i8, dc: i8) -> SmallVec<[Bitboard; 8]> {
    let mut runs = SmallVec::from_elem(0, 1);
    let (mut row, mut column) = (square.row() as i8 + dr, square.column() as i8 + dc);
    let mut run = 0;
    while (0..8).contains(&row) && (0..8).contains(&column) {
        let bit = 1u64 << (row * 8 + column);
        if mover & bit == 0 {
            break;
        }
        if run != 0 {
            runs.push(run);
        }
        run |= bit;
        (row, column) = (row + dr, column + dc);
    }
    runs
}

/// Legal moves of `player` against `opponent`: the squares just past a run of
/// opponent discs that starts next to a player disc, in any direction. Runs
/// are grown both ways along a line at once, doubling their reach (1, 2, 4,
/// 6 discs: no run is longer), so each of the four lines costs a dozen
/// operations. For the three lines that cross files, opponent discs on the A
/// and H files are left out of runs: a run through them would wrap around the
/// board's edge, and no legal run ends on them in those directions.
pub fn legal_moves(player: Bitboard, opponent: Bitboard) -> Bitboard {
    let inner = opponent & NOT_FILE_A & NOT_FILE_H;
    let moves = moves_along(player, inner, 1)
        | moves_along(player, opponent, 8)
        | moves_along(player, inner, 7)
        | moves_along(player, inner, 9);
    moves & !(player | opponent)
}

/// Whether `player` has a legal move against `opponent`: [`legal_moves`]
/// line by line, stopping at the first line that gives one. Most positions
/// have a move along the first line tried, so this costs a quarter of the
/// full set, which a pass check (the one question asked after every move
/// of an Egaroucid book) does not need.
pub fn has_moves(player: Bitboard, opponent: Bitboard) -> bool {
    let empty = !(player | opponent);
    let inner = opponent & NOT_FILE_A & NOT_FILE_H;
    moves_along(player, opponent, 8) & empty != 0
        || moves_along(player, inner, 1) & empty != 0
        || moves_along(player, inner, 9) & empty != 0
        || moves_along(player, inner, 7) & empty != 0
}

/// Squares just past a run of `runs` discs that starts next to a `player`
/// disc, along the line of step `step` (either way).
#[inline(always)]
fn moves_along(player: Bitboard, runs: Bitboard, step: u32) -> Bitboard {
    let mut up = runs & (player << step);
    let mut down = runs & (player >> step);
    up |= runs & (up << step);
    down |= runs & (down >> step);
    // Discs with a run disc next to them: where a run may grow by two.
    let pairs_up = runs & (runs << step);
    let pairs_down = pairs_up >> step;
    up |= pairs_up & (up << (2 * step));
    down |= pairs_down & (down >> (2 * step));
    up |= pairs_up & (up << (2 * step));
    down |= pairs_down & (down >> (2 * step));
    (up << step) | (down >> step)
}

/// For each square, the squares past it toward higher bits along the four
/// lines through it, nearest first in bit order: east (+1), north (+8),
/// north-east (+9) and north-west (+7). 2 KB.
const RAYS_UP: [[Bitboard; 4]; 64] = {
    let steps: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];
    let mut rays = [[0; 4]; 64];
    let mut square = 0;
    while square < 64 {
        let mut line = 0;
        while line < 4 {
            let (dc, dr) = steps[line];
            let (mut c, mut r) = (square % 8 + dc, square / 8 + dr);
            while c >= 0 && c < 8 && r < 8 {
                rays[square as usize][line] |= 1 << (c + 8 * r);
                c += dc;
                r += dr;
            }
            line += 1;
        }
        square += 1;
    }
    rays
};

/// Discs turned over when `player` plays `square` (0 if none): in each
/// direction, the run of opponent discs that ends on a player disc. The square
/// itself is not looked at; [`Board::check_move`] checks that it is empty.
///
/// Branch-free and loop-free. Along a ray toward higher bits, the first square
/// that is not an opponent disc is the lowest set bit of `ray & !opponent`
/// (`x & -x`); if it holds a player disc, the ray's squares below it are the
/// flips. Swapping the bytes of both bitboards mirrors the board top to
/// bottom, which turns the three rays toward lower rows into rays toward
/// higher rows of the mirrored square; the last ray, west along the row, is
/// grown by doubling as in [`legal_moves`]. No bit scan instruction is needed.
pub fn flips(player: Bitboard, opponent: Bitboard, square: Square) -> Bitboard {
    let index = usize::from(square.index());
    let up = &RAYS_UP[index];
    let higher = flips_up(player, opponent, up[0])
        | flips_up(player, opponent, up[1])
        | flips_up(player, opponent, up[2])
        | flips_up(player, opponent, up[3]);
    // South, south-west and south-east of `square` are north, north-west and
    // north-east of the mirrored square, `index ^ 56`.
    let (player_mirrored, opponent_mirrored) = (player.swap_bytes(), opponent.swap_bytes());
    let down = &RAYS_UP[index ^ 56];
    let lower = flips_up(player_mirrored, opponent_mirrored, down[1])
        | flips_up(player_mirrored, opponent_mirrored, down[2])
        | flips_up(player_mirrored, opponent_mirrored, down[3]);
    higher | lower.swap_bytes() | flips_west(player, opponent, square.bit())
}

/// Flips along `ray`, the squares past the played square toward higher bits
/// on one line: the opponent discs before the first square that is not one,
/// if that square holds a player disc. A run that reaches the board's edge has
/// no such square and flips nothing.
#[inline(always)]
fn flips_up(player: Bitboard, opponent: Bitboard, ray: Bitboard) -> Bitboard {
    let stops = ray & !opponent;
    let outflank = stops & stops.wrapping_neg() & player;
    outflank.wrapping_sub(u64::from(outflank != 0)) & ray
}

/// Flips west of `bit` along its row: the run of opponent discs next to it is
/// grown 1, 2, 4 and 6 discs by doubling (no run is longer), then kept if a
/// player disc closes it. Discs on the A and H files are left out of runs: a
/// run through them would wrap around the board's edge, and no westward run
/// that flips ends on them.
#[inline(always)]
fn flips_west(player: Bitboard, opponent: Bitboard, bit: Bitboard) -> Bitboard {
    let inner = opponent & NOT_FILE_A & NOT_FILE_H;
    let mut run = inner & (bit >> 1);
    run |= inner & (run >> 1);
    // Discs with a run disc east of them: where a run may grow by two.
    let pairs = inner & (inner >> 1);
    run |= pairs & (run >> 2);
    run |= pairs & (run >> 2);
    if (run >> 1) & player != 0 {
        run
    } else {
        0
    }
}

/// Mixes both halves of a board into a hash whose high bits and low bits
/// both depend on every disc: the book's index takes its tag from the high
/// bits and its bucket from the low ones.
#[inline]
pub fn hash_board(board: &Board) -> u64 {
    let mut h = board.player.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ board.opponent.rotate_left(31);
    h = (h ^ (h >> 32)).wrapping_mul(0xd6e8_feb8_6659_fd93);
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_of_squares_holds_what_was_put_in_it_lowest_first() {
        let (c4, a1) = (Square::parse("c4").unwrap(), Square::parse("a1").unwrap());
        let set = Squares::NONE.with(c4).with(a1).with(c4);
        assert_eq!(set.iter().collect::<Vec<_>>(), [a1, c4]);
        assert_eq!((set.len(), set.is_empty(), Squares::NONE.is_empty()), (2, false, true));
        assert!(set.contains(c4) && !set.contains(Square::parse("h8").unwrap()));
        assert_eq!(set.bits(), 1 | 1 << 26);
        assert_eq!(Squares::of(set.bits()), set);
    }

    /// Coordinate-by-coordinate flips: the obvious reference for the shifts above.
    fn slow_flips(player: u64, opponent: u64, square: Square) -> u64 {
        let (c0, r0) = (square.column() as i32, square.row() as i32);
        let mut all = 0;
        for dc in -1..=1 {
            for dr in -1..=1 {
                if (dc, dr) == (0, 0) {
                    continue;
                }
                let (mut c, mut r, mut run) = (c0 + dc, r0 + dr, 0u64);
                while (0..8).contains(&c) && (0..8).contains(&r) {
                    let bit = 1u64 << (c + 8 * r);
                    if opponent & bit != 0 {
                        run |= bit;
                    } else {
                        if player & bit != 0 {
                            all |= run;
                        }
                        break;
                    }
                    c += dc;
                    r += dr;
                }
            }
        }
        all
    }

    fn slow_moves(player: u64, opponent: u64) -> u64 {
        (0..64)
            .map(Square)
            .filter(|s| (player | opponent) & s.bit() == 0 && slow_flips(player, opponent, *s) != 0)
            .fold(0, |acc, s| acc | s.bit())
    }

    /// A cheap deterministic generator of random words (xorshift).
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// Random boards, each square empty, the player's or the opponent's.
    fn random_boards(count: usize) -> Vec<Board> {
        let mut next = xorshift(0x1234_5678_9abc_def0);
        (0..count)
            .map(|_| {
                let occupied = next() | next();
                let player = occupied & next();
                Board::new(player, occupied & !player)
            })
            .collect()
    }

    /// `allows`, given the legal moves found once, against `check_move`,
    /// which plays each move: every square and the pass, boards that must
    /// pass included.
    #[test]
    fn allows_says_what_check_move_says() {
        let mut boards = random_boards(500);
        boards.push(Board::new(0x0000_0000_0000_0001, 0x0000_0000_0000_0002).swapped());
        let (mut passes, mut legal_moves) = (0, 0);
        for board in boards {
            let legal = board.legal_moves();
            let moves = (0..64).map(|i| Move::Play(Square::new(i).unwrap())).chain([Move::Pass]);
            for mv in moves {
                let checked = board.check_move(mv).is_some();
                assert_eq!(board.allows(mv, legal), checked, "{board:?} {mv:?}");
                passes += usize::from(checked && mv == Move::Pass);
                legal_moves += usize::from(checked);
            }
        }
        assert!(passes > 0 && legal_moves > 1000, "{passes} passes, {legal_moves} legal moves checked");
    }

    #[test]
    fn having_moves_agrees_with_the_slow_reference() {
        // Nearly full boards, one side holding most discs, often leave a
        // side without a move; sparse and even ones seldom do.
        let mut next = xorshift(0x0bad_cafe_dead_beef);
        let crowded = (0..20_000).map(|_| {
            let occupied = next() | next() | next() | next();
            let player = occupied & (next() | next() | next());
            Board::new(player, occupied & !player)
        });
        let mut seen = [0; 2];
        for board in random_boards(20_000).into_iter().chain(crowded) {
            let slow = slow_moves(board.player, board.opponent) != 0;
            assert_eq!(has_moves(board.player, board.opponent), slow, "{board:?}");
            assert_eq!(board.must_pass(), !slow && slow_moves(board.opponent, board.player) != 0);
            seen[usize::from(slow)] += 1;
        }
        assert!(seen[0] > 1000 && seen[1] > 1000, "boards without and with moves: {seen:?}");
    }

    #[test]
    fn flips_and_moves_match_the_slow_reference() {
        for board in random_boards(3000) {
            assert_eq!(board.legal_moves(), slow_moves(board.player, board.opponent), "{board:?}");
            for square in Square::iter(board.empty()) {
                assert_eq!(board.flips(square), slow_flips(board.player, board.opponent, square));
            }
        }
    }

    /// Every square, occupied or not, on boards from nearly empty to full: the
    /// same flips as the reference, and an empty square has flips exactly when
    /// it is a legal move (0 otherwise).
    #[test]
    fn flips_match_the_slow_reference_on_every_square() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for round in 0..8000 {
            let occupied = match round % 5 {
                0 => next() & next() & next(),
                1 => next(),
                2 => next() | next(),
                3 => next() | next() | next(),
                _ => !0,
            };
            let player = occupied & next();
            let board = Board::new(player, occupied & !player);
            let moves = board.legal_moves();
            for square in (0..64).map(Square) {
                let flipped = board.flips(square);
                assert_eq!(flipped, slow_flips(board.player, board.opponent, square), "{board:?} {square}");
                if board.empty() & square.bit() != 0 {
                    assert_eq!(flipped != 0, moves & square.bit() != 0, "{board:?} {square}");
                }
            }
        }
    }

    /// From every square in every direction, a run of 0 to 7 opponent discs
    /// closed by a player disc, by an empty square, or by the board's edge,
    /// among random discs elsewhere: the discs flipped on that ray are the run
    /// exactly when a player disc closes it.
    #[test]
    fn flips_along_every_ray_up_to_the_board_edge() {
        let mut backgrounds = random_boards(24);
        backgrounds.push(Board::default());
        for square in (0..64).map(Square) {
            for (dc, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)] {
                let ray: Vec<u64> = (1..8)
                    .map(|k| (square.column() as i32 + k * dc, square.row() as i32 + k * dr))
                    .take_while(|&(c, r)| (0..8).contains(&c) && (0..8).contains(&r))
                    .map(|(c, r)| 1u64 << (c + 8 * r))
                    .collect();
                let ray_mask = ray.iter().fold(square.bit(), |acc, bit| acc | bit);
                for length in 0..=ray.len() {
                    let run = ray[..length].iter().fold(0, |acc, bit| acc | bit);
                    let end = ray.get(length).copied().unwrap_or(0);
                    for closed in [true, false] {
                        for background in &backgrounds {
                            let player = background.player & !ray_mask | if closed { end } else { 0 };
                            let opponent = background.opponent & !ray_mask | run;
                            let flipped = flips(player, opponent, square);
                            assert_eq!(flipped, slow_flips(player, opponent, square), "{square} {dc},{dr} {length}");
                            let expected = if closed && end != 0 { run } else { 0 };
                            assert_eq!(flipped & ray_mask, expected, "{square} {dc},{dr} {length} {closed}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn initial_moves_are_the_four_textbook_ones() {
        let names: Vec<String> = Square::iter(Board::INITIAL.legal_moves()).map(|s| s.to_string()).collect();
        assert_eq!(names, ["D3", "C4", "F5", "E6"]);
    }

    #[test]
    fn a_move_places_a_disc_turns_the_flips_and_hands_over() {
        for board in random_boards(500) {
            for square in Square::iter(board.legal_moves()) {
                let flipped = board.flips(square);
                let after = board.after(Move::Play(square)).unwrap();
                assert_eq!(after.opponent, board.player | flipped | square.bit());
                assert_eq!(after.player, board.opponent & !flipped);
            }
            if board.must_pass() {
                assert_eq!(board.after(Move::Pass), Some(board.swapped()));
            }
        }
    }

    #[test]
    fn illegal_moves_are_refused() {
        let b = Board::INITIAL;
        assert_eq!(b.check_move(Move::Play(Square::parse("a1").unwrap())), None);
        assert_eq!(b.check_move(Move::Play(Square::parse("d4").unwrap())), None);
        assert_eq!(b.check_move(Move::Pass), None);
    }

    #[test]
    fn square_names_round_trip() {
        for i in 0..64 {
            let s = Square(i);
            assert_eq!(Square::parse(&s.to_string()), Some(s));
            assert_eq!(Square::parse(&s.to_string().to_lowercase()), Some(s));
        }
        assert_eq!(Square::parse("F5").unwrap().index(), 37);
        assert_eq!(Square::parse("i1"), None);
        assert_eq!(Square::parse("a9"), None);
        assert_eq!(Square::parse("a10"), None);
    }

    /// Counts the lines of exactly `depth` plies below `board`. A pass is a ply; a
    /// game that ends sooner is not counted (nothing is played past its end).
    fn perft(board: Board, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = board.legal_moves();
        if moves == 0 {
            return if board.must_pass() { perft(board.swapped(), depth - 1) } else { 0 };
        }
        Square::iter(moves).map(|s| perft(board.after(Move::Play(s)).unwrap(), depth - 1)).sum()
    }

    #[test]
    fn perft_from_the_initial_position() {
        let expected = [4, 12, 56, 244, 1396, 8200, 55092, 390216];
        for (depth, &count) in (1..).zip(expected.iter()) {
            assert_eq!(perft(Board::INITIAL, depth), count, "depth {depth}");
        }
    }

    /// Depth 9 is the first depth with finished games and passes; with the
    /// convention above (a pass is a ply, a finished game is not counted past its
    /// end) it is 3,005,288, where counting finished games as leaves and passes
    /// as nothing would give 3,005,320.
    #[test]
    fn perft_depth_nine_counts_passes_as_plies() {
        assert_eq!(perft(Board::INITIAL, 9), 3_005_288);
    }

    /// Every board one move before `board`, found slowly: for each disc of
    /// the side that moved and each set of its other discs, that disc
    /// taken off and the set given back, kept if the move there gives
    /// `board`.
    fn before_moves_slowly(board: &Board) -> Vec<(Square, Board)> {
        let (mover, other) = (board.opponent, board.player);
        let mut found = Vec::new();
        for square in Square::iter(mover) {
            let rest: Vec<u64> = Square::iter(mover & !square.bit()).map(|s| s.bit()).collect();
            for subset in 0u32..1 << rest.len() {
                let turned = rest.iter().enumerate().filter(|(i, _)| subset >> i & 1 == 1).fold(0, |a, (_, b)| a | b);
                let before = Board::new(mover & !square.bit() & !turned, other | turned);
                if before.after(Move::Play(square)) == Some(*board) {
                    found.push((square, before));
                }
            }
        }
        found.sort_by_key(|(s, b)| (s.index(), b.player, b.opponent));
        found
    }

    /// Each child by the obvious reference: every empty square that turns
    /// discs over, played coordinate by coordinate, in square order; else
    /// the pass when the opponent could move; else none.
    fn children_slowly(board: &Board) -> Vec<(Move, Board)> {
        let (player, opponent) = (board.player, board.opponent);
        let played: Vec<(Move, Board)> = (0..64)
            .map(Square)
            .filter(|s| (player | opponent) & s.bit() == 0)
            .filter_map(|s| match slow_flips(player, opponent, s) {
                0 => None,
                turned => Some((Move::Play(s), Board::new(opponent & !turned, player | turned | s.bit()))),
            })
            .collect();
        match played.is_empty() && slow_moves(opponent, player) != 0 {
            true => vec![(Move::Pass, Board::new(opponent, player))],
            false => played,
        }
    }

    #[test]
    fn every_child_is_the_slow_reference_s_passes_and_ends_included() {
        let (mut passes, mut ends) = (0, 0);
        let corner = [Board::new(1 << 1, 1), Board::new(1 << 9, 1), Board::new(1, 1 << 63)];
        for board in random_boards(3000).into_iter().chain(opening_boards(300)).chain(corner) {
            let slowly = children_slowly(&board);
            assert_eq!(board.children().to_vec(), slowly, "{board:?}");
            assert_eq!(board.each_child().collect::<Vec<_>>(), slowly, "{board:?}");
            passes += usize::from(slowly.first().is_some_and(|&(mv, _)| mv == Move::Pass));
            ends += usize::from(slowly.is_empty());
        }
        assert!(passes >= 2 && ends >= 1, "{passes} passes, {ends} ends");
    }

    /// Boards of the opening, a few random moves from the initial position
    /// (few discs, so that the slow reference is quick).
    fn opening_boards(count: usize) -> Vec<Board> {
        let mut next = xorshift(0x0fed_cba9_8765_4321);
        (0..count)
            .filter_map(|i| {
                let mut board = Board::INITIAL;
                for _ in 0..i % 9 {
                    let children = board.children();
                    let (_, child) = *children.get(next() as usize % children.len().max(1))?;
                    board = child;
                }
                Some(board)
            })
            .collect()
    }

    #[test]
    fn the_boards_one_move_before_are_the_slow_reference_s() {
        let boards = opening_boards(400);
        assert!(boards.len() > 300);
        let mut several = 0;
        for board in boards {
            let mut found = board.before_moves();
            found.sort_by_key(|(s, b)| (s.index(), b.player, b.opponent));
            let slowly = before_moves_slowly(&board);
            several += usize::from(slowly.len() > 1);
            assert_eq!(found, slowly, "{board:?}");
        }
        assert!(several > 10, "boards with several boards before them: {several}");
    }

    /// On any board, each legal move's board has the board before it among
    /// its boards one move before.
    #[test]
    fn a_move_s_board_has_the_board_before_it() {
        for board in random_boards(2000) {
            for square in Square::iter(board.legal_moves()) {
                let after = board.after(Move::Play(square)).unwrap();
                assert!(after.before_moves().contains(&(square, board)), "{board:?} then {square}");
            }
        }
    }
}
