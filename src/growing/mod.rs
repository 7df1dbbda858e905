//! The growing book: the book read plus what growth changed ([`store`],
//! seen through [`view`]), its first negamax below the start ([`first`]),
//! the negamax carried up after each change ([`solved`], each position by
//! [`position`] with `crate::negamax`'s rules), the candidates a round
//! expands ([`candidates`]), what a position's leaf becomes ([`leaf_plan`]),
//! and the book grown written into OUT ([`write`]).
//!
//! The growth commands (`crate::extend`: extend, grow, deepen, add, new)
//! drive it; it knows nothing of how they choose what to grow.

pub(crate) mod candidates;
pub(crate) mod first;
pub mod leaf_plan;
pub(crate) mod position;
pub(crate) mod solved;
pub(crate) mod store;
pub(crate) mod view;
pub(crate) mod write;

#[cfg(test)]
mod tests;
