//! The mismatch rules (docs/modes.md): what each mode looks for at an
//! arrival ([`modes`]), and what a rule found there, as data
//! ([`mismatch`]). Mining (src/mine/) judges every arrival of its walk by
//! them, inspect and the explorer judge one position, and the printers
//! (src/output/) write what they found: a folder of their own that all of
//! these read and that reads none of them.

pub mod mismatch;
pub mod modes;
