//! What a growth session is asked to do, for every growth command that
//! drives one (extend, grow, deepen, add, new...).

use crate::engine::EngineCommand;
use crate::walk::Start;
use crate::window::Window;
use std::time::Duration;

/// What a growth session is asked to do.
#[derive(Clone, Debug)]
pub struct GrowthOptions {
    /// The fleet: one engine or more, each with its workers.
    pub engines: Vec<EngineCommand>,
    /// The longest wait for one answer.
    pub engine_timeout: Duration,
    /// Candidates have at least this many empty squares; `None`: an Edax
    /// book's header n_empties, 0 for an Egaroucid book.
    pub min_empties: Option<u32>,
    /// Stop once this many positions have been added.
    pub max_positions: Option<u64>,
    /// Where the candidate walk starts (the initial position by default).
    pub start: Start,
    /// The window the candidate walk's links pass (none: every link).
    pub window: Window,
}

impl GrowthOptions {
    /// A session of `engines` over the whole book, as `add` and `new` run
    /// one: from the initial position, no window, no gate, no budget.
    pub fn whole_book(engines: &[EngineCommand], engine_timeout: Duration) -> GrowthOptions {
        GrowthOptions {
            engines: engines.to_vec(),
            engine_timeout,
            min_empties: None,
            max_positions: None,
            start: Start::initial(),
            window: Window::NONE,
        }
    }
}
