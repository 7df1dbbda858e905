//! The lines `check` writes (docs/games.md): a game's line up to and
//! including a move the book scores below its best (`check-bad`), or up
//! to the first position the book has not (`check-missing`), with what the
//! book says, as one record of each output format.

use crate::board::{Board, Move};
use crate::book::Score;
use crate::output::print::{push_int, push_json_move, push_score};
use crate::output::Lined;
use crate::symmetry::Symmetry;

/// One line `check` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckLine<'a> {
    /// Moves from the initial position, passes included.
    pub line: &'a [Move],
    /// The position at the end of the line; `player` is the side to move.
    pub board: Board,
    /// What it ends at.
    pub kind: Kind,
}

/// What a line ends at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The line's last move, which the book scores `score`, below the best
    /// score `best` of the position it was played in.
    Bad {
        /// The move.
        mv: Move,
        /// Its score.
        score: Score,
        /// The best score of the position it was played in.
        best: Score,
    },
    /// The position at the end of the line, which the book has not.
    Missing,
}

/// Keys `check`, `move`, `score`, `best` (`null` for a missing line) and
/// `empties` (of the position at the end of the line).
impl Lined for CheckLine<'_> {
    fn line(&self) -> &[Move] {
        self.line
    }

    fn board(&self) -> Board {
        self.board
    }

    fn push_keys(&self, symmetry: Symmetry, out: &mut String) {
        let (name, mv, score, best) = match self.kind {
            Kind::Bad { mv, score, best } => ("bad", Some(mv), Some(score), Some(best)),
            Kind::Missing => ("missing", None, None, None),
        };
        out.push_str(",\"check\":\"");
        out.push_str(name);
        out.push_str("\",\"move\":");
        push_json_move(mv, symmetry, out);
        out.push_str(",\"score\":");
        push_score(score, out);
        out.push_str(",\"best\":");
        push_score(best, out);
        out.push_str(",\"empties\":");
        push_int(self.board.empties().into(), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kifu::parse_and_play;
    use crate::output::print::{LineText, RecordFormat};
    use crate::output::LineStyle;

    fn printed(format: RecordFormat, record: &CheckLine<'_>) -> String {
        let mut kifu = String::new();
        let symmetry = LineStyle::default().render(record.line, &mut kifu);
        let mut out = String::new();
        format.printer().print(record, &LineText { kifu: &kifu, symmetry }, &mut out);
        out
    }

    #[test]
    fn a_bad_line_names_its_move_turned_as_the_line_and_both_scores() {
        // Played as E6 F4; turned to F5 by the transposition: F5 D6.
        let (board, line) = parse_and_play("e6f4").unwrap();
        let bad = CheckLine {
            line: &line,
            board,
            kind: Kind::Bad { mv: line[1], score: Score::new(-4), best: Score::new(2) },
        };
        let json = printed(RecordFormat::Jsonl, &bad);
        assert!(
            json.starts_with(
                "{\"kifu\":\"F5D6\",\"check\":\"bad\",\"move\":\"D6\",\"score\":-4,\"best\":2,\"empties\":58,\"board\":\""
            ),
            "{json}"
        );
        assert!(json.ends_with("\",\"side\":\"X\"}\n"), "{json}");
        assert!(printed(RecordFormat::Obf, &bad).ends_with(" X; % F5D6\n"));
        assert_eq!(printed(RecordFormat::Kifu, &bad), "F5D6\n");
    }

    #[test]
    fn a_missing_line_has_no_move_and_no_scores() {
        let (board, line) = parse_and_play("f5").unwrap();
        let missing = CheckLine { line: &line, board, kind: Kind::Missing };
        let json = printed(RecordFormat::Jsonl, &missing);
        assert!(
            json.starts_with(
                "{\"kifu\":\"F5\",\"check\":\"missing\",\"move\":null,\"score\":null,\"best\":null,\"empties\":59,"
            ),
            "{json}"
        );
        assert!(json.ends_with(",\"side\":\"O\"}\n"), "{json}");
    }
}
