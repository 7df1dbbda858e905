//! What every game reader's target checks (SPEC §15.1, docs/games.md):
//! arbitrary bytes read as a game file of one format never panic nor
//! hang; what is read is in order, lies in the file, and replays legally.

use bookminer::board::Move;
use bookminer::games::{Entry, GameFile, GameFormat, GamePlace, PlayedGame};

/// Reads `data` as a file of `format` to its end or its first error.
pub fn read_all(format: GameFormat, data: &[u8]) {
    let name = format!("fuzz.{}", format.extension());
    let mut file = match GameFile::from_bytes(&name, format, data.to_vec()) {
        Ok(file) => file,
        Err(e) => {
            assert!(e.to_string().starts_with(&name), "an error names the file: {e}");
            return;
        }
    };
    let mut last: Option<GamePlace> = None;
    loop {
        let entry = match file.next_entry() {
            Ok(Some(entry)) => entry,
            Ok(None) => break,
            Err(e) => {
                assert!(e.to_string().starts_with(&name), "an error names the file: {e}");
                break;
            }
        };
        let place = match &entry {
            Entry::Game(game) => game.place,
            Entry::Skipped(skipped) => skipped.place,
        };
        assert_eq!(place.number, last.map_or(1, |l| l.number + 1), "games are numbered in file order");
        assert!(place.offset < data.len() as u64, "a game starts in the file: {place:?}");
        if let Some(last) = last {
            assert!(place.offset > last.offset && place.line >= last.line, "{last:?} then {place:?}");
        }
        last = Some(place);
        if let Entry::Game(game) = entry {
            if matches!(format, GameFormat::Ggf | GameFormat::Pgn | GameFormat::Sgf) {
                assert!(game.moves.len() <= bookminer::kifu::MAX_MOVES + 1, "no more moves kept than a game holds");
            }
            replays_legally(&PlayedGame::of(0, game));
        }
        assert!(file.offset() <= data.len() as u64);
    }
}

/// Each step of a replay leads from its board to the next; a replay never
/// ends on a pass.
fn replays_legally(game: &PlayedGame) {
    let replay = &game.replay;
    assert_eq!(replay.boards.len(), replay.steps.len() + 1);
    for (k, &step) in replay.steps.iter().enumerate() {
        assert_eq!(replay.boards[k].after(step), Some(replay.boards[k + 1]), "step {k}");
    }
    assert_ne!(replay.steps.last(), Some(&Move::Pass));
}
