//! The one way books are written from many records: chunks of records
//! converted on every core ([`crate::parallel::in_order`]), appended to the
//! book in chunk order on the calling thread, each chunk's records counted
//! for the header. A cancel is seen between chunks; a chunk that could not
//! be converted stops the writing with its error, nothing after it
//! written. `convert` (the records its walk does not reach), `cut` and
//! `fix` write through it, and so does `extend`'s final book, which `fix`'s
//! code writes; docs/architecture.md says which writers stream their own
//! way, and why.

use crate::parallel;
use crate::run::{Cancel, Interrupted};
use std::io;

/// Some records converted together, ready to append.
pub trait Chunk {
    /// Empties the chunk for the next one, keeping its room.
    fn clear(&mut self);
    /// The records' bytes, as the book holds them.
    fn bytes(&self) -> &[u8];
    /// How many records the bytes hold.
    fn records(&self) -> u64;
}

/// Where chunks go, in order.
pub trait Sink {
    type Error;
    /// Appends `bytes`, which hold `records` records.
    fn append(&mut self, bytes: &[u8], records: u64) -> Result<(), Self::Error>;
}

impl Sink for super::BookOut {
    type Error = super::WriteError;

    fn append(&mut self, bytes: &[u8], records: u64) -> Result<(), super::WriteError> {
        self.records_bytes(bytes, records)
    }
}

/// A writer the chunks' bytes are appended to as they come (a file being
/// written, a buffer): its errors are I/O errors, which the caller's error
/// type takes through `From`.
pub struct Appended<'w, W>(pub &'w mut W);

impl<W: std::io::Write> Sink for Appended<'_, W> {
    type Error = std::io::Error;

    fn append(&mut self, bytes: &[u8], _records: u64) -> std::io::Result<()> {
        self.0.write_all(bytes)
    }
}

/// Why writing a file chunk by chunk stopped (through [`write_chunks`]
/// into [`Appended`], or `diff`'s lines): the file's I/O, a stop, or the
/// writer's own failure `E` (a record that no longer reads, a second
/// file). The caller names the file, and says the failure in its own error.
#[derive(Debug)]
pub enum SinkFailure<E> {
    /// The file written could not be written.
    Io(io::Error),
    /// A stop was asked for.
    Interrupted(Interrupted),
    /// The writer's own failure.
    Own(E),
}

/// A failure of the sink: the file written.
impl<E> From<io::Error> for SinkFailure<E> {
    fn from(error: io::Error) -> SinkFailure<E> {
        SinkFailure::Io(error)
    }
}

impl<E> From<Interrupted> for SinkFailure<E> {
    fn from(stop: Interrupted) -> SinkFailure<E> {
        SinkFailure::Interrupted(stop)
    }
}

/// A chunk with the outcome of its conversion.
struct Slot<C, E> {
    chunk: C,
    converted: Result<(), E>,
}

/// Writes `chunks` chunks into `sink`: chunk `k` is made by
/// `convert(k, chunk)` from a cleared chunk on some core, then, in the
/// order of `k`, appended to `sink` and handed to `then` (what it
/// counted, its other outputs). Stops with [`Interrupted`] once `cancel`
/// is set, or with the first error `convert`, the sink or `then` returns;
/// nothing after that chunk is appended. Chunks come from `fresh` and are
/// reused.
pub fn write_chunks<C, S, E>(
    chunks: usize,
    fresh: impl Fn() -> C,
    convert: impl Fn(usize, &mut C) -> Result<(), E> + Sync,
    sink: &mut S,
    cancel: Cancel<'_>,
    mut then: impl FnMut(&mut C) -> Result<(), E>,
) -> Result<(), E>
where
    C: Chunk + Send,
    S: Sink,
    E: From<S::Error> + From<Interrupted> + Send,
{
    let make = || Slot { chunk: fresh(), converted: Ok(()) };
    let work = |k: usize, slot: &mut Slot<C, E>| {
        slot.chunk.clear();
        slot.converted = convert(k, &mut slot.chunk);
    };
    let consume = |slot: &mut Slot<C, E>| {
        cancel.check()?;
        std::mem::replace(&mut slot.converted, Ok(()))?;
        sink.append(slot.chunk.bytes(), slot.chunk.records())?;
        then(&mut slot.chunk)
    };
    parallel::in_order(chunks, parallel::workers(), make, work, consume)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A chunk of numbers written as one byte each.
    #[derive(Default)]
    struct Numbers {
        bytes: Vec<u8>,
        cleared: bool,
    }

    impl Chunk for Numbers {
        fn clear(&mut self) {
            self.bytes.clear();
            self.cleared = true;
        }

        fn bytes(&self) -> &[u8] {
            &self.bytes
        }

        fn records(&self) -> u64 {
            self.bytes.len() as u64
        }
    }

    /// A book in memory, refusing to grow past `room` bytes.
    #[derive(Default)]
    struct Memory {
        bytes: Vec<u8>,
        records: u64,
        room: Option<usize>,
    }

    /// A chunk that could not be converted: its number.
    #[derive(Debug)]
    struct Failed(usize);

    /// What the tests' writing stops with.
    type Failure = SinkFailure<Failed>;

    impl Sink for Memory {
        type Error = io::Error;

        fn append(&mut self, bytes: &[u8], records: u64) -> io::Result<()> {
            if self.room.is_some_and(|room| self.bytes.len() + bytes.len() > room) {
                return Err(io::ErrorKind::StorageFull.into());
            }
            self.bytes.extend_from_slice(bytes);
            self.records += records;
            Ok(())
        }
    }

    /// Whether `done` is the failure of a full book.
    fn full(done: &Result<(), Failure>) -> bool {
        matches!(done, Err(SinkFailure::Io(e)) if e.kind() == io::ErrorKind::StorageFull)
    }

    /// Whether `done` is a stop.
    fn stopped(done: &Result<(), Failure>) -> bool {
        matches!(done, Err(SinkFailure::Interrupted(Interrupted)))
    }

    /// Whether `done` is chunk `k`'s own failure.
    fn failed_at(done: &Result<(), Failure>, k: usize) -> bool {
        matches!(done, Err(SinkFailure::Own(Failed(at))) if *at == k)
    }

    /// Records `0..n` in chunks of `per` (the last one shorter), each
    /// record `i` written as `i % 251` unless it is a multiple of 7.
    fn convert(n: usize, per: usize) -> impl Fn(usize, &mut Numbers) -> Result<(), Failure> + Sync {
        move |k, chunk| {
            assert!(chunk.cleared && chunk.bytes.is_empty(), "each chunk starts cleared");
            for i in k * per..((k + 1) * per).min(n) {
                if i % 7 != 0 {
                    chunk.bytes.push((i % 251) as u8);
                }
            }
            Ok(())
        }
    }

    /// The same records, written one after another.
    fn sequential(n: usize) -> Vec<u8> {
        (0..n).filter(|i| i % 7 != 0).map(|i| (i % 251) as u8).collect()
    }

    #[test]
    fn records_are_written_in_order_across_chunk_boundaries_and_counted() {
        let never = AtomicBool::new(false);
        for (n, per) in [(0usize, 4usize), (1, 4), (4, 4), (5, 4), (1000, 3), (1000, 1024), (10_000, 17)] {
            let mut book = Memory::default();
            let mut seen = 0;
            let chunks = n.div_ceil(per);
            let then = |_: &mut Numbers| {
                seen += 1;
                Ok::<(), Failure>(())
            };
            write_chunks(chunks, Numbers::default, convert(n, per), &mut book, Cancel::new(&never), then).unwrap();
            let expected = sequential(n);
            assert_eq!(book.bytes, expected, "{n} records by {per}");
            assert_eq!(book.records, expected.len() as u64);
            assert_eq!(seen, chunks);
        }
    }

    #[test]
    fn no_chunks_write_nothing() {
        let mut book = Memory::default();
        let never = AtomicBool::new(false);
        let done: Result<(), Failure> = write_chunks(
            0,
            Numbers::default,
            |_, _: &mut Numbers| panic!("no chunk to convert"),
            &mut book,
            Cancel::new(&never),
            |_| panic!("no chunk to hand over"),
        );
        assert!(done.is_ok());
        assert_eq!((book.bytes.len(), book.records), (0, 0));
    }

    #[test]
    fn a_cancel_stops_the_writing_between_chunks() {
        let cancel = AtomicBool::new(true);
        let mut book = Memory::default();
        let done = write_chunks(50, Numbers::default, convert(500, 10), &mut book, Cancel::new(&cancel), |_| Ok(()));
        assert!(stopped(&done));
        assert!(book.bytes.is_empty(), "nothing is written once cancelled");

        // Cancelled after the third chunk: the three are written, no more.
        let cancel = AtomicBool::new(false);
        let mut book = Memory::default();
        let mut handed = 0;
        let then = |_: &mut Numbers| {
            handed += 1;
            if handed == 3 {
                cancel.store(true, Ordering::Relaxed);
            }
            Ok(())
        };
        let done = write_chunks(50, Numbers::default, convert(500, 10), &mut book, Cancel::new(&cancel), then);
        assert!(stopped(&done));
        assert_eq!(book.bytes, sequential(30));
    }

    #[test]
    fn the_first_failing_chunk_s_error_is_returned_and_nothing_after_it_written() {
        let never = AtomicBool::new(false);
        let failing = |k: usize, chunk: &mut Numbers| {
            convert(500, 10)(k, chunk)?;
            match k {
                7 | 9 => Err(SinkFailure::Own(Failed(k))),
                _ => Ok(()),
            }
        };
        let mut book = Memory::default();
        let done = write_chunks(50, Numbers::default, failing, &mut book, Cancel::new(&never), |_| Ok(()));
        assert!(failed_at(&done, 7));
        assert_eq!(book.bytes, sequential(70));
    }

    #[test]
    fn errors_of_the_sink_and_of_the_hand_over_are_returned() {
        let never = AtomicBool::new(false);
        let mut book = Memory { room: Some(sequential(100).len()), ..Memory::default() };
        let done = write_chunks(50, Numbers::default, convert(500, 10), &mut book, Cancel::new(&never), |_| Ok(()));
        assert!(full(&done));
        assert_eq!(book.bytes, sequential(100));

        let mut book = Memory::default();
        let mut handed = 0;
        let then = |_: &mut Numbers| {
            handed += 1;
            if handed == 5 {
                return Err(SinkFailure::Own(Failed(4)));
            }
            Ok(())
        };
        let done = write_chunks(50, Numbers::default, convert(500, 10), &mut book, Cancel::new(&never), then);
        assert!(failed_at(&done, 4));
        assert_eq!(book.bytes, sequential(50));
    }
}
