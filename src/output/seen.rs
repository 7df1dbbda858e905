//! Which lines a kifu file already holds, in 8 bytes a line.
//!
//! A set of the lines themselves would keep every line in memory as well as
//! in the file, and a mode-1 run on a large book writes millions. An entry
//! here is the line's byte offset in the file and 30 bits of its hash; when
//! a new line's hash matches an entry, the earlier line is read back from the
//! file and compared, so a line is dropped only if it really was written.

use hashbrown::HashTable;
use std::io;

const OFFSET_BITS: u32 = 34;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
/// Kifu files past this size cannot have their repeated lines dropped.
pub const MAX_FILE_LEN: u64 = 1 << OFFSET_BITS;

/// The lines written so far, by hash and file offset.
#[derive(Default)]
pub struct SeenLines {
    table: HashTable<u64>,
}

/// 30 bits of a line's hash: what an entry keeps.
fn fingerprint(line: &[u8]) -> u64 {
    let mut h = 0x243f_6a88_85a3_08d3u64 ^ line.len() as u64;
    for chunk in line.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = mix(h ^ u64::from_le_bytes(word));
    }
    h >> (64 - 30)
}

/// The table's hash, made from the fingerprint alone so that entries can be
/// rehashed when the table grows.
fn table_hash(fingerprint: u64) -> u64 {
    mix(fingerprint)
}

/// A 64-bit finalizer (MurmurHash3's), spreading every input bit over the output.
fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

impl SeenLines {
    /// Records `line`, about to be written at `offset`, and says whether it is
    /// new. `same_as(earlier)` reads back the line written at `earlier` and
    /// says whether it equals `line`.
    pub fn insert(
        &mut self,
        line: &[u8],
        offset: u64,
        mut same_as: impl FnMut(u64) -> io::Result<bool>,
    ) -> io::Result<bool> {
        if offset >= MAX_FILE_LEN {
            return Err(io::Error::other(format!(
                "more than {MAX_FILE_LEN} bytes of kifu: too many to drop repeated lines (set unique_lines = false)"
            )));
        }
        let print = fingerprint(line);
        let hash = table_hash(print);
        let mut failure = None;
        let seen = self.table.find(hash, |&entry| {
            entry >> OFFSET_BITS == print
                && same_as(entry & OFFSET_MASK).unwrap_or_else(|e| {
                    failure = Some(e);
                    false
                })
        });
        if let Some(e) = failure {
            return Err(e);
        }
        if seen.is_some() {
            return Ok(false);
        }
        self.table.insert_unique(hash, print << OFFSET_BITS | offset, |&entry| table_hash(entry >> OFFSET_BITS));
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stands in for the file: lines and the offsets they were written at.
    #[derive(Default)]
    struct Written {
        bytes: Vec<u8>,
        seen: SeenLines,
    }

    impl Written {
        fn write(&mut self, line: &str) -> bool {
            let bytes = &self.bytes;
            let new = self
                .seen
                .insert(line.as_bytes(), bytes.len() as u64, |at| {
                    let at = at as usize;
                    Ok(bytes
                        .get(at..at + line.len() + 1)
                        .is_some_and(|b| b[..line.len()] == *line.as_bytes() && b[line.len()] == b'\n'))
                })
                .unwrap();
            if new {
                self.bytes.extend_from_slice(line.as_bytes());
                self.bytes.push(b'\n');
            }
            new
        }
    }

    #[test]
    fn a_line_is_new_once() {
        let mut w = Written::default();
        assert!(w.write("F5D6"));
        assert!(w.write("F5D6C3"));
        assert!(w.write("F5"));
        assert!(!w.write("F5D6"));
        assert!(!w.write("F5"));
        assert!(w.write(""));
        assert!(!w.write(""));
    }

    #[test]
    fn many_lines_agree_with_a_set_of_the_lines() {
        let mut w = Written::default();
        let mut set = std::collections::HashSet::new();
        let mut x = 1u64;
        for _ in 0..50_000 {
            x = mix(x.wrapping_add(0x9e37_79b9_7f4a_7c15));
            let line = format!("F5{:X}", x % 20_000);
            assert_eq!(w.write(&line), set.insert(line.clone()), "{line}");
        }
    }

    #[test]
    fn equal_fingerprints_are_told_apart_by_the_file() {
        // Two different lines recorded with one fingerprint: only reading back
        // can tell them apart.
        let mut seen = SeenLines::default();
        let print = fingerprint(b"F5D6");
        let hash = table_hash(print);
        seen.table.insert_unique(hash, print << OFFSET_BITS | 3, |&e| table_hash(e >> OFFSET_BITS));
        assert!(seen.insert(b"F5D6", 100, |_| Ok(false)).unwrap());
        assert!(!seen.insert(b"F5D6", 200, |at| Ok(at == 100)).unwrap());
    }
}
