//! The bucket of Edax's hash table a board falls in. Edax keeps a book in
//! 65,536 buckets, a board's bucket the low 16 bits of a CRC-32C of its
//! player's discs, then of its opponent's; a bucket holds its records in
//! the order they came in, and Edax writes a book bucket by bucket. So the
//! bucket orders what Edax writes and what it expands
//! (`crate::growth::edax_order`).

use crate::board::Board;

/// The Castagnoli polynomial, reflected.
const CASTAGNOLI: u32 = 0x82f6_3b78;

/// CRC-32C of the eight bytes of `data` (least significant first), from
/// `crc`, with no inversion before or after (the processor's crc32
/// instruction, which Edax uses), a bit at a time: the reference the
/// tables are checked against.
#[cfg(test)]
fn crc32c_u64_bitwise(mut crc: u32, data: u64) -> u32 {
    for byte in data.to_le_bytes() {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (CASTAGNOLI & (crc & 1).wrapping_neg());
        }
    }
    crc
}

/// The tables of CRC-32C eight bytes at a time ("slicing by 8"): entry
/// `[k][b]` is the CRC of byte `b` followed by `k` zero bytes. A round
/// orders millions of positions, and the bit loop took most of its time.
const TABLES: [[u32; 256]; 8] = tables();

const fn tables() -> [[u32; 256]; 8] {
    let mut tables = [[0u32; 256]; 8];
    let mut b = 0;
    while b < 256 {
        let mut crc = b as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = (crc >> 1) ^ (CASTAGNOLI & (crc & 1).wrapping_neg());
            bit += 1;
        }
        tables[0][b] = crc;
        b += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut b = 0;
        while b < 256 {
            let before = tables[k - 1][b];
            tables[k][b] = (before >> 8) ^ tables[0][(before & 0xff) as usize];
            b += 1;
        }
        k += 1;
    }
    tables
}

/// CRC-32C of the eight bytes of `data` (least significant first), from
/// `crc`, with no inversion before or after (the processor's crc32
/// instruction, which Edax uses).
fn crc32c_u64(crc: u32, data: u64) -> u32 {
    let x = data ^ u64::from(crc);
    let byte = |k: u32| ((x >> (8 * k)) & 0xff) as usize;
    TABLES[7][byte(0)]
        ^ TABLES[6][byte(1)]
        ^ TABLES[5][byte(2)]
        ^ TABLES[4][byte(3)]
        ^ TABLES[3][byte(4)]
        ^ TABLES[2][byte(5)]
        ^ TABLES[1][byte(6)]
        ^ TABLES[0][byte(7)]
}

/// The bucket of Edax's hash table that holds `board` (as the book stores it).
pub fn bucket(board: &Board) -> u16 {
    (crc32c_u64(crc32c_u64(0, board.player), board.opponent) & 0xffff) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard check value of CRC-32C ("123456789" gives 0xE3069283
    /// with the inversions this function leaves to its caller).
    #[test]
    fn crc32c_gives_the_standard_check_value() {
        let mut crc = !0u32;
        crc = crc32c_u64_bitwise(crc, u64::from_le_bytes(*b"12345678"));
        // The ninth byte, on its own, through the same bit loop.
        crc ^= u32::from(b'9');
        for _ in 0..8 {
            crc = (crc >> 1) ^ (CASTAGNOLI & (crc & 1).wrapping_neg());
        }
        assert_eq!(!crc, 0xe306_9283);
    }

    /// The tables give the bit loop's CRC, from any CRC, for any eight bytes.
    #[test]
    fn crc32c_by_tables_is_crc32c_a_bit_at_a_time() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let crc = (x >> 17) as u32;
            assert_eq!(crc32c_u64(crc, x), crc32c_u64_bitwise(crc, x), "crc {crc:#x}, data {x:#x}");
        }
        assert_eq!(crc32c_u64(0, 0), crc32c_u64_bitwise(0, 0));
        assert_eq!(crc32c_u64(!0, !0), crc32c_u64_bitwise(!0, !0));
    }
}
