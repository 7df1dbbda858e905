//! The committed sample book is what `bookminer synth` writes with the options
//! the README and config.toml name, it is a valid book, it has what the
//! sample is for (passes and mismatches of every mode), and it gives the
//! counts the README quotes.

use bookminer::book::verify::verify;
use bookminer::book::Book;
use bookminer::mine::judging::Collected;
use bookminer::mine::{mine, mine_into, MineOptions, MineReport};
use bookminer::output::{LineStyle, RecordFormats};
use bookminer::rules::modes::{Mode, Rules};
use bookminer::run::{Cancel, Control};
use bookminer::stats::book_stats;
use bookminer::synth::{synthesize, SynthOptions};
use bookminer::walk::Start;
use std::path::Path;
use std::sync::atomic::AtomicBool;

const SAMPLE: &[u8] = include_bytes!("../../books/sample.dat");
const README: &str = include_str!("../../README.md");

/// The options books/sample.dat was written with.
fn sample_options() -> SynthOptions {
    SynthOptions { positions: 3000, seed: 1, perturb: 0.03 }
}

#[test]
fn synth_reproduces_the_sample_byte_for_byte() {
    let mut written = Vec::new();
    synthesize(&sample_options(), &mut written).unwrap();
    assert_eq!(written.len(), SAMPLE.len());
    assert!(
        written == SAMPLE,
        "books/sample.dat differs from `bookminer synth --positions 3000 --seed 1 --perturb 0.03`"
    );
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

/// Mines the sample with every mode into `out`, as `--mode all` does.
fn mine_sample(out: &Path) -> MineReport {
    let book = Book::from_bytes("sample.dat", SAMPLE.to_vec()).unwrap();
    let options = MineOptions {
        modes: Mode::ALL.to_vec(),
        rules: Rules::default(),
        style: LineStyle::default(),
        formats: RecordFormats::KIFU,
        bom: true,
        unique_lines: true,
        out_dir: out.to_path_buf(),
        output: None,
        window: bookminer::window::Window::NONE,
    };
    let cancel = AtomicBool::new(false);
    mine(
        book,
        &Start::initial(),
        &options,
        Control { cancel: Cancel::new(&cancel), phase: &mut |_| {}, progress: &mut |_| {} },
    )
    .unwrap()
}

#[test]
fn every_mode_finds_mismatches_in_the_sample() {
    let out = tempfile::tempdir().unwrap();
    let report = mine_sample(out.path());
    for m in &report.modes {
        assert!(m.lines_written > 0, "{} wrote nothing", m.mode);
        if m.mode != Mode::LeafVsLinks {
            assert!(m.above > 0 && m.below > 0, "{}: {} above, {} below", m.mode, m.above, m.below);
        }
    }
}

/// The number (digits and thousands commas) that follows `before` in the README.
fn readme_number(before: &str) -> u64 {
    let at = README.find(before).unwrap_or_else(|| panic!("the README no longer says {before:?}")) + before.len();
    let digits: String =
        README[at..].chars().take_while(|c| c.is_ascii_digit() || *c == ',').filter(|c| *c != ',').collect();
    digits.parse().unwrap_or_else(|_| panic!("no number after {before:?} in the README"))
}

#[test]
fn the_sample_gives_the_counts_the_readme_quotes() {
    let out = tempfile::tempdir().unwrap();
    let report = mine_sample(out.path());
    assert_eq!(report.positions_loaded, readme_number("On the sample book ("));
    assert_eq!(report.walk.edges, readme_number(" positions, "));
    assert_eq!(report.modes.len(), 4);
    for m in &report.modes {
        let n = m.mode.number();
        let quoted = readme_number(&format!("**Mode {n}** writes "));
        assert_eq!(m.lines_written, quoted, "mode {n}: the README says {quoted} lines");
        let file = std::fs::read(out.path().join(format!("mode{n}.txt"))).unwrap();
        let lines = file.iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(lines, quoted, "mode{n}.txt holds {lines} lines, the README says {quoted}");
    }
}

/// Mining into memory finds what mining into files writes: the records of
/// each mode, in the same order, and the same counts. Each record kept in
/// memory, rendered as a kifu line, is the file's line.
#[test]
fn mining_into_memory_finds_what_the_files_hold() {
    let out = tempfile::tempdir().unwrap();
    let options = MineOptions {
        modes: Mode::ALL.to_vec(),
        rules: Rules::default(),
        style: LineStyle::default(),
        formats: RecordFormats::KIFU,
        bom: false,
        unique_lines: false,
        out_dir: out.path().to_path_buf(),
        output: None,
        window: bookminer::window::Window::NONE,
    };
    let cancel = AtomicBool::new(false);
    let book = || Book::from_bytes("sample.dat", SAMPLE.to_vec()).unwrap();
    let control = Control { cancel: Cancel::new(&cancel), phase: &mut |_| {}, progress: &mut |_| {} };
    let report = mine(book(), &Start::initial(), &options, control).unwrap();
    let control = Control { cancel: Cancel::new(&cancel), phase: &mut |_| {}, progress: &mut |_| {} };
    let mined = mine_into(book(), &Start::initial(), options.sought(), Collected::default(), control).unwrap();
    assert_eq!(mined.walk, report.walk);
    assert_eq!(mined.findings.per_mode.len(), 4);
    for ((m, found), &(above, below)) in report.modes.iter().zip(&mined.findings.per_mode).zip(&mined.fired) {
        assert_eq!((m.above, m.below), (above, below), "{}", m.mode);
        assert!(!found.is_empty(), "{}: nothing found", m.mode);
        let file = std::fs::read_to_string(out.path().join(format!("mode{}.txt", m.mode.number()))).unwrap();
        let mut rendered = String::new();
        for finding in found {
            let record = finding.record();
            assert_eq!(record.mode, m.mode);
            options.style.render(record.line, &mut rendered);
            rendered.push('\n');
        }
        assert_eq!(rendered, file, "{}: the records kept in memory are not the file's lines", m.mode);
    }
}
