//! One reader per book format: each checks its layout, reads its records in
//! place, and hands the format-neutral book what it needs ([`crate::book`]).

pub mod edax;
pub mod egaroucid;
pub mod older_egaroucid;
