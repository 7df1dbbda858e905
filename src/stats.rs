//! `stats`: what a book holds, counted from its records.

use crate::board::Move;
use crate::book::Book;
use crate::wording::count;
use std::fmt;

/// Counts over every record of a book.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BookStats {
    pub positions: u64,
    pub links: u64,
    pub leaves: u64,
    pub pass_links: u64,
    pub pass_leaves: u64,
    /// Positions with no link and no leaf.
    pub bare: u64,
    /// Positions by number of empty squares (index 0..=60).
    pub by_empties: Vec<u64>,
}

/// Counts the records of a loaded book.
pub fn book_stats(book: &Book) -> BookStats {
    let mut stats = BookStats { by_empties: vec![0; 61], ..BookStats::default() };
    for record in book.records() {
        stats.positions += 1;
        stats.links += record.n_links() as u64;
        stats.pass_links += record.links().filter(|l| l.mv == Move::Pass).count() as u64;
        let leaf = record.leaf();
        stats.leaves += u64::from(leaf.is_some());
        stats.pass_leaves += u64::from(leaf.is_some_and(|l| l.mv == Move::Pass));
        stats.bare += u64::from(record.n_links() == 0 && leaf.is_none());
        let empties = (record.board().empties() as usize).min(60);
        stats.by_empties[empties] += 1;
    }
    stats
}

impl fmt::Display for BookStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions  {}", self.positions)?;
        writeln!(f, "links      {} ({})", self.links, count(self.pass_links, "pass", "passes"))?;
        writeln!(f, "leaves     {} ({})", self.leaves, count(self.pass_leaves, "pass", "passes"))?;
        writeln!(f, "no moves   {}", self.bare)?;
        writeln!(f, "empties  positions")?;
        for (empties, &n) in self.by_empties.iter().enumerate().rev().filter(|(_, &n)| n > 0) {
            writeln!(f, "{empties:>7}  {n}")?;
        }
        Ok(())
    }
}
