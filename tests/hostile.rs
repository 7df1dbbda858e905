//! Hostile input: damaged books, unwritable outputs, interruptions, broken
//! position and config files. None may crash, hang or lose a previous output;
//! every failure names the file and, for a book record, its number and offset.

use bookminer::board::{Board, Move};
use bookminer::book::Book;
use bookminer::mine::{mine, Control, MineError, MineOptions};
use bookminer::modes::{Mode, Rules};
use bookminer::output::{Formats, KifuFormat};
use bookminer::symmetry::{is_normalized, normalize};
use bookminer::synth::{synthesize, SynthOptions};
use bookminer::walk::Start;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn bad_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/books/bad");
    assert!(dir.is_dir(), "the tests need ../shared/books/bad beside the repository ({})", dir.display());
    dir
}

fn bad(name: &str) -> PathBuf {
    let path = bad_dir().join(name);
    assert!(path.is_file(), "{} is missing", path.display());
    path
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("books/sample.dat")
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bookminer"))
}

/// Runs the binary in `dir`, logging to a file inside it.
fn run(dir: &Path, args: &[&str]) -> Output {
    let log = dir.join("test.log");
    bin().current_dir(dir).arg("--log-file").arg(&log).args(args).output().expect("the binary runs")
}

/// Runs `mine` with no config file, so only the given flags count.
fn run_mine(dir: &Path, book: &Path, args: &[&str]) -> Output {
    let book = book.display().to_string();
    let mut all = vec!["--config", "/dev/null", "--book", &book];
    all.extend_from_slice(args);
    run(dir, &all)
}

/// Standard output and standard error together.
fn said(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_no_panic(out: &Output) {
    let text = said(out);
    assert!(!text.contains("panicked") && out.status.code() != Some(101), "a panic: {text}");
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else { return found };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// No temporary output was left anywhere under `dir`.
fn assert_no_temp_files(dir: &Path) {
    let temps: Vec<_> = files_under(dir).into_iter().filter(|p| p.to_string_lossy().ends_with(".tmp")).collect();
    assert!(temps.is_empty(), "temporary files left: {temps:?}");
}

fn assert_no_mode_files(out_dir: &Path) {
    let written: Vec<_> = files_under(out_dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("mode")))
        .collect();
    assert!(written.is_empty(), "outputs written: {written:?}");
}

// ---------------------------------------------------------------------------
// The book layout, read here independently of the library (SPEC §1), so the
// facts a message must state come from the file itself.

const HEADER_LEN: usize = 42;

/// One record: 1-based number, byte offset, and its bytes.
struct Rec<'a> {
    number: u64,
    offset: usize,
    bytes: &'a [u8],
}

impl Rec<'_> {
    fn board(&self) -> Board {
        let u64_at = |at: usize| u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap());
        Board::new(u64_at(0), u64_at(8))
    }

    /// Move codes: the links, then the leaf.
    fn codes(&self) -> Vec<u8> {
        let n = self.bytes[38] as usize;
        let mut codes: Vec<u8> = (0..n).map(|i| self.bytes[41 + 2 * i]).collect();
        codes.push(self.bytes[self.bytes.len() - 1]);
        codes
    }

    /// "record N at byte M", as messages give it.
    fn place(&self) -> String {
        format!("record {} at byte {}", self.number, self.offset)
    }
}

/// The whole records of a book, and (number, offset) of a cut-off last one.
fn scan(file: &[u8]) -> (Vec<Rec<'_>>, Option<(u64, usize)>) {
    let mut records = Vec::new();
    let mut offset = HEADER_LEN;
    while offset < file.len() {
        let number = records.len() as u64 + 1;
        let left = file.len() - offset;
        if left < 42 || left < 42 + 2 * file[offset + 38] as usize {
            return (records, Some((number, offset)));
        }
        let len = 42 + 2 * file[offset + 38] as usize;
        records.push(Rec { number, offset, bytes: &file[offset..offset + len] });
        offset += len;
    }
    (records, None)
}

fn header_count(file: &[u8]) -> i32 {
    i32::from_le_bytes(file[38..42].try_into().unwrap())
}

fn the_one<'a, 'b>(found: Vec<&'b Rec<'a>>, what: &str) -> &'b Rec<'a> {
    assert_eq!(found.len(), 1, "the fixture should have exactly one record with {what}");
    found[0]
}

/// What `verify` must say about one bad book: its exit status, and words
/// derived from the file's bytes.
fn expected_verify(name: &str, file: &[u8]) -> (i32, Vec<String>) {
    let (records, cut) = scan(file);
    let initial = normalize(&Board::INITIAL).board;
    match name {
        "empty.dat" | "truncated-header.dat" => {
            (2, vec![format!("file is {} bytes", file.len()), "shorter than the 42-byte header".into()])
        }
        "bad-magic.dat" => (2, vec!["not an Edax book".into(), String::from_utf8_lossy(&file[..8]).into_owned()]),
        "bad-version.dat" => (1, vec!["byte 8".into(), format!("book version {} is not supported", file[8])]),
        "truncated-record.dat" => {
            let (number, offset) = cut.expect("the fixture is cut inside a record");
            (1, vec![format!("record {number} at byte {offset}: truncated record")])
        }
        "bad-move-code.dat" => {
            let rec = the_one(records.iter().filter(|r| r.codes().iter().any(|&c| c > 65)).collect(), "a code above 65");
            let code = rec.codes().into_iter().find(|&c| c > 65).unwrap();
            (1, vec![rec.place(), format!("move code {code}")])
        }
        "overlapping-discs.dat" => {
            let rec = the_one(records.iter().filter(|r| r.board().player & r.board().opponent != 0).collect(), "overlap");
            (1, vec![format!("{}: both sides have a disc", rec.place())])
        }
        "duplicate-position.dat" => {
            let later = the_one(
                records.iter().filter(|r| records[..r.number as usize - 1].iter().any(|e| e.board() == r.board())).collect(),
                "a board seen before",
            );
            let first = records.iter().find(|e| e.board() == later.board()).unwrap();
            (1, vec![format!("{}: same position as {}", later.place(), first.place())])
        }
        "illegal-link.dat" => {
            // (slot as messages name it, move) of the first illegal move of a record
            let illegal = |r: &Rec| -> Option<(String, Move)> {
                let codes = r.codes();
                let n_links = codes.len() - 1;
                codes.iter().enumerate().find_map(|(i, &code)| {
                    let mv = Move::from_code(code)?;
                    let slot = if i < n_links { format!("link {}", i + 1) } else { "leaf".into() };
                    r.board().check_move(mv).is_none().then_some((slot, mv))
                })
            };
            let rec = the_one(records.iter().filter(|r| illegal(r).is_some()).collect(), "an illegal move");
            let (slot, mv) = illegal(rec).unwrap();
            (1, vec![format!("{}: {slot} move {mv} is illegal", rec.place())])
        }
        "not-normalized.dat" => {
            let rec = the_one(records.iter().filter(|r| !is_normalized(&r.board())).collect(), "an unnormalized board");
            (1, vec![format!("{}: board is not in normalized", rec.place())])
        }
        "missing-root.dat" => {
            assert!(records.iter().all(|r| r.board() != initial), "the fixture lacks the initial position");
            (1, vec!["the initial position is not in the book".into()])
        }
        "huge-nnodes.dat" | "negative-nnodes.dat" => {
            (1, vec![format!("byte 38: header says {} positions, the file holds {}", header_count(file), records.len())])
        }
        _ => panic!("{name}: a bad book with no expectations; add it to expected_verify"),
    }
}

#[test]
fn verify_names_the_file_the_record_and_the_damage_of_every_bad_book() {
    let mut names: Vec<String> = fs::read_dir(bad_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".dat"))
        .collect();
    names.sort();
    assert!(names.len() >= 13, "bad books found: {names:?}");
    let dir = tempfile::tempdir().unwrap();
    // Every .dat is checked: expected_verify panics on a name it does not know.
    for name in &names {
        let path = bad(name);
        let (status, words) = expected_verify(name, &fs::read(&path).unwrap());
        let out = run(dir.path(), &["verify", &path.display().to_string()]);
        assert_no_panic(&out);
        let text = said(&out);
        assert_eq!(out.status.code(), Some(status), "verify {name}: {text}");
        assert!(text.contains(&path.display().to_string()), "verify {name} does not name the file: {text}");
        for word in &words {
            assert!(text.contains(word.as_str()), "verify {name} does not say {word:?}: {text}");
        }
    }
}

fn must_fail_mine() -> Vec<String> {
    let list = fs::read_to_string(bad("MUST_FAIL_MINE")).unwrap();
    let names: Vec<String> = list.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
    assert!(!names.is_empty());
    names
}

#[test]
fn mine_fails_on_every_book_it_must_refuse_and_writes_nothing() {
    for name in must_fail_mine() {
        let dir = tempfile::tempdir().unwrap();
        let path = bad(&name);
        let out = run_mine(dir.path(), &path, &["--mode", "all", "--out-dir", "out"]);
        assert_no_panic(&out);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "mine {name} is bad input: {err}");
        assert!(err.contains(&format!("error: {}", path.display())), "mine {name} does not name the file: {err}");
        assert_no_mode_files(&dir.path().join("out"));
        assert_no_temp_files(dir.path());
    }
}

#[test]
fn mine_stops_at_an_illegal_stored_move_naming_its_record_and_move() {
    let path = bad("illegal-link.dat");
    let file = fs::read(&path).unwrap();
    let (records, _) = scan(&file);
    let (rec, mv) = records
        .iter()
        .find_map(|r| {
            let mv = r.codes().into_iter().filter_map(Move::from_code).find(|&mv| r.board().check_move(mv).is_none());
            mv.map(|mv| (r, mv))
        })
        .expect("the fixture has an illegal move");
    let dir = tempfile::tempdir().unwrap();
    let out = run_mine(dir.path(), &path, &["--mode", "1", "--out-dir", "out"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{}: stored move {mv}", rec.place())) && err.contains("illegal"), "{err}");
    assert_no_mode_files(&dir.path().join("out"));
}

#[test]
fn a_wrong_header_count_is_a_warning_for_mine_and_an_error_for_verify() {
    let dir = tempfile::tempdir().unwrap();
    let mut edited = fs::read(sample()).unwrap();
    let stored = header_count(&edited);
    assert_eq!(stored as usize, scan(&edited).0.len(), "the sample book's count is right to begin with");
    edited[38..42].copy_from_slice(&(stored - 1).to_le_bytes());
    let edited_path = dir.path().join("edited-count.dat");
    fs::write(&edited_path, &edited).unwrap();

    for path in [bad("huge-nnodes.dat"), bad("negative-nnodes.dat"), edited_path] {
        let file = fs::read(&path).unwrap();
        let claim = format!("header says {} positions, the file holds {}", header_count(&file), scan(&file).0.len());

        let out = run_mine(dir.path(), &path, &["--mode", "all", "--out-dir", "out"]);
        let err = stderr(&out);
        assert!(out.status.success(), "mine {}: {err}", path.display());
        assert!(err.contains(&format!("warn: {}: {claim}", path.display())), "no warning: {err}");
        for n in 1..=4 {
            assert!(dir.path().join(format!("out/mode{n}.txt")).is_file(), "mode{n}.txt written despite the warning");
        }

        let out = run(dir.path(), &["verify", &path.display().to_string()]);
        assert_eq!(out.status.code(), Some(1), "verify {}", path.display());
        assert!(said(&out).contains(&format!("{}: byte 38: {claim}", path.display())), "{}", said(&out));
    }
}

// ---------------------------------------------------------------------------
// Outputs that cannot be written.

const PREVIOUS: &[u8] = b"\xEF\xBB\xBFprevious run\n";

#[test]
fn an_out_dir_under_a_regular_file_fails_with_status_3_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("file.txt"), "not a folder").unwrap();
    let config = format!("book = {:?}\nmode = \"all\"\nout_dir = \"file.txt/out\"\n", sample().display().to_string());
    fs::write(dir.path().join("c.toml"), config).unwrap();
    let out = run(dir.path(), &["--config", "c.toml"]);
    assert_no_panic(&out);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("file.txt/out"), "the message names the path: {err}");
    assert_eq!(fs::read(dir.path().join("file.txt")).unwrap(), b"not a folder");
    assert_no_temp_files(dir.path());
}

#[test]
fn a_directory_in_the_way_of_one_output_leaves_every_previous_output() {
    // mode1.txt would be renamed into place before mode3.txt fails, unless the
    // run refuses before writing anything.
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    fs::create_dir_all(out_dir.join("mode3.txt")).unwrap();
    fs::write(out_dir.join("mode1.txt"), PREVIOUS).unwrap();
    let out = run_mine(dir.path(), &sample(), &["--mode", "all", "--out-dir", "out"]);
    assert_no_panic(&out);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("out/mode3.txt"), "the message names the path: {err}");
    assert_eq!(fs::read(out_dir.join("mode1.txt")).unwrap(), PREVIOUS, "the previous mode1.txt is untouched");
    assert!(!out_dir.join("mode2.txt").exists() && !out_dir.join("mode4.txt").exists());
    assert_no_temp_files(dir.path());
}

#[test]
fn a_read_only_out_dir_fails_with_status_3_unless_permissions_are_not_enforced() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    fs::create_dir(&out_dir).unwrap();
    fs::write(out_dir.join("mode1.txt"), PREVIOUS).unwrap();
    fs::set_permissions(&out_dir, fs::Permissions::from_mode(0o555)).unwrap();
    // As root the mode bits are not enforced: find out rather than assume.
    let probe = out_dir.join("probe");
    let enforced = fs::write(&probe, "").is_err();
    let _ = fs::remove_file(&probe);

    let out = run_mine(dir.path(), &sample(), &["--mode", "1", "--out-dir", "out"]);
    fs::set_permissions(&out_dir, fs::Permissions::from_mode(0o755)).unwrap();
    assert_no_panic(&out);
    let err = stderr(&out);
    let now = fs::read(out_dir.join("mode1.txt")).unwrap();
    if enforced {
        assert_eq!(out.status.code(), Some(3), "{err}");
        assert!(err.contains("out/mode1.txt"), "the message names the path: {err}");
        assert_eq!(now, PREVIOUS, "the previous mode1.txt is untouched");
    } else {
        assert!(out.status.success(), "the folder is writable here, so the run succeeds: {err}");
        assert!(now.starts_with(b"\xEF\xBB\xBF") && now != PREVIOUS, "mode1.txt was replaced");
    }
    assert_no_temp_files(dir.path());
}

// ---------------------------------------------------------------------------
// Interruptions.

fn synth_bytes(positions: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    synthesize(&SynthOptions { positions, seed: 7, perturb: 0.02 }, &mut bytes).unwrap();
    bytes
}

#[test]
fn a_cancelled_mine_leaves_the_previous_output_and_no_temp_files() {
    // Cancel is checked every PROGRESS_INTERVAL (65,536) edges: 200,000
    // positions give several times that, so the walk is cut off part-way.
    let mut book = Book::from_bytes("synth-200k", synth_bytes(200_000)).unwrap();
    let counts = book.store().counts();
    assert!(counts.links + counts.leaves > 3 * bookminer::walk::PROGRESS_INTERVAL, "the book is big enough");
    let dir = tempfile::tempdir().unwrap();
    let options = MineOptions {
        modes: vec![Mode::LeafVsLinks],
        rules: Rules::default(),
        format: KifuFormat::default(),
        formats: Formats::KIFU,
        bom: true,
        unique_lines: true,
        out_dir: dir.path().to_path_buf(),
    };
    let previous = options.output_path(Mode::LeafVsLinks);
    fs::write(&previous, PREVIOUS).unwrap();

    let cancel = AtomicBool::new(false);
    let mut calls = 0;
    let mut progress = |_: &bookminer::walk::WalkStats| {
        calls += 1;
        cancel.store(true, Ordering::Relaxed);
    };
    let result = mine(&mut book, &Start::initial(), &options, Control { cancel: &cancel, progress: &mut progress });
    assert!(matches!(result, Err(MineError::Interrupted)), "{:?}", result.map(|r| r.to_string()));
    assert_eq!(calls, 1, "the walk stopped at the next check after the flag was set");
    assert_eq!(fs::read(&previous).unwrap(), PREVIOUS);
    assert_eq!(files_under(dir.path()), vec![previous], "nothing else is left in out_dir");
}

#[test]
fn sigint_stops_the_binary_with_status_130_and_changes_no_output() {
    let dir = tempfile::tempdir().unwrap();
    // About 3 s of walking on an idle machine: far longer than the 0.3 s
    // the signal waits after the book is loaded.
    let out = run(dir.path(), &["synth", "--positions", "2000000", "--seed", "3", "big.dat"]);
    assert!(out.status.success(), "{}", said(&out));
    let out_dir = dir.path().join("out");
    fs::create_dir(&out_dir).unwrap();
    for n in 1..=4 {
        fs::write(out_dir.join(format!("mode{n}.txt")), PREVIOUS).unwrap();
    }
    let log = dir.path().join("mine.log");
    let mut child = bin()
        .current_dir(dir.path())
        .args(["--config", "/dev/null", "--book", "big.dat", "--mode", "all", "--out-dir", "out", "--log-file"])
        .arg(&log)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let began = Instant::now();
    while !fs::read_to_string(&log).unwrap_or_default().contains("positions loaded") {
        assert!(began.elapsed() < Duration::from_secs(120), "the book was never loaded");
        assert!(child.try_wait().unwrap().is_none(), "mine ended before loading the book");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "status {:?}; the walk may have ended first: {err}", out.status);
    assert!(err.contains("interrupted"), "{err}");
    for n in 1..=4 {
        assert_eq!(fs::read(out_dir.join(format!("mode{n}.txt"))).unwrap(), PREVIOUS, "mode{n}.txt is untouched");
    }
    assert_no_temp_files(dir.path());
}

// ---------------------------------------------------------------------------
// Position files and config files.

#[test]
fn a_hostile_positions_file_reports_each_bad_line_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = Vec::new();
    file.extend_from_slice(b"F5F6\n"); // 1: fine
    file.extend_from_slice(b"hello, world\n"); // 2: garbage
    file.extend_from_slice(b"F5\xff\xfeD6\n"); // 3: not UTF-8
    file.extend_from_slice("F5".repeat(500_000).as_bytes()); // 4: a 1 MB kifu
    file.extend_from_slice(b"\n");
    file.extend_from_slice(&[b'x'; 1 << 20]); // 5: a 1 MB word
    file.extend_from_slice(b"\n0x1 0x1\n"); // 6: overlapping discs
    file.extend_from_slice(b"\0\0\0\n"); // 7: control bytes
    file.extend_from_slice(b"F5"); // 8: fine, no final line end
    fs::write(dir.path().join("p.txt"), &file).unwrap();
    let book = sample().display().to_string();
    let out = run(dir.path(), &["--book", &book, "inspect", "--file", "p.txt"]);
    assert_no_panic(&out);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for n in 2..=7 {
        assert!(err.contains(&format!("p.txt:{n}:")), "line {n} is not named: {err}");
    }
    assert!(err.contains("p.txt:3: not valid UTF-8"), "{err}");
    assert!(err.len() < 10_000, "a huge line is not echoed in full ({} bytes of messages)", err.len());
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("p.txt:1 ") && report.contains("p.txt:8 "), "good lines are reported: {report}");
}


#[test]
fn a_broken_config_exits_2_naming_the_file_the_key_and_the_allowed_values() {
    let cases: [(&[u8], &[&str]); 5] = [
        (b"colour = \"blue\"\n", &["key `colour`", "unknown key", "known keys: book, mode, start"]),
        (b"orientation = \"f6\"\n", &["key `orientation`", "\"f5\", \"as-walked\""]),
        (b"log_level = 3\n", &["key `log_level`", "\"error\", \"warn\", \"info\", \"debug\", \"trace\""]),
        (b"mode = 1\nbook = [\n", &["not valid TOML", "line 2"]),
        (b"mode = 1\nbook = \"b\xff\xfe.dat\"\n", &["not valid UTF-8", "line 2"]),
    ];
    for (content, words) in cases {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("bad.toml"), content).unwrap();
        let out = run(dir.path(), &["--config", "bad.toml"]);
        assert_no_panic(&out);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", String::from_utf8_lossy(content));
        assert!(err.contains("error: bad.toml: "), "the message names the file: {err}");
        for word in words {
            assert!(err.contains(word), "the message lacks {word:?}: {err}");
        }
        assert_no_mode_files(dir.path());
    }
}
