//! The books that tell an engine which moves to leave out: Edax's `hint`
//! lists the moves its book holds for a position and searches the others,
//! so a book holding a record for each board searched, whose links are the
//! board's excluded moves, makes the engine search exactly as Edax's own
//! `book extend` does (its `position_search` leaves out the links).

use crate::board::Move;
use crate::engine::search::Query;
use crate::format::edax::{new_header, EdaxRecord};
use crate::level::Level;

/// An Edax book with a record for each query that excludes moves.
pub fn book_of<'q>(queries: impl Iterator<Item = &'q Query>) -> Vec<u8> {
    let mut records = Vec::new();
    let mut n = 0;
    for query in queries.filter(|q| !q.excluded.is_empty()) {
        record_of(query).encode(&mut records);
        n += 1;
    }
    let mut book = new_header(time::OffsetDateTime::UNIX_EPOCH, Level::MAX, 0, n).to_vec();
    book.extend_from_slice(&records);
    book
}

/// The query's board, its excluded moves as links, no leaf.
fn record_of(query: &Query) -> EdaxRecord {
    EdaxRecord {
        board: query.board,
        counts: [0; 4],
        value: 0,
        lower: -64,
        upper: 64,
        level: query.level.to_u8(),
        links: query.excluded.iter().map(|s| (0, Move::Play(s).code())).collect(),
        leaf: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;
    use crate::book::Book;
    use crate::level::Level;

    #[test]
    fn each_query_with_exclusions_is_a_record_whose_links_are_them() {
        let (board, _) = crate::kifu::parse_and_play("f5d6c3d3").unwrap();
        let board = crate::symmetry::normalize(&board).board;
        let excluded = crate::board::Squares::NONE.with(Square::parse("c4").unwrap());
        let queries = [
            Query { board, excluded: Default::default(), level: Level::MAX },
            Query { board, excluded, level: Level::MAX },
        ];
        let book = Book::from_bytes("exclusions", book_of(queries.iter())).unwrap();
        assert_eq!(book.counts().records, 1);
        let record = book.find(&board).unwrap();
        let links: Vec<Move> = record.links().map(|l| l.mv).collect();
        assert_eq!(links, [Move::Play(Square::parse("c4").unwrap())]);
        assert_eq!(record.leaf(), None);
    }
}
