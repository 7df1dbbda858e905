//! Edax's `book.dat` (docs/formats.md, Edax books): read in place
//! ([`read`]), encoded ([`encode`]), rewritten in place ([`patch`]), and
//! positions made by hand in its layout ([`entries`]).

pub mod encode;
pub mod entries;
pub mod patch;
pub mod read;

pub use encode::*;
pub use read::*;
