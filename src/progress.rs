//! What a long run shows on a terminal: a spinner while the book loads and
//! while its moves are resolved, then the walk's bar, whose rate and time
//! left are counted from the walk's own start. Nothing is drawn when stderr
//! is not a terminal.

use bookminer::walk::WalkStats;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often a spinner turns.
const TICK: Duration = Duration::from_millis(100);

/// The most times a second a bar told often is drawn again.
const REDRAWS_A_SECOND: u8 = 4;

/// The spinner or bar on screen, if any.
pub struct Progress {
    /// Whether stderr is a terminal: if not, nothing is made at all (a
    /// spinner's ticking thread included).
    shown: bool,
    spinner: Option<ProgressBar>,
    /// The walk's bar, or a counting stage's.
    bar: Option<ProgressBar>,
}

/// Set by `-q/--quiet`: nothing is drawn, terminal or not.
static SILENT: AtomicBool = AtomicBool::new(false);

/// Draws nothing from now on.
pub fn silence() {
    SILENT.store(true, Ordering::Relaxed);
}

impl Default for Progress {
    fn default() -> Progress {
        let shown = !SILENT.load(Ordering::Relaxed) && std::io::stderr().is_terminal();
        Progress { shown, spinner: None, bar: None }
    }
}

impl Progress {
    /// Shows `message` beside a spinner until [`Progress::clear`].
    pub fn stage(&mut self, message: String) {
        self.clear();
        if !self.shown {
            return;
        }
        let spinner = ProgressBar::new_spinner();
        spinner.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("a valid template"));
        spinner.set_message(message);
        spinner.enable_steady_tick(TICK);
        self.spinner = Some(spinner);
    }

    /// Takes the spinner or bar off the screen, so that a log line can follow.
    pub fn clear(&mut self) {
        for shown in [self.spinner.take(), self.bar.take()].into_iter().flatten() {
            shown.finish_and_clear();
        }
    }

    /// Starts the walk's clock for a walk of about `edges` edges; the bar
    /// appears with the first report.
    pub fn start_walk(&mut self, edges: u64) {
        self.clear();
        if !self.shown {
            return;
        }
        let bar = ProgressBar::new(edges);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} walking {human_pos}/{human_len} edges ({rate}, {eta} left) {wide_bar}",
            )
            .expect("a valid template")
            .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&edge_rate(state.per_sec()));
            }),
        );
        self.bar = Some(bar);
    }

    /// Shows a bar for a stage of `total` steps, named by `message`.
    pub fn count(&mut self, message: &str, total: u64) {
        self.clear();
        if !self.shown {
            return;
        }
        let bar = ProgressBar::new(total);
        let template = format!("{{spinner}} {message} {{human_pos}}/{{human_len}} ({{eta}} left) {{wide_bar}}");
        bar.set_style(ProgressStyle::with_template(&template).expect("a valid template"));
        bar.enable_steady_tick(TICK);
        self.bar = Some(bar);
    }

    /// Shows a round of `extend`: its candidates, and a bar of its
    /// `total` searches with their rate.
    pub fn searching(&mut self, round: u32, candidates: usize, total: u64) {
        self.clear();
        if !self.shown {
            return;
        }
        let bar = ProgressBar::new(total);
        let plural = if candidates == 1 { "" } else { "s" };
        let template = format!(
            "{{spinner}} round {round}, {candidates} candidate{plural}: searched {{pos}}/{{len}} ({{rate}}, {{eta}} left) {{wide_bar}}"
        );
        let style = ProgressStyle::with_template(&template).expect("a valid template");
        bar.set_style(style.with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.1} searches/s", state.per_sec());
        }));
        bar.enable_steady_tick(TICK);
        self.bar = Some(bar);
    }

    /// A bar for `merge`'s searches of its stale leaves.
    pub fn searching_stale(&mut self, total: u64) {
        self.clear();
        if !self.shown {
            return;
        }
        let bar = ProgressBar::new(total);
        let template = "{spinner} stale leaves: searched {pos}/{len} ({eta} left) {wide_bar}";
        bar.set_style(ProgressStyle::with_template(template).expect("a valid template"));
        bar.enable_steady_tick(TICK);
        self.bar = Some(bar);
    }

    /// Shows `add`'s bar: games done of `games` to read, with their rate
    /// and the time left; redrawn a few times a second at most, however
    /// often it is told (a game takes microseconds).
    pub fn adding(&mut self, games: u64) {
        self.clear();
        if !self.shown {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(games), ProgressDrawTarget::stderr_with_hz(REDRAWS_A_SECOND));
        let template = "{spinner} adding: {human_pos}/{human_len} games ({per_sec}, {eta} left), {msg} {wide_bar}";
        bar.set_style(ProgressStyle::with_template(template).expect("a valid template"));
        bar.enable_steady_tick(TICK);
        self.bar = Some(bar);
    }

    /// Moves `add`'s bar: games done, positions added, and searches
    /// answered of those asked.
    pub fn added(&self, games: u64, added: u64, (searched, searches): (u64, u64)) {
        if let Some(bar) = &self.bar {
            bar.set_position(games);
            bar.set_message(format!("{added} added, {searched} of {searches} searches"));
        }
    }

    /// Shows where `grow` is: positions added, searches, the priority
    /// reached and, with a budget, how much of it is spent.
    pub fn growing(&mut self, added: u64, searched: u64, reached: Option<f64>, spent: Option<f64>) {
        let spent = spent.map_or(String::new(), |s| format!(", {:.0}% of the budget", (s * 100.0).min(100.0)));
        let reached = reached.map_or(String::new(), |p| format!(", priority {p}"));
        self.stage(format!("growing: {added} added, {searched} searches{reached}{spent}"));
    }

    pub fn counted(&self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// Moves the walk's bar to what the walk has done.
    pub fn walked(&self, stats: &WalkStats) {
        if let Some(bar) = &self.bar {
            bar.set_position(stats.edges);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

/// A rate as people read it: "2.5M edges/s", "830k edges/s". The unit is
/// picked by the rounded figure, so that 999,700 reads "1.0M", not "1000k".
fn edge_rate(per_sec: f64) -> String {
    match per_sec {
        r if r >= 999_500.0 => format!("{:.1}M edges/s", r / 1e6),
        r if r >= 999.5 => format!("{:.0}k edges/s", r / 1e3),
        r => format!("{r:.0} edges/s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_as_people_say_them() {
        assert_eq!(edge_rate(2_500_000.0), "2.5M edges/s");
        assert_eq!(edge_rate(830_400.0), "830k edges/s");
        assert_eq!(edge_rate(999_700.0), "1.0M edges/s");
        assert_eq!(edge_rate(999.6), "1k edges/s");
        assert_eq!(edge_rate(999.4), "999 edges/s");
        assert_eq!(edge_rate(0.0), "0 edges/s");
    }
}
