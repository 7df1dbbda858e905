//! The growing book: the book read plus what growth changed ([`store`],
//! seen through [`view`]), its first negamax below the start ([`first`]),
//! the negamax carried up after each change ([`solved`], each position by
//! [`position`] with `crate::negamax`'s rules), the candidates a round
//! expands ([`candidates`]), what a position's leaf becomes ([`leaf_plan`]),
//! and the book grown written into OUT ([`mod@write`]). Beside it, where a
//! growing book's error ([`error`]), and a
//! batch of leaf searches answered outside a growth session ([`leaves`],
//! `merge`'s).
//!
//! The growth commands (`crate::growth`: extend, grow, deepen, add, new)
//! drive it; it knows nothing of how they choose what to grow.

pub(crate) mod candidates;
pub mod error;
pub(crate) mod first;
mod first_walk;
pub mod leaf_plan;
pub mod leaves;
pub(crate) mod marks;
pub(crate) mod position;
pub(crate) mod solved;
pub(crate) mod store;
pub(crate) mod view;
pub(crate) mod write;

#[cfg(test)]
mod tests;
