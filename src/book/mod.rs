//! Edax books: the file layout, the loaded and indexed book, and the checks
//! `verify` makes.

pub mod format;
pub mod index;
pub mod verify;
pub mod writer;

pub use format::{Header, Link, Record, Score};
pub use index::{Book, BookError};
