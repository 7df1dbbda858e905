//! WTHOR files (`.wtb`), the French federation's game database: a 16-byte
//! header (the game count, u32 little-endian, at byte 4; the board size at
//! byte 12, 8 or 0 for 8×8), then 68 bytes a game: tournament and players
//! (6 bytes), two scores, then 60 move bytes, each `10 × row + column`
//! (a1 = 11, h8 = 88). A 0 ends the game; a byte that is no square ends it
//! as a move that is not legal does. Passes are not written.
//!
//! The header's count is not trusted: every whole record the file holds is
//! read, and a file whose size disagrees with it (a count that is wrong,
//! bytes of a record cut short) is said to be damaged, once read, with
//! the bytes left over.

use super::error::{ReadError, Where};
use super::reader::{Entry, Game, GamePlace, Reader};
use crate::board::{Move, Square};
use std::io::{BufRead, ErrorKind, Read};
use std::path::{Path, PathBuf};

/// The header's size.
pub const HEADER_LEN: usize = 16;
/// A game's size.
pub const RECORD_LEN: usize = 68;
/// Where a record's moves start.
const MOVES_AT: usize = 8;

pub struct WthorReader<R> {
    /// For the warning a damaged file gets once read.
    path: PathBuf,
    source: R,
    /// The game count the header gives.
    claimed: u32,
    /// Games read so far.
    games: u64,
    offset: u64,
    /// Set once the end is reached (and the damage, if any, said).
    done: bool,
}

impl<R: BufRead> WthorReader<R> {
    /// Reads the header; a file too short to hold one, or of a board other
    /// than 8×8, is refused.
    pub fn new(path: &Path, mut source: R) -> Result<WthorReader<R>, ReadError> {
        let mut header = [0u8; HEADER_LEN];
        let got = read_up_to(&mut source, &mut header)?;
        let damaged = |what: String| ReadError::Damaged { at: Where { game: None, line: None, byte: 0 }, what };
        if got < HEADER_LEN {
            return Err(damaged(format!("{got} bytes: shorter than the {HEADER_LEN}-byte WTHOR header")));
        }
        let size = header[12];
        if size != 0 && size != 8 {
            return Err(damaged(format!(
                "the header's board size (byte 12) is {size}: only 8×8 games (8, or 0) are read"
            )));
        }
        let claimed = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes"));
        Ok(WthorReader { path: path.to_path_buf(), source, claimed, games: 0, offset: HEADER_LEN as u64, done: false })
    }

    /// Says, once the end is reached, how the file disagrees with its
    /// header: the games it claims, those it holds, the bytes left over.
    fn say_damage(&self, left: usize) {
        if u64::from(self.claimed) == self.games && left == 0 {
            return;
        }
        tracing::warn!(
            "{}: damaged: the header says {} games, the file holds {} whole games of {RECORD_LEN} bytes{}; the {} were read",
            self.path.display(),
            self.claimed,
            self.games,
            match left {
                0 => String::new(),
                _ => format!(" and {left} bytes more (a game cut short, not read)"),
            },
            self.games
        );
    }
}

impl<R: BufRead> Reader for WthorReader<R> {
    fn next_entry(&mut self) -> Result<Option<Entry>, ReadError> {
        if self.done {
            return Ok(None);
        }
        let mut record = [0u8; RECORD_LEN];
        let got = read_up_to(&mut self.source, &mut record)?;
        if got < RECORD_LEN {
            self.done = true;
            self.offset += got as u64;
            self.say_damage(got);
            return Ok(None);
        }
        self.games += 1;
        let place = GamePlace { number: self.games, line: None, offset: self.offset };
        self.offset += RECORD_LEN as u64;
        Ok(Some(Entry::Game(game_of(place, &record))))
    }

    fn offset(&self) -> u64 {
        self.offset
    }
}

/// A record's moves, up to its first 0 or byte that is no square.
fn game_of(place: GamePlace, record: &[u8; RECORD_LEN]) -> Game {
    let mut moves = Vec::with_capacity(RECORD_LEN - MOVES_AT);
    for &byte in &record[MOVES_AT..] {
        if byte == 0 {
            break;
        }
        match square_of(byte) {
            Some(square) => moves.push(Move::Play(square)),
            None => return Game { place, moves, unreadable: Some(format!("byte {byte}")) },
        }
    }
    Game { place, moves, unreadable: None }
}

/// The square a move byte names: `10 × row + column`, both 1 to 8.
pub fn square_of(byte: u8) -> Option<Square> {
    let (row, column) = (byte / 10, byte % 10);
    match (1..=8).contains(&row) && (1..=8).contains(&column) {
        true => Square::new((row - 1) * 8 + column - 1),
        false => None,
    }
}

/// Fills `buffer` as far as the source goes; how many bytes it got.
fn read_up_to(source: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buffer.len() {
        match source.read(&mut buffer[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::super::{reader_of, GameFormat};
    use super::*;

    /// A WTHOR file of these games' move bytes, claiming `count` games.
    fn file(count: u32, games: &[&[u8]]) -> Vec<u8> {
        let mut bytes = vec![0u8; HEADER_LEN];
        bytes[4..8].copy_from_slice(&count.to_le_bytes());
        bytes[12] = 8;
        for moves in games {
            let mut record = [0u8; RECORD_LEN];
            record[MOVES_AT..MOVES_AT + moves.len()].copy_from_slice(moves);
            bytes.extend(record);
        }
        bytes
    }

    fn games_of(bytes: &[u8]) -> Vec<Game> {
        reader_of(GameFormat::Wthor, bytes)
            .into_iter()
            .map(|e| match e {
                Ok(Entry::Game(game)) => game,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    /// The byte that names a square.
    fn byte_of(square: Square) -> u8 {
        10 * (square.row() + 1) + square.column() + 1
    }

    #[test]
    fn squares_are_ten_rows_and_columns_and_map_both_ways() {
        assert_eq!(square_of(11), Square::parse("a1"));
        assert_eq!(square_of(88), Square::parse("h8"));
        assert_eq!(square_of(56), Square::parse("f5"));
        for bad in [0, 9, 10, 19, 20, 89, 90, 91, 255] {
            assert_eq!(square_of(bad), None, "{bad}");
        }
        for index in 0..64 {
            let square = Square::new(index).unwrap();
            assert_eq!(square_of(byte_of(square)), Some(square));
        }
    }

    #[test]
    fn a_game_ends_at_its_first_zero_or_at_a_byte_that_is_no_square() {
        let found = games_of(&file(3, &[&[56, 64, 33], &[56, 0, 64], &[56, 95, 64]]));
        let f5 = Move::Play(Square::parse("f5").unwrap());
        assert_eq!(
            found[0].moves,
            [f5, Move::Play(Square::parse("d6").unwrap()), Move::Play(Square::parse("c3").unwrap())]
        );
        assert_eq!(found[1].moves, [f5]);
        assert_eq!((found[2].moves.clone(), found[2].unreadable.clone()), (vec![f5], Some("byte 95".to_string())));
        assert_eq!(found[2].place, GamePlace { number: 3, line: None, offset: 16 + 2 * 68 });
    }

    #[test]
    fn the_whole_records_are_read_whatever_the_header_says() {
        let mut bytes = file(7, &[&[56], &[56]]);
        bytes.extend([1, 2, 3]);
        assert_eq!(games_of(&bytes).len(), 2);
        assert_eq!(games_of(&file(0, &[&[56]])).len(), 1);
    }

    #[test]
    fn a_file_without_a_header_or_of_another_board_is_refused() {
        assert_eq!(
            reader_of(GameFormat::Wthor, &[0; 15])[0].as_ref().unwrap_err(),
            "test: byte 0: 15 bytes: shorter than the 16-byte WTHOR header"
        );
        let mut ten = file(0, &[]);
        ten[12] = 10;
        assert!(reader_of(GameFormat::Wthor, &ten)[0].as_ref().unwrap_err().contains("board size (byte 12) is 10"));
    }
}
