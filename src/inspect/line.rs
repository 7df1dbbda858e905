//! A line a mode wrote (docs/modes.md, inspect): which position the mode
//! judged on it. A line to the judged position ends there; a line to one of
//! its moves (mode 1's leaf, a move above the expected score) ends one move
//! further on, where the book may hold nothing. Inspecting such a line
//! reports the position the mode looked at, not the one the line ends at.

use crate::board::{Board, Move};
use crate::book::{Book, Link, Record, Score};
use crate::kifu;
use crate::position::{self, Colour, Position, PositionError};
use crate::rules::modes::{judge, ArrivalScores, Mode, Rules, Target};
use crate::symmetry::{normalize, Symmetry};
use smallvec::SmallVec;

/// Which mode judged a line, and at which of its positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judged {
    /// The mode.
    pub mode: Mode,
    /// Where on the line it judged.
    pub at: JudgedAt,
}

/// Where on its line a mode judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JudgedAt {
    /// At the line's end: a line to the judged position (JSONL's
    /// `"target":"child"`).
    End,
    /// At the position before the line's last move, which is this move of
    /// it (JSONL's `"target":"move"`).
    BeforeLastMove(Move),
}

/// A line a mode wrote, as one line of its file gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeLine {
    /// The mode whose file holds it.
    pub mode: Mode,
    /// The kifu, as written.
    pub kifu: String,
    /// What the line ends at, when the file says (JSONL's `target`); a
    /// kifu or OBF line does not, and the book is asked.
    pub ends_with_move: Option<bool>,
    /// The position at the line's end (side to move as `player`), when
    /// the file writes it (JSONL's `board` and `side`, an OBF line's): it
    /// tells whether the line ends before or after a pass its kifu leaves
    /// out.
    pub end: Option<Board>,
}

impl ModeLine {
    /// The mode's line `text` is, if it is one: a JSON line of a mode's
    /// `.jsonl` (its `mode`, `target` and `kifu`), or, in a file a mode
    /// wrote (`written_by`, told by the file's name), a kifu or an OBF line
    /// with its `% kifu` comment. Anything else is a position as written.
    pub fn read(text: &str, written_by: Option<Mode>) -> Option<ModeLine> {
        let text = text.trim();
        if text.starts_with('{') {
            return ModeLine::from_json(text);
        }
        let (kifu, end) = match text.split_once('%') {
            Some((board, comment)) => (comment.trim(), position::parse(board).ok().map(|p| p.board)),
            None if text.chars().all(|c| c.is_ascii_alphanumeric()) => (text, None),
            None => return None,
        };
        let mode = written_by?;
        (!kifu.is_empty()).then(|| ModeLine { mode, kifu: kifu.to_string(), ends_with_move: None, end })
    }

    /// A record of a mode's `.jsonl` (docs/modes.md, the JSONL record).
    fn from_json(text: &str) -> Option<ModeLine> {
        let record: serde_json::Value = serde_json::from_str(text).ok()?;
        let mode = Mode::from_number(u8::try_from(record["mode"].as_u64()?).ok()?)?;
        let ends_with_move = match record["target"].as_str()? {
            "move" => true,
            "child" => false,
            _ => return None,
        };
        let kifu = record["kifu"].as_str()?.to_string();
        let end = position::parse(text).ok().map(|p| p.board);
        Some(ModeLine { mode, kifu, ends_with_move: Some(ends_with_move), end })
    }

    /// The position the mode judged on this line, and where it lies on the
    /// line. The readings a line allows are tried in the order the walk
    /// writes them (a line written once is written by the first): the
    /// position before its last move, then its end, each for the line as
    /// written and then, where its end must pass, for the line and the pass
    /// its kifu may leave out. The first reading whose arrival, judged
    /// again under `rules`, writes this line is the one; where the file
    /// says what the line ends at and where, only readings that agree are
    /// tried, and where none writes it (another `min_gap`), the first
    /// reading left is taken.
    pub fn judged(&self, book: &Book, rules: &Rules) -> Result<(Judged, Position), PositionError> {
        let (_, mut line) = kifu::parse_and_play(&self.kifu)?;
        let written_pass = kifu::parse_moves(&self.kifu)?.last() == Some(&Move::Pass);
        let stops = stops(book, &mut line);
        let readings = self.readings(&stops, written_pass);
        let writes = |reading: &&Reading| reading.writes(book, rules, self.mode, &stops, &line);
        // Without a verdict that writes it: mode 1's lines end with the leaf, the others' mostly at the child.
        let usual = |reading: &&Reading| reading.before_last_move == (self.mode == Mode::LeafVsLinks);
        let chosen = match self.ends_with_move {
            Some(_) => readings.first(),
            None => readings.iter().find(writes).or_else(|| readings.iter().find(usual)),
        };
        let chosen = chosen
            .or(readings.first())
            .copied()
            .unwrap_or(Reading { judged: stops.len() - 1, before_last_move: false });
        let at = match chosen.before_last_move {
            true => JudgedAt::BeforeLastMove(line[stops[chosen.judged].played]),
            false => JudgedAt::End,
        };
        Ok((Judged { mode: self.mode, at }, stops[chosen.judged].position(&line)))
    }

    /// The readings of the line this file allows, in the walk's order.
    fn readings(&self, stops: &[Stop], written_pass: bool) -> Vec<Reading> {
        let last = stops.len() - 1;
        let after_pass = stops[last].passed.then_some(last);
        // The line's end without the pass, when the book holds it.
        let plain = match after_pass {
            Some(_) => (last > 0 && stops[last - 1].played + 1 == stops[last].played).then(|| last - 1),
            None => Some(last),
        };
        let is_end = |i: &&usize| self.end.is_some_and(|end| stops[**i].board == end);
        let ends: Vec<usize> = match (plain.iter().chain(&after_pass).find(is_end), after_pass) {
            (Some(&end), _) => vec![end],
            (None, Some(after_pass)) if written_pass => vec![after_pass],
            (None, _) => plain.into_iter().chain(after_pass).collect(),
        };
        let mut readings = Vec::new();
        for end in ends {
            if end > 0 && self.ends_with_move != Some(false) {
                readings.push(Reading { judged: end - 1, before_last_move: true });
            }
            if self.ends_with_move != Some(true) {
                readings.push(Reading { judged: end, before_last_move: false });
            }
        }
        readings
    }
}

/// One reading of a line: the stop the mode judged, and whether the line
/// goes one move past it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Reading {
    judged: usize,
    before_last_move: bool,
}

impl Reading {
    /// Whether the arrival at the judged stop, from the stop before it,
    /// judged again, writes the line this reading says: to the judged
    /// position, or to the move the line goes on with.
    fn writes(&self, book: &Book, rules: &Rules, mode: Mode, stops: &[Stop], line: &[Move]) -> bool {
        let Some(parent) = self.judged.checked_sub(1).map(|i| &stops[i]) else { return false };
        let judged = &stops[self.judged];
        let Some((_, _, reached_by)) = stored_move(book, &parent.board, line[parent.played]) else { return false };
        let target = match self.before_last_move {
            true => match stored_move(book, &judged.board, line[judged.played]) {
                Some((_, index, _)) => Target::Move(index),
                None => return false,
            },
            false => Target::Child,
        };
        let Some(record) = book.find(&normalize(&judged.board).board) else { return false };
        let links: SmallVec<[Score; 16]> = record.links().map(|l| l.score).collect();
        let scores = ArrivalScores {
            parent: reached_by.score,
            via_pass: judged.played - parent.played == 2,
            value: record.value(),
            links: &links,
            leaf: record.leaf().map(|l| l.score),
        };
        judge(mode, rules, &scores).is_some_and(|verdict| verdict.targets.contains(&target))
    }
}

/// A position a line stands on, as books hold positions: the board, how
/// many of the line's moves reach it, and whether it is the line's end
/// after a pass the line did not write.
#[derive(Clone, Copy, Debug)]
struct Stop {
    board: Board,
    played: usize,
    passed: bool,
}

impl Stop {
    /// The position, its side to move and the moves that reach it.
    fn position(&self, line: &[Move]) -> Position {
        let colour = if self.played.is_multiple_of(2) { Colour::Black } else { Colour::White };
        Position { board: self.board, to_move: Some(colour), line: Some(line[..self.played].to_vec()) }
    }
}

/// The positions along `line` (passes included where forced, as
/// [`kifu::play`] gives it) from the initial one, after each move; a
/// position whose side must pass and which the book does not hold gives
/// way to the one after the pass (an Egaroucid book stores that one, an
/// Edax book the one before). Where the line ends at a position whose
/// side must pass, the position after the pass ends the list, `passed`,
/// and the pass is put at the end of `line`: the line may have been
/// written without it.
fn stops(book: &Book, line: &mut Vec<Move>) -> Vec<Stop> {
    let mut board = Board::INITIAL;
    let mut stops = vec![Stop { board, played: 0, passed: false }];
    for (played, &mv) in line.iter().enumerate() {
        // A played kifu's moves are legal.
        let Some(next) = board.after(mv) else { return stops };
        board = next;
        if !board.must_pass() || book.find(&normalize(&board).board).is_some() {
            stops.push(Stop { board, played: played + 1, passed: false });
        }
    }
    if board.must_pass() {
        stops.push(Stop { board: board.swapped(), played: line.len() + 1, passed: true });
        line.push(Move::Pass);
    }
    stops
}

/// The record of `board` and its move that plays `mv` on `board`, with
/// its place among the record's moves (links, then the leaf). A board
/// that is its own image under a symmetry is matched under each symmetry
/// that maps the stored board onto it, since the line may have been
/// turned by any of them.
pub(super) fn stored_move(book: &Book, board: &Board, mv: Move) -> Option<(Record, usize, Link)> {
    let record = book.find(&normalize(board).board)?;
    let onto: SmallVec<[Symmetry; 8]> =
        Symmetry::ALL.into_iter().filter(|s| s.board(&record.board) == *board).collect();
    let (index, link) =
        record.moves().enumerate().find(|(_, link)| onto.iter().any(|s| s.apply_move(link.mv) == mv))?;
    Some((record, index, link))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mode_line_is_told_by_its_json_fields_or_its_file() {
        let json = r#"{"kifu":"F5D6","mode":3,"branch":"above","target":"move","move":"D6","board":"x","side":"X"}"#;
        assert_eq!(
            ModeLine::read(json, None),
            Some(ModeLine { mode: Mode::ParentVsValue, kifu: "F5D6".into(), ends_with_move: Some(true), end: None })
        );
        let receipt = r#"{"record":30,"kifu":"F5F6","board":"x","side":"X","value":[3,7]}"#;
        assert_eq!(ModeLine::read(receipt, Some(Mode::LeafVsLinks)), None, "fix's receipt is no mode's line");
        let obf = "---------------------------OX------XXX-------------------------- O; % F5";
        let read = ModeLine::read(obf, Some(Mode::LeafVsLinks)).unwrap();
        assert_eq!((read.kifu.as_str(), read.end), ("F5", Some(crate::position::parse("F5").unwrap().board)));
        assert_eq!(ModeLine::read(obf, None), None, "a position, unless a mode's file holds it");
        assert_eq!(ModeLine::read("f5d6", Some(Mode::ValueVsBest)).map(|l| l.mode), Some(Mode::ValueVsBest));
        assert_eq!(ModeLine::read("0x1 0x2", Some(Mode::ValueVsBest)), None);
    }
}
