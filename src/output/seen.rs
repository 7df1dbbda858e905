//! Which lines a kifu file already holds, in 9 bytes a slot.
//!
//! A set of the lines themselves would keep every line in memory as well as
//! in the file, and a mode-1 run on a large book writes millions. An entry
//! here is the line's byte offset in the file and 29 bits of its hash, with
//! 8 more bits of the hash (its *check*) in a byte beside the slot; when a
//! new line's hash matches an entry, the earlier line is read back from the
//! file and compared, so a line is dropped only if it really was written.
//!
//! The check is what keeps those reads rare. An entry's 29 bits include the
//! bits that pick its slot, so in a table of 2^27 slots only two tell the
//! lines of one slot apart: without the check, about one new line in
//! eighteen was read back (4.4M of the 215M book's 78M lines, each a
//! system call on the thread that writes; docs/benchmarks.md).
//! With it, a read back is 256 times rarer. The check is read only when
//! the rest matches, so its byte seldom costs a trip to memory.
//!
//! The entries are kept in a table of our own rather than a general hash
//! map: an entry holds its fingerprint, so a lookup reads one word (one
//! cache line, usually) where a map with separate control bytes reads two,
//! one after the other, and on a table far larger than the cache each is a
//! wait for memory. Open addressing, linear probing from the slot the
//! fingerprint's leading bits pick, the table at most three quarters full
//! (doubled past that: a probe then reads a few more words of the same
//! cache line, where doubling at half full would have held the lines of
//! the largest books in twice the memory), and a zero word for an empty
//! slot: entries are never zero,
//! for every fingerprint has its top bit set. Since a slot is the
//! fingerprint's leading bits, doubling the table sends the entries of slot
//! `i` to slots `2i` and `2i + 1` and on: growing is one sweep through
//! memory, not a cache miss per entry. The caller computes a line's
//! [`Fingerprint`] and asks for its slot ([`SeenLines::prefetch`]) some lines
//! before it inserts it, so that the insert rarely waits for memory.

use std::io;

const OFFSET_BITS: u32 = 34;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
/// Kifu files past this size cannot have their repeated lines dropped.
pub const MAX_FILE_LEN: u64 = 1 << OFFSET_BITS;
const FINGERPRINT_BITS: u32 = 64 - OFFSET_BITS;
const EMPTY: u64 = 0;
/// Slots a new table starts with: a power of two.
const FIRST_SLOTS: usize = 1 << 10;
/// The fingerprint's bits below its top bit (which is always set) pick the
/// slot: tables have at most this many slots, and hold at most half as many
/// lines (so that a full table of the largest size still has short probes).
const SLOT_BITS: u32 = FINGERPRINT_BITS - 1;
/// Lines a file can have its repeats dropped from.
pub const MAX_LINES: usize = 1 << (SLOT_BITS - 1);

/// The lines written so far, by fingerprint and file offset.
pub struct SeenLines {
    /// A power of two of slots.
    slots: Vec<u64>,
    /// Each slot's entry's [`Fingerprint`] check.
    checks: Vec<u8>,
    len: usize,
}

impl Default for SeenLines {
    fn default() -> SeenLines {
        SeenLines { slots: empty_slots(FIRST_SLOTS), checks: empty_slots(FIRST_SLOTS), len: 0 }
    }
}

/// `n` empty slots. Not in huge pages: where the kernel must compact
/// memory to find them, a table of hundreds of megabytes took seconds to
/// allocate (while the walk waited for the judge), and lookups are asked
/// for ahead, which hides the page walks that small pages add. Zero is
/// empty, so the pages come zeroed from the kernel, with no pass to fill
/// them; they are mapped in one call, since growing writes all over the
/// table at once (about half the time of mapping them page by page).
fn empty_slots<T: Copy + Default>(n: usize) -> Vec<T> {
    let mut slots = vec![T::default(); n];
    crate::os::populate(&mut slots);
    slots
}

/// What an entry keeps of a line's hash: 30 bits of it, the top one set
/// (`print`), and 8 bits apart from those (`check`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    print: u64,
    check: u8,
}

impl Fingerprint {
    /// The fingerprint of `line`. Each 8 bytes are folded in with one
    /// multiply and a rotation, and the whole is mixed once at the end: a
    /// line's bytes reach every bit of the result.
    pub fn of(line: &[u8]) -> Fingerprint {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut h = 0x243f_6a88_85a3_08d3u64 ^ line.len() as u64;
        let mut chunks = line.chunks_exact(8);
        for chunk in &mut chunks {
            h = (h ^ u64::from_le_bytes(chunk.try_into().expect("8 bytes"))).wrapping_mul(K).rotate_left(29);
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        h = mix(h ^ u64::from_le_bytes(last));
        Fingerprint { print: (h >> OFFSET_BITS) | 1 << (FINGERPRINT_BITS - 1), check: h as u8 }
    }
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
    /// Asks for the slot where a lookup of `fingerprint` starts, so that an
    /// [`SeenLines::insert`] a little later finds it in cache. Only a hint:
    /// if the table grows in between, the insert looks where it must.
    pub fn prefetch(&self, fingerprint: Fingerprint) {
        prefetch_index::prefetch_index(&self.slots, self.first_slot(fingerprint.print));
    }

    /// Records the line of `fingerprint`, about to be written at
    /// `offset`, and says whether it is new. `same_as(earlier)` reads back
    /// the line written at `earlier` and says whether it is the same line.
    pub fn insert(
        &mut self,
        fingerprint: Fingerprint,
        offset: u64,
        mut same_as: impl FnMut(u64) -> io::Result<bool>,
    ) -> io::Result<bool> {
        if offset >= MAX_FILE_LEN {
            return Err(io::Error::other(format!(
                "more than {MAX_FILE_LEN} bytes of kifu: too many to drop repeated lines (set unique_lines = false)"
            )));
        }
        if self.len >= MAX_LINES {
            return Err(io::Error::other(format!(
                "more than {MAX_LINES} lines: too many to drop repeated lines (set unique_lines = false)"
            )));
        }
        let Fingerprint { print, check } = fingerprint;
        let mask = self.slots.len() - 1;
        let mut slot = self.first_slot(print);
        loop {
            match self.slots[slot] {
                EMPTY => break,
                entry
                    if entry >> OFFSET_BITS == print && self.checks[slot] == check && same_as(entry & OFFSET_MASK)? =>
                {
                    return Ok(false)
                }
                _ => slot = (slot + 1) & mask,
            }
        }
        self.slots[slot] = print << OFFSET_BITS | offset;
        self.checks[slot] = check;
        self.len += 1;
        if 4 * self.len > 3 * self.slots.len() && self.slots.len() < 1 << SLOT_BITS {
            self.grow();
        }
        Ok(true)
    }

    /// Where a probe for `fingerprint` starts: its leading bits below the top one.
    fn first_slot(&self, fingerprint: u64) -> usize {
        let bits = self.slots.len().trailing_zeros();
        ((fingerprint & ((1 << SLOT_BITS) - 1)) >> (SLOT_BITS - bits)) as usize
    }

    /// Doubles the table, putting every entry (and its check) back, in
    /// slot order.
    fn grow(&mut self) {
        let doubled = 2 * self.slots.len();
        let old = std::mem::replace(&mut self.slots, empty_slots(doubled));
        let old_checks = std::mem::replace(&mut self.checks, empty_slots(doubled));
        let mask = self.slots.len() - 1;
        for (entry, check) in old.into_iter().zip(old_checks).filter(|&(e, _)| e != EMPTY) {
            let mut slot = self.first_slot(entry >> OFFSET_BITS);
            while self.slots[slot] != EMPTY {
                slot = (slot + 1) & mask;
            }
            self.slots[slot] = entry;
            self.checks[slot] = check;
        }
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
                .insert(Fingerprint::of(line.as_bytes()), bytes.len() as u64, |at| {
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
        let fingerprint = Fingerprint::of(b"F5D6");
        let slot = seen.first_slot(fingerprint.print);
        seen.slots[slot] = fingerprint.print << OFFSET_BITS | 3;
        seen.checks[slot] = fingerprint.check;
        assert!(seen.insert(fingerprint, 100, |_| Ok(false)).unwrap());
        assert!(!seen.insert(fingerprint, 200, |at| Ok(at == 100)).unwrap());
    }

    #[test]
    fn a_line_whose_check_differs_is_not_read_back() {
        let mut seen = SeenLines::default();
        let fingerprint = Fingerprint::of(b"F5D6");
        let other = Fingerprint { check: fingerprint.check ^ 1, ..fingerprint };
        assert!(seen.insert(fingerprint, 0, |_| panic!("nothing to read back yet")).unwrap());
        assert!(seen.insert(other, 5, |_| panic!("the checks differ: no read back")).unwrap());
        let mut read_back = Vec::new();
        let again = seen.insert(other, 10, |at| {
            read_back.push(at);
            Ok(at == 5)
        });
        assert!(!again.unwrap(), "the same print and check: read back, found");
        assert_eq!(read_back, [5], "only the entry with the same check is read back");
    }

    #[test]
    fn in_a_large_table_a_new_line_is_rarely_read_back() {
        // 3M different lines fill a table of 2^22 slots, where the slot
        // takes 22 of the print's 29 bits: 7 bits, and the check's 8, tell
        // a slot's lines apart. Without the check, 8,335 lines (one in 360)
        // were read back; with it, 34: 256 times fewer, within chance.
        let mut seen = SeenLines::default();
        let mut reads = 0u64;
        for i in 0..3_000_000u64 {
            let line = format!("F5{i:X}");
            let new = seen.insert(Fingerprint::of(line.as_bytes()), 16 * i, |_| {
                reads += 1;
                Ok(false)
            });
            assert!(new.unwrap());
        }
        assert_eq!(seen.slots.len(), 1 << 22);
        assert!(reads < 100, "{reads} lines read back");
    }
}
