//! `diff OLD NEW`, run as a user runs it, its lines read back with a JSON
//! parser: a book against itself, against what `fix` made of it (the
//! receipt says what changed), against its conversion to Edax (SPEC §9.1
//! says what changes), and two small books whose differences are worked
//! out by hand.

use crate::common::{bin, book_from_lines, data, sample};
use bookminer::board::{Board, Move, Square};
use bookminer::book::{Book, Link, Record};
use bookminer::format::edax::entries::encode;
use serde_json::Value;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

fn lines_of(path: &Path) -> Vec<Value> {
    let text = fs::read_to_string(path).unwrap();
    text.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"))).collect()
}

/// Runs `bookminer ARGS` and returns its standard output; it must succeed.
fn run(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The diff of two books into `dir`, and its lines.
fn diff(old: &Path, new: &Path, dir: &Path, extra: &[&str]) -> (String, Vec<Value>) {
    let out_dir = dir.join("diff");
    let mut args = vec!["diff", old.to_str().unwrap(), new.to_str().unwrap(), "--out-dir", out_dir.to_str().unwrap()];
    args.extend(extra);
    let summary = run(&args);
    (summary, lines_of(&out_dir.join("diff.jsonl")))
}

/// The number on the summary line that starts with `label`.
fn count(summary: &str, label: &str) -> u64 {
    let line = summary.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label}: {summary}"));
    line[label.len()..].split_whitespace().next().unwrap().parse().unwrap()
}

fn egbk3(name: &str) -> PathBuf {
    data(&format!("books/egbk3/{name}"))
}

#[test]
fn a_book_against_itself_has_no_difference() {
    let dir = tempfile::tempdir().unwrap();
    for book in [sample(), data("books/edax-ray-l1-mut1.dat"), egbk3("edax46-l2-small-perturbed.egbk3")] {
        let (summary, lines) = diff(&book, &book, dir.path(), &[]);
        assert!(lines.is_empty(), "{}: {lines:?}", book.display());
        for label in ["only in the old", "only in the new", "changed", "lines written"] {
            assert_eq!(count(&summary, label), 0, "{label}: {summary}");
        }
    }
}

/// The receipt's keys that name a change, as `diff` writes them.
const CHANGES: [&str; 4] = ["value", "lower", "upper", "links"];

#[test]
fn a_book_against_its_fix_lists_exactly_the_receipt() {
    let dir = tempfile::tempdir().unwrap();
    // An Egaroucid book stores no links (SPEC §8): a value fixed changes
    // no bytes of its parents' records, and the lines are the receipt's.
    let books = [
        sample(),
        data("books/edax-ray-l1-mut1.dat"),
        data("books/edax-endgames-perturbed.dat"),
        egbk3("edax46-l2-small-perturbed.egbk3"),
    ];
    for (i, book) in books.iter().enumerate() {
        // Lines written the other way too: as walked, passes named.
        let style: &[&str] = if i == 1 { &["--orientation", "as-walked", "--pass-token", "PS"] } else { &[] };
        // One name for the fixed book of each: each run replaces the last's.
        let fixed = dir.path().join("fixed").with_extension(book.extension().unwrap());
        let receipt_dir = dir.path().join("fix");
        let mut args = vec!["fix", book.to_str().unwrap(), fixed.to_str().unwrap(), "--force"];
        args.extend(["--out-dir", receipt_dir.to_str().unwrap()]);
        args.extend(style);
        let fix_summary = run(&args);
        let receipt = lines_of(&receipt_dir.join("fix.jsonl"));
        let (summary, lines) = diff(book, &fixed, dir.path(), style);
        assert!(!receipt.is_empty(), "{}: fix changed nothing; the test needs a book it changes", book.display());
        assert_eq!(lines.len(), receipt.len(), "{}", book.display());
        assert_eq!(count(&summary, "changed"), count(&fix_summary, "records changed"));
        assert_eq!(count(&summary, "  values"), count(&fix_summary, "values changed"));
        for (d, r) in lines.iter().zip(&receipt) {
            assert_eq!(d["diff"], "changed", "{d}");
            assert_eq!((&d["old"], &d["new"]), (&r["record"], &r["record"]), "{d}\n{r}");
            for key in ["kifu", "board", "side"].into_iter().chain(CHANGES) {
                assert_eq!(d.get(key), r.get(key), "{key}:\n{d}\n{r}");
            }
            let keys: Vec<&String> = d.as_object().unwrap().keys().collect();
            let known = ["diff", "old", "new", "kifu", "board", "side"].into_iter().chain(CHANGES);
            assert!(keys.iter().all(|k| known.clone().any(|n| n == k.as_str())), "fix changes no leaf or level: {d}");
        }
    }
}

/// A board as `diff` writes it, the side to move's discs as the player.
fn board_of(line: &Value) -> Board {
    let squares = line["board"].as_str().unwrap().as_bytes();
    let side = line["side"].as_str().unwrap().as_bytes()[0];
    let bits = |c: u8| (0..64).filter(|&i| squares[i] == c).fold(0u64, |b, i| b | 1 << i);
    let other = if side == b'X' { b'O' } else { b'X' };
    Board::new(bits(side), bits(other))
}

/// A book's records in file order, as bookminer reads them.
fn records(path: &Path) -> Vec<Record> {
    Book::open(path, &Default::default()).unwrap().records().collect()
}

/// A leaf's move (stored coordinates) and score.
fn leaf_of(leaf: Option<Link>) -> Option<(Move, i32)> {
    leaf.map(|l| (l.mv, l.score.discs()))
}

#[test]
fn an_egaroucid_book_against_its_edax_conversion_lists_what_conversion_changes() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["edax46-l2-small-perturbed.egbk3", "edax46-l2-small.egbk3"] {
        let book = egbk3(name);
        let converted = dir.path().join("converted.dat");
        let convert_summary = run(&["convert", book.to_str().unwrap(), converted.to_str().unwrap(), "--force"]);
        let (summary, lines) = diff(&book, &converted, dir.path(), &[]);
        let (old, new) = (records(&book), records(&converted));
        // SPEC §9.1: a record for each position before a pass is added.
        let added: Vec<&Value> = lines.iter().filter(|d| d["diff"] == "new").collect();
        assert_eq!(added.len() as u64, count(&convert_summary, "pass records added"), "{name}");
        assert!(added.iter().all(|d| board_of(d).must_pass()), "{name}: an added record is a pass record");
        assert_eq!(count(&summary, "only in the old"), 0, "{name}: every record is written");
        // What both formats store is compared: value, level and leaf. An
        // Egaroucid book stores no bounds and no links (SPEC §8).
        let mut leaves = 0;
        for d in lines.iter().filter(|d| d["diff"] == "changed") {
            let (e, x) = (&old[d["old"].as_u64().unwrap() as usize], &new[d["new"].as_u64().unwrap() as usize]);
            let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
            let known = ["diff", "old", "new", "kifu", "board", "side", "level", "leaf"];
            assert!(keys.iter().all(|k| known.contains(k)), "{name}: values are kept, no bounds or links: {d}");
            // The level is clamped to 1..60.
            if let Some(pair) = d.get("level") {
                assert_eq!(pair, &serde_json::json!([e.level, e.level.clamp(1, 60)]), "{name}: {d}");
            }
            let Some(leaf) = d.get("leaf") else { continue };
            leaves += 1;
            let score = |leaf: &Value| leaf.as_array().map(|l| l[1].as_i64().unwrap() as i32);
            assert_eq!(score(&leaf[0]), leaf_of(e.stored_leaf()).map(|l| l.1), "{name}: {d}");
            assert_eq!(score(&leaf[1]), leaf_of(x.leaf()).map(|l| l.1), "{name}: {d}");
            // The stored leaf is kept when its move is legal and not a link's.
            if let Some(stored) = e.stored_leaf() {
                let linked = e.links().any(|l| l.mv == stored.mv);
                assert!(linked || e.board().after(stored.mv).is_none(), "{name}: a leaf the book has is kept: {d}");
            }
            // Edax needs a leaf where a legal move is not linked: the lowest
            // link becomes the leaf, or with no link the first legal move
            // with the record's value.
            let lowest = e.links().min_by_key(|l| l.score);
            match (x.leaf(), lowest) {
                (Some(leaf), Some(lowest)) => assert_eq!(leaf_of(Some(leaf)), leaf_of(Some(lowest)), "{name}: {d}"),
                (Some(leaf), None) => assert_eq!(leaf.score, e.value(), "{name}: {d}"),
                (None, _) => assert!(
                    Square::iter(e.board().legal_moves()).all(|sq| e.links().any(|l| l.mv == Move::Play(sq))),
                    "{name}: no leaf only where every legal move is linked: {d}"
                ),
            }
        }
        // Every record whose stored leaf conversion changed has its line.
        let converted_by_board: HashMap<Board, &Record> = new.iter().map(|r| (r.board(), r)).collect();
        let changed_leaves = old
            .iter()
            .filter(|e| (-64..=64).contains(&e.value().discs()))
            .filter(|e| leaf_of(e.stored_leaf()) != leaf_of(converted_by_board[&e.board()].leaf()))
            .count();
        assert_eq!(leaves, changed_leaves, "{name}");
        assert_eq!(count(&summary, "  leaves"), changed_leaves as u64, "{name}");
    }
}

/// An Egaroucid record is compared in what it stores: a record whose
/// bytes are the same in both books has no line, though the new book holds
/// the child of its stored leaf (which makes that move a link, SPEC §8).
#[test]
fn an_egaroucid_record_whose_bytes_are_the_same_has_no_line() {
    use bookminer::format::egaroucid::{encode_record, header, HEADER_LEN};
    let dir = tempfile::tempdir().unwrap();
    let old = egbk3("edax46-l2-small-perturbed.egbk3");
    let bytes = fs::read(&old).unwrap();
    let records = records(&old);
    let boards: std::collections::HashSet<Board> = records.iter().map(Record::board).collect();
    // A record with a stored leaf whose child the book lacks, and that child.
    let (parent, child) = records
        .iter()
        .find_map(|r| {
            let leaf = r.stored_leaf()?;
            let child = r.board().after(leaf.mv)?;
            let stored = bookminer::symmetry::normalize(&child).board;
            (!child.must_pass() && child.has_moves() && !boards.contains(&stored)).then_some((r, (stored, leaf)))
        })
        .expect("a record whose leaf leads out of the book");
    let mut new_bytes = header(records.len() as u64 + 1).to_vec();
    new_bytes.extend(&bytes[HEADER_LEN..]);
    let (board, leaf) = child;
    encode_record(&mut new_bytes, &board, -leaf.score.discs() as i8, 1, 0, None);
    let new = dir.path().join("new.egbk3");
    fs::write(&new, &new_bytes).unwrap();
    let (summary, lines) = diff(&old, &new, dir.path(), &[]);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["diff"], "new", "{}", lines[0]);
    assert_eq!(bookminer::symmetry::normalize(&board_of(&lines[0])).board, board, "{}", lines[0]);
    assert_eq!(count(&summary, "changed"), 0, "record {} is the same: {summary}", parent.id.index());
}

fn line(text: &str) -> Vec<Move> {
    bookminer::kifu::parse_moves(text).unwrap()
}

#[test]
fn two_small_books_differ_where_they_were_made_to() {
    let dir = tempfile::tempdir().unwrap();
    let old_entries = book_from_lines(&[line("F5D6C3D3C4")]);
    let mut new_entries = book_from_lines(&[line("F5D6C3D3C4"), line("F5D6C4")]);
    // The position after F5D6C3 gets another value.
    let (after, _) = bookminer::kifu::parse_and_play("F5D6C3").unwrap();
    let after = bookminer::symmetry::normalize(&after).board;
    new_entries.iter_mut().find(|e| e.board == after).unwrap().value = bookminer::book::Score::new(5);
    let (old, new) = (dir.path().join("old.dat"), dir.path().join("new.dat"));
    fs::write(&old, encode(&old_entries, 1)).unwrap();
    fs::write(&new, encode(&new_entries, 1)).unwrap();
    let (summary, lines) = diff(&old, &new, dir.path(), &[]);
    let texts: Vec<String> = lines
        .iter()
        .map(|d| format!("{} {} {}", d["diff"], d["kifu"], d.get("links").or(d.get("value")).unwrap()))
        .collect();
    assert_eq!(
        texts,
        [
            // In the old book's file order: F5D6 gains the link C4 (book_from_lines
            // scores a position's links 0, 1, …), F5D6C3 has its new value; then the
            // new position.
            r#""changed" "F5D6" [["C4",null,1]]"#,
            r#""changed" "F5D6C3" [0,5]"#,
            r#""new" "F5D6C4" [null,0]"#,
        ]
    );
    assert_eq!((count(&summary, "changed"), count(&summary, "only in the new")), (2, 1));
    // The other way round, the new position is only in the old book.
    let (_, lines) = diff(&new, &old, dir.path(), &[]);
    assert_eq!(lines.iter().filter(|d| d["diff"] == "old").count(), 1);
    assert_eq!(lines.iter().find(|d| d["diff"] == "old").unwrap()["kifu"], "F5D6C4");
}

#[test]
fn diff_never_writes_over_a_book() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("diff.jsonl");
    fs::copy(sample(), &book).unwrap();
    let before = fs::read(&book).unwrap();
    let out = bin()
        .args(["diff", book.to_str().unwrap(), sample().to_str().unwrap(), "--out-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(fs::read(&book).unwrap(), before);
}

#[test]
fn a_board_no_walk_reaches_is_written_as_stored_with_no_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut old_entries = book_from_lines(&[line("F5D6C3")]);
    // A position the walk never reaches (after F5F6, not linked), stored
    // normalized, with the side to move as player.
    let (board, _) = bookminer::kifu::parse_and_play("F5F6").unwrap();
    let stored = bookminer::symmetry::normalize(&board).board;
    old_entries.push(bookminer::format::edax::entries::Entry::new(stored, 2));
    let mut new_entries = old_entries.clone();
    new_entries.last_mut().unwrap().level = 7;
    let (old, new) = (dir.path().join("old.dat"), dir.path().join("new.dat"));
    fs::write(&old, encode(&old_entries, 1)).unwrap();
    fs::write(&new, encode(&new_entries, 1)).unwrap();
    let (_, lines) = diff(&old, &new, dir.path(), &[]);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let d = &lines[0];
    let last = old_entries.len() as u64 - 1;
    assert_eq!((&d["diff"], &d["old"], &d["new"]), (&Value::from("changed"), &Value::from(last), &Value::from(last)));
    assert_eq!((&d["kifu"], &d["side"]), (&Value::Null, &Value::from("X")));
    assert_eq!(board_of(d), stored, "the stored board, its player as X");
    assert_eq!(d["level"], serde_json::json!([1, 7]));
}

/// `diff --exit-code` for scripts, as `git diff --exit-code` and `cmp`:
/// 1 when the books differ, 0 when they do not; without it, 0 either way.
#[test]
fn exit_code_says_whether_the_books_differ() {
    let dir = tempfile::tempdir().unwrap();
    let book = sample();
    let fixed = dir.path().join("fixed.dat");
    let receipt_dir = dir.path().join("fix");
    run(&["fix", book.to_str().unwrap(), fixed.to_str().unwrap(), "--out-dir", receipt_dir.to_str().unwrap()]);
    let status = |old: &Path, new: &Path, extra: &[&str]| {
        let out = bin()
            .args(["diff", "-q", old.to_str().unwrap(), new.to_str().unwrap(), "--out-dir"])
            .arg(dir.path().join("diff"))
            .args(extra)
            .output()
            .unwrap();
        assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
        out.status.code()
    };
    assert_eq!(status(&book, &fixed, &["--exit-code"]), Some(1));
    assert!(!lines_of(&dir.path().join("diff/diff.jsonl")).is_empty(), "the lines are written all the same");
    assert_eq!(status(&book, &book, &["--exit-code"]), Some(0));
    assert_eq!(status(&book, &fixed, &[]), Some(0), "without --exit-code, 0 whether or not they differ");
}

/// `diff -o -` (or `--stdout`) for scripts: the lines on standard output,
/// the same as the file holds, the summary on standard error; `-o FILE`
/// names the file instead of {out_dir}/diff.jsonl.
#[test]
fn dash_o_dash_writes_the_lines_on_standard_output_and_the_summary_on_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    let book = sample();
    let fixed = dir.path().join("fixed.dat");
    let receipt_dir = dir.path().join("fix");
    run(&["fix", book.to_str().unwrap(), fixed.to_str().unwrap(), "--out-dir", receipt_dir.to_str().unwrap()]);
    let (summary, lines) = diff(&book, &fixed, dir.path(), &[]);
    let file = fs::read_to_string(dir.path().join("diff/diff.jsonl")).unwrap();
    assert!(!lines.is_empty());
    for stdout in [&["-o", "-"][..], &["--stdout"]] {
        let out_dir = dir.path().join("none");
        let out = bin()
            .args(["diff", book.to_str().unwrap(), fixed.to_str().unwrap(), "--out-dir", out_dir.to_str().unwrap()])
            .args(stdout)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8(out.stdout).unwrap(), file, "{stdout:?}: the lines, and nothing else");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(count(&stderr, "changed"), count(&summary, "changed"), "{stderr}");
        assert!(stderr.contains("lines written       ") && stderr.contains(" to standard output"), "{stderr}");
        assert!(!out_dir.exists(), "no file written");
    }
    let named = dir.path().join("named.jsonl");
    run(&["diff", book.to_str().unwrap(), fixed.to_str().unwrap(), "-q", "-o", named.to_str().unwrap()]);
    assert_eq!(fs::read_to_string(&named).unwrap(), file);
    // -o over a book read is refused, as out_dir is.
    let copy = dir.path().join("copy.dat");
    fs::copy(&book, &copy).unwrap();
    let out = bin().arg("diff").args([&copy, &fixed]).arg("-o").arg(&copy).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(fs::read(&copy).unwrap(), fs::read(&book).unwrap());
}
