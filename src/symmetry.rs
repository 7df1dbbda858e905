//! The eight symmetries of the board and the normalization the book stores
//! positions under (docs/formats.md, Edax books).

use crate::board::{Bitboard, Board, Move, Square};

/// Symmetry `s` in 0..8 applies, in this order: if `s & 1` mirror files
/// (x ^= 7), if `s & 2` mirror ranks (x ^= 56), if `s & 4` transpose
/// (x = (x >> 3) | ((x & 7) << 3)). The same `s` maps boards and squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Symmetry(u8);

impl Symmetry {
    /// The symmetry that moves nothing.
    pub const IDENTITY: Symmetry = Symmetry(0);
    /// The eight, in order of their number.
    pub const ALL: [Symmetry; 8] =
        [Symmetry(0), Symmetry(1), Symmetry(2), Symmetry(3), Symmetry(4), Symmetry(5), Symmetry(6), Symmetry(7)];

    /// Symmetry number `index`, if it is one (0 to 7).
    pub fn new(index: u8) -> Option<Symmetry> {
        (index < 8).then_some(Symmetry(index))
    }

    /// Its number, 0 to 7.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The symmetry that undoes this one. Mirrors are their own inverses; with a
    /// transpose, mirroring files before it equals mirroring ranks after it, so
    /// the two mirror bits trade places.
    pub fn inverse(self) -> Symmetry {
        if self.0 & 4 == 0 {
            self
        } else {
            Symmetry(4 | ((self.0 & 1) << 1) | ((self.0 >> 1) & 1))
        }
    }

    /// `self` applied after `first`: the symmetry that maps `x` to
    /// `self(first(x))`, for squares and boards alike.
    pub fn after(self, first: Symmetry) -> Symmetry {
        Symmetry(COMPOSED[self.0 as usize][first.0 as usize])
    }

    /// The square `square` is mapped to.
    pub fn square(self, square: Square) -> Square {
        Square::new(self.square_index(square.index())).expect("a symmetry keeps squares on the board")
    }

    /// [`Symmetry::square`] on a square's index, usable in constants.
    pub const fn square_index(self, mut x: u8) -> u8 {
        if self.0 & 1 != 0 {
            x ^= 7;
        }
        if self.0 & 2 != 0 {
            x ^= 56;
        }
        if self.0 & 4 != 0 {
            x = (x >> 3) | ((x & 7) << 3);
        }
        x
    }

    /// The move `mv` is mapped to: its square's image, a pass as it is.
    pub fn apply_move(self, mv: Move) -> Move {
        match mv {
            Move::Play(square) => Move::Play(self.square(square)),
            Move::Pass => Move::Pass,
        }
    }

    /// The image of a bitboard. Each step is computed and then kept or
    /// not by a mask, without branches: the walk meets the symmetries in
    /// no order a branch predictor could learn.
    pub fn bits(self, bits: Bitboard) -> Bitboard {
        let keep = |step: u8, image: Bitboard, bits: Bitboard| {
            let mask = 0u64.wrapping_sub(u64::from(self.0 & step != 0));
            (image & mask) | (bits & !mask)
        };
        let bits = keep(1, mirror_files(bits), bits);
        let bits = keep(2, bits.swap_bytes(), bits);
        keep(4, transpose(bits), bits)
    }

    /// The board `board` is mapped to, both sides' discs alike.
    pub fn board(self, board: &Board) -> Board {
        Board::new(self.bits(board.player), self.bits(board.opponent))
    }
}

/// `COMPOSED[a][b]` is `a` after `b`. A symmetry is known by where it takes
/// B1, which no two symmetries send to the same square.
const COMPOSED: [[u8; 8]; 8] = {
    let mut table = [[0u8; 8]; 8];
    let mut a = 0;
    while a < 8 {
        let mut b = 0;
        while b < 8 {
            let target = Symmetry::ALL[a].square_index(Symmetry::ALL[b].square_index(1));
            let mut c = 0;
            while Symmetry::ALL[c as usize].square_index(1) != target {
                c += 1;
            }
            table[a][b] = c;
            b += 1;
        }
        a += 1;
    }
    table
};

/// Reverses the bits of every byte: column c becomes column 7 − c.
fn mirror_files(mut x: Bitboard) -> Bitboard {
    x = ((x >> 1) & 0x5555_5555_5555_5555) | ((x & 0x5555_5555_5555_5555) << 1);
    x = ((x >> 2) & 0x3333_3333_3333_3333) | ((x & 0x3333_3333_3333_3333) << 2);
    ((x >> 4) & 0x0f0f_0f0f_0f0f_0f0f) | ((x & 0x0f0f_0f0f_0f0f_0f0f) << 4)
}

/// Swaps columns and rows (reflection in the A1–H8 diagonal) by three
/// block exchanges: 4×4 blocks, then 2×2, then single squares.
fn transpose(mut x: Bitboard) -> Bitboard {
    let t = 0x0f0f_0f0f_0000_0000 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    let t = 0x3333_0000_3333_0000 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    let t = 0x5500_5500_5500_5500 & (x ^ (x << 7));
    x ^ t ^ (t >> 7)
}

/// A board in the form the book stores it, with the symmetries that relate it
/// to the board it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Normalized {
    /// The least of the eight images, comparing (player, opponent).
    pub board: Board,
    /// The smallest `s` with `s(stored) = original`: maps stored moves to the
    /// original board's coordinates (docs/walk.md, moves on the actual board).
    pub to_original: Symmetry,
    /// The stored board is its own image under some symmetry other than
    /// the identity, so more than one symmetry maps it onto the original.
    pub symmetric: bool,
}

impl Normalized {
    /// How the stored board lies on the original.
    pub fn placement(&self) -> Placement {
        Placement { symmetry: self.to_original, symmetric: self.symmetric }
    }
}

/// How a stored board lies on another board: a symmetry that maps it there,
/// the smallest unless the stored board is symmetric (then others map it
/// there too, and the smallest must be searched for: [`symmetry_between`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// A symmetry that maps the stored board onto the other (the smallest).
    pub symmetry: Symmetry,
    /// The stored board is symmetric, so others map it there too.
    pub symmetric: bool,
}

/// The eight images of a bitboard, indexed by symmetry, sharing the work:
/// one transpose and two bit reversals. Mirroring files and then ranks
/// reverses all 64 bits, so a file mirror is a bit reversal undone byte by
/// byte (a byte swap); and a transpose after a file mirror is a rank mirror
/// after the transpose, so the four transposed images come from one
/// transpose as the four others come from the board.
#[inline]
fn images(x: Bitboard) -> [Bitboard; 8] {
    let (t, reversed, t_reversed) = (transpose(x), x.reverse_bits(), transpose(x).reverse_bits());
    [x, reversed.swap_bytes(), x.swap_bytes(), reversed, t, t.swap_bytes(), t_reversed.swap_bytes(), t_reversed]
}

/// The symmetries in increasing order of their inverses (5 and 6 undo each
/// other), so that the first of several equal images found is the one whose
/// inverse is smallest.
const BY_INVERSE: [u8; 8] = [0, 1, 2, 3, 4, 6, 5, 7];

/// Normalizes a board. The least image is decided by the player's discs
/// alone unless two images of them tie, so the player's eight images are
/// computed (with shared work) and their least found without branches;
/// the opponent's image is then needed for the one symmetry that wins, or,
/// on a tie, for each of the tied ones. Among images equal in both sides,
/// the smallest inverse is the one that maps stored moves back.
#[inline]
pub fn normalize(board: &Board) -> Normalized {
    let players = images(board.player);
    let least = players.iter().copied().min().expect("eight images");
    // Bit i: the i-th symmetry in increasing order of inverses ties for least.
    let tied =
        BY_INVERSE.iter().enumerate().fold(0u8, |mask, (i, &s)| mask | u8::from(players[s as usize] == least) << i);
    let (best, opponent, symmetric) = if tied.is_power_of_two() {
        let s = Symmetry(BY_INVERSE[tied.trailing_zeros() as usize]);
        (s, s.bits(board.opponent), false)
    } else {
        least_opponent_among(tied, board.opponent)
    };
    Normalized { board: Board::new(least, opponent), to_original: best.inverse(), symmetric }
}

/// Of the symmetries in `tied` (bits in increasing order of inverses), the
/// one whose image of `opponent` is least, the first on a tie; that image;
/// and whether another of them ties with it (the least image is then
/// symmetric).
fn least_opponent_among(tied: u8, opponent: Bitboard) -> (Symmetry, Bitboard, bool) {
    let opponents = images(opponent);
    let candidates = || (0..8).filter(move |i| tied & (1 << i) != 0).map(|i| Symmetry(BY_INVERSE[i]));
    let best = candidates().min_by_key(|s| opponents[s.index() as usize]).expect("at least one symmetry ties");
    let least = opponents[best.index() as usize];
    let symmetric = candidates().filter(|s| opponents[s.index() as usize] == least).count() > 1;
    (best, least, symmetric)
}

/// The smallest `s` with `s(stored) = actual` (docs/walk.md, moves on the actual board), when the two
/// are images of each other: what maps a record's stored moves onto the
/// board the walk stands on, once the walk already knows which record that
/// board is. The player's eight images are compared first, with shared work;
/// the opponent's image only where the player's matches.
pub fn symmetry_between(stored: &Board, actual: &Board) -> Option<Symmetry> {
    let players = images(stored.player);
    Symmetry::ALL
        .into_iter()
        .find(|s| players[s.index() as usize] == actual.player && s.bits(stored.opponent) == actual.opponent)
}

/// The least square of the orbit of square `x` under the eight symmetries:
/// squares share it exactly when some symmetry maps one onto the other.
const fn orbit_of(x: u8) -> u8 {
    let mut least = x;
    let mut s = 1;
    while s < 8 {
        let image = Symmetry(s).square_index(x);
        if image < least {
            least = image;
        }
        s += 1;
    }
    least
}

/// A disc's weight in [`image_key`]: a SplitMix64 output drawn for its
/// colour (0 the side to move, 1 the other) and its square's orbit, so
/// that squares of one orbit weigh the same.
const fn disc_weight(colour: u8, orbit: u8) -> u64 {
    let mut z = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(1 + colour as u64 * 64 + orbit as u64);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The tables of [`IMAGE_KEY_BYTES`]: the side to move's discs, the other
/// side's, and discs turned from the first colour to the second (for
/// [`ChildImageKeys`]).
const MINE: usize = 0;
const THEIRS: usize = 1;
const TURNED: usize = 2;

/// A disc's weight in table `table` of [`IMAGE_KEY_BYTES`]: its colour's,
/// or for [`TURNED`] the change from the side to move's to the other's.
const fn table_weight(table: usize, orbit: u8) -> u64 {
    match table {
        TURNED => disc_weight(1, orbit).wrapping_sub(disc_weight(0, orbit)),
        colour => disc_weight(colour as u8, orbit),
    }
}

/// `IMAGE_KEY_BYTES[table][i][byte]`: the summed weights (see
/// [`table_weight`]) of the discs `byte` places on row `i` (bits
/// `8i..8i + 8`), so that a board's key is sixteen table reads and
/// additions.
static IMAGE_KEY_BYTES: [[[u64; 256]; 8]; 3] = {
    let mut table = [[[0u64; 256]; 8]; 3];
    let mut which = 0;
    while which < 3 {
        let mut row = 0;
        while row < 8 {
            let mut byte = 0;
            while byte < 256 {
                let mut sum = 0u64;
                let mut bit = 0;
                while bit < 8 {
                    if byte >> bit & 1 != 0 {
                        sum = sum.wrapping_add(table_weight(which, orbit_of((row * 8 + bit) as u8)));
                    }
                    bit += 1;
                }
                table[which][row][byte] = sum;
                byte += 1;
            }
            row += 1;
        }
        which += 1;
    }
    table
};

/// A key all eight images of a board share, without normalizing it: the
/// sum of a weight per disc that depends only on the disc's colour and on
/// its square's orbit under the symmetries (of which there are ten), so
/// that a symmetry, which moves each disc within its orbit, leaves the sum
/// as it is. Boards with the same count of each colour's discs in each
/// orbit share a key; others share one only by a chance of about 2^-64
/// (the weights are random). A filter of the keys of the boards a book
/// holds tells most boards it does not hold before they are normalized.
#[inline]
pub fn image_key(board: &Board) -> u64 {
    let (player, opponent) = (board.player.to_le_bytes(), board.opponent.to_le_bytes());
    let (mine, theirs) = (&IMAGE_KEY_BYTES[MINE], &IMAGE_KEY_BYTES[THEIRS]);
    (0..8).fold(0u64, |key, i| {
        key.wrapping_add(mine[i][player[i] as usize]).wrapping_add(theirs[i][opponent[i] as usize])
    })
}

/// [`image_key`] of each child of one board, from the board's own work:
/// a move places one disc and turns others, and the sides swap, so a
/// child's key is the board's with its sides swapped, plus the weight of
/// the disc placed, plus each turned disc's change of colour: nine table
/// reads a child where its own key takes sixteen.
#[derive(Clone, Copy, Debug)]
pub struct ChildImageKeys {
    parent: Board,
    swapped_key: u64,
}

impl ChildImageKeys {
    /// The keys of `parent`'s children.
    #[inline]
    pub fn of(parent: &Board) -> ChildImageKeys {
        ChildImageKeys { parent: *parent, swapped_key: image_key(&parent.swapped()) }
    }

    /// [`image_key`] of `child`, which is the parent after a move (or the
    /// pass).
    #[inline]
    pub fn key(&self, child: &Board) -> u64 {
        // The child's opponent is the parent's player, the disc placed and
        // the discs turned, which were the parent's opponent's.
        let turned = (child.opponent & self.parent.opponent).to_le_bytes();
        let placed = child.opponent & self.parent.empty();
        let placed_weight = match placed {
            0 => 0,
            bit => {
                let i = bit.trailing_zeros() as usize;
                IMAGE_KEY_BYTES[THEIRS][i / 8][1 << (i % 8)]
            }
        };
        (0..8).fold(self.swapped_key.wrapping_add(placed_weight), |key, i| {
            key.wrapping_add(IMAGE_KEY_BYTES[TURNED][i][turned[i] as usize])
        })
    }
}

/// True when the board is already in its stored form: no image of the
/// player's discs is less than them, and where one ties, the opponent's
/// image under that symmetry is not less than theirs. Cheaper than
/// [`normalize`], which finds which image is least; this runs on every
/// record of a book before every growth run.
pub fn is_normalized(board: &Board) -> bool {
    let player = board.player;
    // Every image compared, without a branch between: in a book every
    // board is normalized, so no comparison ends the work early.
    let images = images(player);
    let (mut below, mut tied) = (false, 0u8);
    for (s, &image) in images.iter().enumerate().skip(1) {
        below |= image < player;
        tied |= u8::from(image == player) << s;
    }
    !below && (tied == 0 || opponent_least_where_tied(tied, board.opponent))
}

/// True when no image of `opponent` is less than it under the symmetries
/// in `tied` (bit `s`: symmetry `s`). Apart, because the player's discs
/// tie under another symmetry on few boards.
#[cold]
fn opponent_least_where_tied(tied: u8, opponent: Bitboard) -> bool {
    Symmetry::ALL.iter().filter(|s| tied & (1 << s.index()) != 0).all(|s| s.bits(opponent) >= opponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_images_are_each_symmetry_applied() {
        for x in [0x0000_0018_1c00_0000u64, 0x8142_2418_0000_00ffu64, 0x0123_4567_89ab_cdefu64] {
            let shared = images(x);
            for s in Symmetry::ALL {
                assert_eq!(shared[s.index() as usize], s.bits(x), "symmetry {}", s.index());
            }
        }
    }

    /// Normalization by brute force: every image, the least, the smallest
    /// symmetry mapping it back, and whether it is its own image.
    fn slow_normalize(board: &Board) -> Normalized {
        let (stored, s) = Symmetry::ALL.iter().map(|&s| (s.board(board), s.inverse())).min().unwrap();
        let symmetric = Symmetry::ALL[1..].iter().any(|s| s.board(&stored) == stored);
        Normalized { board: stored, to_original: s, symmetric }
    }

    #[test]
    fn normalize_agrees_with_brute_force_on_symmetric_boards_too() {
        let mut boards = vec![Board::INITIAL];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let player = x & 0x0055_aa55_aa55_aa00;
            let opponent = (x >> 1) & !player & 0x00aa_55aa_55aa_5500;
            boards.push(Board::new(player, opponent));
            // A board symmetric under a transpose: ties between images.
            let transpose = Symmetry::new(4).unwrap();
            let sym = player | transpose.bits(player);
            let other = (x >> 2) & !sym;
            boards.push(Board::new(sym, (other | transpose.bits(other)) & !sym));
        }
        for b in &boards {
            assert_eq!(normalize(b), slow_normalize(b), "{b:?}");
        }
    }

    fn slow_bits(s: Symmetry, bits: u64) -> u64 {
        (0..64u8)
            .filter(|&i| bits & (1 << i) != 0)
            .map(|i| s.square(Square::new(i).unwrap()).bit())
            .fold(0, |a, b| a | b)
    }

    fn random_boards(count: usize) -> Vec<Board> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        (0..count)
            .map(|_| {
                let mut next = || {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state
                };
                let occupied = next() | next();
                let player = occupied & next();
                Board::new(player, occupied & !player)
            })
            .collect()
    }

    #[test]
    fn bitboard_symmetries_agree_with_square_symmetries() {
        for board in random_boards(2000) {
            for s in Symmetry::ALL {
                assert_eq!(s.bits(board.player), slow_bits(s, board.player), "{s:?}");
            }
        }
    }

    #[test]
    fn square_symmetries_follow_the_spec_formula() {
        let s = |i| Symmetry::new(i).unwrap();
        let sq = |name| Square::parse(name).unwrap();
        assert_eq!(s(1).square(sq("a1")), sq("h1"));
        assert_eq!(s(2).square(sq("a1")), sq("a8"));
        assert_eq!(s(4).square(sq("b1")), sq("a2"));
        // mirror files first, then transpose: B1 -> G1 -> A7
        assert_eq!(s(5).square(sq("b1")), sq("a7"));
    }

    #[test]
    fn inverse_undoes_every_symmetry() {
        for s in Symmetry::ALL {
            for i in 0..64 {
                let square = Square::new(i).unwrap();
                assert_eq!(s.inverse().square(s.square(square)), square);
            }
        }
    }

    #[test]
    fn every_image_normalizes_to_the_same_board_and_maps_back() {
        for board in random_boards(1000) {
            let reference = normalize(&board).board;
            assert!(is_normalized(&reference));
            for s in Symmetry::ALL {
                let image = s.board(&board);
                let n = normalize(&image);
                assert_eq!(n.board, reference);
                assert_eq!(n.to_original.board(&n.board), image);
                let smallest = Symmetry::ALL.iter().find(|t| t.board(&n.board) == image).unwrap();
                assert_eq!(n.to_original, *smallest);
            }
        }
    }

    /// Against the definition: no image of the whole board is smaller.
    /// Boards with ties among the player's images are where the opponent's
    /// discs decide.
    #[test]
    fn a_board_is_normalized_exactly_when_no_image_of_it_is_smaller() {
        let mut boards = random_boards(1000);
        boards.push(Board::INITIAL);
        boards.push(Board::new(0x8100_0000_0000_0081, 0x0000_0018_1800_0000));
        boards.push(Board::new(0x8100_0000_0000_0081, 0x0000_0010_1800_0000));
        boards.push(Board::new(0x0000_0018_1800_0000, 0x0000_0000_0004_0000));
        let (mut normalized, mut not) = (0, 0);
        for board in boards {
            for s in Symmetry::ALL {
                let image = s.board(&board);
                let slow = Symmetry::ALL.iter().all(|t| t.board(&image) >= image);
                assert_eq!(is_normalized(&image), slow, "{image:?}");
                (normalized, not) = if slow { (normalized + 1, not) } else { (normalized, not + 1) };
            }
        }
        assert!(normalized > 1000 && not > 1000, "both answers checked: {normalized} and {not}");
    }

    #[test]
    fn the_symmetry_between_two_images_is_the_smallest_that_maps_one_onto_the_other() {
        let mut boards = random_boards(500);
        boards.push(Board::INITIAL);
        // Boards with several symmetries: the smallest must win.
        boards.push(Board::new(0x8100_0000_0000_0081, 0x0000_0018_1800_0000));
        for board in boards {
            for s in Symmetry::ALL {
                let image = s.board(&board);
                let smallest = Symmetry::ALL.into_iter().find(|t| t.board(&board) == image);
                assert_eq!(symmetry_between(&board, &image), smallest);
            }
            let other = Board::new(board.player ^ 1, board.opponent & !1);
            if Symmetry::ALL.iter().all(|s| s.board(&board) != other) {
                assert_eq!(symmetry_between(&board, &other), None);
            }
        }
    }

    #[test]
    fn composing_two_symmetries_applies_one_after_the_other() {
        for a in Symmetry::ALL {
            for b in Symmetry::ALL {
                for i in 0..64 {
                    let x = Square::new(i).unwrap();
                    assert_eq!(a.after(b).square(x), a.square(b.square(x)), "{a:?} after {b:?} on {x}");
                }
            }
        }
    }

    /// The key by its definition, a square at a time, each disc weighed
    /// by its orbit found by applying every symmetry to its square.
    fn slow_image_key(board: &Board) -> u64 {
        let orbit = |i: u8| Symmetry::ALL.iter().map(|s| s.square(Square::new(i).unwrap()).index()).min().unwrap();
        (0..64u8).fold(0u64, |key, i| {
            let weight = |colour| disc_weight(colour, orbit(i));
            match (board.player >> i & 1, board.opponent >> i & 1) {
                (1, _) => key.wrapping_add(weight(0)),
                (_, 1) => key.wrapping_add(weight(1)),
                _ => key,
            }
        })
    }

    /// Each colour's disc count in each of the ten orbits of squares.
    fn orbit_counts(board: &Board) -> [[u8; 10]; 2] {
        let orbits: Vec<u8> = (0..64).filter(|&i| orbit_of(i) == i).collect();
        assert_eq!(orbits.len(), 10, "ten orbits");
        let mut counts = [[0u8; 10]; 2];
        for (colour, bits) in [board.player, board.opponent].into_iter().enumerate() {
            for i in Square::iter(bits) {
                counts[colour][orbits.iter().position(|&o| o == orbit_of(i.index())).unwrap()] += 1;
            }
        }
        counts
    }

    fn any_board() -> impl proptest::strategy::Strategy<Value = Board> {
        use proptest::prelude::*;
        (any::<u64>(), any::<u64>()).prop_map(|(occupied, player)| Board::new(occupied & player, occupied & !player))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

        /// Every image of a board has its key, and the key is the slow
        /// reference's.
        #[test]
        fn every_image_of_a_board_has_its_key(board in any_board()) {
            let key = image_key(&board);
            proptest::prop_assert_eq!(key, slow_image_key(&board));
            for s in Symmetry::ALL {
                proptest::prop_assert_eq!(image_key(&s.board(&board)), key, "symmetry {}", s.index());
            }
            proptest::prop_assert_eq!(image_key(&normalize(&board).board), key);
        }

        /// Boards share a key only when they have the same discs in each
        /// orbit, which boards that are not each other's images rarely do.
        #[test]
        fn boards_with_other_orbit_counts_have_other_keys(a in any_board(), b in any_board()) {
            let same_counts = orbit_counts(&a) == orbit_counts(&b);
            proptest::prop_assert_eq!(image_key(&a) == image_key(&b), same_counts);
        }
    }

    /// The key of every child of many boards, told from the parent's, is
    /// the child's own key (the pass included).
    #[test]
    fn a_childs_key_told_from_its_parent_is_its_own() {
        // The side to move beside a corner the other side holds, in every
        // image: it must pass, and the other side can move.
        let corner = [Board::new(1 << 1, 1), Board::new(1 << 8, 1), Board::new(1 << 9, 1)];
        let passing = corner.iter().flat_map(|b| Symmetry::ALL.map(|s| s.board(b)));
        let (mut children, mut passes) = (0, 0);
        for board in random_boards(4000).into_iter().chain([Board::INITIAL]).chain(passing) {
            let keys = ChildImageKeys::of(&board);
            for (mv, child) in board.children() {
                assert_eq!(keys.key(&child), image_key(&child), "{board:?} {mv:?}");
                children += 1;
                passes += usize::from(mv == Move::Pass);
            }
        }
        assert!(children > 10_000 && passes > 10, "{children} children, {passes} passes");
    }

    #[test]
    fn boards_one_disc_apart_or_with_the_sides_swapped_have_other_keys() {
        for board in random_boards(2000) {
            let key = image_key(&board);
            if board.player != board.opponent {
                assert_ne!(image_key(&board.swapped()), key, "{board:?}");
            }
            for i in Square::iter(board.empty()) {
                assert_ne!(image_key(&Board::new(board.player | i.bit(), board.opponent)), key);
                assert_ne!(image_key(&Board::new(board.player, board.opponent | i.bit())), key);
            }
        }
    }

    #[test]
    fn the_initial_position_has_four_symmetries() {
        let fixed = Symmetry::ALL.iter().filter(|s| s.board(&Board::INITIAL) == Board::INITIAL).count();
        assert_eq!(fixed, 4);
    }
}
