//! `check` (docs/games.md): a book measured against games, as Edax 4.6's
//! `book check` measures it. Each game is played from the initial
//! position for at most `61 − n_empties` moves (on an Egaroucid book, which
//! has no such field, the fewest empty squares of a record); then, last
//! move first, each
//! (position, move played) pair not met before in the run is judged: the
//! book has the position and scores the move as its best (*good*) or below
//! it (*bad*), or has no score for it (not counted), or has not the
//! position (*missing*). Beyond Edax, the lines that matter for learning
//! are written as a mining mode writes its lines: `check-bad` (each line up
//! to and including a bad move) and `check-missing` (each line up to the
//! first position the book has not).

mod line;
mod pairs;

pub use line::{CheckLine, Kind};

use crate::board::{Board, Move};
use crate::book::{Book, Record, Score};
use crate::failure::ErrorKind;
use crate::files::input::{first_on_one_file, OverInput, Writer};
use crate::files::{ensure_dir, FinishedFile};
use crate::format::Family;
use crate::games::{Cut, GameFiles, GamesError, PlayedGame, Read, Skipped};
use crate::kifu::Replay;
use crate::output::manifest::{Manifest, ManifestError};
use crate::output::{output_path, FileReport, FileSettings, LineFiles, LineStyle, Place, RecordFormats, Stem};
use crate::run::{Control, Left, Phase, RunError};
use crate::symmetry::{normalize, symmetry_between, Symmetry};
use crate::wording::count;
use pairs::Pairs;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How `check` writes its lines.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// How lines are written (orientation, pass token).
    pub style: LineStyle,
    /// The formats each set is written in.
    pub formats: RecordFormats,
    /// Kifu files start with a byte-order mark.
    pub bom: bool,
    /// A line already in a kifu file is not written again.
    pub unique_lines: bool,
    /// The folder the sets are written in.
    pub out_dir: PathBuf,
}

/// The two sets of lines, in the order they are reported.
const STEMS: [Stem; 2] = [Stem::CheckBad, Stem::CheckMissing];

impl CheckOptions {
    /// The files a run puts in place: each set's file in each format asked
    /// for, and the manifest.
    pub fn outputs(&self) -> Vec<PathBuf> {
        let mut outputs: Vec<PathBuf> = STEMS
            .iter()
            .flat_map(|&stem| self.formats.iter().map(move |format| output_path(&self.out_dir, stem, format)))
            .collect();
        outputs.push(self.out_dir.join(crate::output::manifest::MANIFEST));
        outputs
    }

    /// Refuses, before anything is read, an output that is by some path
    /// the book or a game file, or another output.
    pub fn check_outputs(&self, inputs: &[&Path]) -> Result<(), CheckError> {
        let outputs = self.outputs();
        let outputs: Vec<&Path> = outputs.iter().map(PathBuf::as_path).collect();
        for input in inputs {
            if let Ok(Some(over)) = OverInput::find(input, &outputs, Writer::Check) {
                return Err(RunError::from(over).into());
            }
        }
        match first_on_one_file(&outputs) {
            Some((first, second)) => {
                Err(RunError::OneFile { first: first.to_path_buf(), second: second.to_path_buf() }.into())
            }
            None => Ok(()),
        }
    }

    /// How the sets' files are written.
    fn file_settings(&self) -> FileSettings {
        FileSettings {
            style: self.style.clone(),
            formats: self.formats,
            bom: self.bom,
            unique_lines: self.unique_lines,
        }
    }

    /// The settings that decide what the files hold, as the manifest
    /// records them.
    fn settings(&self, depth: Depth) -> serde_json::Map<String, serde_json::Value> {
        serde_json::json!({
            "formats": self.formats.iter().map(|f| f.name()).collect::<Vec<_>>(),
            "orientation": format!("{:?}", self.style.orientation),
            "pass_token": self.style.pass_token,
            "bom": self.bom,
            "unique_lines": self.unique_lines,
            "moves_a_game": depth.moves(),
        })
        .as_object()
        .cloned()
        .unwrap_or_default()
    }
}

/// Why `check` failed.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    /// The game files cannot be read.
    Games(#[from] GamesError),
    #[error(transparent)]
    /// The walk, the files or a stop failed the run.
    Run(#[from] RunError),
}

impl CheckError {
    /// The kind of failure, which the exit status follows.
    pub fn kind(&self) -> ErrorKind {
        match self {
            CheckError::Games(e) => e.kind(),
            CheckError::Run(e) => e.kind(),
        }
    }
}

/// What a failed run leaves: the files of an earlier run, as they were.
const LEFT: Left = Left::Outputs;

/// How many moves of a game are checked: `61 − n_empties` (passes not
/// counted), as Edax's `book check` plays them. An Edax book's header
/// gives n_empties; an Egaroucid book has no such field, and is checked as
/// Edax checks the book `convert` makes of it, whose n_empties is the
/// fewest empty squares of any record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Depth {
    /// The fewest empty squares a checked position has.
    pub n_empties: i32,
    /// Whether n_empties is the header's (else the records').
    pub from_header: bool,
}

impl Depth {
    /// The depth a book is checked to.
    pub fn of(book: &Book) -> Depth {
        match book.header().edax() {
            Some(header) => Depth { n_empties: header.n_empties, from_header: true },
            None => {
                let file = book.file();
                let fewest = file.every_record().map(|at| file.board_of(at).empties()).min().unwrap_or(60);
                Depth { n_empties: fewest as i32, from_header: false }
            }
        }
    }

    /// The moves checked a game.
    pub fn moves(self) -> usize {
        usize::try_from(61i64 - i64::from(self.n_empties)).unwrap_or(0)
    }
}

/// What the pairs judged came to: Edax's three counts, and the pairs the
/// book holds the position of but scores no move of, or not the one played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Pairs whose position the book has not.
    pub missing: u64,
    /// Pairs whose move the book scores as the position's best.
    pub good: u64,
    /// Pairs whose move the book scores below the best.
    pub bad: u64,
    /// Pairs whose position the book holds, but scores no move of, or not the one played.
    pub unscored: u64,
}

impl Counts {
    /// The share of bad moves among the good and bad, in percent, as
    /// Edax prints it (two decimals); none when no move was good or bad.
    pub fn bad_percent(&self) -> Option<f64> {
        let scored = self.good + self.bad;
        (scored > 0).then(|| (10_000.0 * self.bad as f64 / scored as f64).round() / 100.0)
    }
}

impl fmt::Display for Counts {
    /// Edax's line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Positions : {} missing, {} good, {} bad", self.missing, self.good, self.bad)?;
        match self.bad_percent() {
            Some(percent) => write!(f, " ({percent:.2}% bad)"),
            None => write!(f, " (no move scored)"),
        }
    }
}

/// One set of lines written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetReport {
    /// Which set.
    pub stem: Stem,
    /// Lines written.
    pub lines_written: u64,
    /// Lines not written because a kifu file held them already.
    pub duplicates_dropped: u64,
    /// One file per format.
    pub files: Vec<FileReport>,
}

/// What a run did, for the summary.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// The book checked.
    pub book: PathBuf,
    /// The game files, in order.
    pub games: Vec<PathBuf>,
    /// How deep each game is checked.
    pub depth: Depth,
    /// Games read.
    pub games_read: u64,
    /// Games not from the standard start (or not of Othello), passed over.
    pub games_skipped: u64,
    /// Games ended early by a move that is not legal, or no move at all.
    pub games_cut_short: u64,
    /// Games the book holds the position of after the moves checked: its
    /// header's n_empties, not the book, ended their check.
    pub past_limit: u64,
    /// The pairs judged.
    pub counts: Counts,
    /// The sets of lines written.
    pub sets: Vec<SetReport>,
    /// How long the run took.
    pub elapsed: Duration,
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match self.depth.from_header {
            true => "the header's",
            false => "the fewest empty squares of a record",
        };
        writeln!(
            f,
            "book               {} (the first {} of each game: n_empties {}, {source})",
            self.book.display(),
            count(self.depth.moves() as u64, "move", "moves"),
            self.depth.n_empties
        )?;
        writeln!(
            f,
            "games read         {} from {}: {} skipped (another start), {} cut short (a move not legal)",
            self.games_read,
            count(self.games.len() as u64, "file", "files"),
            self.games_skipped,
            self.games_cut_short
        )?;
        writeln!(f, "{}", self.counts)?;
        if self.past_limit > 0 {
            writeln!(
                f,
                "past the header    {} on in the book after the {} checked: the header's n_empties {} ends \
                 the check there, as it ends Edax's book check, though the book holds positions past it",
                count(self.past_limit, "game goes", "games go"),
                count(self.depth.moves() as u64, "move", "moves"),
                self.depth.n_empties
            )?;
        }
        writeln!(
            f,
            "not scored         {} (the book has the position, no score for the move played)",
            self.counts.unscored
        )?;
        for set in &self.sets {
            write!(f, "{}: ", set.stem.name())?;
            for (i, file) in set.files.iter().enumerate() {
                let lead = if i == 0 { "" } else { ", " };
                write!(f, "{lead}{} written to {}", count(file.lines, "line", "lines"), file.path.display())?;
            }
            if set.duplicates_dropped > 0 {
                write!(f, " ({} dropped)", count(set.duplicates_dropped, "repeated line", "repeated lines"))?;
            }
            writeln!(f)?;
        }
        write!(f, "elapsed            {:.3} s", self.elapsed.as_secs_f64())
    }
}

/// Games cut short named in the log, one by one; the rest are counted.
const NAMED: u64 = 5;

/// Checks `book` against every game of the files, in order, and writes
/// the lines into `out_dir`, each file complete or not at all, the set
/// replacing the previous one there.
pub fn check(
    book: Book,
    games: &GameFiles,
    options: &CheckOptions,
    mut control: Control<'_>,
) -> Result<CheckReport, CheckError> {
    let began = Instant::now();
    let mut inputs: Vec<&Path> = vec![book.path()];
    inputs.extend(games.paths().iter().map(PathBuf::as_path));
    options.check_outputs(&inputs)?;
    ensure_dir(&options.out_dir).map_err(RunError::io(&options.out_dir))?;
    let judge = judge_games(&book, games, options, &mut control)?;
    control.phase(Phase::Writing);
    let Judge { depth, counts, bad, missing, played, skipped, cut_short, past_limit, .. } = judge;
    let (sets, finished) = finish_sets([bad, missing])?;
    if book.file().changed() {
        return Err(RunError::BookChanged { book: book.path().to_path_buf(), left: LEFT }.into());
    }
    for file in finished {
        let path = file.path().to_path_buf();
        file.commit().map_err(RunError::io(&path))?;
    }
    let files = sets.iter().flat_map(|s| &s.files).map(|f| (f.path.as_path(), f.lines));
    Manifest::make_set(&options.out_dir, "check", &inputs, options.settings(depth), files)
        .map_err(|e: ManifestError| RunError::Io { path: e.path, source: e.source })?;
    Ok(CheckReport {
        book: book.path().to_path_buf(),
        games: games.paths().to_vec(),
        depth,
        games_read: played + skipped,
        games_skipped: skipped,
        games_cut_short: cut_short,
        past_limit,
        counts,
        sets,
        elapsed: began.elapsed(),
    })
}

/// Reads every game and judges it, its lines written to the sets' files
/// (not yet in place); the progress is the bytes of games read.
fn judge_games<'b>(
    book: &'b Book,
    games: &GameFiles,
    options: &CheckOptions,
    control: &mut Control<'_>,
) -> Result<Judge<'b>, CheckError> {
    let settings = options.file_settings();
    let open = |stem| LineFiles::create(Place::Folder(options.out_dir.clone()), stem, &settings).map_err(write_failed);
    let mut judge = Judge::new(book, open(Stem::CheckBad)?, open(Stem::CheckMissing)?);
    control.phase(Phase::Counting { what: "bytes of games read", total: games.total_bytes() });
    let mut entries = 0u64;
    games.read(|entry, bytes| {
        control.cancel.check().map_err(RunError::interrupted(LEFT))?;
        entries += 1;
        if entries.is_multiple_of(1024) {
            control.counted(bytes);
        }
        match entry {
            Read::Played(game) => judge.game(&game, &games.paths()[game.file]),
            Read::Skipped { file, skipped } => {
                judge.skip(&games.paths()[file], &skipped);
                Ok(())
            }
        }
    })?;
    if judge.cut_short > NAMED {
        let more = count(judge.cut_short - NAMED, "game", "games");
        tracing::warn!("{more} more cut short by a move that is not legal");
    }
    Ok(judge)
}

/// Writes out each set's files, in [`STEMS`] order, without putting any
/// in place.
fn finish_sets(sets: [LineFiles; 2]) -> Result<(Vec<SetReport>, Vec<FinishedFile>), CheckError> {
    let mut reports = Vec::new();
    let mut finished = Vec::new();
    for (stem, files) in STEMS.into_iter().zip(sets) {
        let written = files.finish().map_err(write_failed)?;
        finished.extend(written.files);
        reports.push(SetReport {
            stem,
            lines_written: written.lines_written,
            duplicates_dropped: written.duplicates_dropped,
            files: written.reports,
        });
    }
    Ok((reports, finished))
}

/// A file that could not be written, as the run's failure.
fn write_failed((path, source): (PathBuf, std::io::Error)) -> RunError {
    RunError::Io { path, source }
}

/// Judges games one after another against a book.
struct Judge<'b> {
    book: &'b Book,
    depth: Depth,
    /// Whether a pass is judged: an Egaroucid book holds no position where
    /// the side to move must pass, so there a pass is neither scored nor
    /// missing.
    passes_judged: bool,
    pairs: Pairs,
    counts: Counts,
    bad: LineFiles,
    missing: LineFiles,
    played: u64,
    skipped: u64,
    cut_short: u64,
    /// Games whose position after the moves checked the book holds.
    past_limit: u64,
}

/// What the book says of one position of a game.
struct Known {
    record: Record,
    /// Maps the record's stored moves onto the game's board.
    symmetry: Symmetry,
}

/// What judging one pair found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Good,
    Bad { score: Score, best: Score },
    Unscored,
    Missing,
}

impl<'b> Judge<'b> {
    /// A judge of games against `book`, writing its lines to `bad` and
    /// `missing`.
    fn new(book: &'b Book, bad: LineFiles, missing: LineFiles) -> Judge<'b> {
        let passes_judged = match book.format().family() {
            Family::Edax => true,
            Family::Egaroucid => false,
        };
        Judge {
            book,
            depth: Depth::of(book),
            passes_judged,
            pairs: Pairs::default(),
            counts: Counts::default(),
            bad,
            missing,
            played: 0,
            skipped: 0,
            cut_short: 0,
            past_limit: 0,
        }
    }

    /// Judges one game's new pairs, last move first, and writes its lines:
    /// each bad move's, in the order of the game, and the one to its first
    /// position the book has not.
    fn game(&mut self, game: &PlayedGame, path: &Path) -> Result<(), CheckError> {
        self.played += 1;
        if let Some(cut) = &game.cut {
            self.note_cut(path, game, cut);
        }
        let replay = &game.replay;
        let steps = replay.steps_within(self.depth.moves());
        // The book going on past the moves its header lets be checked is
        // why a book can look barely checked (issue 64: "0 missing, 1 good").
        if self.depth.from_header && steps < replay.steps.len() && self.known(&replay.boards[steps]).is_some() {
            self.past_limit += 1;
        }
        let judged = |k: usize| self.passes_judged || replay.steps[k] != Move::Pass;
        let known: Vec<Option<Known>> =
            (0..steps).map(|k| if judged(k) { self.known(&replay.boards[k]) } else { None }).collect();
        let mut bad = Vec::new();
        for k in (0..steps).rev().filter(|&k| judged(k)) {
            if !self.pairs.first_time(&replay.boards[k], replay.steps[k]) {
                continue;
            }
            match verdict(known[k].as_ref(), replay.steps[k]) {
                Verdict::Good => self.counts.good += 1,
                Verdict::Bad { score, best } => {
                    self.counts.bad += 1;
                    bad.push((k, Kind::Bad { mv: replay.steps[k], score, best }));
                }
                Verdict::Unscored => self.counts.unscored += 1,
                Verdict::Missing => self.counts.missing += 1,
            }
        }
        let first_missing = (0..steps).find(|&k| judged(k) && known[k].is_none());
        self.write_lines(replay, &bad, first_missing)
    }

    /// Writes a game's lines: one to each bad move (`bad`: its step and
    /// what it is, found last move first), and one to its first position
    /// the book has not.
    fn write_lines(
        &mut self,
        replay: &Replay,
        bad: &[(usize, Kind)],
        first_missing: Option<usize>,
    ) -> Result<(), CheckError> {
        for &(k, kind) in bad.iter().rev() {
            let line = CheckLine { line: &replay.steps[..=k], board: replay.boards[k + 1], kind };
            self.bad.write(&line).map_err(write_failed)?;
        }
        if let Some(k) = first_missing {
            let line = CheckLine { line: &replay.steps[..k], board: replay.boards[k], kind: Kind::Missing };
            self.missing.write(&line).map_err(write_failed)?;
        }
        Ok(())
    }

    /// Counts a game passed over, and names the first few.
    fn skip(&mut self, path: &Path, skipped: &Skipped) {
        self.skipped += 1;
        if self.skipped <= NAMED {
            tracing::info!("{}: {}: skipped, {}", path.display(), skipped.place, skipped.why);
        }
    }

    /// What the book holds of a board, and how its record lies on it.
    fn known(&self, board: &Board) -> Option<Known> {
        let record = self.book.find(&normalize(board).board)?;
        let symmetry = symmetry_between(&record.board, board)?;
        Some(Known { record, symmetry })
    }

    /// Counts a game cut short, and names the first few.
    fn note_cut(&mut self, path: &Path, game: &PlayedGame, cut: &Cut) {
        self.cut_short += 1;
        if self.cut_short <= NAMED {
            tracing::warn!("{}: {}: {cut}; the game is checked up to the move before it", path.display(), game.place);
        }
    }
}

/// How the book judges `played` where it stands at a position: the
/// played move's score (a link's, or the leaf's; the best of them should
/// a move be stored twice) against the best of every stored move, each
/// taken onto the game's board as Edax takes it (the smallest symmetry
/// that maps the record there).
fn verdict(known: Option<&Known>, played: Move) -> Verdict {
    let Some(Known { record, symmetry }) = known else { return Verdict::Missing };
    let best = record.moves().map(|m| m.score).max();
    let score = record.moves().filter(|m| symmetry.apply_move(m.mv) == played).map(|m| m.score).max();
    match (score, best) {
        (Some(score), Some(best)) if score < best => Verdict::Bad { score, best },
        (Some(_), Some(_)) => Verdict::Good,
        _ => Verdict::Unscored,
    }
}
