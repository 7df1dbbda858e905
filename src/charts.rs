//! `stats --svg` and `--html` (docs/pictures.md): the distributions `stats`
//! prints, as bar charts with the same numbers in them. Each bar carries
//! `data-key` and `data-count`, and its count is written on it, so the
//! chart reads as the text does.

use crate::inspect::picture::escape;
use crate::stats::BookStats;
use std::fmt::{self, Write};

/// The chart area's width and each chart's height, in pixels.
const WIDTH: u32 = 960;
const PLOT_HEIGHT: u32 = 180;
/// Room left of the bars, above them (the title) and below (the keys).
const LEFT: u32 = 70;
const TITLE: u32 = 40;
const KEYS: u32 = 46;

/// One distribution: a title, what its keys are, and the counts.
struct Chart {
    title: String,
    key: &'static str,
    bars: Vec<(i64, u64)>,
}

/// The charts of a book's counts; `Display` gives one SVG document.
pub struct Charts<'a> {
    /// What the charts are of (the book's name).
    pub name: &'a str,
    /// The counts.
    pub stats: &'a BookStats,
}

impl Charts<'_> {
    fn charts(&self) -> Vec<Chart> {
        let s = self.stats;
        let wide = |map: &std::collections::BTreeMap<i32, u64>| map.iter().map(|(&k, &n)| (i64::from(k), n)).collect();
        let with_both: u64 = s.by_leaf_gap.values().sum();
        vec![
            Chart {
                title: "positions by empty squares".into(),
                key: "empties",
                bars: (0..).zip(s.by_empties.iter().copied()).filter(|&(_, n)| n > 0).collect(),
            },
            Chart { title: "positions by value".into(), key: "value", bars: wide(&s.by_value) },
            Chart { title: "positions by level".into(), key: "level", bars: wide(&s.by_level) },
            Chart {
                title: "positions by number of links".into(),
                key: "links",
                bars: s.by_links.iter().map(|(&k, &n)| (k as i64, n)).collect(),
            },
            Chart {
                title: format!(
                    "leaf minus best link, {with_both} positions with both ({} above: mode 1's)",
                    s.leaves_above_links()
                ),
                key: "gap",
                bars: wide(&s.by_leaf_gap),
            },
        ]
    }

    /// The charts in an HTML page of their own.
    pub fn html(&self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title></head>\n<body style=\"margin:16px\">\n{self}</body></html>\n",
            escape(self.name)
        )
    }
}

impl fmt::Display for Charts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let charts = self.charts();
        let each = TITLE + PLOT_HEIGHT + KEYS;
        let height = 70 + each * charts.len() as u32;
        let width = LEFT + WIDTH + 20;
        let s = self.stats;
        let mut svg = String::with_capacity(64 << 10);
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" class="bookminer-stats">"#
        );
        let _ = writeln!(svg, "<title>{}</title>", escape(self.name));
        let _ = writeln!(svg, r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##);
        let _ =
            writeln!(svg, r#"<text x="{LEFT}" y="26" font-size="18" font-weight="bold">{}</text>"#, escape(self.name));
        let _ = writeln!(
            svg,
            r#"<text x="{LEFT}" y="50" font-size="14" data-positions="{}" data-links="{}" data-leaves="{}" data-no-moves="{}">positions {} · links {} ({} passes) · leaves {} ({} passes) · no moves {}</text>"#,
            s.positions, s.links, s.leaves, s.bare, s.positions, s.links, s.pass_links, s.leaves, s.pass_leaves, s.bare
        );
        for (i, chart) in charts.iter().enumerate() {
            bars(&mut svg, chart, 70 + each * i as u32);
        }
        svg.push_str("</svg>\n");
        f.write_str(&svg)
    }
}

/// One chart at height `top`: its title, an axis, a bar per key held with
/// its count written above it (turned upright when bars are narrow), and
/// the keys under the bars.
fn bars(svg: &mut String, chart: &Chart, top: u32) {
    let base = top + TITLE + PLOT_HEIGHT;
    let _ = writeln!(
        svg,
        r#"<g class="chart" data-chart="{}"><text x="{LEFT}" y="{}" font-size="15" font-weight="bold">{}</text>"#,
        chart.key,
        top + 18,
        escape(&chart.title)
    );
    let _ =
        writeln!(svg, r##"<path d="M{LEFT} {}V{base}H{}" stroke="#444444" fill="none"/>"##, top + TITLE, LEFT + WIDTH);
    let most = chart.bars.iter().map(|&(_, n)| n).max().unwrap_or(0).max(1);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" font-size="11" text-anchor="end">{most}</text>"#,
        LEFT - 6,
        top + TITLE + 10
    );
    let _ = writeln!(svg, r#"<text x="{}" y="{base}" font-size="11" text-anchor="end">0</text>"#, LEFT - 6);
    let n = chart.bars.len().max(1) as u32;
    let slot = (WIDTH / n).clamp(3, 60);
    let bar = (slot * 4 / 5).max(2);
    let upright = slot < 34;
    for (i, &(key, count)) in chart.bars.iter().enumerate() {
        let x = LEFT + 4 + slot * i as u32;
        // Tall bars over short ones: counts span many orders of magnitude,
        // so a bar of any count at all is at least a pixel high.
        let h = ((count as f64 / most as f64) * (PLOT_HEIGHT - 30) as f64).round().max(1.0) as u32;
        let key_text = if chart.key == "value" || chart.key == "gap" { format!("{key:+}") } else { key.to_string() };
        let _ = writeln!(
            svg,
            r##"<rect x="{x}" y="{}" width="{bar}" height="{h}" fill="#3f7fbf" data-key="{key}" data-count="{count}"><title>{} {key_text}: {count} positions</title></rect>"##,
            base - h,
            chart.key
        );
        let cx = x + bar / 2;
        match upright {
            // Too narrow for a count: its bar's title and data-count hold it.
            true if slot < 9 => {}
            true => {
                let _ = writeln!(
                    svg,
                    r#"<text transform="translate({},{}) rotate(-90)" font-size="9">{count}</text>"#,
                    cx + 3,
                    base - h - 3
                );
            }
            false => {
                let _ = writeln!(
                    svg,
                    r#"<text x="{cx}" y="{}" font-size="11" text-anchor="middle">{count}</text>"#,
                    base - h - 4
                );
            }
        }
        // Every key when there is room (level under wide bars, upright
        // under narrow ones), else one in as many as fit.
        if !upright {
            let _ = writeln!(
                svg,
                r#"<text x="{cx}" y="{}" font-size="11" text-anchor="middle">{key_text}</text>"#,
                base + 15
            );
        } else if i % (14 / slot).max(1) as usize == 0 {
            let _ = writeln!(
                svg,
                r#"<text transform="translate({},{}) rotate(-90)" font-size="9" text-anchor="end">{key_text}</text>"#,
                cx + 3,
                base + 4
            );
        }
    }
    svg.push_str("</g>\n");
}
