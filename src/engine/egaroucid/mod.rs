//! Egaroucid for Console 7.8 as a protocol (docs/extend.md says how each
//! search is asked and what it costs).
//!
//! Started with `-nobook -quiet` after the user's command: no book move
//! is listed in place of a search, and nothing but answers is printed.
//! Framing: a command the console does not know is answered on its
//! output with ``[ERROR] command `X` not found``, so a made-up command
//! `bookminer-sync-N` sent after the others ends their output.
//!
//! Exclusions: its console has no command that leaves moves out. `hint K`
//! lists the best K moves, each row a new search over the moves not yet
//! listed, so with K = the excluded moves + 1 (never more than the legal
//! moves) the first row whose move is not excluded is the best of the
//! others.
//!
//! Ties: which of equally good moves the console lists first depends on
//! what its transposition table holds from earlier searches, so a run
//! killed and run again (whose new processes remember nothing) could
//! name another. The answer is therefore the first square, in A1…H8
//! order, of the allowed moves with the best score; while the last row
//! listed still has that score, more rows are asked for (twice as many,
//! the console's table making the rows already listed cheap). Emptying
//! the table before each search (`clearcache`) would do the same at
//! 0.05 to 0.2 s a search.

use super::console::{Console, WorkerFiles};
use super::process::{clipped, shown, Process, Until};
use super::search::{Answer, Fault, Query};
use crate::board::{Square, Squares};
use crate::level::Level;
use crate::run::Cancel;

/// How a made-up command that ends an answer begins.
const SYNC: &str = "bookminer-sync-";

/// How the console's errors begin, on its output.
const ERROR: &str = "[ERROR]";

/// The memory one process takes: a fixed transposition table of 768 MB
/// and the evaluation, about 1.3 GB measured; a little more is counted.
const PROCESS_BYTES: u64 = 1_400 << 20;

/// Whether `line` is Egaroucid's console answering the greeting's probe:
/// it names each of the probe's lines a command it does not know.
pub fn answers_probe(line: &str) -> bool {
    line.trim().starts_with("[ERROR] command `")
}

/// One process per core, but no more than this machine's available memory
/// holds ([`PROCESS_BYTES`] each), and at least one.
pub fn default_workers(cores: usize) -> usize {
    let fits =
        available_memory().map_or(usize::MAX, |bytes| usize::try_from(bytes / PROCESS_BYTES).unwrap_or(usize::MAX));
    cores.min(fits).max(1)
}

/// The memory available to new processes (`MemAvailable` of
/// /proc/meminfo), where the system says it.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// One worker's conversation with Egaroucid's console.
#[derive(Default)]
pub struct EgaroucidConsole {
    next_sync: u64,
    /// The level last set, so that it is set again only on a change.
    level: Option<Level>,
}

impl EgaroucidConsole {
    /// A console; it keeps no file (`files` is every protocol's share).
    pub fn new(_files: &WorkerFiles) -> EgaroucidConsole {
        EgaroucidConsole::default()
    }

    /// Sends the made-up command that ends an answer and returns every
    /// line printed before the console said it does not know it.
    fn sync(&mut self, process: &mut Process, stop: Cancel<'_>) -> Result<Vec<String>, Fault> {
        self.next_sync += 1;
        let command = format!("{SYNC}{}", self.next_sync);
        process.send(&command)?;
        let end = format!("[ERROR] command `{command}` not found");
        let wait = process.timeout();
        process.read_until(wait, stop, |line| if line.trim() == end { Until::End } else { Until::More })
    }
}

impl Console for EgaroucidConsole {
    fn start_line(&mut self, command: &str) -> Result<String, Fault> {
        Ok(format!("exec {command} -nobook -quiet"))
    }

    /// The first made-up command answered, and nothing else printed but
    /// what it says of the probe's lines: an error at start (no evaluation
    /// file) is printed on its output, then the console leaves.
    fn greet(&mut self, process: &mut Process, stop: Cancel<'_>) -> Result<(), Fault> {
        let output = self.sync(process, stop)?;
        match output.iter().find(|l| !l.trim().is_empty() && !answers_probe(l)) {
            None => Ok(()),
            Some(_) => Err(Fault::Garbage { text: format!("before its first answer it printed: {}", shown(&output)) }),
        }
    }

    fn search(&mut self, process: &mut Process, query: &Query, stop: Cancel<'_>) -> Result<Answer, Fault> {
        if self.level != Some(query.level) {
            process.send(&format!("level {}", query.level))?;
            self.level = Some(query.level);
        }
        process.send(&format!("setboard {} {}", query.board_text(), query.side()))?;
        let legal = query.board.legal_moves().count_ones();
        let mut rows = rows_asked(query);
        loop {
            let hint = format!("hint {rows}");
            process.send(&hint)?;
            let output = self.sync(process, stop)?;
            let listed = read_hint(&output, &hint, rows, query)?;
            match chosen(&listed, query) {
                Some(answer) => return Ok(answer),
                None if rows < legal => rows = (rows * 2).min(legal),
                None => unreachable!("every legal move listed leaves no tie unseen"),
            }
        }
    }

    fn quit(&mut self, process: &mut Process) {
        process.quit_with("quit");
    }
}

/// The rows `hint` is asked for: one more than the moves excluded, so that
/// at least one listed move is not, and never more than the legal moves.
fn rows_asked(query: &Query) -> u32 {
    let legal = query.board.legal_moves().count_ones();
    (query.excluded.len() as u32 + 1).min(legal)
}

/// The answer among the rows listed: the first square of the allowed
/// moves with the best score, or `None` while the last row has that score
/// and moves are left unlisted (one of them may tie).
fn chosen(listed: &[Answer], query: &Query) -> Option<Answer> {
    let best = listed.iter().find(|row| !query.excluded.contains(row.mv))?.score;
    let all_listed = listed.len() as u32 == query.board.legal_moves().count_ones();
    if !all_listed && listed.last().is_some_and(|row| row.score == best) {
        return None;
    }
    let tied = listed.iter().filter(|row| row.score == best && !query.excluded.contains(row.mv));
    tied.min_by_key(|row| row.mv.index()).copied()
}

/// Reads what `hint` printed: a header, then `rows` rows, each the best
/// of the moves not yet listed (so in order of score, best first), at
/// least one of them not excluded.
fn read_hint(output: &[String], hint: &str, rows: u32, query: &Query) -> Result<Vec<Answer>, Fault> {
    let garbage =
        |why: String| Fault::Garbage { text: format!("{why} (after `{hint}` on {query}): {}", shown(output)) };
    let lines: Vec<&str> = output.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
    if let Some(error) = lines.iter().find(|l| l.starts_with(ERROR)) {
        return Err(garbage(format!("it said {}", clipped(error, 200))));
    }
    let Some((header, listed)) = lines.split_first() else { return Err(garbage("no header".into())) };
    if !cells(header).contains(&"Move") {
        return Err(garbage("no header".into()));
    }
    if listed.is_empty() {
        return Err(garbage("no move listed: the side to move must pass, or the game is over".into()));
    }
    if listed.len() != rows as usize {
        return Err(garbage(format!("{} rows listed, {rows} asked", listed.len())));
    }
    let mut seen = Squares::NONE;
    let mut read: Vec<Answer> = Vec::with_capacity(listed.len());
    for row in listed {
        let found = read_row(row).ok_or_else(|| garbage(format!("a row that does not read: {}", clipped(row, 200))))?;
        if query.board.legal_moves() & found.mv.bit() == 0 || seen.contains(found.mv) {
            return Err(garbage(format!("{} listed, not a legal move there or listed twice", found.mv)));
        }
        if !(-64..=64).contains(&found.score) {
            return Err(garbage(format!("{} scored beyond ±64", found.mv)));
        }
        if read.last().is_some_and(|above| above.score < found.score) {
            return Err(garbage(format!("{} listed below a worse move", found.mv)));
        }
        seen = seen.with(found.mv);
        read.push(found);
    }
    if read.iter().all(|row| query.excluded.contains(row.mv)) {
        return Err(garbage("every move listed is excluded".into()));
    }
    Ok(read)
}

/// The cells of a row: `|  60|  10@100%|  f4|  -2|  000:00:00.001|  3720|  3720000|`.
fn cells(row: &str) -> Vec<&str> {
    row.split('|').map(str::trim).filter(|c| !c.is_empty()).collect()
}

/// A row of `hint`: level, depth, move, score, time, nodes, speed. A book
/// move (`Book` as its level) is not a search.
fn read_row(row: &str) -> Option<Answer> {
    let cells = cells(row);
    let [level, _depth, mv, score, _time, _nodes, _nps] = cells.as_slice() else { return None };
    level.parse::<u8>().ok()?;
    Some(Answer { mv: Square::parse(mv)?, score: score.parse().ok()? })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(excluded: &[&str]) -> Query {
        let (board, _) = crate::kifu::parse_and_play("f5d6c3").unwrap();
        let excluded = excluded.iter().fold(Squares::NONE, |set, s| set.with(Square::parse(s).unwrap()));
        Query { board, excluded, level: Level::MAX }
    }

    const HEADER: &str = "|          Level|          Depth|           Move|          Score|           Time|          Nodes|            NPS|";

    fn row(mv: &str, score: &str) -> String {
        format!("|             60|        10@100%|             {mv}|             {score}|  000:00:00.001|           3720|        3720000|")
    }

    fn lines(rows: &[String]) -> Vec<String> {
        std::iter::once(HEADER.to_string()).chain(rows.iter().cloned()).map(|l| format!("{l}\n")).collect()
    }

    fn answer(mv: &str, score: i8) -> Answer {
        Answer { mv: Square::parse(mv).unwrap(), score }
    }

    #[test]
    fn the_best_row_not_excluded_is_the_answer_and_of_ties_the_first_square() {
        // After f5 d6 c3 white's legal moves are d3, f3, f4 and g5.
        let q = query(&["d3"]);
        assert_eq!(rows_asked(&q), 2);
        let listed = read_hint(&lines(&[row("d3", "+4"), row("f4", "-2")]), "hint 2", 2, &q).unwrap();
        assert_eq!(listed, [answer("d3", 4), answer("f4", -2)]);
        assert_eq!(chosen(&listed, &q), None, "the last row may tie with a move not listed");
        let listed = [answer("d3", 4), answer("f4", -2), answer("f3", -2), answer("g5", -3)];
        assert_eq!(chosen(&listed, &q), Some(answer("f3", -2)), "of equal scores, the first square");
        assert_eq!(chosen(&[answer("f4", 0), answer("d3", -6)], &q), Some(answer("f4", 0)));
        assert_eq!(rows_asked(&query(&[])), 1);
    }

    #[test]
    fn rows_asked_never_exceed_the_legal_moves() {
        let (board, _) = crate::kifu::parse_and_play("f5").unwrap();
        let legal = board.legal_moves();
        let all_but_one = Squares::of(legal & (legal - 1));
        let q = Query { board, excluded: all_but_one, level: Level::MAX };
        assert_eq!(rows_asked(&q), legal.count_ones());
    }

    #[test]
    fn what_breaks_the_rules_is_garbage_quoting_it() {
        let q = query(&["d3"]);
        let cases = [
            (lines(&[]), "must pass"),
            (lines(&[row("d3", "+4")]), "1 rows listed, 2 asked"),
            (lines(&[row("d3", "+4"), row("d3", "+4")]), "listed twice"),
            (lines(&[row("a1", "+4"), row("f4", "+4")]), "not a legal move"),
            (lines(&[row("f4", "+66"), row("d3", "+4")]), "beyond"),
            (lines(&[row("f4", "+2"), row("f3", "+4")]), "below a worse move"),
            (lines(&[row("d3", "+2"), row("d3", "+2")]), "listed twice"),
            (lines(&[row("f4", "x"), row("d3", "+4")]), "does not read"),
            (vec!["[ERROR] level out of range\n".to_string()], "level out of range"),
            (vec!["Welcome\n".to_string()], "no header"),
            (vec![], "no header"),
        ];
        for (out, why) in cases {
            let fault = read_hint(&out, "hint 2", 2, &q).err().unwrap();
            assert!(matches!(fault, Fault::Garbage { .. }) && fault.to_string().contains(why), "{why}: {fault}");
        }
        let book = HEADER.to_string() + "\n|Book|-|c4|+2|-|-|-|\n";
        assert!(read_hint(&[book], "hint 1", 1, &query(&[])).is_err(), "a book move is not a search");
    }

    #[test]
    fn the_probe_is_answered_with_its_unknown_command_line() {
        assert!(answers_probe("[ERROR] command `echo` not found\n"));
        assert!(!answers_probe("[ERROR] [FATAL] evaluation file not found"));
        assert!(default_workers(4) >= 1 && default_workers(4) <= 4);
    }

    proptest::proptest! {
        /// Whatever an engine prints, reading it gives an answer the query
        /// accepts or a fault, never a panic.
        #[test]
        fn any_output_is_an_accepted_answer_or_garbage(
            lines in proptest::collection::vec("[ -~]{0,60}", 0..4),
            cells in proptest::collection::vec("(60|Book|[a-hA-H][1-8]|[+-]?[0-9]{1,3}|-|x)", 0..9),
        ) {
            let q = query(&["d3"]);
            let mut output: Vec<String> = vec![format!("{HEADER}\n")];
            output.extend(lines.iter().map(|l| format!("{l}\n")));
            output.push(format!("|{}|", cells.join("|")));
            match read_hint(&output, "hint 2", 2, &q) {
                Ok(listed) => {
                    let answer = chosen(&listed, &q);
                    proptest::prop_assert!(answer.is_none_or(|a| q.accepts(&a)));
                }
                Err(fault) => proptest::prop_assert!(matches!(fault, Fault::Garbage { .. }), "{}", fault),
            }
        }
    }
}
