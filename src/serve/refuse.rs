//! The 503s, off the accepting loop: one thread answers every connection
//! the loop refuses (too many served, no descriptor, no thread), so the
//! loop never reads or writes a client. The thread answers each at once
//! and then drains them all together, without waiting on any one: a
//! client that sends nothing and never closes holds its place for
//! [`http::DRAIN`]'s time and holds up no other refusal.

use super::http::{self, Reply};
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::{Duration, Instant};

/// The refused connections handed over and not yet answered; beyond, a
/// connection is closed unanswered.
const WAITING: usize = 64;
/// The refused connections drained at once; beyond, one is closed right
/// after its answer.
const DRAINING: usize = 256;
/// How often the drained connections are read while there are some.
const TICK: Duration = Duration::from_millis(10);

/// The loop's end of the refusing thread.
pub struct Refuser {
    sender: SyncSender<(TcpStream, String)>,
}

impl Refuser {
    /// Starts the refusing thread; its answers carry `headers`.
    pub fn start(headers: &'static [(&'static str, &'static str)]) -> io::Result<Refuser> {
        let (sender, receiver) = mpsc::sync_channel(WAITING);
        std::thread::Builder::new().name("refuse".into()).spawn(move || refuse_all(&receiver, headers))?;
        Ok(Refuser { sender })
    }

    /// Hands `stream` over to be answered 503 saying `why`; never waits.
    pub fn refuse(&self, stream: TcpStream, why: String) {
        match self.sender.try_send((stream, why)) {
            Ok(()) => {}
            // More refused at once than the thread keeps up with: waiting for
            // it would stall the loop, and a queue without bound would hold
            // descriptors without bound; the client sees a close, and may
            // try again.
            Err(TrySendError::Full((stream, why))) => {
                tracing::debug!("{WAITING} refusals are waiting: a connection is closed unanswered ({why})");
                drop(stream);
            }
            Err(TrySendError::Disconnected((stream, _))) => {
                tracing::debug!("the refusing thread is gone: a connection is closed unanswered");
                drop(stream);
            }
        }
    }
}

/// The refusing thread: answers what comes, drains what it answered,
/// until the loop ends.
fn refuse_all(receiver: &Receiver<(TcpStream, String)>, headers: &[(&str, &str)]) {
    let mut draining: Vec<Draining> = Vec::new();
    let mut chunk = vec![0u8; 16384];
    loop {
        // Nothing to drain: wait for the next refusal; else look again soon.
        let next = match draining.is_empty() {
            true => receiver.recv().map_err(|_| RecvTimeoutError::Disconnected),
            false => receiver.recv_timeout(TICK),
        };
        match next {
            Ok((stream, why)) => {
                if let Some(answered) = answer(stream, &Reply::error(503, why), headers) {
                    if draining.len() < DRAINING {
                        draining.push(answered);
                    } else {
                        tracing::debug!("{DRAINING} refused connections are drained already: one is closed at once");
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            // The loop ended: so does the process.
            Err(RecvTimeoutError::Disconnected) => return,
        }
        draining.retain_mut(|d| d.goes_on(&mut chunk));
    }
}

/// A refused connection answered, what is read of it, and until when.
struct Draining {
    stream: TcpStream,
    read: usize,
    until: Instant,
}

/// Writes `reply` to `stream` without waiting (a new connection's buffer
/// holds these few hundred bytes) and ends its sending; the connection to
/// drain, or none when the write did not go through.
fn answer(mut stream: TcpStream, reply: &Reply, headers: &[(&str, &str)]) -> Option<Draining> {
    let written = stream.set_nonblocking(true).and_then(|()| stream.write_all(&http::bytes(reply, headers, false)));
    if let Err(e) = written {
        tracing::debug!("a refusal was not delivered: {e}");
        return None;
    }
    let _ = stream.shutdown(Shutdown::Write);
    Some(Draining { stream, read: 0, until: Instant::now() + http::DRAIN.1 })
}

impl Draining {
    /// Reads what the client sent since, without waiting; whether to go on
    /// (it has not closed, nor sent too much, nor run out of time).
    fn goes_on(&mut self, chunk: &mut [u8]) -> bool {
        loop {
            match self.stream.read(chunk) {
                Ok(0) => return false,
                Ok(read) => {
                    self.read += read;
                    if self.read >= http::DRAIN.0 {
                        return false;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Instant::now() < self.until,
                Err(_) => return false,
            }
        }
    }
}
