//! The seeded random choices of a synthesis.

/// A deterministic generator (SplitMix64): the sample book must come out the
/// same on every machine and with every version of every dependency.
pub(super) struct Rng(pub(super) u64);

/// What a random choice is for: each kind draws from its own sequence.
#[derive(Clone, Copy)]
pub(super) enum Salt {
    Growing = 1,
    Ranking = 2,
    Perturbing = 3,
    Order = 4,
    Passing = 5,
}

impl Rng {
    /// The generator for one kind of choice about one position.
    pub(super) fn for_board(seed: u64, salt: Salt, board: &crate::board::Board) -> Rng {
        let mut mix = Rng(seed ^ (salt as u64).wrapping_mul(0xd1b5_4a32_d192_ed03));
        let a = mix.next() ^ board.player;
        let b = Rng(a).next() ^ board.opponent;
        Rng(Rng(b).next())
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0).
    pub(super) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in [0, 1).
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub(super) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}
