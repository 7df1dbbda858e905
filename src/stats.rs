//! `stats`: what a book holds, counted from its records.

use crate::board::Move;
use crate::book::{Book, Header, Record};
use crate::level::Level;
use crate::wording::count;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// Counts over every record of a book.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BookStats {
    /// Records.
    pub positions: u64,
    /// Links, over every record.
    pub links: u64,
    /// Records with a leaf.
    pub leaves: u64,
    /// Links that are passes.
    pub pass_links: u64,
    /// Leaves that are passes.
    pub pass_leaves: u64,
    /// Positions with no link and no leaf.
    pub bare: u64,
    /// Positions by number of empty squares (index 0..=60).
    pub by_empties: Vec<u64>,
    /// Positions by value, by level, and by number of links.
    pub by_value: BTreeMap<i32, u64>,
    /// Positions by level.
    pub by_level: BTreeMap<i32, u64>,
    /// Positions by number of links.
    pub by_links: BTreeMap<usize, u64>,
    /// Positions with a leaf and at least one link, by the leaf's score
    /// minus the best link's: what mode 1 compares (docs/modes.md, F − L).
    pub by_leaf_gap: BTreeMap<i32, u64>,
}

impl BookStats {
    /// Positions whose leaf scores above their best link: where mode 1
    /// with `min_gap` 1 writes a line.
    pub fn leaves_above_links(&self) -> u64 {
        self.by_leaf_gap.range(1..).map(|(_, n)| n).sum()
    }
}

/// The counts as `--summary json` writes them: fields in this order, each
/// distribution a list of [value, positions] pairs for the values held.
#[derive(serde::Serialize)]
pub struct StatsJson {
    /// [`BookStats::positions`].
    pub positions: u64,
    /// [`BookStats::links`].
    pub links: u64,
    /// [`BookStats::pass_links`].
    pub pass_links: u64,
    /// [`BookStats::leaves`].
    pub leaves: u64,
    /// [`BookStats::pass_leaves`].
    pub pass_leaves: u64,
    /// [`BookStats::bare`]: positions with no link and no leaf.
    pub no_moves: u64,
    /// [`BookStats::leaves_above_links`].
    pub leaves_above_links: u64,
    /// [`BookStats::by_empties`], the empties held.
    pub by_empties: Vec<(i32, u64)>,
    /// [`BookStats::by_value`].
    pub by_value: Vec<(i32, u64)>,
    /// [`BookStats::by_level`].
    pub by_level: Vec<(i32, u64)>,
    /// [`BookStats::by_links`].
    pub by_links: Vec<(i32, u64)>,
    /// [`BookStats::by_leaf_gap`].
    pub by_leaf_gap: Vec<(i32, u64)>,
}

impl BookStats {
    /// The counts as `--summary json` writes them.
    pub fn to_json(&self) -> StatsJson {
        let pairs = |map: &BTreeMap<i32, u64>| map.iter().map(|(&k, &n)| (k, n)).collect();
        StatsJson {
            positions: self.positions,
            links: self.links,
            pass_links: self.pass_links,
            leaves: self.leaves,
            pass_leaves: self.pass_leaves,
            no_moves: self.bare,
            leaves_above_links: self.leaves_above_links(),
            by_empties: (0..).zip(self.by_empties.iter().copied()).filter(|&(_, n)| n > 0).collect(),
            by_value: pairs(&self.by_value),
            by_level: pairs(&self.by_level),
            by_links: self.by_links.iter().map(|(&k, &n)| (k as i32, n)).collect(),
            by_leaf_gap: pairs(&self.by_leaf_gap),
        }
    }
}

/// The leaf's score minus the best link's, for a record with both.
pub fn leaf_gap(record: &Record) -> Option<i32> {
    let best_link = record.links().map(|l| l.score.0).max()?;
    Some(record.leaf()?.score.0 - best_link)
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
        *stats.by_value.entry(record.value().0).or_default() += 1;
        *stats.by_level.entry(record.level).or_default() += 1;
        *stats.by_links.entry(record.n_links()).or_default() += 1;
        if let Some(gap) = leaf_gap(&record) {
            *stats.by_leaf_gap.entry(gap).or_default() += 1;
        }
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
        table(f, "value", self.by_value.iter().rev())?;
        table(f, "level", self.by_level.iter().rev())?;
        table(f, "links", self.by_links.iter())?;
        let with_both: u64 = self.by_leaf_gap.values().sum();
        writeln!(
            f,
            "leaf minus best link, {with_both} positions with both: {} above (mode 1's), {} level, {} below",
            self.leaves_above_links(),
            self.by_leaf_gap.get(&0).unwrap_or(&0),
            self.by_leaf_gap.range(..0).map(|(_, n)| n).sum::<u64>()
        )?;
        table(f, "   gap", self.by_leaf_gap.iter().rev())
    }
}

/// A distribution: a heading, then one line per value held.
fn table<'a, K: fmt::Display + 'a>(
    f: &mut fmt::Formatter<'_>,
    heading: &str,
    rows: impl Iterator<Item = (&'a K, &'a u64)>,
) -> fmt::Result {
    writeln!(f, "{heading:>7}  positions")?;
    for (key, n) in rows {
        writeln!(f, "{key:>7}  {n}")?;
    }
    Ok(())
}

/// The lines of `stats` before the counts: the file, and what its header
/// and record counts say (no line end after the last).
pub struct Heading<'a> {
    /// The book's file, as named.
    pub path: &'a Path,
    /// The book read.
    pub book: &'a Book,
    /// The level an `.egbk` book was read with (it stores none).
    pub egbk_level: Level,
}

impl fmt::Display for Heading<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.path.display())?;
        let counts = self.book.counts();
        let merged = || {
            let records = counts.records + counts.merged;
            format!("records {records} ({} merged into an earlier record of the same position)", counts.merged)
        };
        match self.book.header() {
            Header::Edax(h) => {
                let (y, mo, d, hh, mi, s) = h.date;
                let (version, release) = (h.version, h.release);
                writeln!(
                    f,
                    "Edax book, version {version}.{release}, written {y:04}-{mo:02}-{d:02} {hh:02}:{mi:02}:{s:02}"
                )?;
                let errors = format!("midgame error {}, endcut error {}", h.midgame_error, h.endcut_error);
                writeln!(f, "level {}, n_empties {}, {errors}", h.level, h.n_empties)?;
                write!(f, "header count {}", h.n_nodes)
            }
            Header::Egbk3(h) => {
                writeln!(f, "Egaroucid book (.egbk3), version {}", h.version)?;
                writeln!(f, "header count {}", h.n_boards)?;
                let out_of_book = counts.records - counts.positions;
                write!(f, "records {} ({out_of_book} without a value, not part of the book)", counts.records)
            }
            Header::Egbk2(h) => {
                writeln!(f, "Egaroucid book (.egbk2, up to Egaroucid 6.5), version {}", h.version)?;
                writeln!(f, "header count {}", h.n_boards)?;
                f.write_str(&merged())
            }
            Header::Egbk(h) => {
                writeln!(f, "Egaroucid book (.egbk, up to Egaroucid 6.2), every record at level {}", self.egbk_level)?;
                writeln!(f, "header count {}", h.n_boards)?;
                f.write_str(&merged())
            }
        }
    }
}
