//! Egaroucid's older books (.egbk2, .egbk; SPEC §8.1) through the binary:
//! mined, they give exactly the lines of the .egbk3 they stand for (its
//! positions and values, merged as §8.1 says, without leaves or line
//! counts); verify, stats and inspect name the file's own records; damaged
//! ones fail cleanly.

use crate::common;

use bookminer::board::Board;
use bookminer::format::egaroucid::older::{self as older, StoredValue};
use bookminer::symmetry::{normalize, Symmetry};
use common::{bin, data};
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::Path;
use std::process::Output;

const EGBK3_HEADER: usize = 14;
const EGBK3_RECORD: usize = 25;

fn run(dir: &Path, args: &[&str]) -> Output {
    bin().current_dir(dir).args(args).output().unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn assert_no_panic(out: &Output) {
    assert!(!text(out).contains("panicked") && out.status.code().is_some(), "{}", text(out));
}

/// Every output file of `mine --mode all` in every format, by name.
fn mine(dir: &Path, book: &Path, extra: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let out_dir = dir.join(format!("out-{}", book.file_name().unwrap().to_string_lossy()));
    let (book, out) = (book.display().to_string(), out_dir.display().to_string());
    let mut args = vec!["--config", "/dev/null", "--book", &book, "--mode", "all", "--format", "kifu,jsonl,obf"];
    args.extend(["--out-dir", &out, "--log-file", "log"]);
    args.extend(extra);
    let result = run(dir, &args);
    assert!(result.status.success(), "mine {book}: {}", text(&result));
    let files: BTreeMap<String, Vec<u8>> = fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        // The manifest names the book read, which differs by design.
        .filter(|p| p.file_name().is_some_and(|n| n != "manifest.json"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect();
    assert_eq!(files.len(), 12, "four modes, three formats");
    files
}

/// One record of an .egbk3: the fields an older book has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fields {
    board: Board,
    value: i8,
    level: i8,
}

/// The repository's .egbk3 test book, record by record.
fn egbk3_fields(bytes: &[u8]) -> Vec<Fields> {
    bytes[EGBK3_HEADER..]
        .chunks_exact(EGBK3_RECORD)
        .map(|r| {
            let word = |at: usize| u64::from_le_bytes(r[at..at + 8].try_into().unwrap());
            Fields { board: Board::new(word(0), word(8)), value: r[16] as i8, level: r[17] as i8 }
        })
        .collect()
}

/// An .egbk3 of these records with no leaf and no line count: what SPEC
/// §8.1 says an older book holds.
fn egbk3_without_leaves(records: &[Fields]) -> Vec<u8> {
    let mut bytes = Vec::new();
    bookminer::format::egaroucid::encode_header(&mut bytes, records.len());
    for r in records {
        bookminer::format::egaroucid::encode_record(&mut bytes, &r.board, r.value, r.level, 0, None);
    }
    bytes
}

/// One of the eight images of a board, chosen by `i`.
fn image(board: &Board, i: usize) -> Board {
    Symmetry::ALL[i % 8].board(board)
}

fn small_egbk3() -> Vec<Fields> {
    egbk3_fields(&fs::read(data("books/egbk3/edax46-l2-small.egbk3")).unwrap())
}

#[test]
fn an_egbk2_made_from_an_egbk3_mines_as_that_egbk3_without_leaves_merges_included() {
    let records = small_egbk3();
    let (raised, lowered) = (10, 20);
    assert!(records[lowered].level > 0);
    // Boards in every image, junk pairs (which are no links), and two records
    // of positions already stored: one at a higher level, which replaces the
    // earlier in its place, and one at a lower level, which is left out.
    let mut file = Vec::new();
    older::encode_egbk2_header(&mut file, records.len() + 2);
    for (i, r) in records.iter().enumerate() {
        let pairs = [(r.value, (i % 66) as u8), (-r.value, 64)];
        older::encode_egbk2_record(&mut file, &image(&r.board, i), r.value, r.level, &pairs);
    }
    let replaced = Fields { value: -records[raised].value + 1, level: records[raised].level + 1, ..records[raised] };
    older::encode_egbk2_record(&mut file, &image(&replaced.board, 5), replaced.value, replaced.level, &[]);
    let kept = records[lowered];
    older::encode_egbk2_record(&mut file, &image(&kept.board, 6), kept.value + 3, kept.level - 1, &[]);
    let mut expected = records.clone();
    expected[raised] = replaced;

    let dir = tempfile::tempdir().unwrap();
    let (egbk2, egbk3) = (dir.path().join("made.egbk2"), dir.path().join("expected.egbk3"));
    fs::write(&egbk2, &file).unwrap();
    fs::write(&egbk3, egbk3_without_leaves(&expected)).unwrap();
    let mined = mine(dir.path(), &egbk2, &[]);
    assert_eq!(mined, mine(dir.path(), &egbk3, &[]), "the same files, byte for byte");
    assert!(mined["mode2.txt"].len() > 1000, "the book has mismatches to find");

    // verify lists the junk pairs (no links, but checked) and the merged records.
    let out = run(dir.path(), &["verify", &egbk2.display().to_string()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    let (pairs, merged): (Vec<&str>, Vec<&str>) = said.lines().partition(|l| l.contains(": stored pair "));
    assert!(pairs.len() > records.len(), "{said}");
    assert_eq!(merged.len(), 2, "{merged:?}");
    assert!(merged[0].contains(&format!("record {} at byte", records.len() + 1)), "{merged:?}");
    assert!(merged[0].ends_with("so it replaces it") && merged[1].ends_with("so it is left out"), "{merged:?}");
}

#[test]
fn an_egbk_made_from_an_egbk3_mines_as_that_egbk3_at_the_configured_level() {
    let records = small_egbk3();
    // .egbk cannot store -64 (64 - byte, the byte read as i8).
    assert!(records.iter().all(|r| r.value > -64));
    let level = 7;
    let changed = 30;
    let mut file = Vec::new();
    older::encode_egbk_header(&mut file, records.len() + 1);
    for (i, r) in records.iter().enumerate() {
        older::encode_egbk_record(&mut file, &image(&r.board, i + 3), r.value);
    }
    // A later record of a position: every record has the same level, so it replaces.
    let later = Fields { value: (records[changed].value + 5).min(64), ..records[changed] };
    older::encode_egbk_record(&mut file, &image(&later.board, 1), later.value);
    let mut expected: Vec<Fields> = records.iter().map(|&r| Fields { level, ..r }).collect();
    expected[changed] = Fields { level, ..later };

    let dir = tempfile::tempdir().unwrap();
    let (egbk, egbk3) = (dir.path().join("made.egbk"), dir.path().join("expected.egbk3"));
    fs::write(&egbk, &file).unwrap();
    fs::write(&egbk3, egbk3_without_leaves(&expected)).unwrap();
    assert_eq!(mine(dir.path(), &egbk, &["--egbk-level", "7"]), mine(dir.path(), &egbk3, &[]));
    let out = run(dir.path(), &["--egbk-level", "7", "inspect", "--book", &egbk.display().to_string(), "F5"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(", level 7\n"), "{}", text(&out));
}

/// The shared .egbk2's records as SPEC §8.1 merges them, worked out here
/// from the raw records: each normalized board's value and level, and the
/// order positions first came in.
fn merged_by_hand(file: &[u8]) -> (Vec<Board>, HashMap<Board, (i8, i8)>) {
    let header = older::egbk2_header(file).unwrap();
    let mut order = Vec::new();
    let mut held: HashMap<Board, (i8, i8)> = HashMap::new();
    for item in older::egbk2_records(file, &header) {
        let (_, _, record) = item.unwrap();
        let StoredValue::Value(value) = record.value else { panic!("an .egbk2 stores values") };
        let (board, level) = (normalize(&record.stored).board, record.level.unwrap());
        match held.get(&board) {
            Some(&(_, earlier)) if level < earlier => {}
            Some(_) => {
                held.insert(board, (value, level));
            }
            None => {
                order.push(board);
                held.insert(board, (value, level));
            }
        }
    }
    (order, held)
}

#[test]
fn the_repository_egbk2_mines_as_its_egbk3_with_the_egbk2_merges_and_no_leaves() {
    let egbk2 = data("books/egbk3/edax46-l2-small.egbk2");
    let (order, held) = merged_by_hand(&fs::read(&egbk2).unwrap());
    let records = small_egbk3();
    // The same positions, in the same order: the .egbk2 is the .egbk3's book.
    assert_eq!(order, records.iter().map(|r| r.board).collect::<Vec<_>>());
    let merged: Vec<Fields> = records
        .iter()
        .map(|r| {
            let (value, level) = held[&r.board];
            Fields { value, level, ..*r }
        })
        .collect();
    let differing = records.iter().zip(&merged).filter(|(a, b)| a != b).count();
    assert_eq!(differing, 1, "one merge changed a value");

    let dir = tempfile::tempdir().unwrap();
    let egbk3 = dir.path().join("egbk2-as-egbk3.egbk3");
    fs::write(&egbk3, egbk3_without_leaves(&merged)).unwrap();
    let mined = mine(dir.path(), &egbk2, &[]);
    assert_eq!(mined, mine(dir.path(), &egbk3, &[]));
    // SPEC §8: without leaves mode 1 finds nothing, mode 3 never fires, and
    // mode 4 writes what mode 2 writes.
    assert_eq!(mined["mode1.txt"], b"\xEF\xBB\xBF");
    assert_eq!(mined["mode3.txt"], b"\xEF\xBB\xBF");
    assert_eq!(mined["mode4.txt"], mined["mode2.txt"]);
}

#[test]
fn verify_stats_and_inspect_name_the_older_file_s_records() {
    let dir = tempfile::tempdir().unwrap();
    let egbk2 = data("books/egbk3/edax46-l2-small.egbk2");
    let path = egbk2.display().to_string();
    let out = run(dir.path(), &["verify", &path]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("record 14935 at byte 313678: same position as record 5533 at byte 116308, merged: its level 3 is at least that record's 2, so it replaces it"), "{said}");
    assert!(said.contains("record 14936 at byte 313697: same position as record 2217 at byte 46574, merged: its level 1 is below that record's 2, so it is left out"), "{said}");
    assert!(said.contains("14936 positions, no problems (2 pairs of records merged)"), "{said}");

    let out = run(dir.path(), &["stats", &path]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Egaroucid book (.egbk2, up to Egaroucid 6.5), version 2"), "{}", text(&out));
    assert!(text(&out).contains("records 14936 (2 merged into an earlier record"), "{}", text(&out));
    assert!(text(&out).contains("positions  14934"), "{}", text(&out));

    // The record that replaced an earlier one is named where the file has it.
    let file = fs::read(&egbk2).unwrap();
    let word = |at: usize| u64::from_le_bytes(file[at..at + 8].try_into().unwrap());
    let board = format!("{:#x} {:#x}", word(313678), word(313678 + 8));
    let out = run(dir.path(), &["--book", &path, "inspect", &board]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("in book: yes, record 14935 at byte offset 313678"), "{}", text(&out));
    assert!(text(&out).contains("value +4, level 3"), "{}", text(&out));

    let egbk = data("books/egbk3/edax46-l2-small.egbk").display().to_string();
    let out = run(dir.path(), &["--egbk-level", "5", "stats", &egbk]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Egaroucid book (.egbk, up to Egaroucid 6.2), every record at level 5"),
        "{}",
        text(&out)
    );
}

/// A damaged copy of an older book: mine refuses it naming the file, the
/// record and the byte, and verify lists the same.
fn refused(dir: &Path, name: &str, bytes: &[u8], words: &str) {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    let shown = path.display().to_string();
    let out = run(
        dir,
        &["--config", "/dev/null", "--book", &shown, "--mode", "all", "--out-dir", "out", "--log-file", "log"],
    );
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(2), "mine {name}: {}", text(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(&format!("error: {shown}: {words}")), "mine {name}: {said}");
    assert!(!dir.join("out/mode1.txt").exists(), "mine {name} wrote nothing");
    let out = run(dir, &["verify", &shown]);
    assert_no_panic(&out);
    assert!(matches!(out.status.code(), Some(1 | 2)), "verify {name}: {}", text(&out));
    assert!(text(&out).contains(words), "verify {name}: {}", text(&out));
}

#[test]
fn damaged_older_books_fail_cleanly_naming_record_and_byte() {
    let dir = tempfile::tempdir().unwrap();
    let egbk2 = fs::read(data("books/egbk3/edax46-l2-small.egbk2")).unwrap();
    let egbk = fs::read(data("books/egbk3/edax46-l2-small.egbk")).unwrap();

    refused(dir.path(), "short.egbk2", &egbk2[..12], "byte 0: file is 12 bytes, shorter than the 14-byte header");
    refused(dir.path(), "cut.egbk2", &egbk2[..egbk2.len() - 3], "record 14936 at byte 313697: truncated record");
    let mut value = egbk2.clone();
    value[14 + 16] = 65;
    refused(dir.path(), "value.egbk2", &value, "record 1 at byte 14: value 65 is outside -64..64");
    let mut overlap = egbk.clone();
    overlap[4 + 17 * 3..4 + 17 * 3 + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    refused(dir.path(), "overlap.egbk", &overlap, "record 4 at byte 55: both sides have a disc");
    let mut raw = egbk.clone();
    raw[4 + 17 * 9 + 16] = 200;
    refused(dir.path(), "raw.egbk", &raw, "record 10 at byte 157: value 120 (64 minus the stored byte 200");
    // A size that is not 4 + 17 * n_boards: no .egbk, no book at all.
    refused(dir.path(), "cut.egbk", &egbk[..egbk.len() - 1], "byte 0: not an Edax or Egaroucid book");
}
