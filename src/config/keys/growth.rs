//! Where growth expands and when it stops, the level it searches at, the
//! depth of a book made from games: `min_empties`, `max_positions`,
//! `error_weight`, `max_priority`, `max_seconds`, `level`, `depth`.

use crate::config::group::{group, values};
use crate::config::key::{File, Flag, Key, Land};
use crate::config::parse::{parse_count, parse_real};
use bookminer::level::Level;

values!(
    /// Where growth expands and when it stops, its level and depth: `config.growth`.
    Growth {
        /// `extend`'s candidates have at least this many empty squares; `None`: the book's default.
        min_empties: Option<u32> = None,
        /// `extend` stops once this many positions have been added.
        max_positions: Option<u64> = None,
        /// `grow`: plies a disc of error counts as.
        error_weight: f64 = 1.0,
        /// `grow` stops once every frontier position's priority is above this.
        max_priority: Option<f64> = None,
        /// `grow` dispatches nothing new after this many seconds.
        max_seconds: Option<f64> = None,
        /// `deepen`'s level (none given: `deepen` cannot run), `new`'s, and `add`'s for an Egaroucid book.
        level: Option<Level> = None,
        /// `new`'s depth, and `add`'s for an Egaroucid book, in plies; `None`: the command's default.
        depth: Option<u32> = None,
    }
);

/// `min_empties`: the fewest empty squares a position expanded has
pub static MIN_EMPTIES: Key<u32, Growth> = Key {
    name: "min_empties",
    long: "min-empties",
    short: None,
    value_name: "N",
    order: 21,
    help: "Expand only positions with at least this many empty squares; default: an Edax book's header n_empties, 0 \
          for an Egaroucid book [config: min_empties]",
    default: "book's",
    doc: "`extend` expands positions with at least this many empty squares; default an Edax book's header \
         `n_empties`, 0 for Egaroucid",
    flag: Flag::Value,
    file: File::Scalar("a whole number"),
    parse: |text| parse_count(text, 0..=60),
    land: Land::Set(|c, empties, _| c.min_empties = Some(empties)),
};

/// `max_positions`: the positions added before growth stops
pub static MAX_POSITIONS: Key<u64, Growth> = Key {
    name: "max_positions",
    long: "max-positions",
    short: None,
    value_name: "N",
    order: 22,
    help: "Stop once this many positions have been added [config: max_positions]",
    default: "none",
    doc: "`extend` and `grow` stop once this many positions are added",
    flag: Flag::Value,
    file: File::Scalar("a whole number"),
    parse: |text| parse_count(text, 0..=u64::from(u32::MAX)),
    land: Land::Set(|c, positions, _| c.max_positions = Some(positions)),
};

/// `error_weight`: grow's plies a disc of error counts as
pub static ERROR_WEIGHT: Key<f64, Growth> = Key {
    name: "error_weight",
    long: "error-weight",
    short: None,
    value_name: "W",
    order: 23,
    help: "Plies one disc of error along a line counts as, a number from 0 up; 0 grows by depth alone; default 1 \
          [config: error_weight]",
    default: "`1`",
    doc: "`grow`: plies one disc of error along a line counts as (`grow.md`)",
    flag: Flag::Value,
    file: File::Number,
    parse: |text| parse_real(text, bookminer::growth::priority::ErrorWeight::MAX),
    land: Land::Set(|c, weight, _| c.error_weight = weight),
};

/// `max_priority`: grow's last priority
pub static MAX_PRIORITY: Key<f64, Growth> = Key {
    name: "max_priority",
    long: "max-priority",
    short: None,
    value_name: "C",
    order: 24,
    help: "Grow until every frontier position's priority is above C [config: max_priority]",
    default: "none",
    doc: "`grow` stops once every frontier position's priority is above this",
    flag: Flag::Value,
    file: File::Number,
    parse: |text| parse_real(text, 1e12),
    land: Land::Set(|c, priority, _| c.max_priority = Some(priority)),
};

/// `max_seconds`: the seconds after which growth begins nothing new
pub static MAX_SECONDS: Key<f64, Growth> = Key {
    name: "max_seconds",
    long: "max-seconds",
    short: None,
    value_name: "SECONDS",
    order: 25,
    help: "Begin nothing new after this many seconds (grow: an expansion, deepen: a search, fill: a round); what is \
          under way is finished [config: max_seconds]",
    default: "none",
    doc: "`grow` dispatches nothing new after this many seconds, `deepen` begins no search and `fill` no round \
         after them",
    flag: Flag::Value,
    file: File::Number,
    parse: |text| parse_real(text, 1e9),
    land: Land::Set(|c, seconds, _| c.max_seconds = Some(seconds)),
};

/// `level`: the level deepen, new and add search at
pub static LEVEL: Key<Level, Growth> = Key {
    name: "level",
    long: "level",
    short: None,
    value_name: "L",
    order: 26,
    help: "Edax's level, 0 to 60: `deepen`, that every record shallower at its empty squares is given and its leaf \
          searched again at; `new`, the book's (default 21, as Edax's `book new`); `add`, that of an Egaroucid \
          book's new positions (an Edax book's header says its own) [config: level]",
    default: "none",
    doc: "`deepen`: the level leaves are searched again at (it needs one); `new`: the book's level (default 21, as \
         Edax's `book new`); `add` into an Egaroucid book: the level of the positions added (an Edax book's header \
         says its own)",
    flag: Flag::Value,
    file: File::Scalar("a whole number from 0 to 60"),
    parse: |text| parse_count(text, 0..=60),
    land: Land::Set(|c, level, _| c.level = Some(level)),
};

/// `depth`: the depth of a book made from games
pub static DEPTH: Key<u32, Growth> = Key {
    name: "depth",
    long: "depth",
    short: None,
    value_name: "D",
    order: 28,
    help: "The book's depth, 1 to 60; `new`: its header's n_empties is 61 - D (default 36, as Edax's `book new`), \
          and `add` plays D - 1 moves of a game; `add`: for an Egaroucid book only, the moves of a game played \
          (default 60) [config: depth]",
    default: "none",
    doc: "`new`: the book's depth, its header's n_empties being 61 − depth (default 36; `add` then plays depth − 1 \
         moves of a game); `add` into an Egaroucid book: the moves of a game played (default 60)",
    flag: Flag::Value,
    file: File::Scalar("a whole number"),
    parse: |text| parse_count(text, 1..=60),
    land: Land::Set(|c, depth, _| c.depth = Some(depth)),
};

group!(
    /// Where `extend` and `grow` expand, and when they stop.
    ExtendKeys of Growth: MIN_EMPTIES, MAX_POSITIONS
);

group!(
    /// How `grow` weighs errors and when it stops (docs/grow.md).
    GrowKeys of Growth: ERROR_WEIGHT, MAX_PRIORITY; stop: StopKeys
);

group!(
    /// When a growth run that can take long begins nothing new: `grow`,
    /// `deepen` and `fill`, one declaration.
    StopKeys of Growth: MAX_SECONDS
);

group!(
    /// The level `deepen` searches leaves again at (docs/deepen.md), `new`
    /// starts a book at, and `add` gives an Egaroucid book's new positions.
    DeepenKeys of Growth: LEVEL
);

group!(
    /// The depth of a book made from games (`new`; `add` into an Egaroucid
    /// book, whose header holds none).
    GamesKeys of Growth: DEPTH
);

#[cfg(test)]
mod tests {
    use crate::config::file::parse;
    use bookminer::level::Level;

    #[test]
    fn deepen_level_is_a_level() {
        assert_eq!(parse("").unwrap().growth.level, None);
        assert_eq!(parse("LEVEL = 60").unwrap().growth.level, Some(Level::MAX));
        assert_eq!(parse("level = 61").unwrap_err().key(), Some("level"));
    }

    #[test]
    fn growth_numbers_take_floats_and_text() {
        let c = parse("error_weight = 0.5\nmax_priority = \"3\"\nmax_seconds = 2\nmin_empties = 14\nmax_positions = 0\ndepth = 36")
            .unwrap();
        assert_eq!((c.growth.error_weight, c.growth.max_priority, c.growth.max_seconds), (0.5, Some(3.0), Some(2.0)));
        assert_eq!((c.growth.min_empties, c.growth.max_positions, c.growth.depth), (Some(14), Some(0), Some(36)));
        for bad in
            ["error_weight = -1.0", "max_seconds = \"nan\"", "depth = 0", "min_empties = 61", "max_positions = -1"]
        {
            assert_eq!(parse(bad).unwrap_err().key(), bad.split(' ').next(), "{bad}");
        }
    }
}
