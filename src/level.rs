//! An Edax search level: how deeply and selectively a position is searched
//! (Edax's level table, [`crate::negamax::search_level`]), 0 to 60. The
//! config, the flags, the journal and growth hold levels as [`Level`]; the
//! formats store one as a byte or an int, through the named conversions
//! here (what a book's record stores is read as it is, any byte: a record's
//! level is a stored value, not a `Level`, until it is asked for as one).

use serde::Serialize;
use std::fmt;

/// An Edax search level, 0 to 60.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Level(u8);

/// A number that is not a level: above 60.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a level (0 to 60)")]
pub struct NotALevel(pub u64);

impl Level {
    /// The deepest level: Edax's table ends at 60, every square searched.
    pub const MAX: Level = Level(60);

    /// Level `n`, or `None` above [`Level::MAX`].
    pub const fn new(n: u8) -> Option<Level> {
        if n <= Level::MAX.0 {
            Some(Level(n))
        } else {
            None
        }
    }

    /// A level a book stores (a record's byte, an Egaroucid record's signed
    /// byte, an Edax header's int) taken as a search level: below 0 is 0,
    /// above 60 is 60, as Edax's level table reads it.
    pub fn saturating(stored: i32) -> Level {
        Level(u8::try_from(stored.clamp(0, i32::from(Level::MAX.0))).expect("0 to 60 fits a byte"))
    }

    /// The level as the unsigned byte an Edax record stores, and as the
    /// number the engine's console and the journal say.
    pub const fn to_u8(self) -> u8 {
        self.0
    }

    /// The level as the signed byte an Egaroucid record stores.
    pub fn to_i8(self) -> i8 {
        i8::try_from(self.0).expect("a level, at most 60, fits a signed byte")
    }

    /// The level as the int an Edax header stores.
    pub fn to_i32(self) -> i32 {
        i32::from(self.0)
    }
}

impl TryFrom<u64> for Level {
    type Error = NotALevel;

    /// A level given as a whole number (a flag, a config key, a journal line).
    fn try_from(n: u64) -> Result<Level, NotALevel> {
        u8::try_from(n).ok().and_then(Level::new).ok_or(NotALevel(n))
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_to_sixty_are_levels_and_sixty_one_is_not() {
        assert_eq!(Level::new(0).map(Level::to_u8), Some(0));
        assert_eq!(Level::new(60).map(Level::to_u8), Some(60));
        assert_eq!(Level::new(61), None);
        assert_eq!(Level::new(255), None);
        assert_eq!(Level::try_from(60u64), Ok(Level::MAX));
        assert_eq!(Level::try_from(61u64), Err(NotALevel(61)));
        // 256 + 21 would be 21 if the number were cut to a byte first.
        assert_eq!(Level::try_from(277u64), Err(NotALevel(277)));
        assert_eq!(Level::try_from(u64::MAX), Err(NotALevel(u64::MAX)));
    }

    #[test]
    fn a_stored_level_saturates_into_the_range() {
        assert_eq!(Level::saturating(-1), Level::new(0).unwrap());
        assert_eq!(Level::saturating(i32::MIN), Level::new(0).unwrap());
        assert_eq!(Level::saturating(0), Level::new(0).unwrap());
        assert_eq!(Level::saturating(21), Level::new(21).unwrap());
        assert_eq!(Level::saturating(60), Level::MAX);
        assert_eq!(Level::saturating(61), Level::MAX);
        assert_eq!(Level::saturating(255), Level::MAX);
        assert_eq!(Level::saturating(i32::MAX), Level::MAX);
    }

    #[test]
    fn each_conversion_keeps_the_number() {
        for n in 0..=60u8 {
            let level = Level::new(n).unwrap();
            assert_eq!(level.to_u8(), n);
            assert_eq!(i32::from(level.to_i8()), i32::from(n));
            assert_eq!(level.to_i32(), i32::from(n));
            assert_eq!(level.to_string(), n.to_string());
            assert_eq!(serde_json::to_string(&level).unwrap(), n.to_string());
        }
    }

    #[test]
    fn levels_order_as_their_numbers() {
        assert!(Level::new(20).unwrap() < Level::new(21).unwrap());
        assert_eq!(Level::new(5).unwrap().max(Level::new(1).unwrap()), Level::new(5).unwrap());
        assert_eq!(Level::default(), Level::new(0).unwrap());
    }
}
