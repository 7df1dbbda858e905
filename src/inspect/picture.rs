//! A position drawn as SVG (docs/pictures.md): the board and side to move,
//! and on each square the book knows a move for, its score as stored, the
//! links and the leaf told apart, the best marked, the mismatches the
//! rules report there marked with their modes; the line under the board.
//! Each such square carries `data-move` and `data-score` (stored, signed,
//! for the side to move), so that scripts can read the picture.

use super::mismatches::Mismatch;
use super::report::{Report, Turned};
use crate::board::{Move, Square};
use crate::position::Colour;
use std::fmt::{self, Write};

/// One square's side in pixels; the board is eight of them.
const CELL: u32 = 56;
/// Room for the coordinates left of and above the board.
const MARGIN: u32 = 28;
/// Where the text under the board starts, and each line's height.
const BELOW: u32 = MARGIN + 8 * CELL + 26;
const LINE_HEIGHT: u32 = 20;
/// Moves of the line written on one text line.
const MOVES_PER_ROW: usize = 30;

/// A report drawn, with the mismatches found at its position
/// ([`super::mismatches::at_position`]); its `Display` is the SVG document.
pub struct Picture<'a> {
    /// What inspect says of the position.
    pub report: &'a Report,
    /// The rules that fire there.
    pub mismatches: &'a [Mismatch],
}

/// A move the book knows at the position, as drawn.
struct Known {
    turned: Turned,
    leaf: bool,
    best: bool,
    modes: Vec<u8>,
}

impl Picture<'_> {
    /// The book's moves, links then the leaf, each with what marks it.
    fn known(&self) -> Vec<Known> {
        let Some(found) = &self.report.found else { return Vec::new() };
        let moves: Vec<(Turned, bool)> =
            found.links().map(|t| (t, false)).chain(found.leaf().map(|t| (t, true))).collect();
        let best = moves.iter().map(|(t, _)| t.stored.score).max();
        moves
            .into_iter()
            .map(|(turned, leaf)| {
                let mut modes: Vec<u8> = self
                    .mismatches
                    .iter()
                    .filter(|m| m.moves.contains(&turned.actual))
                    .map(|m| m.mode.number())
                    .collect();
                modes.sort_unstable();
                modes.dedup();
                Known { turned, leaf, best: Some(turned.stored.score) == best, modes }
            })
            .collect()
    }

    /// The text lines under the board.
    fn captions(&self, known: &[Known]) -> Vec<String> {
        let report = self.report;
        let side = match report.position.to_move {
            Some(Colour::Black) => "Black to move",
            Some(Colour::White) => "White to move",
            None => "X to move (colour not given)",
        };
        let mut lines = vec![match &report.found {
            Some(found) => format!(
                "{side} · {} empties · value {} · level {} · {} links{}",
                report.position.board.empties(),
                found.record.value(),
                found.record.level,
                found.record.n_links(),
                if found.record.leaf().is_some() { " and a leaf" } else { "" }
            ),
            None => format!("{side} · {} empties · not in the book", report.position.board.empties()),
        }];
        match &report.position.line {
            Some(line) if line.is_empty() => lines.push("line: (the initial position)".into()),
            Some(line) => {
                for (i, row) in line.chunks(MOVES_PER_ROW).enumerate() {
                    let moves: String = row.iter().map(|m| m.to_string()).collect();
                    lines.push(if i == 0 { format!("line: {moves}") } else { format!("      {moves}") });
                }
            }
            None => lines.push("line: not known (a board was given)".into()),
        }
        for pass in known.iter().filter(|k| k.turned.actual == Move::Pass) {
            lines.push(format!("pass: {}", pass.turned.stored.score));
        }
        lines.extend(self.mismatches.iter().map(|m| m.to_string()));
        lines
    }
}

impl fmt::Display for Picture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known = self.known();
        let captions = self.captions(&known);
        let width = MARGIN + 8 * CELL + MARGIN;
        let height = BELOW + LINE_HEIGHT * (captions.len() as u32 + 1) + 8;
        let mut svg = String::with_capacity(16 << 10);
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" class="bookminer-position">"#
        );
        let _ = writeln!(svg, "<title>{}</title>", escape(&self.report.text));
        let _ = writeln!(svg, r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##);
        self.board(&mut svg);
        for k in &known {
            square(&mut svg, k);
        }
        let (mut y, mut passes) = (BELOW, known.iter().filter(|k| k.turned.actual == Move::Pass));
        for caption in &captions {
            let pass = caption.starts_with("pass: ").then(|| passes.next()).flatten();
            match pass {
                Some(k) => {
                    let _ = writeln!(
                        svg,
                        r#"<text x="{MARGIN}" y="{y}" font-size="14" data-move="PS" data-score="{}">{}</text>"#,
                        k.turned.stored.score.discs(),
                        escape(caption)
                    );
                }
                // The line's moves in columns; the rest in the narrower type.
                None if caption.starts_with("line: ") || caption.starts_with("      ") => {
                    let _ = writeln!(
                        svg,
                        r#"<text x="{MARGIN}" y="{y}" font-size="14" font-family="DejaVu Sans Mono, monospace" xml:space="preserve">{}</text>"#,
                        escape(caption)
                    );
                }
                None => {
                    let _ = writeln!(svg, r#"<text x="{MARGIN}" y="{y}" font-size="13">{}</text>"#, escape(caption));
                }
            }
            y += LINE_HEIGHT;
        }
        legend(&mut svg, y);
        svg.push_str("</svg>\n");
        f.write_str(&svg)
    }
}

impl Picture<'_> {
    /// The board: squares, coordinates, discs, and a dot on each legal move
    /// the book knows nothing of (`data-legal`, for the explorer's clicks).
    fn board(&self, svg: &mut String) {
        let side = 8 * CELL;
        let _ = writeln!(
            svg,
            r##"<rect x="{MARGIN}" y="{MARGIN}" width="{side}" height="{side}" fill="#2e7d4f" stroke="#17402a" stroke-width="2"/>"##
        );
        for i in 1..8 {
            let at = MARGIN + i * CELL;
            let end = MARGIN + side;
            let _ = writeln!(
                svg,
                r##"<path d="M{at} {MARGIN}V{end}M{MARGIN} {at}H{end}" stroke="#17402a" stroke-width="1"/>"##
            );
        }
        for i in 0..8u32 {
            let centre = MARGIN + i * CELL + CELL / 2;
            let letter = char::from(b'A' + i as u8);
            let _ = writeln!(
                svg,
                r#"<text x="{centre}" y="{}" font-size="14" text-anchor="middle">{letter}</text>"#,
                MARGIN - 9
            );
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{}" font-size="14" text-anchor="middle">{}</text>"#,
                MARGIN / 2,
                centre + 5,
                i + 1
            );
        }
        let (black, white) = self.report.black_and_white();
        let legal = self.report.position.board.legal_moves();
        let known: u64 = self
            .report
            .found
            .iter()
            .flat_map(|found| found.links().chain(found.leaf()))
            .filter_map(|t| if let Move::Play(s) = t.actual { Some(s.bit()) } else { None })
            .fold(0, |a, b| a | b);
        for square in (0..64).filter_map(Square::new) {
            let (x, y) = corner(square);
            let (cx, cy) = (x + CELL / 2, y + CELL / 2);
            if black & square.bit() != 0 {
                let _ = writeln!(
                    svg,
                    r##"<circle cx="{cx}" cy="{cy}" r="23" fill="#111111" class="disc black" data-disc="{square}"/>"##
                );
            } else if white & square.bit() != 0 {
                let _ = writeln!(
                    svg,
                    r##"<circle cx="{cx}" cy="{cy}" r="23" fill="#f5f5f5" stroke="#333333" class="disc white" data-disc="{square}"/>"##
                );
            } else if legal & square.bit() != 0 && known & square.bit() == 0 {
                let _ = writeln!(
                    svg,
                    r##"<g class="legal" data-legal="{square}"><rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="#000000" fill-opacity="0"/><circle cx="{cx}" cy="{cy}" r="5" fill="#0b2616" fill-opacity="0.6"/></g>"##
                );
            }
        }
    }
}

/// A move the book knows: its square filled (links gold, the leaf blue),
/// the best ringed in red, its score written, the modes that report it
/// in a badge.
fn square(svg: &mut String, k: &Known) {
    let Move::Play(square) = k.turned.actual else { return };
    let (x, y) = corner(square);
    let kind = if k.leaf { "leaf" } else { "link" };
    let best = if k.best { " best" } else { "" };
    let modes: Vec<String> = k.modes.iter().map(u8::to_string).collect();
    let score = k.turned.stored.score;
    let _ = write!(
        svg,
        r#"<g class="book {kind}{best}" data-move="{square}" data-score="{}" data-kind="{kind}""#,
        score.discs()
    );
    if !modes.is_empty() {
        let _ = write!(svg, r#" data-modes="{}""#, modes.join(" "));
    }
    svg.push_str(">\n");
    let fill = if k.leaf { "#9cc8ee" } else { "#f2d46b" };
    let (stroke, stroke_width) = if k.best { ("#d32f2f", 4) } else { ("#5d4a0b", 1) };
    let _ = writeln!(
        svg,
        r#"<rect x="{}" y="{}" width="{}" height="{}" rx="6" fill="{fill}" stroke="{stroke}" stroke-width="{stroke_width}"/>"#,
        x + 4,
        y + 4,
        CELL - 8,
        CELL - 8
    );
    let weight = if k.best { "bold" } else { "normal" };
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" font-size="19" font-weight="{weight}" text-anchor="middle">{score}</text>"#,
        x + CELL / 2,
        y + CELL / 2 + 7
    );
    if k.leaf {
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" font-size="10" text-anchor="middle">leaf</text>"#,
            x + CELL / 2,
            y + 15
        );
    }
    if !modes.is_empty() {
        let _ = writeln!(
            svg,
            r##"<circle cx="{}" cy="{}" r="9" fill="#c62828"/><text x="{}" y="{}" font-size="10" font-weight="bold" fill="#ffffff" text-anchor="middle">{}</text>"##,
            x + CELL - 10,
            y + CELL - 10,
            x + CELL - 10,
            y + CELL - 6,
            modes.join("")
        );
    }
    svg.push_str("</g>\n");
}

/// What the marks mean, on the last line.
fn legend(svg: &mut String, y: u32) {
    let items: [(&str, &str, &str); 4] = [
        ("#f2d46b", "#5d4a0b", "link"),
        ("#9cc8ee", "#5d4a0b", "leaf"),
        ("#ffffff", "#d32f2f", "best"),
        ("#c62828", "#c62828", "mismatch (its modes)"),
    ];
    let mut x = MARGIN;
    for (fill, stroke, label) in items {
        let _ = writeln!(
            svg,
            r#"<rect x="{x}" y="{}" width="14" height="14" rx="3" fill="{fill}" stroke="{stroke}" stroke-width="2"/><text x="{}" y="{y}" font-size="12">{label}</text>"#,
            y - 12,
            x + 19
        );
        x += 24 + 7 * label.len() as u32 + 16;
    }
}

/// The top left corner of a square.
fn corner(square: Square) -> (u32, u32) {
    (MARGIN + u32::from(square.column()) * CELL, MARGIN + u32::from(square.row()) * CELL)
}

/// Text made safe inside an element or an attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
