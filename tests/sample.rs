//! The committed sample book is what `bookminer synth` writes with the options
//! the README and config.toml name, it is a valid book, and it has what the
//! sample is for: passes and mismatches of every mode.

use bookminer::book::verify::verify;
use bookminer::book::Book;
use bookminer::mine::{mine, Control, MineOptions};
use bookminer::modes::{Mode, Rules};
use bookminer::output::{Formats, KifuFormat};
use bookminer::stats::book_stats;
use bookminer::synth::{synthesize, SynthOptions};
use bookminer::walk::Start;
use std::sync::atomic::AtomicBool;

const SAMPLE: &[u8] = include_bytes!("../books/sample.dat");

/// The options books/sample.dat was written with.
fn sample_options() -> SynthOptions {
    SynthOptions { positions: 3000, seed: 1, perturb: 0.03 }
}

#[test]
fn synth_reproduces_the_sample_byte_for_byte() {
    let mut written = Vec::new();
    synthesize(&sample_options(), &mut written).unwrap();
    assert_eq!(written.len(), SAMPLE.len());
    assert!(written == SAMPLE, "books/sample.dat differs from `bookminer synth --positions 3000 --seed 1 --perturb 0.03`");
}

#[test]
fn the_sample_verifies_and_has_passes() {
    let report = verify(SAMPLE);
    assert!(report.is_clean(), "{:?}", report.problems);
    assert_eq!(report.records, 3000);
    let book = Book::from_bytes("sample.dat", SAMPLE.to_vec()).unwrap();
    let stats = book_stats(&book);
    assert!(stats.pass_links > 0 && stats.pass_leaves > 0, "{stats}");
    assert!(stats.by_empties[0] > 0, "no line played to the end of the game: {stats}");
}

#[test]
fn every_mode_finds_mismatches_in_the_sample() {
    let mut book = Book::from_bytes("sample.dat", SAMPLE.to_vec()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let options = MineOptions {
        modes: Mode::ALL.to_vec(),
        rules: Rules::default(),
        format: KifuFormat::default(),
        formats: Formats::KIFU,
        bom: true,
        unique_lines: true,
        out_dir: out.path().to_path_buf(),
    };
    let cancel = AtomicBool::new(false);
    let report = mine(&mut book, &Start::initial(), &options, Control { cancel: &cancel, progress: &mut |_| {} }).unwrap();
    for m in &report.modes {
        assert!(m.lines_written > 0, "{} wrote nothing", m.mode);
        if m.mode != Mode::LeafVsLinks {
            assert!(m.above > 0 && m.below > 0, "{}: {} above, {} below", m.mode, m.above, m.below);
        }
    }
}
