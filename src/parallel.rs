//! Work shared between the cores with its results used in order: items
//! 0, 1, 2, … handed out in turn to worker threads, each filling a buffer
//! that comes back to the caller in item order and is then reused. Writing
//! a book this way runs record by record on every core while one thread
//! writes the file front to back.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// Buffers per worker: one being filled while the last one waits.
const BUFFERS_PER_WORKER: usize = 2;

/// `records` shared out into `parts` runs of about equal length, each
/// starting at a multiple of `align` (but the first, at 0).
pub fn split(records: usize, parts: usize, align: usize) -> Vec<std::ops::Range<usize>> {
    let bounds: Vec<usize> =
        (0..=parts).map(|i| if i == parts { records } else { records * i / parts / align * align }).collect();
    bounds.windows(2).map(|w| w[0]..w[1]).filter(|r| !r.is_empty()).collect()
}

/// `work(run)` for each run of [`split`]`(items, parts, align)`, each on
/// a thread of its own; the results in the order of the runs (none for
/// no items). A panic in `work` is raised again here.
pub fn on_runs<T: Send>(
    items: usize,
    parts: usize,
    align: usize,
    work: impl Fn(std::ops::Range<usize>) -> T + Sync,
) -> Vec<T> {
    // Runs of nothing to fill: a vector of `()` holds no memory.
    on_runs_of(&mut vec![(); items], parts, align, |run, _| work(run))
}

/// [`on_runs`] over the runs of `items` itself: `work(run, &mut items[run])`
/// for each run of [`split`]`(items.len(), parts, align)`, so that each
/// thread fills its own part; the results in the order of the runs. A
/// panic in `work` is raised again here.
pub fn on_runs_of<T: Send, R: Send>(
    items: &mut [T],
    parts: usize,
    align: usize,
    work: impl Fn(std::ops::Range<usize>, &mut [T]) -> R + Sync,
) -> Vec<R> {
    let work = &work;
    let runs = split(items.len(), parts, align);
    let lens: Vec<usize> = runs.iter().map(|run| run.len()).collect();
    std::thread::scope(|scope| {
        let threads: Vec<_> = runs
            .into_iter()
            .zip(runs_of(items, lens))
            .map(|(run, part)| scope.spawn(move || work(run, part)))
            .collect();
        threads.into_iter().map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}

/// `items` cut into consecutive runs of the lengths given, one for each
/// thread to fill (a run comes out shorter, or empty, when `items` runs out).
pub fn runs_of<T>(items: &mut [T], lens: impl IntoIterator<Item = usize>) -> Vec<&mut [T]> {
    let mut rest = items;
    let mut runs = Vec::new();
    for len in lens {
        let taken = std::mem::take(&mut rest);
        let (run, tail) = taken.split_at_mut(len.min(taken.len()));
        runs.push(run);
        rest = tail;
    }
    runs
}

/// The threads asked for (`--threads`, `threads`): 0 until set, every core.
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// Sets how many threads a run works on (`--threads`): the walk's (see
/// [`threads`]) and every pool of [`workers`]; 0 is every core.
pub fn set_threads(threads: usize) {
    THREADS.store(threads, Ordering::Relaxed);
}

/// How many threads a run works on: as set by [`set_threads`], else one per
/// core the process may use.
pub fn threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        set => set,
    }
}

/// The number of workers: [`threads`], at most 8.
pub fn workers() -> usize {
    threads().min(8)
}

/// Runs `work(i, buffer)` for every `i` in `0..items` on `workers`
/// threads, and `consume(buffer)` on the calling thread in the order of
/// `i`. Buffers come from `make` and are reused. The first error `consume`
/// returns stops the work (the workers finish the item in hand) and is
/// returned.
pub fn in_order<T: Send, E>(
    items: usize,
    workers: usize,
    make: impl Fn() -> T,
    work: impl Fn(usize, &mut T) + Sync,
    mut consume: impl FnMut(&mut T) -> Result<(), E>,
) -> Result<(), E> {
    let workers = workers.clamp(1, items.max(1));
    std::thread::scope(|scope| {
        let work = &work;
        let mut lanes = Vec::with_capacity(workers);
        for w in 0..workers {
            let (to_caller, filled) = mpsc::sync_channel::<T>(BUFFERS_PER_WORKER);
            let (give_back, empty) = mpsc::sync_channel::<T>(BUFFERS_PER_WORKER);
            for _ in 0..BUFFERS_PER_WORKER {
                give_back.send(make()).expect("the channel has room for every buffer");
            }
            scope.spawn(move || {
                for i in (w..items).step_by(workers) {
                    // The caller hung up: it stopped on an error.
                    let Ok(mut buffer) = empty.recv() else { return };
                    work(i, &mut buffer);
                    if to_caller.send(buffer).is_err() {
                        return;
                    }
                }
            });
            lanes.push((filled, give_back));
        }
        for i in 0..items {
            let (filled, give_back) = &lanes[i % workers];
            // A worker only stops early when the caller hangs up or it
            // panics; the scope then re-raises the panic.
            let Ok(mut buffer) = filled.recv() else { break };
            consume(&mut buffer)?;
            let _ = give_back.send(buffer);
        }
        Ok(())
    })
}

/// The sending end of [`batches`]: items gathered into batches and handed,
/// in order, to the thread holding the receiving end.
pub struct Batcher<T> {
    batch: Vec<T>,
    size: usize,
    to: mpsc::SyncSender<Vec<T>>,
    /// Batches the receiver has emptied, to fill again.
    emptied: mpsc::Receiver<Vec<T>>,
}

/// The receiving end of [`batches`].
pub struct Batches<T> {
    batches: mpsc::Receiver<Vec<T>>,
    emptied: mpsc::Sender<Vec<T>>,
}

/// A way to hand items from one thread to another in batches of `size`,
/// at most `in_flight` of them on their way (the sender then waits), the
/// batches reused: how a walk tells a thread beside it what it does.
pub fn batches<T>(size: usize, in_flight: usize) -> (Batcher<T>, Batches<T>) {
    let (to, batches) = mpsc::sync_channel(in_flight);
    let (emptied_to, emptied) = mpsc::channel();
    (Batcher { batch: Vec::with_capacity(size), size, to, emptied }, Batches { batches, emptied: emptied_to })
}

impl<T> Batcher<T> {
    /// Adds an item, handing the batch over once full.
    pub fn push(&mut self, item: T) {
        self.batch.push(item);
        if self.batch.len() >= self.size {
            self.hand_over();
        }
    }

    /// Hands the items gathered so far over. The receiver stops early only
    /// by panicking, which joining its thread tells: a batch it can no
    /// longer take is dropped.
    fn hand_over(&mut self) {
        let empty = self.emptied.try_recv().unwrap_or_else(|_| Vec::with_capacity(self.size));
        let batch = std::mem::replace(&mut self.batch, empty);
        let _ = self.to.send(batch);
    }

    /// Hands the last items over; the receiver ends once it has them.
    pub fn finish(mut self) {
        if !self.batch.is_empty() {
            self.hand_over();
        }
    }
}

impl<T> Batches<T> {
    /// Runs `each` on every batch, in order, until the batcher is gone,
    /// handing each batch back emptied.
    pub fn each_batch(self, mut each: impl FnMut(&[T])) {
        for mut batch in self.batches {
            each(&batch);
            batch.clear();
            let _ = self.emptied.send(batch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_split_into_aligned_runs_that_cover_them_all() {
        for (records, parts, align) in [(0, 2, 1024), (5, 2, 1024), (10_000, 2, 1024), (10_001, 3, 1), (7, 8, 1)] {
            let runs = split(records, parts, align);
            let mut next = 0;
            for run in &runs {
                assert_eq!(run.start, next, "{records} {parts} {align}: {runs:?}");
                assert!(run.start % align == 0 && !run.is_empty());
                next = run.end;
            }
            assert_eq!(next, records);
            assert!(runs.len() <= parts);
        }
    }

    #[test]
    fn work_on_runs_comes_back_in_the_order_of_the_runs() {
        for (items, parts, align) in [(0, 2, 1), (1, 2, 1), (10_001, 3, 1), (10_000, 2, 1024), (7, 8, 1)] {
            let done = on_runs(items, parts, align, |run| run.collect::<Vec<_>>());
            assert_eq!(done.len(), split(items, parts, align).len(), "{items} {parts} {align}");
            assert_eq!(done.concat(), (0..items).collect::<Vec<_>>(), "{items} {parts} {align}");
        }
    }

    #[test]
    fn work_on_runs_of_items_fills_each_run_and_comes_back_in_order() {
        for (len, parts, align) in [(0, 2, 1), (1, 2, 1), (10_001, 3, 1), (10_000, 2, 1024), (7, 8, 1)] {
            let mut items = vec![usize::MAX; len];
            let done = on_runs_of(&mut items, parts, align, |run, part| {
                part.iter_mut().zip(run.clone()).for_each(|(item, i)| *item = i);
                run
            });
            assert_eq!(done, split(len, parts, align), "{len} {parts} {align}");
            assert_eq!(items, (0..len).collect::<Vec<_>>(), "{len} {parts} {align}");
        }
    }

    #[test]
    fn runs_cut_the_items_in_order_and_the_last_short() {
        let mut items: Vec<u32> = (0..10).collect();
        let runs = super::runs_of(&mut items, [3, 3, 10, 2]);
        let lens: Vec<usize> = runs.iter().map(|r| r.len()).collect();
        assert_eq!(lens, vec![3, 3, 4, 0]);
        assert_eq!(runs[1], &[3, 4, 5]);
    }

    /// Items pushed on one thread come out on the other in order, across
    /// full batches and the last short one, and none is lost.
    #[test]
    fn batched_items_arrive_in_order_and_all() {
        let (mut batcher, batches) = batches::<u32>(7, 2);
        let received = std::thread::scope(|scope| {
            let receiver = scope.spawn(move || {
                let mut got = Vec::new();
                batches.each_batch(|batch| {
                    assert!(!batch.is_empty() && batch.len() <= 7, "a batch of {}", batch.len());
                    got.extend_from_slice(batch);
                });
                got
            });
            for i in 0..100 {
                batcher.push(i);
            }
            batcher.finish();
            receiver.join().unwrap()
        });
        assert_eq!(received, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn results_come_in_item_order_whatever_the_number_of_workers() {
        for workers in [1, 2, 3, 8] {
            for items in [0, 1, 5, 100] {
                let mut seen = Vec::new();
                let done: Result<(), ()> = in_order(
                    items,
                    workers,
                    Vec::new,
                    |i, buffer: &mut Vec<usize>| {
                        buffer.clear();
                        buffer.extend([i, i * i]);
                    },
                    |buffer| {
                        seen.push(buffer.clone());
                        Ok(())
                    },
                );
                assert_eq!(done, Ok(()));
                let expected: Vec<Vec<usize>> = (0..items).map(|i| vec![i, i * i]).collect();
                assert_eq!(seen, expected, "{workers} workers, {items} items");
            }
        }
    }

    #[test]
    fn an_error_stops_the_work_and_is_returned() {
        let mut consumed = 0;
        let done = in_order(
            1000,
            2,
            || 0usize,
            |i, buffer| *buffer = i,
            |buffer| {
                consumed += 1;
                if *buffer == 10 {
                    return Err(*buffer);
                }
                Ok(())
            },
        );
        assert_eq!(done, Err(10));
        assert_eq!(consumed, 11);
    }
}
