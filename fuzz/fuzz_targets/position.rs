//! Arbitrary text as mode-5 input and as kifu: the position parsers, the
//! inspect report against a small book, and the kifu reader and player must
//! never panic; what they accept must read back the same.

#![no_main]

use bookminer::book::Book;
use bookminer::inspect::{inspect, Request};
use bookminer::rules::modes::Rules;
use bookminer::kifu::{parse_and_play, parse_moves};
use bookminer::position;
use bookminer::synth::{synthesize, SynthOptions};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// A small synthetic book, built once: inspect looks every position up in it.
fn book() -> &'static Book {
    static BOOK: OnceLock<Book> = OnceLock::new();
    BOOK.get_or_init(|| {
        let mut bytes = Vec::new();
        synthesize(&SynthOptions { positions: 200, seed: 1, perturb: 0.05 }, &mut bytes).expect("writing to memory");
        Book::from_bytes("synth200.dat", bytes).expect("synth writes valid books")
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);

    let requests = Request::from_bytes("fuzz.txt", data);
    for request in requests.iter().flatten() {
        let _ = position::parse(&request.text);
    }
    let outcomes = inspect(book(), &Rules::default(), &requests);
    assert_eq!(outcomes.len(), requests.len(), "one outcome per request");

    if let Ok(moves) = parse_moves(&text) {
        let written: String = moves.iter().map(|m| m.to_string()).collect();
        assert_eq!(parse_moves(&written).as_ref(), Ok(&moves), "a read kifu reads back the same once written");
    }
    if let Ok((board, line)) = parse_and_play(&text) {
        let written: String = line.iter().map(|m| m.to_string()).collect();
        assert_eq!(parse_and_play(&written).map(|(b, _)| b), Ok(board), "a played kifu replays to the same board");
    }
});
