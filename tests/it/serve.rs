//! Issue 58: the book seen. `inspect --svg` draws a position with the
//! book's moves and scores on their squares, `stats --svg` charts the
//! counts `stats` prints, and `serve` answers the explorer's page and its
//! JSON over HTTP, errors for anything else, and keeps answering.

use crate::common::{self, bin, edax46};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::Duration;

/// The moves and scores `inspect` prints for F5F6E6F4 in edax46-l2-small
/// (docs/pictures.md): nine links, no leaf.
const F5F6E6F4: [(&str, i32); 9] =
    [("F3", 3), ("G7", -2), ("G5", -1), ("G3", -1), ("D3", -1), ("G6", 0), ("G4", 0), ("E3", 0), ("C3", 0)];

fn expected() -> BTreeSet<(String, i32)> {
    F5F6E6F4.iter().map(|&(m, s)| (m.to_string(), s)).collect()
}

/// Every `data-move="M" data-score="S"` pair of a document.
fn squares(svg: &str) -> BTreeSet<(String, i32)> {
    let mut found = BTreeSet::new();
    for (at, _) in svg.match_indices("data-move=\"") {
        let rest = &svg[at + "data-move=\"".len()..];
        let mv = &rest[..rest.find('"').unwrap()];
        let score = rest.split("data-score=\"").nth(1).unwrap();
        found.insert((mv.to_string(), score[..score.find('"').unwrap()].parse().unwrap()));
    }
    found
}

/// The moves and scores of inspect's own text report ("  C6 -> F3 +3").
fn printed(report: &str) -> BTreeSet<(String, i32)> {
    report
        .lines()
        .filter(|l| l.starts_with("  "))
        .filter_map(|l| l.trim().split_once(" -> "))
        .map(|(_, actual)| {
            let mut words = actual.split_whitespace();
            (words.next().unwrap().to_string(), words.next().unwrap().parse().unwrap())
        })
        .collect()
}

#[test]
fn a_picture_holds_the_moves_and_scores_inspect_prints() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("pos.svg");
    let out = bin().arg("inspect").arg(edax46()).arg("F5F6E6F4").arg("--svg").arg(&svg).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(squares(&picture), expected());
    assert_eq!(printed(&text), expected(), "the text report says the same");
    assert!(picture.starts_with("<svg") && picture.trim_end().ends_with("</svg>"));
    assert!(picture.contains("line: F5F6E6F4") && picture.contains("Black to move"));
    // F3, +3, is the best and the only one marked so.
    assert_eq!(picture.matches(" best\"").count(), 1);
    assert!(picture.contains(r#"<g class="book link best" data-move="F3" data-score="3""#));
    // The same position of the same book converted to Egaroucid's formats.
    for converted in ["books/egbk3/edax46-l2-small.egbk3", "books/egbk3/edax46-l2-small.egbk2"] {
        let out = bin().arg("inspect").arg(common::data(converted)).args(["F5F6E6F4", "--svg"]).arg(&svg).output();
        assert!(out.unwrap().status.success(), "{converted}");
        assert_eq!(squares(&std::fs::read_to_string(&svg).unwrap()), expected(), "{converted}");
    }
}

#[test]
fn a_picture_is_never_drawn_over_the_book_nor_the_positions_file() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("b.dat");
    std::fs::copy(edax46(), &book).unwrap();
    let before = std::fs::read(&book).unwrap();
    let out = bin().current_dir(dir.path()).args(["inspect", "b.dat", "F5F6", "--svg", "./b.dat"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("which this command reads"), "{}", common::stderr(&out));
    std::fs::write(dir.path().join("p.txt"), "F5F6\n").unwrap();
    let out =
        bin().current_dir(dir.path()).args(["inspect", "b.dat", "-f", "p.txt", "--svg", "p.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
    let out = bin().current_dir(dir.path()).args(["stats", "b.dat", "--html", "b.dat"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
    assert_eq!(std::fs::read(&book).unwrap(), before, "the book untouched");
    assert_eq!(std::fs::read_to_string(dir.path().join("p.txt")).unwrap(), "F5F6\n");
}

#[test]
fn mode_1_s_leaf_above_the_links_is_marked_on_its_square() {
    // Mining's own lines: each mode-1 line ends with a leaf above its
    // position's links; its picture marks that leaf's square with mode 1.
    let dir = tempfile::tempdir().unwrap();
    let out = bin().arg("mine").arg(edax46()).args(["--mode", "1", "--stdout", "-q"]).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let lines = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = lines.lines().map(|l| l.trim_start_matches('\u{feff}')).take(3).collect();
    assert_eq!(lines.len(), 3, "the book has mode-1 lines");
    let before: Vec<&str> = lines.iter().map(|l| &l[..l.len() - 2]).collect();
    let svg = dir.path().join("m.svg");
    let out = bin().arg("inspect").arg(edax46()).args(&before).arg("--svg").arg(&svg).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    for (i, line) in lines.iter().enumerate() {
        let picture = std::fs::read_to_string(dir.path().join(format!("m-{}.svg", i + 1))).unwrap();
        let leaf = &line[line.len() - 2..];
        let square = picture.split(&format!("data-move=\"{leaf}\"")).nth(1).expect("the leaf is drawn");
        let tag = &square[..square.find('>').unwrap()];
        assert!(tag.contains("data-kind=\"leaf\"") && tag.contains("data-modes=\"1"), "{line}: {tag}");
    }
    assert!(!dir.path().join("m.svg").exists(), "several positions: numbered names only");
}

#[test]
fn the_charts_hold_the_numbers_stats_prints() {
    let dir = tempfile::tempdir().unwrap();
    let (svg, html) = (dir.path().join("s.svg"), dir.path().join("s.html"));
    let out = bin()
        .arg("stats")
        .arg(edax46())
        .args(["-q", "--summary", "json", "--svg"])
        .arg(&svg)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let chart = std::fs::read_to_string(&svg).unwrap();
    for (key, field) in [
        ("empties", "by_empties"),
        ("value", "by_value"),
        ("level", "by_level"),
        ("links", "by_links"),
        ("gap", "by_leaf_gap"),
    ] {
        let part = chart.split(&format!("data-chart=\"{key}\"")).nth(1).unwrap();
        let part = &part[..part.find("</g>").unwrap()];
        let mut bars = Vec::new();
        for (at, _) in part.match_indices("data-key=\"") {
            let rest = &part[at + 10..];
            let k: i64 = rest[..rest.find('"').unwrap()].parse().unwrap();
            let rest = rest.split("data-count=\"").nth(1).unwrap();
            bars.push(serde_json::json!([k, rest[..rest.find('"').unwrap()].parse::<u64>().unwrap()]));
        }
        assert_eq!(serde_json::Value::Array(bars), json[field], "{key}");
    }
    assert!(chart.contains(&format!("data-positions=\"{}\"", json["positions"])));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains(chart.trim_end()));
}

/// A running `serve` and the address it printed.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(book: &std::path::Path) -> Server {
        let mut child = bin()
            .arg("serve")
            .arg(book)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let address = line.split("http://").nth(1).and_then(|a| a.split('/').next()).expect(&line).to_string();
        assert!(address.starts_with("127.0.0.1:"), "127.0.0.1 unless another is named: {line}");
        Server { child, address }
    }

    /// Sends `request` as it is on a connection of its own; the status
    /// and the body of the answer (status 0: the connection closed with
    /// no answer).
    fn send(&self, request: &[u8]) -> (u16, Vec<u8>) {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        // A stuck server fails the test instead of hanging it.
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        // The server may answer (414) and close before reading it all.
        let _ = stream.write_all(request);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let head_end = answer.windows(4).position(|w| w == b"\r\n\r\n").map_or(answer.len(), |p| p + 4);
        let status = std::str::from_utf8(&answer[..head_end.min(12)])
            .ok()
            .and_then(|h| h.strip_prefix("HTTP/1.1 ").or_else(|| h.strip_prefix("HTTP/1.0 ")))
            .and_then(|s| s.get(..3)?.parse().ok())
            .unwrap_or(0);
        (status, answer[head_end..].to_vec())
    }

    fn get(&self, path: &str) -> (u16, String) {
        let request = format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.address);
        let (status, body) = self.send(request.as_bytes());
        (status, String::from_utf8(body).unwrap())
    }

    /// Ctrl-C: the status and what it wrote to stderr.
    fn stop(mut self) -> (Option<i32>, String) {
        let pid = self.child.id().to_string();
        assert!(std::process::Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
        let status = self.child.wait().unwrap();
        let mut stderr = String::new();
        self.child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        (status.code(), stderr)
    }
}

impl Drop for Server {
    /// A test that fails before [`Server::stop`] leaves no server behind.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn the_explorer_answers_its_page_and_what_inspect_gives() {
    let server = Server::start(&edax46());
    let (status, page) = server.get("/line/F5F6E6F4");
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<!DOCTYPE html>") && !page.contains("/*VIEW*/null"), "the view is in the page");
    let (status, view) = server.get("/api/view?pos=F5F6E6F4");
    assert_eq!(status, 200, "{view}");
    let view: serde_json::Value = serde_json::from_str(&view).unwrap();
    assert_eq!(squares(view["svg"].as_str().unwrap()), expected());
    assert_eq!(view["next"]["F3"], "/line/F5F6E6F4F3");
    assert_eq!(view["line"], "F5F6E6F4");

    // The JSON endpoint is inspect --summary json's report, but for where it was asked.
    let (status, json) = server.get("/api/inspect/F5F6E6F4");
    assert_eq!(status, 200, "{json}");
    let mut served: serde_json::Value = serde_json::from_str(&json).unwrap();
    let out = bin().arg("inspect").arg(edax46()).args(["F5F6E6F4", "-q", "--summary", "json"]).output().unwrap();
    let mut printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for report in [&mut served["reports"][0], &mut printed["reports"][0]] {
        report.as_object_mut().unwrap().remove("origin");
    }
    assert_eq!(served["reports"], printed["reports"]);
    assert_eq!(served["failed"], 0);

    // A board pasted: the same position, no line.
    let (status, page) = server.get("/position/---------------------------OX------XXX--------------------------O");
    assert_eq!(status, 200, "{page}");
    let (status, view) =
        server.get("/api/view?pos=---------------------------OX------XXX--------------------------%20O");
    assert_eq!(status, 200, "{view}");
    let view: serde_json::Value = serde_json::from_str(&view).unwrap();
    assert_eq!(view["line"], serde_json::Value::Null);
    assert_eq!(view["inspect"]["in_book"], true);

    for (path, status, says) in [
        ("/line/F5F5", 400, "illegal"),
        ("/line/Z9", 400, "kifu"),
        ("/api/inspect/F5D6C3D3C4F4F6F3E6E7", 404, "\"in_book\":false"),
        ("/nosuch", 404, "no such page"),
        ("/../../etc/passwd", 404, "no such page"),
        ("/line/%zz", 400, "percent"),
    ] {
        let (got, body) = server.get(path);
        assert_eq!(got, status, "{path}: {body}");
        assert!(body.contains(says), "{path}: {body}");
    }
    let (got, _) = server.get(&format!("/line/{}", "F5".repeat(3000)));
    assert_eq!(got, 414);
    let (got, _) = server.send(b"POST /line/F5 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    assert_eq!(got, 405);
    let (status, stderr) = server.stop();
    assert_eq!(status, Some(0), "Ctrl-C stops it cleanly: {stderr}");
}

#[test]
fn a_thousand_malformed_requests_leave_it_answering() {
    let server = Server::start(&edax46());
    // xorshift64*, a fixed seed: the same requests every run.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let pieces: [&[u8]; 16] = [
        b"/line/",
        b"/position/",
        b"/api/inspect/",
        b"/api/view?pos=",
        b"F5",
        b"D6",
        b"Z9",
        b"%",
        b"%2",
        b"%ff",
        b"..",
        b"/",
        b"X",
        b"-",
        b"\xff\xfe",
        b"?&=",
    ];
    let mut answered = 0;
    for i in 0..1000 {
        let mut path = Vec::new();
        let length = (next() % 40) as usize + if i % 50 == 0 { 5000 } else { 0 };
        while path.len() < length {
            match next() % 3 {
                0 => path.push((next() % 256) as u8),
                _ => path.extend_from_slice(pieces[(next() % 16) as usize]),
            }
        }
        let method: &[u8] = [&b"GET"[..], b"POST", b"HEAD", b"DELETE", b"G\x00T"][(next() % 5) as usize];
        let mut request = method.to_vec();
        request.push(b' ');
        request.extend_from_slice(&path);
        request.extend_from_slice(b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let (status, _) = server.send(&request);
        assert!(status == 0 || (200..500).contains(&status), "request {i}: status {status}");
        // A request line of printable ASCII is always answered; the HTTP
        // library closes the connection on one that is not ASCII text.
        let printable = request.split(|&b| b == b'\r').next().unwrap().iter().all(|&b| (b' '..=b'~').contains(&b));
        let words = request.split(|&b| b == b'\r').next().unwrap().split(|&b| b == b' ').count();
        assert!(
            status != 0 || !printable || words != 3,
            "request {i} answered: {:?}",
            String::from_utf8_lossy(&request)
        );
        answered += usize::from(status != 0);
    }
    assert!(answered >= 200, "many requests get an answer: {answered}");
    let (status, view) = server.get("/api/view?pos=F5F6E6F4");
    assert_eq!(status, 200, "still answering");
    assert!(view.contains("\\\"F3\\\""), "{view}");
    let (status, stderr) = server.stop();
    assert_eq!(status, Some(0));
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_missing_book_is_refused_before_listening() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin().arg("serve").arg(dir.path().join("none.dat")).args(["--port", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "a file not read: {}", common::stderr(&out));
    assert!(common::stderr(&out).contains("none.dat"));
    assert!(out.stdout.is_empty(), "nothing served");
}
