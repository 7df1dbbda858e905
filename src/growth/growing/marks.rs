//! Which positions a round's candidate walk finds: a name both the walk
//! ([`super::candidates`]) and the first negamax ([`super::first`]), which
//! notes the first round's, read.

/// Which positions a candidate walk finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marks {
    /// Those whose leaf scores at least their value (`extend`, Edax's
    /// `position_extend`).
    LeafAtLeastValue,
    /// Those with no link at all (`play`, Edax's `position_play`).
    NoLinks,
}
