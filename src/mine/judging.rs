//! A run's second thread: the walk's arrivals, handed over in batches (see
//! [`crate::mine::arrivals`]), are judged under every chosen mode and their
//! records handed to a [`Findings`]: each mode's files, or memory. The walk's
//! own thread, whose speed is bounded by memory, is left to walk; judging,
//! rendering, dropping repeated lines and writing overlap with it on the
//! second core.

use crate::board::Move;
use crate::mine::arrivals::{ArrivalBatch, Replay};
use crate::rules::mismatch::{Found, Mismatch, Recorder};
use crate::rules::modes::{Branch, Mode, Rules};
use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Batches in flight before the walk waits for the judge: 128K arrivals
/// where a rule fires. The judge keeps up on average, but not at every
/// moment: doubling a repeated-line table stops it for tens of
/// milliseconds, which a queue of 8 batches of every arrival could not
/// hide from the walk.
const BATCHES_IN_FLIGHT: usize = 32;

/// Why the judge stopped: the file it was writing and the error.
pub type WriteFailure = (PathBuf, io::Error);

/// Where the judge puts the records it makes, in the walk's order: each
/// mode's files (mining), or memory ([`Collected`]).
pub trait Findings: Send + 'static {
    /// Takes one record of `modes[index]`. An error stops the judge, and
    /// with it the walk.
    fn take(&mut self, index: usize, record: &Mismatch<'_>) -> Result<(), WriteFailure>;
}

/// A record kept in memory: the record, and the line it borrowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The record, its `line` left empty (see [`Finding::record`]).
    mismatch: Mismatch<'static>,
    line: Vec<Move>,
}

impl Finding {
    /// The record as the judge made it.
    pub fn record(&self) -> Mismatch<'_> {
        Mismatch { line: &self.line, ..self.mismatch }
    }
}

/// Every record, kept in memory, per mode in the order of the modes judged.
#[derive(Clone, Debug, Default)]
pub struct Collected {
    /// For each mode judged, its records in walk order.
    pub per_mode: Vec<Vec<Finding>>,
}

impl Findings for Collected {
    fn take(&mut self, index: usize, record: &Mismatch<'_>) -> Result<(), WriteFailure> {
        if self.per_mode.len() <= index {
            self.per_mode.resize_with(index + 1, Vec::new);
        }
        let finding = Finding { mismatch: Mismatch { line: &[], ..*record }, line: record.line.to_vec() };
        self.per_mode[index].push(finding);
        Ok(())
    }
}

/// What the judge did with every arrival.
pub struct Judged<F> {
    /// Where every record went (files not yet finished).
    pub findings: F,
    /// Per mode, in the order of the modes judged: arrivals where the rule fired
    /// above and below.
    pub fired: Vec<(u64, u64)>,
}

/// The judging thread, fed until [`Judge::finish`].
pub struct Judge<F> {
    sender: Option<SyncSender<ArrivalBatch>>,
    /// Batches judged and emptied, sent back to be filled again: a batch
    /// is a few hundred kilobytes, which a fresh allocation would have the
    /// kernel map, zero and unmap every time.
    emptied: Receiver<ArrivalBatch>,
    thread: Option<JoinHandle<Result<Judged<F>, WriteFailure>>>,
}

/// The judge has stopped (after an error) and takes no more arrivals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgeStopped;

impl<F: Findings> Judge<F> {
    /// Starts the thread that judges arrivals under `modes` and hands each
    /// record to `findings` (numbered `i` for `modes[i]`).
    pub fn spawn(modes: &[Mode], rules: Rules, findings: F) -> io::Result<Judge<F>> {
        let (sender, batches) = sync_channel::<ArrivalBatch>(BATCHES_IN_FLIGHT);
        let (give_back, emptied) = sync_channel::<ArrivalBatch>(BATCHES_IN_FLIGHT + 1);
        let mut recorder = Recorder::new(modes, rules);
        let thread = std::thread::Builder::new().name("judge and write".into()).spawn(move || {
            let mut findings = findings;
            let mut fired = vec![(0, 0); recorder.modes().len()];
            let mut replay = Replay::default();
            for mut batch in batches {
                replay.replay(&batch, |facts| {
                    recorder.facts(facts, |found| match found {
                        Found::Fired { index, branch } => {
                            let (above, below) = &mut fired[index];
                            *if branch == Branch::Above { above } else { below } += 1;
                            Ok(())
                        }
                        Found::Record { index, record } => findings.take(index, record),
                    })
                })?;
                batch.clear();
                // The walk may have stopped taking them back; then it is dropped.
                let _ = give_back.try_send(batch);
            }
            Ok(Judged { findings, fired })
        })?;
        Ok(Judge { sender: Some(sender), emptied, thread: Some(thread) })
    }

    /// An empty batch to fill: one the judge has emptied, or a new one.
    pub fn empty_batch(&self) -> ArrivalBatch {
        self.emptied.try_recv().unwrap_or_default()
    }

    /// Hands a batch over, waiting while the judge is too far behind. An
    /// error means the judge has stopped; [`Judge::finish`] says why.
    pub fn send(&mut self, batch: ArrivalBatch) -> Result<(), JudgeStopped> {
        let sender = self.sender.as_ref().ok_or(JudgeStopped)?;
        sender.send(batch).map_err(|_| JudgeStopped)
    }

    /// Waits for the judge to finish what it was handed, and returns what it
    /// did (or the error that stopped it).
    pub fn finish(mut self) -> Result<Judged<F>, WriteFailure> {
        self.sender = None;
        let thread = self.thread.take().expect("finish runs once");
        thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

impl<F> Drop for Judge<F> {
    /// Stops the judge and waits for it, so that when a walk is abandoned
    /// its temporary files are gone by the time the caller looks.
    fn drop(&mut self) {
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
