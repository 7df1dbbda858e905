//! Edax books: the file layout, the loaded and indexed book, and the checks
//! `verify` makes.

pub mod format;
pub mod index;
mod loaded;
pub mod store;
pub mod verify;
pub mod writer;

pub use format::{Header, Link, Record, Score};
pub use loaded::Book;
pub use store::{BookError, Bytes, RecordStore};
