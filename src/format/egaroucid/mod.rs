//! Egaroucid's books (docs/formats.md, Egaroucid books): the `.egbk3`
//! read in place ([`read`]) and encoded ([`encode`]), and the older
//! `.egbk2` and `.egbk` ([`older`]), checked and translated into the
//! `.egbk3` layout as they are read.

pub mod encode;
pub mod older;
pub mod read;
#[cfg(test)]
mod tests;

pub use encode::*;
pub use read::*;
