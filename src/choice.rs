//! Settings that take one of a few named values (how lines are turned, what
//! mode 1 does with a child without links, the format a book is written in):
//! each value's name and what it does, for whatever reads settings.

/// A type whose values are a fixed set, each with a name a user types.
pub trait Choice: Copy + Send + Sync + 'static {
    /// Every value, in the order they are listed.
    const ALL: &'static [Self];

    /// The value's name, as a user types it (lowercase).
    fn name(self) -> &'static str;

    /// What the value does, in a line; `None` where the name says it all.
    fn help(self) -> Option<&'static str> {
        None
    }

    /// The value named `name`, whatever its ASCII case.
    fn named(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|value| value.name().eq_ignore_ascii_case(name))
    }
}
