//! The walk on several threads (docs/walk.md, threads) against the walk on
//! one: every arrival and every departure the same, in the same order, on
//! generated books of both formats; and every file mining, `fix` and
//! `convert` write the same bytes at `--threads 1, 2, 3 and 8` on every
//! book of the repository.

use bookminer::board::Move;
use bookminer::book::{Book, RecordId, Score};
use bookminer::format::Format;
use bookminer::symmetry::Symmetry;
use bookminer::synth::{synthesize_as, SynthOptions};
use bookminer::walk::{walk, Arrival, Departure, Start, Visitor, WalkStats, Walkable};
use proptest::prelude::*;
use std::convert::Infallible;
use std::path::{Path, PathBuf};

use crate::common::{bin, repo, run_in};

/// One thing the walk said, as data.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    Arrive {
        line: Vec<Move>,
        parent: RecordId,
        by_leaf: bool,
        first_time: bool,
        parent_score: Score,
        via_pass: bool,
        child: RecordId,
        symmetry: Symmetry,
    },
    Leave(RecordId, usize),
}

/// Everything a walk says, in order.
#[derive(Default)]
struct Said(Vec<Event>);

impl Visitor for Said {
    type Error = Infallible;

    fn arrive(&mut self, a: &Arrival<'_>) -> Result<(), Infallible> {
        self.0.push(Event::Arrive {
            line: a.line.to_vec(),
            parent: a.parent,
            by_leaf: a.by_leaf,
            first_time: a.first_time,
            parent_score: a.parent_score,
            via_pass: a.via_pass,
            child: a.child.id,
            symmetry: a.child_symmetry,
        });
        Ok(())
    }

    fn leave(&mut self, d: &Departure<'_>) -> Result<(), Infallible> {
        self.0.push(Event::Leave(d.record, d.links.len()));
        Ok(())
    }
}

fn walked(walkable: Walkable) -> (WalkStats, Vec<Event>) {
    let (stats, Said(events)) = walk(&walkable, Said::default()).unwrap();
    (stats, events)
}

/// The walks of `bytes` from `start`, over links and leaves and over links
/// only, on `threads` threads against one.
fn same_on_threads(bytes: &[u8], start: &Start, threads: usize) {
    let walkable = |n| Walkable::new(Book::from_bytes("book", bytes.to_vec()).unwrap(), start).unwrap().on_threads(n);
    let (one, many) = (walked(walkable(1)), walked(walkable(threads)));
    assert!(one.0.arrivals > 0);
    assert_eq!(one.0, many.0, "{threads} threads: the counts");
    assert!(one.1 == many.1, "{threads} threads: the arrivals and departures differ");
    let (one, many) = (walked(walkable(1).links_only()), walked(walkable(threads).links_only()));
    assert!(one == many, "{threads} threads, links only: the walks differ");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Synthetic books of either format, from the initial position or below
    /// a start line: the walk on 2, 3 and 8 threads says what it says on one.
    #[test]
    fn the_walk_on_many_threads_is_the_walk_on_one(
        positions in 50usize..4000,
        seed in any::<u64>(),
        perturb in 0.0f64..0.2,
        egbk3 in any::<bool>(),
        below_f5d6 in any::<bool>(),
    ) {
        let format = if egbk3 { Format::Egbk3 } else { Format::Edax };
        let mut bytes = Vec::new();
        synthesize_as(format, &SynthOptions { positions, seed, perturb }, &mut bytes).unwrap();
        let start = match below_f5d6 {
            true => {
                let (board, line) = bookminer::kifu::parse_and_play("f5d6").unwrap();
                Start { board, line }
            }
            false => Start::initial(),
        };
        // A small book may not hold the start line: nothing to walk.
        if Walkable::new(Book::from_bytes("book", bytes.clone()).unwrap(), &start).is_ok() {
            for threads in [2, 3, 8] {
                same_on_threads(&bytes, &start, threads);
            }
        }
    }
}

/// Every book of the repository the walk reads whole (the damaged ones
/// aside), and a synthetic book of each format the binary writes.
fn books(dir: &Path) -> Vec<PathBuf> {
    let mut books = Vec::new();
    for folder in ["books", "tests/data/books", "tests/data/books/egbk3"] {
        for entry in std::fs::read_dir(repo().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                books.push(path);
            }
        }
    }
    books.sort();
    for (name, format) in [("synth.dat", "edax"), ("synth.egbk3", "egbk3")] {
        let out = run_in(dir, &["-q", "synth", "--positions", "30000", "--seed", "3", "--book-format", format, name]);
        assert!(out.status.success(), "synth {name}");
        books.push(dir.join(name));
    }
    books
}

/// Every file under `dir`, with its bytes, the manifest's times aside.
fn files_in(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            match path.is_dir() {
                true => folders.push(path),
                false => files.push(path),
            }
        }
    }
    let mut files: Vec<(PathBuf, Vec<u8>)> = files.into_iter().map(|path| read_untimed(dir, path)).collect();
    files.sort();
    files
}

/// A file's path under `dir` and its bytes, the manifest's times aside.
fn read_untimed(dir: &Path, path: PathBuf) -> (PathBuf, Vec<u8>) {
    {
        let bytes = std::fs::read(&path).unwrap();
        let bytes = match path.ends_with("manifest.json") {
            // The manifest notes each file's time of writing.
            true => String::from_utf8(bytes)
                .unwrap()
                .lines()
                .filter(|l| !l.contains("modified_ns"))
                .collect::<String>()
                .into(),
            false => bytes,
        };
        (path.strip_prefix(dir).unwrap().to_path_buf(), bytes)
    }
}

/// What one run wrote (each file and its bytes), the counts its summary
/// gave, and its exit status.
type Outcome = (Vec<(PathBuf, Vec<u8>)>, Vec<u8>, Option<i32>);

/// What one run of the binary wrote and said, at `threads` threads.
fn run_at(dir: &Path, threads: usize, args: &[&str]) -> Outcome {
    let at = dir.join(format!("threads-{threads}"));
    let _ = std::fs::remove_dir_all(&at);
    std::fs::create_dir_all(&at).unwrap();
    let threads = threads.to_string();
    let mut full = vec!["--threads", &threads, "--summary", "json"];
    full.extend_from_slice(args);
    // A book's header notes when it was written, unless told the time.
    let out = bin().current_dir(&at).env("SOURCE_DATE_EPOCH", "0").args(["--config", "/dev/null"]).args(&full).output();
    let out = out.expect("the binary runs");
    // The summary's times and rates differ from run to run; its counts may not.
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let counts =
        ["positions_walked", "edges", "arrivals", "modes", "positions_negamaxed", "records_changed", "links_reordered"]
            .iter()
            .map(|key| summary.get(*key).map(|v| v.to_string()).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(" ");
    (files_in(&at), counts.into_bytes(), out.status.code())
}

#[test]
fn every_file_mining_fix_and_convert_write_is_the_same_on_1_2_3_and_8_threads() {
    let dir = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for book in books(dir.path()) {
        let b = book.to_str().unwrap();
        let egbk3 = !b.ends_with(".dat");
        let out = if egbk3 { "out.egbk3" } else { "out.dat" };
        let runs: [&[&str]; 5] = [
            &["mine", b, "--mode", "all", "--format", "kifu,jsonl,obf", "--out-dir", "o"],
            &[
                "mine",
                b,
                "--mode",
                "all",
                "--format",
                "kifu,jsonl,obf",
                "--out-dir",
                "o",
                "--orientation",
                "as-walked",
                "--pass-token",
                "PS",
                "--unique-lines",
                "false",
                "--mode1-linkless",
                "report",
            ],
            &["mine", b, "--mode", "all", "--format", "jsonl", "--out-dir", "o", "--start", "f5d6"],
            &["fix", b, out, "--out-dir", "o"],
            &["convert", b, if egbk3 { "c.dat" } else { "c.egbk3" }],
        ];
        for args in runs {
            let one = run_at(dir.path(), 1, args);
            for threads in [2, 3, 8] {
                let many = run_at(dir.path(), threads, args);
                assert_eq!(one.2, many.2, "{args:?}: the exit status at {threads} threads");
                assert!(one.1 == many.1, "{args:?}: the summary's counts at {threads} threads");
                assert_eq!(
                    one.0.iter().map(|f| &f.0).collect::<Vec<_>>(),
                    many.0.iter().map(|f| &f.0).collect::<Vec<_>>(),
                    "{args:?}: the files at {threads} threads"
                );
                for ((name, bytes), (_, other)) in one.0.iter().zip(&many.0) {
                    assert!(bytes == other, "{args:?}: {} differs at {threads} threads", name.display());
                    compared += 1;
                }
            }
        }
    }
    // Enough files that the comparison says something: mining writes a
    // dozen per book.
    assert!(compared > 300, "{compared} files compared");
}
