//! A book rewritten by another program while it is mined (Edax saves its
//! book in place): the run must end with "the book changed", leave every
//! previous output as it was and no temporary file, and never die of a
//! signal. The file is changed from inside the walk's progress callback, so
//! the change lands mid-walk at the same edge on every run.

use bookminer::book::{Book, BookError};
use bookminer::mine::{mine, MineError, MineOptions};
use bookminer::output::{LineStyle, RecordFormats};
use bookminer::rules::modes::{Mode, Rules};
use bookminer::run::{Cancel, Control, RunError};
use bookminer::synth::{synthesize, SynthOptions};
use bookminer::walk::{Start, PROGRESS_INTERVAL};
use std::fs::{self, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

const PREVIOUS: &[u8] = b"\xEF\xBB\xBFF5D6\n";

/// A synthetic book big enough for several progress calls, written to `dir`
/// (synthesized once for every test and run).
fn book_file(dir: &Path) -> PathBuf {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    let bytes = BYTES.get_or_init(|| {
        let mut bytes = Vec::new();
        synthesize(&SynthOptions { positions: 100_000, seed: 5, perturb: 0.02 }, &mut bytes).unwrap();
        bytes
    });
    let path = dir.join("book.dat");
    fs::write(&path, bytes).unwrap();
    path
}

fn options(out_dir: &Path) -> MineOptions {
    MineOptions {
        modes: Mode::ALL.to_vec(),
        rules: Rules::default(),
        style: LineStyle::default(),
        unique_lines: true,
        formats: RecordFormats::KIFU,
        bom: true,
        out_dir: out_dir.to_path_buf(),
        output: None,
        window: bookminer::window::Window::NONE,
    }
}

/// Mines `book` into a folder holding previous outputs, calling `change`
/// at the walk's first progress report; returns the outcome and the folder.
fn mine_while(book: &Path, change: impl Fn(&Path)) -> (Result<String, MineError>, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let options = options(out.path());
    for mode in Mode::ALL {
        fs::write(options.output_path(mode), PREVIOUS).unwrap();
    }
    let opened = Book::open(book, &Default::default()).unwrap();
    assert!(opened.counts().links + opened.counts().leaves > 2 * PROGRESS_INTERVAL, "the walk reports progress");
    let cancel = AtomicBool::new(false);
    let mut changed = false;
    let mut progress = |_: bookminer::run::Progress<'_>| {
        if !changed {
            change(book);
            changed = true;
        }
    };
    let result = mine(
        opened,
        &Start::initial(),
        &options,
        Control { cancel: Cancel::new(&cancel), phase: &mut |_| {}, progress: &mut progress },
    );
    (result.map(|report| report.to_string()), out)
}

/// Every previous output is as it was, and nothing else is in the folder.
fn assert_untouched(out: &Path) {
    let mut names: Vec<String> =
        fs::read_dir(out).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["mode1.txt", "mode2.txt", "mode3.txt", "mode4.txt"], "no temporary file is left");
    for name in names {
        assert_eq!(fs::read(out.join(&name)).unwrap(), PREVIOUS, "{name} is as it was");
    }
}

#[test]
fn a_book_truncated_mid_walk_ends_the_run_with_its_name_and_no_output_changed() {
    let dir = tempfile::tempdir().unwrap();
    let book = book_file(dir.path());
    let (result, out) = mine_while(&book, |path| {
        OpenOptions::new().write(true).open(path).unwrap().set_len(4096).unwrap();
    });
    match result {
        Err(e @ MineError::Run(RunError::BookChanged { .. })) => {
            let message = e.to_string();
            assert!(
                message.contains(&book.display().to_string()) && message.contains("changed while it was being read"),
                "{message}"
            );
        }
        other => panic!("expected the book to be found changed, got {other:?}"),
    }
    assert_untouched(out.path());
}

#[test]
fn a_book_rewritten_in_place_mid_walk_is_found_before_any_output_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let book = book_file(dir.path());
    // Same size, other bytes: nothing faults, but size and time are checked
    // before the outputs are renamed into place.
    let (result, out) = mine_while(&book, |path| {
        let mut file = OpenOptions::new().write(true).open(path).unwrap();
        file.seek(SeekFrom::Start(1000)).unwrap();
        file.write_all(&[0x55; 64]).unwrap();
        file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5)).unwrap();
    });
    assert!(matches!(result, Err(MineError::Run(RunError::BookChanged { .. }))), "{result:?}");
    assert_untouched(out.path());
}

#[test]
fn a_book_that_is_left_alone_is_mined_as_usual() {
    let dir = tempfile::tempdir().unwrap();
    let book = book_file(dir.path());
    let (result, out) = mine_while(&book, |_| {});
    assert!(result.is_ok(), "{result:?}");
    assert_ne!(fs::read(out.path().join("mode1.txt")).unwrap(), PREVIOUS);
}

#[test]
fn a_book_that_shrank_before_loading_is_refused_as_truncated_not_as_changed() {
    let dir = tempfile::tempdir().unwrap();
    let book = book_file(dir.path());
    OpenOptions::new().write(true).open(&book).unwrap().set_len(5000).unwrap();
    match Book::open(&book, &Default::default()) {
        Err(BookError::Format { error, .. }) => assert!(error.to_string().contains("truncated record"), "{error}"),
        other => panic!("expected a truncated record, got {:?}", other.err()),
    }
}

/// `cut` of a book rewritten in place between its walk and its writing
/// (the records it reached now read otherwise): "the book changed", no
/// panic, OUT not written. Each rewrite is tried on an Edax and an .egbk3
/// book, 20 runs each.
#[test]
fn cut_of_a_book_rewritten_before_it_is_written_fails_cleanly() {
    use bookminer::convert::ConvertError;
    use bookminer::run::Phase;
    use bookminer::synth::synthesize_as;
    let dir = tempfile::tempdir().unwrap();
    let options = SynthOptions { positions: 20_000, seed: 3, perturb: 0.02 };
    let rewrites: [(&str, Rewrite); 3] = [
        ("filled with 3", |path| fill(path, 3)),
        ("filled with 0xFF", |path| fill(path, 0xFF)),
        ("truncated", |path| OpenOptions::new().write(true).open(path).unwrap().set_len(100).unwrap()),
    ];
    for format in [bookminer::book::Format::Edax, bookminer::book::Format::Egbk3] {
        let mut bytes = Vec::new();
        synthesize_as(format, &options, &mut bytes).unwrap();
        for (what, rewrite) in rewrites {
            for run in 0..20 {
                let book = dir.path().join("book");
                fs::write(&book, &bytes).unwrap();
                let out = dir.path().join("out");
                let opened = Book::open(&book, &Default::default()).unwrap();
                let cancel = AtomicBool::new(false);
                let mut phase = |phase: Phase| {
                    if phase == Phase::Writing {
                        rewrite(&book);
                    }
                };
                let control = Control { cancel: Cancel::new(&cancel), phase: &mut phase, progress: &mut |_| {} };
                let result = bookminer::cut::cut(opened, &Start::initial(), Default::default(), &out, control);
                assert!(
                    matches!(result, Err(ConvertError::Run(RunError::BookChanged { .. }))),
                    "{format:?}, {what}, run {run}: {result:?}"
                );
                assert!(!out.exists(), "{format:?}, {what}: nothing is written");
            }
        }
    }
}

/// A change made to a book file while it is read.
type Rewrite = fn(&Path);

/// Every byte of the book after its header set to `byte`, size kept.
fn fill(path: &Path, byte: u8) {
    let len = fs::metadata(path).unwrap().len();
    let mut file = OpenOptions::new().write(true).open(path).unwrap();
    file.seek(SeekFrom::Start(42)).unwrap();
    file.write_all(&vec![byte; len as usize - 42]).unwrap();
}

/// Rewritten in place with its modification time put back (as `touch -r`
/// or a careful program does), 20 runs: the status-change time still tells.
#[test]
fn a_book_rewritten_with_its_modification_time_restored_is_found() {
    let dir = tempfile::tempdir().unwrap();
    for run in 0..20 {
        let book = book_file(dir.path());
        let (result, out) = mine_while(&book, |path| {
            let modified = fs::metadata(path).unwrap().modified().unwrap();
            let mut file = OpenOptions::new().write(true).open(path).unwrap();
            file.seek(SeekFrom::Start(1000 + run * 64)).unwrap();
            file.write_all(&[0x55; 64]).unwrap();
            file.set_modified(modified).unwrap();
        });
        assert!(matches!(result, Err(MineError::Run(RunError::BookChanged { .. }))), "run {run}: {result:?}");
        assert_untouched(out.path());
    }
}

/// Replaced by another file of the same size and times (renamed over it):
/// another inode.
#[cfg(unix)]
#[test]
fn a_book_replaced_by_a_file_of_the_same_size_and_time_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let book = book_file(dir.path());
    let (result, out) = mine_while(&book, |path| {
        let modified = fs::metadata(path).unwrap().modified().unwrap();
        let copy = path.with_extension("copy");
        fs::copy(path, &copy).unwrap();
        fs::File::options().write(true).open(&copy).unwrap().set_modified(modified).unwrap();
        fs::rename(&copy, path).unwrap();
    });
    assert!(matches!(result, Err(MineError::Run(RunError::BookChanged { .. }))), "{result:?}");
    assert_untouched(out.path());
}
