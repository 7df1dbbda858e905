//! Where the walk starts and which moves it follows (mining, cut, growth):
//! `start`, `deviation`, `error`, `max_ply`.

use crate::config::group::{group, values};
use crate::config::key::{File, Flag, Key, Land};
use crate::config::parse::{parse_text, BadValue};
use bookminer::kifu;
use bookminer::walk::Start;
use bookminer::window::Window;

values!(
    /// Where the walk starts and which moves it follows: `config.walk`.
    Walk {
        /// The position the `start` kifu reaches, and that kifu played (passes
        /// inserted): the walk covers only what lies below it.
        start: Start = Start::initial(),
        /// Which moves the walk follows (docs/walk.md, windows).
        window: Window = Window::NONE,
    }
);

/// `start`: the kifu the walk starts below, played as it lands
pub static START: Key<String, Walk> = Key {
    name: "start",
    long: "start",
    short: None,
    value_name: "KIFU",
    order: 2,
    help: "Walk only below the position this kifu reaches, e.g. f5d6 [config: start]",
    default: "`\"\"`",
    doc: "a line from the initial position: walk only below it (mining, `cut`)",
    flag: Flag::Value,
    file: File::Text("a string"),
    parse: parse_text,
    land: Land::Checked(|c, text| start_of(&text).map(|start| c.start = start)),
};

/// `deviation`: a window limit
pub static DEVIATION: Key<Option<u32>, Walk> = Key {
    name: "deviation",
    long: "deviation",
    short: None,
    value_name: "N",
    order: 14,
    help: "Window: follow a move only if it scores at least the position's best move minus N; -1: no limit [config: \
          deviation]",
    default: "`-1`",
    doc: "the window (docs/walk.md): follow a move only if it scores at least the position's best move minus N; \
         `-1`: no limit",
    flag: Flag::Negative,
    file: File::Scalar("-1 or a whole number from 0 up"),
    parse: parse_limit,
    land: Land::Set(|c, limit, _| c.window.deviation = limit),
};

/// `error`: a window limit
pub static ERROR: Key<Option<u32>, Walk> = Key {
    name: "error",
    long: "error",
    short: None,
    value_name: "N",
    order: 15,
    help: "Window: follow a move only if its score is within N of the start position's value (negated at odd \
          plies); -1: no limit [config: error]",
    default: "`-1`",
    doc: "the window: follow a move only if its score is within N of the start position's value; `-1`: no limit",
    flag: Flag::Negative,
    file: File::Scalar("-1 or a whole number from 0 up"),
    parse: parse_limit,
    land: Land::Set(|c, limit, _| c.window.error = limit),
};

/// `max_ply`: a window limit
pub static MAX_PLY: Key<Option<u32>, Walk> = Key {
    name: "max_ply",
    long: "max-ply",
    short: None,
    value_name: "N",
    order: 16,
    help: "Window: follow moves only this many plies below the start; -1: no limit [config: max_ply]",
    default: "`-1`",
    doc: "the window: follow moves only this many plies below the start; `-1`: no limit",
    flag: Flag::Negative,
    file: File::Scalar("-1 or a whole number from 0 up"),
    parse: parse_limit,
    land: Land::Set(|c, limit, _| c.window.max_ply = limit),
};

group!(
    /// Where the walk starts and which moves it follows (mining, cut).
    WalkKeys of Walk: START, DEVIATION, ERROR, MAX_PLY
);

/// A window limit (docs/walk.md, windows): a whole number from 0 up, or -1 for none.
fn parse_limit(text: &str) -> Result<Option<u32>, BadValue> {
    match text.trim().parse::<i64>() {
        Ok(-1) => Ok(None),
        Ok(n) if (0..=i64::from(LIMIT_MAX)).contains(&n) => Ok(Some(n as u32)),
        _ => Err(BadValue(format!("expected -1 (no limit) or a whole number from 0 to {LIMIT_MAX}, got {text:?}"))),
    }
}

/// The largest window limit taken: scores span 256 values and a game 120
/// plies at most, so anything above is the same as no limit but written
/// with a number.
const LIMIT_MAX: u32 = 1000;

/// The start position: the initial one for an empty kifu, else where the
/// kifu leads (passes inserted where forced).
fn start_of(text: &str) -> Result<Start, BadValue> {
    if text.trim().is_empty() {
        return Ok(Start::initial());
    }
    let (board, line) = kifu::parse_and_play(text).map_err(|e| BadValue(format!("{text:?}: {e}")))?;
    Ok(Start { board, line })
}

#[cfg(test)]
mod tests {
    use crate::config::file::parse;
    use crate::config::values::Config;
    use bookminer::walk::Start;
    use bookminer::window::Window;

    #[test]
    fn window_limits_take_minus_one_for_none_and_refuse_other_negatives() {
        let c = parse("deviation = 2\nerror = \"0\"\nmax_ply = -1").unwrap();
        assert_eq!(c.walk.window, Window { deviation: Some(2), error: Some(0), max_ply: None });
        for bad in ["deviation = -3", "max_ply = \"x\"", "error = 1.5", "deviation = 1001"] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.key(), bad.split(' ').next(), "{bad}: {e}");
            assert!(e.message().contains("-1"), "{bad}: {e}");
        }
        let mut c = Config::default();
        c.set_from_command_line("max_ply", "-1").unwrap();
        c.set_from_command_line("deviation", "4").unwrap();
        assert_eq!(c.walk.window, Window { deviation: Some(4), error: None, max_ply: None });
        assert_eq!(c.set_from_command_line("error", "-2").unwrap_err().key(), Some("--error"));
    }

    #[test]
    fn start_is_played_when_the_config_is_read() {
        let c = parse("start = \"f5d6\"").unwrap();
        assert_eq!(c.walk.start.line.len(), 2);
        let e = parse("start = \"f5f5\"").unwrap_err();
        assert!(e.key() == Some("start") && e.to_string().contains("illegal"), "{e}");
        assert_eq!(parse("start = \"  \"").unwrap().walk.start, Start::initial());
        let e = Config::default().set_from_command_line("start", "f5f5").unwrap_err();
        assert!(e.key() == Some("--start") && e.to_string().starts_with("command line: key `--start`: "), "{e}");
    }
}
