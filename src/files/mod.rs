//! The files a command reads and writes, apart from what is written in
//! them: [`atomic`] makes an output appear complete or not at all, [`input`]
//! opens the files a user names and tells where a path really lands (so that
//! no output is written over an input), and [`existing`] says what already
//! lies where a command is to write. Every writer (books, kifu files,
//! receipts, journals, the manual pages) goes through them; the printers of
//! [`crate::output`] say what the lines hold.

pub mod atomic;
pub mod existing;
pub mod input;

pub use atomic::{ensure_dir, folder_of, AtomicFile, FinishedFile};
