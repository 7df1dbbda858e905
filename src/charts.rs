//! `stats --svg` and `--html` (docs/pictures.md): the distributions `stats`
//! prints, as bar charts with the same numbers in them. Each bar carries
//! `data-key` and `data-count`, and its count is written on it, so the
//! chart reads as the text does. The keys lie on a numeric axis (each bar
//! where its number falls, so −64 stands far from −4) and the counts on a
//! logarithmic one (a count of 1 stays visible beside 158,061); each axis
//! is labelled so.

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

/// One distribution: a title, what its keys are, what the key axis is
/// labelled, and the counts.
struct Chart {
    title: String,
    key: &'static str,
    axis: &'static str,
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
                axis: "empty squares",
                bars: (0..).zip(s.by_empties.iter().copied()).filter(|&(_, n)| n > 0).collect(),
            },
            Chart {
                title: "positions by value".into(),
                key: "value",
                axis: "value (discs, for the side to move)",
                bars: wide(&s.by_value),
            },
            Chart { title: "positions by level".into(), key: "level", axis: "level", bars: wide(&s.by_level) },
            Chart {
                title: "positions by number of links".into(),
                key: "links",
                axis: "links stored",
                bars: s.by_links.iter().map(|(&k, &n)| (k as i64, n)).collect(),
            },
            Chart {
                title: format!(
                    "leaf minus best link, {with_both} positions with both ({} above: mode 1's)",
                    s.leaves_above_links()
                ),
                key: "gap",
                axis: "leaf score minus best link score (discs)",
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

/// The bars' pixels of height at most (the tallest bar's).
const TALLEST: u32 = PLOT_HEIGHT - 30;

/// How tall a count's bar is: the logarithm of the count, from 0.1 at the
/// axis (so a count of 1 stands one tenth of the way to 10 above it: one
/// decade's height), the chart's largest count at [`TALLEST`].
fn height(count: u64, most: u64) -> u32 {
    let decades = |n: u64| (n.max(1) as f64).log10() + 1.0;
    match count {
        0 => 0,
        _ => ((decades(count) / decades(most)) * f64::from(TALLEST)).round().max(1.0) as u32,
    }
}

/// The key axis of a chart: its first and last keys and the pixels a key
/// takes, so that a key lies at `(key - first) * slot` from the start:
/// where its number falls, gaps between keys kept.
struct Axis {
    first: i64,
    last: i64,
    slot: u32,
}

impl Axis {
    fn of(bars: &[(i64, u64)]) -> Axis {
        let first = bars.iter().map(|b| b.0).min().unwrap_or(0);
        let last = bars.iter().map(|b| b.0).max().unwrap_or(0);
        let span = u32::try_from(last - first + 1).unwrap_or(u32::MAX).max(1);
        Axis { first, last, slot: ((WIDTH - 8) / span).clamp(1, 60) }
    }

    /// The left edge of `key`'s slot (saturating: the formats' keys are
    /// bytes, but a chart of any numbers is drawn without overflow).
    fn x(&self, key: i64) -> u32 {
        let from_first = u32::try_from(key.saturating_sub(self.first)).unwrap_or(u32::MAX);
        (LEFT + 4).saturating_add(from_first.saturating_mul(self.slot))
    }

    /// The keys between ticks: the smallest of 1, 2, 5, 10, 20, ... that
    /// leaves 28 pixels between two labels and makes at most 40 ticks.
    fn step(&self) -> i64 {
        let span = self.last.saturating_sub(self.first);
        let mut step = 1i64;
        while i64::from(self.slot) * step < 28 || span / step > 40 {
            step = next_step(step);
        }
        step
    }

    /// The keys a tick is drawn under: the multiples of the step.
    fn ticks(&self) -> impl Iterator<Item = i64> + '_ {
        let step = self.step();
        let start = self.first.div_euclid(step).saturating_add(i64::from(self.first.rem_euclid(step) != 0));
        (start..).take(64).map(move |n| n.saturating_mul(step)).take_while(move |&k| k <= self.last)
    }
}

/// One chart at height `top`: its title, its two axes with their ticks and
/// labels (counts on a log scale), a bar per key held with its count
/// written above it (turned upright when bars are narrow).
fn bars(svg: &mut String, chart: &Chart, top: u32) {
    let base = top + TITLE + PLOT_HEIGHT;
    let _ = writeln!(
        svg,
        r#"<g class="chart" data-chart="{}" data-count-scale="log"><text x="{LEFT}" y="{}" font-size="15" font-weight="bold">{}</text>"#,
        chart.key,
        top + 18,
        escape(&chart.title)
    );
    let _ =
        writeln!(svg, r##"<path d="M{LEFT} {}V{base}H{}" stroke="#444444" fill="none"/>"##, top + TITLE, LEFT + WIDTH);
    let most = chart.bars.iter().map(|&(_, n)| n).max().unwrap_or(0).max(1);
    count_ticks(svg, most, base);
    let axis = Axis::of(&chart.bars);
    key_ticks(svg, chart, &axis, base);
    let mid = top + TITLE + PLOT_HEIGHT / 2;
    let _ = writeln!(
        svg,
        r#"<text transform="translate(14,{mid}) rotate(-90)" font-size="11" text-anchor="middle" class="axis-label" data-axis="count">positions (log scale)</text>"#
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" font-size="11" text-anchor="middle" class="axis-label" data-axis="key">{}</text>"#,
        LEFT + WIDTH / 2,
        base + 38,
        escape(chart.axis)
    );
    let bar = (axis.slot * 4 / 5).max(1);
    for &(key, count) in &chart.bars {
        let x = axis.x(key);
        let h = height(count, most);
        let cx = x.saturating_add(bar / 2);
        let _ = writeln!(
            svg,
            r##"<rect x="{x}" y="{}" width="{bar}" height="{h}" fill="#3f7fbf" data-key="{key}" data-count="{count}"><title>{} {}: {count} positions</title></rect>"##,
            base - h,
            chart.key,
            key_text(chart, key)
        );
        count_text(svg, cx, base - h, axis.slot, count);
    }
    svg.push_str("</g>\n");
}

/// The next tick step after `step`: 1, 2, 5, 10, 20, 50, ...
fn next_step(step: i64) -> i64 {
    let decade = 10i64.pow(step.max(1).ilog10());
    match step / decade {
        1 => 2 * decade,
        2 => 5 * decade,
        _ => decade.saturating_mul(10),
    }
}

/// A key as its axis writes it: values and gaps signed.
fn key_text(chart: &Chart, key: i64) -> String {
    match chart.key {
        "value" | "gap" => format!("{key:+}"),
        _ => key.to_string(),
    }
}

/// A bar's count written over it: level above a wide bar, upright above a
/// narrow one, left out where the bar is too narrow to hold it (its title
/// and `data-count` hold it).
fn count_text(svg: &mut String, cx: u32, top: u32, slot: u32, count: u64) {
    let _ = match slot {
        0..=8 => Ok(()),
        9..=33 => writeln!(
            svg,
            r#"<text transform="translate({},{}) rotate(-90)" font-size="9">{count}</text>"#,
            cx + 3,
            top - 3
        ),
        _ => writeln!(svg, r#"<text x="{cx}" y="{}" font-size="11" text-anchor="middle">{count}</text>"#, top - 4),
    };
}

/// The count axis: a tick, a faint line across and a label at each power
/// of ten up to the largest count (`data-tick`).
fn count_ticks(svg: &mut String, most: u64, base: u32) {
    let mut tick = 1u64;
    while tick <= most {
        let y = base - height(tick, most);
        let _ = writeln!(
            svg,
            r##"<path d="M{} {y}H{}" stroke="#dddddd" fill="none"/><text x="{}" y="{}" font-size="10" text-anchor="end" data-tick="{tick}">{tick}</text>"##,
            LEFT + 1,
            LEFT + WIDTH,
            LEFT - 6,
            y + 4
        );
        let Some(next) = tick.checked_mul(10) else { break };
        tick = next;
    }
}

/// The key axis: a tick and a label under each key that is a multiple of
/// the axis's step (every key when there is room), at the key's place.
fn key_ticks(svg: &mut String, chart: &Chart, axis: &Axis, base: u32) {
    if chart.bars.is_empty() {
        return;
    }
    let bar = (axis.slot * 4 / 5).max(1);
    for key in axis.ticks() {
        let cx = axis.x(key).saturating_add(bar / 2);
        let _ = writeln!(
            svg,
            r##"<path d="M{cx} {base}v4" stroke="#444444"/><text x="{cx}" y="{}" font-size="10" text-anchor="middle" data-key-tick="{key}">{}</text>"##,
            base + 15,
            key_text(chart, key)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn keys_as_far_apart_as_numbers_go_are_drawn_with_few_ticks() {
        let stats = BookStats {
            by_empties: vec![0; 61],
            by_value: BTreeMap::from([(i32::MIN, 1), (0, u64::MAX), (i32::MAX, 2)]),
            by_links: BTreeMap::from([(usize::MAX, 1), (0, 1)]),
            ..BookStats::default()
        };
        let svg = Charts { name: "wide", stats: &stats }.to_string();
        let value = svg.split("data-chart=\"value\"").nth(1).unwrap().split("</g>").next().unwrap();
        let ticks = value.matches("data-key-tick=").count();
        assert!((1..=41).contains(&ticks), "{ticks} ticks");
        assert_eq!(value.matches("data-key=").count(), 3);
    }
}
