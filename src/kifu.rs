//! Reading kifu text (`f5d6C3`) and playing it from the initial position.

use crate::board::{Board, Move, Square};
use std::fmt;

/// A kifu that cannot be read or played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KifuError {
    /// 1-based number of the move in the text.
    pub move_number: usize,
    /// The move as written.
    pub text: String,
    /// Why it cannot be read or played.
    pub reason: &'static str,
}

impl fmt::Display for KifuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} \"{}\": {}", self.move_number, self.text, self.reason)
    }
}

impl std::error::Error for KifuError {}

/// Reads moves as written: squares as letter and digit in either case, `PS`
/// or `PA` for a pass, spaces ignored. Legality is not checked.
pub fn parse_moves(text: &str) -> Result<Vec<Move>, KifuError> {
    let read = read_moves(text);
    match read.unreadable {
        None => Ok(read.moves),
        Some(Unreadable { move_number, text }) => {
            Err(KifuError { move_number, text, reason: "not a square (A1 to H8)" })
        }
    }
}

/// What [`read_moves`] made of a text: the moves up to the first pair of
/// characters that is no move, and that pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadMoves {
    /// The moves read.
    pub moves: Vec<Move>,
    /// What stopped the reading, if anything did.
    pub unreadable: Option<Unreadable>,
}

/// Written where a move should be, and no move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// 1-based number of the move in the text.
    pub move_number: usize,
    /// The characters written there.
    pub text: String,
}

/// Reads moves as [`parse_moves`] does, but keeps the moves before the
/// first pair of characters that is no move (a game file's line is read
/// so: the game ends there).
pub fn read_moves(text: &str) -> ReadMoves {
    let mut compact = text.chars().filter(|c| !c.is_whitespace());
    let mut moves = Vec::new();
    loop {
        let word: String = compact.by_ref().take(2).collect();
        if word.is_empty() {
            return ReadMoves { moves, unreadable: None };
        }
        match read_move(&word) {
            Some(mv) => moves.push(mv),
            None => {
                let unreadable = Some(Unreadable { move_number: moves.len() + 1, text: word });
                return ReadMoves { moves, unreadable };
            }
        }
    }
}

/// The most moves a legal game writes: 60 squares, and a forced pass
/// before at most each of them (a pass leaves the other side a move). A
/// longer list is illegal by its next move, so a reader that keeps one
/// more than this keeps where the game ends.
pub const MAX_MOVES: usize = 120;

/// One move written as two characters: a square, or `PS`/`PA`.
pub fn read_move(word: &str) -> Option<Move> {
    if word.eq_ignore_ascii_case("PS") || word.eq_ignore_ascii_case("PA") {
        return Some(Move::Pass);
    }
    Square::parse(word).map(Move::Play)
}

/// Reads a kifu's squares; written passes are dropped, since [`play`]
/// inserts passes where they are forced.
pub fn parse(text: &str) -> Result<Vec<Square>, KifuError> {
    let moves = parse_moves(text)?;
    Ok(moves.into_iter().filter_map(|m| if let Move::Play(s) = m { Some(s) } else { None }).collect())
}

/// A list of moves played from the initial position: the steps, each
/// board on the way, and the move that stopped it early, if one did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// Squares played and passes, a pass wherever the side to move had no
    /// move before the next square (written or not). A replay never ends
    /// on a pass: a pass is a step only with a square after it.
    pub steps: Vec<Move>,
    /// The board before each step, then the board after the last one:
    /// one more than the steps, the initial position first.
    pub boards: Vec<Board>,
    /// The first move that was not legal where it came, which ended the
    /// replay (the moves before it are played): its index among the moves
    /// given, and the move.
    pub illegal: Option<(usize, Move)>,
}

impl Replay {
    /// The board the replay reached.
    pub fn board(&self) -> Board {
        *self.boards.last().expect("a replay holds the initial position")
    }

    /// How many of the steps lie within the first `squares` squares
    /// played: the passes before each of them count, none after the last.
    pub fn steps_within(&self, squares: usize) -> usize {
        let mut played = 0;
        for (i, step) in self.steps.iter().enumerate() {
            if played == squares {
                return i;
            }
            played += usize::from(matches!(step, Move::Play(_)));
        }
        self.steps.len()
    }
}

/// Plays moves from the initial position. A square where the side to move
/// has no move comes after a pass, which is inserted; a written pass is
/// taken where the side to move must pass. Anything else not legal (a
/// square taken or that turns nothing, a pass where a move exists, any
/// move once the game is over) ends the replay before it.
pub fn replay(moves: &[Move]) -> Replay {
    let mut board = Board::INITIAL;
    let mut steps = Vec::with_capacity(moves.len() + 2);
    let mut boards = Vec::with_capacity(moves.len() + 3);
    boards.push(board);
    let mut illegal = None;
    for (i, &mv) in moves.iter().enumerate() {
        let passed = matches!(mv, Move::Play(_)) && board.must_pass();
        let before = if passed { board.swapped() } else { board };
        let Some(after) = before.after(mv) else {
            illegal = Some((i, mv));
            break;
        };
        if passed {
            steps.push(Move::Pass);
            boards.push(before);
        }
        steps.push(mv);
        boards.push(after);
        board = after;
    }
    if steps.last() == Some(&Move::Pass) {
        steps.pop();
        boards.pop();
    }
    Replay { steps, boards, illegal }
}

/// Plays squares from the initial position, inserting a pass wherever the side
/// to move has none before its next move. Returns the board reached (after the
/// last square, with no pass added after it) and the moves, passes included.
pub fn play(squares: &[Square]) -> Result<(Board, Vec<Move>), KifuError> {
    let moves: Vec<Move> = squares.iter().map(|&s| Move::Play(s)).collect();
    let replay = replay(&moves);
    if let Some((i, mv)) = replay.illegal {
        return Err(KifuError { move_number: i + 1, text: mv.to_string(), reason: "illegal move in this position" });
    }
    Ok((replay.board(), replay.steps))
}

/// Reads and plays a kifu.
pub fn parse_and_play(text: &str) -> Result<(Board, Vec<Move>), KifuError> {
    play(&parse(text)?)
}

/// The first line (depth-first, lowest squares first), at most `depth`
/// squares deep from `board`, that leaves the side to move without a move:
/// for the tests of games with passes.
#[cfg(test)]
pub(crate) fn first_line_to_a_pass(board: Board, depth: u32, line: &mut Vec<Square>) -> bool {
    if board.must_pass() {
        return true;
    }
    if depth == 0 {
        return false;
    }
    for square in Square::iter(board.legal_moves()) {
        line.push(square);
        if first_line_to_a_pass(board.after(Move::Play(square)).unwrap(), depth - 1, line) {
            return true;
        }
        line.pop();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plays_a_line_in_any_case() {
        let (board, line) = parse_and_play("f5D6c3").unwrap();
        assert_eq!(line.len(), 3);
        assert_eq!(board.empties(), 57);
        assert_eq!(parse_and_play("F5 D6 C3").unwrap().0, board);
    }

    #[test]
    fn rejects_bad_squares_and_illegal_moves() {
        assert_eq!(parse("F5Z9").unwrap_err().move_number, 2);
        assert_eq!(parse("F5D").unwrap_err().move_number, 2);
        let err = parse_and_play("F5F5").unwrap_err();
        assert_eq!((err.move_number, err.reason), (2, "illegal move in this position"));
    }

    fn squares(text: &str) -> Vec<Move> {
        parse_moves(text).unwrap()
    }

    #[test]
    fn a_replay_takes_written_passes_where_forced_and_never_ends_on_one() {
        let mut line = Vec::new();
        assert!(first_line_to_a_pass(Board::INITIAL, 9, &mut line));
        let stuck = play(&line).unwrap().0;
        let reply = Square::iter(stuck.swapped().legal_moves()).next().unwrap();
        let mut written: Vec<Move> = line.iter().map(|&s| Move::Play(s)).collect();
        let implied = replay(&[written.clone(), vec![Move::Play(reply)]].concat());
        written.extend([Move::Pass, Move::Play(reply)]);
        let explicit = replay(&written);
        assert_eq!(explicit, implied, "a pass written where forced is the pass the replay inserts");
        assert_eq!(explicit.steps.len(), line.len() + 2);
        assert_eq!(explicit.boards.len(), explicit.steps.len() + 1);
        assert_eq!(explicit.boards[line.len() + 1], stuck.swapped());
        let trailing = replay(&written[..line.len() + 1]);
        assert_eq!((trailing.steps.len(), trailing.illegal), (line.len(), None), "no pass at the end");
    }

    #[test]
    fn a_replay_ends_before_a_move_that_is_not_legal() {
        let played = replay(&squares("f5d6PSc3"));
        assert_eq!(played.steps, squares("f5d6"));
        assert_eq!(played.illegal, Some((2, Move::Pass)), "a pass where a move exists");
        let played = replay(&squares("f5d6d6"));
        assert_eq!((played.steps.len(), played.illegal), (2, Some((2, squares("d6")[0]))));
        assert_eq!(played.board(), parse_and_play("f5d6").unwrap().0);
    }

    #[test]
    fn the_steps_within_some_squares_hold_the_passes_before_each() {
        let mut line = Vec::new();
        assert!(first_line_to_a_pass(Board::INITIAL, 9, &mut line));
        let stuck = play(&line).unwrap().0;
        let reply = Square::iter(stuck.swapped().legal_moves()).next().unwrap();
        line.push(reply);
        let played = replay(&line.iter().map(|&s| Move::Play(s)).collect::<Vec<_>>());
        let n = line.len() - 1;
        assert_eq!(played.steps_within(n), n, "no pass after the last square counted");
        assert_eq!(played.steps_within(n + 1), n + 2, "the pass before the next square");
        assert_eq!(played.steps_within(100), n + 2);
        assert_eq!(played.steps_within(0), 0);
    }

    #[test]
    fn reading_moves_keeps_those_before_the_first_that_is_none() {
        let read = read_moves("f5 D6 zz c3");
        assert_eq!(read.moves, squares("f5d6"));
        assert_eq!(read.unreadable, Some(Unreadable { move_number: 3, text: "zz".into() }));
        assert_eq!(read_moves("f5d").unreadable.unwrap().text, "d");
        assert_eq!(read_moves("").moves, []);
    }

    #[test]
    fn inserts_the_passes_a_line_implies() {
        let mut squares = Vec::new();
        assert!(first_line_to_a_pass(Board::INITIAL, 9, &mut squares));
        let (stuck, line) = play(&squares).unwrap();
        assert!(stuck.must_pass());
        assert!(!line.contains(&Move::Pass), "no pass after the last move");
        let reply = Square::iter(stuck.swapped().legal_moves()).next().unwrap();
        squares.push(reply);
        let (_, line) = play(&squares).unwrap();
        assert_eq!(line[squares.len() - 1], Move::Pass);
        assert_eq!(line.len(), squares.len() + 1);
    }
}
