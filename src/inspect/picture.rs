//! A position drawn as SVG (docs/pictures.md): the board and side to move,
//! each side's discs counted, the last move of the line marked, and on each
//! square the book knows a move for, its score as stored (shaded by how far
//! it falls from the best), its accuracy grade, the links and the leaf told
//! apart, the best ringed, the mismatches the rules report there badged
//! with their modes; the line under the board. Each such square carries
//! `data-move` and `data-score` (stored, signed, for the side to move), so
//! that scripts can read the picture.

use super::mismatches::Mismatch;
use super::report::{Report, Turned};
use crate::accuracy::Grade;
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

/// The best move's ring, the mismatch badge and the last move's mark: three
/// hues far apart (purple, red, orange), so that none reads as another.
pub const BEST_RING: &str = "#7b1fa2";
/// The badge on a square a mismatch rule is about.
pub const MISMATCH_BADGE: &str = "#c62828";
/// The dot on the disc the line's last move placed.
pub const LAST_MOVE: &str = "#ff9100";
/// How many discs below the best a move's square fades over: the best is
/// filled whole, a move this far below it or further at [`FAINTEST`].
const FADE_DISCS: i32 = 8;
/// The fill opacity of the faintest square, in hundredths.
const FAINTEST: i32 = 25;

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
    /// The best score minus this one, in discs: 0 for the best.
    gap: i32,
    /// Egaroucid's accuracy grade of the position the link leads to.
    grade: Option<Grade>,
    modes: Vec<u8>,
}

impl Picture<'_> {
    /// The book's moves, links then the leaf, each with what marks it.
    fn known(&self) -> Vec<Known> {
        let Some(found) = &self.report.found else { return Vec::new() };
        let graded = found.grades.iter().copied().chain(std::iter::repeat(None));
        let moves: Vec<(Turned, bool, Option<Grade>)> = found
            .links()
            .zip(graded)
            .map(|(t, g)| (t, false, g))
            .chain(found.leaf().map(|t| (t, true, None)))
            .collect();
        let best = moves.iter().map(|(t, ..)| t.stored.score.discs()).max().unwrap_or(0);
        moves
            .into_iter()
            .map(|(turned, leaf, grade)| {
                let mut modes: Vec<u8> = self
                    .mismatches
                    .iter()
                    .filter(|m| m.moves.contains(&turned.actual))
                    .map(|m| m.mode.number())
                    .collect();
                modes.sort_unstable();
                modes.dedup();
                Known { turned, leaf, gap: best - turned.stored.score.discs(), grade, modes }
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
        if !known.is_empty() {
            let whose = match report.position.to_move {
                Some(Colour::Black) => "Black (to move)",
                Some(Colour::White) => "White (to move)",
                None => "X, the side to move",
            };
            lines.push(format!("scores for {whose}; fainter further below the best"));
        }
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
        let legend = legend_rows(width);
        let height = BELOW + LINE_HEIGHT * (captions.len() + 1 + legend.len()) as u32 + 8;
        let mut svg = String::with_capacity(16 << 10);
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" class="bookminer-position">"#
        );
        let _ = writeln!(svg, "<title>{}</title>", escape(&self.report.text));
        let _ = writeln!(svg, r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##);
        self.board(&mut svg);
        self.last_move(&mut svg);
        for k in &known {
            square(&mut svg, k);
        }
        self.counts(&mut svg);
        let mut y = BELOW + LINE_HEIGHT;
        let mut passes = known.iter().filter(|k| k.turned.actual == Move::Pass);
        for caption in &captions {
            let pass = caption.starts_with("pass: ").then(|| passes.next()).flatten();
            caption_text(&mut svg, caption, pass, y);
            y += LINE_HEIGHT;
        }
        for row in &legend {
            legend_row(&mut svg, row, y);
            y += LINE_HEIGHT;
        }
        svg.push_str("</svg>\n");
        f.write_str(&svg)
    }
}

/// One text line under the board: a stored pass carries its move and
/// score, the line's moves are set in columns, the rest in the narrower type.
fn caption_text(svg: &mut String, caption: &str, pass: Option<&Known>, y: u32) {
    let _ = match pass {
        Some(k) => writeln!(
            svg,
            r#"<text x="{MARGIN}" y="{y}" font-size="14" data-move="PS" data-score="{}">{}</text>"#,
            k.turned.stored.score.discs(),
            escape(caption)
        ),
        None if caption.starts_with("line: ") || caption.starts_with("      ") => writeln!(
            svg,
            r#"<text x="{MARGIN}" y="{y}" font-size="14" font-family="DejaVu Sans Mono, monospace" xml:space="preserve">{}</text>"#,
            escape(caption)
        ),
        None if caption.starts_with("scores for ") => {
            writeln!(svg, r#"<text x="{MARGIN}" y="{y}" font-size="13" class="scores-side">{}</text>"#, escape(caption))
        }
        None => writeln!(svg, r#"<text x="{MARGIN}" y="{y}" font-size="13">{}</text>"#, escape(caption)),
    };
}

impl Picture<'_> {
    /// Each side's discs, counted, on the first line under the board:
    /// `data-black` and `data-white` (X's and O's when the colour is not
    /// given) carry the numbers.
    fn counts(&self, svg: &mut String) {
        let (black, white) = self.report.black_and_white();
        let (b, w) = (black.count_ones(), white.count_ones());
        let (dark, light) = match self.report.position.to_move {
            None => ("X", "O"),
            Some(_) => ("Black", "White"),
        };
        let y = BELOW;
        let _ = writeln!(
            svg,
            r##"<g class="counts" data-black="{b}" data-white="{w}"><circle cx="{}" cy="{}" r="7" fill="#111111"/><text x="{}" y="{y}" font-size="14" font-weight="bold">{dark} {b}</text><circle cx="{}" cy="{}" r="7" fill="#f5f5f5" stroke="#333333"/><text x="{}" y="{y}" font-size="14" font-weight="bold">{light} {w}</text></g>"##,
            MARGIN + 7,
            y - 5,
            MARGIN + 20,
            MARGIN + 127,
            y - 5,
            MARGIN + 140
        );
    }

    /// A dot on the disc the line's last move placed (`data-last-move`),
    /// when the line is known and has one.
    fn last_move(&self, svg: &mut String) {
        let line = self.report.position.line.as_deref().unwrap_or_default();
        let Some(square) = line.iter().rev().find_map(|m| if let Move::Play(s) = m { Some(*s) } else { None }) else {
            return;
        };
        let (x, y) = corner(square);
        let _ = writeln!(
            svg,
            r##"<circle cx="{}" cy="{}" r="7" fill="{LAST_MOVE}" stroke="#000000" stroke-width="1" class="last-move" data-last-move="{square}"/>"##,
            x + CELL / 2,
            y + CELL / 2
        );
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
/// fainter the further its score falls below the best; the best ringed;
/// its score written, its accuracy grade under it, the modes that report
/// it in a badge.
fn square(svg: &mut String, k: &Known) {
    let Move::Play(square) = k.turned.actual else { return };
    let (x, y) = corner(square);
    let kind = if k.leaf { "leaf" } else { "link" };
    let best = k.gap == 0;
    let modes: Vec<String> = k.modes.iter().map(u8::to_string).collect();
    let score = k.turned.stored.score;
    let _ = write!(
        svg,
        r#"<g class="book {kind}{}" data-move="{square}" data-score="{}" data-kind="{kind}" data-gap="{}""#,
        if best { " best" } else { "" },
        score.discs(),
        k.gap
    );
    if let Some(grade) = k.grade {
        let _ = write!(svg, r#" data-accuracy="{}""#, grade.name());
    }
    if !modes.is_empty() {
        let _ = write!(svg, r#" data-modes="{}""#, modes.join(" "));
    }
    svg.push_str(">\n");
    let fill = if k.leaf { "#9cc8ee" } else { "#f2d46b" };
    let (stroke, stroke_width) = if best { (BEST_RING, 4) } else { ("#5d4a0b", 1) };
    let _ = writeln!(
        svg,
        r#"<rect x="{}" y="{}" width="{}" height="{}" rx="6" fill="{fill}" fill-opacity="{}" stroke="{stroke}" stroke-width="{stroke_width}"/>"#,
        x + 4,
        y + 4,
        CELL - 8,
        CELL - 8,
        opacity(k.gap)
    );
    let weight = if best { "bold" } else { "normal" };
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" font-size="19" font-weight="{weight}" text-anchor="middle" class="score">{score}</text>"#,
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
    if let Some(grade) = k.grade {
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" font-size="10" class="accuracy">{}</text>"#,
            x + 8,
            y + CELL - 8,
            grade.name()
        );
    }
    if !modes.is_empty() {
        let _ = writeln!(
            svg,
            r##"<circle cx="{}" cy="{}" r="9" fill="{MISMATCH_BADGE}" class="mismatch"/><text x="{}" y="{}" font-size="10" font-weight="bold" fill="#ffffff" text-anchor="middle">{}</text>"##,
            x + CELL - 10,
            y + CELL - 10,
            x + CELL - 10,
            y + CELL - 6,
            modes.join("")
        );
    }
    svg.push_str("</g>\n");
}

/// The fill opacity of a square `gap` discs below the best: 1 for the
/// best, down in equal steps to [`FAINTEST`] hundredths at [`FADE_DISCS`]
/// and beyond; integer arithmetic, so the same bytes every time.
fn opacity(gap: i32) -> String {
    let hundredths = 100 - (100 - FAINTEST) * gap.clamp(0, FADE_DISCS) / FADE_DISCS;
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

/// How a legend's mark is drawn: a square's fill, a dot, or letters.
#[derive(Clone, Copy)]
enum Shape {
    Square,
    Dot,
    Letters(&'static str),
}

/// A legend's mark: its fill, its stroke, its words, its shape.
type Mark = (&'static str, &'static str, &'static str, Shape);

/// What the marks mean, in as many rows as the width takes.
fn legend_rows(width: u32) -> Vec<Vec<Mark>> {
    let items: [Mark; 6] = [
        ("#f2d46b", "#5d4a0b", "link", Shape::Square),
        ("#9cc8ee", "#5d4a0b", "leaf", Shape::Square),
        ("#f2d46b", BEST_RING, "best", Shape::Square),
        (MISMATCH_BADGE, MISMATCH_BADGE, "mismatch (its modes)", Shape::Dot),
        (LAST_MOVE, "#000000", "last move", Shape::Dot),
        ("#000000", "none", "accuracy grade", Shape::Letters("AF")),
    ];
    let mut rows: Vec<Vec<Mark>> = vec![Vec::new()];
    let mut x = MARGIN;
    for item in items {
        let step = legend_step(item.2);
        if x + step > width && rows.last().is_some_and(|r| !r.is_empty()) {
            rows.push(Vec::new());
            x = MARGIN;
        }
        x += step;
        rows.last_mut().expect("a row").push(item);
    }
    rows
}

/// The room one legend item takes: its mark, its words, a gap.
fn legend_step(label: &str) -> u32 {
    24 + 7 * label.len() as u32 + 16
}

/// One row of the legend at `y`.
fn legend_row(svg: &mut String, row: &[Mark], y: u32) {
    let mut x = MARGIN;
    for &(fill, stroke, label, shape) in row {
        let _ = match shape {
            Shape::Dot => write!(
                svg,
                r#"<circle cx="{}" cy="{}" r="7" fill="{fill}" stroke="{stroke}" stroke-width="1"/>"#,
                x + 7,
                y - 5
            ),
            Shape::Letters(letters) => {
                write!(svg, r#"<text x="{x}" y="{y}" font-size="10" fill="{fill}">{letters}</text>"#)
            }
            Shape::Square => write!(
                svg,
                r#"<rect x="{x}" y="{}" width="14" height="14" rx="3" fill="{fill}" stroke="{stroke}" stroke-width="2"/>"#,
                y - 12
            ),
        };
        let _ = writeln!(svg, r#"<text x="{}" y="{y}" font-size="12" class="legend">{label}</text>"#, x + 19);
        x += legend_step(label);
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
