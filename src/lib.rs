//! bookminer: walks an Othello opening book (Edax's `book.dat`, or
//! Egaroucid's `.egbk3`, `.egbk2` or `.egbk`) and writes the kifu of the
//! places where it disagrees with itself (see docs/README.md).
//!
//! Data flows one way: [`book`] (file → index) → [`mod@walk`] → [`rules::modes`] (rules)
//! → [`rules::mismatch`] (records) → [`output`] (printers, files); [`mod@mine`] wires
//! them together for one run.
//!
//! Every `unsafe` call is in [`os`], each with its safety argument; the
//! compiler refuses one anywhere else.
//!
//! A book opened, walked from the initial position, and its positions
//! counted by a [`walk::Visitor`] of one's own (docs/walk.md says what the
//! walk follows):
//!
//! ```
//! use bookminer::book::ReadOptions;
//! use bookminer::walk::{walk, Arrival, Departure, Start, Visitor, Walkable};
//! use bookminer::Book;
//! use std::convert::Infallible;
//! use std::path::Path;
//!
//! /// Counts the positions the walk leaves, each once.
//! struct Positions(u64);
//!
//! impl Visitor for Positions {
//!     type Error = Infallible;
//!     fn arrive(&mut self, _arrival: &Arrival<'_>) -> Result<(), Infallible> {
//!         Ok(())
//!     }
//!     fn leave(&mut self, _departure: &Departure<'_>) -> Result<(), Infallible> {
//!         self.0 += 1;
//!         Ok(())
//!     }
//! }
//!
//! let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/books/edax46-l2-small.dat");
//! let book = Book::open(&path, &ReadOptions::default())?;
//! let walkable = Walkable::new(book, &Start::initial())?;
//! let (stats, counted) = walk(&walkable, Positions(0))?;
//! // Edax wrote this book by play from the initial position, and its header
//! // counts 7,814 records (`bookminer stats` prints the header's count): the
//! // walk stands on every one of them, once.
//! assert_eq!(counted.0, 7814);
//! assert_eq!(stats.positions, 7814);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(unsafe_code)]
#![warn(missing_docs)]
// A module's docs name its private parts, each where its job is said: the
// code is read with `cargo doc --document-private-items` (docs/architecture.md),
// where every such link leads somewhere. CI refuses any other rustdoc warning.
#![allow(rustdoc::private_intra_doc_links)]

pub mod accuracy;
mod bits;
pub mod board;
pub mod book;
pub mod charts;
pub mod check;
pub mod choice;
pub mod convert;
pub mod cut;
pub mod diff;
pub mod engine;
pub mod failure;
pub mod files;
pub mod fix;
pub mod format;
pub mod games;
pub mod growth;
pub mod inspect;
pub mod kifu;
pub mod level;
pub mod merge;
pub mod mine;
pub mod negamax;
#[allow(unsafe_code)]
pub mod os;
pub mod output;
mod parallel;
pub use parallel::set_threads;
pub mod position;
mod record;
pub mod rules;
pub mod run;
mod score;
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
