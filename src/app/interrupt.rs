//! Ctrl-C (and SIGTERM, SIGHUP): the run's stop, and grow's wind-down.

use bookminer::run::Cancel;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by Ctrl-C; the walk checks it and stops, leaving no output changed.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The run's stop, [`INTERRUPTED`], as every part of the run looks at it.
pub fn cancel() -> Cancel<'static> {
    Cancel::new(&INTERRUPTED)
}

/// Makes Ctrl-C set [`INTERRUPTED`]. Installed before loading, so that
/// Ctrl-C at any point ends the run the same way (status 130, no output
/// changed); a load is not interrupted but is short next to the walk. The
/// handler runs on a thread of its own, so it can say at once that the
/// signal was seen.
pub fn stop_on_interrupt(what: &'static str) {
    // Said once: a second Ctrl-C, or SIGTERM after SIGINT, stops nothing more.
    let on_interrupt = move || {
        if !INTERRUPTED.swap(true, Ordering::Relaxed) {
            tracing::warn!("interrupted: stopping; {what}");
        }
    };
    if let Err(e) = ctrlc::set_handler(on_interrupt) {
        tracing::warn!("Ctrl-C will not stop cleanly: {e}");
    }
}

/// Makes Ctrl-C set [`WIND_DOWN`] the first time (what is under way is
/// finished, then the book written) and [`INTERRUPTED`] the second.
pub fn wind_down_on_interrupt() {
    let on_interrupt = move || {
        if WIND_DOWN.swap(true, Ordering::Relaxed) {
            INTERRUPTED.store(true, Ordering::Relaxed);
            tracing::warn!("interrupted again: stopping now; the journal is kept, OUT will not be written");
        } else {
            tracing::warn!(
                "interrupted: finishing the searches under way, then writing OUT (Ctrl-C again to stop now)"
            );
        }
    };
    if let Err(e) = ctrlc::set_handler(on_interrupt) {
        tracing::warn!("Ctrl-C will not stop cleanly: {e}");
    }
}

/// Set by the first Ctrl-C of `grow`: dispatch nothing new.
pub static WIND_DOWN: AtomicBool = AtomicBool::new(false);
