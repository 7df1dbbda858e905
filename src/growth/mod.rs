//! Growth (docs/extend.md, grow.md, deepen.md, policies.md): the commands
//! that grow or search a book, each a policy ([`policies`], a file each)
//! over one growth session (`session`: OUT begun, the journal, the
//! growing book, the fleet, OUT written) on the growing book ([`growing`]),
//! searched by `crate::engine`. [`run`] runs a policy with its [`Engines`]:
//! the one way in.

mod edax_order;
mod egbook;
mod engines;
pub mod error;
mod graph;
pub mod growing;
mod options;
pub mod paths;
pub mod policies;
mod policy;
pub mod priority;
mod report;
mod rounds;
mod session;

pub use crate::engine::ask::Asked;
pub use crate::engine::journal::{holder_of, starts_as_journal, JournalError, TakenFrom, JOURNAL};
pub use engines::{greet, process_engines};
pub use error::GrowthError;
pub use options::GrowthOptions;
pub use paths::GrowthPaths;
pub use policy::{run, Engines, Policy};
pub use report::{GrowthReport, SearchTally};
