//! Opening books: one format-neutral view of a book (records numbered
//! densely, each read as a [`Record`]), filled by the readers of
//! [`crate::format`] (Edax's; Egaroucid's `.egbk3`, and its older `.egbk2`
//! and `.egbk`, which are translated into the `.egbk3` layout as they are read), with
//! the index the walk looks positions up in and the checks `verify` makes.

mod access_order;
pub mod file;
mod filter;
pub mod index;
mod loaded;
mod parents;
pub mod problem;
mod resolve;
mod resolved;
pub mod verify;

pub use crate::format::Format;
pub use crate::format::Header;
pub use crate::os::Bytes;
pub use crate::record::problem::{FormatError, MoveSlot, Problem};
pub use crate::record::{Details, FilePlace, Leaf, Link, Record, RecordId, Score};
pub use file::{BookCounts, BookFile, IndexLookup, ReadOptions, CHUNK_RECORDS};
pub use filter::ImageFilter;
pub use loaded::Book;
pub use parents::Parents;
pub use problem::BookError;
pub use resolve::Locator;
pub use resolved::{Destination, LinkTargets, MovesFound, ResolvedBook};
