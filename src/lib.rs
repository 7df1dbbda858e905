//! bookminer: walks an Othello opening book (Edax's `book.dat`, or
//! Egaroucid's `.egbk3`, `.egbk2` or `.egbk`) and writes the kifu of the
//! places where it disagrees with itself (see docs/README.md).
//!
//! Data flows one way: [`book`] (file → index) → [`walk`] → [`modes`] (rules)
//! → [`mismatch`] (records) → [`output`] (printers, files); [`mine`] wires
//! them together for one run.
//!
//! Every `unsafe` call is in [`os`], each with its safety argument; the
//! compiler refuses one anywhere else.
#![deny(unsafe_code)]

mod arrivals;
mod bits;
pub mod board;
pub mod book;
pub mod check;
pub mod choice;
pub mod convert;
pub mod cut;
pub mod diff;
pub mod engine;
pub mod existing;
pub mod extend;
pub mod failure;
mod first_arrivals;
pub mod fix;
pub mod format;
pub mod games;
pub mod input;
pub mod inspect;
pub mod judging;
pub mod kifu;
pub mod merge;
pub mod mine;
pub mod mismatch;
pub mod modes;
pub mod negamax;
mod order;
#[allow(unsafe_code)]
pub mod os;
pub mod output;
mod parallel;
pub mod position;
mod record;
pub mod run;
pub mod stats;
pub mod symmetry;
pub mod synth;
pub mod walk;
pub mod window;
pub mod wording;
mod write;

pub use board::{Board, Move, Square};
pub use book::{Book, BookError};
pub use mine::{mine, MineOptions, MineReport};
pub use walk::{walk, Start, Walkable};
