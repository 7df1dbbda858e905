//! Issue 64 point 13 and issue 62 point 4: what the pictures say. A
//! position's picture (`inspect --svg`, the explorer's board) counts each
//! side's discs, marks the line's last move, shades each score by how far
//! it falls below the best, says whose scores they are, rings the best and
//! badges a mismatch in colours far apart, and writes each move's accuracy
//! grade on its square; `stats --svg` lays its keys on a numeric axis and
//! its counts on a logarithmic one. Each document is parsed as XML here
//! (a reader of this file's own, below), and read by its elements and
//! attributes, never compared as text.

use crate::common::{bin, edax46, position};
use bookminer::board::{Board, Move, Square};
use bookminer::charts::Charts;
use bookminer::format::egaroucid::{encode_record, header};
use bookminer::stats::BookStats;
use bookminer::symmetry::normalize;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

/// An element of an XML document: its name, attributes, text and children.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attrs: BTreeMap<String, String>,
    text: String,
    children: Vec<Element>,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.get(name).map(String::as_str)
    }

    fn has_class(&self, class: &str) -> bool {
        self.attr("class").is_some_and(|c| c.split_whitespace().any(|w| w == class))
    }

    /// This element and every one inside it, in document order.
    fn all(&self) -> Vec<&Element> {
        let mut out = vec![self];
        for child in &self.children {
            out.extend(child.all());
        }
        out
    }

    /// The elements carrying `class`, in document order.
    fn with_class(&self, class: &str) -> Vec<&Element> {
        self.all().into_iter().filter(|e| e.has_class(class)).collect()
    }

    /// A number attribute.
    fn num(&self, name: &str) -> f64 {
        let text = self.attr(name).unwrap_or_else(|| panic!("<{}> has no {name}: {:?}", self.name, self.attrs));
        text.parse().unwrap_or_else(|_| panic!("{name}={text:?} is not a number"))
    }

    /// The text of this element and of those inside it.
    fn all_text(&self) -> String {
        self.all().iter().map(|e| e.text.as_str()).collect()
    }
}

/// Reads an XML document (the subset SVG uses: elements, attributes in
/// either quote, text, the five entities, comments and declarations
/// skipped); an unclosed or mismatched tag fails the test.
fn parse(xml: &str) -> Element {
    let mut stack = vec![Element::default()];
    let mut rest = xml;
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            stack.last_mut().unwrap().text.push_str(&unescape(rest));
            break;
        };
        stack.last_mut().unwrap().text.push_str(&unescape(&rest[..open]));
        rest = &rest[open..];
        let skip = [("<!--", "-->"), ("<?", "?>"), ("<!", ">")].into_iter().find(|(s, _)| rest.starts_with(s));
        if let Some((_, end)) = skip {
            rest = &rest[rest.find(end).expect("a declaration ends") + end.len()..];
            continue;
        }
        let close = tag_end(rest);
        let tag = &rest[1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let done = stack.pop().unwrap();
            assert_eq!(done.name, name.trim(), "a closing tag matches its opening one");
            stack.last_mut().expect("a closing tag closes an open one").children.push(done);
            continue;
        }
        let empty = tag.ends_with('/');
        let element = start_tag(tag.trim_end_matches('/'));
        if empty {
            stack.last_mut().unwrap().children.push(element);
        } else {
            stack.push(element);
        }
    }
    assert_eq!(stack.len(), 1, "every element is closed");
    let mut root = stack.pop().unwrap();
    assert_eq!(root.children.len(), 1, "one root element");
    root.children.pop().unwrap()
}

/// Where the tag that starts `text` ends (a `>` outside quotes).
fn tag_end(text: &str) -> usize {
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return i,
            _ => {}
        }
    }
    panic!("a tag is not closed: {}", &text[..text.len().min(80)])
}

/// An element's name and attributes from its start tag's inside.
fn start_tag(tag: &str) -> Element {
    let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
    let mut element = Element { name: tag[..name_end].to_string(), ..Element::default() };
    let mut rest = tag[name_end..].trim_start();
    while !rest.is_empty() {
        let eq = rest.find('=').unwrap_or_else(|| panic!("an attribute without a value in <{tag}>"));
        let name = rest[..eq].trim().to_string();
        let value = rest[eq + 1..].trim_start();
        let quote = value.chars().next().expect("a quoted value");
        assert!(quote == '"' || quote == '\'', "an unquoted value in <{tag}>");
        let end = value[1..].find(quote).expect("a closed quote") + 1;
        let previous = element.attrs.insert(name.clone(), unescape(&value[1..end]));
        assert!(previous.is_none(), "{name} given twice in <{tag}>");
        rest = value[end + 1..].trim_start();
    }
    element
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// The picture `inspect --svg` draws of `position` in `book`, as text.
fn picture(book: &Path, position: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("p.svg");
    let mut command = bin();
    command.args(["--config", "/dev/null", "inspect"]).arg(book).arg(position).arg("--svg").arg(&svg).arg("-q");
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    std::fs::read_to_string(&svg).unwrap()
}

/// The squares the book knows a move for: the `data-move` groups.
fn squares(svg: &Element) -> Vec<&Element> {
    svg.all().into_iter().filter(|e| e.name == "g" && e.attr("data-move").is_some()).collect()
}

/// A colour `#rrggbb` as its three channels.
fn rgb(colour: &str) -> [i32; 3] {
    let hex = colour.strip_prefix('#').unwrap_or_else(|| panic!("{colour} is not #rrggbb"));
    assert_eq!(hex.len(), 6, "{colour}");
    [0, 2, 4].map(|i| i32::from_str_radix(&hex[i..i + 2], 16).unwrap())
}

/// How far apart two colours are: the largest difference of a channel.
fn apart(a: &str, b: &str) -> i32 {
    let (a, b) = (rgb(a), rgb(b));
    (0..3).map(|i| (a[i] - b[i]).abs()).max().unwrap()
}

#[test]
fn a_picture_counts_each_side_s_discs_and_marks_the_last_move() {
    // Black and white counted from inspect's own grid, independently of the picture.
    let out = bin().args(["--config", "/dev/null", "inspect"]).arg(edax46()).arg("F5F6E6F4").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let grid: String = text.lines().skip(2).take(8).flat_map(|l| l.chars().skip(1)).collect();
    let (x, o) = (grid.matches('X').count(), grid.matches('O').count());
    assert_eq!((x, o), (3, 5), "{text}");
    let svg = parse(&picture(&edax46(), "F5F6E6F4"));
    let counts = svg.with_class("counts");
    assert_eq!(counts.len(), 1);
    assert_eq!((counts[0].num("data-black"), counts[0].num("data-white")), (x as f64, o as f64));
    assert!(counts[0].all_text().contains("Black 3") && counts[0].all_text().contains("White 5"));
    // The last move's mark lies on F4's disc, at its centre.
    let marks = svg.with_class("last-move");
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].attr("data-last-move"), Some("F4"));
    let disc = svg.all().into_iter().find(|e| e.attr("data-disc") == Some("F4")).expect("F4's disc");
    assert_eq!((marks[0].num("cx"), marks[0].num("cy")), (disc.num("cx"), disc.num("cy")));
    // A board given as OBF has no line, so no last move.
    let obf = "---------------------------OX------XO---------------------------X";
    assert!(parse(&picture(&edax46(), obf)).with_class("last-move").is_empty());
}

#[test]
fn the_picture_says_whose_the_scores_are() {
    for (line, side) in [("F5F6E6F4", "Black"), ("F5F6E6", "White")] {
        let svg = parse(&picture(&edax46(), line));
        let said = svg.with_class("scores-side");
        assert_eq!(said.len(), 1, "{line}");
        assert!(said[0].all_text().contains(&format!("scores for {side}")), "{line}: {}", said[0].all_text());
    }
}

#[test]
fn scores_fade_the_further_they_fall_below_the_best() {
    let svg = parse(&picture(&edax46(), "F5F6E6F4"));
    let moves = squares(&svg);
    assert_eq!(moves.len(), 9);
    let best = moves.iter().map(|g| g.num("data-score")).fold(f64::MIN, f64::max);
    // (discs below the best, the square's fill opacity), by the first.
    let mut shades: Vec<(f64, f64)> = moves
        .iter()
        .map(|g| {
            assert_eq!(g.num("data-gap"), best - g.num("data-score"), "{:?}", g.attrs);
            let rect = g.children.iter().find(|c| c.name == "rect").expect("the square's fill");
            (best - g.num("data-score"), rect.num("fill-opacity"))
        })
        .collect();
    shades.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(shades[0], (0.0, 1.0), "the best is filled whole");
    for pair in shades.windows(2) {
        let ((gap_a, a), (gap_b, b)) = (pair[0], pair[1]);
        assert!(a >= b, "a worse move is no stronger: {shades:?}");
        assert!(gap_a == gap_b || a > b, "a worse move is fainter: {shades:?}");
    }
    assert!(shades.last().unwrap().1 < 0.8, "3 discs below the best visibly fainter: {shades:?}");
}

#[test]
fn the_best_ring_the_mismatch_badge_and_the_last_move_differ_in_colour() {
    // A mode-1 line of mining's, less its leaf: the leaf above the links is
    // both the best and badged, and the line's last move is marked.
    let out = bin().arg("mine").arg(edax46()).args(["--mode", "1", "--stdout", "-q"]).output().unwrap();
    let lines = String::from_utf8(out.stdout).unwrap();
    let line = lines.lines().next().expect("the book has mode-1 lines").trim_start_matches('\u{feff}');
    let svg = parse(&picture(&edax46(), &line[..line.len() - 2]));
    let best = svg.with_class("best");
    assert!(!best.is_empty());
    let ring = best[0].children.iter().find(|c| c.name == "rect").unwrap().attr("stroke").unwrap().to_string();
    let badge = svg.with_class("mismatch");
    assert!(!badge.is_empty(), "the leaf is badged");
    let badge = badge[0].attr("fill").unwrap();
    let last = svg.with_class("last-move")[0].attr("fill").unwrap();
    for (a, b) in [(ring.as_str(), badge), (ring.as_str(), last), (badge, last)] {
        assert!(apart(a, b) >= 100, "{a} and {b} are too alike");
    }
}

/// A two-move `.egbk3` book: a position with 19 empty squares (level 60)
/// and the children of its first two legal moves, at levels 60 and 1 (no
/// links or leaf of their own); its path and the position's line.
fn graded_book(dir: &Path) -> (std::path::PathBuf, String, [Square; 2]) {
    let (root, line) = position(19, 0x1234_5678_9abc_def1);
    let moves: Vec<Square> = Square::iter(root.legal_moves()).take(2).collect();
    let mut bytes = header(3).to_vec();
    encode_record(&mut bytes, &normalize(&root).board, 0, 60, 0, None);
    for (square, level) in moves.iter().zip([60, 1]) {
        let child: Board = root.after(Move::Play(*square)).unwrap();
        encode_record(&mut bytes, &normalize(&child).board, 0, level, 0, None);
    }
    let path = dir.join("graded.egbk3");
    std::fs::write(&path, bytes).unwrap();
    (path, line, [moves[0], moves[1]])
}

/// Each square's `data-accuracy`, and the grade written on it.
fn grades_drawn(svg: &Element) -> BTreeMap<String, (String, String)> {
    squares(svg)
        .into_iter()
        .map(|g| {
            let written = g.with_class("accuracy").first().map(|t| t.all_text()).unwrap_or_default();
            (g.attr("data-move").unwrap().to_string(), (g.attr("data-accuracy").unwrap_or("").to_string(), written))
        })
        .collect()
}

#[test]
fn each_square_shows_its_move_s_accuracy_grade() {
    // As Egaroucid grades them (tests/it/accuracy.rs): a child solved at
    // level 60 is AA, one searched at level 1 with 18 empty squares F.
    let dir = tempfile::tempdir().unwrap();
    let (book, line, [solved, shallow]) = graded_book(dir.path());
    let drawn = grades_drawn(&parse(&picture(&book, &line)));
    let grade = |g: &str| (g.to_string(), g.to_string());
    let expected = BTreeMap::from([(solved.to_string(), grade("AA")), (shallow.to_string(), grade("F"))]);
    assert_eq!(drawn, expected);
    // The explorer draws the same, on its page and in /api/view.
    let served = Served::start(&book);
    let view: serde_json::Value = serde_json::from_str(&served.get(&format!("/api/view?pos={line}"))).unwrap();
    assert_eq!(grades_drawn(&parse(view["svg"].as_str().unwrap())), expected);
    let page = served.get(&format!("/line/{line}"));
    let first = page.split("const first = ").nth(1).and_then(|p| p.split(";\n").next()).expect("the first view");
    let first: serde_json::Value = serde_json::from_str(&first.replace("<\\/", "</")).unwrap();
    assert_eq!(grades_drawn(&parse(first["svg"].as_str().unwrap())), expected);
}

/// `bookminer serve` on a free port, ended when dropped.
struct Served {
    child: std::process::Child,
    address: String,
}

impl Served {
    fn start(book: &Path) -> Served {
        let mut child = bin()
            .args(["--config", "/dev/null", "serve"])
            .arg(book)
            .args(["--port", "0"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut said = String::new();
        BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut said).unwrap();
        let address = said.split("http://").nth(1).and_then(|a| a.split('/').next()).expect(&said).to_string();
        Served { child, address }
    }

    /// The body of a GET answered 200.
    fn get(&self, path: &str) -> String {
        let mut stream = std::net::TcpStream::connect(&self.address).unwrap();
        write!(stream, "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.address).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
        body.to_string()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Counts with keys far apart and counts of 1 beside 158,061.
fn spread() -> BookStats {
    BookStats {
        positions: 158_075,
        by_empties: vec![0; 61],
        by_value: BTreeMap::from([(-64, 1), (-4, 158_061), (-3, 10), (5, 3)]),
        by_level: BTreeMap::from([(21, 158_075)]),
        by_links: BTreeMap::from([(0, 158_075)]),
        by_leaf_gap: BTreeMap::from([(-2, 1)]),
        ..BookStats::default()
    }
}

/// The bars of the chart `key`: (key, count, x, height).
fn chart_bars(svg: &Element, key: &str) -> Vec<(i64, u64, f64, f64)> {
    let chart = svg.all().into_iter().find(|e| e.attr("data-chart") == Some(key)).expect("the chart");
    let parse_num = |e: &Element, a: &str| e.attr(a).unwrap().parse::<i64>().unwrap();
    chart
        .all()
        .into_iter()
        .filter(|e| e.name == "rect" && e.attr("data-key").is_some())
        .map(|e| (parse_num(e, "data-key"), parse_num(e, "data-count") as u64, e.num("x"), e.num("height")))
        .collect()
}

#[test]
fn the_value_axis_is_numeric() {
    let svg = parse(&Charts { name: "spread", stats: &spread() }.to_string());
    let bars = chart_bars(&svg, "value");
    assert_eq!(bars.iter().map(|b| b.0).collect::<Vec<_>>(), [-64, -4, -3, 5]);
    // Each bar where its number falls: x = a + b * key, to the pixel.
    let (first, last) = (bars[0], bars[3]);
    let per_key = (last.2 - first.2) / (last.0 - first.0) as f64;
    assert!(per_key >= 3.0, "keys spread over the width: {per_key} px a key");
    for &(key, _, x, _) in &bars {
        let expected = first.2 + per_key * (key - first.0) as f64;
        assert!((x - expected).abs() <= 1.0, "value {key} at {x}, {expected} proportionally: {bars:?}");
    }
    assert!((bars[1].2 - bars[0].2) >= 50.0 * (bars[2].2 - bars[1].2), "-64 far from -4, -3 beside it");
}

#[test]
fn counts_are_on_a_log_scale_so_one_shows_beside_158061() {
    let svg = parse(&Charts { name: "spread", stats: &spread() }.to_string());
    let bars = chart_bars(&svg, "value");
    let tallest = bars.iter().map(|b| b.3).fold(0.0, f64::max);
    let decades = |n: u64| (n as f64).log10() + 1.0;
    for &(key, count, _, h) in &bars {
        let expected = tallest * decades(count) / decades(158_061);
        assert!((h - expected).abs() <= 1.0, "value {key}: {count} drawn {h} px, {expected} on the log scale");
    }
    let one = bars.iter().find(|b| b.1 == 1).unwrap().3;
    assert!(one >= 10.0, "a count of 1 is {one} px high beside {tallest}");
    // The ticks of the count axis: 1, 10, ..., 100000, evenly apart.
    let chart = svg.all().into_iter().find(|e| e.attr("data-chart") == Some("value")).unwrap();
    let ticks: Vec<(f64, f64)> = chart
        .all()
        .into_iter()
        .filter(|e| e.attr("data-tick").is_some())
        .map(|e| (e.num("data-tick"), e.num("y")))
        .collect();
    assert_eq!(ticks.iter().map(|t| t.0).collect::<Vec<_>>(), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5]);
    let steps: Vec<f64> = ticks.windows(2).map(|w| w[0].1 - w[1].1).collect();
    assert!(steps.iter().all(|s| (s - steps[0]).abs() <= 1.0 && *s > 0.0), "{ticks:?}");
    // The axes say so.
    let labels: BTreeMap<&str, String> =
        chart.with_class("axis-label").into_iter().map(|e| (e.attr("data-axis").unwrap(), e.all_text())).collect();
    assert!(labels["count"].contains("log scale"), "{labels:?}");
    assert!(labels["key"].contains("value"), "{labels:?}");
}

#[test]
fn the_pictures_are_the_same_bytes_each_time() {
    assert_eq!(picture(&edax46(), "F5F6E6F4"), picture(&edax46(), "F5F6E6F4"));
    let stats = spread();
    assert_eq!(Charts { name: "a", stats: &stats }.to_string(), Charts { name: "a", stats: &stats }.to_string());
}
