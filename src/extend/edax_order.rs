//! The order in which Edax expands a round's marked positions: the order of
//! its book's hash table. Edax keeps a book in 65,536 buckets, a board's
//! bucket the low 16 bits of a CRC-32C of its player's discs, then of its
//! opponent's; a bucket holds its records in the order they came in (the
//! file's order, then the positions added, in turn), and Edax writes a book
//! in that order too. Edax links a new position at once, to the positions
//! the book holds at that moment, so which of a pass's new positions link to
//! each other depends on this order; expanding in it gives the links (and so
//! the leaves searched) Edax's expansion gives.

use crate::board::Board;
use crate::growing::store::{Flavor, NodeId, Store};

/// The Castagnoli polynomial, reflected.
const CASTAGNOLI: u32 = 0x82f6_3b78;

/// CRC-32C of the eight bytes of `data` (least significant first), from
/// `crc`, with no inversion before or after (the processor's crc32
/// instruction, which Edax uses).
fn crc32c_u64(mut crc: u32, data: u64) -> u32 {
    for byte in data.to_le_bytes() {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (CASTAGNOLI & (crc & 1).wrapping_neg());
        }
    }
    crc
}

/// The bucket of Edax's hash table that holds `board` (as the book stores it).
pub(crate) fn bucket(board: &Board) -> u16 {
    (crc32c_u64(crc32c_u64(0, board.player), board.opponent) & 0xffff) as u16
}

/// `ids` in the order Edax would expand them: for an Edax book by bucket,
/// then as the book holds them (records read first, in file order, then the
/// positions added, in turn); an Egaroucid book's as given.
pub(crate) fn in_edax_order(store: &Store<'_>, ids: &[NodeId]) -> Vec<NodeId> {
    let mut ordered = ids.to_vec();
    if let Flavor::Edax(_) = store.flavor() {
        ordered.sort_by_cached_key(|&id| (bucket(&store.board(id)), id));
    }
    ordered
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard check value of CRC-32C ("123456789" gives 0xE3069283
    /// with the inversions this function leaves to its caller).
    #[test]
    fn crc32c_gives_the_standard_check_value() {
        let mut crc = !0u32;
        crc = crc32c_u64(crc, u64::from_le_bytes(*b"12345678"));
        // The ninth byte, on its own, through the same bit loop.
        crc ^= u32::from(b'9');
        for _ in 0..8 {
            crc = (crc >> 1) ^ (CASTAGNOLI & (crc & 1).wrapping_neg());
        }
        assert_eq!(!crc, 0xe306_9283);
    }

    /// Edax writes a book bucket by bucket: a book it wrote is in
    /// nondecreasing bucket order, and one converted from Egaroucid's is not.
    #[test]
    fn a_book_edax_wrote_is_in_bucket_order() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/books");
        let buckets = |name: &str| -> Vec<u16> {
            let book = crate::book::Book::open(&data.join(name), &Default::default()).unwrap();
            book.records().map(|r| bucket(&r.board())).collect()
        };
        let edax = buckets("edax46-l2-small.dat");
        assert!(edax.len() > 7000);
        assert!(edax.windows(2).all(|w| w[0] <= w[1]));
        assert!(buckets("endgames-extend.dat").windows(2).any(|w| w[0] > w[1]));
    }
}
